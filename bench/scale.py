"""How dialog.core scales: each operation at 10,000 and 100,000 messages, and the 100k/10k ratio (goal: at most 11, i.e. linear).

    python bench/scale.py [--small 10000] [--big 100000] [--reps 3]

Rows (n = the dialog's size):
  build append   n `mk_message` calls, each appending
  plain list     baseline: the same `Message`s built into a plain list (no dialog): what pure Python allocation scales like here
  build middle   200 `mk_message(after=<the middle message>)` into a dialog of n (also printed: ms per insert, goal <= 1)
  lookup         n lookups by id (`dlg.messages[id]`) and n `id in dlg.messages`, random ids
  lookup_dict    baseline: the same lookups in a plain dict (random access outgrows the CPU caches between the sizes,
                 so its own ratio exceeds 10; lookup's cost against it is printed for both sizes)
  lookup_fixed   the same fixed number of lookups (`--small` of each kind) at both sizes: O(1) shows as a ratio near 1
                 (random access into the bigger index still misses the CPU caches more: compare lookup_dict_fixed,
                 the same fixed count in the plain dict)
  validate       `Dialog.validate`
  write_ipynb    the file text of the dialog
  reads_ipynb    a dialog from that text
  add_output     n stream chunks streamed into one message (includes building each chunk's iopub message)
  add_output_tail  the last `--small` chunks of an n-chunk stream: the cost of one more chunk late in a long run;
                 a ratio near 1 means each chunk costs the same however long the stream already is (linear overall)
Then building's cost against constructing the same `Message` objects into a plain list (goal <= 2x), at both sizes.
Each figure is the best of `--reps` runs, small and big interleaved; the machine is shared, so re-run if noisy.
"""
import argparse, gc, random, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent.parent))
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb

def _built(n):
    d = Dialog('scale')
    for i in range(n): d.mk_message(f'x = {i}', output=code_output(str(i)))
    return d

def build_append(n): _built(n)
def plain_list(n): return [Message(f'x = {i}', output=code_output(str(i))) for i in range(n)]

def best(f, reps):
    "Best time of `reps` runs of `f()`, garbage collection off while timing"
    res = []
    for _ in range(reps):
        if hasattr(f, 'prep'): f.prep()
        gc.collect(); gc.disable()
        t = time.perf_counter()
        try: f()
        finally: gc.enable()
        res.append(time.perf_counter()-t)
    return min(res)

def cases(n, k):
    "The timed operations on a dialog of `n` messages, by row name; `k` is the fixed count of the `_fixed` and `_tail` rows"
    d = _built(n)
    ids = [m.id for m in d]
    random.seed(0); probe = random.choices(ids, k=n)
    random.seed(1); probe_k = random.choices(ids, k=k)
    mid,plain,txt = d[n//2],{m.id:m for m in d},write_ipynb(d)
    def middle():
        for i in range(200): d.mk_message(f'm{i}', after=mid)
    def lookups(ms, keys):
        "Look each of `keys` up in `ms` (a `Msgs`, or the plain-dict baseline), then check `in` for each"
        def f():
            for i in keys: ms[i]
            for i in keys: i in ms
        return f
    def stream():
        m = Message('run()', msg_type=scode)
        for i in range(n): m.add_output(mk_stream(f'{i}\n'))
        return m.output
    class _Tail:  # a fresh stream of n-k chunks for each run, untimed; the timed call streams the last k
        def __call__(self):
            m = self.m
            for i in range(n-k, n): m.add_output(mk_stream(f'{i}\n'))  # not reading `output`: that joins all n
        def prep(self):
            self.m = m = Message('run()', msg_type=scode)
            for i in range(n-k): m.add_output(mk_stream(f'{i}\n'))
    return dict(build_append=lambda: build_append(n), plain_list=lambda: plain_list(n), build_middle=middle, lookup=lookups(d.messages, probe),
                lookup_dict=lookups(plain, probe), lookup_fixed=lookups(d.messages, probe_k), lookup_dict_fixed=lookups(plain, probe_k), validate=d.validate, write_ipynb=lambda: write_ipynb(d), reads_ipynb=lambda: reads_ipynb(txt),
                add_output=stream, add_output_tail=_Tail())

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--small', type=int, default=10_000)
    p.add_argument('--big', type=int, default=100_000)
    p.add_argument('--reps', type=int, default=3)
    a = p.parse_args()
    cs,cb = cases(a.small, a.small),cases(a.big, a.small)
    small,big = {},{}
    for k in cs:  # small and big runs interleaved, so a noisy neighbour hits both alike; best of each
        ts,tb = [],[]
        for _ in range(a.reps): ts.append(best(cs[k], 1)); tb.append(best(cb[k], 1))
        small[k],big[k] = min(ts),min(tb)
    print(f'{"row":<18}{a.small:>12,}{a.big:>12,}   ratio (goal <= 11)')
    for k in small: print(f'{k:<18}{small[k]:>11.3f}s{big[k]:>11.3f}s   {big[k]/small[k]:.1f}')
    print(f'{a.small:,} lookups (lookup_fixed) at {a.big:,} vs at {a.small:,}: {big["lookup_fixed"]/small["lookup_fixed"]:.2f}x (O(1): near 1; a plain dict: {big["lookup_dict_fixed"]/small["lookup_dict_fixed"]:.2f}x)')
    print(f'the last {a.small:,} chunks of a {a.big:,}-chunk stream vs a {a.small:,}-chunk stream: {big["add_output_tail"]/small["add_output_tail"]:.2f}x (linear: near 1)')
    print(f'lookup vs a plain dict: {small["lookup"]/small["lookup_dict"]:.1f}x at {a.small:,}, {big["lookup"]/big["lookup_dict"]:.1f}x at {a.big:,}')
    print(f'insert in the middle of {a.big:,}: {big["build_middle"]/200*1e3:.3f} ms per insert (goal <= 1)')
    for k,n in (('small', a.small), ('big', a.big)):
        r = (small,big)[k=='big']
        print(f'building {n:,} vs a plain list of the same Messages: {r["build_append"]/r["plain_list"]:.2f}x (goal <= 2)')

if __name__=='__main__': main()

"""Time of `dlg2chat` on the benchmark dialog and on one ten times its size, as ratios against `write_ipynb` on the same dialogs.

    python bench/chat.py [--cells 5000] [--reps 9] [--gc]

Every wire format is timed: openai (Chat Completions), anthropic, responses (OpenAI Responses items) and gemini, with
`limits=False`: the benchmark dialogs hold 125 and 1,250 images, more than one Anthropic (100) or OpenAI (500) request takes.

Both dialogs come from `bench/mkdata.py` (5,000 cells, about 8.4 MB, and 50,000 cells), read with `reads_ipynb`.
The baseline, `write_ipynb` of the same dialog, is measured in the same run, interleaved with the others, through our own
writer alone, as the issue measured it: `dialog.nbjson.use_fast` (the `fast` extra's orjson and msgspec path), where it
exists, is set False while the baseline runs (`own_write`).
Each figure is the best of `--reps` runs of CPU time (`time.process_time`: the machine is shared, and another program's
load would count in wall time), interleaved in a shuffled order each round (in a fixed order, the first small job ran
right after a 10x one every round, and came out slower than the other formats), timed with the garbage collector off as
`timeit` does (`--gc` leaves it
on: its full collections walk every live object, so with the big dialog in memory they make every run superlinear,
`write_ipynb` included). Goals: dlg2chat / write_ipynb <= 1 on the same dialog, and dlg2chat's growth from 1x to 10x
within 1.2 times write_ipynb's own growth in the same run (so a machine's behaviour on big dialogs, which hits both, cancels
out; dlg2chat(10x) / dlg2chat(1x) <= 11, linear, is printed too). A last line checks the worst case for merging turns (a dialog of notes and
unanswered prompts, which Anthropic sends as one user turn) for linearity too, and another the worst case for reading
replies (tool-block and noise openings never closed, which a naive pattern search takes quadratic time over), and one the
cost of reasoning state: the benchmark dialog read back from its Anthropic history with a signed thinking block on every
assistant turn, so every turn is checked against its digests and sent as it came.
"""
import argparse, gc, random, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import mkdata
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog import nbjson
from dialog.chat import dlg2chat, chat2dlg, parse_reply
from dialog.core import Dialog, snote, sprompt

def unanswered(n):
    "A dialog of `n` notes and prompts with no replies: Anthropic merges it all into one user turn, the worst case for merging"
    d = Dialog('unanswered')
    for i in range(n): d.mk_message(mkdata.text(mkdata.random.Random(i), 200), msg_type=(snote, sprompt)[i%2], id=f'{i:08x}')
    return d

def hostile(n):
    "Replies of `n` openings never closed, one per kind: tool blocks (with a summary, with JSON, compact), token-usage blocks, think comments"
    o = "<details class='tool-usage-details'>"
    return [(o+'<summary>')*n, (o+'\n```json\n{')*n, '```json {.tool}\n{\n'*n, "<details class='token-usage-details'>x"*n, '<!-- think_start -->'*n]

fmts = ('openai', 'anthropic', 'responses', 'gemini')

def own_write(d):
    "`write_ipynb(d)` through our own writer alone: `dialog.nbjson.use_fast` off while it runs, when that switch exists"
    if getattr(nbjson, 'use_fast', None) is None: return write_ipynb(d)
    was,nbjson.use_fast = nbjson.use_fast,False
    try: return write_ipynb(d)
    finally: nbjson.use_fast = was

def thinking(d):
    "`d` read back from its Anthropic history with a signed thinking block opening every assistant turn: every turn a kept one"
    h = dlg2chat(d, 'anthropic', limits=False)
    for m in h:
        if m['role']=='assistant': m['content'] = [{'type': 'thinking', 'thinking': 'Hmm.', 'signature': 'EqQB'}] + ([{'type': 'text', 'text': m['content']}] if isinstance(m['content'], str) else m['content'])
    return chat2dlg(h, 'anthropic', system=d.system)

def timed(f, gc_on):
    "CPU seconds one run of `f` takes; the collector off while timing unless `gc_on` (as `timeit` does)"
    gc.collect()
    if not gc_on: gc.disable()
    try:
        t = time.process_time(); f(); return time.process_time()-t
    finally: gc.enable()

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--cells', type=int, default=5000)
    p.add_argument('--reps', type=int, default=9)
    p.add_argument('--gc', action='store_true', help='leave the garbage collector on while timing')
    a = p.parse_args()
    small, big = (reads_ipynb(mkdata.mk_text(n)) for n in (a.cells, a.cells*10))
    us, ub = unanswered(a.cells), unanswered(a.cells*10)
    runs = {(name, k): (lambda d=d, k=k: own_write(d) if k=='write_ipynb' else dlg2chat(d, k, limits=False))
            for name, d in (('1x', small), ('10x', big)) for k in (*fmts, 'write_ipynb')}
    runs |= {(name, 'unanswered'): (lambda d=d: dlg2chat(d, 'anthropic')) for name, d in (('1x', us), ('10x', ub))}
    runs |= {(name, 'reasoning'): (lambda d=d: dlg2chat(d, 'anthropic', limits=False)) for name, d in (('1x', thinking(small)), ('10x', thinking(big)))}
    runs |= {(name, 'hostile'): (lambda rs=hostile(n): [parse_reply(r) for r in rs]) for name, n in (('1x', a.cells//5), ('10x', a.cells*2))}
    times = {k: [] for k in runs}
    order, rnd = list(runs), random.Random(0)
    for _ in range(a.reps):  # interleaved, so a change in the machine's load hits every figure alike; shuffled, so no figure always follows the same job
        rnd.shuffle(order)
        for k in order: times[k].append(timed(runs[k], a.gc))
    res = {k: min(v) for k, v in times.items()}
    for name, d in (('1x', small), ('10x', big)):
        print(f'{name} ({len(d.messages)} cells), best of {a.reps}, gc {"on" if a.gc else "off"}: ' + ', '.join(f'{k} {res[name, k]*1000:.0f} ms' for k in (*fmts, 'write_ipynb')))
    for fmt in fmts:
        print(f'dlg2chat {fmt}: 10x / 1x = {res["10x", fmt]/res["1x", fmt]:.2f} (goal <= 11); '
              f'dlg2chat / write_ipynb = {res["1x", fmt]/res["1x", "write_ipynb"]:.2f} at 1x, {res["10x", fmt]/res["10x", "write_ipynb"]:.2f} at 10x (goal <= 1)')
    wg = res["10x", "write_ipynb"]/res["1x", "write_ipynb"]
    print(f'write_ipynb itself: 10x / 1x = {wg:.2f} (what this machine does to a linear job)')
    for fmt in fmts:
        g = res["10x", fmt]/res["1x", fmt]/wg
        miss = [w for w, bad in (('growth', g > 1.2), ('dlg2chat > write_ipynb at 1x', res["1x", fmt] > res["1x", "write_ipynb"])) if bad]
        print(f'dlg2chat {fmt} growth / write_ipynb growth = {g:.2f} (goal <= 1.2): {"MISSED: " + ", ".join(miss) if miss else "ok"}')
    print(f'unanswered notes and prompts, anthropic (one merged user turn): 10x / 1x = {res["10x", "unanswered"]/res["1x", "unanswered"]:.2f} '
          f'({res["1x", "unanswered"]*1000:.0f} ms, {res["10x", "unanswered"]*1000:.0f} ms)')
    print(f'reasoning state (every anthropic turn kept, checked and sent as it came): 10x / 1x = {res["10x", "reasoning"]/res["1x", "reasoning"]:.2f} '
          f'({res["1x", "reasoning"]*1000:.0f} ms, {res["10x", "reasoning"]*1000:.0f} ms; plain anthropic {res["1x", "anthropic"]*1000:.0f} ms at 1x)')
    print(f'hostile replies (openings never closed), parse_reply: 10x / 1x = {res["10x", "hostile"]/res["1x", "hostile"]:.2f} (goal <= 11; '
          f'{res["1x", "hostile"]*1000:.1f} ms, {res["10x", "hostile"]*1000:.1f} ms)')

if __name__=='__main__': main()

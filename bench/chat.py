"""Time of `dlg2chat` on the benchmark dialog and on one ten times its size, as ratios against `write_ipynb` on the same dialogs.

    python bench/chat.py [--cells 5000] [--reps 5]

Both dialogs come from `bench/mkdata.py` (5,000 cells, about 8.4 MB, and 50,000 cells), read with `reads_ipynb`.
The baseline, `write_ipynb` of the same dialog, is measured in the same run, interleaved with the others.
Each figure is the best of `--reps` runs. Goals: dlg2chat(10x) / dlg2chat(1x) <= 11 (linear), and
dlg2chat / write_ipynb <= 1 on the same dialog.
"""
import argparse, gc, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import mkdata
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import dlg2chat

def best(f, reps):
    ts = []
    for _ in range(reps):
        gc.collect()
        t = time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return min(ts)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--cells', type=int, default=5000)
    p.add_argument('--reps', type=int, default=5)
    a = p.parse_args()
    small, big = (reads_ipynb(mkdata.mk_text(n)) for n in (a.cells, a.cells*10))
    res = {}
    for name, d in (('1x', small), ('10x', big)):
        for fmt in ('openai', 'anthropic'):
            for m in d.messages: m._ai_rend = None  # no render cached from an earlier run
            res[name, fmt] = best(lambda: dlg2chat(d, fmt), a.reps)
        res[name, 'write_ipynb'] = best(lambda: write_ipynb(d), a.reps)
    for name, d in (('1x', small), ('10x', big)):
        print(f'{name} ({len(d.messages)} cells), best of {a.reps}: ' + ', '.join(f'{k} {res[name, k]*1000:.0f} ms' for k in ('openai', 'anthropic', 'write_ipynb')))
    for fmt in ('openai', 'anthropic'):
        print(f'dlg2chat {fmt}: 10x / 1x = {res["10x", fmt]/res["1x", fmt]:.2f} (goal <= 11); '
              f'dlg2chat / write_ipynb = {res["1x", fmt]/res["1x", "write_ipynb"]:.2f} at 1x, {res["10x", fmt]/res["10x", "write_ipynb"]:.2f} at 10x (goal <= 1)')

if __name__=='__main__': main()

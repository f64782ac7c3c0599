"""Peak memory of `nbdialog summary`, `view --out` and `find` on an output-heavy dialog, against aidialog's same commands, measured in the same run.

    python bench/cli_memory.py [--msgs 600] [--reps 3]

Each command runs in a fresh process with its output sent to /dev/null; its peak resident set comes from the kernel
(`ru_maxrss` of its children, seen by a small launcher process), so interpreter start-up and imports count for both sides, as a user sees them. Two dialogs
(written to `bench/data/`, which git ignores): `--msgs` code messages each holding a 40 kB stream output of 900 lines
and a 20 kB PNG, and a tenth as many each holding a 200 kB line and a 600 kB PNG (long strings: the shape where an
extra copy of the file, once kept alive while parsing, showed most). Goal: every ratio ≤ 1.0.
aidialog (0.0.39, a peer we measure against) is only called through its console scripts, never read.
"""
import argparse, base64, json, os, random, shutil, statistics, subprocess, sys
from pathlib import Path

def mk_lines(n):
    "`n` code messages, each holding a 40 kB stream output of 900 lines and a 20 kB PNG"
    rnd = random.Random(18)
    png = base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(15_000))).decode()
    cells = []
    for i in range(n):
        txt = ''.join(f'step {i}.{j}: loss={rnd.random():.6f} acc={rnd.random():.6f}\n' for j in range(900))
        cells.append(dict(cell_type='code', id=f'c{i:07d}', metadata={}, execution_count=i+1, source=[f'train(epoch={i})\n', 'plot()'],
                          outputs=[dict(output_type='stream', name='stdout', text=txt.splitlines(keepends=True)),
                                   dict(output_type='display_data', metadata={}, data={'image/png': png, 'text/plain': ['<Figure>']})]))
    return cells

def mk_big(n):
    "`n` code messages, each holding one 200 kB line of output and a 600 kB PNG (long strings: a copy of the file shows most here)"
    rnd = random.Random(18)
    png = base64.b64encode(bytes(rnd.getrandbits(8) for _ in range(450_000))).decode()
    return [dict(cell_type='code', id=f'c{i:07d}', metadata={}, execution_count=i+1, source=[f'train(epoch={i})\n', 'plot()'],
                 outputs=[dict(output_type='stream', name='stdout', text='x'*200_000 + '\n'),
                          dict(output_type='display_data', metadata={}, data={'image/png': png, 'text/plain': ['<Figure>']})]) for i in range(n)]

def mk_dialog(fname, cells):
    "Write a notebook of `cells` at `fname`, laid out as Jupyter writes it"
    nb = dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=5)
    Path(fname).write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False)+'\n', encoding='utf-8')

_launch = ("import resource, subprocess, sys\n"
           "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
           "if r.returncode not in (0, 1): sys.exit(r.stderr.decode()[-500:])\n"
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss*1024)")

def peak(args):
    "Peak RSS in bytes of a process running `args`, its output discarded"
    # started from a small launcher: a forked child's peak counts what its parent held at the fork, and this process holds more
    return int(subprocess.run([sys.executable, '-c', _launch] + [str(a) for a in args], capture_output=True, text=True, check=True).stdout)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--msgs', type=int, default=600)
    p.add_argument('--reps', type=int, default=3)
    a = p.parse_args()
    ours = [sys.executable, '-m', 'dialog.cli']
    exe = lambda n: [shutil.which(n) or sys.exit(f'{n} not found: pip install aidialog==0.0.39')]
    worst = 0
    for shape,mk,n in (('many lines', mk_lines, a.msgs), ('big outputs', mk_big, a.msgs//10)):
        f = Path(__file__).parent/'data'/f'cli_{mk.__name__}_{n}.ipynb'
        if not f.exists():
            f.parent.mkdir(parents=True, exist_ok=True); mk_dialog(f, mk(n))
        cases = [('summary', ours+['summary', f], exe('aidialog-summary')+[f]),
                 ('view --out', ours+['view', f, '--out'], exe('aidialog-view')+[f, '--out']),
                 ('find', ours+['find', f, 'epoch=1'], exe('aidialog-find')+[f, 'epoch=1'])]
        print(f'{shape}: {f.name}, {f.stat().st_size/1e6:.1f} MB, {n} code messages; median peak RSS of {a.reps} processes each')
        for name,o,t in cases:
            mo,mt = [statistics.median(peak(c) for _ in range(a.reps)) for c in (o, t)]
            worst = max(worst, mo/mt)
            print(f'  {name:11s} nbdialog {mo/1e6:6.1f} MB  aidialog {mt/1e6:6.1f} MB  ratio {mo/mt:.2f}x')
    print(f'worst ratio {worst:.2f}x (goal ≤ 1.00x)')

if __name__=='__main__': main()

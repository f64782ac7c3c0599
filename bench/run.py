"""`nbdialog run FILE` against `jupyter execute --inplace FILE` (nbclient) on the same notebooks, measured in the same run.

    python bench/run.py [--quick] [--reps 3] [--timeout 300]

Each notebook (nbformat 4.5, with cell ids) is built in a temporary folder and written fresh before every command; both
commands write the outputs into the file (`jupyter execute` only with `--inplace`; it is called as `jupyter-execute`, the
program `jupyter execute` hands over to, to skip the dispatcher's extra interpreter start). The two run alternately,
`--reps` times each (1 with `--quick`), and the best wall time counts (`time.perf_counter` around the process: interpreter
start, imports and kernel start are included for both). A command that outlives `--timeout` seconds is interrupted as Ctrl-C
would (then killed if it hangs on), reported as timed out, and not run again. Cases and goals (from the issue):
  1 trivial     1,000 code cells (`x = i`, `print(i)`, `i*2`): ours <= 1.3x jupyter's
  2 plots       an import cell with `%matplotlib inline`, then 40 cells each drawing a small line and scatter plot (one
                image/png display each): ours <= 1.3x
  3 long lines  a 1 MB line, a 250 kB line, and 1 MB printed in 10-character pieces with no newline: each in one cell between
                two cells that time it in the kernel (kernel start is left out; recording its outputs and, for ours, saving them
                count): that cell <= 2 s in ours, for every line. The whole command's time is shown too
  4 50k dialog  50,000 cells: 48,000 notes of about 300 characters and 2,000 trivial code cells spread through them. Ours runs
                in a child process as the library is used, `read_ipynb(path).execute(save=True)`: the time its saves take (`RunReport.save_time`) is
                < 10% of the `execute` call's (kernel start included). On a timeout the child is interrupted, so the share is
                that of the messages run by then. The ratio is of the child's wall time against jupyter's whole command
"""
import argparse, json, os, random, signal, subprocess, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import nbclient, nbformat
from mkdata import text

def code(i, src): return dict(cell_type='code', id=f'c{i:07d}', metadata={}, source=src, outputs=[], execution_count=None)
def note(i, src): return dict(cell_type='markdown', id=f'c{i:07d}', metadata={}, source=src)

def nb_text(cells):
    "Notebook text of `cells`, laid out as Jupyter writes it, checked by nbformat"
    meta = dict(kernelspec=dict(display_name='Python 3', language='python', name='python3'), language_info=dict(name='python'))
    txt = json.dumps(dict(cells=cells, metadata=meta, nbformat=4, nbformat_minor=5), indent=1, ensure_ascii=False)+'\n'
    nbformat.validate(nbformat.reads(txt, as_version=4))
    return txt

def trivial(): return [code(i, ('x = {i}', 'print({i})', '{i}*2')[i%3].format(i=i)) for i in range(1000)]
def plots():
    head = code(0, '%matplotlib inline\nimport matplotlib.pyplot as plt, numpy as np\nrng = np.random.default_rng(0)')
    return [head] + [code(i, f'fig, ax = plt.subplots(figsize=(4, 3))\nx = np.linspace(0, 10, 200)\nax.plot(x, np.sin(x+{i}))\n'
                             f'ax.scatter(x[::10], rng.random(20))\nplt.show()') for i in range(1, 41)]
def timed(src): return [code(0, 'import time; _t0 = time.perf_counter()'), code(1, src), code(2, "print(f'cell time {time.perf_counter()-_t0:.3f}')")]
def big():
    rng = random.Random(0)
    return [code(i, f'x_{i} = {i}' + f'\nprint(x_{i})'*(i%2)) if i%25==12 else note(i, text(rng, 300)) for i in range(50_000)]

CASES = [('1,000 trivial', trivial), ('40 plots', plots), ('1 MB line', lambda: timed("print('x'*1_000_000)")),
         ('250 kB line', lambda: timed("print('x'*250_000)")),
         ('1 MB in pieces', lambda: timed("for i in range(100_000): print('xxxxxxxxxx', end='')")), ('50k dialog', big)]

CHILD = '''import json, sys, time
from dialog.core import *; from dialog.ipynb import read_ipynb; import dialog.run
dlg = read_ipynb(sys.argv[1])
t = time.perf_counter()
rep = dlg.execute(save=True)
print(json.dumps(dict(run=time.perf_counter()-t, save=rep.save_time, saves=rep.saves, ran=len(rep), stopped=rep.stopped)))'''

def stop(p):
    "Interrupt `p` as Ctrl-C would, so that it shuts its kernel down and reports; kill it and its children if it hangs on"
    p.send_signal(signal.SIGINT)
    try: return p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        kids = [int(k) for f in Path(f'/proc/{p.pid}/task').glob('*/children') for k in f.read_text().split()]
        for pid in kids + [p.pid]:
            try: os.kill(pid, signal.SIGKILL)
            except ProcessLookupError: pass
        return p.communicate()

def outcome(f):
    "How many code cells of file `f` have an execution count, and the time its timing cell printed (None if none)"
    try: cells = [c for c in json.loads(Path(f).read_text(encoding='utf-8'))['cells'] if c['cell_type']=='code']
    except (OSError, ValueError): return 0, None
    ts = [float(''.join(o['text']).split()[-1]) for c in cells for o in c['outputs'] if ''.join(o.get('text', '')).startswith('cell time')]
    return sum(c['execution_count'] is not None for c in cells), (ts[0] if ts else None)

def run1(args, f, timeout):
    "Run `args` on file `f`: its wall time (None if timed out or failed), its outcome on `f`, its stdout, and a note"
    t = time.perf_counter()
    p = subprocess.Popen([str(o) for o in args] + [str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try: out,err = p.communicate(timeout=timeout); dt = time.perf_counter()-t
    except subprocess.TimeoutExpired: (out,err),dt = stop(p),None
    note = 'timed out' if dt is None else f'failed (exit {p.returncode}): {err.strip()[-200:]}' if p.returncode else ''
    return dict(wall=None if note else dt, out=out, note=note) | dict(zip(('ran', 'cell'), outcome(f)))

def measure(txt, f, tools, reps, timeout):
    "The best run of each of `tools` (name: args) on fresh copies of notebook text `txt` at `f`, alternating"
    best = {k: None for k in tools}
    for r in range(reps):
        for k in (list(tools) if r%2==0 else list(tools)[::-1]):
            if best[k] is not None and best[k]['wall'] is None: continue # timed out or failed: not run again
            f.write_text(txt, encoding='utf-8')
            res = run1(tools[k], f, timeout)
            if best[k] is None or res['wall'] is not None and res['wall']<best[k]['wall']: best[k] = res
    return best

def fmt(s): return 'timed out' if s is None else f'{s:.2f} s'

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--quick', action='store_true', help='one run of each command rather than --reps')
    p.add_argument('--reps', type=int, default=3)
    p.add_argument('--timeout', type=float, default=300, help='seconds a command may run before it is interrupted')
    a = p.parse_args()
    reps = 1 if a.quick else a.reps
    bindir = Path(sys.executable).parent
    ours,jup = [bindir/'nbdialog', 'run'],[bindir/'jupyter-execute', '--inplace']
    print(f'Python {sys.version.split()[0]}, nbclient {nbclient.__version__}, nbformat {nbformat.__version__}; {os.cpu_count()} cores, '
          f'load {os.getloadavg()[0]:.1f}; best of {reps}, timeout {a.timeout:g} s, kernel start included')
    print(f'ours: {" ".join(map(str, ours))} FILE   jupyter: {" ".join(map(str, jup))} FILE   50k: {sys.executable} -c CHILD FILE')
    print(f'{"case":15s} {"code":>5s} {"nbdialog run":>12s} {"jupyter":>10s} {"ratio":>7s}   cell time ours / jupyter')
    lib = lambda: {f: f.stat().st_mtime for f in (Path(__file__).parent.parent/'dialog').glob('*.py')}
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name,mk in CASES:
            cells,lib0 = mk(),lib()
            ncode = sum(c['cell_type']=='code' for c in cells)
            tools = dict(ours=[sys.executable, '-c', CHILD] if name=='50k dialog' else ours, jupyter=jup)
            r = res[name] = measure(nb_text(cells), Path(tmp)/'nb.ipynb', tools, reps, a.timeout)
            o,j = r['ours'],r['jupyter']
            ratio = f"{o['wall']/j['wall']:.2f}x" if o['wall'] and j['wall'] else f">{a.timeout/j['wall']:.1f}x" if j['wall'] and o['note']=='timed out' else '-'
            cell = f"{fmt(o['cell'])} / {fmt(j['cell'])}" if name.endswith(('line', 'pieces')) else ''
            print(f"{name:15s} {ncode:5d} {fmt(o['wall']):>12s} {fmt(j['wall']):>10s} {ratio:>7s}   {cell}", flush=True)
            for k,v in r.items():
                if v['note'] or v['ran']<ncode: print(f"  {k}: {v['note']+'; ' if v['note'] else ''}{v['ran']} of {ncode} code cells ran")
            if lib()!=lib0: print('  note: files in dialog/ changed while this case ran: its runs may have measured different code')
    say = lambda ok: 'met' if ok else 'NOT met'
    for g,n in ((1, '1,000 trivial'), (2, '40 plots')):
        o,j = res[n]['ours']['wall'],res[n]['jupyter']['wall']
        print(f"goal {g} ({n}: ours <= 1.3x jupyter execute): {say(o and j and o/j<=1.3)} ({f'{o/j:.2f}x' if o and j else 'no ratio'})")
    ts = [res[n]['ours']['cell'] for n in ('1 MB line', '250 kB line', '1 MB in pieces')]
    print(f"goal 3 (long lines: the cell <= 2 s in ours): {say(None not in ts and max(ts)<=2)} (slowest: {fmt(None if None in ts else max(ts))})")
    try: c = json.loads(res['50k dialog']['ours']['out'].strip().splitlines()[-1])
    except (ValueError, IndexError): return print('goal 4 (50k dialog: saving < 10% of the run): NOT met (the child reported nothing)')
    print(f"goal 4 (50k dialog: saving < 10% of the run): {say(c['save']<0.1*c['run'])} (saving {c['save']:.1f} s of {c['run']:.1f} s, "
          f"{c['save']/c['run']:.1%}, in {c['saves']} save{'s'*(c['saves']!=1)}; {c['ran']} code messages ran" + (f", stopped: {c['stopped']}" if c['stopped'] else '')
          + ')')

if __name__=='__main__': main()

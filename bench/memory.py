"""Peak memory of one round trip of the benchmark dialog, each in a fresh process, as ratios against the baseline.

    python bench/memory.py [--file bench/data/bench.ipynb] [--reps 3]

Each run is a new Python process that imports what it needs and reads the file's text, then does one round trip
(baseline: `json.loads` + `json.dumps(indent=1, sort_keys=True, ensure_ascii=False)`; dialog: `reads_ipynb` +
`write_ipynb`; nbformat: `reads` + `writes`; aidialog: its `reads_ipynb` + `write_ipynb`). Two measures of the round trip's peak, above what the process held
before it: the resident set (peak `ru_maxrss` minus the RSS just before), and the Python heap (`tracemalloc`'s peak,
in a separate process since tracing slows things down). Each figure is the median of `--reps` processes.
"""
import argparse, importlib.util, json, os, resource, statistics, subprocess, sys
from pathlib import Path

def rss():
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')

def child(kind, fname, traced):
    if kind=='dialog': from dialog.ipynb import reads_ipynb, write_ipynb; f = lambda t: write_ipynb(reads_ipynb(t))
    elif kind=='nbformat': import nbformat; f = lambda t: nbformat.writes(nbformat.reads(t, as_version=nbformat.NO_CONVERT))
    elif kind=='aidialog': from aidialog import ipynb; f = lambda t: ipynb.write_ipynb(ipynb.reads_ipynb(t))
    else: f = lambda t: json.dumps(json.loads(t), indent=1, sort_keys=True, ensure_ascii=False)+'\n'
    txt = Path(fname).read_text(encoding='utf-8')
    if traced:
        import tracemalloc
        tracemalloc.start(); base = tracemalloc.get_traced_memory()[0]
        out = f(txt)
        print(tracemalloc.get_traced_memory()[1]-base)
    else:
        before = rss()
        out = f(txt)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss*1024 - before)
    assert len(out)

def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--file', default=str(Path(__file__).parent/'data'/'bench.ipynb'))
    p.add_argument('--reps', type=int, default=3)
    p.add_argument('--child', help=argparse.SUPPRESS)
    p.add_argument('--traced', action='store_true', help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child: return child(a.child, a.file, a.traced)
    if not Path(a.file).exists():
        sys.path.insert(0, str(Path(__file__).parent)); import mkdata
        Path(a.file).parent.mkdir(parents=True, exist_ok=True); Path(a.file).write_text(mkdata.mk_text(), encoding='utf-8')
    kinds = ['baseline', 'dialog']
    kinds += [k for k in ('nbformat', 'aidialog') if importlib.util.find_spec(k)]  # the peers, when installed
    res = {}
    for traced in (False, True):
        for k in kinds:
            print(f"measuring {k}, {'Python heap (tracemalloc)' if traced else 'peak RSS'}: {a.reps} processes…", file=sys.stderr, flush=True)
            runs = [int(subprocess.run([sys.executable, __file__, '--file', a.file, '--child', k] + (['--traced'] if traced else []),
                                       capture_output=True, text=True, check=True).stdout) for _ in range(a.reps)]
            res[k, traced] = statistics.median(runs)
    for traced,label in ((False, 'peak RSS'), (True, 'peak Python heap (tracemalloc)')):
        print(f'{label}: ' + ', '.join(f'{k} {res[k, traced]/1e6:.1f} MB' for k in kinds))
        for k in kinds[1:]: print(f'  {k} / baseline: {res[k, traced]/res["baseline", traced]:.2f}x')

if __name__=='__main__': main()

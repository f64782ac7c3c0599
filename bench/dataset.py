"""Collections of dialogs: reading a folder serially, in 2 processes, and from Parquet; Parquet's size; JSON Lines' memory.

Generates N dialogs of 50 messages (notes, some with an image attachment; code with stream, result, error and image
outputs; prompts with replies, some skipped or pinned; raw), written canonically, into a folder under /tmp (kept between
runs). Then, gc off while timing:
  serial      a `read_ipynb` loop over the files (the baseline)
  workers=2   `read_dialogs(folder, workers=2)`: this process and one other read
              (both run --reps times, alternating, each in a fresh process with the clock around the reading alone, the dialogs kept
              until it stops, since freeing them is no part of reading; the best of each counts, as timeit takes the best).
              A fresh process is how a program reads a folder, and it treats both sides alike: in a process that already
              freed much memory, the serial loop would reuse it while a fork shares it with the other process, which then
              pays to copy each page this one writes
  packing     what the other process pays per dialog (reading it as plain data with `read_ipynb_parts`, `_pack`, and writing the
              chunk's result file, where `pmap` puts them: `_result_dirs`) and what taking it costs here (`_result_back`: the file read back, the messages built, the
              dialogs kept), against reading it here (measured here, on 1,000 dialogs, in chunks of 16 as `pmap` sends them),
              and the floor they set on 2 idle cores
  parquet     `read_parquet` of the same collection (the table; pyarrow reads with its threads), and `read_parquet` +
              `table2dlgs` (the dialogs back). The Parquet file is kept between runs, named by the table's schema version
              and a digest of a few dialogs' rows (what the current code writes); and the floor the split of `table2dlgs` between 2 processes sets,
              from what converting a dialog costs here, in the other process (and packing it) and taking it here, as for workers=2
  tables      `dlgs2table(folder, workers=0)` (baseline) vs `workers=2`: the parallel path whose results cross as Arrow,
              each once, in fresh processes too
and prints the Parquet file's size against the folder's, and the peak memory (RSS, in a fresh process each) of
`paths2jsonl(folder, workers=0)`, `write_parquet(folder, workers=0)`, `write_parquet` with the default workers (as
`nbdialog export`) and `folder_stats` (as `nbdialog stats`) over a folder of 1,000 and the folder of N dialogs, named as a
folder as a user names it (the 1,000 are hard links to the first files; `--mem-only` stops there).
  table2dlgs  `table2dlgs(read_parquet(...))` in a fresh process, the dialogs kept until the clock stops, as the serial loop keeps them;
              then with `read_parquet(..., columns=dlg_cols)`, the columns `table2dlgs` reads
  ray         `ray_read(folder).materialize()` on a local Ray of 2 CPUs, its start-up (and a first small read that starts the
              workers) reported apart; against the serial loop and against `dlgs2table(workers=0)`, which makes the same rows;
              with the CPU Ray's workers, Ray Data's own actors (`_StatsActor`, the autoscaling coordinator: busy on the same 2
              cores), Ray's other processes (raylet, GCS, ...) and this one used (read from /proc), which a
              loaded machine doesn't inflate as it does the wall time

Goals (2 cores): workers=2 <= 0.6x serial; read_parquet <= 0.2x serial; table2dlgs(read_parquet) <= 0.5x serial; ray_read <= 1.5x serial;
peak memory N/1k <= 1.2 for JSON Lines, export and stats.

    python bench/dataset.py [--n 10000] [--mem-n 50000] [--reps 3] [--mem-only] [--data /tmp/nbdialog-bench-dataset] [--compare OTHER_CHECKOUT]
"""
import argparse, base64, gc, json, os, random, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path

WORDS = 'the of and to in is that for it as with was on be by this are from at or an have not which but can all they'.split()

def _text(rng, n):
    "About `n` characters of prose in lines of up to 72"
    res,line = [],''
    while sum(map(len, res)) + len(line) < n:
        w = rng.choice(WORDS)
        if len(line)+len(w) > 72: res.append(line+'\n'); line = ''
        line += w+' '
    return ''.join(res)+line.rstrip()

def mk_nb(seed, nmsgs=50):
    "A notebook dict of `nmsgs` cells of every kind, from `seed`"
    rng = random.Random(seed)
    png = base64.b64encode(rng.randbytes(1500)).decode()
    cells = []
    for i in range(nmsgs):
        cid,kind = f'{seed:06x}{i:02x}',rng.choice(('note', 'code', 'code', 'prompt', 'prompt', 'raw'))
        if kind=='note':
            c = dict(cell_type='markdown', id=cid, metadata={}, source=_text(rng, 200))
            if rng.random()<0.1: c['attachments'],c['source'] = {'fig.png': {'image/png': png}},c['source']+'\n![fig](attachment:fig.png)'
        elif kind=='code':
            outs = [dict(output_type='stream', name='stdout', text=_text(rng, 150)+'\n')]
            r = rng.random()
            if r<0.1: outs.append(dict(output_type='error', ename='ValueError', evalue='bad value', traceback=['Traceback', 'ValueError: bad value']))
            elif r<0.2: outs.append(dict(output_type='display_data', metadata={}, data={'image/png': png, 'text/plain': '<Figure>'}))
            else: outs.append(dict(output_type='execute_result', execution_count=i, metadata={}, data={'text/plain': _text(rng, 80)}))
            src = ('#| export\n' if rng.random()<0.1 else '') + f'x_{i} = {i}\nprint(x_{i})'
            c = dict(cell_type='code', id=cid, metadata={}, source=src, outputs=outs, execution_count=i)
        elif kind=='prompt':
            meta = {'solveit_ai': True} | ({'skipped': True} if rng.random()<0.1 else {}) | ({'pinned': True} if rng.random()<0.1 else {})
            reply = dict(output_type='display_data', metadata={'is_ai_res': True}, data={'text/markdown': _text(rng, 600)})
            c = dict(cell_type='code', id=cid, metadata=meta, source='%%prompt\n'+_text(rng, 120), outputs=[reply], execution_count=None)
        else: c = dict(cell_type='raw', id=cid, metadata={}, source=_text(rng, 60))
        cells.append(c)
    meta = dict(kernelspec=dict(display_name='python3', language='python', name='python3'), solveit=dict(mode='learning', ver=2))
    return dict(cells=cells, metadata=meta, nbformat=4, nbformat_minor=5)

def mk_folder(folder, n, nmsgs=50, start=0):
    "Write dialogs `start`..`n-1` as canonical files `d{i:06}.ipynb` in `folder` (those already there are kept); returns the folder"
    from dialog.ipynb import reads_ipynb, write_ipynb
    folder = Path(folder); folder.mkdir(parents=True, exist_ok=True)
    for i in range(start, n):
        p = folder/f'd{i:06}.ipynb'
        if not p.exists(): p.write_text(write_ipynb(reads_ipynb(json.dumps(mk_nb(i, nmsgs)))), encoding='utf-8')
    return folder

def _cpu():
    "CPU seconds used so far by this process, and by its finished children"
    s,c = resource.getrusage(resource.RUSAGE_SELF),resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime+s.ru_stime, c.ru_utime+c.ru_stime

cpu = {} # CPU seconds of the last `timed` call: (this process, its children)

def timed(f, reps=1):
    "Best wall time of `reps` calls of `f`, gc off; `cpu` keeps the CPU seconds of the last call"
    best = None
    for _ in range(reps):
        gc.collect(); gc.disable()
        try:
            s0,c0 = _cpu(); t = time.perf_counter(); f(); t = time.perf_counter()-t; s1,c1 = _cpu()
            cpu.update(me=s1-s0, kids=c1-c0)
        finally: gc.enable()
        best = t if best is None else min(best, t)
    return best

_mem_script = '''
import sys, tempfile, os
from dialog.dataset import paths2jsonl, write_parquet, folder_stats
paths = sys.argv[1]  # a folder, as a user names it
with tempfile.TemporaryDirectory() as td:
    if sys.argv[3]=='jsonl': paths2jsonl(paths, os.path.join(td, 'x.jsonl'), workers=0, progress=False)
    elif sys.argv[3]=='parquet': write_parquet(paths, os.path.join(td, 'x.parquet'), workers=0, progress=False)
    elif sys.argv[3]=='export': write_parquet(paths, os.path.join(td, 'x.parquet'), progress=False) # default workers: every core
    else: folder_stats(paths)
print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))  # this process's peak (ru_maxrss would include the parent's, kept across exec)
'''

def first_n(folder, n):
    "A folder of the first `n` dialogs of `folder` (hard links to them, made once), or `folder` itself when it holds no more"
    fs = sorted(Path(folder).glob('*.ipynb'))
    if n >= len(fs): return Path(folder)
    sub = Path(folder).parent/f'first{n}'
    sub.mkdir(exist_ok=True)
    for f in fs[:n]:
        if not (sub/f.name).exists():
            try: os.link(f, sub/f.name)
            except OSError: (sub/f.name).write_bytes(f.read_bytes())
    return sub

def peak_kb(folder, n, what='jsonl'):
    "Peak RSS (KB) of a fresh process running `paths2jsonl` (`what='jsonl'`), `write_parquet` ('parquet'; 'export': with the default workers, as `nbdialog export` runs it) or `folder_stats` ('stats', as `nbdialog stats`) over a folder of the first `n` dialogs of `folder`"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent))
    return int(subprocess.run([sys.executable, '-c', _mem_script, str(first_n(folder, n)), str(n), what], capture_output=True, text=True, check=True, env=env).stdout.split()[-1])

_read_script = '''
import gc, resource, sys, time
from dialog.ipynb import read_ipynb
from dialog.dataset import read_dialogs, dlg_paths, dlgs2table, table2dlgs, read_parquet, dlg_cols
paths = dlg_paths(sys.argv[1])[:int(sys.argv[2])]
def cpu():
    s,c = resource.getrusage(resource.RUSAGE_SELF),resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime+s.ru_stime, c.ru_utime+c.ru_stime
f = dict(serial=lambda: [read_ipynb(p) for p in paths], tables0=lambda: dlgs2table(paths, workers=0, progress=False),
         tables2=lambda: dlgs2table(paths, workers=2, progress=False)).get(sys.argv[3], lambda: read_dialogs(paths, workers=2, progress=False))
if sys.argv[3].endswith('.parquet'):
    import pyarrow, pyarrow.compute, pyarrow.dataset, pyarrow.parquet  # imported before the clock, as `dialog` is for the others: the figure is the reading
    # 'lean=FILE': only the columns table2dlgs reads (`dlg_cols`)
    pq,cols = (sys.argv[3][5:], dlg_cols) if sys.argv[3].startswith('lean=') else (sys.argv[3], None)
    f = lambda: table2dlgs(read_parquet(pq, columns=cols))
gc.collect(); gc.disable()
(s0,c0),t = cpu(),time.perf_counter()
res = f()  # kept until the clock stops: freeing the dialogs afterwards is no part of reading them
t = time.perf_counter()-t; s1,c1 = cpu()
assert len(res)==len(paths) or res.num_rows==50*len(paths)
print(t, s1-s0, c1-c0)
'''

def read_time(folder, n, how, root=None):
    "Wall seconds, and CPU seconds of the process and of its children, of a fresh process reading the first `n` dialogs of `folder` (`how`: 'serial', 'workers=2', or 'tables0'/'tables2' for `dlgs2table`), the clock around the reading alone; `root`: the checkout whose `dialog` to use (default: this one)"
    env = dict(os.environ, PYTHONPATH=str(root or Path(__file__).parent.parent))
    return tuple(map(float, subprocess.run([sys.executable, '-c', _read_script, str(folder), str(n), how], capture_output=True, text=True, check=True, env=env, cwd=tempfile.gettempdir()).stdout.split()))

def _kids_cpu():
    "CPU seconds used so far by each of this process's descendants that are running (Ray's processes): `{pid: (seconds, kind)}`"
    # kind: 'workers' (`ray::` workers), 'actors' (Ray Data's own: `ray::_StatsActor`, ...) or 'ray' (the rest);
    # read from /proc: a running process's own CPU, which `getrusage` counts only once it has ended and been waited for
    tick,kids = os.sysconf('SC_CLK_TCK'),{}
    stats = {}
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try: st = Path(f'/proc/{d}/stat').read_text(); cmd = Path(f'/proc/{d}/cmdline').read_bytes()
        except OSError: continue
        f = st.rsplit(')', 1)[1].split()  # after the name, which may hold spaces
        # a worker runs our tasks (`ray::MapBatches(...)`, `ray::IDLE` between them); Ray Data's actors are named `ray::_...`
        stats[int(d)] = (int(f[1]), (int(f[11])+int(f[12]))/tick, 'actors' if cmd.startswith(b'ray::_') else 'workers' if cmd.startswith(b'ray::') else 'ray')
    todo = [os.getpid()]
    while todo:
        p = todo.pop()
        for q,(pp,c,w) in stats.items():
            if pp==p and q not in kids: kids[q] = (c, w); todo.append(q)
    return kids

def _cpu_since(k0, k1):
    "CPU seconds Ray's processes used between `_kids_cpu` snapshots `k0` and `k1`, by kind (each process's as it is named at `k1`)"
    # (a process that began as a worker may have become an actor since)
    res = {'workers': 0.0, 'actors': 0.0, 'ray': 0.0}
    for q,(c,w) in k1.items(): res[w] += c - k0.get(q, (0.0, w))[0]
    return res

def folder_bytes(folder): return sum(p.stat().st_size for p in Path(folder).glob('*.ipynb'))

if __name__=='__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--n', type=int, default=10_000, help='dialogs the speed figures read')
    p.add_argument('--mem-n', type=int, help='dialogs the memory figures reach (against 1,000); default --n')
    p.add_argument('--data', default='/tmp/nbdialog-bench-dataset')
    p.add_argument('--reps', type=int, default=3, help='runs of the serial loop and of workers=2, alternating in fresh processes; the best of each counts')
    p.add_argument('--mem-only', action='store_true', help='stop after the peak memory figures')
    p.add_argument('--compare', help="another checkout's root (e.g. a git worktree of an older commit): its read_dialogs(workers=2) runs too, alternating with this one's")
    a = p.parse_args()
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from dialog.ipynb import read_ipynb
    from dialog.dataset import read_dialogs, dlgs2table, write_parquet, read_parquet, table2dlgs, dlg_paths
    from dialog.pool import _result_file, _result_back
    try: from dialog.pool import _result_dirs  # where `pmap` puts result files
    except ImportError: _result_dirs = lambda: (tempfile.mkdtemp(prefix='nbdialog-'),)  # an older checkout's place
    from dialog.dataset import _read_chunk
    from functools import partial
    folder = Path(a.data)/'dlgs'
    mem_n = a.mem_n or a.n
    t = time.perf_counter(); mk_folder(folder, max(a.n, mem_n)); print(f'data: {max(a.n, mem_n)} dialogs of 50 messages in {folder} ({time.perf_counter()-t:.0f} s to make)', flush=True)
    paths = dlg_paths(folder)[:a.n]
    small,big = min(1000, mem_n),mem_n
    m1,m2 = peak_kb(folder, small),peak_kb(folder, big)  # first, in fresh processes, before this one holds any dialogs
    print(f'paths2jsonl(workers=0) peak RSS: {small} dialogs {m1/1e3:.0f} MB (baseline), {big} dialogs {m2/1e3:.0f} MB = {m2/m1:.2f}x (goal <= 1.2)', flush=True)
    q1,q2 = peak_kb(folder, small, 'parquet'),peak_kb(folder, big, 'parquet')
    print(f'write_parquet(workers=0) peak RSS: {small} dialogs {q1/1e3:.0f} MB (baseline), {big} dialogs {q2/1e3:.0f} MB = {q2/q1:.2f}x (workers=0: the file is written chunk by chunk)', flush=True)
    for what,name in (('export', 'write_parquet(default workers), as nbdialog export'), ('stats', 'folder_stats, as nbdialog stats')):
        e1,e2 = peak_kb(folder, small, what),peak_kb(folder, big, what)
        print(f'{name} peak RSS of this process: {small} dialogs {e1/1e3:.0f} MB (baseline), {big} dialogs {e2/1e3:.0f} MB = {e2/e1:.2f}x (goal <= 1.2)', flush=True)
    if a.mem_only: sys.exit()
    from dialog.dataset import schema_version, msg_schema
    # named by the schema and by what the rows of a few dialogs hold now: a file an older layout wrote is written anew
    import hashlib, pyarrow as pa
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, msg_schema()) as w: w.write_table(dlgs2table(paths[:3], workers=0))
    pq = Path(a.data)/f'dlgs{a.n}-v{schema_version}-{hashlib.sha256(sink.getvalue()).hexdigest()[:8]}.parquet'
    if not pq.exists(): write_parquet(paths, pq, workers=2, progress=False)
    fb,pb = sum(p.stat().st_size for p in paths),pq.stat().st_size
    print(f'Parquet {pb/1e6:.1f} MB vs folder {fb/1e6:.1f} MB = {pb/fb:.2f}x', flush=True)
    print(f'load average {os.getloadavg()[0]:.1f} on {len(os.sched_getaffinity(0))} cores (wall times on a shared machine: see the CPU figures)', flush=True)
    sers,pars,cmps = [],[],[]
    for _ in range(a.reps):  # alternating fresh processes, so both meet the same load from the machine's other work; the best of each counts, as timeit takes it
        sers.append(read_time(folder, a.n, 'serial')); pars.append(read_time(folder, a.n, 'workers=2'))
        if a.compare: cmps.append(read_time(folder, a.n, 'workers=2', a.compare))
    (serial,scpu,_),(par,pme,pkid) = min(sers),min(pars)
    print(f'serial read_ipynb loop (baseline): {serial:.2f} s  ({scpu:.2f} CPU s; each run in a fresh process, best of {a.reps}: {", ".join(f"{t:.2f}" for t,*_ in sers)})', flush=True)
    print(f'read_dialogs(workers=2):           {par:.2f} s  = {par/serial:.2f}x serial (goal <= 0.6; best of {a.reps}: {", ".join(f"{t:.2f}" for t,*_ in pars)})', flush=True)
    print(f'  CPU: this process {pme:.2f} s, the other {pkid:.2f} s: the busiest took {max(pme, pkid)/scpu:.2f}x the serial CPU; '
          f'shared evenly on 2 idle cores {(pme+pkid)/2/scpu:.2f}x', flush=True)
    if cmps: print(f'  {a.compare}: read_dialogs(workers=2) {min(cmps)[0]:.2f} s = {min(cmps)[0]/serial:.2f}x serial (best of {a.reps}: {", ".join(f"{t:.2f}" for t,*_ in cmps)})', flush=True)
    sub = paths[:1000]
    keep = []  # what is read here stays, as the reading process keeps every dialog: each takes fresh memory
    r1 = timed(lambda: keep.append([read_ipynb(p) for p in sub])); r1 = cpu['me']  # the floors below count CPU seconds, which load inflates less than wall
    chunks,files,buf = [[str(p) for p in sub[i:i+16]] for i in range(0, len(sub), 16)],[],bytearray()
    dirs = _result_dirs()
    try:
        # as `pmap`'s other process does: each chunk read as plain data, packed and written to a result file
        k1 = timed(lambda: files.extend(_result_file(partial(_read_chunk, parts=True), ch, *dirs) for ch in chunks)); k1 = cpu['me']
        # as this process takes them: each file read back and its dialogs built, kept
        u1 = timed(lambda: keep.append([_result_back(f, buf, ch) for f,ch in zip(files, chunks)])); u1 = cpu['me']
    finally:
        for d in dirs: shutil.rmtree(d, ignore_errors=True)
    del keep
    c,u = k1/r1,u1/r1
    print(f'  why not 0.5: a dialog the other process reads costs it {c:.2f}x reading one here (read as plain data, without building its messages, packed and written to a result file; measured here, in CPU seconds),'
          f' and taking it here {u:.2f}x (the file read back, its messages built); with this process reading the rest, the split that ends both together on 2 idle cores takes c/(1+c-u) = {c/(1+c-u):.2f}x serial', flush=True)
    tab = timed(lambda: read_parquet(pq), 3)
    print(f'read_parquet (the table):          {tab:.2f} s  = {tab/serial:.2f}x serial (goal <= 0.2)', flush=True)
    def busiest(me, kid): return f'CPU: this process {me:.2f} s, the other {kid:.2f} s: the busiest took {max(me, kid)/scpu:.2f}x the serial CPU'
    back,bme,bkid = min(read_time(folder, a.n, str(pq)) for _ in range(a.reps))
    print(f'read_parquet + table2dlgs:         {back:.2f} s  = {back/serial:.2f}x serial (goal <= 0.5; a fresh process, the dialogs kept, best of {a.reps})', flush=True)
    print(f'  {busiest(bme, bkid)}', flush=True)
    # its floor, as for workers=2 above, on the first 1,000 dialogs' rows, in the jobs of 16 `table2dlgs` sends
    from dialog.dataset import _dlg_starts, _range_dlgs, dlg_cols
    lt = read_parquet(pq, columns=dlg_cols)
    st = _dlg_starts(lt)[:len(sub)+1]
    jobs,keep,files = [st[i:i+17] for i in range(0, len(st)-1, 16)],[],[]
    h1 = timed(lambda: keep.append([_range_dlgs(j, lt) for j in jobs])); h1 = cpu['me']  # converted here
    dirs = _result_dirs()
    try:
        k1 = timed(lambda: files.extend(_result_file(partial(_range_dlgs, table=lt, parts=True), j, *dirs) for j in jobs)); k1 = cpu['me']  # by the other
        u1 = timed(lambda: keep.append([_result_back(f, buf) for f in files])); u1 = cpu['me']  # taken here
    finally:
        for d in dirs: shutil.rmtree(d, ignore_errors=True)
    del keep, lt
    h,c,u,p = h1/r1,k1/r1,u1/r1,tab/serial
    print(f'  why not less: converting a dialog costs {h:.2f}x reading one here (CPU seconds), the other process {c:.2f}x (as plain data, packed and written),'
          f' and taking it here {u:.2f}x; after read_parquet ({p:.2f}x), the split that ends both together on 2 idle cores'
          f' takes h*c/(h+c-u) = {h*c/(h+c-u):.2f}x: {p+h*c/(h+c-u):.2f}x serial in all', flush=True)
    lean,lme,lkid = min(read_time(folder, a.n, f'lean={pq}') for _ in range(a.reps))
    print(f'  reading only dlg_cols:           {lean:.2f} s  = {lean/serial:.2f}x serial (table2dlgs(read_parquet(f, columns=dlg_cols)): the columns it reads)', flush=True)
    print(f'    {busiest(lme, lkid)}', flush=True)
    tser,tcpu,_ = read_time(folder, a.n, 'tables0')
    print(f'dlgs2table(workers=0) (baseline):  {tser:.2f} s', flush=True)
    tpar,tme,tkid = read_time(folder, a.n, 'tables2')
    print(f'dlgs2table(workers=2):             {tpar:.2f} s  = {tpar/tser:.2f}x dlgs2table(workers=0), {tpar/serial:.2f}x the serial read_ipynb loop', flush=True)
    print(f'  CPU: this process {tme:.2f} s, the other {tkid:.2f} s: on 2 idle cores the busiest takes {max(tme, tkid)/tcpu:.2f}x dlgs2table(workers=0)\'s CPU ({tcpu:.2f} s)', flush=True)
    try: import ray
    except ImportError: print('ray_read: Ray is not installed (pip install "nbdialog[ray]")'); sys.exit()
    from dialog.dataset import ray_read
    t = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={'env_vars': {'PYTHONPATH': os.pathsep.join(filter(None, [str(Path(__file__).parent.parent), os.environ.get('PYTHONPATH')]))}})
    ray_read(paths[:64]).materialize()  # the workers start and import dialog
    up = time.perf_counter()-t
    sub = first_n(folder, a.n)
    runs = []
    for _ in range(a.reps):
        k0 = _kids_cpu(); t = timed(lambda: ray_read(sub).materialize()); k = _cpu_since(k0, _kids_cpu())
        runs.append((t, cpu['me'], k['workers'], k['ray'], k['actors']))
    rt,rme,rw,rr,ra = min(runs)
    print(f'ray_read on 2 local CPUs:          {rt:.2f} s  = {rt/serial:.2f}x serial (goal <= 1.5), {rt/tser:.2f}x dlgs2table(workers=0) (start-up apart: {up:.1f} s; best of {a.reps}: {", ".join(f"{r[0]:.2f}" for r in runs)})', flush=True)
    print(f'  CPU: Ray\'s workers {rw:.2f} s ({rw/scpu:.2f}x the serial CPU), Ray Data\'s own actors {ra:.2f} s, Ray\'s other processes {rr:.2f} s, '
          f'this process {rme:.2f} s: on 2 idle cores at least {(rw+ra+rr+rme)/2/scpu:.2f}x serial', flush=True)
    ray.shutdown()

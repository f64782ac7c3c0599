"dialog.dataset between processes, as a hostile reviewer tried to break it: `pmap` (odd results, errors, dying processes, Ctrl-C twice), `_pack`/`_unpack` against pickle, `dlg_paths` against rglob's rule"
import json, os, pickle, shutil, signal, subprocess, sys, textwrap, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.dataset import dlg_paths
from dialog.pool import pmap, _pack, _unpack, _result_file, _result_back
from dataset import mk_nb  # bench/dataset.py's generator

root = Path(__file__).parent.parent
_main = os.getpid()  # the test's own process: any other pid is one `pmap` started

def _run(script, tmp_path, timeout, **env):
    "Run `script` in a fresh interpreter with TMPDIR in `tmp_path`/tmp"
    (tmp := tmp_path/'tmp').mkdir(exist_ok=True)
    (s := tmp_path/'s.py').write_text(textwrap.dedent(script))
    e = dict(os.environ, PYTHONPATH=str(root), TMPDIR=str(tmp), **env)
    return subprocess.run([sys.executable, str(s)], capture_output=True, text=True, env=e, timeout=timeout),tmp

# pmap / _result_back

def _nothing(j):
    time.sleep(0.02)  # slow enough that the other process takes some jobs
    return []

def test_an_empty_list_result_crosses_back_empty(tmp_path):
    "A job returning `[]` in another process comes back `[]`: not a size read where none was written, nor a stale item from the reused buffer"
    buf = bytearray()
    assert _result_back(_result_file(lambda j: ['x'*100], 0, tmp_path), buf) == ['x'*100]
    assert _result_back(_result_file(lambda j: [], 0, tmp_path), buf) == []
    assert list(pmap(_nothing, list(range(6)), 2, False, '', 6, lambda j: 1)) == [[]]*6  # struct.error

def _dirs_in(j):
    "The result folders in folder `j` while a job runs (in the other process, or this one)"
    time.sleep(0.02)
    return sorted(p.name for p in Path(j).glob('nbdialog-*'))

def test_results_go_to_memory_when_the_temporary_folder_is_the_systems(tmp_path, monkeypatch):
    "With the temporary folder `/tmp`, result files go to a folder in `_shm` (memory) while it has room; a temporary folder set elsewhere is used alone; no folder outlives the reading"
    import tempfile, dialog.pool as dp
    (shm := tmp_path/'shm').mkdir()
    monkeypatch.setattr(dp, '_shm', str(shm)); monkeypatch.setattr(tempfile, 'tempdir', '/tmp')
    ds = dp._result_dirs()
    try: assert len(ds) == 2 and Path(ds[0]).parent == shm and Path(ds[1]).parent == Path('/tmp')
    finally: [os.rmdir(d) for d in ds]
    got = list(pmap(_dirs_in, [str(shm)]*6, 2, False, '', 6, lambda j: 1))
    assert all(len(r) == 1 for r in got) and not list(shm.iterdir())  # the reading's folder there, then none
    monkeypatch.setattr(dp, '_shm_room', 1<<62)  # no room
    ds = dp._result_dirs()
    try: assert len(ds) == 1 and Path(ds[0]).parent == Path('/tmp')
    finally: [os.rmdir(d) for d in ds]
    monkeypatch.setattr(dp, '_shm_room', 0); monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))  # TMPDIR's choice
    ds = dp._result_dirs()
    assert [Path(d).parent for d in ds] == [tmp_path]
    os.rmdir(ds[0])

def test_a_killed_readings_folders_are_swept_whatever_tmpdir_says(tmp_path, monkeypatch):
    "A killed reading's result folders in `/dev/shm` (memory) and `/tmp` are removed by the next reading even when it has TMPDIR set elsewhere (a job scheduler's, or the one the library suggests when /tmp is full)"
    import subprocess, sys, tempfile, dialog.pool as dp
    from dialog.ipynb import own_tag
    p = subprocess.Popen([sys.executable, '-c', 'pass']); p.wait()  # a process now gone
    dead = f'{own_tag().rpartition(".")[0]}.{p.pid}'
    (shm := tmp_path/'shm').mkdir(); (own := tmp_path/'own').mkdir()
    left = [shm/f'nbdialog-{dead}-abcd_123', Path('/tmp')/f'nbdialog-{dead}-abcd_123', own/f'nbdialog-{dead}-abcd_123']
    for d in left: (d/'sub').mkdir(parents=True); (d/'sub'/'x.res').write_bytes(b'half')
    monkeypatch.setattr(dp, '_shm', str(shm)); monkeypatch.setattr(tempfile, 'tempdir', str(own))  # TMPDIR set
    try:
        ds = dp._result_dirs()
        assert [Path(d).parent for d in ds] == [own] and not [d for d in left if d.exists()]
        os.rmdir(ds[0])
    finally: [shutil.rmtree(d, ignore_errors=True) for d in left]

def _warns(j):
    "Warn about job `j`, and give it back"
    import warnings
    warnings.warn(f'job {j}')
    return j

def test_another_processs_warnings_are_shown_here_in_their_jobs_turn():
    "A warning raised in another process comes back with its job's result and is shown here, through this process's filters and printer (the command line's escapes it), never written by the other process itself"
    import warnings
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        assert list(pmap(_warns, list(range(8)), 2)) == list(range(8))
    got = [str(w.message) for w in ws]
    assert sorted(got) == [f'job {j}' for j in range(8)] and all(w.category is UserWarning for w in ws)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # as if the jobs ran here: the filters here decide
        with pytest.raises(UserWarning, match='job'): list(pmap(_warns, list(range(8)), 2))

def test_a_result_memory_cant_hold_goes_to_the_spill_folder(tmp_path, monkeypatch):
    "A result file `folder` has no room for (ENOSPC, EDQUOT) is written in `spill`; any other error, or a full folder without a spill, is raised"
    import errno, tempfile
    (full := tmp_path/'full').mkdir(); (spill := tmp_path/'spill').mkdir()
    real,err = tempfile.mkstemp,[errno.ENOSPC]
    def mkstemp(*a, dir=None, **kw):
        if Path(dir) == full: raise OSError(err[0], os.strerror(err[0]))
        return real(*a, dir=dir, **kw)
    monkeypatch.setattr(tempfile, 'mkstemp', mkstemp)
    buf = bytearray()
    for e in (errno.ENOSPC, errno.EDQUOT):
        err[0] = e
        p = _result_file(lambda j: ['x'*100], 0, full, spill)
        assert Path(p).parent == spill and _result_back(p, buf) == ['x'*100]
    with pytest.raises(OSError) as x: _result_file(lambda j: ['x'], 0, full)
    assert x.value.errno == errno.EDQUOT
    err[0] = errno.EACCES
    with pytest.raises(PermissionError): _result_file(lambda j: ['x'], 0, full, spill)
    assert not list(spill.iterdir()) and not list(full.iterdir())

class _Rows(list): pass
def _rows(j):
    time.sleep(0.02)
    return _Rows([j])

def test_a_result_keeps_its_type_whichever_process_made_it():
    "A result keeps its type whichever process made it (a list subclass is not a list to pack item by item)"
    assert {type(r) for r in pmap(_rows, list(range(8)), 2, False, '', 8, lambda j: 1)} == {_Rows}

class _TwoArgs(Exception):
    def __init__(self, what, where): super().__init__(f'{what} at {where}')
def _raise_two_args(j):
    time.sleep(0.02)
    if os.getpid()!=_main: raise _TwoArgs('bad job', j)
    return [j]

def test_an_error_pickle_cannot_rebuild_still_says_what_went_wrong():
    "An error that pickles but can't be unpickled (its __init__ takes two arguments) still says what went wrong, not pickle's complaint"
    with pytest.raises(Exception, match='bad job at'): list(pmap(_raise_two_args, list(range(10)), 2, False, '', 10, lambda j: 1))

_orphans = '''
import os, signal, time, multiprocessing
from dialog.pool import pmap
main = os.getpid()
def f(j):
    time.sleep(0.05)
    if os.getpid()==main:  # this process dies (OOM killer, kill -9) on its first own job
        print(' '.join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
        os.kill(main, signal.SIGKILL)
    return [j]
if __name__=='__main__': list(pmap(f, range(60), 3, False, '', 60, lambda j: 1))
'''

def _gone(pid):
    try: return Path(f'/proc/{pid}/stat').read_text().split(')')[1].split()[0] in 'ZX'
    except FileNotFoundError: return True

@pytest.mark.slow
def test_the_others_stop_when_this_process_dies(tmp_path):
    "When the reading process is killed, the others stop after the job they are on (their sends fail: no copy of a read end is left in them), leaving at most that job's file"
    r,tmp = _run(_orphans, tmp_path, 30)
    pids = [int(p) for p in r.stdout.split()]
    assert r.returncode == -signal.SIGKILL and len(pids) == 2
    for _ in range(200):
        if all(map(_gone, pids)): break
        time.sleep(0.05)
    assert len(list(tmp.glob('nbdialog-*/*.res'))) <= 2  # at most the job each was on

_lock_kill = '''
import gc, os, signal, time
from dialog.pool import pmap
main = os.getpid()
def f(j):
    if os.getpid()!=main and j==1:  # killed in the few instructions it holds the shared counters' lock
        todo, = [o for o in gc.get_objects() if type(o).__name__=='SynchronizedArray']
        todo.get_lock().acquire()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return [j]
if __name__=='__main__':
    try: list(pmap(f, range(20), 2, False, '', 20, lambda j: 1))
    except RuntimeError as e: print('error:', e)
'''

@pytest.mark.slow
def test_a_process_killed_holding_the_lock_is_an_error_not_a_hang(tmp_path):
    "A process killed while it holds `todo`'s lock never releases it: that is an error, not a wait for ever (in the loop or in the clean-up)"
    try: r,_ = _run(_lock_kill, tmp_path, 8)
    except subprocess.TimeoutExpired: pytest.fail('pmap hung on the lock a killed process held')
    assert 'error:' in r.stdout, r.stderr

_ctrl_c_twice = '''
import glob, os, signal, tempfile, threading, time
from dialog.pool import pmap
main = os.getpid()
def f(j):
    if os.getpid()==main:
        time.sleep(0.2)
        threading.Timer(0.3, os.kill, (main, signal.SIGINT)).start()  # the second Ctrl-C, while `finally` waits for the others
        raise KeyboardInterrupt
    time.sleep(1)
    return [j]
if __name__=='__main__':
    try: list(pmap(f, range(30), 2, False, '', 30, lambda j: 1))
    except KeyboardInterrupt: pass
    time.sleep(1.5)  # the other process finishes its job and sends its file's name
    print(len(glob.glob(os.path.join(tempfile.gettempdir(), 'nbdialog-*'))))
'''

@pytest.mark.slow
def test_a_second_ctrl_c_leaves_no_result_file(tmp_path):
    "Ctrl-C pressed again while `pmap` waits for the others' last jobs still leaves no file in TMPDIR"
    r,tmp = _run(_ctrl_c_twice, tmp_path, 30)
    assert r.stdout.split() == ['0'], r.stdout + r.stderr

# _pack / _unpack: a dialog read as parts comes back as pickle brings the dialog `read_ipynb` gives

def test_the_message_list_comes_back_as_pickle_brings_it(tmp_path):
    "A read dialog's message list keeps its change count (`ver`), and its attributes their order, as pickle keeps them"
    from dialog.pool import DialogParts
    from dialog.ipynb import read_ipynb, read_ipynb_parts
    f = tmp_path/'v.ipynb'; f.write_text(json.dumps(mk_nb(1, 4)), encoding='utf-8')
    ref = pickle.loads(pickle.dumps(read_ipynb(f)))
    got = _unpack(_pack(DialogParts(*read_ipynb_parts(f))))
    assert ref.messages.items.ver >= 1
    assert got.messages.items.ver == ref.messages.items.ver
    assert list(vars(got)) == list(vars(ref))

# dlg_paths against the old rglob rule

def _rglob_paths(p):
    return sorted(f for f in p.rglob('*.ipynb') if not any(s.startswith('.') for s in f.relative_to(p).parts) and not f.is_dir())

@pytest.mark.parametrize('kind', ['loop', 'through-a-file'])
def test_a_link_that_cannot_be_followed_is_no_error(tmp_path, kind):
    "A link loop (ELOOP) or a link through a file (ENOTDIR) in a folder is no error: as rglob's rule has it, it is ignored (or listed, named .ipynb, as a bad file)"
    (tmp_path/'f.ipynb').write_text('{}')
    if kind=='loop': (tmp_path/'loop').symlink_to(tmp_path/'loop')
    else: (tmp_path/'thru.ipynb').symlink_to(tmp_path/'f.ipynb'/'x')
    assert dlg_paths(tmp_path) == _rglob_paths(tmp_path)

# dlg_paths' globs against glob.glob's rule: the same files, but `**` follows no link to a folder

from hypothesis import given, settings, strategies as st, HealthCheck
import glob, random, tempfile
import datetime
from dialog.ipynb import read_ipynb, read_ipynb_parts
from dialog.dataset import read_dialogs

_names = ['a', 'b', '.h', 'x.ipynb', '.y.ipynb', 'c.ipynb', 'sub', 'd.txt']
_pats = ['**/*.ipynb', '*/*.ipynb', '**', 'a/**/*.ipynb', '**/.h/*.ipynb', '.h/**/*', '**/**/*.ipynb', '?/*', '[ab]/**/c.ipynb',
         'sub/*.ipynb', 'a/b/x.ipynb', 'a/**', '**/a/**/*.ipynb', '.*/*.ipynb', '*/**/*.ipynb']

def _tree(d, rnd, depth=0):
    "A random tree under `d`: folders and files, hidden ones, files named like folders"
    for n in rnd.sample(_names, rnd.randint(1, 5)):
        p = d/n
        if n.endswith(('.ipynb', '.txt')) or depth>=3 or rnd.random()<0.2: p.write_text('{}')
        else: p.mkdir(); _tree(p, rnd, depth+1)

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(_pats), st.booleans())
def test_a_glob_names_the_files_glob_finds(seed, pat, absolute):
    "With no links, a glob pattern names exactly the `.ipynb` paths `glob.glob(pat, recursive=True)` finds, absolute or relative to the current folder"
    with tempfile.TemporaryDirectory() as td:
        root = Path(td); _tree(root, random.Random(seed))
        cwd = os.getcwd(); os.chdir(root)
        try:
            p = str(root/pat) if absolute else pat
            want = sorted({Path(f) for f in glob.glob(p, recursive=True) if f.endswith('.ipynb')})
            try: got = list(dlg_paths(p))
            except FileNotFoundError: got = []  # no match and no magic: can't happen for these patterns
            assert got == want
        finally: os.chdir(cwd)

def test_a_link_loop_under_a_glob_lists_each_file_once(tmp_path):
    "Two links back to their own folder made `**` (as glob.glob follows links) list a file 2**40 ways: it ran for ever. `**` follows no link to a folder, as a folder's search doesn't"
    d = tmp_path/'d'; (d/'sub').mkdir(parents=True)
    (d/'a.ipynb').write_text('{}'); (d/'sub'/'b.ipynb').write_text('{}')
    (d/'l1').symlink_to(d); (d/'l2').symlink_to(d); (d/'sub'/'up').symlink_to(d)
    (tmp_path/'other').mkdir(); (tmp_path/'other'/'c.ipynb').write_text('{}'); (d/'lnk').symlink_to(tmp_path/'other')
    assert list(dlg_paths(str(d/'**'/'*.ipynb'))) == [d/'a.ipynb', d/'sub'/'b.ipynb'] == list(dlg_paths(d))
    one = str(d/'*'/'*.ipynb')  # a single `*` looks through links (no loop: it goes one folder deep), as glob does
    assert sorted(Path(f) for f in glob.glob(one)) == [d/'l1'/'a.ipynb', d/'l2'/'a.ipynb', d/'lnk'/'c.ipynb', d/'sub'/'b.ipynb']
    assert list(dlg_paths(one)) == [d/'l1'/'a.ipynb', d/'lnk'/'c.ipynb', d/'sub'/'b.ipynb'] # l2/a.ipynb is l1/a.ipynb: one file, read once

# dataset: what held (parts, the fallback to pickle, path hints come back as pickle brings them)
def _mk():
    d = Dialog('x'); d.mk_message('a', output=[dict(output_type='stream', name='stdout', text='hi')]); d.mk_message('b', msg_type=snote)
    return d

def _state(dl): return (type(dl), {k:v for k,v in vars(dl).items() if k!='_messages'}, [(type(m), {k:v for k,v in vars(m).items() if k!='_dlg'}) for m in dl.messages], dl.messages.items.ver, [m._dlg() is dl for m in dl.messages])

@pytest.mark.parametrize('path,hint', [('rel/x.ipynb', Path('rel/x.ipynb')), (Path('rel/x.ipynb'), Path('rel/x.ipynb')), (Path('rel/x.ipynb'), Path('other.ipynb')), (None, None)])
@pytest.mark.parametrize('extra', [None, datetime.date(2020, 1, 1)]) # a date: marshal can't write it, so the dialog is built from its parts and pickled
def test_parts_round_trip_as_pickle(tmp_path, path, hint, extra):
    from dialog.pool import DialogParts
    from dialog.ipynb import read_ipynb, read_ipynb_parts, write_ipynb
    f = tmp_path/'x.ipynb'; f.write_text(write_ipynb(_mk()), encoding='utf-8')
    d,parts = read_ipynb(f),DialogParts(*read_ipynb_parts(f))
    for o in (d, parts.dlg):
        o.path = path
        if extra: o.extra = extra
    want = pickle.loads(pickle.dumps(d))
    assert _state(_unpack(_pack(parts), hint)) == _state(want)

def _nb(i):
    return dict(cells=[dict(cell_type='code', id=f'a{i}', metadata={'pinned': True, 'k': i}, source='x', outputs=[], execution_count=i),
                       dict(cell_type='markdown', id=f'b{i}', metadata={}, source='y')], metadata={}, nbformat=4, nbformat_minor=5)

def _full(d):
    return (type(d), {k:v for k,v in vars(d).items() if k!='_messages'}, d.messages.items.ver,
            [(type(m), [(k,v) for k,v in vars(m).items() if k!='_dlg'], m.dlg is d) for m in d.messages])

def test_read_dialogs_in_processes_with_a_promoted_property(pin_promoted, tmp_path):
    "With `Message.meta_attrs` naming a property, the other processes read what `read_ipynb` reads (it was a `TypeError` from `state_of`)"
    fs = []
    for i in range(40):
        (p := tmp_path/f'd{i:02}.ipynb').write_text(json.dumps(_nb(i)), encoding='utf-8')
        fs.append(p)
    want = [read_ipynb(p) for p in fs]
    d,states = read_ipynb_parts(fs[0])
    assert states == [{k:v for k,v in vars(m).items() if k!='_dlg'} for m in want[0].messages] and states[0]['pinned'] is True
    got = read_dialogs(fs, workers=2, progress=False)
    assert [_full(d) for d in got] == [_full(d) for d in want]

@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_parts_made_here_are_the_dialog_read_ipynb_gives(tmp_path_factory, seed):
    "`DialogParts.dialog()`, which the readers use for a plain `Dialog`, makes what `read_ipynb` gives: every attribute of the dialog and of its messages, in order, attachments included"
    from dialog.pool import DialogParts
    from dialog.ipynb import read_ipynb, read_ipynb_parts
    f = tmp_path_factory.mktemp('parts')/'x.ipynb'; f.write_text(json.dumps(mk_nb(seed, 30)), encoding='utf-8')
    want,got = read_ipynb(f),DialogParts(*read_ipynb_parts(f)).dialog()
    assert _full(got) == _full(want) and any(m.attachments for m in got.messages) == any(m.attachments for m in want.messages)
    assert _full(pickle.loads(pickle.dumps(got))) == _full(want)

def test_a_killed_readings_result_folders_are_removed_by_the_next(tmp_path):
    "A reading killed (SIGKILL, the OOM killer) can't remove its folders of results: in memory (`/dev/shm`) they would hold it until a reboot. The next reading removes them: this host's whose process is gone, any host's a day old; a live reading's, and other files, stay"
    import tempfile, dialog.pool as dp
    from dialog.ipynb import own_tag
    script = f'''
        import os, signal, time, tempfile
        import dialog.pool as dp
        dp._shm = {str(tmp_path/"shm")!r}; tempfile.tempdir = '/tmp'
        def slow(j): time.sleep(0.05); return j
        print(os.getpid(), flush=True)
        for r in dp.pmap(slow, list(range(400)), 2):
            if r==20: os.kill(os.getpid(), signal.SIGKILL)  # killed mid-read, its results' folders left
    '''
    (shm := tmp_path/'shm').mkdir()
    res,_ = _run(script, tmp_path, 60)
    assert res.returncode == -signal.SIGKILL
    left = sorted(shm.glob('nbdialog-*'))
    assert len(left) == 1
    tag = f'{own_tag().rpartition(".")[0]}.{int(res.stdout.split()[0])}'  # the killed reading's
    assert left[0].name.startswith(f'nbdialog-{tag}-') and (tmp_left := list(Path('/tmp').glob(f'nbdialog-{tag}-*')))
    old = shm/'nbdialog-otherhost.12-abcd_123'; old.mkdir(); os.utime(old, (time.time()-2*86400,)*2)  # another host's, two days old
    new = shm/'nbdialog-otherhost.12-abcd_456'; new.mkdir()  # another host's, fresh: maybe a live reading there
    mine = shm/f'nbdialog-{own_tag()}-abcd_789'; mine.mkdir()  # a live reading's (this process)
    other = shm/'nbdialog-notes'; other.mkdir()  # not a reading's
    kept = shm/'nbdialog-data.2-backup'; kept.mkdir(); os.utime(kept, (time.time()-2*86400,)*2)  # a user's, named alike
    orig,tmpd = dp._shm,tempfile.tempdir
    dp._shm,tempfile.tempdir = str(shm),'/tmp'
    try: ds = dp._result_dirs()
    finally: dp._shm,tempfile.tempdir = orig,tmpd
    try: assert sorted(p.name for p in shm.iterdir()) == sorted([Path(ds[0]).name, new.name, mine.name, other.name, kept.name])
    finally: [os.rmdir(d) for d in ds]
    assert not [p for p in tmp_left if p.exists()]  # its folder in the temporary folder too

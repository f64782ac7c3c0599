"No lost edits: the lock from check to rename, absolute paths, read-only files, vanished files, temp files, safe names."
import fcntl, os, pwd, re, subprocess, sys, threading, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.ipynb as ipy

root = Path(__file__).resolve().parent.parent

def saved(tmp_path, name='d.ipynb'):
    f = tmp_path/name
    d = Dialog('d'); d.mk_message('first', msg_type=snote); d.save(f)
    return f

def test_relative_path_survives_chdir(tmp_path, monkeypatch):
    f = saved(tmp_path)
    monkeypatch.chdir(tmp_path)
    d = read_ipynb('d')
    assert d.path==f and d.path.is_absolute()
    (tmp_path/'elsewhere').mkdir()
    os.chdir(tmp_path/'elsewhere')
    d.mk_message('after chdir', msg_type=snote)
    d.save()
    assert read_ipynb(f).messages[-1].content=='after chdir' and os.listdir(tmp_path/'elsewhere')==[]

@pytest.mark.parametrize('how', ['deleted', 'renamed'])
def test_vanished_file_is_a_conflict(tmp_path, how):
    f = saved(tmp_path)
    d = read_ipynb(f)
    if how=='deleted': f.unlink()
    else: f.rename(tmp_path/'moved.ipynb')
    d.mk_message('mine', msg_type=snote)
    with pytest.raises(DialogConflictError, match='deleted or renamed'): d.save()
    assert not f.exists()
    d.save(force=True)
    assert read_ipynb(f).messages[-1].content=='mine'

nobody = next((p for p in pwd.getpwall() if p.pw_name=='nobody'), None)

@pytest.mark.skipif(os.geteuid()==0 and nobody is None, reason='running as root, whom file modes do not stop, and there is no nobody user to drop to')
def test_read_only_file_refused():
    "A 0444 file in a writable folder is not replaced (as root, checked in a child that drops to nobody once it has imported dialog)"
    import tempfile, shutil
    folder = Path(tempfile.mkdtemp())  # not under pytest's tmp_path, which only its owner may enter
    try:
        folder.chmod(0o777)
        f = saved(folder)
        f.chmod(0o444)
        before = f.read_bytes()
        drop = f'os.setgid({nobody.pw_gid}); os.setuid({nobody.pw_uid})' if os.geteuid()==0 else 'pass'
        code = (f"import os, sys; from dialog.core import *; from dialog.ipynb import *\n{drop}\nd = read_ipynb(sys.argv[1]); d.mk_message('x', msg_type=snote)\n"
                "try: d.save()\nexcept PermissionError as e: print('PermissionError', e)\nelse: print('saved')")
        r = subprocess.run([sys.executable, '-c', code, str(f)], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)))
        assert r.stdout.startswith('PermissionError') and 'read-only' in r.stdout, r.stdout+r.stderr
        assert f.read_bytes()==before and sorted(os.listdir(folder))==['d.ipynb']
    finally: shutil.rmtree(folder)

def test_temp_names_carry_host_and_pid(tmp_path):
    n = ipy._tmp_name(tmp_path/'d.ipynb')
    m = ipy._re_tmp.fullmatch(n)
    assert m and m[1]=='d.ipynb' and m[2]==ipy._host and int(m[3])==os.getpid()
    live_elsewhere = tmp_path/'.d.ipynb.otherhost.1.0123abcd.tmp'  # pid 1 is alive here, but means nothing for another host
    dead_here = tmp_path/f'.d.ipynb.{ipy._host}.999999999.0123abcd.tmp'
    live_here = tmp_path/f'.d.ipynb.{ipy._host}.{os.getpid()}.0123abcd.tmp'
    other_file = tmp_path/f'.e.ipynb.{ipy._host}.999999999.0123abcd.tmp'
    for p in (live_elsewhere, dead_here, live_here, other_file): p.write_text('')
    saved(tmp_path)
    assert sorted(os.listdir(tmp_path))==sorted(['d.ipynb', live_elsewhere.name, live_here.name, other_file.name])

def _listings(monkeypatch):
    "A list that counts each listing of a folder `atomic_write` makes"
    res,real = [],os.listdir
    monkeypatch.setattr(ipy.os, 'listdir', lambda p: res.append(p) or real(p))
    return res

def test_a_clean_folder_is_not_listed_again_until_it_changes(tmp_path, monkeypatch):
    "Writes in a folder nobody else changed since the last one (which found no temp file) don't list it: a big folder costs ms a listing"
    atomic_write(tmp_path/'a.ipynb', b'1')
    ls = _listings(monkeypatch)
    for i in range(5): atomic_write(tmp_path/f'b{i}.ipynb', b'2')
    assert ls==[]
    dead = tmp_path/f'.a.ipynb.{ipy._host}.999999999.0123abcd.tmp'  # a killed writer's: the folder changed
    dead.write_text('')
    atomic_write(tmp_path/'a.ipynb', b'3')
    assert len(ls)==1 and not dead.exists() and (tmp_path/'a.ipynb').read_bytes()==b'3'

def test_a_folder_with_a_temp_file_left_is_listed_at_each_write(tmp_path, monkeypatch):
    "Another file's temp file, or a live writer's, keeps the folder unclean: each write looks again; and a note lasts `_sweep_every` seconds"
    other = tmp_path/f'.e.ipynb.{ipy._host}.999999999.0123abcd.tmp'  # not this file's: its own writers remove it
    other.write_text('')
    ls = _listings(monkeypatch)
    for i in range(3): atomic_write(tmp_path/'d.ipynb', b'x%d' % i)
    assert len(ls)==3 and other.exists()
    other.unlink()
    monkeypatch.setattr(ipy, '_sweep_every', 0)  # a note that expires at once
    atomic_write(tmp_path/'d.ipynb', b'y')
    atomic_write(tmp_path/'d.ipynb', b'z')
    assert len(ls)==5

def test_save_waits_for_the_lock(tmp_path):
    "A save takes the folder's lock before it checks the file, and holds it to the rename"
    f = saved(tmp_path)
    d = read_ipynb(f)
    d.mk_message('waited', msg_type=snote)
    fd = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    errs = []
    def save():
        try: d.save()
        except DialogConflictError as e: errs.append(e)
    t = threading.Thread(target=save)
    t.start()
    time.sleep(0.3)
    assert t.is_alive() and read_ipynb(f).messages[-1].content=='first'  # blocked: nothing checked or written yet
    other = read_ipynb(f); other.mk_message('sneaked in', msg_type=snote)
    ipy._rm_stale_tmps(f)
    f.write_bytes(write_ipynb(other).encode())  # another writer's change, made while we hold the lock
    os.close(fd)  # release
    t.join(5)
    assert len(errs)==1 and read_ipynb(f).messages[-1].content=='sneaked in'  # the waiting save saw the change and refused: nothing lost
    assert sorted(os.listdir(tmp_path))==['d.ipynb']  # no lock file

@pytest.mark.parametrize('name', ['../outside/evil', 'a/b', '/abs/path', '..', '.', '', 'a\\b'])
def test_write_refuses_names_that_are_paths(tmp_path, name):
    (tmp_path/'in').mkdir()
    with pytest.raises(ValueError, match='not a plain file name'): Dialog(name).write(tmp_path/'in')
    assert [p.name for p in tmp_path.rglob('*')]==['in']

def _stress_child(f, tag, n, q):
    "Child: `n` read-edit-save loops, re-reading on conflict; reports each edit whose save returned"
    done = []
    for i in range(n):
        while True:
            d = read_ipynb(f)
            d.mk_message(f'{tag}{i}', msg_type=snote)
            try: d.save(); break
            except DialogConflictError: continue
        done.append(f'{tag}{i}')
    q.put(done)

@pytest.mark.slow
def test_two_processes_lose_no_edit(tmp_path):
    "Two processes each save 300 edits: every save that returned is in the final file"
    import multiprocessing as mp
    f = tmp_path/'shared.ipynb'
    Dialog('shared').save(f)
    ctx = mp.get_context('fork')
    q = ctx.Queue()
    ps = [ctx.Process(target=_stress_child, args=(f, tag, 300, q)) for tag in 'ab']
    for p in ps: p.start()
    done = q.get(timeout=600) + q.get(timeout=600)
    for p in ps: p.join(60)
    final = [m.content for m in read_ipynb(f).messages]
    assert len(done)==600 and sorted(final)==sorted(done)
    assert sorted(os.listdir(tmp_path))==['shared.ipynb']

def test_a_write_in_place_after_the_check_is_seen(tmp_path):
    "A program that takes no lock and rewrites the file in place (between the check and the rename) is seen: the check runs again on what is there, and its refusal keeps that program's save"
    p = tmp_path/'a.ipynb'; p.write_bytes(b'one')
    seen = []
    def check(cur):
        seen.append(cur)
        if len(seen)==1:
            with open(p, 'r+b') as f: f.truncate(0); f.write(b'two') # the other program, in place, no lock
            return True
        raise DialogConflictError('changed on disk')
    with pytest.raises(DialogConflictError): atomic_write(p, b'mine', check)
    assert p.read_bytes()==b'two' and seen==[b'one', b'two'] and not list(tmp_path.glob('.*.tmp'))

def test_a_save_keeps_a_change_made_in_place_meanwhile(tmp_path, monkeypatch):
    "Dialog.save: another program's in-place save landing after save's check is a conflict, not overwritten"
    d = Dialog('d'); d.mk_message('x = 1'); p = d.save(tmp_path/'d.ipynb')
    other = read_ipynb(p); other.mk_message('theirs'); theirs = write_ipynb(other).encode()
    real = ipy._read_fd
    n = [0]
    def read_then_write(fd, path):
        res = real(fd, path); n[0] += 1
        if n[0]==1: Path(path).write_bytes(theirs) # right after save's check read the file
        return res
    monkeypatch.setattr(ipy, '_read_fd', read_then_write)
    d.mk_message('mine')
    with pytest.raises(DialogConflictError, match='changed on disk'): d.save()
    assert Path(p).read_bytes()==theirs

@pytest.mark.skipif(not hasattr(__import__('socket'), 'AF_UNIX'), reason='no Unix sockets here')
@pytest.mark.parametrize('root', [False, True])
def test_a_socket_is_refused_as_no_regular_file(tmp_path, root):
    "A Unix socket named `.ipynb` (which can't be opened at all) is refused as a named pipe is, not as a missing device"
    import socket, stat
    p = tmp_path/'s.ipynb'
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(p))
        assert stat.S_ISSOCK(os.lstat(p).st_mode)
        with pytest.raises(DialogFormatError, match='not a regular file: a dialog is a .ipynb file'):
            read_ipynb(p, root=tmp_path if root else None)
    assert open_nowait(p) is None
    with pytest.raises(FileNotFoundError): open_nowait(tmp_path/'nothing.ipynb')  # what isn't there is no socket

@pytest.mark.parametrize('root', [False, True])
def test_a_missing_file_is_named_as_asked(tmp_path, root):
    "A dangling link, a missing file or folder: the error names the path asked for, with a root as without one"
    (tmp_path/'f').mkdir()
    (tmp_path/'f'/'d.ipynb').symlink_to(tmp_path/'nowhere.ipynb')
    for p in (tmp_path/'f'/'d.ipynb', tmp_path/'f'/'none.ipynb', tmp_path/'g'/'none.ipynb'):
        with pytest.raises(FileNotFoundError) as e: read_ipynb(p, root=tmp_path if root else None)
        assert e.value.filename==str(p)

@pytest.mark.parametrize('nm', ['a\nb', 'x\x1b[2J\x1b[31mEVIL', 'r\u202eevil'])
@pytest.mark.parametrize('how', ['changed', 'deleted', 'foreign'])
def test_conflict_names_the_file_as_format_errors_do(tmp_path, nm, how):
    "A file's name with a line break, a terminal escape or a bidi control is quoted (`shown_name`), as `DialogFormatError` quotes it"
    f = tmp_path/f'{nm}.ipynb'
    d = Dialog('d', [Message('x', msg_type=snote)]); d.save(f)
    if how=='changed': f.write_text(f.read_text().replace('"x"', '"y"'))
    elif how=='deleted': f.unlink()
    else: d = Dialog('other')
    with pytest.raises(DialogConflictError) as ei: d.save(f)
    msg = str(ei.value)
    assert msg.isprintable() and msg.startswith(repr(str(f))+' ')
    assert str(DialogFormatError('bad', f)).startswith(repr(str(f)))  # the same rule

def test_parts_dialog_is_not_saved_over_its_file(tmp_path):
    "The dialog `read_ipynb_parts` gives holds no messages: `save` refuses it (it wrote a notebook of none over the file); the dialog its parts make saves as `read_ipynb`'s"
    import pickle
    from dialog.pool import DialogParts, _pack, _unpack
    f = tmp_path/'a.ipynb'
    Dialog('a', [Message('keep me', msg_type=snote), Message('1+1')]).save(f)
    raw = f.read_bytes()
    dlg,states = read_ipynb_parts(f)
    assert (dlg.path, dlg.disk_digest) == (f, file_digest(f))  # it still says which file it is
    dlg.meta['tag'] = 'x'
    for d in (dlg, pickle.loads(pickle.dumps(dlg))):
        for kw in ({}, dict(force=True), dict(fname=tmp_path/'b.ipynb')):
            with pytest.raises(ValueError, match='without its messages'): d.save(**kw)
    assert f.read_bytes()==raw and not (tmp_path/'b.ipynb').exists()
    for made in (lambda: DialogParts(*read_ipynb_parts(f)).dialog(), lambda: _unpack(_pack(DialogParts(*read_ipynb_parts(f))))):
        whole,want = made(),read_ipynb(f)
        assert (whole.parts_only, whole.path, whole.disk_digest, vars(whole).keys()) == (False, f, want.disk_digest, vars(want).keys())
        whole.mk_message('more', msg_type=snote); whole.save()
        assert [m.content for m in read_ipynb(f).messages][-1] == 'more'

@pytest.mark.parametrize('nm', ['a\nb', 'x\x1b[2J\x1b[31mEVIL', 'r\u202eevil'])
def test_every_conflict_names_the_file_quoted(tmp_path, nm):
    "A thread's save, the run's saving and the thread store built their own conflict messages with the name raw (a line break, a terminal escape, a bidi control): each names it as `Dialog.save` does"
    from dialog.thread import Thread
    f = tmp_path/f'{nm}.ipynb'
    import dialog.thread_sync  # Thread.save
    t = Thread(title='x'); t.save(f)
    f.write_text(f.read_text().replace('"nbformat_minor": 5', '"nbformat_minor": 4'))  # another program saved it
    with pytest.raises(DialogConflictError) as ei: t.save()
    assert str(ei.value).isprintable() and repr(str(f)) in str(ei.value)
    from dialog import run, threadstore
    import inspect
    for mod in (run, threadstore):  # (their messages name the file through `DialogConflictError`'s own rule, or `shown_name`)
        src = inspect.getsource(mod)
        assert not re.search(r"DialogConflictError\(f'\{(self\.path|p)\}", src) and 'its file {p}' not in src

def test_parts_dialog_save_refusal_names_where_its_parts_came_from(tmp_path):
    "save's refusal of a parts-only dialog names the file its parts were read from, or says they came from cells: never None, nor the file asked to write"
    dlg,_ = Dialog.from_cells([dict(cell_type='markdown', id='a', metadata={}, source='x')], parts=True)
    for kw in ({}, dict(fname=tmp_path/'new.ipynb')):
        with pytest.raises(ValueError) as ei: dlg.save(**kw)
        msg = str(ei.value)
        assert 'Dialog.from_cells(parts=True)' in msg and 'None' not in msg and 'new.ipynb' not in msg and 'read_ipynb_parts' not in msg, msg
    f = tmp_path/'src.ipynb'
    Dialog('src', [Message('x', msg_type=snote)]).save(f)
    with pytest.raises(ValueError) as ei: read_ipynb_parts(f)[0].save(tmp_path/'new.ipynb')
    assert f'the part of {f} read_ipynb_parts gives' in str(ei.value) and 'new.ipynb' not in str(ei.value)
    assert not (tmp_path/'new.ipynb').exists()

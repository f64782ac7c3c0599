"Confinement under races: a folder swapped for a symlink between a tool's check of a path and its write (or read) never lets a byte out of the root, nor one in from outside"
import os, threading, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.ipynb as di
import dialog.skill as sk

def _roots(tmp_path):
    root,away = tmp_path/'root',tmp_path/'away'
    (root/'sub').mkdir(parents=True); away.mkdir()
    Dialog('s', [Message('x = 1', id='m0')]).save(root/'sub'/'d.ipynb')
    Dialog('o', [Message('secret', id='m0')]).save(away/'d.ipynb')
    return root,away

def _swap(root, away):
    "The folder `sub` swapped for a symlink out of the root (the real one kept as `old`)"
    os.rename(root/'sub', root/'old'); os.symlink(away, root/'sub')

def _after_check(monkeypatch, f):
    "Run `f()` once, right after the tool's path check (`_confine`) and before any file is opened"
    real,done = sk._confine,[]
    def hooked(*a, **kw):
        res = real(*a, **kw)
        if not done: done.append(1); f()
        return res
    monkeypatch.setattr(sk, '_confine', hooked)

def _files(p): return sorted(str(q.relative_to(p)) for q in Path(p).rglob('*'))

@pytest.mark.parametrize('name,args', [
    ('create_dlg', dict(fname='sub/new', content='pwned')),
    ('add_msg', dict(content='pwned', dlg='sub/d.ipynb')),
    ('msg_str_replace', dict(id='m0', old_str='secret', new_str='pwned', dlg='sub/d.ipynb')),
])
def test_a_folder_swapped_after_the_check_is_never_written_through(tmp_path, monkeypatch, name, args):
    root,away = _roots(tmp_path)
    before = (away/'d.ipynb').read_bytes()
    _after_check(monkeypatch, lambda: _swap(root, away))
    txt,err = sk.call_tool(name, args, root=root)
    assert err and txt.startswith('PermissionError') and 'root' in txt, txt
    assert _files(away)==['d.ipynb'] and (away/'d.ipynb').read_bytes()==before  # nothing created or changed outside

@pytest.mark.parametrize('name,args', [('summary_dlg', dict(dlg='sub/d.ipynb')), ('view_msg', dict(id='m0', dlg='sub/d.ipynb'))])
def test_a_folder_swapped_after_the_check_is_never_read_through(tmp_path, monkeypatch, name, args):
    root,away = _roots(tmp_path)
    sk._cache.clear()
    _after_check(monkeypatch, lambda: _swap(root, away))
    txt,err = sk.call_tool(name, args, root=root)
    assert err and 'secret' not in txt and txt.startswith('PermissionError'), txt

def test_a_file_swapped_for_a_symlink_out_is_not_followed(tmp_path, monkeypatch):
    root,away = _roots(tmp_path)
    def swap_file():
        os.rename(root/'sub'/'d.ipynb', root/'sub'/'was.ipynb'); os.symlink(away/'d.ipynb', root/'sub'/'d.ipynb')
    _after_check(monkeypatch, swap_file)
    txt,err = sk.call_tool('view_msg', dict(id='m0', dlg='sub/d.ipynb'), root=root)
    assert err and 'secret' not in txt, txt

def test_a_folder_swapped_after_it_was_opened_changes_nothing(tmp_path, monkeypatch):
    "Between the temp file's writing and its rename: the descriptor holds the folder itself, so the file lands in it (now `old`, inside the root), never outside"
    root,away = _roots(tmp_path)
    real = os.replace
    def swapping_replace(*a, **kw):
        if not (root/'old').exists(): _swap(root, away)
        return real(*a, **kw)
    monkeypatch.setattr(os, 'replace', swapping_replace)
    txt,err = sk.call_tool('create_dlg', dict(fname='sub/new', content='hi'), root=root)
    assert not err, txt
    assert _files(away)==['d.ipynb'] and (root/'old'/'new.ipynb').exists()

def test_a_thread_swapping_a_folder_in_a_loop_never_lets_a_write_out(tmp_path):
    root,away = _roots(tmp_path)
    stop = threading.Event()
    def swapper():
        while not stop.is_set():
            try:
                os.rename(root/'sub', root/'real'); os.symlink(away, root/'sub')
                os.unlink(root/'sub'); os.rename(root/'real', root/'sub')
            except OSError: pass
    t = threading.Thread(target=swapper); t.start()
    try:
        res = [sk.call_tool('create_dlg', dict(fname=f'sub/n{i}', content='hi'), root=root) for i in range(300)]
        res += [sk.call_tool('add_msg', dict(content=f'a{i}', dlg='sub/d.ipynb'), root=root) for i in range(300)]
    finally: stop.set(); t.join()
    assert _files(away)==['d.ipynb'] and read_ipynb(away/'d.ipynb')['m0'].content=='secret'
    assert any(not e for _,e in res)  # some calls went through between swaps (the race was run, not avoided)
    assert all(t.startswith(('PermissionError', 'FileNotFoundError', 'NotADirectoryError')) or not e for t,e in res), {t for t,e in res if e}

def test_without_a_root_nothing_changes(tmp_path):
    "An ordinary caller's path leads where it leads: a symlinked folder is written through, as before"
    root,away = _roots(tmp_path)
    os.symlink(away, tmp_path/'link')
    d = read_ipynb(tmp_path/'link'/'d.ipynb'); d.mk_message('more'); d.save()
    assert len(read_ipynb(away/'d.ipynb'))==2

# --- the root itself swapped after the server started

def _root_and_outside(tmp_path):
    root,out = tmp_path/'root',tmp_path/'outside'
    root.mkdir(); out.mkdir()
    Dialog('d', [Message('inside', id='m')]).save(root/'d.ipynb'); Dialog('d', [Message('secret', id='m')]).save(out/'d.ipynb')
    return root,out

@pytest.mark.parametrize('name,args', [('summary_dlg', dict(dlg='d.ipynb')), ('add_msg', dict(content='pwned', dlg='d.ipynb')),
                                       ('create_dlg', dict(fname='new', content='pwned'))])
def test_a_root_swapped_for_a_symlink_after_start_is_refused(tmp_path, name, args):
    "The root is fixed when the server starts (`Root`: its identity checked before and after each call): once the path leads to another folder, every call is refused, nothing read or written there"
    root,out = _root_and_outside(tmp_path)
    r = sk.Root(root)
    assert sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=r)==('m:code: inside', False)
    before = _files(out), (out/'d.ipynb').read_bytes()
    os.rename(root, tmp_path/'root.old'); os.symlink(out, root)
    txt,err = sk.call_tool(name, args, root=r)
    assert err and txt.startswith('PermissionError: the root folder') and 'secret' not in txt, txt
    assert (_files(out), (out/'d.ipynb').read_bytes())==before

def test_the_pools_workers_check_the_root_the_server_started_on(tmp_path):
    "A worker started after the swap still compares against the identity recorded at start"
    root,out = _root_and_outside(tmp_path)
    with sk.ToolPool(root, timeout=20) as pool:
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))==('m:code: inside', False)
        pool.close()  # no idle worker left: the next call starts a fresh one
        os.rename(root, tmp_path/'root.old'); os.symlink(out, root)
        txt,err = pool.call('add_msg', dict(content='pwned', dlg='d.ipynb'))
    assert err and 'no longer the folder this server was started on' in txt
    assert read_ipynb(out/'d.ipynb').messages.attrgot('content')==['secret']

def test_a_root_swapped_during_a_read_withholds_the_answer(tmp_path, monkeypatch):
    root,out = _root_and_outside(tmp_path)
    r,real = sk.Root(root),sk._view
    def swapping(dlg=None):
        os.rename(root, tmp_path/'root.old'); os.symlink(out, root)
        return real(dlg)
    monkeypatch.setattr(sk, '_view', swapping)
    txt,err = sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=r)
    assert err and 'the answer is withheld' in txt and 'secret' not in txt and 'inside' not in txt, txt

def test_the_same_folder_reached_another_way_is_still_the_root(tmp_path):
    "Only the folder's identity counts: the root moved and a symlink to it put in its place is the same folder"
    root,_ = _root_and_outside(tmp_path)
    r = sk.Root(root)
    os.rename(root, tmp_path/'moved'); os.symlink(tmp_path/'moved', root)
    assert sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=r)==('m:code: inside', False)

@pytest.mark.parametrize('name', ['.', '', './', 'ROOT'])
def test_the_root_folder_itself_is_no_dialog(tmp_path, name):
    "A dialog named as the root folder itself was refused as \"outside the root\" (`ipynb_path` made it the file beside it): the reason now says what it is"
    d = Dialog('d'); d.mk_message('x', id='m0'); d.save(tmp_path/'d.ipynb')
    txt,err = sk.call_tool('summary_dlg', dict(dlg=str(tmp_path) if name=='ROOT' else name), root=sk.Root(tmp_path))
    assert err and 'names the root folder itself' in txt and 'outside' not in txt

def test_a_link_to_the_root_names_a_dialog_beside_it(tmp_path):
    "A link to the root inside it (`here -> .`) names the dialog `here.ipynb`, as any other name does: the check for the root itself is of the name as given"
    (tmp_path/'here').symlink_to('.')
    txt,err = sk.call_tool('create_dlg', dict(fname='here'), root=sk.Root(tmp_path))
    assert not err and (tmp_path/'here.ipynb').is_file()

@pytest.mark.parametrize('dlg', ['nope.ipynb', 'sub/nope.ipynb', 'sub/../nope.ipynb'])
def test_a_missing_file_is_named_as_the_client_knows_it_not_by_the_servers_folders(tmp_path, monkeypatch, dlg):
    "A file under the root that isn't there is named relative to the root, as the client named it: the server's own folders stay its own"
    monkeypatch.chdir(tmp_path)
    (tmp_path/'sub').mkdir()
    txt,err = sk.call_tool('summary_dlg', dict(dlg=dlg), root='.')
    assert err and txt.startswith('FileNotFoundError: ') and str(tmp_path) not in txt
    assert txt.endswith(repr(os.path.normpath(dlg)))
    txt,err = sk.call_tool('summary_dlg', dict(dlg=str(tmp_path/dlg)))  # no root: the name as given
    assert err and txt.endswith(repr(os.path.normpath(str(tmp_path/dlg))))

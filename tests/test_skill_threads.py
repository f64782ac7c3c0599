"Per-call state: the root, the current dialog and message and the paste buffer are each call's (context variables) or each client's (a `Session`), never module state shared between threads"
import threading
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

@pytest.fixture(autouse=True)
def _fresh_state():
    old = dict(vars(sk._user))
    yield
    vars(sk._user).update(old)

def _mk(root):
    root.mkdir()
    Dialog('d', [Message('x = 1', id='m0')]).save(root/'d.ipynb')
    return root

def _lockstep(monkeypatch):
    "Every call's path check waits for the other thread's: both calls are under way, each with its root set, before either looks at a path"
    bar,real = threading.Barrier(2, timeout=10),sk._confine
    def waiting(*a, **kw):
        try: bar.wait()
        except threading.BrokenBarrierError: pass
        return real(*a, **kw)
    monkeypatch.setattr(sk, '_confine', waiting)
    return bar

def test_two_threads_two_roots_every_edit_lands_in_its_own_root(tmp_path, monkeypatch):
    roots = [_mk(tmp_path/'a'), _mk(tmp_path/'b')]
    bar,n,errs = _lockstep(monkeypatch),60,[]
    def client(k):
        for i in range(n):
            txt,err = sk.call_tool('add_msg', dict(content=f'from {k} {i}', dlg='d.ipynb'), root=roots[k])
            if err: errs.append(txt)
    ts = [threading.Thread(target=client, args=(k,)) for k in (0, 1)]
    for t in ts: t.start()
    for t in ts: t.join(60)
    bar.abort()
    assert not errs, errs[:3]
    for k,r in enumerate(roots):
        got = [m.content for m in read_ipynb(r/'d.ipynb').messages[1:]]
        assert got==[f'from {k} {i}' for i in range(n)], (k, got[:5])

def test_sessions_keep_their_own_paste_buffer_and_current_dialog(tmp_path, monkeypatch):
    roots = [_mk(tmp_path/'a'), _mk(tmp_path/'b')]
    for k,r in enumerate(roots): sk.add_msg(f'only in {k}', id=f'own{k}', dlg=r/'d.ipynb')
    sess,bar,users = [sk.Session(), sk.Session()],_lockstep(monkeypatch),sk._user.buf
    def client(k):
        for i in range(20):
            sk.call_tool('copy_msgs', dict(ids=f'own{k}', dlg='d.ipynb'), root=roots[k], session=sess[k])
            sk.call_tool('paste_msgs', dict(dlg='d.ipynb'), root=roots[k], session=sess[k])
    ts = [threading.Thread(target=client, args=(k,)) for k in (0, 1)]
    for t in ts: t.start()
    for t in ts: t.join(60)
    bar.abort()
    for k,r in enumerate(roots):
        pasted = [m.content for m in read_ipynb(r/'d.ipynb').messages[2:]]
        assert pasted==[f'only in {k}']*20, (k, set(pasted))
        assert [m.id for m in sess[k].buf]==[f'own{k}']
    assert sk._user.buf is users  # the Python user's buffer untouched

def test_a_python_users_current_dialog_is_untouched_by_calls_in_other_threads(tmp_path):
    a,b = _mk(tmp_path/'a'),_mk(tmp_path/'b')
    sk.set_dlg(a/'d.ipynb'); sk.set_cur_msg('m0')
    t = threading.Thread(target=lambda: [sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=b, session=sk.Session()) for _ in range(20)])
    t.start(); t.join(30)
    assert sk.cur_dlg().path==(a/'d.ipynb').resolve() and sk.cur_msg().id=='m0'
    assert sk._root.get() is None
    sk.add_msg('here')
    assert read_ipynb(a/'d.ipynb').messages[1].content=='here' and len(read_ipynb(b/'d.ipynb'))==1

def test_the_root_is_the_calls_alone_even_when_the_call_fails(tmp_path):
    a = _mk(tmp_path/'a')
    txt,err = sk.call_tool('view_msg', dict(id='nope', dlg='d.ipynb'), root=a)
    assert err and sk._root.get() is None and sk._session.get() is None

def test_probing_a_budget_loses_no_other_threads_warning(tmp_path, monkeypatch):
    "r14: `_fit`'s probes (a budget too small, on a file read healed) warn nobody, and change no process-wide warning filter: a warning another thread gives meanwhile is seen; the call's own note warns once"
    import json, warnings
    cells = [dict(cell_type='code', id='same', metadata={}, source=s, outputs=[], execution_count=None) for s in ('a = 1', 'b = 2')]
    p = tmp_path/'dup.ipynb'; p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells)))
    real,reads = sk._view,[]
    def view(*a, **kw): # each read after the call's first is a probe's: another thread warns while it runs
        reads.append(1)
        if len(reads)>1:
            t = threading.Thread(target=lambda: warnings.warn(f'other thread {len(reads)}', UserWarning)); t.start(); t.join()
        return real(*a, **kw)
    monkeypatch.setattr(sk, '_view', view)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        with pytest.raises(ValueError, match='too small for this page'): sk.summary_dlg(dlg=str(p), maxchars=5)
    said = [str(w.message) for w in ws]
    assert len(reads)>2 and [s for s in said if s.startswith('other thread')] == [f'other thread {k}' for k in range(2, len(reads)+1)], said
    assert sum(s.startswith('note: ') for s in said) == 1, said  # the call's own read, not the probes'

def test_only_a_copy_or_cut_sets_the_servers_paste_buffer(tmp_path):
    "The server's workers handed back the buffer after every buffer tool: a paste (or a copy refused) that ended after a cut put its stale copy back over the cut's, and the cut messages were in no file and no buffer. A call hands the buffer back only when it set it"
    d = Dialog('d'); d.mk_message('old', id='old'); d.mk_message('cut me', id='cutme'); d.save(tmp_path/'d.ipynb')
    with sk.ToolPool(tmp_path, timeout=60, workers=1) as pool:
        assert pool.call('copy_msgs', dict(ids='old', dlg='d.ipynb'))[1] is False
        held = pool.buf
        assert [m.id for m in held]==['old']
        for name,args in (('paste_msgs', dict(dlg='d.ipynb')), ('copy_msgs', dict(ids='nowhere', dlg='d.ipynb')),
                          ('cut_msgs', dict(ids='nowhere', dlg='d.ipynb'))):
            pool.call(name, args)
            assert pool.buf is held, name  # the very list the copy set: nothing handed back to put over another's
        assert pool.call('cut_msgs', dict(ids='cutme', dlg='d.ipynb'))[1] is False
        assert [m.content for m in pool.buf]==['cut me']

_failed_cut = r'''
import os, sys, signal, resource
from dialog.core import Dialog
from dialog.ipynb import read_ipynb
import dialog.skill as sk
root,how = sys.argv[1:]
p = os.path.join(root, 'a.ipynb')
d = Dialog('a'); d.mk_message('precious X ' * 50, id='xxx'); d.mk_message('Y text', id='yyy'); d.save(p)
pool = sk.ToolPool(root, timeout=60, workers=1) if how=='pool' else None
s = sk.Session()
call = pool.call if pool else lambda n,a: sk.call_tool(n, a, root, s)
assert call('cut_msgs', dict(dlg='a', ids='xxx'))[1] is False
if pool: pool.close()  # (the next call's worker starts under the limit below)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))  # every save fails: EFBIG
txt,err = call('cut_msgs', dict(dlg='a', ids='yyy'))
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
assert err and 'File too large' in txt, txt
if pool: pool.close()
assert call('paste_msgs', dict(dlg='a'))[1] is False
print([m.content[:10] for m in read_ipynb(p).messages])
'''

@pytest.mark.parametrize('how', ['session', 'pool'])
def test_a_cut_whose_save_fails_leaves_the_buffer_as_it_was(tmp_path, how):
    "r33a: a cut whose save failed (here every write past 64 bytes fails, as on a full disk) still replaced the buffer, so an earlier cut's messages, gone from the file, were lost: the paste pasted the failed cut's. The buffer it replaced goes back, in the server's worker too"
    import subprocess, sys
    r = subprocess.run([sys.executable, '-c', _failed_cut, str(tmp_path), how], capture_output=True, text=True, timeout=120)
    assert r.returncode==0, r.stderr
    assert r.stdout.strip()=="['Y text', 'precious X']", r.stdout

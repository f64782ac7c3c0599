"dialog.ipynb's DialogCache: a read from the cache is read_ipynb's dialog, the caller's own, and never stale (signature, racy rule, bounds, threads)."
import json, os, pickle, threading, time
from pathlib import Path
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
import dialog.ipynb as di
from dialog.core import *
from dialog.ipynb import *
from shared_paths import corpus_params

def mk(path, txts, **kw):
    "A dialog file at `path` with one note per text in `txts`"
    d = Dialog(Path(path).stem)
    for t in txts: d.mk_message(t, msg_type=snote, **kw)
    d.save(path, force=True)
    return path

def same(a, b):
    "Do dialogs `a` and `b` hold the same things, as read_ipynb gives them?"
    assert write_ipynb(a)==write_ipynb(b)
    assert (type(a), a.name, a.path, a._seen, a.meta, a.ids_derived) == (type(b), b.name, b.path, b._seen, b.meta, b.ids_derived)
    for x,y in zip(a.messages, b.messages, strict=True):
        assert (type(x), x.dlg is a, y.dlg is b) == (type(y), True, True)
        assert {k:v for k,v in vars(x).items() if k!='_dlg'} == {k:v for k,v in vars(y).items() if k!='_dlg'}

def ahead_clock(monkeypatch):
    "A clock 10 s ahead, so every file looks settled: hits then trust the signature alone"
    class Clock:
        def __getattr__(self, k): return getattr(time, k)
        def time_ns(self): return time.time_ns()+10_000_000_000
    monkeypatch.setattr(di, 'time', Clock())

@pytest.fixture
def settled(monkeypatch): ahead_clock(monkeypatch)

def count_calls(monkeypatch, name):
    "Count calls of dialog.ipynb's function `name`"
    n,f = [0],getattr(di, name)
    def g(*a, **kw): n[0] += 1; return f(*a, **kw)
    monkeypatch.setattr(di, name, g)
    return n

corpus_files = corpus_params('**/*.ipynb')

@pytest.mark.parametrize('f', corpus_files, ids=lambda f: f.name)
def test_cache_reads_what_read_ipynb_reads(f):
    "On every corpus notebook that reads: first and later reads from the cache are read_ipynb's dialog"
    try: want = read_ipynb(f)
    except DialogFormatError as e:
        with pytest.raises(DialogFormatError) as e2: DialogCache().read(f)
        assert str(e2.value)==str(e); return
    c = DialogCache()
    for _ in range(3): same(c.read(f), want)
    assert (c.misses, c.hits) == (1, 2)

def test_a_read_is_the_callers_own(tmp_path):
    "Changing a dialog the cache gave (attributes, output dicts and metadata in place, the message list) never reaches a later read"
    p = tmp_path/'a.ipynb'
    d = Dialog('a'); d.mk_message('x=1', output=[dict(output_type='stream', name='stdout', text='1\n')], meta={'k': [1]}); d.mk_message('note', msg_type=snote)
    d.save(p)
    c = DialogCache()
    want = write_ipynb(c.read(p))
    a = c.read(p)
    m = a.messages[0]
    m.output[0]['text'] = 'changed'; m.meta['k'].append(2); m.content = 'y'; a.meta['x'] = 1; a.messages.pop()
    b = c.read(p)
    assert write_ipynb(b)==want and b.messages[0].output is not m.output
    assert c.hits==2

def test_changes_on_disk_are_read(tmp_path):
    "A save, an in-place write of the same size, and a file swapped in by rename are each read at once"
    p = mk(tmp_path/'a.ipynb', ['aaaa'])
    c = DialogCache()
    assert c.read(p).messages[0].content=='aaaa'
    mk(p, ['bbbb']); assert c.read(p).messages[0].content=='bbbb'
    p.write_bytes(p.read_bytes().replace(b'bbbb', b'cccc')); assert c.read(p).messages[0].content=='cccc'
    q = mk(tmp_path/'b.ipynb', ['dddd']); os.replace(q, p); assert c.read(p).messages[0].content=='dddd'
    p.unlink()
    with pytest.raises(FileNotFoundError): c.read(p)

def test_a_settled_file_is_not_read_again(tmp_path, monkeypatch, settled):
    "Once settled, an unchanged file is neither read nor parsed: its signature is enough"
    p = mk(tmp_path/'a.ipynb', ['x'])
    c = DialogCache()
    c.read(p)
    reads,parses = count_calls(monkeypatch, '_read_file'),count_calls(monkeypatch, '_reads')
    for _ in range(3): assert c.read(p).messages[0].content=='x'
    assert (reads[0], parses[0], c.hits) == (0, 0, 3)

def test_a_racy_file_is_compared_not_parsed(tmp_path, monkeypatch):
    "A file changed less than racy_ns ago is read again and compared by digest on each hit, but not parsed again"
    p = mk(tmp_path/'a.ipynb', ['x'])
    c = DialogCache()
    c.read(p)
    reads,parses = count_calls(monkeypatch, '_read_file'),count_calls(monkeypatch, '_reads')
    c.read(p); c.read(p)
    assert (reads[0], parses[0], c.hits) == (2, 0, 2)

def test_restored_mtime_is_caught_by_ctime(tmp_path, settled):
    "A same-size write in place whose mtime is then set back (as `cp -p`, `rsync -t` or `touch -d` do) changes ctime: read again"
    p = mk(tmp_path/'a.ipynb', ['aaaa'])
    c = DialogCache()
    st0 = os.stat(p)
    c.read(p)
    time.sleep(0.01)
    p.write_bytes(p.read_bytes().replace(b'aaaa', b'bbbb'))
    os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns))
    st1 = os.stat(p)
    assert (st1.st_ino, st1.st_size, st1.st_mtime_ns) == (st0.st_ino, st0.st_size, st0.st_mtime_ns)  # what (inode, size, mtime) alone would see
    assert c.read(p).messages[0].content=='bbbb'

def coarse(monkeypatch):
    "File times of a file system whose clock ticks once a second (as FAT's every two): writes in one tick look alike"
    sec = 1_000_000_000
    monkeypatch.setattr(di, '_st_sig', lambda st: (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns//sec*sec, st.st_ctime_ns//sec*sec))

def rewrite_in_tick(p, old, new):
    "Write `new` over `old` in `p`, in place, within the clock tick of its last write: True if that held"
    s0 = di.file_sig(p)
    p.write_bytes(p.read_bytes().replace(old, new))
    return di.file_sig(p)==s0

def test_racy_rule_catches_a_write_in_the_same_tick(tmp_path, monkeypatch):
    "Two same-size writes in one clock tick give one signature: the racy rule still reads the second"
    coarse(monkeypatch)
    for i in range(20):
        p = mk(tmp_path/f'a{i}.ipynb', ['aaaa'])
        c = DialogCache()
        assert c.read(p).messages[0].content=='aaaa'
        if rewrite_in_tick(p, b'aaaa', b'bbbb'): break
    else: pytest.skip('never wrote twice in one tick')
    assert c.read(p).messages[0].content=='bbbb'

def test_without_the_racy_rule_the_same_tick_write_is_missed(tmp_path, monkeypatch):
    "The scenario above is real: trusting the signature at once (racy_ns=0) serves the stale dialog, which is why the rule exists"
    coarse(monkeypatch)
    monkeypatch.setattr(di, 'racy_ns', -2_000_000_000)  # even a file changed 'in the future' of a one-second tick counts as settled
    for i in range(20):
        p = mk(tmp_path/f'a{i}.ipynb', ['aaaa'])
        c = DialogCache()
        c.read(p)
        if rewrite_in_tick(p, b'aaaa', b'bbbb'): break
    else: pytest.skip('never wrote twice in one tick')
    assert c.read(p).messages[0].content=='aaaa'

def test_bounds(tmp_path):
    "At most maxsize dialogs and maxbytes bytes are kept, the least recently read going first; a dialog bigger than maxbytes is read, not kept"
    ps = [mk(tmp_path/f'{i}.ipynb', [str(i)*100]) for i in range(4)]
    c = DialogCache(maxsize=2)
    for p in ps: c.read(p)
    c.read(ps[2])
    c.read(ps[0])
    assert len(c)==2 and {k[0] for k in c._d}=={ps[2], ps[0]}
    small = DialogCache(maxbytes=100)
    assert small.read(ps[0]).messages[0].content=='0'*100 and len(small)==0
    c.clear(); assert len(c)==0 and c._n==0

def test_keys_are_file_class_and_name(tmp_path):
    "A dialog class or a name asked for is part of the key: each read gets what it asked for"
    class Sub(Dialog): pass
    di.Sub = Sub; Sub.__module__,Sub.__qualname__ = di.__name__,'Sub'  # importable, so it pickles
    try:
        p = mk(tmp_path/'a.ipynb', ['x'])
        c = DialogCache()
        assert type(c.read(p)) is Dialog and type(c.read(p, cls=Sub)) is Sub and c.read(p, name='other').name=='other'
        assert type(c.read(p, cls=Sub)) is Sub and c.hits==1
    finally: del di.Sub

def test_unpicklable_class_is_read_not_kept(tmp_path):
    "A dialog class pickle can't find (defined in a function) is read as read_ipynb reads it, and not kept"
    class Local(Dialog): pass
    p = mk(tmp_path/'a.ipynb', ['x'])
    c = DialogCache()
    assert type(c.read(p, cls=Local)) is Local and len(c)==0

def test_fifo_is_refused_without_blocking(tmp_path):
    "A FIFO named *.ipynb is refused at once, cached entry or not"
    p = mk(tmp_path/'a.ipynb', ['x'])
    c = DialogCache(); c.read(p)
    p.unlink(); os.mkfifo(p)
    res = []
    t = threading.Thread(target=lambda: res.append(pytest.raises(ValueError, c.read, p)), daemon=True); t.start(); t.join(5)
    assert res and 'not a regular file' in str(res[0].value)

def test_symlink_retargeted(tmp_path):
    "A link read through the cache, pointed at another file, reads that file"
    a,b = mk(tmp_path/'a.ipynb', ['a']),mk(tmp_path/'b.ipynb', ['b'])
    l = tmp_path/'l.ipynb'; l.symlink_to(a)
    c = DialogCache()
    assert c.read(l).messages[0].content=='a'
    l.unlink(); l.symlink_to(b)
    assert c.read(l).messages[0].content=='b'

def test_threads_never_see_a_torn_or_stale_dialog(tmp_path):
    "Threads reading through one cache while another saves: each read is some saved version, and after the last save every read is it"
    p = mk(tmp_path/'a.ipynb', ['v0'])
    c,errs,seen = DialogCache(),[],set()
    versions = {f'v{i}' for i in range(40)}
    stop = threading.Event()
    def reader():
        try:
            while not stop.is_set():
                d = c.read(p)
                assert len(d.messages)==1 and d.messages[0].content in versions
                seen.add(d.messages[0].content)
        except Exception as e: errs.append(e)
    ts = [threading.Thread(target=reader) for _ in range(6)]
    for t in ts: t.start()
    for i in range(1, 40):
        d = read_ipynb(p); d.messages[0].content = f'v{i}'; d.save()
    stop.set()
    for t in ts: t.join()
    assert not errs, errs[:1]
    assert c.read(p).messages[0].content=='v39' and len(seen)>1

contents = st.text(st.characters(codec='utf-8', categories=('L', 'N', 'P', 'Zs')), min_size=1, max_size=6)

@pytest.mark.parametrize('ahead', [False, True], ids=['real clock', 'all settled'])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.tuples(st.sampled_from(['save', 'inplace', 'utime', 'touch', 'read']), contents), min_size=1, max_size=12))
def test_cache_agrees_with_read_ipynb(tmp_path_factory, ahead, ops):
    "After any sequence of saves, same-size writes in place, mtimes set back and touches, a read through the cache is what read_ipynb reads (with the real clock, racy entries are compared; with every file settled, the signature alone must see each change)"
    p = mk(tmp_path_factory.mktemp('c')/'a.ipynb', ['x'*6])
    c = DialogCache()
    with pytest.MonkeyPatch.context() as mp:
        if ahead: ahead_clock(mp)
        run_ops(p, c, ops)

def run_ops(p, c, ops):
    for op,txt in ops:
        txt = (txt*6)[:6].ljust(6, 'z')
        if op=='save': d = read_ipynb(p); d.messages[0].content = txt; d.save()
        elif op=='inplace':
            st0 = os.stat(p); cur = read_ipynb(p).messages[0].content
            enc = lambda s: json.dumps(s, ensure_ascii=False)[1:-1].encode()  # as the file holds the text: a backslash doubled, say
            b = p.read_bytes().replace(enc(cur), enc(txt)) if len(enc(cur))==len(enc(txt)) else None
            if b is not None:
                with open(p, 'r+b') as f: f.write(b)
                os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns))
        elif op=='utime': st0 = os.stat(p); os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns-5_000_000_000))
        elif op=='touch': os.utime(p)
        same(c.read(p), read_ipynb(p))

def test_confined_read_refuses_what_read_ipynb_refuses_from_the_cache(tmp_path, monkeypatch):
    "A read under a root never gets from the cache a dialog `read_ipynb(root=...)` refuses: one read under no root, or a file moved out since"
    monkeypatch.setattr(di, 'racy_ns', 0)  # every entry settled at once: the fast path is the one tried
    root,out = tmp_path/'root',tmp_path/'outside'
    root.mkdir(); out.mkdir()
    mk(out/'s.ipynb', ['SECRET'])
    os.symlink(out/'s.ipynb', root/'link.ipynb')
    c = DialogCache()
    c.read(root/'link.ipynb'); c.read(root/'link.ipynb')  # under no root: read, then from the cache
    assert c.hits==1
    for _ in range(2):
        with pytest.raises(PermissionError, match='outside the root'): read_ipynb(root/'link.ipynb', root=root)
        with pytest.raises(PermissionError, match='outside the root'): c.read(root/'link.ipynb', root=root)
    # kept under the root, then its folder moved out and a symlink left in its place: the same file, unchanged
    (root/'sub').mkdir(); mk(root/'sub'/'a.ipynb', ['was inside'])
    same(c.read(root/'sub'/'a.ipynb', root=root), read_ipynb(root/'sub'/'a.ipynb', root=root))
    h = c.hits
    assert c.read(root/'sub'/'a.ipynb', root=root).messages[0].content=='was inside' and c.hits==h+1
    os.rename(root/'sub', out/'sub'); os.symlink(out/'sub', root/'sub')
    with pytest.raises(PermissionError, match='outside the root'): read_ipynb(root/'sub'/'a.ipynb', root=root)
    with pytest.raises(PermissionError, match='outside the root'): c.read(root/'sub'/'a.ipynb', root=root)

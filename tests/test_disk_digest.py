"A dialog's and a thread's digest of their file is the digest of the bytes they read or wrote, never of a second look at the file"
import asyncio, pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import Dialog, Message
from dialog.ipynb import read_ipynb, file_digest
from dialog.thread import Thread, Message as TMessage
from dialog.threadstore import DialogThreadStore
from dialog.ipynb import DialogConflictError

def _thread(tid='t1'):
    t = Thread(id=tid, title='a thread')
    t.add_message(TMessage(role='user', content='question'))
    t.add_message(TMessage(role='assistant', content='answer'))
    return t

def _other_program(p):
    "A person's edit, in place: the answer's text changed"
    p.write_text(p.read_text().replace('answer', 'an answer a person mended'))

@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=40), max_size=4))
def test_digest_of_a_read_and_a_save_is_file_digest(tmp_path, texts):
    "One rule: `disk_digest` after a save or a read is `file_digest` of the file as it is then"
    d = Dialog('d', [Message(s) for s in texts])
    p = d.save(tmp_path/'d.ipynb', force=True)
    assert d.disk_digest==file_digest(p)
    assert read_ipynb(p).disk_digest==file_digest(p)

def test_a_write_after_the_read_is_seen(tmp_path):
    "A write landing between the file's read and the thread made of it: the thread is of the bytes read, so the file changed"
    p = _thread().save(tmp_path/'t.ipynb')
    dlg = read_ipynb(p, Thread.dlg_cls)
    _other_program(p)
    t = Thread.from_dialog(dlg)
    assert t.changed_on_disk(p)
    assert t.digest_on_disk==dlg.disk_digest!=file_digest(p)

def test_thread_save_keeps_the_bytes_written(tmp_path):
    t = _thread()
    p = t.save(tmp_path/'t.ipynb')
    assert t.digest_on_disk==file_digest(p) and not t.changed_on_disk(p)
    _other_program(p)
    assert t.changed_on_disk(p)
    with pytest.raises(DialogConflictError): t.save()
    assert 'mended' in p.read_text()

def test_store_refuses_a_save_over_a_write_made_after_its_read(tmp_path, monkeypatch):
    "The store saves with force once its own check passes: the check must see a write that landed while it read the file"
    async def go():
        s = DialogThreadStore(tmp_path/'threads'); await s.initialize()
        await s.save(_thread())
        p = next((tmp_path/'threads').glob('*.ipynb'))
        real = Thread.from_dialog.__func__
        def late(cls, dlg):  # the person's write lands after the store read the bytes, before the thread is made
            _other_program(p)
            return real(cls, dlg)
        monkeypatch.setattr(Thread, 'from_dialog', classmethod(late))
        t = await s.get('t1')
        monkeypatch.undo()
        t.add_message(TMessage(role='user', content='more'))
        with pytest.raises(DialogConflictError): await s.save(t)
        assert 'mended' in p.read_text()
    asyncio.run(go())

@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=40), max_size=4))
def test_read_of_bytes_given_is_the_read_of_the_file(tmp_path, texts):
    "`read_ipynb(p, data=...)` of the file's bytes is `read_ipynb(p)`: messages, path and digest"
    p = Dialog('d', [Message(s) for s in texts]).save(tmp_path/'d.ipynb', force=True)
    a,b = read_ipynb(p),read_ipynb(p, data=p.read_bytes())
    assert (b.path, b.disk_digest, b.nb_text())==(a.path, a.disk_digest, a.nb_text())

def test_read_of_bytes_refuses_a_root_and_text(tmp_path):
    p = Dialog('d', [Message('x')]).save(tmp_path/'d.ipynb')
    with pytest.raises(ValueError, match='not both'): read_ipynb(p, data=p.read_bytes(), root=tmp_path)
    with pytest.raises(ValueError, match='must be the bytes'): read_ipynb(p, data=p.read_text())

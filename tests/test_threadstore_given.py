"A store checks a save against a record of the bytes it gave each thread object from, or wrote for it (issue 32, r32f): never against one digest per id, or the one file a thread remembers; checked again as the file is written; and listings, deletes and conflict messages that say what is so"
import asyncio, json, os, pytest, tempfile
from hypothesis import given, settings, strategies as st
from pathlib import Path
from dialog.thread import Thread, Message
from dialog.threadstore import DialogThreadStore
from dialog.ipynb import DialogConflictError, file_digest
from thread_cases import ticket_classes

def run(c): return asyncio.run(c)

FIX = 'It ships on Monday (corrected by a person)'
def mk(T=Thread, M=Message, tid='conv', system=False):
    t = T(id=tid)
    if system: t.add_message(M(role='system', content='be brief'))
    t.add_message(M(role='user', content='When?')); t.add_message(M(role='assistant', content='It ships on Friday'))
    return t

def correct(p):
    "A person's correction of the reply, in Jupyter"
    txt = p.read_text(); assert 'It ships on Friday' in txt
    p.write_text(txt.replace('It ships on Friday', FIX))

def add_note(p, note='a note the person saved'):
    nb = json.loads(p.read_text())
    nb['cells'].append({'cell_type': 'markdown', 'id': 'note0001', 'metadata': {}, 'source': note})
    p.write_text(json.dumps(nb, indent=1))

def kinds():
    "The thread classes a store gives: dialog's, and narrator's when installed"
    res = [(None, Thread, Message)]
    try: import narrator; res.append((narrator.Thread, narrator.Thread, narrator.Message))
    except ImportError: pass
    return res

@pytest.mark.parametrize('cls,T,M', kinds())
@pytest.mark.parametrize('call', ['list', 'list_recent', 'find_by_attributes', 'get'])
def test_a_later_answer_never_forgets_what_an_earlier_copy_was_got_from(tmp_path, cls, T, M, call):
    "A thread got, then a person's edit, then any answer handing out the same thread again: the first thread's save is refused, the edit stays"
    s = DialogThreadStore(tmp_path, thread_cls=cls)
    run(s.save(mk(T, M)))
    held = run(s.get('conv'))
    correct(tmp_path/'conv.ipynb')
    run(dict(list=lambda: s.list(), list_recent=lambda: s.list_recent(10), get=lambda: s.get('conv'),
             find_by_attributes=lambda: s.find_by_attributes({}))[call]())
    held.add_message(M(role='user', content='thanks'))
    with pytest.raises(DialogConflictError): run(s.save(held))
    assert FIX in (tmp_path/'conv.ipynb').read_text()

@pytest.mark.parametrize('cls,T,M', kinds())
def test_a_thread_got_through_one_store_object_is_checked_by_another(tmp_path, cls, T, M):
    "Got through one store object on the folder, saved through another (a store made per request): the person's edit between is a conflict"
    run(DialogThreadStore(tmp_path, thread_cls=cls).save(mk(T, M)))
    held = run(DialogThreadStore(tmp_path, thread_cls=cls).get('conv'))
    correct(tmp_path/'conv.ipynb')
    held.add_message(M(role='user', content='thanks'))
    with pytest.raises(DialogConflictError): run(DialogThreadStore(tmp_path, thread_cls=cls).save(held))
    assert FIX in (tmp_path/'conv.ipynb').read_text()

def test_a_thread_holding_a_system_message_is_checked(tmp_path):
    "A dialog `Thread` with a system message (saved as a copy without it), saved again after a person's edit: a conflict"
    s = DialogThreadStore(tmp_path); t = mk(system=True)
    run(s.save(t))
    correct(tmp_path/'conv.ipynb')
    t.add_message(Message(role='user', content='And of Italy?'))
    with pytest.raises(DialogConflictError): run(s.save(t))
    assert FIX in (tmp_path/'conv.ipynb').read_text()
    # got again, its next save goes through, and so do the ones after it
    g = run(s.get('conv')); g.messages.insert(0, Message(role='system', content='be brief'))
    for i in range(2): g.add_message(Message(role='user', content=f'q{i}')); run(s.save(g))
    assert [m.content for m in run(s.get('conv')).messages][-3:]==[FIX, 'q0', 'q1']

def test_a_thread_saved_elsewhere_too_is_still_checked(tmp_path):
    "A thread got, then saved as a copy elsewhere (`thread.save('backup.ipynb')`): the store still checks its own file, and a save with no edit between goes through, the thread's cells kept"
    s = DialogThreadStore(tmp_path/'threads')
    run(s.save(mk()))
    g = run(s.get('conv')); g.save(tmp_path/'backup.ipynb')
    p = tmp_path/'threads'/'conv.ipynb'
    add_note(p); correct(p)
    g.add_message(Message(role='user', content='thanks'))
    with pytest.raises(DialogConflictError): run(s.save(g))
    assert FIX in p.read_text()
    # no edit between: the save goes through, and the person's note (added before the thread was got) stays
    g = run(s.get('conv')); g.save(tmp_path/'backup.ipynb', force=True)
    g.add_message(Message(role='user', content='thanks')); run(s.save(g))
    assert 'a note the person saved' in p.read_text() and [m.content for m in run(s.get('conv')).messages][-1]=='thanks'
    g.add_message(Message(role='assistant', content='welcome')); run(s.save(g))
    assert [m.content for m in run(s.get('conv')).messages][-2:]==['thanks', 'welcome']

def test_a_persons_save_just_after_the_stores_write_is_never_marked_as_the_stores(tmp_path, monkeypatch):
    "A person's save landing between the store's write and its read-back: the index never marks it as a store's save, the thread's next save is refused"
    s = DialogThreadStore(tmp_path); t = Thread(id='conv'); t.add_message(Message(role='user', content='hello'))
    run(s.save(t))
    real = Thread.save
    def then_person(self, *a, **kw):
        r = real(self, *a, **kw); monkeypatch.setattr(Thread, 'save', real); add_note(Path(r)); return r
    monkeypatch.setattr(Thread, 'save', then_person)
    t.add_message(Message(role='assistant', content='hi there')); run(s.save(t))
    assert t.digest_on_disk!=file_digest(tmp_path/'conv.ipynb') # the bytes written, not the person's
    t.add_message(Message(role='user', content='next'))
    with pytest.raises(DialogConflictError): run(s.save(t))
    assert 'a note the person saved' in (tmp_path/'conv.ipynb').read_text()

@pytest.mark.parametrize('system', [False, True])
def test_a_persons_save_between_the_check_and_the_write_is_refused(tmp_path, monkeypatch, system):
    "A person's save landing after the store's check, before its write (here: as it gathers the thread's files): refused at the write, the note stays"
    s = DialogThreadStore(tmp_path); t = mk(system=system)
    run(s.save(t))
    real = DialogThreadStore._keep_files
    def person_saves(self, *a, **kw):
        monkeypatch.setattr(DialogThreadStore, '_keep_files', real); add_note(tmp_path/'conv.ipynb'); return real(self, *a, **kw)
    monkeypatch.setattr(DialogThreadStore, '_keep_files', person_saves)
    t.add_message(Message(role='user', content='thanks'))
    with pytest.raises(DialogConflictError, match="thread 'conv': its file"): run(s.save(t))
    assert 'a note the person saved' in (tmp_path/'conv.ipynb').read_text()

def test_a_listing_leaves_out_only_the_file_that_changed_again(tmp_path, monkeypatch):
    "A file found broken makes a listing sync; another file deleted after the sync: the listing leaves that one out, not every thread"
    s = DialogThreadStore(tmp_path, recheck=60)
    for i in range(5):
        t = Thread(id=f't{i}'); t.add_message(Message(role='user', content=f'hi {i}')); run(s.save(t))
    assert len(run(s.list()))==5
    (tmp_path/'t0.ipynb').write_text('{"cells": [')
    real = DialogThreadStore._sync
    def then_delete(self):
        real(self); monkeypatch.setattr(DialogThreadStore, '_sync', real); os.unlink(tmp_path/'t1.ipynb')
    monkeypatch.setattr(DialogThreadStore, '_sync', then_delete)
    assert sorted(t.id for t in run(s.list()))==['t2', 't3', 't4']

def test_delete_removes_the_broken_file_named_for_the_thread(tmp_path):
    "The file named for a thread, broken by hand: `get` names it as the thread's file, `save` writes over it, and `delete` removes it"
    s = DialogThreadStore(tmp_path); t = Thread(id='conv'); t.add_message(Message(role='user', content='hello')); run(s.save(t))
    p = tmp_path/'conv.ipynb'
    p.write_text('<<<<<<< HEAD\n'+p.read_text()+'=======\n{}\n>>>>>>> theirs\n')
    with pytest.raises(ValueError, match="can't be read"): run(s.get('conv'))
    assert run(s.delete('conv')) is True and not p.exists() and run(s.get('conv')) is None
    assert run(s.delete('conv')) is False
    # a broken file named for another thread, or a folder named for it, stays
    (tmp_path/'other.ipynb').write_text('{"cells": [')
    (tmp_path/'dir.ipynb').mkdir()
    assert run(s.delete('conv')) is False and (tmp_path/'other.ipynb').exists()
    assert run(s.delete('dir')) is False and (tmp_path/'dir.ipynb').is_dir()

def test_a_thread_whose_file_was_deleted_is_told_so(tmp_path):
    "`Thread.save` after its file was deleted or renamed says so, and that force=True writes it again"
    t = Thread(id='a'); t.add_message(Message(role='user', content='hi')); p = t.save(tmp_path/'a.ipynb')
    p.unlink()
    with pytest.raises(DialogConflictError, match='was deleted or renamed since thread') as x: t.save()
    assert 'another thread or program saved it' not in str(x.value)
    t.save(force=True); assert p.exists()

@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=2000))
def test_the_index_hash_is_file_digest(data):
    "An entry's `h` is the `file_digest` of the file's bytes: a save compares the two to tell its own write from a person's"
    from dialog.threadstore import _hash
    with tempfile.TemporaryDirectory() as d:
        (p := Path(d)/'f').write_bytes(data); assert _hash(data)==file_digest(p)

def test_a_subclass_thread_saved_elsewhere_keeps_its_own_fields_in_the_store(tmp_path):
    "A host's subclass (own fields on the thread and its messages), got, saved elsewhere, changed and saved through the store: the file keeps every change, a person's note too"
    TicketThread,ScoredMessage = ticket_classes()
    s = DialogThreadStore(tmp_path/'threads', thread_cls=TicketThread)
    t = TicketThread(id='x', priority=3, tags=['a']); t.add_message(ScoredMessage(role='user', content='hi', score=2.5)); run(s.save(t))
    p = tmp_path/'threads'/'x.ipynb'; add_note(p)
    g = run(s.get('x')); g.save(tmp_path/'backup.ipynb')
    g.priority,g.tags,g.messages[0].score = 5,['b'],1.0
    g.add_message(ScoredMessage(role='assistant', content='yo', score=0.5)); run(s.save(g))
    back = run(DialogThreadStore(tmp_path/'threads', thread_cls=TicketThread).get('x'))
    assert (back.priority, back.tags, [(m.content, m.score) for m in back.messages if 'note' not in m.content])==(5, ['b'], [('hi', 1.0), ('yo', 0.5)])
    assert 'a note the person saved' in back.messages[1].content

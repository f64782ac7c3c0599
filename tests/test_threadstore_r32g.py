"A store's delete, save and check after r32g's review (issue 32): a broken file another thread was known to hold stays at a delete; the saves written over a file gone or broken hold only while it stays so; a subclass thread holding a system message keeps its own fields; a thread read from the store's file with `Thread.read` is checked against it after an export"
import asyncio, json, os, pytest
from pathlib import Path
from pydantic import Field
from typing import List
from dialog.thread import Thread, Message
from dialog.threadstore import DialogThreadStore
from dialog.ipynb import DialogConflictError, file_digest
from thread_cases import ticket_classes

def run(c): return asyncio.run(c)

FIX = 'It ships on Monday (corrected by a person)'
def mk(tid='conv', system=False):
    t = Thread(id=tid)
    if system: t.add_message(Message(role='system', content='be brief'))
    t.add_message(Message(role='user', content='When?')); t.add_message(Message(role='assistant', content='It ships on Friday'))
    return t

def broken(p): p.write_text('<<<<<<< HEAD\n'+p.read_text()+'=======\n{}\n>>>>>>> theirs\n')

def test_delete_keeps_a_broken_file_the_index_knew_held_another_thread(tmp_path):
    "Thread 'other' renamed by hand to `conv.ipynb` (so 'conv' is saved in `conv~1.ipynb`), then broken: `delete('conv')` removes `conv~1.ipynb` only"
    s = DialogThreadStore(tmp_path)
    x = Thread(id='other'); x.add_message(Message(role='user', content='precious work')); run(s.save(x))
    os.rename(tmp_path/'other.ipynb', tmp_path/'conv.ipynb')
    assert [t.id for t in run(s.list_recent())]==['other']
    run(s.save(mk()))
    assert (tmp_path/'conv~1.ipynb').exists()
    broken(p := tmp_path/'conv.ipynb')
    for listed in (False, True): # the index still naming 'other' there, or already the error
        if listed: run(s.list_recent()); assert 'conv.ipynb' in s.errors
        assert run(s.delete('conv')) is True and p.exists() and 'precious work' in p.read_text()
        assert not (tmp_path/'conv~1.ipynb').exists()
        # and a save of 'conv' again goes to the next free name, never over the broken file the index gave 'other'
        if not listed: run(s.save(mk())); assert 'precious work' in p.read_text() and (tmp_path/'conv~1.ipynb').exists()
    # not listed since the break, the index naming 'other' there: kept too
    s2 = DialogThreadStore(tmp_path/'b'); y = Thread(id='other'); y.add_message(Message(role='user', content='w')); run(s2.save(y))
    os.rename(tmp_path/'b'/'other.ipynb', tmp_path/'b'/'conv.ipynb'); run(s2.list_recent()); broken(q := tmp_path/'b'/'conv.ipynb')
    assert run(s2.delete('conv')) is False and q.exists()

@pytest.mark.parametrize('system', [False, True])
def test_a_subclass_thread_holding_a_system_message_keeps_its_own_fields(tmp_path, system):
    "With `thread_cls` a subclass (own fields on the thread and its messages), a thread holding a system message saves its own fields as one without does"
    TicketThread,ScoredMessage = ticket_classes('ticket', str, 'none')
    s = DialogThreadStore(tmp_path, thread_cls=TicketThread)
    t = TicketThread(id='conv', ticket='T-1'); t.add_message(ScoredMessage(role='user', content='q', score=1.0)); run(s.save(t))
    g = run(s.get('conv'))
    if system: g.add_message(ScoredMessage(role='system', content='be brief'))
    g.ticket,g.tags = 'T-2',['a']
    next(m for m in g.messages if m.content=='q').score = 2.0
    g.add_message(ScoredMessage(role='user', content='more', score=3.0)); run(s.save(g))
    r = run(DialogThreadStore(tmp_path, thread_cls=TicketThread).get('conv'))
    assert (r.ticket, r.tags, [(m.content, m.score) for m in r.messages])==('T-2', ['a'], [('q', 2.0), ('more', 3.0)])
    # a new thread holding one too
    n = TicketThread(id='new', ticket='T-9'); n.add_message(ScoredMessage(role='system', content='s'))
    n.add_message(ScoredMessage(role='user', content='hi', score=4.0)); run(s.save(n))
    r = run(DialogThreadStore(tmp_path, thread_cls=TicketThread).get('new'))
    assert (r.ticket, [(m.content, m.score) for m in r.messages])==('T-9', [('hi', 4.0)])

def test_a_file_put_back_while_the_store_writes_it_again_is_refused(tmp_path, monkeypatch):
    "A thread's file deleted since it was got is written again only while it stays gone: a person's file put back after the check (here: as the store gathers the thread's files) is refused, never replaced"
    s = DialogThreadStore(tmp_path); run(s.save(mk()))
    g = run(s.get('conv')); p = tmp_path/'conv.ipynb'; txt = p.read_text(); p.unlink()
    real = DialogThreadStore._keep_files
    def put_back(self, *a, **kw):
        monkeypatch.setattr(DialogThreadStore, '_keep_files', real); p.write_text(txt.replace('It ships on Friday', FIX))
        return real(self, *a, **kw)
    monkeypatch.setattr(DialogThreadStore, '_keep_files', put_back)
    g.add_message(Message(role='user', content='thanks'))
    with pytest.raises(DialogConflictError, match="thread 'conv': its file"): run(s.save(g))
    assert FIX in p.read_text()
    # left gone, it is written again
    p.unlink(); run(s.save(g)); assert [m.content for m in run(s.get('conv')).messages][-1]=='thanks'

@pytest.mark.parametrize('system', [False, True])
def test_a_file_broken_half_way_through_a_persons_save_is_never_written_over(tmp_path, monkeypatch, system):
    "The store checked the file, then finds it broken (an editor writing in place, half-way): refused, the person's bytes stay; a file broken before the check is written over, as `get` says"
    s = DialogThreadStore(tmp_path); run(s.save(mk(system=system)))
    g = run(s.get('conv')); p = tmp_path/'conv.ipynb'
    new = p.read_text().replace('It ships on Friday', FIX); half = new[:len(new)//2]
    if system: g.add_message(Message(role='system', content='be brief'))
    g.add_message(Message(role='user', content='thanks'))
    real = DialogThreadStore._onto
    def mid_save(self, *a, **kw):
        monkeypatch.setattr(DialogThreadStore, '_onto', real)
        with open(p, 'r+') as f: f.truncate(0); f.write(half)
        return real(self, *a, **kw)
    monkeypatch.setattr(DialogThreadStore, '_onto', mid_save)
    t = g if system else g.model_copy(deep=True) # a copy: put onto the file (as one holding a system message is)
    with pytest.raises(DialogConflictError): run(s.save(t))
    assert p.read_text()==half
    # broken before the save's check: written over
    run(s.save(mk(system=system))); assert [m.content for m in run(s.get('conv')).messages]==['When?', 'It ships on Friday']

def test_dialog_save_holds_the_callers_check_up_to_the_write(tmp_path):
    "`Dialog.save`'s `check` is called with the file's bytes (None: none) and refuses by raising, with force too"
    from dialog.ipynb import Dialog
    t = mk(); t.save(p := tmp_path/'a.ipynb'); d = t.dialog
    seen = []
    def no(cur): seen.append(cur); raise DialogConflictError('refused')
    t.add_message(Message(role='user', content='more'))
    with pytest.raises(DialogConflictError, match='refused'): t.save(force=True, check=no)
    assert seen and seen[0]==p.read_bytes() and 'more' not in p.read_text()
    p.unlink(); seen.clear()
    with pytest.raises(DialogConflictError, match='refused'): t.save(force=True, check=no)
    assert seen==[None] and not p.exists()
    t.save(force=True, check=lambda cur: None); assert 'more' in p.read_text()

@pytest.mark.parametrize('export', [False, True])
def test_a_thread_read_from_the_stores_file_is_checked_against_it_after_an_export(tmp_path, export):
    "`Thread.read` of the store's file, saved elsewhere too (a backup): the store's save is refused when a person changed the store's file since"
    s = DialogThreadStore(tmp_path/'threads'); run(s.save(mk()))
    p = tmp_path/'threads'/'conv.ipynb'; r = Thread.read(p)
    if export: r.save(tmp_path/'backup.ipynb')
    assert r.digest_of(p)==file_digest(p) and r.digest_of(tmp_path/'backup')==(file_digest(tmp_path/'backup.ipynb') if export else None)
    p.write_text(p.read_text().replace('It ships on Friday', FIX))
    r.add_message(Message(role='user', content='thanks'))
    with pytest.raises(DialogConflictError, match="thread 'conv': its file"): run(s.save(r))
    assert FIX in p.read_text()
    # a copy is a thread made anew: it knows no file
    import copy, pickle
    assert all(c.digest_of(p) is None for c in (r.model_copy(deep=True), copy.copy(r), pickle.loads(pickle.dumps(r))))

@pytest.mark.parametrize('listing', [False, True])
def test_a_thread_got_before_a_person_renamed_and_changed_its_file_is_refused(tmp_path, listing):
    "A person renames the thread's notebook and corrects it, the store listing it between or not: the save of the thread got before is refused, one file stays, the correction in it"
    s = DialogThreadStore(tmp_path); run(s.save(mk()))
    g = run(s.get('conv')); p,q = tmp_path/'conv.ipynb',tmp_path/'conv-renamed.ipynb'
    os.rename(p, q); q.write_text(q.read_text().replace('It ships on Friday', FIX))
    if listing: assert [t.id for t in run(s.list_recent())]==['conv']
    g.add_message(Message(role='user', content='thanks'))
    with pytest.raises(DialogConflictError, match="thread 'conv': its file"): run(s.save(g))
    assert not p.exists() and FIX in q.read_text()
    # got again, it is saved in the renamed file
    g = run(s.get('conv')); g.add_message(Message(role='user', content='thanks')); run(s.save(g))
    assert not p.exists() and [m.content for m in run(DialogThreadStore(tmp_path).get('conv')).messages]==['When?', FIX, 'thanks']
    # only renamed, not changed: saved there
    os.rename(q, r := tmp_path/'again.ipynb'); g.add_message(Message(role='user', content='more')); run(s.save(g))
    assert not p.exists() and not q.exists() and 'more' in r.read_text()

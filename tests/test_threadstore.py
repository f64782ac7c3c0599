"A folder of dialog files as narrator's `ThreadStore`: file names, what a person does to the files, the index file, and what isn't a thread"
import asyncio, gc, json, os, shutil, stat, time, pytest
from datetime import timedelta
from pathlib import Path
from hypothesis import given, strategies as st
from dialog.thread import Thread, Message
from dialog.threadstore import DialogThreadStore, thread_fname

def run(c): return asyncio.run(c)

def mk(tid, *texts, **kw):
    t = Thread(id=tid, **kw)
    for i,x in enumerate(texts): t.add_message(Message(role='user' if i%2==0 else 'assistant', content=x))
    return t

def ids(ts): return [t.id for t in ts]

@given(st.text(max_size=300))
def test_file_names_are_safe(tid):
    "A thread's file name is a plain, visible file name, not too long, ending in .ipynb, whatever its id"
    n = thread_fname(tid)
    assert n.endswith('.ipynb') and not n.startswith('.') and '/' not in n and '\\' not in n and '\0' not in n
    assert len(n.encode())<=255 and n not in ('.ipynb', '..ipynb')

@given(st.text(max_size=300), st.text(max_size=300))
def test_file_names_keep_ids_apart(a, b):
    "Two ids never share a file name (on a file system that tells case apart)"
    if a!=b: assert thread_fname(a)!=thread_fname(b)

def test_a_thread_round_trips_without_system_messages(tmp_path):
    "get gives the saved thread as narrator's stores do: its fields and messages, less the system messages save leaves out; the thread given keeps them"
    s = DialogThreadStore(tmp_path)
    t = mk('a', 'hi', 'hello', attributes={'k': [1, 2]}, platforms={'slack': {'ts': '1.0'}})
    t.add_message(Message(role='system', content='be brief'))
    run(s.save(t))
    assert [m.role for m in t.messages]==['system', 'user', 'assistant']
    g = run(s.get('a'))
    exp = t.model_dump(); exp['messages'] = exp['messages'][1:]
    assert g.model_dump()==exp
    assert sorted(os.listdir(tmp_path))==['.dialog-threads.jsonl', '.dialog-threads.lock', 'a.ipynb']

def test_ids_that_are_no_file_names(tmp_path):
    "Ids with slashes, dots, spaces or an empty id are threads like any other, each in its own file inside the folder"
    s = DialogThreadStore(tmp_path/'st')
    tids = ['../escape', '/abs', 'a b', '.', '..', '', 'x'*400, 'ü/é', '%2F']
    for tid in tids: run(s.save(mk(tid, tid or 'empty')))
    assert sorted(ids(run(s.list_recent())))==sorted(tids)
    for tid in tids: assert run(s.get(tid)).messages[0].content==(tid or 'empty')
    assert not (tmp_path/'escape.ipynb').exists() and len(list((tmp_path/'st').glob('*.ipynb')))==len(tids)

def test_a_name_taken_by_another_thread(tmp_path):
    "A file named for an id but holding another thread (on a case-blind file system, `A` and `a`; or a person's rename) is left alone: the thread gets another name"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('b', 'I am b')))
    os.rename(tmp_path/'b.ipynb', tmp_path/'a.ipynb') # thread b now lives in a file named for a
    run(s.save(mk('a', 'I am a')))
    assert run(s.get('a')).messages[0].content=='I am a' and run(s.get('b')).messages[0].content=='I am b'
    assert sorted(os.listdir(tmp_path))[-2:]==['a.ipynb', 'a~1.ipynb']

@pytest.mark.parametrize('damage', ['not json', '{"nbformat": 4, "cells": 7}'])
def test_get_of_a_thread_whose_file_a_person_broke_is_an_error(tmp_path, damage):
    "A broken file of the thread (the index's, or the one named for it) makes `get` an error naming it, never None: a get-or-create's save would write over it"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'my whole conversation'))); run(s.save(mk('b', 'another')))
    f = tmp_path/'a.ipynb'
    f.write_text(damage)
    for store in (s, DialogThreadStore(tmp_path)):  # what the index knew, and a new store's first look
        with pytest.raises(ValueError, match=r"thread 'a': its file .*a\.ipynb can't be read"): run(store.get('a'))
        assert f.read_text()==damage and run(store.get('b')).messages[0].content=='another'
        assert run(store.get('c')) is None  # no file: no thread
    f.rename(tmp_path/'a.ipynb.broken')  # moved away: the thread is gone, and may start anew
    assert run(s.get('a')) is None

def _edit_in_place(p, old, new):
    "Replace `old` by `new` in file `p` in place, as Jupyter without atomic writing, or VS Code, saves: the folder unchanged, and the file's size and modification time too"
    st0 = os.stat(p)
    with open(p, 'r+b') as f:
        data = f.read().replace(old, new)
        f.seek(0); f.write(data); f.truncate()
    os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns))

@pytest.mark.parametrize('recheck', [0, None, 3600])
def test_a_finding_call_sees_an_edit_in_place_at_once(tmp_path, recheck):
    "An edit by hand in place, made between two finding calls within a second, is seen by the second, whatever `recheck` (0, the default second, an hour): finding checks every file"
    s = DialogThreadStore(tmp_path) if recheck is None else DialogThreadStore(tmp_path, recheck=recheck)
    for tid in 'ab': run(s.save(mk(tid, 'hi', attributes={'team': 'red'}, platforms={'slack': {'channel': 'C1'}})))
    m = mk('c', 'hi'); m.messages[0].attributes = {'tag': 'red'}; run(s.save(m))
    assert ids(run(s.find_by_attributes({'team': 'red'})))==['a', 'b']
    assert ids(run(s.find_by_platform('slack', {'channel': 'C1'})))==['a', 'b']
    assert len(run(s.find_messages_by_attribute('attributes.tag', 'red')))==1
    _edit_in_place(tmp_path/'a.ipynb', b'"red"', b'"tan"')
    assert ids(run(s.find_by_attributes({'team': 'red'})))==['b'] and ids(run(s.find_by_attributes({'team': 'tan'})))==['a']
    _edit_in_place(tmp_path/'b.ipynb', b'"C1"', b'"C2"')
    assert ids(run(s.find_by_platform('slack', {'channel': 'C1'})))==['a']
    _edit_in_place(tmp_path/'c.ipynb', b'"red"', b'"tan"')
    assert run(s.find_messages_by_attribute('attributes.tag', 'red'))==[]
    assert [m.content for m in run(s.find_messages_by_attribute('attributes.tag', 'tan'))]==['hi']

@pytest.mark.parametrize('recheck', [0, 2])
def test_a_listing_sees_an_edit_in_place_within_recheck_seconds(tmp_path, recheck):
    "A listing trusts the index for `recheck` seconds (its work is what it returns), then checks every file: an edit in place that moves a thread up is seen by then (at once with `recheck=0`)"
    s = DialogThreadStore(tmp_path, recheck=recheck)
    for tid in 'ab': run(s.save(mk(tid, tid)))
    assert ids(run(s.list_recent()))==['b', 'a']
    b = Thread.read(tmp_path/'b.ipynb').updated_at
    p = tmp_path/'a.ipynb'
    a = Thread.read(p).updated_at.isoformat()
    later = (b+timedelta(seconds=1)).isoformat()
    assert len(later)==len(a) # in place, of the same size
    _edit_in_place(p, a.encode(), later.encode())
    if recheck:
        assert ids(run(s.list_recent()))==['b', 'a'] # not yet: the index is trusted for `recheck` seconds
        time.sleep(recheck)
    assert ids(run(s.list_recent()))==['a', 'b']

@pytest.mark.parametrize('recheck', [1, 3600])
def test_a_listing_leaves_out_a_file_broken_in_place_and_names_it(tmp_path, recheck):
    "A file a person broke in place (an editor mid-save) since the last check is a changed file to a listing too, within `recheck` or not: the other threads are listed, and the broken file is named in `errors`, as the finding calls do"
    s = DialogThreadStore(tmp_path, recheck=recheck)
    for tid in ('t0', 't1', 't2'): run(s.save(mk(tid, 'hi '+tid)))
    assert ids(run(s.list_recent()))==['t2', 't1', 't0']
    f = tmp_path/'t1.ipynb'
    f.write_text(f.read_text()[:-50])
    assert ids(run(s.list_recent()))==['t2', 't0'] and list(s.errors)==['t1.ipynb']
    assert ids(run(s.list()))==['t2', 't0'] and ids(run(s.find_by_attributes({})))==['t0', 't2']

@pytest.mark.parametrize('how', ['ours', 'system', 'narrator'])
def test_a_save_of_a_thread_whose_file_a_person_changed_since_it_was_got_is_a_conflict(tmp_path, how):
    "A thread got from the store (or saved through it), saved after a person changed its file (a note added, a reply edited), is a `DialogConflictError` naming what to do, nothing written, as `Thread.save` is: never the person's change dropped; got again, it takes both. The same for a thread saved as a copy (holding a system message, or narrator's class: the store knows the file it gave it from)"
    from dialog.ipynb import DialogConflictError
    if how=='narrator': narrator = pytest.importorskip('narrator')
    s = DialogThreadStore(tmp_path, **({'thread_cls': narrator.Thread} if how=='narrator' else {}))
    Message = narrator.Message if how=='narrator' else globals()['Message']
    run(s.save(mk('t', 'Q0', 'A0')))
    held = run(s.get('t'))
    if how=='system': held.messages.insert(0, Message(role='system', content='be brief'))
    p = tmp_path/'t.ipynb'
    nb = json.loads(p.read_text())
    nb['cells'].append({'cell_type': 'markdown', 'id': 'note0001', 'metadata': {}, 'source': 'PERSON NOTE'})
    p.write_text(json.dumps(nb, indent=1))
    was = p.read_bytes()
    held.add_message(Message(role='user', content='Q1'))
    with pytest.raises(DialogConflictError, match=r"thread 't': its file .*t\.ipynb changed since this thread was got or saved.*await store\.get\('t'\)"):
        run(s.save(held))
    assert p.read_bytes()==was
    again = run(s.get('t'))
    again.add_message(Message(role='user', content='Q1'))
    run(s.save(again))
    assert 'PERSON NOTE' in [''.join(c['source']) for c in json.loads(p.read_text())['cells']]
    assert [m.content for m in run(s.get('t')).messages][-1]=='Q1'
    # saved through the store, then a reply edited by hand: the same
    again.add_message(Message(role='assistant', content='A1'))
    p.write_text(p.read_text().replace('Q1', 'Q1, edited'))
    with pytest.raises(DialogConflictError): run(s.save(again))
    assert 'Q1, edited' in p.read_text()
    # a copy of a thread it never gave (a new one) is put onto the file as before
    if how=='narrator':
        new = narrator.Thread(id='t'); new.add_message(Message(role='user', content='Q9'))
        run(DialogThreadStore(tmp_path, thread_cls=narrator.Thread).save(new))
        assert [m.content for m in run(s.get('t')).messages]==['Q9']

def test_a_store_save_in_one_flow_and_over_a_file_a_person_deleted(tmp_path):
    "Got, added to and saved again and again (Tyler's flow) with no one else writing, a thread saves each time; its file deleted by a person, the save writes it again (a save is narrator's upsert)"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('t', 'Q0')))
    t = run(s.get('t'))
    for i in range(3): t.add_message(Message(role='assistant' if i%2==0 else 'user', content=f'm{i}')); run(s.save(t))
    (tmp_path/'t.ipynb').unlink()
    t.add_message(Message(role='assistant', content='last')); run(s.save(t))
    assert [m.content for m in run(s.get('t')).messages]==['Q0', 'm0', 'm1', 'm2', 'last']

def test_a_person_edits_a_message_and_adds_a_prompt(tmp_path):
    "The thread a store gives is what the file holds now; a prompt a person adds is a message, found by its id"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'hi', 'hello')))
    p = tmp_path/'a.ipynb'
    nb = json.loads(p.read_text())
    nb['cells'][0]['source'] = ['%%prompt\n', 'hi there']
    nb['cells'].append({'cell_type': 'code', 'execution_count': None, 'id': 'added01', 'metadata': {'solveit_ai': True}, 'outputs': [], 'source': ['%%prompt\n', 'one more']})
    p.write_text(json.dumps(nb, indent=1))
    g = run(s.get('a'))
    assert [m.content for m in g.messages]==['hi there', 'hello', 'one more']
    assert run(s.get_thread_by_message_id(g.messages[-1].id)).id=='a'

def test_a_person_deletes_copies_and_renames_files(tmp_path):
    s = DialogThreadStore(tmp_path)
    for tid in 'abc': run(s.save(mk(tid, tid)))
    os.remove(tmp_path/'a.ipynb')
    assert run(s.get('a')) is None and ids(run(s.list_recent()))==['c', 'b']
    assert run(s.delete('a')) is False
    os.rename(tmp_path/'b.ipynb', tmp_path/'renamed.ipynb')
    assert run(s.get('b')).messages[0].content=='b'
    shutil.copy(tmp_path/'c.ipynb', tmp_path/'copy of c.ipynb') # two files hold c: the one named for it is c, and listings show it once
    assert ids(run(s.list_recent()))==['c', 'b']
    assert run(s.delete('c')) is True # both files go
    assert sorted(os.listdir(tmp_path))==['.dialog-threads.jsonl', '.dialog-threads.lock', 'renamed.ipynb']

def _retold(p, tid, text):
    "Another program (or a person) makes the thread in file `p` thread `tid`, with one more message, saving in place"
    o = Thread.read(p); o.id = tid; o.add_message(Message(role='user', content=text)); o.save(p, force=True)

def test_a_save_never_writes_over_a_file_that_holds_another_thread_now(tmp_path):
    "The index last saw `a` in a.ipynb; the file holds thread `x` now: saving `a` again keeps `x`, and `a` goes beside it"
    s = DialogThreadStore(tmp_path, recheck=3600)
    t = mk('a', 'hello'); run(s.save(t))
    _retold(tmp_path/'a.ipynb', 'x', 'my own thread now')
    t.add_message(Message(role='user', content='the program goes on')); run(s.save(t))
    assert Thread.read(tmp_path/'a.ipynb').id=='x' and run(s.get('a')).messages[-1].content=='the program goes on'
    assert sorted(ids(run(DialogThreadStore(tmp_path).list_recent())))==['a', 'x']

def test_delete_keeps_a_copy_given_its_own_id_since(tmp_path):
    "A copy of a.ipynb the store saw, then given its own id by an editor that saves in place (the folder unchanged): deleting `a` keeps it"
    s = DialogThreadStore(tmp_path, recheck=3600)
    run(s.save(mk('a', 'hello')))
    shutil.copy(tmp_path/'a.ipynb', tmp_path/'b.ipynb'); run(DialogThreadStore(tmp_path).list_recent()); run(s.list_recent())
    nb = json.loads((tmp_path/'b.ipynb').read_text()); nb['metadata']['dialog']['thread']['id'] = 'b'
    with open(tmp_path/'b.ipynb', 'r+') as f: f.write(json.dumps(nb, indent=1)); f.truncate() # in place: the folder unchanged
    assert run(s.delete('a')) is True
    assert not (tmp_path/'a.ipynb').exists() and Thread.read(tmp_path/'b.ipynb').id=='b'

def test_a_file_of_a_thread_that_vanishes_between_calls(tmp_path):
    "A file deleted by hand after the index last looked is no answer of get, even before any listing"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'x')))
    assert run(s.get('a')) is not None
    os.remove(tmp_path/'a.ipynb')
    assert run(s.get('a')) is None and run(s.get_thread_by_message_id('whatever')) is None

def test_files_that_are_no_threads(tmp_path):
    "A broken file, a folder named like a notebook, and the store's own and Jupyter's hidden files are no threads; `errors` names the broken ones"
    s = DialogThreadStore(tmp_path, recheck=0)
    run(s.save(mk('a', 'x')))
    (tmp_path/'broken.ipynb').write_text('{"cells": [')
    (tmp_path/'dir.ipynb').mkdir()
    (tmp_path/'.ipynb_checkpoints').mkdir(); (tmp_path/'.ipynb_checkpoints'/'a-checkpoint.ipynb').write_text('{}')
    (tmp_path/'.hidden.ipynb').write_text('{}')
    assert ids(run(s.list_recent()))==['a']
    assert sorted(s.errors)==['broken.ipynb', 'dir.ipynb'] and 'broken.ipynb' in s.errors and s.errors['broken.ipynb']
    (tmp_path/'broken.ipynb').write_text((tmp_path/'a.ipynb').read_text().replace('"id": "a"', '"id": "fixed"'))
    assert sorted(ids(run(s.list_recent())))==['a', 'fixed'] and list(s.errors)==['dir.ipynb']

def test_a_broken_file_named_for_the_thread_is_its_file(tmp_path):
    "A save over a thread's file a person broke writes the thread there (not beside it)"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'x')))
    (tmp_path/'a.ipynb').write_text('not json')
    run(s.save(mk('a', 'y')))
    assert [n for n in os.listdir(tmp_path) if n.endswith('.ipynb')]==['a.ipynb'] and run(s.get('a')).messages[0].content=='y'

def test_cells_a_person_added_survive_a_save_through_the_store(tmp_path):
    "A thread got from the store and saved back keeps the note a person added to its file"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'hi', 'hello')))
    p = tmp_path/'a.ipynb'
    nb = json.loads(p.read_text())
    nb['cells'].insert(0, {'cell_type': 'markdown', 'id': 'note0001', 'metadata': {'skipped': True}, 'source': ['a note to self']})
    p.write_text(json.dumps(nb, indent=1))
    t = run(s.get('a'))
    t.add_message(Message(role='user', content='next'))
    run(s.save(t))
    nb = json.loads(p.read_text())
    assert nb['cells'][0]['source']==['a note to self'] and [m.content for m in run(s.get('a')).messages]==['hi', 'hello', 'next']

@pytest.mark.parametrize('how', ['narrator', 'system'])
def test_cells_a_person_added_survive_a_save_of_a_copy(tmp_path, how):
    "A thread saved as a copy made from its dump (narrator's class, as a store made with `thread_cls=narrator.Thread` gives it; or ours holding a system message): a person's note and code cell were rewritten as ONE `%%prompt` cell of <note>/<code> context; they stay as they were, and a program's change to the message they give is kept"
    p = tmp_path/'a.ipynb'
    if how=='narrator': narrator = pytest.importorskip('narrator')
    s = DialogThreadStore(tmp_path, **({'thread_cls': narrator.Thread} if how=='narrator' else {}))
    run(s.save(mk('a', 'hi', 'hello')))
    nb = json.loads(p.read_text())
    nb['cells'] += [{'cell_type': 'markdown', 'id': 'note0001', 'metadata': {}, 'source': 'my note'},
                    {'cell_type': 'code', 'id': 'code0001', 'metadata': {}, 'source': 'x = 1+1\nx', 'execution_count': 1,
                     'outputs': [{'output_type': 'execute_result', 'execution_count': 1, 'data': {'text/plain': '2'}, 'metadata': {}}]}]
    p.write_text(json.dumps(nb, indent=1))
    t = run(s.get('a'))
    M = narrator.Message if how=='narrator' else Message
    if how=='system': t.messages.insert(0, Message(role='system', content='be brief'))
    t.messages[-1].attributes = {'seen': True}
    t.add_message(M(role='user', content='next'))
    run(s.save(t))
    cells = [(c['cell_type'], ''.join(c['source'])) for c in json.loads(p.read_text())['cells']]
    assert cells==[('code', '%%prompt\nhi'), ('markdown', 'my note'), ('code', 'x = 1+1\nx'), ('code', '%%prompt\nnext')]
    back = run(s.get('a'))
    assert [m.content for m in back.messages][-1]=='next' and back.messages[-2].attributes=={'seen': True}

def test_the_index_file_is_only_a_cache(tmp_path):
    "A lost, emptied or garbled index file loses nothing: a new store object gives the same answers from the files"
    s = DialogThreadStore(tmp_path)
    for i in range(5): run(s.save(mk(f't{i}', f'q{i}', attributes={'i': i%2}, platforms={'slack': {'c': str(i%2)}})))
    want = (ids(run(s.list_recent())), ids(run(s.find_by_attributes({'i': 1}))), ids(run(s.find_by_platform('slack', {'c': '0'}))))
    idx = tmp_path/DialogThreadStore.index_name
    for damage in (lambda: idx.write_bytes(idx.read_bytes()[:-40]), lambda: idx.write_text('garbage\n{"f": 3}\n[]\n'), lambda: idx.write_text(''), idx.unlink):
        damage()
        s2 = DialogThreadStore(tmp_path)
        assert (ids(run(s2.list_recent())), ids(run(s2.find_by_attributes({'i': 1}))), ids(run(s2.find_by_platform('slack', {'c': '0'}))))==want

def test_an_index_line_cut_short_by_a_crash(tmp_path):
    "A writer that died mid-line leaves a line cut short: the next writer closes it, and every later line reads"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'x')))
    idx = tmp_path/DialogThreadStore.index_name
    with open(idx, 'ab') as f: f.write(b'{"f":"zz.ipynb","sig":[1,')
    run(DialogThreadStore(tmp_path).save(mk('b', 'y')))
    lines = idx.read_bytes().split(b'\n')
    assert lines[1]==b'{"f":"zz.ipynb","sig":[1,' and b'"id":"b"' in lines[2]
    s3 = DialogThreadStore(tmp_path)
    s3._tail()
    assert sorted(e['id'] for e in s3._e.values())==['a', 'b']

def test_the_index_file_is_compacted(tmp_path):
    "Saving one thread many times doesn't grow the index file without bound"
    s = DialogThreadStore(tmp_path)
    t = mk('a', 'x')
    for i in range(200):
        t.add_message(Message(role='user', content=str(i)))
        run(s.save(t))
    assert len((tmp_path/DialogThreadStore.index_name).read_bytes().splitlines())<=2*1+64
    assert len(run(DialogThreadStore(tmp_path).get('a')).messages)==201

def test_a_new_store_object_reads_no_file_the_index_describes(tmp_path, monkeypatch):
    "A new process takes the entries from the index file: it reads only the threads it returns (here 2 of 30), not every file"
    s = DialogThreadStore(tmp_path)
    for i in range(30): run(s.save(mk(f't{i:02d}', f'q{i}')))
    time.sleep(2.1) # past the 2 s in which a file's signature may not yet tell an edit
    run(s.list_recent()) # the files, settled, are logged as such
    reads = []
    orig = Thread.from_dialog.__func__  # each thread the store reads is made of its file's dialog here
    monkeypatch.setattr(Thread, 'from_dialog', classmethod(lambda cls, d: reads.append(d.path) or orig(cls, d)))
    assert ids(run(DialogThreadStore(tmp_path).list_recent(2)))==['t29', 't28']
    assert len(reads)==2

def test_a_thread_cls_of_our_own(tmp_path):
    "A subclass of `Thread` as `thread_cls`: the files are read as that class"
    class MyThread(Thread): pass
    s = DialogThreadStore(tmp_path, thread_cls=MyThread)
    run(s.save(mk('a', 'x')))
    assert type(run(s.get('a'))) is MyThread and [type(t) for t in run(s.list_recent())]==[MyThread]

def test_an_edit_the_signature_cant_tell(tmp_path):
    "An edit in the same tick of the clock and of the same size leaves the file's signature as it was: until the signature has settled (2 s), the entry is checked by the file's bytes"
    from dialog.ipynb import file_sig
    s = DialogThreadStore(tmp_path, recheck=0)
    run(s.save(mk('a', 'hi', attributes={'team': 'red'})))
    p = tmp_path/'a.ipynb'
    p.write_bytes(p.read_bytes().replace(b'"red"', b'"tan"'))
    s._e['a.ipynb']['sig'] = file_sig(p) # as a file system whose clock hadn't moved would have it
    assert ids(run(s.find_by_attributes({'team': 'tan'})))==['a']

def test_a_file_gone_or_changed_under_the_index(tmp_path):
    "Between full checks the index is trusted, but a listed file found gone, or holding another thread, makes the call check every file and answer again"
    s = DialogThreadStore(tmp_path, recheck=3600)
    for tid in 'abc': run(s.save(mk(tid, tid)))
    assert ids(run(s.list_recent()))==['c', 'b', 'a']
    p = tmp_path/'b.ipynb'
    p.write_text(p.read_text().replace('"id": "b"', '"id": "z"')) # in place: the folder's signature stays
    assert ids(run(s.list_recent()))==['c', 'z', 'a'] or ids(run(s.list_recent()))==['c', 'a', 'z']
    assert run(s.get('b')) is None and run(s.get('z')).messages[0].content=='b'

def test_of_two_files_that_hold_a_thread_the_one_named_for_it_wins(tmp_path):
    "A thread in two files: the one named for its id is the thread, even when the other was seen first"
    s = DialogThreadStore(tmp_path, recheck=0)
    run(s.save(mk('c', 'first')))
    os.rename(tmp_path/'c.ipynb', tmp_path/'elsewhere.ipynb')
    assert [t.messages[0].content for t in run(s.list_recent())]==['first'] # seen first, under another name
    (tmp_path/'c.ipynb').write_text((tmp_path/'elsewhere.ipynb').read_text().replace('first', 'named for it'))
    assert [t.messages[0].content for t in run(s.list_recent())]==['named for it']
    assert run(s.get('c')).messages[0].content=='named for it'
    assert run(DialogThreadStore(tmp_path).get('c')).messages[0].content=='named for it'

# The index file is shared (git, sync): a line must never make the store touch a file outside its folder
from dialog.threadstore import _entry, _line, _plain_name

def _line_for(f, tid='victim', n=1):
    return json.dumps(dict(f=f, sig=[0, 0, 0, 0, 0], h='x', ok=True, id=tid, c=0, u=0, a={}, p={}, m=[], ma=[], n=n))+'\n'

@pytest.mark.parametrize('f', ['../outside.ipynb', 'ABS', './../outside.ipynb'])
def test_an_index_line_naming_a_file_outside_the_folder_is_ignored(tmp_path, f):
    "get doesn't read the outside file, save writes the thread in the folder, and the outside file is untouched"
    sd = tmp_path/'threads'; sd.mkdir(); outside = tmp_path/'outside.ipynb'
    mk('victim', 'precious outside data').save(outside); before = outside.read_bytes()
    (sd/'.dialog-threads.jsonl').write_text(_line_for(str(outside) if f=='ABS' else f))
    s = DialogThreadStore(sd)
    assert run(s.get('victim')) is None
    run(s.save(mk('victim', 'overwritten by the store')))
    assert outside.read_bytes()==before
    assert run(s.get('victim')).messages[0].content=='overwritten by the store'
    assert (sd/'victim.ipynb').exists() and ids(run(s.list_recent()))==['victim']

def test_delete_never_unlinks_a_file_outside_the_folder(tmp_path):
    "A line appended to the index (by another process, a pulled copy) naming ../outside.ipynb: delete of its id removes nothing outside the folder"
    sd = tmp_path/'threads'; outside = tmp_path/'outside.ipynb'; outside.write_text('{"not": "a thread"}')
    s = run(DialogThreadStore.create(sd)); run(s.save(mk('a', 'hi'))); run(s.list_recent())
    with open(sd/'.dialog-threads.jsonl', 'a') as f: f.write(_line_for('../outside.ipynb', n=99))
    assert run(s.delete('victim')) is False
    assert outside.exists() and ids(run(s.list_recent()))==['a']

@given(st.text(max_size=300))
def test_the_names_the_store_writes_are_the_names_its_index_takes(tid):
    "One rule: every thread's file name passes the index's check"
    assert _plain_name(thread_fname(tid))

@given(st.text(max_size=40).map(lambda s: s+'.ipynb'))
def test_an_index_entry_names_a_file_directly_in_the_folder(f):
    "An entry is taken only when its file name, joined to the folder, is a visible file directly in it"
    root = Path('/store/threads')
    if _entry(dict(f=f, sig=[], **{'del': True})) is not None:
        p = root/f
        assert p.parent==root and p.name==f and f not in ('.', '..') and not f.startswith('.') and '\\' not in f

# A named pipe (or device) called *.ipynb is never opened: opening a FIFO waits for a writer
fifo = pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes here')

def _in_a_fresh_process(d, body):
    "Run `body` (async code using `s`, a store over folder `d`, and `os`) in a new Python process; its printed lines. A store that opens a pipe waits forever: the timeout fails the test instead"
    import subprocess, sys, textwrap
    code = f"import asyncio, os, stat\nfrom dialog.thread import Thread, Message\nfrom dialog.threadstore import DialogThreadStore\nasync def main():\n    s = await DialogThreadStore.create({str(d)!r})\n{textwrap.indent(textwrap.dedent(body), '    ')}\nasyncio.run(main())"
    try: r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired: pytest.fail('the store opened the named pipe and waits for a writer')
    assert r.returncode==0, r.stderr[-500:]
    return r.stdout.splitlines()

@fifo
def test_a_named_pipe_in_the_folder_is_skipped(tmp_path):
    "list_recent of a fresh store answers at once, leaving the pipe out; get of the pipe's name finds nothing"
    out = _in_a_fresh_process(tmp_path, f"""
        t = Thread(id='ok'); t.add_message(Message(role='user', content='hi')); await s.save(t)
        os.mkfifo({str(tmp_path/'x.ipynb')!r})
        s2 = DialogThreadStore({str(tmp_path)!r})
        print([x.id for x in await s2.list_recent()], await s2.get('x'), list(s2.errors))""")
    assert out==["['ok'] None ['x.ipynb']"]

@fifo
def test_a_thread_whose_file_name_a_pipe_holds_is_saved_beside_it(tmp_path):
    "The pipe stays as it was (never written over, never opened), and the thread goes in the next free name"
    out = _in_a_fresh_process(tmp_path, f"""
        os.mkfifo({str(tmp_path/'x.ipynb')!r})
        t = Thread(id='x'); t.add_message(Message(role='user', content='hi')); await s.save(t)
        print((await s.get('x')).messages[0].content, [x.id for x in await DialogThreadStore({str(tmp_path)!r}).list_recent()])""")
    assert out==["hi ['x']"]
    assert stat.S_ISFIFO(os.lstat(tmp_path/'x.ipynb').st_mode) and (tmp_path/'x~1.ipynb').exists()

def _as_another_user(sd, code):
    "The printed output of Python `code` (with `sys.argv[1]` the folder `sd`) run by a user who isn't the folder's owner"
    import subprocess, sys
    cmd = [sys.executable, '-c', code, str(sd)]
    if os.geteuid()==0: # root reads and writes anywhere: the reader runs as nobody
        if not shutil.which('setpriv'): pytest.skip('root, and no setpriv to run as another user')
        cmd = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', *cmd]
    env = os.environ | {'PYTHONPATH': str(Path(__file__).parents[1])}
    probe = subprocess.run([*cmd[:-3], '-c', 'import fastcore, dialog'], capture_output=True, cwd='/', env=env)
    if probe.returncode: pytest.skip("another user can't import this Python's packages (a private virtual environment)")
    r = subprocess.run(cmd, capture_output=True, text=True, cwd='/', env=env)
    return r.stdout.strip() or r.stderr[-500:]

@pytest.fixture
def shared_dir():
    "A folder other users can reach (pytest's own is its owner's only)"
    import tempfile
    d = Path(tempfile.mkdtemp()); os.chmod(d, 0o755)
    yield d
    for p in [d, *d.rglob('*')]:
        if p.is_dir(): os.chmod(p, 0o755)
    shutil.rmtree(d)

def test_a_folder_the_caller_may_only_read_is_listed(shared_dir):
    "A store over a folder this process can't write in (another user's archive, a read-only mount): listings answer from the files, the index left as it was"
    sd = shared_dir/'store'; s = DialogThreadStore(sd)
    for i in range(3): run(s.save(mk(f't{i}', 'hi')))
    (sd/'t0.ipynb').write_text((sd/'t0.ipynb').read_text().replace('"hi"', '"hey"')) # the index no longer holds for it
    for p in sd.iterdir(): os.chmod(p, 0o644)
    os.chmod(sd, 0o555)
    code = ("import sys, asyncio\nfrom dialog.threadstore import DialogThreadStore\n"
            "print([t.id for t in asyncio.run(DialogThreadStore(sys.argv[1]).list_recent())])")
    assert _as_another_user(sd, code)=="['t2', 't1', 't0']"

def test_an_index_the_caller_may_not_read_is_skipped(shared_dir):
    "The index kept private (0600) by its writer's umask, the threads' files readable by all: get and listings answer from the files"
    sd = shared_dir/'store'; s = DialogThreadStore(sd)
    for i in range(2): run(s.save(mk(f't{i}', 'hi')))
    os.chmod(sd, 0o777)
    for p in sd.iterdir(): os.chmod(p, 0o666 if p.name.endswith('.lock') else 0o644)
    os.chmod(sd/DialogThreadStore.index_name, 0o600)
    code = ("import sys, asyncio\nfrom dialog.threadstore import DialogThreadStore\ns = DialogThreadStore(sys.argv[1])\n"
            "print(asyncio.run(s.get('t1')).id, [t.id for t in asyncio.run(s.list_recent())])")
    assert _as_another_user(sd, code)=="t1 ['t1', 't0']"

# A symlink in the folder (git checks them out; anyone sharing the folder can plant one) is never followed
links = pytest.mark.skipif(not hasattr(os, 'symlink') or os.name=='nt', reason='no symlinks here')

@links
def test_a_symlink_named_for_a_thread_is_never_written_through(tmp_path):
    "A link `victim.ipynb` -> a file outside the folder: saving thread `victim` leaves that file as it was, and the thread goes beside the link"
    sd = tmp_path/'threads'; sd.mkdir(); outside = tmp_path/'precious.txt'; outside.write_text('my notes\n')
    os.symlink(outside, sd/'victim.ipynb')
    s = run(DialogThreadStore.create(sd)); run(s.save(mk('victim', 'hi')))
    assert outside.read_text()=='my notes\n' and os.path.islink(sd/'victim.ipynb')
    assert run(s.get('victim')).messages[0].content=='hi' and ids(run(DialogThreadStore(sd).list_recent()))==['victim']

@links
def test_a_symlink_to_a_thread_file_outside_is_never_read(tmp_path):
    "A link in the folder to another store's thread file: the store neither lists nor gets that thread, and names the link in `errors`"
    other = tmp_path/'other'; run(DialogThreadStore(other).save(mk('secret', 'private')))
    sd = tmp_path/'threads'; sd.mkdir(); os.symlink(other/'secret.ipynb', sd/'secret.ipynb')
    s = run(DialogThreadStore.create(sd))
    assert run(s.list_recent())==[] and run(s.get('secret')) is None and 'secret.ipynb' in s.errors

@links
def test_the_index_and_lock_are_never_written_through_a_symlink(tmp_path):
    "Links in the index's and the lock's places (one to a file outside, one dangling): a save writes no file outside; the store's own files take the links' places"
    sd = tmp_path/'threads'; sd.mkdir(); a,b = tmp_path/'a.txt',tmp_path/'b.txt'; a.write_text('outside\n')
    os.symlink(a, sd/'.dialog-threads.jsonl'); os.symlink(b, sd/'.dialog-threads.lock')
    s = run(DialogThreadStore.create(sd)); run(s.save(mk('t1', 'hello', attributes={'customer': 'secret'})))
    assert a.read_text()=='outside\n' and not b.exists()
    assert not os.path.islink(sd/'.dialog-threads.jsonl') and ids(run(DialogThreadStore(sd).list_recent()))==['t1']

# Bytes in free-form fields: the files keep them (`$bytes`), so the index must too
def test_bytes_in_attributes_round_trip_through_the_store(tmp_path):
    "save succeeds; a fresh store lists the thread and finds it (and its message) by the bytes; a dict that looks like a bytes mark stays a dict"
    s = run(DialogThreadStore.create(tmp_path)); run(s.save(mk('fine', 'hi')))
    t = Thread(id='raw', attributes={'key': b'\x00\xff', 'mark': {'$bytes': 'AA=='}})
    t.add_message(Message(role='user', content='hi', attributes={'raw': b'\x00\xff'}))
    assert run(s.save(t)) is t
    s2 = DialogThreadStore(tmp_path)
    assert sorted(ids(run(s2.list_recent())))==['fine', 'raw']
    assert ids(run(s2.find_by_attributes({'key': b'\x00\xff'})))==['raw']
    assert ids(run(s2.find_by_attributes({'mark': {'$bytes': 'AA=='}})))==['raw']
    assert [m.attributes for m in run(s2.find_messages_by_attribute('attributes.raw', b'\x00\xff'))]==[{'raw': b'\x00\xff'}]
    assert run(s2.get('raw')).attributes==t.attributes and s2.errors=={}

@pytest.mark.parametrize('k,v', [('m', [[1]]), ('ma', [[1]]), ('ma', [['id', 1, {}]]), ('m', [None])])
def test_an_index_line_whose_lists_hold_what_no_store_writes_is_ignored(tmp_path, k, v):
    "A damaged line for a file it matches, its `m` or `ma` a list of the wrong items: ignored (the file read again), so finding by message id or attribute answers right"
    s = DialogThreadStore(tmp_path)
    t = mk('a', 'hello'); t.messages[0].attributes = {'x': 1}; run(s.save(t)); mid = t.messages[0].id
    idx = tmp_path/DialogThreadStore.index_name; e = json.loads(idx.read_text().splitlines()[-1])
    with open(idx, 'a') as f: f.write(json.dumps(dict(e, **{k: v}, ok=True))+'\n')
    s2 = DialogThreadStore(tmp_path)
    assert run(s2.get_thread_by_message_id(mid)).id=='a' and [m.id for m in run(s2.find_messages_by_attribute('attributes.x', 1))]==[mid]

def test_an_index_line_for_a_value_no_json_holds(tmp_path):
    "An entry holding a value JSON can't write gives a line saying the file is to be read again, not an exception that stops every listing"
    e = dict(f='x.ipynb', sig=(1, 2, 3, 4, 5), h='h', ok=True, n=3, id='x', c=0, u=0, a={'o': object()}, p={}, m=[], ma=[])
    back = _entry(json.loads(_line(e)))
    assert back['f']=='x.ipynb' and back['sig']==(1, 2, 3, 4, 5) and not back['ok'] and 'TypeError' in back['err']

def test_a_file_of_a_thread_with_a_system_message_is_saved_through_the_store(tmp_path):
    "save leaves the system message out of a copy it makes from the thread's dump; the copy keeps the thread's files (a dump names them by id only)"
    from dialog.thread import Attachment
    t = Thread(id='t1'); t.add_message(Message(role='system', content='Be brief.'))
    m = Message(role='user', content='See the file'); a = Attachment(filename='notes.txt', content=b'secret plans')
    run(a.process_and_store(t.file_store)); m.add_attachment(a); t.add_message(m)
    run(DialogThreadStore(tmp_path).save(t))
    g = run(DialogThreadStore(tmp_path).get('t1'))
    assert run(g.messages[0].attachments[0].get_content_bytes(g.file_store))==b'secret plans'

def test_file_names_of_marked_ids_apart():
    "`~` marks the names the rule makes (the empty id, a cut long id's hash, a second file's number): an id holding `~` never takes one of them"
    long_ = 'x'*1000
    crafted = thread_fname(long_)[:-len('.ipynb')] # an id spelling the cut name of another
    for a,b in [('', '~'), (long_, crafted), ('a~1', 'a')]: assert thread_fname(a)!=thread_fname(b)
    assert [thread_fname(i) for i in ('3f2a-uuid', 'a_b.c-d', '')]==['3f2a-uuid.ipynb', 'a_b.c-d.ipynb', '~.ipynb'] # ordinary ids' names as they were

def test_a_file_named_before_tilde_was_escaped_keeps_its_thread(tmp_path):
    "A thread saved under the old name (`~` as is) is found by its id, and saved again in the same file"
    t = mk('~', 'hi'); t.save(tmp_path/'~.ipynb')
    s = DialogThreadStore(tmp_path)
    assert run(s.get('~')).messages[0].content=='hi'
    t.add_message(Message(role='assistant', content='hello')); run(s.save(t))
    assert sorted(p.name for p in tmp_path.glob('*.ipynb'))==['~.ipynb'] and len(run(s.get('~')).messages)==2
    run(s.save(mk('', 'empty id'))) # the empty id's own name is taken by another thread: it gets another
    assert run(s.get('')).messages[0].content=='empty id' and run(s.get('~')).messages[0].content=='hi'

def _with_file(tid):
    "Thread `tid`: a user message whose attachment the thread's file store keeps, and a reply"
    t = Thread(id=tid); m = Message(role='user', content='see file'); m.add_attachment(b'hello world', filename='a.txt')
    t.add_message(m); run(m.attachments[0].process_and_store(t.file_store))
    t.add_message(Message(role='assistant', content='ok'))
    return t

def _bytes(t): return run(t.messages[0].attachments[0].get_content_bytes(file_store=t.file_store))

def test_a_thread_remade_from_its_dump_keeps_its_files_through_the_store(tmp_path):
    "A thread rebuilt from `model_dump` once the original is gone, saved through the store, keeps the bytes its file holds"
    s = DialogThreadStore(tmp_path); t = _with_file('f'); run(s.save(t)); del t
    dump = run(s.get('f')).model_dump(mode='python'); gc.collect()
    t2 = Thread.model_validate(dump); t2.add_message(Message(role='user', content='and?'))
    run(s.save(t2)); del t2; gc.collect()
    assert _bytes(run(DialogThreadStore(tmp_path).get('f')))==b'hello world'

def test_narrators_threads_keep_the_files_of_the_file_they_replace(tmp_path):
    "A store of narrator's class gets a thread with a file, adds narrator's message and saves it: the bytes stay"
    narrator = pytest.importorskip('narrator')
    run(DialogThreadStore(tmp_path).save(_with_file('n'))); gc.collect()
    s = DialogThreadStore(tmp_path, thread_cls=narrator.Thread)
    nt = run(s.get('n')); gc.collect()
    nt.add_message(narrator.Message(role='assistant', content='I read it.')); run(s.save(nt)); gc.collect()
    g = run(DialogThreadStore(tmp_path).get('n'))
    assert _bytes(g)==b'hello world' and g.messages[-1].content=='I read it.'

def test_a_thread_whose_file_bytes_are_nowhere_is_refused_before_writing(tmp_path):
    "Bytes neither in the thread's store nor in the file it replaces: a ValueError naming the file, and nothing written"
    t = _with_file('g'); d = t.model_dump(mode='python'); del t; gc.collect()
    t2 = Thread.model_validate(d)
    with pytest.raises(ValueError, match=rf"message '{t2.messages[0].id}': .*'a.txt'"): run(DialogThreadStore(tmp_path).save(t2))
    assert not (tmp_path/'g.ipynb').exists()

def test_the_error_for_bytes_nowhere_names_the_message_of_the_callers_thread(tmp_path):
    "The caller's thread holds a system message first, the attachment is on message 1: the error said 'message 0' (its index in the store's copy, without system messages); it names the message by id"
    t = _with_file('g'); d = t.model_dump(mode='python'); del t; gc.collect()
    t2 = Thread.model_validate(d); t2.add_message(Message(role='system', content='s'))
    m = next(m for m in t2.messages if m.attachments)
    with pytest.raises(ValueError, match=rf"thread 'g', message '{m.id}': .*'a.txt'"): run(DialogThreadStore(tmp_path).save(t2))
    assert t2.messages[0].role=='system' and not (tmp_path/'g.ipynb').exists()

def test_a_deleted_file_is_not_brought_back_from_the_file_it_replaces(tmp_path):
    "A file the thread's store deleted stays deleted: the save takes nothing from the old file for it"
    s = DialogThreadStore(tmp_path); run(s.save(_with_file('h'))); gc.collect()
    t = run(s.get('h')); a = t.messages[0].attachments[0]
    run(t.file_store.delete(a.file_id)); run(s.save(t)); del t, a; gc.collect()
    with pytest.raises(FileNotFoundError): _bytes(run(DialogThreadStore(tmp_path).get('h')))

def _given_bytes(cls=Thread, msg=Message, att=None):
    "A user message of class `msg` whose file is given by its bytes (not stored: the usual `add_attachment`)"
    from dialog.thread import Attachment
    m = msg(role='user', content='see'); m.add_attachment((att or Attachment)(filename='n.txt', content=b'hello bytes'))
    return m

def test_a_file_given_by_its_bytes_survives_a_save_as_a_copy(tmp_path):
    "A thread with a system message is saved as a copy made from its dump (which leaves content out): the new file's bytes stay"
    s = DialogThreadStore(tmp_path); t = mk('c', 'qa', 'ra'); t.messages.insert(0, Message(role='system', content='sys'))
    run(s.save(t)); t.add_message(_given_bytes()); run(s.save(t))
    assert _bytes_of(run(DialogThreadStore(tmp_path).get('c')), -1)==b'hello bytes'

def _bytes_of(t, i): return run(t.messages[i].attachments[0].get_content_bytes(getattr(t, 'file_store', None)))

def test_narrators_thread_keeps_the_bytes_of_a_file_given_by_them(tmp_path):
    "narrator's threads: one read back from a file holding such bytes and saved again, and a new message's file, keep them"
    narrator = pytest.importorskip('narrator')
    t = mk('n2'); t.add_message(_given_bytes()); t.add_message(Message(role='assistant', content='ra'))
    run(DialogThreadStore(tmp_path).save(t))
    s = DialogThreadStore(tmp_path, thread_cls=narrator.Thread); nt = run(s.get('n2'))
    assert _bytes_of(nt, 0)==b'hello bytes' # the thread the store gives carries them
    nt.add_message(narrator.Message(role='assistant', content='I read it.')); run(s.save(nt))
    nt.add_message(_given_bytes(msg=narrator.Message, att=narrator.Attachment)); run(s.save(nt))
    g = run(DialogThreadStore(tmp_path).get('n2'))
    assert _bytes_of(g, 0)==b'hello bytes' and _bytes_of(g, -1)==b'hello bytes' and g.messages[2].content=='I read it.'

@fifo
@pytest.mark.parametrize('n', [3, 40])
def test_a_named_pipe_in_the_index_files_place_is_replaced(tmp_path, n):
    "A named pipe named as the index is no index: a store's first listing replaces it by the index, never writing into it (40 threads' lines filled its buffer: BlockingIOError; a few were thrown away)"
    s = DialogThreadStore(tmp_path)
    for i in range(n): run(s.save(mk(f't{i}', f'q{i} ' + 'x'*2000)))
    (idx := tmp_path/DialogThreadStore.index_name).unlink(); os.mkfifo(idx)
    out = _in_a_fresh_process(tmp_path, "print(len(await s.list_recent(limit=100)))")
    assert out==[str(n)] and stat.S_ISREG(os.lstat(idx).st_mode)
    assert len(idx.read_bytes().splitlines())>=n  # the entries are in the index now
    assert sorted(ids(run(DialogThreadStore(tmp_path).list()))) == sorted(f't{i}' for i in range(n))

def test_a_store_whose_folder_a_person_removed_goes_on(tmp_path):
    "A person removes the folder while a store is in use (`rm -r`): its next call sees no thread, a save makes the folder again, as a new store would (each call failed with FileNotFoundError)"
    d = tmp_path/'threads'
    s = run(DialogThreadStore.create(d))
    run(s.save(mk('old', 'hi')))
    shutil.rmtree(d)
    run(s.initialize()); assert d.is_dir()  # narrator's explicit call makes it
    shutil.rmtree(d)
    assert run(s.get('old')) is None and run(s.list_recent())==[] and run(s.find_by_attributes({'x': 1}))==[]
    run(s.save(mk('new', 'again')))
    assert run(s.get('new')).messages[0].content=='again' and ids(run(DialogThreadStore(d).list()))==['new']
    assert run(s.delete('new')) and ids(run(s.list()))==[]
    shutil.rmtree(d); d.write_text('a note of mine')  # a file in the folder's place: named as what it is, left alone
    for call in (s.list(), s.get('new'), s.save(mk('x', 'y'))):
        with pytest.raises(NotADirectoryError, match="the store's folder is a file"): run(call)
    assert d.read_text()=='a note of mine'

def test_a_folder_in_the_index_files_place_is_no_index(tmp_path):
    "A folder named as the index (a person's, a sync tool's): never removed nor written into; saves succeed and every store answers from the files"
    (idx := tmp_path/DialogThreadStore.index_name).mkdir(); (idx/'mine.txt').write_text('keep')
    s = DialogThreadStore(tmp_path)
    for i in range(3): run(s.save(mk(f't{i}', f'q{i}')))
    assert sorted(ids(run(DialogThreadStore(tmp_path).list()))) == ['t0', 't1', 't2']
    assert run(DialogThreadStore(tmp_path).get('t1')).messages[0].content=='q1'
    assert [f.name for f in idx.iterdir()]==['mine.txt']

def test_notebooks_with_nbstripouts_ids_share_no_message_id(tmp_path):
    "Notebooks made elsewhere whose cell ids are nbstripout's ('0', '1', ...): their messages' ids differ between threads (each names one), and two reads of one file agree"
    from dialog.core import Dialog, prompt_output
    for name,q,a in (('tides', 'How do tides work?', 'The moon.'), ('taxes', 'When are taxes due?', 'April 15.')):
        dl = Dialog(name); dl.mk_message(q, msg_type='prompt', output=prompt_output(a), id='0'); dl.save(tmp_path/f'{name}.ipynb')
    s = DialogThreadStore(tmp_path)
    ms = {t.id:[m.id for m in t.messages] for t in run(s.list())}
    assert len(ms['tides'])==len(ms['taxes'])==2 and not set(ms['tides']) & set(ms['taxes'])
    assert [m.id for m in Thread.read(tmp_path/'tides.ipynb').messages]==ms['tides']
    for tid,mids in ms.items(): assert run(s.get_thread_by_message_id(mids[1])).id==tid

def test_answers_are_made_with_the_collector_paused(tmp_path, monkeypatch):
    "A store's answer (get, list, find) is made with the cyclic collector paused (its passes over the heap would grow faster than the answer), and it is left as found"
    s = DialogThreadStore(tmp_path)
    for i in range(3): run(s.save(mk(f't{i}', 'hi', 'hello', platforms={'slack': {'c': 'x'}})))
    seen,read = [],type(s)._threads
    def spy(self, es):
        seen.append(gc.isenabled())
        return read(self, es)
    monkeypatch.setattr(type(s), '_threads', spy)
    assert gc.isenabled()
    assert ids(run(s.find_by_platform('slack', {'c': 'x'})))==['t0', 't1', 't2']
    assert run(s.get('t1')).id=='t1' and len(run(s.list_recent()))==3
    assert seen and not any(seen) and gc.isenabled()

def test_an_error_not_of_a_file_is_raised_not_an_empty_answer(tmp_path, monkeypatch):
    "A bad or changed file makes a listing sync and leave it out; any other error reading a thread (a bug, a subclass's own check) is raised, never answered as no threads"
    s = DialogThreadStore(tmp_path)
    run(s.save(mk('a', 'hi', 'hello')))
    def boom(cls, *a, **kw): raise TypeError('a subclass that fails')
    monkeypatch.setattr(Thread, 'from_dialog', classmethod(boom))
    with pytest.raises(TypeError, match='subclass'): run(s.list_recent())

def test_each_file_is_read_once_for_its_entry_and_thread(tmp_path, monkeypatch):
    "A store that indexes a file and makes its thread reads the file once: the entry's digest and the thread are of the same bytes (a write landing between two reads would part them)"
    import dialog.threadstore as TS
    s = DialogThreadStore(tmp_path)
    for i in range(3): run(s.save(mk(f't{i}', f'q{i}')))
    (tmp_path/s.index_name).unlink()  # a new store object reads every file to index it
    time.sleep(2.1) # past the 2 s in which a file's signature may not yet tell an edit (such a file is checked by its bytes)
    from dialog.ipynb import file_digest
    opened,orig = [],os.open
    def counting(p, *a, **kw):
        if str(p).endswith('.ipynb'): opened.append(os.path.basename(p))
        return orig(p, *a, **kw)
    monkeypatch.setattr(TS.os, 'open', counting)
    import dialog.ipynb as IP
    monkeypatch.setattr(IP.os, 'open', counting)
    s2 = DialogThreadStore(tmp_path)
    s2._sync()  # the index made anew: each file read to summarise its thread
    assert sorted(opened)==['t0.ipynb', 't1.ipynb', 't2.ipynb'], opened
    opened.clear()
    assert [t.id for t in run(s2.find_by_attributes({}))]==['t0', 't1', 't2']  # an answer reads each of its files once
    assert sorted(opened)==['t0.ipynb', 't1.ipynb', 't2.ipynb'], opened
    e = s2._idmap()['t1']
    assert e['h']==file_digest(tmp_path/e['f'])

def test_a_store_without_a_path_is_kept_in_a_temporary_folder_gone_with_it():
    "narrator's `ThreadStore()` and `await ThreadStore.create()` (its memory store, Tyler's default): ours keeps the threads in a new temporary folder, removed with the store"
    from dialog.thread import ThreadStore
    async def use():
        s = await ThreadStore.create()
        t = Thread(title='My Conversation'); t.add_message(Message(role='user', content='Hello!'))
        await s.save(t)
        assert (await s.get(t.id)).title=='My Conversation'
        return s.path,(s.path/thread_fname(t.id)).exists()
    path,saved = asyncio.run(use())
    gc.collect()
    assert saved and not path.exists()
    a,b = ThreadStore(),ThreadStore()
    assert a.path!=b.path and a.path.is_dir() # each its own
    p = a.path; del a; gc.collect()
    assert not p.exists() and b.path.is_dir()

def test_a_database_url_is_refused():
    with pytest.raises(ValueError, match='database URL'): DialogThreadStore('sqlite+aiosqlite:///threads.db')

@pytest.mark.parametrize('how', ['opened on its path', 'copied', 'opened in it'])
def test_a_temporary_folder_stays_while_a_store_uses_it(how):
    "The temporary folder of a store made without a path stays while another store uses it (one opened on its path, or a copy): saved threads were lost when the first went"
    import copy
    s = DialogThreadStore()
    s2 = DialogThreadStore(s.path) if how=='opened on its path' else DialogThreadStore(s.path/'archive') if how=='opened in it' else copy.copy(s)
    t = Thread(title='kept'); t.add_message(Message(role='user', content='hi'))
    asyncio.run(s2.save(t))
    p = s.path; del s; gc.collect()
    assert p.is_dir() and asyncio.run(s2.get(t.id)).title=='kept'
    del s2; gc.collect()
    assert not p.exists()

def test_narrators_database_url_keyword():
    "narrator's `ThreadStore(database_url=None)` (and `create`'s): a temporary folder; a URL is refused by name, as given positionally"
    s = DialogThreadStore(database_url=None)
    assert s.path.is_dir()
    assert asyncio.run(DialogThreadStore.create(database_url=None)).path.is_dir()
    with pytest.raises(ValueError, match='database URL'): DialogThreadStore(database_url='sqlite+aiosqlite:///t.db')
    with pytest.raises(ValueError, match='not a database_url too'): DialogThreadStore(s.path, database_url='sqlite:///t.db')

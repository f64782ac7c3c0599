"review8: a hostile review of today's dialog.thread changes: the in-memory change guard, files found in other stores, refused attribute names, pasted copies"
import asyncio, copy, gc, json, pickle, pytest
from pathlib import Path
import dialog.chat as chat
from dialog.thread import Thread, Message, DialogFileStore
from dialog.core import Message as Cell
from dialog.ipynb import read_ipynb
from thread_cases import T0, _ts, PNG

def sample():
    "A thread with a system prompt, a reply, an image, a tool call and its result"
    t = Thread(id='s', title='S', created_at=T0, updated_at=T0)
    t.add_message(Message(role='system', content='Be brief.', timestamp=_ts(0)))
    t.add_message(Message(role='user', content='hi', timestamp=_ts(1)))
    t.add_message(Message(role='assistant', content='hello', timestamp=_ts(2)))
    t.add_message(Message(role='user', content='see', file_content=PNG, filename='c.png', timestamp=_ts(3)))
    t.add_message(Message(role='assistant', content='', timestamp=_ts(4), tool_calls=[{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]))
    t.add_message(Message(role='tool', content='42', tool_call_id='c1', name='f', timestamp=_ts(5)), same_turn=True)
    t.add_message(Message(role='assistant', content='done', timestamp=_ts(6)), same_turn=True)
    return t

def tagged(tmp_path):
    "A saved sample whose cells a person tagged (and gave a fine-tuning weight), read back"
    p = sample().save(tmp_path/'s.ipynb')
    dl = read_ipynb(p)
    for c in dl.messages: c.meta['tags'] = ['keep']; c.meta['dialog']['weight'] = 1
    dl.save(p, force=True)
    return p

def first_prompt(dlg): return next(c for c in dlg.messages if c.msg_type=='prompt')

# --- 1. the in-memory change guard: no false alarm on what only reads, copies or saves the dialog
@pytest.mark.parametrize('how', ['repr', 'copy', 'deepcopy', 'pickle', 'dlg2chat', 'render', 'dialog_save', 'same_cells', 'ai_rend'])
def test_reading_the_dialog_is_no_change(tmp_path, how):
    "Reading, rendering, copying, pickling or saving `thread.dialog` changes nothing the rebuild drops: the next `thread.dialog` and `thread.save` don't raise, and the saved thread is the thread"
    t = Thread.read(tagged(tmp_path)); dlg = t.dialog
    if how=='repr': repr(dlg); [c._repr_markdown_() for c in dlg.messages]
    elif how=='copy': copy.copy(dlg)
    elif how=='deepcopy': copy.deepcopy(dlg)
    elif how=='pickle': pickle.loads(pickle.dumps(dlg))
    elif how=='dlg2chat': chat.dlg2chat(dlg)
    elif how=='render': [c.preview() for c in dlg.messages]
    elif how=='dialog_save': dlg.save(tmp_path/'other.ipynb')
    elif how=='same_cells': dlg.messages = list(dlg.messages)
    else:
        for c in dlg.messages: c.ai_rend = 'cached'
    assert t.dialog is dlg
    t.save(tmp_path/'again.ipynb')
    assert Thread.read(tmp_path/'again.ipynb').model_dump()==t.model_dump()

# --- 1. the guard's misses: changes to a thread cell the rebuild silently dropped
def edit_then_save(p, edit):
    "Read `p`, edit the first prompt cell of its dialog in memory with `edit(cell)`, save: the ValueError it raises (None when it saved), and the first prompt cell read back"
    t = Thread.read(p); c = first_prompt(t.dialog)
    edit(c)
    try: t.save()
    except ValueError as e: return e, None
    return None, first_prompt(read_ipynb(p))

@pytest.mark.parametrize('edit', [lambda c: c.meta['tags'].append('more'),                 # a second tag, added in place
                                  lambda c: c.meta['dialog'].__setitem__('weight', 0),     # a weight changed in the cell's dialog metadata
                                  lambda c: c.meta['dialog'].__setitem__('note', 'x'),     # a key added there
                                  lambda c: setattr(c, 'id', 'renamed')])                  # the cell renamed
def test_in_place_edit_of_a_thread_cell_is_not_lost(tmp_path, edit):
    "An edit of a thread cell's tags in place, of its `dialog` metadata beside the records, or of its id, was dropped by the next save without a word: it is the guard's ValueError now (nothing written)"
    p = tagged(tmp_path); before = Path(p).read_text()
    err,_ = edit_then_save(p, edit)
    assert err is not None and 'changed in memory' in str(err)
    assert Path(p).read_text()==before

def test_edits_the_rebuild_keeps_pass(tmp_path):
    "Changing a foreign cell in memory (a note a person added) is kept by the rebuild (the cell itself is written): no false alarm"
    p = tagged(tmp_path)
    dl = read_ipynb(p); dl.insert_msgs([Cell('a note', msg_type='note', id='n1')], 0); dl.save(p, force=True)
    t = Thread.read(p); dlg = t.dialog
    dlg.messages['n1'].content = 'a better note'
    t.save()
    assert read_ipynb(p).messages['n1'].content=='a better note'

# --- 2. a file kept in the dialog, in a thread whose source thread is gone
def stored(t):
    "`t` with its image kept in its `DialogFileStore` (content cleared, as narrator's `process_and_store` leaves it)"
    m = next(m for m in t.messages if m.attachments)
    asyncio.run(m.attachments[0].process_and_store(t.file_store))
    assert m.attachments[0].content is None
    return t

@pytest.mark.parametrize('how', ['collected', 'read_collected', 'pickled', 'deepcopied'])
def test_file_survives_its_first_store(tmp_path, how):
    "Messages taken from a thread that is then garbage-collected (or from a pickled or deep-copied thread whose store was never registered) lost their file's bytes at the next save, silently"
    if how=='collected': ms = stored(sample()).messages
    elif how=='read_collected': ms = Thread.read(stored(sample()).save(tmp_path/'src.ipynb')).messages
    elif how=='pickled':
        src = stored(sample()); cp = pickle.loads(pickle.dumps(src)); del src; ms = cp.messages
    else:
        src = stored(sample()); cp = copy.deepcopy(src); del src; ms = cp.messages
    gc.collect()
    b = Thread(id='B', messages=list(ms)); gc.collect()
    assert asyncio.run(next(m for m in b.messages if m.attachments).attachments[0].get_content_bytes(b.file_store))==PNG # before the save too
    p = b.save(tmp_path/'b.ipynb')
    back = Thread.read(p)
    a = next(m for m in back.messages if m.attachments).attachments[0]
    assert asyncio.run(back.file_store.get(a.file_id))==PNG

def test_unpickled_store_is_live():
    "A store read back from a pickle is found by others, as one made new is"
    s = DialogFileStore(); fid = asyncio.run(s.save(PNG, 'c.png'))['id']
    s2 = pickle.loads(pickle.dumps(s)); del s; gc.collect()
    assert asyncio.run(DialogFileStore().get(fid))==PNG

def test_deleted_file_stays_deleted_with_its_message(tmp_path):
    "A file deleted from the thread's own store stays out of its next save, though its message's attachment once held the bytes"
    t = stored(sample()); a = next(m for m in t.messages if m.attachments).attachments[0]
    asyncio.run(t.file_store.delete(a.file_id))
    p = t.save(tmp_path/'t.ipynb')
    assert PNG not in Path(p).read_bytes() and 'iVBOR' not in Path(p).read_text()

# --- 3. names a thread refuses
def test_declared_names_still_set():
    "Names the class declares (a host's `msg_cls`, a method a test patches) and private ones are set; a misspelt field is a ValueError, as narrator's"
    from unittest import mock
    t = Thread()
    t.msg_cls = Message; t._mine = 1
    with mock.patch.object(t, 'add_message', lambda m: None): t.add_message(None)
    with pytest.raises(ValueError, match='titel'): t.titel = 'x'

# --- 4. a pasted copy of a thread cell
def paste(p, before, tmp_path):
    "A copy of the first prompt cell of `p` pasted (with a new cell id, as Jupyter pastes) just before or after it; the thread read back"
    dl = read_ipynb(p); src = first_prompt(dl)
    cp = Cell(src.content, msg_type='prompt', output=copy.deepcopy(src.output), meta=copy.deepcopy(src.meta), id='pasted1')
    i = list(dl.messages).index(src)
    dl.insert_msgs([cp], i if before else i+1)
    q = dl.save(tmp_path/f'p{before}.ipynb')
    return Thread.read(q)

@pytest.mark.parametrize('before', [False, True])
def test_pasted_copy_above_or_below(tmp_path, before):
    "The original cell's messages keep their ids and numbers wherever the copy is pasted; the copy's are new (a copy pasted above its original took the original's ids, and the original was renumbered as the copy)"
    t0 = Thread.read(sample().save(tmp_path/'s.ipynb'))
    want = {m.id:(m.sequence, m.turn) for m in t0.messages}
    t = paste(tmp_path/'s.ipynb', before, tmp_path)
    home = {m.id:m._home[0].id for m in t.messages if getattr(m, '_home', None)}
    assert all(home[i]!='pasted1' for i in want if i in home)
    assert {m.id:(m.sequence, m.turn) for m in t.messages if m.id in want}==want
    new = [m for m in t.messages if m.id not in want]
    assert [(m.role, m.content) for m in new]==[('user', 'hi'), ('assistant', 'hello')] and all(m._home[0].id=='pasted1' for m in new)

def test_message_held_twice_reads_back(tmp_path):
    "A message a thread holds twice (narrator keeps it so) reads back twice with its id, not as a person's pasted copy"
    t = Thread(id='d'); m = Message(role='user', content='x'); t.add_message(m); t.add_message(Message(role='assistant', content='y')); t.messages.append(m)
    back = Thread.read(t.save(tmp_path/'d.ipynb'))
    assert back.model_dump()==t.model_dump()

# --- a shallow copy of a thread read from a file (model_copy, copy.copy)
@pytest.mark.parametrize('how', ['model_copy', 'copy'])
def test_shallow_copy_of_a_read_thread_has_a_dialog(tmp_path, how):
    "A shallow copy of a thread read from a file with cells a person added shares the original's cells: its `dialog` was a ValueError (message already in dialog 's'); it has its own, and both save what they hold"
    p = tagged(tmp_path)
    dl = read_ipynb(p); dl.insert_msgs([Cell('a note', msg_type='note', id='n1'), Cell('typed', msg_type='prompt', id='u1')], len(dl.messages)); dl.save(p, force=True)
    t = Thread.read(p); t.dialog
    c = t.model_copy() if how=='model_copy' else copy.copy(t)
    c.add_message(Message(role='assistant', content='more'))
    q = c.save(tmp_path/'c.ipynb')
    c.dialog.messages['n1'].content = 'edited in the copy'; c.save() # the copy's own cell: kept by its next save
    assert read_ipynb(q).messages['n1'].content=='edited in the copy' and read_ipynb(p).messages['n1'].content=='a note'
    assert Thread.read(q).model_dump(exclude={'updated_at'})==c.model_dump(exclude={'updated_at'})
    t.save(); assert Thread.read(p).model_dump()==t.model_dump()

@pytest.mark.xfail(strict=True, reason="the guard keeps the last build per dialog, not per thread: Thread.from_dialog(dlg) forgets it, so the thread that made dlg rebuilds it from its own messages without a word")
def test_stale_thread_after_another_takes_the_dialog_in(tmp_path):
    "A cell added to `thread.dialog`, taken in by `Thread.from_dialog(dlg)` as the guard's message says; the first thread's next save drops the cell from the file and from `dlg` silently"
    p = sample().save(tmp_path/'s.ipynb')
    t = Thread.read(p); dlg = t.dialog
    dlg.insert_msgs([Cell('a note', msg_type='note', id='n1')], 0)
    t2 = Thread.from_dialog(dlg)
    with pytest.raises(ValueError, match='changed in memory'): t.save()

@pytest.mark.xfail(strict=True, reason="the guard looks one level into a cell's outputs (a new list, or one added to): a reply's text changed inside its output dict is dropped by the rebuild; `cell.ai_res = ...` is caught")
def test_reply_edited_inside_its_output(tmp_path):
    "A reply's markdown changed in place in the cell's output bundle"
    err,_ = edit_then_save(tagged(tmp_path), lambda c: c.output[0]['data'].__setitem__('text/markdown', 'EDITED'))
    assert err is not None

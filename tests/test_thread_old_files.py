"Files written before ids came from the cell that tells them (ids `<run's first cell>-k`, whole `changed` records, cells naming no thread) read as they were written"
import copy, json, uuid
from pathlib import Path
import pytest
from dialog.core import Dialog
from dialog.thread import Thread, Message

def edit_nb(p, f):
    nb = json.loads(Path(p).read_text()); f(nb); Path(p).write_text(json.dumps(nb, indent=1))

TS = '2026-01-01T00:00:00+00:00'

def old_file(p, changed, extra=False):
    "A notebook made elsewhere, adopted as a thread by the earlier code: its thread record's `changed` holds whole records by the ids it gave"
    dl = Dialog('notes'); dl.mk_message('Where is 12345?', msg_type='prompt', output='It shipped.')
    if extra: dl.mk_message('x=1', msg_type='code'); dl.mk_message('Next?', msg_type='prompt', output='Sure.')
    dl.save(p)
    c0 = json.loads(Path(p).read_text())['cells'][0]['id']
    def put(nb):
        rs = {f'{c0}-{k}': dict(id=f'{c0}-{k}', sequence=k+1, turn=k+1, timestamp=TS) | r for k,r in changed.items()}
        nb['metadata']['dialog'] = dict(thread=dict(id='notes', title='Untitled Thread', created_at=TS, updated_at=TS,
                                                    attributes={}, platforms={}, changed=rs))
    edit_nb(p, put)
    return c0

def test_an_old_files_changed_records_keep_their_messages(tmp_path):
    "Ids as the earlier code gave them (the run's first cell's, counted through the run): its attributes and reactions on every message, also after a save"
    p = tmp_path/'notes.ipynb'
    c0 = old_file(p, {0: dict(role='user', content='Where is 12345?', attributes={'tag': 'u'}),
                      2: dict(role='user', content='<code>x=1</code>\n\nNext?', attributes={'tag': 'u2'}),
                      3: dict(role='assistant', content='Sure.', attributes={'tag': 'a2'}, reactions={'thumbsup': ['u1']})}, extra=True)
    for t in [Thread.read(p), (Thread.read(p).save(), Thread.read(p))[1]]:
        assert [(m.id, m.attributes, m.reactions) for m in t.messages]==[
            (f'{c0}-0', {'tag': 'u'}, {}), (f'{c0}-1', {}, {}), (f'{c0}-2', {'tag': 'u2'}, {}), (f'{c0}-3', {'tag': 'a2'}, {'thumbsup': ['u1']})]

def test_a_persons_edit_shows_over_an_old_whole_record(tmp_path):
    "An old record holds the content the cell had then: the text a person typed since wins, the program's reaction stays"
    p = tmp_path/'notes.ipynb'
    old_file(p, {1: dict(role='assistant', content='It shipped.', reactions={'thumbsup': ['u1']})})
    def edit(nb):
        c = nb['cells'][0]; c['source'] = '%%prompt\nWhere is 99999?'; c['outputs'][0]['data']['text/markdown'] = 'It shipped last week.'
    edit_nb(p, edit)
    assert [(m.role, m.content, m.reactions) for m in Thread.read(p).messages]==[
        ('user', 'Where is 99999?', {}), ('assistant', 'It shipped last week.', {'thumbsup': ['u1']})]

@pytest.mark.parametrize('k,fix', [(1, 'It shipped yesterday.'), (0, 'Where is order 12345?')])
def test_an_old_whole_record_of_a_content_correction_keeps_it(tmp_path, k, fix):
    "An old record differing from the untouched cell in its content alone: the program's correction, kept, also after a save"
    p = tmp_path/'notes.ipynb'
    old_file(p, {k: dict(role=['user', 'assistant'][k], content=fix)})
    want = [('user', 'Where is 12345?'), ('assistant', 'It shipped.')]; want[k] = (want[k][0], fix)
    for t in [Thread.read(p), (Thread.read(p).save(), Thread.read(p))[1]]:
        assert [(m.role, m.content) for m in t.messages]==want

@pytest.mark.parametrize('at', [1, 2])
def test_a_cell_added_inside_an_old_run_moves_no_change(tmp_path, at):
    "A prompt a person adds inside a run of a file with ids by run (after a save): each program's change stays on its message"
    p = tmp_path/'notes.ipynb'
    old_file(p, {3: dict(role='assistant', content='Sure.', reactions={'thumbsup': ['u1']})}, extra=True)
    t = Thread.read(p); t.messages[1].attributes = {'tag': 'first-reply'}; t.save()
    def ins(nb):
        c = copy.deepcopy(nb['cells'][0]); c['id'] = uuid.uuid4().hex[:8]; c['metadata'].pop('dialog', None)
        c['source'] = '%%prompt\nAnd 777?'; c['outputs'][0]['data']['text/markdown'] = 'Lost.'
        nb['cells'].insert(at, c)
    edit_nb(p, ins)
    for t in [Thread.read(p), (Thread.read(p).save(), Thread.read(p))[1]]:
        got = {m.content: (m.attributes, m.reactions) for m in t.messages}
        assert got['It shipped.']==({'tag': 'first-reply'}, {}) and got['Sure.']==({}, {'thumbsup': ['u1']})
        assert got['Lost.']==({}, {}) and len({m.id for m in t.messages})==len(t.messages)

def test_an_old_whole_record_of_a_cleared_reply_is_an_error_naming_the_cell(tmp_path):
    "Outputs cleared under an old record of the reply: a ValueError naming the cell, never the reply silently gone"
    p = tmp_path/'notes.ipynb'
    c0 = old_file(p, {1: dict(role='assistant', content='It shipped yesterday.')})
    edit_nb(p, lambda nb: [c.__setitem__('outputs', []) for c in nb['cells']])
    with pytest.raises(ValueError, match=f"cell '{c0}'.*reply is gone"): Thread.read(p)

def test_a_cell_pasted_from_a_file_whose_cells_named_no_thread(tmp_path):
    "A cell whose records name no thread, pasted into a file whose cells name theirs, is a person's prompt: new ids, none shared"
    b = tmp_path/'other.ipynb'
    o = Thread(id='other'); o.add_message(Message(role='user', content='Other question')); o.add_message(Message(role='assistant', content='Other answer'))
    o.save(b)
    edit_nb(b, lambda nb: nb['cells'][0]['metadata']['dialog'].pop('thread_id')) # as the earlier code wrote it
    a = tmp_path/'mine.ipynb'
    t = Thread(id='mine'); t.add_message(Message(role='user', content='My question')); t.add_message(Message(role='assistant', content='My answer'))
    t.save(a)
    c = copy.deepcopy(json.loads(b.read_text())['cells'][0]); c['id'] = uuid.uuid4().hex[:8]
    edit_nb(a, lambda nb: nb['cells'].append(c))
    ms = Thread.read(a).messages
    assert not {m.id for m in ms} & {m.id for m in Thread.read(b).messages}
    assert [(m.id, m.content) for m in ms[2:]]==[(f"{c['id']}-0", 'Other question'), (f"{c['id']}-1", 'Other answer')]

"Sequence numbers follow the notebook's order after a person inserts prompts between a thread's cells (issue 32, item 4): the inserted messages are numbered after the message before them, and every message after them moves up"
import asyncio, json
from pathlib import Path
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.thread import Thread, Message
from dialog.ipynb import read_ipynb
from thread_cases import building
import dialog.thread as ours

def saved(tmp_path, name='t.ipynb'):
    t = building(ours)
    return t, t.save(tmp_path/name)

def insert_prompts(p, places):
    "A person inserts a prompt (with a reply) before each cell index of `places` (indexes in the file as it was)"
    dlg = read_ipynb(p)
    for k,at in enumerate(sorted(places, reverse=True)): dlg.mk_message(f'A question a person typed {k}', idx=at, msg_type='prompt', output=f'Its answer {k}.')
    dlg.save()

def in_order(t):
    ns = [m for m in t.messages if m.role!='system']
    seq = [m.id for m in t.get_messages_in_sequence() if m.role!='system']
    chat = [d['content'] for d in asyncio.run(t.get_messages_for_chat_completion())]
    return seq==[m.id for m in ns] and chat==[m.to_chat_completion_message()['content'] for m in ns] and [m.sequence for m in ns]==sorted({m.sequence for m in ns})

def test_inserted_prompt_sorts_in_place(tmp_path):
    t,p = saved(tmp_path)
    insert_prompts(p, [1])
    back = Thread.read(p)
    assert in_order(back)
    qs = [m.content for m in back.get_messages_in_sequence() if m.role=='user']
    assert qs==[t.get_message_by_id('u1').content, 'A question a person typed 0', 'Power is fine. Can you check the cable and the monitor?', 'Thanks!']
    turns = [m.turn for m in back.messages if m.role=='user']
    assert turns==sorted(set(turns)) # each user message starts a turn of its own, in order
    assert Thread.read(p).model_dump()==back.model_dump() # the same numbers on every read

def test_numbers_kept_by_saves(tmp_path):
    "A save writes the moved numbers so that the next read gives them again, and later saves keep them"
    t,p = saved(tmp_path)
    insert_prompts(p, [0, 2])
    back = Thread.read(p); back.save()
    again = Thread.read(p)
    assert again.model_dump()==back.model_dump() and in_order(again)
    again.add_message(Message(role='user', content='one more')); again.add_reaction(again.messages[-2].id, 'x', 'u'); again.save()
    last = Thread.read(p)
    assert last.model_dump()==again.model_dump() and in_order(last)

def test_thread_without_insertions_keeps_its_numbers(tmp_path):
    "Numbers a program set out of order (narrator allows any) are kept when no cell was inserted"
    t = building(ours); t.messages[2].sequence = 40; t.messages[3].turn = 9
    p = t.save(tmp_path/'t.ipynb')
    assert Thread.read(p).model_dump()==t.model_dump()

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.integers(0, 3), max_size=4), st.booleans())
def test_property_insertions(tmp_path_factory, places, edit):
    d = tmp_path_factory.mktemp('seq')
    t,p = saved(d)
    insert_prompts(p, places)
    back = Thread.read(p)
    assert in_order(back)
    if edit: back.add_message(Message(role='user', content='later'))
    back.save()
    again = Thread.read(p)
    assert again.model_dump()==back.model_dump() and in_order(again)

def test_moved_cells_then_an_insertion(tmp_path):
    "Records out of the notebook's order (a person moved a cell): inserted prompts go past every number, nothing repeats, and saves read back the same"
    t,p = saved(tmp_path)
    nb = json.loads(Path(p).read_text()); nb['cells'].insert(0, nb['cells'].pop(2)); Path(p).write_text(json.dumps(nb))
    insert_prompts(p, [1])
    back = Thread.read(p)
    seqs = [m.sequence for m in back.messages if m.role!='system']
    assert len(seqs)==len(set(seqs)) and [m.sequence for m in back.messages if m.content=='A question a person typed 0'][0]==max(seqs)-1 # past every number; its answer is the last
    back.save()
    assert json.loads(Path(p).read_text())['metadata']['dialog']['thread']['numbering']=='appended'
    again = Thread.read(p); assert again.model_dump()==back.model_dump()

def test_thread_numbered_out_of_order_with_a_run(tmp_path):
    "A thread a program numbered out of order, with a prompt a person added: the save says so, and the next read gives the same numbers"
    t,p = saved(tmp_path)
    insert_prompts(p, [2])
    back = Thread.read(p); back.messages[1].sequence = 99; back.save()
    assert Thread.read(p).model_dump()==back.model_dump()

def test_late_system_stays_after_its_message(tmp_path):
    "A system message appended late (`messages.append`), then a person inserts a prompt near the top: it was put back at its stored index, two messages too early"
    t,p = saved(tmp_path)
    t.messages.append(Message(role='system', content='From now on, answer in French.')); t.messages.append(Message(role='system', content='And be brief.'))
    t.save(force=True)
    want = [m.content for m in t.messages]
    insert_prompts(p, [0])
    cs = [m.content for m in Thread.read(p).messages]
    assert cs[-3:]==want[-3:] and len(cs)==len(want)+2

def test_late_system_whose_message_is_gone(tmp_path):
    "The message a late system message followed was taken out by a person (its cell deleted): it goes back to its place"
    from thread_cases import T0
    t = Thread(id='s', created_at=T0)
    for i,r in enumerate(['user', 'assistant', 'user', 'assistant']): t.add_message(Message(id=f'm{i}', role=r, content=f'c{i}', timestamp=T0))
    t.messages.append(Message(role='system', content='late', id='s9', timestamp=T0))
    p = t.save(tmp_path/'s.ipynb')
    nb = json.loads(p.read_text()); nb['cells'].pop(); p.write_text(json.dumps(nb))
    assert [m.id for m in Thread.read(p).messages]==['m0', 'm1', 's9']

def test_pasted_copies_numbered_in_one_pass(tmp_path, monkeypatch):
    "Each pasted copy looked up the thread's largest numbers again, after the last copy's renumbering had made it rescan every message: reading n copies was O(n x messages)"
    import dialog.thread_sync as sync
    t = Thread(id='q')
    for i in range(40): t.add_message(Message(role='user', content=f'q{i}')); t.add_message(Message(role='assistant', content=f'a{i}'))
    p = t.save(tmp_path/'q.ipynb')
    nb = json.loads(p.read_text()); nb['cells'] = [x for i,c in enumerate(nb['cells']) for x in (c, dict(c, id=f'c{i:07x}'))]; p.write_text(json.dumps(nb))
    calls = []
    real = sync.numbers_past
    monkeypatch.setattr(sync, 'numbers_past', lambda *a: calls.append(1) or real(*a))
    back = Thread.read(p)
    assert len(back.messages)==160 and len({m.sequence for m in back.messages})==160
    assert len(calls)==1

def test_cells_a_person_adds_share_no_sequence_number_with_earlier_ones(tmp_path):
    "A prompt added at the top (its numbers kept in `changed` once saved), the first thread cell pasted at the end, then the added prompt pasted further down: no sequence number twice"
    import collections, copy, json
    from pathlib import Path
    def edit(f):
        nb = json.loads(Path(p).read_text()); f(nb); Path(p).write_text(json.dumps(nb))
    def dup(i, j, cid):
        return lambda nb: nb['cells'].insert(j, dict(copy.deepcopy(nb['cells'][i]), id=cid))
    t = Thread(id='sq'); t.add_message(Message(role='system', content='Be brief.')); t.add_message(Message(role='user', content='Q1?'))
    t.add_message(Message(role='assistant', content='', tool_calls=[{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]))
    t.add_message(Message(role='tool', name='f', tool_call_id='c1', content='r'), same_turn=True)
    t.add_message(Message(role='assistant', content='A1.'), same_turn=True)
    t.add_message(Message(role='user', content='Q2?')); t.add_message(Message(role='assistant', content='A2.'))
    p = t.save(tmp_path/'t.ipynb')
    new = {'cell_type': 'code', 'id': 'newq0001', 'metadata': {'solveit_ai': True}, 'execution_count': None, 'source': ['%%prompt\n', 'new q'],
           'outputs': [{'data': {'text/markdown': ['new a']}, 'metadata': {'is_ai_res': True}, 'output_type': 'display_data'}]}
    edit(lambda nb: nb['cells'].insert(0, new)); Thread.read(p).save()
    edit(dup(1, 3, 'dup10003')); Thread.read(p).save()
    edit(dup(0, 3, 'dup00003'))
    t = Thread.read(p)
    assert not [s for s,n in collections.Counter(m.sequence for m in t.messages if m.role!='system').items() if n>1]
    t.save(); assert Thread.read(p).model_dump(mode='json')==t.model_dump(mode='json')

def _branches(tmp_path):
    "One thread file copied to two branches; each adds a turn through the thread and saves; the merge keeps both new cells"
    import shutil
    t,base = saved(tmp_path, 'base.ipynb'); a,b = tmp_path/'a.ipynb',tmp_path/'b.ipynb'
    shutil.copy(base, a); shutil.copy(base, b)
    for p,who in ((a, 'A'), (b, 'B')):
        x = Thread.read(p); x.add_message(Message(role='user', content=f'{who} asks')); x.add_message(Message(role='assistant', content=f'{who} answer')); x.save()
    last = json.loads(b.read_text())['cells'][-1]
    nb = json.loads(a.read_text()); nb['cells'].append(last); a.write_text(json.dumps(nb, indent=1))
    return a

def test_two_branches_merged_share_no_sequence_number(tmp_path):
    "Both branches' turns got the same turn and sequence numbers: the later cell's messages are numbered past every other (ids kept), and saves keep that"
    p = _branches(tmp_path)
    back = Thread.read(p)
    assert [m.content for m in back.messages][-4:]==['A asks', 'A answer', 'B asks', 'B answer'] and in_order(back)
    assert len({m.id for m in back.messages})==len(back.messages)
    back.save(); again = Thread.read(p)
    assert [(m.id, m.turn, m.sequence) for m in again.messages]==[(m.id, m.turn, m.sequence) for m in back.messages]

def test_numbers_a_program_gave_twice_are_kept(tmp_path):
    "A program set two messages to one sequence number: the file says so (`seq_dups`), and the read keeps both numbers as they were"
    t = Thread(id='s'); t.add_message(Message(role='user', content='one')); t.add_message(Message(role='assistant', content='two'))
    t.add_message(Message(role='user', content='three')); t.messages[2].sequence = t.messages[0].sequence
    p = t.save(tmp_path/'s.ipynb')
    assert [m.sequence for m in Thread.read(p).messages]==[m.sequence for m in t.messages]

@pytest.mark.parametrize('nums', [[(-5, -10), (-5, -9), (-3, -8), (-3, -7)], [(0, 0), (0, 1), (1, 2), (1, 3)], [(-1, -1), (0, 0), (1, 1), (1, 2)], [(5, 10), (5, 11), (6, 12), (6, 13)]])
@pytest.mark.parametrize('at', [0, 1, 2])
def test_prompt_typed_into_a_thread_numbered_at_or_below_zero(tmp_path, nums, at):
    "narrator numbers turns from any int: a prompt a person types sorts where the file shows it, below zero too, and repeats no number"
    t = Thread(id='t')
    for i,(tn,sq) in enumerate(nums):
        t.messages.append(Message(role='assistant' if i%2 else 'user', content=f'm{i}', turn=tn, sequence=sq, id=f'm{i}'))
    p = t.save(tmp_path/'t.ipynb')
    assert len(read_ipynb(p).messages)==2 # a prompt cell a turn
    insert_prompts(p, [at])
    back = Thread.read(p)
    assert in_order(back)
    assert [m.content for m in back.messages].index('A question a person typed 0')==2*at
    ours_ = [(m.turn, m.sequence) for m in back.messages if m.id.startswith('m')] # the thread's own messages
    # the records before the typed prompt keep their numbers; those after it move up, all by the same, past its two messages
    assert ours_[:2*at]==nums[:2*at]
    shifts = {(a-tn, b-sq) for (a,b),(tn,sq) in zip(ours_[2*at:], nums[2*at:])}
    assert len(shifts)<=1 and all(dt>=1 and ds==2 for dt,ds in shifts)
    assert Thread.read(p).model_dump()==back.model_dump()
    # saved again, the file is numbered as a reader numbers it (the writer agrees with the reader): no number is pinned
    back.save(p)
    assert 'changed' not in read_ipynb(p).meta['dialog']['thread']
    assert Thread.read(p).model_dump()==back.model_dump()

"A thread stored as a dialog: save/read round trips, valid files, dialogs made elsewhere"
import asyncio, json, pytest, nbformat, uuid
from pathlib import Path
from datetime import datetime, timedelta, timezone
from hypothesis import given, example, settings, HealthCheck, strategies as st
from dialog.core import Dialog
from dialog.ipynb import read_ipynb, DialogConflictError, DialogFormatError
from dialog.chat import tool_block, dlg2chat
from dialog.thread import Thread, Message
from thread_cases import building, answers
import dialog.thread as ours

from shared_paths import corpus_params
from thread_cases import _norm
from thread_cases import _ts
from datetime import date
narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle these tests compare with, needs Python 3.11 or newer')
from thread_cases import ok_or_error
from thread_cases import ticket_classes
corpus = [p for p in corpus_params('**/*.ipynb') if getattr(p, 'name', '')!='invalid.ipynb']

def roundtrip(t, tmp_path, name='t.ipynb'):
    p = t.save(tmp_path/name)
    nbformat.validate(nbformat.read(p, as_version=4))
    return Thread.read(p), p

def test_building_roundtrip(tmp_path):
    t = building(ours)
    back,p = roundtrip(t, tmp_path)
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert json.loads(back.model_dump_json())==json.loads(t.model_dump_json()) # key order inside user dicts follows the file (sorted keys)
    assert answers(back)==answers(t)
    assert back.created_at==t.created_at and back.updated_at==t.updated_at

def test_file_reads_as_a_dialog(tmp_path):
    "Each user message is a prompt, its turn's replies and tool calls are the reply, the system message is Dialog.system"
    t = building(ours)
    _,p = roundtrip(t, tmp_path)
    dlg = read_ipynb(p)
    assert dlg.system==t.get_system_message().content=='Be concise.' # the late system message went first, as in narrator
    assert [c.msg_type for c in dlg.messages]==['prompt']*3
    assert [c.content for c in dlg.messages]==[m.content for m in t.messages if m.role=='user']
    r = dlg.messages[1].ai_res
    assert 'Checking both.' in r and tool_block('call_a', 'check_cable', {'port': 'hdmi'}, 'Cable loose') in r
    assert r.index('Checking both.') < r.index('check_cable') < r.index('check_monitor') < r.index('HDMI cable is loose')
    rec = dlg.meta['dialog']['thread']
    assert (rec['id'], rec['title']) == ('th-1', 'Technical Support')
    assert [s['id'] for s in rec['system']]==['s2', 's1'] and 'content' not in rec['system'][0] and rec['system'][1]['content']
    cell_recs = dlg.messages[1].meta['dialog']['thread']
    assert [r['id'] for r in cell_recs]==['u2', 'a3', 't2', 't3', 'a4']
    assert 'content' not in cell_recs[0] and [r['content'] for r in cell_recs[1:]]==[m.content for m in t.messages if m.id in ('a3', 't2', 't3', 'a4')] # the request is the cell's source; the reply's records keep its texts (outputs can be cleared)

def test_save_twice_unchanged(tmp_path):
    t = building(ours)
    p = t.save(tmp_path/'t.ipynb'); data = p.read_bytes()
    t.save(); assert p.read_bytes()==data
    back = Thread.read(p); back.save(); assert p.read_bytes()==data

def test_conflict_safe(tmp_path):
    t = building(ours)
    p = t.save(tmp_path/'t.ipynb')
    other = Thread.read(p); other.add_message(Message(role='user', content='from elsewhere')); other.save()
    t.add_message(Message(role='user', content='mine'))
    with pytest.raises(DialogConflictError): t.save()
    assert Thread.read(p).messages[-1].content=='from elsewhere'
    t.save(force=True)
    assert Thread.read(p).messages[-1].content=='mine'
    with pytest.raises(DialogConflictError): Thread().save(p) # not the file it came from

def test_save_needs_a_name():
    with pytest.raises(ValueError, match='no file yet'): Thread().save()

def test_dialog_is_kept_up_to_date():
    t = Thread()
    d = t.dialog
    t.add_message(Message(role='user', content='hi'))
    assert t.dialog is d and [c.content for c in d.messages]==['hi']
    t.add_message(Message(role='system', content='sys'))
    assert d.system is None and t.dialog.system=='sys' and t.dialog is d # brought up to date when asked for

T0 = datetime(2024, 5, 1, tzinfo=timezone.utc)
texts = st.one_of(st.none(), st.text(max_size=30), st.sampled_from(['', '\n\n', ' ', 'A\n\n', '\n', '🧠', '*[Response interrupted]*',
    tool_block('x1', 'f', {}, 'r'), "<details class='tool-usage-details'>", '```json\n{}\n```', '- ⏳ <code>x</code> ⏳']),
    st.just([{'type': 'text', 'text': 'part'}]))
call_ids = st.sampled_from(['c1', 'c2', 'c3'])
calls = st.lists(st.builds(lambda i,n,a: {'id': i, 'type': 'function', 'function': {'name': n, 'arguments': a}},
                           call_ids, st.sampled_from(['f', 'g']), st.sampled_from(['{}', '{"a": 1}', 'not json', '[1]', '{"a":1}'])), max_size=2)
msg = st.one_of(
    st.builds(lambda c: dict(role='user', content=c), texts),
    st.builds(lambda c,tc,r: dict(role='assistant', content=c, tool_calls=tc or None, reasoning_content=r), texts, calls, st.one_of(st.none(), st.text(max_size=5))),
    st.builds(lambda c,i,n: dict(role='tool', content=c, tool_call_id=i, name=n), texts, call_ids, st.one_of(st.none(), st.just('f'))),
    st.builds(lambda c: dict(role='system', content=c), texts))
op = st.tuples(st.lists(msg, min_size=1, max_size=3), st.sampled_from(['add', 'same', 'batch']),
               st.one_of(st.none(), st.fixed_dictionaries({'model': st.sampled_from(['m1', None]), 'timing': st.fixed_dictionaries({'latency': st.integers(0, 9)}),
                                                            'usage': st.fixed_dictionaries({'total_tokens': st.integers(0, 9)})})),
               st.booleans())

def build(ops):
    t,n = Thread(id='h', title='T', attributes={'k': [1]}, platforms={'p': {'a': 'b'}}),0
    for ms,how,metrics,react in ops:
        made = []
        for d in ms:
            n += 1
            made.append(Message(id=f'm{n}', timestamp=T0+timedelta(seconds=n), **({} if metrics is None else {'metrics': metrics}), source={'type': 'agent', 'id': 'a'} if n%3==0 else None, **d))
        if how=='batch': t.add_messages_batch(made)
        else:
            for m in made: t.add_message(m, same_turn=how=='same')
        if react: t.add_reaction(made[0].id, 'thumbsup', f'u{n}')
    return t

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(op, max_size=6))
def test_property_roundtrip(tmp_path, ops):
    t = build(ops)
    back,_ = roundtrip(t, tmp_path, f'{uuid.uuid4()}.ipynb')
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert answers_of(back)==answers_of(t)

def answers_of(t):
    return (t.get_total_tokens(), t.get_model_usage(), t.get_message_counts(), t.get_message_timing_stats(), t.get_tool_usage(),
            t.get_turns_summary(), t.get_current_turn(), [m.id for m in t.get_messages_in_sequence()])

def test_foreign_dialog_roles_and_cells_kept(tmp_path):
    "A dialog made elsewhere: notes and code are context for the next prompt, replies with tool blocks become assistant/tool messages"
    d = Dialog('made-elsewhere')
    d.mk_message('Some notes', msg_type='note')
    d.mk_message('x = 1', msg_type='code')
    d.mk_message('raw stuff', msg_type='raw')
    d.mk_message('What is x?', msg_type='prompt', output='Let me look.\n\n' + tool_block('t1', 'show', {'name': 'x'}, '1') + '\n\nIt is 1.')
    d.mk_message('trailing note', msg_type='note')
    p = tmp_path/'f.ipynb'; d.save(p)
    t = Thread.read(p)
    assert [(m.role, m.turn) for m in t.messages]==[('user', 1), ('assistant', 2), ('tool', 2), ('assistant', 2), ('user', 3)]
    chat = [m for m in dlg2chat(read_ipynb(p)) if m['role']!='system']
    assert [m.role for m in t.messages]==[m['role'] for m in chat] and [m.content for m in t.messages]==[m['content'] for m in chat] # roles as dialog.chat assigns them
    assert 'Some notes' in t.messages[0].content and 'x = 1' in t.messages[0].content and '<raw id=' in t.messages[0].content  # raw messages are context too (issue 17)
    assert t.messages[1].tool_calls==[{'id': 't1', 'type': 'function', 'function': {'name': 'show', 'arguments': '{"name": "x"}'}}]
    assert (t.messages[2].content, t.messages[2].tool_call_id) == ('1', 't1')
    notime = lambda t: [{k:v for k,v in d.items() if k!='timestamp'} for d in t.model_dump(mode='json')['messages']]
    assert notime(Thread.read(p))==notime(t) # same ids on every read (times are the thread's creation time, fixed once it is saved)
    t.add_message(Message(role='user', content='thanks'))
    t.save()
    back = read_ipynb(p)
    assert [c.id for c in back.messages[:5]]==[c.id for c in d.messages]
    assert [c.content for c in back.messages[:5]]==[c.content for c in d.messages]
    assert back.messages[5].content=='thanks'
    assert Thread.read(p).model_dump(mode='json')==t.model_dump(mode='json')

@pytest.mark.parametrize('path', corpus, ids=lambda p: p.name)
def test_corpus_opens_as_thread(path, tmp_path):
    "Every real notebook opens as a thread, and writing the thread back keeps every cell"
    try: dlg = read_ipynb(path)
    except DialogFormatError as e: pytest.skip(f'read_ipynb refuses this file (no thread to open): {e}')
    t = Thread.from_dialog(dlg)
    assert all(m.role in ('system', 'user', 'assistant', 'tool') for m in t.messages)
    cells = [c.todict() for c in dlg.messages]
    if t.messages: t.add_reaction(t.messages[-1].id, 'eyes', 'ann')
    p = t.save(tmp_path/path.name)
    back = read_ipynb(p)
    assert [c.todict() for c in back.messages]==cells
    t2 = Thread.read(p)
    assert t2.model_dump(mode='json')==t.model_dump(mode='json')

def test_bad_records_raise(tmp_path):
    t = building(ours); p = t.save(tmp_path/'t.ipynb')
    nb = json.loads(p.read_text())
    nb['cells'][0]['metadata']['dialog']['thread'][1]['role'] = 'robot'
    p.write_text(json.dumps(nb))
    with pytest.raises(ValueError, match=r"cell 0 \(id '[0-9a-f]{8}'\), record 1: bad thread record 'a1'"): Thread.read(p)
    nb['cells'][0]['metadata']['dialog']['thread'] = 'nope'
    p.write_text(json.dumps(nb))
    with pytest.raises(ValueError, match='cell 0'): Thread.read(p)

def _provider_check(nar_thread, t):
    nar = asyncio.run(nar_thread.get_messages_for_chat_completion())
    oa = dlg2chat(t.dialog)
    assert oa[0]=={'role': 'system', 'content': t.get_system_message().content}
    assert oa[1:]==[{k:v for k,v in d.items() if k not in ('sequence', 'name')} for d in nar]

def _first_turns(mod):
    "`building` up to its first batch: sequential calls only"
    t = building(mod)
    keep = [m for m in t.messages if m.role=='system' or m.sequence<=4]
    t2 = mod.Thread(id='x')
    for m in keep: t2.add_message(mod.Message(id=m.id, role=m.role, content=m.content, tool_calls=m.tool_calls, tool_call_id=m.tool_call_id, name=m.name, timestamp=m.timestamp))
    return t2

def test_provider_shapes_match_narrators_chat_list():
    "dialog.chat's OpenAI list of the stored thread is narrator's chat-completion list in OpenAI's shape"
    narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle, needs Python 3.11 or newer')
    _provider_check(_first_turns(narrator), _first_turns(ours))
    t = building(ours)
    assert dlg2chat(t.dialog, 'anthropic')[0]=={'role': 'user', 'content': "My computer won't start. The screen is black."}

def test_provider_shapes_parallel_calls():
    "One assistant message with two calls stays one message with two calls"
    narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle, needs Python 3.11 or newer')
    _provider_check(building(narrator), building(ours))

def test_attachments_survive(tmp_path):
    t = Thread(); t.add_message(Message(role='user', content='see file', attachments=[{'filename': 'a.txt', 'mime_type': 'text/plain'}]))
    back,_ = roundtrip(t, tmp_path)
    assert [a.model_dump() for a in back.messages[0].attachments]==[a.model_dump() for a in t.messages[0].attachments] and back.messages[0].attachments[0].mime_type=='text/plain'
    assert json.loads(back.model_dump_json())==json.loads(t.model_dump_json())

@pytest.mark.parametrize('args', ['{"a":1}', '{"a": 1}', '{\n  "q": "é"\n}'])
def test_arguments_reach_the_provider_as_written(args):
    t = Thread(); t.add_message(Message(role='user', content='go'))
    t.add_message(Message(role='assistant', content=None, tool_calls=[{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': args}}]))
    t.add_message(Message(role='tool', content='ok', tool_call_id='c'), same_turn=True)
    assert dlg2chat(t.dialog)[1]['tool_calls'][0]['function']['arguments']==args

@pytest.mark.slow
def test_large_thread_roundtrip(tmp_path):
    "20,000 messages save and read back to the same thread"
    import random
    rnd,t = random.Random(3),Thread(id='big')
    for i in range(20_000):
        role = rnd.choice(['user', 'assistant', 'tool'])
        kw = dict(role=role, content=f'message {i}', timestamp=T0+timedelta(seconds=i))
        if role=='tool': kw['tool_call_id'] = f'c{i-1}'
        if role=='assistant' and rnd.random()<0.3: kw['tool_calls'] = [{'id': f'c{i}', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"i": %d}' % i}}]
        t.add_message(Message(**kw), same_turn=role!='user')
    back,_ = roundtrip(t, tmp_path)
    assert back.model_dump(mode='json')==t.model_dump(mode='json')

@pytest.mark.parametrize('how', ['pickle', 'deepcopy'])
def test_pickle_and_copy(how):
    import pickle, copy
    t = building(ours); t.dialog
    t2 = pickle.loads(pickle.dumps(t)) if how=='pickle' else copy.deepcopy(t)
    assert t2.model_dump(mode='json')==t.model_dump(mode='json') and answers(t2)==answers(t)
    assert all([r() for r in m._links]==[t2] for m in t2.messages)
    t2.messages[-1].turn = 40 # renumbering is seen by the copy, not the original
    t2.add_message(Message(role='user', content='x'))
    assert t2.messages[-1].turn==41 and t.get_current_turn()==answers(building(ours))['current']
    assert t2.dialog is not t.dialog

def test_foreign_changes_not_lost(tmp_path):
    "Reactions, metrics and edits to messages made from cells without records survive save and read; the cells stay as they were"
    d = Dialog('elsewhere')
    d.mk_message('ctx', msg_type='note')
    d.mk_message('q1', msg_type='prompt', output='a1')
    d.mk_message('q2', msg_type='prompt', output='a2')
    p = tmp_path/'e.ipynb'; d.save(p)
    cells = [c.todict() for c in read_ipynb(p).messages]
    t = Thread.read(p)
    t.add_reaction(t.messages[1].id, 'heart', 'bob')
    t.messages[2].metrics = {'model': 'm', 'usage': {'total_tokens': 5}}
    t.messages[3].content = 'a2, edited'
    t.save()
    back = Thread.read(p)
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert back.get_total_tokens()['overall']['total_tokens']==5
    # as they were, but for each one's mark: the id the thread read it under (and its kind, a digest of its kind
    # and text, and the file's key, which the notebook's record holds too), so a tool's renumbering can't lose it
    now = [c.todict() for c in read_ipynb(p).messages]
    marks = [c['meta'].pop('dialog')['cell'] for c in now]
    assert [{k:m.pop(k) for k in ('id', 'thread_id', 'kind')} for m in marks]==[dict(id=c['id'], thread_id=t.id, kind=c['msg_type']) for c in cells]
    key = json.loads(p.read_text())['metadata']['dialog']['thread']['key']
    assert all(set(m)=={'sha', 'flat', 'flat_len', 'key'} and len(m['sha'])==len(m['flat'])==16 and type(m['flat_len']) is int and m['key']==key for m in marks) and now==cells
    back.save(); assert Thread.read(p).model_dump(mode='json')==t.model_dump(mode='json') # stable on a second save

def free_form(mod):
    "A thread whose messages hold values JSON can't: narrator takes them all"
    t = mod.Thread(id='ff', title='F', created_at=T0, updated_at=T0)
    t.add_message(mod.Message(id='u', role='user', content='q', timestamp=_ts(1), attributes={'at': T0, 'nan': float('nan'), 'raw': b'ab', 'pair': (1, 2), 'day': date(2024, 5, 1)},
                              source={'id': 'ann', 'type': 'user', 'attributes': {'seen': T0, 'score': float('inf')}}))
    t.add_message(mod.Message(id='a', role='assistant', content='r', timestamp=_ts(2),
                              metrics={'model': 'm', 'timing': {'started_at': T0, 'ended_at': _ts(2), 'latency': 1.5}, 'usage': {'total_tokens': 3}},
                              tool_calls=[{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}, 'extra': {'at': T0}}]))
    t.add_message(mod.Message(id='t', role='tool', content='ok', timestamp=_ts(3), tool_call_id='c', attributes={'nested': {'when': [T0, (b'x',)]}}), same_turn=True)
    return t

def test_free_form_values_save_and_read_as_json(tmp_path):
    "A thread narrator holds, with datetimes, NaN, bytes and tuples in attributes, metrics, source and tool calls, saves (it was a ValueError: meta not JSON-serializable) and reads back as its JSON dump says"
    t = free_form(ours)
    want = _norm(json.loads(free_form(narrator).model_dump_json()))
    assert _norm(json.loads(t.model_dump_json()))==want
    p = t.save(tmp_path/'ff.ipynb')
    nbformat.validate(nbformat.read(p, as_version=4))
    assert 'NaN' not in Path(p).read_text() and 'Infinity' not in Path(p).read_text() # strict JSON: no bare NaN in the file
    back = Thread.read(p)
    assert _norm(json.loads(back.model_dump_json()))==want
    assert back.get_message_timing_stats()==t.get_message_timing_stats() and back.get_total_tokens()==t.get_total_tokens()
    back.add_message(Message(role='user', content='more')); back.save() # and saves again
    assert [m.id for m in Thread.read(p).messages][:3]==['u', 'a', 't']

def test_free_form_values_in_a_foreign_dialogs_changed_records(tmp_path):
    "A message made from a cell without records, given free-form attributes, is written in the record of changes: that record is JSON too"
    from dialog.core import Dialog
    d = Dialog('foreign'); d.mk_message('hello', msg_type='prompt', output='hi')
    t = Thread.from_dialog(d)
    t.messages[0].attributes = {'at': T0, 'nan': float('nan')}
    back = Thread.read(t.save(tmp_path/'f.ipynb'))
    assert back.messages[0].attributes=={'at': T0.isoformat().replace('+00:00', 'Z'), 'nan': None}

def test_held_twice_still_round_trips(tmp_path):
    "A message the thread holds twice (narrator allows it) is written in two cells with one id: that is not a pasted copy, and reads back as it was"
    t = building(ours)
    t.messages.append(t.get_message_by_id('u1')) # u1 again, at the end
    back = Thread.read(t.save(tmp_path/'d.ipynb'))
    assert back.model_dump()==t.model_dump()
    assert json.loads(Path(tmp_path/'d.ipynb').read_text())['metadata']['dialog']['thread']['dups']==['u1']

class Opaque: pass

@pytest.mark.parametrize('how', ['message', 'thread', 'message_in_thread', 'attachment'])
def test_unserializable_value_is_a_valueerror(how):
    "`model_dump_json` of an object JSON can't hold raised a TypeError; narrator raises pydantic's serialization error, a ValueError"
    def run(mod):
        if how=='message': return mod.Message(role='user', content='x', attributes={'o': Opaque()}).model_dump_json()
        if how=='thread': return mod.Thread(attributes={'o': Opaque()}).model_dump_json(indent=2)
        if how=='attachment': return mod.Attachment(filename='x', attributes={'o': Opaque()}).model_dump_json()
        t = mod.Thread(); t.add_message(mod.Message(role='user', content='x', metrics={'model': Opaque()}))
        return t.model_dump_json()
    assert ok_or_error(lambda: run(ours))==ok_or_error(lambda: run(narrator))==('ValueError', None)

def test_unsaveable_value_leaves_the_file(tmp_path):
    "A save that can't write a value is a ValueError, and the file is left as it was; the thread saves once the value is gone"
    t = Thread(id='at'); t.add_message(Message(role='user', content='one'))
    p = t.save(tmp_path/'a.ipynb'); before = Path(p).read_bytes()
    m = Message(role='user', content='two', attributes={'o': Opaque()}); t.add_message(m)
    with pytest.raises(ValueError, match='JSON'): t.save()
    assert Path(p).read_bytes()==before
    m.attributes = {}
    t.save()
    assert [x.content for x in Thread.read(p).messages]==['one', 'two']

def test_message_held_twice_reads_back(tmp_path):
    "A message a thread holds twice (narrator keeps it so) reads back twice with its id, not as a person's pasted copy"
    t = Thread(id='d'); m = Message(role='user', content='x'); t.add_message(m); t.add_message(Message(role='assistant', content='y')); t.messages.append(m)
    back = Thread.read(t.save(tmp_path/'d.ipynb'))
    assert back.model_dump()==t.model_dump()

def _call(i, n, a='{}'): return {'id': i, 'type': 'function', 'function': {'name': n, 'arguments': a}}

def _support():
    "A thread whose first cell holds a user message, an assistant's tool call, its result and the answer"
    t = Thread(title='Support')
    t.add_message(Message(role='system', content='You are helpful.'))
    t.add_message(Message(role='user', content="My computer won't start."))
    t.add_message(Message(role='assistant', content="I'll help.", tool_calls=[_call('c1', 'diagnose', '{"s": "black"}')]))
    t.add_message(Message(role='tool', name='diagnose', tool_call_id='c1', content='Power issue'), same_turn=True)
    t.add_message(Message(role='assistant', content='Check the power cable.'), same_turn=True)
    return t

def _emptied(recs): recs[:] = [{}]
def _call_id(v):
    def f(recs): recs[1]['tool_calls'][0]['id'] = v
    return f

@pytest.mark.parametrize('edit', [_emptied, _call_id([]), _call_id({}), _call_id({'a': 1})], ids=['record emptied', 'call id []', 'call id {}', "call id {'a': 1}"])
def test_a_malformed_record_is_a_valueerror_naming_the_cell(tmp_path, edit):
    "A record a person emptied, or a tool call id that is a list or dict: a ValueError naming the cell (never a bare KeyError or TypeError)"
    p = _support().save(tmp_path/'t.ipynb')
    nb = json.loads(p.read_text()); edit(nb['cells'][0]['metadata']['dialog']['thread']); p.write_text(json.dumps(nb))
    with pytest.raises(ValueError, match=r"cell 0 \(id '[0-9a-f]{8}'\), record [01]"): Thread.read(p)

RECORD_TEXT = {0: '''"thread": {
    "attributes": {},
    "created_at": "2024-01-01T00:00:00+00:00",
    "id": "rec",
    "key": "be614ac9",
    "platforms": {},
    "records_of": "rec",
    "title": "Untitled Thread",
    "updated_at": "2024-01-01T00:00:00+00:00",
    "wrote": [
     "0bfe935e"
    ],
    "wrote_flat": [
     "32347b3bfbac4e8a"
    ]
   }''', 3: '''"thread": {
    "attributes": {
     "k": [
      1,
      {
       "$bytes": "AP8="
      }
     ],
     "when": "2024-01-01T00:00:00Z"
    },
    "created_at": "2024-01-01T00:00:00+00:00",
    "id": "rec",
    "key": "be614ac9",
    "platforms": {
     "slack": {
      "ts": "1.0"
     }
    },
    "records_of": "rec",
    "title": null,
    "updated_at": "2024-01-01T00:00:00+00:00",
    "wrote": [
     "0bfe935e"
    ],
    "wrote_flat": [
     "32347b3bfbac4e8a"
    ]
   }'''}

@pytest.mark.parametrize('kw', [{}, dict(title=None, attributes={'k': [1, b'\x00\xff'], 'when': datetime(2024, 1, 1, tzinfo=timezone.utc)}, platforms={'slack': {'ts': '1.0'}})], ids=['defaults', 'set'])
def test_the_threads_own_record_is_written_as_it_always_was(tmp_path, kw):
    "The thread's own record in the notebook's metadata, byte for byte as files written so far hold it (every field, at its default too; free-form attributes by the one codec; times in ISO), with the file's `key` (a digest of the id and creation time) since marks hold it, `wrote` (the ids of the cells it wrote with records) and `wrote_flat` (their marks' `flat` digests)"
    T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    t = Thread(id='rec', created_at=T0, updated_at=T0, **kw)
    t.add_message(Message(role='user', content='hi', id='u', timestamp=T0)); t.updated_at = T0
    assert RECORD_TEXT[len(kw)] in Path(t.save(tmp_path/'r.ipynb')).read_text()

def test_bytes_in_source_attributes_round_trip(tmp_path):
    "Bytes in a message's `source.attributes` read back as bytes, as they do in its `attributes`"
    t = Thread(id='s'); t.add_message(Message(role='user', content='hi', source={'id': 'x', 'attributes': {'raw': b'\x00\xff', 'k': 'v'}}))
    assert Thread.read(t.save(tmp_path/'s.ipynb')).messages[0].source==t.messages[0].source

def test_subclass_fields_saved_and_read(tmp_path):
    "A thread subclass's own fields, and its messages' (its `msg_cls` a message subclass), are kept through save and read"
    TicketThread,ScoredMessage = ticket_classes()
    t = TicketThread(id='x', priority=3, tags=['a'])
    t.add_message(ScoredMessage(role='user', content='hi', score=2.5)); t.add_message(ScoredMessage(role='assistant', content='yo'))
    back = TicketThread.read(t.save(tmp_path/'x.ipynb'))
    assert (back.priority, back.tags, [m.score for m in back.messages], type(back.messages[0]))==(3, ['a'], [2.5, 0.0], ScoredMessage)
    assert back==t

def test_subclass_fields_set_on_messages_of_cells_without_records(tmp_path):
    "A notebook made elsewhere read as a subclass: its own fields set on the messages its cells give are kept (in `changed`) through save and read"
    class PMsg(Message): priority: int = 0
    class PThread(Thread): msg_cls = PMsg
    dl = Dialog('notes'); dl.mk_message('Where?', msg_type='prompt', output='There.'); q = tmp_path/'n.ipynb'; dl.save(q)
    t = PThread.read(q); t.messages[0].priority = 7; t.messages[1].priority = 9; t.save()
    assert [m.priority for m in PThread.read(q).messages]==[7, 9]
    t = PThread.read(q); t.messages[1].priority = 0; t.save() # back to its default
    assert [m.priority for m in PThread.read(q).messages]==[7, 0]

def test_subclass_bytes_and_model_fields_round_trip(tmp_path):
    "A subclass's own fields holding bytes or a pydantic model read back as they were (not the bytes' base64 text)"
    from pydantic import BaseModel
    class Cfg(BaseModel): name: str = 'x'
    class BMsg(Message):
        blob: bytes = b''
        cfg: Cfg = Cfg()
    class BThread(Thread):
        msg_cls = BMsg
        raw: bytes = b''
        cfgs: list[Cfg] = []
    t = BThread(id='b', raw=b'\xff\x00', cfgs=[Cfg(name='z')])
    t.add_message(BMsg(role='user', content='q', blob=b'\x00\xff', cfg=Cfg(name='y'))); t.add_message(BMsg(role='assistant', content='a'))
    back = BThread.read(t.save(tmp_path/'b.ipynb'))
    assert (back.raw, back.cfgs, back.messages[0].blob, back.messages[0].cfg)==(b'\xff\x00', [Cfg(name='z')], b'\x00\xff', Cfg(name='y'))

def test_a_subclass_field_no_record_keeps_is_an_error_naming_it(tmp_path):
    "An own field holding a value no JSON writes: a ValueError naming the field, and no file written"
    class Opaque: pass
    class OMsg(Message): thing: object = None
    class OThread(Thread): msg_cls = OMsg
    t = OThread(id='o'); t.add_message(OMsg(role='user', content='q', thing=Opaque()))
    with pytest.raises(ValueError, match="field 'thing'"): t.save(tmp_path/'o.ipynb')
    assert not (tmp_path/'o.ipynb').exists()

def test_a_name_without_its_suffix_is_the_same_file(tmp_path):
    "`save('t')` writes `t.ipynb`, as `Dialog.save` names it (one rule, `ipynb_path`), so a thread saving over a file changed since it read it is stopped there too"
    t = building(ours)
    p = t.save(tmp_path/'t')
    assert p==tmp_path/'t.ipynb'
    other = Thread.read(p); other.add_message(Message(role='user', content='from elsewhere')); other.save()
    t.add_message(Message(role='user', content='mine'))
    with pytest.raises(DialogConflictError): t.save(tmp_path/'t')
    assert Thread.read(p).messages[-1].content=='from elsewhere'

_line = st.sampled_from(['%%prompt', '', 'text', ' %%prompt', '%%prompt x', 'x\n%%prompt'])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_line, min_size=1, max_size=6).map('\n'.join).filter(str.strip), st.booleans())
@example('What does this cell do?\n\n%%prompt\nsummarize the data', True)
def test_prompt_lines_in_a_text_survive(tmp_path, txt, reply):
    "A user message whose text holds `%%prompt` lines anywhere (after a blank line too) reads back as it was saved"
    t = Thread(id='t'); t.add_message(Message(role='user', content='Q0')); t.add_message(Message(role='assistant', content='A0'))
    t.add_message(Message(role='user', content=txt))
    if reply: t.add_message(Message(role='assistant', content='It asks the AI.'))
    p = tmp_path/f'p{uuid.uuid4().hex}.ipynb'; t.save(p)
    assert [m.content for m in Thread.read(p).messages]==[m.content for m in t.messages]

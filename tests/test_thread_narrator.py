"Differential tests: the same calls on narrator's `Thread` (the oracle) and on `dialog.thread`, compared answer by answer"
import asyncio, json, pytest
from datetime import datetime, timedelta, timezone
narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle these tests compare with, needs Python 3.11 or newer')
import dialog.thread as ours
from thread_cases import T0, _ts, _norm, building, answers
from dialog.thread import Message
from dialog.thread import Thread
from thread_cases import ok_or_error

def test_building_a_conversation():
    a,b = answers(building(narrator)),answers(building(ours))
    for k in a: assert a[k]==b[k], k
    assert list(a['dump']['messages'][2])==list(b['dump']['messages'][2]) # same key order
    assert a==b

def test_python_mode_and_key_order():
    a,b = building(narrator).model_dump(mode='python'),building(ours).model_dump(mode='python')
    assert _norm(a)==_norm(b)
    for x,y in zip(a['messages'], b['messages']): assert list(x)==list(y)
    assert list(json.loads(building(narrator).model_dump_json())['messages'][0]) == list(json.loads(building(ours).model_dump_json())['messages'][0])

def run_turns(mod, ops):
    "Apply `ops` (('add', role, same_turn) | ('batch', roles) | ('renum', idx, field, value)) and return (role, content, sequence, turn) rows"
    t,n = mod.Thread(),0
    def mk(role):
        nonlocal n; n += 1
        return mod.Message(id=f'm{n}', timestamp=_ts(n), role=role, content=f'c{n}', **({'tool_call_id': 'x'} if role=='tool' else {}))
    for op in ops:
        if op[0]=='add': t.add_message(mk(op[1]), same_turn=op[2])
        elif op[0]=='batch': t.add_messages_batch([mk(r) for r in op[1]])
        else: setattr(t.messages[op[1]], op[2], op[3])
    return [(m.role, m.content, m.sequence, m.turn) for m in t.messages], t.get_current_turn(), t.get_turns_summary()

turn_cases = [
    [('add', 'user', True)],
    [('add', 'system', False), ('add', 'user', True), ('add', 'assistant', True)],
    [('add', 'system', False), ('add', 'system', True), ('add', 'user', False)],
    [('add', 'user', False), ('add', 'system', False), ('add', 'user', True)],
    [('batch', ['assistant', 'system', 'user']), ('batch', []), ('add', 'tool', True), ('add', 'user', False)],
    [('batch', ['system']), ('add', 'user', True)],
    [('add', 'user', False), ('renum', 0, 'turn', 5), ('add', 'user', False), ('add', 'assistant', True)],
    [('add', 'user', False), ('renum', 0, 'sequence', 9), ('add', 'user', False)],
    [('add', 'user', False), ('add', 'user', False), ('renum', 1, 'turn', 0), ('add', 'user', True)],
]

@pytest.mark.parametrize('ops', turn_cases)
def test_turn_rules(ops): assert run_turns(narrator, ops)==run_turns(ours, ops)

def test_hypothesis_turn_rules():
    from hypothesis import given, settings, strategies as st
    role = st.sampled_from(['system', 'user', 'assistant', 'tool'])
    op = st.one_of(st.tuples(st.just('add'), role, st.booleans()), st.tuples(st.just('batch'), st.lists(role, max_size=4)))
    @settings(max_examples=150, deadline=None)
    @given(st.lists(op, max_size=12))
    def check(ops): assert run_turns(narrator, ops)==run_turns(ours, ops)
    check()

def reactions(mod):
    t = mod.Thread(); t.add_message(mod.Message(id='m', role='user', content='hi'))
    r = [t.add_reaction('m', 'x', 'u'), t.add_reaction('m', 'x', 'u'), t.add_reaction('m', 'y', 'u'), t.add_reaction('m', 'x', 'v'),
         t.add_reaction('zz', 'x', 'u'), dict(t.get_reactions('m')), t.get_reactions('zz'), t.messages[0].get_reaction_counts(),
         t.remove_reaction('m', 'y', 'u'), t.remove_reaction('m', 'y', 'u'), t.remove_reaction('zz', 'x', 'u'), t.remove_reaction('m', 'x', 'w'),
         t.remove_reaction('m', 'x', 'u'), t.remove_reaction('m', 'x', 'v'), t.messages[0].reactions]
    m = mod.Message(role='user', content='x')
    return r + [m.add_reaction('a', 'u'), m.add_reaction('a', 'u'), m.get_reaction_counts(), m.remove_reaction('a', 'u'), m.remove_reaction('a', 'u'), m.reactions]

def test_reactions(): assert reactions(narrator)==reactions(ours)

@pytest.mark.parametrize('contents', [[], ['hi'], ['x'*50], ['x'*51], [None, 'second'], ['a\nb  c'], ['é'*60]])
@pytest.mark.parametrize('first', [None, 'assistant'])
def test_titles(contents, first):
    def run(mod):
        t = mod.Thread(title='Keep')
        if first: t.add_message(mod.Message(role=first, content='from the assistant'))
        for c in contents: t.add_message(mod.Message(role='user', content=c))
        return t.generate_title(), t.title
    assert run(narrator)==run(ours)

def test_clear_messages():
    def run(mod):
        t = building(mod); before = t.updated_at; t.clear_messages()
        t.add_message(mod.Message(id='n', timestamp=_ts(0), role='user', content='again'))
        return t.updated_at>before, _norm(t.model_dump(mode='json')), t.get_current_turn(), t.get_message_by_id('u1'), t.get_message_counts()
    assert run(narrator)==run(ours)

def test_updated_at_moves():
    def run(mod):
        t,res = mod.Thread(),[]
        def step(f):
            before = t.updated_at; f(); res.append(t.updated_at>before)
        for f in [lambda: t.add_message(mod.Message(id='m', role='user', content='hi')), lambda: t.add_messages_batch([]),
                  lambda: t.add_reaction('m', 'x', 'u'), lambda: t.add_reaction('m', 'x', 'u'), lambda: t.remove_reaction('m', 'x', 'u'),
                  lambda: t.remove_reaction('m', 'x', 'u'), t.generate_title, t.clear_messages]:
            import time; time.sleep(0.002); step(f)
        return res, t.created_at.tzinfo is not None
    assert run(narrator)==run(ours)

bad_messages = [dict(role='bogus', content='x'), dict(role='tool', content='x'), dict(role='tool', content='x', tool_call_id=''),
    dict(role='assistant', content='x', tool_calls=[{'id': 'a'}]), dict(role='assistant', content='x', tool_calls='bad'),
    dict(role='assistant', content='x', tool_calls=['x']), dict(role='assistant', content='x', tool_calls=[{'id': 'a', 'type': 'function', 'function': 'f'}]),
    dict(role='assistant', content='x', tool_calls=[{'id': 'a', 'type': 'function', 'function': {'name': 'n'}}]),
    dict(role='user', content='x', source={'type': 'robot'}), dict(role='user', content='x', source={'id': 'a', 'extra': 1}),
    dict(role='user', content=5)]

@pytest.mark.parametrize('kw', bad_messages)
def test_bad_input_raises_valueerror(kw):
    with pytest.raises(ValueError): narrator.Message(**kw)
    with pytest.raises(ValueError): ours.Message(**kw)

good_messages = [dict(role='user'), dict(role='assistant', content=None, tool_calls=[{'id': 'a', 'type': 'function', 'function': {'name': 'n', 'arguments': '{}'}}]),
    dict(role='user', content=[{'type': 'text', 'text': 'hi'}]), dict(role='user', content='x', source={'name': 'n', 'type': 'user', 'id': '2'}),
    dict(role='assistant', content='x', reasoning_content='', attributes={}, name=''), dict(role='tool', content=None, tool_call_id='c', name='f'),
    dict(role='user', content='x', metrics={'model': 'm', 'extra': 1}), dict(role='user', content='x', timestamp=datetime(2024, 1, 1)),
    dict(role='user', content='x', timestamp=datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=2))))]

@pytest.mark.parametrize('kw', good_messages)
def test_message_shapes(kw):
    kw = dict(kw, id='m') | ({} if 'timestamp' in kw else {'timestamp': T0})
    a,b = narrator.Message(**kw),ours.Message(**kw)
    assert a.model_dump(mode='json')==b.model_dump(mode='json')
    assert list(a.model_dump(mode='json'))==list(b.model_dump(mode='json'))
    assert a.model_dump_json()==b.model_dump_json()
    assert a.to_chat_completion_message()==b.to_chat_completion_message()
    assert a.to_dict()==b.to_dict()

@pytest.mark.parametrize('metrics', [{}, {'model': 'm'}, {'usage': {'total_tokens': 3}}, {'model': 'm', 'usage': {'prompt_tokens': 1}},
    {'timing': {'latency': 0}}, {'timing': {'latency': 5.5}}, {'timing': {'started_at': 'x'}}, {'model': None, 'usage': {'prompt_tokens': 1, 'completion_tokens': 2, 'total_tokens': 3}}])
def test_metrics_analytics(metrics):
    def run(mod):
        t = mod.Thread(); t.add_message(mod.Message(role='assistant', content='x', metrics=metrics))
        t.add_message(mod.Message(role='assistant', content='y', metrics={'model': 'm', 'timing': {'latency': 3}, 'usage': {'total_tokens': 1}}))
        return t.get_total_tokens(), t.get_message_timing_stats(), t.get_model_usage(), t.get_model_usage('m')
    assert run(narrator)==run(ours)

def test_empty_thread():
    def run(mod):
        t = mod.Thread(id='e', title='T')
        return (_norm(t.model_dump(mode='json')), t.get_current_turn(), t.get_message_timing_stats(), t.get_total_tokens(), t.get_tool_usage(),
                t.get_turns_summary(), t.get_message_counts(), t.get_system_message(), t.get_last_message_by_role('user'), asyncio.run(t.get_messages_for_chat_completion()))
    assert run(narrator)==run(ours)

def test_thread_to_dict():
    assert _norm(building(narrator).to_dict())==_norm(building(ours).to_dict())

def test_json_times_end_in_z():
    t = building(ours)
    assert json.loads(t.model_dump_json())['created_at'].endswith('Z')
    assert t.model_dump(mode='json')['created_at'].endswith('+00:00')

def test_large_random_thread_same_answers():
    "2,000 messages of random roles, turns, metrics, tool calls and reactions: every answer the same on both"
    import random
    def run(mod):
        rnd,t = random.Random(7),mod.Thread(id='big', title='Big')
        for i in range(2_000):
            role = rnd.choice(['user', 'assistant', 'assistant', 'tool', 'system'] if i%50 else ['system'])
            kw = dict(id=f'm{i}', timestamp=_ts(i), role=role, content=f'c{i}')
            if role=='tool': kw['tool_call_id'] = f'call{i-1}'
            if role=='assistant' and rnd.random()<0.3: kw['tool_calls'] = [{'id': f'call{i}', 'type': 'function', 'function': {'name': rnd.choice('fgh'), 'arguments': '{}'}}]
            if role=='assistant': kw['metrics'] = {'model': rnd.choice(['a', 'b', None]), 'timing': {'latency': rnd.randint(0, 5)}, 'usage': {'total_tokens': rnd.randint(0, 9)}}
            t.add_message(mod.Message(**kw), same_turn=rnd.random()<0.4)
            if rnd.random()<0.1: t.add_reaction(f'm{rnd.randint(0, i)}', rnd.choice('xy'), rnd.choice('uv'))
        return answers_big(t)
    assert run(narrator)==run(ours)

def answers_big(t):
    return (_norm(t.model_dump(mode='json')), t.get_total_tokens(), t.get_model_usage(), t.get_message_counts(), t.get_message_timing_stats(),
            t.get_tool_usage(), t.get_turns_summary(), t.get_current_turn(), [m.id for m in t.get_messages_in_sequence()],
            asyncio.run(t.get_messages_for_chat_completion()), [m.id for m in t.get_messages_by_turn(7)], t.generate_title())

def test_duplicate_ids_and_readded_messages():
    def run(mod):
        t = mod.Thread()
        t.add_message(mod.Message(id='x', role='user', content='a', timestamp=T0)); t.add_message(mod.Message(id='x', role='user', content='b', timestamp=T0))
        m = mod.Message(id='y', role='user', content='c', timestamp=T0); t.add_message(m); t.add_message(m)
        return t.get_message_by_id('x').content, [(x.id, x.sequence, x.turn) for x in t.messages], t.get_current_turn()
    assert run(narrator)==run(ours)

def test_star_import_keeps_core_message():
    ns = {}
    exec('from dialog.core import *\nfrom dialog.thread import *\nfrom dialog.thread import Thread, Message as M2', ns)
    import dialog.core
    assert ns['Message'] is dialog.core.Message and ns['ChatMessage'] is ns['M2'] is ours.Message

tc = {'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}

lax = [dict(content=b'hi'), dict(content=bytearray(b'hi')), dict(content=b'\xff'), dict(content=({'type': 'text', 'text': 'a'},)), dict(tool_calls=(tc,)),
       dict(reactions={'x': ('u',)}), dict(name=b'n'), dict(id=b'i'), dict(reasoning_content=b'r'), dict(attachments=()), dict(tool_call_id=b'c')]
lax_bytes = [dict(platforms={'s': {'ts': b'1.0'}}), dict(platforms={'s': {b'ts': '1.0'}}), dict(platforms={b's': {'ts': '1.0'}}), dict(platforms={'s': {'ts': b'\xff'}}),
             dict(platforms={'s': {'ts': bytearray(b'ab')}}), dict(platforms={'s': {'ts': 1}}), dict(reactions={'x': [b'u1', 'u2']}), dict(reactions={b'x': ['u']}),
             dict(reactions={'x': (b'u',)}), dict(reactions={'x': [b'\xff']}), dict(reactions={'x': [3]}), dict(source={'id': b'a'}),
             dict(source={'id': 'a', 'name': b'n'}), dict(source={'id': 'a', 'type': b'user'}), dict(source={'id': b'\xff'})]
lax += lax_bytes # bytes inside platforms, reactions and source (narrator decodes UTF-8, as pydantic's lax `str`)

@pytest.mark.parametrize('kw', lax, ids=lambda kw: f'{list(kw)[0]}={kw[list(kw)[0]]!r}')
def test_lax_values_as_narrator(kw):
    "Values pydantic's lax mode takes for narrator (a tuple for a list, UTF-8 bytes for a str) are taken here too, as the same values; a ValueError where narrator refuses"
    def run(mod):
        m = mod.Message(id='x', role='assistant', content='c', timestamp=T0, **kw)
        d = m.model_dump()
        return {k:d.get(k) for k in kw}
    assert ok_or_error(lambda: run(ours))==ok_or_error(lambda: run(narrator))

def test_lax_values_on_assignment():
    for mod in (ours, narrator):
        m = mod.Message(role='user', content='a')
        m.content = ({'type': 'text', 'text': 'a'},); m.reactions = {'x': ('u',)}
        assert (m.content, m.reactions)==([{'type': 'text', 'text': 'a'}], {'x': ['u']})
    r = {'x': ('u',)}
    Message(role='user', content='a', reactions=r)
    assert r=={'x': ('u',)} # the caller's dict untouched

def test_thread_messages_tuple():
    "narrator's `Thread(messages=(...))` takes a tuple"
    for mod in (ours, narrator):
        t = mod.Thread(messages=(mod.Message(id='m', role='user', content='a'), {'role': 'assistant', 'content': 'b'}))
        assert [m.content for m in t.messages]==['a', 'b']

def test_empty_id_is_a_new_id():
    "narrator gives a message with `id=''` an id of its own (64 hex digits); it was kept as ''"
    for mod in (ours, narrator):
        m = mod.Message(role='user', content='a', id='')
        assert len(m.id)==64 and int(m.id, 16)>=0
        assert len(mod.Message.model_validate({'role': 'user', 'content': 'a', 'id': ''}).id)==64

def test_unknown_thread_field_assignment_raises():
    "narrator refuses `thread.titel = ...` (a ValueError); ours kept it silently"
    with pytest.raises(ValueError): narrator.Thread().titel = 'x'
    with pytest.raises(ValueError, match='titel'): Thread().titel = 'x'
    for mod in (ours, narrator): # fields are set unchecked, as narrator sets them; model_copy's update sets any key, as pydantic's does
        t = mod.Thread(); t.title = None
        assert t.model_copy(update={'extra': 1}).title is None
    t = Thread(); t.file_store = None # ours has a store too
    class Host(Thread): note = None # a host's subclass declares what it sets
    h = Host(); h.note = 'kept'; assert h.note=='kept'

thread_lax = [dict(title=b'Support'), dict(id=b't1'), dict(title=None), dict(messages=()), dict(title=5), dict(id=None), dict(attributes=None),
              dict(platforms={'slack': {'ch': 1}}), dict(messages='m'), dict(platforms={'s': {'ts': b'1.0'}}), dict(platforms={b's': {b'ts': '1'}}),
              dict(platforms={'s': {'ts': b'\xff'}})]

@pytest.mark.parametrize('kw', thread_lax, ids=lambda kw: f'{list(kw)[0]}={kw[list(kw)[0]]!r}')
def test_thread_lax_values_as_narrator(kw):
    "A thread's fields, each checked by its row of `thread_table`, take what pydantic's lax mode takes for narrator (UTF-8 bytes for a str, a tuple for a list), as the same values; a ValueError where narrator refuses"
    def run(mod):
        d = mod.Thread(created_at=T0, updated_at=T0, **kw).model_dump(mode='python')
        return {k:d.get(k) for k in kw}
    assert ok_or_error(lambda: run(ours))==ok_or_error(lambda: run(narrator))

def test_every_name_narrator_exports_imports_from_dialog_thread():
    "The one-line switch: each of narrator.__all__ (ThreadStore and FileStore too) is a name of dialog.thread"
    import importlib
    mod = importlib.import_module('dialog.thread')
    assert [n for n in narrator.__all__ if not hasattr(mod, n)]==[]
    from dialog.thread import ThreadStore, FileStore, DialogFileStore
    from dialog.threadstore import DialogThreadStore
    assert ThreadStore is DialogThreadStore and FileStore is DialogFileStore
    with pytest.raises(AttributeError, match='Nope'): mod.Nope

def test_bytes_decoded_leave_the_callers_dicts_alone():
    p,r = {'s': {'ts': b'1'}},{'x': [b'u']}
    m = Message(role='user', content='a', platforms=p, reactions=r)
    assert (m.platforms, m.reactions, p, r)==({'s': {'ts': '1'}}, {'x': ['u']}, {'s': {'ts': b'1'}}, {'x': [b'u']})

def test_narrators_message_added_to_our_thread_names_the_way_out():
    "narrator's own `Message` added to our `Thread` (as code written for narrator, Tyler's agent, adds them): the error names narrator's class and the way out (`thread_cls`), not two classes of one name"
    t = Thread(id='notes')
    with pytest.raises(ValueError) as e: t.add_message(narrator.Message(role='user', content='And winds?'))
    assert 'narrator' in str(e.value) and 'thread_cls=narrator.Thread' in str(e.value) and "thread 'notes'" in str(e.value)
    with pytest.raises(ValueError, match="expected a Message, got 'hi'$"): t.messages.append('hi')

def test_a_dict_given_to_many_is_each_ones_own():
    "Oracle: one dict (or list) given to several messages, or to a thread and its messages, then changed through one of them, changes that one alone, as pydantic's copies in narrator do (all of them changed, and the caller's dict)"
    N = pytest.importorskip('narrator')
    import dialog.thread as D
    def run(mod):
        meta, no_reactions, plat = {'source': 'import'}, {}, {'slack': {'channel': 'C1'}}
        tc = [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]
        parts, met = [{'type': 'text', 'text': 'hi'}], {'model': 'x', 'timing': {'latency': 1}, 'usage': {}}
        src = {'id': 'bot', 'type': 'agent', 'attributes': {'v': 1}}
        t = mod.Thread(id='t', attributes=meta, platforms=plat)
        for i in range(3):
            t.add_message(mod.Message(id=f'm{i}', role='user', content=parts if i==2 else f'row {i}', attributes=meta, reactions=no_reactions, platforms=plat, metrics=met, source=src))
        t.messages[1].source['attributes']['x'] = 2
        a = mod.Message(role='assistant', content=None, tool_calls=tc); tc.append('junk'); parts[0]['text'] = 'changed'; met['model'] = 'y'
        t.messages[0].attributes['flagged'] = True
        t.add_reaction('m0', 'thumbsup', 'u1')
        t.messages[0].platforms['slack']['ts'] = '1.2'
        at = mod.Attachment(filename='a.txt', content=b'x', attributes=meta); meta['late'] = 1
        return ([('flagged' in m.attributes) for m in t.messages], [t.get_reactions(m.id) for m in t.messages], [m.platforms for m in t.messages],
                t.attributes, t.platforms, meta, no_reactions, len(a.tool_calls), t.messages[2].content, [m.metrics['model'] for m in t.messages], at.attributes, [m.source for m in t.messages], src)
    assert run(D)==run(N)

def test_negative_turns_number_as_narrator_numbers_them():
    "Oracle: turns and sequences are any ints in narrator, negative ones too: the next turn follows the largest there is (the message's own included), and the current turn is the largest (they were counted from 0 up)"
    N = pytest.importorskip('narrator')
    import dialog.thread as D
    def cases(mod):
        M = mod.Message
        def loaded(*ms): return mod.Thread(id='t', messages=list(ms))
        def added(tns, batch=False, same=False, pre=()):
            t = loaded(*pre)
            if batch: t.add_messages_batch([M(id=f'a{i}', role='user', content='a', turn=tn) for i,tn in enumerate(tns)])
            else:
                for i,tn in enumerate(tns): t.add_message(M(id=f'a{i}', role='user', content='a', turn=tn), same_turn=same)
            return [(m.turn, m.sequence) for m in t.messages], t.get_current_turn(), [m.id for m in t.get_messages_by_turn(0)]
        neg = lambda: M(id='x', role='user', content='x', turn=-3, sequence=-2)
        return [mod.Thread(id='t').get_current_turn(), loaded(M(id='x', role='user', content='x', turn=-3, sequence=1)).get_current_turn(),
                loaded(M(id='s', role='system', content='s', turn=5, sequence=0)).get_current_turn(),
                *[added([tn]) for tn in (None, -1, -5, 0, 3)], added([None, -5]), added([-2, -7]), added([None], pre=[neg()]),
                added([None], batch=True, pre=[neg()]), added([None], same=True, pre=[neg()]), added([-4], batch=True), added([-4, None], batch=True)]
    assert cases(D)==cases(N)

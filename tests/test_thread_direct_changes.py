"dialog.thread against narrator (the oracle) when a thread is changed other than by `add_message`: `thread.messages` edited directly, messages renumbered, copied or subclassed; late system messages; bad input"
import copy, pickle, pytest, nbformat
from pathlib import Path
narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle these tests compare with, needs Python 3.11 or newer')
import dialog.thread as ours
from dialog.thread import Thread, Message
from thread_cases import T0, _ts, building

def base(mod):
    "Five messages in three turns, ids m0..m4"
    t = mod.Thread(id='b', title='B')
    for i,(role,same) in enumerate([('user',False), ('assistant',False), ('user',False), ('assistant',False), ('assistant',True)]):
        t.add_message(mod.Message(id=f'm{i}', timestamp=_ts(i), role=role, content=f'c{i}'), same_turn=same)
    return t

def state(t, ids=('m0', 'm2', 'm4', 'n1', 'n2', 'n3', 'new')):
    "What the thread answers after a direct change: lookups, numbering of the next message, current turn"
    found = {i: (m.content if (m := t.get_message_by_id(i)) is not None else None) for i in ids}
    return found, t.get_current_turn(), [(m.id, m.sequence, m.turn) for m in t.messages]

def nmsg(mod, i, **kw): return mod.Message(id=i, timestamp=T0, role='user', content=i, **kw)

direct_ops = {
    'pop_first': lambda t,mod: t.messages.pop(0),
    'pop_last': lambda t,mod: t.messages.pop(),
    'remove': lambda t,mod: t.messages.remove(t.messages[2]),
    'del_item': lambda t,mod: t.messages.__delitem__(1),
    'del_slice': lambda t,mod: t.messages.__delitem__(slice(2, None)),
    'clear_list': lambda t,mod: t.messages.clear(),
    'setitem': lambda t,mod: t.messages.__setitem__(2, nmsg(mod, 'n1', sequence=3, turn=2)),
    'setslice': lambda t,mod: t.messages.__setitem__(slice(3, None), [nmsg(mod, 'n1', sequence=4, turn=3)]),
    'reassign': lambda t,mod: setattr(t, 'messages', [nmsg(mod, 'n1', sequence=1, turn=1)]),
    'reassign_slice': lambda t,mod: setattr(t, 'messages', t.messages[:2]),
    'append': lambda t,mod: t.messages.append(nmsg(mod, 'n1', sequence=9, turn=6)),
    'extend': lambda t,mod: t.messages.extend([nmsg(mod, 'n1', sequence=7, turn=7), nmsg(mod, 'n2', sequence=8, turn=8)]),
    'iadd': lambda t,mod: t.messages.__iadd__([nmsg(mod, 'n3', sequence=6, turn=4)]),
    'insert': lambda t,mod: t.messages.insert(1, nmsg(mod, 'n1', sequence=2, turn=1)),
    'reverse': lambda t,mod: t.messages.reverse(),
    'sort_key': lambda t,mod: t.messages.sort(key=lambda m: m.content, reverse=True),
    'reid': lambda t,mod: setattr(t.messages[2], 'id', 'n1'),
}

@pytest.mark.parametrize('op', list(direct_ops))
def test_direct_list_changes_match_narrator(op):
    "Lookups and the numbering of the next message follow changes made to `thread.messages` directly, as in narrator"
    def run(mod):
        t = base(mod)
        t.get_current_turn(); t.get_message_by_id('m0') # warm any cache
        direct_ops[op](t, mod)
        before = state(t)
        t.add_message(mod.Message(id='new', timestamp=T0, role='user', content='new'))
        t.add_message(mod.Message(id='new2', timestamp=T0, role='assistant', content='x'), same_turn=True)
        return before, state(t)
    assert run(ours)==run(narrator)

def test_removed_message_not_found():
    "The known limit: a message removed from `thread.messages` was still found by id"
    t = base(ours)
    m = t.messages.pop(0)
    assert t.get_message_by_id('m0') is None
    t.messages.append(m)
    assert t.get_message_by_id('m0') is m

def test_direct_append_indexed():
    "Messages appended directly are found through the index (not a linear search): the index holds them"
    t = base(ours)
    m = nmsg(ours, 'n1', sequence=6, turn=4)
    t.messages.append(m)
    assert t._by_id['n1'] is m and t.get_message_by_id('n1') is m

def test_duplicate_ids_after_removal():
    "With two messages of one id, removing the first finds the second (narrator finds the first in the list)"
    def run(mod):
        t = base(mod); t.add_message(mod.Message(id='m0', timestamp=T0, role='user', content='dup'))
        t.messages.pop(0)
        a = t.get_message_by_id('m0').content
        t.messages.pop()
        return a, t.get_message_by_id('m0')
    assert run(ours)==run(narrator)==('dup', None)

def test_turn_change_after_direct_change():
    "Renumbering a message by hand after the list was replaced is still seen by the next add"
    def run(mod):
        t = base(mod)
        t.messages = [nmsg(mod, 'n1', sequence=1, turn=1)]
        t.get_current_turn()
        t.messages[0].turn = 5
        t.add_message(nmsg(mod, 'n2'))
        return state(t)
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('how', ['pickle', 'deepcopy', 'copy'])
def test_copies_keep_direct_changes_working(how):
    t = base(ours)
    c = {'pickle': lambda: pickle.loads(pickle.dumps(t)), 'deepcopy': lambda: copy.deepcopy(t), 'copy': lambda: copy.copy(t)}[how]()
    c.messages.pop(0)
    assert c.get_message_by_id('m0') is None
    if how!='copy': assert t.get_message_by_id('m0') is not None and len(t.messages)==5

def late_system(mod):
    "A system message that is not first: put in the list directly, as narrator allows"
    t = base(mod)
    t.messages.insert(2, mod.Message(id='s1', timestamp=T0, role='system', content='Be brief.', sequence=0, turn=0))
    t.messages.append(mod.Message(id='s2', timestamp=T0, role='system', content='Be kind.', sequence=0, turn=0))
    return t

def test_late_system_message_roundtrip(tmp_path):
    "The known limit: a system message that is not first was read back first"
    t = late_system(ours)
    p = t.save(tmp_path/'late.ipynb')
    nbformat.validate(nbformat.read(p, as_version=4))
    back = Thread.read(p)
    assert [m.id for m in back.messages]==[m.id for m in t.messages]
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert back.get_system_message().content=='Be brief.'
    assert back.dialog.system=='Be brief.'

def test_late_system_answers_match_narrator():
    a,b = late_system(ours),late_system(narrator)
    assert state(a, ('s1', 's2', 'm2'))==state(b, ('s1', 's2', 'm2'))
    assert a.get_system_message().id==b.get_system_message().id=='s1'

def test_bad_system_position_raises(tmp_path):
    t = late_system(ours)
    dlg = t.dialog
    dlg.meta['dialog']['thread']['system'][1]['at'] = 'x'
    with pytest.raises(ValueError, match=r"system message 1"): Thread.from_dialog(dlg)

@pytest.mark.parametrize('bad', ['hi', None, 5, object()])
def test_add_non_message_raises_valueerror(bad):
    t = base(ours)
    for f in (lambda: t.add_message(bad), lambda: t.add_messages_batch([bad]), lambda: t.messages.append(bad)):
        with pytest.raises(ValueError, match='expected a Message'): f()
    assert len(t.messages)==5

def test_batch_not_a_list_raises():
    with pytest.raises(ValueError, match='expected a Message'): Thread().add_messages_batch('hi')

bad_fields = [dict(metrics='x'), dict(metrics=[1]), dict(platforms='x'), dict(platforms={'a': 1}), dict(attributes=[1]),
              dict(reactions={'x': 'y'}), dict(reactions=[1]), dict(name=5), dict(id=5), dict(reasoning_content=3)]

@pytest.mark.parametrize('kw', bad_fields)
def test_bad_field_types_raise_valueerror(kw):
    "Fields narrator's pydantic model refuses are refused here too, with a ValueError naming the field"
    with pytest.raises(ValueError): narrator.Message(role='assistant', content='a', **kw)
    with pytest.raises(ValueError, match=list(kw)[0]): Message(role='assistant', content='a', **kw)

from dialog.core import Dialog, Message as CoreMsg
class MyMsg(CoreMsg): meta_attrs = {'pinned_': 'pinned'}
class MyDlg(Dialog): msg_cls = MyMsg
class MyChat(Message): pass
class MyThread(Thread): msg_cls,dlg_cls = MyChat,MyDlg

def test_host_subclasses_through_every_path(tmp_path):
    "A host's Thread subclass builds its own dialog and message classes: new, from a dialog made elsewhere, read back from a file"
    t = MyThread(id='h')
    t.add_message(MyChat(role='user', content='q?')); t.add_message(MyChat(role='assistant', content='a!'))
    assert type(t.dialog) is MyDlg and {type(c) for c in t.dialog.messages}=={MyMsg}
    back = MyThread.read(t.save(tmp_path/'h.ipynb'))
    assert type(back) is MyThread and type(back.dialog) is MyDlg
    assert {type(m) for m in back.messages}=={MyChat} and {type(c) for c in back.dialog.messages}=={MyMsg}
    d = MyDlg('other'); d.mk_message('note', msg_type='note'); d.mk_message('q2', msg_type='prompt', output='a2')
    o = MyThread.from_dialog(d)
    o.add_reaction(o.messages[-1].id, 'x', 'u')
    assert {type(m) for m in o.messages}=={MyChat}
    back = MyThread.read(o.save(tmp_path/'o.ipynb'))
    assert {type(m) for m in back.messages}=={MyChat} and back.get_reactions(o.messages[-1].id)=={'x': ['u']}
    assert back.model_dump(mode='json')==o.model_dump(mode='json')

from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.ipynb import read_ipynb
from dialog.core import Message as Cell
import dialog.chat as chat
from thread_cases import edit_then_save
from thread_cases import sample
from thread_cases import tagged
role = st.sampled_from(['system', 'user', 'assistant', 'tool'])
idx = st.integers(0, 30)
mixed_op = st.one_of(st.tuples(st.just('add'), role, st.booleans()), st.tuples(st.just('batch'), st.lists(role, max_size=3)),
    st.tuples(st.just('pop'), idx), st.tuples(st.just('del'), idx, idx), st.tuples(st.just('append'), role, idx),
    st.tuples(st.just('reid'), idx), st.tuples(st.just('keep'), idx), st.tuples(st.just('react'), idx), st.tuples(st.just('renum'), idx, idx), st.tuples(st.just('reverse')), st.tuples(st.just('dup'), idx))

def run_mixed(mod, ops, start=None):
    "Apply `ops` (API adds and direct list changes) to a new thread (or `start`) and return every id lookup, the numbering and the thread"
    t,n,ids = start or mod.Thread(id='mx', title='M'),0,set()
    def mk(r, **kw):
        nonlocal n; n += 1; ids.add(f'm{n}')
        return mod.Message(id=f'm{n}', timestamp=_ts(n), role=r, content=f'c{n}', **({'tool_call_id': 'x'} if r=='tool' else {}), **kw)
    for op in ops:
        k,ms = op[0],t.messages
        if k=='add': t.add_message(mk(op[1]), same_turn=op[2])
        elif k=='batch': t.add_messages_batch([mk(r) for r in op[1]])
        elif k=='append': ms.append(mk(op[1], sequence=op[2], turn=op[2]))
        elif not ms: continue
        elif k=='pop': ms.pop(op[1]%len(ms))
        elif k=='del': del ms[op[1]%len(ms):op[2]%len(ms)]
        elif k=='reid': ms[op[1]%len(ms)].id = f'r{op[1]}'; ids.add(f'r{op[1]}')
        elif k=='keep': t.messages = ms[:op[1]%len(ms)+1]
        elif k=='react': t.add_reaction(ms[op[1]%len(ms)].id, 'x', f'u{op[1]}')
        elif k=='reverse': ms.reverse()
        elif k=='dup': ms.append(ms[op[1]%len(ms)])
        elif k=='renum': ms[op[1]%len(ms)].turn = op[2]
    found = {i: (m.content if (m := t.get_message_by_id(i)) is not None else None) for i in sorted(ids)}
    return found, [(m.id, m.role, m.sequence, m.turn) for m in t.messages], t
    
@settings(max_examples=200, deadline=None)
@given(st.lists(mixed_op, max_size=14))
def test_mixed_changes_match_narrator(ops):
    "Direct list changes mixed with adds: every lookup and the numbering answer as narrator's"
    try: want = run_mixed(narrator, ops)[:2]
    except (TypeError, ValueError): return # narrator itself fails on some mixes (a message with no turn); nothing to compare
    assert run_mixed(ours, ops)[:2]==want

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(mixed_op, max_size=14))
def test_mixed_changes_roundtrip(tmp_path, ops):
    "Whatever was done to the list, save and read give back the same thread, in the same order"
    t = run_mixed(ours, ops)[2]
    back = Thread.read(t.save(tmp_path/'mixed.ipynb', force=True))
    assert back.model_dump(mode='json')==t.model_dump(mode='json')

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(mixed_op, max_size=14))
def test_mixed_changes_roundtrip_foreign(tmp_path, ops):
    "The same, starting from a dialog made elsewhere (notes and prompts without thread records)"
    t = run_mixed(ours, ops, Thread.from_dialog(foreign()))[2]
    back = Thread.read(t.save(tmp_path/'mixed.ipynb', force=True))
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert [back.get_message_by_id(m.id).id for m in t.messages]==[m.id for m in t.messages]

def test_system_numbers_not_counted():
    "narrator numbers the next message from the non-system messages only (found by the mixed property test)"
    def run(mod):
        t = mod.Thread()
        t.messages.append(mod.Message(id='s', role='system', content='S', sequence=4, turn=4, timestamp=T0))
        t.add_message(mod.Message(id='u', role='user', content='U', timestamp=T0))
        t.messages[0].role = 'user'
        t.add_message(mod.Message(id='v', role='user', content='V', timestamp=T0))
        return [(m.id, m.sequence, m.turn) for m in t.messages], t.get_current_turn()
    assert run(ours)==run(narrator)

def foreign():
    d = Dialog('notes')
    d.mk_message('# Orders', msg_type='note')
    d.mk_message('Where is order 1?', msg_type='prompt', output='It shipped.')
    d.mk_message('And order 2?', msg_type='prompt', output='Not yet.')
    return d

@pytest.mark.parametrize('how', ['pop_one', 'pop_all', 'reassign_empty', 'keep_first_two'])
def test_removed_foreign_messages_stay_removed(tmp_path, how):
    "Messages made from a dialog made elsewhere, removed from `messages`, don't come back when the thread is saved and read"
    t = Thread.from_dialog(foreign())
    assert len(t.messages)==4
    if how=='pop_one': t.messages.pop(1)
    elif how=='pop_all': 
        while t.messages: t.messages.pop()
    elif how=='reassign_empty': t.messages = []
    else: t.messages = t.messages[:2]
    t.add_message(Message(role='user', content='new question'))
    back = Thread.read(t.save(tmp_path/'f.ipynb'))
    assert [m.content for m in back.messages]==[m.content for m in t.messages]
    assert back.model_dump(mode='json')==t.model_dump(mode='json')

def _usage(mod, metrics=None, tool_calls=None):
    t = mod.Thread(); t.add_message(mod.Message(role='assistant', content='a', tool_calls=tool_calls, **({} if metrics is None else {'metrics': metrics})))
    return t.get_message_timing_stats(), t.get_tool_usage()

@pytest.mark.parametrize('lat', [-5, 0.0, '', False, True, 1e-9, None, 3])
def test_latency_counts_as_narrator(lat):
    "narrator counts every latency that isn't zero or empty, negative ones too"
    assert _usage(ours, {'timing': {'latency': lat}})==_usage(narrator, {'timing': {'latency': lat}})

@pytest.mark.parametrize('name', ['', 0, None, 'f'])
def test_tool_usage_skips_nameless_calls(name):
    tc = [{'id': 'c', 'type': 'function', 'function': {'name': name, 'arguments': '{}'}}]
    assert _usage(ours, tool_calls=tc)==_usage(narrator, tool_calls=tc)

@pytest.mark.parametrize('kw', [dict(source={}), dict(source={'type': 'user'}), dict(source={'name': 'n'}), dict(turn=2.5), dict(sequence='x'), dict(sequence=[1]), dict(turn=float('inf'))])
def test_more_bad_fields_raise_valueerror(kw):
    with pytest.raises(ValueError): narrator.Message(role='user', content='a', **kw)
    with pytest.raises(ValueError, match=list(kw)[0]): Message(role='user', content='a', **kw)

@pytest.mark.parametrize('v', ['3', 2.0, True, -1, None, 7])
def test_numbers_coerced_as_narrator(v):
    "pydantic's lax ints: an int's text, an integral float and a bool are taken as ints"
    for k in ('sequence', 'turn'):
        a,b = getattr(narrator.Message(role='user', content='a', **{k: v}), k),getattr(Message(role='user', content='a', **{k: v}), k)
        assert a==b and type(a) is type(b)

@pytest.mark.parametrize('kw', [dict(id=5), dict(attributes=[1]), dict(platforms={'a': 1}), dict(platforms='x')])
def test_bad_thread_fields_raise_valueerror(kw):
    with pytest.raises(ValueError): narrator.Thread(**kw)
    with pytest.raises(ValueError, match=list(kw)[0]): Thread(**kw)

@pytest.mark.parametrize('how', ['reverse', 'swap', 'dup', 'move_last_first'])
def test_reordered_foreign_messages_roundtrip(tmp_path, how):
    "Messages made from a dialog made elsewhere, reordered in `messages`, come back in their new order"
    t = Thread.from_dialog(foreign())
    ms = t.messages
    if how=='reverse': ms.reverse()
    elif how=='swap': ms[1],ms[2] = ms[2],ms[1]
    elif how=='dup': ms.append(ms[1])
    else: ms.insert(0, ms.pop())
    t.add_message(Message(role='user', content='new question'))
    back = Thread.read(t.save(tmp_path/'r.ipynb'))
    assert back.model_dump(mode='json')==t.model_dump(mode='json')

bad_meta = {
    'id int': lambda d: d.meta['dialog']['thread'].__setitem__('id', 5),
    'created int': lambda d: d.meta['dialog']['thread'].__setitem__('created_at', 5),
    'created text': lambda d: d.meta['dialog']['thread'].__setitem__('created_at', 'yesterday'),
    'updated text': lambda d: d.meta['dialog']['thread'].__setitem__('updated_at', 'x'),
    'attributes list': lambda d: d.meta['dialog']['thread'].__setitem__('attributes', [1]),
    'platforms bad': lambda d: d.meta['dialog']['thread'].__setitem__('platforms', {'a': 1}),
    'record not a dict': lambda d: d.messages[0].meta['dialog']['thread'].__setitem__(0, 'x'),
    'reply record not a dict': lambda d: d.messages[0].meta['dialog']['thread'].__setitem__(1, 3),
}

@pytest.mark.parametrize('case', list(bad_meta))
def test_bad_thread_metadata_raises_valueerror_saying_where(case):
    "A hand-edited notebook record that's wrong raises a ValueError naming the dialog, never a TypeError"
    d = building(ours).dialog
    bad_meta[case](d)
    with pytest.raises(ValueError, match="dialog 'th-1'"): Thread.from_dialog(d)

def test_naive_thread_times_read_as_utc():
    d = building(ours).dialog
    d.meta['dialog']['thread'] |= dict(created_at='2024-05-01T12:00:00', updated_at='2024-05-01T13:00:00')
    t = Thread.from_dialog(d)
    assert t.created_at.tzinfo is not None and t.updated_at.tzinfo is not None and t.updated_at>t.created_at

def test_shallow_copy_leaves_original_cells():
    "A shallow copy shares the messages; changing the copy's list doesn't turn the original's cells into new prompts"
    t = Thread.from_dialog(foreign())
    before = [c.id for c in t.dialog.messages]
    c = copy.copy(t)
    c.messages.pop(0); c.add_message(Message(role='user', content='copy'))
    assert [x.id for x in t.dialog.messages]==before and len(t.messages)==4

@pytest.mark.parametrize('bad', [None, 'abc', 5, {'a': 1}])
def test_messages_must_be_a_list(bad):
    t = base(ours)
    with pytest.raises(ValueError, match='messages must be a list'): t.messages = bad
    assert len(t.messages)==5 and t.get_message_by_id('m0') is not None

def test_two_processes_saving_one_thread(tmp_path):
    "Processes that read the same thread file and save it: one wins, the others are refused, nothing is half-written"
    import subprocess, sys, os, tempfile
    p = tmp_path/'t.ipynb'
    t = Thread(id='c'); t.add_message(Message(role='user', content='hi')); t.save(p)
    # each reads, says so, and saves only once all three have read (however slowly each starts on a busy machine)
    ready = Path(tempfile.mkdtemp())
    code = ('import sys, time\nfrom pathlib import Path\nfrom dialog.thread import Thread, Message\nt = Thread.read(sys.argv[1])\n'
            'r = Path(sys.argv[3]); (r/sys.argv[2]).touch(); end = time.monotonic()+120\n'
            'while len(list(r.iterdir()))<3 and time.monotonic()<end: time.sleep(0.01)\n'
            't.add_message(Message(role="user", content=sys.argv[2]))\ntry: t.save(); print("saved")\nexcept Exception as e: print(type(e).__name__)')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(ours.__file__).parent.parent), os.environ.get('PYTHONPATH', '')]))
    ps = [subprocess.Popen([sys.executable, '-c', code, str(p), f'w{i}', str(ready)], stdout=subprocess.PIPE, text=True, env=env) for i in range(3)]
    outs = sorted(x.communicate()[0].strip() for x in ps)
    assert outs==['DialogConflictError', 'DialogConflictError', 'saved']
    back = Thread.read(p)
    assert [m.content for m in back.messages][0]=='hi' and len(back.messages)==2 and [x.name for x in tmp_path.iterdir()]==['t.ipynb']
    assert sorted(x.name for x in ready.iterdir())==['w0', 'w1', 'w2']


class _SlotMsg(Message):
    __slots__ = ('tag',)

@pytest.mark.parametrize('how', ['copy', 'deepcopy', 'pickle', 'model_copy'])
def test_subclass_slots_survive_copies(how):
    "A host's message subclass with slots of its own keeps them through every kind of copy (and its copy is in no thread)"
    m = _SlotMsg(role='user', content='a', id='m'); m.tag = 5
    t = Thread(); t.add_message(m)
    c = dict(copy=copy.copy, deepcopy=copy.deepcopy, pickle=lambda o: pickle.loads(pickle.dumps(o)), model_copy=lambda o: o.model_copy())[how](m)
    assert (type(c), c.tag, c) == (_SlotMsg, 5, m)
    assert getattr(c, '_links', ()) == ()

def test_twice_in_the_list_popped_then_reided():
    "A message put in the list twice after a whole-list change, one of the two popped, then given a new id: found by its new id, as in narrator (hypothesis found it)"
    ops = [('add', 'system', False)]*4 + [('del', 0, 3), ('dup', 0), ('pop', 0), ('react', 0), ('reid', 0)]
    assert run_mixed(ours, ops)[:2]==run_mixed(narrator, ops)[:2]

def _saved(tmp_path):
    t = Thread(id='dd'); t.add_message(Message(role='user', content='q')); t.add_message(Message(role='assistant', content='a'), same_turn=True)
    p = t.save(tmp_path/'dd.ipynb')
    return t,p

@pytest.mark.parametrize('change', ['note', 'tag', 'reply', 'system', 'remove', 'move'])
def test_dialog_changed_in_memory_is_refused_not_dropped(tmp_path, change):
    "A change made to `thread.dialog` in memory that the thread's next rebuild would drop (it writes its own cells from its messages) is a `ValueError` naming it, at `thread.dialog` and at `save` (which then writes nothing): it used to vanish at the next save"
    t,p = _saved(tmp_path)
    t.add_message(Message(role='user', content='q2'))
    d = t.dialog
    c = d.messages[0]
    if change=='note': d.mk_message('a note added to thread.dialog', msg_type='note')
    elif change=='tag': c.meta['tags'] = ['x']
    elif change=='reply': c.ai_res = 'edited in memory'
    elif change=='system': d.system = 'be brief'
    elif change=='remove': d.messages = d.messages[1:]
    else: d.messages = list(reversed(d.messages))
    before = Path(p).read_bytes()
    with pytest.raises(ValueError, match='changed in memory'): t.save()
    assert Path(p).read_bytes()==before
    with pytest.raises(ValueError, match='changed in memory'): t.dialog

def test_dialog_taken_in_after_a_change_in_memory(tmp_path):
    "The way on that the error names: `Thread.from_dialog(dlg)` takes the dialog in as it is, and its save keeps the note and the tag"
    t,p = _saved(tmp_path)
    d = t.dialog
    d.mk_message('a note added to thread.dialog', msg_type='note')
    d.messages[0].meta['tags'] = ['x']
    t2 = Thread.from_dialog(d)
    t2.add_message(Message(role='user', content='q2'))
    t2.save()
    cells = read_ipynb(p).messages
    assert 'a note added to thread.dialog' in [c.content for c in cells]
    assert cells[0].meta.get('tags')==['x']
    assert [m.content for m in Thread.read(p).messages][:2]==['q', 'a']

def test_dialog_unchanged_in_memory_builds_again(tmp_path):
    "Reading `thread.dialog` again, saving again, and two threads of one dialog taking turns are no change made in memory; a cell read from the file and edited in memory is kept as it is (the thread doesn't write it)"
    src = Thread(id='s'); src.add_message(Message(role='user', content='q'))
    d0 = src.dialog; d0.mk_message('a note from elsewhere', msg_type='note', id='note1')
    p = d0.save(tmp_path/'s.ipynb')
    t = Thread.read(p); t2 = Thread.from_dialog(t.dialog)
    for _ in range(2): t.dialog; t2.dialog
    t.dialog.messages[-1].content = 'the note, edited in memory' # not a cell the thread writes: kept as it is
    t.add_message(Message(role='user', content='q2'))
    t.save(); t.save()
    assert 'the note, edited in memory' in [c.content for c in read_ipynb(p).messages]

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

def elsewhere_file(tmp_path):
    "A notebook made elsewhere (two prompts with replies, no thread records)"
    from dialog.core import Dialog
    d = Dialog('notes')
    d.mk_message('First question?', msg_type='prompt', output='First answer.')
    d.mk_message('Where is order 12345?', msg_type='prompt', output='It shipped yesterday.')
    return d.save(tmp_path/'n.ipynb')

def test_changes_survive_a_note_added_above(tmp_path):
    "A reaction and a removal made on messages of cells without records, then a person adds a note above them: the messages' ids came from the run's first cell, so they all changed and the changes were lost"
    import json
    p = elsewhere_file(tmp_path)
    t = Thread.read(p)
    t.add_reaction(t.messages[3].id, 'thumbsup', 'ann'); t.messages.remove(t.messages[1]); t.save()
    ids = [m.id for m in Thread.read(p).messages]
    nb = json.loads(p.read_text())
    nb['cells'].insert(0, {'cell_type': 'markdown', 'id': 'note0001', 'metadata': {}, 'source': 'Context: VIP customer'})
    p.write_text(json.dumps(nb))
    back = Thread.read(p)
    assert [m.id for m in back.messages]==ids
    assert [(m.content, m.reactions) for m in back.messages][1:]==[('Where is order 12345?', {}), ('It shipped yesterday.', {'thumbsup': ['ann']})]

def test_change_record_keeps_a_persons_later_edit(tmp_path):
    "Once a message of a cell without records had a change recorded (a reaction), a person's later edit of its text was hidden by the whole record"
    import json
    from dialog.core import Dialog
    d = Dialog('notes'); d.mk_message('Where is order 12345?', msg_type='prompt', output='It shipped yesterday.')
    t = Thread.from_dialog(d)
    t.add_reaction(t.messages[0].id, 'thumbsup', 'ann'); t.add_reaction(t.messages[1].id, 'heart', 'bob')
    t.messages[1].metrics['model'] = 'gpt-4'
    p = t.save(tmp_path/'n.ipynb')
    nb = json.loads(p.read_text()); c = nb['cells'][0]
    c['source'] = ''.join(c['source']).replace('12345', '99999'); c['outputs'][0]['data']['text/markdown'] = 'It shipped last week.'
    p.write_text(json.dumps(nb))
    b = Thread.read(p)
    assert [(m.content, m.reactions) for m in b.messages]==[('Where is order 99999?', {'thumbsup': ['ann']}), ('It shipped last week.', {'heart': ['bob']})]
    assert b.messages[1].metrics['model']=='gpt-4'
    b.messages[1].content = 'Changed by the program.'; b.save() # a text the program changed is its own: it wins
    assert Thread.read(p).messages[1].content=='Changed by the program.'

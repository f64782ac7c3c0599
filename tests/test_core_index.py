"Property tests of dialog.core's id index and identity rules: unique ids, the index equal to a scan, pickling, streaming."
import copy, pickle, random
import pytest
from hypothesis import given, settings, strategies as st
from fastcore.foundation import L
from dialog.core import *

def _scan_ok(dlg):
    "The index answers exactly what a linear scan of the list answers"
    ms = dlg.messages
    ids = [m.id for m in ms.items]
    for i,m in enumerate(ms.items):
        assert ms[m.id] is ms.items[ids.index(m.id)]  # first of an id wins
        assert m.id in ms and ms._pos(m) == ids.index(m.id)
    assert 'not-an-id' not in ms
    with pytest.raises(KeyError): ms['not-an-id']

# Operations on a dialog: insert (append/idx/after/before), remove, paste copies, direct list edits
op = st.one_of(
    st.tuples(st.just('mk'), st.sampled_from(['append','idx','after','before']), st.integers(0, 1000)),
    st.tuples(st.just('rm'), st.integers(0, 1000), st.integers(1, 3)),
    st.tuples(st.just('paste'), st.integers(0, 1000), st.integers(1, 3)),
    st.tuples(st.just('direct'), st.sampled_from(['append','setitem','del','reverse','dup']), st.integers(0, 1000)),
    st.tuples(st.just('lib'), st.sampled_from(['assign','rename','clash','pickle','deepcopy','after']), st.integers(0, 1000)))

@settings(max_examples=150, deadline=None)
@given(st.lists(op, max_size=30), st.integers(0, 3))
def test_ids_unique_and_index_equals_scan(seq, seed):
    "Under any sequence of library inserts, removals and pastes, ids stay unique; after any direct edit the index still equals a scan"
    random.seed(seed)  # few seeds: random ids collide with earlier ones across examples, exercising the redraw
    dlg,model,direct = Dialog('p'),[],False
    for kind,a,b in seq:
        n = len(dlg)
        if kind=='mk':
            c = str(len(model))
            if a=='append' or not n: dlg.mk_message(c); model.append(c)
            elif a=='idx': i = b%(n+1); dlg.mk_message(c, idx=i); model.insert(i, c)
            else:  # by id: the first message with the reference's id (only a direct edit can make two)
                ref = dlg[b%n]; i = [m.id for m in dlg].index(ref.id)
                if a=='after': dlg.mk_message(c, after=ref); model.insert(i+1, c)
                else: dlg.mk_message(c, before=ref.id); model.insert(i, c)
        elif kind=='rm' and n:
            picks = [dlg[(a+k)%n] for k in range(min(b, n))]
            gone = {id(m) for m in picks}
            model = [c for m,c in zip(dlg.messages.items, model) if id(m) not in gone]
            dlg.remove_msgs(picks)
            assert all(m.dlg is None for m in picks)
            left = {m.id for m in dlg.messages.items}
            assert not [m.id for m in picks if m.id in dlg.messages and m.id not in left], 'a removed id is still indexed'
        elif kind=='paste' and n:
            clip = [dlg[(a+k)%n] for k in range(min(b, n))]
            at = dlg[a%n]
            j = [m.id for m in dlg].index(at.id)+1
            new = dlg.mk_messages(clip, after=at)
            model[j:j] = [m.content for m in new]
        elif kind=='direct':
            direct = True
            its = dlg.messages.items
            if a=='append': its.append(Message('d')); model.append('d')
            elif a=='setitem' and n: its[b%n] = Message('s'); model[b%n] = 's'
            elif a=='del' and n: del its[b%n]; del model[b%n]
            elif a=='reverse': its.reverse(); model.reverse()
            elif a=='dup' and n: dlg.messages.append(Message('dup', id=dlg[b%n].id)); model.append('dup')
        elif kind=='lib' and n:
            m = dlg[b%n]
            if a=='assign':  # keep every other message, in reverse
                keep = dlg.messages.items[::-2]
                if len({x.id for x in keep})<len(keep) or any(x is y for i,x in enumerate(keep) for y in keep[:i]):
                    with pytest.raises(ValueError): dlg.messages = keep
                else:
                    model = model[::-2]; dlg.messages = keep
                    assert all(x.dlg is dlg for x in keep)
            # any message: one a direct edit put there has no backlink, yet the index follows its rename
            elif a=='rename' and (new := f'r{b}') not in dlg.messages: m.id = new
            elif a=='clash' and n>1 and m.dlg is dlg:
                o = dlg[(b+1)%n]
                if o.id!=m.id:
                    with pytest.raises(ValueError, match='already has'): m.id = o.id
            elif a in ('pickle','deepcopy'):
                dlg = pickle.loads(pickle.dumps(dlg)) if a=='pickle' else copy.deepcopy(dlg)
                assert all(x.dlg is dlg for x in dlg)
            elif a=='after' and m.dlg is dlg and [x.id for x in dlg].index(m.id)==b%n:
                m.insert_after(Message(c := str(len(model)))); model.insert(b%n+1, c)
        assert [m.content for m in dlg] == model
        _scan_ok(dlg)
        if not direct: assert len({m.id for m in dlg}) == len(dlg)
    if not direct: dlg.validate()

@given(st.lists(st.sampled_from(['3f9a', '3f9b', '3fa0', 'aa00', 'aa01', 'b']), unique=True, min_size=1), st.text(alphabet='3fab0', max_size=4))
def test_prefix_lookup_matches_scan(ids, key):
    d = Dialog('x', [Message(i, id=i) for i in ids])
    hits = [i for i in ids if i.startswith(key)] if key else []
    if key in ids: assert d[key].id == key
    elif len(hits)==1: assert d[key].id == hits[0] and d.messages[key] is d[key]
    else:
        with pytest.raises(KeyError, match='ambiguous' if hits else 'not found'): d[key]

def test_one_dialog_per_message():
    d1,d2 = Dialog('a'),Dialog('b')
    m = d1.mk_message('x')
    for f in (lambda: d2.insert_msgs([m]), lambda: d1.insert_msgs([m]), lambda: Dialog('c', [m]), lambda: d2.mk_message('y', after=None) and m.insert_after([m])):
        with pytest.raises(ValueError, match='mk_messages'): f()
    n = Message('n')
    with pytest.raises(ValueError, match='mk_messages'): Dialog('c', [n, n])
    del d1  # a dead dialog no longer owns its messages
    import gc; gc.collect()
    assert Dialog('d', [m])[0] is m

def test_mk_messages_builds_through_msg_cls():
    class Host(Message): meta_attrs = dict(pinned='pinned', hid='hidden')
    class HostDialog(Dialog): msg_cls = Host
    src = Message('a', meta={'pinned': True, 'hidden': 1, 'k': 2}, execution_count=4)
    hd = HostDialog('h')
    c, = hd.mk_messages([src])
    assert type(c) is Host and (c.pinned, c.hid, c.meta, c.execution_count) == (True, 1, {'k': 2}, 4)
    back, = Dialog('p').mk_messages([c])  # and back to a plain Message: the attributes return to meta
    assert type(back) is Message and back.meta == {'k': 2, 'pinned': True, 'hidden': 1}

def test_deepcopy_and_pickle_round_trip():
    d = Dialog('d', meta=dict(a=1))
    for i in range(5): d.mk_message(str(i), output=code_output(str(i)), attachments=[Attachment(bytes([i]), 'image/png', f'{i}.png')])
    for cp in (copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
        assert [m.todict() for m in cp] == [m.todict() for m in d] and cp.meta == d.meta
        assert all(m.dlg is cp for m in cp) and not any(a is b for a,b in zip(cp, d))
        _scan_ok(cp)
        cp.mk_message('new', after=cp[2])
        assert len(cp)==6 and len(d)==5

@given(st.lists(st.tuples(st.sampled_from(['stdout','stderr']), st.text(alphabet='ab\n', max_size=5)), max_size=40), st.integers(0, 40))
def test_stream_chunks_read_like_concatenation(chunks, read_at):
    "Reading `output` at any point shows what appending each chunk's text would, and pickling mid-stream keeps it"
    m,model = Message('run()', msg_type=scode),[]
    for i,(name,t) in enumerate(chunks):
        m.add_output(mk_stream(t, name))
        if model and model[-1][0]==name: model[-1] = (name, model[-1][1]+t)
        else: model.append((name, t))
        if i==read_at: assert [(o['name'], o['text']) for o in m.output] == model
    assert [(o['name'], o['text']) for o in pickle.loads(pickle.dumps(m)).output or []] == model
    assert [(o['name'], o['text']) for o in m.output or []] == model

def test_hooks_fire_on_same_object():
    class C(Message):
        n = 0
        def clear_out_cache(self): super().clear_out_cache(); self.n += 1
    m = C('x', output=[])
    n,outs = m.n,m.output
    outs.append(dict(output_type='stream', name='stdout', text='a'))
    m.output = outs
    assert m.n == n+1

def test_msgs_repr_bounded():
    d = Dialog('big', [Message(str(i)) for i in range(500)])
    assert len(repr(d.messages).splitlines()) == 21 and repr(d.messages).endswith('… 480 more')

def test_errors_truncate_quoted_values():
    d = Dialog('n'*500)
    with pytest.raises(KeyError) as e: d.mk_message('x', after='y'*500)
    assert len(str(e.value)) < 150
    with pytest.raises(KeyError) as e: d['z'*500]
    assert len(str(e.value)) < 150

def test_suppressed_bounded_and_right():
    from dialog.core import _suppressed
    big = 'echo "' + '\\"'*40000 + '"\n' * 3 + 'x;'
    assert _suppressed(big)
    for src,res in [('1;', True), ('1', False), ("'a;'", False), ('x = 1; x;  # quiet', True), ('for i in range(3):\n    i;', True),
                    ('s = """\nx;\n"""', False), ('x;\n\n# note\n', True), ('d = {\n  1: 2,\n};', True), ('d = {\n  1: ";",\n}', False)]:
        assert _suppressed(src) == res, src

def test_assigning_messages_wraps_and_links():
    d = Dialog('a')
    ms = [Message('x', id='x1'), Message('y', id='y1')]
    d.messages = ms
    assert isinstance(d.messages, Msgs) and d['y'].content == 'y' and all(m.dlg is d for m in d)
    d.messages = d.messages + [Message('z', id='z1')]  # L's + makes a new Msgs: still indexed and linked
    assert d['z1'].dlg is d and len(d) == 3

nbdev3 = st.sampled_from(['#| export', '#|export', '# | export', '#| exports', '#| exporti', '#| export sub.mod', '  #|  export ', '#| hide', '#| eval: false'])
@given(st.lists(nbdev3, max_size=3), st.sampled_from(['x = 1', 'def f(): pass', '', '# a plain comment after']))
def test_exported_agrees_with_directives(dirs, body):
    "`exported` (our reader, which also accepts nbdev 1's `#export`) and `directives` (fastcore's) agree on nbdev 3 spellings"
    m = Message('\n'.join(dirs + [body]))
    assert m.exported == any(m.has_directive(n) for n in ('export', 'exports', 'exporti'))
    meta = Message(body, meta={'nbdev': {d.split('|')[1].split()[0]: 'true' for d in dirs}})
    assert meta.exported == meta.meta_exported == any(meta.has_directive(n) for n in ('export', 'exports', 'exporti'))

# ---- every way a message enters, or an id changes, keeps ids unique and each message in one dialog ----

def test_assigning_messages_checks_like_inserting():
    "`dlg.messages = ...` refuses what `mk_message`/`insert_after` refuse (it used to take a message from a live dialog, or the same one twice)"
    d,e = Dialog('d'),Dialog('e')
    a,b = d.mk_message('a'),d.mk_message('b')
    with pytest.raises(ValueError, match='already in dialog'): e.messages = [a]
    assert a.dlg is d and list(d.messages)==[a, b] and len(e)==0
    with pytest.raises(ValueError, match='already in dialog'): d.messages = [a, a]
    assert list(d.messages)==[a, b] and d[a.id] is a  # refused: the dialog is as it was, index too
    with pytest.raises(ValueError, match="already has a message with id 'x1'"): e.messages = [Message('p', id='x1'), Message('q', id='x1')]
    d.messages = [b]  # the usual filter idiom: a kept message may be reassigned; the dropped one leaves
    assert list(d.messages)==[b] and a.dlg is None and b.dlg is d and a.id not in d.messages
    d.messages = d.messages[::-1] + [a]
    assert list(d.messages)==[b, a] and a.dlg is d and d.messages._pos(a)==1

def test_id_setter_refuses_a_collision():
    "Renaming a message to an id its dialog already has is a `ValueError` at once (it used to surface only at save)"
    d = Dialog('d'); a,b = d.mk_message('a', id='aa'),d.mk_message('b', id='bb')
    with pytest.raises(ValueError, match="already has a message with id 'aa'"): b.id = 'aa'
    assert b.id=='bb' and d['bb'] is b
    with pytest.raises(ValueError, match='must be a str'): b.id = ['x']
    b.id = 'bb'; b.id = 'cc'  # its own id again, or a new one: fine
    assert d['cc'] is b and 'bb' not in d.messages
    Message('free', id='z').id = 'aa'  # a message in no dialog may take any id

def test_shallow_copy_leaves_the_original_alone():
    "`copy.copy(dlg)` used to point the original's messages at the copy; now the copy holds copies (same ids)"
    d = Dialog('d'); a = d.mk_message('a')
    c = copy.copy(d)
    assert a.dlg is d and c[0] is not a and c[0].id==a.id and c[0].dlg is c
    n = c.mk_message('new', after=c[0])
    assert len(d)==1 and n.previous() is c[0]

def test_pickle_and_deepcopy_of_a_stale_index():
    "A dialog whose list was edited directly (index stale) pickles and deep-copies into a dialog whose index is right"
    d = Dialog('d'); ms = [d.mk_message(str(i)) for i in range(5)]
    assert d[ms[0].id] is ms[0]  # index built
    d.messages.items.reverse()  # direct edit: stale
    for c in (pickle.loads(pickle.dumps(d)), copy.deepcopy(d)):
        assert [m.content for m in c]==list('43210') and all(m.dlg is c for m in c)
        assert all(c.messages._pos(m)==i for i,m in enumerate(c.messages))
        assert c.mk_message('x', after=c[0].id).previous() is c[0]
    assert all(m.dlg is d for m in ms)

def test_an_id_is_never_redrawn_once_in_a_dialog():
    "A random id is redrawn only while its message is new: reassigning or moving a message never renames it silently"
    d = Dialog('d'); a = d.mk_message('a')
    dup = Message('dup', id=a.id)
    d.messages.append(dup)  # direct edit: two messages share a's id
    with pytest.raises(ValueError, match='already has a message with id'): d.messages = [dup, a]
    assert a.id==dup.id and list(d.messages)==[a, dup]
    random.seed(5); b = d.mk_message('b'); d.remove_msgs([b])
    e = Dialog('e'); random.seed(5); x = e.mk_message('x')  # the same random id as b's
    with pytest.raises(ValueError, match='already has a message with id'): e.messages = [x, b]  # b, once in a dialog, keeps its id
    assert b.id==x.id and b.dlg is None

def test_renaming_a_directly_appended_message_is_followed():
    "A message a direct edit put in the list (no backlink, or one to another dialog) is found by its new id once renamed, and the id is taken"
    d,other = Dialog('x'),Dialog('o')
    d.mk_message('a', id='a1')
    m,o = Message('b', id='b1'),other.mk_message('c', id='c1')
    d.messages.append(m); d.messages.append(o)  # direct edits: m has no backlink, o's points at `other`
    assert 'b1' in d.messages and 'c1' in d.messages  # the index is built
    m.id,o.id = 'b2','c2'
    assert d['b2'] is m and d['c2'] is o and other['c2'] is o
    for k in ('b1', 'c1'):
        assert k not in d.messages
        with pytest.raises(KeyError, match='not found'): d[k]
    for k in ('b2', 'c2'):
        with pytest.raises(ValueError, match='already has a message with id'): d.mk_message('dup', id=k)
    assert [x.id for x in d] == ['a1', 'b2', 'c2']

def test_a_message_sharing_an_id_after_a_direct_edit_is_still_held():
    "Even when a direct edit left two messages with one id, the second is known to be in its dialog: it can't be inserted elsewhere"
    d = Dialog('d'); first = d.mk_message('a', id='same')
    second = Message('b', id='same'); d.messages.append(second); second.dlg = d
    with pytest.raises(ValueError, match='already in dialog'): Dialog('e', [second])
    with pytest.raises(ValueError, match='already in dialog'): Dialog('e').messages = [second]
    assert second.dlg is d and first.dlg is d
    assert second.remove_from_dlg() is second and list(d.messages)==[first] and second.dlg is None

def test_assigning_messages_refuses_an_id_a_direct_edit_duplicated():
    "A message a direct edit put in the list is not new: assigning a list where it shares an id with another is refused, not silently renamed"
    dlg = Dialog('x')
    for i in range(4): dlg.mk_message(f'm{i}')
    dlg.messages.items[0] = Message('s')
    dlg.messages.append(Message('dup', id=dlg[0].id))
    keep = dlg.messages.items[::-2]
    ids = [m.id for m in keep]
    with pytest.raises(ValueError, match='already has a message with id'): dlg.messages = keep
    assert [m.id for m in keep]==ids

def test_l_methods_give_msgs_only_of_messages():
    "L's methods on a `Msgs` give a `Msgs` of messages (slices, filters), and a plain `L` of anything else, whose repr and `in` work"
    d = Dialog('x')
    for c in 'ab': d.mk_message(c, id=f'{c}1')
    ms = d.messages
    for r in (ms[:1], ms.filter(lambda m: m.content=='b'), ms[[1, 0]], ms.sorted('content')):
        assert type(r) is Msgs and all(isinstance(m, Message) for m in r)
    assert 'b1' in ms.filter(lambda m: m.content=='b')  # the id index still answers for messages
    for r in (ms.attrgot('content'), ms.map(lambda m: m.content)):
        assert type(r) is L and list(r)==['a', 'b'] and 'a' in r and 'c' not in r
        assert repr(r)=="['a', 'b']" and r[0]=='a'
    assert type(ms.map(lambda m: m)) is Msgs and type(ms.attrgot('id')) is L

def test_a_rename_elsewhere_rebuilds_no_other_index():
    "Renaming a message of another dialog, or of none, leaves a dialog's index as built (its lookups stay O(1)); the lists that hold the renamed message, by backlink or by a direct edit, follow it"
    big,small = Dialog('big', [Message(f'x{i}', id=f'id{i}') for i in range(50)]),Dialog('small', [Message('y', id='s0')])
    loose = Message('z', id='l0')
    big['id0']; small['s0']
    built,rebuilds = big.messages._idx,0
    for i in range(20):
        small.messages[0].id,loose.id = f's{i+1}',f'l{i+1}'
        assert big[f'id{i}'].content == f'x{i}'
        rebuilds += big.messages._idx is not built; built = big.messages._idx
    assert rebuilds == 0
    assert small['s20'] is small.messages[0] and 's0' not in small.messages
    # a message a direct edit put in `big` (backlink to `small`), and one pointed at another dialog while `big` holds it
    o = small.mk_message('o', id='o0'); big.messages.append(o)
    p = big['id1']; p.dlg = small
    assert 'o0' in big.messages and 'id1' in big.messages
    o.id,p.id = 'o1','p1'
    assert big['o1'] is o and big['p1'] is p and small['o1'] is o
    assert 'o0' not in big.messages and 'id1' not in big.messages

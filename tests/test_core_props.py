"Property tests of dialog.core: identity, insertion positions, kernel stream handling, export directives."
import pytest, re
from hypothesis import given, strategies as st
from dialog.core import *
from dialog.view import text_lines

ids = st.one_of(st.text(min_size=1, max_size=12), st.integers())

class Thing:
    def __init__(self, id): self.id = id
add_id_hash(Thing, 'id')

@given(ids, ids)
def test_id_hash_identity(a, b):
    "Equality, hashing and membership all follow the id, from either side"
    ta,tb = Thing(a),Thing(b)
    assert (ta==tb) == (a==b) == (tb==ta)
    assert (ta==b) == (a==b) and (b==ta) == (a==b)
    if a==b: assert hash(ta)==hash(tb)==hash(b)
    assert (b in [ta]) == (a==b)
    assert len({ta, tb, Thing(a)}) == len({a, b})
    assert {ta: 1}.get(b) == (1 if a==b else None)

# A sequence of insertions: (kind, index into current messages) where kind picks append/idx/after/before and by id or object
ops = st.lists(st.tuples(st.sampled_from(['append','idx','after','before','after_id','before_id']), st.integers(0, 1000)), max_size=25)

@given(ops)
def test_mk_message_positions(seq):
    "mk_message lands exactly where the same insertion into a plain list would"
    dlg,model = Dialog('p'),[]
    for n,(kind,k) in enumerate(seq):
        c = str(n)
        if kind=='append' or not model: dlg.mk_message(c); model.append(c); continue
        i = k % (len(model)+1) if kind=='idx' else k % len(model)
        if kind=='idx':
            dlg.mk_message(c, idx=i); model.insert(i, c); continue
        ref = dlg.messages[i]
        if kind.startswith('after'): dlg.mk_message(c, after=ref.id if kind.endswith('_id') else ref); model.insert(i+1, c)
        else: dlg.mk_message(c, before=ref.id if kind.endswith('_id') else ref); model.insert(i, c)
    assert [m.content for m in dlg.messages] == model
    assert all(m.dlg is dlg for m in dlg.messages)
    assert len({m.id for m in dlg.messages}) == len(model)
    dlg.validate()

@given(st.lists(st.integers(0, 5), min_size=1, max_size=5), st.integers(0, 10))
def test_mk_messages_pastes_fresh_copies(picks, at):
    dlg = Dialog('paste')
    for i in range(6): dlg.mk_message(f'm{i}', msg_type=snote, attachments=[Attachment(bytes([i]), 'image/png', f'a{i}.png')])
    before = [m.content for m in dlg.messages]
    clip = [dlg.messages[i] for i in picks]
    after = dlg.messages[at % 6]
    new = dlg.mk_messages(clip, after=after)
    j = before.index(after.content)+1
    assert [m.content for m in dlg.messages] == before[:j] + [m.content for m in clip] + before[j:]
    assert [a.data for m in new for a in m.attachments] == [a.data for m in clip for a in m.attachments]
    assert not any(n.id==c.id for n in new for c in clip)
    dlg.validate()
    new[0].attachments[0].data = b'changed'  # copies are independent of the originals
    assert clip[0].attachments[0].data != b'changed'

texts = st.text(alphabet=st.sampled_from('ab\n;x '), max_size=8)
events = st.lists(st.one_of(
    st.tuples(st.just('stream'), st.sampled_from(['stdout','stderr']), texts),
    st.tuples(st.just('display'), st.just(''), texts),
    st.tuples(st.just('clear'), st.booleans(), st.just(''))), max_size=30)

def _model(evs):
    "What Jupyter shows: consecutive same-name streams concatenated, clears applied (waiting ones at the next output)"
    outs,wait = [],False
    for kind,a,t in evs:
        if kind=='clear':
            if a: wait = True
            else: outs,wait = [],False
            continue
        if wait: outs,wait = [],False
        if kind=='stream' and outs and outs[-1][0]=='stream' and outs[-1][1]==a: outs[-1] = ('stream', a, outs[-1][2]+t)
        else: outs.append((kind, a if kind=='stream' else '', t))
    return outs

@given(events)
def test_add_output_streams(evs):
    m = Message('run()', msg_type=scode)
    for kind,a,t in evs:
        if kind=='stream': m.add_output(mk_stream(t, a))
        elif kind=='display': m.add_output(mk_dispdata({'text/plain': t}))
        else: m.add_output(mk_jmsg('clear_output', wait=a))
    got = [('stream', o['name'], o['text']) if o['output_type']=='stream' else ('display', '', o['data']['text/plain'])
           for o in (m.output or [])]
    assert got == _model(evs)
    if m.output: m.validate()

@given(st.lists(texts, max_size=10), st.integers(1, 6))
def test_add_output_trunc_bounds_streams(chunks, n):
    "A truncating hook applied on every add keeps a merged stream bounded"
    m = Message('p()', msg_type=scode)
    for t in chunks: m.add_output(mk_stream(t), trunc=lambda o: o | dict(text=o['text'][-n:]))
    assert all(len(o['text'])<=n for o in m.output or [])

spellings = st.sampled_from(['#| export', '#|export', '# | export', '#| exports', '#| exporti', '#export', '#| export sub.mod', '  #|  export '])
bodies = st.text(alphabet=st.sampled_from('abc=()\n #|'), max_size=30).filter(lambda s: strip_export(s)==s)

@given(bodies, spellings, st.lists(st.booleans(), max_size=6))
def test_export_toggling(body, spelling, flips):
    "exported reads any spelling; setting it is idempotent, and turning it off and on restores a canonical directive"
    m = Message(f'{spelling}\n{body}')
    assert m.exported
    m.exported = False
    assert not m.exported and m.content == body
    for f in flips:
        m.exported = f
        assert m.exported == f
        m.exported = f
        assert m.content == (f'#| export\n{body}' if f else body)
    assert strip_export(m.content) == body

@given(bodies, spellings, st.lists(st.booleans(), max_size=6))
def test_export_toggling_in_crlf_text(body, spelling, flips):
    "A directive line ending in CR LF is the same directive: read, removed whole, and written back ended as the text's lines are"
    body = body.replace('\n', '\r\n')
    m = Message(f'{spelling}\r\n{body}')
    assert m.exported and dlg2py(Dialog('d', [m]))
    m.exported = False
    assert not m.exported and m.content == body
    eol = '\r\n' if '\n' in body else '\n'
    for f in flips:
        m.exported = f
        assert m.exported == f and m.content == (f'#| export{eol}{body}' if f else body)

def test_preview_of_deep_or_cyclic_output_does_not_recurse():
    "A message's one-line preview counts its output's text without recursion: deep JSON (as a file allows) or a cycle don't raise"
    deep = []; x = deep
    for _ in range(5000): x.append([]); x = x[0]
    x.append('abc')
    m = Message('x', output=[mk_displayobj({'application/json': deep})])
    assert m.preview().endswith('out(3)')
    c = []; c.append(c); c.append('hi')
    m.output = [mk_displayobj({'application/json': c})]
    assert m.preview().endswith('out(2)') and 'out(2)' in repr(Dialog('d', [m]))

def test_write_errors_truncate_what_they_quote():
    "`validate`, the writer and the reader quote ids, names and types cut short: a 100k-character value never floods an error"
    big = 'x'*100_000
    d = Dialog(big); m = d.mk_message('a', id=big)
    with pytest.raises(ValueError) as e: m.msg_type = big
    assert len(str(e.value)) < 400 and '…' in str(e.value)
    m.output = 'text'
    for f in (d.validate, m.validate):
        with pytest.raises(ValueError) as e: f()
        assert len(str(e.value)) < 400 and '…' in str(e.value)
    from dialog.ipynb import reads_ipynb, DialogFormatError
    nb = '{"cells": [{"cell_type": "raw", "id": "r", "metadata": {}, "source": "", "attachments": {"%s": {}}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' % big
    with pytest.raises(DialogFormatError) as e: reads_ipynb(nb)
    assert len(str(e.value)) < 400

# `Message.state_of` is `__init__`'s own rule (`_msg_state`): what it gives is what the constructor sets, key for key and in order

_txt = st.text(max_size=20)
_outs = st.one_of(st.just(''), _txt, st.lists(st.fixed_dictionaries({'output_type': st.just('stream'), 'name': st.just('stdout'), 'text': _txt}), max_size=2))

@given(_txt, _outs, st.one_of(st.none(), st.text('0123456789abcdef', min_size=1, max_size=8)), st.sampled_from(smsg_types),
       st.one_of(st.none(), st.lists(st.binary(max_size=4), max_size=2)), st.one_of(st.none(), st.dictionaries(st.sampled_from(['pinned', 'skipped', 'x']), st.booleans())),
       st.one_of(st.none(), st.integers(0, 99)), st.one_of(st.none(), st.just({}), st.fixed_dictionaries({'bare': st.just(True)}), st.fixed_dictionaries({'mark': st.integers(2, 3)})))
def test_state_of_is_what_the_constructor_sets(content, output, id, msg_type, atts, meta, n, form):
    atts = None if atts is None else [Attachment(b, 'image/png', f'a{i}.png') for i,b in enumerate(atts)]
    xtras = {} if n is None else {'execution_count': n}
    m = Message(content, output=output, id=id, msg_type=msg_type, attachments=atts, meta=meta, **xtras)
    m.ipynb_form = form
    s = Message.state_of(content, output=output, id=id, msg_type=msg_type, attachments=atts, meta=meta, ipynb_form=form, **xtras)
    if id is None: s['_id'] = m.id  # a drawn id differs; that it is drawn (and marked so) is the same
    assert s == vars(m) and list(s) == list(vars(m))
    assert s['attachments'] is not atts and (atts is None or s['attachments'] == atts)  # a new list, as the constructor makes

def test_a_subclass_keeps_what_it_set_before_calling_init():
    "A subclass's `__init__` may set attributes before calling `Message.__init__`: they are kept; and its own slots and properties are set through"
    class M(Message):
        __slots__ = ('tag',)
        def __init__(self, *a, tag=None, flag=False, **kw):
            self.flag,self.tag = flag,tag
            super().__init__(*a, **kw)
    m = M('x', tag='t', flag=True, id='a1')
    assert (m.flag, m.tag, m.content, m.id) == (True, 't', 'x', 'a1')
    class P(Message):
        @property
        def content(self): return self._c
        @content.setter
        def content(self, v): self._c = v.upper()
    p = P('hi', msg_type='note')
    assert (p.content, p.msg_type) == ('HI', 'note')

def _built(content='c', ipynb_form=None, **kw):
    "What `Message(content, **kw)` with `ipynb_form` set holds, or the error it raises, as comparable data"
    try:
        m = Message(content, **kw)
        m.ipynb_form = ipynb_form
        return vars(m)
    except Exception as e: return type(e),str(e)

def _state(content='c', **kw):
    "What `Message.state_of(content, **kw)` gives, or the error it raises, as comparable data"
    try: return Message.state_of(content, **kw)
    except Exception as e: return type(e),str(e)

def _same(**kw):
    a,b = _state(id='i', **kw),_built(id='i', **kw)
    assert a == b and (type(a) is tuple or list(a) == list(b))

def test_state_of_promotes_a_meta_attr_that_is_a_property(pin_promoted):
    "A `meta_attrs` name `Message` has a property for (`pinned`): the constructor sets it through the property, and so must `state_of`"
    _same(meta={'pinned': True, 'x': 1})
    _same(meta={'x': 1})

@pytest.mark.parametrize('kw', [dict(summ=1), dict(__class__=int), dict(__dict__={'a': 1}), dict(__weakref__=None),
                                dict(skipped=True), dict(pinned=False, ipynb_form={'bare': True})])
def test_state_of_sets_what_is_not_a_plain_attribute_as_the_constructor_does(kw):
    "An extra the constructor sets through a descriptor (a property, `__dict__`, `__class__`): the same state, or the same error"
    _same(**kw)

def test_state_of_forgets_a_form_as_setting_ipynb_form_does():
    "`ipynb_form=None` forgets the form, as `m.ipynb_form = None` does, even one given as an attribute"
    _same(_ipynb={'bare': True})
    _same(_ipynb={'bare': True}, ipynb_form={'mark': 2})

def test_state_of_takes_no_dialog():
    "A state is of a message in no dialog"
    with pytest.raises(TypeError, match='no dialog'): Message.state_of('x', dlg=None)

_ended_txt = st.lists(st.sampled_from(['a', '\n', '\r\n', '\r', '\u2028', '\x0c']), max_size=6).map(''.join)

@given(st.lists(_ended_txt, max_size=4))
def test_line_end_of_several_texts_is_the_first_ones_that_has_one(ts):
    "One rule for the line end new lines take (an editor's, the export directive's, a merge's): `line_end(*texts)` is the first text's that has a line end (its first line's, LF or CR LF); LF when none has, a lone CR or U+2028 ending none"
    first = next((t for t in ts if '\n' in t), '')
    assert line_end(*ts) == line_end(first) == (re.search(r'\r?\n', first) or ['\n'])[0]

@pytest.mark.parametrize('typ', [scode, sprompt])
def test_a_fenced_or_headed_part_ending_in_a_lone_cr_keeps_it(typ):
    "r14: `merge_content`'s fence or heading after a text ending in a lone CR doesn't make that CR half of a CR LF (`join_lines`)"
    m = Message('a\r', msg_type=typ, **(dict(output='r\r') if typ==sprompt else {}))
    want = ['```python', 'a\r', '```'] if typ==scode else ['## AI Prompt', 'a\r', '## AI Response', 'r\r']
    assert text_lines(merge_parts([m, Message('b', msg_type=snote)], snote)[0]) == want + ['', 'b']

# --- a merge of CR LF parts adds CR LF lines only, whatever a one-line part holds (r15b)

_one_line = st.lists(st.sampled_from(['x', ' ', '\r', '\u2028']), max_size=4).map(''.join)
_crlf_txt = st.lists(_one_line, min_size=2, max_size=3).map('\r\n'.join)

@pytest.mark.parametrize('part,typ,lines', [('x\r', scode, ['```python', 'x\r', '```']), ('x\ry', scode, ['```python', 'x\ry', '```']),
                                            ('q\r', sprompt, ['## AI Prompt', 'q\r', '## AI Response', 'r'])])
def test_a_merge_into_a_crlf_note_ends_its_lines_crlf(part, typ, lines):
    "r15b: a CR LF note merged with a one-line part holding a lone CR: the fence or heading lines end CR LF too (a lone CR isn't a CR LF part), the CR kept its line's own"
    m = Message(part, msg_type=typ, **(dict(output='r') if typ==sprompt else {}))
    c = merge_parts([Message('n1\r\nn2', msg_type=snote), m], snote)[0]
    assert text_lines(c) == ['n1', 'n2', ''] + lines and not re.search(r'(?<!\r)\n', c), c

@given(_crlf_txt, st.lists(st.tuples(st.one_of(_crlf_txt, _one_line), st.sampled_from([scode, snote, sprompt]),
                                     st.one_of(_crlf_txt, _one_line)), min_size=1, max_size=3))
def test_a_merge_of_crlf_parts_has_no_lf_line_end(first, rest):
    "Parts whose line ends are CR LF (the first has one; a one-line part, lone CRs and U+2028 in it, has none of its own): every line end of the merge, the ones it adds included, is CR LF"
    ms = [Message(first, msg_type=snote)] + [Message(t, msg_type=typ, **(dict(output=r) if typ==sprompt else {})) for t,typ,r in rest]
    c = merge_parts(ms, snote)[0]
    assert not re.search(r'(?<!\r)\n', c), (ms, c)

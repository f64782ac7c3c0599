"One rule set: `validate` raises exactly when `write_ipynb` refuses, with the same message, and what is written reads back equal."
import json
import pytest
from hypothesis import given, strategies as st, settings, HealthCheck
from dialog.core import *
from dialog.ipynb import *

class Fancy(str): "A str subclass, as hosts and `Msgs.show()` make them"

def outcome(f):
    "`(None, result)` if `f()` returns, `(message, None)` if it raises `ValueError`"
    try: return None,f()
    except ValueError as e: return str(e),None

def norm(m):
    "What a message says, with an empty output in the form each type reads back as"
    d = m.todict()
    d['output'] = (d['output'] or []) if m.msg_type in (scode, sprompt) else (d['output'] or '')
    return d

def check_agreement(d):
    "`Dialog.validate` and `write_ipynb` agree; each message's `validate` agrees with writing it alone; what is written reads back equal"
    verr,_ = outcome(d.validate)
    werr,txt = outcome(lambda: write_ipynb(d))
    assert verr==werr
    for m in d.messages:
        merr,_ = outcome(m.validate)
        serr,_ = outcome(lambda: write_ipynb(Dialog('one'), msgs=[m]))
        assert (merr is None)==(serr is None), (merr, serr)
        if merr: assert merr.partition(': ')[2]==serr.partition(': ')[2]  # the same problem; only the prefix locates it differently
    if txt is not None:
        back = reads_ipynb(txt)
        assert [norm(m) for m in back.messages]==[norm(m) for m in d.messages]
        assert back.meta==d.meta and write_ipynb(back)==txt
        txt.encode('utf-8')  # always encodable, lone surrogates included
    return werr

# ---- the shapes the issue lists, one by one ----

def deep(n): return json.loads('['*n + ']'*n)
def mk(**kw): return Message(**({'content': 'x', 'id': 'm0'} | kw))

good_shapes = {
    'str subclass content': lambda: mk(content=Fancy('x = 1')),
    'str subclass reply': lambda: mk(msg_type=sprompt, output=Fancy('the reply')),
    'Msgs.show() as content': lambda: mk(content=Msgs([Message('a')]).show(), msg_type=snote),
    'lone surrogate in content': lambda: mk(content='a\ud800b'),
    'fsdecoded bytes in an output': lambda: mk(output=[dict(output_type='stream', name='stdout', text=__import__('os').fsdecode(b'\xff\xfe ok'))]),
    'JSON 500 deep in output data': lambda: mk(output=[mk_displayobj({'application/json': deep(500)})]),
    'JSON 900 deep in meta': lambda: mk(meta=dict(x=deep(900))),
    'falsy meta values': lambda: mk(meta=dict(pinned=False, time_run='')),
}
bad_shapes = {
    'non-string meta key': (lambda: mk(meta={1: 'a'}), 'meta is not JSON-serializable'),
    'nan in meta': (lambda: mk(meta=dict(x=float('nan'))), 'meta is not JSON-serializable'),
    'set in an output': (lambda: mk(output=[mk_displayobj({'application/json': {1, 2}})]), 'output is not JSON-serializable'),
    "iopub's transient key": (lambda: mk(output=[dict(output_type='display_data', data={}, metadata={}, transient={})]), "bad output entry 0: display_data has unknown keys ['transient']"),
    'execution_count -1': (lambda: mk(execution_count=-1), 'execution_count must be a non-negative integer'),
    'execution_count True': (lambda: mk(execution_count=True), 'execution_count must be a non-negative integer'),
    'note keeping its old reply': (lambda: mk(msg_type=snote, output=prompt_output('old reply')), 'a note message must not carry output'),
    'two attachments, one name': (lambda: mk(attachments=[Attachment(b'1', 'image/png', 'a.png'), Attachment(b'2', 'image/png', 'a.png')]), "two attachments named 'a.png'"),
    'note marked as a prompt': (lambda: mk(msg_type=snote, meta=dict(solveit_ai=True)), 'would read back as a prompt'),
    'prompt meta holding the marker': (lambda: mk(msg_type=sprompt, meta=dict(solveit_ai=False)), "must not hold 'solveit_ai'"),
    'bad output entry': (lambda: mk(output=[dict(no_type=1)]), 'bad output entry'),
    'meta not a dict': (lambda: mk(meta=[]), 'meta must be a dict'),
    'surrogate pair as two characters': (lambda: mk(content='\ud83d\ude00'), 'surrogate pair'),
    'note with an execution_count': (lambda: mk(msg_type=snote, execution_count=3), 'must not carry an execution_count'),
    'content not a string': (lambda: mk(content=3), 'content must be a str'),
    'output a string on code': (lambda: mk(output='text'), 'output must be a list'),
}

@pytest.mark.parametrize('name', list(good_shapes))
def test_shape_validates_writes_and_reads_back(name):
    d = Dialog('s', [good_shapes[name]()])
    assert check_agreement(d) is None

@pytest.mark.parametrize('name', list(bad_shapes))
def test_shape_refused_by_both_with_one_message(name):
    f,msg = bad_shapes[name]
    d = Dialog('s', [f()])
    err = check_agreement(d)
    assert err is not None and msg in err and err.startswith("message 0 (id 'm0'): ")
    with pytest.raises(ValueError, match="message 'm0'"): d.messages[0].validate()

def test_bad_msg_type_refused_when_set():
    "A type outside `smsg_types` never gets as far as `validate`: building or assigning it is refused at once, naming the four"
    for bad in (['code'], 'markdown', None):
        with pytest.raises(ValueError, match='is not one of code, note, prompt, raw'): mk(msg_type=bad)
    m = mk()
    with pytest.raises(ValueError, match="message 'm0': msg_type 'md'"): m.msg_type = 'md'
    assert m.msg_type == 'code'
    with pytest.raises(ValueError, match='code, note, prompt, raw'): Dialog('d').mk_message('x', msg_type='markdown')

def as_given(name, ms, meta=None):
    "A dialog holding `ms` as they are, duplicate ids included: core refuses those on insert, so only a direct edit of the list makes one"
    d = Dialog(name, meta=meta)
    d.messages.items.extend(ms)
    return d

def test_duplicate_ids_refused_before_the_disk(tmp_path):
    d = as_given('dup', [Message('a', id='x'), Message('b', id='x')])
    assert 'duplicate message id' in check_agreement(d)
    with pytest.raises(ValueError, match="message 1 \\(id 'x'\\): duplicate message id 'x'"): d.save(tmp_path/'dup.ipynb')
    assert list(tmp_path.iterdir()) == []

def test_lone_surrogates_keep_their_escape():
    txt = '{"cells": [{"cell_type": "raw", "id": "r", "metadata": {"k": "\\udcff"}, "source": ["a\\ud800"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    d = reads_ipynb(txt)
    assert d.messages[0].content=='a\ud800' and d.messages[0].meta=={'k': '\udcff'}
    out = write_ipynb(d)
    assert '"a\\ud800"' in out and '"\\udcff"' in out and reads_ipynb(out).messages[0].content=='a\ud800'

def _deepest(tmpl):
    "The deepest nesting `n` for which `reads_ipynb(tmpl(n))` reads"
    n = 5
    while True:  # find how deep the reader goes on this interpreter
        try: reads_ipynb(tmpl(n*2))
        except DialogFormatError: break
        n *= 2
    lo,hi = n,n*2
    while hi-lo>1:
        mid = (lo+hi)//2
        try: reads_ipynb(tmpl(mid)); lo = mid
        except DialogFormatError: hi = mid
    return lo

def _nb_meta_nest(n): return '{"cells": [], "metadata": {"x": ' + '['*n + ']'*n + '}, "nbformat": 4, "nbformat_minor": 5}'
def _cell_meta_nest(n): return '{"cells": [{"cell_type": "raw", "id": "r", "metadata": {"x": ' + '['*n + ']'*n + '}, "source": ""}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'

@pytest.mark.parametrize('tmpl', [_nb_meta_nest, _cell_meta_nest], ids=['notebook-meta', 'cell-meta'])
def test_whatever_depth_reads_writes(tmpl):
    "The deepest JSON `reads_ipynb` accepts is written, `validate` never raises `RecursionError`, and one level more is refused by both: what is written reads back"
    lo = _deepest(tmpl)
    d = reads_ipynb(tmpl(lo))
    assert d.validate() is d
    assert all(m.validate() is m for m in d.messages)
    txt = write_ipynb(d)
    assert write_ipynb(reads_ipynb(txt))==txt and txt.count('[')>=lo  # reads back, all of it (compared as text: `==` on it would recurse)
    meta = d.messages[0].meta if d.messages else d.meta
    meta['x'] = [meta['x']]  # one level more than the reader reads: both refuse, with the same message
    with pytest.raises(ValueError) as v: d.validate()
    with pytest.raises(ValueError) as w: write_ipynb(d)
    assert str(v.value)==str(w.value) and 'too deeply' in str(v.value)

def test_cycles_refused_not_hung():
    "A value that holds itself is a `ValueError` from `validate` and the writer alike (it used to loop until memory ran out)"
    d = Dialog('cyc'); m = d.mk_message('x')
    m.meta['me'] = m.meta
    with pytest.raises(ValueError, match='reference cycle') as v: d.validate()
    with pytest.raises(ValueError) as w: write_ipynb(d)
    assert str(v.value)==str(w.value)
    m.meta = {}; m.output = [mk_displayobj({'application/json': (j := [])})]; j.append(j)
    with pytest.raises(ValueError, match='reference cycle'): m.validate()
    d2 = Dialog('cyc2', meta={'a': (c := {})}); c['c'] = c
    with pytest.raises(ValueError, match='reference cycle'): d2.validate()

# ---- the property ----

texts = st.text(alphabet=st.characters(codec='utf-8', exclude_categories=['Cs']), max_size=20)
lone = st.sampled_from(['\ud800', '\udcff', '\udfff']).map(lambda s: 'a'+s+'b')
strs = texts | lone | texts.map(Fancy)
keys = texts.filter(lambda k: k not in ('name', 'tags', 'jupyter', 'collapsed', 'scrolled', 'execution', 'format', 'solveit_ai'))
scalars = st.none() | st.booleans() | st.integers() | st.floats() | strs
json_vals = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3), max_leaves=8)
bad_vals = st.sampled_from([{1, 2}, object(), {1: 'a'}, float('inf')])
good_metas = st.dictionaries(keys, json_vals, max_size=3)
metas = st.one_of(good_metas, good_metas, good_metas, st.dictionaries(keys, bad_vals, min_size=1, max_size=1),
                  st.sampled_from([{'solveit_ai': True}, {'collapsed': 1}, {'tags': 'x'}]))
good_outs = st.one_of(
    st.builds(lambda n,t: dict(output_type='stream', name=n, text=t), st.sampled_from(['stdout', 'stderr']), strs),
    st.builds(lambda t,m: dict(output_type='display_data', metadata=m, data={'text/plain': t, 'application/json': {'v': t}}), strs, metas),
    st.builds(lambda t,n: dict(output_type='execute_result', execution_count=n, metadata={}, data={'text/markdown': t}), strs, st.none() | st.integers(-2, 9)),
    st.builds(lambda t: mk_displayobj({'application/json': deep(t)}), st.integers(1, 600)))
bad_outs = st.sampled_from([dict(no_type=1), dict(output_type='display_data', data={}, metadata={}, transient={}), 'text', 3])
outputs = st.one_of(st.lists(good_outs, max_size=3), st.lists(good_outs, max_size=3), st.lists(good_outs | bad_outs, max_size=3), st.just(''))
def att(data, mime, name):
    a = Attachment(data, mime, 'x')
    a.id = name  # '' too, which the constructor would replace by a random name
    return a
atts = st.lists(st.builds(att, st.binary(max_size=8), st.sampled_from(['image/png', 'text/plain']), st.sampled_from(['a.png', 'b.txt', ''])), max_size=2)
counts = st.none() | st.integers(-1, 9) | st.just(True)
msgs = st.one_of(
    st.builds(lambda c,o,m,a,n: Message(c, output=o, meta=m, attachments=a, execution_count=n, id='_'), strs, outputs, metas, atts, counts),
    st.builds(lambda c,r,m,a: Message(c, msg_type=sprompt, output=r, meta=m, attachments=a, id='_'), strs, strs | outputs, metas, atts),
    st.builds(lambda c,m,a,t,o: Message(c, msg_type=t, meta=m, attachments=a, output=o, id='_'), strs, metas, atts, st.sampled_from([snote, sraw]), st.just('') | outputs))

@pytest.mark.slow  # ~5 s: a hypothesis sweep
@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much], deadline=None)
@given(st.lists(msgs, max_size=5), metas, st.booleans())
def test_validate_passes_iff_write_succeeds(ms, meta, dup):
    for i,m in enumerate(ms): m.id = f'm{i}'
    if dup and len(ms)>1: ms[-1].id = ms[0].id
    err = check_agreement(as_given('p', ms, meta))
    outcomes[err is None] += 1

outcomes = {True: 0, False: 0}
def test_the_property_saw_both_outcomes():
    "Runs after the property (pytest keeps file order): it must have exercised both writing and refusing"
    if not sum(outcomes.values()): pytest.skip('run together with test_validate_passes_iff_write_succeeds')
    assert outcomes[True] > 10 and outcomes[False] > 10, outcomes

# ---- the layout, against json.dumps ----

from dialog.nbjson import _enc, _put_lines, _esc_sur

def _lines(s, pad):
    out = []
    _put_lines(s, pad, out)
    return ''.join(out)

def test_layout_is_json_dumps():
    nested = {'b': [1, 2.5, None, True, {'x': 'é'}], 'a': {}, 'c': [], 'big': 10**30, 'neg': -0.0}
    assert _enc(nested, '')==json.dumps(nested, indent=1, sort_keys=True, ensure_ascii=False)
    assert _enc(nested, '  ')==json.dumps(nested, indent=1, sort_keys=True, ensure_ascii=False).replace('\n', '\n  ')
    assert _lines('a\nb\n', '')=='[\n "a\\n",\n "b\\n"\n]' and _lines('', '')=='[]'

def test_layout_past_the_recursion_threshold():
    for n in (150, 900):
        d = deep(n)
        assert json.loads(_enc(d, ''))==d
    mixed = {'k': [{'a': deep(300), 'b': 'x'}, 1.5]}
    assert _enc(mixed, '')==json.dumps(mixed, indent=1, sort_keys=True, ensure_ascii=False)

def test_layout_refuses_what_json_cannot_hold():
    assert _esc_sur(_enc('x\ud800', ''))=='"x\\ud800"'
    for bad in ({1: 'a'}, float('nan'), float('inf'), {'s': {1, 2}}, [object()]):
        with pytest.raises((TypeError, ValueError)): _enc(bad, '')

@pytest.mark.parametrize('home,msg', [({'gone': 1}, 'must map cell ids to attachments'), ({'m0': {'a.png': {'image/png': 'YWI='}}}, "holds attachments for code message 'm0'")])
def test_dialog_meta_attachments_that_would_not_read_back(home, msg):
    d = Dialog('h', [mk()], {'attachments': home})
    err = check_agreement(d)
    assert err is not None and msg in err

def test_cycle_refused_quickly_under_a_raised_recursion_limit():
    "With `sys.setrecursionlimit` raised, a cycle is still refused within a bounded depth (not after exhausting memory)"
    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)
    try:
        m = Message('x'); m.meta['me'] = m.meta
        with pytest.raises(ValueError, match='reference cycle'): m.validate()
    finally: sys.setrecursionlimit(old)

from hypothesis import given, strategies as st
from dialog.nbjson import json_copy
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda kids: st.lists(kids) | st.dictionaries(st.text(), kids), max_leaves=30)

@given(_json)
def test_json_copy_is_deepcopy(v):
    "`json_copy` gives what `copy.deepcopy` gives on JSON values: equal, and no container shared with the original"
    import copy
    c = json_copy(v)
    assert c == copy.deepcopy(v) and type(c) is type(v)
    todo = [(v, c)]
    while todo:
        a,b = todo.pop()
        if isinstance(a, (dict, list)):
            assert a is not b
            todo += zip(a.values(), b.values()) if isinstance(a, dict) else zip(a, b)

def test_json_copy_any_depth_and_cycles():
    "Deeper than Python's recursion limit, and a container holding itself, copy without recursion; sharing is kept"
    deep = leaf = []
    for _ in range(50_000): leaf.append([]); leaf = leaf[0]
    c,n = json_copy(deep),0
    while c: c,n = c[0],n+1
    assert n == 50_000
    shared = {'k': 1}; loop = [shared, shared]; loop.append(loop)
    c = json_copy(loop)
    assert c[0] is c[1] is not shared and c[2] is c and c[0] == shared

"The `fast` extra writes a file byte for byte as the writer does, and hands the writer every value it would spell otherwise"
import json
import pytest
from hypothesis import given, strategies as st, settings, HealthCheck
import dialog.nbjson as nbjson
from dialog.core import *
from dialog.ipynb import *
from shared_paths import corpus, needs_corpus

def both(dlg):
    "`write_ipynb(dlg)` through the fast extra and through the writer alone: each its text, or its error as `(type, message)`"
    res = []
    for fast in (True, False):
        nbjson.use_fast = fast
        try: res.append(write_ipynb(dlg))
        except Exception as e: res.append((type(e), str(e)))
        finally: nbjson.use_fast = True
    return res

def fast_text(dlg):
    "The text `nb_fast` gives for `dlg` (None when it hands the file to the writer)"
    cells = [nbjson.chk_cell(m.to_cell(), join=False) for m in dlg.messages]
    return nbjson.nb_fast(cells, dlg.meta)

def test_the_dev_environment_has_the_extra():
    "The tests below compare two writers only when the fast one is there: the dev extra installs orjson and msgspec"
    assert nbjson.fast_libs() is not None

def plain_dialog():
    return Dialog('d', [Message('# Hi\nthere', msg_type='note'),
                        Message('print(1)', output=[dict(output_type='stream', name='stdout', text='1\n2\n')], execution_count=1),
                        Message('Why?', msg_type='prompt', output='Because.\n\nIt is.'),
                        Message('x', output=[dict(output_type='execute_result', execution_count=2, metadata={'w': 0.5},
                                                  data={'text/plain': 'a\nb', 'application/json': {'v': [1, 2.5, None]}, 'image/png': 'aGk='})])],
                  meta={'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}})

def test_the_fast_path_writes_plain_dialogs():
    "A dialog of plain values goes through the extra (it is not handed back), and its text is the writer's"
    d = plain_dialog()
    fast = fast_text(d)
    assert fast is not None
    nbjson.use_fast = False
    try: assert fast == write_ipynb(d)
    finally: nbjson.use_fast = True

hazards = {
    'a float below 1e-4': dict(meta={'x': 1e-05}),
    'a negative tiny float': dict(meta={'x': [-3.2e-9]}),
    'NaN': dict(meta={'x': float('nan')}),
    'infinity': dict(meta={'x': float('inf')}),
    'an integer past 64 bits': dict(meta={'x': 2**70}),
    'a lone surrogate in the text': dict(content='a\udcffb'),
    'a surrogate pair as two characters': dict(content='\ud83d\ude00'),
    'a tuple': dict(meta={'x': (1, 2)}),
    'a str subclass': dict(meta={'x': type('S', (str,), {})('v')}),
    'a key that is not a str': dict(meta={1: 'v'}),
    'a set': dict(meta={'x': {1}}),
    'nesting past orjson\'s limit': dict(meta={'x': json.loads('['*300+']'*300)}),
}

@pytest.mark.parametrize('name', list(hazards))
def test_what_orjson_spells_otherwise_goes_to_the_writer(name):
    "Each value orjson writes otherwise, or refuses, leaves the file to the writer: the same text, or the same error"
    kw = dict(content='x', meta={}) | hazards[name]
    d = Dialog('d', [Message(kw['content'], meta=kw['meta'], msg_type='note')])
    fast,slow = both(d)
    assert fast == slow
    assert fast_text_or_none(d) is None

def fast_text_or_none(d):
    try: return fast_text(d)
    except ValueError: return None  # the writer's own checks refuse it first

def test_a_hazard_in_notebook_metadata_goes_to_the_writer():
    d = plain_dialog()
    d.meta['tiny'] = 1e-7
    assert fast_text(d) is None
    fast,slow = both(d)
    assert fast == slow and '1e-07' in fast

def test_without_the_extra_nothing_changes(monkeypatch):
    "Without orjson or msgspec, `nb_fast` gives None and the writer writes as it always did"
    monkeypatch.setattr(nbjson, '_fast', False)
    d = plain_dialog()
    assert fast_text(d) is None
    assert write_ipynb(d) == both(d)[1]

texts = st.text(max_size=30)  # lone surrogates included: the writer escapes them
floats = st.floats() | st.sampled_from([1e-05, 9.999999999999999e-05, 1e-4, 1e16, -0.0, 5e-324])
ints = st.integers() | st.sampled_from([2**63, 2**64, -2**63-1, 2**70])
json_vals = st.recursive(st.none() | st.booleans() | ints | floats | texts,
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(texts, c, max_size=3), max_leaves=8)
metas = st.dictionaries(st.text(alphabet='abcxyz', max_size=5), json_vals, max_size=3)
outputs = st.lists(st.one_of(
    st.builds(lambda n,t: dict(output_type='stream', name=n, text=t), st.sampled_from(['stdout', 'stderr']), texts),
    st.builds(lambda t,m,j: dict(output_type='display_data', metadata=m, data={'text/plain': t, 'text/html': [t, t], 'application/json': j}), texts, metas, json_vals),
    st.builds(lambda e,tb: dict(output_type='error', ename='E', evalue=e, traceback=tb), texts, st.lists(texts, max_size=3))), max_size=3)
msgs = st.one_of(
    st.builds(lambda c,o,m: Message(c, output=o, meta=m, id='_'), texts, outputs, metas),
    st.builds(lambda c,r,m: Message(c, msg_type='prompt', output=r, meta=m, id='_'), texts, texts, metas),
    st.builds(lambda c,m,a: Message(c, msg_type='note', meta=m, attachments=a, id='_'), texts, metas,
              st.lists(st.builds(Attachment, st.binary(max_size=8), st.just('image/png'), st.sampled_from(['a.png', 'b.png'])), max_size=1)))

@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(st.lists(msgs, max_size=5), metas)
def test_the_two_writers_agree(ms, meta):
    "On any dialog, the fast extra gives the writer's text byte for byte, or the writer's own error"
    for i,m in enumerate(ms): m.id = f'm{i}'
    fast,slow = both(Dialog('p', ms, meta))
    assert fast == slow

plain_texts = st.text(alphabet=st.characters(codec='utf-8'), max_size=30)
plain_floats = st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x==0 or abs(x)>=1e-4)
plain_vals = st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63-1) | plain_floats | plain_texts,
                          lambda c: st.lists(c, max_size=3) | st.dictionaries(plain_texts, c, max_size=3), max_leaves=8)
plain_metas = st.dictionaries(st.text(alphabet='abcxyz', max_size=5), plain_vals, max_size=3)
plain_msgs = st.one_of(
    st.builds(lambda c,t,m,j: Message(c, output=[dict(output_type='stream', name='stdout', text=t),
                                                 dict(output_type='display_data', metadata=m, data={'text/plain': t, 'application/json': j})], id='_'),
              plain_texts, plain_texts, plain_metas, plain_vals),
    st.builds(lambda c,r,m: Message(c, msg_type='prompt', output=r, meta=m, id='_'), plain_texts, plain_texts, plain_metas),
    st.builds(lambda c,m: Message(c, msg_type='raw', meta=m, id='_'), plain_texts, plain_metas))

@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(st.lists(plain_msgs, max_size=5), plain_metas)
def test_plain_dialogs_go_through_the_extra_and_agree(ms, meta):
    "Plain values (no float below 1e-4, integers of 64 bits, no lone surrogates) go through the extra, byte for byte the writer's text"
    for i,m in enumerate(ms): m.id = f'm{i}'
    d = Dialog('p', ms, meta)
    fast,slow = both(d)
    assert fast_text(d) is not None and fast == slow

corpus_files = sorted(corpus.rglob('*.ipynb'))

@needs_corpus()
def test_the_corpus_writes_the_same_through_both():
    "Every corpus notebook we read writes the same text through both writers, and most go through the extra"
    went = n = 0
    for f in corpus_files:
        try: d = read_ipynb(f)
        except (DialogFormatError, ValueError): continue
        fast,slow = both(d)
        assert fast == slow, f.name
        n += 1
        went += fast_text(d) is not None
    assert n > 20 and went > n//2

def test_texts_given_as_lists_of_other_values_go_to_the_writer():
    "A text given as a list holding a non-str is the writer's to refuse (the same error), not the extra's to crash on"
    for data in ({'text/plain': ['a', 1]}, {'image/png': ['aGk=', None]}):
        d = Dialog('d', [Message('x', output=[dict(output_type='display_data', metadata={}, data=data)], id='c')])
        fast,slow = both(d)
        assert fast == slow

def test_a_value_holding_itself_goes_to_the_writer_without_hanging():
    "Metadata that holds itself is the writer's to refuse (its error), not a walk that never ends"
    meta = {}
    meta['me'] = [meta]
    d = Dialog('d', [Message('x', meta=meta, msg_type='note', id='n')])
    fast,slow = both(d)
    assert fast == slow and fast[0] is ValueError

S = type('S', (str,), {})
L = type('L', (list,), {})
typed_hazards = {  # values `chk_cell` takes in keys it types, which the extra's walk (metadata alone) never sees
    'a str subclass as a stream name': dict(output_type='stream', name=S('stdout'), text='1\n'),
    'a str subclass in a traceback': dict(output_type='error', ename='E', evalue='v', traceback=[S('line')]),
    'a list subclass as a traceback': dict(output_type='error', ename='E', evalue='v', traceback=L(['line'])),
    'a str subclass as an error name': dict(output_type='error', ename=S('E'), evalue=S('v'), traceback=[]),
    'a tiny float in an output\'s metadata': dict(output_type='display_data', metadata={'w': 1e-9}, data={'text/plain': 'x'}),
    'a tiny float in JSON data': dict(output_type='display_data', metadata={}, data={'application/json': {'v': [2e-7]}}),
}

@pytest.mark.parametrize('name', list(typed_hazards))
def test_what_the_checks_type_but_orjson_spells_otherwise_goes_to_the_writer(name):
    "An output whose typed keys hold subclasses, or whose metadata or JSON data holds a float orjson spells otherwise, leaves the file to the writer: the writer's text"
    d = Dialog('d', [Message('x', output=[typed_hazards[name]], id='c', execution_count=1)])
    fast,slow = both(d)
    assert fast == slow and isinstance(slow, str)
    assert fast_text(d) is None

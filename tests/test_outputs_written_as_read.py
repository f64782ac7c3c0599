"A message read from a file keeps its outputs as the file holds them until something reads them: written back untouched they give the bytes the joined outputs give, and reading or changing them works as on any message."
import copy, json, pickle
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog import nbjson
from dialog.nbjson import FiledOutputs, chk_output, _held, _held_as_is, _out_twins, _no_twins
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb

_line = st.text(st.characters(codec='utf-8', exclude_categories=['Cs']), max_size=8)
_text = st.one_of(st.lists(_line, max_size=4), _line)  # a text as a file may hold it: lines, any split, or one string
_num = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False, width=32))
_jsonv = st.recursive(st.one_of(st.none(), st.booleans(), _num, _line), lambda c: st.lists(c, max_size=3) | st.dictionaries(_line, c, max_size=3), max_leaves=6)
_bundle = st.dictionaries(st.sampled_from(['text/plain', 'text/markdown', 'image/png', 'application/json', 'image/svg+xml']), _text, max_size=3)
_meta = st.dictionaries(st.sampled_from(['isolated', 'width', 'x']), _jsonv, max_size=2)
_output = st.one_of(
    st.builds(lambda n,t: dict(output_type='stream', name=n, text=t), st.sampled_from(['stdout', 'stderr']), _text),
    st.builds(lambda d,m: dict(output_type='display_data', data=d, metadata=m), _bundle, _meta),
    st.builds(lambda d,m,n: dict(output_type='execute_result', data=d, metadata=m, execution_count=n), _bundle, _meta, st.none() | st.integers(0, 9)),
    st.builds(lambda e,v,tb: dict(output_type='error', ename=e, evalue=v, traceback=tb), _line, _line, st.lists(_line, max_size=3)))

@given(_output)
def test_held_as_is_is_what_the_fast_writer_would_make_of_it(o):
    "The writer takes an output as it is exactly when laying it out would give it back unchanged (`_held_as_is` against `_held`)"
    chk_output(o, 0, False)
    tw = _out_twins.get(o['output_type'], _no_twins)
    h = _held(o, tw)
    assert _held_as_is(o, tw) == (h is not None and json.dumps(h, sort_keys=True)==json.dumps(o, sort_keys=True) and h==o)

def _nb(outs):
    cells = [dict(cell_type='code', id=f'c{i}', metadata={}, source=f'x = {i}', outputs=o, execution_count=None) for i,o in enumerate(outs)]
    cells.append(dict(cell_type='code', id='p', metadata={'solveit_ai': True}, source='%%prompt\nhi', execution_count=None,
                      outputs=[dict(output_type='display_data', metadata={'is_ai_res': True}, data={'text/markdown': ['a\n', 'b']})]))
    return json.dumps(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=5), indent=1, ensure_ascii=False)

@pytest.mark.parametrize('fast', [True, False])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(outs=st.lists(st.lists(_output, max_size=3), min_size=1, max_size=3))
def test_untouched_outputs_write_as_read_ones_do(fast, outs, monkeypatch):
    "Written back untouched, a dialog gives the bytes it gives once every message's outputs were read (joined): with the `fast` extra and without"
    monkeypatch.setattr(nbjson, 'use_fast', fast)
    txt = _nb(outs)
    lazy,eager = reads_ipynb(txt),reads_ipynb(txt)
    for m in eager.messages: m.output  # reading them takes them as the message's own
    assert all(m._filed is None for m in eager.messages) and lazy.messages[-1]._filed is not None
    assert write_ipynb(lazy) == write_ipynb(eager)
    assert [m.output for m in lazy.messages] == [m.output for m in eager.messages]

_file = _nb([[dict(output_type='stream', name='stdout', text=['one\n', 'two\n']),
              dict(output_type='display_data', metadata={}, data={'text/plain': ['a\n', 'b'], 'image/png': 'iVBORw==\n'})]])

def test_reading_the_outputs_joins_their_texts():
    "`output` gives the outputs with their texts joined, as every message has them"
    m = reads_ipynb(_file).messages[0]
    assert m.output == [dict(output_type='stream', name='stdout', text='one\ntwo\n'),
                        dict(output_type='display_data', metadata={}, data={'text/plain': 'a\nb', 'image/png': 'iVBORw==\n'})]
    assert m._filed is None

def test_changes_to_outputs_read_from_a_file_are_written():
    "A change made in place to the outputs read, or outputs given anew, is what the file gets"
    d = reads_ipynb(_file)
    d.messages[0].output[0]['text'] = 'changed\n'
    assert json.loads(write_ipynb(d))['cells'][0]['outputs'][0]['text'] == ['changed\n']
    d = reads_ipynb(_file)
    d.messages[0].output = []
    assert json.loads(write_ipynb(d))['cells'][0]['outputs'] == []

def test_a_copy_of_a_read_message_is_its_own():
    "A copy (`copy.copy`, pickle) of a message whose outputs weren't read yet: changing one's outputs leaves the other's file as it was"
    d = reads_ipynb(_file)
    m = d.messages[0]
    for c in (copy.copy(m), pickle.loads(pickle.dumps(m))):
        c.output[0]['text'] = 'mine\n'
        c.output[1]['data']['text/plain'] = 'mine too'
        assert m._filed is not None and write_ipynb(d) == write_ipynb(reads_ipynb(_file))

def test_add_output_keeps_the_outputs_read():
    "A kernel's output added to a message read from a file goes after the outputs it had"
    m = reads_ipynb(_file).messages[0]
    m.add_output({'msg_type': 'stream', 'content': {'name': 'stderr', 'text': 'late\n'}})
    assert [o.get('name') for o in m.output] == ['stdout', None, 'stderr'] and m.output[0]['text'] == 'one\ntwo\n'

def test_a_subclass_with_its_own_output_reads_them_joined():
    "A `msg_cls` whose `output` is its own gets the outputs joined when read, as before"
    class Own(Message):
        output = property(lambda self: self.__dict__.get('_o'), lambda self, v: self.__dict__.__setitem__('_o', v))
    class D(Dialog): msg_cls = Own
    d = reads_ipynb(_file, cls=D)
    assert d.messages[0]._filed is None and d.messages[0].output[0]['text'] == 'one\ntwo\n'
    assert write_ipynb(d) == write_ipynb(reads_ipynb(_file))

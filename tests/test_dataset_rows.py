"dialog.dataset's rows, built in one pass: each column what the message's own properties (and json) say, on any message and on the corpus"
import json
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog import nbjson
from dialog.nbjson import CellError
from dialog.ipynb import read_ipynb, DialogFormatError
from dialog.dataset import dlgs2table
from dialog.dataset import _flags, _js, _cells_of, _cell_json
from shared_paths import corpus, needs_corpus

pa = pytest.importorskip('pyarrow')

def _dumps(v): return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(',', ':'))  # the rows' JSON texts

def _props(m): return (m.has_error, m.exported, m.skipped, m.pinned)

def _rows_agree(d):
    "Each row of dialog `d` holds what its message's properties say"
    for m,r in zip(d.messages, dlgs2table([d]).to_pylist(), strict=True):
        assert (r['has_error'], r['exported'], r['skipped'], r['pinned']) == _props(m), m.id
        assert r['output'] == (m.ai_output if m.msg_type in ('code', 'prompt') else None), m.id
        assert json.loads(r['cell']) == m.to_cell() and r['cell'] == _dumps(m.to_cell()), m.id

@needs_corpus()
def test_corpus_rows_say_what_the_messages_say():
    "Over the corpus, the flags read once per message (and the cells' JSON) are what the properties (and json) say"
    n = 0
    for f in sorted(corpus.rglob('*.ipynb')):
        try: d = read_ipynb(f)
        except DialogFormatError: continue
        _rows_agree(d); n += 1
    assert n >= 20

_lines = st.sampled_from(['#| export', '# export', '#|exports x', '#| hide', '', ' ', 'x = 1', '# note', '  #| exporti', 'a # b'])
_outs = st.lists(st.sampled_from([dict(output_type='error', ename='E', evalue='v', traceback=[]),
                                  dict(output_type='display_data', metadata={}, data={'image/png': 'iVBO', 'text/plain': 'f'}),
                                  dict(output_type='stream', name='stdout', text='hi\n'), 'not a dict', {'data': 'x'}]), max_size=3)
_metas = st.fixed_dictionaries({}, optional=dict(skipped=st.sampled_from([True, False, 1, 0, '', 'y', None]), pinned=st.sampled_from([True, False, 1, None]),
                                                 nbdev=st.sampled_from([{'export': True}, {'export': False}, {'exporti': 'true'}, {'hide': True}, 'x', None])))

@settings(max_examples=300, deadline=None)
@given(st.lists(_lines, max_size=4).map('\n'.join), _outs, _metas)
def test_flags_in_one_pass_are_the_properties(src, outs, meta):
    "`has_error`, `exported`, `skipped`, `pinned` read at once are each property's value, whatever the content, outputs and metadata"
    m = Message(src, output=outs, meta=meta)
    assert _flags(m)[:4] == _props(m)

def test_flags_of_a_host_message_are_its_properties(pin_promoted):
    "A message whose class promotes a flag (or a subclass) is asked its properties"
    class Mine(Message):
        @property
        def skipped(self): return True
    for m in (Message('x', meta={'pinned': True}), Mine('x')):
        assert _flags(m)[:4] == _props(m)
    assert _flags(Mine('x'))[2] is True

_json_vals = st.recursive(st.none() | st.booleans() | st.integers() | st.integers(2**63, 2**70) | st.floats() | st.text(st.characters(exclude_categories=())),
                          lambda c: st.lists(c) | st.dictionaries(st.text(st.characters(exclude_categories=())), c), max_leaves=12)

@settings(max_examples=400, deadline=None)
@given(_json_vals, st.booleans())
def test_the_fast_extras_text_is_json_dumps(v, fast):
    "With the `fast` extra or without, `_js` writes `json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(',', ':'))`; as bytes (`raw`), its UTF-8"
    want = _dumps(v)
    nbjson.use_fast = fast
    try: got,raw = _js(v),_js(v, True)
    finally: nbjson.use_fast = True
    assert got == want and (raw.decode() if isinstance(raw, bytes) else raw) == want

def test_the_fast_extra_writes_plain_cells():
    "A cell without floats is written by the `fast` extra (its bytes), one with a float, a lone surrogate or a deep nesting by json"
    if nbjson.fast_libs() is None: pytest.skip('the fast extra is not installed')
    c = dict(cell_type='code', id='a', metadata={'tags': ['x']}, source='é\n"', outputs=[], execution_count=3)
    assert _js(c, True) == _dumps(c).encode()
    deep = []
    for _ in range(300): deep = [deep]
    for v in ({'x': 1e16}, {'x': '\ud800'}, deep): assert isinstance(_js(v, True), str) and _js(v) == _dumps(v)

_no_nan = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=8)
_texts = st.lists(st.none() | _no_nan.map(json.dumps) | st.text(max_size=8) | _no_nan.map(lambda v: json.dumps(v)+' 1'), max_size=6)

def _outcome(f, x):
    try: return ('ok', f(x))
    except ValueError as e: return ('error', str(e))

@settings(max_examples=300, deadline=None)
@given(_texts, st.booleans())
def test_cells_parsed_at_once_are_each_parsed(txts, fast):
    "A dialog's cells parsed in one loop are what `_cell_json` gives each (its error for the first bad one); a missing cell is left out"
    nbjson.use_fast = fast
    try: got = _outcome(_cells_of, txts)
    finally: nbjson.use_fast = True
    assert got == _outcome(lambda ts: [_cell_json(t) for t in ts if t is not None], txts)

from dialog.chat import tool_block
_reply_bits = st.sampled_from(['Plain *markdown*.', '', '\n', '<!--think_start-->\nhmm\n<!--think_end-->\n', '🧠\n', '⏳ working ⏳\n',
                               "<details class='token-usage-details'><summary>12 tokens</summary></details>\n",
                               tool_block('t1', 'f', {'x': 1}, 'ok'), tool_block('t2', 'g', {}, None)])
_others = st.lists(st.sampled_from([dict(output_type='stream', name='stdout', text='hi\n'),
                                    mk_displayobj({'text/markdown': 'second reply'}, {'is_ai_res': True})]), max_size=2)

def _prompt(reply, others, kind):
    "A prompt holding `reply` (None: no reply output) among `others`, as a plain message or a subclass's"
    outs = ([] if reply is None else prompt_output(reply)) + others
    class Mine(Message): pass
    return (Message if kind=='plain' else Mine)('a question', msg_type=sprompt, output=outs)

@settings(max_examples=300, deadline=None)
@given(st.none() | st.lists(_reply_bits, max_size=4).map(''.join), _others, st.sampled_from(['plain', 'subclass']))
def test_a_prompts_row_reads_its_reply_once_as_ai_output_reads_it(reply, others, kind):
    "A prompt's row, its reply read once: `ai_res` and `output` are what the properties of a message untouched by the table say"
    m,fresh = _prompt(reply, others, kind),_prompt(reply, others, kind)
    r, = dlgs2table([Dialog('d', [m])]).to_pylist()
    assert (r['ai_res'], r['output']) == (fresh.ai_res, fresh.ai_output)
    assert r['tokens'] == -(-(len(fresh.content)+len(fresh.ai_output))//4)

@settings(max_examples=300, deadline=None)
@given(st.lists(_lines, max_size=4).map('\n'.join), _outs, _metas, st.sampled_from([scode, sprompt, snote, sraw]))
def test_flags_read_from_the_cell_are_the_properties(src, outs, meta, mt):
    "Given the message's cell (`to_cell`, as a row has it), the flags and images read from it are what the message itself says"
    m = Message(src, output=outs if mt in (scode, sprompt) else '', meta=meta, msg_type=mt)
    try: c = m.to_cell()
    except CellError: return  # a cell the writer refuses: no row is made of it
    assert _flags(m, c) == _flags(m) and _flags(m, c)[:4] == _props(m)

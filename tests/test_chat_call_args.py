"A tool call's arguments read (`call_args`): `raw_arguments` kept exactly when the JSON text isn't how `json.dumps` writes its value"
import json
from hypothesis import given, settings, strategies as st
import dialog.chat as C
from dialog.chat import call_args

chars = st.sampled_from(['\x00', '\x1f', '\x7f', '"', '\\', '/', '\n', 'a', 'é', '\u2028', '😀', '\ud800'])
texts = st.text(max_size=6) | st.lists(chars, max_size=6).map(''.join)
leaves = (st.none() | st.booleans() | st.integers(-2**80, 2**80) | texts
          | st.floats() | st.sampled_from([1e16, 1e-7, 1.0, float('nan'), float('-inf')]))
json_vals = st.recursive(leaves, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(texts, kids, max_size=4),
                         max_leaves=20)
objs = st.dictionaries(texts, json_vals, max_size=4)

@given(objs)
@settings(max_examples=400, deadline=None)
def test_parsed_arguments_written_as_json_dumps_writes_them(o):
    "The encoder `call_args` compares with (made once) writes a parsed object as `json.dumps(o, ensure_ascii=False)`"
    assert C._udump_parsed(o)==json.dumps(o, ensure_ascii=False)

@given(objs, st.sampled_from([dict(), dict(separators=(',', ':')), dict(ensure_ascii=True), dict(indent=1)]))
@settings(max_examples=300, deadline=None)
def test_raw_arguments_kept_when_the_text_is_spelled_otherwise(o, style):
    raw = json.dumps(o, **style)
    args,extra = call_args(raw)
    assert json.dumps(args)==json.dumps(json.loads(raw))
    assert extra==({} if raw==json.dumps(args, ensure_ascii=False) else {'raw_arguments': raw})

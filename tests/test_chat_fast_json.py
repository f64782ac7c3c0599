"The `fast` extra writes chat's JSON (digests of what a provider is sent, tool blocks, copies of kept messages): the same bytes and values `json` gives, on any value"
import json, math
import pytest
from hypothesis import given, settings, strategies as st
import dialog.chat as C
import dialog.nbjson as nbjson
from dialog.chat import chat2dlg, dlg2chat

pytestmark = pytest.mark.skipif(nbjson.fast_libs() is None, reason='the fast extra (msgspec, orjson) is not installed')

class S(str): pass

# text that is hard to escape alike: controls, DEL, quotes, backslashes, past ASCII, astral, line separators, lone surrogates
chars = st.sampled_from(['\x00', '\x08', '\x0c', '\x1f', '\x7f', '"', '\\', '/', '\n', '\t', 'a', 'é', '\u2028', '\uffff', '😀', '\ud800', '\udfff'])
texts = st.text(max_size=8) | st.lists(chars, max_size=8).map(''.join)
leaves = (st.none() | st.booleans() | st.integers(min_value=-2**80, max_value=2**80) | texts
          | st.floats() | st.sampled_from([1e16, 1e-7, 1.0, float('nan'), float('inf')]))
keys = texts | st.integers(0, 3) | st.sampled_from([S('k'), True])
json_vals = st.recursive(leaves, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(keys, kids, max_size=4)
                         | st.lists(kids, max_size=3).map(tuple), max_leaves=25)

def _json_or_none(f, o):
    try: return f(o)
    except (TypeError, ValueError): return None

@given(json_vals)
@settings(max_examples=500, deadline=None)
def test_digest_json_is_jsons_sorted_compact_json(o):
    "`_jdump` (what every reasoning stamp digests) is `json.dumps(o, sort_keys=True, separators=(',', ':'))`'s bytes"
    want = _json_or_none(lambda x: json.dumps(x, sort_keys=True, separators=(',', ':')).encode(), o)
    if (b := C._fast_jdump(o)) is not None: assert b == want
    if want is not None: assert C._jdump(o) == want

@given(json_vals)
@settings(max_examples=500, deadline=None)
def test_block_json_is_json_dumps_with_indent(o):
    "A tool block's JSON written by the extra is `json.dumps(o, indent=2, ensure_ascii=False)`"
    if (s := C._fast_indent(o)) is not None: assert s == json.dumps(o, indent=2, ensure_ascii=False)

def _same(a, b): return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) and type(a) is type(b)

@given(st.lists(json_vals, max_size=4))
@settings(max_examples=500, deadline=None)
def test_copies_are_a_json_round_trip(objs):
    "`_json_copies` gives what `json.loads(json.dumps(objs))` gives, and says whether the text holds a lone surrogate"
    try: js = json.dumps(objs, ensure_ascii=False)
    except (TypeError, ValueError): return
    got,sur = C._json_copies(objs)
    assert _same(got, json.loads(js)) or got == json.loads(js)
    assert sur == any(0xd800 <= ord(c) <= 0xdfff for c in js)

def test_the_extra_takes_plain_json_and_leaves_the_rest():
    "JSON's own types without floats go through the extra; a float, a tuple, a subclass, a key that isn't a str, a lone surrogate don't"
    o = {'b': ['x', 1, None, True], 'a': {'é😀': '\x7f\u2028'}}
    assert C._fast_jdump(o) == json.dumps(o, sort_keys=True, separators=(',', ':')).encode()
    assert C._fast_indent(o) == json.dumps(o, indent=2, ensure_ascii=False)
    for x in [{'a': 1.5}, {'a': float('nan')}, {'a': (1,)}, {S('a'): 1}, {'a': S('b')}, {1: 'a'}, {'a': '\ud800'}]:
        assert C._fast_jdump(x) is None and C._fast_indent(x) is None

def test_without_the_extra_the_same(monkeypatch):
    "With `use_fast` off, a history reads to the same dialog and its reasoning goes back the same"
    h = [dict(role='user', content='hi é'), dict(role='assistant', content=[
        dict(type='thinking', thinking='hmm', signature='sig'), dict(type='tool_use', id='t1', name='f', input={'a': [1, 'x']})]),
         dict(role='user', content=[dict(type='tool_result', tool_use_id='t1', content='out\n' * 3)]),
         dict(role='assistant', content='done')]
    fast = chat2dlg(h, 'anthropic')
    monkeypatch.setattr(nbjson, 'use_fast', False)
    slow = chat2dlg(h, 'anthropic')
    assert [(m.content, m.ai_res, m.meta) for m in fast.messages] == [(m.content, m.ai_res, m.meta) for m in slow.messages]
    assert dlg2chat(fast, 'anthropic') == dlg2chat(slow, 'anthropic') == h

@given(st.lists(json_vals, max_size=4))
@settings(max_examples=500, deadline=None)
def test_a_list_found_free_of_surrogates_is_what_unsur_all_leaves(o):
    "A finished list the extra finds holds no surrogate is the one `_unsur_all` would make: it is sent without the walk"
    import copy
    if C._sur_free(o):
        want = copy.deepcopy(o)
        assert repr(C._unsur_all(copy.deepcopy(o))) == repr(want)

def test_a_surrogate_anywhere_is_found():
    "A lone surrogate or a pair held as two characters, in a value or a key, at any depth, goes through `_unsur_all`"
    for o in [['\ud800'], [{'a': [{'b': 'x\udfff'}]}], [{'\ud83d\ude00': 1}], [{'a': ('\ud800',)}], [{1: 'a'}]]:
        assert not C._sur_free(o)
    assert C._sur_free([{'a': ['é😀', 1.5, None]}])

"With the `fast` extra, the reader parses through msgspec: the same value `json.loads` gives, or `json.loads` decides"
import json, math
import pytest
from hypothesis import given, strategies as st, settings, HealthCheck
import dialog.nbjson as nbjson
from dialog.nbjson import fast_loads, fast_loads_all
from dialog.ipynb import *

def same(a, b):
    "Equal, with floats compared by their spelling (so -0.0 isn't 0.0, 1.0 isn't 1, and NaN is NaN)"
    if type(a) is not type(b): return False
    if type(a) is float: return repr(a)==repr(b)
    if type(a) is list: return len(a)==len(b) and all(same(x, y) for x,y in zip(a, b))
    if type(a) is dict: return list(a)==list(b) and all(same(a[k], b[k]) for k in a)
    return a==b

def test_the_dev_environment_has_the_extra(): assert nbjson.fast_libs() is not None

floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e-05, 5e-324, 1.7976931348623157e308, -0.0, 1e16, 1e22])
ints = st.integers() | st.integers(min_value=2**63-2, max_value=2**70) | st.integers(min_value=-2**70, max_value=-2**63+2)
texts = st.text() | st.sampled_from(['\ud800', 'a\udcffb', '\ud83d\ude00', '\u2028', '\x00'])
scalars = st.none() | st.booleans() | ints | floats | texts
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(texts, c, max_size=4), max_leaves=20)

@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(values, st.booleans())
def test_where_the_extra_parses_it_gives_json_loads_value(v, ascii):
    txt = json.dumps(v, ensure_ascii=ascii)
    got = fast_loads(txt)
    if got is not None: assert same(got, json.loads(txt))

@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from('[]{}",:0123456789.eE+-truefalsnNaIiy \\u\n\t') | st.characters()))
def test_on_any_text_the_extra_parses_only_what_json_loads_parses_alike(txt):
    got = fast_loads(txt)
    if got is None: return
    assert same(got, json.loads(txt))  # json.loads takes every text the extra takes

@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(values, st.booleans(), st.booleans()), max_size=5), st.sampled_from(['', '[NaN]', '{"a": 1} x', '["\\ud800"]']))
def test_many_texts_at_once_give_each_ones_value(vs, bad):
    "`fast_loads_all` gives `json.loads`' value of each text (str or UTF-8 bytes), or None when the extra can't say for one"
    txts = [json.dumps(v, ensure_ascii=a) for v,a,_ in vs]
    txts = [t.encode('utf-8', 'surrogatepass') if b else t for t,(_,_,b) in zip(txts, vs)] + ([bad] if bad else [])
    got = fast_loads_all(txts)
    if got is None: assert bad or any(fast_loads(t) is None for t in txts)
    else:
        assert not bad and len(got)==len(txts)
        assert all(same(g, json.loads(t)) for g,t in zip(got, txts))

def test_the_extra_hands_back_what_it_refuses():
    for txt in ['[NaN]', '[Infinity]', '["\\ud800"]', '[1e400]', '[' + '9'*5000 + ']', '{"a": 1} x', '']:
        assert fast_loads(txt) is None

nb = '{"cells": [], "metadata": {"x": %s}, "nbformat": 4, "nbformat_minor": 5}'

@pytest.mark.parametrize('v', ['NaN', '-Infinity', '"\\ud800"', '123456789012345678901234567890', '1e-05', '-0.0'])
def test_a_notebook_reads_the_same_with_and_without_the_extra(v):
    got = []
    for fast in (True, False):
        nbjson.use_fast = fast
        try: got.append(reads_ipynb(nb % v).meta['x'])
        finally: nbjson.use_fast = True
    assert same(*got)

@pytest.mark.parametrize('txt', ['{"cells": [', '[1, 2]', '{"cells": [], "metadata": {}, "nbformat": 4} x', '{"a": NaN',
                                 '{"nbformat": 4, "cells": [], "metadata": {"x": ' + '9'*5000 + '}}'])
def test_bad_texts_give_the_same_error_with_and_without_the_extra(txt):
    errs = []
    for fast in (True, False):
        nbjson.use_fast = fast
        try:
            with pytest.raises(DialogFormatError) as e: reads_ipynb(txt)
            errs.append(str(e.value))
        finally: nbjson.use_fast = True
    assert errs[0]==errs[1]

def test_the_reader_parses_through_the_extra(monkeypatch):
    "`reads_ipynb` takes the extra's value when it gives one, and `json.loads` is not called"
    calls = []
    class Dec:
        @staticmethod
        def decode(txt): calls.append(txt); return json.loads(txt.replace('"fast?"', '"yes"'))
        class Decoder:  # the reader counts floats through a decoder of its own
            def __init__(self, float_hook): pass
            def decode(self, txt): return Dec.decode(txt)
    monkeypatch.setattr(nbjson, '_fast', (None, Dec))
    d = reads_ipynb(nb % '"fast?"')
    assert calls and d.meta['x']=='yes'
    monkeypatch.setattr(nbjson, 'use_fast', False)
    assert reads_ipynb(nb % '"fast?"').meta['x']=='fast?'

def _has_float(v):
    if type(v) is float: return True
    if type(v) is list: return any(_has_float(x) for x in v)
    if type(v) is dict: return any(_has_float(x) for x in v.values())
    return False

@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(values, st.booleans(), st.sampled_from([0, 1, 3, 1000]))
def test_the_plain_parse_gives_the_value_and_whether_it_holds_a_float(v, ascii, cap):
    "`fast_loads_plain` gives `fast_loads`' value (or None as it does) and whether the value holds no float, however many floats it counts"
    txt = json.dumps(v, ensure_ascii=ascii)
    old,nbjson.floats_hooked = nbjson.floats_hooked,cap
    try: got,res = fast_loads(txt),nbjson.fast_loads_plain(txt)
    finally: nbjson.floats_hooked = old
    if txt=='null': assert res == (None, True); return  # (`fast_loads`' None is JSON's null here)
    if got is None: assert res is None; return
    assert same(res[0], got) and same(res[0], json.loads(txt)) and res[1] == (not _has_float(got))

def test_the_plain_parse_refuses_what_the_extra_refuses():
    for txt in ['[NaN]', '[1e400]', '[-1e400]', '["\\ud800"]', '{"a": 1} x', '[0.5, "\\ud800"]', '[' + '0.5,'*1500 + '"\\ud800"]']:
        assert nbjson.fast_loads_plain(txt) is None and fast_loads(txt) is None
    assert nbjson.fast_loads_plain('[1, -0, 1000000000000000000, 1E5]') == ([1, 0, 10**18, 1e5], False)

def test_a_msgspec_without_float_hooks_reads_as_ever(monkeypatch):
    "A msgspec before 0.18 has no float hook: the plain parse gives the value, not known to be plain, and every file reads as before"
    import msgspec.json as mj
    class Old:
        decode = staticmethod(mj.decode)
        def Decoder(*a, **kw):
            if 'float_hook' in kw: raise TypeError("'float_hook' is an invalid keyword argument for Decoder()")
            return mj.Decoder(*a, **kw)
    monkeypatch.setattr(nbjson, '_fast', (nbjson.fast_libs()[0], Old))
    assert nbjson.fast_loads_plain('[1]') == ([1], False) and fast_loads('[1]') == [1]
    assert reads_ipynb(nb % '1').meta['x'] == 1

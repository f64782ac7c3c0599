"`chat2dlg(..., stamp=False)` leaves the kept records' digests to a reader's stamper, which the first `dlg2chat` that sends reasoning calls; `copy=False` keeps the parts of `msgs` the caller gives away without copying them. Either way the dialog is the one the default reading makes"
import copy, json, re, warnings
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.chat import *
from test_chat_reasoning import an_loop, an_histories, thinking_at

def wires(d): return [r for m in d for r in (m.meta.get('dialog') or {}).get('wire', [])]
def undigested(rs): return [{k:v for k,v in r.items() if k not in ('prefix', 'own')} for r in rs]

def test_unstamped_records_never_go_back_on_their_own():
    "Records read with `stamp=False` and no stamper named: the dialog is sent as it shows, without reasoning state"
    d = chat2dlg(an_loop(), stamp=False)
    assert wires(d) and not any('prefix' in r or 'own' in r for r in wires(d))
    assert not any(thinking_at(dlg2chat(d, 'anthropic')))

def test_a_stamper_runs_once_at_the_first_send_that_sends_reasoning():
    "The stamper the mark names runs at the first `dlg2chat` sending reasoning (not one with `reasoning=False`), once; the mark goes"
    calls = []
    def stamp(d, fmt):
        calls.append(d)
        for m,f in zip(d.messages, chat2dlg(an_loop()).messages): m.meta['dialog']['wire'] = f.meta['dialog']['wire']
    stampers['test-loop'] = stamp
    try:
        d = chat2dlg(an_loop(), stamp=False); d.meta['dialog'] = {'unstamped': 'test-loop'}
        assert not any(thinking_at(dlg2chat(d, 'anthropic', reasoning=False))) and not calls
        assert dlg2chat(d, 'anthropic')==dlg2chat(chat2dlg(an_loop()), 'anthropic') and calls==[d]
        dlg2chat(d, 'anthropic'); assert calls==[d] and 'unstamped' not in d.meta['dialog']
    finally: stampers.pop('test-loop')

def test_copy_false_keeps_the_callers_parts():
    "With `copy=False` a record holds the very parts of the message it was read from; by default it holds copies, which a change to `msgs` after reading doesn't reach"
    h = an_loop()
    d = chat2dlg(h, copy=False)
    assert wires(d)[0]['msg']['content'] is h[1]['content']
    h2 = an_loop(); d2 = chat2dlg(h2)
    h2[1]['content'][0]['signature'] = 'changed'
    assert wires(d2)[0]['msg']['content'][0]['signature']=='S1'

@given(an_histories(), st.booleans(), st.booleans())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_same_dialog_stamped_or_not_copied_or_not(h, stamp, cp):
    "Any history read with `stamp` and `copy` as given is the dialog the default reading makes: the same messages and records, less the digests when unstamped"
    ref,d = chat2dlg(copy.deepcopy(h), system='sys'),chat2dlg(copy.deepcopy(h), system='sys', stamp=stamp, copy=cp)
    assert [(m.content, m.ai_res) for m in d]==[(m.content, m.ai_res) for m in ref] and d.system==ref.system
    assert (wires(d)==wires(ref)) if stamp else (undigested(wires(d))==undigested(wires(ref)))
    if stamp: assert dlg2chat(d, 'anthropic')==dlg2chat(ref, 'anthropic')

def test_a_stamper_keeps_the_mark_while_it_returns_true():
    "The stamper gets the send's format, and keeps the mark by returning True (records left for a later send): it runs again at the next send that sends reasoning"
    calls = []
    stampers['test-keep'] = lambda d, fmt: calls.append(fmt) or fmt!='anthropic'
    try:
        d = chat2dlg(an_loop(), stamp=False); d.meta['dialog'] = {'unstamped': 'test-keep'}
        dlg2chat(d, 'openai'); dlg2chat(d, 'gemini', reasoning=False); assert d.meta['dialog']['unstamped']=='test-keep'
        dlg2chat(d, 'anthropic'); dlg2chat(d, 'anthropic')
        assert calls==['openai', 'anthropic'] and 'unstamped' not in d.meta['dialog']
    finally: stampers.pop('test-keep')

def test_a_failing_stamper_never_fails_the_send():
    "Whatever a stamper raises (a path it can't resolve, a bug), the send goes without the records it didn't stamp, and the mark goes; a warning names the stamper and its error"
    def bad(d, fmt): raise RuntimeError('Symlink loop')
    for f,err in ((bad, 'RuntimeError: Symlink loop'), ('no.such.module', "ModuleNotFoundError: No module named 'no'"),
                  (lambda d: None, 'TypeError')):
        stampers['test-bad'] = f
        try:
            d = chat2dlg(an_loop(), stamp=False); d.meta['dialog'] = {'unstamped': 'test-bad'}
            with pytest.warns(UserWarning, match=r"the 'test-bad' stamper .* failed with " + re.escape(err)) as w:
                assert not any(thinking_at(dlg2chat(d, 'anthropic'))) and 'unstamped' not in d.meta['dialog']
            assert len(w)==1 and w[0].filename==__file__  # at the caller's send
        finally: stampers.pop('test-bad')
    # a stamper that works warns of nothing
    stampers['test-good'] = lambda d, fmt: None
    try:
        d = chat2dlg(an_loop(), stamp=False); d.meta['dialog'] = {'unstamped': 'test-good'}
        with warnings.catch_warnings(): warnings.simplefilter('error'); dlg2chat(d, 'anthropic')
    finally: stampers.pop('test-good')

"The Responses codec's direct reading (`Codec.fast`, `dialog.responses._rs_direct`): `chat2dlg` with it gives the dialog `chat2dlg` gives without it (the events' reading), whenever it reads the items; Codex rollouts are read by it"
import json, tempfile, contextlib
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.chat import chat2dlg, dlg2chat, codecs
import dialog.responses as R
import dialog.session as S
from dialog.session import sess2dlg, dlg2sess
from test_session_gen import codex_session, session_text, small_codex

from shared_paths import need_corpus

def shape(d):
    "A dialog as what it holds, ids aside (each read draws its own)"
    return [(m.content, m.msg_type, m.output, json.dumps(m.meta), len(m.attachments)) for m in d.messages], d.system

@contextlib.contextmanager
def events_only():
    "`chat2dlg` reads Responses items with its events alone, without the codec's direct reading"
    cd = codecs['responses']
    f,cd.fast = cd.fast,None
    try: yield
    finally: cd.fast = f

def items_of(path):
    "The Responses items the session reader gives chat for the rollout at `path`, and its system prompt"
    recs,_ = S.read_records(path, warn=False)
    starts = [i for i,(r,_) in enumerate(recs) if S.Codex.is_prompt(r)]
    spans = [[r for r,_ in recs[i:j]] for i,j in zip(starts, starts[1:] + [len(recs)])]
    b = next((r['payload'].get('base_instructions') for r,_ in recs if r.get('type')=='session_meta'), None)
    return [x for s in spans for x in S.Codex.chat_msgs(s)],(b or {}).get('text')

def read(items, system=None, **kw):
    "`chat2dlg`'s dialog of (a copy of) `items`, or the ValueError it raises"
    try: return chat2dlg(json.loads(json.dumps(items)), 'responses', system=system, **kw)
    except ValueError as e: return e

def same_as_chat(items, system=None):
    "The direct reading's dialog of `items` (None when it leaves them to the events); `chat2dlg` gives the same with it or without"
    d = (R._rs_direct(json.loads(json.dumps(items)), Dialog, 'chat', True) or [None])[0]
    for kw in (dict(stamp=False, copy=False), dict(stamp=True), dict(stamp=False)):
        got = read(items, system, **kw)
        with events_only(): ref = read(items, system, **kw)
        if isinstance(ref, ValueError): assert d is None and str(got)==str(ref); continue
        assert shape(got)==shape(ref)
    return d

# what a reply's texts may hold: plain words, and what chat's reading rewrites (thinking comments, progress lines,
# token blocks, tool blocks, image spellings)
bits = st.sampled_from(['a', ' ', '\n', 'é', '"', '<', '`', 'think_', '<!--think_start-->', '🧠', '⏳ 3s ⏳',
                        'token-usage-details', "<details class='tool-usage-details'>", '![image](data:image/png;base64,iVBO)',
                        '[^1]', '\\u'])
text = st.lists(bits, max_size=6).map(''.join)

@st.composite
def part(draw, kind):
    if draw(st.integers(0, 9)): return dict(type=kind, text=draw(text))
    return draw(st.sampled_from([dict(type='refusal', refusal='no'), dict(type='input_image', image_url='https://x.org/a.png'),
                                 dict(type=kind, text='cited', annotations=[]), dict(type='text', text='t'), dict(type=kind),
                                 dict(type=kind, text='c', annotations=[dict(type='url_citation', url='https://x.org',
                                                                             start_index=0, end_index=1)])]))

def content(kind): return st.one_of(text, st.lists(part(kind), max_size=3))

@st.composite
def arguments(draw):
    return draw(st.one_of(st.just('{}'), st.builds(lambda t: json.dumps(dict(cmd=t)), text), st.just('[1, 2]'),
                          st.just('{"a": 1.5}'), st.just('not json'), st.just('{"a":{"b":[]}}'),
                          st.integers(150, 250).map(lambda n: '{"a":' + '['*n + ']'*n + '}')))

@st.composite
def rollout(draw):
    "Responses items as a rollout's spans give them: a prompt first, then what the model wrote, outputs, more prompts"
    items,ids = [dict(type='message', role='user', content=draw(content('input_text')))],[]
    for _ in range(draw(st.integers(0, 12))):
        k = draw(st.sampled_from(['user', 'text', 'reason', 'fn', 'custom', 'out', 'out', 'odd']))
        if k=='user': items.append(dict(type='message', role='user', content=draw(content('input_text'))))
        elif k=='text': items.append(dict(type='message', role='assistant', content=draw(content('output_text'))))
        elif k=='reason':
            s = draw(st.one_of(st.lists(st.builds(lambda t: dict(type='summary_text', text=t), text), max_size=2),
                               st.just('odd'), st.just(None)))
            items.append(dict(type='reasoning', summary=s, encrypted_content='gAAA'))
        elif k in ('fn', 'custom'):
            i = draw(st.sampled_from(ids + ['c1', 'c2', 'c3'])) if ids and draw(st.integers(0, 5))==0 else f'c{len(ids)}'
            ids.append(i)
            if k=='fn': items.append(dict(type='function_call', name='shell', arguments=draw(arguments()), call_id=i))
            else: items.append(dict(type='custom_tool_call', name='exec', input=draw(text), call_id=i))
        elif k=='out' and ids:
            t = draw(st.sampled_from(['function_call_output', 'custom_tool_call_output']))
            o = draw(st.one_of(text, st.lists(part('input_text'), max_size=2), st.just({'x': 1})))
            items.append(dict(type=t, call_id=draw(st.sampled_from(ids + ['gone'])), output=o))
        elif k=='odd': items.append(draw(st.sampled_from([dict(type='web_search_call', id='ws', status='done'),
                                                          dict(type='message', role='developer', content='d'), 'x'])))
    return items

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rollout(), st.sampled_from([None, '', 'You are Codex.']))
def test_direct_reading_builds_the_dialog_the_events_build(items, system):
    same_as_chat(items, system)

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codex_session())
def test_direct_reading_reads_the_rollouts_codex_writes(recs):
    "Plain rollouts (prompts, reasoning, function and custom calls with text outputs, context messages) are read by it, not left to the events"
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'r.jsonl'; p.write_text(session_text(recs, [0]*len(recs)))
        items,system = items_of(p)
        said = [x.get('type')=='message' and x.get('role')=='assistant' for x in items]
        # two replies in a row are two prompts to chat (and the rollout is read a span at a time)
        assert same_as_chat(items, system) is not None or any(a and b for a,b in zip(said, said[1:]))

def test_direct_reading_reads_small_and_corpus_rollouts(tmp_path):
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(small_codex(3)) + '\n')
    d = same_as_chat(*items_of(p))
    assert d is not None and len(d)==3 and 'Thinking 2.' in d.messages[1].ai_res
    assert same_as_chat(*items_of(need_corpus('sessions', 'codex-rollout.jsonl'))) is not None

def test_direct_reading_leaves_to_the_events_what_only_they_read():
    p = dict(type='message', role='user', content='hi')
    call = dict(type='function_call', name='f', arguments='{}', call_id='c')
    out = dict(type='function_call_output', call_id='c', output='ok')
    said = lambda t: dict(type='message', role='assistant', content=[dict(type='output_text', text=t)])
    for items in ([p, said('a'), said('b')],  # two replies in a row: chat makes a prompt of its own
                  [p, call, p, out],  # answered after the next prompt
                  [p, call, out, out],  # answered twice
                  [p, call, p],  # a call with no result before the last message
                  [p, said('<!--think_start-->x<!--think_end-->')],  # text chat escapes
                  [p, dict(call, arguments='{"a":' + '['*300 + ']'*300 + '}'), out],  # may nest too deep
                  [p, dict(role='assistant', content='untyped')]):  # an item without its type
        assert R._rs_direct(json.loads(json.dumps(items)), Dialog, 'chat', True) is None and same_as_chat(items) is None
    # a call still running in the last message is one chat reads too
    assert same_as_chat([p, dict(type='message', role='user', content='x'), call]) is not None

def _without_reader(path):
    with events_only(): return sess2dlg(path)

def _read_shape(d):
    meta = json.loads(json.dumps(d.meta)); meta['dialog']['session'].pop('msgs')
    return shape(d),meta

@pytest.mark.parametrize('src', ['small', 'corpus'])
def test_a_rollout_reads_and_sends_as_through_chat(src, tmp_path):
    "`sess2dlg` with the direct reading gives the dialog chat's reading gave: the same messages, metadata and records, written back record for record, the same lists sent"
    p = need_corpus('sessions', 'codex-rollout.jsonl') if src=='corpus' else tmp_path/'s.jsonl'
    if src=='small': p.write_text('\n'.join(small_codex(3)) + '\n')
    d,ref = sess2dlg(p),_without_reader(p)
    assert _read_shape(d)==_read_shape(ref)
    assert dlg2sess(d, tmp_path/'out.jsonl').read_bytes()==p.read_bytes()
    for reasoning in (True, 'keep'):
        assert dlg2chat(d, 'responses', reasoning=reasoning)==dlg2chat(ref, 'responses', reasoning=reasoning)

class Sdk:
    "An SDK object as OpenAI's Python SDK gives one: its JSON by `model_dump`"
    def __init__(self, **kw): self.kw = kw
    def model_dump(self, mode=None, exclude_unset=None): return dict(self.kw)

def test_sdk_objects_are_left_to_the_events():
    "An SDK object, as an item or in an item's list, goes to the events, which read its JSON; not with `copy=False` (JSON's own types)"
    p,said = dict(type='message', role='user', content='hi'),dict(type='message', role='assistant', content='ok')
    think = lambda s: dict(type='reasoning', summary=s, encrypted_content='gAAA')
    for its in ([p, think([Sdk(type='summary_text', text='Think.')]), said], [p, Sdk(**think([dict(type='summary_text', text='Think.')])), said]):
        assert R._rs_direct(its, Dialog, 'chat') is None
        d = chat2dlg(its, 'responses')
        with events_only(): ref = chat2dlg(its, 'responses')
        assert shape(d)==shape(ref) and 'Think.' in d.messages[0].ai_res
    assert R._rs_direct([p, think([dict(type='summary_text', text='Think.')]), said], Dialog, 'chat') is not None

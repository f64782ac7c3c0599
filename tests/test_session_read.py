"Reading sessions: a session still being written, files that are no sessions, what isn't a prompt, subagents, unknown records"
import json, tempfile, threading, time, warnings, pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from pathlib import Path
from dialog.session import *
from dialog.chat import parse_reply
from test_session_edit import cc, cx, need
from test_session_gen import session_file
import dialog.nbjson as nbjson

@need
def test_live_session_reads_its_complete_records(tmp_path):
    "A session read at every point while the agent writes it: the complete records, a warning while a line is partial, never an error"
    data,p = cc.read_bytes(),tmp_path/'live.jsonl'
    ends = [i+1 for i,b in enumerate(data) if b==10]
    for cut in range(1, len(data)+1, 97):
        p.write_bytes(data[:cut])
        n = sum(e<=cut for e in ends)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try: recs,_ = read_records(p)
            except ValueError as e:  # nothing complete yet: the first line still partial
                assert n==0 or n==1 and cut==ends[0]-0 , e; continue
        assert len(recs)==n + (cut<len(data) and data[cut-1:cut]!=b'\n' and _parses(data[ends[n-1] if n else 0:cut]))
        assert bool(w)==(len(recs)==n and cut not in ends and cut!=len(data))

def _parses(b):
    try: json.loads(b); return True
    except ValueError: return False

@need
def test_reading_while_written(tmp_path):
    "A writer appending records in another thread; every read in between is a prefix of the final dialog's prompts"
    lines,p = cc.read_bytes().split(b'\n')[:-1],tmp_path/'w.jsonl'
    p.write_bytes(b'')
    def write():
        with open(p, 'ab') as f:
            for l in lines:
                for k in range(0, len(l), 500): f.write(l[k:k+500]); f.flush(); time.sleep(0.001)
                f.write(b'\n'); f.flush()
    t = threading.Thread(target=write); t.start()
    seen = 0
    while t.is_alive():
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: recs,_ = read_records(p)
            except ValueError: continue
        assert len(recs)>=seen and all(r==json.loads(l) for r,l in recs); seen = len(recs)
    t.join()
    assert len(read_records(p)[0])==len(lines)

@pytest.mark.parametrize('txt,where', [
    (b'', 'holds no records'), (b'\n', 'line 1: not a JSON record'), (b'{"cells": [],\n "metadata": {}}\n', 'line 1: not a JSON record'),
    (b'[1, 2]\n', 'line 1: a JSON list'), (b'{"type": "user"}\nnope\n{"type": "x"}\n', 'line 2: not a JSON record'),
    (b'\xff\xfe{}', 'line 1: not UTF-8'), (b'{"a": 1}\n{"b": 2}\n', 'line 1: not a Claude Code or Codex session'),
    (b'{"type":"user","sessionId":"s"}\n\n{"type":"user","sessionId":"s"}\n', 'line 2: not a JSON record'),
    # a file that isn't ASCII is read a line at a time from its bytes: the same verdicts, the same lines
    (b'{"type": "user", "x": "caf\xc3\xa9"}\nnope\n{"type": "x"}\n', 'line 2: not a JSON record'),
    (b'{"type":"user","sessionId":"s\xc3\xa9"}\n{"a": "\xff"}\n{"type":"user","sessionId":"s"}\n', 'line 2: not UTF-8'),
    (b'["\xc3\xa9"]\n', 'line 1: a JSON list'), (b'\xc3\xa9\n', 'line 1: not a JSON record')])
def test_not_a_session(tmp_path, txt, where):
    p = tmp_path/'bad.jsonl'
    p.write_bytes(txt)
    with pytest.raises(ValueError) as e: sess2dlg(p)
    assert str(p) in str(e.value) and where in str(e.value)

@need
def test_meta_users_are_not_prompts_and_ride_along():
    dlg = sess2dlg(cc)
    assert len(dlg)==1 and 'Base directory for this skill' not in dlg[0].content + dlg[0].ai_res
    assert any('"isMeta":true' in l for l in dlg[0].meta['dialog']['session']['records'])

@need
def test_codex_context_is_not_a_prompt():
    dlg = sess2dlg(cx)
    assert [m.content for m in dlg]==['Measure the flux.', 'And the humidity?']
    assert dlg.system.startswith('You are Codex') and len(dlg.meta['dialog']['session']['head'])==7

def test_unknown_records_ride_along(tmp_path):
    p = tmp_path/'s.jsonl'
    rs = [dict(type='user', uuid='u1', parentUuid=None, sessionId='s', message=dict(role='user', content='hi')),
          dict(type='telemetry-from-the-future', sessionId='s', blob=[1, 2.50, None]),
          dict(type='assistant', uuid='u2', parentUuid='u1', sessionId='s', message=dict(role='assistant', content=[dict(type='text', text='yo'), dict(type='new_block_kind', x=1)]))]
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    dlg = sess2dlg(p)
    assert [(m.content, m.ai_res) for m in dlg]==[('hi', 'yo')]
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==p.read_bytes()

def _side_session(tmp_path):
    env = dict(sessionId='s', cwd='/w')
    rs = [dict(type='user', uuid='u1', parentUuid=None, message=dict(role='user', content='research X'), **env),
          dict(type='assistant', uuid='u2', parentUuid='u1', message=dict(id='m1', role='assistant', content=[dict(type='tool_use', id='t1', name='Task', input=dict(prompt='look X up'))]), **env),
          dict(type='user', uuid='s1', parentUuid=None, isSidechain=True, message=dict(role='user', content='look X up'), **env),
          dict(type='assistant', uuid='s2', parentUuid='s1', isSidechain=True, message=dict(id='m2', role='assistant', content=[dict(type='text', text='X is 7')]), **env),
          dict(type='user', uuid='u3', parentUuid='u2', message=dict(role='user', content=[dict(type='tool_result', tool_use_id='t1', content='X is 7')]), **env),
          dict(type='assistant', uuid='u4', parentUuid='u3', message=dict(id='m3', role='assistant', content=[dict(type='text', text='X is 7.')]), **env)]
    p = tmp_path/'s.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    return p,rs

def test_sidechains_kept_and_linked(tmp_path):
    "Subagent traffic isn't part of the main dialog; it rides along, and `sidechains` reads it as a dialog of its own"
    p,rs = _side_session(tmp_path)
    dlg = sess2dlg(p)
    assert [m.content for m in dlg]==['research X'] and 'X is 7.' in dlg[0].ai_res and 'look X up' not in [m.content for m in dlg]
    side = sidechains(dlg)
    assert [[(m.content, m.ai_res) for m in d] for d in side.values()]==[[('look X up', 'X is 7')]]
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==p.read_bytes()
    q = tmp_path/'agent-a1.jsonl'  # a subagent's own file, as newer Claude Code writes it
    q.write_text(''.join(json.dumps(r) + '\n' for r in rs[2:4]))
    assert [(m.content, m.ai_res) for m in sess2dlg(q)]==[('look X up', 'X is 7')]
    d = sess2dlg(q); d[0].ai_res = 'X is 8'
    out = [json.loads(l) for l in dlg2sess(d, tmp_path/'o2.jsonl').read_text().splitlines()]
    assert all(r['isSidechain'] for r in out) and out[-1]['message']['content'][0]['text']=='X is 8'

def _small(tmp_path, n=2):
    from test_session_gen import small_claude
    return small_claude(n)

def test_torn_line_mid_file_skipped_and_kept(tmp_path):
    "A record torn mid-file (the agent killed mid-append, then resumed): skipped with a warning naming its line, written back as it was, left out of a fork"
    from test_session_edit import check_chain
    ls = _small(tmp_path)
    ls[3] = ls[3][:len(ls[3])//2]
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(ls) + '\n')
    with pytest.warns(UserWarning, match=r'line 4: a torn record'): dlg = sess2dlg(p)
    assert [m.content for m in dlg]==['Prompt 1: fix test 1', 'Prompt 2: fix test 2']
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==p.read_bytes()
    dlg[1].content = 'Prompt 2, edited'
    assert ls[3] in dlg2sess(dlg, tmp_path/'e.jsonl').read_text().split('\n')
    f = dlg2sess(dlg, tmp_path, fork=True)
    # the torn line, and the signed thinking about the edited prompt (left out as chat leaves it out of a send)
    assert ls[3] not in f.read_text() and len(check_chain(f))==len(ls)-2

def test_last_line_cut_inside_a_character(tmp_path):
    "A last line cut inside a UTF-8 character is a partial last line: the complete records, with the warning"
    ls = _small(tmp_path)
    part = '{"type":"user","message":{"role":"user","content":"caf\u00e9 \U0001F642'.encode()[:-1]
    p = tmp_path/'s.jsonl'; p.write_bytes(('\n'.join(ls) + '\n').encode() + part)
    with pytest.warns(UserWarning, match=f'line {len(ls)+1}: a partial last line'): recs,eol = read_records(p)
    assert len(recs)==len(ls) and eol
    p.write_bytes(('\n'.join(ls) + '\n').encode() + part + b'\n' + ls[0].encode() + b'\n')
    with pytest.raises(ValueError, match=f'line {len(ls)+1}: not UTF-8'): read_records(p)

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=8)
_pad = st.sampled_from(['', ' ', '\t', '\r', ' \r', '\u00a0'])

@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(st.text(max_size=4), _json, max_size=4), _pad, _pad, st.sampled_from(['', '', 'x', ' {}'])),
                min_size=1, max_size=6))
def test_records_parse_as_json_loads(recs):
    "Every line reads as `json.loads` reads it (white space around it, a CR, data after it): a record when it parses, a torn line (kept as it is, read as empty) when it doesn't"
    lines = [a + json.dumps(r, ensure_ascii=False, separators=(',', ':')) + b + tail for r,a,b,tail in recs]
    lines = [json.dumps(recs[0][0])] + lines + [json.dumps(recs[-1][0])]  # a valid first and last record
    def verdict(l):
        try: return json.loads(l)
        except ValueError: return {}
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'s.jsonl'
        p.write_text('\n'.join(lines) + '\n', encoding='utf-8')
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: got,eol = read_records(p)
            except ValueError:  # a padded line json refuses that doesn't start as a record: no session, as json says
                assert any(not l.startswith('{') and verdict(l)=={} for l in lines); return
    assert [l for _,l in got]==lines and eol
    assert [r for r,_ in got]==[verdict(l) for l in lines]

@need
@pytest.mark.parametrize('src', ['cc', 'cx'])
def test_whole_read_is_the_per_prompt_read(src, monkeypatch):
    "A session read through one `chat2dlg` of the whole conversation is the dialog its prompts read one by one make: same prompts, replies, metadata and system prompt, each message in the dialog returned"
    import dialog.session as S
    p = dict(cc=cc, cx=cx)[src]
    whole = sess2dlg(p)
    monkeypatch.setattr(S, '_read_whole', lambda *a: None)
    one = sess2dlg(p)
    assert whole.name==one.name==p.stem and whole.system==one.system and whole.meta.keys()==one.meta.keys()=={'dialog'}
    def meta(d): return {k:v for k,v in d.meta['dialog'].items() if k!='session'} | dict(session={k:v for k,v in d.meta['dialog']['session'].items() if k not in ('msgs', 'whole')})
    assert meta(whole)==meta(one)
    assert whole.meta['dialog']['session']['whole'] is True and one.meta['dialog']['session']['whole'] is False  # how each was read, for its stamps
    assert [(m.content, m.ai_res, m.msg_type, m.meta) for m in whole]==[(m.content, m.ai_res, m.msg_type, m.meta) for m in one]
    for d in (whole, one):
        assert all(m.dlg is d for m in d) and d.meta['dialog']['session']['msgs']==[m.id for m in d]

def _cc_file(tmp_path, recs, sid='11111111-2222-3333-4444-555555555555'):
    "A Claude Code transcript of `recs` (type and payload each), chained, in `tmp_path`"
    import uuid
    env = dict(isSidechain=False, userType='external', cwd='/w', sessionId=sid, version='2.1.0')
    res,parent = [],None
    for k,r in enumerate(recs):
        r = dict(parentUuid=parent, uuid=str(uuid.UUID(int=k+1)), timestamp=f'2026-01-01T00:00:{k:02d}.000Z', **env) | r
        parent = r['uuid']; res.append(r)
    p = tmp_path/f'{sid}.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in res))
    return p

def test_compact_summary_is_no_prompt(tmp_path):
    "The summary Claude Code writes when it compacts (`isCompactSummary`) is not the person's prompt: it rides along in the records"
    p = _cc_file(tmp_path, [dict(type='user', message=dict(role='user', content='fix the bug')),
        dict(type='assistant', requestId='r1', message=dict(id='m1', role='assistant', content=[dict(type='text', text='Fixed.')])),
        dict(type='system', parentUuid=None, subtype='compact_boundary', content='Conversation compacted', compactMetadata=dict(trigger='manual')),
        dict(type='user', isCompactSummary=True, isVisibleInTranscriptOnly=True, message=dict(role='user', content='This session is being continued from a previous conversation. Summary: fixed.')),
        dict(type='user', message=dict(role='user', content='now add a test')),
        dict(type='assistant', requestId='r2', message=dict(id='m2', role='assistant', content=[dict(type='text', text='Added.')]))])
    dlg = sess2dlg(p)
    assert [m.content for m in dlg]==['fix the bug', 'now add a test']
    assert any('isCompactSummary' in l for l in dlg[0].meta['dialog']['session']['records'])
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==p.read_bytes()

def test_running_call_has_no_made_up_result(tmp_path):
    "A call the agent is still running (no result yet) is an open call: `dlg2chat` sends it with no invented result"
    from dialog.chat import dlg2chat
    p = _cc_file(tmp_path, [dict(type='user', message=dict(role='user', content='run the tests')),
        dict(type='assistant', requestId='r1', message=dict(id='m1', role='assistant', content=[dict(type='text', text='Running them.')])),
        dict(type='assistant', requestId='r1', message=dict(id='m1', role='assistant', content=[dict(type='tool_use', id='toolu_1', name='Bash', input=dict(command='pytest'))]))])
    msgs = dlg2chat(sess2dlg(p), 'anthropic')
    assert msgs[-1]['role']=='assistant' and msgs[-1]['content'][-1]['id']=='toolu_1'
    assert not [b for m in msgs if isinstance(m['content'], list) for b in m['content'] if b['type']=='tool_result']

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_file(), st.sampled_from(['', '{"type":"x","a":NaN}', '{"a":"\\ud800"}', '{"a":1e999}', '{"a":"é\u2028"}', '[1]']))
def test_records_read_alike_with_and_without_the_fast_extra(txt, extra):
    "The lines parsed all at once by the `fast` extra (ASCII text or UTF-8 bytes) give the records, lines and errors `json` gives a line at a time"
    txt = txt + (extra + '\n' if extra else '')
    got = []
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'s.jsonl'
        p.write_bytes(txt.encode('utf-8', 'surrogatepass'))
        for fast in (True, False):
            nbjson.use_fast = fast
            try: got.append(read_records(p, warn=False))
            except ValueError as e: got.append(str(e))
            finally: nbjson.use_fast = True
    assert repr(got[0])==repr(got[1])  # (by their spelling: NaN isn't NaN)

def test_record_written_twice_is_read_once(tmp_path):
    "A call and its result Claude Code wrote twice (the same uuids: anthropics/claude-code#66947) show once in the reply, and `dlg2chat` sends them once, with the session's signed thinking; the copies ride along in the records"
    from dialog.chat import dlg2chat
    from test_session_gen import small_claude
    lines = small_claude(1)
    k = next(i for i,l in enumerate(lines) if '"tool_use"' in l)
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(lines[:k+2] + lines[k:k+2] + lines[k+2:]) + '\n')
    dlg = sess2dlg(p)
    assert [p['id'] for p in parse_reply(dlg[0].ai_res) if p['type']=='tool']==['toolu_1']
    msgs = dlg2chat(dlg, 'anthropic')
    bs = [b for m in msgs if isinstance(m['content'], list) for b in m['content']]
    assert [b['id'] for b in bs if b['type']=='tool_use']==['toolu_1'] and [b['type'] for b in bs].count('tool_result')==1
    assert any(b['type']=='thinking' and b['signature'] for b in bs)
    assert len(dlg[0].meta['dialog']['session']['records'])==len(lines)+2  # the two copies ride along

@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_file())
def test_message_ids_are_derived_from_the_records(txt):
    "Each message's id comes from the file: the same at every read of the same bytes (subagents' dialogs too), unique, a cell id; a Claude Code prompt's is its record's uuid"
    from dialog.nbjson import is_cell_id
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'s.jsonl'; p.write_bytes(txt.encode())
        a,b = sess2dlg(p),sess2dlg(p)
        ids = [m.id for m in a.messages]
        assert [m.id for m in b.messages]==ids==a.meta['dialog']['session']['msgs'] and len(set(ids))==len(ids)
        assert all(map(is_cell_id, ids))
        firsts = [json.loads(m.meta['dialog']['session']['records'][0]) for m in a.messages]
        uuids = [r['uuid'] for r in firsts if 'uuid' in r]
        if len(set(uuids))==len(uuids)==len(ids): assert ids==uuids
        assert {k: [m.id for m in x.messages] for k,x in sidechains(a).items()}=={k: [m.id for m in x.messages] for k,x in sidechains(b).items()}

@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_prompts_read_alike_get_ids_apart(tmp_path, agent):
    "A prompt record written twice (a Claude Code uuid twice, a Codex line twice): each message its own id, the same at every read; an edit written back keeps a Claude Code prompt's id"
    from test_session_gen import small_claude, small_codex
    ls = small_claude(2) if agent=='claude' else small_codex(2)
    k = next(i for i,l in enumerate(ls) if '"role":"user"' in l and 'Prompt 1' in l)
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(ls[:k+1] + ls[k:]) + '\n')
    dlg = sess2dlg(p)
    ids = [m.id for m in dlg.messages]
    assert len(ids)==3 and len(set(ids))==3 and [m.id for m in sess2dlg(p).messages]==ids
    assert ids[0]==(json.loads(ls[k])['uuid'] if agent=='claude' else ids[0]) and ids[1]!=ids[0]
    dlg[2].content = 'Prompt 2, edited'
    back = [m.id for m in sess2dlg(dlg2sess(dlg, tmp_path/'o.jsonl')).messages]
    assert back[:2]==ids[:2] and (back[2]==ids[2])==(agent=='claude')  # Codex records carry no id: its line's digest

def _odd_files(tmp_path):
    "Sessions each holding a field of a JSON type neither agent writes there"
    from test_session_gen import small_claude, small_codex
    def cx(f):
        rs = [json.loads(l) for l in small_codex(2)]; f(rs); return rs
    def cc(f):
        rs = [json.loads(l) for l in small_claude(2)]; f(rs); return rs
    def at(rs, pred): return next(r for r in rs if pred(r))
    res = dict(
        content_number=cx(lambda rs: at(rs, lambda r: r['payload'].get('role')=='user')['payload'].update(content=1.5)),
        call_id_list=cx(lambda rs: at(rs, lambda r: r['payload'].get('type')=='function_call_output')['payload'].update(call_id=[])),
        tool_use_id_list=cc(lambda rs: at(rs, lambda r: '"tool_use"' in json.dumps(r))['message']['content'][0].update(id=[1])),
        block_type_object=cc(lambda rs: at(rs, lambda r: r.get('type')=='assistant')['message']['content'][0].update(type={'a': 1})))
    for k,rs in res.items():
        d = tmp_path/k; d.mkdir()
        name = '019f78da-e13e-72a2-9c10-aff27ecc7dfd' if 'call' in k or 'content' in k else '11111111-2222-4333-8444-555555555555'
        (d/(f'rollout-2026-07-19T05-30-38-{name}.jsonl' if name.startswith('019') else f'{name}.jsonl')).write_text(''.join(json.dumps(r) + '\n' for r in rs))
    return res

def test_odd_json_types_are_a_value_error_naming_file_and_line(tmp_path):
    "A field of an odd JSON type (a content that is a number, a call id that is a list, a block type that is an object) is a ValueError naming the file and its line(s), never a bare TypeError, so a folder's read skips the file"
    from dialog.dataset import read_dialogs
    for k in _odd_files(tmp_path):
        p = next((tmp_path/k).iterdir())
        with pytest.raises(ValueError, match=rf'{p.name}, lines? \d+'): sess2dlg(p)
    good = tmp_path/'good'; good.mkdir()
    from test_session_gen import small_claude
    (good/'s.jsonl').write_text('\n'.join(small_claude(1)) + '\n')
    with pytest.warns(UserWarning): assert len(read_dialogs(tmp_path, workers=0, on_error='skip'))==1

def test_a_host_class_error_is_not_blamed_on_the_session_file(tmp_path):
    "A host class that raises TypeError or AttributeError of its own: its error comes through as it is, never 'not a session file'; a file whose own field is odd still is one, host class or not"
    from dialog.core import Dialog, Message
    from dialog.dataset import read_dialogs
    from test_session_gen import small_claude, small_codex
    class ReqMsg(Message):
        def __init__(self, content, owner, **kw): super().__init__(content, **kw); self.owner = owner
    class ReqDialog(Dialog): msg_cls = ReqMsg
    class BuggyMsg(Message):
        def __init__(self, *a, **kw): super().__init__(*a, **kw); self.nothing.here
    class BuggyDialog(Dialog): msg_cls = BuggyMsg
    for k,lines in (('cc', small_claude(2)), ('cx', small_codex(2))):
        d = tmp_path/k; d.mkdir(); p = d/'s.jsonl'; p.write_text('\n'.join(lines) + '\n')
        assert len(sess2dlg(p))  # the file reads
        with pytest.raises(TypeError, match='owner'): sess2dlg(p, cls=ReqDialog)
        with pytest.raises(AttributeError, match='nothing'): sess2dlg(p, cls=BuggyDialog)
        with pytest.raises(TypeError, match='owner'): read_dialogs(d, workers=0, cls=ReqDialog, on_error='collect')
    for k in _odd_files(tmp_path):
        p = next((tmp_path/k).iterdir())
        with pytest.raises(ValueError, match=rf'{p.name}, lines? \d+'): sess2dlg(p, cls=ReqDialog)  # the file's own fault: its error, as without a host class

def test_codex_web_search_shown_as_chat_shows_it(tmp_path):
    "A rollout's web search (a web_search_call item) shows in the reply as chat2dlg shows the same items, rides along in the records, and an edit elsewhere writes it back as read; one without its id rides along unshown"
    from dialog.chat import chat2dlg, dlg2chat
    ts = '2026-01-01T00:00:00.000Z'
    it = lambda p: dict(timestamp=ts, type='response_item', payload=p)
    ws = dict(type='web_search_call', id='ws_1', status='completed', action=dict(type='search', query='nbdev release notes'))
    user = dict(type='message', role='user', content=[dict(type='input_text', text='find it')])
    said = dict(type='message', role='assistant', content=[dict(type='output_text', text='found')])
    bare = {k:v for k,v in ws.items() if k!='id'} | dict(action=dict(type='search', query='no id'))
    rs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w')), it(user), it(ws), it(bare), it(said)]
    p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    dlg = sess2dlg(p)
    assert dlg[0].ai_res==chat2dlg([user, ws, said], 'responses')[0].ai_res and 'no id' not in dlg[0].ai_res
    assert [x['id'] for x in dlg2chat(dlg, 'responses') if x.get('type')=='web_search_call']==['ws_1']
    dlg[0].ai_res = dlg[0].ai_res.replace('found', 'found it')
    out = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()
    assert out[:-1]==p.read_text().splitlines()[:-1]

@need
def test_read_pauses_the_collector(tmp_path, monkeypatch):
    "A session is read with the cyclic collector paused (its passes over a long session's records cost as much as the read), and left as it was found, error or not"
    import gc, dialog.session as S
    seen,build = [],S._recs2dlg
    def spy(*a, **kw):
        seen.append(gc.isenabled())
        return build(*a, **kw)
    monkeypatch.setattr(S, '_recs2dlg', spy)
    assert gc.isenabled()
    for src in (cc, cx):
        assert len(sess2dlg(src)) and seen[-1] is False and gc.isenabled()
    bad = tmp_path/'bad.jsonl'
    bad.write_text('{"type": "user", "message": 3}\n')
    with pytest.raises(ValueError): sess2dlg(bad)
    assert gc.isenabled()
    gc.disable()  # a program that paused it itself keeps it paused
    try: sess2dlg(cc); assert not gc.isenabled()
    finally: gc.enable()

@need
def test_overlapping_pauses_in_threads_end_with_the_last(tmp_path, monkeypatch):
    "The collector is the process's: a pause ending in one thread (begun before a read in another) doesn't turn it on under that read; it comes back on when the last pause ends, as it was before the first"
    import gc, threading, dialog.session as S
    from dialog.nbjson import gc_paused
    inside,go,seen,build = threading.Event(),threading.Event(),[],S._recs2dlg
    def other():
        with gc_paused(): inside.set(); go.wait(10)
    def spy(*a, **kw):  # the read under way: the other thread's pause ends now
        go.set(); t.join(); seen.append(gc.isenabled())
        return build(*a, **kw)
    monkeypatch.setattr(S, '_recs2dlg', spy)
    assert gc.isenabled()
    t = threading.Thread(target=other); t.start(); inside.wait(10)
    try: assert len(sess2dlg(cc))
    finally: go.set(); t.join()
    assert seen==[False] and gc.isenabled()

def test_a_child_forked_while_the_pause_lock_is_held_can_pause():
    "A process forked while another thread holds the pauses' lock (a worker started mid-read) pauses and resumes the collector, never waiting on a lock no thread of its own holds"
    import os
    from dialog import nbjson
    from dialog.nbjson import gc_paused
    if not hasattr(os, 'fork'): pytest.skip('no fork here')
    with nbjson._gc.lock:  # as another thread holding it at the fork
        pid = os.fork()
        if pid==0:  # the child: an exit code says how it went, a hang is the failure
            try:
                with gc_paused(): pass
                os._exit(0)
            except BaseException: os._exit(1)
    for _ in range(200):  # up to 10 s
        done,st = os.waitpid(pid, os.WNOHANG)
        if done: break
        time.sleep(0.05)
    else:
        os.kill(pid, 9); os.waitpid(pid, 0)
        raise AssertionError('the child waited on the pauses lock')
    assert os.waitstatus_to_exitcode(st)==0


@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_a_prompts_image_reads_the_same_every_time(tmp_path, agent):
    "A prompt's image gets an attachment id derived from the file, as message ids are: two reads of the same bytes give the same dialog, byte for byte (the id was drawn at each read)"
    import base64
    from dialog.ipynb import write_ipynb
    png = base64.b64encode(bytes.fromhex('89504e470d0a1a0a0000000d4948445200000001000000010806000000'
                                         '1f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082')).decode()
    sid = '5d1f0c3e-8a7b-4c2d-9e1f-0a1b2c3d4e5f'
    if agent=='claude':
        env = dict(isSidechain=False, userType='external', cwd='/w', sessionId=sid, version='2.0.1')
        recs = [dict(parentUuid=None, **env, type='user', uuid='0b9c7d52-3f1e-4a8b-9c2d-1e2f3a4b5c6d', timestamp='2026-07-17T02:51:00.000Z',
                     message=dict(role='user', content=[dict(type='text', text='What is this?'), dict(type='image', source=dict(type='base64', media_type='image/png', data=png)),
                                                        dict(type='image', source=dict(type='base64', media_type='image/png', data=png))])),
                dict(parentUuid='0b9c7d52-3f1e-4a8b-9c2d-1e2f3a4b5c6d', **env, type='assistant', uuid='1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f', timestamp='2026-07-17T02:51:01.000Z',
                     requestId='req_1', message=dict(id='msg_1', type='message', role='assistant', model='claude', content=[dict(type='text', text='Two pixels.')]))]
        p = tmp_path/f'{sid}.jsonl'
    else:
        meta = dict(timestamp='2026-07-17T02:51:00.000Z', type='session_meta', payload=dict(id=sid, timestamp='2026-07-17T02:51:00.000Z', cwd='/w', originator='codex_cli_rs', cli_version='0.40.0'))
        img = dict(type='input_image', image_url=f'data:image/png;base64,{png}')
        recs = [meta, dict(timestamp='2026-07-17T02:51:01.000Z', type='response_item', payload=dict(type='message', role='user', content=[dict(type='input_text', text='What is this?'), img, img])),
                dict(timestamp='2026-07-17T02:51:02.000Z', type='response_item', payload=dict(type='message', role='assistant', content=[dict(type='output_text', text='Two pixels.')]))]
        p = tmp_path/f'rollout-2026-07-17T02-51-00-{sid}.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    a,b = sess2dlg(p),sess2dlg(p)
    ats = a.messages[0].attachments
    assert len(ats)==2 and ats[0].id!=ats[1].id and all(x.id in a.messages[0].content for x in ats)  # a copy in one prompt: its own id
    assert write_ipynb(a)==write_ipynb(b)


def test_a_field_of_an_odd_type_stops_the_read_saying_where_or_is_written_as_read(tmp_path):
    "A session that reads is written (edited, forked) without a bare TypeError: an odd session id stops the read naming its line; a reasoning summary text that is no string rides along"
    ts,sid = '2026-07-19T05:30:38.285Z','11111111-2222-4333-8444-555555555555'
    cx_recs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1')),
               dict(timestamp=ts, type='response_item', payload=dict(type='message', role='user', content=[dict(type='input_text', text='Fix the test')])),
               dict(timestamp=ts, type='response_item', payload=dict(type='reasoning', summary=[dict(type='summary_text', text={})], encrypted_content='gAAA')),
               dict(timestamp=ts, type='response_item', payload=dict(type='message', role='assistant', content=[dict(type='output_text', text='Done.')]))]
    src = tmp_path/'cx.jsonl'; src.write_text(''.join(json.dumps(r) + '\n' for r in cx_recs))
    dlg = sess2dlg(src)
    dlg[0].ai_res += '\n\nOne more note.'
    out = dlg2sess(dlg, tmp_path/'cx-out.jsonl')
    assert sess2dlg(out)[0].ai_res.endswith('One more note.')
    env = dict(isSidechain=False, userType='external', cwd='/w', version='2.1.0', timestamp=ts)
    cc_recs = [dict(parentUuid=None, type='user', message=dict(role='user', content='Fix the test'), uuid='7b1c2d3e-0000-4000-8000-000000000001', sessionId=[sid], **env),
               dict(parentUuid='7b1c2d3e-0000-4000-8000-000000000001', type='assistant', message=dict(id='m1', type='message', role='assistant', content=[dict(type='text', text='Done.')]), uuid='7b1c2d3e-0000-4000-8000-000000000002', sessionId=sid, **env)]
    src = tmp_path/'cc.jsonl'; src.write_text(''.join(json.dumps(r) + '\n' for r in cc_recs))
    with pytest.raises(ValueError, match=r'cc\.jsonl, line 1: .*session id is a list'): sess2dlg(src)

"Hypothesis-built sessions of both agents, and the round trip they pin: read as a dialog, written back (also through a saved .ipynb), byte for byte"
import json, uuid, pytest, tempfile
from pathlib import Path
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.ipynb import read_ipynb
from dialog.session import *

txt = st.text(st.characters(blacklist_categories=('Cs',)), max_size=30)
word = st.text('abcdefghij -_\n\u2028é🙂"\\', min_size=1, max_size=20)

def dump(r, style):
    "A record as its writer might have written it: compact (the agents), spaced, or ASCII-escaped"
    if style==0: return json.dumps(r, ensure_ascii=False, separators=(',', ':'))
    if style==1: return json.dumps(r)
    return json.dumps(r, ensure_ascii=True, separators=(',', ': '))

@st.composite
def claude_session(draw, max_turns=4):
    "Records of a Claude Code transcript: prompts, assistant blocks one a record (a request id shared), tool round trips, meta users, attachments, sidechains, unknown types"
    sid,recs,parent = str(uuid.uuid4()),[],[None]
    env = dict(sessionId=sid, cwd='/w/p', version='2.1.0', gitBranch='main', userType='external')
    def add(r, chain=True, side=False):
        u = str(uuid.uuid4())
        r = dict(parentUuid=parent[0], isSidechain=side, **r, uuid=u, timestamp='2026-01-01T00:00:00.000Z', **env) if chain else r
        recs.append(r)
        if chain and not side: parent[0] = u
        return r
    if draw(st.booleans()): add(dict(type='queue-operation', operation='enqueue', content='x', sessionId=sid), chain=False)
    for t in range(draw(st.integers(1, max_turns))):
        add(dict(type='user', message=dict(role='user', content=draw(st.one_of(word, st.just([dict(type='text', text='hi')]))))))
        if draw(st.booleans()): add(dict(type='attachment', attachment=dict(type='skill_listing', content=draw(word))))
        n,called = 0,False  # one API response: thinking and text, then its tool calls (the order Anthropic's API gives); after their results, the next response
        for k in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(['thinking', 'text', 'tool', 'meta', 'odd', 'side']))
            if kind in ('thinking', 'text') and called: n,called = n+1,False
            called = called or kind=='tool'
            req = f'req_{t}_{n}'
            if kind=='thinking': add(dict(type='assistant', requestId=req, message=dict(id=f'msg_{req}', role='assistant', type='message', content=[dict(type='thinking', thinking=draw(word), signature='c2ln')])))
            elif kind=='text': add(dict(type='assistant', requestId=req, message=dict(id=f'msg_{req}', role='assistant', type='message', content=[dict(type='text', text=draw(word))])))
            elif kind=='tool':
                tid = f'toolu_{t}_{k}'
                a = add(dict(type='assistant', requestId=req, message=dict(id=f'msg_{req}', role='assistant', type='message', content=[dict(type='tool_use', id=tid, name='Bash', input=dict(command=draw(word)))])))
                add(dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=tid, content=draw(word))]), toolUseResult=dict(stdout='x'), sourceToolAssistantUUID=a['uuid']))
            elif kind=='meta': add(dict(type='user', isMeta=True, message=dict(role='user', content=[dict(type='text', text=draw(word))])))
            elif kind=='odd': add(dict(type=draw(st.sampled_from(['system', 'progress', 'brand-new-type'])), data=draw(word)))
            else: add(dict(type='user', message=dict(role='user', content='sub task'), agentId='a1'), side=True)
        if draw(st.booleans()): add(dict(type='ai-title', aiTitle=draw(word), sessionId=sid), chain=False)
    add(dict(type='last-prompt', lastPrompt='x', leafUuid=parent[0], sessionId=sid), chain=False)
    return recs

@st.composite
def codex_session(draw, max_turns=4):
    "Records of a Codex rollout: session_meta, developer and context messages, prompts, calls, custom calls, reasoning, events, turn contexts, unknown types"
    sid,ts = '019f78da-e13e-72a2-9c10-aff27ecc7dfd','2026-01-01T00:00:00.000Z'
    recs = [dict(timestamp=ts, type='session_meta', payload=dict(id=sid, cwd='/w', cli_version='0.1', base_instructions=dict(text='You are Codex.')))]
    item = lambda p: recs.append(dict(timestamp=ts, type='response_item', payload=p))
    item(dict(type='message', role='developer', content=[dict(type='input_text', text='<permissions instructions>x')]))
    item(dict(type='message', role='user', content=[dict(type='input_text', text='<environment_context>x</environment_context>')]))
    for t in range(draw(st.integers(1, max_turns))):
        recs.append(dict(timestamp=ts, type='turn_context', payload=dict(turn_id=str(t), cwd='/w')))
        item(dict(type='message', role='user', content=[dict(type='input_text', text=draw(word))]))
        for k in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(['text', 'fn', 'custom', 'reason', 'event', 'odd']))
            if kind=='text': item(dict(type='message', role='assistant', content=[dict(type='output_text', text=draw(word))]))
            elif kind=='fn':
                item(dict(type='function_call', name='shell', arguments=json.dumps(dict(cmd=draw(word))), call_id=f'c{t}{k}'))
                item(dict(type='function_call_output', call_id=f'c{t}{k}', output=draw(word)))
            elif kind=='custom':
                item(dict(type='custom_tool_call', status='completed', call_id=f'x{t}{k}', name='exec', input=draw(word)))
                item(dict(type='custom_tool_call_output', call_id=f'x{t}{k}', output=[dict(type='input_text', text=draw(word))]))
            elif kind=='reason': item(dict(type='reasoning', summary=[dict(type='summary_text', text=draw(word))], encrypted_content='gAAA'))
            elif kind=='event': recs.append(dict(timestamp=ts, type='event_msg', payload=dict(type='agent_message', message=draw(word))))
            else: recs.append(dict(timestamp=ts, type=draw(st.sampled_from(['world_state', 'compacted', 'future_kind'])), payload=dict(x=draw(word))))
    return recs

def session_text(recs, styles, eol=True):
    "The file's text: each record in one of the writers' styles"
    return '\n'.join(dump(r, s) for r,s in zip(recs, styles)) + ('\n' if eol else '')

@st.composite
def session_file(draw):
    recs = draw(st.one_of(claude_session(), codex_session()))
    return session_text(recs, draw(st.lists(st.integers(0, 2), min_size=len(recs), max_size=len(recs))), draw(st.booleans()))

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(session_file())
def test_unedited_session_written_back_byte_for_byte(txt):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d)/'s.jsonl'
        src.write_bytes(txt.encode())
        dlg = sess2dlg(src)
        assert dlg2sess(dlg, Path(d)/'out.jsonl').read_bytes()==src.read_bytes()
        dlg.save(Path(d)/'s.ipynb')  # through storage: the records ride in the notebook's metadata
        assert dlg2sess(read_ipynb(Path(d)/'s.ipynb'), Path(d)/'out2.jsonl').read_bytes()==src.read_bytes()

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_session())
def test_claude_prompts_and_calls_seen(recs):
    "Each prompt record is a prompt message, in order; each tool_use shows as a tool block with its result"
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'s.jsonl'
        p.write_text(session_text(recs, [0]*len(recs)))
        dlg = sess2dlg(p)
        prompts = [r for r in recs if r['type']=='user' and not r.get('isMeta') and not r.get('isSidechain') and not (isinstance(c := r['message']['content'], list) and c[0]['type']=='tool_result')]
        assert [m.content for m in dlg]==[r['message']['content'] if isinstance(r['message']['content'], str) else 'hi' for r in prompts]
        from dialog.chat import parse_reply
        calls = [b['id'] for r in recs if r['type']=='assistant' for b in r['message']['content'] if b['type']=='tool_use']
        assert [p['id'] for m in dlg for p in parse_reply(m.ai_res) if p['type']=='tool']==calls

def small_claude(n=2, sid='11111111-2222-4333-8444-555555555555'):
    "The lines of a small Claude Code transcript as the agent writes one: per turn a prompt, one response's thinking, text and tool_use records (one requestId), the tool_result, a closing text; a `last-prompt` at the end"
    out,parent = [],None
    env = dict(userType='external', cwd='/home/u/proj', sessionId=sid, version='2.1.0', gitBranch='main')
    def add(r):
        nonlocal parent
        u = str(uuid.uuid4()); out.append(dict(parentUuid=parent, isSidechain=False, **r, uuid=u, timestamp='2026-07-17T02:51:28.115Z', **env)); parent = u
        return u
    for t in range(1, n+1):
        add(dict(type='user', message=dict(role='user', content=f'Prompt {t}: fix test {t}')))
        rq,msg = f'req_{t}',dict(model='claude-x', id=f'msg_{t}', type='message', role='assistant')
        add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='thinking', thinking=f'Thinking {t}.', signature='EtoE' + 'A'*40)])))
        add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='text', text=f'Running tests {t}.')])))
        a = add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='tool_use', id=f'toolu_{t}', name='Bash', input=dict(command=f'pytest {t}'))])))
        add(dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=f'toolu_{t}', content=f'ok {t}')]), toolUseResult=dict(stdout=f'ok {t}'), sourceToolAssistantUUID=a))
        add(dict(type='assistant', requestId=rq+'b', message=dict(msg, id=f'msg_{t}b', content=[dict(type='text', text=f'Done {t}.')])))
    out.append(dict(type='last-prompt', lastPrompt=f'Prompt {n}', sessionId=sid, leafUuid=parent))
    return [json.dumps(r, separators=(',', ':')) for r in out]

def small_codex(n=2, ts='2026-07-19T05:30:38.285Z'):
    "The lines of a small Codex rollout as the agent writes one: session_meta, then per turn a turn_context, the prompt, reasoning, a function call and its output, an exec event, a closing message"
    out = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1', base_instructions=dict(text='You are Codex.')))]
    item = lambda p, typ='response_item': out.append(dict(timestamp=ts, type=typ, payload=p))
    for t in range(1, n+1):
        item(dict(turn_id=str(t), cwd='/w', model='gpt-5'), 'turn_context')
        item(dict(type='message', role='user', content=[dict(type='input_text', text=f'Prompt {t}: fix test {t}')]))
        item(dict(type='reasoning', summary=[dict(type='summary_text', text=f'Thinking {t}.')], encrypted_content='gAAA' + 'B'*40))
        item(dict(type='function_call', name='shell', arguments=json.dumps(dict(cmd=['pytest', str(t)])), call_id=f'call_{t}'))
        item(dict(type='function_call_output', call_id=f'call_{t}', output=f'ok {t}'))
        item(dict(type='exec_command_end', call_id=f'call_{t}', exit_code=0), 'event_msg')
        item(dict(type='message', role='assistant', content=[dict(type='output_text', text=f'Done {t}.')]))
    return [json.dumps(r, separators=(',', ':')) for r in out]

"The rest of the library on a session's dialog: sent to a model with tool pairs and reasoning intact, viewed, found, edited by the skill's tools and saved, then written back"
import json, pytest
from pathlib import Path
from dialog.core import *
from dialog.chat import dlg2chat
import dialog.view # Dialog.find_msgs
from dialog.ipynb import read_ipynb
from dialog.session import *
from test_session_edit import cc, cx, need, check_chain, norm

def tool_pairs_ok(msgs, fmt):
    "Every call answered by the next turn(s) with exactly its results, by id"
    if fmt=='anthropic':
        for a,u in zip(msgs, msgs[1:]):
            if a['role']=='assistant' and isinstance(a['content'], list) and (ids := [b['id'] for b in a['content'] if b['type']=='tool_use']):
                assert [b['tool_use_id'] for b in u['content'] if b['type']=='tool_result']==ids
    else:
        for i,m in enumerate(msgs):
            if m.get('tool_calls'): assert [r['tool_call_id'] for r in msgs[i+1:i+1+len(m['tool_calls'])]]==[c['id'] for c in m['tool_calls']]

@need
@pytest.mark.parametrize('fmt', ['anthropic', 'openai'])
def test_dlg2chat_tool_pairs(fmt):
    for src in (cc, cx):
        msgs = dlg2chat(sess2dlg(src), fmt)
        tool_pairs_ok(msgs, fmt)
        assert sum('toolu_' in json.dumps(m) or 'call_' in json.dumps(m) for m in msgs)>0

@need
@pytest.mark.parametrize('stored', [False, True])
def test_claude_reasoning_goes_back_signed(tmp_path, stored):
    "The session's thinking goes back to Anthropic with its signature, as the model wrote it, also once the dialog was saved and read back; the thinking made after the skill's body (an isMeta record the model read, which dlg2chat doesn't send) doesn't. The corpus file without its attachment records (the skill listing, read by the model before its first thinking, would make every thinking unsendable)"
    recs = [json.loads(l) for l in cc.read_text().splitlines()]
    for a in [r for r in recs if r.get('type')=='attachment']:
        for r in recs:
            if r.get('parentUuid')==a['uuid']: r['parentUuid'] = a['parentUuid']
    recs = [r for r in recs if r.get('type')!='attachment']
    src = tmp_path/cc.name; src.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    dlg = sess2dlg(src)
    if stored: dlg.save(tmp_path/'s.ipynb'); dlg = read_ipynb(tmp_path/'s.ipynb')
    msgs = dlg2chat(dlg, 'anthropic')
    k = next(i for i,r in enumerate(recs) if r.get('isMeta'))
    sigs = [b['signature'] for r in recs if r.get('type')=='assistant' for b in r['message']['content'] if b['type']=='thinking']
    before = {b['signature'] for r in recs[:k] if r.get('type')=='assistant' for b in r['message']['content'] if b['type']=='thinking'}
    sent = {b['signature'] for m in msgs if m['role']=='assistant' and isinstance(m['content'], list) for b in m['content'] if b.get('type')=='thinking'}
    assert sent==before and len(before)==1 and len(sigs)==3
    assert 'Skill' in json.dumps(msgs) and recs[k]['message']['content'][0]['text'][:40] not in json.dumps(msgs)

@need
def test_view_and_find():
    dlg = sess2dlg(cc)
    assert 'fixture complete' in dlg.view(incl_out=True, trunc_out=False)
    assert [f.id if hasattr(f, 'id') else f for f in dlg.find_msgs('clikernel', out=True)]

@need
def test_skill_edit_then_write_back(tmp_path):
    "An agent edits the saved dialog with the skill's tools; the session written from it has that edit and a whole chain"
    from dialog.skill import msg_str_replace, del_msgs
    nb = tmp_path/'s.ipynb'
    dlg = sess2dlg(cc); dlg.save(nb)
    r = msg_str_replace(dlg[0].id, '"result": "42"', '"result": "41"', dlg=str(nb), out=True)
    assert not str(r).startswith('error'), r
    out = dlg2sess(read_ipynb(nb), tmp_path/'o.jsonl')
    recs = check_chain(out)
    assert recs[15]['message']['content'][0]['content']=='41'
    dx = sess2dlg(cx); dx.save(tmp_path/'x.ipynb')
    del_msgs(dx[0].id, dlg=str(tmp_path/'x.ipynb'))
    back = sess2dlg(dlg2sess(read_ipynb(tmp_path/'x.ipynb'), tmp_path/'x.jsonl'))
    assert [m.content for m in back]==['And the humidity?']

@need
def test_sessions_as_a_table(tmp_path):
    "A folder of sessions read as dialogs goes into the dataset's table, a row per message"
    pytest.importorskip('pyarrow')
    from dialog.dataset import dlgs2table
    t = dlgs2table([sess2dlg(cc), sess2dlg(cx)])
    assert t.num_rows==3

@need
def test_codex_reasoning_state_kept(tmp_path):
    "A rollout's encrypted reasoning goes back to OpenAI's Responses API as chat keeps it"
    ts,p = '2026-01-01T00:00:00.000Z',tmp_path/'r.jsonl'
    rs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w')),
          dict(timestamp=ts, type='response_item', payload=dict(type='message', role='user', content=[dict(type='input_text', text='q')])),
          dict(timestamp=ts, type='response_item', payload=dict(type='reasoning', summary=[dict(type='summary_text', text='hm')], encrypted_content='gAAAsecret')),
          dict(timestamp=ts, type='response_item', payload=dict(type='message', role='assistant', content=[dict(type='output_text', text='a')]))]
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    assert 'gAAAsecret' in json.dumps(dlg2chat(sess2dlg(p), 'responses'))

def test_reasoning_sent_for_every_message(tmp_path):
    "`dlg2chat` of an unedited session sends the reasoning of every message: Codex's encrypted reasoning with `base_instructions` as the system, Claude's signed thinking after the first prompt too"
    from test_session_gen import small_claude
    ts = '2026-07-19T05:30:38.285Z'
    recs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1', base_instructions=dict(text='You are Codex.')))]
    for k in range(3): recs += [dict(timestamp=ts, type='response_item', payload=p) for p in (
        dict(type='message', role='user', content=[dict(type='input_text', text=f'Fix test {k}')]),
        dict(type='reasoning', summary=[dict(type='summary_text', text=f'Run the tests {k}.')], encrypted_content=f'gAAAAB{k}' + 'x'*40),
        dict(type='function_call', name='shell', arguments='{"cmd":["pytest"]}', call_id=f'call_{k}'),
        dict(type='function_call_output', call_id=f'call_{k}', output='1 passed'),
        dict(type='message', role='assistant', content=[dict(type='output_text', text='Fixed.')]))]
    p = tmp_path/'rollout-2026-07-19T05-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    dlg = sess2dlg(p)
    assert dlg.system=='You are Codex.'
    sent = dlg2chat(dlg, 'responses')
    assert [x['encrypted_content'][:7] for x in sent if x.get('type')=='reasoning']==['gAAAAB0', 'gAAAAB1', 'gAAAAB2']
    c = tmp_path/'c.jsonl'; c.write_text('\n'.join(small_claude(3)) + '\n')
    sent = dlg2chat(sess2dlg(c), 'anthropic')
    assert [b['thinking'] for m in sent if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='thinking']==['Thinking 1.', 'Thinking 2.', 'Thinking 3.']

from hypothesis import given, settings, strategies as st, HealthCheck
from test_session_gen import claude_session, session_text

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_session())
def test_prefix_checked_against_what_is_sent(recs):
    "Stamping a session's reasoning state (at its first send) checks Anthropic's prefix rule against the messages the stamping render made (one render, not two): unless the check marked a record unsendable, they are exactly what `dlg2chat` sends"
    import dialog.chat as C, tempfile
    seen,orig = [],C._unprefixed
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'s.jsonl'; p.write_text(session_text(recs, [0]*len(recs)))
        dlg = sess2dlg(p)
    C._unprefixed = lambda out, *a: (seen.append(json.loads(json.dumps(out))), orig(out, *a))[1]
    try: sent = dlg2chat(dlg, 'anthropic')  # stamps first
    finally: C._unprefixed = orig
    marked = any(str(r.get('prefix')).startswith('unsendable') for m in dlg for r in (m.meta.get('dialog') or {}).get('wire', []))
    assert bool(seen)==any((m.meta.get('dialog') or {}).get('wire') for m in dlg)  # a session with reasoning state is stamped, once
    if seen and not marked: assert seen[-1]==sent  # a record the check marked unsendable goes as the dialog shows it: then they differ by design

def test_thinking_after_what_dlg2chat_does_not_send_is_not_sent(tmp_path):
    "Signed thinking made after a record the model read and dlg2chat doesn't send (an isMeta skill body; a compaction's boundary and summary, in place of the turns before; a microcompaction's boundary, old tool results cleared) is not sent: its history is not the one sent; the thinking before it is, and a write after an edit keeps it before the edit (the agent sends those records when it resumes)"
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    body = _user([dict(type='text', text='Base directory for this skill: /w\n\nAlways answer in French.')], isMeta=True)
    skill = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='Skill', input=dict(command='pdf'))),
             _user([dict(type='tool_result', tool_use_id='toolu_1', content='Launching skill: pdf')]), body,
             _asst('2', th(2)), _asst('2', dict(type='text', text='Voilà.')), _user('prompt 2'), _asst('3', th(3)), _asst('3', dict(type='text', text='Oui.'))]
    comp = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='text', text='answer 1')),
            dict(type='system', subtype='compact_boundary', content='Conversation compacted'),
            _user('This session is being continued from a previous conversation. Summary: one answer.', isCompactSummary=True),
            _user('prompt 2'), _asst('2', th(2)), _asst('2', dict(type='text', text='answer 2'))]
    # a microcompaction: old tool results cleared from what the model is sent, the records keeping them
    micro = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='Read', input={})),
             _user([dict(type='tool_result', tool_use_id='toolu_1', content='a long file')]), _asst('1b', dict(type='text', text='answer 1')),
             _user('prompt 2'), dict(type='system', subtype='microcompact_boundary', content='Context microcompacted',
                                     microcompactMetadata=dict(trigger='auto', preTokens=180000, tokensSaved=40000, compactedToolIds=['toolu_1'])),
             _asst('2', th(2)), _asst('2', dict(type='text', text='answer 2'))]
    for name,recs,want in (('skill', skill, {'sig1'}), ('comp', comp, {'sig1'}), ('micro', micro, {'sig1'})):
        p = _cc(tmp_path, recs, f'{name}.jsonl')
        for stored in (False, True):
            dlg = sess2dlg(p)
            if stored: dlg.save(tmp_path/f'{name}.ipynb'); dlg = read_ipynb(tmp_path/f'{name}.ipynb')
            s = json.dumps(dlg2chat(dlg, 'anthropic'))
            assert {x for x in ('sig1', 'sig2', 'sig3') if x in s}==want, (name, stored)
            assert 'sig2' in json.dumps(dlg2chat(dlg, 'anthropic', reasoning='keep'))  # its own rounds unchanged
    dlg = sess2dlg(_cc(tmp_path, skill, 'skill.jsonl'))
    dlg[-1].content = 'prompt 2, edited'
    out = dlg2sess(dlg, tmp_path/'o.jsonl').read_text()
    assert 'sig1' in out and 'sig2' in out and 'sig3' not in out

def test_thinking_after_an_attachment_or_a_prompt_block_riding_along_is_not_sent(tmp_path):
    "Signed thinking made after an attachment record (an MCP server's instructions, the skill listing: the agent sends the model one) or after a prompt holding a block dlg2chat doesn't send (a document of a `content` or `file` source, an image of a `file` source, a search result, a block of an unknown type) is not sent, and the file is written back as read; the thinking before it is, and reasoning='keep' sends it"
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    att = dict(type='attachment', attachment=dict(type='mcp_instructions_delta', addedNames=['k'], addedBlocks=['## k\nUse it.'], removedNames=[]))
    blocks = [dict(type='document', source=dict(type='content', content=[dict(type='text', text='chunk')])),
              dict(type='document', source=dict(type='file', file_id='file_1')),
              dict(type='image', source=dict(type='file', file_id='file_011CNha8iCJcU1wXNR6q4V8w')),  # the Files API's: read, riding along
              dict(type='image', source=dict(type='base64', media_type='image/bmp', data='Qk0=')),  # a type chat refuses: read, riding along
              dict(type='search_result', source='https://x.org', title='t', content=[dict(type='text', text='r')]), dict(type='future_block', x=1)]
    call = [_asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='f', input={})),
            _user([dict(type='tool_result', tool_use_id='toolu_1', content='out')])]
    cases = {'attachment': ([_user('prompt 1')] + call + [att, _asst('2', th(2)), _asst('2', dict(type='text', text='a')),
                            _user('prompt 2'), _asst('3', th(3)), _asst('3', dict(type='text', text='b'))], {'sig1'})}
    for i,b in enumerate(blocks):
        cases[f'block {i}'] = ([_user('prompt 0'), _asst('0', th(0)), _asst('0', dict(type='text', text='z')),
                               _user([b, dict(type='text', text='prompt 1')])] + call + [_asst('2', th(2)), _asst('2', dict(type='text', text='a'))], {'sig0'})
    for name,(recs,want) in cases.items():
        dlg = sess2dlg(p := _cc(tmp_path, recs, f'{name}.jsonl'.replace(' ', '')))
        s = json.dumps(dlg2chat(dlg, 'anthropic'))
        assert {x for x in ('sig0', 'sig1', 'sig2', 'sig3') if x in s}==want, name
        assert 'sig2' in json.dumps(dlg2chat(dlg, 'anthropic', reasoning='keep')), name
        assert dlg2sess(dlg, tmp_path/'o.jsonl', force=True).read_bytes()==p.read_bytes(), name  # the block rides along

def test_thinking_after_a_tool_result_sent_otherwise_than_read_is_not_sent(tmp_path):
    "Signed thinking made after a tool result chat_msgs sends otherwise than it came (several text blocks joined, a search result as its name) or after a result record holding another block is not sent; a result of one text block (sent as its text) or a text keeps it"
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    T = lambda t: dict(type='text', text=t)
    def sent(res, extra=()):
        recs = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='f', input={})),
                _user([dict(type='tool_result', tool_use_id='toolu_1', content=res), *extra]), _asst('2', th(2)), _asst('2', T('a'))]
        dlg = sess2dlg(_cc(tmp_path, recs, f'{len(list(tmp_path.iterdir()))}.jsonl'))
        s = json.dumps(dlg2chat(dlg, 'anthropic'))
        assert 'sig2' in json.dumps(dlg2chat(dlg, 'anthropic', reasoning='keep'))
        return [x for x in ('sig1', 'sig2') if x in s]
    assert sent('out')==sent([T('out')])==['sig1', 'sig2']
    assert sent([T('a'), T('b')])==['sig1', 'sig2']  # several texts go back block for block (a Task subagent's result)
    assert sent([T('a'), T(' ')])==['sig1']  # a blank one goes not at all
    assert sent([T('a'), dict(type='search_result', source='u', title='t', content=[T('r')])])==['sig1']
    assert sent('out', [T('a note')])==['sig1']

def test_thinking_after_a_reply_block_left_out_is_not_sent(tmp_path):
    "Signed thinking made after a reply's block dlg2chat leaves out (of a type unknown here) is not sent; the thinking before it is, and reasoning='keep' sends it"
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    recs = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='f', input={})),
            _user([dict(type='tool_result', tool_use_id='toolu_1', content='out')]),
            _asst('2', dict(type='future_block', x=1)), _asst('2', th(2)), _asst('2', dict(type='text', text='a'))]
    dlg = sess2dlg(_cc(tmp_path, recs))
    s = json.dumps(dlg2chat(dlg, 'anthropic'))
    assert 'sig1' in s and 'sig2' not in s and 'future_block' not in s
    assert 'sig2' in json.dumps(dlg2chat(dlg, 'anthropic', reasoning='keep'))

def test_task_result_of_text_blocks_goes_back_as_it_came(tmp_path):
    "A Task tool's result (the subagent's report, then its agent id and usage: two text blocks) goes back block for block, as chat sends the same history, and the thinking after it is sent; the dialog shows the texts joined by a blank line, as chat does"
    from test_session_edit import _cc, _asst, _user
    from dialog.chat import chat2dlg
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    task = [dict(type='text', text='The subagent found 3 files.'), dict(type='text', text="agentId: a1b2c3d\n<usage>total_tokens: 100</usage>")]
    call = dict(type='tool_use', id='toolu_1', name='Task', input={})
    recs = [_user('prompt 1'), _asst('1', th(1)), _asst('1', call), _user([dict(type='tool_result', tool_use_id='toolu_1', content=task)]),
            _asst('2', th(2)), _asst('2', dict(type='text', text='done'))]
    dlg = sess2dlg(_cc(tmp_path, recs))
    sent = dlg2chat(dlg, 'anthropic')
    assert [b['content'] for m in sent if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='tool_result']==[task]
    assert [b['signature'] for m in sent if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='thinking']==['sig1', 'sig2']
    hist = [dict(role='user', content='prompt 1'), dict(role='assistant', content=[th(1), call]),
            dict(role='user', content=[dict(type='tool_result', tool_use_id='toolu_1', content=task)]),
            dict(role='assistant', content=[th(2), dict(type='text', text='done')])]
    assert dlg[0].ai_res==chat2dlg(hist, 'anthropic')[0].ai_res
    assert json.dumps('found 3 files.\n\nagentId')[1:-1] in dlg[0].ai_res  # in the result's JSON

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(['a', 'b c', '', ' ', 'x\n\ny', '![image](data:image/png;base64,AAAA)']), min_size=1, max_size=4),
       st.booleans())
def test_thinking_after_text_blocks_is_sent_iff_they_go_as_read(tmp_path, texts, as_str):
    "Whatever text blocks (or a text) a tool result holds, the thinking after it is sent exactly when chat sends the result as it came (one text block alike its text)"
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    res = texts[0] if as_str else [dict(type='text', text=t) for t in texts]
    recs = [_user('prompt 1'), _asst('1', th(1)), _asst('1', dict(type='tool_use', id='toolu_1', name='f', input={})),
            _user([dict(type='tool_result', tool_use_id='toolu_1', content=res)]), _asst('2', th(2)), _asst('2', dict(type='text', text='a'))]
    sent = dlg2chat(sess2dlg(_cc(tmp_path, recs, f'{len(list(tmp_path.iterdir()))}.jsonl')), 'anthropic')
    got = next(b['content'] for m in sent if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='tool_result')
    one = [dict(type='text', text=res)] if isinstance(res, str) else res
    as_read = got==res or isinstance(got, str) and len(one)==1 and got==one[0]['text']
    assert ('sig2' in json.dumps(sent))==as_read, (res, got)

def test_thinking_on_a_branch_after_an_abandoned_one_is_not_sent(tmp_path):
    "After a rewind (a prompt edited in Claude Code's UI: the new prompt follows the record the old one followed), the dialog shows both branches in the order of the file and the new branch's thinking, made without the abandoned turns, is not sent (reasoning='keep' sends it); records of other kinds off the line (a progress record, a system record written before the record it follows), a record written twice, fork nothing; a parent the file doesn't hold does"
    import uuid as U
    from test_session_edit import _cc, _asst, _user
    th = lambda s: dict(type='thinking', thinking=f'thought {s}', signature=f'sig{s}')
    u = lambda k: str(U.UUID(int=k+1))  # `_cc`'s uuid of record k
    T = lambda t: dict(type='text', text=t)
    def sent(recs, name):
        dlg = sess2dlg(_cc(tmp_path, recs, f'{name}.jsonl'))
        assert all(x in json.dumps(dlg2chat(dlg, 'anthropic', reasoning='keep')) for x in ('sig1', 'sig2')), name
        return [x for x in ('sig1', 'sig2') if x in json.dumps(dlg2chat(dlg, 'anthropic'))],[m.content for m in dlg]
    # the rewind: record 3, the new prompt, follows none (as the first prompt did)
    rew = [_user('prompt 1'), _asst('1', th(1)), _asst('1', T('answer 1')), _user('prompt 1, said better', parentUuid=None),
           _asst('2', th(2)), _asst('2', T('answer 2'))]
    assert sent(rew, 'rewind')==(['sig1'], ['prompt 1', 'prompt 1, said better'])
    call = dict(type='tool_use', id='toolu_1', name='Bash', input={})
    res = _user([dict(type='tool_result', tool_use_id='toolu_1', content='out')])
    prog = dict(type='progress', data=dict(type='hook_progress', hookEvent='PostToolUse'))
    # a progress record hanging off the call, the result following the call; a system record following a progress
    # record written after it
    off = [_user('prompt 1'), _asst('1', th(1)), _asst('1', call), prog | dict(parentUuid=u(2)), res | dict(parentUuid=u(2)),
           dict(type='system', subtype='turn_duration', parentUuid=u(7)), _asst('2', th(2), parentUuid=u(5)), dict(prog, parentUuid=u(4)),
           _asst('2', T('a'), parentUuid=u(6))]
    assert sent(off, 'off')[0]==['sig1', 'sig2']
    twice = [_user('prompt 1'), _asst('1', th(1)), _asst('1', call), res, res | dict(uuid=u(3), parentUuid=u(2)), _asst('2', th(2), parentUuid=u(3)),
             _asst('2', T('a'))]
    assert sent(twice, 'twice')[0]==['sig1', 'sig2']
    gone = [_user('prompt 1'), _asst('1', th(1)), _asst('1', call), res, _asst('2', th(2), parentUuid='never-written'), _asst('2', T('a'))]
    assert sent(gone, 'gone')[0]==['sig1']

@need
def test_a_session_cut_mid_tool_loop_continues_with_its_thinking(tmp_path):
    "The corpus session cut after each tool result record (a session that stopped mid tool loop, after an attachment and an isMeta record the model read and `dlg2chat` doesn't send): the turn in progress goes with its thinking, each assistant message of it block for block as the file holds it, in a list the Anthropic SDK takes; once a prompt follows, the prefix rule drops it again"
    from chat_checks import check_history
    ls = cc.read_text().splitlines(keepends=True)
    cuts = [i+1 for i,l in enumerate(ls) if (r := json.loads(l)).get('type')=='user' and isinstance(c := r['message'].get('content'), list)
            and c and c[0].get('type')=='tool_result']
    assert len(cuts)>=3
    for cut in cuts:
        recs = [json.loads(l) for l in ls[:cut]]
        p = tmp_path/f'{cut}'/cc.name; p.parent.mkdir(); p.write_text(''.join(ls[:cut]))
        d = sess2dlg(p)
        out = dlg2chat(d, 'anthropic')
        check_history(out, 'anthropic')
        # the turn in progress: the assistant messages after the last prompt, each as the file's records of its id
        ids = list(dict.fromkeys(r['message']['id'] for r in recs if r.get('type')=='assistant'))
        want = [[b for r in recs if r.get('type')=='assistant' and r['message']['id']==i for b in r['message']['content']] for i in ids]
        got = [m['content'] for m in out if m['role']=='assistant']
        assert got==want and all(c[0]['type']=='thinking' for c in got)
        d.mk_message('Thanks.', msg_type=sprompt).ai_res = 'You are welcome.'  # the loop over (answered): the skill listing read before it makes its thinking unsendable
        assert 'thinking' not in json.dumps(dlg2chat(d, 'anthropic'))

def test_parallel_results_under_their_own_calls_are_no_rewind(tmp_path):
    "Claude Code writes each parallel call's result under its own call's record (the first result a sibling of the second call): no fork, and every thinking block goes"
    import uuid
    sid,recs = '11111111-2222-4333-8444-555555555555',[]
    def rec(parent, **kw):
        u = str(uuid.uuid4())
        recs.append(dict(parentUuid=parent, isSidechain=False, userType='external', cwd='/w', sessionId=sid, version='2.1.33', uuid=u, timestamp='2026-01-01T00:00:00.000Z') | kw)
        return u
    th = lambda t: dict(type='thinking', thinking=t, signature='sig_'+t*12)
    def A(b, mid): return dict(type='assistant', requestId='req_'+mid, message=dict(id=mid, type='message', role='assistant', model='claude-sonnet-4-5', content=[b]))
    def R(tid): return dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=tid, content='ok')]), toolUseResult=dict(stdout='ok'))
    p0 = rec(None, type='user', message=dict(role='user', content='Write 2 files in parallel'))
    t1 = rec(p0, **A(th('one'), 'msg_1'))
    ca = rec(t1, **A(dict(type='tool_use', id='toolu_a', name='Write', input=dict(file_path='a.md')), 'msg_1'))
    cb = rec(ca, **A(dict(type='tool_use', id='toolu_b', name='Write', input=dict(file_path='b.md')), 'msg_1'))
    rec(ca, **R('toolu_a')); rb = rec(cb, **R('toolu_b'))  # each under its own call
    t2 = rec(rb, **A(th('two'), 'msg_2')); x = rec(t2, **A(dict(type='text', text='Created both.'), 'msg_2'))
    p1 = rec(x, type='user', message=dict(role='user', content='thanks'))
    t3 = rec(p1, **A(th('three'), 'msg_3')); rec(t3, **A(dict(type='text', text='Sure.'), 'msg_3'))
    p = tmp_path/f'{sid}.jsonl'
    p.write_text(''.join(json.dumps(r, separators=(',', ':'))+'\n' for r in recs))
    ms = dlg2chat(sess2dlg(p), 'anthropic')
    assert [b['thinking'] for m in ms if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='thinking']==['one', 'two', 'three']

"""Write examples/claude-session.jsonl and examples/codex-rollout.jsonl: two small made-up agent sessions, which dialog.session's page reads.

Run from anywhere: `python examples/mk_sessions.py`. It needs only the standard library and replaces both files with the same bytes
at every run. The records have the shapes Claude Code's transcripts and Codex's rollouts have (their types, fields and order, one JSON
object a line as `json.dumps` writes it); their texts, ids, signatures and paths are invented: no model wrote them, and an API sent
this thinking back would refuse its signature. The page's examples only read, edit and write them."""
import base64, hashlib, json, uuid
from pathlib import Path

here = Path(__file__).resolve().parent
ns = uuid.UUID('6f0c2d1e-7a54-4b8e-9d3c-51a2e8f0b7c4')
uid = lambda name: str(uuid.uuid5(ns, name))  # stable ids, one per name
tok = lambda pre, name, n=24: pre + base64.b32encode(hashlib.sha256(name.encode()).digest()).decode().lower()[:n]
sig = lambda text: base64.b64encode(hashlib.sha512(text.encode()).digest()*6).decode()  # stands for a thinking block's signature
def write(fname, recs): (here/fname).write_bytes(''.join(json.dumps(r) + '\n' for r in recs).encode())

# --- Claude Code: one prompt; its reply thinks, calls a skill, Bash and an MCP tool, and answers
sid,cwd = uid('claude-session'),'/projects/harbour'
prompt = ("Use the tide-table skill. Then use Bash to run `printf 'high water 06:12\\n'`. Then use pycalc to evaluate `12*3.5`. "
          "After all tools finish, sum up in one line.")
tail = dict(userType='external', entrypoint='cli', cwd=cwd, sessionId=sid, version='2.1.209', gitBranch='main')
ts = lambda s: f'2026-07-17T02:51:{s}Z'
recs,prev = [],None
def rec(kind, name, t, after=None, **kw):
    "A chain record of `kind` holding `kw`, named `name` (its uuid), at second `t`, after the last; `after`: fields after its time"
    global prev
    head = dict(promptId=uid('prompt-id'), type=kind) if kind=='user' else dict(type=kind)
    body = head | kw if kind=='user' else kw | head  # a user record's type comes before its message, others' after
    r = dict(parentUuid=prev, isSidechain=False) | body | dict(uuid=uid(name), timestamp=ts(t)) | (after or {}) | tail
    recs.append(r); prev = r['uuid']
    return r
def say(name, t, req, content, stop='tool_use', **kw):
    "An assistant record holding `content`, a block of response `req`"
    msg = dict(model='claude-haiku-4-5-20251001', id=tok('msg_01', req), type='message', role='assistant', content=[content],
               stop_reason=stop, stop_sequence=None, usage=dict(input_tokens=10, output_tokens=120))
    return rec('assistant', name, t, message=msg, requestId=tok('req_01', req), **kw)
def think(name, t, req, text, **kw): return say(name, t, req, dict(type='thinking', thinking=text, signature=sig(text)), **kw)
def call(name, t, req, tool, inp, **kw):
    return say(name, t, req, dict(type='tool_use', id=tok('toolu_01', name), name=tool, input=inp, caller=dict(type='direct')), **kw)
def result(name, t, of, content, res, **kw):
    "The user record holding the result of call `of`"
    blk = dict(type='tool_result', tool_use_id=tok('toolu_01', of), content=content, **kw)
    return rec('user', name, t, message=dict(role='user', content=[blk]), after=dict(toolUseResult=res, sourceToolAssistantUUID=uid(of)))

recs += [dict(type='queue-operation', operation='enqueue', timestamp=ts('28.111'), sessionId=sid, content=prompt),
         dict(type='queue-operation', operation='dequeue', timestamp=ts('28.111'), sessionId=sid)]
rec('user', 'prompt', '28.115', message=dict(role='user', content=prompt), after=dict(permissionMode='default', promptSource='cli'))
rec('attachment', 'skills', '28.115', attachment=dict(type='skill_listing', content='- tide-table: Read the tide times of the harbour.',
                                                       skillCount=1, isInitial=True, names=['tide-table']))
recs.append(dict(type='ai-title', aiTitle='Check the tides and work out a product', sessionId=sid))
think('think-1', '31.546', 'r1', 'Three steps: the tide-table skill, then the Bash command, then pycalc for `12*3.5`. '
      'I start with the skill, and call the others as their turns come.')
say('text-1', '31.549', 'r1', dict(type='text', text="I'll take the three steps in order."))
call('skill', '31.747', 'r1', 'Skill', dict(skill='tide-table'))
result('skill-res', '31.766', 'skill', 'Launching skill: tide-table', dict(success=True, commandName='tide-table'))
rec('user', 'skill-body', '31.763', message=dict(role='user', content=[dict(type='text', text=
    f'Base directory for this skill: {cwd}/.claude/skills/tide-table\n\nWhen invoked, give high water first, then low water.\n')]),
    after=dict(isMeta=True, sourceToolUseID=tok('toolu_01', 'skill')))
rec('attachment', 'perms', '31.763', attachment=dict(type='command_permissions', allowedTools=[]))
call('bash', '31.920', 'r1', 'Bash', dict(command="printf 'high water 06:12\\n'", description='Print the high water time'))
result('bash-res', '32.042', 'bash', 'high water 06:12', dict(stdout='high water 06:12', stderr='', interrupted=False, isImage=False,
       noOutputExpected=False), is_error=False)
think('think-2', '37.540', 'r2', 'The skill says to give high water first, and Bash printed it: 06:12. '
      'Now pycalc: its tool is `mcp__pycalc__evaluate`, which takes the expression.', attributionSkill='tide-table')
call('calc', '37.564', 'r2', 'mcp__pycalc__evaluate', dict(expr='12*3.5'), attributionSkill='tide-table')
result('calc-res', '38.866', 'calc', [dict(type='text', text='42.0')], [dict(type='text', text='42.0')])
rec('attachment', 'mcp', '38.867', attachment=dict(type='mcp_instructions_delta', addedNames=['pycalc'], removedNames=[],
    addedBlocks=['## pycalc\npycalc evaluates Python arithmetic: `evaluate` takes an expression and returns its value as text.']))
attr = dict(attributionSkill='tide-table', attributionMcpServer='pycalc', attributionMcpTool='evaluate')
think('think-3', '40.439', 'r3', "pycalc's instructions are here: `evaluate` returns the value as text, 42.0. "
      'All three steps are done; the summary is high water at 06:12 and 12*3.5 = 42.', stop='end_turn', **attr)
say('text-2', '40.442', 'r3', dict(type='text', text='High water is at 06:12, and 12*3.5 is 42.'), stop='end_turn', **attr)
recs.append(dict(type='last-prompt', lastPrompt=prompt, leafUuid=prev, sessionId=sid))
write('claude-session.jsonl', recs)

# --- Codex: two prompts; the first answered after a function call, the second with a custom tool call after its text
sid,cwd = '019f78da-e13e-72a2-9c10-a1b2c3d4e5f6','/projects/greenhouse'
at = lambda s: f'2026-07-19T05:{s}Z'
item = lambda t, **p: dict(timestamp=at(t), type='response_item', payload=p)
msg = lambda t, role, text: item(t, type='message', role=role,
                                content=[dict(type='output_text' if role=='assistant' else 'input_text', text=text)])
env = (f'<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-07-19</current_date>\n'
       '  <timezone>Etc/UTC</timezone>\n</environment_context>')
write('codex-rollout.jsonl', [
    dict(timestamp=at('30:38.285'), type='session_meta', payload=dict(session_id=sid, id=sid, timestamp=at('30:38.270'), cwd=cwd,
         originator='codex_cli_rs', cli_version='0.144.5', source='cli', model_provider='openai', base_instructions=dict(
         text='You are a coding agent working in the user\'s folder. Read before you change, say what you did, and keep answers short.'))),
    msg('30:38.285', 'developer', '<permissions instructions>\nThe sandbox is read-only: commands may read files, not write them. '
        'Network access is restricted.\n</permissions instructions>'),
    msg('30:38.286', 'user', env),
    dict(timestamp=at('30:38.287'), type='world_state', payload=dict(full=True, state=dict(current_date='2026-07-19', timezone='Etc/UTC'))),
    dict(timestamp=at('30:38.287'), type='turn_context', payload=dict(turn_id='turn-0', cwd=cwd, current_date='2026-07-19',
         timezone='Etc/UTC', approval_policy='on-request', sandbox_policy=dict(type='read-only'), model='gpt-5', summary='auto')),
    msg('30:38.287', 'user', 'Read the greenhouse thermometer.'),
    item('30:38.287', type='function_call', name='thermometer', arguments='{}', call_id=tok('call_', 'thermometer', 32)),
    item('30:38.287', type='function_call_output', call_id=tok('call_', 'thermometer', 32), output='greenhouse: 23.5 C'),
    msg('30:38.287', 'assistant', 'It is 23.5 C in the greenhouse.'),
    msg('31:15.720', 'user', 'And outside?'),
    msg('31:15.720', 'assistant', 'Outside it is 14 C.'),
    item('32:19.911', type='custom_tool_call', id='ctc_outside', status='completed', call_id='call_outside', name='exec',
         input='const r = await tools.exec_command({cmd:"cat outside.txt"});\ntext(JSON.stringify(r));\n'),
    item('32:19.911', type='custom_tool_call_output', call_id='call_outside',
         output=[dict(type='input_text', text='Script completed\nOutput:\noutside: 14 C')])])

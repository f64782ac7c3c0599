"""llmsurgery (AnswerDotAI's session reader) as an oracle: the same prompts, replies, tool calls and results as its readers give on the same files.

llmsurgery 0.0.17 imports only with aidialog 0.0.37 (it needs `aidialog.hist`, gone from 0.0.38) and python-fastllm 0.0.64
(aidialog 0.0.37 fails on 0.0.66's imports), on Python 3.12. It is called in a subprocess, from its own venv:

    python3.12 -m venv /tmp/llmsurgery && /tmp/llmsurgery/bin/pip install llmsurgery==0.0.17
    /tmp/llmsurgery/bin/pip install --no-deps aidialog==0.0.37 python-fastllm==0.0.64
    LLMSURGERY_PYTHON=/tmp/llmsurgery/bin/python python -m pytest tests/test_session_oracle.py

Its `sess_chat(host, path)` gives the conversation as messages. Where the two differ by design it is said below:
it keeps the user texts Claude Code marks `isMeta` (skill bodies) and Codex's `<environment_context>` as user messages,
which this library keeps as records and never makes prompts; those are left out of its side before comparing.
"""
import json, os, subprocess, tempfile, warnings, pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from pathlib import Path
from dialog.session import sess2dlg, Codex
from dialog.chat import parse_reply
from test_session_edit import cc, cx, need
from test_session_gen import claude_session, codex_session, session_text

py = os.environ.get('LLMSURGERY_PYTHON')
pytestmark = pytest.mark.skipif(not (py and Path(py).exists()), reason='no llmsurgery oracle: set LLMSURGERY_PYTHON (see this file\'s docstring)')

_oracle = r'''
import json, sys
from llmsurgery.sess import sess_chat
res = []
for host,p in json.loads(sys.stdin.read()):
    out = []
    for m in sess_chat(host, p):
        for c in m.content:
            k = type(c).__name__
            if k=='Text': out.append([m.role, 'text', c.text])
            elif k=='Thinking': out.append([m.role, 'think', c.text])
            elif k=='ToolUse': out.append([m.role, 'call', c.id, c.name, c.arguments])
            elif k=='ToolResult': out.append([m.role, 'result', c.id, c.text])
            else: out.append([m.role, k])
    res.append(out)
print(json.dumps(res))
'''

def oracle(files):
    "llmsurgery's reading of each of `files` (pairs `(host, path)`)"
    r = subprocess.run([py, '-c', _oracle], input=json.dumps([[h, str(p)] for h,p in files]), capture_output=True, text=True, timeout=300)
    assert r.returncode==0, r.stderr[-2000:]
    return json.loads(r.stdout)

def ours(path):
    "The same facts from our dialog: prompts, reply texts, calls and results, in order"
    res = []
    for m in sess2dlg(path):
        res.append(['user', 'text', m.content])
        for p in parse_reply(m.ai_res):
            if p['type']=='text': res.append(['assistant', 'text', p['text']])
            else: res += [['assistant', 'call', p['id'], p['name'], p['args']], ['tool', 'result', p['id'], p['result']]]
    return res

def theirs(path, got):
    "llmsurgery's facts, without what this library keeps as records by design (meta users, Codex's context), thinking compared apart"
    recs = [json.loads(l) for l in Path(path).read_text().split('\n') if l]
    users = [r.get('isMeta', False) for r in recs if r.get('type')=='user' and not r.get('isSidechain') and not (isinstance(c := r['message']['content'], list) and any(b.get('type')=='tool_result' for b in c))]
    res,k = [],0
    for g in got:
        if g[:2]==['user', 'text'] and 'sessionId' in recs[-1]:  # Claude Code: its user texts are the user records, in order
            k += 1
            if users[k-1]: continue
        if g[:2]==['user', 'text'] and g[2].lstrip().startswith(('<environment_context>', '<user_instructions>')): continue
        if g[1]!='think': res.append(g)
    return res

def norm(xs): return [y for x in xs if (y := [*x[:2], *[' '.join(v.split()) if isinstance(v, str) else v for v in x[2:]]])[:3]!=['assistant', 'text', '']]  # whitespace aside: a blank text is no text

def merged(xs):
    "Consecutive assistant texts joined: the reply's markdown holds them as one text between calls"
    res = []
    for x in xs:
        if res and x[:2]==['assistant', 'text'] and res[-1][:2]==['assistant', 'text']: res[-1] = [*x[:2], res[-1][2] + ' ' + x[2]]
        else: res.append(x)
    return res

@need
def test_corpus_files_read_alike():
    got = oracle([('ant', cc), ('oai', cx)])
    for p,g in zip((cc, cx), got): assert norm(ours(p))==merged(norm(theirs(p, g)))

def test_built_sessions_read_alike(tmp_path):
    made = []
    @settings(max_examples=40, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(claude_session(), codex_session()))
    def collect(recs): made.append(('oai' if recs[0]['type']=='session_meta' else 'ant', recs))
    collect()
    files = []
    for i,(h,recs) in enumerate(made):
        recs = [r for r in recs if not r.get('isSidechain')]  # llmsurgery reads the main chain only
        (p := tmp_path/f'{i}.jsonl').write_text(session_text(recs, [0]*len(recs)))
        files.append((h, p))
    for (h,p),g in zip(files, oracle(files)):
        assert norm(ours(p))==merged(norm(theirs(p, g))), p.read_text()

def test_compacted_session_prompts_read_alike(tmp_path):
    "A compacted Claude Code session: llmsurgery gives no user message for the summary Claude Code writes (`isCompactSummary`), and the dialog has no prompt of it"
    from test_session_read import _cc_file
    p = _cc_file(tmp_path, [dict(type='user', message=dict(role='user', content='fix the bug')),
        dict(type='assistant', requestId='r1', message=dict(id='m1', role='assistant', content=[dict(type='text', text='Fixed.')])),
        dict(type='system', parentUuid=None, subtype='compact_boundary', content='Conversation compacted'),
        dict(type='user', isCompactSummary=True, isVisibleInTranscriptOnly=True, message=dict(role='user', content='This session is being continued. Summary: fixed.')),
        dict(type='user', message=dict(role='user', content='now add a test')),
        dict(type='assistant', requestId='r2', message=dict(id='m2', role='assistant', content=[dict(type='text', text='Added.')]))])
    (got,) = oracle([('ant', p)])
    assert [g[2] for g in got if g[:2]==['user', 'text']]==[m.content for m in sess2dlg(p)]==['fix the bug', 'now add a test']

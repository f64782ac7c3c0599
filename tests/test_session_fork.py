"Forks are new, valid sessions the agent can resume: a new id everywhere, new record ids, whole chains, the agent's file name and folder; the source and existing files untouched"
import json, os, re, tempfile, uuid, pytest
from pathlib import Path
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.session import *
from test_session_gen import claude_session, codex_session, session_text
from test_session_edit import check_chain, norm, cc, cx, need, dup_session, cc_walk, said

def recs_of(p): return [json.loads(l) for l in Path(p).read_text(encoding='utf-8').rstrip('\n').split('\n')]

def check_claude_fork(src, out):
    "What `claude --resume <id>` relies on: `<id>.jsonl` in the project's folder, that id as every record's sessionId, uuids all new, the chain whole"
    old,new = recs_of(src),check_chain(out)
    sid = out.stem
    assert uuid.UUID(sid) and out.parent==Path(src).parent
    assert {r['sessionId'] for r in new if 'sessionId' in r}=={sid}
    olds = {r['uuid'] for r in old if 'uuid' in r} | {r['sessionId'] for r in old if 'sessionId' in r}
    assert not olds & set(re.findall(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', out.read_text())), 'an old id is left in the fork'
    assert len(new)==len(old)

def check_codex_fork(src, out):
    "What `codex resume <id>` relies on: `rollout-<time>-<id>.jsonl`, a session_meta first whose id is that id (a UUID v7), the old id nowhere"
    new = recs_of(out)
    m = re.fullmatch(r'rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-(.{36})\.jsonl', out.name)
    assert m and new[0]['type']=='session_meta' and new[0]['payload']['id']==m[1] and uuid.UUID(m[1]).version==7
    assert recs_of(src)[0]['payload']['id'] not in out.read_text()

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(claude_session(), codex_session()))
def test_fork_is_a_valid_new_session(recs):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d)/'s.jsonl'
        src.write_text(session_text(recs, [0]*len(recs)))
        before = src.read_bytes()
        dlg = sess2dlg(src)
        with pytest.raises(ValueError, match='give the path'): dlg2sess(dlg)
        out = dlg2sess(dlg, fork=True)  # a fork goes beside its source by default
        (check_codex_fork if recs[0]['type']=='session_meta' else check_claude_fork)(src, out)
        assert src.read_bytes()==before and norm(sess2dlg(out))==norm(dlg)
        with pytest.raises(FileExistsError): dlg2sess(dlg, out)
        with pytest.raises(ValueError, match='never written over'): dlg2sess(dlg, src, force=True)
        assert dlg2sess(dlg, out, force=True).read_bytes()==before
        with pytest.raises(ValueError, match='is the folder'): dlg2sess(dlg, out, fork=True)

@need
@pytest.mark.parametrize('which', ['claude', 'codex'])
def test_fork_of_real_session(tmp_path, which):
    src = tmp_path/('e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl' if which=='claude' else 'rollout-2026-07-19T15-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl')
    src.write_bytes((cc if which=='claude' else cx).read_bytes())
    dlg = sess2dlg(src)
    out = dlg2sess(dlg, fork=True)
    (check_claude_fork if which=='claude' else check_codex_fork)(src, out)
    assert src.read_bytes()==(cc if which=='claude' else cx).read_bytes()
    assert norm(sess2dlg(out))==norm(dlg)

@need
def test_source_read_by_relative_path_stays_guarded(tmp_path, monkeypatch):
    "A session read by a relative path: its fork still lands beside it, and it is still refused as a target, from any working folder"
    proj,other = tmp_path/'proj',tmp_path/'other'
    proj.mkdir(); other.mkdir()
    src = proj/'s.jsonl'; src.write_bytes(cc.read_bytes())
    monkeypatch.chdir(proj)
    dlg = sess2dlg('s.jsonl')
    dlg.messages[0].content += ' (edited)'
    monkeypatch.chdir(other)
    out = dlg2sess(dlg, fork=True)
    assert out.parent==proj and list(other.iterdir())==[]
    with pytest.raises(ValueError, match='never written over'): dlg2sess(dlg, src, force=True)
    assert src.read_bytes()==cc.read_bytes()

def test_subagent_file_fork_is_refused(tmp_path):
    "A subagent's own file can't be forked into a session the agent resumes (Claude Code resumes no subagent alone): refused, saying so, and nothing written"
    sid = '11111111-2222-3333-4444-555555555555'
    env = dict(isSidechain=True, agentId='a1b2', userType='external', cwd='/w', sessionId=sid, version='2.1.0', timestamp='2026-01-01T00:00:00.000Z')
    sub = tmp_path/sid/'subagents'; sub.mkdir(parents=True)
    recs = [dict(parentUuid=None, uuid=str(uuid.UUID(int=1)), type='user', message=dict(role='user', content='look X up'), **env),
            dict(parentUuid=str(uuid.UUID(int=1)), uuid=str(uuid.UUID(int=2)), type='assistant', requestId='r', message=dict(id='m', role='assistant', content=[dict(type='text', text='X is 7')]), **env)]
    p = sub/'agent-a1b2.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    dlg = sess2dlg(p)
    dlg[0].content = 'look Y up'
    with pytest.raises(ValueError, match="subagent's conversation"): dlg2sess(dlg, fork=True)
    assert os.listdir(sub)==['agent-a1b2.jsonl']
    assert sess2dlg(dlg2sess(dlg, tmp_path/'sub.jsonl'))[0].content=='look Y up'  # written to a file, as a subagent's

def test_fork_of_a_resumed_session_names_one_id(tmp_path):
    "A resumed session's file names two session ids: its fork names the fork's alone, everywhere"
    from test_session_edit import _resumed
    out = dlg2sess(sess2dlg(_resumed(tmp_path, '11111111-2222-4333-8444-555555555555.jsonl')), fork=True)
    assert {r['sessionId'] for r in check_chain(out) if 'sessionId' in r}=={out.stem}
    assert '22222222-2222-4333-8444-555555555555' not in out.read_text()

def test_codex_fork_goes_in_todays_day_folder(tmp_path):
    "A Codex fork of a rollout in an older day folder goes where Codex puts a session started now: today's day folder under the same sessions root, named for now, its session_meta's time now; a source in no day folder keeps its fork beside it"
    import datetime
    from test_session_edit import _small_codex
    day = tmp_path/'sessions'/'2026'/'01'/'01'; day.mkdir(parents=True)
    src = _small_codex(day)
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    out = dlg2sess(sess2dlg(src), fork=True)
    check_codex_fork(src, out)
    now = datetime.datetime.now()
    assert out.parent in [tmp_path/'sessions'/d.strftime('%Y')/d.strftime('%m')/d.strftime('%d') for d in (now, now-datetime.timedelta(seconds=5))]
    assert out.name.startswith('rollout-' + out.parent.relative_to(tmp_path/'sessions').as_posix().replace('/', '-'))
    meta = recs_of(out)[0]
    for ts in (meta['timestamp'], meta['payload']['timestamp']):
        assert datetime.datetime.fromisoformat(ts.replace('Z', '+00:00'))>=before
    flat = tmp_path/'flat'; flat.mkdir()
    assert dlg2sess(sess2dlg(_small_codex(flat)), fork=True).parent==flat

def test_fork_default_folder_only_beside_a_source_that_is_here(tmp_path):
    "A fork without `path` goes beside its source only when that file is on this machine: a notebook from elsewhere whose stored source names a missing file (a place its author chose) is a ValueError asking for the folder, and no folder is made; with `path` it forks"
    from dialog.ipynb import read_ipynb
    from test_session_edit import _small
    dlg = sess2dlg(_small(tmp_path))
    away = tmp_path/'victim'/'.config'/'autostart'
    dlg.meta['dialog']['session']['source'] = str(away/'x.jsonl')
    dlg.save(tmp_path/'shared.ipynb')
    shared = read_ipynb(tmp_path/'shared.ipynb')
    with pytest.raises(ValueError, match='not on this machine: give the folder'): dlg2sess(shared, fork=True)
    assert not (tmp_path/'victim').exists()
    (here := tmp_path/'here').mkdir()
    assert dlg2sess(shared, here, fork=True).parent==here


@pytest.mark.parametrize('whole', [False, True, 'reply'])
def test_fork_of_a_session_with_a_record_written_twice(tmp_path, whole):
    "A record Claude Code wrote twice (one uuid) is written twice under one new uuid, as its source holds it: the fork's ids are new, its chain has no cycle (the later copy followed itself), Claude Code resumes it as its source, and it reads as its source (a copy given an id of its own read twice)"
    src = dup_session(tmp_path, whole)
    out = dlg2sess(sess2dlg(src), tmp_path, fork=True)
    new,old = recs_of(out),recs_of(src)
    us = [r['uuid'] for r in new]
    assert len(us)==len(old) and len(set(us))==len({r['uuid'] for r in old}) and not set(us) & {r['uuid'] for r in old}
    assert all(r.get('parentUuid')!=r['uuid'] for r in new)
    assert said(cc_walk(new))==said(cc_walk(old))==[f'{k} {i}' for i in range(3) for k in ('prompt', 'answer')]
    a,b = sess2dlg(out),sess2dlg(src)
    assert [(m.content, m.ai_res) for m in a.messages]==[(m.content, m.ai_res) for m in b.messages]

def test_a_fork_leaves_what_was_said_that_equals_an_id(tmp_path):
    "R38d: a fork replaced every string equal to an old id anywhere, so a prompt that is the session id (pasted to ask about it), or a tool's output that printed a record's uuid, changed to the new random ids; ids change where they are ids alone"
    sid = '11111111-2222-4333-8444-555555555555'
    u = [f'aaaaaaaa-0000-4000-8000-00000000000{i}' for i in range(1, 5)]
    rs = [dict(parentUuid=None, type='user', uuid=u[0], sessionId=sid, message=dict(role='user', content=sid)),
          dict(parentUuid=u[0], type='assistant', uuid=u[1], sessionId=sid, message=dict(role='assistant', content=[dict(type='tool_use', id='toolu_1', name='Bash', input=dict(command=f'echo {u[0]}'))])),
          dict(parentUuid=u[1], type='user', uuid=u[2], sessionId=sid, message=dict(role='user', content=[dict(type='tool_result', tool_use_id='toolu_1', content=u[0])]), toolUseResult=dict(stdout=u[0])),
          dict(parentUuid=u[2], type='assistant', uuid=u[3], sessionId=sid, message=dict(role='assistant', content=[dict(type='text', text=sid)]))]
    rs += [dict(type='custom-title', customTitle=sid, sessionId=sid), dict(type='ai-title', aiTitle=u[1], sessionId=sid)]  # (R39b: titles are said too)
    (p := tmp_path/'src'/f'{sid}.jsonl').parent.mkdir()
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    o = [json.loads(l) for l in dlg2sess(sess2dlg(p), fork=True, path=tmp_path).read_text().splitlines()]
    conv = [r for r in o if 'message' in r]
    assert [r['message'] for r in conv]==[r['message'] for r in rs[:4]] and conv[2]['toolUseResult']==dict(stdout=u[0])
    assert {r['sessionId'] for r in o}.isdisjoint({sid}) and not {r['uuid'] for r in conv} & set(u)
    assert [r['parentUuid'] for r in conv]==[None, *(r['uuid'] for r in conv[:-1])]
    assert [r.get('customTitle') or r.get('aiTitle') for r in o if r['type'] in ('custom-title', 'ai-title')]==[sid, u[1]]

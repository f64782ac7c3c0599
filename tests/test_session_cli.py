"`nbdialog sessions` and `nbdialog convert` for agent sessions"
import json, os, pytest
from pathlib import Path
from dialog.cli import main
from dialog.ipynb import read_ipynb
from test_session_edit import cc, cx, need, check_chain

@pytest.fixture
def homes(tmp_path, monkeypatch):
    "The agents' own folders, moved by their environment variables"
    cl,co = tmp_path/'claude',tmp_path/'codex'
    (cl/'projects'/'-w-proj').mkdir(parents=True); (co/'sessions'/'2026'/'07'/'19').mkdir(parents=True)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cl)); monkeypatch.setenv('CODEX_HOME', str(co))
    return cl/'projects'/'-w-proj',co/'sessions'/'2026'/'07'/'19'

@need
def test_sessions_lists_newest_first(homes, capsys):
    a,b = homes
    (a/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl').write_bytes(cc.read_bytes())
    (a/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044'/'subagents').mkdir(parents=True)
    (a/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044'/'subagents'/'agent-1.jsonl').write_bytes(cc.read_bytes())  # a subagent's file: not a session of its own
    (b/'rollout-2026-07-19T15-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl').write_bytes(cx.read_bytes())
    (a/'notes.jsonl').write_text('{"a": 1}\n')
    assert main(['sessions'])==0
    out = capsys.readouterr().out.splitlines()
    assert [l.split()[2] for l in out]==['codex', 'claude']
    assert 'Execute fixture and math operations' in out[1] and 'Measure the flux.' in out[0]
    assert main(['sessions', 'e12b'])==0 and len(capsys.readouterr().out.splitlines())==1
    assert main(['sessions', '--agent', 'codex'])==0 and 'codex' in capsys.readouterr().out
    assert main(['sessions', 'ffff'])==1

def test_sessions_warns_of_a_jsonl_it_cannot_open(homes, capsys):
    "`nbdialog sessions` names a `.jsonl` it can't open to tell whether it is a session (a link to nowhere), one warning line on stderr, as the readers report it; the sessions are still listed"
    a,_ = homes
    (a/f'{"1"*8}-2222-3333-4444-555555555555.jsonl').write_text(json.dumps(dict(parentUuid=None, sessionId='s1', type='user', message=dict(role='user', content='hello'), uuid='u1', cwd='/x', timestamp='2026-01-01T00:00:00Z')) + '\n')
    os.symlink(a/'nowhere.jsonl', a/'gone.jsonl')
    assert main(['sessions'])==0
    out,err = capsys.readouterr()
    assert 'hello' in out and err == f"nbdialog sessions: warning: {a/'gone.jsonl'}: a link to nowhere: a .jsonl file that can't be opened to tell whether it is an agent's session\n"

@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes here')
def test_sessions_warning_of_a_name_with_a_line_break_is_one_line(tmp_path, capsys):
    "A file name holding a line break (anyone who can write in the folder names it): `nbdialog sessions`' warning of it is one line, the break printed as `\\n` as a row's field is, so the name forges no line that reads as the command's own"
    forged = 'nbdialog sessions: warning: all sessions verified'
    os.mkfifo(tmp_path/f'x\n{forged}.jsonl')
    assert main(['sessions', '--root', str(tmp_path)])==1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"nbdialog sessions: warning: {tmp_path}/x\\n{forged}.jsonl: not a regular file (a named pipe, a device?): a .jsonl file that can't be opened to tell whether it is an agent's session",
                   'no sessions found']

@need
def test_convert_both_ways(tmp_path, capsys):
    nb = tmp_path/'s.ipynb'
    assert main(['convert', str(cc), '--to', 'ipynb', '-o', str(nb)])==0
    assert main(['convert', str(nb), '--to', 'claude', '-o', str(tmp_path/'back.jsonl')])==0
    assert (tmp_path/'back.jsonl').read_bytes()==cc.read_bytes()
    assert main(['convert', str(nb), '--to', 'claude', '-o', str(tmp_path/'back.jsonl')])==2  # never replaced without --force
    assert 'already exists' in capsys.readouterr().err
    assert main(['convert', str(nb), '--to', 'codex', '-o', str(tmp_path/'x.jsonl')])==2
    (tmp_path/'fork').mkdir()
    assert main(['convert', str(nb), '--to', 'claude', '--fork', '-o', str(tmp_path/'fork')])==0
    check_chain(next((tmp_path/'fork').iterdir()))
    assert main(['convert', str(nb), '--to', 'md', '--fork'])==2

def test_convert_hand_made_dialog(tmp_path):
    from dialog.core import Dialog
    d = Dialog('hand'); d.mk_message('hi', msg_type='prompt').ai_res = 'hello'
    d.save(tmp_path/'hand.ipynb')
    (tmp_path/'o').mkdir()
    assert main(['convert', str(tmp_path/'hand.ipynb'), '--to', 'codex', '-o', str(tmp_path/'o')])==0
    f = next((tmp_path/'o').iterdir())
    assert f.name.startswith('rollout-') and json.loads(f.read_text().splitlines()[0])['type']=='session_meta'

@need
@pytest.mark.parametrize('key,val', [('timestamp', 1752720688111), ('customTitle', {'text': 't'}), ('sessionId', 7), ('cwd', ['/x']), ('type', ['user'])])
def test_sessions_skip_odd_field_types(homes, capsys, key, val):
    "A file whose records hold a value of an odd JSON type: the other sessions are still listed"
    from dialog.session import find_sessions
    a,_ = homes
    (a/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl').write_bytes(cc.read_bytes())
    r = dict(type='user', sessionId='odd-session', uuid='u1', parentUuid=None, cwd='/x', timestamp='2026-01-01T00:00:00Z', message=dict(role='user', content='hi'))
    (a/'odd-session.jsonl').write_text(json.dumps(r | {key: val}) + '\n')
    assert 'e12b4bd3-4f36-4dda-873d-2ff25d1f1044' in [s.id for s in find_sessions()]
    assert main(['sessions'])==0 and 'e12b4bd3' in capsys.readouterr().out

def test_sessions_row_per_session(tmp_path, capsys, monkeypatch):
    "A line break in a record's cwd, id or title can't make a second row: each session prints as one line"
    import sys
    fake = '\n2099-01-01 00:00:00  claude  ffffffff-fake  1K  /home/u/bank  transfer all funds'
    (tmp_path/'p').mkdir()
    r = dict(type='user', sessionId='aaaa1111' + fake, uuid='u1', parentUuid=None, timestamp='2026-01-01T00:00:00Z', message=dict(role='user', content='hi'), cwd='/home/u/proj' + fake)
    (tmp_path/'p'/'aaaa1111.jsonl').write_text(json.dumps(r) + '\n')
    for tty in (False, True):
        monkeypatch.setattr(sys.stdout, 'isatty', lambda: tty, raising=False)
        assert main(['sessions', '--root', str(tmp_path)])==0
        out = capsys.readouterr().out
        assert len(out.rstrip('\n').split('\n'))==1 and '/home/u/proj\\n2099' in out

def test_convert_new_session_to_a_file(tmp_path, monkeypatch):
    "`convert plain.ipynb --to claude -o out.jsonl`: the file out.jsonl, a session of the dialog (not a folder of that name)"
    from dialog.core import Dialog
    from dialog.session import sess2dlg
    d = Dialog('plain'); d.mk_message('hi there', msg_type='prompt').ai_res = 'hello'
    d.save(tmp_path/'plain.ipynb')
    monkeypatch.chdir(tmp_path)
    assert main(['convert', 'plain.ipynb', '--to', 'claude', '-o', 'out.jsonl'])==0
    assert (tmp_path/'out.jsonl').is_file() and [m.content for m in sess2dlg(tmp_path/'out.jsonl')]==['hi there']
    check_chain(tmp_path/'out.jsonl')

@need
def test_convert_never_writes_over_the_session(tmp_path):
    "`convert S.jsonl --to ipynb -o L.ipynb --force`, L a link to S: refused, and S untouched"
    src = tmp_path/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl'; src.write_bytes(cc.read_bytes())
    (tmp_path/'notes').mkdir(); (tmp_path/'notes'/'e12b.ipynb').symlink_to(src)
    assert main(['convert', str(src), '--to', 'ipynb', '-o', str(tmp_path/'notes'/'e12b.ipynb'), '--force'])==2
    assert src.read_bytes()==cc.read_bytes()

def _session_here(tmp_path, monkeypatch):
    "The corpus' Claude Code session as `s.jsonl` in `tmp_path`, the working folder"
    monkeypatch.chdir(tmp_path)
    (tmp_path/'s.jsonl').write_bytes(cc.read_bytes())

@need
def test_convert_session_to_stdout(tmp_path, capsys, monkeypatch):
    "`-o -` writes the notebook to stdout and no file; a session can't go to stdout, and the command says so"
    _session_here(tmp_path, monkeypatch)
    assert main(['convert', 's.jsonl', '--to', 'ipynb', '-o', '-'])==0
    assert json.loads(capsys.readouterr().out)['cells'] and sorted(os.listdir(tmp_path))==['s.jsonl']
    assert main(['convert', 's.jsonl', '--to', 'ipynb', '-o', 'd.ipynb'])==0
    assert main(['convert', 'd.ipynb', '--to', 'claude', '-o', '-'])==2
    assert 'not stdout' in capsys.readouterr().err

@need
def test_convert_errors_name_the_options(tmp_path, capsys, monkeypatch):
    "The command's errors name its own options (--force, -o, --fork), not the Python API's arguments"
    _session_here(tmp_path, monkeypatch)
    assert main(['convert', 's.jsonl', '--to', 'ipynb', '-o', 'd.ipynb'])==0
    (tmp_path/'out.jsonl').write_text('old\n'); capsys.readouterr()
    assert main(['convert', 'd.ipynb', '--to', 'claude', '-o', 'out.jsonl'])==2
    err = capsys.readouterr().err
    assert '--force' in err and 'force=True' not in err
    assert main(['convert', 'd.ipynb', '--to', 'claude'])==2
    err = capsys.readouterr().err
    assert '-o' in err and '--fork' in err and 'dlg2sess' not in err

def test_sessions_leave_out_top_level_subagent_files(tmp_path, capsys):
    "Older Claude Code kept a subagent's transcript beside the sessions as `agent-<id>.jsonl`: not listed as a session"
    sid = '11111111-2222-3333-4444-555555555555'
    def recs(side, first):
        e = dict(isSidechain=side, userType='external', cwd='/w', sessionId=sid, version='2.0.10', **({'agentId': 'a1b2c3d4'} if side else {}))
        return [dict(parentUuid=None, uuid='u1', timestamp='2026-01-01T00:00:00.000Z', type='user', message=dict(role='user', content=first), **e)]
    proj = tmp_path/'-w'; proj.mkdir()
    (proj/f'{sid}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs(False, 'fix the bug')))
    (proj/'agent-a1b2c3d4.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs(True, 'search the repo for X')))
    from dialog.session import find_sessions
    assert [s.path.name for s in find_sessions(root=tmp_path)]==[f'{sid}.jsonl']
    assert main(['sessions', '--root', str(tmp_path)])==0 and len(capsys.readouterr().out.splitlines())==1

def test_convert_session_errors_name_options_not_arguments(tmp_path, capsys):
    "An error dlg2sess raises reads, at the command line, with the command's options (--fork, -o), not the function's arguments"
    import uuid
    from dialog.session import sess2dlg
    sid = '11111111-2222-3333-4444-555555555555'
    env = dict(isSidechain=True, agentId='a1b2', userType='external', cwd='/w', sessionId=sid, version='2.1.0', timestamp='2026-01-01T00:00:00.000Z')
    sub = tmp_path/sid/'subagents'; sub.mkdir(parents=True)
    p = sub/'agent-a1b2.jsonl'
    p.write_text(json.dumps(dict(parentUuid=None, uuid=str(uuid.UUID(int=1)), type='user', message=dict(role='user', content='look X up'), **env)) + '\n')
    sess2dlg(p).save(tmp_path/'sub.ipynb')
    assert main(['convert', str(tmp_path/'sub.ipynb'), '--to', 'claude', '--fork'])==2
    err = capsys.readouterr().err
    assert "subagent's conversation" in err and '-o FILE.jsonl' in err and 'path=' not in err and 'dlg2sess' not in err


@pytest.mark.parametrize('agent', ['claude', 'codex'])
@pytest.mark.parametrize('via', ['itself', 'a link'])
def test_a_dialog_is_never_written_over_by_its_own_session(tmp_path, agent, via):
    "`convert talk.ipynb --to codex -o talk.ipynb --force` (or -o a link to it) is refused, the dialog as it was, as every other conversion refuses its source (it was replaced by JSON Lines)"
    from dialog.core import Dialog
    d = Dialog('talk'); d.mk_message('Hi', msg_type='prompt', output='Hello')
    p = d.save(tmp_path/'talk.ipynb'); before = p.read_bytes()
    o = p if via=='itself' else tmp_path/'out.jsonl'
    if via=='a link': o.symlink_to(p)
    assert main(['convert', str(p), '--to', agent, '-o', str(o), '--force'])==2
    assert p.read_bytes()==before

def test_sessions_of_a_root_that_is_no_folder(tmp_path, capsys):
    "`sessions --root` naming no folder says so and exits 2, as stats and mcp do (it said 'no sessions found', exit 1)"
    (f := tmp_path/'file').write_text('x')
    for r,says in ((tmp_path/'typo', 'no such folder'), (f, 'not a folder')):
        assert main(['sessions', '--root', str(r)])==2
        assert says in capsys.readouterr().err

"What a session reader and writer do with files that are no sessions or change under them: named pipes, JSON nested too deep, a symlink to the source swapped in"
import json, os, socket, subprocess, sys, shutil, tempfile, pytest
from datetime import datetime
from hypothesis import given, settings, strategies as st
from pathlib import Path
import dialog.session as S
from dialog.session import sess2dlg, dlg2sess, find_sessions, sess_info
from test_session_edit import cc, need

SID,BAD = '11111111-2222-3333-4444-555555555555','22222222-2222-3333-4444-555555555555'
def rec(k, **kw):
    return dict(uuid=f'00000000-0000-0000-0000-{k:012d}', parentUuid=None if k==1 else f'00000000-0000-0000-0000-{k-1:012d}',
                sessionId=SID, cwd='/w', timestamp=f'2026-01-01T00:00:0{k}.000Z', isSidechain=False, userType='external', **kw)
good = [rec(1, type='user', message=dict(role='user', content='hi')),
        rec(2, type='assistant', requestId='r', message=dict(id='m', role='assistant', content=[dict(type='text', text='hello')]))]
def write(p, recs): p.write_text(''.join(json.dumps(r) + '\n' for r in recs)); return p

@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes here')
def test_named_pipe_is_refused_at_once(tmp_path):
    "A named pipe is no session: `sess2dlg` and `sess_info` refuse it at once (in a subprocess: a hang is a timeout, not a stuck test run)"
    f = tmp_path/f'{SID}.jsonl'; os.mkfifo(f)
    code = ('import sys\nfrom dialog.session import sess2dlg, sess_info\n'
            'for fn in (sess2dlg, sess_info):\n'
            '    try: fn(sys.argv[1])\n'
            '    except ValueError as e: print("refused:", e)\n')
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, '-c', code, str(f)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(root)))
    out = r.stdout.splitlines()
    assert len(out)==2 and all('not a regular file' in l and str(f) in l for l in out), (r.stdout, r.stderr)

@pytest.mark.skipif(not hasattr(socket, 'AF_UNIX'), reason='no Unix sockets here')
def test_socket_is_refused_as_no_regular_file(tmp_path):
    "A Unix socket named `.jsonl` (which can't be opened at all) is refused by `sess2dlg` and `sess_info` as a named pipe is, not as a missing device"
    f = tmp_path/f'{SID}.jsonl'
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(f))
        for fn in (sess2dlg, sess_info):
            with pytest.raises(ValueError, match='not a regular file') as e: fn(f)
            assert str(f) in str(e.value)

def test_deep_json_line_is_no_session_and_stops_no_listing(tmp_path):
    "One deeply nested (valid) JSON line: `sess2dlg` says which file and line as a ValueError; `find_sessions` lists the other sessions"
    proj = tmp_path/'-w'; proj.mkdir()
    write(proj/f'{SID}.jsonl', good)
    n = 50000
    (proj/f'{BAD}.jsonl').write_text('{"type":"user","sessionId":"%s","x":%s%s}\n' % (BAD, '['*n, ']'*n))
    assert [s.id for s in find_sessions(root=tmp_path)]==[SID]
    with pytest.raises(ValueError, match=rf'{BAD}\.jsonl, line 1: .*nested too deep'): sess2dlg(proj/f'{BAD}.jsonl')
    # deep in a later line too, after records that read
    write(proj/f'{BAD}.jsonl', good); (proj/f'{BAD}.jsonl').open('a').write('{"x":%s%s}\n{"y":1}\n' % ('['*n, ']'*n))
    with pytest.raises(ValueError, match=r'line 3: .*nested too deep'): sess2dlg(proj/f'{BAD}.jsonl')

def test_a_stream_json_run_is_no_session(tmp_path):
    "A saved `claude -p --output-format stream-json` run (the Agent SDK's messages: `type`, `uuid`, `session_id`) is no Claude Code transcript: not told, listed, shown nor read as one"
    from dialog.dataset import dlg_paths
    run = [dict(type='system', subtype='init', cwd='/w', session_id='9f1c', tools=['Bash'], model='m', uuid='0b6e6c3a-1d6e-4d0e-9a43-6a3f1e2b7c10'),
           dict(type='assistant', message=dict(id='m1', type='message', role='assistant', content=[dict(type='text', text='hi')]), parent_tool_use_id=None, session_id='9f1c', uuid='5a1b2c3d-0000-4000-8000-000000000001'),
           dict(type='user', message=dict(role='user', content='go on'), parent_tool_use_id=None, session_id='9f1c', uuid='5a1b2c3d-0000-4000-8000-000000000002'),
           dict(type='result', subtype='success', is_error=False, result='hi', session_id='9f1c', uuid='5a1b2c3d-0000-4000-8000-000000000003')]
    proj = tmp_path/'-w'; proj.mkdir()
    write(proj/'9f1c.jsonl', run); write(proj/f'{SID}.jsonl', good)
    assert S.sess_agent(proj/'9f1c.jsonl') is None and S.sess_agent(proj/'9f1c.jsonl', maxbytes=60) is None
    with pytest.raises(ValueError, match='not a Claude Code or Codex session'): sess_info(proj/'9f1c.jsonl')
    with pytest.raises(ValueError, match='not a Claude Code or Codex session'): sess2dlg(proj/'9f1c.jsonl')
    assert [s.id for s in find_sessions(root=tmp_path)]==[SID] and dlg_paths(proj)==[proj/f'{SID}.jsonl']
    # a transcript is still told from its first record cut short before its `sessionId`: `parentUuid` opens it
    first = dict(parentUuid=None, isSidechain=False, promptId='p1', type='user', message=dict(role='user', content='x'*500), uuid='u1', sessionId=SID)
    write(tmp_path/'cut.jsonl', [first])
    assert S.sess_agent(tmp_path/'cut.jsonl', maxbytes=120)=='claude'

def test_listing_a_session_holds_no_huge_line_whole(tmp_path):
    "`sess_info` (what `find_sessions` lists) reads at most `sess_probe` bytes, as `sess_agent` does: a 20 MB tool result costs no 20 MB line in memory, and the facts before it are shown"
    import tracemalloc
    big = rec(3, type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id='t1', content='x'*20_000_000)]))
    title = dict(type='ai-title', aiTitle='After the log', sessionId=SID)  # past the limit: not read
    p = write(tmp_path/f'{SID}.jsonl', [*good, big, title])
    tracemalloc.start()
    try: s = sess_info(p); peak = tracemalloc.get_traced_memory()[1]
    finally: tracemalloc.stop()
    assert peak < 4*S.sess_probe, peak
    assert (s.agent, s.id, s.project, s.start, s.title)==('claude', SID, '/w', '2026-01-01T00:00:01.000Z', 'hi')
    # the title is read where it lies within the limit
    write(p, [*good, title, big])
    assert sess_info(p).title=='After the log'

_kinds = st.sampled_from([good[0], good[1], dict(type='ai-title', aiTitle='T', sessionId=SID), dict(messages=[dict(role='user', content='z'*300)]),
                          dict(type='system', subtype='init', session_id='9f1c', uuid='u'), dict(type='session_meta', payload=dict(id='c1', cwd='/w')),
                          rec(3, type='user', message=dict(role='user', content='y'*400))])
@settings(max_examples=60, deadline=None)
@given(st.lists(_kinds, max_size=6), st.integers(20, 3000), st.sampled_from([None, 'claude', 'codex']))
def test_sess_info_takes_what_sess_agent_tells(rs, probe, agent):
    "Whatever the limit cuts: `sess_info` lists a file iff `sess_agent` tells it a session, as the same agent's (one read, `_head_recs`, serves both)"
    with tempfile.TemporaryDirectory() as d, pytest.MonkeyPatch.context() as mp:
        mp.setattr(S, 'sess_probe', probe)
        p = write(Path(d)/'s.jsonl', rs)
        a = S.sess_agent(p, agent)
        try: got = sess_info(p, agent).agent
        except ValueError: got = None
        assert got==a

@need
def test_symlink_to_source_swapped_in_before_the_write(tmp_path, monkeypatch):
    "`dlg2sess(..., force=True)`: the target turned into a link to the source session between the check and the write is refused; the source is untouched"
    src = tmp_path/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl'; shutil.copy(cc, src)
    before = src.read_bytes()
    dlg = sess2dlg(src)
    dlg[0].content = 'EDITED prompt'
    out = tmp_path/'out.jsonl'; out.write_text('an old export\n')
    real = S.atomic_write
    def swapped(p, *a, **k):
        if Path(p)==out: out.unlink(); out.symlink_to(src)
        return real(p, *a, **k)
    monkeypatch.setattr(S, 'atomic_write', swapped)
    with pytest.raises(ValueError, match='nothing written'): dlg2sess(dlg, out, force=True)
    assert src.read_bytes()==before
    monkeypatch.setattr(S, 'atomic_write', real)
    # a link made before: resolved once, it is the source, refused as such
    with pytest.raises(ValueError, match='never written over'): dlg2sess(dlg, out, force=True)
    assert src.read_bytes()==before
    out.unlink(); assert '"EDITED prompt"' in dlg2sess(dlg, out).read_text()

@pytest.mark.parametrize('kind', ['link to nowhere', 'named pipe', 'socket', 'mode 000', 'folder'])
def test_find_sessions_and_the_dataset_readers_give_one_reason(tmp_path, kind):
    "A `.jsonl` that can't be opened to tell whether it is a session: `find_sessions` and `dialog.dataset`'s readers give the same reason, `sess_kind`'s (a link to nowhere was 'a link to nowhere' in one and 'No such file or directory' in the other; a socket 'No such device or address' in both, not what isn't a regular file); a folder named `x.jsonl` is a folder to both, no bad entry, and `sess_kind` says so"
    from dialog.dataset import read_dialogs
    import warnings
    if kind=='named pipe' and not hasattr(os, 'mkfifo'): pytest.skip('no named pipes here')
    if kind=='mode 000' and os.geteuid()==0: pytest.skip('root opens any file')
    proj = tmp_path/'-w'; proj.mkdir(); write(proj/f'{SID}.jsonl', good); x = proj/'x.jsonl'
    if kind=='link to nowhere': os.symlink(tmp_path/'nowhere.jsonl', x)
    elif kind=='named pipe': os.mkfifo(x)
    elif kind=='socket':  # a Unix socket (an agent's IPC endpoint, say): told by its `stat`, as what isn't a regular file
        import socket
        if not hasattr(socket, 'AF_UNIX'): pytest.skip('no Unix sockets here')
        with socket.socket(socket.AF_UNIX) as so: so.bind(str(x))
    elif kind=='folder': x.mkdir()
    else: x.write_text('{}\n'); x.chmod(0)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        assert [s.id for s in find_sessions(root=tmp_path)] == [SID]
    found = [str(w.message) for w in ws]
    _,es = read_dialogs(tmp_path, workers=0, on_error='collect')
    read = [f'{e.filename}: {e.strerror}' if isinstance(e, OSError) else str(e) for e in es]
    assert found == read
    a,e = S.sess_kind(x)
    assert a is None and (e.filename if isinstance(e, OSError) else e.fname) == str(x)
    why = e.strerror if isinstance(e, OSError) else e.problem
    want = {'link to nowhere': 'a link to nowhere', 'named pipe': 'not a regular file (a named pipe, a device?)', 'socket': 'not a regular file (a named pipe, a device?)', 'mode 000': 'Permission denied', 'folder': 'a folder'}[kind]
    assert why == f"{want}: a .jsonl file that can't be opened to tell whether it is an agent's session"
    assert found == ([] if kind=='folder' else [f'{x}: {why}'])

@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes here')
def test_find_sessions_warns_of_what_it_cannot_open_as_readers_report_it(tmp_path):
    "A named pipe or a link to nowhere named `.jsonl`, which every reader lists as a bad entry (`dlg_paths`, `read_dialogs`): `find_sessions` says which and why in a warning, unopened (no wait on the pipe), and still lists the sessions"
    from dialog.dataset import dlg_paths
    import warnings
    proj = tmp_path/'-w'; proj.mkdir()
    write(proj/f'{SID}.jsonl', good); os.mkfifo(proj/'pipe.jsonl'); os.symlink(tmp_path/'nowhere.jsonl', proj/'gone.jsonl')
    (proj/'notes.jsonl').write_text('{"a": 1}\n')  # JSON Lines of another kind: left out without a word, as the readers do
    assert sorted(p.name for p in dlg_paths(tmp_path)) == [f'{SID}.jsonl', 'gone.jsonl', 'pipe.jsonl']
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        assert [s.id for s in find_sessions(root=tmp_path)] == [SID]
    said = sorted(str(w.message) for w in ws)
    tail = ": a .jsonl file that can't be opened to tell whether it is an agent's session"
    assert said == [f'{proj/"gone.jsonl"}: a link to nowhere{tail}', f'{proj/"pipe.jsonl"}: not a regular file (a named pipe, a device?){tail}']

def _as_a_user(code):
    "Run Python `code` as a user the system's permissions bind (uid 65534 through `setpriv` when we are root): its stdout, as JSON"
    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, '-c', code]
    if os.geteuid()==0:
        if not shutil.which('setpriv'): pytest.skip('root, and no setpriv to drop to another user')
        cmd = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir(),
                       env=dict(os.environ, PYTHONPATH=str(root)))
    assert r.returncode==0, r.stderr[-3000:]
    return json.loads(r.stdout)

_in_a_tree = '''
import json, os, shutil, tempfile, warnings
from pathlib import Path
from dialog.session import find_sessions, sess_kind
from dialog.dataset import dlg_paths, read_dialogs
good = json.dumps(dict(type='user', sessionId='abc', cwd='/x', timestamp='2024-01-01T00:00:00Z', uuid='u1', parentUuid=None,
                       message=dict(role='user', content='hi'))) + '\\n'
d = Path(tempfile.mkdtemp())
try:
    (d/'good.jsonl').write_text(good)
    SETUP
    def words(e): return [type(e).__name__, str(e.filename), e.strerror] if isinstance(e, OSError) else [type(e).__name__, str(e)]
    res = dict(listed=sorted(str(p.relative_to(d)) for p in dlg_paths(d)))
    ds,es = read_dialogs(d, workers=0, on_error='collect')
    res['read'] = [words(e) for e in es]
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        res['found'] = [s.path.name for s in find_sessions(root=d)]
    res['warned'] = [str(w.message) for w in ws]
    CHECK
    print(json.dumps(res))
finally:
    for p in d.rglob('*'):
        if p.is_dir() and not p.is_symlink(): os.chmod(p, 0o755)
    shutil.rmtree(d, ignore_errors=True)
'''
def _tree(setup, check=''):
    "What the readers say of a tree with `good.jsonl` and what `setup` makes, read as a user the permissions bind"
    return _as_a_user(_in_a_tree.replace('SETUP', setup).replace('CHECK', check))

def test_a_jsonl_in_a_folder_that_can_be_listed_but_not_searched(tmp_path):
    "A `.jsonl` in a folder with read but no search permission (its `stat` fails too): `sess_kind` says why and never raises; `dlg_paths` lists it, `read_dialogs` collects it, `find_sessions` warns of it, each in its words, and the rest is read (they stopped on a bare `PermissionError`)"
    res = _tree("nox = d/'nox'; nox.mkdir(); (nox/'in.jsonl').write_text(good); os.chmod(nox, 0o644)",
                "a,e = sess_kind(nox/'in.jsonl'); res['kind'] = [a, words(e)]")
    why = "Permission denied: a .jsonl file that can't be opened to tell whether it is an agent's session"
    assert res['listed'] == ['good.jsonl', 'nox/in.jsonl'] and res['found'] == ['good.jsonl']
    f = res['kind'][1][1]
    assert f.endswith('/nox/in.jsonl') and res['kind'] == [None, ['PermissionError', f, why]]
    assert res['read'] == [['PermissionError', f, why]] and res['warned'] == [f'{f}: {why}']

def test_sess_kind_of_a_name_too_long_says_why(tmp_path):
    "A name longer than the system takes: `sess_kind` gives the system's reason (it raised, looking again at the file)"
    a,e = S.sess_kind(tmp_path/('x'*300 + '.jsonl'))
    assert a is None and isinstance(e, OSError) and e.strerror.endswith(": a .jsonl file that can't be opened to tell whether it is an agent's session")

def test_find_sessions_warns_of_a_folder_it_cannot_search(tmp_path):
    "A folder without read permission (one named `x.jsonl` too): `find_sessions` warns of each, in the words `read_dialogs` reports it with (`folder_err`'s), and lists the rest (`rglob` skipped it without a word); a folder that isn't there, as an agent's own may not be, is no news"
    res = _tree("""for n in ('shut', 'old.jsonl'): (d/n).mkdir(); (d/n/'s.jsonl').write_text(good); os.chmod(d/n, 0)""")
    why = "Permission denied (a folder: the dialogs in it can't be listed)"
    assert res['found'] == ['good.jsonl'] and [r[0] for r in res['read']] == ['PermissionError']*2
    assert res['warned'] == [f'{f}: {w}' for _,f,w in res['read']] and all(w==why for _,_,w in res['read'])
    assert sorted(Path(f).name for _,f,_ in res['read']) == ['old.jsonl', 'shut']
    import warnings
    with warnings.catch_warnings(): warnings.simplefilter('error'); assert find_sessions(root=tmp_path/'none') == []

def test_find_sessions_tells_a_session_by_its_records_not_its_name(tmp_path):
    "A Codex rollout saved under a name of its own, a Claude Code transcript named `rollout-…`: `find_sessions(root=…)` lists both, by what their records say, as `dlg_paths` does (it guessed the agent from the name and left both out without a word); a prefix finds them by id; a Claude Code subagent's `agent-<id>.jsonl` is still left out, a Codex rollout so named is not"
    from dialog.dataset import dlg_paths
    import warnings
    ts,cid = '2026-07-19T05:30:38.285Z','019f78da-e13e-72a2-9c10-aff27ecc7dfd'
    rs = [dict(timestamp=ts, type='session_meta', payload=dict(id=cid, timestamp=ts, cwd='/p', originator='codex_cli_rs', cli_version='0.50.0')),
          dict(timestamp=ts, type='response_item', payload=dict(type='message', role='user', content=[dict(type='input_text', text='Hi.')]))]
    write(tmp_path/'codex-renamed.jsonl', rs); write(tmp_path/'rollout-claude.jsonl', good)
    write(tmp_path/'agent-1.jsonl', good); write(tmp_path/'agent-codex.jsonl', rs)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        found = {s.path.name: s.agent for s in find_sessions(root=tmp_path)}
        assert found == {'codex-renamed.jsonl': 'codex', 'rollout-claude.jsonl': 'claude', 'agent-codex.jsonl': 'codex'}
        assert set(found) <= {p.name for p in dlg_paths(tmp_path)}
        assert [s.path.name for s in find_sessions(SID[:8], root=tmp_path)] == ['rollout-claude.jsonl']
        assert sorted(s.path.name for s in find_sessions(cid[:8], 'codex', root=tmp_path)) == ['agent-codex.jsonl', 'codex-renamed.jsonl']

def test_hidden_files_and_folders_are_listed_by_neither(tmp_path):
    "A session in a hidden folder (`.git`, `.ipynb_checkpoints`) or named with a dot: `find_sessions` leaves it out, as `dlg_paths` does (`is_hidden`, one rule)"
    from dialog.dataset import dlg_paths
    from dialog.session import is_hidden
    proj = tmp_path/'-w'; proj.mkdir()
    write(proj/f'{SID}.jsonl', good)
    for d in ('.git', '.ipynb_checkpoints'): (proj/d).mkdir(); write(proj/d/f'{SID}.jsonl', good)
    write(proj/f'.{SID}.jsonl', good)
    assert [s.path for s in find_sessions(root=tmp_path)] == dlg_paths(tmp_path) == [proj/f'{SID}.jsonl']
    assert is_hidden('.git') and not is_hidden('x.jsonl')


from test_session_edit import _rounds_session

@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_dlg2sess_writes_an_edited_session_into_a_folder_given_as_path(tmp_path, agent):
    "`path` a folder (no fork): the edited session is written into it under its agent's file name; never over the source, nor an existing file without force"
    src = _rounds_session(tmp_path/'s.jsonl', agent)
    dlg = sess2dlg(src)
    dlg[0].content = 'Prompt 1, again'
    out = tmp_path/'edited'; out.mkdir()
    p = dlg2sess(dlg, out)
    assert p.parent==out and p.is_file() and p.name.endswith('.jsonl')
    assert [m.content for m in sess2dlg(p)]==['Prompt 1, again', 'Prompt 2']
    if agent=='claude':
        assert p.name==f"{dlg.meta['dialog']['session']['id']}.jsonl"
        with pytest.raises(FileExistsError): dlg2sess(dlg, out)  # the file is there now: replaced only with force
        assert dlg2sess(dlg, out, force=True)==p
        # the source's own folder under the source's own name: the source, never written over
        src2 = src.with_name(p.name); src.rename(src2)
        d2 = sess2dlg(src2); d2[0].content = 'changed'
        with pytest.raises(ValueError, match='never written over'): dlg2sess(d2, tmp_path, force=True)


def test_sess_info_lists_a_renamed_session_by_its_last_name(tmp_path):
    "A Claude Code session renamed with /rename (a custom-title record appended) is listed by the last name given, over the AI's title, in a small file and after a big tool result"
    sid = '5b0c7d2e-1f3a-4c5d-8e9f-0a1b2c3d4e5f'
    env = dict(isSidechain=False, userType='external', cwd='/w/proj', sessionId=sid, version='2.1.0', timestamp='2026-07-17T02:51:28.111Z')
    def session(big):
        res = [dict(parentUuid=None, type='user', message=dict(role='user', content='Refactor the login code'), uuid='u1', **env),
               dict(type='ai-title', aiTitle='Refactoring login code', sessionId=sid),
               dict(type='custom-title', customTitle='first-name', sessionId=sid),
               dict(parentUuid='u1', type='assistant', message=dict(id='m1', type='message', role='assistant', content=[dict(type='text', text='x'*big or 'Done.')]), uuid='a1', **env),
               dict(type='custom-title', customTitle='auth-refactor', sessionId=sid),
               dict(type='last-prompt', lastPrompt='Refactor the login code', leafUuid='a1', sessionId=sid)]
        return ''.join(json.dumps(r) + '\n' for r in res)
    for big in (0, 3*S.sess_probe):
        root = tmp_path/str(big); p = root/'projects'/'-w-proj'/f'{sid}.jsonl'
        p.parent.mkdir(parents=True); p.write_text(session(big))
        assert sess_info(p).title=='auth-refactor'
        assert [s.title for s in find_sessions(root=root)]==['auth-refactor']


def test_sess_info_renamed_twice_then_past_the_tail_takes_the_last_name_in_the_head(tmp_path):
    "A session renamed twice near its start and then grown past `sess_probe` (no name in its tail) is listed under the second name, the last the head holds, not the first met"
    sid = '6c1d8e3f-2a4b-4d6e-9f0a-1b2c3d4e5f60'
    env = dict(isSidechain=False, userType='external', cwd='/w/proj', sessionId=sid, version='2.1.0', timestamp='2026-07-17T02:51:28.111Z')
    recs = [dict(parentUuid=None, type='user', message=dict(role='user', content='Prompt 1'), uuid='u1', **env),
            dict(type='ai-title', aiTitle='AI title', sessionId=sid),
            dict(type='custom-title', customTitle='first name', sessionId=sid),
            dict(type='custom-title', customTitle='final name', sessionId=sid)]
    par = 'u1'
    for i in range(12):  # small records after the names, past the head's bytes in all: the tail holds no name
        recs.append(dict(parentUuid=par, type='assistant', uuid=f'a{i}', requestId=f'r{i}', **env,
                         message=dict(id=f'm{i}', type='message', role='assistant', content=[dict(type='text', text='x'*(S.sess_probe//8))])))
        par = f'a{i}'
    p = tmp_path/'projects'/'-w-proj'/f'{sid}.jsonl'; p.parent.mkdir(parents=True)
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    assert p.stat().st_size > S.sess_probe
    assert sess_info(p).title=='final name'
    assert [s.title for s in find_sessions(root=tmp_path)]==['final name']


@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_dlg2sess_refuses_an_edited_session_into_its_source_folder(tmp_path, agent):
    "`path` the source's own folder (no fork): refused for either agent, so no second file of the session is written beside it (a Codex rollout is named for the time it is written, so it never meets the source's name)"
    day = tmp_path/'sessions'/'2026'/'01'/'01'; day.mkdir(parents=True)
    src = _rounds_session(day/'s.jsonl', agent)
    src = src.rename(day/S.agents[agent].fname(sess2dlg(src).meta['dialog']['session']['id'], datetime(2026, 1, 1)))
    dlg = sess2dlg(src); dlg[0].content = 'Prompt 1, again'
    for force in (False, True):
        with pytest.raises(ValueError, match='never written'): dlg2sess(dlg, day, force=force)
    assert os.listdir(day)==[src.name]
    # elsewhere it is written; and a fork, a new id, still goes beside its source
    assert dlg2sess(dlg, tmp_path).parent==tmp_path
    assert dlg2sess(dlg, day, fork=True).parent==day and len(os.listdir(day))==2


def test_sess_info_takes_a_name_whose_record_begins_the_tail(tmp_path):
    "A `/rename` record that begins exactly where the file's last `sess_probe` bytes begin is whole, not a cut line: the session is listed under it"
    sid = '11111111-2222-4333-8444-555555555555'
    def user(k, t): return dict(parentUuid=None, isSidechain=False, uuid=f'00000000-0000-4000-8000-{k:012d}', type='user',
                                timestamp='2026-01-01T00:00:00.000Z', userType='external', cwd='/w', sessionId=sid, version='2.1.0',
                                message=dict(role='user', content=t))
    def title(t): return dict(type='custom-title', customTitle=t, sessionId=sid)
    recs = [user(1, 'Prompt 1'), title('First')] + [user(i, f'Prompt {i} ' + 'x'*3000) for i in range(2, 500)] + [title('Last')]
    last = json.dumps(title('Last')) + '\n'
    recs.append(user(999, 'y'*(S.sess_probe - len(last) - len(json.dumps(user(999, ''))) - 1)))
    txt = ''.join(json.dumps(r) + '\n' for r in recs)
    p = tmp_path/'projects'/'-w'/f'{sid}.jsonl'; p.parent.mkdir(parents=True); p.write_text(txt)
    assert txt[len(txt)-S.sess_probe:].startswith(last)  # the tail begins with the last name's whole record
    assert sess_info(p).title=='Last' and [s.title for s in find_sessions(root=tmp_path)]==['Last']
    # a byte more in its last record: the name's record is cut at the tail's start, and the head's name is listed
    p.write_text(txt[:-2] + 'y' + txt[-2:])
    assert sess_info(p).title=='First'


@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_dlg2sess_writes_a_file_the_caller_names_beside_the_source(tmp_path, agent):
    "The source's folder given is refused; a file named there explicitly is the caller's choice, written as documented (never over the source, nor over another file without `force`)"
    day = tmp_path/'sessions'/'2026'/'01'/'01'; day.mkdir(parents=True)
    src = _rounds_session(day/'s.jsonl', agent)
    sid = sess2dlg(src).meta['dialog']['session']['id']
    src = src.rename(day/S.agents[agent].fname(sid, datetime(2026, 1, 1)))
    dlg = sess2dlg(src); dlg[0].content = 'Prompt 1, again'
    with pytest.raises(ValueError, match='never written'): dlg2sess(dlg, day)
    assert dlg2sess(dlg, day/'copy.jsonl')==day/'copy.jsonl' and sorted(os.listdir(day))==sorted([src.name, 'copy.jsonl'])
    with pytest.raises(FileExistsError): dlg2sess(dlg, day/'copy.jsonl')

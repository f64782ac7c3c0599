"A folder of agent sessions (Claude Code transcripts, Codex rollouts) reads as a folder of dialogs: listed, read in parallel, tabled, counted and exported by every reader; other JSON Lines are left out"
import json, shutil
from pathlib import Path
import pytest
from dialog.core import *
from dialog.session import sess2dlg
from dialog.ipynb import DialogFormatError
from dialog.dataset import dlg_paths, read_dialogs, dlgs2table, folder_stats, paths2jsonl
from dialog.chat import dlgs2jsonl
from shared_paths import need_corpus
pytest.importorskip('pyarrow')

@pytest.fixture
def agents(tmp_path):
    "The corpus sessions in nested folders as the agents keep them, a notebook beside them, and JSON Lines that are no session"
    f,sessions = tmp_path/'agents',need_corpus('sessions')
    (f/'claude'/'proj').mkdir(parents=True); (f/'codex'/'2026'/'07').mkdir(parents=True)
    shutil.copy(sessions/'claude-code-session.jsonl', f/'claude'/'proj'/'s.jsonl')
    shutil.copy(sessions/'codex-rollout.jsonl', f/'codex'/'2026'/'07'/'rollout.jsonl')
    d = Dialog('nb'); d.mk_message('q', msg_type=sprompt, output='a'); d.save(f/'nb.ipynb')
    (f/'train.jsonl').write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    (f/'empty.jsonl').write_text('')
    # JSON Lines whose records have a `type` and are no agent's: an event log, a saved `claude -p --output-format stream-json` run
    (f/'logs').mkdir(); (f/'logs'/'events.jsonl').write_text('{"type":"start","ts":1}\n{"type":"step","loss":0.5}\n')
    (f/'run.jsonl').write_text('{"type":"system","subtype":"init","session_id":"abc","tools":[]}\n{"type":"result","result":"hi"}\n')
    (f/'odd.jsonl').write_text('{"type":{"a":1},"sessionId":"s"}\n{"type":[1],"payload":{}}\n')  # types no agent writes
    return f

def test_a_folder_lists_sessions_and_leaves_other_json_lines_out(agents):
    assert [p.relative_to(agents).as_posix() for p in dlg_paths(agents)] == ['claude/proj/s.jsonl', 'codex/2026/07/rollout.jsonl', 'nb.ipynb']
    assert [p.name for p in dlg_paths(str(agents/'**'/'*.jsonl'))] == ['s.jsonl', 'rollout.jsonl']

def test_the_listing_and_the_sessions_list_agree(agents):
    "A `.jsonl` file a folder's listing takes is one `sess_info` (what `nbdialog sessions` shows) takes, and no other"
    from dialog.session import sess_info
    def is_sess(p):
        try: sess_info(p); return True
        except ValueError: return False
    listed = {p for p in dlg_paths(agents) if p.suffix=='.jsonl'}
    assert listed == {p for p in agents.rglob('*.jsonl') if is_sess(p)} and len(listed)==2
    assert len(read_dialogs(agents)) == 3  # the logs are left out, not a bad file that stops the read

@pytest.mark.parametrize('workers', [0, 2])
def test_read_in_parallel_as_sess2dlg_reads(agents, workers):
    got = read_dialogs(agents, workers=workers)
    want = [sess2dlg(agents/'claude'/'proj'/'s.jsonl'), sess2dlg(agents/'codex'/'2026'/'07'/'rollout.jsonl')]
    for g,w in zip(got, want):
        assert g.path is None  # `save` would write a notebook over the session
        assert [(m.msg_type, m.content, m.ai_res, m.meta) for m in g.messages] == [(m.msg_type, m.content, m.ai_res, m.meta) for m in w.messages]
        assert [m.id for m in g.messages] == [m.id for m in w.messages] == g.nb_meta['dialog']['session']['msgs']  # derived from the records
        assert g.nb_meta == w.nb_meta

def test_a_folder_of_sessions_gives_the_same_rows_at_every_read(agents):
    "An unchanged folder holding sessions: the same table at every read, serial or in processes (message ids derived from the records, not drawn)"
    t = dlgs2table(agents, workers=0)
    assert t.equals(dlgs2table(agents, workers=0)) and t.equals(dlgs2table(agents, workers=2))
    assert t.num_rows == len(set(zip(t['path'].to_pylist(), t['id'].to_pylist())))

def test_tables_stats_and_json_lines_take_sessions(agents, tmp_path):
    t = dlgs2table(agents, workers=0)
    assert set(t['path'].to_pylist()) == {str(p.absolute()) for p in dlg_paths(agents)}  # a session's rows name its file
    assert str(agents/'claude'/'proj'/'s.jsonl') in folder_stats(agents, workers=0)  # the biggest dialogs, named by their files
    out = paths2jsonl(agents, tmp_path/'o.jsonl', workers=0)
    want = dlgs2jsonl(read_dialogs(agents, workers=0), tmp_path/'w.jsonl')
    assert Path(out).read_bytes() == Path(want).read_bytes()

def test_a_named_file_that_is_no_session_is_a_bad_file(agents):
    with pytest.raises(DialogFormatError, match='line 1'): read_dialogs([agents/'train.jsonl'])
    ds,errs = read_dialogs([agents/'train.jsonl', agents/'nb.ipynb'], on_error='collect')
    assert [d.name for d in ds] == ['nb'] and 'train.jsonl' in str(errs[0])

@pytest.mark.parametrize('how', ['dot', 'relative', 'absolute'])
def test_a_bad_session_is_named_once_however_its_path_is_spelled(tmp_path, monkeypatch, how):
    "A session with a bad line is a bad file naming it once (`s.jsonl: line 19: ...`), listed from `.`, from its folder's relative name or its absolute one"
    d = tmp_path/'talks'; d.mkdir()
    b = need_corpus('sessions', 'claude-code-session.jsonl').read_bytes().replace(b'fixture complete"}', b'fixture compl\xc3"}', 1)
    (d/'s.jsonl').write_bytes(b)
    monkeypatch.chdir(d if how=='dot' else tmp_path)
    src = dict(dot='.', relative='talks', absolute=str(d))[how]
    _,errs = read_dialogs(src, workers=0, on_error='collect')
    assert len(errs)==1 and errs[0].problem=='line 19: not UTF-8 text, so not a session file', errs
    assert str(errs[0]).count('s.jsonl')==1
    assert folder_stats(src, workers=0).splitlines()[-1].strip().endswith('s.jsonl: line 19: not UTF-8 text, so not a session file')

def test_the_listing_reads_a_bounded_prefix_of_each_json_lines_file(tmp_path):
    "Telling a session from other JSON Lines reads at most `sess_probe` bytes: a one-line 24 MB fine-tuning set costs no 24 MB (48 with its parse) to pass over, and a session whose first line is bigger than that is still told by the fields it opens with"
    import tracemalloc
    from dialog.session import sess_info
    import dialog.session
    sess_probe = getattr(dialog.session, 'sess_probe', 1<<20)  # the documented bound: 1 MB
    big = 24<<20
    (tmp_path/'train.jsonl').write_text('{"messages": [{"role": "user", "content": "' + 'x'*big + '"}]}\n')
    rec = '{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"' + 'x'*(2*sess_probe) + '"},"uuid":"u1"}\n'
    (tmp_path/'s.jsonl').write_text(rec + need_corpus('sessions', 'claude-code-session.jsonl').read_text())
    tracemalloc.start()
    try: names = [p.name for p in dlg_paths(tmp_path)]; peak = tracemalloc.get_traced_memory()[1]
    finally: tracemalloc.stop()
    assert names == ['s.jsonl'] and peak < 4*sess_probe, (names, peak)
    assert sess_info(tmp_path/'s.jsonl').agent == 'claude'
    with pytest.raises(ValueError, match='not a Claude Code or Codex session'): sess_info(tmp_path/'train.jsonl')

def test_a_transcript_opening_with_a_record_of_another_kind_is_listed(agents):
    "Newer Claude Code transcripts open with a `file-history-snapshot` (no session id): listed, and read as `sess2dlg` reads them"
    src = (agents/'claude'/'proj'/'s.jsonl').read_text(encoding='utf-8')
    snap = {'type': 'file-history-snapshot', 'messageId': 'm1', 'snapshot': {'messageId': 'm1', 'trackedFileBackups': {}}, 'isSnapshotUpdate': False}
    (agents/'snap.jsonl').write_text(json.dumps(snap)+'\n'+src, encoding='utf-8')
    assert agents/'snap.jsonl' in dlg_paths(agents)
    got = {d.name: d for d in read_dialogs(agents, workers=0)}
    assert [m.content for m in got['snap'].messages] == [m.content for m in sess2dlg(agents/'snap.jsonl').messages]

def test_a_named_pipe_is_never_waited_on(agents):
    "A named pipe called `*.jsonl` in the folder: never opened to wait for a writer, so it can't be told a session; listed, a bad entry every reader reports (as a folder that can't be opened), and named explicitly, a bad file"
    import os
    os.mkfifo(agents/'pipe.jsonl')
    assert agents/'pipe.jsonl' in dlg_paths(agents)
    why = "not a regular file (a named pipe, a device?): a .jsonl file that can't be opened to tell whether it is an agent's session"
    for src in (agents, [agents/'pipe.jsonl', agents/'nb.ipynb']):
        ds,errs = read_dialogs(src, on_error='collect')
        assert 'nb' in [d.name for d in ds] and [str(e) for e in errs] == [f"{agents/'pipe.jsonl'}: {why}"]

@pytest.mark.parametrize('shape', ['openai_ft', 'hf', 'trl', 'sharegpt'])
def test_a_custom_tool_call_is_exported_in_every_shape(tmp_path, monkeypatch, shape):
    "A Codex rollout's custom (freeform) call is written by every training shape as a function call of one string argument `input`, never a KeyError"
    from dialog.dataset import export_folder
    monkeypatch.chdir(tmp_path)
    ts = '2026-07-19T05:30:38.285Z'
    def rec(t, p): return json.dumps({'timestamp': ts, 'type': t, 'payload': p})
    lines = [rec('session_meta', {'id': '019f78da-e13e-72a2-9c10-aff27ecc7dfd', 'timestamp': ts, 'cwd': '/tmp/p', 'originator': 'codex_cli_rs', 'cli_version': '0.50.0'}),
             rec('response_item', {'type': 'message', 'role': 'user', 'content': [{'type': 'input_text', 'text': 'Print fixture.'}]}),
             rec('response_item', {'type': 'custom_tool_call', 'id': 'ctc_1', 'status': 'completed', 'call_id': 'call_1', 'name': 'exec', 'input': 'printf "a"'}),
             rec('response_item', {'type': 'custom_tool_call_output', 'call_id': 'call_1', 'output': 'a'}),
             rec('response_item', {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'It printed a.'}]})]
    Path('s').mkdir(); Path('s/rollout-2026-07-19T05-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl').write_text('\n'.join(lines) + '\n')
    assert export_folder('s', 'out.jsonl', workers=0, shape=shape) == 'wrote out.jsonl: 1 dialog, 1 line'
    line = json.loads(Path('out.jsonl').read_text())
    tools = line['tools'] if shape!='sharegpt' else [dict(function=f) for f in json.loads(line['tools'])]
    assert [t['function']['name'] for t in tools] == ['exec']
    assert tools[0]['function']['parameters']['properties'] == {'input': {'type': 'string'}}
    if shape=='sharegpt': call = json.loads(line['conversations'][1]['value'])
    else: call = next(m for m in line.get('messages', line.get('completion', [])) if m.get('tool_calls'))['tool_calls'][0]['function']
    args = call['arguments'] if isinstance(call['arguments'], dict) else json.loads(call['arguments'])
    assert (call['name'], args) == ('exec', {'input': 'printf "a"'})

def test_ray_lists_and_reads_an_object_stores_sessions_as_the_local_readers_do(agents, monkeypatch):
    "`ray_read('s3://…')` lists by `dlg_paths`'s rule (sessions in, other JSON Lines out) and reads a session as a session, on any pyarrow filesystem"
    from pyarrow import fs as pafs
    import pyarrow as pa, pickle
    from dialog.dataset import _ray_files, _files2table
    sub = pafs.SubTreeFileSystem(str(agents.parent), pafs.LocalFileSystem())  # stands in for S3FileSystem: not local
    class S3:  # 's3://X': X of the temporary folder
        from_uri = staticmethod(lambda u: (sub, u.split('://', 1)[1]))
    monkeypatch.setattr(pafs, 'FileSystem', S3)
    local = sorted(p.relative_to(agents).as_posix() for p in dlg_paths(agents))
    fss,files = _ray_files('s3://agents')
    assert sorted(p.removeprefix('agents/') for _,p in files) == local and any(p.endswith('.jsonl') for p in local)
    t = _files2table(pa.table({'fs': [i for i,_ in files], 'path': [p for _,p in files]}), 'collect', tuple(fss))
    assert [pickle.loads(x) for x in t['nbdialog_error'].to_pylist() if x] == []
    want = dlgs2table(agents, workers=0)
    assert t.num_rows == want.num_rows and sorted(set(t['name'].to_pylist())) == sorted(set(want['name'].to_pylist()))
    key = lambda t: sorted(zip(*[t[c].to_pylist() for c in want.column_names if c not in ('path', 'dlg_meta')]), key=repr)
    assert key(t) == key(want)

"A folder of agent sessions (Claude Code transcripts, Codex rollouts) reads as a folder of dialogs: listed, read in parallel, tabled, counted and exported by every reader; other JSON Lines are left out"
import json, shutil
from pathlib import Path
import pytest
from dialog.core import *
from dialog.session import sess2dlg
from dialog.ipynb import DialogFormatError
from dialog.dataset import dlg_paths, read_dialogs, dlgs2table, folder_stats, paths2jsonl
from dialog.chat import dlgs2jsonl
from shared_paths import corpus
pytest.importorskip('pyarrow')

sessions = Path(corpus).parent/'corpus'/'sessions' if not (Path(corpus)/'sessions').exists() else Path(corpus)/'sessions'

@pytest.fixture
def agents(tmp_path):
    "The corpus sessions in nested folders as the agents keep them, a notebook beside them, and JSON Lines that are no session"
    f = tmp_path/'agents'
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
        gs,ws = (dict(x.nb_meta['dialog']['session']) for x in (g, w))
        assert gs.pop('msgs') == [m.id for m in g.messages] and ws.pop('msgs') == [m.id for m in w.messages]  # ids are drawn afresh at each read
        assert gs == ws

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

def test_a_transcript_opening_with_a_record_of_another_kind_is_listed(agents):
    "Newer Claude Code transcripts open with a `file-history-snapshot` (no session id): listed, and read as `sess2dlg` reads them"
    src = (agents/'claude'/'proj'/'s.jsonl').read_text(encoding='utf-8')
    snap = {'type': 'file-history-snapshot', 'messageId': 'm1', 'snapshot': {'messageId': 'm1', 'trackedFileBackups': {}}, 'isSnapshotUpdate': False}
    (agents/'snap.jsonl').write_text(json.dumps(snap)+'\n'+src, encoding='utf-8')
    assert agents/'snap.jsonl' in dlg_paths(agents)
    got = {d.name: d for d in read_dialogs(agents, workers=0)}
    assert [m.content for m in got['snap'].messages] == [m.content for m in sess2dlg(agents/'snap.jsonl').messages]

def test_a_named_pipe_is_never_waited_on(agents):
    "A named pipe called `*.jsonl` in the folder: not listed (opening it would wait for a writer for ever), and named explicitly, a bad file"
    import os
    os.mkfifo(agents/'pipe.jsonl')
    assert agents/'pipe.jsonl' not in dlg_paths(agents)
    ds,errs = read_dialogs([agents/'pipe.jsonl', agents/'nb.ipynb'], on_error='collect')
    assert [d.name for d in ds] == ['nb'] and 'not a regular file' in str(errs[0])

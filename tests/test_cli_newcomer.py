"Problems a newcomer met with nbdialog (issue 10's follow-up): each test fails on the behaviour reported"
import json, os, shutil, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.chat import jsonl2dlgs
from dialog.run import _capture_shell, _close_shell, _timeout_out
from test_cli import nbd, ok, fails, tour, tour_src, ids

# --- 1. a timeout is the same output on every Python, and the shell goes on
def test_timeout_same_on_every_python():
    sh = _capture_shell()
    try:
        m = Message('import asyncio\nawait asyncio.sleep(1.5)\nlate = 1')
        assert m.execute(sh, timeout=0.3)==f'{m.id}: error TimeoutError: timed out after 0.3s'
        assert m.output==[_timeout_out(0.3)]
        m2 = Message("import asyncio\nawait asyncio.sleep(2)\n'late' in dir()") # the timed-out run was stopped, not left to finish
        assert m2.execute(sh)==f'{m2.id}: ok'
        assert m2.output[0]['data']['text/plain']=='False'
        m3 = Message('import time; time.sleep(1.5)')
        m3.execute(sh, timeout=0.3)
        m4 = Message('6*7')
        assert m4.execute(sh)==f'{m4.id}: ok' and m4.output[0]['data']['text/plain']=='42'
        assert m4.execution_count==m2.execution_count+2 # the timed-out time.sleep ran to its end, and took a count, as in a kernel
    finally: _close_shell(sh)

# --- 2. content comes from a pipe, never from an empty one or a terminal
def test_empty_stdin_is_an_error(tour):
    m = read_ipynb(tour).messages[0]
    before = tour.read_bytes()
    for args in (('edit', tour, m.id), ('add', tour)):
        for inp in ('', '\n'):
            fails(*args, input=inp, has="pass --content '' to")
            assert tour.read_bytes()==before
    assert ok('edit', tour, m.id, '--content', '')==f'edited {m.id}\n'
    assert read_ipynb(tour).messages[0].content==''
    new = ok('add', tour, '--content', '').strip()
    assert read_ipynb(tour).messages[-1].id==new and read_ipynb(tour).messages[-1].content==''
    assert ok('edit', tour, m.id, input='piped\n')==f'edited {m.id}\n'
    assert read_ipynb(tour).messages[0].content=='piped'

@pytest.mark.parametrize('sub', ['edit', 'add'])
def test_terminal_stdin_asks_for_content(tour, sub):
    import pty
    mfd,sfd = pty.openpty()
    before = tour.read_bytes()
    args = ['edit', str(tour), read_ipynb(tour).messages[0].id] if sub=='edit' else ['add', str(tour)]
    p = subprocess.Popen([sys.executable, '-m', 'dialog.cli'] + args, stdin=sfd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ | {'PYTHONPATH': str(tour_src.parent.parent)})
    os.close(sfd)
    try: out,err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill(); p.communicate()
        pytest.fail(f'{sub} waited on the terminal for content')
    finally: os.close(mfd)
    assert p.returncode==2 and err.strip().splitlines()[-1].endswith('give --content TEXT, or pipe the content on stdin'), (out, err)
    assert tour.read_bytes()==before

def test_content_help_says_where_content_comes_from():
    for sub in ('add', 'edit'):
        h = ' '.join(ok(sub, '--help').split())
        assert 'read from stdin when it is not a terminal' in h and "--content ''" in h, h

# --- 3. JSON Lines read back; --from openai on JSON Lines says what to do
def _two_dialogs(tmp_path):
    a = Dialog('a'); a.mk_message('Hi', msg_type='prompt', output='Hello'); a.save(tmp_path/'a.ipynb')
    b = Dialog('b'); b.mk_message('Sum?', msg_type='prompt', output='3'); b.mk_message('More?', msg_type='prompt', output='no'); b.save(tmp_path/'b.ipynb')
    ok('convert', tmp_path/'a.ipynb', tmp_path/'b.ipynb', '--to', 'jsonl', '-o', tmp_path/'both.jsonl')
    return tmp_path/'both.jsonl'

def rows(d): return [(m.msg_type, m.content, m.ai_res) for m in d.messages]

def test_convert_from_jsonl_to_a_folder(tmp_path):
    src = _two_dialogs(tmp_path)
    out = ok('convert', src, '--from', 'jsonl', '-o', tmp_path/'back')
    want = jsonl2dlgs(src)
    assert out.splitlines()==[f'wrote {tmp_path}/back/{d.name}.ipynb' for d in want] and [d.name for d in want]==['both-1', 'both-2']
    for d in want: assert rows(read_ipynb(tmp_path/'back'/f'{d.name}.ipynb'))==rows(d)
    assert rows(want[1])==[('prompt', 'Sum?', '3'), ('prompt', 'More?', 'no')]
    before = (tmp_path/'back'/'both-2.ipynb').read_bytes()
    (tmp_path/'back'/'both-1.ipynb').unlink()
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'back', has='both-2.ipynb: already exists')
    assert not (tmp_path/'back'/'both-1.ipynb').exists() and (tmp_path/'back'/'both-2.ipynb').read_bytes()==before # checked before any is written
    ok('convert', src, '--from', 'jsonl', '-o', tmp_path/'back', '--force')
    assert (tmp_path/'back'/'both-1.ipynb').exists()

def test_convert_from_jsonl_one_dialog_to_a_file(tmp_path):
    src = _two_dialogs(tmp_path)
    one = tmp_path/'one.jsonl'
    one.write_text(src.read_text().splitlines()[1] + '\n')
    assert ok('convert', one, '--from', 'jsonl', '-o', tmp_path/'one.ipynb').strip()==f'wrote {tmp_path}/one.ipynb'
    assert rows(read_ipynb(tmp_path/'one.ipynb'))==[('prompt', 'Sum?', '3'), ('prompt', 'More?', 'no')]
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'two.ipynb', has='holds 2 dialogs')
    assert not (tmp_path/'two.ipynb').exists()
    ok('convert', src, '--from', 'jsonl', '--fmt', 'anthropic', '-o', tmp_path/'ant')
    assert len(list((tmp_path/'ant').glob('*.ipynb')))==2
    (tmp_path/'f').write_text('')
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'f', has='is not a folder')

def test_convert_jsonl_with_from_openai_points_at_jsonl(tmp_path):
    src = _two_dialogs(tmp_path)
    fails('convert', src, '--from', 'openai', '-o', tmp_path/'x.ipynb', has='--from jsonl')
    assert not (tmp_path/'x.ipynb').exists()

# --- 5. wording
@pytest.mark.parametrize('to', ['openai', 'anthropic', 'jsonl', 'md', 'py', 'xml'])
def test_every_convert_o_says_what_it_wrote(tour, tmp_path, to):
    out = tmp_path/f'out.{to}'
    r = nbd('convert', tour, '--to', to, '-o', out)
    assert r.returncode==0 and r.stdout==f'wrote {out}\n' and r.stderr=='', r
    assert out.read_text()==ok('convert', tour, '--to', to) # without -o, stdout is the data alone

# --- 4. errors about the name as given
def test_errors_name_the_file_given(tmp_path):
    (tmp_path/'t.md').write_text('# notes')
    r = fails('summary', tmp_path/'t.md', has=f'{tmp_path}/t.md is not a .ipynb file')
    assert 't.md.ipynb' not in r.stderr
    r = fails('summary', tmp_path, has=f'{tmp_path} is a folder, not a dialog file')
    assert f'{tmp_path}.ipynb' not in r.stderr
    fails('add', tmp_path/'t.md', '--content', 'x', has='is not a .ipynb file')
    fails('add', tmp_path, '--content', 'x', has='is a folder')
    assert sorted(os.listdir(tmp_path))==['t.md'] and not Path(f'{tmp_path}.ipynb').exists()
    fails('summary', tmp_path/'nope', has=f'{tmp_path}/nope.ipynb: no such file') # a name that isn't there still names the .ipynb looked for

def test_dry_run_says_would(tour):
    i = ids(tour)
    before = tour.read_bytes()
    assert ok('del', tour, i[1], i[2], '--dry-run').splitlines()[0]==f'would delete {i[1]} {i[2]} (dry run: nothing written)'
    assert ok('move', tour, i[1], '--after', i[3], '--dry-run').splitlines()[0]==f'would move {i[1]} after {i[3]} (dry run: nothing written)'
    assert ok('edit', tour, i[1], '--content', 'x', '--dry-run').splitlines()[0]==f'would edit {i[1]} (dry run: nothing written)'
    assert ok('edit', tour, i[2], '--type', 'raw', '--content', 'r', '--dry-run').splitlines()[0]==f'would edit {i[2]} (a raw message has no outputs: they would be dropped) (dry run: nothing written)'
    assert tour.read_bytes()==before
    assert ok('edit', tour, i[2], '--type', 'raw', '--content', 'r').strip()==f'edited {i[2]} (a raw message has no outputs: they were dropped)'

@pytest.mark.parametrize('k', range(20, 27))
def test_summary_never_cuts_an_escape(tmp_path, k):
    d = Dialog('e'); m = d.mk_message('a'*k + '\n\t\\' + 'b'*40); d.save(tmp_path/'e.ipynb')
    import re
    for row in (ok('summary', tmp_path/'e', '--maxlen', 40).strip(), ok('find', tmp_path/'e', 'a', '--maxlen', 40).strip()):
        assert len(row)<=40 and row.endswith('…') and row.startswith(f'{m.id}:code: '), row
        body = row[len(f'{m.id}:code: '):-1]
        assert len(re.search(r'\\*$', body).group())%2==0, row # no half of an escape left before the cut
        assert ('a'*k + '\\n\\t\\\\' + 'b'*40).startswith(body), row

# --- 6. the tour's commands work from the repo root, as README runs them, and the tour is what mk_tour.py writes
def test_tour_commands_run_from_the_root():
    import re
    root = tour_src.parent.parent
    cmds = [c for m in read_ipynb(tour_src).messages for c in re.findall(r'`(nbdialog [^`]+)`', m.content)]
    assert cmds, 'the tour names no nbdialog command'
    for c in cmds:
        r = nbd(*c.split()[1:], cwd=root)
        assert r.returncode==0 and r.stdout, (c, r.stderr)

def test_tour_is_what_mk_tour_writes(tmp_path):
    shutil.copy(tour_src.parent/'mk_tour.py', tmp_path/'mk_tour.py')
    r = subprocess.run([sys.executable, tmp_path/'mk_tour.py'], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=os.environ | {'PYTHONPATH': str(tour_src.parent.parent)})
    assert r.returncode==0, r.stderr
    assert (tmp_path/'tour.ipynb').read_bytes()==tour_src.read_bytes(), 'examples/tour.ipynb is stale: run python examples/mk_tour.py'

# --- 7. the way back from chat JSON is said to be lossy
def test_convert_help_says_from_gives_prompts_and_replies():
    h = ' '.join(ok('convert', '--help').split())
    assert 'prompts and replies' in h and 'notes and code sent as context come back as text inside the prompts' in h, h

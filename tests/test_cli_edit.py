"nbdialog's editing commands (add, edit, del, move): where content comes from, new files, conflicts, dry runs, and what an edit keeps."
import os, pty, pytest, subprocess, sys, time
from pathlib import Path
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import blocked_on_stdin, cmd, env, fails, ids, nbd, ok, tour_src

class MyMsg(Message): meta_attrs = {'pinned_': 'pinned'}

class MyDlg(Dialog): msg_cls = MyMsg

def test_add_creates_a_dialog(tmp_path):
    p = tmp_path/'new.ipynb'
    new = ok('add', tmp_path/'new', '--new', '--type', 'note', '--content', '# Hello').strip()
    d = read_ipynb(p)
    assert d.name=='new' and [(m.id, m.msg_type, m.content) for m in d.messages]==[(new, 'note', '# Hello')]
    assert ok('add', p, '--content', 'x').strip() in ids(p)

def test_add_new_file_limits(tmp_path):
    fails('add', tmp_path/'a', '--new', '--after', 'abc', '--content', 'x', has="message id 'abc' not found")
    assert not (tmp_path/'a.ipynb').exists()
    r = nbd('add', tmp_path/'b', '--new', '--content', 'x', '--dry-run')
    assert r.returncode==0 and r.stdout.strip() and not (tmp_path/'b.ipynb').exists()
    fails('add', tmp_path/'nodir'/'c', '--new', '--content', 'x', has='no such folder')
    assert not (tmp_path/'nodir').exists()
    for c in (['edit', 'x', '--content', 'y'], ['del', 'x'], ['move', 'x', '--after', 'y'], ['view', 'x'], ['summary'], ['run', '--all']):
        fails(c[0], tmp_path/'d', *c[1:], has='no such file')
    assert list(tmp_path.iterdir())==[]

@pytest.mark.skipif(not Path('/proc/self/syscall').exists(), reason='needs Linux /proc/PID/syscall to see the command waiting on stdin')
def test_add_new_file_conflict(tmp_path):
    "Another program creates the file while `add` waits for content: exit 2, its file kept"
    f = tmp_path/'n.ipynb'
    p = subprocess.Popen(cmd + ['add', str(f), '--new'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    t0 = time.time()
    while not blocked_on_stdin(p.pid):
        assert time.time()-t0 < 60 and p.poll() is None, 'add never waited on stdin'
        time.sleep(0.05)
    other = Dialog('n')
    other.mk_message('the other dialog', msg_type='note')
    other.save(f)
    theirs = f.read_bytes()
    out,err = p.communicate('mine', timeout=60)
    assert p.returncode==2 and 'Traceback' not in err and str(f) in err, (out, err)
    assert f.read_bytes()==theirs

def test_content_not_utf8(tour):
    before = tour.read_bytes()
    r = subprocess.run(cmd + ['add', str(tour), '--content', os.fsdecode(b'ok \xff\xfe')], capture_output=True, env=dict(env, LC_ALL='C.UTF-8'))
    assert r.returncode==2 and b'--content' in r.stderr and b'UTF-8' in r.stderr and b'Traceback' not in r.stderr, r.stderr
    r = subprocess.run(cmd + ['edit', str(tour), ids(tour)[0]], input=b'ok \xff\n', capture_output=True, env=env)
    assert r.returncode==2 and b'stdin' in r.stderr and b'UTF-8' in r.stderr and b'Traceback' not in r.stderr, r.stderr
    assert tour.read_bytes()==before
    r = subprocess.run(cmd + ['add', str(tour)], input='é ✓ \u202eRTL\n'.encode(), capture_output=True, env=dict(env, LC_ALL='C', PYTHONIOENCODING=''))
    assert r.returncode==0, r.stderr
    assert read_ipynb(tour).messages[-1].content=='é ✓ \u202eRTL'

def test_del_move_keep_subclass_and_meta(tmp_path):
    d = MyDlg('s')
    ms = [d.mk_message(f'm{i}', msg_type=snote) for i in range(5)]
    ms[3].pinned_ = True
    d.save(tmp_path/'s')
    ok('move', tmp_path/'s', ms[3].id, ms[0].id, '--after', ms[4].id)
    ok('del', tmp_path/'s', ms[1].id)
    r = read_ipynb(tmp_path/'s', cls=MyDlg)
    assert [m.content for m in r.messages]==['m2', 'm4', 'm3', 'm0'] and all(type(m) is MyMsg for m in r.messages)
    assert [m.pinned_ for m in r.messages]==[None, None, True, None]

def test_edit_type_drops_outputs(tour):
    i = ids(tour)
    assert ok('edit', tour, i[2], '--type', 'note', '--content', 'now a note').strip()==f'edited {i[2]} (a note message has no outputs: they were dropped)'
    assert ok('edit', tour, i[5], '--type', 'raw', '--content', 'raw').strip()==f'edited {i[5]} (a raw message has no outputs: they were dropped)'
    ms = read_ipynb(tour).messages
    assert [(m.msg_type, m.content, m.output) for m in (ms[2], ms[5])]==[('note', 'now a note', ''), ('raw', 'raw', '')]
    assert ok('edit', tour, i[0], '--type', 'raw', '--content', 'x').strip()==f'edited {i[0]}'

# --- 2. content comes from a pipe, never from an empty one or a terminal
@pytest.mark.slow
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

@pytest.mark.slow
def test_dry_run_says_would(tour):
    i = ids(tour)
    before = tour.read_bytes()
    assert ok('del', tour, i[1], i[2], '--dry-run').splitlines()[0]==f'would delete {i[1]} {i[2]} (dry run: nothing written)'
    assert ok('move', tour, i[1], '--after', i[3], '--dry-run').splitlines()[0]==f'would move {i[1]} after {i[3]} (dry run: nothing written)'
    assert ok('edit', tour, i[1], '--content', 'x', '--dry-run').splitlines()[0]==f'would edit {i[1]} (dry run: nothing written)'
    assert ok('edit', tour, i[2], '--type', 'raw', '--content', 'r', '--dry-run').splitlines()[0]==f'would edit {i[2]} (a raw message has no outputs: they would be dropped) (dry run: nothing written)'
    assert tour.read_bytes()==before
    assert ok('edit', tour, i[2], '--type', 'raw', '--content', 'r').strip()==f'edited {i[2]} (a raw message has no outputs: they were dropped)'

def test_edit_type_of_a_run_cell_that_printed_nothing(tmp_path):
    "Every cell Jupyter ran has an execution count: it goes with the type change, as the outputs do"
    p = tmp_path/'a.ipynb'
    d = Dialog('a'); d.mk_message('x = 1', id='ran2', execution_count=7); d.save(p)
    assert ok('edit', p, 'ran2', '--type', 'note', '--content', 'x = 1').strip()=='edited ran2'
    m = read_ipynb(p)['ran2']
    assert (m.msg_type, m.content, m.execution_count)==(snote, 'x = 1', None)

@pytest.mark.parametrize('piped,want', [(b'p\r\nq\r\n', 'p\r\nq'), (b'p\nq\n', 'p\nq'), (b'p\r\nq', 'p\r\nq'), (b'p\r\n\r\n', 'p\r\n')])
def test_stdin_drops_one_trailing_line_end_whole(tour, piped, want):
    "Content piped with CR LF ends: only the LF of the last one was dropped, leaving a lone CR at the message's end (a character of its last line, to the views, find's `$` and the kernel)"
    r = subprocess.run(cmd + ['edit', str(tour), ids(tour)[0]], input=piped, capture_output=True, env=env)
    assert r.returncode==0, r.stderr
    assert read_ipynb(tour).messages[0].content==want
    r = subprocess.run(cmd + ['add', str(tour)], input=piped, capture_output=True, env=env)
    assert r.returncode==0, r.stderr
    assert read_ipynb(tour).messages[-1].content==want

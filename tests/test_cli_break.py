"Regression tests from a hostile review of the command line: each failed before its fix."
import os, pty, subprocess, time
from pathlib import Path
import pytest
from hypothesis import given, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.view import pick_msg as _msg, pick_msgs as _msgs
from test_cli import nbd, ok, fails, tour, ids, cmd, env, _blocked_on_stdin, read_pty

# --- numbers that make no sense are usage errors (argparse's own exit 2 and usage line)

@pytest.mark.parametrize('args', [['summary', '--maxlen', '0'], ['summary', '--maxlen', '-5'], ['find', 'a', '--maxlen', '0'],
                                  ['find', '.', '--limit', '0'], ['find', '.', '--limit', '-1'], ['find', '.', '--before', '-2'],
                                  ['find', '.', '--after', '-1'], ['find', '.', '--context', '-1'], ['summary', '--maxlen', 'x']])
def test_bad_numbers_are_usage_errors(tour, args):
    r = fails(args[0], tour, *args[1:], has=f'argument {args[-2]}')
    assert r.stderr.startswith(f'usage: nbdialog {args[0]}') and not r.stdout

def test_smallest_numbers_work(tour):
    assert len(ok('summary', tour, '--maxlen', '1').splitlines())==len(ids(tour))
    assert len(ok('find', tour, '.', '--limit', '1').splitlines())==1
    assert ok('find', tour, 'tour', '--context', '0', '--limit', '1').splitlines()==ok('find', tour, 'tour', '--limit', '1').splitlines()

# --- an empty id list names no message: an error, not a silent no-op that saves

@pytest.mark.parametrize('args', [['view', ''], ['view', ','], ['del', ''], ['del', ', '], ['move', ' ', '--after', 'ID0'], ['run', ''], ['edit', '', '--content', 'x']])
def test_empty_ids_are_errors(tour, args):
    i,before = ids(tour),tour.read_bytes()
    args = [i[0] if a=='ID0' else a for a in args]
    r = fails(args[0], tour, *args[1:])
    assert 'id' in r.stderr.splitlines()[-1] and str(tour) in r.stderr
    assert tour.read_bytes()==before and not r.stdout

# --- options may come before the ids, as with any command line

def test_options_before_ids(tour):
    i = ids(tour)
    assert ok('view', tour, '--out', i[2])==ok('view', tour, i[2], '--out')
    assert ok('view', tour, '--xml', '--out', i[2], i[5]).count('<code')==1
    assert ok('run', tour, '--dry-run', i[1]).startswith(f'{i[1]}: ok')
    assert ok('del', tour, '--dry-run', i[1], i[2]).splitlines()[0]==f'would delete {i[1]} {i[2]} (dry run: nothing written)'
    assert ok('find', tour, '--type', 'code', 'greet')==ok('find', tour, 'greet', '--type', 'code')
    fails('view', tour, '--nosuch', i[2])

# --- add to a file that does not exist creates a new dialog

def test_add_creates_a_dialog(tmp_path):
    p = tmp_path/'new.ipynb'
    new = ok('add', tmp_path/'new', '--type', 'note', '--content', '# Hello').strip()
    d = read_ipynb(p)
    assert d.name=='new' and [(m.id, m.msg_type, m.content) for m in d.messages]==[(new, 'note', '# Hello')]
    assert ok('add', p, '--content', 'x').strip() in ids(p)

def test_add_new_file_limits(tmp_path):
    fails('add', tmp_path/'a', '--after', 'abc', '--content', 'x', has="message id 'abc' not found")
    assert not (tmp_path/'a.ipynb').exists()
    r = nbd('add', tmp_path/'b', '--content', 'x', '--dry-run')
    assert r.returncode==0 and r.stdout.strip() and not (tmp_path/'b.ipynb').exists()
    fails('add', tmp_path/'nodir'/'c', '--content', 'x', has='no such folder')
    assert not (tmp_path/'nodir').exists()
    for c in (['edit', 'x', '--content', 'y'], ['del', 'x'], ['move', 'x', '--after', 'y'], ['view', 'x'], ['summary'], ['run', '--all']):
        fails(c[0], tmp_path/'d', *c[1:], has='no such file')
    assert list(tmp_path.iterdir())==[]

@pytest.mark.skipif(not Path('/proc/self/syscall').exists(), reason='needs Linux /proc/PID/syscall to see the command waiting on stdin')
def test_add_new_file_conflict(tmp_path):
    "Another program creates the file while `add` waits for content: exit 2, its file kept"
    f = tmp_path/'n.ipynb'
    p = subprocess.Popen(cmd + ['add', str(f)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    t0 = time.time()
    while not _blocked_on_stdin(p.pid):
        assert time.time()-t0 < 60 and p.poll() is None, 'add never waited on stdin'
        time.sleep(0.05)
    other = Dialog('n')
    other.mk_message('the other dialog', msg_type='note')
    other.save(f)
    theirs = f.read_bytes()
    out,err = p.communicate('mine', timeout=60)
    assert p.returncode==2 and 'Traceback' not in err and str(f) in err, (out, err)
    assert f.read_bytes()==theirs

# --- content that is not UTF-8 is an error naming where it came from, and nothing is written

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

# --- one rule for ids: the command line's resolver is core's `dlg[key]`, with the file named in the error

keys = st.text('0123456789abcdef', max_size=9)

@given(st.lists(keys.filter(bool), unique=True, max_size=8), keys)
def test_msg_agrees_with_core(msg_ids, key):
    d = Dialog('k', [Message(str(i), id=k) for i,k in enumerate(msg_ids)])
    try: want = d[key]
    except KeyError as e: want = e
    if isinstance(want, Message): assert _msg(d, key) is want
    else:
        with pytest.raises(ValueError) as e: _msg(d, key)
        assert "dialog 'k'" in str(e.value)
        if key: assert str(want).strip('"\'') in str(e.value)

def test_msg_error_names_file(tmp_path):
    d = Dialog('f', [Message('a', id='ab1'), Message('b', id='ab2')])
    d.save(tmp_path/'f')
    d = read_ipynb(tmp_path/'f')
    with pytest.raises(ValueError, match=rf"{tmp_path/'f.ipynb'}: .*ambiguous"): _msg(d, 'ab')
    with pytest.raises(ValueError, match=rf"{tmp_path/'f.ipynb'}: .*not found"): _msg(d, 'zz')
    with pytest.raises(ValueError, match='no message id'): _msgs(d, ' , ')
    assert list(_msgs(d, 'ab2,ab1 ab2'))==[d['ab2'], d['ab1']]

# --- del and move through core's `remove_msgs`: a subclass's messages keep their class, the dialog its order

class MyMsg(Message): meta_attrs = {'pinned_': 'pinned'}
class MyDlg(Dialog): msg_cls = MyMsg

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

# --- view's line range: never silently ignored, and its error says which lines

def test_view_line_range(tour):
    i = ids(tour)
    fails('view', tour, i[0], '--xml', '--start-line', '2', has='leave out --xml')
    fails('view', tour, i[0], '--end-line', '0', has='argument --end-line: must be 1 or more, not 0')
    fails('view', tour, i[0], '--start-line', '0', has='argument --start-line')
    m = Message('a\nb', id='m1')
    with pytest.raises(ValueError, match='no lines 1 to 0'): m.view(end_line=0)

def test_find_msgs_bad_arguments(tour):
    from dialog.cli import find_msgs
    d = read_ipynb(tour)
    for kw in (dict(limit=0), dict(limit=-1), dict(msg_type='cell'), dict(pattern=None), dict(pattern=b'x')):
        with pytest.raises(ValueError): find_msgs(d, **({'pattern': ''} | kw))
    assert len(find_msgs(d, '', limit=1))==1

# --- a run whose outputs hold text UTF-8 can't carry (lone surrogates) still saves its outputs

def test_run_surrogate_output(tmp_path):
    d = Dialog('s')
    a = d.mk_message("print('x\\ud800y\\ud83d\\ude00')")
    b = d.mk_message("raise ValueError('\\udcff')")
    d.save(tmp_path/'s')
    r = nbd('run', tmp_path/'s', '--all', '--continue-on-error')
    assert r.returncode==1 and 'Traceback' not in r.stderr, r.stderr
    assert r.stdout.splitlines()==[f'{a.id}: ok', f'{b.id}: error ValueError: \\udcff'] # printed as the file holds it
    ms = read_ipynb(tmp_path/'s').messages
    assert ms[0].output==[dict(output_type='stream', name='stdout', text='x\ud800y\U0001f600\n')] # lone surrogates kept, pairs joined, as storage does
    assert ms[1].output[0]['evalue']=='\udcff'

# --- edit --type to a note or raw message: its outputs go (as in Jupyter), rather than the edit being impossible

def test_edit_type_drops_outputs(tour):
    i = ids(tour)
    assert ok('edit', tour, i[2], '--type', 'note', '--content', 'now a note').strip()==f'edited {i[2]} (a note message has no outputs: they were dropped)'
    assert ok('edit', tour, i[5], '--type', 'raw', '--content', 'raw').strip()==f'edited {i[5]} (a raw message has no outputs: they were dropped)'
    ms = read_ipynb(tour).messages
    assert [(m.msg_type, m.content, m.output) for m in (ms[2], ms[5])]==[('note', 'now a note', ''), ('raw', 'raw', '')]
    assert ok('edit', tour, i[0], '--type', 'raw', '--content', 'x').strip()==f'edited {i[0]}'

# --- a hostile dialog can't drive the terminal, and a row stays one line

hostile = 'a\x1b[2J\x1b]0;title\x07b\x0bc\x0cd\x85e\u2028f\u2029g\x00h\x9bi'

def test_rows_are_one_line_without_controls(tmp_path):
    d = Dialog('h')
    ms = [d.mk_message(hostile, msg_type=t) for t in (snote, scode)]
    d.save(tmp_path/'h')
    for out in (ok('summary', tmp_path/'h'), ok('find', tmp_path/'h', 'a', '--context', '1'), '\n'.join(ok('del', tmp_path/'h', ms[0].id, '--dry-run').splitlines()[1:])):
        rows = out.splitlines()
        assert len(rows)==len([r for r in rows if r!='--']) and len(rows) in (1, 2), rows
        assert not any(c in out for c in '\x1b\x07\x0b\x0c\x85\u2028\u2029\x00\x9b'), repr(out)
        assert '\\x1b[2J' in out
    assert ok('view', tmp_path/'h', ms[0].id, '--no-nums').split('\n', 1)[1]==hostile+'\n'  # not a terminal: exact

def test_view_on_a_terminal_is_visible(tmp_path):
    d = Dialog('h')
    m = d.mk_message(hostile + '\nline 2')
    d.save(tmp_path/'h')
    mfd,sfd = pty.openpty()
    p = subprocess.Popen(cmd + ['view', str(tmp_path/'h'), m.id], stdout=sfd, stderr=subprocess.PIPE, env=env)
    os.close(sfd)
    out = read_pty(mfd)
    assert p.wait(timeout=60)==0
    txt = out.decode().replace('\r\n', '\n')
    assert '\\x1b[2J' in txt and '\\u2028' in txt and 'line 2' in txt and '\x1b' not in txt, repr(txt)

# --- convert: `-o -` is stdout, and options that don't fit the form are errors, not ignored

def test_convert_stdout_dash_and_misfit_options(tour, tmp_path):
    assert ok('convert', tour, '--to', 'py', '-o', '-', cwd=tmp_path)==ok('convert', tour, '--to', 'py') and not (tmp_path/'-').exists()
    fails('convert', tour, '--to', 'md', '--fmt', 'anthropic', has='--fmt goes with --to jsonl or --from jsonl only')
    fails('convert', tour, '--to', 'py', '--assets', 'img', cwd=tmp_path, has='--assets goes with --to md only')
    assert not (tmp_path/'img').exists()
    fails('convert', tour, '--from', 'openai', '-o', '-', has='--from needs -o FILE.ipynb')
    assert ok('convert', tour, tour, '--to', 'jsonl', '--fmt', 'anthropic').count('\n')==2

# --- the Python views: wrong argument types are ValueErrors naming the message; `Dialog.view` takes ids too

def test_views_bad_arguments():
    m = Message('a\nb', id='m1')
    for kw in (dict(start_line='2'), dict(end_line=1.5), dict(start_line=None), dict(start_line=True)):
        with pytest.raises(ValueError, match="message 'm1'"): m.view(**kw)
    d = Dialog('x', [m, Message('c', id='m2')])
    assert d.view(msgs=['m2'])==d.view(msgs=[d['m2']]) and 'id="m1"' not in d.view(msgs=['m2'])
    with pytest.raises(ValueError, match="dialog 'x'"): d.view(msgs=['zz'])

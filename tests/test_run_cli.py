"`nbdialog run` as a user runs it: everything by default, in a kernel, saving as it goes; Ctrl-C, dead kernels, timeouts, skipped cells, dry runs"
import json, os, pty, signal, subprocess, sys, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import nbd, ok, fails, cmd, env, read_pty, ids

def mk(tmp_path, *srcs, name='r'):
    d = Dialog(name)
    ms = [d.mk_message(s, msg_type='note') if s.startswith('# ') else d.mk_message(s) for s in srcs]
    d.save(tmp_path/f'{name}.ipynb')
    return tmp_path/f'{name}.ipynb', ms

def test_help_says_all_by_default():
    out = ok('run', '--help')
    assert 'all by default' in out and '--force-eval' in out and 'eval: false' in out and 'inf' in out

@pytest.mark.parametrize('bad', ['0', '-1', 'nan', 'soon', ''])
def test_bad_timeouts_are_usage_errors(tour, bad):
    r = fails('run', tour, '--timeout', bad)
    assert 'usage:' in r.stderr and 'timeout must be a number of seconds above 0, or inf' in r.stderr

def test_dry_run_runs_nothing(tmp_path):
    p,(a,n,s,b) = mk(tmp_path, "open('ran.txt', 'w').write('x')", '# a note', '#| eval: false\nbuy()', "print(1)")
    before = p.read_bytes()
    r = nbd('run', p, '--dry-run', cwd=tmp_path)
    assert r.returncode==0 and not (tmp_path/'ran.txt').exists() and p.read_bytes()==before
    assert r.stdout.splitlines()==[f'would run {a.preview(100)}', f'would run {b.preview(100)}', f'would skip {s.id} (#| eval: false)']
    assert ok('run', p, '--dry-run', '--force-eval').splitlines()==[f'would run {m.preview(100)}' for m in (a,s,b)] # nothing skipped: no 'nothing to run' after them

def test_without_the_run_extra(tour):
    code = "import sys; sys.modules['nbclient'] = None; from dialog.cli import main; sys.exit(main(sys.argv[1:]))"
    r = subprocess.run([sys.executable, '-c', code, 'run', str(tour)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode==2 and 'pip install "nbdialog[run]"' in r.stderr and 'Traceback' not in r.stderr

@pytest.mark.slow
def test_runs_everything_by_default_and_reports_skips(tmp_path):
    p,(a,n,s,b,c) = mk(tmp_path, "print('hi')\n6*7", '# a note', '#| eval: false\n1/0', '1/0', "print('after')")
    r = nbd('run', p)
    assert r.returncode==1, r.stderr
    assert r.stdout.splitlines()==[f'{a.id}: ok', f'{b.id}: error ZeroDivisionError: division by zero', f'{s.id}: skipped (#| eval: false)', 'stopped at the error: 1 code message not run']
    ms = read_ipynb(p)
    assert ms[a.id].output==[dict(output_type='stream', name='stdout', text='hi\n'), dict(output_type='execute_result', data={'text/plain': '42'}, metadata={}, execution_count=1)]
    assert ms[s.id].output==[] and ms[c.id].output==[]
    r = nbd('run', p, '--continue-on-error', '--force-eval')
    assert r.returncode==1 and read_ipynb(p)[c.id].output[0]['text']=='after\n' and read_ipynb(p)[s.id].output[0]['ename']=='ZeroDivisionError'
    assert ok('run', p, c.id).strip()==f'{c.id}: ok'
    assert ok('run', p, '--above', b.id).splitlines()==[f'{a.id}: ok', f'{s.id}: skipped (#| eval: false)']

@pytest.mark.slow
def test_timeout_then_the_next_message(tmp_path):
    p,(a,b) = mk(tmp_path, 'import time\ntime.sleep(60)', "print('next')")
    t0 = time.time()
    r = nbd('run', p, '--timeout', '1', '--continue-on-error')
    assert time.time()-t0 < 40 and r.returncode==1
    assert r.stdout.splitlines()==[f'{a.id}: error TimeoutError: timed out after 1s', f'{b.id}: ok']
    assert read_ipynb(p)[b.id].output==[dict(output_type='stream', name='stdout', text='next\n')]
    assert nbd('run', p, b.id, '--timeout', 'inf').returncode==0 and nbd('run', p, b.id, '--timeout', '1e12').returncode==0

@pytest.mark.slow
def test_timeout_the_code_ignores(tmp_path):
    "Code that catches the timeout's interrupt keeps the kernel busy: the run stops there, rather than give the next message a timeout it never had"
    p,(a,b) = mk(tmp_path, "import time\nwhile True:\n    try: time.sleep(0.2)\n    except KeyboardInterrupt: print('caught')", "print('next')")
    r = nbd('run', p, '--timeout', '1', '--continue-on-error')
    assert r.returncode==1, (r.stdout, r.stderr)
    assert r.stdout.splitlines()==[f'{a.id}: error TimeoutError: timed out after 1s; the kernel did not stop when interrupted',
                                   'the kernel did not stop after a timeout: 1 code message not run']
    d = read_ipynb(p)
    assert d[a.id].output[0]['text'].startswith('caught') and not d[b.id].output # the next message was not run, nor given a false timeout

@pytest.mark.slow
def test_dead_kernel_exit_code_and_outputs_kept(tmp_path):
    p,(a,b,c) = mk(tmp_path, "print('kept')", "print('partial', flush=True)\nimport time; time.sleep(0.5)\nimport os; os._exit(7)", "print('never')")
    r = nbd('run', p)
    assert r.returncode==1 and 'Traceback' not in r.stderr, r.stderr
    assert r.stdout.splitlines()==[f'{a.id}: ok', f'{b.id}: error DeadKernelError: the kernel died while this message ran (exit code 7)', 'the kernel died: 1 code message not run']
    ms = read_ipynb(p)
    assert ms[a.id].output[0]['text']=='kept\n' and ms[b.id].output[0]['text']=='partial\n' and ms[c.id].output==[]

@pytest.mark.slow
def test_ctrl_c_keeps_what_finished(tmp_path):
    p,(a,b,c) = mk(tmp_path, "print('done')", "print('waiting', flush=True)\nimport time; time.sleep(60)", "print('never')")
    proc = subprocess.Popen(cmd + ['run', str(p), '--save-every', '0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    t0 = time.time()
    while not read_ipynb(p)[a.id].output:
        assert time.time()-t0 < 60 and proc.poll() is None
        time.sleep(0.1)
    time.sleep(1.5) # b is running
    proc.send_signal(signal.SIGINT)
    out,err = proc.communicate(timeout=60)
    assert proc.returncode==130 and 'Traceback' not in err, (out, err)
    assert out.splitlines()==[f'{a.id}: ok', f'{b.id}: error KeyboardInterrupt: ', 'interrupted (Ctrl-C): 1 code message not run']
    ms = read_ipynb(p)
    assert ms[a.id].output[0]['text']=='done\n' and ms[b.id].output[0]['text']=='waiting\n' and ms[b.id].output[-1]['ename']=='KeyboardInterrupt' and ms[c.id].output==[]

@pytest.mark.slow
def test_imports_beside_a_dialog_in_any_folder(tmp_path):
    f = tmp_path/"o'brien's \"dialogs\""
    f.mkdir()
    (f/'helper.py').write_text('X = 5\n')
    (f/'data.txt').write_text('beside the dialog')
    p,(a,) = mk(f, "import helper\nprint(helper.X, open('data.txt').read())")
    ok('run', p, cwd='/')
    assert read_ipynb(p)[a.id].output==[dict(output_type='stream', name='stdout', text='5 beside the dialog\n')]

@pytest.mark.slow
def test_ids_of_an_old_file_are_written_once(tmp_path):
    nb = dict(nbformat=4, nbformat_minor=4, metadata={}, cells=[dict(cell_type='code', source='6*7', metadata={}, outputs=[], execution_count=None)])
    p = tmp_path/'old.ipynb'; p.write_text(json.dumps(nb))
    i = ok('summary', p).split(':')[0]
    assert ok('summary', p).split(':')[0]==i # the same id on every read
    r = nbd('run', p, i)
    assert r.returncode==0 and r.stdout.strip()==f'{i}: ok'
    assert r.stderr.count('had no cell ids')==1 and 'nbformat 4.5' in r.stderr
    back = json.loads(p.read_text())
    assert back['nbformat_minor']==5 and back['cells'][0]['id']==i
    assert 'had no cell ids' not in nbd('run', p, i).stderr

@pytest.mark.slow
def test_progress_only_on_a_terminal(tmp_path):
    p,_ = mk(tmp_path, '1', '2')
    assert nbd('run', p).stderr==''
    mfd,sfd = pty.openpty()
    proc = subprocess.Popen(cmd + ['run', str(p)], stdout=subprocess.PIPE, stderr=sfd, env=env)
    os.close(sfd)
    proc.communicate(timeout=120)
    err = read_pty(mfd)
    assert b'\rrunning 1/2' in err.replace(b'\x1b[K', b'') and b'running 2/2' in err

@pytest.mark.slow
def test_the_progress_line_ends_when_a_run_stops_early(tmp_path):
    "A run stopped by its first message's error prints its report on a line of its own, not after the progress line"
    p,(a,_,_) = mk(tmp_path, '1/0', '2', '3')
    mfd,sfd = pty.openpty()
    proc = subprocess.Popen(cmd + ['run', str(p)], stdout=sfd, stderr=sfd, env=env)
    os.close(sfd)
    proc.communicate(timeout=120)
    lines = read_pty(mfd).decode(errors='replace').replace('\r\n', '\n').split('\n')
    assert any(l.endswith(f'running 1/3 {a.id}') for l in lines), lines
    assert any(l.startswith(f'{a.id}: error ZeroDivisionError') for l in lines), lines

@pytest.mark.slow
def test_surrogates_in_outputs_are_saved(tmp_path):
    p,(a,b) = mk(tmp_path, "print('x\\ud800y\\ud83d\\ude00')", "raise ValueError('\\udcff')")
    r = nbd('run', p, '--continue-on-error')
    assert r.returncode==1 and 'Traceback' not in r.stderr, r.stderr
    assert r.stdout.splitlines()[1].startswith(f'{b.id}: error ValueError: ')
    read_ipynb(p).validate()

def test_a_kernel_that_cannot_start(tmp_path):
    "A broken kernelspec: one clear line and exit 2, not nbclient's traceback; nothing written"
    ks = tmp_path/'jp'/'kernels'/'python3'; ks.mkdir(parents=True)
    (ks/'kernel.json').write_text(json.dumps(dict(argv=['/bin/false', '{connection_file}'], display_name='broken', language='python')))
    p,(a,) = mk(tmp_path, 'print(1)')
    before = p.read_bytes()
    r = subprocess.run(cmd + ['run', str(p)], capture_output=True, text=True, env=dict(env, JUPYTER_PATH=str(tmp_path/'jp')), timeout=120)
    assert r.returncode==2 and 'Traceback' not in r.stderr and "the Jupyter kernel 'python3' did not start" in r.stderr, r.stderr
    assert p.read_bytes()==before

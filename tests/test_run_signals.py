"`nbdialog run` and signals: Ctrl-C reaches what the kernel started, SIGTERM saves and cleans up, and the exit code is the run's whatever happens to stdout"
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.run # Dialog.execute
from cli_helpers import nbd, cmd, env

def mk(path, *srcs):
    d = Dialog(Path(path).stem)
    ms = [d.mk_message(s) for s in srcs]
    d.save(path)
    return ms

def started(tmp_path, *srcs, args=()):
    "Start `nbdialog run` on a dialog of `srcs` whose last message writes the pid of a `sleep 60` it starts; returns the process, messages and that pid"
    p = tmp_path/'s.ipynb'
    ms = mk(p, *srcs, "import os; os.system('echo $$ > sleeper; exec sleep 60')")
    run_env = env | dict(TMPDIR=str(tmp_path/'tmp'))
    (tmp_path/'tmp').mkdir()
    proc = subprocess.Popen(cmd + ['run', str(p), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env, cwd=tmp_path)
    t = time.time()
    while not ((f := tmp_path/'sleeper').exists() and f.read_text().strip()):
        assert time.time()-t < 60 and proc.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)
    return proc,p,ms,int(f.read_text())

def alive(pid):
    try: os.kill(pid, 0)
    except ProcessLookupError: return False
    return True

@pytest.mark.slow
def test_ctrl_c_stops_what_the_code_started(tmp_path):
    "The interrupt goes to the kernel's process group: a shell command the code runs stops too, rather than run its 60 s out"
    proc,p,(a,b),pid = started(tmp_path, "print('a')")
    t = time.time()
    proc.send_signal(signal.SIGINT)
    out,err = proc.communicate(timeout=60)
    assert proc.returncode==130 and time.time()-t < 20 and not alive(pid), (out, err)
    assert read_ipynb(p)[a.id].output[0]['text']=='a\n'

@pytest.mark.slow
@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_saves_and_leaves_no_kernel_files(tmp_path, sig):
    proc,p,(a,b),pid = started(tmp_path, "print('a')")
    proc.send_signal(sig)
    out,err = proc.communicate(timeout=60)
    assert proc.returncode==128+sig and f'stopped by signal {sig.name}' in err and 'Traceback' not in err, (out, err)
    assert read_ipynb(p)[a.id].output[0]['text']=='a\n' # saved, though the save interval had not passed
    assert os.listdir(tmp_path/'tmp')==[] and not alive(pid) # the kernel's connection file removed, the kernel and its children gone

@pytest.mark.slow
def test_exit_code_survives_a_closed_pipe(tmp_path):
    "`nbdialog run f | head` of a failed run: stdout's reader is gone, the exit code is still the run's"
    p = tmp_path/'f.ipynb'
    mk(p, *[f'print({i})' for i in range(30)], '1/0')
    r,w = os.pipe()
    os.close(r)
    try: res = subprocess.run(cmd + ['run', str(p)], stdout=w, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    finally: os.close(w)
    assert res.returncode==1 and 'Traceback' not in res.stderr, res.stderr
    assert read_ipynb(p).messages[-1].output[0]['ename']=='ZeroDivisionError'

_slow_import = """import sys, time
class Slow: # a finder that holds up the import of dialog.core: the moment an early Ctrl-C lands in
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name=='dialog.core': print('importing', flush=True); time.sleep(30)
sys.meta_path.insert(0, Slow)
sys.argv = ['nbdialog', 'summary', sys.argv[1]] # as the installed script runs it
from dialog.cli import main
sys.exit(main())"""

def test_an_early_ctrl_c_prints_no_traceback(tour):
    "Ctrl-C while Python still imports the library (the first ~0.2 s of a real run): a quiet exit with 130, not the import's traceback"
    proc = subprocess.Popen([sys.executable, '-c', _slow_import, str(tour)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline()=='importing\n'
    proc.send_signal(signal.SIGINT)
    out,err = proc.communicate(timeout=60)
    assert proc.returncode==130 and err=='', (proc.returncode, err)

def test_ctrl_c_in_a_program_importing_the_cli_is_its_own(tour):
    "Imported by someone else's program, dialog.cli leaves its Ctrl-C alone"
    code = "import signal; import dialog.cli; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env).stdout=='True\n'

def _slow_kernel(tmp_path):
    "An environment whose python3 kernel never comes up (it sleeps instead of connecting): a run stays in the kernel's start"
    ks = tmp_path/'jp'/'kernels'/'python3'; ks.mkdir(parents=True)
    (ks/'kernel.json').write_text(json.dumps(dict(argv=[sys.executable, '-c', 'import time; time.sleep(60)', '{connection_file}'], display_name='slow', language='python')))
    (tmp_path/'tmp').mkdir()
    return env | dict(JUPYTER_PATH=str(tmp_path/'jp'), TMPDIR=str(tmp_path/'tmp'))

@pytest.mark.slow
@pytest.mark.parametrize('sig,code', [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_the_kernel_starts(tmp_path, sig, code):
    "SIGTERM or Ctrl-C while the kernel starts: the run ends with the signal's code, the kernel process and its connection file gone"
    p = tmp_path/'s.ipynb'
    mk(p, "print('never')")
    proc = subprocess.Popen(cmd + ['run', str(p)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_slow_kernel(tmp_path), cwd=tmp_path)
    t = time.time()
    while not os.listdir(tmp_path/'tmp'): # the connection file: the kernel is starting
        assert time.time()-t < 30 and proc.poll() is None
        time.sleep(0.02)
    time.sleep(0.3)
    proc.send_signal(sig)
    out,err = proc.communicate(timeout=60)
    kernels = subprocess.run(['pgrep', '-f', 'import time; time.sleep(60)'], capture_output=True, text=True).stdout.split()
    assert proc.returncode==code and 'Traceback' not in err and os.listdir(tmp_path/'tmp')==[], (proc.returncode, err, os.listdir(tmp_path/'tmp'))
    assert not any(alive(int(k)) and str(tmp_path) in Path(f'/proc/{k}/cmdline').read_text(errors='replace') for k in kernels if Path(f'/proc/{k}').exists())

@pytest.mark.slow
def test_a_ctrl_c_as_a_message_starts_stops_it(tmp_path):
    "A Ctrl-C that reaches the kernel just before it begins the message (idle, so it ignores it) is sent again when the message begins: the message stops"
    d = Dialog('c'); a = d.mk_message("print('a')"); b = d.mk_message("import time; time.sleep(30); print('ran to its end')")
    def progress(i, n, m):
        if i==1: os.kill(os.getpid(), signal.SIGINT) # after the run looked for an earlier Ctrl-C, before the kernel has b
    t = time.time()
    rep = d.execute(progress=progress)
    assert time.time()-t < 20 and rep.stopped=='interrupt' and b.output[-1]['ename']=='KeyboardInterrupt'

@pytest.mark.slow
@pytest.mark.parametrize('ok_run', [True, False])
def test_no_stdout_at_all(tmp_path, ok_run):
    "stdout closed (`>&-`, as daemons and cron jobs may run it): the exit code is still the run's"
    p = tmp_path/'n.ipynb'
    mk(p, '1+1' if ok_run else '1/0')
    r = subprocess.run(cmd + ['run', str(p)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, timeout=120, pass_fds=(), close_fds=True,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode==(0 if ok_run else 1) and 'Traceback' not in r.stderr, r.stderr

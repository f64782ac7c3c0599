"dialog.run: timeouts, shells released, and outputs kept as storage keeps them (lone surrogates round-trip)."
import time
import pytest
from hypothesis import given
from dialog.core import *
from dialog.ipynb import *
from dialog.run import _capture_shell, _close_shell, _timeout_out
from cli_helpers import nbd, ok

def test_execute_releases_its_shell():
    "A shell `execute` made for itself is released after the run: no event-loop thread is left behind"
    import threading
    from dialog.run import _capture_shell
    def loops(): return sum(t.name=='CaptureShell-loop' and t.is_alive() for t in threading.enumerate())
    d = Dialog('x'); m = d.mk_message('1+1')
    n = loops()
    for _ in range(3): d.execute(); m.execute()
    time.sleep(0.3)
    assert loops()==n and m.output[0]['data']['text/plain']=='2'
    sh = _capture_shell()
    d.execute(shell=sh); m.execute(sh)
    assert loops()==n+1 and sh.execution_count==3  # a shell given is the caller's: used, and left running

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

# --- 1. a timeout is the same output on every Python, and the shell goes on
@pytest.mark.slow
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

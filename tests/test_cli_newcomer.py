"Problems a newcomer met with nbdialog (issue 10's follow-up): each test fails on the behaviour reported"
import json, os, shutil, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.cli import _capture_shell, _close_shell, _timeout_out
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

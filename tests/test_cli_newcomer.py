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

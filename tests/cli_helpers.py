"Running the nbdialog command line from tests: as a real program in a subprocess, with the repo on its path"
import os, subprocess, sys
from pathlib import Path
from dialog.ipynb import read_ipynb

root = Path(__file__).resolve().parent.parent
tour_src = root/'examples'/'tour.ipynb'
env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
cmd = [sys.executable, '-m', 'dialog.cli']

def nbd(*args, input=None, **kw):
    "Run the command line in a subprocess; returns the `CompletedProcess` (text stdout and stderr)"
    return subprocess.run(cmd + [str(a) for a in args], input=input, capture_output=True, text=True, env=env, timeout=120, **kw)

def ok(*args, **kw):
    r = nbd(*args, **kw)
    assert r.returncode==0, (r.returncode, r.stdout, r.stderr)
    return r.stdout

def fails(*args, code=2, has=None, **kw):
    "Run a command that must fail with exit `code` and one clear line on stderr (containing `has`), no traceback"
    r = nbd(*args, **kw)
    assert r.returncode==code, (r.returncode, r.stdout, r.stderr)
    if code==2 and not any(a in ('-h', '--help') for a in args):
        assert 'Traceback' not in r.stderr, r.stderr
        assert r.stderr.strip(), 'no error message'
        if has: assert has in r.stderr.strip().splitlines()[-1], r.stderr
    return r

def ids(p): return [m.id for m in read_ipynb(p).messages]

def blocked_on_stdin(pid):
    "Is process `pid` blocked reading fd 0 (Linux /proc)?"
    try: f = Path(f'/proc/{pid}/syscall').read_text().split()
    except OSError: return False
    return len(f)>1 and f[0]=='0' and int(f[1], 16)==0

def read_pty(mfd):
    "All a pseudo-terminal's master `mfd` gives until its other side is closed; then close it"
    res = b''
    while True:
        try: chunk = os.read(mfd, 4096)
        except OSError: break
        if not chunk: break
        res += chunk
    os.close(mfd)
    return res

"`.ci/run`, the script CI runs: it fails when the tests fail (checked on the real script, with stub commands standing in for Python and nbdev)"
import os, shutil, subprocess
from pathlib import Path
import pytest

root = Path(__file__).resolve().parent.parent

def _run_ci(tmp_path, failing):
    "Exit code and output of the real `.ci/run` in a new git repo where the stub command `failing` exits 1, every other stub 0"
    r,b = tmp_path/'repo',tmp_path/'bin'
    (r/'.ci').mkdir(parents=True); b.mkdir()
    for f in ('run', 'prepare'): shutil.copy(root/'.ci'/f, r/'.ci'/f)
    for f in ('README.md', 'dialog/x.py', 'nbs/x.txt'): (r/f).parent.mkdir(exist_ok=True); (r/f).write_text('x\n')
    def stub(name, body):
        (b/name).write_text('#!/bin/bash\n' + body + '\n'); (b/name).chmod(0o755)
    stub('python3', f'if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin"; echo "export PATH={b}:\\$PATH" > "$3/bin/activate"; fi')
    fail = lambda n: 'echo "$0 failed" >&2; exit 1' if n==failing else 'exit 0'
    stub('python', f'if [ "$1" = -m ] && [ "$2" = venv ]; then mkdir -p "$3/bin"; ln -s {b}/python "$3/bin/python"; exit 0; fi\n'  # an oracle's own environment
                   'case "$0" in */tyler/bin/python) exit 0;; esac\n'  # what runs there (Tyler's test) is not README's test command
                   f'if [ "$2" = pytest ]; then echo PYTEST_RAN; {fail("pytest")}; fi\nif [ "$1" = -c ]; then echo 1.0; fi')
    for n in ('nbdev-export', 'nbdev-clean', 'nbdev-test'): stub(n, fail(n))
    env = {'PATH': f'{b}:/usr/bin:/bin', 'HOME': str(tmp_path), 'TMPDIR': str(tmp_path), 'GIT_CONFIG_NOSYSTEM': '1'}
    git = lambda *a: subprocess.run(['git', '-c', 'user.name=x', '-c', 'user.email=x@x', *a], cwd=r, env=env, capture_output=True, check=True)
    git('init', '-q'); git('add', '-A'); git('commit', '-qm', 'x')
    p = subprocess.run(['bash', '.ci/run'], cwd=r, env=env, capture_output=True, text=True, timeout=60)
    return p.returncode,p.stdout

@pytest.mark.skipif(not shutil.which('git'), reason='needs git')
@pytest.mark.parametrize('failing', ['nbdev-test', 'pytest', 'nbdev-export'])
def test_ci_fails_when_a_step_fails(tmp_path, failing):
    rc,out = _run_ci(tmp_path, failing)
    assert rc!=0, out
    assert ('PYTEST_RAN' in out) == (failing=='pytest')  # a failing step stops the run there

@pytest.mark.skipif(not shutil.which('git'), reason='needs git')
def test_ci_passes_when_every_step_passes(tmp_path):
    rc,out = _run_ci(tmp_path, None)
    assert rc==0 and 'PYTEST_RAN' in out, out

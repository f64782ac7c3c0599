"The examples: the tour's nbdialog commands run from the repo root, as README runs them, and the tour is what mk_tour.py writes; the sessions dialog.session's page reads are what mk_sessions.py writes, and no page reads a file the repository doesn't ship."
import pytest
import json, os, shutil, subprocess, sys
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import env, nbd, root, tour_src

# --- 6. the tour's commands work from the repo root, as README runs them, and the tour is what mk_tour.py writes
def test_tour_commands_run_from_the_root():
    import re
    root = tour_src.parent.parent
    cmds = [c for m in read_ipynb(tour_src).messages for c in re.findall(r'`(nbdialog [^`]+)`', m.content)]
    assert cmds, 'the tour names no nbdialog command'
    for c in cmds:
        r = nbd(*c.split()[1:], cwd=root)
        assert r.returncode==0 and r.stdout, (c, r.stderr)

def _sans_tracebacks(b):
    "Notebook JSON `b` parsed, each error output's traceback cut to its last line (the error itself): the lines above it are IPython's own text, which changes between IPython versions; so does the Python version `language_info` records"
    nb = json.loads(b)
    nb['metadata']['language_info'].pop('version')
    for c in nb['cells']:
        for o in c.get('outputs', []):
            if o['output_type']=='error': o['traceback'] = o['traceback'][-1:]
    return nb

@pytest.mark.slow # starts a kernel
def test_tour_is_what_mk_tour_writes(tmp_path):
    "The tour is what mk_tour.py writes, whichever IPython runs it: tracebacks are kept without colour codes, and compared by their error only"
    shutil.copy(tour_src.parent/'mk_tour.py', tmp_path/'mk_tour.py')
    r = subprocess.run([sys.executable, tmp_path/'mk_tour.py'], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=os.environ | {'PYTHONPATH': str(tour_src.parent.parent)})
    assert r.returncode==0, r.stderr
    new,old = (tmp_path/'tour.ipynb').read_bytes(),tour_src.read_bytes()
    assert not any(e in b for b in (new, old) for e in (b'\\u001b', b'\x1b')), 'a traceback kept its colour codes'
    assert _sans_tracebacks(new)==_sans_tracebacks(old), ('examples/tour.ipynb differs from what examples/mk_tour.py writes (tracebacks aside): '
        'if you changed the library or mk_tour.py, run python examples/mk_tour.py and commit the tour')

# --- the sessions dialog.session's page reads ship with the repository, and are what mk_sessions.py writes
def test_sessions_are_what_mk_sessions_writes(tmp_path):
    "examples/claude-session.jsonl and codex-rollout.jsonl are what mk_sessions.py writes, the same bytes at every run, each a session of its agent"
    from dialog.session import sess_agent
    ex = tour_src.parent
    shutil.copy(ex/'mk_sessions.py', tmp_path/'mk_sessions.py')
    for _ in range(2):
        r = subprocess.run([sys.executable, tmp_path/'mk_sessions.py'], capture_output=True, text=True, timeout=60)
        assert r.returncode==0, r.stderr
        for f,agent in (('claude-session.jsonl', 'claude'), ('codex-rollout.jsonl', 'codex')):
            assert (tmp_path/f).read_bytes()==(ex/f).read_bytes(), (f'examples/{f} differs from what examples/mk_sessions.py writes: '
                'if you changed mk_sessions.py, run python examples/mk_sessions.py and commit the sessions')
            assert sess_agent(ex/f)==agent, f

def test_no_page_reads_the_shared_corpus():
    "The notebooks' examples read files the repository ships: nbdev-test passes in a clone with no ../shared beside it"
    for nb in sorted((tour_src.parent.parent/'nbs').glob('*.ipynb')):
        for i,c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
            if c['cell_type']=='code': assert 'shared/corpus' not in ''.join(c['source']), f'{nb.name} cell {i} reads ../shared/corpus'

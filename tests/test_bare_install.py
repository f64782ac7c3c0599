"With only the runtime dependency, fastcore (what `pip install -e .` gives a newcomer), the library imports and every command that names no extra works: `stats` among them"
import importlib.metadata as md, os, shutil, subprocess, sys
from pathlib import Path
import pytest
from cli_helpers import root, tour_src
from dialog.ipynb import read_ipynb
from dialog.dataset import folder_stats

def _bare_site(dest):
    "Folder `dest` holding links to fastcore and what it requires, nothing else: with `python -S` (no site-packages) it is all there is"
    dest.mkdir()
    todo,seen = ['fastcore'],set()
    while todo:
        name = todo.pop()
        if name in seen: continue
        seen.add(name)
        dist = md.distribution(name)
        for top in {f.parts[0] for f in dist.files or () if len(f.parts)>1 and not f.parts[0].endswith('-info') and f.parts[0] not in ('..', '__pycache__')}:
            if not (dest/top).exists(): (dest/top).symlink_to(Path(dist.locate_file(top)))
        todo += [r.split(';')[0].split('[')[0].strip().split(' ')[0] for r in dist.requires or () if 'extra ==' not in r]
    return dest

@pytest.fixture(scope='module')
def bare(tmp_path_factory):
    "Run `python -S -m dialog.cli ARGS` with the library and fastcore alone on the path: (exit code, stdout, stderr)"
    site = _bare_site(tmp_path_factory.mktemp('bare')/'site')
    env = {k:v for k,v in os.environ.items() if k!='PYTHONPATH'} | {'PYTHONPATH': os.pathsep.join([str(root), str(site)])}
    def run(*args, cwd=root, code=None):
        cmd = [sys.executable, '-S'] + (['-c', code] if code else ['-m', 'dialog.cli', *map(str, args)])
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
        return r.returncode,r.stdout,r.stderr
    return run

def test_the_environment_is_bare(bare):
    "The precondition of this file: no extra (nor anything else of site-packages) can be imported"
    for mod in ('pyarrow', 'tqdm', 'nbclient', 'IPython', 'exhash', 'mcp', 'PIL', 'tiktoken'):
        rc,_,err = bare(code=f'import {mod}')
        assert rc==1 and 'ModuleNotFoundError' in err, mod
    assert bare(code='import dialog.core, dialog.ipynb, dialog.chat, dialog.view, dialog.dataset, dialog.cli')[0]==0

def test_stats_needs_no_extra(bare, tmp_path, monkeypatch):
    "`nbdialog stats` counts a folder without pyarrow, and says what `folder_stats` says with every extra installed"
    d = tmp_path/'talks'; (d/'sub').mkdir(parents=True)
    shutil.copy(tour_src, d/'tour.ipynb'); shutil.copy(tour_src, d/'sub'/'again.ipynb')
    (d/'bad.ipynb').write_text('{"cells": [')
    rc,out,err = bare('stats', 'talks', '--workers', '2', cwd=tmp_path)
    assert (rc, err) == (0, ''), err
    monkeypatch.chdir(tmp_path)
    assert out == folder_stats('talks', workers=0) + '\n'
    assert out.startswith(f'2 dialogs, {2*len(read_ipynb(tour_src).messages)} messages, ') and '1 bad file not read:\n  talks/bad.ipynb: not JSON' in out

def test_commands_without_extras(bare, tmp_path):
    "The Get started commands, finding, editing and converting work bare; a command that needs an extra says which, exit 2"
    shutil.copy(tour_src, tmp_path/'t.ipynb')
    for args in (['summary', 't.ipynb'], ['view', 't.ipynb', '--out'], ['find', 't.ipynb', 'greet'], ['convert', 't.ipynb', '--to', 'anthropic'],
                 ['add', 't.ipynb', '--content', 'a note', '--type', 'note'], ['export', '.', '-o', 'all.jsonl']):
        rc,out,err = bare(*args, cwd=tmp_path)
        assert rc==0 and out, (args, err)
    rc,out,err = bare('export', '.', '-o', 'all.parquet', cwd=tmp_path)
    assert rc==2 and 'pip install "nbdialog[data]"' in err and not (tmp_path/'all.parquet').exists()
    rc,out,err = bare('run', 't.ipynb', cwd=tmp_path)
    assert rc==2 and 'pip install "nbdialog[run]"' in err

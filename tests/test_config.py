"settings.ini mirrors pyproject.toml for tools of the nbdev 2 era: they must never disagree."
import configparser, re, subprocess, sys, tarfile, zipfile
import pytest
try: import tomllib
except ImportError: import tomli as tomllib  # Python 3.10
from pathlib import Path
import dialog

root = Path(__file__).parent.parent
proj = tomllib.loads((root/'pyproject.toml').read_text())
ini = configparser.ConfigParser(); ini.read(root/'settings.ini')
cfg = ini['DEFAULT']
nbdev = proj['tool']['nbdev']

def test_nbdev_keys_agree():
    for k in ('lib_path','nbs_path','doc_path','title','branch','readme_nb','tst_flags'): assert cfg[k]==str(nbdev[k]), k
    for k in ('recursive','clean_ids','clear_all','put_version_in_init','jupyter_hooks','custom_sidebar'):
        assert cfg.getboolean(k)==nbdev[k], k

def test_project_keys_agree():
    p = proj['project']
    assert cfg['lib_name']==p['name'] and cfg['repo']==p['name']
    assert cfg['description']==p['description']
    assert cfg['min_python']==p['requires-python'].removeprefix('>=')
    assert cfg['keywords'].split()==p['keywords']
    assert cfg['author']==p['authors'][0]['name'] and cfg['author_email']==p['authors'][0]['email']
    assert cfg['requirements'].split()==p['dependencies']
    assert cfg['dev_requirements'].split()==p['optional-dependencies']['dev']
    assert cfg['git_url']==p['urls']['Repository']
    assert cfg['doc_host']+cfg['doc_baseurl']+'/'==p['urls']['Documentation']
    assert (cfg['license'], p['license'])==('apache2', 'Apache-2.0')

def test_version_single_source():
    "The version lives in dialog/__init__.py alone: pyproject reads it from there, and settings.ini keeps no copy to fall out of step"
    assert proj['tool']['setuptools']['dynamic']['version']=={'attr': 'dialog.__version__'} and 'version' not in proj['project']
    assert 'version' not in cfg and '__version__' not in cfg
    assert re.fullmatch(r'\d+\.\d+\.\d+', dialog.__version__)

def test_bump_version_keeps_one_source(tmp_path):
    "What `nbdev-bump-version` does (nbdev's `set_version` on `dialog/__init__.py`) leaves every place that reads the version agreeing"
    from nbdev.config import bump_version, set_version, read_version
    (tmp_path/'__init__.py').write_text((root/'dialog'/'__init__.py').read_text())
    new = bump_version(dialog.__version__)
    set_version(tmp_path, new)
    assert read_version(tmp_path)==new!=dialog.__version__
    assert 'version' not in cfg  # nothing else to bump

def test_runtime_dependency_is_fastcore_only():
    assert [re.split(r'[<>=~!]', d)[0] for d in proj['project']['dependencies']]==['fastcore']
    assert proj['project']['entry-points']['nbdev']=={'dialog': 'dialog._modidx:d'}

def _built(kind, dest):
    "The names of the files in the `kind` ('sdist' or 'wheel') that `python -m build` makes of the project in folder `dest`"
    r = subprocess.run([sys.executable, '-m', 'build', f'--{kind}', '--outdir', str(dest)], cwd=root, capture_output=True, text=True)
    assert r.returncode==0, r.stderr
    if kind=='sdist': return tarfile.open(next(dest.glob('*.tar.gz'))).getnames()
    return zipfile.ZipFile(next(dest.glob('*.whl'))).namelist()

@pytest.mark.slow
def test_sdist_ships_no_tests(tmp_path):
    "The sdist holds the library and no tests (they need the notebooks, bench/ and the corpus, which only the repository has)"
    names = _built('sdist', tmp_path)
    assert any(n.endswith('dialog/core.py') for n in names)
    assert not [n for n in names if '/tests/' in n or '/bench/' in n]

def test_readme_says_what_index_says():
    "README.md is rendered from nbs/index.ipynb by .ci/mk_readme.py: every cell of the index, and every saved output, is in it, in order"
    from fastcore.nbio import read_nb
    sys.path.insert(0, str(root/'.ci'))
    from mk_readme import out_txt, indented
    readme,pos = (root/'README.md').read_text(),0
    for c in read_nb(root/'nbs'/'index.ipynb').cells:
        outs = [indented(t.rstrip('\n')) for t in map(out_txt, c.get('outputs', [])) if t.strip()]
        assert c.cell_type!='code' or outs or c.source.startswith('from '), f'index.ipynb cell {c.id} has no saved output for the docs site'
        for part in [c.source, *outs]:
            i = readme.find(part, pos)
            assert i>=0, f'README.md lacks (or misorders) index.ipynb cell {c.id}: {part[:60]!r}; run python .ci/mk_readme.py'
            pos = i+len(part)

def test_readme_first_commands_run():
    "The `nbdialog` commands README's Get started section gives run on the example dialog and print what it says"
    readme = (root/'README.md').read_text()
    block = readme.split('## Get started',1)[1].split('```sh\n',1)[1].split('```',1)[0]
    cmds = [l.split() for l in block.splitlines() if l.startswith('nbdialog ')]
    assert len(cmds)>=2
    for cmd in cmds:
        r = subprocess.run([sys.executable, '-m', 'dialog.cli', *cmd[1:]], cwd=root, capture_output=True, text=True)
        assert r.returncode==0 and r.stdout.strip(), (cmd, r.stderr)
        assert ':prompt: ' in r.stdout or '── ' in r.stdout

@pytest.mark.slow
def test_wheel_ships_py_typed(tmp_path):
    "The wheel marks the package as typed (PEP 561's py.typed), so type checkers read the annotations users rely on"
    names = _built('wheel', tmp_path)
    assert 'dialog/py.typed' in names and 'dialog/core.py' in names

def _readme_block(after):
    "The first ```sh block of README.md after the text `after`"
    return (root/'README.md').read_text().split(after, 1)[1].split('```sh\n', 1)[1].split('```', 1)[0].strip()

def test_ci_runs_readmes_commands():
    "CI sets up and tests as README tells a newcomer: its setup command, in a virtual environment of its own, then its test command"
    ci = (root/'.ci'/'run').read_text()
    setup,test = _readme_block('In a fresh virtual environment, set up with'),_readme_block('and pass the tests with')
    assert setup in ci and test in ci and '-m venv' in ci
    assert ci.index('-m venv') < ci.index(setup) < ci.index(test)

"settings.ini mirrors pyproject.toml for tools of the nbdev 2 era: they must never disagree."
import configparser, re, subprocess, sys, tarfile
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
    assert proj['tool']['setuptools']['dynamic']['version']=={'attr': 'dialog.__version__'}
    assert cfg['version']==dialog.__version__
    assert re.fullmatch(r'\d+\.\d+\.\d+', dialog.__version__)

def test_runtime_dependency_is_fastcore_only():
    assert [re.split(r'[<>=~!]', d)[0] for d in proj['project']['dependencies']]==['fastcore']
    assert proj['project']['entry-points']['nbdev']=={'dialog': 'dialog._modidx:d'}

@pytest.mark.slow
def test_sdist_ships_no_tests(tmp_path):
    "The sdist holds the library and no tests (they need the notebooks, bench/ and the corpus, which only the repository has)"
    r = subprocess.run([sys.executable, '-m', 'build', '--sdist', '--outdir', str(tmp_path)], cwd=root, capture_output=True, text=True)
    assert r.returncode==0, r.stderr
    names = tarfile.open(next(tmp_path.glob('*.tar.gz'))).getnames()
    assert any(n.endswith('dialog/core.py') for n in names)
    assert not [n for n in names if '/tests/' in n or '/bench/' in n]

"Which files a source names (`dlg_paths`): globs as glob.glob names them, but folders (trailing separators, `**` last, a folder named like a notebook is no notebook), and trees deeper than the recursion limit"
import glob, os, random, tempfile, pytest
from pathlib import Path
from hypothesis import given, settings, strategies as st
from dialog.dataset import dlg_paths

def _want(p): return sorted({Path(f) for f in glob.glob(p, recursive=True) if f.endswith('.ipynb') and not os.path.isdir(f)})  # a folder is listed by no reader

@pytest.fixture
def tree(tmp_path):
    "A folder with a notebook, a folder named like a notebook, and a notebook in it; the current folder while the test runs"
    (tmp_path/'x.ipynb').write_text('{}'); (tmp_path/'d.ipynb').mkdir(); (tmp_path/'d.ipynb'/'z.ipynb').write_text('{}')
    (tmp_path/'a').mkdir(); (tmp_path/'a'/'y.ipynb').write_text('{}')
    cwd = os.getcwd(); os.chdir(tmp_path)
    yield tmp_path
    os.chdir(cwd)

@pytest.mark.parametrize('pat', ['**/', '*/', '*.ipynb/', '**/*.ipynb/', '*/**/', 'a/**/', '[a]/'])
def test_a_trailing_separator_names_folders_only(tree, pat):
    "glob names only folders for a pattern ending in a separator (as `x.ipynb/` names no file): no notebook"
    assert list(dlg_paths(pat)) == _want(pat) == []

@pytest.mark.parametrize('pat', ['d.ipynb/**', '*.ipynb/**', '**/**'])
def test_a_last_doublestar_names_not_its_folder(tree, pat):
    "`d.ipynb/**` names the folder as `d.ipynb/` (no notebook), and the files below it"
    assert list(dlg_paths(pat)) == _want(pat)

_names = ['a', 'b.ipynb', 'c.ipynb', '.h', 'e.txt']

def _mktree(d, rnd, depth=0):
    "A random tree whose folders may be named like notebooks"
    for n in rnd.sample(_names, rnd.randint(1, 4)):
        p = d/n
        if depth>=3 or rnd.random()<0.5: p.write_text('{}')
        else: p.mkdir(); _mktree(p, rnd, depth+1)

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(['**/', '*/', '**', 'a/**', '*.ipynb/**', '**/*.ipynb', '**/*.ipynb/', '*/**/*.ipynb', '**/**/', 'a/**/']))
def test_glob_agrees_with_folders_named_like_notebooks(seed, pat):
    with tempfile.TemporaryDirectory() as td:
        _mktree(Path(td), random.Random(seed))
        cwd = os.getcwd(); os.chdir(td)
        try: assert list(dlg_paths(pat)) == _want(pat)
        finally: os.chdir(cwd)

def test_a_deep_tree(tmp_path):
    "A tree deeper than Python's recursion limit: its notebook is found by a folder's search and by `**`, not a RecursionError"
    cwd = os.getcwd(); os.chdir(tmp_path)
    try:
        os.mkdir('deep'); os.chdir('deep')
        for _ in range(1100): os.mkdir('a'); os.chdir('a')
        Path('f.ipynb').write_text('{}'); os.chdir(tmp_path)
        want = [Path('deep', *['a']*1100, 'f.ipynb')]
        assert list(dlg_paths('deep')) == want
        assert list(dlg_paths('deep/**/*.ipynb')) == want
    finally:  # removed here, from the bottom up: pytest removes old temporary folders recursively, and would hit the recursion limit on this one
        os.chdir(tmp_path)
        if os.path.isdir('deep'):
            os.chdir('deep'); n = 0
            while os.path.isdir('a'): os.chdir('a'); n += 1
            if os.path.exists('f.ipynb'): os.remove('f.ipynb')
            for _ in range(n): os.chdir('..'); os.rmdir('a')
            os.chdir('..'); os.rmdir('deep')
        os.chdir(cwd)

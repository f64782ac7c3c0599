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

_unreadable_child = '''
import json, warnings
from dialog.dataset import dlg_paths, read_dialogs, dlgs2table, folder_stats, paths2jsonl
res = dict(paths=list(map(str, dlg_paths('talks'))), alone=list(map(str, dlg_paths('talks/team-b'))))
res['globs'] = [list(map(str, dlg_paths(g))) for g in ('talks/**/*.ipynb', 'talks/*/b.ipynb', 'talks/team-b/*.ipynb', 'talks/*.ipynb')]
res['named'] = [type(e).__name__ for e in read_dialogs(['talks/team-b/b.ipynb'], workers=0, on_error='collect')[1]]
res['unknown'] = [(type(e).__name__, e.filename, e.strerror) for e in read_dialogs('talks/team-b/sub', workers=0, on_error='collect')[1]]
res['unknown_stats'] = folder_stats('talks/team-b/sub', workers=0).splitlines()[-1]
ds,errs = read_dialogs('talks', workers=0, on_error='collect')
res['collect'] = [len(ds), [(type(e).__name__, e.filename, e.strerror) for e in errs]]
try: read_dialogs('talks/team-b', workers=0); res['raise'] = None
except PermissionError as e: res['raise'] = e.filename
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always'); read_dialogs('talks', workers=0, on_error='skip'); res['skip'] = [str(x.message) for x in w]
res['stats'] = folder_stats('talks', workers=0).splitlines()[-2:]
try: import pyarrow; res['table'] = [len(x) for x in dlgs2table('talks', workers=0, on_error='collect')]
except ImportError: pass
print(json.dumps(res))
'''

def test_a_folder_that_cannot_be_opened_is_a_bad_entry(tmp_path):
    "A subfolder the reader can't open is listed, and every reader reports it under on_error (a PermissionError naming it), as an unreadable file: its dialogs never vanish without a word"
    import json, shutil, subprocess, sys
    from dialog.core import Dialog
    import dialog.ipynb
    pre = []
    if os.geteuid()==0:  # root opens any folder: drop the capabilities that let it
        if not shutil.which('setpriv'): pytest.skip('root, and no setpriv to drop its capabilities')
        pre = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--']
    d = Dialog('x'); d.mk_message('hi', msg_type='prompt', output='yo')
    (tmp_path/'talks'/'team-b').mkdir(parents=True)
    for p in ('a', 'team-b/b', 'team-b/sub/c', 'z'): d.save(tmp_path/'talks'/f'{p}.ipynb')
    (tmp_path/'talks'/'team-b').chmod(0)
    try:
        if subprocess.run(pre + ['ls', 'talks/team-b'], cwd=tmp_path, capture_output=True).returncode==0: pytest.skip('the folder can be read anyway')
        r = subprocess.run(pre + [sys.executable, '-c', _unreadable_child], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent)))
    finally: (tmp_path/'talks'/'team-b').chmod(0o755)
    assert r.returncode==0, r.stderr
    res = json.loads(r.stdout)
    why = "Permission denied (a folder: the dialogs in it can't be listed)"
    assert res['paths']==['talks/a.ipynb', 'talks/team-b', 'talks/z.ipynb'] and res['alone']==['talks/team-b']  # in its place in path order
    assert res['collect']==[2, [['PermissionError', 'talks/team-b', why]]] and res['raise']=='talks/team-b'
    # a glob lists it where it had to look in it; a file named in it is a bad file
    assert res['globs']==[res['paths'], ['talks/team-b'], ['talks/team-b'], ['talks/a.ipynb', 'talks/z.ipynb']]
    assert res['named']==['PermissionError']
    # a folder named in it: its kind can't be told, so it is named as given, never as `talks/team-b/sub.ipynb`
    unknown = "Permission denied (in talks/team-b/, a folder that can't be searched: whether it is a dialog or a folder can't be told)"
    assert res['unknown']==[['PermissionError', 'talks/team-b/sub', unknown]]
    assert res['unknown_stats']==f'  talks/team-b/sub: {unknown}'
    assert len(res['skip'])==1 and 'team-b' in res['skip'][0]
    assert res['stats']==['1 bad file not read:', f'  talks/team-b: {why}']
    if 'table' in res: assert res['table'][1]==1

_unopened_child = r'''
import json, os, subprocess, sys, warnings
from dialog.core import Dialog
from dialog.dataset import dlg_paths, read_dialogs, dlgs2table, write_parquet, paths2jsonl, folder_stats, export_folder
kind = sys.argv[1]
d = Dialog('x'); d.mk_message('hi', msg_type='prompt', output='yo')
for p in ('a', 'z'): d.save(f'talks/{p}.ipynb')
with open('talks/train.jsonl', 'w') as f: f.write('{"messages": [{"role": "user", "content": "hi"}]}\n')  # readable, no session
if kind=='mode 000':
    with open('talks/m.jsonl', 'w') as f: f.write('{}\n')
    os.chmod('talks/m.jsonl', 0)
elif kind=='named pipe': os.mkfifo('talks/m.jsonl')
else: os.symlink('nowhere.jsonl', 'talks/m.jsonl')
def errs(r): return [(type(e).__name__, str(e)) for e in r[1]]
res = dict(paths=list(map(str, dlg_paths('talks'))), glob=list(map(str, dlg_paths('talks/*.jsonl'))))
ds,es = read_dialogs('talks', workers=0, on_error='collect'); res['read'] = [len(ds), errs((ds, es))]
try: read_dialogs('talks', workers=0); res['raise'] = None
except Exception as e: res['raise'] = str(e)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always'); read_dialogs('talks', workers=0, on_error='skip'); res['skip'] = [str(x.message) for x in w]
res['stats'] = folder_stats('talks', workers=0).splitlines()[-1]
res['jsonl'] = errs(paths2jsonl('talks', 'o.jsonl', workers=0, on_error='collect'))
res['export'] = export_folder('talks', 'e.jsonl', workers=0, on_error='skip').splitlines()[-1]
cli = [sys.executable, '-m', 'dialog.cli']
res['cli_stats'] = subprocess.run(cli + ['stats', 'talks'], capture_output=True, text=True).stdout.splitlines()[-1]
r = subprocess.run(cli + ['export', 'talks', '-o', 'c.jsonl'], capture_output=True, text=True)
res['cli_export'] = [r.returncode, r.stderr]
try:
    import pyarrow
    from dialog.dataset import _ray_files, _file_list, _files2table, _bad_rows
    import pickle
    res['table'] = errs(dlgs2table('talks', workers=0, on_error='collect'))
    res['parquet'] = errs(write_parquet('talks', 'o.parquet', workers=0, on_error='collect'))
    fss,files = _ray_files('talks')  # `ray_read`'s local listing, and its reading of a batch (without starting Ray)
    t = _files2table(_file_list(files), 'collect', fss)
    res['ray'] = [[os.path.relpath(p) for _,p in files], [str(pickle.loads(x)) for x in _bad_rows(t)['nbdialog_error'].to_pylist()]]
except ImportError: pass
print(json.dumps(res))
'''

@pytest.mark.parametrize('kind', ['mode 000', 'named pipe', 'link to nowhere'])
def test_a_jsonl_that_cannot_be_opened_is_a_bad_entry(tmp_path, kind):
    "A `.jsonl` the search can't open to tell whether it is an agent's session is listed, and every reader reports it under on_error, naming it, as a folder that can't be opened: it never vanishes without a word (a readable one that is no session stays out)"
    import json, shutil, subprocess, sys
    pre = []
    if kind=='mode 000' and os.geteuid()==0:  # root opens any file: drop the capabilities that let it
        if not shutil.which('setpriv'): pytest.skip('root, and no setpriv to drop its capabilities')
        pre = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--']
        (tmp_path/'t').write_text('x'); (tmp_path/'t').chmod(0)
        if subprocess.run(pre + ['cat', 't'], cwd=tmp_path, capture_output=True).returncode==0: pytest.skip('the file can be read anyway')
    r = subprocess.run(pre + [sys.executable, '-c', _unopened_child, kind], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent)))
    assert r.returncode==0, r.stderr
    res = json.loads(r.stdout)
    why = "a .jsonl file that can't be opened to tell whether it is an agent's session"
    def said(s): return 'talks/m.jsonl' in s and why in s
    assert res['paths']==['talks/a.ipynb', 'talks/m.jsonl', 'talks/z.ipynb'] and res['glob']==['talks/m.jsonl']  # in its place in path order
    n,es = res['read']
    assert n==2 and len(es)==1 and said(es[0][1]), es
    assert es[0][0]==dict(zip(['mode 000', 'named pipe', 'link to nowhere'], ['PermissionError', 'DialogFormatError', 'FileNotFoundError']))[kind]
    assert said(res['raise']) and len(res['skip'])==1 and said(res['skip'][0])
    assert res['stats'].startswith('  talks/m.jsonl: ') and said(res['stats'])  # `folder_stats`'s list of files not read
    assert len(res['jsonl'])==1 and said(res['jsonl'][0][1]) and said(res['export'])
    assert said(res['cli_stats']) and res['cli_export'][0]!=0 and said(res['cli_export'][1]), res['cli_export']
    for k in ('table', 'parquet'):
        if k in res: assert len(res[k])==1 and said(res[k][0][1]), res[k]
    if 'ray' in res: assert res['ray'][0]==res['paths'] and len(res['ray'][1])==1 and why in res['ray'][1][0], res['ray']

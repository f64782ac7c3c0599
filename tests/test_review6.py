"Review 6: globs against glob.glob (trailing separators, `**` last, deep trees), malformed messages through every view, and line numbers the views show used by the line editors"
import glob, os, random, re, tempfile, pytest
from pathlib import Path
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.view import msg2xml, find_msgs, text_lines
from dialog.dataset import dlg_paths
import dialog.skill as sk

# --- 1. globs

def _want(p): return sorted({Path(f) for f in glob.glob(p, recursive=True) if f.endswith('.ipynb')})

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

# --- 2. malformed messages: a ValueError naming the message, from every view

def _mal(kind):
    d = Dialog('d'); d.mk_message('q', msg_type=sprompt, output='a')
    typ = {'c':scode, 'n':snote, 'p':sprompt}[kind[0]]
    m = d.mk_message('x', msg_type=typ, id='bad1', output='r' if typ==sprompt else [])
    k = kind[2:]
    if k=='content': m.content = 5
    elif k=='meta': m.meta = 'x'
    elif k=='type': m._msg_type = 5
    elif k=='reply': m.ai_res = 5
    return d,m

_kinds = ['c:content', 'n:content', 'p:content', 'c:meta', 'c:type', 'n:type', 'p:reply']
_views = {'msg2xml': lambda d,m: msg2xml(m, incl_out=True), 'dlg.view': lambda d,m: d.view(incl_out=True),
          'view': lambda d,m: m.view(incl_out=True), 'lnhashview': lambda d,m: m.lnhashview(incl_out=True),
          'find_msgs': lambda d,m: find_msgs(d, 'x')}

@pytest.mark.parametrize('kind', _kinds)
@pytest.mark.parametrize('view', list(_views))
def test_every_view_names_a_malformed_message(view, kind):
    d,m = _mal(kind)
    try: _views[view](d, m)  # a view may show a malformed message it can read
    except ValueError as e: assert "message 'bad1'" in str(e), e

@pytest.mark.parametrize('kind', _kinds + ['c:data', 'c:tb', 'n:att', 'c:att'])
def test_dlgs2table_names_a_malformed_message(kind):
    pytest.importorskip('pyarrow')
    from dialog.dataset import dlgs2table
    d,m = _mal(kind)
    if kind=='c:data': m.output = [dict(output_type='display_data', data={'text/plain': 5}, metadata={})]
    if kind.endswith(':att'): m.attachments = ['x']
    if kind=='c:tb': m.output = [dict(output_type='error', ename='E', evalue='v', traceback=5)]
    with pytest.raises(ValueError, match="dialog 'd': message 'bad1'"): dlgs2table([d])

# --- 3. a line number the view shows is the line the line editors edit

_odd = st.lists(st.sampled_from(['a', 'b', '\n', '\r', '\r\n', '\x0c', '\x0b', '\x1c', '\x85', '\u2028', '\u2029']), max_size=10).map(''.join)

@settings(max_examples=300, deadline=None)
@given(_odd, st.data())
def test_the_line_editors_edit_the_line_view_shows(txt, data):
    "Whatever a line holds (a lone CR, a form feed, U+2028: no line end to `text_lines`, exhash or `view`), `replace_lines`/`del_lines`/`insert_line` on line n edit `view`'s line n, and the other lines keep their text"
    ls = text_lines(txt)
    if not ls: return
    n = data.draw(st.integers(1, len(ls)))
    m = Message(txt, id='m'); assert not m.replace_lines(n, n, 'X').error
    assert text_lines(m.content) == ls[:n-1] + ['X'] + ls[n:]
    m = Message(txt, id='m'); assert not m.del_lines(n, n).error
    assert text_lines(m.content) == ls[:n-1] + ls[n:]
    for k in (0, n):
        m = Message(txt, id='m'); assert not m.insert_line(k, 'X').error
        assert text_lines(m.content) == ls[:k] + ['X'] + ls[k:]
        rest = m.content.replace('X', '', 1)  # the text as it was, every character kept, with one line end more
        assert any(rest == txt[:j] + e + txt[j:] for j in range(len(txt)+1) for e in ('\n', '\r\n'))

def test_view_line_is_the_replaced_line():
    "A form feed (Python's page break) inside line 1: `view` shows line 2 as `c`, and `msg_replace_lines` of line 2 replaces `c`"
    m = Message('a\x0cb\nc\n', id='m')
    assert m.view(nums=False) == 'a\x0cb\nc'
    m.replace_lines(2, 2, 'X')
    assert m.content == 'a\x0cb\nX\n'

def test_insert_line_keeps_a_last_empty_line():
    "`view` shows `a\\n\\n` as two lines, `a` and an empty one; inserting after line 1 dropped the empty line (fastcore's `insert_line` joins its lines with LF: we have our own)"
    m = Message('a\n\n', id='m')
    assert m.view(nums=False) == 'a\n'
    m.insert_line(1, 'X')
    assert text_lines(m.content) == ['a', 'X', '']

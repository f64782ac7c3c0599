"The structural finders: symdef finds names bound at top level, also inside top-level if/try/with/for blocks, and not attributes set on a name; symref finds every place a name is named, a def as well as an assignment"
import re, textwrap
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
import dialog.skill as sk
from dialog.view import find_pattern, match_line, text_lines

def _def(src, name): return sk.symdef_finder(name)(Message(src))
def _ref(src, name): return sk.symref_finder(name)(Message(src))

@pytest.mark.parametrize('src', [
    'try: import numpy as np\nexcept ImportError: np = None',
    'try: pass\nexcept ImportError: import numpy as np',
    'try: pass\nfinally: np = 1',
    'if True: np = 1',
    'if x: pass\nelse:\n    from numpy import np',
    'with open(f) as np: pass',
    'with ctx():\n    np = 1',
    'for i in range(3):\n    np = i',
    'for np in []: pass',
    'while False: np = 1',
    'match v:\n    case 1: np = 2',
    'a, (b, *np) = 1, (2, 3)',
    'np: int = 1',
    'np += 1',
    'async def np(): pass',
    'class np: pass',
])
def test_symdef_finds_top_level_bindings_inside_blocks(src):
    assert _def(src, 'np'), src

@pytest.mark.parametrize('src', [
    'defaults.cpus = 4', 'defaults[0] = 4', 'defaults.x.y += 1', 'defaults.n: int = 4',
    'for defaults.i in range(3): pass', 'with ctx() as defaults.f: pass',
    'def f():\n    defaults = 1', 'class C:\n    defaults = 1', 'if x:\n    def f():\n        defaults = 1',
    'print(defaults)', 'x = defaults',
])
def test_symdef_does_not_count_what_binds_no_name_at_top_level(src):
    assert not _def(src, 'defaults'), src

@pytest.mark.parametrize('src', ['def x(): pass', 'x = 0', 'class x: pass', 'import x', 'from m import x', 'def f(x): pass', 'print(x)', 'a.x', 'async def x(): pass', 'import x.y'])
def test_symref_finds_every_naming(src):
    assert _ref(src, 'x'), src

@pytest.mark.parametrize('src', ["s = 'x'", '# x', 'xx = 1', 'def xy(): pass', 'import y as z'])
def test_symref_misses_what_does_not_name_it(src):
    assert not _ref(src, 'x'), src

_blocks = st.sampled_from(['if c:\n{}', 'try:\n{}\nexcept E:\n    pass', 'try:\n    pass\nexcept E:\n{}', 'with c:\n{}', 'for i in c:\n{}', 'while c:\n{}', 'if c:\n    pass\nelse:\n{}'])

@given(st.lists(_blocks, max_size=4), st.sampled_from(['name = 1', 'import name', 'def name(): pass', 'name, b = c']), st.booleans())
@settings(max_examples=200, deadline=None)
def test_symdef_sees_through_any_nesting_of_blocks_but_not_a_def(blocks, stmt, in_def):
    src = stmt
    for b in blocks: src = b.format(textwrap.indent(src, '    '))
    if in_def: src = 'def outer():\n' + textwrap.indent(src, '    ')
    assert _def(src, 'name')==(not in_def), src
    assert _ref(src, 'name'), src

# --- every binding form at top level; every import naming a module

@pytest.mark.parametrize('src,name', [
    ('import re\nif (m := re.match("a", "a")):\n    print(m)', 'm'), ('print(n := 3)', 'n'),
    ('ys = [y := f(x) for x in xs]', 'y'),  # a comprehension's `:=` binds in the enclosing scope
    ('try:\n    import numpy\nexcept ImportError as e:\n    pass', 'e'),
    ('match p:\n    case (a, *rest): pass', 'rest'), ('match p:\n    case {"k": v, **kw}: pass', 'kw'),
    ('match p:\n    case [x] if x: pass\n    case Point(x=px) as pt: pass', 'pt'),
])
def test_symdef_finds_every_binding_form(src, name):
    assert _def(src, name) and _ref(src, name)

@pytest.mark.parametrize('src,name', [
    ('def f():\n    m = (q := 1)', 'q'),  # inside a def: the def's own
    ('g = lambda: (q := 1)', 'q'),        # a lambda's
    ('class C:\n    try: pass\n    except E as e: pass', 'e'),
])
def test_symdef_leaves_bindings_below_top_level(src, name):
    assert not _def(src, name)

@pytest.mark.parametrize('src', ['from os.path import join', 'from os import path', 'import os.path'])
def test_symref_finds_every_import_naming_a_module(src):
    assert _ref(src, 'os')

def test_a_cell_too_deep_for_the_parser_is_skipped_and_named(tmp_path):
    "One generated cell Python's parser can't build a tree for doesn't sink the search: it is skipped, and the result says so"
    d = Dialog('a'); d.mk_message('x = 1', id='def00001')
    d.mk_message('s = ' + ' + '.join(["'ab'"]*3000), id='long0001')
    d.mk_message('y = x', id='use00001')
    d.save(tmp_path/'a.ipynb')
    for kw,want in [(dict(symdef='x'), ['def00001']), (dict(symref='x'), ['def00001', 'use00001'])]:
        txt,err = sk.call_tool('find_msgs', dict(dlg='a.ipynb', **kw), root=tmp_path)
        assert not err and [l.split(':')[0] for l in txt.splitlines()[:-1]]==want, txt
        assert txt.splitlines()[-1].endswith('not searched by symdef, symref or pred: long0001'), txt
        assert sk.find_msgs(dlg=tmp_path/'a.ipynb', **kw).attrgot('id')==want

@pytest.mark.parametrize('deep', ['cfg = ' + '['*250 + ']'*250,  # "too many nested parentheses"
                                  'cfg = 1\n' + ''.join(' '*i + 'if cfg:\n' for i in range(110)) + ' '*110 + 'pass'])  # "too many levels of indentation"
def test_a_cell_past_the_parsers_nesting_limits_is_skipped_and_named(tmp_path, deep):
    "The parser's own limits, which it reports as a SyntaxError, make a cell skipped and named, as a RecursionError does: not taken as no Python"
    d = Dialog('a'); d.mk_message(deep, id='deep0001'); d.mk_message('y = 1', id='other001'); d.save(tmp_path/'a.ipynb')
    txt,err = sk.call_tool('find_msgs', dict(dlg='a.ipynb', symdef='cfg'), root=tmp_path)
    assert not err and txt.splitlines()[-1].endswith('not searched by symdef, symref or pred: deep0001'), txt
    d = Dialog('b'); d.mk_message('cfg = (', id='bad00001'); d.save(tmp_path/'b.ipynb')  # a cell that isn't Python: not named
    txt,err = sk.call_tool('find_msgs', dict(dlg='b.ipynb', symdef='cfg'), root=tmp_path)
    assert not err and 'bad00001' not in txt, txt

def test_a_predicate_used_again_names_only_what_this_search_skipped(tmp_path):
    d = Dialog('a'); d.mk_message('x = 1'); d.mk_message('s = ' + ' + '.join(["'ab'"]*3000), id='long0001'); d.save(tmp_path/'a.ipynb')
    d = Dialog('b'); d.mk_message('x = 1'); d.save(tmp_path/'b.ipynb')
    p = sk.symref_finder('x')
    assert 'long0001' in sk.find_msgs(dlg=tmp_path/'a.ipynb', pred=p).more
    assert sk.find_msgs(dlg=tmp_path/'b.ipynb', pred=p).more==''

def test_a_long_list_of_skipped_cells_is_cut_to_the_page_and_the_search_runs_once(tmp_path):
    "Thousands of cells too deep to parse: the line naming them takes at most half the page, saying how many more; a refusal searches once"
    d = Dialog('a'); deep = 'x = ' + '['*300 + ']'*300
    for i in range(600): d.mk_message(deep, id=f'k{i:05d}')
    d.mk_message('x = 1', id='ok000001'); d.save(tmp_path/'a.ipynb')
    txt,err = sk.call_tool('find_msgs', dict(dlg='a.ipynb', symdef='x', maxchars=2000), root=tmp_path)
    assert not err and txt.startswith('ok000001:') and len(txt)<=2000, txt
    last = txt.splitlines()[-1]
    assert last.startswith('… 600 code messages too deeply nested') and 'k00000, k00001' in last, last
    assert re.search(r' and ([\d,]+) more \(maxchars=0 names them all\)$', last) and len(last)<=1000, last
    assert sk.find_msgs(dlg=tmp_path/'a.ipynb', symdef='x', maxchars=0).more.split(': ')[-1].split(', ')==[f'k{i:05d}' for i in range(600)]
    calls = []
    def pred(m): calls.append(m.id); return True
    with pytest.raises(ValueError, match='too small'): sk.find_msgs(dlg=tmp_path/'a.ipynb', pred=pred, maxchars=3)
    assert len(calls)==601, len(calls)  # each message once, whatever the probes

@pytest.mark.parametrize('txt', ['import os\nprint(os.sep)\n', 'a\r\nb\r\n'])
def test_no_line_after_a_final_line_end(tmp_path, txt):
    "The place after a message's final line end is no line's start (the views count no line there): `^` -> `# ` added a stray `# ` line, `$` a stray comment, and `find_msgs('^$')` matched every message ending in a newline"
    m = Message(txt)
    m.str_replace('^', '# ', use_regex=True)
    assert m.content==''.join('# '+l for l in txt.splitlines(True))
    m = Message(txt); m.str_replace('$', '  # x', use_regex=True)
    assert text_lines(m.content)==[l+'  # x' for l in text_lines(txt)]
    d = Dialog('d'); d.mk_message(txt, id='m0'); d.mk_message('a\n\nb', id='m1')
    assert [m.id for m in d.find_msgs('^$')]==['m1']
    assert match_line(d.messages[1], find_pattern('^$'))==(2, '')

@pytest.mark.parametrize('txt,pat,new,want', [('a\nb\n', '^\\r?', '> ', '> a\n> b\n'), ('a\r\nb\r\n', '^\\r?', '> ', '> a\r\n> b\r\n'),
                                          ('a\nb\n', '^(.*?)\\r?$', '> \\1', '> a\n> b\n'),
                                          ('a\r\nb\r\n', '^(.*?)\\r?$', '> \\1', '> a\n> b\n')])  # (it took the CR, and gave none back)
def test_a_regex_naming_a_cr_adds_no_line_after_the_final_line_end(txt, pat, new, want):
    "A pattern that names `\\r` reads the text as it is, and went to `re.sub`, which matched after the final line end (`'a\\nb\\n'` gave a third line `'> '`): the one rule, no match where no line is"
    m = Message(txt)
    m.str_replace(pat, new, use_regex=True)
    assert m.content==want

def test_a_regex_on_a_range_of_lines_stays_in_it():
    "`^` on lines 1-2 of three matched after line 2's end too, the start of line 3, outside the range"
    m = Message('a\nb\nc\n')
    m.str_replace('^', '# ', start_line=1, end_line=2, use_regex=True)
    assert m.content=='# a\n# b\nc\n'

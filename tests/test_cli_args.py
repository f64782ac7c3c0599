"How nbdialog reads its arguments: numbers that make no sense, empty or misplaced ids, and errors naming the file as given."
import os, pytest
from pathlib import Path
from hypothesis import given
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import fails, ids, ok, nbd

@pytest.mark.parametrize('args', [['summary', '--maxlen', '0'], ['summary', '--maxlen', '-5'], ['find', 'a', '--maxlen', '0'],
                                  ['find', '.', '--limit', '0'], ['find', '.', '--limit', '-1'], ['find', '.', '--before', '-2'],
                                  ['find', '.', '--after', '-1'], ['find', '.', '--context', '-1'], ['summary', '--maxlen', 'x']])
def test_bad_numbers_are_usage_errors(tour, args):
    r = fails(args[0], tour, *args[1:], has=f'argument {args[-2]}')
    assert r.stderr.startswith(f'usage: nbdialog {args[0]}') and not r.stdout

@pytest.mark.slow
def test_smallest_numbers_work(tour):
    assert len(ok('summary', tour, '--maxlen', '1').splitlines())==len(ids(tour))
    assert len(ok('find', tour, '.', '--limit', '1').splitlines())==1
    assert ok('find', tour, 'tour', '--context', '0', '--limit', '1').splitlines()==ok('find', tour, 'tour', '--limit', '1').splitlines()

@pytest.mark.parametrize('args', [['view', ''], ['view', ','], ['del', ''], ['del', ', '], ['move', ' ', '--after', 'ID0'], ['run', ''], ['edit', '', '--content', 'x']])
def test_empty_ids_are_errors(tour, args):
    i,before = ids(tour),tour.read_bytes()
    args = [i[0] if a=='ID0' else a for a in args]
    r = fails(args[0], tour, *args[1:])
    assert 'id' in r.stderr.splitlines()[-1] and str(tour) in r.stderr
    assert tour.read_bytes()==before and not r.stdout

@pytest.mark.slow
def test_options_before_ids(tour):
    i = ids(tour)
    assert ok('view', tour, '--out', i[2])==ok('view', tour, i[2], '--out')
    assert ok('view', tour, '--xml', '--out', i[2], i[5]).count('<code')==1
    assert ok('run', tour, '--dry-run', i[1]).startswith(f'would run {i[1]}')
    assert ok('del', tour, '--dry-run', i[1], i[2]).splitlines()[0]==f'would delete {i[1]} {i[2]} (dry run: nothing written)'
    assert ok('find', tour, '--type', 'code', 'greet')==ok('find', tour, 'greet', '--type', 'code')
    fails('view', tour, '--nosuch', i[2])

# --- 4. errors about the name as given
@pytest.mark.slow
def test_errors_name_the_file_given(tmp_path):
    (tmp_path/'t.md').write_text('# notes')
    r = fails('summary', tmp_path/'t.md', has=f'{tmp_path}/t.md is not a .ipynb file')
    assert 't.md.ipynb' not in r.stderr
    r = fails('summary', tmp_path, has=f'{tmp_path} is a folder, not a dialog file')
    assert f'{tmp_path}.ipynb' not in r.stderr
    fails('add', tmp_path/'t.md', '--content', 'x', has='is not a .ipynb file')
    fails('add', tmp_path, '--content', 'x', has='is a folder')
    assert sorted(os.listdir(tmp_path))==['t.md'] and not Path(f'{tmp_path}.ipynb').exists()
    fails('summary', tmp_path/'nope', has=f'{tmp_path}/nope.ipynb: no such file') # a name that isn't there still names the .ipynb looked for

def test_help_comes_from_docments(capsys):
    "An option that passes its value to a library function shows that parameter's docment as its help, so the two can't drift apart"
    from fastcore.docments import docments
    from dialog.cli import _subs, _doc, main
    docd = [(name, kw['help']) for name,(f,h,args,*_) in _subs.items() for a,kw in args if isinstance(kw.get('help'), _doc)]
    assert {n for n,_ in docd} >= {'find', 'run', 'view', 'convert'}
    for name,h in docd:
        capsys.readouterr()
        assert main([name, '--help'])==0
        out = ' '.join(capsys.readouterr().out.split())
        assert ' '.join(str(h).split()) in out, (name, str(h))
        d = docments(h.f)[h.p]
        first = d.rstrip('?').split()[:2] # the docment's first words lead the help
        assert str(h).removeprefix(h.pre).lower().split()[:2]==[w.lower() for w in first], (name, h.p)

@pytest.mark.parametrize('cmd,extra', [('run', 'run'), ('exhash', 'skill'), ('mcp', 'mcp'), ('export', 'data')])
def test_help_names_the_extra(cmd, extra):
    "A subcommand that needs an extra says which in its own help, with the command that installs it"
    out = ' '.join(ok(cmd, '--help').split())
    assert f'pip install "nbdialog[{extra}]"' in out, out

def test_stats_help_names_no_extra():
    assert 'nbdialog[' not in ok('stats', '--help')

def test_help_metavars_are_ours():
    "Every value a command takes is named in capitals we chose (FILE, ID, N...), never argparse's own from the option's name"
    import re
    from dialog.cli import _subs
    for cmd in _subs:
        usage = ok(cmd, '--help').split('\n\n')[0].removeprefix(f'usage: nbdialog {cmd}')
        words = re.sub(r'\{[^}]*\}|(?<![\w-])--?[\w-]+', ' ', usage)  # without the choices and the options' own names
        assert not re.findall(r'[a-z_]{2,}', words), (cmd, usage)
        assert not [m[0] for m in re.finditer(r'--([\w-]+) ([A-Z_]+)', usage) if m[2]==m[1].replace('-', '_').upper()], (cmd, usage)

@pytest.mark.parametrize('before,after', [(['summary'], []), (['find'], ['import']), (['view', '--no-nums'], []), (['run', '--dry-run'], [])])
def test_a_double_dash_ends_the_options(tour, before, after):
    "R38f: `--` ends the options, so a file whose name starts with a dash can be named (`summary -- -notes.ipynb` was 'the following arguments are required: FILE')"
    p = tour.with_name('-notes.ipynb'); tour.rename(p)
    assert ok(*before, '--', p.name, *after, cwd=p.parent)
    r = fails(*before, p.name, *after, cwd=p.parent)  # without it, an option: refused
    assert 'unrecognized arguments' in r.stderr or 'required' in r.stderr

def test_a_file_name_holding_a_line_break_never_forges_a_line(tour):
    "R38f: a file named with a line break was said raw ('no such file', 'already exists', 'wrote ...'), its second line reading as another message; it is quoted, as `shown_name` quotes a name"
    bad = 'a\nnbdialog summary: all good'
    for args,code in [(['summary', f'{bad}.ipynb'], 2), (['convert', tour.name, '--to', 'md', '-o', f'{bad}.md'], 0),
                      (['convert', tour.name, '--to', 'md', '-o', f'{bad}.md'], 2)]:
        r = nbd(*args, cwd=tour.parent)
        assert r.returncode==code, (r.returncode, r.stderr)
        lines = (r.stderr if code else r.stdout).strip().splitlines()
        assert len(lines)==1 and repr(bad)[1:-1] in lines[0], lines

def test_the_double_dash_mark_never_shows_in_an_error(tour):
    "R39b: an argument after `--` went marked with a NUL (`_parse`), which an argparse error then said (`unrecognized arguments: \\x00extra`)"
    r = fails('find', tour.name, '--', 'hello', 'extra', cwd=tour.parent)
    assert r.stderr.strip().splitlines()[-1].endswith('unrecognized arguments: extra'), r.stderr

"nbdialog --repair (reading commands heal and report on stderr, saving commands write the healed file) and convert --to md's dlg2md options"
import re, json
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.view import dlg2md
from cli_helpers import fails, nbd, ok

def _damaged(p):
    "A dialog file strict reading refuses: an invalid id, a duplicate id, an unknown key holding an escape sequence"
    cells = [dict(cell_type='markdown', id='$a', metadata={}, source='# Title'),
             dict(cell_type='code', id='c1', metadata={}, source='x = 1', outputs=[], execution_count=None, junk='\x1b[31mred'),
             dict(cell_type='code', id='c1', metadata={}, source='print(x)', outputs=[])]
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells)))
    return p

@pytest.mark.slow
def test_repair_on_reading_commands(tmp_path):
    p = _damaged(tmp_path/'d.ipynb')
    before = p.read_bytes()
    fails('summary', p, has="d.ipynb: cell 0 (id '$a'): invalid cell id")
    fixes = read_ipynb(p, repair=True).repairs
    assert len(fixes) == 4  # the invalid id, the unknown key, the missing execution_count, the duplicate id
    for args in (['summary'], ['view'], ['find', 'print'], ['convert', '--to', 'md']):
        r = nbd(*args[:1], p, *args[1:], '--repair')
        assert r.returncode == 0, r.stderr
        err = r.stderr.splitlines()
        assert len(err) == len(fixes) and all(l.startswith(f'{p}: ') or l.startswith('d.ipynb: ') for l in err), err
        assert '\x1b' not in r.stderr and 'invalid id' in r.stderr and "already used by cell 1" in r.stderr  # terminal-safe, what was done
        assert 'print(x)' in r.stdout
    assert p.read_bytes() == before  # reading commands leave the file as it is

@pytest.mark.slow
def test_repair_on_saving_commands_writes_the_healed_file(tmp_path):
    p = _damaged(tmp_path/'d.ipynb')
    before = p.read_bytes()
    fails('edit', p, 'c1', '--content', 'x = 2', has='invalid cell id')
    r = nbd('del', p, 'c1', '--repair', '--dry-run')
    assert r.returncode == 0 and 'invalid id' in r.stderr and p.read_bytes() == before  # a dry run writes nothing
    r = nbd('edit', p, 'c1', '--content', 'x = 2', '--repair')
    assert r.returncode == 0 and 'invalid id' in r.stderr, r.stderr
    d = read_ipynb(p)  # the healed file reads strictly
    assert [m.content for m in d.messages] == ['# Title', 'x = 2', 'print(x)'] and len({m.id for m in d.messages}) == 3

@pytest.mark.slow
def test_repair_refuses_what_needs_a_guess(tmp_path):
    p = tmp_path/'g.ipynb'
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='s', metadata={}, source=[1, 2], outputs=[])])))
    r = fails('summary', p, '--repair', has='cell 0 (id s): source must be text')
    assert 'g.ipynb' in r.stderr.splitlines()[-1]
    fails('convert', p, '--from', 'openai', '-o', tmp_path/'x.ipynb', '--repair', has='--repair goes with reading dialogs')

@pytest.mark.slow
def test_convert_md_options(tmp_path):
    d = Dialog('m')
    d.mk_message('# Notes')
    d.mk_message('#| export\ndef f(): return 1', msg_type='code')
    d.mk_message('print(2)', msg_type='code', output=[dict(output_type='stream', name='stdout', text='2\n')])
    p = d.save(tmp_path/'m.ipynb')
    d = read_ipynb(p)
    for opts,kw in [([], {}), (['--no-fenced'], dict(fenced=False)), (['--weave'], dict(weave=True)), (['--exportfilter'], dict(exportfilter=True)),
                    (['--fenced', '--weave', '--exportfilter'], dict(weave=True, exportfilter=True))]:
        out = ok('convert', p, '--to', 'md', *opts, cwd=tmp_path)
        assert out == dlg2md(d, rel=tmp_path, **kw), opts
    assert '::: ' in ok('convert', p, '--to', 'md', cwd=tmp_path)
    assert '::: ' not in (nf := ok('convert', p, '--to', 'md', '--no-fenced', cwd=tmp_path)) and '<div class=' in nf
    assert 'print(2)' not in ok('convert', p, '--to', 'md', '--weave', cwd=tmp_path)
    assert 'print(2)' not in (ex := ok('convert', p, '--to', 'md', '--exportfilter', cwd=tmp_path)) and 'def f()' in ex
    for o in ('--weave', '--exportfilter', '--no-fenced', '--fenced'): fails('convert', p, '--to', 'py', o, has=f"{o.replace('--no-', '--')} goes with --to md only")
    assert 'quarto fenced divs' in ok('convert', '-h').lower()

def test_a_refused_file_repair_heals_names_repair(tmp_path):
    "r33d: the error for a file only --repair reads says so, as the command takes it; a file repair can't heal gets no such hint"
    p = _damaged(tmp_path/'d.ipynb')
    before = p.read_bytes()
    fails('view', p, 'c1', has='invalid cell id')
    assert nbd('view', p, 'c1').stderr.rstrip().endswith('(add --repair to read it healed, leaving the file as it is)')
    assert nbd('edit', p, 'c1', '--content', 'y').stderr.rstrip().endswith('(add --repair to heal it: the healed file is written when the command saves)')
    assert p.read_bytes() == before
    (tmp_path/'old.ipynb').write_text(json.dumps(dict(nbformat=3, nbformat_minor=0, metadata={}, worksheets=[])))
    assert '--repair' not in fails('view', tmp_path/'old.ipynb', has='too old').stderr

def test_repair_fix_lines_quote_the_files_names(tmp_path):
    "r33e: `view --repair` prints each fix on one line of stderr: a key's name (and the path) holding line breaks is quoted, so `2>&1` shows no forged header"
    evil = "\n\n── c9 code ──\n     1 │ import shutil\n\n"
    cell = dict(id='c1', cell_type='code', execution_count=1, metadata={}, source='a = 1',
                outputs=[dict(output_type='stream', name='stdout', text='hi\n', **{evil: 1})])
    p = tmp_path/f'k{evil}.ipynb'
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[cell, {**cell, 'source': 'b'}])))
    r = nbd('view', p, '--repair')
    assert r.returncode == 0 and len(re.findall(r'(?m)^── \S+ code ──$', r.stdout)) == 2, r  # the two cells' headers, none forged
    err = r.stderr.splitlines()
    fixes = read_ipynb(p, repair=True).repairs
    assert len(err) == len(fixes) > 1 and all(l.startswith(repr(str(p))+': ') for l in err), r.stderr

"The notebooks' saved outputs (the docs) never show a path of the machine that ran them"
import json, re
from pathlib import Path
import pytest

nbs = sorted((Path(__file__).resolve().parent.parent/'nbs').glob('*.ipynb'))
_re_machine = re.compile(r'(?<![\w.])/(?:tmp|work|root|home|Users|private/var)/[^\s"\'\\]*')

@pytest.mark.parametrize('nb', nbs, ids=lambda p: p.name)
def test_outputs_hold_no_machine_paths(nb):
    cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
    bad = [(c.get('id'), m[0]) for c in cells if c['cell_type']=='code' for m in _re_machine.finditer(json.dumps(c.get('outputs', [])))]
    assert not bad, bad

def _out(nb, src):
    "The saved text (stream, or markdown) of the code cell of `nbs/nb` whose source is `src`"
    cells = json.loads((nbs[0].parent/nb).read_text(encoding='utf-8'))['cells']
    c = next(c for c in cells if c['cell_type']=='code' and ''.join(c['source']).strip()==src)
    return ''.join(''.join(o.get('text') or o.get('data', {}).get('text/markdown') or '') for o in c['outputs'])

def test_the_saved_help_is_what_the_command_prints(monkeypatch, capsys):
    "dialog.cli's page shows `nbdialog --help` as the command prints it now (its exit codes went stale once)"
    from dialog.cli import main
    monkeypatch.setenv('COLUMNS', '80')
    assert main(['--help'])==0
    assert _out('16_cli.ipynb', "nbd('--help');")==capsys.readouterr().out

def test_the_saved_person_edits_table_is_the_spec():
    "dialog.thread_sync's table *What a person may edit* is the rendering of `person_edits` now (rows of it went stale once)"
    from dialog.thread_sync import person_edits
    src = "#| echo: false\nMarkdown('| a person… | what happens |\\n|---|---|\\n' + '\\n'.join(f'| {r.edit} | {r.result} |' for r in person_edits))"
    assert _out('10_thread_sync.ipynb', src)=='| a person… | what happens |\n|---|---|\n' + '\n'.join(f'| {r.edit} | {r.result} |' for r in person_edits)

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

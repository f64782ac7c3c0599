"The notebooks read in order: numbered from the cell form up to the command line, each opening with an example, one function per public name"
import ast, importlib, json, pkgutil, re
from collections import defaultdict
import pytest
import dialog
from shared_paths import root

nbs = sorted((root/'nbs').glob('[0-9]*.ipynb'))

def _module(nb):
    "The module notebook `nb` exports to (its `default_exp`)"
    for c in json.loads(nb.read_text(encoding='utf-8'))['cells']:
        if m := re.search(r'^#\|\s*default_exp\s+(\S+)', ''.join(c['source']), re.M): return m[1]

def _imports(mod):
    "The modules of ours that `dialog.<mod>` imports"
    tree = ast.parse((root/'dialog'/f'{mod}.py').read_text(encoding='utf-8'))
    res = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module:
            if n.level==1: res.add(n.module.split('.')[0])
            elif n.module.startswith('dialog.'): res.add(n.module.split('.')[1])
        elif isinstance(n, ast.Import): res |= {a.name.split('.')[1] for a in n.names if a.name.startswith('dialog.')}
    return res - {mod}

def test_notebooks_are_numbered_in_reading_order():
    "Each notebook comes after every notebook whose module it imports; no two share a number, and the sidebar follows"
    bad = [nb.name for nb in nbs if not re.match(r'\d\d_', nb.name)]
    assert not bad, f'notebooks not numbered by a plain two-digit number: {bad}'
    num = {_module(nb): int(nb.name[:2]) for nb in nbs}
    assert len(set(num.values()))==len(nbs), 'two notebooks share a number'
    late = [(m, i) for m in num for i in _imports(m) if i in num and num[i]>=num[m]]
    assert not late, f'notebooks numbered before a module they import: {late}'
    side = re.findall(r'^\s*-\s*(\d+_\S+\.ipynb)', (root/'nbs'/'sidebar.yml').read_text(encoding='utf-8'), re.M)
    assert side==[nb.name for nb in nbs]

def _is_def(c):
    s = ''.join(c['source'])
    return c['cell_type']=='code' and re.match(r'#\|\s*export', s) and re.search(r'^(def |class |@|[A-Za-z_]\w* *=)', s, re.M)

@pytest.mark.parametrize('nb', nbs, ids=lambda p: p.name)
def test_every_notebook_opens_with_an_example(nb):
    "Before its first definition, a notebook shows a runnable example and its output"
    cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
    first = next(i for i,c in enumerate(cells) if _is_def(c))
    assert any(c['cell_type']=='code' and c.get('outputs') and not ''.join(c['source']).startswith('#|') for c in cells[:first])

def test_a_public_name_means_one_function():
    "A name two modules export is one object (a re-export), so star imports in any order give the same thing"
    seen = defaultdict(dict)
    for m in pkgutil.iter_modules(dialog.__path__):
        if m.name.startswith('_'): continue
        mod = importlib.import_module(f'dialog.{m.name}')
        for n in getattr(mod, '__all__', []): seen[n][m.name] = getattr(mod, n)
    twice = {n: sorted(d) for n,d in seen.items() if len({id(o) for o in d.values()})>1}
    assert not twice, f'names meaning different things in different modules: {twice}'

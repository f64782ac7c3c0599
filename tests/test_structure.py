"The modules' boundaries: no module reaches into another's private names, and the public names users already use stay where they are"
import ast, functools, importlib
from pathlib import Path
import pytest

pkg = Path(__file__).parent.parent/'dialog'
mods = sorted(p.stem for p in pkg.glob('*.py') if p.stem not in ('__init__', '_modidx'))

def _private(n): return n.startswith('_') and not (n.startswith('__') and n.endswith('__'))

def cross_private(mod, folder=pkg):
    "`(line, what)` for each private name `mod` takes from another module of ours: imported by name, or read as `module._name`"
    tree,res,aliases = ast.parse((folder/f'{mod}.py').read_text()),[],{}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            src = n.module or ''
            ours = n.level>0 or src=='dialog' or src.startswith('dialog.')
            if not ours: continue
            src = src.removeprefix('dialog.') if n.level==0 else src
            for a in n.names:
                if src in ('', 'dialog'): aliases[a.asname or a.name] = a.name  # `from . import core`: a module
                elif _private(a.name): res.append((n.lineno, f'from {src} import {a.name}'))
        elif isinstance(n, ast.Import):
            for a in n.names:
                if a.name.startswith('dialog.'): aliases[a.asname or a.name] = a.name.removeprefix('dialog.')
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and _private(n.attr):
            base = ast.unparse(n.value)
            if base in aliases or base.startswith('dialog.'): res.append((n.lineno, f'{base}.{n.attr}'))
    return res

# Known crossings, each with the public name that replaces it: none are left
known = {}

@pytest.mark.parametrize('mod', mods)
def test_no_module_imports_another_modules_private_names(mod):
    bad = [(l, w) for l,w in cross_private(mod) if (mod, w) not in known]
    assert not bad, f'dialog/{mod}.py takes private names of other modules: {bad}'

@functools.cache
def _attr_defs_and_uses(mod, folder=pkg):
    "Private attribute names `mod` defines (methods, class attributes, attributes it assigns) and `(line, text)` of each private attribute it reads"
    defs,uses = set(),[]
    for n in ast.walk(ast.parse((folder/f'{mod}.py').read_text())):
        if isinstance(n, ast.ClassDef):
            for b in n.body:
                if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(b.name): defs.add(b.name)
                if isinstance(b, ast.Assign):
                    defs |= {e.id for t in b.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name) and _private(e.id)}
        elif isinstance(n, ast.FunctionDef) and _private(n.name) and any(ast.unparse(d).startswith('patch') for d in n.decorator_list): defs.add(n.name)
        elif isinstance(n, ast.Attribute) and _private(n.attr):
            if isinstance(n.ctx, ast.Store): defs.add(n.attr)
            else: uses.append((n.lineno, ast.unparse(n)))
    return defs,uses

@pytest.mark.parametrize('mod', mods)
def test_no_module_uses_another_modules_private_attributes(mod):
    "A private method or attribute another module defines (and this one doesn't) is not read here: `obj._sync()` of core's `Msgs` from chat, say"
    info = {m:_attr_defs_and_uses(m) for m in mods}
    theirs = set().union(*(info[o][0] for o in mods if o!=mod)) - info[mod][0]
    bad = [(l, t) for l,t in info[mod][1] if t.rsplit('.', 1)[1] in theirs]
    assert not bad, f'dialog/{mod}.py reads private attributes of other modules: {bad}'

# Core's private attributes that have a public, documented name for other modules; only core touches the private ones.
protocol = {'_ai_rend': 'Message.ai_rend', '_ipynb': 'Message.ipynb_form', '_b64': 'Attachment.from_b64', '_insert': 'Dialog.insert_msgs'}
# Known uses of the private names by other modules: none (each module goes through the public name)
protocol_known = set()

@pytest.mark.parametrize('mod', [m for m in mods if m!='core'])
def test_protocol_attributes_go_through_their_public_names(mod):
    tree = ast.parse((pkg/f'{mod}.py').read_text())
    bad = sorted({n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in protocol and (mod, n.attr) not in protocol_known})
    assert not bad, f'dialog/{mod}.py uses {bad}: use {[protocol[b] for b in bad]}'

def test_the_checker_sees_both_forms(tmp_path):
    "The walker itself: it flags `from .x import _y`, `from dialog.x import _y` and `x._y`, and lets public names and dunders pass"
    (tmp_path/'a.py').write_text('from .core import _q, Msgs\nfrom dialog.ipynb import _loads\nfrom . import core\nimport dialog.chat as ch\n'
                                 'x = core._q\ny = core.__name__\nz = ch._fmt\nw = self._own\n')
    assert [w for _,w in cross_private('a', tmp_path)] == ['from core import _q', 'from ipynb import _loads', 'core._q', 'ch._fmt']

# The public names users already use, per module (each module's `__all__` when the modules were split).
public = dict(
    core=['smsg_types', 'scode', 'snote', 'sprompt', 'sraw', 'SEP', 'tiny_png', 'add_id_hash', 'Msgs', 'Dialog', 'mk_output',
          'mk_displayobj', 'displayobj', 'mk_code_output', 'code_output', 'prompt_output', 'Message', 'get_msg', 'header_info',
          'section_msgs', 'get_output_mds', 'output_from_msg', 'mk_jmsg', 'mk_stream', 'mk_error', 'mk_dispdata', 'mk_execresult',
          'strip_export', 'msgs2py', 'dlg2py', 'merge_metas', 'merge_parts', 'ruuid4', 'Attachment'],
    ipynb=['DialogFormatError', 'read_ipynb', 'reads_ipynb', 'write_ipynb', 'DialogConflictError', 'atomic_write'],
    chat=['img_mimes', 'img_tokens', 'tool_block', 'parse_reply', 'ai_fmt', 'render_output_ai', 'render_outputs_ai', 'dlg2chat',
          'chat2dlg', 'count_tokens', 'dlgs2jsonl', 'jsonl2dlgs'],
    thread=['roles', 'source_types', 'default_metrics', 'ChatMessage', 'Thread'],
    cli=['out_maxlen', 'msg2xml', 'dlg2md', 'RunReport', 'main'])  # cli's `find_msgs` (view's) is `Dialog.find_msgs` (issue 36)

@pytest.mark.parametrize('mod', list(public))
def test_star_import_keeps_the_names_users_use(mod):
    ns = {}
    exec(f'from dialog.{mod} import *', ns)
    assert not (missing := [n for n in public[mod] if n not in ns]), f'`from dialog.{mod} import *` lost {missing}'

# The methods and properties users call on the model's classes (with every module imported, as a program that uses them all)
methods = dict(
    Dialog=['cells', 'execute', 'find_msg', 'find_msgs', 'from_cells', 'messages', 'mk_message', 'mk_messages', 'msg_cls', 'nb_meta', 'path',
            'remove_msgs', 'save', 'summary', 'todict', 'validate', 'view', 'write'],
    Message=['add_output', 'ai_res', 'cell_meta', 'cell_type', 'clear_inp_cache', 'clear_out_cache', 'clear_output', 'content',
             'directive', 'directives', 'dlg', 'execute', 'execution_count', 'exported', 'from_cell', 'has_directive', 'has_error',
             'header_level', 'id', 'insert_after', 'merge_content', 'meta_attrs', 'meta_exported', 'mk_attachment', 'msg_type', 'next',
             'output', 'pinned', 'preview', 'previous', 'remove_from_dlg', 'skipped', 'source', 'summ', 'to_cell', 'to_xml', 'todict',
             'update', 'validate', 'view'],
    Msgs=['items', 'show'], Attachment=['todict'])

@pytest.mark.parametrize('cls', list(methods))
def test_model_keeps_the_methods_users_call(cls):
    for m in mods: importlib.import_module(f'dialog.{m}')
    c = getattr(importlib.import_module('dialog.core'), cls)
    assert not (missing := [n for n in methods[cls] if not hasattr(c, n)]), f'{cls} lost {missing}'

def test_the_attribute_checker_sees_definitions_and_uses(tmp_path):
    (tmp_path/'a.py').write_text('class A:\n    _k = 1\n    def _m(self): self._own = 1\n@patch\ndef _p(self:A): pass\n')
    (tmp_path/'b.py').write_text('def f(o): return o._m(), o._k, o._own, o._p(), o._mine\ndef g(o): o._mine = 2\n')
    assert _attr_defs_and_uses('a', tmp_path)[0] == {'_k', '_m', '_own', '_p'}
    defs,uses = _attr_defs_and_uses('b', tmp_path)
    assert defs == {'_mine'} and sorted(t for _,t in uses) == ['o._k', 'o._m', 'o._mine', 'o._own', 'o._p']

_tests = Path(__file__).parent
_who_found_it = ('review', 'round', 'bugs', 'hunt', 'regress', 'misc', 'fixes', 'issue')  # names that say who found a bug, or when, not what breaks

def test_a_test_file_is_named_for_what_it_tests():
    "Each test file is named for a behaviour or a module (`test_skill_paging.py`), and its docstring says what it holds: tests found by a review go into the file of the behaviour they test"
    for p in sorted(_tests.glob('test_*.py')):
        assert not any(w in p.stem for w in _who_found_it), f'{p.name}: name it for what it tests'
        assert ast.get_docstring(ast.parse(p.read_text(encoding='utf-8'))), f'{p.name}: no docstring saying what it tests'

_root = Path(__file__).parent.parent

def _exported_cells():
    "(notebook name, cell) for each exported code cell of the notebooks"
    import json, re
    for nb in sorted((_root/'nbs').glob('*.ipynb')):
        for c in json.loads(nb.read_text(encoding='utf-8'))['cells']:
            if c['cell_type']=='code' and re.match(r'#\|\s*export', ''.join(c['source'])): yield nb.name, c

def test_no_exported_cell_is_over_60_lines():
    "An exported cell holds one idea: none has over 60 lines, blank ones included (fastcore has none)"
    def size(c): return len(''.join(c['source']).split('\n'))  # a trailing newline starts a line too
    long = [f'{nb} cell {c.get("id")}: {n} lines' for nb,c in _exported_cells() if (n := size(c))>60]
    assert not long, '\n'.join(long)

def test_few_library_lines_are_long():
    "At most 5% of the library's lines are over 120 characters: long ones are split by meaning, not wrapped"
    lines = [l for f in sorted((_root/'dialog').glob('[a-z]*.py')) for l in f.read_text(encoding='utf-8').splitlines()]
    long = sum(len(l)>120 for l in lines)
    assert long <= 0.05*len(lines), f'{long} of {len(lines)} lines are over 120 characters'

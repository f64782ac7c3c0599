"""dialog.thread in two rooms: narrator's models (`dialog.thread`) know nothing of the sync that keeps a thread as a dialog file
(`dialog.thread_sync`), which uses only their public surface; `from dialog.thread import Thread` still reads and saves."""
import ast, subprocess, sys
from pathlib import Path
import dialog.thread as models, dialog.thread_sync as sync
from test_structure import _attr_defs_and_uses, cross_private

pkg = Path(models.__file__).parent

def test_the_models_import_nothing_of_the_sync():
    tree = ast.parse((pkg/'thread.py').read_text())
    mods = [n.module or '' for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in mods if 'thread_sync' in m or m in ('ipynb', 'core', 'dialog.ipynb', 'dialog.core')], mods # nor the dialog side: the sync's

def test_importing_the_models_loads_no_sync_until_a_thread_is_read_or_saved(tmp_path):
    code = ('import sys\nfrom dialog.thread import Thread, Message\nassert "dialog.thread_sync" not in sys.modules\n'
            't = Thread(id="t"); t.add_message(Message(role="user", content="hi"))\nassert "dialog.thread_sync" not in sys.modules\n'
            f'p = t.save({str(tmp_path/"t.ipynb")!r})\nassert "dialog.thread_sync" in sys.modules\n'
            'print(Thread.read(p).messages[0].content, type(Thread.read(p).dialog).__name__)')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode==0 and r.stdout.split()==['hi', 'Dialog'], r.stderr

def test_the_sync_takes_only_public_names_of_the_models():
    tree = ast.parse((pkg/'thread_sync.py').read_text())
    frm = [(a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or '').endswith('thread') for a in n.names]
    assert frm==['*'] and not cross_private('thread_sync')
    mine = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    theirs = {k for k in vars(models) if k.startswith('_') and not k.startswith('__')} - mine
    assert not (used := {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in theirs}), used

def test_the_sync_reads_no_private_attribute_of_the_models():
    defs,_ = _attr_defs_and_uses('thread')
    mine,uses = _attr_defs_and_uses('thread_sync')
    assert not [(l, t) for l,t in uses if t.rsplit('.', 1)[1] in defs-mine]
    assert not (defs & mine), f'the sync sets private attributes the models define: {sorted(defs & mine)}'

def test_a_copy_leaves_out_what_ties_a_thread_to_its_file(tmp_path):
    import copy, pickle
    t = models.Thread(id='t'); t.add_message(models.Message(role='user', content='hi')); t.save(tmp_path/'t.ipynb')
    for c in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert c._dlg is None and c._disk is None and c.dialog is not t.dialog

def test_the_sync_attaches_no_private_methods_to_thread():
    "The sync's helpers are functions of its own module, not private methods it patches onto `Thread`: what it gives `Thread` is the public `dialog`, `from_dialog`, `read`, `save`, and `changed_on_disk`, `digest_on_disk`, `digest_of` and `disk_file` (what a store checks before it saves)"
    tree = ast.parse((pkg/'thread_sync.py').read_text())
    patched = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and any(ast.unparse(d).startswith('patch') for d in n.decorator_list)}
    public = {'dialog', 'from_dialog', 'read', 'save', 'changed_on_disk', 'digest_on_disk', 'digest_of', 'disk_file'}
    assert patched==public, patched
    fn = lambda v: getattr(v, 'fget', None) or getattr(v, '__func__', None) or getattr(v, 'f', v) # a property, a classmethod, fastcore's class method
    assert {k for k,v in vars(models.Thread).items() if getattr(fn(v), '__module__', None)==sync.__name__}==public

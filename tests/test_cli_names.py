"The names users imported from `dialog.cli` before the views and running moved to `dialog.view` and `dialog.run` still come from it (but `find_msgs`, now `Dialog.find_msgs`), and a public name means one function whichever module it comes from"
import subprocess, sys
import pytest

old_all = ['out_maxlen', 'msg2xml', 'dlg2md', 'RunReport', 'main']

def test_star_import_keeps_old_names():
    ns = {}
    exec('from dialog.cli import *', ns)
    assert set(old_all) <= set(ns)
    import dialog.view, dialog.run
    assert ns['msg2xml'] is dialog.view.msg2xml and ns['RunReport'] is dialog.run.RunReport

def test_importing_cli_alone_patches_the_methods():
    "A program that only imports `dialog.cli` (as before the split) still gets `view`, `to_xml` and `execute`"
    code = ("import dialog.cli\nfrom dialog.core import Dialog, Message\n"
            "assert all(hasattr(c, n) for c,n in [(Dialog,'view'), (Dialog,'execute'), (Message,'view'), (Message,'execute'), (Message,'to_xml')])")
    subprocess.run([sys.executable, '-c', code], check=True)

def _exporters(name):
    "`{module: what it gives for name}` for each module of ours whose star import gives `name`"
    import importlib, pkgutil, dialog
    res = {}
    for m in pkgutil.iter_modules(dialog.__path__):
        if m.name.startswith('_'): continue
        mod = importlib.import_module(f'dialog.{m.name}')
        if name in getattr(mod, '__all__', ()): res[m.name] = getattr(mod, name)
    return res

def test_find_msgs_and_merge_streams_each_mean_one_function():
    "`find_msgs` is the agents' tool wherever it is imported from, and a held dialog's search is `Dialog.find_msgs`; `merge_streams` is render's"
    import dialog.skill, dialog.render
    from dialog.core import Dialog
    assert set(_exporters('find_msgs').values())=={dialog.skill.find_msgs}
    assert set(_exporters('merge_streams').values())=={dialog.render.merge_streams}
    d = Dialog('d'); m = d.mk_message('x = 1')
    assert list(d.find_msgs('x ='))==[m]
    ns = {}
    exec('from dialog.cli import *; from dialog.run import *; from dialog.view import *', ns)
    assert 'find_msgs' not in ns and 'merge_streams' not in ns  # nothing of the old names left to shadow another

def test_runs_old_merge_streams_says_where_it_went():
    "`dialog.run.merge_streams` was renamed `jupyter_streams`: the old name is a clear error, not render's function in its place"
    import dialog.run
    with pytest.raises(AttributeError, match='jupyter_streams'): dialog.run.merge_streams
    with pytest.raises(ImportError): from dialog.run import merge_streams

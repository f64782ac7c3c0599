"The names users imported from `dialog.cli` before the views and running moved to `dialog.view` and `dialog.run` still come from it"
import subprocess, sys

old_all = ['out_maxlen', 'msg2xml', 'dlg2md', 'RunReport', 'main', 'find_msgs']

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

"JSON Lines never holds an empty conversation (every consumer refuses one), `drop` rules leave out more, and the export's summary counts what was left out"
import json, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.chat import dlgs2jsonl, chk_drop
from dialog.dataset import paths2jsonl, export_folder
from cli_helpers import nbd, ok

@pytest.fixture
def src(tmp_path):
    f = tmp_path/'src'
    d = Dialog('a'); d.mk_message('q', msg_type='prompt', output='ans'); d.save(f/'a.ipynb')
    d = Dialog('b'); d.mk_message('just a note', msg_type='note'); d.save(f/'b.ipynb') # a user turn, no reply
    Dialog('c').save(f/'c.ipynb') # nothing at all
    d = Dialog('d'); d.system = 'Be brief.'; d.save(f/'d.ipynb') # a system prompt and nothing else
    return f

def lines(p): return [json.loads(l) for l in Path(p).read_text().splitlines()]
def roles(p): return [[m['role'] for m in l['messages']] for l in lines(p)]

@pytest.mark.parametrize('workers', [0, 2])
def test_no_empty_line_whatever_the_path(src, tmp_path, workers):
    assert roles(paths2jsonl(src, tmp_path/'p.jsonl', workers=workers))==[['user', 'assistant'], ['user']]
    assert roles(paths2jsonl(src, tmp_path/'q.jsonl', workers=workers, drop='no_assistant'))==[['user', 'assistant']]
    assert roles(dlgs2jsonl([read_ipynb(p) for p in sorted(src.glob('*.ipynb'))], tmp_path/'r.jsonl', drop=['no_assistant']))==[['user', 'assistant']]
    assert roles(dlgs2jsonl([read_ipynb(src/'d.ipynb')], tmp_path/'s.jsonl', 'anthropic'))==[]

def test_a_function_as_a_rule(src, tmp_path):
    long = lambda ms: len(ms)>1
    assert roles(dlgs2jsonl([read_ipynb(p) for p in sorted(src.glob('*.ipynb'))], tmp_path/'f.jsonl', drop=long))==[['user']]

_lambda_script = """
import multiprocessing, sys
from pathlib import Path
from dialog.core import Dialog
from dialog.dataset import paths2jsonl
if __name__ == '__main__':
    multiprocessing.set_start_method('spawn', force=True)  # as on macOS and Windows
    tmp = Path(sys.argv[1])
    for i in range(70):
        d = Dialog(f'd{i}'); d.mk_message('hi', msg_type='prompt', output='yo' * (i % 3)); d.save(tmp/'talks'/f'{i}.ipynb')
    want = paths2jsonl(tmp/'talks', tmp/'serial.jsonl', workers=0, drop=lambda ms: len(ms) < 2).read_text()
    got = paths2jsonl(tmp/'talks', tmp/'auto.jsonl', drop=lambda ms: len(ms) < 2).read_text()
    print(got == want, len(got.splitlines()))
"""

def test_a_rule_other_processes_cannot_import(src, tmp_path):
    "A lambda as a rule: with workers left to the library, the same lines wherever processes are spawned (70 files, more than one process would read); asking for workers with one is refused, naming the fix"
    (tmp_path/'s.py').write_text(_lambda_script)
    r = subprocess.run([sys.executable, str(tmp_path/'s.py'), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ['True', '46']
    with pytest.raises(ValueError, match=r"drop: rule '.*<lambda>' can't be sent to other processes .*: define it at a module's top level, or pass workers=0"):
        paths2jsonl(src, tmp_path/'w.jsonl', workers=2, drop=lambda ms: False)
    assert not (tmp_path/'w.jsonl').exists()

def test_unknown_rules_are_refused_before_writing(src, tmp_path):
    for bad in ('no_user', ['no_assistant', 3]):
        with pytest.raises(ValueError, match='drop: no rule named'): paths2jsonl(src, tmp_path/'x.jsonl', drop=bad)
    assert not (tmp_path/'x.jsonl').exists()
    assert chk_drop(None)==[] and len(chk_drop(['no_assistant', len]))==2

def test_the_summary_says_what_was_left_out(src, tmp_path):
    assert export_folder(src, tmp_path/'e.jsonl', workers=0).endswith('e.jsonl: 4 dialogs, 2 lines (2 dialogs left out: nothing to send)')
    assert ok('export', src, '-o', tmp_path/'f.jsonl', '--drop', 'no_assistant').strip().endswith('4 dialogs, 1 line (3 dialogs left out: nothing to send or dropped)')
    assert [json.loads(l)['messages'][0]['role'] for l in ok('convert', src, '--to', 'jsonl', '--drop', 'no_assistant').splitlines()]==['user']
    r = nbd('convert', src/'a.ipynb', '--to', 'md', '--drop', 'no_assistant')
    assert r.returncode==2 and '--drop goes with --to jsonl only' in r.stderr

def test_chat_dlgs2jsonl_bad_fmt_with_no_dialogs(tmp_path):
    "A bad fmt is a ValueError even when there is no dialog to write: it wrote an empty file"
    from dialog.chat import dlgs2jsonl
    with pytest.raises(ValueError, match="unknown chat format 'bad'"): dlgs2jsonl([], tmp_path/'o.jsonl', fmt='bad')
    assert not (tmp_path/'o.jsonl').exists()

@pytest.mark.parametrize('drop', [5, {'no_assistant': 1}, [{'x': 1}], [5], 3.5])
def test_a_drop_that_is_no_rule_is_a_value_error(drop):
    "`drop=5` (or a dict, or a list holding one) raised TypeError ('int' object is not iterable, unhashable type): a ValueError naming `drop` and what it takes"
    from dialog.chat import chk_drop
    with pytest.raises(ValueError, match=r'^drop: '): chk_drop(drop)

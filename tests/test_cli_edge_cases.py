"The command line at its edges: ids of id-less files across edits, folder commands on hostile names, dry runs, fences in outputs, skip markers, convert over its own input"
import json, os, subprocess
from pathlib import Path
import pytest
from markdown_it import MarkdownIt
from dialog.core import *
from dialog.ipynb import *
from dialog.view import dlg2md
from cli_helpers import nbd, ok, fails, cmd, env

def old_nb(p, srcs):
    "Write an nbformat 4.4 notebook (no cell ids) of code cells `srcs` to `p`"
    cells = [dict(cell_type='code', metadata={}, source=s, outputs=[], execution_count=None) for s in srcs]
    p.write_text(json.dumps(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=4)))
    return p

def summary_ids(p, seed='0'):
    r = subprocess.run(cmd + ['summary', str(p)], capture_output=True, text=True, env=dict(env, PYTHONHASHSEED=seed), timeout=120)
    assert r.returncode==0, r.stderr
    return [l.split(':')[0] for l in r.stdout.splitlines()]

def test_derived_ids_name_no_other_cell_after_other_programs_edits(tmp_path):
    "An id-less file that another tool edits: the cells before the change keep their ids, the rest get new ones, so an id printed before names no other cell, in any process"
    p = old_nb(tmp_path/'old.ipynb', ['import os', 'x = 1', 'print(x)', 'x = 1', 'y = 2'])
    a = summary_ids(p, '0')
    assert a==summary_ids(p, '12345') and len(set(a))==5 # the same in another process and hash seed; the repeated source gets its own id
    old_nb(p, ['import os', 'x = 1', 'print(x) # edited', 'x = 1', 'y = 2', 'z = 3'])
    b = summary_ids(p)
    assert b[:2]==a[:2] and not set(b[2:]) & set(a) # the cells before the edited one keep their ids; from it on, new ones
    assert ok('view', p, b[1]).endswith('x = 1\n') # an id printed before the other program's edit still works
    old_nb(p, ['import os', 'print(x)', 'x = 1', 'y = 2']) # the first `x = 1` deleted: the second must not take its id
    c = summary_ids(p)
    assert c[0]==a[0] and not set(c[1:]) & set(a+b)
    fails('view', p, a[1], has='not found')

def test_stats_and_export_escape_file_names(tmp_path):
    "stats and export name the files they read: a file name's escapes are not sent to a terminal raw (and piped output is left as it is)"
    d = tmp_path/'dlgs'; d.mkdir()
    old_nb(d/'a\x1b]0;pwned\x07.ipynb', ['1'])
    (d/'b\x1b[2J.ipynb').write_text('not json')
    import pty, tty
    from cli_helpers import read_pty
    for args in (['stats', d], ['export', d, '-o', tmp_path/'x.jsonl', '--skip-bad']):
        mfd,sfd = pty.openpty(); tty.setraw(sfd)
        pr = subprocess.Popen(cmd + [str(o) for o in args], stdout=sfd, stderr=sfd, stdin=subprocess.DEVNULL, env=env)
        os.close(sfd); out = read_pty(mfd).decode(); pr.wait(60)
        assert pr.returncode==0 and '\x1b' not in out and '\\x1b[2J' in out, (args, out) # the bad file is listed, escaped
        if args[0]=='stats': assert '\\x1b]0;pwned\\x07' in out # and the biggest dialogs, by name

def test_dry_run_with_nothing_skipped(tmp_path):
    "run --dry-run lists the messages that would run, and says 'nothing to run' only when nothing would"
    p = old_nb(tmp_path/'r.ipynb', ['print(1)', 'print(2)'])
    out = ok('run', p, '--dry-run').splitlines()
    assert len(out)==2 and all(l.startswith('would run ') for l in out), out
    assert ok('run', old_nb(tmp_path/'e.ipynb', []), '--dry-run').strip()=='nothing to run'

def test_markdown_output_cannot_swallow_the_document():
    "A code message's Markdown output that opens a fence and never closes it is closed, as notes and replies are"
    d = Dialog('md')
    d.mk_message('show()', output=[dict(output_type='display_data', data={'text/markdown': 'see:\n```python\nunclosed'}, metadata={})])
    d.mk_message('the end', msg_type='note')
    html = MarkdownIt('commonmark').render(dlg2md(d))
    assert '<p>the end</p>' in html, html

def test_skip_execution_tag_and_front_matter_eval(tmp_path):
    "Cells tagged skip-execution (skipped by jupyter execute and papermill) and a front matter's eval: false (nbdev-test) are not run"
    cells = [dict(cell_type='raw', metadata={}, source='---\neval: false\n---'),
             *[dict(cell_type='code', metadata=md, source=s, outputs=[], execution_count=None) for md,s in
               [(dict(tags=['skip-execution']), "open('ran', 'w')"), ({}, 'buy_gpu()'), ({}, '#| eval: true\nprint(1)')]]]
    p = tmp_path/'t.ipynb'; p.write_text(json.dumps(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=4)))
    out = ok('run', p, '--dry-run').splitlines()
    assert [l.split(' (')[-1] for l in out if l.startswith('would skip')]==['skip-execution tag)', 'eval: false in the front matter)']
    assert [l for l in out if l.startswith('would run')]==[l for l in out if 'print(1)' in l] and len(out)==3

def test_convert_folder_never_writes_over_a_dialog_it_reads(tmp_path):
    "convert FOLDER --to jsonl -o FOLDER/x.ipynb --force would replace a dialog it reads with JSON Lines: refused, the dialog kept"
    d = tmp_path/'dlgs'; (d/'sub').mkdir(parents=True)
    a,b = old_nb(d/'a.ipynb', ['1']),old_nb(d/'sub'/'b.ipynb', ['2'])
    before = a.read_bytes(),b.read_bytes()
    for o,src in ((a,d), (b,d), (a,a), (tmp_path/'dlgs'/'..'/'dlgs'/'a.ipynb',d)):
        r = nbd('convert', src, d/'sub', '--to', 'jsonl', '-o', o, '--force')
        assert r.returncode==2 and 'being converted' in r.stderr, (o, r.stdout, r.stderr)
    assert (a.read_bytes(),b.read_bytes())==before
    assert ok('convert', d, '--to', 'jsonl', '-o', d/'all.jsonl').startswith('wrote') # beside them is fine

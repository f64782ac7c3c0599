"The command line at its edges: ids of id-less files across edits, folder commands on hostile names, dry runs, fences in outputs, skip markers, convert over its own input"
import importlib.util, json, os, subprocess, sys, textwrap
from pathlib import Path
import pytest
from markdown_it import MarkdownIt
from dialog.core import *
from dialog.ipynb import *
from dialog.view import dlg2md
from cli_helpers import nbd, ok, fails, cmd, env, tour_src

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
    "An id-less file that another tool edits: every cell gets a new id, so an id printed before names no other cell, in any process"
    p = old_nb(tmp_path/'old.ipynb', ['import os', 'x = 1', 'print(x)', 'x = 1', 'y = 2'])
    a = summary_ids(p, '0')
    assert a==summary_ids(p, '12345') and len(set(a))==5 # the same in another process and hash seed; the repeated source gets its own id
    assert ok('view', p, a[1]).endswith('x = 1\n') # an id printed before works while the file is unchanged
    old_nb(p, ['import os', 'x = 1', 'print(x) # edited', 'x = 1', 'y = 2', 'z = 3'])
    b = summary_ids(p)
    assert len(set(b))==6 and not set(b) & set(a) # any change: every id new
    fails('view', p, a[0], has='not found')
    old_nb(p, ['import os', 'x = 1', 'x = 1', 'y = 2'])
    c = summary_ids(p)
    old_nb(p, ['import os', 'x = 1', 'y = 2']) # the first of two adjacent `x = 1` deleted: the second must not take its id
    assert not set(summary_ids(p)) & set(a+b+c)
    fails('view', p, c[1], has='not found')

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

def test_warnings_reach_stderr_escaped_as_one_line(tmp_path):
    "A warning naming a file (a session still being written, whose name holds escapes) is one line on stderr, through term_safe, never Python's raw printer"
    from shared_paths import need_corpus
    src = need_corpus('sessions', 'claude-code-session.jsonl')
    d = tmp_path/'s'; d.mkdir()
    p = d/'\x1b]0;PWNED\x07\x1b[2J.jsonl'
    p.write_bytes(src.read_bytes() + b'{"type":"assistant')  # a partial last line: the session is being written
    for k in range(3): old_nb(d/f'n{k}.ipynb', ['1'])
    for args in (['stats', d], ['stats', d, '--workers', '2'], ['export', d, '-o', tmp_path/'o.jsonl']):
        r = subprocess.run(cmd + [str(o) for o in args], capture_output=True, env=env, timeout=120)
        err = r.stderr.decode()
        assert r.returncode==0 and '\x1b' not in err and '\x07' not in err, (args, err)
        assert err.splitlines()==[f'nbdialog {args[0]}: warning: {d}/\\x1b]0;PWNED\\x07\\x1b[2J.jsonl, line 21: '
                                  'a partial last line (the session is still being written?) was left out'], (args, err)

def test_warnings_of_processes_started_fresh_reach_stderr_escaped(tmp_path):
    "With processes started fresh (spawn: macOS's default, forkserver: Linux's from Python 3.14), a warning raised in one still goes through the command's escaping printer"
    from shared_paths import need_corpus
    src = need_corpus('sessions', 'claude-code-session.jsonl')
    d = tmp_path/'s'; d.mkdir()
    for k in range(12): (d/f'{k:02}\x1b[2J.jsonl').write_bytes(src.read_bytes() + b'{"type":"assistant')
    prog = textwrap.dedent('''
        import multiprocessing, sys, time
        multiprocessing.set_start_method('spawn')
        import dialog.dataset as dd, dialog.cli
        f = dd._stats_chunk
        def g(paths): time.sleep(1); return f(paths)  # this process slow: the one started fresh reads most files
        g.__module__,g.__qualname__ = f.__module__,f.__qualname__  # which it finds as the function itself
        dd._stats_chunk = g
        sys.exit(dialog.cli.main(sys.argv[1:]))''')
    r = subprocess.run([sys.executable, '-c', prog, 'stats', str(d), '--workers', '2'], capture_output=True, env=env, timeout=120)
    err = r.stderr.decode()
    assert r.returncode==0 and '\x1b' not in err and len(err.splitlines())==12, err
    assert all(l.startswith('nbdialog stats: warning: ') and '\\x1b[2J.jsonl, line 21' in l for l in err.splitlines()), err

def test_main_puts_warnings_printer_back():
    "main shows warnings its own way only while a command runs"
    import warnings
    from dialog.cli import main
    before = warnings.showwarning
    main(['summary', str(tour_src), '--maxlen', '40'])
    assert warnings.showwarning is before

_killer = '''
import os, signal, sys
import dialog.dataset as dd, dialog.cli
main = os.getpid()
def killed_in_worker(f):
    def g(*a, **k):
        if os.getpid()!=main: os.kill(os.getpid(), signal.SIGKILL)  # the OOM killer ends this worker
        return f(*a, **k)
    return g
for n in ('_table_chunk', '_jsonl_chunk', '_stats_chunk'): setattr(dd, n, killed_in_worker(getattr(dd, n)))
sys.exit(dialog.cli.main(sys.argv[1:]))
'''

def test_a_killed_reading_process_is_one_line_and_exit_2(tmp_path):
    "A process reading files killed (the OOM killer) is said in one line with the error exit code, 2: never a traceback and 1 ('nothing found')"
    d = tmp_path/'talks'; d.mkdir()
    for k in range(40): old_nb(d/f'd{k:02}.ipynb', [f'x = {k}'])
    cases = [['export', d, '-o', tmp_path/'t.jsonl', '--workers', '2'], ['stats', d, '--workers', '2']]
    if importlib.util.find_spec('pyarrow'): cases.append(['export', d, '-o', tmp_path/'t.parquet', '--workers', '2'])
    for args in cases:
        r = subprocess.run([sys.executable, '-c', _killer, *map(str, args)], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode==2 and r.stderr.splitlines()==[f'nbdialog {args[0]}: a process reading files stopped '
                                                           '(was it killed?) before sending back what it read'], (args, r.stderr)

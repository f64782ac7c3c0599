"nbdialog exhash: one read of the file, --dry-run and --repair as the other editing commands have them, and a result that says whether it changed anything"
import io, json
import pytest
from fastcore.tools import lnhash
from dialog.core import *
from dialog.ipynb import *
import dialog.cli as cli, dialog.skill as sk
from cli_helpers import nbd

def run(capsys, monkeypatch, *args, stdin=''):
    "`main(args)` in this process with `stdin` piped in: (exit code, stdout, stderr)"
    monkeypatch.setattr('sys.stdin', io.StringIO(stdin))
    rc = cli.main([str(a) for a in args])
    o = capsys.readouterr()
    return rc,o.out,o.err

@pytest.fixture
def dlg(tmp_path):
    d = Dialog('d'); d.mk_message('def f(x):\n    return x+1\nprint(f(1))', id='c1'); d.mk_message('x = 2', id='c2')
    return d.save(tmp_path/'d.ipynb')

def _cmd(line, text, *rest): return json.dumps([[lnhash(line, text), *rest]])

def test_exhash_reads_the_file_once(dlg, capsys, monkeypatch):
    reads = []
    for mod in (cli, sk):
        real = mod.read_ipynb
        monkeypatch.setattr(mod, 'read_ipynb', lambda *a, _r=real, **kw: reads.append(a[0]) or _r(*a, **kw))
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c1', stdin=_cmd(2, '    return x+1', 's', r'x\+1', 'x + 1'))
    assert rc==0, err
    assert len(reads)==1
    assert read_ipynb(dlg)['c1'].content=='def f(x):\n    return x + 1\nprint(f(1))'

def test_exhash_dry_run_shows_the_diff_and_writes_nothing(dlg, capsys, monkeypatch):
    before = dlg.read_bytes()
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c1', '--dry-run', stdin=_cmd(3, 'print(f(1))', 'c', 'print(f(2))'))
    assert rc==0, err
    assert out.splitlines()[0]=='would edit c1 (dry run: nothing written)'
    assert '-3|' in out and '+3|' in out and '+3|' + lnhash(3, 'print(f(2))').split('|')[1] + '|print(f(2))' in out  # the diff itself
    assert err.strip().startswith('dry run: ') and err.strip().endswith('d.ipynb not written')
    assert dlg.read_bytes()==before
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c1', stdin=_cmd(3, 'print(f(1))', 'c', 'print(f(2))'))
    assert rc==0 and read_ipynb(dlg)['c1'].content.endswith('print(f(2))')
    assert out.startswith('--- original') and 'would' not in out

def test_exhash_dry_run_of_a_stale_address_is_still_an_error(dlg, capsys, monkeypatch):
    before = dlg.read_bytes()
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c1', '--dry-run', stdin=_cmd(3, 'nope', 'd'))
    assert rc==1 and err.startswith('nbdialog exhash: stale lnhash') and dlg.read_bytes()==before

def test_exhash_that_changes_nothing_writes_nothing(dlg, capsys, monkeypatch):
    before = dlg.read_bytes()
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c1', stdin=_cmd(1, 'def f(x):', 'p'))  # print a line: no edit
    assert rc==0 and out.startswith('# printed') and 'def f(x):' in out
    assert dlg.read_bytes()==before

def test_exhash_keeps_crlf(tmp_path, capsys, monkeypatch):
    d = Dialog('w'); d.mk_message('a = 1\r\nb = 2\r\n', id='w1'); p = d.save(tmp_path/'w.ipynb')
    rc,out,err = run(capsys, monkeypatch, 'exhash', p, 'w1', stdin=_cmd(2, 'b = 2', 's', '2', '3'))
    assert rc==0 and read_ipynb(p)['w1'].content=='a = 1\r\nb = 3\r\n'

def _damaged(p):
    "A file strict reading refuses (an invalid cell id), which `--repair` heals"
    cells = [dict(cell_type='markdown', id='$a', metadata={}, source='# Title'),
             dict(cell_type='code', id='c1', metadata={}, source='x = 1\ny = 2', outputs=[], execution_count=None)]
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells)))
    return p

def test_exhash_repair(tmp_path, capsys, monkeypatch):
    p = _damaged(tmp_path/'g.ipynb')
    before = p.read_bytes()
    cmd = _cmd(2, 'y = 2', 'c', 'y = 3')
    rc,out,err = run(capsys, monkeypatch, 'exhash', p, 'c1', stdin=cmd)
    assert rc==2 and 'invalid cell id' in err and p.read_bytes()==before
    rc,out,err = run(capsys, monkeypatch, 'exhash', p, 'c1', '--repair', '--dry-run', stdin=cmd)
    assert rc==0 and 'invalid id' in err and out.startswith('would edit c1') and p.read_bytes()==before  # a dry run writes nothing
    rc,out,err = run(capsys, monkeypatch, 'exhash', p, 'c1', '--repair', stdin=cmd)
    assert rc==0 and 'invalid id' in err, err
    d = read_ipynb(p)  # the healed file reads strictly
    assert [m.content for m in d.messages]==['# Title', 'x = 1\ny = 3']

def test_exhash_options_in_help(capsys, monkeypatch):
    "exhash spells its flags as the other editing commands do"
    for c in ('exhash', 'edit'):
        rc,out,err = run(capsys, monkeypatch, c, '--help')
        txt = ' '.join(out.split())
        assert rc==0 and '--dry-run print the result and write nothing' in txt and 'the healed file is written when the command saves' in txt, (c, txt)

@pytest.mark.slow
def test_exhash_dry_run_as_a_program(dlg):
    before = dlg.read_bytes()
    r = nbd('exhash', dlg, 'c2', '--dry-run', input=_cmd(1, 'x = 2', 'c', 'x = 3'))
    assert r.returncode==0 and r.stdout.startswith('would edit c2 (dry run: nothing written)\n--- original') and dlg.read_bytes()==before

def test_view_lnhash_out_shows_the_reply_addresses_exhash_out_takes(tmp_path, capsys, monkeypatch):
    "A shell agent edits a prompt's reply by address: view --lnhash --out addresses the reply's lines in <out>, and exhash --out takes them"
    d = Dialog('a'); p = d.mk_message('question\nline2', msg_type=sprompt, id='p1'); p.ai_res = 'reply one\nreply two'
    f = d.save(tmp_path/'a.ipynb')
    rc,out,err = run(capsys, monkeypatch, 'view', f, 'p1', '--lnhash', '--out')
    assert rc==0 and out.split('\n')[1:]==[lnhash(1, 'question')+'question', lnhash(2, 'line2')+'line2', '<out>',
                                          lnhash(1, 'reply one')+'reply one', lnhash(2, 'reply two')+'reply two', '</out>', ''], out
    addr = out.split('\n')[5].rsplit('|', 1)[0]+'|'  # copied from the view, as an agent does
    rc,out,err = run(capsys, monkeypatch, 'exhash', f, 'p1', '--out', stdin=json.dumps([[addr, 's', 'two', '2']]))
    assert rc==0 and read_ipynb(f)['p1'].ai_res=='reply one\nreply 2', err
    d = read_ipynb(f); p = d['p1']; p.ai_res = '\n'.join(f'reply line {i}' for i in range(1000)); d.save(f)
    rc,out,err = run(capsys, monkeypatch, 'view', f, 'p1', '--lnhash', '--out')  # a long reply: whole lines, up to out_maxlen
    rows = out.split('<out>\n')[1].split('\n')
    assert rows[-3].startswith('[') and 'more lines of the reply: --full-out shows them all' in rows[-3] and rows[-2]=='</out>', rows[-4:]
    assert rows[:-3]==p.lnhashview(out=True).split('\n')[:len(rows)-3] and len('\n'.join(rows[:-3]))<=2000
    rc,out,err = run(capsys, monkeypatch, 'view', f, 'p1', '--lnhash', '--full-out')
    assert out.split('<out>\n')[1]==p.lnhashview(out=True)+'\n</out>\n'

def test_the_errors_exhash_and_view_pass_on_name_the_shells_commands_and_options(tmp_path, capsys, monkeypatch):
    "An error's advice names what a shell has (--out, --sw, nbdialog edit), never an MCP tool; over MCP the same errors name the tools"
    import re
    d = Dialog('d'); d.mk_message('a\nb', id='c1'); d.mk_message('x\udcff y\U000f00ff', msg_type=snote, id='n1'); f = d.save(tmp_path/'d.ipynb')
    cmds = lambda n: json.dumps([[lnhash(1, 'a'), 's', 'a', 'b']]*n)
    errs = [run(capsys, monkeypatch, *args, stdin=stdin) for *args,stdin in [
        ('exhash', f, 'c1', '--dry-run', cmds(1001)), ('exhash', f, 'c1', '--out', cmds(1)), ('exhash', f, 'c1', '--sw', 100, '[["%", ">"]]'),
        ('exhash', f, 'n1', cmds(1)), ('view', f, 'n1', '--lnhash', '')]]
    for rc,out,err in errs:
        assert rc and not re.search(r'\b(?:msg_)?[a-z]+_[a-z_]+\b|out=True|(?<!-)\bsw,', err), err  # no tool name, no argument name
    assert 'split the edit into several calls, or rewrite the lines with nbdialog edit FILE ID' in errs[0][2]
    assert '--out edits a prompt' in errs[1][2] and errs[2][2].startswith('nbdialog exhash: --sw, the shift width')
    assert all('edit it with nbdialog edit FILE ID (the new text on stdin)' in e for _,_,e in errs[3:])
    # the same errors over MCP, whoever hosts the server: the tools' own names
    tok = sk.tool_words.set(cli._cli_words)
    try: txt,err = sk.call_tool('msg_exhash', dict(id='n1', dlg='d.ipynb', cmds=[['1|zz|', 'd']]), root=tmp_path)
    finally: sk.tool_words.reset(tok)
    assert err and 'edit it with msg_str_replace or msg_replace_lines' in txt, txt
    assert Message('a', id='m').exhash(('%', '>'), sw=100)=='error: sw, the shift width of `>` and `<`, must be 1 to 64, not 100'  # and in Python


def test_exhash_reads_its_commands_as_utf8_whatever_the_locale(dlg):
    "The JSON commands on stdin are UTF-8, as add's and edit's content is, not the locale's encoding (a cp1252 pipe saved `CafÃ©`); bytes that aren't UTF-8 are refused, nothing written"
    import subprocess
    from cli_helpers import cmd, env
    go = lambda data: subprocess.run(cmd + ['exhash', str(dlg), 'c2'], input=data, capture_output=True, env=env | {'PYTHONIOENCODING': 'cp1252'}, timeout=120)
    raw = lambda line, text, *rest: json.dumps([[lnhash(line, text), *rest]], ensure_ascii=False).encode('utf-8')  # é as its bytes, not \\u00e9
    r = go(raw(1, 'x = 2', 'c', "x = 'Café'"))
    assert r.returncode==0, r.stderr
    assert read_ipynb(dlg)['c2'].content=="x = 'Café'"
    before = dlg.read_bytes()
    r = go(raw(1, "x = 'Café'", 'c', 'x = 3').replace(b'x = 3', b'x = \xe9'))
    assert r.returncode==2 and b'stdin is not UTF-8' in r.stderr and dlg.read_bytes()==before

def test_exhash_refuses_a_shift_no_line_could_need(dlg):
    "A `>` of a billion levels is refused before the engine builds a line that wide (gigabytes: the OOM killer, or the engine aborting the process); run under a memory cap, so that a regression fails here and spares the machine"
    import resource, subprocess
    from cli_helpers import cmd, env
    def cap(): resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
    go = lambda n: subprocess.run(cmd + ['exhash', str(dlg), 'c2'], input=_cmd(1, 'x = 2', '>', n), capture_output=True, text=True, env=env, timeout=120, preexec_fn=cap)
    before = dlg.read_bytes()
    for n in (1_000_000_000, '1000000000'):  # the engine takes a count as a string too
        r = go(n)
        assert r.returncode in (1, 2) and 'a shift of 1,000,000,000 levels' in r.stderr and dlg.read_bytes()==before
    r = go(2)
    assert r.returncode==0 and read_ipynb(dlg)['c2'].content=='        x = 2'


@pytest.mark.parametrize('n', ['x', '1e9', 1.5, True])
def test_exhash_refuses_a_shift_count_that_isnt_a_whole_number(dlg, capsys, monkeypatch, n):
    "A shift's count is a whole number (an int, or a string of digits, as the engine takes it): anything else is refused, nothing written"
    before = dlg.read_bytes()
    rc,out,err = run(capsys, monkeypatch, 'exhash', dlg, 'c2', stdin=_cmd(1, 'x = 2', '>', n))
    assert rc!=0 and "a shift's count must be a whole number of levels" in err and dlg.read_bytes()==before

"What nbdialog prints is safe on a terminal: one row per message, control characters made visible, escapes never cut in half."
import os, pty, pytest, subprocess
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import cmd, env, ok, read_pty

hostile = 'a\x1b[2J\x1b]0;title\x07b\x0bc\x0cd\x85e\u2028f\u2029g\x00h\x9bi'

def rows(d): return [(m.msg_type, m.content, m.ai_res) for m in d.messages]

def test_rows_are_one_line_without_controls(tmp_path):
    d = Dialog('h')
    ms = [d.mk_message(hostile, msg_type=t) for t in (snote, scode)]
    d.save(tmp_path/'h')
    for out in (ok('summary', tmp_path/'h'), ok('find', tmp_path/'h', 'a', '--context', '1'), '\n'.join(ok('del', tmp_path/'h', ms[0].id, '--dry-run').splitlines()[1:])):
        rows = out.splitlines()
        assert len(rows)==len([r for r in rows if r!='--']) and len(rows) in (1, 2), rows
        assert not any(c in out for c in '\x1b\x07\x0b\x0c\x85\u2028\u2029\x00\x9b'), repr(out)
        assert '\\x1b[2J' in out
    assert ok('view', tmp_path/'h', ms[0].id, '--no-nums').split('\n', 1)[1]==hostile+'\n'  # not a terminal: exact

def test_view_on_a_terminal_is_visible(tmp_path):
    d = Dialog('h')
    m = d.mk_message(hostile + '\nline 2')
    d.save(tmp_path/'h')
    mfd,sfd = pty.openpty()
    p = subprocess.Popen(cmd + ['view', str(tmp_path/'h'), m.id], stdout=sfd, stderr=subprocess.PIPE, env=env)
    os.close(sfd)
    out = read_pty(mfd)
    assert p.wait(timeout=60)==0
    txt = out.decode().replace('\r\n', '\n')
    assert '\\x1b[2J' in txt and '\\u2028' in txt and 'line 2' in txt and '\x1b' not in txt, repr(txt)

@pytest.mark.parametrize('k', range(20, 27))
def test_summary_never_cuts_an_escape(tmp_path, k):
    d = Dialog('e'); m = d.mk_message('a'*k + '\n\t\\' + 'b'*40); d.save(tmp_path/'e.ipynb')
    import re
    row,pre = ok('summary', tmp_path/'e', '--maxlen', 40).strip(),f'{m.id}:code: '
    assert len(row)<=40 and row.endswith('…') and row.startswith(pre), row
    body = row[len(pre):-1]
    assert len(re.search(r'\\*$', body).group())%2==0, row # no half of an escape left before the cut
    assert ('a'*k + '\\n\\t\\\\' + 'b'*40).startswith(body), row
    row,pre = ok('find', tmp_path/'e', 'bbb', '--maxlen', 40).strip(),f'{m.id}:code:2: ' # find shows the matching line itself
    assert len(row)<=40 and row.endswith('…') and row.startswith(pre) and ('\\' + 'b'*40).startswith(row[len(pre):-1]), row

def test_read_commands_print_utf8_whatever_the_locale(tmp_path):
    "Under a Latin-1 locale, `view`, `summary` and `find` piped write the bytes a UTF-8 locale gets, as `convert` does (they stopped at `──` or `…`, exit 2, nothing written); a Latin-1 terminal gets escapes, never an error"
    d = Dialog('a'); d.mk_message('print(1)'); m = d.mk_message('Café 🙂 ' + 'x'*200, msg_type=sprompt, output='Hello.'); d.save(tmp_path/'a.ipynb')
    for args in (['view', 'a.ipynb', '--out'], ['summary', 'a.ipynb'], ['find', 'a.ipynb', 'x']):
        run = lambda e: subprocess.run(cmd + args, cwd=tmp_path, env=e, capture_output=True, timeout=120)
        want,got = run(env | {'PYTHONIOENCODING': 'utf-8'}),run(env | {'PYTHONIOENCODING': 'latin-1'})
        assert want.returncode==0 and b'Caf\xc3\xa9' in want.stdout, want
        assert (got.returncode,got.stdout)==(0,want.stdout), (args, got.returncode, got.stderr)
    mfd,sfd = pty.openpty()
    p = subprocess.Popen(cmd + ['view', 'a.ipynb', m.id], cwd=tmp_path, stdout=sfd, stderr=subprocess.PIPE, env=env | {'PYTHONIOENCODING': 'latin-1'})
    os.close(sfd)
    out = read_pty(mfd)
    assert p.wait(timeout=60)==0, p.stderr.read()
    txt = out.decode('latin-1')
    assert txt.startswith('\\u2500\\u2500 ') and 'Caf\xe9 \\U0001f642 xxx' in txt, repr(txt)

"""Every command, on a real terminal (a pty), fed hostile content: nothing from a file, a user or executed code reaches the terminal as a control sequence.

The check is independent of `term_safe`: it looks at what the terminal received for any character Unicode calls a control (Cc) or
an invisible format character (Cf: bidi controls, zero widths, tags), or a line or paragraph separator; only tab, newline and the
emoji joiner U+200D may pass. `sweep_counts` (printed by `python tests/test_cli_pty.py`) says how many runs and bytes were checked."""
import json, os, pty, subprocess, sys, time, tty, unicodedata
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import cmd, env, read_pty

hostile = ['\x1b]0;pwned\x07', '\x1b[2J\x1b[H', '\x1b]52;c;cm0gLXJmIH4=\x07', 'rm -rf ~ # \rprint("hello")', '\x9b31m', '\x85next', 'del\x7f\x08\x08',
           'bidi \u202eevil\u202c \u2066x\u2069', 'zero\u200bwidth\ufeff', 'tag\U000e0041\U000e007f', 'sep\u2028para\u2029', 'bell\x07 vt\x0b ff\x0c']
allowed = {'\t', '\n', '\u200d'}

def bad_chars(s):
    "The characters of `s` a terminal must never get raw"
    return sorted({c for c in s if c not in allowed and (unicodedata.category(c) in ('Cc', 'Cf', 'Zl', 'Zp'))})

def on_pty(args, cwd=None, timeout=180):
    "Run the command line on a raw pty (stdout and stderr); returns (exit code, what the terminal got, as text)"
    mfd,sfd = pty.openpty()
    tty.setraw(sfd) # no newline translation: any CR the terminal gets came from us
    p = subprocess.Popen(cmd + [str(a) for a in args], stdin=subprocess.DEVNULL, stdout=sfd, stderr=sfd, env=env, cwd=cwd)
    os.close(sfd)
    out = read_pty(mfd)
    return p.wait(timeout=timeout), out.decode('utf-8', 'replace')

def mk_hostile(folder):
    "A dialog holding every hostile string in every place a command prints: content, outputs, errors, replies, names"
    d = Dialog('hostile')
    d.mk_message('# Notes\n' + '\n'.join(hostile), msg_type='note')
    for h in hostile:
        d.mk_message(f'#| export\nx = {h!r} # {h}', output=[dict(output_type='stream', name='stdout', text=h + '\n'), *code_output(h)])
    d.mk_message('1/0', output=[dict(output_type='error', ename='Evil' + hostile[0], evalue=' '.join(hostile), traceback=hostile)])
    d.mk_message('\n'.join(hostile), msg_type='prompt', output='\n'.join(hostile))
    d.mk_message('\n'.join(hostile), msg_type='raw')
    p = folder/('evil\x1b[2J\u202e' + '.ipynb') # a hostile file name too
    d.save(p)
    bad = folder/'badid.ipynb' # a crafted file whose cell id is a control sequence: the reader's error quotes it
    bad.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='raw', id='\x1b]0;pwned\x07\u202e', metadata={}, source='')])))
    return p,bad,[m.id for m in d.messages]

def commands(p, bad, ids, tmp):
    "Every command and option that prints what a file, a user or executed code holds"
    h = ' '.join(hostile)
    good = tmp/('good\u202e'); good.mkdir(exist_ok=True) # a folder of readable dialogs only
    (good/p.name).write_bytes(p.read_bytes())
    return [['summary', p], ['summary', p, '--maxlen', '20'], ['view', p], ['view', p, '--out'], ['view', p, '--full-out'], ['view', p, '--xml', '--out'],
            ['view', p, '--errors', '--xml'], ['view', p, ids[0], '--start-line', '2', '--end-line', '4'], ['view', p, '--no-nums', '--out'],
            ['find', p, 'x'], ['find', p, 'pwned', '--out'], ['find', p, 'e', '--context', '1'], ['find', p, '', '--exported'],
            ['add', p, '--content', h, '--dry-run'], ['add', p, '--type', 'note', '--content', h, '--after', ids[3], '--dry-run'],
            ['edit', p, ids[1], '--content', h, '--type', 'note', '--dry-run'], ['del', p, ids[1], ids[2], '--dry-run'], ['move', p, ids[1], '--after', ids[5], '--dry-run'],
            ['convert', p, '--to', 'md'], ['convert', p, '--to', 'py'], ['convert', p, '--to', 'xml'], ['convert', p, '--to', 'openai'],
            ['convert', p, '--to', 'anthropic'], ['convert', p, p, '--to', 'jsonl'], ['convert', p, '--to', 'md', '-o', tmp/('out\x1b]0;t\x07.md')],
            ['run', p, '--dry-run'], ['run', p, '--dry-run', '--force-eval'],
            # folders of dialogs: reports that name files and quote their errors, JSON Lines on the terminal
            ['stats', tmp], ['export', tmp, '-o', tmp/'all.jsonl', '--skip-bad'], ['export', tmp, '-o', tmp/'bad.jsonl'],
            ['convert', good, '--to', 'jsonl'], ['convert', good, '--to', 'jsonl', '-o', tmp/('o\x1b]0;t\x07.jsonl')],
            # errors that quote the user's input or the file
            ['summary', bad], ['view', p, '\x1b[2Jnope\u202e'], ['find', p, '(\x1b[2J'], ['edit', p, ids[1]], ['add', tmp/'no\x1b[2Jsuch', '--content', 'x'],
            ['summary', tmp/('gone\x1b]0;x\x07')], ['view', p, '--bogus\x1b[2J'], ['summary', p, '--type', 'evil\x1b[2J'], ['convert', p, '--to', 'py', '-o', p],
            ['--help'], ['view', '--help']]

sweep_counts = dict(runs=0, bytes=0, hostile_strings=len(hostile), raw_controls=0)

def test_every_command_on_a_terminal(tmp_path):
    p,bad,ids = mk_hostile(tmp_path)
    for args in commands(p, bad, ids, tmp_path):
        rc,out = on_pty(args, cwd=tmp_path)
        assert 'Traceback' not in out, (args, out[-2000:])
        out = out.replace('\r\x1b[K', '') # a progress line's own redraw (several files), made by the command, not taken from a file
        assert bad_chars(out)==[], (args, bad_chars(out), out[:3000])
        sweep_counts['runs'] += 1; sweep_counts['bytes'] += len(out.encode())
    assert sweep_counts['runs']>=35

def test_the_sweep_would_catch_a_leak(tmp_path):
    "The same check on output printed raw (cat) finds every hostile string: the sweep is not vacuous"
    f = tmp_path/'raw.txt'; f.write_text('\n'.join(hostile))
    mfd,sfd = pty.openpty(); tty.setraw(sfd)
    subprocess.run(['cat', str(f)], stdout=sfd, stderr=sfd); os.close(sfd)
    out = os.read(mfd, 65536).decode('utf-8', 'replace'); os.close(mfd)
    assert all(bad_chars(h) for h in hostile) and all(c in out for h in hostile for c in bad_chars(h))

@pytest.mark.slow
def test_run_on_a_terminal(tmp_path):
    "Executed code prints and raises hostile text: the status lines and errors that quote it reach the terminal escaped"
    d = Dialog('run')
    d.mk_message('print(' + repr(' '.join(hostile)) + ')')
    d.mk_message('raise ValueError(' + repr(' '.join(hostile)) + ')')
    d.mk_message('class E(Exception): pass\nE.__name__ = E.__qualname__ = ' + repr(hostile[0]) + '\nraise E(' + repr(hostile[1]) + ')')
    p = d.save(tmp_path/('run\x1b]0;t\x07.ipynb'))
    rc,out = on_pty(['run', p, '--continue-on-error', '--timeout', '30'], cwd=tmp_path)
    assert rc==1 and 'Traceback' not in out, out
    out = out.replace('\r\x1b[K', '') # the progress line's own redraw, made by the command, not taken from the file
    assert bad_chars(out)==[], (bad_chars(out), out)
    assert 'error ValueError: ' in out

if __name__=='__main__':
    import tempfile
    with tempfile.TemporaryDirectory() as t: test_every_command_on_a_terminal(Path(t))
    print(sweep_counts)

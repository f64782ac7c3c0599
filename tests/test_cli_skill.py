"The command line's verified edits and MCP server, run as real programs: `view --lnhash`, `exhash` (commands on stdin), `mcp --root`"
import json, os, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

root = Path(__file__).resolve().parent.parent
env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root)] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
cmd = [sys.executable, '-m', 'dialog.cli']

def nbd(*args, input=None):
    return subprocess.run(cmd + [str(a) for a in args], input=input, capture_output=True, text=True, env=env, timeout=120)

@pytest.fixture
def dlg(tmp_path):
    d = Dialog('d'); d.mk_message('def f(x):\n    return x+1\nprint(f(1))', id='c1', output=code_output('2')); d.mk_message('Q?', msg_type=sprompt, output='A one', id='p1')
    d.save(tmp_path/'d.ipynb')
    return tmp_path/'d.ipynb'

def test_view_lnhash_shows_the_addresses_skill_gives(dlg):
    r = nbd('view', dlg, 'c1', '--lnhash')
    assert r.returncode==0
    assert r.stdout=='── c1 code ──\n' + str(read_ipynb(dlg)['c1'].lnhashview()) + '\n'
    r = nbd('view', dlg, 'c1', '--lnhash', '--out', '--start-line', '2')
    assert r.stdout=='── c1 code ──\n' + str(sk.view_msg('c1', dlg=dlg, lnhashs=True, start_line=2, incl_out=True)) + '\n'
    assert '<out>\n2\n</out>' in r.stdout
    r = nbd('view', dlg, '--lnhash', '--xml')
    assert r.returncode==2 and 'leave out --xml' in r.stderr

def _addr(p, i, n): return str(read_ipynb(p)[i].lnhashview()).split('\n')[n-1].rsplit('|', 1)[0]+'|'

def test_exhash_applies_verified_commands_from_stdin(dlg):
    a = _addr(dlg, 'c1', 2)
    r = nbd('exhash', dlg, 'c1', input=json.dumps([[a, 's', r'x\+1', 'x + 1']]))
    assert r.returncode==0, r.stderr
    assert '+2|' in r.stdout and r.stdout.startswith('--- original')
    assert read_ipynb(dlg)['c1'].content=='def f(x):\n    return x + 1\nprint(f(1))'
    before = dlg.read_bytes()
    r = nbd('exhash', dlg, 'c1', input=json.dumps([a, 'd']))  # one bare command, and a stale address now
    assert r.returncode==1 and 'stale lnhash at line 2' in r.stderr and r.stdout==''
    assert dlg.read_bytes()==before

def test_exhash_lines_of_json_prefix_ids_and_replies(dlg):
    a = _addr(dlg, 'c1', 3)
    r = nbd('exhash', dlg, 'c', input=json.dumps([a, 'c', 'print(f(2))']) + '\n' + json.dumps(['0|AA|', 'a', '# top']) + '\n')
    assert r.returncode==0, r.stderr
    assert read_ipynb(dlg)['c1'].content=='# top\ndef f(x):\n    return x+1\nprint(f(2))'
    r = nbd('exhash', dlg, 'p1', '--out', input=json.dumps([['1|' + _addr(dlg, 'p1', 1).split('|')[1] + '|', 's', 'one', 'two']]))
    assert r.returncode==1  # that's the request's hash, not the reply's
    rep = read_ipynb(dlg)['p1']
    a = str(rep.lnhashview(out=True)).rsplit('|', 1)[0]+'|'
    r = nbd('exhash', dlg, 'p1', '--out', input=json.dumps([[a, 's', 'one', 'two']]))
    assert r.returncode==0 and read_ipynb(dlg)['p1'].ai_res=='A two'

def test_exhash_bad_input_is_exit_2(dlg):
    for inp,msg in [('', 'no commands on stdin'), ('not json', 'not JSON'), ('[["1|zz|"]]', '')]:
        r = nbd('exhash', dlg, 'c1', input=inp)
        assert r.returncode in (1, 2) and r.stderr.startswith('nbdialog exhash:'), (inp, r.stderr)
        assert msg in r.stderr
    r = nbd('exhash', dlg, 'nope', input='[]')
    assert r.returncode==2 and "'nope'" in r.stderr

def test_help_lists_exhash_and_mcp():
    r = nbd('--help')
    assert 'exhash' in r.stdout and 'mcp' in r.stdout
    assert '--root DIR' in nbd('mcp', '--help').stdout

def test_mcp_takes_the_pools_deadline_memory_cap_and_worker_count(tmp_path, monkeypatch):
    import dialog.cli as cli
    got = []
    monkeypatch.setattr(cli, 'serve_mcp', lambda *a: got.append(a))
    for args,want in [([], ('.', 30, 4<<30, None)), (['--timeout', '2.5', '--maxmem', '512M', '--workers', '3'], ('.', 2.5, 512<<20, 3)),
                      (['--maxmem', '0'], ('.', 30, None, None)), (['--maxmem', '200000000', '--root', 'x'], ('x', 30, 200_000_000, None)), (['--maxmem', '0.0', '--timeout', '604800'], ('.', 604800, None, None))]:
        assert cli.main(['mcp', *args])==0 and got.pop()==want, args
    for bad,msg in [(['--timeout', '0'], 'more than 0 seconds'), (['--timeout', 'soon'], 'number of seconds'), (['--maxmem', '4X'], 'a size such as 4G'),
                    (['--workers', '0'], '1 or more'), (['--timeout', '3000000'], 'at most a week'), (['--timeout', 'inf'], 'at most a week'),
                    (['--maxmem', '512'], 'a number without a unit is bytes'), (['--maxmem', '0.5'], '0.5 is 0 bytes, too little'), (['--maxmem', '100M'], 'at least 128M')]:
        r = nbd('mcp', *bad)
        assert r.returncode==2 and msg in r.stderr, (bad, r.stderr)

@pytest.mark.slow
def test_mcp_timeout_option_is_the_calls_deadline(tmp_path):
    anyio = pytest.importorskip('anyio'); pytest.importorskip('mcp')
    import test_skill_mcp as t, time
    d = Dialog('d'); d.mk_message('a'*40+'!', id='m0'); d.save(tmp_path/'d.ipynb')
    params = t._server(tmp_path, [sys.executable, '-m', 'dialog.cli', 'mcp', '--root', str(tmp_path), '--timeout', '1.5', '--maxmem', '1G'])
    async def f(s):
        t0 = time.monotonic(); r = await s.call_tool('find_msgs', dict(pattern='(a+)+$', dlg='d.ipynb'))
        return r.is_error, r.content[0].text, time.monotonic()-t0
    err,txt,took = anyio.run(t._session_run, params, f)
    assert err and txt.startswith('TimeoutError: find_msgs ran past the 1.5 s limit') and took<5, (txt, took)

@pytest.mark.slow
def test_mcp_subcommand_serves_over_stdio(tmp_path):
    anyio = pytest.importorskip('anyio'); pytest.importorskip('mcp')
    import test_skill_mcp as t
    r,out = t._setup(tmp_path)
    params = t._server(r, [sys.executable, '-m', 'dialog.cli', 'mcp', '--root', str(r)])
    assert anyio.run(t._session_run, params, lambda s: t._scenario(s, r, out))

def test_ctrl_c_ends_the_mcp_server_at_once(tmp_path):
    "R38f: Ctrl-C (SIGINT) left `nbdialog mcp` running while its client kept stdin open (the requests are read in a thread the interrupt waited for); it exits at once, 130 as every command, its workers with it"
    pytest.importorskip('mcp')
    import signal, time
    p = subprocess.Popen(cmd + ['mcp', '--root', str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        time.sleep(3)  # serving by now, on most machines: its stdin read in a thread (earlier, Ctrl-C gives 130 too)
        p.send_signal(signal.SIGINT)
        assert p.wait(20)==130, p.stderr.read()
    finally:
        if p.poll() is None: p.kill(); p.wait()

"A call never blocks the server: FIFOs refused before opening, runaway work stopped at a deadline (a tool error naming the limit), a crashed worker replaced, exhash inputs bounded, unreadable requests answered"
import json, os, select, signal, subprocess, sys, threading, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

ROOT = Path(__file__).resolve().parents[1]

def _mk(root):
    d = Dialog('d'); d.mk_message('x = 1', id='m0'); d.mk_message('a'*40 + '!', msg_type=snote, id='bomb')
    d.save(root/'d.ipynb')
    return root

def _in_time(f, secs=10):
    "`f()`, failing the test if it takes more than `secs` (run in a thread, so a hang is seen, not suffered)"
    res = []
    t = threading.Thread(target=lambda: res.append(f()), daemon=True); t.start(); t.join(secs)
    assert not t.is_alive(), f'hung for {secs} s'
    return res[0]

def _step(root):
    "Seconds a fresh worker takes to start and answer a cheap call now, under this machine's load: the unit the deadlines below are set in"
    # a worker's start isn't counted against a call, but a loaded machine slows the call itself too: a deadline set
    # tighter than a few steps fails for the machine's speed, not for the behaviour the test pins
    _mk(root)
    t = time.monotonic()
    with sk.ToolPool(root, timeout=600, workers=1) as pool: assert pool.call('summary_dlg', dict(dlg='d.ipynb'))[1] is False
    return time.monotonic()-t

def _deadline(root, least): return round(max(least, 3*_step(root)), 1)

@pytest.mark.parametrize('name,args', [
    ('summary_dlg', dict(dlg='f.ipynb')), ('view_dlg', dict(dlg='f')), ('find_msgs', dict(dlg='f.ipynb')),
    ('add_msg', dict(content='x', dlg='f.ipynb')), ('create_dlg', dict(fname='f')), ('copy_msgs', dict(ids='a', dlg='f.ipynb'))])
def test_a_fifo_named_ipynb_is_refused_at_once(tmp_path, name, args):
    os.mkfifo(tmp_path/'f.ipynb')
    txt,err = _in_time(lambda: sk.call_tool(name, args, root=tmp_path))
    assert err and ('not a regular file' in txt or 'already exists' in txt), txt

def test_set_dlg_on_a_fifo_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path/'f.ipynb')
    def f():
        try: sk.set_dlg(tmp_path/'f.ipynb')
        except ValueError as e: return str(e)
    assert 'not a regular file' in _in_time(f)

def test_exhash_inputs_are_bounded(tmp_path):
    _mk(tmp_path)
    txt,err = sk.call_tool('msg_exhash', dict(id='m0', cmds=[['%', '>']], sw=2**60, dlg='d.ipynb'), root=tmp_path)  # aborted the whole process before
    assert err and 'must be 1 to 64' in txt
    t = time.process_time()  # (this process's CPU time: the work done, whatever else the machine runs)
    txt,err = sk.call_tool('msg_exhash', dict(id='m0', cmds=[['1|zz|', 's', 'x', 'y']]*100_000, dlg='d.ipynb'), root=tmp_path)
    assert err and txt.startswith('TypeError: argument `cmds` holds 100,000 items: at most 1,000 in one call') and time.process_time()-t < 1, txt  # refused by the schema, before its items are looked at
    assert Message('x').exhash([('1|zz|', 's', 'x', 'y')]*100_000).startswith('error: 100,000 exhash commands: at most 1,000')  # in Python too
    assert read_ipynb(tmp_path/'d.ipynb')['m0'].content=='x = 1'

def test_a_runaway_regex_is_stopped_at_the_deadline_and_the_next_call_is_answered(tmp_path):
    "A regex that would backtrack for hours is stopped at its deadline (at least 1.5 s, and 3 steps of this machine's, so the next call, on a fresh worker, fits in its own), the error saying how the deadline is counted (a fresh worker's start-up not)"
    T = _deadline(tmp_path, 1.5)
    with sk.ToolPool(tmp_path, timeout=T) as pool:
        for name,args in (('find_msgs', dict(pattern='(a+)+$')), ('msg_str_replace', dict(id='bomb', old_str='a', new_str='b', re_filter='(a+)+$'))):
            t = time.time()
            txt,err = pool.call(name, args|dict(dlg='d.ipynb'))
            assert err and txt.startswith(f'TimeoutError: {name} ran past the {T:g} s limit') and time.time()-t < T+3.5, txt
            assert '(counted from when it came in, not counting the start-up of a fresh worker)' in txt, txt  # r16: as the deadline is counted
            assert pool.call('view_msg', dict(id='m0', dlg='d.ipynb'))==(sk.call_tool('view_msg', dict(id='m0', dlg='d.ipynb'), root=tmp_path)[0], False)
    assert read_ipynb(tmp_path/'d.ipynb')['bomb'].content=='a'*40 + '!'

def test_a_crashed_worker_is_a_tool_error_and_is_replaced(tmp_path):
    _mk(tmp_path)
    with sk.ToolPool(tmp_path, timeout=20) as pool:
        pool.call('summary_dlg', dict(dlg='d.ipynb'))
        w = pool._idle[-1]
        def kill():  # once the call holds the worker (not at a time, which a loaded machine may not have reached)
            end = time.monotonic()+60
            while not w.busy and time.monotonic()<end: time.sleep(0.01)
            time.sleep(0.2); os.kill(w.proc.pid, signal.SIGKILL)  # in the regex, as a native abort would end it
        threading.Thread(target=kill, daemon=True).start()
        txt,err = pool.call('find_msgs', dict(pattern='(a+)+$', dlg='d.ipynb'))
        assert err and txt.startswith('RuntimeError: the process running find_msgs died (killed by signal 9)'), txt
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))[1] is False

def test_the_pool_keeps_its_own_paste_buffer(tmp_path):
    _mk(tmp_path)
    with sk.ToolPool(tmp_path) as pool:
        assert not pool.call('copy_msgs', dict(ids='m0', dlg='d.ipynb'))[1]
        assert not pool.call('paste_msgs', dict(dlg='d.ipynb'))[1]
    assert [m.content for m in read_ipynb(tmp_path/'d.ipynb').messages]==['x = 1', 'a'*40 + '!', 'x = 1']

def _workers(root):
    "How many worker processes of a pool on `root` run now"
    out = subprocess.run(['ps', '-ww', '-eo', 'args='], capture_output=True, text=True).stdout.splitlines()
    return sum('_worker_main(' in l and str(root) in l for l in out)

def test_a_flood_of_runaway_calls_runs_at_most_workers_at_once_and_a_cheap_call_is_answered_in_time(tmp_path):
    "40 catastrophic regexes at once, then a cheap call: the pool runs at most `workers` of them (the rest wait), and every call, the cheap one too, is answered within its deadline (counted from when it came in) and the start-up of a worker started for it: run, or a tool error saying it found no free worker"
    import anyio
    # a deadline of 6 steps (at least 3 s), the cheap call 4 steps in; a call is answered within its deadline and the start-up
    # of a worker started for it (less than a step: a start-up and a cheap call); once the bombs' deadline is past, two bombs that took
    # a slot just before theirs may each start a worker (one at a time), and the cheap call its own, within its deadline
    s = max(0.5, _step(tmp_path))
    T,lead = round(6*s, 1),4*s
    res,peak = {},[]
    async def main(pool):
        async def bomb(i): res[i] = (await pool.acall('find_msgs', dict(pattern='(a+)+$', dlg='d.ipynb')), time.monotonic()-t0)
        async def watch():
            for _ in range(20): peak.append(_workers(tmp_path)); await anyio.sleep(0.2)
        t0 = time.monotonic()
        async with anyio.create_task_group() as tg:
            for i in range(40): tg.start_soon(bomb, i)
            tg.start_soon(watch)
            await anyio.sleep(lead)
            t = time.monotonic(); res['cheap'] = (await pool.acall('summary_dlg', dict(dlg='d.ipynb')), time.monotonic()-t)
    with sk.ToolPool(tmp_path, timeout=T, workers=2) as pool: anyio.run(main, pool)
    assert 1<=max(peak)<=2, peak
    (txt,err),took = res.pop('cheap')
    assert took<T+3*s, took  # (its deadline, a worker's start-up, and a margin for a loaded machine)
    assert not err or txt.startswith(f'TimeoutError: summary_dlg waited its whole {T:g} s deadline for a free worker (2 calls were running'), txt
    for (txt,err),took in res.values():
        assert err and took<T+3*s and (f'ran past the {T:g} s limit' in txt or f'waited its whole {T:g} s deadline' in txt), (txt, took)

def test_the_default_worker_cap_is_twice_the_cpus(tmp_path):
    with sk.ToolPool(tmp_path) as pool: assert pool.workers==max(2, 2*os.cpu_count())

def test_calls_from_threads_keep_the_cap_too(tmp_path):
    # a deadline of 6 steps (at least 3 s), the cheap call 4 steps in; a call is answered within its deadline and the start-up
    # of a worker started for it (less than a step: a start-up and a cheap call); once the bombs' deadline is past, two bombs that took
    # the slot just before theirs may each start a worker, and the cheap call its own, within its deadline
    s = max(0.5, _step(tmp_path))
    T,lead = round(6*s, 1),4*s
    with sk.ToolPool(tmp_path, timeout=T, workers=1) as pool:
        ths = [threading.Thread(target=pool.call, args=('find_msgs', dict(pattern='(a+)+$', dlg='d.ipynb'))) for _ in range(3)]
        for th in ths: th.start()
        seen,t0 = [],time.monotonic()
        while time.monotonic()-t0 < lead: seen.append(_workers(tmp_path)); time.sleep(0.1)
        t = time.monotonic(); txt,err = pool.call('summary_dlg', dict(dlg='d.ipynb'))
        assert time.monotonic()-t < T+3*s  # (its deadline, a worker's start-up, and a margin for a loaded machine)
        assert max(seen)==1, seen
        assert not err or f'waited its whole {T:g} s deadline for a free worker (1 call was running' in txt, txt
        for th in ths: th.join()

# --- the server, over its stdio

def _server(root, timeout=30):  # (a deadline far past a worker's start on a loaded machine; the tests of deadlines give theirs)
    return subprocess.Popen([sys.executable, '-c', f'from dialog.skill import serve_mcp; serve_mcp(".", timeout={timeout})'], cwd=root,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=os.environ|dict(PYTHONPATH=str(ROOT)))

def _send(p, msg): p.stdin.write((msg if isinstance(msg, str) else json.dumps(msg)).encode()+b'\n'); p.stdin.flush()

def _recv(p, secs):
    "The server's next answer, or None if none comes within `secs`"
    # read from the pipe here, the rest kept for the next call: `select` sees only bytes no read has taken, so after a
    # buffered `readline` took two answers at once (as a loaded machine makes it do) the second went unseen
    buf,end = getattr(p, 'rest', b''),time.monotonic()+secs
    while b'\n' not in buf:
        r,_,_ = select.select([p.stdout], [], [], max(0, end-time.monotonic()))
        if not r or not (got := os.read(p.stdout.fileno(), 1<<16)): p.rest = buf; return None
        buf += got
    line,_,p.rest = buf.partition(b'\n')
    return json.loads(line)

def _init(p):
    _send(p, dict(jsonrpc='2.0', id=0, method='initialize', params=dict(protocolVersion='2025-06-18', capabilities={}, clientInfo=dict(name='t', version='1'))))
    assert _recv(p, 30)['id']==0
    _send(p, dict(jsonrpc='2.0', method='notifications/initialized'))

def _call(rid, name, **args): return dict(jsonrpc='2.0', id=rid, method='tools/call', params=dict(name=name, arguments=args))

@pytest.mark.slow
def test_unreadable_requests_get_an_error_response(tmp_path):
    _mk(tmp_path)
    p = _server(tmp_path)
    try:
        _init(p)
        _send(p, '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"summary_dlg","arguments":{"dlg":"\\udcff"}}}')
        r = _recv(p, 10)
        assert r and r['id']==7 and 'lone surrogate' in r['error']['message'], r
        _send(p, '{"jsonrpc": "2.0", "id": 8, "method"')
        r = _recv(p, 10)
        assert r and r['id'] is None and r['error']['code']==-32700, r
        _send(p, _call(9, 'summary_dlg', dlg='d.ipynb'))
        assert _recv(p, 30)['result']['content'][0]['text'].startswith('m0:code:')  # and the server goes on
    finally: p.kill(); p.wait()

def _answers(tmp_path, lines):
    "The server's answers to `lines` (bytes), each sent after `_init`, then to a ping, which shows it still serves"
    _mk(tmp_path)
    p = _server(tmp_path)
    try:
        _init(p)
        for l in lines: p.stdin.write(l+b'\n')
        _send(p, dict(jsonrpc='2.0', id=99, method='ping')); p.stdin.flush()
        res = []
        while (r := _recv(p, 20)) is not None and r.get('id')!=99: res.append(r)
        assert r is not None, 'the server stopped answering'
        return res
    finally: p.kill(); p.wait()

@pytest.mark.slow
def test_a_request_nested_too_deep_to_parse_is_answered_and_the_server_goes_on(tmp_path):
    "Nested past Python's own limit (`json.loads` raises RecursionError): the id is read from the top level alone"
    deep = lambda n: b'['*n + b']'*n
    req = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"summary_dlg","arguments":{"dlg":%s}}}' % deep(5000)
    note = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":%s}}' % deep(5000)  # (no id: no answer)
    rs = _answers(tmp_path, [req, note, deep(5000)])
    assert [(r['id'], r['error']['code']) for r in rs]==[(5, -32600), (None, -32700)], rs
    assert all('nested too deep' in r['error']['message'] for r in rs), rs

@pytest.mark.slow
def test_a_request_holding_a_number_too_long_to_convert_is_answered_under_its_id(tmp_path):
    "r32b: a valid request whose argument is a 5,000-digit integer (JSON sets no bound on digits; Python's int converts at most 4,300) was answered 'it is not JSON' with id null, so its client waited forever: answered under its id, saying a number is too long"
    big = b'1' + b'0'*5000
    req = b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"summary_dlg","arguments":{"dlg":"a","offset":%s}}}' % big
    rs = _answers(tmp_path, [req, b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % big])
    assert [(r['id'], r['error']['code']) for r in rs]==[(6, -32600), (None, -32600)], rs
    assert all('5,001 digits' in r['error']['message'] and 'not JSON' not in r['error']['message'] for r in rs), rs

@pytest.mark.slow
def test_a_number_too_long_nested_hundreds_deep_is_answered_under_its_id(tmp_path):
    "r33a: a 5,001-digit integer nested 600 to 900 deep was answered with id null ('RecursionError'): the walk finding the longest number recursed where the parser had not; and an id itself too long (at any depth) is answered saying so, since no answer can name it"
    big = b'1' + b'0'*5000
    deep = [b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"summary_dlg","arguments":{"dlg":"a","x":%s%s%s}}}'
            % (k, b'['*k, big, b']'*k) for k in (600, 900)]
    ids = [b'{"jsonrpc":"2.0","id":%s,"method":"ping","params":{"x":%s1%s}}' % (big, b'['*k, b']'*k) for k in (5, 700, 3000)]
    rs = _answers(tmp_path, deep + ids)
    assert [r['id'] for r in rs]==[600, 900, None, None, None], rs
    assert all('5,001 digits' in r['error']['message'] for r in rs), rs
    assert all('its id is a whole number' in r['error']['message'] and 'send a shorter id' in r['error']['message'] for r in rs[2:]), rs

@pytest.mark.slow
def test_a_request_whose_id_is_null_or_a_fraction_gets_an_invalid_request_error(tmp_path):
    "MCP: an id is a string or an integer, never null; the SDK would read such a request as a notification and never answer"
    rs = _answers(tmp_path, [b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}'])
    assert [(r['id'], r['error']['code']) for r in rs]==[(None, -32600)]*2, rs
    assert 'not a number 1.5' in rs[0]['error']['message'] and 'not null' in rs[1]['error']['message'], rs

@pytest.mark.slow
def test_a_request_that_is_not_utf8_is_refused_and_writes_nothing(tmp_path):
    "Bytes that aren't UTF-8 (a cp1252 client's `é`) are never made U+FFFD and written: a parse error, the file untouched"
    req = json.dumps(_call(5, 'msg_str_replace', id='m0', old_str='x = 1', new_str='RENE', dlg='d.ipynb')).encode().replace(b'RENE', b'Ren\xe9')
    rs = _answers(tmp_path, [req])
    assert [(r['id'], r['error']['code']) for r in rs]==[(5, -32700)] and 'not UTF-8 (byte 0xe9' in rs[0]['error']['message'], rs
    assert read_ipynb(tmp_path/'d.ipynb')['m0'].content=='x = 1'

@pytest.mark.slow
def test_a_slow_call_blocks_neither_the_next_call_nor_a_cancellation(tmp_path):
    T = _deadline(tmp_path, 5)  # (the next call starts a second worker while the regex runs: within T, on a loaded machine too)
    p = _server(tmp_path, timeout=T)
    try:
        _init(p)
        _send(p, _call(1, 'summary_dlg', dlg='d.ipynb')); assert _recv(p, 30)['id']==1  # a worker started
        t = time.time()
        _send(p, _call(2, 'find_msgs', pattern='(a+)+$', dlg='d.ipynb'))
        _send(p, _call(3, 'view_msg', id='m0', dlg='d.ipynb'))
        r = _recv(p, T-0.5)
        assert r and r['id']==3 and time.time()-t < T-0.5, r  # answered while the regex runs
        _send(p, dict(jsonrpc='2.0', method='notifications/cancelled', params=dict(requestId=2, reason='enough')))
        _send(p, _call(4, 'summary_dlg', dlg='d.ipynb'))
        r = _recv(p, T-0.5)
        assert r and r['id']==4, r
        r = _recv(p, T+3)
        assert r is None or r['id']==2  # a cancelled request may get no answer; never one that blocked the others
    finally: p.kill(); p.wait()

@pytest.mark.slow
def test_a_result_holding_a_lone_surrogate_is_sent_escaped(tmp_path):
    d = Dialog('d'); d.mk_message('x = "\udcff"', id='m0'); d.save(tmp_path/'d.ipynb')
    p = _server(tmp_path)
    try:
        _init(p)
        _send(p, _call(1, 'view_msg', id='m0', dlg='d.ipynb'))
        r = _recv(p, 30)
        assert r and r['result']['content'][0]['text']=='     1 │ x = "⟨lone surrogate U+DCFF⟩"', r  # spelt out: unlike the escape `\\udcff`, which is text
    finally: p.kill(); p.wait()

def _gone(pid, secs):
    "Whether process `pid` is gone (or a zombie) within `secs`"
    end = time.time()+secs
    while time.time() < end:
        try:
            with open(f'/proc/{pid}/stat') as f:
                if f.read().split(')')[-1].split()[0] == 'Z': return True
        except FileNotFoundError: return True
        time.sleep(0.1)
    return False

@pytest.mark.skipif(not os.path.exists('/proc/self/stat'), reason='reads process states from /proc')
@pytest.mark.parametrize('how', ['regex', 'idle', 'regex, long deadline'])
def test_a_worker_does_not_outlive_its_server(tmp_path, how):
    "A server killed (SIGKILL: no clean-up) leaves no worker running: one stuck in a regex holding the interpreter ends at once (on Linux; elsewhere at its CPU cap), also with a deadline of 10 minutes; one waiting ends at once"
    T = 600 if 'long' in how else _deadline(tmp_path, 2)  # (its first call starts the worker: within T on a loaded machine too)
    code = ("import sys, threading, time, dialog.skill as sk\n"
            f"pool = sk.ToolPool({str(tmp_path)!r}, timeout={T})\n"
            "pool.call('view_msg', dict(id='m0', dlg='d.ipynb'))\n"
            "w = pool._idle[-1]; print(w.proc.pid, flush=True)\n"
            + ("threading.Thread(target=pool.call, args=('find_msgs', dict(pattern='(a+)+$', dlg='d.ipynb')), daemon=True).start()\n" if 'regex' in how else "")
            + "time.sleep(60)\n")
    p = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        wpid = int(p.stdout.readline())
        time.sleep(0.5)
        p.kill(); p.wait()
        assert _gone(wpid, 8 if how=='regex' else 3), f'worker {wpid} still running after its server was killed'
    finally:
        p.kill()

def test_close_lets_a_running_call_finish(tmp_path):
    "`close` stops idle workers only: a call running meanwhile (its worker's death signal tied to the spawner thread) finishes and saves, and its thread ends after it"
    sk.call_tool('create_dlg', dict(fname='t.ipynb', content='a'*25 + 'b'), tmp_path)
    pool = sk.ToolPool(tmp_path, timeout=60, workers=2)
    assert not pool.call('summary_dlg', dict(dlg='t.ipynb'))[1]
    res = {}
    def edit(): res['r'] = pool.call('msg_str_replace', dict(id='all', old_str='(a+)+!|b', new_str='done', use_regex=True, dlg='t.ipynb'))  # a second or so of backtracking
    w = pool._idle[-1]
    th = threading.Thread(target=edit); th.start()
    end = time.monotonic()+60
    while not w.busy and time.monotonic()<end: time.sleep(0.01)  # (the call holds the worker: not a time, which a loaded machine may not have reached)
    assert w.busy and pool._out  # (still running)
    sp = next(iter(pool._out))
    pool.close(); th.join(60)
    txt,err = res['r']
    assert not err and txt.endswith('+aaaaaaaaaaaaaaaaaaaaaaaaadone'), txt
    assert read_ipynb(tmp_path/'t.ipynb').messages[0].content=='a'*25 + 'done'
    assert pool._out=={} and pool._idle==[] and sp._shutdown  # the retired thread ended with its last call, the worker stopped
    assert pool.call('summary_dlg', dict(dlg='t.ipynb'))[1] is False; pool.close()  # a later call starts afresh

class _Broken:
    "A worker's answer pipe whose wait fails, as an error between sending a call and reading its answer does"
    def __init__(self, conn): self.conn = conn
    def poll(self, t): raise OverflowError('timeout is too large')

def test_a_worker_is_never_handed_back_busy_after_an_error(tmp_path):
    _mk(tmp_path)
    with sk.ToolPool(tmp_path, timeout=20, workers=1) as pool:
        pool.call('summary_dlg', dict(dlg='d.ipynb'))
        w = pool._idle[-1]; w.conn = _Broken(w.conn)
        with pytest.raises(OverflowError): pool.call('summary_dlg', dict(dlg='d.ipynb'))
        assert w not in pool._idle and not w.alive()  # stopped, not given to the next call with the answer still coming
        assert pool.call('view_msg', dict(id='m0', dlg='d.ipynb'))==('     1 │ x = 1', False)

@pytest.mark.parametrize('timeout,maxmem,msg', [(3_000_000, None, 'at most a week'), (float('inf'), None, 'at most a week'), (float('nan'), None, 'more than 0'),
                                                 (0, None, 'more than 0'), (30, 512, 'at least 128 MiB'), (30, 100<<20, 'a number without a unit is bytes')])
def test_limits_the_pool_cannot_keep_are_refused(tmp_path, timeout, maxmem, msg):
    with pytest.raises(ValueError, match=msg): sk.ToolPool(tmp_path, timeout=timeout, maxmem=maxmem)

def test_the_longest_deadline_and_the_smallest_cap_work(tmp_path):
    "A week's deadline is a wait `poll` can take; ast-grep (the most memory-hungry tool) runs under the smallest cap"
    _mk(tmp_path)
    with sk.ToolPool(tmp_path, timeout=sk.max_timeout, maxmem=sk.min_mem, workers=1) as pool:
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))[1] is False
        txt,err = pool.call('msg_ast_replace', dict(id='m0', repls=[['x = $A', 'y = $A']], dlg='d.ipynb'))
        assert not err and txt.endswith('+y = 1'), txt

def test_a_call_past_the_memory_cap_says_so_naming_the_cap(tmp_path, capfd):
    "A call too big for a worker's memory is a MemoryError naming maxmem, as is a worker that can't start under its cap; no traceback, and the next call is answered"
    _mk(tmp_path)
    with sk.ToolPool(tmp_path, timeout=60, maxmem=sk.min_mem, workers=1) as pool:
        txt,err = pool.call('add_msg', dict(content='y'*(100<<20), dlg='d.ipynb'))
        assert err and txt.startswith(f'MemoryError: add_msg needed more memory than a worker may take (maxmem={sk.min_mem:,} bytes'), txt[:300]
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))[1] is False
        pool.close(); pool.maxmem = 8<<20  # (under what `check_limits` allows: a worker can't even start)
        txt,err = pool.call('summary_dlg', dict(dlg='d.ipynb'))
        assert err and txt.startswith('MemoryError: summary_dlg needed more memory than a worker may take (maxmem=8,388,608 bytes'), txt
    assert 'Traceback' not in capfd.readouterr().err
    assert len(read_ipynb(tmp_path/'d.ipynb'))==2

@pytest.mark.slow
def test_a_line_that_is_json_but_no_object_is_answered_and_the_server_goes_on(tmp_path):
    "A batch (MCP takes none), a string, a number, true, []: JSON, but no JSON-RPC message: an Invalid Request with id null each, and the server goes on (it exited on the first)"
    rs = _answers(tmp_path, [b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', b'"hello"', b'42', b'true', b'[]'])
    assert [(r['id'], r['error']['code']) for r in rs]==[(None, -32600)]*5, rs
    assert all('a JSON-RPC message is an object' in r['error']['message'] for r in rs), rs

@pytest.mark.slow
def test_a_deep_request_full_of_escaped_quotes_is_answered_and_the_server_goes_on(tmp_path):
    "Nested too deep to parse, then 150,000 escaped quotes never closed: its id is read in one pass over the line (the search for its top level began a string at every quote and read to the end from each: minutes, with every other call waiting)"
    req = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":' + b'['*3000 + b'"' + b'\\"'*150000
    rs = _answers(tmp_path, [req])
    assert [(r['id'], r['error']['code']) for r in rs]==[(7, -32600)], rs

def test_a_call_whose_deadline_passed_waiting_starts_no_worker(tmp_path, monkeypatch):
    "r14: a call that gets a free slot only as its deadline passes gets the deadline's tool error at once: no worker is started for it (nor an idle one killed unanswered), in `call` and in `acall`"
    import anyio
    _mk(tmp_path)
    started = []
    class Counted(sk._Worker):
        def __init__(self, *a, **kw): started.append(1); super().__init__(*a, **kw)
    monkeypatch.setattr(sk, '_Worker', Counted)
    T = 0.2
    class Late: # the one slot, free just as the deadline passes
        def acquire(self, blocking=True, timeout=None): time.sleep(T); return True
        def release(self): pass
    with sk.ToolPool(tmp_path, timeout=T, workers=1) as pool:
        pool._slots = Late()
        for res in (pool.call('summary_dlg', dict(dlg='d.ipynb')), anyio.run(pool.acall, 'summary_dlg', dict(dlg='d.ipynb'))):
            txt,err = res
            assert err and txt.startswith(f'TimeoutError: summary_dlg waited its whole {T:g} s deadline for a free worker (1 call was running, '), txt
    assert started == []
    assert '(2 calls were running, ' in sk.ToolPool(tmp_path, timeout=T, workers=2)._busy('summary_dlg')[0]

def _slow_starts(monkeypatch, tmp_path, secs):
    "Workers that take more than `secs` to start (a shell that sleeps, then runs Python), and the list of those started"
    # a start-up longer than a deadline for sure, whatever the machine's load
    sh = tmp_path/'slow-python'
    sh.write_text(f'#!/bin/sh\nsleep {secs}\nexec "{sys.executable}" "$@"\n'); sh.chmod(0o755)
    monkeypatch.setattr(sys, 'executable', str(sh))
    started = []
    class Counted(sk._Worker):
        def __init__(self, *a, **kw): super().__init__(*a, **kw); started.append(self)
    monkeypatch.setattr(sk, '_Worker', Counted)
    return started

def test_a_deadline_shorter_than_a_worker_s_start_up_still_gets_calls_answered(tmp_path, monkeypatch):
    "r15b: a worker's start-up is not counted against the call waiting for it: under a 1 s deadline and a 2 s start, the call is answered (it was stopped, its worker killed unused, and so was every next call's), and the worker is kept for the next, in `call` and in `acall`"
    import anyio
    _mk(tmp_path)
    started = _slow_starts(monkeypatch, tmp_path, 2)
    want = sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=tmp_path)[0], False
    with sk.ToolPool(tmp_path, timeout=1, workers=1) as pool:
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))==want
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))==want
        assert len(started)==1  # (the one worker, kept)
        pool.close()
        assert anyio.run(pool.acall, 'summary_dlg', dict(dlg='d.ipynb'))==want
    assert len(started)==2

class _Clock:
    "`time` for the pool, whose `monotonic` is `skew` seconds ahead: a test moves the pool's time on without waiting it out"
    skew = 0
    def monotonic(self): return time.monotonic()+self.skew
    def __getattr__(self, k): return getattr(time, k)

def test_a_call_whose_turn_comes_just_before_its_deadline_is_not_stopped_by_a_worker_s_start_up(tmp_path, monkeypatch):
    "r15b: a call whose turn comes 2 s before its deadline, with no idle worker, starts one (3 s) and still gets its 2 s to run: answered, the worker kept (it was killed unanswered, the call blamed for running past its limit), in `call` and in `acall`"
    import anyio
    _mk(tmp_path)
    started = _slow_starts(monkeypatch, tmp_path, 3)
    clock = _Clock(); monkeypatch.setattr(sk, 'time', clock)
    class Late: # the one slot, free 2 s before the deadline
        def acquire(self, blocking=True, timeout=None): clock.skew = T-2; return True
        def release(self): pass
    T = 600
    want = sk.call_tool('summary_dlg', dict(dlg='d.ipynb'), root=tmp_path)[0], False
    with sk.ToolPool(tmp_path, timeout=T, workers=1) as pool:
        pool._slots = Late()
        assert pool.call('summary_dlg', dict(dlg='d.ipynb'))==want
        assert len(started)==1 and len(pool._idle)==1
        pool.close(); clock.skew = 0
        assert anyio.run(pool.acall, 'summary_dlg', dict(dlg='d.ipynb'))==want
        assert len(started)==2 and len(pool._idle)==1

def test_a_worker_that_cannot_start_in_start_limit_is_a_tool_error_naming_it(tmp_path, monkeypatch):
    "A worker still starting after `start_limit` is stopped, and the call answered with a tool error saying so, not run; the deadline's error is kept for a call that ran"
    _mk(tmp_path)
    started = _slow_starts(monkeypatch, tmp_path, 30)
    monkeypatch.setattr(sk, 'start_limit', 0.5)
    with sk.ToolPool(tmp_path, timeout=600, workers=1) as pool:
        txt,err = _in_time(lambda: pool.call('add_msg', dict(content='y', dlg='d.ipynb')))
    assert err and txt.startswith('TimeoutError: no worker process could start for add_msg within 0.5 s'), txt
    assert 'not run: nothing changed' in txt and len(started)==1 and not started[0].alive()
    assert len(read_ipynb(tmp_path/'d.ipynb'))==2

@pytest.mark.slow
def test_a_cut_cancelled_after_its_delete_was_saved_leaves_the_messages_in_the_buffer(tmp_path):
    "r32b: a cut cancelled once its delete was saved lost the messages (gone from the file, the buffer empty): the worker set the buffer after the save, and the server got it only with the answer; now the server holds it before the worker may save"
    import anyio
    from dialog.ipynb import read_ipynb
    d = Dialog('c'); big = d.mk_message('print(1)', id='big')
    big.output = [dict(output_type='stream', name='stdout', text='x'*60 + '\n')] * 300000  # (the copy and the answer take a while)
    d.mk_message('keep', id='keep'); p = tmp_path/'c.ipynb'; d.save(p)
    m0,state = p.stat().st_mtime_ns,{}
    async def main(pool):
        async def watch(scope):
            while p.stat().st_mtime_ns==m0: await anyio.sleep(0.002)
            state['saved'] = True; scope.cancel()  # the delete is on disk: cancel the call now
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(watch, scope)
                state['res'] = await pool.acall('cut_msgs', dict(dlg='c', ids='big'))
                tg.cancel_scope.cancel()
    with sk.ToolPool(tmp_path, timeout=60) as pool:
        anyio.run(main, pool)
        if 'res' in state or not state.get('saved'): pytest.skip('the cut answered before it could be cancelled after its save')
        in_file = 'big' in [m.id for m in read_ipynb(p).messages]
        assert in_file or (pool.buf and [m.id for m in pool.buf]==['big'] and len(pool.buf[0].output)==300000), (in_file, pool.buf)
        txt,err = pool.call('paste_msgs', dict(dlg='c'))
        assert not err and len(read_ipynb(p).messages)==2+in_file, txt

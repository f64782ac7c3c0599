"Running code messages in a real Jupyter kernel (dialog.run): outputs as Jupyter records them, timeouts, dead kernels, skipping, saving as it goes"
import threading, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.run import *

def test_timeout_values():
    assert [chk_timeout(o) for o in (None, 1, '2.5', 'inf', float('inf'), 1e300)]==[None, 1.0, 2.5, None, None, None]
    for bad in (0, -1, 'nan', float('nan'), 'soon', '', [1]):
        with pytest.raises(ValueError, match='timeout must be a number of seconds above 0, or inf'): chk_timeout(bad)

def test_a_flag_is_no_number_of_seconds():
    "`True` and `False` are refused as a timeout or `save_every`, before anything runs (`float(True)` is 1)"
    for v in (True, False):
        with pytest.raises(ValueError, match='timeout must be a number of seconds'): chk_timeout(v)
        with pytest.raises(ValueError, match='timeout must be a number of seconds'): Dialog('x').execute(timeout=v)
        with pytest.raises(ValueError, match='save_every must be a number of seconds'): Dialog('x').execute(save_every=v)

def test_skip_reasons():
    d = Dialog('s'); a = d.mk_message('1'); b = d.mk_message('#| eval: false\n2'); c = d.mk_message('#|eval:FALSE\n3')
    assert d.run_plan()==([a], [(b, '#| eval: false'), (c, '#| eval: false')])
    assert d.run_plan(force_eval=True)==([a, b, c], [])
    f = Dialog('f'); f.mk_message('---\ntitle: x\nskip_exec: true\n---', msg_type='raw'); x = f.mk_message('1')
    assert f.run_plan()==([], [(x, 'skip_exec: true')])
    g = Dialog('g'); g.mk_message('---\ntitle: x\n---\nskip_exec: true is what nbdev reads', msg_type='raw'); y = g.mk_message('1')
    assert g.run_plan()==([y], []) # only the front matter counts

@pytest.fixture(scope='module')
def kernel():
    with Kernel() as k: yield k

@pytest.mark.slow
def test_outputs_as_jupyter_records_them(kernel):
    m = Message("from IPython.display import display, clear_output\nprint('gone')\nclear_output()\nprint('kept')")
    kernel.run(m)
    assert m.output==[dict(output_type='stream', name='stdout', text='kept\n')]
    m = Message("import sys\nfor i in range(5):\n    clear_output(wait=True)\n    print(f'{i}/5', end='\\r', flush=True)\nprint('done')")
    kernel.run(m)
    assert m.output==[dict(output_type='stream', name='stdout', text='done\n')] and '\x1b' not in str(m.output)
    a = Message("h = display('v1', display_id=True)")
    b = Message("h.update('v2'); print('updated')")
    kernel.run(a)
    assert kernel.run(b)==(None, [a])
    assert [o['data']['text/plain'] for o in a.output]==["'v2'"] # one version: the last
    assert b.output==[dict(output_type='stream', name='stdout', text='updated\n')]

def test_a_display_update_reaches_only_outputs_its_cell_gave(kernel, tmp_path):
    "Run again, a message has its new run's outputs (an update of its display id reached the old cell, whose outputs came back); cleared, it stays cleared"
    code = "n = globals().get('n', 0) + 1\nprint('run', n)\nfrom IPython.display import display\ndisplay(f'status {n}', display_id='status')\nn"
    d = Dialog('rerun'); m = d.mk_message(code)
    d.save(tmp_path/'rerun.ipynb')
    d.execute(kernel=kernel, save=True); d.execute(kernel=kernel, save=True)
    for x in (m, read_ipynb(tmp_path/'rerun.ipynb')[m.id]):
        assert [o.get('text') for o in x.output if o['output_type']=='stream']==['run 2\n']
        assert [o['data']['text/plain'] for o in x.output if o['output_type']=='execute_result']==['2'] and x.execution_count==x.output[-1]['execution_count']
    m1 = Message("print('noisy log line')\nfrom IPython.display import display\nh = display('status: 0', display_id='s')")
    kernel.run(m1)
    m1.output = []
    assert kernel.run(Message("h.update('status: 1')"))==(None, []) and m1.output==[]
    job = "from IPython.display import display\nhandles = globals().setdefault('handles', [])\nhandles.append(display('waiting', display_id=True))"
    m2 = Message(job)
    kernel.run(m2); kernel.run(m2)  # run again with the same outputs: a second display
    assert kernel.run(Message("handles[0].update('first job: done')"))==(None, []) and [o['data']['text/plain'] for o in m2.output]==["'waiting'"]

@pytest.mark.slow
def test_timeout_interrupts_and_next_runs(kernel):
    d = Dialog('t'); a = d.mk_message('x = 41'); b = d.mk_message("import time\nprint('start', flush=True)\ntime.sleep(60)"); c = d.mk_message('x+1')
    t0 = time.time()
    rep = d.execute(timeout=1.5, continue_on_error=True, kernel=kernel)
    assert time.time()-t0 < 20
    assert rep.lines()==[f'{a.id}: ok', f'{b.id}: error TimeoutError: timed out after 1.5s', f'{c.id}: ok']
    assert b.output==[dict(output_type='stream', name='stdout', text='start\n'),
                      dict(output_type='error', ename='TimeoutError', evalue='timed out after 1.5s', traceback=['TimeoutError: timed out after 1.5s'])]
    assert c.output[0]['data']['text/plain']=='42' and not any(o.get('ename')=='TimeoutError' for o in c.output)

@pytest.mark.slow
@pytest.mark.parametrize('how', ['import os; os._exit(3)', 'import ctypes; ctypes.string_at(0)', 'import os, signal; os.kill(os.getpid(), signal.SIGKILL)'])
def test_dead_kernel_reported_on_its_message(tmp_path, how):
    d = Dialog('dead'); a = d.mk_message("print('first')"); b = d.mk_message(f"print('before', flush=True)\nimport time; time.sleep(0.5)\n{how}"); c = d.mk_message("print('never')")
    d.save(tmp_path/'dead.ipynb')
    rep = d.execute(save=True)
    assert rep.stopped=='dead' and list(rep)==[a, b] and rep.unrun==1 and not rep.ok
    assert rep.lines()[-1]=='the kernel died: 1 code message not run'
    err = b.output[-1]
    assert err['ename']=='DeadKernelError' and err['evalue'].startswith('the kernel died while this message ran')
    assert dict(output_type='stream', name='stdout', text='before\n') in b.output
    back = read_ipynb(tmp_path/'dead.ipynb')
    assert back[a.id].output==a.output and back[b.id].output==b.output and back[c.id].output==[]

@pytest.mark.slow
def test_a_dead_kept_kernel_is_refused_not_blamed_on_the_next_message(tmp_path):
    "A kept kernel that died runs nothing more: the next message isn't given its DeadKernelError, nor its file written"
    d = Dialog('kept'); good = d.mk_message('print(5)'); good.output = [dict(output_type='stream', name='stdout', text='5\n')]
    p = d.save(tmp_path/'kept.ipynb'); before = p.read_bytes()
    with Kernel(tmp_path) as k:
        assert 'DeadKernelError' in Message('import os; os._exit(3)').execute(k)
        d = read_ipynb(p)
        with pytest.raises(KernelError, match=r'has died \(exit code 3\); nothing was sent to it'): d.execute(kernel=k, save=True)
        assert p.read_bytes()==before and d[good.id].output[0]['text']=='5\n'
        m = Message('print(6)')
        with pytest.raises(KernelError, match='has died'): m.execute(k)
        with pytest.raises(KernelError, match='has died'): k.run(m)
        assert m.output in ('', [], None)
    with pytest.raises(KernelError, match='is not running'): k.run(m)

def _interrupt_when_sent(k, after=0):
    "A thread that calls `k.interrupt()` `after` seconds once a message is sent to `k`, as a person pressing stop does"
    def go():
        while k.cur is None: time.sleep(0.01)
        time.sleep(after); k.interrupt()
    t = threading.Thread(target=go, daemon=True); t.start()
    return t

@pytest.mark.slow
def test_an_interrupt_stops_what_runs_then_not_later_messages():
    "`Kernel.interrupt` stops the message running; the next ones, in the same kept kernel, run to their end"
    with Kernel() as k:
        m1 = Message('import time\ntime.sleep(30)')
        stop = _interrupt_when_sent(k)  # as the message is sent: in the code, or in the kernel's taking of the request
        m1.execute(k); stop.join()
        assert [o.get('ename') for o in m1.output]==['KeyboardInterrupt']
        m2 = Message('import time; time.sleep(1); print("done")')  # the interrupt may have landed before m1's import
        for _ in range(2): assert m2.execute(k)==f'{m2.id}: ok' and m2.output[0]['text']=='done\n'

def test_an_interrupt_while_no_message_runs_stops_nothing_later():
    "`Kernel.interrupt` on an idle kernel (stop pressed just after a message ended, or before any) stops no later message, as Jupyter's stop button"
    with Kernel() as k:
        k.interrupt()
        m1 = Message('import time\ntime.sleep(1); print("first")')
        assert m1.execute(k)==f'{m1.id}: ok' and m1.output[0]['text']=='first\n'
        k.interrupt(); time.sleep(0.3)
        m2 = Message('import time\ntime.sleep(1.5); print("ran")')  # past the half second after which a lost interrupt is sent again
        assert m2.execute(k)==f'{m2.id}: ok' and m2.output[0]['text']=='ran\n'

def _slow_start(tmp_path, monkeypatch):
    "Kernels that wait 0.6 s before taking each request: a timeout under that is due before the code begins, as on a loaded machine"
    st = tmp_path/'ipy'/'profile_default'/'startup'; st.mkdir(parents=True)
    (st/'00_slow.py').write_text(
        "import time\nk = get_ipython().kernel\n_orig = k.should_handle\n"
        "def _slow(stream, msg, idents):\n"
        "    if msg['header']['msg_type']=='execute_request': time.sleep(0.6)\n"
        "    return _orig(stream, msg, idents)\n"
        "k.should_handle = _slow\n")
    monkeypatch.setenv('IPYTHONDIR', str(tmp_path/'ipy'))

def test_an_interrupt_lost_while_the_kernel_takes_the_request_is_sent_again(tmp_path, monkeypatch):
    "`Kernel.interrupt` sent after the kernel said busy but before the code began (a loaded machine; here a kernel slow to take each request) is lost: sent again once the code began, as a person presses stop again"
    _slow_start(tmp_path, monkeypatch)
    with Kernel(tmp_path) as k:
        k.run(Message('x = 1'))
        m1 = Message('import time\ntime.sleep(30)')
        stop = _interrupt_when_sent(k, 0.2)  # while the kernel holds the request, 0.6 s, before the code's handler is set
        m1.execute(k); stop.join()
        assert [o.get('ename') for o in m1.output]==['KeyboardInterrupt']

def _lossy_start(tmp_path, monkeypatch, kinds=('execute_request',)):
    "Kernels that, in their handling of each request of `kinds`, touch `tmp_path/kind` and sleep a second: an interrupt then lands in ipykernel's own handling, which catches it and never sends the reply"
    st = tmp_path/'ipy'/'profile_default'/'startup'; st.mkdir(parents=True)
    (st/'00_lossy.py').write_text(
        "import time\nk = get_ipython().kernel\n"
        f"def _slow(kind, orig):\n"
        "    async def f(*args):\n"
        f"        open({str(tmp_path)!r}+'/'+kind, 'w').close(); time.sleep(1)\n"
        "        res = orig(*args)\n"
        "        return (await res) if hasattr(res, '__await__') else res\n"
        "    return f\n"
        f"for kind in {list(kinds)!r}: k.shell_handlers[kind] = _slow(kind, k.shell_handlers[kind])\n")
    monkeypatch.setenv('IPYTHONDIR', str(tmp_path/'ipy'))

def _interrupt_in(k, *marks):
    "A thread that calls `k.interrupt()` once each file of `marks` appears (the kernel is in its handling of that request), in turn"
    def go():
        for p in marks:
            while not p.exists(): time.sleep(0.01)
            time.sleep(0.1); k.interrupt()
    t = threading.Thread(target=go, daemon=True); t.start()
    return t

def _lossy_run(tmp_path, timeout=None, kinds=('execute_request',)):
    "In a kernel of `_lossy_start`: `print('ran')` interrupted in the handling of each request of `kinds` in turn, then `print(x+1)`; `(why, its outputs, its count, the next one's outputs, the next one's count)`"
    res = {}
    def go():
        with Kernel(tmp_path) as k:
            k.run(Message('x = 1'))
            for p in kinds: (tmp_path/p).unlink(missing_ok=True)
            m = Message('print("ran")')
            stop = _interrupt_in(k, *[tmp_path/p for p in kinds])
            res['why'] = k.run(m, timeout=timeout)[0]; stop.join()
            n = Message('print(x+1)'); k.run(n)
            res['got'] = res['why'],m.output,m.execution_count,n.output,n.execution_count
    t = threading.Thread(target=go, daemon=True); t.start(); t.join(120)
    assert not t.is_alive(), 'the run waited for a reply the kernel never sent'
    return res['got']

_lost_reply = [('KeyboardInterrupt', "interrupted in the kernel's own handling of this message, which then sent no reply: "
                'the code may not have run, or run in part or in full (its outputs are kept)')]

@pytest.mark.parametrize('timeout', [None, 60])
def test_an_interrupt_whose_reply_the_kernel_lost_ends_the_message(tmp_path, monkeypatch, timeout):
    "`Kernel.interrupt` landing in the kernel's own handling of the request: the kernel sends no reply, yet the message ends, interrupted, without a count (the kernel may not have counted it), and the kernel runs the next one (with no timeout the run waited for ever; with one, it was called a timeout)"
    _lossy_start(tmp_path, monkeypatch)
    why,outs,n,nxt,k = _lossy_run(tmp_path, timeout)
    assert why is None and [(o['ename'], o['evalue']) for o in outs]==_lost_reply and n is None
    assert nxt==[dict(output_type='stream', name='stdout', text='2\n')] and k==2  # (`x = 1` was 1: no count twice)

def test_a_second_interrupt_that_loses_the_kernels_answer_too_ends_the_message(tmp_path, monkeypatch):
    "A second interrupt landing in the kernel's handling of the request that asks whether it is done (stop pressed again): that answer is lost too, and the run asks again (it waited for ever)"
    _lossy_start(tmp_path, monkeypatch, ('execute_request', 'kernel_info_request'))
    why,outs,n,nxt,_ = _lossy_run(tmp_path, None, ('execute_request', 'kernel_info_request'))
    assert why is None and [(o['ename'], o['evalue']) for o in outs]==_lost_reply and n is None
    assert nxt==[dict(output_type='stream', name='stdout', text='2\n')]

def test_a_lost_timeout_interrupt_is_sent_again(tmp_path, monkeypatch):
    "A timeout whose interrupt is lost (it reached the kernel before it began the message, idle) is sent again: a timeout, not 'stuck'"
    _slow_start(tmp_path, monkeypatch)
    with Kernel(tmp_path) as k:
        k.run(Message('x = 1'))
        k.client.km.interrupt_kernel = lambda: None  # the timeout's own interrupt, lost
        m = Message('while True: pass')
        assert k.run(m, timeout=0.2)[0]=='timeout' and m.output[-1]['evalue']=='timed out after 0.2s'
        assert Message('print(1)').execute(k).endswith(': ok')

def test_a_given_kernel_honours_timing_and_refuses_another_folder_or_name(kernel, tmp_path):
    "`timing=False` records no timings in a kernel given too; a `cwd` or `kernel_name` that kernel doesn't have is refused"
    d = Dialog('t'); m = d.mk_message('1+1')
    d.execute(kernel=kernel, timing=False)
    assert m.output and 'execution' not in m.cell_meta()
    d.execute(kernel=kernel)
    assert set(m.cell_meta()['execution'])>={'shell.execute_reply'}
    m.output = ''
    with pytest.raises(ValueError, match='but the kernel given works in'): d.execute(kernel=kernel, cwd=tmp_path)
    with pytest.raises(ValueError, match="kernel_name is 'other', but the kernel given is 'python3'"): d.execute(kernel=kernel, kernel_name='other')
    assert m.output==''
    assert d.execute(kernel=kernel, cwd=kernel.cwd, kernel_name='python3').ok

def test_a_kept_kernel_holds_no_output_it_cant_update(kernel):
    "Run again and again, a message takes one cell of the kept kernel, and outputs no display id can update are not kept"
    c = kernel.client; n = len(c.nb.cells)
    m = Message("print('x'*100_000)")
    for _ in range(3): assert m.execute(kernel)==f'{m.id}: ok' and len(m.output[0]['text'])==100_001
    assert len(c.nb.cells)==n+1 and c.nb.cells[-1].outputs==[] and kernel.msgs[-1] is None and n not in kernel.shown
    a = Message("h = display('v1', display_id=True)")
    for _ in range(2): kernel.run(a)
    assert len(c.nb.cells)==n+2 and kernel.msgs[-1] is a  # kept while its display can be updated
    assert kernel.run(Message("h.update('v2')"))==(None, [a]) and a.output[0]['data']['text/plain']=="'v2'"

@pytest.mark.slow
def test_saves_as_it_goes_merging_other_edits(tmp_path):
    d = Dialog('m'); a = d.mk_message("print('a')"); b = d.mk_message("import time; time.sleep(3); print('b')"); n = d.mk_message('a note', msg_type='note')
    p = d.save(tmp_path/'m.ipynb')
    def other(): # another program edits a message that isn't running, while b runs
        while not read_ipynb(p)[a.id].output: time.sleep(0.05)
        o = read_ipynb(p); o[n.id].content = 'edited elsewhere'; o.mk_message('added elsewhere', msg_type='note'); o.save()
    t = threading.Thread(target=other); t.start()
    rep = d.execute(save=True)
    t.join()
    assert rep.ok and rep.stopped is None
    back = read_ipynb(p)
    assert [m.content for m in back.messages][2:]==['edited elsewhere', 'added elsewhere']
    assert back[b.id].output==[dict(output_type='stream', name='stdout', text='b\n')]

@pytest.mark.slow
def test_code_runs_in_the_dialogs_folder(tmp_path):
    f = tmp_path/"it's a \"folder\" $(x)"
    f.mkdir()
    (f/'helper.py').write_text('X = 5\n')
    d = Dialog('w'); m = d.mk_message('import helper, os\nprint(helper.X, os.path.basename(os.getcwd()))')
    d.save(f/'w.ipynb')
    d.execute()
    assert m.output==[dict(output_type='stream', name='stdout', text=f'5 {f.name}\n')]

def test_a_display_update_leaves_an_edited_output_and_reaches_a_dialog_read_again(tmp_path):
    "An output edited in place (a key redacted) is a change: a later update doesn't bring the original back. A kernel kept across two reads of the file updates the message of the read that ran (the file got it, and that dialog's save then wrote the old one back)"
    key = 'sk-live-0123456789abcdef'
    d = Dialog('x'); a = d.mk_message("from IPython.display import display\nprint('key', 'sk-live-' + '0123456789abcdef')\nh = display('status: 0', display_id=True)")
    p = d.save(tmp_path/'x.ipynb')
    with Kernel(p) as k:
        assert d.execute(kernel=k, save=True).ok and key in a.output[0]['text']
        a.output[0]['text'] = a.output[0]['text'].replace(key, '***'); d.save()
        d.mk_message("h.update('status: done')"); d.save()
        assert d.execute(ids=[d.messages[-1].id], kernel=k, save=True).ok
        assert key not in str(a.output) and key not in p.read_text()
    T = lambda outs: [o['data']['text/plain'] for o in outs or [] if 'data' in o]
    d1 = Dialog('y'); a1 = d1.mk_message("from IPython.display import display\nh = display('status: 0', display_id=True)")
    p = d1.save(tmp_path/'y.ipynb')
    with Kernel(p) as k:
        assert d1.execute(kernel=k, save=True).ok
        d2 = read_ipynb(p); b = d2.mk_message("h.update('status: done')"); d2.save()
        assert d2.execute(ids=[b.id], kernel=k, save=True).ok
    assert T(d2[a1.id].output)==T(read_ipynb(p)[a1.id].output)==["'status: done'"]
    d2.mk_message('a note', msg_type='note'); d2.save()
    assert T(read_ipynb(p)[a1.id].output)==["'status: done'"]

def test_a_timeout_interrupt_that_reached_the_code_is_not_sent_again(tmp_path):
    "After a timeout, an interrupt that reached the code (the kernel had begun the message) is not sent again while the kernel settles: it broke the code's own handling of it (a checkpoint saved in `except KeyboardInterrupt` was never written)"
    ck = tmp_path/'ckpt.txt'
    m = Message(f"import time\ntry: time.sleep(30)\nexcept KeyboardInterrupt:\n    time.sleep(6)\n    open({str(ck)!r}, 'w').write('saved')\n")
    with Kernel(tmp_path) as k: why,_ = k.run(m, timeout=1)
    assert why=='timeout' and ck.read_text()=='saved'

def test_an_interrupt_while_the_kernel_settles_is_spent_with_its_message(tmp_path):
    "An interrupt sent during the wait after a timeout (the person pressing stop again) is that message's: the next message runs to its end"
    import threading
    m1 = Message('import signal, time\nold = signal.signal(signal.SIGINT, signal.SIG_IGN)\ntry: time.sleep(7)\nfinally: signal.signal(signal.SIGINT, old)\n')
    m2 = Message("import time\ntime.sleep(1.5)\nprint('done')")
    with Kernel(tmp_path) as k:
        orig,pressed = k.settled,[]
        def settled(*a, **kw):
            t = threading.Timer(1, lambda: (pressed.append(1), k.interrupt())); t.daemon = True; t.start()
            return orig(*a, **kw)
        k.settled = settled
        why1,_ = k.run(m1, timeout=1)
        k.settled = orig
        why2,_ = k.run(m2)
    assert pressed and why1 in ('timeout', 'stuck') and why2 is None
    assert [o.get('text') for o in m2.output]==['done\n']

def test_a_forks_message_of_the_same_id_leaves_the_originals_displays(tmp_path):
    "Two dialogs' messages of one id (a fork) in one kept kernel each keep their own cell: the original's display is still updated after the fork's ran"
    import copy
    a = Dialog('a')
    x = a.mk_message("from IPython.display import display\nh = display('status: 0', display_id='s')")
    y = a.mk_message("h.update('status: 1')")
    fork = copy.deepcopy(a)
    fork[x.id].content = "print('fork')"
    with Kernel(tmp_path) as k:
        a.execute(ids=[x.id], kernel=k)
        fork.execute(ids=[x.id], kernel=k)
        a.execute(ids=[y.id], kernel=k)
    assert [o.get('data', {}).get('text/plain') for o in a[x.id].output]==["'status: 1'"]

def test_a_timeout_interrupt_lost_after_the_busy_status_is_sent_again(tmp_path, monkeypatch):
    "A kernel sends its busy status before it sets its SIGINT handler: an interrupt in between is lost, so whether it reached the code is told by when the code began (execute_input), and it is sent again; it was reported as a kernel that didn't stop"
    _slow_start(tmp_path, monkeypatch)  # widens the gap between the busy status and the handler, as a loaded machine does
    with Kernel(tmp_path) as k:
        k.run(Message('x = 1'))
        m = Message('import time\ntime.sleep(30)')
        why,_ = k.run(m, timeout=0.2)
    assert why=='timeout'

def test_a_kernel_is_used_from_the_thread_that_entered_it():
    "Messages sent to a kept kernel from another thread are refused, saying so: its client's loop is its own thread's; it and later kernels run on"
    err = []
    with Kernel() as k:
        k.run(Message('x = 1'))
        def other():
            try: Message('x = 2').execute(k)
            except KernelError as e: err.append(str(e))
        t = threading.Thread(target=other); t.start(); t.join(60)
        assert len(err)==1 and 'another thread' in err[0]
        assert Message('print(x)').execute(k).endswith(': ok')
    # a kernel started and used in one thread, after that one: it answers (a client used from two loops once hung the next)
    res = []
    def fresh():
        with Kernel() as k2: res.append(Message('print(3)').execute(k2))
    t = threading.Thread(target=fresh, daemon=True); t.start(); t.join(60)
    assert not t.is_alive() and res[0].endswith(': ok')
    with Kernel() as k3: assert Message('print(4)').execute(k3).endswith(': ok')

"A run's saving: throttled whatever the number of messages, always at the end, never cut short by a signal, safe against other programs writing the file (in place, mid-run, read-only), and --repair before running"
import json, os, pwd, signal, subprocess, sys, threading, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
import dialog.run as run
from cli_helpers import nbd, ok, fails, cmd, env, root

def mk(path, *srcs):
    d = Dialog(Path(path).stem)
    ms = [d.mk_message(s, msg_type='note') if s.startswith('# ') else d.mk_message(s) for s in srcs]
    d.save(path)
    return d,ms

def wait_for(f, what, limit=60):
    t = time.time()
    while not f():
        assert time.time()-t < limit, f'waited {limit}s for {what}'
        time.sleep(0.05)

@pytest.mark.slow
def test_saves_are_throttled_and_the_end_always_saves(tmp_path):
    "200 messages in well under the save interval: one write, at the end, with every output in it"
    d,ms = mk(tmp_path/'many.ipynb', *[f'print({i})' for i in range(200)])
    rep = d.execute(save=True, save_every=3600)
    assert rep.ok and rep.saves==1 and rep.save_time>0
    back = read_ipynb(tmp_path/'many.ipynb')
    assert [m.output[0]['text'] for m in back.messages]==[f'{i}\n' for i in range(200)]
    assert [m.execution_count for m in back.messages]==list(range(1, 201))

@pytest.mark.slow
def test_save_every_zero_saves_as_each_message_finishes(tmp_path):
    d,(a,b) = mk(tmp_path/'each.ipynb', "import time; time.sleep(0.3); print('a')", "import time; time.sleep(2); print('b')") # 0.3 s: more than 20 reads of the file
    seen = []
    t = threading.Thread(target=lambda: (wait_for(lambda: read_ipynb(tmp_path/'each.ipynb')[a.id].output, "a's output"), seen.append(read_ipynb(tmp_path/'each.ipynb')[b.id].output)))
    t.start()
    rep = d.execute(save=True, save_every=0)
    t.join()
    assert rep.ok and seen==[[]] and rep.saves==2 # a was in the file while b still ran

@pytest.mark.slow
def test_error_saves_at_once(tmp_path):
    d,(a,b,c) = mk(tmp_path/'err.ipynb', "print('a')", '1/0', "print('never')")
    rep = d.execute(save=True, save_every=3600)
    back = read_ipynb(tmp_path/'err.ipynb')
    assert rep.stopped=='error' and back[a.id].output and back[b.id].output[0]['ename']=='ZeroDivisionError' and back[c.id].output==[]

@pytest.mark.slow
def test_a_second_ctrl_c_waits_for_the_save(tmp_path, monkeypatch):
    "Two Ctrl-Cs aimed at the save: it completes with every finished output, then the run raises KeyboardInterrupt"
    d,(a,b,c) = mk(tmp_path/'cc.ipynb', "print('a')", "print('b')", "print('c')")
    real = run._Disk.save
    def save(self):
        if self.todo: # the first Ctrl-C stops the run after b; the second comes while its outputs are being saved
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
        return real(self)
    monkeypatch.setattr(run._Disk, 'save', save)
    hits = []
    def b_done(i, n, m):
        if i==1: os.kill(os.getpid(), signal.SIGINT); hits.append(m) # while b is about to run
    with pytest.raises(KeyboardInterrupt): d.execute(save=True, save_every=3600, progress=b_done)
    back = read_ipynb(tmp_path/'cc.ipynb')
    assert back[a.id].output==[dict(output_type='stream', name='stdout', text='a\n')] and back[b.id].output, back[b.id].output
    assert back[c.id].output==[] and hits==[b]

def test_signals_during_a_save_wait_for_it():
    "The mechanism: inside `saving`, a second Ctrl-C or a SIGTERM is held, and raised when the block ends"
    class K:
        n = 0
        def interrupt(self): self.n += 1
    k = K(); h = run._Signals(k)
    h(signal.SIGINT, None)
    assert h.hit and k.n==1
    with pytest.raises(KeyboardInterrupt): h(signal.SIGINT, None)
    done = []
    with pytest.raises(SystemExit) as e:
        with h.saving():
            h(signal.SIGTERM, None); h(signal.SIGINT, None)
            done.append(1)
    assert done==[1] and e.value.code==128+signal.SIGTERM

@pytest.mark.slow
def test_a_file_caught_mid_write_is_read_again(tmp_path):
    "Another program rewrites the file in place (as Jupyter does) while a message finishes: the run waits and reads it again, never aborts"
    p = tmp_path/'mid.ipynb'
    d,(a,b) = mk(p, "open('started', 'w').close(); import time; time.sleep(1); print('a')", "print('b')")
    def jupyter():
        wait_for(lambda: (tmp_path/'started').exists(), 'a to start')
        o = read_ipynb(p); o.mk_message('written by Jupyter', msg_type='note')
        full = write_ipynb(o).encode()
        with open(p, 'wb') as f: f.write(full[:len(full)//2]) # truncated and half written...
        time.sleep(2.5)
        with open(p, 'wb') as f: f.write(full) # ...then finished
    t = threading.Thread(target=jupyter); t.start()
    rep = d.execute(save=True, save_every=0, cwd=tmp_path)
    t.join()
    assert rep.ok and rep.stopped is None, rep.lines()
    back = read_ipynb(p)
    assert back[a.id].output[0]['text']=='a\n' and back[b.id].output[0]['text']=='b\n' and back.messages[-1].content=='written by Jupyter'

@pytest.mark.slow
def test_messages_changed_or_deleted_mid_run_are_skipped(tmp_path):
    p = tmp_path/'mid.ipynb'
    d,(a,b,c,e) = mk(p, "open('started', 'w').close(); import time; time.sleep(1.5)", "print('old b')", "print('c')", "print('e')")
    def other():
        wait_for(lambda: (tmp_path/'started').exists(), 'a to start')
        o = read_ipynb(p); o[b.id].content = "print('new b')"; o.remove_msgs([o[c.id]]); o.save()
    t = threading.Thread(target=other); t.start()
    rep = d.execute(save=True, cwd=tmp_path)
    t.join()
    assert list(rep)==[a, e] and rep.skipped==[(b, 'changed on disk'), (c, 'deleted on disk')] and not rep.ok # not all ran: exit 1
    assert rep.lines()[2:]==[f'{b.id}: skipped (changed on disk)', f'{c.id}: skipped (deleted on disk)']
    back = read_ipynb(p)
    assert back[b.id].content=="print('new b')" and back[b.id].output==[] and c.id not in [m.id for m in back.messages]
    assert back[e.id].output[0]['text']=='e\n'

@pytest.mark.slow
def test_changed_while_running_gets_no_outputs_and_the_run_goes_on(tmp_path):
    p = tmp_path/'c.ipynb'
    d,(a,b) = mk(p, "open('started', 'w').close(); import time; time.sleep(1.5); print('a')", "print('b')")
    def other():
        wait_for(lambda: (tmp_path/'started').exists(), 'a to start')
        o = read_ipynb(p); o[a.id].content = 'print("changed while running")'; o.save()
    t = threading.Thread(target=other); t.start()
    rep = d.execute(save=True, cwd=tmp_path)
    t.join()
    assert rep.stopped is None and rep.unsaved==[a] and f'{a.id}: outputs not saved (changed on disk while it ran)' in rep.lines() and not rep.ok
    back = read_ipynb(p)
    assert back[a.id].content=='print("changed while running")' and back[a.id].output==[] and back[b.id].output[0]['text']=='b\n'

def test_unsaved_messages_are_refused_before_running(tmp_path):
    d,(a,) = mk(tmp_path/'u.ipynb', "print('a')")
    a.content = "print('edited here, not saved')"
    with pytest.raises(ValueError, match=f"'{a.id}' not in the file as in this dialog: save it before running"): d.execute(save=True)

@pytest.mark.slow
def test_repair_runs_on_the_healed_file(tmp_path):
    p = tmp_path/'damaged.ipynb'
    cells = [dict(cell_type='code', id='c1', metadata={}, source='x = 1', outputs=[], execution_count=None),
             dict(cell_type='code', id='c1', metadata={}, source='print(x+1)', outputs=[], execution_count=None)]
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells)))
    r = nbd('run', p, '--repair')
    assert r.returncode==0 and len(r.stdout.splitlines())==2, (r.stdout, r.stderr)
    back = read_ipynb(p)
    assert [m.content for m in back.messages]==['x = 1', 'print(x+1)'] and back.messages[1].output[0]['text']=='2\n'

nobody = next((p for p in pwd.getpwall() if p.pw_name=='nobody'), None)

@pytest.mark.skipif(os.geteuid()==0 and nobody is None, reason='running as root, whom file modes do not stop, and there is no nobody user to drop to')
def test_a_read_only_dialog_is_refused_before_anything_runs(tmp_path):
    import tempfile, shutil
    folder = Path(tempfile.mkdtemp()) # not under pytest's tmp_path, which only its owner may enter
    try:
        folder.chmod(0o777)
        p = folder/'ro.ipynb'
        mk(p, f"open({str(folder/'ran')!r}, 'w').close()")
        p.chmod(0o444)
        before = p.read_bytes()
        drop = f'os.setgid({nobody.pw_gid}); os.setuid({nobody.pw_uid}); ' if os.geteuid()==0 else ''
        code = f"import os, sys; from dialog.cli import main; {drop}sys.exit(main(['run', sys.argv[1]]))" # imported first: nobody may not read the interpreter's folders
        r = subprocess.run([sys.executable, '-c', code, str(p)], capture_output=True, text=True, env=env, timeout=120)
        assert r.returncode==2 and 'read-only' in r.stderr and 'Traceback' not in r.stderr, (r.stdout, r.stderr)
        assert not (folder/'ran').exists() and p.read_bytes()==before
    finally: shutil.rmtree(folder)

@pytest.mark.slow
def test_kill_9_loses_at_most_the_save_window(tmp_path):
    "Killed outright mid-run: the outputs saved before the kill are in the file, intact"
    p = tmp_path/'k.ipynb'
    d,(a,b) = mk(p, "print('a')", "import time; time.sleep(60)")
    proc = subprocess.Popen(cmd + ['run', str(p), '--save-every', '0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wait_for(lambda: read_ipynb(p)[a.id].output, "a's output")
    proc.kill(); proc.wait()
    assert read_ipynb(p)[a.id].output[0]['text']=='a\n'

@pytest.mark.slow
def test_a_finished_message_is_saved_while_a_long_one_runs(tmp_path):
    "A kill -9 loses only the last few seconds: a message that finished is in the file within `save_every` even while the next one runs for long"
    p = tmp_path/'long.ipynb'
    d,(a,b) = mk(p, "print('a')", "import time; time.sleep(60)")
    proc = subprocess.Popen(cmd + ['run', str(p), '--save-every', '1'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try: wait_for(lambda: read_ipynb(p)[a.id].output, "a's output, saved while b runs", limit=30)
    finally: proc.kill(); proc.wait()
    assert read_ipynb(p)[a.id].output[0]['text']=='a\n' and proc.returncode==-signal.SIGKILL

@pytest.mark.slow
def test_a_refused_save_stops_the_run_with_a_report(tmp_path, monkeypatch):
    "The system refusing a save mid-run (a file made read-only, a full disk): the run stops there with a report, the earlier saves kept"
    import dialog.ipynb as ipy
    p = tmp_path/'ro.ipynb'
    d,(a,b,c) = mk(p, "import time; time.sleep(0.3); print('a')", "import time; time.sleep(0.5); print('b')", "print('c')")
    real,calls = ipy.atomic_write,[]
    def write(*args, **kw):
        calls.append(1)
        if len(calls)>1: raise PermissionError(13, 'the file is read-only; nothing was written', str(p))
        return real(*args, **kw)
    monkeypatch.setattr(ipy, 'atomic_write', write)
    rep = d.execute(save=True, save_every=0)
    assert rep.stopped=='unsaved' and not rep.ok and rep.lines()[-1].startswith('stopped, as the file could not be saved: [Errno 13] the file is read-only')
    assert read_ipynb(p)[a.id].output[0]['text']=='a\n' # the first save stands

@pytest.mark.slow
def test_the_dialog_saves_again_after_its_run(tmp_path):
    "The run's own saves don't make the dialog that ran stale: it saves again; a change another program made meanwhile still refuses a blind save"
    p = tmp_path/'again.ipynb'
    d,(a,) = mk(p, "print('a')")
    d.execute(save=True)
    d.mk_message('added after the run', msg_type='note'); d.save()
    assert [m.content for m in read_ipynb(p).messages]==["print('a')", 'added after the run'] and read_ipynb(p)[a.id].output
    e,(b,) = mk(tmp_path/'other.ipynb', "open('started', 'w').close(); import time; time.sleep(1)")
    def other():
        wait_for(lambda: (tmp_path/'started').exists(), 'b to start')
        o = read_ipynb(tmp_path/'other.ipynb'); o.mk_message('from elsewhere', msg_type='note'); o.save()
    t = threading.Thread(target=other); t.start()
    e.execute(save=True, cwd=tmp_path); t.join()
    e.mk_message('mine', msg_type='note')
    with pytest.raises(DialogConflictError): e.save()
    assert read_ipynb(tmp_path/'other.ipynb').messages[-1].content=='from elsewhere'

def test_arguments_are_checked_before_anything_runs(tmp_path):
    d,(a,) = mk(tmp_path/'args.ipynb', "open('ran', 'w').close()")
    for bad in (None, '5', -1, float('nan')):
        with pytest.raises(ValueError, match='save_every must be a number of seconds, 0 or more'): d.execute(save=True, save_every=bad)
    assert not (tmp_path/'ran').exists()

@pytest.mark.slow
def test_a_kernelspec_that_is_no_object_means_python3(tmp_path):
    for ks in ('python3', ['python3'], 3):
        d = Dialog('k'); d.meta['kernelspec'] = ks; m = d.mk_message('1+1')
        assert d.execute().ok and m.output[0]['data']['text/plain']=='2'

def test_a_fifo_is_refused_without_blocking(tmp_path):
    "A FIFO named .ipynb (or swapped in for the dialog mid-run) is not a dialog: refused at once, never read"
    f = tmp_path/'pipe.ipynb'
    os.mkfifo(f)
    r = nbd('run', f)
    assert r.returncode==2 and 'not a regular file' in r.stderr, r.stderr
    with pytest.raises(ValueError, match='not a regular file'): read_ipynb(f)

@pytest.mark.slow
def test_a_fifo_swapped_in_mid_run_stops_it(tmp_path):
    p = tmp_path/'swap.ipynb'
    mk(p, "print('a')\nopen('go', 'w').close()", *["import time; time.sleep(0.3)"]*10)
    proc = subprocess.Popen(cmd + ['run', str(p), '--save-every', '0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    wait_for(lambda: (tmp_path/'go').exists(), 'the first message')
    os.unlink(p); os.mkfifo(p)
    out,err = proc.communicate(timeout=60)
    assert proc.returncode==1 and 'not a regular file' in out.splitlines()[-1] and 'Traceback' not in err, (out, err)

def test_save_outputs_of_a_dialog_without_a_file_says_so():
    "As `execute(save=True)` says it (it was a TypeError from `os.stat(None)`)"
    from dialog.run import save_outputs
    d = Dialog('nofile'); m = d.mk_message('1')
    with pytest.raises(ValueError, match="has no file to save outputs into: save it first"): save_outputs(d, [m])

shows_a_secret = "print('secret token: abc123')\nfrom IPython.display import display\nh = display('status: 0', display_id='s')" # prints a secret, then shows a display a later message updates

def clear_outputs_as_jupyter(p):
    "A person's Clear Outputs of All Cells, then Save: Jupyter writes the file in place"
    nb = json.loads(p.read_text())
    for c in nb['cells']:
        if c['cell_type']=='code': c['outputs'],c['execution_count'] = [],None
    p.write_text(json.dumps(nb, indent=1))

def test_a_display_update_keeps_what_a_person_cleared_on_disk(tmp_path):
    "A display shown by A is updated while B runs, after a person cleared the outputs in Jupyter (which saved): the clear is kept (the run wrote A's old outputs, a print included, back); with no one touching the file, the update is saved"
    d = Dialog('clear')
    a = d.mk_message(shows_a_secret)
    b = d.mk_message("import time; time.sleep(3)\nh.update('status: done')")
    p = d.save(tmp_path/'c.ipynb')
    seen = {}
    def person():
        for _ in range(100):  # A's outputs saved (save_every=0), B asleep
            if read_ipynb(p)[a.id].output: break
            time.sleep(0.05)
        clear_outputs_as_jupyter(p)
        seen['cleared'] = read_ipynb(p)[a.id].output==[]
    t = threading.Thread(target=person); t.start()
    d.execute(save=True, save_every=0); t.join()
    assert seen['cleared'] and read_ipynb(p)[a.id].output==[]
    d2 = Dialog('kept'); a2 = d2.mk_message(a.content); d2.mk_message("h.update('status: done')")
    p2 = d2.save(tmp_path/'k.ipynb')
    d2.execute(save=True, save_every=0)
    assert [o['data']['text/plain'] for o in read_ipynb(p2)[a2.id].output if 'data' in o]==["'status: done'"]

def test_a_display_update_keeps_a_clear_made_between_runs(tmp_path):
    "A runs and is saved; a person clears the outputs; a later run on the same kernel updates A's display: the clear is kept (the update goes only over the outputs it replaced, which the file no longer holds)"
    d = Dialog('x')
    a = d.mk_message(shows_a_secret)
    b = d.mk_message("h.update('status: done')")
    p = d.save(tmp_path/'c.ipynb')
    with run.Kernel(p) as k:
        d.execute(ids=[a.id], kernel=k, save=True)
        assert read_ipynb(p)[a.id].output
        clear_outputs_as_jupyter(p)
        d.execute(ids=[b.id], kernel=k, save=True)
    assert read_ipynb(p)[a.id].output==[]

def test_a_display_update_survives_a_save_tried_again(tmp_path):
    "Another program writes the file between the run's read and its write: the save reads it again, and the update still goes in (it was taken for another program's change)"
    armed = []
    class D(Dialog):
        def save(self, *a, **k):
            if armed:  # a person's save in Jupyter, once, between our read and our write
                armed.clear()
                nb = json.loads(Path(self.path).read_text())
                for c in nb['cells']:
                    if c['cell_type']=='markdown': c['source'] = 'edited by a person'
                Path(self.path).write_text(json.dumps(nb, indent=1))
            return super().save(*a, **k)
    d = D('x')
    a = d.mk_message("from IPython.display import display\nh = display('status: 0', display_id=True)")
    n = d.mk_message('a note', msg_type='note')
    with run.Kernel(tmp_path) as k:
        p = d.save(tmp_path/'c.ipynb')
        d.execute(kernel=k, save=True)
        d.mk_message("h.update('status: done')"); d.save()
        armed.append(1)  # the run's save of the update meets another program's write, once
        d.execute(ids=[d.messages[-1].id], kernel=k, save=True)
    back = read_ipynb(p)
    assert not armed and back[n.id].content=='edited by a person'
    assert [o['data']['text/plain'] for o in back[a.id].output]==["'status: done'"]

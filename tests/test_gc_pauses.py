"The collector's pauses (`dialog.nbjson.gc_paused`) in a process forked while pauses are under way"
import gc, os, threading, time, pytest
from dialog.nbjson import gc_paused

pytestmark = pytest.mark.skipif(not hasattr(os, 'fork'), reason='no fork here')

def _in_child(f):
    "Run `f` in a forked child; its exit code (a hang past 10 s is a failure)"
    pid = os.fork()
    if pid==0:
        try: os._exit(f())
        except BaseException: os._exit(3)
    for _ in range(200):
        done,st = os.waitpid(pid, os.WNOHANG)
        if done: return os.waitstatus_to_exitcode(st)
        time.sleep(0.05)
    os.kill(pid, 9); os.waitpid(pid, 0)
    raise AssertionError('the child hung')

def test_a_child_forked_during_another_threads_pause_collects_again():
    "The pause of a thread a forked child doesn't have never ends there: the child's collector is as before once its own pauses end"
    assert gc.isenabled()
    inside,go = threading.Event(),threading.Event()
    def other():
        with gc_paused(): inside.set(); go.wait(10)
    t = threading.Thread(target=other); t.start(); inside.wait(10)
    def child():
        with gc_paused(): off = not gc.isenabled()
        return 0 if off and gc.isenabled() else 1
    try: assert _in_child(child)==0
    finally: go.set(); t.join()
    assert gc.isenabled()

def test_a_child_forked_inside_its_own_pause_ends_it_at_the_block():
    "A pause the forking thread holds goes on in the child until its block ends there, then the collector is back"
    with gc_paused():
        pid = os.fork()
        paused = not gc.isenabled()
    if pid==0: os._exit(0 if paused and gc.isenabled() else 1)
    for _ in range(200):
        done,st = os.waitpid(pid, os.WNOHANG)
        if done: break
        time.sleep(0.05)
    else:
        os.kill(pid, 9); os.waitpid(pid, 0); raise AssertionError('the child hung')
    assert os.waitstatus_to_exitcode(st)==0 and gc.isenabled()

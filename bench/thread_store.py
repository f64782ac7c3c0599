"""narrator's `ThreadStore` calls on a folder of dialog files (`dialog.threadstore.DialogThreadStore`) against narrator's SQLite store, at 1,000 and 10,000 threads.

    python bench/thread_store.py [--sizes 1000 10000] [--reps 20] [--gets 500]

For each size N, both stores start empty (in a temporary folder) and get the same N threads of 4 messages each (a user question, an answer
with metrics, a thanks and a reply), with attributes (`user`: one of 50) and a Slack reference (`channel`: one of 20). Timed, in wall-clock
seconds (both stores wait on the disk: each save is fsynced, by SQLite and by our atomic write):
- `save`: saving the N threads, one call each (ms per call);
- `get`: `get` of `--gets` ids drawn at random (ms per call);
- `list_recent`: `list_recent(limit=20)`, `--reps` times (ms per call);
- `find_by_platform`: `find_by_platform('slack', {'channel': ...})`, each of the 20 channels (N/20 threads each; ms per call);
- `find_by_attributes` (not a goal): `find_by_attributes({'user': ...})`, 20 users (N/50 threads each);
- `list_recent at once` (not a goal): the first `list_recent(limit=20)` right after the saves, while every file saved in the last 2 seconds
  is checked by its bytes (a change in the same tick of the file system's clock, of the same size, leaves a file's signature as it was:
  `dialog.ipynb.sig_settled`, git's racy rule); the figures after it are taken once that is past, as it is for every file but the few a
  program is saving;
- `cold list_recent` (not a goal): the first `list_recent(limit=20)` of a new store object on the folder (a new process: the index file is read, every file's signature checked).
Prints each figure, ours/SQLite at each size (goal <= 2), and ours and SQLite's 10k/1k (goal for ours <= 11: linear; per-call figures that
don't grow with N come out near 1). Threads are built outside the clock; the answers are checked to be the same threads.
"""
import argparse, asyncio, os, random, shutil, sys, tempfile, time, warnings
warnings.filterwarnings('ignore')
import logging; logging.disable(logging.WARNING)
from narrator import Thread as NThread, Message as NMessage, ThreadStore
from dialog.thread import Thread, Message
from dialog.threadstore import DialogThreadStore

def mk(T, M, i):
    t = T(id=f'th{i:06d}', title=f'thread {i}', attributes={'user': f'u{i%50}'}, platforms={'slack': {'channel': f'C{i%20}', 'ts': f'{i}.0'}})
    t.add_message(M(role='user', content=f'question {i} '*5))
    t.add_message(M(role='assistant', content=f'answer {i} '*20, metrics={'model': 'gpt-4.1'}))
    t.add_message(M(role='user', content='thanks'))
    t.add_message(M(role='assistant', content='welcome'))
    return t

async def timed(f, calls):
    "Seconds per call of `f(arg)` over `calls`, and the last answer"
    t0 = time.perf_counter()
    for a in calls: r = await f(a)
    return (time.perf_counter()-t0)/max(len(calls), 1),r

async def measure(store, threads, reps, gets, rnd):
    res = {}
    res['save'],_ = await timed(store.save, threads)
    ids = [t.id for t in threads]
    res['list_recent at once'],_ = await timed(lambda _: store.list_recent(limit=20), range(1))
    time.sleep(2.1) # files changed in the last 2 s are checked by their bytes (`sig_settled`): measured above, then waited out
    res['get'],_ = await timed(store.get, rnd.sample(ids, min(gets, len(ids))))
    res['list_recent'],r = await timed(lambda _: store.list_recent(limit=20), range(reps))
    assert [t.id for t in r]==ids[::-1][:20], 'list_recent gave other threads'
    res['find_by_platform'],r = await timed(lambda k: store.find_by_platform('slack', {'channel': f'C{k}'}), range(20))
    assert sorted(t.id for t in r)==ids[19::20], 'find_by_platform gave other threads'
    res['find_by_attributes'],r = await timed(lambda k: store.find_by_attributes({'user': f'u{k}'}), range(20))
    assert sorted(t.id for t in r)==ids[19::50], 'find_by_attributes gave other threads'
    return res

async def cold(mk_store):
    s = mk_store()
    t0 = time.perf_counter()
    await s.list_recent(limit=20)
    return time.perf_counter()-t0

async def main(a):
    rnd = random.Random(0)
    out = {}
    for n in a.sizes:
        d = tempfile.mkdtemp(prefix='bench-thread-store-', dir=a.tmp)
        try:
            ours_ts = [mk(Thread, Message, i) for i in range(n)]
            nar_ts = [mk(NThread, NMessage, i) for i in range(n)]
            for t,u in zip(ours_ts, nar_ts): # the same times, so that both stores order the threads alike
                u.created_at,u.updated_at = t.created_at,t.updated_at
            url = f'sqlite+aiosqlite:///{d}/threads.db'
            sq = ThreadStore(url); await sq.initialize()
            r_sq = await measure(sq, nar_ts, a.reps, a.gets, random.Random(n))
            r_sq['cold list_recent'] = await cold(lambda: ThreadStore(url))
            ds = DialogThreadStore(f'{d}/threads')
            r_ds = await measure(ds, ours_ts, a.reps, a.gets, random.Random(n))
            r_ds['cold list_recent'] = await cold(lambda: DialogThreadStore(f'{d}/threads'))
            out[n] = (r_ds, r_sq)
        finally: shutil.rmtree(d, ignore_errors=True)
        print(f'\n{n:,} threads            ours ms   SQLite ms   ours/SQLite')
        for k in r_ds: print(f'  {k:<20} {r_ds[k]*1e3:9.2f}  {r_sq[k]*1e3:9.2f}   {r_ds[k]/r_sq[k]:6.2f}' + ('' if k in goals else '   (not a goal)'))
    if len(a.sizes)>1:
        lo,hi = a.sizes[0],a.sizes[-1]
        print(f'\n{hi:,}/{lo:,}               ours      SQLite')
        for k in out[lo][0]: print(f'  {k:<20} {out[hi][0][k]/out[lo][0][k]:6.2f}   {out[hi][1][k]/out[lo][1][k]:6.2f}')
    bad = [f'{k} at {n:,}: ours/SQLite {out[n][0][k]/out[n][1][k]:.2f} > 2' for n in out for k in goals if out[n][0][k]/out[n][1][k]>2]
    if len(a.sizes)>1: bad += [f'{k}: ours {hi:,}/{lo:,} = {out[hi][0][k]/out[lo][0][k]:.2f} > 11' for k in goals if out[hi][0][k]/out[lo][0][k]>11*hi/lo/10]
    print('\n'+('goals met' if not bad else 'goals missed: '+'; '.join(bad)))

goals = ('save', 'get', 'list_recent', 'find_by_platform')

if __name__=='__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sizes', type=int, nargs='+', default=[1000, 10000])
    p.add_argument('--reps', type=int, default=20)
    p.add_argument('--gets', type=int, default=500)
    p.add_argument('--tmp', default=None, help='the folder for the stores (default: the system temp folder)')
    asyncio.run(main(p.parse_args()))

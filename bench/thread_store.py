"""narrator's `ThreadStore` calls on a folder of dialog files (`dialog.threadstore.DialogThreadStore`) against narrator's SQLite store, at 1,000 and 10,000 threads.

    python bench/thread_store.py [--sizes 1000 10000] [--reps 20] [--gets 500] [--rounds 3]

For each size N, both stores start empty (in a temporary folder) and get the same N threads of 4 messages each (a user question, an answer
with metrics, a thanks and a reply), with attributes (`user`: one of 50) and a Slack reference (`channel`: one of 20). Timed, in wall-clock
seconds (both stores wait on the disk: each save is fsynced, by SQLite and by our atomic write), and beside it in the process's CPU time
(`time.process_time`, every thread's: SQLite's worker thread too), which the other processes on a shared machine barely move: the goals
are judged on the wall clock; the CPU columns tell a busy machine's share of a figure from the store's own:
- `save`: saving the N threads, one call each (ms per call);
- `get`: `get` of `--gets` ids drawn at random (ms per call);
- `list_recent`: `list_recent(limit=20)`, `--reps` times (ms per call);
- `find_by_platform`: `find_by_platform('slack', {'channel': ...})`, each of the 20 channels (N/20 threads each; ms per call); ours checks
  every file's signature on each finding call (a `stat` each: an edit a person made in place is seen at once), SQLite scans its table;
- `find_by_attributes` (not a goal): `find_by_attributes({'user': ...})`, 20 users (N/50 threads each);
- `list_recent at once` (not a goal): the first `list_recent(limit=20)` right after the saves, while every file saved in the last 2 seconds
  is checked by its bytes (a change in the same tick of the file system's clock, of the same size, leaves a file's signature as it was:
  `dialog.ipynb.sig_settled`, git's racy rule); the figures after it are taken once that is past, as it is for every file but the few a
  program is saving;
- `cold list_recent` (not a goal): the first `list_recent(limit=20)` of a new store object on the folder (a new process: the index file is read, every file's signature checked).
- `plain objects` (a baseline, no store's call): what a `find_by_platform` call returns (N/20 threads of 4 messages) made as plain objects
  (a `__dict__` each, message-sized), 20 times, in the same process right after the stores' calls: its 10k/1k is what memory effects
  alone (the garbage collector walking every object the process holds, the bench's own 2N threads too; cache misses) do here to code that
  makes N/20 threads' worth of objects a call: read `find_by_platform`'s next to it.
The reading figures (`get`, `list_recent`, the finds) are taken in `--rounds` rounds (3), the two stores taking turns, and each is its
best round (least wall-clock and least CPU time, apart), as is the plain-object baseline: a busy machine's pauses fall on one store's
round or the other's, and a single round's figure moved by up to 50% from one run to the next (SQLite's most: its calls take half our time).
Each figure starts from a collected heap (`gc.collect()` before its first call): the bench holds 2N threads, so a full collection
costs 0.3-0.7 s at 10k, and one set off by the garbage of the figure before would land, by chance, in the next figure's clock (a 20-call
figure moves 6-12% with each); each figure still pays every collection its own calls set off.
Prints each figure, ours/SQLite at each size (goal <= 2), and ours and SQLite's 10k/1k (goal for ours <= 11: linear; per-call figures that
don't grow with N come out near 1). Threads are built outside the clock; the answers are checked to be the same threads.
"""
import argparse, asyncio, gc, os, random, shutil, sys, tempfile, time, warnings
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
    "`(wall-clock, CPU)` seconds per call of `f(arg)` over `calls`, and the last answer"
    gc.collect() # each figure pays the collections its own calls set off, not one owed by the figure before it
    t0,c0 = time.perf_counter(),time.process_time()
    for a in calls: r = await f(a)
    k = max(len(calls), 1)
    return ((time.perf_counter()-t0)/k, (time.process_time()-c0)/k),r

async def fill(store, threads):
    "Save `threads` into the empty `store`: the `save` figure, and the first `list_recent` right after"
    res = {}
    res['save'],_ = await timed(store.save, threads)
    res['list_recent at once'],_ = await timed(lambda _: store.list_recent(limit=20), range(1))
    return res

async def reads(store, ids, reps, gets, rnd):
    "The reading figures of a filled `store`, answers checked"
    res = {}
    res['get'],_ = await timed(store.get, rnd.sample(ids, min(gets, len(ids))))
    res['list_recent'],r = await timed(lambda _: store.list_recent(limit=20), range(reps))
    assert [t.id for t in r]==ids[::-1][:20], 'list_recent gave other threads'
    res['find_by_platform'],r = await timed(lambda k: store.find_by_platform('slack', {'channel': f'C{k}'}), range(20))
    assert sorted(t.id for t in r)==ids[19::20], 'find_by_platform gave other threads'
    res['find_by_attributes'],r = await timed(lambda k: store.find_by_attributes({'user': f'u{k}'}), range(20))
    assert sorted(t.id for t in r)==ids[19::50], 'find_by_attributes gave other threads'
    return res

def best(rounds):
    "Each figure's least wall-clock and least CPU time over `rounds` (dicts of figure -> (wall, CPU))"
    return {k:(min(r[k][0] for r in rounds), min(r[k][1] for r in rounds)) for k in rounds[0]}

class _Obj: pass

def plain(n):
    "`(wall-clock, CPU)` seconds per call to make, as plain objects, what a `find_by_platform` call returns: n/20 threads of 4 messages"
    # message-sized objects (a `__dict__` of 16 attributes, a nested dict), in the process as the stores' calls find it
    gc.collect()
    t0,c0 = time.perf_counter(),time.process_time()
    for k in range(20):
        res = []
        for i in range(k, n, 20):
            ms = []
            for j in range(4):
                o = _Obj(); o.__dict__.update({f'a{x}': x for x in range(15)}, m={'usage': {'t': i}, 'timing': {'l': j}}); ms.append(o)
            t = _Obj(); t.__dict__.update(id=f'th{i}', messages=ms, attributes={'user': f'u{i%50}'}, platforms={'slack': {'channel': f'C{i%20}'}})
            res.append(t)
    return (time.perf_counter()-t0)/20,(time.process_time()-c0)/20

async def cold(mk_store):
    s = mk_store()
    t,_ = await timed(lambda _: s.list_recent(limit=20), range(1))
    return t

async def main(a):
    rnd = random.Random(0)
    out,base = {},{}
    for n in a.sizes:
        d = tempfile.mkdtemp(prefix='bench-thread-store-', dir=a.tmp)
        try:
            ours_ts = [mk(Thread, Message, i) for i in range(n)]
            nar_ts = [mk(NThread, NMessage, i) for i in range(n)]
            for t,u in zip(ours_ts, nar_ts): # the same times, so that both stores order the threads alike
                u.created_at,u.updated_at = t.created_at,t.updated_at
            url = f'sqlite+aiosqlite:///{d}/threads.db'
            sq = ThreadStore(url); await sq.initialize()
            ds = DialogThreadStore(f'{d}/threads')
            r_sq,r_ds = await fill(sq, nar_ts),await fill(ds, ours_ts)
            time.sleep(2.1) # files changed in the last 2 s are checked by their bytes (`sig_settled`): measured above, then waited out
            ids = [t.id for t in ours_ts]
            # the reading figures in rounds, the two stores taking turns: each figure is its best round
            rounds = [[await reads(st, ids, a.reps, a.gets, random.Random(n+j)) for st in (sq, ds)] for j in range(a.rounds)]
            r_sq |= best([r[0] for r in rounds]); r_ds |= best([r[1] for r in rounds])
            r_sq['cold list_recent'] = await cold(lambda: ThreadStore(url))
            r_ds['cold list_recent'] = await cold(lambda: DialogThreadStore(f'{d}/threads'))
            base[n] = tuple(map(min, zip(*[plain(n) for _ in range(a.rounds)]))) # its best round too, each clock
            out[n] = (r_ds, r_sq)
        finally: shutil.rmtree(d, ignore_errors=True)
        print(f'\n{n:,} threads            ours ms   SQLite ms   ours/SQLite   CPU: ours ms   SQLite ms   ours/SQLite')
        for k in r_ds:
            (w,c),(sw,sc) = r_ds[k],r_sq[k]
            print(f'  {k:<20} {w*1e3:9.2f}  {sw*1e3:9.2f}   {w/sw:6.2f}        {c*1e3:9.2f}  {sc*1e3:9.2f}   {c/sc:6.2f}'
                  + ('' if k in goals else '   (not a goal)'))
        print(f'  {"plain objects":<20} {base[n][0]*1e3:9.2f}                             {base[n][1]*1e3:9.2f}'
              '                         (find_by_platform\'s answer as plain objects: a baseline)')
    def r(n, i, k, j=0): return out[n][i][k][j] # size n, store i (0 ours, 1 SQLite), figure k, clock j (0 wall, 1 CPU)
    if len(a.sizes)>1:
        lo,hi = a.sizes[0],a.sizes[-1]
        print(f'\n{hi:,}/{lo:,}               ours      SQLite     CPU: ours   SQLite')
        for k in out[lo][0]: print(f'  {k:<20} {r(hi,0,k)/r(lo,0,k):6.2f}   {r(hi,1,k)/r(lo,1,k):6.2f}          {r(hi,0,k,1)/r(lo,0,k,1):6.2f}   {r(hi,1,k,1)/r(lo,1,k,1):6.2f}')
        bw,bc = base[hi][0]/base[lo][0],base[hi][1]/base[lo][1]
        print(f'  {"plain objects":<20} {bw:6.2f}                     {bc:6.2f}            (the baseline: read find_by_platform next to it)')
    bad = [f'{k} at {n:,}: ours/SQLite {r(n,0,k)/r(n,1,k):.2f} > 2' for n in out for k in goals if r(n,0,k)/r(n,1,k)>2]
    if len(a.sizes)>1: bad += [f'{k}: ours {hi:,}/{lo:,} = {r(hi,0,k)/r(lo,0,k):.2f} > 11' for k in goals if r(hi,0,k)/r(lo,0,k)>11*hi/lo/10]
    print('\n'+('goals met' if not bad else 'goals missed: '+'; '.join(bad)))

goals = ('save', 'get', 'list_recent', 'find_by_platform')

if __name__=='__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--sizes', type=int, nargs='+', default=[1000, 10000])
    p.add_argument('--reps', type=int, default=20)
    p.add_argument('--gets', type=int, default=500)
    p.add_argument('--rounds', type=int, default=3, help='rounds of the reading figures, the two stores taking turns; each figure is its best')
    p.add_argument('--tmp', default=None, help='the folder for the stores (default: the system temp folder)')
    asyncio.run(main(p.parse_args()))

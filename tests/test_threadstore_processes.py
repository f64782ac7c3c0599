"Two processes on one store: saves of different threads and of the same thread at the same time, a reader listing meanwhile"
import asyncio, json, os, subprocess, sys, textwrap
from pathlib import Path
from dialog.thread import Thread
from dialog.threadstore import DialogThreadStore

WRITER = textwrap.dedent('''
    import asyncio, sys
    from dialog.thread import Thread, Message
    from dialog.threadstore import DialogThreadStore
    folder,who,n = sys.argv[1],sys.argv[2],int(sys.argv[3])
    async def main():
        s = DialogThreadStore(folder)
        shared = Thread(id='shared')
        for i in range(n):
            t = Thread(id=f'{who}-{i}', attributes={'who': who})
            t.add_message(Message(role='user', content=f'{who} {i}'))
            await s.save(t)
            shared.add_message(Message(role='user', content=f'{who} {i}')) # the same thread, saved by both: each save is one writer's whole thread
            await s.save(shared)
            if i%10==0: await s.list_recent(5)
    asyncio.run(main())
''')

READER = textwrap.dedent('''
    import asyncio, sys, time
    from dialog.threadstore import DialogThreadStore
    async def main():
        s,seen = DialogThreadStore(sys.argv[1]),0
        t0 = time.time()
        while time.time()-t0 < float(sys.argv[2]):
            ts = await s.list_recent()
            for t in ts: assert t.id=='shared' or len(t.messages)==1, t.id
            sh = [t for t in ts if t.id=='shared']
            if sh: assert len({m.content.split()[0] for m in sh[0].messages})==1, 'a mix of two writers'
            seen = max(seen, len(ts))
        print(seen)
    asyncio.run(main())
''')

def test_two_writers_and_a_reader(tmp_path):
    n = 40
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(Path(__file__).parents[1])]+sys.path)}
    ws = [subprocess.Popen([sys.executable, '-c', WRITER, str(tmp_path), who, str(n)], env=env) for who in ('p1', 'p2')]
    r = subprocess.Popen([sys.executable, '-c', READER, str(tmp_path), '6'], env=env, stdout=subprocess.PIPE, text=True)
    assert [w.wait(timeout=300) for w in ws]==[0, 0]
    out,_ = r.communicate(timeout=300)
    assert r.returncode==0 and int(out)>0
    async def check(s):
        ts = await s.list_recent()
        assert sorted(t.id for t in ts)==sorted([f'{w}-{i}' for w in ('p1', 'p2') for i in range(n)]+['shared'])
        sh = await s.get('shared')
        assert [m.content for m in sh.messages] in ([f'p1 {i}' for i in range(n)], [f'p2 {i}' for i in range(n)]) # the last save won, whole
        return [t.model_dump(mode='json') for t in ts],[t.id for t in await s.find_by_attributes({'who': 'p2'})]
    from_index = asyncio.run(check(DialogThreadStore(tmp_path)))
    (tmp_path/DialogThreadStore.index_name).unlink()
    from_files = asyncio.run(check(DialogThreadStore(tmp_path)))
    assert from_index[0]==from_files[0] and sorted(from_index[1])==sorted(from_files[1])==sorted(f'p2-{i}' for i in range(n))
    assert not [f for f in os.listdir(tmp_path) if f.endswith('.tmp')] # no temp file left behind

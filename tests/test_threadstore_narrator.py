"The store gives narrator's answers: the same calls on `DialogThreadStore`, narrator's memory store and narrator's SQLite store, answer for answer"
import asyncio, random, pytest, logging, warnings
from datetime import datetime, timezone, timedelta
narrator = pytest.importorskip('narrator')
pytest.importorskip('aiosqlite')
from dialog.thread import Thread, Message
from dialog.threadstore import DialogThreadStore

logging.getLogger('narrator').setLevel(logging.ERROR)

# Where narrator's two stores disagree, we give the memory store's answer (narrator's reference semantics), and say so here:
# - find_messages_by_attribute: the SQLite store answers [] to every path (even `platforms.slack.ts`, its docstring's example);
# - find_by_attributes: the SQLite store finds no thread by a number, list or dict value (only text and booleans);
# - a thread saved again: the SQLite store sets its updated_at to the time of the save; memory (and we) keep the thread's own.
# So answers are compared with SQLite's without updated_at, and without those calls and values.
ATTR_VALS = ['x', 'y', True, False, 3, [1, 2], {'k': 'v'}]

def scenario(seed, n_ops=60):
    "A list of calls, the same for every store: ('save', spec) | ('resave', i, msg) | ('get', id) | ... (ids and times fixed, so both libraries build the same threads)"
    rnd,ops,alive,made = random.Random(seed),[],[],0
    def msg(k):
        return dict(id=f'm{seed}-{k}', role=rnd.choice(['user', 'assistant']), content=f'text {k}', attributes=rnd.choice([{}, {'cat': rnd.choice('ab')}]),
                    platforms=rnd.choice([{}, {'slack': {'ts': f'{rnd.randint(1, 4)}.0'}}]), metrics={'model': rnd.choice(['m1', 'm2'])})
    k = 0
    for _ in range(n_ops):
        r = rnd.random()
        if r<0.3 or not alive:
            made += 1; tid = f't{seed}-{made}'
            ms = []
            if rnd.random()<0.3: ms.append(dict(id=f'm{seed}-s{made}', role='system', content='be brief'))
            for _ in range(rnd.randint(0, 3)): k += 1; ms.append(msg(k))
            ops.append(('save', dict(id=tid, title=f'title {made}', attributes={rnd.choice('ab'): rnd.choice(ATTR_VALS)}, platforms=rnd.choice([{}, {'slack': {'channel': rnd.choice(['C1', 'C2'])}}, {'discord': {'guild': 'g'}}])), ms))
            alive.append(tid)
        elif r<0.4: k += 1; ops.append(('resave', rnd.choice(alive), msg(k)))
        elif r<0.5: ops.append(('get', rnd.choice(alive+['missing'])))
        elif r<0.55:
            tid = rnd.choice(alive+['missing']); ops.append(('delete', tid))
            if tid in alive: alive.remove(tid)
        elif r<0.65: ops.append(('list', rnd.choice([1, 3, 100]), rnd.choice([0, 1, 5])))
        elif r<0.7: ops.append(('list_recent', rnd.choice([None, 2, 0])))
        elif r<0.8: ops.append(('find_by_attributes', {rnd.choice('ab'): rnd.choice(ATTR_VALS)}))
        elif r<0.9: ops.append(('find_by_platform', rnd.choice(['slack', 'discord', 'teams']), rnd.choice([{}, {'channel': 'C1'}, {'channel': 'C2'}, {'guild': 'g'}])))
        elif r<0.95: ops.append(('find_messages_by_attribute', *rnd.choice([('platforms.slack.ts', '2.0'), ('attributes.cat', 'a'), ('metrics.model', 'm1'), ('role', 'user')])))
        else: ops.append(('get_thread_by_message_id', rnd.choice([f'm{seed}-{j}' for j in range(1, k+1)] + ['nope'])))
    return ops

def dump(t, sql=False):
    if t is None: return None
    d = t.model_dump(mode='json')
    if sql: d.pop('updated_at')
    return d

async def play(store, T, M, ops, sql=False):
    "Run `ops` on `store`; the answers, JSON-ready"
    threads,res,clock = {},[],datetime(2025, 1, 1, tzinfo=timezone.utc)
    def tick():
        nonlocal clock
        clock += timedelta(seconds=1)
        return clock
    for op in ops:
        kind = op[0]
        if kind=='save':
            spec,ms = op[1],op[2]
            t = T(**spec, created_at=tick())
            for m in ms: t.add_message(M(**m, timestamp=datetime(2025, 1, 1, tzinfo=timezone.utc)))
            t.updated_at = tick() if not sql else datetime.now(timezone.utc)
            threads[t.id] = t
            res.append([m.role for m in (await store.save(t)).messages]) # the thread given back, system messages and all
        elif kind=='resave':
            t = threads[op[1]]
            t.add_message(M(**op[2], timestamp=datetime(2025, 1, 1, tzinfo=timezone.utc)))
            t.updated_at = tick() if not sql else datetime.now(timezone.utc)
            await store.save(t)
            res.append(None)
        elif kind=='get': res.append(dump(await store.get(op[1]), sql))
        elif kind=='delete': res.append(await store.delete(op[1]))
        elif kind=='list': res.append([dump(t, sql) for t in await store.list(limit=op[1], offset=op[2])])
        elif kind=='list_recent': res.append([dump(t, sql) for t in await store.list_recent(op[1])])
        elif kind=='find_by_attributes':
            if sql and not all(isinstance(v, (str, bool)) for v in op[1].values()): res.append('skipped'); continue
            res.append([dump(t, sql) for t in await store.find_by_attributes(op[1])])
        elif kind=='find_by_platform': res.append([dump(t, sql) for t in await store.find_by_platform(op[1], op[2])])
        elif kind=='find_messages_by_attribute':
            if sql: res.append('skipped'); continue
            res.append([m.model_dump(mode='json') for m in await store.find_messages_by_attribute(op[1], op[2])])
        elif kind=='get_thread_by_message_id': res.append(dump(await store.get_thread_by_message_id(op[1]), sql))
    return res

def run(coro): 
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return asyncio.run(coro)

@pytest.mark.parametrize('seed', range(8))
def test_same_answers_as_narrators_memory_store(seed, tmp_path):
    ops = scenario(seed)
    theirs = run(play(narrator.ThreadStore(), narrator.Thread, narrator.Message, ops))
    ours = run(play(DialogThreadStore(tmp_path/'threads'), Thread, Message, ops))
    for op,a,b in zip(ops, ours, theirs): assert a==b, op

@pytest.mark.parametrize('seed', range(3))
def test_same_answers_as_narrators_sqlite_store(seed, tmp_path):
    ops = scenario(seed)
    theirs = run(play(narrator.ThreadStore(f'sqlite+aiosqlite:///{tmp_path}/t.db'), narrator.Thread, narrator.Message, ops, sql=True))
    ours = run(play(DialogThreadStore(tmp_path/'threads'), Thread, Message, ops, sql=True))
    for op,a,b in zip(ops, ours, theirs): assert a==b, op

def test_answers_survive_a_new_process(tmp_path):
    "A new store object on the same folder (as a new process has) gives the same answers, from the index file and the threads' files"
    ops = scenario(7)
    run(play(DialogThreadStore(tmp_path/'threads'), Thread, Message, ops))
    async def answers(s): return [[t.model_dump(mode='json') for t in await s.list_recent()], [t.id for t in await s.find_by_platform('slack', {})], [t.id for t in await s.find_by_attributes({'a': 'x'})]]
    mem = narrator.ThreadStore()
    run(play(mem, narrator.Thread, narrator.Message, ops))
    assert run(answers(DialogThreadStore(tmp_path/'threads'))) == run(answers(mem))
    (tmp_path/'threads'/DialogThreadStore.index_name).unlink() # the index lost: rebuilt from the files (the order of first saves becomes the order of creation)
    assert run(answers(DialogThreadStore(tmp_path/'threads')))[0] == run(answers(mem))[0]

def test_every_call_of_narrators_store_is_ours():
    "Nothing of narrator's class is left to run on our store (its backend isn't there): each of its names is defined by ours"
    for n in vars(narrator.ThreadStore):
        if n.startswith('__') and n!='__init__': continue
        assert n in vars(DialogThreadStore), n
    assert isinstance(DialogThreadStore('x'), narrator.ThreadStore)

def test_narrators_threads_in_and_out(tmp_path):
    "A narrator thread saves, and a store made with `thread_cls=narrator.Thread` gives narrator's threads back, equal to what was saved"
    async def go():
        t = narrator.Thread(id='n1', attributes={'a': 1}, platforms={'slack': {'ts': '1'}})
        t.add_message(narrator.Message(role='system', content='sys'))
        t.add_message(narrator.Message(role='user', content='hi', attributes={'k': 'v'}))
        assert await DialogThreadStore(tmp_path).save(t) is t and len(t.messages)==2
        s = DialogThreadStore(tmp_path, thread_cls=narrator.Thread)
        g = await s.get('n1')
        assert type(g) is narrator.Thread
        exp = t.model_dump(); exp['messages'] = exp['messages'][1:]
        assert g.model_dump()==exp
        assert [type(m) for m in await s.find_messages_by_attribute('attributes.k', 'v')]==[narrator.Message]
        g2 = await DialogThreadStore(tmp_path).get('n1')
        assert type(g2) is Thread and g2.model_dump()==exp
    run(go())

def _odd_thread(T, M):
    "A thread whose messages hold the empty values narrator's `to_dict` leaves out (an empty name, no tool calls, no reasoning) beside full ones"
    call = {'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}
    t = T(id='t1')
    t.add_message(M(role='user', content='hi', name='', source={'id': 'u', 'type': 'user'}))
    t.add_message(M(role='assistant', content='yo', tool_calls=[], reasoning_content=''))
    t.add_message(M(role='assistant', content=None, tool_calls=[call], metrics={'model': 'm', 'usage': {'total_tokens': 0}}))
    t.add_message(M(role='tool', content='r', tool_call_id='c1', name='f'))
    t.add_message(M(role='user', content='x', attributes={'a': 1, 'b': None, 'c': {'d': [1]}}, metrics={'model': 'm'}, platforms={'slack': {'ts': '1'}}))
    return t

def test_find_messages_by_attribute_answers_as_the_memory_store(tmp_path):
    "Every path (fields, keys in them, missing ones, empty parts) and value (None and empty ones too): the messages narrator's memory store finds, on the same thread"
    import itertools
    paths = ['attributes', 'attachments', 'name', 'tool_calls', 'reasoning_content', 'metrics..model', 'metrics.model', 'metrics.usage.total_tokens',
             'attributes.a', 'attributes.b', 'attributes.c.d', 'attributes.zz', 'platforms.slack.ts', 'platforms', 'content', 'role', 'source.id',
             'nofield', 'nofield.x', '.role', 'role.', '', 'tool_call_id', 'reactions', 'metrics.model.x', 'attributes.a.b', '_x']
    values = [None, '', [], {}, 'm', 1, 0, 'hi', 'user', 'tool', 'f', '1', [1], {'d': [1]}, 'u', False]
    async def go():
        mem = await narrator.ThreadStore.create(); await mem.save(_odd_thread(narrator.Thread, narrator.Message))
        ours = await DialogThreadStore.create(tmp_path); await ours.save(_odd_thread(Thread, Message))
        bad = []
        for p,v in itertools.product(paths, values):
            a = [(m.role, m.content) for m in await mem.find_messages_by_attribute(p, v)]
            b = [(m.role, m.content) for m in await ours.find_messages_by_attribute(p, v)]
            if a!=b: bad.append((p, v, a, b))
        return bad
    assert asyncio.run(go())==[]

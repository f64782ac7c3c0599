"Tyler keeps its threads in our store: `Agent(thread_store=DialogThreadStore(...))`, run offline on a mocked model, ends with the same threads as on narrator's store"
import asyncio, os, sys, pytest, warnings, logging
os.environ.setdefault('LITELLM_LOCAL_MODEL_COST_MAP', 'True') # litellm: no download of its price list
os.environ.setdefault('WANDB_ERROR_REPORTING', 'False')
tyler = pytest.importorskip('tyler')
litellm = pytest.importorskip('litellm')
import narrator
from dialog.threadstore import DialogThreadStore

logging.disable(logging.WARNING)

@pytest.fixture
def mocked_model(monkeypatch):
    "litellm answers every completion with its own mock (`mock_response`): the agent runs as with a real model, offline"
    real,calls = litellm.acompletion,[]
    async def fake(*a, **kw):
        kw.pop('stream', None)
        ms = kw['messages']
        calls.append(ms)
        if kw.get('tools') and ms[-1]['role']=='user': # an agent with tools: the model calls one first
            tc = [{'id': f'call_{len(ms)}', 'type': 'function', 'function': {'name': 'lookup_order', 'arguments': '{"order_id": "42"}'}}]
            return await real(*a, **{**kw, 'mock_response': 'checking', 'mock_tool_calls': tc})
        return await real(*a, **{**kw, 'mock_response': f'answer to {len(ms)} messages'})
    monkeypatch.setattr(litellm, 'acompletion', fake)
    for mod in [m for k,m in sys.modules.items() if k.split('.')[0]=='tyler']: # where Tyler took its own name for it at import
        for k,v in list(vars(mod).items()):
            if v is real: monkeypatch.setattr(mod, k, fake)
    return calls

def norm(t):
    "A thread's dump without what differs run to run (ids, times, latencies)"
    d = t.model_dump(mode='json')
    for k in ('created_at', 'updated_at'): d.pop(k)
    for m in d['messages']:
        for k in ('id', 'timestamp', 'source'): m.pop(k, None)
        for k in ('timing', 'weave_call', '_tool_execution_durations_ms'): m['metrics'].pop(k, None)
    return d

def lookup_order(order_id: str) -> str:
    "Look up an order by its id"
    return f'order {order_id}: shipped'

async def conversation(store, tools=()):
    "Tyler's use of a store: a thread saved, run by id (the agent gets it, adds its reply, saves), a user's next message, run again"
    agent = tyler.Agent(model_name='gpt-4.1', purpose='test', thread_store=store, tools=list(tools))
    t = narrator.Thread(id='conv-1', title='Support', attributes={'customer': 'c-1'}, platforms={'slack': {'channel': 'C1'}})
    t.add_message(narrator.Message(role='user', content='Where is my order?'))
    await store.save(t)
    r1 = await agent.run('conv-1')
    t2 = await store.get('conv-1')
    t2.add_message(narrator.Message(role='user', content='Thanks! And the invoice?'))
    r2 = await agent.run(t2)
    return [norm(r1.thread), norm(r2.thread), norm(await store.get('conv-1')), [x.id for x in await store.find_by_platform('slack', {'channel': 'C1'})]]

def test_tyler_runs_on_our_store(tmp_path, mocked_model):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        theirs = asyncio.run(conversation(narrator.ThreadStore()))
        n = len(mocked_model)
        ours = asyncio.run(conversation(DialogThreadStore(tmp_path, thread_cls=narrator.Thread)))
    assert ours==theirs
    assert mocked_model[:n]==mocked_model[n:] # the model was sent the same conversation
    assert [m['content'] for m in ours[2]['messages']]==['Where is my order?', 'answer to 2 messages', 'Thanks! And the invoice?', 'answer to 4 messages']
    assert (tmp_path/'conv-1.ipynb').exists()

def test_tyler_with_a_tool_on_our_store(tmp_path, mocked_model):
    "The same with a tool the model calls: tool calls, tool results and Tyler's metrics come back from our files as from narrator's store"
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        theirs = asyncio.run(conversation(narrator.ThreadStore(), [lookup_order]))
        ours = asyncio.run(conversation(DialogThreadStore(tmp_path, thread_cls=narrator.Thread), [lookup_order]))
    assert ours==theirs
    assert [(m['role'], m['content']) for m in ours[2]['messages']][:4]==[('user', 'Where is my order?'), ('assistant', 'checking'), ('tool', 'order 42: shipped'), ('assistant', 'answer to 4 messages')]

def test_tyler_agent_without_a_store(monkeypatch, mocked_model):
    "Tyler's `Agent()` given no store makes narrator's `ThreadStore()`: with narrator's names ours (the one-line switch), it is ours, kept in a temporary folder"
    import dialog.thread as dt
    for mod in [m for k,m in sys.modules.items() if k.split('.')[0]=='tyler']: # where Tyler took its own names at import
        for n in ('Thread', 'Message', 'Attachment', 'ThreadStore', 'FileStore'):
            if getattr(mod, n, None) is getattr(narrator, n): monkeypatch.setattr(mod, n, getattr(dt, n))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        agent = tyler.Agent(model_name='gpt-4.1', purpose='test')
        store = agent.thread_store
        assert isinstance(store, DialogThreadStore) and store.path.is_dir()
        t = dt.Thread(id='conv-2'); t.add_message(dt.Message(role='user', content='Hi'))
        asyncio.run(store.save(t))
        r = asyncio.run(agent.run('conv-2'))
    assert [m.content for m in r.thread.messages]==['Hi', 'answer to 2 messages']

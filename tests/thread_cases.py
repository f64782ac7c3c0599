"Shared cases for the thread tests: the seed's conversation built on any `Thread` module, and the answers compared"
import asyncio, json
from datetime import datetime, timedelta, timezone
from dialog.thread import Message
from dialog.thread import Thread
from dialog.ipynb import read_ipynb

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
def _ts(i): return T0 + timedelta(seconds=i)

def _norm(o):
    "Drop the thread's own clock times (ids and message times are given, so they compare)"
    if isinstance(o, dict): return {k:_norm(v) for k,v in o.items() if k not in ('created_at', 'updated_at')}
    if isinstance(o, list): return [_norm(v) for v in o]
    return o

def _mdump(mod, m): return m.model_dump(mode='json')

def building(mod):
    "The seed's 'Building a Conversation', extended: metrics, a batch with two tool calls, reactions, a late system message"
    M = mod.Message
    t = mod.Thread(id='th-1', title='Technical Support', attributes={'team': 'it'}, platforms={'slack': {'channel': 'C1', 'thread_ts': '1.2'}})
    t.add_message(M(id='s1', timestamp=_ts(0), role='system', content='You are a helpful technical support agent.'))
    t.add_message(M(id='u1', timestamp=_ts(1), role='user', content="My computer won't start. The screen is black.",
                    source={'type': 'user', 'id': 'ann', 'name': 'Ann'}, platforms={'slack': {'ts': '1.3'}}))
    t.add_message(M(id='a1', timestamp=_ts(2), role='assistant', content="I'll help you troubleshoot this issue.",
        tool_calls=[{'id': 'call_123', 'type': 'function', 'function': {'name': 'diagnose_computer', 'arguments': '{"symptom": "black screen"}'}}],
        metrics={'model': 'gpt-4', 'timing': {'started_at': '2024-05-01T12:00:01+00:00', 'ended_at': '2024-05-01T12:00:02+00:00', 'latency': 1000},
                 'usage': {'prompt_tokens': 40, 'completion_tokens': 12, 'total_tokens': 52}}, reasoning_content='Black screen: power or display.'))
    t.add_message(M(id='t1', timestamp=_ts(3), role='tool', name='diagnose_computer', tool_call_id='call_123',
                    content='Possible causes: 1) Power issue, 2) Display cable...'), same_turn=True)
    t.add_message(M(id='a2', timestamp=_ts(4), role='assistant', content="Based on the diagnosis, let's start by checking your power connection.",
                    metrics={'model': 'gpt-4', 'timing': {'latency': 800}, 'usage': {'prompt_tokens': 70, 'completion_tokens': 15, 'total_tokens': 85}}),
                  same_turn=True)
    t.add_message(M(id='u2', timestamp=_ts(5), role='user', content='Power is fine. Can you check the cable and the monitor?', attributes={'lang': 'en'}))
    t.add_messages_batch([
        M(id='a3', timestamp=_ts(6), role='assistant', content='Checking both.', tool_calls=[
            {'id': 'call_a', 'type': 'function', 'function': {'name': 'check_cable', 'arguments': '{"port": "hdmi"}'}},
            {'id': 'call_b', 'type': 'function', 'function': {'name': 'check_monitor', 'arguments': '{}'}}],
          metrics={'model': 'claude-3', 'timing': {'latency': 1500.5}, 'usage': {'prompt_tokens': 90, 'completion_tokens': 20, 'total_tokens': 110}}),
        M(id='t2', timestamp=_ts(7), role='tool', name='check_cable', tool_call_id='call_a', content='Cable loose'),
        M(id='t3', timestamp=_ts(8), role='tool', name='check_monitor', tool_call_id='call_b', content='Monitor OK'),
        M(id='a4', timestamp=_ts(9), role='assistant', content='Your HDMI cable is loose: push it in firmly.',
          metrics={'model': 'claude-3', 'usage': {'prompt_tokens': 120, 'completion_tokens': 10, 'total_tokens': 130}})])
    t.add_reaction('a4', 'thumbsup', 'ann'); t.add_reaction('a4', 'thumbsup', 'bob'); t.add_reaction('a4', 'heart', 'ann')
    t.add_message(M(id='s2', timestamp=_ts(10), role='system', content='Be concise.'))
    t.add_message(M(id='u3', timestamp=_ts(11), role='user', content='Thanks!'), same_turn=True)
    return t

def answers(t):
    "Every accessor and analytic of thread `t`, as comparable data"
    d = lambda m: None if m is None else m.model_dump(mode='json')
    return dict(
        dump=_norm(t.model_dump(mode='json')), json=_norm(json.loads(t.model_dump_json())),
        chat=asyncio.run(t.get_messages_for_chat_completion()),
        last={r: d(t.get_last_message_by_role(r)) for r in ('system', 'user', 'assistant', 'tool')},
        system=d(t.get_system_message()), turns={n: [d(m) for m in t.get_messages_by_turn(n)] for n in range(5)},
        current=t.get_current_turn(), by_id={i: d(t.get_message_by_id(i)) for i in ('u1', 'a3', 't3', 's2', 'nope')},
        tokens=t.get_total_tokens(), models=t.get_model_usage(), gpt4=t.get_model_usage('gpt-4'), none=t.get_model_usage('nope'),
        counts=t.get_message_counts(), timing=t.get_message_timing_stats(), tools=t.get_tool_usage(),
        summary=t.get_turns_summary(), seq=[m.id for m in t.get_messages_in_sequence()],
        reactions=t.get_reactions('a4'), counts_a4=t.get_message_by_id('a4').get_reaction_counts(),
        chat_msgs=[m.to_chat_completion_message() for m in t.messages])

def outcome(f, *args):
    "What `f(*args)` gives: its value, or the kind of error it raised (pydantic's `ValidationError` is a `ValueError`, as ours are)"
    try: return f(*args)
    except ValueError: return 'ValueError'
    except TypeError: return 'TypeError'

PNG = bytes.fromhex('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b4944415478da63600002000005000127ec5a1f0000000049454e44ae426082')

def ok_or_error(f):
    "What `f()` gives: ('ok', value) or the kind of error (pydantic's `ValidationError` is a `ValueError`)"
    try: return 'ok', f()
    except ValueError: return 'ValueError', None
    except TypeError: return 'TypeError', None

def sample():
    "A thread with a system prompt, a reply, an image, a tool call and its result"
    t = Thread(id='s', title='S', created_at=T0, updated_at=T0)
    t.add_message(Message(role='system', content='Be brief.', timestamp=_ts(0)))
    t.add_message(Message(role='user', content='hi', timestamp=_ts(1)))
    t.add_message(Message(role='assistant', content='hello', timestamp=_ts(2)))
    t.add_message(Message(role='user', content='see', file_content=PNG, filename='c.png', timestamp=_ts(3)))
    t.add_message(Message(role='assistant', content='', timestamp=_ts(4), tool_calls=[{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]))
    t.add_message(Message(role='tool', content='42', tool_call_id='c1', name='f', timestamp=_ts(5)), same_turn=True)
    t.add_message(Message(role='assistant', content='done', timestamp=_ts(6)), same_turn=True)
    return t

def tagged(tmp_path):
    "A saved sample whose cells a person tagged (and gave a fine-tuning weight), read back"
    p = sample().save(tmp_path/'s.ipynb')
    dl = read_ipynb(p)
    for c in dl.messages: c.meta['tags'] = ['keep']; c.meta['dialog']['weight'] = 1
    dl.save(p, force=True)
    return p

def first_prompt(dlg): return next(c for c in dlg.messages if c.msg_type=='prompt')

def edit_then_save(p, edit):
    "Read `p`, edit the first prompt cell of its dialog in memory with `edit(cell)`, save: the ValueError it raises (None when it saved), and the first prompt cell read back"
    t = Thread.read(p); c = first_prompt(t.dialog)
    edit(c)
    try: t.save()
    except ValueError as e: return e, None
    return None, first_prompt(read_ipynb(p))

def ticket_classes(name='priority', typ=int, default=0):
    "A host's subclasses: `TicketThread` (own fields `name` of type `typ`, and `tags`) whose `msg_cls` is `ScoredMessage` (own field `score`)"
    from pydantic import Field
    from typing import List
    class ScoredMessage(Message): score: float = 0.0
    ns = {'msg_cls': ScoredMessage, '__annotations__': {name: typ, 'tags': List[str]}, name: default, 'tags': Field(default_factory=list)}
    return type('TicketThread', (Thread,), ns),ScoredMessage

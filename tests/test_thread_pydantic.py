"Thread, Message and Attachment in users' pydantic models (issue 32, item 2): the same validation, dumps and schemas as narrator's, on the same inputs"
import datetime, json, sys
import pytest, narrator
from hypothesis import given, settings, strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError
import dialog.thread as ours
from dialog.thread import Message
from thread_cases import T0
from dialog.thread import Thread
from thread_cases import _norm
from thread_cases import _ts
from thread_cases import building
from thread_cases import ok_or_error

TS = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
mods = pytest.mark.parametrize('mod', [narrator, ours], ids=['narrator', 'ours'])

def strip(o):
    "A JSON schema without its prose (descriptions, narrator's examples): the rest must match"
    if isinstance(o, dict): return {k:strip(v) for k,v in o.items() if k not in ('description', 'examples')}
    return [strip(v) for v in o] if isinstance(o, list) else o

def thread(mod):
    t = mod.Thread(id='t', title='x', created_at=TS, updated_at=TS, attributes={'k': [1, 2]})
    t.add_message(mod.Message(role='user', content='hi', id='m', timestamp=TS, attachments=[mod.Attachment(filename='a.txt', content=b'hey')], source={'id': 'ann', 'type': 'user'}))
    t.add_message(mod.Message(role='assistant', content=None, id='a', timestamp=TS, metrics={'model': 'x'}, tool_calls=[{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]))
    t.add_message(mod.Message(role='tool', content='r', id='r', timestamp=TS, tool_call_id='c', name='f'), same_turn=True)
    t.updated_at = TS
    return t

def conv(mod):
    class Conversation(BaseModel):
        thread: mod.Thread
        msg: mod.Message | None = None
        atts: list[mod.Attachment] = []
    return Conversation

def dumps(mod):
    C = conv(mod); t = thread(mod)
    c = C(thread=t, msg=t.messages[0], atts=[mod.Attachment(filename='b', content='text', status='stored')])
    return [c.model_dump(), c.model_dump(mode='json'), json.loads(c.model_dump_json()), c.model_dump(mode='json', exclude_unset=True),
            c.model_dump(exclude={'thread': {'messages': {0: {'metrics'}, '__all__': {'timestamp'}}}}), c.model_dump(include={'thread': {'id', 'title'}, 'msg': {'role'}}),
            c.model_dump(mode='json', exclude_none=True), c.model_dump(mode='json', exclude_defaults=True), c.thread is t, c.msg is t.messages[0]]

def test_a_users_model_dumps_as_narrators(): assert dumps(ours)==dumps(narrator)

inputs = [{'thread': {'id': 'q', 'created_at': TS, 'updated_at': TS, 'messages': [{'role': 'user', 'content': 'x', 'timestamp': TS, 'id': 'i', 'attachments': [{'filename': 'f', 'content': b'x'}]}]}},
          {'thread': {'id': 'q', 'created_at': TS, 'updated_at': TS}, 'msg': {'role': 'tool', 'tool_call_id': 'c', 'timestamp': TS, 'id': 'z', 'turn': '3'}},
          {'thread': {'id': 'q', 'messages': [{'role': 'bot'}]}}, {'thread': 3}, {'thread': {'id': 'q'}, 'msg': {'role': 'user', 'bogus': 1}},
          {'thread': {'id': 'q'}, 'msg': {'role': 'tool'}}, {'thread': {'id': 'q'}, 'atts': [{'content': b'x'}]}, {'thread': {'id': 'q'}, 'atts': [{'filename': 'f', 'status': 'lost'}]}]

@pytest.mark.parametrize('inp', inputs)
def test_a_users_model_validates_as_narrators(inp):
    "The same inputs validate (and dump) alike, or fail alike with pydantic's ValidationError at the same field"
    def run(mod):
        try: return conv(mod).model_validate(inp).model_dump(mode='json', exclude={'thread': {'created_at', 'updated_at'}})
        except ValidationError as e: return 'invalid', sorted({x['loc'][0] for x in e.errors()})
    assert run(ours)==run(narrator)

specs = [dict(include={'messages': {0: {'id'}, '__all__': {'content'}}}), dict(include={'messages': {0: True, '__all__': {'content'}}}),
         dict(include={'messages': {0: {'id'}, '__all__': True}}), dict(exclude={'messages': {0: True, '__all__': {'content'}}}),
         dict(exclude={'messages': {0: {'id'}, '__all__': ...}}), dict(include={'messages': {-1: {'id'}, '__all__': {'content'}}}),
         dict(exclude={'messages': {'__all__': {'metrics': {'usage'}}, 1: {'metrics': {'timing'}}}})]
@pytest.mark.parametrize('spec', specs)
def test_include_exclude_with_all(spec):
    "An item's own include/exclude and `__all__`'s merge as pydantic merges them"
    assert thread(ours).model_dump(**spec)==thread(narrator).model_dump(**spec)

def test_type_adapters():
    def run(mod):
        ta,tl = TypeAdapter(mod.Message),TypeAdapter(list[mod.Thread])
        m = ta.validate_python({'role': 'user', 'content': 'a', 'id': 'z', 'timestamp': TS})
        return ta.dump_python(m, mode='json'), tl.dump_python([thread(mod)], mode='json', exclude_unset=True), strip(tl.json_schema())
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('mode', ['validation', 'serialization'])
@pytest.mark.parametrize('name', ['Thread', 'Message', 'Attachment'])
def test_json_schema(name, mode):
    assert strip(getattr(ours, name).model_json_schema(mode=mode))==strip(getattr(narrator, name).model_json_schema(mode=mode))

def test_json_schema_of_a_users_model():
    "The schema of a model holding them (validation, pydantic's default mode)"
    def run(mod):
        class Conversation(BaseModel):
            thread: mod.Thread
            atts: list[mod.Attachment] = []
        return strip(Conversation.model_json_schema())
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('name', ['Thread', 'Message', 'Attachment'])
def test_model_fields(name):
    def run(mod):
        return [(k, f.is_required(), f.default_factory is not None, None if f.default_factory else repr(f.default)) for k,f in getattr(mod, name).model_fields.items()]
    assert run(ours)==run(narrator)

msg_kw = dict(content='x', name='n', sequence=2, turn=1, reasoning_content='r', attributes={'a': 1}, timestamp=TS, source={'id': 's'}, platforms={'p': {'k': 'v'}},
              reactions={'e': ['u']}, metrics={'model': 'm'}, id='i', tool_calls=[])
@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(sorted(msg_kw))), st.sets(st.sampled_from(['content', 'turn', 'name'])), st.booleans(), st.booleans())
def test_fields_set_of_messages(keys, assign, add, none):
    "model_fields_set: the fields given (None given counts), the id, fields assigned since, turn and sequence once a thread numbers it; exclude_unset dumps those"
    def run(mod):
        m = mod.Message(role='user', **{k:None if none and k in ('content', 'name') else msg_kw[k] for k in keys})
        for k in assign: setattr(m, k, msg_kw[k])
        if add: mod.Thread().add_message(m)
        d = m.model_dump(mode='json', exclude_unset=True)
        if 'id' not in keys: d.pop('id')
        return m.model_fields_set, d
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('kw', [{}, dict(id='t'), dict(title=None), dict(title='x', attributes={}), dict(created_at=TS, platforms={})])
def test_fields_set_of_threads(kw):
    def run(mod):
        t = mod.Thread(**kw); res = [set(t.model_fields_set)]
        t.add_message(mod.Message(role='user', content='x')); res.append(set(t.model_fields_set))
        t.title = 'y'; res.append(set(t.model_fields_set))
        return res
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('kw', [{}, dict(content=b'x'), dict(mime_type=None, status='stored'), dict(attributes={'a': 1}, file_id='f')])
def test_fields_set_of_attachments(kw):
    def run(mod):
        a = mod.Attachment(filename='f', **kw); res = [set(a.model_fields_set), a.model_dump_json(exclude_unset=True)]
        a.mime_type = 'text/plain'; res.append(set(a.model_fields_set))
        return res
    assert run(ours)==run(narrator)

def test_model_construct():
    "Trusted data, set as given: no checks, defaults for the rest, the fields given (or `_fields_set`) counted as set"
    assert ours.Message.model_construct(role='bot', turn='not checked').turn=='not checked'
    m = ours.Message.model_construct(role='user', content='hi', turn=1, bogus=1)
    assert (m.role, m.content, m.turn, m.attributes, m.metrics['usage']['total_tokens'], m.model_fields_set)==('user', 'hi', 1, {}, 0, {'role', 'content', 'turn'})
    t = ours.Thread.model_construct(title='x', messages=[m], _fields_set={'title'})
    assert (t.title, t.messages[0] is m, t.model_fields_set)==('x', True, {'title'})
    t.add_message(ours.Message(role='user', content='more')); assert (t.messages[-1].sequence,t.messages[-1].turn)==(1, 2)
    a = ours.Attachment.model_construct(filename='f')
    assert (a.status, a.content, a.model_fields_set)==('pending', None, {'filename'})

def test_copies_have_their_own_fields_set():
    m = ours.Message(role='user', content='x'); c = m.model_copy(); c.name = 'n'
    assert 'name' in c.model_fields_set and 'name' not in m.model_fields_set
    t = ours.Thread(); c = t.model_copy(deep=True); c.title = 'y'
    assert 'title' in c.model_fields_set and 'title' not in t.model_fields_set

def test_without_pydantic_a_clear_import_error(monkeypatch):
    ours._mirror.cache_clear()
    monkeypatch.setitem(sys.modules, 'pydantic', None)
    try:
        with pytest.raises(ImportError, match='needs pydantic: pip install pydantic'): ours.Thread.model_json_schema()
        assert ours.Thread(title='x').model_dump()['title']=='x' # the rest works without it
    finally: ours._mirror.cache_clear()

def test_fields_set_of_copies():
    "model_copy keeps the fields set, and counts the fields an update sets, as pydantic's"
    def run(mod):
        m = mod.Message(role='user', content='x', id='i'); t = mod.Thread(id='t'); a = mod.Attachment(filename='f')
        return [m.model_copy(update={'name': 'n', 'turn': 2}).model_fields_set, t.model_copy(update={'title': 'q'}).model_fields_set,
                t.model_copy(deep=True).model_fields_set, a.model_copy(update={'status': 'stored'}).model_fields_set, m.model_fields_set, t.model_fields_set]
    assert run(ours)==run(narrator)

def small(mod):
    t = mod.Thread(id='t', created_at=T0, updated_at=T0)
    t.add_message(mod.Message(id='u', role='user', content='q', timestamp=_ts(1)))
    t.add_message(mod.Message(id='a', role='assistant', content='r', timestamp=_ts(2), metrics={'model': 'm', 'usage': {'total_tokens': 3}}))
    return t

U = {'role': 'user', 'content': 'c', 'id': 'x', 'timestamp': T0}

validate_kw = {
    'strict': lambda mod: mod.Message.model_validate(U, strict=True).id,
    'context': lambda mod: mod.Message.model_validate(U, context={'k': 1}).id,
    'by_alias': lambda mod: mod.Message.model_validate(U, by_alias=True).id,
    'json_strict': lambda mod: mod.Message.model_validate_json('{"role":"user","content":"c","id":"x"}', strict=False).id,
    'json_data_kw': lambda mod: mod.Message.model_validate_json(json_data='{"role":"user","content":"c","id":"x"}').id,
    'thread_strict': lambda mod: mod.Thread.model_validate({'id': 't', 'created_at': T0, 'updated_at': T0}, strict=False, context=None).id,
    'unknown_kw': lambda mod: mod.Message.model_validate(U, nope=1),
    'include_str': lambda mod: small(mod).messages[0].model_dump(include='id'),
    'include_negative_index': lambda mod: small(mod).model_dump(include={'messages': {-1: {'id'}}}),
    'exclude_negative_index': lambda mod: [m['id'] for m in small(mod).model_dump(exclude={'messages': {-2}})['messages']],
    'copy_update_not_a_mapping': lambda mod: small(mod).messages[0].model_copy(update='x'),
}

@pytest.mark.parametrize('case', list(validate_kw))
def test_pydantic_keywords_as_narrator(case):
    "Keywords narrator's (pydantic's) methods take were a TypeError (`strict`, `context`, `json_data`), or gave another answer (`include='id'`, negative list indexes); a bad update a ValueError as there"
    assert ok_or_error(lambda: validate_kw[case](ours))==ok_or_error(lambda: validate_kw[case](narrator))

def test_from_attributes_reads_narrator_objects(tmp_path):
    "`model_validate(obj, from_attributes=True)` (a TypeError here) reads a narrator thread, its messages and attachments, into ours, and ours into narrator's: the way over from narrator"
    n = building(narrator)
    n.messages[1].add_attachment(b'hello', 'h.txt')
    t = Thread.model_validate(n, from_attributes=True)
    assert _norm(t.model_dump())==_norm(n.model_dump()) and t.messages[1].attachments[0].content==b'hello'
    assert {type(m) for m in t.messages}=={Message}
    assert Message.model_validate(n.messages[2], from_attributes=True).model_dump()==n.messages[2].model_dump()
    assert _norm(narrator.Thread.model_validate(t, from_attributes=True).model_dump())==_norm(t.model_dump())
    with pytest.raises(ValueError): Message.model_validate(n.messages[2]) # without it, as pydantic: a ValueError
    back = Thread.read(t.save(tmp_path/'moved.ipynb'))
    assert _norm(back.model_dump())==_norm(n.model_dump())

def rich(mod):
    t = building(mod)
    t.messages[2].add_attachment(b'hello', 'h.txt')
    t.add_message(mod.Message(id='z', role='user', content=None, timestamp=T0, attributes={}, reactions={}))
    return t

dump_kw = [dict(exclude_defaults=True), dict(exclude_defaults=True, mode='python'), dict(exclude_defaults=True, exclude_none=True),
           dict(exclude_defaults=True, include={'messages': {'__all__': {'id', 'metrics', 'attachments'}}}),
           dict(exclude_computed_fields=True), dict(polymorphic_serialization=None)]

@pytest.mark.parametrize('kw', dump_kw, ids=str)
def test_dump_options_as_narrator(kw):
    a,b = rich(ours),rich(narrator)
    assert _norm(a.model_dump(**kw))==_norm(b.model_dump(**kw))
    assert [m.model_dump(**kw) for m in a.messages]==[m.model_dump(**kw) for m in b.messages]
    jkw = {k:v for k,v in kw.items() if k!='mode'}
    assert _norm(json.loads(a.model_dump_json(**jkw)))==_norm(json.loads(b.model_dump_json(**jkw)))

def test_model_dump_json_ensure_ascii():
    "pydantic's `ensure_ascii` (a TypeError here) escapes non-ASCII text"
    for mk in (lambda mod: mod.Message(id='x', role='user', content='é ☃ 🧠', timestamp=T0, attributes={'ключ': 'значение'}),):
        assert mk(ours).model_dump_json(ensure_ascii=True)==mk(narrator).model_dump_json(ensure_ascii=True)
        assert mk(ours).model_dump_json(ensure_ascii=True, indent=2).isascii()
    a,b = rich(ours),rich(narrator)
    a.title = b.title = 'Тема'
    assert _norm(json.loads(a.model_dump_json(ensure_ascii=True)))==_norm(json.loads(b.model_dump_json(ensure_ascii=True))) and a.model_dump_json(ensure_ascii=True).isascii()

def test_exclude_unset_as_narrator():
    def run(mod):
        m = mod.Message(id='x', role='assistant', content='c', timestamp=T0, metrics={'model': 'm'})
        return m.model_dump(exclude_unset=True)
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('kw', [dict(exclude_none=True), dict(include={'filename', 'id'}), dict(exclude={'content'}), dict(exclude_defaults=True),
                                dict(exclude_computed_fields=True), dict(indent=2, ensure_ascii=True)], ids=str)
@pytest.mark.parametrize('content', [b'abc', 'é', None])
def test_attachment_dump_json_options(kw, content):
    "`Attachment.model_dump_json` took only `indent` (anything else a TypeError); narrator's takes pydantic's options"
    mk = lambda mod: mod.Attachment(filename='é.txt', content=content, attributes={'k': 'v'})
    assert mk(ours).model_dump_json(**kw)==mk(narrator).model_dump_json(**kw)

def subclasses(mod):
    "narrator's users extend its models the pydantic way: fields of their own, with defaults, factories, required ones"
    from pydantic import Field
    from typing import ClassVar, List, Optional
    class TicketThread(mod.Thread):
        priority: int = 0
        tags: List[str] = Field(default_factory=list)
        owner: Optional[str] = None
        kind: ClassVar[str] = 'ticket'
    class ScoredMessage(mod.Message):
        score: float = 0.0
        need: str
    return TicketThread, ScoredMessage

sub_cases = [dict(priority=2), dict(priority='3'), dict(priority='abc'), dict(tags=['a', 'b']), dict(tags='nope'), dict(owner='ann', bogus=1), {}]

def outcome(f):
    try: return f()
    except (ValueError, ValidationError) as e: return 'ValueError'

@pytest.mark.parametrize('kw', sub_cases)
def test_a_thread_subclass_keeps_its_own_fields(kw):
    "A thread subclass's own fields are taken, checked and dumped as narrator's (`model_dump()` without options is narrator's own shape, without them)"
    def run(mod):
        TT,_ = subclasses(mod)
        def go():
            t = TT(id='t', created_at=TS, updated_at=TS, **kw)
            js = json.loads(t.model_dump_json())
            return (t.priority, t.tags, t.owner, t.model_fields_set, sorted(t.model_dump()), js, t.model_dump(mode='json', exclude_defaults=True),
                    dict(t)['priority'], list(TT.model_fields)[-3:], t.model_copy().tags)
        return outcome(go)
    assert run(ours)==run(narrator)

msg_sub_cases = [dict(score=1.5, need='n'), dict(score='2', need='n'), dict(score='x', need='n'), dict(need='n'), dict(score=1.0), dict(need='n', bogus=1)]

@pytest.mark.parametrize('kw', msg_sub_cases)
def test_a_message_subclass_keeps_its_own_fields(kw):
    def run(mod):
        _,SM = subclasses(mod)
        def go():
            m = SM(role='user', content='x', id='m', timestamp=TS, **kw)
            return (m.score, m.need, m.model_fields_set, sorted(m.model_dump()), json.loads(m.model_dump_json()), m.model_dump(include={'score', 'need'}),
                    dict(m)['score'], m.model_copy().score, SM.model_construct(role='user').score)
        return outcome(go)
    assert run(ours)==run(narrator)

@pytest.mark.parametrize('val', [3.5, '4', 'abc'])
def test_a_message_subclass_field_is_checked_when_assigned(val):
    def run(mod):
        _,SM = subclasses(mod); m = SM(role='user', content='x', need='n')
        def go(): m.score = val; return m.score, 'score' in m.model_fields_set
        return outcome(go)
    assert run(ours)==run(narrator)

def test_a_subclass_schema_is_narrators():
    def run(mod):
        TT,SM = subclasses(mod)
        return strip(TT.model_json_schema()), strip(SM.model_json_schema())
    assert run(ours)==run(narrator)

def test_a_thread_dumps_its_messages_as_its_message_class():
    "A thread's dumps write its messages as the type it declares for them (pydantic's declared type): a subclass's message fields only when the thread's messages are of that class"
    TT,SM = subclasses(ours)
    m = SM(role='user', content='x', score=1.5, need='n')
    t = TT(); t.add_message(m)
    assert 'score' not in json.loads(t.model_dump_json())['messages'][0]
    class ScoredThread(ours.Thread): msg_cls = SM
    s = ScoredThread(); s.add_message(m)
    assert json.loads(s.model_dump_json())['messages'][0]['score']==1.5
    assert ScoredThread.model_validate_json(s.model_dump_json()).messages[0].score==1.5 # narrator 6.4.0 can't read its JSON times back: ours only
    u = TT(priority=4, tags=['x']); u.add_message(ours.Message(role='user', content='hi'))
    assert TT.model_validate_json(u.model_dump_json())==u and SM.model_validate_json(m.model_dump_json())==m

def no_prose(o):
    "A JSON schema without its descriptions (our docstrings are our own); narrator's `examples` kept"
    if isinstance(o, dict): return {k:no_prose(v) for k,v in o.items() if k!='description'}
    return [no_prose(v) for v in o] if isinstance(o, list) else o

@pytest.mark.parametrize('mode', ['validation', 'serialization'])
@pytest.mark.parametrize('name', ['Thread', 'Message', 'Attachment'])
def test_json_schema_carries_narrators_examples(name, mode):
    "narrator's schemas carry sample payloads (`examples`, at the top and under `$defs`), which OpenAPI docs show: ours the same"
    assert no_prose(getattr(ours, name).model_json_schema(mode=mode))==no_prose(getattr(narrator, name).model_json_schema(mode=mode))

def test_examples_in_a_users_model_and_subclasses():
    def run(mod):
        class Conversation(BaseModel): thread: mod.Thread
        TT,SM = subclasses(mod)
        s = Conversation.model_json_schema()
        return s['$defs']['Thread'].get('examples'), s['$defs']['Message'].get('examples'), TT.model_json_schema()['examples'], SM.model_json_schema()['examples']
    assert run(ours)==run(narrator)

def test_a_schemas_examples_are_its_own():
    "A caller changing the examples of one schema doesn't change the next"
    s = ours.Thread.model_json_schema(); s['examples'][0]['title'] = 'changed'
    assert ours.Thread.model_json_schema()['examples'][0]['title']=='Example Thread'

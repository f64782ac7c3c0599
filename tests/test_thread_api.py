"Differential tests of narrator's model API (attachments, pydantic calls, checks, analytics): the same calls on narrator 6.4.0 (the oracle) and on `dialog.thread`"
import asyncio, base64, json, math, pytest
from datetime import datetime, date, timedelta, timezone
narrator = pytest.importorskip('narrator', reason='slide-narrator, the oracle these tests compare with, needs Python 3.11 or newer')
from hypothesis import given, settings, strategies as st
import dialog.thread as ours
from thread_cases import T0, _ts, _norm, building, answers, outcome, PNG

def both(f, err=False):
    "`f(narrator)` and `f(dialog.thread)` give the same answer (or the same kind of error, where `err` allows one)"
    a,b = outcome(f, narrator),outcome(f, ours)
    assert a==b, (a, b)
    assert err or a not in ('ValueError', 'TypeError'), a
    return b

# --- 1. Attachment
names = ['a.png', 'a.txt', 'doc.pdf', 'data.json', 'x', 'x.csv', 'x.md', 'x.py', 'x.weird', 'é.txt', '']
contents = [PNG, b'hello', b'%PDF-1.4 hi', b'{"a": 1}', b'GIF89a....', b'\xff\xd8\xff\xe0 jpeg', b'RIFF\0\0\0\0WEBPVP8 ', b'PK\x03\x04', b'\x1f\x8b\x08',
            b'', 'aGVsbG8=', 'aGVsbG8', 'hé', 'not base64 !!', 'YQ==', base64.b64encode(PNG).decode(), None]

@pytest.mark.parametrize('fn', names)
@pytest.mark.parametrize('c', contents)
def test_attachment_id_mime_bytes(fn, c):
    def run(mod):
        a = mod.Attachment(filename=fn, content=c)
        before = a.mime_type
        a.detect_mime_type()
        return a.id, before, a.mime_type, outcome(lambda: asyncio.run(a.get_content_bytes())), a.model_dump(), a.model_dump(mode='python')
    both(run)

prefixes = [b'', b'\x89PNG', b'\xff\xd8\xff', b'GIF8', b'%PDF', b'PK\x03\x04', b'\x1f\x8b\x08', b'BM', b'ID3', b'OggS', b'fLaC', b'RIFF\0\0\0\0WAVE',
            b'RIFF\0\0\0\0WEBPVP8 ', b'%!PS', b'%!', b'BZh', b'MZ', b'{\\rtf', b'\x00\x00\x01\x00',
            b'\xff\xf1', b'\xff\xf9', b'\xff\xfb', b'\xff\xf3', b'\x1f\x9d', b'\x1f\xa0'] # AAC, MP3 frames (narrator needs a third byte), compress
exts = ['', '.png', '.txt', '.json', '.pdf', '.csv', '.md', '.py', '.jpg', '.gif', '.html', '.zip', '.xyz']
@given(st.tuples(st.text(max_size=6), st.sampled_from(exts)).map(''.join),
       st.one_of(st.tuples(st.sampled_from(prefixes), st.binary(max_size=12)).map(lambda t: t[0]+t[1]), st.text(max_size=30), st.none()))
@settings(max_examples=300, deadline=None)
def test_attachment_property(fn, c):
    def run(mod):
        a = mod.Attachment(filename=fn, content=c); a.detect_mime_type()
        return a.id, a.mime_type, outcome(lambda: asyncio.run(a.get_content_bytes()))
    both(run)

data_heads = ['data:', 'data:,', 'data:;base64,', 'data:image/png;base64,', 'data:text/plain,', 'data:image/png;base64']
@given(st.sampled_from(['', 'f.png', 'f.txt']), st.tuples(st.sampled_from(data_heads), st.sampled_from(['', base64.b64encode(PNG).decode(), 'aGk=', 'aGk', 'hi'])).map(''.join)
       | st.tuples(st.sampled_from(data_heads), st.text(alphabet='aGk=+/@,;: x', max_size=12)).map(''.join))
@settings(max_examples=300, deadline=None)
def test_data_url_content_as_narrator(fn, c):
    "A `data:` URL as content, well formed or not (no comma, no data, data that isn't base64): narrator's id, and its bytes or `ValueError` (we gave the base64 decoding of the URL's text, or the text itself); its type is found from those bytes (narrator reads the URL's text as base64 and finds no type: a difference on purpose)"
    def run(mod):
        a = mod.Attachment(filename=fn, content=c)
        return a.id, outcome(lambda: asyncio.run(a.get_content_bytes()))
    both(run)
    a = ours.Attachment(filename=fn, content=c); a.detect_mime_type()
    data = outcome(lambda: asyncio.run(a.get_content_bytes()))
    b = ours.Attachment(filename=fn, content=b'' if data=='ValueError' else data); b.detect_mime_type()
    assert a.mime_type==b.mime_type # the type of the URL's bytes (of none, for a URL they can't be read from)
    if data==PNG: assert a.mime_type=='image/png'

@pytest.mark.parametrize('kw', [dict(content=b'x'), dict(filename=5, content=b'x'), dict(filename='a', content=5), dict(filename='a', status='bad'),
    dict(filename='a', attributes=[1]), dict(filename='a', file_id=3), dict(filename='a', bogus=1), dict(filename='a', status='stored', mime_type='text/plain')])
def test_attachment_checks(kw):
    both(lambda mod: mod.Attachment(**kw).model_dump(), err=True)

def test_attachment_from_file_path(tmp_path):
    p = tmp_path/'pic.png'; p.write_bytes(PNG)
    def run(mod):
        a = mod.Attachment.from_file_path(p)
        return a.filename, a.mime_type, a.id, a.content==PNG, a.model_dump()
    both(run)
    for mod in (narrator, ours):
        with pytest.raises(FileNotFoundError, match='missing.png'): mod.Attachment.from_file_path(tmp_path/'missing.png')

def test_stored_attachment_needs_its_store():
    def run(mod):
        a = mod.Attachment(filename='a.txt', content=b'hi', file_id='f1')
        return outcome(lambda: asyncio.run(a.get_content_bytes())), outcome(lambda: asyncio.run(mod.Attachment(filename='a').get_content_bytes()))
    both(run)

def test_message_attachments():
    def run(mod):
        m = mod.Message(role='user', content='look', id='m', timestamp=T0, file_content=PNG, filename='p.png')
        m.add_attachment(b'hello', filename='h.txt'); m.add_attachment(mod.Attachment(filename='r.txt', content='aGk='), filename='ignored')
        res = [outcome(lambda: m.add_attachment(b'x')), outcome(lambda: m.add_attachment('str')), outcome(lambda: m.add_attachment(None))]
        m2 = mod.Message(role='user', content='x', id='m2', timestamp=T0, attachments=[{'filename': 'd.txt', 'content': 'aGk='}])
        return (res, m.model_dump(), [a.id for a in m.attachments], m2.model_dump(), [type(a).__name__.replace('Chat', '') for a in m2.attachments],
                outcome(lambda: mod.Message(role='user', file_content=b'x')), outcome(lambda: mod.Message(role='user', filename='x')),
                outcome(lambda: mod.Message(role='user', attachments=[5])), m.to_chat_completion_message())
    both(run)

def test_process_and_store_with_narrators_file_store(tmp_path):
    "Our attachments store into narrator's own `FileStore` as narrator's do, and read back through it"
    async def run(mod, base):
        fs = await narrator.FileStore.create(base_path=str(base))
        res = []
        for fn,c in [('p.png', PNG), ('h.txt', b'hello world'), ('d.json', b'{"a": 1}')]:
            a = mod.Attachment(filename=fn, content=c)
            await a.process_and_store(fs)
            d = a.model_dump()
            res.append((a.status, a.mime_type, a.content, d['storage_backend'], bool(a.file_id), await a.get_content_bytes(fs),
                        {k:v for k,v in (a.attributes or {}).items() if k not in ('url', 'storage_path')}))
            await a.process_and_store(fs) # stored already: nothing to do
        return res
    assert asyncio.run(run(narrator, tmp_path/'n'))==asyncio.run(run(ours, tmp_path/'o'))

def test_dialog_file_store():
    async def run():
        fs = ours.DialogFileStore()
        a = ours.Attachment(filename='p.png', content=PNG)
        await a.process_and_store(fs)
        assert (a.status, a.storage_backend, a.content, a.mime_type) == ('stored', 'dialog', None, 'image/png')
        assert a.attributes['url']==f'attachment:{a.file_id}' and a.attributes['type']=='image'
        assert await a.get_content_bytes(fs)==PNG and fs.files[a.file_id][0]==PNG
        with pytest.raises(ValueError, match='FileStore instance required'): await a.get_content_bytes()
        await fs.delete(a.file_id)
        with pytest.raises(FileNotFoundError, match=a.file_id): await fs.get(a.file_id)
        b = ours.Attachment(filename='b.txt', content=None)
        with pytest.raises(RuntimeError, match='Cannot process attachment b.txt: no content provided'): await b.process_and_store(fs)
        assert b.status=='failed'
    asyncio.run(run())

# --- 2. pydantic's model API
def test_model_dump_default_is_json():
    def run(mod):
        t = building(mod)
        return _norm(t.model_dump()), json.dumps(_norm(t.model_dump())) is not None, t.to_dict()==t.model_dump(), _norm(t.to_dict(mode='python'))
    both(run)

includes = [dict(include={'id', 'title'}), dict(exclude={'messages'}), dict(include={'messages': {0: {'id'}}}), dict(include={'messages': {'__all__': {'id', 'role'}}}),
            dict(exclude={'messages': {'__all__': {'metrics', 'timestamp'}}}), dict(include={'messages': {1: True}}), dict(exclude_none=True),
            dict(include={'messages': {'__all__': {'metrics': {'usage'}}}}), dict(mode='python', include={'id', 'created_at'}), dict(exclude={'messages': True, 'created_at': ...})]

@pytest.mark.parametrize('kw', includes)
def test_thread_include_exclude(kw):
    both(lambda mod: _norm(building(mod).model_dump(**kw)))

@pytest.mark.parametrize('kw', [dict(include={'id', 'role', 'timestamp'}), dict(exclude={'metrics'}), dict(include={'metrics': {'model', 'usage'}}), dict(exclude_none=True),
                                dict(include={'tool_calls': {0: {'function'}}}), dict(mode='python', exclude={'content'})])
def test_message_include_exclude(kw):
    both(lambda mod: building(mod).get_message_by_id('a1').model_dump(**kw))

@pytest.mark.parametrize('indent', [None, 0, 1, 2, 4])
def test_model_dump_json_indent(indent):
    both(lambda mod: _norm(json.loads(building(mod).model_dump_json(indent=indent))) and building(mod).get_message_by_id('a3').model_dump_json(indent=indent))

def test_model_dump_json_values_json_cant_hold():
    def run(mod):
        m = mod.Message(role='assistant', content='x', id='m', timestamp=T0, attributes={'t': T0, 'd': date(2024, 1, 2), 'n': float('nan'), 'i': float('inf'), 'b': b'by', 'l': (1, 2)},
                        metrics={'model': 'g', 'timing': {'started_at': T0+timedelta(microseconds=5), 'latency': float('nan')}}, source={'id': 's', 'attributes': {'at': T0}})
        return m.model_dump_json(), m.model_dump_json(indent=2), m.model_dump(exclude_none=True), m.model_dump(mode='python')['attributes']['n'] is not None
    r = both(run)
    assert 'NaN' not in r[0] and 'Infinity' not in r[0]

def _jsonify(d):
    "A dump whose ISO times narrator 6.4.0 can't read (it needs datetimes) given as datetimes"
    if isinstance(d, dict): return {k:(datetime.fromisoformat(v) if k in ('timestamp', 'created_at', 'updated_at') and isinstance(v, str) else _jsonify(v)) for k,v in d.items()}
    return [_jsonify(o) for o in d] if isinstance(d, list) else d

def test_model_validate_round_trips():
    def run(mod):
        t = building(mod)
        d = t.model_dump(mode='python')
        t2,t3 = mod.Thread.model_validate(d),mod.Thread(**d)
        m = mod.Message.model_validate(_jsonify(t.messages[2].model_dump()))
        return t2==t, t3==t, _norm(t2.model_dump()), m.model_dump(), m==t.messages[2], outcome(lambda: mod.Message.model_validate({'content': 'x'})), outcome(lambda: mod.Message.model_validate({'role': 'user', 'bogus': 1})), outcome(lambda: mod.Message.model_validate(5))
    both(run)
    t = building(ours)
    for src in (t.model_dump(), t.model_dump_json(), json.loads(t.model_dump_json()), t.model_dump_json(indent=2)): # ISO text too, which narrator can't read
        back = ours.Thread.model_validate(src)
        assert back==t and back.messages[1].timestamp.tzinfo is not None and type(back.messages[0]) is ours.Message
    assert ours.Thread(**t.model_dump())==t and ours.Message.model_validate(t.messages[1].model_dump_json())==t.messages[1]
    with pytest.raises(ValueError, match='not JSON'): ours.Thread.model_validate('{nope')
    with pytest.raises(ValueError, match="message 1: message 'x': role must be one of"): ours.Thread(messages=[{'role': 'user'}, {'role': 'bot', 'id': 'x'}])

def test_thread_fields_checked():
    for kw in [dict(title=5), dict(id=5), dict(messages=['x']), dict(attributes=[]), dict(platforms={'a': {'b': 1}}), dict(bogus=1), dict(title=None)]:
        both(lambda mod: _norm(mod.Thread(**kw).model_dump()) | {'id': None}, err=True)

def test_model_copy():
    def run(mod):
        t4 = mod.Thread(id='t4')
        for i in range(3): t4.add_message(mod.Message(role='user', content=str(i), id=f'r{i}', timestamp=T0))
        t6 = t4.model_copy(deep=True); t6.add_message(mod.Message(role='user', content='d', id='d', timestamp=T0)); t6.messages[0].turn = 9
        t4.add_message(mod.Message(role='user', content='e', id='e', timestamp=T0))
        t7 = t4.model_copy(); t7.messages[0].turn = 20; t4.add_message(mod.Message(role='user', content='f', id='f', timestamp=T0))
        t8 = t4.model_copy(update={'title': 'new'})
        m = t4.messages[1]; mc = m.model_copy(update={'content': 'zz'}); md = m.model_copy(deep=True); md.attributes['x'] = 1
        return ([(x.id, x.sequence, x.turn) for x in t4.messages], [(x.id, x.sequence, x.turn) for x in t6.messages], t8.title, t4.title,
                mc.content, m.content, mc.id==m.id, m.attributes)
    both(run)

# --- 3. keywords and sources
def test_file_store_keywords_accepted():
    def run(mod):
        t = building(mod)
        return asyncio.run(t.get_messages_for_chat_completion(file_store=None)), [m.to_chat_completion_message(file_store=None) for m in t.messages]
    both(run)

sources = [{'id': 'a', 'name': 'n', 'type': 'agent', 'attributes': {'k': 1}}, {'id': 'a'}, {'id': 'a', 'attributes': None}, {'id': ''},
           {'attributes': {'k': 1}, 'type': 'tool', 'name': 'n', 'id': 'z'}, {'id': 'a', 'type': 'user', 'extra': 1}, {'name': 'x'}, {'id': 5},
           {'id': 'a', 'name': None}, {'entity': {'id': 'x'}}, 'str', {'id': 'a', 'type': 'robot'}, {'id': 'a', 'attributes': []}]

@pytest.mark.parametrize('src', sources)
def test_entity_source(src):
    def run(mod):
        m = mod.Message(role='assistant', content='x', source=src, id='m', timestamp=T0)
        return m.source, m.model_dump()['source'], json.loads(m.model_dump_json())['source']
    both(run, err=True)

# --- 4. assignment
assignments = [('timestamp', datetime(2024, 1, 1)), ('timestamp', datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=2)))), ('content', 5), ('content', None),
    ('content', [{'type': 'text', 'text': 'a'}]), ('content', [{'type': 'bad'}]), ('content', ['s']), ('content', [{'type': 'image_url', 'image_url': {'url': 'data:x'}}]),
    ('tool_calls', 'x'), ('tool_calls', [{'id': 'a'}]), ('tool_calls', []), ('role', 'bot'), ('role', 'tool'), ('role', 'assistant'), ('sequence', '3'), ('sequence', 3.0),
    ('sequence', 3.5), ('turn', None), ('turn', True), ('id', 5), ('id', 'new'), ('name', 5), ('attributes', None), ('attributes', []), ('attributes', {'a': 1}),
    ('platforms', {'a': {'b': 1}}), ('platforms', {'a': {'b': 'c'}}), ('platforms', {'a': 'b'}), ('reactions', {'x': 'u'}), ('reactions', {'x': ['u']}), ('reactions', {'x': [1]}),
    ('metrics', None), ('metrics', {}), ('source', {'name': 'x'}), ('source', {'id': 'a', 'attributes': {}}), ('source', None),
    ('attachments', [{'filename': 'a.txt', 'content': 'aGk='}]), ('attachments', None), ('attachments', ['x']), ('bogus', 1), ('tool_call_id', None), ('reasoning_content', 3)]

@pytest.mark.parametrize('k,v', assignments)
def test_validate_assignment(k, v):
    def run(mod):
        m = mod.Message(role='user', content='x', id='m', timestamp=T0)
        r = outcome(lambda: setattr(m, k, v))
        return r, m.model_dump(exclude={'attachments'}) if r is None else None
    both(run)

def test_tool_message_keeps_its_call_id():
    def run(mod):
        m = mod.Message(role='tool', content='x', tool_call_id='c', id='m', timestamp=T0)
        return outcome(lambda: setattr(m, 'tool_call_id', None)), outcome(lambda: setattr(m, 'tool_call_id', '')), outcome(lambda: setattr(m, 'role', 'user'))
    both(run)

bad_construct = [dict(), dict(content='x'), dict(role='user', bogus=1), dict(role='user', metrics=None), dict(role='user', attributes=None), dict(role='user', platforms=None),
    dict(role='user', reactions=None), dict(role='user', attachments=None), dict(role='user', id=None), dict(role='user', content=[]), dict(role='user', content=[{'type': 'text'}]),
    dict(role='user', sequence='x'), dict(role='user', turn=2.5), dict(role='user', reactions={'x': 'u'})]

@pytest.mark.parametrize('kw', bad_construct)
def test_construction_checks(kw):
    both(lambda mod: mod.Message(**(dict(timestamp=T0, id='m') | kw)).model_dump(), err=True)

def test_errors_quote_user_data_cut_short():
    big = 'x'*100_000
    for f in [lambda: ours.Message(role=big), lambda: ours.Message(role='user', content={'a': big}), lambda: ours.Message(role='user', source={'id': 'a', big: 1}),
              lambda: ours.Message(role='user', tool_calls=[{'id': big}]), lambda: ours.Thread(title=big*0+'t', attributes=[big]), lambda: ours.Message(role='user', **{big: 1}),
              lambda: setattr(ours.Message(role='user'), 'content', [big]), lambda: ours.Thread.model_validate(big), lambda: ours.Attachment(filename='a', content=[big])]:
        with pytest.raises(ValueError) as e: f()
        assert len(str(e.value))<400, len(str(e.value))

# --- 5. the same answers on the same data
def test_tokens_and_model_usage():
    def run(mod):
        t = mod.Thread(id='t')
        for i,met in enumerate([{'model': 'g'}, {'model': 'h', 'usage': {}}, {'model': '', 'usage': {'total_tokens': 3}}, {'model': None, 'usage': {'prompt_tokens': 2}}, {}]):
            t.add_message(mod.Message(role='assistant', content='a', metrics=met, id=str(i), timestamp=T0))
        return t.get_total_tokens(), t.get_model_usage(), t.get_model_usage(''), t.get_model_usage('g'), t.get_model_usage('nope'), t.get_model_usage(None)
    both(run)

def test_tool_usage_and_chat_fields_by_role():
    def run(mod):
        tc = [{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]
        t = mod.Thread(id='t2')
        for r in ('user', 'tool', 'assistant', 'system'):
            t.add_message(mod.Message(role=r, content='x', tool_call_id='zz', name=r, tool_calls=tc, id=r, timestamp=T0))
        t.add_message(mod.Message(role='assistant', content='y', tool_calls=[], name='', tool_call_id='', id='e', timestamp=T0))
        return t.get_tool_usage(), asyncio.run(t.get_messages_for_chat_completion()), [m.to_chat_completion_message() for m in t.messages]
    both(run)

def test_sequence_and_turn_orders_with_gaps():
    def run(mod):
        t = mod.Thread(id='t3')
        for i,(s,tn) in enumerate([(5, 2), (None, 1), (2, 2), (None, None), (1, 1), (3, 2), (0, 0), (4, None)]):
            m = mod.Message(role='user' if i!=6 else 'system', content=f'c{i}', id=f'm{i}', timestamp=_ts(10-i)); t.messages.append(m); m.sequence = s; m.turn = tn
        return ({n: [m.id for m in t.get_messages_by_turn(n)] for n in (None, 0, 1, 2)}, [m.id for m in t.get_messages_in_sequence()],
                t.get_turns_summary(), t.get_current_turn())
    both(run)

@given(st.lists(st.tuples(st.sampled_from(['user', 'assistant', 'system', 'tool']), st.one_of(st.none(), st.integers(0, 6)), st.one_of(st.none(), st.integers(0, 6))), max_size=10))
@settings(max_examples=200, deadline=None)
def test_orders_property(rows):
    def run(mod):
        t = mod.Thread(id='p')
        for i,(r,s,tn) in enumerate(rows):
            m = mod.Message(role=r, content=f'c{i}', id=f'm{i}', timestamp=_ts(i*7%5), tool_call_id='c'); t.messages.append(m); m.sequence = s; m.turn = tn
        return ({n: [m.id for m in t.get_messages_by_turn(n)] for n in (None, 0, 1, 2, 3)}, [m.id for m in t.get_messages_in_sequence()],
                t.get_turns_summary(), outcome(t.get_current_turn))
    a,b = outcome(run, narrator),outcome(run, ours)
    if a[3]=='ValueError': # narrator fails when messages are there but none has a turn; ours says 0, as for an empty thread
        assert b[3]==0 and not any(r[0]!='system' and r[2] is not None for r in rows); a = a[:3]+(0,)
    assert a==b

def test_tool_calls_normalised_and_empty_fields():
    def run(mod):
        m = mod.Message(role='assistant', content='', tool_calls=[{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}', 'x': 1}, 'extra': 1, 'index': 0}],
                        id='x', timestamp=T0, name='', reasoning_content='', attributes={})
        return m.model_dump(), json.loads(m.model_dump_json()), m.to_chat_completion_message()
    both(run)

def test_value_equality():
    def run(mod):
        a,b,c = [mod.Message(role='user', content=x, id='q', timestamp=T0) for x in 'xxy']
        ta,tb = mod.Thread(id='z', created_at=T0, updated_at=T0),mod.Thread(id='z', created_at=T0, updated_at=T0)
        ta.add_message(a); ta.updated_at = T0
        tb.add_message(b); tb.updated_at = T0
        return a==b, a==c, a in [c, b], a!=b, outcome(lambda: hash(a)) if False else None, ta==tb, [c, b].index(a), a==5
    both(run)
    with pytest.raises(TypeError): hash(ours.Message(role='user'))

def test_relinked_message_numbering():
    "A message added to a second thread (or shared by a shallow copy) renumbered through one is seen by both, as narrator recomputes from the messages"
    def run(mod):
        t1,t2 = mod.Thread(id='a'),mod.Thread(id='b')
        for i in range(3): t1.add_message(mod.Message(role='user', content=str(i), id=f'm{i}', timestamp=T0))
        t2.add_message(t1.messages[2]); t2.add_message(mod.Message(role='user', content='n', id='n', timestamp=T0))
        t1.add_message(mod.Message(role='user', content='x', id='x', timestamp=T0))
        t2.messages[0].turn = 30
        t1.add_message(mod.Message(role='user', content='y', id='y', timestamp=T0))
        t3 = t1.model_copy(); t3.messages[0].turn = 50; t1.add_message(mod.Message(role='user', content='z', id='z', timestamp=T0))
        return [(m.id, m.sequence, m.turn) for m in t1.messages], [(m.id, m.sequence, m.turn) for m in t2.messages], t1.get_current_turn(), t2.get_current_turn()
    both(run)

@pytest.mark.parametrize('pre', [(None, None), (7, None), (None, 7), (7, 7), (0, 0)])
@pytest.mark.parametrize('same', [False, True])
@pytest.mark.parametrize('before', [[], ['user'], ['system'], ['user', 'assistant']])
def test_preset_numbers(pre, same, before):
    def run(mod):
        t = mod.Thread()
        for r in before: t.add_message(mod.Message(role=r, content='x', timestamp=T0))
        t.add_message(mod.Message(role='assistant', content='x', timestamp=T0, sequence=pre[0], turn=pre[1]), same_turn=same)
        t.add_message(mod.Message(role='user', content='y', timestamp=T0))
        return [(x.role, x.sequence, x.turn) for x in t.messages]
    both(run)

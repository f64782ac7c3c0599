"A thread's notebook as people edit it: their cells, metadata, files and edits survive every save; threads of one file see one file state; files and images"
import asyncio, base64, copy, json, pytest
from datetime import timedelta
from pathlib import Path
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import Dialog, tiny_png
from dialog.ipynb import read_ipynb, DialogConflictError
from dialog.chat import dlg2chat, tool_block
from dialog.thread import Thread, Message, Attachment, DialogFileStore
from thread_cases import T0, _ts, building, answers, PNG

def saved(tmp_path, t=None):
    t = building(__import__('dialog.thread', fromlist=['x'])) if t is None else t
    return t, t.save(tmp_path/'t.ipynb')

def cells(p): return json.loads(Path(p).read_text())['cells']

def person_adds(p, at, kind, text, **meta):
    "Insert a cell at `at` the way a person does in Jupyter: straight into the file's JSON"
    nb = json.loads(Path(p).read_text())
    c = {'cell_type': kind, 'id': f'p{len(nb["cells"])}{at}x', 'metadata': meta, 'source': text}
    if kind=='code': c |= {'execution_count': None, 'outputs': []}
    nb['cells'].insert(at, c)
    Path(p).write_text(json.dumps(nb, indent=1))
    return c['id']

def ids(p): return [c['id'] for c in cells(p)]

# --- 6. cells a person adds are kept, in place
@pytest.mark.parametrize('kind,meta', [('raw', {}), ('markdown', {'skipped': True}), ('markdown', {}), ('code', {'skipped': True}), ('raw', {'tags': ['x']})])
@pytest.mark.parametrize('at', [0, 1, 2, 3])
def test_foreign_cells_kept_in_place(tmp_path, kind, meta, at):
    t,p = saved(tmp_path)
    cid = person_adds(p, at, kind, 'a person wrote this', **meta)
    want = ids(p)
    back = Thread.read(p); back.save()
    assert ids(p)==want # kept by a save with no changes, where it was
    back.add_message(Message(role='user', content='more')); back.add_reaction('a1', 'heart', 'cy'); back.save()
    got = ids(p)
    assert got[:len(want)]==want and got.index(cid)==at # and by saves with changes
    assert ''.join([c for c in cells(p) if c['id']==cid][0]['source'])=='a person wrote this'
    again = Thread.read(p)
    assert answers(again)==answers(back) and again.model_dump()==back.model_dump()

def test_inserted_prompt_gets_numbers_never_repeated(tmp_path):
    t,p = saved(tmp_path)
    dlg = read_ipynb(p)
    dlg.mk_message('A question a person typed', idx=1, msg_type='prompt', output='Its answer.')
    dlg.mk_message('# A note', idx=0, msg_type='note')
    dlg.save()
    back = Thread.read(p)
    nums = [(m.sequence) for m in back.messages if m.role!='system']
    assert len(set(nums))==len(nums), nums
    assert len({(m.turn) for m in back.messages if m.role=='user'})==sum(m.role=='user' for m in back.messages)
    assert 'A question a person typed' in [m.content for m in back.messages if m.role=='user']
    back.add_message(Message(role='user', content='next')); back.save()
    again = Thread.read(p)
    assert again.model_dump()==back.model_dump() and answers(again)==answers(back)
    assert [c['cell_type'] for c in cells(p)][:2]==['markdown', 'code']

def test_removed_thread_cell_leaves_foreign_cells(tmp_path):
    t,p = saved(tmp_path)
    person_adds(p, 2, 'raw', 'keep me')
    back = Thread.read(p)
    back.messages = [m for m in back.messages if m.id not in ('u2', 'a3', 't2', 't3', 'a4')] # the cell before the raw one goes
    back.save()
    assert 'keep me' in [''.join(c['source']) for c in cells(p)]

# --- 7. a thread cell's metadata, files and edits survive
def test_cell_metadata_and_pasted_files_survive(tmp_path):
    t,p = saved(tmp_path)
    nb = json.loads(Path(p).read_text())
    c = nb['cells'][1]; cid = c['id']
    c['metadata'] |= {'tags': ['keep'], 'pinned': True, 'skipped': False, 'collapsed': True, 'host_key': {'a': 1}}
    nb['metadata'].setdefault('attachments', {})[cid] = {'pasted.png': {'image/png': base64.b64encode(tiny_png).decode()}}
    Path(p).write_text(json.dumps(nb, indent=1))
    back = Thread.read(p); back.save()
    back.add_reaction('a3', 'x', 'u'); back.add_message(Message(role='user', content='later')); back.save()
    nb2 = json.loads(Path(p).read_text())
    c2 = [c for c in nb2['cells'] if c['id']==cid][0]
    for k,v in dict(tags=['keep'], pinned=True, skipped=False, collapsed=True, host_key={'a': 1}).items(): assert c2['metadata'][k]==v, k
    assert 'pasted.png' in nb2['metadata']['attachments'][cid]
    assert Thread.read(p).get_reactions('a3')=={'x': ['u']}

def edit_reply(p, i, f):
    nb = json.loads(Path(p).read_text())
    outs = nb['cells'][i]['outputs']
    o = [o for o in outs if o.get('metadata', {}).get('is_ai_res')][0]
    md = o['data']['text/markdown']; md = ''.join(md) if isinstance(md, list) else md
    o['data']['text/markdown'] = f(md)
    Path(p).write_text(json.dumps(nb, indent=1))

@pytest.mark.parametrize('edit', ['text', 'result', 'structure', 'all'])
def test_reply_edits_win(tmp_path, edit):
    t,p = saved(tmp_path)
    def f(md):
        if edit=='text': return md.replace('Checking both.', 'Checking the cable and the monitor.')
        if edit=='result': return md.replace('Cable loose', 'Cable unplugged')
        if edit=='structure': return md.split('<details')[0] + 'I cut the tool calls out.'
        return 'A reply a person rewrote.'
    edit_reply(p, 1, f)
    written = read_ipynb(p).messages[1].ai_res
    back = Thread.read(p)
    assert read_ipynb(back.save()).messages[1].ai_res==written # what the person wrote is what the next save keeps
    back.add_message(Message(role='user', content='ok')); back.save()
    assert read_ipynb(p).messages[1].ai_res==written
    again = Thread.read(p)
    assert again.model_dump()==back.model_dump()
    texts = ' '.join(m.content for m in again.messages if isinstance(m.content, str))
    if edit=='text': assert 'Checking the cable and the monitor.' in texts and again.get_message_by_id('a3').metrics==t.get_message_by_id('a3').metrics
    if edit=='result': assert again.get_message_by_id('t2').content=='Cable unplugged' and again.get_tool_usage()==t.get_tool_usage()
    if edit in ('structure', 'all'): assert again.get_message_by_id('a3').content==written and again.get_message_by_id('t2') is None

def test_prompt_text_edit_wins(tmp_path):
    t,p = saved(tmp_path)
    dlg = read_ipynb(p); dlg.messages[0].content = 'My screen is black, what now?'; dlg.save()
    back = Thread.read(p)
    assert back.get_message_by_id('u1').content=='My screen is black, what now?' and back.get_message_by_id('u1').source==t.get_message_by_id('u1').source

# --- 8. one file state
def test_threads_of_one_dialog_see_one_file_state(tmp_path):
    t,p = saved(tmp_path)
    t1 = Thread.read(p)
    t2 = Thread.from_dialog(t1.dialog)
    t1.add_message(Message(role='user', content='from t1')); t1.save()
    t2.add_message(Message(role='user', content='from t2'))
    with pytest.raises(DialogConflictError, match='changed on disk'): t2.save()
    assert Thread.read(p).messages[-1].content=='from t1'
    t3 = Thread.from_dialog(t1.dialog) # made after t1's save: sees it
    t3.add_message(Message(role='user', content='from t3')); t3.save()
    with pytest.raises(DialogConflictError): t1.save()
    t1.dialog.save(force=True) if False else None
    t2.save(force=True)
    assert Thread.read(p).messages[-1].content=='from t2'

def test_dialog_save_then_thread_save_conflicts(tmp_path):
    t,p = saved(tmp_path)
    a,b = Thread.read(p),Thread.read(p)
    d = a.dialog; d.mk_message('a note', msg_type='note'); d.save()
    b.add_message(Message(role='user', content='x'))
    with pytest.raises(DialogConflictError): b.save()

# --- 1, 9. files in the dialog, a user's image shown and sent
def test_user_text_and_image(tmp_path):
    t = Thread(id='img')
    m = Message(role='user', content='What is in this picture?', id='u', timestamp=T0)
    m.add_attachment(PNG, filename='pic.png')
    t.add_message(m); t.add_message(Message(role='assistant', content='A dot.', id='a', timestamp=T0))
    p = t.save(tmp_path/'img.ipynb')
    c = read_ipynb(p).messages[0]
    assert c.content.startswith('What is in this picture?') and f'(attachment:{m.attachments[0].id})' in c.content
    assert [a.data for a in c.attachments]==[PNG]
    oa = dlg2chat(read_ipynb(p))
    parts = oa[0]['content']
    assert parts[0]=={'type': 'text', 'text': 'What is in this picture?'} and parts[1]['type']=='image_url' and base64.b64encode(PNG).decode() in parts[1]['image_url']['url']
    back = Thread.read(p)
    assert back.messages[0].content=='What is in this picture?' and back.messages[0].attachments[0].content==PNG
    assert back.model_dump()==t.model_dump() and json.loads(back.model_dump_json())==json.loads(t.model_dump_json())
    back.save(); assert Thread.read(p).model_dump()==t.model_dump()

@pytest.mark.parametrize('typed,want', [('\nIs it round?', 'What is this?\n\nIs it round?'), ('\n\nIs it round?', 'What is this?\n\nIs it round?'),
                                        ('', 'What is this?')])
def test_line_typed_after_a_prompts_image(tmp_path, typed, want):
    "A person types a line after the image a prompt shows (where the cursor lands): the image's reference became part of the user's text, and each save added it again"
    t = Thread(id='img'); m = Message(role='user', content='What is this?', id='u', timestamp=T0); m.add_attachment(PNG, filename='dot.png')
    t.add_message(m); t.add_message(Message(role='assistant', content='A dot.', id='a', timestamp=T0))
    p = t.save(tmp_path/'img.ipynb')
    nb = json.loads(p.read_text()); c = nb['cells'][0]; c['source'] = ''.join(c['source'])+typed; p.write_text(json.dumps(nb))
    b = Thread.read(p)
    assert b.messages[0].content==want and b.messages[0].attachments[0].content==PNG
    b.save(); b.save(force=True)
    src = ''.join(cells(p)[0]['source'])
    assert src.count('](attachment:')==1 and Thread.read(p).messages[0].content==want

@pytest.mark.parametrize('content', [PNG, b'plain bytes', base64.b64encode(b'hello').decode(), 'just text', None])
def test_attachment_contents_survive(tmp_path, content):
    t = Thread(id='att')
    m = Message(role='assistant', content='here', id='a', timestamp=T0, attachments=[Attachment(filename='f.bin', content=content, attributes={'k': 1}, mime_type='application/x-test')])
    t.add_message(Message(role='user', content='give', id='u', timestamp=T0)); t.add_message(m)
    back = Thread.read(t.save(tmp_path/'a.ipynb'))
    a = back.messages[1].attachments[0]
    assert a.content==content and type(a.content)==type(content) and a.model_dump()==m.attachments[0].model_dump() and a.id==m.attachments[0].id

def test_files_kept_in_the_dialog_store(tmp_path):
    t = Thread(id='store')
    m = Message(role='user', content='my report', id='u', timestamp=T0)
    m.add_attachment(b'%PDF-1.4 the report', filename='report.pdf'); m.add_attachment(PNG, filename='chart.png')
    async def store():
        for a in m.attachments: await a.process_and_store(t.file_store)
    asyncio.run(store())
    t.add_message(m)
    assert all(a.content is None and a.status=='stored' for a in m.attachments)
    p = t.save(tmp_path/'s.ipynb')
    c = read_ipynb(p).messages[0]
    assert sorted(a.data for a in c.attachments)==sorted([b'%PDF-1.4 the report', PNG]) # the bytes are in the file
    assert '(attachment:' in c.content and c.content.count('![')==1 # the image shows; the PDF is an attachment only
    back = Thread.read(p)
    got = asyncio.run(back.messages[0].attachments[1].get_content_bytes(back.file_store))
    assert got==PNG and back.model_dump()==t.model_dump()
    assert isinstance(back.file_store, DialogFileStore)

def test_empty_fields_survive(tmp_path):
    t = Thread(id='e')
    t.add_message(Message(role='user', content='', id='u', timestamp=T0, name=''))
    t.add_message(Message(role='assistant', content='', id='a', timestamp=T0, tool_calls=[], reasoning_content='', name=''))
    t.add_message(Message(role='assistant', content=None, id='b', timestamp=T0, tool_calls=[{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]))
    t.add_message(Message(role='tool', content='', id='t', timestamp=T0, tool_call_id='c', name=''), same_turn=True)
    back = Thread.read(t.save(tmp_path/'e.ipynb'))
    for x,y in zip(back.messages, t.messages):
        assert (x.content, x.name, x.tool_calls, x.reasoning_content)==(y.content, y.name, y.tool_calls, y.reasoning_content)
    assert json.loads(back.model_dump_json())==json.loads(t.model_dump_json())

# --- property: random threads, foreign cells, edited replies and metadata survive
roles = st.sampled_from(['user', 'assistant', 'assistant', 'tool', 'system'])
@st.composite
def threads(draw):
    t = Thread(id='prop', title='P', created_at=T0)
    for i,r in enumerate(draw(st.lists(roles, min_size=1, max_size=12))):
        kw = dict(id=f'm{i}', role=r, timestamp=_ts(i), content=draw(st.sampled_from([f'c{i}', '', None, f'line\n\nc{i}'])) if r!='user' else f'q{i}')
        if r=='tool': kw['tool_call_id'] = f'call{i-1}'
        if r=='assistant' and draw(st.booleans()): kw['tool_calls'] = [{'id': f'call{i}', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"x": 1}'}}]
        if r=='assistant': kw['metrics'] = {'model': draw(st.sampled_from(['a', 'b'])), 'timing': {'latency': i}, 'usage': {'total_tokens': i}}
        if draw(st.booleans()): kw['attributes'] = {'k': i}
        t.add_message(Message(**kw), same_turn=draw(st.booleans()))
    return t

@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(t=threads(), extra=st.lists(st.tuples(st.integers(0, 20), st.sampled_from(['raw', 'markdown', 'code']), st.booleans()), max_size=4),
       meta=st.fixed_dictionaries({}, optional={'tags': st.just(['keep']), 'pinned': st.booleans(), 'collapsed': st.booleans(), 'host': st.sampled_from([1, {'x': [1]}, 'v'])}),
       edit=st.booleans())
def test_property_edits_survive(tmp_path_factory, t, extra, meta, edit):
    p = t.save(tmp_path_factory.mktemp('p')/'t.ipynb')
    n = len(cells(p))
    added = []
    for at,kind,skip in extra: added.append(person_adds(p, min(at, len(cells(p))), kind, f'person {kind}', **({'skipped': True} if skip or kind=='code' else {})))
    nb = json.loads(Path(p).read_text())
    thread_cells = [c for c in nb['cells'] if c['id'] not in added]
    if thread_cells: thread_cells[0]['metadata'] |= meta
    Path(p).write_text(json.dumps(nb, indent=1))
    if edit and thread_cells:
        i = [c['id'] for c in nb['cells']].index(thread_cells[-1]['id'])
        if any(o.get('metadata', {}).get('is_ai_res') for o in nb['cells'][i].get('outputs', [])): edit_reply(p, i, lambda md: md+'\n\nA person added this.')
    before = ids(p)
    a = Thread.read(p); a.save()
    assert ids(p)==before
    b = Thread.read(p)
    assert answers_of(a)==answers_of(b) and a.model_dump()==b.model_dump() and json.loads(a.model_dump_json())==json.loads(b.model_dump_json())
    b.add_message(Message(role='user', content='new', id='new', timestamp=_ts(99))); b.save()
    after = ids(p)
    assert [i for i in after if i in before]==before # every cell kept, in order
    c = Thread.read(p)
    assert answers_of(c)==answers_of(b) and c.model_dump()==b.model_dump()
    if thread_cells and meta: assert {k:v for k,v in [x for x in cells(p) if x['id']==thread_cells[0]['id']][0]['metadata'].items() if k in meta}==meta

def answers_of(t):
    return (t.get_total_tokens(), t.get_model_usage(), t.get_message_counts(), t.get_message_timing_stats(), t.get_tool_usage(), t.get_turns_summary(),
            t.get_current_turn(), [m.id for m in t.get_messages_in_sequence()], asyncio.run(t.get_messages_for_chat_completion()))

@pytest.mark.parametrize('field,value', [('role', 'x'*100_000), ('content', ['y'*100_000]), ('id', 5), ('timestamp', 'z'*100_000), ('attachments', [{'filename': 'a', 'status': 'q'*100_000}]),
                                         ('bogus'*20_000, 1), ('metrics', {'usage': 'u'*100_000})])
def test_bad_records_say_where_cut_short(tmp_path, field, value):
    t,p = saved(tmp_path)
    nb = json.loads(Path(p).read_text())
    nb['cells'][1]['metadata']['dialog']['thread'][1][field] = value
    Path(p).write_text(json.dumps(nb))
    with pytest.raises(ValueError) as e: Thread.read(p)
    msg = str(e.value)
    assert 'cell 1' in msg and 'record 1' in msg and ("'a3'" in msg or field=='id') and len(msg)<500, (len(msg), msg[:300])

def test_a_prompt_deleted_and_asked_again_is_unanswered(tmp_path):
    "A notebook made elsewhere (real cell ids), read as a thread that reacts to a reply; a person deletes that prompt and types it again, not run: the new prompt is unanswered, the old reply and reaction gone (no tool renumbered the ids)"
    from dialog.core import prompt_output
    q = tmp_path/'notes.ipynb'; dl = Dialog('notes')
    dl.mk_message('Hi!', msg_type='prompt', output=prompt_output('Hello.'), id='a0a0a0a0')
    dl.mk_message('Tell me a joke.', msg_type='prompt', output=prompt_output('Why did the chicken cross the road?'), id='b1b1b1b1')
    dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[3].id, 'down', 'ann'); t.save()
    nb = json.loads(q.read_text()); c = nb['cells'].pop(1)
    nb['cells'].append(dict(c, id='c2c2c2c2', outputs=[], metadata={'solveit_ai': True})); q.write_text(json.dumps(nb, indent=1))
    back = Thread.read(q)
    assert [(m.role, m.content, m.reactions) for m in back.messages]==[('user', 'Hi!', {}), ('assistant', 'Hello.', {}), ('user', 'Tell me a joke.', {})]
    assert back.messages[-1].id=='c2c2c2c2-0'

"What the SDKs and their docs hand `chat2dlg` (issue 30): SDK objects, a trailing call with no result, any-case image labels, the developer role, Anthropic's cache_control"
import base64, json, pytest
from dialog.core import *
from dialog.chat import *
from dialog.ipynb import reads_ipynb, write_ipynb
from chat_checks import check_history
from test_chat_traffic import Provider, an_resp, oa_resp

png = bytes.fromhex('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f6e0e10000000049454e44ae426082')
png64 = base64.b64encode(png).decode()

def test_openai_sdk_message_appended_as_the_docs_do():
    "`messages.append(completion.choices[0].message)`: the SDK object is read as the JSON the SDK would send"
    call = {'id': 'call_1', 'type': 'function', 'function': {'name': 'weather', 'arguments': '{"city": "Paris"}'}}
    p = Provider('openai', oa_resp({'tool_calls': [call]}, 'tool_calls'))
    d = Dialog('w'); d.mk_message('Weather in Paris?', msg_type=sprompt)
    sent, _, r = p.send(d)
    hist = sent + [r.choices[0].message, {'role': 'tool', 'tool_call_id': 'call_1', 'content': '21C'}]
    p.client.chat.completions.create(model='gpt-4o', messages=hist)
    sdk = p.bodies[-1]['messages']
    _, body, _ = p.send(chat2dlg(hist))
    assert body['messages'][1]['tool_calls'] == sdk[1]['tool_calls'] and body['messages'][2] == sdk[2]

def test_anthropic_sdk_blocks_in_a_turn():
    "`{'role': 'assistant', 'content': response.content}`: a list of SDK block objects"
    content = [{'type': 'text', 'text': 'Looking.', 'citations': None}, {'type': 'tool_use', 'id': 'toolu_1', 'name': 'ls', 'input': {'p': '.'}}]
    p = Provider('anthropic', an_resp(content, 'tool_use'))
    d = Dialog('w'); d.mk_message('List it.', msg_type=sprompt)
    sent, _, r = p.send(d)
    hist = sent + [{'role': 'assistant', 'content': r.content}, {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'a.py'}]}]
    d2 = chat2dlg(hist)
    assert [(x['id'], x['args'], x['result']) for x in parse_reply(d2.messages[0].ai_res) if x['type'] == 'tool'] == [('toolu_1', {'p': '.'}, 'a.py')]
    _, body, _ = p.send(d2)
    assert body['messages'][1]['content'][1] == {'type': 'tool_use', 'id': 'toolu_1', 'name': 'ls', 'input': {'p': '.'}}

def test_trailing_tool_call_without_result_is_kept():
    "OpenAI's tool-calling fine-tuning example ends with the assistant's call"
    ft = [{'role': 'user', 'content': 'Weather in Paris?'},
          {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'weather', 'arguments': '{"city": "Paris"}'}}]}]
    d = chat2dlg(ft)
    assert '"result"' not in d.messages[0].ai_res
    assert dlg2chat(d) == ft
    an = dlg2chat(d, 'anthropic')
    assert an[-1] == {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'call_1', 'name': 'weather', 'input': {'city': 'Paris'}}]}
    assert dlg2chat(chat2dlg(an), 'anthropic') == an
    d.mk_message('Never mind.', msg_type=sprompt)  # the conversation went on: the call gets an empty result, as providers require one
    for fmt in ('openai', 'anthropic'): check_history(dlg2chat(d, fmt), fmt)
    with pytest.raises(ValueError, match="message 1: tool call 'call_1' has no result"): chat2dlg(ft + [{'role': 'user', 'content': 'x'}])

def test_tool_block_without_result():
    b = tool_block('c1', 'f', {}, None)
    assert '"result"' not in b and parse_reply(b)[0]['result'] == ''

@pytest.mark.parametrize('label', ['image/jpg', 'image/JPEG', 'Image/PNG', 'IMAGE/png '])
def test_any_case_and_jpg_labels(label):
    for h in ([{'role': 'user', 'content': [{'type': 'image_url', 'image_url': {'url': f'data:{label.strip()};base64,{png64}'}}]}],
              [{'role': 'user', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': label, 'data': png64}}]}]):
        d = chat2dlg(h)
        assert d.messages[0].attachments[0].content_type in ('image/png', 'image/jpeg')
        for fmt in ('openai', 'anthropic'):
            out = dlg2chat(d, fmt)
            check_history(out, fmt)
            assert 'image/png' in json.dumps(out)  # labelled with what its bytes are

def test_attachment_labelled_jpg_is_sent_as_an_image():
    d = Dialog('j')
    m = d.mk_message('![a](attachment:a.jpg)', msg_type=sprompt)
    m.mk_attachment(png, 'image/JPG', 'a.jpg')
    assert dlg2chat(d)[0]['content'][0]['type'] == 'image_url'

def test_developer_role_read_and_written():
    h = [{'role': 'developer', 'content': 'Be brief.'}, {'role': 'user', 'content': 'hi'}]
    d = chat2dlg(h)
    assert d.system == 'Be brief.'
    assert dlg2chat(d, system_role='developer') == h
    assert dlg2chat(d)[0]['role'] == 'system'
    p = Provider('openai')
    _, body, _ = p.send(d, system_role='developer')
    assert body['messages'][0] == {'role': 'developer', 'content': 'Be brief.'}
    with pytest.raises(ValueError, match="system_role must be 'system' or 'developer'"): dlg2chat(d, system_role='user')

def test_cache_control_kept_and_sent_to_anthropic():
    cc, cc1 = {'type': 'ephemeral'}, {'type': 'ephemeral', 'ttl': '1h'}
    h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'A long document.', 'cache_control': cc}]},
         {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't1', 'name': 'f', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 't1', 'content': 'r', 'cache_control': cc1}]},
         {'role': 'assistant', 'content': 'ok'}]
    d = chat2dlg(h)
    assert d.messages[0].meta == {'dialog': {'cache_control': cc}}
    assert dlg2chat(d, 'anthropic') == h
    p = Provider('anthropic')
    d.mk_message('And?', msg_type=sprompt)
    _, body, _ = p.send(d)
    assert body['messages'][0]['content'][0]['cache_control'] == cc and body['messages'][2]['content'][0]['cache_control'] == cc1
    assert 'cache_control' not in json.dumps(dlg2chat(d, 'openai'))
    d.messages[0].meta['dialog']['cache_control'] = 'yes'
    with pytest.raises(ValueError, match=r"meta\['dialog'\]\['cache_control'\] must be a dict"): dlg2chat(d, 'anthropic')

def test_cache_control_on_an_image_and_a_merged_turn():
    cc = {'type': 'ephemeral'}
    h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'See'}, {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png64}, 'cache_control': cc}]}]
    d = chat2dlg(h)
    assert dlg2chat(d, 'anthropic') == h
    d.mk_message('More text.', msg_type=sprompt)  # merges into the same Anthropic turn: the breakpoint stays on its block
    out = dlg2chat(d, 'anthropic')
    assert out[0]['content'][1]['cache_control'] == cc and out[0]['content'][2] == {'type': 'text', 'text': 'More text.'}

def test_text_between_tool_calls_stays_in_place():
    "The notebook promises calls 'where it happened': an Anthropic turn that says text between its calls goes back with the text there"
    h = [{'role': 'user', 'content': 'go'},
         {'role': 'assistant', 'content': [{'type': 'text', 'text': 'First ls.'}, {'type': 'tool_use', 'id': 't1', 'name': 'ls', 'input': {}},
                                           {'type': 'text', 'text': 'Then cat,\n\nboth now.'}, {'type': 'tool_use', 'id': 't2', 'name': 'cat', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 't1', 'content': 'a'}, {'type': 'tool_result', 'tool_use_id': 't2', 'content': 'b'}]},
         {'role': 'assistant', 'content': 'Done.'}]
    d = chat2dlg(h)
    assert [p['type'] for p in parse_reply(d.messages[0].ai_res)] == ['text', 'tool', 'text', 'tool', 'text']
    assert dlg2chat(d, 'anthropic') == h
    assert dlg2chat(chat2dlg(dlg2chat(d)), 'openai')[1]['content'] == 'First ls.\n\nThen cat,\n\nboth now.'  # one text for OpenAI, before the calls
    d2 = reads_ipynb(write_ipynb(d))
    assert dlg2chat(d2, 'anthropic') == h
    # text after the calls set off by a blank line is a new round, as before
    r = tool_block('a', 'f', {}, '1') + '\n\nLater.\n' + tool_block('b', 'g', {}, '2')
    dd = Dialog('x'); dd.mk_message('go', msg_type=sprompt, output=r)
    assert [m['role'] for m in dlg2chat(dd)] == ['user', 'assistant', 'tool', 'assistant', 'tool']

def test_chat_completions_custom_tool_call_read_and_sent_back():
    "GPT-5's custom tool call on Chat Completions (`type: 'custom'`, a `ChatCompletionMessage` as the host appends it): read, and sent back to OpenAI as a custom call"
    from openai.types.chat import ChatCompletion
    c = ChatCompletion.model_validate({'id': 'x', 'object': 'chat.completion', 'created': 1, 'model': 'gpt-5', 'choices': [{'index': 0, 'finish_reason': 'tool_calls',
        'message': {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'custom', 'custom': {'name': 'apply_patch', 'input': '*** Begin Patch'}}]}}]})
    h = [{'role': 'user', 'content': 'patch it'}, c.choices[0].message, {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'done'}]
    out = dlg2chat(chat2dlg(h, 'openai'), 'openai')
    assert out[1]['tool_calls'] == [{'id': 'call_1', 'type': 'custom', 'custom': {'name': 'apply_patch', 'input': '*** Begin Patch'}}]
    assert dlg2chat(chat2dlg(h, 'openai'), 'responses')[1] == {'type': 'custom_tool_call', 'call_id': 'call_1', 'name': 'apply_patch', 'input': '*** Begin Patch'}
    with pytest.raises(ValueError, match='message 1: custom tool call 0 needs'): chat2dlg([h[0], {'role': 'assistant', 'tool_calls': [{'id': 'c', 'type': 'custom', 'custom': 5}]}], 'openai')

def test_cache_control_on_tool_use_and_system_blocks_through_the_sdk(tmp_path):
    "Anthropic `cache_control` on a tool_use block and on system blocks is read, saved, and put back on the wire by the real client (`system=dlg2system(dlg)`); other providers never see it"
    cc = {'type': 'ephemeral'}
    sysb = [{'type': 'text', 'text': 'You are a careful agent.'}, {'type': 'text', 'text': 'Tool manual…', 'cache_control': cc}]
    h = [{'role': 'user', 'content': 'go'},
         {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't1', 'name': 'f', 'input': {'a': 1}, 'cache_control': cc}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 't1', 'content': 'r', 'cache_control': {'type': 'ephemeral', 'ttl': '1h'}}]},
         {'role': 'assistant', 'content': 'ok'}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic', system=sysb)))
    assert dlg2chat(d, 'anthropic') == h and dlg2system(d) == sysb
    p = Provider('anthropic')
    p.client.messages.create(model='claude-test', max_tokens=9, messages=dlg2chat(d, 'anthropic'), system=dlg2system(d))
    assert p.bodies[-1]['system'] == sysb and p.bodies[-1]['messages'] == h
    assert 'cache_control' not in json.dumps([dlg2chat(d, f) for f in ('openai', 'responses', 'gemini')] + [dlg2system(d, f) for f in ('responses', 'gemini')])
    fn = dlgs2jsonl([d], tmp_path/'a.jsonl', 'anthropic')  # a JSON Lines line keeps the blocks beside the messages, and reads back to them
    assert json.loads(fn.read_text())['system'] == sysb and dlg2system(jsonl2dlgs(fn)[0]) == sysb

def test_cache_control_on_a_document_is_sent_back():
    "A cache breakpoint on a PDF or text document (the usual place: cache the long document) goes back on that document, through the real client; no other provider sees it"
    import base64
    cc = {'type': 'ephemeral'}
    pdf = base64.b64encode(b'%PDF-1.4\n%%EOF').decode()
    for src in ({'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, {'type': 'text', 'media_type': 'text/plain', 'data': 'A long text.'}):
        h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'Read this'}, {'type': 'document', 'source': src, 'title': 'T', 'cache_control': cc}]}, {'role': 'assistant', 'content': 'ok'}]
        d = chat2dlg(h)
        assert dlg2chat(d, 'anthropic') == h
        d.mk_message('And?', msg_type=sprompt)
        _, body, _ = Provider('anthropic').send(d)
        assert body['messages'][0]['content'][1]['cache_control'] == cc
        assert 'cache_control' not in json.dumps([dlg2chat(d, f) for f in ('openai', 'responses', 'gemini')])

_late_call = {'id': 'call_a', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}

@pytest.mark.parametrize('fmt', ['openai', 'anthropic'])
def test_a_result_after_the_persons_next_message_is_refused_not_dropped(fmt):
    "A tool's result that comes after the person's next message: it was dropped without a word and the call sent back with an empty result (the model told the tool printed nothing); now a ValueError naming the call's message"
    between = {'role': 'user', 'content': 'wait'}
    h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': None, 'tool_calls': [_late_call]},
         between, {'role': 'tool', 'tool_call_id': 'call_a', 'content': 'RESULT-1'}, {'role': 'assistant', 'content': 'done'}]
    if fmt=='anthropic':
        h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'call_a', 'name': 'f', 'input': {}}]},
             between, {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'call_a', 'content': 'RESULT-1'}]},
             {'role': 'assistant', 'content': 'done'}]
    with pytest.raises(ValueError, match="message 1: tool call 'call_a' has no result before message 2"): chat2dlg(h, fmt)

@pytest.mark.parametrize('fmt', ['openai', 'anthropic'])
def test_a_result_after_another_assistant_message_is_kept(fmt):
    "Anthropic reads consecutive assistant messages as one turn, so a call, then the model's text in a message of its own, then the result is a valid history: its result was dropped (sent back as '(no output)'), then refused; it is kept with its call"
    if fmt=='openai':
        h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': None, 'tool_calls': [_late_call]},
             {'role': 'assistant', 'content': 'hm'}, {'role': 'tool', 'tool_call_id': 'call_a', 'content': 'RESULT-1'},
             {'role': 'assistant', 'content': 'done'}]
    else:
        h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'call_a', 'name': 'f', 'input': {}}]},
             {'role': 'assistant', 'content': [{'type': 'text', 'text': 'hm'}]},
             {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'call_a', 'content': 'RESULT-1'}]},
             {'role': 'assistant', 'content': 'done'}]
    d = chat2dlg(h, fmt)
    assert [b['result'] for b in parse_reply(d.messages[0].ai_res) if isinstance(b, dict)]==['RESULT-1']
    out = dlg2chat(d, fmt)
    check_history(out, fmt)
    assert 'RESULT-1' in json.dumps(out) and 'hm' in json.dumps(out) and 'done' in json.dumps(out)

def test_results_before_the_next_turn_still_read():
    "Results first, then the person's text, in one Anthropic user turn (or in OpenAI's order): read as before"
    an = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'c', 'name': 'f', 'input': {}}]},
          {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'c', 'content': 'R'}, {'type': 'text', 'text': 'and now?'}]}]
    d = chat2dlg(an)
    assert [m.content for m in d.messages] == ['q', 'and now?'] and '"R"' in json.dumps(parse_reply(d.messages[0].ai_res))

@pytest.mark.filterwarnings('ignore::UserWarning')  # pydantic's, as the SDK dumps its own parsed object
def test_openai_sdk_parse_and_stream_helpers_message():
    "The SDK's `parse()` and `stream()` helpers return a message with `parsed` (its content read as the asked format, or None): it was refused as an unsupported key; it is what the content holds, so it is read as the content, and never sent"
    import httpx, openai, pydantic
    class M(pydantic.BaseModel): x: int
    def client(msg):
        body = {'id': 'c', 'object': 'chat.completion', 'created': 0, 'model': 'gpt-4o',
                'choices': [{'index': 0, 'message': msg, 'finish_reason': 'stop', 'logprobs': None}]}
        return openai.OpenAI(api_key='k', http_client=httpx.Client(transport=httpx.MockTransport(lambda req: httpx.Response(200, json=body))))
    q = [{'role': 'user', 'content': 'q'}]
    m = client({'role': 'assistant', 'content': '{"x":1}', 'refusal': None}).chat.completions.parse(model='gpt-4o', messages=q, response_format=M).choices[0].message
    assert m.model_dump(exclude_unset=True)['parsed'] == {'x': 1}
    assert dlg2chat(chat2dlg(q + [m])) == q + [{'role': 'assistant', 'content': '{"x":1}'}]
    call = {'id': 'call_1', 'type': 'function', 'function': {'name': 'M', 'arguments': '{"x":2}'}}
    m = client({'role': 'assistant', 'content': None, 'refusal': None, 'tool_calls': [call]}).chat.completions.parse(
        model='gpt-4o', messages=q, tools=[openai.pydantic_function_tool(M)]).choices[0].message
    h = q + [m, {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'ok'}]
    assert dlg2chat(chat2dlg(h)) == q + [{'role': 'assistant', 'content': None, 'tool_calls': [call]}, h[2]]
    with pytest.raises(ValueError, match=r"unsupported key\(s\) \['parsed'\]"): chat2dlg([{'role': 'user', 'content': 'q', 'parsed': 1}])

@pytest.mark.parametrize('state', [{'reasoning_content': 'hmm'}, {'reasoning': 'hmm'}, {'reasoning_details': [{'type': 'reasoning.text', 'text': 'hmm'}]}])
def test_parsed_never_goes_back_with_reasoning_state(state):
    "A reply with reasoning state goes back as it came, and so it took `parsed` (and a call's `parsed_arguments`) back to the API, which takes neither"
    call = {'id': 'call_1', 'type': 'function', 'function': {'name': 'M', 'arguments': '{"x":2}', 'parsed_arguments': {'x': 2}}}
    h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': '{"x": 1}', 'parsed': {'x': 1}, **state},
         {'role': 'user', 'content': 'again'}, {'role': 'assistant', 'content': None, 'tool_calls': [call], 'parsed': None, **state},
         {'role': 'tool', 'tool_call_id': 'call_1', 'content': 'ok'}]
    sent = dlg2chat(chat2dlg(h))
    assert 'parsed' not in json.dumps(sent) and 'hmm' in json.dumps(sent)
    assert sent[1]['content']=='{"x": 1}' and sent[3]['tool_calls']==[{**call, 'function': {'name': 'M', 'arguments': '{"x":2}'}}]

def test_responses_parsed_items_never_go_back():
    "The Responses SDK's `parse()` output: an output text's `parsed` and a call's `parsed_arguments`, kept with the reasoning items, went back in the next request"
    items = [{'role': 'user', 'content': 'q'}, {'type': 'reasoning', 'id': 'rs_1', 'summary': [], 'encrypted_content': 'enc'},
             {'type': 'function_call', 'id': 'fc_1', 'call_id': 'call_1', 'name': 'M', 'arguments': '{"x":2}', 'status': 'completed', 'parsed_arguments': {'x': 2}},
             {'type': 'function_call_output', 'call_id': 'call_1', 'output': 'ok'},
             {'type': 'message', 'id': 'msg_1', 'role': 'assistant', 'status': 'completed',
              'content': [{'type': 'output_text', 'text': '{"x":1}', 'annotations': [], 'parsed': {'x': 1}}]}]
    out = dlg2chat(chat2dlg(items, 'responses'), 'responses')
    assert 'parsed' not in json.dumps(out) and out[1]['encrypted_content']=='enc' and out[2]['arguments']=='{"x":2}'

def _weather_turn():
    "A Claude tool loop's first response, with thinking, through the real SDK: `(provider, user turn, response)`"
    content = [{'type': 'thinking', 'thinking': 'I need the weather.', 'signature': 'EqQBCkgIARABGAIiQ'},
               {'type': 'text', 'text': 'Checking.'},
               {'type': 'tool_use', 'id': 'toolu_01', 'name': 'get_weather', 'input': {'city': 'Paris'}}]
    p = Provider('anthropic', an_resp(content, 'tool_use'))
    user = {'role': 'user', 'content': 'Weather in Paris?'}
    r = p.client.messages.create(model='claude-test', max_tokens=2048, messages=[user], thinking={'type': 'enabled', 'budget_tokens': 1024})
    return p, user, r

_result = {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_01', 'content': '15C'}]}

@pytest.mark.parametrize('mode', [None, 'json'])
def test_anthropic_model_dump_blocks_are_kept_and_sent_as_the_sdk_objects(tmp_path, mode):
    "A loop logged with `response.model_dump()` (every unset field None): its record goes back with no null `caller`/`toolset_name` (r32e item 1)"
    p, user, r = _weather_turn()
    dumped = r.model_dump(**({'mode': mode} if mode else {}))
    hist = [user, {'role': 'assistant', 'content': dumped['content']}, _result]
    write_ipynb(chat2dlg(hist, 'anthropic'), tmp_path/'loop.ipynb')
    msgs = dlg2chat(reads_ipynb((tmp_path/'loop.ipynb').read_text()), 'anthropic')
    ref = dlg2chat(chat2dlg([user, {'role': 'assistant', 'content': r.content}, _result], 'anthropic'), 'anthropic')
    def sans_citations(ms):  # a text's `citations: null`, which the dump holds and the API itself returns, is no difference
        return [{**m, 'content': [{k: v for k, v in b.items() if not (k == 'citations' and v is None)} for b in m['content']]}
                if isinstance(m['content'], list) else m for m in ms]
    assert sans_citations(msgs) == ref  # the same request as from the SDK's own objects
    assert msgs[1]['content'][0]['type'] == 'thinking'  # the record went back, thinking and all
    nulls = [(b['type'], k) for m in msgs if isinstance(m['content'], list) for b in m['content'] for k, v in b.items() if v is None and k != 'citations']
    assert nulls == []
    p.client.messages.create(model='claude-test', max_tokens=2048, messages=msgs, thinking={'type': 'enabled', 'budget_tokens': 1024})
    check_history(p.bodies[-1]['messages'], 'anthropic')

@pytest.mark.parametrize('form', ['object', 'model_dump', 'json'])
def test_anthropic_response_kept_whole_reads_as_its_message(form):
    "An Anthropic `Message` (or its dump) appended to a history is detected as Anthropic's and read as its role and content (r32e item 4)"
    p, user, r = _weather_turn()
    m = r if form == 'object' else r.model_dump(**({'mode': 'json'} if form == 'json' else {}))
    d = chat2dlg([user, m, _result])  # detected
    ref = chat2dlg([user, {'role': 'assistant', 'content': r.content}, _result], 'anthropic')
    assert d.messages[0].ai_res == ref.messages[0].ai_res
    sent, ref_sent = dlg2chat(d, 'anthropic'), dlg2chat(ref, 'anthropic')
    assert [b['type'] for b in sent[1]['content']] == ['thinking', 'text', 'tool_use'] and sent[1]['content'][2] == ref_sent[1]['content'][2]
    assert sent[0] == ref_sent[0] and sent[2:] == ref_sent[2:]
    assert chat2dlg([user, m, _result], 'anthropic').messages[0].ai_res == ref.messages[0].ai_res  # given its format too

def test_anthropic_text_only_response_is_not_taken_for_responses():
    "A text-only Anthropic response dump (typed 'message', as a Responses message is) is read as Anthropic's: its citations are footnotes"
    cit = [{'type': 'char_location', 'cited_text': 'The grass is green.', 'document_index': 0, 'document_title': 'Notes',
            'start_char_index': 0, 'end_char_index': 19}]
    dumped = an_resp([{'type': 'text', 'text': 'Grass is green', 'citations': cit}, {'type': 'text', 'text': '.', 'citations': None}])
    hi = {'role': 'user', 'content': 'Hi'}
    ref = chat2dlg([hi, {'role': 'assistant', 'content': dumped['content']}], 'anthropic').messages[0].ai_res
    assert '[^1]: Notes "The grass is green."' in ref
    assert chat2dlg([hi, dumped]).messages[0].ai_res == ref
    rs = {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'Hello.'}]}
    assert chat2dlg([hi, rs]).messages[0].ai_res.strip() == 'Hello.'  # a Responses message is still Responses'

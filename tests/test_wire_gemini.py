"Gemini contents as a wire format (issue 30): read and written, thought signatures kept, the documented placeholder where one is lost; through google-genai's client on a mock transport"
import base64, json, pytest
import httpx
from hypothesis import given, settings, HealthCheck
genai = pytest.importorskip('google.genai')
from google.genai import types
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import *
from dialog.gemini import skip_signature
from test_chat_providers import dialogs

def gemini_rules(contents):
    "Each content validates as google-genai's `types.Content`; roles are user/model; every functionCall is answered by a functionResponse in the next content, in order and by name; each model content's first functionCall carries a signature"
    for i, c in enumerate(contents):
        types.Content.model_validate(c)
        assert c['role'] in ('user', 'model') and c['parts'], f'content {i}'
        calls = [p['functionCall'] for p in c['parts'] if 'functionCall' in p]
        if c['role'] == 'model' and calls:
            assert next(p for p in c['parts'] if 'functionCall' in p).get('thoughtSignature'), f'content {i}: first call unsigned'
            nxt = contents[i+1]['parts'] if i+1 < len(contents) else []
            rs = [p['functionResponse'] for p in nxt if 'functionResponse' in p]
            assert [r['name'] for r in rs[:len(calls)]] == [f['name'] for f in calls], f'content {i}: calls unanswered'
        for p in c['parts']:
            if 'text' in p: assert isinstance(p['text'], str)

class Gemini:
    "google-genai's real client whose HTTP goes to a handler recording each request body"
    def __init__(self, *responses):
        self.responses, self.bodies = list(responses), []
        self.client = genai.Client(api_key='test', http_options=types.HttpOptions(httpx_client=httpx.Client(transport=httpx.MockTransport(self.handle))))
    def handle(self, request):
        self.bodies.append(json.loads(request.content))
        out = self.responses.pop(0) if self.responses else [{'text': 'ok'}]
        return httpx.Response(200, json={'candidates': [{'content': {'role': 'model', 'parts': out}, 'finishReason': 'STOP'}]})
    def send(self, dlg, **kw):
        contents = dlg2chat(dlg, 'gemini', **kw)
        r = self.client.models.generate_content(model='gemini-3-pro', contents=contents, config=types.GenerateContentConfig(system_instruction=dlg.system) if dlg.system else None)
        body = self.bodies[-1]
        gemini_rules(body['contents'])
        return contents, body, r

def test_function_calling_turn_with_signatures_through_the_sdk():
    "Gemini 3: the signed call goes back with its signature; the SDK's own response Content appended as the docs do"
    g = Gemini([{'functionCall': {'name': 'weather', 'args': {'city': 'Paris'}}, 'thoughtSignature': 'CpwBAQ=='}])
    d = Dialog('g'); d.system = 'Be brief.'
    d.mk_message('Weather in Paris?', msg_type=sprompt)
    sent, body, r = g.send(d)
    assert body['systemInstruction']['parts'][0]['text'] == 'Be brief.'
    hist = sent + [r.candidates[0].content, types.Content(role='user', parts=[types.Part.from_function_response(name='weather', response={'result': '21C'})])]
    g.client.models.generate_content(model='gemini-3-pro', contents=hist)
    sdk = g.bodies[-1]['contents']
    d2 = chat2dlg(hist, system=d.system)
    _, body2, _ = g.send(d2)
    assert body2['contents'] == sdk
    assert body2['contents'][1]['parts'][0]['thoughtSignature'] == 'CpwBAQ=='
    assert dlg2chat(reads_ipynb(write_ipynb(d2)), 'gemini') == dlg2chat(d2, 'gemini')
    assert 'CpwBAQ==' not in json.dumps(dlg2chat(d2, 'anthropic')) + json.dumps(dlg2chat(d2, 'responses'))

def test_lost_signatures_get_the_documented_placeholder():
    h = [{'role': 'user', 'content': 'go'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't1', 'name': 'f', 'input': {}}, {'type': 'tool_use', 'id': 't2', 'name': 'g', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 't1', 'content': '1'}, {'type': 'tool_result', 'tool_use_id': 't2', 'content': '2'}]}]
    out = dlg2chat(chat2dlg(h), 'gemini')
    gemini_rules(out)
    assert [p.get('thoughtSignature') for p in out[1]['parts']] == [skip_signature, None]  # the first call of the step only
    assert out[2]['parts'][0] == {'functionResponse': {'id': 't1', 'name': 'f', 'response': {'result': '1'}}}

def test_thoughts_and_snake_case_read():
    c = types.Content(role='model', parts=[types.Part(text='Think.', thought=True), types.Part(function_call=types.FunctionCall(name='f', args={'a': 1}), thought_signature=b'sig')])
    h = [types.Content(role='user', parts=[types.Part(text='go')]), c, types.Content(role='user', parts=[types.Part.from_function_response(name='f', response={'output': 'x'})])]
    d = chat2dlg(h, 'gemini')
    assert think_block('Think.') in d.messages[0].ai_res
    assert [(p['name'], p['args'], p['result']) for p in parse_reply(d.messages[0].ai_res) if p['type'] == 'tool'] == [('f', {'a': 1}, 'x')]
    out = dlg2chat(d, 'gemini')
    gemini_rules(out)
    assert out[1]['parts'][0]['thought'] is True  # the kept turn, signature and all

def test_edit_drops_signed_turns_from_its_point_on():
    h = [{'role': 'user', 'parts': [{'text': 'go'}]},
         {'role': 'model', 'parts': [{'functionCall': {'name': 'f', 'args': {}}, 'thoughtSignature': 'S1'}]},
         {'role': 'user', 'parts': [{'functionResponse': {'name': 'f', 'response': {'result': 'a'}}}]},
         {'role': 'model', 'parts': [{'functionCall': {'name': 'f', 'args': {}}, 'thoughtSignature': 'S2'}]},
         {'role': 'user', 'parts': [{'functionResponse': {'name': 'f', 'response': {'result': 'b'}}}]}]
    d = chat2dlg(h)
    assert dlg2chat(d, 'gemini') == h
    m = d.messages[0]
    m.ai_res = m.ai_res.replace('"result": "a"', '"result": "A"')
    sigs = [p.get('thoughtSignature') for c in dlg2chat(d, 'gemini') for p in c['parts'] if 'functionCall' in p]
    assert sigs == ['S1', skip_signature]
    assert [p.get('thoughtSignature') for c in dlg2chat(d, 'gemini', reasoning=False) for p in c['parts'] if 'functionCall' in p] == [skip_signature]*2

def test_images_in_and_out():
    png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg=='
    h = [{'role': 'user', 'parts': [{'text': 'What?'}, {'inline_data': {'mime_type': 'image/PNG', 'data': png}}, {'file_data': {'mime_type': 'image/jpeg', 'file_uri': 'https://example.com/a.jpg'}}]}]
    d = chat2dlg(h)
    out = dlg2chat(d, 'gemini')
    gemini_rules(out)
    assert out[0]['parts'][1] == {'inlineData': {'mimeType': 'image/png', 'data': png}} and out[0]['parts'][2]['fileData']['fileUri'] == 'https://example.com/a.jpg'

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dialogs())
def test_generated_dialogs_give_valid_contents(d):
    "Any dialog gives contents google-genai's types accept and the pairing rules allow; they read back into a dialog that sends them again"
    c = dlg2chat(d, 'gemini')
    gemini_rules(c)
    assert dlg2chat(chat2dlg(c, 'gemini', system=d.system), 'gemini') == c

def test_camel_case_system_instruction_read_from_jsonl(tmp_path):
    "A JSON Lines line as Gemini's REST API spells a request (`systemInstruction`, camelCase) gives its system prompt, as the snake_case spelling does"
    cs = [{'role': 'user', 'parts': [{'text': 'hi'}]}, {'role': 'model', 'parts': [{'text': 'Ahoy'}]}]
    for k in ('systemInstruction', 'system_instruction'):
        p = tmp_path/f'{k}.jsonl'; p.write_text(json.dumps({'contents': cs, k: {'parts': [{'text': 'Talk like a pirate.'}]}}) + '\n')
        assert jsonl2dlgs(p)[0].system == 'Talk like a pirate.'

def test_sdk_content_with_url_safe_base64_image_read():
    "google-genai's `Content` holding image bytes serialises them as URL-safe base64: read, the bytes intact"
    import base64
    png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==')
    data = png + bytes([0xfb, 0xff, 0xfe])*10  # standard base64 of these holds '+' and '/'
    c = types.Content(role='user', parts=[types.Part(text='see'), types.Part.from_bytes(data=data, mime_type='image/png')])
    d = chat2dlg([c, types.Content(role='model', parts=[types.Part(text='ok')])], 'gemini')
    assert base64.b64decode(dlg2chat(d, 'gemini')[0]['parts'][1]['inlineData']['data']) == data

@pytest.mark.parametrize('bad', [{'functionCall': 'f'}, {'functionCall': ['f']}, {'functionCall': {'name': 'f', 'args': [1]}}])
def test_malformed_function_call_is_a_value_error(bad):
    with pytest.raises(ValueError, match='message 1: part 0: a functionCall needs'): chat2dlg([{'role': 'user', 'parts': [{'text': 'hi'}]}, {'role': 'model', 'parts': [bad]}], 'gemini')

def test_a_none_field_is_an_absent_one():
    "A field that is None is absent (as in an SDK object's `model_dump()`): a part of None fields alone is no part; None in a call's args is the caller's value"
    with pytest.raises(ValueError, match=r'message 1: unsupported or malformed part 0 \(\) in a model content'):
        chat2dlg([{'role': 'user', 'parts': [{'text': 'hi'}]}, {'role': 'model', 'parts': [{'functionCall': None}]}], 'gemini')
    d = chat2dlg([{'role': 'user', 'parts': [{'text': 'hi'}]}, {'role': 'model', 'parts': [{'functionCall': {'name': 'f', 'args': {'a': None}, 'id': None}}]}], 'gemini')
    assert dlg2chat(d, 'gemini')[1]['parts'][0]['functionCall']['args']=={'a': None}

def test_malformed_function_response_is_a_value_error():
    h = [{'role': 'user', 'parts': [{'text': 'hi'}]}, {'role': 'model', 'parts': [{'functionCall': {'name': 'f', 'args': {}}}]}, {'role': 'user', 'parts': [{'functionResponse': 'x'}]}]
    with pytest.raises(ValueError, match='message 2: part 0: a functionResponse must be an object'): chat2dlg(h, 'gemini')

PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

def test_file_data_of_any_type_read_and_written():
    "`fileData` parts of a PDF, audio and video by URI (REST or SDK spelling) read as links saying the URI and type, and go back as the same parts, through the real client"
    h = [{'role': 'user', 'parts': [{'text': 'Compare'}, {'fileData': {'mimeType': 'application/pdf', 'fileUri': 'https://generativelanguage.googleapis.com/v1beta/files/abc'}},
                                    {'file_data': {'mime_type': 'audio/mpeg', 'file_uri': 'gs://bucket/talk.mp3'}},
                                    {'fileData': {'mimeType': 'video/mp4', 'fileUri': 'https://www.youtube.com/watch?v=9hE5-98ZeCg'}}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h)))
    assert '[](gs://bucket/talk.mp3 "sent as audio/mpeg")' in d.messages[0].content and not d.messages[0].attachments
    want = [{'role': 'user', 'parts': [h[0]['parts'][0], h[0]['parts'][1], {'fileData': {'mimeType': 'audio/mpeg', 'fileUri': 'gs://bucket/talk.mp3'}}, h[0]['parts'][3]]}]
    assert dlg2chat(d, 'gemini') == want
    _, body, _ = Gemini().send(d)
    uris = lambda ps: [(f.get('fileUri') or f.get('file_uri'), f.get('mimeType') or f.get('mime_type')) for p in ps for f in [p.get('fileData') or p.get('file_data')]]  # the client spells the keys as it likes
    assert uris(body['contents'][0]['parts'][1:]) == uris(want[0]['parts'][1:])
    with pytest.raises(ValueError, match="anthropic can't fetch 'https://generativelanguage.googleapis.com/v1beta/files/abc'"): dlg2chat(d, 'anthropic')  # Gemini's own store: no one else reads it
    d.messages[0].content = d.messages[0].content.replace('https://generativelanguage.googleapis.com/v1beta/files/abc', 'https://example.com/a.pdf').replace('gs://bucket/talk.mp3', 'https://example.com/talk.mp3')
    with pytest.raises(ValueError, match='anthropic takes no audio/mpeg file by URL'): dlg2chat(d, 'anthropic')

def test_an_image_a_tool_returned_goes_as_a_function_response_part():
    "An image inside a tool result (Anthropic's screenshot) goes to Gemini as inline data in the functionResponse's `parts`, not as text; Gemini's own such response reads back and goes out the same"
    shot = [{'role': 'user', 'content': 'Take a screenshot'},
            {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'computer', 'input': {'action': 'screenshot'}}]},
            {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'text', 'text': 'Here.'}, {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': PNG}}]}]}]
    c = dlg2chat(chat2dlg(shot, 'anthropic'), 'gemini')
    gemini_rules(c)
    fr = c[2]['parts'][0]['functionResponse']
    assert fr['response'] == {'result': 'Here.'} and fr['parts'] == [{'inlineData': {'mimeType': 'image/png', 'data': PNG}}] and PNG not in json.dumps(fr['response'])
    back = reads_ipynb(write_ipynb(chat2dlg(c, 'gemini')))
    assert dlg2chat(back, 'gemini') == c and dlg2chat(back, 'anthropic')[2] == shot[2]
    _, body, _ = Gemini().send(back)
    sent, = body['contents'][2]['parts'][0]['functionResponse']['parts']  # the client spells the blob as it likes (snake_case here)
    blob = sent.get('inlineData') or sent.get('inline_data')
    assert blob['data'] == PNG and (blob.get('mimeType') or blob.get('mime_type')) == 'image/png'
    sdk = types.Content(role='user', parts=[types.Part(function_response=types.FunctionResponse(name='computer', id='toolu_1', response={'result': ''},
                        parts=[types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(mime_type='image/png', data=base64.b64decode(PNG)))]))])
    d = chat2dlg(c[:2] + [sdk], 'gemini')
    assert parse_reply(d.messages[0].ai_res)[0]['result'] == result_image('image/png', PNG)

def test_a_file_only_gemini_can_fetch_is_refused_elsewhere_by_name():
    "A Gemini Files API or Cloud Storage URI (a PDF, an image) goes back to Gemini; to another provider, which can't fetch it and would refuse the request, it is a ValueError naming the message and the URI"
    for uri, mime in (('https://generativelanguage.googleapis.com/v1beta/files/abc123', 'application/pdf'), ('gs://bucket/cat.png', 'image/png')):
        h = [{'role': 'user', 'parts': [{'fileData': {'mimeType': mime, 'fileUri': uri}}, {'text': 'What is this?'}]}, {'role': 'model', 'parts': [{'text': 'A file.'}]}]
        d = chat2dlg(h, 'gemini')
        assert dlg2chat(d, 'gemini') == h
        for fmt in ('openai', 'anthropic', 'responses'):
            with pytest.raises(ValueError, match=rf"message '{d.messages[0].id}': {fmt} can't fetch '{uri}', a Gemini Files API or Cloud Storage URI only Gemini reads"):
                dlg2chat(d, fmt)
    d = chat2dlg([{'role': 'user', 'parts': [{'fileData': {'mimeType': 'application/pdf', 'fileUri': 'https://example.com/files/a.pdf'}}]}], 'gemini')
    assert dlg2chat(d, 'anthropic')[0]['content'][0]['source'] == {'type': 'url', 'url': 'https://example.com/files/a.pdf'}  # any other URL is fetched by whoever gets it

def test_the_sdks_own_chat_history_reads():
    "`chat.get_history()` is made of `UserContent`s, whose role is a default the SDK sends: read as the SDK sent it, and sent again the same"
    g = Gemini([{'text': 'Paris.'}], [{'text': 'Madrid.'}])
    chat = g.client.chats.create(model='gemini-2.5-flash')
    chat.send_message('Capital of France?'); chat.send_message('And of Spain?')
    hist = chat.get_history()
    assert type(hist[0]).__name__=='UserContent' and 'role' not in hist[0].model_fields_set
    for fmt in ('gemini', None):
        d = chat2dlg(hist, fmt)
        assert [(m.msg_type, m.content) for m in d.messages]==[('prompt', 'Capital of France?'), ('prompt', 'And of Spain?')]
        g.client.models.generate_content(model='gemini-2.5-flash', contents=dlg2chat(d, 'gemini'))
        assert g.bodies[-1]['contents']==g.bodies[1]['contents'] + [{'role': 'model', 'parts': [{'text': 'Madrid.'}]}]
    m = types.ModelContent(parts=[types.Part(text='hi')])  # the SDK's other shorthand, role a default too
    assert chat2dlg([types.UserContent(parts=[types.Part(text='hey')]), m], 'gemini').messages[0].ai_res=='hi'

def _streamed(chunks):
    "google-genai's real chat, its answer streamed as `chunks` (lists of parts): the client, and the bodies it sent"
    sent = []
    def stream(req):
        sent.append(json.loads(req.content))
        evs = [{'candidates': [{'content': {'role': 'model', 'parts': ps}, 'index': 0} | ({'finishReason': 'STOP'} if k==len(chunks)-1 else {})]}
               for k,ps in enumerate(chunks)]
        return httpx.Response(200, content=''.join('data: '+json.dumps(e)+'\r\n\r\n' for e in evs).encode(), headers={'content-type': 'text/event-stream'})
    client = genai.Client(api_key='test', http_options=types.HttpOptions(httpx_client=httpx.Client(transport=httpx.MockTransport(stream))))
    return client.chats.create(model='gemini-2.5-flash'), sent

def test_a_streamed_answer_reads_as_one_reply():
    "The SDK keeps a streamed answer as one model content a chunk: one reply, its text as the chunks join (no break added)"
    chunks = [[{'text': 'The capital'}], [{'text': ' of France is'}], [{'text': ' **Paris**.\n'}], [{'text': '\nIt is on the Seine.'}], [{'text': '', 'thoughtSignature': 'CpwBAQ=='}]]
    chat, sent = _streamed(chunks)
    assert ''.join(c.text or '' for c in chat.send_message_stream('Capital of France?'))=='The capital of France is **Paris**.\n\nIt is on the Seine.'
    hist = chat.get_history()
    assert [c.role for c in hist]==['user'] + ['model']*5  # one content a chunk
    d = reads_ipynb(write_ipynb(chat2dlg(hist, 'gemini')))
    assert [(m.content, m.ai_res) for m in d.messages]==[('Capital of France?', 'The capital of France is **Paris**.\n\nIt is on the Seine.')]
    out = dlg2chat(d, 'gemini')  # its parts as they came, signature on its own part, in one model content
    assert out[1]['role']=='model' and out[1]['parts']==[p for ps in chunks for p in ps] and len(out)==2
    d.messages[0].content = 'Capital of France, please?'  # edited before the reply: its state goes, its words stay
    assert dlg2chat(d, 'gemini')[1]=={'role': 'model', 'parts': [{'text': 'The capital of France is **Paris**.\n\nIt is on the Seine.'}]}

def test_text_parts_in_a_row_are_one_text():
    "A model content's text parts in a row join as they are, as the SDK's `response.text` joins them"
    model = {'role': 'model', 'parts': [{'text': 'a'}, {'text': 'b'}, {'text': '\n'}, {'text': 'c'}]}
    r = types.GenerateContentResponse.model_validate({'candidates': [{'content': model}]})
    d = chat2dlg([{'role': 'user', 'parts': [{'text': 'q'}]}, model], 'gemini')
    assert d.messages[0].ai_res==r.text=='ab\nc' and dlg2chat(d, 'gemini')[1]['parts']==[{'text': 'ab\nc'}]
    # a thought between them parts them: the thinking shows between two texts of the reply
    model['parts'].insert(2, {'text': 'hmm', 'thought': True})
    d = chat2dlg([{'role': 'user', 'parts': [{'text': 'q'}]}, model], 'gemini')
    assert d.messages[0].ai_res.startswith('ab\n') and d.messages[0].ai_res.endswith('\nc') and 'hmm' in d.messages[0].ai_res

@pytest.mark.parametrize('mime,uri', [('image/png', 'https://generativelanguage.googleapis.com/v1beta/files/abc123'), ('image/webp', 'gs://my-bucket/screens/home'), ('image/png', 'https://example.com/a.jpg')])
def test_an_image_by_uri_keeps_its_type(mime, uri):
    "A `fileData` image goes back with the type it came with (a Files API or `gs://` URI has no extension to tell it by), through a file and the real client"
    h = [{'role': 'user', 'parts': [{'text': 'What is this?'}, {'fileData': {'mimeType': mime, 'fileUri': uri}}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'gemini')))
    assert f'"sent as {mime}")' in d.messages[0].content
    assert dlg2chat(d, 'gemini')==h
    _, body, _ = Gemini().send(d)
    f = body['contents'][0]['parts'][1]['fileData']  # the client spells its keys as it likes
    assert (f.get('mimeType') or f.get('mime_type'), f.get('fileUri') or f.get('file_uri'))==(mime, uri)
    if uri.startswith('https://example.com/'):  # the others fetch it by URL as before (a Gemini-only URI they refuse)
        assert dlg2chat(d, 'openai')[0]['content'][1]=={'type': 'image_url', 'image_url': {'url': uri}}

@pytest.mark.parametrize('bad,msg', [
    ([{'role': 'model', 'parts': [{'functionCall': {'name': ['f'], 'args': {}}}]}], 'message 1: part 0: a functionCall needs a name'),
    ([{'role': 'model', 'parts': [{'functionCall': {'name': 'f', 'args': {}}}]}, {'role': 'user', 'parts': [{'functionResponse': {'name': {'n': 1}, 'response': {}}}]}],
     'message 2: part 0: a functionResponse needs a name'),
    ([{'role': 'model', 'parts': [{'text': 'ok'}]}, {'role': 'user', 'parts': [{'fileData': {'mimeType': 'image/png', 'fileUri': ''}}]}], 'message 2: part 0: a fileData needs a fileUri')])
def test_bad_names_and_uris_are_value_errors(bad, msg):
    "A name that isn't a string, an empty URI: a ValueError naming the content and part, never a TypeError"
    with pytest.raises(ValueError, match=msg): chat2dlg([{'role': 'user', 'parts': [{'text': 'hi'}]}] + bad, 'gemini')

def test_errors_in_a_run_of_model_contents_name_their_own_place():
    "Model contents in a row read as one, but a bad part is named where it is: its own content and part (it was the run's first content, and the part's place in the run)"
    h = [{'role': 'user', 'parts': [{'text': 'q'}]}, {'role': 'model', 'parts': [{'text': 'a'}]}, {'role': 'model', 'parts': [{'text': 'b'}, {'executableCode': {'code': 'x'}}]}]
    with pytest.raises(ValueError, match=r'message 2: unsupported or malformed part 1 \(executableCode\)'): chat2dlg(h, 'gemini')
    h[2]['parts'][1] = {'functionCall': {'name': ['f']}}
    with pytest.raises(ValueError, match='message 2: part 1: a functionCall needs a name'): chat2dlg(h, 'gemini')
    h[2]['parts'][1] = 'x'
    with pytest.raises(ValueError, match='message 2: part 1 must be an object'): chat2dlg(h, 'gemini')

def test_streamed_thinking_reads_as_one_thinking():
    "Thought parts in a row (a thought streamed in chunks) are one thinking, joined as they are, as the answer's texts are"
    chunks = [[{'text': 'Let me ', 'thought': True}], [{'text': 'think about what', 'thought': True}], [{'text': ' the user wants.', 'thought': True}],
              [{'text': 'Paris.', 'thoughtSignature': 'CpwBAQ=='}]]
    chat, _ = _streamed(chunks)
    for _ in chat.send_message_stream('Capital of France?'): pass
    d = reads_ipynb(write_ipynb(chat2dlg(chat.get_history(), 'gemini')))
    r = d.messages[0].ai_res
    assert r.count('## Thinking')==1 and 'Let me think about what the user wants.' in r and r.endswith('Paris.')
    assert dlg2chat(d, 'gemini')[1]['parts']==[p for ps in chunks for p in ps]

_clip = {'fileData': {'mimeType': 'video/mp4', 'fileUri': 'https://generativelanguage.googleapis.com/v1beta/files/abc123'},
         'videoMetadata': {'startOffset': '1250s', 'endOffset': '1570s', 'fps': 5}}
_sharp = {'inlineData': {'mimeType': 'image/png', 'data': base64.b64encode(b'\x89PNG\r\n\x1a\n').decode()}, 'mediaResolution': {'level': 'MEDIA_RESOLUTION_HIGH'}}

@pytest.mark.parametrize('part,key', [(_clip, 'videoMetadata'), (_sharp, 'mediaResolution'),
                                      (types.Part(file_data=types.FileData(mime_type='video/mp4', file_uri='https://x/f'),
                                                  video_metadata=types.VideoMetadata(fps=5)), 'video_metadata')])
def test_a_media_parts_own_settings_are_refused_not_dropped(part, key):
    "A media part's settings (a video clip, a resolution) have no place in a dialog: refused by name, where they went back without a word (the whole video, the default resolution)"
    contents = [{'role': 'user', 'parts': [part, {'text': 'What happens here?'}]}]
    with pytest.raises(ValueError, match=f"message 0: part 0: a media part's {key} can't be kept"): chat2dlg(contents, 'gemini')
    plain = {k:v for k,v in (part.items() if isinstance(part, dict) else [('fileData', {'mimeType': 'video/mp4', 'fileUri': 'https://x/f'})]) if k in ('inlineData', 'fileData')}
    assert dlg2chat(chat2dlg([{'role': 'user', 'parts': [plain, {'text': 'q'}]}], 'gemini'), 'gemini')[0]['parts'][0]==plain # without them, as before

def _sdk_contents():
    png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==')
    return [types.Content(role='user', parts=[types.Part.from_bytes(data=png, mime_type='image/png'), types.Part(text='what is this?')]),
            types.Content(role='model', parts=[types.Part(function_call=types.FunctionCall(name='look', args={'x': 1}, id='c1'), thought_signature=b'sig')]),
            types.Content(role='user', parts=[types.Part(function_response=types.FunctionResponse(name='look', id='c1', response={'result': 'seen'},
                          parts=[types.FunctionResponsePart(inline_data=types.FunctionResponseBlob(mime_type='image/png', data=png))]))]),
            types.Content(role='model', parts=[types.Part(text='A pixel.')])]

@pytest.mark.parametrize('how', [{}, {'mode': 'json'}])
def test_an_sdk_contents_model_dump_reads_as_the_sdk_object(how):
    "A content's `model_dump()` (every unset field None, bytes as bytes) or `model_dump(mode='json')` reads as the SDK object does: it was refused ('a functionResponse must be an object, not NoneType'), or a TypeError on bytes"
    cs = _sdk_contents()
    assert dlg2chat(chat2dlg([c.model_dump(**how) for c in cs], 'gemini'), 'gemini')==dlg2chat(chat2dlg(cs, 'gemini'), 'gemini')

def test_a_media_parts_false_thought_is_no_setting():
    "`thought: False` on a user's image part (a field at its default) reads as before the media-part settings were refused"
    d = chat2dlg([{'role': 'user', 'parts': [dict(_sharp, mediaResolution=None, thought=False), {'text': 'q'}]}], 'gemini')
    assert dlg2chat(d, 'gemini')[0]['parts'][0]=={k:_sharp[k] for k in ('inlineData',)}

def test_a_failed_result_goes_under_error_and_reads_back_as_one():
    "A result that failed (Anthropic's is_error) goes to Gemini under `error` (its SDK documents the key), not as a `result` like a success; read back, it is a failure again"
    h = [{'role': 'user', 'content': 'run it'},
         {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'run', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'boom', 'is_error': True}]},
         {'role': 'assistant', 'content': 'It failed.'}]
    cs = dlg2chat(chat2dlg(h, 'anthropic'), 'gemini')
    fr = [p['functionResponse'] for c in cs for p in c['parts'] if 'functionResponse' in p]
    assert [f['response'] for f in fr]==[{'error': 'boom'}]
    back = dlg2chat(chat2dlg(cs, 'gemini'), 'anthropic')
    res = [b for m in back if m['role']=='user' and isinstance(m['content'], list) for b in m['content'] if b.get('type')=='tool_result']
    assert res[0]['is_error'] is True and res[0]['content']=='boom'

def test_a_failure_is_said_to_formats_without_an_error_flag():
    "A Gemini `{'error': ...}` result, or an Anthropic is_error one, goes to Chat Completions and to a Responses function output (no error flag) with the failure said in its text: it went as the bare text, or '' (a call that succeeded silently)"
    def gm(err): return [{'role': 'user', 'parts': [{'text': 'find x'}]},
                         {'role': 'model', 'parts': [{'functionCall': {'name': 'find', 'args': {}, 'id': 'c1'}}]},
                         {'role': 'user', 'parts': [{'functionResponse': {'name': 'find', 'id': 'c1', 'response': {'error': err}}}]},
                         {'role': 'model', 'parts': [{'text': 'Not there.'}]}]
    for err,said in (('not found', '(error) not found'), ('', '(error: no output)')):
        d = chat2dlg(gm(err), 'gemini')
        assert [m['content'] for m in dlg2chat(d, 'openai') if m['role']=='tool']==[said]
        assert [x['output'] for x in dlg2chat(d, 'responses') if x.get('type')=='function_call_output']==[said]
        assert dlg2chat(d, 'gemini')[2]==gm(err)[2]  # Gemini's own error key, as it came

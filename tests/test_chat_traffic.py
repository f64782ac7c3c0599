"dialog.chat against real provider traffic (issue 17): requests go through the real OpenAI and Anthropic SDK clients on a mock transport"
import base64, importlib, io, json, random, sys, pytest
from pathlib import Path
import openai, anthropic
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.ipynb import read_ipynb, reads_ipynb, write_ipynb
from dialog.chat import *
import dialog.chat as chat
from chat_checks import check_history, anthropic_rules, openai_rules, AN_IMG_BYTES

fmts = ('openai', 'anthropic')
from shared_paths import need_corpus

# ---------- the real SDK clients, on a mock transport ----------
class Provider:
    "A provider's real SDK client whose HTTP goes to a handler: it records each request body and answers with the next canned response"
    def __init__(self, fmt, *responses):
        self.fmt, self.responses, self.bodies = fmt, list(responses), []
        sdk = openai if fmt == 'openai' else anthropic
        hx = importlib.import_module(next(c.__module__.split('.')[0] for c in sdk.DefaultHttpxClient.__mro__ if c.__name__ == 'Client'))  # the HTTP library the SDK itself builds on (httpx, or its fork httpx2)
        self.hx = hx
        http = hx.Client(transport=hx.MockTransport(self.handle))
        self.client = (openai.OpenAI(api_key='sk-test', base_url='https://api.test/v1', http_client=http, max_retries=0) if fmt == 'openai' else
                       anthropic.Anthropic(api_key='sk-test', base_url='https://api.test', http_client=http, max_retries=0))
    def handle(self, request):
        self.bodies.append(json.loads(request.content))
        return self.hx.Response(200, json=self.responses.pop(0) if self.responses else (oa_text('ok') if self.fmt == 'openai' else an_resp([{'type': 'text', 'text': 'ok'}])))
    def send(self, dlg, **kw):
        "Send `dlg` as `dlg2chat` renders it; returns (what we rendered, what the SDK put on the wire, the SDK's response)"
        msgs = dlg2chat(dlg, self.fmt, **kw)
        if self.fmt == 'openai': r = self.client.chat.completions.create(model='gpt-4o', messages=msgs)
        else: r = self.client.messages.create(model='claude-test', max_tokens=1024, messages=msgs, **({'system': dlg.system} if dlg.system else {}))
        body = self.bodies[-1]
        assert body['messages'] == msgs, 'the SDK sent something else than dlg2chat gave it'
        check_history(body['messages'], self.fmt)
        return msgs, body, r
    def reply(self, r):
        "The SDK response as the assistant message a history holds (what a host appends)"
        return r.choices[0].message.model_dump() if self.fmt == 'openai' else {'role': 'assistant', 'content': [b.model_dump() for b in r.content]}

def oa_resp(msg, finish='stop'):
    return {'id': 'chatcmpl-1', 'object': 'chat.completion', 'created': 1, 'model': 'gpt-4o', 'usage': {'prompt_tokens': 9, 'completion_tokens': 9, 'total_tokens': 18},
            'choices': [{'index': 0, 'finish_reason': finish, 'logprobs': None, 'message': {'role': 'assistant', 'content': None, 'refusal': None, 'annotations': []} | msg}]}
def oa_text(t): return oa_resp({'content': t})
def an_resp(content, stop='end_turn'):
    return {'id': 'msg_1', 'type': 'message', 'role': 'assistant', 'model': 'claude-test', 'content': content, 'stop_reason': stop,
            'stop_sequence': None, 'usage': {'input_tokens': 9, 'output_tokens': 9}}

def tools_of(d):
    return [(p['id'], p['name'], p['args'], p['result']) for m in d.messages for p in parse_reply(m.ai_res) if p['type'] == 'tool']

# ---------- realistic responses come back through chat2dlg with nothing lost ----------
def test_openai_parallel_tool_calls_roundtrip():
    calls = [{'id': 'call_a', 'type': 'function', 'function': {'name': 'weather', 'arguments': '{"city":"Paris"}'}},
             {'id': 'call_b', 'type': 'function', 'function': {'name': 'weather', 'arguments': '{"city":"Oslo"}'}}]
    p = Provider('openai', oa_resp({'tool_calls': calls}, 'tool_calls'), oa_text('Paris is warmer.'))
    d = Dialog('w'); d.system = 'Be brief.'
    d.mk_message('Which is warmer, Paris or Oslo?', msg_type=sprompt)
    sent, _, r = p.send(d)
    hist = sent + [p.reply(r), {'role': 'tool', 'tool_call_id': 'call_a', 'content': '21C', 'name': 'weather'}, {'role': 'tool', 'tool_call_id': 'call_b', 'content': '9C'}]
    d2 = chat2dlg(hist)
    assert tools_of(d2) == [('call_a', 'weather', {'city': 'Paris'}, '21C'), ('call_b', 'weather', {'city': 'Oslo'}, '9C')]
    assert '"raw_arguments": "{\\"city\\":\\"Paris\\"}"' in d2.messages[0].ai_res  # the model's exact string rides along
    sent2, body, r2 = p.send(d2)
    assert body['messages'][2]['tool_calls'] == calls and [m['role'] for m in sent2] == ['system', 'user', 'assistant', 'tool', 'tool']
    d3 = chat2dlg(sent2 + [p.reply(r2)])
    assert d3.messages[0].ai_res.endswith('Paris is warmer.') and tools_of(d3) == tools_of(d2)

def test_anthropic_thinking_and_parallel_calls_roundtrip():
    content = [{'type': 'thinking', 'thinking': 'Two cities: call the tool twice.', 'signature': 'EqQBCkgIAR'},
               {'type': 'redacted_thinking', 'data': 'EmwKAhgBEgy3va'},
               {'type': 'text', 'text': 'Checking both.'},
               {'type': 'tool_use', 'id': 'toolu_01A', 'name': 'weather', 'input': {'city': 'Paris', 'days': 3}},
               {'type': 'tool_use', 'id': 'toolu_01B', 'name': 'weather', 'input': {'city': 'Oslo', 'days': 3}}]
    p = Provider('anthropic', an_resp(content, 'tool_use'), an_resp([{'type': 'thinking', 'thinking': 'Compare.', 'signature': 's'}, {'type': 'text', 'text': 'Paris.'}]))
    d = Dialog('w'); d.system = 'Be brief.'
    d.mk_message('Which is warmer?', msg_type=sprompt)
    sent, _, r = p.send(d)
    hist = sent + [p.reply(r), {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_01A', 'content': '21C'},
                                                             {'type': 'tool_result', 'tool_use_id': 'toolu_01B', 'content': ''}]}]
    d2 = chat2dlg(hist, system=d.system)
    reply = d2.messages[0].ai_res
    assert reply.startswith(think_block('Two cities: call the tool twice.') + '\n\n' + think_block(None) + '\n\nChecking both.')
    assert '<!--think_start-->\n::: details\n\n## Thinking\n\nTwo cities' in reply and '*(redacted thinking)*' in reply
    assert tools_of(d2) == [('toolu_01A', 'weather', {'city': 'Paris', 'days': 3}, '21C'), ('toolu_01B', 'weather', {'city': 'Oslo', 'days': 3}, '')]
    # with reasoning=False thinking is not sent back; the calls go out together; the empty result as the placeholder
    _, body, _ = p.send(d2, reasoning=False)
    assert body['messages'][1] == {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Checking both.'}] + [{k: b[k] for k in ('type', 'id', 'name', 'input')} for b in content[3:]]}
    assert body['messages'][2]['content'][1] == {'type': 'tool_result', 'tool_use_id': 'toolu_01B', 'content': no_output}
    assert 'thinking' not in json.dumps(body['messages'])
    p.responses.insert(0, an_resp([{'type': 'thinking', 'thinking': 'Compare.', 'signature': 's'}, {'type': 'text', 'text': 'Paris.'}]))
    sent2, body, r2 = p.send(d2)  # by default the assistant turn goes back as the host got it, thinking and all (test_chat_reasoning)
    # the record as the SDK objects would send it: `model_dump()`'s None fields (a tool_use's `caller`, which the API refuses
    # as null) go, but a text's `citations`, which the API returns null (r32e item 1)
    sent1 = {**hist[1], 'content': [{k: v for k, v in b.items() if v is not None or k == 'citations'} for b in hist[1]['content']]}
    assert body['messages'][1] == sent1 and body['messages'][2] == hist[2] | {'content': [hist[2]['content'][0], {'type': 'tool_result', 'tool_use_id': 'toolu_01B', 'content': no_output}]}
    d3 = chat2dlg(sent2 + [p.reply(r2)], system=d.system)
    assert d3.messages[0].ai_res.endswith(think_block('Compare.') + '\n\nParis.') and tools_of(d3) == tools_of(d2)
    assert reads_ipynb(write_ipynb(d3)).messages[0].ai_res == d3.messages[0].ai_res

def test_openai_refusal_and_annotations_roundtrip():
    link = '([Louvre - Wikipedia](https://en.wikipedia.org/wiki/Louvre))'
    txt = f'The Louvre is in Paris {link}, by the Seine.'
    s = txt.index(link)
    ann = [{'type': 'url_citation', 'url_citation': {'start_index': s, 'end_index': s+len(link), 'title': 'Louvre - Wikipedia', 'url': 'https://en.wikipedia.org/wiki/Louvre'}},
           {'type': 'url_citation', 'url_citation': {'start_index': 0, 'end_index': 10, 'title': 'Paris [guide]', 'url': 'https://example.org/paris guide'}}]
    p = Provider('openai', oa_resp({'refusal': "I can't help with that."}), oa_resp({'content': txt, 'annotations': ann}))
    d = Dialog('r')
    d.mk_message('Help me pick a lock.', msg_type=sprompt)
    sent, _, r = p.send(d)
    d.messages[0].output = chat2dlg(sent + [p.reply(r)]).messages[0].output
    assert d.messages[0].ai_res == refusal_text("I can't help with that.")
    d.mk_message('Where is the Louvre?', msg_type=sprompt)
    sent, body, r = p.send(d)
    assert body['messages'][1] == {'role': 'assistant', 'content': "::: {.refusal}\nI can't help with that.\n:::"}
    d2 = chat2dlg(sent + [p.reply(r)])
    # the span that holds its link needs no footnote; the other gets one, after its span
    assert d2.messages[1].ai_res == f'The Louvre[^1] is in Paris {link}, by the Seine.\n\n[^1]: [Paris (guide)](https://example.org/paris%20guide)'
    p.send(d2)

def test_anthropic_web_search_citations_roundtrip():
    url = 'https://docs.python.org/3.13/whatsnew/3.13.html'
    content = [{'type': 'text', 'text': "I'll search."},
               {'type': 'server_tool_use', 'id': 'srvtoolu_01', 'name': 'web_search', 'input': {'query': 'python 3.13 features'}},
               {'type': 'web_search_tool_result', 'tool_use_id': 'srvtoolu_01', 'content': [{'type': 'web_search_result', 'url': url, 'title': "What's New", 'encrypted_content': 'Eq', 'page_age': None}]},
               {'type': 'text', 'text': 'Python 3.13 has '},
               {'type': 'text', 'text': 'an experimental free-threaded build', 'citations': [{'type': 'web_search_result_location', 'url': url, 'title': "What's New", 'cited_text': 'free-threaded mode', 'encrypted_index': 'x'}]},
               {'type': 'text', 'text': ' and a JIT', 'citations': [{'type': 'char_location', 'cited_text': 'a JIT compiler', 'document_index': 0, 'document_title': 'PEP 744', 'start_char_index': 0, 'end_char_index': 9}]},
               {'type': 'text', 'text': '.'}]
    p = Provider('anthropic', an_resp(content))
    d = Dialog('c'); d.mk_message("What's new in 3.13?", msg_type=sprompt)
    sent, _, r = p.send(d)
    d2 = chat2dlg(sent + [p.reply(r)])
    parts = parse_reply(d2.messages[0].ai_res)
    assert [x['type'] for x in parts] == ['text', 'tool', 'text']
    assert parts[1]['server'] and parts[1]['extra'] == {'result_type': 'web_search_tool_result'} and json.loads(parts[1]['result'])[0]['url'] == url
    assert parts[2]['text'] == ('Python 3.13 has an experimental free-threaded build[^1] and a JIT[^2].\n\n'
                                f'[^1]: [What\'s New]({url}) "free-threaded mode"\n[^2]: PEP 744 "a JIT compiler"')
    d2.mk_message('Thanks!', msg_type=sprompt)
    _, body, _ = p.send(d2)
    assert body['messages'][1]['role'] == 'assistant' and body['messages'][1]['content'][1:3] == content[1:3]  # the server call goes back to Anthropic as its own blocks (issue 30)
    oa = json.dumps(dlg2chat(d2, 'openai'))
    assert 'was run by the provider' in oa and url in oa and 'encrypted_content' not in oa  # to another provider as a short text, no blobs

# ---------- 1. raw messages are context ----------
def test_raw_message_is_sent_as_context():
    d = Dialog('raw')
    d.mk_message('alpha\nbeta\ngamma\ndelta', msg_type=sraw, id='r1')
    d.mk_message('secret', msg_type=sraw, id='r2', meta={'skipped': True})
    d.mk_message('In the raw message above, move lines 2&3 to the end', msg_type=sprompt, id='p1')
    for fmt in fmts:
        sent, body, _ = Provider(fmt).send(d)
        assert sent[0]['content'] == '<raw id="r1">\nalpha\nbeta\ngamma\ndelta\n</raw>\n\nIn the raw message above, move lines 2&3 to the end'
        assert 'secret' not in json.dumps(body)

# ---------- 2. tool ids and results the provider would refuse ----------
def test_foreign_and_duplicate_ids_and_empty_results():
    "An id of another provider, an id reused within the request, and empty results: sent as valid ids and a placeholder; the dialog keeps its own"
    d = Dialog('ids')
    b = lambda i, r: tool_block(i, 'add_msg', {'txt': i}, r)
    d.mk_message('go', msg_type=sprompt, output=b('functions.add_msg:0', '') + '\n' + b('functions.add_msg:0', ' \n') + '\n\nAgain:\n\n' + b('toolu_x', 'ok'))
    d.mk_message('and again', msg_type=sprompt, output=b('toolu_x', 'ok2') + '\n\nDone.')
    before = write_ipynb(d)
    an, _, _ = Provider('anthropic').send(d)
    uses = [x['id'] for m in an if m['role'] == 'assistant' and isinstance(m['content'], list) for x in m['content'] if x['type'] == 'tool_use']
    assert uses == [tool_id('functions.add_msg:0'), tool_id('functions.add_msg:0') + '-2', 'toolu_x', 'toolu_x-2']
    results = [x for m in an if m['role'] == 'user' and isinstance(m['content'], list) for x in m['content'] if x['type'] == 'tool_result']
    assert [(x['tool_use_id'], x['content']) for x in results] == list(zip(uses, [no_output, no_output, 'ok', 'ok2']))
    oa, _, _ = Provider('openai').send(d)
    assert [m['tool_call_id'] for m in oa if m['role'] == 'tool'] == ['functions.add_msg:0', 'functions.add_msg:0-2', 'toolu_x', 'toolu_x-2']
    assert [m['content'] for m in oa if m['role'] == 'tool'] == ['', ' \n', 'ok', 'ok2']  # OpenAI takes an empty result
    assert write_ipynb(d) == before  # the dialog keeps the original ids
    assert dlg2chat(d, 'anthropic') == an  # deterministic

@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.text(min_size=0, max_size=70), st.sampled_from(['', ' ', 'r'])), min_size=1, max_size=6), st.booleans())
def test_any_ids_give_valid_requests(calls, par):
    "Whatever the ids (any text, repeated, empty, long), both providers' rules hold and each result answers its own call"
    d = Dialog('g')
    d.mk_message('q', msg_type=sprompt, output=('\n' if par else '\n\n').join(tool_block(i, 'f', {'n': k}, r) for k, (i, r) in enumerate(calls)))
    for fmt in fmts:
        h = dlg2chat(d, fmt)
        check_history(h, fmt)
        if fmt == 'openai': got = [(json.loads(tc['function']['arguments'])['n'], tc['id']) for m in h for tc in m.get('tool_calls', [])]; res = [m['tool_call_id'] for m in h if m['role'] == 'tool']
        else:
            got = [(x['input']['n'], x['id']) for m in h if isinstance(m['content'], list) for x in m['content'] if x['type'] == 'tool_use']
            res = [x['tool_use_id'] for m in h if isinstance(m['content'], list) for x in m['content'] if x['type'] == 'tool_result']
        assert [n for n, _ in got] == list(range(len(calls))) and [i for _, i in got] == res

def test_tool_id_mapping_is_a_function_of_the_id():
    assert tool_id('a.b') == tool_id('a.b') != tool_id('a:b')
    assert tool_id('a.b').startswith('a_b_') and tool_id('', 'openai') and tool_id('x' * 41, 'openai') != tool_id('x' * 42, 'openai')
    with pytest.raises(ValueError, match='unknown chat format'): tool_id('a', 'bard')  # every format with a codec is one (gemini is, since issue 30)

# ---------- 3. weight and a tool message's name ----------
def test_weight_zero_survives_jsonl(tmp_path):
    h = [{'role': 'system', 'content': 'sys'}, {'role': 'user', 'content': 'a'}, {'role': 'assistant', 'content': 'bad answer', 'weight': 0},
         {'role': 'user', 'content': 'b'}, {'role': 'assistant', 'content': None, 'weight': 1, 'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]},
         {'role': 'tool', 'tool_call_id': 'c1', 'content': 'r'}, {'role': 'assistant', 'content': 'good', 'weight': 0}]
    fn = tmp_path/'ft.jsonl'
    fn.write_text(json.dumps({'messages': h}) + '\n')
    ds = jsonl2dlgs(fn)
    assert [m.meta for m in ds[0].messages] == [{'dialog': {'weight': 0}}, {'dialog': {'weight': [1, 0]}}]
    out = dlgs2jsonl(ds, tmp_path/'out.jsonl')
    got = json.loads(out.read_text())['messages']
    assert [m.get('weight') for m in got] == [m.get('weight') for m in h]
    assert dlgs2jsonl(jsonl2dlgs(out), tmp_path/'again.jsonl').read_text() == out.read_text()
    assert all('weight' not in m for m in dlg2chat(ds[0]))  # never sent to the API, which refuses the key
    assert reads_ipynb(write_ipynb(ds[0])).messages[0].meta == {'dialog': {'weight': 0}}  # and the file keeps it

def test_bad_weight_is_a_valueerror():
    for w, err in [(2, 'weight must be 0 or 1'), ('0', 'weight must be 0 or 1')]:
        with pytest.raises(ValueError, match=err): chat2dlg([{'role': 'user', 'content': 'a'}, {'role': 'assistant', 'content': 'x', 'weight': w}])
    with pytest.raises(ValueError, match="'weight' on a user message"): chat2dlg([{'role': 'user', 'content': 'a', 'weight': 0}])

def test_tool_message_name_kept_when_it_says_something():
    h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': None, 'tool_calls': [
        {'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}, {'id': 'c2', 'type': 'function', 'function': {'name': 'g', 'arguments': '{}'}}]},
         {'role': 'tool', 'tool_call_id': 'c1', 'content': 'r1', 'name': 'f'}, {'role': 'tool', 'tool_call_id': 'c2', 'content': 'r2', 'name': 'g_v2'}]
    d = chat2dlg(h)
    assert [p['extra'] for p in parse_reply(d.messages[0].ai_res)] == [{}, {'result_name': 'g_v2'}]
    assert dlg2chat(d) == [{k: v for k, v in m.items() if k != 'name'} for m in h]

# ---------- 4. images ----------
def _png(w, h, noise=False):
    from PIL import Image
    im = Image.frombytes('RGB', (w, h), random.Random(0).randbytes(w*h*3)) if noise else Image.new('RGB', (w, h), 'red')
    b = io.BytesIO(); im.save(b, 'PNG', compress_level=1); return b.getvalue()

def _img_dialog(datas, mime='image/png'):
    d = Dialog('img')
    m = d.mk_message('', msg_type=sprompt, id='m1')
    refs = [f'![i](attachment:{m.mk_attachment(x, mime, f"i{k}").id})' for k, x in enumerate(datas)]
    m.content = 'Look:\n\n' + '\n\n'.join(refs)
    return d

@pytest.mark.slow
def test_image_over_the_byte_limit_is_resized():
    pytest.importorskip('PIL')
    big = _png(1600, 1300, noise=True)
    assert len(base64.b64encode(big)) > AN_IMG_BYTES
    d = _img_dialog([big])
    an, _, _ = Provider('anthropic').send(d)  # check_history checks the limits
    src = an[0]['content'][1]['source']
    assert len(src['data']) <= AN_IMG_BYTES and src['media_type'] == 'image/png'
    w, h = img_size(base64.b64decode(src['data']))
    assert abs(w/h - 1600/1300) < 0.01
    oa, _, _ = Provider('openai').send(d)
    assert oa[0]['content'][1]['image_url']['url'].endswith(base64.b64encode(big).decode())  # within OpenAI's 20 MB: unchanged
    assert d.messages[0].attachments[0].data == big

def test_many_images_use_the_smaller_edge():
    pytest.importorskip('PIL')
    wide = _png(2100, 10)
    an = dlg2chat(_img_dialog([wide]*21), 'anthropic')
    anthropic_rules(an)
    assert {img_size(base64.b64decode(b['source']['data'])) for b in an[0]['content'] if b['type'] == 'image'} == {(2000, 9)}
    an = dlg2chat(_img_dialog([wide]*20), 'anthropic')
    assert {img_size(base64.b64decode(b['source']['data'])) for b in an[0]['content'] if b['type'] == 'image'} == {(2100, 10)}

def test_oversized_image_without_pillow_is_refused_before_any_request(monkeypatch):
    monkeypatch.setitem(sys.modules, 'PIL', None)  # as if Pillow were not installed
    p = Provider('anthropic')
    d = _img_dialog([b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + (9000).to_bytes(4, 'big') + (20).to_bytes(4, 'big') + b'\x08\x02\x00\x00\x00'])
    with pytest.raises(ValueError, match=r"dialog 'img': message 'm1': an image \(image/png, 9000x20 px.*over anthropic's limit of 5242880 bytes and 8000 px.*nbdialog\[images\]"): p.send(d)
    assert p.bodies == []
    d2 = _img_dialog([b'\x89PNG\r\n\x1a\n' + b'\0' * (4 * 2**20)])  # over 5 MB of base64, size unreadable
    with pytest.raises(ValueError, match=r"message 'm1'.*5242880 bytes"): dlg2chat(d2, 'anthropic')
    assert dlg2chat(d2)  # OpenAI takes it
    with pytest.raises(ValueError, match=r'nbdialog\[images\]'): fit_image(b'', 'image/png', 10)

@pytest.mark.parametrize('fmt,kw', [('PNG', {}), ('GIF', {}), ('JPEG', {}), ('JPEG', {'progressive': True}), ('WEBP', {}), ('WEBP', {'lossless': True}), ('RGBA-WEBP', {})])
def test_img_size_reads_every_header(fmt, kw):
    Image = pytest.importorskip('PIL.Image')
    im = Image.new('RGBA' if fmt.startswith('RGBA') else 'RGB', (1234, 567), 'blue')
    b = io.BytesIO(); im.save(b, fmt.split('-')[-1], **kw)
    assert img_size(b.getvalue()) == (1234, 567)
    assert img_size(b'not an image') is None and img_size(b'') is None

@pytest.mark.parametrize('mime', ['image/png', 'image/jpeg', 'image/webp', 'image/gif'])
def test_fit_image_keeps_aspect_and_type(mime):
    Image = pytest.importorskip('PIL.Image')
    b = io.BytesIO(); Image.new('RGB', (3000, 1000), 'green').save(b, mime.split('/')[1].upper())
    m, data = fit_image(b.getvalue(), mime, 10**6, 1500)
    assert m == (mime if mime != 'image/gif' else 'image/png') and img_size(data) == (1500, 500)

def test_url_images_through_both_sdks():
    h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'What is it?'}, {'type': 'image_url', 'image_url': {'url': 'https://upload.example/cat.jpg'}}]}]
    d = chat2dlg(h)
    oa, _, _ = Provider('openai').send(d)
    assert oa == h
    an, _, _ = Provider('anthropic').send(d)
    assert an[0]['content'][1] == {'type': 'image', 'source': {'type': 'url', 'url': 'https://upload.example/cat.jpg'}}
    assert dlg2chat(chat2dlg(an)) == h

# ---------- 5. token estimates ----------
def _corpus_messages():
    for f in sorted(need_corpus().rglob('*.ipynb')):
        try: d = read_ipynb(f)
        except ValueError: continue
        for m in d.messages:
            for fmt in fmts: yield from dlg2chat(d, fmt, msgs=[m])

@pytest.mark.slow
@pytest.mark.parametrize('heuristic', [False, True])
def test_token_estimate_never_undercounts_tiktoken_much(monkeypatch, heuristic):
    "On every message of the real corpus, the estimate (tiktoken, or the heuristic without it) is at least 75% of tiktoken's count of the same JSON"
    enc = chat._tiktoken()
    if enc is None: pytest.skip('tiktoken and its cl100k_base encoding are not available')
    if heuristic: monkeypatch.setattr(chat, '_tiktoken', lambda: None)
    n = 0
    for pm in _corpus_messages():
        imgs = []
        exact = len(enc.encode(json.dumps(chat._sans_imgs(pm, imgs), ensure_ascii=False), disallowed_special=()))
        est = count_tokens(pm) - len(imgs)*img_tokens
        assert est >= 0.75*exact, f'{est} < 75% of {exact}: {json.dumps(pm)[:200]}'
        n += 1
    assert n > 1000

def test_tool_inputs_count():
    "Keys and numbers inside an Anthropic tool input were not counted: 20 estimated for a call of thousands of tokens"
    msg = {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 't', 'name': 'add_rows', 'input': {'rows': [{'id': i, 'v': i*1.5} for i in range(500)]}}]}
    assert count_tokens(msg) > 5000  # 500 rows of `{"id": N, "v": N.5}`
    d = Dialog('b')
    d.mk_message('x'*10, msg_type=sprompt, output=tool_block('t', 'add_rows', msg['content'][0]['input'], ''))
    d.mk_message('next', msg_type=sprompt)
    assert dlg2chat(d, 'anthropic', budget=1000) == [{'role': 'user', 'content': 'next'}]  # the big call no longer fits

# ---------- 6. bad input ----------
@pytest.mark.parametrize('attr,v,err', [('meta', 'oops', 'meta must be a dict'), ('meta', None, 'meta must be a dict'), ('content', 5, 'content must be a str'),
                                        ('content', ['a'], 'content must be a str'), ('content', None, 'content must be a str'), ('attachments', 5, 'attachments must be a list'),
                                        ('output', [{'output_type': 'stream', 'name': 'stdout', 'text': 5}], "output 0 text must be a string")])
@pytest.mark.parametrize('kind', [snote, scode, sprompt, sraw])
def test_malformed_message_is_a_valueerror_naming_dialog_and_message(attr, v, err, kind):
    d = Dialog('bad')
    d.mk_message('ok', msg_type=snote)
    m = d.mk_message('x', msg_type=kind, id='m9')
    setattr(m, attr, v)
    if attr == 'output' and kind not in (scode,): return  # only a code message's outputs are sent
    for fmt in fmts:
        with pytest.raises(ValueError, match=f"dialog 'bad': message 'm9'.*{err}"): dlg2chat(d, fmt)

def test_lone_surrogates_reach_the_sdks_as_escapes():
    d = Dialog('s'); d.system = 'sys \udc80'
    d.mk_message('print(b)', id='c', output=[{'output_type': 'stream', 'name': 'stdout', 'text': 'bytes \udcff\udcfe\n'}])
    d.mk_message('why \ud83d\ude00 \ud800?', msg_type=sprompt, output=tool_block('id\udc80', 'f', {'k\ud800': 'v\udfff'}, 'r\udc00'))
    d.mk_message('next', msg_type=sprompt)
    for fmt in fmts:
        msgs = dlg2chat(d, fmt)
        js = json.dumps(msgs, ensure_ascii=False)
        js.encode('utf-8')
        user = msgs[1 if fmt == 'openai' else 0]['content']
        assert '\\udcff\\udcfe' in user and 'why 😀 \\ud800?' in user  # lone ones as their escapes, a pair joined
        p = Provider(fmt)
        if fmt == 'openai': p.client.chat.completions.create(model='m', messages=msgs)
        else: p.client.messages.create(model='m', max_tokens=5, messages=msgs)
        assert p.bodies[-1]['messages'] == msgs
    assert d.messages[0].output[0]['text'] == 'bytes \udcff\udcfe\n'  # the dialog keeps its text

# ---------- 7. a small budget never trims to [] ----------
@pytest.mark.parametrize('fmt', fmts)
def test_small_budget_keeps_the_newest_message(fmt):
    d = Dialog('notes')
    for i in range(5): d.mk_message(f'note {i} ' * 50, msg_type=snote, id=f'n{i}')
    h = dlg2chat(d, fmt, budget=1)
    assert h == [{'role': 'user', 'content': f'<note id="n4">\n{"note 4 " * 50}\n</note>'}]
    Provider(fmt).send(d, budget=1)
    d2 = Dialog('c'); d2.mk_message('x = 1', id='c1')
    assert dlg2chat(d2, fmt, budget=0) == dlg2chat(d2, fmt)

# ---------- 8. re-running a prompt ----------
@pytest.mark.parametrize('fmt', fmts)
def test_rerun_prompt_sends_no_stale_reply(fmt):
    d = Dialog('rerun')
    d.mk_message('First?', msg_type=sprompt, output='One.')
    d.mk_message('a note', msg_type=snote, id='n1')
    p = d.mk_message('Second?', msg_type=sprompt, output=tool_block('t1', 'f', {}, 'r') + '\n\nOld answer.')
    d.mk_message('Third?', msg_type=sprompt, output='Three.')
    sent, _, _ = Provider(fmt).send(d, upto=p)
    assert sent[-1]['role'] == 'user' and 'Old answer' not in json.dumps(sent) and 'Third' not in json.dumps(sent)
    assert sent[-1]['content'] == '<note id="n1">\na note\n</note>\n\nSecond?'
    assert dlg2chat(d, fmt, upto=p.id) == sent
    assert dlg2chat(d, fmt, msgs=d.messages[:3], upto='n1')[-1]['content'] == '<note id="n1">\na note\n</note>'
    with pytest.raises(KeyError, match='nope'): dlg2chat(d, fmt, upto='nope')
    # what upto avoids: cutting the messages alone ends the list with the stale reply, which a model reads as a prefill to continue
    assert dlg2chat(d, fmt, msgs=d.messages[:3])[-1]['role'] == 'assistant'

# ---------- the corpus sweep, through the SDKs ----------
def test_corpus_dialogs_go_through_both_sdks():
    "Every notebook of the corpus that reads as a dialog (all of it but the ones nbformat's own tests keep as invalid or too old) goes through both SDKs"
    from dialog.ipynb import DialogFormatError
    sent, unreadable = [], []
    for f in sorted(need_corpus().rglob('*.ipynb')):
        try: d = read_ipynb(f)
        except DialogFormatError: unreadable.append(f.name); continue
        d.mk_message('Summarise this notebook.', msg_type=sprompt)
        for fmt in fmts: Provider(fmt).send(d)
        sent.append(f.parent.name)
    assert sent.count('fastcore-nbs') == 22 and sent.count('jupyter-nbformat-tests') == 9
    assert all(n.startswith(('invalid', 'test2', 'test3', 'test4plus', 'v4_5_invalid')) for n in unreadable), unreadable

def test_anthropic_turn_paused_on_a_server_call_goes_back_as_it_came(tmp_path):
    "stop_reason pause_turn on a server_tool_use with no result yet: the call goes back as its block, to run now, never as text saying it ran (r32e item 3)"
    for think in ([], [{'type': 'thinking', 'thinking': 'Search first.', 'signature': 'EqQB'}]):
        content = think + [{'type': 'text', 'text': 'Let me search.'},
                           {'type': 'server_tool_use', 'id': 'srvtoolu_01', 'name': 'web_search', 'input': {'query': 'latest X news'}}]
        p = Provider('anthropic', an_resp(content, 'pause_turn'))
        d = Dialog('s'); d.mk_message("What's the latest news about X?", msg_type=sprompt)
        sent, _, r = p.send(d)
        write_ipynb(chat2dlg(sent + [{'role': 'assistant', 'content': r.content}]), tmp_path/'paused.ipynb')
        d2 = reads_ipynb((tmp_path/'paused.ipynb').read_text())
        _, body, _ = p.send(d2)
        assert body['messages'][-1] == {'role': 'assistant', 'content': content}  # the paused response, as Anthropic says to continue it
        oa = json.dumps(dlg2chat(d2, 'openai'))
        assert 'was run by the provider' not in oa and 'paused by the provider before it ran' in oa

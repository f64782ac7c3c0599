"OpenAI Responses items as a wire format (issue 30): read and written, reasoning items kept, through the real SDK client on a mock transport"
import json, subprocess, sys, pytest
import openai
from pydantic import TypeAdapter, ConfigDict
from openai.types.responses import ResponseInputParam
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import *
from test_chat_traffic import Provider
from test_chat_providers import dialogs

_ta = TypeAdapter(ResponseInputParam)

def responses_rules(items):
    "The input validates as the SDK's ResponseInputParam; every call is answered, in order, by an output before the next user message, and no output answers no call; call ids unique"
    _ta.validate_python(items)
    calls, seen = [], []
    for i, x in enumerate(items):
        t = x.get('type', 'message')
        if t in ('function_call', 'custom_tool_call', 'computer_call', 'local_shell_call', 'shell_call'): calls.append(x['call_id']); seen.append(x['call_id'])
        elif t.endswith('_call_output'):
            assert calls and calls[0] == x['call_id'], f'output at {i} for {x["call_id"]} answers no pending call ({calls})'
            calls.pop(0)
        elif t == 'message' and x.get('role') == 'user': assert not calls, f'user message at {i} before outputs of {calls}'
        if t == 'message': assert x.get('content') not in (None, '', []), f'empty message at {i}'
    assert len(seen) == len(set(seen)), f'duplicate call ids {seen}'

class RProvider(Provider):
    def __init__(self, *responses):
        super().__init__('openai', *responses)
        self.fmt = 'responses'
    def handle(self, request):
        self.bodies.append(json.loads(request.content))
        return self.hx.Response(200, json=self.responses.pop(0) if self.responses else rs_resp([{'type': 'message', 'id': 'msg_x', 'role': 'assistant', 'status': 'completed', 'content': [{'type': 'output_text', 'text': 'ok', 'annotations': []}]}]))
    def send(self, dlg, **kw):
        items = dlg2chat(dlg, 'responses', **kw)
        r = self.client.responses.create(model='gpt-5', input=items, **({'instructions': dlg.system} if dlg.system else {}))
        body = self.bodies[-1]
        assert body['input'] == items
        responses_rules(body['input'])
        return items, body, r

def rs_resp(output):
    return {'id': 'resp_1', 'object': 'response', 'created_at': 1, 'model': 'gpt-5', 'status': 'completed', 'output': output,
            'parallel_tool_calls': True, 'tool_choice': 'auto', 'tools': [], 'usage': {'input_tokens': 9, 'output_tokens': 9, 'total_tokens': 18}}

def test_tool_loop_with_reasoning_through_the_sdk():
    "`input += response.output`, then the function outputs: the reasoning items go back with their calls"
    out = [{'type': 'reasoning', 'id': 'rs_1', 'summary': [{'type': 'summary_text', 'text': 'Use wc.'}], 'encrypted_content': 'gAAAAB'},
           {'type': 'function_call', 'id': 'fc_1', 'call_id': 'call_1', 'name': 'shell', 'arguments': '{"cmd":"wc -l a.py"}', 'status': 'completed'}]
    p = RProvider(rs_resp(out))
    d = Dialog('codex'); d.system = 'You are a coding agent.'
    d.mk_message('Count the lines of a.py', msg_type=sprompt)
    sent, body, r = p.send(d)
    assert body['instructions'] == 'You are a coding agent.'
    hist = sent + list(r.output) + [{'type': 'function_call_output', 'call_id': 'call_1', 'output': '12 a.py'}]  # SDK objects, as the docs append them
    p.client.responses.create(model='gpt-5', input=hist)
    sdk = p.bodies[-1]['input']
    d2 = chat2dlg(hist, system=d.system)
    assert think_block('Use wc.') in d2.messages[0].ai_res
    _, body2, _ = p.send(d2)
    assert body2['input'] == sdk
    assert dlg2chat(reads_ipynb(write_ipynb(d2)), 'responses') == sdk
    assert 'gAAAAB' not in json.dumps(dlg2chat(d2, 'openai')) + json.dumps(dlg2chat(d2, 'anthropic'))  # never to another provider

def test_detected_and_importable_from_chat_alone():
    code = ("from dialog.chat import chat2dlg, dlg2chat\n"
            "h = [{'type': 'message', 'role': 'user', 'content': 'hi'}, {'type': 'function_call', 'call_id': 'c', 'name': 'f', 'arguments': '{}'}, {'type': 'function_call_output', 'call_id': 'c', 'output': '1'}]\n"
            "d = chat2dlg(h)\n"
            "print(dlg2chat(d, 'responses')[1:] == h[1:])")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.stdout.strip() == 'True', r.stderr

def test_edits_drop_reasoning_items_from_their_point_on():
    items = [{'role': 'user', 'content': 'go'},
             {'type': 'reasoning', 'id': 'rs_1', 'summary': [], 'encrypted_content': 'E1'},
             {'type': 'function_call', 'call_id': 'c1', 'name': 'f', 'arguments': '{}'},
             {'type': 'function_call_output', 'call_id': 'c1', 'output': 'one'},
             {'type': 'reasoning', 'id': 'rs_2', 'summary': [], 'encrypted_content': 'E2'},
             {'type': 'function_call', 'call_id': 'c2', 'name': 'f', 'arguments': '{}'},
             {'type': 'function_call_output', 'call_id': 'c2', 'output': 'two'}]
    d = chat2dlg(items)
    rs = lambda xs: [x['id'] for x in xs if x.get('type') == 'reasoning']
    assert dlg2chat(d, 'responses') == items
    m = d.messages[0]
    m.ai_res = m.ai_res.replace('"result": "one"', '"result": "uno"')
    assert rs(dlg2chat(d, 'responses')) == ['rs_1']
    assert rs(dlg2chat(d, 'responses', reasoning='keep')) == ['rs_1', 'rs_2']
    assert rs(dlg2chat(d, 'responses', reasoning=False)) == []
    responses_rules(dlg2chat(d, 'responses'))

def test_custom_tools_server_calls_and_refusals():
    items = [{'role': 'developer', 'content': 'Be careful.'}, {'role': 'user', 'content': [{'type': 'input_text', 'text': 'Patch it'}]},
             {'type': 'web_search_call', 'id': 'ws_1', 'status': 'completed', 'action': {'type': 'search', 'query': 'x'}},
             {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'Patching.'}]},
             {'type': 'custom_tool_call', 'call_id': 'call_9', 'name': 'apply_patch', 'input': '*** Begin Patch'},
             {'type': 'custom_tool_call_output', 'call_id': 'call_9', 'output': 'ok'},
             {'type': 'message', 'role': 'assistant', 'content': [{'type': 'refusal', 'refusal': 'No more.'}]}]
    d = chat2dlg(items)
    assert d.system == 'Be careful.'
    out = dlg2chat(d, 'responses')
    responses_rules(out)
    assert out[1:] == items[2:3] + [{'role': 'assistant', 'content': 'Patching.'}] + items[4:6] + [{'role': 'assistant', 'content': refusal_text('No more.')}]  # the web search as its own item
    assert 'web_search' in dlg2chat(d, 'openai')[2]['content']  # to others, as its text
    for fmt in ('openai', 'anthropic'): responses_rules(dlg2chat(chat2dlg(dlg2chat(d, fmt), fmt), 'responses'))

def test_images_and_trailing_calls():
    png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg=='
    h = [{'role': 'user', 'content': [{'type': 'input_text', 'text': 'What is it?'}, {'type': 'input_image', 'image_url': f'data:image/png;base64,{png}', 'detail': 'auto'},
                                      {'type': 'input_image', 'image_url': 'https://example.com/a.png', 'detail': 'auto'}]},
         {'type': 'function_call', 'call_id': 'c1', 'name': 'zoom', 'arguments': '{}'}]
    d = chat2dlg(h)
    assert len(d.messages[0].attachments) == 1
    assert dlg2chat(d, 'responses') == h  # ends with the call, not answered yet
    assert dlg2chat(d, 'openai')[0]['content'][1]['type'] == 'image_url'

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dialogs())
def test_generated_dialogs_give_valid_inputs(d):
    "Any dialog gives an input the SDK's types accept and the pairing rules allow; it reads back into a dialog that sends it again"
    items = dlg2chat(d, 'responses')
    responses_rules(items)
    assert dlg2chat(chat2dlg(items, 'responses', system=d.system), 'responses') == items

client_loops = {
 'computer': [{'role': 'user', 'content': 'click'}, {'type': 'computer_call', 'id': 'cu_1', 'call_id': 'call_1', 'action': {'type': 'click', 'x': 1, 'y': 2}, 'status': 'completed'},
              {'type': 'computer_call_output', 'call_id': 'call_1', 'output': {'type': 'computer_screenshot', 'image_url': 'https://example.com/s.png'}}, {'role': 'assistant', 'content': 'Clicked.'}],
 'codex local shell': [{'role': 'user', 'content': 'ls'}, {'type': 'local_shell_call', 'id': 'lsh_1', 'call_id': 'call_1', 'action': {'type': 'exec', 'command': ['ls']}, 'status': 'completed'},
              {'type': 'function_call_output', 'call_id': 'call_1', 'output': 'a b'}, {'role': 'assistant', 'content': 'Two files.'}],
 'shell': [{'role': 'user', 'content': 'ls'}, {'type': 'shell_call', 'id': 'sh_1', 'call_id': 'call_1', 'action': {'commands': ['ls']}, 'status': 'completed'},
              {'type': 'shell_call_output', 'call_id': 'call_1', 'output': [{'stdout': 'a', 'stderr': '', 'outcome': {'type': 'exit', 'exit_code': 0}}]}, {'role': 'assistant', 'content': 'One file.'}]}

@pytest.mark.parametrize('k', list(client_loops))
def test_host_run_calls_pair_with_their_outputs(k):
    "computer_call, local_shell_call and shell_call are the host's to run: read with their outputs (paired by call_id), written back as the same items, and as calls to other providers"
    h = client_loops[k]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    assert dlg2chat(d, 'responses') == h
    oa = dlg2chat(d, 'openai')
    assert oa[1]['tool_calls'][0]['id'] == 'call_1' and oa[2]['tool_call_id'] == 'call_1'

patch_call = {'type': 'apply_patch_call', 'id': 'apc_1', 'call_id': 'call_p', 'status': 'completed',
              'operation': {'type': 'update_file', 'path': 'a.py', 'diff': '@@\n-x = 1\n+x = 2\n'}}
host_loops = {
 'apply_patch': [{'role': 'user', 'content': 'Set x to 2 in a.py'}, {'type': 'reasoning', 'id': 'rs_1', 'summary': [], 'encrypted_content': 'ENC1'}, patch_call,
                 {'type': 'apply_patch_call_output', 'call_id': 'call_p', 'status': 'failed', 'output': 'hunk 1 did not apply'},
                 {'type': 'reasoning', 'id': 'rs_2', 'summary': [], 'encrypted_content': 'ENC2'},
                 {'type': 'message', 'id': 'msg_1', 'role': 'assistant', 'status': 'completed', 'content': [{'type': 'output_text', 'text': 'It failed.', 'annotations': []}]}],
 'client tool search': [{'role': 'user', 'content': 'Find my issues'},
                 {'type': 'tool_search_call', 'id': 'tsc_1', 'call_id': 'call_s', 'execution': 'client', 'status': 'completed', 'arguments': {'query': 'github issues'}},
                 {'type': 'tool_search_output', 'call_id': 'call_s', 'execution': 'client',
                  'tools': [{'type': 'function', 'name': 'search_issues', 'parameters': {'type': 'object', 'properties': {}}, 'strict': False}]},
                 {'role': 'assistant', 'content': 'Found the tool.'}]}

@pytest.mark.parametrize('k', list(host_loops))
def test_apply_patch_and_client_tool_search_are_host_run_calls(k):
    "An apply_patch_call and a tool_search_call the client runs are the host's calls: read with their outputs by call_id (the output was refused, the call read as a tool OpenAI ran), back to Responses as the same items (an applied patch's status too), a call and its result to other providers"
    h = host_loops[k]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    p = parse_reply(d.messages[0].ai_res)[0]
    assert not p['server'] and p['id'] in ('call_p', 'call_s') and p['result'] == ('hunk 1 did not apply' if k=='apply_patch' else json.dumps(h[2]['tools']))
    assert p['args'] == (patch_call['operation'] if k=='apply_patch' else {'query': 'github issues'})
    sent = dlg2chat(d, 'responses')
    _ta.validate_python(sent)
    assert sent[1:] == h[1:]
    oa = dlg2chat(d, 'openai')
    assert [m['role'] for m in oa] == ['user', 'assistant', 'tool', 'assistant'] and oa[2]['tool_call_id'] == p['id']

def test_a_tool_search_openai_ran_goes_back_verbatim():
    "A tool search OpenAI ran (`execution: \"server\"`): its call and the tools it found are OpenAI's own items, kept and sent back as they came (the output was refused)"
    h = [{'role': 'user', 'content': 'Find my issues'},
         {'type': 'tool_search_call', 'id': 'tsc_1', 'execution': 'server', 'status': 'completed', 'arguments': {'query': 'issues'}},
         {'type': 'tool_search_output', 'id': 'tso_1', 'execution': 'server', 'status': 'completed', 'tools': [{'type': 'function', 'name': 'search_issues', 'parameters': {}, 'strict': False}]},
         {'role': 'assistant', 'content': 'Found it.'}]
    d = chat2dlg(h, 'responses')
    assert all(p['server'] for p in parse_reply(d.messages[0].ai_res) if p['type']=='tool')
    sent = dlg2chat(d, 'responses')
    _ta.validate_python(sent)
    assert sent == h

def said(i, text, phase):
    return {'type': 'message', 'id': f'msg_{i}', 'role': 'assistant', 'status': 'completed', 'phase': phase,
            'content': [{'type': 'output_text', 'text': text, 'annotations': []}]}

def test_an_assistant_messages_phase_goes_back():
    "An assistant message's `phase` (commentary, final_answer), which OpenAI asks be resent on every assistant message, is kept with its turn and goes back on it, through a file and the real client, without reasoning items beside it (it was dropped); never to another provider"
    h = [{'role': 'user', 'content': 'Fix the failing test'}, said(1, 'Let me look at the test file first.', 'commentary'),
         {'type': 'function_call', 'id': 'fc_1', 'call_id': 'call_1', 'name': 'read', 'arguments': '{"p":"t.py"}', 'status': 'completed'},
         {'type': 'function_call_output', 'call_id': 'call_1', 'output': 'assert 1 == 2'},
         said(2, 'Fixed: the assertion was wrong.', 'final_answer'), {'role': 'user', 'content': 'Thanks, now run it'}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    items, body, _ = RProvider().send(d)
    assert [x.get('phase') for x in items if x.get('role')=='assistant'] == ['commentary', 'final_answer']
    assert items == h
    assert 'phase' not in json.dumps([dlg2chat(d, f) for f in ('openai', 'anthropic', 'gemini')])

@pytest.mark.parametrize('fast', [True, False])
def test_a_namespaced_calls_namespace_goes_back(fast):
    "A function or custom tool call's `namespace` (a namespaced tool's, as tool search hands them out) is kept in its block and goes back on the call, through a file, by either reading (it went back as a bare name); never to another provider"
    fc = {'type': 'function_call', 'call_id': 'call_1', 'name': 'search_issues', 'namespace': 'github', 'arguments': '{"q":"crash on start"}'}
    cc = {'type': 'custom_tool_call', 'call_id': 'call_2', 'name': 'grep', 'namespace': 'repo', 'input': 'crash'}
    h = [{'role': 'user', 'content': 'Any open crash reports?'}, fc, cc,
         {'type': 'function_call_output', 'call_id': 'call_1', 'output': '#12 Crash on start'}, {'type': 'custom_tool_call_output', 'call_id': 'call_2', 'output': 'a.py'},
         {'role': 'assistant', 'content': 'One: #12.'}, {'role': 'user', 'content': 'Close it'}]
    import dialog.responses  # registers its codec, whose fast reading this switches off
    cd = codecs['responses']; keep = cd.fast
    if not fast: cd.fast = None
    try: d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    finally: cd.fast = keep
    assert [p['extra'].get('namespace') for p in parse_reply(d.messages[0].ai_res) if p['type']=='tool'] == ['github', 'repo']
    items, body, _ = RProvider().send(d)
    assert items == h
    assert 'github' not in json.dumps([dlg2chat(d, f) for f in ('openai', 'anthropic', 'gemini')])

def test_mcp_call_keeps_its_tool_arguments_and_output():
    h = [{'role': 'user', 'content': 'x'}, {'type': 'mcp_call', 'id': 'mcp_1', 'server_label': 'docs', 'name': 'search_docs', 'arguments': '{"q":"dialog"}', 'output': '3 hits'},
         {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'ok'}]}]
    d = chat2dlg(h, 'responses')
    for s in ('search_docs', '3 hits', 'dialog'): assert s in d.messages[0].ai_res
    assert "search_docs(q='dialog')" in json.dumps(dlg2chat(d, 'anthropic'))  # as a short text to another provider

server_items = [{'role': 'user', 'content': 'Do things'},
 {'type': 'file_search_call', 'id': 'fs_1', 'status': 'completed', 'queries': ['q'], 'results': [{'file_id': 'f1', 'filename': 'a.txt', 'text': 't', 'score': 0.5, 'attributes': {}}]},
 {'type': 'code_interpreter_call', 'id': 'ci_1', 'status': 'completed', 'code': 'print(1)', 'container_id': 'cntr_1', 'outputs': [{'type': 'logs', 'logs': '1'}]},
 {'type': 'image_generation_call', 'id': 'ig_1', 'status': 'completed', 'result': 'iVBORw0KGgo='},
 {'type': 'mcp_list_tools', 'id': 'mcpl_1', 'server_label': 'deepwiki', 'tools': [{'name': 'ask', 'input_schema': {'type': 'object'}}]},
 {'type': 'web_search_call', 'id': 'ws_1', 'status': 'completed', 'action': {'type': 'search', 'query': 'x'}},
 {'type': 'mcp_approval_request', 'id': 'mcpr_1', 'server_label': 'deepwiki', 'name': 'ask', 'arguments': '{"q":"hi"}'},
 {'type': 'mcp_approval_response', 'approval_request_id': 'mcpr_1', 'approve': True},
 {'type': 'mcp_call', 'id': 'mcp_1', 'server_label': 'deepwiki', 'name': 'ask', 'arguments': '{"q":"hi"}', 'output': 'hello', 'error': None},
 {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'Done.'}]}]

def test_server_items_go_back_verbatim():
    "Items of tools OpenAI ran (file search, code interpreter, image generation, an MCP tool list, web search, mcp_call) and an MCP approval request with its response are kept and go back as they came, through the real client; other providers get short texts, no blobs"
    d = reads_ipynb(write_ipynb(chat2dlg(server_items, 'responses')))
    want = server_items[:-1] + [{'role': 'assistant', 'content': 'Done.'}]
    assert dlg2chat(d, 'responses') == want
    items, body, _ = RProvider().send(d)
    assert body['input'] == want
    for f in ('openai', 'anthropic', 'gemini'):
        s = json.dumps(dlg2chat(d, f))
        assert 'iVBORw0KGgo' not in s and 'cntr_1' not in s and 'code_interpreter' in s
    m = d.messages[0]; m.ai_res = m.ai_res.replace('\\"approve\\": true', '\\"approve\\": false')
    assert dlg2chat(d, 'responses')[7] == {'type': 'mcp_approval_response', 'approval_request_id': 'mcpr_1', 'approve': False}
    m.ai_res = m.ai_res.replace('{\\"approve\\": false}', 'yes')
    with pytest.raises(ValueError, match="the answer to MCP approval request 'mcpr_1' must be the JSON of an mcp_approval_response"): dlg2chat(d, 'responses')

def test_url_citations_show_as_footnotes_and_go_back_as_they_came():
    "A web-search answer's `url_citation` annotations: the dialog shows them as footnotes (as a Chat Completions answer's), other providers get them as text, and Responses gets the message back as it came, through the real client"
    ann = {'type': 'url_citation', 'url': 'https://example.com/cats', 'title': 'Cats', 'start_index': 0, 'end_index': 13}
    msg = {'type': 'message', 'id': 'msg_1', 'role': 'assistant', 'status': 'completed', 'content': [{'type': 'output_text', 'text': 'Cats purr a lot.', 'annotations': [ann]}]}
    rs = {'type': 'reasoning', 'id': 'rs_1', 'summary': [], 'encrypted_content': 'E1'}
    h = [{'role': 'user', 'content': 'Do cats purr?'}, rs, {'type': 'web_search_call', 'id': 'ws_1', 'status': 'completed', 'action': {'type': 'search', 'query': 'cats purr'}}, msg]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    assert d.messages[0].ai_res.endswith('Cats purr a l[^1]ot.\n\n[^1]: [Cats](https://example.com/cats)')
    d.mk_message('Why?', msg_type=sprompt)
    _, body, _ = RProvider().send(d)
    assert body['input'][:4] == h
    assert dlg2chat(d, 'anthropic')[1]['content'].endswith('[^1]: [Cats](https://example.com/cats)')
    plain = dlg2chat(chat2dlg([h[0], h[2], h[3]], 'responses'), 'responses')  # no reasoning, so no record: the message as the dialog shows it
    assert plain[2] == {'role': 'assistant', 'content': 'Cats purr a l[^1]ot.\n\n[^1]: [Cats](https://example.com/cats)'}

def test_footnotes_of_two_output_text_parts_are_numbered_through_the_message():
    "Two `output_text` parts of one message, each citing its own source: their footnotes are [^1] and [^2], each defined once (both were [^1], so the second claim read as the first source's)"
    import re
    a1 = [{'type': 'url_citation', 'start_index': 0, 'end_index': 5, 'url': 'https://a.org', 'title': 'A'}]
    a2 = [{'type': 'url_citation', 'start_index': 0, 'end_index': 5, 'url': 'https://b.org', 'title': 'B'}]
    h = [{'role': 'user', 'content': 'q'},
         {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'First', 'annotations': a1},
                                                               {'type': 'output_text', 'text': 'Other', 'annotations': a2}]}]
    md = chat2dlg(h, 'responses').messages[0].ai_res
    assert re.findall(r'^\[\^(\d+)\]: (.*)$', md, re.M) == [('1', md.split('[^1]: ')[1].split('\n')[0]), ('2', md.split('[^2]: ')[1].split('\n')[0])]
    assert 'a.org' in md.split('[^1]: ')[1].split('\n')[0] and 'b.org' in md.split('[^2]: ')[1]

def test_computer_screenshot_is_the_image_a_tool_returned():
    "A computer-use `computer_screenshot` (a data URL) is read as the image a tool returned: an image block to Claude, a short note to Chat Completions, never its base64 as text; back to Responses as the screenshot it was (it went to every provider as base64 text)"
    png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    shot = {'type': 'computer_call_output', 'call_id': 'call_1', 'output': {'type': 'computer_screenshot', 'image_url': 'data:image/png;base64,' + png}}
    h = [{'role': 'user', 'content': 'click the button'},
         {'type': 'computer_call', 'id': 'cu_1', 'call_id': 'call_1', 'action': {'type': 'screenshot'}, 'status': 'completed'}, shot,
         {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'I see a red screen.'}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    assert dlg2chat(d, 'responses')[2] == shot
    an = dlg2chat(d, 'anthropic')[2]['content'][0]['content']
    assert an == [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png}}]
    assert png[:20] not in json.dumps(dlg2chat(d, 'openai')) and png[:20] not in json.dumps(dlg2chat(d, 'gemini'), ensure_ascii=False).replace('"data": "' + png, '')

@pytest.mark.parametrize('how', ['actions', 'action'])
def test_computer_calls_keep_their_steps_and_safety_checks(how):
    "The GA computer tool's batch (`actions`) or the preview's `action`, its `pending_safety_checks` and the output's `acknowledged_safety_checks` go back as they came, through a file and the real client (the call went back as `action: {}`, the checks lost)"
    png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
    checks = [{'id': 'cu_sc_1', 'code': 'sensitive_domain', 'message': 'Typing a password'}]
    steps = {'actions': [{'type': 'click', 'button': 'left', 'x': 10, 'y': 20}, {'type': 'type', 'text': 'hunter2'}]} if how=='actions' else {'action': {'type': 'type', 'text': 'hunter2'}}
    call = {'type': 'computer_call', 'call_id': 'call_1'} | steps | {'status': 'completed', 'id': 'cu_1', 'pending_safety_checks': checks}
    out = {'type': 'computer_call_output', 'call_id': 'call_1', 'output': {'type': 'computer_screenshot', 'image_url': 'data:image/png;base64,' + png}, 'acknowledged_safety_checks': checks}
    h = [{'role': 'user', 'content': 'Log in.'}, call, out, {'role': 'assistant', 'content': 'Logged in.'}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'responses')))
    assert 'hunter2' in d.messages[0].output[0]['data']['text/markdown']  # the steps are in the reply, saved
    items, body, _ = RProvider().send(d)
    assert items[1:3]==[call, out]

def test_a_computer_call_dumped_by_the_sdk_reads():
    "An SDK item's `model_dump()` holds `action` and `actions` both, the one it hasn't None: the GA call reads as its actions (it was refused), and no None field goes back"
    from openai.types.responses import ResponseComputerToolCall
    ga = ResponseComputerToolCall.model_validate({'type': 'computer_call', 'id': 'cu_1', 'call_id': 'call_1', 'status': 'completed', 'pending_safety_checks': [],
                                                  'actions': [{'type': 'type', 'text': 'hi'}]}).model_dump()
    assert ga['action'] is None and ga['actions']
    out = {'type': 'computer_call_output', 'call_id': 'call_1', 'output': {'type': 'computer_screenshot', 'image_url': 'https://example.com/s.png'}}
    sent = dlg2chat(chat2dlg([{'role': 'user', 'content': 'go'}, ga, out], 'responses'), 'responses')[1]
    assert sent=={'type': 'computer_call', 'call_id': 'call_1', 'actions': [{'type': 'type', 'text': 'hi'}], 'status': 'completed', 'id': 'cu_1', 'pending_safety_checks': []}

def test_a_computer_call_output_dumped_by_the_sdk_sends_no_none_field():
    "The rest of a host-run call's output is read by the call's own rule: an SDK item's `model_dump()` holds None for each field it didn't give, which goes back as no field (it went back as `null`)"
    from openai.types.responses import ResponseComputerToolCall, ResponseComputerToolCallOutputItem
    call = ResponseComputerToolCall.model_validate({'type': 'computer_call', 'id': 'cu_1', 'call_id': 'call_1', 'status': 'completed', 'pending_safety_checks': [],
                                                    'actions': [{'type': 'type', 'text': 'hi'}]}).model_dump()
    shot = {'type': 'computer_screenshot', 'image_url': 'https://example.com/s.png'}
    out = ResponseComputerToolCallOutputItem.model_validate({'type': 'computer_call_output', 'id': 'cuo_1', 'status': 'completed', 'call_id': 'call_1', 'output': shot}).model_dump()
    assert out['acknowledged_safety_checks'] is None  # what the SDK dumps
    sent = dlg2chat(reads_ipynb(write_ipynb(chat2dlg([{'role': 'user', 'content': 'go'}, call, out], 'responses'))), 'responses')[2]
    assert sent.keys()=={'type', 'call_id', 'output'} and sent['call_id']=='call_1' and sent['output']['image_url']==shot['image_url']
    checks = [{'id': 'cu_sc_1', 'code': 'sensitive_domain', 'message': 'Typing a password'}]  # a field given still goes back
    out = out | {'acknowledged_safety_checks': checks}
    assert dlg2chat(chat2dlg([{'role': 'user', 'content': 'go'}, call, out], 'responses'), 'responses')[2]['acknowledged_safety_checks']==checks

def test_an_output_with_no_output_and_a_failed_status():
    "An apply_patch_call_output with `output: null` and status failed reads as no text and an error (Anthropic's is_error), not the text 'null'; Responses gets it back as it came, through a saved file too"
    from dialog.ipynb import reads_ipynb, write_ipynb
    items = [{'role': 'user', 'content': 'rename a to b in a.py'},
             {'type': 'apply_patch_call', 'id': 'ap_1', 'call_id': 'call_2', 'status': 'completed',
              'operation': {'type': 'update_file', 'path': 'a.py', 'diff': '@@\n-a\n+b\n'}},
             {'type': 'apply_patch_call_output', 'call_id': 'call_2', 'status': 'failed', 'output': None},
             {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'Done', 'annotations': []}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(items, 'responses')))
    assert dlg2chat(d, 'responses')[2]=={'type': 'apply_patch_call_output', 'call_id': 'call_2', 'output': None, 'status': 'failed'}
    assert [m['content'] for m in dlg2chat(d, 'openai') if m['role']=='tool']==['(error: no output)'] # no error flag there: said
    gm = [p['functionResponse'] for c in dlg2chat(d, 'gemini') for p in c['parts'] if 'functionResponse' in p]
    assert [g['response'] for g in gm]==[{'error': ''}] # the SDK's docs: an `error` key for a failure
    res = [b for m in dlg2chat(d, 'anthropic') if m['role']=='user' for b in m['content'] if isinstance(b, dict) and b.get('type')=='tool_result']
    assert len(res)==1 and res[0]['is_error'] is True and 'null' not in str(res[0]['content'])

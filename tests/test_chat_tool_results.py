"A tool result given as several parts goes back as those parts where the provider's wire takes them"
import base64, json, pytest
from dialog.core import *
from dialog.chat import *
from dialog.ipynb import reads_ipynb, write_ipynb
from chat_checks import check_history
from test_chat_traffic import Provider

def oa_loop(content):
    call = {'id': 'call_1', 'type': 'function', 'function': {'name': 'read', 'arguments': '{}'}}
    return [{'role': 'user', 'content': 'go'}, {'role': 'assistant', 'content': None, 'tool_calls': [call]},
            {'role': 'tool', 'tool_call_id': 'call_1', 'content': content}, {'role': 'assistant', 'content': 'ok'}]

def test_openai_tool_message_of_text_parts_goes_back_as_parts():
    "Chat Completions takes a tool message's content as text parts: a history that gave parts gets them back (not one joined string), through the real client"
    h = oa_loop([{'type': 'text', 'text': 'page 1'}, {'type': 'text', 'text': 'page\n\n2'}])
    d = reads_ipynb(write_ipynb(chat2dlg(h)))
    assert [p['result'] for p in parse_reply(d.messages[0].ai_res) if p['type'] == 'tool'] == ['page 1\n\npage\n\n2']
    p = Provider('openai')
    _, body, _ = p.send(d)
    assert body['messages'] == h
    m = d.messages[0]; m.ai_res = m.ai_res.replace('page 1', 'page one')  # an edit: the text the dialog shows, as one string
    assert dlg2chat(d)[2]['content'] == 'page one\n\npage\n\n2'
    assert dlg2chat(chat2dlg(oa_loop('plain')))[2]['content'] == 'plain'

def test_text_parts_of_a_tool_result_are_one_text_for_chat_templates(tmp_path):
    fn = tmp_path/'a.jsonl'
    dlgs2jsonl([chat2dlg(oa_loop([{'type': 'text', 'text': 'a'}, {'type': 'text', 'text': 'b'}]))], fn, shape='hf')
    tool = json.loads(fn.read_text())['messages'][2]
    assert tool['role'] == 'tool' and tool['content'] == 'a\n\nb'

def test_anthropic_text_blocks_go_to_openai_as_text_parts():
    "An Anthropic tool result of several text blocks reaches Chat Completions as the same texts, as parts it takes"
    h = [{'role': 'user', 'content': 'go'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'read', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'text', 'text': 'a'}, {'type': 'text', 'text': 'b'}]}]}]
    out = dlg2chat(chat2dlg(h, 'anthropic'), 'openai')
    check_history(out, 'openai')
    assert out[2]['content'] == [{'type': 'text', 'text': 'a'}, {'type': 'text', 'text': 'b'}]

@pytest.mark.parametrize('blank', ['', ' ', '\n'])
def test_blank_text_part_of_a_tool_result_never_reaches_anthropic(blank):
    "An OpenAI tool result given as text parts, one of them blank (MCP tools often return an empty text item): Claude gets the others, never a blank text block (refused: 'text content blocks must contain non-whitespace text')"
    h = [{'role': 'user', 'content': 'go'},
         {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]},
         {'role': 'tool', 'tool_call_id': 'call_1', 'content': [{'type': 'text', 'text': 'result'}, {'type': 'text', 'text': blank}, {'type': 'text', 'text': 'more'}]},
         {'role': 'assistant', 'content': 'ok'}]
    out = dlg2chat(chat2dlg(h, 'openai'), 'anthropic')
    check_history(out, 'anthropic')
    assert out[2]['content'][0]['content'] == [{'type': 'text', 'text': 'result'}, {'type': 'text', 'text': 'more'}]

pdf = base64.b64encode(b'%PDF-1.4\n%%EOF\n').decode()

@pytest.mark.parametrize('blk', [{'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, 'title': 'A'},
                                 {'type': 'document', 'source': {'type': 'text', 'media_type': 'text/plain', 'data': 'Notes.'}},
                                 {'type': 'search_result', 'source': 'https://example.org/doc', 'title': 'Doc', 'content': [{'type': 'text', 'text': 'hello'}]}])
def test_document_or_search_result_a_tool_returned_is_read_and_sent_back(blk):
    "A Claude tool loop whose tool returned a document or search results (block types the SDK's tool_result takes) is read (it was refused whole); unedited, it goes back to Anthropic as it came, thinking and all; other providers get its text, never a blob"
    h = [{'role': 'user', 'content': 'go'},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 't', 'signature': 'S'}, {'type': 'tool_use', 'id': 'toolu_1', 'name': 'fetch', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'text', 'text': 'see'}, blk]}]},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 'u', 'signature': 'S2'}, {'type': 'text', 'text': 'ok'}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic')))
    assert dlg2chat(d, 'anthropic') == h
    for f in ('openai', 'responses', 'gemini'):
        out = json.dumps(dlg2chat(d, f))
        assert 'result_raw' not in out and pdf not in out and ('hello' in out or 'Notes.' in out or 'application/pdf' in out)
    check_history(dlg2chat(d, 'openai'), 'openai')

PNG1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

def test_text_result_spelling_an_image_is_that_text():
    "A tool read a Markdown file holding `![image](data:...)` (a Chat Completions or Gemini result): the result is that text to every provider (it was rewritten to a note for OpenAI, and sent as an image block to Claude); a real image a tool returned still goes as an image"
    txt = f'# Notes\n\n![image](data:image/png;base64,{PNG1})\n\nThe end.'
    h = oa_loop(txt)
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'openai')))
    assert dlg2chat(d, 'openai') == h
    assert dlg2chat(d, 'anthropic')[2]['content'][0]['content'] == txt
    assert dlg2chat(d, 'gemini')[2]['parts'][0]['functionResponse']['response'] == {'result': txt}
    assert [o['output'] for o in dlg2chat(d, 'responses') if o.get('type')=='function_call_output'] == [txt]
    g = [{'role': 'user', 'parts': [{'text': 'go'}]}, {'role': 'model', 'parts': [{'functionCall': {'id': 'c1', 'name': 'read', 'args': {}}}]},
         {'role': 'user', 'parts': [{'functionResponse': {'id': 'c1', 'name': 'read', 'response': {'result': txt}}}]}, {'role': 'model', 'parts': [{'text': 'ok'}]}]
    assert dlg2chat(chat2dlg(g, 'gemini'), 'anthropic')[2]['content'][0]['content'] == txt
    an = [{'role': 'user', 'content': 'go'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'shot', 'input': {}}]},
          {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': PNG1}}]}]}]
    assert dlg2chat(chat2dlg(an, 'anthropic'), 'anthropic') == an
    assert dlg2chat(chat2dlg(an, 'anthropic'), 'openai')[2]['content'] == '(image/png image, 70 bytes)'

QUOTE = 'the file says ![image](data:image/png;base64,AAAA) there'

@pytest.mark.parametrize('fmt', ['anthropic', 'responses', 'gemini'])
def test_text_spelling_an_image_beside_a_real_image_stays_text(fmt):
    "A tool result holding a real image and text quoting `![image](data:...)` (a tool read a Markdown file and took a screenshot): the text is decided per text part, so the quote stays text (it became a second, invalid image) and the real image stays an image, on a saved round trip and to every provider"
    h = {'anthropic': [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
                       {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [
                           {'type': 'text', 'text': QUOTE}, {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': PNG1}}]}]},
                       {'role': 'assistant', 'content': 'k'}],
         'responses': [{'role': 'user', 'content': 'q'}, {'type': 'function_call', 'call_id': 'c1', 'name': 'f', 'arguments': '{}'},
                       {'type': 'function_call_output', 'call_id': 'c1', 'output': [{'type': 'input_text', 'text': QUOTE},
                                                                                   {'type': 'input_image', 'image_url': 'data:image/png;base64,' + PNG1}]},
                       {'role': 'assistant', 'content': 'k'}],
         'gemini': [{'role': 'user', 'parts': [{'text': 'q'}]}, {'role': 'model', 'parts': [{'functionCall': {'id': 'c1', 'name': 'f', 'args': {}}}]},
                    {'role': 'user', 'parts': [{'functionResponse': {'id': 'c1', 'name': 'f', 'response': {'result': QUOTE},
                                                                     'parts': [{'inlineData': {'mimeType': 'image/png', 'data': PNG1}}]}}]},
                    {'role': 'model', 'parts': [{'text': 'k'}]}]}[fmt]
    d = reads_ipynb(write_ipynb(chat2dlg(h, fmt)))
    out = dlg2chat(d, fmt)
    if fmt == 'gemini': h[1]['parts'][0]['thoughtSignature'] = out[1]['parts'][0]['thoughtSignature']  # Google's placeholder for a call read without one
    assert out == h
    for f in ('openai', 'anthropic', 'responses', 'gemini'):
        s = json.dumps(dlg2chat(d, f))
        assert json.dumps(QUOTE)[1:-1] in s and '"AAAA"' not in s and 'base64,AAAA"' not in s
        assert (PNG1 in s) == (f != 'openai') and ('(image/png image, 70 bytes)' in s) == (f == 'openai')
    check_history(dlg2chat(d, 'openai'), 'openai')

from hypothesis import given, settings, HealthCheck, strategies as st

_word = st.sampled_from(['see', 'a\nb', QUOTE, f'![image](data:image/png;base64,{PNG1})', '![image](data:x)', '# T'])
_texts = st.lists(_word, min_size=1, max_size=3).map(' '.join).map(lambda t: {'type': 'text', 'text': t})
_img = st.just({'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': PNG1}})

@given(st.lists(st.one_of(_texts, _img), min_size=1, max_size=6))
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
def test_tool_result_blocks_come_back_with_each_image_spelling_decided_by_its_block(blocks):
    "Any Anthropic tool result of text blocks (quoting image spellings or not) and images comes back from a saved dialog as those images and texts (texts side by side joined by a blank line), never an image made of a text's quote"
    h = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': blocks}]}]
    want = []
    for b in blocks:
        if want and b['type'] == want[-1]['type'] == 'text': want[-1] = {'type': 'text', 'text': want[-1]['text'] + '\n\n' + b['text']}
        else: want.append(b)
    got = dlg2chat(reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic'))), 'anthropic')[2]['content'][0]['content']
    if any(b['type'] == 'image' for b in blocks): assert got == want
    else: assert got in (blocks, blocks[0]['text'])  # text blocks as they came

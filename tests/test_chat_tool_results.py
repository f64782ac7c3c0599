"A tool result given as several parts goes back as those parts where the provider's wire takes them"
import json
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

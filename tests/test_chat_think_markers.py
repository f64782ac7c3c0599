"Think markers in what the model said or thought: escaped in a reply so they never open or end thinking, and read back exactly"
import json, re, pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import *
import dialog.chat as chat

def _reread(d): return reads_ipynb(write_ipynb(d))

def _an_split(parts):
    "A Claude tool loop whose first reply says `parts` as separate text blocks before its call; thinking after the result"
    return [{'role': 'user', 'content': 'go'},
            {'role': 'assistant', 'content': [*({'type': 'text', 'text': t} for t in parts), {'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
            {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'r'}]},
            {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 'hmm', 'signature': 'S'}, {'type': 'text', 'text': 'done'}]}]

def test_think_marker_split_across_anthropic_text_blocks_is_text():
    "`<!--` ending one text block and `think_start-->` starting the next join (blank line between) into a marker: it is the model's text, and the call, its result and the thinking after it are sent back (they were swallowed as thinking)"
    h = _an_split(['A dialog marks thinking with <!--', 'think_start--> markers.'])
    d = _reread(chat2dlg(h, 'anthropic'))
    assert [p['id'] for p in parse_reply(d.messages[0].ai_res) if p['type']=='tool'] == ['toolu_1']
    assert parse_reply(d.messages[0].ai_res)[0]['text'] == 'A dialog marks thinking with <!--\n\nthink_start--> markers.'
    assert dlg2chat(d, 'anthropic') == h

def test_token_usage_block_split_across_anthropic_text_blocks_is_text():
    "`<details` ending one text block and `class=\"token-usage-details\">…</details>` starting the next join into a token-usage block: it is the model's text, sent back as said (it was taken out as host noise)"
    h = _an_split(['Usage goes in <details', 'class="token-usage-details">12 tokens</details> blocks.'])
    d = _reread(chat2dlg(h, 'anthropic'))
    assert parse_reply(d.messages[0].ai_res)[0]['text'] == 'Usage goes in <details\n\nclass="token-usage-details">12 tokens</details> blocks.'
    assert dlg2chat(d, 'anthropic') == h

def test_think_marker_split_across_gemini_parts_is_text():
    "The same marker split across two Gemini text parts: the function call and its response still go back"
    g = [{'role': 'user', 'parts': [{'text': 'go'}]},
         {'role': 'model', 'parts': [{'text': 'A dialog marks thinking with <!--'}, {'text': 'think_start--> markers.'}, {'functionCall': {'id': 'c1', 'name': 'f', 'args': {}}}]},
         {'role': 'user', 'parts': [{'functionResponse': {'id': 'c1', 'name': 'f', 'response': {'result': 'r'}}}]},
         {'role': 'model', 'parts': [{'text': 'Now answer.', 'thought': True}, {'text': 'done'}]}]
    out = dlg2chat(_reread(chat2dlg(g, 'gemini')), 'gemini')
    assert [p['functionCall']['id'] for c in out for p in c['parts'] if 'functionCall' in p] == ['c1']
    assert [p['functionResponse']['id'] for c in out for p in c['parts'] if 'functionResponse' in p] == ['c1']

frag = st.sampled_from(['<!--', '<!', '--', '\u2060', 'think_start', 'think_end', '-->', ' ', '\n', 'x', 'think_start-->', '<!-- ',
                        '<details', ' class="token-usage-details">', 'class="token-usage-details">', '</details>'])  # and a token-usage block, split too
parts = st.lists(st.lists(frag, min_size=1, max_size=5).map(''.join).filter(lambda s: s.strip('\n') == s and s.strip()),
                 min_size=1, max_size=4)

@given(parts)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_property_split_model_text_never_opens_thinking(ps):
    "Whatever the model's text blocks hold, split anywhere: the dialog reads them back as one text, joined by a blank line, with the call after them; an unedited dialog sends the history back"
    h = _an_split(ps)
    d = _reread(chat2dlg(h, 'anthropic'))
    got = parse_reply(d.messages[0].ai_res)
    assert [p['id'] for p in got if p['type']=='tool'] == ['toolu_1']
    k = [p['type'] for p in got].index('tool')
    assert ' '.join(p['text'] for p in got[:k] if p['type']=='text').split() == '\n\n'.join(ps).split()
    assert dlg2chat(d, 'anthropic') == h

def test_thinking_holding_a_word_joiner_goes_back_unchanged():
    "Thinking that already holds `<!` + word joiner + `--` (as a dialog file's escaped marker does) reads back as it was: the thinking block and its signature are sent (they were dropped as edited)"
    th = 'The file holds <!\u2060--think_start--> as its marker.'
    h = [{'role': 'user', 'content': 'go'},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': th, 'signature': 'S1'}, {'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'r'}]}]
    assert dlg2chat(_reread(chat2dlg(h, 'anthropic')), 'anthropic') == h

@given(st.lists(st.sampled_from(['<!', '--', '\u2060', '-->', '<!--', 'think_start', 'think_end', ' ', '\n', 'x', ':::',
                                  '<details', ' class=', '"', "'", 'token-usage-details', '</details>', '<details class="token-usage-details">']), max_size=12).map(''.join))
def test_property_thinking_escape_is_exactly_reversible(s):
    "`think_block`'s escape is undone exactly on reading for every text, and what it writes holds no `<!--` (so nothing inside ends the block) nor a token-usage block's opening (which `_denoise` would take, with what follows, for host noise)"
    assert chat._think_unesc(chat._think_esc(s)) == s
    assert '<!--' not in chat._think_esc(s) and not re.search(r"""<details\s+class=(['"])token-usage-details\1""", chat._think_esc(s))
    if s.strip() and s == s.strip(): assert chat._thoughts(think_block(s)) == s

"The four wire formats against each other (issue 30): history -> dialog -> save -> read -> the same format is the history; every dialog goes to all four formats and is accepted"
import json, tempfile, pytest
from pathlib import Path
from hypothesis import given, example, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import *
from chat_checks import check_history
from test_chat_providers import dialogs
from test_wire_responses import responses_rules
pytest.importorskip('google.genai')
from test_wire_gemini import gemini_rules

fmts = ('openai', 'anthropic', 'responses', 'gemini')
def accepted(h, fmt):
    if fmt in ('openai', 'anthropic'): check_history(h, fmt)
    elif fmt == 'responses': responses_rules(h)
    else: gemini_rules(h)

def sysarg(d, fmt): return None if fmt == 'openai' else d.system  # OpenAI's goes in the list; the others' beside it

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(dialogs())
def test_four_by_four(d):
    for src in fmts:
        h = dlg2chat(d, src)
        accepted(h, src)
        back = reads_ipynb(write_ipynb(chat2dlg(h, src, system=sysarg(d, src))))  # history -> dialog -> save -> read
        assert dlg2chat(back, src) == h, src
        for dst in fmts: accepted(dlg2chat(back, dst), dst)

def server_only_twice():
    "Two empty prompts whose replies are only calls the provider ran: Responses gets two assistant messages in a row"
    d = Dialog('d')
    for i in range(2): d.mk_message('', msg_type=sprompt, output=tool_block(f's{i}', 'web', {}, 'r', server=True))
    return d

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(dialogs())
@example(server_only_twice())
def test_jsonl_in_every_format(d):
    with tempfile.TemporaryDirectory() as t:
        for f in fmts:
            fn = dlgs2jsonl([d], Path(t)/f'{f}.jsonl', f)
            ds = jsonl2dlgs(fn)
            if not fn.read_text(): assert ds == []; continue
            assert dlgs2jsonl(ds, Path(t)/'again.jsonl', f).read_text() == fn.read_text()  # the line reads back into a dialog that writes it again
            assert (ds[0].system or None) == (d.system if d.system and d.system.strip() else None)

def test_jsonl_line_keys():
    d = Dialog('k'); d.system = 'Be brief.'
    d.mk_message('hi', msg_type=sprompt, output='hello')
    with tempfile.TemporaryDirectory() as t:
        lines = {f: json.loads(dlgs2jsonl([d], Path(t)/f'{f}.jsonl', f).read_text()) for f in fmts}
    assert sorted(lines['responses']) == ['input', 'instructions'] and lines['responses']['instructions'] == 'Be brief.'
    assert lines['gemini']['system_instruction'] == {'parts': [{'text': 'Be brief.'}]} and lines['gemini']['contents'][1]['role'] == 'model'
    with pytest.raises(ValueError, match="unknown chat format 'bard'"): dlg2chat(d, 'bard')

def test_two_server_only_replies_in_a_row_read_back_as_two():
    "Two assistant messages in a row (here two server-tool-only replies after empty prompts) read back as two replies where a format has them (Anthropic and Gemini merge same-role turns), and write the same history again"
    d = server_only_twice()
    for f in ('openai', 'responses'):
        h = dlg2chat(d, f)
        back = chat2dlg(h, f)
        assert len(back.messages) == 2 and all(m.ai_res for m in back.messages) and dlg2chat(back, f) == h, f  # another provider's server call comes back as its text
    with tempfile.TemporaryDirectory() as t:
        fn = dlgs2jsonl([d], Path(t)/'r.jsonl', 'responses')
        assert dlgs2jsonl(jsonl2dlgs(fn), Path(t)/'a.jsonl', 'responses').read_text() == fn.read_text()

def test_a_line_of_text_blocks_reads_back_to_itself():
    "A prompt of nothing but an SVG (sent as a text block), then a note: its Anthropic line, read back (it reads as OpenAI's too), writes the same line, its blocks apart"
    d = Dialog('gen')
    m = d.mk_message('\n![x](attachment:a0)', msg_type='prompt')
    m.attachments = [Attachment(b'<svg/>', 'image/svg+xml', 'a0')]
    d.mk_message('', msg_type='note')
    with tempfile.TemporaryDirectory() as t:
        for f in fmts:
            fn = dlgs2jsonl([d], Path(t)/f'{f}.jsonl', f)
            assert dlgs2jsonl(jsonl2dlgs(fn), Path(t)/'again.jsonl', f).read_text() == fn.read_text(), f

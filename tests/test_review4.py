"Review of the day's changes (merge_streams' callers, ipynb repair, chat's rules, skill's EditReport, cli exhash): inputs their own tests don't try"
import json, pickle
import pytest
from dialog.core import *
from dialog.view import msg2xml
from dialog.chat import render_outputs_ai

S = lambda t, name='stdout': dict(output_type='stream', name=name, text=t)

# --- 1. merge_streams' callers: the views read outputs in the order they were made, as the AI and Markdown do

def _code(outs):
    d = Dialog('x')
    return d.mk_message('print(1)', output=outs)

def test_view_keeps_output_order():
    "A result between two prints: Jupyter, the AI and the Markdown show a, R, c; the views showed R, then 'a c'"
    outs = [S('a\n'), mk_displayobj({'text/plain': 'R'}), S('c\n')]
    assert render_outputs_ai(outs)=='a\nR\nc\n'
    m = _code(outs)
    assert m.view(incl_out=True).endswith('<out>\n<stdout>\na\n</stdout>\n<display_data>\nR\n</display_data>\n<stdout>\nc\n</stdout>\n</out>')
    assert msg2xml(m, incl_out=True).endswith('<out><stdout>a\n</stdout><display_data>R</display_data><stdout>c\n</stdout></out></code>')

def test_view_error_stays_last_only_when_last():
    "An error then output printed after it (a second print in a finally): shown after the error, not before"
    outs = [{'output_type': 'error', 'ename': 'E', 'evalue': 'v', 'traceback': []}, S('after\n')]
    v = _code(outs).view(incl_out=True)
    assert v.index('E: v')<v.index('after')

@pytest.mark.parametrize('outs', [[{'output_type': 'stream', 'text': 'a\n'}], [5, S('a\n')], [{'data': {}}, S('a\n')]],
                         ids=['stream without name', 'non-dict output', 'output without type'])
def test_view_tolerates_odd_outputs(outs):
    "What the AI reads of an odd output list, the views show, without KeyError/TypeError"
    m = _code(outs)
    assert render_outputs_ai(outs)=='a\n'
    assert m.view(incl_out=True).endswith('<out>\na\n\n</out>')
    assert msg2xml(m, incl_out=True).endswith('<out>a\n</out></code>')

def test_view_other_stream_names():
    "A stream named neither stdout nor stderr is shown (Jupyter shows it), and its name can't make a tag"
    m = _code([S('x\n', 'weird name<"'), S('y\n')])
    assert m.view(incl_out=True).endswith('<out>\n<stream>\nx\n</stream>\n<stdout>\ny\n</stdout>\n</out>')
    ET = pytest.importorskip('xml.etree.ElementTree')
    ET.fromstring(msg2xml(m, incl_out=True))

# --- 3. the two dlgs2jsonl

def _talk(tmp_path):
    d = Dialog('a'); d.mk_message('q', msg_type=sprompt, output='r')
    p = tmp_path/'a.ipynb'; d.save(p)
    return d, p

@pytest.mark.parametrize('wrap', [lambda ps: (p for p in ps), set, iter], ids=['generator', 'set', 'iterator'])
def test_dataset_dlgs2jsonl_any_iterable_of_paths(tmp_path, wrap):
    "dataset's dlgs2jsonl takes files: given them in a generator or set, it told the user to call dataset's dlgs2jsonl, the function called"
    from dialog import dataset, chat
    d,p = _talk(tmp_path)
    want = chat.dlgs2jsonl([d], tmp_path/'want.jsonl').read_bytes()
    assert dataset.dlgs2jsonl(wrap([p]), tmp_path/'o.jsonl', workers=0).read_bytes()==want
    assert dataset.dlgs2jsonl(wrap([d]), tmp_path/'o2.jsonl').read_bytes()==want  # dialogs still go to chat's, streamed
    with pytest.raises(ValueError, match=r'not a mix of both \(item 1 is a path\)'): dataset.dlgs2jsonl(iter([d, p]), tmp_path/'m.jsonl')

def test_chat_dlgs2jsonl_bad_fmt_with_no_dialogs(tmp_path):
    "A bad fmt is a ValueError even when there is no dialog to write: it wrote an empty file"
    from dialog.chat import dlgs2jsonl
    with pytest.raises(ValueError, match="unknown chat format 'bad'"): dlgs2jsonl([], tmp_path/'o.jsonl', fmt='bad')
    assert not (tmp_path/'o.jsonl').exists()

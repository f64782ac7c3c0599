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

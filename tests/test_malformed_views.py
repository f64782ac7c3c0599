"A message malformed in memory (an output of the wrong shape) read by a view or a conversion: `validate`'s `ValueError` naming the message and what is wrong, never a bare TypeError from deep inside"
import pytest
from dialog.core import *
from dialog.view import msg2md, msg2xml, dlg2md
from dialog.chat import dlg2chat
import dialog.view # Dialog.find_msgs
import dialog.skill # Message.lnhashview
from malformed_cases import malformed, kinds

_bad = [([dict(output_type='stream', name='stdout', text=['a', 1])], 'item 1 is not a string'),
        ([dict(output_type='stream', name='stdout', text=5)], 'not int'),
        ([dict(output_type='execute_result', data={'text/plain': ['a', 2]}, metadata={}, execution_count=1)], 'item 1 is not a string')]

_readers = {'msg2md': lambda d,m: msg2md(m), 'dlg2md': lambda d,m: dlg2md(d), 'view': lambda d,m: m.view(incl_out=True),
            'msg2xml': lambda d,m: msg2xml(m, incl_out=True), 'dlg.view': lambda d,m: d.view(incl_out=True),
            'dlg2chat': lambda d,m: dlg2chat(d), 'dlg2chat-anthropic': lambda d,m: dlg2chat(d, fmt='anthropic')}

@pytest.mark.parametrize('out,msg', _bad)
@pytest.mark.parametrize('reader', list(_readers))
def test_a_malformed_output_is_named(reader, out, msg):
    d = Dialog('d')
    d.mk_message('q', msg_type=sprompt, output='a')
    m = d.mk_message('x', output=out, id='bad1')
    with pytest.raises(ValueError, match=f"message 'bad1'.*{msg}"): _readers[reader](d, m)


_views = {'msg2xml': lambda d,m: msg2xml(m, incl_out=True), 'dlg.view': lambda d,m: d.view(incl_out=True),
          'view': lambda d,m: m.view(incl_out=True), 'lnhashview': lambda d,m: m.lnhashview(incl_out=True),
          'find_msgs': lambda d,m: d.find_msgs('x')}

@pytest.mark.parametrize('kind', kinds)
@pytest.mark.parametrize('view', list(_views))
def test_every_view_names_a_malformed_message(view, kind):
    d,m = malformed(kind)
    try: _views[view](d, m)  # a view may show a malformed message it can read
    except ValueError as e: assert "message 'bad1'" in str(e), e

"A host's `Message` subclass with descriptors of its own: built, read and streamed into through them."
import pytest
from dialog.core import *

class OM(Message):
    "Keeps its outputs in a slot of its own, counting the assignments"
    sets = 0
    @property
    def output(self): return self._out
    @output.setter
    def output(self, v): self._out = v; self.sets += 1; self.clear_out_cache()
class OD(Dialog): msg_cls = OM

def test_a_subclass_with_its_own_output_property_builds_and_streams_through_it():
    "A subclass's own `output` property: the message builds (directly, by `mk_message`, as a prompt with a reply), and `add_output` reads and assigns through it"
    m = OD('d').mk_message('x', output=[])
    assert m.output == [] and m.msg_type == scode and m.content == 'x'
    p = OM('q', msg_type=sprompt, output='the reply')
    assert p.msg_type == sprompt  # its own setter keeps what it is given
    m = OM('print(1)', output=[])
    n = m.sets
    for t in ('a', 'b', 'c'): m.add_output(mk_stream(t))
    m.add_output(mk_stream('e', 'stderr'))
    m.add_output(mk_execresult({'text/plain': '2'}))
    assert [(o['output_type'], o.get('text')) for o in m.output] == [('stream', 'abc'), ('stream', 'e'), ('execute_result', None)]
    assert m.sets == n+5 and m._chunks is None  # each through the property, nothing held back
    m.add_output(mk_jmsg('clear_output', wait=False))
    assert m.output == []

def test_a_subclass_with_its_own_type_or_content_still_builds():
    "Own `msg_type` (Message's output normalization reads it) or own `content`: both build, a prompt's string reply wrapped"
    class TM(Message):
        @property
        def msg_type(self): return self._t
        @msg_type.setter
        def msg_type(self, v): self._t = v
    class CM(Message):
        @property
        def content(self): return self._c.upper()
        @content.setter
        def content(self, v): self._c = v
    assert TM('q', msg_type=sprompt, output='r').ai_res == 'r'
    c = CM('q', msg_type=sprompt, output='r')
    assert (c.content, c.ai_res) == ('Q', 'r')

def test_streaming_into_a_subclass_with_its_own_output_is_linear():
    "A long run printed into a subclass's own `output` holds its chunks, as `Message` does, never joining the whole text at each one (that was quadratic: 40,000 lines took 15 s); the text reads whole, and is one string once another output comes or the message is written"
    n = 40_000
    m = OM('for i in range(40_000): print(i)', output=[])
    for i in range(n): m.add_output(mk_stream('x'*49+'\n'))
    txt = m.output[0]['text']
    assert isinstance(txt, list) and len(txt)==n  # each chunk held once: no text joined while the run lasts
    assert ''.join(txt) == ('x'*49+'\n')*n
    m = OM('print(1)', output=[])
    for t in ('a', 'b'): m.add_output(mk_stream(t))
    assert m.to_cell()['outputs'][0]['text'] == 'ab'
    for t in ('c', 'd'): m.add_output(mk_stream(t))
    m.add_output(mk_execresult({'text/plain': '2'}))
    assert m.output[0]['text'] == 'abcd'

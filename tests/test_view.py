"dialog.view from Python: message ids resolved as core resolves them (KeyError naming the id and the file), Dialog.find_msgs and the views refusing bad arguments."
import pytest, re
from hypothesis import given, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.view import *
from cli_helpers import fails, ids
from dialog.chat import render_outputs_ai

keys = st.text('0123456789abcdef', max_size=9)

@given(st.lists(keys.filter(bool), unique=True, max_size=8), keys)
def test_msg_agrees_with_core(msg_ids, key):
    d = Dialog('k', [Message(str(i), id=k) for i,k in enumerate(msg_ids)])
    try: want = d[key]
    except KeyError as e: want = e
    if isinstance(want, Message): assert pick_msg(d, key) is want
    else:
        with pytest.raises(KeyError) as e: pick_msg(d, key)
        assert "dialog 'k'" in str(e.value)
        if key: assert str(want).strip('"\'') in str(e.value)

def test_msg_error_names_file(tmp_path):
    d = Dialog('f', [Message('a', id='ab1'), Message('b', id='ab2')])
    d.save(tmp_path/'f')
    d = read_ipynb(tmp_path/'f')
    with pytest.raises(KeyError, match=rf"{tmp_path/'f.ipynb'}: .*ambiguous"): pick_msg(d, 'ab')
    with pytest.raises(KeyError, match=rf"{tmp_path/'f.ipynb'}: message id 'zz' not found"): pick_msg(d, 'zz')
    with pytest.raises(ValueError, match='no message id'): pick_msgs(d, ' , ')
    assert list(pick_msgs(d, 'ab2,ab1 ab2'))==[d['ab2'], d['ab1']]

def test_view_line_range(tour):
    i = ids(tour)
    fails('view', tour, i[0], '--xml', '--start-line', '2', has='leave out --xml')
    fails('view', tour, i[0], '--end-line', '0', has='argument --end-line: must be 1 or more, not 0')
    fails('view', tour, i[0], '--start-line', '0', has='argument --start-line')
    m = Message('a\nb', id='m1')
    with pytest.raises(ValueError, match='no lines 1 to 0'): m.view(end_line=0)

def test_find_msgs_bad_arguments(tour):
    d = read_ipynb(tour)
    for kw in (dict(limit=0), dict(limit=-1), dict(limit=True), dict(msg_type='cell'), dict(pattern=None), dict(pattern=b'x')):  # True is no number (was taken as 1)
        with pytest.raises(ValueError): d.find_msgs(**({'pattern': ''} | kw))
    assert len(d.find_msgs('', limit=1))==1

def test_views_bad_arguments():
    m = Message('a\nb', id='m1')
    for kw in (dict(start_line='2'), dict(end_line=1.5), dict(start_line=None), dict(start_line=True)):
        with pytest.raises(ValueError, match="message 'm1'"): m.view(**kw)
    d = Dialog('x', [m, Message('c', id='m2')])
    assert d.view(msgs=['m2'])==d.view(msgs=[d['m2']]) and 'id="m1"' not in d.view(msgs=['m2'])
    with pytest.raises(KeyError, match="dialog 'x': message id 'zz' not found"): d.view(msgs=['zz'])

S = lambda t, name='stdout': dict(output_type='stream', name=name, text=t)

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

@given(st.lists(st.sampled_from(['x = 2', 'import os', '', 'y = 1 ']), min_size=1, max_size=5), st.booleans(),
       st.sampled_from(['2$', '^import os$', '^$', r'\s$', 'x = 2\ny', '1 $']))
def test_find_msgs_matches_a_crlf_line_as_its_lf_twin(ls, final, pat):
    "A line is searched without its line end: a CR LF message is found by the patterns that find its LF twin, at the same line"
    lf = '\n'.join(ls) + ('\n' if final else '')
    a,b = Message(lf, id='lf'),Message(lf.replace('\n', '\r\n'), id='crlf')
    d = Dialog('d', [a, b])
    assert [m.id for m in d.find_msgs(pat)] in ([], ['lf', 'crlf'])
    assert match_line(a, find_pattern(pat))==match_line(b, find_pattern(pat))

outtxt = st.lists(st.sampled_from(['<', '>', '&', '</out>', '<out>', '</stdout>', '# msg c9', '\n', 'a', ' ', '"', '&lt;']), max_size=12).map(''.join)

@given(st.lists(outtxt.filter(str.strip), min_size=1, max_size=3))
def test_an_output_cannot_end_the_out_section_or_forge_what_follows(texts):
    "An <out> section ends at its first </out> line, whatever a program printed; its text is the XML view's, escaped alike"
    ET = pytest.importorskip('xml.etree.ElementTree')
    from xml.sax.saxutils import unescape
    m = _code([S(t, 'stdout' if i%2 else 'stderr') for i,t in enumerate(texts)])
    ls = m.view(incl_out=True).split('\n')
    assert ls.index('<out>')==1 and ls.index('</out>')==len(ls)-1  # the section's own end, the view's last line
    sec,x = '\n'.join(ls[2:-1]),ET.fromstring(msg2xml(m, incl_out=True)).find('out')
    if len(x)==0: assert unescape(sec)==x.text  # a lone output: its text as the XML view has it
    else:  # several: each in its tag, its text as the XML view has it (but the line end before its end tag)
        assert [(e.tag, e.text.rstrip('\n')) for e in x]==[(t, unescape(v)) for t,v in re.findall(r'<(\w+)>\n(.*?)\n</\1>', sec, re.S)]

_vtxt = st.lists(st.sampled_from(['a', 'b', '1', ' ', '\n', '\r\n', '\r', '\u2028']), max_size=12).map(''.join)
_vpats = [r'\d$', '^a', r'b\s', '.$', r'\s', r'a[\s\S]b', r'\n', '$', '^$', r'b\n1', '.', r'\s+', '']

@given(_vtxt, st.sampled_from(_vpats), st.booleans())
def test_view_finditer_matches_the_view_and_places_each_match_in_the_text(txt, pat, multi):
    "`view_finditer` (the rule find_msgs and a regex edit share) matches the text as the views show it, each CR LF a LF, and nothing after a final line end; each match's place in the text holds what it matched, never cutting a CR LF"
    pat = re.compile(pat, re.M if multi else 0)
    got = list(view_finditer(pat, txt))
    v = txt.replace('\r\n', '\n')
    # (but the place after a final line end, where the views count no line: nothing is matched there)
    assert [mt.span() for mt,*_ in got] == [mt.span() for mt in pat.finditer(v) if not (v.endswith('\n') and mt.start()==len(v))]
    cuts = [0] + [x for _,a,b in got for x in (a, b)] + [len(txt)]
    assert cuts == sorted(cuts) and not any(0<x<len(txt) and txt[x-1:x+1]=='\r\n' for x in cuts)
    assert [txt[a:b].replace('\r\n', '\n') for _,a,b in got] == [mt[0] for mt,*_ in got]

@given(st.text(st.sampled_from('ab\r\n\u2028\x0c\x85'), max_size=16))
def test_text_lines_ends_a_line_at_lf_and_cr_lf_only(txt):
    "The one line rule (`text_lines`: the views, the editors, the diff an edit returns): a LF or a CR LF ends a line; a lone CR, U+2028, a form feed, NEL are characters of their line; a final line end starts no line"
    ls = re.split(r'\r?\n', txt)
    assert text_lines(txt) == (ls[:-1] if ls[-1]=='' else ls)

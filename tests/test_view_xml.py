"The display projections on hostile and real content: the XML view always parses and keeps the text; Markdown and views never fail on real notebooks."
import pytest, re
import xml.etree.ElementTree as ET
from pathlib import Path
from hypothesis import given, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.cli import *
from dialog.view import _xml_text, text_lines
from cli_helpers import ids

from shared_paths import corpus_params
corpus = corpus_params('**/*.ipynb')

hostile = st.lists(st.one_of(st.sampled_from(list('<>&"\'] \n\r\t#|:=x') + [']]>', '<![CDATA[', '&amp;', '\x00', '\x1b[31m', '\ud800', '\ufffe', '\x7f']),
                             st.characters()), max_size=40).map(''.join)

def norm(s):
    "What an XML parser gives back for text `s`: all of it, CRs included (written as &#13;, which no parser normalizes away)"
    return _xml_text(s)

@given(hostile, hostile, st.sampled_from(smsg_types), hostile)
def test_xml_parses_and_keeps_text(content, out, typ, mid):
    output = out if typ=='prompt' else [dict(output_type='stream', name='stdout', text=out)] if typ=='code' else ''
    m = Message(content, msg_type=typ, output=output)
    e = ET.fromstring(msg2xml(m, incl_out=True, trunc_out=False))
    assert e.tag==typ and e.get('id')==m.id
    if typ!='code': assert (e.text or '')==norm(content)
    o = e.find('out')
    if typ in ('note', 'raw') or (typ=='prompt' and not out): assert o is None
    if typ=='prompt' and out: assert o.text==norm(out)
    if typ=='code' and 'x' in out and '\r' not in out: assert 'x' in o.text  # code outputs are rendered (ANSI and \r overwrites processed: 'x\r<' shows '<'), then escaped
    d = Dialog(mid, [m])
    assert ET.fromstring(d.view(incl_out=True)).get('name')==_xml_text(mid)  # attribute values keep their line ends (quoted as &#13;)

@given(st.lists(st.tuples(st.sampled_from(['export', 'hide', 'exports', 'a"<&', '1bad', 'x-y']), hostile), max_size=4), hostile)
def test_xml_directives_hostile(dirs, body):
    src = ''.join(f'#| {k} {v}'.rstrip() + '\n' for k,v in dirs if '\n' not in v and '\r' not in v) + body
    e = ET.fromstring(msg2xml(Message(src), incl_out=True))
    assert e.tag=='code'
    for k,v in e.attrib.items(): assert re.fullmatch(r'[A-Za-z_][\w.-]*', k)

def test_xml_cdata_and_entities_stay_text():
    m = Message(']]> <![CDATA[x]]> &amp; </code><code>', msg_type='note')
    e = ET.fromstring(m.to_xml())
    assert e.text==']]> <![CDATA[x]]> &amp; </code><code>' and len(e)==0

@pytest.mark.parametrize('p', corpus, ids=lambda p: p.name)
def test_corpus_views(p, tmp_path):
    try: dlg = read_ipynb(p)
    except DialogFormatError: pytest.skip('a deliberately broken file')
    x = ET.fromstring(dlg.view(incl_out=True, trunc_out=False))
    assert [c.get('id') for c in x]==[m.id for m in dlg.messages]
    md = dlg2md(dlg, assets=tmp_path/'img', rel=tmp_path)
    assert '](data:image' not in md and md.endswith('\n')
    for l in re.findall(r'!\[[^]]*\]\((img/[^)]+)\)', md): assert (tmp_path/l).exists()
    for m in dlg.messages:  # the lines the line editors count (`text_lines`): a final newline starts no new line
        ls = text_lines(m.content)
        assert (m.view().split('\n') if ls else [])==[f'{i:6d} │ {l}' for i,l in enumerate(ls, 1)] and m.view(nums=False)=='\n'.join(ls)


_dirs = st.sampled_from(['#| export', '#| EXPORT', '#| Export', '#|exports', '#| exporti', '#| Exporti', '#| hide', '#| Hide', '#| export\r', '#| EXPORT\r'])

@given(st.lists(_dirs, max_size=4), st.sampled_from([{}, {'nbdev': {'export': 'true'}}, {'nbdev': {'EXPORT': 'true'}}, {'nbdev': {'export': 'false'}}]))
def test_the_view_shows_an_export_only_where_exported_says_so(dirs, meta):
    "The XML view's directive attributes are named as written (nbdev's names are case-sensitive): an export shows iff `exported`"
    m = Message('\n'.join(dirs + ['x = 1']), id='c1', meta=meta)
    a = ET.fromstring(m.to_xml()).attrib
    assert any(a.get(k, 'false')!='false' for k in ('export', 'exports', 'exporti'))==m.exported
    assert {k for k in a if k!='id'}=={d.split('|')[1].strip() for d in dirs} | set(meta.get('nbdev', {}))


def test_an_output_attribute_holding_a_control_character_still_parses():
    "A mime type (a data key) holding a control character is escaped in the `mime` attribute as in any text: the view stays well-formed XML (it was written raw)"
    m = Message('show()', output=[mk_displayobj({'image/png\x01': 'iVBORw0KGgo=', 'text/plain': 'img'}), mk_displayobj({'text/plain': 'two'})])
    x = m.to_xml(incl_out=True)
    ET.fromstring(x)
    assert '\x01' not in x

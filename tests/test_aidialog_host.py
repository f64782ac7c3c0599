"Differential tests: the host helpers (core's section 'Host helpers', chat's Message.render_out) against aidialog 0.0.39 (called, never read)"
import copy, json
import pytest
from dialog.core import *
from dialog.chat import *

A = pytest.importorskip('aidialog.dialog')
AI = pytest.importorskip('aidialog.ipynb')

srcs = ['import re', '#| export\ndef f(): pass', '#| eval: false\nslow()', 'f()', '#| exports\nx = 1', 'y = 2']
ids = ['aa11', 'bb22', 'cc33', 'dd44', 'ee55', 'ff66']

def pair(srcs=srcs, ids=ids, **kw):
    "The same dialog, ours and aidialog's"
    ours,theirs = Dialog('t'),A.Dialog(name='t')
    for s,i in zip(srcs, ids):
        ours.mk_message(s, id=i, **kw); theirs.mk_message(s, id=i, **kw)
    return ours,theirs

def cs(ms): return [m.content for m in ms]

def test_bool():
    assert bool(Dialog('e')) == bool(A.Dialog(name='e')) == True

@pytest.mark.parametrize('i', range(len(srcs)))
@pytest.mark.parametrize('up', [True, False])
def test_rel_msg(i, up):
    o,t = pair()
    a,b = o.messages[i].rel_msg(up),t.messages[i].rel_msg(up)
    assert (a and a.content) == (b and b.content)

@pytest.mark.parametrize('pick', [[0], [1], [0, 3], [1, 4], [2, 5], [], [0, 1, 2, 3, 4, 5]])
@pytest.mark.parametrize('pin', [None, 0, 3])
def test_export_filter(pick, pin):
    o,t = pair()
    for d in (o, t):
        ms = [d.messages[j] for j in pick]
        if pin is not None and pin in pick: d.messages[pin].pinned = True
    ours,theirs = export_filter([o.messages[j] for j in pick]),A.export_filter([t.messages[j] for j in pick])
    assert cs(ours) == cs(theirs)

def test_export_filter_meta_export():
    m,n = Message('x', meta={'nbdev': {'export': 'true'}}),A.Message('x', meta={'nbdev': {'export': 'true'}})
    assert cs(export_filter([Message('a'), m])) == cs(A.export_filter([A.Message('a'), n]))

copy_cases = [('x=1', '#| export\ny'), ('#| hide\nx', '#| export\ny'), ('x', 'y'), ('x', '#|export\ny'), ('x', '#| exports\ny'),
              ('x', '# hello\n#| export\ny'), ('x', '#| export mod\ny'), ('', '#| export\n'), ('x\n', '  #| export\ny'),
              ('x', '#| eval: false\n#| export\ny'), ('x', '#| hide\ny'), ('x', '#| export'), ('#|x', '#| export\n')]
@pytest.mark.parametrize('s,src', copy_cases)
def test_copy_export(s, src):
    assert copy_export(s, src) == A.copy_export(s, src)

sel_cases = [dict(all=True), dict(all=True, ignore_eval=True), dict(all=True, exported=True), dict(ids=('dd',), above=True),
             dict(ids=('bb',), below=True), dict(ids=('cc',)), dict(ids=('cc',), above=True), dict(ids=('ee', 'aa')),
             dict(all=True, default_eval=False), dict(ids=('dd',), above=True, ignore_eval=True)]
@pytest.mark.parametrize('kw', sel_cases)
def test_select_msgs(kw):
    o,t = pair()
    kw = dict(kw); ids_ = kw.pop('ids', ())
    assert [m.id for m in o.select_msgs(*ids_, **kw)] == [m.id for m in t.select_msgs(*ids_, **kw)]

def test_select_msgs_skips_prompts_and_notes():
    o,t = pair(['a', 'b', 'c'], ['a1', 'b2', 'c3'])
    for d in (o, t): d.messages[1].msg_type = 'prompt'
    assert [m.id for m in o.select_msgs(all=True)] == [m.id for m in t.select_msgs(all=True)] == ['a1', 'c3']

def test_select_msgs_errors():
    o,t = pair()
    for d in (o, t):
        with pytest.raises(ValueError): d.select_msgs()
        with pytest.raises(ValueError): d.select_msgs('zz')

def _nb():
    return dict(cells=[dict(cell_type='code', id='c1', source='x', metadata={}, outputs=[], execution_count=None, attachments={'a.png': {'image/png': 'iVBO'}}),
                       dict(cell_type='code', id='c2', source='y', metadata={}, outputs=[], execution_count=None),
                       dict(cell_type='markdown', id='m1', source='y', metadata={}, attachments={'b.png': {'image/png': 'iVBO'}})],
                metadata={'k': 1}, nbformat=4, nbformat_minor=5)

def test_home_unhome():
    a,b = home_atts(_nb()),AI.home_atts(_nb())
    assert a == b
    assert unhome_atts(copy.deepcopy(a)) == AI.unhome_atts(copy.deepcopy(b)) == _nb()

def test_unhome_keeps_orphans():
    "Deliberate: attachments homed under an id no cell has stay in the metadata (aidialog drops them)"
    nb = dict(cells=[], metadata={'attachments': {'gone': {'a.png': {'image/png': 'x'}}}}, nbformat=4, nbformat_minor=5)
    assert unhome_atts(copy.deepcopy(nb)) == nb
    assert AI.unhome_atts(copy.deepcopy(nb))['metadata'] == {}

def test_ipynb_cells(tmp_path):
    (tmp_path/'t.ipynb').write_text(json.dumps(_nb()))
    keys = lambda cs: [{k:v for k,v in c.items() if not k.endswith('_')} for c in cs] # aidialog's cells are fastcore NbCells, with idx_ and lang_
    assert keys(ipynb_cells(tmp_path, 't')) == keys(AI.ipynb_cells(tmp_path, 't')) == _nb()['cells']
    (tmp_path/'h.ipynb').write_text(json.dumps(home_atts(_nb())))
    assert ipynb_cells(tmp_path/'h.ipynb') == _nb()['cells'] # ours puts homed attachments back on their cells
    with pytest.raises(FileNotFoundError): ipynb_cells(tmp_path, 'nope') # aidialog returns [] for a missing file

def test_render_out():
    outs = [dict(output_type='stream', name='stdout', text='a\rb\n')]
    m,n = Message('print(1)', output=outs),A.Message('print(1)', output=outs)
    n.render_out()
    assert m.render_out() == m.ai_output == n.ai_output == 'b\n'

"A file nobody edited comes back byte-identical: each case the issue lists, and the repairs real files need."
import base64, json
import pytest
from dialog.core import *
from dialog.ipynb import *

def nb(cells, meta=None, minor=5):
    "A notebook's text in the layout Jupyter writes (cells given with their texts already split)"
    return json.dumps(dict(cells=cells, metadata=meta or {}, nbformat=4, nbformat_minor=minor), indent=1, sort_keys=True, ensure_ascii=False)+'\n'

def md(cid, src, **kw): return dict(cell_type='markdown', id=cid, metadata=kw.pop('metadata', {}), source=src, **kw)
def code(cid, src, outs=(), **kw): return dict(cell_type='code', id=cid, metadata=kw.pop('metadata', {}), source=src, outputs=list(outs), execution_count=kw.pop('execution_count', None), **kw)
reply = {'output_type': 'display_data', 'metadata': {'is_ai_res': True}, 'data': {'text/markdown': ['It is 4.']}}
legacy_sep = SEP.splitlines(True)

class Host(Message): meta_attrs = dict(pinned='pinned', time_run='time_run', skipped='skipped')
class HostDialog(Dialog): msg_cls = Host

cases = {
    'empty attachments on markdown and raw': (nb([md('a', ['x'], attachments={}), dict(cell_type='raw', id='r', metadata={}, source=['y'], attachments={})]), Dialog),
    'prompt source exactly %%prompt': (nb([code('p', ['%%prompt'], metadata={'solveit_ai': True})]), Dialog),
    'prompt source %%prompt and a newline': (nb([code('p', ['%%prompt\n'], metadata={'solveit_ai': True})]), Dialog),
    'solveit_ai: 1 on a prompt': (nb([code('p', ['%%prompt\n', 'Q'], [reply], metadata={'solveit_ai': 1})]), Dialog),
    'solveit_ai: "yes" on a legacy prompt': (nb([md('l', ('Q'+SEP+'A').splitlines(True), metadata={'solveit_ai': 'yes'})]), Dialog),
    'falsy meta_attrs values': (nb([code('c', ['1'], metadata={'pinned': False, 'time_run': '', 'skipped': 0})]), HostDialog),
    'base64 with line breaks': (nb([md('a', ['![](attachment:x.png)'], attachments={'x.png': {'image/png': base64.encodebytes(bytes(range(200))).decode()}})]), Dialog),
    'base64 with non-canonical padding bits': (nb([md('a', ['x'], attachments={'x.png': {'image/png': 'YWJ='}})]), Dialog),
    "an attachment named ''": (nb([md('a', ['x'], attachments={'': {'image/png': 'YWI='}})]), Dialog),
    'legacy prompt attachments stay on the cell': (nb([md('l', ('Q'+SEP+'A').splitlines(True), metadata={'solveit_ai': True}, attachments={'a.png': {'image/png': 'YWI='}})]), Dialog),
    'an empty attachments home in notebook metadata': (nb([code('c', ['1'])], {'attachments': {}}), Dialog),
    'code attachments homed in metadata': (nb([code('c', ['1'])], {'attachments': {'c': {'a.png': {'image/png': 'YWI='}}}}), Dialog),
}

@pytest.mark.parametrize('name', list(cases))
def test_byte_identical(name):
    txt,cls = cases[name]
    d = reads_ipynb(txt, cls=cls)
    assert write_ipynb(d)==txt
    assert d.validate() is d

def test_what_the_cases_read_as():
    d = reads_ipynb(cases["an attachment named ''"][0])
    assert [a.id for a in d.messages[0].attachments]==['']
    d = reads_ipynb(cases['base64 with non-canonical padding bits'][0])
    assert d.messages[0].attachments[0].data==b'ab'
    d.messages[0].attachments[0].data = b'ab!'  # changed bytes: written afresh, in the canonical encoding
    assert json.loads(write_ipynb(d))['cells'][0]['attachments']=={'x.png': {'image/png': base64.b64encode(b'ab!').decode()}}
    d = reads_ipynb(cases['legacy prompt attachments stay on the cell'][0])
    m = d.messages[0]
    assert (m.msg_type, m.content, m.ai_res, [a.id for a in m.attachments]) == (sprompt, 'Q', 'A', ['a.png'])
    m.attachments = []
    out = json.loads(write_ipynb(d))
    assert 'attachments' not in out['metadata'] and 'attachments' not in out['cells'][0]  # deleting it leaves no copy behind
    h = reads_ipynb(cases['falsy meta_attrs values'][0], cls=HostDialog).messages[0]
    assert (h.pinned, h.time_run, h.skipped, h.meta)==(False, '', 0, {})
    p = reads_ipynb(cases['prompt source exactly %%prompt'][0]).messages[0]
    assert (p.msg_type, p.content)==(sprompt, '')
    p.content = 'now a question'
    assert json.loads(write_ipynb(Dialog('x', [p])))['cells'][0]['source']==['%%prompt\n', 'now a question']

def test_new_prompts_use_true_and_the_code_form():
    d = Dialog('n')
    d.mk_message('Q', msg_type=sprompt, output='A')
    c = json.loads(write_ipynb(d))['cells'][0]
    assert (c['cell_type'], c['metadata'], c['source'])==('code', {'solveit_ai': True}, ['%%prompt\n', 'Q'])

# ---- repairs: a markdown cell left by an editor that changed a code cell's type ----

@pytest.mark.parametrize('left', [dict(outputs=[]), dict(execution_count=None), dict(outputs=[], execution_count=None)])
def test_type_changed_cell_repaired(left):
    txt = json.dumps(dict(cells=[dict(cell_type='markdown', id='m', metadata={}, source='# Was code', **left),
                                 dict(cell_type='raw', id='r', metadata={}, source='x', **left)], metadata={}, nbformat=4, nbformat_minor=5))
    d = reads_ipynb(txt)
    assert [(m.msg_type, m.content) for m in d.messages]==[(snote, '# Was code'), (sraw, 'x')]
    cells = json.loads(write_ipynb(d))['cells']
    assert all('outputs' not in c and 'execution_count' not in c for c in cells)

@pytest.mark.parametrize('left,msg', [(dict(outputs=[{'output_type': 'stream', 'name': 'stdout', 'text': 'x'}]), "unknown keys ['outputs']"),
                                      (dict(execution_count=3), "unknown keys ['execution_count']")])
def test_type_changed_cell_with_content_refused(left, msg):
    txt = json.dumps(dict(cells=[dict(cell_type='markdown', id='m', metadata={}, source='', **left)], metadata={}, nbformat=4, nbformat_minor=5))
    with pytest.raises(DialogFormatError, match=f"cell 0 \\(id m\\): {msg[:12]}"): reads_ipynb(txt)

# ---- the host hook ----

class IntCollapsed(Message):
    "A host that keeps `collapsed` as an int, converting it where it writes"
    meta_attrs = dict(collapsed='collapsed')
    def cell_meta(self):
        meta = super().cell_meta()
        return meta | dict(collapsed=bool(meta['collapsed'])) if 'collapsed' in meta else meta
class IntCollapsedDialog(Dialog): msg_cls = IntCollapsed

def test_cell_meta_hook_used_by_write_and_validate():
    d = IntCollapsedDialog('h')
    m = d.mk_message('1', collapsed=1)
    assert type(m) is IntCollapsed and m.validate() is m
    assert json.loads(write_ipynb(d))['cells'][0]['metadata']=={'collapsed': True}
    assert m.to_cell()['metadata']=={'collapsed': True} and d.cells[0]['metadata']=={'collapsed': True}
    plain = Dialog('p', [Message('1', meta=dict(collapsed=1))])  # without the hook the schema refuses it, in both
    for f in (plain.validate, lambda: write_ipynb(plain)):
        with pytest.raises(ValueError, match="'collapsed' must be true or false"): f()

@pytest.mark.parametrize('out', [
    [mk_displayobj({'text/plain': ['a', 'b']})],  # a split mime given as a list not split at line ends
    [mk_displayobj({'image/png': ['aGk=\n', 'aGk=']})],  # a non-split mime given as a list
    [dict(output_type='stream', name='stdout', text=['a', 'b\nc'])]], ids=['text-list', 'png-list', 'stream-list'])
def test_texts_given_as_lists_rewrite_byte_identical(out):
    "A text given as a list of strings is written as the reader will join it, so the file we wrote reads and rewrites byte-identical"
    d = Dialog('v'); d.mk_message('x', output=out)
    txt = write_ipynb(d)
    assert write_ipynb(reads_ipynb(txt))==txt
    assert reads_ipynb(txt)[0].output[0].get('data', out[0].get('data', {}))=={k:''.join(v) for k,v in out[0].get('data', {}).items()}

"dialog.ipynb: corpus sweep, each behaviour of the format, schema validity, crash safety and conflicts."
import base64, copy, json, os, random, signal, stat, time, warnings
from pathlib import Path
import pytest, nbformat
from hypothesis import given, strategies as st, settings, HealthCheck
from dialog.core import *
from dialog.ipynb import *
from dialog.ipynb import SEP

from shared_paths import root, corpus, needs_corpus, corpus_params
fixtures = Path(__file__).parent/'fixtures'

def validate(txt): nbformat.validate(nbformat.reads(txt, as_version=nbformat.NO_CONVERT))

def split_nb(nb):
    "The canonical (split-lines) form of parsed notebook `nb`, by nbformat's own rules"
    from nbformat.v4.rwbase import split_lines
    return split_lines(nbformat.from_dict(copy.deepcopy(nb)))

def canon_txt(nb):
    "Notebook `nb` in the layout Jupyter writes, split by nbformat's own rules"
    return json.dumps(split_nb(nb), indent=1, sort_keys=True, ensure_ascii=False)+'\n'

def canonical(txt):
    "Is `txt` a version 4 notebook already in the layout Jupyter writes?"
    try: nb = json.loads(txt)
    except ValueError: return False
    if not isinstance(nb, dict) or nb.get('nbformat')!=4 or not isinstance(nb.get('cells'), list): return False
    for c in nb['cells']:
        if isinstance(c.get('source'), list): c['source'] = ''.join(c['source'])
    from nbformat.v4.rwbase import rejoin_lines
    return json.dumps(split_nb(rejoin_lines(nbformat.from_dict(nb))), indent=1, sort_keys=True, ensure_ascii=False)+'\n' == txt

def content(nb, ids=True):
    "What a notebook says, texts joined, for comparing two layouts of the same content"
    from nbformat.v4.rwbase import rejoin_lines
    nb = rejoin_lines(nbformat.from_dict(copy.deepcopy(nb)))
    cells = [{k:(''.join(v) if k=='source' and isinstance(v, list) else v) for k,v in c.items() if ids or k!='id'} for c in nb['cells']]
    return dict(cells=cells, metadata=nb['metadata'])

# ---- the corpus ----

corpus_files = sorted(corpus.glob('*/*.ipynb'))

@needs_corpus()
def test_corpus_present():
    assert len(corpus_files) > 20

def _kind(txt):
    "How a corpus file is expected to fare: 'valid' (nbformat 4.0-4.5, schema-valid, unique ids) or 'other'"
    try: nb = json.loads(txt)
    except ValueError: return 'other'
    if nb.get('nbformat')!=4 or nb.get('nbformat_minor', 0)>5: return 'other'
    ids = [c.get('id') for c in nb.get('cells', []) if 'id' in c]
    if len(ids)!=len(set(ids)): return 'other'
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            nbformat.validate(nbformat.reads(txt, as_version=nbformat.NO_CONVERT))
    except Exception: return 'other'
    return 'valid'

@pytest.mark.parametrize('f', corpus_params('*/*.ipynb'), ids=lambda f: f'{f.parent.name}/{f.name}')
def test_corpus_file(f):
    txt = f.read_text(encoding='utf-8')
    if _kind(txt)=='valid':
        d = read_ipynb(f)
        out = write_ipynb(d)
        validate(out)
        orig = json.loads(txt)
        had_ids = all('id' in c for c in orig['cells'])
        assert content(json.loads(out), ids=had_ids) == content(orig, ids=had_ids)
        assert write_ipynb(reads_ipynb(out)) == out
        if canonical(txt):  # whatever its minor: the same bytes, but for the ids an older file gets and the 4.5 it is written as
            want = dict(orig, nbformat_minor=5, cells=[dict(c, id=m.id) for c,m in zip(orig['cells'], d.messages)])
            assert out == canon_txt(want), 'a canonical file must round-trip byte for byte'
            if had_ids and orig['nbformat_minor']==5: assert out == txt
    else:
        try: d = reads_ipynb(txt, fname=f.name)
        except DialogFormatError as e: assert f.name in str(e)
        else: validate(write_ipynb(d))

@needs_corpus()
def test_corpus_has_both_kinds():
    kinds = [_kind(f.read_text(encoding='utf-8')) for f in corpus_files]
    assert kinds.count('valid') > 20 and kinds.count('other') > 5
    canon = [f for f in corpus_files if canonical(f.read_text(encoding='utf-8'))]
    assert len(canon) > 20

def test_emitter_matches_json_dumps():
    "The writer's layout is json.dumps(indent=1, sort_keys=True, ensure_ascii=False) of the split notebook, on every corpus file and seed"
    import fuzz
    texts = fuzz.seeds()
    for t in texts:
        try: d = reads_ipynb(t)
        except DialogFormatError: continue
        out = write_ipynb(d)
        assert out == json.dumps(split_nb(json.loads(out)), indent=1, sort_keys=True, ensure_ascii=False)+'\n'

# ---- behaviours, one by one, on our own fixtures ----

def mk_dialog():
    d = Dialog('fixture', meta=dict(solveit=dict(mode='learning', ver=2), host={'z': [1, 2.5, None, True], 'a': 'é'}))
    d.mk_message('# Title\n\nSome *text*.', msg_type=snote, attachments=[Attachment(tiny_png, 'image/png', 'dot.png')], meta=dict(tags=['intro']))
    d.mk_message('import sys\nprint("héllo")\n6*7', execution_count=4, meta=dict(collapsed=False, scrolled='auto', host_key={'x': 1}),
                 output=[dict(output_type='stream', name='stdout', text='héllo\nline 2\n'),
                         dict(output_type='stream', name='stderr', text='warn\r\n'),
                         dict(output_type='execute_result', execution_count=4, metadata={}, data={'text/plain': '42', 'text/html': '<b>42</b>\n<i>x</i>',
                              'application/json': {'a': [1, 2]}, 'image/svg+xml': '<svg>\n</svg>'}),
                         dict(output_type='display_data', metadata={'image/png': {'width': 1}}, data={'image/png': base64.b64encode(tiny_png).decode(), 'text/plain': '<img>'}),
                         dict(output_type='error', ename='E', evalue='boom', traceback=['line1\n', 'line2'])],
                 attachments=[Attachment(b'\x00\xff', 'image/png', 'c.png')])
    d.mk_message('What is 6*7?', msg_type=sprompt, output='It is **42**.', meta=dict(pinned=True))
    d.mk_message('', msg_type=sprompt)
    d.mk_message('raw\ntext', msg_type=sraw, attachments=[Attachment(b'r', 'text/plain', 'r.txt')])
    d.mk_message('', msg_type=snote)
    return d

def test_mapping_and_forms():
    d = mk_dialog()
    txt = write_ipynb(d)
    validate(txt)
    nb = json.loads(txt)
    assert [c['cell_type'] for c in nb['cells']] == ['markdown', 'code', 'code', 'code', 'raw', 'markdown']
    p = nb['cells'][2]
    assert p['source'] == ['%%prompt\n', 'What is 6*7?'] and p['metadata'] == {'solveit_ai': True, 'pinned': True}
    assert p['outputs'] == [{'output_type': 'display_data', 'metadata': {'is_ai_res': True}, 'data': {'text/markdown': ['It is **42**.']}}]
    assert nb['cells'][3]['outputs'] == [] and nb['cells'][5]['source'] == []
    back = reads_ipynb(txt, name='fixture')
    assert [m.todict() for m in back.messages] == [m.todict() for m in d.messages]
    assert back.meta == d.meta and write_ipynb(back) == txt

def test_splitting_rules():
    nb = json.loads(write_ipynb(mk_dialog()))
    code = nb['cells'][1]
    assert code['source'] == ['import sys\n', 'print("héllo")\n', '6*7']
    assert code['outputs'][0]['text'] == ['héllo\n', 'line 2\n'] and code['outputs'][1]['text'] == ['warn\r\n']
    data = code['outputs'][2]['data']
    assert data['text/html'] == ['<b>42</b>\n', '<i>x</i>'] and data['image/svg+xml'] == ['<svg>\n', '</svg>']
    assert data['application/json'] == {'a': [1, 2]} and data['text/plain'] == ['42']
    assert isinstance(code['outputs'][3]['data']['image/png'], str)
    assert nb['cells'][4]['attachments'] == {'r.txt': {'text/plain': ['cg==']}}

def test_legacy_prompts_written_back_as_they_came():
    cells = [dict(cell_type='markdown', id='l1', metadata={'solveit_ai': True, 'host': 1}, source='Question?'+SEP+'Answer.'),
             dict(cell_type='markdown', id='l2', metadata={'solveit_ai': True}, source='No reply yet'),
             dict(cell_type='markdown', id='l3', metadata={'solveit_ai': True}, source='Empty reply'+SEP)]
    txt = canon_txt(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=5))
    d = reads_ipynb(txt)
    assert [(m.msg_type, m.content, m.ai_res) for m in d.messages] == [(sprompt, 'Question?', 'Answer.'), (sprompt, 'No reply yet', ''), (sprompt, 'Empty reply', '')]
    assert d.messages[0].meta == {'host': 1}
    assert write_ipynb(d) == txt
    d.mk_message('New one', msg_type=sprompt, output='Reply')
    assert json.loads(write_ipynb(d))['cells'][-1]['cell_type'] == 'code'

def test_tool_usage_blocks_byte_for_byte():
    "A reply holding a tool-usage block, in either prompt form, comes back byte for byte: in the file, and in `ai_res`"
    block = ("Checking.\n\n<details class='tool-usage-details'>\n<summary>rg</summary>\n\n```json\n"
             '{"id": "toolu_01A", "call": {"function": "rg", "arguments": {"argstr": "-l \\"foo\\""}}, "result": "a.py\\nb.py\\u2028"}\n```\n\n</details>\n\nDone.')
    current = dict(cell_type='code', id='p', metadata={'solveit_ai': True}, source='%%prompt\nFind foo', execution_count=None,
                   outputs=[dict(output_type='display_data', metadata={'is_ai_res': True}, data={'text/markdown': block})])
    legacy = dict(cell_type='markdown', id='p', metadata={'solveit_ai': True}, source='Find foo' + SEP + block)
    for cell in (current, legacy):
        txt = canon_txt(dict(cells=[cell], metadata={}, nbformat=4, nbformat_minor=5))
        d = reads_ipynb(txt)
        assert d.messages[0].ai_res == block and write_ipynb(d) == txt
        assert json.loads(txt)['cells'][0]['cell_type'] == cell['cell_type']

def test_attachments_homes_and_bytes():
    raw = bytes(range(256))*3
    d = Dialog('a')
    d.mk_message('x', id='c1', attachments=[Attachment(raw, 'application/octet-stream', 'blob.bin')])
    d.mk_message('y', msg_type=sprompt, id='p1', output='r', attachments=[Attachment(raw[::-1], 'image/jpeg', 'pic.jpg')])
    d.mk_message('z', msg_type=snote, id='n1', attachments=[Attachment(raw, 'image/png', 'n.png')])
    txt = write_ipynb(d)
    validate(txt)
    nb = json.loads(txt)
    assert set(nb['metadata']['attachments']) == {'c1', 'p1'} and 'attachments' not in nb['cells'][0]
    back = reads_ipynb(txt)
    assert [(a.id, a.content_type, a.data) for m in back.messages for a in m.attachments] == \
           [('blob.bin', 'application/octet-stream', raw), ('pic.jpg', 'image/jpeg', raw[::-1]), ('n.png', 'image/png', raw)]
    assert 'attachments' not in back.meta

def test_home_entries_for_missing_cells_ride_along():
    d = Dialog('a', meta={'attachments': {'gone': {'x.png': {'image/png': 'AAAA'}}}})
    d.mk_message('x', id='c1', attachments=[Attachment(b'1', 'image/png', 'y.png')])
    back = reads_ipynb(write_ipynb(d))
    assert back.meta == {'attachments': {'gone': {'x.png': {'image/png': 'AAAA'}}}}
    assert back.messages[0].attachments[0].data == b'1'

class Pinned(Message): meta_attrs = dict(pinned='pinned', hidden='skipped')
class PinnedDialog(Dialog): msg_cls = Pinned

def test_meta_attrs_promoted_and_demoted():
    cell = dict(cell_type='code', id='c', metadata={'pinned': True, 'skipped': False, 'other': {'k': 1}}, source='1', outputs=[], execution_count=None)
    txt = json.dumps(dict(cells=[cell], metadata={'x': 1}, nbformat=4, nbformat_minor=5))
    d = reads_ipynb(txt, cls=PinnedDialog)
    m = d.messages[0]
    assert type(m) is Pinned and (m.pinned, m.hidden, m.meta) == (True, False, {'other': {'k': 1}})
    m.hidden = True
    assert json.loads(write_ipynb(d))['cells'][0]['metadata'] == {'pinned': True, 'skipped': True, 'other': {'k': 1}}
    m.pinned = m.hidden = None
    assert json.loads(write_ipynb(d))['cells'][0]['metadata'] == {'other': {'k': 1}}

def test_execution_count_carried():
    d = Dialog('e')
    d.mk_message('1', execution_count=7, output=code_output('1'))
    d.mk_message('2')
    back = reads_ipynb(write_ipynb(d))
    assert [m.execution_count for m in back.messages] == [7, None]

def test_unknown_metadata_verbatim():
    meta = {'weird': {'nested': [1, {'deep': None}], 'num': 1.25, 'big': 10**30}, 'solveit_dialog_mode': 'learning', 'solveit_ver': 2}
    cmeta = {'time_run': '2026-01-01T00:00:00', 'use_thinking': True, 'unknown': ['a', {'b': 'é'}]}
    txt = canon_txt(dict(cells=[dict(cell_type='markdown', id='m', metadata=cmeta, source='x')], metadata=meta, nbformat=4, nbformat_minor=5))
    d = reads_ipynb(txt)
    assert d.meta == meta and d.messages[0].meta == cmeta and write_ipynb(d) == txt

def test_any_valid_v4_comes_out_canonical_with_same_content():
    nb = dict(nbformat=4, nbformat_minor=2, metadata={'b': 1, 'a': 'é'}, cells=[
        dict(cell_type='code', metadata={}, source=['x = 1\n', 'x'], execution_count=1,
             outputs=[dict(output_type='stream', name='stdout', text='a\nb\n'), dict(output_type='execute_result', execution_count=1, metadata={}, data={'text/plain': 'multi\nline', 'image/png': ['iVBO\n', 'Rw==']})]),
        dict(cell_type='markdown', source='one string\nsource'), dict(cell_type='raw', metadata={}, source=[])])
    txt = json.dumps(nb)  # no indent, unsorted, not split, ASCII escapes
    d = reads_ipynb(txt)
    out = write_ipynb(d)
    validate(out)
    assert canonical(out) and out == write_ipynb(reads_ipynb(out))
    want = [dict(c, metadata=c.get('metadata', {})) | ({'outputs': [dict(o, text=''.join(o['text'])) if 'text' in o else o for o in c['outputs']]} if 'outputs' in c else {}) for c in nb['cells']]
    assert content(json.loads(out), ids=False) == content(dict(nb, cells=want), ids=False)  # every cell: source, outputs, metadata
    got = json.loads(out)
    assert got['nbformat_minor'] == 5 and all(len(c['id'])==8 for c in got['cells'])
    assert got['cells'][0]['outputs'][1]['data']['image/png'] == 'iVBO\nRw=='  # old split base64: joined
    assert got['cells'][1]['source'] == ['one string\n', 'source'] and got['cells'][1]['metadata'] == {}

def test_one_edit_one_cell_in_the_diff():
    import difflib
    d = mk_dialog()
    for i in range(30): d.mk_message(f'cell {i}\nline two', msg_type=snote if i%2 else scode)
    before = write_ipynb(d)
    target = d.messages[17]
    target.content = target.content.replace('two', 'TWO')
    after = write_ipynb(d)
    changed = [l for l in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0) if l[:1] in '+-' and l[:3] not in ('+++', '---')]
    assert changed == ['-    "line two"', '+    "line TWO"']

# ---- healing, and refusing ----

def nb_txt(cells, **kw): return json.dumps(dict(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells), **kw))

def test_heals_missing_ids_metadata_and_minor():
    d = reads_ipynb(json.dumps(dict(nbformat=4, cells=[dict(cell_type='markdown', source='x'), dict(cell_type='code', source=['1'], outputs=[], execution_count=None)])))
    out = write_ipynb(d)
    validate(out)
    nb = json.loads(out)
    assert nb['nbformat_minor'] == 5 and nb['metadata'] == {} and len({c['id'] for c in nb['cells']}) == 2

def old_nb(srcs):
    "An nbformat 4.4 file (no cell ids) of code cells holding `srcs`"
    return json.dumps(dict(nbformat=4, nbformat_minor=4, metadata={}, cells=[dict(cell_type='code', source=s, outputs=[], execution_count=None, metadata={}) for s in srcs]))

def test_a_stale_derived_id_names_no_other_cell():
    "r33d, r33e: one of two `df.head()` cells deleted by another program (apart or adjacent), a delete by its derived id finds nothing"
    for srcs,gone in [(['df = load_raw()', 'df.head()', 'df = clean(df)', 'df.head()'], 1), (['import pandas', 'df.head()', 'df.head()', 'x = 1'], 1)]:
        was = reads_ipynb(old_nb(srcs))
        p = was.messages[gone].id
        now = reads_ipynb(old_nb(srcs[:gone] + srcs[gone+1:]))
        with pytest.raises(KeyError, match='has no message'): now.remove_msgs(p)
        assert [m.content for m in now.messages] == srcs[:gone] + srcs[gone+1:]

@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from('ab'), max_size=7), st.sampled_from(['del', 'ins', 'set', 'add', 'move']), st.integers(0, 7), st.sampled_from('abc'))
def test_derived_ids_name_a_cell_of_an_unchanged_file_only(srcs, op, at, s):
    "Any change by another program (a copy deleted, adjacent or not, a cell added, edited or moved): no id derived before it names a cell after it"
    def ids(ss): cs = [dict(cell_type='raw', metadata={}, source=x) for x in ss]; derive_ids(cs); return [c['id'] for c in cs]
    new = list(srcs); at = min(at, len(new))
    if op=='del' and new: del new[min(at, len(new)-1)]
    elif op=='ins': new.insert(at, s)
    elif op=='set' and new: new[min(at, len(new)-1)] = s
    elif op=='add': new.append(s)
    elif op=='move' and new: new.insert(at, new.pop(0))
    assert ids(new) == ids(new) and len(set(ids(new))) == len(new)  # the same cells, the same ids; each its own
    if new != srcs: assert not set(ids(new)) & set(ids(srcs)), (srcs, new)

@settings(deadline=None, max_examples=200)
@given(st.lists(st.sampled_from(['a', 'b', 'c']), max_size=30), st.lists(st.booleans(), max_size=30))
def test_copies_of_one_key_get_the_ids_trying_every_counter_would(srcs, has):
    "Sessions' rule (`before=False`): a key's copies resume their counter where the one before stopped, the ids trying k = 0, 1, ... from 0 gives"
    import hashlib
    def slow(cells):  # the rule as first written: each copy tries every counter from 0
        taken = {c['id'] for c in cells if c['id']}
        for c in cells:
            if c['id']: continue
            key = json.dumps(c['source'], ensure_ascii=False).encode()
            k = 0
            while (cid := hashlib.blake2b(f'{k}\0'.encode()+key, digest_size=4).hexdigest()) in taken: k += 1
            c['id'] = cid; taken.add(cid)
        return [c['id'] for c in cells]
    cs = [dict(source=x, id=None) for x in srcs]
    want = slow([dict(c) for c in cs])
    # some cells hold ids the rule would derive for another copy: the counter goes round them
    cs = [dict(c, id=want[i] if i < len(has) and has[i] else None) for i,c in enumerate(cs)]
    want = slow([dict(c) for c in cs])
    derive_ids(cs, before=False)
    assert [c['id'] for c in cs] == want

@pytest.mark.parametrize('before', [False, True])
def test_copies_of_one_key_cost_one_hash_each(monkeypatch, before):
    "r33e: n copies of one record (a session's repeated uuid) get their ids in about n hashes, not n²/2 (4,000 messages took 6 s)"
    import hashlib
    blake,n = hashlib.blake2b,[0]
    def counted(*a, **kw): n[0] += 1; return blake(*a, **kw)
    monkeypatch.setattr(hashlib, 'blake2b', counted)
    cs = [dict(source='same', id=None) for _ in range(500)]
    derive_ids(cs, before=before)
    assert len({c['id'] for c in cs}) == 500 and n[0] <= 2*500 + 2, n[0]

bad_cases = {
    'nbformat 3': (json.dumps(dict(nbformat=3, nbformat_minor=0, metadata={}, worksheets=[])), 'nbformat 3 is too old'),
    'nbformat 2': (json.dumps(dict(nbformat=2, metadata={}, worksheets=[])), 'too old'),
    'not JSON': ('this is not json', 'not JSON'),
    'truncated': (nb_txt([dict(cell_type='raw', id='a', metadata={}, source='x')])[:-7], 'not JSON, or cut short'),
    'empty': ('', 'empty file'),
    'blank': (' \n', 'empty file'),
    'invalid UTF-8': (b'{"cells": "\xc3\x28"}', 'not valid UTF-8'),
    'deep nesting': ('{"a":' * 200_000 + '1' + '}' * 200_000, 'nested too deeply'),
    'not a notebook': (json.dumps({'hello': 'world'}), 'not a notebook'),
    'a list': ('[]', 'not a notebook'),
    'cells not a list': (json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells={})), 'cells must be a list'),
    'unknown top key': (nb_txt([], extra=1), "unknown notebook keys ['extra']"),
    'nbformat a string': (json.dumps(dict(nbformat='4', nbformat_minor=5, metadata={}, cells=[])), 'must be integers'),
    'unknown cell type': (nb_txt([dict(cell_type='heading', id='h', metadata={}, source='x', level=1)]), "cell 0 (id h): unknown cell_type 'heading'"),
    'cell not an object': (nb_txt(['x']), 'cell 0: cell must be an object'),
    'source wrong type': (nb_txt([dict(cell_type='raw', id='r', metadata={}, source=[1, 2])]), 'source must be a string or a list of strings'),
    'no source': (nb_txt([dict(cell_type='raw', id='r', metadata={})]), 'cell has no source'),
    'metadata wrong type': (nb_txt([dict(cell_type='raw', id='r', metadata='BAD', source='')]), 'metadata must be an object'),
    'bad cell id': (nb_txt([dict(cell_type='raw', id='$bad', metadata={}, source='')]), 'invalid cell id'),
    'duplicate ids': (nb_txt([dict(cell_type='raw', id='d', metadata={}, source='')]*2), "cell 1 (id d): duplicate cell id 'd'"),
    'output not an object': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[3])]), 'bad output entry 0: must be an object'),
    'output no type': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[{}])]), 'bad output entry 0: unknown output_type None'),
    'stream without text': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[dict(output_type='stream', name='stdout')])]), "lacks ['text']"),
    'output extra key': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[dict(output_type='display_data', data={}, metadata={}, transient={})])]), "unknown keys ['transient']"),
    'data not text': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[dict(output_type='display_data', data={'text/plain': 5}, metadata={})])]), "output 0 data 'text/plain'"),
    'bad traceback': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None, outputs=[dict(output_type='error', ename='E', evalue='', traceback='tb')])]), 'traceback must be a list'),
    'negative count': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=-3, outputs=[])]), 'execution_count must be'),
    'code without outputs': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', execution_count=None)]), 'lacks outputs'),
    'outputs on markdown': (nb_txt([dict(cell_type='markdown', id='m', metadata={}, source='', outputs=[dict(output_type='stream', name='stdout', text='x')])]), "unknown keys ['outputs']"),
    'bad base64 on cell': (nb_txt([dict(cell_type='markdown', id='m', metadata={}, source='', attachments={'a.png': {'image/png': 'abc$'}})]), "attachments 'a.png' is not valid base64"),
    'bad base64 homed': (nb_txt([dict(cell_type='code', id='c', metadata={}, source='', outputs=[], execution_count=None)], metadata={'attachments': {'c': {'a.png': {'image/png': 'A'}}}}), 'is not valid base64'),
    'attachment two mimes': (nb_txt([dict(cell_type='markdown', id='m', metadata={}, source='', attachments={'a': {'image/png': 'AA==', 'text/plain': 'AA=='}})]), 'exactly one mime type'),
    'home not a map': (nb_txt([], metadata={'attachments': [1]}), 'must map cell ids'),
    'schema-typed cell metadata': (nb_txt([dict(cell_type='code', id='c', metadata={'scrolled': 'yes'}, source='', outputs=[], execution_count=None)]), "'scrolled' must be"),
    'schema-typed notebook metadata': (nb_txt([], metadata={'kernelspec': {'name': 'p'}}), "'kernelspec' must be"),
    'huge int': ('{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"n": ' + '9'*5000 + '}}', 'not readable JSON'),
}

@pytest.mark.parametrize('name', list(bad_cases))
def test_refused_with_clear_error(name):
    txt,msg = bad_cases[name]
    with pytest.raises(DialogFormatError) as e: reads_ipynb(txt, fname='f.ipynb')
    assert str(e.value).startswith('f.ipynb') and msg in str(e.value), str(e.value)

def test_read_ipynb_errors_name_the_file(tmp_path):
    f = tmp_path/'broken.ipynb'
    f.write_bytes(b'{"nbformat": 4, "cells": [')
    with pytest.raises(DialogFormatError, match='broken.ipynb: not JSON'): read_ipynb(tmp_path/'broken')

def test_write_refuses_damaged_messages():
    d = Dialog('w')
    m = d.mk_message('x')
    for out,msg in [([dict(output_type='stream', name='stdout', text=5)], 'output 0 text'), ('text', 'output must be a list'), ([dict(output_type='nope')], "unknown output_type 'nope'")]:
        m.output = out
        with pytest.raises(ValueError, match=msg): write_ipynb(d)
    m.output = []
    with pytest.raises(ValueError, match="msg_type 'bogus' is not one of code, note, prompt, raw"): m.msg_type = 'bogus'
    assert m.msg_type == scode and write_ipynb(d)
    d.meta = {'kernelspec': 'x'}
    with pytest.raises(ValueError, match="dialog meta 'kernelspec' must be"): write_ipynb(d)
    d.meta = {'attachments': ['x']}
    with pytest.raises(ValueError, match="dialog meta 'attachments' must map cell ids"): write_ipynb(d)

def test_write_some_messages_and_to_a_file(tmp_path):
    d = mk_dialog()
    part = write_ipynb(d, msgs=d.messages[:2])
    assert [m.content for m in reads_ipynb(part).messages] == [m.content for m in d.messages[:2]]
    assert 'attachments' in json.loads(part)['metadata']  # the code message's attachment is homed
    assert 'attachments' not in json.loads(write_ipynb(d, msgs=[d.messages[0]]))['metadata']
    p = write_ipynb(d, tmp_path/'out')
    assert p == tmp_path/'out.ipynb' and p.read_text(encoding='utf-8') == write_ipynb(d)

# ---- properties ----

texts = st.text(alphabet=st.characters(codec='utf-8', exclude_categories=['Cs']), max_size=40)
json_vals = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(texts, c, max_size=3), max_leaves=8)
metas = st.dictionaries(texts.filter(lambda k: k not in ('name', 'tags', 'jupyter', 'collapsed', 'scrolled', 'execution', 'format', 'solveit_ai')), json_vals, max_size=3)
outputs = st.lists(st.one_of(
    st.builds(lambda n,t: dict(output_type='stream', name=n, text=t), st.sampled_from(['stdout', 'stderr']), texts),
    st.builds(lambda t,m: dict(output_type='display_data', metadata=m, data={'text/plain': t, 'text/markdown': t}), texts, metas),
    st.builds(lambda t,n: dict(output_type='execute_result', execution_count=n, metadata={}, data={'text/plain': t, 'application/json': {'v': t}}), texts, st.none() | st.integers(0, 99)),
    st.builds(lambda e,tb: dict(output_type='error', ename='E', evalue=e, traceback=tb), texts, st.lists(texts, max_size=3))), max_size=4)
atts = st.lists(st.builds(Attachment, st.binary(max_size=20), st.sampled_from(['image/png', 'text/plain', 'application/pdf']),
                          st.text(alphabet='abcxyz.', min_size=1, max_size=6)), max_size=2, unique_by=lambda a: a.id)
msgs = st.one_of(
    st.builds(lambda c,o,m,a,n: Message(c, output=o, meta=m, attachments=a, execution_count=n, id='_'), texts, outputs, metas, atts, st.none() | st.integers(0, 50)),
    st.builds(lambda c,r,m,a: Message(c, msg_type=sprompt, output=r, meta=m, attachments=a, id='_'), texts, texts, metas, atts),
    st.builds(lambda c,m,a,t: Message(c, msg_type=t, meta=m, attachments=a, id='_'), texts, metas, atts, st.sampled_from([snote, sraw])))

@pytest.mark.slow  # ~5 s: a hypothesis sweep
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(msgs, max_size=6), metas)
def test_roundtrip_property(ms, meta):
    "Any dialog writes a schema-valid file that reads back to the same dialog and writes to the same text"
    for i,m in enumerate(ms): m.id = f'm{i}'
    d = Dialog('p', ms, meta)
    txt = write_ipynb(d)
    validate(txt)
    back = reads_ipynb(txt)
    assert [m.todict() for m in back.messages] == [m.todict() for m in d.messages]
    assert back.meta == d.meta and write_ipynb(back) == txt
    assert txt == json.dumps(split_nb(json.loads(txt)), indent=1, sort_keys=True, ensure_ascii=False)+'\n'

# ---- files: atomic saves, permissions, conflicts ----

def test_save_keeps_permissions_and_cleans_up(tmp_path):
    f = tmp_path/'d.ipynb'
    mk_dialog().save(f)
    f.chmod(0o640)
    d = read_ipynb(f)
    d.mk_message('more', msg_type=snote)
    d.save()
    assert stat.S_IMODE(f.stat().st_mode) == 0o640 and os.listdir(tmp_path) == ['d.ipynb']

def test_failed_write_leaves_original(tmp_path, monkeypatch):
    f = tmp_path/'d.ipynb'
    d = mk_dialog(); d.save(f)
    before = f.read_bytes()
    d.mk_message('new', msg_type=snote)
    def boom(*a): raise OSError('disk full')
    monkeypatch.setattr(os, 'fsync', boom)
    with pytest.raises(OSError, match='disk full'): d.save()
    monkeypatch.undo()
    assert f.read_bytes() == before and os.listdir(tmp_path) == ['d.ipynb']

def test_save_through_symlink(tmp_path):
    real = tmp_path/'real.ipynb'
    mk_dialog().save(real)
    link = tmp_path/'link.ipynb'
    link.symlink_to(real)
    d = read_ipynb(link)
    d.mk_message('via link', msg_type=snote)
    d.save()
    assert link.is_symlink() and read_ipynb(real).messages[-1].content == 'via link'

@pytest.mark.parametrize('how', ['edit', 'replace', 'touch_same', 'delete'])
def test_conflicts(tmp_path, how):
    f = tmp_path/'d.ipynb'
    mk_dialog().save(f)
    mine = read_ipynb(f)
    mine.mk_message('mine', msg_type=snote)
    if how=='edit':
        theirs = read_ipynb(f); theirs.mk_message('theirs', msg_type=snote); theirs.save()
    elif how=='replace':  # what a `git checkout` does: a new file renamed over the old
        other = tmp_path/'other.ipynb'; Dialog('x').save(other); os.replace(other, f)
    elif how=='touch_same': os.utime(f, (1, 1))  # same bytes, new time: not a change
    else: f.unlink()
    disk = f.read_bytes() if f.exists() else None
    if how in ('edit', 'replace', 'delete'):
        with pytest.raises(DialogConflictError): mine.save()
        assert (f.read_bytes() if f.exists() else None) == disk and os.listdir(tmp_path) == ([] if how=='delete' else ['d.ipynb'])
        mine.save(force=True)
    else: mine.save()
    assert read_ipynb(f).messages[-1].content == 'mine'

def test_save_requires_a_file_and_refuses_foreign_files(tmp_path):
    with pytest.raises(ValueError, match='has no file yet'): Dialog('x').save()
    (tmp_path/'x.ipynb').write_text('precious')
    with pytest.raises(DialogConflictError, match='already exists'): Dialog('x').write(tmp_path)
    assert (tmp_path/'x.ipynb').read_text() == 'precious'

def test_identical_save_does_not_touch_the_file(tmp_path):
    f = tmp_path/'d.ipynb'
    d = mk_dialog(); d.save(f)
    os.utime(f, (1, 1))
    d.save()
    assert f.stat().st_mtime == 1

def _saver(f, flips):
    "Child: keep saving `f`, alternating one message between two contents, until killed"
    d = read_ipynb(f)
    m = d.messages[0]
    while True:
        m.content = flips[m.content]
        d.save()

@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, 'fork'), reason='needs os.fork, which this platform lacks')
def test_sigkill_during_saves(tmp_path):
    "SIGKILL a process that keeps saving, 200 times at random moments: the file is always the old or new version, whole"
    f = tmp_path/'crash.ipynb'
    d = mk_dialog()
    for i in range(300): d.mk_message(f'padding {i} ' + 'x'*300, msg_type=snote)
    d.messages[0].content = 'A'
    d.save(f)
    f.chmod(0o604)
    text_a = f.read_text(encoding='utf-8')
    d.messages[0].content = 'B'
    text_b = write_ipynb(d)
    rng,leftovers = random.Random(0),0
    for i in range(200):
        pid = os.fork()
        if pid==0:
            try: _saver(f, {'A': 'B', 'B': 'A'})
            finally: os._exit(1)
        time.sleep(rng.uniform(0, 0.03))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert f.read_text(encoding='utf-8') in (text_a, text_b), f'kill {i}: file is neither version'
        tmps = [n for n in os.listdir(tmp_path) if n!='crash.ipynb']
        assert len(tmps) <= 1, f'kill {i}: temp files piling up: {tmps}'
        leftovers += len(tmps)
    assert leftovers > 0, 'no kill landed mid-write: the test did not exercise what it claims'
    last = read_ipynb(f)
    last.messages[0].content = 'C'
    last.save()  # the next write clears what the last killed writer left
    assert os.listdir(tmp_path) == ['crash.ipynb'] and stat.S_IMODE(f.stat().st_mode) == 0o604

# ---- fuzzing: a few hundred cases here; bench/fuzz.py runs 10,000 ----

@pytest.mark.slow
def test_fuzz_some():
    import fuzz
    counts = fuzz.run(int(os.environ.get('DIALOG_FUZZ_N', 400)), seed=int(os.environ.get('DIALOG_FUZZ_SEED', 0)), report=False)
    read = sum(v for (k,r),v in counts.items() if r=='read')
    assert read > 0 and sum(counts.values()) - read > 0

def test_cells_and_nb_meta_lose_nothing_for_a_host():
    "Through `cells` + `nb_meta` and `from_cells`, a host dialog comes back whole: code attachments (homed in notebook metadata), `meta_attrs`, classes"
    class PinMsg(Message): meta_attrs = {'pinned_': 'pinned'}
    class PinDlg(Dialog): msg_cls = PinMsg
    d = PinDlg('h', meta={'kernelspec': {'name': 'python3', 'display_name': 'Python 3'}})
    c = d.mk_message('show()', pinned_=False); c.mk_attachment(tiny_png, 'image/png', 'a.png')
    d.mk_message('# note', msg_type=snote, pinned_=True).mk_attachment(b'x', 'text/plain', 'n.txt')
    back = PinDlg.from_cells(d.cells, name='h', meta=d.nb_meta)
    assert type(back) is PinDlg and all(type(m) is PinMsg for m in back)
    assert [m.pinned_ for m in back]==[False, True] and back[c.id].attachments[0].data==tiny_png
    assert write_ipynb(back)==write_ipynb(d)

def test_from_cells_without_a_copy_builds_the_same_dialog():
    "copy=False hands the cells over rather than copying them: the same dialog, byte for byte, on every notebook of the repo; with copy=True the caller's cells are untouched"
    import glob
    for f in sorted(glob.glob(str(Path(__file__).parent.parent/'nbs'/'*.ipynb'))) + [str(Path(__file__).parent.parent/'examples'/'tour.ipynb')]:
        nb = json.loads(Path(f).read_text(encoding='utf-8'))
        before = json.dumps(nb)
        a = Dialog.from_cells(nb['cells'], name='x', meta=nb['metadata'])
        assert json.dumps(nb)==before
        b = Dialog.from_cells(json.loads(before)['cells'], name='x', meta=json.loads(before)['metadata'], copy=False)
        assert write_ipynb(a)==write_ipynb(b), f

def test_atomic_write_of_chunks_streams_outside_the_lock(tmp_path):
    "`atomic_write` of an iterable writes each chunk to its temporary file as it comes (never the whole in memory), without the folder's lock (a write of another file there, from inside the chunks, goes through), keeps a replaced file's bits, and a chunk that raises leaves the file as it was and no temporary file"
    import threading
    f = tmp_path/'out.txt'; f.write_text('old'); f.chmod(0o640)
    seen = []
    def chunks():
        for i in range(4):
            yield b'x' * 100_000
            seen.append(sum(p.stat().st_size for p in tmp_path.glob('.out.txt.*.tmp')))  # on disk already
        atomic_write(tmp_path/'other.txt', b'meanwhile')  # waits forever if the folder's lock were held
    t = threading.Thread(target=lambda: atomic_write(f, chunks()), daemon=True); t.start(); t.join(120)
    assert not t.is_alive(), 'the folder lock was held while the chunks were made'
    assert f.read_bytes() == b'x' * 400_000 and (tmp_path/'other.txt').read_text() == 'meanwhile' and stat.S_IMODE(f.stat().st_mode) == 0o640
    assert seen[-1] >= 300_000
    def bad():
        yield b'new'; raise ValueError('dialog 3 is bad')
    with pytest.raises(ValueError, match='dialog 3 is bad'): atomic_write(f, bad())
    assert f.read_bytes() == b'x' * 400_000 and sorted(p.name for p in tmp_path.iterdir()) == ['other.txt', 'out.txt']
    assert atomic_write(tmp_path/'new.txt', iter([b'a', b'', b'b'])).read_bytes() == b'ab'

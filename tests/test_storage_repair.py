"Reading with `repair=True` on damaged files: it reads or raises `DialogFormatError`, and what it reads writes a valid file that reads back strictly"
import random, collections, copy, json, re
import pytest, nbformat
from hypothesis import given, settings, strategies as st
import fuzz
from dialog.ipynb import reads_ipynb, write_ipynb, repair_ipynb, DialogFormatError
from dialog.nbjson import json_copy

def outcome(data):
    try: d = reads_ipynb(data, repair=True)
    except DialogFormatError: return 'refused'
    t = write_ipynb(d)
    try: nb = nbformat.reads(t, as_version=nbformat.NO_CONVERT)
    except RecursionError: nb = None  # deeper than nbformat's recursive reader goes (json.loads reads ten times deeper from Python 3.12): the strict reading below checks it
    if nb is not None: nbformat.validate(nb)
    assert write_ipynb(reads_ipynb(t))==t  # strict reading takes what repair gave back, unchanged
    return 'read'

@pytest.mark.parametrize('seed', [0, 1])
def test_repair_reads_or_refuses_mutated_files(seed):
    rng,ss,res = random.Random(seed),fuzz.seeds(),collections.Counter()
    for _ in range(80): res[outcome(fuzz.mutate(rng, rng.choice(ss))[1])] += 1
    assert res['read'] and res['refused'], res

@pytest.mark.slow  # ~45 s
def test_repair_fuzz_long():
    rng,ss = random.Random(7),fuzz.seeds()
    for _ in range(4000): outcome(fuzz.mutate(rng, rng.choice(ss))[1])

def test_repair_heals_more_than_strict_reading():
    "Of the same mutations, repair reads every one strict reading reads, and more"
    rng,ss,strict,healed = random.Random(3),fuzz.seeds(),0,0
    for _ in range(120):
        data = fuzz.mutate(rng, rng.choice(ss))[1]
        try: reads_ipynb(data); strict += 1; ok = True
        except DialogFormatError: ok = False
        r = outcome(data)=='read'
        assert r or not ok
        healed += r
    assert healed > strict

def test_a_refusal_says_whether_repair_heals():
    "Of the same mutations, strict reading's error is `repairable` exactly when repair reads the file, and repair's ids are the same on every read"
    rng,ss,n = random.Random(5),fuzz.seeds(),0
    for _ in range(120):
        data = fuzz.mutate(rng, rng.choice(ss))[1]
        try: reads_ipynb(data); continue
        except DialogFormatError as e: heals = e.repairable
        assert heals == (outcome(data)=='read'), data[:300]
        if heals: n += 1; assert [m.id for m in reads_ipynb(data, repair=True).messages] == [m.id for m in reads_ipynb(data, repair=True).messages]
    assert n

def test_repair_gives_a_duplicate_and_a_bad_id_the_same_new_id_every_read():
    "r33d: nbformat's own test files: each refused, `repairable`, and healed to the same ids by every read (an id one command prints is found by the next)"
    from shared_paths import need_corpus
    for f,problem in (('invalid_unique_cell_id.ipynb', "duplicate cell id 'dup'"), ('invalid_cell_id.ipynb', "invalid cell id '$illegal_chars'")):
        data = need_corpus('jupyter-nbformat-tests', f).read_bytes()
        with pytest.raises(DialogFormatError, match=re.escape(problem)) as e: reads_ipynb(data)
        assert e.value.repairable
        a,b = reads_ipynb(data, repair=True),reads_ipynb(data, repair=True)
        assert [m.id for m in a.messages] == [m.id for m in b.messages] and a.repairs == b.repairs
    with pytest.raises(DialogFormatError) as e: reads_ipynb(json.dumps(dict(nbformat=3, nbformat_minor=0, metadata={}, worksheets=[])))
    assert not e.value.repairable

def _text(src): return src if type(src) is str else ''.join(src)

def check_no_guess(nb):
    "Repair of parsed `nb` keeps every cell, every source's text and every output, or refuses and leaves `nb` as it was"
    orig = json_copy(nb)  # copy.deepcopy stops at Python's recursion limit, below what json.loads reads from Python 3.12
    try: fixes = repair_ipynb(nb)
    except DialogFormatError:
        assert nb == orig
        return 'refused'
    if type(orig) is not dict or type(orig.get('cells')) is not list: return 'untouched'
    assert len(nb['cells']) == len(orig['cells'])
    for a,b in zip(orig['cells'], nb['cells']):
        if a.get('cell_type') == 'heading': continue  # made a markdown heading of the same text
        assert _text(b.get('source', '')) == ('' if a.get('source') is None else _text(a['source']))
        assert len(b.get('outputs') or []) == len(a.get('outputs') or [])
    assert len(set(fixes)) == len(fixes)  # each fix reported once
    return 'read'

def test_repair_never_guesses_or_drops_content():
    "On mutated files: no cell, source text or output is dropped or made up; what can't be healed is refused"
    rng,ss,res = random.Random(11),fuzz.seeds(),collections.Counter()
    for _ in range(150):
        try: nb = json.loads(fuzz.mutate(rng, rng.choice(ss))[1])
        except (ValueError, RecursionError): continue
        res[check_no_guess(nb)] += 1
    assert res['read'] and res['refused'], res

@pytest.mark.parametrize('cell,problem', [
    (dict(cell_type='code', id='s', source=[1, 2], metadata={}, outputs=[]), 'cell 1 (id s): source must be text'),
    (dict(cell_type='code', id='n', source=5, metadata={}, outputs=[]), 'cell 1 (id n): source must be text'),
    ([1], 'cell 1: not a JSON object'), (None, 'cell 1: not a JSON object'),
    (dict(cell_type='code', id='o', source='', outputs=[dict(output_type='bad stream', name='stdout', text='x')]), "cell 1 (id o): output 0: can't be read"),
    (dict(cell_type='code', id='o', source='', outputs={'a': 1}), 'cell 1 (id o): outputs must be a list'),
    (dict(cell_type='code', id='p', source='', outputs=[dict(output_type='display_data', data={'text/plain': 'x'}), {'text': 'x'}]),
     "cell 1 (id p): output 1: can't be read (unknown output_type None)"), # the output named is the one that can't be read, after one that repair fixes
    (dict(cell_type='raw', id='r', source='', outputs=[dict(output_type='stream', name='stdout', text='x')]), 'cell 1 (id r): a raw cell holds outputs')])
def test_repair_refuses_what_needs_a_guess(cell, problem):
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='markdown', id='ok', metadata={}, source='keep'), cell])
    with pytest.raises(DialogFormatError, match='^' + __import__('re').escape(f'f.ipynb: {problem}')): reads_ipynb(json.dumps(nb), fname='f.ipynb', repair=True)
    assert check_no_guess(nb) == 'refused'

def test_repair_keeps_outputs_it_fixes():
    "Outputs that need only their metadata or count set are fixed, every one kept and none refused"
    outs = [dict(output_type='display_data', data={'text/plain': 'x'}), dict(output_type='execute_result', data={'text/plain': 'y'}, metadata={}),
            dict(output_type='stream', name='stdout', text='z')]
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='c', metadata={}, source='', outputs=outs, execution_count=None)])
    d = reads_ipynb(json.dumps(nb), repair=True)
    assert [o['output_type'] for o in d.messages[0].output] == ['display_data', 'execute_result', 'stream']
    assert d.repairs == ['cell 0 (id c): output 0: set metadata', 'cell 0 (id c): output 1: set execution_count']

def test_missing_ids_reported_once_as_what_was_done():
    "Cells with no id: no 'duplicate id' reports; in a 4.5 file each gets the id strict reading would derive, reported once; older files need no fix"
    cells = [dict(cell_type='markdown', metadata={}, source=f'c{i}') for i in range(4)]
    old = json.dumps(dict(nbformat=4, nbformat_minor=4, metadata={}, cells=cells))
    test = reads_ipynb(old, repair=True)
    assert test.repairs == [] and [m.id for m in test.messages] == [m.id for m in reads_ipynb(old)]
    new = reads_ipynb(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=cells)), repair=True)
    assert new.repairs == [f'cell {i}: no id; gave it {m.id}' for i,m in enumerate(new.messages)]
    assert [m.id for m in new.messages] == [m.id for m in test.messages]

_odd = st.text(st.sampled_from('ab #\n\r\x0b\x85\u2028\u2029\u200b\ufeff─│'), min_size=1, max_size=12)

@settings(max_examples=150, deadline=None)
@given(key=_odd, cid=_odd, name=_odd)
def test_each_fix_and_refusal_is_one_printable_line(key, cid, name):
    "r33e: a key's name, an invalid id or a file name holding line breaks or format characters is quoted: no text of the file starts a line of a fix or an error"
    cell = dict(cell_type='code', id=cid, metadata={}, source='x', outputs=[dict(output_type='stream', name='stdout', text='', **{key: 1})], execution_count=None, **{key: 2})
    nb = {**dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[cell]), key: 3}
    for fix in repair_ipynb(json_copy(nb)): assert fix.isprintable(), fix
    e = DialogFormatError('bad', name, 0, cid)
    assert str(e).isprintable() and str(DialogFormatError('bad', 'ok.ipynb', 0, 'c1'))=='ok.ipynb: cell 0 (id c1): bad'

@pytest.mark.parametrize('n', ['7', 7.0, [7], {'n': 7}])
def test_repair_refuses_an_output_count_of_another_type(n):
    "An execute_result's execution_count of another type is refused, as the cell's own is: nulling it would drop '7' unsaid"
    o = dict(output_type='execute_result', data={'text/plain': 'hi'}, metadata={}, execution_count=n)
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='a', metadata={}, source='x', outputs=[o], execution_count=None)])
    with pytest.raises(DialogFormatError, match=r"^cell 0 \(id a\): output 0: .*execution_count.* not " + re.escape(repr(n)) + '; repair refuses to guess'):
        reads_ipynb(json.dumps(nb), repair=True)
    before = json_copy(nb)
    with pytest.raises(DialogFormatError): repair_ipynb(nb)
    assert nb==before

@pytest.mark.parametrize('kind', ['display_data', 'execute_result'])
@pytest.mark.parametrize('meta', ['keep me', ['a', 'b'], 42, True])
def test_repair_refuses_an_output_metadata_of_another_type(kind, meta):
    "r32c: an output's metadata that isn't an object is refused, as a cell's is: fastcore makes it {}, dropping it unsaid"
    o = dict(output_type=kind, data={'text/plain': 'hi'}, metadata=meta, **({'execution_count': 1} if kind=='execute_result' else {}))
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='a', metadata={}, source='x', outputs=[o], execution_count=None)])
    with pytest.raises(DialogFormatError, match=r"^cell 0 \(id a\): output 0: metadata must be an object, not .*; repair refuses to guess"):
        reads_ipynb(json.dumps(nb), repair=True)
    o['metadata'] = None  # null holds nothing to lose: healed
    d = reads_ipynb(json.dumps(nb), repair=True)
    assert d.messages[0].output[0]['metadata']=={} and d.repairs==['cell 0 (id a): output 0: set metadata']

@pytest.mark.parametrize('n,said', [(5, 'removed execution_count=5'), ('5', "removed execution_count='5'"), (None, 'removed execution_count')])
def test_repair_quotes_the_count_it_removes_from_a_note(n, said):
    "r32c: a markdown cell's execution_count is removed, and the report quotes a count that wasn't null, as it quotes other keys it removes"
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='markdown', id='m', metadata={}, source='x', execution_count=n)])
    d = reads_ipynb(json.dumps(nb), repair=True)
    assert d.repairs==[f'cell 0 (id m): {said}'] and 'execution_count' not in d.messages[0].to_cell()

_png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
def _code(src, cid, atts=None):
    c = dict(cell_type='code', id=cid, metadata={}, source=src, outputs=[], execution_count=None)
    if atts: c['attachments'] = {k: {'image/png': _png} for k in atts}
    return c

@pytest.mark.parametrize('first', [None, ['x.png']])
def test_repair_homes_attachments_under_the_id_a_duplicate_ends_with(first):
    "A code cell's attachments go with it when its duplicate id is replaced: none to the cell that keeps the id, none lost"
    nb = dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[_code('one', 'dup', first), _code('two', 'dup', ['y.png'])])
    d = reads_ipynb(json.dumps(nb), repair=True)
    assert {m.content: sorted(a.id for a in m.attachments) for m in d.messages} == {'one': first or [], 'two': ['y.png']}
    assert d.messages[1].id!='dup' and reads_ipynb(write_ipynb(d)).messages[1].attachments[0].id=='y.png'

def test_repair_joins_a_cells_attachments_to_those_metadata_keeps_for_it():
    "Attachments notebook metadata keeps for a code cell stay beside the cell's own, reported; a name in both with other content is refused"
    def nb(other): return dict(nbformat=4, nbformat_minor=5, cells=[_code('x', 'a', ['x.png'])],
                               metadata={'attachments': {'a': {'y.png': {'image/png': _png}, 'x.png': {'image/png': other}}}})
    d = reads_ipynb(json.dumps(nb(_png)), repair=True)  # the same x.png in both: nothing to choose
    assert sorted(a.id for a in d.messages[0].attachments) == ['x.png', 'y.png']
    assert any("'y.png'" in r and 'cell 0 (id a)' in r for r in d.repairs), d.repairs
    with pytest.raises(DialogFormatError, match=r"^cell 0 \(id a\): attachment 'x.png' .*other content.*repair refuses to guess"):
        reads_ipynb(json.dumps(nb('AAAA')), repair=True)

def _md(cid): return dict(cell_type='markdown', id=cid, metadata={}, source='hi')

@pytest.mark.parametrize('cells,old', [([_code('x', 'bad id')], 'bad id'), ([_md('x'), _code('x', 'x')], 'x')])
def test_repair_moves_the_attachments_metadata_keeps_for_a_code_cell_with_its_new_id(cells, old):
    "A code cell repair gives a new id (its own invalid, or an earlier markdown cell's) keeps the attachments notebook metadata homed under the old: moved, reported"
    nb = dict(nbformat=4, nbformat_minor=5, metadata={'attachments': {old: {'a.png': {'image/png': _png}}}}, cells=cells)
    d = reads_ipynb(json.dumps(nb), repair=True)
    m = d.messages[-1]
    assert m.id!=old and [a.id for a in m.attachments]==['a.png'] and 'attachments' not in d.meta
    assert any(f"(id {m.id})" in r and repr(old) in r and 'moved' in r for r in d.repairs), d.repairs
    assert [a.id for a in reads_ipynb(write_ipynb(d)).messages[-1].attachments]==['a.png']

def test_repair_leaves_homed_attachments_to_the_code_cell_keeping_the_id_and_refuses_an_owner_to_guess():
    "Under a duplicate id another code cell keeps, the entry stays with it; under one two renamed code cells had, it is refused"
    meta = {'attachments': {'x': {'a.png': {'image/png': _png}}}}
    d = reads_ipynb(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata=meta, cells=[_code('one', 'x'), _code('two', 'x')])), repair=True)
    assert [[a.id for a in m.attachments or []] for m in d.messages]==[['a.png'], []]
    two = dict(nbformat=4, nbformat_minor=5, metadata=meta, cells=[_md('x'), _code('one', 'x'), _code('two', 'x')])
    with pytest.raises(DialogFormatError, match=r"^cell 1 \(id x\): notebook metadata keeps attachments for its id, which code cell 2 has too"):
        reads_ipynb(json.dumps(two), repair=True)

"The helpers hosts call by name behave as aidialog 0.0.39's do (differential tests, the installed package as oracle), except where we differ on purpose"
import copy, glob, io, json, contextlib
from pathlib import Path
import pytest
from hypothesis import assume, given, settings, strategies as st
from dialog.core import *
from dialog.core import export_filter, copy_export
from dialog.ipynb import *
from dialog.ipynb import home_atts, unhome_atts, ipynb_cells, repair_ipynb

ai = pytest.importorskip('aidialog.dialog')
aiio = pytest.importorskip('aidialog.ipynb')
from shared_paths import corpus, needs_corpus

contents = st.sampled_from(['x = 1', '#| export\ndef f(): pass', '#| exports\ny = 2', '#| eval: false\nslow()', '#| eval: true\nz = 3',
                            '#| hide\nimport os', '# a comment\n#| export\nw = 4', '#|export\nv = 5', 'print(1)'])
specs = st.lists(st.tuples(contents, st.sampled_from([scode, scode, sprompt, snote]), st.booleans()), min_size=1, max_size=7)

def both(spec):
    "The same messages as our dialog and as aidialog's"
    ours = Dialog('d', [Message(c, id=f'm{i}', msg_type=t, meta={'pinned': True} if p else {}) for i,(c,t,p) in enumerate(spec)])
    theirs = ai.Dialog([ai.Message(c, id=f'm{i}', msg_type=t, meta={'pinned': True} if p else {}) for i,(c,t,p) in enumerate(spec)], name='d')
    return ours, theirs

def ids(ms): return [m.id for m in ms]

def test_a_dialog_is_true_even_empty():
    assert bool(Dialog('e')) is True is bool(ai.Dialog())

@settings(max_examples=60, deadline=None)
@given(specs, st.integers(0, 6), st.booleans())
def test_rel_msg_matches(spec, i, up):
    ours, theirs = both(spec)
    i %= len(spec)
    a, b = ours.messages[i].rel_msg(up), theirs.messages[i].rel_msg(up)
    assert (a and a.id) == (b and b.id)

def test_rel_msg_outside_a_dialog_is_none():
    "On purpose: aidialog raises AttributeError for a message in no dialog; ours answers None, as `next` and `previous` do"
    assert Message('x').rel_msg(True) is None
    with pytest.raises(AttributeError): ai.Message('x').rel_msg(True)

@settings(max_examples=60, deadline=None)
@given(specs)
def test_export_filter_matches(spec):
    assume(not any(c.startswith('# a comment') for c,_,_ in spec))  # see the next test
    ours, theirs = both(spec)
    assert ids(export_filter(ours.messages)) == ids(ai.export_filter(theirs.messages))

def test_export_filter_counts_directives_after_opening_comments():
    "On purpose: `exported` (core's rule, from the spec) sees an export directive anywhere in the opening comments; aidialog only at the top"
    ms = [Message('# a comment\n#| export\nw = 4', id='e'), Message('x', id='x')]
    assert ids(export_filter(ms)) == ['e'] != ids(ai.export_filter([ai.Message(m.content, id=m.id) for m in ms]))

same_copy = ['#| export\nx', '#|export\nx', '#| exports\nx', '#| exporti\nx', '#| export sub.mod\nx', '#| export  \nx', '#| hide\n#| export\nx',
             '# comment\n#| export\nx', '#| eval: false\nx', 'plain\nx']
@pytest.mark.parametrize('src', same_copy)
@pytest.mark.parametrize('s', ['body', '#| hide\nbody', '# | hide\nbody', ' #| hide\nbody', '', '#export\nbody'])
def test_copy_export_matches(s, src):
    assert copy_export(s, src) == ai.copy_export(s, src)

@pytest.mark.parametrize('src', ['# | export\nx', '#export\nx', '  #| export\nx', '#| export'])
def test_copy_export_knows_every_spelling_nbdev_knows(src):
    "On purpose: the spellings `exported` accepts (and nbdev does) are copied too, and a directive with nothing after it; aidialog copies only `#|...` lines followed by more"
    assert copy_export('body', src) == src.partition('\n')[0]+'\nbody' != ai.copy_export('body', src)

sel_args = st.sampled_from([dict(all=True), dict(all=True, exported=True), dict(all=True, ignore_eval=True), dict(all=True, default_eval=False)])
@settings(max_examples=60, deadline=None)
@given(specs, sel_args, st.integers(0, 6), st.sampled_from([{}, dict(above=True), dict(below=True), dict(exported=True)]))
def test_select_msgs_matches(spec, kw, i, kw2):
    ours, theirs = both(spec)
    assert ids(ours.select_msgs(**kw)) == ids(theirs.select_msgs(**kw))
    code = [m.id for m in ours.messages if m.msg_type in (scode, sprompt)]
    if code:
        k = code[i % len(code)]
        assert ids(ours.select_msgs(k, **kw2)) == ids(theirs.select_msgs(k, **kw2))

def test_select_msgs_missing_id_is_a_key_error():
    "On purpose: an id naming no code message is a KeyError naming it (the error policy); aidialog (fastcore) raises ValueError"
    ours, theirs = both([('x', scode, False), ('# n', snote, False)])
    with pytest.raises(KeyError, match="'m1'"): ours.select_msgs('m1')
    with pytest.raises(ValueError): theirs.select_msgs('m1')

def nb_with_atts(code_atts, md_atts=True, orphan=False):
    b = {'image/png': 'iVBORw=='}
    cells = [dict(cell_type='code', id='c1', metadata={}, source='x', outputs=[], execution_count=None, **({'attachments': {'a.png': b}} if code_atts else {})),
             dict(cell_type='markdown', id='m1', metadata={}, source='y', **({'attachments': {'b.png': b}} if md_atts else {}))]
    return dict(cells=cells, metadata={'attachments': {'gone': {'z.png': b}}} if orphan else {}, nbformat=4, nbformat_minor=5)

@pytest.mark.parametrize('code_atts', [True, False])
@pytest.mark.parametrize('md_atts', [True, False])
def test_homing_steps_match(code_atts, md_atts):
    a, b = nb_with_atts(code_atts, md_atts), nb_with_atts(code_atts, md_atts)
    assert home_atts(a) == aiio.home_atts(b)
    assert unhome_atts(copy.deepcopy(a)) == aiio.unhome_atts(copy.deepcopy(b)) == nb_with_atts(code_atts, md_atts)

def test_homing_keeps_what_belongs_to_no_cell():
    "On purpose: attachments homed for a cell the notebook doesn't have stay in the metadata (nothing is lost); aidialog drops them"
    ours = unhome_atts(nb_with_atts(False, orphan=True))
    assert list(ours['metadata']['attachments']) == ['gone']
    assert 'attachments' not in aiio.unhome_atts(nb_with_atts(False, orphan=True))['metadata']

def test_homing_steps_are_what_the_file_holds():
    "`home_atts` gives the form `write_ipynb` writes, and `unhome_atts` the form `from_cells` reads back"
    d = Dialog('h', [Message('x', id='c1', attachments=[Attachment(b'\x89PNG', 'image/png', 'a.png')])])
    nb = json.loads(write_ipynb(d))
    cells = unhome_atts(copy.deepcopy(nb))['cells']
    assert list(cells[0]['attachments']) == ['a.png'] and home_atts(dict(nb, cells=cells)) == nb

def test_ipynb_cells_match(tmp_path):
    d = Dialog('t', [Message('# a', msg_type=snote, id='a'), Message('x = 1', id='b')])
    d.write(tmp_path)
    for kw in ({}, dict(prefix='P', suffix=['S1', 'S2'])):
        ours, theirs = ipynb_cells(tmp_path, 't', **kw), aiio.ipynb_cells(tmp_path, 't', **kw)
        assert [getattr(c, 'id', c) for c in ours] == [getattr(c, 'id', c) for c in theirs]
    assert ipynb_cells(tmp_path, 'missing', prefix='P') == aiio.ipynb_cells(tmp_path, 'missing', prefix='P') == []

refused = sorted(glob.glob(str(corpus/'**'/'*.ipynb'), recursive=True))
@needs_corpus()
def test_repair_reads_what_aidialog_reads_without_inventing():
    """Each corpus file strict reading refuses: with `repair=True` we read it when that needs no guess and loses no content, with the
    same messages as aidialog; we refuse nbformat 2 and 3 (aidialog reads them as empty dialogs), an output type nobody knows
    (`invalid.ipynb`: aidialog keeps it, we'd have to drop it or guess) and a cell type from the future"""
    healed, still = {}, {}
    for f in refused:
        try: read_ipynb(f); continue
        except DialogFormatError: pass
        with contextlib.redirect_stdout(io.StringIO()): theirs = aiio.read_ipynb(f)
        try: ours = read_ipynb(f, repair=True)
        except DialogFormatError as e:
            still[Path(f).name] = str(e)
            assert str(e).startswith(f'{f}: ') and ('too old' in str(e) or "can't be read" in str(e) or 'unknown cell_type' in str(e)), e
            continue
        healed[Path(f).name] = ours.repairs
        assert ours.repairs and len(set(ours.repairs)) == len(ours.repairs) and not any('None' in r for r in ours.repairs), ours.repairs
        assert [a.content for a in ours.messages] == [b.content for b in theirs.messages]
        assert reads_ipynb(write_ipynb(ours)).messages  # what repair gives back is a dialog we can write and read strictly
    assert sorted(healed) == ['invalid_cell_id.ipynb', 'invalid_unique_cell_id.ipynb', 'v4_5_invalid_metadata.ipynb'], (healed, still)
    assert len(still) == 8 and "cell 3: output 0: can't be read (unknown output_type 'bad stream')" in still['invalid.ipynb'], still
    assert [len(healed[k]) for k in sorted(healed)] == [1, 1, 8], healed

def test_repair_changes_nothing_in_a_sound_file():
    d = Dialog('s', [Message('x', id='a'), Message('# h', msg_type=snote, id='b')])
    txt = write_ipynb(d)
    r = reads_ipynb(txt, repair=True)
    assert r.repairs == [] and write_ipynb(r) == txt

def test_repair_reports_and_verbose_prints(capsys):
    bad = json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='$x', source='1', metadata={})]))
    with pytest.raises(DialogFormatError, match='invalid cell id'): reads_ipynb(bad)
    d = reads_ipynb(bad, repair=True, verbose=True, fname='b.ipynb')
    out = capsys.readouterr().out
    assert d.repairs and all(f'b.ipynb: {r}' in out for r in d.repairs)
    assert any("invalid id '$x'" in r for r in d.repairs) and any('execution_count' in r for r in d.repairs)

"Reading damaged files with repair=True, measured on the shared corpus, and compared with aidialog 0.0.39's reader (called, never read)"
import contextlib, glob, io, json
from pathlib import Path
import pytest
from dialog.ipynb import read_ipynb, reads_ipynb, write_ipynb, repair_ipynb, DialogFormatError

corpus = sorted(glob.glob('/work/shared/corpus/**/*.ipynb', recursive=True))
needs_corpus = pytest.mark.skipif(not corpus, reason='the shared corpus is not on this machine')
nbt = Path('/work/shared/corpus/jupyter-nbformat-tests')

def _refused(f):
    try: read_ipynb(f); return False
    except DialogFormatError: return True

@needs_corpus
def test_corpus_repair_figures(capsys):
    "Of the 11 files the strict reader refuses, repair reads the 4 whose damage has one reading; the 7 outside nbformat 4.0-4.5 stay refused"
    bad = [f for f in corpus if _refused(f)]
    assert len(bad) == 11
    read,fixes = {},{}
    for f in bad:
        try: d = read_ipynb(f, repair=True, verbose=True)
        except DialogFormatError as e:
            assert 'nbformat' in str(e) # only the versions remain
            continue
        read[Path(f).name],fixes[Path(f).name] = d,list(d.repairs)
        assert d.repairs and reads_ipynb(write_ipynb(d)).repairs == () # what it writes needs no repair
    assert sorted(read) == ['invalid.ipynb', 'invalid_cell_id.ipynb', 'invalid_unique_cell_id.ipynb', 'v4_5_invalid_metadata.ipynb']
    assert [len(fixes[k]) for k in sorted(fixes)] == [3, 1, 1, 8]
    out = capsys.readouterr().out
    assert all(l in out for v in fixes.values() for l in v) # verbose printed each fix

@needs_corpus
def test_sound_files_untouched():
    "A file the strict reader reads gets no fix and the same messages (ids made up for id-less old files aside)"
    for f in corpus:
        if _refused(f): continue
        a,b = read_ipynb(f),read_ipynb(f, repair=True)
        assert b.repairs == ()
        same_ids = all(c.get('id') for c in json.loads(Path(f).read_text()).get('cells', []))
        key = lambda d: [(m.msg_type, m.content, m.output, m.meta) + ((m.id,) if same_ids else ()) for m in d.messages]
        assert key(a) == key(b), f

def test_strict_without_repair():
    txt = json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[dict(cell_type='code', id='a', metadata={}, source='x')]))
    with pytest.raises(DialogFormatError, match='lacks outputs'): reads_ipynb(txt)
    d = reads_ipynb(txt, repair=True)
    assert d.repairs == ["cell 0 (id 'a'): added an empty outputs list", "cell 0 (id 'a'): added execution_count null"]

@pytest.mark.parametrize('cell,why', [
    (dict(cell_type='code', id='a', metadata={}, source=[1, 2], outputs=[], execution_count=None), 'source'), # text that isn't text
    (dict(cell_type='mystery', id='a', metadata={}, source='x'), 'cell_type'),
    ('not a cell', 'cell'),
    (dict(cell_type='markdown', id='a', metadata={}, source='x', attachments={'a.png': {'image/png': '%%%'}}), 'base64')])
def test_never_guesses(cell, why):
    "Damage with more than one reading is still refused with repair"
    txt = json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[cell]))
    with pytest.raises(DialogFormatError, match=why): reads_ipynb(txt, repair=True)

def test_repair_ipynb_leaves_other_versions():
    for nb in [dict(nbformat=3, nbformat_minor=0, worksheets=[]), dict(nbformat=4, nbformat_minor=5, metadata={}), 'x']:
        assert repair_ipynb(nb) == []

def _aid(f):
    AI = pytest.importorskip('aidialog.ipynb')
    with contextlib.redirect_stdout(io.StringIO()): return AI.read_ipynb(f, verbose=True)

@needs_corpus
@pytest.mark.parametrize('name', ['invalid_cell_id', 'invalid_unique_cell_id', 'v4_5_invalid_metadata', 'invalid'])
def test_same_messages_as_aidialog(name):
    "Where both read a damaged file, they read the same messages; the differences are deliberate"
    f = nbt/f'{name}.ipynb'
    a,b = read_ipynb(f, repair=True),_aid(f)
    assert [len(m.output or []) for m in a.messages] == [len(m.output or []) for m in b.messages]
    if name == 'invalid': # a nbformat-3 heading cell: we make it the markdown heading nbformat's upgrade writes; aidialog keeps a 'heading' type no writer accepts
        assert a.messages[2].content == '## ' + b.messages[2].content and a.messages[2].msg_type == 'note'
        assert [m.content for m in a.messages][3:] == [m.content for m in b.messages][3:]
    else: assert [(m.msg_type, m.content) for m in a.messages] == [(m.msg_type, m.content) for m in b.messages]
    if name == 'invalid_cell_id': assert b.messages[0].id == '$illegal_chars' != a.messages[0].id # we give an id a writer can write
    if name == 'v4_5_invalid_metadata': assert a.meta == {} and 'kernelspec' in b.meta # we drop (and report) values the schema refuses

@needs_corpus
def test_versions_not_guessed():
    "Deliberate: aidialog 'reads' nbformat 2 and 3 files as empty dialogs, silently losing every cell; we refuse them and say how to convert"
    for f in nbt.glob('test3*.ipynb'):
        assert len(_aid(f).messages) == 0
        with pytest.raises(DialogFormatError, match='too old'): read_ipynb(f, repair=True)

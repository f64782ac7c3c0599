"dialog.dataset: lossless tables, Parquet read by pyarrow and DuckDB, parallel folder reads, bad files, streamed JSON Lines, the CLI helpers"
import json, os, shutil, subprocess, sys, warnings
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.ipynb import read_ipynb, reads_ipynb, write_ipynb, DialogFormatError
from dialog.chat import dlgs2jsonl
from dialog.dataset import *
from dataset import mk_nb, mk_folder  # bench/dataset.py's generator (bench is on pytest's pythonpath)

pa = pytest.importorskip('pyarrow')
from shared_paths import corpus, needs_corpus
root = Path(__file__).parent.parent

@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    "60 generated dialogs of 50 messages, written canonically, in two subfolders"
    f = tmp_path_factory.mktemp('dlgs')
    mk_folder(f/'a', 30); mk_folder(f/'b', 60, start=30)
    return f

def _texts(paths): return [Path(p).read_text(encoding='utf-8') for p in paths]

def test_schema_is_the_documented_contract():
    "The columns, their order and types are a contract: changing them must change `schema_version`"
    s = msg_schema()
    assert [(f.name, str(f.type)) for f in s] == [(k, t) for k,(t,_) in msg_cols.items()]
    assert list(msg_cols)[:6] == ['name', 'path', 'pos', 'id', 'msg_type', 'content'] and schema_version == '2'
    assert s.metadata == {b'nbdialog.schema': b'2'}

def test_generated_folder_round_trips_byte_identical(folder):
    "Every canonical file comes back from its table as the same bytes, read serially or in 2 processes"
    paths = dlg_paths(folder)
    assert len(paths) == 60 and paths[0].parent.name == 'a'
    t = dlgs2table(folder, workers=2)
    assert t.num_rows == 60*50
    assert t.equals(dlgs2table(folder, workers=0)) and t.equals(dlgs2table(read_dialogs(folder, workers=0)))
    assert [write_ipynb(d) for d in table2dlgs(t)] == _texts(paths)

def test_rows_say_what_the_messages_say(folder):
    "Each column holds what the message's own properties say"
    d = read_ipynb(dlg_paths(folder)[0])
    rows = dlgs2table([d]).to_pylist()
    for i,(m,r) in enumerate(zip(d.messages, rows)):
        assert (r['name'], r['path'], r['pos'], r['id'], r['msg_type'], r['content']) == (d.name, str(d.path), i, m.id, m.msg_type, m.content)
        assert r['ai_res'] == (m.ai_res if m.msg_type == sprompt else None)
        assert r['output'] == (m.ai_output if m.msg_type in (scode, sprompt) else None)
        assert (r['has_error'], r['exported'], r['skipped'], r['pinned']) == (m.has_error, m.exported, m.skipped, m.pinned)
        assert json.loads(r['cell']) == m.to_cell() and json.loads(r['meta']) == m.to_cell()['metadata']
        assert (json.loads(r['dlg_meta']) if i==0 else r['dlg_meta']) == (d.nb_meta if i==0 else None) # once per dialog, on its first row
    assert any(r['has_error'] for r in rows) and any(r['n_images'] for r in rows) and any(r['skipped'] for r in rows)

@needs_corpus()
def test_corpus_round_trips():
    "Every corpus notebook the reader reads comes back from a table writing what the original dialog writes (the canonical ones: the file's bytes)"
    n = canon = 0
    for f in sorted(corpus.rglob('*.ipynb')):
        try: d = read_ipynb(f)
        except DialogFormatError: continue
        back, = table2dlgs(dlgs2table([d]))
        assert write_ipynb(back) == write_ipynb(d), f
        if write_ipynb(d).encode() == f.read_bytes(): canon += 1
        n += 1
    assert n >= 20 and canon >= 1

def _odd_dialog(seed, text):
    "A dialog with what a table must carry: legacy prompts, attachments on code and notes, host metadata, an arbitrary text"
    d = reads_ipynb(json.dumps(mk_nb(seed, 6)), name=f'odd{seed}')
    d.meta['host'] = {'k': text}
    d.mk_message(text, msg_type=snote).mk_attachment(b'\x89PNG..', 'image/png', 'a.png')
    d.mk_message(text, output=[dict(output_type='stream', name='stdout', text=text)]).mk_attachment(b'data', 'text/csv', 'x.csv')
    legacy = dict(cell_type='markdown', id=f'leg{seed}', metadata={'solveit_ai': True}, source='ask' + SEP + text)
    d.messages.append(Message.from_cell(legacy))
    return d

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.text(max_size=30))
def test_any_dialog_round_trips(seed, text):
    "Any dialog the writer writes comes back from its table (and from Parquet) writing the same bytes"
    try: want = write_ipynb(d := _odd_dialog(seed, text))
    except ValueError: return  # a text no file can hold (e.g. a surrogate pair as two characters): the writer refuses it
    t = dlgs2table([d, Dialog('empty')])
    back = table2dlgs(t)
    assert [write_ipynb(b) for b in back] == [want, write_ipynb(Dialog('empty'))]

def test_lone_surrogates_stay_lossless():
    "A lone surrogate (which UTF-8 can't encode) is spelled as its escape, as the file spells it, and comes back from the JSON columns"
    d = Dialog('s')
    d.mk_message('a\ud800b', msg_type=snote)
    t = dlgs2table([d])
    assert t['content'][0].as_py() == 'a\\ud800b'
    assert table2dlgs(t)[0].messages[0].content == 'a\ud800b'

def test_parquet_reads_in_duckdb_as_in_pyarrow(folder, tmp_path):
    "The Parquet file holds the table; DuckDB reads the same rows and answers queries over them"
    duckdb = pytest.importorskip('duckdb')
    p = write_parquet(folder, tmp_path/'d.parquet', workers=2)
    t = read_parquet(p)
    assert t.equals(dlgs2table(folder, workers=0))
    q = duckdb.sql(f"select * from read_parquet('{p}') order by path, pos")
    assert q.columns == list(msg_cols)
    assert q.fetchall() == [tuple(r.values()) for r in t.to_pylist()]
    by = dict(duckdb.sql(f"select msg_type, sum(tokens) from '{p}' group by msg_type").fetchall())
    assert by == {k: sum(r['tokens'] for r in t.to_pylist() if r['msg_type']==k) for k in ('code', 'note', 'prompt', 'raw')}
    assert read_parquet(p, filters=[('msg_type', '=', 'prompt')])['msg_type'].unique().to_pylist() == ['prompt']

def test_write_parquet_never_half_writes(folder, tmp_path):
    "An existing file is refused (and kept) without force; a bad file under 'raise' leaves no file at all"
    p = tmp_path/'d.parquet'
    p.write_bytes(b'keep')
    with pytest.raises(FileExistsError, match='already exists; nothing was written'): write_parquet(folder/'a', p)
    assert p.read_bytes() == b'keep'
    # nor does force replace it: a file named as Parquet is replaced only when it is a message table (one rule, as in a folder)
    with pytest.raises(FileExistsError, match='named as a Parquet file but none'): write_parquet(folder/'a', p, force=True)
    assert p.read_bytes() == b'keep'
    p.unlink(); write_parquet([next((folder/'a').glob('*.ipynb'))], p)  # a previous export
    write_parquet(folder/'a', p, force=True)
    assert read_parquet(p).num_rows == 30*50
    bad = tmp_path/'bad'; mk_folder(bad, 3); (bad/'x.ipynb').write_text('[]')
    with pytest.raises(DialogFormatError, match='x.ipynb'): write_parquet(bad, tmp_path/'n.parquet', workers=0)
    assert not (tmp_path/'n.parquet').exists() and [f.name for f in tmp_path.iterdir() if f.name.startswith('.')] == []

@pytest.fixture
def badfolder(tmp_path):
    "Four good dialogs and three bad files: not JSON, not a notebook, a link to a file that is gone"
    f = mk_folder(tmp_path/'mixed', 4)
    (f/'b1.ipynb').write_text('{"cells": [')
    (f/'b2.ipynb').write_text('{"cells": {}, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (f/'b3.ipynb').symlink_to(f/'gone.ipynb')
    return f

@pytest.mark.parametrize('workers', [0, 2])
def test_bad_files_raise_skip_or_collect(badfolder, workers):
    "'raise' raises the first bad file's error; 'skip' warns and counts them; 'collect' returns each error naming its file"
    with pytest.raises(DialogFormatError, match=r'b1\.ipynb: not JSON'): read_dialogs(badfolder, workers=workers)
    ds,errs = read_dialogs(badfolder, workers=workers, on_error='collect')
    assert [d.name for d in ds] == [f'd{i:06}' for i in range(4)]
    assert [(type(e).__name__, Path(e.fname if isinstance(e, DialogFormatError) else e.filename).name) for e in errs] == [
        ('DialogFormatError', 'b1.ipynb'), ('DialogFormatError', 'b2.ipynb'), ('FileNotFoundError', 'b3.ipynb')]
    with pytest.warns(UserWarning, match=r'skipped 3 bad file\(s\); the first: .*b1\.ipynb'):
        assert len(read_dialogs(badfolder, workers=workers, on_error='skip')) == 4
    t,errs2 = dlgs2table(badfolder, workers=workers, on_error='collect')
    assert t.num_rows == 200 and [str(e) for e in errs2] == [str(e) for e in errs]

def test_parallel_reads_equal_serial_ones(folder):
    "2 processes give the same dialogs, in the same order, each remembering its file"
    a,b = read_dialogs(folder, workers=0),read_dialogs(folder, workers=2)
    assert [write_ipynb(d) for d in a] == [write_ipynb(d) for d in b] == _texts(dlg_paths(folder))
    assert [d.path for d in b] == [p.absolute() for p in dlg_paths(folder)]
    d = b[5]; d.messages[0].content = 'edited'; d.save()
    assert read_ipynb(d.path).messages[0].content == 'edited'

def test_paths_from_folders_globs_and_lists(folder):
    "A folder is searched recursively without hidden folders; globs and lists give their files, sorted; a missing name is an error"
    (folder/'a'/'.ipynb_checkpoints').mkdir(exist_ok=True)
    (folder/'a'/'.ipynb_checkpoints'/'d000000-checkpoint.ipynb').write_text('{}')
    assert len(dlg_paths(folder)) == 60
    assert dlg_paths(str(folder/'b'/'d00003*.ipynb')).map(lambda p: p.name) == [f'd{i:06}.ipynb' for i in range(30, 40)]
    assert len(dlg_paths(str(folder/'**'/'*.ipynb'))) == 60
    with pytest.raises(FileNotFoundError, match='no such file or folder'): dlg_paths(folder/'nope')
    with pytest.raises(ValueError, match="on_error must be"): read_dialogs(folder, on_error='ignore')

def test_a_folder_named_like_a_dialog_is_searched_not_read(tmp_path):
    "`dlg_paths` lists no folder: a folder called `x.ipynb` is searched for dialogs like any other folder"
    mk_folder(tmp_path/'x.ipynb', 2)
    (tmp_path/'y.ipynb').write_text('{}')
    assert [p.relative_to(tmp_path).as_posix() for p in dlg_paths(tmp_path)] == ['x.ipynb/d000000.ipynb', 'x.ipynb/d000001.ipynb', 'y.ipynb']
    assert len(read_dialogs(tmp_path/'x.ipynb', workers=0)) == 2

def test_progress_bar_counts_files(folder, capsys):
    "With progress on, tqdm draws a bar on stderr counting the files read; off by default when stderr isn't a terminal"
    pytest.importorskip('tqdm')
    read_dialogs(folder/'a', workers=0, progress=True)
    err = capsys.readouterr().err
    assert 'reading: 0/30 files |' in err  # a bar of 30 files in our own layout (tqdm throttles the updates between)
    read_dialogs(folder/'a', workers=0)
    assert capsys.readouterr().err == ''

@pytest.mark.parametrize('fmt', ['openai', 'anthropic'])
def test_paths2jsonl_writes_what_dlgs2jsonl_writes(folder, tmp_path, fmt):
    "Streamed from files in 2 processes, the JSON Lines are dlgs2jsonl's, byte for byte"
    a = paths2jsonl(folder, tmp_path/'a.jsonl', fmt=fmt, workers=2)
    b = dlgs2jsonl(read_dialogs(folder, workers=0), tmp_path/'b.jsonl', fmt=fmt)
    assert a.read_bytes() == b.read_bytes() and len(a.read_text().splitlines()) == 60
    assert [f.name for f in tmp_path.iterdir()] == ['a.jsonl', 'b.jsonl'] or sorted(f.name for f in tmp_path.iterdir()) == ['a.jsonl', 'b.jsonl']
    with pytest.raises(FileExistsError): paths2jsonl(folder, a)

def test_paths2jsonl_names_the_file_it_cannot_convert(tmp_path):
    "A dialog dlgs2jsonl refuses is named by its file; nothing is written"
    f = mk_folder(tmp_path/'f', 3)
    d = read_ipynb(f/'d000001.ipynb')
    d.meta['dialog'] = {'system': 5}  # a hand-edited system prompt that isn't text: dlg2chat refuses it
    d.save()
    with pytest.raises(ValueError, match=r'd000001\.ipynb: .*system.* must be a str'): paths2jsonl(f, tmp_path/'o.jsonl', workers=0)
    assert not (tmp_path/'o.jsonl').exists()

def test_a_dialog_a_shape_cannot_hold_is_a_bad_file(tmp_path, monkeypatch):
    "Over a provider's request limit: a 'chat' line (a request) can't hold it, a training shape (no request) writes it; the dialog a shape can't hold is a bad file `on_error` raises, skips or collects, and the advice names what the caller can do"
    import dialog.chat
    monkeypatch.setitem(dialog.chat.req_limits, 'openai', dict(bytes=20_000, images=500))  # 20 kB for OpenAI, in this process
    f = tmp_path/'f'
    for i in range(3): d = Dialog(f'small{i}'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save(f/f'small{i}.ipynb')
    d = Dialog('big'); d.mk_message('print(data)', output=[dict(output_type='stream', name='stdout', text='y' * 30_000)])
    d.mk_message('Summarise that', msg_type='prompt', output='It is all y.'); d.save(f/'big.ipynb')
    assert len(paths2jsonl(f, tmp_path/'hf.jsonl', shape='hf', workers=0).read_text().splitlines()) == 4
    with pytest.raises(ValueError, match=r"big\.ipynb: dialog 'big': the request is \d+ bytes, over openai's limit") as e: paths2jsonl(f, tmp_path/'c.jsonl', workers=0)
    assert 'budget=' not in str(e.value) and "on_error='skip'" in str(e.value) and "--skip-bad" in str(e.value) and not (tmp_path/'c.jsonl').exists()
    p,errs = paths2jsonl(f, tmp_path/'c.jsonl', workers=0, on_error='collect')
    assert len(p.read_text().splitlines()) == 3 and [(type(x), Path(x.fname).name) for x in errs] == [(DialogFormatError, 'big.ipynb')]
    with pytest.warns(UserWarning, match=r'skipped 1 bad file\(s\); the first: .*big\.ipynb'):
        assert len(paths2jsonl(f, tmp_path/'s.jsonl', workers=0, on_error='skip').read_text().splitlines()) == 3
    assert 'wrote s2.jsonl: 3 dialogs, 3 lines\n1 bad file skipped:\n  f/big.ipynb: ' in export_folder(f, tmp_path/'s2.jsonl', workers=0, on_error='skip').replace(str(tmp_path)+os.sep, '')

def test_paths2jsonl_skips_bad_files(badfolder, tmp_path):
    "Bad files are collected; the good dialogs' lines are written"
    p,errs = paths2jsonl(badfolder, tmp_path/'o.jsonl', workers=2, on_error='collect')
    assert len(p.read_text().splitlines()) == 4 and len(errs) == 3

def test_export_and_stats(badfolder, tmp_path, monkeypatch):
    "export_folder writes by suffix and says what it wrote (listing skipped files); folder_stats sums the table"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DialogFormatError): export_folder('mixed', 'x.parquet')
    txt = export_folder('mixed', 'x.parquet', on_error='skip')
    assert txt.splitlines()[0] == 'wrote x.parquet: 4 dialogs, 200 rows' and txt.splitlines()[1] == '3 bad files skipped:'
    assert 'mixed/b1.ipynb: not JSON' in txt and str(tmp_path) not in txt
    assert export_folder('mixed', 'x.jsonl', on_error='skip').startswith('wrote x.jsonl: 4 dialogs, 4 lines')
    s = folder_stats('mixed', top=2)
    t = dlgs2table('mixed', on_error='collect')[0]
    assert s.splitlines()[0] == f"4 dialogs, 200 messages, {sum(t['tokens'].to_pylist()):,} tokens (estimated)"
    assert f"code that raised: {sum(t['has_error'].to_pylist())} messages" in s and '3 bad files not read:' in s
    big = sorted(((sum(r['tokens'] for r in t.to_pylist() if r['name']==n), n) for n in set(t['name'].to_pylist())), key=lambda x: (-x[0], x[1]))[:2]
    lines = s.split('biggest dialogs (tokens):\n')[1].splitlines()[:2]
    assert [l.split()[1] for l in lines] == [f'mixed/{n}.ipynb' for _,n in big]

def test_without_pyarrow_the_error_names_the_extra():
    "No pyarrow: a table is an ImportError naming nbdialog[data]; reading dialogs and JSON Lines still work"
    code = ("import sys; sys.modules['pyarrow'] = None\n"
            "from dialog.dataset import dlgs2table, read_dialogs\nfrom dialog.core import Dialog\n"
            "try: dlgs2table([Dialog('x')])\nexcept ImportError as e: print(e)\n")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)))
    assert 'pip install "nbdialog[data]"' in r.stdout, r.stderr

class NoteMsg(Message): meta_attrs = {'pinned': 'pinned'}
class NoteDlg(Dialog): msg_cls = NoteMsg

def _state(d):
    "Everything a dialog holds, but the message backlinks and render caches, as plain comparable data"
    ms = [(type(m), {k:v for k,v in vars(m).items() if k not in ('_dlg', '_ai_rend')}) for m in d.messages]
    return type(d),{k:v for k,v in vars(d).items() if k!='_messages'},ms

def test_parallel_reads_equal_serial_ones_object_for_object(folder):
    "2 processes give dialogs equal to the serial loop's in every attribute (attachments, outputs, subclasses via `cls=`), each message pointing at its own dialog"
    paths = dlg_paths(folder)
    for cls in (Dialog, NoteDlg):
        want,got = [read_ipynb(p, cls=cls) for p in paths],read_dialogs(folder, workers=2, cls=cls)
        assert [_state(d) for d in got] == [_state(d) for d in want]
        assert all(type(m) is cls.msg_cls and m.dlg is d for d in got for m in d.messages)
    atts = [a for d in got for m in d.messages for a in m.attachments]
    assert atts and all(type(a) is Attachment and a.data for a in atts)

def _pid_timed(job):
    "`job`, the process that ran it, and when it started"
    import time; t = time.monotonic(); time.sleep(0.02)
    return job,os.getpid(),t

def _pid_of(job):
    "`job` and the process that ran it, slowly enough that the processes share the jobs"
    import time; time.sleep(0.02)
    return job,os.getpid()

def test_workers_count_this_process():
    "`workers=2` is this process and one other, sharing the chunks; results come back in order; 0 and 1 are this one alone"
    from dialog.pool import pmap
    res = list(pmap(_pid_of, list(range(40)), 2, False, '', 40))
    assert [j for j,_ in res] == list(range(40))
    pids = {p for _,p in res}
    assert len(pids) == 2 and os.getpid() in pids
    for w in (0, 1): assert {p for _,p in pmap(_pid_of, [1, 2, 3], w, False, '', 3)} == {os.getpid()}

def test_an_unexpected_error_stops_the_reading():
    "An unexpected error, raised here or in the other process, reaches the caller (`on_error` is for bad files, not for bugs)"
    from dialog.pool import pmap
    with pytest.raises(ZeroDivisionError): list(pmap(_inv, [1, 2, 0, 4, 5, 6, 7, 8], 2, False, '', 8))

def test_the_others_read_from_the_front_this_one_from_the_back():
    "The other process takes jobs from the front and this one from the back, but no more than 2*workers ahead: then from the front too, so memory holds a few results, not half the collection; nothing is read twice"
    from dialog.pool import pmap
    import time
    res = list(pmap(_pid_timed, list(range(40)), 2, False, '', 40))
    mine,theirs = [(t,j) for j,p,t in res if p==os.getpid()],[j for j,p,t in res if p!=os.getpid()]
    assert mine and theirs and sorted([j for _,j in mine]+theirs) == list(range(40)) and [j for j,*_ in res] == list(range(40))
    ran = [j for _,j in sorted(mine)] # this process's jobs in the order it ran them
    k = 1 # the first run down from the last job: what this one took from the back
    while k < len(ran) and ran[k] == ran[k-1]-1: k += 1
    assert ran[0] == 39 and k <= 4 # at most 2*workers results wait for the front
    assert ran[k:] == sorted(ran[k:]) # then from the front, in order

def test_stopping_early_leaves_no_result_files(monkeypatch, tmp_path):
    "Results the other process left in files for this one are removed when the reading stops before taking them"
    import tempfile, time
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path)); monkeypatch.setenv('TMPDIR', str(tmp_path))
    from dialog.pool import pmap
    g = pmap(_pid_of, list(range(40)), 2, False, '', 40)
    next(g); time.sleep(0.3)
    assert list(tmp_path.glob('nbdialog-*/*.res'))  # finished, not yet taken
    g.close()
    assert not list(tmp_path.glob('nbdialog-*'))

def _inv(x):
    import time; time.sleep(0.02)
    return 1/x

order = [('path', 'ascending'), ('pos', 'ascending')]

def test_partitioned_folder_round_trips_and_duckdb_reads_it(folder, tmp_path):
    "A folder partitioned by type and error flag reads back as the table (types, column order, schema version), gives the files byte for byte, and DuckDB reads it as is"
    duckdb = pytest.importorskip('duckdb')
    p = write_parquet(folder, tmp_path/'parts', workers=2, partition_by=['msg_type', 'has_error'])
    assert p == (tmp_path/'parts').resolve() and p.is_dir()
    dirs = sorted(str(f.parent.relative_to(p)) for f in p.rglob('*.parquet'))
    assert 'msg_type=code/has_error=true' in dirs and 'msg_type=prompt/has_error=false' in dirs
    assert all(pa.parquet.read_schema(f).metadata == {b'nbdialog.schema': b'2'} for f in p.rglob('*.parquet'))
    t,serial = read_parquet(p),dlgs2table(folder, workers=0)
    assert t.schema.equals(msg_schema(), check_metadata=True) and t.column_names == list(msg_cols)
    assert t.equals(serial)  # stored grouped by folder, read back each dialog's rows together, in order (R38c)
    assert [write_ipynb(d) for d in table2dlgs(t)] == _texts(dlg_paths(folder))
    q = f"from read_parquet('{p}/**/*.parquet', hive_partitioning=true)"
    assert duckdb.sql(f'select count(*) {q}').fetchall()[0][0] == serial.num_rows == 60*50
    by = dict(duckdb.sql(f'select msg_type, count(*) {q} group by msg_type').fetchall())
    assert by == {r['msg_type']: r['msg_type_count'] for r in serial.group_by('msg_type').aggregate([('msg_type', 'count')]).to_pylist()}
    assert set(by) == {'code', 'note', 'prompt', 'raw'}
    prompts = read_parquet(p, columns=['msg_type', 'has_error', 'id'], filters=[('msg_type', '=', 'prompt')])
    assert prompts.num_rows == by['prompt'] and prompts['msg_type'].unique().to_pylist() == ['prompt'] and prompts.schema.field('has_error').type == pa.bool_()

def test_partitioned_nulls_and_empty_dialogs_come_back(tmp_path):
    "The row of a dialog without messages (a null type) and a collection that wrote no row at all read back as tables"
    d = Dialog('one'); d.mk_message('x = 1')
    p = write_parquet([d, Dialog('empty')], tmp_path/'p', partition_by='msg_type')
    t = read_parquet(p)
    assert t.sort_by([('name', 'descending')]).equals(dlgs2table([d, Dialog('empty')]))
    assert t['msg_type'].to_pylist() == [None, 'code'] and t['has_error'].to_pylist() == [None, False]
    assert sorted(f.name for f in p.iterdir()) == ['msg_type=', 'msg_type=code'] # no null folder: pandas can't read one
    bad = tmp_path/'bad'; bad.mkdir(); (bad/'x.ipynb').write_text('[]')
    with pytest.warns(UserWarning, match='skipped 1 bad file'): e = write_parquet(bad, tmp_path/'e', on_error='skip', partition_by=['msg_type'])
    assert e.is_dir() and read_parquet(e).equals(msg_schema().empty_table())

def test_partitioned_write_never_loses_anything(folder, tmp_path):
    "An existing folder (or file) is refused without force; with force it is replaced only by a complete folder; a failed write leaves the old one and no temporary folder"
    p = tmp_path/'parts'
    write_parquet(folder/'a', p, partition_by=['msg_type'])
    before = sorted((f.relative_to(p), f.read_bytes()) for f in p.rglob('*') if f.is_file())
    with pytest.raises(FileExistsError, match='already exists; nothing was written'): write_parquet(folder/'b', p, partition_by=['msg_type'])
    bad = tmp_path/'bad'; mk_folder(bad, 3); (bad/'x.ipynb').write_text('[]')
    with pytest.raises(DialogFormatError, match=r'x\.ipynb'): write_parquet(bad, p, workers=0, partition_by=['msg_type'], force=True)
    assert sorted((f.relative_to(p), f.read_bytes()) for f in p.rglob('*') if f.is_file()) == before
    assert write_parquet(folder/'b', p, partition_by=['msg_type'], force=True) == p.resolve()
    assert read_parquet(p).num_rows == 30*50 and sorted(read_parquet(p)['name'].unique().to_pylist())[0] == 'd000030'
    (tmp_path/'f.parquet').write_bytes(b'keep')
    with pytest.raises(FileExistsError): write_parquet(folder/'a', tmp_path/'f.parquet', partition_by=['msg_type'])
    assert (tmp_path/'f.parquet').read_bytes() == b'keep'
    with pytest.raises(FileExistsError): write_parquet(folder/'a', p)  # the single file won't replace a folder either
    assert [f.name for f in tmp_path.iterdir() if f.name.startswith('.')] == []

@pytest.mark.parametrize('cols,msg', [(['kind'], "'kind' is not a column of the message table"), (['cell'], "'cell' has about a value per message"),
    (['msg_type', 'content'], "'content' has about a value per message"), (['path'], "'path' has about a value per message or per dialog"),
    ([], 'names no column'), (['msg_type', 'msg_type'], 'names a column twice')])
def test_bad_partition_by_is_a_value_error(folder, tmp_path, cols, msg):
    with pytest.raises(ValueError, match=msg): write_parquet(folder/'a', tmp_path/'p', partition_by=cols)
    assert list(tmp_path.iterdir()) == []

class _FullDisk:
    "A file whose writes fail as on a full disk"
    def __init__(self, f): self.f = f
    def __enter__(self): return self
    def __exit__(self, *a): self.f.close()
    def write(self, b): raise OSError(28, 'No space left on device')

def test_a_failed_result_write_leaves_no_file(monkeypatch, tmp_path):
    "When the other process can't write its result (a full disk), the error reaches the caller and no half-written result file is left"
    import tempfile, builtins, errno
    import dialog.pool as dd
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path)); monkeypatch.setenv('TMPDIR', str(tmp_path))
    main = os.getpid()
    def _open(f, mode='r', *a, **kw):  # forked into the other process: its result writes fail
        res = builtins.open(f, mode, *a, **kw)
        return _FullDisk(res) if mode=='wb' and os.getpid()!=main else res
    monkeypatch.setattr(dd, 'open', _open, raising=False)
    with pytest.raises(OSError, match='No space left'): list(dd.pmap(_pid_of, list(range(10)), 2, False, '', 10))
    assert not list(tmp_path.glob('nbdialog-*'))

def test_single_file_force_replaces_a_folder(folder, tmp_path):
    "`force=True` replaces an existing folder (e.g. a partitioned table) with the single file, as a partitioned write replaces a file; without force it is refused"
    p = write_parquet(folder/'a', tmp_path/'t', partition_by=['msg_type'])
    with pytest.raises(FileExistsError): write_parquet(folder/'a', p)
    assert p.is_dir()
    assert write_parquet(folder/'a', p, force=True) == p and p.is_file()
    assert read_parquet(p).equals(dlgs2table(folder/'a', workers=0))
    assert [f.name for f in tmp_path.iterdir()] == ['t']

def test_a_dialog_whose_rows_are_apart_is_refused_not_split(folder, tmp_path):
    "R38c: a partitioned folder read partition by partition (pyarrow, DuckDB, Polars), or rows out of order, made two dialogs of one without a word (46 for 24 over the corpus), the second without its metadata; `table2dlgs` refuses it, and `read_parquet` gives each dialog's rows together"
    p = write_parquet(folder/'a', tmp_path/'parts', partition_by=['msg_type'])
    import pyarrow.dataset
    raw = pa.dataset.dataset(p, format='parquet', partitioning='hive').to_table().select(list(msg_cols))
    with pytest.raises(ValueError, match=r"the rows of the dialog at '.*' come in pieces: rows 0 and \d+ begin runs of it holding no position in common"): table2dlgs(raw)
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(dlgs2table(folder/'a', workers=0).sort_by([('pos', 'descending')]))
    assert [write_ipynb(d) for d in table2dlgs(read_parquet(p))] == _texts(dlg_paths(folder/'a'))
    mem = [Dialog('x', [Message('a'), Message('b', msg_type=snote)]), Dialog('x', [Message('c'), Message('d', msg_type=snote)])]
    q = write_parquet(mem, tmp_path/'mem', partition_by=['msg_type'])
    assert read_parquet(q)['content'].to_pylist()==['a', 'c', 'b', 'd']  # no paths: nothing tells two dialogs of one name apart, so rows come as stored

def test_exports_of_one_folder_side_by_side_read_as_dialogs_of_their_own(folder, tmp_path):
    "R39b: a folder of repeated exports of one folder (each month's) was sorted by path and pos as a partitioned folder is, interleaving the months' rows, which table2dlgs then refused; a plain folder's files keep their rows as stored, and runs of one path that repeat positions are dialogs of their own (tables concatenated too)"
    (tmp_path/'exports').mkdir()
    for m in ('2024-01', '2024-02'): write_parquet(folder/'a', tmp_path/'exports'/f'{m}.parquet', workers=0)
    one = [write_ipynb(d) for d in table2dlgs(read_parquet(tmp_path/'exports'/'2024-01.parquet'))]
    assert [write_ipynb(d) for d in table2dlgs(read_parquet(tmp_path/'exports'))]==one*2
    t = dlgs2table(folder/'a', workers=0)
    assert [write_ipynb(d) for d in table2dlgs(pa.concat_tables([t, t]))]==one*2

def test_pieces_of_a_dialog_are_refused_even_where_they_repeat_positions(tmp_path):
    "R40a: two partitioned exports read partition by partition and concatenated, or two exports written into one partitioned folder, repeat positions, which passed for two exports side by side and cut each dialog into wrong pieces without a word; runs are dialogs of their own only when each begins with a dialog's first row (an empty dialog's one row too)"
    import shutil, pyarrow.dataset
    (tmp_path/'f').mkdir()
    d = Dialog('nb', [Message('p0'), Message('n1', msg_type=snote), Message('p2'), Message('n3', msg_type=snote)])
    (tmp_path/'f'/'nb.ipynb').write_text(write_ipynb(d))
    for k in 'ab': write_parquet(tmp_path/'f', tmp_path/k, partition_by=['msg_type'], workers=0)
    raw = pa.concat_tables([pa.dataset.dataset(tmp_path/k, format='parquet', partitioning='hive').to_table().select(list(msg_cols)) for k in 'ab'])
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(raw)
    for f in (tmp_path/'b').rglob('*.parquet'):
        to = tmp_path/'a'/f.relative_to(tmp_path/'b'); shutil.copy(f, to.with_name('feb-'+to.name))
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(read_parquet(tmp_path/'a'))
    empty = dlgs2table([Dialog('nb')]); full = dlgs2table([d])
    e,f = (x.set_column(1, msg_schema().field('path'), pa.array(['nb.ipynb']*x.num_rows, pa.string())) for x in (empty, full))
    assert [len(x.messages) for x in table2dlgs(pa.concat_tables([e, f]))]==[0, 4]  # an empty dialog's export, then one with messages

def test_where_the_metadata_tells_nothing_positions_tell_pieces_from_dialogs(tmp_path):
    "R41a: runs none of which begins with a dialog's first row (subsets without it, the metadata nulled), or a table holding the metadata on every row (schema 1), are told apart by positions: two subsets of two exports concatenated were refused, and a schema-1 table's pieces taken for dialogs"
    import pyarrow.dataset, pyarrow.parquet, pyarrow.compute as pc
    d = Dialog('nb', [Message('n0', msg_type=snote), Message('p1'), Message('n2', msg_type=snote), Message('p3')], meta={'x': 1})
    t = dlgs2table([d])
    t = t.set_column(1, t.schema.field('path'), pa.array(['nb.ipynb']*t.num_rows, pa.string()))
    i = t.schema.get_field_index('dlg_meta')
    sub,nulled = t.filter(pc.not_equal(t['msg_type'], 'note')),t.set_column(i, t.schema.field(i), pa.nulls(t.num_rows, pa.string()))
    assert [[m.content for m in x.messages] for x in table2dlgs(pa.concat_tables([sub, sub]))]==[['p1', 'p3']]*2
    assert [[m.content for m in x.messages] for x in table2dlgs(pa.concat_tables([nulled, nulled]))]==[['n0', 'p1', 'n2', 'p3']]*2
    v1 = t.set_column(i, t.schema.field(i), pa.array([t['dlg_meta'][0].as_py()]*t.num_rows, pa.string()))  # schema 1: on every row
    pa.parquet.write_to_dataset(v1, tmp_path/'v1', partition_cols=['msg_type'])
    raw = pa.dataset.dataset(tmp_path/'v1', format='parquet', partitioning='hive').to_table().select(list(msg_cols))
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(raw)
    assert len(table2dlgs(pa.concat_tables([v1, v1])))==2

def test_pieces_are_runs_sharing_no_position_one_not_from_its_first_row(tmp_path):
    "R42a: a dialog's pieces are two runs of it (its path, or its name when it has none) holding no position in common, one not beginning with its first row (by the metadata, where it marks first rows alone): dialogs made in memory, partitioned and read back, were cut in pieces without a word; a schema-1 whole copy hid pieces beside it; a whole export and a subset of a later one were refused"
    import pyarrow.dataset, pyarrow.parquet, pyarrow.compute as pc
    mem = [Dialog('x', [Message('a'), Message('b', msg_type=snote)]), Dialog('y', [Message('c'), Message('d', msg_type=snote)])]
    q = write_parquet(mem, tmp_path/'mem', partition_by=['msg_type'])
    assert [[m.content for m in x.messages] for x in table2dlgs(read_parquet(q))]==[['a', 'b'], ['c', 'd']]
    raw = pa.dataset.dataset(q, format='parquet', partitioning='hive').to_table().select(list(msg_cols))
    with pytest.raises(ValueError, match="the rows of the dialog named 'x' come in pieces"): table2dlgs(raw)
    d = Dialog('nb', [Message('n0', msg_type=snote), Message('p1'), Message('n2', msg_type=snote), Message('p3')], meta={'x': 1})
    t = dlgs2table([d]); t = t.set_column(1, t.schema.field('path'), pa.array(['nb.ipynb']*t.num_rows, pa.string()))
    sub = t.filter(pc.not_equal(t['msg_type'], 'note'))
    assert [[m.content for m in x.messages] for x in table2dlgs(pa.concat_tables([t, sub]))]==[['n0', 'p1', 'n2', 'p3'], ['p1', 'p3']]
    i = t.schema.get_field_index('dlg_meta')
    v1 = t.set_column(i, t.schema.field(i), pa.array([t['dlg_meta'][0].as_py()]*t.num_rows, pa.string()))  # schema 1: on every row
    pa.parquet.write_to_dataset(v1, tmp_path/'v1', partition_cols=['msg_type'])
    pieces = pa.dataset.dataset(tmp_path/'v1', format='parquet', partitioning='hive').to_table().select(list(msg_cols))
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(pa.concat_tables([v1, pieces]))
    e = dlgs2table([Dialog('nb')]); e = e.set_column(1, e.schema.field('path'), pa.array(['nb.ipynb'], pa.string()))
    assert [len(x.messages) for x in table2dlgs(pa.concat_tables([e, v1]))]==[0, 4]

def test_any_two_runs_of_a_dialog_sharing_no_position_are_pieces(tmp_path):
    "R43a: pieces of one row each in a table holding the metadata on every row (schema 1), rows reversed or read partition by partition, were each taken for a dialog: any two runs of one dialog sharing no position are pieces. An empty dialog's row beside its name's rows is no repeat: read_parquet sorts them (they were refused). A table given as the source of write_parquet is refused by name (a raw TypeError from pathlib)"
    d = Dialog('nb', [Message('n0', msg_type=snote), Message('p1'), Message('n2', msg_type=snote), Message('p3')], meta={'x': 1})
    t = dlgs2table([d]); t = t.set_column(1, t.schema.field('path'), pa.array(['nb.ipynb']*t.num_rows, pa.string()))
    i = t.schema.get_field_index('dlg_meta')
    v1 = t.set_column(i, t.schema.field(i), pa.array([t['dlg_meta'][0].as_py()]*t.num_rows, pa.string()))
    with pytest.raises(ValueError, match='come in pieces'): table2dlgs(v1.take(list(range(t.num_rows))[::-1]))
    q = write_parquet([Dialog('x'), Dialog('x', [Message('a', msg_type=snote), Message('b')])], tmp_path/'m', partition_by=['msg_type'])
    assert sorted([m.content for m in x.messages] for x in table2dlgs(read_parquet(q)))==[[], ['a', 'b']]
    with pytest.raises(TypeError, match='not a table'): write_parquet(t, tmp_path/'t.parquet')

def test_a_jsonl_export_with_force_replaces_a_folder_too(folder, tmp_path):
    "`export_folder(..., 'x.jsonl', force=True)` over a folder (a partitioned export, or left empty) replaces it, as a Parquet file does; it was a raw `IsADirectoryError` naming a temporary file"
    export_folder(folder/'a', ref := tmp_path/'ref.jsonl', workers=0)
    for made in ('empty', 'export'):
        p = tmp_path/f'{made}.jsonl'
        if made=='empty': p.mkdir()
        else: write_parquet(folder/'a', p, partition_by=['msg_type'])
        with pytest.raises(FileExistsError, match='already exists'): export_folder(folder/'a', p, workers=0)
        assert p.is_dir()
        export_folder(folder/'a', p, workers=0, force=True)
        assert p.is_file() and p.read_bytes()==ref.read_bytes()
    assert sorted(f.name for f in tmp_path.iterdir())==['empty.jsonl', 'export.jsonl', 'ref.jsonl']

def test_workers_none_counts_the_cores_this_process_may_use(monkeypatch):
    "`workers=None` uses the cores the process may run on (a container's CPU set), not the machine's count"
    from dialog import dataset
    if not hasattr(os, 'sched_getaffinity'): pytest.skip('no CPU sets on this system')
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {3})
    monkeypatch.setattr(os, 'cpu_count', lambda: 64)
    assert dataset._nworkers(None, 100) == 1 and dataset._nworkers(None, 10) == 0 and dataset._nworkers(3, 10) == 3

# What crosses between the processes: `_pack` and `_unpack` give what pickle gives

def _full_state(d):
    "Everything a dialog and its messages hold (the backlinks as whether each points at this dialog), as comparable data"
    ms = [(type(m), {k:v for k,v in vars(m).items() if k!='_dlg'}, m.dlg is d, [(type(a), vars(a)) for a in m.attachments]) for m in d.messages]
    return type(d),{k:v for k,v in vars(d).items() if k!='_messages'},ms

def _form_cells(text):
    "Cells whose form the reader remembers (a bare prompt, a `solveit_ai` mark other than true, an empty attachments object), and a code cell with an execution count and attachments homed in the notebook's metadata"
    return [dict(cell_type='code', id='bare', metadata={'solveit_ai': True}, source='%%prompt', outputs=[], execution_count=None),
            dict(cell_type='code', id='mark', metadata={'solveit_ai': 2, 'pinned': True}, source='%%prompt\n'+text, outputs=[], execution_count=None),
            dict(cell_type='markdown', id='noatt', metadata={}, source=text, attachments={}),
            dict(cell_type='code', id='home', metadata={}, source='x', outputs=[], execution_count=7)]

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.text(max_size=30), st.sampled_from([None, 'same', 'other']))
def test_dialogs_read_as_parts_come_back_as_read_ipynb_gives_them(tmp_path, seed, text, hint):
    "What the other processes send (`read_ipynb_parts`, packed from `DialogParts`) comes back here as what `read_ipynb` gives for the same file, as pickle brings it back: every attribute of the dialog and its messages, in order, and the same bytes written"
    from dialog.pool import _pack, _unpack, DialogParts
    from dialog.ipynb import read_ipynb_parts
    import pickle
    d = _odd_dialog(seed, text)
    try: txt = write_ipynb(d)
    except ValueError: return  # a text no file can hold
    nb = json.loads(txt)
    nb['cells'] += _form_cells(text)
    nb['metadata']['attachments'] = {'home': {'h.png': {'image/png': 'iVBORw=='}}}
    p = tmp_path/f'odd{seed}.ipynb'
    p.write_text(json.dumps(nb), encoding='utf-8')
    want = read_ipynb(p)
    assert [m.ipynb_form for m in want.messages[-4:]] == [{'bare': True}, {'mark': 2}, {'atts': True}, {}]  # every form is there to carry
    ref = pickle.loads(pickle.dumps(want))
    h = {None: None, 'same': p, 'other': Path('/data/elsewhere.ipynb')}[hint]
    b = _pack(DialogParts(*read_ipynb_parts(p)))
    assert b[:1] == b'M'  # the fast path
    got = _unpack(memoryview(b), h)
    assert _full_state(got) == _full_state(ref)
    assert (got.path is h) == (hint=='same')  # the hint's own Path when it is the same text
    assert [list(vars(m)) for m in got.messages] == [list(vars(m)) for m in ref.messages]
    assert write_ipynb(got) == write_ipynb(want) and got.messages[0].dlg is got and got.messages.items.ver == want.messages.items.ver

def test_read_dialogs_builds_the_messages_a_changed_msg_cls_makes(folder, monkeypatch):
    "With `Dialog.msg_cls` set to a subclass, the other processes read whole dialogs (parts are for `Message` itself), and every dialog holds the subclass's messages"
    from dialog.ipynb import read_ipynb_parts
    monkeypatch.setattr(Dialog, 'msg_cls', _Sub)
    with pytest.raises(TypeError, match='Dialog.msg_cls is _Sub'): read_ipynb_parts(dlg_paths(folder)[0])
    ds = read_dialogs(folder, workers=2, progress=False)
    assert len(ds) > 1 and all(type(m) is _Sub for d in ds for m in d.messages)

class _Sub(Message): pass
class _SubDlg(Dialog): msg_cls = _Sub
class _Att(Attachment): pass

def test_pack_pickles_what_is_not_read_as_parts(tmp_path):
    "Dialogs (subclasses included) and anything else go by pickle and come back the same; parts holding what marshal can't write (an attribute set by hand) go as their dialog, pickled"
    from dialog.pool import _pack, _unpack, DialogParts
    from dialog.ipynb import read_ipynb_parts
    import pickle, datetime
    cases = []
    d = _SubDlg('s'); d.mk_message('hi'); cases.append(d)
    d = Dialog('m'); d.messages.append(_Sub('sub')); cases.append(d)
    d = Dialog('a'); d.mk_message('x').attachments.append(_Att(b'1', 'text/plain', 'a.txt')); cases.append(d)
    d = Dialog('p'); d.mk_message('x'); d.path = 'rel/p.ipynb'; cases.append(d)
    for d in cases:
        b = _pack(d)
        assert b[:1] == b'P' and _full_state(_unpack(b)) == _full_state(pickle.loads(pickle.dumps(d))), d.name
    assert _unpack(_pack([1, 'x'])) == [1, 'x']
    p = tmp_path/'w.ipynb'; p.write_text(write_ipynb(_odd_dialog(3, 'w')), encoding='utf-8')
    want = read_ipynb(p); want.when = datetime.date(2026, 1, 1)
    parts = DialogParts(*read_ipynb_parts(p)); parts.dlg.when = datetime.date(2026, 1, 1)
    b = _pack(parts)
    assert b[:1] == b'P' and _full_state(_unpack(b)) == _full_state(pickle.loads(pickle.dumps(want)))

def _kill_other(job):
    "Kill the process running `job` when it is not the test's own"
    import signal, time
    if job==0 and os.getpid()!=_main: os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.01)
    return job
_main = os.getpid()

def test_a_killed_process_is_an_error_not_a_hang(monkeypatch, tmp_path):
    "When another process dies (killed, out of memory) the results it owed are missing: that's a clear error, and no result file is left"
    import tempfile
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    from dialog.pool import pmap, WorkerDied
    # a `WorkerDied` (a `RuntimeError`): named, so that the command line can say it in one line (test_cli_edge_cases)
    with pytest.raises(WorkerDied, match='stopped'): list(pmap(_kill_other, list(range(10)), 2, False, '', 10))
    assert not list(tmp_path.glob('nbdialog-*'))

def _interrupt_here(job):
    "Ctrl-C in the process that started the reading, on its first own job"
    import time
    if os.getpid()==_main: raise KeyboardInterrupt
    time.sleep(0.01)
    return job

def test_ctrl_c_stops_every_process_and_leaves_nothing(monkeypatch, tmp_path):
    "An interrupt in this process stops the others after the job they are on, removes what they sent, and leaves no process behind"
    import tempfile, multiprocessing
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    from dialog.pool import pmap
    with pytest.raises(KeyboardInterrupt): list(pmap(_interrupt_here, list(range(40)), 3, False, '', 40))
    assert not list(tmp_path.glob('nbdialog-*')) and not multiprocessing.active_children()

def _rglob_paths(p):
    "dlg_paths' folder rule, as rglob reads it: the second program the faster walk is checked against; a file reached twice (a link to a file listed) counts where first listed"
    seen = set()
    return [f for f in sorted(f for f in p.rglob('*.ipynb') if not any(s.startswith('.') for s in f.relative_to(p).parts) and not f.is_dir()) if (k := f.resolve()) not in seen and not seen.add(k)]

_names = st.sampled_from(['a.ipynb', 'b.ipynb', '.h.ipynb', 'c.txt', 'd.ipynb', 'x', '.hid', 'sub.ipynb'])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.lists(_names, min_size=1, max_size=3), st.sampled_from(['file', 'dir', 'link', 'dirlink', 'broken'])), max_size=12))
def test_folders_are_searched_as_rglob_searches_them(tmp_path_factory, tree):
    "Files, folders, hidden ones, links to files and to folders, broken links: a folder's notebooks are the ones rglob finds"
    root = tmp_path_factory.mktemp('tree')
    (root/'target').mkdir(); (root/'target'/'in.ipynb').write_text('{}')
    for parts,kind in tree:
        p = root.joinpath(*parts)
        if p.exists() or p.is_symlink() or any(q.is_symlink() or (q.exists() and not q.is_dir()) for q in p.parents if root in q.parents): continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if kind=='file': p.write_text('{}')
        elif kind=='dir': p.mkdir()
        elif kind=='link': p.symlink_to(root/'target'/'in.ipynb')
        elif kind=='dirlink': p.symlink_to(root/'target')
        else: p.symlink_to(root/'nowhere')
    assert dlg_paths(root) == _rglob_paths(root)
    assert dlg_paths([root, root/'target']) == _rglob_paths(root)  # target/in.ipynb, found in root, is listed once

_spawn_script = '''
import multiprocessing, sys
from dialog.ipynb import read_ipynb, write_ipynb
from dialog.dataset import read_dialogs, dlg_paths, dlgs2table
if __name__=='__main__':
    multiprocessing.set_start_method(sys.argv[2])
    ps = dlg_paths(sys.argv[1])
    got,want = read_dialogs(ps, workers=2),[read_ipynb(p) for p in ps]
    assert [write_ipynb(d) for d in got] == [write_ipynb(d) for d in want]
    assert all(m.dlg is d for d in got for m in d.messages)
    assert dlgs2table(ps, workers=3).equals(dlgs2table(ps, workers=0))
    print('ok', len(got))
'''

@pytest.mark.parametrize('method', ['spawn', 'forkserver'])
def test_other_ways_to_start_processes_read_the_same(folder, tmp_path, method):
    "Where the other processes start as fresh interpreters (macOS, Windows; Linux from Python 3.14), the results are the same"
    script = tmp_path/'read.py'; script.write_text(_spawn_script)
    env = dict(os.environ, PYTHONPATH=str(root))
    r = subprocess.run([sys.executable, str(script), str(folder), method], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ['ok', '60']

def test_a_process_killed_after_writing_its_result_leaves_no_file(monkeypatch, tmp_path):
    "A process killed between writing a result and sending its name: the error says a process stopped, and its file goes with the reading's folder"
    import tempfile, signal
    import dialog.pool as dd
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    real = dd._result_file
    def write_then_die(f, job, *folders):  # forked into the other process
        p = real(f, job, *folders)
        if os.getpid()!=_main: os.kill(os.getpid(), signal.SIGKILL)
        return p
    monkeypatch.setattr(dd, '_result_file', write_then_die)
    with pytest.raises(RuntimeError, match='stopped'): list(dd.pmap(_pid_of, list(range(10)), 2, False, '', 10))
    assert not list(tmp_path.iterdir())

def test_export_counts_read_as_english(tmp_path, monkeypatch):
    "One dialog exported is '1 dialog, 1 line' (and '1 row'), not '1 dialogs'"
    monkeypatch.chdir(tmp_path)
    (tmp_path/'one').mkdir()
    Dialog('d', [Message('hi', msg_type='prompt', output='hello')]).save(tmp_path/'one'/'d.ipynb')
    assert export_folder('one', 'x.jsonl') == 'wrote x.jsonl: 1 dialog, 1 line'
    assert export_folder('one', 'x.parquet') == 'wrote x.parquet: 1 dialog, 1 row'

@pytest.mark.parametrize('out,part', [('x.parquet', None), ('by', 'msg_type')])
@pytest.mark.parametrize('kw', [dict(drop='no_assistant'), dict(shape='trl'), dict(shape='chat')], ids=str)
def test_jsonl_rules_with_a_parquet_output_are_refused_not_ignored(tmp_path, monkeypatch, out, part, kw):
    "`drop` and `shape` are JSON Lines' rules: with a Parquet output `export_folder` refuses them, naming them, and writes nothing (the command line's refusal too) (r24b)"
    monkeypatch.chdir(tmp_path)
    (tmp_path/'one').mkdir()
    Dialog('d', [Message('hi', msg_type='prompt', output='hello')]).save(tmp_path/'one'/'d.ipynb')
    Dialog('n', [Message('a note', msg_type='note')]).save(tmp_path/'one'/'n.ipynb')
    with pytest.raises(ValueError, match=f'{out}: {list(kw)[0]} goes with a .jsonl output only'):
        export_folder('one', out, workers=0, partition_by=part, **kw)
    assert not (tmp_path/out).exists()
    assert export_folder('one', 'x.jsonl', workers=0, **kw).startswith('wrote x.jsonl: 2 dialogs')

def test_a_file_named_twice_is_read_once(tmp_path, monkeypatch):
    "A folder and its subfolder, a folder twice, or one file spelled relative and absolute: each file is read and counted once"
    monkeypatch.chdir(tmp_path)
    mk_folder(tmp_path/'talks'/'sub', 2)
    one = dlg_paths('talks')
    for src in (['talks', 'talks/sub'], ['talks', 'talks'], ['talks/sub/d000000.ipynb', str(tmp_path/'talks/sub/d000000.ipynb'), 'talks']):
        assert dlg_paths(src).map(os.path.abspath).sorted() == one.map(os.path.abspath).sorted(), src
        assert folder_stats(src, workers=0).splitlines()[0] == folder_stats('talks', workers=0).splitlines()[0]
    assert folder_stats(['talks', 'talks'], workers=0).startswith('2 dialogs, ')

def test_no_more_processes_than_jobs(tmp_path, monkeypatch):
    "`workers` far above the files to read starts no process for nothing: one file is read here alone, whatever is asked"
    import multiprocessing
    ctx,started = multiprocessing.get_context(),[]
    class Counted(ctx.Process):
        def start(self): started.append(self); super().start()
    monkeypatch.setattr(type(ctx), 'Process', Counted)
    mk_folder(tmp_path/'one', 1)
    assert folder_stats(tmp_path/'one', workers=1_000_000).startswith('1 dialog, ') and started == []

def test_stats_counts_read_as_english(tmp_path):
    "One dialog of one message of one token reads '1 dialog, 1 message, 1 token'"
    Dialog('d', [Message('a', msg_type='note')]).save(tmp_path/'d.ipynb')
    s = folder_stats(tmp_path, workers=0)
    assert s.startswith('1 dialog, 1 message, 1 token (estimated)\n  note            1 message              1 token\n'), s

def test_overlap_through_a_link_is_read_once(tmp_path):
    "Sources are resolved to real paths: a folder and a link into it (or to it) read each file once"
    src = tmp_path/'dlgs'; (src/'2024').mkdir(parents=True)
    for p in (src/'a.ipynb', src/'2024'/'b.ipynb'):
        d = Dialog(p.stem); d.mk_message('hi', msg_type='prompt', output='hello'); d.save(p)
    os.symlink(src, tmp_path/'latest')
    os.symlink(src/'a.ipynb', src/'alias.ipynb')
    assert [p.name for p in dlg_paths([src, tmp_path/'latest'/'2024'])] == ['b.ipynb', 'a.ipynb']
    assert len(read_dialogs([src, tmp_path/'latest'/'2024'], workers=0)) == 2
    assert folder_stats([src, tmp_path/'latest'], workers=0).splitlines()[0].startswith('2 dialogs')

def test_a_file_that_is_not_regular_is_a_bad_file(tmp_path):
    "A FIFO named like a dialog is a bad file under on_error, as a file that isn't JSON is: collected, skipped, or raised naming it"
    src = tmp_path/'dlgs'; src.mkdir()
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save(src/'a.ipynb')
    os.mkfifo(src/'fifo.ipynb')
    t,errs = dlgs2table(src, workers=0, on_error='collect')
    assert t.num_rows == 1 and [Path(e.fname).name for e in errs] == ['fifo.ipynb'] and 'not a regular file' in str(errs[0])
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', 'export', str(src), '-o', str(tmp_path/'o.parquet'), '--skip-bad'], capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(root)))
    assert r.returncode == 0 and (tmp_path/'o.parquet').exists() and 'fifo.ipynb' in r.stdout+r.stderr, r.stderr

def test_a_file_named_without_ipynb_is_a_bad_file_saying_why(tmp_path, monkeypatch):
    "An existing file named without `.ipynb` (or `.jsonl`) is a bad file saying what the readers read, in every reader: never read as `notes.ipynb` (missing, or a second name for a file named too), nor parsed as a notebook"
    from pyarrow import fs as pafs
    from dialog.dataset import _ray_files, _file_list, _files2table, _bad_rows
    import pickle
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('a.ipynb')
    shutil.copy('a.ipynb', 'notes')  # a notebook, even: its name doesn't say so
    why = "notes: not a .ipynb file or an agent's session (.jsonl): a collection is read from those alone"
    src = ['notes', 'a.ipynb']
    ds,errs = read_dialogs(src, workers=0, on_error='collect')
    assert [x.name for x in ds]==['a'] and [str(e) for e in errs]==[why] and isinstance(errs[0], DialogFormatError)
    with pytest.raises(DialogFormatError, match='notes: not a .ipynb file'): read_dialogs('notes', workers=0)
    for r in (dlgs2table(src, workers=0, on_error='collect'), write_parquet(src, 'o.parquet', workers=0, on_error='collect'),
              paths2jsonl(src, 'o.jsonl', workers=0, on_error='collect')):
        assert [str(e) for e in r[1]]==[why]
    assert folder_stats(src, workers=0).splitlines()[-1]=='  '+why
    shutil.copy('a.ipynb', 'notes.ipynb')  # `notes.ipynb` beside it is read where named, once, not as `notes`
    ds,errs = read_dialogs(['notes', 'notes.ipynb'], workers=0, on_error='collect')
    assert [x.name for x in ds]==['notes'] and [str(e) for e in errs]==[why]
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', 'export', 'notes', '-o', 'c.parquet'], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(root)))
    assert r.returncode!=0 and why in r.stderr, r.stderr
    fss,files = _ray_files(['notes', 'a.ipynb'])  # `ray_read`'s reading of a batch (without starting Ray), local and through pyarrow
    sub = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    t = _files2table(_file_list(files + [(0, 'notes')]), 'collect', (sub,))
    assert [str(pickle.loads(x)) for x in _bad_rows(t)['nbdialog_error'].to_pylist()]==[why.replace('notes', str(tmp_path/'notes'), 1), why]

@pytest.mark.parametrize('workers', [0, 2])
def test_raise_names_the_first_bad_file_in_path_order(tmp_path, workers):
    "With 'raise', the error is the first in path order whichever process met it: this one takes chunks from the back"
    from dialog.core import tiny_png
    src = tmp_path/'dlgs'; src.mkdir()
    for i in range(40):
        d = Dialog(f'd{i:02}')
        m = d.mk_message('hi' + ('\n\n![a](attachment:a.png)' if i == 38 else ''), msg_type='prompt', output='hello')
        if i == 38: m.mk_attachment(tiny_png, 'image/png', 'a.png')
        d.save(src/f'd{i:02}.ipynb')
    (src/'d03.ipynb').write_text('{bad')
    with pytest.raises(ValueError, match=r'd03\.ipynb'): paths2jsonl(src, tmp_path/'o.jsonl', workers=workers, shape='hf')

@pytest.mark.parametrize('n,workers', [(0, 0), (5, 2), (300, 2), (520, 2), (1000, 0), (1000, 3)])
def test_a_plan_holds_the_listing_as_chunks_of_text(tmp_path, n, workers):
    "`_plan` gives the files `dlg_paths` lists, in its order, in the chunks `_chunks` would cut (blocks of 16 text a piece for big listings)"
    from dialog.dataset import _plan, _chunks, _Files
    f = tmp_path/'many'; f.mkdir()
    for i in range(n): (f/f'{i:05}.ipynb').write_text('{}')
    k,w,jobs = _plan(f, workers)
    want = [str(p) for p in dlg_paths(f)]
    assert k == n and [p for j in jobs for p in j] == want and [len(j) for j in jobs] == [len(c) for c in _chunks(want, w)]
    if n >= 1000: assert isinstance(jobs, _Files) and len(jobs.blocks) == -(-n//16)

def _talk(tmp_path):
    d = Dialog('a'); d.mk_message('q', msg_type=sprompt, output='r')
    p = tmp_path/'a.ipynb'; d.save(p)
    return d, p

@pytest.mark.parametrize('wrap', [lambda ps: (p for p in ps), set, iter], ids=['generator', 'set', 'iterator'])
def test_paths2jsonl_takes_any_iterable_of_paths(tmp_path, wrap):
    "Files in a generator, set or iterator are written as a list of them is (dataset's own dlgs2jsonl took them so; paths2jsonl is now the one call for files)"
    from dialog import dataset, chat
    d,p = _talk(tmp_path)
    want = chat.dlgs2jsonl([d], tmp_path/'want.jsonl').read_bytes()
    assert dataset.paths2jsonl(wrap([p]), tmp_path/'o.jsonl', workers=0).read_bytes()==want
    assert dataset.dlg_paths(wrap([p, p]))==[p]  # read once, as a list's items are
    with pytest.raises(TypeError, match=r"dialog 'a' is a Dialog, not a path: .*`dialog.chat`'s `dlgs2jsonl`"):
        dataset.paths2jsonl(wrap([d]), tmp_path/'m.jsonl')

def test_a_public_name_is_one_function():
    "dialog.dataset defines no second `dlgs2jsonl` (issue 36): with star imports in either order, the name is chat's; no name dataset exports is another module's under the same name"
    import importlib
    from dialog import dataset, chat
    ns1,ns2 = {},{}
    exec('from dialog.chat import *\nfrom dialog.dataset import *', ns1)
    exec('from dialog.dataset import *\nfrom dialog.chat import *', ns2)
    assert ns1['dlgs2jsonl'] is ns2['dlgs2jsonl'] is chat.dlgs2jsonl and not hasattr(dataset, 'dlgs2jsonl')
    for m in ('core', 'ipynb', 'nbjson', 'render', 'chat', 'pool', 'session', 'view', 'cli'):
        mod = importlib.import_module(f'dialog.{m}')
        assert not [n for n in dataset.__all__ if n in getattr(mod, '__all__', ()) and getattr(mod, n) is not getattr(dataset, n)], m

def test_a_file_is_its_device_and_inode(tmp_path, monkeypatch):
    "`_once` tells files apart by device and inode: links, `..`, relative paths and hard links are one file; a broken link is its real path"
    from dialog.dataset import _file_key
    monkeypatch.chdir(tmp_path)
    (tmp_path/'a'/'b').mkdir(parents=True); (tmp_path/'a'/'b'/'f.ipynb').write_text('{}')
    os.symlink(tmp_path/'a', tmp_path/'l'); os.symlink(tmp_path/'a'/'b'/'f.ipynb', tmp_path/'a'/'g.ipynb')
    os.symlink(tmp_path/'nowhere', tmp_path/'a'/'gone.ipynb'); os.link(tmp_path/'a'/'b'/'f.ipynb', tmp_path/'a'/'h.ipynb')
    one = ['a/b/f.ipynb', 'l/b/f.ipynb', 'l/g.ipynb', 'a/g.ipynb', './a/b/../b/f.ipynb', 'a/h.ipynb', str(tmp_path/'l'/'b'/'f.ipynb'), 'a/b/./f.ipynb']
    st = os.stat('a/b/f.ipynb')
    assert {_file_key(p) for p in one} == {(st.st_dev, st.st_ino)}
    assert _file_key('a/gone.ipynb') == os.path.realpath('a/gone.ipynb')
    assert dlg_paths(['a/b/f.ipynb', 'l/b/f.ipynb', 'a/g.ipynb', 'a/h.ipynb']) == [Path('a/b/f.ipynb')]

def test_a_hard_link_is_read_once_by_every_reader(tmp_path, monkeypatch):
    "A hard link to a notebook (`cp -al`, `ln` into a curated subfolder) is the file it names: listed, counted, exported and sent to Ray once"
    from dialog.dataset import _ray_files
    monkeypatch.chdir(tmp_path)
    for n in 'ab':
        d = Dialog(n); d.mk_message(f'question {n}', msg_type='prompt', output=f'answer {n}'); d.save(f'f/{n}.ipynb')
    os.makedirs('f/curated'); os.link('f/a.ipynb', 'f/curated/a.ipynb')
    assert [str(p) for p in dlg_paths('f')] == ['f/a.ipynb', 'f/b.ipynb']
    assert len(read_dialogs('f', workers=0)) == 2 and dlgs2table('f', workers=0).num_rows == 2
    assert folder_stats('f', workers=0).startswith('2 dialogs')
    assert export_folder('f', 'train.jsonl', workers=0) == 'wrote train.jsonl: 2 dialogs, 2 lines'
    assert [os.path.relpath(p) for _,p in _ray_files('f')[1]] == ['f/a.ipynb', 'f/b.ipynb']
    assert len(_ray_files(['f/curated', 'f'])[1]) == 2

# The rows' own encoders: one rule with json and with the messages

from dialog.dataset import _js
_json_vals = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(st.characters(exclude_categories=())),
                          lambda c: st.lists(c) | st.dictionaries(st.text(st.characters(exclude_categories=())), c), max_leaves=12)

@settings(max_examples=400, deadline=None)
@given(_json_vals)
def test_a_cells_json_is_json_dumps(v):
    "The `cell`, `meta` and `dlg_meta` texts are `json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(',', ':'))`, NaN, big integers and lone surrogates too"
    assert _js(v) == json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(',', ':'))

def test_a_value_holding_itself_gets_jsons_error():
    "The encoder called without json's check for cycles still refuses one, with json's error"
    d = {'a': [1]}; d['a'].append(d)
    with pytest.raises(ValueError, match='Circular reference'): _js(d)

def test_images_are_counted_in_outputs_and_attachments():
    "`n_images`: outputs holding an image type the providers take (not svg), and image attachments (not a pdf)"
    import base64
    b = base64.b64encode(b'\x89PNG fake').decode()
    outs = [dict(output_type='display_data', metadata={}, data={'image/png': b, 'text/plain': 'fig'}),
            dict(output_type='execute_result', execution_count=1, metadata={}, data={'image/jpeg': b}),
            dict(output_type='display_data', metadata={}, data={'image/svg+xml': '<svg/>', 'text/plain': 's'}),
            dict(output_type='stream', name='stdout', text='hi\n')]
    cells = [dict(cell_type='code', id='c1', metadata={}, source='x', execution_count=1, outputs=outs),
             dict(cell_type='markdown', id='m1', metadata={}, source='![a](attachment:a.png)',
                  attachments={'a.png': {'image/png': b}, 'b.pdf': {'application/pdf': b}}),
             dict(cell_type='raw', id='r1', metadata={}, source='plain')]
    d = reads_ipynb(json.dumps(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=5)))
    assert dlgs2table([d])['n_images'].to_pylist() == [2, 1, 0]

@pytest.mark.parametrize('out,part', [('src', None), ('src', 'msg_type'), ('.', 'msg_type'), ('src/a.ipynb', None)])
def test_force_never_replaces_the_sources_or_what_no_export_writes(tmp_path, monkeypatch, out, part):
    "`force` replaces a previous export only: a folder holding dialogs (or a README, or a link), or a dialog file, is refused whole"
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    Path('README.md').write_text('mine')
    before = sorted(map(str, Path('.').rglob('*')))
    with pytest.raises(FileExistsError, match='nothing was replaced'): write_parquet('src', out, workers=0, force=True, partition_by=part)
    assert sorted(map(str, Path('.').rglob('*'))) == before
    with pytest.raises(FileExistsError, match='nothing was replaced'):
        export_folder('src', out, partition_by=part or 'msg_type', workers=0, force=True)
    assert sorted(map(str, Path('.').rglob('*'))) == before
    # a previous export is replaced; a link inside one is refused, not followed
    write_parquet('src', 'by', workers=0, partition_by='msg_type')
    write_parquet('src', 'by', workers=0, partition_by='msg_type', force=True)
    os.symlink(tmp_path/'src', 'by/link')
    with pytest.raises(FileExistsError, match='holds link'): write_parquet('src', 'by', workers=0, force=True)
    assert Path('src/a.ipynb').is_file()
    # nor is a folder replaced through a link to it, even one holding an export alone
    os.unlink('by/link'); os.symlink(tmp_path/'by', 'out')
    for part in (None, 'msg_type'):
        with pytest.raises(FileExistsError, match='is a link to a folder'): write_parquet('src', 'out', workers=0, force=True, partition_by=part)
    assert os.path.islink('out') and Path('by/msg_type=prompt').is_dir()

@pytest.mark.parametrize('cap', [None, 70])
def test_row_groups_are_of_the_documented_size_not_a_read_chunks(tmp_path, monkeypatch, cap):
    "The file and a partitioned folder alike: row groups of `row_group_rows` rows (or `row_group_bytes`), whichever ends first, not one per 16-file read chunk; rows in order"
    import pyarrow.parquet as pq
    from dialog import dataset
    if cap: monkeypatch.setattr(dataset, 'row_group_rows', cap)
    for i in range(200):
        d = Dialog(f'd{i:03}'); d.mk_message(f'q{i}', msg_type='prompt', output='a'); d.mk_message(f'x = {i}'); d.save(tmp_path/'src'/f'{i:03}.ipynb')
    f = write_parquet(tmp_path/'src', tmp_path/'one.parquet', workers=0)
    by = write_parquet(tmp_path/'src', tmp_path/'by', workers=0, partition_by='msg_type')
    for p,rows in ((f, 400), (by/'msg_type=prompt'/'part-0.parquet', 200), (by/'msg_type=code'/'part-0.parquet', 200)):
        m = pq.read_metadata(p)
        sizes = [m.row_group(i).num_rows for i in range(m.num_row_groups)]
        assert sizes == ([cap]*(rows//cap) + [rows%cap] if cap else [rows]), (p, sizes)
    assert read_parquet(by).sort_by([('name', 'ascending'), ('pos', 'ascending')]).equals(read_parquet(f).sort_by([('name', 'ascending'), ('pos', 'ascending')]))
    assert read_parquet(by/'msg_type=prompt')['name'].to_pylist() == [f'{i:03}' for i in range(200)]

@pytest.mark.slow
def test_parquet_memory_is_flat_for_tiny_dialogs(tmp_path):
    "Peak RSS of writing 25,000 empty dialogs (default workers) is within 1.2x of 1,000's, the file and a partitioned folder alike: the read chunks' small tables aren't held until 32 MB of data (each costs far more than its `nbytes`)"
    txt = write_ipynb(Dialog('x'))
    for n in (1000, 25000):
        for i in range(n): (tmp_path/f'd{n}'/str(i//1000)).mkdir(parents=True, exist_ok=True); (tmp_path/f'd{n}'/str(i//1000)/f'{i}.ipynb').write_text(txt)
    code = ('import resource, sys; from dialog.dataset import write_parquet; write_parquet(sys.argv[1], sys.argv[2], partition_by=sys.argv[3] or None); '
            'print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)')
    def rss(n, out, part):
        r = subprocess.run([sys.executable, '-c', code, tmp_path/f'd{n}', tmp_path/out, part], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(root)))
        assert r.returncode==0, r.stderr
        return int(r.stdout.split()[-1])
    for out,part in (('o.parquet', ''), ('by', 'msg_type')):
        a,b = rss(1000, f'1{out}', part),rss(25000, f'2{out}', part)
        assert b/a <= 1.2, (out, a, b)

@pytest.mark.parametrize('part', [None, 'msg_type'])
def test_force_never_replaces_a_folder_of_other_parquet_data(tmp_path, monkeypatch, part):
    "A folder of Parquet files is a previous export only if every file carries our schema marker: DuckDB's or Polars' tables of other data are refused, naming the file, and kept"
    import pyarrow.parquet as pq
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    write_parquet('src', 'out', workers=0, partition_by='msg_type')
    pq.write_table(pa.table({'order_id': [1, 2], 'amount': [9.5, 3.0]}), 'out/msg_type=prompt/sales.parquet')
    Path('out/x=1').mkdir(); Path('out/x=1/bad.parquet').write_text('not parquet')
    before = {str(p): p.read_bytes() for p in Path('out').rglob('*') if p.is_file()}
    with pytest.raises(FileExistsError, match=r'holds msg_type=prompt/sales.parquet, a Parquet file that is no message table'):
        write_parquet('src', 'out', workers=0, force=True, partition_by=part)
    os.unlink('out/msg_type=prompt/sales.parquet'); del before['out/msg_type=prompt/sales.parquet']
    with pytest.raises(FileExistsError, match=r'holds x=1/bad.parquet'): write_parquet('src', 'out', workers=0, force=True, partition_by=part)
    assert {str(p): p.read_bytes() for p in Path('out').rglob('*') if p.is_file()} == before
    shutil.rmtree('out/x=1')
    write_parquet('src', 'out', workers=0, force=True, partition_by=part)  # ours alone: replaced
    assert read_parquet('out')['name'].to_pylist() == ['a']

@pytest.mark.parametrize('out,unit', [('x.jsonl', 'line'), ('x.parquet', 'row')])
def test_export_takes_any_iterable_of_paths(tmp_path, monkeypatch, out, unit):
    "A generator of paths is listed once, counted and written: not spent on the count, leaving an empty export"
    monkeypatch.chdir(tmp_path)
    for n in 'ab': d = Dialog(n); d.mk_message('hi', msg_type='prompt', output='hello'); d.save(f'f/{n}.ipynb')
    assert export_folder((str(p) for p in sorted(Path('f').glob('*.ipynb'))), out, workers=0) == f'wrote {out}: 2 dialogs, 2 {unit}s'

@pytest.mark.parametrize('pat', ['talks/*.ipynb', 'talks/o*.ipynb', 'talks/**', 'talks/**/*.ipynb', '*/*.ipynb'])
def test_a_glob_lists_no_folder_named_like_a_dialog(tmp_path, monkeypatch, pat):
    "A glob lists files only, as a folder's search does: `old.ipynb/` (or a link to a folder) is no dialog file; its notebooks are listed where the pattern reaches them"
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('talks/a.ipynb'); d.save('talks/old.ipynb/b.ipynb')
    os.symlink(tmp_path/'talks'/'old.ipynb', 'talks/link.ipynb')
    got = [str(p) for p in dlg_paths(pat)]
    assert not [p for p in got if os.path.isdir(p)], got
    want = {'talks/*.ipynb': ['talks/a.ipynb'], 'talks/o*.ipynb': [], 'talks/**': ['talks/a.ipynb', 'talks/old.ipynb/b.ipynb'],
            'talks/**/*.ipynb': ['talks/a.ipynb', 'talks/old.ipynb/b.ipynb'], '*/*.ipynb': ['talks/a.ipynb']}[pat]
    assert got == want
    if want: assert len(read_dialogs(pat, workers=0)) == len(want)

@pytest.mark.parametrize('out', ['x.parquet', 'x.jsonl', 'by'])
def test_sigterm_mid_write_leaves_nothing(tmp_path, out):
    "SIGTERM (`timeout`, `kill`, `docker stop`) during a parallel export ends it as Ctrl-C does: exit 143, no temporary output, no result folder"
    (tmp_path/'tmp').mkdir(); (tmp_path/'out').mkdir()
    mk_folder(tmp_path/'f', 200)
    code = f'''
import os, signal
from dialog import dataset, pool
from dialog.dataset import write_parquet, paths2jsonl
real = pool._take
def take(*a):  # this process stops itself once it has results of the others in hand
    if os.listdir(os.environ['TMPDIR']) and not hasattr(take, 'done'): take.done = os.kill(os.getpid(), signal.SIGTERM)
    return real(*a)
pool._take = take
out = {str(tmp_path/'out'/out)!r}
if out.endswith('.jsonl'): paths2jsonl({str(tmp_path/'f')!r}, out, workers=2)
else: write_parquet({str(tmp_path/'f')!r}, out, workers=2, partition_by=None if out.endswith('.parquet') else 'msg_type')
print('finished')
'''
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=tmp_path,
                       env=dict(os.environ, TMPDIR=str(tmp_path/'tmp'), PYTHONPATH=str(root)))
    assert r.returncode == 143 and 'finished' not in r.stdout, r.stderr[-2000:]
    assert os.listdir(tmp_path/'out') == [] and os.listdir(tmp_path/'tmp') == []

def test_a_write_keeps_the_programs_own_sigterm_handler(tmp_path):
    "The handler is the write's only where SIGTERM's was the default, and the previous one is back after"
    import signal
    d = Dialog('a'); d.mk_message('hi', msg_type='note')
    old = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        write_parquet([d], tmp_path/'a.parquet')
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        mine = lambda *a: None
        signal.signal(signal.SIGTERM, mine)
        write_parquet([d], tmp_path/'b.parquet')
        assert signal.getsignal(signal.SIGTERM) is mine
    finally: signal.signal(signal.SIGTERM, old)

def test_exports_sweep_what_killed_exports_left(tmp_path, monkeypatch):
    "A temporary output (`.x.parquet.<own_tag>.<hex>.tmp`, a partitioned folder's, one set aside) beside the output, or `paths2jsonl`'s chunk folder in TMPDIR, that a process now gone left (kill -9) is removed by the next export; a live process's, and another output's, stay"
    import tempfile
    from dialog.ipynb import own_tag
    monkeypatch.chdir(tmp_path); monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path/'t'))
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    p = subprocess.Popen([sys.executable, '-c', 'pass']); p.wait()
    host,_,me = own_tag().rpartition('.')
    dead,live = f'{host}.{p.pid}',f'{host}.{me}'
    files = [f'.x.parquet.{dead}.0123456789ab.tmp', f'.x.jsonl.{dead}.0123456789ab.tmp', f'.x.parquet.{live}.0123456789ab.tmp',
             f'.other.parquet.{dead}.0123456789ab.tmp']
    folders = [f'.by.{dead}.0123456789ab.tmp', f'.by.{dead}.0123456789ab.tmp.old', f'.by.{live}.0123456789ab.tmp',
               f't/nbdialog_jsonl-{dead}-abcdefgh', f't/nbdialog_jsonl-{live}-abcdefgh', f't/nbdialog-{dead}-abcdefgh']
    for n in files: Path(n).write_text('half')
    for n in folders: os.makedirs(f'{n}/sub'); Path(f'{n}/sub/x').write_text('half')
    # another user's, dead too (made so where this test may give files away): never this user's to remove
    theirs = [f'.x.jsonl.{dead}.0123456789ac.tmp', f't/nbdialog_jsonl-{dead}-zzzzzzzz'] if os.geteuid()==0 else []
    for n in theirs:
        (os.makedirs(n) if n.startswith('t/') else Path(n).write_text('theirs')); os.chown(n, 65534, 65534)
    for out in ('x.parquet', 'x.jsonl', 'by'): export_folder('src', out, workers=0, partition_by='msg_type' if out=='by' else None)
    left = {n for n in os.listdir() if n.startswith('.')} | {f't/{n}' for n in os.listdir('t')}
    assert left == {f'.x.parquet.{live}.0123456789ab.tmp', f'.other.parquet.{dead}.0123456789ab.tmp', f'.by.{live}.0123456789ab.tmp',
                    f't/nbdialog_jsonl-{live}-abcdefgh', f't/nbdialog-{dead}-abcdefgh', *theirs}  # (nbdialog- is the pool's to sweep)

def _full_file(folder):
    "A descriptor that writes to /dev/full (every write: ENOSPC), and a real file's path in `folder` to unlink"
    import tempfile
    fd,p = tempfile.mkstemp(dir=folder); os.close(fd)
    return os.open('/dev/full', os.O_WRONLY),p

@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='needs /dev/full')
def test_a_full_disk_names_the_folder_that_filled(tmp_path, monkeypatch):
    "ENOSPC names the folder that is full: the others' results folder (and that TMPDIR or workers=0 changes it), or the output's"
    import tempfile
    from dialog import dataset
    mk_folder(tmp_path/'f', 40)
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path/'t')); (tmp_path/'t').mkdir()
    real = tempfile.mkstemp
    monkeypatch.setattr(tempfile, 'mkstemp', lambda suffix=None, dir=None, **kw: _full_file(dir) if suffix=='.res' else real(suffix, dir=dir, **kw))
    with pytest.raises(OSError, match=r'temporary folder of the results .* full \(set TMPDIR .* workers=0\)') as e:
        write_parquet(tmp_path/'f', tmp_path/'x.parquet', workers=2)
    assert e.value.filename.startswith(str(tmp_path/'t'/'nbdialog-'))
    monkeypatch.setattr(tempfile, 'mkstemp', real)
    monkeypatch.setattr(dataset, '_tmp_file', lambda path: _full_file(path.parent))
    for out in ('y.parquet', 'y.jsonl'):
        with pytest.raises(OSError, match="the output's folder is full") as e:
            export_folder(tmp_path/'f', tmp_path/out, workers=0)
        assert e.value.filename == str(tmp_path)

@pytest.mark.parametrize('n', [0, -1, 1.5])
def test_ray_read_refuses_a_batch_of_no_files(tmp_path, n):
    "`files_per_batch` below 1 is a ValueError naming it, before Ray is started (was ZeroDivisionError)"
    with pytest.raises(ValueError, match=f'files_per_batch must be a number of files of 1 or more, not {n}'): ray_read(tmp_path, files_per_batch=n)

def test_dlgs2jsonl_of_a_generator_streams(tmp_path):
    "`dlgs2jsonl` given a generator writes each line to its temporary file as the dialog comes: the lines made so far are on disk, not held"
    seen = []
    def gen():
        for i in range(20):
            d = Dialog(f'd{i}'); d.mk_message('x' * 20_000, msg_type='prompt', output='y' * 20_000); yield d
            seen.append(sum(p.stat().st_size for p in tmp_path.glob('.train.jsonl.*.tmp')))
    p = dlgs2jsonl(gen(), tmp_path/'train.jsonl', shape='hf')
    assert len(p.read_text().splitlines()) == 20 and seen[-1] >= 18 * 40_000

def test_force_never_replaces_a_parquet_file_of_other_data(tmp_path, monkeypatch):
    "One rule for a Parquet file, alone or in a folder: `force` replaces it only if its footer carries our marker; DuckDB's or pandas' table of other data (however named) is refused, naming it, and kept"
    import pyarrow.parquet as pq
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    for name in ('sales.parquet', 'sales.pq'):
        pq.write_table(pa.table({'order_id': [1, 2], 'amount': [9.5, 3.0]}), name)
        before = Path(name).read_bytes()
        fs = [lambda: write_parquet('src', name, workers=0, force=True)]
        if name.endswith('.parquet'): fs.append(lambda: export_folder('src', name, workers=0, force=True))  # (which takes that suffix only)
        for f in fs:
            with pytest.raises(FileExistsError, match=rf'^{name} is a Parquet file that is no message table'): f()
            assert Path(name).read_bytes() == before
    write_parquet('src', 'ours.parquet', workers=0)
    write_parquet('src', 'ours.parquet', workers=0, force=True)  # a previous export: replaced
    assert read_parquet('ours.parquet')['name'].to_pylist() == ['a']
    Path('empty.parquet').touch()  # a placeholder holds nothing to lose: replaced
    write_parquet('src', 'empty.parquet', workers=0, force=True)
    assert read_parquet('empty.parquet')['name'].to_pylist() == ['a']

def test_force_never_replaces_a_jsonl_file_of_other_data(tmp_path, monkeypatch):
    "`force` replaces a JSON Lines file only if its first line is one an export writes: a hand-made `{\"text\": ...}` dataset, an OpenAI batch file or a shape spelled by another tool is refused, naming it, and kept (it was replaced); a previous export of any shape, and an empty file, are replaced"
    from cli_helpers import nbd
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    others = {'data.jsonl': ''.join(f'{{"text": "curated example {i}", "label": {i%2}}}\n' for i in range(50)),
              'batch.jsonl': '{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"messages": [{"role": "user", "content": "Hi"}]}}\n',
              'train.jsonl': '{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}\n',
              'notes.txt': 'my notes\n'}
    for name, txt in others.items():
        Path(name).write_text(txt)
        fs = [lambda: paths2jsonl('src', name, workers=0, force=True)]
        if name.endswith('.jsonl'): fs.append(lambda: export_folder('src', name, workers=0, force=True))  # (which takes that suffix only)
        for f in fs:
            with pytest.raises(FileExistsError, match=rf'^{name} is a file no export writes'): f()
            assert Path(name).read_text() == txt
    r = nbd('export', 'src', '-o', 'data.jsonl', '--force', cwd=tmp_path)
    assert r.returncode == 2 and 'data.jsonl is a file no export writes' in r.stderr and Path('data.jsonl').read_text() == others['data.jsonl']
    for shape in ('chat', 'openai_ft', 'hf', 'trl', 'sharegpt'):  # a previous export, whatever its shape: replaced
        paths2jsonl('src', 'ours.jsonl', workers=0, shape=shape, force=True)
        paths2jsonl('src', 'ours.jsonl', workers=0, force=True)
        assert len(Path('ours.jsonl').read_text().splitlines()) == 1
    for fmt in ('anthropic', 'responses', 'gemini'):
        paths2jsonl('src', 'ours.jsonl', fmt, workers=0, force=True)
        paths2jsonl('src', 'ours.jsonl', workers=0, force=True)
    Path('empty.jsonl').touch()  # a placeholder holds nothing to lose: replaced
    paths2jsonl('src', 'empty.jsonl', workers=0, force=True)
    assert len(Path('empty.jsonl').read_text().splitlines()) == 1

@pytest.mark.skipif(not hasattr(os, 'mkfifo'), reason='no named pipes')
@pytest.mark.parametrize('out,part', [('out', 'msg_type'), ('x.parquet', None)])
def test_force_refuses_a_named_pipe_without_opening_it(tmp_path, out, part):
    "A named pipe where an export goes, or inside the folder it replaces, is refused at once, named: the check never opens it (opening one waits for a writer forever)"
    code = f'''
import os
from dialog.core import Dialog
from dialog.dataset import write_parquet
os.chdir({str(tmp_path)!r})
d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='yo'); d.save('src/a.ipynb')
fifo = 'out/msg_type=prompt/part-0.parquet' if {part!r} else {out!r}
os.makedirs(os.path.dirname(fifo) or '.', exist_ok=True); os.mkfifo(fifo)
try: write_parquet('src', {out!r}, partition_by={part!r}, force=True, workers=0); print('replaced')
except FileExistsError as e: print(e)
'''
    # (the timeout only ends a hang, which is the failure: a refusal takes milliseconds)
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(root)))
    want = 'out holds msg_type=prompt/part-0.parquet, a named pipe' if part else 'x.parquet is a named pipe'
    assert r.stdout.startswith(want) and 'nothing was replaced' in r.stdout, (r.stdout, r.stderr[-2000:])

@pytest.mark.parametrize('exc', [KeyboardInterrupt, SystemExit, OSError])
def test_an_interrupted_folder_swap_puts_the_old_export_back(tmp_path, monkeypatch, exc):
    "Ctrl-C or SIGTERM (or a failure) between setting the old folder aside and renaming the new one in: the old export is back, nothing beside it"
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='yo'); d.save('src/a.ipynb')
    write_parquet('src', 'p', workers=0, partition_by='msg_type')
    before = {str(p): p.read_bytes() for p in Path('p').rglob('*') if p.is_file()}
    real = os.rename
    def rename(src, dst, *a, **k):
        if os.path.basename(str(dst))=='p' and str(src).endswith('.tmp'): raise exc()
        return real(src, dst, *a, **k)
    monkeypatch.setattr(os, 'rename', rename)
    with pytest.raises(exc): write_parquet('src', 'p', workers=0, partition_by='msg_type', force=True)
    monkeypatch.setattr(os, 'rename', real)
    assert {str(p): p.read_bytes() for p in Path('p').rglob('*') if p.is_file()} == before
    assert sorted(os.listdir()) == ['p', 'src']

def test_force_reads_a_bounded_first_line(tmp_path, monkeypatch):
    "r34a: force read a file's whole first line to tell whether an export wrote it: a 3 GB file without line breaks took 3 GB and a MemoryError. At most `_first_max` bytes are read; a longer first line is none we can tell ours: refused, the file kept"
    import dialog.dataset as dd
    monkeypatch.chdir(tmp_path)
    d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='hello'); d.save('src/a.ipynb')
    ours = paths2jsonl('src', 'ours.jsonl', workers=0).read_text()
    paths2jsonl('src', 'ours.jsonl', workers=0, force=True)  # a previous export whose first line fits: replaced
    monkeypatch.setattr(dd, '_first_max', len(ours)//2)  # the same export, its first line now past what is read
    with pytest.raises(FileExistsError, match=r'^ours.jsonl is a file no export writes'): paths2jsonl('src', 'ours.jsonl', workers=0, force=True)
    assert Path('ours.jsonl').read_text() == ours

"dialog.dataset on Ray Data: a local Ray with 2 workers reads 1,000 generated dialogs into exactly the serial table"
import os
from pathlib import Path
import pytest
from dialog.dataset import dlgs2table, ray_read, msg_schema, msg_cols, dlg_paths
from dataset import mk_folder  # bench/dataset.py's generator

ray = pytest.importorskip('ray', reason='Ray is not installed: pip install "nbdialog[ray]"')
pa = pytest.importorskip('pyarrow')
root = Path(__file__).parent.parent
order = [('path', 'ascending'), ('pos', 'ascending')]

@pytest.fixture(scope='module')
def local_ray():
    "A local Ray instance of 2 worker CPUs, whose workers import this checkout's `dialog`"
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200*1024**2, log_to_driver=False,
             runtime_env={'env_vars': {'PYTHONPATH': os.pathsep.join([str(root), str(root/'bench')])}})
    yield ray
    ray.shutdown()

@pytest.mark.slow
def test_ray_read_equals_the_serial_table(local_ray, tmp_path_factory):
    "1,000 dialogs of 50 messages: the rows Ray's 2 workers make equal the serial table's, schema metadata and all"
    f = mk_folder(tmp_path_factory.mktemp('ray')/'dlgs', 1000)
    ds = ray_read(f, override_num_blocks=8)
    t = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    assert t.schema.equals(msg_schema(), check_metadata=True)
    serial = dlgs2table(f, workers=0)
    assert serial.num_rows == 50_000
    assert t.sort_by(order).equals(serial.sort_by(order))

@pytest.mark.slow
def test_ray_read_raises_naming_a_bad_file(local_ray, tmp_path):
    "A file the parser refuses fails the read, naming the file"
    f = mk_folder(tmp_path/'dlgs', 3)
    (f/'bad.ipynb').write_text('{"cells": [')
    with pytest.raises(Exception, match=r'bad\.ipynb: not JSON'): ray_read(f).materialize()

import json, re, warnings
from dialog.ipynb import DialogFormatError

@pytest.fixture
def broken(tmp_path):
    "Five good dialogs, a file cut short and one whose cell has a source of the wrong type"
    f = mk_folder(tmp_path/'dlgs', 5)
    (f/'cut.ipynb').write_text((f/'d000000.ipynb').read_text()[:200])
    nb = json.loads((f/'d000001.ipynb').read_text())
    nb['cells'][2]['source'] = 5
    (f/'typed.ipynb').write_text(json.dumps(nb))
    return f

def _serial(f, on_error):
    "The serial table (and errors) of folder `f`, as `dlgs2table` gives them"
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return dlgs2table(f, workers=0, on_error=on_error)

def _rows(ds): return pa.concat_tables([msg_schema().empty_table(), *ray.get(ds.to_arrow_refs())])

@pytest.mark.slow
@pytest.mark.parametrize('bad,msg', [('cut.ipynb', r'cut\.ipynb: not JSON, or cut short'), ('typed.ipynb', r'typed\.ipynb: cell 2 \(id \w+\): source must be a string')])
def test_ray_read_raise_names_each_kind_of_bad_file(local_ray, broken, bad, msg):
    "'raise' (the default): the dataset fails when computed, with the DialogFormatError naming the file"
    for f in broken.glob('*.ipynb'):
        if f.name in ('cut.ipynb', 'typed.ipynb') and f.name != bad: f.unlink()
    ds = ray_read(broken, on_error='raise')  # lazy: nothing read yet
    with pytest.raises(Exception, match=msg): ds.materialize()  # our message, naming the file, inside whatever Ray wraps it in

@pytest.mark.slow
def test_ray_read_skip_gives_the_serial_rows(local_ray, broken):
    "'skip': the bad files' rows are left out, the others are the serial `dlgs2table(on_error='skip')` rows, schema and all"
    t = _rows(ray_read(broken, on_error='skip', override_num_blocks=3))
    serial = _serial(broken, 'skip')
    assert serial.num_rows == 5*50 and t.schema.equals(msg_schema(), check_metadata=True)
    assert t.sort_by(order).equals(serial.sort_by(order))

@pytest.mark.slow
def test_ray_read_collect_gives_the_rows_and_the_errors(local_ray, broken):
    "'collect': `(dataset, errors)`, the rows exactly `msg_schema` and the serial ones, the errors the serial `DialogFormatError`s"
    ds,errs = ray_read(broken, on_error='collect', override_num_blocks=3)
    assert ds.schema().names == list(msg_cols)
    t = _rows(ds)
    serial,serrs = _serial(broken, 'collect')
    assert t.schema.equals(msg_schema(), check_metadata=True) and t.sort_by(order).equals(serial.sort_by(order))
    assert all(isinstance(e, DialogFormatError) for e in errs)
    assert [Path(e.fname).name for e in errs] == ['cut.ipynb', 'typed.ipynb'] and [str(e) for e in errs] == [str(e) for e in serrs]
    assert _rows(ray_read(broken/'d000002.ipynb', on_error='collect')[0]).num_rows == 50

def test_ray_read_checks_on_error_first():
    with pytest.raises(ValueError, match="on_error must be 'raise', 'skip' or 'collect'"): ray_read('.', on_error='ignore')

@pytest.mark.slow
@pytest.mark.parametrize('on_error', ['raise', 'skip', 'collect'])
def test_ray_read_of_no_files_is_an_empty_table(local_ray, tmp_path, on_error):
    "A folder with no dialogs gives no rows, as the serial readers do (Ray itself refuses an empty list of paths)"
    (tmp_path/'empty').mkdir()
    res = ray_read(tmp_path/'empty', on_error=on_error)
    ds,errs = res if on_error=='collect' else (res, [])
    t = _rows(ds)
    assert t.num_rows == 0 and t.schema.equals(msg_schema()) and list(errs) == []
    assert t.equals(dlgs2table(tmp_path/'empty', workers=0))

@pytest.mark.slow
def test_ray_read_searches_a_folder_named_like_a_dialog(local_ray, tmp_path):
    "A folder called `x.ipynb` is searched like any folder, not read as a file, by Ray and by the serial readers alike"
    f = mk_folder(tmp_path/'dlgs', 2)
    mk_folder(f/'x.ipynb', 5, start=2)
    (f/'x.ipynb'/'notes.txt').write_text('not a dialog')
    t = _rows(ray_read(f))
    assert t.num_rows == 5*50 and t.sort_by(order).equals(dlgs2table(f, workers=0).sort_by(order))

@pytest.mark.slow
def test_ray_read_of_a_uri_reads_notebooks_only(local_ray, tmp_path):
    "A folder's URI names every file under it; only the notebooks are read, as `dlg_paths` picks them locally"
    f = mk_folder(tmp_path/'dlgs', 3)
    (f/'README.md').write_text('# not a dialog')
    t = _rows(ray_read(f'file://{f}'))
    assert t.num_rows == 3*50 and t.sort_by(order).equals(dlgs2table(f, workers=0).sort_by(order))

def _tree(f):
    "A folder holding what the listing rule decides: underscored names (read), hidden ones and checkpoints (not), a text file, a broken link"
    mk_folder(f, 2)
    mk_folder(f/'_archive', 3, start=2)
    mk_folder(f/'.ipynb_checkpoints', 4, start=3)
    mk_folder(f/'sub'/'.hidden', 5, start=4)
    (f/'d000000.ipynb').rename(f/'_draft.ipynb')
    (f/'.secret.ipynb').write_text((f/'_draft.ipynb').read_text())
    (f/'notes.txt').write_text('not a dialog')
    return f

@pytest.mark.slow
@pytest.mark.parametrize('uri', [False, True])
def test_ray_lists_the_files_the_local_readers_read(local_ray, tmp_path, uri):
    "Ray reads the files `dlg_paths` lists, by our rule, not Ray's: `_draft.ipynb` and `_archive/` are read, checkpoints and hidden files are not"
    f = _tree(tmp_path/'dlgs')
    t = _rows(ray_read(f'file://{f}' if uri else f))
    assert sorted(set(t['path'].to_pylist())) == [str(p.absolute()) for p in dlg_paths(f)]
    assert sorted(Path(p).relative_to(f).as_posix() for p in set(t['path'].to_pylist())) == ['_archive/d000002.ipynb', '_draft.ipynb', 'd000001.ipynb']
    assert t.sort_by(order).equals(dlgs2table(f, workers=0).sort_by(order))

@pytest.mark.slow
def test_ray_collects_a_file_it_cannot_read(local_ray, tmp_path):
    "A file the worker can't open (a link to nowhere) is a bad file under `on_error`, as locally: collected, skipped, or raised naming it; the others are read"
    f = mk_folder(tmp_path/'dlgs', 3)
    (f/'gone.ipynb').symlink_to(tmp_path/'nowhere.ipynb')
    ds,errs = ray_read(f, on_error='collect')
    serial,serrs = _serial(f, 'collect')
    assert _rows(ds).sort_by(order).equals(serial.sort_by(order)) and _rows(ds).num_rows == 3*50
    assert [type(e) for e in errs] == [type(e) for e in serrs] == [FileNotFoundError] and Path(errs[0].filename).name == 'gone.ipynb'
    assert _rows(ray_read(f, on_error='skip')).num_rows == 3*50
    with pytest.raises(Exception, match='gone.ipynb'): ray_read(f).materialize()

def test_a_uri_on_another_filesystem_is_read_through_it(tmp_path):
    "A file on a pyarrow filesystem other than this machine's is read through it, by the same parser, its errors naming the file"
    from pyarrow import fs as pafs
    from dialog.dataset import _files2table
    f = mk_folder(tmp_path/'dlgs', 2)
    (f/'cut.ipynb').write_text('{"cells": [')
    sub = pafs.SubTreeFileSystem(str(f), pafs.LocalFileSystem())
    batch = pa.table({'fs': [0, 0, 0, 0], 'path': ['d000000.ipynb', 'd000001.ipynb', 'cut.ipynb', 'missing.ipynb']})
    both = _files2table(batch, 'collect', (sub,))
    from dialog.dataset import _good_rows, _bad_rows
    import pickle
    assert _good_rows(both).num_rows == 2*50
    errs = [pickle.loads(x) for x in _bad_rows(both)['nbdialog_error'].to_pylist()]
    assert [type(e).__name__ for e in errs] == ['DialogFormatError', 'FileNotFoundError'] and errs[0].fname == 'cut.ipynb' and errs[1].filename == 'missing.ipynb'


def test_a_file_uri_is_listed_as_the_local_readers_list_it(tmp_path):
    "`file://` goes through the local listing: a link to a folder isn't followed (a link back up would repeat every file), a broken link is listed (a bad file)"
    from dialog.dataset import _ray_files
    f = mk_folder(tmp_path/'dlgs', 2)
    os.symlink('..', f/'up'); os.symlink(f/'gone.ipynb', f/'broken.ipynb')
    fss,files = _ray_files(f'file://{f}')
    assert fss == [] and [p for _,p in files] == [str(p.absolute()) for p in dlg_paths(f)]
    assert sorted(Path(p).name for _,p in files) == ['broken.ipynb', 'd000000.ipynb', 'd000001.ipynb']

def test_overlapping_and_mixed_sources_list_each_file_once(tmp_path):
    "A folder and its subfolder, as URIs, paths or a mix, give each file once, in the order named"
    from dialog.dataset import _ray_files
    f = mk_folder(tmp_path/'dlgs', 2); mk_folder(f/'2024', 4, start=2)
    for src in ([f'file://{f}', f'file://{f}/2024'], [str(f), f'file://{f}/2024'], [f'file://{f}/2024', str(f)]):
        _,files = _ray_files(src)
        assert sorted(p for _,p in files) == sorted(str(p.absolute()) for p in dlg_paths(f)) and len(files) == 4

def test_another_filesystem_lists_in_path_order_by_our_rule(tmp_path):
    "Through a pyarrow filesystem that isn't this machine's, the listing skips hidden names and sorts by path parts (`a/y` before `a-x`), as locally"
    from pyarrow import fs as pafs
    from dialog.dataset import _uri_files
    f = tmp_path/'dlgs'
    for p in ('a/y.ipynb', 'a-x.ipynb', '.ipynb_checkpoints/c.ipynb', '_draft.ipynb', 'b/.h.ipynb', 'notes.txt'):
        (f/p).parent.mkdir(parents=True, exist_ok=True); (f/p).write_text('{}')
    sub = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    assert _uri_files(sub, 'dlgs') == ['dlgs/_draft.ipynb', 'dlgs/a/y.ipynb', 'dlgs/a-x.ipynb']
    assert [p.relative_to(f).as_posix() for p in dlg_paths(f)] == ['_draft.ipynb', 'a/y.ipynb', 'a-x.ipynb']

@pytest.mark.slow
def test_ray_read_reads_on_every_cpu_at_once(local_ray, tmp_path):
    "On 2 CPUs, the two blocks of files are read at the same time: Ray Data's per-operator reservation ran one at a time"
    import time
    f = mk_folder(tmp_path/'dlgs', 400)
    t0 = time.time()*1e6  # the timeline's clock: microseconds since the epoch
    ray_read(f, override_num_blocks=2).materialize()
    assert ray.data.DataContext.get_current().op_resource_reservation_enabled  # the session's setting is left alone
    time.sleep(1)  # the timeline's events reach it shortly after the tasks end
    spans = sorted((e['ts'], e['ts']+e['dur']) for e in ray.timeline()
                   if e.get('ph')=='X' and e['ts']>=t0 and e.get('cat')=='task::MapBatches(_files2table)')
    assert len(spans) == 2
    (a0,a1),(b0,b1) = spans
    assert b0 < a1, f'the second task started {(b0-a1)/1e6:.2f} s after the first ended'

def _latin1(tmp_path):
    "A folder of a good notebook, one named in Latin-1 (`caf\\xe9.ipynb`: bytes that aren't UTF-8) and a broken one named so too"
    from dialog.core import Dialog
    f = tmp_path/'talks'; f.mkdir()
    d = Dialog('x'); d.mk_message('hi', msg_type='prompt', output='yo')
    d.save(f/'a.ipynb'); d.save(os.fsdecode(os.fsencode(f) + b'/caf\xe9.ipynb'))
    Path(os.fsdecode(os.fsencode(f) + b'/na\xefve.ipynb')).write_text('{"cells": [')
    return f

@pytest.mark.parametrize('on_error', ['raise', 'skip', 'collect'])
def test_a_file_name_that_is_not_utf8_is_read_as_the_local_readers_read_it(tmp_path, on_error):
    "The file list Ray is sent carries each name as bytes: a Latin-1 name is read (or is a bad file, named) as by `dlgs2table`, under every `on_error`"
    from dialog.dataset import _ray_files, _file_list, _files2table, _good_rows, _bad_rows
    import pickle
    f = _latin1(tmp_path)
    _,files = _ray_files(f)
    assert len(files) == 3
    batch = _file_list(files)
    if on_error == 'raise':
        with pytest.raises(DialogFormatError, match=r"ve\.ipynb'?: not JSON"): _files2table(batch)
        return
    serial = _serial(f, on_error)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t = _files2table(batch, on_error)
    if on_error == 'collect':
        t,errs = _good_rows(t),[pickle.loads(x) for x in _bad_rows(t)['nbdialog_error'].to_pylist()]
        serial,serrs = serial
        assert [str(e) for e in errs] == [str(e) for e in serrs] and os.fsencode(errs[0].fname).endswith(b'/na\xefve.ipynb')
    assert t.num_rows == 2 and t.sort_by(order).equals(serial.sort_by(order))

@pytest.mark.slow
def test_ray_read_reads_a_file_name_that_is_not_utf8(local_ray, tmp_path):
    "End to end on Ray: the Latin-1 name's rows are the serial ones; the broken one is collected, skipped, or raised naming it"
    f = _latin1(tmp_path)
    ds,errs = ray_read(f, on_error='collect')
    serial,serrs = _serial(f, 'collect')
    assert _rows(ds).sort_by(order).equals(serial.sort_by(order)) and [str(e) for e in errs] == [str(e) for e in serrs]
    assert _rows(ray_read(f, on_error='skip')).sort_by(order).equals(serial.sort_by(order))
    with pytest.raises(Exception, match=r"ve\.ipynb'?: not JSON"): ray_read(f).materialize()

def _surrogate_id(tmp_path):
    "A folder of a good notebook and a broken one whose cell id is a lone surrogate (`\"\\udc80\"`: valid JSON, an invalid id)"
    from dialog.core import Dialog
    f = tmp_path/'talks'; f.mkdir()
    d = Dialog('x'); d.mk_message('hi', msg_type='prompt', output='yo'); d.save(f/'a.ipynb')
    nb = {"cells": [{"cell_type": "markdown", "source": "x", "metadata": {}, "id": "ID"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (f/'b.ipynb').write_text(json.dumps(nb).replace('"ID"', '"\\udc80"'))
    return f

def _utf8(s): return s.encode('utf-8').decode('utf-8')==s

@pytest.mark.parametrize('on_error', ['raise', 'skip', 'collect'])
def test_a_bad_files_error_holding_a_lone_surrogate_is_spelled_as_a_worker_can_log_it(tmp_path, on_error):
    "Every text a worker raises or warns is escaped, the whole message (a cell id `\\udc80`, not only the file's name): raise names the file, skip skips it, collect collects it, as the local readers do"
    from dialog.dataset import _ray_files, _file_list, _files2table, _good_rows, _bad_rows, _esc_err
    import pickle
    f = _surrogate_id(tmp_path)
    batch = _file_list(_ray_files(f)[1])
    if on_error == 'raise':
        with pytest.raises(DialogFormatError, match=r"b\.ipynb: cell 0 \(id '\\udc80'\): ") as ei: _files2table(batch)
        assert _utf8(str(ei.value)) and str(ei.value.fname).endswith('b.ipynb') and ei.value.idx == 0
        return
    serial = _serial(f, on_error)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        t = _files2table(batch, on_error)
    assert all(_utf8(str(w.message)) for w in ws) and len(ws) == (on_error=='skip')
    if on_error == 'collect':
        t,errs = _good_rows(t),[pickle.loads(x) for x in _bad_rows(t)['nbdialog_error'].to_pylist()]
        serial,serrs = serial
        assert [str(e) for e in errs] == [str(e) for e in serrs] and errs[0].cell_id == '\udc80'  # the error itself, as the local readers give it
    assert t.num_rows == 1 and t.sort_by(order).equals(serial.sort_by(order))

def test_esc_err_escapes_every_text_and_keeps_what_is_none():
    "`_esc_err`: one rule for the whole message; None stays None, the type and `repairable` are kept, a clean error is itself"
    from dialog.dataset import _esc_err
    e = DialogFormatError('bad \udc81', 'd\udc82.ipynb', 3, 'i\udc80'); e.repairable = True
    r = _esc_err(e)
    assert type(r) is DialogFormatError and r.repairable and _utf8(str(r))
    assert (r.problem, r.fname, r.idx, r.cell_id) == ('bad \\udc81', 'd\\udc82.ipynb', 3, 'i\\udc80')
    r = _esc_err(DialogFormatError('bad \udc81'))
    assert r.fname is None and r.idx is None and str(r) == 'bad \\udc81'
    r = _esc_err(PermissionError(13, 'Permission denied \udc83', None))
    assert type(r) is PermissionError and r.filename is None and _utf8(str(r))
    assert _esc_err(e := FileNotFoundError(2, 'No such file', 'caf\udce9.ipynb')) is e  # its message spells the name by repr
    assert _esc_err(e := DialogFormatError('fine', 'a.ipynb')) is e

@pytest.mark.slow
def test_ray_read_of_a_bad_file_whose_error_holds_a_lone_surrogate(local_ray, tmp_path):
    "End to end on Ray: 'skip' gives the good file's rows, 'collect' the rows and the error, 'raise' the error naming the file (before: the worker died on logging it, and Ray retried it without end)"
    import threading
    f = _surrogate_id(tmp_path)
    res = {}
    def run():
        try: ray_read(f).materialize()
        except Exception as e: res['e'] = str(e)
    t = threading.Thread(target=run, daemon=True); t.start(); t.join(300)  # a guard against the endless retries, not a timing
    assert 'e' in res and re.search(r"b\.ipynb: cell 0 \(id '\\udc80'\)", res['e'])
    assert _rows(ray_read(f, on_error='skip')).num_rows == 1
    ds,errs = ray_read(f, on_error='collect')
    assert _rows(ds).num_rows == 1 and [Path(e.fname).name for e in errs] == ['b.ipynb']

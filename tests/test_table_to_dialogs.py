"`table2dlgs`: the dialogs back from a message table, in this process or several, object for object the same; one grouping rule (`_dlg_starts`) says where each dialog starts"
import json
import pyarrow as pa, pyarrow.compute as pc
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.ipynb import read_ipynb, write_ipynb, DialogFormatError
from dialog.dataset import dlgs2table, table2dlgs, dlg_paths, _dlg_starts
from dataset import mk_folder  # bench/dataset.py's generator
from test_dataset import NoteDlg, _state

@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    f = tmp_path_factory.mktemp('t2d')
    mk_folder(f, 90)
    Dialog('empty').save(f/'empty.ipynb')
    return f

def test_several_processes_give_the_serial_dialogs_object_for_object(folder):
    t = dlgs2table(folder, workers=0)
    for cls in (Dialog, NoteDlg):
        want,got = table2dlgs(t, cls=cls, workers=0),table2dlgs(t, cls=cls, workers=2)
        assert len(got) == 91 and [_state(d) for d in got] == [_state(d) for d in want]
        assert all(type(m) is cls.msg_cls and m.dlg is d for d in got for m in d.messages)
    assert [write_ipynb(d) for d in got] == [write_ipynb(read_ipynb(p)) for p in dlg_paths(folder)]

def test_a_bad_cell_is_named_whichever_process_meets_it(folder):
    t = dlgs2table(folder, workers=0)
    cells = t['cell'].to_pylist()
    k = len(cells)-10 # a late row: the other process, or this one from the back
    c = json.loads(cells[k]); c['source'] = 5; cells[k] = json.dumps(c)
    bad = t.set_column(t.column_names.index('cell'), 'cell', pa.array(cells))
    for w in (0, 2):
        with pytest.raises(DialogFormatError, match=r'd000089\.ipynb: cell \d+ \(id \w+\): source must be a string'): table2dlgs(bad, workers=w)

def _starts_by_rows(t):
    "Where dialogs start, row by row: the rule `_dlg_starts` computes in columns"
    res,prev = [],None
    for k,(n,p,i) in enumerate(zip(t['name'].to_pylist(), t['path'].to_pylist(), t['pos'].to_pylist())):
        if prev is None or (n,p)!=prev[:2] or i is None or prev[2] is None or i<=prev[2]: res.append(k)
        prev = (n,p,i)
    return res+[t.num_rows]

rows = st.lists(st.tuples(st.sampled_from(['a', 'b']), st.sampled_from([None, 'x.ipynb', 'y.ipynb']), st.none() | st.integers(0, 4)), max_size=30)
@settings(max_examples=300, deadline=None)
@given(rows)
def test_one_grouping_rule(rs):
    "A new dialog at a new name or path (null equal to null), at a row without `pos`, after one, or where `pos` doesn't go up"
    t = pa.table({'name': [r[0] for r in rs], 'path': pa.array([r[1] for r in rs], pa.string()), 'pos': pa.array([r[2] for r in rs], pa.int32())})
    assert _dlg_starts(t) == _starts_by_rows(t)

def test_subsets_and_orders_group_as_before(folder):
    t = dlgs2table(folder, workers=0)
    kept = table2dlgs(t.filter(pc.equal(t['msg_type'], 'prompt')), workers=2)
    assert len(kept) == 90 and all(m.msg_type == 'prompt' for d in kept for m in d.messages)
    rev = t.sort_by([('path', 'descending'), ('pos', 'ascending')])
    assert [d.name for d in table2dlgs(rev, workers=2)] == [d.name for d in table2dlgs(t, workers=0)][::-1]
    assert table2dlgs(t.slice(0, 0)) == []

from dialog.dataset import _cell_json
jsons = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c), max_leaves=8)
@settings(max_examples=400, deadline=None)
@given(st.one_of(jsons.map(json.dumps), jsons.map(lambda v: ' '+json.dumps(v)+'\n'), st.text(max_size=20), jsons.map(lambda v: json.dumps(v)+'x')))
def test_cell_json_is_json_loads(txt):
    "The scanner called directly gives what `json.loads` gives, value or error"
    try: want = ('ok', json.loads(txt))
    except ValueError as e: want = ('error', str(e))
    try: got = ('ok', _cell_json(txt))
    except ValueError as e: got = ('error', str(e))
    assert got == want

def test_the_columns_it_reads_are_enough(folder, tmp_path):
    "A table of `dlg_cols` alone (what `read_parquet(f, columns=dlg_cols)` reads, in a fraction of the time) gives the same dialogs; without one of them, the error names it"
    from dialog.dataset import dlg_cols, write_parquet, read_parquet
    p = write_parquet(folder, tmp_path/'t.parquet', workers=0)
    lean = read_parquet(p, columns=dlg_cols)
    assert lean.column_names == dlg_cols
    for w in (0, 2): assert [write_ipynb(d) for d in table2dlgs(lean, workers=w)] == [write_ipynb(read_ipynb(f)) for f in dlg_paths(folder)]
    with pytest.raises(ValueError, match=r"lacks columns \['cell'\]"): table2dlgs(lean.drop_columns(['cell']))
    bad = lean.set_column(dlg_cols.index('pos'), 'pos', pc.cast(lean['pos'], pa.string()))
    with pytest.raises(ValueError, match="column 'pos' holds string"): table2dlgs(bad)

def _full(d):
    return (type(d), {k:v for k,v in vars(d).items() if k!='_messages'}, d.messages.items.ver,
            [(type(m), [(k,v) for k,v in vars(m).items() if k!='_dlg'], m.dlg is d) for m in d.messages])

def test_a_tables_dialogs_are_what_from_cells_makes(folder):
    "Each dialog, made here from its parts (or in another process), is what `Dialog.from_cells` makes of its rows' cells: every attribute, in order"
    t = dlgs2table(folder, workers=0)
    cells,names,metas = t['cell'].to_pylist(),t['name'].to_pylist(),t['dlg_meta'].to_pylist()
    starts = _dlg_starts(t)
    want = [Dialog.from_cells([json.loads(c) for c in cells[s:e] if c is not None], name=names[s], meta=json.loads(metas[s]))
            for s,e in zip(starts, starts[1:])]
    for w in (0, 2): assert [_full(d) for d in table2dlgs(t, workers=w)] == [_full(d) for d in want]

def test_other_engines_frames_are_taken(folder):
    "A query's result in pandas, Polars or DuckDB goes back to dialogs as it is (the Arrow table each gives), the same as the pyarrow table's; anything else is a TypeError saying what is taken"
    pd, pl, duckdb = (pytest.importorskip(m) for m in ('pandas', 'polars', 'duckdb'))
    t = dlgs2table(folder, workers=0)
    want = [write_ipynb(d) for d in table2dlgs(t, workers=0)]
    for f in (t.to_pandas(), pl.from_arrow(t), duckdb.sql('select * from t')):
        assert [write_ipynb(d) for d in table2dlgs(f, workers=0)] == want, type(f)
    for bad in ([{'name': 'a'}], t.to_pylist()[0]):
        with pytest.raises(TypeError, match=r'the table must be a pyarrow Table, or a frame that gives one \(a pandas or Polars DataFrame, a DuckDB relation\), not (list|dict)'): table2dlgs(bad)

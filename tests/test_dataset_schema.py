"The message table's schema is checked by names and types and by version: tables DuckDB and pandas wrote back from ours are taken (cast where no value changes), a text `pos`, a lossy cast or an unknown schema version are refused"
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
import pytest
from dialog.core import *
from dialog.dataset import write_parquet, read_parquet, table2dlgs, dlgs2table, chk_msg_table, msg_schema, schema_version
from malformed_cases import malformed, kinds

@pytest.fixture
def ours(tmp_path):
    d = Dialog('twelve')
    for i in range(12): d.mk_message(f'x{i}')
    return write_parquet([d, Dialog('empty')], tmp_path/'ours.parquet', workers=0)

def counts(t): return [len(d.messages) for d in table2dlgs(t)]

def test_written_back_by_duckdb_and_pandas(ours, tmp_path):
    import duckdb, pandas as pd
    duckdb.sql(f"COPY (SELECT * FROM '{ours}') TO '{tmp_path/'duck.parquet'}' (FORMAT parquet)") # its fields come back NOT NULL
    pd.read_parquet(ours).to_parquet(tmp_path/'pandas.parquet') # pos, with a null for the empty dialog, comes back as float64
    ts = [read_parquet(ours), read_parquet(tmp_path/'duck.parquet'), read_parquet(tmp_path/'pandas.parquet')]
    assert all(t.schema.equals(msg_schema()) or t.select(list(msg_schema().names)).schema.equals(msg_schema()) for t in ts)
    both = pa.concat_tables([t.select(msg_schema().names) for t in ts])
    assert both.num_rows==39 and counts(ts[1])==counts(ts[2])==[12, 0]

def test_columns_duckdb_typed_as_json_are_taken_as_their_text(ours, tmp_path):
    "DuckDB's `::JSON` columns (pyarrow's `arrow.json` extension over the same text) cast back to string unchanged; the dialogs come back byte for byte (r24b)"
    import duckdb
    from dialog.ipynb import write_ipynb
    out = tmp_path/'json.parquet'
    duckdb.sql(f"COPY (SELECT * REPLACE (cell::JSON AS cell, meta::JSON AS meta, dlg_meta::JSON AS dlg_meta) "
               f"FROM '{ours}' ORDER BY path, pos) TO '{out}' (FORMAT parquet)")
    t = read_parquet(out)
    assert t.schema.equals(msg_schema()) and t.equals(read_parquet(ours))
    assert [write_ipynb(d) for d in table2dlgs(t)]==[write_ipynb(d) for d in table2dlgs(read_parquet(ours))]
    j = pa.ExtensionArray.from_storage(pa.json_(), pa.array(['{"a": 1}']*t.num_rows))  # made directly too
    assert chk_msg_table(t.set_column(t.column_names.index('cell'), 'cell', j))['cell'].to_pylist()==['{"a": 1}']*t.num_rows
    # JSON text is no number: a JSON `pos` is refused, naming the column and its type
    with pytest.raises(ValueError, match=r"column 'pos' holds extension<arrow.json>, where a message table has int32"):
        chk_msg_table(t.set_column(t.column_names.index('pos'), 'pos', j))

def test_a_text_pos_is_refused_not_split(ours):
    t = read_parquet(ours)
    bad = t.set_column(t.column_names.index('pos'), 'pos', pc.cast(t['pos'], pa.string())) # '10' < '9': 12 messages would split into 10 + 2
    with pytest.raises(ValueError, match="column 'pos' holds string, where a message table has int32"): table2dlgs(bad)

@pytest.mark.parametrize('col,arr,msg', [('pos', lambda n: pa.array([0.5]*n), 'truncated'), ('n_images', lambda n: pa.array([2**40]*n), 'not in range'),
                                         ('has_error', lambda n: pa.array(['yes']*n), 'holds string')])
def test_a_cast_that_changes_values_is_refused(ours, col, arr, msg):
    t = read_parquet(ours)
    with pytest.raises(ValueError, match=msg): chk_msg_table(t.set_column(t.column_names.index(col), col, arr(t.num_rows)))

def test_an_unknown_schema_version_is_refused(ours, tmp_path):
    pq.write_table(read_parquet(ours).replace_schema_metadata({b'nbdialog.schema': b'99'}), tmp_path/'v99.parquet')
    with pytest.raises(ValueError, match="schema '99', and this version of dialog reads schemas 1, 2"): read_parquet(tmp_path/'v99.parquet')

def test_our_own_tables_pass_unchanged(ours):
    t = dlgs2table(table2dlgs(read_parquet(ours)))
    assert chk_msg_table(t).equals(t) and chk_msg_table(t).schema.metadata==t.schema.metadata=={b'nbdialog.schema': schema_version.encode()}

def test_a_version_1_table_reads(ours, tmp_path):
    "Schema 1 had the notebook metadata on every row: such a file reads as today's, and gives the same dialogs"
    t = read_parquet(ours)
    first = pc.fill_null(t['dlg_meta'], '{"kernelspec": {"name": "python3", "display_name": "Python 3"}}') # a value on every row
    pq.write_table(t.set_column(t.column_names.index('dlg_meta'), 'dlg_meta', first).replace_schema_metadata({b'nbdialog.schema': b'1'}), tmp_path/'v1.parquet')
    v1 = read_parquet(tmp_path/'v1.parquet')
    assert v1.schema.metadata=={b'nbdialog.schema': b'2'} and [len(d.messages) for d in table2dlgs(v1)]==[12, 0]

def test_metadata_once_per_dialog(tmp_path):
    "A dialog with megabytes of notebook metadata (pasted screenshots, widget state) has it on one row, not on each"
    d = Dialog('heavy', meta=dict(widgets={'state': 'x'*1_000_000}))
    for i in range(50): d.mk_message(f'x{i}')
    t = dlgs2table([d])
    assert t['dlg_meta'].null_count==49 and t.nbytes < 2_000_000
    back, = table2dlgs(t)
    assert back.meta['widgets']['state']=='x'*1_000_000
    sub, = table2dlgs(t.slice(10)) # a subset without the first row: no notebook metadata, the messages still there
    assert len(sub.messages)==40 and 'widgets' not in sub.meta

def test_written_back_by_polars(ours, tmp_path):
    "Polars writes large strings and its own metadata: the table still reads, concatenates with ours and gives the same dialogs"
    import polars as pl
    pl.read_parquet(ours).filter(pl.col('name')=='twelve').write_parquet(tmp_path/'polars.parquet')
    t = read_parquet(tmp_path/'polars.parquet')
    assert t.schema.equals(msg_schema())
    assert pa.concat_tables([read_parquet(ours), t]).num_rows == 25 and counts(t) == [12]


@pytest.mark.parametrize('kind', kinds + ['c:data', 'c:tb', 'n:att', 'c:att'])
def test_dlgs2table_names_a_malformed_message(kind):
    pytest.importorskip('pyarrow')
    from dialog.dataset import dlgs2table
    d,m = malformed(kind)
    if kind=='c:data': m.output = [dict(output_type='display_data', data={'text/plain': 5}, metadata={})]
    if kind.endswith(':att'): m.attachments = ['x']
    if kind=='c:tb': m.output = [dict(output_type='error', ename='E', evalue='v', traceback=5)]
    with pytest.raises(ValueError, match="dialog 'd': message 'bad1'"): dlgs2table([d])

def test_a_row_without_a_name_is_refused():
    "A null `name` is no dialog's: `table2dlgs` says which row, rather than make a dialog named None"
    import pyarrow.compute as pc
    from dialog.core import Dialog
    d = Dialog('a'); d.mk_message('hi', msg_type='note'); d.mk_message('1+1')
    t = dlgs2table([d])
    t = t.set_column(0, 'name', pa.array(['a', None], pa.string()))
    with pytest.raises(ValueError, match=r"row 1 has no name \(null\)"): table2dlgs(t)

def _with_txt(t, col, i, v):
    "Table `t` with row `i`'s text in column `col` replaced by `v`, as another engine's edit leaves it"
    vs = t[col].to_pylist(); vs[i] = v
    return t.set_column(t.column_names.index(col), col, pa.array(vs, pa.string()))

def _talks():
    "40 dialogs of 4 messages and an empty one: with workers=2, the first 16 go to the other process"
    ds = []
    for k in range(40):
        d = Dialog(f'd{k}')
        for i in range(4): d.mk_message(f'message {i}', msg_type='prompt', output=f'reply {i}')
        ds.append(d)
    return dlgs2table([*ds, Dialog('empty')])

@pytest.mark.parametrize('workers', [0, 2])
def test_a_message_row_without_a_cell_is_refused_not_dropped(workers):
    "A null `cell` on a row with a position (an UPDATE, a join that found no match) names the dialog, its cell and the row; the empty dialog's row keeps its null"
    t = _talks()
    assert t['cell'].null_count==1 and [len(d.messages) for d in table2dlgs(t, workers=workers)]==[4]*40 + [0]
    with pytest.raises(ValueError, match=r"^d1: cell 2: column 'cell' is null: .* \(the table's row 6\)$"):
        table2dlgs(_with_txt(t, 'cell', 6, None), workers=workers)

@pytest.mark.parametrize('workers', [0, 2])
@pytest.mark.parametrize('col,row,msg', [('cell', 5, r"^d1: cell 1: column 'cell' is not JSON, or cut short: Expecting .* \(the table's row 5\)$"),
                                         ('dlg_meta', 4, r"^d1: column 'dlg_meta' is not JSON, or cut short: Expecting .* \(the table's row 4\)$")])
def test_text_that_is_not_json_names_the_dialog_row_and_column(workers, col, row, msg):
    "A `cell` or `dlg_meta` cut short by another tool: a `DialogFormatError` saying which column of which row, in which dialog"
    from dialog.ipynb import DialogFormatError
    t = _talks()
    bad = _with_txt(t, col, row, t[col][row].as_py()[:20] if col=='cell' else '{"kernelspec": {')
    with pytest.raises(DialogFormatError, match=msg): table2dlgs(bad, workers=workers)

def test_a_cell_that_is_no_object_names_the_row_too():
    t = _talks()
    with pytest.raises(ValueError, match=r"^d2: cell 3: cell must be an object, not list \(the table's row 11\)$"): table2dlgs(_with_txt(t, 'cell', 11, '[1]'))

@pytest.mark.parametrize('where', ['msg_type=prompt/part-1.parquet', 'msg_type=code/a.parquet', 'msg_type=tool/x.parquet'])
def test_an_unknown_schema_version_anywhere_in_a_folder_is_refused_by_name(tmp_path, where):
    "Another version's file added to a partitioned export (an append, a new partition) is refused naming it, whether it sorts first or not"
    d = Dialog('d'); d.mk_message('x = 1'); d.mk_message('hi', msg_type='prompt', output='yo')
    p = write_parquet([d, Dialog('empty')], tmp_path/'by', workers=0, partition_by='msg_type')
    (p/where).parent.mkdir(exist_ok=True)
    pq.write_table(dlgs2table([d]).slice(0, 1).drop_columns(['msg_type']).replace_schema_metadata({'nbdialog.schema': '99'}), p/where)
    with pytest.raises(ValueError, match=rf"by/{where} holds a message table of schema '99', and this version of dialog reads schemas 1, 2"):
        read_parquet(p)

def test_a_pandas_subset_written_back_concatenates_with_ours(ours, tmp_path):
    "pandas keeps a subset's row labels as `__index_level_0__` (a sort or an index of one of ours, `id`, moves columns): they go, and the table is ours again"
    import pandas as pd
    df = pd.read_parquet(ours)
    df[df.pos.isin([1, 2, 7])].to_parquet(tmp_path/'sub.parquet')  # rows 1, 2, 7: labels pandas writes as a column
    df.sort_values('pos', ascending=False).set_index('id').to_parquet(tmp_path/'by_id.parquet')  # `id` stored last
    assert '__index_level_0__' in pq.read_schema(tmp_path/'sub.parquet').names
    for f,n in (('sub.parquet', 3), ('by_id.parquet', 13)):
        t = read_parquet(tmp_path/f)
        assert t.column_names==msg_schema().names and t.num_rows==n
        assert pa.concat_tables([read_parquet(ours), t]).num_rows==13+n
    assert chk_msg_table(df[df.pos.isin([1, 2, 7])]).column_names==msg_schema().names  # the frame itself, as it is
    assert [m.content for m in table2dlgs(read_parquet(tmp_path/'sub.parquet'))[0].messages]==['x1', 'x2', 'x7']

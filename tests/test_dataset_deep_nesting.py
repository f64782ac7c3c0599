"A dialog nested almost as deep as the reader reads is tabulated, exported and read back like any other; a table's cell nested deeper is refused, naming its row (R32a)"
import json, warnings
import pytest
pa = pytest.importorskip('pyarrow')
from dialog.core import Dialog, Message
from dialog.ipynb import read_ipynb, write_ipynb, DialogFormatError
from dialog.dataset import dlgs2table, table2dlgs, write_parquet, read_parquet, paths2jsonl, folder_stats, read_dialogs

def _nb(where, n):
    "A notebook whose output's JSON, cell metadata or notebook metadata (`where`) is nested `n` deep"
    s = '['*n + ']'*n
    out = '{"output_type":"display_data","metadata":{},"data":{"application/json":%s,"text/plain":"x"}}' % (s if where=='out' else '[]')
    cm,nm = ('{"x":%s}' % s if where==w else '{}' for w in ('cell', 'nb'))
    prompt = '{"id":"p","cell_type":"markdown","metadata":{"solveit_ai":true},"source":"hi"}'
    return ('{"nbformat":4,"nbformat_minor":5,"metadata":%s,"cells":[%s,{"id":"b","cell_type":"code","metadata":%s,'
            '"source":"x","execution_count":null,"outputs":[%s]}]}' % (nm, prompt, cm, out))

def _deepest(tmp_path, where):
    "The deepest nesting of `where` the reader reads here (it depends on Python's stack), and that file"
    p = tmp_path/'deep.ipynb'
    for n in range(1000, 900, -1):
        p.write_text(_nb(where, n))
        try: read_ipynb(p); return n,p
        except DialogFormatError: continue
    pytest.fail('the reader reads no file nested 900 deep')

@pytest.mark.parametrize('where', ['out', 'cell', 'nb'])
def test_a_deep_dialog_the_reader_reads_is_exported_and_read_back(tmp_path, where):
    "Every export of a folder holding it takes it (a RecursionError, naming no file, stopped the whole export, even with on_error='skip')"
    folder = tmp_path/'talks'; folder.mkdir()
    n,p = _deepest(folder, where)
    assert n > 950
    for i in range(20): (folder/f'g{i:02}.ipynb').write_text(_nb('none', 1))
    want = write_ipynb(read_ipynb(p))
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # nothing skipped
        for w in (0, 2):
            t = dlgs2table(folder, workers=w)
            assert t.num_rows == 21*2
            back = {d.name: d for d in table2dlgs(t, workers=w)}
            assert write_ipynb(back['deep']) == want
        write_parquet(folder, tmp_path/'x.parquet', workers=0)
        assert write_ipynb(next(d for d in table2dlgs(read_parquet(tmp_path/'x.parquet')) if d.name=='deep')) == want
        paths2jsonl(folder, tmp_path/'x.jsonl', workers=0)
        assert len((tmp_path/'x.jsonl').read_text().splitlines()) == 21
        assert folder_stats(folder) is not None
    assert write_ipynb(next(d for d in read_dialogs(folder, workers=2) if d.name=='deep')) == want

@pytest.mark.parametrize('col,n', [('cell', 1000), ('cell', 100_000), ('dlg_meta', 1000), ('dlg_meta', 100_000)])
def test_a_table_cell_nested_past_any_reader_is_refused_naming_its_row(col, n):
    "As the file reader refuses such a file: a DialogFormatError naming the dialog, its cell and the table's row, not a bare RecursionError"
    t = dlgs2table([Dialog('d', [Message('x', id='a'), Message('y', id='b')])])
    row = 1 if col=='cell' else 0
    vals = t[col].to_pylist()
    vals[row] = '['*n + ']'*n if col=='cell' else '{"x":' + '['*n + ']'*n + '}'
    t = t.set_column(t.column_names.index(col), col, pa.array(vals, t.schema.field(col).type))
    for w in (0, 2):
        with pytest.raises(DialogFormatError, match=rf"^d: {'cell 1: ' if col=='cell' else ''}column '{col}' holds JSON nested too deeply to read \(the table's row {row}\)$"):
            table2dlgs(t, workers=w)

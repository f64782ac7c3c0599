"Every engine reads our Parquet as it is, a partitioned folder holding an empty dialog included (pandas can't read a null in a folder name), and the folder reads back through `read_parquet` as the file does"
import json
import pyarrow as pa, pyarrow.dataset as ds
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.dataset import write_parquet, read_parquet, dlgs2table, table2dlgs, msg_cols
from dialog.ipynb import write_ipynb

few = ['msg_type', 'has_error', 'exported', 'skipped', 'pinned', 'n_images']
order = [('path', 'ascending'), ('name', 'ascending'), ('pos', 'ascending')]

def _dialogs():
    a = Dialog('a'); a.mk_message('q', msg_type='prompt', output='ans'); a.mk_message('print(1)', msg_type='code', pinned=True)
    b = Dialog('b') # no messages: one row, null wherever a message fills
    c = Dialog('c'); c.mk_message('a note', msg_type='note', skipped=True)
    return [a, b, c]
_made = _dialogs()
def dialogs(): return [d for d in _made] # the same ids each time

@pytest.fixture(params=[['msg_type'], ['has_error', 'n_images'], ['pinned', 'msg_type']], ids='+'.join)
def folder(request, tmp_path):
    return request.param, write_parquet(dialogs(), tmp_path/'parts', workers=0, partition_by=request.param)

def test_pandas_reads_a_partitioned_folder_with_an_empty_dialog(folder):
    import pandas as pd
    cols,p = folder
    df = pd.read_parquet(p)
    assert len(df)==4 and sorted(df['name'])==['a', 'a', 'b', 'c']
    assert set(cols) <= set(df.columns)

def test_polars_duckdb_and_pyarrow_read_it_too(folder):
    import polars as pl, duckdb
    cols,p = folder
    assert pl.read_parquet(f'{p}/**/*.parquet', hive_partitioning=True).height==4
    assert duckdb.sql(f"select count(*) from read_parquet('{p}/**/*.parquet', hive_partitioning=true)").fetchall()[0][0]==4
    assert ds.dataset(p, format='parquet', partitioning='hive').to_table().num_rows==4

def test_hf_datasets_reads_the_file(tmp_path):
    import datasets
    p = write_parquet(dialogs(), tmp_path/'all.parquet', workers=0)
    got = datasets.Dataset.from_parquet(str(p), cache_dir=str(tmp_path/'cache'))
    assert got.num_rows==4 and sorted(got['name'])==['a', 'a', 'b', 'c']

def test_the_folder_reads_back_as_the_file(folder):
    cols,p = folder
    t,want = read_parquet(p).sort_by(order),dlgs2table(dialogs()).sort_by(order)
    assert t.equals(want)
    empty = [r for r in t.to_pylist() if r['name']=='b'][0]
    assert all(empty[c] is None for c in few)
    assert [write_ipynb(d) for d in table2dlgs(t)]==[write_ipynb(d) for d in sorted(dialogs(), key=lambda d: d.name)]

def test_a_column_subset_restores_nulls_too(folder):
    cols,p = folder
    t = read_parquet(p, columns=['name', *cols])
    assert t.column_names==['name', *cols]
    assert {r['name']: tuple(r[c] for c in cols) for r in t.to_pylist()}['b']==(None,)*len(cols)

def test_what_other_readers_see_for_the_empty_dialog(tmp_path):
    import pandas as pd
    p = write_parquet(dialogs(), tmp_path/'parts', workers=0, partition_by=['msg_type', 'has_error'])
    df = pd.read_parquet(p)
    assert df[df['name']=='b'].iloc[0]['msg_type']=='' # the folder's spelling of "no message"
    assert (p/'msg_type='/'has_error=false').is_dir()

msgs = st.lists(st.tuples(st.sampled_from(['note', 'code', 'prompt', 'raw']), st.booleans(), st.booleans()), max_size=3)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(msgs, min_size=1, max_size=4), st.lists(st.sampled_from(few), min_size=1, max_size=3, unique=True))
def test_partitioned_and_plain_tables_agree(tmp_path_factory, specs, cols):
    dlgs = []
    for i,spec in enumerate(specs):
        d = Dialog(f'd{i}')
        for t,pin,skip in spec: d.mk_message('x', msg_type=t, pinned=pin, skipped=skip)
        dlgs.append(d)
    p = write_parquet(dlgs, tmp_path_factory.mktemp('h')/'parts', workers=0, partition_by=cols)
    assert read_parquet(p).sort_by(order).equals(dlgs2table(dlgs).sort_by(order))

@pytest.mark.parametrize('by', ['msg_type', 'pinned', ['msg_type', 'has_error']])
def test_a_folder_polars_partitioned_reads_back(tmp_path, by):
    "Polars keeps the partition column in each file too (a text one as large_string): `read_parquet` takes its type and casts, as for any table written back"
    import polars as pl
    p = write_parquet(dialogs(), tmp_path/'ours.parquet', workers=0)
    pl.read_parquet(p).write_parquet(tmp_path/'by', partition_by=by)
    t = read_parquet(tmp_path/'by').sort_by(order)
    assert t.select(list(msg_cols)).equals(read_parquet(p).sort_by(order))
    assert [write_ipynb(d) for d in table2dlgs(t)]==[write_ipynb(d) for d in sorted(dialogs(), key=lambda d: d.name)]

def test_one_partition_reads_alone_its_column_from_its_path(folder):
    "A partition's folder, or one of its files, reads as its rows of the whole: the partition columns from the path, as DuckDB gives them"
    cols,p = folder
    whole = read_parquet(p).sort_by(order)
    leaves = sorted({f.parent for f in p.rglob('*.parquet')})
    assert leaves and all('=' in f.name for f in leaves)
    for src in (leaves, sorted(p.rglob('*.parquet'))):
        parts = [read_parquet(f) for f in src]
        assert pa.concat_tables(parts).sort_by(order).equals(whole)
    sub = read_parquet(leaves[0], columns=['name', cols[-1]])
    assert sub.column_names == ['name', cols[-1]] and sub.num_rows == read_parquet(leaves[0]).num_rows

def test_a_folder_or_partition_named_by_a_file_uri_reads_as_its_path(folder, tmp_path):
    "A `file://` URI of the whole folder, of a partition's folder at any depth, or of one of its files, reads as the same path given locally (r25b: a folder by URI was read as a file)"
    cols,p = folder
    (tmp_path/'empty').mkdir()
    names = [p, tmp_path/'empty', *sorted({q.parent for q in p.rglob('*.parquet')} | {q for q in p.glob('*') if q.is_dir()}), *sorted(p.rglob('*.parquet'))]
    for q in names:
        assert read_parquet('file://' + str(q)).equals(read_parquet(q)), q
    flt = [(cols[0], '=', read_parquet(p)[cols[0]][0].as_py())]
    assert read_parquet('file://' + str(p), filters=flt).equals(read_parquet(p, filters=flt))

@pytest.mark.parametrize('stray', ['a_fix.parquet', 'zz.parquet', 'extra/x.parquet', 'extra/msg/x.parquet'])
def test_a_file_outside_the_partition_folders_is_refused_by_name(tmp_path, stray):
    "One of our tables copied beside the partitions (or deeper): refused naming it, whatever its name sorts as; never its rows with a null partition column"
    import pyarrow.parquet as pq
    p = write_parquet(dialogs(), tmp_path/'by', workers=0, partition_by=['msg_type'])
    (p/stray).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(dlgs2table(dialogs()[:1]).drop_columns(['msg_type']), p/stray)
    with pytest.raises(ValueError, match=rf"by: {stray} is outside the partition folders its other files are in \(msg_type=\*/\)"): read_parquet(p)
    with pytest.raises(ValueError, match='is outside the partition folders'): read_parquet(p, columns=['name'])
    (p/stray).unlink()
    assert read_parquet(p).sort_by(order).equals(dlgs2table(dialogs()).sort_by(order))

@pytest.mark.parametrize('n', [1, 2, 3])
def test_tables_beside_the_partition_folders_are_the_strays_however_many(tmp_path, n):
    "Whole tables copied to the top of a partitioned export of one partition folder: they are named, never the export's own file, whatever their number"
    import pyarrow.parquet as pq
    d = Dialog('p'); d.mk_message('q', msg_type='prompt', output='ans')
    p = write_parquet([d], tmp_path/'by', workers=0, partition_by=['msg_type'])  # one file, in msg_type=prompt/
    for k in range(n): pq.write_table(dlgs2table(dialogs()), p/f'{"abc"[k]}.parquet')
    more = f' \\(and {n-1} more\\)' if n>1 else ''
    with pytest.raises(ValueError, match=rf"by: a\.parquet{more} is outside the partition folders its other files are in \(msg_type=\*/\)"):
        read_parquet(p)

def test_partition_folders_of_two_layouts_are_both_named(tmp_path):
    "Files under key=value folders of different columns: refused naming each layout and its files, whichever has more"
    import pyarrow.parquet as pq
    p = write_parquet(dialogs(), tmp_path/'by', workers=0, partition_by=['msg_type'])
    (p/'skipped=true').mkdir(); pq.write_table(dlgs2table(dialogs()).drop_columns(['skipped']), p/'skipped=true'/'x.parquet')
    with pytest.raises(ValueError, match=r"by: its files are in partition folders of different columns: msg_type=\*/ \(msg_type=.*\); skipped=\*/ \(skipped=true/x\.parquet\)"):
        read_parquet(p)

@pytest.mark.parametrize('layout', [['jan/x.parquet', 'feb/x.parquet'], ['default/train/0000.parquet', 'default/test/0000.parquet'],
                                    ['x.parquet', 'old/x.parquet']])
def test_plain_subfolders_are_no_partitions(tmp_path, layout):
    "A folder of plain subfolders (an export kept by month, Hugging Face's default/train/): every file's rows, no partition column"
    import pyarrow.parquet as pq
    t = dlgs2table(dialogs())
    for f in layout: (tmp_path/'ex'/f).parent.mkdir(parents=True, exist_ok=True); pq.write_table(t, tmp_path/'ex'/f)
    r = read_parquet(tmp_path/'ex')
    assert r.column_names == list(msg_cols)
    assert r.sort_by(order).equals(pa.concat_tables([t]*len(layout)).sort_by(order))

def test_a_plain_folder_inside_a_partition_is_part_of_it(tmp_path):
    "msg_type=code/sub/x.parquet is in partition msg_type=code: its rows take the type from the path, as pyarrow and DuckDB read it"
    import pyarrow.parquet as pq
    p = write_parquet(dialogs(), tmp_path/'by', workers=0, partition_by=['msg_type'])
    (p/'msg_type=code'/'sub').mkdir(parents=True, exist_ok=True)
    code = dlgs2table(dialogs()).filter(pa.compute.equal(dlgs2table(dialogs())['msg_type'], 'code'))
    pq.write_table(code.drop_columns(['msg_type']), p/'msg_type=code'/'sub'/'x.parquet')
    r = read_parquet(p)
    assert r.num_rows == dlgs2table(dialogs()).num_rows + code.num_rows
    assert r.filter(pa.compute.equal(r['msg_type'], 'code')).num_rows == 2*code.num_rows

def test_a_folder_named_with_tilde_reads_as_named_in_full(folder, monkeypatch):
    "`~` is expanded before `read_parquet` tells a folder or a partition from a file, as every reader here takes a path (r24b)"
    cols,p = folder
    monkeypatch.setenv('HOME', str(p.parent))
    assert read_parquet('~/parts').sort_by(order).equals(read_parquet(p).sort_by(order))
    leaf = sorted({f.parent for f in p.rglob('*.parquet')})[0]
    named = '~/' + str(leaf.relative_to(p.parent))
    assert read_parquet(named).sort_by(order).equals(read_parquet(leaf).sort_by(order))

def test_filters_on_a_partition_read_alone_take_its_columns_from_the_path(folder):
    "One partition's folder or file takes `filters` on the columns its path names, and gives its rows of what the whole folder gives (was pyarrow's raw 'No match for FieldRef') (r24b)"
    from collections import Counter
    cols,p = folder
    def rows(t, c): return Counter(zip(t['name'].to_pylist(), t['pos'].to_pylist(), t[c].to_pylist()))
    done = 0
    for leaf in sorted({f.parent for f in p.rglob('*.parquet')}):
        for src in (leaf, *sorted(leaf.glob('*.parquet')), leaf.parent):
            if src==p: continue
            t = read_parquet(src)
            for c in cols:
                if f'{c}=' not in str(src.relative_to(p)): continue  # a column its path names
                for v in {x for x in t[c].to_pylist() if x is not None}:
                    alone = read_parquet(src, filters=[(c, '=', v)])
                    assert rows(alone, c) == rows(read_parquet(p, filters=[(c, '=', v)]), c) & rows(t, c) != Counter()
                    got = read_parquet(src, columns=['name', c], filters=[(c, '!=', v), ('pos', '>=', 0)])
                    assert got.num_rows == 0 and got.column_names == ['name', c]
                    done += 1
    assert done

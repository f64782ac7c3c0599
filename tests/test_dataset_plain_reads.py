"A table of files it reads itself writes their values' JSON without a walk when the read met no float: the same text as a walk gives"
import json
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
import dialog.dataset as ds
from dialog import nbjson
from dialog.core import Dialog, Message
from dialog.ipynb import read_ipynb, reads_ipynb, read_ipynb_parts
from dialog.dataset import dlgs2table
from dialog.pool import DialogParts

pa = pytest.importorskip('pyarrow')
if nbjson.fast_libs() is None: pytest.skip('the fast extra is not installed', allow_module_level=True)

def _dumps(v): return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(',', ':'))

def nb_text(meta, data, nbmeta):
    "A notebook of a code cell with metadata `meta` and a JSON output `data`, a note, and notebook metadata `nbmeta`"
    out = dict(output_type='display_data', metadata={}, data={'application/json': data, 'text/plain': ['x\n', 'y']})
    cells = [dict(cell_type='code', id='c1', metadata=meta, source=['print(1)\n', 'x'], outputs=[out], execution_count=2),
             dict(cell_type='markdown', id='n1', metadata={}, source='a *note*')]
    return json.dumps(dict(cells=cells, metadata=nbmeta, nbformat=4, nbformat_minor=5), indent=1, ensure_ascii=False)

def _deep(n, leaf):
    for _ in range(n): leaf = [leaf]
    return leaf

floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e16, 1e-05, -0.0, 1e22, 5e-324])
leaves = st.none() | st.booleans() | st.integers(-2**63, 2**63-1) | floats | st.text(st.characters(exclude_categories=('Cs',)))
values = st.recursive(leaves, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=10)
values = values | st.builds(_deep, st.integers(60, 90), leaves)  # past `plain_json`'s 64 levels

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(values, values, values)
def test_a_fresh_read_writes_what_the_walk_writes(tmp_path, meta, data, nbmeta):
    "Read from its file or given as a dialog, a notebook's rows are the same: each JSON text as json writes it"
    f = tmp_path/'d.ipynb'
    f.write_text(nb_text(dict(x=meta), data, dict(y=nbmeta)), encoding='utf-8')
    fresh = dlgs2table([f], workers=0)
    d = read_ipynb(f)
    given_ = dlgs2table([d], workers=0)  # a dialog given: walked, whatever its read said
    assert fresh.equals(given_)
    rows = fresh.to_pylist()
    assert [r['cell'] for r in rows] == [_dumps(m.to_cell()) for m in d.messages]
    assert [r['meta'] for r in rows] == [_dumps(m.to_cell()['metadata']) for m in d.messages]
    assert rows[0]['dlg_meta'] == _dumps(d.nb_meta)

def test_a_dialog_changed_after_its_read_is_walked(tmp_path):
    "A dialog whose file held no float but which now holds one is written by json (`1e+16`), not on its read's word"
    f = tmp_path/'d.ipynb'
    f.write_text(nb_text({}, [1], {}), encoding='utf-8')
    d = DialogParts(*read_ipynb_parts(f, plain=True)).dialog()  # as a table's read reads it
    assert d.read_plain
    d.messages[0].meta['score'] = 1e16
    d.messages[0].output[0]['data']['application/json'] = [2e-05]
    d.meta['z'] = 1e17
    r = dlgs2table([d], workers=0).to_pylist()[0]
    assert '"score":1e+16' in r['meta'] and '[2e-05]' in r['cell'] and '"z":1e+17' in r['dlg_meta']

def test_the_walk_is_left_out_only_for_a_fresh_plain_read(tmp_path, monkeypatch):
    "`plain_json` looks at nothing of a file whose read met no float, and at a file with a float, and at a dialog given (even one read asking)"
    walked = []
    monkeypatch.setattr(ds, 'plain_json', lambda o, depth=64: walked.append(o) or nbjson.plain_json(o, depth))
    (tmp_path/'plain.ipynb').write_text(nb_text({'a': 1}, {'b': [1, 'x']}, {'c': True}), encoding='utf-8')
    dlgs2table([tmp_path/'plain.ipynb'], workers=0)
    assert walked == []
    (tmp_path/'float.ipynb').write_text(nb_text({'a': 0.5}, {}, {}), encoding='utf-8')
    dlgs2table([tmp_path/'float.ipynb'], workers=0)
    assert walked
    walked.clear()
    dlgs2table([DialogParts(*read_ipynb_parts(tmp_path/'plain.ipynb', plain=True)).dialog()], workers=0)
    assert walked

def test_read_plain_is_a_fact_of_the_read_when_asked(tmp_path):
    "`read_ipynb_parts(plain=True)`: True when the extra parsed the file and met no float; False for a float (early, late, past the count), without the extra, for a text the extra refuses; None when not asked"
    f = tmp_path/'d.ipynb'
    def asked(txt):
        f.write_text(txt, encoding='utf-8')
        return read_ipynb_parts(f, plain=True)[0].read_plain
    assert asked(nb_text({'a': [1, None, 'é']}, {}, {})) is True
    assert asked(nb_text({'a': 0.5}, {}, {})) is False
    assert asked(nb_text({}, {}, {'late': 0.5})) is False  # the float the last thing read
    assert asked(nb_text({}, [0.5]*(nbjson.floats_hooked+1), {})) is False
    assert asked(nb_text({}, [1e400], {})) is False  # json reads it (as inf): no plain value
    assert asked(nb_text({'s': 'X'}, {}, {}).replace('"X"', '"\\ud800"')) is False  # the extra refuses a lone surrogate
    nbjson.use_fast = False
    try: assert asked(nb_text({}, {}, {})) is False
    finally: nbjson.use_fast = True
    assert read_ipynb_parts(f)[0].read_plain is None and read_ipynb(f).read_plain is None
    assert reads_ipynb(nb_text({}, {}, {})).read_plain is None and Dialog('new').read_plain is None

def test_a_patched_writer_is_walked(tmp_path, monkeypatch):
    "`cell_meta` or `nb_meta` patched in (as fastcore's `@patch` does) may add a float: the rows are walked, as json writes them"
    f = tmp_path/'d.ipynb'
    f.write_text(nb_text({}, {}, {}), encoding='utf-8')
    own_meta,own_nb = Message.cell_meta,Dialog.nb_meta
    def cell_meta(self): return own_meta(self) | {'score': 1e16}
    monkeypatch.setattr(Message, 'cell_meta', cell_meta)
    r = dlgs2table([f], workers=0).to_pylist()[0]
    assert '"score":1e+16' in r['meta'] and '"score":1e+16' in r['cell']
    monkeypatch.setattr(Message, 'cell_meta', own_meta)
    monkeypatch.setattr(Dialog, 'nb_meta', property(lambda self: own_nb.fget(self) | {'t': 2e-05}))
    assert '"t":2e-05' in dlgs2table([f], workers=0).to_pylist()[0]['dlg_meta']
    from functools import cached_property
    cp = cached_property(lambda self: own_nb.fget(self) | {'t': 3e-05}); cp.__set_name__(Dialog, 'nb_meta')
    monkeypatch.setattr(Dialog, 'nb_meta', cp)
    assert '"t":3e-05' in dlgs2table([f], workers=0).to_pylist()[0]['dlg_meta']  # any descriptor: walked, not a crash

def test_a_subclass_message_is_walked(tmp_path, monkeypatch):
    "A `Message` subclass writes its own cell (its `cell_meta` may add any value): its rows are walked"
    class Scored(Message):
        def cell_meta(self): return super().cell_meta() | {'score': 1e16}
    f = tmp_path/'d.ipynb'
    f.write_text(nb_text({}, {}, {}), encoding='utf-8')
    monkeypatch.setattr(Dialog, 'msg_cls', Scored)
    t = dlgs2table([f], workers=0).to_pylist()
    assert '"score":1e+16' in t[0]['meta'] and '"score":1e+16' in t[0]['cell']

def _wrapped(f, extra):
    import functools
    @functools.wraps(f)
    def g(self): return f(self) | extra
    return g

@pytest.mark.parametrize('how', ['wraps cell_meta', 'wraps to_cell', 'meta property', 'dialog meta property'])
def test_any_cell_maker_patched_in_is_walked(tmp_path, monkeypatch, how):
    "A maker of cells or notebook metadata wrapped (`functools.wraps` keeps its module and name) or a property patched over an attribute: walked, json's spelling"
    f = tmp_path/'d.ipynb'
    f.write_text(nb_text({'k': 1}, {}, {'n': 1}), encoding='utf-8')
    if how=='wraps cell_meta': monkeypatch.setattr(Message, 'cell_meta', _wrapped(Message.cell_meta, {'s': 1e16}))
    elif how=='wraps to_cell': monkeypatch.setattr(Message, 'to_cell', _wrapped(Message.to_cell, {'metadata': {'s': 1e16}}))
    elif how=='meta property': monkeypatch.setattr(Message, 'meta', property(lambda self: {'s': 1e16}), raising=False)
    else:
        meta = property(lambda self: self.__dict__.get('_m', {}) | {'s': 1e16}, lambda self, v: self.__dict__.__setitem__('_m', v))
        monkeypatch.setattr(Dialog, 'meta', meta, raising=False)
    rows = dlgs2table([f], workers=0).to_pylist()
    texts = [r[k] for r in rows for k in ('meta', 'cell', 'dlg_meta') if r[k]]
    assert any('1e+16' in t for t in texts) and not any('1e16' in t for t in texts)

"Fifth review: `Message.state_of` against the constructor, and `read_dialogs(workers=2)` (whose other processes read with `read_ipynb_parts`) against `read_ipynb`"
import json
import pytest
from dialog.core import *
from dialog.ipynb import read_ipynb, read_ipynb_parts
from dialog.dataset import read_dialogs

def _built(content='c', ipynb_form=None, **kw):
    "What `Message(content, **kw)` with `ipynb_form` set holds, or the error it raises, as comparable data"
    try:
        m = Message(content, **kw)
        m.ipynb_form = ipynb_form
        return vars(m)
    except Exception as e: return type(e),str(e)

def _state(content='c', **kw):
    "What `Message.state_of(content, **kw)` gives, or the error it raises, as comparable data"
    try: return Message.state_of(content, **kw)
    except Exception as e: return type(e),str(e)

def _same(**kw):
    a,b = _state(id='i', **kw),_built(id='i', **kw)
    assert a == b and (type(a) is tuple or list(a) == list(b))

@pytest.fixture
def pin_promoted(monkeypatch):
    "`Message` itself promoting the `pinned` flag (a property of `Message`) to an attribute"
    monkeypatch.setattr(Message, 'meta_attrs', {'pinned': 'pinned'})

def test_state_of_promotes_a_meta_attr_that_is_a_property(pin_promoted):
    "A `meta_attrs` name `Message` has a property for (`pinned`): the constructor sets it through the property, and so must `state_of`"
    _same(meta={'pinned': True, 'x': 1})
    _same(meta={'x': 1})

@pytest.mark.parametrize('kw', [dict(summ=1), dict(__class__=int), dict(__dict__={'a': 1}), dict(__weakref__=None),
                                dict(skipped=True), dict(pinned=False, ipynb_form={'bare': True})])
def test_state_of_sets_what_is_not_a_plain_attribute_as_the_constructor_does(kw):
    "An extra the constructor sets through a descriptor (a property, `__dict__`, `__class__`): the same state, or the same error"
    _same(**kw)

def test_state_of_forgets_a_form_as_setting_ipynb_form_does():
    "`ipynb_form=None` forgets the form, as `m.ipynb_form = None` does, even one given as an attribute"
    _same(_ipynb={'bare': True})
    _same(_ipynb={'bare': True}, ipynb_form={'mark': 2})

def test_state_of_takes_no_dialog():
    "A state is of a message in no dialog"
    with pytest.raises(TypeError, match='no dialog'): Message.state_of('x', dlg=None)

def _nb(i):
    return dict(cells=[dict(cell_type='code', id=f'a{i}', metadata={'pinned': True, 'k': i}, source='x', outputs=[], execution_count=i),
                       dict(cell_type='markdown', id=f'b{i}', metadata={}, source='y')], metadata={}, nbformat=4, nbformat_minor=5)

def _full(d):
    return (type(d), {k:v for k,v in vars(d).items() if k!='_messages'}, d.messages.items.ver,
            [(type(m), [(k,v) for k,v in vars(m).items() if k!='_dlg'], m.dlg is d) for m in d.messages])

def test_read_dialogs_in_processes_with_a_promoted_property(pin_promoted, tmp_path):
    "With `Message.meta_attrs` naming a property, the other processes read what `read_ipynb` reads (it was a `TypeError` from `state_of`)"
    fs = []
    for i in range(40):
        (p := tmp_path/f'd{i:02}.ipynb').write_text(json.dumps(_nb(i)), encoding='utf-8')
        fs.append(p)
    want = [read_ipynb(p) for p in fs]
    d,states = read_ipynb_parts(fs[0])
    assert states == [{k:v for k,v in vars(m).items() if k!='_dlg'} for m in want[0].messages] and states[0]['pinned'] is True
    got = read_dialogs(fs, workers=2, progress=False)
    assert [_full(d) for d in got] == [_full(d) for d in want]

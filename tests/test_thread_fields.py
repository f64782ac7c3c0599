"""One field table per model (`msg_table`, `att_table`, `thread_table` of dialog.thread): each field declared once, and the
constructors, checks, defaults, dumps and pydantic schema all read from it, and so do the sync's records of a message
(dialog.thread_sync: each field not at its default) and a thread's constructor (each field checked by its row)."""
from datetime import datetime, timezone
import json
import pytest
import dialog.thread as T
from dialog.thread import Message, Attachment, Thread, msg_table, att_table, thread_table

ts = datetime(2024, 5, 1, tzinfo=timezone.utc)
samples = dict(id='m1', role='tool', sequence=3, turn=2, content='hi', reasoning_content='why', name='f', tool_call_id='c1',
               tool_calls=[{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}], attributes={'a': 1}, timestamp=ts,
               source={'id': 'ann'}, platforms={'slack': {'ts': '1'}}, attachments=[Attachment(filename='a.txt', content=b'x')],
               reactions={'+1': ['ann']}, metrics={'model': 'm'})

def test_the_tables_name_the_fields():
    assert T.message_fields==tuple(f.name for f in msg_table)==tuple(samples)
    assert T.att_fields==tuple(f.name for f in att_table) and T.thread_fields==tuple(f.name for f in thread_table)

@pytest.mark.parametrize('k', list(samples))
def test_each_field_given_alone_lands_in_its_own_place(k):
    "The constructor matches the table field by field: a field given alone is that field's value, and the only one counted as set (with the id, made when not given)"
    kw = dict(role='tool', tool_call_id='c1') | {k: samples[k]}
    m = Message(**kw)
    assert getattr(m, k)==samples[k] and m.model_fields_set=={'id'} | set(kw)
    for f in msg_table:
        if f.name not in kw and f.name!='id' and not f.fresh: assert getattr(m, f.name)==f.initial(), f.name

@pytest.mark.parametrize('model,table', [(Message, msg_table), (Attachment, att_table), (Thread, thread_table)])
def test_the_schema_reads_the_table(model, table):
    fs = model.model_fields
    assert list(fs)==[f.name for f in table]
    assert [n for n,fi in fs.items() if fi.is_required()]==[f.name for f in table if f.default is ...]

@pytest.mark.parametrize('model,table,kw', [(Message, msg_table, dict(role='user')), (Attachment, att_table, dict(filename='a')), (Thread, thread_table, {})])
def test_defaults_are_left_out_of_a_dump_as_the_table_says(model, table, kw):
    "pydantic's `exclude_defaults` leaves out each field at its table default: what stays is what is required, or new each time (ids, times), and an attachment's computed id"
    d = json.loads(model(**kw).model_dump_json(exclude_defaults=True))
    assert set(d)=={f.name for f in table if f.fresh or f.default is ...} | ({'id'} if model is Attachment else set())

@pytest.mark.parametrize('model,table', [(Message, msg_table), (Attachment, att_table), (Thread, thread_table)])
def test_model_construct_fills_the_tables_initial_values(model, table):
    o = model.model_construct()
    for f in table:
        if not f.fresh: assert getattr(o, f.name)==f.initial(), f.name

# The sync's records read the same table: a record holds each field of `msg_table` not at its default (`dump_defaults`)
import dialog.thread_sync as sync
from fastcore.xtras import UNSET

def _val(m, k):
    v = getattr(m, k)
    return [a.model_dump() | {'content': a.content} for a in v] if k=='attachments' else v

@pytest.mark.parametrize('f', msg_table, ids=lambda f: f.name)
def test_each_field_goes_through_a_record_as_the_table_says(f):
    "A field set (to a sample value: a row added to the table needs one) is in the record and reads back as it was; at its default it is left out, unless it is new each time (id, time) or required (role)"
    kw = dict(role='tool', tool_call_id='c1') | {f.name: samples[f.name]}
    m = Message(**kw)
    rec = json.loads(json.dumps(sync._record(m, content=True))) # as a dialog file holds it
    assert f.name in rec
    back = sync._from_record(rec)
    assert _val(back, f.name)==_val(m, f.name)
    bare = Message(role='tool', tool_call_id='c1') if f.name not in ('role', 'tool_call_id') else Message(role='user')
    kept = f.name in sync._record(bare)
    assert kept==(f.fresh or f.default is ...), f'{f.name}: at its default, a record {"keeps" if kept else "leaves out"} it'
    assert _val(sync._from_record(sync._record(bare, content=True)), f.name)==_val(bare, f.name) or f.fresh

def test_a_rows_default_in_the_table_is_what_a_record_leaves_out(monkeypatch):
    "Change a row of the table and the records change with it: no list of fields of its own in the sync"
    def use(rows): # the sync reads a message's table as `field_table` gives it (or as `msg_table`, before subclasses' own fields)
        monkeypatch.setattr(sync, 'msg_table', rows); monkeypatch.setattr(sync, 'field_table', lambda cls: rows, raising=False)
    use(tuple(f._replace(default='anon') if f.name=='name' else f for f in msg_table))
    assert 'name' not in sync._record(Message(role='user', name='anon'))
    assert sync._record(Message(role='user'))['name'] is None
    use(tuple(f for f in msg_table if f.name!='source'))
    assert 'source' not in sync._record(Message(role='user', source={'id': 'ann'}))

def test_a_record_makes_no_default_the_message_hasnt_made():
    "A message's lazy defaults (metrics, attributes, platforms, reactions, attachments) stay unmade when its record is written: saving a long thread doesn't grow it"
    m = Message(role='user', content='hi')
    sync._record(m, content=True)
    assert all(v is UNSET for k,v in T.held_fields(m).items() if k in ('metrics', 'attributes', 'platforms', 'reactions', 'attachments'))

# A thread's constructor checks each field by its row of `thread_table`
thread_samples = dict(id='t1', title='Support', messages=[Message(role='user', content='hi')], created_at=ts, updated_at=ts, attributes={'a': 1},
                      platforms={'slack': {'ch': 'C1'}})

@pytest.mark.parametrize('f', thread_table, ids=lambda f: f.name)
def test_a_thread_checks_each_field_by_its_row(f, monkeypatch):
    "A row's check is the constructor's: a row that refuses a value refuses the field (a ValueError naming the thread), one that normalises it gives the value it makes"
    assert f.name in thread_samples # a row added to the table needs a sample here
    def refuse(v): raise ValueError(f'the table refuses {f.name}')
    monkeypatch.setattr(T, 'thread_table', tuple(r._replace(check=refuse) if r is f else r for r in thread_table))
    with pytest.raises(ValueError, match=f"^thread 't1': the table refuses {f.name}$"): Thread(**{'id': 't1', f.name: thread_samples[f.name]})
    made = object()
    monkeypatch.setattr(T, 'thread_table', tuple(r._replace(check=lambda v: made if v is thread_samples[f.name] else r.check(v)) if r is f else r
                                                 for r in thread_table))
    if f.name!='messages': assert getattr(Thread(**{f.name: thread_samples[f.name]}), f.name) is made

def test_a_thread_made_with_no_fields_has_the_tables_initial_values():
    t = Thread()
    assert t.model_fields_set==set() and t.updated_at==t.created_at # one time for both when not given
    for f in thread_table:
        if not f.fresh: assert getattr(t, f.name)==f.initial(), f.name

from hypothesis import given, settings, strategies as st
anything = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=5), st.binary(max_size=4),
                     st.lists(st.text(max_size=3), max_size=2), st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2),
                     st.sampled_from(['user', 'assistant', 'system', 'tool', '2024-05-01T00:00:00+00:00', 1.5]))

@settings(max_examples=300, deadline=None)
@given(st.sampled_from([f for f in msg_table if f.name not in ('id', 'role')]), anything)
def test_a_message_checks_each_field_by_its_row(f, v):
    "The constructor takes each field through its row's check: the value the check gives, or the error it raises"
    kw = dict(role='user') | {f.name: v}
    try: want = f.check(v)
    except ValueError as e:
        with pytest.raises(ValueError) as got: Message(**kw)
        assert str(e) in str(got.value)
        return
    m = Message(**kw)
    assert getattr(m, f.name)==want

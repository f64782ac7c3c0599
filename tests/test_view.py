"dialog.view from Python: message ids resolved as core resolves them (KeyError naming the id and the file), find_msgs and the views refusing bad arguments."
import pytest
from hypothesis import given, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.view import *
from cli_helpers import fails, ids

keys = st.text('0123456789abcdef', max_size=9)

@given(st.lists(keys.filter(bool), unique=True, max_size=8), keys)
def test_msg_agrees_with_core(msg_ids, key):
    d = Dialog('k', [Message(str(i), id=k) for i,k in enumerate(msg_ids)])
    try: want = d[key]
    except KeyError as e: want = e
    if isinstance(want, Message): assert pick_msg(d, key) is want
    else:
        with pytest.raises(KeyError) as e: pick_msg(d, key)
        assert "dialog 'k'" in str(e.value)
        if key: assert str(want).strip('"\'') in str(e.value)

def test_msg_error_names_file(tmp_path):
    d = Dialog('f', [Message('a', id='ab1'), Message('b', id='ab2')])
    d.save(tmp_path/'f')
    d = read_ipynb(tmp_path/'f')
    with pytest.raises(KeyError, match=rf"{tmp_path/'f.ipynb'}: .*ambiguous"): pick_msg(d, 'ab')
    with pytest.raises(KeyError, match=rf"{tmp_path/'f.ipynb'}: message id 'zz' not found"): pick_msg(d, 'zz')
    with pytest.raises(ValueError, match='no message id'): pick_msgs(d, ' , ')
    assert list(pick_msgs(d, 'ab2,ab1 ab2'))==[d['ab2'], d['ab1']]

def test_view_line_range(tour):
    i = ids(tour)
    fails('view', tour, i[0], '--xml', '--start-line', '2', has='leave out --xml')
    fails('view', tour, i[0], '--end-line', '0', has='argument --end-line: must be 1 or more, not 0')
    fails('view', tour, i[0], '--start-line', '0', has='argument --start-line')
    m = Message('a\nb', id='m1')
    with pytest.raises(ValueError, match='no lines 1 to 0'): m.view(end_line=0)

def test_find_msgs_bad_arguments(tour):
    d = read_ipynb(tour)
    for kw in (dict(limit=0), dict(limit=-1), dict(msg_type='cell'), dict(pattern=None), dict(pattern=b'x')):
        with pytest.raises(ValueError): find_msgs(d, **({'pattern': ''} | kw))
    assert len(find_msgs(d, '', limit=1))==1

def test_views_bad_arguments():
    m = Message('a\nb', id='m1')
    for kw in (dict(start_line='2'), dict(end_line=1.5), dict(start_line=None), dict(start_line=True)):
        with pytest.raises(ValueError, match="message 'm1'"): m.view(**kw)
    d = Dialog('x', [m, Message('c', id='m2')])
    assert d.view(msgs=['m2'])==d.view(msgs=[d['m2']]) and 'id="m1"' not in d.view(msgs=['m2'])
    with pytest.raises(KeyError, match="dialog 'x': message id 'zz' not found"): d.view(msgs=['zz'])

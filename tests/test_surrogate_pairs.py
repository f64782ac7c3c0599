"A surrogate pair held as two characters has one answer, `join_pairs`: the writer refuses a text it would change, and chat sends the text joined"
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.nbjson import join_pairs, esc_surrogates
from dialog.chat import dlg2chat

texts = st.lists(st.sampled_from(['a', 'é', '😀', '\ud83d', '\ude00', '\ud800', '\udfff', '\\ud83d', ' ']), max_size=8).map(lambda ps: 'q'+''.join(ps))

@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_writer_and_chat_read_a_pair_by_one_rule(s):
    d = Dialog('d', [Message(s, msg_type=sprompt)])
    joined = join_pairs(s)
    if joined==s: assert reads_ipynb(write_ipynb(d)).messages[0].content==s
    else:
        with pytest.raises(ValueError, match='join_pairs'): write_ipynb(d)
    assert dlg2chat(d)[0]['content']==esc_surrogates(joined)

def test_join_pairs_joins_pairs_only():
    assert join_pairs('a\ud83d\ude00b')=='a😀b' and join_pairs('\ude00\ud83d')=='\ude00\ud83d' and join_pairs('x\ud800')=='x\ud800'

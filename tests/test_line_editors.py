"The line editors (`replace_lines`, `del_lines`, `insert_line`) edit the line a view shows, whatever a line holds"
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.view import text_lines
import dialog.skill  # it gives `Message` the line editors

_odd = st.lists(st.sampled_from(['a', 'b', '\n', '\r', '\r\n', '\x0c', '\x0b', '\x1c', '\x85', '\u2028', '\u2029']), max_size=10).map(''.join)

@settings(max_examples=300, deadline=None)
@given(_odd, st.data())
def test_the_line_editors_edit_the_line_view_shows(txt, data):
    "Whatever a line holds (a lone CR, a form feed, U+2028: no line end to `text_lines`, exhash or `view`), `replace_lines`/`del_lines`/`insert_line` on line n edit `view`'s line n, and the other lines keep their text"
    ls = text_lines(txt)
    if not ls: return
    n = data.draw(st.integers(1, len(ls)))
    m = Message(txt, id='m'); assert not m.replace_lines(n, n, 'X').error
    assert text_lines(m.content) == ls[:n-1] + ['X'] + ls[n:]
    m = Message(txt, id='m'); assert not m.del_lines(n, n).error
    assert text_lines(m.content) == ls[:n-1] + ls[n:]
    for k in (0, n):
        m = Message(txt, id='m'); assert not m.insert_line(k, 'X').error
        assert text_lines(m.content) == ls[:k] + ['X'] + ls[k:]
        rest = m.content.replace('X', '', 1)  # the text as it was, every character kept, with one line end more
        assert any(rest == txt[:j] + e + txt[j:] for j in range(len(txt)+1) for e in ('\n', '\r\n'))

def test_view_line_is_the_replaced_line():
    "A form feed (Python's page break) inside line 1: `view` shows line 2 as `c`, and `msg_replace_lines` of line 2 replaces `c`"
    m = Message('a\x0cb\nc\n', id='m')
    assert m.view(nums=False) == 'a\x0cb\nc'
    m.replace_lines(2, 2, 'X')
    assert m.content == 'a\x0cb\nX\n'

def test_insert_line_keeps_a_last_empty_line():
    "`view` shows `a\\n\\n` as two lines, `a` and an empty one; inserting after line 1 dropped the empty line (fastcore's `insert_line` joins its lines with LF: we have our own)"
    m = Message('a\n\n', id='m')
    assert m.view(nums=False) == 'a\n'
    m.insert_line(1, 'X')
    assert text_lines(m.content) == ['a', 'X', '']

# --- a new line's text is written as sent, wherever it goes: a lone CR ending it stays its own (`join_lines`, r15b)

_new = st.lists(st.sampled_from(['Q', '\r', '\r', '\n', '\r\n', '\u2028']), max_size=5).map(''.join)

def _sent(new):
    "The lines `new` is, as sent: a LF or CR LF ends one, a lone CR is a character of its line (an empty text: one empty line)"
    return new.replace('\r\n', '\n').split('\n')

@settings(max_examples=400, deadline=None)
@given(_odd, _new, st.data())
def test_a_new_line_reads_as_sent_wherever_it_goes(txt, new, data):
    "For any text and any new text (lone CRs, CR LF, U+2028), `insert_line` and `replace_lines` leave the lines `text_lines` reads exactly the expected ones: a lone CR ending the new text is never made half of a CR LF by the line end written after it"
    ls = text_lines(txt)
    k = data.draw(st.integers(0, len(ls)), label='after')
    m = Message(txt, id='m'); assert not m.insert_line(k, new).error
    # (after a last line with no end, or in an empty text, `new` ends the text: an empty last line of it is no line;
    # but an empty `new` after a last line with no end is a line, ended: r17)
    last = k==len(ls) and not txt.endswith('\n') and (new!='' or not ls)
    assert text_lines(m.content) == ls[:k] + (text_lines(new) if last else _sent(new)) + ls[k:], (txt, new, m.content)
    if not ls: return
    n = data.draw(st.integers(1, len(ls)), label='line')
    m = Message(txt, id='m'); assert not m.replace_lines(n, n, new).error
    assert text_lines(m.content) == ls[:n-1] + text_lines(new) + ls[n:], (txt, new, m.content)

def test_a_new_line_ending_in_a_lone_cr_keeps_it_mid_text():
    "r15b: 'Q\\r' inserted (or written over a line) in LF text anywhere, not only after a last unended line, reads 'Q\\r'"
    for txt in ['x\ny', 'x\ny\n', 'x\r\ny\r\n']:
        ls = text_lines(txt)
        for k in range(len(ls)+1):
            m = Message(txt); assert not m.insert_line(k, 'Q\r').error
            assert text_lines(m.content) == ls[:k] + ['Q\r'] + ls[k:], (txt, k, m.content)
        for k in range(1, len(ls)+1):
            m = Message(txt); assert not m.replace_lines(k, k, 'Q\r').error
            assert text_lines(m.content) == ls[:k-1] + ['Q\r'] + ls[k:], (txt, k, m.content)

"What dialog.core shows of a dialog (its name line, preview rows, summary, a message's repr) stays inert and bounded."
import unicodedata
import pytest
from hypothesis import given, strategies as st
from dialog.core import *

evil = ['erase\x1b[1A\x1b[2Kabove', 'clip\x1b]52;c;cm0gLXJmIH4=\x07', 'rtl\u202etxt.exe', 'v\x0bw', 'n\x85m', 'ls\u2028x',
        'ff\x0cx', 'c1\x9bx', 'zw\u200bx']

def _raw(s):
    "The control, format and separator characters `s` holds, but the newline"
    return {c for c in s if c!='\n' and unicodedata.category(c) in ('Cc', 'Cf', 'Zl', 'Zp')}

def test_outline_escapes_terminal_controls():
    "The dialog's name line, its preview rows and `summary()` print no escape, bidi control or line breaker raw: one row a message"
    d = Dialog('title\x1b]0;owned\x07')
    for c in evil: d.mk_message(c, msg_type=snote)
    for out in (repr(d), str(d.messages.show()), str(d.summary())):
        assert not _raw(out), out
        assert len(out.splitlines()) == len(out.split('\n'))
    assert len(repr(d).split('\n')) == len(evil)+1
    assert repr(d).split('\n')[0] == r'title\x1b]0;owned\x07'
    assert d[0].preview().endswith(r'erase\x1b[1A\x1b[2Kabove')

def test_message_repr_escapes_terminal_controls():
    "A message's repr and markdown display spell out the controls its content, metadata and attributes hold"
    m = Message('a\x1b[2Jb', meta={'k': 'x\x1b]52;c;y\x07'}, note='rtl\u202e')
    for out in (repr(m), m._repr_markdown_(), m.summ): assert not _raw(out), out

@given(st.text(alphabet=st.sampled_from(['a', '\\', '\x1b', '\u2028', '\U000e0041', '\n', 'é', '\x85']), max_size=30),
       st.integers(12, 60))
def test_preview_is_one_inert_line_never_cut_inside_an_escape(txt, n):
    "Whatever the content, a preview is one line of at most `maxlen` characters, inert, cut only between escapes"
    pv = Message(txt, id='x1').preview(n)
    assert len(pv) <= n and not _raw(pv) and len(pv.splitlines()) <= 1
    body = pv[len('x1:code: '):].removesuffix('…')
    i = 0
    while i < len(body):  # every backslash starts a whole escape
        if body[i] == '\\':
            k = body[i+1:i+2]
            assert k in ('\\', 'n', 'x', 'u', 'U'), body
            w = {'x': 2, 'u': 4, 'U': 8}.get(k, 0)
            assert len(body[i+2:i+2+w]) == w, body
            i += 2+w
        else: i += 1

def test_message_repr_is_bounded_whatever_its_metadata_and_attributes_hold():
    "A message's repr shows each field cut short, saying how long it was: a huge metadata value or attribute can't flood a display"
    m = Message('x', meta={'k': 'z'*1_000_000, 'small': 1}, note='n'*50_000, attachments=[Attachment(b'', 'image/png', f'a{i}') for i in range(2000)])
    for out in (repr(m), m._repr_markdown_()):
        assert len(out) < 2000
        assert '1,000,021 characters, cut' in out and '50,000 characters, cut' in out
    small = repr(Message('x', meta={'a': 1}, note='short'))
    assert "- meta: {'a': 1}" in small and '- note: short' in small and 'cut' not in small

def test_previews_keep_the_joiners_a_words_spelling_needs():
    "ZWNJ (Persian, Hindi), ZWJ (emoji, conjuncts) and Mongolian's vowel separator show as written in previews, summaries and reprs; zero-width spaces and bidi controls are still spelled out"
    words = ['می\u200cخواهم بروم', 'क्\u200cष', '👩\u200d💻', 'ᠨᠠ\u180eᠠ', 'a\u034fb']
    d = Dialog('t')
    for w in words: d.mk_message(w, msg_type=snote)
    for m,w in zip(d.messages, words):
        for out in (m.preview(), m.summ, repr(m)): assert w in out, out
    assert all(w in repr(d) for w in words)
    m = d.mk_message('zw\u200bx \u202eevil', msg_type=snote)
    assert r'zw\u200bx \u202eevil' in m.preview() and r'zw\u200bx' in m.summ

eng = '\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f'  # England's flag: an emoji tag sequence

def test_previews_keep_emoji_flags_and_spell_out_stray_tags():
    "A subdivision flag (black flag, tag letters, CANCEL TAG) shows as the flag; tags in any other place, which show as nothing, are spelled out"
    m = Message(f'Go {eng} team', id='x1')
    for out in (m.preview(), m.summ, repr(m), repr(Dialog('t', [m]))): assert eng in out, out
    for bad in ('hi\U000e0068\U000e0069', '\U0001f3f4\U000e0067\U000e0062x', f'{eng}\U000e007f', '\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f'):
        for out in (Message(bad).preview(), Message(bad).summ):
            assert not [c for c in out.replace(eng, '') if '\U000e0000'<=c<='\U000e007f'], out

@given(st.lists(st.sampled_from(['a', eng, '\U0001f3f4', '\U000e0067', '\U000e007f', '\\']), max_size=20), st.integers(12, 40))
def test_a_cut_preview_never_leaves_a_tag_raw(parts, n):
    "Wherever a preview is cut, the tags it shows raw are whole flags': a cut flag goes whole, a stray tag is escaped"
    txt = ''.join(parts)
    pv = Message(txt, id='x1').preview(n)
    assert len(pv) <= n
    assert not [c for c in pv.replace(eng, '') if '\U000e0000'<=c<='\U000e007f'], pv
    if not pv.endswith('…'): assert pv.count(eng) == txt.count(eng)  # not cut: every flag shown

"Rendering's fast paths skip fastcore's screen rendering and ANSI stripping only where they would change nothing, and a call's own renderers still override the tables"
from hypothesis import given, settings, strategies as st
from fastcore.ansi import strip_ansi
from fastcore.xtras import clean_cli_output
from dialog import render
from dialog.render import out_text, ai_item, mime_renderers

# texts of the characters those rules act on, and the ones around them
pieces = st.sampled_from(list('ab \n\r\b\x1b[]?;0123456789hlmn\x07\\') + ['\x1b[31m', '\x1b[?1049h', '\x1b[?1049l', '\x1b]8;;u\x07', '\r\n'])
texts = st.lists(pieces, max_size=30).map(''.join)

@given(texts)
@settings(max_examples=500)
def test_screen_rendering_fast_path_agrees(s):
    "A stream's text renders as fastcore's `clean_cli_output` renders it, with or without anything it acts on"
    assert render._cli(s)==clean_cli_output(s)
    assert render._plain(s)==strip_ansi(s)

def test_a_calls_renderers_still_override():
    "Renderers given to one call override the default tables for that call only (the tables aren't copied when none are given)"
    o = dict(output_type='stream', name='stdout', text='a\rb\n')
    assert out_text(o)==('text/plain', 'b\n') and ai_item(o)=='b\n'
    up = {'stream': lambda t: 'X'}
    assert out_text(o, renderers=up)==('text/plain', 'X') and ai_item(o, renderers=up)=='X'
    assert out_text(o)==('text/plain', 'b\n') and 'X' not in mime_renderers.values()
    latex = dict(output_type='display_data', data={'text/latex': 'x^2'}, metadata={})
    assert ai_item(latex)=='\\(x^2\\)' and ai_item(latex, dollars=True)=='$x^2$'

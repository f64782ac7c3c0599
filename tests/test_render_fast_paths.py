"Rendering's fast paths skip fastcore's screen rendering and ANSI stripping only where they would change nothing, and a call's own renderers still override the tables"
import re, pytest
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


def test_a_spinner_of_backspaces_renders_in_one_pass(monkeypatch):
    "A stream of backspaces and no escapes is rendered by the one-pass path, which the property above pins to fastcore's (fastcore's loop rebuilt the line at each backspace: a spinner's 800,000 characters took 16 s)"
    monkeypatch.setattr(render, 'clean_cli_output', lambda s: pytest.fail('fastcore rendered it'))
    s = '|\b/\b-\b\\\b'*200_000 + 'done\n'
    assert render._cli(s)=='done\n'
    assert render._cli('\x1b[32m' + s + '\x1b[0m')=='done\n'  # coloured too (fastcore's loop took 27 s on 800 KB)

# `normalize_text_latex` as one lazy regex found the math: the semantics the one-pass scan keeps (the regex read to the
# text's end from each unclosed opener: quadratic)
_old_math = re.compile(r'(?<!\\)\$\$(.+?)(?<!\\)\$\$|\\\[(.+?)\\\]|(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$|\\\((.+?)\\\)', re.S)
def _old_latex(s, dollars):
    il,dl = (('$','$'),('$$','$$')) if dollars else (('\\(','\\)'),('\\[','\\]'))
    def sub(m):
        o,c = dl if m[1] is not None or m[2] is not None else il
        return o+next(g for g in m.groups() if g is not None)+c
    if _old_math.search(s): return _old_math.sub(sub, s)
    if not s.strip(): return s
    o,c = dl if s.lstrip().startswith('\\begin{') else il
    return o+s+c

@given(st.lists(st.sampled_from(list('$\\[]() a\n') + ['$$', '\\(', '\\)', '\\[', '\\]', '\\begin{']), max_size=24).map(''.join), st.booleans())
@settings(max_examples=2000)
def test_latex_math_found_as_the_regex_found_it(s, dollars):
    assert render.normalize_text_latex(s, dollars)==_old_latex(s, dollars)

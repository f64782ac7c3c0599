"Differential tests: dialog.render and chat's AI rendering against aidialog 0.0.39 (called, never read), and the deliberate differences"
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import mk_displayobj, code_output
from dialog.render import *
from dialog.chat import render_output_ai, render_outputs_ai, ai_fmt, INTERRUPTED

A = pytest.importorskip('aidialog.dialog')

def S(t, name='stdout'): return dict(output_type='stream', name=name, text=t)
def R(data): return dict(output_type='execute_result', data=data, metadata={}, execution_count=1)

streams = ['Hello\rBye\n', 'abc\b\bX\n', 'Hello\rBy\n', 'x\r\nyy\n', '\b\bab\n', 'ab\rc', '1\n2\r3\n4', 'line1\nfoo\rbar\rbaz\nend\n',
           '10%\r', 'a\r\r\n', 'a\r\nb\r\n', 'abc\r', '\b', 'a\b\b\bX', 'ab\r\bc', 'a\tb\rc', 'a\x1b[31mb\rc', 'a\rb\x1b[0m', '']

@pytest.mark.parametrize('t', streams)
def test_stream_as_a_terminal_shows_it(t):
    "One stream renders as aidialog's list renderer gives it (aidialog's one-output renderer leaves \\r as typed: it would send every state of a bar)"
    assert render_output_ai(S(t)) == A.render_outputs_ai([S(t)])
    assert render_outputs_ai([S(t)]) == A.render_outputs_ai([S(t)])

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='ab \r\b\n\t\x1b[0m', max_size=40))
def test_stream_property(t):
    assert render_outputs_ai([S(t)]) == A.render_outputs_ai([S(t)])

@pytest.mark.parametrize('parts', [['10%\r', '50%\r', '100%\n'], ['a', 'b'], ['downloading\r', 'done\n', 'next\n']])
def test_a_bar_in_many_outputs_is_one_stream(parts):
    outs = [S(p) for p in parts]
    assert render_outputs_ai(outs) == A.render_outputs_ai(outs)

def test_streams_keep_their_place():
    "Deliberate: aidialog moves results after the streams and joins with blank lines; we keep the order (what was printed after a result stays after it) and start each output on its own line"
    outs = [S('a\n'), R({'text/plain': 'R'}), S('b\rc\n')]
    assert A.render_outputs_ai(outs) == 'a\nc\n\nR'
    assert render_outputs_ai(outs) == 'a\nR\nc\n'

from hypothesis import given, settings, strategies as st
_out = st.one_of(st.builds(S, st.sampled_from(['a\n', 'b', '\r', 'c\r\n', '']), st.sampled_from(['stdout', 'stderr'])),
                 st.builds(lambda t: R({'text/plain': t}), st.sampled_from(['R1', 'R2'])))

@settings(max_examples=300, deadline=None)
@given(st.lists(_out, max_size=12))
def test_merge_streams_keeps_order(outs):
    "Between any two other outputs, each stream's texts are joined in order into its first output there; the other outputs are untouched and in place"
    from dialog.render import merge_streams
    def runs(os_):
        "Each run of streams as {name: joined text}, and the other outputs, in order"
        res,cur = [],{}
        for o in os_:
            if o['output_type']=='stream': cur[o['name']] = cur.get(o['name'], '') + o['text']
            else: res += [cur, o]; cur = {}
        return res + [cur]
    got = merge_streams(outs)
    assert runs(got) == runs(outs)
    assert all(sum(o['output_type']=='stream' and o['name']==k for o in r) <= 1 for r in _split(got) for k in ('stdout', 'stderr'))

def _split(os_):
    "The runs of stream outputs in `os_`"
    res = [[]]
    for o in os_:
        if o['output_type']=='stream': res[-1].append(o)
        else: res.append([])
    return res

latex = ['\\(x\\)', '\\[x\\]', '$x$', '$$x$$', 'x', '\\begin{align}x\\end{align}', '', '$x', '\\$5', 'x^2 + \\frac{1}{2}']
@pytest.mark.parametrize('s', latex)
@pytest.mark.parametrize('dollars', [False, True])
def test_normalize_text_latex(s, dollars):
    assert normalize_text_latex(s, dollars) == A.normalize_text_latex(s, dollars)

@pytest.mark.parametrize('s,ours', [('a $x$ and \\(y\\)', 'a \\(x\\) and \\(y\\)'), ('  $x$  ', '  \\(x\\)  '), ('$$a$$ text $b$', '\\[a\\] text \\(b\\)')])
def test_normalize_text_latex_text_with_math(s, ours):
    "Deliberate: text holding math keeps its text and each formula gets its delimiters; aidialog wraps the whole payload as one formula"
    assert normalize_text_latex(s) == ours
    assert A.normalize_text_latex(s) != ours

same_ai = [{'text/latex': '\\(x^2\\)'}, {'text/latex': '\\[x\\]'}, {'text/latex': '$x$'}, {'text/markdown': '*m*', 'text/plain': 'm'},
           {'application/javascript': 'alert(1)'}, {'text/plain': '\x1b[31mred\x1b[0m'},
           {'image/png': 'iVBO'}, {'text/html': '<b>h</b>'}]
@pytest.mark.parametrize('data', same_ai)
@pytest.mark.parametrize('dollars', [False, True])
def test_ai_result(data, dollars):
    assert render_output_ai(R(data), dollars=dollars) == A.render_output_ai(R(data), dollars=dollars)

def test_ai_differences():
    "Deliberate: plain text wins over HTML and LaTeX for the AI (a DataFrame's table, SymPy's x**2), JSON is sent as JSON, and a figure as its image part, not its text"
    for data,ours in [({'image/png': 'iVBO', 'text/plain': '<Figure>'}, ''), ({'text/html': '<b>h</b>', 'text/plain': 'h'}, 'h'), ({'text/plain': 'x**2', 'text/latex': '$x^2$'}, 'x**2'),
                      ({'application/json': {'a': 1}}, '{"a": 1}')]:
        assert render_output_ai(R(data)) == ours
        assert A.render_output_ai(R(data)) != ours

def test_ai_error():
    e = dict(output_type='error', ename='E', evalue='v', traceback=['\x1b[31mTrace\x1b[0m', 'line2'])
    assert render_output_ai(e).startswith(A.render_output_ai(e)) # we add the error line `E: v` once (dialog.render's tb_text)

@pytest.mark.parametrize('o,rs', [(R({'text/plain': 'x'}), {'text/plain': lambda v: 'Z'}), (R({'text/x-foo': 'x'}), {'text/x-foo': lambda v: 'Z'}),
                                  (R({'text/latex': 'x'}), {'text/latex': lambda v: 'L'})])
def test_renderers_override(o, rs):
    assert render_output_ai(o, renderers=rs) == A.render_output_ai(o, renderers=rs)

def test_ai_renderers_table():
    "Our table holds every mime aidialog's AI_RENDERERS names, and renders each of them alike on text aidialog renders without ANSI"
    for k,f in A.AI_RENDERERS.items():
        for v in ['x', ['a\n', 'b'], '\\(x\\)']:
            assert render_output_ai(R({k: v})) == A.render_output_ai(R({k: v})), (k, v)

md_cases = [[S('hi\n')], [R({'text/html': '<b>h</b>', 'text/plain': 'h'})], [R({'text/markdown': '*m*', 'text/plain': 'm'})],
            [R({'text/html': '<b>h</b>', 'text/markdown': '*m*'})], [R({'image/png': 'iVBO\n'})], [R({'image/jpeg': '/9j'})],
            [R({'text/latex': '$x$', 'text/plain': 'x'})], [dict(output_type='error', ename='E', evalue='', traceback=['\x1b[31mE\x1b[0m'])],
            [R({'application/json': {'a': 1}})], [R({'text/plain': 'a```b'})], [R({'text/markdown': 'm\n'})], [], [S('')],
            [R({'text/html': 'a\n\nb\n'})], [S('a\rb\n'), S('c\n')]]
@pytest.mark.parametrize('outs', md_cases)
def test_render_md(outs):
    for h in (True, False): assert render_md(outs, h) == A.render_md(outs, h)

def test_render_md_differences():
    "Deliberate: outputs keep their order (aidialog moves displays before streams), a figure is shown as its image rather than its text forms, SVG is an image"
    outs = [S('a\n'), mk_displayobj({'text/markdown': '*m*'})]
    assert render_md(outs) == '```output\na\n```\n\n*m*'
    assert A.render_md(outs) == '*m*\n\n```output\na\n```'
    fig = R({'image/png': 'iVBO', 'text/html': '<b>h</b>'})
    assert render_md([fig]) == '![](data:image/png;base64,iVBO)' != A.render_md([fig])

@pytest.mark.parametrize('t', ['hello\n\n' + INTERRUPTED, 'hello\n' + INTERRUPTED + '\n', '', 'a\n\n\n\nb'])
def test_ai_fmt(t):
    assert INTERRUPTED == A.INTERRUPTED
    assert ai_fmt(t) == A.ai_fmt(t)

def test_ai_fmt_strips_more():
    "Deliberate: a marker at the end of a line, and host noise (🧠 lines), are stripped too; tool blocks when asked"
    assert ai_fmt('hello ' + INTERRUPTED) == 'hello' != A.ai_fmt('hello ' + INTERRUPTED)
    tb = "<details class='tool-usage-details' markdown='1'>\n<summary><code>f()</code></summary>\n\n```json\n" \
         '{\n  "id": "t1",\n  "call": {"function": "f", "arguments": {}},\n  "result": "1"\n}\n```\n\n</details>'
    assert ai_fmt(f'a\n\n{tb}\n\nb') == A.ai_fmt(f'a\n\n{tb}\n\nb')
    assert ai_fmt(f'a\n\n{tb}\n\nb', strip_tools=True) == 'a\n\nb'

def test_render_out():
    "Message.render_out renders afresh and caches, as aidialog's does (ours also returns the text)"
    from dialog.core import Message
    outs = [dict(output_type='stream', name='stdout', text='a\rb\n')]
    m,n = Message('print(1)', output=outs),A.Message('print(1)', output=outs)
    n.render_out()
    assert m.render_out() == m.ai_output == n.ai_output == 'b\n'

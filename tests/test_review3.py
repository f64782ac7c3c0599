"Review of the day's changes (view's Markdown, dataset's packing): inputs the property tests don't generate"
import json, re, signal, pickle, datetime
from contextlib import contextmanager
from pathlib import Path
import pytest
from dialog.core import *
from dialog.view import dlg2md, msg2md
from dialog.dataset import _pack, _unpack

mdit = pytest.importorskip('markdown_it')
container = pytest.importorskip('mdit_py_plugins.container').container_plugin

def _quarto_md():
    md = mdit.MarkdownIt('commonmark')
    for n in ('prompt', 'reply', 'output', 'details'): md = md.use(container, name=n)
    return md

def _pandoc_top(md):
    "The classes of the divs Pandoc reads at the top level of `md`"
    pypandoc = pytest.importorskip('pypandoc')
    ast = json.loads(pypandoc.convert_text(md, 'json', format='markdown'))
    return [b['c'][0][1] for b in ast['blocks'] if b['t']=='Div']

def _two(reply):
    d = Dialog('p')
    d.mk_message('q', msg_type=sprompt, output=reply); d.mk_message('q2', msg_type=sprompt, output='r2')
    return d

def _mdit_divs(md, fenced):
    out = (_quarto_md() if fenced else mdit.MarkdownIt('commonmark')).render(md)
    return re.findall(r'<div class="(prompt|reply)">', out)

_want = [['prompt'], ['reply']]*2

# Pandoc reads any of its block-level HTML tags (`<hr>`, `<p>`, `<table>`, `<details>`, ...) as opening a block it fills until the end tag;
# with none in the message, the `:::` (or `</div>`) closing the reply is read as a paragraph inside it, and every later message nests in the reply.
# A tag mid-line (`Use <table> for that.`) interrupts the paragraph just the same, and so does a `<pre>`/`<script>`/`<textarea>` that isn't first on its line.
@pytest.mark.parametrize('reply', ['<hr>\nhi\n', '<p>\nhello\n', '<details><summary>x</summary>\nhi\n', 'Use <table> for that.\n', '<li>one\n<li>two\n',
                                   'x <pre>\n', 'x <textarea>\n', '<pre><script></pre>\n:::\n'])
@pytest.mark.parametrize('fenced', [True, False])
def test_pandoc_block_tags_left_open(reply, fenced):
    assert _pandoc_top(dlg2md(_two(reply), fenced=fenced)) == _want

@pytest.mark.parametrize('fenced', [True, False])
@pytest.mark.parametrize('reply', ['```\r\ncode\r\n', '```python\r\nx\r\n', 'a\r\n```\r\n'])
def test_crlf_code_fence_left_open(reply, fenced):
    "A code block opened on a CRLF line and left open: both renderers read `\\r\\n` as a line end, so the fence must be closed as with `\\n`"
    md = dlg2md(_two(reply), fenced=fenced)
    assert _mdit_divs(md, fenced) == ['prompt', 'reply']*2
    assert _pandoc_top(md) == _want

def test_crlf_code_block_text_kept():
    "A `:::` inside a CRLF code block is code: not escaped (a `\\` would show in the code)"
    out = _quarto_md().render(msg2md(Message('q', msg_type=sprompt, output='```\r\n:::\r\n```\r\n')))
    assert '<code>:::\n</code>' in out and '\\' not in out

@contextmanager
def _within(secs):
    "Fail (TimeoutError) if the block runs over `secs` seconds: a bound 20x or more over what a linear pass takes, to catch a quadratic one"
    def boom(*a): raise TimeoutError(f'over {secs} s')
    old = signal.signal(signal.SIGALRM, boom); signal.alarm(secs)
    try: yield
    finally: signal.alarm(0); signal.signal(signal.SIGALRM, old)

@pytest.mark.slow
@pytest.mark.parametrize('text', ['`'*20_000 + '<div>', '<div '*100_000, '<pre>\n'+'<div '*100_000], ids=['backticks', 'div-no-gt', 'div-no-gt-in-pre'])
def test_long_lines_linear(text):
    "A long line of backticks, or of `<div` with no `>`: the tag and code span regexes must not backtrack over the line from each place (the backticks took 6 s for 4,000)"
    with _within(10): msg2md(Message('q', msg_type=sprompt, output=text))

@pytest.mark.slow
@pytest.mark.parametrize('text', ['<pre>\n'*8000 + '</script>\n'*8000, '<pre>\n<script>\n'*4000 + '</pre>\n'*4000], ids=['other-end-tags', 'script-in-pre'])
def test_unclosable_raw_html_linear(text):
    "Raw HTML that can't close is found so at once: end tags are counted by kind (a `</script>` doesn't close a `<pre>`), so no opening is re-read from every line after it"
    with _within(10): msg2md(Message('q', msg_type=sprompt, output=text))

# dataset: what held (parts, the fallback to pickle, path hints come back as pickle brings them)
def _mk():
    d = Dialog('x'); d.mk_message('a', output=[dict(output_type='stream', name='stdout', text='hi')]); d.mk_message('b', msg_type=snote)
    return d
def _state(dl): return (type(dl), {k:v for k,v in vars(dl).items() if k!='_messages'}, [(type(m), {k:v for k,v in vars(m).items() if k!='_dlg'}) for m in dl.messages], dl.messages.items.ver, [m._dlg() is dl for m in dl.messages])

@pytest.mark.parametrize('path,hint', [('rel/x.ipynb', Path('rel/x.ipynb')), (Path('rel/x.ipynb'), Path('rel/x.ipynb')), (Path('rel/x.ipynb'), Path('other.ipynb')), (None, None)])
@pytest.mark.parametrize('extra', [None, datetime.date(2020, 1, 1)]) # a date: marshal can't write it, so the dialog is built from its parts and pickled
def test_parts_round_trip_as_pickle(tmp_path, path, hint, extra):
    from dialog.dataset import _Parts
    from dialog.ipynb import read_ipynb, read_ipynb_parts, write_ipynb
    f = tmp_path/'x.ipynb'; f.write_text(write_ipynb(_mk()), encoding='utf-8')
    d,parts = read_ipynb(f),_Parts(*read_ipynb_parts(f))
    for o in (d, parts.dlg):
        o.path = path
        if extra: o.extra = extra
    want = pickle.loads(pickle.dumps(d))
    assert _state(_unpack(_pack(parts), hint)) == _state(want)

"dlg2md's Markdown rendered by a real CommonMark renderer (markdown-it-py): the divs are divs, never text"
import base64, json, re, html as H
import pytest
from dialog.core import *
from dialog.view import dlg2md, msg2md

mdit = pytest.importorskip('markdown_it')
container = pytest.importorskip('mdit_py_plugins.container').container_plugin

def _dlg():
    d = Dialog('md')
    d.mk_message('# Title\n\nSome *prose*.', msg_type=snote)
    d.mk_message('print("hi")\nx', output=[dict(output_type='stream', name='stdout', text='10%\r100%\n'),
                 mk_displayobj({'text/html': '<table>\n<tr><td>1</td></tr>\n\n</table>', 'text/plain': 't'}),
                 mk_displayobj({'image/png': base64.b64encode(tiny_png).decode(), 'text/plain': '<Figure>'})])
    d.mk_message('Explain ::: this', msg_type=sprompt,
                 output='::: details\n## Thinking\nhmm\n:::\n\nIt is **so**.\n\n:::\nstray fence in a reply')
    d.mk_message('1/0', output=[dict(output_type='error', ename='ZeroDivisionError', evalue='division by zero', traceback=['1/0'])])
    return d

def _text(html):
    "The visible text of `html`: tags removed (code blocks included, where `:::` would be harmless but still text)"
    return H.unescape(re.sub(r'<[^>]+>', '', html))

def _quarto_md():
    md = mdit.MarkdownIt('commonmark')
    for n in ('prompt', 'reply', 'output', 'details'): md = md.use(container, name=n)
    return md

def test_fenced_divs_render_as_divs():
    "With a fenced-div plugin (what Quarto and Pandoc do natively) no `:::` line shows, and each class word is a div"
    out = _quarto_md().render(dlg2md(_dlg()))
    lines = [l for l in _text(out).split('\n') if l.strip().startswith(':::')]
    assert lines == [':::'], lines # only the reply's own stray fence, which is the reply's text
    assert [out.count(f'<div class="{c}">') for c in ('prompt', 'reply', 'output')] == [1, 1, 2]
    assert '<h2>Thinking</h2>' in out # the thinking div nested in the reply still renders

def test_plain_commonmark_shows_fences_as_text():
    "Why `fenced=False` exists: a renderer without the plugin prints the fence lines"
    out = mdit.MarkdownIt('commonmark').render(dlg2md(_dlg()))
    assert '::: prompt' in _text(out)

def test_html_divs_render_in_plain_commonmark():
    "`fenced=False`: the same classes as HTML divs, which plain CommonMark passes through, rendering the Markdown inside"
    src = dlg2md(_dlg(), fenced=False)
    out = mdit.MarkdownIt('commonmark').render(src)
    assert [out.count(f'<div class="{c}">') for c in ('prompt', 'reply', 'output')] == [1, 1, 2]
    assert '&lt;div' not in out and '::: prompt' not in _text(out) and '::: output' not in _text(out)
    assert '<strong>so</strong>' in out and '<h1>Title</h1>' in out
    assert out.count('<div') == out.count('</div>')

def test_images_inline_or_in_assets(tmp_path):
    d = _dlg()
    src = dlg2md(d)
    assert f'![](data:image/png;base64,{base64.b64encode(tiny_png).decode()})' in src
    src = dlg2md(d, assets=tmp_path/'img', rel=tmp_path)
    assert 'data:image' not in src and len(list((tmp_path/'img').iterdir())) == 1
    img = re.search(r'!\[\]\((img/[^)]+)\)', src)[1]
    assert (tmp_path/img).read_bytes() == tiny_png

@pytest.mark.parametrize('folder', ['my assets', 'img (1)', '100%', 'a<b>'])
def test_an_assets_folder_whose_name_breaks_a_link_still_shows_its_images(tmp_path, folder):
    "R38f: `--assets 'my assets'` wrote `![](my assets/x.png)`, which CommonMark (GitHub's, markdown-it's, Pandoc's GFM) shows as text: the path is percent-encoded where it would break the link, and decodes to the file"
    from urllib.parse import unquote
    d = _dlg(); d.mk_message('see ![x](attachment:a.png)', msg_type=snote).mk_attachment(tiny_png, 'image/png', 'a.png')
    src = dlg2md(d, assets=tmp_path/folder, rel=tmp_path)
    html = mdit.MarkdownIt('commonmark').render(src)
    srcs = re.findall(r'<img src="([^"]+)"', html)
    assert len(srcs)==2 and all((tmp_path/unquote(H.unescape(s))).read_bytes()==tiny_png for s in srcs), (src, html)

def test_html_output_is_raw_block():
    "HTML (a table with a blank line inside) goes in a `{=html}` raw block: Pandoc passes it through, CommonMark shows it as code, never half-parsed"
    src = dlg2md(_dlg())
    assert '```{=html}\n<table>\n<tr><td>1</td></tr>\n\n</table>\n```' in src

def test_streams_as_shown_and_weave():
    d = _dlg()
    assert '10%' not in dlg2md(d) and '100%' in dlg2md(d)
    w = dlg2md(d, weave=True)
    assert 'print("hi")' not in w and '100%' in w and 'python\n1/0' not in w and 'ZeroDivisionError: division by zero' in w
    assert '```python' not in w

def test_exportfilter():
    d = Dialog('e'); d.mk_message('import os'); d.mk_message('#| export\ndef f(): pass'); d.mk_message('f()', msg_type=snote)
    assert dlg2md(d, exportfilter=True) == '```python\n#| export\ndef f(): pass\n```\n'
    d2 = Dialog('e2'); d2.mk_message('a'); m = d2.mk_message('b'); m.pinned = True
    assert dlg2md(d2, exportfilter=True) == '```python\na\n```\n'

def test_msg2md_joins_to_dlg2md():
    d = _dlg()
    assert dlg2md(d) == '\n\n'.join(msg2md(m) for m in d.messages) + '\n'

def test_markdown_preferred_to_html():
    "An output with both: Markdown, which every renderer shows, rather than an HTML raw block CommonMark would show as code"
    m = Message('x', output=[mk_displayobj({'text/html': '<b>x</b>', 'text/markdown': '**x**', 'text/plain': 'x'})])
    assert msg2md(m) == '```python\nx\n```\n\n::: output\n**x**\n:::'

from hypothesis import given, settings, strategies as st
import signal
from contextlib import contextmanager
_txt = st.lists(st.sampled_from(['a', ' ', '\n', ':::', '::::', '::: details', '`', '```', '#', '*', '<div>', '</div>', '>', '<pre>', '</pre>', '<!--', '-->', '<style>', '</style>', '<textarea>', '</textarea>', '<?x', '?>', '<![CDATA[', ']]>', '<!X', '<p>', '</p>', '<hr>', ' <table> ', '<li>']), max_size=12).map(''.join)

@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_txt, _txt), min_size=1, max_size=3))
def test_divs_hold_whatever_the_text(pairs):
    "Whatever a prompt and its reply hold (colon fences, backticks, HTML), each message is exactly its divs: the fences outlast any inside"
    d = Dialog('p')
    for q,r in pairs: d.mk_message(q, msg_type=sprompt, output=r)
    out = _quarto_md().render(dlg2md(d))
    assert out.count('<div class="prompt">') == sum(bool(q.strip()) for q,r in pairs)
    assert out.count('<div class="reply">') == sum(bool(r.strip()) for q,r in pairs)

def _pandoc_divs(md):
    "The divs Pandoc reads in `md`, as (depth, classes), and its HTML"
    pypandoc = pytest.importorskip('pypandoc')
    ast = json.loads(pypandoc.convert_text(md, 'json', format='markdown'))
    res = []
    def walk(bs, depth):
        for b in bs:
            if b['t']=='Div': res.append((depth, b['c'][0][1])); walk(b['c'][1], depth+1)
    walk(ast['blocks'], 0)
    return res

@pytest.mark.parametrize('fenced', [True, False])
def test_pandoc_reads_the_divs(fenced):
    "Pandoc (what Quarto runs) reads both forms as the same divs: a reply's stray fence is its text, its thinking div nested in it"
    divs = _pandoc_divs(dlg2md(_dlg(), fenced=fenced))
    assert divs == [(0, ['output']), (0, ['prompt']), (0, ['reply']), (1, ['details']), (0, ['output'])]

_lines = st.lists(st.tuples(st.sampled_from(['a b', ':::', '::::', '::: details', '```', '```python', '```{=html}', '~~~', '<div>', '</div>', '<div class="x">', '# h', '> q',
                                              '<pre>', '</pre>', '<!-- c', '-->', '<script>', '<style>', '</style>', '<textarea>', '</textarea>',
                                              '<?x y', '?>', '<?x y ?>', '<![CDATA[', ']]>', '<!X', '>', '<hr>', '<p>', '</p>', 'Use <table> here',
                                              '<li>one', '<details>', '</details>', 'x <pre> y', '<hr/>', '<section>', '</section>']),
                            st.sampled_from(['\n', '\n\n'])), max_size=10).map(lambda ts: ''.join(w+s for w,s in ts))

@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_lines, _lines), min_size=1, max_size=2), st.booleans())
def test_pandoc_divs_hold_whatever_the_text(pairs, fenced):
    "Stray or unclosed div fences, `<div>` lines, code fences and raw HTML blocks (`<pre>`, `<!--`, `<?`, `<![CDATA[`…), each on its own line, never break Pandoc's divs (tokens glued into one line, like `<div>:::`, which Pandoc reads as a fence of class `</div>`, are out of scope)"
    d = Dialog('p')
    for q,r in pairs: d.mk_message(q, msg_type=sprompt, output=r)
    top = [c for depth,c in _pandoc_divs(dlg2md(d, fenced=fenced)) if depth==0]
    want = [c for q,r in pairs for c,t in ((['prompt'], q), (['reply'], r)) if t.strip()]
    assert top == want

@pytest.mark.parametrize('reply', ['::: details\n<pre>\n:::\n</pre>\n', '<pre>\n::: x\n</pre>', '<?x y ?>', '<?x\n:::\n?>', '<style>\n:::\n</style>', '<!--\n::::\n-->'])
@pytest.mark.parametrize('fenced', [True, False])
def test_fences_in_raw_html(reply, fenced):
    "A colon fence inside raw HTML is text to Pandoc but a fence to markdown-it's divs, and after a `<?` block Pandoc ends no div: both renderers still see each message's divs, and the next message's"
    d = Dialog('p')
    d.mk_message('q', msg_type=sprompt, output=reply); d.mk_message('q2', msg_type=sprompt, output='r2')
    md = dlg2md(d, fenced=fenced)
    assert [c for depth,c in _pandoc_divs(md) if depth==0] == [['prompt'], ['reply']]*2
    out = _quarto_md().render(md)
    assert out.count('<div class="prompt">') == 2 and out.count('<div class="reply">') == 2

@pytest.mark.parametrize('opener', ['<!--', '<pre>', '<?x', '<pre><!--'])
def test_many_raw_html_openings_left_open(opener):
    "Thousands of raw HTML blocks that never close (each would swallow the rest) are each escaped, in one pass: reading on from each one's opening, not from the top, which took minutes here"
    n = 20_000
    out = msg2md(Message('q', msg_type=sprompt, output=f'{opener}\n'*n))
    # a `<?` in a div is made text anyway; the comment after an escaped `<pre>` is left open at the line's end: text too
    want = '&lt;?x' if opener=='<?x' else '\\<pre>&lt;!--' if opener=='<pre><!--' else '\\'+opener
    assert out.split('::: reply\n')[1].split('\n')[:n+1] == [want]*n + ['']

def _pandoc_top(md):
    "The classes of the divs Pandoc reads at the top level of `md`"
    return [c for depth,c in _pandoc_divs(md) if depth==0]

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

# A raw HTML block (`<style>`, `<pre>`, `<!--`) may interrupt a paragraph in CommonMark, not in Pandoc: there `<style>` is
# read on in the paragraph, and a `<hr>` line in it opens a block the reply's end can't close. A blank line goes before it,
# but not where a tag line since the last blank one may have opened an HTML block only a blank line ends (CommonMark's
# kinds 6 and 7): the blank line would end that block early, and the lines after it read otherwise
@pytest.mark.parametrize('reply', ['::: details\n<style>\n<hr>\n</style>\n', 'x\n<style>\n<hr>\n</style>\n', 'x\n<pre>\n<hr>\n</pre>\n',
                                   '</style>\n</script>\n<pre>\n<style>\n</pre>\n```python\n</style>\n<hr>\n-->\n</div>\n</pre>\n\n```\n',
                                   '<div>\nx\n<pre>\n:::\n</pre>\n', '<kbd>Ctrl</kbd>+C copies\n<style>\n<hr>\n</style>\n',
                                   '<b>x</b>\n<style>\n<hr>\n</style>\n', '- a\n  <style>\n  <hr>\n  </style>\n- b\n'])
@pytest.mark.parametrize('fenced', [True, False])
def test_raw_html_after_a_paragraph(reply, fenced):
    md = dlg2md(_two(reply), fenced=fenced)
    if reply.startswith('- a'): assert '<p>' not in mdit.MarkdownIt('commonmark').render(msg2md(Message('q', msg_type=sprompt, output=reply), fenced=False)).split('<ul>')[1] # still tight
    assert _pandoc_top(md) == _want
    assert _mdit_divs(md, fenced) == ['prompt', 'reply']*2

def test_raw_html_blank_line_only_after_a_paragraph():
    "The blank line goes before a raw HTML block after a paragraph's line (one starting with an inline tag too), or after a list item or quote it isn't indented into; not in an HTML block only a blank line ends (a block-level tag, or a tag alone on its line), indented in a list item, nor at the reply's start"
    body = lambda r: msg2md(Message('q', msg_type=sprompt, output=r)).split('::: reply\n')[1]
    for para in ['x', '<b>x</b>', '<kbd>Ctrl</kbd>+C copies', '<img src=a> caption', '- a', '1. a', '> a']:
        assert body(f'{para}\n<style>\ny\n</style>\n').startswith(f'{para}\n\n<style>\n'), para
    for other in ['<b>', '<span class="x">', '</em>', '</style>']:
        assert body(f'{other}\n<style>\ny\n</style>\n').startswith(f'{other}\n<style>\n'), other
    assert body('- a\n  <style>\n  y\n  </style>\n').startswith('- a\n  <style>\n')
    assert body('<style>\ny\n</style>\n').startswith('<style>\n')

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


def test_an_images_base64_unpadded_or_broken_with_assets(tmp_path):
    "With images written as files, unpadded base64 is written as its padded self (as a data URI takes it), and base64 that isn't any is a ValueError naming the message (it was a bare 'Incorrect padding')"
    png = base64.b64encode(b'\x89PNG\r\n\x1a\n').decode()
    m = Message('show()', id='shown', output=[mk_displayobj({'image/png': png.rstrip('=')})])
    md = msg2md(m, assets=tmp_path)
    [f] = list(tmp_path.iterdir())
    assert f.read_bytes()==b'\x89PNG\r\n\x1a\n' and f.name in md
    m = Message('show()', id='broken', output=[mk_displayobj({'image/png': 'iVBO%%Kgo'})])
    with pytest.raises(ValueError, match="message 'broken': an image/png image is not valid base64"): msg2md(m, assets=tmp_path)


def test_attachment_references_resolved_outside_code():
    "A reference in any form Markdown and HTML give an image's source becomes the attachment's data; a fenced code block and a code span, one that wraps onto a second line too, keep `attachment:NAME` as written (each was rewritten into base64)"
    png = b'\x89PNG\r\n\x1a\n'
    txt = ('An image ![p](attachment:a.png), a span `![q](attachment:a.png)`, one that `wraps\n![w](attachment:a.png)` a line\n'
           '<img src="attachment:a.png"> <img src=attachment:a.png> ![x](<attachment:a.png>) ![y][r]\n\n[r]: attachment:a.png\n\n'
           '```\n![r](attachment:a.png)\n```')
    md = msg2md(Message(txt, msg_type='note', attachments=[Attachment(png, 'image/png', 'a.png')]))
    uri = 'data:image/png;base64,' + base64.b64encode(png).decode()
    assert md.count(uri)==5 and f'![p]({uri})' in md and f'src="{uri}"' in md and f'[r]: {uri}' in md
    assert '`![q](attachment:a.png)`' in md and '`wraps\n![w](attachment:a.png)`' in md and '```\n![r](attachment:a.png)\n```' in md

class _TooMuch(Exception): pass

@pytest.mark.parametrize('pattern', ['<pre>\nx\n</pre>\n<pre>\n', '<pre>\n<pre>\nx\n</pre>\n'])
def test_raw_html_left_open_again_and_again_linear(monkeypatch, pattern):
    "A reply where `<pre>` blocks keep opening inside each other and never all close: each was read to where it couldn't close, then the next from the line after its opening, O(n²) (42 KB: 24 s). The lines read are counted, and stay within a few times the text's"
    import dialog.view as V
    real,calls = V._html_in,[0]
    n = 4000
    lines = pattern.count('\n')*n
    def counted(l, st):
        calls[0] += 1
        if calls[0]>6*lines: raise _TooMuch(f'over {6*lines} lines of raw HTML read for {lines} lines')
        return real(l, st)
    monkeypatch.setattr(V, '_html_in', counted)
    msg2md(Message('q', msg_type=sprompt, output=pattern*n))
    assert calls[0]<=6*lines

@pytest.mark.parametrize('fenced', [True, False])
def test_raw_html_left_open_again_and_again_keeps_divs(fenced):
    "Once the lines read again pass their budget, a block still open after a few lines is escaped as one that never closes: Pandoc and markdown-it still read each message's divs, and the text after"
    md = dlg2md(_two('<pre>\nx\n</pre>\n<pre>\n'*1500 + 'tail\n'), fenced=fenced)
    assert _pandoc_top(md) == _want
    assert _mdit_divs(md, fenced) == ['prompt', 'reply']*2

@pytest.mark.parametrize('fenced', [True, False])
def test_a_block_that_closes_after_the_budget_is_spent_keeps_the_divs(fenced):
    "Past the budget of lines read again, a `<pre><!--` block that does close was escaped as one that never does, and its comment, now inline, hid a fence from Pandoc and the next message's divs went into the reply (R25a)"
    prefix = '<pre>\n'*3 + '<script>\n' + 'x\n'*5000 + '</pre>\n'*3 + '</script>\n\n'  # read again some 15,000 lines
    for suffix in ('<pre><!--\n```\n<script>\n?>\n<style>\n--></pre>\n<pre>\n', '<pre><!--\n~~~\n--></pre>\n<style>'):
        md = dlg2md(_two(prefix+suffix), fenced=fenced)
        assert _pandoc_top(md) == _want and _mdit_divs(md, fenced) == ['prompt', 'reply']*2

@pytest.mark.parametrize('reply', ['x <!--\n~~~\n--></pre>\n<style>', 'see <?x\n```\n?></pre>\n<style>', 'a <!-- b\n\n:::\n-->\n'])
@pytest.mark.parametrize('fenced', [True, False])
def test_an_inline_comment_left_open_hides_nothing(reply, fenced):
    "An inline comment (or `<?`) left open at its line's end: Pandoc reads on to its `-->`, over blank lines and fences, where CommonMark stops at a blank line; its `<` is made text, so both read what follows alike"
    md = dlg2md(_two(reply), fenced=fenced)
    assert _pandoc_top(md) == _want and _mdit_divs(md, fenced) == ['prompt', 'reply']*2
    assert '&lt;' in md

@pytest.mark.parametrize('reply', ['x `<!--` y\n```\nz\n```\n', 'x \\<!-- y\n```\nz\n```\n'])
def test_an_inline_comment_in_code_or_escaped_is_left_as_written(reply):
    "`<!--` in a code span, or after a backslash, is text already: not made text again (it would show `&lt;`)"
    md = msg2md(Message('q', msg_type=sprompt, output=reply))
    assert '&lt;' not in md and reply.split('\n')[0] in md

@pytest.mark.parametrize('lead', ['- see the config:', '1. see the config:', '> the docs say:'])
def test_raw_html_after_a_list_item_or_quote_is_not_read_into_it(lead):
    "Raw HTML not indented after a list item or a quote is outside it to CommonMark; Pandoc reads it (and the paragraph after) into the item, its `<pre>` text losing indentation, unless a blank line goes before it"
    pypandoc = pytest.importorskip('pypandoc')
    md = msg2md(Message('q', msg_type=sprompt, output=f'{lead}\n<pre>\nserver:\n    port: 80\n</pre>\nThen restart.\n'))
    html = pypandoc.convert_text(md, 'html', format='markdown')
    assert '\n    port: 80\n' in html.split('<pre>')[1].split('</pre>')[0]
    assert html.index('<p>Then restart.</p>') > max(html.find('</ul>'), html.find('</ol>'), html.find('</blockquote>'))

@pytest.mark.parametrize('reply', ['1. Edit the config:\n  <pre>\nport: 80\n  </pre>\nThen restart.\n', '- see:\n <pre>\nport: 80\n </pre>\nThen restart.\n',
                                   '10. see:\n   <pre>\nport: 80\n   </pre>\nThen restart.\n', '> q\n <pre>\nport: 80\n </pre>\nThen restart.\n'])
def test_raw_html_indented_less_than_the_item_is_outside_it(reply):
    "Raw HTML indented less than a list item's content (or any, after a quote) is outside it to CommonMark: it gets its blank line, so Pandoc doesn't read it (and the paragraph after) into the item"
    pypandoc = pytest.importorskip('pypandoc')
    html = pypandoc.convert_text(msg2md(Message('q', msg_type=sprompt, output=reply)), 'html', format='markdown')
    assert html.index('<p>Then restart.</p>') > max(html.find('</ul>'), html.find('</ol>'), html.find('</blockquote>'))

@pytest.mark.parametrize('folder', ['take#2', 'what?'])
def test_an_assets_folder_named_with_a_fragment_or_query_sign_still_shows_its_images(tmp_path, folder):
    "R39b: `#` and `?` in the folder were left raw, read as a fragment or a query: the image didn't load"
    from urllib.parse import unquote, urlsplit
    d = _dlg()
    src = dlg2md(d, assets=tmp_path/folder, rel=tmp_path)
    s = re.search(r'<img src="([^"]+)"', mdit.MarkdownIt('commonmark').render(src))[1]
    u = urlsplit(H.unescape(s))
    assert not u.fragment and not u.query and (tmp_path/unquote(u.path)).read_bytes()==tiny_png

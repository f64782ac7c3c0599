"dialog.chat: the contract other modules build on (system prompt, tool blocks, reply parsing, AI renders and their cache)"
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb
from dialog.chat import *

def test_system_roundtrip_and_removal():
    d = Dialog('s', meta={'solveit': {'ver': 2}})
    d.system = 'be brief'
    d2 = reads_ipynb(write_ipynb(d))
    assert d2.system == 'be brief' and d2.meta['solveit'] == {'ver': 2}
    d2.system = None
    assert d2.meta == {'solveit': {'ver': 2}}
    d2.system = None  # clearing twice is fine
    assert d2.meta == {'solveit': {'ver': 2}}

def test_system_bad_meta():
    d = Dialog('s', meta={'dialog': 'oops'})
    assert d.system is None
    with pytest.raises(ValueError, match="meta\\['dialog'\\]"): d.system = 'x'

def _blocks_reply(calls):
    return '\n\n'.join(tool_block(*c) for c in calls)

ids = st.text('abcdefghijklmnopqrstuvwxyz0123456789_-', min_size=1, max_size=12)
jsonable = st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3), max_leaves=6)

@given(st.lists(st.tuples(st.text('abc \n*`#-', min_size=1).filter(str.strip), ids, st.from_regex(r'[a-z_]{1,10}', fullmatch=True),
                          st.dictionaries(st.text(max_size=8), jsonable, max_size=3), st.text()), max_size=4), st.booleans())
def test_tool_block_parse_roundtrip(steps, lead):
    "Any call written by `tool_block` reads back exactly, in place between text parts"
    items = [x for t,*c in steps for x in ([('text', f'x{t}y')] if lead else []) + [('tool', c)]]
    got = parse_reply('\n\n'.join(tool_block(*v) if k=='tool' else v for k,v in items))
    exp = [dict(type='tool', id=v[0], name=v[1], args=v[2], result=v[3], server=False, extra={}) if k=='tool' else dict(type='text', text=v)
           for k,v in items]
    assert got == exp

def test_extra_and_server_ride_along():
    b = tool_block('c1', 'bash', {'cmd': 'ls'}, 'a\n', success=True, exit_code=0)
    p, = parse_reply(b)
    assert p['extra'] == {'success': True, 'exit_code': 0} and not p['server']
    p, = parse_reply(tool_block('c2', 'web_search', {'q': 'x'}, 'r', server=True))
    assert p['server'] and p['extra'] == {}

def test_unicode_and_fences_in_results():
    res = 'line1\n```\nnot the end\n```\n</details>\n🧠\n- ⏳ <code>x</code> ⏳'
    p, = parse_reply(tool_block('i', 'f', {'a': 'é'}, res))
    assert p['result'] == res and p['args'] == {'a': 'é'}

def test_ai_output_cache_never_stale():
    "`ai_output` is cached in `_ai_rend`; assigning output, content or msg_type drops it"
    m = Message('1+1', output=code_output('2'))
    assert m.ai_output == '2' and m._ai_rend == '2'
    m.output = code_output('3')
    assert m._ai_rend is None and m.ai_output == '3'
    m.ai_output
    m.content = '1+2'
    assert m._ai_rend is None
    m.ai_output
    m.msg_type = sprompt  # the output list is no longer a reply: nothing was said by the AI
    assert m._ai_rend is None and m.ai_output == ai_fmt('')
    m.output = 'now a reply'
    assert m.ai_output == 'now a reply'
    m.msg_type = snote
    assert m.ai_output == ''
    m = Message('x', output=[])
    m.add_output(mk_stream('hi\n'))
    assert m.ai_output == 'hi\n'
    m.add_output(mk_stream('there\n'))
    assert m.ai_output == 'hi\nthere\n'

def test_render_outputs_order_and_no_eval():
    outs = [code_output('1e3')[0], {'output_type': 'stream', 'name': 'stdout', 'text': '0.10\n'}, code_output("{'a': 1}")[0]]
    assert render_outputs_ai(outs) == "1e3\n0.10\n{'a': 1}"
    assert render_outputs_ai([{'output_type': 'display_data', 'metadata': {}, 'data': {'application/json': {'a': [1, 2]}}}]) == '{"a": [1, 2]}'
    assert render_outputs_ai([{'output_type': 'display_data', 'metadata': {}, 'data': {'image/svg+xml': ['<svg>', '</svg>']}}]) == '<svg></svg>'

def test_trim_blank_matches_its_definition():
    "The fast blank-line trimmer agrees with the regex that defines it, on every short string of the relevant characters"
    import itertools, re
    from dialog.chat import _trim_blank
    def ref(s): return re.sub(r'(?:\n[ \t]*)+\Z', '', re.sub(r'\A(?:[ \t]*\n)+', '', s))
    for n in range(7):
        for t in itertools.product(' \ta\n', repeat=n): assert _trim_blank(''.join(t)) == ref(''.join(t))

def test_stray_image_bracket_stays_in_its_message():
    "A lone `![` in one note must not join with a later note's image reference (found by the generated-dialog property)"
    d = Dialog('x')
    d.mk_message('![', msg_type=snote)
    d.mk_message('![x](attachment:a)', msg_type=snote).mk_attachment(tiny_png, 'image/png', 'a')
    d.mk_message('What is in the picture?', msg_type=sprompt)
    for fmt in ('openai', 'anthropic'):
        h = dlg2chat(d, fmt)
        assert dlg2chat(chat2dlg(h, fmt), fmt)==h
        assert '![\n' in h[0]['content'][0]['text']

def test_dlgs2jsonl_takes_the_list_dlg_paths_gives(tmp_path):
    "`dlg_paths` returns a fastcore `L` of files: `dialog.dataset`'s `paths2jsonl` writes them as chat's writes the dialogs read one by one, as for a plain list"
    pytest.importorskip('pyarrow')
    from fastcore.utils import L
    from dialog.ipynb import read_ipynb
    from dialog.dataset import dlg_paths, paths2jsonl
    for i in range(3):
        d = Dialog(f'd{i}'); d.mk_message(f'q{i}', msg_type='prompt', output=f'a{i}'); d.save(tmp_path/f'd{i}.ipynb')
    ps = dlg_paths(tmp_path)
    assert isinstance(ps, L) and len(ps) == 3
    want = dlgs2jsonl([read_ipynb(p) for p in ps], tmp_path/'one.jsonl').read_bytes()
    assert want.count(b'\n') == 3
    assert paths2jsonl(ps, tmp_path/'l.jsonl', workers=0).read_bytes() == want
    assert paths2jsonl(list(ps), tmp_path/'p.jsonl', workers=0).read_bytes() == want
    with pytest.raises(ValueError, match="item 0 is a path.*`paths2jsonl` writes files"): dlgs2jsonl(ps, tmp_path/'c.jsonl')  # chat's takes dialogs only

def test_chat_never_imports_dataset():
    "Module dependencies point one way: dialog.dataset builds on dialog.chat, so nothing in chat imports it, at import time or inside a function"
    import ast, dialog.chat as chat
    tree = ast.parse(open(chat.__file__).read())
    mods = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in mods if m and 'dataset' in m], mods

@given(st.lists(st.tuples(st.sampled_from(['text', 'call', 'broken', 'fenced', 'thought']), st.text('ab <>`\n*-', max_size=8)), max_size=5))
def test_has_tool_block_agrees_with_parse_reply(items):
    "`has_tool_block` finds a block wherever `parse_reply` reads one (a call) or leaves one as text (JSON an edit broke), and nowhere else"
    def piece(kind, t):
        blk = tool_block('c1', 'f', {'a': t}, t)
        if kind=='call': return blk
        if kind=='broken': return blk.replace('"call"', '"call', 1)
        if kind=='fenced': return '```json {.tool}\n{"id": "c2", "name": "g", "args": {}}\n```'
        if kind=='thought': return f'<!--think_start-->{blk}<!--think_end-->'
        return f'x{t}y'
    reply = '\n\n'.join(piece(*i) for i in items)
    blocks = any(k in ('call', 'broken', 'fenced') for k,_ in items)
    assert has_tool_block(reply) == blocks
    parts = parse_reply(reply)
    assert any(has_tool_block(p['text']) for p in parts if p['type']=='text') == any(k=='broken' for k,_ in items)
    assert sum(p['type']=='tool' for p in parts) == sum(k in ('call', 'fenced') for k,_ in items)

def test_has_tool_block_linear_on_unclosed_openings():
    "Many openings never closed, then one closing: one scan, not one per opening"
    import time
    txt = "<details class='tool-usage-details'>\n```json\n{" * 20_000 + '\n```\n</details>'
    t = time.perf_counter(); has_tool_block(txt)
    assert time.perf_counter()-t < 2
    with pytest.raises(ValueError, match='must be a str'): has_tool_block(b'x')

def test_attachment_references_read_in_one_pass():
    "A prompt of many unclosed references (`![x](attachment:`, `[a](attachment:`, or URLs, with no `)` after): each pattern stops at the next reference's `(`, so dlg2chat reads it in one pass (it scanned to the end from every `[`: 40,000 took many minutes), and a reference after them is still an image"
    import subprocess, sys
    code = '''
from dialog.core import *
from dialog.chat import dlg2chat
for pat in ('![x](attachment:', '[a](attachment:', '![x](http:', '[a](http:'):
    d = Dialog('d'); m = d.mk_message(pat*40_000 + ' "sent as image" "sent as text/plain" ![p.png](attachment:p.png)', msg_type='prompt')
    m.attachments = [Attachment(tiny_png, 'image/png', 'p.png')]
    c = dlg2chat(d, 'anthropic')[0]['content']
    assert [b['type'] for b in c]==['text', 'image'], pat
'''
    subprocess.run([sys.executable, '-c', code], check=True, timeout=120)

def test_prompt_and_reply_patterns_read_in_one_pass():
    "LaTeX display math (`\\[ .. \\]`, every bracket escaped) beside one attachment: a link's name runs to the next bare bracket, so `_re_file` scanned to the end from every `[` (65 KB: 6 s); a link that can't start at a `[` can't start at one its name took, so the search resumes after it. And a reply of white space before `INTERRUPTED`'s check (`\\s*` tried from every space). 400 KB each, in one process: seconds if linear, minutes if not"
    import subprocess, sys
    code = r'''
from dialog.core import *
from dialog.chat import dlg2chat, parse_reply
d = Dialog('d'); m = d.mk_message('The sum \\[ \\sum_i x_i \\] holds.\n'*12_000 + '![p.png](attachment:p.png) [doc](attachment:p.txt)', msg_type='prompt')
m.attachments = [Attachment(tiny_png, 'image/png', 'p.png'), Attachment(b'hi', 'text/plain', 'p.txt')]
assert [b['type'] for b in dlg2chat(d, 'anthropic')[0]['content']]==['text', 'image', 'document']
assert parse_reply(' \n'*200_000 + 'x *[Response interrupted]*')==[dict(type='text', text='x')]
'''
    subprocess.run([sys.executable, '-c', code], check=True, timeout=60)

@given(st.lists(st.sampled_from(['[', ']', '\\', '!', '(', ')', 'a', ' ', '\\[', '\\]', '\\\\', '](attachment:x)', '](http:u "sent as a/b")', 'attachment:']), max_size=16).map(''.join))
@settings(max_examples=500, deadline=None)
def test_property_skipping_link_patterns_find_the_plain_ones_links(s):
    "The link patterns that skip a name holding `\\[` (`_links`, used on a text holding one) find the very links the plain patterns find, at the same places with the same groups"
    from dialog.chat import _re_file, _re_url_file
    for plain, skipping in (_re_file, _re_url_file):
        assert [(m.span(), m.groups()) for m in skipping.finditer(s) if m.lastindex] == [(m.span(), m.groups()) for m in plain.finditer(s)]

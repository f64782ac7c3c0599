"Reading and stamping take shortcuts (a block's JSON built from the C encoder's pieces, block patterns spelled a line at a time, a reply's blocks read off the items it was made of, stamping without re-checking): each gives what the long way gives"
import json, re, copy
from hypothesis import given, settings, HealthCheck, strategies as st
import dialog.chat as C
from dialog.chat import chat2dlg, dlg2chat, think_block
from dialog.ipynb import reads_ipynb, write_ipynb
from test_chat_reasoning import thinking_at

# ---------- a block's JSON ----------
json_vals = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                         lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4), max_leaves=20)

@given(json_vals)
@settings(max_examples=300, deadline=None)
def test_block_json_is_json_dumps_with_indent(o):
    assert C._jindent(o) == json.dumps(o, indent=2, ensure_ascii=False)

def test_block_json_leaves_other_types_to_json_dumps():
    "Tuples, subclasses, keys that aren't str, and deep nesting aren't JSON's own types: `json.dumps` spells them (or says why not)"
    class D(dict): pass
    for o in [(1, 2), {1: 'a'}, D(a=1), {'a': {1, 2}}, json.loads('[' * 150 + ']' * 150)]: assert C._jindent(o) is None
    args = {'a': (1, 2), 1: 'x'}
    assert C._block('c1', 'f', args, 'r', {})[1] == json.dumps(dict(id='c1', call=dict(function='f', arguments=args), result='r'), indent=2, ensure_ascii=False)
    try: C.tool_block('c1', 'f', {'a': {1, 2}}, 'r'); assert False
    except ValueError as e: assert 'JSON-serializable' in str(e)

# ---------- the block patterns: the same matches as their `.*?` spelling ----------
_old_details = re.compile(r"""<details\s+class=(['"])tool-usage-details\1(?:\s+markdown=(['"])1\2)?\s*>\s*"""
    r"""(?:<summary>(?:(?!</summary>|<details).)*</summary>\s*|[^<`]*?\n)?```[ \t]*json[ \t]*\n(?P<js>.*?)\n[ \t]*```\s*</details>""", re.S)
_old_fenced = re.compile(r"""^```[ \t]*json[ \t]*\{\.tool\}[ \t]*\n(?P<js>.*?)\n```[ \t]*$""", re.S | re.M)
frags = st.lists(st.sampled_from(["<details class='tool-usage-details' markdown='1'>", '<details class="tool-usage-details">', '<summary>', '</summary>', '<code>f()</code>',
    '<details', '<', '\n', ' ', '\t', '```json', '```json {.tool}', '```', '</details>', '{', '"a": 1', '}', 'x', '`']), max_size=30).map(''.join)

@given(frags)
@settings(max_examples=500, deadline=None)
def test_block_patterns_match_as_their_lazy_spelling(t):
    for new, old in ((C._re_details[0], _old_details), (C._re_fenced[0], _old_fenced)):
        assert [(m.span(), m['js']) for m in new.finditer(t)] == [(m.span(), m['js']) for m in old.finditer(t)]

# ---------- a reply's blocks, read off its items ----------
special = ['<!--think_start-->', '<!--think_end-->', '<!-- think_start -->', "<details class='tool-usage-details'>", '```json {.tool}', '```json',
           '```', '</details>', '🧠', '⏳x⏳', '*[Response interrupted]*', "<details class='token-usage-details'>", 'think_']  # what a reply's reading looks for
mtext = st.lists(st.sampled_from(['a', ' ', '\n', '\n\n', '{', '"'] + special), min_size=1, max_size=8).map(''.join)
def blank_block(h): return any(isinstance(m.get('content'), list) and any(b.get('type') == 'text' and not b['text'].strip() for b in m['content']) for m in h)
# a history whose texts read back as written, and sent as written (Anthropic refuses a whitespace-only text block: never sent)
def plain(h): return not any(s in json.dumps(h, ensure_ascii=False) for s in special) and not blank_block(h)
calls = st.builds(lambda i, r, a, srv: dict(id=f'c{i}', name='f', args={'x': a}, result=r, extra={'server': True} if srv else {}),
                  st.integers(0, 99), st.none() | mtext, mtext, st.booleans())
items = st.lists(st.one_of(mtext, mtext.map(think_block), st.lists(st.one_of(calls, mtext), min_size=1, max_size=3).filter(lambda l: not isinstance(l[0], str))), max_size=6)

@given(items)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_blocks_read_off_the_items_are_the_blocks_searched_for(its):
    md, blocks = C._reply_md(its)
    assert md == '\n\n'.join(it if isinstance(it, str) else '\n'.join(c if isinstance(c, str) else C.tool_block(c['id'], c['name'], c['args'], c['result'], **c['extra']) for c in it) for it in its)
    if (segs := C._known_segs(md, (md, blocks))) is not None: assert segs == C._segments(md)
    if all(C._plain(c) for it in its for c in (it if isinstance(it, list) else [it]) if isinstance(c, str)): assert segs is not None  # no marker, no search

def test_known_blocks_are_used_only_for_their_own_text():
    md, blocks = C._reply_md([[dict(id='c1', name='f', args={}, result='r', extra={})]])
    assert C._known_segs(md, (md, blocks)) is not None and C._known_segs(md + ' ', (md, blocks)) is None and C._known_segs(md, None) is None

# ---------- stamping: what chat2dlg stamps is what dlg2chat checks ----------
def stamps(d): return [(r['step'], r['steps'], r.get('prefix'), r.get('own')) for m in d.messages for r in (m.meta.get('dialog') or {}).get('wire', [])]

def same_stamps(a, b):
    "Stamps `a` (chat2dlg's) are `b` (the long way's), but where Anthropic's prefix check (`_unprefixed`, after stamping) marked a record unsendable"
    return len(a) == len(b) and all(x[:2] == y[:2] and x[3] == y[3] and x[2] in ('unsendable', y[2]) for x, y in zip(a, b))

def searched_stamps(d, fmt):
    "The stamps a stamping render writes that searches each reply's markdown for its blocks (the long way)"
    d = copy.deepcopy(d)
    for m in d.messages:
        for r in (m.meta.get('dialog') or {}).get('wire', []): r.pop('prefix', None); r.pop('own', None)
    C._render(C._units(d.messages), fmt, d.system, stamp='copies')
    return stamps(d)

@st.composite
def an_marked(draw):
    "Anthropic tool loops with thinking whose texts, thinking and results hold the markers a reply's reading looks for"
    h, n, k = [{'role': 'user', 'content': draw(mtext)}], draw(st.integers(1, 3)), 0
    for j in range(n):
        c = [{'type': 'thinking', 'thinking': draw(mtext), 'signature': f'S{j}'}] if draw(st.booleans()) else []
        if draw(st.booleans()): c.append({'type': 'text', 'text': draw(mtext)})
        nc = 0 if j == n-1 else draw(st.integers(1, 2))
        for _ in range(nc): k += 1; c.append({'type': 'tool_use', 'id': f'toolu_{k}', 'name': 'f', 'input': {'x': draw(mtext)}})
        # a turn showing nothing (thinking, blank text) isn't sent: each turn shows a call or some text
        if not any(b['type'] == 'tool_use' or (b['type'] == 'text' and b['text'].strip()) for b in c): c.append({'type': 'text', 'text': 'ok'})
        h.append({'role': 'assistant', 'content': c})
        if nc: h.append({'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': b['id'], 'content': draw(mtext)} for b in c if b['type'] == 'tool_use']})
    return h

@given(an_marked())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_anthropic_stamps_are_the_long_ways_and_checked_as_valid(h):
    d = chat2dlg(h, 'anthropic', system='sys')
    assert same_stamps(stamps(d), searched_stamps(d, 'anthropic'))
    out = dlg2chat(reads_ipynb(write_ipynb(d)), 'anthropic')
    k = max((i for i,m in enumerate(h) if m['role'] == 'assistant' and thinking_at([m])[0]), default=-1) + 1
    sent = [r for m in d.messages for r in m.meta['dialog'].get('wire', [])] if 'dialog' in d.messages[0].meta else []
    if plain(h) and all(r['prefix'] != 'unsendable' for r in sent):  # a reply that reads back as it was written, and a prefix sent as it came: every turn goes back as it came
        assert out[:k] == h[:k]

@st.composite
def rs_marked(draw):
    "Codex-like Responses histories: reasoning items with encrypted content, function calls and outputs, texts holding markers"
    h, n = [{'type': 'message', 'role': 'user', 'content': [{'type': 'input_text', 'text': draw(mtext)}]}], draw(st.integers(1, 3))
    for j in range(n):
        h.append({'type': 'reasoning', 'id': f'rs_{j}', 'summary': [{'type': 'summary_text', 'text': draw(mtext)}] if draw(st.booleans()) else [], 'encrypted_content': f'gAAA{j}'})
        if j < n-1: h += [{'type': 'function_call', 'name': 'shell', 'arguments': json.dumps({'cmd': draw(mtext)}), 'call_id': f'c{j}'},
                          {'type': 'function_call_output', 'call_id': f'c{j}', 'output': draw(mtext)}]
        else: h.append({'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'ok ' + draw(mtext)}]})  # a blank answer isn't sent
    return h

@given(rs_marked())
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_responses_stamps_are_the_long_ways(h):
    d = chat2dlg(h, 'responses', system='sys')
    assert same_stamps(stamps(d), searched_stamps(d, 'responses'))
    if plain(h):  # texts that read back as written: every reasoning item goes back
        assert sum(x.get('type') == 'reasoning' for x in dlg2chat(reads_ipynb(write_ipynb(d)), 'responses')) == sum(x['type'] == 'reasoning' for x in h)

# ---------- the system prompt's blocks, given back without re-reading them ----------
sys_texts = st.text(st.sampled_from('ab \n'), max_size=5)
sys_blocks = st.lists(st.builds(lambda t, cc: {'type': 'text', 'text': t} | ({'cache_control': {'type': 'ephemeral'}} if cc else {}), sys_texts, st.booleans()), min_size=1, max_size=4)
junk = st.recursive(st.none() | st.integers() | st.text(max_size=3), lambda k: st.lists(k, max_size=3) | st.dictionaries(st.sampled_from(['type', 'text', 'x']), k, max_size=3), max_leaves=8)

@given(sys_blocks, st.one_of(st.none(), sys_texts), junk)
@settings(max_examples=300, deadline=None)
def test_dlg2system_blocks_say_the_dialogs_system_prompt(bs, edit, bad):
    "`dlg2system` gives the kept blocks back without re-reading the history: whatever they are (as given, after an edit of the prompt, after a hand edit of the metadata), what Anthropic reads is the dialog's system prompt, and the blocks come back exactly while it is unedited"
    d = reads_ipynb(write_ipynb(chat2dlg([{'role': 'user', 'content': 'hi'}], 'anthropic', system=bs)))
    joined = '\n\n'.join(b['text'] for b in bs)
    want = None if not joined.strip() else bs if len(bs) > 1 or len(bs[0]) > 2 else joined
    assert C.dlg2system(d) == want
    for change in (lambda: setattr(d, 'system', edit), lambda: d.meta.setdefault('dialog', {}).__setitem__('system_blocks', bad)):
        change()
        got = C.dlg2system(d)
        assert (got is None) == (not (d.system and d.system.strip()))
        if got is not None: assert C._system_arg(got) == d.system

# ---------- a lone thinking item, and a history with no SDK object in it ----------
def _denoise_long(s):
    "`_denoise` the long way: token blocks out, thinking out, noise lines out"
    if (e := C._closed(C._re_token, s)): s = C._re_token[0].sub('', s[:e]) + s[e:]
    s = C._unthink(s)
    return C._re_noise_lines.sub('', s) if '🧠' in s or '⏳' in s else s

ws = st.sampled_from(['', ' ', '\n', '\n\n', ' \t\n ', '\x0c', '\u2028', 'x', '\n🧠\n', '<'])

@given(mtext, ws, ws)
@settings(max_examples=600, deadline=None)
def test_lone_thinking_denoises_as_the_long_way(t, head, tail):
    "A reply's thinking item (`think_block`), or a gap holding one between white space, is noise found without a search: the shortcut gives what the search gives, on thinking and on what only looks like it"
    for s in (think_block(t), head + think_block(t) + tail, head + '<!--think_start-->' + t + '<!--think_end-->' + tail, t + '<!--think_end-->' + tail):
        assert C._denoise(s) == _denoise_long(s)
    assert C._denoise(think_block(t)) == ''

class _SDKish:
    "An object an SDK gives: it has `model_dump`"
    def __init__(self, d): self.d = d
    def model_dump(self, **kw): return dict(self.d)

@given(st.dictionaries(st.sampled_from(['role', 'content', 'items', 'x']), json_vals, max_size=4))
@settings(max_examples=300, deadline=None)
def test_plain_json_history_entries_are_taken_as_they_are(m):
    "A message of JSON's own types is given back as it is (no copy, no attribute lookups); an SDK object in one of its lists is still converted"
    assert C._sdk_json(m) is m
    got = C._sdk_json(m | {'content': [_SDKish({'type': 'text', 'text': 'a'}), 'b']})
    assert got['content'] == [{'type': 'text', 'text': 'a'}, 'b']

"dialog.chat against the providers: SDK-validated output, ordering rules, round trips, generated dialogs, corpus, JSON Lines"
import base64, json, random, pytest
from pathlib import Path
from hypothesis import given, note, settings, HealthCheck, strategies as st
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb, read_ipynb
from dialog.chat import *
from dialog.chat import _trim_blank
import dialog.chat as chat
from chat_checks import check_history, sdk_valid, anthropic_rules, assert_same

fmts = ('openai', 'anthropic')
from shared_paths import need_corpus

# ---------- generated histories (built independently of the code under test) ----------
texts = st.text(st.sampled_from('ab c\n*#`é'), min_size=1, max_size=30).filter(lambda s: s.strip() and s == _trim_blank(s))
ids = st.text('abcdefghijklmnopqrstuvwxyz0123456789_', min_size=4, max_size=10)
jsonv = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6), lambda c: st.lists(c, max_size=2) | st.dictionaries(st.text(max_size=4), c, max_size=2), max_leaves=4)
argss = st.dictionaries(st.text(max_size=5), jsonv, max_size=3)
magic = {'image/png': b'\x89PNG\r\n\x1a\n', 'image/jpeg': b'\xff\xd8\xff', 'image/gif': b'GIF89a', 'image/webp': b'RIFF\0\0\0\0WEBP'}
# each image starts as its type says (dlg2chat sends the type its bytes say: providers refuse a mislabelled image)
images = st.tuples(st.sampled_from(img_mimes), st.binary(max_size=20)).map(lambda t: (t[0], base64.b64encode(magic[t[0]] + bytes(24) + t[1]).decode()))  # zeros where a header gives the size: never over a limit

@st.composite
def user_parts(draw):
    "Text and image parts, never two texts side by side (a turn's adjacent texts join: the documented normalisation)"
    n, res = draw(st.integers(1, 4)), []
    for _ in range(n):
        if res and res[-1][0] == 'text' or draw(st.booleans()): res.append(('image', draw(images)))
        else: res.append(('text', draw(texts)))
    return res

@st.composite
def convo(draw):
    "A neutral conversation: system, then exchanges (user parts, rounds of (text, [calls])); every exchange but the last has a reply"
    n, used = draw(st.integers(1, 4)), set()
    def call():
        i = draw(ids.filter(lambda x: x not in used)); used.add(i)
        return dict(id=i, name=draw(st.from_regex(r'[a-z_]{1,8}', fullmatch=True)), args=draw(argss), result=draw(st.text(max_size=20).map(lambda r: r if r.strip() and r!=no_output else '')),  # a blank result goes to Anthropic as no_output, read back as '': no_output itself means no output
                    compact=draw(st.booleans()))
    exs = []
    for k in range(n):
        rounds, nr = [], draw(st.integers(1 if k < n-1 else 0, 3))
        for r in range(nr):
            last = r == nr-1
            calls = [call() for _ in range(draw(st.integers(0 if last else 1, 3)))]
            txt = draw(st.none() | texts) if calls else draw(texts)
            rounds.append((txt, calls))
        exs.append((draw(user_parts()), rounds))
    return draw(st.none() | texts), exs

def oa_history(cv):
    sysm, exs = cv
    res = [{'role': 'system', 'content': sysm}] if sysm else []
    for parts, rounds in exs:
        c = [{'type': 'text', 'text': v} if k == 'text' else {'type': 'image_url', 'image_url': {'url': f'data:{v[0]};base64,{v[1]}'}} for k, v in parts]
        res.append({'role': 'user', 'content': c[0]['text'] if len(c) == 1 and parts[0][0] == 'text' else c})
        for txt, calls in rounds:
            m = {'role': 'assistant', 'content': txt}
            if calls: m['tool_calls'] = [{'id': c['id'], 'type': 'function', 'function': {'name': c['name'],
                         'arguments': json.dumps(c['args'], separators=(',', ':')) if c['compact'] else json.dumps(c['args'], ensure_ascii=False)}} for c in calls]
            res += [m] + [{'role': 'tool', 'tool_call_id': c['id'], 'content': c['result']} for c in calls]
    return res

def an_history(cv):
    "Anthropic turns: a user turn that follows tool results merges into the results' turn"
    _, exs = cv
    res = []
    for parts, rounds in exs:
        c = [{'type': 'text', 'text': v} if k == 'text' else {'type': 'image', 'source': {'type': 'base64', 'media_type': v[0], 'data': v[1]}} for k, v in parts]
        if res and res[-1]['role'] == 'user': res[-1]['content'] += c
        else: res.append({'role': 'user', 'content': c[0]['text'] if len(c) == 1 and parts[0][0] == 'text' else c})
        for txt, calls in rounds:
            blocks = ([{'type': 'text', 'text': txt}] if txt else []) + [{'type': 'tool_use', 'id': c['id'], 'name': c['name'], 'input': c['args']} for c in calls]
            res.append({'role': 'assistant', 'content': txt if not calls else blocks})
            if calls: res.append({'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': c['id'], 'content': c['result'] if c['result'].strip() else no_output} for c in calls]})
    if res and res[-1]['role'] == 'assistant' and isinstance(res[-1]['content'], str): res[-1]['content'] = res[-1]['content'].rstrip()  # Anthropic refuses a last assistant turn ending in white space
    return res

def canon_args(h):
    "OpenAI history `h` with each call's arguments as `json.dumps` writes them"
    def f(tc): return tc | {'function': tc['function'] | {'arguments': json.dumps(json.loads(tc['function']['arguments']), ensure_ascii=False)}}
    return [m | {'tool_calls': [f(tc) for tc in m['tool_calls']]} if 'tool_calls' in m else m for m in h]

@settings(suppress_health_check=[HealthCheck.too_slow])
@given(convo())
def test_histories_roundtrip_both_formats(cv):
    "dlg2chat(chat2dlg(h, fmt), fmt) == h, for histories with system, text, images, sequential and parallel tool calls"
    oa, an = oa_history(cv), an_history(cv)
    check_history(oa, 'openai'); check_history(an, 'anthropic')  # the generator itself makes valid histories
    d = chat2dlg(oa, 'openai')
    assert dlg2chat(d, 'openai') == oa
    da = chat2dlg(an, 'anthropic', system=cv[0])
    assert dlg2chat(da, 'anthropic') == an
    # the formats cross, with the same meaning
    assert dlg2chat(d, 'anthropic') == an
    exp = canon_args(oa)  # Anthropic carries arguments as objects: OpenAI's strings come back canonical
    if exp[-1]['role'] == 'assistant' and exp[-1]['content']: exp[-1] = exp[-1] | {'content': exp[-1]['content'].rstrip()}  # and a last reply without its trailing white space
    assert dlg2chat(da, 'openai') == exp
    # detection needs no fmt
    assert dlg2chat(chat2dlg(oa), 'openai') == oa and dlg2chat(chat2dlg(an, system=cv[0]), 'anthropic') == an

@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(convo())
def test_chat2dlg_saves_and_reads_back(cv):
    "The dialog chat2dlg makes saves, reads back, and sends the same history"
    oa = oa_history(cv)
    d2 = reads_ipynb(write_ipynb(chat2dlg(oa)))
    assert dlg2chat(d2) == oa
    assert dlg2chat(d2, 'anthropic') == an_history(cv)

def test_openai_consecutive_user_messages():
    h = [{'role': 'user', 'content': 'one'}, {'role': 'user', 'content': 'two'}, {'role': 'assistant', 'content': 'ok'}]
    d = chat2dlg(h)
    assert dlg2chat(d) == h
    an = dlg2chat(d, 'anthropic')
    # one turn, as Anthropic reads consecutive messages: each message's blocks as they are, none joined
    assert an == [{'role': 'user', 'content': [{'type': 'text', 'text': 'one'}, {'type': 'text', 'text': 'two'}]}, {'role': 'assistant', 'content': 'ok'}]
    check_history(an, 'anthropic')

def test_assistant_first_and_developer():
    h = [{'role': 'developer', 'content': 'rules'}, {'role': 'assistant', 'content': 'Hello! How can I help?'}, {'role': 'user', 'content': 'hi'}]
    d = chat2dlg(h)
    assert d.system == 'rules'
    assert dlg2chat(d) == [{'role': 'system', 'content': 'rules'}] + h[1:]
    an = dlg2chat(d, 'anthropic')
    check_history(an, 'anthropic')
    assert an[0] == {'role': 'user', 'content': '(no request)'}

def test_is_error_and_raw_arguments_ride_along():
    an = [{'role': 'user', 'content': 'go'},
          {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'x1', 'name': 'f', 'input': {'a': 1}}]},
          {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'x1', 'content': 'boom', 'is_error': True}]}]
    d = chat2dlg(an)
    assert '"is_error": true' in d.messages[0].ai_res
    assert dlg2chat(d, 'anthropic') == an
    oa = [{'role': 'user', 'content': 'go'}, {'role': 'assistant', 'content': None, 'tool_calls': [
           {'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': '{ "a" : 1 }'}}]}, {'role': 'tool', 'tool_call_id': 'c', 'content': 'r'}]
    d = chat2dlg(oa)
    assert dlg2chat(d) == oa
    p = parse_reply(d.messages[0].ai_res)[0]
    assert p['args'] == {'a': 1} and p['extra'] == {'raw_arguments': '{ "a" : 1 }'}
    # an edited call sends its new arguments, not the stale original string
    d.messages[0].output = d.messages[0].ai_res.replace('"a": 1', '"a": 2')
    assert dlg2chat(d)[1]['tool_calls'][0]['function']['arguments'] == '{"a": 2}'

def test_url_images_roundtrip_as_url_parts():
    "An image given by URL came back from a round trip as text: the model no longer saw it"
    h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'see'}, {'type': 'image_url', 'image_url': {'url': 'https://x.org/a.png'}}]}]
    d = chat2dlg(h)
    assert d.messages[0].content == 'see\n\n![image](https://x.org/a.png "sent as image")' and not d.messages[0].attachments
    assert dlg2chat(d) == h
    an = [{'role': 'user', 'content': [{'type': 'text', 'text': 'see'}, {'type': 'image', 'source': {'type': 'url', 'url': 'https://x.org/a.png'}}]}]
    assert dlg2chat(d, 'anthropic') == an and dlg2chat(chat2dlg(an), 'anthropic') == an
    for f in fmts: check_history(dlg2chat(d, f), f)
    # a plain Markdown image (a badge in a note) stays text: the provider never fetches it
    n = Dialog('n'); n.mk_message('![badge](https://img.shields.io/b.svg)', msg_type=snote, id='n1'); n.mk_message('hi', msg_type=sprompt)
    assert dlg2chat(n)[0]['content'] == '<note id="n1">\n![badge](https://img.shields.io/b.svg)\n</note>\n\nhi'

# ---------- generated dialogs -> valid histories ----------
any_text = st.text(st.sampled_from('ab \n#*`<>{}"\'!()[]:-⏳🧠'), max_size=40)
png64 = base64.b64encode(tiny_png).decode()
outputs = st.lists(st.one_of(
    st.builds(lambda t, n: {'output_type': 'stream', 'name': n, 'text': t}, any_text, st.sampled_from(['stdout', 'stderr'])),
    st.builds(lambda t: code_output(t)[0], any_text),
    st.builds(lambda t: {'output_type': 'error', 'ename': 'E', 'evalue': t, 'traceback': ['\x1b[31mTB\x1b[0m', t]}, any_text),
    st.builds(lambda m, t: mk_displayobj({m: png64, 'text/plain': t}), st.sampled_from(img_mimes), any_text),
    st.builds(lambda t: mk_displayobj({'image/svg+xml': '<svg>'+t+'</svg>'}), any_text)), max_size=4)

@st.composite
def replies(draw):
    n, res = draw(st.integers(0, 5)), []
    for k in range(n):
        kind = draw(st.sampled_from(['text', 'call', 'server', 'old', 'compact', 'oneline', 'broken']))
        i = f'id{k}{draw(st.integers(0, 99))}'
        a, r = draw(argss), draw(any_text)
        if kind == 'text': res.append(draw(any_text))
        elif kind == 'call': res.append(tool_block(i, 'f', a, r))
        elif kind == 'server': res.append(tool_block(i, 'web', a, r, server=True))
        elif kind == 'old': res.append('<details class="tool-usage-details">\n<summary>f</summary>\n\n```json\n' + json.dumps(dict(id=i, call=dict(function='f', arguments=a), result=r), indent=2) + '\n```\n\n</details>')
        elif kind == 'oneline': res.append("<details class='tool-usage-details'>\n\n```json\n" + json.dumps(dict(id=i, call=dict(function='g', arguments=a), result=r, success=True, exit_code=0)) + '\n```\n\n</details>')
        elif kind == 'compact': res.append('```json {.tool}\n' + json.dumps(dict(id=i, name='h', args=a, result=r)) + '\n```')
        else: res.append("<details class='tool-usage-details'>\n\n```json\n{oops\n```\n\n</details>")
    return draw(st.sampled_from(['\n', '\n\n'])).join(res) + draw(st.sampled_from(['', '\n\n*[Response interrupted]*', '\n🧠\n']))

@st.composite
def dialogs(draw):
    d = Dialog('gen')
    d.system = draw(st.none() | any_text)
    for k in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(['note', 'code', 'prompt', 'raw', 'prompt']))
        meta = draw(st.sampled_from([{}, {}, {'skipped': True}, {'pinned': True}]))
        if kind == 'code': m = d.mk_message(draw(any_text), output=draw(outputs), meta=meta, id=f'm{k}')
        elif kind == 'raw': m = d.mk_message(draw(any_text), msg_type=sraw, meta=meta, id=f'm{k}')
        else:
            m = d.mk_message('', msg_type=snote if kind == 'note' else sprompt, meta=meta, id=f'm{k}')
            atts = [m.mk_attachment(tiny_png if mt != 'image/svg+xml' else b'<svg/>', mt, f'a{k}-{j}') for j, mt in enumerate(draw(st.lists(st.sampled_from(img_mimes + ('image/svg+xml',)), max_size=2)))]
            m.content = draw(any_text) + ''.join(f'\n![x](attachment:{a.id})' + draw(any_text) for a in atts)
            if kind == 'prompt': m.output = draw(replies())
    return d

@settings(suppress_health_check=[HealthCheck.too_slow])
@given(dialogs(), st.none() | st.integers(0, 3000))
def test_generated_dialogs_give_valid_histories(d, budget):
    "Any dialog gives histories the SDK types accept and the providers' ordering rules allow, trimmed or not"
    for fmt in fmts:
        h = dlg2chat(d, fmt, budget=budget)
        check_history(h, fmt)
        # and each history reads back into a dialog that sends it again unchanged
        assert_same(dlg2chat(chat2dlg(h, fmt, system=d.system if fmt == 'anthropic' else None), fmt), h)

@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(dialogs(), st.integers(0, 2000))
def test_trim_rules(d, budget):
    "Trimming keeps the system prompt, the last prompt and pinned messages, drops oldest first, and fits when it can"
    full = dlg2chat(d)
    h = dlg2chat(d, budget=budget)
    if sum(map(count_tokens, full)) <= budget: assert h == full
    txt = json.dumps(h)
    def sent(m): return f'id=\\"{m.id}\\"' in txt
    if d.system and d.system.strip(): assert h[0] == {'role': 'system', 'content': d.system}
    ctx = [m for m in d.messages if m.msg_type in (snote, scode) and not m.meta.get('skipped')]
    for m in ctx:
        if m.meta.get('pinned'): assert sent(m), f'pinned {m.id} dropped'
    kept = [sent(m) for m in ctx if not m.meta.get('pinned')]
    assert kept == sorted(kept), 'a newer context message was dropped before an older one'
    prompts = [m for m in d.messages if m.msg_type == sprompt and not m.meta.get('skipped')]
    note(json.dumps(d.todict(), default=str)); note(json.dumps(h))
    if prompts and prompts[-1].content.split('![')[0].strip(): assert any(json.dumps(_trim_blank(prompts[-1].content.split('![')[0]))[1:-1] in json.dumps(m) for m in h if m['role'] == 'user')

def test_default_counter_without_tiktoken(monkeypatch):
    "Without tiktoken: a heuristic over the message's JSON (images out), plus img_tokens per image"
    monkeypatch.setattr(chat, '_tiktoken', lambda: None)
    m = {'role': 'user', 'content': 'abcde'}
    assert count_tokens(m) == len(['{"', 'role', '":', ' ', '"', 'user', '",', ' ', '"', 'content', '":', ' ', '"', 'abcde', '"}'])
    assert count_tokens({'role': 'user', 'content': 'ab'*400}) == -(-len(json.dumps({'role': 'user', 'content': 'ab'*400}))*2//7)  # long words: characters / 3.5
    im = {'role': 'user', 'content': [{'type': 'text', 'text': 'abcd'}, {'type': 'image', 'source': {'data': 'A'*9999}}]}
    sans = {'role': 'user', 'content': [{'type': 'text', 'text': 'abcd'}, {'type': 'image'}]}
    assert count_tokens(im) == count_tokens(sans) > img_tokens + 10  # an image is a flat cost, whatever its data
    class Enc:
        def encode(self, s, **kw): return s.split()
    monkeypatch.setattr(chat, '_tiktoken', lambda: Enc())
    assert count_tokens({'role': 'user', 'content': 'one two three'}) == len(json.dumps({'role': 'user', 'content': 'one two three'}).split())

# ---------- bad input ----------
junk = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5) |
                    st.sampled_from(['user', 'assistant', 'tool', 'system', 'text', 'image', 'image_url', 'tool_use', 'tool_result', 'function']),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(['role', 'content', 'type', 'text', 'tool_calls', 'id', 'function',
                        'name', 'arguments', 'tool_call_id', 'tool_use_id', 'input', 'source', 'image_url', 'url', 'data', 'media_type']), c, max_size=4), max_leaves=12)

@given(junk, st.sampled_from([None, 'openai', 'anthropic']))
def test_bad_input_is_a_valueerror(msgs, fmt):
    "Whatever comes in, chat2dlg returns a dialog or raises a ValueError; never a KeyError, TypeError or AttributeError"
    try: d = chat2dlg(msgs, fmt)
    except ValueError as e: assert str(e)
    else:
        for f in fmts: check_history(dlg2chat(d, f), f)

@pytest.mark.parametrize('msgs,err', [
    ([{'role': 'user', 'content': 'x'}, {'role': 'assistant', 'content': [{'type': 'thinking'}]}], 'message 1: content part 0: a thinking block without its text'),
    ([{'role': 'user', 'content': 'x'}, {'role': 'assistant', 'content': [{'type': 'audio'}]}], 'message 1: assistant content part 0'),
    ([{'role': 'user', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': '!!'}}]}], 'message 0: content part 0: image data is not base64'),
    ([{'role': 'user', 'content': 'x'}, {'role': 'assistant', 'tool_calls': [{'id': 1}]}], 'message 1: tool call 0'),
    ([{'role': 'user', 'content': 'a'}, {'role': 'system', 'content': 'late'}], 'message 1: a system message after'),
    ([{'role': 'user', 'content': 'a', 'weird': 1}], "message 0: unsupported key(s) ['weird']"),
    ([{'role': 'assistant'}], 'message 0: an assistant message without content'),
])
def test_bad_input_messages(msgs, err):
    with pytest.raises(ValueError) as e: chat2dlg(msgs)
    assert err in str(e.value)

# ---------- real files ----------
def _corpus_dialogs():
    for f in sorted(need_corpus('fastcore-nbs').glob('*.ipynb')):
        yield f.name, read_ipynb(f)

def test_corpus_notebooks_send():
    "Every corpus notebook, as a dialog of context, sends valid histories in both formats"
    n = 0
    for name, d in _corpus_dialogs():
        d.mk_message('Summarise this notebook.', msg_type=sprompt)
        for fmt in fmts:
            h = dlg2chat(d, fmt)
            check_history(h, fmt)
            assert h[-1]['role'] == 'user'
        n += 1
    assert n > 10

def _solveit_reply(rng, k):
    "A Solveit-style reply: prose and several tool calls, in the given spelling"
    calls = []
    for j in range(3):
        i, a, r = f'toolu_{k}{j}', {'path': f'f{j}.py'}, f'contents {j}\n'
        calls.append([tool_block(i, 'view', a, r),
                      '<details class="tool-usage-details">\n<summary>view</summary>\n\n```json\n' + json.dumps(dict(id=i, call=dict(function='view', arguments=a), result=r), indent=2) + '\n```\n\n</details>',
                      "<details class='tool-usage-details'>\n\n```json\n" + json.dumps(dict(id=i, call=dict(function='view', arguments=a), result=r, success=True)) + '\n```\n\n</details>',
                      '```json {.tool}\n' + json.dumps(dict(id=i, name='view', args=a, result=r)) + '\n```'][k % 4])
    return f"🧠\nLet me look at the files.\n\n{calls[0]}\n{calls[1]}\n\n- ⏳ <code>view(path='f2.py')</code> ⏳\n{calls[2]}\n\nAll three are short.\n\n*[Response interrupted]*"

def test_corpus_prompts_with_solveit_replies():
    "Prompts taken from real notebooks' prose, answered by replies with tool calls in each of the four spellings"
    rng = random.Random(0)
    nb = read_ipynb(need_corpus('fastcore-nbs', '01_basics.ipynb'))
    notes = [m.content for m in nb.messages if m.msg_type == snote and len(m.content) > 40][:8]
    d = Dialog('solveit')
    for k, txt in enumerate(notes): d.mk_message(txt, msg_type=sprompt, output=_solveit_reply(rng, k))
    for fmt in fmts:
        h = dlg2chat(d, fmt)
        check_history(h, fmt)
    oa = dlg2chat(d)
    # per prompt: user, assistant(2 parallel calls), 2 tool, assistant(1 call), tool, assistant(text)
    assert [m['role'] for m in oa[:7]] == ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']
    assert [tc['id'] for tc in oa[1]['tool_calls']] == ['toolu_00', 'toolu_01'] and oa[1]['content'] == 'Let me look at the files.'
    assert oa[6]['content'] == 'All three are short.'
    for k in range(len(notes)):
        assert sum(1 for m in oa if m['role'] == 'tool' and m['tool_call_id'].startswith(f'toolu_{k}')) == 3
    # and back: the calls come home in the current spelling, same ids and results
    back = chat2dlg(oa)
    assert [[(p['id'], p['result']) for p in parse_reply(m.ai_res) if p['type'] == 'tool'] for m in back.messages] == \
           [[(p['id'], p['result']) for p in parse_reply(m.ai_res) if p['type'] == 'tool'] for m in d.messages]

# ---------- JSON Lines ----------
def test_jsonl_reads_with_pyarrow(tmp_path):
    pj = pytest.importorskip('pyarrow.json')
    d1 = chat2dlg(oa_history((None, [([('text', 'hi'), ('image', ('image/png', png64))], [('looking', [dict(id='c1', name='f', args={'a': 1}, result='r', compact=False)]), ('done', [])])])))
    d1.system = 'sys'
    d2 = chat2dlg([{'role': 'user', 'content': 'plain'}, {'role': 'assistant', 'content': 'reply'}])
    fn = dlgs2jsonl([d1, d2, Dialog('empty')], tmp_path/'c.jsonl')
    t = pj.read_json(fn)
    assert t.num_rows == 2 # the empty dialog has nothing to send: no line
    rows = t.column('messages').to_pylist()
    assert [[m['role'] for m in r] for r in rows] == [[m['role'] for m in dlg2chat(d)] for d in (d1, d2)]
    assert all(isinstance(m['content'], list) for r in rows for m in r if m['content'] is not None)
    assert [dlg2chat(d) for d in jsonl2dlgs(fn)] == [dlg2chat(d) for d in (d1, d2)]
    sdk_valid(json.loads(fn.read_text().splitlines()[0])['messages'], 'openai')
    fa = dlgs2jsonl([d1, d2], tmp_path/'a.jsonl', 'anthropic')
    assert pj.read_json(fa).num_rows == 2
    lines = [json.loads(l) for l in fa.read_text().splitlines()]
    for l in lines: sdk_valid(l['messages'], 'anthropic'); anthropic_rules(l['messages'])
    assert lines[0]['system'] == 'sys' and [dlg2chat(d, 'anthropic') for d in jsonl2dlgs(fa)] == [dlg2chat(d, 'anthropic') for d in (d1, d2)]

def test_jsonl_write_is_atomic(tmp_path, monkeypatch):
    fn = tmp_path/'c.jsonl'
    dlgs2jsonl([chat2dlg([{'role': 'user', 'content': 'a'}])], fn)
    before = fn.read_bytes()
    class Boom(Dialog):
        @property
        def messages(self): raise RuntimeError('boom')
        @messages.setter
        def messages(self, v): pass
    with pytest.raises(RuntimeError): dlgs2jsonl([chat2dlg([{'role': 'user', 'content': 'b'}]), Boom('x')], fn)
    assert fn.read_bytes() == before

def test_host_promoted_flags():
    "A host that promotes `skipped` and `pinned` to attributes (meta_attrs) gets the same treatment"
    class HMsg(Message): meta_attrs = {'skipped': 'skipped', 'pinned': 'pinned'}
    class HDlg(Dialog): msg_cls = HMsg
    d = HDlg('h')
    d.mk_message('secret', msg_type=snote, meta={'skipped': True})
    d.mk_message('keep me', msg_type=snote, meta={'pinned': True}, id='pin')
    d.mk_message('old', msg_type=sprompt, output='old answer')
    d.mk_message('new', msg_type=sprompt)
    assert d.messages[0].skipped and 'skipped' not in d.messages[0].meta
    h = dlg2chat(d, budget=0, counter=lambda m: 1)
    assert 'secret' not in json.dumps(dlg2chat(d)) and h == [{'role': 'user', 'content': '<note id="pin">\nkeep me\n</note>\n\nnew'}]

def test_a_history_that_fits_whole_is_not_trimmed():
    "Notes merged into one turn cost less together than apart: a budget the whole history fits keeps every message (hypothesis found three empty notes)"
    d = Dialog('gen')
    for k in range(3): d.mk_message('', msg_type='note', id=f'm{k}')
    for fmt in fmts:
        full = dlg2chat(d, fmt)
        assert dlg2chat(d, fmt, budget=sum(map(count_tokens, full))) == full

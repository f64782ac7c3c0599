"dialog.chat on odd, malformed and hostile input: wrong argument types, odd ids, images, thinking, budgets, `upto`, JSON Lines edge cases (each test failed before its fix)"
import base64, json, pytest
from dialog.core import *
from dialog.chat import *
from chat_checks import check_history

fmts = ('openai', 'anthropic')
png64 = base64.b64encode(b'\x89PNG\r\n\x1a\n').decode()
h = [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'yo'}]

@pytest.mark.parametrize('system', [5, {'text': 'x'}, [{'type': 'image'}], ['plain string in a list']])
def test_bad_system_argument_is_a_valueerror(system):
    "A `system` that is neither text nor text blocks is a ValueError naming it (was a TypeError from str.join)"
    with pytest.raises(ValueError, match='system'): chat2dlg(h, system=system)

def test_system_argument_as_anthropic_text_blocks():
    "Anthropic's API takes `system` as a list of text blocks too; chat2dlg reads that spelling (was a TypeError)"
    d = chat2dlg(h, 'anthropic', system=[{'type': 'text', 'text': 'Be brief.'}, {'type': 'text', 'text': 'Be kind.', 'cache_control': {'type': 'ephemeral'}}])
    assert d.system == 'Be brief.\n\nBe kind.'

@pytest.mark.parametrize('fmt,part', [
    ('openai', {'type': 'image_url', 'image_url': {'url': 'data:image/bmp;base64,AAAA'}}),
    ('openai', {'type': 'image_url', 'image_url': {'url': 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4='}}),
    ('anthropic', {'type': 'image', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': 'AAAA'}}),
])
def test_image_type_providers_refuse_is_a_valueerror(fmt, part):
    "An image part of a type the providers refuse was read as an attachment that then went out as a dangling reference or as its source text"
    msgs = [{'role': 'user', 'content': [{'type': 'text', 'text': 'look'}, part]}]
    with pytest.raises(ValueError, match=r'message 0: content part 1: image type'): chat2dlg(msgs, fmt)

@pytest.mark.parametrize('raw', ['{oops', '[1, 2]', '"just a string"', '{"a": 1,}'])
def test_arguments_that_are_not_a_json_object_go_out_as_they_came(raw):
    "A model's malformed or non-object arguments were replaced by '{}' on the way back out"
    hist = [{'role': 'user', 'content': 'q'},
            {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': raw}}]},
            {'role': 'tool', 'tool_call_id': 'c1', 'content': 'error: bad arguments'}]
    out = dlg2chat(chat2dlg(hist))
    assert out == hist
    check_history(out, 'openai')
    for f in fmts: check_history(dlg2chat(chat2dlg(hist), f), f)

def test_edited_arguments_still_win_over_raw():
    "Guard for the fix above: once someone edits the block's arguments, the new ones are sent, not the stale raw string"
    hist = [{'role': 'user', 'content': 'q'},
            {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{oops'}}]},
            {'role': 'tool', 'tool_call_id': 'c1', 'content': 'r'}]
    d = chat2dlg(hist)
    m = d.messages[0]
    m.output = m.ai_res.replace('"arguments": {}', '"arguments": {"x": 1}')
    assert dlg2chat(d)[1]['tool_calls'][0]['function']['arguments'] == '{"x": 1}'

@pytest.mark.parametrize('budget', ['100', -1, 2.5, True])
def test_bad_budget_is_a_valueerror(budget):
    "A budget that is not a non-negative int was a TypeError deep in trimming, or silently trimmed everything"
    with pytest.raises(ValueError, match='budget'): dlg2chat(chat2dlg(h), budget=budget)

@pytest.mark.parametrize('f', [parse_reply, ai_fmt])
def test_reply_parsers_refuse_non_text(f):
    "The public parser of replies raised a TypeError from `re` on non-text"
    with pytest.raises(ValueError, match='int'): f(5)
    assert f(None) == ([] if f is parse_reply else ai_fmt(''))

def test_jsonl2dlgs_builds_the_host_class(tmp_path):
    "jsonl2dlgs had no `cls`: a host reading its JSON Lines got plain Dialogs and Messages"
    class MyMsg(Message): meta_attrs = {'pinned_': 'pinned'}
    class MyDlg(Dialog): msg_cls = MyMsg
    fn = dlgs2jsonl([chat2dlg(h), chat2dlg(h)], tmp_path/'c.jsonl')
    ds = jsonl2dlgs(fn, cls=MyDlg)
    assert [type(d) for d in ds] == [MyDlg]*2 and all(type(m) is MyMsg for d in ds for m in d.messages)

def test_jsonl_lone_surrogates_go_as_escapes(tmp_path):
    "A lone surrogate made a bare UnicodeEncodeError; now it goes as its escape, in messages and an Anthropic system prompt alike"
    fn = tmp_path/'c.jsonl'
    good = chat2dlg(h, name='good')
    bad = chat2dlg([{'role': 'user', 'content': 'a\ud800b'}], name='bad')
    bad.system = 's\udc80'
    dlgs2jsonl([good, bad], fn, 'anthropic')
    assert [d.messages[0].content for d in jsonl2dlgs(fn)] == ['hi', 'a\\ud800b'] and jsonl2dlgs(fn)[1].system == 's\\udc80'

def test_jsonl_unsendable_dialog_names_it(tmp_path):
    "A dialog that can't be sent names its place in the list; the file is left untouched"
    fn = tmp_path/'c.jsonl'
    bad = chat2dlg(h, name='bad')
    bad.messages[0].meta = 'oops'
    with pytest.raises(ValueError, match=r"dialog 1: dialog 'bad': message '.*': meta must be a dict"): dlgs2jsonl([chat2dlg(h), bad], fn)
    assert not fn.exists()

def test_error_output_has_no_ansi_anywhere():
    "ANSI escapes were stripped from the traceback but not from `evalue`"
    m = Message('1/0', msg_type='code', output=[{'output_type': 'error', 'ename': 'E', 'evalue': '\x1b[31mbad\x1b[0m', 'traceback': ['\x1b[1mtb\x1b[0m']}])
    assert m.ai_output == 'tb\nE: bad'

def test_progress_lines_never_eat_the_text_between():
    "The ⏳ noise pattern ran across lines (re.S): text between two progress lines was deleted"
    r = "- ⏳ <code>a()</code> ⏳\nImportant text\n- ⏳ <code>b()</code> ⏳\nend"
    assert ai_fmt(r) == 'Important text\nend' and parse_reply(r) == [{'type': 'text', 'text': 'Important text\nend'}]
    assert ai_fmt('🧠🧠\nkeep ⏳ this\nand ⏳ this') == 'keep ⏳ this\nand ⏳ this'

@pytest.mark.parametrize('n', [1, 3])
def test_unclosed_openings_before_and_after_real_blocks(n):
    "Searching each kind only up to its last closing (the fix for quadratic time) still finds every block, and noise before a real one"
    blk = tool_block('c1', 'f', {'a': 1}, 'r')
    junk = ("<details class='tool-usage-details'><summary>x\n" + "<details class='token-usage-details'>\n" + "<!-- think_start -->\n")*n
    r = f"{junk}\n\n<details class='token-usage-details'>42 tokens</details>\n{blk}\n\n```json {{.tool}}\n" + json.dumps(dict(id='c2', name='g', args={}, result='s')) + f"\n```\n\n{junk}"
    parts = parse_reply(r)
    assert [p['id'] for p in parts if p['type'] == 'tool'] == ['c1', 'c2']
    assert '42 tokens' not in json.dumps(parts)

@pytest.mark.parametrize('kw,err', [
    (dict(content='x', msg_type='code', output=[{'output_type': 'stream', 'name': 'stdout', 'text': 5}]), 'output 0 text must be a string'),
    (dict(content='x', msg_type='code', output=[{'output_type': 'display_data', 'metadata': {}, 'data': {'image/png': 5}}]), "output 0 data 'image/png' must be a string"),
    (dict(content=5, msg_type='note'), 'content must be a str'),
    (dict(content='![a](attachment:A)', msg_type='note', attachments=[Attachment('not bytes', 'image/png', id='A')]), 'bytes data'),
])
def test_malformed_message_names_itself(kw, err):
    "A message malformed in memory made dlg2chat raise a bare TypeError/AttributeError with no hint of which message"
    d = Dialog('bad')
    m = d.mk_message(**kw)
    for f in fmts:
        with pytest.raises(ValueError, match=err) as e: dlg2chat(d, f)
        assert m.id in str(e.value)

def test_jsonl_openai_lines_share_types_whatever_the_arguments(tmp_path):
    "The promise the notebook makes for columnar readers: OpenAI lines read with pyarrow even when tools take differently typed arguments"
    pj = pytest.importorskip('pyarrow.json')
    def mk(args):
        d = Dialog('x'); d.mk_message('q', msg_type='prompt', output=tool_block('c1', 'f', args, 'r') + '\n\nok'); return d
    dlgs = [mk({'a': 1}), mk({'a': 's'}), mk({'a': [1]}), mk({})]
    fn = dlgs2jsonl(dlgs, tmp_path/'c.jsonl')
    assert pj.read_json(fn).num_rows == 4
    assert [dlg2chat(d) for d in jsonl2dlgs(fn)] == [dlg2chat(d) for d in dlgs]

def test_jsonl_line_separators_inside_text_round_trip(tmp_path):
    "json.dumps(ensure_ascii=False) writes U+2028, U+2029 and U+0085 raw; reading split lines on them (str.splitlines) and failed"
    d = chat2dlg([{'role': 'user', 'content': 'a\u2028b\u2029c\x85d\x1ce\x0bf'}, {'role': 'assistant', 'content': 'ok'}])
    fn = dlgs2jsonl([d, d], tmp_path/'c.jsonl')
    assert [dlg2chat(x) for x in jsonl2dlgs(fn)] == [dlg2chat(d)]*2
    pj = pytest.importorskip('pyarrow.json')
    assert pj.read_json(fn).num_rows == 2

def test_jsonl_with_a_byte_order_mark_reads(tmp_path):
    "A JSON Lines file saved with a UTF-8 BOM (as some Windows tools write) failed on its first line"
    fn = tmp_path/'bom.jsonl'
    fn.write_bytes('\ufeff'.encode() + json.dumps({'messages': h}).encode() + b'\r\n')
    assert [dlg2chat(d) for d in jsonl2dlgs(fn)] == [h]

@pytest.mark.parametrize('call,err', [
    (lambda: dlg2chat(h), 'dlg must be a Dialog, not list'),
    (lambda: dlg2chat(Dialog('x'), msgs=['hi']), r"msgs\[0\] is not a Message"),
    (lambda: dlg2chat(Dialog('x'), msgs=5), 'msgs must be a list'),
    (lambda: chat2dlg(h, cls=dict), 'cls must be a Dialog subclass'),
])
def test_wrong_types_are_valueerrors(call, err):
    "Wrong argument types were AttributeError/TypeError tracebacks from deep inside"
    with pytest.raises(ValueError, match=err): call()

def test_dlgs2jsonl_names_the_bad_dialog_and_refuses_one_dialog(tmp_path):
    "A single Dialog passed as `dlgs` silently wrote its messages' (non-)conversations; a bad item didn't say which"
    fn = tmp_path/'c.jsonl'
    with pytest.raises(ValueError, match='not one Dialog'): dlgs2jsonl(chat2dlg(h), fn)
    with pytest.raises(ValueError, match='dialog 1: dlg2chat: dlg must be a Dialog'): dlgs2jsonl([chat2dlg(h), 5], fn)
    assert not fn.exists()

@pytest.mark.parametrize('args,kw,err', [
    ((5, 'f', {}, 'r'), {}, 'must be str'),
    (('c1', 'f', [1, 2], 'r'), {}, 'args a dict'),
    (('c1', 'f', {}, 42), {}, 'must be str'),
    (('c1', 'f', {}, 'r'), {'call': 'x'}, "'call' is the block's own key"),
    (('c1', 'f', {'when': object()}, 'r'), {}, 'JSON-serializable'),
])
def test_tool_block_refuses_what_would_read_back_as_text(args, kw, err):
    "tool_block wrote blocks that parse_reply then read as plain text (a non-str id, a list of args, an extra `call`) or raised a TypeError"
    with pytest.raises(ValueError, match=err): tool_block(*args, **kw)

from hypothesis import given, settings, strategies as st
utext = st.text(st.sampled_from('ab \n\t'), min_size=1, max_size=12).filter(lambda s: s.strip())
uparts = st.lists(st.one_of(utext.map(lambda t: ('text', t)), st.just(('image', None))), min_size=1, max_size=4).filter(
    lambda ps: all(not (a[0] == b[0] == 'text') for a, b in zip(ps, ps[1:])))  # adjacent texts join: the documented normalisation

def _user(ps, fmt):
    def part(k, t):
        if k == 'text': return {'type': 'text', 'text': t}
        return ({'type': 'image_url', 'image_url': {'url': f'data:image/png;base64,{png64}'}} if fmt == 'openai'
                else {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png64}})
    return {'role': 'user', 'content': ps[0][1] if len(ps) == 1 and ps[0][0] == 'text' else [part(*p) for p in ps]}

@settings(max_examples=200, deadline=None)
@given(uparts, st.sampled_from(fmts))
def test_user_text_keeps_its_blank_lines(ps, fmt):
    "User text lost its leading and trailing line breaks on a round trip ('hi\\n' came back 'hi'), beyond the one normalisation the issue allows"
    hist = [_user(ps, fmt), {'role': 'assistant', 'content': 'ok'}]
    out = dlg2chat(chat2dlg(hist, fmt), fmt)
    check_history(out, fmt)
    assert out == hist

def test_two_processes_writing_one_jsonl_leave_one_whole_file(tmp_path):
    "Held up: two writers racing on one file leave one complete file, never a mix or a torn line"
    import subprocess, sys, os
    fn = tmp_path/'race.jsonl'
    code = ("import sys; from dialog.chat import chat2dlg, dlgs2jsonl\n"
            "w = sys.argv[1]; d = chat2dlg([{'role': 'user', 'content': w*5000}, {'role': 'assistant', 'content': w}])\n"
            "for _ in range(30): dlgs2jsonl([d]*20, sys.argv[2])\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    ps = [subprocess.Popen([sys.executable, '-c', code, w, str(fn)], env=env) for w in 'ab']
    assert [p.wait(timeout=120) for p in ps] == [0, 0]
    ds = jsonl2dlgs(fn)
    assert len(ds) == 20 and len({dlg2chat(d)[1]['content'] for d in ds}) == 1
    assert [p.name for p in tmp_path.iterdir()] == ['race.jsonl']  # no temporary files left behind

def test_non_string_system_in_a_file_is_a_valueerror():
    "A hand-edited `system: 5` in notebook metadata made dlg2chat raise AttributeError ('int' has no 'strip')"
    d = Dialog('edited', meta={'dialog': {'system': 5}})
    d.mk_message('q', msg_type='prompt')
    for f in fmts:
        with pytest.raises(ValueError, match=r"dialog 'edited': meta\['dialog'\]\['system'\] must be a str"): dlg2chat(d, f)
    d.system = 'fixed'
    assert dlg2chat(d)[0] == {'role': 'system', 'content': 'fixed'}

# ---------- thinking, ids, images, budgets, weights and upto under attack ----------
import io
import dialog.chat as chat

def _png(w, h, fmt='PNG'):
    from PIL import Image
    b = io.BytesIO(); Image.new('RGB', (w, h), 'red').save(b, fmt); return b.getvalue()

def _img_dlg(data, mime, text='![x](attachment:a) what is it?'):
    d = Dialog('im'); m = d.mk_message(text, msg_type=sprompt, id='p1'); m.mk_attachment(data, mime, 'a'); return d

def _sent_imgs(h, fmt):
    ps = [p for m in h if isinstance(m['content'], list) for p in m['content'] if p['type'] in ('image', 'image_url')]
    return [(p['source'].get('media_type'), p['source'].get('data')) if fmt == 'anthropic' else tuple(p['image_url']['url'][5:].split(';base64,')) for p in ps]

def test_tool_block_inside_thinking_is_thinking():
    "A model's thinking that quotes a tool block was read as a real call: the thinking leaked into the request, and a call never made was sent with a made-up result"
    blk = tool_block('toolu_9', 'rm', {'path': '/'}, 'done')
    h = [{'role': 'user', 'content': 'Clean up?'},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': f'I could run\n\n{blk}\n\nbut I should ask.', 'signature': 's'}, {'type': 'text', 'text': 'Shall I delete it?'}]}]
    d = chat2dlg(h)
    assert 'I could run' in d.messages[0].ai_res  # the dialog keeps the thinking
    for fmt in fmts:
        out = dlg2chat(d, fmt, reasoning=False)  # the shown thinking; the provider's own turn (reasoning=True) is test_chat_reasoning's
        check_history(out, fmt)
        assert out[1]['content'] == 'Shall I delete it?' and 'tool_calls' not in out[1]
    assert ai_fmt(d.messages[0].ai_res) == 'Shall I delete it?'
    # a think marker inside a real block's JSON (a tool that read a dialog file) hides no later call
    r = tool_block('t1', 'cat', {}, 'x <!--think_start--> y') + '\n\n' + think_block('hm') + '\n\nNext.\n\n' + tool_block('t2', 'ls', {}, 'z')
    assert [p['id'] for p in parse_reply(r) if p['type'] == 'tool'] == ['t1', 't2']

def test_many_uses_of_one_id_take_linear_time(monkeypatch):
    "Making n uses of one id unique tried every suffix from -2 each time: n²/2 set lookups (8,000 copies of one example block took 30 s)"
    lookups = [0]
    class Counting(set):
        def __contains__(self, x): lookups[0] += 1; return set.__contains__(self, x)
    init = chat._IdMap.__init__
    def counted(self, fmt): init(self, fmt); self.seen = Counting()
    monkeypatch.setattr(chat._IdMap, '__init__', counted)
    n = 1000
    d = Dialog('dup'); d.mk_message('go', msg_type=sprompt, output='\n'.join([tool_block('a', 'f', {}, 'r')]*n))
    ids = [b['id'] for b in dlg2chat(d, 'anthropic')[1]['content']]
    assert ids[:3] == ['a', 'a-2', 'a-3'] and len(set(ids)) == n
    assert lookups[0] < 3*n

@pytest.mark.parametrize('fmt', fmts)
def test_image_that_is_not_base64_names_its_message(fmt):
    "An output image whose data is not base64 went to OpenAI as it was (refused), and to Anthropic as a bare binascii error naming no message"
    d = Dialog('bad'); m = d.mk_message('plot()', id='c1')
    m.output = [{'output_type': 'display_data', 'data': {'image/png': 'not base64!!'}, 'metadata': {}}]
    with pytest.raises(ValueError, match=r"dialog 'bad': message 'c1': an image \(image/png\) whose data is not base64"): dlg2chat(d, fmt)

def test_unreadable_oversized_image_names_its_message():
    "Bytes over the limit that Pillow can't read escaped as PIL.UnidentifiedImageError, naming no message"
    d = _img_dlg(b'\x89PNG\r\n\x1a\n' + bytes(4*2**20), 'image/png')
    with pytest.raises(ValueError, match=r"message 'p1': fit_image: Pillow cannot read this image/png image"): dlg2chat(d, 'anthropic')
    with pytest.raises(ValueError, match='is not one of'): fit_image(b'x', 'image/bmp', 100)

@pytest.mark.parametrize('fmt', fmts)
@pytest.mark.parametrize('real,label', [('PNG', 'image/jpeg'), ('JPEG', 'image/png'), ('GIF', 'image/webp'), ('WEBP', 'image/gif')])
def test_image_goes_labelled_with_the_type_its_bytes_say(fmt, real, label):
    "An attachment saved with the wrong type (a PNG named x.jpg) went with that label, and Anthropic refuses an image whose bytes are another type"
    data = _png(4, 3, real)
    h = dlg2chat(_img_dlg(data, label), fmt)
    check_history(h, fmt)
    assert _sent_imgs(h, fmt) == [('image/' + real.lower(), base64.b64encode(data).decode())]

def test_data_url_image_goes_as_the_image_itself():
    "A data: URL image (an Anthropic url source holding one, or hand-written) went to Anthropic as a URL source, which it refuses, and skipped the size limits"
    png = base64.b64encode(_png(2, 2)).decode()
    an = [{'role': 'user', 'content': [{'type': 'text', 'text': 'see'}, {'type': 'image', 'source': {'type': 'url', 'url': f'data:image/png;base64,{png}'}}]}]
    d = chat2dlg(an)
    assert len(d.messages[0].attachments) == 1  # kept as the image it is, as an OpenAI data URL is
    assert dlg2chat(d, 'anthropic')[0]['content'][1] == {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png}}
    wide = base64.b64encode(_png(9000, 4)).decode()
    hand = Dialog('hand'); hand.mk_message(f'![w](data:image/png;base64,{wide} "sent as image") what?', msg_type=sprompt)
    h = dlg2chat(hand, 'anthropic')
    check_history(h, 'anthropic')  # resized to 8,000 px like any other image
    assert h[0]['content'][0]['source']['type'] == 'base64'
    assert dlg2chat(hand)[0]['content'][0] == {'type': 'image_url', 'image_url': {'url': f'data:image/png;base64,{wide}'}}

@pytest.mark.parametrize('fmt', fmts)
def test_budget_with_an_empty_last_prompt_still_sends_something(fmt):
    "The newest prompt is kept when trimming; an empty one sends nothing, so a small budget sent [] (both providers refuse it)"
    d = Dialog('e'); d.mk_message('q', msg_type=sprompt, output='a'); d.mk_message('', msg_type=sprompt)
    out = dlg2chat(d, fmt, budget=0)
    assert out == dlg2chat(d, fmt) == [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': 'a'}]

def test_anthropic_prefill_has_no_trailing_whitespace():
    "A list ending with a reply whose text ends in spaces was sent as is: Anthropic refuses a last assistant turn ending in white space"
    d = Dialog('ws'); d.mk_message('q', msg_type=sprompt, output='Done.  \t')
    d.mk_message('r', msg_type=sprompt, output=f"Look:\n\n{tool_block('t', 'f', {}, 'x')}\n\nok \u00a0")
    h = dlg2chat(d, 'anthropic')
    check_history(h, 'anthropic')
    assert h[1]['content'] == 'Done.  \t' and h[-1]['content'] == 'ok'  # only the last turn: elsewhere the text goes as written
    assert d.messages[-1].ai_res.endswith('ok \u00a0')
    assert dlg2chat(d)[-1]['content'] == 'ok \u00a0'  # OpenAI takes it

@pytest.mark.parametrize('w', ['x', 5, 1.0, True, [], [0, 'x'], {'a': 1}])
def test_bad_weight_is_refused_before_a_file_the_reader_refuses(tmp_path, w):
    "A weight in meta that isn't 0, 1 or a list of them was written by dlgs2jsonl, and jsonl2dlgs then refused the file it wrote"
    d = Dialog('w'); d.mk_message('q', msg_type=sprompt, output='a', id='m1', meta={'dialog': {'weight': w}})
    with pytest.raises(ValueError, match=r"dialog 0: dialog 'w': message 'm1': meta\['dialog'\]\['weight'\] must be 0, 1"): dlgs2jsonl([d], tmp_path/'w.jsonl')
    assert not (tmp_path/'w.jsonl').exists()
    d.messages[0].meta = {'dialog': {'weight': [0, 1]}}
    assert jsonl2dlgs(dlgs2jsonl([d], tmp_path/'w.jsonl'))[0].messages[0].meta == {'dialog': {'weight': 0}}  # one assistant message: its weight

def test_upto_a_message_of_another_dialog_is_refused():
    "upto= a message of another dialog that shares an id (messages compare by id) silently cut this dialog at its own message"
    d = Dialog('d'); d.mk_message('q1', msg_type=sprompt, output='a1', id='p1'); d.mk_message('q2', msg_type=sprompt, output='a2', id='p2')
    e = Dialog('e'); q = e.mk_message('other', msg_type=sprompt, id='p1')
    with pytest.raises(ValueError, match="upto: message 'p1' is in dialog 'e', not in 'd'"): dlg2chat(d, upto=q)
    assert dlg2chat(d, upto='p1') == [{'role': 'user', 'content': 'q1'}]  # its id still names this dialog's message
    assert dlg2chat(d, upto=Message('free', id='p1')) == [{'role': 'user', 'content': 'q1'}]  # a message in no dialog: by its id

def test_citations_never_take_the_texts_own_footnote_numbers():
    "A reply with its own footnotes got citation footnotes numbered from 1 too: its [^1] then pointed at a citation (and two [^1] definitions)"
    own = 'Paris is the capital.[^1]\n\n[^1]: My note.'
    oa = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': own,
          'annotations': [{'type': 'url_citation', 'url_citation': {'start_index': 0, 'end_index': 5, 'url': 'https://en.wikipedia.org/wiki/Paris', 'title': 'Paris'}}]}]
    assert chat2dlg(oa).messages[0].ai_res == 'Paris[^2] is the capital.[^1]\n\n[^1]: My note.\n\n[^2]: [Paris](https://en.wikipedia.org/wiki/Paris)'
    an = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [
          {'type': 'text', 'text': 'See [^3]. '}, {'type': 'text', 'text': 'Water boils at 100 °C', 'citations': [{'type': 'char_location', 'document_title': 'Physics', 'cited_text': 'boils at 100', 'document_index': 0, 'start_char_index': 0, 'end_char_index': 12}]}]}]
    assert chat2dlg(an).messages[0].ai_res == 'See [^3]. Water boils at 100 °C[^4]\n\n[^4]: Physics "boils at 100"'

def test_cited_answer_of_text_blocks_is_read_as_anthropic():
    "An Anthropic cited answer is text blocks only: detection read it as OpenAI and silently dropped every citation"
    an = [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [
          {'type': 'text', 'text': 'It ', 'citations': None}, {'type': 'text', 'text': 'boils at 100 °C', 'citations': [{'type': 'char_location', 'document_title': 'Physics', 'cited_text': 'boils at 100'}]}]}]
    assert chat2dlg(an).messages[0].ai_res == chat2dlg(an, 'anthropic').messages[0].ai_res == 'It boils at 100 °C[^1]\n\n[^1]: Physics "boils at 100"'
    with pytest.raises(ValueError, match=r"message 1: assistant content part 1: OpenAI text parts carry no citations"): chat2dlg(an, 'openai')

def test_image_facts_are_remembered_without_the_images():
    "What an image's bytes say is remembered for the images seen last, by a digest of their text: a dropped dialog's images are freed, and at most 256 are remembered"
    import base64, gc, tracemalloc
    from dialog import chat
    png = base64.b64encode(b'\x89PNG\r\n\x1a\n' + bytes(8) + (64).to_bytes(4, 'big') + (32).to_bytes(4, 'big') + bytes(2_000_000)).decode()
    want = chat._img_facts(png)
    assert want[0] == 'image/png' and chat._img_facts(png) == want
    tracemalloc.start()
    b64 = png[:-4] + 'AAAA'  # another image of the same size, made while tracing
    before = tracemalloc.get_traced_memory()[0]
    chat._img_facts(b64); del b64; gc.collect()
    assert tracemalloc.get_traced_memory()[0] - before < 100_000  # the 2.7 MB text is gone
    tracemalloc.stop()
    for i in range(300): chat._img_facts(base64.b64encode(bytes([i % 256, i // 256])).decode())
    assert len(chat._facts) == 256

def test_deeply_nested_arguments_are_a_value_error():
    "Tool-call arguments nested deeper than Python's recursion limit (hostile model output): a ValueError naming the message, never a RecursionError"
    args = '{"b": ' + '['*3000 + ']'*3000 + '}'
    h = [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': args}}]},
         {'role': 'tool', 'tool_call_id': 'c1', 'content': 'x'}]
    with pytest.raises(ValueError, match='message 1: nested too deeply'): chat2dlg(h, 'openai')
    deep = x = {}
    for _ in range(3000): x['a'] = {}; x = x['a']
    a = [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 't', 'signature': 's'}, {'type': 'tool_use', 'id': 't1', 'name': 'f', 'input': deep}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 't1', 'content': 'x'}]}]
    with pytest.raises(ValueError, match='nested too deeply'): chat2dlg(a, 'anthropic')

png1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

def test_an_image_inside_a_tool_result_is_read_and_sent_back():
    "A tool result holding an image (a screenshot: Anthropic's text and image blocks, a Responses output list): read, kept in the result, back as that provider's image; as a short note, no base64, to OpenAI"
    img = {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': png1}}
    h = [{'role': 'user', 'content': 'Take a screenshot'}, {'role': 'assistant', 'content': [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'computer', 'input': {'action': 'screenshot'}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'text', 'text': 'Here:'}, img]}]},
         {'role': 'assistant', 'content': [{'type': 'text', 'text': 'I see a desktop.'}]}]
    d = chat2dlg(h, 'anthropic')
    assert dlg2chat(d, 'anthropic') == h[:3] + [{'role': 'assistant', 'content': 'I see a desktop.'}]
    oa = dlg2chat(d, 'openai')
    assert png1 not in json.dumps(oa) and 'image/png image' in oa[2]['content']
    check_history(oa, 'openai')
    r = [{'role': 'user', 'content': 'Take a screenshot'}, {'type': 'function_call', 'call_id': 'c1', 'name': 'shot', 'arguments': '{}'},
         {'type': 'function_call_output', 'call_id': 'c1', 'output': [{'type': 'input_image', 'image_url': 'data:image/png;base64,' + png1}]},
         {'role': 'assistant', 'content': 'A desktop.'}]
    assert dlg2chat(chat2dlg(r, 'responses'), 'responses') == r
    with pytest.raises(ValueError, match='message 2: content part 0: image data is not base64'):
        chat2dlg(h[:2] + [{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': [{'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': '%%'}}]}]}], 'anthropic')

def _url_cite(u): return {'type': 'url_citation', 'url': u, 'title': u, 'start_index': 0, 'end_index': 4}
def _web_cite(u): return {'type': 'web_search_result_location', 'url': u, 'title': u, 'cited_text': 'x', 'encrypted_index': 'e'}
_cited_replies = {
    'responses': [{'role': 'user', 'content': 'q'},
                  {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'One. first', 'annotations': [_url_cite('https://a.com')]}]},
                  {'type': 'function_call', 'call_id': 'c1', 'name': 'f', 'arguments': '{}'}, {'type': 'function_call_output', 'call_id': 'c1', 'output': 'r'},
                  {'type': 'message', 'role': 'assistant', 'content': [{'type': 'output_text', 'text': 'Two. second', 'annotations': [_url_cite('https://b.com')]}]}],
    'openai': [{'role': 'user', 'content': 'q'},
               {'role': 'assistant', 'content': 'One. first', 'annotations': [{'type': 'url_citation', 'url_citation': {k: v for k, v in _url_cite('https://a.com').items() if k != 'type'}}],
                'tool_calls': [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}]},
               {'role': 'tool', 'tool_call_id': 'c1', 'content': 'r'},
               {'role': 'assistant', 'content': 'Two. second', 'annotations': [{'type': 'url_citation', 'url_citation': {k: v for k, v in _url_cite('https://b.com').items() if k != 'type'}}]}],
    'anthropic': [{'role': 'user', 'content': 'q'},
                  {'role': 'assistant', 'content': [{'type': 'text', 'text': 'One.', 'citations': [_web_cite('https://a.com')]},
                                                    {'type': 'server_tool_use', 'id': 'srvtoolu_1', 'name': 'web_search', 'input': {'query': 'c'}},
                                                    {'type': 'web_search_tool_result', 'tool_use_id': 'srvtoolu_1', 'content': []},
                                                    {'type': 'text', 'text': 'Also.', 'citations': [_web_cite('https://c.com')]},
                                                    {'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
                  {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'r'}]},
                  {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Two.', 'citations': [_web_cite('https://b.com')]}]}]}

@pytest.mark.parametrize('fmt', list(_cited_replies))
def test_footnotes_are_numbered_through_a_reply_of_several_messages(fmt):
    "A reply (one cell) of several model messages, each citing a source: each message's footnotes started at [^1], so [^1] was defined twice and a Markdown renderer linked the later claims to the first source; now each label is defined once and points at its own message's source"
    import re
    md = chat2dlg(_cited_replies[fmt], fmt).messages[0].ai_res
    defs = dict(re.findall(r'^\[\^(\d+)\]: .*\((https://\w\.com)\)', md, re.M))
    assert len(re.findall(r'^\[\^\d+\]:', md, re.M)) == len(defs)  # each label defined once
    refs = re.findall(r'(One|Also|Two)\.\[\^(\d+)\]', md)
    want = {'One': 'https://a.com', 'Also': 'https://c.com', 'Two': 'https://b.com'}
    assert {w for w, _ in refs} == ({'One', 'Also', 'Two'} if fmt == 'anthropic' else {'One', 'Two'})
    assert all(defs[n] == want[w] for w, n in refs) and len(refs) == len(defs)

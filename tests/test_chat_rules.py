"Rules two pieces of `dialog.chat` must agree on: Anthropic turns never carry a blank text, one image sniffer, one thinking rule, Pillow's error"
import re, sys, types, pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from dialog.core import needs_extra
from dialog.chat import *
import dialog.chat as chat
from dialog import thread
from chat_checks import sdk_valid

# --- 1. Anthropic turns: no empty or whitespace-only text block, no empty content, nothing real lost

ws = st.text(alphabet=' \t\n\r\x0b\x0c\u00a0\u2003', max_size=3)
words = st.text(alphabet='ab \n', min_size=1, max_size=6)
texts = ws | words
def _tb(t): return {'type': 'text', 'text': t}
blocks = st.one_of(texts.map(_tb),
                   st.builds(lambda i: {'type': 'tool_use', 'id': f'u{i}', 'name': 'f', 'input': {}}, st.integers(0, 9)),
                   st.builds(lambda i, c: {'type': 'tool_result', 'tool_use_id': f'u{i}', 'content': c}, st.integers(0, 9), words),
                   st.just({'type': 'image', 'source': {'type': 'url', 'url': 'https://x.org/a.png'}}))
turns = st.lists(st.builds(lambda r, c: {'role': r, 'content': c}, st.sampled_from(['user', 'assistant']), texts | st.lists(blocks, max_size=4)), max_size=8)

def _all_blocks(msgs):
    return [b for m in msgs for b in ([_tb(m['content'])] if isinstance(m['content'], str) else m['content'])]

def _words(msgs): return [w for b in _all_blocks(msgs) if b['type']=='text' for w in b['text'].split()]
def _others(msgs): return [b for b in _all_blocks(msgs) if b['type']!='text']

@given(turns)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_anthropic_turns_never_send_a_blank_text(msgs):
    "Whatever turns `_an_alternate` merges (blank contents, whitespace-only texts beside tool results, same-role runs), it sends no blank text and no empty content, and keeps every word and every other block in order"
    import copy
    res = chat._an_alternate(copy.deepcopy(msgs))
    sdk_valid(res, 'anthropic')
    for i,m in enumerate(res):
        c = m['content']
        assert c, f'turn {i}: empty content'
        for b in [_tb(c)] if isinstance(c, str) else c:
            if b['type']=='text': assert b['text'].strip(), f'turn {i}: blank text block {b!r}'
        if i: assert m['role']!=res[i-1]['role'], f'turns {i-1} and {i} have one role'
    if res: assert res[0]['role']=='user'
    head = 1 if res and res[0]['content']=='(no request)' and _words(msgs)[:2]!=['(no', 'request)'] else 0
    assert _words(res[head:])==_words(msgs) and _others(res)==_others(msgs)

@pytest.mark.parametrize('msgs', [
    [{'role': 'user', 'content': ''}],
    [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': '  \n'}],
    [{'role': 'user', 'content': ' '}, {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'x', 'content': 'r'}]}],
    [{'role': 'assistant', 'content': []}, {'role': 'user', 'content': 'q'}],
    [{'role': 'user', 'content': 'q'}, {'role': 'assistant', 'content': [_tb('\n'), {'type': 'tool_use', 'id': 'a', 'name': 'f', 'input': {}}]}]])
def test_the_blank_turns_found(msgs):
    "The inputs that sent an empty text block (or an empty content list) before"
    for m in chat._an_alternate(msgs):
        c = m['content']
        assert c and all(b['type']!='text' or b['text'].strip() for b in ([_tb(c)] if isinstance(c, str) else c)), m

# --- 3. One image sniffer: a table of real headers, and the callers agree

PNG = b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x05\x00\x00\x00\x03\x08\x02\x00\x00\x00'
def riff(kind, chunk, body=b''): return b'RIFF' + (4+len(chunk)+len(body)).to_bytes(4, 'little') + kind + chunk + body
VP8 = riff(b'WEBP', b'VP8 ', b'\x10\x00\x00\x00' + b'\x30\x01\x00\x9d\x01\x2a' + (7).to_bytes(2, 'little') + (4).to_bytes(2, 'little'))
VP8L = riff(b'WEBP', b'VP8L', b'\x10\x00\x00\x00\x2f' + ((7-1) | (4-1)<<14).to_bytes(4, 'little') + bytes(8))
VP8X = riff(b'WEBP', b'VP8X', b'\x0a\x00\x00\x00' + b'\x00\x00\x00\x00' + (7-1).to_bytes(3, 'little') + (4-1).to_bytes(3, 'little'))
JPEG = b'\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xc0\x00\x11\x08\x00\x04\x00\x07\x03\x01\x22\x00'
headers = [(PNG, 'image/png', (5, 3)), (JPEG, 'image/jpeg', (7, 4)),
           (b'GIF87a\x07\x00\x04\x00\x80\x00\x00', 'image/gif', (7, 4)), (b'GIF89a\x07\x00\x04\x00\x80\x00\x00', 'image/gif', (7, 4)),
           (VP8, 'image/webp', (7, 4)), (VP8L, 'image/webp', (7, 4)), (VP8X, 'image/webp', (7, 4)),
           (riff(b'WAVE', b'fmt ', b'\x10\x00\x00\x00' + b'\x00'*16), None, None),  # RIFF, not WebP
           (riff(b'AVI ', b'LIST', b'\x00'*20), None, None),
           (riff(b'WEBP', b'ALPH', b'\x00'*20), None, None),  # RIFF/WEBP with no VP8 chunk first: not an image anyone decodes
           (b'RIFF\x00\x00\x00\x00WEBP', None, None), (b'RIFF\x00\x00\x00\x00WEB', None, None),  # truncated
           (VP8[:15], 'image/webp', None), (VP8X[:29], 'image/webp', None),  # truncated, the signature whole: a WebP, its size unknown
           (PNG[:3], None, None), (PNG[:7], 'image/png', None), (PNG[:20], 'image/png', None), (b'\xff\xd8', None, None),
           (b'GIF8', 'image/gif', None), (b'GIF89a\x07', 'image/gif', None),
           (b'', None, None), (b'%PDF-1.4', None, None), (b'BM\x00\x00', None, None)]

@pytest.mark.parametrize('data,mime,size', headers)
def test_img_type_reads_real_headers(data, mime, size):
    "The type and size of real headers, and the same type from chat's check of an image and from thread's attachment sniffer"
    assert img_type(data)==mime
    assert img_size(data)==size
    assert chat._img_facts(__import__('base64').b64encode(data).decode())==(mime, size)
    t = thread._sniff(data, 'x.bin')
    assert (t if t in img_mimes else None)==mime

prefixes = st.sampled_from([h for h,_,_ in headers] + [b'RIFF', b'RIFF\x00\x00\x00\x00WEBPVP8', b'\x89PNG', b'GIF8', b'\xff\xd8\xff'])
@given(prefixes, st.integers(0, 40), st.binary(max_size=30))
def test_the_sniffers_agree(pre, cut, tail):
    "chat's image check, `img_size` and thread's attachment sniffer all say what `img_type` says about an image type"
    data = (pre + tail)[:cut] if cut<len(pre) else pre + tail
    t = img_type(data)
    assert t is None or t in img_mimes
    assert chat._img_facts(__import__('base64').b64encode(data).decode())[0]==t
    if img_size(data) is not None: assert t is not None
    s = thread._sniff(data, 'x.bin')
    assert (s if s in img_mimes else None)==t

# --- 4. Pillow's error is `needs_extra`'s, raised as the ValueError a too-big image always was

def _want(what, err):
    with pytest.raises(ImportError) as e:
        with needs_extra('images', what): raise err
    return str(e.value)

def test_missing_pillow_is_worded_by_needs_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, 'PIL', None)
    with pytest.raises(ValueError) as e: fit_image(b'', 'image/png', 10)
    assert str(e.value)==_want('fit_image needs Pillow', ModuleNotFoundError('no PIL')) and isinstance(e.value.__cause__, ImportError)

def test_broken_pillow_says_why(monkeypatch):
    "A Pillow that is there but fails to import says why, as `needs_extra` words it"
    broken = types.ModuleType('PIL')
    def boom(name): raise ImportError('libjpeg.so.8: cannot open shared object file')
    broken.__getattr__ = boom
    monkeypatch.setitem(sys.modules, 'PIL', broken)
    monkeypatch.setitem(sys.modules, 'PIL.Image', None)
    with pytest.raises(ValueError, match=r'fails to import: .*libjpeg') as e: fit_image(b'', 'image/png', 10)
    assert 'nbdialog[images]' in str(e.value)

# --- 5. One thinking rule: what `_denoise` removes is what `_segments` skips

marks = st.sampled_from(['<!--think_start-->', '<!-- think_start -->', '<!--think_end-->', '<!--think_end-->  \n', '<!--  think_end-->\t',
                         '<!--', '-->', 'a', ' ', '\n', '\t', 'think_end', 'think_start'])
think_txt = st.lists(marks, max_size=14).map(''.join)
_oracle = re.compile(r'<!--\s*think_start\s*-->.*?<!--\s*think_end\s*-->[ \t]*\n?', re.S)  # the documented rule, written out plainly

@given(think_txt)
@settings(max_examples=500)
def test_think_spans_and_denoise_agree(txt):
    "The thinking `_denoise` removes is exactly the spans `_think_spans` gives that don't start inside an earlier one, and both are the rule's"
    spans,cut,pos = chat._think_spans(txt),[],0
    for s,_,e in spans:
        if s<pos: continue
        cut.append(txt[pos:s]); pos = e
    cut = ''.join(cut) + txt[pos:]
    assert chat._denoise(txt)==cut==_oracle.sub('', txt)
    assert [(s, e) for s,_,e in spans if not any(a<s<b for a,_,b in spans)]==[m.span() for m in _oracle.finditer(txt)]

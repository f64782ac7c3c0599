"Shared checks for chat tests: SDK-type validation (fully iterated) and the provider ordering rules the SDK types don't check"
from pydantic import BaseModel, TypeAdapter, ConfigDict
from openai.types.chat import ChatCompletionMessageParam
from anthropic.types import MessageParam

_tas = dict(openai=TypeAdapter(ChatCompletionMessageParam, config=ConfigDict(extra='forbid')),
            anthropic=TypeAdapter(MessageParam, config=ConfigDict(extra='forbid')))

def materialize(x):
    "`x` with every lazily validated iterable (pydantic's ValidatorIterator) fully iterated into lists"
    if isinstance(x, dict): return {k: materialize(v) for k, v in x.items()}
    if isinstance(x, BaseModel): return materialize(x.model_dump(exclude_unset=True))  # smart unions may pick a response model, e.g. TextBlock
    if isinstance(x, (str, bytes, int, float, bool)) or x is None: return x
    return [materialize(v) for v in x]

_oa_reasoning = ('reasoning_content', 'reasoning', 'reasoning_details') # OpenAI-compatible providers' keys on assistant messages (DeepSeek, Kimi, vLLM, OpenRouter), which OpenAI's own types don't list

def sdk_valid(msgs, fmt):
    "Each message validates as the SDK's param type with extra keys forbidden, and the validated value equals it"
    for i, m in enumerate(msgs):
        if fmt == 'openai' and m.get('role') == 'assistant': m = {k: v for k, v in m.items() if k not in _oa_reasoning}
        assert materialize(_tas[fmt].validate_python(m)) == m, f'message {i} changed under validation'

def _blank(t): return not isinstance(t, str) or not t.strip()

import re
_an_id = re.compile(r'[a-zA-Z0-9_-]{1,64}')
AN_IMG_BYTES, AN_IMG_PX, OA_IMG_BYTES = 5*2**20, 8000, 20*2**20  # the providers' documented per-image limits (base64 bytes, long edge)

def _img_ok(data, max_bytes, max_px):
    "A base64 image within the byte limit and, read with Pillow when installed, the pixel limit"
    assert len(data) <= max_bytes, f'image of {len(data)} base64 bytes over {max_bytes}'
    if max_px:
        try: from PIL import Image
        except ImportError: return
        import base64, io
        try: size = Image.open(io.BytesIO(base64.b64decode(data))).size
        except Exception: return  # not a real image (generated test bytes): only its byte size can be checked
        assert max(size) <= max_px, f'image of {size} px over the pixel limit {max_px}'

def openai_rules(msgs):
    "System only first; every tool_calls entry answered right after, in order, by tool messages; no stray tool messages; no blank texts; ids unique and at most 40 characters; images within 20 MB"
    ids_seen = [tc['id'] for m in msgs for tc in m.get('tool_calls', [])]
    assert len(ids_seen) == len(set(ids_seen)), f'duplicate tool call ids {ids_seen}'
    assert all(0 < len(i) <= 40 for i in ids_seen), f'tool call id over 40 characters in {ids_seen}'
    for m in msgs:
        for p in m['content'] if isinstance(m.get('content'), list) else ():
            if p['type'] == 'image_url' and p['image_url']['url'].startswith('data:'): _img_ok(p['image_url']['url'].split(',', 1)[1], OA_IMG_BYTES, None)
    i = 0
    while i < len(msgs):
        m = msgs[i]
        assert m['role'] != 'system' or i == 0, f'system message at {i}'
        assert m['role'] != 'tool', f'tool message at {i} answers no call'
        c = m.get('content')
        if isinstance(c, str): assert c.strip() or m['role'] == 'tool', f'blank content at {i}'
        if isinstance(c, list): assert all(not (p['type'] == 'text' and _blank(p['text'])) for p in c), f'blank text part at {i}'
        if m['role'] == 'assistant':
            assert c is not None or m.get('tool_calls'), f'empty assistant message at {i}'
            ids = [tc['id'] for tc in m.get('tool_calls', [])]
            got = [msgs[i+1+k].get('tool_call_id') if i+1+k < len(msgs) and msgs[i+1+k]['role'] == 'tool' else None for k in range(len(ids))]
            assert got == ids, f'tool calls at {i} answered by {got}, expected {ids}'
            i += len(ids)
        i += 1

def anthropic_rules(msgs):
    "Starts with the user, roles alternate, no empty or whitespace-only text, a last assistant turn not ending in white space, each tool_use answered at the start of the next user turn; ids unique and matching the id pattern; tool results not blank, nor any text block in them; images within 5 MB and 8,000 px (2,000 px over 20 images)"
    assert not msgs or msgs[0]['role'] == 'user', 'first turn is not the user'
    blocks_all = [b for m in msgs if isinstance(m['content'], list) for b in m['content']]
    uses_all = [b['id'] for b in blocks_all if b['type'] == 'tool_use']
    assert len(uses_all) == len(set(uses_all)), f'duplicate tool_use ids {uses_all}'
    assert all(_an_id.fullmatch(i) for i in uses_all), f'tool_use id refused by the pattern in {uses_all}'
    in_results = [x for b in blocks_all if b['type'] == 'tool_result' and isinstance(b.get('content'), list) for x in b['content']]
    imgs = [b['source'] for b in blocks_all + in_results if b['type'] == 'image']  # a screenshot a tool returned is an image of the request too
    assert len(imgs) <= 100, f'{len(imgs)} images in one request, over 100'
    for s in imgs:
        if s['type'] == 'base64': _img_ok(s['data'], AN_IMG_BYTES, 2000 if len(imgs) > 20 else AN_IMG_PX)
    # each text block inside a tool result is a text block too: "text content blocks must be non-empty"
    assert all(x['text'].strip() for x in in_results if x['type'] == 'text'), f'blank text block in a tool result {in_results}'
    for b in blocks_all:
        if b['type'] == 'tool_result':
            c = b.get('content')
            assert not _blank(c if isinstance(c, str) else ''.join(x.get('text', 'x') for x in c or [])), f'blank tool result {b}'
    if msgs and msgs[-1]['role'] == 'assistant':
        c = msgs[-1]['content']; last = c if isinstance(c, str) else c[-1].get('text', 'x') if c else 'x'
        assert last == last.rstrip(), 'the last turn (an assistant prefill) ends in white space'
    for i, m in enumerate(msgs):
        assert m['role'] in ('user', 'assistant')
        if i: assert m['role'] != msgs[i-1]['role'], f'turns {i-1} and {i} have the same role'
        c = m['content']
        blocks = [{'type': 'text', 'text': c}] if isinstance(c, str) else c
        assert blocks, f'empty content at {i}'
        for b in blocks:
            if b['type'] == 'text': assert b['text'].strip(), f'blank text at {i}'
        # "The final block in an assistant message cannot be `thinking`"
        if m['role'] == 'assistant': assert blocks[-1]['type'] not in ('thinking', 'redacted_thinking'), f'assistant turn {i} ends in thinking'
        uses = [b['id'] for b in blocks if b['type'] == 'tool_use']
        results = [b['tool_use_id'] for b in blocks if b['type'] == 'tool_result']
        if results:
            assert m['role'] == 'user' and i and [b['type'] for b in blocks[:len(results)]] == ['tool_result']*len(results), f'tool results at {i} not first'
            prev = [b['id'] for b in msgs[i-1]['content'] if isinstance(msgs[i-1]['content'], list) and b['type'] == 'tool_use']
            assert results == prev, f'results at {i} {results} do not answer {prev}'
        if uses:
            nxt = msgs[i+1]['content'] if i+1 < len(msgs) else []
            assert [b.get('tool_use_id') for b in nxt[:len(uses)]] == uses, f'tool uses at {i} unanswered'

def check_history(msgs, fmt):
    sdk_valid(msgs, fmt)
    (openai_rules if fmt == 'openai' else anthropic_rules)(msgs)

def assert_same(got, exp):
    "Histories equal, else an error showing the first differing message in full"
    import json
    for i, (g, e) in enumerate(zip(got, exp)):
        assert g == e, f'message {i} differs:\n{json.dumps(g, indent=1)}\n!=\n{json.dumps(e, indent=1)}'
    assert len(got) == len(exp), f'{len(got)} messages != {len(exp)}: extra {json.dumps((got[len(exp):] or exp[len(got):])[0], indent=1)}'

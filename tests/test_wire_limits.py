"Request limits (issue 30): each image fitted, and the request as a whole: eight photos no longer make a 37 MB Anthropic body (limit 32 MB); too many images is a ValueError naming the limit"
import base64, io, json, os, pytest
from dialog.core import *
from dialog.chat import *
from chat_checks import check_history
PIL = pytest.importorskip('PIL.Image')

def photo(seed, w=1200, h=1000):
    "A PNG of noise: it barely compresses, so its base64 is about 4.8 MB, under Anthropic's 5 MB per image"
    im = PIL.frombytes('RGB', (w, h), os.urandom(w*h*3) if seed is None else bytes((i*seed*7919 + (i>>3)*31) % 251 for i in range(w*h*3)))
    b = io.BytesIO(); im.save(b, 'PNG'); return b.getvalue()

def album(n, data):
    d = Dialog('album')
    m = d.mk_message('Which is best?\n\n' + '\n'.join(f'![p{i}](attachment:p{i}.png)' for i in range(n)), msg_type=sprompt, id='q1')
    for i in range(n): m.mk_attachment(data, 'image/png', f'p{i}.png')
    return d

def body_size(msgs): return len(json.dumps(msgs, ensure_ascii=False).encode())

@pytest.mark.slow
def test_eight_photos_fit_anthropics_request_limit():
    data = photo(None)
    assert len(base64.b64encode(data)) < 5*2**20 and 8*len(base64.b64encode(data)) > 32*2**20  # each fits, together they don't
    d = album(8, data)
    out = dlg2chat(d, 'anthropic')
    assert body_size(out) <= req_limits['anthropic']['bytes']
    assert sum(b['type'] == 'image' for b in out[0]['content']) == 8
    check_history(out, 'anthropic')
    assert d.messages[0].attachments[0].data == data  # the dialog keeps its photos
    assert body_size(dlg2chat(d, 'openai')) > 32*2**20  # OpenAI's limit is 50 MB: sent as they are

def test_too_many_images_names_the_limit():
    png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==')
    d = album(101, png)
    with pytest.raises(ValueError, match="dialog 'album': the request holds 101 images, over anthropic's limit of 100 in one request"): dlg2chat(d, 'anthropic')
    assert len(dlg2chat(d, 'openai')[0]['content']) == 102

def test_a_request_too_big_by_its_text_names_the_limit():
    d = Dialog('big')
    d.mk_message('x' * (33*2**20), msg_type=sprompt)
    with pytest.raises(ValueError, match="over anthropic's limit of 33554432 bytes, and not by its images"): dlg2chat(d, 'anthropic')  # text alone is measured too (issue 30 review)
    assert dlg2chat(d, 'gemini')  # under Gemini's 100 MB of inline data (its limit since January 2026; 20 MB before)
    assert len(dlg2chat(album(101, b'\x89PNG'), 'anthropic', limits=False)[0]['content']) == 102  # an archive, never one request
    d.messages[0].content = 'x'
    m = d.mk_message('[doc](attachment:d.pdf)', msg_type=sprompt)
    m.mk_attachment(b'%PDF-1.7\n' + b'0'*(25*2**20), 'application/pdf', 'd.pdf')
    with pytest.raises(ValueError, match="over anthropic's limit of 33554432 bytes, and not by its images"): dlg2chat(d, 'anthropic')
    assert dlg2chat(d, 'gemini')

def test_the_byte_limit_counts_the_system_prompt():
    "A request over the limit by its system prompt alone (which goes beside the messages, as Anthropic's `system=`) is refused, naming the limit"
    d = Dialog('sys'); d.system = 'x' * (33*2**20)
    d.mk_message('hi', msg_type=sprompt)
    with pytest.raises(ValueError, match="over anthropic's limit of 33554432 bytes"): dlg2chat(d, 'anthropic')
    d.system = 'Be brief.'
    assert dlg2chat(d, 'anthropic') == [{'role': 'user', 'content': 'hi'}]

def screenshot_loop(n, data, fmt='anthropic'):
    "An agent's tool loop of `n` screenshots, each a tool result holding an image"
    b64 = base64.b64encode(data).decode()
    h = [{'role': 'user', 'content': 'Click through the app'}]
    for i in range(n):
        h += [{'role': 'assistant', 'content': [{'type': 'tool_use', 'id': f'toolu_{i}', 'name': 'screenshot', 'input': {}}]},
              {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': f'toolu_{i}', 'content': [{'type': 'text', 'text': f'shot {i}'}, {'type': 'image', 'source': {'type': 'base64', 'media_type': 'image/png', 'data': b64}}]}]}]
    return chat2dlg(h + [{'role': 'assistant', 'content': 'Done.'}], 'anthropic', name='shots')

def sent_images(out):
    "Images in a request, tool results' included (Anthropic, Responses, Gemini spellings)"
    s = json.dumps(out)
    return s.count('"type": "image"') + s.count('"input_image"') + s.count('"inlineData"')

def test_screenshots_in_tool_results_count_toward_the_image_limit():
    "Anthropic takes at most 100 images in one request, a tool result's among them: 101 screenshots are a ValueError naming the limit, not a request Anthropic refuses"
    png = base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==')
    with pytest.raises(ValueError, match="dialog 'shots': the request holds 101 images, over anthropic's limit of 100 in one request"): dlg2chat(screenshot_loop(101, png), 'anthropic')
    d = screenshot_loop(100, png)
    check_history(out := dlg2chat(d, 'anthropic'), 'anthropic')
    assert sent_images(out) == 100 and sent_images(dlg2chat(d, 'responses')) == 100 and sent_images(dlg2chat(d, 'gemini')) == 100
    assert len(dlg2chat(screenshot_loop(101, png), 'openai')) == 204  # Chat Completions gets each as a short note: no image to count

def test_a_screenshot_over_the_per_image_limit_is_fitted():
    "A tool result's image over Anthropic's 8,000 px (or 2,000 px past 20 images) is shrunk in what is sent, as a prompt's image is; the dialog keeps it"
    data = photo(None, 8100, 20)
    d = screenshot_loop(1, data)
    out = dlg2chat(d, 'anthropic')
    check_history(out, 'anthropic')
    src = out[2]['content'][0]['content'][1]['source']
    assert max(PIL.open(io.BytesIO(base64.b64decode(src['data']))).size) <= 8000
    assert base64.b64encode(data).decode() in d.messages[0].ai_res
    many = dlg2chat(screenshot_loop(21, photo(None, 2100, 10)), 'anthropic')  # past 20 images, each at most 2,000 px
    check_history(many, 'anthropic')

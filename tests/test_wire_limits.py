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
    d.mk_message('x' * (21*2**20), msg_type=sprompt)
    with pytest.raises(ValueError, match="over gemini's limit of 20971520 bytes, and not by its images"): dlg2chat(d, 'gemini')  # text alone is measured too (issue 30 review)
    assert dlg2chat(d, 'anthropic')  # under Anthropic's 32 MB
    assert len(dlg2chat(album(101, b'\x89PNG'), 'anthropic', limits=False)[0]['content']) == 102  # an archive, never one request
    m = d.mk_message('[doc](attachment:d.pdf)', msg_type=sprompt)
    m.mk_attachment(b'%PDF-1.7\n' + b'0'*(11*2**20), 'application/pdf', 'd.pdf')
    with pytest.raises(ValueError, match="over gemini's limit of 20971520 bytes, and not by its images"): dlg2chat(d, 'gemini')

def test_the_byte_limit_counts_the_system_prompt():
    "A request over the limit by its system prompt alone (which goes beside the messages, as Anthropic's `system=`) is refused, naming the limit"
    d = Dialog('sys'); d.system = 'x' * (33*2**20)
    d.mk_message('hi', msg_type=sprompt)
    with pytest.raises(ValueError, match="over anthropic's limit of 33554432 bytes"): dlg2chat(d, 'anthropic')
    d.system = 'Be brief.'
    assert dlg2chat(d, 'anthropic') == [{'role': 'user', 'content': 'hi'}]

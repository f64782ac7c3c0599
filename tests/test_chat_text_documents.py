"A plain-text document (Anthropic's text `document`, a `text/plain` attachment) is text: token counts count it, and text-only training shapes write it"
import json, pytest
from dialog.core import *
from dialog.chat import *

fmts = ('openai', 'anthropic', 'responses', 'gemini')

def doc_dialog(text, mime='text/plain', name='notes.txt'):
    d = Dialog('doc')
    m = d.mk_message(f'Summarise [notes](attachment:{name})', msg_type=sprompt, output='A summary.')
    m.mk_attachment(text, mime, name)
    return d

@pytest.mark.parametrize('fmt', fmts)
def test_count_tokens_counts_a_text_documents_text(fmt):
    "A text document costs about its text, as every provider charges it, not a flat image's 1,600 tokens"
    short = count_tokens(dlg2chat(doc_dialog(b'hello'), fmt)[0])
    long = count_tokens(dlg2chat(doc_dialog(b'the quick brown fox jumps ' * 1000), fmt)[0])
    assert short < 100 and long > 4000

def test_count_tokens_still_charges_a_pdf_flat():
    out = dlg2chat(doc_dialog(b'%PDF-1.4\n' + b'x' * 100000, 'application/pdf', 'a.pdf'), 'anthropic')[0]
    assert count_tokens(out) < img_tokens + 100

@pytest.mark.parametrize('shape', ['hf', 'trl', 'sharegpt'])
def test_text_only_shapes_write_a_text_document_as_text(tmp_path, shape):
    "The text-only shapes take a text document as the text OpenAI gets; a PDF is refused by what it is, and `drop='has_file'` leaves its dialog out"
    fn = tmp_path/'a.jsonl'
    dlgs2jsonl([doc_dialog(b'hello world')], fn, shape=shape)
    line = fn.read_text()
    assert 'hello world' in line and '<document title=\\"notes\\">' in line
    pdf = doc_dialog(b'%PDF-1.4', 'application/pdf', 'a.pdf')
    with pytest.raises(ValueError, match=rf"message '{pdf.messages[0].id}' sends a PDF, and shape '{shape}' takes text only: leave such dialogs out with drop='has_file'"):
        dlgs2jsonl([pdf], fn, shape=shape)
    dlgs2jsonl([pdf, doc_dialog(b'kept')], fn, shape=shape, drop='has_file')
    assert len(fn.read_text().splitlines()) == 1 and 'kept' in fn.read_text()

def test_has_file_sees_each_providers_file_parts():
    "`drop='has_file'` holds for a PDF or audio in any format's messages, and not for a text document or an image"
    pdf, txt = doc_dialog(b'%PDF-1.4', 'application/pdf', 'a.pdf'), doc_dialog(b'hello')
    for fmt in fmts:
        assert jsonl_drops['has_file'](dlg2chat(pdf, fmt)) and not jsonl_drops['has_file'](dlg2chat(txt, fmt))

"Documents and audio (issue 30): read from each provider's own part, kept as attachments linked from the prompt, sent as each provider's own part; a clear ValueError naming the message and the provider where it has none"
import base64, json, pytest
from dialog.core import *
from dialog.chat import *
from dialog.ipynb import reads_ipynb, write_ipynb
from chat_checks import check_history
from test_chat_traffic import Provider
from test_wire_responses import responses_rules

pdf = base64.b64encode(b'%PDF-1.7\n%%EOF\n').decode()
wav = base64.b64encode(b'RIFF\x24\x00\x00\x00WAVEfmt ').decode()

def test_pdf_from_each_provider_to_each_provider():
    hs = {'openai': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Summarise'}, {'type': 'file', 'file': {'filename': 'a.pdf', 'file_data': f'data:application/pdf;base64,{pdf}'}}]}],
          'anthropic': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Summarise'}, {'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, 'title': 'a.pdf'}]}],
          'responses': [{'role': 'user', 'content': [{'type': 'input_text', 'text': 'Summarise'}, {'type': 'input_file', 'file_data': f'data:application/pdf;base64,{pdf}', 'filename': 'a.pdf'}]}]}
    for src, h in hs.items():
        d = reads_ipynb(write_ipynb(chat2dlg(h, src)))
        m = d.messages[0]
        assert m.attachments[0].content_type == 'application/pdf' and m.attachments[0].data.startswith(b'%PDF') and '[a.pdf](attachment:' in m.content
        for dst, want in hs.items(): assert dlg2chat(d, dst) == want, (src, dst)
        assert {'inlineData': {'mimeType': 'application/pdf', 'data': pdf}} in dlg2chat(d, 'gemini')[0]['parts']
        check_history(dlg2chat(d, 'openai'), 'openai'); check_history(dlg2chat(d, 'anthropic'), 'anthropic'); responses_rules(dlg2chat(d, 'responses'))

def test_audio_to_openai_and_gemini_and_a_clear_error_elsewhere():
    h = [{'role': 'user', 'content': [{'type': 'text', 'text': 'Transcribe'}, {'type': 'input_audio', 'input_audio': {'data': wav, 'format': 'wav'}}]}]
    d = chat2dlg(h)
    assert dlg2chat(d) == h
    assert dlg2chat(d, 'gemini')[0]['parts'][1] == {'inlineData': {'mimeType': 'audio/wav', 'data': wav}}
    mid = d.messages[0].id
    for fmt in ('anthropic', 'responses'):
        with pytest.raises(ValueError, match=rf"message '{mid}': {fmt} takes no audio/wav file as a content part"): dlg2chat(d, fmt)

def test_a_dialog_sends_its_own_pdf_through_the_sdks():
    d = Dialog('doc')
    m = d.mk_message('What does [the report](attachment:r.pdf) say?', msg_type=sprompt)
    m.mk_attachment(base64.b64decode(pdf), 'application/pdf', 'r.pdf')
    _, body, _ = Provider('anthropic').send(d)
    assert body['messages'][0]['content'][1] == {'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, 'title': 'the report'}
    _, body, _ = Provider('openai').send(d)
    assert body['messages'][0]['content'][1]['file']['file_data'] == f'data:application/pdf;base64,{pdf}'
    m.content = 'See [notes](attachment:missing.pdf) and ![pic](attachment:r.pdf).'  # a missing file stays text; an image reference to a PDF is no image
    assert dlg2chat(d) == [{'role': 'user', 'content': m.content}]

def test_files_by_id_are_refused_by_name():
    with pytest.raises(ValueError, match='message 0: content part 0: a file must come as a base64 data: URL'):
        chat2dlg([{'role': 'user', 'content': [{'type': 'file', 'file': {'file_id': 'file-abc'}}]}])
    with pytest.raises(ValueError, match="message 0: content part 0: a 'video/mp4' file: only application/pdf, audio/wav, audio/mpeg, text/plain are kept"):
        chat2dlg([{'role': 'user', 'content': [{'type': 'file', 'file': {'file_data': 'data:video/mp4;base64,AAAA'}}]}])

def test_anthropic_text_and_url_documents_read_and_written():
    "Anthropic `document` blocks with a text source and with a URL source: read (a text/plain attachment; a link saying the URL and its type), sent back as they came, and to others as each can take them"
    h = [{'role': 'user', 'content': [{'type': 'document', 'source': {'type': 'text', 'media_type': 'text/plain', 'data': 'The grass is green.'}, 'title': 'Notes'},
                                      {'type': 'document', 'source': {'type': 'url', 'url': 'https://example.com/paper.pdf'}},
                                      {'type': 'text', 'text': 'Summarise both'}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic')))
    m = d.messages[0]
    assert m.attachments[0].content_type == 'text/plain' and m.attachments[0].data == b'The grass is green.'
    assert '[](https://example.com/paper.pdf "sent as application/pdf")' in m.content
    assert dlg2chat(d, 'anthropic') == h
    _, body, _ = Provider('anthropic').send(d)
    assert body['messages'] == h
    rs = dlg2chat(d, 'responses')[0]['content']
    assert rs[0] == {'type': 'input_text', 'text': '<document title="Notes">\nThe grass is green.\n</document>'} and rs[1] == {'type': 'input_file', 'file_url': 'https://example.com/paper.pdf'}
    responses_rules(dlg2chat(d, 'responses'))
    gm = dlg2chat(d, 'gemini')[0]['parts']
    assert gm[0] == {'inlineData': {'mimeType': 'text/plain', 'data': base64.b64encode(b'The grass is green.').decode()}} and gm[1] == {'fileData': {'mimeType': 'application/pdf', 'fileUri': 'https://example.com/paper.pdf'}}
    with pytest.raises(ValueError, match=rf"message '{m.id}': openai takes no application/pdf file by URL as a content part \(unnamed: https://example.com/paper.pdf\)"): dlg2chat(d, 'openai')
    m.content = m.content.replace('[](https://example.com/paper.pdf "sent as application/pdf")', '')
    assert dlg2chat(d, 'openai')[0]['content'][0] == {'type': 'text', 'text': '<document title="Notes">\nThe grass is green.\n</document>'}

def test_url_file_writes_a_link_each_provider_reads():
    "`url_file` is the link `chat2dlg` writes for a file by URL: a prompt holding one sends it by URL, and a Responses `input_file` by URL reads back to it"
    d = Dialog('u')
    d.mk_message('Read ' + url_file('spec [v2]', 'https://example.com/a (1).pdf', 'APPLICATION/PDF'), msg_type=sprompt)
    assert d.messages[0].content == 'Read [spec \\[v2\\]](https://example.com/a%20%281%29.pdf "sent as application/pdf")'
    rs = dlg2chat(d, 'responses')
    assert rs[0]['content'][1] == {'type': 'input_file', 'file_url': 'https://example.com/a%20%281%29.pdf', 'filename': 'spec [v2]'}
    assert dlg2chat(chat2dlg(rs, 'responses'), 'responses') == rs
    assert dlg2chat(d, 'anthropic')[0]['content'][1] == {'type': 'document', 'source': {'type': 'url', 'url': 'https://example.com/a%20%281%29.pdf'}, 'title': 'spec [v2]'}

from hypothesis import given, strategies as st
@given(st.text(max_size=12), st.text(st.characters(blacklist_categories=('Cs',)), min_size=1, max_size=20), st.sampled_from(['application/pdf', 'video/mp4', 'Audio/MPEG', 'text/plain']))
def test_url_file_reads_back_as_the_file_it_names(name, path, mime):
    "Any name, URL path and type `url_file` writes into a prompt reads back as one file part by that (escaped) URL, that type, and that name exactly (brackets and backslashes escaped in the link)"
    import dialog.chat as c
    url = 'https://example.com/' + path
    link = url_file(name, url, mime)
    ps = [p for p in c._text_parts('see ' + link, []) if p['type']=='file']
    assert ps == [{'type': 'file', 'mime': mime.lower(), 'name': name or None, 'url': c._url_esc(url), 'ref': c._url_esc(url)}]

def test_document_citations_and_context_go_back_to_anthropic():
    "A document's `citations` (turned on: Claude then cites it) and `context` come back on that document after a save, through the real client; the thinking made after it goes back too (the prefix is exact); other providers, with no such keys, never see them"
    docs = [{'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, 'title': 'Paper', 'context': 'From 2024', 'citations': {'enabled': True}},
            {'type': 'document', 'source': {'type': 'text', 'media_type': 'text/plain', 'data': 'Notes.'}, 'citations': {'enabled': True}},
            {'type': 'document', 'source': {'type': 'url', 'url': 'https://example.com/a.pdf'}, 'context': 'Web'}]
    h = [{'role': 'user', 'content': docs + [{'type': 'text', 'text': 'Compare'}]},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 'Look up.', 'signature': 'S1'}, {'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'r'}]}]
    d = reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic')))
    assert dlg2chat(d, 'anthropic') == h
    _, body, _ = Provider('anthropic').send(d)
    assert body['messages'] == h
    others = json.dumps([dlg2chat(d, f) for f in ('responses', 'gemini')])
    assert 'citations' not in others and 'From 2024' not in others
    m = d.messages[0]
    m.meta['dialog']['doc_opts'] = 'x'
    with pytest.raises(ValueError, match=rf"message '{m.id}': meta\['dialog'\]\['doc_opts'\] must map"): dlg2chat(d, 'anthropic')

def test_document_title_with_brackets_comes_back_as_it_came():
    "A document titled `[Draft] Q3 report` in a Claude tool loop with thinking: the title goes back unchanged, so the prefix is exact and the thinking goes back too (the brackets came back as parentheses, and the thinking was dropped)"
    h = [{'role': 'user', 'content': [{'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}, 'title': '[Draft] Q3 report \\ v2'},
                                      {'type': 'text', 'text': 'Summarise'}]},
         {'role': 'assistant', 'content': [{'type': 'thinking', 'thinking': 't', 'signature': 'S'}, {'type': 'tool_use', 'id': 'toolu_1', 'name': 'f', 'input': {}}]},
         {'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'r'}]}]
    assert dlg2chat(reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic'))), 'anthropic') == h

def test_untitled_pdf_goes_to_openai_with_a_filename():
    "An untitled PDF (an Anthropic document without a title, a notebook's `[](attachment:ID)`) goes to Chat Completions and Responses as inline data with a filename, its attachment's id (OpenAI refuses inline file data without one); Anthropic's stays untitled"
    h = [{'role': 'user', 'content': [{'type': 'document', 'source': {'type': 'base64', 'media_type': 'application/pdf', 'data': pdf}}, {'type': 'text', 'text': 'Summarise'}]}]
    d = chat2dlg(h, 'anthropic')
    aid = d.messages[0].attachments[0].id
    assert dlg2chat(d, 'openai')[0]['content'][0] == {'type': 'file', 'file': {'file_data': f'data:application/pdf;base64,{pdf}', 'filename': f'{aid}.pdf'}}
    assert dlg2chat(d, 'responses')[0]['content'][0] == {'type': 'input_file', 'file_data': f'data:application/pdf;base64,{pdf}', 'filename': f'{aid}.pdf'}
    assert dlg2chat(d, 'anthropic') == h

def test_one_url_given_twice_keeps_each_documents_options():
    "Two Anthropic documents with one URL in a turn, one with citations and one with a context note: each goes back with its own options (the second's replaced the first's)"
    u = 'https://example.org/report.pdf'
    h = [{'role': 'user', 'content': [{'type': 'document', 'source': {'type': 'url', 'url': u}, 'citations': {'enabled': True}},
                                      {'type': 'document', 'source': {'type': 'url', 'url': u}, 'context': 'second'},
                                      {'type': 'document', 'source': {'type': 'url', 'url': u}}, {'type': 'text', 'text': 'Summarise'}]},
         {'role': 'assistant', 'content': 'ok'}]
    assert dlg2chat(reads_ipynb(write_ipynb(chat2dlg(h, 'anthropic'))), 'anthropic')[0] == h[0]

def test_drop_has_file_leaves_out_a_file_the_format_cannot_take(tmp_path):
    "`drop='has_file'` leaves out a dialog holding a PDF by URL or a Gemini file URI, which OpenAI can't take, instead of failing the whole export; without the rule the export still names the file"
    ok = chat2dlg([{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'hello'}], 'openai')
    url_pdf = chat2dlg([{'role': 'user', 'content': [{'type': 'document', 'source': {'type': 'url', 'url': 'https://example.org/a.pdf'}}, {'type': 'text', 'text': 'Summarise'}]},
                        {'role': 'assistant', 'content': 'ok'}], 'anthropic')
    gm = chat2dlg([{'role': 'user', 'parts': [{'fileData': {'mimeType': 'application/pdf', 'fileUri': 'https://generativelanguage.googleapis.com/v1beta/files/abc'}}, {'text': 'Summarise'}]},
                   {'role': 'model', 'parts': [{'text': 'ok'}]}], 'gemini')
    p = dlgs2jsonl([ok, url_pdf, gm], tmp_path/'x.jsonl', drop='has_file')
    assert [json.loads(l)['messages'][0]['content'] for l in p.read_text().splitlines()] == [[{'type': 'text', 'text': 'hi'}]]
    with pytest.raises(ValueError, match='dialog 1: .*openai takes no application/pdf file by URL'): dlgs2jsonl([ok, url_pdf], tmp_path/'y.jsonl', drop='has_image')

# yesterday's writer put a name in a link as it was, backslashes and all (brackets turned into parentheses)
old_names = ['\\\\server\\share\\doc.pdf', 'C:\\docs\\report', 'ends with\\', 'a\\\\b', 'x\\)y', '\\', 'x\\\\']

@pytest.mark.parametrize('name', old_names)
def test_a_name_written_before_brackets_were_escaped_reads_as_it_was(name):
    "A file link saved by the earlier writer (a name without brackets, backslashes as they were) reads as that name: its file is still sent"
    for txt in [f'[{name}](https://ex.com/a.pdf "sent as application/pdf")', f'see [{name}](attachment:a1)']:
        d = Dialog('d', [Message(txt, msg_type='prompt', attachments=[Attachment(b'%PDF-1.4 x', 'application/pdf', 'a1')])])
        files = [p for p in dlg2chat(d, 'anthropic')[0]['content'] if p['type']=='document']
        assert len(files)==1 and files[0]['title']==name

@pytest.mark.parametrize('url', ['', None, 3])
def test_an_input_file_without_a_url_is_a_value_error(url):
    "A Responses `input_file` whose `file_url` is empty or no string: a ValueError naming the message and part (a TypeError from base64 before)"
    h = [{'role': 'user', 'content': [{'type': 'input_text', 'text': 'Read'}, {'type': 'input_file', 'file_url': url}]}]
    with pytest.raises(ValueError, match="message 0: user content part 1: an input_file's file_url must be a URL"): chat2dlg(h, 'responses')

"""The sync's own reader of cells without thread records (`cells2msgs`): a thread reads back from its file by its own rules,
never through `dlg2chat` (what dialog.chat chooses to send a model), and reads a reply as the thread writes one."""
import ast, json
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st
import dialog.chat as chat
import dialog.thread_sync as sync
from dialog.core import Dialog, tiny_png, Attachment as CellAttachment
from dialog.thread import Thread, Message

def test_the_sync_never_calls_dlg2chat():
    tree = ast.parse(Path(sync.__file__).read_text())
    assert 'dlg2chat' not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} \
        | {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}

def test_a_file_made_elsewhere_reads_without_dialog_chat_sending(tmp_path, monkeypatch):
    d = Dialog('notes')
    d.mk_message('# Orders', msg_type='note')
    d.mk_message('Where is order 12345?', msg_type='prompt', output='It shipped.')
    p = tmp_path/'n.ipynb'; d.save(p)
    def refuse(*a, **k): raise AssertionError('read through dlg2chat')
    monkeypatch.setattr(chat, 'dlg2chat', refuse)
    t = Thread.read(p)
    assert [(m.role, m.content) for m in t.messages]==[('user', f'<note id="{d.messages[0].id}">\n# Orders\n</note>\n\nWhere is order 12345?'), ('assistant', 'It shipped.')]

def test_a_pasted_image_is_the_user_messages_attachment(tmp_path):
    "dialog.chat sends a prompt's image as an image part; the thread reads it as narrator keeps files: an attachment with its bytes, the text as the cell shows it"
    d = Dialog('pics')
    d.mk_message('What is this?\n\n![dot](attachment:dot.png)', msg_type='prompt', output='A dot.', attachments=[CellAttachment(tiny_png, 'image/png', 'dot.png')])
    p = tmp_path/'p.ipynb'; d.save(p)
    u = Thread.read(p).messages[0]
    assert u.content=='What is this?\n\n![dot](attachment:dot.png)' and [(a.filename, a.data(), a.mime_type) for a in u.attachments]==[('dot.png', tiny_png, 'image/png')]
    assert isinstance(chat.dlg2chat(d)[0]['content'], list) # what chat sends differs: parts

def test_code_outputs_are_context_text():
    d = Dialog('c')
    d.mk_message('print(6*7)', msg_type='code', output=[dict(output_type='stream', name='stdout', text='42\n')])
    c = d.messages[0]
    assert sync.cells2msgs(d.messages)==[dict(role='user', content=f'<code id="{c.id}">\nprint(6*7)\n</code>\n<output id="{c.id}">\n42\n</output>')]

def test_skipped_cells_give_nothing():
    d = Dialog('s'); d.mk_message('hidden', msg_type='note', skipped=True); d.mk_message('q', msg_type='prompt', skipped=True)
    assert sync.cells2msgs(d.messages)==[]

# no 🧠 or ⏳: a line of them in a notebook made elsewhere is a host's progress noise, which `dialog.chat` reads past
_txt = st.text(st.characters(codec='utf-8', exclude_characters='<>`*#[]!\\\r🧠⏳'), min_size=1, max_size=20).map(str.strip).filter(bool)
_call = st.tuples(st.from_regex(r'call_[a-z0-9]{1,6}', fullmatch=True), st.from_regex(r'[a-z_]{1,8}', fullmatch=True), st.dictionaries(st.from_regex(r'[a-z]{1,5}', fullmatch=True), st.integers(), max_size=2), _txt)

@st.composite
def replies(draw):
    "A turn's reply messages as the thread writes them: assistants with text, each followed by its calls' tool messages; only the last may have no calls"
    n,ms,ids = draw(st.integers(1, 3)),[],set()
    for i in range(n):
        calls = [c for c in draw(st.lists(_call, min_size=1 if i<n-1 else 0, max_size=2)) if c[0] not in ids and not ids.add(c[0])]
        if not calls and i<n-1: continue
        tcs = [dict(id=c, type='function', function=dict(name=nm, arguments=json.dumps(a, ensure_ascii=False))) for c,nm,a,_ in calls]
        ms.append(Message(role='assistant', content=draw(_txt), tool_calls=tcs or None))
        ms += [Message(role='tool', content=r, tool_call_id=c, name=nm) for c,nm,_,r in calls]
    return ms

@settings(max_examples=150, deadline=None)
@given(replies())
def test_the_reader_inverts_the_writers_reply(ms):
    "`_reply` writes a turn's messages as a reply; `cells2msgs` reads them back: roles, texts, calls and results"
    d = Dialog('r'); d.mk_message('q', msg_type='prompt', output=sync._reply(ms))
    got = sync.cells2msgs(d.messages)[1:]
    want = [{k:v for k,v in dict(role=m.role, content=m.content, tool_calls=m.tool_calls, tool_call_id=m.tool_call_id, name=m.name).items() if v is not None and not (m.role=='assistant' and k=='name')} for m in ms]
    assert got==want

"A thread's file keeps the whole conversation when a person or a tool takes its outputs away (issue 32, item 3)"
import json, os, subprocess, sys
from pathlib import Path
import pytest
from dialog.thread import Thread, Message
from dialog.ipynb import read_ipynb
from thread_cases import building

def saved(tmp_path):
    t = building(__import__('dialog.thread', fromlist=['x']))
    return t, t.save(tmp_path/'t.ipynb')

def replies(p): return [c.ai_res for c in read_ipynb(p).messages]

def edit_nb(p, f):
    nb = json.loads(Path(p).read_text()); f(nb); Path(p).write_text(json.dumps(nb, indent=1))

def clear_all(nb):
    "What Jupyter's 'Clear All Outputs' does to each code cell"
    for c in nb['cells']:
        if c['cell_type']=='code': c['outputs'],c['execution_count'] = [],None

def check_nothing_lost(t, p, want):
    "Reading `p` gives thread `t` back whole, and the next save shows every reply again (`want`: the replies as first written)"
    back = Thread.read(p)
    assert back.model_dump(mode='json')==t.model_dump(mode='json')
    assert back.get_tool_usage()==t.get_tool_usage() and back.get_total_tokens()==t.get_total_tokens()
    back.save()
    assert replies(p)==want
    assert Thread.read(p).model_dump(mode='json')==t.model_dump(mode='json')

def test_clear_all_outputs(tmp_path):
    t,p = saved(tmp_path); want = replies(p)
    edit_nb(p, clear_all)
    assert not any(replies(p)) # the replies are gone from the file's cells
    check_nothing_lost(t, p, want)

def test_nbconvert_clear_output(tmp_path):
    "nbconvert's ClearOutputPreprocessor: outputs and execution counts emptied, `collapsed`/`scrolled` metadata dropped"
    t,p = saved(tmp_path); want = replies(p)
    def f(nb):
        clear_all(nb)
        for c in nb['cells']:
            for k in ('collapsed', 'scrolled'): c['metadata'].pop(k, None)
    edit_nb(p, f)
    check_nothing_lost(t, p, want)

def test_nbstripout(tmp_path):
    "The real nbstripout (the git filter's command), run on the file (installed, or found on `NBSTRIPOUT_PATH`)"
    env = os.environ | {'PYTHONPATH': os.pathsep.join(filter(None, [os.environ.get('NBSTRIPOUT_PATH'), os.environ.get('PYTHONPATH')]))}
    if subprocess.run([sys.executable, '-c', 'import nbstripout'], env=env, capture_output=True).returncode: pytest.skip('nbstripout is not installed')
    t,p = saved(tmp_path); want = replies(p)
    r = subprocess.run([sys.executable, '-m', 'nbstripout', str(p)], env=env, capture_output=True, text=True)
    assert r.returncode==0, r.stderr
    assert not any(replies(p))
    check_nothing_lost(t, p, want)

def _nbstripout(p):
    env = os.environ | {'PYTHONPATH': os.pathsep.join(filter(None, [os.environ.get('NBSTRIPOUT_PATH'), os.environ.get('PYTHONPATH')]))}
    if subprocess.run([sys.executable, '-c', 'import nbstripout'], env=env, capture_output=True).returncode: pytest.skip('nbstripout is not installed')
    r = subprocess.run([sys.executable, '-m', 'nbstripout', str(p)], env=env, capture_output=True, text=True)
    assert r.returncode==0, r.stderr

def test_nbstripout_keeps_a_users_image(tmp_path):
    "nbstripout renumbers cell ids ('0', '1', ...); a user's image, kept in the notebook's metadata under the id the thread wrote, comes back by the name its record gives, and the next save keeps it"
    from dialog.core import tiny_png
    from dialog.thread import Attachment
    t = Thread(id='t'); t.add_message(Message(role='user', content='What is this?', attachments=[Attachment(filename='pic.png', content=tiny_png, mime_type='image/png')]))
    t.add_message(Message(role='assistant', content='A pixel.')); p = t.save(tmp_path/'t.ipynb')
    _nbstripout(p)
    assert [c['id'] for c in json.loads(p.read_text())['cells']]==['0'] # the precondition: ids renumbered
    back = Thread.read(p)
    assert [(m.content, [a.content for a in m.attachments]) for m in back.messages]==[('What is this?', [tiny_png]), ('A pixel.', [])]
    back.save(); u = Thread.read(p).messages[0]
    assert (u.content, [a.content for a in u.attachments])==('What is this?', [tiny_png])
    assert list(json.loads(p.read_text())['metadata']['attachments'])==['0'] # under the cell's id now, once

def test_nbstripout_keeps_what_a_thread_kept_of_cells_without_records(tmp_path):
    "A notebook made elsewhere, read as a thread; a program reacts to the reply and adds a message; nbstripout then clears the outputs and renumbers the cell ids: the reply (kept under the id the cell had), its reaction and every message id come back"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'
    dl = Dialog('notes'); dl.mk_message('Where is order 12345?', msg_type='prompt', output=prompt_output('It shipped yesterday.'))
    dl.mk_message('And 777?', msg_type='prompt', output=prompt_output('Lost.')); dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[1].id, 'up', 'ann'); t.add_message(Message(role='user', content='Thanks')); t.save()
    want = [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]
    _nbstripout(q)
    assert [c['id'] for c in json.loads(q.read_text())['cells']][:2]==['0', '1'] # the precondition: ids renumbered
    back = Thread.read(q)
    assert [(m.id, m.role, m.content, m.reactions) for m in back.messages]==want
    back.save(); assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want

def test_a_file_rewritten_without_cell_ids_keeps_what_a_thread_kept(tmp_path):
    "The same, the file written back as nbformat 4.4 (no cell ids: a reader gives new ones) with its outputs cleared: replies, reactions and message ids come back"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'
    dl = Dialog('notes'); dl.mk_message('Where is order 12345?', msg_type='prompt', output=prompt_output('It shipped yesterday.'))
    dl.mk_message('And 777?', msg_type='prompt', output=prompt_output('Lost.')); dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[1].id, 'up', 'ann'); t.add_message(Message(role='user', content='Thanks')); t.save()
    want = [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]
    def v44(nb):
        nb['nbformat_minor'] = 4; clear_all(nb)
        for c in nb['cells']: c.pop('id', None)
    edit_nb(q, v44)
    assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want

@pytest.mark.slow
def test_failed_run_all(tmp_path):
    "Run All in plain Jupyter: each `%%prompt` cell fails and its error takes the reply's place"
    nbclient,nbformat = pytest.importorskip('nbclient'),pytest.importorskip('nbformat')
    t,p = saved(tmp_path); want = replies(p)
    nb = nbformat.read(p, as_version=4)
    nbclient.NotebookClient(nb, allow_errors=True, timeout=60).execute()
    assert all(['Cell magic `%%prompt` not found' in o.get('text', '') for o in c.outputs]==[True] for c in nb.cells) # IPython's UsageError, on stderr, in the reply's place
    nbformat.write(nb, p)
    assert not any(replies(p))
    check_nothing_lost(t, p, want)

def test_error_in_the_replys_place(tmp_path):
    "The same without a kernel: an error output where the reply was"
    t,p = saved(tmp_path); want = replies(p)
    err = {'output_type': 'error', 'ename': 'UsageError', 'evalue': 'Cell magic `%%prompt` not found.', 'traceback': []}
    def f(nb):
        for c in nb['cells']: c['outputs'] = [err]
    edit_nb(p, f)
    check_nothing_lost(t, p, want)

def test_cell_made_markdown_keeps_its_reply(tmp_path):
    "A thread cell a person turns into a markdown cell (no outputs at all): its reply comes back from the records, the next save makes it a prompt again"
    t,p = saved(tmp_path); want = replies(p)
    def f(nb):
        c = nb['cells'][1]
        c['cell_type'] = 'markdown'; c['source'] = ''.join(c['source']).removeprefix('%%prompt\n')
        for k in ('outputs', 'execution_count'): c.pop(k)
    edit_nb(p, f)
    check_nothing_lost(t, p, want)

def test_tool_only_reply_and_odd_contents(tmp_path):
    "Replies the cell renders ambiguously (two texts in a row, empty and None contents, a result for no call) come back exactly"
    t = Thread(id='odd')
    t.add_message(Message(role='user', content='go', id='u'))
    call = {'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{}'}}
    t.add_messages_batch([Message(role='assistant', content=None, tool_calls=[call], id='a1'), Message(role='tool', content='', tool_call_id='c1', id='t1'),
                          Message(role='tool', content='stray', tool_call_id='zz', id='t2'), Message(role='assistant', content='One.', id='a2'),
                          Message(role='assistant', content='Two.', id='a3'), Message(role='assistant', content='', id='a4')])
    p = t.save(tmp_path/'odd.ipynb'); want = replies(p)
    edit_nb(p, clear_all)
    check_nothing_lost(t, p, want)

def test_record_without_content_is_an_error_naming_the_cell(tmp_path):
    "A file written before records kept replies whole, with its outputs cleared: a ValueError naming the cell and record, never an empty message"
    t,p = saved(tmp_path)
    def f(nb):
        clear_all(nb)
        for r in nb['cells'][1]['metadata']['dialog']['thread'][1:]: r.pop('content')
    edit_nb(p, f)
    cid = json.loads(Path(p).read_text())['cells'][1]['id']
    with pytest.raises(ValueError, match=rf"cell 1 \(id '{cid}'\), record 1 \(message 'a3'\): the cell's reply is gone"): Thread.read(p)

def test_old_records_still_read_with_their_outputs(tmp_path):
    "Records without contents (files written before) still read while the cell's reply is there"
    t,p = saved(tmp_path)
    def f(nb):
        for c in nb['cells']:
            for r in c['metadata']['dialog']['thread'][1:]:
                if isinstance(r.get('content'), str) and r['content']: r.pop('content')
    edit_nb(p, f)
    assert Thread.read(p).model_dump(mode='json')==t.model_dump(mode='json')

def made_elsewhere(tmp_path, *prompts, code=None):
    "A notebook made elsewhere (prompts with replies, no thread records; a code cell with an output first if `code`), read as a thread that adds a turn and saves"
    from dialog.core import Dialog
    d = Dialog('notes')
    if code: d.mk_message('print(6*7)', msg_type='code', output=[dict(output_type='stream', name='stdout', text=code)])
    for q,a in prompts: d.mk_message(q, msg_type='prompt', output=a)
    p = d.save(tmp_path/'n.ipynb')
    t = Thread.read(p); t.add_message(Message(role='user', content='Thanks!')); t.add_message(Message(role='assistant', content='Welcome.')); t.save()
    return p

@pytest.mark.parametrize('how', ['clear', 'error'])
def test_cleared_cells_without_records_keep_their_replies(tmp_path, how):
    "A notebook made elsewhere, saved by a thread, then its outputs cleared (or replaced by Run All's errors): the replies (and a code cell's output, which is context) were gone from the thread, silently"
    p = made_elsewhere(tmp_path, ('Where is order 12345?', 'It shipped yesterday.'), ('And 678?', 'Lost.'), code='42\n')
    before = Thread.read(p).model_dump(mode='json')
    err = {'output_type': 'error', 'ename': 'UsageError', 'evalue': 'Cell magic `%%prompt` not found.', 'traceback': []}
    def clear(nb):
        for c in nb['cells']:
            if c['cell_type']=='code': c['outputs'] = [err] if how=='error' and ''.join(c['source']).startswith('%%prompt') else []
    edit_nb(p, clear)
    back = Thread.read(p)
    assert back.model_dump(mode='json')==before
    back.save() # kept at the next save too, while the cells stay cleared
    assert Thread.read(p).model_dump(mode='json')==before

def test_rerun_cell_without_records_gives_its_new_reply(tmp_path):
    "A reply kept for a cleared cell never hides a new one: the cell's own output wins"
    p = made_elsewhere(tmp_path, ('Where is order 12345?', 'It shipped yesterday.'))
    def rerun(nb): nb['cells'][0]['outputs'][0]['data']['text/markdown'] = 'It shipped today.'
    edit_nb(p, rerun)
    assert [m.content for m in Thread.read(p).messages][:2]==['Where is order 12345?', 'It shipped today.']

def test_kept_outputs_record_checked(tmp_path):
    p = made_elsewhere(tmp_path, ('Q?', 'A.'))
    edit_nb(p, lambda nb: nb['metadata']['dialog']['thread'].__setitem__('outputs', ['A.']))
    with pytest.raises(ValueError, match="the thread's outputs must be a dict"): Thread.read(p)

def test_code_cell_rerun_to_an_image_drops_its_old_text(tmp_path):
    "A code cell (context) run again whose new outputs render no text: its kept text doesn't stand in for outputs it has"
    p = made_elsewhere(tmp_path, ('Q?', 'A.'), code='42\n')
    def rerun(nb): nb['cells'][0]['outputs'] = [{'output_type': 'display_data', 'metadata': {}, 'data': {'image/png': 'iVBORw0KGgo='}}]
    edit_nb(p, rerun)
    assert '42' not in Thread.read(p).messages[0].content

"A thread's file keeps the whole conversation when a person or a tool takes its outputs away (issue 32, item 3)"
import copy, json, os, re, subprocess, sys
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

def _nbstripout(p, *args):
    env = os.environ | {'PYTHONPATH': os.pathsep.join(filter(None, [os.environ.get('NBSTRIPOUT_PATH'), os.environ.get('PYTHONPATH')]))}
    if subprocess.run([sys.executable, '-c', 'import nbstripout'], env=env, capture_output=True).returncode: pytest.skip('nbstripout is not installed')
    r = subprocess.run([sys.executable, '-m', 'nbstripout', *args, str(p)], env=env, capture_output=True, text=True)
    assert r.returncode==0, r.stderr

def test_nbstripout_keeps_a_users_image(tmp_path):
    "nbstripout renumbers cell ids ('0', '1', ...); a user's image, kept in the notebook's metadata under the id the thread wrote, comes back by the name its record gives, and the next save keeps it"
    from dialog.core import tiny_png
    from dialog.thread import Attachment
    t = Thread(id='t'); t.add_message(Message(role='user', content='What is this?', attachments=[Attachment(filename='pic.png', content=tiny_png, mime_type='image/png')]))
    t.add_message(Message(role='assistant', content='A pixel.')); p = t.save(tmp_path/'t.ipynb')
    cid = json.loads(p.read_text())['cells'][0]['id']
    _nbstripout(p)
    assert [c['id'] for c in json.loads(p.read_text())['cells']]==['0'] # the precondition: ids renumbered
    back = Thread.read(p)
    assert [(m.content, [a.content for a in m.attachments]) for m in back.messages]==[('What is this?', [tiny_png]), ('A pixel.', [])]
    back.save(); u = Thread.read(p).messages[0]
    assert (u.content, [a.content for a in u.attachments])==('What is this?', [tiny_png])
    nb = json.loads(p.read_text()) # the cell has the id the thread wrote back (its mark gave it), and its file under it, once
    assert [c['id'] for c in nb['cells']]==[cid] and list(nb['metadata']['attachments'])==[cid]

def _noted_thread(tmp_path):
    "A notebook made elsewhere, read as a thread, a program's reaction and message added: its path, and its messages' (id, role, content, reactions)"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'
    dl = Dialog('notes'); dl.mk_message('Where is order 12345?', msg_type='prompt', output=prompt_output('It shipped yesterday.'))
    dl.mk_message('And 777?', msg_type='prompt', output=prompt_output('Lost.')); dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[1].id, 'up', 'ann'); t.add_message(Message(role='user', content='Thanks')); t.save()
    return q,[(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]

def test_nbstripout_keeps_what_a_thread_kept_of_cells_without_records(tmp_path):
    "A notebook made elsewhere, read as a thread; a program reacts to the reply and adds a message; nbstripout then clears the outputs and renumbers the cell ids: the reply (kept under the id the cell had), its reaction and every message id come back"
    q,want = _noted_thread(tmp_path)
    _nbstripout(q)
    assert [c['id'] for c in json.loads(q.read_text())['cells']][:2]==['0', '1'] # the precondition: ids renumbered
    back = Thread.read(q)
    assert [(m.id, m.role, m.content, m.reactions) for m in back.messages]==want
    back.save(); assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want

def test_a_file_rewritten_without_cell_ids_keeps_what_a_thread_kept(tmp_path):
    "The same, the file written back as nbformat 4.4 (no cell ids: a reader gives new ones) with its outputs cleared: replies, reactions and message ids come back"
    q,want = _noted_thread(tmp_path)
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
    c = Thread.read(p).messages[0].content
    assert '<output' not in c and '\n42\n' not in c  # (the cell's random id may hold '42')

def test_nbstripout_keeps_same_text_cells_replies_in_the_files_order(tmp_path):
    "Two prompts of one text whose ids sort against the file's order: after nbstripout each keeps its own reply and reaction (`srcs` pairs in the file's order)"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'
    dl = Dialog('notes')
    dl.mk_message('Tell me about tides.', msg_type='prompt', output=prompt_output('The moon pulls the sea.'), id='5a5a5a5a')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('Twice a day.'), id='f1e2d3c4')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('Spring tides are larger.'), id='0a1b2c3d')
    dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[3].id, 'up', 'ann'); t.save()
    want = [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]
    _nbstripout(q)
    assert [c['id'] for c in json.loads(q.read_text())['cells']]==['0', '1', '2'] # the precondition: ids renumbered
    assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want

def test_srcs_written_before_as_a_dict_still_read(tmp_path):
    "A file whose record keeps `srcs` as a dict `{cell id: digest}` (as written before) reads back the same as one with the list of pairs"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'
    dl = Dialog('notes'); dl.mk_message('Where?', msg_type='prompt', output=prompt_output('Here.')); dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[1].id, 'up', 'ann'); t.save()
    want = [(m.id, m.content, m.reactions) for m in Thread.read(q).messages]
    def old(nb): # as files were written before cells kept their marks: `srcs` a dict of digests of the kind and text
        from dialog.thread_sync import _src_digest
        r = nb['metadata']['dialog']['thread']; r.pop('records_of', None)
        r['srcs'] = {c.id:_src_digest(c) for c in read_ipynb(q).messages}; clear_all(nb)
        for i,c in enumerate(nb['cells']): c['id'] = str(i); c['metadata']['dialog'].pop('cell')
    edit_nb(q, old)
    assert [(m.id, m.content, m.reactions) for m in Thread.read(q).messages]==want
    edit_nb(q, lambda nb: nb['metadata']['dialog']['thread'].update(srcs=[['0']]))
    with pytest.raises(ValueError, match='srcs'): Thread.read(q)

def _read_lines(q):
    "Lines of the sync's and the thread's own code a `Thread.read` of `q` runs (counted, not timed: the machines are shared)"
    import sys
    from dialog import thread, thread_sync
    files,n = {thread.__file__, thread_sync.__file__},[0]
    def tr(frame, ev, arg):
        if frame.f_code.co_filename not in files: return None
        if ev=='line': n[0] += 1
        return tr
    sys.settrace(tr)
    try: Thread.read(q)
    finally: sys.settrace(None)
    return n[0]

def test_reading_a_renumbered_file_is_linear_in_its_cells(tmp_path):
    "After nbstripout a file's messages keep their ids `by_run`: reading 5x the cells runs about 5x the lines, not 25x"
    from dialog.core import Dialog, prompt_output
    def read_lines(n):
        q = tmp_path/f'n{n}.ipynb'; dl = Dialog('n')
        for i in range(n): dl.mk_message(f'Question {i}', msg_type='prompt', output=prompt_output(f'Answer {i}'))
        dl.save(q); Thread.read(q).save()
        _nbstripout(q); Thread.read(q).save()
        return _read_lines(q)
    a,b = read_lines(300),read_lines(1500)
    assert b/a < 5.5, f'300 cells {a:,} lines, 1,500 cells {b:,}'

def _positional_notes(q, n=3, react=1):
    "A notebook made elsewhere whose cell ids are nbstripout's ('0', '1', ...), read as a thread that reacts to reply `react` and saves"
    from dialog.core import Dialog, prompt_output
    dl = Dialog('notes')
    for i in range(n): dl.mk_message(f'Question {i}?', msg_type='prompt', output=prompt_output(f'Answer {i}.'), id=str(i))
    dl.save(q)
    t = Thread.read(q); t.add_reaction(t.messages[2*react+1].id, 'up', 'ann'); t.save()
    assert [c['id'] for c in json.loads(q.read_text())['cells']]!=[str(i) for i in range(n)] # positional ids are never the thread's
    return [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]

def _prompt_cell(nb, cid, text):
    c = json.loads(json.dumps(nb['cells'][0])); c.update(id=cid, source=f'%%prompt\n{text}', outputs=[], metadata={'solveit_ai': True})
    return c

def test_nbstripout_after_an_inserted_prompt_keeps_each_reply_on_its_prompt(tmp_path):
    "Positional ids, a prompt inserted at the top, then nbstripout (ids '0'..'3' again, each one the record knows): every reply, reaction and message id stays with its prompt, and the new prompt is unanswered with an id of its own"
    q = tmp_path/'notes.ipynb'; want = _positional_notes(q); _nbstripout(q)
    ids0 = [c['id'] for c in json.loads(Thread.read(q).save().read_text())['cells']] # the thread's ids, written back
    assert ids0!=['0', '1', '2'] and [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want
    _nbstripout(q)
    edit_nb(q, lambda nb: nb['cells'].insert(0, _prompt_cell(nb, 'f3a9c2d1', 'New question at top')))
    _nbstripout(q)
    assert [c['id'] for c in json.loads(q.read_text())['cells']]==['0', '1', '2', '3'] # the precondition
    back = Thread.read(q)
    got = [(m.id, m.role, m.content, m.reactions) for m in back.messages]
    assert [x[1:] for x in got]==[('user', 'New question at top', {})]+[x[1:] for x in want] and got[1:]==want
    assert got[0][0] not in {x[0] for x in want}
    back.save() # the thread's own ids are written back: positional ids never become the thread's
    assert [c['id'] for c in json.loads(q.read_text())['cells']][1:]==ids0
    assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages][1:]==want

def test_nbstripout_after_a_deleted_prompt_brings_no_reply_back(tmp_path):
    "Positional ids, a prompt deleted, then nbstripout: the deleted reply doesn't come back on its neighbour, the others keep theirs"
    q = tmp_path/'notes.ipynb'; want = _positional_notes(q, react=2)
    edit_nb(q, lambda nb: nb['cells'].pop(1)); _nbstripout(q)
    assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want[:2]+want[4:]

def test_a_renumbered_cell_whose_text_changed_takes_no_other_cells_reply(tmp_path):
    "Positional ids, a prompt deleted and the next one's text edited, then nbstripout: the edited cell (now at the deleted one's id) keeps its own reply, as it does with its id intact (its mark gives its id back), never the deleted one's"
    q = tmp_path/'notes.ipynb'; want = _positional_notes(q)
    def edit(nb): nb['cells'].pop(1); nb['cells'][1]['source'] = '%%prompt\nQuestion 2, asked better?'
    edit_nb(q, edit); _nbstripout(q)
    got = [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]
    assert got==want[:2]+[(want[4][0], 'user', 'Question 2, asked better?', {}), want[5]]

def test_two_same_text_cells_one_deleted_then_renumbered_keeps_the_right_reply(tmp_path):
    "Two prompts of one text, one deleted, then nbstripout: the one left keeps its own reply, reaction and ids (its mark says which it was)"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'; dl = Dialog('notes')
    dl.mk_message('Tell me about tides.', msg_type='prompt', output=prompt_output('The moon pulls the sea.'), id='c0ffee00')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('First answer.'), id='a1b2c3d4')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('Second answer.'), id='e5f6a7b8')
    dl.save(q); t = Thread.read(q); t.add_reaction(t.messages[5].id, 'up', 'ann'); t.save()
    want = [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]
    edit_nb(q, lambda nb: nb['cells'].pop(1)); _nbstripout(q)
    assert [(m.id, m.role, m.content, m.reactions) for m in Thread.read(q).messages]==want[:2]+want[4:]
    assert want[5][3]=={'up': ['ann']}

def test_a_file_without_marks_whose_srcs_dict_holds_one_text_twice_is_an_error(tmp_path):
    "A file written before cells kept their marks, `srcs` a dict (its keys sorted, not in the file's order), two prompts of one text, then nbstripout: which is which can't be told, a ValueError naming the cell (never a swap of their replies)"
    from dialog.core import Dialog, prompt_output
    from dialog.thread_sync import _src_digest
    q = tmp_path/'notes.ipynb'; dl = Dialog('notes')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('First answer.'), id='e5f6a7b8')
    dl.mk_message('Go on.', msg_type='prompt', output=prompt_output('Second answer.'), id='a1b2c3d4')
    dl.save(q); Thread.read(q).save()
    def old(nb):
        r = nb['metadata']['dialog']['thread']; r.pop('records_of', None); r['srcs'] = {c.id:_src_digest(c) for c in read_ipynb(q).messages}
        for c in nb['cells']: c['metadata']['dialog'].pop('cell')
    edit_nb(q, old); _nbstripout(q)
    with pytest.raises(ValueError, match=r"cell 0 \(id '0'\).*renumbered.*which is which"): Thread.read(q)

def test_nbstripout_keeps_a_programs_edit_of_a_message_naming_a_code_cell(tmp_path):
    "A code cell and a prompt (no records) make one user message naming the code cell by id; a program redacts it and saves; after nbstripout the message reads as the program left it (the cell's id given back, so its text is what `changed` recorded against)"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'notes.ipynb'; dl = Dialog('notes')
    dl.mk_message("api_key = 'sk-SECRET'", msg_type='code', id='5e1f0c2a')
    dl.mk_message('Why does this fail?', msg_type='prompt', output=prompt_output('The key is invalid.'), id='77aa3b9d')
    dl.save(q)
    t = Thread.read(q); t.messages[0].content = t.messages[0].content.replace('sk-SECRET', '[redacted]'); t.save()
    want = [(m.id, m.content) for m in Thread.read(q).messages]
    _nbstripout(q)
    assert [c['id'] for c in json.loads(q.read_text())['cells']]==['0', '1'] # the precondition
    assert [(m.id, m.content) for m in Thread.read(q).messages]==want and 'sk-SECRET' not in want[0][1]

def _imaged(p, n=4):
    "A thread of `n` prompts each with its own image, saved, put through nbstripout and saved again (ids '0', '1', ...)"
    from dialog.core import tiny_png
    from dialog.thread import Attachment
    t = Thread(id='t')
    for k in range(n):
        t.add_message(Message(role='user', content=f'q{k}', attachments=[Attachment(filename=f'i{k}.png', content=tiny_png+f'IMG{k}'.encode(), mime_type='image/png')]))
        t.add_message(Message(role='assistant', content=f'a{k}'))
    t.save(p); _nbstripout(p); Thread.read(p).save()
    return lambda k: tiny_png+f'IMG{k}'.encode()

def _images(t): return [(m.content, [a.content for a in m.attachments]) for m in t.messages if m.role=='user']

@pytest.mark.parametrize('edit', ['delete', 'swap'])
def test_renumbered_thread_cells_keep_their_own_images(tmp_path, edit):
    "Positional ids, a prompt deleted (or two swapped), then nbstripout: each prompt keeps its own image (the file's metadata keeps them by cell id, so the ids now point at other cells), read and saved"
    p = tmp_path/'t.ipynb'; img = _imaged(p)
    def change(nb):
        if edit=='delete': nb['cells'].pop(1)
        else: nb['cells'][1],nb['cells'][2] = nb['cells'][2],nb['cells'][1]
    edit_nb(p, change); _nbstripout(p)
    ks = (0, 2, 3) if edit=='delete' else (0, 2, 1, 3)
    want = [(f'q{k}', [img(k)]) for k in ks]
    b = Thread.read(p); assert _images(b)==want
    b.save(); assert _images(Thread.read(p))==want

def test_a_deleted_renumbered_cells_image_leaves_the_file(tmp_path):
    "Positional ids, a prompt with a screenshot deleted, then nbstripout: the cell now at its id doesn't take the screenshot, and the next save leaves it out of the file"
    import base64
    p = tmp_path/'t.ipynb'; img = _imaged(p, 2)
    edit_nb(p, lambda nb: nb['cells'].pop(0)); _nbstripout(p)
    b = Thread.read(p); assert _images(b)==[('q1', [img(1)])]
    b.add_message(Message(role='user', content='next')); b.save()
    assert base64.b64encode(img(0)).decode() not in p.read_text() and _images(Thread.read(p))[0]==('q1', [img(1)])

def test_nbstripout_keeps_the_files_of_cells_without_records(tmp_path):
    "A notebook made elsewhere: a prompt with an image and a code cell with a file (the notebook's metadata keeps them by cell id); after nbstripout both come back on their cells, read and saved"
    from dialog.core import Dialog, prompt_output, tiny_png
    q = tmp_path/'notes.ipynb'; dl = Dialog('notes')
    pr = dl.mk_message('What is in this picture?\n\n![x](attachment:pic.png)', msg_type='prompt', output=prompt_output('A dot.'))
    pr.mk_attachment(tiny_png, 'image/png', 'pic.png')
    c = dl.mk_message('x = 1', msg_type='code'); c.mk_attachment(b'hello', 'text/plain', 'data.txt'); dl.save(q)
    def atts(t): return [[(a.filename, a.content) for a in m.attachments] for m in t.messages]
    t = Thread.read(q); t.add_message(Message(role='user', content='thanks')); t.save()
    want = atts(Thread.read(q)); assert any(want)
    _nbstripout(q)
    t = Thread.read(q); assert atts(t)==want
    t.add_message(Message(role='user', content='more')); t.save()
    assert atts(Thread.read(q))[:len(want)]==want

# Each cell's mark (`dialog.cell`, the id the thread knows it by, in the cell's own metadata, which nbstripout keeps)
# gives it its id back after a renumbering: nothing is guessed from texts or the ids' order

def _prompt(cid, txt): return {'cell_type': 'code', 'id': cid, 'metadata': {'solveit_ai': True}, 'execution_count': None, 'outputs': [], 'source': ['%%prompt\n', txt]}
def _msgs(p): return [(m.role, m.content) for m in Thread.read(p).messages]

def _answered(q, texts, answers=None):
    "A notebook made elsewhere of prompts `texts`, each answered (`answers`, else 'A <text>'), read as a thread and saved"
    from dialog.core import Dialog, prompt_output
    dl = Dialog(q.stem)
    for i,x in enumerate(texts): dl.mk_message(x, msg_type='prompt', output=prompt_output(answers[i] if answers else f'A {x}'))
    dl.save(q); Thread.read(q).save()

def test_a_cell_added_in_a_renumbered_file_never_keeps_a_positional_id(tmp_path):
    "A prompt added, nbstripout, a cell deleted (ids out of order), a save, nbstripout again, another cell deleted: every reply stays on its prompt (the new cell's positional id was never written as the thread's)"
    q = tmp_path/'n.ipynb'; _answered(q, [f'Q {i}' for i in range(6)])
    edit_nb(q, lambda nb: nb['cells'].insert(2, _prompt('5e1f2a3b', 'New'))); _nbstripout(q)
    edit_nb(q, lambda nb: nb['cells'].pop(4)); Thread.read(q).save()
    # nbstripout's ids ('0', '1', ...: at most 7 digits here); a random 8-hex id may be all digits
    assert not any(re.fullmatch(r'0|[1-9][0-9]{0,6}', c['id']) for c in json.loads(q.read_text())['cells'])
    _nbstripout(q); edit_nb(q, lambda nb: nb['cells'].pop(1))
    assert _msgs(q)==[('user', 'Q 0'), ('assistant', 'A Q 0'), ('user', 'New')] + [x for i in (2, 4, 5) for x in (('user', f'Q {i}'), ('assistant', f'A Q {i}'))]

def test_a_file_whose_own_ids_looked_positional_keeps_every_reply_after_an_insert_and_nbstripout(tmp_path):
    "A notebook whose ids were '0'..'3' when it became a thread (nbstripout with outputs kept), then prompts inserted around nbstripout: each reply on its own prompt"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'n.ipynb'; dl = Dialog('n')
    for i in range(4): dl.mk_message(f'Q {i}', msg_type='prompt', output=prompt_output(f'A {i}'))
    dl.save(q); _nbstripout(q, '--keep-output')
    edit_nb(q, lambda nb: nb['cells'].append(_prompt('5e1f2a3b', 'Q 4'))); Thread.read(q).save()
    edit_nb(q, lambda nb: nb['cells'].insert(0, _prompt('1d2e3f4a', 'First'))); _nbstripout(q)
    edit_nb(q, lambda nb: nb['cells'].insert(0, _prompt('77aa88bb', 'Another')))
    assert _msgs(q)==[('user', 'Another'), ('user', 'First')] + [x for i in range(4) for x in (('user', f'Q {i}'), ('assistant', f'A {i}'))] + [('user', 'Q 4')]

def test_a_prompt_of_the_same_text_inserted_above_takes_no_reply_after_nbstripout(tmp_path):
    "'Go on.' typed above two answered 'Go on.' prompts, then nbstripout: the new one unanswered, the others keep their replies and the reaction"
    q = tmp_path/'n.ipynb'; _answered(q, ['Tides?', 'Go on.', 'Winds?', 'Go on.'], ['Moon.', 'First.', 'Sun.', 'Second.'])
    t = Thread.read(q); t.add_reaction(t.messages[-1].id, 'up', 'ann'); t.save()
    view = lambda: [(m.role, m.content, dict(m.reactions)) for m in Thread.read(q).messages]
    ref = view(); edit_nb(q, lambda nb: nb['cells'].insert(0, _prompt('newcell1', 'Go on.'))); _nbstripout(q)
    assert view()==[('user', 'Go on.', {})] + ref and ref[-1][2]=={'up': ['ann']}

def test_a_cell_pasted_from_another_thread_takes_none_of_this_threads_replies_after_nbstripout(tmp_path):
    "'Go on.' pasted from thread C above this thread's 'Go on.', then nbstripout: the file reads as before the filter"
    q,qc = tmp_path/'n.ipynb',tmp_path/'c.ipynb'; _answered(q, ['Tides?', 'Go on.'])
    c = Thread(title='C'); c.add_message(Message(role='user', content='Go on.')); c.add_message(Message(role='assistant', content='C answer.')); c.save(qc)
    pasted = json.loads(qc.read_text())['cells'][0]; pasted['id'] = 'feedf00d'
    edit_nb(q, lambda nb: nb['cells'].insert(1, pasted))
    ref = _msgs(q); _nbstripout(q)
    assert _msgs(q)==ref and ('assistant', 'C answer.') in ref and ref[-1]==('assistant', 'A Go on.')

@pytest.mark.parametrize('kind,txt,drop', [('note', '---', 3), ('prompt', 'Go on.', 1)])
def test_one_of_two_same_text_cells_deleted_then_nbstripout_reads_as_before(tmp_path, kind, txt, drop):
    "One of two '---' notes (or 'Go on.' prompts) between other prompts deleted, then nbstripout: read as before the filter, never a ValueError (a store's get can't then take the file for unreadable)"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'n.ipynb'; dl = Dialog('n')
    for x,a in [('Tides?', 'Moon.'), (txt, 'First.'), ('Winds?', 'Sun.'), (txt, 'Second.'), ('Rain?', 'Clouds.')]:
        if x==txt and kind=='note': dl.mk_message(x, msg_type='note')
        else: dl.mk_message(x, msg_type='prompt', output=prompt_output(a))
    dl.save(q); Thread.read(q).save()
    edit_nb(q, lambda nb: nb['cells'].pop(drop))
    ref = _msgs(q); _nbstripout(q)
    assert _msgs(q)==ref

def test_a_deleted_thread_cells_image_never_comes_back_on_a_new_prompt(tmp_path):
    "A thread cell with an image, nbstripout and a save, the cell deleted and a prompt typed in its place, nbstripout, a move: the new prompt has no file (the deleted one's went)"
    from dialog.thread import Attachment
    q = tmp_path/'t.ipynb'; png = b'\x89PNG\r\n\x1a\n' + b'password: hunter2 ' * 4
    t = Thread(title='x'); t.add_message(Message(role='user', content='See my screen', attachments=[Attachment(filename='screen.png', content=png)]))
    t.add_message(Message(role='assistant', content='I see')); t.add_message(Message(role='user', content='Other')); t.add_message(Message(role='assistant', content='ok'))
    t.save(q); _nbstripout(q); Thread.read(q).save()
    edit_nb(q, lambda nb: (nb['cells'].pop(0), nb['cells'].insert(0, _prompt('77aa88bb', 'Hello')))); _nbstripout(q)
    edit_nb(q, lambda nb: nb['cells'].insert(0, nb['cells'].pop(1)))
    b = Thread.read(q)
    assert {m.content: [a.filename for a in (m.attachments or [])] for m in b.messages if m.role=='user'}=={'Other': [], 'Hello': []}
    assert 'hunter2' not in b.save().read_text()

def test_a_file_pasted_into_a_thread_cell_survives_nbstripout(tmp_path):
    "A file a person pasted into a thread's prompt cell (kept in the notebook's `attachments` under the cell's id), then nbstripout and a save: the file is still there, under the cell's id"
    import base64
    q = tmp_path/'t.ipynb'; t = Thread(title='x')
    t.add_message(Message(role='user', content='Look at this')); t.add_message(Message(role='assistant', content='ok')); t.save(q)
    def paste(nb):
        c = nb['cells'][0]; c['source'] = ''.join(c['source'])+'\n\n![pic](attachment:pic.txt)'
        nb['metadata'].setdefault('attachments', {})[c['id']] = {'pic.txt': {'text/plain': base64.b64encode(b'hello').decode()}}
    edit_nb(q, paste); cid = json.loads(q.read_text())['cells'][0]['id']
    _nbstripout(q); b = Thread.read(q); b.add_message(Message(role='user', content='later')); b.save()
    nb = json.loads(q.read_text())
    assert nb['cells'][0]['id']==cid and list(nb['metadata']['attachments'][cid])==['pic.txt']

def test_a_thread_cell_copied_after_nbstripout_leaves_the_original_its_ids(tmp_path):
    "After nbstripout and a save, a thread cell copied above itself (a new id) and edited: the original keeps its message ids, the copy gets new ones from its own id"
    q = tmp_path/'t.ipynb'; t = Thread(title='x')
    t.add_message(Message(role='user', content='Write a haiku')); t.add_message(Message(role='assistant', content='leaves fall')); t.save(q)
    _nbstripout(q); Thread.read(q).save()
    def paste_above(nb):
        c = json.loads(json.dumps(nb['cells'][0])); c.update(id='f00dcafe', source=['%%prompt\n', 'Write a limerick'], outputs=[]); nb['cells'].insert(0, c)
    edit_nb(q, paste_above)
    ids = {m.content: m.id for m in Thread.read(q).messages if m.role=='user'}
    assert ids=={'Write a limerick': 'f00dcafe-0', 'Write a haiku': t.messages[0].id}

def test_a_deleted_prompt_typed_again_without_any_tool_is_unanswered(tmp_path):
    "The only prompt of a notebook made elsewhere deleted and typed again (no tool renumbered anything): the new prompt is unanswered, the deleted reply gone"
    q = tmp_path/'n.ipynb'; _answered(q, ['Summarize the report.'])
    t = Thread.read(q); t.add_message(Message(role='user', content='Next?')); t.add_message(Message(role='assistant', content='Sure.')); t.save()
    edit_nb(q, lambda nb: (nb['cells'].pop(0), nb['cells'].append(_prompt('9a8b7c6d', 'Summarize the report.'))))
    assert _msgs(q)==[('user', 'Next?'), ('assistant', 'Sure.'), ('user', 'Summarize the report.')]

def test_first_read_of_positional_ids_of_one_text_is_linear(tmp_path):
    "A notebook made elsewhere with nbstripout's ids, every prompt of one text: the first read (every cell a new id) runs about 5x the lines at 5x the cells"
    from dialog.core import Dialog, prompt_output
    def read_lines(n):
        q = tmp_path/f'n{n}.ipynb'; dl = Dialog('n')
        for i in range(n): dl.mk_message('Go on.', msg_type='prompt', output=prompt_output(f'Answer {i}'), id=str(i))
        dl.save(q)
        return _read_lines(q)
    a,b = read_lines(300),read_lines(1500)
    assert b/a < 5.5, f'300 cells {a:,} lines, 1,500 cells {b:,}'

@pytest.mark.parametrize('how', ['id', 'copy', 'model_copy'])
def test_a_renamed_thread_marks_the_cells_it_read_with_its_new_id(tmp_path, how):
    "A notebook made elsewhere read as a thread given a new id (`t.id = ...`, `copy.copy` then an id, `model_copy(update=...)`) and saved, then nbstripout and a prompt added: the cells it read kept marks naming the old id, which counted for nothing, and their replies were gone"
    import copy
    q = tmp_path/'n.ipynb'; _answered(q, ['q1', 'q2'], ['a1', 'a2'])
    t,p = Thread.read(q),tmp_path/'fork.ipynb'
    if how=='id': t.id = 'renamed'; p = t.save()
    elif how=='copy': t2 = copy.copy(t); t2.id = 'renamed'; t2.save(p)
    else: t.model_copy(update={'id': 'renamed'}).save(p)
    nb = json.loads(p.read_text())
    assert {c['metadata']['dialog']['cell']['thread_id'] for c in nb['cells']}=={'renamed'} and 'changed' not in nb['metadata']['dialog']['thread']
    if how!='id': # the original's cells (as it holds them, and its file) untouched
        assert {c.meta['dialog']['cell']['thread_id'] for c in [*t._dlg.messages, *read_ipynb(q).messages]}=={'n'}
    _nbstripout(p); edit_nb(p, lambda nb: nb['cells'].insert(0, _prompt('77aa88bb', 'new')))
    assert _msgs(p)==[('user', 'new'), ('user', 'q1'), ('assistant', 'a1'), ('user', 'q2'), ('assistant', 'a2')]

def _paste_above_edited(nb):
    "An answered prompt copied and pasted above itself (a new id, its metadata and mark along), edited and run"
    c = json.loads(json.dumps(nb['cells'][0])); c.update(id='f00dcafe', source=['%%prompt\n', 'Write a limerick'])
    c['outputs'] = [{'output_type': 'display_data', 'data': {'text/markdown': 'there once was'}, 'metadata': {'is_ai_res': True}}]
    nb['cells'].insert(0, c)

def test_a_copy_pasted_above_and_edited_takes_nothing_of_the_original_after_nbstripout(tmp_path):
    "An answered prompt copied above itself and edited, then nbstripout: the first cell carrying the mark took the original's kept reply (and a thread cell's copy its message ids); now the one whose kind and text still match the mark does"
    q = tmp_path/'n.ipynb'; _answered(q, ['Write a haiku', 'Thanks'], ['leaves fall', 'welcome'])
    edit_nb(q, _paste_above_edited); ref = _msgs(q); _nbstripout(q)
    assert ref[:2]==[('user', 'Write a limerick'), ('assistant', 'there once was')] and _msgs(q)==ref[:1]+ref[2:] # its reply never kept
    assert ref[2:]==[('user', 'Write a haiku'), ('assistant', 'leaves fall'), ('user', 'Thanks'), ('assistant', 'welcome')]
    p = tmp_path/'t.ipynb'; t = Thread(title='x')
    t.add_message(Message(role='user', content='Write a haiku')); t.add_message(Message(role='assistant', content='leaves fall')); t.save(p)
    edit_nb(p, _paste_above_edited); _nbstripout(p)
    ids = {m.content: m.id for m in Thread.read(p).messages if m.role=='user'}
    assert ids['Write a haiku']==t.messages[0].id and ids['Write a limerick']!=t.messages[0].id

def test_an_edited_original_keeps_its_ids_beside_an_unedited_copy(tmp_path):
    "A thread cell copied below itself (Jupyter gives the copy an id of its own) and the original edited: the copy, whose text still matched the mark, took the original's ids; the cell holding the id keeps them"
    p = tmp_path/'t.ipynb'; t = Thread(title='x')
    t.add_message(Message(role='user', content='qa')); t.add_message(Message(role='assistant', content='ra')); t.save(p)
    ids = [m.id for m in t.messages]
    def edit(nb):
        c = copy.deepcopy(nb['cells'][0]); c['id'] = 'pasted01'
        nb['cells'][0]['source'] = ''.join(nb['cells'][0]['source']).replace('qa', 'qa edited')
        nb['cells'].insert(1, c)
    edit_nb(p, edit)
    got = [(m.role, m.content, m.id in ids) for m in Thread.read(p).messages]
    assert got==[('user', 'qa edited', True), ('assistant', 'ra', True), ('user', 'qa', False), ('assistant', 'ra', False)]

def test_a_fork_of_a_notebook_made_elsewhere_keeps_its_replies_after_nbstripout(tmp_path):
    "A notebook made elsewhere, saved by its thread (no records of its own), copied and given a new thread id, then nbstripout: its cells' marks named the old id and counted for nothing, so every kept reply was gone"
    import shutil
    q = tmp_path/'n.ipynb'; _answered(q, ['Write a haiku', 'Thanks'], ['leaves fall', 'welcome'])
    f = tmp_path/'fork.ipynb'; shutil.copy(q, f)
    edit_nb(f, lambda nb: nb['metadata']['dialog']['thread'].__setitem__('id', 'fork1')); _nbstripout(f)
    assert Thread.read(f).id=='fork1' and _msgs(f)==[('user', 'Write a haiku'), ('assistant', 'leaves fall'), ('user', 'Thanks'), ('assistant', 'welcome')]

def test_an_edited_prompt_alone_keeps_its_reply_after_nbstripout(tmp_path):
    "A prompt's text edited (no copy of it): it keeps its id and kept reply through nbstripout, as before marks held a digest"
    q = tmp_path/'n.ipynb'; _answered(q, ['Write a haiku'], ['leaves fall'])
    edit_nb(q, lambda nb: nb['cells'][0].__setitem__('source', ['%%prompt\n', 'Write a short haiku']))
    _nbstripout(q)
    assert _msgs(q)==[('user', 'Write a short haiku'), ('assistant', 'leaves fall')]

def test_a_prompt_deleted_and_typed_again_never_gets_a_new_id_that_names_the_deleted_reply(tmp_path):
    "A prompt typed in a file nbstripout renumbers, given a new id by a read, answered and saved, deleted and typed again, nbstripout: the new one got the deleted one's id (made the same way) and its reply"
    q = tmp_path/'n.ipynb'; _answered(q, ['Summarize the report.'], ['Sales fell.'])
    edit_nb(q, lambda nb: nb['cells'].append(_prompt('jupyter1', 'Go on.'))); _nbstripout(q); Thread.read(q).save()
    def ran(nb): nb['cells'][1]['outputs'] = [{'output_type': 'display_data', 'data': {'text/markdown': 'B: wrong'}, 'metadata': {'is_ai_res': True}}]
    edit_nb(q, ran); Thread.read(q).save()
    gone = json.loads(q.read_text())['cells'][1]['id']
    edit_nb(q, lambda nb: (nb['cells'].pop(1), nb['cells'].append(_prompt('jupyter2', 'Go on.')))); _nbstripout(q)
    t = Thread.read(q)
    assert [(m.role, m.content) for m in t.messages]==[('user', 'Summarize the report.'), ('assistant', 'Sales fell.'), ('user', 'Go on.')]
    assert t.dialog.messages[1].id!=gone

@pytest.mark.parametrize('how', ['left', 'cleared', 'nbstripout'])
def test_a_code_cell_made_a_prompt_takes_no_reply_from_its_kept_output(tmp_path, how):
    "A code cell (its output 'sk-SECRET') turned into a prompt: its kept output was read as the prompt's reply, an assistant message the AI never wrote; the mark's kind tells"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'n.ipynb'; dl = Dialog('n')
    dl.mk_message('print(open("key.txt").read())', msg_type='code', output=[{'output_type': 'stream', 'name': 'stdout', 'text': 'sk-SECRET\n'}])
    dl.mk_message('What is 2+2?', msg_type='prompt', output=prompt_output('4')); dl.save(q); Thread.read(q).save()
    if how=='nbstripout': _nbstripout(q)
    def made_prompt(nb):
        c = nb['cells'][0]; c['source'] = '%%prompt\nWhat does the key file hold?'; c['metadata']['solveit_ai'] = True
        if how=='cleared': c['outputs'] = []
    edit_nb(q, made_prompt)
    t = Thread.read(q)
    assert [(m.role, m.content) for m in t.messages]==[('user', 'What does the key file hold?'), ('user', 'What is 2+2?'), ('assistant', '4')]
    assert 'sk-SECRET' not in json.dumps(json.loads(t.save().read_text())['metadata'])

@pytest.mark.parametrize('bad', ['my cell', 'é', 'x'*65, 7])
def test_a_mark_whose_id_is_no_cell_id_counts_for_nothing(tmp_path, bad):
    "A cell's mark edited to an id no cell may have ('my cell'): the cell took it, and every later save failed naming an id the file holds nowhere"
    q = tmp_path/'n.ipynb'; _answered(q, ['Write a haiku', 'Thanks'], ['leaves fall', 'welcome']); _nbstripout(q)
    edit_nb(q, lambda nb: nb['cells'][0]['metadata']['dialog']['cell'].__setitem__('id', bad))
    t = Thread.read(q); t.add_message(Message(role='user', content='More?')); t.save()
    assert [m.content for m in Thread.read(q).messages]==['Write a haiku', 'Thanks', 'welcome', 'More?']
    assert all(c['id']==c['metadata']['dialog']['cell']['id'] for c in json.loads(q.read_text())['cells'])

def test_a_split_prompt_without_records_reads_its_reply_once(tmp_path):
    "JupyterLab's Split Cell on an answered prompt the thread read (both pieces carry its mark, the outputs in the last): the first piece took the kept reply while the last showed it, so the reply was in the thread twice"
    q = tmp_path/'n.ipynb'; _answered(q, ['Summarize the report.\nIn two lines.'], ['Sales fell.'])
    def split(nb):
        c = nb['cells'][0]; a,b = json.loads(json.dumps(c)),json.loads(json.dumps(c))
        a.update(id='aaaa1111', source='%%prompt\nSummarize the report.', outputs=[]); b.update(id='bbbb2222', source='In two lines.')
        nb['cells'][0:1] = [a, b]
    edit_nb(q, split)
    assert sum(isinstance(m.content, str) and m.content.count('Sales fell.') for m in Thread.read(q).messages)==1

@pytest.mark.parametrize('how', ['cleared', 'nbstripout'])
def test_a_mark_without_a_kind_gives_a_code_cells_kept_output_to_no_prompt(tmp_path, how):
    "Marks written before they held the cell's kind (`{id, thread_id}`) were read as 'kind unchanged': a code cell made a prompt read its kept output 'sk-SECRET' as the AI's reply; such a mark vouches for no kind"
    from dialog.core import Dialog, prompt_output
    q = tmp_path/'n.ipynb'; dl = Dialog('n')
    dl.mk_message('print(open("key.txt").read())', msg_type='code', output=[{'output_type': 'stream', 'name': 'stdout', 'text': 'sk-SECRET\n'}])
    dl.mk_message('What is 2+2?', msg_type='prompt', output=prompt_output('4')); dl.save(q); Thread.read(q).save()
    def old_marks(nb):
        for c in nb['cells']: c['metadata']['dialog']['cell'] = {k:v for k,v in c['metadata']['dialog']['cell'].items() if k in ('id', 'thread_id')}
    edit_nb(q, old_marks)
    if how=='nbstripout': _nbstripout(q)
    def made_prompt(nb):
        c = nb['cells'][0]; c['source'] = '%%prompt\nWhat does the key file hold?'; c['metadata']['solveit_ai'] = True; c['outputs'] = []
    edit_nb(q, made_prompt)
    t = Thread.read(q)
    assert [(m.role, m.content) for m in t.messages][:2]==[('user', 'What does the key file hold?'), ('user', 'What is 2+2?')]
    assert not any('sk-SECRET' in str(m.content) for m in t.messages)

def test_a_prompt_without_records_split_at_its_end_reads_its_reply_once(tmp_path):
    "JupyterLab's Split Cell with the cursor at the END of an answered prompt the thread read: the first piece (the whole text, no outputs) matched the mark's digest and took the id and kept reply while the empty last piece showed the reply: it was in the thread twice"
    q = tmp_path/'n.ipynb'; _answered(q, ['Summarize the report.\nIn two lines.', 'Thanks'], ['Sales fell.', 'welcome'])
    def split_at_end(nb):
        c = nb['cells'][0]; a,b = json.loads(json.dumps(c)),json.loads(json.dumps(c))
        a.update(id='aaaa1111', source=''.join(c['source']), outputs=[]); b.update(id='bbbb2222', source='')
        nb['cells'][0:1] = [a, b]
    edit_nb(q, split_at_end)
    t = Thread.read(q)
    assert sum(isinstance(m.content, str) and m.content.count('Sales fell.') for m in t.messages)==1
    # the last piece, which shows the reply, keeps the cell's id: the next save writes it back under it
    was = json.loads(json.dumps(read_ipynb(q).messages[1].meta))['dialog']['cell']['id']
    t.save(); assert [c['id'] for c in json.loads(q.read_text())['cells']][1]==was

@pytest.mark.parametrize('how', ['edited', 'made code'])
def test_a_copy_holding_the_originals_positional_id_after_nbstripout_takes_nothing(tmp_path, how):
    "A notebook of nbstripout's ids with one prompt inserted in Jupyter (so the thread kept '0', '1', '2' as its own), read and saved; a copy of prompt 'qc' pasted higher up and edited (or made a code cell), then nbstripout: the copy sat at place 2 and 'held' '2', the original's mark id, so it took the original's id and kept reply (or, made code, the reply went to no one); a positional id is no evidence, the digest decides"
    q = tmp_path/'n.ipynb'
    nb = {'cells': [_prompt(i, t) for i,t in (('0', 'qa'), ('ab12cd34', 'qn'), ('1', 'qb'), ('2', 'qc'))], 'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5}
    for c in nb['cells']: c['outputs'] = [{'output_type': 'display_data', 'data': {'text/markdown': 'r'+c['source'][1][1]}, 'metadata': {'is_ai_res': True}}]
    q.write_text(json.dumps(nb)); Thread.read(q).save()
    def paste(nb):
        c = copy.deepcopy(nb['cells'][3]); c['id'] = 'pasted01'
        if how=='edited': c['source'] = ''.join(c['source']).replace('qc', 'qc edited')
        else: c['source'] = 'scratch: qc'; c['outputs'] = []; c['metadata'].pop('solveit_ai', None)
        nb['cells'].insert(2, c)
    edit_nb(q, paste); _nbstripout(q)
    ms = _msgs(q)
    assert ms[-2:]==[('user', 'qc'), ('assistant', 'rc')] and sum(m==('assistant', 'rc') for m in ms)==1

@pytest.mark.parametrize('how', ['renamed', 'removed'])
def test_a_fork_of_a_notebook_made_elsewhere_renaming_records_of_too_keeps_its_replies_after_nbstripout(tmp_path, how):
    "As above, the copy's `records_of` renamed with its `id` (or deleted): the marks named the old id, which neither names, so every kept reply was gone; marks holding the file's key are the file's own"
    import shutil
    q = tmp_path/'n.ipynb'; _answered(q, ['Write a haiku', 'Thanks'], ['leaves fall', 'welcome'])
    f = tmp_path/'fork.ipynb'; shutil.copy(q, f)
    def rename(nb):
        r = nb['metadata']['dialog']['thread']; r['id'] = 'fork1'
        if how=='renamed': r['records_of'] = 'fork1'
        else: r.pop('records_of')
    edit_nb(f, rename); _nbstripout(f)
    assert Thread.read(f).id=='fork1' and _msgs(f)==[('user', 'Write a haiku'), ('assistant', 'leaves fall'), ('user', 'Thanks'), ('assistant', 'welcome')]

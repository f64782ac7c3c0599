"Edits rebuild only what they touched, and the written session reads back as the edited dialog, its Claude Code chain whole"
import json, re, tempfile, uuid, pytest
from pathlib import Path
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.chat import parse_reply, tool_block, think_spans, dlg2chat
import dialog.chat as chat_mod
from dialog.session import *
from test_session_gen import claude_session, codex_session, session_text, word
from shared_paths import corpus, needs_corpus

cc,cx = corpus/'sessions'/'claude-code-session.jsonl',corpus/'sessions'/'codex-rollout.jsonl'
need = needs_corpus('sessions', 'claude-code-session.jsonl')

def check_chain(path):
    "Claude Code's rules for a transcript the agent can resume: unique uuids, each parentUuid and leafUuid naming a record before it, one session id, and the main chain from the last record back to the first prompt holding every main-chain message"
    recs = [json.loads(l) for l in Path(path).read_text().rstrip('\n').split('\n')]
    seen,sids = {},set()
    for i,r in enumerate(recs):
        if r.get('sessionId'): sids.add(r['sessionId'])
        if 'uuid' in r:
            assert r['uuid'] not in seen, f'line {i+1}: uuid repeated'
            assert r.get('parentUuid') is None or r['parentUuid'] in seen, f'line {i+1}: parent {r["parentUuid"]} not before it'
            seen[r['uuid']] = r
        elif 'leafUuid' in r: assert r['leafUuid'] in seen, f'line {i+1}: leafUuid names no record before it'
    assert len(sids)<=1
    main = [r for r in recs if 'uuid' in r and not r.get('isSidechain')]
    if main:
        walk,u = [],main[-1]['uuid']
        while u is not None: walk.append(u); u = seen[u].get('parentUuid')
        assert walk[::-1]==[r['uuid'] for r in main], 'the main chain is not one line through every main-chain record'
    return recs

def unthought(r):
    "Reply `r` without its thinking: signed thinking after an edit is left out of the written session, as chat leaves it out of a send"
    for a,b in reversed(think_spans(r)): r = r[:a] + r[b:]
    return r
def thinks(l):
    "Does record line `l` hold Claude's signed thinking only? (after an edit, left out as chat leaves it out of a send)"
    c = (json.loads(l).get('message') or {}).get('content')
    return isinstance(c, list) and bool(c) and all(b.get('type') in ('thinking', 'redacted_thinking') for b in c)
def sigs(x):
    "The thinking signatures in `x`: chat messages, or a session's records"
    return [b['signature'] for m in x for b in ((m.get('message') or m).get('content') or ()) if isinstance(b, dict) and b.get('type')=='thinking']
def states(msgs):
    "The reasoning state a send holds: Claude's thinking signatures, Codex's encrypted reasoning"
    bs = [b for m in msgs for b in ([m] if 'type' in m else m.get('content') if isinstance(m.get('content'), list) else [])]
    return {b.get('signature') or b.get('data') or b.get('encrypted_content') for b in bs if b.get('type') in ('thinking', 'redacted_thinking', 'reasoning')} - {None, ''}
def unlinked(l): return {k:v for k,v in json.loads(l).items() if k!='parentUuid'}
# whitespace aside (a blank text is no record; a blank result is written as dlg2chat sends it, Anthropic's '(no output)', read back as none)
def _blank_res(r): return re.sub(r'"result": "(?:\s|\\[ntr])*"', '"result": ""', r)
# a prompt of white space alone is written as dlg2chat sends it: chat's placeholder, read back as the prompt's text
def _blank_req(c): return '' if c==chat_mod._no_request else c
def norm(dlg, think=True): return [(' '.join(_blank_req(c).split()), ' '.join(_blank_res(r if think else unthought(r)).split())) for c,r in pairs(dlg)]
def pairs(dlg): return [(m.content, m.ai_res) for m in dlg if m.msg_type=='prompt']

@st.composite
def edits(draw, dlg):
    "Apply random edits to `dlg`: prompts rewritten, reply texts replaced, tool results changed, messages deleted or added"
    for _ in range(draw(st.integers(1, 4))):
        ms = [m for m in dlg]
        op = draw(st.sampled_from(['prompt', 'text', 'result', 'del', 'add', 'addcall']))
        if op=='add' or not ms: dlg.mk_message(draw(word), msg_type='prompt', idx=draw(st.integers(0, len(ms))) if ms else -1, id=f'new{len(dlg)}{_}').ai_res = draw(word); continue
        m = draw(st.sampled_from(ms))
        if op=='prompt': m.content = draw(word)
        elif op=='del': dlg.remove_msgs([m])
        elif op=='addcall': m.ai_res = (m.ai_res + '\n\n' if m.ai_res else '') + tool_block(f'toolu_new{_}', 'Bash', dict(command='ls'), draw(word))
        else:
            ps = parse_reply(m.ai_res)
            if op=='text' and (t := [p for p in ps if p['type']=='text']) and m.ai_res.count(t[-1]['text'])==1: m.ai_res = m.ai_res.replace(t[-1]['text'], 'EDITED ' + draw(word).strip())
            elif op=='result' and (t := [p for p in ps if p['type']=='tool']):
                c = t[0]; m.ai_res = m.ai_res.replace(tool_block(c['id'], c['name'], c['args'], c['result'], **c['extra']), tool_block(c['id'], c['name'], c['args'], 'NEW ' + draw(word), **c['extra']))
    return dlg

def _roundtrip(recs, data, chain):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d)/'s.jsonl'
        src.write_text(session_text(recs, [0]*len(recs)))
        dlg = data.draw(edits(sess2dlg(src)))
        want = norm(dlg, False)
        try: out = dlg2sess(dlg, Path(d)/'out.jsonl')
        except ValueError as e:
            assert not want and 'nothing to write' in str(e)  # no prompt left, nor any other record
            return
        if chain: check_chain(out)
        assert norm(sess2dlg(out), False)==want
        # resuming the written session sends no reasoning that the edited dialog's send leaves out (chat's rule)
        fmt = 'anthropic' if chain else 'responses'
        assert states(dlg2chat(sess2dlg(out), fmt)) <= states(dlg2chat(dlg, fmt))
        f = dlg2sess(dlg, d, fork=True)
        if chain: check_chain(f)
        assert norm(sess2dlg(f), False)==want

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_session(), st.data())
def test_claude_edits_read_back(recs, data): _roundtrip(recs, data, True)

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codex_session(), st.data())
def test_codex_edits_read_back(recs, data): _roundtrip(recs, data, False)

@need
def test_prompt_edit_changes_only_its_record(tmp_path):
    dlg = sess2dlg(cc)
    dlg[0].content = 'Just say hi.'
    new,old = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines(),cc.read_text().splitlines()
    # the reply's signed thinking, made for the old prompt, is left out (chat sends none after an edit)
    assert any(map(thinks, old)) and not any(map(thinks, new))
    old = [l for l in old if not thinks(l)]
    # the records after one left out follow the record before it
    # and the last-prompt record (what --resume reads) holds the new prompt
    assert len(new)==len(old) and [i for i,(a,b) in enumerate(zip(old, new)) if unlinked(a)!=unlinked(b)]==[2, 16]
    assert json.loads(new[16])['lastPrompt']=='Just say hi.' and unlinked(new[16])=={**unlinked(old[16]), 'lastPrompt': 'Just say hi.'}
    assert json.loads(new[2])['message']['content']=='Just say hi.' and json.loads(new[2])['uuid']==json.loads(old[2])['uuid']

@need
def test_result_edit_rebuilds_its_record_in_place(tmp_path):
    dlg = sess2dlg(cc)
    dlg[0].ai_res = dlg[0].ai_res.replace('"result": "42"', '"result": "43"')
    new,old = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines(),cc.read_text().splitlines()
    # the thinking after the edited result (about the old one) is left out; the records before it are as read
    assert [i for i,l in enumerate(old) if thinks(l)]==[5, 13, 17] and not any(map(thinks, new[15:]))
    old = old[:17] + old[18:]
    assert [i for i,(a,b) in enumerate(zip(old, new)) if unlinked(a)!=unlinked(b)]==[15] and new[:15]==old[:15]
    r = json.loads(new[15])
    assert r['message']['content'][0]['content']=='43' and 'toolUseResult' not in r and r['uuid']==json.loads(old[15])['uuid']
    check_chain(tmp_path/'o.jsonl')

@need
def test_cut_call_leaves_chain_whole(tmp_path):
    "Cutting a tool round trip out of a reply drops its call and result records and relinks the chain around them"
    dlg = sess2dlg(cc)
    c = [p for p in parse_reply(dlg[0].ai_res) if p['type']=='tool'][1]
    dlg[0].ai_res = dlg[0].ai_res.replace(tool_block(c['id'], c['name'], c['args'], c['result']), '')
    recs = check_chain(dlg2sess(dlg, tmp_path/'o.jsonl'))
    assert c['id'] not in json.dumps(recs)
    # the records left: all but the call's, its result's and the signed thinking chat doesn't send after the cut
    from dialog.chat import dlg2chat
    assert sigs(recs)==sigs(dlg2chat(dlg, 'anthropic')) and len(recs)==18-sum(map(thinks, cc.read_text().splitlines()))+sum(map(thinks, map(json.dumps, recs)))

@need
def test_codex_prompt_edit(tmp_path):
    dlg = sess2dlg(cx)
    dlg[1].content = 'And the pressure?'
    new,old = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines(),cx.read_text().splitlines()
    assert [i for i,(a,b) in enumerate(zip(old, new)) if a!=b]==[11]
    assert json.loads(new[11])['payload']['content'][0]['text']=='And the pressure?'

def test_dialog_not_from_a_session(tmp_path):
    "A dialog made by hand is written as a new session of the agent named"
    dlg = Dialog('hand')
    dlg.mk_message('What is 6*7?', msg_type='prompt').ai_res = 'It is 42.'
    with pytest.raises(ValueError, match='agent='): dlg2sess(dlg, tmp_path)
    for a in ('claude', 'codex'):
        (tmp_path/a).mkdir()
        p = dlg2sess(dlg, tmp_path/a, agent=a)  # a folder: the file named as the agent names it
        assert p.parent==tmp_path/a and pairs(sess2dlg(p))==pairs(dlg)
        f = dlg2sess(dlg, tmp_path/f'{a}.jsonl', agent=a)  # a file name: that file
        assert f==tmp_path/f'{a}.jsonl' and f.is_file() and pairs(sess2dlg(f))==pairs(dlg)
    check_chain(next((tmp_path/'claude').iterdir()))
    check_chain(tmp_path/'claude.jsonl')

def test_codex_prompt_event_follows_the_prompt(tmp_path):
    "Codex repeats each prompt in a `user_message` event, which its resume shows: an edited prompt changes both"
    ts,p = '2026-01-01T00:00:00.000Z',tmp_path/'r.jsonl'
    rs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w')),
          dict(timestamp=ts, type='response_item', payload=dict(type='message', role='user', content=[dict(type='input_text', text='old ask')])),
          dict(timestamp=ts, type='event_msg', payload=dict(type='user_message', message='old ask', images=[])),
          dict(timestamp=ts, type='response_item', payload=dict(type='message', role='assistant', content=[dict(type='output_text', text='ok')]))]
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    dlg = sess2dlg(p); dlg[0].content = 'new ask'
    out = [json.loads(l) for l in dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()]
    assert out[1]['payload']['content'][0]['text']=='new ask' and out[2]['payload']==dict(type='user_message', message='new ask', images=[])

def _ask_and_answer(tmp_path, ask='hi'):
    "A Claude Code session of one prompt `ask` and the reply 'yo', written to `tmp_path/'s.jsonl'`"
    p = tmp_path/'s.jsonl'
    rs = [dict(type='user', uuid='u1', parentUuid=None, sessionId='s', message=dict(role='user', content=ask)),
          dict(type='assistant', uuid='u2', parentUuid='u1', sessionId='s', message=dict(role='assistant', content=[dict(type='text', text='yo')]))]
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    return p

def test_lone_surrogate_written_as_escape(tmp_path):
    "A lone surrogate (a broken emoji a tool printed) can't be UTF-8: a rebuilt record writes it as JSON.stringify does, escaped"
    p = _ask_and_answer(tmp_path, 'hi \ud83d')
    dlg = sess2dlg(p)
    assert dlg2sess(dlg, tmp_path/'same.jsonl').read_bytes()==p.read_bytes()
    dlg[0].ai_res = 'yo \ud83d'
    b = dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()
    b.decode('utf-8')
    assert sess2dlg(tmp_path/'o.jsonl')[0].ai_res=='yo \ud83d'

def test_a_lone_surrogate_in_a_new_prompt_or_an_edited_result_is_written_escaped_not_spelt(tmp_path):
    "R38d: a new prompt, or an edited tool result, holding a lone surrogate was written as the six characters `\\ud83d` (as a provider's UTF-8 JSON spells it), so it read back as other text; it is written escaped, as the agents write one, and reads back as it was. Text holding the six characters itself keeps them"
    p = tmp_path/'s.jsonl'
    rs = [dict(type='user', uuid='u1', parentUuid=None, sessionId='s', message=dict(role='user', content='hi')),
          dict(type='assistant', uuid='u2', parentUuid='u1', sessionId='s', message=dict(role='assistant', content=[dict(type='tool_use', id='toolu_1', name='Bash', input=dict(command='ls'))])),
          dict(type='user', uuid='u3', parentUuid='u2', sessionId='s', message=dict(role='user', content=[dict(type='tool_result', tool_use_id='toolu_1', content='a.txt')])),
          dict(type='assistant', uuid='u4', parentUuid='u3', sessionId='s', message=dict(role='assistant', content=[dict(type='text', text='ok')]))]
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    for txt in ('broken \ud83d emoji', 'spelt \\ud83d'):
        dlg = sess2dlg(p)
        m = dlg.msg_cls(txt, msg_type=sprompt); m.ai_res = 'fine'; dlg.messages.append(m)
        o = dlg2sess(dlg, tmp_path/'o1.jsonl', force=True)
        o.read_bytes().decode('utf-8')
        assert sess2dlg(o)[-1].content==txt
    dlg = sess2dlg(p)
    dlg[0].ai_res = dlg[0].ai_res.replace('"result": "a.txt"', '"result": "a\\ud83d.txt"')
    o = dlg2sess(dlg, tmp_path/'o2.jsonl')
    assert [json.loads(l) for l in o.read_text().splitlines()][2]['message']['content'][0]['content']=='a\ud83d.txt'

def test_moved_and_pasted_messages_keep_one_chain(tmp_path):
    "Messages moved, and a message pasted twice (a copied cell): one chain in the dialog's order, no uuid twice"
    src,recs,par = tmp_path/'s.jsonl',[],None
    for k in range(3):
        for typ,c in (('user', f'ask {k}'), ('assistant', [dict(type='text', text=f'answer {k}')])):
            recs.append(dict(type=typ, uuid=f'u{k}{typ[0]}', parentUuid=par, sessionId='s', message=dict(role=typ, content=c))); par = recs[-1]['uuid']
    recs.append(dict(type='last-prompt', leafUuid=par, sessionId='s'))
    src.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    dlg = sess2dlg(src)
    dlg.insert_msgs(list(dlg.remove_msgs([dlg[2]])), 0)
    dlg.mk_messages([dlg[1]], after=dlg[2])  # a copy, with the same records in its metadata
    assert [m.content for m in dlg]==['ask 2', 'ask 0', 'ask 1', 'ask 0']
    out = dlg2sess(dlg, tmp_path/'o.jsonl')
    check_chain(out)
    assert norm(sess2dlg(out))==norm(dlg)

def test_prompt_with_image_edited(tmp_path):
    "A prompt's image is an attachment of the dialog; editing the prompt's text keeps the image block and writes no reference to it"
    import base64
    from dialog.core import tiny_png
    from dialog.ipynb import read_ipynb
    img = base64.b64encode(tiny_png).decode()
    rs = [dict(type='user', uuid='u1', parentUuid=None, sessionId='s', message=dict(role='user', content=[dict(type='text', text='what is this?'), dict(type='image', source=dict(type='base64', media_type='image/png', data=img))])),
          dict(type='assistant', uuid='u2', parentUuid='u1', sessionId='s', message=dict(role='assistant', content=[dict(type='text', text='a dot')]))]
    p = tmp_path/'s.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    dlg = sess2dlg(p)
    assert len(dlg[0].attachments)==1
    dlg.save(tmp_path/'s.ipynb'); back = read_ipynb(tmp_path/'s.ipynb')
    assert dlg2sess(back, tmp_path/'same.jsonl').read_bytes()==p.read_bytes()
    back[0].content = back[0].content.replace('what is this?', 'and this?')
    c = json.loads(dlg2sess(back, tmp_path/'o.jsonl').read_text().splitlines()[0])['message']['content']
    assert c==[dict(type='text', text='and this?'), rs[0]['message']['content'][1]]

def _small(tmp_path, n=2):
    from test_session_gen import small_claude
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(small_claude(n)) + '\n')
    return p

def test_cleared_outputs_keep_the_replies(tmp_path):
    "Outputs cleared (Clear All Outputs, nbstripout): each empty reply counts as unedited, so every assistant record and result is written as read"
    import nbformat
    from dialog.ipynb import read_ipynb
    src = _small(tmp_path)
    sess2dlg(src).save(tmp_path/'d.ipynb')
    nb = nbformat.read(tmp_path/'d.ipynb', as_version=4)
    for c in nb.cells:
        if c.cell_type=='code': c.outputs = []
    nbformat.write(nb, tmp_path/'d.ipynb')
    dlg = read_ipynb(tmp_path/'d.ipynb')
    assert all(not m.ai_res for m in dlg)
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==src.read_bytes()
    dlg[0].content = 'Prompt 1, edited'  # the prompt edited as well: its reply's records still kept
    recs = check_chain(dlg2sess(dlg, tmp_path/'o2.jsonl'))
    # every assistant record but the signed thinking made for the old prompt
    assert sum(r.get('type')=='assistant' for r in recs)==8-sum(map(thinks, src.read_text().splitlines()))

def _stripped(dlg, path, clear=True):
    "`dlg` saved as a notebook, cleaned as nbstripout's defaults clean one (outputs cleared, cell ids renumbered 0, 1, ...), read back"
    from dialog.ipynb import read_ipynb
    dlg.save(path); nb = json.loads(path.read_text())
    for k,c in enumerate(nb['cells']):
        c['id'] = str(k)
        if clear and c['cell_type']=='code': c['outputs'] = []
    path.write_text(json.dumps(nb)); return read_ipynb(path)

def test_renumbered_cell_ids_write_back_as_read(tmp_path):
    "A message read is found by its records, never by its id: with the cell ids renumbered (nbstripout's defaults), outputs cleared or kept, an unedited session writes back byte for byte, its reasoning kept, in both formats; a resumed session (two session ids) and a turn Claude Code wrote twice too"
    from test_session_gen import small_claude, small_codex
    cl = small_claude(3); k = next(i for i,l in enumerate(cl) if i and 'Prompt 2' in l); j = next(i for i,l in enumerate(cl) if 'Prompt 3' in l)
    files = dict(claude=cl, codex=small_codex(3), twice=cl[:j] + cl[k:j] + cl[j:],
                 resumed=cl[:j] + [l.replace('11111111-2222-4333-8444-555555555555', '22222222-2222-4333-8444-555555555555') for l in cl[j:]])
    for name,lines in files.items():
        p = tmp_path/f'{name}.jsonl'; p.write_text('\n'.join(lines) + '\n')
        for clear in (True, False):
            dlg = _stripped(sess2dlg(p), tmp_path/f'{name}-{clear}.ipynb', clear)
            assert [m.id for m in dlg]==[str(k) for k in range(len(dlg))]
            assert dlg2sess(dlg, tmp_path/f'{name}-o.jsonl', force=True).read_bytes()==p.read_bytes(), (name, clear)

def _copy_to_end(dlg, m):
    "A copy of prompt message `m` pasted at the end of `dlg` (a copied cell: its records along)"
    import copy
    dlg.messages.append(dlg.msg_cls(m.content, output=copy.deepcopy(m.output), msg_type=m.msg_type, meta=copy.deepcopy(m.meta), attachments=copy.deepcopy(list(m.attachments))))

def test_rebuilt_results_and_prompts_written_as_dlg2chat_sends_them(tmp_path):
    "A result holding an image, a result marked is_error, and a prompt holding an image, rebuilt (the result edited, or the message pasted): written as dlg2chat sends them (chat's codec output for the message), never as their markdown text; in both formats"
    from test_session_gen import small_claude, small_codex
    png = 'iVBORw0KGgo='
    cl = [json.loads(l) for l in small_claude(2)]
    cl[0]['message']['content'] = [dict(type='text', text='look at this'), dict(type='image', source=dict(type='base64', media_type='image/png', data=png))]
    res = [r for r in cl if r['type']=='user' and isinstance(r['message']['content'], list) and r['message']['content'][0]['type']=='tool_result']
    res[0]['message']['content'][0]['content'] = [dict(type='text', text='see'), dict(type='image', source=dict(type='base64', media_type='image/png', data=png))]
    res[1]['message']['content'][0]['is_error'] = True
    cx = [json.loads(l) for l in small_codex(2)]
    next(r for r in cx if r['payload'].get('role')=='user')['payload']['content'].append(dict(type='input_image', image_url=f'data:image/png;base64,{png}'))
    next(r for r in cx if r['payload'].get('type')=='function_call_output')['payload']['output'] = [dict(type='input_image', image_url=f'data:image/png;base64,{png}')]
    def results(ms, fmt):
        if fmt=='responses': return [(x['call_id'], x['output']) for x in ms if x.get('type')=='function_call_output']
        return [(b['tool_use_id'], b['content'], b.get('is_error')) for m in ms if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='tool_result']
    def prompts(ms): return [m['content'] for m in ms if m.get('role')=='user' and not (isinstance(m['content'], list) and m['content'][0].get('type')=='tool_result')]
    for recs,fmt in ((cl, 'anthropic'), (cx, 'responses')):
        for what in ('edited', 'pasted'):
            p = tmp_path/f'{fmt}.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
            dlg = sess2dlg(p)
            if what=='pasted': _copy_to_end(dlg, dlg[0]); _copy_to_end(dlg, dlg[1])
            else:
                dlg[0].ai_res = dlg[0].ai_res.replace(png, 'AAAA')
                if fmt=='anthropic': dlg[1].ai_res = dlg[1].ai_res.replace('ok 2', 'ok 2, trace cut')
            sent = dlg2chat(dlg, fmt)
            back = dlg2chat(sess2dlg(dlg2sess(dlg, tmp_path/f'{fmt}-{what}.jsonl')), fmt)
            assert results(back, fmt)==results(sent, fmt) and prompts(back)==prompts(sent), (fmt, what)
            assert png in json.dumps(prompts(back)[-2 if what=='pasted' else 0]) and '](attachment:' not in json.dumps(back)

def test_web_searches_rebuilt_and_edited_as_dlg2chat_sends_them(tmp_path):
    "A web search the API ran (Codex's web_search_call, Claude's server_tool_use and web_search_tool_result blocks) in a rebuilt reply (a pasted copy) is written, and one deleted from a reply or whose query was edited is written so, as dlg2chat sends them"
    import re
    from test_session_gen import small_claude, small_codex
    cx = [json.loads(l) for l in small_codex(2)]
    k = next(i for i,r in enumerate(cx) if r['payload'].get('type')=='function_call')
    cx.insert(k, dict(cx[k], payload=dict(type='web_search_call', id='ws_1', status='completed', action=dict(type='search', query='weather paris'))))
    cl = [json.loads(l) for l in small_claude(2)]
    k = next(i for i,r in enumerate(cl) if r['type']=='assistant' and r['message']['content'][0]['type']=='tool_use')
    srv = [dict(type='server_tool_use', id='srvtoolu_01A', name='web_search', input=dict(query='weather paris')),
           dict(type='web_search_tool_result', tool_use_id='srvtoolu_01A', content=[dict(type='web_search_result', url='https://x', title='t', encrypted_content='EC', page_age=None)])]
    cl[k:k] = [dict(cl[k], uuid=f'aaaaaaaa-0000-4000-8000-00000000000{j}', message=dict(cl[k]['message'], content=[b])) for j,b in enumerate(srv)]
    def searches(ms, fmt):
        if fmt=='responses': return [x['action'] for x in ms if x.get('type')=='web_search_call']
        return [(b['type'], b.get('input')) for m in ms if isinstance(m['content'], list) for b in m['content'] if b.get('type') in ('server_tool_use', 'web_search_tool_result')]
    for recs,fmt in ((cl, 'anthropic'), (cx, 'responses')):
        for what in ('pasted', 'deleted', 'edited'):
            p = tmp_path/f'{fmt}.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
            dlg = sess2dlg(p); m = dlg[0]
            blk = next(b for b in re.findall(r"<details class='tool-usage-details'.*?</details>", m.ai_res, re.S) if 'weather paris' in b)
            if what=='pasted': _copy_to_end(dlg, m); _copy_to_end(dlg, m)
            else: m.ai_res = m.ai_res.replace(blk, '' if what=='deleted' else blk.replace('weather paris', 'weather rome'))
            sent = searches(dlg2chat(dlg, fmt), fmt)
            assert len(sent)==dict(pasted=3, deleted=0, edited=1)[what] * (2 if fmt=='anthropic' else 1), (fmt, what)
            assert searches(dlg2chat(sess2dlg(dlg2sess(dlg, tmp_path/f'{fmt}-{what}.jsonl')), fmt), fmt)==sent, (fmt, what)

def test_codex_edited_prompt_reaches_later_compactions(tmp_path):
    "Codex resumes from the last compacted record's replacement_history: an edited prompt's text is changed there in each compaction after the prompt (as its user_message event is), and left as it is in one before it"
    from test_session_gen import small_codex
    rs = [json.loads(l) for l in small_codex(2)]
    user = lambda t: dict(type='message', role='user', content=[dict(type='input_text', text=t)])
    comp = lambda: dict(rs[0], type='compacted', payload=dict(message='summary', replacement_history=[user('Prompt 2: fix test 2'), user('summary')]))
    k = next(i for i,r in enumerate(rs) if r['payload'].get('role')=='user' and 'Prompt 2' in json.dumps(r))
    rs = rs[:k] + [comp()] + rs[k:] + [comp()]
    p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    dlg = sess2dlg(p); dlg[1].content = 'Prompt 2, reworded'
    hs = [r['payload']['replacement_history'] for r in map(json.loads, dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()) if r['type']=='compacted']
    assert [[x['content'][0]['text'] for x in h] for h in hs]==[['Prompt 2: fix test 2', 'summary'], ['Prompt 2, reworded', 'summary']]

def test_broken_tool_block_is_refused(tmp_path):
    "A tool block whose JSON an edit broke is an error naming the message, and nothing is written: never the call rewritten as text"
    dlg = sess2dlg(_small(tmp_path, 1))
    dlg[0].ai_res = dlg[0].ai_res.replace('"result": "ok 1"', '"result": "ok 1 (checked)",')
    with pytest.raises(ValueError, match=r'message 0 .*tool block.*does not parse'): dlg2sess(dlg, tmp_path/'o.jsonl')
    assert not (tmp_path/'o.jsonl').exists()

def test_pasted_copy_gets_new_tool_ids(tmp_path):
    "A message pasted twice: the copy's tool_use ids are new, and its results follow them"
    dlg = sess2dlg(_small(tmp_path))
    dlg.mk_messages([dlg[0]], after=dlg[1])
    recs = check_chain(dlg2sess(dlg, tmp_path/'o.jsonl'))
    bs = [b for r in recs for b in (r.get('message') or {}).get('content') or [] if isinstance(b, dict)]
    uses,res = [b['id'] for b in bs if b.get('type')=='tool_use'],[b['tool_use_id'] for b in bs if b.get('type')=='tool_result']
    assert len(uses)==3 and len(set(uses))==3 and res==uses

def test_summary_leaf_in_another_file_kept(tmp_path):
    "A head `summary` whose leafUuid names a record of another file: kept as it is by an edit and by a fork (a leaf in this file still follows edits)"
    from test_session_gen import small_claude
    other = '0f0f0f0f-1111-4222-8333-444444444444'
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join([json.dumps(dict(type='summary', summary='Earlier work', leafUuid=other))] + small_claude(2)) + '\n')
    dlg = sess2dlg(p); dlg[1].content += ' (edited)'
    assert json.loads(dlg2sess(dlg, tmp_path/'e.jsonl').read_text().split('\n')[0])['leafUuid']==other
    assert json.loads(dlg2sess(sess2dlg(p), tmp_path, fork=True).read_text().split('\n')[0])['leafUuid']==other

def test_subagent_file_new_records_copy_its_envelope(tmp_path, monkeypatch):
    "In a subagent's own file (all sidechain), new records copy the envelope of its records: cwd, agentId, version, branch"
    from test_session_gen import small_claude
    monkeypatch.chdir(tmp_path)
    recs = [json.loads(l) for l in small_claude(2)][:-1]
    for r in recs: r['isSidechain'],r['agentId'] = True,'a7'
    p = tmp_path/'agent-a7.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    dlg = sess2dlg(p)
    dlg[0].ai_res = dlg[0].ai_res.replace('Done 1.', 'Done, test 1 passes.')
    dlg.messages.append(Message('one more check', msg_type='prompt', output='ok'))
    for r in map(json.loads, dlg2sess(dlg, tmp_path/'o.jsonl').read_text().split('\n')[:-1]):
        assert (r['cwd'], r['agentId'], r['version'], r['gitBranch'], r['isSidechain'])==('/home/u/proj', 'a7', '2.1.0', 'main', True)

def test_edited_text_stays_in_its_record(tmp_path):
    "A text edited in a reply stays in its own record, in its place: same uuid, message id and requestId, before the calls of its response"
    env = dict(sessionId='s', cwd='/p', version='1.0.0', timestamp='2025-01-01T00:00:00Z', isSidechain=False)
    blocks = [dict(type='thinking', thinking='hmm', signature='SIG'), dict(type='text', text='Calling two.'), dict(type='tool_use', id='t1', name='A', input={}), dict(type='tool_use', id='t2', name='B', input={})]
    for split in (False, True):  # a response in one record, and one block a record as Claude Code writes them
        recs = [dict(type='user', uuid='u', parentUuid=None, message=dict(role='user', content='go'), **env)]
        for k,bs in enumerate([[b] for b in blocks] if split else [blocks]):
            recs.append(dict(type='assistant', uuid=f'a{k}', parentUuid=recs[-1]['uuid'], requestId='rq1', message=dict(id='m1', role='assistant', content=bs), **env))
        recs += [dict(type='user', uuid='r', parentUuid=recs[-1]['uuid'], message=dict(role='user', content=[dict(type='tool_result', tool_use_id=t, content=t) for t in ('t1', 't2')]), **env),
                 dict(type='assistant', uuid='z', parentUuid='r', requestId='rq2', message=dict(id='m2', role='assistant', content=[dict(type='text', text='Both done.')]), **env)]
        p = tmp_path/'s.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
        dlg = sess2dlg(p)
        dlg[0].ai_res = dlg[0].ai_res.replace('Calling two.', 'Calling both.')
        out = check_chain(dlg2sess(dlg, tmp_path/f'o{split}.jsonl'))
        # the thinking of the edited text's response is left out (chat sends none of an edited round)
        assert [r['uuid'] for r in out]==[r['uuid'] for r in recs if not (split and r['uuid']=='a0')]
        assert 'SIG' not in json.dumps(out)
        t = next(r for r in out if any(b.get('text')=='Calling both.' for b in r['message']['content'] if isinstance(b, dict)))
        assert (t['uuid'], t['message']['id'], t['requestId'])==('a1' if split else 'a0', 'm1', 'rq1')
        assert norm(sess2dlg(tmp_path/f'o{split}.jsonl'))==norm(dlg, False)

@need
def test_codex_system_edit_written_back(tmp_path):
    "An edited Codex system prompt is written to session_meta's base_instructions, by a write and a fork; emptied, it is removed"
    for fork in (False, True):
        dlg = sess2dlg(cx)
        dlg.system = 'You are a careful reviewer.'
        out = dlg2sess(dlg, tmp_path if fork else tmp_path/'o.jsonl', fork=fork)
        assert sess2dlg(out).system=='You are a careful reviewer.'
        assert [l for l in out.read_text().split('\n')[1:]]==[l for l in cx.read_text().split('\n')[1:]] or fork  # only session_meta changed
    dlg = sess2dlg(cx); dlg.system = ''
    assert 'base_instructions' not in json.loads(dlg2sess(dlg, tmp_path/'e.jsonl').read_text().split('\n')[0])['payload']

def _small_codex(tmp_path, n=2):
    from test_session_gen import small_codex
    p = tmp_path/'rollout-2026-07-19T05-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text('\n'.join(small_codex(n)) + '\n')
    return p

def shown(dlg):
    "Each prompt and what its reply says, call ids and thinking aside (a copy's calls have new ids, and thinking can't be made anew)"
    import re
    strip = lambda t: ' '.join(re.sub(r'<!--think_start-->.*?<!--think_end-->', '', t, flags=re.S).split())
    return [(m.content, [(strip(p['text']),) if p['type']=='text' else (p['name'], p['args'], p['result']) for p in parse_reply(m.ai_res)]) for m in dlg]

def codex_calls(path):
    "A rollout's call ids in order, and its outputs' call ids in order, each output checked to follow its call"
    calls,outs = [],[]
    for l in Path(path).read_text().rstrip('\n').split('\n'):
        p = json.loads(l).get('payload') or {}
        if p.get('type') in ('function_call', 'custom_tool_call'): calls.append(p['call_id'])
        elif p.get('type') in ('function_call_output', 'custom_tool_call_output'): assert p['call_id'] in calls, f"output {p['call_id']} before its call"; outs.append(p['call_id'])
    return calls,outs

def test_codex_pasted_copy_gets_new_call_ids(tmp_path):
    "A Codex message pasted twice (unedited, and edited): the copy's call ids are new, each output following its own call, so the rollout holds no call id twice"
    for edit in (False, True):
        dlg = sess2dlg(_small_codex(tmp_path))
        dlg.mk_messages([dlg[0]], after=dlg[1])
        if edit: dlg[2].ai_res = dlg[2].ai_res.replace('Done 1.', 'Done 1, again.')
        out = dlg2sess(dlg, tmp_path/f'o{edit}.jsonl', force=True)
        calls,outs = codex_calls(out)
        assert len(calls)==3 and len(set(calls))==3 and outs==calls
        assert calls[:2]==['call_1', 'call_2'] and calls[2].startswith('call_')
        assert shown(sess2dlg(out))==shown(dlg)

def test_codex_alike_prompts_without_a_copy_written_as_read(tmp_path):
    "Two Codex prompts alike to the millisecond (no id tells them apart) that are no copy: an unedited rollout is still written back byte for byte"
    from test_session_gen import small_codex
    ls = small_codex(2)
    ls[9] = ls[2]  # turn 2's prompt record the same line as turn 1's
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(ls) + '\n')
    dlg = sess2dlg(p)
    assert [m.content for m in dlg]==['Prompt 1: fix test 1']*2
    assert dlg2sess(dlg, tmp_path/'o.jsonl').read_bytes()==p.read_bytes()

def test_claude_system_prompt_refused(tmp_path):
    "A system prompt given to a Claude Code dialog (which a transcript has no record for) is refused with an error saying so, by a write, a fork and a new session: never silently dropped"
    src = _small(tmp_path)
    for kw in (dict(path=tmp_path/'o.jsonl'), dict(path=tmp_path/'f', fork=True)):
        dlg = sess2dlg(src); dlg.system = 'Answer in French.'
        with pytest.raises(ValueError, match=r'system prompt.*Claude Code transcript holds none.*nothing written'): dlg2sess(dlg, **kw)
        assert not kw['path'].exists()
        dlg.system = None
        assert dlg2sess(dlg, **kw).exists()
    new = Dialog('new'); new.system = 'Answer in French.'; new.messages.append(Message('hi', msg_type='prompt', output='salut'))
    with pytest.raises(ValueError, match='system prompt'): dlg2sess(new, tmp_path/'n.jsonl', agent='claude')
    assert sess2dlg(dlg2sess(new, tmp_path/'n.jsonl', agent='codex')).system=='Answer in French.'

def test_text_chat_reads_as_text_is_written(tmp_path):
    "A reply text that looks like a tool block but that chat reads as text (`has_tool_block` False: not a spelling `parse_reply` reads) is written as a text, and reads back as edited: one rule of what a tool block is, chat's"
    from dialog.chat import has_tool_block
    odd = '<details class="tool-usage-details" open><p>see</p>\n```json\n{not a call\n```\n</details>'
    assert not has_tool_block(odd)
    dlg = sess2dlg(_small(tmp_path, 1))
    dlg[0].ai_res += '\n\n' + odd
    out = dlg2sess(dlg, tmp_path/'o.jsonl')
    assert norm(sess2dlg(out))==norm(dlg) and sess2dlg(out)[0].ai_res.endswith(odd)

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(claude_session(), codex_session()), st.data())
def test_pasted_copy_never_repeats_a_call_id(recs, data):
    "A message of any session pasted anywhere in its dialog: the written session holds no tool call id twice, each result after its own call, and every message that is no copy is written as read"
    with tempfile.TemporaryDirectory() as d:
        src = Path(d)/'s.jsonl'; src.write_text(session_text(recs, [0]*len(recs)))
        dlg = sess2dlg(src)
        m = data.draw(st.sampled_from(list(dlg)))
        dlg.mk_messages([m], after=data.draw(st.sampled_from(list(dlg))))
        out = dlg2sess(dlg, Path(d)/'o.jsonl')
        recs2 = [json.loads(l) for l in out.read_text().rstrip('\n').split('\n')]
        calls,res = [],[]
        for r in recs2:
            if isinstance(p := r.get('payload'), dict):
                if p.get('type') in ('function_call', 'custom_tool_call'): calls.append(p['call_id'])
                elif p.get('type') in ('function_call_output', 'custom_tool_call_output'): assert p['call_id'] in calls; res.append(p['call_id'])
            elif r.get('type') in ('user', 'assistant') and not r.get('isSidechain'):
                for b in (r['message'].get('content') if isinstance(r['message'].get('content'), list) else []):
                    if b.get('type')=='tool_use': calls.append(b['id'])
                    elif b.get('type')=='tool_result': assert b['tool_use_id'] in calls; res.append(b['tool_use_id'])
        assert len(calls)==len(set(calls))
        lines = set(out.read_text().split('\n'))
        # the original's records (a chain's may be relinked; signed thinking after the paste is left out, as chat sends none)
        assert all(l in lines for l in m.meta['dialog']['session']['records'] if ('"uuid"' not in l or '"parentUuid"' not in l) and '"leafUuid"' not in l and '"signature"' not in l and '"encrypted_content"' not in l)

def test_a_copy_pasted_before_a_codex_prompt_read_alike_repeats_no_call_id(tmp_path):
    "Two Codex prompts alike (same text, same millisecond: the same first record), the later one's reply calling a tool: its copy pasted between them is the first in the dialog holding those records, so it keeps the call id and the original after it gets a new one, as dlg2chat names them (no id twice either way)"
    ts, it = '2026-01-01T00:00:00.000Z', lambda p: dict(timestamp=ts, type='response_item', payload=p)
    recs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1')),
            it(dict(type='message', role='user', content=[dict(type='input_text', text='go')])),
            it(dict(type='message', role='user', content=[dict(type='input_text', text='go')])),
            it(dict(type='function_call', name='shell', arguments='{"cmd": "ls"}', call_id='c1')), it(dict(type='function_call_output', call_id='c1', output='a.py')),
            it(dict(type='message', role='assistant', content=[dict(type='output_text', text='done')]))]
    src = tmp_path/'s.jsonl'; src.write_text(session_text(recs, [0]*len(recs)))
    dlg = sess2dlg(src)
    assert len(dlg) == 2 and dlg[0].content == dlg[1].content
    dlg.mk_messages([dlg[1]], after=dlg[0])
    out = [json.loads(l)['payload'] for l in dlg2sess(dlg, tmp_path/'o.jsonl').read_text().split('\n') if l]
    ids = [p['call_id'] for p in out if p.get('type') == 'function_call']
    sent = [m['call_id'] for m in dlg2chat(dlg, 'responses') if m.get('type') == 'function_call']
    assert ids == sent == ['c1', 'c1-2']
    assert [p['call_id'] for p in out if p.get('type') == 'function_call_output'] == ids  # each result after its own call

def test_quoted_thinking_in_a_tool_result_stays_in_its_record(tmp_path):
    "A Read whose result quotes a dialog's think block (as every dialog file holds one): an edit to the reply's text rewrites that text record only; the tool_use and its tool_result are written back whole (the think opening inside the result's JSON cut the block into two text records)"
    sid,Q = '11111111-1111-1111-1111-111111111111','<!--think_start-->\n::: details\n\n## Thinking\n\nold\n\n:::\n<!--think_end-->'
    def rec(typ, content, parent, n, **kw):
        return dict(parentUuid=parent, isSidechain=False, userType='external', cwd='/x', sessionId=sid, version='1.0', type=typ,
                    message=dict(role=typ, content=content), uuid=f'00000000-0000-0000-0000-00000000000{n}', timestamp='2026-01-01T00:00:00.000Z', **kw)
    r1 = rec('user', 'read the dialog', None, 1)
    r2 = rec('assistant', [{'type': 'tool_use', 'id': 'toolu_1', 'name': 'Read', 'input': {'file_path': 'a.ipynb'}}], r1['uuid'], 2, requestId='req1')
    r3 = rec('user', [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': Q}], r2['uuid'], 3)
    r4 = rec('assistant', [{'type': 'text', 'text': 'It holds thinking.'}], r3['uuid'], 4, requestId='req2')
    src = tmp_path/'s.jsonl'
    src.write_text(''.join(json.dumps(r)+'\n' for r in [r1, r2, r3, r4]))
    dlg = sess2dlg(src)
    dlg.messages[0].ai_res = dlg.messages[0].ai_res.replace('It holds thinking.', 'It holds a think block.')
    recs = [json.loads(l) for l in Path(dlg2sess(dlg, tmp_path/'out.jsonl')).read_text().splitlines()]
    assert [r['message']['content'] for r in recs[:3]] == [r['message']['content'] for r in (r1, r2, r3)]
    assert recs[3]['message']['content'] == [{'type': 'text', 'text': 'It holds a think block.'}]
    check_chain(tmp_path/'out.jsonl')

def _cc(tmp_path, recs, name='s.jsonl'):
    "A Claude Code transcript of `recs`, chained, in `tmp_path`"
    import uuid
    env = dict(isSidechain=False, userType='external', cwd='/w', sessionId='11111111-2222-3333-4444-555555555555', version='2.1.0')
    res,parent = [],None
    for k,r in enumerate(recs):
        r = dict(parentUuid=parent, uuid=str(uuid.UUID(int=k+1)), timestamp=f'2026-01-01T00:00:{k:02d}.000Z', **env) | r
        parent = r['uuid']; res.append(r)
    p = tmp_path/name; p.write_text(''.join(json.dumps(r) + '\n' for r in res))
    return p
def _asst(rq, b, **kw): return dict(type='assistant', requestId=rq, message=dict(id='m'+rq, type='message', role='assistant', content=[b]), **kw)
def _user(c, **kw): return dict(type='user', message=dict(role='user', content=c), **kw)

def test_thinking_after_an_edit_is_left_out_as_chat_leaves_it(tmp_path):
    "After an edited tool result, the signed thinking about the old result is not written back: the written session sends the reasoning `dlg2chat` sends of the edited dialog"
    from dialog.chat import dlg2chat
    p = _cc(tmp_path, [_user('run echo 0'), _asst('1', dict(type='thinking', thinking='I will run it', signature='SIG0')),
        _asst('1', dict(type='tool_use', id='toolu_0', name='Bash', input=dict(command='echo 0'))),
        _user([dict(type='tool_result', tool_use_id='toolu_0', content='out 0')]),
        _asst('2', dict(type='thinking', thinking='The output was "out 0", as expected', signature='SIG0b')),
        _asst('2', dict(type='text', text='It printed out 0.'))])
    assert sigs(dlg2chat(sess2dlg(p), 'anthropic'))==['SIG0', 'SIG0b']
    dlg = sess2dlg(p)
    dlg[0].ai_res = dlg[0].ai_res.replace('"result": "out 0"', '"result": "ERROR: permission denied"')
    assert sigs(dlg2chat(dlg, 'anthropic'))==['SIG0']
    o = dlg2sess(dlg, tmp_path/'o.jsonl')
    recs = check_chain(o)
    assert 'permission denied' in o.read_text() and sigs(recs)==['SIG0'] and sigs(dlg2chat(sess2dlg(o), 'anthropic'))==['SIG0']
    # unedited, all of it goes back
    assert dlg2sess(sess2dlg(p), tmp_path/'u.jsonl').read_bytes()==p.read_bytes()

@need
def test_message_pasted_from_another_agent_is_rebuilt_in_this_format(tmp_path):
    "A message pasted from a Codex dialog into a Claude Code one (and back): its records are another format's, so it is written as new records of this one, and reads back"
    a,b = tmp_path/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl',tmp_path/'rollout-2026-07-19T15-30-38-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'
    a.write_bytes(cc.read_bytes()); b.write_bytes(cx.read_bytes())
    for src,other in ((a, b), (b, a)):
        d,x = sess2dlg(src),sess2dlg(other)
        d.mk_messages([x[0]], after=d[-1])
        want = [(m.content, ' '.join(unthought(m.ai_res).split())) for m in d]
        o = dlg2sess(d, tmp_path/f'o-{src.stem[:5]}.jsonl')
        types = {json.loads(l).get('type') for l in o.read_text().splitlines()}
        assert not types & ({'response_item', 'session_meta'} if src==a else {'user', 'assistant'})
        back = sess2dlg(o)
        assert [(m.content, ' '.join(unthought(m.ai_res).split())) for m in back]==want

def test_new_records_copy_only_the_envelope(tmp_path):
    "A reply written after an API-error turn is no API error, and a new text a message of its own: new records copy the envelope, never another record's message id, model, error or request id"
    p = _cc(tmp_path, [_user('summarise the repo'),
        dict(type='assistant', isApiErrorMessage=True, error='overloaded', requestId='req_0', gitBranch='main',
             message=dict(id='b1c2-synthetic', type='message', role='assistant', model='<synthetic>', stop_reason='stop_sequence', content=[dict(type='text', text='API Error: 529')]))])
    dlg = sess2dlg(p)
    dlg.mk_messages([Message('try again', output='The repo is a Python library.', msg_type='prompt')], after=dlg[-1])
    recs = check_chain(dlg2sess(dlg, tmp_path/'o.jsonl'))
    r = next(r for r in recs if r['type']=='assistant' and 'Python library' in json.dumps(r))
    assert not ({'isApiErrorMessage', 'error', 'requestId'} & set(r)) and r['gitBranch']=='main' and r['sessionId']==recs[0]['sessionId']
    assert r['message'].get('model') is None and r['message']['id'].startswith('msg_') and r['message']['id']!='b1c2-synthetic'

def test_new_text_is_no_part_of_an_earlier_response(tmp_path):
    "A text added after a tool result gets a message id of its own, so it is not read into the response that made the call (with requestIds or without)"
    for rq in (True, False):
        c = dict(type='tool_use', id='toolu_0', name='Bash', input=dict(command='echo 0'))
        a = _asst('_0', c) if rq else dict(type='assistant', message=dict(id='msg_0', type='message', role='assistant', content=[c]))
        p = _cc(tmp_path, [_user('run echo 0'), a, _user([dict(type='tool_result', tool_use_id='toolu_0', content='0')])], f's{rq}.jsonl')
        dlg = sess2dlg(p)
        dlg[0].ai_res += '\n\nIt printed 0.'
        o = dlg2sess(dlg, tmp_path/f'o{rq}.jsonl')
        new = [r for r in map(json.loads, o.read_text().splitlines()) if 'It printed 0.' in json.dumps(r)]
        assert len(new)==1 and new[0]['message']['id'] not in ('m_0', 'msg_0') and 'requestId' not in new[0]
        assert sess2dlg(o)[0].ai_res==dlg[0].ai_res

def test_hand_added_call_gets_an_id_the_api_takes(tmp_path):
    "A call added by hand with an id Anthropic refuses is written with the id `dlg2chat` sends (chat's `tool_id`), in the call and its result"
    import re
    from dialog.chat import dlg2chat
    p = _cc(tmp_path, [_user('list the files'), _asst('r', dict(type='text', text='Listing them.'))])
    dlg = sess2dlg(p)
    dlg[0].ai_res += '\n\n' + tool_block('my call #1', 'Bash', dict(command='ls'), 'a.py') + '\n\nOne file.'
    sent = [b['id'] for m in dlg2chat(dlg, 'anthropic') if isinstance(m['content'], list) for b in m['content'] if b['type']=='tool_use']
    recs = check_chain(dlg2sess(dlg, tmp_path/'o.jsonl'))
    ids = [b.get('id') or b.get('tool_use_id') for r in recs for b in (r['message']['content'] if isinstance(r['message']['content'], list) else []) if b.get('type') in ('tool_use', 'tool_result')]
    assert ids==sent*2 and re.fullmatch(r'[a-zA-Z0-9_-]{1,64}', ids[0])

def test_tool_result_image_kept(tmp_path):
    "An image a tool returned (Claude Code's Read of a PNG) is kept as chat's Anthropic codec keeps it: shown in the dialog, sent as an image block, and written back as read"
    from dialog.chat import dlg2chat
    png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4//8/AAX+Av6n1qS1AAAAAElFTkSuQmCC'
    res = [dict(type='text', text='read image'), dict(type='image', source=dict(type='base64', media_type='image/png', data=png))]
    p = _cc(tmp_path, [_user('look at a.png'), _asst('1', dict(type='tool_use', id='toolu_1', name='Read', input=dict(file_path='a.png'))),
        _user([dict(type='tool_result', tool_use_id='toolu_1', content=res)], toolUseResult=dict(type='image', file=dict(base64=png, type='image/png'))),
        _asst('2', dict(type='text', text='A single dot.'))])
    dlg = sess2dlg(p)
    assert png in dlg[0].ai_res
    sent = [b for m in dlg2chat(dlg, 'anthropic') if isinstance(m['content'], list) for b in m['content'] if b['type']=='tool_result']
    assert sent[0]['content'][1]['type']=='image' and sent[0]['content'][1]['source']['data']==png
    assert dlg2sess(dlg, tmp_path/'u.jsonl').read_bytes()==p.read_bytes()
    # another edit of the reply keeps the result with its image (and its toolUseResult) as read
    dlg[0].ai_res = dlg[0].ai_res.replace('A single dot.', 'One dot.')
    recs = check_chain(dlg2sess(dlg, tmp_path/'o.jsonl'))
    assert recs[2]==json.loads(p.read_text().splitlines()[2])

def test_tool_result_document_kept(tmp_path):
    "A document a tool returned (Claude Code's Read of a PDF) is kept as chat's Anthropic codec keeps one: shown as chat shows it, sent as the document block with the thinking made after it, and written back as read"
    from dialog.chat import dlg2chat, chat2dlg
    import base64
    pdf = base64.b64encode(b'%PDF-1.4\n%%EOF\n').decode()
    for k,res in enumerate(([dict(type='text', text='PDF file read: a.pdf'), dict(type='document', source=dict(type='base64', media_type='application/pdf', data=pdf))],
                            [dict(type='document', source=dict(type='text', media_type='text/plain', data='hello'))])):
        (d := tmp_path/str(k)).mkdir()
        th = dict(type='thinking', thinking='the pdf is empty', signature='sig2')
        p = _cc(d, [_user('read a.pdf'), _asst('1', dict(type='tool_use', id='toolu_1', name='Read', input=dict(file_path='a.pdf'))),
            _user([dict(type='tool_result', tool_use_id='toolu_1', content=res)]), _asst('2', th), _asst('2', dict(type='text', text='Empty.'))])
        dlg = sess2dlg(p)
        ms = dlg2chat(dlg, 'anthropic')
        sent = [b for m in ms if isinstance(m['content'], list) for b in m['content'] if b['type']=='tool_result']
        assert sent[0]['content']==res
        assert [b['signature'] for m in ms if isinstance(m['content'], list) for b in m['content'] if b['type']=='thinking']==['sig2']
        # shown as chat shows the same history's result
        h = [dict(role='user', content='q'), dict(role='assistant', content=[dict(type='tool_use', id='toolu_1', name='Read', input=dict(file_path='a.pdf'))]),
             dict(role='user', content=[dict(type='tool_result', tool_use_id='toolu_1', content=res)]), dict(role='assistant', content='Empty.')]
        shown = re.search(r'"result": (".*?"),\n', chat2dlg(h, 'anthropic')[0].ai_res).group(1)
        assert shown in dlg[0].ai_res
        assert dlg2sess(dlg, d/'u.jsonl').read_bytes()==p.read_bytes()

@need
def test_last_prompt_names_the_last_prompt_and_record(tmp_path):
    "After an edit, the `last-prompt` record (what `claude --resume` reads) is the last record, naming the last record of the conversation and the last prompt's text"
    src = tmp_path/'e12b4bd3-4f36-4dda-873d-2ff25d1f1044.jsonl'; src.write_bytes(cc.read_bytes())
    for case in ('append', 'edit'):
        dlg = sess2dlg(src)
        if case=='append': dlg.mk_messages([Message('now say bye', output='Bye.', msg_type='prompt')], after=dlg[-1])
        else: dlg[-1].content = 'Only run the Bash step.'
        rs = check_chain(dlg2sess(dlg, fork=True))
        conv = [r for r in rs if r.get('type') in ('user', 'assistant') and not r.get('isSidechain')]
        assert rs[-1]['type']=='last-prompt' and rs[-1]['leafUuid']==conv[-1]['uuid'] and rs[-1]['lastPrompt']==dlg[-1].content

@need
def test_message_pasted_from_another_session_takes_this_sessions_id(tmp_path):
    "A message pasted from another Claude Code session's dialog is written as new records of this session: one session id in the fork and in a write-back"
    a = _cc(tmp_path, [_user('hello'), _asst('1', dict(type='text', text='hi'))], '11111111-2222-3333-4444-555555555555.jsonl')
    da,db = sess2dlg(a),sess2dlg(cc)
    da.mk_messages([db[0]], after=da[-1])
    f = dlg2sess(da, fork=True)
    assert {r['sessionId'] for r in check_chain(f) if 'sessionId' in r}=={f.stem}
    o = dlg2sess(da, tmp_path/'o.jsonl')
    assert {r['sessionId'] for r in check_chain(o) if 'sessionId' in r}=={a.stem}
    assert [m.content for m in sess2dlg(o)]==[m.content for m in da]

def test_edited_prompt_of_many_brackets_is_read_once(tmp_path, monkeypatch):
    "An edited prompt's references are taken out once a message (not once a record of its span), by a pattern that scans no `![` past the next bracket: a 1 MB line of `![` is written (quadratic, it would take hours)"
    import subprocess, sys, dialog.session as S
    n = []
    monkeypatch.setattr(S, '_unref', lambda txt, ids, f=S._unref: n.append(1) or f(txt, ids))
    dlg = sess2dlg(_small(tmp_path, 2))
    dlg[0].content = 'this bundle fails: ' + '![' * 100
    dlg2sess(dlg, tmp_path/'o.jsonl')
    assert n==[1]
    code = ("import sys; from dialog.session import _unref; "
            "t = '![' * 500_000 + '\\n' * 200_000 + '![x](attachment:a)'; sys.exit(_unref(t, {'a'})!=t[:-len('\\n\\n![x](attachment:a)')])")
    assert subprocess.run([sys.executable, '-c', code], timeout=600).returncode==0  # a guard against a hang, no timing

def test_prompt_edit_keeps_text_quoting_an_attachment_reference(tmp_path):
    "A prompt quoting Jupyter's `![png](attachment:image.png)` (no image of its own) keeps it when edited, in both formats"
    txt = 'Why does this cell not render?\n\n![png](attachment:image.png)\n\nIt shows nothing.'
    for p in (_small(tmp_path, 1), _small_codex(tmp_path, 1)):
        lines = p.read_text().replace('Prompt 1: fix test 1', txt.replace('\n', '\\n')).splitlines()
        p.write_text('\n'.join(lines) + '\n')
        dlg = sess2dlg(p)
        assert dlg[0].content==txt
        dlg[0].content = txt.replace('Why does', 'Why would')
        assert sess2dlg(dlg2sess(dlg, tmp_path/'o.jsonl', force=True))[0].content==dlg[0].content

def test_prompt_image_first_edited_twice_keeps_its_text(tmp_path):
    "A prompt whose image comes before its text (a screenshot, then the question), edited and written twice: its text block is the edited text, as dlg2chat sends it, with no blank lines growing at each edit"
    from dialog.core import tiny_png
    import base64
    img = dict(type='image', source=dict(type='base64', media_type='image/png', data=base64.b64encode(tiny_png).decode()))
    p = _cc(tmp_path, [_user([img, dict(type='text', text='see this')]), _asst('1', dict(type='text', text='a dot'))])
    for k,word in enumerate(('look at this', 'and this')):
        dlg = sess2dlg(p)
        dlg[0].content = dlg[0].content.replace('see this' if k==0 else 'look at this', word)
        sent = [b['text'] for b in dlg2chat(dlg, 'anthropic')[0]['content'] if b['type']=='text']
        p = dlg2sess(dlg, tmp_path/f'o{k}.jsonl')
        c = json.loads(p.read_text().splitlines()[0])['message']['content']
        assert c==[img, dict(type='text', text=word)] and sent==[word]

def _resumed(tmp_path, name='s.jsonl'):
    "A Claude Code transcript of a session resumed before its second prompt: the records from there on name the new session id (siteboon/claudecodeui#1022)"
    from test_session_gen import small_claude
    lines = small_claude(2)
    k = next(i for i,l in enumerate(lines) if i and 'Prompt 2' in l)
    p = tmp_path/name
    p.write_text('\n'.join(lines[:k] + [l.replace('11111111-2222-4333-8444-555555555555', '22222222-2222-4333-8444-555555555555') for l in lines[k:]]) + '\n')
    return p

def test_resumed_session_written_back_as_read(tmp_path):
    "A resumed session's file (two session ids): unedited it is written back byte for byte; an edit of the first prompt rebuilds that prompt alone, the later records written as read"
    p = _resumed(tmp_path)
    assert dlg2sess(sess2dlg(p), tmp_path/'u.jsonl').read_bytes()==p.read_bytes()
    dlg = sess2dlg(p); dlg[0].content = 'Prompt 1, worded better'
    src,out = p.read_text().splitlines(),dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()
    k,j = (next(i for i,l in enumerate(ls) if i and 'Prompt 2' in l) for ls in (src, out))
    # as read, but the chain relinked where signed thinking after the edit is left out (as chat leaves it out of a send)
    assert [unlinked(l) for l in src[k:-1] if not thinks(l)]==[unlinked(l) for l in out[j:-1]] and 'Prompt 1, worded better' in out[0]

def _written_twice(tmp_path):
    "A Claude Code transcript whose first turn Claude Code wrote twice (the same uuids: anthropics/claude-code#66947): its lines, where the second prompt was, and the file"
    from test_session_gen import small_claude
    lines = small_claude(2)
    k = next(i for i,l in enumerate(lines) if i and 'Prompt 2' in l)
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(lines[:k] + lines[:k] + lines[k:]) + '\n')
    return lines,k,p

def test_records_written_twice_written_back_as_read(tmp_path):
    "Records Claude Code wrote twice with the same uuids (a whole turn again: anthropics/claude-code#66947) are read as they stand, and written back byte for byte: no message is taken for a pasted copy"
    lines,k,p = _written_twice(tmp_path)
    dlg = sess2dlg(p)
    assert len(dlg)==3 and dlg2sess(dlg, tmp_path/'u.jsonl').read_bytes()==p.read_bytes()
    # a copy pasted before the message it copies is the first in the dialog holding its records: it keeps their ids,
    # and the original after it gets new ones, as dlg2chat names them
    dlg.mk_messages([dlg[2]], after=dlg[0])
    recs = [json.loads(l) for l in dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()]
    uses = [b['id'] for r in recs for b in (r.get('message') or {}).get('content') or [] if isinstance(b, dict) and b.get('type')=='tool_use']
    sent = [b['id'] for m in dlg2chat(dlg, 'anthropic') if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='tool_use']
    assert uses.count('toolu_2')==1 and uses[1]=='toolu_2' and uses[-1]==sent[-1]=='toolu_2-2'

def _with_result(md, cid, res, args=None):
    "Reply `md` with call `cid`'s tool block given result `res` (and arguments `args`, when given)"
    p = next(p for p in parse_reply(md) if p['type']=='tool' and p['id']==cid)
    k = md.index(f'"id": "{cid}"')
    a,b = md.rfind('<details', 0, k),md.index('</details>', k)+len('</details>')
    return md[:a] + tool_block(cid, p['name'], p['args'] if args is None else args, res, **p['extra']) + md[b:]

def test_result_given_to_a_running_call_is_written(tmp_path):
    "A call that had no result (running, or stopped) given one by hand: written as a result record after its call's turn, in both formats, as dlg2chat sends it"
    ts = '2026-01-01T00:00:00.000Z'
    it = lambda p: dict(timestamp=ts, type='response_item', payload=p)
    cx_p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'
    cx_p.write_text(session_text([dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w')),
        it(dict(type='message', role='user', content=[dict(type='input_text', text='run make')])),
        it(dict(type='function_call', name='shell', arguments='{"cmd":"make"}', call_id='call_run'))], [0]*3))
    cc_p = _cc(tmp_path, [_user('run make'), _asst('1', dict(type='text', text='Running it.')),
        _asst('1', dict(type='tool_use', id='toolu_run', name='Bash', input=dict(command='make'))),
        _asst('1', dict(type='tool_use', id='toolu_two', name='Bash', input=dict(command='ls'))),
        _user([dict(type='tool_result', tool_use_id='toolu_two', content='a.py')])])
    for p,cid,fmt in ((cx_p, 'call_run', 'responses'), (cc_p, 'toolu_run', 'anthropic')):
        dlg = sess2dlg(p)
        assert 'build finished' not in json.dumps(dlg2chat(dlg, fmt))
        dlg[0].ai_res = _with_result(dlg[0].ai_res, cid, 'build finished')
        assert 'build finished' in json.dumps(dlg2chat(dlg, fmt))
        out = dlg2sess(dlg, tmp_path/f'o-{fmt}.jsonl')
        assert next(p for p in parse_reply(sess2dlg(out)[0].ai_res) if p['type']=='tool' and p['id']==cid)['result']=='build finished'
        if fmt=='anthropic':  # after the turn's other result: the calls of one response, then their results
            recs = check_chain(out)
            assert [r['type'] for r in recs]==['user', 'assistant', 'assistant', 'assistant', 'user', 'user']
            assert recs[-1]['message']['content'][0]['tool_use_id']=='toolu_run'

def test_codex_untouched_call_and_image_output_written_as_read(tmp_path):
    "An edit elsewhere in a Codex reply leaves a call whose arguments are no JSON object, and an output holding an image, as read (chat reads them so, and sends them so)"
    ts = '2026-01-01T00:00:00.000Z'
    it = lambda p: dict(timestamp=ts, type='response_item', payload=p)
    img = [dict(type='input_text', text='see'), dict(type='input_image', image_url='data:image/png;base64,iVBORw0KGgo=')]
    rs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w')),
          it(dict(type='message', role='user', content=[dict(type='input_text', text='look')])),
          it(dict(type='function_call', name='shell', arguments='{"command": ["ls", "-la"', call_id='c1')),
          it(dict(type='function_call_output', call_id='c1', output='failed to parse function arguments')),
          it(dict(type='function_call', name='view_image', arguments='[1, 2]', call_id='c2')),
          it(dict(type='function_call_output', call_id='c2', output=img)),
          it(dict(type='message', role='assistant', content=[dict(type='output_text', text='It rises.')]))]
    p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text(session_text(rs, [0]*len(rs)))
    dlg = sess2dlg(p)
    dlg[0].ai_res = dlg[0].ai_res.replace('It rises.', 'It rises (checked by hand).')
    src,out = p.read_text().splitlines(),dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()
    assert out[:-1]==src[:-1] and 'checked by hand' in out[-1]
    # an edited call's arguments are written as dlg2chat sends them
    dlg[0].ai_res = _with_result(dlg[0].ai_res, 'c1', 'a.py', dict(command=['ls', '-la']))
    recs = [json.loads(l)['payload'] for l in dlg2sess(dlg, tmp_path/'o2.jsonl').read_text().splitlines()]
    sent = [x for x in dlg2chat(dlg, 'responses') if x.get('type') in ('function_call', 'function_call_output')]
    assert [r for r in recs if r.get('type') in ('function_call', 'function_call_output')]==[{k:v for k,v in x.items() if k!='id'} for x in sent]

def _sent_states(dlg, fmt):
    "The reasoning a send of `dlg` holds, in order: Codex items' encrypted content or id, Claude thinking's signature or text"
    ms = dlg2chat(dlg, fmt)
    if fmt=='responses': return [x.get('encrypted_content') or x.get('id') for x in ms if x.get('type')=='reasoning']
    return [b.get('signature') or b.get('thinking') for m in ms if isinstance(m['content'], list) for b in m['content'] if b['type'] in ('thinking', 'redacted_thinking')]

def test_written_reasoning_is_what_dlg2chat_sends(tmp_path):
    "After an edit, the written session, read back, sends the reasoning dlg2chat of the edited dialog sends, no more: after a Codex system-prompt edit, for reasoning without opaque state (null encrypted_content, an empty signature), and for a Codex message pasted twice (its reasoning once)"
    import copy
    from test_session_gen import small_codex, small_claude
    def unsigned(ls): return [l.replace('"encrypted_content":"gAAA' + 'B'*40 + '"', '"encrypted_content":null').replace('"signature":"EtoE' + 'A'*40 + '"', '"signature":""') for l in ls]
    def check(p, fmt, edit):
        dlg = sess2dlg(p); edit(dlg)
        sent = _sent_states(dlg, fmt)
        back = _sent_states(sess2dlg(dlg2sess(dlg, tmp_path/'o.jsonl', force=True)), fmt)
        assert back==sent, (back, sent)
        return sent
    cxp = _small_codex(tmp_path)
    def system(d): d.system = 'You are Codex. Never run rm.'
    assert check(cxp, 'responses', system)==[]
    def paste(d): d.messages.append(d.msg_cls(d[0].content, output=copy.deepcopy(d[0].output), msg_type='prompt', meta=copy.deepcopy(d[0].meta)))
    assert len(check(cxp, 'responses', paste))==2
    def prompt(d): d[1].content = 'Prompt 2, worded better'
    for ls,fmt,name in ((small_codex(2), 'responses', cxp.name), (small_claude(2), 'anthropic', 's.jsonl')):
        p = tmp_path/name; p.write_text('\n'.join(unsigned(ls)) + '\n')
        assert len(_sent_states(sess2dlg(p), fmt))==2 and len(check(p, fmt, prompt))==1

def test_a_subagents_thinking_stays_after_an_edit(tmp_path):
    "A subagent's signed thinking riding along in the main transcript is no reasoning the main dialog sends: an edit of the main conversation keeps it"
    side = dict(isSidechain=True, agentId='a1')
    p = _cc(tmp_path, [_user('look around'), _asst('1', dict(type='tool_use', id='toolu_t', name='Task', input=dict(prompt='list'))),
        _user('list', **side), _asst('s', dict(type='thinking', thinking='side thought', signature='SIDESIG'), **side),
        _asst('s2', dict(type='text', text='a.py'), **side),
        _user([dict(type='tool_result', tool_use_id='toolu_t', content='a.py')]), _asst('2', dict(type='text', text='One file.'))])
    dlg = sess2dlg(p)
    dlg[0].content = 'look around, please'
    assert 'SIDESIG' in dlg2sess(dlg, tmp_path/'o.jsonl').read_text()

def test_tool_ids_written_are_the_ones_dlg2chat_sends(tmp_path):
    "A message pasted twice from another session's dialog, and a reply typed in twice with no session metadata: every tool id written is unique, and is the id dlg2chat sends (chat's tool_ids), in both formats"
    import copy
    from test_session_gen import small_claude, small_codex
    other = tmp_path/'other'; other.mkdir()
    for fmt in ('anthropic', 'responses'):
        if fmt=='anthropic':
            (other/'o.jsonl').write_text('\n'.join(small_claude(1, sid='99999999-2222-4333-8444-555555555555')) + '\n')
            p = _small(tmp_path)
        else:
            (other/'o.jsonl').write_text('\n'.join(small_codex(1)).replace('019f78da-e13e-72a2-9c10-aff27ecc7dfd', '019f78da-e13e-72a2-9c10-000000000000') + '\n')
            p = _small_codex(tmp_path)
        d,m = sess2dlg(p),sess2dlg(other/'o.jsonl')[0]
        for _ in range(2): d.messages.append(d.msg_cls(m.content, output=copy.deepcopy(m.output), msg_type='prompt', meta=copy.deepcopy(m.meta)))
        for _ in range(2): d.messages.append(d.msg_cls('again', output=copy.deepcopy(d[0].output), msg_type='prompt'))
        ms = dlg2chat(d, fmt)
        sent = [b['id'] for x in ms if isinstance(x.get('content'), list) for b in x['content'] if b.get('type')=='tool_use'] if fmt=='anthropic' else [x['call_id'] for x in ms if x.get('type')=='function_call']
        out = dlg2sess(d, tmp_path/f'w-{fmt}.jsonl')
        if fmt=='anthropic':
            recs = check_chain(out)
            ids = [b['id'] for r in recs if r.get('type')=='assistant' for b in r['message']['content'] if b.get('type')=='tool_use']
            res = [b['tool_use_id'] for r in recs if r.get('type')=='user' and isinstance(r['message']['content'], list) for b in r['message']['content'] if b.get('type')=='tool_result']
        else: ids,res = codex_calls(out)
        assert len(set(ids))==len(ids)==6 and ids==sent and res==ids

def test_records_before_an_edit_are_written_as_read(tmp_path):
    "An edit of the last prompt leaves the records before it as read, a turn Claude Code wrote twice (its signed thinking twice, which dlg2chat sends once) included"
    lines,k,p = _written_twice(tmp_path)
    dlg = sess2dlg(p)
    dlg[2].content = 'Prompt 2, worded better'
    out = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()
    # as read, but the chain relinked in the dialog's order (a dirty write relinks each prompt record)
    assert [unlinked(l) for l in out[:2*k]]==[unlinked(l) for l in lines[:k]*2] and 'Prompt 2, worded better' in out[2*k]

def test_odd_records_ride_along_through_an_edit(tmp_path):
    "Records holding fields of odd JSON types that reading lets ride along (a message that is true, a parentUuid that is a list) are written back as they are after an edit, never a TypeError"
    p = _cc(tmp_path, [_user('list the files'), _asst('1', dict(type='tool_use', id='toolu_1', name='Bash', input=dict(command='ls'))),
        _user([dict(type='tool_result', tool_use_id='toolu_1', content='a.py')]), dict(type='system', message=True), _asst('2', dict(type='text', text='One file.'), parentUuid=['x'])])
    dlg = sess2dlg(p)
    dlg[0].content = 'list the files, please'
    dlg.mk_messages([Message('again', output=dlg[0].output, msg_type='prompt')], after=dlg[0])
    recs = [json.loads(l) for l in dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()]
    assert any(r.get('message') is True for r in recs) and any(r.get('parentUuid')==['x'] for r in recs)

def test_a_prompt_of_white_space_alone_is_written_as_sent(tmp_path):
    "A prompt a person made of white space alone (Anthropic refuses an empty user text) is written as dlg2chat sends it: chat's placeholder, which reads back as the prompt"
    from test_session_gen import small_claude
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(small_claude(1)) + '\n')
    dlg = sess2dlg(p); dlg.mk_message('   ', msg_type='prompt', idx=0).ai_res = 'A reply'
    sent = dlg2chat(dlg, 'anthropic')
    back = sess2dlg(dlg2sess(dlg, tmp_path/'o.jsonl'))
    c = sent[0]['content']
    assert back[0].content == (c[0]['text'] if isinstance(c, list) else c)
    assert back[0].content == chat_mod._no_request and back[0].ai_res == 'A reply'

def test_keyless_renumbered_dialog_found_by_its_records(tmp_path):
    "A dialog saved before `dialog.session.keys` were kept, its cell ids renumbered (nbstripout), is found by what each message carries: unedited it writes back byte for byte, its signed thinking kept, in both formats; a message deleted re-checks it all, the chain whole"
    from test_session_gen import small_claude, small_codex
    for name,lines in dict(claude=small_claude(3), codex=small_codex(3)).items():
        p = tmp_path/f'{name}.jsonl'; p.write_text('\n'.join(lines) + '\n')
        for clear in (True, False):
            d = sess2dlg(p); del d.meta['dialog']['session']['keys']
            dlg = _stripped(d, tmp_path/f'{name}-{clear}.ipynb', clear)
            assert 'keys' not in dlg.meta['dialog']['session'] and [m.id for m in dlg]==[str(k) for k in range(len(dlg))]
            assert dlg2sess(dlg, tmp_path/f'{name}-o.jsonl', force=True).read_bytes()==p.read_bytes(), (name, clear)
            dlg.remove_msgs([dlg[1]])
            q = dlg2sess(dlg, tmp_path/f'{name}-del.jsonl', force=True)
            if name=='claude': check_chain(q)
            assert [m.content for m in sess2dlg(q)]==[m.content for m in dlg]

def test_prompt_with_document_read_sent_and_edited(tmp_path):
    "A prompt's document block (a text or PDF file given with it) is an attachment of the dialog as chat reads it: shown, sent by `dlg2chat`, written back byte for byte; editing the prompt's text keeps the block and writes no reference to it; a new prompt's text file written as a document block reads back as sent"
    from dialog.core import Attachment
    doc = dict(type='document', source=dict(type='text', media_type='text/plain', data='THE DOC BODY'), title='notes.txt')
    p = _cc(tmp_path, [_user([dict(type='text', text='summarise this'), doc]), _asst('r1', dict(type='text', text='done'))])
    dlg = sess2dlg(p)
    assert len(dlg[0].attachments)==1 and '(attachment:' in dlg[0].content
    assert doc in dlg2chat(dlg, 'anthropic')[0]['content']
    assert dlg2sess(dlg, tmp_path/'same.jsonl').read_bytes()==p.read_bytes()
    dlg[0].content = dlg[0].content.replace('summarise this', 'shorten this')
    c = json.loads(dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()[0])['message']['content']
    assert c==[dict(type='text', text='shorten this'), doc]
    dlg.messages.append(dlg.msg_cls('and [more.txt](attachment:a1)', msg_type='prompt', attachments=[Attachment(b'MORE TEXT', 'text/plain', 'a1')]))
    sent = dlg2chat(dlg, 'anthropic')[-1]
    back = sess2dlg(dlg2sess(dlg, tmp_path/'new.jsonl'))
    assert dlg2chat(back, 'anthropic')[-1]==sent and 'MORE TEXT' in json.dumps(sent)

def test_codex_prompt_with_a_pdf_is_refused(tmp_path):
    "A new Codex prompt with a PDF (which `dlg2chat` sends as an input_file part, a part no Codex rollout holds: `codex resume` skips the line) is refused, naming the message, nothing written; a text file goes as text, an image as input_image"
    from dialog.core import Attachment, tiny_png
    p = _small_codex(tmp_path)
    dlg = sess2dlg(p)
    dlg.messages.append(dlg.msg_cls('read [report.pdf](attachment:a1)', msg_type='prompt', attachments=[Attachment(b'%PDF-1.4 x', 'application/pdf', 'a1')]))
    with pytest.raises(ValueError, match=r'message 2 .*report\.pdf.*input_text, input_image parts only'): dlg2sess(dlg, tmp_path/'o.jsonl')
    assert not (tmp_path/'o.jsonl').exists()
    dlg.messages[-1] = dlg.msg_cls('read [n.txt](attachment:a1) ![i](attachment:a2)', msg_type='prompt',
                                   attachments=[Attachment(b'NOTES', 'text/plain', 'a1'), Attachment(tiny_png, 'image/png', 'a2')])
    recs = [json.loads(l) for l in dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()]
    parts = [c for r in recs if r.get('type')=='response_item' and r['payload'].get('type')=='message' for c in r['payload']['content']]
    assert {c['type'] for c in parts}<={'input_text', 'input_image', 'output_text'} and any('NOTES' in c.get('text', '') for c in parts)

def test_last_prompt_kept_when_the_last_message_is_deleted(tmp_path):
    "The `last-prompt` record rides in the last message's records, yet is the session's: with that message (or the last two) deleted, the written session (a fork or not) still ends with one, naming the new last record and prompt; a session read without one gets none"
    from test_session_gen import small_claude
    lines = small_claude(3)
    p = tmp_path/'s.jsonl'; p.write_text('\n'.join(lines) + '\n')
    for n in (1, 2):
        for fork in (False, True):
            dlg = sess2dlg(p); del dlg.messages[-n:]
            rs = check_chain(dlg2sess(dlg, tmp_path/'f' if fork else tmp_path/'o.jsonl', fork=fork, force=True))
            conv = [r for r in rs if r.get('type') in ('user', 'assistant')]
            assert [r['type'] for r in rs].count('last-prompt')==1
            assert rs[-1]['type']=='last-prompt' and rs[-1]['leafUuid']==conv[-1]['uuid'] and rs[-1]['lastPrompt']==dlg[-1].content
            assert rs[-1]['sessionId']==conv[-1]['sessionId']
    q = tmp_path/'n.jsonl'; q.write_text('\n'.join(l for l in lines if '"last-prompt"' not in l) + '\n')
    dlg = sess2dlg(q); del dlg.messages[-1]
    assert 'last-prompt' not in dlg2sess(dlg, tmp_path/'n2.jsonl').read_text()

def test_codex_compaction_tells_prompts_spelled_alike_by_place(tmp_path):
    "Of prompts spelled alike (\"continue\" typed twice, then three times), an edit reaches the replacement_history item of the edited one alone, told by its place counted from the end (Codex keeps the latest user messages, an earlier one may be gone from it)"
    from test_session_gen import small_codex
    user = lambda t: dict(type='message', role='user', content=[dict(type='input_text', text=t)])
    for n,hist,k in ((2, 2, 1), (2, 2, 0), (3, 2, 1), (3, 2, 2), (3, 2, 0)):
        rs = [json.loads(l) for l in small_codex(n)]
        for r in rs:
            if r['payload'].get('role')=='user' and 'Prompt' in json.dumps(r): r['payload']['content'][0]['text'] = 'continue'
            if r['payload'].get('type')=='user_message': r['payload']['message'] = 'continue'
        rs.append(dict(rs[0], type='compacted', payload=dict(message='summary', replacement_history=[user('continue')]*hist + [user('summary')])))
        p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
        dlg = sess2dlg(p)
        assert [m.content for m in dlg]==['continue']*n
        dlg[k].content = 'stop'
        h = [r['payload']['replacement_history'] for r in map(json.loads, dlg2sess(dlg, tmp_path/'o.jsonl', force=True).read_text().splitlines()) if r['type']=='compacted'][0]
        want = ['continue']*hist + ['summary']
        if k>=n-hist: want[k-(n-hist)] = 'stop'  # the prompt's own item, when Codex kept it
        assert [x['content'][0]['text'] for x in h]==want, (n, hist, k)

def test_cleared_replies_put_back_by_sess_restore(tmp_path):
    "Outputs cleared in the saved notebook: dlg2sess writes the replies' records back, and dlg2chat, which sends what the dialog shows, warns at its first send; sess_restore puts each cleared reply back from its records, so dlg2chat sends the conversation the written session holds, as before clearing, in both formats"
    import warnings
    from test_session_gen import small_claude, small_codex
    for name,fmt,lines in (('claude', 'anthropic', small_claude(3)), ('codex', 'responses', small_codex(3))):
        p = tmp_path/f'{name}.jsonl'; p.write_text('\n'.join(lines) + '\n')
        want = dlg2chat(sess2dlg(p), fmt)
        dlg = _stripped(sess2dlg(p), tmp_path/f'{name}.ipynb')
        assert all(not m.ai_res for m in dlg) and dlg2sess(dlg, tmp_path/f'{name}-o.jsonl').read_bytes()==p.read_bytes()
        with pytest.warns(UserWarning, match='3 replies cleared.*sess_restore'): assert dlg2chat(dlg, fmt)!=want
        assert len(sess_restore(dlg))==3 and not sess_restore(dlg)
        assert dlg2chat(dlg, fmt)==want and dlg2sess(dlg, tmp_path/f'{name}-o.jsonl', force=True).read_bytes()==p.read_bytes()

def test_edited_prompt_attachments_written_as_the_dialog_holds_them(tmp_path):
    "An existing prompt given an image (Claude Code, Codex) or a text file is written with it as `dlg2chat` sends it, a file a Codex rollout can't hold (a PDF) is refused naming the message, one taken out is gone, an image of a URL is written once; a block chat doesn't read rides along where it stood; an edit of the text alone keeps the blocks as read"
    import base64, re
    from dialog.core import Attachment, tiny_png
    png = base64.b64encode(tiny_png).decode()
    def add(m, att, ref): m.attachments = [*m.attachments, att]; m.content += f'\n\n{ref}'
    def prompt_of(p, codex=False):
        r = next(json.loads(l) for l in p.read_text().splitlines() if '"user"' in l and 'tool_result' not in l and 'user_message' not in l
                 and ('input_text' in l if codex else True) and 'environment_context' not in l)
        return r['payload']['content'] if codex else r['message']['content']
    # Claude Code: an image added; the written session sends it as dlg2chat does
    dlg = sess2dlg(_small(tmp_path)); add(dlg[0], Attachment(tiny_png, 'image/png', 'a1'), '![image](attachment:a1)')
    out = dlg2sess(dlg, tmp_path/'a.jsonl')
    assert png in json.dumps(prompt_of(out)) and '](attachment:' not in out.read_text()
    assert dlg2chat(sess2dlg(out), 'anthropic')[0]==dlg2chat(dlg, 'anthropic')[0]
    # Codex: an image added is written as an input_image part; a PDF is refused, nothing written
    dlg = sess2dlg(_small_codex(tmp_path)); add(dlg[0], Attachment(tiny_png, 'image/png', 'a1'), '![image](attachment:a1)')
    parts = prompt_of(dlg2sess(dlg, tmp_path/'b.jsonl'), True)
    assert [c['type'] for c in parts]==['input_text', 'input_image'] and png in parts[1]['image_url']
    dlg = sess2dlg(_small_codex(tmp_path)); add(dlg[0], Attachment(b'NOTES TEXT', 'text/plain', 'a1'), '[notes.txt](attachment:a1)')
    assert 'NOTES TEXT' in json.dumps(prompt_of(dlg2sess(dlg, tmp_path/'b2.jsonl'), True))  # a text file goes as text
    dlg = sess2dlg(_small_codex(tmp_path)); add(dlg[0], Attachment(b'%PDF-1.4 x', 'application/pdf', 'a1'), '[report.pdf](attachment:a1)')
    with pytest.raises(ValueError, match=r'message 0 .*report\.pdf.*input_text, input_image parts only'): dlg2sess(dlg, tmp_path/'c.jsonl')
    assert not (tmp_path/'c.jsonl').exists()
    # Claude Code: a screenshot taken out is gone; a Files API image (chat doesn't read it) rides along where it stood
    img,fimg = dict(type='image', source=dict(type='base64', media_type='image/png', data=png)),dict(type='image', source=dict(type='file', file_id='file_1'))
    p = _cc(tmp_path, [_user([dict(type='text', text='look at this'), img, fimg]), _asst('1', dict(type='text', text='a dot'))], 'd.jsonl')
    dlg = sess2dlg(p)
    dlg[0].content = re.sub(r'!\[[^\]]*\]\(attachment:[^)]*\)', '', dlg[0].content).strip() + ' (never mind the picture)'; dlg[0].attachments = []
    assert prompt_of(dlg2sess(dlg, tmp_path/'e.jsonl'))==[dict(type='text', text='look at this (never mind the picture)'), fimg]
    # the text alone edited: the blocks as read
    dlg = sess2dlg(p); dlg[0].content = dlg[0].content.replace('look at this', 'and this')
    assert prompt_of(dlg2sess(dlg, tmp_path/'f.jsonl'))==[dict(type='text', text='and this'), img, fimg]
    # an image of a URL (shown in the text): written once, as dlg2chat sends it
    url = dict(type='image', source=dict(type='url', url='https://x.org/a.png'))
    dlg = sess2dlg(_cc(tmp_path, [_user([dict(type='text', text='look'), url]), _asst('1', dict(type='text', text='a dot'))], 'g.jsonl'))
    dlg[0].content = dlg[0].content.replace('look', 'look again')
    out = dlg2sess(dlg, tmp_path/'h.jsonl')
    assert prompt_of(out)==[dict(type='text', text='look again'), url] and dlg2chat(sess2dlg(out), 'anthropic')==dlg2chat(dlg, 'anthropic')

def test_prompt_image_changed_alone_is_written(tmp_path):
    "A prompt's image replaced (same name, same text) or one added without a reference: dlg2sess writes what the dialog now sends (the text alone was fingerprinted, so the old image stayed); an untouched prompt with an image is written as read"
    import base64
    from dialog.core import Attachment, tiny_png
    img = dict(type='image', source=dict(type='base64', media_type='image/png', data=base64.b64encode(tiny_png).decode()))
    p = _cc(tmp_path, [_user([dict(type='text', text='look at this'), img]), _asst('1', dict(type='text', text='a dot'))], 'd.jsonl')
    assert dlg2sess(sess2dlg(p), tmp_path/'same.jsonl').read_bytes()==p.read_bytes()
    dlg = sess2dlg(p); a = dlg[0].attachments[0]
    dlg[0].attachments = [Attachment(tiny_png+b'\0', a.content_type, a.id)]
    out = dlg2sess(dlg, tmp_path/'o1.jsonl')
    assert dlg2chat(sess2dlg(out), 'anthropic')[0]==dlg2chat(dlg, 'anthropic')[0]
    dlg = sess2dlg(p); dlg[0].attachments = [*dlg[0].attachments, Attachment(tiny_png, 'image/jpeg', 'a2')]
    out = dlg2sess(dlg, tmp_path/'o2.jsonl')
    assert dlg2chat(sess2dlg(out), 'anthropic')[0]==dlg2chat(dlg, 'anthropic')[0]

def test_reasoning_only_reply_before_an_emptied_prompt_stays_unsent(tmp_path):
    "A reply of nothing but thinking, then a prompt the person empties (which sends no turn: the two replies read as one), then that prompt's reply: the written session, read back, sends no reasoning the edited dialog leaves out: that reply's thinking is not written, as after any edit (test_claude_edits_read_back's property found it)"
    th = dict(type='thinking', thinking='Hmm.', signature='c2ln')
    p = _cc(tmp_path, [_user('Q'), _asst('1', th), _user('again'), _asst('2', dict(type='text', text='A.'))])
    dlg = sess2dlg(p); dlg[1].content = ''
    def sigs(d): return [b.get('signature') for m in dlg2chat(d, 'anthropic') if isinstance(m['content'], list) for b in m['content'] if b.get('type')=='thinking']
    assert sigs(dlg) == []
    out = dlg2sess(dlg, tmp_path/'o.jsonl')
    assert sigs(sess2dlg(out)) == [] and 'c2ln' not in out.read_text()
    assert norm(sess2dlg(out), False) == norm(dlg, False)  # the thinking no send holds goes, as after any edit


# a transcript in which Claude Code wrote a record twice (one uuid): anthropics/claude-code#66454, #5034
DUP_SID = '5d1f0c3e-8a7b-4c2d-9e1f-0a1b2c3d4e5f'
def dup_session(d, whole):
    "A Claude Code transcript of 3 turns in which Claude Code wrote prompt 1's record (`whole`: its whole turn) twice"
    env = dict(isSidechain=False, userType='external', cwd='/w', sessionId=DUP_SID, version='2.0.1')
    rs,par = [],None
    def add(**r):
        nonlocal par
        u = str(uuid.UUID(int=len(rs)+1))
        rs.append(dict(parentUuid=par) | env | r | dict(uuid=u, timestamp=f'2026-07-17T02:51:{len(rs):02d}.000Z')); par = u
    for i in range(3):
        add(type='user', message=dict(role='user', content=f'prompt {i}'))
        add(type='assistant', requestId=f'req_{i}', message=dict(id=f'msg_{i}', type='message', role='assistant', model='claude', content=[dict(type='text', text=f'answer {i}')]))
    ls = [json.dumps(r, separators=(',', ':')) for r in rs]
    if whole=='reply': ls[4:4] = ls[3:4]  # the answer written twice
    elif whole: ls[4:4] = ls[2:4]
    else: ls[3:3] = ls[2:3]  # consecutively, as Claude Code writes one twice
    (p := Path(d)/f'{DUP_SID}.jsonl').write_text('\n'.join(ls)+'\n')
    return p

def cc_walk(recs):
    "The records Claude Code resumes from a transcript's `recs`: one record a uuid (the later wins), from the last back through each parentUuid; AssertionError on a cycle"
    by = {r['uuid']: r for r in recs if 'uuid' in r}
    walk,u = [],[r for r in recs if 'uuid' in r][-1]['uuid']
    while u is not None:
        assert u not in walk, f'parentUuid cycle at {u}'
        walk.append(u); u = by[u].get('parentUuid')
    return [by[u] for u in walk[::-1]]

def said(rs):
    "What records `rs` say, in order: each message's text"
    return [r['message']['content'] if isinstance(r['message']['content'], str) else r['message']['content'][0]['text'] for r in rs]

@pytest.mark.parametrize('whole', [False, True, 'reply'])
def test_a_record_claude_code_wrote_twice_never_follows_itself(tmp_path, whole):
    "After an edit, a record written twice (a prompt's, or a whole turn's) follows what its first follows: Claude Code resumes the conversation as edited, no parentUuid cycle (the copy was made to follow itself)"
    src = dup_session(tmp_path, whole)
    assert said(cc_walk(recs := [json.loads(l) for l in src.read_text().splitlines()]))==[f'{k} {i}' for i in range(3) for k in ('prompt', 'answer')]
    d = sess2dlg(src)
    d.messages[0].ai_res = d.messages[0].ai_res.replace('answer 0', 'answer zero')
    out = [json.loads(l) for l in dlg2sess(d, tmp_path/'edited.jsonl').read_text().splitlines()]
    assert all(r.get('parentUuid')!=r['uuid'] for r in out)
    assert said(cc_walk(out))==['prompt 0', 'answer zero', 'prompt 1', 'answer 1', 'prompt 2', 'answer 2']
    assert [r['uuid'] for r in out]==[r['uuid'] for r in recs]  # the copies kept as Claude Code wrote them

def _rounds_session(path, agent):
    "A two-prompt session of `agent` whose replies each make one tool call (`toolu_t` / `call_t`) and answer after its result"
    out,parent = [],None
    if agent=='claude':
        env = dict(userType='external', cwd='/w', sessionId='11111111-2222-4333-8444-555555555555', version='2.1.0')
        def add(r):
            nonlocal parent
            out.append(dict(parentUuid=parent, isSidechain=False, **r, uuid=(u := str(uuid.uuid4())), timestamp='2026-07-17T02:51:28.115Z', **env)); parent = u
        for t in (1, 2):
            m = dict(model='claude-x', id=f'msg_{t}', type='message', role='assistant')
            add(dict(type='user', message=dict(role='user', content=f'Prompt {t}')))
            add(dict(type='assistant', requestId=f'req_{t}', message=m | dict(content=[dict(type='tool_use', id=f'toolu_{t}', name='Bash', input=dict(command='ls'))])))
            add(dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=f'toolu_{t}', content=f'ok {t}')])))
            add(dict(type='assistant', requestId=f'req_{t}b', message=m | dict(id=f'msg_{t}b', content=[dict(type='text', text=f'Done {t}.')])))
    else:
        ts = '2026-07-19T05:30:38.285Z'
        out.append(dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1')))
        for t in (1, 2):
            for p in (dict(type='message', role='user', content=[dict(type='input_text', text=f'Prompt {t}')]),
                      dict(type='function_call', name='shell', arguments='{"cmd":["ls"]}', call_id=f'call_{t}'),
                      dict(type='function_call_output', call_id=f'call_{t}', output=f'ok {t}'),
                      dict(type='message', role='assistant', content=[dict(type='output_text', text=f'Done {t}.')])):
                out.append(dict(timestamp=ts, type='response_item', payload=p))
    path.write_text(''.join(json.dumps(r) + '\n' for r in out))
    return path

def _written_call_ids(p):
    "The tool call ids the records of session file `p` make, in order"
    ids = []
    for l in Path(p).read_text().splitlines():
        r = json.loads(l)
        c = (r.get('message') or {}).get('content')
        ids += [b['id'] for b in c if b.get('type')=='tool_use'] if isinstance(c, list) else []
        if (r.get('payload') or {}).get('type')=='function_call': ids.append(r['payload']['call_id'])
    return ids

@pytest.mark.parametrize('agent', ['claude', 'codex'])
@pytest.mark.parametrize('what', ['reply', 'prompt'])
def test_copy_of_an_edited_message_gets_new_tool_ids(tmp_path, agent, what):
    "A message edited (its reply or its prompt), then copied to the end: the copy's calls get new ids, as an unedited one's do"
    dlg = sess2dlg(_rounds_session(tmp_path/'s.jsonl', agent))
    if what=='reply': dlg[0].ai_res += '\n\nOne more note.'
    else: dlg[0].content += ' Please.'
    dlg.mk_messages([dlg[0]], after=dlg[-1])
    out = dlg2sess(dlg, tmp_path/'o.jsonl')
    ids = _written_call_ids(out)
    assert len(ids)==3 and len(set(ids))==3, ids
    assert ids[:2]==(['toolu_1', 'toolu_2'] if agent=='claude' else ['call_1', 'call_2'])  # the original keeps its ids
    if agent=='claude': check_chain(out)

def _long_run(path, n):
    "A Claude Code transcript of one prompt and a reply of `n` rounds: thinking, a text, a call and its result each, then an answer"
    out,parent = [],None
    env = dict(userType='external', cwd='/w', sessionId='22222222-2222-4333-8444-555555555555', version='2.1.0')
    def add(r):
        nonlocal parent
        out.append(dict(parentUuid=parent, isSidechain=False, **r, uuid=(u := str(uuid.uuid4())), timestamp='2026-07-17T02:51:28.115Z', **env)); parent = u
    add(dict(type='user', message=dict(role='user', content='Do the long job')))
    for t in range(n):
        m = dict(id=f'm{t}', type='message', role='assistant')
        for c in (dict(type='thinking', thinking=f'think {t}', signature=f'sig{t}'), dict(type='text', text=f'Step {t}.'),
                  dict(type='tool_use', id=f'toolu_{t}', name='Bash', input=dict(command='ls'))):
            add(dict(type='assistant', requestId=f'r{t}', message=m | dict(content=[c])))
        add(dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=f'toolu_{t}', content='ok')])))
    add(dict(type='assistant', requestId='rz', message=dict(id='mz', type='message', role='assistant', content=[dict(type='text', text='All done.')])))
    path.write_text(''.join(json.dumps(r) + '\n' for r in out))
    return path

def test_matching_an_edited_long_reply_is_linear_in_its_items(tmp_path, monkeypatch):
    "Writing back an edit of a long agentic reply: the work matching its records to the edited reply (lines run in `_match`, its helpers and their comprehensions) grows linearly with the reply's items"
    import sys, dialog.session as S
    match,lines = S._match,[0]
    def local(f, ev, arg):
        if ev=='line': lines[0] += 1
        return local
    def tracer(f, ev, arg): return local if f.f_code.co_filename==S.__file__ else None
    def counted(*a, **kw):
        sys.settrace(tracer)
        try: return match(*a, **kw)
        finally: sys.settrace(None)
    monkeypatch.setattr(S, '_match', counted)
    def work(n, every):
        "Lines run matching a reply of `n` rounds whose final answer (and, with `every`, each round's text) was edited"
        lines[0] = 0
        dlg = sess2dlg(_long_run(tmp_path/f'{n}{every}.jsonl', n))
        r = dlg[0].ai_res.replace('All done.', 'All finished.')
        if every: r = re.sub(r'Step (\d+)\.', r'Step \1 is done.', r)
        dlg[0].ai_res = r
        out = dlg2sess(dlg, tmp_path/f'{n}{every}-out.jsonl')
        assert 'All finished.' in out.read_text() and (not every or 'Step 7 is done.' in out.read_text())
        return lines[0]
    for every in (False, True):
        small,big = work(150, every),work(600, every)
        assert big < 5*small, (every, small, big)  # 4x the items: about 4x the work (quadratic: 16x)

def _compacted_cc(tmp_path):
    "A Claude Code transcript compacted once after its first turn (`/compact`: a root `compact_boundary`, then the summary), three prompts"
    recs = [_user('Prompt 1'), _asst('1', dict(type='text', text='Reply 1.')),
            dict(type='system', subtype='compact_boundary', content='Conversation compacted', isMeta=False, level='info',
                 logicalParentUuid=str(uuid.UUID(int=2)), compactMetadata=dict(trigger='manual', preTokens=1000)),
            _user('This session is being continued from a previous conversation. Summary: Prompt 1 was answered.',
                  isVisibleInTranscriptOnly=True, isCompactSummary=True),
            _user('Prompt 2'), _asst('2', dict(type='text', text='Reply 2.')),
            _user('Prompt 3'), _asst('3', dict(type='text', text='Reply 3.'))]
    p = _cc(tmp_path, recs, 'compacted.jsonl')
    rs = [json.loads(l) for l in p.read_text().splitlines()]
    rs[2]['parentUuid'] = None  # the boundary is a root: Claude Code resumes from the summary on
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    return p

def _cc_resumed(p):
    "What `claude --resume` loads: the chain from the last record back to a root, oldest first, each record's text (a compaction's its kind)"
    rs = [json.loads(l) for l in Path(p).read_text().splitlines()]
    by,q,out = {r['uuid']:r for r in rs if 'uuid' in r},[r for r in rs if 'uuid' in r][-1]['uuid'],[]
    lp = [r for r in rs if r.get('type')=='last-prompt']
    if lp: q = lp[-1]['leafUuid']
    while q: out.append(by[q]); q = by[q].get('parentUuid')
    def show(r):
        if r['type']=='system': return '<boundary>'
        if r.get('isCompactSummary'): return '<summary>'
        c = r['message']['content']
        return c if isinstance(c, str) else c[0].get('text') or c[0]['type']
    return [show(r) for r in reversed(out)]

def test_moved_message_leaves_its_compaction_where_the_agent_needs_it(tmp_path):
    "A compaction (Claude Code's root `compact_boundary` and summary) rides in the message before it: a move of that message, or of one read after it to before it, writes it before the first message read after it standing there, so `--resume` holds every prompt in the dialog's order; a message put after it, and an unmoved dialog, keep it where it was"
    p = _compacted_cc(tmp_path)
    dlg = sess2dlg(p); m = dlg[0]
    dlg.remove_msgs([m]); dlg.insert_msgs([m])  # Prompt 1 moved to the end
    got = _cc_resumed(dlg2sess(dlg, tmp_path/'a.jsonl')); check_chain(tmp_path/'a.jsonl')
    assert got==['<boundary>', '<summary>', 'Prompt 2', 'Reply 2.', 'Prompt 3', 'Reply 3.', 'Prompt 1', 'Reply 1.']
    dlg = sess2dlg(p); m = dlg[2]
    dlg.remove_msgs([m]); dlg.insert_msgs([m], idx=0)  # Prompt 3 moved to the start: the compaction goes before it
    assert _cc_resumed(dlg2sess(dlg, tmp_path/'b.jsonl'))==['<boundary>', '<summary>', 'Prompt 3', 'Reply 3.', 'Prompt 1', 'Reply 1.', 'Prompt 2', 'Reply 2.']
    dlg = sess2dlg(p); m = dlg[0]
    m.ai_res = 'Reply 1, edited.'; dlg.remove_msgs([m]); dlg.insert_msgs([m])  # moved and edited: rebuilt without it
    assert _cc_resumed(dlg2sess(dlg, tmp_path/'c.jsonl'))[-4:]==['Prompt 3', 'Reply 3.', 'Prompt 1', 'Reply 1, edited.']
    assert _cc_resumed(tmp_path/'c.jsonl')[:3]==['<boundary>', '<summary>', 'Prompt 2']
    dlg = sess2dlg(p); dlg.mk_message('New', msg_type='prompt', idx=1).ai_res = 'New reply.'  # put after its carrier
    assert _cc_resumed(dlg2sess(dlg, tmp_path/'d.jsonl'))[:4]==['<boundary>', '<summary>', 'New', 'New reply.']
    assert dlg2sess(sess2dlg(p), tmp_path/'e.jsonl').read_bytes()==p.read_bytes()

def test_deleted_message_takes_its_compaction_with_it(tmp_path):
    "A compaction riding in a deleted message goes with it (its summary is of the turns cut): the messages after it are written whole, on one chain"
    dlg = sess2dlg(p := _compacted_cc(tmp_path)); dlg.remove_msgs([dlg[0]])
    assert _cc_resumed(dlg2sess(dlg, tmp_path/'o.jsonl'))==['Prompt 2', 'Reply 2.', 'Prompt 3', 'Reply 3.']
    assert 'compact_boundary' not in (tmp_path/'o.jsonl').read_text()

def test_codex_moved_message_leaves_its_compaction_where_the_agent_needs_it(tmp_path):
    "Codex rebuilds the history it resumes from the last `compacted` record's replacement_history and the items after it: a move of the message the compaction rides in writes the compaction before the first message read after it, so every prompt after it is still sent, in the dialog's order"
    from test_session_gen import small_codex
    rs = [json.loads(l) for l in small_codex(3)]
    user = lambda t: dict(type='message', role='user', content=[dict(type='input_text', text=t)])
    k = next(i for i,r in enumerate(rs) if r['type']=='turn_context' and r['payload']['turn_id']=='2')
    rs.insert(k, dict(rs[0], type='compacted', payload=dict(message='summary', replacement_history=[user('Prompt 1: fix test 1'), user('summary')])))
    p = tmp_path/'rollout-2026-01-01T00-00-00-019f78da-e13e-72a2-9c10-aff27ecc7dfd.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    def resumed(path):
        "The user texts of the history `codex resume` rebuilds"
        h = []
        for r in map(json.loads, Path(path).read_text().splitlines()):
            if r['type']=='compacted': h = list(r['payload']['replacement_history'])
            elif r['type']=='response_item': h.append(r['payload'])
        return [x['content'][0]['text'] for x in h if x.get('type')=='message' and x.get('role')=='user']
    assert resumed(p)==['Prompt 1: fix test 1', 'summary', 'Prompt 2: fix test 2', 'Prompt 3: fix test 3']
    dlg = sess2dlg(p); m = dlg[0]
    dlg.remove_msgs([m]); dlg.insert_msgs([m])
    assert resumed(dlg2sess(dlg, tmp_path/'o.jsonl'))[2:]==['Prompt 2: fix test 2', 'Prompt 3: fix test 3', 'Prompt 1: fix test 1']
    assert dlg2sess(sess2dlg(p), tmp_path/'same.jsonl').read_bytes()==p.read_bytes()


def _same_twice(tmp_path, agent):
    "A session of `agent` whose one reply says 'Same.' before each of two tool calls, then 'End.'"
    if agent=='claude':
        def call(t): return [_asst(f'{t}', dict(type='tool_use', id=f'toolu_{t}', name='Bash', input=dict(command=f'ls {t}'))),
                             _user([dict(type='tool_result', tool_use_id=f'toolu_{t}', content=f'ok {t}')], toolUseResult='ok')]
        return _cc(tmp_path, [_user('Prompt 1'), _asst('1', dict(type='text', text='Same.')), *call(1),
                              _asst('2', dict(type='text', text='Same.')), *call(2), _asst('3', dict(type='text', text='End.'))])
    ts = '2026-07-19T05:30:38.285Z'
    def msg(role, t): return dict(type='message', role=role, content=[dict(type='input_text' if role=='user' else 'output_text', text=t)])
    def call(t): return [dict(type='function_call', name='shell', arguments=f'{{"cmd":["ls","{t}"]}}', call_id=f'call_{t}'),
                         dict(type='function_call_output', call_id=f'call_{t}', output=f'ok {t}')]
    ps = [msg('user', 'Prompt 1'), msg('assistant', 'Same.'), *call(1), msg('assistant', 'Same.'), *call(2), msg('assistant', 'End.')]
    recs = [dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1'))]
    p = tmp_path/'s.jsonl'; p.write_text(''.join(json.dumps(r) + '\n' for r in recs + [dict(timestamp=ts, type='response_item', payload=x) for x in ps]))
    return p

@pytest.mark.parametrize('agent', ['claude', 'codex'])
def test_edit_of_the_first_of_two_equal_texts_keeps_each_in_its_place(tmp_path, agent):
    "Editing or deleting the first of two equal texts in a reply: the other is kept in its own place (its response, after the first call), matched by its place among equals; the session read back is the dialog as edited"
    src = _same_twice(tmp_path, agent)
    for name,f in [('edit', lambda t: t.replace('Same.', 'Changed.', 1)), ('delete', lambda t: t.replace('Same.\n\n', '', 1))]:
        dlg = sess2dlg(src); old = dlg[0].ai_res; dlg[0].ai_res = f(old)
        assert dlg[0].ai_res!=old
        out = dlg2sess(dlg, tmp_path/f'{name}.jsonl')
        back = sess2dlg(out)[0].ai_res
        def order(t): return re.findall(r'Same\.|Changed\.|End\.|"id": "(?:toolu|call)_\d"', t)  # texts and calls in order
        assert order(back)==order(dlg[0].ai_res)
        if agent=='claude':  # the second 'Same.' is still the record of the second response, as read
            recs = [json.loads(l) for l in out.read_text().splitlines()]
            same = [r for r in recs if r.get('type')=='assistant' and r['message']['content'][0].get('text')=='Same.']
            assert [r['requestId'] for r in same]==['2']
            if name=='edit':
                ch = [r for r in recs if r.get('type')=='assistant' and r['message']['content'][0].get('text')=='Changed.']
                assert [(r['requestId'], r['uuid']) for r in ch]==[('1', str(uuid.UUID(int=2)))]


def test_move_of_a_message_compacted_mid_turn_keeps_every_prompt_on_the_resumed_chain(tmp_path):
    "A compaction made mid-turn (between a tool result and the rest of the reply, which names the summary its parent): moving its message, or one read after it to before it, keeps that reply after its own calls, so `--resume` reaches every prompt in the dialog's order"
    call = dict(type='tool_use', id='toolu_1', name='Bash', input=dict(command='ls'))
    recs = [_user('Prompt 1'), _asst('1a', call), _user([dict(type='tool_result', tool_use_id='toolu_1', content='ok')], toolUseResult='ok'),
            dict(type='system', subtype='compact_boundary', content='Conversation compacted', isMeta=False, level='info',
                 logicalParentUuid=str(uuid.UUID(int=3)), compactMetadata=dict(trigger='auto', preTokens=150000)),
            _user('This session is being continued from a previous conversation. Summary.', isVisibleInTranscriptOnly=True, isCompactSummary=True),
            _asst('1', dict(type='text', text='Reply 1.')),
            _user('Prompt 2'), _asst('2', dict(type='text', text='Reply 2.')),
            _user('Prompt 3'), _asst('3', dict(type='text', text='Reply 3.'))]
    p = _cc(tmp_path, recs, 'midturn.jsonl')
    rs = [json.loads(l) for l in p.read_text().splitlines()]
    rs[3]['parentUuid'] = None  # the boundary is a root
    p.write_text(''.join(json.dumps(r) + '\n' for r in rs))
    assert [x for x in _cc_resumed(p) if x.startswith('Prompt')]==['Prompt 2', 'Prompt 3']  # as read: Prompt 1 is compacted
    for name,k,to in [('last', 0, None), ('first', 2, 0)]:
        dlg = sess2dlg(p); m = dlg[k]
        dlg.remove_msgs([m]); dlg.insert_msgs([m]) if to is None else dlg.insert_msgs([m], idx=to)
        out = check_chain(dlg2sess(dlg, tmp_path/f'{name}.jsonl'))
        got = _cc_resumed(tmp_path/f'{name}.jsonl')
        assert got[:2]==['<boundary>', '<summary>']
        assert [x for x in got if x.startswith('Prompt')]==[x.content for x in dlg.messages]
        # the reply after the compaction follows its message's tool result, not the summary
        i = got.index('Prompt 1'); assert got[i:i+4]==['Prompt 1', 'tool_use', 'tool_result', 'Reply 1.']

def test_a_kept_record_line_holding_a_line_break_is_never_written_as_two(tmp_path):
    "R38d: a record line kept in a message's metadata (or the session's head) holding a line break was written as it was: two lines, one of them a record no message said (or no JSON). A message's lines that aren't one record each are made anew from the message; a head's is refused"
    p = _ask_and_answer(tmp_path)
    dlg = sess2dlg(p)
    dlg[0].meta['dialog']['session']['records'][1] += '\n{"evil":1}'
    ls = dlg2sess(dlg, tmp_path/'o.jsonl').read_text().splitlines()
    assert len(ls)==2 and all('evil' not in l for l in ls)
    assert [(m.content, m.ai_res) for m in sess2dlg(tmp_path/'o.jsonl')]==[('hi', 'yo')]
    dlg = sess2dlg(p); dlg.meta['dialog']['session']['head'] = ['{"type":"x"}\n{"evil":1}']
    with pytest.raises(ValueError, match='each one record without a line break'): dlg2sess(dlg, tmp_path/'h.jsonl')
    assert not (tmp_path/'h.jsonl').exists()

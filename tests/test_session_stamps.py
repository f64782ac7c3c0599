"A session's reasoning state stamped at the first send (`_stamp_sess`) rather than at reading: the same digests reading would have taken, so `dlg2chat` sends what it sent when reading stamped them, after any edit; never more reasoning"
import json, tempfile
from pathlib import Path
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.chat import dlg2chat
from dialog.ipynb import read_ipynb
import dialog.session as S
from dialog.session import sess2dlg, read_records
from test_session_gen import claude_session, codex_session, session_text, small_claude, small_codex

def read_stamped(p):
    "Session `p` read with its digests taken at reading (as `sess2dlg` read before they were left to the first send)"
    rs,ls,eol = S._read_lines(p)
    A = S._agent(rs, p)
    if A is S.ClaudeCode and not any(map(A.is_prompt, rs)) and any(map(S.ClaudeSide.is_prompt, rs)): A = S.ClaudeSide
    return S._recs2dlg(rs, ls, eol, A, p, p.stem, Dialog, stamp=True)

def wires(d): return [r for m in d for r in (m.meta.get('dialog') or {}).get('wire', [])]

def test_read_leaves_the_digests_to_the_first_send(tmp_path):
    "Reading keeps the records undigested and marks the dialog; the first send stamps them (as reading did) and drops the mark; a dialog saved before it was sent is stamped once read back and sent"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(3)) + '\n')
    dlg,ref = sess2dlg(p),read_stamped(p)
    assert dlg.meta['dialog']['unstamped']=='session' and 'unstamped' not in ref.meta['dialog']
    assert wires(dlg) and not any('prefix' in r or 'own' in r for r in wires(dlg))
    dlg.save(tmp_path/'c.ipynb'); back = read_ipynb(tmp_path/'c.ipynb')
    for d in (dlg, back):
        assert dlg2chat(d, 'anthropic')==dlg2chat(ref, 'anthropic')
        assert wires(d)==wires(ref) and 'unstamped' not in d.meta['dialog']
    x = tmp_path/'x.jsonl'; x.write_text('\n'.join(small_codex(3)) + '\n')
    dx,rx = sess2dlg(x),read_stamped(x)
    assert dlg2chat(dx, 'responses')==dlg2chat(rx, 'responses') and wires(dx)==wires(rx)

def test_a_mark_naming_no_stamper_sends_no_reasoning(tmp_path):
    "A dialog marked unstamped by a reader this library doesn't know (or a mark of the wrong type) goes without reasoning state, as after an edit"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(2)) + '\n')
    for mark in ('nobody', ['session'], None):
        dlg = sess2dlg(p); dlg.meta['dialog']['unstamped'] = mark
        assert 'thinking' not in json.dumps(dlg2chat(dlg, 'anthropic')), mark
        assert 'unstamped' not in dlg.meta['dialog']

def test_a_record_edited_before_the_first_send_gets_no_digest(tmp_path):
    "A kept record changed in the metadata before the first send is not the one read: it gets no digest, and its reasoning (and every later one) doesn't go back"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(3)) + '\n')
    dlg = sess2dlg(p)
    r = dlg[1].meta['dialog']['wire'][0]
    r['msg']['content'][0]['signature'] = 'forged'
    sent = json.dumps(dlg2chat(dlg, 'anthropic'))
    assert 'prefix' not in r and 'forged' not in sent and sent.count('"type": "thinking"')==1  # the first message's alone

edits = st.lists(st.tuples(st.sampled_from(['prompt', 'reply', 'clear', 'note', 'move', 'new', 'delete', 'system', 'send',
                                            'renumber', 'undo']),
                           st.integers(0, 5), st.integers(0, 5)), max_size=3)

def renumber(d, m):
    "Delete message `m` and hand the ids down: each later message takes the id of the one before it (a tool renumbering cells)"
    ms = list(d.messages); ids,k = [x.id for x in ms],ms.index(m)
    d.remove_msgs([m])
    for i,x in enumerate(list(d.messages)[k:], k): x.id = ids[i]

def edit(d, ops):
    "Apply edits `ops` (by position, the same to any two dialogs read from one session) to `d`"
    for k,(op,i,j) in enumerate(ops):
        ps = list(d.messages)
        if op=='system': d.system = (d.system or '') + ' Be brief.'; continue
        if op=='send': dlg2chat(d, 'anthropic'); dlg2chat(d, 'responses'); continue
        if not ps: continue
        m = ps[i % len(ps)]
        if op=='prompt': m.content += ' (edited)'
        elif op=='reply': m.ai_res = m.ai_res + '\n\nAlso done.'
        elif op=='clear': m.ai_res = ''
        # a note is sent with its id: the same in both
        elif op=='note': d.mk_message('a note', idx=i % (len(ps)+1), msg_type='note', id=f'note{k}')
        elif op=='new': d.mk_message('another prompt', idx=i % (len(ps)+1), msg_type='prompt', id=f'new{k}')
        elif op=='delete': d.remove_msgs([m])
        elif op=='renumber': renumber(d, m)
        # deleted, a send (a preview), and put back where it was: the dialog as read again
        elif op=='undo': k = ps.index(m); d.remove_msgs([m]); dlg2chat(d, 'anthropic'); dlg2chat(d, 'responses'); d.insert_msgs([m], k)
        elif op=='move': d.remove_msgs([m]); d.insert_msgs([m], j % len(ps))

def state(sent):
    "The reasoning state in a list `dlg2chat` sent: Anthropic's thinking blocks, Responses' reasoning items"
    res = []
    for x in sent:
        if x.get('type')=='reasoning': res.append(json.dumps(x, sort_keys=True))
        elif isinstance(x.get('content'), list):
            res += [json.dumps(b, sort_keys=True) for b in x['content'] if isinstance(b, dict) and b.get('type') in ('thinking', 'redacted_thinking')]
    return res

# sessions of every shape (few of which send reasoning back), and sessions whose every prompt's reply holds reasoning
sessions = st.one_of(st.one_of(claude_session(), codex_session()).map(lambda rs: session_text(rs, [0]*len(rs))),
                     st.builds(lambda n, c: '\n'.join(small_claude(n) if c else small_codex(n)) + '\n', st.integers(1, 4), st.booleans()))

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions, edits)
def test_stamped_at_the_first_send_as_at_reading(txt, ops):
    "Whatever is edited before (or after) the first send, `dlg2chat` sends what it sends for the dialog stamped at reading: the same lists while every message read is still there; after a message read was deleted, never more reasoning state than it"
    fmt = 'responses' if '"session_meta"' in txt.split('\n')[0] else 'anthropic'
    with tempfile.TemporaryDirectory() as td:
        p = Path(td)/'s.jsonl'; p.write_text(txt)
        lazy,ref = sess2dlg(p),read_stamped(p)
    edit(lazy, ops); edit(ref, ops)
    gone = any(op in ('delete', 'renumber') for op,*_ in ops)
    for reasoning in (True, 'keep'):
        a,b = dlg2chat(lazy, fmt, reasoning=reasoning),dlg2chat(ref, fmt, reasoning=reasoning)
        if not gone: assert a==b, reasoning
        elif reasoning is True: assert state(a)==state(b)[:len(state(a))]
        else: assert state(a)==state(b)

def test_an_edit_before_the_first_send_sends_no_stale_state(tmp_path):
    "A prompt or a reply edited before the first send: the reasoning of the messages before it goes back, none of its own or after it (`reasoning=True`)"
    for agent,fmt,lines in (('claude', 'anthropic', small_claude(3)), ('codex', 'responses', small_codex(3))):
        p = tmp_path/f'{agent}.jsonl'; p.write_text('\n'.join(lines) + '\n')
        for k in range(3):
            for what in ('prompt', 'reply'):
                dlg = sess2dlg(p)
                # each message's reasoning state, as its records hold it
                own = [[x for r in wires([m]) for x in (state([r['msg']]) if fmt=='anthropic' else state(r['msg']['items']))] for m in dlg]
                if what=='prompt': dlg[k].content += ' (edited)'
                else: dlg[k].ai_res = dlg[k].ai_res.replace('pytest', 'py.test')  # its first round's call
                assert state(dlg2chat(dlg, fmt))==[s for o in own[:k] for s in o], (agent, k, what)

def test_a_session_read_a_prompt_at_a_time_is_stamped_so(tmp_path, monkeypatch):
    "A session whose conversation didn't read in one `chat2dlg` call (each prompt read alone) is stamped at the first send as it was read, a prompt at a time: the same digests"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(3)) + '\n')
    whole = S._read_whole
    monkeypatch.setattr(S, '_read_whole', lambda *a: None)
    dlg,ref = sess2dlg(p),read_stamped(p)
    assert dlg.meta['dialog']['session']['whole'] is False
    monkeypatch.setattr(S, '_read_whole', whole)  # stamping must not read it whole now
    assert dlg2chat(dlg, 'anthropic')==dlg2chat(ref, 'anthropic') and wires(dlg)==wires(ref)

def test_no_stamping_when_no_reasoning_is_sent(tmp_path):
    "`dlg2chat(..., reasoning=False)` reads no digest, so it takes none: the dialog stays marked for the first send that does"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(2)) + '\n')
    dlg = sess2dlg(p)
    dlg2chat(dlg, 'anthropic', reasoning=False)
    assert dlg.meta['dialog']['unstamped']=='session' and not any('own' in r for r in wires(dlg))
    assert state(dlg2chat(dlg, 'anthropic')) and 'unstamped' not in dlg.meta['dialog']

def test_odd_metadata_stamps_nothing_and_never_fails_a_send(tmp_path):
    "Session metadata a hand or a tool made odd (records of the wrong type, a record line that is no record, one nested past what json reads, a dialog key that is no dict) stamps nothing it can't read: the send still goes, without the reasoning it can't vouch for"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(2)) + '\n')
    def odd(d, k):
        if k==0: d[0].meta['dialog']['session']['records'] = 'x'
        elif k==1: d[0].meta['dialog']['session']['records'][0] = '[1, 2]'
        elif k==2: d[0].meta['dialog']['session']['records'][0] = '[' * 100000
        elif k==3: d.meta['dialog']['session']['head'] = [3]
        elif k==4: d[1].meta['dialog'] = ['no dict']
        elif k==5: d.meta['dialog']['session']['msgs'] = [['unhashable']]
    for k in range(6):
        dlg = sess2dlg(p); odd(dlg, k)
        # a message whose records are odd is not one read (the mark stays for it, see the undone delete), or no stamps
        for _ in range(2): assert len(state(dlg2chat(dlg, 'anthropic')))<=2, k
        assert ('unstamped' in dlg.meta['dialog'])==(k in (0, 1, 2, 4)), k

def both(tmp_path, n=3):
    "A Claude Code transcript and a Codex rollout of `n` prompts each, with the format each goes back in"
    for agent,fmt,lines in (('claude', 'anthropic', small_claude(n)), ('codex', 'responses', small_codex(n))):
        p = tmp_path/f'{agent}.jsonl'; p.write_text('\n'.join(lines) + '\n')
        yield p,fmt

def test_a_deleted_message_is_seen_whatever_the_ids(tmp_path):
    "A message deleted before the first send and the later ids handed down: the messages read are found by their records, not their ids, so the deletion is seen and no reasoning made after it goes back"
    for p,fmt in both(tmp_path):
        for k in range(2):
            lazy,ref = sess2dlg(p),read_stamped(p)
            ids = [m.id for m in lazy]
            renumber(lazy, lazy[k]); renumber(ref, ref[k])
            assert [m.id for m in lazy]==ids[:2]
            assert state(dlg2chat(lazy, fmt))==state(dlg2chat(ref, fmt))==state(dlg2chat(ref, fmt))[:k], (p.stem, k)
            assert state(dlg2chat(lazy, fmt, reasoning='keep'))==state(dlg2chat(ref, fmt, reasoning='keep'))

def test_metadata_listing_a_message_many_times_costs_nothing(tmp_path, monkeypatch):
    "Ids or keys listed many times (a notebook merged badly, or someone else's) are not what a reader writes: no stamps, and no record read again; a message pasted many times is read again once"
    p = tmp_path/'c.jsonl'; p.write_text('\n'.join(small_claude(1)) + '\n')
    seen,real = [],S._recs2dlg
    monkeypatch.setattr(S, '_recs2dlg', lambda recs, *a, **kw: seen.append(len(recs)) or real(recs, *a, **kw))
    for key in ('msgs', 'keys'):
        d = sess2dlg(p); s = d.meta['dialog']['session']; s[key] = s[key] * 4000
        d.save(tmp_path/f'{key}.ipynb'); back = read_ipynb(tmp_path/f'{key}.ipynb'); seen.clear()
        assert not state(dlg2chat(back, 'anthropic')) and not seen and 'unstamped' not in back.meta['dialog']
    d = sess2dlg(p); held = len(d.meta['dialog']['session']['head']) + len(d[0].meta['dialog']['session']['records'])
    for i in range(50): d.mk_messages([d[0]], after=d[0])  # pasted copies: the same records
    seen.clear(); dlg2chat(d, 'anthropic')
    assert seen==[held]

def test_the_source_path_is_never_read_again(tmp_path):
    "The stamper needs no path: a source removed, None, or under a symlink loop sends what stamping at reading sends, and never fails the send"
    (tmp_path/'a').symlink_to('b'); (tmp_path/'b').symlink_to('a')
    for p,fmt in both(tmp_path):
        want = dlg2chat(read_stamped(p), fmt)
        for src in ('removed', None, str(tmp_path/'a'/'s.jsonl')):
            d = sess2dlg(p); s = d.meta['dialog']['session']
            if src=='removed': del s['source']
            else: s['source'] = src
            assert dlg2chat(d, fmt)==want and state(want), (p.stem, src)

def rereads(monkeypatch):
    "The records the stamper reads again, a list a call (spying on `_recs2dlg` with `stamp=True`)"
    calls,real = [],S._recs2dlg
    def spy(rs, *a, **kw):
        if (a[6] if len(a)>6 else kw.get('stamp')) is True: calls.append(len(rs))
        return real(rs, *a, **kw)
    monkeypatch.setattr(S, '_recs2dlg', spy)
    return calls

def test_a_message_put_back_gets_its_reasoning_back(tmp_path, monkeypatch):
    "A message removed, a send, and the message put back: the mark stays while a message read is missing, so the dialog as read again sends what stamping at reading sends; while the same ones are missing, a send reads nothing again"
    for p,fmt in both(tmp_path):
        want = state(dlg2chat(read_stamped(p), fmt))
        d = sess2dlg(p); m = d[1]
        d.remove_msgs([m]); assert state(dlg2chat(d, fmt))==want[:1]
        assert d.meta['dialog']['unstamped']=='session'
        calls = rereads(monkeypatch)
        assert state(dlg2chat(d, fmt))==want[:1] and not calls
        d.insert_msgs([m], 1)
        assert state(dlg2chat(d, fmt))==want and len(calls)==1 and 'unstamped' not in d.meta['dialog']
        monkeypatch.undo()

def test_no_stamping_for_a_format_the_records_never_go_back_to(tmp_path, monkeypatch):
    "A send in a format the kept records don't go back in (OpenAI or Gemini, or the other agent's) stamps nothing and keeps the mark for the first one that does"
    calls = rereads(monkeypatch)
    for p,fmt in both(tmp_path):
        d,ref = sess2dlg(p),read_stamped(p); calls.clear()  # reading stamped reads once
        for other in ('openai', 'gemini', 'anthropic', 'responses'):
            if other==fmt: continue
            assert dlg2chat(d, other)==dlg2chat(ref, other) and not calls and d.meta['dialog']['unstamped']=='session'
        assert dlg2chat(d, fmt)==dlg2chat(ref, fmt) and len(calls)==1; calls.clear()

def test_a_dialog_marked_without_keys_stamps_nothing(tmp_path):
    "A dialog marked before the reader wrote each message's key (or with its keys removed) can't tell a deleted message from a renumbered one: nothing is stamped, and no reasoning goes back"
    for p,fmt in both(tmp_path):
        d = sess2dlg(p); del d.meta['dialog']['session']['keys']
        assert not state(dlg2chat(d, fmt)) and 'unstamped' not in d.meta['dialog']

def test_a_message_pasted_from_another_reading_is_not_the_one_read(tmp_path):
    "A message pasted from an older reading of the session (its first record line the same, but its reply edited and written back since, as the one before it) is not the message this reading read: the reasoning it holds, made after the reply as it was, doesn't go back after the edited one"
    for p,fmt in both(tmp_path):
        old,ed = sess2dlg(p),sess2dlg(p)
        for m in ed: m.ai_res = m.ai_res.replace('pytest', 'py.test')  # each reply's call
        q = S.dlg2sess(ed, tmp_path/f'{p.stem}-edited.jsonl')
        lazy,ref = sess2dlg(q),read_stamped(q)
        for d in (lazy, ref): d.remove_msgs([d[1]]); d.mk_messages([old[1]], after=d[0])
        assert lazy[1].meta['dialog']['session']['records'][0]==ed[1].meta['dialog']['session']['records'][0]
        assert state(dlg2chat(lazy, fmt))==state(dlg2chat(ref, fmt)), p.stem

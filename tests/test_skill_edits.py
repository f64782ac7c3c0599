"dialog.skill's editors: line endings kept by exhash, one range rule for the two line views, edits that say whether they changed the text, core's type check, tool schemas from annotations"
import ast, collections, inspect, json, re, unicodedata
from pathlib import Path
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from fastcore.docments import docments
from fastcore.tools import lnhash
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk
from dialog.view import find_pattern, match_line, text_lines

# --- exhash keeps the line endings it didn't edit

_line = st.text(st.sampled_from('ab \t#x\r'), max_size=6).filter(lambda s: not s.endswith('\r'))  # a lone CR inside a line; not before its newline (that would make it CRLF)
_eol = st.sampled_from(['\n', '\r\n'])

def _parts(txt):
    "`txt` as (line, ending) pairs, the lines exhash counts (a CR before a newline belongs to the ending)"
    return [(m[1], m[2]) for m in re.finditer(r'([^\n]*?)(\r\n|\n|$)', txt) if m[0]][:len(text_lines(txt))]

@st.composite
def _texts(draw):
    ls = draw(st.lists(st.tuples(_line, _eol), min_size=1, max_size=8))
    txt = ''.join(l+e for l,e in ls)
    return txt if draw(st.booleans()) else txt[:-len(ls[-1][1])]  # with or without a final line ending

@given(_texts(), st.data())
@settings(max_examples=300, deadline=None)
def test_exhash_keeps_every_line_ending_it_did_not_edit(txt, data):
    ps = _parts(txt)
    assume(ps)
    n = len(ps)
    i = data.draw(st.integers(1, n), label='line')
    op = data.draw(st.sampled_from(['s', 'c', 'd', 'a', 'i']), label='op')
    new = data.draw(st.text(st.sampled_from('xyz'), min_size=1, max_size=3), label='new')
    addr = lnhash(i, ps[i-1][0])
    cmd = {'s': (addr, 's', '$', new), 'c': (addr, 'c', new), 'd': (addr, 'd'), 'a': (addr, 'a', new), 'i': (addr, 'i', new)}[op]
    m = Message(txt)
    r = m.exhash([cmd])
    assert not r.startswith('error:'), r
    got = m.content
    exp_lines = {'s': lambda ls: ls[:i-1]+[ls[i-1]+new]+ls[i:], 'c': lambda ls: ls[:i-1]+[new]+ls[i:], 'd': lambda ls: ls[:i-1]+ls[i:],
                 'a': lambda ls: ls[:i]+[new]+ls[i:], 'i': lambda ls: ls[:i-1]+[new]+ls[i-1:]}[op]([l for l,_ in ps])
    assert [l for l,_ in _parts(got)]==exp_lines  # the edit is exhash's
    # every line the edit didn't touch is there byte for byte, with its ending; only the last line may gain one (something now follows it)
    keep = [j for j in range(n) if j!=i-1 or op in 'ai']
    after = _parts(got)
    pos = {j: j if op not in 'dai' or j<i-1 or (op=='a' and j==i-1) else j-1 if op=='d' else j+1 for j in keep}
    for j in keep:
        l,e = ps[j]
        gl,ge = after[pos[j]]
        assert gl==l
        if pos[j]<len(after)-1 and e: assert ge==e, (j, txt, got)
        elif e and ge: assert ge==e, (j, txt, got)  # the last line keeps its own ending
    if after and after[-1][0]: assert got.endswith('\n')==txt.endswith('\n')  # a final line ending stays, or stays away (an empty last line needs one to be a line)

def test_exhash_keeps_crlf_and_lone_cr():
    m = Message('a\r\nb\nc\rd\r\n')
    assert m.exhash([(lnhash(2, 'b'), 's', 'b', 'B')]).startswith('--- original')
    assert m.content=='a\r\nB\nc\rd\r\n'
    m = Message('one\r\ntwo\r\n')
    m.exhash([(lnhash(1, 'one'), 'a', 'new')])
    assert m.content=='one\r\nnew\r\ntwo\r\n'  # an inserted line takes the ending of the line before it

def test_msg_exhash_keeps_crlf_in_the_file(tmp_path):
    d = Dialog('t'); d.mk_message('x = 1\r\ny = 2\r\nz = 3', id='m0'); p = d.save(tmp_path/'t.ipynb')
    r = sk.msg_exhash('m0', [(lnhash(2, 'y = 2'), 'c', 'y = 20')], dlg=p)
    assert r.changed and read_ipynb(p)['m0'].content=='x = 1\r\ny = 20\r\nz = 3'

# --- one range rule for Message.view and lnhashview

_rng = st.one_of(st.none(), st.integers(-2, 12), st.booleans(), st.sampled_from(['1', 1.0]))

def _outcome(f):
    try: return 'ok', f()
    except ValueError as e: return 'error', str(e)

@given(st.text(st.sampled_from('ab\n\r'), max_size=12), st.one_of(st.integers(-2, 12), st.booleans(), st.sampled_from(['1', 1.0])), _rng)
@settings(max_examples=400, deadline=None)
def test_view_and_lnhashview_accept_the_same_ranges(txt, s, e):
    "`view` and `lnhashview` count the same lines (`text_lines`: a final newline ends the last line rather than starting one), so they accept the same ranges, refuse the others with the same error, and number the same lines"
    m = Message(txt, id='m0')
    a,b = _outcome(lambda: m.view(True, s, e)),_outcome(lambda: m.lnhashview(s, e))
    assert a[0]==b[0], (a, b)
    if a[0]=='error': assert a[1]==b[1], (a, b)
    else: assert [int(l.split('│')[0]) for l in a[1].split('\n') if l] == [int(l.split('|')[0]) for l in b[1].split('\n') if l]

def test_lnhashview_range_errors():
    m = Message('a\nb', id='m0')
    with pytest.raises(ValueError, match='no lines 2 to 1'): m.lnhashview(2, 1)
    with pytest.raises(ValueError, match='start_line must be a whole number'): m.lnhashview('1')
    with pytest.raises(ValueError, match='has 2 lines: no lines 3 to end'): m.lnhashview(3)
    assert str(Message('').lnhashview())==''

# --- edits say whether they changed the text, not a guess from their report

def test_an_edit_that_only_changes_line_endings_is_saved(tmp_path):
    d = Dialog('t'); d.mk_message('a\nb', id='m0'); d.mk_message('c', id='m1'); p = d.save(tmp_path/'t.ipynb')
    r = sk.msg_str_replace('m0', 'b', 'b\n', dlg=p)  # `str_diff` compares lines: it sees no change here
    assert r.changed and read_ipynb(p)['m0'].content=='a\nb\n'
    assert r!='none: No changes.'
    r = sk.msg_str_replace('all', 'a\n', 'a\r\n', dlg=p)  # m1 has none: 'all' edits those it can
    assert r.changed and read_ipynb(p)['m0'].content=='a\r\nb\n'
    r = sk.msg_str_replace('m1', 'c', 'c', dlg=p)
    assert not r.changed and r=='none: No changes.'

def test_a_report_that_reads_like_no_change_is_still_saved(tmp_path):
    "A line 'none: No changes.' in a prompt's reply makes a diff whose text starts like 'no change'"
    d = Dialog('t'); d.mk_message('Q', msg_type=sprompt, output='x', id='p0'); p = d.save(tmp_path/'t.ipynb')
    m = read_ipynb(p)['p0']
    r = m.exhash([('0|AA|', 'a', 'none: No changes.')], out=True)
    assert r.changed and not r.error
    r = sk.msg_exhash('p0', [(lnhash(1, 'x'), 'p')], out=True, dlg=p)  # printing changes nothing
    assert not r.changed and r.startswith('# printed')
    r = sk.msg_exhash('p0', [(lnhash(1, 'x'), 'd')], out=True, dlg=p)
    assert r.changed and read_ipynb(p)['p0'].ai_res==''

def test_an_error_report_is_flagged():
    m = Message('a')
    r = m.str_replace('zz', 'y')
    assert r.error and not r.changed and r.startswith('error:')
    r = m.exhash([('1|zz|', 'd')])
    assert r.error and not r.changed

# --- core's msg_type check, the same from the skill

_bad_types = ['Code', 'cell', '', 'markdown', 3, ['code'], ('code',), {'code': 1}]

@pytest.mark.parametrize('bad', _bad_types)
def test_skill_rejects_bad_types_as_core_does(tmp_path, bad):
    d = Dialog('t'); d.mk_message('x', id='m0'); p = d.save(tmp_path/'t.ipynb')
    before = p.read_bytes()
    with pytest.raises(ValueError) as core_add: Dialog('u').mk_message('y', msg_type=bad)
    with pytest.raises(ValueError) as skill_add: sk.add_msg('y', bad, dlg=p)
    assert str(skill_add.value)==str(core_add.value)
    m = read_ipynb(p)['m0']
    with pytest.raises(ValueError) as core_set: m.msg_type = bad
    with pytest.raises(ValueError) as skill_set: sk.update_msg('m0', msg_type=bad, dlg=p)
    assert str(skill_set.value)==str(core_set.value)
    assert p.read_bytes()==before

# --- tool schemas come from annotations and docments

def test_tool_schemas_say_what_each_parameter_takes():
    ids_like = {'anyOf': [{'type': 'string'}, {'type': 'array', 'items': {'type': 'string'}}]}
    pair = {'type': 'array', 'prefixItems': [{'type': 'string'}, {'type': 'string'}], 'items': {'type': 'string'}, 'minItems': 2, 'maxItems': 2}
    special = dict(ids=ids_like, linenos={'anyOf': [{'type': 'integer'}, {'type': 'array', 'items': {'type': 'integer'}}]},
                   cmds={'type': 'array', 'items': {'type': 'array', 'items': {}}, 'maxItems': 1000}, repls={'type': 'array', 'items': pair})
    for f in sk.skill_tools:
        for pname in ('input_schema', 'parameters', 'inputSchema'):
          for cur in (False, True):
            s = sk.tool_schema(f, pname, cur)
            assert s['name']==f.__name__ and s['description']==f.__doc__
            ps,sig,ds = s[pname]['properties'],inspect.signature(f).parameters,docments(f)
            assert set(ps)==set(sig)-{'pred'}, f.__name__  # a Python predicate can't come from JSON
            need_dlg = ['dlg'] if 'dlg' in sig and not cur else []  # with no current dialog (the MCP server has none), `dlg` is needed
            assert s[pname].get('required', [])==[k for k,v in sig.items() if v.default is inspect.Parameter.empty]+need_dlg
            for k,v in ps.items():
                if k=='dlg' and need_dlg:
                    assert v=={'description': sk._dlg_doc, 'type': 'string'}; continue
                assert v['description']==sk._in_json(ds[k]) and v['description'], (f.__name__, k)  # (null, not None)
                typ = {kk:vv for kk,vv in v.items() if kk not in ('description', 'default')}
                if k in special: assert typ==special[k], (f.__name__, k, typ)
                elif k=='id' and f.__name__.startswith('msg_') and f is not sk.msg_exhash: assert typ==ids_like, (f.__name__, typ)
                elif k in ('old_strs', 'new_strs'): assert typ=={'type': 'array', 'items': {'type': 'string'}}, (f.__name__, k)
                else:
                    t = {str: 'string', int: 'integer', bool: 'boolean', dict: 'object'}[sig[k].annotation]
                    assert typ=={'type': [t, 'null'] if sig[k].default is None else t}, (f.__name__, k, typ)  # null taken: the type says so
                if sig[k].default is not inspect.Parameter.empty: assert v['default']==sig[k].default

def test_a_renamed_tool_keeps_its_schema():
    for f in (sk.msg_str_replace, sk.view_msgs, sk.split_msg, sk.msg_exhash, sk.find_msgs):
        s = sk.tool_schema(f)
        g = sk._file_editor('str_replace') if f is sk.msg_str_replace else f
        old = g.__name__
        try:
            g.__name__ = 'renamed'
            r = sk.tool_schema(g)
        finally: g.__name__ = old
        assert r['name']=='renamed' and r['input_schema']==s['input_schema'], f.__name__

# --- one line rule for the views and every editor that takes line numbers

_piece = st.text(st.sampled_from('ab \x0c\u2028\x85\r\x1c'), max_size=4).filter(lambda s: not s.endswith('\r'))  # other breaks inside a line; a CR not before a LF

@st.composite
def _mixed(draw):
    ls = draw(st.lists(st.tuples(_piece, st.sampled_from(['\n', '\r\n'])), min_size=1, max_size=6))
    txt = ''.join(l+e for l,e in ls)
    return txt if draw(st.booleans()) else txt[:-len(ls[-1][1])]

@given(_mixed(), st.data())
@settings(max_examples=300, deadline=None)
def test_editors_count_lines_as_the_views_show_them(txt, data):
    "`view` numbers the lines, `text_lines` is the rule; the editors that take line numbers edit exactly the line the view shows under that number, and keep every other character"
    lines = text_lines(txt)
    assume(lines)
    k = data.draw(st.integers(1, len(lines)), label='line')
    m = Message(txt)
    assert m.view(nums=False).split('\n')[k-1]==lines[k-1]  # (the view shows the line as is)
    assert m.lnhashview(k, k)==lnhash(k, lines[k-1])+lines[k-1]
    r = Message(txt); r.replace_lines(k, k, 'NEW')
    assert text_lines(r.content)==lines[:k-1]+['NEW']+lines[k:]
    d = Message(txt); d.del_lines(k, k)
    assert text_lines(d.content)==lines[:k-1]+lines[k:]
    s = Message(txt); s.str_replace('^', '@', start_line=k, end_line=k, n_matches=1, use_regex=True)  # '^' matches at the line's start
    assert text_lines(s.content)==lines[:k-1]+['@'+lines[k-1]]+lines[k:]
    ss = Message(txt); ss.strs_replace(['^'], ['@'], start_line=k, end_line=k, n_matches=1, use_regex=True)
    assert ss.content==s.content
    s2 = Message(txt); s2.strs_replace(['^', '^'], ['@', '#'], start_line=k, end_line=k, n_matches=1, use_regex=True)  # a second pair too
    assert text_lines(s2.content)==lines[:k-1]+['#@'+lines[k-1]]+lines[k:]
    i = Message(txt); i.insert_line(k, 'INS')
    assert text_lines(i.content)==lines[:k]+['INS']+lines[k:]

def test_str_replace_in_a_line_range_counts_lines_as_the_view_does():
    m = Message('a\u2028b\nc\x0cd\re\nf')  # three lines for the view: a U+2028, a form feed and a lone CR end none
    assert m.view(nums=False)=='a\u2028b\nc\x0cd\re\nf'
    r = m.str_replace('d', 'D', start_line=2, end_line=2)
    assert not r.error and m.content=='a\u2028b\nc\x0cD\re\nf'

@pytest.mark.parametrize('br', ['\u2028', '\r', '\x0c', '\x85'])
def test_every_pair_of_strs_replace_counts_lines_as_the_view_does(br):
    "msg_strs_replace in a line range: the second pair edits the same view line as the first, not one a U+2028 or lone CR splits off"
    m = Message(f'a = 1{br}b = 1\nx = 1\ny = 1\n')
    r = m.strs_replace(['x', '1'], ['X', '9'], start_line=2, end_line=2)
    assert not r.error and m.content==f'a = 1{br}b = 1\nX = 9\ny = 1\n'
    r = m.strs_replace(['X', 'b'], ['x', 'B'], start_line=2, end_line=2)  # `b` is on line 1 as the view shows it: refused, nothing changed
    assert r.error and m.content==f'a = 1{br}b = 1\nX = 9\ny = 1\n'

# --- replace_lines adds no line end the text didn't have, and writes the text's own

@pytest.mark.parametrize('txt,args,want', [
    ('a\nb', (2, 2, 'X'), 'a\nX'),  # the last line had no line end: the new one gets none
    ('a\nb', (None, None, 'X'), 'X'),
    ('a\nb\n', (2, 2, 'X'), 'a\nX\n'),
    ('a\r\nb\r\n', (1, 1, 'X'), 'X\r\nb\r\n'),  # CR LF text keeps CR LF
    ('a\r\nb', (1, 2, 'X'), 'X'),
    ('a\r\nb\r\nc', (2, 2, 'X\nY'), 'a\r\nX\r\nY\r\nc'),  # the lines added end as the text's do (JSON's `\n` can't say CR LF)
    ('a\nb\nc', (2, 2, 'X\r\nY'), 'a\nX\r\nY\nc'),  # a CR the caller sent is their own choice: written as sent
    ('a\nb', (1, 1, ''), 'b'),
])
def test_replace_lines_line_ends(txt, args, want):
    m = Message(txt)
    m.replace_lines(*args)
    assert m.content==want

def test_the_diff_shows_a_final_line_end_or_a_line_end_change():
    m = Message('a\nb', id='m')
    r = m.replace_lines(2, 2, 'X\n')  # asked for: a final line end
    assert m.content=='a\nX\n' and r.startswith('# line endings spelled out\n') and '+X\\n' in r
    m = Message('a\r\nb\r\n', id='m')
    r = m.str_replace('a\r\n', 'A\n')
    assert m.content=='A\nb\r\n' and '-a\\r\\n' in r and '+A\\n' in r
    m = Message('a\nb\n', id='m')
    assert m.str_replace('a', 'A')=='@@ -1,2 +1,2 @@\n-a\n+A\n b'  # nothing to spell out: the plain diff

# --- structure

def test_split_of_crlf_text_leaves_no_lone_cr(tmp_path):
    m = Message('x\r\ny\r\nz\r\n')
    ps = m.split(2, 3)
    assert [p.content for p in ps]==['x', 'y', 'z\r\n'] and not any(re.search('\r(?!\n)', p.content) for p in ps)
    m = Message('a\r\n\r\nb\r\n\r\nc')  # a blank line at each cut is absorbed, as for LF text
    assert [p.content for p in m.split(3, 5)]==['a', 'b', 'c']

def test_split_of_a_crlf_exported_message_exports_every_piece():
    "A CR LF directive line is an export: each piece gets the directive, ended as its own lines are"
    ps = Message('#| export\r\nx = 1\r\n\r\ny = 2\r\n').split(4)
    assert [p.content for p in ps]==['#| export\r\nx = 1', '#| export\r\ny = 2\r\n'] and all(p.exported for p in ps)

class _HostMsg(Message): meta_attrs = dict(tag='host_tag', pinned='pinned')
class _HostDialog(Dialog): msg_cls = _HostMsg

def test_split_and_merge_keep_a_hosts_promoted_metadata(tmp_path):
    "A host's `meta_attrs` attributes are metadata to split and merge: every piece keeps them, a merge combines them, the file holds them"
    d = _HostDialog('h'); m = d.mk_message('l1\nl2\nl3', meta=dict(host_tag='x', pinned=True, other=1))
    ps = m.split(2, 3)
    assert [(p.tag, p.pinned, p.meta) for p in ps] == [('x', True, dict(other=1))]*3
    d = _HostDialog('m'); a = d.mk_message('a', meta=dict(other=1)); b = d.mk_message('b', meta=dict(host_tag='T', pinned=True, other=2))
    r = d.merge_msgs(a.id, b.id)
    assert (r.tag, r.pinned, r.meta) == ('T', True, dict(other=1))  # the first to have a key wins it, promoted or not
    d.save(p := tmp_path/'m.ipynb')
    assert read_ipynb(p)[0].meta == dict(other=1, host_tag='T', pinned=True)
    d = _HostDialog('k'); a = d.mk_message('a', meta=dict(host_tag='A')); b = d.mk_message('b', meta=dict(host_tag='B', pinned=True))
    r = d.merge_msgs(a.id, b.id)
    assert (r.tag, r.pinned) == ('A', True)

def _dlg(path):
    d = Dialog('t')
    d.mk_message('1+1', id='c1', output=code_output('2'))
    d.mk_message('q1', msg_type=sprompt, output='r1', id='p1')
    d.mk_message('q2', msg_type=sprompt, output='r2', id='p2')
    d.mk_message('note', msg_type=snote, id='n1')
    d.save(path)
    return path

def test_update_msg_type_changes_drop_outputs_and_say_so(tmp_path):
    p = _dlg(tmp_path/'d.ipynb')
    r = sk.update_msg('c1', msg_type='note', dlg=p)
    assert not r.error and '# 1 output(s) dropped: a note message has none' in r
    m = read_ipynb(p)['c1']
    assert m.msg_type==snote and not m.output
    p = _dlg(tmp_path/'e.ipynb')
    assert 'output(s) dropped' in sk.update_msg('c1', msg_type='prompt', dlg=p)
    assert not read_ipynb(p)['c1'].output  # no reply
    sk.update_msg('c1', msg_type='code', dlg=p)
    assert read_ipynb(p)['c1'].output==[]  # the old outputs don't come back
    assert 'the reply dropped' in sk.update_msg('p1', msg_type='code', dlg=p)
    assert read_ipynb(p)['p1'].output==[]

def _ran(path):
    "A dialog of two run code messages, one that printed and one that didn't, and a note"
    d = Dialog('t')
    d.mk_message('print(1)', id='ran1', output=[dict(output_type='stream', name='stdout', text='1\n')], execution_count=5)
    d.mk_message('x = 1', id='ran2', execution_count=7)
    d.mk_message('prose', msg_type=snote, id='n1')
    d.save(path)
    return path

@pytest.mark.parametrize('t', [snote, sraw, sprompt])
def test_a_run_code_message_changes_type_and_its_execution_count_goes(tmp_path, t):
    p = _ran(tmp_path/'d.ipynb')
    for i in ('ran1', 'ran2'):
        r = sk.update_msg(i, msg_type=t, dlg=p)
        assert not r.error, r
        m = read_ipynb(p)[i]
        assert (m.msg_type, m.execution_count) == (t, None) and not m.output
        sk.update_msg(i, msg_type='code', dlg=p)
        assert (read_ipynb(p)[i].output, read_ipynb(p)[i].execution_count)==([], None)  # nothing comes back

def test_merging_a_run_code_message_with_a_note(tmp_path):
    p = _ran(tmp_path/'d.ipynb')
    m = sk.merge_msgs(['ran1', 'n1'], dlg=p)
    m = read_ipynb(p)['ran1']
    assert (m.msg_type, m.content, m.execution_count)==(snote, '```python\nprint(1)\n```\n\nprose', None) and not m.output
    p = _ran(tmp_path/'e.ipynb')
    sk.merge_msgs(['ran1', 'ran2'], dlg=p)
    m = read_ipynb(p)['ran1']
    assert (m.msg_type, m.output, m.execution_count)==(scode, [], None)  # the merged text never ran as one

@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(['a = 1', '#| export', '#| hide', 'b', '']), min_size=1, max_size=3), min_size=2, max_size=4),
       st.sampled_from(['\n', '\r\n']), st.sampled_from([scode, sprompt, snote]), st.sampled_from([None, snote]))
def test_a_merge_ends_the_lines_it_adds_as_its_parts_do(parts, eol, typ, t):
    "merge_msgs (merge_parts, merge_content, the replies): every line it adds ends as its parts' lines do, CR LF or LF"
    assume(any(len(p)>1 for p in parts))  # (a text with no line end yet says nothing of its line ends)
    d = Dialog('m')
    ms = [d.mk_message(eol.join(p), msg_type=typ, **(dict(output=eol.join(p)) if typ==sprompt else {})) for p in parts]
    assert set(re.findall(r'\r?\n', merge_parts(ms, t or typ)[0])) <= {eol}  # (a note: code fenced, prompts headed)
    m = d.merge_msgs(*[m.id for m in ms])
    assert set(re.findall(r'\r?\n', m.content + (m.ai_res or ''))) <= {eol}, (m.content, m.ai_res)

def test_merging_crlf_messages_in_a_file_writes_crlf(tmp_path):
    d = Dialog('t')
    d.mk_message('#| export\r\na = 1\r\n', id='c1'); d.mk_message('b = 2\r\nc = 3', id='c2')
    d.save(tmp_path/'d.ipynb')
    sk.merge_msgs(['c1', 'c2'], dlg=tmp_path/'d.ipynb')
    assert read_ipynb(tmp_path/'d.ipynb')['c1'].content=='#| export\r\na = 1\r\n\r\n\r\nb = 2\r\nc = 3'

_outs = st.sampled_from([None, [], [dict(output_type='stream', name='stdout', text='1\n')], 'a reply'])

@given(st.sampled_from(smsg_types), st.sampled_from(smsg_types), _outs, st.sampled_from([None, 3]))
@settings(suppress_health_check=[HealthCheck.filter_too_much])  # (most drawn combinations are ones no message holds)
def test_retype_makes_a_message_the_new_type_can_hold(old, t, out, n):
    "Whatever a message ran or held, `Message.retype` (the rule update_msg, merge_msgs and the CLI share) leaves one that writes"
    assume((old==scode)==(not isinstance(out, str)) and (old in (scode, sprompt) or (not out and n is None)))
    m = Message('x', msg_type=old, output=out or ('' if old!=scode else []), execution_count=n)
    had = m.output
    dropped = m.retype(t)
    m.to_cell()  # core's writer refuses what a type can't carry
    assert m.content=='x' and m.msg_type==t
    if t==old: assert (m.output, m.execution_count, dropped)==(had, n, '')
    else: assert not m.output and m.execution_count is None and dropped==had

def test_merging_prompts_keeps_every_reply(tmp_path):
    p = _dlg(tmp_path/'d.ipynb')
    m = sk.merge_msgs(['p1', 'p2'], dlg=p)
    d = read_ipynb(p)
    assert d['p1'].content=='q1\n\nq2' and d['p1'].ai_res=='r1\n\nr2' and 'p2' not in d.messages

def test_add_msg_to_another_dialog_ignores_this_dialogs_current_message(tmp_path):
    a,b = _dlg(tmp_path/'a.ipynb'),_dlg(tmp_path/'b.ipynb')  # the same ids
    old = dict(vars(sk._user))
    try:
        sk.set_dlg(a); sk.set_cur_msg('c1')
        sk.add_msg('other', id='new', dlg=b)
        assert read_ipynb(b).messages[-1].id=='new'  # at the end of b, not after b's c1
        sk.add_msg('here', id='new2', dlg=a)
        assert read_ipynb(a).messages[1].id=='new2'  # after the current message of the current dialog
        sk.add_msg('here too', id='new3')
        assert read_ipynb(a).messages[1].id=='new3'
    finally: vars(sk._user).update(old)

@pytest.mark.parametrize('t', ['note', 'prompt', 'raw'])
def test_export_is_for_code_only(tmp_path, t):
    p = _dlg(tmp_path/'d.ipynb')
    before = p.read_bytes()
    with pytest.raises(ValueError, match='export=True is for code messages'): sk.add_msg('prose', msg_type=t, export=True, dlg=p)
    with pytest.raises(ValueError, match='export=True is for code messages'): sk.update_msg('n1', export=True, dlg=p)
    with pytest.raises(ValueError, match='export=True is for code messages'): sk.update_msg('c1', msg_type=t, export=True, dlg=p)
    assert p.read_bytes()==before
    sk.add_msg('x = 1', export=True, id='e1', dlg=p)
    assert read_ipynb(p)['e1'].content=='#| export\nx = 1'

def test_update_msg_judges_a_change_on_the_message_not_the_view(tmp_path, monkeypatch):
    "A change the XML view can't show is still made and reported; an edit that changes nothing says so"
    p = tmp_path/'d.ipynb'
    Dialog('t', [Message('#| EXPORT\nx = 1', id='e1'), Message('#| export\ny = 2', id='e2')]).save(p)
    monkeypatch.setattr(Message, 'to_xml', lambda self, *a, **kw: f'<code id="{self.id}"/>')  # a view that shows no directive
    r = sk.update_msg('e1', export=True, dlg=p)
    assert r.changed and '+<code id="e1">#| export' in r and read_ipynb(p)['e1'].content=='#| export\n#| EXPORT\nx = 1'
    before = p.read_bytes()
    r = sk.update_msg('e2', export=True, dlg=p)
    assert not r.changed and r=='none: No changes.' and p.read_bytes()==before
    r = sk.update_msg('e2', export=False, dlg=p)
    assert r.changed and read_ipynb(p)['e2'].content=='y = 2'

@pytest.mark.parametrize('start', ['a\nb\nc\n', 'a\r\nb\r\n', 'a'])
def test_update_msgs_diff_numbers_lines_as_view_msg(tmp_path, start):
    "r15b: update_msg(export=True)'s diff puts the directive on line 1 and the first line on line 2, as view_msg and the line editors count them; CR LF lines are diffed as every edit's are (no `&#13;`, nothing spelled out)"
    p = tmp_path/'d.ipynb'; Dialog('d', [Message(start, id='m1')]).save(p)
    r = sk.update_msg('m1', dlg=p, export=True)
    view = dict(re.findall(r'^ *(\d+) │ (.*)$', str(sk.view_msg('m1', dlg=p)), re.M))
    assert view['1']=='#| export' and view['2']=='a'
    h = re.search(r'^@@ -1(?:,\d+)? \+1(?:,\d+)? @@\n', r, re.M)
    assert h and r[h.end():].startswith('-<code id="m1">a') and '+<code id="m1">#| export\n+a' in r, r
    assert '&#13;' not in r and 'spelled out' not in r, r

@pytest.mark.parametrize('content', ['print(1)\n</code>\nmeta: {}\n<code id="m2">print(2)', 'x\n# msg m2\n@@ -1 +1 @@\nmeta: {}'])
def test_update_msgs_diff_names_the_message_it_changed(tmp_path, content):
    "r16: update_msg's answer starts with `# msg ID` (as the editors head each of several messages), so content holding `</code>`, `meta: {}` and another message's tag (or such a header) can't make the diff read as another message's change; the diff's lines stay numbered as view_msg numbers them"
    p = tmp_path/'d.ipynb'
    Dialog('d', [Message(content, id='m1'), Message('print(2)', id='m2')]).save(p)
    r = str(sk.update_msg('m1', skipped=True, dlg=p))
    rows = r.split('\n')
    assert rows[0]=='# msg m1' and not any(x.startswith('# msg') for x in rows[1:]), r
    n = len(text_lines(content))
    assert rows[1]==f'@@ -{n},2 +{n},2 @@' and rows[-1]=="+meta: {'skipped': True}", r
    assert sk.update_msg('m1', skipped=True, dlg=p)=='none: No changes.'

def test_update_msg_compares_metadata_as_the_file_writes_it(tmp_path):
    "r16: metadata sent in another key order (JSON objects are unordered), or with tuples for lists, is no change: the file is the same, so the answer is `none: No changes.`; a change shows the keys in the file's order"
    p = tmp_path/'d.ipynb'
    Dialog('d', [Message('x = 1', id='m1')]).save(p)
    r = sk.update_msg('m1', meta={'b': 1, 'a': {'z': [1], 'y': 2}}, dlg=p)
    assert r.changed and "+meta: {'a': {'y': 2, 'z': [1]}, 'b': 1}" in r, r
    before = p.read_bytes()
    for meta in [{'a': {'y': 2, 'z': [1]}, 'b': 1}, {'b': 1, 'a': {'z': (1,), 'y': 2}}]:
        assert sk.update_msg('m1', meta=meta, dlg=p)=='none: No changes.' and p.read_bytes()==before
    r = sk.update_msg('m1', mergemeta={'b': 2}, dlg=p)
    assert "-meta: {'a': {'y': 2, 'z': [1]}, 'b': 1}\n+meta: {'a': {'y': 2, 'z': [1]}, 'b': 2}" in r, r

_flines = st.lists(st.sampled_from(['import os', 'x = 1', 'import os.path', '', 'y = 2 ', 'os']), min_size=1, max_size=6)

@settings(max_examples=300, deadline=None)
@given(_flines, st.sampled_from(['^import os$', '2$', r'\s$', '^$', 'os$', r'\n', '.']), st.booleans(), st.booleans())
def test_re_filter_tests_each_line_without_its_end(ls, flt, inv, final):
    "`re_filter` (ex's g// and g!//) tests a line's text without its line end: LF and CR LF texts are edited alike"
    lf = '\n'.join(ls) + ('\n' if final else '')
    crlf = lf.replace('\n', '\r\n')
    hit = [bool(re.search(flt, l))!=inv for l in text_lines(lf)]
    a,b = Message(lf),Message(crlf)
    a.del_lines(1, -1, re_filter=flt, invert_filter=inv); b.del_lines(1, -1, re_filter=flt, invert_filter=inv)
    assert text_lines(a.content)==[l for l,h in zip(text_lines(lf), hit) if not h]
    assert b.content==a.content.replace('\n', '\r\n')
    a,b = Message(lf),Message(crlf)
    ra,rb = a.str_replace('o', 'O', re_filter=flt, invert_filter=inv),b.str_replace('o', 'O', re_filter=flt, invert_filter=inv)
    assert ra.error==rb.error and b.content==a.content.replace('\n', '\r\n')
    if not ra.error: assert text_lines(a.content)==[l.replace('o', 'O') if h else l for l,h in zip(text_lines(lf), hit)]
    a,b = Message(lf),Message(crlf)
    ra,rb = (m.strs_replace(['o', 's'], ['O', 'S'], re_filter=flt, invert_filter=inv) for m in (a, b))
    assert ra.error==rb.error and b.content==a.content.replace('\n', '\r\n')

_regexes = [('x = (.*)', r'x = \1  # cm'), ('= 1$', '= 2'), (r'(\w+) = (.*)', r'\2 = \1\nq = 0'), ('s$', 'S'),
            (r'\s+', ' '), ('(?m)^', '# '), (r'(?s)os.*', r'\g<0>!'), ('(?m)$', ';'), (r'(?m)^$\n', ''), ('x', r'\n')]

@settings(max_examples=300, deadline=None)
@given(_flines, st.booleans(), st.sampled_from(_regexes), st.sampled_from([None, '^[ix]', '$']), st.sampled_from([None, 1]),
       st.sampled_from([(None, None), (2, None), (1, 2), (2, -1)]))
def test_a_regex_reads_crlf_text_as_the_view_shows_it(ls, final, pr, flt, n, rng):
    "use_regex on CR LF text: the match and its groups see each line without its CR, and what it writes ends its lines as the text does"
    lf = '\n'.join(ls) + ('\n' if final else '')
    crlf = lf.replace('\n', '\r\n')
    assume('\n' in lf)  # (a text with no line end yet takes LF ones)
    kw = dict(use_regex=True, re_filter=flt, n_matches=n, start_line=rng[0], end_line=rng[1])
    a,b = Message(lf),Message(crlf)
    ra,rb = a.str_replace(*pr, **kw),b.str_replace(*pr, **kw)
    assert ra.error==rb.error and b.content==a.content.replace('\n', '\r\n'), (ra, rb)

def test_a_regex_edit_keeps_each_line_end_it_does_not_take():
    "Mixed line ends, a lone CR, and a regex that names the CR: only what the match took changes"
    m = Message('a = 1\r\nb = 2\nc = 3\r\n')
    m.str_replace(r'(\w) = (.*)', r'\1 = [\2]', use_regex=True)
    assert m.content=='a = [1]\r\nb = [2]\nc = [3]\r\n'
    m = Message('a\rb = 1\r\n')  # a lone CR is a character of its line, as the views show it
    m.str_replace('b = (.*)', r'b = (\1)', use_regex=True); assert m.content=='a\rb = (1)\r\n'
    m = Message('a = 1\r\nb = 2\r\n')  # a regex naming the CR edits the line ends themselves
    m.str_replace(r'\r\n', r'\n', use_regex=True); assert m.content=='a = 1\nb = 2\n'
    m = Message('a = 1\r\nb = 2\r\n')  # a match across lines takes the CR LFs whole
    m.str_replace(r'1\nb', '1; b', use_regex=True); assert m.content=='a = 1; b = 2\r\n'
    assert 'Failed to find' in Message('a\r\n').str_replace('a$x', 'b', use_regex=True)

try: import remold
except ImportError: remold = None

@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(['a = 1', 'b = 2', '', 'c = 3']), min_size=1, max_size=5), st.booleans(),
       st.lists(st.sampled_from(['x = 0', 'y = 9', '']), min_size=2, max_size=3), st.sampled_from(['\n', '\r\n']), st.data())
def test_every_editor_ends_the_lines_it_adds_as_the_text_does(ls, final, new_ls, eol, data):
    "One rule for every editor (and exhash, and update_msg's directive): a line an edit adds ends as the text's lines do (`line_end`)"
    txt = eol.join(ls) + (eol if final else '')
    assume(txt)
    new,new_eol,n = '\n'.join(new_ls),'\n',len(text_lines(txt))  # as an agent sends it: JSON's `\n`
    i = data.draw(st.integers(1, n)); j = data.draw(st.integers(i, n))
    edits = dict(
        insert_line=lambda m: m.insert_line(data.draw(st.integers(0, n)), new),
        replace_lines=lambda m: m.replace_lines(i, j, new),
        str_replace=lambda m: m.str_replace('=', new),
        str_replace_filtered=lambda m: m.str_replace('=', new, re_filter='^[ab]'),
        str_replace_regex=lambda m: m.str_replace('(=)', r'\1' + new.replace('\n', r'\n'), use_regex=True),
        strs_replace=lambda m: m.strs_replace(['a', 'b'], [new, new]),
        exhash=lambda m: m.exhash([(m.lnhashview().split('\n')[i-1].split('  ')[0].rsplit('|', 1)[0] + '|', 'a', new)]),
        export=lambda m: setattr(m, 'exported', True))
    if remold: edits['ast_replace'] = lambda m: m.ast_replace([['a = $X', 'a = $X' + new_eol + 'z = $X']])
    for k,f in edits.items():
        m = Message(txt)
        f(m)
        assert set(re.findall(r'\r?\n', m.content)) <= {line_end(txt)}, (k, m.content)

@pytest.mark.parametrize('txt,args,want', [
    ('a\nb', (2, 2), 'a'),  # the last line had no line end: the one before it loses its own
    ('a\r\nb', (2, 2), 'a'),
    ('a\nb\n', (2, 2), 'a\n'),
    ('a\n\nb', (3, 3), 'a\n\n'),  # an empty last line shows only by its line end: kept
    ('a\nb\nc', (2, 3), 'a'),
    ('\r\na', (2, 2), '\r\n'),  # an empty first line, then the last deleted: no lone CR left
])
def test_deleting_lines_adds_no_final_line_end(txt, args, want):
    m = Message(txt); m.del_lines(*args)
    assert m.content==want
    m = Message(txt); m.replace_lines(*args, '')
    assert m.content==want

# --- lone surrogates: line hashes, exhash, and how a client sees and sends them

_surr_line = st.lists(st.sampled_from(['a', ' ', '\udcff', '\ud800', '\\udcff', 'x']), min_size=1, max_size=6).map(''.join)

@given(st.text(st.sampled_from(['a', '\n', '\udcff', '\ud800', '\U000f04ff', 'é']), max_size=12))
def test_surrogates_and_the_characters_that_stand_for_them_are_inverse(txt):
    "One rule for line hashes and exhash: `_nosurr` maps lone surrogates to private use characters and `_resurr` back; text holding both is refused, not garbled"
    try: (t,), hid = sk._nosurr((txt,))
    except ValueError as e:
        assert sk._surr_re.search(txt) and sk._pua_re.search(txt) and 'private use' in str(e); return
    assert not sk._surr_re.search(t) and (sk._resurr(t) if hid else t)==txt
    t.encode('utf-8')  # what hashing needs

@given(st.lists(_surr_line, min_size=1, max_size=5), st.data())
@settings(max_examples=200, deadline=None)
def test_lnhash_addresses_of_text_with_surrogates_edit_the_line_they_show(lines, data):
    "lnhashview and exhash work on text holding lone surrogates: a `c` at the address shown replaces that line and keeps the others, surrogates included"
    m = Message('\n'.join(lines))
    k = data.draw(st.integers(1, len(lines)), label='line')
    addr = str(m.lnhashview(k, k)).split('|')[:2]
    r = m.exhash([('|'.join(addr)+'|', 'c', 'NEW\udcfe')])
    assert not r.error, r
    assert m.content.split('\n')==lines[:k-1]+['NEW\udcfe']+lines[k:]

def test_a_lone_surrogate_is_spelt_apart_from_its_escape_and_can_be_sent_back(tmp_path):
    "Over JSON a lone surrogate reads `⟨lone surrogate U+DCFF⟩`, where the text `\\udcff` reads as itself; the spelling sent in an argument stands for the surrogate"
    d = Dialog('d'); d.mk_message('x = \udcff', id='real'); d.mk_message('x = \\udcff', id='lit'); d.save(tmp_path/'d.ipynb')
    real,_ = sk.call_tool('view_msg', dict(id='real', dlg='d.ipynb'), root=tmp_path)
    lit,_ = sk.call_tool('view_msg', dict(id='lit', dlg='d.ipynb'), root=tmp_path)
    assert real=='     1 │ x = ⟨lone surrogate U+DCFF⟩' and lit=='     1 │ x = \\udcff'
    txt,err = sk.call_tool('msg_str_replace', dict(id='real', old_str=real.split('│ ')[1], new_str='y = ⟨lone surrogate U+D800⟩', dlg='d.ipynb'), root=tmp_path)
    assert not err, txt
    d = read_ipynb(tmp_path/'d.ipynb')
    assert d['real'].content=='y = \ud800' and d['lit'].content=='x = \\udcff'
    txt,err = sk.call_tool('lnhashview_msg', dict(id='real', dlg='d.ipynb'), root=tmp_path)
    assert not err and txt.endswith('|y = ⟨lone surrogate U+D800⟩'), txt
    txt,err = sk.call_tool('msg_exhash', dict(id='real', cmds=[[txt.rsplit('|', 1)[0]+'|', 's', 'y', 'z']], dlg='d.ipynb'), root=tmp_path)
    assert not err and read_ipynb(tmp_path/'d.ipynb')['real'].content=='z = \ud800', txt

# --- an empty text to replace

@pytest.mark.parametrize('f,args', [('str_replace', ('', 'Z')), ('strs_replace', (['a', ''], ['A', 'Z']))])
def test_an_empty_text_to_replace_is_refused(f, args):
    m = Message('abc')
    r = getattr(m, f)(*args)
    assert r.error and 'the text to replace is empty' in r and m.content=='abc'

def test_an_empty_old_str_over_json_changes_nothing(tmp_path):
    d = Dialog('d'); d.mk_message('abc', id='m'); d.save(tmp_path/'d.ipynb')
    before = (tmp_path/'d.ipynb').read_bytes()
    for kw in (dict(old_str='', new_str='Z'), dict(old_str='', new_str='Z', use_regex=True)):
        txt,err = sk.call_tool('msg_str_replace', dict(id='m', dlg='d.ipynb', **kw), root=tmp_path)
        assert err and 'msg_insert_line' in txt
    txt,err = sk.call_tool('msg_strs_replace', dict(id='all', old_strs=[''], new_strs=['Z'], dlg='d.ipynb'), root=tmp_path)
    assert err and (tmp_path/'d.ipynb').read_bytes()==before

_wire_text = st.lists(st.sampled_from(['⟨', '⟩', '\udcff', '\ud800', 'lone surrogate U+DCFF', '⟨lone surrogate U+D800⟩', 'a', '\\udcff']), max_size=8).map(''.join)

@given(_wire_text)
def test_what_a_client_reads_is_read_back_as_it_was(txt):
    "One rule each way: `_unwire` undoes `_wire` for every text (surrogates, `⟨`, the spelling itself held as text), and `_wire`'s is UTF-8"
    w = sk._wire(txt)
    w.encode('utf-8')
    assert sk._unwire(w)==txt and sk._unwire([w, (w,)])==[txt, (txt,)]

def test_a_message_holding_the_spelling_as_text_is_edited_as_shown(tmp_path):
    "This notebook's own prose holds `⟨lone surrogate U+DCFF⟩` as text: copied from the view, it finds that text, not a surrogate"
    d = Dialog('d'); d.mk_message('shown as `⟨lone surrogate U+DCFF⟩` ⟨x⟩', id='m'); d.save(tmp_path/'d.ipynb')
    v,_ = sk.call_tool('view_msg', dict(id='m', dlg='d.ipynb', nums=False), root=tmp_path)
    assert v=='shown as `⟨⟨lone surrogate U+DCFF⟩` ⟨⟨x⟩'
    txt,err = sk.call_tool('msg_str_replace', dict(id='m', old_str=v, new_str=v.replace('shown', 'spelt'), dlg='d.ipynb'), root=tmp_path)
    assert not err and read_ipynb(tmp_path/'d.ipynb')['m'].content=='spelt as `⟨lone surrogate U+DCFF⟩` ⟨x⟩', txt

# --- metadata and paths follow the same spelling rule

_meta = st.recursive(_wire_text | st.integers(), lambda c: st.lists(c, max_size=3) | st.dictionaries(_wire_text, c, max_size=3), max_leaves=8)

@given(_meta)
def test_unwire_reads_every_text_inside_dicts_and_lists(o):
    "`_unwire` undoes `_wire` for every text in a `meta` value, dict keys included"
    assert sk._unwire(sk._map(o, sk._wire))==o

@given(_meta | st.sampled_from([{'a': '␀␁\udcff'}, ['\udcff', '\\udcff', '␀']]))
def test_srepr_is_repr_with_lone_surrogates_left_as_they_are(o):
    "A view's metadata: `repr`, except that each lone surrogate is itself (which `_wire` then spells), not its `\\udcff` escape"
    r = sk._srepr(o)
    assert sk._surr_re.sub(lambda m: f'\\u{ord(m[0]):04x}', r)==repr(o)
    assert len(sk._surr_re.findall(r))==len(sk._surr_re.findall(json.dumps(o, ensure_ascii=False)))

def test_srepr_keeps_two_keys_that_are_lone_surrogates_apart():
    "Two dict keys that are different lone surrogates stay two keys in the view (they once became one stand-in and collided)"
    o = {'\udcff': [], '\ud800': ['\udcff']}
    r = sk._srepr(o)
    assert sk._surr_re.sub(lambda m: f'\\u{ord(m[0]):04x}', r)==repr(o) and len(sk._surr_re.findall(r))==3

def test_meta_is_read_and_shown_as_every_text_is_so_a_copy_round_trip_is_exact(tmp_path):
    "A `meta` argument is unwired like content (`x⟨⟨y` is `x⟨y`), and the diff shows it spelt as sent: written back as shown, it stays the same"
    def call(name, **kw): return sk.call_tool(name, dict(kw, dlg='d.ipynb'), root=tmp_path)
    Dialog('d').save(tmp_path/'d.ipynb')
    call('add_msg', content='x⟨⟨y', id='m', meta={'tag': 'x⟨⟨y', 'k⟨⟨': ['⟨lone surrogate U+DCFF⟩']})
    want = {'tag': 'x⟨y', 'k⟨': ['\udcff']}
    assert read_ipynb(tmp_path/'d.ipynb')['m'].meta==want
    txt,err = call('update_msg', id='m', mergemeta={'n': '1'})
    assert not err and "+meta: {'k⟨⟨': ['⟨lone surrogate U+DCFF⟩'], 'n': '1', 'tag': 'x⟨⟨y'}" in txt, txt  # (keys in the file's order)
    shown = ast.literal_eval(txt.split('+meta: ')[1])  # copied from the view...
    call('update_msg', id='m', meta=shown)  # ...and written back
    assert read_ipynb(tmp_path/'d.ipynb')['m'].meta==want|{'n': '1'}

def test_an_error_naming_a_path_spells_a_lone_surrogate_as_the_instructions_say(tmp_path):
    txt,err = sk.call_tool('summary_dlg', dict(dlg='a⟨⟨⟨lone surrogate U+DCFE⟩.ipynb'), root=tmp_path)
    # named as asked, relative to the root (the client's name for it, not the server's folders)
    assert err and txt.startswith('FileNotFoundError: [Errno 2] No such file or directory: ') and txt.endswith("'a⟨⟨⟨lone surrogate U+DCFE⟩.ipynb'"), txt
    assert str(tmp_path) not in txt

# --- the replacers match the text's own characters, as the caller sees and sends them

@pytest.mark.parametrize('txt,old', [('a\u2028b\nc', 'a\u2028b'), ('x\ry\nz', 'x\ry'), ('p\x0cq', 'p\x0cq'), ('u\x85v\r\nw', 'u\x85v')])
def test_replacers_find_text_holding_a_break_the_views_dont_count(txt, old):
    "A lone CR, a form feed, U+2028 end no line in the views; `old_str` holding one is found, with or without a line range"
    want = txt.replace(old, 'NEW')
    for f,kw in [('str_replace', dict(old_str=old, new_str='NEW')), ('strs_replace', dict(old_strs=[old], new_strs=['NEW'])),
                 ('str_replace', dict(old_str=old, new_str='NEW', start_line=1, end_line=1))]:
        m = Message(txt)
        r = getattr(m, f)(**kw)
        assert not r.error and m.content==want, (f, kw, r)

def test_regexes_and_errors_see_the_texts_own_characters():
    m = Message('a\u2028b\nc')
    assert not m.str_replace(r'a\sb', 'NEW', use_regex=True).error and m.content=='NEW\nc'
    m = Message('a\u2028b\nc')
    assert not m.str_replace('\u2028', '-', use_regex=True, re_filter='a.b').error and m.content=='a-b\nc'
    m = Message('p\x0cq\nr')
    assert m.del_lines(1, -1, re_filter='\x0c').changed and m.content=='r'
    r = Message('a\u2028b').str_replace('zz', 'y')
    assert r.error and 'a\\u2028b' in r and not re.search('[\ue000-\uf8ff]', r)  # the text shown is the text, no stand-in

@given(st.text(st.sampled_from('ab\n\r\x0c\u2028\x85')))
def test_view_lines_split_where_the_views_do(t):
    "The text the fastcore editors get ends its lines (`splitlines`) where `text_lines` does, and keeps every character"
    v = sk._ViewLines(t)
    assert v.splitlines()==text_lines(t) and ''.join(v.splitlines(True))==t and v==t

# --- a structural Python edit edits Python only

def test_ast_replace_all_leaves_prose_and_shell_alone(tmp_path):
    pytest.importorskip('remold')
    d = Dialog('a')
    d.mk_message('print(x)', id='c1')
    d.mk_message('To debug, call print(x) and read the result.', msg_type=snote, id='n1')
    d.mk_message('%%bash\necho print(x)', id='c2')
    d.mk_message('Why print(x)?', msg_type=sprompt, output='Call print(x).', id='p1')
    p = tmp_path/'a.ipynb'; d.save(p)
    r = sk.msg_ast_replace('all', [['print($A)', 'log($A)']], dlg=p)
    assert not r.error and r.changed
    d2 = read_ipynb(p)
    assert [d2[i].content for i in ('c1', 'n1', 'c2', 'p1')]==['log(x)', *(d[i].content for i in ('n1', 'c2', 'p1'))]
    assert d2['p1'].ai_res=='Call print(x).'
    before = p.read_bytes()
    for i,kw in [('n1', {}), ('c2', {}), ('p1', dict(out=True))]:  # named alone: an error, nothing written
        r = sk.msg_ast_replace(i, [['print($A)', 'log($A)']], dlg=p, **kw)
        assert r.error and 'not Python code' in r, r
    assert p.read_bytes()==before

def test_ast_replace_edits_only_the_lines_the_finders_take_as_python(tmp_path):
    "Magic and shell lines stay as they are; a cell magic that doesn't run Python (%%bash, %%writefile) is not edited, nor found"
    pytest.importorskip('remold')
    cells = {'c1': '!pip install foo\nimport foo\nfoo.go()', 'c2': '%%bash\nfoo=1\nls', 'c3': '%%writefile foo.py\nfoo(4)',
             'c4': 'if x:\n    %time foo(1)\n    foo(2)\r\n!ls foo\r\nfoo(3)', 'c5': '%%time\nfoo(5)', 'c6': 'foo(6)'}
    d = Dialog('a')
    for k,v in cells.items(): d.mk_message(v, id=k)
    p = tmp_path/'a.ipynb'; d.save(p)
    r = sk.msg_ast_replace('all', [['foo', 'bar']], dlg=p)
    assert not r.error and r.changed
    got = {k: m.content for k,m in zip(cells, read_ipynb(p).messages)}
    assert got=={'c1': '!pip install foo\nimport bar\nbar.go()', 'c2': cells['c2'], 'c3': cells['c3'],
                 'c4': 'if x:\n    %time foo(1)\n    bar(2)\r\n!ls foo\r\nbar(3)', 'c5': '%%time\nbar(5)', 'c6': 'bar(6)'}, got
    assert [m.id for m in sk.find_msgs(symref='ls', dlg=p)]==[]  # the finders' rule: a %%bash cell isn't Python
    assert [m.id for m in sk.find_msgs(symref='bar', dlg=p)]==['c1', 'c4', 'c5', 'c6']
    before = p.read_bytes()
    r = sk.msg_ast_replace('c4', [['if x: $$$B', 'pass']], dlg=p)  # a rule that would swallow a magic line: refused, nothing written
    assert r.error and 'not Python' in r and p.read_bytes()==before, r

# --- one rule for the line ends a regex sees and the line ends an edit adds (issue 33)

_mixed = st.lists(st.sampled_from(['a', 'b', '1', ' ', '=', '\n', '\r\n', '\r', '\u2028', '\x0c']), max_size=14).map(''.join)
_finds = [r'\d$', '^a', r'b\s', '.$', r'\s', r'a[\s\S]b', r'\n', '$', '^$', r'b\n1', '=', r'\s+\d', '^[^a]*$']

@settings(max_examples=400, deadline=None)
@given(_mixed, st.sampled_from(_finds))
def test_find_msgs_and_a_regex_edit_match_the_same_line(txt, pat):
    "A regex (not naming a CR) sees each line as the views show it, in find_msgs and in msg_str_replace(use_regex=True) alike (`view_finditer`): the line find_msgs reports is the line the edit changes first, whatever the line ends (LF, CR LF, mixed) or a line holds (a lone CR, U+2028)"
    hit = match_line(Message(txt), find_pattern(pat, case=True))
    assert (hit is not None) == bool(Dialog('d', [Message(txt, id='m')]).find_msgs(pat, case=True))
    m = Message(txt)
    r = m.str_replace(f'(?={pat})', '¤', use_regex=True, n_matches=1)  # a mark where the first match starts (`^`, `$` at each line: the edit compiles as find_pattern does)
    assert r.error == (hit is None), (r, hit)
    if hit is None: return
    ls = text_lines(m.content)
    k = next(i for i,l in enumerate(ls) if '¤' in l)
    assert (k+1, ls[k].replace('¤', '')) == hit

_eq_lines = st.lists(st.sampled_from(['a = 1', 'b\r= 2', 'c\u2028= 3', '', 'x\x0cy']), min_size=1, max_size=5)

@settings(max_examples=300, deadline=None)
@given(_eq_lines, st.lists(st.sampled_from(['\n', '\r\n']), min_size=5, max_size=5), st.booleans(), st.data())
def test_every_editor_ends_its_new_lines_as_line_end_says_in_mixed_text(ls, eols, final, data):
    "In a text of mixed line ends (with a lone CR or U+2028 inside a line), every line end an editor adds is `line_end`'s: the text's first"
    txt = ''.join(l+e for l,e in zip(ls, eols))
    if not final: txt = txt[:-len(eols[len(ls)-1])]
    assume(txt)
    n,e = len(text_lines(txt)),line_end(txt)
    i = data.draw(st.integers(1, n)); j = data.draw(st.integers(i, n))
    edits = dict(insert_line=lambda m: m.insert_line(data.draw(st.integers(0, n)), 'Q\nR'),
                 replace_lines=lambda m: m.replace_lines(i, j, 'Q\nR'),
                 str_replace=lambda m: m.str_replace('=', 'Q\nR'),
                 str_replace_regex=lambda m: m.str_replace('(=)', r'Q\nR\1', use_regex=True),
                 exhash_a=lambda m: m.exhash([(addr(i), 'a', 'Q\nR')]), exhash_i=lambda m: m.exhash([(addr(i), 'i', 'Q')]),
                 exhash_c=lambda m: m.exhash([(addr(i), 'c', 'Q\nR')]), exhash_d=lambda m: m.exhash([(addr(i), 'd'), (addr(j), 'a', 'Q')]),
                 export=lambda m: setattr(m, 'exported', True))
    def addr(k): return lnhash(k, text_lines(txt)[k-1])
    def ends(t): return collections.Counter(re.findall(r'\r?\n', t))
    for k,f in edits.items():
        m = Message(txt)
        if getattr(f(m), 'error', False):  # (no `=` to replace; a line both deleted and added after)
            assert k in ('str_replace', 'str_replace_regex', 'exhash_d'), (k, m.content)
            continue
        assert set(ends(m.content) - ends(txt)) <= {e}, (k, m.content)

@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(['a = 1', '#| export', 'b\rc', '']), min_size=1, max_size=3),
                          st.sampled_from(['\n', '\r\n'])), min_size=2, max_size=4), st.sampled_from([scode, sprompt]))
def test_a_merge_of_mixed_parts_ends_what_it_adds_as_line_end_says(parts, typ):
    "merge_msgs (merge_parts, the replies): the line ends a merge adds are `line_end`'s of its parts, the first one's that has one, the requests' and the replies' alike"
    d = Dialog('m')
    texts = [eol.join(p) for p,eol in parts]
    ms = [d.mk_message(t, msg_type=typ, **(dict(output=t.upper()) if typ==sprompt else {})) for t in texts]
    def ends(t): return collections.Counter(re.findall(r'\r?\n', t))
    m = d.merge_msgs(*[m.id for m in ms])
    assert set(ends(m.content) - sum(map(ends, texts), collections.Counter())) <= {line_end(*texts)}, m.content
    if typ==sprompt:
        rs = [t.upper() for t in texts]
        assert set(ends(m.ai_res) - sum(map(ends, rs), collections.Counter())) <= {line_end(*rs)}, m.ai_res

def test_the_editors_and_merges_take_their_line_end_from_line_end(monkeypatch):
    "One place for the rule: every line an editor or a merge adds ends as `line_end` says, so a change to it changes them all (insert_line had a copy of its own)"
    monkeypatch.setattr(sk, 'line_end', lambda *texts: '\r\n')
    assert sk.insert_line('a\nb', 1, 'x') == 'a\nx\r\nb'
    assert sk.insert_line('a\nb', 2, 'x\ny') == 'a\nb\r\nx\r\ny'  # (the last line gains the line end)
    assert sk.replace_lines('a\nb', 1, 1, 'x\ny') == 'x\r\ny\nb'
    d = Dialog('m')
    ms = [d.mk_message(t, msg_type=sprompt, output=t) for t in ('q', 'r')]
    assert d.merge_msgs(*[m.id for m in ms]).ai_res == 'q\r\n\r\nr'

def test_exhash_ends_an_added_line_as_line_end_says_in_mixed_text():
    "In a text of mixed line ends, a line exhash adds ends as every editor's added lines do (`line_end`, the text's first), not as its neighbour"
    m = Message('a\nb\r\nc')
    m.exhash([(lnhash(2, 'b'), 'a', 'new')])
    assert m.content == 'a\nb\r\nnew\nc'  # (the line before it ends CR LF)
    m = Message('a\nb\r\nc')
    m.exhash([(lnhash(2, 'b'), 'c', 'X\nY')])
    assert m.content == 'a\nX\nY\r\nc'  # the lines replacing b: the last one with b's ending, as replace_lines does
    m = Message('a\nb\r\nc'); m.replace_lines(2, 2, 'X\nY'); assert m.content == 'a\nX\nY\r\nc'


@pytest.mark.parametrize('txt', ['a\nb\n', 'a\r\nb\r\n'])
@pytest.mark.parametrize('pat,want', [('^b', ['a', 'Q']), ('a$', ['Q', 'b']), ('^b$', ['a', 'Q']), ('(?i)^B', ['a', 'Q'])])
def test_a_regex_edit_reads_anchors_as_find_msgs_does(tmp_path, txt, pat, want):
    "r14: `^` and `$` are a line's start and end in a regex edit, as in find_msgs (both compile with `find_pattern`): what find_msgs finds, the edit edits"
    p = tmp_path/'d.ipynb'; Dialog('d', [Message(txt, id='m1')]).save(p)
    assert sk.find_msgs(pat, dlg=p, case=True)
    r = sk.msg_str_replace('m1', pat, 'Q', use_regex=True, dlg=p)
    assert not r.error and text_lines(read_ipynb(p).msg('m1').content)==want, r

@pytest.mark.parametrize('kw', [{}, dict(re_filter='a'), dict(start_line=1, end_line=1)])
@pytest.mark.parametrize('pat', ['zz', r'zz\r'])
def test_a_regex_edit_that_finds_nothing_names_the_pattern_as_given(kw, pat):
    "r14: the regex is compiled (multi-line) before the edit; its error still quotes the pattern as the caller wrote it"
    r = Message('a\r\nb\r\n').str_replace(pat, 'Q', use_regex=True, **kw)
    assert r.error and f'Failed to find {pat!r}' in r and 're.compile' not in r, r

# --- a line end joined after a text keeps a lone CR it ends with its last line's own (`join_lines`, issue 33, r14)

_cr_mixed = st.lists(st.sampled_from(['a', 'b', ' ', '\n', '\r\n', '\r', '\u2028']), max_size=12).map(''.join)

@settings(max_examples=400, deadline=None)
@given(_cr_mixed, st.data())
def test_an_append_keeps_every_line_before_it_as_insert_line_does(txt, data):
    "exhash's `a` and `insert_line` after any line (a last one ending in a lone CR too) add one line, as sent (a lone CR in it, ending it too), and change none other, as `text_lines` (the views) reads them: the same text"
    ls = text_lines(txt)
    assume(ls)
    k = data.draw(st.integers(1, len(ls)), label='line')
    q = data.draw(st.sampled_from(['Q', 'Q\r', '\r', 'Q\rR', 'Q\r\r', '\u2028\r']), label='new line')
    x = Message(txt); r = x.exhash([(lnhash(k, ls[k-1]), 'a', q)])
    i = Message(txt); i.insert_line(k, q)
    assert not r.error and text_lines(x.content) == ls[:k] + [q] + ls[k:], (txt, x.content)
    assert x.content == i.content

@pytest.mark.parametrize('txt', ['x\ny', 'x\r\ny', 'x\ny\r', 'x\r\ny\r\n'])
@pytest.mark.parametrize('op', ['a', 'i', 'c'])
@pytest.mark.parametrize('q', ['Q\r', '\r', 'Q\r\nR\r'])
def test_exhash_writes_a_new_lines_lone_cr_as_sent(txt, op, q):
    "r15b: exhash's `a`, `i`, `c` keep a lone CR ending a new line (the engine, splitting the text itself, dropped it), as insert_line/replace_lines do; the diff's rows hash the lines as lnhashview does"
    ls = text_lines(txt); k = len(ls)
    m = Message(txt); r = m.exhash([(lnhash(k, ls[k-1]), op, q)])
    want = {'a': sk.insert_line(txt, k, q), 'i': sk.insert_line(txt, k-1, q), 'c': sk.replace_lines(txt, k, k, q)}[op]
    assert not r.error and text_lines(m.content) == text_lines(want), (m.content, want)
    if '\n' not in q: assert m.content == want  # (the ends between new lines are exhash's own: `_join`)
    rows = set(re.findall(r'^\+(\d+\|..\|.*)$', r, re.M))
    assert rows and rows <= set(m.lnhashview().split('\n')), (r, m.lnhashview())

def test_exhash_keeps_a_new_lines_cr_whatever_the_text_holds():
    "r16: a text holding every private use character U+F0800 to U+F0FFF (a CR ending a new line once went through the engine as one of them, and none was free: a bare StopIteration) takes a new line ending in a lone CR as any other"
    fill = ''.join(map(chr, range(0xF0800, 0xF1000)))
    m = Message('a\n' + fill + '\nb\n'); r = m.exhash([(lnhash(1, 'a'), 'a', 'Q\r')])
    assert not r.error and text_lines(m.content) == ['a', 'Q\r', fill, 'b'], str(r)[:200]

@settings(max_examples=200, deadline=None)
@given(st.sampled_from(['Q\r', '\r', 'Q\rR\r', 'Q\r\r', '\u2028\r', 'Q']), st.sampled_from(['a', 'i', 'c']))
def test_a_new_lines_hash_in_its_batch_is_lnhashviews(q, op):
    "r16: in one exhash call, a line just added (a lone CR ending it too) is addressed by the hash lnhashview gives it, and a `\\r` pattern sees its CR: the engine holds it as it is stored"
    txt = 'alpha = 1\nbeta = 2\n'
    k = {'a': 2, 'i': 1, 'c': 1}[op]
    m = Message(txt); r = m.exhash([(lnhash(1, 'alpha = 1'), op, q), (lnhash(k, q), 's', '$', 'Z')])
    assert not r.error and text_lines(m.content)[k-1] == q+'Z', (str(r), m.content)
    if '\r' in q:
        m = Message(txt); r = m.exhash([(lnhash(1, 'alpha = 1'), op, q), (lnhash(k, q), 's', '\r', '<CR>', 'g')])
        assert not r.error and text_lines(m.content)[k-1] == q.replace('\r', '<CR>'), (str(r), m.content)

@settings(max_examples=300, deadline=None)
@given(st.lists(_cr_mixed.filter(bool), min_size=2, max_size=3), st.sampled_from([scode, sprompt]))
def test_a_merge_keeps_each_parts_lines(texts, typ):
    "merge_msgs (merge_parts and the replies): the merged text reads as its parts' lines, in order, a blank line between, whatever their line ends (a lone CR ending one stays its last line's)"
    d = Dialog('m')
    ms = [d.mk_message(t, msg_type=typ, **(dict(output=t.upper()) if typ==sprompt else {})) for t in texts]
    m = d.merge_msgs(*[m.id for m in ms])
    def merged(ts): # each part's lines (an empty last one after a final line end), then a blank line
        ts = list(ts)
        return [l for t in ts[:-1] for l in text_lines(t)+['']*(1+t.endswith('\n'))] + text_lines(ts[-1])
    assert text_lines(m.content) == merged(texts), (texts, m.content)
    if typ==sprompt: assert text_lines(m.ai_res) == merged(t.upper() for t in texts), m.ai_res

def test_every_join_after_a_text_is_join_lines(monkeypatch):
    "One place for the rule: insert_line, exhash, merge_parts (merge_content) and merge_msgs' replies join a line end after a text with `join_lines`"
    import dialog.core as core
    def mark(texts, sep='\n'): return '<J>'.join(texts)
    monkeypatch.setattr(sk, 'join_lines', mark); monkeypatch.setattr(core, 'join_lines', mark)
    assert sk.insert_line('c\r', 1, 'Q') == 'c\r<J>Q'
    x = Message('x\nc\r'); x.exhash([(lnhash(2, 'c\r'), 'a', 'Q')])
    assert '<J>' in x.content
    assert merge_parts([Message('a'), Message('b')])[0] == 'a<J>b'
    assert Message('a').merge_content(snote) == '```python<J>a<J>```'
    d = Dialog('m')
    ms = [d.mk_message(t, msg_type=sprompt, output=t) for t in ('q', 'r')]
    assert d.merge_msgs(*[m.id for m in ms]).ai_res == 'q<J>r'

@pytest.mark.parametrize('a,b,typ', [('a\r', 'b\nc', scode), ('a\r', 'b', scode), ('q\r', 'r', sprompt), ('x\r\ny\r', 'z', snote)])
def test_a_merge_after_a_lone_cr_keeps_it(a, b, typ):
    "r14: a merge's blank line after a part ending in a lone CR doesn't make that CR half of a CR LF"
    d = Dialog('m')
    ms = [d.mk_message(t, msg_type=typ, **(dict(output=t) if typ==sprompt else {})) for t in (a, b)]
    m = d.merge_msgs(*[m.id for m in ms])
    assert text_lines(m.content) == text_lines(a) + [''] + text_lines(b), m.content
    if typ==sprompt: assert text_lines(m.ai_res) == text_lines(a) + [''] + text_lines(b), m.ai_res

# --- the diff an edit returns numbers lines as view_msg does (`text_lines`, issue 33, r14)

@pytest.mark.parametrize('br', ['\u2028', '\x0c', '\r'])
def test_the_edit_diff_numbers_lines_as_the_view(tmp_path, br):
    "r14: a U+2028, a form feed or a lone CR ends no line in view_msg, nor in the diff msg_str_replace returns; one kind of line end (LF): nothing spelled out"
    txt = f'a{br}b\nc\nd\n'
    p = tmp_path/'d.ipynb'; Dialog('d', [Message(txt, id='m1')]).save(p)
    view = sk.view_msg('m1', dlg=p)
    assert ' 1 │ ' in view and f'a{br}b' in view and ' 2 │ c' in view
    r = sk.msg_str_replace('m1', 'c', 'X', dlg=p)
    assert r == f'@@ -1,3 +1,3 @@\n a{br}b\n-c\n+X\n d', r

@pytest.mark.parametrize('txt,edit,args', [('a\r\nb\r\r\nc\r\n', 'replace_lines', (2, 2, 'b')), ('a\r\nb\r\r\nc\r\n', 'str_replace', ('b\r', 'b')),
                                           ('a\nb\nc\n', 'str_replace', ('b', 'b\r')), ('a\nb\nc\n', 'str_replace', ('b', 'b\u2028')),
                                           ('a\nb\x0c\nc\n', 'replace_lines', (2, 2, 'b')), ('a\nb\nc\n', 'str_replace', ('b', 'b\u200b'))])
def test_a_change_that_prints_as_none_is_spelled_out(txt, edit, args):
    "r15b: a changed row differing only by a character that prints as nothing (a lone CR, U+2028, a form feed, a zero width space) is spelled out: printed, its - and + rows differ"
    m = Message(txt); r = getattr(m, edit)(*args)
    assert r.changed and r.startswith(('# line endings spelled out\n', '# characters spelled out\n')), r
    printed = [row.replace('\r', '') for row in str(r).split('\n')]  # as a terminal shows it
    assert [x[1:] for x in printed if x[:1]=='-'] != [x[1:] for x in printed if x[:1]=='+'], r
    assert '\r' not in r and '\u2028' not in r and '\x0c' not in r and '\u200b' not in r

# how a terminal prints a row, near enough: composed (a letter and its combining accent print as the accented letter),
# what prints as nothing left out (format characters, controls but the tab, separators, unassigned code points, and the
# marks and letters Unicode makes ignorable: the grapheme joiner, variation selectors, the Hangul fillers), each space
# character a space, tabs expanded
_ign = set('\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0') | {chr(c) for c in [*range(0x180b, 0x1810), *range(0xfe00, 0xfe10), *range(0xe0100, 0xe01f0)]}
def _printed(row):
    gone = lambda c: c in _ign or (c!='\t' and unicodedata.category(c) in ('Cf', 'Cc', 'Zl', 'Zp', 'Cn'))
    row = unicodedata.normalize('NFC', row)
    return ''.join(' ' if unicodedata.category(c)=='Zs' else c for c in row if not gone(c)).expandtabs()

@pytest.mark.parametrize('ch', ['\u034f', '\ufe0f', '\u3164', '\u200d', '\u00ad', '\U000e0100'])
def test_removing_a_character_that_prints_as_nothing_is_spelled_out(tmp_path, ch):
    "r16: msg_str_replace taking out a grapheme joiner, a variation selector, a Hangul filler, a zero width joiner, a soft hyphen: the diff is spelled out, the character escaped, so its - and + rows don't print alike"
    p = tmp_path/'d.ipynb'; Dialog('d', [Message(f'a\nb{ch}\nc\n', id='m1')]).save(p)
    r = str(sk.msg_str_replace('m1', 'b'+ch, 'b', dlg=p))
    assert r.startswith('# characters spelled out\n') and ch not in r, r
    assert '\n-b\\' in r and '\n+b\\n\n' in r, r  # (escaped: \\u034f, \\xad, ...)

def test_a_diff_of_text_with_combining_marks_reads_as_written(tmp_path):
    "Combining marks drawn on their letter (Devanagari's vowel signs and virama, an accent) are no blank characters: a diff of Hindi is not spelled out; but `e` with a combining acute written as `é` (other text, printed alike) is, the mark escaped"
    p = tmp_path/'d.ipynb'; Dialog('d', [Message('नमस्ते दुनिया\nदूसरी पंक्ति\n', id='m1'), Message('x\ne\u0301\n', id='m2')]).save(p)
    r = str(sk.msg_str_replace('m1', 'दुनिया', 'भारत', dlg=p))
    assert not r.startswith('#') and '\n+नमस्ते भारत\n' in r, r
    r = str(sk.msg_str_replace('m2', 'e\u0301', 'é', dlg=p))
    assert r.startswith('# characters spelled out\n') and '\n-e\\u0301\\n\n+é\\n' in r, r

_look_txt = st.lists(st.sampled_from(['a', 'b', ' ', '\t', '    ', '\xa0', '\u2003', '\u034f', '\ufe0f', '\u3164', '\u200d', '\u200b',
                                      'e\u0301', 'é', '\r', '\x0c', '\u2028', '\n', '\n', '\r\n']), max_size=12).map(''.join)

@settings(max_examples=500, deadline=None)
@given(_look_txt, _look_txt)
def test_a_diffs_changed_rows_never_print_alike(old, new):
    "r16: for any two texts that differ, an edit's diff has no `-` row and `+` row that are other texts but print alike (a character printing as nothing, a no-break space for a space, a tab for spaces): such rows are spelled out; and a changed row left as it is holds no character that prints as nothing"
    assume(old!=new)
    r = sk._diff(old, new)
    rows = r.split('\n')
    chg = [x for x in rows if x[:1] in ('-', '+')]
    for a in (x for x in chg if x[0]=='-'):
        for b in (x for x in chg if x[0]=='+'):
            assert a[1:]==b[1:] or _printed(' '+a[1:])!=_printed(' '+b[1:]), (old, new, r)
    if not rows[0].endswith(' spelled out'):  # (left as it is: no row that isn't empty prints as one that is)
        assert all(_printed(' '+x[1:]).strip() for x in chg if x[1:]), (old, new, r)

_diff_txt = st.lists(st.sampled_from(['a', 'b', 'c', ' ', '\n', '\n', '\r\n', '\r', '\u2028', '\x0c']), max_size=16).map(''.join)

@settings(max_examples=400, deadline=None)
@given(_diff_txt, st.data())
def test_every_hunk_points_at_the_lines_the_view_shows(txt, data):
    "Each hunk of an edit's diff numbers its lines as `view` shows them, before (` ` and `-` rows) and after (` ` and `+`): an agent edits by those numbers; spelled out, each row is the line with its end, escaped"
    n = len(text_lines(txt))
    i = data.draw(st.integers(1, max(n, 1))); j = data.draw(st.integers(i, max(n, 1)))
    op = data.draw(st.sampled_from(['replace', 'del', 'insert', 'str']), label='op')
    m = Message(txt)
    r = {'replace': lambda: m.replace_lines(i, j, 'X\nY'), 'del': lambda: m.del_lines(i, j),
         'insert': lambda: m.insert_line(min(i, n), 'Q'), 'str': lambda: m.str_replace('b', 'B\nZ', n_matches=1)}[op]()
    if r.error or not r.changed: return
    rows = r.split('\n')
    spelled = rows[0] in ('# line endings spelled out', '# characters spelled out')
    def shown(t):
        if not spelled: return Message(t).view(nums=False).split('\n') if t else []
        ends = re.findall(r'\r?\n', t)
        # (each line with its end, as `repr` spells it, a trailing space, which nothing follows, as \x20)
        return [re.sub(' +$', lambda m: '\\x20'*len(m[0]), repr(l + (ends[k] if k<len(ends) else ''))[1:-1]) for k,l in enumerate(text_lines(t))]
    before,after,hunks = shown(txt),shown(m.content),0
    for h in re.finditer(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n((?:[ +-].*(?:\n|$))*)', '\n'.join(rows[spelled:]), re.M):
        a,c = int(h[1]),int(h[3])
        a,c = a-(h[2]!='0'),c-(h[4]!='0')  # (a hunk of no lines names the line before it)
        for row in h[5].rstrip('\n').split('\n'):
            if row[0] in ' -': assert before[a]==row[1:], (txt, m.content, r); a += 1
            if row[0] in ' +': assert after[c]==row[1:], (txt, m.content, r); c += 1
        hunks += 1
    assert hunks, r

# --- a replacer that finds nothing says so in our own words, whatever fastcore's are (r14)

@pytest.mark.parametrize('kw,where', [({}, ''), (dict(start_line=2, end_line=2), ' in lines 2-2'), (dict(re_filter='b'), ' on line 2'),
                                      (dict(use_regex=True), ''), (dict(use_regex=True, start_line=1, end_line=2), ' in lines 1-2')])
@pytest.mark.parametrize('pat', ['zz', r'zz\r'])
def test_a_replacer_that_finds_nothing_says_so_in_our_words(tmp_path, monkeypatch, kw, where, pat):
    "The error names what (nothing found), the pattern as the caller gave it and where it looked; built by us, not by rewriting fastcore's message, so a change of its words changes nothing"
    ft = sk._ft.str_replace
    def reworded(*a, **k):
        try: return ft(*a, **k)
        except ValueError: raise ValueError('no match (fastcore reworded)') from None
    monkeypatch.setattr(sk._ft, 'str_replace', reworded)
    txt = 'a = 1\nb = 2\n'
    scope = {'': txt, ' in lines 2-2': 'b = 2\n', ' on line 2': 'b = 2\n', ' in lines 1-2': txt}[where]
    r = Message(txt).str_replace(pat, 'Q', **kw)
    assert r.error and r == f'error: Failed to find {pat!r}{where} in: {scope!r}', r
    f = tmp_path/'d.ipynb'; Dialog('d', [Message(txt, id='m1'), Message('c', id='m2')]).save(f)
    assert sk.msg_str_replace(['m1', 'm2'], pat, 'Q', dlg=f, **kw) == f"error: message 'm1': {r[len('error: '):]}"  # the tool names the message

@pytest.mark.parametrize('olds,k', [(['alpha', 'zeta'], 2), (['alpha', 'alpha'], 2), (['alpha', 'beta', 'zeta'], 3), (['zeta', 'beta'], 1)])
def test_strs_replace_names_the_pair_that_finds_nothing(tmp_path, olds, k):
    "r15b: a pair of msg_strs_replace that finds nothing is named (its number, its pattern as given), and the text it searched said to be what the pairs before it left, not the message as stored; nothing written"
    txt = 'alpha = 1\nbeta = 2\n'
    p = tmp_path/'d.ipynb'; Dialog('d', [Message(txt, id='m1')]).save(p); before = p.read_bytes()
    r = sk.msg_strs_replace('m1', olds, ['ALPHA', 'BETA', 'Z'][:len(olds)], dlg=p)
    n = len(olds)
    assert r.error and r.startswith(f'error: Failed to find {olds[k-1]!r} in: ') and f'(pair {k} of {n}' in r, r
    left = {1: '', 2: ', in the text as pair 1 left it, not as stored', 3: ', in the text as pairs 1-2 left it, not as stored'}[k]
    assert r.endswith(f'{left}; nothing changed)') and p.read_bytes()==before, r
    if k==1: assert repr(txt) in r  # the first pair searched the message as stored

# --- a diff spells out what would print as no change, and only that (r17)

@pytest.mark.parametrize('old,new', [('x = 1\ny\n', 'x = 1 \ny\n'), ('x = 1\ny\n', 'x = 1\t\ny\n'), ('a\n\nb\n', 'a\n \nb\n'),
                                     ('a\u3000b\n', 'a  b\n'), ('a b\n', 'a\u2800b\n'), ('K = 1\n', '\u212a = 1\n'),
                                     ('x\n\u1112\u1161\u11ab\n', 'x\n\ud55c\n'), ('ab\u200d\n', 'ab\n'), ('x = 1', 'x = 1 ')])
def test_a_change_that_prints_as_none_is_spelled_out_under_its_reason(old, new):
    "r17: a trailing space or tab, a wide space for two, a braille blank for a space, a sign for its letter (NFC), jamo for a syllable, a joiner taken out: spelled out under '# characters spelled out' (no line end changed), the - and + rows then printing apart"
    r = sk._diff(old, new)
    assert r.startswith('# characters spelled out\n'), r
    chg = [x for x in r.split('\n') if x[:1] in ('-', '+')]
    assert not sk._hidden(chg) and all(_printed(' '+a[1:])!=_printed(' '+b[1:]) for a in chg if a[0]=='-' for b in chg if b[0]=='+'), r

@pytest.mark.parametrize('old,new', [('pink 🩷 a\n', 'pink 🩷 b\n'), ('नमस्ते दुनिया 👨\u200d👩\u200d👧\n', 'नमस्ते भारत 👨\u200d👩\u200d👧\n'),
                                     ('❤\ufe0f x\n', '❤\ufe0f y\n'), ('می\u200cخواهم a\n', 'می\u200cخواهم b\n')])
def test_a_visible_change_beside_a_joiner_or_emoji_is_shown_as_written(old, new):
    "r17: a word changed in a row that also holds a ZWJ emoji, a variation selector, a Persian ZWNJ or a newer emoji: the change prints, so the diff is shown as written, not escaped"
    r = sk._diff(old, new)
    assert not r.startswith('#') and f'\n-{old[:-1]}\n+{new[:-1]}' in r, r

def test_exhash_rows_that_print_alike_are_spelled_out():
    "r17: exhash's own diff (rows `N|hash|text`) showing rows alike but for their hashes gives way to the spelled-out diff every edit gives"
    for old,cmd in (('a b\n', ('s', ' ', '\u00a0')), ('a\u200bb\n', ('s', '\u200b', '')), ('e\u0301\n', ('c', 'é'))):
        r = str(Message(old).exhash([(lnhash(1, old.rstrip('\n')),)+cmd]))
        assert r.startswith('# characters spelled out\n'), r
    r = str(Message('a b\n').exhash([(lnhash(1, 'a b'), 's', 'b', 'c')]))
    assert '|a c' in r, r  # a change that prints: the engine's rows, with their hashes

def test_an_empty_line_inserted_after_an_unended_last_line_is_a_line():
    "r17: insert_line(1, '') on 'ab' adds the blank line the views then show (the new empty line ended: an empty last line without an end is no line), as exhash's `a ''` does"
    m = Message('ab'); m.insert_line(1, '')
    assert text_lines(m.content)==['ab', ''], m.content
    e = Message('ab'); e.exhash([(lnhash(1, 'ab'), 'a', '')])
    assert text_lines(e.content)==text_lines(m.content)

@pytest.mark.parametrize('n', [0, -1, True, 1.5])
@pytest.mark.parametrize('regex', [False, True])
def test_a_count_below_one_is_refused_whatever_the_pattern(tmp_path, n, regex):
    "`n_matches=0` replaced nothing as plain text and everything as a regex (`re.sub`'s count), -1 the reverse (and said the text wasn't there): each is refused, the file unchanged"
    p = tmp_path/'d.ipynb'
    d = Dialog('d'); d.mk_message('aaa\naaa', id='m0'); d.save(p)
    for f,args in ((sk.msg_str_replace, ('a', 'b')), (sk.msg_strs_replace, (['a'], ['b']))):
        r = f('m0', *args, n_matches=n, use_regex=regex, dlg=str(p))
        assert r.error and 'n_matches must be a whole number of at least 1' in str(r)
        assert read_ipynb(p).messages[0].content=='aaa\naaa'
    assert sk.msg_str_replace('m0', 'a', 'b', n_matches=2, use_regex=regex, dlg=str(p)).changed
    assert read_ipynb(p).messages[0].content=='bba\naaa'

def test_strs_replace_says_it_replaces_pair_after_pair():
    "Its description said \"simultaneously\", so an agent swapped two names with it and lost one: the pairs go in turn, as it now says"
    m = Message('f(x, y)')
    m.strs_replace(['x', 'y'], ['y', 'x'])
    assert m.content=='f(x, x)'  # in turn: the second pair sees what the first wrote
    for f in (sk.msg_strs_replace, Message.strs_replace):
        assert 'simultaneous' not in f.__doc__ and 'pair after pair' in f.__doc__

@pytest.mark.parametrize('pat', ['$$$', ''])
def test_a_rule_ast_grep_cant_use_is_an_edit_error(tmp_path, pat, monkeypatch):
    "An empty pattern or a bare `$$$` raised the engine's RuntimeError (with RUST_BACKTRACE=1, kilobytes of Rust frames): now the edit's `error: ...`, naming the rule, nothing changed"
    monkeypatch.setenv('RUST_BACKTRACE', '1')
    p = tmp_path/'d.ipynb'
    d = Dialog('d'); d.mk_message('x = 1\nprint(x)\n', id='m0'); d.save(p)
    r = sk.msg_ast_replace('m0', [(pat, 'pass')], dlg=str(p))
    assert r.error and not r.changed and f"ast-grep can't use the rules [{pat!r}]" in str(r)
    assert 'backtrace' not in str(r).lower() and len(str(r))<400
    assert read_ipynb(p).messages[0].content=='x = 1\nprint(x)\n'

@pytest.mark.parametrize('tool,kw', [('msg_del_lines', dict(start_line=1)), ('msg_replace_lines', dict(new_content='x')),
                                     ('msg_str_replace', dict(old_str='a', new_str='b')), ('msg_del_lines', dict(start_line=3))])
@pytest.mark.parametrize('end', [-9, -4, 0, 4, -2])
def test_an_end_line_out_of_range_is_named_as_sent(tmp_path, tool, kw, end):
    "r32b: end_line=-9 of a 3-line text was refused as 'Invalid end line -5. Valid range: 1-3': a number never sent, a range leaving out the negative ones the editors take"
    s = kw.get('start_line', 1)
    if s<=(3+end+1 if end<0 else end)<=3: pytest.skip('in range')
    p = tmp_path/'d.ipynb'
    d = Dialog('d'); d.mk_message('a\nb\nc', id='m0'); d.save(p)
    r = str(getattr(sk, tool)('m0', end_line=end, dlg=str(p), **kw))
    assert r.startswith('error: ') and re.search(rf'end line {end}\b', r), r
    assert f'{s} to 3' in r and f'{s-4} to -1' in r, r  # the range both ways: from the start, and from the end
    assert read_ipynb(p).messages[0].content=='a\nb\nc'

@pytest.mark.parametrize('tool,kw', [('msg_replace_lines', dict(new_content='N')), ('msg_del_lines', {})])
@pytest.mark.parametrize('start,end', [(0, None), (-1, None), (5, 9), (10**30, None), (7, 3), (1, -9), (1, -1), (1, 1)])
def test_a_line_number_of_an_empty_message_is_refused_by_every_line_editor(tmp_path, tool, kw, start, end):
    "r33a: msg_replace_lines on an empty message took any line numbers (0, 5 to 9, 7 to 3) and wrote, where msg_del_lines refused them: an empty text has no lines, one rule (`_line_span`); without line numbers replace_lines still writes its content"
    p = tmp_path/'d.ipynb'
    d = Dialog('d'); d.mk_message('', id='m0'); d.save(p)
    end = -1 if end is None and tool=='msg_del_lines' else end
    r = str(getattr(sk, tool)('m0', start_line=start, end_line=end, dlg=str(p), **kw))
    sent = f'start line {start}' + ('' if end is None else f' and end line {end}')  # the numbers as sent (r34a)
    assert r.startswith(f'error: Invalid {sent}: the text has no lines'), r
    assert read_ipynb(p).messages[0].content==''
    assert not str(sk.msg_replace_lines('m0', new_content='N', dlg=str(p))).startswith('error')
    assert read_ipynb(p).messages[0].content=='N'

@pytest.mark.parametrize('end', [3, -1])
def test_an_empty_messages_error_names_only_the_numbers_sent(tmp_path, end):
    "r34a: replace_lines('', end_line=3) was refused as 'Invalid start line 1', a number never sent"
    p = tmp_path/'d.ipynb'
    d = Dialog('d'); d.mk_message('', id='m0'); d.save(p)
    r = str(sk.msg_replace_lines('m0', new_content='N', end_line=end, dlg=str(p)))
    assert r.startswith(f'error: Invalid end line {end}: the text has no lines') and 'start' not in r, r
    assert read_ipynb(p).messages[0].content==''

@given(st.sampled_from(['a\r\nb\r\n', 'a\nb', 'x\r\na\r\n', 'a']), st.lists(st.sampled_from(['P', 'Q', '\r\n', ' ']), min_size=1, max_size=6))
@settings(max_examples=100, deadline=None)
def test_exhash_s_replacement_crlf_ends_a_line_as_a_c_text_does(txt, parts):
    "r32b: `s/a/P\\r\\nQ/` wrote 'P\\r\\r\\nQ' (the engine splits an `s` at its LFs only): its CR LF ends a line, the lines ending as a `c` text's do, no CR left in a line"
    new = ''.join(parts)
    assume('\r\n' in new and not new.endswith(('\r', '\n')))  # (a line end ending the replacement: exhash's rule for a last empty line, another matter)
    k = text_lines(txt).index('a')+1
    m = Message(txt); r = m.exhash([(lnhash(k, 'a'), 's', 'a', new)])
    c = Message(txt); c.exhash([(lnhash(k, 'a'), 'c', new)])  # the line 'a' is all `s` replaces
    assert not r.error and m.content==c.content, (m.content, c.content)
    assert not any(l.endswith('\r') for l in text_lines(m.content))

@pytest.mark.parametrize('txt', ['a\r\nb\r\n', 'a\nb\n'])
def test_exhash_s_crlf_leaves_no_mark_for_a_later_command(txt):
    "r33a: a later command of the same call saw the mark an earlier form sent for an `s` replacement's CR LF (`%s/$/;/` wrote 'P\\r;')"
    e = '\r\n' if txt.startswith('a\r') else '\n'
    m = Message(txt); r = m.exhash([(lnhash(1, 'a'), 's', 'a', 'P\r\nQ'), ('%', 's', '$', ';')])
    assert not r.error and m.content == f'P;{e}Q;{e}b;{e}' and '\r;' not in r

def test_replace_lines_without_new_content_or_a_range_is_refused(tmp_path):
    "R38b: `msg_replace_lines(id='all')` with nothing else emptied every message and saved it (fastcore's defaults, as aidialog's); it is refused, the file unchanged. A range, or new content, says what is meant"
    d = Dialog('d')
    for i in range(3): d.mk_message(f'important code {i}\nline two', id=f'c{i}')
    d.save(p := tmp_path/'d.ipynb'); before = p.read_bytes()
    for args in (dict(id='all'), dict(id='c1'), dict(id='c1', new_content='')):
        txt,err = sk.call_tool('msg_replace_lines', dict(args, dlg='d.ipynb'), root=tmp_path)
        assert err and 'no new_content and no line range' in txt and 'msg_del_lines' in txt and p.read_bytes()==before, txt
    m = Message('a\nb')
    assert m.replace_lines().error and m.content=='a\nb'
    assert not m.replace_lines(1, -1).error and m.content==''  # said: every line, with nothing
    assert not Message('a\nb').replace_lines(new_content='X').error

def test_merging_notes_whose_attachments_share_a_name_renames_the_later_ones(tmp_path):
    "R38b: two notes each with a pasted image (Jupyter names every one `image.png`) could never be merged (refused: 'two attachments named'); the later one is renamed, with its references, past every name the messages hold, and one of the same bytes is shared"
    d = Dialog('d')
    a = d.mk_message('pic ![x](attachment:image.png) <img src="attachment:image.png">', id='n0', msg_type=snote); a.mk_attachment(b'ONE', 'image/png', 'image.png')
    b = d.mk_message('two ![x](attachment:image.png), attachment:image-1.png', id='n1', msg_type=snote)
    b.mk_attachment(b'TWO', 'image/png', 'image.png'); b.mk_attachment(b'X', 'image/png', 'image-1.png')
    c = d.mk_message('same ![y](attachment:image.png)', id='n2', msg_type=snote); c.mk_attachment(b'ONE', 'image/png', 'image.png')
    d.save(p := tmp_path/'d.ipynb')
    txt,err = sk.call_tool('merge_msgs', dict(ids=['n0', 'n1', 'n2'], dlg='d.ipynb'), root=tmp_path)
    assert not err, txt
    m = read_ipynb(p)['n0']
    assert m.content=='pic ![x](attachment:image.png) <img src="attachment:image.png">\n\ntwo ![x](attachment:image-2.png), attachment:image-1.png\n\nsame ![y](attachment:image.png)'
    assert {x.id: x.data for x in m.attachments}=={'image.png': b'ONE', 'image-1.png': b'X', 'image-2.png': b'TWO'}
    assert len(read_ipynb(p).messages)==1

def test_merging_renames_references_whose_names_hold_a_parenthesis(tmp_path):
    "R39b: JupyterLab names a dropped `shot (1).png` `shot%20(1).png`; a reference found by its shape stopped at the `)`, so a merge renamed the attachment but not its reference, and the note showed the first image twice. References are found by the names themselves; a split follows them too"
    d = Dialog('d')
    for i,b in enumerate([b'ONE', b'TWO']):
        d.mk_message(f'n{i} ![shot (1).png](attachment:shot%20(1).png)', id=f'n{i}', msg_type=snote).mk_attachment(b, 'image/png', 'shot%20(1).png')
    d.save(p := tmp_path/'d.ipynb')
    txt,err = sk.call_tool('merge_msgs', dict(ids=['n0', 'n1'], dlg='d.ipynb'), root=tmp_path)
    assert not err, txt
    m = read_ipynb(p)['n0']
    assert m.content=='n0 ![shot (1).png](attachment:shot%20(1).png)\n\nn1 ![shot (1).png](attachment:shot%20(1)-1.png)'
    assert {a.id: a.data for a in m.attachments}=={'shot%20(1).png': b'ONE', 'shot%20(1)-1.png': b'TWO'}
    a,b = m.split(3)
    assert [x.id for x in a.attachments]==['shot%20(1).png'] and [x.id for x in b.attachments]==['shot%20(1)-1.png']

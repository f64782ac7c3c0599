"Differential tests: dialog.skill and aidialog 0.0.39's dlgskill (called as an oracle, never read) on the same file, with the same call, give the same file and the same diff"
import re, shutil, json
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

ad = pytest.importorskip('aidialog.dlgskill')

def _base(path):
    d = Dialog('t')
    d.mk_message('# Title\n\nSome prose about area.\n\nMore prose.', msg_type=snote, id='n1')
    d.mk_message('import math\ndef area(r):\n    return 3.14*r*r\nprint(area(2))\n', id='c1', output=code_output('12.56'))
    d.mk_message('What is the area of a unit circle?', msg_type=sprompt, output='About 3.14, the area.', id='p1')
    d.mk_message('x = 1\ny = 2\nz = x + y', id='c2')
    d.save(path)

@pytest.fixture
def pair(tmp_path):
    a,b = tmp_path/'a.ipynb',tmp_path/'b.ipynb'
    _base(a); shutil.copy(a, b)
    return str(a),str(b)

def _same(pair, theirs, ours):
    "Call aidialog on file a and ours on file b: same diff, same bytes"
    a,b = pair
    r1,r2 = theirs(a),ours(b)
    assert str(r1)==str(r2)
    assert open(a, 'rb').read()==open(b, 'rb').read()
    return r2

edits = [
    ('msg_str_replace', ('c1', '3.14', 'math.pi'), {}),
    ('msg_str_replace', ('c1', 'nothere', 'x'), {}),
    ('msg_str_replace', ('c1', 'area', 'area'), {}),
    ('msg_str_replace', ('n1', 'prose', 'text'), dict(n_matches=1)),
    ('msg_str_replace', ('n1', r'(\w+) prose', r'\1 text'), dict(use_regex=True)),
    ('msg_str_replace', ('c1', 'r', 'R'), dict(start_line=2, end_line=3)),
    ('msg_str_replace', ('p1', 'area', 'surface'), dict(out=True)),
    ('msg_strs_replace', ('c2', ['x', 'y'], ['a', 'b']), {}),
    ('msg_insert_line', ('c2', 0, 'w = 0'), {}),
    ('msg_insert_line', ('c2', 9, 'bad'), {}),
    ('msg_del_lines', ('c1', 1, 1), {}),
]

@pytest.mark.parametrize('name,args,kw', edits, ids=[f'{n}-{i}' for i,(n,_,_) in enumerate(edits)])
def test_line_editors_match(pair, name, args, kw):
    _same(pair, lambda p: getattr(ad, name)(*args, dlg=p, **kw), lambda p: getattr(sk, name)(*args, dlg=p, **kw))

def test_a_line_out_of_range_is_refused_alike_but_named_both_ways(pair):
    "Both refuse `del_lines(3, 9)` of a 3-line message, nothing changed; ours gives the range both ways (fastcore's, aidialog's, named a negative end as it counted it: -9 as -5), on purpose"
    a,b = pair
    r1,r2 = ad.msg_del_lines('c2', 3, 9, dlg=a),sk.msg_del_lines('c2', 3, 9, dlg=b)
    assert str(r1).startswith('error: Invalid end line 9.') and str(r2).startswith('error: Invalid end line 9.')
    assert '3 to 3, or -1 to -1 counting from the end' in str(r2)
    assert open(a, 'rb').read()==open(b, 'rb').read()

def test_insert_line_matches_but_keeps_the_final_line_end(pair):
    "Our insert_line makes aidialog's edit (fastcore's), but keeps the text's final line end, which fastcore's drops (joining its lines with LF): on purpose, nothing is lost"
    from dialog.view import text_lines
    a,b = pair
    assert str(ad.msg_insert_line('c1', 4, '# end', dlg=a))==str(sk.msg_insert_line('c1', 4, '# end', dlg=b))
    ta,tb = read_ipynb(a)['c1'].content,read_ipynb(b)['c1'].content
    assert tb==ta+'\n' and text_lines(ta)==text_lines(tb)==['import math', 'def area(r):', '    return 3.14*r*r', 'print(area(2))', '# end']

@pytest.mark.parametrize('args,kw', [(('c2', 2, 3, 'q = 5'), {}), (('c2',), dict(new_content='all new'))])
def test_replace_lines_matches_but_adds_no_final_line_end(pair, args, kw):
    "Our replace_lines makes aidialog's edit (fastcore's) and the same diff, but adds no final line end the text didn't have (fastcore's ends the new content with one): on purpose"
    a,b = pair
    assert str(ad.msg_replace_lines(*args, dlg=a, **kw))==str(sk.msg_replace_lines(*args, dlg=b, **kw))
    ta,tb = read_ipynb(a)['c2'].content,read_ipynb(b)['c2'].content
    assert ta==tb+'\n' and not tb.endswith('\n')

def test_del_lines_matches_and_its_diff_shows_a_final_line_end(pair):
    "Deleting a last line that had no line end leaves the one before it at the end: the same edit as aidialog's, but our diff spells out line ends when the final one came or went, where `str_diff`'s can't show it"
    a,b = pair
    r1,r2 = ad.msg_del_lines('n1', 1, -1, re_filter='prose', dlg=a),sk.msg_del_lines('n1', 1, -1, re_filter='prose', dlg=b)
    assert open(a, 'rb').read()==open(b, 'rb').read()
    assert str(r2)=='# line endings spelled out\n@@ -2,4 +2,2 @@\n \\n\n-Some prose about area.\\n\n \\n\n-More prose.'  # the text now ends with a line end

def test_unique_prefix_and_missing_id(pair):
    _same(pair, lambda p: ad.msg_str_replace('c', 'x', 'X', dlg=p) if False else ad.msg_str_replace('c2', 'x', 'X', dlg=p),
          lambda p: sk.msg_str_replace('c2', 'x', 'X', dlg=p))
    with pytest.raises(KeyError, match="'zz'"): sk.msg_str_replace('zz', 'x', 'X', dlg=pair[1])

def test_lnhash_views_match(pair):
    for i in ('n1', 'c1', 'p1', 'c2'): assert str(sk.lnhashview_msg(i, dlg=pair[1]))==str(ad.lnhashview_msg(i, dlg=pair[0]))
    assert str(sk.lnhashview_msg('c1', dlg=pair[1], start_line=2, end_line=3))==str(ad.lnhashview_msg('c1', dlg=pair[0], start_line=2, end_line=3))

safe = st.text(st.characters(blacklist_characters='\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029', blacklist_categories=('Cs',)), max_size=60)

@settings(max_examples=150, deadline=None)
@given(safe)
def test_lnhash_addresses_match_aidialog(txt):
    "On text whose only line breaks are \\n, aidialog's addresses and ours agree"
    from aidialog.dialog import Message as AMsg
    assert str(Message(txt).lnhashview())==str(AMsg(txt).lnhashview())

@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=('Cs',)), max_size=60))
def test_lnhash_addresses_are_the_engines(txt):
    "On any text our addresses are the exhash engine's own (aidialog's differ where it splits at \\r, \\u2028...)"
    import exhash
    assert str(Message(txt).lnhashview()).split('\n')==[l.lstrip() for l in exhash.lnhashview(txt)] or (txt=='' and str(Message(txt).lnhashview())=='')

def _addr(p, i, n): return sk.lnhashview_msg(i, dlg=p).split('\n')[n-1].rsplit('|', 1)[0]+'|'

def test_exhash_matches(pair):
    a = _addr(pair[1], 'c2', 3)
    cmds = [(a, 's', 'x', 'X'), ('0|AA|', 'a', '# top'), ('%', '>')]
    _same(pair, lambda p: ad.msg_exhash('c2', *cmds, dlg=p), lambda p: sk.msg_exhash('c2', cmds, dlg=p))
    b = _addr(pair[1], 'c2', 2)
    _same(pair, lambda p: ad.msg_exhash('c2', (b, 'd'), dlg=p), lambda p: sk.msg_exhash('c2', [(b, 'd')], dlg=p))
    _same(pair, lambda p: ad.msg_exhash('n1', ('%', 'g', 'prose', ('s', 'prose', 'text')), dlg=p), lambda p: sk.msg_exhash('n1', [('%', 'g', 'prose', ('s', 'prose', 'text'))], dlg=p))

def test_exhash_keeps_a_final_newline_on_purpose(pair):
    "aidialog drops a message's final newline on any exhash edit; ours keeps it, as the other editors do"
    a = _addr(pair[1], 'c1', 3)
    cmds = [(a, 's', '3.14', 'math.pi')]
    assert str(ad.msg_exhash('c1', *cmds, dlg=pair[0]))==str(sk.msg_exhash('c1', cmds, dlg=pair[1]))
    assert read_ipynb(pair[1])['c1'].content.endswith('print(area(2))\n')
    assert not read_ipynb(pair[0])['c1'].content.endswith('\n')

def test_stale_exhash_refused_by_both(pair):
    a = _addr(pair[1], 'c1', 3)
    for p in pair: sk.msg_str_replace('c1', '3.14', '3.1416', dlg=p)
    before = open(pair[1], 'rb').read()
    with pytest.raises(ValueError, match='stale'): ad.msg_exhash('c1', (a, 'd'), dlg=pair[0])
    r = sk.msg_exhash('c1', [(a, 'd')], dlg=pair[1])
    assert r.startswith('error: stale lnhash at line 3')
    assert open(pair[0], 'rb').read()==open(pair[1], 'rb').read()==before

def test_del_msgs_match(pair):
    r = _same(pair, lambda p: [m.id for m in ad.del_msgs('c1', 'p1', dlg=p)], lambda p: [m.id for m in sk.del_msgs(['c1', 'p1'], dlg=p)])
    assert r==['c1', 'p1']

def test_move_msgs_match(pair):
    _same(pair, lambda p: [m.id for m in ad.move_msgs(['c2', 'n1'], after='c1', dlg=p)], lambda p: [m.id for m in sk.move_msgs(['c2', 'n1'], after='c1', dlg=p)])
    _same(pair, lambda p: [m.id for m in ad.move_msgs('p1', before='c2', dlg=p)], lambda p: [m.id for m in sk.move_msgs('p1', before='c2', dlg=p)])

def _norm_ids(p, keep):
    "File `p`'s text with every id not in `keep` replaced by its position"
    nb = json.load(open(p))
    for i,c in enumerate(nb['cells']):
        if c['id'] not in keep: c['id'] = f'new{i}'
    return json.dumps(nb, sort_keys=True)

def test_add_msg_matches(pair):
    keep = {'n1', 'c1', 'p1', 'c2'}
    for kw in [dict(after='c1'), dict(before='n1'), {}, dict(msg_type='note'), dict(msg_type='prompt', after='p1'), dict(msg_type='raw')]:
        ad.add_msg('a new\nmessage', dlg=pair[0], **kw); sk.add_msg('a new\nmessage', dlg=pair[1], **kw)
        assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)

def test_split_merge_match(pair):
    a = ad.split_msg('n1', 3, dlg=pair[0]); b = sk.split_msg('n1', 3, dlg=pair[1])
    assert [m.content for m in a]==[m.content for m in b]
    keep = {'n1', 'c1', 'p1', 'c2'}
    assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)
    new = b[1].id
    # give both files the same new id, then merge back: the original note comes back, in both
    txt = open(pair[0]).read().replace(a[1].id, new); open(pair[0], 'w').write(txt)
    _same(pair, lambda p: ad.merge_msgs('n1', new, dlg=p).content, lambda p: sk.merge_msgs(['n1', new], dlg=p).content)
    assert sk.view_msg('n1', dlg=pair[1], nums=False)=='# Title\n\nSome prose about area.\n\nMore prose.'

def test_merge_code_match(pair):
    _same(pair, lambda p: ad.merge_msgs('c1', 'c2', dlg=p).content, lambda p: sk.merge_msgs(['c1', 'c2'], dlg=p).content)

def test_copy_cut_paste_match(pair):
    keep = {'n1', 'c1', 'p1', 'c2'}
    ad.copy_msgs('c1', 'p1', dlg=pair[0]); sk.copy_msgs(['c1', 'p1'], dlg=pair[1])
    ad.paste_msgs(after='c2', dlg=pair[0]); sk.paste_msgs(after='c2', dlg=pair[1])
    assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)
    ad.cut_msgs('n1', dlg=pair[0]); sk.cut_msgs('n1', dlg=pair[1])
    ad.paste_msgs(before='c1', dlg=pair[0]); sk.paste_msgs(before='c1', dlg=pair[1])
    assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)

def test_create_dlg_matches(tmp_path):
    ad.create_dlg(str(tmp_path/'a.ipynb'), 'x = 1\ny = 2'); sk.create_dlg(str(tmp_path/'b.ipynb'), 'x = 1\ny = 2')
    assert _norm_ids(tmp_path/'a.ipynb', set())==_norm_ids(tmp_path/'b.ipynb', set())

def test_update_msg_type_matches(pair):
    ad.update_msg('c2', msg_type='note', dlg=pair[0]); sk.update_msg('c2', msg_type='note', dlg=pair[1])
    assert open(pair[0], 'rb').read()==open(pair[1], 'rb').read()
    ad.update_msg('c2', mergemeta={'tags': ['x']}, dlg=pair[0]); sk.update_msg('c2', mergemeta={'tags': ['x']}, dlg=pair[1])
    assert open(pair[0], 'rb').read()==open(pair[1], 'rb').read()

def test_several_ids_differ_on_purpose(pair):
    "aidialog keeps the edits that worked and lists each result; ours edits a list of ids all or none"
    r = ad.msg_str_replace(['c1', 'c2'], 'area', 'surface', dlg=pair[0])
    assert isinstance(r, list) and r[1][1].startswith('error:')
    assert open(pair[0], 'rb').read()!=open(pair[1], 'rb').read()  # theirs changed c1
    before = open(pair[1], 'rb').read()
    assert sk.msg_str_replace(['c1', 'c2'], 'area', 'surface', dlg=pair[1]).startswith("error: message 'c2'")
    assert open(pair[1], 'rb').read()==before

def _found(r): return [m.id for m in r if m.id in getattr(r, 'matched', {m.id})]  # aidialog's results hold context rows too

@pytest.mark.parametrize('theirs,ours', [
    (dict(re_pattern='area'), dict(pattern='area')),
    (dict(re_pattern='AREA', use_case=True), dict(pattern='AREA', case=True)),
    (dict(re_pattern='3.14', use_regex=False), dict(pattern='3.14', plain=True, out=True)),  # aidialog searches replies always; ours with out=True, as `nbdialog find --out`
    (dict(msg_type='code'), dict(msg_type='code')),
    (dict(re_pattern='x', msg_type='code', limit=1), dict(pattern='x', msg_type='code', limit=1)),
    (dict(headers_only=True), dict(headers=True)),
    (dict(header_section='Title'), dict(section='Title')),
])
def test_find_msgs_match(pair, theirs, ours):
    assert _found(ad.find_msgs(dlg=pair[0], **theirs))==_found(sk.find_msgs(dlg=pair[1], **ours))

@pytest.mark.parametrize('name', ['area', 'math', 'x', 'print', 'r'])
def test_symbol_finders_match(pair, name):
    "symdef the same; our symref finds every message naming `name`, bindings too (a def, an assignment, an import): aidialog's, those that load it, plus those that bind it"
    pytest.importorskip('remold')
    def found(f, g): return _found(f(dlg=pair[0] if f is ad.find_msgs else pair[1], pred=g(name)))
    assert found(ad.find_msgs, ad.symdef_finder)==found(sk.find_msgs, sk.symdef_finder), name
    binds = set(found(sk.find_msgs, sk.symdef_finder))
    assert set(found(sk.find_msgs, sk.symref_finder))==set(found(ad.find_msgs, ad.symref_finder))|binds, name

def test_ast_finder_matches(pair):
    pytest.importorskip('remold')
    for pat in ('print($X)', 'return $X', '$A + $B'):
        assert _found(ad.find_msgs(dlg=pair[0], pred=ad.ast_finder(pat)))==_found(sk.find_msgs(dlg=pair[1], pred=sk.ast_finder(pat))), pat

def test_current_message_placement_matches(pair):
    keep = {'n1', 'c1', 'p1', 'c2'}
    ad.set_dlg(pair[0]); sk.set_dlg(pair[1])
    try:
        ad.set_cur_msg('c1'); sk.set_cur_msg('c1')
        for t in ('one', 'two'): ad.add_msg(t); sk.add_msg(t)
        assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)
        assert ad.cur_msg().id==sk.cur_msg().id=='c1'
        ad.copy_msgs('n1'); sk.copy_msgs('n1')
        ad.paste_msgs(); sk.paste_msgs()
        assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep)
        assert ad.cur_dlg().summary()!='' and [m.id for m in ad.cur_dlg().messages][:2]==[m.id for m in sk.cur_dlg().messages][:2]
    finally: sk.set_dlg(None); sk.set_cur_msg(None)

def test_export_differs_on_purpose(pair):
    "aidialog marks export in the cell metadata; ours writes the `#| export` directive, the core's single source of truth"
    ad.update_msg('c2', export=True, dlg=pair[0]); sk.update_msg('c2', export=True, dlg=pair[1])
    a,b = read_ipynb(pair[0])['c2'],read_ipynb(pair[1])['c2']
    assert a.exported and b.exported
    assert a.meta=={'nbdev': {'export': 'true'}} and a.content=='x = 1\ny = 2\nz = x + y'
    assert b.meta=={} and b.content=='#| export\nx = 1\ny = 2\nz = x + y'

def test_held_save_differs_on_purpose(pair):
    "A held dialog saved after another program changed its file: aidialog writes over the change, ours refuses"
    from aidialog.ipynb import read_ipynb as ad_read
    theirs,ours = ad_read(pair[0]),read_ipynb(pair[1])
    for p in pair: sk.msg_str_replace('c2', 'x = 1', 'x = 10', dlg=p)
    theirs.msg('c1').content = ours['c1'].content = 'changed'
    theirs.save()
    assert 'x = 10' not in read_ipynb(pair[0])['c2'].content  # the other program's edit is gone
    with pytest.raises(DialogConflictError): ours.save()
    assert 'x = 10' in read_ipynb(pair[1])['c2'].content

def test_add_msg_magic_matches(pair, capsys):
    keep = {'n1', 'c1', 'p1', 'c2'}
    ad.set_dlg(pair[0]); sk.set_dlg(pair[1])
    try:
        for line,body in [('note after=c1', '# A note\n\n'), ('after=n1', 'x = 42\n'), ('raw before=c2', 'raw text')]:
            ad.add_msg_magic(line, body); sk.add_msg_magic(line, body)
            assert _norm_ids(pair[0], keep)==_norm_ids(pair[1], keep), line
    finally: sk.set_dlg(None)

@settings(max_examples=150, deadline=None)
@given(safe)
def test_view_counts_lines_as_aidialog_and_the_line_editors(txt):
    "`Message.view` shows the lines aidialog's view shows and `lnhashview` addresses, which are the lines fastcore's line editors count: a final line end starts no new line"
    from aidialog.dialog import Message as AMsg
    from fastcore.tools import insert_line
    m = Message(txt)
    assert m.view(nums=False)==str(AMsg(txt).view(nums=False))
    rows = lambda s: str(s).split('\n') if str(s) else []
    n = len(rows(m.view()))
    assert n==len(rows(m.lnhashview()))
    if n: insert_line(txt, n, 'x')  # the last line shown is one the editors can address
    with pytest.raises(ValueError): insert_line(txt, n+1, 'x')

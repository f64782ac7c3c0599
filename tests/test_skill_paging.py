"Paging: the listings an agent reads (summary_dlg, view_dlg, find_msgs) fit a character budget by default, say what they left out and how to get it, and their pages put together are the whole"
import json, re
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

@pytest.fixture(scope='module')
def big(tmp_path_factory):
    "A dialog of 3,000 messages, some with long outputs: its summary alone is over 200 K characters"
    p = tmp_path_factory.mktemp('big')/'big.ipynb'
    d = Dialog('big')
    for i in range(3000):
        if i%3: d.mk_message(f'x{i} = {i}  # ' + 'word '*30, id=f'm{i:04d}', output=code_output('y'*2000) if i%7==0 else None)
        else: d.mk_message(f'## Part {i}\n\n' + 'prose '*40, msg_type=snote, id=f'm{i:04d}')
    d.save(p)
    return p

def _more(txt):
    "The offset the last line asks for, or None"
    m = re.fullmatch(r'… ([\d,]+) more (?:messages?|match(?:es)?): call again with offset=(\d+)', txt.rsplit('\n', 1)[-1])
    return m and (int(m[1].replace(',', '')), int(m[2]))

def test_default_pages_fit_the_budget_and_say_what_is_left(big):
    d = read_ipynb(big)
    assert len(d.summary(180))>400_000  # what the tool used to return
    for txt in (sk.summary_dlg(big), sk.view_dlg(big), sk.view_dlg(big, incl_out=True, trunc_out=False), sk.tool_text(sk.find_msgs('x', dlg=big))):
        assert len(txt)<=30_000+200, len(txt)
        left,nxt = _more(txt)
        assert left>1000 and nxt>0
    rows = sk.summary_dlg(big).split('\n')
    assert _more(sk.summary_dlg(big))==(3000-len(rows)+1, len(rows)-1)

@pytest.mark.parametrize('tool', ['summary', 'view', 'find'])
def test_pages_put_together_are_the_whole(big, tool):
    d = read_ipynb(big)
    def call(off):
        if tool=='summary': return sk.summary_dlg(big, offset=off, maxchars=50_000)
        if tool=='view': return sk.view_dlg(big, incl_out=True, offset=off, maxchars=50_000)
        return sk.tool_text(sk.find_msgs('Part', dlg=big, offset=off, maxchars=20_000))
    got,off,calls = [],0,0
    while True:
        txt = call(off); calls += 1
        more = _more(txt)
        body = txt.rsplit('\n', 1)[0] if more else txt
        if tool=='view': body = '\n'.join(body.split('\n')[1:-1])  # the <dialog> element around each page
        got.append(body)
        if not more: break
        assert more[1]>off
        off = more[1]
    assert calls>2
    whole = {'summary': lambda: d.summary(180), 'view': lambda: '\n'.join(d.view(incl_out=True).split('\n')[1:-1]),
             'find': lambda: sk.tool_text(sk.find_msgs('Part', dlg=big, maxchars=0))}[tool]()
    assert '\n'.join(got)==whole

def test_limit_offset_and_errors(big):
    txt = sk.summary_dlg(big, offset=10, limit=3)
    assert [r.split(':')[0] for r in txt.split('\n')[:3]]==['m0010', 'm0011', 'm0012'] and _more(txt)==(2987, 13)
    assert sk.summary_dlg(big, offset=2999).startswith('m2999') and _more(sk.summary_dlg(big, offset=2999)) is None
    for kw,msg in ((dict(offset=3000), 'offset 3000 is past the end: there are 3000 messages'), (dict(offset=-1), 'offset must be 0 or more'),
                   (dict(limit=0), 'limit must be 1 or more'), (dict(maxchars=-5), 'maxchars must be 0 or more')):
        with pytest.raises(ValueError, match=msg): sk.summary_dlg(big, **kw)
    f = sk.find_msgs('Part', dlg=big, offset=5, limit=2)
    assert f.attrgot('id')==['m0015', 'm0018'] and f.more=='… 993 more matches: call again with offset=7'
    txt,err = sk.call_tool('find_msgs', dict(pattern='Part', dlg='big.ipynb', limit=2), root=big.parent)
    assert not err and txt.split('\n')[-1]=='… 998 more matches: call again with offset=2'

def test_one_message_bigger_than_the_budget_is_cut_and_says_so(tmp_path):
    p = tmp_path/'one.ipynb'
    d = Dialog('one'); d.mk_message('print(1)', id='m1', output=code_output('z'*100_000)); d.mk_message('2', id='m2'); d.save(p)
    txt = sk.view_dlg(p, incl_out=True, trunc_out=False, maxchars=5000)
    assert '… (cut at 5,000 characters; maxchars=0 shows it whole)' in txt and len(txt)<5300 and _more(txt)==(1, 1)
    assert 'z'*1000 not in sk.view_dlg(p, incl_out=True, trunc_out=False, offset=1)

def test_only_errors_pages_among_the_errors(tmp_path):
    p = tmp_path/'e.ipynb'
    d = Dialog('e')
    for i in range(6): d.mk_message(f'f{i}()', id=f'e{i}', output=[dict(output_type='error', ename='E', evalue='boom', traceback=[])] if i%2 else None)
    d.save(p)
    txt = sk.view_dlg(p, only_errors=True, limit=2)
    assert re.findall(r'id="(e\d)"', txt)==['e1', 'e3'] and _more(txt)==(1, 2)

# --- one message's lines, and an edit's diff

@pytest.fixture(scope='module')
def long(tmp_path_factory):
    "A dialog with one message of 20,000 lines (a pasted log: 700 K characters) with an output, and two small ones"
    p = tmp_path_factory.mktemp('long')/'long.ipynb'
    d = Dialog('long')
    d.mk_message('\n'.join(f'row {i}, some value, another value' for i in range(20_000)), id='big', output=code_output('the output'))
    d.mk_message('x = 1', id='small'); d.mk_message('y = 2', id='other')
    d.save(p)
    return p

def _next_line(txt):
    "The start_line the last line asks for, or None"
    m = re.match(r'… [\d,]+ more lines?: call again with start_line=(\d+)', txt.rsplit('\n', 1)[-1])
    return m and int(m[1])

@pytest.mark.parametrize('lnhashs', [False, True])
def test_one_message_is_shown_a_page_of_lines_at_a_time(long, lnhashs):
    "view_msg and lnhashview_msg keep the budget, and their pages put together are the whole view, the outputs after the last line"
    m = read_ipynb(long)['big']
    whole = m.lnhashview(incl_out=True) if lnhashs else m.view(incl_out=True)
    def f(s): return sk.view_msg('big', dlg=long, start_line=s, lnhashs=lnhashs, incl_out=True)
    got,start,calls = [],1,0
    while True:
        txt = f(start); calls += 1
        assert len(txt)<=30_000+200, len(txt)
        nxt = _next_line(txt)
        got.append(txt.rsplit('\n', 1)[0] if nxt else txt)
        if not nxt: break
        assert nxt>start and '(the outputs come after the last line)' in txt
        start = nxt
    assert calls>20 and '\n'.join(got)==whole

def test_lnhashview_msg_pages_as_view_msg_does(long):
    test = sk.lnhashview_msg('big', dlg=long, start_line=5000)
    assert test==sk.view_msg('big', dlg=long, start_line=5000, lnhashs=True) and _next_line(test)>5000
    assert sk.lnhashview_msg('big', dlg=long, maxchars=0)==read_ipynb(long)['big'].lnhashview()

def test_view_msgs_pages_messages_and_cuts_a_long_one_saying_where_to_go_on(long):
    txt = sk.view_msgs(['big', 'small', 'other'], dlg=long)
    assert len(txt)<=30_000+200
    assert re.search(r"… [\d,]+ more lines: call view_msg with id='big' and start_line=\d+", txt)
    assert txt.endswith('# msg small\n     1 │ x = 1\n\n# msg other\n     1 │ y = 2')  # the rest of the budget
    txt = sk.view_msgs(['small', 'other', 'big'], dlg=long, maxchars=60)
    assert txt=='# msg small\n     1 │ x = 1\n\n# msg other\n     1 │ y = 2\n\n… 1 more message: call again with offset=2'
    assert sk.view_msgs(['big', 'small', 'other'], dlg=long, offset=1)=='# msg small\n     1 │ x = 1\n\n# msg other\n     1 │ y = 2'

def test_an_edits_long_diff_is_cut_for_a_client_and_the_edit_is_whole(long, tmp_path):
    p = tmp_path/'l.ipynb'; p.write_bytes(long.read_bytes())
    txt,err = sk.call_tool('msg_str_replace', dict(id='big', old_str='value', new_str='VALUE', dlg=str(p)))
    assert not err and len(txt)<=30_000+200, len(txt)
    assert re.search(r'… [\d,]+ more lines: the edit was made in full: view_msg shows the message as it is now$', txt)
    assert 'value' not in read_ipynb(p)['big'].content
    assert len(sk.msg_str_replace('big', 'VALUE', 'value', dlg=p))>1_000_000  # in Python, the whole diff

@pytest.mark.parametrize('tool', ['view_msg', 'lnhashview_msg'])
def test_the_next_page_hint_keeps_the_end_line_asked_for(tmp_path, tool):
    "`start_line=3, end_line=5` cut after line 4: the hint asks for line 5 alone, and following it shows just that"
    d = Dialog('d'); d.mk_message('\n'.join(f'line{i}' for i in range(1, 11)), id='m'); d.save(tmp_path/'d.ipynb')
    def f(**kw): return getattr(sk, tool)('m', dlg=tmp_path/'d.ipynb', maxchars=30, **kw)
    txt = f(start_line=3, end_line=5)
    assert txt.endswith('… 1 more line: call again with start_line=5 and end_line=5'), txt
    assert re.findall(r'line(\d+)$', f(start_line=5, end_line=5), re.M)==['5']
    assert not f(start_line=3).endswith('end_line=None')  # no end_line asked for: none named

@pytest.mark.parametrize('opts', [dict(lnhashs=True), dict(nums=False), dict(incl_out=True), dict(incl_out=True, trunc_out=False), dict(maxchars=700), {}])
def test_view_msgs_hint_names_the_view_msg_options_that_give_the_same_view(tmp_path, opts):
    "Following the hint of a cut message, view_msg shows the rest of the same view (hash addresses, no numbers, outputs, the budget asked for)"
    d = Dialog('d'); d.mk_message('\n'.join(f'line{i}' for i in range(1, 6000)), id='m1', output=code_output('out')); d.save(tmp_path/'d.ipynb')
    txt = sk.view_msgs(['m1'], dlg=tmp_path/'d.ipynb', **opts)
    hint = next(l for l in txt.split('\n') if l.startswith('…'))
    m = re.fullmatch(r"… [\d,]+ more lines: call view_msg with id='m1'((?:, \w+=\w+)*) and start_line=(\d+)( \(the outputs come after the last line\))?", hint)
    assert m, hint
    named = {k: json.loads(v) for k,v in re.findall(r', (\w+)=(\w+)', m[1])}
    assert named==opts, (named, opts)  # exactly those that differ from view_msg's defaults
    assert sk.view_msg('m1', dlg=tmp_path/'d.ipynb', start_line=int(m[2]), **named)==sk.view_msg('m1', dlg=tmp_path/'d.ipynb', start_line=int(m[2]), **opts)
    assert bool(m[3])==bool(opts.get('incl_out'))

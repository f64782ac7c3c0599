"Tool arguments: every call is checked against the tool's own schema before the tool runs; a value of the wrong JSON type is a tool error, never taken as something else (a number as a position); the schemas say what the tools take"
import json, re, shutil
from fastcore.basics import listify
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from dialog.core import *
from dialog.ipynb import *
import dialog.skill as sk

@pytest.fixture(autouse=True)
def _fresh_state():
    old = dict(vars(sk._user))
    yield
    vars(sk._user).update(old)

def _mk(path):
    d = Dialog('t')
    d.mk_message('# Title\n\nprose', msg_type=snote, id='n1')
    d.mk_message('x = 1\ny = 2\nprint(x)', id='c1', output=code_output('1'))
    d.mk_message('Why?', msg_type=sprompt, output='Because.', id='p1')
    d.mk_message('z = 3', id='c2')
    d.save(path)
    return path

# --- a number is no id

@pytest.mark.parametrize('name,args', [
    ('del_msgs', dict(ids=0)), ('del_msgs', dict(ids=[0])), ('del_msgs', dict(ids=-1)),
    ('msg_str_replace', dict(id=-1, old_str='z', new_str='w')), ('msg_str_replace', dict(id=[0], old_str='x', new_str='w')),
    ('update_msg', dict(id=0, msg_type='note')), ('cut_msgs', dict(ids=1)), ('move_msgs', dict(ids=0, after='c2')),
    ('merge_msgs', dict(ids=[0, 1])), ('split_msg', dict(id=1, linenos=2)), ('msg_exhash', dict(id=0, cmds=[['1|AA|', 'd']])),
    ('add_msg', dict(content='q', after=0)), ('view_msg', dict(id=0)),
])
def test_a_number_given_as_an_id_is_a_tool_error_and_changes_nothing(tmp_path, name, args):
    p = _mk(tmp_path/'d.ipynb')
    before = p.read_bytes()
    txt,err = sk.call_tool(name, args|dict(dlg='d.ipynb'), root=tmp_path)
    assert err and txt.startswith('TypeError: argument `') and 'must be a string' in txt, txt
    assert p.read_bytes()==before

def test_python_callers_cannot_name_a_message_by_position_either(tmp_path):
    p = _mk(tmp_path/'d.ipynb')
    before = p.read_bytes()
    with pytest.raises(TypeError, match='never by position'): sk.del_msgs(0, dlg=p)
    with pytest.raises(TypeError, match='never by position'): sk.msg_str_replace(-1, 'z', 'w', dlg=p)
    assert p.read_bytes()==before

def test_a_parameter_described_as_taking_one_thing_alone_has_a_schema_that_takes_it():
    "A description offering 'or one id' (or command, or line number) is backed by a schema branch for the lone item: an agent sends what it reads"
    for s in sk.tool_schemas('inputSchema'):
        for k,p in s['inputSchema']['properties'].items():
            if re.search(r'\bor one\b', p.get('description', '')):
                alts = p.get('anyOf', [])  # (one branch the array, one its lone item)
                assert any(o.get('type')=='array' and o.get('items') in alts for o in alts), (s['name'], k, p)

def test_dlg_is_required_over_json_and_the_error_names_no_set_dlg(tmp_path):
    _mk(tmp_path/'d.ipynb')
    for s in sk.tool_schemas('inputSchema'):
        if 'dlg' in s['inputSchema']['properties']: assert 'dlg' in s['inputSchema']['required'], s['name']
        txt,err = sk.call_tool(s['name'], {}, root=tmp_path)
        assert err and 'set_dlg' not in txt, (s['name'], txt)
    txt,err = sk.call_tool('summary_dlg', dict(dlg=None), root=tmp_path)
    assert err and 'summary_dlg needs `dlg`' in txt
    sk.set_dlg(tmp_path/'d.ipynb')  # a host with a current dialog lets its model leave `dlg` out
    txt,err = sk.call_tool('summary_dlg', {}, root=tmp_path)
    assert not err and txt.startswith('n1:note:')

def test_unknown_arguments_and_nulls(tmp_path):
    _mk(tmp_path/'d.ipynb')
    txt,err = sk.call_tool('view_msg', dict(ids='c1', dlg='d.ipynb'), root=tmp_path)
    assert err and "view_msg has no argument 'ids'" in txt
    a,_ = sk.call_tool('summary_dlg', dict(dlg='d.ipynb', limit=None), root=tmp_path)  # null where the schema admits it: the default
    assert a==sk.summary_dlg(tmp_path/'d.ipynb')
    txt,err = sk.call_tool('view_msg', dict(id='c1', dlg='d.ipynb', start_line=2.0), root=tmp_path)  # a whole-valued JSON number is an integer
    assert not err and txt.startswith('     2 │ y = 2')
    txt,err = sk.call_tool('view_msg', dict(id='c1', dlg='d.ipynb', start_line=2.5), root=tmp_path)
    assert err and 'argument `start_line` must be a whole number, not a number 2.5' in txt
    txt,err = sk.call_tool('view_msg', dict(id='c1', dlg='d.ipynb', nums=1), root=tmp_path)  # 1 is not true
    assert err and 'argument `nums` must be true or false' in txt
    txt,err = sk.call_tool('summary_dlg', ['d.ipynb'], root=tmp_path)
    assert err and 'takes its arguments as an object' in txt

def test_ast_replace_takes_pattern_replacement_pairs_as_its_schema_says(tmp_path):
    pytest.importorskip('remold')
    p = _mk(tmp_path/'d.ipynb')
    s = sk.tool_schema(sk.msg_ast_replace, 'inputSchema')['inputSchema']['properties']['repls']
    assert s['items']['minItems']==s['items']['maxItems']==2
    txt,err = sk.call_tool('msg_ast_replace', dict(id='c1', repls=[['print($X)', 'log($X)']], dlg='d.ipynb'), root=tmp_path)
    assert not err and '+log(x)' in txt, txt
    assert read_ipynb(p)['c1'].content.endswith('log(x)')
    txt,err = sk.call_tool('msg_ast_replace', dict(id='c1', repls=['log($X)', 'print($X)'], dlg='d.ipynb'), root=tmp_path)  # what the old schema asked for
    assert err and 'argument `repls`[0] must be an array of 2 strings' in txt

# --- our checker agrees with JSON Schema on the schemas our tools have

_json = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=3), kids, max_size=3), max_leaves=10)
_props = [(s['name'], k, p) for s in sk.tool_schemas('inputSchema') for k,p in s['inputSchema']['properties'].items()]

@pytest.mark.parametrize('tool,k,p', _props, ids=[f'{t}.{k}' for t,k,_ in _props])
@given(v=_json)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_check_agrees_with_jsonschema(tool, k, p, v):
    jsonschema = pytest.importorskip('jsonschema')
    p = {kk:vv for kk,vv in p.items() if kk!='default'}
    try: jsonschema.validate(v, p); theirs = True
    except jsonschema.ValidationError: theirs = False
    try: sk._check(p, v, k); ours = True
    except TypeError: ours = False
    assert ours==theirs, (tool, k, p, v)

@pytest.mark.parametrize('cur', [False, True])
def test_every_default_is_valid_in_its_own_schema(cur):
    "A client that validates arguments against inputSchema takes every default (null included: the tool takes it, as if left out)"
    jsonschema = pytest.importorskip('jsonschema')
    for s in sk.tool_schemas('inputSchema', cur):
        jsonschema.Draft202012Validator.check_schema(s['inputSchema'])
        defaults = {k:p['default'] for k,p in s['inputSchema']['properties'].items() if 'default' in p}
        bad = [e.message for e in jsonschema.Draft202012Validator(s['inputSchema']|dict(required=[])).iter_errors(defaults)]
        assert not bad, (s['name'], bad)

def test_tool_descriptions_speak_json_not_python():
    "null, true and false, which a JSON caller sends; never None, True or False, which it would send as strings"
    for cur in (False, True):
        for s in sk.tool_schemas('inputSchema', cur):
            texts = [s['description']] + [p.get('description', '') for p in s['inputSchema']['properties'].values()]
            assert not [t for t in texts if re.search(r'\b(None|True|False)\b', t)], s['name']
    d = sk.tool_schema(sk.update_msg, 'inputSchema')['inputSchema']['properties']['export']['description']
    assert d=='Add (true, code only) or remove (false) the nbdev export directive'

# --- every tool, called with what its schema allows (and what it doesn't)

def _strat(p, ids):
    "A hypothesis strategy for values schema `p` allows: ids drawn from the dialog's, and some not in it"
    if 'anyOf' in p: return st.one_of([_strat(o, ids) for o in p['anyOf']])
    t = p.get('type')
    if isinstance(t, list): return st.one_of([_strat(p|dict(type=x), ids) for x in t])
    if t=='null': return st.none()
    if t=='string': return st.sampled_from(ids+['', 'zz', 'all', 'print', r'(\w+)']) | st.text(max_size=6)
    if t=='integer': return st.integers(-3, 12)
    if t=='number': return st.floats(-3, 12)
    if t=='boolean': return st.booleans()
    if t=='object': return st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=2)
    if t=='array':
        pre = [_strat(o, ids) for o in p.get('prefixItems', [])]
        if pre and p.get('maxItems')==len(pre): return st.tuples(*pre).map(list)
        if p.get('items')=={}: return st.lists(st.sampled_from(['1|AA|', '0|AA|', '$', '%', 'c', 'd', 'p', 'a', 's', 'x', '>', '2']), max_size=4)
        return st.lists(_strat(p.get('items', {}), ids), max_size=3)
    return _json

_schemas = sk.tool_schemas('inputSchema')  # once: docments reads the source each time

@st.composite
def _call(draw, ids):
    s = draw(st.sampled_from(_schemas))
    ps,req = s['inputSchema']['properties'],s['inputSchema'].get('required', [])
    args = {k:draw(_strat(p, ids)) for k,p in ps.items() if k in req or draw(st.booleans())}
    if 'dlg' in args: args['dlg'] = 'd.ipynb'
    if 'fname' in args: args['fname'] = draw(st.sampled_from(['new', 'd.ipynb', 'sub/x']))
    if 'sw' in args: args['sw'] = draw(st.integers(1, 8))
    bad = draw(st.sampled_from([None]+sorted(args)))  # maybe one argument of another JSON type
    if bad is not None and bad not in ('dlg', 'fname'): args[bad] = draw(_json)
    return s,args

_ids = ['n1', 'c1', 'p1', 'c2', 'c', 'p']

@given(_call(_ids))
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_every_tool_with_schema_arguments_never_crashes_and_bad_types_are_tool_errors(tmp_path, call):
    jsonschema = pytest.importorskip('jsonschema')
    s,args = call
    root = tmp_path/'r'; shutil.rmtree(root, ignore_errors=True); root.mkdir()
    p = _mk(root/'d.ipynb')
    before = p.read_bytes()
    sk._user.buf = None
    schema = {**s['inputSchema'], 'properties': {k:{kk:vv for kk,vv in v.items() if kk!='default'} for k,v in s['inputSchema']['properties'].items()}}
    try: jsonschema.validate(args, schema); valid = True  # a null too: the schema says where it is taken
    except jsonschema.ValidationError: valid = False
    txt,err = sk.call_tool(s['name'], args, root=root)
    assert isinstance(txt, str) and isinstance(err, bool)
    if not valid:
        assert err and txt.startswith('TypeError: '), (s['name'], args, txt)
        assert p.read_bytes()==before
    elif err:  # what the schema allows, the tool takes: a refusal is about the dialog or the values, never their types
        assert not txt.startswith(('AttributeError', 'TypeError: argument', 'NameError', 'UnboundLocalError')), (s['name'], args, txt)
        assert not txt.startswith('TypeError') or 'message id' in txt, (s['name'], args, txt)
        assert not any(w in txt for w in ('values to unpack', 'object is not', 'has no attribute', 'positional argument', 'NoneType')), (s['name'], args, txt)
    if err: assert p.read_bytes()==before, (s['name'], args, txt)  # an error writes nothing
    read_ipynb(p)  # and the file still reads

# --- Dialog.msg: the lookup hosts call (dialoghelper)

def test_dialog_msg_finds_ids_and_prefixes_as_aidialog_does_but_never_positions():
    aid = pytest.importorskip('aidialog.dialog')
    pytest.importorskip('aidialog.dlgskill')  # it patches `msg` in
    spec = [('a', 'abc1'), ('b', 'abd2'), ('c', 'x'), ('e', 'abc1x')]
    theirs = aid.Dialog([aid.Message(c, id=i) for c,i in spec])
    ours = Dialog('t', [Message(c, id=i) for c,i in spec])
    for k in ['abc1', 'abd', 'x', 'abc1x', 'ab', 'abc', 'nope', '', 'ABC1']:
        try: want = theirs.msg(k).id
        except KeyError: want = KeyError
        try: got = ours.msg(k).id
        except KeyError: got = KeyError
        assert got==want, k
    assert theirs.msg(0).id=='abc1'  # aidialog takes a number as a position; we refuse it, on purpose
    for k in (0, -1, None, 1.0):
        with pytest.raises(TypeError, match='never by position'): ours.msg(k)

def test_a_boolean_where_a_number_belongs_is_named_so(tmp_path):
    "The error names the value's type once: 'not a boolean true' (it read 'not true true')"
    Dialog('d').save(tmp_path/'d.ipynb')
    for v in (True, False):
        txt,err = sk.call_tool('summary_dlg', dict(dlg='d.ipynb', maxlen=v), root=tmp_path)
        assert err and f'not a boolean {str(v).lower()}' in txt, txt

@pytest.mark.parametrize('maxlen', [-5, 0, 3, 19])
def test_summary_rows_keep_their_ids(tmp_path, maxlen):
    "A maxlen too short for a row's id and type is refused, not obeyed by cutting the ids an agent needs"
    d = Dialog('d'); d.mk_message('abcdef', id='abcdef12'); d.save(tmp_path/'d.ipynb')
    txt,err = sk.call_tool('summary_dlg', dict(dlg='d.ipynb', maxlen=maxlen), root=tmp_path)
    assert err and 'maxlen must be at least 20' in txt, txt
    assert 'abcdef12' in sk.call_tool('summary_dlg', dict(dlg='d.ipynb', maxlen=20), root=tmp_path)[0]

# --- a message named twice

@pytest.mark.parametrize('name,args', [
    ('msg_insert_line', dict(id=['p1', 'p'], insert_line=0, new_str='# added')), ('msg_str_replace', dict(id=['c1', 'c1'], old_str='x', new_str='w')),
    ('del_msgs', dict(ids=['c2', 'c2'])), ('copy_msgs', dict(ids=['n1', 'n'])), ('cut_msgs', dict(ids=['n1', 'n1'])),
    ('move_msgs', dict(ids=['c2', 'c2'], after='n1')), ('merge_msgs', dict(ids=['c1', 'c1'])), ('view_msgs', dict(ids=['p1', 'p'])),
])
def test_a_message_named_twice_in_a_list_is_refused_and_nothing_changes(tmp_path, name, args):
    "Ids are resolved first: two naming one message (the same id twice, or an id and its prefix) are refused, never edited twice"
    p = _mk(tmp_path/'t.ipynb')
    before = p.read_bytes()
    txt,err = sk.call_tool(name, args|dict(dlg='t.ipynb'), root=tmp_path)
    assert err and ('name the same message' in txt or 'merging a message with itself' in txt), txt
    assert p.read_bytes()==before

# --- `all`, the editors' word for every message, never names one

def test_add_msg_refuses_the_id_all(tmp_path):
    p = _mk(tmp_path/'t.ipynb')
    before = p.read_bytes()
    txt,err = sk.call_tool('add_msg', dict(content='hello', id='all', dlg='t.ipynb'), root=tmp_path)
    assert err and "the id 'all'" in txt and p.read_bytes()==before

@pytest.mark.parametrize('mid', ['all', 'all-imports'])
@pytest.mark.parametrize('name,args', [('msg_str_replace', dict(old_str='hello', new_str='bye')),
                                       ('msg_del_lines', dict(start_line=1, end_line=-1)),
                                       ('msg_insert_line', dict(insert_line=0, new_str='# added'))])
def test_all_is_refused_where_a_message_is_named_by_it(tmp_path, mid, name, args):
    "A notebook's cell id may be the word `all` (or start with it): `id='all'` is then an error, never an edit of every message"
    d = Dialog('t'); d.mk_message('hello', id='other1'); d.mk_message('hello', id=mid); d.save(tmp_path/'t.ipynb')
    before = (tmp_path/'t.ipynb').read_bytes()
    txt,err = sk.call_tool(name, args|dict(id='all', dlg='t.ipynb'), root=tmp_path)
    assert err and f"message {mid!r} is also named by it" in txt, txt
    assert (tmp_path/'t.ipynb').read_bytes()==before
    txt,err = sk.call_tool(name, args|dict(id=[mid], dlg='t.ipynb'), root=tmp_path)  # a list of ids names it alone
    assert not err and read_ipynb(tmp_path/'t.ipynb')['other1'].content=='hello'

# --- one place for new messages: `before` or `after`, not both

@pytest.mark.parametrize('name,args', [('add_msg', dict(content='x')), ('move_msgs', dict(ids=['c2'])), ('paste_msgs', {})])
def test_before_and_after_together_are_refused_and_nothing_changes(tmp_path, name, args):
    p = _mk(tmp_path/'t.ipynb')
    s = sk.Session()
    sk.call_tool('copy_msgs', dict(ids=['c1'], dlg='t.ipynb'), root=tmp_path, session=s)
    before = p.read_bytes()
    txt,err = sk.call_tool(name, args|dict(before='n1', after='p1', dlg='t.ipynb'), root=tmp_path, session=s)
    assert err and f'{name} takes `before` or `after`, not both' in txt, txt
    assert p.read_bytes()==before

def test_null_where_the_schema_refuses_it(tmp_path):
    "A null is checked against the tool's own schema: refused (naming the argument, changing nothing) where the schema does not admit it"
    _mk(tmp_path/'d.ipynb')
    before = (tmp_path/'d.ipynb').read_bytes()
    for name,args in [('msg_replace_lines', dict(id='c1', new_content=None)), ('view_msg', dict(id='c1', maxchars=None)),
                      ('summary_dlg', dict(maxlen=None)), ('msg_str_replace', dict(id='c1', old_str='x', new_str='y', use_regex=None))]:
        k = next(k for k,v in args.items() if v is None)
        txt,err = sk.call_tool(name, dict(args, dlg='d.ipynb'), root=tmp_path)
        assert err and f'argument `{k}` must be' in txt and 'not null' in txt, (name, txt)
    assert (tmp_path/'d.ipynb').read_bytes()==before
    schemas = {s['name']: s['inputSchema'] for s in sk.tool_schemas('inputSchema')}
    for name,s in schemas.items():  # every null the schema admits asks for the default, which is None
        for k,p in s['properties'].items():
            admits = 'null' in listify(p.get('type')) or any(o.get('type')=='null' for o in p.get('anyOf', []))
            if admits and k not in s.get('required', []):
                assert k not in sk.check_args({**s, 'required': []}, {k: None}), (name, k)

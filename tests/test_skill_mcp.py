"The MCP server, driven by the official SDK's own stdio client, which starts it as a subprocess"
import os, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *

mcp = pytest.importorskip('mcp')
import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]

def _server(root, cmd=None):
    "How the client starts the server: `cmd` (argv) or the `serve_mcp` function through python"
    env = dict(PYTHONPATH=str(ROOT))
    if cmd: return StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=str(root))
    return StdioServerParameters(command=sys.executable, args=['-c', 'from dialog.skill import serve_mcp; serve_mcp(".")'], env=env, cwd=str(root))

async def _session_run(params, f):
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            return await f(s)

def _text(res): return '\n'.join(c.text for c in res.content)

async def _scenario(s, root, outside):
    tools = (await s.list_tools()).tools
    names = {t.name for t in tools}
    assert {'summary_dlg', 'add_msg', 'msg_str_replace', 'msg_exhash', 'lnhashview_msg', 'find_msgs'} <= names
    sr = next(t for t in tools if t.name=='msg_str_replace')
    assert sr.input_schema['properties']['old_str']['description']=='Text to find and replace'

    res = await s.call_tool('summary_dlg', dict(dlg='d.ipynb'))
    assert not res.is_error and _text(res).startswith('m0:code: x = 1')

    res = await s.call_tool('add_msg', dict(content='## Notes', msg_type='note', dlg='d.ipynb'))
    assert not res.is_error and ':note: ## Notes' in _text(res)
    assert read_ipynb(root/'d.ipynb').messages[-1].content=='## Notes'

    res = await s.call_tool('msg_str_replace', dict(id='m0', old_str='x = 1', new_str='x = 2', dlg='d.ipynb'))
    assert not res.is_error and _text(res)=='@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n print(x)'
    assert read_ipynb(root/'d.ipynb')['m0'].content=='x = 2\nprint(x)'

    view = _text(await s.call_tool('lnhashview_msg', dict(id='m0', dlg='d.ipynb')))
    addr = view.split('\n')[0].rsplit('|', 1)[0]+'|'
    res = await s.call_tool('msg_exhash', dict(id='m0', cmds=[[addr, 'c', 'x = 3']], dlg='d.ipynb'))
    assert not res.is_error and '+1|' in _text(res)
    before = (root/'d.ipynb').read_bytes()
    res = await s.call_tool('msg_exhash', dict(id='m0', cmds=[[addr, 'c', 'x = 4']], dlg='d.ipynb'))  # the line is 'x = 3' now: stale
    assert _text(res).startswith('error: stale lnhash at line 1')
    assert (root/'d.ipynb').read_bytes()==before

    for bad in ('../outside.ipynb', str(outside), 'link.ipynb'):
        res = await s.call_tool('summary_dlg', dict(dlg=bad))
        assert res.is_error and 'outside the root' in _text(res), bad
    res = await s.call_tool('view_msg', dict(id='nope', dlg='d.ipynb'))
    assert res.is_error and "'nope'" in _text(res)
    return True

def _setup(tmp_path):
    root = tmp_path/'root'; root.mkdir()
    d = Dialog('d'); d.mk_message('x = 1\nprint(x)', id='m0'); d.save(root/'d.ipynb')
    out = tmp_path/'outside.ipynb'; Dialog('o', [Message('secret', id='s')]).save(out)
    (root/'link.ipynb').symlink_to(out)
    return root,out

@pytest.mark.slow
def test_mcp_server_over_stdio(tmp_path):
    root,out = _setup(tmp_path)
    assert anyio.run(_session_run, _server(root), lambda s: _scenario(s, root, out))
    assert read_ipynb(out)['s'].content=='secret'

async def _hints_and_types(s, root):
    tools = {t.name: t for t in (await s.list_tools()).tools}
    assert tools['summary_dlg'].annotations.read_only_hint is True
    assert tools['del_msgs'].annotations.destructive_hint is True and tools['del_msgs'].annotations.read_only_hint is False
    assert tools['add_msg'].annotations.destructive_hint is False and tools['update_msg'].annotations.idempotent_hint is True
    assert all('dlg' in t.input_schema['required'] for t in tools.values() if 'dlg' in t.input_schema['properties'])
    before = (root/'d.ipynb').read_bytes()
    for name,args in (('del_msgs', dict(ids=0)), ('msg_str_replace', dict(id=-1, old_str='x', new_str='y'))):
        res = await s.call_tool(name, args|dict(dlg='d.ipynb'))
        assert res.is_error and 'must be a string' in _text(res)
    assert (root/'d.ipynb').read_bytes()==before
    res = await s.call_tool('summary_dlg', {})
    assert res.is_error and 'needs `dlg`' in _text(res) and 'set_dlg' not in _text(res)
    return True

async def _instructions(params):
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            init = await s.initialize()
            return init.instructions

@pytest.mark.slow
def test_mcp_annotations_argument_types_and_instructions(tmp_path):
    import re
    import dialog.skill as sk
    root,_ = _setup(tmp_path)
    assert anyio.run(_session_run, _server(root), lambda s: _hints_and_types(s, root))
    ins = anyio.run(_instructions, _server(root))
    assert ins==sk.mcp_instructions
    names = set(sk._tool_ns) | {k for s in sk.tool_schemas() for k in s['input_schema']['properties']}
    assert {w for w in re.findall(r'\b[a-z]+(?:_[a-z]+)+\b', ins) if w not in names}==set()  # every tool named exists
    # and every pair: each `param=value` is taken by every tool named in its sentence (or `;` clause), which names one
    takes = {s['name']: set(s['input_schema']['properties']) for s in sk.tool_schemas()}
    for c in re.split(r'(?<=[.;])\s+', ins):
        tools = [t for t in re.findall(r'\w+', c) if t in takes]
        for p in re.findall(r'\b(\w+)=', c):
            assert tools and all(p in takes[t] for t in tools), (p, tools, c)
    assert 'set_dlg' not in ins and 'summary_dlg' in ins

def test_tool_descriptions_name_no_python_only_api():
    "An MCP client sees only tools: no description sends it to a Python name (`Message.split`, `Dialog.merge_msgs`), a current message (no tool sets one) or `set_dlg`"
    import re
    import dialog.skill as sk
    for s in sk.tool_schemas('inputSchema'):
        texts = [s['description']] + [p.get('description', '') for p in s['inputSchema']['properties'].values()]
        bad = [t for t in texts if re.search(r'`(Message|Dialog|Msgs)\b|\b(Message|Dialog)\.\w|current message|set_dlg|set_cur_msg', t)]
        assert not bad, (s['name'], bad)

def test_instructions_name_the_tool_that_takes_no_dlg():
    "The instructions said every tool takes `dlg`, but create_dlg takes `fname`: an agent calling it with `dlg` got an argument error"
    import inspect
    import dialog.skill as sk
    odd = [f for f in sk.skill_tools if 'dlg' not in inspect.signature(f).parameters]
    assert odd and all(f'{f.__name__} takes `{next(iter(inspect.signature(f).parameters))}`' in sk.mcp_instructions for f in odd)

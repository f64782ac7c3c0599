"""Soak: two MCP clients (the official SDK's stdio client, each with its own server) and a third process edit one dialog for 2,000 random calls,
hostile ones among them (numbers as ids, unknown ids, paths out of the root, a FIFO, regex bombs, huge and absurd exhash scripts):
no edit that succeeded is lost (its effect is in the final file, or a later successful delete in the log removed it), no call hangs,
every call is answered within its deadline (the server's per-call limit, plus the time to start a fresh worker)."""
import os, random, subprocess, sys, textwrap, time
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *

mcp = pytest.importorskip('mcp')
import anyio
from mcp import ClientSession
from mcp.client.stdio import stdio_client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 2  # the server's deadline per call (s)
SLACK = 8  # answered at most this long after it (a killed worker's replacement starts; a busy machine)
N_CLIENT,N_THIRD = 800,400  # 2,000 calls in all

def _hostile(rng, k):
    return rng.choice([
        ('del_msgs', dict(ids=0)), ('view_msg', dict(id=123)), ('msg_str_replace', dict(id=-1, old_str='x', new_str='y')),
        ('view_msg', dict(id='no-such-id')), ('add_msg', dict(content='x', after=5)),
        ('summary_dlg', dict(dlg='../outside.ipynb')), ('summary_dlg', dict(dlg='/etc/passwd')), ('create_dlg', dict(fname='../escape')),
        ('summary_dlg', dict(dlg='fifo.ipynb')), ('create_dlg', dict(fname='fifo')), ('view_dlg', dict(dlg='link.ipynb')),
        ('msg_exhash', dict(id=f'home{k}', cmds=[['%', '>']], sw=2**60)),
        ('msg_exhash', dict(id=f'home{k}', cmds=[['1|zz|', 's', 'a', 'b']]*100_000)),
        ('msg_str_replace', dict(id='all', old_str='x', new_str='y', start_line=0)),
        ('nope', dict()), ('update_msg', dict(id=f'home{k}', msg_type='markdown')),
    ])

async def _client(k, root, log):
    rng = random.Random(k)
    p = StdioServerParameters(command=sys.executable, args=['-c', f'from dialog.skill import serve_mcp; serve_mcp(".", timeout={LIMIT})'],
                              env=dict(PYTHONPATH=str(ROOT)), cwd=str(root))
    with open(os.devnull, 'w') as errlog:
        async with stdio_client(p, errlog=errlog) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            mine,bombs = [],3
            for i in range(N_CLIENT):
                x = rng.random()
                if x<0.3: call = ('add_msg', dict(content=f'c{k}-{i}'))
                elif x<0.5: call = ('msg_insert_line', dict(id=f'home{k}', insert_line=0, new_str=f'l{k}-{i}'))
                elif x<0.6 and mine: call = ('del_msgs', dict(ids=rng.choice(mine)))
                elif x<0.75: call = rng.choice([('summary_dlg', dict(limit=5)), ('view_msg', dict(id=f'home{k}')), ('find_msgs', dict(pattern=f'c{k}-', limit=3)),
                                                ('lnhashview_msg', dict(id=f'home{k}', end_line=3))])
                elif bombs and x<0.77: bombs -= 1; call = ('find_msgs', dict(pattern='(a+)+$'))
                else: call = _hostile(rng, k)
                name,args = call
                if name not in ('nope', 'create_dlg') and 'dlg' not in args: args = args|dict(dlg='d.ipynb')
                t = time.time()
                with anyio.fail_after(LIMIT+SLACK+5):  # a hang fails the test here
                    res = await s.call_tool(name, args)
                took = time.time()-t
                txt = '\n'.join(c.text for c in res.content)
                log.append((k, i, name, args, res.is_error, txt, took))
                if name=='add_msg' and not res.is_error: mine.append(txt.split(':')[0])
                if name=='del_msgs' and not res.is_error: mine.remove(args['ids'])
    return True

_third = textwrap.dedent('''
    import sys
    import dialog.skill as sk
    path,n = sys.argv[1],int(sys.argv[2])
    for i in range(n):
        try:
            if i%2: sk.add_msg(f'c2-{i}', dlg=path)
            else: sk.msg_insert_line('home2', 0, f'l2-{i}', dlg=path)
            print('ok', i, flush=True)
        except Exception as e: print('err', i, type(e).__name__, flush=True)
''')

@pytest.mark.slow
def test_two_clients_and_a_third_process_lose_nothing_and_never_hang(tmp_path):
    root = tmp_path/'root'; root.mkdir()
    d = Dialog('d')
    for k in range(3): d.mk_message(f'# home {k}', id=f'home{k}')
    d.mk_message('a'*40 + '!', msg_type=snote, id='bomb')  # `(a+)+$` backtracks over it for hours
    d.save(root/'d.ipynb')
    os.mkfifo(root/'fifo.ipynb')
    Dialog('o', [Message('secret', id='s')]).save(tmp_path/'outside.ipynb')
    (root/'link.ipynb').symlink_to(tmp_path/'outside.ipynb')
    log,t0 = [],time.time()
    third = subprocess.Popen([sys.executable, '-c', _third, str(root/'d.ipynb'), str(N_THIRD)], stdout=subprocess.PIPE, text=True,
                             env=os.environ|dict(PYTHONPATH=str(ROOT)))
    async def main():
        async with anyio.create_task_group() as tg:
            for k in (0, 1): tg.start_soon(_client, k, root, log)
    anyio.run(main)
    out,_ = third.communicate(timeout=300)
    took = time.time()-t0
    third_ok = [int(l.split()[1]) for l in out.splitlines() if l.startswith('ok')]
    assert len(log)==2*N_CLIENT and len(out.splitlines())==N_THIRD

    f = read_ipynb(root/'d.ipynb')
    contents,homes = {m.content for m in f.messages},{k: f[f'home{k}'].content.split('\n') for k in range(3)}
    deleted = {a['ids'] for k,i,n,a,err,txt,_ in log if n=='del_msgs' and not err}
    added = {txt.split(':')[0]: a['content'] for k,i,n,a,err,txt,_ in log if n=='add_msg' and not err}
    lost = [c for id_,c in added.items() if id_ not in deleted and c not in contents]
    lost += [a['new_str'] for k,i,n,a,err,txt,_ in log if n=='msg_insert_line' and not err and a['new_str'] not in homes[k]]
    lost += [f'c2-{i}' if i%2 else f'l2-{i}' for i in third_ok if (f'c2-{i}' not in contents if i%2 else f'l2-{i}' not in homes[2])]
    assert lost==[], lost[:10]
    assert all(id_ not in f.messages for id_ in deleted)
    slow = [(n, round(t, 1)) for k,i,n,a,err,txt,t in log if t > LIMIT+SLACK]
    assert slow==[], slow
    timeouts = [n for k,i,n,a,err,txt,t in log if txt.startswith('TimeoutError')]
    assert len(timeouts)>=2 and set(timeouts)=={'find_msgs'}  # the bombs were stopped, and nothing else was
    assert all(err for k,i,n,a,err,txt,t in log if n in ('del_msgs', 'view_msg', 'nope') and isinstance(a.get('ids', a.get('id')), int))
    assert read_ipynb(tmp_path/'outside.ipynb')['s'].content=='secret' and sorted(os.listdir(tmp_path))==['outside.ipynb', 'root']
    edits = sum(1 for k,i,n,a,err,*_ in log if n in ('add_msg', 'msg_insert_line', 'del_msgs') and not err) + len(third_ok)
    print(f'soak: {len(log)+N_THIRD:,} calls, {edits:,} edits kept, {len(timeouts)} stopped at the deadline, in {took:.0f} s')

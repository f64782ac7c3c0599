"""Reading and writing agent sessions (`dialog.session`), as ratios against `json.loads` / `json.dumps` of the same records.

    python bench/session.py [--sizes 5 50] [--reps 3] [--agent claude|codex] [--no-fast]

A Claude Code transcript (or Codex rollout) of each size in MB is made from the shapes real ones have: a prompt, then
thinking with a signature, text and tool calls one record each (a request id shared), tool results with `toolUseResult`,
attachments. Timed, each the best of `--reps` runs with the garbage collector off (CPU time):
- read: `sess2dlg(path)` against reading the file and `json.loads` of each of its lines (the least any reader does);
- write: `dlg2sess(dlg, path)` of the unedited dialog (record for record) against `json.dumps` of each record, joined and
  written (what any writer of the records does);
- own: the read with the conversation's reading (`_read_whole`: chat's one `chat2dlg` of the whole conversation, which
  makes each prompt's reply and keeps its reasoning state; a rollout's plain items read directly by the Responses codec's
  `fast` reading) replaced by empty prompts: what reading the records and spans costs;
- stamps: what the first `dlg2chat` of the dialog adds, stamping the reasoning state reading left unstamped
  (`_stamp_sess`: the records read again with chat's digests taken, see "Stamping at the first send");
- linearity: read time per MB at the largest size over read time per MB at the smallest (fresh processes), beside the
  same for `json.loads` (memory effects alone: a heap ten times the size costs every reader more per MB);
- read and `json.loads` are timed again in a fresh process (alternating, best of `--reps`, collector off), which holds
  nothing but the file: the figure the goal reads. The bench's own process holds the records, and two dialogs for the
  write and stamp figures (some 400 MB at 50 MB), whose scattered free memory slows a read that builds more objects than
  `json.loads` does; its in-process ratio is printed beside;
- as programs run: the same, the collector left on for both, as a program calling either has it (`sess2dlg` pauses it
  while it reads: see `dialog.nbjson.gc_paused`; the baseline's loop pays its passes).
Goals: read <= 2x, write <= 2x, linear (per-MB ratio near 1) from 5 MB to 50 MB.
Where the `fast` extra (msgspec, orjson) is installed, reading parses the lines and writes chat's JSON (digests, tool
blocks, copies of kept records) through it; `--no-fast` sets `dialog.nbjson.use_fast` False to time without it (the
baselines are `json`'s either way). The first line printed says which.
"""
import argparse, gc, json, os, subprocess, sys, tempfile, time, uuid
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from skill import best_times
from dialog.core import Message
from dialog.session import sess2dlg, dlg2sess
from dialog import nbjson
import dialog.session as S

def _claude(mb, seed=0):
    "Lines of a Claude Code transcript of about `mb` MB"
    sid,env,out,size,parent,t = str(uuid.UUID(int=seed)),{},[],0,None,0
    env = dict(userType='external', cwd='/home/u/proj', sessionId=sid, version='2.1.0', gitBranch='main')
    def add(r):
        nonlocal parent, size
        u = str(uuid.uuid4())
        r = dict(parentUuid=parent, isSidechain=False, **r, uuid=u, timestamp='2026-07-17T02:51:28.115Z', **env)
        parent = u
        out.append(l := json.dumps(r, ensure_ascii=False, separators=(',', ':'))); size += len(l)+1
    while size < mb*1e6:
        t += 1
        add(dict(type='user', message=dict(role='user', content=f'Step {t}: look at the file and fix the failing test é🙂 ' * 3)))
        add(dict(type='attachment', attachment=dict(type='skill_listing', content='- a skill: does things')))
        for k in range(3):
            rq,msg = f'req_{t}_{k}',dict(model='claude-x', id=f'msg_{t}_{k}', type='message', role='assistant', stop_reason='tool_use', usage=dict(input_tokens=10, output_tokens=400))
            add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='thinking', thinking='Let me think about this. ' * 40, signature='EtoE' + 'A'*400)])))
            add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='text', text='I will run the tests now.')])))
            add(dict(type='assistant', requestId=rq, message=msg | dict(content=[dict(type='tool_use', id=f'toolu_{t}_{k}', name='Bash', input=dict(command='pytest -q tests/', description='run tests'))])))
            res = 'line of test output\n' * 60
            add(dict(type='user', message=dict(role='user', content=[dict(type='tool_result', tool_use_id=f'toolu_{t}_{k}', content=res, is_error=False)]), toolUseResult=dict(stdout=res, stderr='', interrupted=False)))
        add(dict(type='assistant', requestId=f'req_{t}_9', message=dict(id=f'msg_{t}_9', role='assistant', content=[dict(type='text', text='All tests pass now. ' * 10)])))
    return out

def _codex(mb):
    "Lines of a Codex rollout of about `mb` MB"
    ts = '2026-07-19T05:30:38.285Z'
    out = [json.dumps(dict(timestamp=ts, type='session_meta', payload=dict(id='019f78da-e13e-72a2-9c10-aff27ecc7dfd', cwd='/w', cli_version='0.1', base_instructions=dict(text='You are Codex.'))), separators=(',', ':'))]
    size,t = len(out[0]),0
    def add(p, typ='response_item'):
        nonlocal size
        out.append(l := json.dumps(dict(timestamp=ts, type=typ, payload=p), ensure_ascii=False, separators=(',', ':'))); size += len(l)+1
    while size < mb*1e6:
        t += 1
        add(dict(turn_id=str(t), cwd='/w', model='gpt-5'), 'turn_context')
        add(dict(type='message', role='user', content=[dict(type='input_text', text=f'Step {t}: fix the failing test ' * 3)]))
        for k in range(3):
            add(dict(type='reasoning', summary=[dict(type='summary_text', text='Thinking about it. ' * 30)], encrypted_content='gAAA' + 'B'*400))
            add(dict(type='function_call', name='shell', arguments=json.dumps(dict(cmd=['pytest', '-q'])), call_id=f'c{t}_{k}'))
            add(dict(type='function_call_output', call_id=f'c{t}_{k}', output='line of test output\n' * 60))
            add(dict(type='exec_command_end', call_id=f'c{t}_{k}', exit_code=0), 'event_msg')
        add(dict(type='message', role='assistant', content=[dict(type='output_text', text='All tests pass now. ' * 10)]))
    return out

def bench(mb, agent, reps, d):
    lines = _claude(mb) if agent=='claude' else _codex(mb)
    p = Path(d)/f'{agent}-{mb}.jsonl'
    p.write_text('\n'.join(lines) + '\n', encoding='utf-8')
    real = p.stat().st_size/1e6
    recs = [json.loads(l) for l in lines]
    dlg = sess2dlg(p)
    out = Path(d)/'out.jsonl'
    def loads(): [json.loads(l) for l in p.read_bytes().decode('utf-8').split('\n')[:-1]]
    def dumps(): (Path(d)/'base.jsonl').write_bytes(('\n'.join(json.dumps(r, ensure_ascii=False, separators=(',', ':')) for r in recs) + '\n').encode())
    def write(): out.unlink(missing_ok=True); dlg2sess(dlg, out)
    whole = S._read_whole
    def own():  # the same read with the conversation's reading (`_read_whole`: one `chat2dlg`) replaced by empty prompts
        S._read_whole = lambda A, spans, cls, system, stamp=True: cls('own', [Message('', msg_type='prompt') for _ in spans])
        try: sess2dlg(p)
        finally: S._read_whole = whole
    fresh = []
    def unstamped(): fresh[:] = [sess2dlg(p)]
    runs = dict(loads=(None, loads), read=(None, lambda: sess2dlg(p)), own=(None, own), dumps=(None, dumps), write=(None, write),
                stamp=(unstamped, lambda: S._stamp_sess(fresh[0])))
    b = best_times(runs, reps, time.process_time)
    f = fresh_times(p, reps)
    assert out.read_bytes()==p.read_bytes()
    print(f'{agent} {real:.1f} MB, {len(lines):,} records, {len(dlg):,} prompts: read {f["read"]*1000:.0f} ms ({f["read"]/f["loads"]:.2f}x json.loads, '
          f'a fresh process; {b["read"]/b["loads"]:.2f}x in this one; {b["own"]/b["loads"]:.2f}x without reading the conversation), '
          f'write {b["write"]*1000:.0f} ms ({b["write"]/b["dumps"]:.2f}x json.dumps); '
          f'stamps at the first send {b["stamp"]*1000:.0f} ms ({b["stamp"]/b["loads"]:.2f}x json.loads)')
    print(f'  as programs run (collector on, a fresh process): read {f["read_on"]*1000:.0f} ms, json.loads {f["loads_on"]*1000:.0f} ms: '
          f'{f["read_on"]/f["loads_on"]:.2f}x')
    return f['read']/real,f['loads']/real

_fresh_script = """
import gc, json, sys, time
from dialog import nbjson
from dialog.session import sess2dlg
p,reps = sys.argv[1],int(sys.argv[2])
if sys.argv[3]=='1': nbjson.use_fast = False
def loads(): [json.loads(l) for l in open(p, 'rb').read().decode('utf-8').split('\\n')[:-1]]
def read(): sess2dlg(p)
runs,res = dict(loads=loads, read=read),{}
for g in runs.values(): g()  # warm up: imports, caches
for on in (False, True):
    for _ in range(reps):
        for k,g in runs.items():
            gc.collect()
            if not on: gc.disable()
            try: t = time.process_time(); g(); t = time.process_time()-t
            finally: gc.enable()
            k += '_on' if on else ''
            res[k] = min(res.get(k, t), t)
print(json.dumps(res))
"""

def fresh_times(p, reps):
    "Best CPU seconds of `json.loads` of `p`'s lines and of `sess2dlg(p)` in a fresh process: collector off, then on (`_on`)"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parent.parent))
    args = [sys.executable, '-c', _fresh_script, str(p), str(reps), '0' if nbjson.use_fast else '1']
    return json.loads(subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout)

def main():
    a = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    a.add_argument('--sizes', type=int, nargs='+', default=[5, 50])
    a.add_argument('--reps', type=int, default=3)
    a.add_argument('--agent', choices=('claude', 'codex'), nargs='+', default=['claude', 'codex'])
    a.add_argument('--no-fast', action='store_true', help='time without the fast extra (dialog.nbjson.use_fast False)')
    a = a.parse_args()
    if a.no_fast: nbjson.use_fast = False
    print(f"fast extra: {'in use' if nbjson.use_fast and nbjson.fast_libs() else 'not used'}")
    with tempfile.TemporaryDirectory() as d:
        for ag in a.agent:
            per = [bench(mb, ag, a.reps, d) for mb in a.sizes]
            (r0,l0),(r1,l1) = per[0],per[-1]
            print(f'{ag} linearity: read time per MB at {a.sizes[-1]} MB / at {a.sizes[0]} MB: {r1/r0:.2f} '
                  f'(json.loads: {l1/l0:.2f})')

if __name__=='__main__': main()

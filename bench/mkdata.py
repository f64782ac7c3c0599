"""Generate the benchmark dialog: 5,000 cells in canonical layout (about 8.4 MB).

Cells cycle note, code, prompt, raw. A note holds about 250 characters; a code cell three stream outputs and an
execute_result of about 110 characters, and the code cell in every run of 40 cells also a display_data with a 30 KB base64 PNG;
a prompt a request of about 150 characters and a reply of about 800; a raw cell a short text.

    python bench/mkdata.py [--out bench/data/bench.ipynb] [--cells 5000]
"""
import argparse, base64, json, random
from pathlib import Path

WORDS = 'the of and to in is that for it as with was on be by this are from at or an have not which but can all they'.split()

def text(rng, n, width=72):
    "About `n` characters of wrapped prose"
    res,line = [],''
    while sum(map(len, res)) + len(line) < n:
        w = rng.choice(WORDS)
        if len(line)+len(w) > width: res.append(line+'\n'); line = ''
        line += w+' '
    return ''.join(res)+line.rstrip()

def split(s): return s.splitlines(True)

def mk_nb(ncells=5000, seed=0):
    rng = random.Random(seed)
    png = base64.b64encode(rng.randbytes(22_500)).decode()  # 30,000 base64 characters
    cells,ncode = [],0
    for i in range(ncells):
        cid,kind = f'{i:08x}',('note','code','prompt','raw')[i%4]
        if kind=='note': cells.append(dict(cell_type='markdown', id=cid, metadata={}, source=split(text(rng, 250))))
        elif kind=='code':
            ncode += 1
            outs = [dict(output_type='stream', name='stdout', text=split(text(rng, 210)+'\n')) for _ in range(3)]
            outs.append(dict(output_type='execute_result', execution_count=ncode, metadata={}, data={'text/plain': split(text(rng, 110))}))
            if i%40==1: outs.append(dict(output_type='display_data', metadata={}, data={'image/png': png, 'text/plain': ['<Figure size 640x480 with 1 Axes>']}))
            src = f'for i in range({i}):\n    print(f"{{i}} {text(rng, 40, 200)}")\nresult_{i} = {i}*2\nresult_{i}'
            cells.append(dict(cell_type='code', id=cid, metadata={}, source=split(src), outputs=outs, execution_count=ncode))
        elif kind=='prompt':
            reply = dict(output_type='display_data', metadata={'is_ai_res': True}, data={'text/markdown': split(text(rng, 800))})
            cells.append(dict(cell_type='code', id=cid, metadata={'solveit_ai': True}, source=split('%%prompt\n'+text(rng, 150)),
                              outputs=[reply], execution_count=None))
        else: cells.append(dict(cell_type='raw', id=cid, metadata={}, source=split(text(rng, 120))))
    meta = dict(kernelspec=dict(display_name='python3', language='python', name='python3'), solveit=dict(mode='learning', ver=2))
    return dict(cells=cells, metadata=meta, nbformat=4, nbformat_minor=5)

def mk_text(ncells=5000, seed=0): return json.dumps(mk_nb(ncells, seed), indent=1, sort_keys=True, ensure_ascii=False)+'\n'

if __name__=='__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--out', default=str(Path(__file__).parent/'data'/'bench.ipynb'))
    p.add_argument('--cells', type=int, default=5000)
    a = p.parse_args()
    out = Path(a.out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(mk_text(a.cells), encoding='utf-8')
    print(f'{out}: {a.cells} cells, {out.stat().st_size/1e6:.1f} MB')

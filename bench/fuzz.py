"""Fuzz `reads_ipynb` with mutated real notebooks: every input must either read or raise `DialogFormatError`.

    python bench/fuzz.py [--n 10000] [--seed 0]

Seeds are the notebooks in ../shared/corpus (when present) and dialogs this script builds (prompts in both forms,
attachments, tool-use replies). Mutations: truncation, byte flips, deleted keys, values retyped, deep nesting,
huge strings, duplicated cells. An input that reads must also write, and what is written must validate against
nbformat's schema (when nbformat is installed), read back, and write again to the same text.
"""
import argparse, collections, json, random, time
from pathlib import Path
from dialog.core import *
from dialog.ipynb import reads_ipynb, write_ipynb, DialogFormatError, SEP

root = Path(__file__).resolve().parent.parent
corpus = root.parent/'shared'/'corpus'

def built_seeds():
    "Small dialogs exercising every form the format has"
    d = Dialog('seed', meta=dict(solveit=dict(mode='learning'), kernelspec=dict(name='python3', display_name='Python 3')))
    d.mk_message('# Title\nsome *text*', msg_type=snote, attachments=[Attachment(tiny_png, 'image/png', 'a.png')])
    d.mk_message('print(1)\n1', output=[dict(output_type='stream', name='stdout', text='1\n'), *code_output('1')], execution_count=1, meta=dict(tags=['t']))
    d.mk_message('Why?', msg_type=sprompt, output="Because.\n\n<details class='tool-usage-details'>\n\n```json\n{\"id\": \"t1\", \"call\": {\"function\": \"f\", \"arguments\": {}}, \"result\": \"r\"}\n```\n\n</details>",
                 attachments=[Attachment(b'\x00\x01', 'image/png', 'b.png')])
    d.mk_message('1/0', output=[dict(output_type='error', ename='ZeroDivisionError', evalue='division by zero', traceback=['tb\n'])])
    d.mk_message('raw', msg_type=sraw)
    legacy = {'cell_type': 'markdown', 'id': 'legacy1', 'metadata': {'solveit_ai': True}, 'source': 'Q' + SEP + 'A'}
    nb = json.loads(write_ipynb(d)); nb['cells'].append(legacy)
    return [write_ipynb(d), json.dumps(nb, indent=1, sort_keys=True)]

def seeds():
    res = built_seeds()
    if corpus.exists():
        for f in sorted(corpus.glob('*/*.ipynb')):
            t = f.read_text(encoding='utf-8', errors='replace')
            if len(t) < 60_000: res.append(t)
    return res

def _paths(o, path=()):
    "Every path into JSON value `o`"
    yield path
    if isinstance(o, dict):
        for k,v in o.items(): yield from _paths(v, path+(k,))
    elif isinstance(o, list):
        for i,v in enumerate(o): yield from _paths(v, path+(i,))

def _get(o, path):
    for p in path: o = o[p]
    return o

def _rand_value(rng):
    return rng.choice([None, True, 0, -1, 1.5, '', 'x', [], {}, ['a', 1], {'a': None}, 'é\n\u2028', 2**70])

def mutate(rng, txt):
    "One mutation of notebook text `txt`, as bytes"
    kind = rng.choice(['truncate', 'flip', 'delete', 'retype', 'retype', 'deep', 'huge', 'dup', 'swap_type'])
    data = txt.encode('utf-8')
    if kind=='truncate': return kind, data[:rng.randrange(len(data))]
    if kind=='flip':
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)): b[rng.randrange(len(b))] = rng.randrange(256)
        return kind, bytes(b)
    try: nb = json.loads(txt)
    except ValueError: return 'truncate', data[:rng.randrange(len(data))]
    paths = [p for p in _paths(nb) if p]
    if not paths: return kind, data
    p = rng.choice(paths)
    parent = _get(nb, p[:-1])
    if kind=='delete':
        del parent[p[-1]]
    elif kind=='retype': parent[p[-1]] = _rand_value(rng)
    elif kind=='swap_type':
        cells = nb.get('cells') if isinstance(nb, dict) else None
        if isinstance(cells, list) and cells and isinstance(cells[0], dict):
            c = rng.choice(cells)
            if isinstance(c, dict): c['cell_type'] = rng.choice(['code', 'markdown', 'raw', 'heading', 'future'])
    elif kind=='huge': parent[p[-1]] = 'x'*rng.choice([10**5, 10**6]) + '\n'*rng.randint(0, 3)
    elif kind=='dup':
        cells = nb.get('cells') if isinstance(nb, dict) else None
        if isinstance(cells, list) and cells: cells.append(rng.choice(cells))
    if kind=='deep':
        n = rng.choice([50, 5_000, 200_000])
        marker = '"__deep__"'
        parent[p[-1]] = '__deep__'
        s = json.dumps(nb, indent=1)
        return kind, s.replace(marker, '['*n + '0' + ']'*n, 1).encode()
    return kind, json.dumps(nb, indent=1, ensure_ascii=rng.random()<0.5).encode()

def _validator():
    try: import nbformat
    except ImportError: return None
    return lambda txt: nbformat.validate(nbformat.reads(txt, as_version=nbformat.NO_CONVERT))

def check(data, validate=None):
    "Read `data`: 'refused' on `DialogFormatError`, else write, validate, re-read, and return 'read'"
    try: d = reads_ipynb(data)
    except DialogFormatError: return 'refused'
    txt = write_ipynb(d)
    if validate: validate(txt)
    assert write_ipynb(reads_ipynb(txt))==txt, 'written text does not round-trip'
    return 'read'

def run(n, seed=0, report=True):
    rng,validate,ss = random.Random(seed),_validator(),seeds()
    counts,t = collections.Counter(),time.time()
    if report:
        nb = len(built_seeds())
        print(f'{len(ss)} seed notebooks: {nb} built here, {len(ss)-nb} from {corpus}' + ('' if corpus.exists() else ' (absent)'))
    for i in range(n):
        kind,data = mutate(rng, rng.choice(ss))
        try: counts[kind, check(data, validate)] += 1
        except Exception as e:
            raise AssertionError(f'case {i} (seed {seed}, {kind}): {type(e).__name__}: {str(e)[:300]}') from e
    if report:
        print(f'{n} mutated notebooks in {time.time()-t:.0f}s, every one read or refused with DialogFormatError:')
        for k in sorted({k for k,_ in counts}): print(f'  {k:10s} read {counts[k, "read"]:5d}  refused {counts[k, "refused"]:5d}')
    return counts

if __name__=='__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--n', type=int, default=10_000)
    p.add_argument('--seed', type=int, default=0)
    a = p.parse_args()
    run(a.n, a.seed)

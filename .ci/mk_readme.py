"""Write README.md from nbs/index.ipynb: its markdown as is, its code in fences, and the outputs of a real run.

`nbdev-readme` does this through Quarto, which these machines don't have. Ids in the outputs are random, and README says so.
`tests/test_config.py` checks that README.md says what index.ipynb says."""
from pathlib import Path
from fastcore.nbio import read_nb
from execnb.shell import CaptureShell

def _out_txt(o):
    "The text a reader sees for output `o`"
    if o['output_type']=='stream': return ''.join(o['text'])
    d = o.get('data', {})
    return ''.join(d.get('text/markdown') or d.get('text/plain') or '') if o['output_type']!='error' else f"{o['ename']}: {o['evalue']}"

def readme(nb_path='nbs/index.ipynb'):
    nb = read_nb(nb_path)
    sh = CaptureShell(path=Path(nb_path).parent)
    sh.run_all(nb, exc_stop=True)
    res = []
    for c in nb.cells:
        if c.cell_type=='markdown': res.append(c.source)
        elif c.cell_type=='code':
            res.append(f'```python\n{c.source}\n```')
            txt = '\n'.join(t.rstrip('\n') for t in map(_out_txt, c.get('outputs', [])) if t.strip())
            if txt: res.append('\n'.join('    '+l if l else '' for l in txt.split('\n')))
    return '\n\n'.join(res) + '\n'

if __name__=='__main__': Path('README.md').write_text(readme())

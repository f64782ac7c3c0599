"""Write README.md from nbs/index.ipynb: its markdown as is, its code in fences, each followed by its saved outputs.

`nbdev-readme` does this through Quarto, which these machines don't have. To refresh the outputs first, run the notebook and
save them: `nbdev-test --save --file-glob index.ipynb && nbdev-clean && python .ci/mk_readme.py`.
`tests/test_config.py` checks that README.md says what index.ipynb says, outputs included."""
from pathlib import Path
from fastcore.nbio import read_nb

def out_txt(o):
    "The text a reader sees for saved output `o`"
    if o['output_type']=='stream': return ''.join(o['text'])
    if o['output_type']=='error': return f"{o['ename']}: {o['evalue']}"
    d = o.get('data', {})
    return ''.join(d.get('text/markdown') or d.get('text/plain') or '')

def indented(txt): return '\n'.join('    '+l if l else '' for l in txt.split('\n'))

def readme(nb_path='nbs/index.ipynb'):
    "README's text: the notebook's cells in order, code fenced, outputs indented below their code"
    res = []
    for c in read_nb(nb_path).cells:
        if c.cell_type=='markdown': res.append(c.source)
        elif c.cell_type=='code':
            res.append(f'```python\n{c.source}\n```')
            txt = '\n'.join(t.rstrip('\n') for t in map(out_txt, c.get('outputs', [])) if t.strip())
            if txt: res.append(indented(txt))
    return '\n\n'.join(res) + '\n'

if __name__=='__main__': Path('README.md').write_text(readme())

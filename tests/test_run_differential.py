"""Differential test of running: `nbdialog run` against nbclient's `NotebookClient` (the engine of `jupyter execute` and `nbconvert --execute`) on real notebooks, cell by cell.

Each notebook is copied twice, each copy in a folder of its own with the files it reads beside it. One copy is run by `nbdialog run FILE --continue-on-error --timeout 60`
(a subprocess: the program users run), the other, at the same time, as `jupyter execute` runs it: `nbformat.read`,
`NotebookClient(nb, kernel_name='python3', allow_errors=True, timeout=60, resources={'metadata': {'path': folder}}).execute()`, `nbformat.write`.
Both files are then read back as plain JSON and compared after `normalize`, which removes only legitimate variance.

The same cells run on both sides. Our runner skips the cells `nbdev-test` skips (`#| eval: false`, a `skip-execution` tag, a call to `nbdev_export(`,
a notebook whose front matter says `skip_exec: true`) and runs only code messages (a dialog keeps its prompts in code cells), while nbclient skips
only cells tagged `skip-execution` (and code cells whose source is blank). So nbclient's copy gets a `skip-execution` tag on each code cell our
runner's `run_plan` does not run, rather than losing those cells:
- neither side sends a skipped cell to the kernel. nbclient numbers a cell by how many cells it has sent; ours takes the number the kernel
  gives, which counts the same requests. So both count exactly the same cells, and execution counts are comparable number for number;
- the cells keep their places, so cell `i` is the same cell on both sides, and a skipped cell is compared too (both sides must leave it as it was);
- the added tag is removed again before the comparison.
Removing the skipped cells instead would give the same counts, but shift every index after the first skipped cell and hide what a runner did to them.
"""
import json, os, re, shutil, subprocess, tempfile
from pathlib import Path
import pytest
from cli_helpers import cmd, env, root
from shared_paths import corpus, need_corpus
from run_helpers import as_shown # rule 9

fc,nbt = corpus/'fastcore-nbs',corpus/'jupyter-nbformat-tests'
# 16 notebooks that run offline in a few seconds each (about 60 s in all on 2 cores), chosen for what they print, display and raise.
# None of them writes to stderr or prints a carriage return when run here: `test_comparison_can_fail` shows both would be compared.
# Left out: notebooks whose outputs are random permutations or depend on thread scheduling or speed (fastcore's 000_tour shuffles,
# 03_xtras shuffles and counts events per second, 03a_parallel prints in the order its workers finish), network ones (03b_net, 11_external,
# the nbformat tests that fetch an image), invalid files our reader refuses by design (duplicate or illegal cell ids), a python2 kernelspec,
# and our 15_dataset (Ray: too slow here)
cases = {
    'tour': root/'examples'/'tour.ipynb',         # a dialog: prompts kept in code cells (our runner skips them), a picture, markdown displays, a TypeError
    'index': root/'nbs'/'index.ipynb',            # our README notebook: dialogs made in cells, so random message ids in reprs
    '01_core': root/'nbs'/'01_core.ipynb',        # 25 results, 17 markdown displays (show_doc), a print beside a result, an nbdev_export cell (skipped)
    '09_thread': root/'nbs'/'09_thread.ipynb',    # uuids in reprs, 16 markdown displays, printed XML with message ids
    '16_cli': root/'nbs'/'16_cli.ipynb',          # the command line run from cells: 34 prints, some in consecutive stream outputs; reads ../examples
    'fc_00_test': fc/'00_test.ipynb',             # a matplotlib picture, a missing module (torch) and the errors after it
    'fc_01_basics': fc/'01_basics.ipynb',         # 440 code cells: execution counts must stay in step over a long run
    'fc_03c_aio': fc/'03c_aio.ipynb',             # top-level await, consecutive stream outputs, a measured time
    'fc_04_docments': fc/'04_docments.ipynb',     # function reprs with memory addresses, 29 markdown displays
    'fc_08_style': fc/'08_style.ipynb',           # a blank code cell at the end
    'fc_09_xml': fc/'09_xml.ipynb',               # HTML and markdown displays, prints beside results
    'fc_13_nbio': fc/'13_nbio.ipynb',             # a missing file, then errors on 33 cells; a picture; consecutive stream outputs; random cell ids
    'nbf_many_tracebacks': nbt/'many_tracebacks.ipynb', # a code cell holding only a comment (the kernel counts it), with a stale error output
    'nbf_test4custom': nbt/'test4custom.ipynb',   # a raw custom mime bundle, a blank code cell, nbformat 4.2 (no cell ids)
    'nbf_test4jupyter_metadata': nbt/'test4jupyter_metadata.ipynb', # nbformat 4.0, cell metadata `jupyter` and `collapsed`
    'nbf_no_min_version': nbt/'no_min_version.ipynb', # no nbformat_minor, a `plaintext` language_info, orig_nbformat, a NameError
}

def _txt(v): return ''.join(v) if isinstance(v, list) else v

_tmp = re.escape(tempfile.gettempdir().rstrip('/'))
_rules = [ # (pattern, replacement) for each kind of legitimate variance in a text; see `normalize`
    (re.compile(r'0x[0-9a-fA-F]{4,}'), '0x<addr>'),                                           # 2. memory addresses
    (re.compile(r'(?<=object at )[0-9a-fA-F]{6,}\b'), '0x<addr>'),                             #    IPython's reprs print them without 0x
    (re.compile(r'\b\d{4}-\d\d-\d\d(?:[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b'), '<date>'), # 3. dates and times
    (re.compile(r'\b\d{1,2}:\d\d:\d\d(?:\.\d+)?\b'), '<time>'),
    (re.compile(r'(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds|min)\b(?: ± \S+ \S+)?'), '<duration>'),
    (re.compile(r'of \d+ runs?, [\d,]+ loops? each'), 'of <n> runs, <n> loops each'),         # %timeit picks its loop count from the speed
    (re.compile(r'\b1[5-9]\d{8}(?:\.\d+)?\b'), '<epoch>'),                                    # time.time()
    (re.compile(r'\bpid[=: ]\s*\d+', re.I), 'pid=<pid>'),                                     # 5. process ids
    (re.compile(r'kernel-[\w-]+\.json'), 'kernel-<id>.json'),                                 # 7. kernel-connection details
    (re.compile(r'\b(shell|iopub|stdin|control|hb)_port(["\']?\s*[:=]\s*)\d+'), r'\1_port\2<port>'),
    (re.compile(r'tcp://[\d.]+:\d+'), 'tcp://<ip>:<port>'),
    (re.compile(r'\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b'), '<uuid>'),  # 6. random values
    (re.compile(r'\b[0-9a-f]{8,}\b'), '<hex>'),
]

_transient = ('orig_nbformat', 'orig_nbformat_minor', 'signature') # notebook metadata nbformat drops on every read and write (rule 10)

def norm_text(s, folder):
    "Text `s` (a stream, a text/plain value, an evalue) printed by code run in `folder`, with its legitimate variance replaced by placeholders (rules 1 to 7 of `normalize`)"
    if not isinstance(s, str): return s
    for f in sorted({str(folder), os.path.realpath(folder)}, key=len, reverse=True): s = s.replace(f, '<folder>') # 1. the folder each side ran in
    s = re.sub(_tmp + r'/(?:pytest-of-[^/\s\'"]+/)?[\w.-]+', '<tmp>', s)                            # 1. other temporary folders
    for pat,rep in _rules: s = pat.sub(rep, s)
    return s

def norm_output(o, folder):
    "One output as the fields compared: its type; a stream's name and text; the mime keys and text/plain of a display; an error's ename and evalue"
    t = o.get('output_type')
    if t=='stream': return dict(output_type=t, name=o.get('name'), text=_txt(o.get('text', '')))
    if t in ('display_data', 'execute_result'):
        data = o.get('data') or {}
        res = dict(output_type=t, mime=sorted(data), plain=norm_text(_txt(data.get('text/plain')), folder))
        if t=='execute_result': res['execution_count'] = o.get('execution_count')
        return res
    if t=='error': return dict(output_type=t, ename=o.get('ename'), evalue=norm_text(o.get('evalue'), folder))
    return dict(o) # an unknown output type: compared whole

def normalize(nb, folder, added_tags=()):
    """Notebook `nb` (plain JSON) as run in `folder` (the folder holding all a side's files), reduced to what both runners must agree on, with only legitimate variance removed. Returns
    `(meta, cells)`: the notebook's metadata, and per cell its type, source, metadata, execution count and outputs (see `norm_output`).

    The only differences taken as legitimate:
    1. temporary folders: the folder of each side's files (its path and its real path) becomes `<folder>`; any other folder under the temp dir `<tmp>`
    2. memory addresses: `0x` and 4 or more hex digits, as in `<object at 0x7f...>`, and the bare hex after `object at ` in IPython's reprs
    3. timings and dates: ISO dates and times, `hh:mm:ss`, durations (a number then ns/µs/us/ms/s/sec/seconds/min, with a `± spread`),
       %timeit's loop counts, Unix timestamps
    4. `metadata.execution` timing values (the `iopub.status.busy` ... `shell.execute_reply` timestamps nbclient records): the keys are kept, the values not
    5. process ids: `pid=1234`, `pid: 1234`
    6. random values: uuids, and runs of 8 or more lowercase hex digits (message ids, tokens, hashes). This also hides any run of
       8 or more decimal digits: large integers, and the long fraction of a float (a measured time, a random number)
    7. kernel-connection details: `kernel-<id>.json` connection files, `*_port` numbers, `tcp://ip:port`
    8. streams merged differently: consecutive outputs of one stream (`stdout` then `stdout`) are compared as one output with their
       texts joined, as Jupyter merges them; outputs of different streams, and streams around a display or an error, stay apart and in order
    9. carriage returns and backspaces: stream texts are compared as a terminal shows them (`as_shown`). Jupyter's frontends save a stream so,
       and so does our runner; `jupyter execute` keeps the raw text
    10. transient metadata: `orig_nbformat`, `orig_nbformat_minor` and `signature` in the notebook's metadata, which nbformat drops on every write
       and our writer keeps, as it keeps whatever the file held
    Rules 1-3 and 5-7 apply to stream texts, text/plain values and error evalues.
    `added_tags` are `(cell index, tag)` pairs the test itself added (the `skip-execution` tags given to nbclient's copy), removed again.
    Not compared: cell ids and `nbformat_minor` (our runner gives an old file's cells ids, as documented), tracebacks (only ename and evalue),
    image bytes and other non-plain mime values (only their keys), output metadata."""
    cells = []
    for i,c in enumerate(nb.get('cells', [])):
        meta = json.loads(json.dumps(c.get('metadata', {})))
        for j,tag in added_tags:
            if j==i:
                meta['tags'].remove(tag)
                if not meta['tags']: del meta['tags']
        if isinstance(meta.get('execution'), dict): meta['execution'] = {k:'<timestamp>' for k in meta['execution']} # rule 4
        res = dict(cell_type=c.get('cell_type'), source=_txt(c.get('source', '')), metadata=meta)
        if c.get('cell_type')=='code':
            outs = []
            for o in c.get('outputs', []): # rule 8: consecutive outputs of one stream as one
                o = norm_output(o, folder)
                if o['output_type']=='stream' and outs and outs[-1]['output_type']=='stream' and outs[-1]['name']==o['name']: outs[-1]['text'] += o['text']
                else: outs.append(o)
            for o in outs:
                if o['output_type']=='stream': o['text'] = norm_text(as_shown(o['text']), folder)
            res.update(execution_count=c.get('execution_count'), outputs=outs)
        cells.append(res)
    return {k:v for k,v in nb.get('metadata', {}).items() if k not in _transient},cells

def _short(v, n=300): return repr(v) if len(repr(v))<=n else repr(v)[:n]+'…'

def diff_cell(name, i, ours, theirs):
    "What differs between normalized cell `i` of notebook `name` as our runner left it (`ours`) and as nbclient did (`theirs`): a list of messages"
    where,res = f'{name} cell {i}',[]
    for k in ('cell_type', 'source', 'metadata', 'execution_count'):
        if ours.get(k)!=theirs.get(k): res.append(f'{where}: {k} differs: ours {_short(ours.get(k))}, nbclient {_short(theirs.get(k))}')
    oo,to = ours.get('outputs', []),theirs.get('outputs', [])
    def kinds(outs): return [o['output_type'] + (f":{o['name']}" if o['output_type']=='stream' else '') for o in outs]
    if kinds(oo)!=kinds(to): res.append(f'{where}: outputs differ: ours {kinds(oo)}, nbclient {kinds(to)}')
    for j,(a,b) in enumerate(zip(oo, to)):
        if kinds([a])!=kinds([b]): continue
        for k in sorted(set(a)|set(b)):
            if a.get(k)!=b.get(k): res.append(f'{where}: output {j} ({kinds([a])[0]}) {k} differs: ours {_short(a.get(k))}, nbclient {_short(b.get(k))}')
    return res

def compare(name, ours, theirs, our_folder, their_folder, added_tags=()):
    "Every difference between notebook `name` as our runner saved it (`ours`, plain JSON run in `our_folder`) and as nbclient did, one message each"
    om,oc = normalize(ours, our_folder)
    tm,tc = normalize(theirs, their_folder, added_tags)
    res = [f'{name}: notebook metadata {k} differs: ours {_short(om.get(k), 200)}, nbclient {_short(tm.get(k), 200)}' for k in sorted(set(om)|set(tm)) if om.get(k)!=tm.get(k)]
    if len(oc)!=len(tc): return res + [f'{name}: {len(oc)} cells in ours, {len(tc)} in nbclient\'s']
    for i,(a,b) in enumerate(zip(oc, tc)): res += diff_cell(name, i, a, b)
    return res

def place(src, folder):
    "Copy notebook `src` into `folder` with the files it reads beside it; returns the copy's path"
    folder.mkdir(parents=True)
    if src.parent!=root/'nbs':
        shutil.copy(src, folder/src.name)
        return folder/src.name
    # our notebooks read nbdev's config (settings.ini, pyproject.toml), nbs/propdoc.py through it, and ../examples/tour.ipynb
    for f in ('settings.ini', 'pyproject.toml'): shutil.copy(root/f, folder/f)
    shutil.copytree(root/'examples', folder/'examples')
    (folder/'nbs').mkdir()
    for f in (root/'nbs').iterdir():
        if f.is_file() and f.suffix!='.ipynb': shutil.copy(f, folder/'nbs'/f.name)
    shutil.copy(src, folder/'nbs'/src.name)
    return folder/'nbs'/src.name

def skipped_cells(p):
    "Indexes of the code cells of notebook `p` our runner would not run: those `run_plan` skips, and prompts (a dialog keeps them in code cells)"
    from dialog.ipynb import read_ipynb
    import dialog.run # run_plan
    d,cells = read_ipynb(p),json.loads(Path(p).read_text())['cells']
    ms = list(d.messages)
    assert len(ms)==len(cells), f'{p}: {len(ms)} messages but {len(cells)} cells'
    ran = {id(m) for m in d.run_plan()[0]}
    return [i for i,(m,c) in enumerate(zip(ms, cells)) if c.get('cell_type')=='code' and id(m) not in ran]

def run_both(src, tmp):
    "Run a copy of `src` with `nbdialog run` and another with nbclient, at the same time; returns both results as plain JSON, each side's folder and the tags added"
    import nbformat
    from nbclient import NotebookClient
    ours,theirs = place(src, tmp/'ours'),place(src, tmp/'nbclient')
    proc = subprocess.Popen(cmd + ['run', str(ours), '--continue-on-error', '--timeout', '60'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ours.parent)
    try:
        nb = nbformat.read(theirs, as_version=4)
        added = []
        for i in skipped_cells(theirs):
            tags = nb.cells[i].metadata.setdefault('tags', [])
            if 'skip-execution' not in tags: tags.append('skip-execution'); added.append((i, 'skip-execution'))
        NotebookClient(nb, kernel_name='python3', allow_errors=True, timeout=60, resources={'metadata': {'path': str(theirs.parent)}}).execute()
        nbformat.write(nb, theirs)
        out,err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None: proc.kill(); proc.wait()
    assert proc.returncode in (0, 1) and 'Traceback' not in err, (proc.returncode, out, err)
    return json.loads(ours.read_text()),json.loads(theirs.read_text()),tmp/'ours',tmp/'nbclient',added

@pytest.mark.slow
@pytest.mark.parametrize('name', list(cases))
def test_runs_as_jupyter_execute(tmp_path, name):
    "Our runner's outputs, execution counts and metadata are nbclient's, but for legitimate variance"
    if corpus in cases[name].parents: need_corpus(cases[name].relative_to(corpus))
    ours,theirs,of,tf,added = run_both(cases[name], tmp_path)
    diffs = compare(name, ours, theirs, of, tf, added)
    assert not diffs, f'{len(diffs)} difference(s) from nbclient:\n' + '\n'.join(diffs[:40]) + ('\n…' if len(diffs)>40 else '')

def _cell(*outs, n=1, meta=None): return dict(cell_type='code', source='x', metadata=meta or {}, execution_count=n, outputs=list(outs))
def _st(txt, name='stdout'): return dict(output_type='stream', name=name, text=txt)
def _disp(plain, **data): return dict(output_type='display_data', data={'text/plain': plain, **data}, metadata={})
def _nb(*cells, **meta): return dict(nbformat=4, nbformat_minor=5, metadata=meta, cells=list(cells))

def test_comparison_can_fail():
    "The comparison is honest: what is not legitimate variance is reported, naming the notebook, the cell and what differs"
    base = _cell(_st('a\n'), _disp('<X at 0x7f00aa>'), _st('warn\n', 'stderr'), dict(output_type='error', ename='E', evalue='bad', traceback=[]))
    def diffs(other, **kw): return compare('nb', _nb(_cell(), base, **kw), _nb(_cell(), other), '/f1', '/f2')
    assert diffs(base)==[]
    assert diffs(_cell(*base['outputs'], n=2))==["nb cell 1: execution_count differs: ours 1, nbclient 2"]
    assert diffs(_cell(_st('b\n'), *base['outputs'][1:]))==["nb cell 1: output 0 (stream:stdout) text differs: ours 'a\\n', nbclient 'b\\n'"]
    o = base['outputs']
    assert diffs(_cell(o[1], o[0], o[2], o[3]))==["nb cell 1: outputs differ: ours ['stream:stdout', 'display_data', 'stream:stderr', 'error'], nbclient ['display_data', 'stream:stdout', 'stream:stderr', 'error']"]
    assert diffs(_cell(o[0], o[2], o[1], o[3]))[0].startswith('nb cell 1: outputs differ') # stdout, stderr and displays keep their order
    assert diffs(_cell(o[0], _disp('<X at 0x7f00aa>', **{'text/html': '<b>'}), o[2], o[3]))==["nb cell 1: output 1 (display_data) mime differs: ours ['text/plain'], nbclient ['text/html', 'text/plain']"]
    assert diffs(_cell(*o[:3], dict(o[3], evalue='worse')))==["nb cell 1: output 3 (error) evalue differs: ours 'bad', nbclient 'worse'"]
    assert diffs(_cell(_st('a\nb\n'), *o[1:]))[0].startswith("nb cell 1: output 0 (stream:stdout) text differs")
    assert diffs(_cell(*o, meta=dict(execution={'iopub.status.busy': '2024-01-01T00:00:00Z'})))==[
        "nb cell 1: metadata differs: ours {}, nbclient {'execution': {'iopub.status.busy': '<timestamp>'}}"]
    assert diffs(base, language_info=dict(name='python'))==["nb: notebook metadata language_info differs: ours {'name': 'python'}, nbclient None"]
    assert compare('nb', _nb(_cell()), _nb(_cell(), _cell()), '/f1', '/f2')==["nb: 1 cells in ours, 2 in nbclient's"]
    assert diff_cell('nb', 3, normalize(_nb(_cell(_st('10%\r100%\n'))), '/f')[1][0], normalize(_nb(_cell(_st('10%\n'))), '/f')[1][0])==[
        "nb cell 3: output 0 (stream:stdout) text differs: ours '100%\\n', nbclient '10%\\n'"] # compared as shown: the bar's last state

def test_legitimate_variance_is_not_a_difference():
    "Each rule of `normalize` on its own: none of these differences is reported"
    a = _cell(_st('a\n'), _st('b\n'), _disp('<X at 0x7f00aa>'), _st('in /f1/x.txt, pid=12 at 2024-01-02 10:11:12 took 1.5 ms\n', 'stderr'),
              dict(output_type='error', ename='E', evalue=f'{tempfile.gettempdir()}/tmpab12cd/y id 3f9a0c11 kernel-1a2b.json', traceback=['tb1']), meta=dict(execution={'iopub.status.busy': '1'}))
    b = _cell(_st('a\nb\n'), _disp('<X at 0x55aa00ff>'), _st('in /f2/x.txt, pid=99 at 2025-12-31 23:59:59 took 3.25 ms\n', 'stderr'),
              dict(output_type='error', ename='E', evalue=f'{tempfile.gettempdir()}/tmpzz99yy/y id 77aa00bb kernel-c3d4.json', traceback=['tb2']), meta=dict(execution={'iopub.status.busy': '2'}))
    assert compare('nb', _nb(a), _nb(b), '/f1', '/f2')==[]
    assert compare('nb', _nb(_cell(_st('10%\r100%\n'))), _nb(_cell(_st('100%\n')), orig_nbformat=3), '/f1', '/f2')==[] # rules 9 and 10
    # but consecutive is consecutive: the same texts split by a display are not merged
    c = _cell(_st('a\n'), _disp('d'), _st('b\n'))
    assert compare('nb', _nb(c), _nb(_cell(_st('a\nb\n'), _disp('d'))), '/f1', '/f2')!=[]

def test_skipped_cells_are_tagged_for_nbclient(tmp_path):
    "The cells our runner skips are the ones nbclient's copy gets a skip-execution tag on"
    from dialog.core import Dialog
    d = Dialog('s'); d.mk_message('1'); d.mk_message('#| eval: false\n2'); d.mk_message('a note', msg_type='note'); d.mk_message('import nbdev; nbdev.nbdev_export()'); d.mk_message('3', meta=dict(tags=['skip-execution'])); d.mk_message('a prompt', msg_type='prompt')
    assert skipped_cells(d.save(tmp_path/'s.ipynb'))==[1, 3, 4, 5]

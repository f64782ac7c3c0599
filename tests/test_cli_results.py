"Results the command line used to get wrong (issue 18, items 1, 5 and 6), each run as a real program"
import json, os, re, shutil, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from cli_helpers import nbd, ok, fails, cmd, env, ids

def old_nb(p, srcs):
    "Write an nbformat 4.4 notebook (no cell ids) of code cells `srcs` at `p`"
    p.write_text(json.dumps(dict(nbformat=4, nbformat_minor=4, metadata={}, cells=[dict(cell_type='code', source=s, metadata={}, outputs=[], execution_count=None) for s in srcs])))
    return p

# --- 1. stable ids for id-less notebooks

def test_ids_of_an_old_file_work_across_commands(tmp_path):
    p = old_nb(tmp_path/'old.ipynb', ['a = 1', 'b = 2', 'a = 1'])
    rows = ok('summary', p).splitlines()
    i = [r.split(':')[0] for r in rows]
    assert len(set(i))==3 and ok('summary', p).splitlines()==rows # the same ids on every read
    assert ok('view', p, i[1], '--no-nums').strip().endswith('b = 2')
    r = nbd('edit', p, i[1], '--content', 'b = 3')
    assert r.returncode==0 and r.stdout==f'edited {i[1]}\n'
    assert r.stderr.count('had no cell ids')==1 and '3 cells got one' in r.stderr and 'nbformat 4.5' in r.stderr
    nb = json.loads(p.read_text())
    assert [c['id'] for c in nb['cells']]==i and nb['nbformat_minor']==5 and nb['cells'][1]['source']==['b = 3']
    assert 'had no cell ids' not in nbd('edit', p, i[0], '--content', 'a = 0').stderr # said once: the file has ids now

# --- 5. wrong results

def test_find_searches_line_by_line(tmp_path):
    d = Dialog('f'); a = d.mk_message('import os\ndef f(): pass\nx = 1', output=[dict(output_type='stream', name='stdout', text='hello\n')])
    d.save(tmp_path/'f.ipynb')
    assert ok('find', tmp_path/'f', '^def').splitlines()==[f'{a.id}:code:2: def f(): pass']
    assert ok('find', tmp_path/'f', r'pass$').splitlines()==[f'{a.id}:code:2: def f(): pass']
    assert nbd('find', tmp_path/'f', 'stdout', '--out').returncode==1 # the view's tag names are not output text
    assert ok('find', tmp_path/'f', 'HELLO', '--out').splitlines()==[f'{a.id}:code:out: hello']

def test_markdown_closes_open_fences(tmp_path):
    d = Dialog('md'); d.mk_message('Look:\n```python\nprint(1)', msg_type='note'); d.mk_message('## After', msg_type='note')
    d.save(tmp_path/'md.ipynb')
    md = ok('convert', tmp_path/'md', '--to', 'md')
    assert md=='Look:\n\n```python\nprint(1)\n```\n\n## After\n' # closed, and a blank line before the fence (Pandoc wants one)

def test_stdin_is_kept_byte_for_byte(tour):
    txt = 'a\r\nb\rc\x0bd\n\n'
    new = subprocess.run(cmd + ['add', str(tour)], input=txt.encode(), capture_output=True, env=env).stdout.decode().strip()
    assert read_ipynb(tour)[new].content=='a\r\nb\rc\x0bd\n' # one trailing newline dropped, nothing else touched

def test_edit_type_drops_what_the_new_type_cannot_hold(tour):
    i,ms = ids(tour),read_ipynb(tour).messages
    code = ms[2]; assert code.output
    before = tour.read_bytes()
    out = ok('edit', tour, i[2], '--type', 'prompt', '--content', 'hi', '--dry-run').splitlines()[0]
    assert out==f"would edit {i[2]} (a prompt doesn't keep a code message's outputs: they would be dropped) (dry run: nothing written)"
    assert tour.read_bytes()==before
    ok('edit', tour, i[2], '--type', 'prompt', '--content', 'hi')
    m = read_ipynb(tour)[i[2]]
    assert (m.msg_type, m.output, m.ai_res)==('prompt', [], '')
    out = ok('edit', tour, i[5], '--type', 'code', '--content', '1')
    assert out.strip()==f"edited {i[5]} (a code message doesn't keep a prompt's reply: it was dropped)"
    assert read_ipynb(tour)[i[5]].output==[]

def test_convert_refuses_to_overwrite_its_input(tour):
    before = tour.read_bytes()
    for o in (tour, tour.parent/'.'/tour.name):
        fails('convert', tour, '--to', 'md', '-o', o, '--force', has='is the dialog being converted')
    assert tour.read_bytes()==before

def test_to_py_with_nothing_exported_says_so(tmp_path):
    d = Dialog('n'); d.mk_message('1+1'); d.save(tmp_path/'n.ipynb')
    fails('convert', tmp_path/'n', '--to', 'py', has='no code message is exported')
    fails('convert', tmp_path/'n', '--to', 'py', '-o', tmp_path/'n.py', has='no code message is exported')
    assert not (tmp_path/'n.py').exists()

def test_errors_are_the_same_on_every_run(tmp_path):
    c = dict(cell_type='code', id='c1', source='', outputs=[], execution_count=None, metadata=dict(scrolled='x', collapsed='y', execution=1))
    (tmp_path/'bad.ipynb').write_text(json.dumps(dict(nbformat=4, nbformat_minor=5, metadata={}, cells=[c])))
    errs = {subprocess.run(cmd + ['summary', str(tmp_path/'bad.ipynb')], capture_output=True, text=True, env=env | {'PYTHONHASHSEED': str(s)}).stderr for s in range(6)}
    assert len(errs)==1 and "metadata 'scrolled'" in errs.pop()

def test_an_unwritable_folder_is_named(tmp_path):
    if os.geteuid()==0: # root writes anywhere chmod forbids: use a folder the kernel refuses files in
        folder = Path('/sys/kernel')
        if not folder.is_dir(): pytest.skip('no read-only folder to try')
    else:
        folder = tmp_path/'ro'; folder.mkdir(); folder.chmod(0o555)
    r = fails('add', folder/'t', '--new', '--content', 'x')
    assert f"'{folder}'" in r.stderr and 'cannot create a file in this folder' in r.stderr and '.tmp' not in r.stderr

def test_dry_run_shows_the_change_with_context(tmp_path):
    d = Dialog('long')
    for k in range(40): d.mk_message(f'x{k} = {k}')
    d.save(tmp_path/'long.ipynb')
    ms = d.messages
    out = ok('add', tmp_path/'long', '--content', 'the new one', '--dry-run').splitlines()
    new = out[0].split()[0]
    assert out[1:]==[f'{ms[38].id}-code- x38 = 38', f'{ms[39].id}-code- x39 = 39', f'{new}:code: the new one']
    out = ok('edit', tmp_path/'long', ms[20].id, '--content', 'changed', '--dry-run').splitlines()
    assert [r.split(':')[0].split('-')[0] for r in out[1:]]==[m.id for m in ms[18:23]] and out[3]==f'{ms[20].id}:code: changed'
    out = ok('move', tmp_path/'long', ms[0].id, '--after', ms[30].id, '--dry-run').splitlines()
    assert f'{ms[0].id}:code: x0 = 0' in out and out.index(f'{ms[0].id}:code: x0 = 0')==3

# --- 6. newcomer fixes

def test_add_to_a_missing_file_needs_new(tmp_path):
    r = fails('add', tmp_path/'typo', '--content', 'x', has='--new starts a new dialog there')
    assert 'no such file' in r.stderr and not (tmp_path/'typo.ipynb').exists()
    new = ok('add', tmp_path/'typo', '--new', '--content', 'x').strip()
    assert [m.id for m in read_ipynb(tmp_path/'typo').messages]==[new]

def test_cut_outputs_say_how_much_and_how(tmp_path):
    d = Dialog('big'); m = d.mk_message('print(x)', output=[dict(output_type='stream', name='stdout', text='y'*5000)]); d.save(tmp_path/'big.ipynb')
    out = ok('view', tmp_path/'big', '--out').rstrip('\n').split('\n')
    assert out[-2]=='[3,001 more characters cut: the full output with --full-out, or trunc_out=False]' and out[-1]=='</out>'
    assert 'y'*5000 in ok('view', tmp_path/'big', '--full-out')

def test_find_rows_show_the_matching_line(tmp_path):
    d = Dialog('rows'); m = d.mk_message('# a long first line that says nothing of interest\n' + 'z = 0\n'*5 + 'needle = 1', msg_type='note')
    d.save(tmp_path/'rows.ipynb')
    assert ok('find', tmp_path/'rows', 'needle').strip()==f'{m.id}:note:7: needle = 1'

# --- 7. memory: reading holds no extra copy of the file (bench/cli_memory.py measures the commands against aidialog)

def test_reading_holds_no_extra_copy_of_the_file(tmp_path):
    import tracemalloc
    f = tmp_path/'big.ipynb'
    cells = [dict(cell_type='code', id=f'c{i}', metadata={}, execution_count=1, source='x', outputs=[dict(output_type='stream', name='stdout', text='y'*500_000+'\n')]) for i in range(10)]
    f.write_text(json.dumps(dict(cells=cells, metadata={}, nbformat=4, nbformat_minor=5), indent=1, sort_keys=True))
    tracemalloc.start()
    try:
        read_ipynb(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally: tracemalloc.stop()
    assert peak < 2.5*f.stat().st_size, peak/f.stat().st_size # the text and what it parses to; not the bytes as well (3x)

def test_xml_emits_no_namespace_from_a_directive(tmp_path):
    import xml.etree.ElementTree as ET
    d = Dialog('ns'); m = d.mk_message('#| xmlns http://evil.example/\n#| xml:lang en\n#| a:b 1\nx = 1\r# hidden'); d.save(tmp_path/'ns.ipynb')
    x = ok('view', tmp_path/'ns', '--xml')
    e = ET.fromstring(x)[0]
    assert e.tag=='code' and e.attrib=={'id': m.id} # not in a namespace, so an agent still finds <code>
    assert '&#13;' in x and e.text.endswith('x = 1\r# hidden') # CR kept as &#13;, which reads back as CR

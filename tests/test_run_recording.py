"What a run records, as Jupyter records it: streams merged only where consecutive, long lines in linear time, the notebook's kernel, language_info and timings"
import json, os, subprocess, sys
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st
from dialog.core import *
from dialog.ipynb import *
from dialog.run import jupyter_streams, chk_kernel, KernelError, Kernel
from dialog.render import merge_streams, out_text
from fastcore.nbio import join_out
from cli_helpers import nbd, cmd, env
from run_helpers import as_shown

def nbd_in(e, *args):
    "`nbdialog ARGS` in environment `e`"
    return subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True, env=e, timeout=120)

def so(t, name='stdout'): return dict(output_type='stream', name=name, text=t)

_parts = st.lists(st.tuples(st.sampled_from(['stdout', 'stderr', None]), st.text(alphabet='ab\r\n\b', max_size=12)), max_size=8)
def _outs(parts): return [so(t, n) if n else dict(output_type='display_data', data={'text/plain': t}, metadata={}) for n,t in parts]

@given(_parts)
def test_jupyter_streams_is_the_rule(parts):
    "Only consecutive outputs of one stream merge, in order; each merged text is what the rule makes of the joined pieces (keeping a first return that takes back an earlier output of its stream in the same run of streams)"
    outs = _outs(parts)
    groups = []
    for o in outs:
        if o['output_type']=='stream' and groups and groups[-1][0]['output_type']=='stream' and groups[-1][0]['name']==o['name']: groups[-1].append(o)
        else: groups.append([o])
    want,seen = [],set()
    for g in groups:
        if g[0]['output_type']!='stream': want.append(g[0]); seen = set(); continue
        want.append(so(as_shown(''.join(o['text'] for o in g), g[0]['name'] in seen), g[0]['name']))
        seen.add(g[0]['name'])
    assert jupyter_streams(outs)==want

@given(_parts)
def test_a_reader_joins_saved_streams_as_the_kernels_pieces(parts):
    "One rule of joining streams: joining what Jupyter saves (consecutive outputs of one stream) as a reader does gives what joining the pieces does"
    def texts(os_): return [o | dict(text=join_out(o['text'])) if o['output_type']=='stream' else o for o in os_]
    outs = _outs(parts)
    assert texts(merge_streams(merge_streams(outs, consecutive=True)))==texts(merge_streams(outs))

@settings(max_examples=1000)
@given(st.lists(st.tuples(st.sampled_from(['stdout', 'stderr', None]), st.text(alphabet='ab\r\n', max_size=12)), max_size=8))
def test_a_reader_sees_the_saved_outputs_as_the_kernels_pieces(parts):
    "What a run saves (`jupyter_streams`) reads as the pieces the kernel sent do: the saved form's carriage returns agree with the reader's. (Backspaces are left out: at a line's end Jupyter's rule takes back a character, a terminal's only moves back)"
    outs = _outs(parts)
    def shown(os_): return [out_text(o) for o in merge_streams(os_)]
    assert shown(jupyter_streams(outs))==shown(outs)

def test_returns_ending_a_line_keep_it():
    "`\\r\\r\\n` ends a line as `\\r\\n` does: nothing written after the returns, so the line's text stays (it was lost)"
    assert jupyter_streams([so('saved\r\r\nnext\r')])==[so('saved\r\r\nnext\r')]
    assert out_text(jupyter_streams([so('a\r\r\nb')])[0])==('text/plain', 'a\nb')

def test_a_bar_between_prints_reads_as_its_last_state():
    "A bar on stderr redrawn (`\\r` first) between prints on stdout is saved as Jupyter saves it but for the return that takes back its earlier state, so a reader joining its outputs sees its last state (it read `10%30%`)"
    outs = jupyter_streams([so('\r10%', 'stderr'), so('log\n'), so('\r20%', 'stderr'), so('\r30%', 'stderr')])
    assert outs==[so('10%', 'stderr'), so('log\n'), so('\r30%', 'stderr')]
    assert [out_text(o)[1] for o in merge_streams(outs)]==['30%', 'log\n']

@pytest.mark.slow
def test_print_display_print_keeps_its_order(tmp_path):
    d = Dialog('o')
    m = d.mk_message("import sys\nfrom IPython.display import display\nprint('one', flush=True); print('err', file=sys.stderr, flush=True)\ndisplay('shown')\nprint('two'); print('three')")
    d.execute()
    assert [(o['output_type'], o.get('name'), o.get('text')) for o in m.output]==[
        ('stream', 'stdout', 'one\n'), ('stream', 'stderr', 'err\n'), ('display_data', None, None), ('stream', 'stdout', 'two\nthree\n')]

@pytest.mark.slow
def test_a_1mb_line_and_a_progress_bar(tmp_path):
    "A 1 MB line, printed whole and in 100,000 pieces, and a bar redrawn with carriage returns: recorded exactly (this took minutes when the recorder rescanned the text at each piece)"
    d = Dialog('long')
    a = d.mk_message("print('x'*1_000_000)")
    b = d.mk_message("for i in range(100_000): print('y'*10, end='')")
    c = d.mk_message("for i in range(1001): print(f'\\r{i/10:.1f}%', end='', flush=i%100==0)\nprint()")
    rep = d.execute(timeout=120)
    assert rep.ok and a.output==[so('x'*1_000_000+'\n')] and b.output==[so('y'*1_000_000)] and c.output==[so('100.0%\n')]

def _kernel_dir(tmp_path, name, marker):
    "A Jupyter data folder with a Python kernel named `name` that sets KERNEL_MARKER to `marker`"
    ks = tmp_path/'jp'/'kernels'/name; ks.mkdir(parents=True)
    (ks/'kernel.json').write_text(json.dumps(dict(argv=[sys.executable, '-m', 'ipykernel_launcher', '-f', '{connection_file}'], display_name=name, language='python', env=dict(KERNEL_MARKER=marker))))
    return env | dict(JUPYTER_PATH=str(tmp_path/'jp'))

@pytest.mark.slow
def test_the_notebooks_kernel_and_kernel_option(tmp_path):
    kenv = _kernel_dir(tmp_path, 'mine', 'from mine')
    d = Dialog('k', meta=dict(kernelspec=dict(name='mine', display_name='mine', language='python')))
    m = d.mk_message("import os; print(os.environ.get('KERNEL_MARKER'))")
    p = d.save(tmp_path/'k.ipynb')
    assert nbd_in(kenv, 'run', p).returncode==0
    assert read_ipynb(p)[m.id].output[0]['text']=='from mine\n'
    assert nbd_in(kenv, 'run', p, '--kernel', 'python3').returncode==0
    assert read_ipynb(p)[m.id].output[0]['text']=='None\n'
    r = nbd_in(kenv, 'run', p, '--kernel', 'nosuch')
    assert r.returncode==2 and "no Jupyter kernel named 'nosuch' is installed here" in r.stderr and 'mine' in r.stderr and 'Traceback' not in r.stderr, r.stderr
    r = nbd_in(env, 'run', p) # the notebook's kernel isn't installed where JUPYTER_PATH doesn't reach
    assert r.returncode==2 and "no Jupyter kernel named 'mine' is installed here" in r.stderr, r.stderr
    assert read_ipynb(p)[m.id].output[0]['text']=='None\n' # nothing run, nothing written

def test_chk_kernel():
    assert chk_kernel('python3')=='python3'
    with pytest.raises(KernelError, match="no Jupyter kernel named 'nope'"): chk_kernel('nope')

@pytest.mark.slow
def test_language_info_and_timings_are_recorded(tmp_path):
    d = Dialog('li', meta=dict(language_info=dict(name='python', version='3.9.6')))
    m = d.mk_message('1+1')
    p = d.save(tmp_path/'li.ipynb')
    assert nbd('run', p).returncode==0
    back = read_ipynb(p)
    out = subprocess.run([sys.executable, '-c', 'import platform; print(platform.python_version())'], capture_output=True, text=True).stdout.strip()
    assert back.meta['language_info']['version']==out and back.meta['language_info']['file_extension']=='.py'
    ex = back[m.id].meta['execution']
    assert sorted(ex)==['iopub.execute_input', 'iopub.status.busy', 'iopub.status.idle', 'shell.execute_reply']
    assert ex['iopub.status.busy']<=ex['iopub.execute_input']<=ex['iopub.status.idle'] # ISO times, in order
    d2 = read_ipynb(p); d2.execute(save=True, timing=False)
    assert 'execution' not in read_ipynb(p)[m.id].meta # no stale timings from the run before

@pytest.mark.slow
def test_a_blank_cell_is_left_as_it_is(tmp_path):
    "As in Jupyter: a code cell of only whitespace is not sent to the kernel, keeps what it had, and takes no execution count"
    d = Dialog('b')
    a = d.mk_message('1'); blank = d.mk_message('   \n'); c = d.mk_message('2')
    blank.output,blank.execution_count = [dict(output_type='stream', name='stdout', text='stale\n')],9
    p = d.save(tmp_path/'b.ipynb')
    assert nbd('run', p).returncode==0
    back = read_ipynb(p)
    assert back[blank.id].output==blank.output and back[blank.id].execution_count==9 and 'execution' not in back[blank.id].meta
    assert (back[a.id].execution_count, back[c.id].execution_count)==(1, 2)

@pytest.mark.slow
def test_an_error_the_kernel_cannot_send_is_still_an_error(tmp_path):
    "An exception whose text holds a lone surrogate: the kernel can't send the error output, but its reply says error; the run records it and stops there"
    d = Dialog('s')
    a = d.mk_message("import json\nrec = json.loads('\"caf\\\\ud83d\"')\nraise ValueError(f'bad record {rec!s}')")
    b = d.mk_message("print('after')")
    rep = d.execute()
    assert rep.stopped=='error' and not rep.ok and a.output[-1]['output_type']=='error' and b.output=='' # named as the kernel's reply names it

@pytest.mark.slow
def test_code_the_kernel_cannot_receive_is_an_error_on_it(tmp_path):
    "Code holding a lone surrogate can't be sent to the kernel: an error on that message, naming the line; the run goes on or stops as for any error"
    d = Dialog('s')
    a = d.mk_message("x = 1\ny = '\ud83d'", meta={'execution': {'iopub.status.busy': '2020-01-01T00:00:00Z'}})  # an earlier run's timings
    b = d.mk_message("print('after')")
    p = d.save(tmp_path/'s.ipynb')
    rep = d.execute(continue_on_error=True)
    assert a.output[0]['ename']=='UnicodeEncodeError' and 'line 2' in a.output[0]['evalue'] and b.output[0]['text']=='after\n' and not rep.ok
    assert 'execution' not in a.meta  # not run: no timings describe this output
    r = nbd('run', p)
    assert r.returncode==1 and f'{a.id}: error UnicodeEncodeError' in r.stdout and 'stopped at the error' in r.stdout, (r.stdout, r.stderr)

@pytest.mark.slow
def test_widget_state_is_saved_as_jupyter_execute_saves_it(tmp_path):
    "A widget's output names its model by id: the model's state goes into `metadata.widgets` (it was left out: 'model not found' in JupyterLab)"
    code = '''from comm import create_comm
from IPython.display import display
c = create_comm(target_name='jupyter.widget', metadata={'version': '2.1.0'}, data={'buffer_paths': [], 'state': {
    '_model_name': 'IntProgressModel', '_model_module': '@jupyter-widgets/controls', '_model_module_version': '2.0.0', 'value': 7, 'max': 10}})
display({'application/vnd.jupyter.widget-view+json': {'version_major': 2, 'version_minor': 0, 'model_id': c.comm_id}, 'text/plain': 'IntProgress'}, raw=True)'''
    d = Dialog('w'); m = d.mk_message(code)
    p = d.save(tmp_path/'w.ipynb')
    assert d.execute(save=True).ok
    back = read_ipynb(p)
    mid = back[m.id].output[0]['data']['application/vnd.jupyter.widget-view+json']['model_id']
    ws = back.meta['widgets']['application/vnd.jupyter.widget-state+json']
    assert (ws['version_major'], ws['state'][mid]['state']['value'])==(2, 7) and back.meta['widgets']==d.meta['widgets']

@pytest.mark.slow
def test_a_part_run_keeps_the_other_widgets_state(tmp_path):
    "Run whole, then one message again: the other message's widget model keeps its state (the part run replaced the whole `metadata.widgets`)"
    W = lambda v: ("from comm import create_comm\nfrom IPython.display import display\n"
                   "c = create_comm(target_name='jupyter.widget', metadata={'version': '2.1.0'}, data={'buffer_paths': [], 'state': {"
                   f"'_model_name': 'IntProgressModel', '_model_module': '@jupyter-widgets/controls', '_model_module_version': '2.0.0', 'value': {v}, 'max': 10}}}})\n"
                   "display({'application/vnd.jupyter.widget-view+json': {'version_major': 2, 'version_minor': 0, 'model_id': c.comm_id}, 'text/plain': 'w'}, raw=True)")
    d = Dialog('w'); w1 = d.mk_message(W(1)); w2 = d.mk_message(W(2))
    p = d.save(tmp_path/'w.ipynb')
    def states():
        b = read_ipynb(p)
        st = b.meta['widgets']['application/vnd.jupyter.widget-state+json']['state']
        return [st[b[m.id].output[0]['data']['application/vnd.jupyter.widget-view+json']['model_id']]['state']['value'] for m in (w1, w2)], len(st)
    assert d.execute(save=True).ok and states()==([1, 2], 2)
    for _ in range(3): assert d.execute(ids=[w2.id], save=True).ok and states()==([1, 2], 2)  # w2's old model replaced: no output names it
    assert d.execute(save=True).ok and states()==([1, 2], 2)  # a whole run saves the kernel's, as `jupyter execute` does
    # the file's models are kept, not the ones of a dialog held in memory while another program ran it
    other = read_ipynb(p); assert other.execute(save=True).ok
    assert d.execute(ids=[w2.id], save=True).ok and states()==([1, 2], 2) and read_ipynb(p)[w1.id].output==other[w1.id].output

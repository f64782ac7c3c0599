"`nbdialog run` skips and tolerates what `nbdev-test` does: a `nbdev_export()` call is never run, a `raises-exception` error is recorded and the run goes on"
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.run import skip_reason, expects_error
from cli_helpers import nbd

def test_nbdev_export_cells_are_skipped_and_reported(tmp_path):
    "In an nbdev project, running `nbdev_export()` would rewrite the library over hand edits: it is skipped, and the rest runs"
    d = Dialog('lib')
    exp = d.mk_message("open('exported.txt', 'w').write('x')\ndef nbdev_export(): open('exported.txt', 'w').write('x')\nnbdev_export()")
    ran = d.mk_message("open('ran.txt', 'w').write('y')")
    p = d.save(tmp_path/'lib.ipynb')
    r = nbd('run', p, cwd=tmp_path)
    assert r.returncode==0, r.stderr
    assert f'{exp.id}: skipped (nbdev_export call)' in r.stdout and not (tmp_path/'exported.txt').exists() and (tmp_path/'ran.txt').exists()
    r = nbd('run', p, '--force-eval', cwd=tmp_path)
    assert r.returncode==0 and (tmp_path/'exported.txt').exists()  # --force-eval runs it, as every other skip

@pytest.mark.parametrize('src,why', [('nbdev_export()', 'nbdev_export call'), ('from nbdev.export import notebook2script\nnotebook2script()', 'nbdev_export call'),
                                     ('x = nbdev_export', None), ('my_nbdev_export()', None), ('print("nbdev_export")', None)])
def test_which_cells_are_export_calls(src, why):
    assert skip_reason(Message(src)) == why

def test_raises_exception_is_recorded_and_the_run_goes_on(tmp_path):
    "A message tagged raises-exception may raise: its error is kept, the next message runs, and the run exits 0"
    d = Dialog('exp')
    bad = d.mk_message('1/0', meta=dict(tags=['raises-exception']))
    nxt = d.mk_message('print("after")')
    p = d.save(tmp_path/'exp.ipynb')
    r = nbd('run', p, cwd=tmp_path)
    assert r.returncode==0, (r.stdout, r.stderr)
    back = read_ipynb(p)
    assert back[bad.id].has_error and back[nxt.id].output[0]['text']=='after\n'
    assert f'{bad.id}: error (expected: raises-exception tag) ZeroDivisionError' in r.stdout

def test_an_untagged_error_still_stops(tmp_path):
    d = Dialog('stop')
    d.mk_message('1/0', meta=dict(tags=['raises-something-else'])); nxt = d.mk_message('print("after")')
    p = d.save(tmp_path/'stop.ipynb')
    assert nbd('run', p, cwd=tmp_path).returncode==1 and not read_ipynb(p)[nxt.id].output
    assert not expects_error(Message('1/0', meta=dict(tags='raises-exception')))  # tags must be a list, as nbformat says

def _front_matter_cases():
    "Notebooks whose front matter decides what runs: (name, cells as (cell type, source))"
    C = ('code', 'x()')
    raw, md = lambda s: ('raw', s), lambda s: ('markdown', s)
    return {
        'raw first': [raw('---\nskip_exec: true\n---'), C], 'raw after a title note': [md('# T'), raw('---\nskip_exec: true\n---'), C],
        'raw after code': [C, raw('---\nskip_exec: true\n---'), ('code', 'y()')], 'only the first raw': [raw('just raw'), raw('---\nskip_exec: true\n---'), C],
        **{f'raw {v}': [raw(f'---\nskip_exec: {v}\n---'), C] for v in ('yes', 'True', 'on', '1', "'true'", 'no', 'false', '0', "'false'", 'off')},
        'raw unclosed': [raw('---\nskip_exec: true'), C], 'raw after text': [raw('x\n---\nskip_exec: true\n---'), C], 'raw indented': [raw('---\n  skip_exec: true\n---'), C],
        'raw key case': [raw('---\nSkip_Exec: true\n---'), C],
        # closed by YAML's document end `...` (nbdev reads it; it was ignored, and the code ran)
        'raw closed by dots': [raw('---\ntitle: Billing\nskip_exec: true\n...'), C], 'raw false closed by dots': [raw('---\nskip_exec: false\n...'), C],
        'raw dots then text': [raw('---\nskip_exec: true\n...\nmore'), C], 'raw then text': [raw('---\nskip_exec: true\n---\nmore'), C],
        'note without title': [md('Options:\n\n- skip_exec: true'), C], 'note with title': [md('# T\n\n- skip_exec: true'), C],
        'title and summary': [md('# T\n> s\n\n- skip_exec: yes'), C], 'title in a later note': [md('hello'), md('# T\n\n- skip_exec: true'), C],
        'h2 title': [md('## T\n\n- skip_exec: true'), C], 'title without space': [md('#T\n\n- skip_exec: true'), C], 'blank before title': [md('\n# T\n\n- skip_exec: true'), C],
        'note then raw false': [md('# T\n\n- skip_exec: true'), raw('---\nskip_exec: false\n---'), C], 'raw title then note': [raw('---\ntitle: x\n---'), md('# T\n\n- skip_exec: true'), C],
        'eval false': [md('# T\n\n- eval: false'), ('code', '#| eval: true\nx()'), C],
        # values that aren't a bare true or false (they crashed every run with fastcore's TypeError)
        'eval as prose': [md('# Model comparison\n\n- eval: accuracy on the held-out set'), C], 'skip_exec with a comment': [raw('---\nskip_exec: false  # later\n---'), C],
        'skip_exec null': [raw('---\nskip_exec: null\n---'), C], 'skip_exec tilde': [raw('---\nskip_exec: ~\n---'), C],
        # each value as YAML reads it, for both keys, in both forms (`eval` is false only when it is false; nbdev fails on a `skip_exec` of other text)
        **{f'{form} {k}: {v}': [raw(f'---\n{k}: {v}\n---') if form=='raw' else md(f'# T\n\n- {k}: {v}'), C]
           for k in ('eval', 'skip_exec') for form in ('raw', 'md')
           for v in ('true', 'TRUE', 'yes', 'On', '1', 'y', 'n', 'false', 'FALSE', 'No', 'off', '0', '', 'null', '~', "'true'", "'false'", '"no"', "'0'",
                     '0.0', '-0', '0x0', '[]', '{}', 'false  # c', 'true  # c') + (('accuracy',) if k=='eval' else ())},
    }

@pytest.mark.parametrize('name', list(_front_matter_cases()))
def test_front_matter_as_nbdev_test_reads_it(tmp_path, name):
    "Oracle: nbdev's own `nb_test_cells` on the same file runs the same cells as `run_plan`"
    nb_test_cells = pytest.importorskip('nbdev.test').nb_test_cells
    import nbformat
    from nbformat import v4
    mk = dict(code=v4.new_code_cell, markdown=v4.new_markdown_cell, raw=v4.new_raw_cell)
    nb = v4.new_notebook(cells=[mk[t](s) for t,s in _front_matter_cases()[name]], metadata={'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}})
    p = tmp_path/'fm.ipynb'
    nbformat.write(nb, str(p))
    assert [m.content for m in read_ipynb(p).run_plan()[0]]==[c.source for c in nb_test_cells(p)]

def test_a_hosts_promoted_tags_are_obeyed():
    "A `Message` subclass whose `meta_attrs` promotes `tags`: its skip-execution and raises-exception tags count as in `meta` (the runner read `meta` alone)"
    class Tagged(Message): meta_attrs = dict(tags='tags')
    skip = Tagged('print(1)', meta=dict(tags=['skip-execution']))
    assert skip.tags==['skip-execution'] and 'tags' not in skip.meta
    assert skip_reason(skip)=='skip-execution tag' and expects_error(Tagged('1/0', meta=dict(tags=['raises-exception'])))
    assert skip_reason(Tagged('print(1)'))==None and not expects_error(Tagged('1/0'))

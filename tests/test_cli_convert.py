"nbdialog convert: -o, options that don't fit the form, JSON Lines both ways, and what each conversion says it wrote."
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.chat import jsonl2dlgs
from cli_helpers import fails, nbd, ok

# --- 3. JSON Lines read back; --from openai on JSON Lines says what to do
def _two_dialogs(tmp_path):
    a = Dialog('a'); a.mk_message('Hi', msg_type='prompt', output='Hello'); a.save(tmp_path/'a.ipynb')
    b = Dialog('b'); b.mk_message('Sum?', msg_type='prompt', output='3'); b.mk_message('More?', msg_type='prompt', output='no'); b.save(tmp_path/'b.ipynb')
    ok('convert', tmp_path/'a.ipynb', tmp_path/'b.ipynb', '--to', 'jsonl', '-o', tmp_path/'both.jsonl')
    return tmp_path/'both.jsonl'

def rows(d): return [(m.msg_type, m.content, m.ai_res) for m in d.messages]

@pytest.mark.slow
def test_convert_stdout_dash_and_misfit_options(tour, tmp_path):
    assert ok('convert', tour, '--to', 'py', '-o', '-', cwd=tmp_path)==ok('convert', tour, '--to', 'py') and not (tmp_path/'-').exists()
    fails('convert', tour, '--to', 'md', '--fmt', 'anthropic', has='--fmt goes with --to jsonl or --from jsonl only')
    fails('convert', tour, '--to', 'py', '--assets', 'img', cwd=tmp_path, has='--assets goes with --to md only')
    assert not (tmp_path/'img').exists()
    fails('convert', tour, '--from', 'openai', '-o', '-', has='--from needs -o FILE.ipynb')
    assert ok('convert', tour, tour, '--to', 'jsonl', '--fmt', 'anthropic').count('\n')==2

@pytest.mark.slow
def test_convert_from_jsonl_to_a_folder(tmp_path):
    src = _two_dialogs(tmp_path)
    out = ok('convert', src, '--from', 'jsonl', '-o', tmp_path/'back')
    want = jsonl2dlgs(src)
    assert out.splitlines()==[f'wrote {tmp_path}/back/{d.name}.ipynb' for d in want] and [d.name for d in want]==['both-1', 'both-2']
    for d in want: assert rows(read_ipynb(tmp_path/'back'/f'{d.name}.ipynb'))==rows(d)
    assert rows(want[1])==[('prompt', 'Sum?', '3'), ('prompt', 'More?', 'no')]
    before = (tmp_path/'back'/'both-2.ipynb').read_bytes()
    (tmp_path/'back'/'both-1.ipynb').unlink()
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'back', has='both-2.ipynb: already exists')
    assert not (tmp_path/'back'/'both-1.ipynb').exists() and (tmp_path/'back'/'both-2.ipynb').read_bytes()==before # checked before any is written
    ok('convert', src, '--from', 'jsonl', '-o', tmp_path/'back', '--force')
    assert (tmp_path/'back'/'both-1.ipynb').exists()

@pytest.mark.slow
def test_convert_from_jsonl_one_dialog_to_a_file(tmp_path):
    src = _two_dialogs(tmp_path)
    one = tmp_path/'one.jsonl'
    one.write_text(src.read_text().splitlines()[1] + '\n')
    assert ok('convert', one, '--from', 'jsonl', '-o', tmp_path/'one.ipynb').strip()==f'wrote {tmp_path}/one.ipynb'
    assert rows(read_ipynb(tmp_path/'one.ipynb'))==[('prompt', 'Sum?', '3'), ('prompt', 'More?', 'no')]
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'two.ipynb', has='holds 2 dialogs')
    assert not (tmp_path/'two.ipynb').exists()
    ok('convert', src, '--from', 'jsonl', '--fmt', 'anthropic', '-o', tmp_path/'ant')
    assert len(list((tmp_path/'ant').glob('*.ipynb')))==2
    (tmp_path/'f').write_text('')
    fails('convert', src, '--from', 'jsonl', '-o', tmp_path/'f', has='is not a folder')

def test_convert_jsonl_with_from_openai_points_at_jsonl(tmp_path):
    src = _two_dialogs(tmp_path)
    fails('convert', src, '--from', 'openai', '-o', tmp_path/'x.ipynb', has='--from jsonl')
    assert not (tmp_path/'x.ipynb').exists()

def test_a_jsonl_file_not_utf8_or_nested_too_deeply_is_named_with_its_line(tmp_path):
    "r22f item 7: a JSON Lines file saved in Latin-1 gave a bare UnicodeDecodeError, and a line nested too deeply a RecursionError (a traceback on the command line): both are ValueErrors naming the file and the line, as a bad line's are"
    lat, deep = tmp_path/'latin1.jsonl', tmp_path/'deep.jsonl'
    lat.write_bytes('{"messages": [{"role": "user", "content": "ok"}]}\n{"messages": [{"role": "user", "content": "caf\u00e9"}]}\n'.encode('latin-1'))
    deep.write_text('{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": ' + '{"a":'*2000 + '1' + '}'*2000 + '}}]}]}\n')
    for f, line, why in ((lat, 2, 'not UTF-8 (byte 0xe9'), (deep, 1, 'nested too deeply to read')):
        with pytest.raises(ValueError, match=rf'{f.name}: line {line}: ' + why.replace('(', r'\(')): jsonl2dlgs(f)
        fails('convert', f, '--from', 'jsonl', '-o', tmp_path/'out', has=f'{f.name}: line {line}: {why}')
    bom = tmp_path/'bom.jsonl'  # a byte order mark, and CR LF line breaks, read as before
    bom.write_bytes(b'\xef\xbb\xbf{"messages": [{"role": "user", "content": "hi"}]}\r\n{"messages": [{"role": "user", "content": "caf\xc3\xa9"}]}\r\n')
    assert [d.messages[0].content for d in jsonl2dlgs(bom)] == ['hi', 'caf\u00e9']

# --- 5. wording
@pytest.mark.slow
@pytest.mark.parametrize('to', ['openai', 'anthropic', 'jsonl', 'md', 'py', 'xml'])
def test_every_convert_o_says_what_it_wrote(tour, tmp_path, to):
    out = tmp_path/f'out.{to}'
    r = nbd('convert', tour, '--to', to, '-o', out)
    assert r.returncode==0 and r.stdout==f'wrote {out}\n' and r.stderr=='', r
    assert out.read_text()==ok('convert', tour, '--to', to) # without -o, stdout is the data alone

# --- 7. the way back from chat JSON is said to be lossy
def test_convert_help_says_from_gives_prompts_and_replies():
    h = ' '.join(ok('convert', '--help').split())
    assert 'prompts and replies' in h and 'notes and code sent as context come back as text inside the prompts' in h, h

def test_drop_help_names_every_rule():
    "`--drop`'s help explains each rule `jsonl_drops` holds, so a new rule can't be left out of it"
    from dialog.chat import jsonl_drops
    from dialog.cli import _drop
    assert all(f'{k}:' in _drop[1]['help'] for k in jsonl_drops)

def test_convert_to_jsonl_skips_bad_files_as_export_does(tmp_path):
    "`convert FOLDER --to jsonl --skip-bad` writes the good dialogs' lines and lists the bad file (with -o as `export` does; on stderr when the lines go to stdout); without it the bad file stops it; the flag goes with --to jsonl only"
    f = tmp_path/'talks'
    a = Dialog('a'); a.mk_message('hi', msg_type='prompt', output='yo'); a.save(f/'a.ipynb')
    (f/'broken.ipynb').write_text('{"cells": [')
    out = ok('convert', 'talks', '--to', 'jsonl', '--skip-bad', '-o', 'train.jsonl', cwd=tmp_path)
    assert out.splitlines()[:3] == ['wrote train.jsonl: 1 dialog, 1 line', '1 bad file skipped:', '  talks/broken.ipynb: not JSON, or cut short: Expecting value: line 1 column 12 (char 11)']
    assert len((tmp_path/'train.jsonl').read_text().splitlines()) == 1
    r = nbd('convert', 'talks', '--to', 'jsonl', '--skip-bad', cwd=tmp_path)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and r.stderr.splitlines()[:2] == ['1 bad file skipped:', '  talks/broken.ipynb: not JSON, or cut short: Expecting value: line 1 column 12 (char 11)']
    r = nbd('convert', 'talks/a.ipynb', 'talks/broken.ipynb', '--to', 'jsonl', '--skip-bad', cwd=tmp_path)  # files, not a folder: the same
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and 'broken.ipynb' in r.stderr
    fails('convert', 'talks', '--to', 'jsonl', '-o', 'x.jsonl', cwd=tmp_path, has='broken.ipynb: not JSON')
    fails('convert', 'talks/a.ipynb', '--to', 'md', '--skip-bad', cwd=tmp_path, has='--skip-bad goes with --to jsonl only')


def test_an_output_name_ending_in_a_slash_names_a_folder(tmp_path):
    "`-o out/` is a folder to POSIX: refused, no file named `out` made (one was, and the command said `wrote out/`)"
    d = Dialog('a'); d.mk_message('Hi', msg_type='prompt', output='Hello'); d.save(tmp_path/'a.ipynb')
    fails('convert', tmp_path/'a.ipynb', '--to', 'md', '-o', f'{tmp_path}/out/', has='names a folder')
    assert not (tmp_path/'out').exists()

def test_stdout_gets_utf8_whatever_the_locale(tmp_path):
    "A conversion to stdout writes UTF-8, as `-o FILE` does, under a locale that isn't (a Latin-1 pipe: the JSON wasn't UTF-8, and an emoji stopped it halfway)"
    import subprocess, json as J
    from cli_helpers import cmd, env
    d = Dialog('a'); d.mk_message('Café? 🙂', msg_type='prompt', output='Oui.'); d.save(tmp_path/'a.ipynb')
    r = subprocess.run(cmd + ['convert', str(tmp_path/'a.ipynb'), '--to', 'openai'], capture_output=True, env=env | {'PYTHONIOENCODING': 'latin-1'}, timeout=120)
    assert r.returncode==0, r.stderr
    assert J.loads(r.stdout.decode('utf-8'))[0]['content']=='Café? 🙂'

def test_json_nested_past_the_stack_is_one_line(tmp_path):
    "A history nested past Python's recursion limit is one line and exit 2, as the same bytes read as a dialog are (a RecursionError's traceback, exit 1)"
    (p := tmp_path/'deep.json').write_text('['*100_000 + ']'*100_000)
    fails('convert', p, '--from', 'openai', '-o', tmp_path/'x.ipynb', has='nested too deeply')

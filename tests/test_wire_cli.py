"`nbdialog convert --to/--from` in the new wire formats (issue 30): OpenAI Responses input and Gemini contents, the system prompt beside them as each API takes it"
import json, pytest
from dialog.core import *
from dialog.chat import tool_block, dlg2chat
from dialog.ipynb import read_ipynb
from cli_helpers import ok, fails

@pytest.fixture
def dlgfile(tmp_path):
    d = Dialog('t'); d.system = 'Be brief.'
    d.mk_message('Count a.py', msg_type=sprompt, output=tool_block('call_1', 'wc', {'f': 'a.py'}, '12') + '\n\nTwelve lines.')
    return d.save(tmp_path/'t.ipynb')

@pytest.mark.parametrize('fmt,sk,k', [('responses', 'instructions', 'input'), ('gemini', 'system_instruction', 'contents')])
def test_to_and_from_each_format(dlgfile, tmp_path, fmt, sk, k):
    ok('convert', dlgfile, '--to', fmt, '-o', tmp_path/'h.json')
    js = json.loads((tmp_path/'h.json').read_text())
    assert sorted(js) == sorted([sk, k]) and js[k] == dlg2chat(read_ipynb(dlgfile), fmt)
    ok('convert', tmp_path/'h.json', '--from', fmt, '-o', tmp_path/'back.ipynb')
    back = read_ipynb(tmp_path/'back.ipynb')
    assert back.system == 'Be brief.' and dlg2chat(back, fmt) == js[k]

def test_jsonl_in_new_formats(dlgfile, tmp_path):
    for fmt in ('responses', 'gemini'):
        ok('convert', dlgfile, '--to', 'jsonl', '--fmt', fmt, '-o', tmp_path/f'{fmt}.jsonl')
        ok('convert', tmp_path/f'{fmt}.jsonl', '--from', 'jsonl', '-o', tmp_path/fmt)
        assert dlg2chat(read_ipynb(tmp_path/fmt/f'{fmt}-1.ipynb'), fmt) == dlg2chat(read_ipynb(dlgfile), fmt)
    fails('convert', dlgfile, '--to', 'bard', has='invalid choice')

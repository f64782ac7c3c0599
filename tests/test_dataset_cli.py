"The collection commands in real subprocesses: `nbdialog export`, `nbdialog stats`, `nbdialog convert FOLDER --to jsonl`"
import os, subprocess, sys
from pathlib import Path
import pytest
from dialog.ipynb import read_ipynb
from dialog.chat import dlgs2jsonl
from dialog.dataset import read_parquet, dlgs2table, read_dialogs, folder_stats
from dataset import mk_folder  # bench/dataset.py's generator

root = Path(__file__).parent.parent
pytest.importorskip('pyarrow')
pytestmark = pytest.mark.slow  # each test starts several interpreters: seconds each (16_cli.ipynb runs the same commands in-process)

def nbd(*args, cwd, env=None):
    "Run the console entry point (`python -m dialog.cli`) in `cwd`: (exit code, stdout, stderr)"
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', *map(str, args)], capture_output=True, text=True, cwd=cwd,
                       env=dict(os.environ, PYTHONPATH=str(root), **(env or {})))
    return r.returncode, r.stdout, r.stderr

@pytest.fixture
def talks(tmp_path):
    "70 generated dialogs in two subfolders (enough for every core by default), and a hidden checkpoint that is ignored"
    mk_folder(tmp_path/'talks'/'a', 40); mk_folder(tmp_path/'talks'/'b', 70, start=40)
    (tmp_path/'talks'/'.ipynb_checkpoints').mkdir(); (tmp_path/'talks'/'.ipynb_checkpoints'/'x.ipynb').write_text('junk')
    return tmp_path

def test_export_parquet_is_the_table(talks):
    rc,out,err = nbd('export', 'talks', '-o', 'all.parquet', '--workers', '2', cwd=talks)
    assert (rc, out, err) == (0, 'wrote all.parquet: 70 dialogs, 3,500 rows\n', '')
    assert read_parquet(talks/'all.parquet').equals(dlgs2table(talks/'talks', workers=0))
    rc,out,err = nbd('export', 'talks', '-o', 'all.parquet', cwd=talks)
    assert rc == 2 and 'already exists; nothing written (use --force to replace it)' in err
    assert nbd('export', 'talks', '-o', 'all.parquet', '--force', cwd=talks)[0] == 0

def test_export_jsonl_and_convert_folder_stream_what_dlgs2jsonl_writes(talks):
    want = dlgs2jsonl(read_dialogs(talks/'talks', workers=0), talks/'want.jsonl', 'anthropic').read_bytes()
    assert nbd('export', 'talks', '-o', 'e.jsonl', '--fmt', 'anthropic', cwd=talks)[:2] == (0, 'wrote e.jsonl: 70 dialogs, 70 lines\n')
    assert nbd('convert', 'talks', '--to', 'jsonl', '--fmt', 'anthropic', '-o', 'c.jsonl', cwd=talks)[:2] == (0, 'wrote c.jsonl\n')
    rc,out,err = nbd('convert', 'talks/a', 'talks/b', '--to', 'jsonl', '--fmt', 'anthropic', cwd=talks)  # to stdout
    assert (talks/'e.jsonl').read_bytes() == (talks/'c.jsonl').read_bytes() == out.encode() == want and rc == 0

@pytest.mark.parametrize('fmt', ['responses', 'gemini'])
def test_export_jsonl_in_every_wire_format(talks, fmt):
    "`nbdialog export --fmt` takes every format `dialog.chat` speaks, and writes what `dlgs2jsonl` writes"
    want = dlgs2jsonl(read_dialogs(talks/'talks', workers=0), talks/'want.jsonl', fmt).read_bytes()
    assert nbd('export', 'talks', '-o', 'e.jsonl', '--fmt', fmt, cwd=talks)[0] == 0
    assert (talks/'e.jsonl').read_bytes() == want

def test_bad_files_stop_export_unless_skipped_and_stats_lists_them(talks):
    (talks/'talks'/'a'/'broken.ipynb').write_text('{"cells": [')
    rc,out,err = nbd('export', 'talks', '-o', 'x.parquet', cwd=talks)
    assert rc == 2 and err.startswith('nbdialog export: ') and 'broken.ipynb: not JSON' in err and not (talks/'x.parquet').exists()
    rc,out,err = nbd('export', 'talks', '-o', 'x.parquet', '--skip-bad', cwd=talks)
    assert rc == 0 and out.splitlines()[:2] == ['wrote x.parquet: 70 dialogs, 3,500 rows', '1 bad file skipped:']
    assert out.splitlines()[2].startswith('  talks/a/broken.ipynb: not JSON, or cut short: ')  # then json's own words
    rc,out,err = nbd('stats', 'talks', '--top', '3', cwd=talks)
    assert rc == 0 and err == ''
    os.chdir(talks)
    try: assert out == folder_stats('talks', top=3, workers=0) + '\n'
    finally: os.chdir(root)
    assert out.splitlines()[0].startswith('70 dialogs, 3,500 messages, ') and '1 bad file not read:\n  talks/a/broken.ipynb' in out
    assert len(out.split('biggest dialogs (tokens):\n')[1].split('\n1 bad file')[0].splitlines()) == 3

def test_usage_errors(talks):
    assert nbd('export', 'talks', cwd=talks)[0] == 2  # -o is required
    assert 'export writes a .parquet or a .jsonl file' in nbd('export', 'talks', '-o', 'x.csv', cwd=talks)[2]
    assert nbd('stats', 'talks', '--workers', '-1', cwd=talks)[0] == 2
    rc,out,err = nbd('stats', 'nowhere', cwd=talks)
    assert rc == 2 and 'nowhere: no such file or folder' in err

def test_without_pyarrow_export_names_the_extra(talks):
    "No pyarrow: export to Parquet exits 2 naming nbdialog[data]; JSON Lines still work"
    (talks/'nopa').mkdir(); (talks/'nopa'/'pyarrow.py').write_text("raise ImportError('No module named pyarrow')")
    env = {'PYTHONPATH': os.pathsep.join([str(talks/'nopa'), str(root)])}
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', 'export', 'talks', '-o', 'x.parquet'], capture_output=True, text=True, cwd=talks, env=dict(os.environ, **env))
    assert r.returncode == 2 and 'pip install "nbdialog[data]"' in r.stderr
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', 'export', 'talks', '-o', 'x.jsonl'], capture_output=True, text=True, cwd=talks, env=dict(os.environ, **env))
    assert r.returncode == 0, r.stderr

def test_export_partitioned_folder(talks):
    "--partition-by writes a hive-partitioned folder that reads back as the table; it is refused for JSON Lines and for a column with a value per message"
    rc,out,err = nbd('export', 'talks', '-o', 'parts', '--partition-by', 'msg_type,has_error', '--workers', '2', cwd=talks)
    assert (rc, out, err) == (0, 'wrote parts: 70 dialogs, 3,500 rows\n', '')
    assert (talks/'parts'/'msg_type=prompt'/'has_error=false').is_dir()
    order = [('path', 'ascending'), ('pos', 'ascending')]
    assert read_parquet(talks/'parts').sort_by(order).equals(dlgs2table(talks/'talks', workers=0).sort_by(order))
    rc,out,err = nbd('export', 'talks', '-o', 'parts', '--partition-by', 'msg_type', cwd=talks)
    assert rc == 2 and 'already exists; nothing written (use --force to replace it)' in err
    assert nbd('export', 'talks', '-o', 'parts', '--partition-by', 'msg_type', '--force', cwd=talks)[0] == 0
    assert sorted(f.name for f in (talks/'parts').iterdir()) == ['msg_type=code', 'msg_type=note', 'msg_type=prompt', 'msg_type=raw']
    rc,out,err = nbd('export', 'talks', '-o', 'p2', '--partition-by', 'content', cwd=talks)
    assert rc == 2 and "'content' has about a value per message" in err and not (talks/'p2').exists()
    rc,out,err = nbd('export', 'talks', '-o', 'x.jsonl', '--partition-by', 'msg_type', cwd=talks)
    assert rc == 2 and 'partition_by writes a folder of Parquet files, not JSON Lines' in err

def _small_files():
    "In the child: files may grow to 100 KB at most (a write beyond fails with EFBIG, as a full disk fails one)"
    import resource, signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

def test_a_partitioned_export_that_cant_write_exits_with_its_error(tmp_path):
    "A partitioned export whose write fails (a full disk, a file size limit) says why and exits 2: no abort at exit (pyarrow's writer threads left holding our generator), no hang"
    import dialog.ipynb
    from dialog.core import Dialog
    for i in range(40):
        d = Dialog(f'd{i}')
        for j in range(10): d.mk_message(os.urandom(800).hex(), msg_type='prompt', output=os.urandom(400).hex())
        d.save(tmp_path/'src'/f'{i}.ipynb')
    r = subprocess.run([sys.executable, '-m', 'dialog.cli', 'export', 'src', '-o', 'by', '--partition-by', 'msg_type', '--workers', '0'],
                       capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(root)), preexec_fn=_small_files, timeout=60)
    assert r.returncode==2 and 'File too large' in r.stderr and 'Fatal Python error' not in r.stderr, (r.returncode, r.stderr)
    assert sorted(os.listdir(tmp_path)) == ['src']  # nor a temporary folder left beside it

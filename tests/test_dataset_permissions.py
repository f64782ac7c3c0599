"Exports are made as every other file we write: new files and folders follow the umask, a replaced file keeps its permission bits, and no temporary file is left"
import os, stat, subprocess, sys
from pathlib import Path
import pytest
from dialog.core import *
from dialog.ipynb import *
from dialog.dataset import write_parquet, paths2jsonl, export_folder
from cli_helpers import env

def mode(p): return stat.S_IMODE(os.stat(p).st_mode)

@pytest.fixture
def src(tmp_path):
    d = Dialog('a'); d.mk_message('hi', msg_type='note'); d.mk_message('1+1')
    d.save(tmp_path/'src'/'a.ipynb')
    return tmp_path/'src'

@pytest.fixture(params=[0o022, 0o077, 0o002])
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)

def test_new_exports_follow_the_umask(src, tmp_path, umask):
    f,fd = 0o666 & ~umask,0o777 & ~umask
    assert mode(write_parquet(src, tmp_path/'t.parquet', workers=0))==f
    out = write_parquet(src, tmp_path/'parts', workers=0, partition_by='msg_type')
    assert mode(out)==fd and all(mode(p)==(fd if p.is_dir() else f) for p in out.rglob('*'))
    assert mode(paths2jsonl(src, tmp_path/'t.jsonl', workers=0))==f
    assert mode(Dialog('x').save(tmp_path/'x.ipynb'))==f # as Dialog.save does
    assert not [p for p in tmp_path.iterdir() if p.name.endswith('.tmp')]

def test_a_replaced_export_keeps_its_bits(src, tmp_path):
    for p,w in ((tmp_path/'t.parquet', lambda p: write_parquet(src, p, workers=0, force=True)), (tmp_path/'t.jsonl', lambda p: paths2jsonl(src, p, workers=0, force=True))):
        w(p); p.chmod(0o640); os.utime(p, (0, 0))  # a previous export (force replaces no other file)
        assert w(p)==p and mode(p)==0o640 and p.stat().st_mtime > 0

@pytest.mark.parametrize('dm,fm', [(0o700, 0o600), (0o750, 0o640), (0o755, 0o644)])
def test_a_replaced_folder_keeps_its_bits(src, tmp_path, dm, fm):
    "A partitioned export replaced with force keeps its folder's bits (its partitions' folders too), and its files the bits the old files all had: a private export stays private"
    old = os.umask(0o022)
    try:
        out = write_parquet(src, tmp_path/'by', workers=0, partition_by='msg_type')
        for p in out.rglob('*'): p.chmod(dm if p.is_dir() else fm)
        out.chmod(dm)
        next(p for p in out.rglob('*.parquet')).chmod(fm | 0o004)  # one more open than the rest: the others' bits win
        assert write_parquet(src, out, workers=0, partition_by='msg_type', force=True)==out
        assert mode(out)==dm and all(mode(p)==(dm if p.is_dir() else fm) for p in out.rglob('*'))
        assert len(list(out.rglob('*.parquet')))==2
    finally: os.umask(old)

def test_a_replaced_export_keeps_its_group(src, tmp_path):
    "A file, a partitioned folder (all in it) and a JSON Lines export replaced with force keep their group, as `atomic_write` keeps it: a team's shared export stays readable to the team"
    gs = [g for g in os.getgroups() if g!=os.getgid()] or ([100] if os.geteuid()==0 else [])
    if not gs: pytest.skip('needs root or a second group')
    g = gs[0]
    def share(p):
        for q in [p, *(p.rglob('*') if p.is_dir() else [])]: os.chown(q, -1, g); q.chmod(0o2750 if q.is_dir() else 0o640)
    def gids(p): return {q.stat().st_gid for q in [p, *(p.rglob('*') if p.is_dir() else [])]}
    for w in (lambda f: write_parquet(src, tmp_path/'t.parquet', workers=0, force=f), lambda f: paths2jsonl(src, tmp_path/'t.jsonl', workers=0, force=f),
              lambda f: write_parquet(src, tmp_path/'by', workers=0, partition_by='msg_type', force=f)):
        p = w(False); share(p)
        assert w(True)==p and gids(p)=={g}, p
        assert all(mode(q)==(0o2750 if q.is_dir() else 0o640) for q in [p, *(p.rglob('*') if p.is_dir() else [])])

def test_a_read_only_export_is_refreshed(tmp_path):
    "A partitioned export made read-only (`chmod -R a-w`) is replaced with force, twice, with no error and nothing set aside left beside it (as a non-root user: root ignores the bits)"
    code = '''
import os, sys, subprocess, json
from dialog.core import Dialog
from dialog.dataset import write_parquet
os.chdir(sys.argv[1])
d = Dialog('a'); d.mk_message('hi', msg_type='prompt', output='yo'); d.save('src/a.ipynb')
write_parquet('src', 'p', workers=0, partition_by='msg_type')
subprocess.run(['chmod', '-R', 'a-w', 'p'], check=True)
for k in range(2):
    ino = os.stat('p').st_ino
    write_parquet('src', 'p', workers=0, partition_by='msg_type', force=True)
    assert os.stat('p').st_ino != ino and sorted(os.listdir()) == ['p', 'src'], os.listdir()
print('ok')
'''
    import shutil, tempfile
    w = tempfile.mkdtemp()  # in the system's temporary folder: another user reaches it (pytest's tmp_path is private)
    cmd = [sys.executable, '-c', code, w]
    if os.geteuid()==0:
        if not shutil.which('setpriv'): pytest.skip('root, and no setpriv to drop to another user')
        os.chown(w, 65534, 65534)
        cmd = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', *cmd]
    try: r = subprocess.run(cmd, capture_output=True, text=True, env=dict(env, TMPDIR=w))
    finally: subprocess.run(['chmod', '-R', 'u+w', w]); shutil.rmtree(w, ignore_errors=True)
    assert r.stdout.strip()=='ok', r.stderr[-2000:]

@pytest.mark.parametrize('dm,fm', [(0o700, 0o600), (0o750, 0o640)])
def test_a_file_replacing_a_folder_keeps_its_bits(src, tmp_path, dm, fm):
    "A single file replacing a partitioned export takes the bits its files had, and a partitioned export replacing a file takes that file's (its folders searchable where it was readable): a private export stays private either way"
    old = os.umask(0o022)
    try:
        out = write_parquet(src, tmp_path/'by', workers=0, partition_by='msg_type')
        for p in [*out.rglob('*'), out]: p.chmod(dm if p.is_dir() else fm)
        assert write_parquet(src, out, workers=0, force=True)==out and out.is_file() and mode(out)==fm
        assert write_parquet(src, out, workers=0, partition_by='msg_type', force=True)==out and out.is_dir()
        assert mode(out)==dm and all(mode(p)==(dm if p.is_dir() else fm) for p in out.rglob('*'))
        for p in out.rglob('*'):
            if p.is_file(): p.unlink()
        assert write_parquet(src, out, workers=0, force=True)==out and mode(out)==dm & 0o666  # an empty folder: its own bits
    finally: os.umask(old)

@pytest.mark.parametrize('no', ['EPERM', 'ENOTSUP', 'ENOSYS'])
def test_a_new_export_is_made_where_the_filesystem_has_no_hard_links(src, tmp_path, monkeypatch, no):
    "vfat, exFAT and FUSE mounts refuse link(2): a new export is put in place all the same, as a new file, and a file that appeared meanwhile is refused, kept as it was (r24b)"
    import errno
    from dialog.dataset import read_parquet
    def refused(*a, **k): raise OSError(getattr(errno, no), os.strerror(getattr(errno, no)))
    monkeypatch.setattr(os, 'link', refused)
    p = write_parquet(src, tmp_path/'t.parquet', workers=0)
    u = os.umask(0); os.umask(u)
    assert read_parquet(p).num_rows==2 and mode(p)==0o666 & ~u  # made as any new file
    assert Path(paths2jsonl(src, tmp_path/'t.jsonl', workers=0)).read_text().count('\n')==1
    (tmp_path/'parts').mkdir()  # a single file replacing an empty folder goes the same way
    assert read_parquet(write_parquet(src, tmp_path/'parts', workers=0, force=True)).num_rows==2
    def appears(tmp, path): Path(path).write_text('theirs'); refused()  # another program made the file meanwhile
    monkeypatch.setattr(os, 'link', appears)
    with pytest.raises(FileExistsError, match=f'{tmp_path/"n.jsonl"} already exists; nothing was written'):
        paths2jsonl(src, tmp_path/'n.jsonl', workers=0)
    assert (tmp_path/'n.jsonl').read_text()=='theirs'
    assert not [n for n in os.listdir(tmp_path) if n.endswith('.tmp')]

@pytest.mark.parametrize('when', ['sigterm-in-rename', 'ctrl-c-as-created', 'forced-writer-meanwhile'])
def test_a_stopped_export_without_hard_links_leaves_no_empty_file(src, tmp_path, when):
    "Without hard links, SIGTERM while the complete file is renamed over the placeholder, or Ctrl-C as its create returns, leaves no empty file as the export (it read as a valid empty one, and blocked the next); a forced writer's export that replaced the placeholder is kept (r25b)"
    code = '''
import errno, os, signal, sys
from dialog.dataset import paths2jsonl
src, out, when = sys.argv[1:]
def refused(*a, **k): raise OSError(errno.EPERM, 'Operation not permitted')
os.link = refused
real_open, real_replace = os.open, os.replace
def opened(p, fl, *a, **k):  # a Ctrl-C pending as the placeholder's create returns
    fd = real_open(p, fl, *a, **k)
    if str(p)==out and fl & os.O_EXCL and when=='ctrl-c-as-created': raise KeyboardInterrupt
    return fd
def replaced(a, b, **k):  # on a FUSE mount the rename copies: the signal lands meanwhile
    if str(b)==out and when=='sigterm-in-rename': os.kill(os.getpid(), signal.SIGTERM)
    if str(b)==out and when=='forced-writer-meanwhile':
        with open(out, 'w') as f: f.write('theirs')
        raise KeyboardInterrupt
    return real_replace(a, b, **k)
os.open, os.replace = opened, replaced
paths2jsonl(src, out, workers=0)
'''
    out = str(tmp_path/'out.jsonl')
    r = subprocess.run([sys.executable, '-c', code, str(src), out, when], capture_output=True, text=True, env=env, timeout=120)
    # (SIGTERM's status as the shell shows it; an uncaught Ctrl-C's is the signal's own)
    assert r.returncode==(143 if when=='sigterm-in-rename' else -2), r.stderr[-2000:]
    if when=='forced-writer-meanwhile': assert Path(out).read_text()=='theirs'
    else: assert not os.path.exists(out)
    assert sorted(os.listdir(tmp_path))==sorted(['src'] + (['out.jsonl'] if when=='forced-writer-meanwhile' else []))

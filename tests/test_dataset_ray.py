"dialog.dataset on Ray Data: a local Ray with 2 workers reads 1,000 generated dialogs into exactly the serial table"
import os
from pathlib import Path
import pytest
from dialog.dataset import dlgs2table, ray_read, msg_schema
from dataset import mk_folder  # bench/dataset.py's generator

ray = pytest.importorskip('ray', reason='Ray is not installed: pip install "nbdialog[ray]"')
pa = pytest.importorskip('pyarrow')
root = Path(__file__).parent.parent
order = [('path', 'ascending'), ('pos', 'ascending')]

@pytest.fixture(scope='module')
def local_ray():
    "A local Ray instance of 2 worker CPUs, whose workers import this checkout's `dialog`"
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=200*1024**2, log_to_driver=False,
             runtime_env={'env_vars': {'PYTHONPATH': os.pathsep.join([str(root), str(root/'bench')])}})
    yield ray
    ray.shutdown()

@pytest.mark.slow
def test_ray_read_equals_the_serial_table(local_ray, tmp_path_factory):
    "1,000 dialogs of 50 messages: the rows Ray's 2 workers make equal the serial table's, schema metadata and all"
    f = mk_folder(tmp_path_factory.mktemp('ray')/'dlgs', 1000)
    ds = ray_read(f, override_num_blocks=8)
    t = pa.concat_tables(ray.get(ds.to_arrow_refs()))
    assert t.schema.equals(msg_schema(), check_metadata=True)
    serial = dlgs2table(f, workers=0)
    assert serial.num_rows == 50_000
    assert t.sort_by(order).equals(serial.sort_by(order))

@pytest.mark.slow
def test_ray_read_raises_naming_a_bad_file(local_ray, tmp_path):
    "A file the parser refuses fails the read, naming the file"
    f = mk_folder(tmp_path/'dlgs', 3)
    (f/'bad.ipynb').write_text('{"cells": [')
    with pytest.raises(Exception, match=r'bad\.ipynb: not JSON'): ray_read(f).materialize()

"Reading with `repair=True` on damaged files: it reads or raises `DialogFormatError`, and what it reads writes a valid file that reads back strictly"
import random, collections
import pytest, nbformat
import fuzz
from dialog.ipynb import reads_ipynb, write_ipynb, DialogFormatError

def outcome(data):
    try: d = reads_ipynb(data, repair=True)
    except DialogFormatError: return 'refused'
    t = write_ipynb(d)
    nbformat.validate(nbformat.reads(t, as_version=nbformat.NO_CONVERT))
    assert write_ipynb(reads_ipynb(t))==t  # strict reading takes what repair gave back, unchanged
    return 'read'

@pytest.mark.parametrize('seed', [0, 1])
def test_repair_reads_or_refuses_mutated_files(seed):
    rng,ss,res = random.Random(seed),fuzz.seeds(),collections.Counter()
    for _ in range(80): res[outcome(fuzz.mutate(rng, rng.choice(ss))[1])] += 1
    assert res['read'] and res['refused'], res

@pytest.mark.slow  # ~45 s
def test_repair_fuzz_long():
    rng,ss = random.Random(7),fuzz.seeds()
    for _ in range(4000): outcome(fuzz.mutate(rng, rng.choice(ss))[1])

def test_repair_heals_more_than_strict_reading():
    "Of the same mutations, repair reads every one strict reading reads, and more"
    rng,ss,strict,healed = random.Random(3),fuzz.seeds(),0,0
    for _ in range(120):
        data = fuzz.mutate(rng, rng.choice(ss))[1]
        try: reads_ipynb(data); strict += 1; ok = True
        except DialogFormatError: ok = False
        r = outcome(data)=='read'
        assert r or not ok
        healed += r
    assert healed > strict

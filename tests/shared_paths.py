"Where the tests find the project and the real notebooks of the shared corpus (`../shared/corpus` beside the checkout, as CI lays it out; it is not in the repository), and how a test that needs it skips without it"
import pytest
from pathlib import Path

root = Path(__file__).resolve().parent.parent
corpus = root.parent/'shared'/'corpus'

def _missing(p): return f'no {p}: the shared corpus (../shared/corpus beside the clone) is not in the repository'

def need_corpus(*parts):
    "`corpus/parts`, or skip the test (or fixture) calling it, naming the folder or file that is missing"
    p = corpus.joinpath(*parts)
    if not p.exists(): pytest.skip(_missing(p))
    return p

def needs_corpus(*parts):
    "A mark that skips the test it decorates, as `need_corpus` does, when `corpus/parts` is missing"
    p = corpus.joinpath(*parts)
    return pytest.mark.skipif(not p.exists(), reason=_missing(p))

def corpus_params(pattern, sub=''):
    "The files of `corpus/sub` matching `pattern`, to parametrize over; without them one param skipped as `needs_corpus(sub)` does"
    fs = sorted((corpus/sub).glob(pattern))
    return fs or [pytest.param(None, id='no-corpus', marks=needs_corpus(sub) if not (corpus/sub).exists() else ())]

import os
from hypothesis import settings

settings.register_profile('ci', max_examples=200, deadline=None)
settings.register_profile('dev', max_examples=100, deadline=None)
settings.load_profile('ci' if os.environ.get('CI') else 'dev')

import shutil, pytest
from cli_helpers import tour_src
from dialog.core import Message

@pytest.fixture
def tour(tmp_path):
    "A copy of examples/tour.ipynb in a temporary folder, free to change"
    p = tmp_path/'tour.ipynb'
    shutil.copy(tour_src, p)
    return p

@pytest.fixture
def pin_promoted(monkeypatch):
    "`Message` itself promoting the `pinned` flag (a property of `Message`) to an attribute"
    monkeypatch.setattr(Message, 'meta_attrs', {'pinned': 'pinned'})

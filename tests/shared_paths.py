"Where the tests find the project and the real notebooks of the shared corpus (`../shared/corpus` beside the checkout, as CI lays it out)"
from pathlib import Path

root = Path(__file__).resolve().parent.parent
corpus = root.parent/'shared'/'corpus'

"Makes bench/fuzz.py importable from the tests."
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent/'bench'))
from fuzz import *
from fuzz import run, seeds

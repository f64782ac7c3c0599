"Every regular expression the library compiles is one Python 3.10's `re` reads (no possessive quantifier, no atomic group: 3.11's), as `requires-python` promises"
import importlib, pkgutil, re
import dialog

# a quantifier (`*`, `+`, `?`, `}`) not escaped, then `+`; or `(?>`
_newer = re.compile(r'(?<!\\)(?:\\\\)*[*+?}]\+|\(\?>')

def _patterns():
    for m in pkgutil.iter_modules(dialog.__path__):
        try: mod = importlib.import_module(f'dialog.{m.name}')
        except ImportError: continue  # an optional extra missing
        for k,v in vars(mod).items():
            for x in v if isinstance(v, (tuple, list)) else [v]:
                if isinstance(x, re.Pattern) and isinstance(x.pattern, str): yield f'{m.name}.{k}',x.pattern

def test_patterns_read_on_python_310():
    "No pattern uses syntax Python 3.10 refuses (which failed `import dialog.chat` there)"
    pats = list(_patterns())
    assert len(pats)>30
    assert [k for k,p in pats if _newer.search(p.replace('[+]', '').replace('[*]', ''))]==[]
    assert _newer.search(r'a(?:b)*+') and _newer.search(r'(?>ab)') and not _newer.search(r'a\*+b')

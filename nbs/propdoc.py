"Docs tooling the notebooks share (not part of the library): how `show_doc` renders a property."
# One way to make a property, in every notebook: a read-only one is `@patch(as_prop=True)` in an `#| exporti` cell; a settable
# one is `Cls.name = property(_get, _set, doc=...)`; either is followed by a `show_doc(..., name='Cls.name', renderer=PropDoc)`
# cell. nbdev's default entry renders a property as its getter's `def`, which `#| exporti` (exported all the same) leaves out.
from nbdev.showdoc import BasicMarkdownRenderer

class PropDoc(BasicMarkdownRenderer):
    "`show_doc` renderer for a property: its name, whether it is settable, and the property's own docstring"
    def __init__(self, sym, name=None, title_level=3):
        super().__init__(sym, name=name, title_level=title_level)
        self.docs = sym.__doc__ or ''
        self.dm = f"{self.nm.split('.')[-1]}: property{'  # settable' if sym.fset else ''}"

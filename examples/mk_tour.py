"""Write examples/tour.ipynb: a small, real dialog made with the library, its code run for real outputs.

Run from anywhere: `python examples/mk_tour.py` (needs a Jupyter kernel: `pip install 'nbdialog[run]'`). It replaces the tour.
Tracebacks are kept without colour codes and the picture is stored uncompressed (zlib level 0), so any IPython and any zlib build write the same file."""
import random
from pathlib import Path
from dialog.core import *
from dialog.ipynb import *
from dialog.cli import *
from fastcore.ansi import strip_ansi

random.seed(2026) # stable message ids, so regenerating the tour gives the same file
here = Path(__file__).resolve().parent
dlg = Dialog('tour')
note = lambda s, **kw: dlg.mk_message(s, msg_type=snote, **kw)
code = lambda s: dlg.mk_message(s)
prompt = lambda s, reply: dlg.mk_message(s, msg_type=sprompt, output=reply)

note('# A tour of dialog\n\nA dialog is a notebook holding a conversation among a person, an AI and a Python interpreter. '
     'Notes (like this one) are read by everyone, code messages are run by the interpreter, prompts are answered by the AI.')
code("#| export\ndef greet(name):\n    \"Say hello to `name`\"\n    return f'Hello, {name}!'")
code("print(greet('world'))\ngreet('dialog')")
note('## Pictures\n\nOutputs are what a Jupyter kernel recorded: text, results, and images like this 16x16 gradient.')
code('''import struct, zlib
from IPython.display import Image

def png(w, h, px):
    "A PNG of `w`x`h` RGB pixels given by `px(x, y)`"
    chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    rows = b''.join(b'\\0' + bytes(c for x in range(w) for c in px(x, y)) for y in range(h))
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b'')

Image(data=png(16, 16, lambda x, y: (16*x, 16*y, 128)))''')
prompt('What does `greet` return for an empty name?',
       "`greet('')` returns `'Hello, !'`: the f-string puts the empty name between the comma and the exclamation mark. "
       "If you'd rather refuse it, check the name first:\n\n```python\nif not name: raise ValueError('greet needs a name')\n```")
prompt('Greet the tools, using the `greet` function.',
       "Calling it:\n\n<details class='tool-usage-details' markdown='1'>\n<summary><code>greet(name='tools')</code></summary>\n\n"
       '```json\n{\n  "id": "toolu_01Tour",\n  "call": {"function": "greet", "arguments": {"name": "tools"}},\n  "result": "\'Hello, tools!\'"\n}\n```\n\n'
       "</details>\n\nIt returned `'Hello, tools!'`.")
note('## Attachments\n\nA note can carry images pasted into it: ![a dot](attachment:dot.png)',
     attachments=[Attachment(tiny_png, 'image/png', 'dot.png')])
note('## When things go wrong\n\nAn error is recorded with its traceback; `nbdialog view examples/tour.ipynb --errors` (from the repository root) shows just these.')
code('greet()')

rep = dlg.execute(continue_on_error=True, timing=False) # timings would change the tour at every run
print(rep)
for m in dlg.messages:  # tracebacks kept without the kernel's colour codes, which differ between IPython versions
    if isinstance(m.output, list) and any(o.get('output_type')=='error' for o in m.output):
        m.output = [o | dict(traceback=[strip_ansi(l) for l in o['traceback']]) if o.get('output_type')=='error' else o for o in m.output]
dlg.validate()
print(dlg.save(here/'tour.ipynb', force=True))

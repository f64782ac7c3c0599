"""LLM conversations kept as Jupyter notebooks: messages, dialogs and attachments

Modules:

- `dialog.skill`: The editing toolkit agents use on dialogs: file functions that re-read, edit and save conflict-safely, line editors, hash-verified line addresses, finders, a paste buffer, IPython magics and an MCP server"""

__version__ = "0.0.1"

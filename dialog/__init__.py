"""LLM conversations kept as Jupyter notebooks: messages, dialogs and attachments

Modules:

- `dialog.chat`: The transmission projection: dialogs to and from provider chat histories, with tool calls, reasoning state and images
- `dialog.cli`: The `nbdialog` command line: read, search, edit, convert and run dialogs from a shell
- `dialog.core`: Messages, dialogs and attachments: the in-memory model of an LLM conversation kept as a notebook
- `dialog.dataset`: Collections of dialogs: one row per message in Arrow and Parquet, read in parallel or on Ray, and JSON Lines
- `dialog.gemini`: Gemini `contents` as a wire format of `dialog.chat`: `dlg2chat(dlg, 'gemini')` and `chat2dlg(contents, 'gemini')`
- `dialog.ipynb`: Reading and writing dialog files: lossless, safe against crashes and concurrent edits, and as fast as the JSON itself
- `dialog.nbjson`: The cell form: nbformat's rules for notebook cells and metadata, and the exact JSON layout Jupyter writes
- `dialog.pool`: Work fanned out over processes: one call, `pmap`, with which `dialog.dataset` reads, converts and writes dialogs
- `dialog.render`: One renderer of a message's outputs to text, with a documented choice of mime type for each audience
- `dialog.responses`: OpenAI Responses input items as a wire format of `dialog.chat`: `dlg2chat(dlg, 'responses')`, `chat2dlg`
- `dialog.run`: Running a dialog's code in a real Jupyter kernel, recording its outputs as Jupyter does and saving them as they come
- `dialog.session`: Claude Code and Codex sessions as dialogs: read, searched, edited, written back record for record, and forked
- `dialog.skill`: The editing toolkit agents use on dialogs: conflict-safe file edits, line editors, finders and an MCP server
- `dialog.thread`: narrator's `Thread` API as a view of a dialog: turns, roles, usage and timing analytics, reactions, platforms, titles, serialization, stored as a notebook
- `dialog.thread_sync`: A `Thread` kept as a dialog file: what a person may edit in it, and what survives clearing its outputs
- `dialog.threadstore`: narrator's `ThreadStore` over a folder of dialog files: one notebook per thread, found through a small index kept beside them, safe with several processes and with people editing the files
- `dialog.view`: The display projections: the XML agents read, line-numbered views, the Markdown people read, and finding messages"""

__version__ = "0.0.1"

"""LLM conversations kept as Jupyter notebooks: messages, dialogs and attachments

Modules:

- `dialog.chat`: The transmission projection: dialogs to and from provider chat histories (OpenAI Chat Completions and Responses, Anthropic, Gemini), with tool calls, reasoning state, images and trimming
- `dialog.cli`: The `nbdialog` command line: read, search, edit, convert and run dialogs from a shell
- `dialog.core`: Messages, dialogs and attachments: the in-memory model of an LLM conversation kept as a notebook
- `dialog.dataset`: Collections of dialogs: one row per message in Arrow tables and Parquet, folders read in parallel processes, the same rows from Ray Data across machines, and JSON Lines for fine-tuning written streaming
- `dialog.gemini`: Gemini `contents` as a wire format of `dialog.chat`: `dlg2chat(dlg, 'gemini')` and `chat2dlg(contents, 'gemini')`
- `dialog.ipynb`: Reading and writing dialog files: lossless, safe against crashes and concurrent edits, and about as fast as the JSON itself
- `dialog.nbjson`: The cell form: nbformat's rules for notebook cells and metadata, and the exact JSON layout Jupyter writes
- `dialog.pool`: Work fanned out over processes: one call, `pmap`, which the dataset readers use to read, convert and export many dialogs at once
- `dialog.render`: One renderer of a message's outputs to text, with a documented choice of mime type for each audience: the AI, the views, Markdown
- `dialog.responses`: OpenAI Responses input items as a wire format of `dialog.chat`: `dlg2chat(dlg, 'responses')` and `chat2dlg(items, 'responses')`
- `dialog.run`: Running a dialog's code messages in a real Jupyter kernel, recording their outputs as Jupyter does and saving them as they come
- `dialog.session`: Agent sessions as dialogs: Claude Code transcripts and Codex rollouts read, searched, edited, written back record for record, and forked
- `dialog.skill`: The editing toolkit agents use on dialogs: file functions that re-read, edit and save conflict-safely, line editors, hash-verified line addresses, finders, a paste buffer, IPython magics and an MCP server
- `dialog.thread`: narrator's `Thread` API as a view of a dialog: turns, roles, usage and timing analytics, reactions, platforms, titles, serialization, stored as a notebook
- `dialog.threadstore`: narrator's `ThreadStore` over a folder of dialog files: one notebook per thread, found through a small index kept beside them, safe with several processes and with people editing the files
- `dialog.view`: The display projections: the XML view agents read, line-numbered views, the Markdown people read, and finding messages"""

__version__ = "0.0.1"

"A reply's thinking with what was said around it (the gap before a call: thinking, then text) is taken out without a search: what the search takes out"
from hypothesis import given, settings, strategies as st
import dialog.chat as C
from dialog.chat import think_block
from test_chat_fast_reading import _denoise_long, mtext

# what stands around a thinking: said text, and each thing the search looks for
around = st.lists(st.sampled_from(['', ' ', '\n', '\n\n', 'I will run the tests now.', 'a', '{', '"', '\u2028', '\x0c', '<', '`', '```',
    '```json {.tool}', "<details class='tool-usage-details'>", '</details>', "<details class='token-usage-details'>x</details>",
    'token-usage-details', '\n🧠\n', '⏳x⏳', '*[Response interrupted]*', 'think_', '<!--']), max_size=5).map(''.join)

@given(mtext, around, around)
@settings(max_examples=800, deadline=None)
def test_thinking_with_text_around_denoises_as_the_long_way(t, head, tail):
    "The shortcut gives what the search gives, on thinking as `think_block` writes it and on what only looks like it"
    for s in (head + think_block(t) + tail, head + '<!--think_start-->' + t + '<!--think_end-->' + tail):
        assert C._denoise(s) == _denoise_long(s)

def test_the_gap_before_a_call_is_taken_without_a_search():
    "Thinking then text, as a Claude Code round reads: the text is what is left"
    s = '\n\n' + think_block('Let me look. <details>') + '\n\nI will run the tests now.\n\n'
    assert C._denoise(s) == _denoise_long(s) == '\n\n\nI will run the tests now.\n\n'

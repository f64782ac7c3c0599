"A message's drawn id is `rtoken_hex(4)`'s: the same draws of `random`, so a seed gives the ids it always gave"
import random
from hypothesis import given, settings, strategies as st
from fastcore.xtras import rtoken_hex
from dialog.core import Message, Dialog

@settings(max_examples=300)
@given(st.integers(min_value=0, max_value=2**64), st.integers(min_value=1, max_value=6))
def test_drawn_ids_are_rtoken_hex_draws(seed, n):
    random.seed(seed); want = [rtoken_hex(4) for _ in range(n)]
    random.seed(seed); got = [Message('x').id for _ in range(n)]
    assert got == want
    assert random.random() == (random.seed(seed), [rtoken_hex(4) for _ in range(n)], random.random())[2]  # the same state after

def test_a_redrawn_id_is_the_next_draw():
    random.seed(0); drawn = Message('x').id
    random.seed(0); d = Dialog('d', [Message('a', id=drawn)]); m = Message('b')  # draws `drawn` again: a collision
    d.insert_msgs([m])
    random.seed(0); want = [rtoken_hex(4), rtoken_hex(4)]
    assert [drawn, m.id] == want and m.id != drawn

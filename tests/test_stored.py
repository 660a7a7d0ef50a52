"""io.stored.stored_bytes against its definition: ``size`` bytes of ``fill``, each item and then
each raw span written over them in order (a bytearray slice assignment each)."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from shaderkit.io.stored import stored_bytes


def _by_definition(size: int, items: list[tuple[int, bytes]], raw: list[tuple[int, bytes]], fill: int) -> bytearray:
    out = bytearray([fill]) * size
    for at, data in [*items, *raw]:
        out[at : at + len(data)] = data
    return out


_piece = st.tuples(st.integers(0, 40), st.binary(max_size=12))


@given(st.integers(0, 48), st.lists(_piece, max_size=8), st.lists(_piece, max_size=4), st.integers(0, 255))
def test_stored_bytes_is_its_definition(size: int, items: list[tuple[int, bytes]], raw: list[tuple[int, bytes]],
                                        fill: int) -> None:
    assert stored_bytes(size, items, raw, fill) == _by_definition(size, items, raw, fill)


@given(st.lists(st.binary(min_size=1, max_size=9), max_size=10), st.lists(_piece, max_size=2),
       st.randoms(use_true_random=False), st.integers(0, 255))
def test_stored_bytes_of_pieces_that_tile_the_region(chunks: list[bytes], extra: list[tuple[int, bytes]],
                                                     rng: random.Random, fill: int) -> None:
    """Pieces covering the region once each, in any order, some of them raw spans (the common case
    of a parsed file) and empty pieces anywhere; then also with pieces over them (overlapping,
    at a piece's offset, past the end)."""
    pieces, at = [], 0
    for chunk in chunks:
        pieces.append((at, chunk))
        at += len(chunk)
    pieces += [(rng.randrange(at + 1), b"") for _ in range(2)]
    rng.shuffle(pieces)
    cut = rng.randrange(len(pieces) + 1)
    items, raw = pieces[:cut], pieces[cut:]
    result = stored_bytes(at, items, raw, fill)
    assert result == b"".join(chunks) == _by_definition(at, items, raw, fill)
    assert isinstance(result, bytearray)
    over = [(rng.choice([offset, offset + 1]), data) for offset, data in extra]  # (offsets near 0 often start a piece)
    for position in range(len(items) + 1):
        more = items[:position] + over + items[position:]
        assert stored_bytes(at, more, raw, fill) == _by_definition(at, more, raw, fill)

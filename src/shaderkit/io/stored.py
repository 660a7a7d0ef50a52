"""A parsed region's stored bytes, put back together from its placed items and raw spans.

Compiled in a compiled build (:data:`shaderkit._native.NATIVE`): every rebuild starts from these
bytes (:class:`shaderkit.io.layout.PlacedWriter`), and the PICA200 disassembler's layout check
compares each layout rule's output with them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable


def stored_bytes(size: int, items: Iterable[tuple[int, bytes]], raw: Iterable[tuple[int, bytes]],
                 fill: int = 0) -> bytearray:
    """``size`` bytes of ``fill`` with each (offset, bytes) of ``items``, then of ``raw``, written over them."""
    pieces = [*items, *raw]
    tiled = _tiling(size, pieces)
    if tiled is not None:  # (each byte written once: the pieces joined in offset order)
        return bytearray().join(tiled)
    out = bytearray([fill]) * size
    if all(0 <= at and at + len(data) <= size for at, data in pieces):
        view = memoryview(out)  # (a bytearray's slice assignment copies the bytes into a bytearray first)
        try:
            for at, data in pieces:
                view[at : at + len(data)] = data
        finally:
            view.release()
    else:  # (a piece reaching past the end: the slice assignment moves what follows, as it always did)
        for at, data in pieces:
            out[at : at + len(data)] = data
    return out


def _tiling(size: int, pieces: list[tuple[int, bytes]]) -> list[bytes] | None:
    """The non-empty pieces' bytes in offset order when they cover ``[0, size)`` once each (no gap,
    no overlap, nothing past the end), else None."""
    parts: list[bytes] = []
    pos = 0
    for at, data in sorted(pieces):  # (by offset; a tie, an overlap, is refused below)
        if len(data):
            if at != pos:
                return None
            parts.append(data)
            pos += len(data)
    return parts if pos == size else None

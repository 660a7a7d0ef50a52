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
    out = bytearray([fill]) * size
    for at, data in items:
        out[at : at + len(data)] = data
    for at, data in raw:
        out[at : at + len(data)] = data
    return out

"""Placement shared by the DVLB, DVOB and CGFX readers and writers, on top of :mod:`shaderkit.io.layout`.

:class:`Recorder` notes every addressed item of a parse in a :class:`~shaderkit.io.layout.Layout`
(refusing tables that overlap); :class:`SymbolTable` puts a symbol table's strings back where they
lay or lays the table out afresh by the format's rule; :func:`stored_fields` reads a fixed
structure's fields as the parsed file stored them (derived fields kept when nothing moved).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from shaderkit.io.layout import Key, Layout, PlacedWriter
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any


class Recorder:
    """Records the items of a parse in a :class:`Layout`, refusing tables that overlap (strings may
    share bytes, tables may not). :meth:`guard`, called after each entry, stops a parse whose
    tables already cover more bytes than the file holds (many entries pointing at one big table)
    before it turns quadratic. Shared by the DVLB, DVOB and CGFX readers."""

    def __init__(self, r: Reader) -> None:
        self.r = r
        self.layout = Layout()
        self.blocks: list[tuple[int, int, str]] = []
        self.covered = 0

    def table(self, key: Key, offset: int, size: int, what: str) -> None:
        """A structure of ``size`` bytes at ``offset`` (bounds already checked); empty ones are not items."""
        if size > 0:
            self.layout.record(key, offset, self.r.data[offset : offset + size])
            self.extent(offset, size, what)

    def extent(self, offset: int, size: int, what: str) -> None:
        """A range no other table may overlap that is not an item itself (a symbol table: its
        strings are the items, the bytes between them stay raw)."""
        if size > 0:
            self.blocks.append((offset, offset + size, what))
            self.covered += size

    def string(self, key: Key, offset: int, raw: bytes) -> None:
        """A NUL-terminated string (``raw`` includes the NUL); strings may share or overlap."""
        self.layout.record(key, offset, raw)

    def guard(self) -> None:
        """Refuse a file whose recorded structures claim more bytes than it has (a count bomb)."""
        if self.covered > self.r.end:
            self.check_overlaps()
            raise self.r.error(f"structures cover {self.covered} bytes of a {self.r.end}-byte file")

    def check_overlaps(self) -> None:
        """Raise ShaderFormatError where two recorded structures overlap."""
        used = sorted(self.blocks)
        for (s1, e1, n1), (s2, _e2, n2) in zip(used, used[1:]):
            if s2 < e1:
                raise self.r.error(f"{n2} ({s2:#x}) overlaps {n1} ({s1:#x}..{e1:#x})", s2)

    def finish(self) -> Layout:
        """The layout, closed: every range no item covers is a raw span."""
        self.check_overlaps()
        self.layout.close(self.r.data)
        return self.layout


class Relayout(Exception):
    """A placed write that cannot keep the file consistent: it is laid out afresh (picasso's rule)."""


def u32_offset(value: int) -> int:
    """An offset field: it must fit a u32 (a table before the header it is relative to does not)."""
    if not 0 <= value <= 0xFFFFFFFF:
        raise Relayout
    return value


def stored_fields(layout: Layout, key: Key, st: struct.Struct) -> tuple[Any, ...] | None:
    """The fields of fixed structure ``key`` as the parsed file stored them (None when it had none)."""
    stored = layout.items.get(key)
    if stored is None or len(stored.data) < st.size:
        return None
    return st.unpack_from(stored.data)


class SymbolTable:
    """A symbol table's strings, put back where they lay or laid out afresh by the format's rule.

    With ``base`` (the stored table's offset, its owner unmoved), when every string keeps its size
    and still agrees with the strings it shared or overlapped bytes with, each goes back where it
    lay: the table keeps its stored offset and size, and the raw bytes between strings (``kept``).
    Otherwise ``pool()`` (the format's rule: table bytes and symbol offsets) is one new item.
    ``symbols`` is the symbol offset of each string either way, known before anything is placed.
    """

    def __init__(self, layout: Layout, names: list[tuple[Key, bytes]], base: int | None,
                 pool: Callable[[], tuple[bytes, list[int]]]) -> None:
        self.names = names
        stored = [layout.items.get(key) for key, _ in names]
        self.kept = base is not None and all(
            p is not None and len(p.data) == len(raw) for p, (_, raw) in zip(stored, names)
        )
        if self.kept:  # strings that shared or overlapped bytes must still agree on them
            laid: dict[int, int] = {}
            self.kept = all(laid.setdefault(p.offset + i, byte) == byte
                            for p, (_, raw) in zip(stored, names) if p is not None for i, byte in enumerate(raw))
        self.data = b""
        if self.kept:
            assert base is not None
            self.offsets = [p.offset for p in stored if p is not None]
            self.symbols = [at - base for at in self.offsets]
        else:
            self.data, self.symbols = pool()

    def place(self, w: PlacedWriter, key: Key) -> int | None:
        """Write the strings; the new table's offset, or None when the stored table is kept."""
        if self.kept:
            for (name, raw), at in zip(self.names, self.offsets):
                if w.place(name, raw) != at:
                    raise Relayout  # a string it overlapped no longer agrees with it
            return None
        return w.place(key, self.data) if self.data else w.end

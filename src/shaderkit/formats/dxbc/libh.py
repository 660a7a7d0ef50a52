"""LIBH: the library header of an fxc ``lib_*`` container (one entry per LIBF function).

Layout, as every library in the corpus stores it (the field meanings the disassembler relies
on: creator, flags, names): ``u32 version (1), u32 creator_offset, u32 flags, u32 function_count,
u32 function_offset``; function entries of two words ``u32 unknown (0 in every file seen),
u32 name_offset``; then the NUL-terminated strings (creator first, then the function names).
The payload is not padded (its size is often odd).

A parsed chunk keeps its :class:`~shaderkit.io.layout.Layout` and puts unchanged items back;
a payload whose offsets do not resolve stays a raw chunk (see the container).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import close_layout, record_table, recorded_string
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

_HEADER = struct.Struct("<5I")
_ENTRY = struct.Struct("<2I")


@dataclass
class LibraryEntry:
    """One function of a LIBH table: its name and the unknown word stored beside it."""
    name: str
    unknown: int = 0


@dataclass
class LibraryHeader:
    """The LIBH chunk of a shader library: creator string, flags and function names."""
    functions: list[LibraryEntry] = field(default_factory=list)
    creator: str = ""
    flags: int = 0
    version: int = 1
    fourcc: str = "LIBH"
    #: where the parsed items lay (None for a new chunk: header, entries, creator, names)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "LIBH") -> LibraryHeader:
        """Parse the chunk payload under ``r``; ShaderFormatError for offsets outside it.
        Where its items lay is recorded as it is read (the container rebuilds this chunk item by
        item: see ``container._payload``)."""
        layout = Layout(size=r.end - r.start)
        base = r.start
        version, creator_off, flags, count, table = r.unpack_at(base, "5I", "LIBH header")
        if table > r.end - base:
            raise r.error(f"function table offset {table:#x} is past the chunk end", base + 16)
        r.check_count(count, _ENTRY.size, "library functions", base + table)
        record_table(r, layout, "functions", table, count * _ENTRY.size)
        model = cls([], recorded_string(r, layout, "creator", creator_off, "creator"), flags, version)
        for i in range(count):
            unknown, name_off = _ENTRY.unpack_from(r.data, base + table + i * _ENTRY.size)
            name = recorded_string(r, layout, ("name", i), name_off, "function name", f"functions[{i}]")
            model.functions.append(LibraryEntry(name, unknown))
        model.layout = close_layout(layout, r, _HEADER.size)
        return model

    def _entries(self, names: list[int]) -> bytes:
        return b"".join(_ENTRY.pack(f.unknown, name) for f, name in zip(self.functions, names))

    def build(self) -> bytes:
        """The chunk payload bytes (strings put back where they lay, new ones appended)."""
        if self.layout is None:
            return self.build_fresh()
        # strings follow each other unpadded, so new items are appended without alignment
        writer = PlacedWriter(self.layout, append_aligned(1))
        creator = writer.place("creator", self.creator.encode("latin-1") + b"\0")
        names = [writer.place(("name", i), f.name.encode("latin-1") + b"\0") for i, f in enumerate(self.functions)]
        table = writer.place("functions", self._entries(names))
        writer.put(0, _HEADER.pack(self.version, creator, self.flags, len(self.functions), table))
        return writer.getvalue() if writer.verify() else self.build_fresh()

    def build_fresh(self) -> bytes:
        """Header, function entries, creator, then the names (fxc's order)."""
        table = _HEADER.size
        pos = table + _ENTRY.size * len(self.functions)
        strings = self.creator.encode("latin-1") + b"\0"
        creator, pos = pos, pos + len(strings)
        names = []
        for f in self.functions:
            names.append(pos)
            raw = f.name.encode("latin-1") + b"\0"
            strings += raw
            pos += len(raw)
        head = _HEADER.pack(self.version, creator, self.flags, len(self.functions), table)
        return head + self._entries(names) + strings

    def summary(self) -> dict[str, Any]:
        """Flags, creator and function names, JSON-ready."""
        return {"flags": self.flags, "creator": self.creator, "functions": [f.name for f in self.functions]}


__all__ = ["LibraryEntry", "LibraryHeader"]

"""Helpers shared by the DXBC chunk modules: string pools and the 0xAB padding fxc uses."""

from __future__ import annotations

from collections.abc import Callable

from shaderkit.dataclass import dataclass
from shaderkit.errors import ShaderFormatError
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned, deferred_layout
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    #: a chunk model (it has a ``layout`` attribute)
    ChunkT = TypeVar("ChunkT", bound=Any)

#: fxc pads string tables to 4 bytes with this byte.
PAD_BYTE = b"\xab"


def pad4(buf: bytearray, fill: bytes = PAD_BYTE) -> None:
    """Pad ``buf`` in place to a multiple of 4 bytes with ``fill``."""
    buf += fill * (-len(buf) % 4)


def fourcc_text(raw: bytes) -> str:
    """A FourCC as text; non-ASCII bytes survive through latin-1."""
    return raw.decode("latin-1")


def fourcc_bytes(text: str) -> bytes:
    """The 4 bytes of a FourCC; ValueError when ``text`` is not 4 Latin-1 characters."""
    raw = text.encode("latin-1")
    if len(raw) != 4:
        raise ValueError(f"FourCC {text!r} is not 4 bytes")
    return raw


def chunk_string(r: Reader, offset: int, what: str = "string", where: str = "") -> str:
    """The NUL-terminated string at ``offset`` from the start of the chunk payload ``r``.

    ``where`` (such as ``elements[3]``) is added to the error context; it costs nothing on
    success, unlike a :meth:`Reader.scope` per table entry.
    """
    start = r.start + offset
    end = r.data.find(b"\0", start, r.end) if offset < r.end - r.start else -1
    if end < 0:
        context = f"{r.context}.{where}" if where and r.context else (where or r.context)
        problem = "is past the chunk end" if offset >= r.end - r.start else "has no terminator"
        raise ShaderFormatError(f"{what} at offset {offset:#x} {problem} ({r.end - r.start:#x} bytes)",
                                min(start, r.end), context)
    return r.data[start:end].decode("latin-1")


@dataclass
class StringPool:
    """Strings appended once each (first occurrence wins) at a running offset."""

    base: int
    data: bytearray
    offsets: dict[str, int]

    @classmethod
    def at(cls, base: int) -> StringPool:
        """An empty pool whose strings will be placed from chunk offset ``base``."""
        return cls(base, bytearray(), {})

    def add(self, text: str) -> int:
        """Offset of ``text``, appending it when not stored yet."""
        found = self.offsets.get(text)
        if found is None:
            found = self.base + len(self.data)
            self.offsets[text] = found
            self.data += text.encode("latin-1") + b"\0"
        return found


class Budget:
    """Caps the entries one chunk may yield at what its bytes can hold without sharing.

    Tables of distinct entries cannot hold more than ``payload size // entry size`` items;
    offsets that make several tables point at the same bytes would otherwise multiply the work.
    """

    def __init__(self, r: Reader, entry_size: int, what: str) -> None:
        self.r = r
        self.left = (r.end - r.start) // entry_size
        self.what = what

    def take(self, count: int) -> None:
        """Count ``count`` entries against the chunk size; ShaderFormatError when they cannot fit."""
        self.left -= count
        if self.left < 0:
            raise self.r.error(f"{self.what} overlap: more entries than the chunk can hold", self.r.start)


def close_layout(layout: Layout, r: Reader, header_size: int) -> Layout:
    """Finish ``layout``: every payload byte no recorded item (nor the fixed header) covers is kept raw."""
    layout.close(r.data[r.start : r.end], covered=[(0, min(header_size, r.end - r.start))])
    return layout


class Relayout(Exception):
    """Raised by a placed write that cannot keep the chunk consistent: it is laid out afresh."""


def placed_build(layout: Layout | None, fresh: Callable[[], bytes], placed: Callable[[PlacedWriter], None]) -> bytes:
    """A chunk payload: laid out by fxc's rule (``fresh``) without a layout, else items put back.

    ``placed`` writes every item through the writer (post order: children before the tables that
    point at them) and the fixed header with :meth:`PlacedWriter.put`. New or resized items go
    at the end, 4-aligned, 0xAB-padded as fxc pads. Should an edit clobber an item that
    overlapped it in the parsed file, or ``placed`` raise :class:`Relayout`, the chunk is laid out
    afresh instead.
    """
    if layout is None:
        return fresh()
    writer = PlacedWriter(layout, append_aligned(4), fill=PAD_BYTE[0])
    try:
        placed(writer)
    except Relayout:
        return fresh()
    if not writer.verify():
        return fresh()
    if writer.end > layout.size:
        writer.pad_to(4)
    return writer.getvalue()


def recorded_string(r: Reader, layout: Layout | None, key: object, offset: int, what: str = "string",
                    where: str = "") -> str:
    """:func:`chunk_string`, noting in ``layout`` (unless None: not recording) that ``key`` lay at
    ``offset`` (terminator included)."""
    data, start = r.data, r.start + offset
    end = data.find(b"\0", start, r.end) if offset < r.end - r.start else -1
    if end < 0:
        return chunk_string(r, offset, what, where)  # raises the error chunk_string describes
    if layout is not None:
        layout.record(key, offset, data[start : end + 1])
    return data[start:end].decode("latin-1")


def record_table(r: Reader, layout: Layout | None, key: object, offset: int, size: int) -> None:
    """Note that the table ``key`` lay at payload ``offset`` with ``size`` bytes (already bounds-checked;
    nothing when ``layout`` is None: not recording)."""
    if layout is not None:
        layout.record(key, offset, r.data[r.start + offset : r.start + offset + size])


def read_with_deferred_layout(r: Reader, read: Callable[[Reader, Layout | None], ChunkT]) -> ChunkT:
    """The chunk payload ``r`` read by ``read(reader, None)``, its ``layout`` recorded on first use
    by ``read(reader, layout)``: a second reading of the same bytes (same window; the allocation
    budget of a fresh reader of the input, at least what the first reading had left) that records
    into ``layout`` as it goes. A chunk in its compiler's layout, which the container rebuilds by
    ``build_fresh``, never needs it."""
    data, start, end = r.data, r.start, r.end

    def record() -> Layout:
        layout = Layout(size=end - start)
        read(Reader(data, start, end=end), layout)
        return layout

    model = read(r, None)
    model.layout = deferred_layout(record)
    return model

"""Helpers shared by the DXBC chunk modules: string pools and the 0xAB padding fxc uses."""

from __future__ import annotations

from dataclasses import dataclass

from shaderkit.errors import ShaderFormatError
from shaderkit.io.reader import Reader

#: fxc pads string tables to 4 bytes with this byte.
PAD_BYTE = b"\xab"


def pad4(buf: bytearray, fill: bytes = PAD_BYTE) -> None:
    """Pad ``buf`` in place to a multiple of 4 bytes with ``fill``."""
    buf += fill * (-len(buf) % 4)


def fourcc_text(raw: bytes) -> str:
    """A FourCC as text; non-ASCII bytes survive through latin-1."""
    return raw.decode("latin-1")


def fourcc_bytes(text: str) -> bytes:
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
        self.left -= count
        if self.left < 0:
            raise self.r.error(f"{self.what} overlap: more entries than the chunk can hold", self.r.start)

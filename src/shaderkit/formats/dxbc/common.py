"""Helpers shared by the DXBC chunk modules: string pools and the 0xAB padding fxc uses."""

from __future__ import annotations

from dataclasses import dataclass

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


def chunk_string(r: Reader, offset: int, what: str = "string") -> str:
    """The NUL-terminated string at ``offset`` from the start of the chunk payload ``r``."""
    if offset > r.end - r.start:
        raise r.error(f"{what} offset {offset:#x} is past the chunk end ({r.end - r.start:#x})", r.start)
    return r.cstring_at(r.start + offset, "latin-1", what)


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

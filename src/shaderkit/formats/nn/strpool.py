"""The ``_STR`` string pool.

Layout after the 0x10 block header: i32 count (the leading empty string is not counted), then
entries {u16 length, characters, NUL, pad to an even size}. The first entry is always the empty
string. Dictionary keys point at an entry's length field; the file-name field of the file header
points at the characters.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.nn.binary import BlockHeader
from shaderkit.io.reader import Reader

_U16 = struct.Struct("<H")


def read_string(r: Reader, offset: int, what: str = "string") -> str:
    """A pool string whose u16 length sits at ``offset``; the characters must end in NUL."""
    (length,) = r.unpack_at(offset, "H", f"{what} length")
    start = offset + 2
    if start + length >= r.end:
        raise r.error(f"{what} of {length} bytes at {offset:#x} runs past {r.end:#x}", offset)
    if r.data[start + length] != 0:
        raise r.error(f"{what} at {offset:#x} has no terminator after {length} bytes", offset)
    raw = r.data[start : start + length]
    if b"\0" in raw:
        raise r.error(f"{what} at {offset:#x} holds a NUL inside its {length} bytes", offset)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise r.error(f"{what} at {offset:#x} is not UTF-8", offset) from None


def entry_size(text: str) -> int:
    """Bytes one entry takes: length field, characters, NUL, padding to even."""
    size = 2 + len(text.encode("utf-8")) + 1
    return size + (size & 1)


@dataclass
class StringPool:
    """Strings in pool order (without the leading empty string)."""

    strings: list[str] = field(default_factory=list)
    reserved: int = 0
    #: Every entry's length-field offset -> its text, as read.
    by_offset: dict[int, str] = field(default_factory=dict, compare=False)

    @classmethod
    def read(cls, r: Reader, offset: int) -> StringPool:
        """Read the _STR block at ``offset``; ShaderFormatError when a string runs past it."""
        with r.scope("_STR"):
            block = BlockHeader.read(r, offset, b"_STR")
            end = offset + block.block_size
            sub = r.sub(offset, block.block_size, "")
            sub.seek(offset + 0x10)
            count = sub.i32()
            sub.check_count(count + 1, 4, "string count")
            pos = sub.tell()
            by_offset: dict[int, str] = {}
            strings: list[str] = []
            for index in range(count + 1):
                text = read_string(sub, pos, f"string {index}")
                if index == 0:
                    if text:
                        raise sub.error("the first pool string is not empty", pos)
                else:
                    strings.append(text)
                by_offset[pos] = text
                pos += entry_size(text)
                if pos > end:
                    raise sub.error("string pool runs past its block", pos)
            return cls(strings, block.reserved, by_offset)

    def build(self, offset: int) -> tuple[bytes, dict[str, int], int]:
        """The block bytes (padded to 8), the length-field offset of every string, the unpadded size."""
        where: dict[str, int] = {}
        pos = offset + 0x14
        out = bytearray()
        for text in ["", *self.strings]:
            raw = text.encode("utf-8")
            where.setdefault(text, pos)
            out += _U16.pack(len(raw)) + raw + b"\0"
            if len(out) & 1:
                out += b"\0"
            pos = offset + 0x14 + len(out)
        size = 0x14 + len(out)
        padded = size + (-size % 8)
        head = BlockHeader.pack(b"_STR", 0, padded, self.reserved) + struct.pack("<i", len(self.strings))
        return head + bytes(out) + bytes(padded - size), where, size

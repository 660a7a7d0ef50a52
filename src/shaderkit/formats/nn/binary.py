"""The nn::util binary-file header (0x20 bytes) and block headers (0x10 bytes)."""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.io.reader import Reader

BOM = 0xFEFF
FILE_HEADER = struct.Struct("<8sBBHHBBIHHII")
BLOCK_HEADER = struct.Struct("<4sIII")

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the nn::util binary file (BNSH, Switch BFRES/BFSHA) at ``offset`` of ``data`` as its
    header gives it, or None when the bytes there are not a consistent little-endian header."""
    if offset + FILE_HEADER.size > len(data):
        return None
    _, _, _, _, bom, shift, _, _, _, first, rlt, size = FILE_HEADER.unpack_from(data, offset)
    if bom != BOM or shift > 20 or not FILE_HEADER.size <= size <= len(data) - offset:
        return None
    return size if first < size and rlt < size else None


@dataclass
class BinaryFileHeader:
    """``nn::util::BinaryFileHeader``; the offsets are derived when a file is written."""

    signature: bytes
    version_micro: int
    version_minor: int
    version_major: int
    alignment_shift: int = 12
    address_size: int = 0
    flags: int = 0
    #: Offsets as read (kept for inspection; writers compute their own).
    name_offset: int = field(default=0, compare=False)
    first_block_offset: int = field(default=0, compare=False)
    relocation_table_offset: int = field(default=0, compare=False)
    file_size: int = field(default=0, compare=False)

    @property
    def version(self) -> str:
        """The version as ``major.minor.micro``."""
        return f"{self.version_major}.{self.version_minor}.{self.version_micro}"

    @property
    def alignment(self) -> int:
        """The file alignment in bytes (``1 << alignment_shift``)."""
        return 1 << self.alignment_shift

    @classmethod
    def read(cls, r: Reader, signature: bytes) -> BinaryFileHeader:
        """Read the 0x20-byte header at offset 0, expecting ``signature`` (8 bytes); ShaderFormatError otherwise."""
        with r.scope("header"):
            r.seek(0)
            r.expect(signature, "signature")
            micro, minor, major = r.unpack("BBH", "version")
            (bom,) = r.unpack("H", "byte-order mark")
            if bom != BOM:
                raise r.error(f"byte-order mark {bom:#06x} is not 0xfeff (only little-endian files)", 0xC)
            shift, address_size, name_offset, flags, first, rlt, size = r.unpack("BBIHHII")
            if shift > 20:
                raise r.error(f"alignment shift {shift} is out of range", 0xE)
            if size != len(r.data):
                raise r.error(f"file size field {size:#x} does not match the {len(r.data):#x} bytes read", 0x1C)
            return cls(signature, micro, minor, major, shift, address_size, flags, name_offset, first, rlt, size)

    def pack(self, name_offset: int, first_block: int, rlt_offset: int, file_size: int) -> bytes:
        """The header bytes with the given name, first-block and _RLT offsets and file size."""
        return FILE_HEADER.pack(
            self.signature, self.version_micro, self.version_minor, self.version_major, BOM,
            self.alignment_shift, self.address_size, name_offset, self.flags, first_block,
            rlt_offset, file_size,
        )


@dataclass
class BlockHeader:
    """``nn::util::BinaryBlockHeader``: signature, offset of the next block (relative), size."""

    signature: bytes
    next_offset: int
    block_size: int
    reserved: int = 0

    @classmethod
    def read(cls, r: Reader, offset: int, signature: bytes) -> BlockHeader:
        """Read the block header at ``offset``, expecting ``signature``; ShaderFormatError when it runs out."""
        r.seek(offset, "block offset")
        r.expect(signature, "block signature")
        nxt, size, reserved = r.unpack("III", "block header")
        if offset + size > len(r.data) or (nxt and offset + nxt > len(r.data)):
            raise r.error(f"block {signature!r} of {size:#x} bytes runs past the end", offset)
        return cls(signature, nxt, size, reserved)

    @staticmethod
    def pack(signature: bytes, next_offset: int, block_size: int, reserved: int = 0) -> bytes:
        """The 16-byte block header bytes."""
        return BLOCK_HEADER.pack(signature, next_offset, block_size, reserved)


#: Most blocks a chain may hold (real files have two to a few dozen).
MAX_BLOCKS = 4096


def read_chain(r: Reader, first: int) -> list[tuple[int, BlockHeader]]:
    """(offset, header) of every block from ``first`` along the next-offsets.

    Each next offset must move forward, so a chain can neither loop nor run on forever.
    """
    out: list[tuple[int, BlockHeader]] = []
    offset = first
    while True:
        with r.scope(f"block[{len(out)}]"):
            r.seek(offset, "block offset")
            (signature,) = r.unpack("4s", "block signature")
            block = BlockHeader.read(r, offset, signature)
        out.append((offset, block))
        if not block.next_offset:
            return out
        if block.next_offset < BLOCK_HEADER.size or len(out) >= MAX_BLOCKS:
            raise r.error(f"block {signature!r} has a bad next offset {block.next_offset:#x}", offset + 4)
        offset += block.next_offset


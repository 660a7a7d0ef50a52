"""DXIL / ILDB: the shader model 6 program chunk of a DXBC container written by dxc.

Facts (DirectX Shader Compiler, ``DxilContainer.h``): the payload begins with
``DxilProgramHeader`` - the program version word (program kind in bits 16-31, major version in
bits 4-7, minor in bits 0-3, as in an SM4 version token), the program size in u32 words, then
``DxilBitcodeHeader``: the magic ``DXIL``, the DXIL version (major in bits 8-15, minor in bits
0-7), the bitcode offset (counted from the magic) and the bitcode size. The bitcode is an LLVM
module (magic ``BC\\xC0\\xDE``). ``ILDB`` holds the same structure with debug information.

Model: :class:`DxilProgram` types the 24-byte header field by field and keeps everything after it
as ``body`` bytes (the bitcode and any bytes around it), so writing is packing the six words and
the body: exact by construction. A payload shorter than the header or without the magic stays a
raw chunk. shaderkit does not disassemble the bitcode.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

HEADER = struct.Struct("<2I4s3I")
MAGIC = b"DXIL"
#: the DXIL header's size up to the magic: the bitcode offset counts from the magic
MAGIC_AT = 8
BITCODE_MAGIC = b"BC\xc0\xde"
#: DXIL program kinds -> profile prefix (ray-tracing kinds 7-12 live in libraries)
PROFILES = {0: "ps", 1: "vs", 2: "gs", 3: "hs", 4: "ds", 5: "cs", 6: "lib", 7: "raygeneration",
            8: "intersection", 9: "anyhit", 10: "closesthit", 11: "miss", 12: "callable", 13: "ms", 14: "as"}
#: DXIL program kinds -> stage name
KINDS = {0: "pixel", 1: "vertex", 2: "geometry", 3: "hull", 4: "domain", 5: "compute", 6: "library",
         7: "ray generation", 8: "intersection", 9: "any hit", 10: "closest hit", 11: "miss", 12: "callable",
         13: "mesh", 14: "amplification"}


@dataclass
class DxilProgram:
    """The DXIL (or ILDB) chunk: the typed program and bitcode headers, then the rest as bytes."""

    program_version: int = 0x60
    #: the program's size in u32 words, as stored (the header counts)
    size_in_words: int = 6
    magic: bytes = MAGIC
    dxil_version: int = 0x100
    #: where the bitcode starts, counted from the magic
    bitcode_offset: int = 16
    bitcode_size: int = 0
    #: everything after the 24-byte header (the bitcode, and any bytes around it)
    body: bytes = b""
    fourcc: str = "DXIL"

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when ``r`` holds the 24-byte header with the ``DXIL`` magic (cursor unmoved)."""
        return r.remaining >= HEADER.size and r.data[r.pos + MAGIC_AT : r.pos + MAGIC_AT + 4] == MAGIC

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "DXIL") -> DxilProgram:
        """The header, then the rest of ``r`` as ``body``; ShaderFormatError when it is too short."""
        version, size, magic, dxil_version, offset, bitcode_size = r.unpack(HEADER.format[1:], f"{fourcc} header")
        return cls(version, size, magic, dxil_version, offset, bitcode_size, r.read(r.remaining, f"{fourcc} body"),
                   fourcc)

    def build(self) -> bytes:
        """The payload: the header packed, then ``body``."""
        return HEADER.pack(self.program_version, self.size_in_words, self.magic, self.dxil_version,
                           self.bitcode_offset, self.bitcode_size) + self.body

    @property
    def kind(self) -> int:
        """The program kind (0 pixel, 1 vertex, ... 6 library, 13 mesh, 14 amplification)."""
        return self.program_version >> 16

    @property
    def profile(self) -> str:
        """``ps_6_0``-style profile of the program version word."""
        prefix = PROFILES.get(self.kind, f"kind{self.kind}")
        return f"{prefix}_{self.program_version >> 4 & 0xF}_{self.program_version & 0xF}"

    @property
    def bitcode(self) -> bytes:
        """The LLVM bitcode the header points at (b"" when it lies outside the payload)."""
        start = MAGIC_AT + self.bitcode_offset - HEADER.size
        if start < 0 or start + self.bitcode_size > len(self.body):
            return b""
        return self.body[start : start + self.bitcode_size]

    def summary(self) -> dict[str, Any]:
        """The chunk for ``info``: profile, stage, DXIL version, sizes and where the bitcode lies."""
        bitcode = self.bitcode
        return {
            "profile": self.profile,
            "stage": KINDS.get(self.kind, f"kind {self.kind}"),
            "dxil_version": f"{self.dxil_version >> 8 & 0xFF}.{self.dxil_version & 0xFF}",
            "size_in_words": self.size_in_words,
            "bitcode_offset": self.bitcode_offset,
            "bitcode_size": self.bitcode_size,
            "bitcode": "LLVM" if bitcode.startswith(BITCODE_MAGIC) else "outside the payload" if not bitcode
            else "unknown",
        }


__all__ = ["HEADER", "KINDS", "MAGIC", "PROFILES", "DxilProgram"]

"""SHDR/SHEX: the SM4/5 program chunk, kept as its token words.

Token 0 is the version token (program type in bits 16..31, major in 4..7, minor in 0..3),
token 1 the length of the program in dwords. Decoding the instructions belongs to
:mod:`shaderkit.isa.sm4`. Words past the declared length (never seen from fxc) are kept.
"""

from __future__ import annotations

import sys
from array import array

from shaderkit.dataclass import dataclass, field
from shaderkit.io.reader import Reader

PROGRAM_TYPES = {0: "ps", 1: "vs", 2: "gs", 3: "hs", 4: "ds", 5: "cs"}
PROGRAM_NAMES = {0: "pixel", 1: "vertex", 2: "geometry", 3: "hull", 4: "domain", 5: "compute"}


@dataclass
class ShaderProgram:
    """A SHDR/SHEX chunk: the SM4/5 token stream (version and length tokens first)."""
    fourcc: str = "SHEX"
    #: every dword of the payload, version and length tokens included.
    tokens: array = field(default_factory=lambda: array("I", [0x00010050, 2]))
    #: bytes after the last whole dword (only in malformed or hand-made chunks).
    tail: bytes = b""

    @classmethod
    def parse(cls, r: Reader, fourcc: str) -> ShaderProgram:
        """Read the token stream; ShaderFormatError when shorter than its 8-byte header."""
        size = r.remaining
        if size < 8:
            raise r.error(f"{fourcc} payload of {size} bytes is shorter than its 8-byte header")
        words = array("I")
        words.frombytes(r.read(size - size % 4, f"{fourcc} tokens"))
        if words.itemsize != 4:  # pragma: no cover - platforms with 8-byte unsigned int
            raise r.error("array('I') is not 32-bit here")
        if sys.byteorder == "big":  # pragma: no cover
            words.byteswap()
        return cls(fourcc, words, r.read(r.remaining))

    def build(self) -> bytes:
        """The tokens as little-endian words, then any tail bytes."""
        words = array("I", self.tokens)
        if sys.byteorder == "big":  # pragma: no cover
            words.byteswap()
        return words.tobytes() + self.tail

    @property
    def version_token(self) -> int:
        """The first token: program type in bits 16..31, major in 4..7, minor in 0..3."""
        return int(self.tokens[0])

    @property
    def program_type(self) -> int:
        """The program type of the version token (0 ps, 1 vs, 2 gs, 3 hs, 4 ds, 5 cs)."""
        return self.version_token >> 16

    @property
    def major(self) -> int:
        """The major shader model of the version token."""
        return (self.version_token >> 4) & 0xF

    @property
    def minor(self) -> int:
        """The minor shader model of the version token."""
        return self.version_token & 0xF

    @property
    def length(self) -> int:
        """The length token (dwords, version and length included)."""
        return int(self.tokens[1])

    @property
    def profile(self) -> str:
        """``vs_5_0`` style name."""
        kind = PROGRAM_TYPES.get(self.program_type, f"type{self.program_type}")
        return f"{kind}_{self.major}_{self.minor}"

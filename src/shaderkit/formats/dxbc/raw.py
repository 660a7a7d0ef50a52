"""Chunks kept as bytes: PRIV, unknown FourCCs, and FX10/SPDB/SDBG/LIBH payloads their typed parsers do not accept."""

from __future__ import annotations

from shaderkit.dataclass import dataclass
from shaderkit.io.reader import Reader


@dataclass
class RawChunk:
    """A chunk whose payload shaderkit does not model; written back as is (never padded)."""

    fourcc: str
    data: bytes

    @classmethod
    def parse(cls, r: Reader, fourcc: str) -> RawChunk:
        """Keep the whole payload under ``r`` as bytes."""
        return cls(fourcc, r.read(r.remaining, f"{fourcc} payload"))

    def build(self) -> bytes:
        """The payload bytes as kept."""
        return bytes(self.data)

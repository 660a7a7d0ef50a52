"""Yaz0 and zstd files as models: the payload, written back recompressed only when it changed."""

from __future__ import annotations

from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.archive import yaz0, zstd
from shaderkit.formats.base import ShaderFile


@dataclass(repr=False)
class CompressedFile(ShaderFile):
    """A compressed stream around one payload (which may itself be an archive)."""

    payload: bytes = field(repr=False)
    #: the stream as read; returned unchanged while the payload is unchanged
    original: bytes = field(default=b"", repr=False)
    original_payload: bytes = field(default=b"", repr=False, compare=False)

    def to_bytes(self) -> bytes:
        if self.original and self.payload == self.original_payload:
            return self.original
        return self.compress(self.payload)

    def compress(self, payload: bytes) -> bytes:
        """The compressed bytes of ``payload`` (each format says how it keeps the original stream)."""
        raise NotImplementedError

    def summary(self) -> dict[str, Any]:
        from shaderkit.formats.registry import detect

        spec = detect(self.payload)
        return {
            "format": self.format_name,
            "compressed_size": len(self.original),
            "size": len(self.payload),
            "contains": spec.name if spec else "unknown",
        }


@dataclass
class Yaz0File(CompressedFile):
    """A Yaz0-compressed file: the payload, the original stream and the resume points used to re-encode only what changed."""
    format_name = "yaz0"
    alignment: int = 0

    #: resume points of the original stream: a changed payload is re-encoded from the last one
    #: before its first change, so the stream stays the original up to there
    checkpoints: list[tuple[int, int]] = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Yaz0File:
        header = yaz0.read_header(data)
        checkpoints: list[tuple[int, int]] = []
        payload = yaz0.decompress(data, checkpoints=checkpoints)
        return cls(payload, data, payload, header.alignment, checkpoints)

    def compress(self, payload: bytes) -> bytes:
        """Yaz0 of ``payload``: the original stream up to the first change, then re-encoded."""
        if self.original and self.checkpoints:
            return yaz0.recompress(self.original, self.original_payload, payload, self.checkpoints,
                                   self.alignment)
        return yaz0.compress(payload, self.alignment)


@dataclass
class ZstdFile(CompressedFile):
    """A Zstandard-compressed file (needs the ``zstandard`` package); rewritten at ``level``."""
    format_name = "zstd"
    level: int = 19

    @classmethod
    def from_bytes(cls, data: bytes) -> ZstdFile:
        payload = zstd.decompress(data)
        return cls(payload, data, payload)

    def compress(self, payload: bytes) -> bytes:
        """Zstandard frame of ``payload`` at this file's ``level`` (content size written)."""
        return zstd.compress(payload, self.level)

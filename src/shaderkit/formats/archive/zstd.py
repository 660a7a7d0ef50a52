"""zstd (``.zs``) frames, through the optional ``zstandard`` package, with bounded output."""

from __future__ import annotations

from typing import Any

from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.io.limits import MAX_DECOMPRESSED_SIZE

MAGIC = b"\x28\xb5\x2f\xfd"


def _module() -> Any:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - depends on the environment
        raise UnsupportedOperation(
            "zstd (.zs) files need the 'zstandard' package: pip install 'shaderkit[archives]'") from None
    return zstandard


def decompress(data: bytes, limit: int = MAX_DECOMPRESSED_SIZE) -> bytes:
    """Every frame of ``data`` decompressed; more than ``limit`` bytes of output is refused."""
    if data[:4] != MAGIC:
        raise ShaderFormatError(f"bad zstd magic {bytes(data[:4]).hex()}", 0, "zstd")
    zstandard = _module()
    try:
        declared = zstandard.frame_content_size(data)
    except zstandard.ZstdError as exc:
        raise ShaderFormatError(f"bad zstd frame header: {exc}", 0, "zstd") from None
    if declared > limit:
        raise ShaderFormatError(f"decompressed size {declared} exceeds the limit of {limit} bytes", 4, "zstd")
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    out = bytearray()
    try:
        while True:
            chunk = reader.read(min(1 << 20, limit + 1 - len(out)))
            if not chunk:
                break
            out += chunk
            if len(out) > limit:
                raise ShaderFormatError(f"decompressed data exceeds the limit of {limit} bytes", 0, "zstd")
    except zstandard.ZstdError as exc:
        raise ShaderFormatError(f"corrupt zstd data: {exc}", 0, "zstd") from None
    if declared >= 0 and len(out) < declared:
        raise ShaderFormatError(f"stream ends after {len(out)} of {declared} bytes", 0, "zstd")
    return bytes(out)


def compress(data: bytes, level: int = 19) -> bytes:
    """A Zstandard frame of ``data`` at ``level`` (content size written); needs ``zstandard``."""
    zstandard = _module()
    return bytes(zstandard.ZstdCompressor(level=level, write_content_size=True).compress(data))

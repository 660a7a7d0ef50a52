from __future__ import annotations

import pytest

zstandard = pytest.importorskip("zstandard")

from shaderkit.errors import ShaderFormatError  # noqa: E402
from shaderkit.formats.archive import zstd  # noqa: E402
from shaderkit.formats.archive.compressed import ZstdFile  # noqa: E402


def test_round_trip_and_model() -> None:
    data = b"FSHA" + bytes(range(256)) * 64
    packed = zstandard.ZstdCompressor(level=3).compress(data)
    model = ZstdFile.from_bytes(packed)
    assert model.payload == data and model.to_bytes() == packed
    model.payload = data[:100]
    assert zstd.decompress(model.to_bytes()) == data[:100]


def test_bomb_without_declared_size_is_cut_at_the_limit() -> None:
    packed = zstandard.ZstdCompressor(write_content_size=False).compress(bytes(1 << 22))
    with pytest.raises(ShaderFormatError, match="exceeds the limit of 65536"):
        zstd.decompress(packed, limit=1 << 16)


def test_declared_size_over_limit_refused_before_decoding() -> None:
    packed = zstandard.ZstdCompressor().compress(bytes(1 << 20))
    with pytest.raises(ShaderFormatError, match="decompressed size 1048576 exceeds"):
        zstd.decompress(packed, limit=1 << 16)


def test_corrupt_and_truncated() -> None:
    packed = zstandard.ZstdCompressor().compress(bytes(range(256)) * 100)
    with pytest.raises(ShaderFormatError):
        zstd.decompress(packed[:-8])
    with pytest.raises(ShaderFormatError, match="magic"):
        zstd.decompress(b"\0" * 16)

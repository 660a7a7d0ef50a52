"""Damaged archives raise ShaderFormatError and nothing else (bounded, seeded smoke test)."""

from __future__ import annotations

import random

import pytest

from conftest import corpus_root
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.archive import yaz0
from shaderkit.formats.archive.path import walk
from shaderkit.formats.archive.sarc import Sarc
from shaderkit.formats.bfsha.wiiu import WiiUBfsha


def mutations(data: bytes, count: int, seed: int, hot: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        b = bytearray(data)
        for _ in range(rng.randint(1, 6)):
            pos = rng.randrange(min(hot, len(b))) if rng.random() < 0.8 else rng.randrange(len(b))
            b[pos] = rng.getrandbits(8)
        if rng.random() < 0.1:
            b = b[: rng.randrange(len(b))]
        out.append(bytes(b))
    return out


def test_damaged_bfsha() -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    data = (root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha").read_bytes()
    for blob in mutations(data, 50, 17, 0x2000):
        try:
            WiiUBfsha.from_bytes(blob).to_bytes()
            list(walk(blob))
        except ShaderFormatError:
            pass


def test_damaged_sarc_and_yaz0() -> None:
    rng = random.Random(3)
    payload = bytes(rng.getrandbits(8) for _ in range(200)) * 4
    stream = yaz0.compress(payload)
    for blob in mutations(stream, 300, 5, len(stream)):
        try:
            yaz0.decompress(blob)
        except ShaderFormatError:
            pass
    sarc = Sarc()
    sarc.set("a/b.bin", payload)
    sarc.set("c.txt", b"text")
    for blob in mutations(sarc.to_bytes(), 300, 7, 0x60):
        try:
            Sarc.from_bytes(blob).to_bytes()
        except ShaderFormatError:
            pass

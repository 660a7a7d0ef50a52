"""Inputs the long fuzz runs found; each is a corpus file with a few bytes patched."""

from __future__ import annotations

import pytest

import shaderkit
from conftest import corpus_root
from shaderkit.errors import ShaderFormatError

# (corpus file, [(offset, new byte)]) -- fuzz seed 21, case 233746: a slot array moved past _RLT
REGRESSIONS = [
    ("nx/lgpe_bm_signboard03_2_area02_3.bnsh_vert", [(0xBAE, 0x9A), (0xEE1, 0x30), (0x1521, 0x50), (0x29ED, 0xE0)]),
]


@pytest.mark.parametrize(("name", "patches"), REGRESSIONS)
def test_patched_file_rebuilds_or_fails_cleanly(name: str, patches: list[tuple[int, int]]) -> None:
    root = corpus_root()
    if root is None or not (root / name).is_file():
        pytest.skip("corpus not found")
    data = bytearray((root / name).read_bytes())
    for offset, value in patches:
        data[offset] = value
    try:
        model = shaderkit.open(bytes(data))
    except ShaderFormatError:
        return
    rebuilt = model.to_bytes()
    assert rebuilt == bytes(data)
    assert shaderkit.open(rebuilt).to_bytes() == rebuilt

"""Mutation test: every aligned u32 of every corpus BNSH / raw NVN file overwritten in turn with 0,
1, 0x7FFFFFFF, 0xFFFFFFFF and the file length. A mutant the parser accepts must rebuild byte for
byte; one it rejects must raise ShaderFormatError and nothing else. (tools/mutate_nx.py prints
the figures.)"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.nvn import NvnProgramFile
from shaderkit.formats.registry import detect

FILES = [p for p in corpus_files("nx", "*") if p.is_file() and p.name != "MANIFEST.tsv"]


def mutants(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(offset, value, mutant) for every aligned u32 and every special value that changes it."""
    values = dict.fromkeys((0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data) & 0xFFFFFFFF))
    buf = bytearray(data)
    for pos in range(0, len(data) - 3, 4):
        (old,) = struct.unpack_from("<I", data, pos)
        for value in values:
            if value != old:
                struct.pack_into("<I", buf, pos, value)
                yield pos, value, bytes(buf)
        struct.pack_into("<I", buf, pos, old)


def test_mutant_generator_by_hand() -> None:
    data = bytes(4) + b"\x01\0\0\0"
    # word 0 is 0 (four values change it), word 1 is 1 (0, 0x7FFFFFFF, 0xFFFFFFFF and 8 change it)
    got = [(pos, value) for pos, value, _ in mutants(data)]
    assert got == [(0, 1), (0, 0x7FFFFFFF), (0, 0xFFFFFFFF), (0, 8), (4, 0), (4, 0x7FFFFFFF), (4, 0xFFFFFFFF), (4, 8)]
    assert next(mutants(data))[2] == b"\x01\0\0\0\x01\0\0\0"


@pytest.mark.parametrize("path", FILES or [None], ids=[p.name for p in FILES] or ["no-corpus"])
def test_accepted_mutants_rebuild_byte_for_byte(path: Path | None) -> None:
    if path is None:
        pytest.skip("corpus nx/ not found (set SHADERKIT_CORPUS)")
    data = path.read_bytes()
    spec = detect(data)
    if spec is None or spec.name not in ("bnsh", "nvn"):
        pytest.skip(f"{path.name} is not BNSH or NVN")
    parse = Bnsh.from_bytes if spec.name == "bnsh" else NvnProgramFile.from_bytes
    accepted = 0
    differing: list[tuple[int, int]] = []
    for pos, value, mutant in mutants(data):
        try:
            model = parse(mutant)
        except ShaderFormatError:
            continue
        accepted += 1
        if model.to_bytes() != mutant:
            differing.append((pos, value))
    assert accepted > 0
    assert differing == [], f"{len(differing)} of {accepted} accepted mutants differ, first {differing[:5]}"

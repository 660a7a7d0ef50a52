"""Cemu's base hash of each pixel shader in ``shaderkit info`` (GSH, SHARCFB, Wii U BFSHA).

Oracle: a reference written here from Cemu's LatteShader.cpp (``_calcShaderHashGeneric`` over the
program's little-endian words, ``LatteShader_UpdatePSInputs`` key), fed with register words and
program bytes read from the raw files by hand (GFD block walk; pixel register block: word 2
SPI_PS_IN_CONTROL_0, words 5..36 SPI_PS_INPUT_CNTL).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from conftest import corpus_params, corpus_root
from shaderkit.cli import main

M64 = (1 << 64) - 1


def reference_hash(program: bytes, control0: int, cntls: list[int]) -> str:
    h1 = h2 = 0
    for (word,) in struct.iter_unpack("<I", program):
        h1 = (h1 + word) & M64
        h2 ^= word
        h1 = ((h1 << 3) | (h1 >> 61)) & M64
        h2 = ((h2 >> 7) | (h2 << 57)) & M64
    key = 0
    position, position_addr = control0 >> 8 & 1, control0 >> 10 & 0x1F
    param_gen, param_gen_addr = control0 >> 15 & 0xF, control0 >> 19 & 0x7F
    if position:
        key += position_addr + 1
    if param_gen:
        key += ((param_gen >> 7) | (param_gen << 57)) & M64
        key += ((param_gen_addr >> 3) | (param_gen_addr << 61)) & M64
        key &= M64
    for f in range(min(control0 & 0x3F, 32)):
        key = (key + cntls[f]) & M64
        key = ((key << 7) | (key >> 57)) & M64
        if position and f == position_addr:
            key = (key + 0x33) & M64
    return f"{(h1 + h2 + key) & M64:016x}"


def info_json(capsys: pytest.CaptureFixture[str], path: str) -> dict:
    main(["info", "--json", path])
    return json.loads(capsys.readouterr().out)


def gfd_blocks(data: bytes) -> list[tuple[int, bytes]]:
    out, pos = [], 0x20
    while pos + 0x20 <= len(data):
        btype, size = struct.unpack_from(">II", data, pos + 0x10)
        out.append((btype, data[pos + 0x20 : pos + 0x20 + size]))
        pos += 0x20 + size
    return out


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_0*.gsh") + corpus_params("wiiu", "librw_default_*.gsh"))
def test_gsh_pixel_shaders_carry_cemu_hash(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    blocks = gfd_blocks(path.read_bytes())
    headers = [payload for btype, payload in blocks if btype == 6]
    programs = [payload for btype, payload in blocks if btype == 7]
    words = [struct.unpack_from(">37I", h) for h in headers]
    expected = [reference_hash(p, w[2], list(w[5:37])) for p, w in zip(programs, words)]
    shaders = info_json(capsys, str(path))["shaders"]
    assert [s["cemu_base_hash"] for s in shaders if s["stage"] == "pixel"] == expected
    assert all("cemu_base_hash" not in s for s in shaders if s["stage"] != "pixel")


def test_bfsha_pixel_shaders_carry_cemu_hash(capsys: pytest.CaptureFixture[str]) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha

    path = root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha"
    data = path.read_bytes()
    archive = WiiUBfsha.from_bytes(data)
    summary = info_json(capsys, str(path))["shaders"]
    assert len(summary) == 25
    pixel = [(s, row) for s, row in zip(archive.shaders, summary) if s.stage == "pixel"]
    assert len(pixel) == sum(1 for row in summary if "cemu_base_hash" in row) > 0
    for shader, row in pixel:
        w = struct.unpack_from(">37I", data, shader.offset)  # the struct's register words, from the file
        code = data[shader.code_offset : shader.code_offset + row["program_size"]]
        assert row["cemu_base_hash"] == reference_hash(code, w[2], list(w[5:37]))
    assert summary[0]["programs"] == "turbo_uber/0, turbo_uber/4"


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharcfb"))
def test_sharcfb_pixel_binary_carries_cemu_hash(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    data = path.read_bytes()
    # binary 1 (pixel) struct at 0x42A0 (little-endian file), its program at 0x4B00, 0x2B0 bytes (by hand)
    w = struct.unpack_from("<37I", data, 0x42A0)
    expected = reference_hash(data[0x4B00 : 0x4B00 + 0x2B0], w[2], list(w[5:37]))
    binaries = info_json(capsys, str(path))["binaries"]
    assert [b.get("cemu_base_hash") for b in binaries] == [None, expected]

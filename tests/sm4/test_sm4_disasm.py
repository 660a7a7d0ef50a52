"""dxbc disasm: effect (FX10) and library framing on real files, and bad effect payloads."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.disasm import _Effect


def _fx10_payloads() -> list[bytes]:
    out = []
    for path in corpus_files("dxbc", "*_FX.dxbc"):
        data = path.read_bytes()
        count = struct.unpack_from("<I", data, 28)[0]
        for offset in struct.unpack_from(f"<{count}I", data, 32):
            if data[offset : offset + 4] == b"FX10":
                size = struct.unpack_from("<I", data, offset + 4)[0]
                out.append(data[offset + 8 : offset + 8 + size])
    return sorted(out, key=len)


FX10 = _fx10_payloads()


def test_effect_header_lines() -> None:
    if not FX10:
        pytest.skip("corpus effects not found")
    lines = _Effect(FX10[0], 0).lines()
    assert lines[:2] == ["//", "// FX Version: fx_4_0"]


def test_truncated_effects_raise_format_errors() -> None:
    if not FX10:
        pytest.skip("corpus effects not found")
    data = FX10[0]
    for n in range(0, len(data), max(1, len(data) // 400)):
        with pytest.raises(ShaderFormatError):
            _Effect(data[:n], 0).lines()


def test_effect_tags() -> None:
    with pytest.raises(ShaderFormatError):
        _Effect(bytes(76), 0)
    with pytest.raises(ShaderFormatError):  # fx_5_0: a 76-byte payload is shorter than SBinaryHeader5
        _Effect(struct.pack("<I", 0xFEFF2001) + bytes(72), 0)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_corrupted_effects(data: st.DataObject) -> None:
    if not FX10:
        pytest.skip("corpus effects not found")
    blob = bytearray(data.draw(st.sampled_from(FX10)))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(4, len(blob) - 4)) & ~3
        value = data.draw(st.sampled_from([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, len(blob)]))
        struct.pack_into("<I", blob, pos, value)
    try:
        _Effect(bytes(blob), 0).lines()
    except ShaderFormatError:
        pass


def _spdb_payload() -> bytes | None:
    for path in corpus_files("dxbc", "*DebugTest.dxbc"):
        data = path.read_bytes()
        count = struct.unpack_from("<I", data, 28)[0]
        for offset in struct.unpack_from(f"<{count}I", data, 32):
            if data[offset : offset + 4] == b"SPDB":
                size = struct.unpack_from("<I", data, offset + 4)[0]
                return data[offset + 8 : offset + 8 + size]
    return None


SPDB = _spdb_payload()


def test_debug_info_lines_and_variables() -> None:
    if SPDB is None:
        pytest.skip("corpus DebugTest not found")
    from shaderkit.formats.dxbc.disasm import read_debug_info

    info = read_debug_info(SPDB)
    # values read off fxc's listing of the same file
    assert info.lines[0x64][0] == 21 and info.lines[0x64][1].endswith("DebugTest.hlsl")
    assert [info.lines[o][0] for o in (0x84, 0xA4, 0xC0, 0xEC)] == [22, 23, 19, 24]
    assert info.notes_after(0x64, 0x84) == ["r0.x <- fLighting"]
    assert info.notes_after(0xC0, 0xEC)[0] == "r1.x <- vDiffuse.x"
    assert ("v1.y", "Input.vTexcoord.y") in info.initial


def test_truncated_and_corrupted_debug_info() -> None:
    if SPDB is None:
        pytest.skip("corpus DebugTest not found")
    from shaderkit.formats.dxbc.disasm import read_debug_info

    for n in range(0, len(SPDB), 97):
        try:
            read_debug_info(SPDB[:n])
        except ShaderFormatError:
            pass
    blob = bytearray(SPDB)
    for pos in range(32, len(blob) - 4, 61):
        saved = bytes(blob[pos : pos + 4])
        struct.pack_into("<I", blob, pos, 0xFFFFFFFF if pos % 2 else 0x7FFF)
        try:
            read_debug_info(bytes(blob))
        except ShaderFormatError:
            pass
        blob[pos : pos + 4] = saved

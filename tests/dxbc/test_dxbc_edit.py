"""Editing real containers: the writer recomputes offsets, sizes, chunk index, total size, checksum."""

from __future__ import annotations

import copy
import struct
from pathlib import Path

import pytest

from shaderkit.formats.dxbc.checksum import dxbc_checksum
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.rdef import ConstantBuffer, ShaderType, ShaderTypeMember, ShaderVariable
from shaderkit.formats.dxbc.shader import ShaderProgram
from shaderkit.formats.dxbc.signature import Signature, SignatureElement

GS = "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc"
VS51 = "dxbc/dxdecompiler__Internal_BasicHLSL_VS_5_1.dxbc"
DEBUG = "dxbc/slimshader__Tests_FxDis_test_PS.dxbc"


def _index(data: bytes) -> list[tuple[str, int, int]]:
    """(fourcc, offset, size) read straight from the header."""
    count = struct.unpack_from("<I", data, 28)[0]
    rows = []
    for off in struct.unpack_from(f"<{count}I", data, 32):
        cc, size = struct.unpack_from("<4sI", data, off)
        rows.append((cc.decode(), off, size))
    return rows


def _check_layout(data: bytes) -> None:
    """Header fields agree with the bytes: total size, contiguous 4-aligned chunks, checksum."""
    assert struct.unpack_from("<I", data, 24)[0] == len(data)
    pos = 32 + 4 * struct.unpack_from("<I", data, 28)[0]
    for _, off, size in _index(data):
        assert off == pos + (-pos % 4)
        pos = off + 8 + size
    assert pos == len(data)
    assert data[4:20] == dxbc_checksum(data)


def test_rename_semantic(corpus: Path) -> None:
    data = (corpus / GS).read_bytes()
    model = DxbcContainer.from_bytes(data)
    out_sig = model.output_signature
    assert out_sig is not None
    out_sig.elements[1].semantic_name = "A_MUCH_LONGER_SEMANTIC_NAME"
    edited = model.to_bytes()
    _check_layout(edited)
    # the resized name goes after the payload (4-aligned); everything else stays where it lay
    name = b"A_MUCH_LONGER_SEMANTIC_NAME\0"
    assert len(edited) == len(data) + len(name)
    old_osgn = next(data[off + 8 : off + 8 + size] for cc, off, size in _index(data) if cc == "OSGN")
    new_osgn = next(edited[off + 8 : off + 8 + size] for cc, off, size in _index(edited) if cc == "OSGN")
    name_field = 8 + 24  # element 1's name offset word
    assert new_osgn == (old_osgn[:name_field] + struct.pack("<I", len(old_osgn))
                        + old_osgn[name_field + 4 :] + name)
    again = DxbcContainer.from_bytes(edited)
    assert again.output_signature == out_sig
    assert again.checksum_state() == "match"
    # untouched chunks keep their bytes
    old = {cc: data[off + 8 : off + 8 + size] for cc, off, size in _index(data)}
    new = {cc: edited[off + 8 : off + 8 + size] for cc, off, size in _index(edited)}
    assert {k for k in old if old[k] != new[k]} == {"OSGN"}


def test_add_cbuffer_variable(corpus: Path) -> None:
    data = (corpus / VS51).read_bytes()
    model = DxbcContainer.from_bytes(data)
    rdef = model.rdef
    assert rdef is not None
    cb = rdef.constant_buffer("cbPerObject")
    assert cb is not None
    float4 = ShaderType(1, 3, 1, 4, name="float4")
    cb.variables.append(ShaderVariable("g_vExtra", float4, start_offset=cb.size, size=16, flags=0))
    light = ShaderType(5, 0, 1, 8, members=[ShaderTypeMember("color", float4, 0),
                                            ShaderTypeMember("dir", float4, 16)], name="Light")
    cb.variables.append(ShaderVariable("g_light", light, start_offset=cb.size + 16, size=32,
                                       default_value=bytes(range(32))))
    cb.size += 48
    rdef.constant_buffers.append(ConstantBuffer("cbNew", [ShaderVariable("g_x", float4, 0, 16)], 16))
    edited = model.to_bytes()
    _check_layout(edited)
    again = DxbcContainer.from_bytes(edited)
    assert again.rdef == rdef
    names = [v.name for v in again.rdef.constant_buffer("cbPerObject").variables]  # type: ignore[union-attr]
    assert names[-2:] == ["g_vExtra", "g_light"]
    got = again.rdef.constant_buffer("cbPerObject").variables[-1]  # type: ignore[union-attr]
    assert got.default_value == bytes(range(32))
    assert [m.name for m in got.type.members] == ["color", "dir"]
    # the RDEF chunk grew; later chunks moved but are intact
    assert again.shader is not None and model.shader is not None
    assert again.shader.tokens == model.shader.tokens


def test_drop_chunk(corpus: Path) -> None:
    data = (corpus / GS).read_bytes()
    model = DxbcContainer.from_bytes(data)
    assert model.remove_chunk("RDEF") == 1
    edited = model.to_bytes()
    _check_layout(edited)
    assert [cc for cc, _, _ in _index(edited)] == ["ISGN", "OSGN", "SHDR", "STAT"]
    old = {cc: data[off : off + 8 + size] for cc, off, size in _index(data)}
    for cc, off, size in _index(edited):
        assert edited[off : off + 8 + size] == old[cc]
    assert len(edited) == len(data) - (8 + 68) - 4


def test_new_container_from_scratch() -> None:
    sig = Signature("ISGN", [SignatureElement("POSITION", 0, 0, 3, 0, 0xF, 0xF)])
    program = ShaderProgram("SHDR")
    program.tokens[0] = 0x00010040  # vs_4_0
    model = DxbcContainer([sig, program])
    data = model.to_bytes()
    _check_layout(data)
    again = DxbcContainer.from_bytes(data)
    assert again.shader_model == "vs_4_0"
    assert again.input_signature == sig
    # the hand-computed ISGN payload: count 1, offset 8, element, "POSITION\0" + 3 pad bytes
    payload = data[_index(data)[0][1] + 8 :][: 8 + 24 + 12]
    assert payload == (struct.pack("<2I", 1, 8) + struct.pack("<5I2BH", 32, 0, 0, 3, 0, 15, 15, 0)
                       + b"POSITION\0\xab\xab\xab")


def test_debug_layer_checksum_kept_until_edit(corpus: Path) -> None:
    data = (corpus / DEBUG).read_bytes()
    model = DxbcContainer.from_bytes(data)
    assert model.to_bytes() == data and model.checksum_state() == "mismatch"
    edited = copy.deepcopy(model)
    assert edited.output_signature is not None
    edited.output_signature.elements[0].semantic_name = "SV_Target"  # case change only
    out = edited.to_bytes()
    assert out[4:20] == dxbc_checksum(out)
    assert edited.checksum_state() == "match"


@pytest.mark.parametrize("fourcc", ["STAT", "SHDR"])
def test_summary_keys(corpus: Path, fourcc: str) -> None:
    model = DxbcContainer.from_bytes((corpus / GS).read_bytes())
    summary = model.summary()
    for key in ("format", "shader_model", "shader_type", "size", "checksum", "chunks",
                "input_signature", "output_signature", "constant_buffers", "resource_bindings", "statistics"):
        assert key in summary
    assert any(row["fourcc"] == fourcc for row in summary["chunks"])
    assert set(summary["input_signature"][0]) == {
        "semantic_name", "semantic_index", "mask", "register", "system_value", "component_type",
        "used_mask", "stream", "min_precision"}


def test_dxil_style_container_round_trips() -> None:
    """SM6 containers: unknown chunks (DXIL, PSV0, HASH) and a non-SM4/5 STAT stay raw."""
    from shaderkit.formats.dxbc.raw import RawChunk
    from shaderkit.formats.dxbc.sfi0 import FeatureInfo

    sig = Signature("ISG1", [SignatureElement("TEXCOORD", 0, 0, 3, 0, 3, 3, min_precision=1)])
    model = DxbcContainer([
        FeatureInfo(0x10), sig, Signature("OSG1", []), RawChunk("PSV0", bytes(range(52))),
        RawChunk("STAT", b"DXIL" + bytes(21)), RawChunk("DXIL", b"\x60\x00\x01\x00" * 5),
        RawChunk("HASH", bytes(20)),
    ])
    data = model.to_bytes()
    _check_layout(data)
    again = DxbcContainer.from_bytes(data)
    assert again.to_bytes() == data
    assert [c.fourcc for c in again.chunks] == ["SFI0", "ISG1", "OSG1", "PSV0", "STAT", "DXIL", "HASH"]
    assert isinstance(again.chunks[4], RawChunk) and again.statistics is None
    assert again.input_signature == sig
    assert again.summary()["input_signature"][0]["min_precision"] == "float16"


def test_summaries_are_json(corpus: Path) -> None:
    import json

    for path in sorted((corpus / "dxbc").glob("*.dxbc")):
        summary = DxbcContainer.from_bytes(path.read_bytes()).summary()
        text = json.dumps(summary)
        assert json.loads(text)["chunks"][0]["offset"] == struct.unpack_from("<I", path.read_bytes(), 32)[0]


def test_unknown_odd_chunk_is_kept(corpus: Path) -> None:
    from shaderkit.formats.dxbc.raw import RawChunk

    data = (corpus / GS).read_bytes()
    model = DxbcContainer.from_bytes(data)
    model.chunks.insert(2, RawChunk("ZZZ9", b"\x01\x02\x03"))  # odd size, not at the end
    edited = model.to_bytes()
    _check_layout(edited)
    again = DxbcContainer.from_bytes(edited)
    assert again.chunks[2] == RawChunk("ZZZ9", b"\x01\x02\x03")
    assert again.to_bytes() == edited
    assert again.remove_chunk("ZZZ9") == 1
    again.fix_checksum()
    assert again.to_bytes()[20:] == data[20:]  # same layout as the original again

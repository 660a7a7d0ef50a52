"""The file's own layout: raw spans for sub-structures nobody models, kept and shown in ``info --json``.

Every synthetic file here is built by hand (struct.pack), not by the writer under test.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from dxbc_build import container

from shaderkit.cli import cli
from shaderkit.formats.dxbc.container import DxbcContainer

UNKNOWN = b"\x11\x22\x33\x44\x55\x66\x77\x88"


def isgn_with_unknown_block() -> bytes:
    """ISGN: header, one element, 8 unknown bytes, then the name (offset 40)."""
    element = struct.pack("<5I2BH", 40, 0, 0, 3, 0, 0xF, 0xF, 0)
    return struct.pack("<2I", 1, 8) + element + UNKNOWN + b"POSITION\0\xab\xab\xab"


def rdef_with_unknown_block() -> bytes:
    """SM4 RDEF: one binding, 8 unknown bytes between the binding table and its name."""
    name_off = 28 + 32 + 8
    binding = struct.pack("<8I", name_off, 2, 5, 4, 0xFFFFFFFF, 0, 1, 0xC)
    creator_off = name_off + 8
    header = struct.pack("<7I", 0, 0, 1, 28, 0xFFFF0400, 0x100, creator_off)
    return header + binding + UNKNOWN + b"tex0\0\xab\xab\xab" + b"me\0\xab"


def rts0_with_unknown_block() -> bytes:
    """RTS0 1.0: one root-constants parameter whose payload follows 8 unknown bytes."""
    params_off, payload = 24, 24 + 12 + 8
    return (struct.pack("<6I", 1, 1, params_off, 0, payload + 12, 0) + struct.pack("<3I", 1, 0, payload)
            + UNKNOWN + struct.pack("<3I", 0, 0, 4))


def info_json(tmp_path: Path, data: bytes) -> dict[str, Any]:
    path = tmp_path / "f.dxbc"
    path.write_bytes(data)
    result = CliRunner().invoke(cli, ["info", "--json", str(path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def chunk_row(summary: dict[str, Any], item: str) -> dict[str, Any]:
    return next(row for row in summary["layout"] if row["item"] == item)


@pytest.mark.parametrize(("fourcc", "payload", "unknown_at"), [
    (b"ISGN", isgn_with_unknown_block(), 32),
    (b"RDEF", rdef_with_unknown_block(), 60),
    (b"RTS0", rts0_with_unknown_block(), 36),
])  # fmt: skip
def test_unknown_block_inside_a_chunk_is_a_raw_span(tmp_path: Path, fourcc: bytes, payload: bytes,
                                                    unknown_at: int) -> None:
    data = container((fourcc, payload))
    model = DxbcContainer.from_bytes(data)
    assert model.to_bytes() == data
    summary = info_json(tmp_path, data)
    name = f"chunk.{fourcc.decode()}.0"
    payload = chunk_row(summary, name)["offset"] + 8  # after the chunk's fourcc and size
    assert {"item": f"{name}/raw", "offset": payload + unknown_at, "size": len(UNKNOWN)} in summary["layout"]


def test_gap_between_chunks_and_tail_are_raw_spans(tmp_path: Path) -> None:
    data = container((b"ZZZ1", b"abc"), (b"ZZZ2", b"\x01\x02\x03\x04"), gap=UNKNOWN, tail=b"\xfe" * 6)
    assert DxbcContainer.from_bytes(data).to_bytes() == data
    spans = info_json(tmp_path, data)["layout"]
    raw = [(row["offset"], row["size"]) for row in spans if row["item"] == "raw"]
    # the gap after the 40-byte header + index; 1 byte of alignment after "abc"; the tail
    assert raw == [(40, 8), (59, 1), (72, 6)]
    assert [row["offset"] for row in info_json(tmp_path, data)["chunks"]] == [48, 60]


def test_rts0_1_2_static_sampler_flags() -> None:
    """Root signature 1.2 (version 3): static samplers carry a 14th word, the sampler flags."""
    sampler = struct.pack("<4IfIIIffIIII", 21, 3, 3, 3, 0.0, 16, 4, 2, 0.0, 1000.0, 0, 0, 5, 2)
    payload = struct.pack("<6I", 3, 0, 24, 1, 24, 0x40) + sampler
    data = container((b"RTS0", payload))
    model = DxbcContainer.from_bytes(data)
    rs = model.root_signature
    assert rs is not None and rs.version == 3
    assert rs.static_samplers[0].flags == 2 and rs.static_samplers[0].shader_visibility == 5
    assert model.to_bytes() == data
    summary = model.summary()["root_signature"]
    assert summary["version"] == "1.2"
    assert summary["static_sampler_flags"] == [["non_normalized_coordinates"]]


def test_static_sampler_signalling_nan_keeps_its_bits() -> None:
    """A signalling NaN (quiet bit 22 clear) in a float field comes back as stored: through a
    Python float its quiet bit would be set (0x7FB1FFFF -> 0x7FF1FFFF; fuzzing found this)."""
    words = (21, 3, 3, 3, 0x80000000, 16, 4, 2, 0xFF800001, 0x7FB1FFFF, 0, 0, 5)
    payload = struct.pack("<6I", 2, 0, 24, 1, 24, 0) + struct.pack("<13I", *words)
    data = container((b"RTS0", payload))
    model = DxbcContainer.from_bytes(data)
    rs = model.root_signature
    assert rs is not None
    sampler = rs.static_samplers[0]
    assert math.isnan(sampler.max_lod) and math.isnan(sampler.min_lod)
    assert sampler.mip_lod_bias == 0.0 and math.copysign(1.0, sampler.mip_lod_bias) == -1.0
    assert model.to_bytes() == data
    sampler.max_lod = 1.0  # a new value is written as given
    out = DxbcContainer.from_bytes(model.to_bytes()).to_bytes()
    assert struct.unpack_from("<I", out, len(out) - 4 * 4)[0] == 0x3F800000
    assert struct.unpack_from("<I", out, len(out) - 5 * 4)[0] == 0xFF800001


def test_unknown_root_signature_version_stays_raw() -> None:
    payload = struct.pack("<6I", 9, 0, 24, 0, 24, 0)
    data = container((b"RTS0", payload))
    model = DxbcContainer.from_bytes(data)
    assert model.root_signature is None and model.to_bytes() == data


def test_shared_default_value_is_written_once() -> None:
    """Two variables pointing at one default-value blob (as fxc 9.29/9.30 sometimes writes)."""
    var_table = 28 + 24
    default = var_table + 2 * 24
    type_off = default + 16
    names = type_off + 16
    var = [struct.pack("<6I", names + 8 * i, 16 * i, 16, 2, type_off, default) for i in range(2)]
    cbuffer = struct.pack("<6I", names + 16, 2, var_table, 32, 0, 0)
    type_rec = struct.pack("<6HI", 1, 3, 1, 4, 0, 0, 0)
    strings = b"va\0\xab\xab\xab\xab\xab" + b"vb\0\xab\xab\xab\xab\xab" + b"cb\0\xab"
    creator = names + len(strings)
    header = struct.pack("<7I", 1, 28, 0, 0, 0xFFFE0400, 0x100, creator)
    payload = header + cbuffer + b"".join(var) + bytes(range(16)) + type_rec + strings + b"me\0\xab"
    data = container((b"RDEF", payload))
    model = DxbcContainer.from_bytes(data)
    assert model.to_bytes() == data
    rdef = model.rdef
    assert rdef is not None
    variables = rdef.constant_buffers[0].variables
    assert variables[0].default_value == variables[1].default_value == bytes(range(16))
    # an edit of one copy splits the blob; the other variable keeps the stored one
    variables[1].default_value = bytes(16)
    again = DxbcContainer.from_bytes(model.to_bytes()).rdef
    assert again is not None
    assert [v.default_value for v in again.constant_buffers[0].variables] == [bytes(range(16)), bytes(16)]


def test_equal_models_write_equal_bytes() -> None:
    """Type sharing is not keyed on object identity: one shared type object or two equal ones."""
    from shaderkit.formats.dxbc.rdef import ConstantBuffer, ResourceDefinition, ShaderType, ShaderVariable

    def rdef(shared: bool) -> bytes:
        first = ShaderType(1, 3, 1, 4)
        second = first if shared else ShaderType(1, 3, 1, 4)
        cb = ConstantBuffer("cb", [ShaderVariable("a", first, 0, 16), ShaderVariable("b", second, 16, 16)], 32)
        return ResourceDefinition([cb], creator="me").build()

    assert rdef(True) == rdef(False)


def test_rebuild_refuses_to_write_a_different_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = container((b"ISGN", isgn_with_unknown_block()))
    src, out = tmp_path / "in.dxbc", tmp_path / "out.dxbc"
    src.write_bytes(data)
    result = CliRunner().invoke(cli, ["rebuild", str(src), "-o", str(out)])
    assert result.exit_code == 0 and out.read_bytes() == data
    out.unlink()
    monkeypatch.setattr(DxbcContainer, "to_bytes", lambda self: data + b"\0\0\0\0")
    result = CliRunner().invoke(cli, ["rebuild", str(src), "-o", str(out)])
    assert result.exit_code == 1
    assert "does not rebuild its input" in result.output
    assert not out.exists()


def test_library_header_is_typed(corpus: Path) -> None:
    from shaderkit.formats.dxbc.libh import LibraryHeader

    data = (corpus / "dxbc" / "dxdecompiler__Internal_Misc_LibraryTest2_4_0.dxbc").read_bytes()
    model = DxbcContainer.from_bytes(data)
    libh = model.library_header
    assert libh is not None
    # the names as the corpus listing prints them (".fxc.asm": "// Library:  flags 0, 6 functions")
    assert [f.name for f in libh.functions] == ["VertexFunction", "ColorFunction", "AddLighting", "AddDepthFog",
                                               "AddGrayscale", "Float3ToFloat4SetW1"]
    assert libh.creator == "Microsoft (R) HLSL Shader Compiler 10.1" and libh.flags == 0
    assert model.to_bytes() == data
    stored = next(data[off + 8 : off + 8 + size] for off, size in
                  ((o, struct.unpack_from("<I", data, o + 4)[0])
                   for o in struct.unpack_from(f"<{struct.unpack_from('<I', data, 28)[0]}I", data, 32))
                  if data[off : off + 4] == b"LIBH")
    # fxc's layout for a header built from scratch is the stored payload
    assert LibraryHeader(libh.functions, libh.creator, libh.flags, libh.version).build() == stored
    libh.functions[0].name = "VertexMain"
    again = DxbcContainer.from_bytes(model.to_bytes()).library_header
    assert again is not None and again.functions[0].name == "VertexMain"


def test_fx_5_0_effect_is_a_typed_chunk() -> None:
    """fx_5_0 (SBinaryHeader5: 24 words): counts typed, the embedded shader parsed, bytes kept."""
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.fx10 import Effect

    shader = container((b"ZZZZ", b"\x01\x02\x03\x04"))
    unstructured = b"tech\0p0\0\0" + struct.pack("<I", len(shader)) + shader + b"\xcc\xcc\xcc"
    structured = struct.pack("<4I", 0, 1, 2, 3) + b"\x77"  # records kept as bytes (odd size)
    counts = [0, 1, 0, 0, 0, 0, 1, len(unstructured), 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 2, 3, 4]
    payload = struct.pack("<24I", 0xFEFF2001, *counts) + unstructured + structured
    data = container((b"FX10", payload))
    model = DxbcContainer.from_bytes(data)
    effect = model.effect
    assert isinstance(effect, Effect)
    assert effect.header.version == "fx_5_0"
    assert (effect.header.groups, effect.header.interface_variables, effect.header.class_instance_elements) == (1, 2, 4)
    assert [s.offset for s in effect.shaders] == [9]
    assert effect.shaders[0].container.to_bytes() == shader
    assert model.to_bytes() == data
    assert model.summary()["effect"]["counts"]["class_instance_elements"] == 4
    with pytest.raises(ShaderFormatError):  # its records are junk: the listing has nothing typed to print
        model.disassemble()


def test_parsed_rdef_does_not_depend_on_type_object_identity(corpus: Path) -> None:
    """Every variable given its own deep copy of its type: the same bytes (sharing is recorded)."""
    import copy

    for name in ("dxdecompiler__Internal_BasicHLSL_VS_5_1.dxbc", "dxdecompiler__HlslCrossCompiler_ps5_interfaces.dxbc"):
        data = (corpus / "dxbc" / name).read_bytes()
        model = DxbcContainer.from_bytes(data)
        assert model.rdef is not None
        for cb in model.rdef.constant_buffers:
            for v in cb.variables:
                v.type = copy.deepcopy(v.type)
        assert model.to_bytes() == data


def _rdef_sm5_shared_type() -> bytes:
    """SM5 RDEF (RD11): one cbuffer "cb" (name at 84) with two float4 variables (table at 88) sharing
    one type record at 168, names "va" 204, "vb" 207, "float4" 210, 0xAB, creator at 218; offsets
    worked out by hand."""
    header = struct.pack("<7I", 1, 60, 0, 60, 0xFFFE0500, 0x100, 218)
    rd11 = struct.pack("<8I", 0x31314452, 60, 24, 32, 40, 36, 12, 0)
    cbuffer = struct.pack("<6I", 84, 2, 88, 32, 0, 0)
    variables = (struct.pack("<10I", 204, 0, 16, 2, 168, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0)
                 + struct.pack("<10I", 207, 16, 16, 2, 168, 0, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0))
    type_record = struct.pack("<6H6I", 1, 3, 1, 4, 0, 0, 0, 0, 0, 0, 0, 210)
    return header + rd11 + cbuffer + b"cb\0\xab" + variables + type_record + b"va\0vb\0float4\0\xab" + b"me\0\xab"


@pytest.mark.parametrize(("fourcc", "payload"), [
    (b"ISGN", isgn_with_unknown_block()),
    (b"RDEF", rdef_with_unknown_block()),
    (b"RDEF", _rdef_sm5_shared_type()),
    (b"RTS0", rts0_with_unknown_block()),
])
def test_parsed_layout_is_recorded_on_first_use_as_an_eager_parse_records_it(fourcc: bytes, payload: bytes) -> None:
    """Signature, RDEF and RTS0 chunks record their layout when it is first used: the recorded layout
    is the one the parse records when asked to record at once (same items, sharing and raw spans)."""
    from shaderkit.formats.dxbc.rdef import ResourceDefinition
    from shaderkit.formats.dxbc.rts0 import RootSignature
    from shaderkit.formats.dxbc.signature import Signature
    from shaderkit.io.layout import Layout
    from shaderkit.io.reader import Reader

    data = container((fourcc, payload))
    model = DxbcContainer.from_bytes(data)
    chunk = model.chunks[0]
    assert type(chunk.layout) is not Layout  # not recorded by the parse
    assert model.to_bytes() == data  # (these are not fxc's layout: placed through the recorded layout)
    start = data.index(fourcc) + 8
    eager = Layout(size=len(payload))
    reader = Reader(data, start, end=start + len(payload))
    if fourcc == b"ISGN":
        Signature._read(reader, "ISGN", eager)
    elif fourcc == b"RTS0":
        RootSignature._read(reader, eager)
    else:
        ResourceDefinition._read(reader, eager)
    assert chunk.layout == eager
    assert type(chunk.layout) is Layout
    if fourcc == b"RDEF" and len(payload) > 100:  # the two variables' type: one record, at 168
        assert chunk.layout.items[("type", 168)].data == payload[168:204]
        first, second = chunk.constant_buffers[0].variables
        assert first.type is second.type


def test_edited_signature_is_placed_through_its_recorded_layout() -> None:
    """An edit that keeps the name's size puts the table back and the new name where the old lay."""
    payload = isgn_with_unknown_block()
    data = container((b"ISGN", payload))
    model = DxbcContainer.from_bytes(data)
    model.chunks[0].elements[0].semantic_name = "TEXCOORD"
    out = model.to_bytes()
    start = out.index(b"ISGN") + 8
    assert out[start + 32 : start + 40] == UNKNOWN  # the unknown block kept where it lay
    assert out[start + 40 : start + 49] == b"TEXCOORD\0"


def test_fxc_layout_signature_never_records_its_layout() -> None:
    """ISGN in fxc's layout (header, one element, "POSITION" at 32, 0xAB padding to 44): the rebuild
    and the checksum check need no layout, so none is recorded."""
    from shaderkit.io.layout import Layout

    element = struct.pack("<5I2BH", 32, 0, 0, 3, 0, 0xF, 0xF, 0)
    payload = struct.pack("<2I", 1, 8) + element + b"POSITION\0\xab\xab\xab"
    data = container((b"ISGN", payload))
    model = DxbcContainer.from_bytes(data)
    assert model.to_bytes() == data and model.problems() == []
    assert type(model.chunks[0].layout) is not Layout
    assert model.chunks[0].layout.items[("name", 0)].offset == 32  # recorded when asked for


def test_an_edit_the_fresh_ifce_layout_cannot_tell_is_still_written() -> None:
    """A slot whose table ids were read into the bytes after it (count 2, one id written): the fxc
    layout built from the edited model (count from the type ids) equals the stored bytes, so a
    rebuild that trusted it would drop the edit; IFCE is placed item by item."""
    from shaderkit.formats.dxbc.ifce import ClassInstance, Interfaces, InterfaceSlot

    stored = Interfaces([], [ClassInstance("AAA")], [InterfaceSlot(1, [5, 6], [7])], 1, (0, 0)).build_fresh()
    data = container((b"IFCE", stored))
    model = DxbcContainer.from_bytes(data)
    chunk = model.chunks[0]
    assert isinstance(chunk, Interfaces) and len(chunk.slots[0].table_ids) == 2  # the second read past the list
    chunk.slots[0].table_ids = [7]
    assert model.to_bytes() != data  # (the placed writer writes the one id where the list lay)

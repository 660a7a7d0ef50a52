"""The unstructured block of FX10 effects typed (Effects11 ``EffectBinaryFormat.h``): strings, type
descriptions, default values and assignment payloads, each typed by what points at it, written back
where it lay; bytes no record points at stay raw spans.

Expected values are worked out by hand from the header's structures (``SBinaryType``,
``SBinaryNumericType`` bits, ``SBinaryAssignment`` payloads) or are the corpus files' own bytes and
fxc's listings of them.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from dxbc_build import Blob, assert_word_mutants_rebuild, container

from conftest import corpus_files, run_cli
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10 import Effect
from shaderkit.formats.dxbc.fx10_block import (
    ASSIGN_CONST_INDEX,
    ASSIGN_CONSTANT,
    ASSIGN_EXPRESSION_INDEX,
    ASSIGN_INLINE_SHADER,
    ASSIGN_VARIABLE_INDEX,
    VAR_INTERFACE,
    VAR_NUMERIC,
    VAR_STRUCT,
)

#: SBinaryNumericType of float4: vector (2) | float (1) << 3 | 1 row << 8 | 4 columns << 11
FLOAT4_BITS = 2 | 1 << 3 | 1 << 8 | 4 << 11
#: float3 (1 row, 3 columns): 0x190A
FLOAT3_BITS = 2 | 1 << 3 | 1 << 8 | 3 << 11


def _effects() -> list[Path]:
    files = corpus_files("dxbc", "*_FX.dxbc")
    if not files:
        pytest.skip("corpus effects not found")
    return files


def _multimon() -> Path:
    """The MultiMon10 sample effect (its fxc listing lies beside it)."""
    path = next((p for p in _effects() if "MultiMon10" in p.name), None)
    if path is None:
        pytest.skip("MultiMon10 effect not found")
    return path


def _model(path: Path) -> tuple[DxbcContainer, Effect, bytes]:
    data = path.read_bytes()
    model = DxbcContainer.from_bytes(data)
    assert isinstance(model.effect, Effect)
    return model, model.effect, data


def test_corpus_blocks_are_typed_and_rebuild() -> None:
    for path in _effects():
        model, effect, data = _model(path)
        block = effect.block
        assert block is not None, path.name
        assert block.build() == effect.unstructured and model.to_bytes() == data, path.name
        # every byte no record points at is kept raw; in fxc output that is only zero filler
        raw = [s for s in block.layout.raw]
        assert all(set(s.data) <= {0} for s in raw), path.name
        assert sum(len(s.data) for s in raw) < 8, path.name


def test_multimon_types_and_defaults_by_hand() -> None:
    path = _multimon()
    model, effect, data = _model(path)
    block = effect.block
    assert block is not None and effect.records is not None
    # the block begins with a zero word, then "cb0" at 4, "float3" at 8 and its SBinaryType at 15
    assert block.strings[4] == "cb0" and block.strings[8] == "float3"
    t = block.types[15]
    assert (t.name_offset, t.var_type, t.elements, t.total_size, t.stride, t.packed_size, t.info) == (
        8, VAR_NUMERIC, 0, 12, 16, 12, FLOAT3_BITS)
    assert t.numeric_fields() == {"layout": 2, "scalar_type": 1, "rows": 1, "columns": 3, "column_major": 0,
                                  "packed_array": 0}
    # fxc prints g_vLightDir = { -0.707000017, 0.707000017, 0 }: the float bits of +-0.707
    light = effect.records.buffers[0].variables[0]
    assert block.strings[light.name_offset] == "g_vLightDir"
    words = block.values[light.default_offset]
    assert words == (struct.unpack("<I", struct.pack("<f", -0.707))[0],
                     struct.unpack("<I", struct.pack("<f", 0.707))[0], 0)
    # an edited default is written in place and listed
    block.values[light.default_offset] = (struct.unpack("<I", struct.pack("<f", 2.0))[0], *words[1:])
    out = model.to_bytes()
    assert len(out) == len(data) and out != data
    assert "float3  g_vLightDir = { 2, 0.707000017, 0 };" in model.disassemble()
    again = DxbcContainer.from_bytes(out).effect
    assert isinstance(again, Effect) and again.block is not None
    assert again.block.values[light.default_offset][0] == 0x40000000


def test_shared_type_stays_shared() -> None:
    path = _multimon()
    model, effect, data = _model(path)
    block = effect.block
    assert block is not None and effect.records is not None
    variables = [v for b in effect.records.buffers for v in b.variables]
    # g_mWorld and g_mWorldViewProjection point at one float4x4 type description: one item
    matrices = [v for v in variables if block.strings[v.name_offset].startswith("g_mWorld")]
    offsets = {v.type_offset for v in matrices}
    assert len(matrices) == 2 and len(offsets) == 1
    (shared,) = offsets
    assert block.strings[block.types[shared].name_offset] == "float4x4"
    assert sum(1 for key in block.layout.items if key == ("type", shared)) == 1
    # renaming the shared type's name renames it for both variables, in place
    block.strings[block.types[shared].name_offset] = "float3x3"
    listing = model.disassemble()
    assert listing.count("float3x3 g_mWorld") == 2
    out = model.to_bytes()
    diff = [i for i in range(len(out)) if out[i] != data[i]]
    assert len(out) == len(data) and len([i for i in diff if i >= 32]) == 2  # "4x4" -> "3x3", plus the checksum


def test_resized_and_new_items_move_with_their_pointers() -> None:
    path = _multimon()
    model, effect, data = _model(path)
    assert effect.block is not None and effect.records is not None
    fxc = path.with_suffix(".fxc.asm").read_text(errors="replace").splitlines()
    assert effect.block.strings[4] == "cb0" and "cbuffer cb0" in fxc
    effect.block.strings[4] = "a_longer_buffer_name"
    # a new string no record pointed at yet, named by an offset past the block
    technique = effect.records.techniques[0]
    old_name = effect.block.strings[technique.name_offset]
    effect.block.strings[0x100000] = "BrandNew"
    technique.name_offset = 0x100000
    out = model.to_bytes()
    assert technique.name_offset == 0x100000  # the model is not changed by writing it
    again = DxbcContainer.from_bytes(out)
    moved = again.effect
    assert isinstance(moved, Effect) and moved.block is not None and moved.records is not None
    size = len(effect.unstructured)
    assert len(moved.unstructured) == size + len("a_longer_buffer_name") + 1 + len("BrandNew") + 1
    assert moved.records.buffers[0].name_offset == size  # resized items go after the block
    assert moved.records.techniques[0].name_offset == size + len("a_longer_buffer_name") + 1
    # fxc's own listing with the two names replaced (the vacated "cb0" bytes stay as they were)
    renames = {"cbuffer cb0": "cbuffer a_longer_buffer_name", f"technique10 {old_name}": "technique10 BrandNew"}
    want = [renames.get(line.rstrip(), line.rstrip()) for line in fxc]  # the effect's lines, not the shaders' RDEF
    assert [line.rstrip() for line in again.disassemble().splitlines()] == want
    assert again.to_bytes() == out and out[:4] == data[:4]


def fx4_assignments() -> tuple[bytes, dict[str, int]]:
    """An fx_4_0 payload: a cbuffer with a float4 default, a technique whose pass assigns a
    constant, a constant index, a variable index, an expression index and an inline shader; 8
    bytes of filler no record points at."""
    blob = Blob()
    at: dict[str, int] = {}
    blob.add(bytes(4))  # fxc's leading zero word
    for name in ("cb", "v", "float4", "t0", "p0", "arr", "idx"):
        at[name] = blob.add(name.encode() + b"\0")
    at["filler"] = blob.add(b"\xef\xbe\xad\xde" * 2)
    at["type"] = blob.add(struct.pack("<7I", at["float4"], 1, 0, 16, 16, 16, FLOAT4_BITS))
    at["default"] = blob.add(struct.pack("<4f", 1.0, 2.0, 3.0, 4.0))
    at["constants"] = blob.add(struct.pack("<5I", 2, 1, 0x3F000000, 2, 7))
    at["const_index"] = blob.add(struct.pack("<2I", at["arr"], 3))
    at["variable_index"] = blob.add(struct.pack("<2I", at["arr"], at["idx"]))
    at["code"] = blob.add(struct.pack("<I", 4) + b"\x01\x02\x03\x04")
    at["expression_index"] = blob.add(struct.pack("<2I", at["arr"], at["code"]))
    at["inline"] = blob.add(struct.pack("<2I", 0, 0))
    words = [
        at["cb"], 16, 0, 1, 0xFFFFFFFF, 0,  # SBinaryConstantBuffer, no annotations
        at["v"], at["type"], 0, 0, at["default"], 0, 0,  # SBinaryNumericVariable, no annotations
        at["t0"], 1, 0, at["p0"], 5, 0,  # technique, pass
        10, 0, ASSIGN_CONSTANT, at["constants"],
        6, 0, ASSIGN_CONST_INDEX, at["const_index"],
        7, 0, ASSIGN_VARIABLE_INDEX, at["variable_index"],
        8, 0, ASSIGN_EXPRESSION_INDEX, at["expression_index"],
        6, 0, ASSIGN_INLINE_SHADER, at["inline"],
    ]
    counts = [1, 1, 0, 0, 0, 0, 1, len(blob.data)] + [0] * 10
    payload = struct.pack("<19I", 0xFEFF1001, *counts) + blob.data + struct.pack(f"<{len(words)}I", *words)
    return payload, at


def test_assignment_payloads_typed_by_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    payload, at = fx4_assignments()
    data = container((b"FX10", payload))
    model = DxbcContainer.from_bytes(data)
    effect = model.effect
    assert isinstance(effect, Effect) and effect.block is not None
    block = effect.block
    assert block.types[at["type"]].info == FLOAT4_BITS
    assert block.values[at["default"]] == (0x3F800000, 0x40000000, 0x40400000, 0x40800000)
    assert block.assignments[at["constants"]].constants == [(1, 0x3F000000), (2, 7)]
    assert block.assignments[at["const_index"]].words == (at["arr"], 3)
    assert block.assignments[at["variable_index"]].words == (at["arr"], at["idx"])
    assert block.assignments[at["expression_index"]].words == (at["arr"], at["code"])
    assert block.code[at["code"]] == b"\x01\x02\x03\x04"
    assert block.assignments[at["inline"]].words == (0, 0)
    assert block.strings[at["idx"]] == "idx"
    # the filler no record points at is a raw span (with fxc's zero word after the "" at 0)
    raw = [(s.offset, s.data) for s in block.layout.raw]
    assert raw == [(1, bytes(3)), (at["filler"], b"\xef\xbe\xad\xde" * 2)]
    assert model.to_bytes() == data
    path = tmp_path / "a.fxo"
    path.write_bytes(data)
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    spans = json.loads(out)["effect"]["block"]["spans"]
    assert {"item": "raw", "offset": at["filler"], "size": 8} in spans
    assert {"item": f"assignment.{at['constants']}", "offset": at["constants"], "size": 20} in spans
    # an edited constant is written in place
    block.assignments[at["constants"]].words = (1, 0x3F800000, 2, 9)
    again = DxbcContainer.from_bytes(model.to_bytes()).effect
    assert isinstance(again, Effect) and again.block is not None
    assert again.block.assignments[at["constants"]].constants == [(1, 0x3F800000), (2, 9)]


def fx5_struct() -> tuple[bytes, dict[str, int]]:
    """An fx_5_0 payload: a cbuffer holding one variable of a struct type with one float4 member
    and ``SBinaryTypeInheritance`` (no base class, one interface)."""
    blob = Blob()
    at: dict[str, int] = {}
    blob.add(bytes(4))
    for name in ("cb", "s", "S", "m", "POS", "float4", "IBase"):
        at[name] = blob.add(name.encode() + b"\0")
    at["float4_t"] = blob.add(struct.pack("<7I", at["float4"], 1, 0, 16, 16, 16, FLOAT4_BITS))
    at["ibase_t"] = blob.add(struct.pack("<6I", at["IBase"], VAR_INTERFACE, 0, 0, 0, 0))
    at["struct_t"] = blob.add(struct.pack("<7I", at["S"], VAR_STRUCT, 0, 16, 16, 16, 1)
                              + struct.pack("<4I", at["m"], at["POS"], 0, at["float4_t"])
                              + struct.pack("<3I", 0, 1, at["ibase_t"]))
    words = [at["cb"], 16, 0, 1, 0xFFFFFFFF, 0, at["s"], at["struct_t"], 0, 0, 0, 0, 0]
    counts = [1, 1, 0, 0, 0, 0, 0, len(blob.data)] + [0] * 15
    payload = struct.pack("<24I", 0xFEFF2001, *counts) + blob.data + struct.pack(f"<{len(words)}I", *words)
    return payload, at


def test_fx5_struct_type_with_inheritance() -> None:
    payload, at = fx5_struct()
    data = container((b"FX10", payload))
    model = DxbcContainer.from_bytes(data)
    effect = model.effect
    assert isinstance(effect, Effect) and effect.block is not None
    block = effect.block
    st = block.types[at["struct_t"]]
    assert (st.var_type, st.total_size, st.base_class_offset, st.interface_offsets) == (
        VAR_STRUCT, 16, 0, [at["ibase_t"]])
    [member] = st.members
    assert (member.name_offset, member.semantic_offset, member.offset, member.type_offset) == (
        at["m"], at["POS"], 0, at["float4_t"])
    assert block.types[at["ibase_t"]].kind == "interface" and block.types[at["float4_t"]].info == FLOAT4_BITS
    assert [s.data for s in block.layout.raw] == [bytes(3)]
    assert model.to_bytes() == data
    row = next(r for r in block.summary()["types"] if r["offset"] == at["struct_t"])
    assert row["members"] == [{"name": "m", "semantic": "POS", "offset": 0, "type_offset": at["float4_t"]}]
    assert row["interface_offsets"] == [at["ibase_t"]]


def test_every_word_of_the_block_corrupted() -> None:
    """Each aligned word of the hand-built effects set to 0, 1, 0x7FFFFFFF, 0xFFFFFFFF, the length:
    ShaderFormatError or an exact rebuild (a block that no longer types stays bytes)."""
    for payload in (fx4_assignments()[0], fx5_struct()[0]):
        data = container((b"FX10", payload))
        assert_word_mutants_rebuild(data, (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data)))


def _names(effect: Effect) -> list[str]:
    """Every name the records and the types point at, in record order."""
    rec, block = effect.records, effect.block
    assert rec is not None and block is not None
    out = [block.strings[b.name_offset] for b in rec.buffers + rec.pool_buffers]
    out += [block.strings[v.name_offset] for b in rec.buffers + rec.pool_buffers for v in b.variables]
    out += [block.strings[o.name_offset] for o in rec.objects + rec.pool_objects]
    out += [block.strings[block.types[v.type_offset].name_offset]
            for b in rec.buffers + rec.pool_buffers for v in b.variables]
    for t in rec.all_techniques():
        out += [block.strings[t.name_offset], *(block.strings[p.name_offset] for p in t.passes)]
        out += [block.strings[a.initializer_offset] for p in t.passes for a in p.assignments if a.kind == 2]
        out += [block.strings[block.assignments[a.initializer_offset].words[0]]
                for p in t.passes for a in p.assignments if a.kind in (3, 4)]
    return out


def test_every_string_lengthened_moves_every_pointer() -> None:
    """Each corpus effect with every block string one character longer: every item moves after the
    block and every record and item pointer follows it (names read back with the extra character)."""
    for path in _effects():
        model, effect, _ = _model(path)
        assert effect.block is not None
        before = _names(effect)
        for offset, text in list(effect.block.strings.items()):
            effect.block.strings[offset] = text + "X"
        out = model.to_bytes()
        again = DxbcContainer.from_bytes(out)
        moved = again.effect
        assert isinstance(moved, Effect) and moved.block is not None, path.name
        assert _names(moved) == [name + "X" for name in before], path.name
        assert len(moved.unstructured) == len(effect.unstructured) + sum(
            len(text) + 1 for text in effect.block.strings.values()), path.name
        assert again.to_bytes() == out, path.name


def test_fx5_pointers_follow_lengthened_strings() -> None:
    """The hand-built fx_5_0 effect with every string one character longer: names, stream-output
    declarations and interface binding instances read back lengthened."""
    from test_dxbc_fx5_records import fx5_effect

    payload, _ = fx5_effect()
    model = DxbcContainer.from_bytes(container((b"FX10", payload)))
    effect = model.effect
    assert isinstance(effect, Effect) and effect.block is not None
    before = model.summary()["effect"]
    for offset, text in list(effect.block.strings.items()):
        effect.block.strings[offset] = text + "X"
    again = DxbcContainer.from_bytes(model.to_bytes())
    after = again.summary()["effect"]
    assert after["groups"] == [{"name": "g0X", "techniques": [{"name": "t0X", "passes": ["p0X"]}]}]
    assert after["interfaces"] == ["ifaceX"] and before["interfaces"] == ["iface"]
    [shader] = after["shaders5"]
    assert shader["object"] == "vsX" and shader["stream_out"] == ["SV_Position.xyzwX"]
    assert shader["interface_bindings"] == [{"instance": "g_instX", "index": 0xFFFFFFFF}]
    assert [t["name"] for t in after["block"]["types"]] == ["float4X", "stringX", "VertexShaderX", "IFooX"]

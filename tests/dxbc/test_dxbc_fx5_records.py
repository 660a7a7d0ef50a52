"""fx_5_0 effect records typed (Effects11 ``EffectBinaryFormat.h`` / ``EffectLoad.cpp`` reading order).

The corpus has no fx_5_0 effect, so the effect here is packed by hand, word by word, from the
structures of the public header: every expected value is the one written below.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from dxbc_build import Blob, assert_word_mutants_rebuild, container

from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10 import Effect


def _type(blob: Blob, name: str, var_type: int, size: int, extra: int) -> int:
    name_at = blob.add(name.encode() + b"\0")
    return blob.add(struct.pack("<7I", name_at, var_type, 0, size, size, size, extra))


def fx5_effect(object_type: int = 26) -> tuple[bytes, dict[str, int]]:
    """An fx_5_0 payload: one cbuffer with a float4 and a string annotation, one VertexShader5
    object with stream output and an interface binding, one interface variable, one group with
    one technique, one pass and one assignment. Returns the payload and the offsets used."""
    blob = Blob()
    at: dict[str, int] = {}
    at["float4"] = _type(blob, "float4", 1, 16, 0x00000A1)
    at["string"] = _type(blob, "string", 2, 0, 1)
    at["vs_type"] = _type(blob, "VertexShader", 2, 0, object_type)
    at["iface_type"] = _type(blob, "IFoo", 4, 0, 0)
    for name in ("cb0", "color", "UIName", "Color", "vs", "iface", "g0", "t0", "p0", "g_inst"):
        at[name] = blob.add(name.encode() + b"\0")
    at["so"] = blob.add(b"SV_Position.xyzw\0")
    at["default"] = blob.add(struct.pack("<4f", 1.0, 0.5, 0.25, 1.0))
    at["bindings"] = blob.add(struct.pack("<2I", at["g_inst"], 0xFFFFFFFF))
    shader = container((b"SHEX", struct.pack("<2I", 0x00010050, 2)))  # vs_5_0, an empty program
    at["shader"] = blob.add(struct.pack("<I", len(shader)) + shader)
    words = [
        # SBinaryConstantBuffer + annotations(0)
        at["cb0"], 16, 0, 1, 0xFFFFFFFF, 0,
        # SBinaryNumericVariable + 1 string annotation (one string offset: 0 elements)
        at["color"], at["float4"], 0, 0, at["default"], 0, 1, at["UIName"], at["string"], at["Color"],
        # SBinaryObjectVariable + SBinaryShaderData5 + annotations(0)
        at["vs"], at["vs_type"], 0, 0xFFFFFFFF,
        at["shader"], at["so"], 0, 0, 0, 1, 0, 1, at["bindings"], 0,
        # SBinaryInterfaceVariable + annotations(0)
        at["iface"], at["iface_type"], 0, 0, 0,
        # SBinaryGroup + annotations(0), SBinaryTechnique + annotations(0), SBinaryPass + annotations(0)
        at["g0"], 1, 0, at["t0"], 1, 0, at["p0"], 1, 0,
        # SBinaryAssignment: VertexShader (state 6), index 0, ECAT_Variable (2), "vs"
        6, 0, 2, at["vs"],
    ]
    counts = [1, 1, 1, 0, 0, 0, 1, len(blob.data), 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0]
    payload = struct.pack("<24I", 0xFEFF2001, *counts) + blob.data + struct.pack(f"<{len(words)}I", *words)
    return payload, at


def _effect(payload: bytes) -> tuple[DxbcContainer, Effect, bytes]:
    data = container((b"FX10", payload))
    model = DxbcContainer.from_bytes(data)
    assert isinstance(model.effect, Effect)
    return model, model.effect, data


def test_fx5_records_are_typed() -> None:
    payload, at = fx5_effect()
    model, effect, data = _effect(payload)
    rec = effect.records
    assert rec is not None and rec.fx5 and effect.records_tail == b""
    [cb] = rec.buffers
    assert (cb.name_offset, cb.size, cb.bind_point) == (at["cb0"], 16, 0xFFFFFFFF)
    [var] = cb.variables
    assert (var.name_offset, var.type_offset, var.default_offset) == (at["color"], at["float4"], at["default"])
    [note] = var.annotations
    assert (note.name_offset, note.values) == (at["UIName"], [at["Color"]])
    [obj] = rec.objects
    [data5] = obj.shaders5
    assert data5.shader_offset == at["shader"] and data5.so_decl_offsets == (at["so"], 0, 0, 0)
    assert (data5.so_decl_count, data5.interface_binding_count, data5.interface_bindings_offset) == (
        1, 1, at["bindings"])
    [iface] = rec.interfaces
    assert (iface.name_offset, iface.type_offset) == (at["iface"], at["iface_type"])
    [group] = rec.groups
    [tech] = group.techniques
    [pass_] = tech.passes
    [assignment] = pass_.assignments
    assert (assignment.state, assignment.kind, assignment.initializer_offset) == (6, 2, at["vs"])
    assert rec.techniques == [] and rec.all_techniques() == [tech]
    assert [s.offset for s in effect.shaders] == [at["shader"]]
    assert model.to_bytes() == data
    summary = model.summary()["effect"]
    assert summary["groups"] == [{"name": "g0", "techniques": [{"name": "t0", "passes": ["p0"]}]}]
    assert summary["interfaces"] == ["iface"] and summary["objects"] == ["vs"]
    assert summary["shaders5"] == [{"object": "vs", "shader_offset": at["shader"], "stream_out": ["SV_Position.xyzw"],
                                    "rasterized_stream": 0,
                                    "interface_bindings": [{"instance": "g_inst", "index": 0xFFFFFFFF}]}]


def test_fx5_edit_is_written() -> None:
    payload, at = fx5_effect()
    model, effect, _ = _effect(payload)
    assert effect.records is not None
    effect.records.groups[0].techniques[0].passes[0].assignments[0].index = 3
    effect.records.objects[0].shaders5[0].rasterized_stream = 2
    again = DxbcContainer.from_bytes(model.to_bytes()).effect
    assert isinstance(again, Effect) and again.records is not None
    assert again.records.groups[0].techniques[0].passes[0].assignments[0].index == 3
    assert again.records.objects[0].shaders5[0].rasterized_stream == 2


def test_fx5_records_that_do_not_walk_stay_bytes() -> None:
    payload, _ = fx5_effect()
    cut = payload[:-8]  # the last assignment is cut short: the records do not walk
    model, effect, data = _effect(cut)
    assert effect.records is None and effect.structured == cut[96 + effect.header.unstructured_size :]
    assert model.to_bytes() == data
    # an object kind nobody knows reads no initializer; whatever the walk finds, the bytes come back
    odd, _ = fx5_effect(object_type=99)
    model, effect, data = _effect(odd)
    assert model.to_bytes() == data
    assert effect.records is None or effect.records.build() + effect.records_tail == effect.structured


def test_fx5_info_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    from conftest import run_cli
    from shaderkit.schemas import schema_for

    payload, _ = fx5_effect()
    path = tmp_path / "e.fxo"
    path.write_bytes(container((b"FX10", payload)))
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    record = json.loads(out)
    assert record["effect"]["version"] == "fx_5_0" and record["effect"]["groups"][0]["name"] == "g0"
    jsonschema.validate(record, schema_for(record))


def test_every_word_of_an_fx5_effect_corrupted() -> None:
    """Each aligned word set to 0, 1, 0x7FFFFFFF, 0xFFFFFFFF: ShaderFormatError or an exact rebuild."""
    data = container((b"FX10", fx5_effect()[0]))
    accepted = assert_word_mutants_rebuild(data, (0, 1, 0x7FFFFFFF, 0xFFFFFFFF))
    assert accepted > 0

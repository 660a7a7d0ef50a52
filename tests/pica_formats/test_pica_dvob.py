"""DVOB/DVOJ: hand-built objects in the seed's layout (no real samples exist)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dvlb.dvlb import Constant, Dvlb, Label, OperandDescriptor, Output, Uniform
from shaderkit.formats.dvlb.dvob import Dvob, Dvoj, LineNumber, Relocation
from shaderkit.formats.registry import detect


def _hand_dvoj() -> bytes:
    """A DVOJ laid out by hand from the seed's table (offsets relative to the DVOJ start).

    Tables are deliberately not in header order: symbols first, then code, then the rest.
    """
    symbols = b"main\0font_Shader.vsh\0vVtxData\0"  # main @0, file @5, input @21
    code = struct.pack("<3I", 0x4C000000, 0x4C201001, 0x88000000)
    opdescs = struct.pack("<2I", 0x8006C36F, 0x0F)
    constant = struct.pack("<HH4I", 2, 3, 0x3F0000, 0, 0xC04000, 0x3E0000)
    label = struct.pack("<B3sIII", 0, b"\0\x01\0", 0, 0xFFFFFFFF, 0)
    lines = struct.pack("<4I", 5, 10, 5, 11)
    reloc = struct.pack("<3I", 1, 2, 3)
    output = struct.pack("<HHHH", 2, 1, 5, 0)
    inputs = struct.pack("<IHH", 21, 0, 1)
    body = [symbols + b"\0\0", code, opdescs, constant, label, lines, reloc, output, inputs]
    pos = 0x58
    where = []
    for part in body:
        where.append(pos)
        pos += len(part)
    sym, cod, opd, con, lab, lin, rel, out, inp = where
    header = struct.pack(
        "<4s3I18I", b"DVOJ", 0, 7, 0xFFFFFFFF,
        con, 1, lab, 1, cod, 3, opd, 1, lin, 2, rel, 1, out, 1, inp, 1, sym, len(symbols),
    )  # fmt: skip
    return header + b"".join(body)


def test_hand_built_dvoj_fields() -> None:
    data = _hand_dvoj()
    assert detect(data) is not None and detect(data).name == "dvob"  # type: ignore[union-attr]
    model = Dvob.from_bytes(data)
    assert model.magic == b"DVOJ"
    (obj,) = model.objects
    assert (obj.shader_type, obj.unknown_08, obj.unknown_0c) == (0, 7, 0xFFFFFFFF)
    assert obj.code == [0x4C000000, 0x4C201001, 0x88000000]
    assert obj.opdescs == [OperandDescriptor(0x8006C36F, 0x0F)]
    assert obj.constants[0].value == [1.0, 0.0, -2.5, 0.5]
    assert obj.labels == [Label(0, 0, "main", 0xFFFFFFFF, b"\0\x01\0")]
    assert obj.line_numbers == [LineNumber("font_Shader.vsh", 10), LineNumber("font_Shader.vsh", 11)]
    assert obj.relocations == [Relocation(1, 2, 3)]
    assert (obj.outputs[0].semantic_name, obj.outputs[0].register, obj.outputs[0].mask) == ("color", 1, 5)
    assert obj.inputs == [Uniform("vVtxData", 0, 1)]
    assert model.to_bytes() == data
    info = model.summary()
    assert info["format"] == "dvob" and info["magic"] == "DVOJ" and info["objects"][0]["inputs"][0]["registers"] == "v0-v1"


def test_dvob_wrapping_two_objects() -> None:
    one = _hand_dvoj()
    # DVOB header: magic, count, absolute offsets (assumed DVLB-like layout)
    data = b"DVOB" + struct.pack("<3I", 2, 16, 16 + len(one)) + one + one
    model = Dvob.from_bytes(data)
    assert len(model.objects) == 2 and model.objects[0] == model.objects[1]
    assert model.to_bytes() == data


def test_edit_relays_out() -> None:
    model = Dvob.from_bytes(_hand_dvoj())
    obj = model.objects[0]
    obj.inputs.append(Uniform("vColor", 2, 2))
    obj.line_numbers.append(LineNumber("other.vsh", 12))
    obj.code.append(0x88000000)
    again = Dvob.from_bytes(model.to_bytes())
    assert again.objects == model.objects
    assert again.magic == b"DVOJ"


def test_new_object_canonical_layout() -> None:
    obj = Dvoj(code=[0x88000000], labels=[Label(0, 0, "main")], inputs=[Uniform("pos", 0, 0)],
               constants=[Constant.fvec(0, 1, 2, 3, 4)], outputs=[Output(0, 0)])  # fmt: skip
    data = Dvob([obj], b"DVOJ").to_bytes()
    header = struct.unpack_from("<4s3I18I", data)
    # header 0x58, constants 20, labels 16, code 4, then empty tables, outputs 8, inputs 8, symbols
    assert header[4:] == (
        0x58, 1, 0x6C, 1, 0x7C, 1, 0x80, 0, 0x80, 0, 0x80, 0, 0x80, 1, 0x88, 1, 0x90, 9,
    )  # fmt: skip
    assert data[0x90:0x99] == b"main\0pos\0"
    assert len(data) % 4 == 0
    assert Dvob.from_bytes(data).objects == [obj]


def test_truncation_only_raises_format_errors() -> None:
    data = _hand_dvoj()
    for size in range(len(data)):
        with pytest.raises(ShaderFormatError):
            Dvob.from_bytes(data[:size])


def test_symbol_outside_table() -> None:
    data = bytearray(_hand_dvoj())
    inp = struct.unpack_from("<I", data, 0x48)[0]
    struct.pack_into("<I", data, inp, 999)
    with pytest.raises(ShaderFormatError, match="outside the symbol table"):
        Dvob.from_bytes(bytes(data))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupted_words(data: st.DataObject) -> None:
    raw = bytearray(_hand_dvoj())
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(raw) // 4 - 1)) * 4
        struct.pack_into("<I", raw, pos, data.draw(st.integers(0, 2**32 - 1) | st.integers(0, 0x200)))
    try:
        model = Dvob.from_bytes(bytes(raw))
    except ShaderFormatError:
        return
    assert model.to_bytes() == bytes(raw)
    model.summary()
    Dvob.from_bytes(model.relayout())


def test_object_as_shbin_model() -> None:
    obj = Dvob.from_bytes(_hand_dvoj()).objects[0]
    dvlb = obj.to_dvlb()
    (dvle,) = dvlb.dvles
    assert dvlb.dvlp.code == obj.code and dvlb.dvlp.opdescs == obj.opdescs
    assert (dvle.main_offset, dvle.endmain_offset) == (0, 3)
    assert dvle.uniforms == obj.inputs and dvle.labels == obj.labels
    assert Dvlb.from_bytes(dvlb.to_bytes()).dvles == [dvle]


def test_unknown_structure_between_objects_is_a_raw_span() -> None:
    one = _hand_dvoj()
    unknown = b"XTRA" + bytes(range(8))
    # DVOB header 16 bytes, object 0, 12 unknown bytes, object 1
    second = 16 + len(one) + len(unknown)
    data = b"DVOB" + struct.pack("<3I", 2, 16, second) + one + unknown + one
    model = Dvob.from_bytes(data)
    assert model.to_bytes() == data
    rows = model.summary()["layout"]
    assert {"item": "raw", "offset": 16 + len(one), "size": len(unknown)} in rows
    assert {"item": "dvoj.1.header", "offset": second, "size": 0x58} in rows
    # the two NUL bytes after the symbol table of each object are raw too; the shared file name is
    # one string recorded twice (line_numbers 0 and 1)
    symbols = 16 + 0x58
    assert {"item": "raw", "offset": symbols + 30, "size": 2} in rows
    assert {"item": "dvoj.0.line_numbers.1.name", "offset": symbols + 5, "size": 16} in rows
    layout = model.layout
    assert layout is not None and layout.shares_with(("dvoj", 0, "line_numbers", 1, "name")) == (
        "dvoj", 0, "line_numbers", 0, "name")
    # a resized input name: the symbol table of object 1 moves to the end, the unknown bytes stay
    model.objects[1].inputs[0].name = "vVertexData"
    out = model.to_bytes()
    assert out[16 + len(one) : second] == unknown and out[: len(data)].count(b"vVtxData") == 2
    assert Dvob.from_bytes(out).objects == model.objects


def test_added_object_moves_the_one_its_header_grew_over() -> None:
    one = _hand_dvoj()
    unknown = b"XTRA" + bytes(range(8))
    second = 16 + len(one) + len(unknown)
    data = b"DVOB" + struct.pack("<3I", 2, 16, second) + one + unknown + one
    model = Dvob.from_bytes(data)
    model.objects.append(model.objects[0])
    out = model.to_bytes()
    # the header is now 20 bytes: object 0 (at 16) moves with its tables to the old end, object 1
    # stays, the new object 2 follows object 0; the unknown bytes stay where they were
    count, *offsets = struct.unpack_from("<4I", out, 4)
    assert count == 3 and offsets[0] == len(data) and offsets[1] == second and offsets[2] > offsets[0]
    assert out[16 + len(one) : second] == unknown and out[second : second + len(one)] == one
    assert Dvob.from_bytes(out).objects == model.objects

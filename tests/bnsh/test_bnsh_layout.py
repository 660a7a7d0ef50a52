"""Placement kept by io.layout: raw spans (bytes no structure covers) come back byte for byte and
show up in ``info --json``; the 2.3.x compiler reflection is typed (values read off the hex dump)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_bnsh_synthetic import make_model

from conftest import corpus_files
from shaderkit.cli import cli
from shaderkit.errors import UnsupportedOperation
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.model import (
    CompilerBuffer,
    CompilerReflection,
    CompilerResource,
    CompilerShaderInterface,
    CompilerVariable,
    NvnShaderCode,
    UnknownStageCode,
)
from shaderkit.formats.nn.rlt import RelocationEntry, RelocationTable
from shaderkit.io.reader import Reader

QUAD = "wiixl_quad_carray.bnsh"


def _synthetic() -> bytes:
    return make_model().to_bytes()


def _raw_rows(model: Bnsh) -> list[tuple[int, int]]:
    return [(row["offset"], row["size"]) for row in model.summary()["layout"] if row["item"] == "raw"]


def _rlt_at(data: bytes) -> int:
    return int(struct.unpack_from("<I", data, 0x18)[0])


def _str_at(data: bytes) -> int:
    return data.rfind(b"_STR", 0, _rlt_at(data))


def test_non_zero_padding_in_the_memory_pool_is_a_raw_span() -> None:
    data = bytearray(_synthetic())
    back = Bnsh.from_bytes(bytes(data))
    assert back._source is not None
    pool_at, pool_size = back._source.pool_region
    # the pool ends with padding to 0x1000: put a marker into its last 16 bytes
    marker = b"\xab" * 8 + b"UNKNOWN!"
    at = pool_at + pool_size - 16
    assert data[at : at + 16] == bytes(16)
    data[at : at + 16] = marker
    model = Bnsh.from_bytes(bytes(data))
    assert model.to_bytes() == bytes(data)
    spans = [s for s in model.layout().raw if s.offset <= at < s.end]
    assert len(spans) == 1 and marker in spans[0].data
    assert (spans[0].offset, len(spans[0].data)) in _raw_rows(model)


def test_unknown_block_between_str_and_rlt_is_kept() -> None:
    data = _synthetic()
    rlt_at, str_at = _rlt_at(data), _str_at(data)
    block = b"XTRA" + struct.pack("<III", 0, 0x20, 0) + bytes(range(16))
    rlt = bytearray(data[rlt_at:])
    struct.pack_into("<I", rlt, 4, rlt_at + len(block))  # the table names its own offset
    out = bytearray(data[:rlt_at] + block + bytes(rlt))
    struct.pack_into("<I", out, str_at + 4, rlt_at - str_at)  # _STR's next block
    struct.pack_into("<II", out, 0x18, rlt_at + len(block), len(out))
    model = Bnsh.from_bytes(bytes(out))
    assert model.to_bytes() == bytes(out)
    assert (rlt_at, len(block)) in _raw_rows(model)
    # laid out anew, the unknown block is not part of the model
    assert Bnsh.from_bytes(model.relayout()) == model


def test_trailing_bytes_after_the_relocation_table_are_kept() -> None:
    data = bytearray(_synthetic() + b"trailer\0")
    struct.pack_into("<I", data, 0x1C, len(data))
    model = Bnsh.from_bytes(bytes(data))
    assert model.to_bytes() == bytes(data)
    assert (len(data) - 8, 8) in _raw_rows(model)


def test_object_memory_and_pool_object_come_back_as_stored() -> None:
    data = bytearray(_synthetic())
    model = Bnsh.from_bytes(bytes(data))
    items = model.layout().items
    obj = items[("obj", 0, "binary")]
    pool_object = items[("poolobj",)]
    data[obj.offset : obj.offset + 4] = b"OBJ!"
    data[pool_object.offset + 8 : pool_object.offset + 12] = b"POOL"
    back = Bnsh.from_bytes(bytes(data))
    assert back.to_bytes() == bytes(data)
    rows = {(r["item"], r["offset"], r["size"]) for r in back.summary()["layout"]}
    assert ("obj.0.binary", obj.offset, len(obj.data)) in rows


def test_info_json_shows_raw_spans_as_stored(tmp_path: Path) -> None:
    data = bytearray(_synthetic() + b"trailer\0")
    struct.pack_into("<I", data, 0x1C, len(data))
    path = tmp_path / "raw.bnsh"
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, ["info", "--json", str(path)])
    assert result.exit_code == 0, result.output
    layout = json.loads(result.output)["layout"]
    assert {"item": "raw", "offset": len(data) - 8, "size": 8} in layout
    assert {"item": "header", "offset": 0, "size": 0x60} in layout
    assert {"item": "rlt", "offset": _rlt_at(bytes(data)), "size": len(data) - 8 - _rlt_at(bytes(data))} in layout


def _quad() -> bytes:
    files = corpus_files("nx", QUAD)
    if not files:
        pytest.skip(f"corpus file nx/{QUAD} not found")
    return files[0].read_bytes()


def test_compiler_reflection_by_hand() -> None:
    model = Bnsh.from_bytes(_quad())
    assert model.version == "2.3.1" and model.compiler_version == 0x11502
    refl = model.program(0).compiler_reflection
    assert refl is not None
    # header at 0x260: counts 1, 0, 1, 1, 0, 1, 0, 0; arrays at 0x1540, -, 0x1598, 0x15d8, -, 0x1618, -
    assert refl.unordered_access_buffers is None and refl.samplers is None and refl.images is None
    assert refl.constant_buffers == [CompilerBuffer("wiixl_material", (-1, -1, -1, -1, 1, -1), 0x10, 1, 0x10)]
    assert refl.shader_inputs == [CompilerShaderInterface("a_Position", 0x2D, 0, 1, 1)]
    assert refl.shader_outputs == [CompilerShaderInterface("o_Color", 0x2D, 0, 1, 0x10)]
    assert refl.constant_buffer_variables == [CompilerVariable("u_Color", 0x2D, 0, 0, 1, 0x10)]
    items = model.layout().items
    assert items[("compiler", 0, "binary")].offset == 0x260
    assert len(items[("compiler", 0, "binary")].data) == 0x98
    assert items[("compiler", 0, "binary", "constant_buffers")].offset == 0x1540
    assert items[("compiler", 0, "binary", "constant_buffer_variables")].offset == 0x1618
    rows = model.summary()["compiler_reflection"]
    assert {(r["table"], r["name"]) for r in rows} == {
        ("constant_buffers", "wiixl_material"), ("shader_inputs", "a_Position"), ("shader_outputs", "o_Color"),
        ("constant_buffer_variables", "u_Color")}


def test_compiler_reflection_written_from_a_model() -> None:
    model = make_model()
    model.program(0).compiler_reflection = CompilerReflection(
        constant_buffers=[CompilerBuffer("cb_view", (0, -1, -1, -1, 0, -1), 0x40, 1, 0x11)],
        shader_inputs=[CompilerShaderInterface("a_position", 0x2D, 0, 1, 1)],
        samplers=[CompilerResource("s_albedo", 0x30, (-1, -1, -1, -1, 0, -1), 0x10, 1)],
        constant_buffer_variables=[CompilerVariable("u_view", 0x3C, 0, 0, 1, 0x11), CompilerVariable(None)],
        images=[], compute_work_group_size=(4, 2, 1))
    data = model.to_bytes()
    back = Bnsh.from_bytes(data)
    assert back == model
    assert back.to_bytes() == data and back.relayout() == data


def test_reflection_stage_data2_separate_textures_and_samplers() -> None:
    model = make_model()
    reflection = model.program(0).reflection
    assert reflection is not None and reflection.stages[4] is not None
    pixel = reflection.stages[4]
    pixel.separate_textures = [("t_albedo", 4), ("t_normal", 5)]
    pixel.separate_samplers = [("s_linear", 2)]
    data = model.to_bytes()
    back = Bnsh.from_bytes(data)
    assert back == model and back.to_bytes() == data and back.relayout() == data
    items = back.layout().items
    stage_at = items[("rstage", 0, "binary", 4)].offset
    data2_at = items[("rstage2", 0, "binary", 4)].offset
    assert struct.unpack_from("<Q", data, stage_at + 0x58)[0] == data2_at
    texture_dic, sampler_dic, texture_offset, sampler_offset = struct.unpack_from("<QQii", data, data2_at)
    assert (texture_dic, sampler_dic) == (items[("dic", 0, "binary", 4, "separate_textures")].offset,
                                          items[("dic", 0, "binary", 4, "separate_samplers")].offset)
    # pixel: 1 output, 2 samplers, 1 constant buffer, 1 storage buffer, 1 image before them
    assert (texture_offset, sampler_offset) == (6, 8)
    slots_at = items[("slots", 0, "binary", 4)].offset
    assert struct.unpack_from("<9i", data, slots_at)[6:] == (4, 5, 2)


@pytest.mark.parametrize(("item", "field"), [(("program", 0, "binary"), 0x88), (("code", 0, "binary", 0), 0x28)],
                         ids=["pShaderLayout", "pDecomposedControlSection"])
def test_pointer_into_an_unknown_structure_is_kept_in_place(item: tuple[object, ...], field: int) -> None:
    """A newer SDK's ``pShaderLayout`` (program + 0x88, reserved in the headers read here) and
    ``NvnShaderCode.pDecomposedControlSection`` point at structures shaderkit does not model: the
    pointer, its _RLT entry and the target stay as stored."""
    data = bytearray(_synthetic())
    model = Bnsh.from_bytes(bytes(data))
    assert model._source is not None
    pointer_at = model.layout().items[item].offset + field
    pool_at, pool_size = model._source.pool_region
    target = pool_at + pool_size - 0x20  # zero padding at the end of the pool
    data[target : target + 0x20] = b"UNKNOWN?" * 4
    struct.pack_into("<Q", data, pointer_at, target)
    rlt_at = _rlt_at(bytes(data))
    table = RelocationTable.read(Reader(bytes(data)), rlt_at)
    table.sections[4].entries.append(RelocationEntry(pointer_at, 1, 1, 0))
    first = 0
    for section in table.sections:
        section.first_entry = first
        first += len(section.entries)
    out = bytearray(bytes(data[:rlt_at]) + table.pack(rlt_at))
    struct.pack_into("<I", out, 0x1C, len(out))
    back = Bnsh.from_bytes(bytes(out))
    assert back._source is not None and back._source.unknown_pointers == {pointer_at}
    assert back.to_bytes() == bytes(out)
    with pytest.raises(UnsupportedOperation):
        back.relayout()


def test_unknown_code_type_stays_raw_in_place() -> None:
    """Code type 1 (intermediate language) has no public layout: its stage code stays raw bytes."""
    data = bytearray(_synthetic())
    program_at = Bnsh.from_bytes(bytes(data)).layout().items[("program", 3, "binary")].offset
    data[program_at + 1] = 1  # ShaderInfoData.codeType
    model = Bnsh.from_bytes(bytes(data))
    stages = model.program(3).stages
    assert all(isinstance(code, UnknownStageCode) for code in stages)
    code_at = struct.unpack_from("<Q", data, program_at + 8)[0]
    assert stages[0] == UnknownStageCode(code_at)
    assert model.to_bytes() == bytes(data)
    assert any(s.offset <= code_at < s.end for s in model.layout().raw)
    rows = [r for r in model.summary()["stages"] if r["variation"] == 3]
    assert rows[0]["stored_at"] == code_at and rows[0]["code_type"] == "intermediate_language"
    with pytest.raises(UnsupportedOperation):
        model.relayout()
    with pytest.raises(UnsupportedOperation):
        model.extract(3, "vertex")


def test_an_edit_that_needs_a_new_layout_does_not_drop_raw_bytes_silently() -> None:
    data = bytearray(_synthetic() + b"trailer\0")
    struct.pack_into("<I", data, 0x1C, len(data))
    model = Bnsh.from_bytes(bytes(data))
    blob = model.extract(0, "pixel")
    control_size, data_size = struct.unpack_from("<II", blob)
    model.replace(0, "pixel", struct.pack("<II", control_size, data_size + 0x100) + blob[8:] + bytes(0x100))
    with pytest.raises(UnsupportedOperation, match="relayout"):
        model.to_bytes()
    out = model.relayout()
    assert b"trailer" not in out[-16:]
    assert Bnsh.from_bytes(out) == model
    # a same-size edit keeps every raw byte where it was
    same = Bnsh.from_bytes(bytes(data))
    same.replace(0, "pixel", blob[:-1] + b"\x5a")
    pixel = same.layout().items[("data", 0, "binary", 4)]
    expected = bytearray(data)
    expected[pixel.end - 1] = 0x5A
    assert same.to_bytes() == bytes(expected)


def test_shared_control_section_is_written_once_where_it_lay() -> None:
    """Two NvnShaderCode structures pointing at one control section (equal bytes): the sharing is
    recorded by the layout, kept while the bytes agree, and undone when an edit makes them differ."""
    # v1's vertex control section made different by one byte, so a fresh layout stores both
    original = make_model()
    code1 = original.stage_code(1, "vertex")
    assert isinstance(code1, NvnShaderCode)
    code1.control = code1.control[:-1] + b"\xdd"
    data = bytearray(original.to_bytes())
    items = Bnsh.from_bytes(bytes(data)).layout().items
    first = items[("control", 0, "binary", 0)]
    assert items[("control", 1, "binary", 0)].offset != first.offset
    code_at = items[("code", 1, "binary", 0)].offset
    struct.pack_into("<Q", data, code_at + 8, first.offset)  # v1's vertex pControl -> v0's control section
    model = Bnsh.from_bytes(bytes(data))
    assert model == make_model()
    assert model.layout().shares_with(("control", 1, "binary", 0)) == ("control", 0, "binary", 0)
    assert model.to_bytes() == bytes(data)
    # an edit of one of them (same size): they can no longer share, and the orphaned old control
    # section of v1 is raw bytes a new layout cannot place
    code = model.stage_code(1, "vertex")
    assert isinstance(code, NvnShaderCode)
    code.control = code.control[:-1] + b"\xee"
    with pytest.raises(UnsupportedOperation):
        model.to_bytes()
    back = Bnsh.from_bytes(model.relayout())
    assert back == model
    assert back.stage_code(0, "vertex") != back.stage_code(1, "vertex")


def test_fresh_layout_stores_equal_code_blobs_once() -> None:
    """A fresh layout, like Nintendo's tools, puts each program with its code structures and
    control sections, and stores a control section or shader data equal to an earlier one once."""
    model = make_model()  # v0 and v1 binary programs: equal control sections, shader data of other sizes
    layout = Bnsh.from_bytes(model.to_bytes()).layout()
    for stage in (0, 4):
        assert layout.shares_with(("control", 1, "binary", stage)) == ("control", 0, "binary", stage)
        assert layout.shares_with(("data", 1, "binary", stage)) is None
    items = layout.items
    # program 0 (0xA0 bytes), its six NvnShaderCode structures (0x40 each), ... then program 1 after
    # program 0's control sections
    p0 = items[("program", 0, "binary")].offset
    assert [items[("code", 0, "binary", i)].offset for i in range(6)] == [p0 + 0xA0 + 0x40 * i for i in range(6)]
    assert items[("program", 1, "binary")].offset > items[("control", 0, "binary", 5)].offset
    # an edit makes them differ: written apart again
    code = model.stage_code(1, "pixel")
    assert isinstance(code, NvnShaderCode)
    code.control = code.control[:-1] + b"\x01"
    back = Bnsh.from_bytes(model.to_bytes())
    assert back.layout().shares_with(("control", 1, "binary", 4)) is None
    assert back == model


def test_empty_control_section_at_another_stages_offset_rebuilds_exactly() -> None:
    """An empty item shares no storage: a stage whose control section is 0 bytes long at the offset
    of another stage's control section is no 'shared' blob (mutation testing of a public BNSH found
    such a file rewritten from a fresh layout, four times its size)."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.samples import bnsh_sample

    data = bytearray(bnsh_sample())
    items = Bnsh.from_bytes(bytes(data)).layout().items
    vertex_control = items[("control", 0, "binary", 0)].offset
    pixel_code = items[("code", 0, "binary", 4)].offset
    # NvnShaderCode: u64 address, u64 control pointer (+0x08), u64 data pointer, u32 data size,
    # u32 control size (+0x1C)
    struct.pack_into("<Q", data, pixel_code + 0x08, vertex_control)
    struct.pack_into("<I", data, pixel_code + 0x1C, 0)
    model = Bnsh.from_bytes(bytes(data))
    assert model.variations[0].binary_program.stages[4].control == b""
    assert model.layout().shares_with(("control", 0, "binary", 4)) is None
    assert model.to_bytes() == bytes(data)


@pytest.mark.parametrize("pixel_size, pool_size", [(0x200, 0x1000), (0x300, 0x1000), (0x400, 0x2000),
                                                    (0x700, 0x2000), (0x800, 0x2000)])
def test_fresh_memory_pool_keeps_room_after_the_data(pixel_size: int, pool_size: int) -> None:
    """The pool holds the stage data plus more than 0x400 (at most 0x500) bytes, in whole pages:
    measured on public BNSH files of four tool versions. Vertex data 0x800 bytes, then the pixel
    data at 0x800 (0x100-aligned): data end 0xA00 -> one page, 0xC00 -> two, 0x1000 -> two."""
    from shaderkit.formats.bnsh import writer
    from shaderkit.samples import bnsh_sample

    model = Bnsh.from_bytes(bnsh_sample())
    for stage, size in (("vertex", 0x800), ("pixel", pixel_size)):
        code = model.stage_code(0, stage)
        assert isinstance(code, NvnShaderCode)
        code.data = code.data[:0x80] + bytes(size - 0x80)
    layout, (start, size) = writer.fresh_layout(model)
    assert layout.items[("data", 0, "binary", 4)].offset == start + 0x800
    assert size == pool_size
    back = Bnsh.from_bytes(model.relayout())
    assert back == model

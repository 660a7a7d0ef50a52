"""Real BNSH files and the raw NVN blob: byte-exact round trip, relayout, dictionaries,
relocation tables, and field values checked by hand against hex dumps."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import corpus_files, corpus_params
from shaderkit.cli import cli
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.model import NvnShaderCode
from shaderkit.formats.bnsh.nvn import (
    ControlSectionHeader,
    NvnCode,
    NvnProgramFile,
    PsMaps,
    ShaderProgramHeader,
    VtgMaps,
)
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.rlt import RelocationEntry, RelocationTable, group
from shaderkit.formats.nn.strpool import StringPool, read_string
from shaderkit.formats.registry import detect
from shaderkit.io.reader import Reader

BNSH_FILES = corpus_params("nx", "*.bnsh*")
LGPE = "lgpe_bm_signboard03_2_area02_3.bnsh_vert"
TEXTURE = "wiixl_TextureShader.bnsh"
TEST = "wiixl_test.bnsh"
BLOB = "smo_nvn_font_shader.bin"


def _nx(name: str) -> bytes:
    files = corpus_files("nx", name)
    if not files:
        pytest.skip(f"corpus file nx/{name} not found")
    return files[0].read_bytes()


@pytest.mark.parametrize("path", BNSH_FILES)
def test_round_trip_is_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    model = Bnsh.from_bytes(data)
    assert model.to_bytes() == data
    # every non-zero byte belongs to a modelled structure: the raw spans are zero padding
    layout = model.layout()
    assert all(not any(span.data) for span in layout.raw)
    # the pointers the structures hold are exactly those the file's _RLT relocates
    assert model._source is not None
    table = RelocationTable.read(Reader(data), struct.unpack_from("<I", data, 0x18)[0])
    assert model._source.pointers == {p for s in table.sections for e in s.entries for p in e.pointers()}


@pytest.mark.parametrize("path", BNSH_FILES)
def test_relayout_rebuilds_the_original(path: Path) -> None:
    data = path.read_bytes()
    model = Bnsh.from_bytes(data)
    out = model.relayout()
    assert Bnsh.from_bytes(out) == model
    assert out == data


def _dictionaries(data: bytes) -> list[list[dic.DicEntry]]:
    """Every _DIC in the file, read raw (ref bits, children, keys) as the oracle."""
    r = Reader(data)
    found = []
    pos = data.find(b"_DIC")
    while pos >= 0:
        found.append(dic.read(r, pos, lambda ptr: read_string(r, ptr)))
        pos = data.find(b"_DIC", pos + 4)
    return found


def test_dictionary_construction_matches_every_real_dictionary() -> None:
    total = 0
    for name in (LGPE, TEXTURE, TEST):
        for entries in _dictionaries(_nx(name)):
            assert dic.build([e.key for e in entries[1:]]) == entries
            total += 1
    # 3 in the LGPE file (inputs, outputs, constant buffers), 4 in TextureShader, none in test
    assert total == 7


def test_lgpe_input_dictionary_by_hand() -> None:
    entries = _dictionaries(_nx(LGPE))[0]
    # from the dump at 0xf08: (ref bit, child0, child1) per entry
    assert [(e.ref_bit, e.left, e.right) for e in entries] == [
        (-1, 3, 0), (2, 0, 1), (1, 1, 2), (0, 2, 4), (10, 4, 3)]
    assert [e.key for e in entries] == ["", "IN_Normal", "IN_Position", "IN_colorSet1", "IN_map1"]
    for index, entry in enumerate(entries[1:], 1):
        assert dic.find(entries, entry.key) == index
    assert dic.find(entries, "IN_Missing") is None


@pytest.mark.parametrize("path", BNSH_FILES)
def test_relocation_grouping_reproduces_real_tables(path: Path) -> None:
    data = path.read_bytes()
    r = Reader(data)
    offset = struct.unpack_from("<I", data, 0x18)[0]
    table = RelocationTable.read(r, offset)
    assert len(table.sections) == 6
    assert table.pack(offset) == data[offset:]
    for section in table.sections:
        pointers = [p for e in section.entries for p in e.pointers()]
        assert group(pointers) == section.entries


def test_lgpe_relocation_entries_by_hand() -> None:
    data = _nx(LGPE)
    table = RelocationTable.read(Reader(data), 0x30D0)
    first = table.sections[0].entries[:2]
    # 0x80: 2 chunks of 2 pointers, 8 words skipped; 0x108: 2 chunks of 1, 19 words skipped
    assert [(e.position, e.chunk_count, e.pointers_per_chunk, e.words_skipped) for e in first] == [
        (0x80, 2, 2, 8), (0x108, 2, 1, 19)]
    assert first[0].pointers() == [0x80, 0x88, 0xD0, 0xD8]
    assert first[1].pointers() == [0x108, 0x1A8]
    assert [(s.position, s.size) for s in table.sections] == [
        (0, 0x11A8), (0x11A8, 0x100), (0x12A8, 0), (0x12A8, 0), (0x2000, 0x1000), (0x3000, 0xCC)]


def test_string_pool_rebuilds_the_real_block() -> None:
    data = _nx(LGPE)
    pool = StringPool.read(Reader(data), 0x3000)
    assert len(pool.strings) == 11
    assert pool.strings[0] == "worldViewProjConstant"
    assert pool.strings[-1] == "bm_signboard03_2_area02_3"
    block, where, size = pool.build(0x3000)
    assert block == data[0x3000:0x30D0]
    assert size == 0xCC
    assert where[""] == 0x3014 and where["worldViewProjConstant"] == 0x3018


def test_lgpe_fields_by_hand() -> None:
    model = Bnsh.from_bytes(_nx(LGPE))
    assert model.version == "2.1.5"
    assert model.name == "bm_signboard03_2_area02_3"
    assert model.compiler_version == 0x302
    assert model.low_level_compiler_version == 0x1100110001000F
    assert model.memory_pool is not None and model.memory_pool.memory_pool_property == 0x61
    summary = model.summary()  # JSON schema 2: integers, not hex strings
    assert (summary["compiler_version"], summary["low_level_compiler_version"], summary["memory_pool_property"]) == (
        0x302, 0x1100110001000F, 0x61)
    program = model.program(0)
    assert (program.flags, program.code_type, program.obj_size) == (3, 0, 0x100)
    code = program.stage("vertex")
    assert isinstance(code, NvnShaderCode)
    assert (len(code.control), len(code.data)) == (0xC88, 0x500)
    assert all(program.stage(s) is None for s in ("hull", "domain", "geometry", "pixel", "compute"))
    assert program.reflection is not None
    stage = program.reflection.stages[0]
    assert stage is not None
    assert stage.inputs == [("IN_Normal", 1), ("IN_Position", 0), ("IN_colorSet1", 7), ("IN_map1", 3)]
    assert stage.outputs is not None and [slot for _, slot in stage.outputs] == [-1] * 5
    assert stage.samplers is None
    assert stage.constant_buffers == [("worldViewProjConstant", 0)]
    assert stage.offsets() == [0, 4, 9, 9, 10, 10, 10, 10]


def test_sph_and_control_by_hand() -> None:
    model = Bnsh.from_bytes(_nx(LGPE))
    code = model.stage_code(0, "vertex")
    assert isinstance(code, NvnShaderCode)
    nvn = NvnCode.from_bytes(code.data)
    sph = nvn.sph
    # CommonWord0 0x02060461: type 1 (VTG), version 3, shader type 1 (vertex), SASS version 3
    assert (sph.sph_type, sph.version, sph.shader_type, sph.sass_version) == (1, 3, 1, 3)
    assert sph.reserved_word0_25 == 1 and sph.kills_pixels == 0
    assert isinstance(sph.maps, VtgMaps)
    assert nvn.to_bytes() == code.data
    control = ControlSectionHeader.from_bytes(code.control)
    assert (control.magic, control.major_version, control.minor_version) == (0x98761234, 1, 0xF)
    assert (control.arch, control.impl) == (0x120, 0xB)
    assert (control.program_size, control.shader_size, control.program_offset) == (0x410, 0x500, 0x30)
    assert control.program_reg_num == 18

    texture = Bnsh.from_bytes(_nx(TEXTURE))
    pixel = texture.stage_code(0, "pixel")
    assert isinstance(pixel, NvnShaderCode)
    ps = ShaderProgramHeader.from_bytes(pixel.data[0x30:0x80])
    # CommonWord0 0x00069462: type 2 (PS), shader type 5, kills pixels, no MRT
    assert (ps.sph_type, ps.shader_type, ps.kills_pixels, ps.mrt_enable) == (2, 5, 1, 0)
    assert isinstance(ps.maps, PsMaps) and ps.maps.omap_target == 0xF
    assert ps.maps.output_attributes() == ["0.xyzw"]
    assert ps.to_bytes() == pixel.data[0x30:0x80]


def test_raw_nvn_blob() -> None:
    data = _nx(BLOB)
    spec = detect(data)
    assert spec is not None and spec.name == "nvn"
    model = NvnProgramFile.from_bytes(data)
    assert model.offsets == [0x10, 0xD60, 0x1700, 0x1B00]
    assert model.to_bytes() == data
    kinds = [row["kind"] for row in model.summary()["parts"]]
    assert kinds == ["control", "control", "code", "code"]
    assert model.summary()["parts"][2]["sph"]["shader_type"] == "vertex"
    assert model.summary()["parts"][3]["sph"]["shader_type"] == "pixel"


def test_bnsh_is_not_taken_for_a_raw_nvn_blob() -> None:
    for name in (LGPE, TEXTURE, TEST):
        spec = detect(_nx(name))
        assert spec is not None and spec.name == "bnsh"


def test_cli_verify_info_extract_replace(tmp_path: Path) -> None:
    files = [str(p) for p in corpus_files("nx", "*.bnsh*")]
    if len(files) != 3:
        pytest.skip("the three corpus BNSH files are needed")
    runner = CliRunner()
    result = runner.invoke(cli, ["verify", *files])
    assert result.exit_code == 0 and result.output.strip() == "3 passed, 0 failed"
    texture = next(f for f in files if f.endswith(TEXTURE))
    result = runner.invoke(cli, ["info", "--json", texture])
    assert result.exit_code == 0
    summary = json.loads(result.output)
    assert summary["version"] == "2.1.2"
    assert [s["stage"] for s in summary["stages"]] == ["vertex", "pixel"]
    assert {(r["table"], r["name"]) for r in summary["reflection"]} == {
        ("inputs", "i_Position"), ("inputs", "i_TexCoord"), ("outputs", "o_Color"),
        ("samplers", "s_Tex"), ("constant_buffers", "u_Modulate")}
    out = tmp_path / "ps.bin"
    result = runner.invoke(cli, ["extract", texture, "--stage", "pixel", "-o", str(out)])
    assert result.exit_code == 0, result.output
    blob = out.read_bytes()
    data = Path(texture).read_bytes()
    control_size, data_size = struct.unpack_from("<II", blob)
    # sizes as the NvnShaderCode at 0x1E0 states them: data 0x300, control 0x7D1
    assert (control_size, data_size) == (0x7D1, 0x300)
    assert blob[8 : 8 + control_size] == data[0xA38 : 0xA38 + 0x7D1]
    assert blob[8 + control_size :] == data[0x2200:0x2500]
    # a longer pixel program: the file is laid out again and the stage reads back identical
    new_data = blob[8 + control_size :] + bytes(0x200)
    new_blob = struct.pack("<II", control_size, len(new_data)) + blob[8 : 8 + control_size] + new_data
    (tmp_path / "new.bin").write_bytes(new_blob)
    result = runner.invoke(cli, ["replace", texture, "--stage", "pixel", "--data", str(tmp_path / "new.bin"),
                                 "-o", str(tmp_path / "out.bnsh")])
    assert result.exit_code == 0, result.output
    rebuilt = Bnsh.from_bytes((tmp_path / "out.bnsh").read_bytes())
    assert rebuilt.extract(0, "pixel") == new_blob
    assert rebuilt.extract(0, "vertex") == Bnsh.from_bytes(data).extract(0, "vertex")
    assert rebuilt.to_bytes() == (tmp_path / "out.bnsh").read_bytes()
    result = runner.invoke(cli, ["extract", texture, "--stage", "compute", "-o", str(out)])
    assert result.exit_code != 0




def test_original_grouping_is_kept_while_the_pointers_are_the_same() -> None:
    data = _nx(LGPE)
    table = RelocationTable.read(Reader(data), 0x30D0)
    # split (0x108: 2 chunks of 1, 19 words skipped) into two single entries: same pointers
    section = table.sections[0]
    assert section.entries[1] == RelocationEntry(0x108, 2, 1, 19)
    section.entries[1:2] = [RelocationEntry(0x108, 1, 1, 0), RelocationEntry(0x1A8, 1, 1, 0)]
    first = 0
    for sec in table.sections:
        sec.first_entry = first
        first += len(sec.entries)
    regrouped = bytearray(data[:0x30D0] + table.pack(0x30D0))
    struct.pack_into("<I", regrouped, 0x1C, len(regrouped))
    model = Bnsh.from_bytes(bytes(regrouped))
    assert model.to_bytes() == bytes(regrouped)
    # laid out anew, the table is grouped as Nintendo's tool groups it
    assert model.relayout() == data

"""deko3d shader modules: fields read as dksh.h names them, exact rebuilds, uam's layout for new
and resized items, bad input, and the CLI verbs. Inputs are built by hand in dksh_build."""

from __future__ import annotations

import dataclasses
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from dksh_build import (
    BRA_SELF_SLOT1,
    CODE_64,
    CODE_128,
    CONSTBUF1,
    FRAG_TABLE_3D1,
    UAM_PADDING,
    compute_module,
    vertex_fragment_module,
)
from dksh_build import header as header_words

import shaderkit
from shaderkit.cli import cli
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dksh.dksh import Dksh
from shaderkit.formats.dksh.model import ComputeParams, FragmentParams, VertexParams


def test_detected_by_magic() -> None:
    spec = shaderkit.detect(vertex_fragment_module())
    assert spec is not None and spec.name == "dksh"


def test_vertex_fragment_fields() -> None:
    model = Dksh.from_bytes(vertex_fragment_module())
    h = model.header
    assert (h.header_sz, h.control_sz, h.code_sz, h.programs_off, h.num_programs) == (24, 0x100, 0x300, 24, 2)
    vert, frag = model.programs
    assert vert.stage == "vertex" and frag.stage == "fragment"
    assert (vert.header.entrypoint, vert.header.num_gprs, vert.code_offset) == (0x30, 8, 0x80)
    assert vert.header.params == VertexParams(0, 0, bytes(28))
    assert vert.code == CODE_64 and vert.constbuf1 == b""
    assert vert.sph is not None and vert.sph.sph_type == 1 and vert.sph.shader_type == 1
    assert vert.sph.store_req_start == 0xFF and vert.sph.version == 3 and vert.sph.sass_version == 3
    assert (frag.header.entrypoint, frag.header.num_gprs, frag.code_offset) == (0x130, 4, 0x180)
    assert (frag.header.constbuf1_off, frag.header.constbuf1_sz, frag.header.per_warp_scratch_sz) == (0x200, 16, 0x20)
    assert frag.code == CODE_64 and frag.constbuf1 == CONSTBUF1
    assert frag.sph is not None and frag.sph.sph_type == 2 and frag.sph.shader_type == 5
    params = frag.header.params
    assert isinstance(params, FragmentParams)
    assert (params.has_table_3d1, params.early_fragment_tests, params.post_depth_coverage,
            params.persample_invocation) == (1, 1, 0, 1)
    assert params.table_3d1 == list(FRAG_TABLE_3D1)
    assert (params.param_d8, params.param_65b, params.param_489) == (0x087F6080, 0x11, 0)


def test_compute_fields() -> None:
    model = Dksh.from_bytes(compute_module())
    (comp,) = model.programs
    assert comp.stage == "compute" and comp.sph is None
    assert (comp.header.entrypoint, comp.code_offset, comp.header.num_gprs) == (0, 0, 4)
    assert comp.header.per_warp_scratch_sz == 0x10 * 32 + 0x800
    assert comp.header.params == ComputeParams([8, 8, 1], 0x100, 0x10, 0, 0x800, 1, bytes(4))
    assert comp.code == CODE_128


@pytest.mark.parametrize("build", [vertex_fragment_module, compute_module])
def test_rebuild_exact_and_fresh_layout_is_uams(build) -> None:
    data = build()
    model = Dksh.from_bytes(data)
    assert model.to_bytes() == data
    # without the recorded layouts, every item goes where uam puts it: the same bytes again
    assert dataclasses.replace(model, control_layout=None, code_layout=None).to_bytes() == data


def test_unknown_bytes_kept() -> None:
    data = bytearray(vertex_fragment_module())
    data[0x100 + 0x0F8 : 0x100 + 0x100] = b"\x5a" * 8  # after the vertex code, before the next block
    data[0xF0:0xF4] = b"\x11\x22\x33\x44"  # control section padding
    data[0x24 + 24 : 0x28 + 24] = struct.pack("<I", 7)  # a vertex union byte past alt_num_gprs
    model = Dksh.from_bytes(bytes(data))
    assert model.to_bytes() == bytes(data)
    # the code runs to the block holding the next program, less trailing zero bundles
    assert model.programs[0].code == CODE_64 + bytes(0x20) + bytes(0x18) + b"\x5a" * 8
    assert not model.uam_layout
    model.programs[0].code = CODE_128 + CODE_64  # longer than the 0x80 bytes it had: it moves
    out = model.to_bytes()  # not uam's layout: every other byte stays, the code goes to a fresh block
    assert out[0xF0:0xF4] == b"\x11\x22\x33\x44" and out[0x24 + 24 : 0x28 + 24] == struct.pack("<I", 7)
    assert out[0x100 : 0x100 + 0x30] == UAM_PADDING  # a raw span: kept
    assert out[0x100 + 0x30 : 0x100 + 0x100] == bytes(0xD0)  # the vacated SPH and code, 0x5a bytes too, zeroed
    again = Dksh.from_bytes(out)
    assert again.programs[0].code == CODE_128 + CODE_64 and again.programs[0].header.entrypoint == 0x330
    assert out[0x100 + 0x300 : 0x100 + 0x330] == UAM_PADDING and again.header.code_sz == 0x500
    assert again.programs[1].code == CODE_64 and again.programs[1].header.entrypoint == 0x130


def test_grown_code_in_uams_layout_is_laid_out_again() -> None:
    model = Dksh.from_bytes(vertex_fragment_module())
    assert model.uam_layout
    model.programs[0].code = CODE_128 + CODE_64
    out = model.to_bytes()
    # uam's rule from the start: vertex SPH 0x30, code 0x80..0x140, pad to 0x200; fragment padding
    # 0x200, SPH 0x230, code 0x280..0x2c0, pad to 0x300; constbuf1 0x300..0x310, pad to 0x400
    assert struct.unpack_from("<6I", out, 0)[2:4] == (0x100, 0x400)
    assert struct.unpack_from("<I", out, 24 + 4)[0] == 0x30
    assert struct.unpack_from("<2I", out, 24 + 64 + 4)[0] == 0x230
    assert struct.unpack_from("<2I", out, 24 + 64 + 12) == (0x300, 16)
    code = out[0x100:]
    assert code[0x80:0x140] == CODE_128 + CODE_64 and code[0x140:0x200] == bytes(0xC0)
    assert code[0x200:0x230] == UAM_PADDING and code[0x280:0x2C0] == CODE_64 and code[0x300:0x310] == CONSTBUF1
    again = Dksh.from_bytes(out)
    assert again.programs[0].code == CODE_128 + CODE_64 and again.programs[1].code == CODE_64
    assert again.programs[1].constbuf1 == CONSTBUF1 and again.uam_layout
    assert again.to_bytes() == out


def test_same_size_edit_stays_in_place() -> None:
    model = Dksh.from_bytes(vertex_fragment_module())
    model.programs[1].code = CODE_64[:32] + CODE_64[:32]
    out = model.to_bytes()
    expected = bytearray(vertex_fragment_module())
    expected[0x100 + 0x180 : 0x100 + 0x1C0] = CODE_64[:32] * 2
    assert out == bytes(expected)


def test_shrunk_code_and_grown_constbuf() -> None:
    model = Dksh.from_bytes(vertex_fragment_module())
    model.programs[1].code = CODE_64[32:]
    model.programs[1].constbuf1 = bytes(range(256)) + b"\x01" * 32
    out = model.to_bytes()
    again = Dksh.from_bytes(out)
    frag = again.programs[1]
    assert frag.code == CODE_64[32:]
    assert frag.header.constbuf1_sz == 288 and frag.constbuf1 == bytes(range(256)) + b"\x01" * 32
    assert frag.header.entrypoint % 0x100 == 0x30 and frag.header.constbuf1_off % 0x100 == 0
    assert again.header.code_sz % 0x100 == 0 and again.programs[0].code == CODE_64
    assert again.to_bytes() == out
    # uam's rule, by hand: vertex as before (SPH 0x30, code 0x80..0xc0); fragment padding 0x100, SPH
    # 0x130, code 0x180..0x1a0, pad to 0x200; constbuf1 0x200..0x320, pad to 0x400
    assert (frag.header.entrypoint, frag.code_offset, frag.header.constbuf1_off) == (0x130, 0x180, 0x200)
    assert again.header.code_sz == 0x400 and out[0x100 + 0x180 : 0x100 + 0x1A0] == CODE_64[32:]


def test_new_program_appended() -> None:
    model = Dksh.from_bytes(vertex_fragment_module())
    comp = Dksh.from_bytes(compute_module()).programs[0]
    model.programs.append(comp)
    out = model.to_bytes()
    h = struct.unpack_from("<6I", out, 0)
    assert h[5] == 3 and h[4] == 24  # num_programs; the grown table still fits the control section
    again = Dksh.from_bytes(out)
    assert again.programs[2].header.entrypoint == 0x300 and again.programs[2].code == CODE_128
    assert [p.stage for p in again.programs] == ["vertex", "fragment", "compute"]


# -- bad input ---------------------------------------------------------------------------------

def _patched(offset: int, value: int) -> bytes:
    data = bytearray(vertex_fragment_module())
    struct.pack_into("<I", data, offset, value)
    return bytes(data)


@pytest.mark.parametrize("size", [0, 3, 4, 23, 24, 100, 0xFF, 0x100, 0x2FF, 0x3FF])
def test_truncated(size: int) -> None:
    with pytest.raises(ShaderFormatError):
        Dksh.from_bytes(vertex_fragment_module()[:size])


@pytest.mark.parametrize("offset, value, words", [
    (0, 0x12345678, "magic"),
    (4, 0, "version word"),  # uam's unreleased first layout
    (8, 0x10000, "control_sz"),
    (12, 0xFFFFFF00, "code section"),
    (16, 0xF0, "program table"),
    (20, 0xFFFFFFFF, "num_programs"),
    (20, 4, "program table"),
    (24 + 4, 0x2F0, "entrypoint"),
    (24 + 64 + 4, 0xFFFFFFF0, "entrypoint"),
    (24 + 64 + 12, 0x2F8, "constbuf1"),
    (24 + 64 + 16, 0xFFFFFFFF, "constbuf1"),
])
def test_bad_fields(offset: int, value: int, words: str) -> None:
    with pytest.raises(ShaderFormatError) as info:
        Dksh.from_bytes(_patched(offset, value))
    assert words in str(info.value) and info.value.offset is not None


def test_every_word_mutant_raises_only_format_errors() -> None:
    data = vertex_fragment_module()
    for at in range(0, 0x100 + 24, 4):
        for value in (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x100):
            mutant = bytearray(data)
            struct.pack_into("<I", mutant, at, value)
            try:
                model = Dksh.from_bytes(bytes(mutant))
            except ShaderFormatError:
                continue
            assert model.to_bytes() == bytes(mutant)


# -- CLI ---------------------------------------------------------------------------------------

def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_cli_info_verify_rebuild(tmp_path: Path) -> None:
    path = _write(tmp_path, "vf.dksh", vertex_fragment_module())
    runner = CliRunner()
    result = runner.invoke(cli, ["info", "--json", str(path)])
    assert result.exit_code == 0 and '"format": "dksh"' in result.output and '"num_programs": 2' in result.output
    assert runner.invoke(cli, ["verify", str(path)]).exit_code == 0
    out = tmp_path / "out.dksh"
    assert runner.invoke(cli, ["rebuild", str(path), "-o", str(out)]).exit_code == 0
    assert out.read_bytes() == path.read_bytes()
    bad = _write(tmp_path, "bad.dksh", vertex_fragment_module()[:0x180])
    run = subprocess.run([sys.executable, "-m", "shaderkit", "info", str(bad)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and "code section" in run.stderr and "Traceback" not in run.stderr


def test_cli_disasm(tmp_path: Path) -> None:
    path = _write(tmp_path, "vf.dksh", vertex_fragment_module())
    result = CliRunner().invoke(cli, ["disasm", str(path)])
    assert result.exit_code == 0
    text = result.output
    assert "// ==== program 0 vertex" in text and "// ==== program 1 fragment" in text
    assert "// SPH: VTG, vertex shader" in text and "// SPH: PS, pixel shader" in text
    assert text.count("EXIT;") == 2 and text.count("BRA ") == 2


@pytest.mark.parametrize("build, stage", [(vertex_fragment_module, "frag"), (vertex_fragment_module, "vertex"),
                                          (compute_module, "pixel"), (compute_module, "comp")])
def test_cli_asm_base_round_trip(tmp_path: Path, build, stage: str) -> None:
    path = _write(tmp_path, "in.dksh", build())
    runner = CliRunner()
    listing = tmp_path / "in.txt"
    assert runner.invoke(cli, ["disasm", str(path), "-o", str(listing)]).exit_code == 0
    out = tmp_path / "out.dksh"
    result = runner.invoke(cli, ["asm", "--base", str(path), "--stage", stage, str(listing), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == path.read_bytes()


def test_cli_asm_base_resizes(tmp_path: Path) -> None:
    path = _write(tmp_path, "vf.dksh", vertex_fragment_module())
    runner = CliRunner()
    text = runner.invoke(cli, ["disasm", str(path)]).output
    head, _, frag = text.partition("// ==== program 1 fragment")
    # one more bundle of NOPs before the fragment program's code
    lines = frag.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("/*"))
    lines[first:first] = ["[B------:R-:W-:-:S01] NOP 0x0;"] * 3
    src = _write(tmp_path, "edit.txt", (head + "// ==== program 1 fragment" + "\n".join(lines) + "\n").encode())
    out = tmp_path / "out.dksh"
    result = runner.invoke(cli, ["asm", "--base", str(path), "--stage", "fragment", str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    model = Dksh.from_bytes(out.read_bytes())
    assert len(model.programs[1].code) == len(CODE_64) + 32
    # the program as it was after the new bundle, except the "BRA 0x20" (an absolute target in the
    # text) whose relative offset now counts from 0x20 further on
    code = model.programs[1].code
    assert code[32:72] == CODE_64[:40] and code[80:] == CODE_64[48:]
    assert struct.unpack_from("<Q", code, 72)[0] == BRA_SELF_SLOT1 - (0x20 << 20)
    assert struct.unpack_from("<3Q", model.programs[1].code, 8) == (0x50B0000000070F00,) * 3  # NOP x3
    assert model.programs[0].code == CODE_64 and model.programs[1].constbuf1 == CONSTBUF1


def test_cli_asm_base_bad_stage(tmp_path: Path) -> None:
    path = _write(tmp_path, "vf.dksh", vertex_fragment_module())
    listing = _write(tmp_path, "x.txt", b"EXIT;\n")
    out = tmp_path / "out.dksh"
    result = CliRunner().invoke(cli, ["asm", "--base", str(path), "--stage", "geometry", str(listing), "-o", str(out)])
    assert result.exit_code == 2 and "geometry" in result.output


def test_sections_of_other_sizes_stay_as_stored() -> None:
    # no programs and a 0x30-byte code section (not a multiple of 256): the driver's debug build
    # would refuse it, the reader keeps it as it is
    data = header_words(0x100, 0x30, 0) + bytes(0x100 - 24) + b"\x01" * 0x30
    model = Dksh.from_bytes(data)
    assert model.programs == [] and model.to_bytes() == data


def test_cli_offsets_cfg_relayout(tmp_path: Path) -> None:
    data = bytearray(vertex_fragment_module())
    data[0xF0] = 0x77  # a byte of control padding: kept by rebuild, dropped by --relayout
    path = _write(tmp_path, "vf.dksh", bytes(data))
    runner = CliRunner()
    shown = runner.invoke(cli, ["disasm", "--offsets", "--raw", str(path)])
    assert shown.exit_code == 0 and "e3000000 0007000f" not in shown.output  # low half first, as envydis
    assert "0007000f e3000000" in shown.output  # EXIT's two halves beside it
    graph = runner.invoke(cli, ["cfg", str(path)])
    assert graph.exit_code == 0 and graph.output.count("EXIT") == 2 and "program 1 fragment" in graph.output
    out = tmp_path / "re.dksh"
    assert runner.invoke(cli, ["rebuild", "--relayout", str(path), "-o", str(out)]).exit_code == 0
    assert out.read_bytes() == vertex_fragment_module()


def test_compute_entrypoint_at_the_section_end() -> None:
    # found by mutation: a compute program whose entrypoint is code_sz has no code (not an error)
    data = bytearray(compute_module())
    struct.pack_into("<I", data, 24 + 4, 0x100)
    model = Dksh.from_bytes(bytes(data))
    assert model.programs[0].code == b"" and model.to_bytes() == bytes(data)


def _edited_listing(text: str, title: str) -> str:
    """``text`` with three NOP bundles' worth of NOPs in front of the code of section ``title``."""
    head, _, rest = text.partition(title)
    section, sep, tail = rest.partition("// ==== ")
    lines = section.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("/*"))
    lines[first:first] = ["[B------:R-:W-:-:S01] NOP 0x0;"] * 3
    return head + title + "\n".join(lines) + "\n" + sep + tail


@pytest.mark.parametrize("options, title, edited", [
    (["--stage", "vertex"], "// ==== program 0 vertex", 0),
    (["--stage", "vert"], "// ==== program 0 vertex", 0),
    (["--variation", "1"], "// ==== program 1 fragment", 1),
])
def test_cli_asm_base_replaces_the_chosen_program_only(tmp_path: Path, options: list[str], title: str,
                                                       edited: int) -> None:
    path = _write(tmp_path, "vf.dksh", vertex_fragment_module())
    runner = CliRunner()
    text = runner.invoke(cli, ["disasm", str(path)]).output
    src = _write(tmp_path, "edit.txt", _edited_listing(text, title).encode())
    out = tmp_path / "out.dksh"
    result = runner.invoke(cli, ["asm", "--base", str(path), *options, str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    before, after = Dksh.from_bytes(path.read_bytes()), Dksh.from_bytes(out.read_bytes())
    for index in (0, 1):
        grown = len(after.programs[index].code) - len(before.programs[index].code)
        assert grown == (32 if index == edited else 0), (index, grown)
    assert after.programs[1 - edited].code == before.programs[1 - edited].code


@pytest.mark.parametrize("build", [vertex_fragment_module, compute_module])
def test_info_json_validates_against_the_dksh_schema(build) -> None:
    import json

    jsonschema = pytest.importorskip("jsonschema")
    from shaderkit.cli.info import info_record
    from shaderkit.schemas import schema_for

    data = build()
    record = json.loads(json.dumps(info_record(data, Dksh.from_bytes(data))))
    schema = schema_for(record)
    assert schema["title"] != schema_for({})["title"]  # the DKSH schema, not the generic one
    assert not [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(record)]
    record["programs"][0]["num_gprs"] = "4"  # the schema can fail
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(record))


@pytest.mark.parametrize("build", [vertex_fragment_module, compute_module])
def test_disassemble_lists_every_program_as_text_that_assembles_back(build) -> None:  # type: ignore[no-untyped-def]
    from shaderkit.formats.bnsh.text import listing_sections
    from shaderkit.isa.maxwell import assemble

    data = build()
    sections = listing_sections(Dksh.from_bytes(data).disassemble())
    assert sections and all(title.startswith("program ") for title in sections)
    for body in sections.values():
        code = assemble(body)
        assert code and code in data  # each program's code, as the module stores it

"""``shaderkit disasm`` on GSH and SHARCFB: a header per program, and text that assembles back."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_params, run_cli
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.formats.gx2.programs import split_programs
from shaderkit.isa.latte import assemble, disassemble


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


def _programs(path: Path) -> list[bytes]:
    data = path.read_bytes()
    if path.suffix == ".sharcfb":
        return [b.shader.program for b in Sharcfb.from_bytes(data).binaries]
    out = []
    for shader in Gsh.from_bytes(data).shaders:
        out.append(shader.program)
        if shader.vertex_program:
            out.append(shader.vertex_program)
    return out


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.gsh") + corpus_params("wiiu", "*.sharcfb"))
def test_disasm_every_program_assembles_back(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, err = run(capsys, "disasm", str(path))
    assert code == 0, err
    programs = _programs(path)
    texts = split_programs(out)
    assert len(texts) == len(programs)
    for text, program in zip(texts, programs):
        if program:
            assert assemble(text) == program


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_disasm_header_fields(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    # values from the hex dump (see tests/wiiu/test_wiiu_corpus.py): sq_pgm_resources_vs 0x103,
    # attribs v_inPos/v_inTexCoord, samplers texture0/texture1
    code, out, _ = run(capsys, "disasm", str(path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "; ==== shaders[0]: vertex shader ===="
    assert "; mode                           = UNIFORM_REGISTER" in lines
    assert "; SQ_PGM_RESOURCES_VS = 0x00000103" in lines
    assert ";   NUM_GPRS                       = 3" in lines
    assert "; attribVars[0] name=v_inPos type=float3 count=0 location=0" in lines
    assert "; samplerVars[1] name=texture1 type=sampler2D location=1" in lines
    assert "00 CALL_FS NO_BARRIER" in lines


def test_disasm_bad_gsh_is_one_line_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.gsh"
    path.write_bytes(b"Gfx2" + b"\0" * 12)
    code, out, err = run(capsys, "disasm", str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharcfb") + corpus_params("wiiu", "rio_0*.gsh"))
def test_listing_applied_back_gives_identical_file(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    from shaderkit.cli.common import load_model
    from shaderkit.formats.gx2.programs import apply_listing

    data = path.read_bytes()
    code, out, _ = run(capsys, "disasm", str(path))
    assert code == 0
    model = load_model(str(path))
    assert apply_listing(model, out) == 0
    assert model.to_bytes() == data
    # an edit: every literal 1.0 becomes 2.0 (the text wins over the LITERALS notes)
    edited = out.replace("(0x3F800000, 1)", "(0x40000000, 2)")
    if edited != out:
        assert apply_listing(model, edited) >= 1
        assert model.to_bytes() != data
        again = Gsh.from_bytes(model.to_bytes()) if path.suffix == ".gsh" else Sharcfb.from_bytes(model.to_bytes())
        assert "(0x3F800000, 1)" not in "".join(
            disassemble(s.program) for s in (again.shaders if isinstance(again, Gsh) else
                                             [b.shader for b in again.binaries]))


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh") + corpus_params("wiiu", "sc_obj_coin.sharcfb"))
def test_extract_and_replace_program(path: Path) -> None:
    from shaderkit.cli.common import load_model
    from shaderkit.formats.gx2.programs import extract_program, replace_program

    data = path.read_bytes()
    model = load_model(str(path))
    pixel = extract_program(model, 0, "pixel")
    assert pixel is not None and pixel == _programs(path)[1]
    with pytest.raises(IndexError):
        extract_program(model, 5, "pixel")
    # the same code back gives the same file; longer code gives a file holding that code
    assert replace_program(load_model(str(path)), 0, "pixel", pixel) == data
    longer = pixel + bytes(64)
    new = replace_program(load_model(str(path)), 0, "pixel", longer)
    assert new is not None and _programs_of(new, path.suffix)[1] == longer
    assert extract_program(object(), 0, "pixel") is None


def _programs_of(data: bytes, suffix: str) -> list[bytes]:
    if suffix == ".sharcfb":
        return [b.shader.program for b in Sharcfb.from_bytes(data).binaries]
    return [s.program for s in Gsh.from_bytes(data).shaders]

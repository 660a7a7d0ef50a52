"""``disasm --hex``: literals as their bits in hex, read back to the same bits by ``asm``.

Oracles: the original file bytes (round trips), envydis's listings (it prints the 32-bit float
immediates of ``*32I`` instructions as raw hex), and values worked out by hand (1.0f = 0x3f800000).
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from conftest import corpus_files, run_cli

DXBC = corpus_files("dxbc", "*.dxbc")


def test_dxbc_immediates_print_as_bits(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # fxc prints this line as `mov o0.zw, l(0,0,0,1.000000)`; 1.0f is 0x3f800000, 0 is 0x00000000
    path = corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.dxbc"
    assert "mov o0.zw, l(0,0,0,1.000000)" in (corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.fxc.asm").read_text()
    code, out, err = run_cli(capsys, "disasm", "--hex", str(path))
    assert code == 0, err
    assert "mov o0.zw, l(0x00000000, 0x00000000, 0x00000000, 0x3f800000)" in out.splitlines()


def test_dxbc_hex_values_match_fxc_listing(corpus: Path) -> None:
    """Every float literal fxc printed (six decimals) is within rounding of the bits --hex prints."""
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.disasm import listing

    checked = 0
    for path in DXBC[:60]:
        fxc = (path.with_suffix(".fxc.asm")).read_text(errors="replace").splitlines()
        model = DxbcContainer.from_bytes(path.read_bytes())
        ours = listing(model, hex_literals=True).splitlines()
        fxc_lines = [line for line in fxc if re.match(r"^\s*mov \S+, l\([-0-9.,]+\)$", line)]
        hex_lines = [line for line in ours if re.match(r"^\s*mov \S+, l\((0x[0-9a-f]{8}(, )?)+\)$", line)]
        for theirs, mine in zip(fxc_lines, hex_lines):
            if theirs.split(",")[0] != mine.split(",")[0]:
                continue
            values = theirs.split("l(")[1].rstrip(")").split(",")
            words = [int(w, 16) for w in mine.split("l(")[1].rstrip(")").split(", ")]
            for text, word in zip(values, words):
                if "." in text:
                    value = struct.unpack("<f", struct.pack("<I", word))[0]
                    assert abs(value - float(text)) <= 5e-7 * max(1.0, abs(value)), (path.name, theirs, mine)
                else:
                    assert word == int(text) & 0xFFFFFFFF, (path.name, theirs, mine)
                checked += 1
    assert checked > 50


def test_dxbc_exact_hex_text_rebuilds_every_program() -> None:
    """`disasm --exact --hex` text alone assembles to the original code words, corpus-wide."""
    from shaderkit.formats.dxbc.assemble import exact_text_problems
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.disasm import listing

    if not DXBC:
        pytest.skip("corpus not found")
    failures = []
    for path in DXBC:
        model = DxbcContainer.from_bytes(path.read_bytes())
        if model.shader is None and not model.functions and model.effect is None:
            continue
        problems = exact_text_problems(model, listing(model, exact=True, hex_literals=True))
        if problems:
            failures.append(f"{path.name}: {problems[0]}")
    assert not failures, "\n".join(failures[:10])


def _with_literals(paths: list[Path], count: int) -> list[Path]:
    """The first ``count`` files whose fxc listing has an immediate (``l(``) or an ICB."""
    found = [p for p in paths if re.search(r"l\(|dcl_immediateConstantBuffer", p.with_suffix(".fxc.asm").read_text(errors="replace"))]
    return found[:count]


def test_dxbc_hex_listing_with_base_rebuilds_every_file() -> None:
    """`disasm --hex` text assembled onto the original file gives the original bytes, corpus-wide."""
    from shaderkit.formats.dxbc.assemble import assemble_with_base
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.disasm import listing

    if not DXBC:
        pytest.skip("corpus not found")
    failures = []
    for path in _with_literals(DXBC, len(DXBC)):
        data = path.read_bytes()
        model = DxbcContainer.from_bytes(data)
        if model.shader is None and not model.functions and model.effect is None:
            continue
        text = listing(model, hex_literals=True)
        assert "0x" in text, path.name
        rebuilt = assemble_with_base(text, DxbcContainer.from_bytes(data))
        if rebuilt.to_bytes() != data:
            failures.append(path.name)
    assert not failures, failures[:10]


@pytest.mark.parametrize("path", _with_literals(DXBC, 6), ids=lambda p: p.name)
def test_dxbc_hex_listing_asm_base_gives_identical_bytes(path: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "shader.asm"
    out_file = tmp_path / "out.dxbc"
    code, out, err = run_cli(capsys, "disasm", "--hex", str(path), "-o", str(text))
    assert code == 0, err
    assert "0x" in text.read_text()
    code, out, err = run_cli(capsys, "asm", str(text), "--base", str(path), "-o", str(out_file))
    assert code == 0, err
    assert out_file.read_bytes() == path.read_bytes()


def test_dxbc_edited_hex_literal_is_taken_bit_for_bit(corpus: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A hex literal edited to a value fxc's six decimals cannot show still lands exactly."""
    from shaderkit.formats.dxbc.container import DxbcContainer

    path = corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.dxbc"
    text = tmp_path / "edit.asm"
    run_cli(capsys, "disasm", "--hex", str(path), "-o", str(text))
    line = "mov o0.zw, l(0x00000000, 0x00000000, 0x00000000, 0x3f800000)"
    assert line in text.read_text()
    text.write_text(text.read_text().replace(line, line.replace("0x3f800000)", "0x3f800001)")))
    out_file = tmp_path / "out.dxbc"
    code, _, err = run_cli(capsys, "asm", str(text), "--base", str(path), "-o", str(out_file))
    assert code == 0, err
    old = list(DxbcContainer.from_bytes(path.read_bytes()).shader.tokens)  # type: ignore[union-attr]
    new = list(DxbcContainer.from_bytes(out_file.read_bytes()).shader.tokens)  # type: ignore[union-attr]
    changed = [(a, b) for a, b in zip(old, new) if a != b]
    assert len(old) == len(new) and changed == [(0x3F800000, 0x3F800001)]


MAXWELL_LISTINGS = corpus_files("nx/maxwell", "*.maxwell.txt")


def _envydis_32i(listing: Path) -> list[int]:
    """The raw 32-bit immediates envydis prints for fadd32i/fmul32i/ffma32i (the last hex field)."""
    values = []
    for line in listing.read_text().splitlines():
        m = re.search(r"\s(fadd32i|fmul32i|ffma32i)\s.*\s(0x[0-9a-f]+)\s*$", line)
        if m:
            values.append(int(m.group(2), 16))
    return values


def test_maxwell_hex_float_immediates_match_envydis(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    listing = corpus / "nx" / "maxwell" / "hakkun_imgui_data_68023e1.bin.part2.pixel.maxwell.txt"
    expected = _envydis_32i(listing)
    assert expected  # fadd32i 0x3d6147ae ... in this stage
    code, out, err = run_cli(capsys, "disasm", "--hex", str(corpus / "nx" / "hakkun_imgui_data_68023e1.bin"))
    assert code == 0, err
    part = out.split("// ==== part 2")[1].split("// ==== ")[0]
    ours = [int(m.group(1), 16) for m in re.finditer(r"F(?:ADD|MUL|FMA)32I\S* .*, (0x[0-9a-f]+);", part)]
    assert ours == expected


SWITCH = [p.name for p in corpus_files("nx", "*.bnsh*") + corpus_files("nx", "*.bin")]


@pytest.mark.parametrize("name", SWITCH)
def test_maxwell_hex_listing_assembles_to_the_same_code(corpus: Path, name: str) -> None:
    import shaderkit
    from shaderkit.formats.bnsh.nvn import NvnCode
    from shaderkit.formats.bnsh.text import maxwell_listing
    from shaderkit.isa.maxwell import assemble

    model = shaderkit.open(corpus / "nx" / name)
    text = maxwell_listing(model, hex_literals=True)
    assert text is not None
    sections = [s for s in text.split("// ==== ")[1:] if "maxwell code" in s]
    blobs = _stage_blobs(model)
    assert sections and len(sections) == len(blobs)
    for section, blob in zip(sections, blobs):
        body = "\n".join(line for line in section.splitlines()[1:] if not line.startswith("//"))
        assert assemble(body) == NvnCode.from_bytes(blob).code


def _stage_blobs(model: object) -> list[bytes]:
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import NvnShaderCode
    from shaderkit.formats.bnsh.nvn import NVN_MAGIC, NvnProgramFile

    if isinstance(model, Bnsh):
        return [code.data for variation in model.variations for _, program in variation.programs()
                for code in program.stages if isinstance(code, NvnShaderCode)]
    assert isinstance(model, NvnProgramFile)
    return [part for part in model.parts if part[:4] == NVN_MAGIC.to_bytes(4, "little")]


def test_hex_on_pica_is_one_line_error(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "disasm", "--hex", str(corpus / "pica" / "Re-Craft-3DS__gui__3c078380.shbin"))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--hex" in err


def test_dxbc_hex_with_offsets_annotates_literal_lines(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.dxbc"
    _, plain, _ = run_cli(capsys, "disasm", "--hex", str(path))
    code, shown, err = run_cli(capsys, "disasm", "--hex", "--offsets", str(path))
    assert code == 0, err
    line = next(line for line in shown.splitlines() if line.endswith("l(0x00000000, 0x00000000, 0x00000000, 0x3f800000)"))
    assert line.startswith("/*") and line[2:6] != "    "  # the literal's line has its offset
    assert [row[9:] for row in shown.splitlines()] == plain.splitlines()

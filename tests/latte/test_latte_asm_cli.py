"""``shaderkit asm`` on decaf latte-assembler sources: syntax detection and the GSH written.

Oracle: the GSH files the corpus sources were committed with (wiiu/latte_src/MANIFEST.tsv).
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest

from conftest import corpus_files, corpus_root, run_cli
from shaderkit.cli import main
from shaderkit.cli.latte_asm import looks_like_latte, source_stage
from shaderkit.formats.gfd.gsh import Gsh

FIELDS = ("mode", "regs", "uniform_blocks", "uniform_vars", "initial_values", "loop_vars", "sampler_vars",
          "attrib_vars", "ring_item_size", "has_stream_out", "stream_out_stride", "program")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code, _out, err = run_cli(capsys, *argv)
    return code, err


def _pairs() -> list:
    root = corpus_root()
    manifest = root / "wiiu" / "latte_src" / "MANIFEST.tsv" if root else None
    if manifest is None or not manifest.exists():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="corpus wiiu/latte_src not found"))]
    by_gsh: dict[str, dict[str, str]] = {}
    for row in csv.DictReader(manifest.open(), delimiter="\t"):
        by_gsh.setdefault(row["gsh"], {})[row["stage"]] = row["file"]
    return [pytest.param(gsh, stages, id=gsh) for gsh, stages in by_gsh.items()]


@pytest.mark.parametrize(("gsh", "stages"), _pairs())
def test_asm_sources_give_the_committed_gsh_values(capsys: pytest.CaptureFixture[str], tmp_path: Path, gsh: str,
                                                   stages: dict[str, str]) -> None:
    root = corpus_root()
    assert root is not None
    src = root / "wiiu" / "latte_src"
    out = tmp_path / "out.gsh"
    names = [str(src / stages[s]) for s in ("pixel", "vertex") if s in stages]  # order does not matter
    code, err = run(capsys, "asm", *names, "-o", str(out))
    assert code == 0, err
    committed_bytes = (root / "wiiu" / gsh).read_bytes()
    built, committed = Gsh.from_bytes(out.read_bytes()), Gsh.from_bytes(committed_bytes)
    if committed.header.align_mode == 0:  # decaf's writer without its alignment option: the very file
        assert out.read_bytes() == committed_bytes
    else:  # with it (padding blocks before the programs): the library's align option
        from shaderkit.formats.gfd.latte_build import build_gsh
        from shaderkit.isa.latte.source import assemble_source

        sources = {s: assemble_source((src / name).read_text()) for s, name in stages.items()}
        assert build_gsh(sources.get("vertex"), sources.get("pixel"), align=True).to_bytes() == committed_bytes
    assert [type(s) for s in built.shaders] == [type(s) for s in committed.shaders]
    for ours, theirs in zip(built.shaders, committed.shaders):
        for name in FIELDS:
            assert getattr(ours, name) == getattr(theirs, name), name


def test_detection_on_the_corpus() -> None:
    pica = corpus_files("pica", "*.pica")
    latte = corpus_files("wiiu/latte_src", "*.?sh") + corpus_files("wiiu/latte", "*.latte.txt")
    if not pica or not latte:
        pytest.skip("corpus not found")
    assert [p.name for p in pica if looks_like_latte(p.read_text(errors="replace"))] == []
    assert [p.name for p in latte if not looks_like_latte(p.read_text())] == []
    assert len(latte) == 20 - 2 + 98


HAND = "; $MODE = \"UniformRegister\"\n00 EXP_DONE: PIX0, R0\nEND_OF_PROGRAM\n"


def test_stage_from_name_or_code() -> None:
    assert source_stage("a.vsh", HAND) == "vertex"
    assert source_stage("a.txt", HAND) == "pixel"
    assert source_stage("a.txt", "00 CALL_FS NO_BARRIER\n01 EXP_DONE: POS0, R1\nEND_OF_PROGRAM\n") == "vertex"
    with pytest.raises(ValueError, match="vertex from a pixel"):
        source_stage("a.txt", "00 NOP\nEND_OF_PROGRAM\n")


def test_syntax_option_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "hand.psh"
    source.write_text(HAND)
    code, err = run(capsys, "asm", str(source))
    assert code == 0, err
    gsh = Gsh.from_bytes((tmp_path / "hand.gsh").read_bytes())
    assert [s.STAGE for s in gsh.shaders] == ["pixel"]
    # EXP_DONE PIX0 R0.xyzw, END_OF_PROGRAM set (words worked out from the R700 CF_ALLOC_EXPORT layout)
    assert gsh.shaders[0].program[:8] == (0).to_bytes(4, "little") + (
        0x28 << 23 | 1 << 21 | 1 << 31 | 0 | 1 << 3 | 2 << 6 | 3 << 9).to_bytes(4, "little")
    code, err = run(capsys, "asm", "--syntax", "pica", str(source), "-o", str(tmp_path / "x.shbin"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(HAND.encode())))
    code, err = run(capsys, "asm", "--syntax", "latte", "-", "-o", str(tmp_path / "stdin.gsh"))
    assert code == 0, err
    assert (tmp_path / "stdin.gsh").read_bytes() == (tmp_path / "hand.gsh").read_bytes()
    bad = tmp_path / "bad.vsh"
    bad.write_text("; $MODE = \"UniformRegister\"\n00 CALL_FS NO_BARRIER\n01 BOGUS_OP\nEND_OF_PROGRAM\n")
    code, err = run(capsys, "asm", str(bad), "-o", str(tmp_path / "bad.gsh"))
    assert code == 2 and err.startswith("shaderkit: ") and "bad.vsh:3:" in err
    code, err = run(capsys, "asm", str(source), str(source), "-o", str(tmp_path / "two.gsh"))
    assert code == 2 and "a second pixel shader" in err


def test_disasm_listing_back_into_its_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha

    for path in (root / "wiiu" / "sc_obj_coin.sharcfb", root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha"):
        listing = tmp_path / "listing.txt"
        main(["disasm", str(path), "-o", str(listing)])
        code, err = run(capsys, "asm", str(listing), "--base", str(path), "-o", str(tmp_path / "same"))
        assert code == 0, err
        assert (tmp_path / "same").read_bytes() == path.read_bytes()
        code, err = run(capsys, "asm", str(listing), "-o", str(tmp_path / "x.gsh"))
        assert code == 2 and "use --base" not in err and "with --base FILE" in err
    # an edit: the first program's literal 1.0 becomes 2.0; only that program changes
    text = listing.read_text()
    first, rest = text.split("; ==== shaders[1]:", 1)
    listing.write_text(first.replace("(0x3F800000, 1)", "(0x40000000, 2)") + "; ==== shaders[1]:" + rest)
    code, err = run(capsys, "asm", str(listing), "--base", str(path), "-o", str(tmp_path / "edited"))
    assert code == 0, err
    before, after = WiiUBfsha.from_bytes(path.read_bytes()), WiiUBfsha.from_bytes((tmp_path / "edited").read_bytes())
    assert [i for i, (a, b) in enumerate(zip(before.shaders, after.shaders)) if a.program != b.program] == [0]
    # a bad line in the second program: the error names its line in the whole listing
    bad = text.splitlines()
    title = next(n for n, line in enumerate(bad) if line.startswith("; ==== shaders[1]:"))
    bad.insert(title + 3, "  99 x: BOGUS R0.x")
    listing.write_text("\n".join(bad) + "\n")
    code, err = run(capsys, "asm", str(listing), "--base", str(path), "-o", str(tmp_path / "bad"))
    assert code == 2 and err.startswith(f"shaderkit: {listing}:{title + 4}:"), err


@pytest.mark.parametrize(("line", "message"), [
    ("; $UNIFORM_VARS[0].offset = 4294967296", "does not fit in 32 bits"),  # fuzzing found a struct.error
    ("; $NUM_SPI_PS_INPUT_CNTL = -2147483649", "does not fit in 32 bits"),
    ("; $INITIAL_VALUES[0].VALUE[1] = abc", "expected a float"),
    ("; $SPI_PS_INPUT_CNTL[0-].SEMANTIC = 1", "bad metadata key"),
    ("; $SPI_PS_INPUT_CNTL.DEFAULT_VAL = 1", "needs an index"),  # text fuzzing: a TypeError
    ("; $SQ_PGM_RESOURCES_PS[0].NUM_GPRS = 1", "takes no index"),
])
def test_bad_metadata_value_is_an_error_at_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    line: str, message: str) -> None:
    source = tmp_path / "meta.psh"
    source.write_text(HAND.replace("\n", "\n" + line + "\n", 1))
    code, err = run(capsys, "asm", str(source), "-o", str(tmp_path / "meta.gsh"))
    column = line.index("=") + 3  # the value, 1-based
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"meta.psh:2:{column}: " in err and message in err, err


def test_negative_metadata_values_are_twos_complement(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A negative count is written as its 32-bit two's complement (fuzzing found a struct.error);
    a uniform's block stays -1 (no block), as the parser reads it back."""
    source = tmp_path / "neg.psh"
    source.write_text(HAND.replace("\n", "\n; $NUM_SPI_PS_INPUT_CNTL = -1\n; $UNIFORM_VARS[0].name = \"u\"\n"
                                   "; $UNIFORM_VARS[0].count = -2\n", 1))
    code, err = run(capsys, "asm", str(source), "-o", str(tmp_path / "neg.gsh"))
    assert code == 0, err
    shader = Gsh.from_bytes((tmp_path / "neg.gsh").read_bytes()).shaders[0]
    assert shader.regs.num_spi_ps_input_cntl == 0xFFFFFFFF
    assert shader.uniform_vars[0].count == 0xFFFFFFFE and shader.uniform_vars[0].block == -1


def test_listing_literal_past_32_bits_is_an_error_at_its_line(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    """A literal (0x..., value) wider than 32 bits in an edited listing: AssemblyError at its line
    (text fuzzing found a struct.error)."""
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    path = root / "wiiu" / "sc_obj_coin.sharcfb"
    listing = tmp_path / "listing.txt"
    main(["disasm", str(path), "-o", str(listing)])
    lines = listing.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "(0x3F800000, 1)" in line)
    lines[at] = lines[at].replace("(0x3F800000, 1)", "(0x13F800000, 1)")
    listing.write_text("\n".join(lines) + "\n")
    code, err = run(capsys, "asm", str(listing), "--base", str(path), "-o", str(tmp_path / "out"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"listing.txt:{at + 1}:" in err and "0x13f800000 does not fit 32 bits" in err, err


def test_asm_base_reads_its_listing_from_standard_input_once(tmp_path: Path) -> None:
    # `disasm x.sharcfb | asm - --base x.sharcfb`: the listing comes from stdin, which asm read
    # once and then a second time for the Wii U base (an empty listing, "0 programs")
    from click.testing import CliRunner

    from shaderkit.cli import cli
    from shaderkit.samples import SAMPLES

    base = tmp_path / "sample.sharcfb"
    base.write_bytes(SAMPLES["sample.sharcfb"]())
    listing = CliRunner().invoke(cli, ["disasm", str(base)]).output
    result = CliRunner().invoke(cli, ["asm", "-", "--base", str(base), "-o", str(tmp_path / "out")], input=listing)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out").read_bytes() == base.read_bytes()


@pytest.mark.parametrize("base_name", ["sample.sharcfb", "sample.bnsh"])
def test_asm_base_with_text_not_utf8_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      base_name: str) -> None:
    # a Latin-1 comment: one clear line and exit 2 whatever the base (a UnicodeDecodeError traceback)
    from shaderkit.samples import SAMPLES

    base = tmp_path / base_name
    base.write_bytes(SAMPLES[base_name]())
    (tmp_path / "t.txt").write_bytes(b"; caf\xe9\n")
    code, _, err = run_cli(capsys, "asm", str(tmp_path / "t.txt"), "--base", str(base), "-o", str(tmp_path / "o"))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "t.txt: not UTF-8 text" in err  # (the BNSH base's error did not name the file)
    assert not (tmp_path / "o").exists()


def test_asm_header_with_base_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from shaderkit.samples import SAMPLES

    base = tmp_path / "sample.shbin"
    base.write_bytes(SAMPLES["sample.shbin"]())
    (tmp_path / "t.pica").write_text(".proc main\n\tend\n.end\n")
    code, _, err = run_cli(capsys, "asm", str(tmp_path / "t.pica"), "--base", str(base), "-o", str(tmp_path / "o"),
                           "--header", str(tmp_path / "h.h"))
    assert code == 2 and "--header" in err
    assert not (tmp_path / "o").exists() and not (tmp_path / "h.h").exists()


def test_asm_header_for_latte_sources_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """(--header was ignored for decaf Latte sources: a GSH and no header, exit 0)"""
    source = tmp_path / "hand.psh"
    source.write_text(HAND)
    code, _, err = run_cli(capsys, "asm", str(source), "-o", str(tmp_path / "o.gsh"), "--header", str(tmp_path / "h.h"))
    assert code == 2 and "--header" in err
    assert not (tmp_path / "o.gsh").exists() and not (tmp_path / "h.h").exists()

"""decaf latte-assembler sources (corpus wiiu/latte_src) assemble to their committed programs."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import corpus_root
from shaderkit.errors import AssemblyError
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.isa.latte.source import assemble_source


def _rows() -> list:
    root = corpus_root()
    manifest = root / "wiiu" / "latte_src" / "MANIFEST.tsv" if root else None
    if manifest is None or not manifest.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason="corpus wiiu/latte_src not found"))]
    rows = list(csv.DictReader(manifest.open(), delimiter="\t"))
    return [pytest.param(r, id=f"{r['file']}->{r['gsh']}") for r in rows]


ROWS = _rows()


def test_manifest_has_26_stages() -> None:
    if ROWS and ROWS[0].marks:
        pytest.skip("corpus not found")
    assert len(ROWS) == 26


@pytest.mark.parametrize("row", ROWS)
def test_source_gives_committed_program(row: dict[str, str]) -> None:
    root = corpus_root()
    assert root is not None
    wiiu = root / "wiiu"
    shader = Gsh.from_bytes((wiiu / row["gsh"]).read_bytes()).shaders[int(row["gsh_index"])]
    result = assemble_source((wiiu / "latte_src" / row["file"]).read_text())
    assert result.program == shader.program
    # the four "no" rows of the manifest are the old inline-constant convention
    assert (result.constants == "inline") == (row["decaf_reproduces"] == "no")


def test_hand_source_defaults() -> None:
    # no swizzles: exports and fetches take xyzw; ALU sources take the destination channel;
    # 1.0f is a literal when CNT counts its slot, an inline constant when it does not
    text = ("00 TEX: ADDR(6) CNT(1)\n  0 SAMPLE R1, R0.xy, t0, s0\n"
            "01 ALU: ADDR(4) CNT(2)\n  1 w: MUL R2.w, R1, 1.0f\n"
            "02 EXP_DONE: PIX0, R2\nEND_OF_PROGRAM\n")
    program = assemble_source(text).program
    words = [int.from_bytes(program[i:i + 4], "little") for i in range(0, len(program), 4)]
    # ALU at slot 4: MUL (OP2 1) dst R2.w, src0 R1.w (sel 1, chan 3), src1 literal (253) chan 0
    assert words[8] == (1 | 3 << 10 | 253 << 13 | 1 << 31)
    assert words[9] == (1 << 4 | 1 << 7 | 2 << 21 | 3 << 29)
    assert words[10:12] == [0x3F800000, 0]
    # TEX at slot 6: SAMPLE (0x10), dst R1.xyzw, src R0 .xyzw (xy given, zw default)
    assert words[12] == 0x10 and words[13] == (1 | 0 << 9 | 1 << 12 | 2 << 15 | 3 << 18 | 0xF << 28)
    assert words[14] == (0 << 20 | 1 << 23 | 2 << 26 | 3 << 29) and words[15] == 0
    # EXP_DONE PIX0 R2.xyzw with END_OF_PROGRAM
    assert words[4] == 2 << 15 and words[5] == (0x28 << 23 | 1 << 31 | 1 << 21 | 0 | 1 << 3 | 2 << 6 | 3 << 9)
    inline = text.replace("CNT(2)", "CNT(1)")
    words = [int.from_bytes(assemble_source(inline).program[i:i + 4], "little") for i in range(32, 40, 4)]
    assert words[0] == (1 | 3 << 10 | 249 << 13 | 3 << 23 | 1 << 31)


def test_bad_clause_count(tmp_path: Path) -> None:
    with pytest.raises(AssemblyError, match="CNT"):
        assemble_source("00 ALU: ADDR(2) CNT(5)\n  0 x: MOV R1.x, R0.x\nEND_OF_PROGRAM\n")


def _pairs() -> list:
    if ROWS and ROWS[0].marks:
        return [pytest.param(None, None, marks=pytest.mark.skip(reason="corpus not found"))]
    by_gsh: dict[str, dict[str, str]] = {}
    for param in ROWS:
        row = param.values[0]
        by_gsh.setdefault(row["gsh"], {})[row["stage"]] = row["file"]
    return [pytest.param(gsh, stages, id=gsh) for gsh, stages in by_gsh.items()]


@pytest.mark.parametrize(("gsh", "stages"), _pairs())
def test_gsh_from_sources_has_committed_header_values(gsh: str, stages: dict[str, str]) -> None:
    from shaderkit.formats.gfd.latte_build import build_gsh

    root = corpus_root()
    assert root is not None
    wiiu = root / "wiiu"
    committed = Gsh.from_bytes((wiiu / gsh).read_bytes())
    sources = {stage: assemble_source((wiiu / "latte_src" / name).read_text()) for stage, name in stages.items()}
    built = Gsh.from_bytes(build_gsh(sources.get("vertex"), sources.get("pixel")).to_bytes())
    assert len(built.shaders) == len(committed.shaders)
    for ours, theirs in zip(built.shaders, committed.shaders):
        assert type(ours) is type(theirs)
        for name in ("mode", "regs", "uniform_blocks", "uniform_vars", "initial_values", "loop_vars",
                     "sampler_vars", "attrib_vars", "ring_item_size", "has_stream_out", "stream_out_stride",
                     "program"):
            assert getattr(ours, name) == getattr(theirs, name), name

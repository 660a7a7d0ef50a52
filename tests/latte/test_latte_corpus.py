"""Real GX2 programs: text equals decaf-emu's listing; text with notes assembles to the same bytes."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import corpus_root
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.formats.gx2.shader import GX2GeometryShader, GX2PixelShader, GX2Shader
from shaderkit.isa.latte import asm, disasm
from shaderkit.isa.latte.disasm import NOTE


def _stage(shader: GX2Shader) -> str:
    if isinstance(shader, GX2PixelShader):
        return "pixel"
    return "geometry" if isinstance(shader, GX2GeometryShader) else "vertex"


def _programs() -> Iterator[tuple[str, bytes, Path]]:
    root = corpus_root()
    if root is None:
        return
    wiiu = root / "wiiu"
    for path in sorted(wiiu.glob("*.gsh")):
        for i, shader in enumerate(Gsh.from_bytes(path.read_bytes()).shaders):
            yield f"{path.name}.{i}.{_stage(shader)}", shader.program, wiiu / "latte"
    for path in sorted(wiiu.glob("*.sharcfb")):
        for i, binary in enumerate(Sharcfb.from_bytes(path.read_bytes()).binaries):
            yield f"{path.name}.{i}.{_stage(binary.shader)}", binary.shader.program, wiiu / "latte"


PROGRAMS = list(_programs())
PARAMS = [pytest.param(prog, where, id=n) for n, prog, where in PROGRAMS] or [
    pytest.param(None, None, marks=pytest.mark.skip(reason="corpus wiiu/ not found"))]
IDS = [n for n, _, _ in PROGRAMS]


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def strip_notes(text: str) -> str:
    """What other tools see: the text without ``; shaderkit:`` notes."""
    out = []
    for line in text.split("\n"):
        if line.startswith(NOTE):
            continue
        out.append(re.sub(r"\s*" + re.escape(NOTE) + r".*$", "", line))
    return "\n".join(out)


def test_every_listing_has_a_program() -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    listings = sorted(p.name[: -len(".latte.txt")] for p in (root / "wiiu" / "latte").glob("*.latte.txt"))
    assert listings == sorted(IDS)
    assert len(listings) == 98


@pytest.mark.parametrize(("program", "listings"), PARAMS)
def test_text_equals_decaf_listing(program: bytes, listings: Path, request: pytest.FixtureRequest) -> None:
    name = request.node.callspec.id
    expected = (listings / f"{name}.latte.txt").read_text()
    assert _lines(disasm.disassemble(program, notes=False)) == _lines(expected)
    assert _lines(strip_notes(disasm.disassemble(program))) == _lines(expected)


@pytest.mark.parametrize(("program", "listings"), PARAMS)
def test_text_assembles_to_identical_program(program: bytes, listings: Path) -> None:
    assert asm.assemble(disasm.disassemble(program)) == program


@pytest.mark.parametrize(("program", "listings"), PARAMS)
def test_every_word_reencodes(program: bytes, listings: Path) -> None:
    # encode(decode(w)) == w for every 64-bit slot under every format it could be read as
    formats = [(disasm.unpack_cf, asm.pack_cf), (disasm.unpack_cf_alu, asm.pack_cf_alu),
               (disasm.unpack_exp_swiz, asm.pack_exp_swiz), (disasm.unpack_exp_buf, asm.pack_exp_buf),
               (disasm.unpack_alu_op2, asm.pack_alu_op2), (disasm.unpack_alu_op3, asm.pack_alu_op3)]
    words = struct.unpack(f"<{len(program) // 4}I", program)
    for i in range(0, len(words), 2):
        pair = list(words[i:i + 2])
        for unpack, pack in formats:
            assert pack(unpack(pair)) == pair
    fetch = [(disasm.unpack_tex, asm.pack_tex), (disasm.unpack_vtx, asm.pack_vtx),
             (disasm.unpack_vtx_sem, asm.pack_vtx_sem)]
    for i in range(0, len(words) - 3, 2):
        quad = list(words[i:i + 4])
        for unpack, pack in fetch:
            assert pack(unpack(quad)) == quad

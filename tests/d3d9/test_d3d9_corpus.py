"""Real D3D9 programs: the program of every level-9 chunk (Aon9/XNAS/XNAP) of the corpus's DXBC
files is a bare D3D9 shader, and fxc's listing beside the file shows its text. As a bare shader it
parses, rebuilds byte for byte, disassembles to exactly fxc's program text, and ``asm --base``
of that text gives back its bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.formats.d3d9.assemble import assemble_with_base
from shaderkit.formats.d3d9.shader import D3D9Shader
from shaderkit.formats.dxbc.aon9 import Level9Shader
from shaderkit.formats.registry import detect


def _fxc_sections(listing: str) -> list[list[str]]:
    """The program text of each ``// ... shader bytecode:`` section: version line to slot count."""
    lines = listing.split("\n")
    out = []
    for n, line in enumerate(lines):
        if line.startswith("//") and line.endswith("shader bytecode:"):
            end = next(k for k in range(n, len(lines)) if lines[k].startswith("// approximately"))
            out.append(lines[n + 2 : end + 1])
    return out


def _listings() -> list:
    found = [p for p in corpus_files("dxbc", "*.fxc.asm") if "shader bytecode:" in p.read_text(encoding="latin-1")]
    if not found:
        return [pytest.param(None, marks=pytest.mark.skip(reason="corpus dxbc level-9 listings not found"))]
    return [pytest.param(p, id=p.name) for p in found]


@pytest.mark.parametrize("listing", _listings())
def test_level9_programs_as_bare_shaders(listing: Path) -> None:
    text = listing.read_text(encoding="latin-1")
    import shaderkit

    container = shaderkit.open(listing.with_name(listing.name.replace(".fxc.asm", ".dxbc")).read_bytes())
    programs = [getattr(c, "payload", c) for c in container.chunks]  # type: ignore[attr-defined]
    programs = [p.program for p in programs if isinstance(p, Level9Shader)]
    sections = _fxc_sections(text)
    if not programs:
        pytest.skip("the level-9 programs are those of library functions (LIBF chunks)")
    assert len(programs) == len(sections)
    for program in programs:
        if program[2:4] in (b"PL", b"VL"):  # lib_4_0_ps_2_x functions: only inside DXBC libraries
            continue
        spec = detect(program)
        assert spec is not None and spec.name == "d3d9"
        shader = D3D9Shader.from_bytes(program)
        assert shader.to_bytes() == program
        ours = shader.disassemble()
        assert ours.rstrip("\n").split("\n") in sections
        assert assemble_with_base(ours, shader).to_bytes() == program

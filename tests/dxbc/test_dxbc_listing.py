"""fxc comment header/footer against the listings fxc itself wrote (the corpus .fxc.asm files).

Compared per line after right-trimming (upstream copies strip trailing blanks). The D3D9
program block of level-9 shaders (printed by the SM4 engineer's level-9 disassembler) is left
out; everything else that starts with ``//`` must come from :mod:`listing`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.listing import comment_footer, comment_header


def _strip_level9_program(lines: list[str]) -> list[str]:
    title = "// Level9 shader bytecode:"
    if title not in lines:
        return lines
    start = lines.index(title) + 2
    end = start
    while end < len(lines) and (lines[end].startswith(("    ", "// approximately", "#line")) or not lines[end]):
        end += 1
    return lines[:start] + lines[end:]


def _expected(listing: Path) -> tuple[list[str], list[str], list[str]]:
    """(header, footer, other comment lines) of an fxc listing."""
    lines = _strip_level9_program([line.rstrip() for line in listing.read_text(encoding="latin-1").splitlines()])
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        i += 1
    j = len(lines)
    while j > i and (lines[j - 1].startswith("//") or not lines[j - 1]):
        j -= 1
    return lines[:i], [line for line in lines[j:] if line], [line for line in lines[i:j] if line.startswith("//")]


def _generator(first_line: str) -> str | None:
    for tag in ("10.1", "9.30", "9.29"):
        if f"HLSL Shader Compiler {tag}" in first_line:
            return tag
    return "disassembler" if "D3D Shader Disassembler" in first_line else None


def _results() -> dict[str, Counter[bool]]:
    out: dict[str, Counter[bool]] = {}
    for path in corpus_files("dxbc", "*.dxbc"):
        listing = path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm")
        if not listing.exists():
            continue
        header, footer, middle = _expected(listing)
        gen = _generator(header[1] if len(header) > 1 else "")
        if gen is None:
            continue
        model = DxbcContainer.from_bytes(path.read_bytes())
        ours = [line.rstrip() for line in comment_header(model)]
        same = ours == header and [line.rstrip() for line in comment_footer(model)] == footer and not middle
        out.setdefault(gen, Counter())[same] += 1
    return out


def test_header_matches_fxc_for_at_least_90_percent() -> None:
    results = _results()
    if not results:
        pytest.skip("corpus not found")
    fxc = sum((results.get(g, Counter()) for g in ("9.29", "9.30", "10.1")), Counter())
    total = fxc[True] + fxc[False]
    assert total == 278
    assert fxc[True] / total >= 0.95  # measured 271/278
    disasm = results["disassembler"]
    assert disasm[True] == disasm[True] + disasm[False] == 99


def test_one_listing_exactly(corpus: Path) -> None:
    """An HS with cbuffers, patch constants and tessellation tables, line for line."""
    path = corpus / "dxbc/slimshader__Tests_Sdk_Direct3D11_DecalTessellation11_DecalTessellation11_HS.dxbc"
    header, footer, _ = _expected(path.with_suffix(".fxc.asm"))
    model = DxbcContainer.from_bytes(path.read_bytes())
    assert [line.rstrip() for line in comment_header(model)] == header
    assert comment_footer(model) == footer == ["// Approximately 190 instruction slots used"]


def test_footer_without_stat(corpus: Path) -> None:
    model = DxbcContainer.from_bytes((corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes())
    model.remove_chunk("STAT")
    assert comment_footer(model) == ["// Approximately 0 instruction slots used"]


def test_edited_semantic_shows_in_header(corpus: Path) -> None:
    model = DxbcContainer.from_bytes((corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes())
    assert model.input_signature is not None
    model.input_signature.elements[2].semantic_name = "SLICE"
    assert "// SLICE                    0    y          1     NONE    uint    y  " in comment_header(model)

"""fxc comment lines against the listings fxc itself wrote (the corpus .fxc.asm files).

Compared per line after right-trimming (upstream copies strip trailing blanks). The D3D9
program blocks of level-9 shaders (title, program and slot count, printed by the SM4
disassembler) are left out; every other ``//`` line of the listing must come from :mod:`listing`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.listing import (
    comment_footer,
    comment_header,
    function_signature_lines,
    level9_mappings,
)

_LEVEL9_TITLES = ("// Level9 shader bytecode:", "// XNA Prepass shader bytecode:", "// XNA shader bytecode:")


def _strip_level9_programs(lines: list[str]) -> list[str]:
    """Drop each D3D9 program block (title, blank, program, slot count) printed by the disassembler."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i] in _LEVEL9_TITLES:
            i += 2
            while i < len(lines) and (lines[i].startswith(("    ", "// approximately", "#line")) or not lines[i]):
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return out


def _expected(listing: Path) -> list[str]:
    """Every ``//`` line of an fxc listing, level-9 program blocks left out."""
    lines = [line.rstrip() for line in listing.read_text(encoding="latin-1").splitlines()]
    return [line for line in _strip_level9_programs(lines) if line.startswith("//")]


def _ours(model: DxbcContainer) -> list[str]:
    lines = comment_header(model)
    for fourcc in ("XNAP", "XNAS"):  # the disassembler lists these after the Aon9 program
        for chunk in model.chunks_of(fourcc):
            lines += level9_mappings(chunk.build())
    lines += comment_footer(model)
    return [line.rstrip() for line in lines]


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
        expected = _expected(listing)
        gen = _generator(expected[1] if len(expected) > 1 else "")
        if gen is None:
            continue
        same = _ours(DxbcContainer.from_bytes(path.read_bytes())) == expected
        out.setdefault(gen, Counter())[same] += 1
    return out


def test_header_matches_fxc_for_at_least_90_percent() -> None:
    results = _results()
    if not results:
        pytest.skip("corpus not found")
    fxc = sum((results.get(g, Counter()) for g in ("9.29", "9.30", "10.1")), Counter())
    total = fxc[True] + fxc[False]
    assert total == 278
    assert fxc[True] / total >= 0.95  # measured 275/278
    disasm = results["disassembler"]
    assert disasm[True] == disasm[True] + disasm[False] == 99


def test_one_listing_exactly(corpus: Path) -> None:
    """An HS with cbuffers, patch constants and tessellation tables, line for line."""
    path = corpus / "dxbc/slimshader__Tests_Sdk_Direct3D11_DecalTessellation11_DecalTessellation11_HS.dxbc"
    expected = _expected(path.with_suffix(".fxc.asm"))
    model = DxbcContainer.from_bytes(path.read_bytes())
    assert _ours(model) == expected
    assert comment_footer(model) == expected[-1:] == ["// Approximately 190 instruction slots used"]


def test_level9_listing_exactly(corpus: Path) -> None:
    """A level-9 VS with DX9 constant and runtime mappings and an XNA prepass variant."""
    path = corpus / "dxbc/dxdecompiler__Internal_Level9_Test_VS_9_0.dxbc"
    model = DxbcContainer.from_bytes(path.read_bytes())
    assert model.chunk("XNAP") is not None
    assert _ours(model) == _expected(path.with_suffix(".fxc.asm"))


def test_footer_without_stat(corpus: Path) -> None:
    model = DxbcContainer.from_bytes((corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes())
    model.remove_chunk("STAT")
    assert comment_footer(model) == ["// Approximately 0 instruction slots used"]


def test_edited_semantic_shows_in_header(corpus: Path) -> None:
    model = DxbcContainer.from_bytes((corpus / "dxbc/angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc").read_bytes())
    assert model.input_signature is not None
    model.input_signature.elements[2].semantic_name = "SLICE"
    assert "// SLICE                    0    y          1     NONE    uint    y  " in comment_header(model)


def test_library_function_parameters(corpus: Path) -> None:
    """LFS0 tables of every function of a library, against fxc's listing (matrices, semantics,
    registers >= 10, in/out/inout)."""
    path = corpus / "dxbc/dxdecompiler__Internal_Misc_LibraryTest_4_1.dxbc"
    lines = [line.rstrip() for line in path.with_suffix(".fxc.asm").read_text(encoding="latin-1").splitlines()]
    expected = []
    for i, line in enumerate(lines):
        if line.startswith("// Function parameter signature"):
            end = lines.index("//", i + 2)
            expected.append(lines[i:end])
    model = DxbcContainer.from_bytes(path.read_bytes())
    ours = []
    for function in model.functions:
        assert function.function_signature is not None
        block = [line.rstrip() for line in function_signature_lines(function.function_signature)]
        ours.append(block[1:-1])
    assert len(expected) == len(ours) == 6
    assert ours == expected


def test_struct_dag_listing_is_bounded() -> None:
    """Struct types shared at every level would print 8**9 lines; the header refuses instead."""
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.rdef import (
        ConstantBuffer,
        ResourceDefinition,
        ShaderType,
        ShaderTypeMember,
        ShaderVariable,
    )

    t = ShaderType(0, 3)
    for _ in range(9):
        t = ShaderType(5, 0, members=[ShaderTypeMember(f"m{i}", t, 0) for i in range(8)])
    rdef = ResourceDefinition([ConstantBuffer("cb", [ShaderVariable("v", t, 0, 16, 2)], 16)])
    model = DxbcContainer([rdef])
    with pytest.raises(ShaderFormatError, match="more than"):
        comment_header(model)

"""The listing follows the compiler named in RDEF: fxc 9.29 (DirectX SDK), 9.30 (Windows 8 SDK),
6.3 (Windows 8.1 SDK) and 10.x (Windows 10 SDK) print some tables and declarations differently.

The expected lines were written by hand from public fxc listings of each version (ANGLE's
compiled shaders by 6.3.9600.16384 and 9.29.952.3111, the DirectX SDK samples' by 9.29):
6.3 keeps the DirectX SDK's ``Slot Elements`` binding table and lower-case ``cb`` declarations,
only 9.29 and older print the signature ``Format`` column 6 wide.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from dxbc_build import container

from shaderkit.formats.dxbc.assemble import assemble_with_base
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.disasm import listing
from shaderkit.formats.dxbc.rdef import (
    ConstantBuffer,
    ResourceBinding,
    ResourceDefinition,
    ShaderType,
    ShaderVariable,
)
from shaderkit.formats.dxbc.signature import Signature, SignatureElement


def _code() -> bytes:
    words = [0x00000040, 0,
             0x04000059, 0x00208E46, 0, 1,  # dcl_constantbuffer cb0[1], immediateIndexed
             0x03000065, 0x001020F2, 0,  # dcl_output o0.xyzw
             0x06000036, 0x001020F2, 0, 0x00208E46, 0, 0,  # mov o0.xyzw, cb0[0].xyzw
             0x0100003E]  # ret
    words[1] = len(words)
    return struct.pack(f"<{len(words)}I", *words)


def _shader(creator: str, *, depth: bool = False, code: bytes | None = None, features: int = 0) -> DxbcContainer:
    float4 = ShaderType(1, 3, 1, 4, 0, name="")
    rdef = ResourceDefinition(
        [ConstantBuffer("Params", [ShaderVariable("tint", float4, 0, 16, 2, None)], 16)],
        [ResourceBinding("Sampler", 3, 0, 0, 0, 0, 1, 0),
         ResourceBinding("TextureF", 2, 5, 4, 0xFFFFFFFF, 0, 1, 0xC),
         ResourceBinding("Params", 0, 0, 0, 0, 0, 1, 0)],
        0xFFFF0400, 0x100, creator)
    isgn = Signature("ISGN", [SignatureElement("SV_POSITION", 0, 1, 3, 0, 0xF, 0),
                              SignatureElement("TEXCOORD", 0, 0, 3, 1, 0x3, 0x3)])
    outputs = [SignatureElement("SV_TARGET", 0, 0, 3, 0, 0xF, 0)]
    if depth:
        outputs.append(SignatureElement("SV_DEPTH", 0, 0, 3, 0xFFFFFFFF, 0x1, 0xE))
    osgn = Signature("OSGN", outputs)
    chunks = [(b"RDEF", rdef.build()), (b"ISGN", isgn.build()), (b"OSGN", osgn.build()),
              (b"SHDR", _code() if code is None else code)]
    if features:
        chunks.append((b"SFI0", struct.pack("<Q", features)))
    data = container(*chunks)
    return DxbcContainer.from_bytes(data)


def _lines(creator: str, depth: bool = False) -> list[str]:
    return [line.rstrip() for line in listing(_shader(creator, depth=depth)).splitlines()]


_SLOT_TABLE = [
    "// Name                                 Type  Format         Dim Slot Elements",
    "// ------------------------------ ---------- ------- ----------- ---- --------",
    "// Sampler                           sampler      NA          NA    0        1",
    "// TextureF                          texture  float4          2d    0        1",
    "// Params                            cbuffer      NA          NA    0        1",
]
_BIND_TABLE = [
    "// Name                                 Type  Format         Dim      HLSL Bind  Count",
    "// ------------------------------ ---------- ------- ----------- -------------- ------",
    "// Sampler                           sampler      NA          NA             s0      1",
    "// TextureF                          texture  float4          2d             t0      1",
    "// Params                            cbuffer      NA          NA            cb0      1",
]
_WIDE = [
    "// Name                 Index   Mask Register SysValue  Format   Used",
    "// -------------------- ----- ------ -------- -------- ------- ------",
    "// SV_POSITION              0   xyzw        0      POS   float",
    "// TEXCOORD                 0   xy          1     NONE   float   xy",
]
_NARROW = [
    "// Name                 Index   Mask Register SysValue Format   Used",
    "// -------------------- ----- ------ -------- -------- ------ ------",
    "// SV_POSITION              0   xyzw        0      POS  float",
    "// TEXCOORD                 0   xy          1     NONE  float   xy",
]


def _has_block(lines: list[str], block: list[str]) -> bool:
    first = block[0]
    return any(lines[i : i + len(block)] == block for i, line in enumerate(lines) if line == first)


@pytest.mark.parametrize(("version", "bindings", "signature", "cb"), [
    ("6.3.9600.16384", _SLOT_TABLE, _WIDE, "cb0"),  # Windows 8.1 SDK
    ("9.30.9200.16384", _SLOT_TABLE, _WIDE, "cb0"),  # Windows 8 SDK
    ("9.29.952.3111", _SLOT_TABLE, _NARROW, "cb0"),  # DirectX SDK June 2010
    ("10.1", _BIND_TABLE, _WIDE, "CB0"),  # Windows 10 SDK
])
def test_tables_and_declarations_follow_the_compiler(version: str, bindings: list[str], signature: list[str],
                                                     cb: str) -> None:
    lines = _lines(f"Microsoft (R) HLSL Shader Compiler {version}")
    assert lines[1] == f"// Generated by Microsoft (R) HLSL Shader Compiler {version}"
    assert _has_block(lines, bindings)
    assert _has_block(lines, signature)
    assert f"dcl_constantbuffer {cb}[1], immediateIndexed" in lines
    assert "mov o0.xyzw, cb0[0].xyzw" in lines


def test_narrow_signature_special_register_row() -> None:
    """fxc 9.29's row of a register-less output (ANGLE's clear shaders: ``SV_DEPTH ... oDepth``)."""
    narrow = _lines("Microsoft (R) HLSL Shader Compiler 9.29.952.3111", depth=True)
    wide = _lines("Microsoft (R) HLSL Shader Compiler 10.1", depth=True)
    assert "// SV_DEPTH                 0    N/A   oDepth    DEPTH  float    YES" in narrow
    assert "// SV_DEPTH                 0    N/A   oDepth    DEPTH   float    YES" in wide


def test_rebuilds_byte_for_byte() -> None:
    creator = "Microsoft (R) HLSL Shader Compiler 6.3.9600.16384"
    data = _shader(creator).to_bytes()
    assert creator.encode() + b"\0" in data  # (the creator is in the bytes parsed below)
    parsed = DxbcContainer.from_bytes(data)
    assert parsed.rdef is not None and parsed.rdef.creator == creator
    assert parsed.to_bytes() == data


def _offsets_code() -> bytes:
    words = [0x00000040, 0,
             0x0300005A, 0x00106000, 0,  # dcl_sampler s0, mode_default
             0x04001858, 0x00107000, 0, 0x5555,  # dcl_resource_texture2d (float,float,float,float) t0
             0x03001062, 0x00101032, 1,  # dcl_input_ps linear v1.xy
             0x03000065, 0x001020F2, 0,  # dcl_output o0.xyzw
             0x02000068, 1,  # dcl_temps 1
             # sample_l, extended: texel offsets u=1 (bits 9..12 of the extension)
             0x8C000048, 0x00000201, 0x001000F2, 0, 0x00101046, 1, 0x00107E46, 0, 0x00106000, 0,
             0x00004001, 0,
             0x05000036, 0x001020F2, 0, 0x00100E46, 0,  # mov o0.xyzw, r0.xyzw
             0x0100003E]
    words[1] = len(words)
    return struct.pack(f"<{len(words)}I", *words)


def _listed_lines(version: str, code: bytes) -> list[str]:
    """The listing lines of ``code`` in a container fxc ``version`` made, checking that the listing
    reads back into the same bytes (``asm --base``)."""
    shader = _shader(f"Microsoft (R) HLSL Shader Compiler {version}", code=code)
    text = listing(shader)
    data = shader.to_bytes()
    assert assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes() == data
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize(("version", "mnemonic"), [
    ("9.29.952.3111", "sample_l(1,0,0)"),  # DirectX SDK: HDAO, FXAA in HLSLCrossCompiler's tests
    ("9.30.9200.16384", "sample_l_aoffimmi(1,0,0)"),
    ("10.1", "sample_l_aoffimmi(1,0,0)"),
])
def test_texel_offsets_follow_the_compiler(version: str, mnemonic: str) -> None:
    lines = _listed_lines(version, _offsets_code())
    assert f"{mnemonic} r0.xyzw, v1.xyxx, t0.xyzw, s0, l(0.000000)" in lines


def test_offset_column_follows_the_compilers_spelling() -> None:
    """``disasm --offsets`` of a fxc 9.29 file pairs every instruction line with its words, the
    sample_l printed without ``_aoffimmi`` too: dcl_sampler, dcl_resource_texture2d, dcl_input_ps,
    dcl_output, dcl_temps, then sample_l at byte 0x44 (2+3+4+3+3+2 = 17 words before it)."""
    from shaderkit.cli.addresses import dxbc_entries

    shader = _shader("Microsoft (R) HLSL Shader Compiler 9.29.952.3111", code=_offsets_code())
    entries = dxbc_entries(shader, listing(shader))
    sample = next((line, offset) for line, offset, _ in entries if "sample_l(1,0,0)" in line)
    assert sample[1] == 0x44


def test_offsets_without_aoffimmi_assemble() -> None:
    """The assembler reads fxc 9.29's spelling to the same words as ``_aoffimmi``'s."""
    from shaderkit.isa.sm4.assembler import assemble_listing
    from shaderkit.isa.sm4.encode import encode

    words = list(struct.unpack(f"<{len(_offsets_code()) // 4}I", _offsets_code()))
    body = ["ps_4_0", "dcl_sampler s0, mode_default", "dcl_resource_texture2d (float,float,float,float) t0",
            "dcl_input_ps linear v1.xy", "dcl_output o0.xyzw", "dcl_temps 1",
            "sample_l(1,0,0) r0.xyzw, v1.xyxx, t0.xyzw, s0, l(0.000000)", "mov o0.xyzw, r0.xyzw", "ret "]
    for text in (body, [line.replace("sample_l(", "sample_l_aoffimmi(") for line in body]):
        (assembled,) = assemble_listing("\n".join(text) + "\n")
        assert encode(assembled.program) == words


@pytest.mark.parametrize(("version", "block"), [
    ("9.29.952.3111", None),
    ("9.30.9200.16384", ["//", "//", "///", "// Note: shader requires additional functionality:",
                         "//       Double-precision floating point", "//"]),
    ("10.1", ["//", "//", "// Note: shader requires additional functionality:",
              "//       Double-precision floating point", "//"]),
])
def test_feature_note_follows_the_compiler(version: str, block: list[str] | None) -> None:
    """SlimShader's BasicCompute11 double-precision shader: listed by 9.29 without the note, by
    9.30 with it (SFI0 bit 0); 9.30 writes its ``///`` line there."""
    lines = [line.rstrip() for line in listing(_shader(f"Microsoft (R) HLSL Shader Compiler {version}",
                                                       features=1)).splitlines()]
    assert lines[:2] == ["//", f"// Generated by Microsoft (R) HLSL Shader Compiler {version}"]
    if block is None:
        assert not any("Note:" in line or "Double-precision" in line for line in lines)
        assert lines[2:5] == ["//", "//", "// Buffer Definitions:"]
    else:
        assert lines[2 : 2 + len(block)] == block


def _discard_code() -> bytes:
    words = [0x00000040, 0,
             0x04000059, 0x00208E46, 0, 1,  # dcl_constantbuffer cb0[1], immediateIndexed
             0x03000065, 0x001020F2, 0,  # dcl_output o0.xyzw
             0x0404000D, 0x0020800A, 0, 0,  # discard, non-zero test (bit 18): cb0[0].x (select_1 x)
             0x0400000D, 0x0020800A, 0, 0,  # discard, zero test
             0x06000036, 0x001020F2, 0, 0x00208E46, 0, 0,  # mov o0.xyzw, cb0[0].xyzw
             0x0100003E]  # ret
    words[1] = len(words)
    return struct.pack(f"<{len(words)}I", *words)


@pytest.mark.parametrize(("version", "nonzero"), [
    ("9.29.952.3111", "discard"),  # Effekseer's public fxc 9.29 listings: 536 lines "discard r0.x" ...
    ("9.30.9200.16384", "discard_nz"),
    ("10.1", "discard_nz"),
])
def test_discard_spelling_follows_the_compiler(version: str, nonzero: str) -> None:
    lines = _listed_lines(version, _discard_code())
    at = lines.index(f"{nonzero} cb0[0].x")
    assert lines[at + 1] == "discard_z cb0[0].x"


@pytest.mark.parametrize("version", [
    "9.29.952.3111",  # Effekseer's public fxc 9.29 listings: no [1] for one element
    "10.1",  # d3dcompiler_47 (10.0.18362) on 3Dmigoto's "float4 cb3[1];" fixes: none either
])
def test_one_element_array_prints_without_brackets_for_every_compiler(version: str) -> None:
    from shaderkit.formats.dxbc.listing import buffer_definitions

    one = ShaderType(1, 3, 1, 4, 1, name="")  # float4, 1 element
    two = ShaderType(1, 3, 1, 4, 2, name="")
    rdef = ResourceDefinition(
        [ConstantBuffer("VS_ConstantBuffer", [ShaderVariable("fUV", one, 0, 16, 2, None),
                                              ShaderVariable("fTwo", two, 16, 32, 2, None)], 48)],
        [], 0xFFFE0400, 0x100, f"Microsoft (R) HLSL Shader Compiler {version}")
    lines = [line.rstrip() for line in buffer_definitions(rdef)]
    # the declaration is padded to 40 columns, then "// Offset:" and the size
    assert lines[6] == "//   float4 fUV;".ljust(40) + "// Offset:    0 Size:    16"
    assert lines[7] == "//   float4 fTwo[2];".ljust(40) + "// Offset:   16 Size:    32"


def _stripped() -> bytes:
    """``_shader``'s container without its RDEF (as fxc /Qstrip_reflect leaves it): no compiler named."""
    isgn = Signature("ISGN", [SignatureElement("SV_POSITION", 0, 1, 3, 0, 0xF, 0),
                              SignatureElement("TEXCOORD", 0, 0, 3, 1, 0x3, 0x3)])
    osgn = Signature("OSGN", [SignatureElement("SV_TARGET", 0, 0, 3, 0, 0xF, 0)])
    return container((b"ISGN", isgn.build()), (b"OSGN", osgn.build()), (b"SHDR", _code()))


def test_fxc_option_spells_the_listing_as_that_disassembler(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """NVIDIA HBAO+'s public listings of stripped containers came from an fxc 6.3-era disassembler:
    ``cb0`` in lower case under the title ``D3D Shader Disassembler``; without --fxc 10.x is assumed."""
    from conftest import run_cli

    path = tmp_path / "stripped.dxbc"
    path.write_bytes(_stripped())
    title = "// Generated by Microsoft (R) D3D Shader Disassembler"
    code, out, err = run_cli(capsys, "disasm", str(path))
    assert code == 0, err
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[1] == title and "dcl_constantbuffer CB0[1], immediateIndexed" in lines
    code, out, err = run_cli(capsys, "disasm", "--fxc", "6.3", str(path))
    assert code == 0, err
    lines = [line.rstrip() for line in out.splitlines()]
    assert lines[1] == title and "dcl_constantbuffer cb0[1], immediateIndexed" in lines
    assert _has_block(lines, _WIDE)
    code, out, err = run_cli(capsys, "disasm", "--fxc", "9.29", str(path))
    assert code == 0, err
    assert _has_block([line.rstrip() for line in out.splitlines()], _NARROW)  # 9.29's 6-wide Format column
    code, out, err = run_cli(capsys, "disasm", "--fxc", "9.30", str(path))
    assert code == 0, err
    # ANGLE's public listings of stripped containers by fxc 9.30: its "///" line after the title block
    assert [line.rstrip() for line in out.splitlines()][:6] == ["//", title, "//", "//", "///", "// Input signature:"]
    code, out, err = run_cli(capsys, "disasm", "--fxc", "latest", str(path))
    assert code == 2 and "--fxc" in err


def test_fxc_style_overrides_the_named_compiler() -> None:
    from shaderkit.formats.dxbc.listing import FXC_STYLE

    shader = _shader("Microsoft (R) HLSL Shader Compiler 10.1")
    token = FXC_STYLE.set("Microsoft (R) HLSL Shader Compiler 9.29.952.3111")
    try:
        lines = [line.rstrip() for line in listing(shader).splitlines()]
    finally:
        FXC_STYLE.reset(token)
    assert lines[1] == "// Generated by Microsoft (R) HLSL Shader Compiler 10.1"  # the title stays the container's
    assert _has_block(lines, _SLOT_TABLE) and _has_block(lines, _NARROW)
    assert "dcl_constantbuffer cb0[1], immediateIndexed" in lines
    assert "dcl_constantbuffer CB0[1], immediateIndexed" in [line.rstrip() for line in listing(shader).splitlines()]

"""fxc's text of every D3D9 operand form, printed from hand-built tokens and read back to the same tokens.

Token values are worked out by hand from d3d9types.h: opcode bits 0..15, SM2+ parameter count
24..27, predicated bit 28, coissue bit 30; register type bits 28..30 (low) and 11..12 (high),
number 0..10, relative bit 13; destination write mask 16..19, result modifiers 20..23 (1 _sat),
result shift 24..27 (1 _x2); source swizzle 16..23 (0xE4 identity), modifier 24..27 (3 biasneg,
4 _bx2, 6 ``1 -``, 7 _x2, 12 ``-..._abs``, 13 ``!``). Spellings as fxc lists them (``-r0_abs.w``,
``(!p0.x) mov``, ``c2[aL]``, ``texcrd`` in ps_1_4, ``tex`` below it).
"""

from __future__ import annotations

import struct

import pytest

from shaderkit.errors import AssemblyError
from shaderkit.formats.d3d9.assemble import assemble_shader, assemble_with_base
from shaderkit.formats.d3d9.shader import D3D9Shader

END = 0x0000FFFF


def stream(*words: int) -> bytes:
    return struct.pack(f"<{len(words) + 1}I", *words, END)


CASES = {
    "ps_1_4": (stream(
        0xFFFF0104,
        0x00000042, 0x800F0000, 0xB0E40000,  # texld r0, t0
        0x00000040, 0x80070001, 0xB0E40001,  # texcrd r1.xyz, t1
        0x0000FFFD,  # phase
        0x00000005, 0x811F0000, 0x84E40000, 0xA6E40000,  # mul_x2_sat r0, r0_bx2, 1 - c0
        0x40000002, 0x80080000, 0x83000000, 0xA7E40001,  # +add r0.w, -r0_bias.x, c1_x2
    ), ["ps_1_4", "texld r0, t0", "texcrd r1.xyz, t1", "phase", "mul_x2_sat r0, r0_bx2, 1 - c0",
        "  + add r0.w, -r0_bias.x, c1_x2"]),  # co-issued: d3dcompiler_47 writes "  + mov r0.w, t2.w"
    "ps_1_1": (stream(
        0xFFFF0101,
        0x00000042, 0xB00F0000,  # tex t0
        0x00000049, 0xB00F0001, 0xB4E40000,  # texm3x3pad t1, t0_bx2
        0x00000040, 0xB00F0002,  # texcoord t2
    ), ["ps_1_1", "tex t0", "texm3x3pad t1, t0_bx2", "texcoord t2"]),
    "vs_3_0": (stream(
        0xFFFE0300,
        0x0200001F, 0x80000000, 0xE00F0000,  # dcl_position o0
        0x05000030, 0xF00F0000, 4, 0, 1, 0,  # defi i0, 4, 0, 1, 0
        0x0200001B, 0xF0E40800, 0xF0E40000,  # loop aL, i0
        0x04000002, 0x800F0000, 0x80E40000, 0xA0E42002, 0xF0E40800,  # add r0, r0, c2[aL]
        0x0000001D,  # endloop
        0x13000001, 0xE0030000, 0xBD001000, 0xA0E40001,  # (!p0.x) mov o0.xy, c1
        0x02000001, 0xE00F0001, 0x8CFF0000,  # mov o1, -r0_abs.w
    ), ["vs_3_0", "dcl_position o0", "defi i0, 4, 0, 1, 0", "loop aL, i0", "  add r0, r0, c2[aL]", "endloop",
        "(!p0.x) mov o0.xy, c1", "mov o1, -r0_abs.w"]),
    "ps_3_0": (stream(
        0xFFFF0300,
        0x0200001F, 0x80000000, 0x90031000,  # dcl vPos.xy
        0x0200001F, 0x80000000, 0x900F1001,  # dcl vFace
        0x0300005F, 0x800F0000, 0x90E40000, 0xA0E40800,  # texldl r0, v0, s0
        0x0500005D, 0x800F0001, 0x90E40000, 0xA0E40800, 0x80E40002, 0x80E40003,  # texldd r1, v0, s0, r2, r3
        0x02000001, 0x900F0800, 0x80000000,  # mov oDepth, r0.x
    ), ["ps_3_0", "dcl vPos.xy", "dcl vFace", "texldl r0, v0, s0", "texldd r1, v0, s0, r2, r3", "mov oDepth, r0.x"]),
    "vs_1_1": (stream(
        0xFFFE0101,
        0x00000001, 0xC00F0000, 0xA0E42005,  # mov oPos, c5[a0.x] (vs_1_1: no address token)
    ), ["vs_1_1", "mov oPos, c5[a0.x]"]),
}


def _code_lines(lines: list[str]) -> list[str]:
    """The program lines of a listing without fxc's 4-space indentation (a co-issued ``  + ``
    line as it is)."""
    return [line if line.startswith("  + ") else line[4:] for line in lines if line.startswith(("    ", "  + "))]


@pytest.mark.parametrize("name", CASES)
def test_text_of_each_form(name: str) -> None:
    data, expected = CASES[name]
    model = D3D9Shader.from_bytes(data)
    lines = model.disassemble().splitlines()
    code = _code_lines(lines)
    assert code == expected


@pytest.mark.parametrize("name", CASES)
def test_text_reads_back_to_the_same_tokens(name: str) -> None:
    data, _ = CASES[name]
    model = D3D9Shader.from_bytes(data)
    text = model.disassemble()
    assert assemble_shader(text).to_bytes() == data
    assert assemble_with_base(text, model).to_bytes() == data


def test_asm_with_base_keeps_the_comment_blocks() -> None:
    # ps_2_0 with a CLIP-tagged comment before the code and an unknown one between two instructions
    data = stream(0xFFFF0200, 0x0002FFFE, 0x50494C43, 7,
                  0x02000001, 0x800F0800, 0xA0E40000,  # mov oC0, c0
                  0x0001FFFE, 0x12345678,
                  0x02000001, 0x800F0801, 0xA0E40001)  # mov oC1, c1
    base = D3D9Shader.from_bytes(data)
    assert [(c.tag, c.position) for c in base.comments] == [("CLIP", 0), ("", 1)]
    text = base.disassemble()
    assert assemble_with_base(text, base).to_bytes() == data
    plain = assemble_shader(text)
    assert plain.comments == [] and plain.to_bytes() == stream(0xFFFF0200, 0x02000001, 0x800F0800, 0xA0E40000,
                                                               0x02000001, 0x800F0801, 0xA0E40001)
    edited = assemble_with_base(text.replace("oC1, c1", "oC1, -c2"), base)
    assert edited.to_bytes() == data.replace(struct.pack("<2I", 0x800F0801, 0xA0E40001),
                                             struct.pack("<2I", 0x800F0801, 0xA1E40002))


def test_asm_errors_carry_line_and_column() -> None:
    with pytest.raises(AssemblyError) as info:
        assemble_shader("    ps_3_0\n    mov r0, q7\n")
    assert info.value.line == 2
    with pytest.raises(AssemblyError):
        assemble_shader("    ps_4_0\n    mov r0, r1\n")


def test_flow_control_forms() -> None:
    # l1: type 18 = 0b10010 -> low bits 2 (0x20000000), high bits 2 (0x1000); b0: type 14 = 0b01110 -> low 6
    # (0x60000000), high 1 (0x800); p0: type 19 = 0b10011 -> low 3 (0x30000000), high 2 (0x1000)
    data = stream(0xFFFE0300,
                  0x01000060, 0xB0001000,  # breakp p0.x (opcode 96 is breakp, not break)
                  0x02000022, 0x800F0000, 0x80E40001,  # sgn r0, r1 (SM3: 1 source)
                  0x0200001A, 0xA0E41001, 0xE0E40800,  # callnz l1, b0
                  0x0000001C,  # ret
                  0x0100001E, 0xA0E41001)  # label l1
    model = D3D9Shader.from_bytes(data)
    lines = model.disassemble().splitlines()
    code = _code_lines(lines)
    assert code == ["vs_3_0", "breakp p0.x", "sgn r0, r1", "callnz l1, b0", "ret", "label l1"]
    assert assemble_shader(model.disassemble()).to_bytes() == data


# fxc's vs_1_1 listing of a small vertex shader, as printed in Microsoft's public D3D9 effects
# documentation ("Improve Performance with Preshaders", without the preshader)
SDK_VS_1_1 = """\
    vs_1_1
    def c8, 0, 0, 0, 0
    dcl_position v0
    dcl_normal v1
    dcl_texcoord v2
    mov r1.xyz, c7
    dp3 r0.x, r1, c4
    dp3 r0.y, r1, c5
    dp3 r0.z, r1, c6
    dp4 oPos.x, v0, c0
    dp3 r1.x, r0, r0
    dp4 oPos.y, v0, c1
    rsq r0.w, r1.x
    dp4 oPos.z, v0, c2
    mul r0.xyz, r0, r0.w
    dp4 oPos.w, v0, c3
    dp3 r0.x, v1, r0
    max oD0, r0.x, c8.x
    mov oT0.xy, v2

// approximately 14 instruction slots used
"""


def test_fxc_vs_1_1_listing_reads_and_prints_back() -> None:
    shader = assemble_shader(SDK_VS_1_1)
    words = struct.unpack(f"<{len(shader.to_bytes()) // 4}I", shader.to_bytes())
    # SM1 tokens carry no length; dcl_position v0 and dp4 oPos.x, v0, c0 as Wine's d3dx9 tests list them
    assert words[:10] == (0xFFFE0101, 0x00000051, 0xA00F0008, 0, 0, 0, 0, 0x0000001F, 0x80000000, 0x900F0000)
    assert (0x00000009, 0xC0010000, 0x90E40000, 0xA0E40000) in {words[k : k + 4] for k in range(len(words))}
    assert shader.disassemble() == SDK_VS_1_1


# the same documentation's vs_1_1 listing of its RenderSceneVS (the program part after the header)
SDK_RENDER_SCENE_VS = """\
    vs_1_1
    def c13, 0.159154937, 0.25, 6.28318548, -3.14159274
    def c14, -2.52398507e-007, 2.47609005e-005, -0.00138883968, 0.0416666418
    def c15, -0.5, 1, 0.5, 0
    dcl_position v0
    dcl_normal v1
    dcl_texcoord v2
    mov r0.w, c12.x
    mad r0.w, r0.w, c13.x, c13.y
    expp r3.y, r0.w
    mov r0.w, r3.y
    mad r0.w, r0.w, c13.z, c13.w
    mul r0.w, r0.w, r0.w
    mad r1.w, r0.w, c14.x, c14.y
    mad r1.w, r0.w, r1.w, c14.z
    mad r1.w, r0.w, r1.w, c14.w
    mad r1.w, r0.w, r1.w, c15.x
    mad r0.w, r0.w, r1.w, c15.y
    mul r0.w, r0.w, v0.x
    mul r0.x, r0.w, c15.z
    dp3 r1.x, v1, c4
    dp3 r1.y, v1, c5
    dp3 r1.z, v1, c6
    mov r0.yzw, c15.w
    dp3 r2.x, r1, r1
    add r0, r0, v0
    rsq r1.w, r2.x
    dp4 oPos.x, r0, c0
    mul r1.xyz, r1, r1.w
    dp4 oPos.y, r0, c1
    dp3 r1.x, r1, c9
    dp4 oPos.z, r0, c2
    max r1.w, r1.x, c15.w
    mov r1.xyz, c8
    mul r1.xyz, r1, c11
    mov r2.xyz, c7
    mul r2.xyz, r2, c10
    dp4 oPos.w, r0, c3
    mad oD0.xyz, r1, r1.w, r2
    mov oD0.w, c15.y
    mov oT0.xy, v2

// approximately 34 instruction slots used
"""


def test_fxc_render_scene_listing_reads_and_prints_back() -> None:
    assert assemble_shader(SDK_RENDER_SCENE_VS).disassemble() == SDK_RENDER_SCENE_VS


def test_slot_counts_as_fxc_counts_them() -> None:
    # facts from public fxc ps_3_0 listings: texldl takes 2 texture slots, if_comp 3, else and endif 1
    # each, lrp 1
    text = ("ps_3_0\n dcl_texcoord v0\n dcl_2d s0\n texldl r0, v0, s0\n if_ne r0.x, -r0.x\n"
            " lrp r1, r0.x, r0, c0\n else\n mov r1, c0\n endif\n mov oC0, r1\n")
    listing = assemble_shader(text).disassemble().splitlines()
    assert listing[-1] == "// approximately 10 instruction slots used (2 texture, 8 arithmetic)"
    assert listing[5:10] == ["      lrp r1, r0.x, r0, c0", "    else", "      mov r1, c0", "    endif", "    mov oC0, r1"]


@pytest.mark.parametrize("version", ["ps_2_0", "vs_2_0", "vs_3_0"])
def test_lrp_takes_one_slot_in_every_profile(version: str) -> None:
    # public fxc 9.29 / 10.0 listings (ps_2_0: 1 texld + frc, add, mov, mad, add, frc, add, add,
    # lrp, mul, mul, mad, mad, mov = "15 instruction slots used (1 texture, 14 arithmetic)"; vs_2_0
    # and vs_3_0 totals likewise count each lrp once), not the D3D9 reference's 2 slots
    out = "oC0" if version.startswith("ps") else ("oPos" if version == "vs_2_0" else "o0")
    decl = " dcl_position o0\n" if version == "vs_3_0" else ""
    text = f"{version}\n{decl} lrp r0, c0.x, c1, c2\n mov {out}, r0\n"
    listing = assemble_shader(text).disassemble().splitlines()
    assert listing[-1] == "// approximately 2 instruction slots used"


@pytest.mark.parametrize(("version", "profile"), [
    (0xFFFF0200, "ps_2_0"), (0xFFFF0201, "ps_2_x"), (0xFFFE02FF, "vs_2_sw"),
    (0x4C500200, "ps_2_0"), (0x4C560201, "vs_2_x"),  # library functions' "LP"/"LV" kinds
])
def test_level9_chunk_profile_is_the_d3d9_version_name(version: int, profile: str) -> None:
    from shaderkit.formats.dxbc.aon9 import Level9Shader

    assert Level9Shader(version=version).profile == profile


def test_block_comments_are_blanks() -> None:
    """``/* */`` comments (the HLSL source fxc /Fh headers carry after the listing, remarks between
    operands) are skipped; a ``/*`` inside a ``//`` comment opens nothing; errors keep their place."""
    text = ("ps_2_0 /* pixel */\n"
            "mov oC0, /* the tint */ c0 // not /* a block\n"
            "/*\n"
            "float4 main() : COLOR { return tint; }\n"
            "*/\n")
    # version, mov (1 << 24 | opcode 1), oC0 (type 8: low 0, high 1 -> 0x800) write mask .xyzw, c0 (type 2) .xyzw, end
    assert assemble_shader(text).to_bytes() == struct.pack("<5I", 0xFFFF0200, 0x02000001, 0x800F0800, 0xA0E40000,
                                                           0x0000FFFF)
    with pytest.raises(AssemblyError) as info:
        assemble_shader("ps_2_0\nmov oC0, c0\n  /* unfinished\n")
    assert (info.value.line, info.value.column) == (3, 3)
    with pytest.raises(AssemblyError) as info:
        assemble_shader("ps_2_0\n/* a */ mov oC0, q0\n")
    assert (info.value.line, info.value.column) == (2, 18)


def test_d3d8_era_spellings() -> None:
    """D3DX's assembler also reads ``vs.1.1`` version lines and ``rgba`` component letters (r, g, b,
    a = x, y, z, w); ``asm`` takes such a text for D3D9."""
    from shaderkit.cli.asm import detect_syntax

    text = "vs.1.1\nmov oPos.rgba, v0.bgra\nmov oD0.rg, c0[a0.r]\n"
    assert detect_syntax(text) == "d3d9"
    # vs_1_1; mov (SM1: no length); oPos: rasterizer output (type 4) .xyzw; v0 (type 1) swizzle
    # z, y, x, w = 2 | 1 << 2 | 0 << 4 | 3 << 6 = 0xC6; oD0: attribute output (type 5) mask .xy;
    # c (type 2) relative (bit 13), swizzle .xyzw (SM1: a0.x is implied, no address token); end
    words = (0xFFFE0101, 0x00000001, 0xC00F0000, 0x90C60000, 0x00000001, 0xD0030000, 0xA0E42000, 0x0000FFFF)
    assert assemble_shader(text).to_bytes() == struct.pack("<8I", *words)
    assert assemble_shader(text.replace("vs.1.1", "vs_1_1")).to_bytes() == struct.pack("<8I", *words)
    with pytest.raises(AssemblyError):
        assemble_shader("vs.1_1\nmov oPos, v0\n")  # one separator or the other
    # C's float suffix in def: 1.0f = 0x3F800000, 0.5f = 0x3F000000 (def: opcode 0x51, SM1 no length;
    # c0 (type 2) .xyzw written as 0xA00F0000)
    assert assemble_shader("ps.1.1\ndef c0, 1.0f, 0.5F, 0, 1\n").to_bytes() == struct.pack(
        "<8I", 0xFFFF0101, 0x00000051, 0xA00F0000, 0x3F800000, 0x3F000000, 0, 0x3F800000, 0x0000FFFF)
    with pytest.raises(AssemblyError):
        assemble_shader("ps_2_0\ndef c0, f, 0, 0, 0\n")


def test_d3d8_constant_addressing() -> None:
    """D3D8 wrote the constant index inside the brackets: ``c[a0.x + 5]`` is fxc's ``c5[a0.x]`` and
    ``c[3]`` is c3 with no relative addressing."""
    # mov r0, c5[a0.x]: r0 (type 0) .xyzw; c (type 2) relative (bit 13) number 5, swizzle .xyzw
    relative = struct.pack("<5I", 0xFFFE0101, 0x00000001, 0x800F0000, 0xA0E42005, 0x0000FFFF)
    assert assemble_shader("vs.1.1\nmov r0, c[a0.x + 5]\n").to_bytes() == relative
    assert assemble_shader("vs.1.1\nmov r0, c[5 + a0.x]\n").to_bytes() == relative
    assert assemble_shader("vs_1_1\nmov r0, c[3]\n").to_bytes() == struct.pack(
        "<5I", 0xFFFE0101, 0x00000001, 0x800F0000, 0xA0E40003, 0x0000FFFF)
    # columns: "mov r0, " is 8 wide, so "c[" is 9-10 and the terms start at 11 (the second at 18)
    for bad, column in (("c[a0.x + a0.x]", 18), ("c[a0.x + ]", 18), ("c[]", 11)):
        with pytest.raises(AssemblyError) as info:
            assemble_shader(f"vs_1_1\nmov r0, {bad}\n")
        assert (info.value.line, info.value.column) == (2, column), bad


def test_fmt_defs_spells_each_word_as_fmt_def() -> None:
    from shaderkit.isa.d3d9.text import fmt_def, fmt_defs

    # 0, -0, 1.0, -0.5, +inf, 1e-5f (9.99999975e-06: %.9g with MSVC's three-digit exponent)
    words = [0, 0x80000000, 0x3F800000, 0xBF000000, 0x7F800000, 0x3727C5AC]
    assert fmt_defs(words) == ["0", "-0", "1", "-0.5", "inf", "9.99999975e-006"]
    assert fmt_defs(words) == [fmt_def(w) for w in words] and fmt_defs([]) == []


def test_slot_counts_split_texture_and_arithmetic_as_d3dcompiler_does() -> None:
    # d3dcompiler_47 on real shaders: texldl takes 2 texture slots (HLSLCrossCompiler's ps3 fxaa,
    # 12 texldl: 24 texture); texldd 1 texture and 2 arithmetic (its parallax shader: 9 texldd
    # and 2 texld give 11 texture); a co-issued ps_1_x instruction shares its partner's slot
    # (Splinter Cell's WaterBlend: tex x3, lrp, + mov: 4 slots, 3 texture, 1 arithmetic)
    ps30 = D3D9Shader.from_bytes(CASES["ps_3_0"][0]).disassemble().splitlines()
    assert ps30[-1] == "// approximately 6 instruction slots used (3 texture, 3 arithmetic)"
    ps14 = D3D9Shader.from_bytes(CASES["ps_1_4"][0]).disassemble().splitlines()
    assert ps14[-1] == "// approximately 3 instruction slots used (2 texture, 1 arithmetic)"


def test_texture_parameters_take_their_d3d10_names() -> None:
    # SDL2's ps_2_0 shaders (fxc 6.3): "//   Texture2D theSampler+theTextureU;" under d3dcompiler_47
    from test_d3d9_format import PS30, ctab_payload

    payload = bytearray(ctab_payload())
    struct.pack_into("<I4HII", payload, 28, 64, 3, 0, 1, 0, 48, 0)  # sampler register set, s0, type at 48
    struct.pack_into("<6HI", payload, 48, 4, 7, 1, 1, 1, 0, 0)  # object, D3DXPT_TEXTURE2D
    data = PS30.replace(ctab_payload(), bytes(payload))
    assert "//   Texture2D tint;" in D3D9Shader.from_bytes(data).disassemble().splitlines()

"""Hand-worked SM4/SM5 token words (from the d3d11TokenizedProgramFormat bit layout) -> text and back."""

from __future__ import annotations

import struct

import pytest

from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.opcodes import BY_NAME, OPCODES, Layout
from shaderkit.isa.sm4.text import fmt_float, fmt_int, fmt_untyped, format_program

PS_4_0 = 0x00000040
PS_5_0 = 0x00000050
PS_5_1 = 0x00000051


def program(version: int, *instructions: list[int]) -> list[int]:
    body = [w for inst in instructions for w in inst]
    return [version, len(body) + 2, *body]


def text_of(words: list[int], legacy: bool = False) -> list[str]:
    return format_program(decode(words), legacy).splitlines()


# (words of one instruction, fxc text) - operand tokens worked out bit by bit:
#   r0.xyzw dest  = 2 (4 comps) | 0xF<<4 (mask) | 0<<12 (temp) | 1<<20 (1D)          = 0x001000F2
#   v0.xyzw src   = 2 | 1<<2 (swizzle) | 0xE4<<4 (xyzw) | 1<<12 (input) | 1<<20        = 0x00101E46
#   r0.x dest     = 2 | 1<<4 | 1<<20                                                    = 0x00100012
#   r0.x src      = 2 | 2<<2 (select 1) | 0<<4 | 1<<20                                  = 0x0010000A
#   l(1 value)    = 1 (1 comp) | 4<<12 (immediate32)                                    = 0x00004001
CASES = [
    ([0x05000036, 0x001000F2, 0, 0x00101E46, 0], "mov r0.xyzw, v0.xyzw"),
    ([0x07000000, 0x00100012, 0, 0x0010000A, 0, 0x00004001, 0x3F800000], "add r0.x, r0.x, l(1.000000)"),
    ([0x0700001E, 0x00100012, 0, 0x0010000A, 0, 0x00004001, 1], "iadd r0.x, r0.x, l(1)"),
    ([0x07000001, 0x00100012, 0, 0x0010000A, 0, 0x00004001, 0x8000], "and r0.x, r0.x, l(0x00008000)"),
    ([0x07000029, 0x00100012, 0, 0x0010000A, 0, 0x00004001, 0xFFFFFFE1], "ishl r0.x, r0.x, l(-31)"),
    # mov_sat: saturate is opcode-token bit 13
    ([0x05002036, 0x00100012, 0, 0x0010000A, 1], "mov_sat r0.x, r1.x"),
    # precise mask: token bits 19..22 (x=1<<19, all four=0xF<<19)
    ([0x05080036, 0x00100012, 0, 0x0010000A, 1], "mov [precise(x)] r0.x, r1.x"),
    ([0x05780036, 0x001000F2, 0, 0x00101E46, 1], "mov [precise] r0.xyzw, v1.xyzw"),
    # 4-component typeless immediate: mov prints l(a,b,c,d) without spaces, per-component guess
    ([0x08000036, 0x001000F2, 0, 0x00004002, 0, 0x3F800000, 0x80000000, 0x7FFF],
     "mov r0.xyzw, l(0,1.000000,-0.000000,0x00007fff)"),
    # modifier: extended operand token type 1, neg (1<<6)
    ([0x06000036, 0x00100012, 0, 0x8010000A, 0x00000041, 1], "mov r0.x, -r1.x"),
    ([0x06000036, 0x00100012, 0, 0x8010000A, 0x000000C1, 1], "mov r0.x, -|r1.x|"),
    # relative index: x0[r1.y + 2].x = 2 | 2<<2 | 3<<12 | 2<<20 | 3<<25 (imm32+relative)
    ([0x08000036, 0x00100012, 0, 0x0620300A, 0, 2, 0x0010001A, 1], "mov r0.x, x0[r1.y + 2].x"),
    # control flow: if_nz sets the test bit 18; operand-less opcodes end with a blank
    ([0x0304001F, 0x0010000A, 0], "if_nz r0.x"),
    ([0x0300001F, 0x0010000A, 0], "if_z r0.x"),
    ([0x0100003E], "ret "),
    ([0x010018BE], "sync_g_t"),  # fxc: no blank after sync (SDK ComputeShaderSort11 listing)
    ([0x010048BE], "sync_uglobal_t"),
    # declarations
    ([0x02000068, 4], "dcl_temps 4"),
    ([0x0100086A], "dcl_globalFlags refactoringAllowed"),
    ([0x0100186A], "dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps"),
    ([0x03001062, 0x00101032, 1], "dcl_input_ps linear v1.xy"),
    ([0x04001858, 0x00107000, 0, 0x5555], "dcl_resource_texture2d (float,float,float,float) t0"),
    ([0x03000065, 0x001020F2, 0], "dcl_output o0.xyzw"),
    ([0x04000067, 0x001020F2, 0, 1], "dcl_output_siv o0.xyzw, position"),
    ([0x0300005A, 0x00106000, 0], "dcl_sampler s0, mode_default"),
    ([0x0400009B, 8, 8, 1], "dcl_thread_group 8, 8, 1"),
    ([0x04000069, 0, 12, 4], "dcl_indexableTemp x0[12], 4"),
    ([0x0100285C], "dcl_outputtopology trianglestrip "),
    # custom data: immediate constant buffer (class 3), rows of 4 typeless values
    ([0x00001835, 6, 0x3F800000, 0, 0, 0xBF800000], "dcl_immediateConstantBuffer { { 1.000000, 0, 0, -1.000000} }"),
]


@pytest.mark.parametrize("words, text", CASES, ids=[c[1] for c in CASES])
def test_instruction_text_and_round_trip(words: list[int], text: str) -> None:
    prog = program(PS_5_0, words)
    assert text_of(prog)[1:] == [text]
    assert encode(decode(prog)) == prog


def test_sample_indexable_extended_tokens() -> None:
    # opcode 69 with bit 31; ext 2 (resource dim texture2d=3 << 6) chained, ext 3 (return float=5 x4)
    words = [0, 0x800000C2, 0x00155543, 0x001000F2, 0, 0x00101046, 0, 0x00107E46, 0, 0x00106000, 0]
    words[0] = 0x80000045 | (len(words) << 24)
    assert text_of(program(PS_5_0, words))[1] == (
        "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v0.xyxx, t0.xyzw, s0"
    )


def test_aoffimmi_offsets_are_signed_nibbles() -> None:
    # ext type 1: u at bits 9..12, v at 13..16; u=1, v=-1 (0xF)
    words = [0, 0x00000201 | 0xF << 13, 0x001000F2, 0, 0x00101046, 0, 0x00107E46, 0, 0x00106000, 0]
    words[0] = 0x80000045 | (len(words) << 24)
    assert text_of(program(PS_4_0, words))[1] == "sample_aoffimmi(1,-1,0) r0.xyzw, v0.xyxx, t0.xyzw, s0"


def test_nesting_indents_two_spaces() -> None:
    words = program(PS_4_0, [0x0304001F, 0x0010000A, 0], [0x01000012], [0x01000015], [0x0100003E])
    assert text_of(words)[1:] == ["if_nz r0.x", "else ", "endif ", "ret "]
    loop = program(PS_4_0, [0x01000030], [0x0304001F, 0x0010000A, 0], [0x01000002], [0x01000015],
                   [0x01000016])
    assert text_of(loop)[1:] == ["loop ", "  if_nz r0.x", "    break ", "  endif ", "endloop "]


def test_sm51_registers_are_upper_case_ranges() -> None:
    # dcl_constantbuffer CB0[0:0][3]: 3D operand (id, lower, upper) + size + space
    dcl = [0x07000059, 0x00308000 | 0, 0, 0, 0, 3, 0]
    assert text_of(program(PS_5_1, dcl))[1] == "dcl_constantbuffer CB0[0:0][3], immediateIndexed, space=0"
    # use: cb operand with 3 indices prints CB0[0][1]
    mov = [0x07000036, 0x001000F2, 0, 0x00308E46, 0, 0, 1]
    assert text_of(program(PS_5_1, mov))[1] == "mov r0.xyzw, CB0[0][1].xyzw"


def test_version_line() -> None:
    assert text_of([0x00010040, 2]) == ["vs_4_0"]
    assert text_of([0x00050050, 2]) == ["cs_5_0"]
    assert text_of([0x00030050, 2]) == ["hs_5_0"]


def test_unknown_opcode_is_marked_and_kept() -> None:
    words = program(PS_5_0, [0x020007FF, 0x1234])
    lines = text_of(words)
    assert lines[1] == "// unknown opcode 2047: 0x020007ff 0x00001234"
    assert encode(decode(words)) == words


def test_float_printing_matches_fxc() -> None:
    assert fmt_float(0x3F000000) == "0.500000"
    assert fmt_float(0x3C000000) == "0.007812"  # 0.0078125: exact tie, CRT rounds to even
    assert fmt_float(0x7F7FFFFF) == "340282346638528859811704183484516925440.000000"
    # fxc 9.x (old CRT): 17 significant digits, then zeros
    assert fmt_float(0x7F7FFFFF, legacy=True) == "340282346638528860000000000000000000000.000000"
    assert fmt_float(0x80000000) == "-0.000000"
    assert fmt_int(10000) == "10000" and fmt_int(10001) == "0x00002711"
    assert fmt_int(0xFFFFFFFF) == "-1"
    assert fmt_untyped(0) == "0" and fmt_untyped(0x3F800000) == "1.000000"
    assert fmt_untyped(0x7FFF) == "0x00007fff" and fmt_untyped(0x80000000) == "-0.000000"


def test_old_crt_rounds_ties_away_from_zero() -> None:
    """The old CRT behind fxc 9.x/6.3 and d3dcompiler_46 rounds a value halfway between two
    six-decimal texts away from zero (a 3Dmigoto dump of a d3dcompiler_46 listing reads
    l(..., -118410.820313, ...) for -118410.8203125); the Windows 10 CRT rounds it to even."""
    assert fmt_float(0x3C000000, legacy=True) == "0.007813"  # 0.0078125 = 1/128
    assert fmt_float(0xBC000000, legacy=True) == "-0.007813"
    # -118410.8203125: sign, exponent 16 (+127 = 0x8F), significand 118410.8203125 * 2**7 = 0xE74569
    assert fmt_float(0xC7E74569, legacy=True) == "-118410.820313"
    assert fmt_float(0xC7E74569) == "-118410.820312"
    assert fmt_float(0x3F000000, legacy=True) == "0.500000"  # no tie: unchanged
    assert fmt_float(0x3DCCCCCD, legacy=True) == "0.100000"
    # the listing's fast path (two four-value literals) spells them the same; 13 words: opcode, r0 (2), 2 x (1 + 4)
    add = [0x0D000000, 0x001000F2, 0, 0x00004002, 0x3C000000, 0xBC000000, 0x3F000000, 0,
           0x00004002, 0xC7E74569, 0, 0, 0]
    assert text_of(program(PS_4_0, add), legacy=True)[1] == (
        "add r0.xyzw, l(0.007813, -0.007813, 0.500000, 0.000000), l(-118410.820313, 0.000000, 0.000000, 0.000000)")
    assert text_of(program(PS_4_0, add))[1] == (
        "add r0.xyzw, l(0.007812, -0.007812, 0.500000, 0.000000), l(-118410.820312, 0.000000, 0.000000, 0.000000)")


def test_opcode_table_is_consistent() -> None:
    # one row per value 0..234, unique names, instructions know their operand count
    assert sorted(OPCODES) == list(range(235))
    assert len(BY_NAME) == len(OPCODES)
    for info in OPCODES.values():
        if info.layout == Layout.OPERANDS and not info.name.startswith("reserved"):
            assert info.num_operands >= 0, info.name
    assert BY_NAME["mov"].value == 54 and BY_NAME["dcl_temps"].value == 104
    assert BY_NAME["sync"].value == 190 and BY_NAME["check_access_fully_mapped"].value == 234


# More declarations and SM5 forms, worked from the token layout:
#   u0 (uav, 1D, no components)        = 30<<12 | 1<<20                 = 0x0011E000
#   g0 (thread-group shared memory)    = 31<<12 | 1<<20                 = 0x0011F000
#   t0 (resource), s0 (sampler)        = 0x00107000, 0x00106000
#   vThreadID.xy (select via swizzle)  = 2 | 1<<2 | 0x04<<4 | 32<<12    = 0x00020046 (0D)
SM5_CASES = [
    # dcl_uav_typed_texture2d (float x4) u0; dimension 3 in bits 11..15
    ([0x0400189C, 0x0011E000, 0, 0x5555], "dcl_uav_typed_texture2d (float,float,float,float) u0"),
    # globally coherent: bit 16 of the token (controls bit 5)
    ([0x0401189C, 0x0011E000, 0, 0x5555], "dcl_uav_typed_texture2d_glc (float,float,float,float) u0"),
    ([0x0300009D, 0x0011E000, 0], "dcl_uav_raw u0"),
    ([0x0400009E, 0x0011E000, 0, 16], "dcl_uav_structured u0, 16"),
    ([0x0400009F, 0x0011F000, 0, 256], "dcl_tgsm_raw g0, 256"),
    ([0x050000A0, 0x0011F000, 0, 16, 64], "dcl_tgsm_structured g0, 16, 64"),
    ([0x030000A1, 0x00107000, 0], "dcl_resource_raw t0"),
    ([0x040000A2, 0x00107000, 0, 32], "dcl_resource_structured t0, 32"),
    ([0x02000090, 3], "dcl_function_body fb3"),
    ([0x05000091, 1, 2, 0, 4], "dcl_function_table ft1 = {fb0, fb4}"),
    # dcl_interface: id, call sites, (array length << 16 | table count), tables
    ([0x06000092, 0, 1, 0x00010002, 0, 1], "dcl_interface fp0[1][1] = {ft0, ft1}"),
    ([0x01001893], "dcl_input_control_point_count 3"),
    ([0x01001095], "dcl_tessellator_domain domain_tri"),
    ([0x01001896], "dcl_tessellator_partitioning partitioning_fractional_odd"),
    ([0x01001897], "dcl_tessellator_output_primitive output_triangle_cw"),
    ([0x02000098, 0x41800000], "dcl_hs_max_tessfactor l(16.000000)"),
    ([0x02000099, 4], "dcl_hs_fork_phase_instance_count 4"),
    ([0x020000CE, 24], "dcl_gsinstances 24"),
    ([0x01000071], "hs_decls "),
    ([0x01000073], "hs_fork_phase "),
    # resinfo_uint: return type 2 in bits 11..12
    ([0x0700103D, 0x001000F2, 0, 0x00004001, 0, 0x00107E46, 0], "resinfo_uint r0.xyzw, l(0), t0.xyzw"),
    # store_raw u0.x, l(0), l(1.0): the data operand is typeless (mov-style rule)
    ([0x070000A6, 0x0011E012, 0, 0x00004001, 0, 0x00004001, 0x3F800000], "store_raw u0.x, l(0), l(1.000000)"),
    # imm_atomic_iadd r0.x, u0, l(0), l(1)
    ([0x090000B4, 0x00100012, 0, 0x0011E000, 0, 0x00004001, 0, 0x00004001, 1],
     "imm_atomic_iadd r0.x, u0, l(0), l(1)"),
    ([0x01000074], "hs_join_phase "),
]


@pytest.mark.parametrize("words, text", SM5_CASES, ids=[c[1] for c in SM5_CASES])
def test_sm5_text_and_round_trip(words: list[int], text: str) -> None:
    prog = program(PS_5_0, words)
    assert text_of(prog)[1:] == [text]
    assert encode(decode(prog)) == prog


def test_legacy_constant_buffer_spelling() -> None:
    dcl = [0x04000059, 0x00208000, 0, 4]  # 8<<12 (constant buffer) | 2<<20 (2D)
    # cb0[4] declaration: 2D operand (slot, size), immediateIndexed
    assert text_of(program(PS_4_0, dcl))[1] == "dcl_constantbuffer CB0[4], immediateIndexed"
    assert text_of(program(PS_4_0, dcl), legacy=True)[1] == "dcl_constantbuffer cb0[4], immediateIndexed"


def test_shader_message_printf() -> None:
    # customdata class 4: id 0x200102 (printf), ANSI printf, 2 chars, 1 operand of 2 words, "%d"
    text = struct.pack("<I", int.from_bytes(b"%d\0\0", "little"))
    words = [0x00002035, 0, 0x200102, 1, 2, 1, 2, 0x0010000A, 0, *struct.unpack("<I", text)]
    words[1] = len(words)
    assert text_of(program(PS_5_0, words))[1] == 'printf "%d", r0.x'
    words[2] = 0x200103
    assert text_of(program(PS_5_0, words))[1] == 'errorf "%d", r0.x'

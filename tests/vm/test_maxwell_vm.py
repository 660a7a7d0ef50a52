"""Maxwell VM on small programs assembled from text; every expected value is worked out by hand from
the instruction semantics (comments show the arithmetic), not taken from the VM."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from maxwell_build import build

from shaderkit.formats.bnsh.nvn import ShaderProgramHeader
from shaderkit.isa.maxwell.encoding import ENCODINGS
from shaderkit.vm.maxwell import UNSUPPORTED, MaxwellShader, VMError, supported_encodings


def run(lines: list[str], lanes: int = 4, **kwargs):
    return MaxwellShader(build(lines)).run(lanes=lanes, **kwargs)


def reg(result, index: int) -> list[int]:
    return [int(x) for x in result.registers[:, index]]


def f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


# -- XMAD ------------------------------------------------------------------------------------------
def test_xmad_modes():
    r = run(["MOV32I R3, 0x50003", "MOV32I R4, 0x70002", "MOV32I R5, 0x10",
             "XMAD R2, R3, R4, R5",                # 3 * 2 + 0x10 = 0x16
             "XMAD.CBCC.PSL R6, R3.H1, R4.H1, R5",  # (5 * 7) << 16 + (0x10 + (R4 << 16 = 0x20000)) = 0x250010
             "XMAD.MRG R7, R3, R4.H1, R5",         # 3 * 7 + 0x10 = 0x25, high half from R4's low: 0x00020025
             "MOV32I R5, 0xabcd0010",
             "XMAD.CHI R8, R3, 0x10, R5",          # 3 * 0x10 + (R5 >> 16 = 0xabcd) = 0xabfd
             "XMAD.CLO R9, R3, 0x10, R5",          # 0x30 + 0x10 = 0x40
             "MOV32I R10, 0xfffe",
             "XMAD.ASIGNED R11, R10, R4, RZ",      # -2 * 2 = -4
             "XMAD R12, R10, R4, RZ"])             # 0xfffe * 2 = 0x1fffc
    assert reg(r, 2)[0] == 0x16
    assert reg(r, 6)[0] == 0x250010
    assert reg(r, 7)[0] == 0x00020025
    assert reg(r, 8)[0] == 0xABFD
    assert reg(r, 9)[0] == 0x40
    assert reg(r, 11)[0] == 0xFFFFFFFC
    assert reg(r, 12)[0] == 0x1FFFC


@pytest.mark.parametrize("a, b", [(0x12345678, 0x9ABCDEF1), (0xFFFFFFFF, 0xFFFFFFFF), (7, 0x10000)])
def test_xmad_32bit_multiply_idiom(a, b):
    # the compiler's 32-bit multiply: lo*lo + ((lo*hi) << 16 via MRG/CBCC) == a * b mod 2**32
    r = run([f"MOV32I R0, {a:#x}", f"MOV32I R1, {b:#x}", "XMAD R2, R0, R1, RZ",
             "XMAD.MRG R3, R0, R1.H1, RZ", "XMAD.CBCC.PSL R2, R0.H1, R3.H1, R2"])
    assert reg(r, 2)[0] == a * b & 0xFFFFFFFF


# -- logic, shifts, bit fields ----------------------------------------------------------------------
def test_lop3_luts():
    r = run(["MOV32I R2, 0xc", "MOV32I R3, 0xa", "MOV32I R4, 0x6",
             "LOP3 R1, PT, R2, R3, R4, 0xe8",   # majority(1100, 1010, 0110) = 1110
             "LOP3 R5, PT, R2, R3, R4, 0x96",   # 1100 ^ 1010 ^ 0110 = 0000
             "LOP3 R8, PT, R2, R3, R4, 0xf0",   # a
             "LOP3 R9, PT, R2, R3, R4, 0x0f",   # ~a
             "MOV32I R2, 0x1f", "MOV32I R4, 0x30",
             "LOP3 R6, R2, 0x10, R4, 0x80"])    # 0x1f & 0x10 & 0x30 = 0x10
    assert reg(r, 1)[0] == 0xE
    assert reg(r, 5)[0] == 0
    assert reg(r, 8)[0] == 0xC
    assert reg(r, 9)[0] == 0xFFFFFFF3
    assert reg(r, 6)[0] == 0x10


def test_lop_with_predicate_and_inversion():
    r = run(["MOV32I R2, 0xf0", "MOV32I R3, 0x3c",
             "LOP.NZ.AND R1, P1, R2, R3",        # 0x30, non-zero -> P1
             "LOP.Z.XOR R4, P2, R2, R2",         # 0 -> P2
             "LOP.AND R5, PT, R2, ~R3",          # 0xf0 & ~0x3c = 0xc0
             "LOP32I.OR R6, R2, 0x1"])
    assert reg(r, 1)[0] == 0x30 and reg(r, 4)[0] == 0 and reg(r, 5)[0] == 0xC0 and reg(r, 6)[0] == 0xF1
    assert r.predicates[0, 1] and r.predicates[0, 2]


def test_shifts_of_32_and_more():
    r = run(["MOV32I R2, 0x80000000",
             "SHL R1, R2, 0x21",      # clamped: 0
             "MOV32I R3, 0x3",
             "SHL.W R4, R3, 0x21",    # wrapped: 3 << 1 = 6
             "SHR.U32 R5, R2, 0x21",  # logical, clamped: 0
             "SHR R6, R2, 0x21",      # arithmetic, clamped: all sign bits
             "SHR.W R7, R2, 0x21"])   # arithmetic by 1: 0xc0000000
    assert [reg(r, i)[0] for i in (1, 4, 5, 6, 7)] == [0, 6, 0, 0xFFFFFFFF, 0xC0000000]


def test_funnel_shifts():
    r = run(["MOV32I R2, 0x89abcdef", "MOV32I R3, 0x01234567", "MOV32I R4, 0x8",
             "SHF.L.W R5, R2, R4, R3",   # high word of 0x0123456789abcdef << 8 = 0x23456789
             "SHF.R.W R6, R2, R4, R3"])  # low word of it >> 8 = 0x6789abcd
    assert reg(r, 5)[0] == 0x23456789 and reg(r, 6)[0] == 0x6789ABCD


def test_prmt_bfe_bfi():
    r = run(["MOV32I R2, 0x44332211", "MOV32I R3, 0x88776655",
             "PRMT R1, R2, 0x7351, R3",   # bytes 1,5,3,7 -> 0x88446622
             "PRMT R4, R2, 0xf, R3",      # byte 7 sign-replicated (0xff), then byte 0 three times
             "MOV32I R2, 0xf0a0",
             "BFE.U32 R5, R2, 0x804",     # (0xf0a0 >> 4) & 0xff = 0x0a
             "BFE R6, R2, 0x40c",         # 0xf at bits 12..15, sign-extended: -1
             "BFE R7, R2, 0x408",         # 0x0 at bits 8..11
             "MOV32I R2, 0xab", "MOV32I R3, 0xffffffff",
             "BFI R8, R2, 0x804, R3"])    # 0xffffffff with bits 4..11 = 0xab: 0xfffffabf
    assert reg(r, 1)[0] == 0x88446622
    assert reg(r, 4)[0] == 0x111111FF
    assert [reg(r, i)[0] for i in (5, 6, 7, 8)] == [0xA, 0xFFFFFFFF, 0, 0xFFFFFABF]


def test_popc_flo_sel_imnmx():
    r = run(["MOV32I R2, 0xf0f0", "POPC R1, R2",   # 8 bits set
             "FLO.U32 R3, R2",                     # highest set bit: 15
             "FLO.U32.SH R4, R2",                  # 31 - 15 = 16
             "FLO.U32 R5, RZ",                     # none: 0xffffffff
             "MOV32I R6, 0xfffffffe",              # -2
             "IMNMX R7, R6, R2, PT",               # signed min(-2, 0xf0f0) = -2
             "IMNMX.U32 R8, R6, R2, PT",           # unsigned min = 0xf0f0
             "ISETP.EQ.AND P0, PT, RZ, RZ, PT",
             "SEL R9, R2, R6, P0",                 # P0 true: R2
             "SEL R10, R2, R6, !P0"])
    assert [reg(r, i)[0] for i in (1, 3, 4, 5, 7, 8, 9, 10)] == [8, 15, 16, 0xFFFFFFFF, 0xFFFFFFFE, 0xF0F0,
                                                                  0xF0F0, 0xFFFFFFFE]


# -- integer arithmetic ----------------------------------------------------------------------------
def test_64bit_add_with_carry():
    # 0x1_ffffffff + 0x0_00000001 = 0x2_00000000
    r = run(["MOV32I R0, 0xffffffff", "MOV32I R1, 0x1", "MOV32I R2, 0x1", "MOV R3, RZ",
             "IADD R4.CC, R0, R2", "IADD.X R5, R1, R3"])
    assert reg(r, 4)[0] == 0 and reg(r, 5)[0] == 2


def test_64bit_subtract_with_negated_operands():
    # nouveau's gm107 code generator splits a 64-bit subtraction into IADD.CC lo, a_lo, -b_lo and
    # IADD.X hi, a_hi, -b_hi: the hardware adds ~b plus a carry-in (1, or CC.carry with .X).
    # lane 0: 0x2_00000005 - 0x1_00000003: lo 5 + ~3 + 1 = 0x1_00000002 (2, carry 1),
    #         hi 2 + ~1 + 1 = 0x1_00000001 (1)                         -> 0x1_00000002
    # lane 1: 0x2_00000005 - 0x1_00000000: lo 5 + ~0 + 1 = 0x1_00000005 (5, carry 1: b_lo = 0),
    #         hi 2 + ~1 + 1 = 0x1_00000001 (1)                         -> 0x1_00000005
    # lane 2: 0x1_00000000 - 0x0_00000001: lo 0 + ~1 + 1 = 0xffffffff (carry 0: a borrow),
    #         hi 1 + ~0 + 0 = 0x1_00000000 (0)                         -> 0x0_ffffffff
    a = np.array([[5, 2], [5, 2], [0, 1]], np.uint32)
    b = np.array([[3, 1], [0, 1], [1, 0]], np.uint32)
    r = MaxwellShader(build(["ALD.64 R0, a[0x80]", "ALD.64 R2, a[0x90]",
                             "IADD R4.CC, R0, -R2", "IADD.X R5, R1, -R3"])).run({0: a.view(np.float32),
                                                                             1: b.view(np.float32)}, lanes=3)
    assert reg(r, 4) == [2, 5, 0xFFFFFFFF] and reg(r, 5) == [1, 1, 0]


def test_iadd3_64bit_subtract_with_negated_operands():
    # IADD3 follows IADD's rule: a negated operand adds its complement plus a carry-in of 1; with .X
    # the carry-in is CC.carry instead (a subtract with borrow), a third operand RZ adds nothing.
    # lane 0: 0x2_00000005 - 0x1_00000003: lo 5 + ~3 + 1 + 0 = 0x1_00000002 (2, carry 1),
    #         hi 2 + ~1 + 1 + 0 = 0x1_00000001 (1)                        -> 0x1_00000002
    # lane 1: 0x2_00000005 - 0x1_00000000: lo 5 + ~0 + 1 = 0x1_00000005 (5, carry 1: b_lo = 0),
    #         hi 2 + ~1 + 1 = 0x1_00000001 (1)                            -> 0x1_00000005
    # lane 2: 0x1_00000003 - 0x0_00000005: lo 3 + ~5 + 1 = 0xfffffffe (carry 0: a borrow),
    #         hi 1 + ~0 + 0 = 0x1_00000000 (0)                            -> 0x0_fffffffe
    # (two's complement with the carry added after, hi = 2 + 0xffffffff + 1, would give 2 in lane 0)
    a = np.array([[5, 2], [5, 2], [3, 1]], np.uint32)
    b = np.array([[3, 1], [0, 1], [5, 0]], np.uint32)
    r = MaxwellShader(build(["ALD.64 R0, a[0x80]", "ALD.64 R2, a[0x90]",
                             "IADD3 R4.CC, R0, -R2, RZ", "IADD3.X R5, R1, -R3, RZ",
                             # the same with the negated operand third: 0x2_00000005 + 0x0_00000010
                             # - b: lo 5 + 0x10 + ~b_lo + 1, hi 2 + 0 + ~b_hi + carry
                             "MOV32I R6, 0x10",
                             "IADD3 R7.CC, R0, R6, -R2", "IADD3.X R8, R1, RZ, -R3"])).run(
        {0: a.view(np.float32), 1: b.view(np.float32)}, lanes=3)
    assert reg(r, 4) == [2, 5, 0xFFFFFFFE] and reg(r, 5) == [1, 1, 0]
    # lane 0: lo 0x15 + ~3 + 1 = 0x1_00000012 (0x12, carry 1), hi 2 + ~1 + 1 = 0x1_00000001 (1)
    # lane 1: lo 0x15 + ~0 + 1 = 0x1_00000015 (0x15, carry 1), hi 2 + ~1 + 1 -> 1
    # lane 2: lo 0x13 + ~5 + 1 = 0x1_0000000e (0xe, carry 1), hi 1 + ~0 + 1 = 0x1_00000001 (1)
    assert reg(r, 7) == [0x12, 0x15, 0xE] and reg(r, 8) == [1, 1, 1]


def test_iadd_negation_iscadd_iadd3_imul():
    r = run(["MOV32I R2, 0x10", "MOV32I R3, 0x3",
             "IADD R1, R2, -R3",          # 0x10 - 3 = 0xd
             "ISCADD R4, R3, R2, 0x4",    # (3 << 4) + 0x10 = 0x40
             "IADD3 R5, R2, R3, R2",      # 0x23
             "IADD3 R6, R2, -R3, RZ",     # 0xd
             "MOV32I R7, 0x12345678",
             "IADD3 R8, R7.H1, R7.H0, RZ",  # 0x1234 + 0x5678 = 0x68ac
             "MOV32I R9, 0xfffffffe",
             "IMUL.HILO R10, R9, R3",       # unsigned: (0xfffffffe * 3) >> 32 = 2
             "IMUL.ASIGNED.BSIGNED.HILO R11, R9, R3",  # (-2 * 3) >> 32 = -1
             "IMUL R12, R9, R3"])         # low word of -6: 0xfffffffa
    assert [reg(r, i)[0] for i in (1, 4, 5, 6, 8, 10, 11, 12)] == [0xD, 0x40, 0x23, 0xD, 0x68AC, 2, 0xFFFFFFFF,
                                                                    0xFFFFFFFA]


# -- conversions -----------------------------------------------------------------------------------
def test_f2i_nan_negative_and_out_of_range():
    values = np.array([1.5, -1.5, np.nan, 3e9, -3e9, -0.5, 2.5], np.float32)
    r = MaxwellShader(build(["ALD R2, a[0x80]", "F2I.S32.F32.TRUNC R3, R2", "F2I.U32.F32.FLOOR R4, R2",
                             "F2I.S32.F32 R5, R2", "F2I.S32.F32.CEIL R6, R2"])).run({0: values[:, None]})
    assert reg(r, 3) == [1, 0xFFFFFFFF, 0, 0x7FFFFFFF, 0x80000000, 0, 2]      # NaN -> 0, clamped
    assert reg(r, 4) == [1, 0, 0, 3000000000, 0, 0, 2]                       # negatives -> 0
    assert reg(r, 5) == [2, 0xFFFFFFFE, 0, 0x7FFFFFFF, 0x80000000, 0, 2]      # nearest even
    assert reg(r, 6) == [2, 0xFFFFFFFF, 0, 0x7FFFFFFF, 0x80000000, 0, 3]


def test_i2f_i2i_f2f():
    r = run(["MOV32I R2, 0xfffffffd",       # -3
             "I2F.F32.S32 R3, R2",          # -3.0
             "I2F.F32.U32 R4, R2",          # 4294967293 -> 4294967296.0 (nearest float32)
             "I2F.F32.U32.RZ R5, R2",       # toward zero: 4294967040.0
             "MOV32I R6, 0x1ff",
             "I2I.S32.S8 R7, R6",           # byte 0 = 0xff -> -1
             "I2I.U32.U8 R8, R6",           # 0xff
             "MOV32I R9, 0xbfc00000",       # -1.5
             "F2F.F32.F32.FLOOR R10, R9",   # -2.0
             "F2F.F32.F32.TRUNC R11, R9"])  # -1.0
    assert r.f32(3)[0] == -3.0 and r.f32(4)[0] == 4294967296.0 and r.f32(5)[0] == 4294967040.0
    assert reg(r, 7)[0] == 0xFFFFFFFF and reg(r, 8)[0] == 0xFF
    assert r.f32(10)[0] == -2.0 and r.f32(11)[0] == -1.0


# -- floating point --------------------------------------------------------------------------------
def test_mufu_special_values_and_fmz():
    r = run(["MOV R2, RZ", "MOV32I R3, 0x80000000",
             "MUFU.RCP R4, R2",          # 1/+0 = +inf
             "MUFU.RCP R5, R3",          # 1/-0 = -inf
             "MOV32I R6, 0x40800000",    # 4.0
             "MUFU.RSQ R7, R6",          # 0.5
             "MUFU.LG2 R8, R6",          # 2
             "MUFU.EX2 R9, R6",          # 16
             "MUFU.SQRT R15, R6",        # 2
             "MOV32I R10, 0x7f800000",   # +inf
             "FMUL.FMZ R11, R2, R10",    # 0 * inf = 0 under FMZ
             "FMUL R12, R2, R10",        # NaN otherwise
             "MOV32I R13, 0x40000000",
             "FFMA.FMZ R14, R2, R10, R13"])  # 0 * inf + 2 = 2
    assert r.f32(4)[0] == np.inf and r.f32(5)[0] == -np.inf
    assert (r.f32(7)[0], r.f32(8)[0], r.f32(9)[0], r.f32(15)[0]) == (0.5, 2.0, 16.0, 2.0)
    assert r.f32(11)[0] == 0.0 and np.isnan(r.f32(12)[0]) and r.f32(14)[0] == 2.0


def test_float_modifiers():
    r = run(["MOV32I R2, 0x3f800000",              # 1.0
             "MOV32I R3, 0x33800000",              # 2**-24
             "FADD R4, R2, R3",                    # nearest: tie to even -> 1.0
             "FADD.RP R5, R2, R3",                 # up: 1 + 2**-23
             "FADD.SAT R6, R2, R2",                # 2 -> 1
             "FADD R7, -R2, |R3|",                 # -1 + 2**-24 = -(1 - 2**-24) exactly
             "MOV32I R8, 0x00400000",              # a denormal
             "FADD.FTZ R9, R8, RZ",                # flushed: 0
             "FADD R10, R8, RZ",                   # kept
             "FMUL.D2 R11, R2, R2",                # 1 * 1 / 2
             "FMNMX R12, R2, R3, PT",              # min
             "FMNMX R13, R2, R3, !PT"])            # max
    assert reg(r, 4)[0] == 0x3F800000 and reg(r, 5)[0] == 0x3F800001
    assert r.f32(6)[0] == 1.0 and r.f32(7)[0] == -(1 - 2.0 ** -24)
    assert reg(r, 9)[0] == 0 and reg(r, 10)[0] == 0x00400000
    assert r.f32(11)[0] == 0.5 and r.f32(12)[0] == 2.0 ** -24 and r.f32(13)[0] == 1.0


def test_fsetp_fset_fcmp_psetp():
    r = run(["MOV32I R2, 0x3f800000", "MOV32I R3, 0x7fc00000",    # 1.0, NaN
             "FSETP.GT.AND P0, P1, R2, RZ, PT",   # 1 > 0: P0 true, P1 false
             "FSETP.LT.AND P2, PT, R3, R2, PT",   # NaN < 1: false (ordered)
             "FSETP.LTU.AND P3, PT, R3, R2, PT",  # unordered: true
             "FSET.BF.GE.AND R4, R2, R2, PT",     # 1.0
             "FSET.GE.AND R5, R2, R3, PT",        # false: 0
             "FCMP.LT R6, R2, RZ, R7",            # R7 = 0 < 0? no -> RZ
             "PSETP.AND.OR P4, P5, P0, P1, PT"])  # (P0 & P1) | T
    p = r.predicates[0]
    assert (p[0], p[1], p[2], p[3], p[4], p[5]) == (True, False, False, True, True, True)
    assert r.f32(4)[0] == 1.0 and reg(r, 5)[0] == 0 and reg(r, 6)[0] == 0


# -- control flow ----------------------------------------------------------------------------------
def test_divergent_branch_reconverges_at_sync():
    r = run(["S2R R0, SR_TID.X", "ISETP.LT.AND P0, PT, R0, 0x2, PT", "SSY {join}", "@P0 BRA {else}",
             "MOV32I R1, 0x10", "SYNC", "else:", "MOV32I R1, 0x20", "SYNC",
             "join:", "IADD32I R1, R1, 0x1"])
    assert reg(r, 1) == [0x21, 0x21, 0x11, 0x11]  # lanes 0, 1 took the branch; all ran the join


def test_break_loop_lanes_leave_at_different_iterations():
    r = run(["S2R R0, SR_TID.X", "MOV R1, RZ", "PBK {out}",
             "loop:", "ISETP.GE.AND P0, PT, R1, R0, PT", "@P0 BRK", "IADD32I R1, R1, 0x1", "BRA {loop}",
             "out:", "IADD32I R2, R1, 0x100"])
    assert reg(r, 1) == [0, 1, 2, 3] and reg(r, 2) == [0x100, 0x101, 0x102, 0x103]
    # 3 before the loop, 4 per iteration (ISETP, BRK not taken, IADD32I, BRA), 2 to leave, 2 after
    assert list(r.steps) == [3 + 4 * i + 2 + 2 for i in range(4)]


def test_continue_skips_odd_iterations():
    # sum of the even i in 1..6 = 2 + 4 + 6 = 12
    r = run(["MOV R1, RZ", "MOV R2, RZ", "PBK {out}",
             "loop:", "ISETP.GE.AND P0, PT, R1, 0x6, PT", "@P0 BRK", "PCNT {next}", "IADD32I R1, R1, 0x1",
             "LOP32I.AND R3, R1, 0x1", "ISETP.NE.AND P1, PT, R3, RZ, PT", "@P1 CONT", "IADD R2, R2, R1", "CONT",
             "next:", "BRA {loop}", "out:"], lanes=1)
    assert reg(r, 2) == [12]


def test_call_and_return():
    r = run(["CAL {sub}", "IADD32I R1, R1, 0x1", "EXIT", "sub:", "MOV32I R1, 0x5", "RET"])
    assert reg(r, 1) == [6] * 4


def test_predicated_instructions_and_kil():
    r = run(["S2R R0, SR_TID.X", "ISETP.EQ.AND P0, PT, R0, 0x1, PT", "@!P0 MOV32I R2, 0x9",
             "@P0 KIL", "MOV32I R1, 0x7"])
    assert list(r.killed) == [False, True, False, False]
    assert reg(r, 1) == [7, 0, 7, 7] and reg(r, 2) == [9, 0, 9, 9]


def test_sync_without_ssy_and_runaway_loop_raise():
    with pytest.raises(VMError, match="SYNC"):
        run(["SYNC"])
    with pytest.raises(VMError, match="more than 50 instructions"):
        run(["loop:", "BRA {loop}"], max_steps=50)


def test_straight_line_runs_count_steps_and_stop_at_max_steps():
    # the lanes run straight-line code together (scheduled once): each instruction still counts
    lines = ["MOV32I R1, 0x1", "IADD32I R1, R1, 0x1", "IADD32I R1, R1, 0x1", "IADD32I R1, R1, 0x1"]
    r = run(lines)
    assert reg(r, 1) == [4] * 4 and list(r.steps) == [5] * 4  # four instructions and the EXIT
    assert run(lines, max_steps=5).steps.tolist() == [5] * 4
    with pytest.raises(VMError, match=r"more than 4 instructions \(pc 0x30"):
        run(lines, max_steps=4)  # the EXIT (at 0x30, after the bundle's control word at 0x20) is the fifth


def test_vote():
    r = run(["S2R R0, SR_TID.X", "ISETP.GE.AND P0, PT, R0, 0x2, PT", "VOTE.ANY R1, P1, P0",
             "VOTE.ALL R2, P2, P0"])
    assert reg(r, 1) == [0b1100] * 4 and list(r.predicates[:, 1]) == [True] * 4
    assert list(r.predicates[:, 2]) == [False] * 4


# -- attributes, constants, memory, textures -------------------------------------------------------
def test_attributes_constants_and_local_memory():
    cbuf = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    r = run(["ALD R0, a[0x90]", "ALD.64 R2, a[0x80]",           # attr1.x, attr0.xy
             "MOV32I R4, 0x8", "LDC R5, c[0x3][R4+0x4]",         # c3[12] = 4.0
             "FADD R6, R0, c[0x3][0x4]",                          # attr1.x + 2.0
             "MOV R7, RZ", "STL [R7+0x10], R6", "LDL R8, [R7+0x10]",
             "AST a[0x70], R6", "AST.64 a[0x80], R2"],
            lanes=2, inputs={0: np.array([[1.0, 2.0], [3.0, 4.0]]), "attr1": np.array([[10.0], [20.0]])},
            constant_buffers={3: cbuf.tobytes()}, memory={"local": 0x40})
    assert list(r.f32(5)) == [4.0, 4.0]
    assert list(r.f32(8)) == [12.0, 22.0]
    assert list(r.position[:, 0]) == [12.0, 22.0]
    assert r.attribute(0, 2).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_texs_nearest_and_linear():
    tex = np.zeros((2, 2, 4), np.float32)
    tex[0, 0] = [1, 0, 0, 1]
    tex[0, 1] = [0, 1, 0, 1]
    tex[1, 0] = [0, 0, 1, 1]
    tex[1, 1] = [1, 1, 1, 1]
    lines = ["ALD.64 R0, a[0x80]", "TEXS.2D R4, R6, R0, R1, 0x8, RGBA"]
    uv = np.array([[0.25, 0.25], [0.75, 0.25], [0.5, 0.5]], np.float32)
    near = MaxwellShader(build(lines)).run({0: uv}, textures={8: tex}, sampler="nearest", wrap="clamp")
    got = np.stack([near.f32(4), near.f32(5), near.f32(6), near.f32(7)], axis=1)
    assert got[0].tolist() == [1, 0, 0, 1] and got[1].tolist() == [0, 1, 0, 1]
    lin = MaxwellShader(build(lines)).run({0: uv}, textures={8: tex}, sampler="linear", wrap="clamp")
    got = np.stack([lin.f32(4), lin.f32(5), lin.f32(6), lin.f32(7)], axis=1)
    assert got[2].tolist() == [0.5, 0.5, 0.5, 1.0]  # the centre: mean of the four texels


def _ps_sph(omap_target: int, depth: bool, imap: bytes = b"") -> ShaderProgramHeader:
    raw = bytearray(0x50)
    struct.pack_into("<I", raw, 0, 2 | 3 << 5 | 5 << 10)  # PS, version 3, pixel
    raw[0x18:0x18 + len(imap)] = imap
    struct.pack_into("<II", raw, 0x48, omap_target, 2 if depth else 0)
    return ShaderProgramHeader.from_bytes(bytes(raw))


def test_pixel_outputs_follow_the_sph_and_ipa_perspective():
    # RT0.xyzw in R0..R3, RT1.x in R4, (sample mask R5), depth R6
    sph = _ps_sph(0x1F, True, bytes([0b1010]))  # attribute 0: x and y perspective
    code = build(["IPA.PASS R7, a[0x7c]", "MUFU.RCP R7, R7",
                  "IPA.MULTIPLY R0, a[0x80], R7", "IPA.MULTIPLY R1, a[0x84], R7",
                  "MOV32I R2, 0x3f000000", "MOV32I R3, 0x3f800000", "MOV32I R4, 0x40000000",
                  "MOV32I R6, 0x3e800000"])
    r = MaxwellShader(code, sph, "pixel").run({0: np.array([[0.25, 0.75]]), "position": np.array([[0, 0, 0, 0.5]])})
    assert r.colors[0].tolist() == [[0.25, 0.75, 0.5, 1.0]]
    assert r.colors[1][0, 0] == 2.0 and np.isnan(r.colors[1][0, 1])
    assert r.depth is not None and r.depth.tolist() == [0.25]


def test_half_precision():
    # HADD2: (1.0, 2.0) + (0.5, 0.5) = (1.5, 2.5) as halves 0x3e00, 0x4100
    r = run(["MOV32I R2, 0x40003c00", "MOV32I R3, 0x38003800", "HADD2 R1, R2, R3",
             "HMUL2 R4, R2, R2",                  # (1, 4) = 0x4400_3c00
             "HFMA2 R5, R2, R3, R3"])             # (1*0.5+0.5, 2*0.5+0.5) = (1, 1.5) = 0x3e00_3c00
    assert reg(r, 1)[0] == 0x41003E00 and reg(r, 4)[0] == 0x44003C00 and reg(r, 5)[0] == 0x3E003C00


def test_half_immediates_are_the_top_ten_bits():
    # HADD2's immediate form holds each half's top 10 bits: 0xf0 << 6 = 0x3c00 (1.0), 0xe0 << 6 =
    # 0x3800 (0.5); with the -1.0 field 0x2f0 (sign bit 9 -> bit 15): 0xbc00.
    # (1.0, 2.0) + (1.0, 0.5) = (2.0, 2.5) = halves 0x4000, 0x4100; (1.0, 2.0) * (-1.0, 0.5) = (-1, 1)
    r = run(["MOV32I R2, 0x40003c00", "HADD2 R1, R2, 0xf0, 0xe0", "HMUL2 R3, R2, 0x2f0, 0xe0"])
    assert reg(r, 1)[0] == 0x41004000 and reg(r, 3)[0] == 0x3C00BC00


def test_unsupported_instructions_name_the_mnemonic():
    with pytest.raises(VMError, match="TXA"):
        run(["TXA R1, R2, 0x8, 0xf"])
    with pytest.raises(VMError, match="SUST"):
        run(["SUST.1D.RGBA R2, R1, 0x0"])
    with pytest.raises(VMError, match="constant buffer c\\[0x5\\]"):
        run(["MOV R1, c[0x5][0x0]"])


def test_every_encoding_is_executed_or_listed_unsupported():
    executed = set(supported_encodings())
    for enc in ENCODINGS:
        assert enc.name in executed or enc.mnemonic in UNSUPPORTED, enc.name


def test_i2i_saturation_and_wrap():
    r = run(["MOV32I R2, 0xfffffffb",        # -5
             "I2I.SAT.U8.S32 R1, R2",        # clamped to 0
             "MOV32I R3, 0x12c",             # 300
             "I2I.SAT.U8.S32 R4, R3",        # 255
             "I2I.U8.S32 R5, R3",            # 300 & 0xff = 44
             "MOV32I R6, 0x18000",
             "I2I.S16.S32 R7, R6"])          # 0x8000 as S16: -32768
    assert [reg(r, i)[0] for i in (1, 4, 5, 7)] == [0, 255, 44, 0xFFFF8000]


def test_shfl_modes():
    lines = ["S2R R0, SR_LANEID", "IMUL32I R2, R0, 0xa",     # R2 = lane * 10
             "SHFL.IDX R1, PT, R2, 0x3, 0x1f",               # everyone reads lane 3
             "SHFL.BFLY R4, P1, R2, 0x1, 0x1f",              # lane ^ 1
             "SHFL.DOWN R5, P2, R2, 0x2, 0x1f",              # lane + 2 while <= 31
             "SHFL.UP R6, P3, R2, 0x1, 0x0"]                 # lane - 1 while >= 0
    r = run(lines, lanes=32)
    lane = np.arange(32)
    assert reg(r, 1) == [30] * 32
    assert reg(r, 4) == list((lane ^ 1) * 10)
    assert reg(r, 5) == [(i + 2) * 10 if i + 2 <= 31 else i * 10 for i in lane]
    assert list(r.predicates[:, 2]) == [i + 2 <= 31 for i in lane]
    assert reg(r, 6) == [(i - 1) * 10 if i >= 1 else 0 for i in lane]
    assert list(r.predicates[:, 3]) == [i >= 1 for i in lane]


def test_shared_memory_atomics_run_in_lane_order():
    r = run(["MOV R2, RZ", "MOV32I R3, 0x1", "ATOMS.ADD R1, [R2], R3",   # olds 0, 1, 2, 3; memory 4
             "MOV32I R5, 0x4", "MOV32I R6, 0x64",
             "ATOMS.CAS R7, R2, R5, 0x0",                                # lane 0 swaps 4 -> 100
             "LDS R8, [R2]"], memory={"shared": bytes(16)})
    assert reg(r, 1) == [0, 1, 2, 3]
    assert reg(r, 7) == [4, 100, 100, 100] and reg(r, 8) == [100] * 4


def test_atoms_offset_is_in_bytes_and_encoded_in_words():
    # [R2+0x8] is byte 8, word 2 of shared memory: the 22-bit field (bits 30..51) holds 2
    from shaderkit.errors import AssemblyError
    from shaderkit.isa.maxwell.decode import words_of

    code = build(["MOV R2, RZ", "MOV32I R3, 0x5", "ATOMS.ADD R1, [R2+0x8], R3", "LDS R4, [R2+0x8]", "LDS R5, [R2]"])
    assert words_of(code)[3] >> 30 & 0x3FFFFF == 2
    r = MaxwellShader(code).run(lanes=2, memory={"shared": bytes(16)})
    assert reg(r, 1) == [0, 5] and reg(r, 4) == [10, 10] and reg(r, 5) == [0, 0]
    with pytest.raises(AssemblyError, match="multiple of 4"):
        build(["ATOMS.ADD R1, [R2+0x6], R3"])


def test_geometry_emit_and_cut():
    r = run(["S2R R0, SR_LANEID", "I2F.F32.U32 R0, R0", "AST a[0x70], R0", "OUT.EMIT R1, RZ, RZ",
             "FADD R0, R0, 1", "AST a[0x70], R0", "OUT.EMITTHENCUT R1, R1, RZ"], lanes=2)
    for lane in range(2):
        vertices = r.emitted[lane]
        assert [v[0x70 // 4].view(np.float32) for v, _ in vertices] == [lane, lane + 1]
        assert [cut for _, cut in vertices] == [False, True]
    assert reg(r, 1) == [2, 2]  # the output handle counts emitted vertices


def test_a_run_that_emits_nothing_has_an_empty_list_per_lane():
    r = run(["MOV32I R1, 0x1"], lanes=3)
    assert len(r.emitted) == 3 and r.emitted == [[], [], []] and r.emitted[-1] == []
    assert r.emitted[0:2] == [[], []]
    with pytest.raises(IndexError):
        r.emitted[3]


# -- texture targets (register layouts: coordinates in Ra.., LOD/reference/offsets/handle in Rb..) --
def _tex_run(lines: list[str], inputs: dict, textures: dict, lanes: int, **kwargs):
    return MaxwellShader(build(["ALD.128 R0, a[0x80]", *lines])).run(inputs, textures=textures, lanes=lanes, **kwargs)


def test_texs_explicit_lod_picks_the_mip_level():
    levels = [np.full((4, 4), 0.25), np.full((2, 2), 0.5), np.full((1, 1), 1.0)]
    r = _tex_run(["TEXS.2D_LL R4, RZ, R0, R2, 0x8, R"], {0: np.array([[0.5, 0.5, 1.0, 0], [0.5, 0.5, 2.3, 0]])},
                 {8: levels}, 2)  # u, v in R0, R1; LOD in R2: level 1, then round(2.3) = 2
    assert list(r.f32(4)) == [0.5, 1.0]


def test_texs_depth_compare():
    depth = np.array([[0.2, 0.4], [0.6, 0.8]], np.float32)
    r = _tex_run(["TEXS.2D_DC R4, RZ, R0, R2, 0x8, R"], {0: np.array([[0.25, 0.25, 0.1, 0], [0.25, 0.25, 0.3, 0]])},
                 {8: depth}, 2, sampler="nearest")  # reference 0.1 <= 0.2 passes, 0.3 does not
    assert list(r.f32(4)) == [1.0, 0.0]


def test_tex_3d_and_cube():
    volume = np.zeros((2, 2, 2), np.float32)
    for z in range(2):
        for y in range(2):
            for x in range(2):
                volume[z, y, x] = 100 * z + 10 * y + x
    r = _tex_run(["TEX.3D R4, PT, R0, RZ, 0x8, 0x1"], {0: np.array([[0.75, 0.25, 0.75, 0]])}, {8: volume}, 1,
                 sampler="nearest")
    assert r.f32(4)[0] == 101  # x = 1, y = 0, z = 1
    faces = np.stack([np.full((2, 2), k + 1.0) for k in range(6)])  # +X, -X, +Y, -Y, +Z, -Z
    directions = np.array([[1.0, 0, 0, 0], [0, -1.0, 0, 0], [0, 0, -2.0, 0], [-0.5, 0.2, 0.1, 0]])
    r = _tex_run(["TEX.CUBE R4, PT, R0, RZ, 0x8, 0x1"], {0: directions}, {8: faces}, 4, sampler="nearest")
    assert list(r.f32(4)) == [1, 4, 6, 2]


def test_tlds_integer_texels_stay_integers():
    tex = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 0x7FFFFFFF]]], np.int32)
    coords = np.array([[1, 1, 0, 0], [2, 0, 0, 0]], np.int64)  # (1, 1) inside, (2, 0) outside: 0
    r = MaxwellShader(build(["ALD.128 R0, a[0x80]", "TLDS.2D_LZ R4, RZ, R0, R1, 0x8, RG"])).run(
        {"a[0x80]": coords}, textures={8: tex})
    assert reg(r, 4) == [7, 0] and reg(r, 5) == [0x7FFFFFFF, 0]


def test_bindless_tex_per_lane_handles():
    textures = {0x10: np.full((2, 2, 4), 0.25), 0x11: np.full((2, 2, 4), 0.75)}
    handles = np.array([[0x10], [0x00300011]], np.int64)  # the second by its texture id (low 20 bits)
    r = MaxwellShader(build(["ALD.64 R0, a[0x80]", "ALD R2, a[0x90]", "TEX.B.2D R4, PT, R0, R2, 0x1"])).run(
        {0: np.array([[0.5, 0.5], [0.5, 0.5]]), "a[0x90]": handles}, textures=textures)
    assert list(r.f32(4)) == [0.25, 0.75]


def test_tld4s_gather_order_and_txq():
    tex = np.zeros((2, 2, 4), np.float32)
    tex[..., 1] = [[1, 2], [3, 4]]  # green: row 0 = (1, 2), row 1 = (3, 4)
    r = _tex_run(["TLD4S.G R4, R6, R0, R1, 0x8"], {0: np.array([[0.5, 0.5, 0, 0]])}, {8: tex}, 1)
    # (i0, j1), (i1, j1), (i1, j0), (i0, j0) = 3, 4, 2, 1
    assert [r.f32(i)[0] for i in (4, 5, 6, 7)] == [3, 4, 2, 1]
    r = _tex_run(["TXQ.TEXHEADERDIMENSION R4, R0, 0x8, 0xf"], {}, {8: [np.zeros((3, 5, 4)), np.zeros((1, 2, 4))]}, 1)
    assert [reg(r, i)[0] for i in (4, 5, 6, 7)] == [5, 3, 1, 2]  # width, height, depth, levels


def test_fswzadd_operation_by_quad_position():
    # mask 0xe4: lane 0 a + b, lane 1 b - a, lane 2 a - b, lane 3 b
    r = run(["MOV32I R2, 0x40400000", "MOV32I R3, 0x40a00000", "FSWZADD R1, R2, R3, 0xe4"])  # a = 3, b = 5
    assert list(r.f32(1)) == [8.0, 2.0, -2.0, 5.0]


def test_64bit_global_addresses_and_indexed_constant_buffers():
    memory = np.arange(8, dtype=np.uint32) * 11  # words 0, 11, 22, ... at GPU address 0x1_0000_0000
    r = run(["MOV32I R2, 0x10", "MOV32I R3, 0x1",          # R3:R2 = 0x1_0000_0010: word 4
             "LDG.E R4, [R2+0x4]",                          # word 5 = 55
             "LDG.B64.E R6, [R2]",                           # words 4, 5 = 44, 55
             "MOV32I R8, 0x77", "STG.E [R2+0x8], R8",       # word 6 = 0x77
             "LDG.E R9, [R2+0x8]",
             "MOV32I R10, 0x10008",                         # c[3 + 1][0x8 + 0x4]
             "LDC.IS R11, c[0x3][R10+0x4]"],
            lanes=1, memory={"global": (0x1_0000_0000, memory.tobytes())},
            constant_buffers={3: np.zeros(4, np.uint32), 4: np.array([1, 2, 3, 4], np.uint32)})
    assert [reg(r, i)[0] for i in (4, 6, 7, 9, 11)] == [55, 44, 55, 0x77, 4]


def test_nested_divergence_inside_a_loop_and_same_address_stores():
    # for i in 0..lane: if i is odd: acc += 10 else: acc += 1   (lane 3: 1 + 10 + 1 + 10 = 22)
    r = run(["S2R R0, SR_LANEID", "MOV R1, RZ", "MOV R2, RZ", "PBK {out}",
             "loop:", "ISETP.GT.AND P0, PT, R1, R0, PT", "@P0 BRK",
             "LOP32I.AND R3, R1, 0x1", "ISETP.NE.AND P1, PT, R3, RZ, PT",
             "SSY {join}", "@P1 BRA {odd}", "IADD32I R2, R2, 0x1", "SYNC",
             "odd:", "IADD32I R2, R2, 0xa", "SYNC",
             "join:", "IADD32I R1, R1, 0x1", "BRA {loop}",
             "out:", "STS [RZ], R0", "LDS R4, [RZ]"], lanes=4, memory={"shared": bytes(4)})
    assert reg(r, 2) == [1, 11, 12, 22]
    assert reg(r, 4) == [3, 3, 3, 3]  # every lane stored to one word: the last lane's value stays


def test_txd_samples_level_zero_and_tmml_reports_lod_zero():
    levels = [np.full((2, 2), 0.25), np.full((1, 1), 0.5)]
    r = _tex_run(["TXD.2D R4, PT, R0, R2, 0x8, 0x1", "TMML.2D R5, R0, RZ, 0x8, 0x3"],
                 {0: np.array([[0.5, 0.5, 9.0, 9.0]])}, {8: levels}, 1)
    assert r.f32(4)[0] == 0.25 and reg(r, 5)[0] == 0 and reg(r, 6)[0] == 0


def test_per_texture_sampler_state():
    tex = np.array([[0.0, 1.0]], np.float32)  # 1 x 2: texel centres at u = 0.25, 0.75
    lines = ["TEXS.2D R4, RZ, R0, R1, 0x8, R", "TEXS.2D R5, RZ, R0, R1, 0x9, R"]
    r = _tex_run(lines, {0: np.array([[0.5, 0.5, 0, 0]])},
                 {8: tex, 9: {"levels": tex, "filter": "nearest", "wrap": "clamp"}}, 1, sampler="linear")
    assert r.f32(4)[0] == 0.5 and r.f32(5)[0] == 1.0  # bilinear midpoint; nearest picks texel 1


def test_vmnmx():
    r = run(["MOV32I R2, 0x5", "MOV32I R3, 0x9", "MOV32I R5, 0xfffffffd", "MOV32I R7, 0x12345678",
             "VMNMX.U32.U32.ACC.MN R1, R2, R3, RZ",      # max(5, 9) + 0 = 9
             "VMNMX.S32.S32.ACC R4, R2, R5, RZ",         # signed min(5, -3) = -3
             "VMNMX.U32.S32.ACC.MN R6, R2, R5, RZ",      # max(5, -3) = 5 (exact integers)
             "VMNMX.U32.U32.ACC R8, R2, R3, R2",         # min(5, 9) + 5 = 10
             "VMNMX.U8B1.U32.MRG16L R9, R7, R3, R7",     # min(0x56, 9) = 9 into C's low half: 0x12340009
             "VMNMX.S32.S32.SAT.ACC R10, R5, R5, RZ"])   # min(-3, -3), signed result saturated at 0
    assert [reg(r, i)[0] for i in (1, 4, 6, 8, 9, 10)] == [9, 0xFFFFFFFD, 5, 10, 0x12340009, 0]


def test_predicate_register_moves_lea_icmp_iset():
    r = run(["ISETP.EQ.AND P0, PT, RZ, RZ, PT", "ISETP.EQ.AND P2, PT, RZ, RZ, PT",
             "P2R R1, PR, RZ, 0x7f",                 # P0, P2 set: 0b101
             "MOV32I R3, 0x7a", "R2P PR, R3, 0x7f",  # P1, P3..P6 set, P0, P2 clear
             "P2R R4, PR, RZ, 0x7f",
             "MOV32I R2, 0x3", "MOV32I R3, 0x100",
             "LEA R5, P6, R2, R3, 0x4",              # (3 << 4) + 0x100 = 0x130, no carry
             "MOV32I R6, 0x7", "MOV32I R7, 0x8", "MOV32I R8, 0xffffffff",
             "ICMP.LT R9, R6, R7, R8",               # C = -1 < 0 (signed): A = 7
             "ICMP.LT.U32 R10, R6, R7, R8",          # 0xffffffff < 0 unsigned: no, B = 8
             "ISET.BF.LT.AND R11, R2, R3, PT",       # 3 < 0x100: 1.0
             "IMAD R12, R2, R6, R7",                 # 3 * 7 + 8 = 29
             "IMAD.HILO.BSIGNED.ASIGNED R13, R8, R2, RZ"])  # high word of -1 * 3 = -1
    assert [reg(r, i)[0] for i in (1, 4, 5, 9, 10, 12, 13)] == [0b101, 0x7A, 0x130, 7, 8, 29, 0xFFFFFFFF]
    assert r.f32(11)[0] == 1.0 and not r.predicates[0, 6]


def test_doubles_and_float_conversions():
    r = run(["MOV R2, RZ", "MOV32I R3, 0x3ff80000",      # 1.5
             "MOV R6, RZ", "MOV32I R7, 0x40020000",      # 2.25
             "MOV R8, RZ", "MOV32I R9, 0x3fe40000",      # 0.625
             "DADD R10, R2, R6",                          # 3.75
             "DMUL R12, R2, R6",                          # 3.375
             "DFMA R14, R2, R6, R8",                      # 4.0
             "DSETP.LT.AND P0, PT, R2, R6, PT",           # 1.5 < 2.25
             "MOV32I R16, 0x3dcccccd",                    # 0.1f
             "F2F.F64.F32 R18, R16",                      # exactly the float's value as a double
             "MOV32I R20, 0x3fc00000",
             "F2F.F16.F32 R21, R20",                      # 1.5 as a half: 0x3e00
             "MOV32I R22, 0x3c00",
             "F2F.F32.F16 R23, R22",                      # 1.0
             "MOV32I R24, 0x40000000",
             "MUFU.RCP64H R25, R24",                      # high word of 1 / 2.0 = 0x3fe00000
             "MOV32I R26, 0xfffffffd",
             "I2F.F64.S32 R28, R26",                      # -3.0
             "F2I.S32.F64.TRUNC R30, R28"])               # -3
    pair = lambda i: int(reg(r, i)[0]) | int(reg(r, i + 1)[0]) << 32  # noqa: E731
    as_double = lambda bits: struct.unpack("<d", struct.pack("<Q", bits))[0]  # noqa: E731
    assert [as_double(pair(i)) for i in (10, 12, 14)] == [3.75, 3.375, 4.0] and r.predicates[0, 0]
    assert as_double(pair(18)) == float(np.float32(0.1))
    assert reg(r, 21)[0] == 0x3E00 and r.f32(23)[0] == 1.0 and reg(r, 25)[0] == 0x3FE00000
    assert as_double(pair(28)) == -3.0 and reg(r, 30)[0] == 0xFFFFFFFD


def test_half_compares_al2p_and_output_reads():
    r = run(["MOV32I R2, 0x42003c00", "MOV32I R3, 0x40004000",   # (1, 3) against (2, 2)
             "HSETP2.LT.AND P0, P1, R2, R3, PT",                   # 1 < 2, not 3 < 2
             "HSET2.BF.LT.AND R4, R2, R3, PT",                     # halves 1.0 / 0: 0x00003c00
             "MOV32I R5, 0x10", "AL2P R6, P2, a[R5+0x80]",         # 0x90
             "MOV32I R7, 0x40400000", "AST a[0x70], R7", "ALD.O R8, a[0x70]"])
    assert r.predicates[0, 0] and not r.predicates[0, 1]
    assert reg(r, 4)[0] == 0x3C00 and reg(r, 6)[0] == 0x90 and r.f32(8)[0] == 3.0


def test_a_field_value_without_a_meaning_is_a_vm_error():
    # PRMT's mode field (bits 48..51) names values 1..6 (F4E .. RC16); 0xA has no meaning
    code = bytearray(build(["PRMT R1, R2, 0x7351, R3"]))
    at = 8  # the first instruction follows the bundle's control word
    word = struct.unpack_from("<Q", code, at)[0]
    assert (word >> 48) & 0xF == 0
    struct.pack_into("<Q", code, at, word | 0xA << 48)
    with pytest.raises(VMError, match="PRMT at 0x8: .*no defined meaning"):
        MaxwellShader(bytes(code)).run(lanes=1)


# -- video instructions (PTX ISA "Scalar Video Instructions": exact sub-word integers, optSaturate,
#    optSecOp, optMerge) -----------------------------------------------------------------------------
_VIDEO_SETUP = ["MOV32I R2, 0x80ff7f05",  # bytes b0 5, b1 0x7f, b2 0xff, b3 0x80; h0 0x7f05, h1 0x80ff
                "MOV32I R3, 0x00c80009",  # b0 9, b2 0xc8 = 200; h0 9, h1 0xc8
                "MOV32I R4, 0x12345678",  # C
                "MOV32I R5, 0xfffffff0"]  # C = -16 (signed), 0xfffffff0 (unsigned)


def test_vadd_selects_signs_negation_and_secondary_ops():
    r = run([*_VIDEO_SETUP,
             "VADD.U8B2.U8B0.ACC R10, R2, R3, RZ",               # 0xff + 9 = 264 = 0x108
             "VADD.S8B2.U8B0.ACC R11, R2, R3, RZ",               # -1 + 9 = 8
             "VADD.NEGB.DFORMAT.S8B3.U8B2.SAT.ACC R12, R2, R3, RZ",  # -128 - 200 = -328 (in S32 range)
             "VADD.NEGB.S8B3.U8B2.SAT.ACC R13, R2, R3, R4",      # -328 clamped to U32 [0, ..] = 0, + C
             "VADD.U16H1.U16H1.SAT.MRG16L R14, R2, R2, R4",      # 0x80ff * 2 = 0x101fe -> U16 max 0xffff
             "VADD.U16H1.U16H1.MRG16L R15, R2, R2, R4",          # no SAT: low half 0x01fe into C's h0
             "VADD.DFORMAT.S8B3.S8B3.SAT.MRG8B2 R16, R2, R2, R4",  # -256 -> S8 min -128 = 0x80 into b2
             "VADD.U8B0.U8B0.MIN R17, R2, R3, R4",               # min(5 + 9, 0x12345678) = 14
             "VADD.NEGB.DFORMAT.U8B0.U8B0.MAX R18, R2, R3, R5",  # signed max(5 - 9, -16) = -4
             "VADD.NEGB.U8B0.U8B0.MAX R19, R2, R3, R5",          # unsigned: max(-4, 0xfffffff0) = 0xfffffff0
             "VADD.PO.U8B0.U8B0.ACC R20, R2, R3, RZ",            # 5 + 9 + 1 = 15
             "VADD.NEGA.U8B0.U8B0.ACC R21, R2, R3, RZ",          # -5 + 9 = 4
             "VADD.ACC R22, R2, 0xfff0, RZ",                     # 5 + 0xfff0 (unsigned imm16) = 0xfff5
             "VADD.BSIGNED.ACC R23, R2, 0xfff0, RZ",             # 5 + -16 = -11 = 0xfffffff5
             "VADD.U8B0.U8B0.MRG16H R24, R2, R3, R4"])           # 14 into C's h1: 0x000e5678
    assert [reg(r, i)[0] for i in range(10, 25)] == [
        0x108, 8, 0xFFFFFEB8, 0x12345678, 0x1234FFFF, 0x123401FE, 0x12805678, 14, 0xFFFFFFFC, 0xFFFFFFF0,
        15, 4, 0xFFF5, 0xFFFFFFF5, 0x000E5678]


def test_vabsdiff_vset_vsetp():
    r = run([*_VIDEO_SETUP,
             "VABSDIFF.U8B0.U8B2.ACC R10, R2, R3, R4",        # |5 - 200| = 195 = 0xc3, + C = 0x1234573b
             "VABSDIFF.S8B3.U8B0.ACC R11, R2, R3, RZ",        # |-128 - 9| = 137
             "VABSDIFF.DFORMAT.S8B3.U8B0.SAT.MRG8B0 R12, R2, R3, R4",  # 137 -> S8 max 0x7f into b0
             "VSET.LT.U8B0.U8B2.ACC R13, R2, R3, RZ",         # 5 < 200: 1
             "VSET.GT.S8B3.U8B0.ACC R14, R2, R3, RZ",         # -128 > 9: 0
             "VSET.GT.U8B3.U8B0.ACC R15, R2, R3, R4",         # 128 > 9: 1, + C = 0x12345679
             "VSET.LT.U8B0.U8B2.MRG8B2 R16, R2, R3, R4",      # 1 into b2: 0x12015678
             "VSETP.S8B3.U8B0.LT.AND P0, P1, R2, R3, PT",     # -128 < 9: P0 true, P1 false
             "VSETP.U8B3.U8B0.LT.AND P2, P3, R2, R3, PT",     # 128 < 9: P2 false, P3 true
             "VSETP.U16H0.GE.AND P4, P5, R2, 0x7f05, PT"])  # 0x7f05 >= 0x7f05 (imm16): P4 true, P5 false
    assert [reg(r, i)[0] for i in range(10, 17)] == [0x1234573B, 137, 0x1234567F, 1, 0, 0x12345679, 0x12015678]
    assert list(r.predicates[0, :6]) == [True, False, False, True, True, False]
    # unequal values: h1 0x80ff is -32513 signed, 33023 unsigned, against 0x7f05 = 32517 (equal
    # above: GE true where GT, LT, NE would be false; greater here: GE true where LE, EQ are false)
    r = run([*_VIDEO_SETUP,
             "VSETP.S16H1.GE.AND P0, P1, R2, 0x7f05, PT",   # -32513 >= 32517: P0 false, P1 true
             "VSETP.U16H1.GE.AND P2, P3, R2, 0x7f05, PT",   # 33023 >= 32517: P2 true, P3 false
             "VSETP.U16H1.LE.AND P4, PT, R2, 0x7f05, PT",   # 33023 <= 32517: false
             "VSETP.U16H1.EQ.AND P5, PT, R2, 0x7f05, PT"])  # false
    assert list(r.predicates[0, :6]) == [False, True, True, False, False, False]


def test_vshl_vshr_clamp_wrap_sign_and_saturation():
    r = run([*_VIDEO_SETUP,
             "MOV32I R6, 0x4", "MOV32I R7, 0x21", "MOV32I R8, 0x40000000", "MOV32I R9, 0x1",
             "VSHR.S32.U32.ACC R10, R2, R6, RZ",      # 0x80ff7f05 as S32 >> 4 (sign fill) = 0xf80ff7f0
             "VSHR.U32.U32.ACC R11, R2, R6, RZ",      # zero fill: 0x080ff7f0
             "VSHR.S32.U32.ACC R12, R2, R7, RZ",      # count 33 clamps to 32: all sign bits, 0xffffffff
             "VSHR.MV.S32.U32.ACC R13, R2, R7, RZ",   # wrap: 33 & 31 = 1: 0xc07fbf82
             "VSHL.U32.U32.ACC R14, R9, R7, RZ",      # 1 << 32 (clamped) = 2**32: low 32 bits 0
             "VSHL.MV.U32.U32.ACC R15, R9, R7, RZ",   # 1 << 1 = 2
             "VSHL.DFORMAT.U32.U32.SAT.ACC R16, R8, R9, RZ",  # 0x80000000 > S32 max: 0x7fffffff
             "VSHL.U32.U32.SAT.ACC R17, R8, R9, RZ",  # fits U32: 0x80000000
             "VSHL.U8B1.ACC R18, R2, 0x4, R4",        # 0x7f << 4 = 0x7f0, + C = 0x12345e68
             "MOV32I R5, 0x2",
             "VSHL.U32.U32.SAT.ACC R19, R8, R5, RZ",  # 0x40000000 << 2 = 2**32 > U32 max: 0xffffffff
             "VSHL.U32.U32.ACC R20, R8, R5, RZ"])     # no SAT: low 32 bits of 2**32, 0
    assert [reg(r, i)[0] for i in range(10, 21)] == [0xF80FF7F0, 0x080FF7F0, 0xFFFFFFFF, 0xC07FBF82, 0, 2,
                                                     0x7FFFFFFF, 0x80000000, 0x12345E68, 0xFFFFFFFF, 0]


def test_vmad_negations_po_scale_and_saturation():
    # PTX vmad: product and C exact; -(a*b) is ~(a*b) + 1, -c is ~c + 1, PO adds 1; scale shifts
    r = run([*_VIDEO_SETUP,
             "MOV32I R6, 0x7fffffff", "MOV32I R7, 0x2",
             "VMAD.U8B1.U8B2 R10, R2, R3, R4",          # 0x7f * 200 = 25400 = 0x6338, + C = 0x1234b9b0
             "VMAD.U8B1.U8B2.NEGA R11, R2, R3, R4",     # C - 25400 = 0x1233f340
             "VMAD.U8B1.U8B2.NEGB R12, R2, R3, R4",     # 25400 - C = -0x1233f340 = 0xedcc0cc0
             "VMAD.U8B1.U8B2.PO R13, R2, R3, R4",       # 0x1234b9b1
             "VMAD.U8B1.U8B2.SHR7 R14, R2, R3, R4",     # 0x1234b9b0 >> 7 = 0x246973
             "VMAD.U8B1.U8B2.NEGA.SHR7 R15, R2, R3, R4",  # 0x1233f340 >> 7 = 0x2467e6
             "VMAD.S32.U32.SAT R16, R6, R7, RZ",        # signed: 0xfffffffe > S32 max: 0x7fffffff
             "VMAD.U32.U32.SAT R17, R6, R7, RZ",        # unsigned: 0xfffffffe fits
             "VMAD.U8B0 R18, R2, 0x100, R4",            # 5 * 0x100 + C = 0x12345b78
             # (2**31 - 1)**2 = 2**62 - 2**32 + 1: above U32 max, so SAT gives 0xffffffff; without
             # SAT the low 32 bits, 1
             "VMAD.U32.U32.SAT R19, R6, R6, RZ",
             "VMAD.U32.U32 R20, R6, R6, RZ"])
    assert [reg(r, i)[0] for i in range(10, 21)] == [0x1234B9B0, 0x1233F340, 0xEDCC0CC0, 0x1234B9B1, 0x246973,
                                                     0x2467E6, 0x7FFFFFFF, 0xFFFFFFFE, 0x12345B78, 0xFFFFFFFF, 1]


def test_video_forms_left_out_are_refused_by_name():
    with pytest.raises(VMError, match="VADD.*condition code"):
        run(["VADD.U8B0.U8B0.ACC R1.CC, R2, R3, RZ"])
    with pytest.raises(VMError, match="VABSDIFF4"):
        run(["VABSDIFF4 R1, R2, R3, R4"])


# -- indirect branches -------------------------------------------------------------------------------
# addresses: 0x08 0x10 0x18 | control 0x20 | 0x28 0x30 0x38 | control 0x40 | 0x48 0x50 0x58 ...
_CHAIN = ["MOV32I R1, 0xa",            # 0x28
          "IADD32I R1, R1, 0x10",      # 0x30
          "IADD32I R1, R1, 0x100",     # 0x38
          "SYNC"]                      # 0x48


def test_brx_jumps_per_lane_relative_to_the_next_instruction():
    # BRX at 0x18: target = 0x20 (the next instruction's address) + 0x0 + R0 per lane;
    # 0x20 is a control word, so its bundle's first instruction (0x28) runs.
    # R0 = 0x0 -> 0x20 (0x28): 0xa + 0x10 + 0x100 = 0x11a;  R0 = 0x8 -> 0x28: 0x11a;
    # R0 = 0x10 -> 0x30: 0x110;  R0 = 0x18 -> 0x38: 0x100
    offsets = np.array([0x0, 0x8, 0x10, 0x18], np.uint32)
    code = build(["ALD R0, a[0x80]", "SSY {join}", "BRX R0, 0x0", *_CHAIN, "join:", "IADD32I R2, R1, 0x0"])
    r = MaxwellShader(code).run({0: offsets.view(np.float32)[:, None]}, lanes=4)
    assert reg(r, 1) == [0x11A, 0x11A, 0x110, 0x100] and reg(r, 2) == reg(r, 1)
    # a nonzero immediate and a negative register: 0x20 + 0x18 + (-0x8) = 0x30 -> 0x110 in every lane
    r = run(["MOV32I R0, 0xfffffff8", "SSY {join}", "BRX R0, 0x18", *_CHAIN, "join:", "NOP 0x0"])
    assert reg(r, 1) == [0x110] * 4


def test_jmx_jumps_to_absolute_addresses_from_the_code_address():
    # JMX: R0 + 0x28 is an absolute address; with the program at region address 0 that is 0x28
    # (lane R0 = 0) or 0x38 (R0 = 0x10)
    offsets = np.array([0x0, 0x10], np.uint32)
    code = build(["ALD R0, a[0x80]", "SSY {join}", "JMX R0, 0x28", *_CHAIN, "join:", "NOP 0x0"])
    r = MaxwellShader(code).run({0: offsets.view(np.float32)[:, None]}, lanes=2)
    assert reg(r, 1) == [0x11A, 0x100]
    # the same program placed at region address 0x1000: JMX R0, 0x1030 lands on 0x30 (0x110) for
    # R0 = 0 and on 0x40 for R0 = 0x10, a control word: its bundle's first instruction, the SYNC at
    # 0x48, runs and R1 stays 0
    code = build(["ALD R0, a[0x80]", "SSY {join}", "JMX R0, 0x1030", *_CHAIN, "join:", "NOP 0x0"])
    r = MaxwellShader(code, code_address=0x1000).run({0: offsets.view(np.float32)[:, None]}, lanes=2)
    assert reg(r, 1) == [0x110, 0]


def test_indirect_branch_outside_the_code_and_refused_forms():
    with pytest.raises(VMError, match="outside the"):
        run(["MOV32I R0, 0x100000", "BRX R0, 0x0"])
    with pytest.raises(VMError, match="outside the"):
        run(["MOV32I R0, 0x4", "BRX R0, 0x0"])  # 0x24: not an instruction boundary
    with pytest.raises(VMError, match="constant-buffer branch target"):
        run(["BRX c[0x2][R1+0x10]"])
    with pytest.raises(VMError, match="PRET"):
        run(["PRET {x}", "x:", "NOP 0x0"])


def test_idp_dot_products():
    # PTX dp4a/dp2a. A = 0x80ff7f05: bytes 5, 0x7f, 0xff, 0x80; half-words 0x7f05, 0x80ff.
    # B = 0x03fe0204: bytes 4, 2, 0xfe, 3.
    r = run(["MOV32I R2, 0x80ff7f05", "MOV32I R3, 0x03fe0204", "MOV32I R4, 0x12345678",
             "IDP R10, R2, R3, R4",      # 5*4 + 127*2 + 255*254 + 128*3 = 65428 = 0xff94, + C = 0x1235560c
             "IDP.SRCASIGN.SRCBSIGN R11, R2, R3, RZ",  # 5*4 + 127*2 + (-1)(-2) + (-128)*3 = -108
             "IDP.ISDP R12, R2, R3, RZ",  # 0x7f05*4 + 0x80ff*2 = 130068 + 66046 = 0x2fe12
             "IDP.ISHI.SRCASIGN.ISDP.SRCBSIGN R13, R2, R3, RZ"])  # 32517*(-2) + (-32513)*3 = -162573
    assert [reg(r, i)[0] for i in range(10, 14)] == [0x1235560C, 0xFFFFFF94, 0x2FE12, 0xFFFD84F3]
    with pytest.raises(VMError, match="ISHI"):
        run(["IDP.ISHI R1, R2, R3, R4"])


# -- surfaces ----------------------------------------------------------------------------------------
def _unorm8(v: int) -> int:
    """float32 bits of the UNORM8 value v (v / 255)."""
    return int(np.float32(v / 255).view(np.uint32))


def _lanes(*columns: list[int]) -> dict[int, np.ndarray]:
    """Per-lane words for a[0x80..] (generic attribute 0, components x, y, z, w)."""
    return {0: np.array(list(zip(*columns)), np.uint32).view(np.float32)}


def test_suld_formatted_2d_masks_packing_and_out_of_bounds():
    # surface 3: 2 rows x 3 columns of RGBA8 (UNORM); texel (x, y) holds 40 * (3y + x) + (0, 10, 20, 30)
    surf = (np.arange(6, dtype=np.uint8)[:, None] * 40 + np.array([0, 10, 20, 30], np.uint8)).reshape(2, 3, 4)
    code = build(["ALD.64 R0, a[0x80]",
                  "SULD.2D.RGBA R4, PT, R0, 0x3",
                  "SULD.2D.GA R8, PT, R0, 0x3"])  # G and A only: into R8, R9
    # lane 0 (2, 1): texel 5 -> 200, 210, 220, 230; lane 1 (0, 0): 0, 10, 20, 30;
    # lane 2 (3, 0) and lane 3 (-1, 1) are outside: IGN (the default) loads 0
    r = MaxwellShader(code).run(_lanes([2, 0, 3, 0xFFFFFFFF], [1, 0, 0, 1]), lanes=4, surfaces={3: surf})
    assert [reg(r, i)[0] for i in range(4, 8)] == [_unorm8(200), _unorm8(210), _unorm8(220), _unorm8(230)]
    assert [reg(r, i)[1] for i in range(4, 8)] == [0, _unorm8(10), _unorm8(20), _unorm8(30)]
    assert [reg(r, i)[2] for i in range(4, 8)] == [0, 0, 0, 0] and reg(r, 4)[3] == 0
    assert reg(r, 8)[:2] == [_unorm8(210), _unorm8(10)] and reg(r, 9)[:2] == [_unorm8(230), _unorm8(30)]
    with pytest.raises(VMError, match="outside the surface"):
        MaxwellShader(build(["ALD.64 R0, a[0x80]", "SULD.TRAP.2D.RGBA R4, PT, R0, 0x3"])).run(
            _lanes([3], [0]), lanes=1, surfaces={3: surf})
    with pytest.raises(VMError, match="surface 0x3, which was not given"):
        MaxwellShader(code).run(_lanes([0], [0]), lanes=1)


def test_suld_channels_pad_integer_words_3d_array_and_bindless():
    # a one-channel float32 3D surface (d 2, h 1, w 2): R pads to (r, 0, 0, 1.0)
    vol = np.array([[[1.5, 2.5]], [[3.5, 4.5]]], np.float32)
    code = build(["ALD.64 R0, a[0x80]", "MOV R2, RZ", "MOV32I R2, 0x1",  # (x, y, z) = (lane x, 0, 1)
                  "MOV R1, RZ", "SULD.3D.RGBA R4, PT, R0, 0x1"])
    r = MaxwellShader(code).run(_lanes([1], [0]), lanes=1, surfaces={1: vol})
    assert r.f32(4)[0] == 4.5 and reg(r, 5)[0] == 0 and reg(r, 6)[0] == 0 and r.f32(7)[0] == 1.0
    # int32 texels are raw words (the alpha pad is the integer 1); 2D array: x, y, then the layer
    arr = np.array([[[-7, 8]], [[9, -10]]], np.int32)[..., None]  # (layers 2, h 1, w 2, 1 channel)
    code = build(["ALD.64 R0, a[0x80]", "MOV R1, RZ", "MOV32I R2, 0x1", "SULD.2DARRAY.RA R4, PT, R0, 0x2"])
    r = MaxwellShader(code).run(_lanes([1], [0]), lanes=1, surfaces={2: arr})
    assert reg(r, 4)[0] == 0xFFFFFFF6 and reg(r, 5)[0] == 1  # layer 1, x 1: -10; A pad 1
    # bindless: the handle in R9 names the surface
    code = build(["ALD.64 R0, a[0x80]", "MOV32I R9, 0x1234", "SULDB.2D.R R4, PT, R0, R9"])
    r = MaxwellShader(code).run(_lanes([1], [0]), lanes=1, surfaces={0x1234: np.array([[7, 9]], np.uint32)})
    assert reg(r, 4)[0] == 9


def test_sust_formatted_and_raw_stores():
    surf = np.zeros((2, 2, 4), np.uint8)
    # lane 0 stores (0.0, 1.0, 0.2, 2.0) at (x 1, y 0): UNORM8 0, 255, 0.2f * 255 = 51.0000008
    # (float32: 51.0) -> 51, 2.0 clamps to 255; lane 1 stores at (2, 0), outside: dropped (IGN).
    # Then B alone at (x, 1): 0x3c20a0a1 (0.0098039219...) * 255 = 2.5000000885, which float32
    # makes 2.5, a tie: the VM's rule (np.rint: ties to even) gives 2 (ties away from zero: 3)
    code = build(["ALD.64 R0, a[0x80]", "MOV R4, RZ", "MOV32I R5, 0x3f800000", "MOV32I R6, 0x3e4ccccd",
                  "MOV32I R7, 0x40000000", "SUST.2D.RGBA R0, R4, 0x5",
                  "MOV32I R1, 0x1", "MOV32I R8, 0x3c20a0a1", "SUST.2D.B R0, R8, 0x5"])
    r = MaxwellShader(code).run(_lanes([1, 2], [0, 0]), lanes=2, surfaces={5: surf})
    assert r.surfaces[5][0, 1].tolist() == [0, 255, 51, 255] and r.surfaces[5][0, 0].tolist() == [0, 0, 0, 0]
    assert r.surfaces[5][1, 1].tolist() == [0, 0, 2, 0] and r.surfaces[5][1, 0].tolist() == [0, 0, 0, 0]
    assert surf.sum() == 0  # the caller's array is not changed
    # raw: SUSTD.B64 writes two words into a (w 2, 2 channels) uint32 surface; SULDD reads it back
    words = np.zeros((1, 2, 2), np.uint32)
    code = build(["ALD.64 R0, a[0x80]", "MOV32I R4, 0x11223344", "MOV32I R5, 0x55667788",
                  "SUSTD.2D.B64 R0, R4, 0x6", "SULDD.2D.B32 R10, PT, R0, 0x7",
                  "SULDD.2D.S8 R11, PT, R0, 0x8", "SULDD.2D.U8 R12, PT, R0, 0x8",
                  "MOV32I R0, 0x4", "SULDD.2D.BA.B32 R13, PT, R0, 0x7"])  # byte x 4 -> texel 1
    r = MaxwellShader(code).run(_lanes([1], [0]), lanes=1, surfaces={
        6: words, 7: np.array([[0xAABBCCDD, 0x01020304]], np.uint32), 8: np.array([[0x10, 0xF0]], np.uint8)})
    assert r.surfaces[6][0, 1].tolist() == [0x11223344, 0x55667788]
    assert reg(r, 10)[0] == 0x01020304 and reg(r, 13)[0] == 0x01020304
    assert reg(r, 11)[0] == 0xFFFFFFF0 and reg(r, 12)[0] == 0xF0  # 0xf0 sign- and zero-extended
    with pytest.raises(VMError, match="8-byte access to a surface of 4-byte texels"):
        MaxwellShader(build(["SULDD.2D.B64 R4, PT, R0, 0x7"])).run(
            lanes=1, surfaces={7: np.zeros((1, 1), np.uint32)})


def test_surface_atomics_run_lane_after_lane():
    # four lanes add 1, 2, 3, 4 to the texel (0, 0) holding 5: they see 5, 6, 8, 11, leaving 15;
    # SURED.MAX.S32 with -1, 20, 3, -8 against 15: 20
    code = build(["ALD.64 R6, a[0x80]", "MOV R0, RZ", "MOV R1, RZ",
                  "SUATOM.2D.ADD R4, R0, R6, 0x1", "SURED.2D.MAX.S32 R0, R7, 0x1"])
    r = MaxwellShader(code).run(_lanes([1, 2, 3, 4], [0xFFFFFFFF, 20, 3, 0xFFFFFFF8]), lanes=4,
                                surfaces={1: np.array([[5]], np.uint32)})
    assert reg(r, 4) == [5, 6, 8, 11] and r.surfaces[1].tolist() == [[20]]


def test_jmp_and_jcal_to_absolute_addresses():
    # JMP at 0x08 to 0x38 skips the four MOV32I (0x10, 0x18, 0x28, 0x30): R1 0, R2 7
    r = run(["JMP 0x38", "MOV32I R1, 0xbad", "MOV32I R1, 0xbad", "MOV32I R1, 0xbad", "MOV32I R1, 0xbad",
             "IADD32I R2, R2, 0x7"])
    assert reg(r, 1) == [0] * 4 and reg(r, 2) == [7] * 4
    # JCAL at 0x08 to 0x30 (region address 0x1030 with the program at 0x1000): 0x30 adds 7, RET
    # returns to 0x10, which adds 0x100, then EXIT: 0x107; 0x28 never runs
    code = build(["JCAL 0x1030", "IADD32I R2, R2, 0x100", "EXIT", "MOV32I R1, 0xbad", "IADD32I R2, R2, 0x7", "RET"])
    r = MaxwellShader(code, code_address=0x1000).run(lanes=2)
    assert reg(r, 2) == [0x107] * 2 and reg(r, 1) == [0] * 2

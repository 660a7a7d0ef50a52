"""Hand-checked SM4/SM5 ALU semantics (D3D10/11 rules), one opcode family per test.

Programs are fxc-style lines (tests/vm/sm4_text.py); every expected value is worked out by hand
from the D3D11 functional spec rules quoted in the comments.
"""

from __future__ import annotations

import numpy as np
from sm4_text import f32, machine

INF = float("inf")
NAN = float("nan")


def run1(text: str, v0: list[list[float]] | np.ndarray, v1: list[list[float]] | np.ndarray | None = None) -> np.ndarray:
    """Run over len(v0) lanes with v0 (and v1) as inputs, return o0 bits (lanes, 4)."""
    a = np.asarray(v0)
    b = np.asarray(v1) if v1 is not None else np.zeros_like(a)
    m = machine(text, len(a), v=np.stack([a, b]))
    return m.o[0].copy()


def test_float_arithmetic_and_modifiers() -> None:
    bits = run1("add o0.x, v0.x, v1.x\nmul o0.y, -v0.y, |v1.y|\nmad o0.z, v0.z, v1.z, l(0.5)\n"
                "div o0.w, v0.w, v1.w", [[1.5, 2.0, 3.0, 1.0]], [[0.25, -4.0, 0.5, 4.0]])
    # 1.5+0.25, -(2)*|-4|, 3*0.5+0.5, 1/4
    assert f32(bits).tolist() == [[1.75, -8.0, 2.0, 0.25]]


def test_saturate_clamps_and_nan_becomes_zero() -> None:
    bits = run1("mov_sat o0.xyzw, v0.xyzw\nadd_sat o1.xyzw, v0.xyzw, l(0, 0, 0, 0)",
                [[-0.5, 0.25, 7.0, NAN]])
    # mov_sat is a float op: clamp to [0, 1], NaN -> 0
    assert f32(bits).tolist() == [[0.0, 0.25, 1.0, 0.0]]


def test_dot_products_write_one_value_to_every_masked_component() -> None:
    bits = run1("dp2 o0.x, v0.xyzw, v1.xyzw\ndp3 o0.y, v0.xyzw, v1.xyzw\ndp4 o0.zw, v0.xyzw, v1.xyzw",
                [[1.0, 2.0, 3.0, 4.0]], [[5.0, 6.0, 7.0, 8.0]])
    # 1*5+2*6 = 17; +3*7 = 38; +4*8 = 70
    assert f32(bits).tolist() == [[17.0, 38.0, 70.0, 70.0]]


def test_min_max_return_the_other_operand_for_nan() -> None:
    bits = run1("min o0.x, v0.x, v1.x\nmax o0.y, v0.y, v1.y\nmin o0.z, v0.z, v1.z\nmax o0.w, v0.w, v1.w",
                [[NAN, 2.0, -1.0, NAN]], [[3.0, NAN, -2.0, NAN]])
    out = f32(bits)[0]
    # D3D11: min/max with one NaN operand return the other; both NaN -> NaN
    assert out[:3].tolist() == [3.0, 2.0, -2.0]
    assert np.isnan(out[3])


def test_denormals_flush_in_float_ops_but_not_in_mov() -> None:
    tiny = np.array([1, 0x80000001, 0x00400000, 0x3F800000], np.uint32).view(np.float32)
    m = machine("mul o0.xyzw, v0.xyzw, l(1.0, 1.0, 1.0, 1.0)\nmov o1.xyzw, v0.xyzw", 1, v=tiny[None, None, :])
    # float arithmetic flushes denormal inputs/results to a zero of the same sign
    assert m.o[0][0].tolist() == [0, 0x80000000, 0, 0x3F800000]
    # moves keep the bits
    assert m.o[1][0].tolist() == [1, 0x80000001, 0x00400000, 0x3F800000]


def test_float_to_int_conversions_truncate_and_saturate() -> None:
    values = [[-1.0, 5e9, INF, NAN], [2.9, -2.9, -5e9, -INF]]
    m = machine("ftou o0.xyzw, v0.xyzw\nftoi o1.xyzw, v0.xyzw\nftou o2.xyzw, v1.xyzw\nftoi o3.xyzw, v1.xyzw", 1,
                v=np.array(values, np.float32)[:, None, :])
    # ftou: -1 -> 0, 5e9 -> 0xFFFFFFFF, inf -> 0xFFFFFFFF, NaN -> 0
    assert m.o[0][0].tolist() == [0, 0xFFFFFFFF, 0xFFFFFFFF, 0]
    # ftoi: -1 -> -1, 5e9 -> INT_MAX, inf -> INT_MAX, NaN -> 0
    assert m.o[1][0].view(np.int32).tolist() == [-1, 2147483647, 2147483647, 0]
    # 2.9 -> 2, -2.9 -> 0 (ftou), -5e9 -> 0, -inf -> 0
    assert m.o[2][0].tolist() == [2, 0, 0, 0]
    # 2.9 -> 2, -2.9 -> -2, -5e9 -> INT_MIN, -inf -> INT_MIN
    assert m.o[3][0].view(np.int32).tolist() == [2, -2, -2147483648, -2147483648]


def test_int_to_float_and_rounding() -> None:
    ints = np.array([[7, -3, 16777217, 0]], np.int32)
    m = machine("itof o0.xyzw, v0.xyzw\nutof o1.xyzw, v0.xyzw", 1, v=ints[:, None, :])
    # 16777217 rounds to nearest even float32: 16777216
    assert f32(m.o[0]).tolist() == [[7.0, -3.0, 16777216.0, 0.0]]
    # utof reads -3 as 4294967293 -> 4294967296.0
    assert f32(m.o[1]).tolist() == [[7.0, 4294967296.0, 16777216.0, 0.0]]
    bits = run1("round_ne o0.x, v0.x\nround_ni o0.y, v0.y\nround_pi o0.z, v0.z\nround_z o0.w, v0.w",
                [[2.5, -1.5, -1.5, -1.7]])
    # ties to even: 2.5 -> 2; floor(-1.5) = -2; ceil(-1.5) = -1; trunc(-1.7) = -1
    assert f32(bits).tolist() == [[2.0, -2.0, -1.0, -1.0]]
    bits = run1("frc o0.xyzw, v0.xyzw", [[1.25, -1.25, 3.0, -0.5]])
    # frc = x - floor(x): -1.25 - (-2) = 0.75
    assert f32(bits).tolist() == [[0.25, 0.75, 0.0, 0.5]]


def test_transcendentals_within_d3d_bounds() -> None:
    bits = run1("exp o0.x, v0.x\nlog o0.y, v0.y\nsqrt o0.z, v0.z\nrsq o0.w, v0.w", [[3.0, 8.0, 16.0, 0.25]])
    # exp is 2^x, log is log2(x); rsq(0.25) = 2 (exact here; D3D allows 2 ulp)
    assert f32(bits).tolist() == [[8.0, 3.0, 4.0, 2.0]]
    bits = run1("rcp o0.x, v0.x\nlog o0.y, v0.y\nrsq o0.z, v0.z\nsqrt o0.w, v0.w", [[0.0, 0.0, -1.0, -0.0]])
    out = f32(bits)[0]
    # rcp(0) = +inf, log(0) = -inf, rsq(-1) = NaN, sqrt(-0) = -0
    assert out[0] == INF and out[1] == -INF and np.isnan(out[2]) and out[3] == 0 and np.signbit(out[3])


def test_sincos_writes_two_destinations() -> None:
    m = machine("sincos o0.xy, o1.xy, v0.xyxx", 1, v=np.array([[[0.0, np.pi / 2, 0, 0]]], np.float32))
    assert np.allclose(f32(m.o[0])[0, :2], [0.0, 1.0], atol=1e-6)  # sin
    assert np.allclose(f32(m.o[1])[0, :2], [1.0, 0.0], atol=1e-6)  # cos


def test_float_comparisons_give_all_ones_or_zero() -> None:
    bits = run1("eq o0.x, v0.x, v1.x\nne o0.y, v0.y, v1.y\nlt o0.z, v0.z, v1.z\nge o0.w, v0.w, v1.w",
                [[1.0, NAN, -1.0, NAN]], [[1.0, NAN, 2.0, 0.0]])
    # NaN != NaN is true, NaN >= 0 is false
    assert bits[0].tolist() == [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0]


def test_integer_arithmetic_wraps() -> None:
    a = np.array([[0x7FFFFFFF, 5, -7, 3]], np.int32)
    b = np.array([[1, -9, 2, 4]], np.int32)
    m = machine("iadd o0.x, v0.x, v1.x\nimad o0.y, v0.y, v1.y, l(1)\nineg o0.z, v0.z\n"
                "iadd o0.w, v0.w, -v1.w", 1, v=np.stack([a, b])[:, None, 0])
    # INT_MAX + 1 wraps to INT_MIN; 5*-9+1 = -44; -(-7) = 7; 3 + (-4) = -1 (int negate modifier)
    assert m.o[0][0].view(np.int32).tolist() == [-2147483648, -44, 7, -1]


def test_integer_min_max_compare_signed_and_unsigned() -> None:
    a = np.array([[-1, -1, -1, -1]], np.int32)
    b = np.array([[1, 1, 1, 1]], np.int32)
    m = machine("imin o0.x, v0.x, v1.x\numin o0.y, v0.y, v1.y\nilt o0.z, v0.z, v1.z\nult o0.w, v0.w, v1.w",
                1, v=np.stack([a, b])[:, None, 0])
    # signed -1 < 1; unsigned 0xFFFFFFFF > 1
    assert m.o[0][0].tolist() == [0xFFFFFFFF, 1, 0xFFFFFFFF, 0]


def test_shifts_use_the_low_five_bits_of_the_count() -> None:
    a = np.array([[1, 0x80000000, 0x80000000, 0xF]], np.uint32)
    b = np.array([[33, 4, 36, 32]], np.uint32)
    m = machine("ishl o0.x, v0.x, v1.x\nushr o0.y, v0.y, v1.y\nishr o0.z, v0.z, v1.z\nushr o0.w, v0.w, v1.w",
                1, v=np.stack([a, b])[:, None, 0])
    # 1 << (33&31) = 2; 0x80000000 >> 4 = 0x08000000; arithmetic >> 4: 0xF8000000; >> 0 keeps 0xF
    assert m.o[0][0].tolist() == [2, 0x08000000, 0xF8000000, 0xF]


def test_wide_multiply_divide_and_carry() -> None:
    a = np.array([[0xFFFFFFFF, 7, 0xFFFFFFFF, 3]], np.uint32)
    b = np.array([[2, 2, 1, 5]], np.uint32)
    m = machine("umul o0.x, o1.x, v0.x, v1.x\nudiv o0.y, o1.y, v0.y, v1.y\nuaddc o0.z, o1.z, v0.z, v1.z\n"
                "usubb o0.w, o1.w, v0.w, v1.w", 1, v=np.stack([a, b])[:, None, 0])
    # 0xFFFFFFFF*2 = 0x1_FFFFFFFE (hi 1, lo 0xFFFFFFFE); 7/2 = 3 rem 1; 0xFFFFFFFF+1 = 0 carry 1; 3-5 borrow
    assert m.o[0][0].tolist() == [1, 3, 0, 0xFFFFFFFE]
    assert m.o[1][0].tolist() == [0xFFFFFFFE, 1, 1, 1]
    m = machine("udiv o0.x, o1.x, v0.x, l(0)\nimul o0.y, o1.y, v0.y, v0.y", 1,
                v=np.array([[[9, -2, 0, 0]]], np.int32))
    # udiv by 0: quotient and remainder 0xFFFFFFFF; imul -2*-2 = 4: hi 0, lo 4
    assert m.o[0][0, :2].tolist() == [0xFFFFFFFF, 0]
    assert m.o[1][0, :2].tolist() == [0xFFFFFFFF, 4]


def test_bitwise_and_bit_field_ops() -> None:
    a = np.array([[0xF0F0F0F0, 0x0000FF00, 0x12345678, 0x00000001]], np.uint32)
    m = machine("and o0.x, v0.x, l(0x0FF00FF0)\nor o0.y, v0.y, l(0xF)\nxor o0.z, v0.z, l(0xFFFFFFFF)\n"
                "not o0.w, v0.w\n"
                "ubfe o1.x, l(8), l(8), v0.y\nibfe o1.y, l(4), l(28), v0.x\nbfi o1.z, l(8), l(4), l(0xAB), l(0)\n"
                "bfrev o1.w, v0.w\n"
                "countbits o2.x, v0.x\nfirstbit_lo o2.y, v0.y\nfirstbit_hi o2.z, v0.y\nfirstbit_shi o2.w, l(-1)",
                1, v=a[None])
    assert m.o[0][0].tolist() == [0x00F000F0, 0x0000FF0F, 0xEDCBA987, 0xFFFFFFFE]
    # ubfe: bits 8..15 of 0xFF00 = 0xFF; ibfe: top nibble 0xF sign-extended = -1; bfi puts 0xAB at bit 4
    assert m.o[1][0].tolist() == [0xFF, 0xFFFFFFFF, 0xAB0, 0x80000000]
    # 16 bits set; lowest set bit of 0xFF00 is 8; highest is bit 15, counted from the MSB: 16;
    # firstbit_shi(-1): no bit differs from the sign -> 0xFFFFFFFF
    assert m.o[2][0].tolist() == [16, 8, 16, 0xFFFFFFFF]


def test_half_conversions() -> None:
    m = machine("f32tof16 o0.xyzw, v0.xyzw\nf16tof32 o1.xyzw, l(0x3C00, 0xC000, 0x7BFF, 0x10000)", 1,
                v=np.array([[[1.0, -2.0, 65504.0, 0.5]]], np.float32))
    assert m.o[0][0].tolist() == [0x3C00, 0xC000, 0x7BFF, 0x3800]
    # f16tof32 reads the low 16 bits only: 0x10000 -> 0
    assert f32(m.o[1])[0].tolist() == [1.0, -2.0, 65504.0, 0.0]


def test_movc_swapc_and_swizzles() -> None:
    m = machine("movc o0.xyzw, v0.xyzw, l(1, 2, 3, 4), l(5, 6, 7, 8)\nswapc o1.xy, o2.xy, v0.xyxx, l(1, 2, 0, 0), l(3, 4, 0, 0)\n"
                "mov o3.xyzw, l(1, 2, 3, 4)\nmov o3.yw, o3.wwxx",
                1, v=np.array([[[0, 0xFFFFFFFF, 1, 0]]], np.uint32))
    assert m.o[0][0].tolist() == [5, 2, 3, 8]
    # swapc: dest0 = cond ? src2 : src1, dest1 = cond ? src1 : src2
    assert m.o[1][0, :2].tolist() == [1, 4]
    assert m.o[2][0, :2].tolist() == [3, 2]
    # mask yw takes components y and w of the swizzle .wwxx: y <- w = 4, w <- x = 1
    assert m.o[3][0].tolist() == [1, 4, 3, 1]


def test_doubles_pack_into_component_pairs() -> None:
    pair = np.array([1.5, -0.25], np.float64).view(np.uint32)
    m = machine("dadd o0.xyzw, v0.xyzw, v0.xyzw\ndmul o1.xyzw, v0.xyzw, v0.zwxy\ndtof o2.xy, v0.xyzw\n"
                "ftod o3.xyzw, l(2.0, 3.0, 0, 0)", 1, v=pair[None, None, :])
    assert m.o[0][0].copy().view(np.float64).tolist() == [3.0, -0.5]
    assert m.o[1][0].copy().view(np.float64).tolist() == [-0.375, -0.375]
    assert f32(m.o[2])[0, :2].tolist() == [1.5, -0.25]
    assert m.o[3][0].copy().view(np.float64).tolist() == [2.0, 3.0]


def test_indexable_temps_and_relative_constant_addressing() -> None:
    from shaderkit.vm.sm4.machine import Declarations

    d = Declarations(temps=2, inputs=1, outputs=2, indexable={0: (4, 4)})
    icb = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.uint32)
    d.icb = icb
    text = ("mov x0[0].x, l(10)\nmov x0[1].x, l(11)\nmov x0[2].x, l(12)\nmov x0[3].x, l(13)\n"
            "mov r0.x, v0.x\nmov o0.x, x0[r0.x + 1].x\nmov o1.xyzw, icb[r0.x + 0].xyzw")
    m = machine(text, 2, decl=d, v=np.array([[[0, 0, 0, 0], [1, 0, 0, 0]]], np.int32))
    # lane 0 reads x0[1] = 11 and icb[0]; lane 1 reads x0[2] = 12 and icb[1]
    assert m.o[0][:, 0].tolist() == [11, 12]
    assert m.o[1].tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_dmovc_picks_doubles_by_two_32bit_conditions() -> None:
    # D3D11 dmovc: dest.xy <- first double of src1 if src0's first 32-bit component (after swizzle)
    # has any bit set, else of src2; dest.zw likewise from the second double and src0's second component
    doubles = np.array([[1.5, -0.25], [8.0, 0.5]], np.float64).view(np.uint32)
    condition = np.array([0, 0xFFFFFFFF, 0, 0], np.uint32)
    v = np.stack([doubles[0], doubles[1], condition])[:, None, :]
    m = machine("dmovc o0.xyzw, l(1, 0, 0, 0), v0.xyzw, v1.xyzw\n"
                "dmovc o1.xyzw, v2.yxzw, v0.zwxy, -v1.xyzw\n"
                "dmovc o2.zw, l(0, 7, 0, 0), v0.xyzw, v1.xyzw\n"
                "dmovc_sat o3.xyzw, l(1, 1, 0, 0), v1.xyzw, v0.xyzw", 1, v=v)
    assert m.o[0][0].copy().view(np.float64).tolist() == [1.5, 0.5]  # x true: 1.5; y false: 0.5
    # conditions (0xFFFFFFFF, 0): src1 .zwxy gives -0.25 first; src2 negated gives -0.5 second
    assert m.o[1][0].copy().view(np.float64).tolist() == [-0.25, -0.5]
    # mask .zw: only the second double is written, chosen by the condition's second component (7)
    assert m.o[2][0].tolist()[:2] == [0, 0]
    assert m.o[2][0].copy().view(np.float64).tolist()[1] == -0.25
    assert m.o[3][0].copy().view(np.float64).tolist() == [1.0, 0.5]  # _sat clamps the double 8.0


def test_dmovc_keeps_bits_and_double_saturate_clamps_doubles() -> None:
    words = np.array([0x00000001, 0x7FF00000, 0, 0x80000000], np.uint32)  # signalling NaN, -0.0
    pair = np.array([1.5, -0.25], np.float64).view(np.uint32)
    m = machine("dmovc o0.xyzw, l(1, 1, 0, 0), v0.xyzw, v1.xyzw\ndadd_sat o1.xyzw, v1.xyzw, v1.xyzw",
                1, v=np.stack([words, pair])[:, None, :])
    assert m.o[0][0].tolist() == [0x00000001, 0x7FF00000, 0, 0x80000000]  # a move: payload and sign kept
    # (3.0, -0.5) clamped to [0, 1] as doubles: 1.0 is 0x3FF00000_00000000, -0.5 becomes +0.0
    assert m.o[1][0].tolist() == [0, 0x3FF00000, 0, 0]


def test_move_between_overlapping_components_of_one_register() -> None:
    # mov r0.yzw, r0.xxyz: y <- x, z <- y, w <- z, all read before any is written: (1, 1, 2, 3)
    m = machine("mov r0.xyzw, l(1, 2, 3, 4)\nmov r0.yzw, r0.xxyz\nmov o0.xyzw, r0.xyzw\n"
                "mov r1.xyzw, l(5, 6, 7, 8)\nadd r1.xyz, r1.yzwy, l(0.0, 0.0, 0.0, 0.0)\nmov o1.xyzw, r1.xyzw", 1)
    assert m.o[0][0].tolist() == [1, 1, 2, 3]
    # add reads (6, 7, 8) as float bits: denormals, flushed to 0; w keeps 8
    assert m.o[1][0].tolist() == [0, 0, 0, 8]

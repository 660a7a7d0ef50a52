"""Latte VM 64-bit float opcodes on small assembled programs. The slot layout is the one Mesa's
r600 compiler emits (``Machine.wide``): a double operand's high word (sign, exponent) is
the source of the first slot's instruction (x or z), its low word the source of the last slot's;
the result's low word goes to the first slot, the high word to the next. Every expected value is
an IEEE-754 bit pattern worked out by hand (shown as ``hi:lo`` words in the comments)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from shaderkit.isa.latte import assemble  # noqa: E402
from shaderkit.vm.latte import LatteShader, VMError  # noqa: E402


def run_alu(body: str, inputs: dict, count: int):
    """One ALU clause at slot 32, then EXP_DONE POS0 of R2; returns R2 as uint32 words."""
    text = f"00 ALU: ADDR(32) CNT({count})\n{body}\n01 EXP_DONE: POS0, R2.xyzw\nEND_OF_PROGRAM\n"
    shader = LatteShader.from_code(assemble(text), "pixel")
    return shader.run(inputs).pos[0].view(np.uint32)


def words(*pairs):
    """Registers from (lo, hi) word pairs: (x, y) = (lo0, hi0), (z, w) = (lo1, hi1)."""
    flat = [w for pair in pairs for w in pair]
    flat += [0] * (4 - len(flat))
    return np.array([flat], np.uint32)


# 1 + 2^-52 = 0x3FF00000:00000001, 2^-52 = 0x3CB00000:00000000, 1.5 = 0x3FF80000:00000000
ONE_ULP = (0x00000001, 0x3FF00000)
TWO_M52 = (0x00000000, 0x3CB00000)


def test_add_64_reads_high_words_in_x_and_low_words_in_y() -> None:
    body = "  0   x: ADD_64 R2.x, R1.y, R3.y\n      y: ADD_64 R2.y, R1.x, R3.x\n"
    out = run_alu(body, {"R1": words(ONE_ULP), "R3": words(TWO_M52)}, 2)
    # (1 + 2^-52) + 2^-52 = 1 + 2^-51 = 0x3FF00000:00000002 -> x = low word, y = high word
    assert out[0, :2].tolist() == [0x00000002, 0x3FF00000]


def test_add_64_negate_and_clamp_act_on_the_high_word() -> None:
    body = "  0   x: ADD_64 R2.x, -R1.y, R3.y\n      y: ADD_64 R2.y, R1.x, R3.x\n"
    # -1.5 + 2.25 = 0.75; 1.5 = 0x3FF80000:0, 2.25 = 0x40020000:0, 0.75 = 0x3FE80000:0
    regs = {"R1": words((0, 0x3FF80000)), "R3": words((0, 0x40020000))}
    assert run_alu(body, regs, 2)[0, :2].tolist() == [0, 0x3FE80000]
    body = "  0   x: ADD_64 R2.x, R1.y, R3.y CLAMP\n      y: ADD_64 R2.y, R1.x, R3.x\n"
    # 1.5 + 2.25 = 3.75 clamped to 1.0 = 0x3FF00000:00000000
    assert run_alu(body, regs, 2)[0, :2].tolist() == [0, 0x3FF00000]


def test_add_64_in_the_z_w_pair() -> None:
    body = "  0   z: ADD_64 R2.z, R1.w, R3.w\n      w: ADD_64 R2.w, R1.z, R3.z\n"
    out = run_alu(body, {"R1": words((0, 0), ONE_ULP), "R3": words((0, 0), TWO_M52)}, 2)
    assert out[0, 2:].tolist() == [0x00000002, 0x3FF00000]


def test_mul_64_spans_four_slots_and_rounds_to_even() -> None:
    body = ("  0   x: MUL_64 R2.x, R1.y, R3.y\n      y: MUL_64 R2.y, R1.y, R3.y\n"
            "      z: MUL_64 R2.z, R1.y, R3.y\n      w: MUL_64 R2.w, R1.x, R3.x\n")
    # (1 + 2^-52) * 3 = 3 + 3 * 2^-52 = 2 * (1.5 + 2^-52 + 2^-53): the 2^-53 is a tie between
    # fractions ...001 and ...010, even wins -> 2 * (1.5 + 2^-51) = 0x40080000:00000002
    out = run_alu(body, {"R1": words(ONE_ULP), "R3": words((0, 0x40080000))}, 4)
    # the result again in z, w (Mesa copies z, w of a MUL_64 for a .zw destination)
    assert out[0].tolist() == [0x00000002, 0x40080000, 0x00000002, 0x40080000]


def test_float_conversions() -> None:
    body = "  0   x: FLT32_TO_FLT64 R2.x, R1.x\n      y: FLT32_TO_FLT64 R2.y, 0.0f\n"
    # 0.1f = 0x3DCCCCCD: exponent 123 -> 123 - 127 + 1023 = 0x3FB, fraction 0x4CCCCD << 29
    # = 0x99999A0000000 -> 0x3FB99999:A0000000
    out = run_alu(body, {"R1": np.array([[0x3DCCCCCD, 0, 0, 0]], np.uint32)}, 2)
    assert out[0, :2].tolist() == [0xA0000000, 0x3FB99999]
    body = "  0   x: FLT64_TO_FLT32 R2.x, R1.y\n      y: FLT64_TO_FLT32 R2.y, R1.x\n"
    # 1/3 = 0x3FD55555:55555555: exponent 0x3FD -> 125, fraction 0101...: the top 23 bits are
    # 0x2AAAAA, the rest is above half -> 0x2AAAAB; (125 << 23) | 0x2AAAAB = 0x3EAAAAAB
    out = run_alu(body, {"R1": words((0x55555555, 0x3FD55555))}, 2)
    assert out[0, :2].tolist() == [0x3EAAAAAB, 0x3EAAAAAB]


def test_fract_64() -> None:
    body = "  0   x: FRACT_64 R2.x, R1.y\n      y: FRACT_64 R2.y, R1.x\n"
    # -1.25 = 0xBFF40000:0 -> -1.25 - floor(-1.25) = 0.75 = 0x3FE80000:0
    # 1 + 2^-52 -> 2^-52 = 0x3CB00000:00000000
    # -1.1 = 0xBFF19999:9999999A = -(1 + 0x199999999999A * 2^-52); + 2 (floor -2) is exact:
    # (2^52 - 0x199999999999A) * 2^-52 = 0xE666666666666 * 2^-52 = 0x1CCCCCCCCCCCCC * 2^-53
    # -> exponent 0x3FE, fraction 0xCCCCCCCCCCCCC: 0x3FECCCCC:CCCCCCCC (0.9 rounded down; in
    # float32 the result would be 0x3F666666 = 0x3FECCCCC:C0000000 as a double)
    regs = np.array([[0, 0xBFF40000, 0, 0], [1, 0x3FF00000, 0, 0], [0x9999999A, 0xBFF19999, 0, 0]], np.uint32)
    out = run_alu(body, {"R1": regs}, 2)
    assert out[:, :2].tolist() == [[0, 0x3FE80000], [0, 0x3CB00000], [0xCCCCCCCC, 0x3FECCCCC]]


@pytest.mark.parametrize("exponent, value, expected", [
    (3, (0, 0x3FF80000), (0, 0x40280000)),           # 1.5 * 2^3 = 12: exponent 0x3FF + 3 = 0x402
    (3, (0, 0xBFF80000), (0, 0xC0280000)),           # -1.5 * 2^3 = -12
    (-1, (5, 0x3FF00000), (5, 0x3FE00000)),          # the fraction (low word 5) is kept
    (2000, (0, 0x3FF80000), (0, 0x7FF00000)),        # 0x3FF + 2000 >= 0x7FF: +inf
    (-2000, (0, 0xBFF80000), (0, 0x80000000)),       # new exponent <= 0: a zero of the sign (-0)
    (4, (1, 0x00000000), (0, 0x00000000)),           # a denormal source gives +0
    (4, (0, 0x7FF80000), (0, 0x7FF80000)),           # NaN is returned unchanged
])
def test_ldexp_64(exponent: int, value: tuple[int, int], expected: tuple[int, int]) -> None:
    body = "  0   x: LDEXP_64 R2.x, R4.x, R1.y\n      y: LDEXP_64 R2.y, R4.x, R1.x\n"
    regs = {"R1": words(value), "R4": np.array([[exponent, 0, 0, 0]], np.int32)}
    assert run_alu(body, regs, 2)[0, :2].tolist() == list(expected)


def test_pred_set_64_compares_all_64_bits() -> None:
    body = ("  0   x: PRED_SETGT_64 R2.x, R1.y, R3.y\n      y: PRED_SETGT_64 R2.y, R1.x, R3.x\n"
            "      z: PRED_SETE_64 R2.z, R1.y, R3.y\n      w: PRED_SETE_64 R2.w, R1.x, R3.x\n")
    # 1 + 2^-52 (0x3FF00000:00000001) > 1.0 (0x3FF00000:00000000) only through the low word
    out = run_alu(body, {"R1": words(ONE_ULP), "R3": words((0, 0x3FF00000))}, 4)
    one = 0x3F800000
    assert out[0].tolist() == [one, one, 0, 0]


def test_pred_setge_64_holds_for_equal_operands_where_gt_does_not() -> None:
    body = ("  0   x: PRED_SETGE_64 R2.x, R1.y, R3.y\n      y: PRED_SETGE_64 R2.y, R1.x, R3.x\n"
            "      z: PRED_SETGT_64 R2.z, R1.y, R3.y\n      w: PRED_SETGT_64 R2.w, R1.x, R3.x\n")
    # 1.0 >= 1.0 (both 0x3FF00000:00000000) gives 1.0 = 0x3F800000; 1.0 > 1.0 gives 0
    one_d = words((0, 0x3FF00000))
    out = run_alu(body, {"R1": one_d, "R3": one_d}, 4)
    assert out[0].tolist() == [0x3F800000, 0x3F800000, 0, 0]


def test_omod_on_a_64_bit_instruction_is_refused() -> None:
    with pytest.raises(VMError, match=r"ADD_64 with an output modifier \(OMOD\)"):
        run_alu("  0   x: ADD_64*2 R2.x, R1.y, R3.y\n      y: ADD_64 R2.y, R1.x, R3.x\n", {}, 2)
    with pytest.raises(VMError, match=r"ADD_64 with an output modifier \(OMOD\)"):
        run_alu("  0   x: ADD_64 R2.x, R1.y, R3.y\n      y: ADD_64/2 R2.y, R1.x, R3.x\n", {}, 2)


def test_clamp_on_flt64_to_flt32() -> None:
    body = "  0   x: FLT64_TO_FLT32 R2.x, R1.y CLAMP\n      y: FLT64_TO_FLT32 R2.y, R1.x\n"
    # 1.5 = 0x3FF80000:0 -> 1.0f = 0x3F800000; -2.0 = 0xC0000000:0 -> 0; 0.25 = 0x3FD00000:0 -> 0x3E800000
    regs = np.array([[0, 0x3FF80000, 0, 0], [0, 0xC0000000, 0, 0], [0, 0x3FD00000, 0, 0]], np.uint32)
    out = run_alu(body, {"R1": regs}, 2)
    assert out[:, :2].tolist() == [[0x3F800000] * 2, [0, 0], [0x3E800000] * 2]


def test_clamped_double_nan_becomes_zero() -> None:
    body = "  0   x: ADD_64 R2.x, R1.y, R3.y CLAMP\n      y: ADD_64 R2.y, R1.x, R3.x\n"
    # NaN (0x7FF80000:0) + 1.0 = NaN; CLAMP turns NaN into +0 = 0x00000000:00000000
    regs = {"R1": words((0, 0x7FF80000)), "R3": words((0, 0x3FF00000))}
    assert run_alu(body, regs, 2)[0, :2].tolist() == [0, 0]


def test_wide_opcodes_need_their_slots() -> None:
    with pytest.raises(VMError, match="ADD_64 needs the slots x and y, or z and w"):
        run_alu("  0   x: ADD_64 R2.x, R1.y, R3.y\n", {}, 1)
    with pytest.raises(VMError, match="MUL_64 needs the slots x, y, z and w"):
        run_alu("  0   x: MUL_64 R2.x, R1.y, R3.y\n      y: MUL_64 R2.y, R1.x, R3.x\n", {}, 2)


def test_frexp_64_splits_significand_and_exponent() -> None:
    body = ("  0   x: FREXP_64 R2.x, R1.y\n      y: FREXP_64 R2.y, R1.x\n"
            "      z: FREXP_64 R2.z, R1.y\n      w: FREXP_64 R2.w, R1.x\n")
    # 12 = 0x40280000:00000000 = 0.75 * 2^4 -> exponent 4 in y; 0.75 = 0x3FE80000:0 in z (low), w (high)
    # -(1 + 2^-52) = 0xBFF00000:00000001 = -(0.5 + 2^-53) * 2^1 -> 0xBFE00000:00000001, exponent 1
    out = run_alu(body, {"R1": np.array([[0, 0x40280000, 0, 0], [1, 0xBFF00000, 0, 0]], np.uint32)}, 4)
    assert out[:, 1:].tolist() == [[4, 0, 0x3FE80000], [1, 1, 0xBFE00000]]


def test_pred_setgt_64_drives_a_branch() -> None:
    # if (double(R1.yx) > double(R3.yx)) R2.x = 10; the first slot's UPDATE_EXEC_MASK / UPDATE_PRED
    text = ("00 ALU_PUSH_BEFORE: ADDR(32) CNT(2)\n"
            "  0   x: PRED_SETGT_64 ____, R1.y, R3.y UPDATE_EXEC_MASK UPDATE_PRED\n"
            "      y: PRED_SETGT_64 ____, R1.x, R3.x\n"
            "01 JUMP POP_CNT(1) ADDR(3)\n"
            "02 ALU_POP_AFTER: ADDR(34) CNT(2)\n"
            "  1   x: MOV R2.x, (0x41200000, 10)\n"
            "03 EXP_DONE: PIX0, R2.xyzw\nEND_OF_PROGRAM\n")
    shader = LatteShader.from_code(assemble(text), "pixel")
    # lane 0: 1 + 2^-52 > 1.0 (low words 1 > 0); lane 1: 1.0 > 1.0 is false
    regs = {"R1": np.array([[1, 0x3FF00000, 0, 0], [0, 0x3FF00000, 0, 0]], np.uint32),
            "R3": np.array([[0, 0x3FF00000, 0, 0]] * 2, np.uint32)}
    assert shader.run(regs).pix[0][:, 0].tolist() == [10, 0]

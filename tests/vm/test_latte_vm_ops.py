"""Latte VM ALU semantics on small programs assembled from text; every expected value is worked
out by hand from the R700 ISA rules (DX9 products, clamps, conversions, shifts) documented in
``shaderkit.vm.latte.semantics``, not taken from the VM."""

from __future__ import annotations

import math

import pytest

np = pytest.importorskip("numpy")

from shaderkit.isa.latte import assemble  # noqa: E402
from shaderkit.isa.latte import table as T  # noqa: E402
from shaderkit.vm.latte import LatteShader, VMError  # noqa: E402
from shaderkit.vm.latte.semantics import SEMANTICS, UNSUPPORTED  # noqa: E402

FLT_MAX = float(np.finfo(np.float32).max)


def run_alu(body: str, inputs: dict, count: int, exports: str = "R2", **kw):
    """One ALU clause at slot 32 of ``count`` slots, then EXP_DONE POS0 of ``exports``."""
    text = (f"00 ALU: ADDR(32) CNT({count})\n{body}\n"
            f"01 EXP_DONE: POS0, {exports}.xyzw\nEND_OF_PROGRAM\n")
    shader = LatteShader.from_code(assemble(text), "pixel")
    return shader.run(inputs, **kw)


def f32(values):
    return np.array(values, np.float32)


def ints(values):
    return np.array(values, np.int64).astype(np.uint32)


def test_group_reads_before_writes_and_pv_ps() -> None:
    # group 0 swaps R1.x and R1.y (both read the old values); t writes R1.z = old x + old y.
    # group 1 reads PV0 (the swapped values) and PS0.
    # (z is taken, so the ADD to R1.z goes to the t unit)
    body = ("  0   x: MOV R1.x, R1.y\n      y: MOV R1.y, R1.x\n      z: MOV R3.z, 0.0f\n"
            "      t: ADD R1.z, R1.x, R1.y\n"
            "  1   x: ADD R2.x, PV0.x, PS0\n      y: MOV R2.y, PV0.y\n      z: MOV R2.z, R1.x\n"
            "      w: MOV R2.w, R1.z\n")
    r = run_alu(body, {"R1": f32([[1, 10, 0, 0], [2, 20, 0, 0]])}, 6)
    # lane 0: R1 becomes (10, 1, 11); PV0 = (10, 1), PS0 = 11 -> R2 = (21, 1, 10, 11)
    assert r.pos[0].tolist() == [[21, 1, 10, 11], [42, 2, 20, 22]]


def test_dx9_products_against_ieee() -> None:
    body = ("  0   x: MUL R2.x, R1.x, R1.y\n      y: MUL_IEEE R2.y, R1.x, R1.y\n"
            "      z: MULADD R2.z, R1.x, R1.y, R1.w\n      w: MULADD_IEEE R2.w, R1.x, R1.y, R1.w\n")
    r = run_alu(body, {"R1": f32([[0, np.inf, 0, 3], [-0.0, np.nan, 0, 3], [2, 3, 0, 1]])}, 4)
    out = r.pos[0]
    assert out[0, 0] == 0 and math.isnan(out[0, 1]) and out[0, 2] == 3 and math.isnan(out[0, 3])
    assert out[1, 0] == 0 and not math.copysign(1, out[1, 0]) < 0  # 0 * NaN = +0 under DX9 rules
    assert out[2].tolist() == [6, 6, 7, 7]


def test_dot4_dx9_and_ieee() -> None:
    dot = "".join(f"      {c}: DOT4 {'R2.x' if c == 'x' else '____'}, R1.{c}, R3.{c}\n" for c in "xyzw")
    ieee = "".join(f"      {c}: DOT4_IEEE {'R2.y' if c == 'y' else '____'}, R1.{c}, R3.{c}\n" for c in "xyzw")
    body = "  0" + dot[3:] + "  1" + ieee[3:] + "  2   z: MOV R2.z, PV1.w\n"
    r = run_alu(body, {"R1": f32([[0, 1, 2, 3]]), "R3": f32([[np.inf, 4, 5, 6]])}, 9)
    # DX9: 0*inf = 0 -> 4 + 10 + 18 = 32; IEEE: NaN; PV of a reduction holds it in all channels
    assert r.pos[0][0, 0] == 32 and math.isnan(r.pos[0][0, 1]) and math.isnan(r.pos[0][0, 2])


@pytest.mark.parametrize("op, x, expected", [
    ("RECIP_IEEE", 0.0, math.inf), ("RECIP_IEEE", -0.0, -math.inf), ("RECIP_CLAMPED", 0.0, FLT_MAX),
    ("RECIP_CLAMPED", -0.0, -FLT_MAX), ("RECIP_FF", 0.0, 0.0), ("RECIP_IEEE", 4.0, 0.25),
    ("RECIPSQRT_CLAMPED", 0.0, FLT_MAX), ("RECIPSQRT_IEEE", 4.0, 0.5), ("RECIPSQRT_FF", 0.0, 0.0),
    ("SQRT_IEEE", 9.0, 3.0), ("EXP_IEEE", 3.0, 8.0), ("LOG_IEEE", 8.0, 3.0), ("LOG_IEEE", 0.0, -math.inf),
    ("LOG_CLAMPED", 0.0, -FLT_MAX), ("SIN", 0.25, 1.0), ("COS", 0.5, -1.0), ("SIN", 0.0, 0.0),
    ("FRACT", -1.25, 0.75), ("TRUNC", -1.75, -1.0), ("FLOOR", -1.25, -2.0), ("CEIL", 1.25, 2.0),
    ("RNDNE", 2.5, 2.0), ("RNDNE", 3.5, 4.0),
])
def test_float_unary(op: str, x: float, expected: float) -> None:
    r = run_alu(f"  0   t: {op} R2.x, R1.x\n", {"R1": f32([[x, 0, 0, 0]])}, 1)
    got = float(r.pos[0][0, 0])
    assert got == pytest.approx(expected, abs=1e-6) or got == expected


@pytest.mark.parametrize("x, expected", [
    (-1.5, -2), (2.5, 2), (-2.5, -2), (1.4, 1), (np.nan, 0), (1e10, 2**31 - 1), (-3e9, -2**31), (-0.0, 0)])
def test_flt_to_int_rounds_to_nearest_even_and_clamps(x: float, expected: int) -> None:
    r = run_alu("  0   t: FLT_TO_INT R2.x, R1.x\n", {"R1": f32([[x, 0, 0, 0]])}, 1)
    assert int(r.pos[0].view(np.int32)[0, 0]) == expected


def test_flt_to_uint_and_back() -> None:
    body = ("  0   t: FLT_TO_UINT R2.x, R1.x\n  1   t: UINT_TO_FLT R2.y, R1.y\n"
            "  2   t: INT_TO_FLT R2.z, R1.z\n")
    r = run_alu(body, {"R1": np.array([[-5, 0xFFFFFFFF, -7, 0]], np.int64).astype(np.uint32)}, 3)
    # R1.x holds the int bits of -5: as a float that is NaN -> 0
    bits = r.pos[0].view(np.uint32)[0]
    assert bits[0] == 0 and r.pos[0][0, 1] == np.float32(4294967295.0) and r.pos[0][0, 2] == -7


def test_integer_ops_and_shifts() -> None:
    body = ("  0   x: LSHL_INT R2.x, R1.x, R1.y\n      y: ASHR_INT R2.y, R1.z, 1\n"
            "      z: LSHR_INT R2.z, R1.w, R1.y\n      w: SUB_INT R2.w, R1.x, R1.z\n"
            "  1   x: LSHL_INT R3.x, R1.x, R3.y\n")
    # 1 << 33 uses the low 5 bits: 1 << 1 = 2; -8 >> 1 = -4; 0x80000000 >>> 33 -> >>> 1
    r = run_alu(body, {"R1": ints([[1, 33, -8, 0x80000000]]), "R3": ints([[0, 32, 0, 0]])}, 5,
                exports="R2")
    out = r.pos[0].view(np.uint32)[0]
    assert out.tolist() == [2, (-4) & 0xFFFFFFFF, 0x40000000, 9]
    assert r.register(3).view(np.uint32)[0, 0] == 1  # shift by 32 is a shift by 0


def test_mul_hi_lo() -> None:
    body = ("  0   t: MULLO_UINT R2.x, R1.x, R1.x\n  1   t: MULHI_UINT R2.y, R1.x, R1.x\n"
            "  2   t: MULLO_INT R2.z, R1.y, R1.z\n  3   t: MULHI_INT R2.w, R1.y, R1.z\n")
    r = run_alu(body, {"R1": ints([[0xFFFFFFFF, -3, 0x40000000, 0]])}, 4)
    # (2^32-1)^2 = 0xFFFFFFFE_00000001; -3 * 2^30 = -0xC0000000 = 0xFFFFFFFF_40000000
    assert r.pos[0].view(np.uint32)[0].tolist() == [1, 0xFFFFFFFE, 0x40000000, 0xFFFFFFFF]


def test_comparisons_and_selects() -> None:
    body = ("  0   x: SETGT R2.x, R1.x, R1.y\n      y: SETGT_DX10 R2.y, R1.x, R1.y\n"
            "      z: SETE R2.z, R1.z, R1.z\n      w: SETNE R2.w, R1.z, R1.z\n")
    r = run_alu(body, {"R1": f32([[2, 1, np.nan, 0], [1, 2, 0, 0]])}, 4)
    bits = r.pos[0].view(np.uint32)
    assert bits[0].tolist() == [0x3F800000, 0xFFFFFFFF, 0, 0x3F800000]  # NaN != NaN
    assert bits[1].tolist() == [0, 0, 0x3F800000, 0]
    body = ("  0   x: SETGT_INT R2.x, R1.x, R1.y\n      y: SETGT_UINT R2.y, R1.x, R1.y\n"
            "      z: CNDE_INT R2.z, R1.y, R1.z, R1.w\n      w: CNDGE_INT R2.w, R1.x, R1.z, R1.w\n")
    r = run_alu(body, {"R1": ints([[-1, 0, 7, 9]])}, 4)
    assert r.pos[0].view(np.uint32)[0].tolist() == [0, 0xFFFFFFFF, 7, 9]
    body = ("  0   x: CNDE R2.x, R1.x, R1.y, R1.z\n      y: CNDGT R2.y, R1.x, R1.y, R1.z\n"
            "      z: CNDGE R2.z, R1.x, R1.y, R1.z\n")
    r = run_alu(body, {"R1": f32([[-0.0, 5, 6, 0], [1, 5, 6, 0]])}, 3)
    assert r.pos[0][:, :3].tolist() == [[5, 6, 5], [6, 5, 5]]


def test_max_min_nan_rules() -> None:
    body = ("  0   x: MAX R2.x, R1.x, R1.y\n      y: MAX R2.y, R1.y, R1.x\n"
            "      z: MAX_DX10 R2.z, R1.y, R1.x\n      w: MIN R2.w, R1.x, R1.y\n")
    r = run_alu(body, {"R1": f32([[np.nan, 1, 0, 0]])}, 4)
    out = r.pos[0][0]
    # MAX(NaN, 1): NaN >= 1 is false -> 1; MAX(1, NaN): false -> NaN; MAX_DX10 ignores NaN
    assert out[0] == 1 and math.isnan(out[1]) and out[2] == 1
    assert out[3] == 1  # MIN(NaN, 1): NaN < 1 false -> src1


def test_modifiers_clamp_omod() -> None:
    body = ("  0   x: ADD R2.x, -|R1.x|, R1.y\n      y: MUL*2 R2.y, R1.y, R1.y\n"
            "      z: ADD R2.z, R1.y, R1.y CLAMP\n      w: MULADD_D2 R2.w, R1.x, R1.y, R1.y\n")
    r = run_alu(body, {"R1": f32([[-3, 0.75, 0, 0]])}, 4)
    # -|-3| + 0.75 = -2.25; 0.75*0.75*2 = 1.125; clamp(1.5) = 1; (-3*0.75 + 0.75)/2 = -0.75
    assert r.pos[0][0].tolist() == [-2.25, 1.125, 1.0, -0.75]


def test_literals_and_inline_constants() -> None:
    body = ("  0   x: ADD R2.x, R1.x, (0x40400000, 3)\n      y: MOV R2.y, 0.5f\n"
            "      z: MOV R2.z, -1\n      w: MOV R2.w, 1\n")
    r = run_alu(body, {"R1": f32([[1, 0, 0, 0]])}, 5)
    bits = r.pos[0].view(np.uint32)[0]
    assert bits.tolist() == [0x40800000, 0x3F000000, 0xFFFFFFFF, 1]


def test_bit_field_ops() -> None:
    body = ("  0   x: BFE_UINT R2.x, R1.x, R1.y, R1.z\n      y: BFE_INT R2.y, R1.x, R1.y, R1.z\n"
            "      z: BFI_INT R2.z, R1.w, R1.x, R1.y\n")
    r = run_alu(body, {"R1": ints([[0xABCD1234, 12, 8, 0xFF00FF00]])}, 3)
    # bits 12-19 of 0xABCD1234 = 0xD1; sign-extended 8-bit 0xD1 = -47
    # BFI: (0xFF00FF00 & 0xABCD1234) | (~0xFF00FF00 & 12) = 0xAB001200 | 0x0C
    assert r.pos[0].view(np.uint32)[0, :3].tolist() == [0xD1, (-47) & 0xFFFFFFFF, 0xAB00120C]


def test_bfe_when_offset_plus_width_reaches_32() -> None:
    # offset + width >= 32: the result is value >> offset, arithmetic for BFE_INT (the D3D11 /
    # Evergreen rule), not the field zero-extended past bit 31
    body = "  0   x: BFE_UINT R2.x, R1.x, R1.y, R1.z\n      y: BFE_INT R2.y, R1.x, R1.y, R1.z\n"
    r = run_alu(body, {"R1": ints([[0x80001234, 16, 20, 0], [0xF0000000, 28, 8, 0]])}, 2)
    # 0x80001234 >> 16 = 0x8000; arithmetic: 0xFFFF8000. 0xF0000000 >> 28 = 0xF; arithmetic: -1
    assert r.pos[0].view(np.uint32)[:, :2].tolist() == [[0x8000, 0xFFFF8000], [0xF, 0xFFFFFFFF]]


def test_relative_addressing_with_mova_int() -> None:
    body = ("  0   x: MOVA_INT ____, R1.x\n"
            "  1   x: MOV R2.x, R10[AR.x].x\n      y: MOV R11[AR.x].y, R1.y\n")
    regs = {"R1": ints([[0, 7, 0, 0], [1, 8, 0, 0], [2, 9, 0, 0]]),
            "R10": f32([[100, 0, 0, 0]] * 3), "R11": f32([[101, 0, 0, 0]] * 3),
            "R12": f32([[102, 0, 0, 0]] * 3)}
    r = run_alu(body, regs, 3)
    assert r.pos[0][:, 0].tolist() == [100, 101, 102]
    # lane k wrote R(11+k).y with the bits of 7, 8, 9
    assert [int(r.register(11 + k).view(np.uint32)[k, 1]) for k in range(3)] == [7, 8, 9]


def test_mova_floor_clamps() -> None:
    body = "  0   x: MOVA_FLOOR ____, R1.x\n  1   x: MOV R2.x, R20[AR.x].x\n"
    regs = {"R1": f32([[-0.5, 0, 0, 0], [1.9, 0, 0, 0]]), "R19": f32([[19, 0, 0, 0]] * 2),
            "R21": f32([[21, 0, 0, 0]] * 2)}
    assert run_alu(body, regs, 2).pos[0][:, 0].tolist() == [19, 21]


def test_predicate_select_and_update() -> None:
    body = ("  0   x: PRED_SETGT ____, R1.x, 0.0f UPDATE_PRED\n"
            "  1   x: MOV R2.x, 1.0f PRED_SEL_ONE\n      y: MOV R2.y, 1.0f PRED_SEL_ZERO\n")
    r = run_alu(body, {"R1": f32([[1, 0, 0, 0], [-1, 0, 0, 0]])}, 3)
    assert r.pos[0][:, :2].tolist() == [[1, 0], [0, 1]]


def test_kill_clears_lanes() -> None:
    body = "  0   x: KILLGT ____, R1.x, 0.0f\n  1   x: MOV R2.x, 5.0f\n"
    r = run_alu(body.replace("5.0f", "(0x40A00000, 5)"), {"R1": f32([[1, 0, 0, 0], [-1, 0, 0, 0]])}, 3)
    assert r.killed.tolist() == [True, False]
    assert r.pos[0][:, 0].tolist() == [0, 5]  # the killed lane neither runs nor exports


def test_uniform_registers_and_kcache() -> None:
    text = ("00 ALU: ADDR(32) CNT(2) KCACHE0(CB1:16-31)\n"
            "  0   x: ADD R2.x, C3.y, KC0[1].z\n      y: MOV R2.y, KC0[0].x\n"
            "01 EXP_DONE: POS0, R2.xyzw\nEND_OF_PROGRAM\n")
    shader = LatteShader.from_code(assemble(text))
    block = np.zeros(34 * 4, np.float32)
    block[16 * 4] = 7.0  # constant 16 (KC0[0]) .x
    block[17 * 4 + 2] = 2.5  # constant 17 (KC0[1]) .z
    r = shader.run(uniforms={"C3": [0, 10, 0, 0]}, uniform_blocks={1: block})
    assert r.pos[0][0, :2].tolist() == [12.5, 7.0]


def test_kcache_span_follows_the_lock_mode() -> None:
    # LOCK_1 (CB1:16-31) locks 16 constants: KC0[16] is outside; LOCK_2 (CB1:16-47) locks 32,
    # so KC0[17] is constant 16 + 17 = 33 of the block
    block = np.zeros(34 * 4, np.float32)
    block[33 * 4] = 9.0
    for lock, expected in (("16-31", None), ("16-47", 9.0)):
        text = (f"00 ALU: ADDR(32) CNT(1) KCACHE0(CB1:{lock})\n"
                f"  0   x: MOV R2.x, KC0[{16 if expected is None else 17}].x\n"
                "01 EXP_DONE: POS0, R2.xyzw\nEND_OF_PROGRAM\n")
        shader = LatteShader.from_code(assemble(text))
        if expected is None:
            with pytest.raises(VMError, match=r"KC0\[16\].*locks 16 constants"):
                shader.run(uniform_blocks={1: block})
        else:
            assert shader.run(uniform_blocks={1: block}).pos[0][0, 0] == expected


def test_cube_faces() -> None:
    body = ("  0   x: CUBE R2.x, R1.z, R1.y\n      y: CUBE R2.y, R1.z, R1.x\n"
            "      z: CUBE R2.z, R1.x, R1.z\n      w: CUBE R2.w, R1.y, R1.z\n")
    r = run_alu(body, {"R1": f32([[0.5, 0.25, 2, 0], [-3, 1, 0.5, 0], [0.1, -2, 0.3, 0]])}, 4)
    # +Z major: (tc, sc, 2ma, face) = (-y, x, 4, 4); -X major: (-y, z, -6, 1); -Y: (-z, x, -4, 3)
    np.testing.assert_allclose(r.pos[0], [[-0.25, 0.5, 4, 4], [-1, 0.5, -6, 1], [-0.3, 0.1, -4, 3]], rtol=1e-6)


def test_unsupported_opcodes_name_themselves() -> None:
    with pytest.raises(VMError, match="MULADD_64"):
        run_alu("  0   x: MULADD_64 R2.x, R1.x, R1.y, R1.z\n", {}, 1)
    with pytest.raises(VMError, match="PRED_SET_INV"):
        run_alu("  0   x: PRED_SET_INV R2.x, R1.x, R1.y\n", {}, 1)


def test_every_table_opcode_is_executed_or_explained() -> None:
    for op in (*T.OP2, *T.OP3):
        assert (op.name in SEMANTICS) != (op.name in UNSUPPORTED), op.name
        sem = SEMANTICS.get(op.name)
        if sem is None or sem.kind == "nop":
            continue
        assert len(sem.ins) == op.srcs, op.name
        if "i" in op.flags or "u" in op.flags:  # integer-input opcodes read integers
            assert set(sem.ins) <= {"i", "u"}, op.name


def test_max4() -> None:
    body = "  0" + "".join(f"      {c}: MAX4 {'R2.x' if c == 'x' else '____'}, R1.{c}, R1.{c}\n" for c in "xyzw")[3:]
    r = run_alu(body, {"R1": f32([[1, 7, -2, 3], [-1, -5, -2, -3]])}, 4)
    assert r.pos[0][:, 0].tolist() == [7, -1]


#: a NaN bit pattern no opcode makes from the smoke test's inputs (results' NaNs are 0x7FC00000)
UNWRITTEN = 0x7FC0DEAD


@pytest.mark.parametrize("name", sorted(n for n, s in SEMANTICS.items() if s.kind not in ("reduce", "wide", "nop")))
def test_every_executable_opcode_smoke(name: str) -> None:
    # smoke test (values are checked by the tests above): each executable opcode assembles, runs
    # and writes its destination R2.x in both lanes, except MOVA*, which write AR and skip the GPR
    op = next(o for o in (*T.OP2, *T.OP3) if o.name == name)
    sources = ", ".join(["R1.x", "R1.y", "R1.z"][: op.srcs])
    r = run_alu(f"  0   x: {name} R2.x, {sources}\n", {"R1": f32([[1.5, -2.0, 0.25, 0], [0, 3, -1, 0]]),
                                                       "R2": np.full((2, 4), UNWRITTEN, np.uint32)}, 1)
    written = r.register(2).view(np.uint32)[:, 0]
    if SEMANTICS[name].kind == "mova":
        assert written.tolist() == [UNWRITTEN] * 2
    else:
        assert UNWRITTEN not in written.tolist()

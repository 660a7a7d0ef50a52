"""Hand-worked programs for what the corpus vectors do not exercise: every opcode, operand
descriptors, relative addressing, loops, calls, conditions, lane divergence, geometry banking,
errors. Programs are assembled from picasso text; expected values are worked out by hand from
shared/reference/pica_vm.md (comments show the arithmetic)."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from shaderkit.formats.dvlb.build import assemble_sources  # noqa: E402
from shaderkit.formats.dvlb.dvlb import Dvlb  # noqa: E402
from shaderkit.vm.pica import PicaShader, VMError  # noqa: E402

INF, NAN = math.inf, math.nan
OUTPUTS = """
.out - position o0
.out - normalquat o1
.out - color o2
.out - texcoord0 o3
.out - texcoord1 o5
.out - texcoord2 o6
.out - view o4.xyz
"""
CONSTS = """
.constf zero(0.0, 0.0, 0.0, 0.0)
.constf one(1.0, 1.0, 1.0, 1.0)
.constf two(2.0, 2.0, 2.0, 2.0)
"""


def source(body: str, head: str = "", geometry: bool = False) -> str:
    """A one-DVLE program; ``body`` is main's code, or whole procs when it holds ``.proc``."""
    code = body if ".proc" in body else ".proc main\n" + body + "\n    end\n.end\n"
    return (".gsh point c0\n" if geometry else "") + head + CONSTS + OUTPUTS + code


def build(body: str, head: str = "", geometry: bool = False) -> PicaShader:
    return PicaShader.load(assemble_sources([("t.pica", source(body, head, geometry))]))


def model(body: str, head: str = "", geometry: bool = False) -> Dvlb:
    return Dvlb.from_bytes(assemble_sources([("t.pica", source(body, head, geometry))]))


def f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def assert_bits(got: np.ndarray, want: list) -> None:
    """Bit-identical float32 (signed zeros matter), NaN equal to NaN."""
    want_arr = np.array(want, np.float32)
    got = np.asarray(got, np.float32)
    assert got.shape == want_arr.shape, (got, want_arr)
    same = (got.view(np.uint32) == want_arr.view(np.uint32)) | (np.isnan(got) & np.isnan(want_arr))
    assert same.all(), (got.tolist(), want_arr.tolist())


def vec(*values: float) -> np.ndarray:
    return np.array([values], np.float32)


# -- arithmetic -----------------------------------------------------------------------------------
def test_swizzle_negate_and_mask() -> None:
    shader = build("""
    mov r1, v1
    add o0.xz, -v0.wzyx, r1
    mov o1, v0.yyxw
    mul o2.yw, v0.xxzz, -r1
""")
    result = shader.run({"v0": vec(1, 2, 3, 4), "v1": vec(10, 20, 30, 40)})
    assert_bits(result.o[0, 0], [-4 + 10, 0, -2 + 30, 0])  # (-4,-3,-2,-1) + v1, mask xz
    assert_bits(result.o[0, 1], [2, 2, 1, 4])
    assert_bits(result.o[0, 2], [0, 1 * -20, 0, 3 * -40])  # (1,1,3,3) * -v1, mask yw


def test_mul_zero_times_infinity_is_positive_zero() -> None:
    result = build("    mov r1, v1\n    mul o0, v0, r1").run({"v0": vec(0, INF, NAN, -0.0), "v1": vec(INF, -0.0, 2, 5)})
    assert_bits(result.o[0, 0], [0.0, 0.0, NAN, -0.0])


def test_dot_products() -> None:
    shader = build("""
    mov r1, v1
    mov r3, v3
    mov r5, v5
    dp4 o0, v0, r1
    dp3 o1, v2, r3
    dph o2, v2, r3
    dph o3, v2, one
    dp4 o5, v4, r5
""")
    result = shader.run({"v0": vec(-0.0, -0.0, -0.0, -0.0), "v1": vec(1, 1, 1, 1),
                         "v2": vec(1, 2, 3, 1000), "v3": vec(4, 5, 6, 1000),
                         "v4": vec(0, 1, 0, 0), "v5": vec(INF, 2, 0, 0)})
    assert_bits(result.o[0, 0], [0.0] * 4)  # four -0 products summed from +0 give +0
    assert_bits(result.o[0, 1], [32.0] * 4)  # 4 + 10 + 18
    assert_bits(result.o[0, 2], [1032.0] * 4)  # src1.w replaced by 1: 32 + 1000
    assert_bits(result.o[0, 3], [7.0] * 4)  # dphi (constant in the wide slot): 1+2+3+1
    assert_bits(result.o[0, 5], [2.0] * 4)  # 0*inf = +0, then + 2


def test_dphi_is_the_inverted_form() -> None:
    dvlb = model("    dph o3, v2, one")
    from shaderkit.isa.pica.decode import decode

    assert decode(dvlb.dvlp.code[0]).mnemonic == "dphi"


def test_mad_is_not_fused_and_madi() -> None:
    a = 1 + 2.0**-12
    shader = build("""
    mov r1, v1
    mov r3, v3
    mad o0, v0, v0, r1
    mad o1, v2, r3, two
""")
    result = shader.run({"v0": vec(a, a, a, a), "v1": vec(*[-(1 + 2.0**-11)] * 4),
                         "v2": vec(1, 2, 3, 4), "v3": vec(2, 2, 2, 2)})
    # a*a = 1 + 2^-11 + 2^-24 rounds (tie to even) to 1 + 2^-11; fused would give 2^-24
    assert_bits(result.o[0, 0], [0.0] * 4)
    assert_bits(result.o[0, 1], [4, 6, 8, 10])


def test_max_min_nan_and_zero_order() -> None:
    shader = build("""
    mov r1, v1
    mov r3, v3
    max o0, v0, r1
    min o1, v0, r1
    max o2, v2, r3
    min o3, v2, r3
""")
    result = shader.run({"v0": vec(0, NAN, -0.0, 0), "v1": vec(NAN, 0, 0, -0.0),
                         "v2": vec(1, 5, -3, 2), "v3": vec(4, 2, -1, 2)})
    assert_bits(result.o[0, 0], [NAN, 0.0, 0.0, -0.0])  # src1 > src2 ? src1 : src2
    assert_bits(result.o[0, 1], [NAN, 0.0, 0.0, -0.0])  # src1 < src2 ? src1 : src2
    assert_bits(result.o[0, 2], [4, 5, -1, 2])
    assert_bits(result.o[0, 3], [1, 2, -3, 2])


def test_sge_slt_and_inverted_forms() -> None:
    shader = build("""
    mov r1, v1
    sge o0, v0, r1
    slt o1, v0, r1
    sge o2, v0, one
    slt o3, v0, one
""")
    result = shader.run({"v0": vec(1, 1, NAN, 2), "v1": vec(1, 2, 0, NAN)})
    assert_bits(result.o[0, 0], [1, 0, 0, 0])
    assert_bits(result.o[0, 1], [0, 1, 0, 0])
    assert_bits(result.o[0, 2], [1, 1, 0, 1])
    assert_bits(result.o[0, 3], [0, 0, 0, 0])


def test_rcp_rsq_ieee_float32() -> None:
    shader = build("""
    rcp o0.x, v0.x
    rcp o0.y, v0.y
    rcp o0.z, v0.z
    rcp o0.w, v0.w
    rsq o1.x, v1.x
    rsq o1.y, v1.y
    rsq o1.z, v1.z
    rsq o1.w, v1.w
    rcp o2, v0.w
    rsq o3, v2.x
""")
    x = f32(6.18)
    result = shader.run({"v0": vec(0, -0.0, INF, 4), "v1": vec(4, -2, INF, -0.0), "v2": vec(x, 0, 0, 0)})
    assert_bits(result.o[0, 0], [INF, -INF, 0.0, 0.25])
    assert_bits(result.o[0, 1], [0.5, NAN, 0.0, -INF])
    assert_bits(result.o[0, 2], [0.25] * 4)  # src.x broadcast to every masked component
    twice_rounded = f32(1.0 / f32(math.sqrt(x)))  # 1/sqrtf(x): two float32 roundings
    assert twice_rounded != f32(1.0 / math.sqrt(x))  # (one ulp above the correctly rounded value)
    assert_bits(result.o[0, 3], [twice_rounded] * 4)


def test_ex2_lg2_flr() -> None:
    shader = build("""
    ex2 o0.x, v0.x
    ex2 o0.y, v0.y
    ex2 o0.z, v0.z
    ex2 o0.w, v0.w
    lg2 o1.x, v1.x
    lg2 o1.y, v1.y
    lg2 o1.z, v1.z
    lg2 o1.w, v1.w
    flr o2, v2
""")
    result = shader.run({"v0": vec(3, -1, 200, -200), "v1": vec(8, 0, -1, 1), "v2": vec(-1.5, -0.0, 2.7, -0.25)})
    assert_bits(result.o[0, 0], [8, 0.5, INF, 0.0])
    assert_bits(result.o[0, 1], [3, -INF, NAN, 0.0])
    assert_bits(result.o[0, 2], [-2, -0.0, 2, -1])


def test_litp_and_dst_rules() -> None:
    shader = build("""
    litp o0, v0
    ifc cmp.y
        mov o1, one
    .end
    ifc cmp.x
        mov o3, one
    .end
    mov r2, v2
    dst o2, v1, r2
""")
    result = shader.run({"v0": vec(-1, 200, 5, 3), "v1": vec(9, 2, 7, 9), "v2": vec(9, 3, 9, 5)})
    assert_bits(result.o[0, 0], [0, 127.99609375, 0, 3])  # max(x,0), clamp(y), 0, max(w,0)
    assert_bits(result.o[0, 1], [1] * 4)  # cmp.y = w >= 0
    assert_bits(result.o[0, 3], [0] * 4)  # cmp.x = x >= 0 is false
    assert_bits(result.o[0, 2], [1, 6, 7, 5])  # (1, s1.y*s2.y, s1.z, s2.w)


# -- MOVA and relative addressing --------------------------------------------------------------------
def test_mova_truncation_and_relative_ranges_per_lane() -> None:
    shader = build("""
    mova a0.xy, v1
    mov o0, tbl[a0.x]
    mov o1, tbl[a0.y]
""", ".fvec pad[10], tbl[4]\n")
    for k in range(90):  # c93-c95 hold the constants
        shader.set_uniform(f"c{k}", [k + 100] * 4)
    x = [86, 127, 128, -11, 1.9, -1.5, NAN, INF]
    v1 = np.array([[value, 0, 0, 0] for value in x], np.float32)
    result = shader.run({"v1": v1, "v0": np.zeros((8, 4), np.float32)})
    # tbl is c10. 86 -> 96 reads ones; 127 -> (10+127)&127 = 9; 128 is out of [-128,127] -> 0;
    # -11 -> 127 -> ones; 1.9 -> 1; -1.5 -> -1; NaN/inf -> INT_MIN, out of range -> 0
    assert_bits(result.o[:, 0, 0], [1, 109, 110, 1, 111, 109, 110, 110])
    assert_bits(result.o[:, 1, 0], [110] * 8)


def test_loop_counter_and_al() -> None:
    shader = build("""
    for cnt
        add r0, one, r0
        add r1, tbl[aL], r1
    .end
    mov o0, r0
    mov o1, r1
    mov o2, pad[aL]
""", ".fvec pad[10], tbl[4]\n.consti cnt(2, 10, 3, 0)\n")
    for k in range(90):  # c93-c95 hold the constants
        shader.set_uniform(f"c{k}", [k + 100] * 4)
    result = shader.run(vec(0, 0, 0, 0))
    assert_bits(result.o[0, 0], [3] * 4)  # i.x + 1 = 3 passes
    assert_bits(result.o[0, 1], [120 + 123 + 126] * 4)  # tbl = c10, aL = 10, 13, 16
    assert_bits(result.o[0, 2], [119] * 4)  # aL = 10 + 3*3 = 19 after the loop, not restored
    assert result.steps[0] == 1 + 3 * 2 + 3 + 1


def test_al_out_of_range_reads_offset_zero() -> None:
    shader = build("""
    for cnt
        mov o0, tbl[aL]
    .end
""", ".fvec pad[10], tbl[4]\n.ivec cnt\n")
    for k in range(90):  # c93-c95 hold the constants
        shader.set_uniform(f"c{k}", [k + 100] * 4)
    shader.set_uniform("cnt", (0, 200, 0))
    assert_bits(shader.run(vec(0, 0, 0, 0)).o[0, 0], [110] * 4)  # offset 200 > 127 -> 0 -> c10


def test_nested_loops_and_al_restore() -> None:
    shader = build("""
    for outer
        for inner
            add r0, one, r0
        .end
        add r1, pad[aL], r1
    .end
    mov o0, r0
    mov o1, r1
""", ".fvec pad[10]\n.consti outer(1, 0, 1, 0)\n.consti inner(2, 4, 1, 0)\n")
    for k in range(90):  # c93-c95 hold the constants
        shader.set_uniform(f"c{k}", [k + 100] * 4)
    result = shader.run(vec(0, 0, 0, 0))
    assert_bits(result.o[0, 0], [6] * 4)  # 2 outer passes x 3 inner passes
    # leaving the inner loop sets aL back to the inner loop's own i.y (4): reads c4 twice
    assert_bits(result.o[0, 1], [208] * 4)


def test_breakc_diverges_lanes() -> None:
    shader = build("""
    for cnt
        add r0, one, r0
        cmp r0, ge, ge, v0
        breakc cmp.x
    .end
    mov o0, r0
""", ".consti cnt(255, 0, 0, 0)\n")
    result = shader.run(np.array([[1, 0, 0, 0], [5, 0, 0, 0], [3, 0, 0, 0]], np.float32))
    assert_bits(result.o[:, 0, 0], [1, 5, 3])
    # picasso ends the loop body with a nop after breakc: 4 words a pass, 3 on the last one
    assert result.steps.tolist() == [1 + 4 * 0 + 3 + 2, 1 + 4 * 4 + 3 + 2, 1 + 4 * 2 + 3 + 2]


def test_break_leaves_the_loop() -> None:
    shader = build("""
    for cnt
        add r0, one, r0
        break
    .end
    mov o0, r0
""", ".consti cnt(7, 0, 0, 0)\n")
    result = shader.run(vec(0, 0, 0, 0))
    assert_bits(result.o[0, 0], [1] * 4)
    assert result.steps[0] == 5  # loop, add, break, mov, end


# -- calls, conditions, jumps ----------------------------------------------------------------------
FLOW = """
.proc main
    call sub
    callu flag, sub
    cmp v0, ne, eq, r15
    callc cmp.x, sub
    ifc cmp.x && cmp.y
        add r1, two, r1
    .else
        add r1, one, r1
    .end
    ifu flag
        add r2, two, r2
    .else
        add r2, one, r2
    .end
    jmpc !cmp.x, skip
    add r3, one, r3
skip:
    jmpu !flag, skip2
    add r3, two, r3
skip2:
    mov o0, r0
    mov o1, r1
    mov o2, r2
    mov o3, r3
    end
.end
.proc sub
    add r0, one, r0
.end
"""


@pytest.mark.parametrize("flag", [False, True])
def test_calls_ifs_jumps_per_lane(flag: bool) -> None:
    shader = build(FLOW, ".bool flag\n.entry main\n")
    shader.set_uniform("flag", flag)
    result = shader.run(np.array([[0, 0, 0, 0], [1, 0, 0, 0], [2, 1, 0, 0]], np.float32))
    # lane 0: cmp.x false; lane 1: cmp.x and cmp.y true; lane 2: cmp.x true, cmp.y false
    calls = 1 + flag
    assert_bits(result.o[:, 0, 0], [calls, calls + 1, calls + 1])
    assert_bits(result.o[:, 1, 0], [1, 2, 1])
    assert_bits(result.o[:, 2, 0], [2 if flag else 1] * 3)
    # lane 0 jumps over "add r3, one"; jmpu !flag is taken when flag is false (skips "add r3, two")
    assert_bits(result.o[:, 3, 0], [2 * flag, 1 + 2 * flag, 1 + 2 * flag])


@pytest.mark.parametrize(("mode", "truth"), [
    ("eq", [0, 1, 0, 0]), ("ne", [1, 0, 1, 1]), ("lt", [1, 0, 0, 0]),
    ("le", [1, 1, 0, 0]), ("gt", [0, 0, 1, 0]), ("ge", [0, 1, 1, 0]),
])
def test_cmp_modes(mode: str, truth: list[int]) -> None:
    shader = build(f"""
    mov r1, v1
    cmp v0, {mode}, {mode}, r1
    ifc cmp.x
        mov o0.x, one
    .end
    ifc cmp.y
        mov o0.y, one
    .end
""")
    # lanes: 1 vs 2, 2 vs 2, 3 vs 2, NaN vs 2 (x and y alike)
    v0 = np.array([[1, 1, 0, 0], [2, 2, 0, 0], [3, 3, 0, 0], [NAN, NAN, 0, 0]], np.float32)
    result = shader.run({"v0": v0, "v1": np.full((4, 4), 2, np.float32)})
    assert_bits(result.o[:, 0, 0], truth)
    assert_bits(result.o[:, 0, 1], truth)


def test_cmp_modes_6_and_7_keep_the_flag() -> None:
    dvlb = model("""
    cmp v0, eq, eq, v0
    cmp v0, ne, ne, v0
    ifc cmp.x
        mov o0.x, one
    .end
    ifc cmp.y
        mov o0.y, one
    .end
""")
    word = dvlb.dvlp.code[1]
    dvlb.dvlp.code[1] = (word & ~(7 << 24) & ~(7 << 21)) | (6 << 24) | (7 << 21)  # cmpx=6, cmpy=7
    result = PicaShader.load(dvlb).run(vec(1, 1, 0, 0))
    assert_bits(result.o[0, 0, :2], [1, 1])  # flags from the first cmp (eq: true) survive


def test_undefined_opcode_is_skipped_and_counted() -> None:
    dvlb = model("""
    nop
    mov o0, one
""")
    dvlb.dvlp.code[0] = 0x10 << 26 | 0x1234
    result = PicaShader.load(dvlb).run(vec(0, 0, 0, 0))
    assert_bits(result.o[0, 0], [1] * 4)
    assert result.steps[0] == 3


def test_call_returns_three_levels_on_one_instruction() -> None:
    """Nested calls that all end on the same word return together (one instruction)."""
    dvlb = model("""
.proc main
    call a
    mov o0, r0
    end
.end
.proc a
    call b
.end
.proc b
    call c
.end
.proc c
    add r0, one, r0
.end
""", ".entry main\n")
    # picasso pads each proc with a nop after its call; shorten "call a" and "call b" to one
    # word so that a (3..3), b (5..5) and c (7..7) end where the caller's return lands
    for address in (0, 3):
        dvlb.dvlp.code[address] = (dvlb.dvlp.code[address] & ~0xFF) | 1
    result = PicaShader.load(dvlb).run(vec(0, 0, 0, 0))
    assert_bits(result.o[0, 0], [1] * 4)
    assert result.steps[0] == 6  # call, call, call, add (returns 3 levels), mov, end


# -- geometry shaders -----------------------------------------------------------------------------
def test_emit_toggles_output_banks() -> None:
    shader = build("""
    setemit 0
    mov o0, v0
    emit
    setemit 1
    emit
    setemit 2, prim
    emit
    setemit 0, prim inv
    emit
""", geometry=True)
    result = shader.run(vec(7, 7, 7, 7))
    assert result.primitives is not None
    first, second = result.primitives[0]
    # o0 written once into bank A: emits see A (7), B (0), A (7)
    assert_bits(first.vertices[:, 0, 0], [7, 0, 7])
    assert first.winding is False
    # the fourth EMIT (bank B, o0 = 0) replaces vertex 0
    assert_bits(second.vertices[:, 0, 0], [0, 0, 7])
    assert second.winding is True
    assert_bits(result.o[0, 0], [7] * 4)  # after 4 EMITs bank A is current again


def test_emit_in_a_vertex_shader_is_an_error() -> None:
    with pytest.raises(VMError, match="vertex shader"):
        build("    emit").run(vec(0, 0, 0, 0))


# -- API and errors -------------------------------------------------------------------------------
def test_outputs_by_register_and_semantic() -> None:
    shader = build("""
    mov o0, v0
    mov o4, v1
""")
    result = shader.run({"v0": vec(1, 2, 3, 4), "v1": vec(5, 6, 7, 8)})
    assert_bits(result["position"][0], [1, 2, 3, 4])
    assert_bits(result.output("o0")[0], [1, 2, 3, 4])
    assert_bits(result.output(4)[0], [5, 6, 7, 8])
    assert_bits(result["view"][0], [5, 6, 7])  # view maps o4.xyz
    with pytest.raises(VMError, match="semantic"):
        result["fog"]


def test_uniform_by_name_and_matrix() -> None:
    shader = build("""
    dp4 o0.x, mvp[0], v0
    dp4 o0.y, mvp[1], v0
    dp4 o0.z, mvp[2], v0
    dp4 o0.w, mvp[3], v0
""", ".fvec mvp[4]\n")
    shader.set_uniform("mvp", np.diag([2, 3, 4, 5]))
    assert_bits(shader.run(vec(1, 1, 1, 1)).o[0, 0], [2, 3, 4, 5])


@pytest.mark.parametrize(("action", "message"), [
    (lambda s: s.set_uniform("nosuch", [0, 0, 0, 0]), "unknown uniform 'nosuch'"),
    (lambda s: s.set_uniform("mvp", np.zeros((5, 4))), "takes shape"),
    (lambda s: s.set_uniform("i0", (256, 0, 0)), "bytes"),
    (lambda s: s.run({"v0": np.zeros((3, 3))}), r"shape \(vertices, 4\)"),
    (lambda s: s.run({"v0": np.zeros((3, 4)), "v1": np.zeros((2, 4))}), "vertex count"),
    (lambda s: s.run({"v16": np.zeros((3, 4))}), "unknown input"),
    (lambda s: s.run(np.zeros((2, 17, 4))), "registers <= 16"),
    (lambda s: s.run({}), "no inputs"),
])
def test_bad_use_gives_a_clear_error(action, message: str) -> None:
    shader = build("    mov o0, v0", ".fvec mvp[4]\n")
    with pytest.raises(VMError, match=message) as info:
        action(shader)
    assert isinstance(info.value, ValueError)


def test_runaway_loop_hits_the_step_limit() -> None:
    shader = build("""
top:
    add r0, one, r0
    jmpu flag, top
    mov o0, r0
""", ".bool flag\n")
    shader.set_uniform("flag", True)
    with pytest.raises(VMError, match="step limit reached: 1000"):
        shader.run(vec(0, 0, 0, 0), max_steps=1000)
    shader.set_uniform("flag", False)
    assert_bits(shader.run(vec(0, 0, 0, 0)).o[0, 0], [1] * 4)


def test_missing_dvle() -> None:
    data = assemble_sources([("t.pica", source("    mov o0, v0"))])
    with pytest.raises(VMError, match="DVLE 3 does not exist"):
        PicaShader.load(data, 3)


def test_lanes_run_in_chunks_and_diverge_inside_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from shaderkit.vm import pica

    monkeypatch.setattr(pica, "CHUNK_LANES", 2)
    shader = build("""
    for cnt
        add r0, one, r0
        cmp r0, ge, ge, v0
        breakc cmp.x
    .end
    mov o0, r0
    mov o1, v0
""", ".consti cnt(255, 0, 0, 0)\n")
    limits = [4, 1, 2, 6, 3]
    result = shader.run(np.array([[x, 0, 0, 0] for x in limits], np.float32))
    assert_bits(result.o[:, 0, 0], limits)
    assert_bits(result.o[:, 1, 0], limits)
    assert result.steps.tolist() == [1 + 4 * (k - 1) + 3 + 3 for k in limits]


def test_rewriting_one_component_of_a_broadcast_result_keeps_the_others() -> None:
    """Results computed straight into the output array must not leak into sibling components."""
    shader = build("""
    mov r1, v1
    dp4 o0.xy, v0, r1
    dp4 o0.x, v0, v0
    mad o1, v0.xxxx, r1.xxxx, r1.xxxx
    mad o1.y, v0, v0, r1
    mov o2, v0
    dp4 o2.x, v0, v0
""")
    result = shader.run({"v0": vec(1, 2, 3, 4), "v1": vec(1, 1, 1, 1)})
    assert_bits(result.o[0, 0], [30, 10, 0, 0])  # y keeps 1+2+3+4, x becomes 1+4+9+16
    assert_bits(result.o[0, 1], [2, 5, 2, 2])  # 1*1+1 everywhere, then y = 2*2+1
    assert_bits(result.o[0, 2], [30, 2, 3, 4])


def test_outputs_written_before_lanes_diverge_survive_the_split() -> None:
    shader = build("""
    dp4 o0.xy, v0, v0
    mad o1, v0, v0, v0
    cmp v0, gt, gt, r15
    ifc cmp.x
        dp4 o0.x, one, v0
    .end
""")
    result = shader.run(np.array([[1, 2, 3, 4], [-1, 0, 0, 0]], np.float32))
    assert_bits(result.o[:, 0, :2], [[10, 30], [1, 1]])  # lane 0: x = 1+2+3+4 after the split
    assert_bits(result.o[:, 1], [[2, 6, 12, 20], [0, 0, 0, 0]])


def test_load_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "t.shbin"
    path.write_bytes(assemble_sources([("t.pica", source("    mov o0, v0"))]))
    assert_bits(PicaShader.load(str(path)).run(vec(1, 2, 3, 4)).o[0, 0], [1, 2, 3, 4])
    assert_bits(PicaShader.load(path).run(vec(5, 6, 7, 8))["position"][0], [5, 6, 7, 8])


def test_inputs_by_name_from_the_uniform_table() -> None:
    shader = build("    mov o0, pos\n    mov r1, nrm\n    add o1, pos, r1", ".in pos v0\n.in nrm v2\n")
    result = shader.run({"pos": vec(1, 2, 3, 4), "nrm": vec(10, 20, 30, 40)})
    assert_bits(result.o[0, 0], [1, 2, 3, 4])
    assert_bits(result.o[0, 1], [11, 22, 33, 44])
    with pytest.raises(VMError, match="not an input"):
        build("    mov o0, v0", ".fvec mvp[4]\n").run({"mvp": vec(1, 2, 3, 4)})

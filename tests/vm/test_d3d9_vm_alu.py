"""D3D9 VM arithmetic: shaders assembled here from text, each result worked out by hand or with
NumPy from the instruction's formula in the D3D9 asm reference (not from the VM)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shaderkit.isa.d3d9.table import OPCODES
from shaderkit.vm.d3d9 import SUPPORTED_OPCODES, D3D9Shader, VMError

FLT_MAX = float(np.finfo(np.float32).max)


def vs(body: str, version: str = "vs_3_0") -> D3D9Shader:
    """A vertex shader with v0 = POSITION0 and o0 = POSITION0 around ``body``."""
    head = f"{version}\n"
    if version == "vs_3_0":
        head += "dcl_position v0\ndcl_position o0\n"
    else:
        head += "dcl_position v0\n"
    return D3D9Shader.assemble(head + body)


def out0(shader: D3D9Shader, v0: list[list[float]], **kw: object) -> np.ndarray:
    return shader.run(v0=np.array(v0, np.float32), **kw)["POSITION0"]  # type: ignore[arg-type]


def test_every_table_opcode_runs() -> None:
    assert SUPPORTED_OPCODES == frozenset(OPCODES)


def test_mad_swizzle_modifiers_mask() -> None:
    sh = vs("def c0, 2, 3, 4, 5\nmov o0, c0.w\nmad o0.xz, -v0.yxwz, c0, v0_abs\n")
    got = out0(sh, [[1, -2, 3, 4]])
    # x: -v0.y * 2 + |1| = 4 + 1 = 5; z: -v0.w * 4 + |3| = -16 + 3 = -13; y, w keep 5
    np.testing.assert_array_equal(got, [[5, 5, -13, 5]])


def test_rcp_rsq_special_cases() -> None:
    sh = vs("dcl_texcoord0 o1\ndcl_texcoord1 o2\nrcp o1.x, v0.x\nrcp o1.y, v0.y\nrcp o1.z, v0.z\nrcp o1.w, v0.w\n"
            "rsq o2.x, v0.x\nrsq o2.y, v0.y\nrsq o2.z, v0.z\nrsq o2.w, v0.w\nmov o0, v0\n")
    out = sh.run(v0=[[0.0, -0.0, 4.0, -4.0]])
    # rcp(+0) = +inf, rcp(-0) = -inf (IEEE, as drivers give; the reference's pseudo-code says +inf)
    np.testing.assert_array_equal(out["TEXCOORD0"], [[math.inf, -math.inf, 0.25, -0.25]])
    np.testing.assert_array_equal(out["TEXCOORD1"], [[math.inf, math.inf, 0.5, 0.5]])  # rsq of |x|


def test_log_exp_of_zero_and_negatives() -> None:
    sh = vs("dcl_texcoord0 o1\nlog o0.x, v0.x\nlog o0.y, v0.y\nlogp o0.z, v0.z\nexp o0.w, v0.w\n"
            "expp o1, v0.w\n")
    out = sh.run(v0=[[0.0, -8.0, -0.25, -1.5]])
    np.testing.assert_array_equal(out["o0"], np.float32([[-FLT_MAX, 3.0, -2.0, 2 ** -1.5]]))
    np.testing.assert_allclose(out["o1"], [[2 ** -1.5] * 4], rtol=1e-6)  # vs_2_0+: 2**v in every component


def test_expp_vs_1_1_components() -> None:
    sh = D3D9Shader.assemble("vs_1_1\ndcl_position v0\nexpp oPos, v0.x\n")
    got = sh.run(v0=[[2.75, 0, 0, 0]])["POSITION"]
    # vs_1_1: (2**floor(v), v - floor(v), 2**v, 1)
    np.testing.assert_allclose(got, [[4.0, 0.75, 2 ** 2.75, 1.0]], rtol=1e-6)


def test_lit_clamps_power() -> None:
    sh = vs("lit o0, v0\n")
    got = out0(sh, [[0.5, 0.5, 0, 200.0], [0.5, 0.5, 0, -200.0], [-1, 0.5, 0, 2], [0.5, -0.5, 0, 2], [0.5, 0.25, 0, 2]])
    limit = 127.9961
    np.testing.assert_allclose(got, [[1, 0.5, 0.5 ** limit, 1], [1, 0.5, 0.5 ** -limit, 1], [1, 0, 0, 1],
                                     [1, 0.5, 0, 1], [1, 0.5, 0.0625, 1]], rtol=1e-5)


def test_dst_frc_sgn_abs() -> None:
    sh = vs("dcl_texcoord0 o1\ndcl_texcoord1 o2\ndef c0, 10, 20, 30, 40\ndst o0, v0, c0\nfrc o1, v0\n"
            "sgn o2, v0\n")
    out = sh.run(v0=[[-1.25, 2.5, 0.0, -3.0]])
    np.testing.assert_array_equal(out["o0"], [[1, 50, 0, 40]])  # (1, a.y*b.y, a.z, b.w)
    np.testing.assert_array_equal(out["o1"], [[0.75, 0.5, 0, 0]])  # x - floor(x)
    np.testing.assert_array_equal(out["o2"], [[-1, 1, 0, -1]])


def test_sgn_sm2_takes_scratch_registers() -> None:
    sh = vs("sgn r0, v0, r1, r2\nmov oPos, r0\n", "vs_2_0")
    np.testing.assert_array_equal(out0(sh, [[-5, 0, 7, -0.0]]), [[-1, 0, 1, 0]])


def test_nrm_and_zero_vector() -> None:
    sh = vs("nrm o0, v0\n")
    got = out0(sh, [[3, 0, 4, 10], [0, 0, 0, 5]])
    np.testing.assert_allclose(got, [[0.6, 0, 0.8, 2.0], [0, 0, 0, 0]], rtol=1e-6)


def test_pow_uses_abs_of_base() -> None:
    sh = vs("pow o0, v0.x, v0.y\n")
    got = out0(sh, [[-2, 3, 0, 0], [0.25, 0.5, 0, 0]])
    np.testing.assert_allclose(got, [[8] * 4, [0.5] * 4], rtol=1e-6)


def test_crs_writes_xyz_only() -> None:
    sh = vs("def c0, 0, 1, 0, 0\ndef c1, 9, 9, 9, 9\nmov o0, c1\ncrs o0.xyz, v0, c0\n")
    # (1, 0, 0) x (0, 1, 0) = (0, 0, 1); w kept
    np.testing.assert_array_equal(out0(sh, [[1, 0, 0, 0]]), [[0, 0, 1, 9]])


def test_sincos_sm3_and_sm2() -> None:
    sh = vs("def c1, 9, 9, 9, 9\nmov o0, c1\nsincos o0.xy, v0.x\n")
    np.testing.assert_allclose(out0(sh, [[0.5, 0, 0, 0]]), [[math.cos(0.5), math.sin(0.5), 9, 9]], rtol=1e-6)
    sh2 = vs("def c1, 9, 9, 9, 9\nmov r0, c1\nsincos r0.y, v0.x, c2, c3\nmov oPos, r0\n", "vs_2_0")
    np.testing.assert_allclose(out0(sh2, [[-1.0, 0, 0, 0]]), [[9, math.sin(-1.0), 9, 9]], rtol=1e-6)


def test_matrix_ops_expand_to_dot_products() -> None:
    rng = np.random.default_rng(3)
    mat = rng.uniform(-1, 1, (4, 4)).astype(np.float32)
    v = rng.uniform(-1, 1, (5, 4)).astype(np.float32)
    for op, (size, rows) in {"m4x4": (4, 4), "m4x3": (4, 3), "m3x4": (3, 4), "m3x3": (3, 3), "m3x2": (3, 2)}.items():
        sh = vs(f"def c9, 7, 7, 7, 7\nmov o0, c9\n{op} o0{'.xyzw'[: rows + 1] if rows < 4 else ''}, v0, c4\n")
        sh.set("c4", mat)
        got = out0(sh, v.tolist())
        expect = np.full((5, 4), 7.0, np.float32)
        expect[:, :rows] = v[:, :size] @ mat[:rows, :size].T
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6, err_msg=op)


def test_lrp_min_max_slt_sge() -> None:
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0\ndcl t1\ndef c0, 0.25, 0.5, 0.75, 1\n"
                             "lrp r0, c0, t0, t1\nmov oC0, r0\nmin r1, t0, t1\nmov oC1, r1\n"
                             "max r2, t0, t1\nmov oC2, r2\nslt r3, t0, t1\nsge r3.zw, t0, t1\nmov oC3, r3\n")
    out = sh.run(t0=[[1, 2, 3, 4]], t1=[[5, 1, 3, 0]])
    np.testing.assert_array_equal(out["COLOR0"], [[4, 1.5, 3, 4]])  # t1 + c0 * (t0 - t1)
    np.testing.assert_array_equal(out["oC1"], [[1, 1, 3, 0]])
    np.testing.assert_array_equal(out["oC2"], [[5, 2, 3, 4]])
    np.testing.assert_array_equal(out["oC3"], [[1, 0, 1, 1]])


def test_cmp_dp2add_and_sat() -> None:
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0\ndef c0, 1, 2, 3, 4\ndef c1, -1, -2, 0.5, 0\n"
                             "cmp r0, t0, c0, c1\nmov oC0, r0\ndp2add r1, t0, c0, c1.z\nmov_sat oC1, r1\n"
                             "dp2add oC2, t0, c0, c1.z\n")
    out = sh.run(t0=[[0.0, -0.5, -0.0, 2]])
    np.testing.assert_array_equal(out["oC0"], [[1, -2, 3, 4]])  # -0 >= 0
    # 0*1 + -0.5*2 + 0.5 = -0.5, saturated to 0
    np.testing.assert_array_equal(out["oC1"], [[0, 0, 0, 0]])
    np.testing.assert_array_equal(out["oC2"], [[-0.5] * 4])


def test_source_modifiers_of_ps_1_x() -> None:
    sh = D3D9Shader.assemble("ps_1_4\ndef c0, 0.25, 0.5, 0.75, 1\ntexcrd r1.rgb, t0\n"
                             "mov r0, c0_bias\nadd r0, r0, c0_bx2\nadd r0, r0, 1 - c0\nadd r0, r0, c0_x2\n")
    got = sh.run(t0=[[0, 0, 0, 0]])["COLOR0"]
    c0 = np.array([0.25, 0.5, 0.75, 1])
    np.testing.assert_allclose(got[0], (c0 - 0.5) + (2 * c0 - 1) + (1 - c0) + 2 * c0)


def test_instruction_shifts_and_saturate() -> None:
    sh = D3D9Shader.assemble("ps_1_4\ndef c0, 0.25, 0.5, -0.75, 0.125\nmov_x4 r1, c0\nmov_d2 r2, c0\n"
                             "mov_x8_sat r3, c0\nadd r0, r1, r2\nadd r0, r0, r3\n")
    got = sh.run(lanes=1)["r0"]
    c0 = np.array([0.25, 0.5, -0.75, 0.125])
    np.testing.assert_allclose(got[0], 4 * c0 + c0 / 2 + np.clip(8 * c0, 0, 1))


def test_cnd_uses_r0_alpha_below_ps_1_4() -> None:
    sh = D3D9Shader.assemble("ps_1_1\ndef c0, 0.1, 0.2, 0.3, 0.7\ndef c1, 1, 1, 1, 1\ndef c2, 0, 0, 0, 0\n"
                             "mov r0, c0\ncnd r0, r0.a, c1, c2\n")
    np.testing.assert_array_equal(sh.run(lanes=1)["r0"], [[1, 1, 1, 1]])  # r0.a = 0.7 > 0.5
    sh14 = D3D9Shader.assemble("ps_1_4\ndef c0, 0.1, 0.6, 0.5, 0.7\ndef c1, 1, 1, 1, 1\ndef c2, 0, 0, 0, 0\n"
                               "cnd r0, c0, c1, c2\n")
    np.testing.assert_array_equal(sh14.run(lanes=1)["r0"], [[0, 1, 0, 1]])  # per component, > 0.5 strictly


def test_coissue_reads_before_writes() -> None:
    sh = D3D9Shader.assemble("ps_1_1\ndef c0, 1, 2, 3, 4\ndef c1, 10, 20, 30, 40\nmov r1, c1\n"
                             "mov r1.rgb, c0\n+mov r1.a, r1.b\nmov r0, r1\n")
    # the pair reads before either half writes: r1.a = the old r1.b = 30 (in order it would be the
    # new r1.b = 3); r1.rgb = (1, 2, 3)
    np.testing.assert_array_equal(sh.run(lanes=1)["r0"], [[1, 2, 3, 30]])
    swap = D3D9Shader.assemble("ps_1_1\ndef c0, 1, 2, 3, 4\ndef c1, 10, 20, 30, 40\nmov r0, c0\nmov r1, c1\n"
                               "mov r0.rgb, r1\n+mov r0.a, r1\nadd r0, r0, r0\n")
    np.testing.assert_array_equal(swap.run(lanes=1)["r0"], [[20, 40, 60, 80]])


def test_mova_rounds_and_relative_constants() -> None:
    sh = vs("mova a0.x, v0.x\nmov o0, c10[a0.x]\n")
    sh.set("c8", [[8, 8, 8, 8], [9, 9, 9, 9], [10, 10, 10, 10], [11, 11, 11, 11], [12, 12, 12, 12], [13, 13, 13, 13]])
    got = out0(sh, [[0.4, 0, 0, 0], [0.5, 0, 0, 0], [-0.5, 0, 0, 0], [1.6, 0, 0, 0], [-2.4, 0, 0, 0], [-1.5, 0, 0, 0]])
    # round to nearest, halves away from zero: 0, 1, -1, 2, -2, -2
    np.testing.assert_array_equal(got[:, 0], [10, 11, 9, 12, 8, 8])


def test_vs_1_1_mov_to_a0_floors_and_out_of_range_reads_zero() -> None:
    sh = D3D9Shader.assemble("vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, c[a0.x + 2]\n")
    sh.set("c0", np.arange(16, dtype=np.float32).reshape(4, 4))
    got = sh.run(v0=[[0.9, 0, 0, 0], [-0.1, 0, 0, 0], [-5, 0, 0, 0], [600, 0, 0, 0]])["oPos"]
    np.testing.assert_array_equal(got, [[8, 9, 10, 11], [4, 5, 6, 7], [0, 0, 0, 0], [0, 0, 0, 0]])


def test_def_overrides_caller_constants_and_ctab_free_registers() -> None:
    sh = vs("def c3, 1, 2, 3, 4\nadd o0, c3, c4\n")
    sh.set("c3", [9, 9, 9, 9]).set("c4", [1, 1, 1])
    np.testing.assert_array_equal(out0(sh, [[0, 0, 0, 0]]), [[2, 3, 4, 4]])  # c4 = (1, 1, 1, 0)


def test_legacy_zero_times_inf() -> None:
    sh = vs("def c0, 0, 0, 0, 0\nmul o0, v0, c0\n")
    ieee = out0(sh, [[math.inf, 1, 2, 3]])
    assert math.isnan(ieee[0, 0]) and ieee[0, 1] == 0
    np.testing.assert_array_equal(out0(sh, [[math.inf, 1, 2, 3]], legacy_float=True), [[0, 0, 0, 0]])


def test_sat_maps_nan_to_zero() -> None:
    sh = vs("dcl_texcoord0 o1\nmov_sat o1, v0\nmov o0, v0\n")
    got = sh.run(v0=[[math.nan, -1, 0.5, 7]])["TEXCOORD0"]
    np.testing.assert_array_equal(got, [[0, 0, 0.5, 1]])


def test_bad_input_names_raise() -> None:
    sh = vs("mov o0, v0\n")
    with pytest.raises(VMError, match="NORMAL"):
        sh.run(NORMAL=[[0, 0, 0, 0]])
    with pytest.raises(VMError, match="constant named"):
        sh.set("NoSuchThing", [1])


def test_scalar_sources_without_replicate_swizzle() -> None:
    # rcp/rsq take the swizzled w, log/exp/pow the swizzled x (Wine's reading); pow(0, 0) = 1
    sh = vs("dcl_texcoord0 o1\nrcp o0.x, v0\nrsq o0.y, v0\nlog o0.z, v0\nexp o0.w, v0\npow o1, v0.z, v0.z\n")
    out = sh.run(v0=[[8, 2, 0, 4]])
    np.testing.assert_array_equal(out["o0"], [[0.25, 0.5, 3, 256]])
    np.testing.assert_array_equal(out["o1"], [[1, 1, 1, 1]])


def test_packed_semantics_share_a_register() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_texcoord0 v0.xy\ndcl_texcoord1 v0.zw\ndcl_position o0\ndcl_texcoord0 o1.xy\n"
                             "dcl_texcoord1 o1.zw\nmov o0, v0\nmov o1, v0.zwxy\n")
    out = sh.run(TEXCOORD0=[[1, 2]], TEXCOORD1=[[3, 4]])
    np.testing.assert_array_equal(out["POSITION"], [[1, 2, 3, 4]])  # TEXCOORD1 fills v0.zw
    assert out.semantics["TEXCOORD0"] == out.semantics["TEXCOORD1"] == "o1"
    np.testing.assert_array_equal(out["TEXCOORD1"], [[3, 4, 1, 2]])


def test_min_max_with_nan_give_the_second_operand() -> None:
    sh = vs("dcl_texcoord0 o1\nmin o0.xy, v0.xy, v0.yx\nmax o0.zw, v0.xyxy, v0.yxyx\nslt o1, v0.xyxy, v0.yxyx\n")
    out = sh.run(v0=[[math.nan, 1.0, 0, 0]])
    got = out["o0"][0]
    # min(NaN, 1) = 1, min(1, NaN) = NaN; max likewise
    assert got[0] == 1 and math.isnan(got[1]) and got[2] == 1 and math.isnan(got[3])
    np.testing.assert_array_equal(out["o1"], [[0, 0, 0, 0]])  # NaN < 1 and 1 < NaN are false


def test_semantic_index_1_does_not_find_index_10() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_position v0\ndcl_texcoord10 v1\ndcl_position o0\ndcl_texcoord10 o1\n"
                             "mov o0, v0\nmov o1, v1\n")
    out = sh.run(POSITION=[[1, 2, 3, 4]], TEXCOORD10=[[5, 6, 7, 8]])
    assert "TEXCOORD10" in out and "texcoord10" in out and "POSITION" in out
    assert "TEXCOORD1" not in out
    with pytest.raises(KeyError):
        out["TEXCOORD1"]
    np.testing.assert_array_equal(out["texcoord10"], [[5, 6, 7, 8]])
    np.testing.assert_array_equal(out["o1"], [[5, 6, 7, 8]])
    assert out.semantics == {"POSITION0": "o0", "TEXCOORD10": "o1"}
    with pytest.raises(VMError, match="TEXCOORD1"):  # an input by a semantic the shader does not declare
        sh.run(POSITION=[[1, 2, 3, 4]], TEXCOORD1=[[5, 6, 7, 8]])


def test_token_fields_outside_the_table_raise_vmerror() -> None:
    import struct

    def program(*tokens: int) -> bytes:
        return struct.pack(f"<{len(tokens) + 2}I", 0xFFFE0200, *tokens, 0x0000FFFF)

    # mov r0, v0 with source modifier 14 (D3DSPSM_* ends at 13, "!")
    with pytest.raises(VMError, match="source modifier 14"):
        D3D9Shader.from_bytes(program(0x02000001, 0x800F0000, 0x9EE40000))
    # if_comp (41) c0, c1 with comparison control 0 (none of _gt.._le), endif
    sh = D3D9Shader.from_bytes(program(0x02000029, 0xA0E40000, 0xA0E40001, 0x0000002B))
    with pytest.raises(VMError, match="comparison control 0"):
        sh.run(lanes=1)


def test_an_instruction_with_a_source_count_its_opcode_does_not_take_is_a_vm_error():
    # "add r0, c0, c1" with its opcode word turned into mov (1): a mov token with 2 sources
    data = bytearray(D3D9Shader.assemble("ps_2_0\nadd r0, c0, c1\nmov oC0, r0\n").model.to_bytes())
    token = int.from_bytes(data[4:8], "little")
    assert token & 0xFFFF == OPCODES_BY_NAME["add"] and (token >> 24) & 0xF == 3  # dest + 2 sources
    data[4:8] = ((token & ~0xFFFF) | OPCODES_BY_NAME["mov"]).to_bytes(4, "little")
    with pytest.raises(VMError, match="mov at instruction 0: a destination and 2 sources; the opcode takes 1"):
        D3D9Shader.load(bytes(data))


OPCODES_BY_NAME = {info.name: op for op, info in OPCODES.items() if info.name in ("add", "mov")}


def test_partial_writes_and_outputs_are_separate_arrays() -> None:
    # vs_2_0: oT0 and oT1 both copy c1; r0 copies v0, then its x and w change (dp4 to x, a
    # saturated slt to w): the copies stay as they were and each output is its own writable array
    sh = vs("def c1, 0.5, -1, 2, 8\nmov oT0, c1\nmov oT1, c1\nmov r0, v0\ndp4 r0.x, v0, c1\n"
            "slt_sat r0.w, r0.y, c1.y\nmov oPos, r0\nmov oT2, v0\n", "vs_2_0")
    out = sh.run(v0=np.array([[1, -2, 3, 4], [0, 0, 0, 0]], np.float32))
    # lane 0: dp4 = 0.5 + 2 + 6 + 32 = 40.5; slt(-2 < -1) = 1; lane 1: 0, slt(0 < -1) = 0
    np.testing.assert_array_equal(out["oPos"], [[40.5, -2, 3, 1], [0, 0, 0, 0]])
    np.testing.assert_array_equal(out["oT2"], [[1, -2, 3, 4], [0, 0, 0, 0]])
    arrays = [out["oT0"], out["oT1"], out["oPos"], out["oT2"]]
    for i, a in enumerate(arrays):
        assert a.flags.writeable and a.flags.c_contiguous and a.dtype == np.float32
        assert not any(np.shares_memory(a, b) for b in arrays[i + 1:])
    out["oT0"][0, 0] = 9  # changes nothing else
    np.testing.assert_array_equal(out["oT1"], [[0.5, -1, 2, 8]] * 2)


def test_a_register_copied_before_a_partial_write_keeps_its_value() -> None:
    # r1 and oT0 take r0 whole; then r0.x and r0.yw change: the copies keep the old r0
    sh = vs("def c0, 10, 20, 30, 40\nmov r0, v0\nmov r1, r0\nmov oT0, r0\nadd r0.x, r0.x, c0.x\n"
            "mul r0.yw, r0, c0\nmov oPos, r0\nmov oT1, r1\n", "vs_2_0")
    out = sh.run(v0=np.array([[1, 2, 3, 4]], np.float32))
    np.testing.assert_array_equal(out["oPos"], [[11, 40, 3, 160]])
    np.testing.assert_array_equal(out["oT0"], [[1, 2, 3, 4]])
    np.testing.assert_array_equal(out["oT1"], [[1, 2, 3, 4]])

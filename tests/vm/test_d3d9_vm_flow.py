"""D3D9 VM flow control with diverging lanes: if/else, if_comp, predicates, rep/loop with aL,
break/breakc/breakp, call/callnz/ret/label. Expected values are worked out by hand per lane."""

from __future__ import annotations

import numpy as np
import pytest

from shaderkit.vm.d3d9 import D3D9Shader, VMError


def ps(body: str, version: str = "ps_3_0") -> D3D9Shader:
    return D3D9Shader.assemble(f"{version}\ndcl_texcoord0 v0\n{body}")


def color(shader: D3D9Shader, v0: list[float], **kw: object) -> np.ndarray:
    return shader.run(TEXCOORD0=np.array(v0, np.float32)[:, None].repeat(4, 1), **kw)["COLOR0"]  # type: ignore[arg-type]


def test_if_comp_else_diverges() -> None:
    sh = ps("def c0, 1, 2, 0, 0\nif_gt v0.x, c0.z\nmov r0, c0.x\nelse\nmov r0, c0.y\nendif\nmov oC0, r0\n")
    np.testing.assert_array_equal(color(sh, [1, -1, 0, 3])[:, 0], [1, 2, 2, 1])


def test_nested_if_inside_rep_with_diverging_lanes() -> None:
    # r0 counts, per lane, the passes where r1.x (the pass number) < v0.x; r2 counts passes
    sh = ps("defi i0, 4, 0, 0, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\nmov r1, c0.y\nmov r2, c0.y\n"
            "rep i0\n  if_lt r1.x, v0.x\n    if_ge r1.x, c0.x\n      add r0, r0, c0.x\n    endif\n  endif\n"
            "  add r1, r1, c0.x\n  add r2, r2, c0.x\nendrep\nmov oC0, r0\nmov oC0.y, r2.x\n")
    got = color(sh, [0, 1, 2.5, 10])
    # passes 0..3; counted where 1 <= pass < v0.x: v0=0 -> 0, 1 -> 0, 2.5 -> passes 1, 2 -> 2, 10 -> 1, 2, 3 -> 3
    np.testing.assert_array_equal(got[:, 0], [0, 0, 2, 3])
    np.testing.assert_array_equal(got[:, 1], [4, 4, 4, 4])


def test_loop_al_indexes_constants_and_inputs() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 3, 2, 2, 0\ndef c0, 0, 0, 0, 0\n"
                             "mov r0, c0\nloop aL, i0\n  add r0, r0, c1[aL]\nendloop\nmov o0, r0\n")
    sh.set("c1", np.arange(1, 41, dtype=np.float32).reshape(10, 4))
    # aL = 2, 4, 6: c3 + c5 + c7 = rows 3, 5, 7 of 1..40 (c1 starts at value 1)
    rows = np.arange(1, 41).reshape(10, 4)
    np.testing.assert_array_equal(sh.run(v0=[[0, 0, 0, 0]])["o0"], [rows[2] + rows[4] + rows[6]])


def test_breakc_and_break_leave_only_their_lanes() -> None:
    sh = ps("defi i0, 10, 0, 0, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
            "rep i0\n  break_ge r0.x, v0.x\n  add r0, r0, c0.x\nendrep\nmov oC0, r0\n")
    np.testing.assert_array_equal(color(sh, [0, 2, 3.5, 50])[:, 0], [0, 2, 4, 10])
    sh2 = ps("defi i0, 10, 0, 0, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\n"
             "rep i0\n  add r0, r0, c0.x\n  if_ge r0.x, v0.x\n    break\n  else\n    add r0, r0, c0.x\n  endif\n"
             "endrep\nmov oC0, r0\n")
    # each pass adds 1, then stops at >= v0.x, else adds 1 more: r0 = 1, 3, 5, ...; 20 after 10 passes
    np.testing.assert_array_equal(color(sh2, [1, 2, 4.5, 100])[:, 0], [1, 3, 5, 20])


def test_setp_predication_and_breakp() -> None:
    sh = ps("def c0, 1, 2, 0, 0\nsetp_gt p0, v0, c0.z\nmov r0, c0.z\n(p0) mov r0.x, c0.x\n(!p0.x) mov r0.y, c0.y\n"
            "mov oC0, r0\n")
    got = color(sh, [1, -1])
    np.testing.assert_array_equal(got[:, :2], [[1, 0], [0, 2]])
    sh2 = ps("defi i0, 8, 0, 0, 0\ndef c0, 1, 0, 0, 0\nmov r0, c0.y\nrep i0\n  setp_ge p0.x, r0.x, v0.x\n"
             "  breakp p0.x\n  add r0, r0, c0.x\nendrep\nmov oC0, r0\n")
    np.testing.assert_array_equal(color(sh2, [3, 0, 100])[:, 0], [3, 0, 8])


def test_if_bool_constant_and_if_predicate() -> None:
    sh = ps("def c0, 1, 2, 0, 0\nmov r0, c0.z\nif b3\n  mov r0.x, c0.x\nendif\nsetp_lt p0.x, v0.x, c0.z\n"
            "if !p0.x\n  mov r0.y, c0.y\nendif\nmov oC0, r0\n")
    sh.set("b3", True)
    got = color(sh, [-1, 1])
    np.testing.assert_array_equal(got[:, :2], [[1, 0], [1, 2]])
    sh.set("b3", False)
    np.testing.assert_array_equal(color(sh, [-1])[:, 0], [0])


def test_call_callnz_ret_and_subroutine_sees_al() -> None:
    sh = D3D9Shader.assemble(
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 2, 5, 1, 0\ndef c0, 1, 0, 0, 0\ndefb b0, true\n"
        "mov r0, c0.y\nloop aL, i0\n  call l0\nendloop\ncallnz l1, b0\ncallnz l1, !b0\nmov o0, r0\nret\n"
        "label l0\nadd r0, r0, c0[aL]\nret\nlabel l1\nadd r0.w, r0.w, c0.x\nret\n")
    sh.set("c5", [[1, 2, 3, 4], [10, 20, 30, 40]])
    # aL = 5, 6 -> c5 + c6; then l1 once (b0 true; !b0 false) adds 1 to w
    np.testing.assert_array_equal(sh.run(v0=[[0, 0, 0, 0]])["o0"], [[11, 22, 33, 45]])


def test_callnz_on_predicate_and_early_ret() -> None:
    sh = ps("def c0, 1, 2, 0, 0\nmov r0, c0.z\nsetp_gt p0.x, v0.x, c0.z\ncallnz l0, p0.x\nmov oC0, r0\nret\n"
            "label l0\nmov r0.x, c0.x\nif_gt v0.x, c0.x\n  ret\nendif\nmov r0.y, c0.y\nret\n")
    got = color(sh, [-1, 0.5, 3])
    # lane 0: not called; lane 1: called, v0 <= 1: x = 1, y = 2; lane 2: called, returns early: x = 1
    np.testing.assert_array_equal(got[:, :2], [[0, 0], [1, 2], [1, 0]])


def test_ret_in_main_ends_the_lanes() -> None:
    sh = ps("def c0, 1, 2, 0, 0\nmov r0, c0.x\nmov oC0, r0\nif_gt v0.x, c0.z\n  ret\nendif\nmov r0, c0.y\n"
            "mov oC0, r0\n")
    np.testing.assert_array_equal(color(sh, [1, -1])[:, 0], [1, 2])


def test_call_depth_limit() -> None:
    deep = "vs_2_0\ndcl_position v0\ncall l0\nmov oPos, v0\nret\nlabel l0\ncall l1\nret\nlabel l1\nret\n"
    with pytest.raises(VMError, match="nest deeper than 1"):
        D3D9Shader.assemble(deep).run(v0=[[0, 0, 0, 0]])
    deep3 = deep.replace("vs_2_0", "vs_3_0").replace("dcl_position v0\n", "dcl_position v0\ndcl_position o0\n")
    deep3 = deep3.replace("oPos", "o0")
    D3D9Shader.assemble(deep3).run(v0=[[0, 0, 0, 0]])  # vs_3_0: 4 levels


def test_recursion_stops_with_vm_error() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_position v0\ndcl_position o0\ncall l0\nmov o0, v0\nret\n"
                             "label l0\ncall l0\nret\n")
    with pytest.raises(VMError, match="nest deeper"):
        sh.run(v0=[[0, 0, 0, 0]])


def test_texkill_discards_per_pixel() -> None:
    sh = ps("def c0, 1, 1, 1, 1\ntexkill v0\nmov oC0, c0\n")
    out = sh.run(TEXCOORD0=[[0, 0, 0, 0], [1, 1, -0.5, 1], [1, 1, 1, -2]])
    np.testing.assert_array_equal(out.discarded, [False, True, True])
    ps11 = D3D9Shader.assemble("ps_1_1\ntexkill t0\nmov r0, v0\n")
    # ps_1_x: only x, y, z of the texture coordinate set count
    np.testing.assert_array_equal(ps11.run(t0=[[0, 0, 0, -1], [0, -1, 0, 0]], v0=[[1, 1, 1, 1]] * 2).discarded,
                                  [False, True])


def test_relative_outputs_and_inputs_by_al() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n"
                             "defi i0, 2, 0, 1, 0\nmov o0, v0\nloop aL, i0\n  mul o1[aL], v0, c11[aL]\nendloop\n")
    sh.set("c10", [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])
    out = sh.run(v0=[[1, 2, 3, 4]])
    np.testing.assert_array_equal(out["TEXCOORD0"], [[2, 4, 6, 8]])
    np.testing.assert_array_equal(out["TEXCOORD1"], [[3, 6, 9, 12]])
    ps3 = D3D9Shader.assemble("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndefi i0, 2, 0, 1, 0\ndef c0, 0, 0, 0, 0\n"
                              "mov r0, c0\nloop aL, i0\n  add r0, r0, v0[aL]\nendloop\nmov oC0, r0\n")
    got = ps3.run(TEXCOORD0=[[1, 2, 3, 4]], TEXCOORD1=[[10, 20, 30, 40]])["oC0"]
    np.testing.assert_array_equal(got, [[11, 22, 33, 44]])


def test_opcode_outside_the_table_raises() -> None:
    from shaderkit.formats.d3d9.shader import D3D9Shader as Model

    words = [0xFFFE0300, 0x0000004B, 0x0000FFFF]  # opcode 75: D3DSIO_RESERVED0, not in the table
    with pytest.raises(VMError, match="unknown D3D9 opcode 75"):
        D3D9Shader(Model.from_bytes(b"".join(w.to_bytes(4, "little") for w in words)))


def test_vertex_texture_fetch_texldl() -> None:
    sh = D3D9Shader.assemble("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_2d s0\ntexldl o0, v0, s0\n")
    tex = np.zeros((2, 2, 4), np.float32)
    tex[0, 1] = [5, 6, 7, 8]  # row y = 0, column x = 1
    sh.texture("s0", tex)
    np.testing.assert_array_equal(sh.run(v0=[[0.75, 0.25, 0, 0]])["o0"], [[5, 6, 7, 8]])


def test_rep_count_is_clamped_to_255_and_negative_to_0() -> None:
    sh = ps("def c0, 1, 0, 0, 0\nmov r0, c0.y\nrep i0\n  add r0, r0, c0.x\nendrep\nmov oC0, r0\n")
    sh.set("i0", [1000, 0, 0, 0])
    np.testing.assert_array_equal(color(sh, [0])[:, 0], [255])
    sh.set("i0", [-3, 0, 0, 0])
    np.testing.assert_array_equal(color(sh, [0])[:, 0], [0])

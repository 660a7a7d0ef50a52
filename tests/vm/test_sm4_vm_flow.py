"""Hand-checked flow control, pixel quads and resources on the SM4/SM5 VM (per-lane masks)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from sm4_text import f32, machine

from shaderkit.vm.sm4 import Buffer, Sampler, Texture, VmError
from shaderkit.vm.sm4.machine import Declarations

LANES_0_TO_7 = np.arange(8, dtype=np.int32)


def ints(values: np.ndarray) -> np.ndarray:
    v = np.zeros((1, len(values), 4), np.int32)
    v[0, :, 0] = values
    return v


def test_if_else_diverges_per_lane() -> None:
    text = """
    ilt r0.x, v0.x, l(3)
    if_nz r0.x
      mov o0.x, l(100)
    else
      ige r0.y, v0.x, l(6)
      if_z r0.y
        mov o0.x, l(200)
      else
        mov o0.x, l(300)
      endif
    endif
    """
    m = machine(text, 8, v=ints(LANES_0_TO_7))
    assert m.o[0][:, 0].tolist() == [100, 100, 100, 200, 200, 200, 300, 300]


def test_loop_with_break_and_continue() -> None:
    # sum of i for i in 0..n-1, skipping i == 2: lanes with n = v0.x
    text = """
    mov r0.xy, l(0, 0, 0, 0)
    loop
      ige r1.x, r0.x, v0.x
      breakc_nz r1.x
      ieq r1.y, r0.x, l(2)
      if_nz r1.y
        iadd r0.x, r0.x, l(1)
        continue
      endif
      iadd r0.y, r0.y, r0.x
      iadd r0.x, r0.x, l(1)
    endloop
    mov o0.x, r0.y
    """
    m = machine(text, 6, v=ints(np.array([0, 1, 2, 3, 4, 5])))
    # n=0:0, 1:0, 2:0+1=1, 3:1 (2 skipped), 4:1+3=4, 5:4+4=8
    assert m.o[0][:, 0].tolist() == [0, 0, 1, 1, 4, 8]


def test_switch_with_fallthrough_and_default() -> None:
    text = """
    mov o0.x, l(0)
    switch v0.x
      case l(0)
        iadd o0.x, o0.x, l(1)
      case l(1)
        iadd o0.x, o0.x, l(10)
        break
      case l(2)
        mov o0.x, l(7)
        break
      default
        mov o0.x, l(99)
        break
    endswitch
    """
    m = machine(text, 4, v=ints(np.array([0, 1, 2, 5])))
    # case 0 falls through into case 1: 1 + 10
    assert m.o[0][:, 0].tolist() == [11, 10, 7, 99]


def test_call_and_conditional_return() -> None:
    text = """
    mov o0.x, l(1)
    call l0
    iadd o0.x, o0.x, l(1000)
    ret
    label l0
    iadd o0.x, o0.x, l(10)
    ilt r0.x, v0.x, l(2)
    retc_nz r0.x
    iadd o0.x, o0.x, l(100)
    ret
    """
    m = machine(text, 4, v=ints(np.array([0, 1, 2, 3])))
    # lanes < 2 return early from the subroutine; all lanes come back for the +1000
    assert m.o[0][:, 0].tolist() == [1011, 1011, 1111, 1111]


def test_discard_switches_lanes_off() -> None:
    text = """
    mov o0.x, l(1.0)
    lt r0.x, v0.x, l(0.5)
    discard_nz r0.x
    mov o0.x, l(2.0)
    """
    v = np.zeros((1, 4, 4), np.float32)
    v[0, :, 0] = [0.0, 1.0, 0.25, 0.75]
    m = machine(text, 4, stage="pixel", v=v)
    assert m.discarded.tolist() == [True, False, True, False]
    assert f32(m.o[0])[[1, 3], 0].tolist() == [2.0, 2.0]


def test_runaway_loop_stops_with_vm_error() -> None:
    with pytest.raises(VmError, match="step limit"):
        machine("loop\nmov r0.x, l(1)\nendloop", 1)


def test_derivatives_in_2x2_quads() -> None:
    # quad lanes: top-left, top-right, bottom-left, bottom-right; v0.x = x^2 + 10 y at (x, y)
    v = np.zeros((1, 4, 4), np.float32)
    v[0, :, 0] = [0.0, 1.0, 10.0, 11.0 + 3.0]  # BR has an extra 3 to tell coarse from fine
    text = "deriv_rtx_coarse o0.x, v0.x\nderiv_rty_coarse o0.y, v0.x\nderiv_rtx_fine o0.z, v0.x\nderiv_rty_fine o0.w, v0.x"
    m = machine(text, 4, stage="pixel", v=v)
    out = f32(m.o[0])
    # coarse: one value per quad from the top-left lane's row/column: TR-TL = 1, BL-TL = 10
    assert out[:, 0].tolist() == [1.0] * 4 and out[:, 1].tolist() == [10.0] * 4
    # fine x: per row (top 1, bottom 14-10 = 4); fine y: per column (left 10, right 14-1 = 13)
    assert out[:, 2].tolist() == [1.0, 1.0, 4.0, 4.0]
    assert out[:, 3].tolist() == [10.0, 13.0, 10.0, 13.0]


def _sampling_machine(text: str, coords: list[tuple[float, float]], sampler: Sampler) -> np.ndarray:
    d = Declarations(temps=2, inputs=1, outputs=1, resources={0: ("texture2d", "float")}, samplers={0})
    texels = np.array([[[0, 0, 0, 1], [10, 0, 0, 1]], [[20, 0, 0, 1], [30, 0, 0, 1]]], np.float32)  # 2x2, rows y
    v = np.zeros((1, len(coords), 4), np.float32)
    v[0, :, :2] = coords
    m = machine(text, len(coords), decl=d, v=v,
                textures={0: Texture.from_array(texels)}, samplers={0: sampler})
    return f32(m.o[0])


def test_sample_point_and_linear_filtering() -> None:
    coords = [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.5, 0.25)]
    point = _sampling_machine("sample_l o0.xyzw, v0.xyxx, t0.xyzw, s0, l(0)", coords,
                              Sampler(filter="point", address=("clamp",) * 3))
    # point: the texel containing the coordinate; (0.5, 0.5) lies on the corner -> texel (1, 1)
    assert point[:, 0].tolist() == [0.0, 10.0, 30.0, 10.0]
    linear = _sampling_machine("sample_l o0.xyzw, v0.xyxx, t0.xyzw, s0, l(0)", coords,
                               Sampler(filter="linear", address=("clamp",) * 3))
    # linear: texel centres at 0.25 and 0.75; the middle averages all four: (0+10+20+30)/4 = 15;
    # (0.5, 0.25) is halfway between texels 0 and 10 on the top row -> 5
    assert linear[:, 0].tolist() == [0.0, 10.0, 15.0, 5.0]
    wrap = _sampling_machine("sample_l o0.xyzw, v0.xyxx, t0.xyzw, s0, l(0)", [(1.25, -0.75)],
                             Sampler(filter="point", address=("wrap",) * 3))
    # wrap: (1.25, -0.75) -> (0.25, 0.25) -> texel (0, 0)
    assert wrap[:, 0].tolist() == [0.0]


def test_ld_reads_texels_and_returns_zero_outside() -> None:
    d = Declarations(temps=1, inputs=1, outputs=1, resources={0: ("texture2d", "float")})
    texels = np.arange(16, dtype=np.float32).reshape(2, 2, 4)
    v = np.zeros((1, 3, 4), np.int32)
    v[0, :, :2] = [(1, 0), (0, 1), (2, 0)]
    m = machine("ld o0.xyzw, v0.xyzw, t0.xyzw", 3, decl=d, v=v, textures={0: Texture.from_array(texels)})
    # texel (x=1, y=0) is texels[0][1] = 4..7; (0, 1) is texels[1][0] = 8..11; x = 2 is outside -> 0
    assert f32(m.o[0]).tolist() == [[4, 5, 6, 7], [8, 9, 10, 11], [0, 0, 0, 0]]


def test_structured_buffer_load_and_store() -> None:
    d = Declarations(temps=2, inputs=1, outputs=1, structured={(7, 0): 8, (30, 0): 8}, uavs={0: "structured"})
    elements = np.array([(1, 1.5), (2, 2.5), (3, 3.5)], dtype=[("i", "<i4"), ("f", "<f4")])
    out = Buffer(np.zeros(6, np.uint32), 8)
    text = """
    ld_structured r0.xy, v0.x, l(0), t0.xyxx
    iadd r1.x, r0.x, l(10)
    add r1.y, r0.y, l(1.0)
    store_structured u0.xy, v0.x, l(0), r1.xyxx
    """
    m = machine(text, 3, decl=d, v=ints(np.array([2, 0, 1])),
                buffers={(7, 0): Buffer.structured(elements.tobytes(), 8), (30, 0): out})
    assert m.n == 3
    result = out.words.view(np.dtype([("i", "<i4"), ("f", "<f4")]))
    assert result["i"].tolist() == [11, 12, 13]
    assert result["f"].tolist() == [2.5, 3.5, 4.5]


def test_groupshared_memory_barrier_and_atomics_in_compute() -> None:
    # 2 groups of 4 threads: each thread writes its index to g0, sync, then reads its neighbour's;
    # thread 0 of each group also counts the group's threads with an atomic add into u0[group]
    d = Declarations(temps=2, outputs=0, tgsm={0: (4, 4)}, structured={(31, 0): 4}, uavs={0: "raw"},
                     thread_group=(4, 1, 1))
    d.raw.add((30, 0))
    uav = Buffer(np.zeros(16, np.uint32))
    text = """
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), vThreadID.x
    sync_g_t
    iadd r0.x, vThreadIDInGroupFlattened.x, l(1)
    and r0.x, r0.x, l(3)
    ld_structured r1.x, r0.x, l(0), g0.xxxx
    ishl r0.y, vThreadID.x, l(2)
    iadd r0.y, r0.y, l(32)
    store_raw u0.x, r0.y, r1.x
    ishl r0.z, vThreadGroupID.x, l(2)
    atomic_iadd u0, r0.z, l(1)
    imm_atomic_umax r0.w, u0, l(24), vThreadID.x
    """
    from types import SimpleNamespace

    from sm4_text import program

    from shaderkit.vm.sm4.machine import Machine, build_tree

    m = Machine(SimpleNamespace(decl=d, stage="compute"), 8)
    lane = np.arange(8)
    group, local = lane // 4, lane % 4
    vec = np.zeros((8, 4), np.uint32)
    m.groups, m.group_count = group, 2
    from shaderkit.isa.sm4.opcodes import OperandType as OT

    m.special[OT.INPUT_THREAD_ID] = vec.copy()
    m.special[OT.INPUT_THREAD_ID][:, 0] = lane
    m.special[OT.INPUT_THREAD_GROUP_ID] = vec.copy()
    m.special[OT.INPUT_THREAD_GROUP_ID][:, 0] = group
    m.special[OT.INPUT_THREAD_ID_IN_GROUP_FLATTENED] = vec.copy()
    m.special[OT.INPUT_THREAD_ID_IN_GROUP_FLATTENED][:, 0] = local
    m.buffers = {(30, 0): uav}
    main, functions = build_tree(program(text))
    m.run(main, functions)
    words = uav.words
    # u0[0], u0[1]: 4 atomic increments per group; u0[6]: max thread id 7
    assert words[:2].tolist() == [4, 4]
    assert words[6] == 7
    # u0[8 + t] = the neighbour's thread id inside the same group (groups do not share g0)
    assert words[8:16].tolist() == [1, 2, 3, 0, 5, 6, 7, 4]


def test_gather_order_and_comparison_sampling() -> None:
    # texels (x, y): (0,0)=0, (1,0)=10, (0,1)=20, (1,1)=30 in the red channel
    gather = _sampling_machine("gather4 o0.xyzw, v0.xyxx, t0.xyzw, s0.x", [(0.5, 0.5)],
                               Sampler(filter="point", address=("clamp",) * 3))
    # D3D order: x = (u0, v1), y = (u1, v1), z = (u1, v0), w = (u0, v0)
    assert gather[0].tolist() == [20.0, 30.0, 10.0, 0.0]
    compare = Sampler(filter="linear", address=("clamp",) * 3, comparison="less_equal")
    linear = _sampling_machine("sample_c_lz o0.x, v0.xyxx, t0.xxxx, s0, l(15.0)", [(0.5, 0.5), (0.25, 0.25)], compare)
    # each texel is compared (15 <= t) before filtering: (0, 0, 1, 1) averaged -> 0.5; at texel (0,0): 0
    assert linear[:, 0].tolist() == [0.5, 0.0]


def test_compute_flushes_denormals_like_every_d3d_stage() -> None:
    # D3D flushes float32 denormals in compute too (llvmpipe's compute keeps them: the oracle differs)
    d = Declarations(temps=1, outputs=0, uavs={0: "raw"})
    d.raw.add((30, 0))
    uav = Buffer(np.zeros(2, np.uint32))
    m = machine("mul r0.x, l(0x00000001), l(1.0)\nmov r0.y, l(0x00000001)\nstore_raw u0.xy, l(0), r0.xyxx", 1,
                stage="compute", decl=d, buffers={(30, 0): uav})
    assert m.n == 1
    assert uav.words.tolist() == [0, 1]  # mul flushed, mov kept the bits


def test_cube_faces_and_linear_mip_filtering() -> None:
    # a 2x2 cube whose face k holds the value k: the major axis picks the face (+X 0, -X 1, +Y 2,
    # -Y 3, +Z 4, -Z 5)
    faces = np.zeros((6, 2, 2, 4), np.float32)
    faces[..., 0] = np.arange(6, dtype=np.float32)[:, None, None]
    d = Declarations(temps=1, inputs=1, outputs=1, resources={0: ("texturecube", "float")}, samplers={0})
    v = np.zeros((1, 6, 4), np.float32)
    v[0, :, :3] = [(1, 0.2, 0.1), (-1, 0.1, 0.3), (0.2, 1, 0.1), (0.1, -1, -0.2), (0.1, 0.3, 1), (0.2, 0.1, -1)]
    m = machine("sample_l o0.xyzw, v0.xyzx, t0.xyzw, s0, l(0)", 6, decl=d, v=v,
                textures={0: Texture.from_array(faces, "texturecube")}, samplers={0: Sampler(filter="point")})
    assert f32(m.o[0])[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    # mips: level 0 all 0, level 1 all 1; LOD 0.5 with linear mip filtering blends halfway
    d2 = Declarations(temps=1, inputs=1, outputs=1, resources={0: ("texture2d", "float")}, samplers={0})
    tex = Texture.from_array(np.zeros((4, 4, 4), np.float32), mips=True)
    tex.levels[1][:] = 1.0
    v2 = np.full((1, 2, 4), 0.5, np.float32)
    m2 = machine("sample_l o0.xyzw, v0.xyxx, t0.xyzw, s0, l(0.5)\nsample_l o1.xyzw, v0.xyxx, t0.xyzw, s0, l(0.25)",
                 2, decl=Declarations(temps=1, inputs=1, outputs=2, resources=d2.resources, samplers={0}), v=v2,
                 textures={0: tex}, samplers={0: Sampler(filter="point", mip_filter="linear")})
    assert f32(m2.o[0])[:, 0].tolist() == [0.5, 0.5]
    assert f32(m2.o[1])[:, 0].tolist() == [0.25, 0.25]


def test_cube_filtering_crosses_face_edges_and_fills_corners() -> None:
    # D3D10+ filters cube maps seamlessly. A 2x2 cube, face k holding 2**k everywhere:
    # (+X 1, -X 2, +Y 4, -Y 8, +Z 16, -Z 32). All values are worked by hand below.
    faces = np.zeros((6, 2, 2, 4), np.float32)
    faces[..., 0] = (2.0 ** np.arange(6, dtype=np.float32))[:, None, None]
    d = Declarations(temps=1, inputs=1, outputs=2, resources={0: ("texturecube", "float")}, samplers={0})
    v = np.zeros((1, 2, 4), np.float32)
    # lane 0: (1, 0, 1) is on +X (ties go to x) at u = 0, v = 0.5, so bilinear x spans texels -1 and 0
    #         half each (the -1 texel lies across the edge on +Z): 0.5 * 1 + 0.5 * 16 = 8.5
    #         (clamped within the face it read 1)
    # lane 1: (1, 1, 1) is +X's corner at u = v = 0, so the footprint is (-1, -1), (0, -1),
    #         (-1, 0), (0, 0): +Y 4, +Z 16 and +X 1, and the corner texel, which no face holds,
    #         is their average 7. A quarter each: (7 + 4 + 16 + 1) / 4 = 7
    v[0, :, :3] = [(1, 0, 1), (1, 1, 1)]
    text = "sample_l o0.xyzw, v0.xyzx, t0.xyzw, s0, l(0)\ngather4 o1.xyzw, v0.xyzx, t0.xyzw, s0.x"
    m = machine(text, 2, decl=d, v=v, textures={0: Texture.from_array(faces, "texturecube")},
                samplers={0: Sampler(filter="linear")})
    assert f32(m.o[0])[:, 0].tolist() == [8.5, 7.0]
    # gather4 at the corner: x = (u0, v1) +Z 16, y = (u1, v1) +X 1, z = (u1, v0) +Y 4, w = (u0, v0) the corner 7
    assert f32(m.o[1])[1].tolist() == [16.0, 1.0, 4.0, 7.0]
    # Sampler(seamless=False), as the D3D9 and Maxwell VMs sample: every texel clamps onto +X, 1
    clamped = machine(text, 2, decl=d, v=v, textures={0: Texture.from_array(faces, "texturecube")},
                      samplers={0: Sampler(filter="linear", seamless=False)})
    assert f32(clamped.o[0])[:, 0].tolist() == [1.0, 1.0] and f32(clamped.o[1])[1].tolist() == [1.0] * 4


def test_gather4_c_compares_each_texel_and_averages_a_cube_corner() -> None:
    # 2D: a 2x2 texture, red (rows y) [[0.1, 0.5], [0.3, 0.9]], at its centre: x = (u0, v1) 0.3,
    # y = (u1, v1) 0.9, z = (u1, v0) 0.5, w = (u0, v0) 0.1; ref 0.4 <= texel gives (0, 1, 1, 0).
    # Cube: a 2x2 cube, face k holding k / 10 (+X 0, +Y 0.2, +Z 0.4), at +X's corner (1, 1, 1):
    # x = +Z 0.4, y = +X 0, z = +Y 0.2, w = the corner; ref 0.2 <= texel gives (1, 0, 1) and the
    # corner the average of those three results, 2/3
    image = np.zeros((2, 2, 4), np.float32)
    image[..., 0] = [[0.1, 0.5], [0.3, 0.9]]
    faces = np.zeros((6, 2, 2, 4), np.float32)
    faces[..., 0] = (np.arange(6, dtype=np.float32) / 10)[:, None, None]
    d = Declarations(temps=1, inputs=2, outputs=2, samplers={0},
                     resources={0: ("texture2d", "float"), 1: ("texturecube", "float")})
    v = np.zeros((2, 2, 4), np.float32)  # (two lanes, the same coordinates)
    v[0, :] = (0.5, 0.5, 0, 0)
    v[1, :] = (1, 1, 1, 0)
    text = "gather4_c o0.xyzw, v0.xyxx, t0.xyzw, s0.x, l(0.4)\ngather4_c o1.xyzw, v1.xyzx, t1.xyzw, s0.x, l(0.2)"
    m = machine(text, 2, decl=d, v=v, samplers={0: Sampler(filter="point", comparison="less_equal")},
                textures={0: Texture.from_array(image), 1: Texture.from_array(faces, "texturecube")})
    assert f32(m.o[0]).tolist() == [[0.0, 1.0, 1.0, 0.0]] * 2
    assert f32(m.o[1]).tolist() == [pytest.approx([1.0, 0.0, 1.0, 2 / 3])] * 2


def test_cube_filtering_is_continuous_across_all_twelve_edges() -> None:
    # seamless filtering: just either side of every edge (two coordinates at +-1, nudged by 1e-4
    # one way and the other) the filtered values agree; clamped within each face they jump by a
    # texel difference (random texels in [0, 1))
    rng = np.random.default_rng(3)
    faces = rng.uniform(0, 1, (6, 4, 4, 4)).astype(np.float32)
    dirs = []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        for sa, sb, t, side in itertools.product((1, -1), (1, -1), np.linspace(-0.9, 0.9, 7), (1e-4, -1e-4)):
            v = np.zeros(3)
            v[3 - a - b], v[a], v[b] = t, sa * (1 + side), sb * (1 - side)
            dirs.append(v)
    v = np.zeros((1, len(dirs), 4), np.float32)
    v[0, :, :3] = dirs
    d = Declarations(temps=1, inputs=1, outputs=1, resources={0: ("texturecube", "float")}, samplers={0})
    m = machine("sample_l o0.xyzw, v0.xyzx, t0.xyzw, s0, l(0)", len(dirs), decl=d, v=v,
                textures={0: Texture.from_array(faces, "texturecube")}, samplers={0: Sampler(filter="linear")})
    pairs = f32(m.o[0]).reshape(-1, 2, 4)
    assert np.abs(pairs[:, 0] - pairs[:, 1]).max() < 2e-3


@pytest.mark.parametrize(("dimension", "shape", "expected", "right"), [
    ("texture1d", (4, 4, 4), "(w, c)", (4, 4)),  # a 2D image given for a 1D texture
    ("texture3d", (4, 4, 4), "(d, h, w, c)", (2, 4, 4, 4)),
    ("texturecube", (4, 4, 4), "(6, h, w, c)", (6, 4, 4, 4)),
    ("texturecubearray", (5, 4, 4, 4), "(6n, h, w, c)", (12, 4, 4, 4)),  # not whole cubes
    ("texture2d", (4, 4), "(h, w, c)", (4, 4, 4)),  # no channel axis
])
def test_texture_arrays_of_the_wrong_rank_are_refused(dimension: str, shape: tuple[int, ...], expected: str,
                                                      right: tuple[int, ...]) -> None:
    # (they failed later, inside the first load, with numpy's "too many values to unpack")
    with pytest.raises(ValueError, match=rf"a {dimension} takes {re.escape(expected)} texels, not an array of shape"):
        Texture.from_array(np.zeros(shape, np.float32), dimension)
    assert Texture.from_array(np.zeros(right, np.float32), dimension).levels[0].ndim == 5

"""Hull and domain shaders: phases, instances, control points, patch constants, system values.

Synthetic programs are fxc listings assembled here (``assemble_container``: the signature tables
of the comment header become ISGN/OSGN/PCSG); corpus shaders are checked against values worked
out by hand from their fxc listings (``*.fxc.asm``). Arithmetic that is not exact in float32
(constants such as 1/3, which fxc prints as 0.333333) is redone step by step in float32 NumPy,
one rounding per instruction as the listing orders them (``mad``: the product rounded, then the
sum).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shaderkit
from conftest import corpus_files, corpus_root
from shaderkit.formats.dxbc.assemble import assemble_container
from shaderkit.vm.sm4 import Buffer, DomainOutputs, HullOutputs, Shader, VmError

f32 = np.float32

_HEADER = """//
// Name                 Index   Mask Register SysValue  Format   Used
// -------------------- ----- ------ -------- -------- ------- ------
"""


def _signature(title: str, rows: list[str]) -> str:
    return f"//\n// {title}:\n" + _HEADER + "".join(f"// {row}\n" for row in rows) + "//\n"


PATCH_ROWS = [
    "SV_TessFactor            0   x           0  TRIEDGE   float   x",
    "SV_TessFactor            1   x           1  TRIEDGE   float   x",
    "SV_TessFactor            2   x           2  TRIEDGE   float   x",
    "SV_InsideTessFactor      0   x           3   TRIINT   float   x",
    "EXTRA                    0   xy          4     NONE   float   xy",
]

# every phase kind: the control-point phase reverses the points and writes 10 * patch + point in
# .w; fork phase 1 (3 instances) copies input point i's x into edge factor i through o[r0.x + 0]
# and vicp[r0.x + 0]; fork phase 2 (no instance count: 1) reads the output control points; the
# join phase (2 instances) reads the fork phases' results as vpc and writes one component each
HULL = (_signature("Patch Constant signature", PATCH_ROWS)
        + _signature("Input signature", ["POSITION                 0   xyz         0     NONE   float   xyz"])
        + _signature("Output signature", ["POSITION                 0   xyzw        0     NONE   float   xyzw"])
        + """hs_5_0
hs_decls
dcl_input_control_point_count 3
dcl_output_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
dcl_hs_max_tessfactor l(64.000000)
hs_control_point_phase
dcl_input vOutputControlPointID
dcl_input vPrim
dcl_input v[3][0].xyz
dcl_output o0.xyzw
dcl_temps 1
iadd r0.x, -vOutputControlPointID, l(2)
mov o0.xyz, v[r0.x + 0][0].xyzx
utof r0.y, vPrim
utof r0.z, vOutputControlPointID
mad o0.w, r0.y, l(10.000000), r0.z
ret
hs_fork_phase
dcl_hs_fork_phase_instance_count 3
dcl_input vForkInstanceID
dcl_input vicp[3][0].x
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
dcl_output_siv o1.x, finalTriVeq0EdgeTessFactor
dcl_output_siv o2.x, finalTriWeq0EdgeTessFactor
dcl_temps 1
dcl_indexrange o0.x 3
mov r0.x, vForkInstanceID.x
mov o[r0.x + 0].x, vicp[r0.x + 0][0].x
ret
hs_fork_phase
dcl_input vocp[3][0].w
dcl_output_siv o3.x, finalTriInsideTessFactor
add o3.x, vocp[0][0].w, vocp[1][0].w
ret
hs_join_phase
dcl_hs_join_phase_instance_count 2
dcl_input vJoinInstanceID
dcl_input vpc0.x
dcl_input vpc1.x
dcl_input vpc2.x
dcl_input vpc3.x
dcl_output o4.xy
dcl_temps 1
if_z vJoinInstanceID
  add r0.x, vpc0.x, vpc1.x
  add o4.x, r0.x, vpc2.x
else
  add o4.y, vpc3.x, vpc3.x
endif
ret
""")

# barycentric interpolation of the control points, w from a patch constant, the patch in o1.x
DOMAIN = (_signature("Patch Constant signature", PATCH_ROWS)
          + _signature("Input signature", ["POSITION                 0   xyzw        0     NONE   float   xyz"])
          + _signature("Output signature", ["SV_Position              0   xyzw        0      POS   float   xyzw",
                                            "PATCH                    0   x           1     NONE    uint   x"])
          + """ds_5_0
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyz
dcl_input vpc3.x
dcl_input vpc4.y
dcl_input vPrim
dcl_output_siv o0.xyzw, position
dcl_output o1.x
dcl_temps 1
mul r0.xyz, vDomain.xxxx, vicp[0][0].xyzx
mad r0.xyz, vDomain.yyyy, vicp[1][0].xyzx, r0.xyzx
mad o0.xyz, vDomain.zzzz, vicp[2][0].xyzx, r0.xyzx
add o0.w, vpc3.x, vpc4.y
mov o1.x, vPrim
ret
""")

POINTS = np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[-1, 0, 0.5], [2, 2, 2], [3, 3, 3]]], np.float32)


def test_hull_phases_instances_and_system_values() -> None:
    shader = Shader(assemble_container(HULL))
    assert [(p.kind, p.instances) for p in shader.phases] == [("control_point", 1), ("fork", 3), ("fork", 1), ("join", 2)]
    out = shader.run_hull({"POSITION": POINTS})
    assert isinstance(out, HullOutputs)
    # output point i = input point 2 - i, w = 10 * patch + i
    assert out["POSITION"].tolist() == [
        [[7, 8, 9, 0], [4, 5, 6, 1], [1, 2, 3, 2]],
        [[3, 3, 3, 10], [2, 2, 2, 11], [-1, 0, 0.5, 12]],
    ]
    assert out["o0"].shape == (2, 3, 4) and out["o0"].dtype == np.uint32
    # edge factor i = input point i's x; inside = w of output points 0 and 1 (0 + 1, 10 + 11)
    assert out.tess_factors.tolist() == [[1, 4, 7], [-1, 2, 3]]
    assert out.inside_tess_factors.tolist() == [[1], [21]]
    assert out.patch_constants["SV_TessFactor2"].tolist() == [[7], [3]]
    # join instance 0: sum of the edges (12, 4); instance 1: twice the inside factor (2, 42)
    assert out.patch_constants["EXTRA"].tolist() == [[12, 2], [4, 42]]
    assert out.patch_constants["o4"].view(np.float32)[:, :2].tolist() == [[12, 2], [4, 42]]
    assert (out.domain, out.partitioning, out.output_primitive, out.max_tessfactor) == ("tri", "integer", "triangle_cw", 64.0)


# the control-point phase and the fork phase call one subroutine, which follows the last phase
HULL_CALL = (_signature("Patch Constant signature", PATCH_ROWS[:4])
             + _signature("Output signature", ["POSITION                 0   xyzw        0     NONE   float   xyzw"])
             + """hs_5_0
hs_decls
dcl_input_control_point_count 1
dcl_output_control_point_count 2
dcl_tessellator_domain domain_tri
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_triangle_cw
hs_control_point_phase
dcl_output o0.xyzw
call l0
ret
hs_fork_phase
dcl_output_siv o0.x, finalTriUeq0EdgeTessFactor
call l0
ret
label l0
mov o0.xyzw, l(1.000000,2.000000,3.000000,4.000000)
ret
""")


def test_hull_phases_share_one_compiled_subroutine() -> None:
    shader = Shader(assemble_container(HULL_CALL))
    control, fork = shader.phases
    assert list(control.functions) == list(fork.functions) == [0]
    assert control.functions[0] is fork.functions[0]  # compiled once for the shader
    out = shader.run_hull({}, count=2)
    assert out["POSITION"].tolist() == [[[1, 2, 3, 4]] * 2] * 2
    assert out.tess_factors.tolist() == [[1, 0, 0], [1, 0, 0]]


def test_hull_count_without_inputs_and_errors() -> None:
    shader = Shader(assemble_container(HULL))
    out = shader.run_hull({}, count=3)  # zero control points; vPrim still numbers the patches
    assert out["POSITION"][:, :, 3].tolist() == [[0, 1, 2], [10, 11, 12], [20, 21, 22]]
    with pytest.raises(VmError, match="expected"):
        shader.run_hull({"POSITION": POINTS[:, :2]})  # 2 points, the shader takes 3
    with pytest.raises(VmError, match="no input"):
        shader.run_hull({"NORMAL": POINTS})
    with pytest.raises(VmError, match="run_hull"):
        shader.run_vertex({"v0": np.zeros((1, 4), np.float32)})
    with pytest.raises(VmError, match="run_domain"):
        Shader(assemble_container(DOMAIN)).run_hull({"POSITION": POINTS})


def test_domain_from_hull_outputs_and_given_patches() -> None:
    hull = Shader(assemble_container(HULL)).run_hull({"POSITION": POINTS})
    ds = Shader(assemble_container(DOMAIN))
    where = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.25, 0.25]], np.float32)
    out = ds.run_domain(hull, where)
    assert isinstance(out, DomainOutputs)
    assert out.patch.tolist() == [0] * 4 + [1] * 4  # every patch runs every location
    position = out["SV_Position"]
    # patch 0's output points are (7,8,9), (4,5,6), (1,2,3); w = inside + EXTRA.y = 1 + 2, 21 + 42
    assert position[:4].tolist() == [[7, 8, 9, 3], [4, 5, 6, 3], [1, 2, 3, 3], [4.75, 5.75, 6.75, 3]]
    assert position[4:].tolist() == [[3, 3, 3, 63], [2, 2, 2, 63], [-1, 0, 0.5, 63], [1.75, 2, 2.125, 63]]
    assert out["PATCH"].reshape(-1).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    # the same by semantic, one location per row with its patch given
    constants = {"SV_InsideTessFactor": np.array([1, 21], np.float32), "vpc4": np.array([[0, 2], [0, 42]], np.float32)}
    out = ds.run_domain({"POSITION": hull["POSITION"]}, where[3:], constants, patch=[1])
    assert out["SV_Position"].tolist() == [[1.75, 2, 2.125, 63]]
    assert out["PATCH"].reshape(-1).tolist() == [1]


def test_domain_errors_are_vm_errors() -> None:
    ds = Shader(assemble_container(DOMAIN))
    with pytest.raises(VmError, match="domain"):
        ds.run_domain({"POSITION": POINTS}, np.zeros((2, 4), np.float32))
    with pytest.raises(VmError, match="patch"):
        ds.run_domain({"POSITION": POINTS}, np.zeros((2, 3), np.float32), patch=[0, 2])
    with pytest.raises(VmError, match="patch constant"):
        ds.run_domain({"POSITION": POINTS}, np.zeros((2, 3), np.float32), {"vpc9": np.zeros(2, np.float32)})
    hull = Shader(_corpus("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc")).run_hull(
        {"CPOINT": np.zeros((1, 4, 3), np.float32)})
    with pytest.raises(VmError, match="control points"):  # (the hull run itself succeeds)
        ds.run_domain(hull, np.zeros((1, 3), np.float32))


def test_fork_instances_merge_by_changed_components() -> None:
    # two instances write the same register: instance 0 .x, instance 1 .y; both also write .z
    # (undefined in D3D): the higher instance wins; .w is written with the value it already has
    text = (_signature("Patch Constant signature", ["VALUE                    0   xyzw        0     NONE   float   xyzw"])
            + """hs_5_0
hs_decls
dcl_input_control_point_count 1
dcl_output_control_point_count 1
dcl_tessellator_domain domain_isoline
dcl_tessellator_partitioning partitioning_integer
dcl_tessellator_output_primitive output_line
hs_fork_phase
dcl_hs_fork_phase_instance_count 2
dcl_input vForkInstanceID
dcl_input vPrim
dcl_output o0.xyzw
dcl_temps 1
utof r0.x, vForkInstanceID.x
add r0.x, r0.x, l(5.000000)
if_z vForkInstanceID.x
  mov o0.x, r0.x
else
  mov o0.y, r0.x
endif
mov o0.z, r0.x
mov o0.w, l(0)
ret
hs_join_phase
dcl_input vpc0.xyzw
dcl_output o0.w
add o0.w, vpc0.x, vpc0.y
ret
""")
    shader = Shader(assemble_container(text))
    out = shader.run_hull({}, count=2)
    assert out.patch_constants["VALUE"].tolist() == [[5, 6, 6, 11], [5, 6, 6, 11]]
    assert out["o0"].shape == (2, 1, 4)  # pass-through: one (zero) control point


# -- corpus shaders, worked out from their listings -----------------------------------------------


def _corpus(name: str) -> bytes:
    root = corpus_root()
    if root is None or not (root / "dxbc" / name).exists():
        pytest.skip(f"corpus file {name} not found")
    return shaderkit.open((root / "dxbc" / name).read_bytes())


def test_hs5_basic_pass_through_and_icb_tess_factors() -> None:
    # no control-point phase: CPOINT passes through; fork (2 instances): o[i].x = icb[i].x = 1, 8
    shader = Shader(_corpus("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc"))
    points = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    out = shader.run_hull({"CPOINT": points})
    assert out["CPOINT"].tolist() == points.tolist()
    assert out.tess_factors.tolist() == [[1, 8], [1, 8]]  # isoline: density, detail
    assert out.inside_tess_factors.shape == (2, 0)
    assert (out.domain, out.partitioning, out.output_primitive) == ("isoline", "integer", "line")


def test_tri_point_control_points_from_vprim() -> None:
    # control-point phase: o0.x = float(vPrim), o0.yz = 0 for each of 16 points; every factor 0
    shader = Shader(_corpus("dxdecompiler__Internal_HullShaders_HullShader_TriPoint.dxbc"))
    out = shader.run_hull({}, count=3)
    assert out["BEZIERPOS"].shape == (3, 16, 3)
    assert out["BEZIERPOS"][:, :, 0].tolist() == [[0] * 16, [1] * 16, [2] * 16]
    assert not out["BEZIERPOS"][:, :, 1:].any()
    assert out.tess_factors.tolist() == [[0, 0, 0]] * 3 and out.inside_tess_factors.tolist() == [[0]] * 3


def _pn_hull() -> tuple[Shader, np.ndarray, np.ndarray]:
    shader = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_HS.dxbc"))
    cb = np.zeros((16, 4), np.float32)
    cb[15, 0] = 5  # the tessellation factor
    shader.set_constant_buffer(0, cb)
    positions = np.array([[[0, 0, 0], [3, 0, 0], [0, 3, 0]]], np.float32)
    normals = np.array([[[0, 0, 1], [0, 0, 1], [0, 0, 1]]], np.float32)
    return shader, positions, normals


def test_pn_triangles_hull_fork_and_join_phases() -> None:
    shader, positions, normals = _pn_hull()
    out = shader.run_hull({"v0": positions, "v1": normals})
    # fxc prints 0.333333 and 0.166667; the words are float32(1/3) and float32(1/6) (what the
    # HLSL's / 3 and / 6 compile to; ``disasm --exact`` prints 0.33333334 and 0.16666667)
    third, sixth = f32(1 / 3), f32(1 / 6)
    assert out.tess_factors.tolist() == [[5, 5, 5]] and out.inside_tess_factors.tolist() == [[5]]
    pc = out.patch_constant_bits[0].view(np.float32)
    # fork 3, instance i: (a, b) = (1,0), (0,1), (2,1), (1,2); the normals are all z, so the
    # projection term is 0 and o[i].yzw = (2 P[b] + P[a]) * 0.333333
    expected = {0: (3, 0), 1: (6, 0), 2: (6, 3), 3: (3, 6)}
    for i, (x, y) in expected.items():
        assert pc[i, 1:].tolist() == [f32(x) * third, f32(y) * third, 0]
    # fork 4, instance i: (a, b) = (0, 2), (2, 0): o[4 + i].xyz = (2 P[b] + P[a]) * 0.333333
    assert pc[4, :3].tolist() == [0, f32(6) * third, 0] and pc[5, :3].tolist() == [0, f32(3) * third, 0]
    # fork 5: the edge normals, (N[a] + N[b]) normalised = (0, 0, 1)
    assert pc[7:10, :3].tolist() == [[0, 0, 1]] * 3
    # join phases: o6 = centre + (centre - mean of the corners) / 2, x and y (z is 0)
    for axis, (edges, corners) in enumerate((([3, 6, 6, 3, 0, 0], 3), ([0, 0, 3, 6, 6, 3], 3))):
        total = f32(0)
        for k, value in enumerate(edges):
            term = f32(value) * third
            total = term if k == 0 else f32(total + term)
        centre = f32(total * sixth)
        offset = f32(f32(-f32(corners) * third) + centre)
        assert pc[6, axis] == f32(f32(offset * f32(0.5)) + centre)
    assert pc[6, 2] == 0


def test_subd_fork_phase_relative_register_index_of_vicp() -> None:
    """SubD11 HS_4444 forks 3 and 4: ``mov o[r0.z + 6].x, vicp[r0.y + 0][r0.x + 1].x`` with
    r0.x = (id < 4) & 1, r0.y = id & 3, r0.z = id over 8 instances: instances 0-3 copy
    vicp[id][2] (TANGENT) to o6-o9, instances 4-7 copy vicp[id - 4][1] (TEXCOORD) to o10-o13, .x
    and .y by the two forks; fork 5 copies vicp[id][2].z to o6-o9.z. (vkd3d 1.2 reads the wrong
    register here, so the oracle cannot check it.)"""
    shader = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS_4444.dxbc"))
    point = np.arange(32, dtype=np.float32)[None, :, None]
    inputs = {"v0": np.concatenate([point, point + 0.25, point + 0.5], axis=2),
              "v1": np.concatenate([100 + point, 100.25 + point], axis=2),
              "v2": np.concatenate([200 + point, 200.25 + point, 200.5 + point], axis=2)}
    pc = shader.run_hull(inputs).patch_constant_bits[0].view(np.float32)
    for i in range(4):
        assert pc[6 + i, :3].tolist() == [200 + i, 200.25 + i, 200.5 + i]
        assert pc[10 + i, :2].tolist() == [100 + i, 100.25 + i]


def test_pn_triangles_domain_from_its_hull_shader() -> None:
    shader, positions, normals = _pn_hull()
    texcoords = np.array([[[0.25, 0.5], [0.75, 0.5], [0, 1]]], np.float32)
    hull = shader.run_hull({"POSITION": positions, "NORMAL": normals, "TEXCOORD": texcoords})
    assert hull["TEXCOORD"].tolist() == texcoords.tolist()  # no control-point phase: passed through
    ds = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_DS.dxbc"))
    cb = np.zeros((13, 4), np.float32)
    cb[4:8] = np.eye(4)  # world-view-projection rows
    cb[12, :3] = (0, 0, 1)  # light direction
    ds.set_constant_buffer(0, cb)
    out = ds.run_domain(hull, [[1, 0, 0], [0, 0, 1]])
    # vDomain = (1, 0, 0): every term but P1 is multiplied by 0: position P1; (0, 0, 1): P0
    assert out["SV_Position"].tolist() == [[3, 0, 0, 1], [0, 0, 0, 1]]
    assert out["TEXCOORD"].tolist() == [[0.75, 0.5], [0.25, 0.5]]
    # normal (0, 0, 1) . light (0, 0, 1) = 1, max(1, 0) + 0.2
    assert out["COLOR"].tolist() == [[f32(1) + f32(0.2)] * 3 + [1]] * 2


def test_pn_triangles_domain_reads_patch_constants_by_semantic() -> None:
    ds = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_DS.dxbc"))
    cb = np.zeros((13, 4), np.float32)
    cb[4:8] = np.eye(4)
    ds.set_constant_buffer(0, cb)
    corners = np.array([[[0, 0, 0], [8, 0, 0], [0, 8, 0]]], np.float32)
    # POSITION5 is vpc2.yzw, POSITION6 vpc3.yzw: the edge (P1, P2) control points
    constants = {"POSITION5": np.array([[16, 8, 0]], np.float32), "POSITION6": np.array([[8, 16, 0]], np.float32)}
    out = ds.run_domain({"POSITION": corners}, [[0.5, 0.5, 0]], constants)
    # (u, v, w) = (0.5, 0.5, 0): 0.125 (P1 + P2) + 0.375 (b210 + b120), the cubic Bezier midpoint
    assert out["SV_Position"].tolist() == [[0.125 * 8 + 0.375 * 24, 0.125 * 8 + 0.375 * 24, 0, 1]]


def test_isoline_bezier_domain_shader() -> None:
    # ds5_basic: o0.xyz = (1-u)^3 P0 + 3u(1-u)^2 P1 + 3u^2(1-u) P2 + u^3 P3, o0.w = 1
    ds = Shader(_corpus("slimshader__Tests_HlslCrossCompiler_ds5_basic.dxbc"))
    points = np.array([[[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 16]]], np.float32)
    out = ds.run_domain({"CPOINT": points}, [[0], [1], [0.5]])
    # u = 0.5: (P0 + 3 P1 + 3 P2 + P3) / 8 = (48, 32, 16) / 8
    assert out["SV_Position"].tolist() == [[0, 0, 0, 1], [0, 8, 16, 1], [6, 4, 2, 1]]


def test_bilinear_quad_domain_shader() -> None:
    # apps_tesselation_DS: lerp(lerp(P0, P1, u), lerp(P3, P2, u), v) for registers 0 and 1
    ds = Shader(_corpus("dxdecompiler__HlslCrossCompiler_apps_tesselation_DS.dxbc"))
    position = np.array([[[0, 0, 0, 1], [4, 0, 0, 1], [4, 4, 0, 1], [0, 4, 8, 1]]], np.float32)
    colour = np.array([[[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 1]]], np.float32)
    out = ds.run_domain({"v0": position, "v1": colour}, [[0, 0], [1, 1], [0.5, 0.25]])
    # (0.5, 0.25): lerp((2,0,0,1), (2,4,4,1), 0.25) = (2, 1, 1, 1); colour lerp((.5,.5,0,1), (.5,.5,1,1), .25)
    assert out["SV_Position"].tolist() == [[0, 0, 0, 1], [4, 4, 0, 1], [2, 1, 1, 1]]
    assert out["o1"].view(np.float32).tolist() == [[1, 0, 0, 1], [0, 0, 1, 1], [0.5, 0.5, 0.25, 1]]


def test_simple_bezier_tess_factors_from_a_constant() -> None:
    # every edge and inside factor = cb0[4].w
    shader = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_HS.dxbc"))
    cb = np.zeros((5, 4), np.float32)
    cb[4, 3] = 7.5
    shader.set_constant_buffer(0, cb)
    points = np.arange(2 * 16 * 3, dtype=np.float32).reshape(2, 16, 3)
    out = shader.run_hull({"v0": points})
    assert out.tess_factors.tolist() == [[7.5] * 4] * 2 and out.inside_tess_factors.tolist() == [[7.5] * 2] * 2
    assert out["o0"][..., :3].view(np.float32).tolist() == points.tolist()  # pass-through
    assert out.domain == "quad"


def _stage(path: Path) -> str:
    for line in path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm").read_text(errors="replace").splitlines():
        if line.strip() in ("hs_5_0", "ds_5_0"):
            return line.strip()[:2]
    return ""


TESSELLATION_FILES = [p for p in corpus_files("dxbc", "*.dxbc")
                      if p.with_name(p.name[: -len(".dxbc")] + ".fxc.asm").exists() and _stage(p)]


@pytest.mark.skipif(not TESSELLATION_FILES, reason="corpus not found")
def test_every_corpus_hull_and_domain_shader_runs() -> None:
    rng = np.random.default_rng(5)
    ran = {"hs": 0, "ds": 0}
    for path in TESSELLATION_FILES:
        shader = Shader(shaderkit.open(path.read_bytes()))
        for slot, words in shader.constant_buffers.items():
            shader.set_constant_buffer(slot, rng.integers(0, 8, words.shape).astype(np.uint32))
        for slot, (dim, _) in shader.decl.resources.items():
            if dim == "buffer":  # SubD11: valences and prefixes; 0 would loop ~2^31 times
                shader.bind_buffer(slot, Buffer(typed=rng.integers(3, 8, (64, 4)).astype(np.uint32)))
        d = shader.decl
        feed = {f"v{r}": rng.uniform(-2, 2, (3, d.input_control_points, 4)).astype(np.float32)
                for r in range(d.control_point_registers)}
        if shader.stage == "hull":
            out = shader.run_hull(feed, count=3)
            assert out.control_point_bits.shape[:2] == (3, d.output_control_points)
        else:
            patch = np.repeat(np.arange(3), 4)  # 3 patches even for a shader that reads no control point
            out = shader.run_domain(feed, rng.uniform(0, 1, (12, 3)).astype(np.float32), patch=patch)
            assert out.patch.tolist() == patch.tolist() and len(out["o0"]) == 12
        ran[_stage(path)] += 1
    assert ran == {"hs": 13, "ds": 11}


@pytest.mark.skipif(not TESSELLATION_FILES, reason="corpus not found")
def test_fast_path_matches_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # every phase compiled into closures (as Shader runs it; domain points in chunks) against every
    # instruction through Machine.execute in one piece; NaN payloads may differ (see test_sm4_vm_fast)
    import shaderkit.vm.sm4 as vm
    from shaderkit.vm.sm4 import tessellation
    from shaderkit.vm.sm4.machine import CompiledBlock, build_tree

    def run(path: Path) -> list[np.ndarray]:
        rng = np.random.default_rng(11)
        shader = Shader(shaderkit.open(path.read_bytes()))
        if shader.stage == "domain" and tessellation.compile_program is not _compile:
            main, functions = build_tree(shader.program.instructions)
            shader.main, shader.functions = CompiledBlock(main), functions
        for slot, words in shader.constant_buffers.items():
            values = rng.uniform(-2, 2, words.shape).astype(np.float32).view(np.uint32)
            values.reshape(-1)[::3] = rng.integers(0, 8, values.reshape(-1)[::3].shape)  # SubD11's cb3[0].x: an offset
            shader.set_constant_buffer(slot, values)
        for slot, (dim, _) in shader.decl.resources.items():
            if dim == "buffer":
                shader.bind_buffer(slot, Buffer(typed=rng.integers(3, 8, (64, 4)).astype(np.uint32)))
        d = shader.decl
        feed = {f"v{r}": rng.uniform(-2, 2, (4, d.input_control_points, 4)).astype(np.float32)
                for r in range(d.control_point_registers)}
        if shader.stage == "hull":
            out = shader.run_hull(feed, count=4)
            return [out.control_point_bits, out.patch_constant_bits]
        result = shader.run_domain(feed, rng.uniform(0, 1, (16, 3)).astype(np.float32), patch=np.arange(16) % 4)
        return [result[f"o{r}"] for r in range(d.outputs)]

    _compile = tessellation.compile_program
    monkeypatch.setattr(vm, "CHUNK_LANES", 5)  # domain runs of 16 points: chunks of 5, 5, 5 and 1 lanes
    fast = {path: run(path) for path in TESSELLATION_FILES}
    monkeypatch.setattr(vm, "CHUNK_LANES", 1 << 16)
    monkeypatch.setattr(tessellation, "compile_program", lambda main, functions: (CompiledBlock(main), functions))
    for path in TESSELLATION_FILES:
        for mine, theirs in zip(fast[path], run(path)):
            nan = np.isnan(mine.view(np.float32)) & np.isnan(theirs.view(np.float32))
            assert np.array_equal(np.where(nan, 0, mine), np.where(nan, 0, theirs)), path.name


# -- the isoline tessellator: D3D11's rules worked by hand ------------------------------------------
# factors are 16.16 fixed point; an edge of n segments places point i at i * r(n) (r: the 16.16
# reciprocal table, r(3) = 0x5555, r(2) = 0x8000, r(8) = 0x2000) for the first half, mirrors the
# second half (1 - x) and puts the middle point of an even edge at exactly 0.5


def test_isoline_integer_points_and_lines() -> None:
    from shaderkit.vm.sm4 import tessellate_isoline

    points, lines = tessellate_isoline(density=2, detail=3)
    u = [0, 0x5555 / 65536, (65536 - 0x5555) / 65536, 1]  # 0.33332825, not 1/3
    assert points.tolist() == [[x, 0] for x in u] + [[x, 0.5] for x in u]  # line v = 1 is not drawn
    assert lines.tolist() == [[0, 1], [1, 2], [2, 3], [4, 5], [5, 6], [6, 7]]
    points, single = tessellate_isoline(1, 2.2, "integer", output="point")  # rounded up to 3
    assert points[:, 0].tolist() == u and single.tolist() == [[0], [1], [2], [3]]
    assert tessellate_isoline(1, 1)[0].tolist() == [[0, 0], [1, 0]]
    assert len(tessellate_isoline(1, 100)[0]) == 65  # clamped to 64 segments
    assert len(tessellate_isoline(0.5, 1)[0]) == 2  # density raised to 1
    for culled in (0, -1, float("nan")):
        assert tessellate_isoline(culled, 4)[0].shape == (0, 2) and tessellate_isoline(4, culled)[0].shape == (0, 2)


def test_isoline_fractional_details() -> None:
    from shaderkit.vm.sm4 import tessellate_isoline

    # fractional_odd 2.5: half = 1.25 + 0.5 = 1.75 -> floor 1, ceil 2, fraction 0.75, 2 half points,
    # split at 0, 1 floor segment (r = 0x10000) and 3 ceil segments (r = 0x5555); point 1:
    # (0 * 0x10000 * 0.25 + 1 * 0x5555 * 0.75) rounded = 16384 (0.25); point 2 mirrors it: 0.75
    points, _ = tessellate_isoline(1, 2.5, "fractional_odd")
    assert points[:, 0].tolist() == [0, 0.25, 0.75, 1]
    # fractional_even 3: half = 1.5 -> floor 1, ceil 2, fraction 0.5, 2 half points, split at 1,
    # 2 floor segments (0x8000) and 4 ceil segments (0x4000); point 1: (0x8000 + 0x4000) * 0.5 =
    # 0x6000 (0.375); point 2 is the middle (0.5); points 3, 4 mirror 1, 0: two short segments grow
    # in the middle
    points, _ = tessellate_isoline(1, 3, "fractional_even")
    assert points[:, 0].tolist() == [0, 0.375, 0.5, 0.625, 1]


def test_hull_to_tessellator_to_domain() -> None:
    # hs5_basic: density icb[0].x = 1, detail icb[1].x = 8; ds5_basic evaluates the cubic Bezier
    hull = Shader(_corpus("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc"))
    points = np.array([[[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 16]], [[0, 0, 0], [0, 0, 0], [0, 0, 0], [8, 8, 8]]],
                      np.float32)
    out = hull.run_hull({"CPOINT": points})
    tess = out.tessellate()
    assert tess.domain[:, 0].tolist() == [k / 8 for k in range(9)] * 2 and not tess.domain[:, 1].any()
    assert tess.patch.tolist() == [0] * 9 + [1] * 9
    assert tess.primitives.tolist() == [[k, k + 1] for k in range(8)] + [[k, k + 1] for k in range(9, 17)]
    ds = Shader(_corpus("slimshader__Tests_HlslCrossCompiler_ds5_basic.dxbc"))
    position = ds.run_domain(out, tess.domain, patch=tess.patch)["SV_Position"]
    for row, (u, patch) in enumerate(zip(tess.domain[:, 0].tolist(), tess.patch.tolist())):
        weights = [(1 - u) ** 3, 3 * u * (1 - u) ** 2, 3 * u * u * (1 - u), u ** 3]  # exact: u = k / 8
        expected = sum(w * points[patch, k].astype(np.float64) for k, w in enumerate(weights))
        assert position[row].tolist() == [*expected.tolist(), 1]
    # TriPoint writes every factor 0: each patch is culled
    culled = Shader(_corpus("dxdecompiler__Internal_HullShaders_HullShader_TriPoint.dxbc")).run_hull({}, count=2)
    assert culled.tessellate().domain.shape == (0, 3)


def test_quad_and_triangle_of_factor_two() -> None:
    from shaderkit.vm.sm4 import tessellate_quad, tessellate_tri

    # quad, every factor 2 (even: 3 points an edge, the middle at exactly 0.5): the outer ring
    # from (0, 1) down the U = 0 edge, along V = 0, up U = 1, back along V = 1; no inner ring
    # (3 inside points), the centre as the degenerate middle row; the transition stitch of each
    # side is two triangles to the centre, the last one wrapping to point 0
    points, triangles = tessellate_quad([2, 2, 2, 2], [2, 2])
    assert points.tolist() == [[0, 1], [0, 0.5], [0, 0], [0.5, 0], [1, 0], [1, 0.5], [1, 1], [0.5, 1], [0.5, 0.5]]
    assert triangles.tolist() == [[k, (k + 1) % 8, 8] for k in range(8)]
    assert tessellate_quad([2, 2, 2, 2], [2, 2], output="triangle_ccw")[1].tolist() == [
        [k, 8, (k + 1) % 8] for k in range(8)]
    # triangle: V, the U = 0 edge's middle, W, U = 0 .. ; the centre is (0x5555, 0x5555) / 65536
    points, triangles = tessellate_tri([2, 2, 2], 2)
    third = 0x5555 / 65536
    assert points.tolist() == [[0, 1, 0], [0, 0.5, 0.5], [0, 0, 1], [0.5, 0, 0.5], [1, 0, 0], [0.5, 0.5, 0],
                               [third, third, np.float32(1 - third) - np.float32(third)]]
    assert triangles.tolist() == [[k, (k + 1) % 6, 6] for k in range(6)]
    # every factor 1: the corners alone; a factor of 0 or NaN culls
    assert tessellate_tri([1, 1, 1], 1)[1].tolist() == [[0, 1, 2]]
    assert tessellate_quad([1, 1, 1, 1], [1, 1])[1].tolist() == [[0, 1, 3], [1, 2, 3]]
    assert tessellate_quad([1, 0, 1, 1], [1, 1])[0].shape == (0, 2)
    assert tessellate_tri([1, 1, float("nan")], 1)[0].shape == (0, 3)
    points, single = tessellate_quad([3, 3, 3, 3], [3, 3], output="point")
    assert len(points) == 16 and single.reshape(-1).tolist() == list(range(16))


def _signed_areas(points: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    a, b, c = (points[triangles[:, k], :2].astype(np.float64) for k in range(3))
    return ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])) / 2


@pytest.mark.parametrize("partitioning", ["integer", "pow2", "fractional_odd", "fractional_even"])
def test_tessellations_tile_their_domain(partitioning: str) -> None:
    # whatever the factors, the triangles cover the unit square (area 1) or the triangle u + v <= 1
    # (area 1/2) exactly once, all wound the same way (degenerate ones have area 0), and use every point
    from shaderkit.vm.sm4 import tessellate_quad, tessellate_tri

    rng = np.random.default_rng(9)
    choices = [1, 2, 3, 4, 5, 7, 8, 13, 63, 64, 1.5, 2.25, 6.7, 0.5, 100]
    for _ in range(150):
        edges = [float(rng.choice(choices)) if rng.random() < 0.6 else float(rng.uniform(0.5, 40)) for _ in range(4)]
        inside = [float(rng.choice(choices)) if rng.random() < 0.6 else float(rng.uniform(0.5, 40)) for _ in range(2)]
        for points, triangles, want in ((*tessellate_quad(edges, inside, partitioning), 1.0),
                                        (*tessellate_tri(edges[:3], inside[0], partitioning), 0.5)):
            areas = _signed_areas(points, triangles)
            assert abs(areas.sum() - want) < 1e-9 and (areas >= -1e-12).all(), (edges, inside)
            assert np.array_equal(np.unique(triangles), np.arange(len(points))), (edges, inside)
            assert points.min() >= 0 and points.max() <= 1


def test_simple_bezier_hull_tessellator_domain() -> None:
    # SimpleBezier: the hull shader passes 16 control points through with every factor cb0[4].w;
    # at 2 (integer) the quad gives the 9 points of test_quad_and_triangle_of_factor_two; the
    # domain shader's bicubic Bezier of P[4j + i] = (2i, 2j, ij) is (6u, 6v, 9uv) (linear
    # precision of the Bernstein basis), exact at u, v in {0, 1/2, 1}; o0 = o1 through an identity
    hs = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_HS.dxbc"))
    cb = np.zeros((5, 4), np.float32)
    cb[4, 3] = 2
    hs.set_constant_buffer(0, cb)
    grid = np.array([[[2 * i, 2 * j, i * j] for j in range(4) for i in range(4)]], np.float32)
    hull = hs.run_hull({"v0": grid})
    tess = hull.tessellate()
    assert tess.output == "triangle_cw" and len(tess.domain) == 9 and len(tess.primitives) == 8
    ds = Shader(_corpus("slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_DS.dxbc"))
    ds.set_constant_buffer(0, np.eye(4, dtype=np.float32))
    out = ds.run_domain(hull, tess.domain, patch=tess.patch)
    u, v = tess.domain[:, 0].astype(np.float64), tess.domain[:, 1].astype(np.float64)
    assert out["o1"].view(np.float32)[:, :3].tolist() == np.stack([6 * u, 6 * v, 9 * u * v], axis=1).tolist()
    assert out["SV_Position"].tolist() == np.stack([6 * u, 6 * v, 9 * u * v, np.ones(9)], axis=1).tolist()

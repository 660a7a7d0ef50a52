"""D3D9 VM texture sampling, derivatives, the ps_1_x texture operations and constants by CTAB
name. Textures are small arrays made here; expected texels are picked or interpolated by hand."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from shaderkit.formats.d3d9.shader import D3D9Comment
from shaderkit.formats.d3d9.shader import D3D9Shader as Model
from shaderkit.vm.d3d9 import Bump, D3D9Shader, Sampler, VMError

#: a 2x2 texture: texel (x, y) = (x, y, 10 + x + 2y, 1)
TEX = np.array([[[0, 0, 10, 1], [1, 0, 11, 1]], [[0, 1, 12, 1], [1, 1, 13, 1]]], np.float32)


def test_texld_point_wrap_and_clamp() -> None:
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n")
    sh.texture("s0", TEX)
    out = sh.run(t0=[[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [1.25, -0.25]])
    # point: texel floor(u * 2), floor(v * 2); wrap: 1.25 -> 0.25 (x 0), -0.25 -> 0.75 (y 1)
    np.testing.assert_array_equal(out["oC0"][:, 2], [10, 11, 12, 12])
    sh.sampler("s0", Sampler(filter="point", address=("clamp", "clamp", "clamp")))
    out = sh.run(t0=[[1.25, -0.25]])
    np.testing.assert_array_equal(out["oC0"][:, 2], [11])


def test_texld_bilinear_and_texldp() -> None:
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\ntexldp r1, t0, s0\n"
                             "mov oC1, r1\n")
    sh.texture(0, TEX, Sampler(filter="linear", mip_filter="point", address=("clamp", "clamp", "clamp")))
    out = sh.run(t0=[[0.5, 0.5, 0, 2]])
    # the centre of the 2x2 texture: the mean of the 4 texels; texldp at (0.25, 0.25): texel (0, 0)
    np.testing.assert_allclose(out["oC0"][0], [0.5, 0.5, 11.5, 1])
    np.testing.assert_allclose(out["oC1"][0], [0, 0, 10, 1])


def test_texldl_texldb_and_implicit_lod_from_quads() -> None:
    tex = np.zeros((4, 4, 4), np.float32)
    tex[..., 0] = 1.0  # level 0: x = 1; the box-filtered levels keep 1 in x, so mark levels by hand below
    from shaderkit.vm.sm4 import Texture

    levels = [np.full((1, 1, 4, 4, 4), 0.0, np.float32), np.full((1, 1, 2, 2, 4), 1.0, np.float32),
              np.full((1, 1, 1, 1, 4), 2.0, np.float32)]
    texture = Texture(levels, "texture2d")
    sampler = Sampler(filter="point", mip_filter="point")
    sh = D3D9Shader.assemble("ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl r0, v0, s0\nmov oC0, r0\n"
                             "texld r1, v0, s0\nmov oC1, r1\ntexldb r2, v0, s0\nmov oC2, r2\n")
    sh.texture("s0", texture, sampler)
    out = sh.run(TEXCOORD0=[[0.1, 0.1, 0, 1.0], [0.1, 0.1, 0, 2.0], [0.1, 0.1, 0, 5.0], [0.1, 0.1, 0, 0.0]])
    np.testing.assert_array_equal(out["oC0"][:, 0], [1, 2, 2, 0])  # explicit LOD in w, clamped to the top
    np.testing.assert_array_equal(out["oC1"][:, 0], [0, 0, 0, 0])  # one pixel per quad: derivatives 0
    np.testing.assert_array_equal(out["oC2"][:, 0], [0, 0, 0, 0])  # a bias on LOD -inf (derivatives 0) stays -inf
    # a quad whose u steps by 0.5 per pixel: 4 texels wide * 0.5 = 2 texels -> LOD 1
    quad = [[0.0, 0, 0, 1], [0.5, 0, 0, 1], [0.0, 0.0, 0, 1], [0.5, 0.0, 0, 1]]
    out = sh.run(TEXCOORD0=quad, quads=True)
    np.testing.assert_array_equal(out["oC1"][:, 0], [1, 1, 1, 1])
    np.testing.assert_array_equal(out["oC2"][:, 0], [2, 2, 2, 2])  # texldb: LOD 1 + bias 1


def test_default_sampler_reads_level_0_of_a_mipped_texture() -> None:
    from shaderkit.vm.sm4 import Texture

    levels = [np.full((1, 1, 4, 4, 4), 0.0, np.float32), np.full((1, 1, 2, 2, 4), 1.0, np.float32),
              np.full((1, 1, 1, 1, 4), 2.0, np.float32)]
    sh = D3D9Shader.assemble("ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl r0, v0, s0\nmov oC0, r0\n")
    sh.texture("s0", Texture(levels, "texture2d"))  # no sampler: D3DSAMP_MIPFILTER = D3DTEXF_NONE
    out = sh.run(TEXCOORD0=[[0.1, 0.1, 0, 1.0], [0.1, 0.1, 0, 2.0], [0.1, 0.1, 0, 0.0]])
    # every LOD reads level 0 (all texels 0) with the default state
    np.testing.assert_array_equal(out["oC0"][:, 0], [0, 0, 0])


def test_texldd_gradients() -> None:
    from shaderkit.vm.sm4 import Texture

    levels = [np.full((1, 1, 8, 8, 4), 0.0, np.float32), np.full((1, 1, 4, 4, 4), 1.0, np.float32),
              np.full((1, 1, 2, 2, 4), 2.0, np.float32), np.full((1, 1, 1, 1, 4), 3.0, np.float32)]
    sh = D3D9Shader.assemble("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_2d s0\n"
                             "texldd r0, v0, s0, v1, v1\nmov oC0, r0\n")
    sh.texture(0, Texture(levels, "texture2d"), Sampler(filter="point", mip_filter="point"))
    # gradient 0.5 of 8 texels = 4 texels: LOD 2
    out = sh.run(TEXCOORD0=[[0.1, 0.1, 0, 0]], TEXCOORD1=[[0.5, 0, 0, 0]])
    np.testing.assert_array_equal(out["oC0"][:, 0], [2])


def test_dsx_dsy_coarse_per_quad() -> None:
    sh = D3D9Shader.assemble("ps_3_0\ndcl_texcoord0 v0\ndsx r0, v0\nmov oC0, r0\ndsy r1, v0\nmov oC1, r1\n")
    v = [[1, 0, 0, 0], [4, 0, 0, 0], [2, 10, 0, 0], [9, 30, 0, 0]]
    out = sh.run(TEXCOORD0=v, quads=True)
    np.testing.assert_array_equal(out["oC0"][:, 0], [3, 3, 3, 3])  # top-right - top-left
    np.testing.assert_array_equal(out["oC1"][:, 1], [10, 10, 10, 10])  # bottom-left - top-left
    np.testing.assert_array_equal(sh.run(TEXCOORD0=v)["oC0"][:, 0], [0, 0, 0, 0])


def test_vpos_and_vface() -> None:
    sh = D3D9Shader.assemble("ps_3_0\ndcl vPos.xy\ndcl vFace\nmov r0.xy, vPos\nmov r0.zw, vFace.x\nmov oC0, r0\n")
    out = sh.run(lanes=8, quads=True)
    np.testing.assert_array_equal(out["oC0"][:, :2], [[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [3, 0], [2, 1], [3, 1]])
    np.testing.assert_array_equal(out["oC0"][:, 2], [1] * 8)
    back = sh.run(vFace=[-1.0, 1.0])["oC0"]
    np.testing.assert_array_equal(back[:, 2], [-1, 1])


def test_cube_and_volume() -> None:
    faces = np.zeros((6, 1, 1, 4), np.float32)
    faces[:, 0, 0, 0] = np.arange(6)  # face index in x
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0.xyz\ndcl_cube s0\ndcl_volume s1\ntexld r0, t0, s0\nmov oC0, r0\n"
                             "texld r1, t0, s1\nmov oC1, r1\n")
    sh.texture(0, faces)
    volume = np.zeros((2, 1, 1, 4), np.float32)
    volume[:, 0, 0, 1] = [5, 7]  # slice in y
    sh.texture("s1", volume)
    out = sh.run(t0=[[1, 0.1, 0.2], [-1, 0.1, 0.2], [0.1, 1, 0.2], [0.1, -1, 0.2], [0.1, 0.2, 1], [0.1, 0.2, -1]])
    np.testing.assert_array_equal(out["oC0"][:, 0], [0, 1, 2, 3, 4, 5])  # +X -X +Y -Y +Z -Z
    vol = sh.run(t0=[[0.5, 0.5, 0.25], [0.5, 0.5, 0.75]])["oC1"]
    np.testing.assert_array_equal(vol[:, 1], [5, 7])


def test_ps_1_1_tex_texcoord_and_modifiers() -> None:
    sh = D3D9Shader.assemble("ps_1_1\ntex t0\ntexcoord t1\nmul r0, t0, t1_bx2\n")
    sh.texture(0, TEX)
    out = sh.run(t0=[[0.75, 0.75, 0, 0]], t1=[[1.5, 0.75, -1, 0]])
    # t0 = texel (1, 1) = (1, 1, 13, 1); texcoord t1 = saturate(uvw), 1 = (1, 0.75, 0, 1); _bx2: (1, 0.5, -1, 1)
    np.testing.assert_allclose(out["COLOR0"], [[1, 0.5, -13, 1]])


def test_ps_1_1_texbem_and_texbeml() -> None:
    sh = D3D9Shader.assemble("ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n")
    bumps = np.zeros((2, 2, 4), np.float32)
    bumps[..., 0], bumps[..., 1], bumps[..., 2] = 0.5, -0.25, 0.5  # du, dv, luminance
    sh.texture(0, bumps).texture(1, TEX)
    sh.bump_state(1, Bump((1.0, 0.0, 0.0, 1.0), 2.0, 0.5))
    out = sh.run(t0=[[0.1, 0.1, 0, 0]], t1=[[0.1, 0.6, 0, 0]])
    # u' = 0.1 + 1 * 0.5 = 0.6, v' = 0.6 + 1 * -0.25 = 0.35: texel (1, 0)
    np.testing.assert_array_equal(out["r0"], [[1, 0, 11, 1]])
    lum = D3D9Shader.assemble("ps_1_1\ntex t0\ntexbeml t1, t0\nmov r0, t1\n")
    lum.texture(0, bumps).texture(1, TEX).bump_state(1, Bump((1.0, 0.0, 0.0, 1.0), 2.0, 0.5))
    # rgb times (0.5 * 2 + 0.5) = 1.5
    np.testing.assert_allclose(lum.run(t0=[[0.1, 0.1, 0, 0]], t1=[[0.1, 0.6, 0, 0]])["r0"], [[1.5, 0, 16.5, 1]])


def test_texm3x2tex_texm3x3tex_texm3x3() -> None:
    normal = np.zeros((1, 1, 4), np.float32)
    normal[0, 0] = [0.25, 0.75, 1.0, 1]
    sh = D3D9Shader.assemble("ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n")
    sh.texture(0, normal).texture(2, TEX)
    # u = (1, 0, 0) . n = 0.25, v = (0, 1, 0) . n = 0.75: texel (0, 1)
    out = sh.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 0, 0, 0]], t2=[[0, 1, 0, 0]])
    np.testing.assert_array_equal(out["r0"], [[0, 1, 12, 1]])
    m33 = D3D9Shader.assemble("ps_1_2\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3 t3, t0\nmov r0, t3\n")
    m33.texture(0, normal)
    got = m33.run(t0=[[0.5, 0.5, 0, 0]], t1=[[2, 0, 0, 0]], t2=[[0, 0, 1, 0]], t3=[[1, 1, 1, 0]])["r0"]
    np.testing.assert_allclose(got, [[0.5, 1.0, 2.0, 1.0]])
    cube = D3D9Shader.assemble("ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3tex t3, t0\n"
                               "mov r0, t3\n")
    faces = np.zeros((6, 1, 1, 4), np.float32)
    faces[:, 0, 0, 0] = np.arange(6)
    cube.texture(0, normal).texture(3, faces, kind="cube")
    # (u, v, w) = (-1 * 1, 0.75, 0.25)... rows pick: t1 = (-4, 0, 0) -> -1, t2 = (0, 1, 0) -> 0.75, t3 = (1, 0, 0) -> 0.25
    got = cube.run(t0=[[0.5, 0.5, 0, 0]], t1=[[-4, 0, 0, 0]], t2=[[0, 1, 0, 0]], t3=[[1, 0, 0, 0]])["r0"]
    np.testing.assert_array_equal(got[:, 0], [1])  # -X face


def test_texm3x3spec_reflects_the_eye_vector() -> None:
    normal = np.zeros((1, 1, 4), np.float32)
    normal[0, 0] = [0.0, 0.0, 1.0, 1]
    faces = np.zeros((6, 1, 1, 4), np.float32)
    faces[:, 0, 0, 0] = np.arange(6)
    sh = D3D9Shader.assemble("ps_1_1\ndef c0, 1, 0, 2, 0\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\n"
                             "texm3x3spec t3, t0, c0\nmov r0, t3\n")
    sh.texture(0, normal).texture(3, faces, kind="cube")
    # N = (0, 0, 1) (identity rows), E = (1, 0, 2): N.E = 2, N.N = 1, R = 2 N (N.E)/(N.N) - E
    # = (0, 0, 4) - (1, 0, 2) = (-1, 0, 2): |z| = 2 is the major axis, z > 0: the +Z face (4)
    got = sh.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 0, 0, 0]], t2=[[0, 1, 0, 0]], t3=[[0, 0, 1, 0]])["r0"]
    np.testing.assert_array_equal(got[:, 0], [4])
    vspec = D3D9Shader.assemble("ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3vspec t3, t0\n"
                                "mov r0, t3\n")
    vspec.texture(0, normal).texture(3, faces, kind="cube")
    # eye from the w of t1..t3: (0, 0.5, 2): R = 2 * 2 * (0, 0, 1) - E = (0, -0.5, 2): +Z
    got = vspec.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 0, 0, 0]], t2=[[0, 1, 0, 0.5]], t3=[[0, 0, 1, 2]])["r0"]
    np.testing.assert_array_equal(got[:, 0], [4])


def test_texreg2ar_gb_rgb_and_texdp3() -> None:
    src = np.zeros((1, 1, 4), np.float32)
    src[0, 0] = [0.75, 0.25, 0.75, 0.25]
    sh = D3D9Shader.assemble("ps_1_1\ntex t0\ntexreg2ar t1, t0\ntexreg2gb t2, t0\nmov r0, t1\nmov r1, t2\n"
                             "add r0.a, r1.b, r0.b\n")
    sh.texture(0, src).texture(1, TEX).texture(2, TEX)
    got = sh.run(t0=[[0.5, 0.5, 0, 0]])["r0"]
    # ar: (a, r) = (0.25, 0.75): texel (0, 1) z = 12; gb: (0.25, 0.75) -> 12 too; a = 12 + 12
    np.testing.assert_array_equal(got, [[0, 1, 12, 24]])
    dp = D3D9Shader.assemble("ps_1_2\ntex t0\ntexdp3 t1, t0\nmov r0, t1\n")
    dp.texture(0, src)
    np.testing.assert_allclose(dp.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 2, 4, 0]])["r0"], [[4.25] * 4])
    dptex = D3D9Shader.assemble("ps_1_2\ntex t0\ntexdp3tex t1, t0\nmov r0, t1\n")
    dptex.texture(0, src).texture(1, TEX)
    # u = (1, 0, 0) . (0.75, 0.25, 0.75) = 0.75, v = 0: texel (1, 0)
    np.testing.assert_array_equal(dptex.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 0, 0, 0]])["r0"], [[1, 0, 11, 1]])


def test_texdepth_and_texm3x2depth_write_odepth() -> None:
    sh = D3D9Shader.assemble("ps_1_4\ndef c0, 0.5, 2, 0, 0\ndef c1, 0.5, 0, 0, 0\nmov r5, c0\ntexdepth r5\n"
                             "mov r0, c0\n")
    np.testing.assert_array_equal(sh.run(lanes=1)["DEPTH"][:, 0], [0.25])
    sh0 = D3D9Shader.assemble("ps_1_4\ndef c1, 0.5, 0, 0, 0\nmov r5, c1\ntexdepth r5\nmov r0, c1\n")
    np.testing.assert_array_equal(sh0.run(lanes=1)["oDepth"][:, 0], [1.0])  # y = 0 gives 1
    d = D3D9Shader.assemble("ps_1_3\ntex t0\ntexm3x2pad t1, t0\ntexm3x2depth t2, t0\nmov r0, t0\n")
    src = np.ones((1, 1, 4), np.float32)
    d.texture(0, src)
    # z = (1, 0, 0) . 1 = 1, w = (2, 2, 0) . 1 = 4: depth 0.25
    np.testing.assert_array_equal(d.run(t0=[[0.5, 0.5, 0, 0]], t1=[[1, 0, 0, 0]], t2=[[2, 2, 0, 0]])["oDepth"][:, 0],
                                  [0.25])


def test_ps_1_4_texld_texcrd_dz_and_bem() -> None:
    sh = D3D9Shader.assemble("ps_1_4\ntexcrd r1.rgb, t0_dz.xyz\ntexld r2, t0_dz.xyz\nadd r0, r2, r1\n")
    sh.texture(2, TEX)
    # t0 = (1.5, 0.5, 2): _dz: (0.75, 0.25): texel (1, 0) = (1, 0, 11, 1); r1.rgb = (0.75, 0.25, 2)
    got = sh.run(t0=[[1.5, 0.5, 2, 0]])["r0"]
    np.testing.assert_allclose(got, [[1.75, 0.25, 13, 1]])
    bem = D3D9Shader.assemble("ps_1_4\ndef c0, 0.5, 0.25, 0, 0\ndef c1, 1, 2, 0, 0\nbem r1.rg, c0, c1\n"
                              "mov r0, r1\n")
    bem.bump_state(1, Bump((0.5, 0.0, 0.0, 2.0)))
    # x = 0.5 + 0.5 * 1 + 0 * 2 = 1; y = 0.25 + 0 * 1 + 2 * 2 = 4.25
    np.testing.assert_allclose(bem.run(lanes=1)["r0"][:, :2], [[1.0, 4.25]])


def _ctab(constants: list[tuple[str, int, int, int, tuple[int, int, int, int, int]]]) -> bytes:
    """A CTAB payload built by hand: (name, register set, index, count, (class, type, rows, columns,
    elements)) per constant; header 28 bytes, infos 20 bytes each, types 16 bytes, then names."""
    infos = 28
    types = infos + 20 * len(constants)
    names = types + 16 * len(constants)
    name_bytes = b""
    info_bytes = b""
    type_bytes = b""
    for k, (name, rset, index, count, (klass, kind, rows, cols, elements)) in enumerate(constants):
        info_bytes += struct.pack("<I4HII", names + len(name_bytes), rset, index, count, 0, types + 16 * k, 0)
        type_bytes += struct.pack("<6HI", klass, kind, rows, cols, elements, 0, 0)
        name_bytes += name.encode() + b"\0"
    blob = struct.pack("<7I", 28, 0, 0xFFFE0300, len(constants), infos, 0, 0) + info_bytes + type_bytes + name_bytes
    return blob + bytes(-len(blob) % 4)


def _with_ctab(text: str, table: bytes) -> D3D9Shader:
    model = D3D9Shader.assemble(text).model
    model.comments.insert(0, D3D9Comment(b"CTAB" + table, 0))
    return D3D9Shader(Model.from_bytes(model.to_bytes()))


def test_constants_by_ctab_name_row_and_column_major() -> None:
    table = _ctab([("ColMajor", 2, 0, 4, (3, 3, 4, 4, 1)), ("RowMajor", 2, 4, 3, (2, 3, 3, 4, 1)),
                   ("Weights", 2, 7, 2, (1, 3, 1, 2, 2)), ("Count", 1, 0, 1, (0, 2, 1, 1, 1)),
                   ("Flag", 0, 0, 1, (0, 1, 1, 1, 1)), ("Tex", 3, 2, 1, (4, 12, 1, 1, 1))])
    sh = _with_ctab("vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n"
                    "m4x4 o0, v0, c0\nm4x3 o1.xyz, v0, c4\nadd o2, c7, c8\n", table)
    m = np.arange(16, dtype=np.float32).reshape(4, 4)
    sh.set("ColMajor", m).set("RowMajor", m[:3]).set("Weights", [[1, 2], [3, 4]])
    v = np.array([[1, 2, 3, 4]], np.float32)
    out = sh.run(POSITION=v)
    # column-major: registers hold the columns, so m4x4 gives v @ M; row-major: the rows, M @ v
    np.testing.assert_allclose(out["POSITION"], v @ m)
    np.testing.assert_allclose(out["TEXCOORD0"][:, :3], (m[:3] @ v[0])[None])
    np.testing.assert_array_equal(out["TEXCOORD1"], [[4, 6, 0, 0]])  # float2 array: one register per element
    sh.set("Count", 3).set("Flag", True)
    assert sh.int_values[0][0] == 3 and sh.bool_values[0] is True
    sh.texture("Tex", TEX)
    assert 2 in sh.textures
    with pytest.raises(VMError, match="takes 16 values"):
        sh.set("ColMajor", [1, 2, 3])
    with pytest.raises(VMError, match="sampler"):
        sh.set("Tex", [1])


def test_phase_drops_the_alpha_of_temporaries() -> None:
    sh = D3D9Shader.assemble("ps_1_4\ndef c0, 0.5, 0.25, 0.125, 1\nmov r1, c0\nmov r2, c0\nphase\nmov r2.a, c0.b\n"
                             "add r0, r1, r2\n")
    # r1.a is lost at the phase marker (0 here), r2.a rewritten after it: a = 0 + 0.125
    np.testing.assert_array_equal(sh.run(lanes=1)["r0"], [[1, 0.5, 0.25, 0.125]])


def test_cube_maps_filter_within_each_face() -> None:
    # D3D9 hardware does not filter across cube faces: with linear filtering at +X's edge
    # (1, 0, 1), u = 0, the texel across the edge (on +Z, 4) is not read; +X's own texel (0)
    # clamps, even with a sampler that asks for seamless filtering (the SM4 VM would give 2)
    faces = np.zeros((6, 2, 2, 4), np.float32)
    faces[:, :, :, 0] = np.arange(6)[:, None, None]
    sh = D3D9Shader.assemble("ps_2_0\ndcl t0.xyz\ndcl_cube s0\ntexld r0, t0, s0\nmov oC0, r0\n")
    sh.texture(0, faces).sampler(0, Sampler(filter="linear", mip_filter="point", seamless=True))
    assert sh.run(t0=[[1, 0, 1]])["oC0"][0, 0] == 0

"""Latte VM texture and vertex fetches on small assembled programs; expected texels and
decoded vertex data worked out by hand (texel centres at (i + 0.5) / size, bilinear weights,
big-endian buffer bytes, R600 number formats)."""

from __future__ import annotations

import struct

import pytest

np = pytest.importorskip("numpy")

from shaderkit.isa.latte import assemble  # noqa: E402
from shaderkit.vm.latte import LatteShader, Sampler, Texture, VertexBuffer, VMError  # noqa: E402


def f32(values):
    return np.array(values, np.float32)


def tex_program(line: str) -> bytes:
    return assemble(f"00 TEX: ADDR(16) CNT(1)\n  0   {line}\n01 EXP_DONE: PIX0, R2.xyzw\nEND_OF_PROGRAM\n")


#: a 2x2 RGBA texture: texel (row, col) = (10 * row + col, row, col, 1)
TEXELS = np.array([[[0, 0, 0, 1], [1, 0, 1, 1]], [[10, 1, 0, 1], [11, 1, 1, 1]]], np.float32)


def sample(line: str, coords, sampler=None, texture=None, **kw):
    shader = LatteShader.from_code(tex_program(line), "pixel")
    tex = texture if texture is not None else Texture.of(TEXELS)
    return shader.run({"R1": f32(coords)}, textures={0: tex}, samplers={0: sampler or Sampler()}, **kw).pix[0]


def test_sample_nearest_and_wrap() -> None:
    out = sample("SAMPLE R2.xyzw, R1.xy0x, t0, s0", [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [1.25, 0.75]])
    assert out[:, 0].tolist() == [0, 1, 10, 10]  # 1.25 wraps to 0.25 under repeat
    clamp = sample("SAMPLE R2.xyzw, R1.xy0x, t0, s0", [[1.25, 0.75], [-3, -3]], Sampler(wrap="clamp"))
    assert clamp[:, 0].tolist() == [11, 0]
    mirror = sample("SAMPLE R2.xyzw, R1.xy0x, t0, s0", [[1.25, 0.25]], Sampler(wrap="mirror"))
    assert mirror[0, 0] == 1  # texel column 2 mirrors to column 1


def test_sample_bilinear_weights() -> None:
    out = sample("SAMPLE R2.xyzw, R1.xy0x, t0, s0", [[0.5, 0.5], [0.5, 0.25]], Sampler("linear", "clamp"))
    # centre: the four texels averaged: (0 + 1 + 10 + 11) / 4; (0.5, 0.25): row 0 only -> 0.5
    assert out[:, 0].tolist() == [5.5, 0.5]


def test_dst_and_src_selects_and_denorm() -> None:
    out = sample("SAMPLE R2.wzy1, R1.xy0x, t0, s0 DENORM(XY)", [[1.5, 1.5]])
    # unnormalized (1.5, 1.5) is texel (1, 1) = (11, 1, 1, 1): written as (w, z, y, 1)
    assert out[0].tolist() == [1, 1, 1, 1]
    out = sample("SAMPLE R2.x___, R1.yx0x, t0, s0", [[0.75, 0.25]])
    assert out[0, 0] == 10  # swapped coordinates: u = 0.25, v = 0.75


def test_sample_l_picks_mip_level() -> None:
    mips = Texture.of([TEXELS, np.full((1, 1, 4), 7.0, np.float32)])
    out = sample("SAMPLE_L R2.xyzw, R1.xy0z, t0, s0", [[0.25, 0.25, 0], [0.25, 0.25, 1], [0.25, 0.25, 5]],
                 texture=mips)
    assert out[:, 0].tolist() == [0, 7, 7]  # LOD from W (= R1.z here), clamped to the last level


def test_sample_compare() -> None:
    depth = Texture.of(np.array([[0.2, 0.8], [0.4, 0.6]], np.float32))
    out = sample("SAMPLE_C R2.xyzw, R1.xy0z, t0, s0", [[0.25, 0.25, 0.5], [0.75, 0.25, 0.5]],
                 Sampler(compare="less"), texture=depth)
    # reference 0.5 < 0.2 is false; 0.5 < 0.8 is true
    assert out[:, 0].tolist() == [0, 1]


@pytest.mark.parametrize("op", ["SAMPLE_C_L", "SAMPLE_C_LB"])
def test_sample_compare_with_lod_reads_the_reference_from_z(op: str) -> None:
    # Mesa's r600d.h: SAMPLE_C_L / SAMPLE_C_LB take the reference in Z and the LOD / bias in W.
    # level 0 = [[0.2, 0.8], [0.4, 0.6]], level 1 = 0.9; compare "less" passes when ref < texel.
    depth = Texture.of([np.array([[0.2, 0.8], [0.4, 0.6]], np.float32), np.full((1, 1), 0.9, np.float32)])
    out = sample(f"{op} R2.xyzw, R1.xyzw, t0, s0",
                 [[0.25, 0.25, 0.5, 0], [0.25, 0.25, 0.5, 1], [0.25, 0.25, 0.95, 1], [0.75, 0.25, 0.5, 0]],
                 Sampler(compare="less"), texture=depth)
    # (0.5 < 0.2) = 0 at level 0; (0.5 < 0.9) = 1 and (0.95 < 0.9) = 0 at level 1 (W = 1, as an
    # LOD or as a bias over the implicit LOD 0); texel (0, 1) of level 0: 0.5 < 0.8 = 1
    assert out[:, 0].tolist() == [0, 1, 0, 1]
    layers = Texture.of(np.zeros((2, 2, 2), np.float32), "2d_array")
    with pytest.raises(VMError, match=f"{op} on a 2d_array texture"):
        sample(f"{op} R2.xyzw, R1.xyzw, t0, s0", [[0, 0, 0, 0]], texture=layers)


def test_texture_array_and_cube_slices() -> None:
    layers = Texture.of(np.stack([np.full((2, 2), k, np.float32) for k in range(3)]), "2d_array")
    out = sample("SAMPLE R2.xyzw, R1.xyzx, t0, s0", [[0.5, 0.5, 2], [0.5, 0.5, 0.6]], texture=layers)
    assert out[:, 0].tolist() == [2, 1]
    cube = Texture.of(np.stack([np.full((2, 2), 10 + k, np.float32) for k in range(6)]), "cube")
    out = sample("SAMPLE R2.xyzw, R1.xyzx, t0, s0", [[1.5, 1.5, 4]], texture=cube)
    assert out[0, 0] == 14  # face coordinates in [1, 2], face index in Z
    # a NaN layer reads layer 0 (as a NaN LOD reads level 0 and a NaN face face 0); a huge one the last
    out = sample("SAMPLE R2.xyzw, R1.xyzx, t0, s0", [[0.5, 0.5, np.nan], [0.5, 0.5, np.inf]], texture=layers)
    assert out[:, 0].tolist() == [0, 2]


#: two cubes of 2x2 faces: texel (row, col) of face f of cube k = (100k + 10f + 2row + col, k, f, 1)
CUBES = np.array([[[[100 * k + 10 * f + 2 * row + col, k, f, 1] for col in range(2)] for row in range(2)]
                  for k in range(2) for f in range(6)], np.float32)

#: SET_CUBEMAP_INDEX from R1.w, sample; from R4.w, sample again at the same coordinates (R3) -
#: the pattern of Mario Kart 8's pixel programs
CUBE_PAIR = """\
00 TEX: ADDR(16) CNT(4)
  0      SET_CUBEMAP_INDEX ____, R1.wwww, t0, s0 DENORM(XYZW)
  1      SAMPLE_L        R2.xyzw, R3.xyzw, t0, s0
  2      SET_CUBEMAP_INDEX ____, R4.wwww, t0, s0 DENORM(XYZW)
  3      SAMPLE_L        R5.xyzw, R3.xyzw, t0, s0
01 EXP: PIX0, R2.xyzw
02 EXP_DONE: PIX1, R5.xyzw
END_OF_PROGRAM
"""


def test_texture_of_cube_array() -> None:
    tex = Texture.of(CUBES, "cube_array")
    assert tex.kind == "cube_array" and tex.levels[0].shape == (12, 2, 2, 4)
    with pytest.raises(ValueError, match="6 faces per cube, not 7"):
        Texture.of(np.zeros((7, 2, 2), np.float32), "cube_array")
    with pytest.raises(ValueError, match="does not fit a cube_array"):
        Texture.of(np.zeros((2, 2), np.float32), "cube_array")


def test_set_cubemap_index_picks_the_cube_per_lane() -> None:
    shader = LatteShader.from_code(assemble(CUBE_PAIR), "pixel")
    # R3: face coordinates (1.25, 1.75) -> texel x 0.25 * 2 = 0.5 -> col 0, y 1.5 -> row 1; face 2
    # (Z), LOD 0 (W). The cube index is R1.w / R4.w as a float, rounded to the nearest cube and
    # clamped to the two there are: lane 0: 0 then 1; lane 1: 1.4 -> 1, then 7 -> 1; lane 2:
    # -3 -> 0, then 0.6 -> 1; lane 3: 1, then 0.
    index1, index2 = [0, 1.4, -3, 1], [1, 7, 0.6, 0]
    r = shader.run({"R1": f32([[0, 0, 0, v] for v in index1]), "R4": f32([[0, 0, 0, v] for v in index2]),
                    "R3": f32([[1.25, 1.75, 2, 0]] * 4)}, textures={0: Texture.of(CUBES, "cube_array")})
    # face 2, row 1, col 0: 100k + 20 + 2
    assert r.pix[0].tolist() == [[22, 0, 2, 1], [122, 1, 2, 1], [22, 0, 2, 1], [122, 1, 2, 1]]
    assert r.pix[1].tolist() == [[122, 1, 2, 1], [122, 1, 2, 1], [122, 1, 2, 1], [22, 0, 2, 1]]


def test_cubemap_index_holds_for_its_texture_until_set_again() -> None:
    program = assemble("""\
00 TEX: ADDR(16) CNT(2)
  0      SET_CUBEMAP_INDEX ____, R1.xyzw, t0, s0
  1      SAMPLE_L        R2.xyzw, R3.xyzw, t0, s0
01 ALU: ADDR(32) CNT(1)
  2   x: MOV             R1.x, 0.0f
02 TEX: ADDR(24) CNT(2)
  3      SAMPLE_L        R5.xyzw, R3.xyzw, t0, s0
  4      SAMPLE_L        R6.xyzw, R3.xyzw, t1, s0
03 EXP: PIX0, R2.xyzw
04 EXP: PIX1, R5.xyzw
05 EXP_DONE: PIX2, R6.xyzw
END_OF_PROGRAM
""")
    # the index is the X-selected component (R1.x = 1; Y = 0); it stays 1 for t0 in the next
    # clause although R1.x is 0 by then; t1, never set, reads cube 0; face 5, row 0, col 1
    r = LatteShader.from_code(program, "pixel").run(
        {"R1": f32([[1, 0, 0, 0]]), "R3": f32([[1.75, 1.25, 5, 0]])},
        textures={0: Texture.of(CUBES, "cube_array"), 1: Texture.of(CUBES, "cube_array")})
    assert (r.pix[0][0, 0], r.pix[1][0, 0], r.pix[2][0, 0]) == (151, 151, 51)


def test_cubemap_index_set_by_the_active_lanes_only() -> None:
    # if (R1.x > 0) SET_CUBEMAP_INDEX(R1.y = 1); then sample: lane 0 reads cube 1, lane 1 (the
    # branch not taken) keeps the initial cube 0; face 2, row 1, col 0
    program = assemble("""\
00 ALU_PUSH_BEFORE: ADDR(32) CNT(1)
  0   x: PRED_SETGT ____, R1.x, 0.0f UPDATE_EXEC_MASK UPDATE_PRED
01 JUMP POP_CNT(1) ADDR(3)
02 TEX: ADDR(40) CNT(1)
  1      SET_CUBEMAP_INDEX ____, R1.yyyy, t0, s0
03 POP POP_CNT(1) ADDR(4)
04 TEX: ADDR(48) CNT(1)
  2      SAMPLE_L        R2.xyzw, R3.xyzw, t0, s0
05 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
""")
    r = LatteShader.from_code(program, "pixel").run(
        {"R1": f32([[1, 1, 0, 0], [0, 1, 0, 0]]), "R3": f32([[1.25, 1.75, 2, 0]] * 2)},
        textures={0: Texture.of(CUBES, "cube_array")})
    assert r.pix[0][:, 0].tolist() == [122, 22]


def test_cubemap_index_on_a_plain_cube_map() -> None:
    # one cube: any index clamps to cube 0 (Cemu samples every cube map as an array)
    cube = Texture.of(CUBES[:6], "cube")
    shader = LatteShader.from_code(assemble(CUBE_PAIR), "pixel")
    r = shader.run({"R1": f32([[0, 0, 0, 1]]), "R4": f32([[0, 0, 0, 5]]), "R3": f32([[1.25, 1.75, 2, 0]])},
                   textures={0: cube})
    assert r.pix[0].tolist() == r.pix[1].tolist() == [[22, 0, 2, 1]]


def test_ld_and_texture_info() -> None:
    shader = LatteShader.from_code(tex_program("LD R2.xyzw, R1.xyzw, t0, s0"), "pixel")
    r = shader.run({"R1": np.array([[1, 0, 0, 0], [0, 1, 0, 0], [5, 0, 0, 0]], np.int32)},
                   textures={0: Texture.of(TEXELS)})
    assert r.pix[0][:, 0].tolist() == [1, 10, 0]  # out of range reads 0
    shader = LatteShader.from_code(tex_program("GET_TEXTURE_INFO R2.xyzw, R1.xxxx, t0, s0"), "pixel")
    tex = Texture.of([np.zeros((4, 8, 4)), np.zeros((2, 4, 4)), np.zeros((1, 2, 4))])
    r = shader.run({"R1": np.array([[0], [1]], np.int32)}, textures={0: tex})
    assert r.pix[0].view(np.int32).tolist() == [[8, 4, 1, 3], [4, 2, 1, 3]]


def test_gradients_from_quads() -> None:
    shader = LatteShader.from_code(tex_program("GET_GRADIENTS_H R2.xy__, R1.xyxx, t0, s0"), "pixel")
    coords = f32([[0, 0], [2, 0], [0, 3], [2, 3]])  # a 2x2 quad: TL, TR, BL, BR
    r = shader.run({"R1": coords}, quads=True, textures={0: Texture.of(TEXELS)})
    assert r.pix[0][:, :2].tolist() == [[2, 0]] * 4
    shader = LatteShader.from_code(tex_program("GET_GRADIENTS_V R2.xy__, R1.xyxx, t0, s0"), "pixel")
    r = shader.run({"R1": coords}, quads=True, textures={0: Texture.of(TEXELS)})
    assert r.pix[0][:, :2].tolist() == [[0, 3]] * 4


def test_missing_texture_and_unsupported_fetch() -> None:
    shader = LatteShader.from_code(tex_program("SAMPLE R2.xyzw, R1.xy0x, t3, s0"), "pixel")
    with pytest.raises(VMError, match="t3"):
        shader.run()
    shader = LatteShader.from_code(tex_program("GET_COMP_TEX_LOD R2.xyzw, R1.xy0x, t0, s0"), "pixel")
    with pytest.raises(VMError, match="GET_COMP_TEX_LOD cannot be executed: its channel order is not settled"):
        shader.run(textures={0: Texture.of(TEXELS)})


#: a 4x4 texture: texel (row, col) = (10 * row + col, 100, 200, 1); a 2x2 second mip level of 7s
GRID = [np.array([[[10 * row + col, 100, 200, 1] for col in range(4)] for row in range(4)], np.float32),
        np.full((2, 2, 4), 7, np.float32)]


def test_fetch4_gathers_x_of_the_bilinear_footprint() -> None:
    # (u, v) = (0.5, 0.25) on 4x4: texel space (2, 1); i0 = floor(2 - 0.5) = 1, i1 = 2,
    # j0 = floor(1 - 0.5) = 0, j1 = 1. X = (i1, j0) = row 0 col 2 = 2, Y = (i0, j1) = 11,
    # Z = (i1, j1) = 12, W = (i0, j0) = 1. (0, 0) under repeat: i0 = j0 = -1 -> 3, i1 = j1 = 0:
    # X = row 3 col 0 = 30, Y = row 0 col 3 = 3, Z = 0, W = 33. Level 0 although W (an LOD for
    # SAMPLE_L) says 1, nearest filtering still four texels, only X gathered.
    grid = Texture.of(GRID)
    out = sample("FETCH4 R2.xyzw, R1.xy0x, t0, s0", [[0.5, 0.25, 0, 1], [0, 0, 0, 1]], texture=grid)
    assert out.tolist() == [[2, 11, 12, 1], [30, 3, 0, 33]]
    linear = sample("FETCH4 R2.xyzw, R1.xy0x, t0, s0", [[0.5, 0.25, 0, 1]], Sampler("linear"), texture=grid)
    assert linear.tolist() == [[2, 11, 12, 1]]
    # clamp: -1 -> 0; border: the border colour's X (9) for taps outside
    assert sample("FETCH4 R2.xyzw, R1.xy0x, t0, s0", [[0, 0]], Sampler(wrap="clamp"), texture=grid).tolist() == \
        [[0, 0, 0, 0]]
    assert sample("FETCH4 R2.xyzw, R1.xy0x, t0, s0", [[0, 0]], Sampler(wrap="border", border=(9, 8, 7, 6)),
                  texture=grid).tolist() == [[9, 9, 0, 9]]
    # a swizzled destination picks among the four: R2.x = W, R2.y = X
    assert sample("FETCH4 R2.wx__, R1.xy0x, t0, s0", [[0.5, 0.25]], texture=grid)[:, :2].tolist() == [[1, 2]]


def test_fetch4_on_layers_and_refused_on_1d() -> None:
    layers = Texture.of(np.stack([GRID[0], GRID[0] + 1000]), "2d_array")
    out = sample("FETCH4 R2.xyzw, R1.xyzx, t0, s0", [[0.5, 0.25, 1]], texture=layers)
    assert out.tolist() == [[1002, 1011, 1012, 1001]]
    line = Texture.of(np.zeros((1, 4), np.float32), "1d")
    with pytest.raises(VMError, match="FETCH4 on a 1d texture"):
        sample("FETCH4 R2.xyzw, R1.xy0x, t0, s0", [[0.5, 0]], texture=line)


VTX = """\
00 VTX: ADDR(16) CNT(2)
  0   FETCH R1.xyzw, R0.x, b3 FETCH_TYPE(VERTEX_DATA) FORMAT( 35 NORM UNSIGNED 0) MEGA(16) OFFSET(0) ENDIAN_SWAP(8IN32)
  1   FETCH R2.xyz1, R0.x, b3 FETCH_TYPE(VERTEX_DATA) FORMAT( 26 NORM SIGNED 0) MINI(4) OFFSET(16)
01 EXP_DONE: POS0, R1.xyzw
02 EXP_DONE: PARAM0, R2.xyzw
END_OF_PROGRAM
"""


def test_vertex_fetch_big_endian_formats() -> None:
    # two 20-byte vertices: four big-endian floats, then four signed normalized bytes
    data = struct.pack(">4f4b", 1.5, -2.0, 3.0, 4.0, 127, -127, -128, 64)
    data += struct.pack(">4f4b", 5.0, 6.0, 7.0, 8.0, 0, 1, 2, 3)
    shader = LatteShader.from_code(assemble(VTX))
    r = shader.run(lanes=2, buffers={3: VertexBuffer(data, stride=20)})
    assert r.pos[0].tolist() == [[1.5, -2, 3, 4], [5, 6, 7, 8]]
    # SNORM8: 127 -> 1, -127 -> -1, -128 clamps to -1; W selects 1
    assert r.param[0][0].tolist() == [1, -1, -1, 1]
    assert r.param[0][1, 1] == pytest.approx(1 / 127)


def test_uniform_block_fetch_in_a_tex_clause() -> None:
    text = ("00 TEX: ADDR(16) CNT(1)\n"
            "  0   FETCH R2.xyzw, R1.y, b130 FETCH_TYPE(NO_INDEX_OFFSET) MEGA(16) OFFSET(16)\n"
            "01 EXP_DONE: PIX0, R2.xyzw\nEND_OF_PROGRAM\n")
    block = np.arange(16, dtype=np.float32)
    r = LatteShader.from_code(assemble(text), "pixel").run(
        {"R1": np.array([[0, 1, 0, 0], [0, 2, 0, 0]], np.int32)}, uniform_blocks={2: block})
    # element index + OFFSET/16 = 2 and 3: words 8-11 and 12-15
    assert r.pix[0].tolist() == [[8, 9, 10, 11], [12, 13, 14, 15]]


def test_fetch_shader_runs_at_call_fs() -> None:
    fetch = assemble("00 VTX: ADDR(16) CNT(1)\n"
                     "  0   FETCH R1.xy01, R0.x, b0 FETCH_TYPE(VERTEX_DATA) FORMAT( 15 INT UNSIGNED 0)"
                     " MINI(4) OFFSET(0) ENDIAN_SWAP(8IN16)\n01 RETURN\nEND_OF_PROGRAM\n")
    main = assemble("00 CALL_FS NO_BARRIER\n01 EXP_DONE: POS0, R1.xyzw\nEND_OF_PROGRAM\n")
    data = struct.pack(">4H", 1, 2, 300, 65535)
    r = LatteShader.from_code(main).run(lanes=2, fetch_shader=fetch, buffers={0: VertexBuffer(data, 4)})
    # INT number format keeps integer bits; selects 0 and 1 give int 0 and int 1
    assert r.pos[0].view(np.uint32).tolist() == [[1, 2, 0, 1], [300, 65535, 0, 1]]


def test_constant_one_follows_the_resolved_format() -> None:
    # FMT_32_32 (29) has no Z/W: DST_SEL W reads the missing W, DST_SEL 1 the constant 1; both are
    # the same 1: integer 1 (bits 0x00000001) for INT of an integer format, 1.0f (0x3F800000) for
    # a float format, and the buffer's format decides for USE_CONST_FIELDS fetches (no FORMAT)
    def fetch(fmt: str, data: bytes, buffer_format=(35, 0, False)):
        text = ("00 VTX: ADDR(16) CNT(1)\n"
                f"  0   FETCH R1.xyw1, R0.x, b0 FETCH_TYPE(VERTEX_DATA){fmt} MINI(8) OFFSET(0)"
                " ENDIAN_SWAP(8IN32)\n01 EXP_DONE: POS0, R1.xyzw\nEND_OF_PROGRAM\n")
        r = LatteShader.from_code(assemble(text)).run(lanes=1, buffers={0: VertexBuffer(data, 8, buffer_format)})
        return r.pos[0].view(np.uint32)[0].tolist()

    ints = struct.pack(">2I", 7, 9)
    assert fetch(" FORMAT( 29 INT UNSIGNED 0)", ints) == [7, 9, 1, 1]
    assert fetch("", ints, (29, 1, False)) == [7, 9, 1, 1]  # USE_CONST_FIELDS: the buffer says INT
    floats = struct.pack(">2f", 1.5, 2.5)  # 32_32_FLOAT (30) with NUM_FORMAT INT: still 1.0
    assert fetch(" FORMAT( 30 INT UNSIGNED 0)", floats) == [0x3FC00000, 0x40200000, 0x3F800000, 0x3F800000]
    assert fetch(" FORMAT( 29 NORM UNSIGNED 0)", struct.pack(">2I", 0, 0)) == [0, 0, 0x3F800000, 0x3F800000]

"""Maxwell VM on the real Switch shaders of the corpus. Expected outputs come from what each shader is
known to do: Dear ImGui's vertex shader (``ProjMtx * vec4(Position.xy, 0, 1)``, UV and colour passed
on), and for the others the arithmetic read off envytools' listings (``nx/maxwell/*.maxwell.txt``),
computed here with NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shaderkit
from shaderkit.vm.maxwell import MaxwellShader

LANES = 16


def _shader(corpus: Path, name: str, which: int | str = 0) -> MaxwellShader:
    model = shaderkit.open(corpus / "nx" / name)
    programs = dict(MaxwellShader.programs(model))
    return programs[which] if isinstance(which, str) else list(programs.values())[which]


def _rng() -> np.random.Generator:
    return np.random.default_rng(1234)


def test_lotuskit_imgui_vertex_shader(corpus: Path) -> None:
    shader = _shader(corpus, "lotuskit_imgui.bin", "part 3")
    rng = _rng()
    pos = rng.uniform(-100, 100, (LANES, 2)).astype(np.float32)
    uv = rng.random((LANES, 2)).astype(np.float32)
    color = rng.random((LANES, 4)).astype(np.float32)
    proj = rng.uniform(-2, 2, (4, 4)).astype(np.float32)  # column-major mat4 ProjMtx in c[3][0x00..0x3c]
    result = shader.run({0: pos, 1: uv, 2: color}, constant_buffers={3: proj.tobytes()})
    columns = proj.astype(np.float64)  # proj[j] is column j
    expected = pos[:, 0:1] * columns[0] + pos[:, 1:2] * columns[1] + columns[3]
    np.testing.assert_allclose(result.position, expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(result.attribute(0, 2), uv)     # Frag_UV
    np.testing.assert_array_equal(result.attribute(1), color)      # Frag_Color


def test_hakkun_imgui_vertex_shader(corpus: Path) -> None:
    # a[0x70] = 2x - 1, a[0x74] = -(2y - 1), z = 0, w = 1; uv and colour passed on
    shader = _shader(corpus, "hakkun_imgui_data_68023e1.bin", "part 3")
    rng = _rng()
    pos, uv, color = rng.random((LANES, 2)), rng.random((LANES, 2)), rng.random((LANES, 4))
    result = shader.run({0: pos, 1: uv, 2: color})
    x, y = pos[:, 0].astype(np.float32), pos[:, 1].astype(np.float32)
    expected = np.stack([2 * x - 1, -(2 * y - 1), np.zeros(LANES), np.ones(LANES)], axis=1)
    np.testing.assert_allclose(result.position, expected, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(result.attribute(0, 2), uv.astype(np.float32))
    np.testing.assert_array_equal(result.attribute(1), color.astype(np.float32))


def _srgb_to_linear(c: np.ndarray, threshold: float) -> np.ndarray:
    return np.where(c < threshold, c * 0.07739938, np.power((c + 0.055) * 0.94786733, 2.4))


def test_hakkun_imgui_pixel_shader(corpus: Path) -> None:
    # colour = texture(uv) * (sRGB-to-linear(vertex colour).rgb, vertex alpha); threshold from c[1][0]
    shader = _shader(corpus, "hakkun_imgui_data_68023e1.bin", "part 2")
    rng = _rng()
    tex = rng.random((4, 4, 4)).astype(np.float32)
    cols, rows = rng.integers(0, 4, LANES), rng.integers(0, 4, LANES)
    uv = np.stack([(cols + 0.5) / 4, (rows + 0.5) / 4], axis=1).astype(np.float32)  # texel centres
    color = rng.random((LANES, 4)).astype(np.float32)
    color[:4, :3] = 0.01  # below the threshold: the linear segment
    w = rng.uniform(0.5, 2.0, (LANES, 1)).astype(np.float32)
    position = np.concatenate([np.zeros((LANES, 3), np.float32), w], axis=1)
    result = shader.run({0: uv, 1: color, "position": position},
                        constant_buffers={1: np.array([0.04045], np.float32)}, textures={8: tex}, sampler="nearest")
    texel = tex[rows, cols].astype(np.float64)
    expected = np.empty((LANES, 4))
    expected[:, :3] = _srgb_to_linear(color[:, :3].astype(np.float64), 0.04045) * texel[:, :3]
    expected[:, 3] = color[:, 3] * texel[:, 3]
    np.testing.assert_allclose(result.colors[0], expected, rtol=2e-5, atol=1e-6)


def test_wiixl_simple_shaders(corpus: Path) -> None:
    rng = _rng()
    attr = rng.random((LANES, 4)).astype(np.float32)
    quad_vs = _shader(corpus, "wiixl_quad_carray.bnsh", "variation 0 binary vertex")
    np.testing.assert_array_equal(quad_vs.run({0: attr}).position, attr)  # a[0x80..0x8c] -> position
    quad_ps = _shader(corpus, "wiixl_quad_carray.bnsh", "variation 0 binary pixel")
    tint = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    np.testing.assert_array_equal(quad_ps.run(lanes=3, constant_buffers={4: tint}).colors[0], [tint] * 3)
    test_vs = _shader(corpus, "wiixl_test.bnsh", "variation 0 binary vertex")
    expected = np.zeros((LANES, 4), np.float32)
    expected[:, :2] = attr[:, :2] * np.float32(0.5)
    np.testing.assert_array_equal(test_vs.run({0: attr}).position, expected)
    test_ps = _shader(corpus, "wiixl_test.bnsh", "variation 0 binary pixel")
    np.testing.assert_array_equal(test_ps.run(lanes=2).colors[0], [[1, 0, 0, 1]] * 2)


@pytest.mark.parametrize("mode", [0, 1, 2, 3, 4, 5, 6])
def test_wiixl_texture_shader_modes(corpus: Path, mode: int) -> None:
    # c[3][0] (int) picks: 0 colour; 1 texture; 2 mat3 (columns c[3][0x10], [0x20], [0x30]) * tex.rgb,
    # alpha tex.a (R3 as sampled); 3 colour with tex.r as alpha; 4 colour * tex.r, alpha 1;
    # 5 colour * tex.r, alpha tex.g ** c[3][0x24]; others 0. Alpha 0 kills the pixel.
    shader = _shader(corpus, "wiixl_TextureShader.bnsh", "variation 0 binary pixel")
    rng = _rng()
    tex = rng.random((4, 4, 4)).astype(np.float32)
    tex[0, 0, 3] = 0.0  # a texel with alpha 0
    tex[0, 0, 0] = 0.0  # and red 0
    cols, rows = rng.integers(0, 4, LANES), rng.integers(0, 4, LANES)
    cols[0] = rows[0] = 0
    uv = np.stack([(cols + 0.5) / 4, (rows + 0.5) / 4], axis=1).astype(np.float32)
    cbuf = rng.uniform(0.1, 1.0, 16).astype(np.float32)
    words = cbuf.view(np.uint32).copy()
    words[0] = mode
    result = shader.run({0: uv}, constant_buffers={3: words}, textures={8: tex}, sampler="nearest")
    t = tex[rows, cols].astype(np.float64)
    c = cbuf.astype(np.float64)
    colour = c[4:7]
    if mode == 0:
        rgba = np.tile(np.append(colour, 1.0), (LANES, 1))
    elif mode == 1:
        rgba = t
    elif mode == 2:
        rgb = t[:, 0:1] * c[4:7] + t[:, 1:2] * c[8:11] + t[:, 2:3] * c[12:15]
        rgba = np.concatenate([rgb, t[:, 3:4]], axis=1)
    elif mode == 3:
        rgba = np.concatenate([np.tile(colour, (LANES, 1)), t[:, 0:1]], axis=1)
    elif mode == 4:
        rgba = np.concatenate([t[:, 0:1] * colour, np.ones((LANES, 1))], axis=1)
    elif mode == 5:
        rgba = np.concatenate([t[:, 0:1] * colour, np.power(t[:, 1:2], c[9])], axis=1)
    else:
        rgba = np.zeros((LANES, 4))
    np.testing.assert_allclose(result.colors[0], rgba, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(result.killed, rgba[:, 3] == 0)


def test_every_corpus_program_writes_its_outputs(corpus: Path) -> None:
    # finite inputs in [0, 1), constant buffers and textures: every vertex program writes a finite,
    # non-zero position a[0x70..0x7c] in every lane; every pixel program kills a lane or writes
    # finite values to each render-target component its SPH enables (the others read NaN), not
    # all zero
    rng = _rng()
    ran = []
    for path in sorted((corpus / "nx").iterdir()):
        if path.is_dir() or path.suffix == ".tsv":
            continue
        for title, shader in MaxwellShader.programs(shaderkit.open(path)):
            inputs = {i: rng.random((8, 4)) for i in range(8)}
            buffers = {slot: rng.random(1024).astype(np.float32) for slot in range(8)}
            result = shader.run(inputs, buffers, textures={"*": rng.random((4, 4, 4))})
            name = f"{path.name} {title}"
            if shader.stage == "vertex":
                assert np.isfinite(result.position).all(), name
                assert (result.position != 0).any(axis=1).all(), name
            else:
                assert shader.stage == "pixel", name
                live = ~result.killed
                enabled = [c[:, ~np.isnan(c).all(axis=0)] for c in result.colors.values()]
                assert sum(c.shape[1] for c in enabled) > 0, name
                written = np.concatenate(enabled, axis=1)[live]
                assert np.isfinite(written).all(), name
                assert (written != 0).any(axis=1).all(), name
            ran.append(name)
    assert len(ran) == 23, ran


def test_totk_font_vertex_shader_divergent_corners(corpus: Path) -> None:
    # Read off the listing: vertex v draws corner v & 3 of character v >> 2, whose word is
    # c[3][0x40 + 4 * (v >> 2)] (low 16 bits: glyph index g, high 16 bits: signed x). The corner is
    # picked by an SSY block whose lanes leave through SYNCs at different places:
    # corner (x, y) = (0, 0), (16, 0), (16, 16), (0, 16); uv offset (0, C), (D, C), (D, 0), (0, 0).
    # uv = ((g & 63) * 20 + (4 if g <= 0x6a else 0) + 2) * c[1][4] + offset.x,
    #      ((g // 64) * 22 + 2) * c[1][8] + offset.y   (g // 64 by a reciprocal c[1][0] = 1/64);
    # position = M * (x + corner.x, corner.y, 0, 1), M's rows at c[3][0x00], [0x10], [0x20], [0x30].
    shader = _shader(corpus, "totk_nvn_font_shader_jis1.bin", "part 2")
    rng = _rng()
    glyphs = np.array([0x41, 0x6A, 0x6B, 0x3, 200, 0x7FF])
    xs = np.array([10, -5, 0, 300, 7, -1])
    matrix = rng.uniform(-1, 1, (4, 4)).astype(np.float32)
    c3 = np.zeros(0x40 // 4 + len(glyphs), np.uint32)
    c3[:16] = matrix.reshape(-1).view(np.uint32)
    c3[16:] = (glyphs & 0xFFFF) | ((xs & 0xFFFF) << 16)
    c1 = np.array([1 / 64, 1 / 1024, 1 / 512], np.float32)
    lanes = 4 * len(glyphs)
    result = shader.run(lanes=lanes, constant_buffers={1: c1, 3: c3})
    corner = np.array([[0, 0], [16, 0], [16, 16], [0, 16]], np.float32)
    d, c = np.uint32(0x3C4CCCCD).view(np.float32), np.uint32(0x3C49F5BF).view(np.float32)
    offset = np.array([[0, c], [d, c], [d, 0], [0, 0]], np.float32)
    v = np.arange(lanes)
    g, x, k = glyphs[v >> 2], xs[v >> 2], v & 3
    u_cell = ((g & 63) * 20 + np.where(g <= 0x6A, 4, 0) + 2).astype(np.float32)
    v_cell = ((g // 64) * 22 + 2).astype(np.float32)
    uv = np.stack([u_cell * c1[1] + offset[k, 0], v_cell * c1[2] + offset[k, 1]], axis=1)
    np.testing.assert_allclose(result.attribute(0), np.concatenate([uv, np.zeros((lanes, 1)), np.ones((lanes, 1))], 1),
                               rtol=1e-6)
    point = np.stack([x + corner[k, 0], corner[k, 1], np.zeros(lanes), np.ones(lanes)], axis=1)
    np.testing.assert_allclose(result.position, point @ matrix.T.astype(np.float64), rtol=1e-5, atol=1e-4)

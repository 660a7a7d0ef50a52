"""The Latte VM on real GSH/SHARCFB shaders whose meaning is public: librw's im2d/im3d vertex
shaders and its "simple" pixel shader (aap/librw GLSL: ``gl_Position = u_proj * u_view *
u_world * vec4(in_pos, 1)``, fog ``clamp((w - fogEnd) * fogRange, fogDisable, 1)``, colour
``v_color * texture(tex0, vec2(u, 1 - v))`` mixed with ``u_fogColor`` by the fog factor), and
gx2-texture's pass-through shaders. Expected outputs are computed here with NumPy from those
formulas. Every corpus program also runs once as a smoke test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

import shaderkit  # noqa: E402
from conftest import corpus_files  # noqa: E402
from shaderkit.isa.latte import disassemble  # noqa: E402
from shaderkit.vm.latte import LatteShader, Texture, VMError  # noqa: E402


def gsh(corpus: Path, name: str):
    path = corpus / "wiiu" / name
    if not path.exists():
        pytest.skip(f"{name} not in the corpus")
    return shaderkit.open(str(path))


RNG = np.random.default_rng(7)


def columns(matrix: np.ndarray) -> np.ndarray:
    """A mat4 as GX2 stores it: four column registers."""
    return matrix.T.reshape(-1).astype(np.float32)


def test_librw_im3d_transform_and_fog(corpus: Path) -> None:
    vs = LatteShader.from_gsh(gsh(corpus, "librw_im3d_81a88f4_carray.gsh"), 0)
    n = 16
    pos = RNG.uniform(-5, 5, (n, 3)).astype(np.float32)
    color = RNG.random((n, 4)).astype(np.float32)
    tex = RNG.random((n, 2)).astype(np.float32)
    proj, view, world = (RNG.uniform(-1, 1, (4, 4)) for _ in range(3))
    fog = np.array([0.0, 2.0, 0.25, 0.1], np.float32)  # start, end, range, disable
    # the file's uniform list puts u_fogData at C15 (offset 60), but its hand-written code
    # (latte_src/librw_im3d_ba2b940.vsh) reads the fog constants from C12: give C12
    r = vs.run({"in_pos": pos, "in_color": color, "in_tex0": tex},
               uniforms={"u_proj": columns(proj), "u_view": columns(view), "u_world": columns(world),
                         "C12": fog})
    v = np.concatenate([pos.astype(np.float64), np.ones((n, 1))], 1)
    expected = (proj @ view @ world @ v.T).T
    np.testing.assert_allclose(r.position, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(r.param[0], color)
    np.testing.assert_array_equal(r.param[1][:, :2], tex)
    fog_factor = np.clip((expected[:, 3] - fog[1]) * fog[2], fog[3], 1.0)
    np.testing.assert_allclose(r.param[2][:, 0], fog_factor, rtol=1e-4, atol=1e-5)
    assert r.param_semantics == {0: 0, 1: 1, 2: 2}


def test_librw_im2d_and_simple_pixel_shader(corpus: Path) -> None:
    model = gsh(corpus, "librw_im2d_935dd6a_carray.gsh")
    vs, ps = LatteShader.from_gsh(model, 0), LatteShader.from_gsh(model, 1)
    n = 8
    pos = np.concatenate([RNG.uniform(0, 640, (n, 2)), RNG.random((n, 1)), np.full((n, 1), 2.0)], 1)
    xform = np.array([2 / 640, -2 / 480, -1, 1], np.float32)
    fog = np.array([0.0, 0.5, 2.0, 0.0], np.float32)
    color = RNG.random((n, 4)).astype(np.float32)
    uv = RNG.random((n, 2)).astype(np.float32)
    r = vs.run({"in_pos": pos.astype(np.float32), "in_color": color, "in_tex0": uv},
               uniforms={"u_xform": xform, "u_fogData": fog})
    p = pos.astype(np.float32)
    # the Wii U port of im2d.vert (latte_src/librw_im2d_ba2b940.vsh): w = 1,
    # xy = in_pos.xy * u_xform.xy + u_xform.zw, xyz *= w, fog from in_pos.z
    xy = p[:, :2] * xform[:2] + xform[2:]
    expected = np.stack([xy[:, 0], xy[:, 1], p[:, 2], np.ones(n)], 1)
    np.testing.assert_allclose(r.position, expected, rtol=1e-5)
    fog_factor = np.clip((p[:, 2] - fog[1]) * fog[2], fog[3], 1.0)
    np.testing.assert_allclose(r.param[2][:, 0], fog_factor, rtol=1e-5)

    # the pixel shader, fed the vertex shader's outputs by semantic
    image = RNG.random((4, 4, 4)).astype(np.float32)
    fog_color = np.array([0.2, 0.4, 0.6, 1.0], np.float32)
    inputs = {f"semantic{k}": v for k, v in r.varyings().items()}
    out = ps.run(inputs, textures={0: Texture.of(image)}, uniforms={"u_fogColor": fog_color}).pix[0]
    u, v = uv[:, 0], 1.0 - uv[:, 1]
    texel = image[np.floor(v * 4).astype(int) % 4, np.floor(u * 4).astype(int) % 4]
    c = color * texel
    f = r.param[2][:, 0:1]
    expected_rgb = fog_color[:3] + (c[:, :3] - fog_color[:3]) * f  # mix(fogColor, c, fog)
    np.testing.assert_allclose(out[:, :3], expected_rgb, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[:, 3], c[:, 3], rtol=1e-6)


def test_gx2tex_texture_shader(corpus: Path) -> None:
    model = gsh(corpus, "gx2tex_texture_shader_3ac322f.gsh")
    vs, ps = LatteShader.from_gsh(model, 0), LatteShader.from_gsh(model, 1)
    pos = np.array([[-1, -1, 5, 9], [1, 1, 5, 9]], np.float32)
    uv = np.array([[0.1, 0.9, 0, 0], [0.6, 0.3, 0, 0]], np.float32)
    r = vs.run({"position": pos, "tex_coord_in": uv})
    # the file's vertex shader sets R1.z and R1.w (exported as POS0) from the inline 0.0f and 1.0f
    assert re.search(r"z: MOV +R1\.z, 0\.0f.*\n +w: MOV +R1\.w, 1\.0f", disassemble(model.shaders[0].program))
    # position.xy passes; z = 0, w = 1; the texture coordinate goes to PARAM0
    assert r.position.tolist() == [[-1, -1, 0, 1], [1, 1, 0, 1]]
    np.testing.assert_array_equal(r.param[0][:, :2], uv[:, :2])
    image = np.arange(2 * 2 * 4, dtype=np.float32).reshape(2, 2, 4)
    out = ps.run({"R0": r.param[0]}, textures={0: Texture.of(image)}).pix[0]
    assert out.tolist() == [image[1, 0].tolist(), image[0, 1].tolist()]


def test_vm_rejects_bad_input_names(corpus: Path) -> None:
    vs = LatteShader.from_gsh(gsh(corpus, "librw_im2d_935dd6a_carray.gsh"), 0)
    with pytest.raises(VMError, match="in_pos"):
        vs.run({"nope": np.zeros((1, 4))})
    with pytest.raises(VMError, match="u_xform"):
        vs.run(uniforms={"u_nope": [1, 2, 3, 4]})


def _programs():
    files = corpus_files("wiiu", "*.gsh") + corpus_files("wiiu", "*.sharcfb")
    for path in files:
        model = shaderkit.open(str(path))
        shaders = [b.shader for b in model.binaries] if hasattr(model, "binaries") else model.shaders
        for index, shader in enumerate(shaders):
            if shader.program:
                yield path.name, index, shader


def test_every_corpus_program_runs() -> None:
    programs = list(_programs())
    if not programs:
        pytest.skip("corpus not found")
    rng = np.random.default_rng(3)
    completed, refused = 0, []
    for name, index, shader in programs:
        vm = LatteShader.from_gx2(shader)
        inputs = {key: rng.random((8, 4)).astype(np.float32) for key in vm.input_registers()}
        textures = {t: Texture.of(rng.random((6, 4, 4, 4)), "cube") if any(
            s.location == t and s.type == 4 for s in shader.sampler_vars) else Texture.of(rng.random((4, 4, 4)))
            for t in range(16)}
        try:
            result = vm.run(inputs, 8, textures=textures, max_steps=200_000)
        except VMError as exc:  # a clear refusal (e.g. a uniform block the file does not declare)
            refused.append(f"{name}[{index}]: {exc}")
            continue
        completed += 1
        assert result.lanes == 8
        assert result.pos or result.pix or result.param or result.memory, f"{name}[{index}] exported nothing"
    # 98 programs in the corpus at the time of writing; one reads an undeclared uniform block
    assert completed >= len(programs) - 1, refused


def test_fetch_shader_semantics_reach_the_vertex_shader_gprs(corpus: Path) -> None:
    import struct

    from shaderkit.isa.latte import assemble
    from shaderkit.vm.latte import VertexBuffer

    vs = LatteShader.from_gsh(gsh(corpus, "librw_im2d_935dd6a_carray.gsh"), 0)
    # a GX2-style fetch shader: semantic 0 (in_pos, SQ_VTX_SEMANTIC -> R1) from big-endian floats;
    # semantic 9 is mapped to no GPR and is dropped
    fetch = assemble(
        "00 VTX: ADDR(16) CNT(2)\n"
        "  0   SEMANTIC SEM[0].xyzw, R0.x, b0 FETCH_TYPE(VERTEX_DATA) FORMAT( 35 NORM UNSIGNED 0)"
        " MEGA(16) OFFSET(0) ENDIAN_SWAP(8IN32)\n"
        "  1   SEMANTIC SEM[9].xyzw, R0.x, b0 FETCH_TYPE(VERTEX_DATA) FORMAT( 35 NORM UNSIGNED 0)"
        " MEGA(16) OFFSET(0) ENDIAN_SWAP(8IN32)\n"
        "01 RETURN\nEND_OF_PROGRAM\n")
    data = struct.pack(">8f", 10, 20, 0.5, 1, 30, 40, 0.25, 1)
    r = vs.run(lanes=2, fetch_shader=fetch, buffers={0: VertexBuffer(data, 16)},
               uniforms={"u_xform": [0.5, 0.25, -1, 1]})
    assert r.position.tolist() == [[4, 6, 0.5, 1], [14, 11, 0.25, 1]]

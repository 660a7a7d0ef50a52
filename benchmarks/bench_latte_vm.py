"""Wii U Latte NumPy VM: 1,000,000 vertices through a corpus vertex shader, as JSON.

    python benchmarks/bench_latte_vm.py [--lanes N] [--repeat R]

Main row: the vertex shader of ``wiiu/librw_im3d_81a88f4_carray.gsh`` (librw's im3d:
``gl_Position = u_proj * u_view * u_world * vec4(in_pos, 1)`` as three matrix-vector products,
the fog factor ``clamp((w - fogEnd) * fogRange, fogDisable, 1)``, colour and texture coordinate
passed on; 52 ALU instructions in 16 groups and 6 CF instructions a vertex), against a
hand-written NumPy version of the same math in the same process, written for speed:
component-major (4, N), the three products one BLAS matmul each, colour and texture coordinate
the inputs themselves (not copied). Outputs are checked against it: position and fog to 1e-4
(relative and absolute: the matmul sums in its own order), colour and texture coordinate bit for
bit.

Per-lane row (VM only, no NumPy peer): the pixel shader of ``wiiu/wiiu3d_mainshader_e10ec05.gsh``
(a texture sample times a colour constant, then KILLGT: each pixel whose alpha is below 0.001 is
killed), over ``--divergent-lanes`` pixels. The corpus has no Latte program whose control flow
diverges on lane data (its branches test uniforms), so a per-lane kill is the closest.

Times are the best process CPU time of ``--repeat`` interleaved runs, BLAS limited to one thread.
``vertex_instructions_per_s`` counts the instructions in the listing (ALU slots, texture
fetches, CF instructions up to END_OF_PROGRAM): both programs are straight-line, so every lane
runs each.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one core for everything, BLAS included

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402
from _timing import best_interleaved, kill_row, peer_row, run_facts, vm_arguments  # noqa: E402

import shaderkit  # noqa: E402
from shaderkit.isa.latte import disassemble  # noqa: E402
from shaderkit.vm.latte import LatteShader, Texture  # noqa: E402

IM3D = "wiiu/librw_im3d_81a88f4_carray.gsh"
KILL = "wiiu/wiiu3d_mainshader_e10ec05.gsh"

_ALU_SLOT = re.compile(r"^ +(?:\d+ +)?[xyzwt]: ", re.M)
_FETCH = re.compile(r"^ +\d+ +[A-Z]", re.M)
_CF = re.compile(r"^\d\d ", re.M)


def instructions(program: bytes) -> int:
    """ALU slots, fetches and CF instructions of a straight-line program's listing."""
    text = disassemble(program)
    return len(_ALU_SLOT.findall(text)) + len(_FETCH.findall(text)) + len(_CF.findall(text))


def columns(matrix: np.ndarray) -> np.ndarray:
    """A mat4 as GX2 stores it: four column registers."""
    return matrix.T.reshape(-1).astype(np.float32)


def hand_written(pos: np.ndarray, color: np.ndarray, tex: np.ndarray, proj: np.ndarray, view: np.ndarray,
                 world: np.ndarray, fog: np.ndarray) -> tuple[np.ndarray, ...]:
    """proj * (view * (world * (pos, 1))) component-major; fog from w."""
    r = np.empty((4, len(pos)), np.float32)
    r[:3] = pos.T
    r[3] = 1.0
    r = proj @ (view @ (world @ r))
    factor = r[3] - fog[1]
    factor *= fog[2]
    np.clip(factor, fog[3], 1.0, out=factor)
    return r.T, color, tex, factor


def main() -> None:
    args = vm_arguments(__doc__.splitlines()[0])
    n = args.lanes

    rng = np.random.default_rng(1)
    pos = rng.uniform(-5, 5, (n, 3)).astype(np.float32)
    color = rng.random((n, 4)).astype(np.float32)
    tex = rng.random((n, 2)).astype(np.float32)
    proj, view, world = (rng.uniform(-1, 1, (4, 4)).astype(np.float32) for _ in range(3))
    fog = np.array([0.0, 2.0, 0.25, 0.1], np.float32)  # start, end, range, disable
    model = shaderkit.open(corpus_root() / IM3D)
    vs = LatteShader.from_gsh(model, 0)
    inputs = {"in_pos": pos, "in_color": color, "in_tex0": tex}
    # the program reads the fog constants from C12 (its uniform list says C15: see the tests)
    uniforms = {"u_proj": columns(proj), "u_view": columns(view), "u_world": columns(world), "C12": fog}

    def run_vm() -> tuple[np.ndarray, ...]:
        r = vs.run(inputs, uniforms=uniforms)
        return r.position, r.param[0], r.param[1][:, :2], r.param[2][:, 0]

    vm_out = run_vm()
    ref = hand_written(pos, color, tex, proj, view, world, fog)
    worst = max(float(np.abs(vm_out[i].astype(np.float64) - ref[i]).max()) for i in (0, 3))
    assert np.allclose(vm_out[0], ref[0], rtol=1e-4, atol=1e-4), worst
    assert np.allclose(vm_out[3], ref[3], rtol=1e-4, atol=1e-4), worst
    assert np.array_equal(vm_out[1], ref[1]) and np.array_equal(vm_out[2], ref[2])

    # the per-lane kill: texture(uv) * C0, killed where alpha < 0.001
    kill_model = shaderkit.open(corpus_root() / KILL)
    ps = LatteShader.from_gsh(kill_model, 1)
    d = args.divergent_lanes
    uv = rng.random((d, 4)).astype(np.float32)
    image = rng.random((64, 64, 4)).astype(np.float32)
    image[..., 3] = np.where(rng.random((64, 64)) < 0.3, 0.0, image[..., 3])  # ~30 % of texels kill
    ps_textures = {0: Texture.of(image)}
    ps_uniforms = {"C0": np.array([1.0, 0.5, 0.25, 1.0], np.float32)}

    def run_ps() -> object:
        return ps.run({"R0": uv}, textures=ps_textures, uniforms=ps_uniforms)

    killed = run_ps().killed  # type: ignore[attr-defined]

    vm_s, numpy_s, ps_s = best_interleaved([
        run_vm, lambda: hand_written(pos, color, tex, proj, view, world, fog), run_ps], args.repeat)
    per_vertex = instructions(bytes(model.shaders[0].program))
    per_pixel = instructions(bytes(kill_model.shaders[1].program))
    print(json.dumps({
        **peer_row(f"{IM3D}#0", n, per_vertex * n, vm_s, numpy_s),
        "max_abs_difference": worst,
        "tolerance": "position, fog rtol 1e-4 atol 1e-4; colour, texcoord exact",
        "per_lane_kill": kill_row(f"{KILL}#1", d, int(killed.sum()), per_pixel, ps_s),
        **run_facts(),
    }, indent=2))


if __name__ == "__main__":
    main()

"""Direct3D 9 NumPy VM: 1,000,000 vertices through a corpus vertex shader, as JSON.

    python benchmarks/bench_d3d9_vm.py [--lanes N] [--repeat R]

Main row: the level-9 program (vs_2_0, 11 instructions) of DirectXTK's
``dxbc/directxtk__BasicEffect_VSBasic.dxbc``: the clip position (four dp4 rows, then
``oPos.xy += w * c0.xy``, the runtime's position offset), the fog factor ``saturate(dot(pos,
c2))`` by max/min, the diffuse colour c1 and zeros. The hand-written NumPy version of the same
math, in the same process, is written for speed: component-major, the five dot products one
BLAS matmul (5, 4) x (4, N), the position a transposed view, the colour broadcast (not copied). Outputs are checked against it: position and
fog to 1e-5 (relative and absolute: the matmul sums in its own order), colour bit for bit.

Per-lane row (VM only, no NumPy peer): the level-9 program (ps_2_0, 8 instructions) of
``directxtk__AlphaTestEffect_PSAlphaTestLtGt.dxbc`` (texld, the alpha test's cmp and texkill, the
fog lerp), over ``--divergent-lanes`` pixels. The corpus's level-9 programs have no flow control,
so a per-lane texkill is the closest to a divergent program.

Times are the best process CPU time of ``--repeat`` interleaved runs, BLAS limited to one thread.
``vertex_instructions_per_s`` counts the instructions each lane ran (``steps``: every lane runs
the whole straight-line program; dcl and def are not counted).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one core for everything, BLAS included

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402
from _timing import best_interleaved, kill_row, peer_row, run_facts, vm_arguments  # noqa: E402

import shaderkit  # noqa: E402
from shaderkit.formats.dxbc.aon9 import bare_programs  # noqa: E402
from shaderkit.vm.d3d9 import D3D9Shader  # noqa: E402

VS = "dxbc/directxtk__BasicEffect_VSBasic.dxbc"
PS = "dxbc/directxtk__AlphaTestEffect_PSAlphaTestLtGt.dxbc"


def level9(name: str) -> D3D9Shader:
    """The level-9 program of a corpus DXBC file."""
    programs = list(bare_programs(shaderkit.open((corpus_root() / name).read_bytes())))
    return D3D9Shader.from_bytes(programs[0][1].program)


def hand_written(pos: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, ...]:
    """oPos = (dp4 c3, dp4 c4, dp4 c5, dp4 c6) with xy += w * c0.xy; oT0 = c1;
    fog (oT1.w) = saturate(dp4 c2). Component-major: the five dot products are one (5, N)
    matmul, position is returned as a transposed view of its rows."""
    q = c[2:7] @ pos.T  # rows: fog, x, y, z, w
    q[1:3] += q[4] * c[0, :2, None]
    fog = np.clip(q[0], 0.0, 1.0)
    return q[1:5].T, np.broadcast_to(c[1], (len(pos), 4)), fog


def main() -> None:
    args = vm_arguments(__doc__.splitlines()[0])
    n = args.lanes

    rng = np.random.default_rng(1)
    pos = rng.uniform(-2, 2, (n, 4)).astype(np.float32)
    c = rng.uniform(-1, 1, (7, 4)).astype(np.float32)
    vs = level9(VS).set("c0", c)

    def run_vm() -> tuple[np.ndarray, ...]:
        out = vs.run(v0=pos)
        return out["oPos"], out["oT0"], out["oT1"], out.steps

    vm_pos, vm_t0, vm_t1, steps = run_vm()
    ref_pos, ref_t0, ref_fog = hand_written(pos, c)
    worst = max(float(np.abs(vm_pos.astype(np.float64) - ref_pos).max()),
                float(np.abs(vm_t1[:, 3].astype(np.float64) - ref_fog).max()))
    assert np.allclose(vm_pos, ref_pos, rtol=1e-5, atol=1e-5), worst
    assert np.allclose(vm_t1[:, 3], ref_fog, rtol=1e-5, atol=1e-5), worst
    assert np.array_equal(vm_t0, ref_t0) and not vm_t1[:, :3].any()

    # the alpha test: texture(t2) * t0, killed where alpha >= the reference (LtGt), fog from t1.w
    ps = level9(PS)
    d = args.divergent_lanes
    image = rng.random((64, 64, 4)).astype(np.float32)
    ps.texture("s0", image)
    ps.set("c0", [0.3, 0, 1, -1])  # reference 0.3, pass 1, fail -1
    ps.set("c1", [1, 1, 1, 0])  # fog colour
    diffuse = rng.random((d, 4)).astype(np.float32)
    fog = rng.random((d, 4)).astype(np.float32)
    uv = rng.random((d, 2)).astype(np.float32)

    def run_ps() -> object:
        return ps.run(t0=diffuse, t1=fog, t2=uv)

    killed = run_ps().discarded  # type: ignore[attr-defined]

    vm_s, numpy_s, ps_s = best_interleaved([run_vm, lambda: hand_written(pos, c), run_ps], args.repeat)
    per_vertex = int(steps)
    per_pixel = int(run_ps().steps)  # type: ignore[attr-defined]
    print(json.dumps({
        **peer_row(VS, n, per_vertex * n, vm_s, numpy_s),
        "max_abs_difference": worst,
        "tolerance": "position, fog rtol 1e-5 atol 1e-5; colour exact",
        "per_lane_kill": kill_row(PS, d, int(np.asarray(killed).sum()), per_pixel, ps_s),
        **run_facts(),
    }, indent=2))


if __name__ == "__main__":
    main()

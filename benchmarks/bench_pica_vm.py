"""PICA200 NumPy VM: 1,000,000 vertices through a corpus vertex shader, as JSON.

    python benchmarks/bench_pica_vm.py [--vertices N] [--repeat R]

The shader is DVLE 1 of ``pica/3ds-3gxmenu__program__bc18aedb.shbin`` (``wave_main``: a 4x4
matrix transform of the position and a color blended from two uniform colors, 10 instructions).
``ratio`` is the VM's best time over the best time of a hand-written NumPy version of the same math
in the same process, written for speed (component-major, one BLAS matmul for the position);
``ratio_rows`` compares with the obvious (N, 4) row version. Outputs are checked against both
(to 1e-5 relative: the matmul sums in another order).
``vertex_instructions_per_s`` counts every instruction each vertex ran (END included).
Times are the best process CPU time of ``--repeat`` interleaved runs, BLAS limited to one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # one core for everything, BLAS included

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402
from _timing import best_interleaved  # noqa: E402

from shaderkit.vm.pica import PicaShader  # noqa: E402

FILE = "pica/3ds-3gxmenu__program__bc18aedb.shbin"


def hand_written(pos: np.ndarray, prm: np.ndarray, projection: np.ndarray, gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """outpos = projection * (pos.xyz, 1); outclr = mix(gradient[0], gradient[1], prm.x).

    Written for speed: component-major (4, N) so that the matmul is one BLAS call.
    """
    r0 = np.empty((4, len(pos)), np.float32)
    r0[:3] = pos[:, :3].T
    r0[3] = 1.0
    outpos = (projection @ r0).T
    x = prm[:, 0]
    outclr = (gradient[1][:, None] * x + gradient[0][:, None] * (1.0 - x)).T
    return outpos, outclr


def hand_written_rows(pos: np.ndarray, prm: np.ndarray, projection: np.ndarray, gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same math written the obvious way on (N, 4) rows."""
    r0 = np.empty_like(pos)
    r0[:, :3] = pos[:, :3]
    r0[:, 3] = 1.0
    outpos = r0 @ projection.T
    x = prm[:, :1]
    outclr = x * gradient[1] + gradient[0] * (1.0 - x)
    return outpos, outclr


def run_vm(shader: PicaShader, inputs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    result = shader.run(inputs)
    return result["position"], result["color"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vertices", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    n = args.vertices
    pos = rng.uniform(-2, 2, (n, 4)).astype(np.float32)
    prm = rng.uniform(0, 1, (n, 4)).astype(np.float32)
    projection = rng.uniform(-1, 1, (4, 4)).astype(np.float32)
    gradient = rng.uniform(0, 1, (2, 4)).astype(np.float32)

    shader = PicaShader.load((corpus_root() / FILE).read_bytes(), dvle=1)
    shader.set_uniform("projection", projection)
    shader.set_uniform("gradient", gradient)
    inputs = {"v0": pos, "v1": prm}

    result = shader.run(inputs)
    for variant in (hand_written, hand_written_rows):
        ref_pos, ref_clr = variant(pos, prm, projection, gradient)
        assert np.allclose(result["position"], ref_pos, rtol=1e-5, atol=1e-5)
        assert np.allclose(result["color"], ref_clr, rtol=1e-6, atol=1e-6)

    vm_time, numpy_time, rows_time = best_interleaved([
        lambda: run_vm(shader, inputs),
        lambda: hand_written(pos, prm, projection, gradient),
        lambda: hand_written_rows(pos, prm, projection, gradient),
    ], args.repeat)
    steps = int(result.steps.sum())
    print(json.dumps({
        "shader": f"{FILE}#1",
        "vertices": n,
        "instructions_per_vertex": steps // n,
        "vm_s": round(vm_time, 4),
        "hand_numpy_s": round(numpy_time, 4),
        "ratio": round(vm_time / numpy_time, 2),
        "hand_numpy_rows_s": round(rows_time, 4),
        "ratio_rows": round(vm_time / rows_time, 2),
        "vertex_instructions_per_s": round(steps / vm_time),
        "numpy": np.__version__,
        "python": platform.python_version(),
    }, indent=2))


if __name__ == "__main__":
    main()

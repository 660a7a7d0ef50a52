"""The SM4/SM5 VM over 1,000,000 vertices against hand-written NumPy of the same math, as JSON.

    python benchmarks/bench_sm4_vm.py [--count N] [--repeat R]

Shader: DirectXTK ``BasicEffect_VSBasicPixelLighting`` (vs_4_0, 17 instructions: world position,
fog factor, world normal normalised with rsq, constant colour, clip position). The NumPy version
computes the same outputs with float32 matrix products. Both run in the same process on the same
inputs; the figure is the ratio of the best CPU times (``time.process_time``, one thread) of R
interleaved runs (goal: at most 2). The largest
absolute difference between the two is printed too (values are O(1); NumPy's matmul sums in its
own order, the VM left to right as D3D's dp4).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # one core for both sides, like the other benchmarks

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402

import shaderkit  # noqa: E402
from shaderkit.vm.sm4 import Shader  # noqa: E402

NAME = "directxtk__BasicEffect_VSBasicPixelLighting.dxbc"


def numpy_version(position: np.ndarray, normal: np.ndarray, cb: np.ndarray) -> dict[str, np.ndarray]:
    """The shader's math written by hand (rows of cb0 as float32 vectors)."""
    world = position @ cb[15:18].T
    fog = np.clip(position @ cb[14], 0, 1)
    n = normal @ cb[19:22, :3].T
    n = n * (1 / np.sqrt(np.einsum("ij,ij->i", n, n)))[:, None]
    color = np.empty((len(position), 4), np.float32)
    color[:, :3] = 1
    color[:, 3] = cb[0, 3]
    clip = position @ cb[22:26].T
    return {"o0": np.concatenate([world, fog[:, None]], axis=1), "o1": n, "o2": color, "o3": clip}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = corpus_root()
    if root is None:
        print("corpus not found", file=sys.stderr)
        return 2
    shader = Shader(shaderkit.open((root / "dxbc" / NAME).read_bytes()))
    rng = np.random.default_rng(5)
    cb = rng.uniform(-1, 1, (26, 4)).astype(np.float32)
    shader.set_constant_buffer(0, cb)
    position = rng.uniform(-2, 2, (args.count, 4)).astype(np.float32)
    normal = rng.uniform(-1, 1, (args.count, 3)).astype(np.float32)

    def run_vm() -> dict[str, np.ndarray]:
        out = shader.run_vertex({"v0": position, "v1": normal})
        return {"o0": out["o0"].view(np.float32), "o1": out["o1"][:, :3].view(np.float32),
                "o2": out["o2"].view(np.float32), "o3": out["o3"].view(np.float32)}

    def timed(fn: Any) -> tuple[float, dict[str, np.ndarray]]:
        start = time.process_time()
        result = fn()
        return time.process_time() - start, result

    # interleaved, so that load from other jobs hits both alike; best of R each
    vm_times, np_times = [], []
    for _ in range(args.repeat):
        seconds, vm_out = timed(run_vm)
        vm_times.append(seconds)
        seconds, np_out = timed(lambda: numpy_version(position, normal, cb))
        np_times.append(seconds)
    vm_seconds, np_seconds = min(vm_times), min(np_times)
    worst = 0.0
    for key, expected in np_out.items():
        # NumPy's matmul sums in its own order, so compare values, not bits
        worst = max(worst, float(np.abs(vm_out[key].astype(np.float64) - expected).max()))
    print(json.dumps({
        "shader": NAME, "invocations": args.count, "vm_seconds": round(vm_seconds, 4),
        "numpy_seconds": round(np_seconds, 4), "ratio": round(vm_seconds / np_seconds, 2),
        "max_abs_difference": worst,
    }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Maxwell (Switch) NumPy VM: 1,000,000 vertices through a corpus vertex shader, as JSON.

    python benchmarks/bench_maxwell_vm.py [--lanes N] [--repeat R]

Main row: part 3 of ``nx/lotuskit_imgui.bin``, Dear ImGui's vertex shader (``ProjMtx *
vec4(Position.xy, 0, 1)``, UV and colour passed on; 35 instructions a vertex, EXIT included),
against a hand-written NumPy version of the same math in the same process, written for speed
((N, 2) positions times the two used rows of the matrix, one BLAS matmul; UV and colour are the
inputs themselves, not copied). Outputs are checked against it: position to 1e-5 relative (the
matmul sums in its own order), UV and colour bit for bit.

Divergent row (VM only, no NumPy peer): part 2 of ``nx/totk_nvn_font_shader_jis1.bin``, TotK's
font vertex shader, whose lanes leave an SSY block through SYNCs at different places depending on
the glyph corner (vertex id & 3), over ``--divergent-lanes`` vertices.

Times are the best process CPU time of ``--repeat`` interleaved runs, BLAS limited to one thread.
``vertex_instructions_per_s`` counts the instructions each lane ran (``RunResult.steps``).
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
from _timing import best_interleaved, peer_row, run_facts, vm_arguments  # noqa: E402

import shaderkit  # noqa: E402
from shaderkit.vm.maxwell import MaxwellShader  # noqa: E402

IMGUI = ("nx/lotuskit_imgui.bin", "part 3")
FONT = ("nx/totk_nvn_font_shader_jis1.bin", "part 2")


def program(name: str, title: str) -> MaxwellShader:
    return dict(MaxwellShader.programs(shaderkit.open(corpus_root() / name)))[title]


def hand_written(pos: np.ndarray, uv: np.ndarray, color: np.ndarray, proj: np.ndarray) -> tuple[np.ndarray, ...]:
    """gl_Position = ProjMtx * vec4(pos, 0, 1) (``proj[j]`` is column j); UV and colour pass."""
    position = pos @ proj[:2]
    position += proj[3]
    return position, uv, color


def main() -> None:
    args = vm_arguments(__doc__.splitlines()[0])
    n = args.lanes

    rng = np.random.default_rng(1)
    pos = rng.uniform(-100, 100, (n, 2)).astype(np.float32)
    uv = rng.random((n, 2)).astype(np.float32)
    color = rng.random((n, 4)).astype(np.float32)
    proj = rng.uniform(-2, 2, (4, 4)).astype(np.float32)  # column-major mat4 in c[3][0x00..0x3c]
    shader = program(*IMGUI)
    buffers = {3: proj.tobytes()}

    def run_vm() -> tuple[np.ndarray, ...]:
        result = shader.run({0: pos, 1: uv, 2: color}, constant_buffers=buffers)
        return result.position, result.attribute(0, 2), result.attribute(1), result.steps

    vm_pos, vm_uv, vm_color, steps = run_vm()
    ref_pos, ref_uv, ref_color = hand_written(pos, uv, color, proj)
    worst = float(np.abs(vm_pos.astype(np.float64) - ref_pos).max())
    assert np.allclose(vm_pos, ref_pos, rtol=1e-5, atol=1e-4), worst
    assert np.array_equal(vm_uv, ref_uv) and np.array_equal(vm_color, ref_color)

    # the divergent program: glyph words in c[3][0x40 + 4 * (v >> 2)], a matrix in c[3][0..0x3c]
    font = program(*FONT)
    d = args.divergent_lanes
    chars = (d + 3) // 4
    c3 = np.zeros(16 + chars, np.uint32)
    c3[:16] = rng.uniform(-1, 1, 16).astype(np.float32).view(np.uint32)
    c3[16:] = rng.integers(0, 0x800, chars) | (rng.integers(0, 0x400, chars) << 16)
    font_buffers = {1: np.array([1 / 64, 1 / 1024, 1 / 512], np.float32), 3: c3}

    def run_font() -> object:
        return font.run(lanes=d, constant_buffers=font_buffers)

    font_steps = run_font().steps  # type: ignore[attr-defined]

    vm_s, numpy_s, font_s = best_interleaved([
        run_vm, lambda: hand_written(pos, uv, color, proj), run_font], args.repeat)
    total = int(steps.sum())
    print(json.dumps({
        **peer_row("#".join(IMGUI), n, total, vm_s, numpy_s),
        "max_abs_difference_position": worst,
        "tolerance": "position rtol 1e-5 atol 1e-4; uv, colour exact",
        "divergent": {
            "shader": "#".join(FONT),
            "lanes": d,
            "instructions_per_lane": [int(font_steps.min()), int(font_steps.max())],
            "vm_s": round(font_s, 4),
            "lanes_per_s": round(d / font_s),
            "vertex_instructions_per_s": round(int(font_steps.sum()) / font_s),
        },
        **run_facts(),
    }, indent=2))


if __name__ == "__main__":
    main()

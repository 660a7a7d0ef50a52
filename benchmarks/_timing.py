"""The benchmarks' timers (best of several runs), and the options and JSON rows the VM benchmarks share."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable


def best_of(repeat: int, func: Callable[[], object], clock: Callable[[], float] = time.perf_counter) -> float:
    """The shortest of ``repeat`` runs of ``func`` by ``clock`` (wall time by default; pass
    ``time.process_time`` for CPU time)."""
    times = []
    for _ in range(repeat):
        start = clock()
        func()
        times.append(clock() - start)
    return min(times)


def best_interleaved(funcs: list[Callable[[], object]], repeat: int,
                     clock: Callable[[], float] = time.process_time) -> list[float]:
    """The shortest of ``repeat`` runs of each function (CPU time by default), the functions run in
    turns so that load from other jobs on the machine hits them alike."""
    times: list[list[float]] = [[] for _ in funcs]
    for _ in range(repeat):
        for func, bucket in zip(funcs, times):
            start = clock()
            func()
            bucket.append(clock() - start)
    return [min(bucket) for bucket in times]


def vm_arguments(description: str) -> argparse.Namespace:
    """The options of the VM benchmarks: --lanes, --divergent-lanes, --repeat."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--lanes", type=int, default=1_000_000)
    parser.add_argument("--divergent-lanes", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    return parser.parse_args()


def peer_row(shader: str, lanes: int, instructions: int, vm_s: float, numpy_s: float) -> dict[str, object]:
    """The JSON head of a VM benchmark: the VM against hand-written NumPy over ``lanes`` lanes that
    ran ``instructions`` instructions in all."""
    return {"shader": shader, "lanes": lanes, "instructions_per_vertex": instructions / lanes,
            "vm_s": round(vm_s, 4), "hand_numpy_s": round(numpy_s, 5), "ratio": round(vm_s / numpy_s, 1),
            "vm_lanes_per_s": round(lanes / vm_s), "vertex_instructions_per_s": round(instructions / vm_s)}


def kill_row(shader: str, lanes: int, killed: int, per_lane: int, seconds: float) -> dict[str, object]:
    """The JSON row of a VM run whose lanes differ by a per-lane kill."""
    return {"shader": shader, "lanes": lanes, "killed": killed, "instructions_per_lane": per_lane,
            "vm_s": round(seconds, 4), "lanes_per_s": round(lanes / seconds),
            "instructions_per_s": round(per_lane * lanes / seconds)}


def run_facts() -> dict[str, object]:
    """Peak memory of the process, NumPy and Python versions (the end of each VM benchmark's JSON)."""
    import platform
    import resource

    import numpy as np

    return {"peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "numpy": np.__version__, "python": platform.python_version()}

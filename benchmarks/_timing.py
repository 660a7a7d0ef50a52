"""The benchmarks' one timer: the best of several runs."""

from __future__ import annotations

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

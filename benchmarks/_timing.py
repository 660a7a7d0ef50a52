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

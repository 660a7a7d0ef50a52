"""Launch a program the cheapest way and read the CPU time it used (itself and the children it waited for).

``os.posix_spawn`` (vfork + exec, no shell, no pipes: output goes to /dev/null) and ``os.wait4``,
whose resource usage covers exactly that process tree. Unlike wall time, CPU time hardly moves
when other jobs share the machine, so peers measured in the same run compare fairly.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence


def spawn_cpu(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, int]:
    """(CPU seconds, exit status) of one run of ``argv``; stdout and stderr go to /dev/null."""
    program = argv[0] if os.sep in argv[0] else (shutil.which(argv[0]) or argv[0])
    null = os.open(os.devnull, os.O_RDWR)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
        pid = os.posix_spawn(program, list(argv), os.environ if env is None else env, file_actions=actions)
    finally:
        os.close(null)
    _, status, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def cached_python_env(cache_dir: str, src: str | None = None) -> dict[str, str]:
    """The environment of a normal install: bytecode cached (in ``cache_dir``), ``src`` importable."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache_dir
    if src is not None:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def interleaved(jobs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """Best (least) CPU seconds of each job over ``rounds`` rounds, the jobs taking turns within a
    round (a burst of load from other users then hits every job alike; load only adds time)."""
    times: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(rounds):
        for name, job in jobs.items():
            times[name].append(job())
    return {name: min(values) for name, values in times.items()}


def shaderkit_argv(*args: str) -> list[str]:
    """``shaderkit ARGS`` as the installed console script runs it (no runpy)."""
    return [sys.executable, "-c", "import sys; from shaderkit.cli import main; sys.exit(main())", *args]

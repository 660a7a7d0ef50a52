#!/usr/bin/env python3
"""shaderkit against its peers, every figure a CPU-time ratio measured in the same run; prints JSON.

    python bench_peers.py [--rounds N] [--skip-batch] [--baseline-src DIR]

* start-up: whole-process ``shaderkit disasm``/``info`` on one small file against ``python -c
  pass``, both with a bytecode cache (as a normal install has; this machine may set
  PYTHONDONTWRITEBYTECODE, so a private PYTHONPYCACHEPREFIX is used and warmed first);
* batch DXBC: one ``shaderkit disasm -o DIR`` (DIR empty, on /dev/shm where there is one) /
  ``shaderkit verify`` process over the corpus against vkd3d-compiler (DXBC -> SPIR-V, written to
  the null device) launched once per file, each launch a bare
  ``posix_spawn`` + ``wait4`` (no shell, no pipes); ``vkd3d-compiler --version`` as often shows
  the share of its process starts; ``verify --jobs 1/2`` (CPU and wall);
* in-process: SM4 decode + fxc text in one pass over every corpus program, the first pass of a
  fresh process (instructions/s; best of ``--rounds`` processes), PICA200 ``disassemble`` of every
  corpus SHBIN (instructions/s).

``src/`` is measured as built: with the compiled modules where ``pip install -e .`` compiled them
(``compiled_build`` in the report), else from source.

CPU time (user + system of the process and the children it waited for) is what is compared:
the machine may be shared, and CPU time moves far less under load than wall time. Each job is
the best (least CPU) of ``--rounds`` rounds in which the jobs take turns: load from other users
only ever adds time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = str(HERE.parent / "src")
sys.path.insert(0, str(HERE))
sys.path.insert(0, SRC)

from _corpus import corpus_root  # noqa: E402
from _spawn import cached_python_env, interleaved, shaderkit_argv, spawn_cpu  # noqa: E402

from shaderkit._native import compiled_in_use  # noqa: E402

SMALL_DXBC = "dxbc/slimshader__VirtualMachine_PS_Simple.dxbc"  # 500 bytes
SMALL_SHBIN = "pica/simple_tri__vshader__6335ca80.shbin"  # 263 bytes


def _ratio(ours: float, theirs: float) -> float:
    return round(ours / theirs, 2) if theirs else float("nan")


def start_up(root: Path, env: dict[str, str], rounds: int) -> dict[str, object]:
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "disasm small.dxbc": shaderkit_argv("disasm", str(root / SMALL_DXBC)),
        "info small.shbin": shaderkit_argv("info", str(root / SMALL_SHBIN)),
        "disasm small.shbin": shaderkit_argv("disasm", str(root / SMALL_SHBIN)),
        "info small.dxbc": shaderkit_argv("info", str(root / SMALL_DXBC)),
    }
    for argv in commands.values():  # writes the bytecode cache
        spawn_cpu(argv, env)
    best = interleaved({name: (lambda a=argv: spawn_cpu(a, env)[0]) for name, argv in commands.items()}, rounds)
    base = best["python -c pass"]
    return {name: {"cpu_s": round(t, 4), "x_python_c_pass": _ratio(t, base)} for name, t in best.items()}


#: a memory file system for the batch listings (see main)
LISTINGS_FOLDER = "/dev/shm"


def batch_dxbc(root: Path, env: dict[str, str], rounds: int, out_dir: str,
               baseline: dict[str, str] | None = None) -> dict[str, object]:
    files = [str(p) for p in sorted((root / "dxbc").glob("*.dxbc"))]
    report: dict[str, object] = {"files": len(files), "bytes": sum(os.path.getsize(f) for f in files)}
    tool = shutil.which("vkd3d-compiler")
    failures = {"vkd3d": 0}

    def vkd3d_all() -> float:
        total = 0.0
        failures["vkd3d"] = 0
        for name in files:
            cpu, status = spawn_cpu([tool or "", "-x", "dxbc-tpf", "-b", "spirv-binary", "-o", os.devnull, name])
            total += cpu
            failures["vkd3d"] += status != 0
        return total

    def vkd3d_starts() -> float:
        return sum(spawn_cpu([tool or "", "--version"])[0] for _ in files)

    def ours(*args: str) -> float:
        return spawn_cpu(shaderkit_argv(*args), env)[0]

    def disasm_into(folder: str, environment: dict[str, str]) -> float:
        """``disasm -o folder`` of the corpus into an empty folder, as a first run writes (the
        removal is not timed: the child's CPU is)."""
        shutil.rmtree(folder, ignore_errors=True)
        return spawn_cpu(shaderkit_argv("disasm", "-o", folder, *files), environment)[0]

    jobs = {
        "shaderkit disasm (one process)": lambda: disasm_into(out_dir, env),
        "shaderkit verify (one process)": lambda: ours("verify", *files),
        "shaderkit verify --jobs 2": lambda: ours("verify", "--jobs", "2", *files),
    }
    if baseline is not None:  # the same commands from another checkout, in the same rounds
        jobs["baseline disasm (one process)"] = lambda: disasm_into(out_dir + "-baseline", baseline)
        jobs["baseline verify (one process)"] = lambda: spawn_cpu(shaderkit_argv("verify", *files), baseline)[0]
    if tool is not None:
        jobs["vkd3d-compiler per file"] = vkd3d_all
        jobs["vkd3d-compiler --version per file"] = vkd3d_starts
    for job in jobs.values():  # warm the bytecode cache and the file cache
        job()
    best = interleaved(jobs, rounds)
    report["cpu_s"] = {name: round(t, 3) for name, t in best.items()}
    if tool is None:
        report["vkd3d"] = "vkd3d-compiler not installed (apt-get install vkd3d-compiler): no ratios"
        return report
    peer = best["vkd3d-compiler per file"]
    report["vkd3d_failed_files"] = failures["vkd3d"]
    ratios = {
        "disasm": _ratio(best["shaderkit disasm (one process)"], peer),
        "verify": _ratio(best["shaderkit verify (one process)"], peer),
        "verify --jobs 2": _ratio(best["shaderkit verify --jobs 2"], peer),
    }
    if baseline is not None:
        ratios["baseline disasm"] = _ratio(best["baseline disasm (one process)"], peer)
        ratios["baseline verify"] = _ratio(best["baseline verify (one process)"], peer)
    report["x_vkd3d"] = ratios
    report["vkd3d_process_start_share"] = round(best["vkd3d-compiler --version per file"] / peer, 2)
    return report


def jobs_wall(root: Path, env: dict[str, str], rounds: int) -> dict[str, object]:
    """``verify --jobs N`` over the DXBC corpus: wall time matters here (CPU time only grows)."""
    files = [str(p) for p in sorted((root / "dxbc").glob("*.dxbc"))]
    report: dict[str, object] = {}
    for jobs in (1, 2):
        walls, cpus = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            cpu, _status = spawn_cpu(shaderkit_argv("verify", "--jobs", str(jobs), *files), env)
            walls.append(time.perf_counter() - start)
            cpus.append(cpu)
        report[f"--jobs {jobs}"] = {"wall_s": round(statistics.median(walls), 3), "cpu_s": round(statistics.median(cpus), 3)}
    return report


def in_process(root: Path, repeat: int) -> dict[str, object]:
    from bench_sm4 import best as _best
    from bench_sm4 import corpus_words, fresh_process_seconds

    import shaderkit
    from shaderkit.isa.sm4.decode import decode

    words = corpus_words()
    count = sum(decode(w).instruction_count for w in words)
    t_sm4 = fresh_process_seconds(repeat)  # the first pass of a fresh process: nothing warmed up
    report: dict[str, object] = {
        "sm4_decode_text_cold": {"instructions": count, "cpu_s": round(t_sm4, 4),
                                 "instructions_per_s": round(count / t_sm4), "goal": 1_000_000},
    }
    models = [shaderkit.open(p.read_bytes()) for p in sorted((root / "pica").glob("*.shbin"))]
    pica_count = sum(len(m.dvlp.code) for m in models)  # type: ignore[attr-defined]
    first_start = time.process_time()
    for m in models:
        m.disassemble()
    first = time.process_time() - first_start
    t_pica = _best(lambda: [m.disassemble() for m in models], repeat)
    report["pica_disasm"] = {"files": len(models), "instructions": pica_count, "cpu_s": round(t_pica, 4),
                             "instructions_per_s": round(pica_count / t_pica),
                             "first_pass_instructions_per_s": round(pica_count / first), "goal": 500_000}
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-batch", action="store_true", help="only start-up and in-process figures")
    parser.add_argument("--baseline-src", help="also time batch disasm/verify from this src folder (an older "
                        "checkout, e.g. from `git archive`) in the same rounds")
    args = parser.parse_args()
    root = corpus_root()
    report: dict[str, object] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "load_average_at_start": [round(x, 1) for x in os.getloadavg()],
        "vkd3d": shutil.which("vkd3d-compiler"),
        "compiled_build": compiled_in_use(),  # (src/ measured as built, see the docstring)
    }
    with tempfile.TemporaryDirectory() as tmp:
        env = cached_python_env(os.path.join(tmp, "pycache"), SRC)
        report["start_up"] = start_up(root, env, max(args.rounds, 9))
        if not args.skip_batch:
            baseline = None
            if args.baseline_src:
                baseline = cached_python_env(os.path.join(tmp, "pycache-baseline"), os.path.abspath(args.baseline_src))
                report["baseline_src"] = args.baseline_src
            # the listings go to a memory file system where there is one: vkd3d writes to the null
            # device, and creating 390 files on a disk file system can cost more CPU than printing them
            with tempfile.TemporaryDirectory(dir=LISTINGS_FOLDER if os.path.isdir(LISTINGS_FOLDER) else None) as out:
                report["batch_dxbc"] = batch_dxbc(root, env, args.rounds, os.path.join(out, "listings"), baseline)
                report["listings_folder"] = out
            report["verify_jobs"] = jobs_wall(root, env, args.rounds)
    report["in_process"] = in_process(root, args.rounds)
    report["load_average_at_end"] = [round(x, 1) for x in os.getloadavg()]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

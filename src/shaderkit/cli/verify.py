from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import chain
from pathlib import Path

import click

from shaderkit.cli.common import walk_paths

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


def check_file(path: Path | str) -> tuple[str, str]:
    """(status, reason) for one file or archive member: parse, rebuild, compare, integrity checks."""
    from shaderkit.errors import ShaderFormatError

    try:
        if isinstance(path, str) and "//" in path:
            from shaderkit.cli.common import load_member

            data = load_member(path)[1]
        else:
            data = Path(path).read_bytes()
    except OSError as exc:
        return FAILED, f"cannot read: {exc.strerror}"
    except ShaderFormatError as exc:
        return FAILED, str(exc)
    return check_bytes(data)


def check_bytes(data: bytes) -> tuple[str, str]:
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.base import IdentifiedFile
    from shaderkit.formats.registry import detect

    spec = detect(data)
    if spec is None:
        return SKIPPED, "not a shader format"
    try:
        model = spec.parse(data)
        if isinstance(model, IdentifiedFile):
            return SKIPPED, f"{model.kind}: not read"
        rebuilt = model.to_bytes()
    except ShaderFormatError as exc:
        return FAILED, str(exc)
    except Exception as exc:  # a bug in shaderkit: report it as a failure of this file
        return FAILED, f"internal error {type(exc).__name__}: {exc}"
    if rebuilt != data:
        diff = next((i for i, (a, b) in enumerate(zip(rebuilt, data)) if a != b), min(len(rebuilt), len(data)))
        return FAILED, f"rebuild differs at offset 0x{diff:x} ({len(rebuilt)} bytes vs {len(data)})"
    problems = model.problems()
    if problems:
        return FAILED, "; ".join(problems)
    return PASSED, ""


def _check_named(name: str) -> tuple[str, str, str]:
    return (name, *check_file(name if "//" in name else Path(name)))


def _check_chunk(names: list[str]) -> list[tuple[str, str, str]]:
    """One worker task: a run of files, so the pool's per-task cost is paid per chunk, not per file."""
    return [_check_named(name) for name in names]


#: below this many files per worker, starting the workers costs more than they save: run serially.
MIN_FILES_PER_WORKER = 32
#: chunks handed to each worker (several, so a worker that drew slow files does not hold up the end).
CHUNKS_PER_WORKER = 4


def parallel_plan(count: int, jobs: int) -> tuple[int, int]:
    """(workers, files per chunk) for ``count`` files and ``--jobs jobs``; (1, count) means serial."""
    workers = max(1, min(jobs, count // MIN_FILES_PER_WORKER))
    if workers == 1:
        return 1, max(count, 1)
    return workers, -(-count // (workers * CHUNKS_PER_WORKER))


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


@contextmanager
def checked(files: list[str], jobs: int) -> Iterator[Iterator[tuple[str, str, str]]]:
    """(name, status, reason) of every file in order, with up to ``jobs`` worker processes (never
    more than the usable CPUs, and none for few files).

    Files are checked here until one is read (not skipped) before the workers start, so the modules
    its format needs are imported once and inherited by forked workers; the rest goes out in
    contiguous chunks. The
    workers exist when this is entered, so threads started afterwards (a progress bar) are not forked.
    """
    workers, chunk = parallel_plan(len(files), min(jobs, _usable_cpus()))
    if workers == 1:
        yield map(_check_named, files)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    first: list[tuple[str, str, str]] = []
    for name in files[:MIN_FILES_PER_WORKER]:
        first.append(_check_named(name))
        if first[-1][1] != SKIPPED:
            break
    rest = files[len(first) :]
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        chunks = pool.map(_check_chunk, [rest[i : i + chunk] for i in range(0, len(rest), chunk)])
        yield chain(first, chain.from_iterable(chunks))


def _report(results: Iterator[tuple[str, str, str]], total: int, show_progress: bool, as_json: bool) -> dict[str, int]:
    """Print each result as it comes (failures, or every file as JSON); the counts by status."""
    counts = {PASSED: 0, FAILED: 0, SKIPPED: 0}
    progress = None
    if show_progress:
        from rich.console import Console
        from rich.progress import Progress

        progress = Progress(console=Console(stderr=True), transient=True)
        task = progress.add_task("verifying", total=total)
        progress.start()
    try:
        for name, status, reason in results:
            counts[status] += 1
            if as_json:
                click.echo(json.dumps({"file": name, "status": status, "reason": reason}))
            elif status == FAILED:
                click.echo(f"{name}: {reason}")
            if progress is not None:
                progress.advance(task)
    finally:
        if progress is not None:
            progress.stop()
    return counts


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1),
              help="Worker processes (files go out in chunks; few files run in this process).")
@click.option("--json", "as_json", is_flag=True, help="JSON Lines: one object per file, then a summary object.")
def verify(paths: tuple[str, ...], jobs: int, as_json: bool) -> None:
    """Parse, rebuild and compare every file under PATHS; exit 1 if any fails."""
    members = [p for p in paths if "//" in p and not os.path.exists(p)]  # pack.szs//dir/file
    files = [str(p) for p in walk_paths(tuple(p for p in paths if p not in members))] + members
    show_progress = sys.stderr.isatty() and not os.environ.get("CI") and not as_json and len(files) > 1
    with checked(files, jobs) as results:
        counts = _report(results, len(files), show_progress, as_json)
    if as_json:
        click.echo(json.dumps({"summary": counts}))
    else:
        line = f"{counts[PASSED]} passed, {counts[FAILED]} failed"
        if counts[SKIPPED]:
            line += f", {counts[SKIPPED]} skipped"
        click.echo(line)
    if counts[FAILED]:
        raise click.exceptions.Exit(1)

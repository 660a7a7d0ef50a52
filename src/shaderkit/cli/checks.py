"""The work of ``shaderkit verify`` without click: parse, rebuild and compare files (in worker
processes for ``--jobs``), one line per failure (or JSON Lines), then the counts. The click command
(``verify.py``) and the console script's fast path (``fast.py``) both run :func:`verify_files`."""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import chain

from shaderkit.cli.common import echo
from shaderkit.errors import ShaderFormatError, ShaderkitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, BinaryIO

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


def check_file(path: Path | str) -> tuple[str, str]:
    """(status, reason) for one file or archive member: parse, rebuild, compare, integrity checks."""
    return checks_of(str(path))[0][1:]


def checks_of(name: str) -> list[tuple[str, str, str]]:
    """(name, status, reason) of the file or archive member ``name`` (parse, rebuild, compare,
    integrity checks), then of every shader inside it when it has no text of its own: an archive,
    an executable, a file of unknown format with shaders inside (as ``disasm`` lists them,
    :func:`~shaderkit.formats.archive.path.shader_members`). A compressed shader is one check: the
    stream's and its shader's."""
    from shaderkit.formats.base import textless

    try:
        if "//" in name:
            from shaderkit.cli.common import load_member
            from shaderkit.formats.archive.path import member_model

            steps, data = load_member(name)
            model = member_model(steps)  # a member without magic: the model its container gives
            if model is not None:
                return [(name, *check_model(data, model))]
        else:
            with open(name, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        return [(name, FAILED, f"cannot read: {exc.strerror}")]
    except ShaderFormatError as exc:
        return [(name, FAILED, str(exc))]
    status, reason, model = _check_data(data)
    if status == FAILED or (model is not None and not textless(type(model))):
        return [(name, status, reason)]
    from shaderkit.formats.archive.path import shader_members  # (model None: a package, perhaps)

    try:
        members = shader_members(name, data)
    except ShaderkitError as exc:
        return [(name, FAILED, str(exc))]
    except Exception as exc:  # a bug in shaderkit: a failure of this file
        return [(name, FAILED, f"internal error {type(exc).__name__}: {exc}")]
    if not members:
        return [(name, status, reason)]
    if len(members) == 1 and members[0].name == name:  # a compressed shader
        return [(name, *check_bytes(members[0].data))]
    return [(name, status, reason), *((m.name, FAILED, m.error) if m.error else (m.name, *check_bytes(m.data))
                                      for m in members)]


def check_bytes(data: bytes) -> tuple[str, str]:
    """(status, reason) for one file's bytes: parse, rebuild, compare, integrity checks."""
    return _check_data(data)[:2]


def _check_data(data: bytes) -> tuple[str, str, Any]:
    """(status, reason, model or None) of :func:`check_bytes`."""
    from shaderkit.formats.base import IdentifiedFile
    from shaderkit.formats.registry import detect

    spec = detect(data)
    if spec is None:
        return SKIPPED, "not a shader format", None
    try:
        model = spec.parse(data)
        if isinstance(model, IdentifiedFile):
            return SKIPPED, f"{model.kind}: not read", None
    except ShaderFormatError as exc:
        return FAILED, str(exc), None
    except Exception as exc:  # a bug in shaderkit: report it as a failure of this file
        return FAILED, f"internal error {type(exc).__name__}: {exc}", None
    return (*check_model(data, model), model)


def check_model(data: bytes, model: Any) -> tuple[str, str]:
    """(status, reason) for a model read from ``data``: it rebuilds ``data`` and has no problems."""

    try:
        rebuilt = model.to_bytes()
        problems = model.problems() if rebuilt == data else []
    except ShaderFormatError as exc:
        return FAILED, str(exc)
    except Exception as exc:  # a bug in shaderkit: report it as a failure of this file
        return FAILED, f"internal error {type(exc).__name__}: {exc}"
    if rebuilt != data:
        from shaderkit.io.compare import first_difference

        diff = first_difference(rebuilt, data)
        return FAILED, f"rebuild differs at offset 0x{diff:x} ({len(rebuilt)} bytes vs {len(data)})"
    if problems:
        return FAILED, "; ".join(problems)
    return PASSED, ""


def _check_chunk(names: list[str]) -> list[list[tuple[str, str, str]]]:
    """One worker task: a run of files, so the pool's per-task cost is paid per chunk, not per file."""
    return [checks_of(name) for name in names]


#: below this many files per worker, starting the workers costs more than they save: run serially.
MIN_FILES_PER_WORKER = 32
#: fork the workers ourselves where fork is safe and the default (Linux); elsewhere the standard pool.
FORK_WORKERS = hasattr(os, "fork") and sys.platform.startswith("linux")
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
def checked(files: list[str], jobs: int) -> Iterator[Iterator[list[tuple[str, str, str]]]]:
    """The (name, status, reason) rows of every file in order (:func:`checks_of`: one list per
    file), with up to ``jobs`` worker processes (never more than the usable CPUs, and none for few
    files).

    Files are checked here until one is read (not skipped) before the workers start, so the modules
    its format needs are imported once and inherited by the forked workers; the rest goes out in
    contiguous chunks. The workers exist once this is entered, so threads started afterwards (a
    progress bar) are never forked.
    """
    workers, chunk = parallel_plan(len(files), min(jobs, _usable_cpus()))
    if workers == 1:
        yield map(checks_of, files)
        return
    first: list[list[tuple[str, str, str]]] = []
    for name in files[:MIN_FILES_PER_WORKER]:
        first.append(checks_of(name))
        if any(row[1] != SKIPPED for row in first[-1]):
            break
    rest = files[len(first) :]
    chunks = [rest[i : i + chunk] for i in range(0, len(rest), chunk)]
    if FORK_WORKERS:
        with _ForkedWorkers(chunks, workers) as pool:
            yield chain(first, pool.results())
        return
    from concurrent.futures import ProcessPoolExecutor  # elsewhere: the standard pool (spawned workers)

    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield chain(first, chain.from_iterable(pool.map(_check_chunk, chunks)))


class _ForkedWorkers:
    """Forked workers, chunk ``i`` going to worker ``i % count``; each sends its chunks' results
    through a pipe (length-prefixed ``marshal`` data), read back in chunk order.

    Lighter than ``concurrent.futures`` (whose import alone costs about as much CPU as checking a
    hundred small files): no pickling, no manager thread, no per-task messages.
    """

    def __init__(self, chunks: list[list[str]], count: int) -> None:
        self.chunks = chunks
        self.count = count
        self.readers: list[BinaryIO] = []
        self.pids: list[int] = []

    def __enter__(self) -> _ForkedWorkers:
        sys.stdout.flush()
        sys.stderr.flush()
        for worker in range(self.count):
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns into the caller's code
                status = 1
                try:
                    os.close(read_fd)
                    for reader in self.readers:
                        reader.close()
                    with os.fdopen(write_fd, "wb") as out:
                        for chunk in self.chunks[worker :: self.count]:
                            data = marshal.dumps(_check_chunk(chunk))
                            out.write(len(data).to_bytes(8, "little") + data)
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_fd)
            self.readers.append(os.fdopen(read_fd, "rb"))
            self.pids.append(pid)
        return self

    def results(self) -> Iterator[list[tuple[str, str, str]]]:
        for index in range(len(self.chunks)):
            reader = self.readers[index % self.count]
            head = reader.read(8)
            data = reader.read(int.from_bytes(head, "little")) if len(head) == 8 else b""
            if not data:
                raise ShaderkitError(f"verify worker {index % self.count} ended early")
            yield from marshal.loads(data)

    def __exit__(self, *exc: object) -> None:
        for reader in self.readers:
            reader.close()  # a worker still writing (early exit) gets EPIPE and ends
        for pid in self.pids:
            os.waitpid(pid, 0)


def _report(results: Iterator[list[tuple[str, str, str]]], total: int, show_progress: bool,
            as_json: bool) -> dict[str, int]:
    """Print each result as it comes (failures, or every file and shader inside one as JSON); the
    counts by status. The progress bar counts the ``total`` files."""
    if as_json:
        import json
    counts = {PASSED: 0, FAILED: 0, SKIPPED: 0}
    progress = None
    if show_progress:
        from rich.console import Console
        from rich.progress import Progress

        progress = Progress(console=Console(stderr=True), transient=True)
        task = progress.add_task("verifying", total=total)
        progress.start()
    try:
        for rows in results:
            for name, status, reason in rows:
                counts[status] += 1
                if as_json:
                    echo(json.dumps({"file": name, "status": status, "reason": reason}))
                elif status == FAILED:
                    echo(f"{name}: {reason}")
            if progress is not None:
                progress.advance(task)
    finally:
        if progress is not None:
            progress.stop()
    return counts


def verify_targets(paths: tuple[str, ...] | list[str]) -> list[str]:
    """The files ``verify`` checks for ``paths``: files named, the files below folders named, then
    archive members (``pack.szs//dir/file``, when no such plain path exists)."""
    members = [p for p in paths if "//" in p and not os.path.exists(p)]
    named = [p for p in paths if p not in members]
    if all(_spelled_as_pathlib_prints(p) and os.path.exists(p) and not os.path.isdir(p) for p in named):
        return named + members  # files only, each name as str(Path(name)) gives it: pathlib stays unloaded
    from shaderkit.cli.common import walk_paths

    return [str(p) for p in walk_paths(tuple(named))] + members


def _spelled_as_pathlib_prints(name: str) -> bool:
    """True when ``str(Path(name)) == name`` surely holds: a POSIX name without empty parts (``a//b``,
    a trailing ``/``) or ``.`` parts, which are the only ones ``Path`` drops."""
    return (os.sep == "/" and os.altsep is None and name != "" and "//" not in name and not name.endswith("/")
            and "." not in name.split("/"))


def verify_files(files: list[str], jobs: int = 1, as_json: bool = False, show_progress: bool = False) -> int:
    """Check ``files`` (paths, or ``pack.szs//member`` names) and print what ``shaderkit verify``
    prints; the exit status (1 when a file failed)."""
    with checked(files, jobs) as results:
        counts = _report(results, len(files), show_progress, as_json)
    if as_json:
        import json

        echo(json.dumps({"summary": counts}))
    else:
        line = f"{counts[PASSED]} passed, {counts[FAILED]} failed"
        if counts[SKIPPED]:
            line += f", {counts[SKIPPED]} skipped"
        echo(line)
    return 1 if counts[FAILED] else 0

from __future__ import annotations

import json
import os
import sys
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
    """(status, reason) for one file's bytes: parse, rebuild, compare, integrity checks."""
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


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--jobs", "-j", default=1, show_default=True, help="Worker processes.")
@click.option("--json", "as_json", is_flag=True, help="JSON Lines: one object per file, then a summary object.")
def verify(paths: tuple[str, ...], jobs: int, as_json: bool) -> None:
    """Parse, rebuild and compare every file under PATHS; exit 1 if any fails."""
    members = [p for p in paths if "//" in p and not os.path.exists(p)]  # pack.szs//dir/file
    files = [str(p) for p in walk_paths(tuple(p for p in paths if p not in members))] + members
    counts = {PASSED: 0, FAILED: 0, SKIPPED: 0}
    show_progress = sys.stderr.isatty() and not os.environ.get("CI") and not as_json and len(files) > 1
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_check_named, files, chunksize=8)
    else:
        pool = None
        results = map(_check_named, files)
    progress = None
    if show_progress:
        from rich.console import Console
        from rich.progress import Progress

        progress = Progress(console=Console(stderr=True), transient=True)
        task = progress.add_task("verifying", total=len(files))
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
        if pool is not None:
            pool.shutdown()
    if as_json:
        click.echo(json.dumps({"summary": counts}))
    else:
        line = f"{counts[PASSED]} passed, {counts[FAILED]} failed"
        if counts[SKIPPED]:
            line += f", {counts[SKIPPED]} skipped"
        click.echo(line)
    if counts[FAILED]:
        raise click.exceptions.Exit(1)

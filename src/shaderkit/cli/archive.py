"""``ls``, ``get``, ``put`` and ``scan``: members of archives and every shader of a game dump."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from typing import Any

import click

from shaderkit.cli.common import load_member, read_input, store_member, write_output
from shaderkit.schemas import SCHEMA_VERSION


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per member.")
def ls(file: str, as_json: bool) -> None:
    """List the members of FILE (SZS, zstd, SARC, BFRES, BFSHA, RPX/RPL, fx_2_0 effects; of a file of
    unknown format, the shaders inside it) recursively, with their formats."""
    from shaderkit.formats.archive.path import walk

    _, data = load_member(file)
    for item in walk(data, file):
        if as_json:
            record = {"path": item.path, "format": item.format, "size": item.size}
            click.echo(json.dumps({**record, "error": item.error} if item.error else record))
        else:
            note = f"  ({item.error})" if item.error else ""
            click.echo(f"{item.format:<14} {item.size:>10}  {item.path}{note}")


@click.command()
@click.argument("member")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
def get(member: str, output: str) -> None:
    """Write the bytes of MEMBER (``pack.szs//dir/file``) to OUTPUT."""
    write_output(output, load_member(member)[1])


@click.command()
@click.argument("member")
@click.argument("data_path", metavar="DATA")
@click.option("-o", "--output", required=True, help="Where to write the whole outer file.")
def put(member: str, data_path: str, output: str) -> None:
    """Replace MEMBER (``pack.szs//dir/file``) with the bytes of DATA; write the outer file, recompressed."""
    steps, _ = load_member(member)
    if not steps:
        raise click.UsageError(f"{member}: name a member, as in pack.szs//dir/file")
    write_output(output, store_member(member, steps, read_input(data_path)))


def _dask_client(address: str, jobs: int) -> Any:
    from shaderkit.errors import UnsupportedOperation

    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UnsupportedOperation("--dask needs the 'distributed' package: pip install 'shaderkit[dask]'") from None
    if address == "local":
        return Client(LocalCluster(n_workers=jobs, threads_per_worker=1, dashboard_address=None))
    try:
        return Client(address, timeout=30)
    except OSError as exc:
        raise UnsupportedOperation(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def _record(path: str, fmt: str, data: bytes, model: Any = None, stage: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "path": path,
        "format": fmt,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if stage is not None:
        out["stage"] = stage
    if model is not None:
        summary = model.summary()
        out["summary"] = {k: v for k, v in summary.items()
                          if k != "format" and isinstance(v, (str, int, float, bool))}
    return out


def scan_bytes(path: str, data: bytes) -> list[dict[str, Any]]:
    """One record per shader in ``data`` and in every archive inside it; errors become records."""
    from shaderkit.errors import ShaderkitError
    from shaderkit.formats.archive.path import has_text, kind_of, walk
    from shaderkit.formats.registry import detect

    records: list[dict[str, Any]] = []

    def visit(name: str, blob: bytes, fmt: str | None) -> None:
        spec = detect(blob)
        if spec is None or not has_text(kind_of(blob) or spec.name):  # (archives, executables: what they hold)
            return
        try:
            model = spec.parse(blob)
        except ShaderkitError as exc:
            records.append({**_record(name, spec.name, blob), "error": str(exc)})
            return
        records.append(_record(name, fmt or (model.format_name if spec.target else spec.name), blob, model))

    visit(path, data, None)
    try:
        for item in walk(data, path):
            if item.error:
                records.append({**_record(item.path, item.format, item.data), "error": item.error})
            elif item.format == "gx2-microcode":
                stage = item.path.rsplit("/", 1)[-1]
                records.append(_record(item.path, item.format, item.data, stage=stage))
            else:
                visit(item.path, item.data, None)
    except ShaderkitError as exc:
        records.append({"schema_version": SCHEMA_VERSION, "path": path, "error": str(exc)})
    except Exception as exc:  # a bug in shaderkit: recorded against this file, never fatal
        records.append({"schema_version": SCHEMA_VERSION, "path": path,
                        "error": f"internal error {type(exc).__name__}: {exc}"})
    return records


def scan_file(path: str, name: str | None = None) -> list[dict[str, Any]]:
    """The records of the file at ``path``, reported under ``name`` (default: the path)."""
    shown = path if name is None else name
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return [{"schema_version": SCHEMA_VERSION, "path": shown, "error": f"cannot read: {exc.strerror}"}]
    try:
        return scan_bytes(shown, data)
    except Exception as exc:  # never fatal: one error record for the file
        return [{"schema_version": SCHEMA_VERSION, "path": shown,
                 "error": f"internal error {type(exc).__name__}: {exc}"}]


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=1), help="Worker processes.")
@click.option("-o", "--output", default="-", help="Where to write the JSON lines ('-' = standard output).")
@click.option("--dask", "dask_address", default=None, metavar="ADDRESS",
              help="Run on a Dask cluster (dask.distributed scheduler address, or 'local' for a local "
                   "cluster of --jobs workers). Workers read the files by path: share the dump with them.")
def scan(paths: tuple[str, ...], jobs: int, output: str, dask_address: str | None) -> None:
    """Find every shader under PATHS, inside archives too: one JSON line each, a summary at the end."""
    from shaderkit.cli.common import walk_paths

    found = walk_paths(paths)
    files = [str(p) for p in found]
    sink = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")  # noqa: SIM115
    counts: Counter[str] = Counter()
    errors = 0
    show_progress = sys.stderr.isatty() and not os.environ.get("CI") and len(files) > 1
    pool = None
    client = None
    if dask_address:
        client = _dask_client(dask_address, jobs)
        # workers may run elsewhere: give them absolute paths, report the names as given
        futures = client.map(scan_file, [str(p.resolve()) for p in found], files, pure=False)
        results: Any = (future.result() for future in futures)
    elif jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(scan_file, files, chunksize=4)
    else:
        results = map(scan_file, files)
    progress = None
    if show_progress:
        from rich.console import Console
        from rich.progress import Progress

        progress = Progress(console=Console(stderr=True), transient=True)
        task = progress.add_task("scanning", total=len(files))
        progress.start()
    try:
        for records in results:
            for record in records:
                sink.write(json.dumps(record) + "\n")
                if "error" in record:
                    errors += 1
                else:
                    counts[record["format"]] += 1
            if progress is not None:
                progress.update(task, advance=1, description=f"scanning: {sum(counts.values())} shaders")
    finally:
        if progress is not None:
            progress.stop()
        if pool is not None:
            pool.shutdown()
        if client is not None:
            cluster = client.cluster if dask_address == "local" else None
            client.close()
            if cluster is not None:
                cluster.close()
        if sink is not sys.stdout:
            sink.close()
    click.echo(f"{len(files)} files, {sum(counts.values())} shaders, {errors} errors", err=True)
    for fmt, count in sorted(counts.items()):
        click.echo(f"  {fmt:<16} {count:>7}", err=True)

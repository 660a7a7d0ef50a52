"""File I/O and small helpers shared by the commands (cli/ is the only place doing I/O)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from shaderkit.formats.base import ShaderFile


def echo(line: str, err: bool = False) -> None:
    """``line`` and a newline on standard output (or error), flushed, as ``click.echo`` writes it:
    ANSI escape sequences are dropped when the stream is not a terminal."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in line and not stream.isatty():
        import re

        line = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", line)
    stream.write(line + "\n")
    stream.flush()


def read_input(path: str) -> bytes:
    """Bytes of ``path``; ``-`` reads standard input."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def write_output(path: str, data: bytes | str) -> None:
    """Write to ``path`` (``-`` is standard output), creating parent folders."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path == "-":
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        return
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(raw)


def load_model(path: str) -> ShaderFile:
    """Parse the file (or archive member ``outer.szs//inner/path``) at ``path``; errors name the path."""
    from shaderkit.errors import ShaderFormatError

    try:
        data = load_member(path)[1]
    except ShaderFormatError as exc:
        context = f"{path}: {exc.context}" if exc.context else path
        raise ShaderFormatError(exc.message, exc.offset, context) from None
    return parse_named(path, data)


def parse_named(path: str, data: bytes) -> ShaderFile:
    """Parse ``data`` read from ``path``; errors name the path."""
    import shaderkit
    from shaderkit.errors import ShaderFormatError

    try:
        return shaderkit.open(data)
    except ShaderFormatError as exc:
        context = f"{path}: {exc.context}" if exc.context else path
        raise ShaderFormatError(exc.message, exc.offset, context) from None


def load_member(path: str) -> tuple[list[Any], bytes]:
    """(steps through the containers, bytes) of ``path``; a plain file takes no steps."""
    if "//" not in path:  # a plain file: the archive code stays unloaded
        return [], read_input(path)
    from shaderkit.formats.archive.path import SEPARATOR, resolve, split

    file_name, members = split(path)
    if members and path != "-":
        # a plain path that merely contains "//" (dir//file.gsh) names the file, not a member
        parts = path.split(SEPARATOR)
        for k in range(len(parts), 0, -1):
            candidate = SEPARATOR.join(parts[:k])
            if os.path.isfile(candidate):
                file_name, members = candidate, [p for p in parts[k:] if p]
                break
    data = read_input(file_name)
    if not members:
        return [], data
    return resolve(data, members)


def store_member(path: str, steps: list[Any], data: bytes) -> bytes:
    """The outermost file of ``path`` with ``data`` put back in place of its member."""
    from shaderkit.formats.archive.path import write_back

    return write_back(steps, data) if steps else data


def walk_paths(paths: tuple[str, ...]) -> list[Path]:
    """Files named, plus every file below each folder named (sorted, recursive)."""
    from pathlib import Path

    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file()))
        elif path.exists():
            found.append(path)
        else:
            import click

            raise click.BadParameter(f"{name}: no such file or folder", param_hint="PATH")
    return found


def load_with_bytes(path: str) -> tuple[bytes, Any]:
    """(bytes, model) of ``path`` (or archive member ``outer.szs//inner``); errors name the path."""
    from shaderkit.errors import ShaderFormatError

    try:
        data = load_member(path)[1]
    except ShaderFormatError as exc:
        context = f"{path}: {exc.context}" if exc.context else path
        raise ShaderFormatError(exc.message, exc.offset, context) from None
    return data, parse_named(path, data)


def info_record(data: bytes, model: Any) -> dict[str, Any]:
    """The ``info --json`` object: ``schema_version`` first, then the model's summary, plus names
    other tools use (``3dmigoto_hash`` for DXBC). Documented in docs/json.md."""
    from shaderkit.schemas import SCHEMA_VERSION

    record: dict[str, Any] = {"schema_version": SCHEMA_VERSION, **model.summary()}
    if record.get("format") == "dxbc":
        from shaderkit.hashes import migoto_hash

        record["3dmigoto_hash"] = migoto_hash(data, record.get("shader_type"))
    return record

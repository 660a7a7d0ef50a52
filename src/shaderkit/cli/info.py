"""``shaderkit info``: what a file holds, as folding text blocks or as ``--json`` (docs/json.md)."""

from __future__ import annotations

import json
from typing import Any

import click

from shaderkit.cli.common import load_member, parse_named


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


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (schema: docs/json.md).")
@click.option("--width", type=click.IntRange(40, 1000), default=None, help="Columns to fit (default: the terminal's).")
def info(file: str, as_json: bool, width: int | None) -> None:
    """Show what is inside FILE: format, version, sections, entry points and reflection."""
    data, model = load_with_bytes(file)
    record = info_record(data, model)
    if as_json:
        click.echo(json.dumps(record, indent=2))
        return
    from rich.console import Console

    from shaderkit.cli.render import render

    record.pop("schema_version")
    console = Console(width=width)
    console.print(f"{file} ({model.format_name})", style="bold", markup=False, overflow="fold")
    render(record, console)

"""``shaderkit info``: what a file holds, as folding text blocks or as ``--json`` (docs/json.md)."""

from __future__ import annotations

import click

from shaderkit.cli.common import info_record, load_with_bytes  # noqa: F401 (info_record: used by tests)


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (schema: docs/json.md).")
@click.option("--width", type=click.IntRange(40, 1000), default=None, help="Columns to fit (default: the terminal's).")
def info(file: str, as_json: bool, width: int | None) -> None:
    """Show what is inside FILE: format, version, sections, entry points and reflection."""
    from shaderkit.cli.render import show_info

    show_info(file, as_json, width)

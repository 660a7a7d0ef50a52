from __future__ import annotations

import json

import click

from shaderkit.cli.common import load_model


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--width", type=click.IntRange(40, 1000), default=None, help="Columns to fit (default: the terminal's).")
def info(file: str, as_json: bool, width: int | None) -> None:
    """Show what is inside FILE: format, version, sections, entry points and reflection."""
    model = load_model(file)
    summary = model.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    from rich.console import Console

    from shaderkit.cli.render import render

    console = Console(width=width)
    console.print(f"{file} ({model.format_name})", style="bold", markup=False, overflow="fold")
    render(summary, console)

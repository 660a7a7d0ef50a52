from __future__ import annotations

import click

from shaderkit.cli.common import load_model, write_output


@click.command()
@click.argument("file")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
@click.option("--fix-checksum", is_flag=True, help="Write the computed checksum (formats that have one).")
@click.option("--relayout", is_flag=True, help="Lay the file out again from the model (BNSH).")
def rebuild(file: str, output: str, fix_checksum: bool, relayout: bool) -> None:
    """Parse FILE and write it back from the model."""
    model = load_model(file)
    if fix_checksum:
        fix = getattr(model, "fix_checksum", None)
        if fix is None:
            raise click.UsageError(f"{model.format_name} files have no checksum")
        fix()
    if relayout:
        relayout_bytes = getattr(model, "relayout", None)
        if relayout_bytes is None:
            raise click.UsageError(f"{model.format_name} files have no relayout mode")
        write_output(output, relayout_bytes())
        return
    write_output(output, model.to_bytes())

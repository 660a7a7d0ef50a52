from __future__ import annotations

import click

from shaderkit.cli.common import load_member, parse_named, store_member, write_output


@click.command()
@click.argument("file")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
@click.option("--fix-checksum", is_flag=True, help="Write the computed checksum (formats that have one).")
@click.option("--relayout", is_flag=True, help="Lay the file out again from the model (BNSH).")
def rebuild(file: str, output: str, fix_checksum: bool, relayout: bool) -> None:
    """Parse FILE and write it back from the model.

    For an archive member (``pack.szs//dir/file``) the whole outer file is written, recompressed.
    """
    steps, data = load_member(file)
    model = parse_named(file, data)
    if fix_checksum:
        fix = getattr(model, "fix_checksum", None)
        if fix is None:
            raise click.UsageError(f"{model.format_name} files have no checksum")
        fix()
    if relayout:
        relayout_bytes = getattr(model, "relayout", None)
        if relayout_bytes is None:
            raise click.UsageError(f"{model.format_name} files have no relayout mode")
        write_output(output, store_member(file, steps, relayout_bytes()))
        return
    write_output(output, store_member(file, steps, model.to_bytes()))

"""``shaderkit rebuild``: parse a file and write the model back (``--fix-checksum`` for DXBC)."""

from __future__ import annotations

import sys

import click

from shaderkit.cli.common import load_member, parse_named, store_member, write_output


@click.command()
@click.argument("file")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
@click.option("--fix-checksum", is_flag=True, help="Write the computed checksum (formats that have one).")
@click.option("--relayout", is_flag=True, help="Lay the file out again from the model (BNSH; DKSH: as uam lays it out).")
def rebuild(file: str, output: str, fix_checksum: bool, relayout: bool) -> None:
    """Parse FILE and write it back from the model.

    Without options the model is unedited, so the bytes written must be FILE itself; when they
    are not (a shaderkit bug), nothing is written and the exit status is 1. For an archive member
    (``pack.szs//dir/file``) the whole outer file is written, recompressed.
    """
    steps, data = load_member(file)
    model = parse_named(file, data, steps)
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
    out = model.to_bytes()
    if not fix_checksum and out != data:
        from shaderkit.io.compare import first_difference

        first = first_difference(out, data)
        click.echo(f"error: {file}: the unedited {model.format_name} model does not rebuild its input "
                   f"(first difference at {first:#x}; {len(data)} -> {len(out)} bytes); nothing written "
                   "(this is a shaderkit bug: please report it)", err=True)
        sys.exit(1)
    write_output(output, store_member(file, steps, out))

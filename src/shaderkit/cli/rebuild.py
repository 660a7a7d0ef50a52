from __future__ import annotations

import sys

import click

from shaderkit.cli.common import read_input, write_output


@click.command()
@click.argument("file")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
@click.option("--fix-checksum", is_flag=True, help="Write the computed checksum (formats that have one).")
@click.option("--relayout", is_flag=True, help="Lay the file out again from the model (BNSH).")
def rebuild(file: str, output: str, fix_checksum: bool, relayout: bool) -> None:
    """Parse FILE and write it back from the model.

    Without options the model is unedited, so the bytes written must be FILE itself; when they
    are not (a shaderkit bug), nothing is written and the exit status is 1.
    """
    import shaderkit
    from shaderkit.errors import ShaderFormatError

    data = read_input(file)
    try:
        model = shaderkit.open(data)
    except ShaderFormatError as exc:
        context = f"{file}: {exc.context}" if exc.context else file
        raise ShaderFormatError(exc.message, exc.offset, context) from None
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
    out = model.to_bytes()
    if not fix_checksum and out != data:
        first = next((i for i, (a, b) in enumerate(zip(out, data)) if a != b), min(len(out), len(data)))
        click.echo(f"error: {file}: the unedited {model.format_name} model does not rebuild its input "
                   f"(first difference at {first:#x}; {len(data)} -> {len(out)} bytes); nothing written "
                   "(this is a shaderkit bug: please report it)", err=True)
        sys.exit(1)
    write_output(output, out)

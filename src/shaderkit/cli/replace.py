"""``shaderkit replace``: put new stage code into a BNSH (laid out again) or a GSH, SHARCFB or
Wii U BFSHA (everything else stays in place)."""

from __future__ import annotations

import click

from shaderkit.cli.common import load_member, parse_named, read_input, store_member, write_output
from shaderkit.cli.extract import LAYOUT_HELP, load_stage_model, stage_options


@click.command(epilog=LAYOUT_HELP)
@click.argument("file")
@stage_options
@click.option("--data", "data_path", required=True, help="New stage code, laid out as `extract` writes it.")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
def replace(file: str, variation: int, stage: str, kind: str, name: str | None, data_path: str, output: str) -> None:
    """Replace one stage's code in FILE (BNSH, GSH, SHARCFB, Wii U BFSHA) and write the file to OUTPUT
    (a BNSH is laid out again only when the code's size changed).

    For an archive member (``pack.szs//dir/file``) the whole outer file is written, recompressed.
    """
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.gx2.programs import replace_program

    steps, original = load_member(file)
    model = load_stage_model(file, kind, name, parse_named(file, original))
    blob = read_input(data_path)
    try:
        if isinstance(model, Bnsh):
            model.replace(variation, stage, blob, kind)
            data = model.to_bytes()  # same size: every structure stays where it lay
        else:
            new = replace_program(model, variation, stage, blob, name)
            assert new is not None
            data = new
    except (IndexError, KeyError, ValueError) as exc:
        raise click.UsageError(str(exc).strip("'\"")) from None
    write_output(output, store_member(file, steps, data))

"""``shaderkit replace``: put new stage code into a BNSH and lay the file out again."""

from __future__ import annotations

import click

from shaderkit.cli.common import read_input, write_output
from shaderkit.cli.extract import LAYOUT_HELP, load_bnsh, stage_options


@click.command(epilog=LAYOUT_HELP)
@click.argument("file")
@stage_options
@click.option("--data", "data_path", required=True, help="New stage code, laid out as `extract` writes it.")
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
def replace(file: str, variation: int, stage: str, kind: str, data_path: str, output: str) -> None:
    """Replace one stage's code in FILE (a BNSH) and write the file to OUTPUT (laid out again only
    when the code's size changed)."""
    model = load_bnsh(file)
    blob = read_input(data_path)
    try:
        model.replace(variation, stage, blob, kind)
    except (IndexError, KeyError) as exc:
        raise click.UsageError(str(exc).strip("'\"")) from None
    # unchanged sizes keep every structure where it lay; a resized stage lays the file out afresh
    write_output(output, model.to_bytes())

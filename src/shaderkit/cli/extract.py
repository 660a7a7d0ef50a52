"""``shaderkit extract``: write one stage's code out of a BNSH."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from shaderkit.cli.common import load_model, write_output
from shaderkit.formats.bnsh.model import STAGES

if TYPE_CHECKING:
    from shaderkit.formats.bnsh.bnsh import Bnsh

F = TypeVar("F", bound=Callable[..., Any])

#: The program kinds of a variation, the default (binary) first.
PROGRAM_KINDS = ("binary", "source", "intermediate_language")

LAYOUT_HELP = """
\b
Layout of the output:
  binary program   u32 control size, u32 data size (both little-endian), then the
                   GLSLC control section, then the data (0x30-byte NVN header,
                   0x50-byte shader program header, Maxwell code)
  source program   the source text (decompressed when the file stores it zlib-packed)
  source array     the source texts joined by NUL bytes
`shaderkit replace` takes the same layout.
"""


def load_bnsh(file: str) -> Bnsh:
    """The Bnsh model of FILE, or a usage error for other formats."""
    from shaderkit.formats.bnsh.bnsh import Bnsh

    model = load_model(file)
    if not isinstance(model, Bnsh):
        raise click.UsageError(f"{file}: a {model.format_name} file, not BNSH")
    return model


def stage_options(func: F) -> F:
    """Add the --variation, --stage and --program options that pick one BNSH stage."""
    func = click.option("--program", "kind", type=click.Choice(PROGRAM_KINDS), default="binary",
                        show_default=True, help="Which program of the variation.")(func)
    func = click.option("--stage", required=True, type=click.Choice(STAGES), help="Shader stage.")(func)
    func = click.option("--variation", default=0, show_default=True, type=click.IntRange(min=0),
                        help="Variation index.")(func)
    return func


@click.command(epilog=LAYOUT_HELP)
@click.argument("file")
@stage_options
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
def extract(file: str, variation: int, stage: str, kind: str, output: str) -> None:
    """Write the code of one stage of FILE (a BNSH) to OUTPUT."""
    model = load_bnsh(file)
    try:
        blob = model.extract(variation, stage, kind)
    except (IndexError, KeyError) as exc:
        raise click.UsageError(str(exc).strip("'\"")) from None
    write_output(output, blob)

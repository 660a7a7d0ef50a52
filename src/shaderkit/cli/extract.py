"""``shaderkit extract``: write one stage's code out of a BNSH, GSH, SHARCFB or Wii U BFSHA."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from shaderkit.cli.common import load_model, write_output
from shaderkit.formats.bnsh.model import STAGES

if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile
    from shaderkit.formats.bnsh.bnsh import Bnsh

F = TypeVar("F", bound=Callable[..., Any])

#: The program kinds of a variation, the default (binary) first.
PROGRAM_KINDS = ("binary", "source", "intermediate_language")

LAYOUT_HELP = """
\b
BNSH: --variation is the variation index; the output is laid out as
  binary program   u32 control size, u32 data size (both little-endian), then the
                   GLSLC control section, then the data (0x30-byte NVN header,
                   0x50-byte shader program header, Maxwell code)
  source program   the source text (decompressed when the file stores it zlib-packed)
  source array     the source texts joined by NUL bytes
\b
Wii U (--stage vertex, pixel or geometry; the output is the raw Latte microcode):
  GSH        --variation N: the N-th shader of that stage in file order
  SHARCFB    --name PROGRAM --variation N: variation N of PROGRAM (the number
             `shaderkit variation` prints); without --name, the N-th binary of
             that stage in file order
  BFSHA      --name MODEL --variation N: program N of shading model MODEL
             (--name may be left out when there is one model)
`shaderkit replace` takes the same layout.
"""


def load_bnsh(file: str) -> Bnsh:
    """The Bnsh model of FILE, or a usage error for other formats."""
    from shaderkit.formats.bnsh.bnsh import Bnsh

    model = load_model(file)
    if not isinstance(model, Bnsh):
        raise click.UsageError(f"{file}: a {model.format_name} file, not BNSH")
    return model


def load_stage_model(file: str, kind: str, name: str | None, model: ShaderFile | None = None) -> ShaderFile:
    """The model of FILE when it is a BNSH or a Wii U file; a usage error for other formats and
    for options that do not apply to it."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.gx2.programs import is_wiiu

    if model is None:
        model = load_model(file)
    if isinstance(model, Bnsh):
        if name is not None:
            raise click.UsageError("--name is for SHARCFB programs and BFSHA shading models, not BNSH")
        return model
    if is_wiiu(model):
        if kind != "binary":
            raise click.UsageError(f"a {model.format_name} file holds only binary programs")
        return model
    raise click.UsageError(f"{file}: a {model.format_name} file, not BNSH, GSH, SHARCFB or Wii U BFSHA")


def stage_options(func: F) -> F:
    """Add the --variation, --stage, --program and --name options that pick one stage's code."""
    func = click.option("--name", default=None, metavar="NAME",
                        help="SHARCFB program or BFSHA shading model (Wii U only).")(func)
    func = click.option("--program", "kind", type=click.Choice(PROGRAM_KINDS), default="binary",
                        show_default=True, help="Which program of the variation (BNSH).")(func)
    func = click.option("--stage", required=True, type=click.Choice(STAGES), help="Shader stage.")(func)
    func = click.option("--variation", default=0, show_default=True, type=click.IntRange(min=0),
                        help="Variation index (see below for Wii U files).")(func)
    return func


@click.command(epilog=LAYOUT_HELP)
@click.argument("file")
@stage_options
@click.option("-o", "--output", required=True, help="Output path ('-' for standard output).")
def extract(file: str, variation: int, stage: str, kind: str, name: str | None, output: str) -> None:
    """Write the code of one stage of FILE (BNSH, GSH, SHARCFB, Wii U BFSHA) to OUTPUT."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.gx2.programs import extract_program

    model = load_stage_model(file, kind, name)
    try:
        if isinstance(model, Bnsh):
            blob = model.extract(variation, stage, kind)
        else:
            code = extract_program(model, variation, stage, name)
            assert code is not None
            blob = code
    except (IndexError, KeyError, ValueError) as exc:
        raise click.UsageError(str(exc).strip("'\"")) from None
    write_output(output, blob)

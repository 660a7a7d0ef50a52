from __future__ import annotations

import os

import click

from shaderkit.cli.common import load_model, write_output
from shaderkit.formats.base import ShaderFile


def _text(model: ShaderFile) -> str:
    """The listing of every program: per-ISA helpers for containers whose code the model keeps raw."""
    from shaderkit.cli.latte_listing import gx2_listing  # Wii U GSH / SHARCFB: Latte with gfd-tool headers
    from shaderkit.cli.maxwell_text import maxwell_listing  # BNSH / NVN: Maxwell code per stage

    for listing in (gx2_listing(model), maxwell_listing(model)):
        if listing is not None:
            return listing
    return model.disassemble()


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", default="-", help="Output file, or a folder when several files are given.")
@click.option("--exact", is_flag=True,
              help="DXBC: print floats so that they read back bit for bit (and the words fxc does not "
                   "print), so `shaderkit asm` rebuilds identical code from the text alone.")
def disasm(files: tuple[str, ...], output: str, exact: bool) -> None:
    """Print the text of every program in FILES (fxc style for DXBC, picasso syntax for PICA200)."""

    def text_of(name: str) -> str:
        model = load_model(name)
        if not exact:
            return _text(model)
        from shaderkit.formats.dxbc.container import DxbcContainer
        from shaderkit.formats.dxbc.disasm import listing

        if not isinstance(model, DxbcContainer):
            raise click.UsageError(f"{name}: --exact applies to DXBC containers")
        text = listing(model, exact=True)
        from shaderkit.formats.dxbc.assemble import exact_text_problems

        for problem in exact_text_problems(model, text):  # the promise is checked, never assumed
            click.echo(f"shaderkit: warning: {name}: {problem}", err=True)
        return text

    if len(files) == 1 and not (output != "-" and os.path.isdir(output)):
        write_output(output, text_of(files[0]))
        return
    if output == "-":
        raise click.UsageError("several inputs need -o DIR")
    os.makedirs(output, exist_ok=True)
    for name in files:
        stem = os.path.basename(name)
        for suffix in (".dxbc", ".shbin", ".bcsdr", ".bnsh", ".sharcfb", ".gsh"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        write_output(os.path.join(output, stem + ".asm"), text_of(name))

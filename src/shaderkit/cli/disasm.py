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
def disasm(files: tuple[str, ...], output: str) -> None:
    """Print the text of every program in FILES (fxc style for DXBC, picasso syntax for PICA200,
    decaf listings with gfd-tool-like headers for Wii U GSH, SHARCFB and BFSHA)."""
    if len(files) == 1 and not (output != "-" and os.path.isdir(output)):
        write_output(output, _text(load_model(files[0])))
        return
    if output == "-":
        raise click.UsageError("several inputs need -o DIR")
    os.makedirs(output, exist_ok=True)
    for name in files:
        stem = os.path.basename(name)
        for suffix in (".dxbc", ".shbin", ".bcsdr", ".bnsh", ".sharcfb", ".gsh", ".bfsha"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        write_output(os.path.join(output, stem + ".asm"), _text(load_model(name)))

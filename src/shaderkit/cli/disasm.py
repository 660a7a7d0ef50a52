"""``shaderkit disasm``: the text of every program in one or many files, with optional offsets, raw words and hex literals."""

from __future__ import annotations

import os
import re

import click

from shaderkit.cli.batch import disasm_file, disasm_files, distinct_stems, expand_inputs, write_file
from shaderkit.cli.common import load_model
from shaderkit.cli.listing import _coloured, format_id, listing_of, use_colour  # noqa: F401 (used by tests)


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", default="-", help="Output file, or a folder when several files are given.")
@click.option("--offsets", is_flag=True,
              help="Show each instruction's byte offset in its program (DXBC, SHBIN, Latte, Maxwell).")
@click.option("--raw", is_flag=True, help="Show each instruction's raw 32-bit words (DXBC, SHBIN, Latte, Maxwell).")
@click.option("--hex", "hex_literals", is_flag=True,
              help="Print literals as their bits in hex: DXBC immediates l(0x3f800000) (fxc /Lx), ICB and "
                   "declaration values; Maxwell float immediates. Reads back with `shaderkit asm`.")
@click.option("--color/--no-color", "color", default=None,
              help="Colour the text (default: only when writing to a terminal).")
@click.option("--split", is_flag=True,
              help="SHBIN/DVLB: one picasso source per DVLE into the folder -o names (NAME.N.v.pica, .g.pica "
                   "for a geometry shader), numbered in the order picasso and `shaderkit asm` take them back.")
@click.option("--exact", is_flag=True,
              help="DXBC: print floats so that they read back bit for bit (and the words fxc does not "
                   "print), so `shaderkit asm` rebuilds identical code from the text alone.")
@click.option("--fxc", "fxc_version", metavar="VERSION", default=None,
              help="DXBC: spell the listing as the disassembler of fxc VERSION does (9.29, 9.30, 6.3, 10.1 ...) "
                   "instead of the compiler the container names; for comparing with listings another fxc "
                   "wrote, e.g. fxc /dumpbin of a container without RDEF (10.x spellings are assumed then).")
def disasm(files: tuple[str, ...], output: str, offsets: bool, raw: bool, color: bool | None, exact: bool,
           hex_literals: bool, split: bool, fxc_version: str | None) -> None:
    """Print the text of every program in FILES (fxc style for DXBC, picasso syntax for PICA200,
    decaf listings with gfd-tool-like headers for Wii U GSH, SHARCFB and BFSHA, SASS for Switch).

    With several FILES, folders (searched for shader files) or -o naming a folder, one NAME.asm is
    written per input into the folder given by -o; a file that cannot be disassembled is reported on
    stderr and the others still are (exit status 1 at the end).
    """
    if split:
        _split(files, output, offsets or raw or exact or hex_literals or fxc_version is not None)
        return
    token = None
    if fxc_version is not None:
        if not re.fullmatch(r"\d+\.\d+(\.\d+)*", fxc_version):
            raise click.BadParameter(f"{fxc_version!r} is not a version such as 9.29 or 10.1", param_hint="--fxc")
        from shaderkit.formats.dxbc.listing import FXC_STYLE

        token = FXC_STYLE.set(f"Microsoft (R) HLSL Shader Compiler {fxc_version}")
    try:
        _listings(files, output, offsets, raw, color, exact, hex_literals)
    finally:
        if token is not None:
            FXC_STYLE.reset(token)


def _listings(files: tuple[str, ...], output: str, offsets: bool, raw: bool, color: bool | None, exact: bool,
              hex_literals: bool) -> None:
    """The listings of :func:`disasm` (with the --fxc spelling in force)."""
    if len(files) == 1 and not os.path.isdir(files[0]) and not (output != "-" and os.path.isdir(output)):
        status = disasm_file(files[0], output, offsets, raw, exact, hex_literals, color)
    elif output == "-":
        raise click.UsageError("several inputs need -o DIR")
    else:
        status = disasm_files(files, output, offsets, raw, exact, hex_literals, color)
    if status:
        raise click.exceptions.Exit(status)


def split_names(stem: str, geometry: list[bool]) -> list[str]:
    """The file names of one SHBIN's per-DVLE sources: ``STEM.N.v.pica`` (``.g.pica`` for a
    geometry shader), N zero-padded so that the names sort in DVLE order."""
    width = len(str(max(len(geometry) - 1, 0)))
    return [f"{stem}.{n:0{width}d}.{'g' if g else 'v'}.pica" for n, g in enumerate(geometry)]


def _split(files: tuple[str, ...], output: str, other_options: bool) -> None:
    """``disasm --split``: every input's DVLEs as separate picasso sources in the folder ``output``."""
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dvlb.dvlb import Dvlb
    from shaderkit.formats.dvlb.source import dvlb_to_sources

    if output == "-":
        raise click.UsageError("--split writes several files: name a folder with -o")
    if other_options:
        raise click.UsageError("--split writes plain picasso sources: no --offsets, --raw, --exact, --hex or --fxc")
    inputs, _ = expand_inputs(files)
    models = []
    for name in inputs:
        model = load_model(name)
        if not isinstance(model, Dvlb):
            raise UnsupportedOperation(f"{name}: --split is for SHBIN/DVLB files")
        models.append(model)
    os.makedirs(output, exist_ok=True)
    for stem, model in zip(distinct_stems(inputs), models):
        targets = split_names(stem, [d.is_geometry for d in model.dvles])
        for target, text in zip(targets, dvlb_to_sources(model)):
            write_file(os.path.join(output, target), text)

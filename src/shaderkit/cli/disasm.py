"""``shaderkit disasm``: the text of every program in one or many files, with optional offsets, raw words and hex literals."""

from __future__ import annotations

import os
import sys

import click

from shaderkit.cli.common import load_model, write_output
from shaderkit.formats.base import ShaderFile

#: file-name endings taken off an input's name before ".asm" goes on (longest first)
KNOWN_SUFFIXES = (
    ".bnsh_vert", ".bnsh_frag", ".bnsh_geom", ".bnsh_comp", ".sharcfb", ".bfsha", ".bcsdr", ".shbin",
    ".bnsh", ".sharc", ".dxbc", ".csdr", ".dvob", ".dvoj", ".bfres", ".cso", ".fxo", ".vso", ".pso",
    ".gsh", ".gtx", ".vsh", ".psh", ".bin", ".szs", ".zs", ".o",
)


#: model modules whose code the model keeps raw, and the CLI helper that lists it
_LISTINGS = {
    "shaderkit.formats.gfd": ("shaderkit.cli.latte_listing", "gx2_listing"),  # Wii U: Latte, gfd-tool headers
    "shaderkit.formats.agl": ("shaderkit.cli.latte_listing", "gx2_listing"),
    "shaderkit.formats.bfsha": ("shaderkit.cli.latte_listing", "gx2_listing"),
    "shaderkit.formats.bnsh": ("shaderkit.cli.maxwell_text", "maxwell_listing"),  # Switch: Maxwell per stage
}


def _text(model: ShaderFile) -> str:
    """The listing of every program: per-ISA helpers for containers whose code the model keeps raw
    (imported only for those models, so other formats start fast)."""
    import importlib

    package = type(model).__module__.rpartition(".")[0]
    helper = _LISTINGS.get(package)
    if helper is not None:
        listing = getattr(importlib.import_module(helper[0]), helper[1])(model)
        if listing is not None:
            return str(listing)
    return model.disassemble()


def _exact_text(model: ShaderFile, hex_literals: bool = False) -> str:
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dxbc.container import DxbcContainer

    if not isinstance(model, DxbcContainer):
        raise UnsupportedOperation("--exact applies to DXBC containers")
    from shaderkit.formats.dxbc.assemble import exact_text_problems
    from shaderkit.formats.dxbc.disasm import listing

    text = listing(model, exact=True, hex_literals=hex_literals)
    for problem in exact_text_problems(model, text):  # the promise is checked, never assumed
        click.echo(f"shaderkit: warning: {problem}", err=True)
    return text


def _hex_text(model: ShaderFile) -> str:
    """DXBC: every literal as hex bits; Maxwell: float immediates as field bits; Latte listings
    print literals as ``(0xBITS, float)`` anyway. PICA200 has no hex form in picasso syntax."""
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dxbc.container import DxbcContainer

    if isinstance(model, DxbcContainer):
        from shaderkit.formats.dxbc.disasm import listing

        return listing(model, hex_literals=True)
    if type(model).__module__.startswith("shaderkit.formats.bnsh"):
        from shaderkit.cli.maxwell_text import maxwell_listing

        text = maxwell_listing(model, hex_literals=True)
        if text is not None:
            return text
    package = type(model).__module__.rpartition(".")[0]
    if _LISTINGS.get(package, ("",))[0] == "shaderkit.cli.latte_listing":
        return _text(model)  # decaf syntax: literals are always (0xBITS, float)
    raise UnsupportedOperation(f"{model.format_name}: --hex applies to DXBC, Latte and Maxwell text "
                               "(picasso syntax has no hex literals; PICA constants print exactly)")


def format_id(model: ShaderFile) -> str:
    """The registry id of ``model``'s format (as ``info --json`` gives it)."""
    return model.format_name


def listing_of(model: ShaderFile, offsets: bool = False, raw: bool = False, exact: bool = False,
               hex_literals: bool = False) -> str:
    """The disassembly of ``model``; with ``offsets``/``raw``, those in a column beside each instruction;
    ``exact``: DXBC text whose floats read back bit for bit; ``hex_literals``: literals as hex bits
    (DXBC immediates, ICB and declaration values; UnsupportedOperation for formats without)."""
    if exact:
        text = _exact_text(model, hex_literals)
    elif hex_literals:
        text = _hex_text(model)
    else:
        text = _text(model)
    if offsets or raw:
        from shaderkit.cli.addresses import annotated_listing

        text = annotated_listing(model, text, offsets, raw, hex_literals)
    return text


def output_stem(name: str) -> str:
    """The base name of input ``name`` without its known shader suffixes (``a/b.cso`` -> ``b``)."""
    stem = os.path.basename(name.rstrip("/").split("//")[-1]) or "shader"
    changed = True
    while changed:
        changed = False
        for suffix in KNOWN_SUFFIXES:
            if stem.lower().endswith(suffix) and len(stem) > len(suffix):
                stem = stem[: -len(suffix)]
                changed = True
                break
    return stem


def output_names(files: tuple[str, ...] | list[str]) -> list[str]:
    """One distinct ``.asm`` name per input, in order: ``STEM.asm``, then ``STEM-2.asm``, ... for
    inputs whose stems are the same (compared without case, for case-insensitive file systems)."""
    taken: set[str] = set()
    names: list[str] = []
    for name in files:
        stem = output_stem(name)
        chosen, n = stem, 2
        while chosen.lower() + ".asm" in taken:
            chosen, n = f"{stem}-{n}", n + 1
        taken.add(chosen.lower() + ".asm")
        names.append(chosen + ".asm")
    return names


def use_colour(choice: bool | None, output: str) -> bool:
    """Colour only on a terminal (and not with NO_COLOR), unless --color/--no-color says otherwise."""
    if choice is not None:
        return choice
    return output == "-" and sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _coloured(text: str, model: ShaderFile) -> str:
    try:
        from shaderkit.highlight import colorize
    except ImportError:  # pygments is optional
        return text
    return colorize(text, format_id(model))


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
@click.option("--exact", is_flag=True,
              help="DXBC: print floats so that they read back bit for bit (and the words fxc does not "
                   "print), so `shaderkit asm` rebuilds identical code from the text alone.")
def disasm(files: tuple[str, ...], output: str, offsets: bool, raw: bool, color: bool | None, exact: bool,
           hex_literals: bool) -> None:
    """Print the text of every program in FILES (fxc style for DXBC, picasso syntax for PICA200,
    decaf listings with gfd-tool-like headers for Wii U GSH, SHARCFB and BFSHA, SASS for Switch).

    With several FILES, folders (searched for shader files) or -o naming a folder, one NAME.asm is
    written per input into the folder given by -o; a file that cannot be disassembled is reported on
    stderr and the others still are (exit status 1 at the end).
    """
    if len(files) == 1 and not os.path.isdir(files[0]) and not (output != "-" and os.path.isdir(output)):
        from shaderkit.errors import UnsupportedOperation

        model = load_model(files[0])
        try:
            text = listing_of(model, offsets, raw, exact, hex_literals)
        except UnsupportedOperation as exc:
            raise UnsupportedOperation(f"{files[0]}: {exc}") from None
        write_output(output, _coloured(text, model) if use_colour(color, output) else text)
        return
    if output == "-":
        raise click.UsageError("several inputs need -o DIR")
    from shaderkit.errors import ShaderkitError

    inputs, skipped = _expand(files)
    os.makedirs(output, exist_ok=True)
    failed = 0
    for name, target in zip(inputs, output_names(inputs)):
        try:
            model = load_model(name)
            text = listing_of(model, offsets, raw, exact, hex_literals)
            write_output(os.path.join(output, target), _coloured(text, model) if color else text)
        except (ShaderkitError, OSError) as exc:
            failed += 1
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            message = reason if reason.startswith(name) else f"{name}: {reason}"
            click.echo(f"shaderkit: {message}", err=True)
    if failed or skipped:
        note = f", {skipped} files in folders skipped (not shaders)" if skipped else ""
        click.echo(f"shaderkit: {len(inputs) - failed} written, {failed} failed{note}", err=True)
    if failed:
        raise click.exceptions.Exit(1)


def _expand(names: tuple[str, ...]) -> tuple[list[str], int]:
    """(inputs, skipped): files named, plus the shader files below each folder named; files in
    folders that are no known format are skipped (counted), files named explicitly never are."""
    from shaderkit.cli.common import walk_paths
    from shaderkit.formats.registry import detect

    inputs: list[str] = []
    skipped = 0
    for name in names:
        if not os.path.isdir(name):
            inputs.append(name)
            continue
        for path in walk_paths((name,)):
            with open(path, "rb") as handle:
                head = handle.read(4096)
            if detect(head) is None:
                skipped += 1
            else:
                inputs.append(str(path))
    unique = list(dict.fromkeys(os.path.normpath(n) if "//" not in n else n for n in inputs))  # named twice: once
    return unique, skipped

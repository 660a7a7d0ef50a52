"""The text ``disasm`` prints for one model (click-free: the fast path of ``shaderkit disasm FILE``
runs it without loading click)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile


#: formats whose text is Maxwell (``--hex`` prints float immediates as field bits) or Latte
MAXWELL_FORMATS = frozenset({"bnsh", "nvn", "dksh"})
LATTE_FORMATS = frozenset({"gsh", "sharcfb", "bfsha-wiiu", "gx2-microcode"})


def _exact_text(model: ShaderFile, hex_literals: bool = False) -> str:
    """DXBC text whose floats read back bit for bit (warnings on stderr where they cannot)."""
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dxbc.container import DxbcContainer

    if not isinstance(model, DxbcContainer):
        raise UnsupportedOperation("--exact applies to DXBC containers")
    from shaderkit.formats.dxbc.assemble import exact_text_problems
    from shaderkit.formats.dxbc.disasm import listing

    text = listing(model, exact=True, hex_literals=hex_literals)
    for problem in exact_text_problems(model, text):  # the promise is checked, never assumed
        print(f"shaderkit: warning: {problem}", file=sys.stderr, flush=True)
    return text


def _hex_text(model: ShaderFile) -> str:
    """DXBC: every literal as hex bits; Maxwell: float immediates as field bits; Latte listings
    print literals as ``(0xBITS, float)`` anyway. PICA200 has no hex form in picasso syntax."""
    from shaderkit.errors import UnsupportedOperation
    from shaderkit.formats.dxbc.container import DxbcContainer

    if isinstance(model, DxbcContainer):
        from shaderkit.formats.dxbc.disasm import listing

        return listing(model, hex_literals=True)
    if model.format_name in MAXWELL_FORMATS:
        from shaderkit.formats.bnsh.text import maxwell_listing

        text = maxwell_listing(model, hex_literals=True)
        if text is not None:
            return text
    if model.format_name in LATTE_FORMATS:
        return model.disassemble()  # decaf syntax: literals are always (0xBITS, float)
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
        text = model.disassemble()
    if offsets or raw:
        from shaderkit.cli.addresses import annotated_listing

        text = annotated_listing(model, text, offsets, raw, hex_literals)
    return text


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

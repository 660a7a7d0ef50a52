"""``shaderkit asm`` for decaf latte-assembler sources (``.vsh`` / ``.psh``): syntax detection
(the same suffixes serve picasso's PICA200 sources) and the GSH written from them."""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: picasso directives (a PICA200 source has at least one)
_PICA = re.compile(r"^\s*\.(proc|end|entry|out|in|fvec|ivec|bool|alias|constf|consti|constfa|setf|seti|setb|"
                   r"gsh|nodvle|else|if|ifu|loop)\b", re.M)
#: decaf metadata comments (``; $MODE = ...``), numbered CF lines and the end marker
_LATTE = re.compile(r"^\s*;\s*\$[A-Za-z_]|^\s*\d+\s+(?:CALL_FS|ALU\w*:|TEX:|VTX\w*:|EXP\w*:|MEM\w*:|"
                    r"LOOP_\w+|JUMP|ELSE|POP|NOP|CALL|RETURN|KILL|EMIT\w*|CUT\w*)\b|END_OF_PROGRAM", re.M)
#: the per-program title lines of a ``shaderkit disasm`` listing
LISTING_TITLE = re.compile(r"^; ==== (?:shaders|binaries)\[\d+\]: ", re.M)
LATTE_SUFFIXES = (".vsh", ".psh", ".latte", ".asm", ".txt")


def looks_like_latte(text: str) -> bool:
    """True for decaf latte-assembler text: Latte CF syntax or ``; $`` metadata, and no picasso
    directive."""
    return _PICA.search(text) is None and _LATTE.search(text) is not None


def source_stage(name: str, text: str) -> str:
    """``vertex`` or ``pixel``: from the suffix (.vsh / .psh), else from the code (a vertex
    program calls the fetch shader and exports POS; a pixel program exports PIX)."""
    lower = name.lower()
    if lower.endswith(".vsh"):
        return "vertex"
    if lower.endswith(".psh"):
        return "pixel"
    if re.search(r"\bCALL_FS\b|\bPOS\d\b|SQ_PGM_RESOURCES_VS|ATTRIB_VARS", text):
        return "vertex"
    if re.search(r"\bPIX\d\b|SQ_PGM_RESOURCES_PS|SQ_PGM_EXPORTS_PS", text):
        return "pixel"
    raise ValueError(f"{name}: cannot tell a vertex from a pixel shader; name it .vsh or .psh")


def apply_to_base(sources: list[tuple[str, bytes]], output: str | None, model: Any,
                  outer: Callable[[bytes], bytes]) -> bool:
    """``asm LISTING --base FILE -o OUT`` for a Wii U base ``model`` (GSH, SHARCFB, BFSHA, a BFSHA
    stage): every program of the edited ``disasm`` listing assembled back into it, the rest of the
    file kept, ``outer`` of its bytes written; False when ``model`` is not a Wii U file."""
    import click

    from shaderkit.cli.common import utf8_text, write_output
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.gx2.programs import apply_listing, is_stage, is_wiiu

    if not is_wiiu(model) and not is_stage(model):
        return False
    if len(sources) != 1 or not output:
        raise click.UsageError("--base takes one listing and needs -o OUT")
    name, data = sources[0]
    text = utf8_text(name, data)
    try:
        apply_listing(model, text)
    except AssemblyError as exc:
        raise exc.moved(filename=name) from None
    write_output(output, outer(model.to_bytes()))
    return True


def assemble_gsh(texts: list[tuple[str, str]]) -> bytes:
    """A complete GSH from at most one vertex and one pixel source, as decaf's latte-assembler
    writes it (shader header and program block each, then the end block)."""
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.gfd.latte_build import build_gsh
    from shaderkit.isa.latte.source import LatteSource, assemble_source

    stages: dict[str, LatteSource] = {}
    for name, text in texts:
        if LISTING_TITLE.search(text):
            raise ValueError(f"{name} is a `shaderkit disasm` listing: assemble it into its file with --base FILE")
        stage = source_stage(name, text)
        if stage in stages:
            raise ValueError(f"{name}: a second {stage} shader (a GSH from sources holds one of each)")
        try:
            stages[stage] = assemble_source(text)
        except AssemblyError as exc:
            raise exc.moved(filename=name) from None
        stages[stage].name = name
    try:
        return build_gsh(stages.get("vertex"), stages.get("pixel")).to_bytes()
    except AssemblyError as exc:  # cross-stage checks have no line of their own
        raise exc.moved(filename=exc.filename or texts[0][0]) from None


def default_output(source: str) -> str:
    """The output name for assembling ``source``: its Latte text suffix replaced by ``.bin`` (``-`` stays stdout)."""
    if source == "-":
        return "-"
    stem = os.path.basename(source)
    for suffix in LATTE_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return os.path.join(os.path.dirname(source), stem + ".gsh")

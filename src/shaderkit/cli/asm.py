from __future__ import annotations

import os

import click

from shaderkit.cli.common import read_input, write_output


def _default_output(source: str) -> str:
    if source == "-":
        return "-"
    stem = os.path.basename(source)
    for suffix in (".pica", ".vsh", ".gsh", ".asm", ".s"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    if stem.lower().endswith((".v", ".g")):
        stem = stem[:-2]
    return os.path.join(os.path.dirname(source), stem + ".shbin")


@click.command()
@click.argument("sources", nargs=-1, required=True)
@click.option("-o", "--output", default=None,
              help="SHBIN to write ('-' for standard output); default: first source with .shbin.")
@click.option("--header", "header", default=None, metavar="FILE",
              help="Also write a C header of uniform locations (like picasso -h).")
@click.option("--base", default=None, metavar="FILE",
              help="Maxwell: BNSH or NVN program blob whose stage code the assembled text replaces. "
                   "Wii U: GSH, SHARCFB or BFSHA whose programs an edited `disasm` listing replaces.")
@click.option("--variation", default=0, show_default=True, help="Maxwell: BNSH variation (NVN blob: part index).")
@click.option("--stage", default="pixel", show_default=True, help="Maxwell: BNSH stage to replace.")
@click.option("--syntax", type=click.Choice(("auto", "pica", "latte")), default="auto", show_default=True,
              help="Source syntax; auto tells decaf Latte sources (CF lines, '; $' metadata) from picasso "
                   "ones (directives). Standard input needs an explicit latte.")
def asm(sources: tuple[str, ...], output: str | None, header: str | None, base: str | None, variation: int,
        stage: str, syntax: str) -> None:
    """Assemble PICA200 SOURCES (picasso syntax) into one SHBIN, one DVLE per source in order.

    A source written by `shaderkit disasm` holds one part per DVLE, separated by
    "; shaderkit: DVLE n" lines; each part becomes its own DVLE.

    Wii U: decaf latte-assembler sources (a .vsh and/or a .psh, with their '; $NAME = value'
    metadata) become one GSH (default output: first source with .gsh).
    """
    if base is not None:
        if not _latte(sources, output, syntax, base):
            _maxwell(sources, output, base, variation, stage)
        return
    if _latte(sources, output, syntax):
        return
    from shaderkit.formats.dvlb.build import assemble_program, program_to_shbin

    texts = [(name if name != "-" else "<stdin>", read_input(name).decode("latin-1")) for name in sources]
    program = assemble_program(texts)
    data = program_to_shbin(program)
    write_output(output or _default_output(sources[0]), data)
    if header:
        write_output(header, program.c_header())


def _maxwell(sources: tuple[str, ...], output: str | None, base: str, variation: int, stage: str) -> None:
    """Maxwell text (``shaderkit disasm`` output of a BNSH/NVN file) assembled into ``base``."""
    from shaderkit.cli.common import load_model
    from shaderkit.cli.maxwell_text import assemble_into

    if len(sources) != 1 or not output:
        raise click.UsageError("--base takes one source and needs -o OUT")
    text = read_input(sources[0]).decode("utf-8")
    try:
        data = assemble_into(load_model(base), text, variation, stage)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    write_output(output, data)


def _latte(sources: tuple[str, ...], output: str | None, syntax: str, base: str | None = None) -> bool:
    """Assemble decaf Latte sources into a GSH when ``--syntax latte`` says so or (auto) every
    source looks like one, or an edited ``disasm`` listing into a Wii U ``base``; False leaves the
    sources to the other syntaxes."""
    from shaderkit.cli.latte_asm import apply_to_base, assemble_gsh, default_output, looks_like_latte

    if base is not None:
        return apply_to_base(sources, output, base)
    if syntax == "pica" or (syntax == "auto" and "-" in sources):
        return False
    texts = [(name if name != "-" else "<stdin>", read_input(name).decode("utf-8", "replace")) for name in sources]
    if syntax == "auto" and not all(looks_like_latte(text) for _, text in texts):
        return False
    try:
        data = assemble_gsh(texts)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    write_output(output or default_output(sources[0]), data)
    return True

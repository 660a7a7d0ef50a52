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
              help="Maxwell: BNSH or NVN program blob whose stage code the assembled text replaces.")
@click.option("--variation", default=0, show_default=True, help="Maxwell: BNSH variation (NVN blob: part index).")
@click.option("--stage", default="pixel", show_default=True, help="Maxwell: BNSH stage to replace.")
def asm(sources: tuple[str, ...], output: str | None, header: str | None, base: str | None, variation: int,
        stage: str) -> None:
    """Assemble PICA200 SOURCES (picasso syntax) into one SHBIN, one DVLE per source in order.

    A source written by `shaderkit disasm` holds one part per DVLE, separated by
    "; shaderkit: DVLE n" lines; each part becomes its own DVLE.
    """
    if base is not None:
        _maxwell(sources, output, base, variation, stage)
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

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
def asm(sources: tuple[str, ...], output: str | None, header: str | None) -> None:
    """Assemble PICA200 SOURCES (picasso syntax) into one SHBIN, one DVLE per source in order.

    A source written by `shaderkit disasm` holds one part per DVLE, separated by
    "; shaderkit: DVLE n" lines; each part becomes its own DVLE.
    """
    from shaderkit.formats.dvlb.build import assemble_program, program_to_shbin

    texts = [(name if name != "-" else "<stdin>", read_input(name).decode("latin-1")) for name in sources]
    program = assemble_program(texts)
    data = program_to_shbin(program)
    write_output(output or _default_output(sources[0]), data)
    if header:
        write_output(header, program.c_header())

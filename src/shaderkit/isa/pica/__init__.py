"""PICA200 (Nintendo 3DS) shader instruction set.

``table`` is the one table; ``decode``/``encode`` read it; ``assembler`` is picasso-compatible and
encodes every word through the table. The SHBIN container and the picasso-syntax printer live in
``shaderkit.formats.dvlb``.

    >>> from shaderkit.isa.pica import assemble
    >>> program = assemble(".out pos position\\n.proc main\\n mov pos, v0\\n end\\n.end\\n")
    >>> [hex(w) for w in program.code]
    ['0x4c000000', '0x88000000']

``shaderkit.formats.dvlb.build.program_to_shbin(program)`` gives the SHBIN bytes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

    from shaderkit.isa.pica.assembler import Program

__all__ = ["Program", "assemble"]


def assemble(text: str, filename: str = "<source>") -> Program:
    """Assemble picasso source text into a :class:`Program` (code, descriptors, one DVLE per unit).

    ``; shaderkit: DVLE n`` marker lines, as ``shaderkit disasm`` writes them, split the text into
    one source per DVLE; text without markers is one DVLE. Bad text raises
    :class:`shaderkit.errors.AssemblyError` with line and column.
    """
    from shaderkit.isa.pica.assembler import assemble as assemble_units
    from shaderkit.isa.pica.assembler import split_units

    return assemble_units(split_units(text, filename))


def __getattr__(name: str) -> Any:
    # the assembler is imported on first use: decoding alone stays cheap to import
    if name == "Program":
        from shaderkit.isa.pica.assembler import Program

        return Program
    raise AttributeError(name)

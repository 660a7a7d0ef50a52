"""FXLVM programs inside D3D9 token streams: a shader's preshader and an fx_2_0 expression.

Both are a nested token stream (d3dx9's preshader parser: version word ``0x4658xxxx``, "FX" in
bits 16..31; then comment blocks; then the end token ``0x0000FFFF``):

* ``0x46580201``: the **preshader** a shader of an fx_2_0 effect carries in its ``PRES``
  comment block: the effect runs it on the CPU to compute shader constants from the effect's
  parameters;
* ``0x46580200``: an **expression** of an effect (``eval(...)`` of a state or array selector).

Comment blocks: ``CTAB`` (the inputs: effect parameters, as a D3DX constant table), ``PRSI``
(preshader register-set info: which shader constants the outputs fill; kept as bytes), ``CLIT``
(``u32 count`` + the literals as 64-bit floats), ``FXLC`` (the instructions:
:mod:`shaderkit.isa.fxlvm.code`).

FXLVM operand register tables (d3dx9): 1 literals, 2 inputs (the ``CTAB``'s registers), 4 float
shader-constant outputs, 5 bool and 6 int shader-constant outputs, 7 temporaries. fxc prints a
preshader's instructions with outputs and inputs as ``c`` registers (``mov c0, c0[c10.x]``: the
output's register numbers are the shader's, the inputs' the ``CTAB``'s), temporaries ``r``,
literals in parentheses; an expression's with ``expr`` outputs and named inputs
(:func:`shaderkit.formats.dxbc.fxlvm.code_lines`).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.fxlvm.code import FxlcCode

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from shaderkit.formats.d3d9.shader import D3D9Shader
    from shaderkit.formats.d3dx.ctab import ConstantTable

#: the version word's bits 16..31 ("FX")
FXLVM_KIND = 0x4658
#: the version word of a shader's preshader (an fx_2_0 expression's: ``effect.EXPRESSION_TAG``)
PRESHADER_VERSION = 0x46580201


@dataclass
class FxlvmProgram:
    """A nested FXLVM token stream read from bytes: its version word, the typed ``CTAB``, the
    ``CLIT`` literals and the ``FXLC`` code."""

    version: int
    code: FxlcCode
    literals: list[float] = field(default_factory=list)
    table: ConstantTable | None = None
    #: file offset of the ``CTAB`` payload (for errors of the header printer); None when unknown
    table_offset: int | None = None
    #: the context path of errors (``PRES``, ``FX20``) and the file offset of the ``FXLC`` payload
    context: str = "FXLVM"
    code_offset: int | None = None

    @property
    def is_preshader(self) -> bool:
        """Whether this is a shader's preshader (not an effect expression)."""
        return self.version == PRESHADER_VERSION

    def literal_texts(self) -> list[str]:
        """Each literal as the listing spells it (``%.9g``, MSVC's three-digit exponent)."""
        from shaderkit.isa.d3d9.text import msvc_exponent

        return [msvc_exponent(f"{v:.9g}") for v in self.literals]

    def instruction_lines(self) -> list[str]:
        """The instructions as fxc prints them: a preshader's outputs and inputs as ``c``
        registers; an expression's outputs ``expr``, inputs named by its ``CTAB``.
        ShaderFormatError for code that does not print (a component count outside 1..4, a
        literal past the ``CLIT`` list)."""
        from shaderkit.formats.dxbc.fxlvm import code_lines

        try:
            if self.is_preshader:
                return code_lines(self.code, self.literal_texts(), None, lambda n: f"c{n}")
            return code_lines(self.code, self.literal_texts(), self.table)
        except ShaderFormatError as error:
            raise ShaderFormatError(error.message, self.code_offset, f"{self.context}.FXLC") from None


def read_fxlvm(blob: bytes, base: int = 0, context: str = "FXLVM") -> FxlvmProgram:
    """Read a nested FXLVM stream (``blob`` from its version word; ``base``: its file offset,
    for errors). ShaderFormatError when the version word is not "FX", an item is not a comment
    block with a FourCC, a block runs past the stream, the end token is missing, there is no
    ``FXLC`` block or its code does not decode. A ``CTAB`` that does not read leaves ``table``
    None (an expression's inputs then print as ``c<n>``; a preshader's always do)."""
    from shaderkit.formats.d3d9.shader import constant_table
    from shaderkit.isa.d3d9.text import split_program

    count = len(blob) // 4
    if count < 2:
        raise ShaderFormatError(f"{len(blob)} bytes hold no FXLVM stream", base, context)
    words = struct.unpack_from(f"<{count}I", blob)
    if words[0] >> 16 != FXLVM_KIND:
        raise ShaderFormatError(f"version word {words[0]:#010x} is not an FXLVM stream's (0x4658xxxx)",
                                base, context)
    try:
        items, _ = split_program(words)
    except ShaderFormatError as error:
        at = base + error.offset if error.offset is not None else base
        raise ShaderFormatError(error.message, at, context) from None
    blocks: dict[str, tuple[int, int]] = {}
    for first, end, is_comment in items:
        if not is_comment or end - first < 2:
            what = "an instruction" if not is_comment else "a comment block without a FourCC"
            raise ShaderFormatError(f"{what} in an FXLVM stream", base + 4 * first, context)
        tag = blob[4 * first + 4 : 4 * first + 8].decode("latin-1")
        blocks.setdefault(tag, (4 * first + 8, 4 * end))
    if "FXLC" not in blocks:
        raise ShaderFormatError("the FXLVM stream has no FXLC block", base, context)
    literals: list[float] = []
    start, end = blocks.get("CLIT", (0, 0))
    if end - start >= 4:
        n = min(int.from_bytes(blob[start : start + 4], "little"), (end - start - 4) // 8)
        literals = list(struct.unpack_from(f"<{n}d", blob, start + 4))
    start, end = blocks["FXLC"]
    try:
        code = FxlcCode.from_bytes(blob[start:end], base + start)
    except ShaderFormatError as error:
        raise ShaderFormatError(error.message, error.offset, f"{context}.FXLC") from None
    program = FxlvmProgram(words[0], code, literals, context=context, code_offset=base + start)
    if "CTAB" in blocks:
        start, end = blocks["CTAB"]
        program.table = constant_table(blob, start, end)
        program.table_offset = base + start
    return program


def shader_preshader(shader: D3D9Shader) -> FxlvmProgram | None:
    """The preshader of ``shader`` (its ``PRES`` comment block), None when it has none;
    ShaderFormatError when the block does not read (:func:`read_fxlvm`)."""
    comment = shader.comment("PRES")
    if comment is None:
        return None
    base = comment.offset + 8 if comment.offset >= 0 else 0  # (comment token, FourCC)
    return read_fxlvm(comment.data[4:], base, "PRES")


def preshader_lines(program: FxlvmProgram) -> list[str]:
    """fxc's listing of a preshader, printed before its shader's: the header of its ``CTAB``
    (as a shader's), a blank line, ``preshader``, the instructions, a blank line and
    ``// approximately N instruction(s) used``."""
    from shaderkit.formats.d3d9.listing import join_header, table_header_lines

    body = ["    preshader", *("    " + line for line in program.instruction_lines())]
    count = len(program.code.instructions)
    body += ["", f"// approximately {count} instruction{'' if count == 1 else 's'} used"]
    head = table_header_lines(program.table, program.table_offset) if program.table is not None else []
    return join_header(program.table, head, body)


__all__ = [
    "FXLVM_KIND", "PRESHADER_VERSION", "FxlvmProgram", "preshader_lines", "read_fxlvm",
    "shader_preshader",
]

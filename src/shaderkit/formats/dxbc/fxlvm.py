"""The chunks of an FXLVM expression container: ``CTAB``, ``CLI4`` and ``FXLC``.

fxc stores every ``eval(...)`` of an effect (a state assigned from an expression, an object array
indexed by one) as a small DXBC container in the effect's unstructured block:

* ``CTAB``: the D3DX constant table naming the inputs
  (:class:`~shaderkit.formats.d3dx.ctab.ConstantTable`, also importable from here);
* ``CLI4``: ``u32 count`` + the literal constants as 32-bit words (fxc prints each as an integer
  or a float by its bit pattern);
* ``FXLC``: the instructions (:mod:`shaderkit.isa.fxlvm.code`).

:func:`expression_lines` prints a container as fxc's ``eval(...)`` body.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.d3dx.ctab import MAX_CONSTANTS, ConstantTable, CtabConstant, CtabType
from shaderkit.io.reader import Reader
from shaderkit.isa.fxlvm.code import FxlcCode, instruction_text
from shaderkit.isa.sm4.text import fmt_untyped

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


@dataclass
class Literals:
    """``CLI4``: the literal constants (u32 words) and any bytes after them."""

    values: list[int] = field(default_factory=list)
    tail: bytes = b""
    fourcc: str = "CLI4"

    @staticmethod
    def understood(r: Reader) -> bool:
        """Whether the payload under ``r`` holds the count it starts with."""
        if r.remaining < 4:
            return False
        (count,) = struct.unpack_from("<I", r.data, r.pos)
        return bool(4 + 4 * count <= r.remaining)

    @classmethod
    def parse(cls, r: Reader) -> Literals:
        """Read the count and the literals."""
        count = r.u32()
        if count > r.remaining // 4:
            raise r.error(f"CLI4: {count} literals run past the chunk", r.pos - 4)
        values = r.u32_array(count, "CLI4 literals")
        return cls(values, r.read(r.remaining, "CLI4 tail"))

    def build(self) -> bytes:
        """The payload."""
        return struct.pack(f"<{len(self.values) + 1}I", len(self.values), *self.values) + self.tail

    def texts(self) -> list[str]:
        """Each literal as fxc prints it: normal floats ``%f``, other bit patterns as integers."""
        return [fmt_untyped(v) for v in self.values]


@dataclass
class ExpressionCode:
    """``FXLC``: the expression's instructions (:class:`~shaderkit.isa.fxlvm.code.FxlcCode`)."""

    code: FxlcCode = field(default_factory=FxlcCode)
    fourcc: str = "FXLC"

    @staticmethod
    def understood(r: Reader) -> bool:
        """Whether the payload under ``r`` starts with an instruction count its words can hold;
        instructions that do not decode then fail :meth:`parse` and the chunk stays raw."""
        if r.remaining < 4:
            return False
        (count,) = struct.unpack_from("<I", r.data, r.pos)
        return bool(count <= r.remaining // 4)

    @classmethod
    def parse(cls, r: Reader) -> ExpressionCode:
        """Decode the instructions."""
        base = r.pos
        return cls(FxlcCode.from_bytes(r.read(r.remaining, "FXLC payload"), base))

    def build(self) -> bytes:
        """The payload."""
        return self.code.to_bytes()


def expression_lines(container: Any) -> list[str] | None:
    """The instructions of an expression container as fxc prints them inside ``eval(...)``; None
    when ``container`` lacks a typed ``FXLC`` chunk."""
    code = container.chunk("FXLC")
    if not isinstance(code, ExpressionCode):
        return None
    literals = container.chunk("CLI4")
    table = container.chunk("CTAB")
    texts = literals.texts() if isinstance(literals, Literals) else []
    return code_lines(code.code, texts, table if isinstance(table, ConstantTable) else None)


def code_lines(code: FxlcCode, literals: list[str], table: ConstantTable | None,
               output_name: Callable[[int], str] | None = None) -> list[str]:
    """FXLVM instructions as fxc prints them, literals spelled by ``literals``, inputs named through
    ``table`` (``c<n>`` without one), outputs ``expr`` or as ``output_name`` names them: the body
    of an FX10 ``eval(...)``, of an fx_2_0 expression and of a D3D9 preshader."""
    namer = table.input_name if table is not None else (lambda n: f"c{n}")
    return [instruction_text(ins, literals, namer, output_name) for ins in code.instructions]


def assemble_expression(container: Any, lines: list[str]) -> None:
    """Replace the instructions of an expression container by ``lines`` (fxc's text, one
    instruction a line): inputs named through its ``CTAB``; literals reuse the ``CLI4`` values
    that print the same (so ``%f``'s rounding keeps the stored bits), new ones are appended.
    Raises AssemblyError (line 1-based within ``lines``, column 0) on text it cannot read."""
    from shaderkit.errors import AssemblyError
    from shaderkit.isa.fxlvm.assembler import parse_instruction

    code, literals, table = container.chunk("FXLC"), container.chunk("CLI4"), container.chunk("CTAB")
    if not isinstance(code, ExpressionCode) or not isinstance(literals, Literals):
        raise AssemblyError("the base's expression has no typed FXLC and CLI4 chunks", 1, 0)
    values = list(literals.values)
    known: dict[str, int] = {}
    for text, bits in zip(literals.texts(), values):
        known.setdefault(text, bits)
    resolve = table.input_register if isinstance(table, ConstantTable) else (lambda name, inner: None)
    out = []
    for n, line in enumerate(lines, 1):
        try:
            out.append(parse_instruction(line, values, resolve, known))
        except AssemblyError as error:
            raise AssemblyError(error.message, n, error.column) from None
    code.code.instructions = out
    literals.values = _reuse_free_literals(out, values, len(literals.values))


def _reuse_free_literals(instructions: list[Any], values: list[int], kept: int) -> list[int]:
    """``values`` with the literals appended past the first ``kept`` moved into runs of slots
    no instruction reads any more (the literal list keeps its size when an edit changes a
    literal's value); instructions are updated in place."""
    if len(values) == kept:
        return values
    from shaderkit.isa.fxlvm.table import REG_LITERAL

    reads = []  # (operand, component count) of every literal operand
    for ins in instructions:
        for k, op in enumerate(ins.inputs):
            if op.table == REG_LITERAL and op.array is None:
                reads.append((op, 1 if k == 0 and ins.scalar else ins.components))
    used = {slot for op, n in reads if op.offset < kept for slot in range(op.offset, op.offset + n)}
    moved: dict[tuple[int, int], int] = {}
    for op, n in reads:
        if op.offset < kept:
            continue
        key = (op.offset, n)
        if key not in moved:
            free = next((at for at in range(kept - n + 1)
                         if not used.intersection(range(at, at + n))), None)
            if free is None:
                return values
            values[free : free + n] = values[op.offset : op.offset + n]
            used.update(range(free, free + n))
            moved[key] = free
        op.offset = moved[key]
    return values[:kept]


__all__ = [
    "assemble_expression", "MAX_CONSTANTS", "ConstantTable", "CtabConstant", "CtabType", "ExpressionCode", "Literals", "code_lines", "expression_lines",
]

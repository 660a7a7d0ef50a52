"""The chunks of an FXLVM expression container: ``CTAB``, ``CLI4`` and ``FXLC``.

fxc stores every ``eval(...)`` of an effect (a state assigned from an expression, an object array
indexed by one) as a small DXBC container in the effect's unstructured block:

* ``CTAB``: the D3DX constant table naming the inputs (``D3DXSHADER_CONSTANTTABLE``: size 28,
  creator, version, constant count, constant info offset, flags, target; 20-byte constant infos
  ``name, register set (u16), register index (u16), register count (u16), reserved (u16), type,
  default value``; 16-byte type infos ``class, type, rows, columns, elements, struct members
  (u16 each), member info``); offsets count from the payload's start;
* ``CLI4``: ``u32 count`` + the literal constants as 32-bit words (fxc prints each as an integer
  or a float by its bit pattern);
* ``FXLC``: the instructions (:mod:`shaderkit.isa.fxlvm.code`).

The header, constant infos and the constants' type infos are typed (written back where they
lay); the rest of ``CTAB`` (strings, member infos, default values, padding) is kept as bytes.
:func:`expression_lines` prints a container as fxc's ``eval(...)`` body.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from shaderkit.io.reader import Reader
from shaderkit.isa.fxlvm.code import FxlcCode, instruction_text
from shaderkit.isa.sm4.text import fmt_untyped

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

_HEADER = struct.Struct("<7I")
_INFO = struct.Struct("<I4HII")
_TYPE = struct.Struct("<6HI")
#: constant counts past this are not a table fxc wrote
MAX_CONSTANTS = 4096


@dataclass
class CtabType:
    """A constant's type info (``D3DXSHADER_TYPEINFO``)."""

    klass: int
    type: int
    rows: int
    columns: int
    elements: int
    members: int
    members_offset: int

    def words(self) -> tuple[int, ...]:
        """The fields in stored order."""
        return (self.klass, self.type, self.rows, self.columns, self.elements, self.members, self.members_offset)


@dataclass
class CtabConstant:
    """A constant info (``D3DXSHADER_CONSTANTINFO``) and its name and type."""

    name_offset: int
    register_set: int
    register_index: int
    register_count: int
    reserved: int
    type_offset: int
    default_offset: int
    name: str = ""
    type: CtabType | None = None


@dataclass
class ConstantTable:
    """``CTAB``: the constants an expression reads, by register."""

    size: int = _HEADER.size
    creator_offset: int = 0
    version: int = 0
    constants_offset: int = _HEADER.size
    flags: int = 0
    target_offset: int = 0
    constants: list[CtabConstant] = field(default_factory=list)
    #: the payload as read (strings, member infos, defaults are written from here)
    data: bytes = b""
    fourcc: str = "CTAB"

    @staticmethod
    def understood(r: Reader) -> bool:
        """Whether the payload under ``r`` starts as a constant table (a header of size 28); a
        table whose infos or names do not read then fails :meth:`parse` and stays raw."""
        return r.remaining >= _HEADER.size and r.data[r.pos : r.pos + 4] == b"\x1c\0\0\0"

    @classmethod
    def parse(cls, r: Reader) -> ConstantTable:
        """Read the header, constant infos, names and types."""
        base = r.pos
        data = r.read(r.remaining, "CTAB payload")
        size, creator, version, count, at, flags, target = _HEADER.unpack_from(data)
        if count > MAX_CONSTANTS or at + count * _INFO.size > len(data):
            raise r.error(f"CTAB: {count} constant infos at {at:#x} run past the chunk", base + 12)
        table = cls(size, creator, version, at, flags, target, [], data)
        for k in range(count):
            c = CtabConstant(*_INFO.unpack_from(data, at + k * _INFO.size))
            c.name = r.cstring_at(base + c.name_offset, "latin-1", f"CTAB constant {k} name") \
                if c.name_offset < len(data) else ""
            if c.type_offset and c.type_offset + _TYPE.size <= len(data):
                c.type = CtabType(*_TYPE.unpack_from(data, c.type_offset))
            table.constants.append(c)
        return table

    def build(self) -> bytes:
        """The payload: the kept bytes with the header, infos and types written over them."""
        out = bytearray(self.data)
        need = self.constants_offset + _INFO.size * len(self.constants)
        if len(out) < max(need, _HEADER.size):
            out += bytes(max(need, _HEADER.size) - len(out))
        _HEADER.pack_into(out, 0, self.size, self.creator_offset, self.version, len(self.constants),
                          self.constants_offset, self.flags, self.target_offset)
        for k, c in enumerate(self.constants):
            _INFO.pack_into(out, self.constants_offset + k * _INFO.size, c.name_offset, c.register_set,
                            c.register_index, c.register_count, c.reserved, c.type_offset, c.default_offset)
            if c.type is not None and c.type_offset + _TYPE.size <= len(out):
                _TYPE.pack_into(out, c.type_offset, *c.type.words())
        return bytes(out)

    def input_name(self, register: int) -> str:
        """fxc's name of input register ``register``: the constant's name, with the register
        inside it in brackets when the constant spans several (``m[3]``); ``c<n>`` when no
        constant covers it."""
        for c in self.constants:
            if c.register_index <= register < c.register_index + c.register_count:
                inner = f"[{register - c.register_index}]" if c.register_count > 1 else ""
                return c.name + inner
        return f"c{register}"

    def input_register(self, name: str, inner: int | None) -> int | None:
        """The register :meth:`input_name` prints as ``name`` / ``name[inner]``; None when no
        constant has that name or ``inner`` is past it."""
        for c in self.constants:
            if c.name == name and (c.register_count > 1) == (inner is not None):
                if inner is None:
                    return c.register_index
                return c.register_index + inner if inner < c.register_count else None
        return None


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
    namer = table.input_name if isinstance(table, ConstantTable) else (lambda n: f"c{n}")
    return [instruction_text(ins, texts, namer) for ins in code.code.instructions]


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
    "assemble_expression", "MAX_CONSTANTS", "ConstantTable", "CtabConstant", "CtabType", "ExpressionCode", "Literals", "expression_lines",
]

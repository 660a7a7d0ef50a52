"""FXLC instruction tokens: decode, encode and print them as fxc's ``eval(...)`` bodies.

An ``FXLC`` chunk is ``u32 instruction count`` then per instruction: the token
(:mod:`.table`), ``u32 input count``, the inputs, then the output. Each operand is
``u32 relative, u32 register table, u32 component offset``; a relative operand (``relative``
1) is followed by ``u32 register table, u32 component offset`` of the array it indexes, the first
three words then naming the index. fxc leaves a few more bytes after the last instruction (kept
as ``tail``).

Component offsets count scalars: register ``offset // 4``, first component ``offset % 4``; an
operand reads as many components as its instruction's component count (one for the first input
of a scalar-flagged instruction), wrapping from ``w`` back to ``x`` as fxc prints them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.fxlvm.table import (
    COMPONENTS,
    OPCODES,
    REG_INPUT,
    REG_LITERAL,
    REG_OUTPUT,
    REG_TEMP,
    TOKEN_COMPONENTS,
    TOKEN_OPCODE,
    TOKEN_SCALAR,
)

_KNOWN_BITS = TOKEN_COMPONENTS.bits | TOKEN_OPCODE.bits | TOKEN_SCALAR.bits
#: more instructions or inputs than this are not an expression fxc wrote
MAX_INPUTS = 16


@dataclass
class FxlcOperand:
    """One operand: register table and component offset; ``array`` the indexed array's
    ``(register table, component offset)`` when the operand is relative (then ``table`` and
    ``offset`` name the index)."""

    table: int
    offset: int
    array: tuple[int, int] | None = None

    def words(self) -> tuple[int, ...]:
        """The operand as stored."""
        if self.array is None:
            return (0, self.table, self.offset)
        return (1, self.table, self.offset, *self.array)


@dataclass
class FxlcInstruction:
    """One instruction: opcode, component count, scalar flag, inputs and output; ``extra`` keeps
    token bits no field covers (bits 16-19 and 31's neighbours)."""

    opcode: int
    components: int
    inputs: list[FxlcOperand]
    output: FxlcOperand
    scalar: bool = False
    extra: int = 0

    @property
    def name(self) -> str:
        """The mnemonic (``op<hex>`` for an opcode the table lacks)."""
        op = OPCODES.get(self.opcode)
        return op.name if op is not None else f"op{self.opcode:x}"

    def input_components(self, k: int) -> int:
        """The components input ``k`` reads: one for the first input of a scalar instruction (it
        is broadcast), else the instruction's count."""
        return 1 if (k == 0 and self.scalar) else self.components

    @property
    def token(self) -> int:
        """The instruction token."""
        return (TOKEN_OPCODE.put(self.opcode) | TOKEN_COMPONENTS.put(self.components)
                | TOKEN_SCALAR.put(int(self.scalar)) | self.extra)


@dataclass
class FxlcCode:
    """An ``FXLC`` payload: the instructions and the bytes after them."""

    instructions: list[FxlcInstruction] = field(default_factory=list)
    tail: bytes = b""

    @classmethod
    def from_bytes(cls, data: bytes, base: int = 0) -> FxlcCode:
        """Decode a payload (``base``: its offset in the file, for errors)."""
        words_total = len(data) // 4

        def word(i: int) -> int:
            if i >= words_total:
                raise ShaderFormatError("FXLC instruction runs past the chunk", base + 4 * i, "FXLC")
            return int(struct.unpack_from("<I", data, 4 * i)[0])

        count = word(0)
        if count > words_total:
            raise ShaderFormatError(f"FXLC instruction count {count} is too large", base, "FXLC")
        pos = 1

        def operand() -> FxlcOperand:
            nonlocal pos
            relative, table, offset = word(pos), word(pos + 1), word(pos + 2)
            pos += 3
            if relative == 0:
                return FxlcOperand(table, offset)
            if relative != 1:
                raise ShaderFormatError(f"FXLC operand flag {relative} is neither 0 nor 1", base + 4 * pos - 12, "FXLC")
            array = (word(pos), word(pos + 1))
            pos += 2
            return FxlcOperand(table, offset, array)

        out = []
        for k in range(count):
            token, n = word(pos), word(pos + 1)
            if n > MAX_INPUTS:
                raise ShaderFormatError(f"FXLC instruction {k} has {n} inputs", base + 4 * pos + 4, "FXLC")
            pos += 2
            inputs = [operand() for _ in range(n)]
            out.append(FxlcInstruction(TOKEN_OPCODE.get(token), TOKEN_COMPONENTS.get(token), inputs, operand(),
                                       bool(TOKEN_SCALAR.get(token)), token & ~_KNOWN_BITS))
        return cls(out, data[4 * pos :])

    def to_bytes(self) -> bytes:
        """The payload as stored."""
        words = [len(self.instructions)]
        for ins in self.instructions:
            words += [ins.token, len(ins.inputs)]
            for op in [*ins.inputs, ins.output]:
                words += op.words()
        return struct.pack(f"<{len(words)}I", *words) + self.tail


def component_suffix(start: int, count: int) -> str:
    """``.x`` / ``.yz`` / ``.yzwx`` ...: ``count`` components from ``start``, wrapping; none for
    all four from ``x``."""
    if count == 4 and start == 0:
        return ""
    return "." + "".join(COMPONENTS[(start + i) % 4] for i in range(count))


#: names an input register (register number -> its text: the variable's name with its index)
InputNamer = Callable[[int], str]


def operand_text(op: FxlcOperand, count: int, literals: Sequence[str], input_name: InputNamer,
                 output_name: InputNamer | None = None) -> str:
    """One operand as fxc prints it: ``(literal, ...)``, ``r0.x``, ``expr.x``, a named input;
    ``output_name`` names output registers (a D3D9 preshader's shader constants: ``c0``) instead
    of ``expr``."""
    if op.array is not None:
        base = _plain(op.array[0], op.array[1], count, literals, input_name, output_name)
        return f"{base}[{_plain(op.table, op.offset, 1, literals, input_name, output_name)}]"
    return _plain(op.table, op.offset, count, literals, input_name, output_name)


def _plain(table: int, offset: int, count: int, literals: Sequence[str], input_name: InputNamer,
           output_name: InputNamer | None) -> str:
    register, start = divmod(offset, 4)
    if table == REG_LITERAL:
        if offset + count > len(literals):
            raise ShaderFormatError(f"FXLC literal {offset} is past the {len(literals)} literals", None, "FXLC")
        return f"({', '.join(literals[offset : offset + count])})"
    suffix = component_suffix(start, count)
    if table == REG_TEMP:
        return f"r{register}{suffix}"
    if table == REG_OUTPUT:
        if output_name is not None:
            return output_name(register) + suffix
        if register == 0 and count == 1 and start:
            return f"expr0{suffix}"  # fxc names a single component past x of the result so
        return f"expr{register if register else ''}{suffix}"
    if table == REG_INPUT:
        return input_name(register) + suffix
    return f"t{table}_{register}{suffix}"


def instruction_text(ins: FxlcInstruction, literals: Sequence[str], input_name: InputNamer,
                     output_name: InputNamer | None = None) -> str:
    """``name output, inputs...`` as fxc prints the instruction (``output_name``: see
    :func:`operand_text`); ShaderFormatError for a component count outside 1..4 (the VM's
    registers have four)."""
    if not 1 <= ins.components <= 4:
        raise ShaderFormatError(f"FXLC {ins.name} has {ins.components} components", None, "FXLC")
    ops = [operand_text(ins.output, ins.components, literals, input_name, output_name)]
    for k, op in enumerate(ins.inputs):
        ops.append(operand_text(op, ins.input_components(k), literals, input_name, output_name))
    return f"{ins.name} {', '.join(ops)}"


__all__ = [
    "MAX_INPUTS", "FxlcCode", "FxlcInstruction", "FxlcOperand", "InputNamer", "component_suffix",
    "instruction_text", "operand_text",
]

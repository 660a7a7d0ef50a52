"""Decode PICA200 instruction words into :class:`Instruction` values (driven by opcodes.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from shaderkit.isa.pica.opcodes import BY_OPCODE6, OpcodeInfo


@dataclass(frozen=True)
class Layout:
    """Precomputed shifts and masks of one opcode row."""

    fields: tuple[tuple[str, int, int], ...]  # (name, shift, mask)
    covered: int  # bits owned by the opcode or a field


@cache
def layout(info: OpcodeInfo) -> Layout:
    covered = ((1 << info.opcode_bits) - 1) << info.shift
    fields = []
    for name, lsb, width in info.fields:
        mask = (1 << width) - 1
        fields.append((name, lsb, mask))
        covered |= mask << lsb
    return Layout(tuple(fields), covered)


@dataclass
class Instruction:
    """One instruction word: the opcode row, its operand fields and any bits no field covers."""

    info: OpcodeInfo
    operands: dict[str, int] = field(default_factory=dict)
    #: bits outside the opcode and every field (zero in assembler output; kept for round trip)
    extra: int = 0
    #: the opcode value as stored (CMP/MAD keep their low opcode bits in operand fields)
    opcode: int = 0

    @property
    def mnemonic(self) -> str:
        return self.info.mnemonic

    @property
    def fmt(self) -> str:
        return self.info.fmt

    def get(self, name: str, default: int = 0) -> int:
        return self.operands.get(name, default)


def decode(word: int) -> Instruction:
    """Split one 32-bit word into its fields."""
    word &= 0xFFFFFFFF
    info = BY_OPCODE6[word >> 26]
    lay = layout(info)
    operands = {name: (word >> shift) & mask for name, shift, mask in lay.fields}
    return Instruction(info, operands, word & ~lay.covered & 0xFFFFFFFF, word >> info.shift)

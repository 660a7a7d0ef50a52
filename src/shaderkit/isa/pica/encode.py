"""Encode :class:`Instruction` values back into 32-bit words (driven by opcodes.py)."""

from __future__ import annotations

from shaderkit.isa.pica.decode import Instruction, layout
from shaderkit.isa.pica.opcodes import BY_MNEMONIC, BY_OPCODE6, OpcodeInfo


def encode(inst: Instruction) -> int:
    """The word for ``inst``; raises ValueError when a field does not fit."""
    info = inst.info
    lay = layout(info)
    opcode = inst.opcode
    if opcode >> info.opcode_bits or BY_OPCODE6[opcode << (6 - info.opcode_bits)] != info:
        raise ValueError(f"{info.mnemonic}: opcode {opcode:#x} does not belong to this row")
    word = opcode << info.shift
    for name, shift, mask in lay.fields:
        value = inst.operands.get(name, 0)
        if value < 0 or value > mask:
            raise ValueError(f"{info.mnemonic}: field {name}={value} does not fit in {mask.bit_length()} bits")
        word |= value << shift
    if inst.extra & lay.covered:
        raise ValueError(f"{info.mnemonic}: extra bits {inst.extra:#x} overlap the operand fields")
    return word | inst.extra


def make(mnemonic: str, **operands: int) -> Instruction:
    """An instruction of ``mnemonic`` with the given fields (others zero)."""
    info: OpcodeInfo = BY_MNEMONIC[mnemonic]
    return Instruction(info, dict(operands), 0, info.opcode >> (6 - info.opcode_bits))

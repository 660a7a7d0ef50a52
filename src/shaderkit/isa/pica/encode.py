"""Encode :class:`Instruction` values back into 32-bit words (driven by table.py)."""

from __future__ import annotations

from shaderkit.isa.pica.decode import Instruction, layout
from shaderkit.isa.pica.table import BY_MNEMONIC, BY_OPCODE6, ROW_ENCODERS, OpcodeInfo, make_encoder


def encode(inst: Instruction) -> int:
    """The word for ``inst``; raises ValueError when a field does not fit."""
    info = inst.info
    opcode = inst.opcode
    if opcode >> info.opcode_bits or BY_OPCODE6[opcode << (6 - info.opcode_bits)] != info:
        raise ValueError(f"{info.mnemonic}: opcode {opcode:#x} does not belong to this row")
    if inst.extra & layout(info).covered or inst.extra >> 32 or inst.extra < 0:
        raise ValueError(f"{info.mnemonic}: extra bits {inst.extra:#x} overlap the operand fields")
    encoder = ROW_ENCODERS.get(info) or make_encoder(info)
    return encoder(inst.operands) | inst.extra


def make(mnemonic: str, **operands: int) -> Instruction:
    """An instruction of ``mnemonic`` with the given fields (others zero)."""
    info: OpcodeInfo = BY_MNEMONIC[mnemonic]
    return Instruction(info, dict(operands), 0, info.opcode >> (6 - info.opcode_bits))

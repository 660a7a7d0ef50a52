"""Decode PICA200 instruction words into :class:`Instruction` values (driven by table.py)."""

from __future__ import annotations

from shaderkit.dataclass import dataclass, field
from shaderkit.isa.pica.table import BY_OPCODE6, OpcodeInfo, field_mask, opcode_mask


@dataclass(frozen=True)
class Layout:
    """Precomputed shifts and masks of one opcode row."""

    fields: tuple[tuple[str, int, int], ...]  # (name, shift, mask)
    covered: int  # bits owned by the opcode or a field


def _layout(info: OpcodeInfo) -> Layout:
    fields = tuple((name, lsb, (1 << width) - 1) for name, lsb, width in info.fields)
    return Layout(fields, opcode_mask(info) | field_mask(info.fmt))


#: one layout per 6-bit opcode value, built at import time
_LAYOUTS: dict[OpcodeInfo, Layout] = {info: _layout(info) for info in BY_OPCODE6}


def layout(info: OpcodeInfo) -> Layout:
    """The operand layout (field positions) of the opcode ``info``."""
    found = _LAYOUTS.get(info)
    return found if found is not None else _layout(info)


@dataclass
class Instruction:
    """One instruction word: the opcode row, its operand fields and any bits no field covers."""

    info: OpcodeInfo
    operands: dict[str, int] = field(default_factory=dict)
    #: reserved bits (outside the opcode and every field): zero in assembler output, kept for round trip
    extra: int = 0
    #: the opcode value as stored (CMP/MAD keep their low opcode bits in operand fields)
    opcode: int = 0

    @property
    def mnemonic(self) -> str:
        """The instruction's mnemonic."""
        return self.info.mnemonic

    @property
    def fmt(self) -> str:
        """The instruction's word format name (1, 1u, 1c, 2, 3, 5...)."""
        return self.info.fmt

    def get(self, name: str, default: int = 0) -> int:
        """The value of operand field ``name``, or ``default`` when the format has none."""
        return self.operands.get(name, default)


def _decoders() -> tuple[tuple[OpcodeInfo, tuple[tuple[str, int, int], ...], int, int], ...]:
    out = []
    for info in BY_OPCODE6:
        lay = _LAYOUTS[info]
        out.append((info, lay.fields, ~lay.covered & 0xFFFFFFFF, info.shift))
    return tuple(out)


_DECODERS = _decoders()


def word_layouts() -> tuple[tuple[OpcodeInfo, tuple[tuple[str, int, int], ...], int], ...]:
    """Per 6-bit opcode value: (row, its fields as (name, shift, mask), the reserved bits no field
    covers: what :func:`decode` calls ``extra``), as decode() reads them."""
    return tuple((info, fields, reserved) for info, fields, reserved, _ in _DECODERS)


def decode(word: int) -> Instruction:
    """Split one 32-bit word into its fields."""
    word &= 0xFFFFFFFF
    info, fields, reserved, shift = _DECODERS[word >> 26]
    operands = {name: (word >> lsb) & mask for name, lsb, mask in fields}
    return Instruction(info, operands, word & reserved, word >> shift)

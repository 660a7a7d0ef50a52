"""Maxwell words <-> instructions and scheduling control, generic over :mod:`encoding`."""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass
from shaderkit.isa.maxwell.encoding import Encoding, Operand, bits_width, find_encoding, get_bits, put_bits
from shaderkit.isa.maxwell.table import COMPONENT_MASKS

#: Every fourth 64-bit word (byte offsets 0x00, 0x20, ...) holds the control of the next three.
BUNDLE_BYTES = 0x20
CONTROL_BITS = 21


@dataclass(frozen=True)
class Control:
    """Scheduling control of one instruction (21 bits of a control word)."""

    stall: int  # bits 0..3: cycles to wait before issuing the next instruction
    yield_flag: int  # bit 4
    write_barrier: int  # bits 5..7: barrier set when the result is written (7: none)
    read_barrier: int  # bits 8..10: barrier set when the sources are read (7: none)
    wait_mask: int  # bits 11..16: barriers to wait for
    reuse: int  # bits 17..20: operand reuse cache flags

    @classmethod
    def from_bits(cls, bits: int) -> Control:
        """Control fields from a 21-bit control group (stall, yield, barriers, wait mask, reuse)."""
        return cls(bits & 0xF, bits >> 4 & 1, bits >> 5 & 7, bits >> 8 & 7, bits >> 11 & 0x3F, bits >> 17 & 0xF)

    def to_bits(self) -> int:
        """The 21-bit control group of these fields."""
        return (self.stall | self.yield_flag << 4 | self.write_barrier << 5 | self.read_barrier << 8
                | self.wait_mask << 11 | self.reuse << 17)


def split_control(word: int) -> tuple[list[Control], int]:
    """The three controls of a control word, and its top bit (63)."""
    return [Control.from_bits(word >> (CONTROL_BITS * i) & ((1 << CONTROL_BITS) - 1)) for i in range(3)], word >> 63


def join_control(controls: list[Control], top: int = 0) -> int:
    """The 64-bit control word of three instructions' ``controls`` (``top``: bit 63)."""
    word = top << 63
    for i, control in enumerate(controls):
        word |= control.to_bits() << (CONTROL_BITS * i)
    return word


@dataclass(frozen=True)
class Instruction:
    """A decoded word: its encoding, one value per encoding slot, and uncovered bits."""

    encoding: Encoding
    values: tuple[int, ...]
    residual: int = 0

    def encode(self) -> int:
        """The 64-bit instruction word: the encoding's fixed bits, residual bits and operand values."""
        enc = self.encoding
        word = enc.value | self.residual
        for bits, value in zip(enc.slots, self.values):
            word |= put_bits(bits, value)
        return word

    @property
    def mnemonic(self) -> str:
        """The mnemonic of the instruction's encoding."""
        return self.encoding.mnemonic


def decode(word: int) -> Instruction | None:
    """The instruction in a 64-bit word, or None when no encoding matches."""
    enc = find_encoding(word)
    if enc is None:
        return None
    return Instruction(enc, tuple(get_bits(word, bits) for bits in enc.slots), word & enc.residual)


def encode(instruction: Instruction) -> int:
    """The 64-bit word of ``instruction``."""
    return instruction.encode()


def words_of(code: bytes) -> list[int]:
    """The 64-bit little-endian words of ``code`` (a trailing partial word is left out)."""
    return list(struct.unpack_from(f"<{len(code) // 8}Q", code))


def sign_extend(value: int, width: int) -> int:
    """``value`` as a signed ``width``-bit number."""
    return value - (1 << width) if value >> (width - 1) & 1 else value


def operand_value(instruction: Instruction, operand: Operand) -> tuple[int, ...]:
    """The value an operand stands for, its fields scaled as the hardware reads them:
    ``R``/``P``/``I``/``N``/``W``/``F`` (float32 bits): ``(field,)``; ``S``: ``(signed field,)``;
    ``H``: ``(half bits,)`` (``field << 6``); ``F20``: ``(float32 bits,)`` (the top 20 bits, ``field << 12``); ``D20``: ``(float64 bits,)``
    (``field << 44``); ``C``: ``(slot, byte offset)`` (the field counts words); ``K``:
    ``(slot, register, signed byte offset)`` (register 255 (RZ) when the form has none);
    ``M``/``A``: ``(register, byte offset)`` (signed for ``M``, scaled by ``shift``); ``T``: ``(signed offset from the next
    instruction,)``. Flags (neg, abs, ...) are not applied."""
    values = instruction.values
    raw = [values[slot] for slot in operand.fields]
    width = bits_width(instruction.encoding.slots[operand.fields[-1]])
    kind = operand.kind
    if kind in ("S", "T"):
        return (sign_extend(raw[0], width),)
    if kind == "H":
        return (raw[0] << 6,)
    if kind == "F20":
        return (raw[0] << 12,)
    if kind == "D20":
        return (raw[0] << 44,)
    if kind == "C":
        return raw[0], raw[1] * 4
    if kind == "K":
        return raw[0], raw[1] if len(raw) == 3 else 255, sign_extend(raw[-1], width)
    if kind == "M":
        return raw[0], sign_extend(raw[1], width) << operand.shift
    return tuple(raw)


def component_mask(instruction: Instruction, operand: Operand) -> str | None:
    """The components (``"RGA"``...) a TEXS/TLDS mask operand (kind ``W``) names: the table for one
    destination register when its paired register field is RZ, for two otherwise; None when the
    field has no name."""
    names = COMPONENT_MASKS[operand.pair is not None and instruction.values[operand.pair] == 255]
    value = instruction.values[operand.fields[0]]
    return names[value] if value < len(names) else None


def branch_target(instruction: Instruction, address: int) -> int | None:
    """Absolute target of a relative branch operand (kind ``T``), else None."""
    for operand in instruction.encoding.operands:
        if operand.kind == "T":
            return address + 8 + operand_value(instruction, operand)[0]
    return None


def program_end(code: bytes) -> int:
    """Byte size of the program proper: up to and including the branch-to-self that follows the
    first ``EXIT`` (a branch to its own address or to its bundle's control word). Without one,
    the whole code (rounded down to 8 bytes)."""
    seen_exit = False
    for index, word in enumerate(words_of(code)):
        address = index * 8
        if address % BUNDLE_BYTES == 0:
            continue
        instruction = decode(word)
        if instruction is None:
            continue
        if instruction.mnemonic == "EXIT":
            seen_exit = True
        elif seen_exit and instruction.mnemonic == "BRA":
            if branch_target(instruction, address) in (address, address - address % BUNDLE_BYTES):
                return address + 8
    return len(code) - len(code) % 8

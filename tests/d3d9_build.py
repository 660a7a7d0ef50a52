"""Word-by-word builders for Direct3D 9 test inputs (shared by tests/d3d9, tests/dxbc and tests/vm):
u32 words, comment blocks (d3d9types.h: opcode 0xFFFE, length in words in bits 16..30, FourCC
first), fx_2_0 strings and FXLVM instructions (preshaders and effect expressions)."""

from __future__ import annotations

import struct

#: the end token of a token stream
END = 0x0000FFFF
#: the creator string fxc writes in constant tables
CREATOR = b"Microsoft (R) HLSL Shader Compiler 10.1"


def pack(*words: int) -> bytes:
    """Little-endian u32 words."""
    return struct.pack(f"<{len(words)}I", *words)


def comment(tag: bytes, payload: bytes) -> bytes:
    """A comment block: token (length in words, FourCC included), FourCC, payload."""
    assert len(payload) % 4 == 0
    return pack(0xFFFE | (1 + len(payload) // 4) << 16) + tag + payload


def string(text: bytes) -> bytes:
    """An fx_2_0 string: u32 length (with the NUL), the text and its NUL, zero padding to 4."""
    raw = text + b"\0"
    return pack(len(raw)) + raw + bytes(-len(raw) % 4)


def fxlc_operand(table: int, offset: int) -> tuple[int, ...]:
    """An FXLVM operand: not indexed (0), its register table and component offset."""
    return (0, table, offset)


def fxlc_instruction(opcode: int, components: int, output: tuple[int, ...], *inputs: tuple[int, ...],
                     scalar: bool = False) -> tuple[int, ...]:
    """An FXLVM instruction: token (opcode in bits 20.., component count, bit 31 for a scalar first
    input), input count, the inputs, then the output."""
    token = opcode << 20 | components | (0x80000000 if scalar else 0)
    return (token, len(inputs), *(w for operand in inputs for w in operand), *output)

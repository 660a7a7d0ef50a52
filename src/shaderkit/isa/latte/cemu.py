"""The hashes Cemu names Wii U shaders by (graphic packs use ``<base>_<aux>_ps.txt`` names).

Facts from Cemu's ``LatteShader.cpp``: the program hash runs over the program's 32-bit words;
a pixel shader's base hash adds the key of its input table, which comes from the
SPI_PS_IN_CONTROL_0 and SPI_PS_INPUT_CNTL registers that GX2SetPixelShader loads from the
GX2PixelShader. A vertex shader's base hash also mixes in the fetch shader and render state
(known only at draw time), so only pixel shaders get a base hash from the file alone.
"""

from __future__ import annotations

import struct

_MASK = (1 << 64) - 1
MAX_PS_INPUTS = 32


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _rotr(value: int, bits: int) -> int:
    return ((value >> bits) | (value << (64 - bits))) & _MASK


def program_hash(program: bytes) -> tuple[int, int]:
    """Cemu's two 64-bit program hashes (sum-and-rotate, xor-and-rotate over the words)."""
    sum_hash = xor_hash = 0
    for (word,) in struct.iter_unpack("<I", program[: len(program) // 4 * 4]):
        sum_hash = _rotl((sum_hash + word) & _MASK, 3)
        xor_hash = _rotr(xor_hash ^ word, 7)
    return sum_hash, xor_hash


def ps_input_key(spi_ps_in_control_0: int, spi_ps_input_cntls: list[int]) -> int:
    """The key of Cemu's pixel-shader input table for these register values."""
    position_enable = spi_ps_in_control_0 >> 8 & 1
    position_addr = spi_ps_in_control_0 >> 10 & 0x1F if position_enable else 0xFFFFFFFF
    param_gen = spi_ps_in_control_0 >> 15 & 0xF
    param_gen_addr = spi_ps_in_control_0 >> 19 & 0x7F
    key = 0
    if position_enable:
        key += position_addr + 1
    if param_gen:
        key = (key + _rotr(param_gen, 7)) & _MASK
        key = (key + _rotr(param_gen_addr, 3)) & _MASK
    for index in range(min(spi_ps_in_control_0 & 0x3F, MAX_PS_INPUTS)):
        control = spi_ps_input_cntls[index] if index < len(spi_ps_input_cntls) else 0
        key = _rotl((key + control) & _MASK, 7)
        if index == position_addr:
            key = (key + 0x33) & _MASK
    return key


def pixel_base_hash(program: bytes, spi_ps_in_control_0: int, spi_ps_input_cntls: list[int]) -> int:
    """A pixel shader's Cemu base hash when no geometry shader is bound."""
    sum_hash, xor_hash = program_hash(program)
    return (sum_hash + xor_hash + ps_input_key(spi_ps_in_control_0, spi_ps_input_cntls)) & _MASK

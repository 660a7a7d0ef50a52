"""Float32 fields that keep their stored bits.

Converting a float32 to a Python float sets a signalling NaN's quiet bit, so a model holding
plain floats would write such a NaN back with another bit pattern. A parsed field is an
:class:`F32`: a ``float`` for every use, carrying the word it was read from; :func:`f32_word`
writes that word back unless the field was given a new value.
"""

from __future__ import annotations

import struct

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


class F32(float):
    """A float32 read from a file: its value as a float plus ``bits``, the stored u32 word."""

    __slots__ = ("bits",)
    bits: int

    def __new__(cls, value: float, bits: int) -> F32:
        self = super().__new__(cls, value)
        self.bits = bits
        return self

    @classmethod
    def from_bits(cls, bits: int) -> F32:
        """The float32 stored as the u32 word ``bits``."""
        return cls(_F32.unpack(_U32.pack(bits))[0], bits)

    def __getnewargs__(self) -> tuple[float, int]:  # type: ignore[override]
        return float(self), self.bits


def f32_word(value: float) -> int:
    """The u32 word of a float32 field: the stored bits of an :class:`F32`, else ``value`` packed."""
    if isinstance(value, F32):
        return value.bits
    return int(_U32.unpack(_F32.pack(value))[0])


__all__ = ["F32", "f32_word"]

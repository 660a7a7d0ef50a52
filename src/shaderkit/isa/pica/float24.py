"""PICA200 float24 (1.7.16): sign bit 23, exponent bits 16-22 (bias 63), mantissa bits 0-15.

Decoding follows the hardware/Citra rules: exponent and mantissa all zero is a signed zero,
exponent 0x7F is infinity (mantissa 0) or NaN, and there are no denormals (exponent 0 with a
non-zero mantissa is the normal number 2**-63 * 1.m). Encoding follows picasso's ``f32tof24``:
the value is first rounded to float32, the mantissa truncated (>> 7) and the exponent rebiased;
below range flushes to a signed zero, above range (and inf/NaN) saturates to infinity. Like
picasso, a rebiased exponent of exactly 0x7F (2**64 <= |x| < 2**65) keeps its mantissa.

Compiled in a compiled build (``shaderkit._native.NATIVE``: the disassembler writes every float
constant with it). The functions take what the source takes (NumPy integers and floats too, through
``operator.index`` and ``__float__``), which a compiled ``int`` or ``float`` parameter would refuse.
"""

from __future__ import annotations

import math
import struct
from operator import index

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Final, SupportsFloat, SupportsIndex

_F32: Final = struct.Struct("<f")
_U32: Final = struct.Struct("<I")

F24_MASK: Final = 0xFFFFFF
F24_SIGN: Final = 0x800000
F24_INF: Final = 0x7F0000
F24_ONE: Final = 0x3F0000


def f24_to_f32_bits(raw: SupportsIndex) -> int:
    """The float32 bit pattern of the float24 ``raw`` (bits above 23 are ignored)."""
    word = index(raw) & F24_MASK
    sign = (word & F24_SIGN) << 8
    if word & 0x7FFFFF == 0:
        return sign
    exponent = (word >> 16) & 0x7F
    mantissa = (word & 0xFFFF) << 7
    exponent = 0xFF if exponent == 0x7F else exponent + 64
    return sign | (exponent << 23) | mantissa


#: per exponent below 0x7F, the weight of one unit of the 17-bit significand (1.m): 2**(e - 63 - 16)
_UNIT: Final = tuple(math.ldexp(1.0, exponent - 63 - 16) for exponent in range(0x7F))


def f24_to_f32(raw: SupportsIndex) -> float:
    """The value of the float24 ``raw`` (exact: every float24 is a float32)."""
    word = index(raw)
    exponent = (word >> 16) & 0x7F
    if exponent == 0x7F:  # infinity or NaN: through the float32 bits
        return float(_F32.unpack(_U32.pack(f24_to_f32_bits(word)))[0])
    mantissa = word & 0xFFFF
    value = (0x10000 | mantissa) * _UNIT[exponent] if exponent or mantissa else 0.0  # (products exact)
    return -value if word & F24_SIGN else value


def f32_bits_to_f24(bits: SupportsIndex) -> int:
    """picasso's ``f32tof24`` on a float32 bit pattern."""
    pattern = index(bits)
    sign = (pattern >> 31) & 1
    exponent = ((pattern >> 23) & 0xFF) - 127 + 63
    mantissa = (pattern & 0x7FFFFF) >> 7
    if exponent < 0:
        return sign << 23
    if exponent > 0x7F:
        return (sign << 23) | F24_INF
    return (sign << 23) | (exponent << 16) | mantissa


def f32_to_f24(value: SupportsFloat) -> int:
    """Encode ``value`` (rounded to float32 first) as a float24 word like picasso does."""
    if math.isnan(value):  # (a number or anything with __float__, as struct's "f" reads it; no string)
        # NaN has float32 exponent 255: picasso saturates it to +/-inf like any overflow.
        return (F24_SIGN if math.copysign(1.0, value) < 0 else 0) | F24_INF
    number = float(value)
    try:
        packed = _F32.pack(number)
    except OverflowError:  # finite double beyond float32 range
        return (F24_SIGN if number < 0 else 0) | F24_INF
    return f32_bits_to_f24(_U32.unpack(packed)[0])

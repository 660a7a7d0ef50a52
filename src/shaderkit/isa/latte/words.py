"""Generic field access for Latte words, driven by the layouts in ``table.py``.

An instruction is one to four 32-bit words; :class:`Fields` holds the value of every field of
every word (reserved bits included) and remembers which fields the printer read. Fields the text
does not show are the "hidden" ones the printer writes as ``; shaderkit:`` notes when they differ
from what the assembler writes by default.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from shaderkit.isa.latte.table import Field

Layout = tuple[Field, ...]
#: a compiled layout: (name, shift, mask) per field
Compiled = tuple[tuple[str, int, int], ...]



class FieldRangeError(ValueError):
    """A field value does not fit in its bits (the assembler reports it with the line)."""


def compile_layout(layout: Layout, prefix: str = "") -> Compiled:
    """(name, shift, mask) triples; RESERVED fields get ``prefix`` so words do not clash."""
    return tuple((prefix + name if name.startswith("RESERVED") else name, lsb, (1 << width) - 1)
                 for name, lsb, width in layout)


def unpacker(layouts: Sequence[Layout]) -> Callable[[Sequence[int]], dict[str, int]]:
    """A function: words -> {field: value} for one instruction format (closure built once)."""
    prefixed = len(layouts) > 1
    plan = tuple(compile_layout(lay, f"W{i}_" if prefixed else "") for i, lay in enumerate(layouts))

    def unpack(words: Sequence[int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for word, fields in zip(words, plan):
            for name, shift, mask in fields:
                out[name] = word >> shift & mask
        return out

    return unpack


def packer(layouts: Sequence[Layout]) -> Callable[[dict[str, int]], list[int]]:
    """A function: {field: value} -> words (missing fields are 0; a value too wide for its
    field raises :class:`FieldRangeError`)."""
    prefixed = len(layouts) > 1
    plan = tuple(compile_layout(lay, f"W{i}_" if prefixed else "") for i, lay in enumerate(layouts))

    def pack(values: dict[str, int]) -> list[int]:
        words = []
        for fields in plan:
            word = 0
            for name, shift, mask in fields:
                value = values.get(name, 0)
                if value & ~mask:
                    raise FieldRangeError(f"{name}={value} does not fit in {mask.bit_length()} bits")
                word |= value << shift
            words.append(word)
        return words

    return pack


def field_names(layouts: Sequence[Layout]) -> tuple[str, ...]:
    """Every field name of ``layouts`` (prefixed ``W<i>_`` when there are several words)."""
    prefixed = len(layouts) > 1
    return tuple(name for i, lay in enumerate(layouts)
                 for name, _, _ in compile_layout(lay, f"W{i}_" if prefixed else ""))


class Fields:
    """Field values of one instruction; reading one through ``[]`` marks it as shown."""

    __slots__ = ("values", "used")

    def __init__(self, values: dict[str, int]) -> None:
        self.values = values
        self.used: set[str] = set()

    def __getitem__(self, name: str) -> int:
        self.used.add(name)
        return self.values[name]

    def peek(self, name: str) -> int:
        """The value without marking it as shown by the text."""
        return self.values[name]

    def mark(self, *names: str) -> None:
        """Record ``names`` as printed (fields left unmarked show up as leftovers)."""
        self.used.update(names)

    def hidden(self, defaults: dict[str, int]) -> list[tuple[str, int]]:
        """Fields the text did not show whose value differs from the assembler's default."""
        return [(name, value) for name, value in self.values.items()
                if name not in self.used and value != defaults.get(name, 0)]


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def f32(bits: int) -> float:
    """The float32 whose bits are ``bits``."""
    return float(_F32.unpack(_U32.pack(bits & 0xFFFFFFFF))[0])


def f32_bits(value: float) -> int:
    """The 32 bits of ``value`` as float32."""
    return int(_U32.unpack(_F32.pack(value))[0])


def format_float(value: float, negative: bool | None = None) -> str:
    """A float32 as fmt's ``{}`` prints it: shortest round-trip digits, exponent below 1e-4
    or from 1e16 on (``1``, ``0.5``, ``3e-45``, ``1e+16``, ``-nan``)."""
    if negative is None:
        negative = value < 0 or (value == 0 and str(value).startswith("-"))
    sign = "-" if negative else ""
    if value != value:
        return sign + "nan"
    if value in (float("inf"), float("-inf")):
        return sign + "inf"
    if value == 0:
        return sign + "0"
    magnitude = abs(value)
    text = f"{magnitude:.8e}"
    for places in range(9):
        candidate = f"{magnitude:.{places}e}"
        try:
            if _F32.unpack(_F32.pack(float(candidate)))[0] == magnitude:
                text = candidate
                break
        except OverflowError:
            continue
    mantissa, exp_text = text.split("e")
    exponent = int(exp_text)
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    if -4 <= exponent < 16:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            frac = digits[exponent + 1:]
            return sign + whole + ("." + frac if frac else "")
        return sign + "0." + "0" * (-exponent - 1) + digits
    body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


def format_f32_bits(bits: int) -> str:
    """decaf's text of the float32 ``bits`` (sign kept for -0)."""
    return format_float(f32(bits), bool(bits >> 31 & 1))

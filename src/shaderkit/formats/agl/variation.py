"""Variation lookup (agl ``VariationBuffer``): mixed radix over the macros, first macro most significant."""

from __future__ import annotations

from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError


class VariationError(ShaderkitError, LookupError):
    """An unknown macro or value was asked for."""


@dataclass
class Variation:
    """The binaries one program runs for a set of macro values (result of a variation lookup)."""
    program: str
    index: int
    #: stage -> index into the archive's binary array
    binary_indices: dict[str, int]
    #: stage -> the binary itself (when the program belongs to an archive)
    binaries: dict[str, Any] = field(default_factory=dict, repr=False)


def variation_index(
    macros: list[tuple[str, list[str]]], defaults: dict[str, str], settings: dict[str, str]
) -> int:
    """Index of the variation chosen by ``settings``; macros not named take ``defaults``.

    ``index = sum(value_index[i] * stride[i])`` with ``stride[i]`` the product of the value
    counts of the macros after ``i``.
    """
    names = [name for name, _ in macros]
    unknown = [k for k in settings if k not in names]
    if unknown:
        valid = ", ".join(names) or "none"
        raise VariationError(f"unknown macro {unknown[0]!r} (macros: {valid})")
    index = 0
    for name, values in macros:
        value = settings.get(name, defaults.get(name, values[0] if values else ""))
        if value not in values:
            raise VariationError(f"macro {name!r} has no value {value!r} (values: {', '.join(values)})")
        index = index * len(values) + values.index(value)
    return index

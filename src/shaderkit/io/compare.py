"""Comparing two byte strings, as round-trip checks report them."""

from __future__ import annotations


def first_difference(a: bytes, b: bytes) -> int:
    """Offset of the first byte where ``a`` and ``b`` differ; when one is a prefix of the other,
    the shorter length (equal strings: their length)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))

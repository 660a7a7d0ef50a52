"""Float rules of D3D9-era (DX9-class) shader ALUs, shared by the VMs that model them (D3D9,
Latte): the "0 times anything is 0" product and the comparison-based min/max whose NaN handling
follows from the comparison (the second operand wins when either is NaN); and the [0, 1]
saturation every VM but SM4's uses (Maxwell too)."""

from __future__ import annotations

from typing import Any

import numpy as np

F32 = np.float32
_ZERO = F32(0)

__all__ = ["mul_legacy", "min_legacy", "max_legacy", "fract", "saturate"]


def mul_legacy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """DX9 product: +0 when either factor is zero (0 * inf = 0 * NaN = 0), else a * b (float32)."""
    a, b = np.asarray(a), np.asarray(b)
    product = np.asarray(np.multiply(a, b))
    zero: np.ndarray | bool
    if b.size == 1 < a.size:  # one factor the same for every lane (a constant): test it once
        zero = True if b.reshape(-1)[0] == 0 else a == 0
    elif a.size == 1 < b.size:
        zero = True if a.reshape(-1)[0] == 0 else b == 0
    else:
        zero = (a == 0) | (b == 0)
    np.copyto(product, _ZERO, where=zero)
    return product.astype(F32, copy=False)


def min_legacy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a < b ? a : b``: with a NaN in either operand the comparison fails and the result is b."""
    out: np.ndarray = np.where(a < b, a, b)
    return out


def max_legacy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a >= b ? a : b``: with a NaN in either operand the comparison fails and the result is b."""
    out: np.ndarray = np.where(a >= b, a, b)
    return out


def saturate(x: np.ndarray, dtype: type[np.floating[Any]] = F32) -> np.ndarray:
    """Clamp to [0, 1] in ``dtype`` (float32 unless asked), NaN to 0 (the ``_sat`` / CLAMP result
    modifier; float64 for Latte's 64-bit instructions)."""
    zero = dtype(0)
    return np.where(np.isnan(x), zero, np.clip(x, zero, dtype(1))).astype(dtype)


def fract(a: np.ndarray, dtype: type[np.floating[Any]] = F32) -> np.ndarray:
    """``a - floor(a)`` in ``dtype`` (float32 unless asked): D3D9 ``frc``, Latte ``FRACT`` (and
    ``FRACT_64`` in float64)."""
    return (a - np.floor(a)).astype(dtype, copy=False)

"""glibc's exp2f and log2f in NumPy, bit for bit (the functions azahar's PICA200 interpreter calls
through ``std::exp2``/``std::log2``): NumPy's own float32 exp2/log2 differ from them in the last
bit for a fifth of all inputs since NumPy 2.4."""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np

_EXP2_BITS = 5  # 2^(k/32) from a table
_EXP2_N = 1 << _EXP2_BITS
#: 2^r ~ 1 + C2 r + C1 r^2 + C0 r^3 on |r| <= 1/64 (glibc's coefficients)
_EXP2_POLY = (float.fromhex("0x1.c6af84b912394p-5"), float.fromhex("0x1.ebfce50fac4f3p-3"),
              float.fromhex("0x1.62e42ff0c52d6p-1"))
#: adding this rounds a double to a multiple of 1/32 and leaves k in the low bits
_EXP2_SHIFT = float.fromhex("0x1.8p+52") / _EXP2_N


def _powers_of_two() -> np.ndarray:
    """The bits of 2^(i/32), correctly rounded, less i << 47 (so that adding k << 47 scales by 2^(k//32))."""
    with localcontext() as context:
        context.prec = 40
        bits = [np.float64(float(Decimal(2) ** (Decimal(i) / _EXP2_N))).view(np.uint64) for i in range(_EXP2_N)]
    return np.array([int(b) - (i << (52 - _EXP2_BITS)) for i, b in enumerate(bits)], np.uint64)


_EXP2_TABLE = _powers_of_two()


def exp2f(x: np.ndarray) -> np.ndarray:
    """glibc's exp2f of float32 ``x``: (float32) (s * p(r)) with x = k/32 + r, s = 2^(k/32)."""
    x = np.asarray(x, np.float32)
    with np.errstate(all="ignore"):
        xd = x.astype(np.float64)
        in_range = (xd < 128) & (xd > -150)  # (NaN: neither)
        xs = np.where(in_range, xd, 0.0)
        kd = xs + _EXP2_SHIFT
        ki = kd.view(np.uint64)
        r = xs - (kd - _EXP2_SHIFT)
        s = (_EXP2_TABLE[ki % np.uint64(_EXP2_N)] + (ki << np.uint64(52 - _EXP2_BITS))).view(np.float64)
        c0, c1, c2 = _EXP2_POLY
        y = ((c0 * r + c1) * (r * r) + (c2 * r + 1)) * s
        out = y.astype(np.float32)
        # x >= 128 overflows to inf, x <= -150 underflows to 0, NaN comes back as x + x (quieted)
        out = np.where(in_range, out, np.where(xd >= 128, np.float32(np.inf), np.float32(0)))
        return np.where(np.isnan(x), x + x, out)


#: log2f: per subinterval of [asfloat(0x3f330000) = 0.6992, 1.3984): (1/c, log2(c)) for a c near its centre
_LOG2_TABLE = np.array([[float.fromhex(a), float.fromhex(b)] for a, b in (
    ("0x1.661ec79f8f3bep+0", "-0x1.efec65b963019p-2"), ("0x1.571ed4aaf883dp+0", "-0x1.b0b6832d4fca4p-2"),
    ("0x1.49539f0f010bp+0", "-0x1.7418b0a1fb77bp-2"), ("0x1.3c995b0b80385p+0", "-0x1.39de91a6dcf7bp-2"),
    ("0x1.30d190c8864a5p+0", "-0x1.01d9bf3f2b631p-2"), ("0x1.25e227b0b8eap+0", "-0x1.97c1d1b3b7afp-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.2f9e393af3c9fp-3"), ("0x1.12358f08ae5bap+0", "-0x1.960cbbf788d5cp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.a6f9db6475fcep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.338ca9f24f53dp-4"), ("0x1.ca4b31f026aap-1", "0x1.476a9543891bap-3"),
    ("0x1.b2036576afce6p-1", "0x1.e840b4ac4e4d2p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.40645f0c6651cp-2"),
    ("0x1.886e6037841edp-1", "0x1.88e9c2c1b9ff8p-2"), ("0x1.767dcf5534862p-1", "0x1.ce0a44eb17bccp-2"))])
#: log2(1 + r) ~ A0 r^4 + A1 r^3 + A2 r^2 + A3 r
_LOG2_POLY = tuple(float.fromhex(a) for a in (
    "-0x1.712b6f70a7e4dp-2", "0x1.ecabf496832ep-2", "-0x1.715479ffae3dep-1", "0x1.715475f35c8b8p0"))
_LOG2_OFF = 0x3F330000


def log2f(x: np.ndarray) -> np.ndarray:
    """glibc's log2f of float32 ``x``: x = 2^k z, log2(x) = k + log2(c) + log2(1 + (z/c - 1))."""
    x = np.asarray(x, np.float32)
    ix = x.view(np.uint32).astype(np.int64)
    special = (ix - 0x00800000) % (1 << 32) >= 0x7F800000 - 0x00800000  # below 2^-126, inf, NaN, negative
    subnormal = special & (ix > 0) & (ix < 0x00800000)
    with np.errstate(all="ignore"):
        scaled = (x * np.float32(2.0**23)).view(np.uint32).astype(np.int64) - (23 << 23)
    ix = np.where(subnormal, scaled, np.where(special, 0x3F800000, ix))
    tmp = ix - _LOG2_OFF  # (within int32: ix is a positive normal's bits here)
    i = (tmp >> (23 - 4)) % 16
    iz = _LOG2_OFF + (tmp & 0x7FFFFF)  # z = x / 2^k, in [asfloat(_LOG2_OFF), 2 * that)
    k = (tmp >> 23).astype(np.float64)
    invc, logc = _LOG2_TABLE[i, 0], _LOG2_TABLE[i, 1]
    z = iz.astype(np.uint32).view(np.float32).astype(np.float64)
    r = z * invc - 1
    y0 = logc + k
    a0, a1, a2, a3 = _LOG2_POLY
    r2 = r * r
    y = (a0 * r2 + (a1 * r + a2)) * r2 + (a3 * r + y0)
    out = y.astype(np.float32)
    with np.errstate(all="ignore"):  # glibc's results: -inf for zeros, inf for inf, (x - x) / (x - x) else
        fixed = np.where(x == 0, np.float32(-np.inf), np.where(x == np.inf, x, (x - x) / (x - x)))
    return np.where(special & ~subnormal, fixed, out)

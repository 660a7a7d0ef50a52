"""SM4/SM5 ALU semantics: one row per opcode name of ``isa.sm4.opcodes``, run on NumPy lanes.

Values travel as uint32 bit patterns of shape (lanes, 4). A row says how its sources are read
(float, int, uint or double: the operand modifiers and the denormal flush depend on it), how many
destinations it writes, and the function computing them. D3D10/11 rules applied here:

* float32 arithmetic flushes denormal inputs and results to a signed zero (``mov``/``movc`` do not);
* ``min``/``max`` return the other operand when one is NaN;
* ``ftoi``/``ftou``/``dtoi``/``dtou`` truncate and saturate, NaN gives 0;
* shifts use the low 5 bits of the shift count; ``udiv`` by 0 gives 0xFFFFFFFF for both results;
* comparisons write 0xFFFFFFFF or 0; ``mad`` rounds twice (multiply, then add).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass

U32 = np.uint32
F32 = np.float32
TRUE = np.uint32(0xFFFFFFFF)

FLOAT, INT, UINT, DOUBLE, BITS = "float", "int", "uint", "double", "bits"

Arr = np.ndarray
Fn = Callable[..., Any]


@dataclass(frozen=True)
class AluOp:
    """How one opcode reads its sources and computes its destination(s)."""

    kind: str  # FLOAT, INT, UINT, DOUBLE or BITS (no modifiers, no flush)
    sources: int
    fn: Fn
    dests: int = 1
    flush: bool = True  # float: flush denormals of sources and results
    result: str = ""  # the destination's kind when it differs from ``kind``
    #: dp2/dp3/dp4: the result is one value written to every masked component
    scalar: bool = False
    #: dmovc: the first source is a 32-bit condition per double (components x, y after swizzle)
    condition: bool = False


_TINY = np.float32(1.1754944e-38)


_EXPONENT, _SIGN = np.uint32(0x7F800000), np.uint32(0x80000000)


_SCRATCH: dict[tuple[tuple[int, ...], Any], Arr] = {}


def _scratch(shape: tuple[int, ...], dtype: Any) -> Arr:
    """A reusable work array (never returned to callers); one per shape and type."""
    key = (shape, np.dtype(dtype))
    found = _SCRATCH.get(key)
    if found is None:
        if len(_SCRATCH) > 16:
            _SCRATCH.clear()
        found = _SCRATCH[key] = np.empty(shape, dtype)
    return found


def flush(x: Arr, owned: bool = False) -> Arr:
    """Denormal float32 values become zero of the same sign. ``owned``: ``x`` is a fresh array
    nobody else sees, so it may be changed in place (otherwise a copy is made when needed)."""
    if x.dtype != np.float32:
        return x
    if x.ndim == 2 and x.strides[0] == 0 and len(x) > 1:  # one row broadcast over the lanes
        return np.broadcast_to(flush(x[:1]), x.shape)
    if x.ndim == 2 and x.strides[1] == 0 and x.shape[1] > 1:  # one value broadcast over components
        return np.broadcast_to(flush(x[:, :1]), x.shape)
    bits = x.view(np.uint32)
    # zeros and denormals (clearing their mantissa keeps zeros); scratch buffers avoid allocating
    exponent = np.bitwise_and(bits, _EXPONENT, out=_scratch(bits.shape, np.uint32))
    small = np.equal(exponent, 0, out=_scratch(bits.shape, np.bool_))
    if not small.any():
        return x
    if not (owned and x.flags.writeable and x.flags.c_contiguous):
        bits = bits.copy()
    np.bitwise_and(bits, _SIGN, out=bits, where=small)
    return bits.view(np.float32)


def as_f(bits: Arr) -> Arr:
    """The uint32 bits viewed as float32 (no copy)."""
    return bits.view(np.float32)


def as_i(bits: Arr) -> Arr:
    """The uint32 bits viewed as int32 (no copy)."""
    return bits.view(np.int32)


def to_bits(values: Arr) -> Arr:
    """``values`` as uint32 bits (floats/ints reinterpreted, booleans as 0/0xFFFFFFFF)."""
    if values.dtype == np.uint32:
        return values
    if values.dtype in (np.float32, np.int32):
        return values.view(np.uint32)
    if values.dtype == np.bool_:
        return np.where(values, TRUE, np.uint32(0))
    return values.astype(np.uint32)


def _cmp(fn: Callable[[Arr, Arr], Arr]) -> Fn:
    def compare(a: Arr, b: Arr) -> Arr:
        with np.errstate(invalid="ignore"):
            return np.where(fn(a, b), TRUE, np.uint32(0))

    return compare


def _f(fn: Callable[..., Arr]) -> Fn:
    def run(*args: Arr) -> Arr:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args), dtype=np.float32)

    return run


def ftoi(x: Arr) -> Arr:
    """D3D ``ftoi``: truncate, NaN to 0, clamp to the int32 range."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        t = np.where(np.isnan(t), 0, np.clip(t, -2147483648.0, 2147483647.0))
    return t.astype(np.int64).astype(np.int32)


def ftou(x: Arr) -> Arr:
    """D3D ``ftou``: truncate, NaN to 0, clamp to the uint32 range."""
    with np.errstate(invalid="ignore"):
        t = np.trunc(x.astype(np.float64))
        t = np.where(np.isnan(t), 0, np.clip(t, 0.0, 4294967295.0))
    return t.astype(np.int64).astype(np.uint32)


def _dp(n: int) -> Fn:
    def dot(a: Arr, b: Arr) -> Arr:
        # products rounded, then summed left to right in float32; dp is one instruction, so only its
        # (already flushed) inputs and its result are flushed, not the partial products
        with np.errstate(all="ignore"):
            products = np.multiply(a[:, :n], b[:, :n], dtype=np.float32)
            total = products[:, 0].copy()
            for i in range(1, n):
                np.add(total, products[:, i], out=total)
        return np.broadcast_to(total[:, None], (len(total), 4))  # the caller flushes the result

    return dot


def _mad(a: Arr, b: Arr, c: Arr) -> Arr:
    with np.errstate(all="ignore"):
        product = flush(np.multiply(a, b, dtype=np.float32), owned=True)
        np.add(product, c, out=product, casting="unsafe")
        return product


def _rsq(x: Arr) -> Arr:
    with np.errstate(all="ignore"):
        return (np.float32(1) / np.sqrt(x)).astype(np.float32)


def _frc(x: Arr) -> Arr:
    with np.errstate(all="ignore"):
        return (x - np.floor(x)).astype(np.float32)


def _sincos(x: Arr) -> tuple[Arr, Arr]:
    with np.errstate(all="ignore"):
        return np.sin(x.astype(np.float64)).astype(np.float32), np.cos(x.astype(np.float64)).astype(np.float32)


def _shift(a: Arr, b: Arr) -> Arr:
    return (b & U32(31)).astype(np.uint32)


def _ishl(a: Arr, b: Arr) -> Arr:
    return (a.view(np.uint32) << _shift(a, b.view(np.uint32))).view(np.int32)


def _ishr(a: Arr, b: Arr) -> Arr:
    return a >> _shift(a, b.view(np.uint32)).astype(np.int32)


def _ushr(a: Arr, b: Arr) -> Arr:
    return a >> _shift(a, b)


def _imul(a: Arr, b: Arr) -> tuple[Arr, Arr]:
    full = a.astype(np.int64) * b.astype(np.int64)
    return (full >> 32).astype(np.int32), (full & 0xFFFFFFFF).astype(np.uint32)


def _umul(a: Arr, b: Arr) -> tuple[Arr, Arr]:
    full = a.astype(np.uint64) * b.astype(np.uint64)
    return (full >> np.uint64(32)).astype(np.uint32), (full & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _udiv(a: Arr, b: Arr) -> tuple[Arr, Arr]:
    zero = b == 0
    safe = np.where(zero, U32(1), b)
    q = np.where(zero, U32(0xFFFFFFFF), a // safe).astype(np.uint32)
    r = np.where(zero, U32(0xFFFFFFFF), a % safe).astype(np.uint32)
    return q, r


def _uaddc(a: Arr, b: Arr) -> tuple[Arr, Arr]:
    full = a.astype(np.uint64) + b.astype(np.uint64)
    return (full & np.uint64(0xFFFFFFFF)).astype(np.uint32), (full >> np.uint64(32)).astype(np.uint32)


def _usubb(a: Arr, b: Arr) -> tuple[Arr, Arr]:
    return (a - b).astype(np.uint32), (a < b).astype(np.uint32)


def bfe(signed: bool) -> Fn:
    """D3D11's ``ibfe``/``ubfe`` over (width, offset, value) arrays: width and offset use their low 5
    bits; width 0 gives 0; offset + width >= 32 gives ``value >> offset`` (arithmetic when ``signed``)."""
    def extract(width: Arr, offset: Arr, value: Arr) -> Arr:
        w = width.astype(np.int64) & 31
        o = offset.astype(np.int64) & 31
        v = value.astype(np.int64) & 0xFFFFFFFF
        out = np.zeros_like(v)
        full = w + o >= 32
        # width + offset < 32: shift left then right; else a plain right shift (D3D's rule)
        left = np.where(full, 0, 32 - (w + o))
        shifted = (v << left) & 0xFFFFFFFF
        right = np.where(full, o, 32 - w)
        if signed:
            s = shifted.astype(np.uint32).view(np.int32).astype(np.int64)
            out = s >> right
        else:
            out = shifted >> right
        out = np.where(w == 0, 0, out)
        return (out & 0xFFFFFFFF).astype(np.uint32)

    return extract


def _bfi(width: Arr, offset: Arr, insert: Arr, base: Arr) -> Arr:
    w = width.astype(np.uint64) & np.uint64(31)
    o = offset.astype(np.uint64) & np.uint64(31)
    mask = (((np.uint64(1) << w) - np.uint64(1)) << o) & np.uint64(0xFFFFFFFF)
    ins = (insert.astype(np.uint64) << o) & mask
    return ((base.astype(np.uint64) & ~mask & np.uint64(0xFFFFFFFF)) | ins).astype(np.uint32)


def _bfrev(a: Arr) -> Arr:
    bits = np.unpackbits(np.ascontiguousarray(a, "<u4").view(np.uint8).reshape(*a.shape, 4), axis=-1, bitorder="little")
    return np.packbits(bits[..., ::-1], axis=-1, bitorder="little").view("<u4").reshape(a.shape)


def _countbits(a: Arr) -> Arr:
    return np.unpackbits(np.ascontiguousarray(a, "<u4").view(np.uint8).reshape(*a.shape, 4), axis=-1).sum(axis=-1).astype(np.uint32)


def _firstbit_lo(a: Arr) -> Arr:
    low = a & (~a + U32(1))
    with np.errstate(divide="ignore"):
        idx = np.where(a == 0, U32(0xFFFFFFFF), np.log2(np.where(a == 0, 1, low).astype(np.float64)).astype(np.uint32))
    return idx.astype(np.uint32)


def _firstbit_hi(a: Arr) -> Arr:
    # counted from the most significant bit, as D3D defines it
    hi = np.floor(np.log2(np.where(a == 0, 1, a).astype(np.float64))).astype(np.int64)
    return np.where(a == 0, U32(0xFFFFFFFF), (31 - hi).astype(np.uint32)).astype(np.uint32)


def _firstbit_shi(a: Arr) -> Arr:
    s = a.view(np.int32)
    v = np.where(s < 0, ~s, s).view(np.uint32)
    return _firstbit_hi(v)


def _f32tof16(x: Arr) -> Arr:
    with np.errstate(all="ignore"):
        return x.astype(np.float16).view(np.uint16).astype(np.uint32)


def _f16tof32(a: Arr) -> Arr:
    return (a & U32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32)


def _msad(ref: Arr, src: Arr, accum: Arr) -> Arr:
    total = accum.astype(np.uint64)
    for byte in range(4):
        r = (ref >> U32(8 * byte)) & U32(0xFF)
        s = (src >> U32(8 * byte)) & U32(0xFF)
        diff = np.abs(r.astype(np.int64) - s.astype(np.int64)).astype(np.uint64)
        total = total + np.where(r == 0, np.uint64(0), diff)
    return (total & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def _dcmp(fn: Callable[[Arr, Arr], Arr]) -> Fn:
    def compare(a: Arr, b: Arr) -> Arr:
        with np.errstate(invalid="ignore"):
            return fn(a, b)

    return compare


def _d(fn: Callable[..., Arr]) -> Fn:
    def run(*args: Arr) -> Arr:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args), dtype=np.float64)

    return run


def _dtoi(x: Arr) -> Arr:
    return ftoi(x)


def _dtou(x: Arr) -> Arr:
    return ftou(x)


ALU: dict[str, AluOp] = {
    # float32
    "add": AluOp(FLOAT, 2, _f(np.add)),
    "mul": AluOp(FLOAT, 2, _f(np.multiply)),
    "div": AluOp(FLOAT, 2, _f(np.divide)),
    "mad": AluOp(FLOAT, 3, _mad),
    "min": AluOp(FLOAT, 2, _f(np.fmin)),
    "max": AluOp(FLOAT, 2, _f(np.fmax)),
    "dp2": AluOp(FLOAT, 2, _dp(2), scalar=True),
    "dp3": AluOp(FLOAT, 2, _dp(3), scalar=True),
    "dp4": AluOp(FLOAT, 2, _dp(4), scalar=True),
    "exp": AluOp(FLOAT, 1, _f(np.exp2)),
    "log": AluOp(FLOAT, 1, _f(np.log2)),
    "sqrt": AluOp(FLOAT, 1, _f(np.sqrt)),
    "rsq": AluOp(FLOAT, 1, _rsq),
    "rcp": AluOp(FLOAT, 1, _f(lambda x: np.float32(1) / x)),
    "frc": AluOp(FLOAT, 1, _frc),
    "round_ne": AluOp(FLOAT, 1, _f(np.rint)),
    "round_ni": AluOp(FLOAT, 1, _f(np.floor)),
    "round_pi": AluOp(FLOAT, 1, _f(np.ceil)),
    "round_z": AluOp(FLOAT, 1, _f(np.trunc)),
    "sincos": AluOp(FLOAT, 1, _sincos, dests=2),
    "eq": AluOp(FLOAT, 2, _cmp(np.equal), result=BITS),
    "ne": AluOp(FLOAT, 2, _cmp(np.not_equal), result=BITS),
    "lt": AluOp(FLOAT, 2, _cmp(np.less), result=BITS),
    "ge": AluOp(FLOAT, 2, _cmp(np.greater_equal), result=BITS),
    "ftoi": AluOp(FLOAT, 1, ftoi, result=INT),
    "ftou": AluOp(FLOAT, 1, ftou, result=UINT),
    "f32tof16": AluOp(FLOAT, 1, _f32tof16, result=UINT, flush=False),
    # int / uint
    "iadd": AluOp(INT, 2, lambda a, b: a + b),
    "imad": AluOp(INT, 3, lambda a, b, c: a * b + c),
    "ineg": AluOp(INT, 1, lambda a: -a),
    "imax": AluOp(INT, 2, np.maximum),
    "imin": AluOp(INT, 2, np.minimum),
    "ishl": AluOp(INT, 2, _ishl),
    "ishr": AluOp(INT, 2, _ishr),
    "ieq": AluOp(INT, 2, _cmp(np.equal), result=BITS),
    "ine": AluOp(INT, 2, _cmp(np.not_equal), result=BITS),
    "ilt": AluOp(INT, 2, _cmp(np.less), result=BITS),
    "ige": AluOp(INT, 2, _cmp(np.greater_equal), result=BITS),
    "imul": AluOp(INT, 2, _imul, dests=2),
    "itof": AluOp(INT, 1, lambda a: a.astype(np.float32), result=FLOAT),
    "ibfe": AluOp(UINT, 3, bfe(True)),
    "firstbit_shi": AluOp(UINT, 1, _firstbit_shi),
    "umad": AluOp(UINT, 3, lambda a, b, c: a * b + c),
    "umax": AluOp(UINT, 2, np.maximum),
    "umin": AluOp(UINT, 2, np.minimum),
    "ushr": AluOp(UINT, 2, _ushr),
    "ult": AluOp(UINT, 2, _cmp(np.less), result=BITS),
    "uge": AluOp(UINT, 2, _cmp(np.greater_equal), result=BITS),
    "umul": AluOp(UINT, 2, _umul, dests=2),
    "udiv": AluOp(UINT, 2, _udiv, dests=2),
    "uaddc": AluOp(UINT, 2, _uaddc, dests=2),
    "usubb": AluOp(UINT, 2, _usubb, dests=2),
    "utof": AluOp(UINT, 1, lambda a: a.astype(np.float32), result=FLOAT),
    "ubfe": AluOp(UINT, 3, bfe(False)),
    "bfi": AluOp(UINT, 4, _bfi),
    "bfrev": AluOp(UINT, 1, _bfrev),
    "countbits": AluOp(UINT, 1, _countbits),
    "firstbit_hi": AluOp(UINT, 1, _firstbit_hi),
    "firstbit_lo": AluOp(UINT, 1, _firstbit_lo),
    "f16tof32": AluOp(UINT, 1, _f16tof32, result=FLOAT),
    "msad": AluOp(UINT, 3, _msad),
    "and": AluOp(UINT, 2, np.bitwise_and),
    "or": AluOp(UINT, 2, np.bitwise_or),
    "xor": AluOp(UINT, 2, np.bitwise_xor),
    "not": AluOp(UINT, 1, np.invert),
    # moves keep bits
    "mov": AluOp(BITS, 1, lambda a: a, flush=False),
    "movc": AluOp(BITS, 3, lambda c, a, b: np.where(c != 0, a, b), flush=False),
    "swapc": AluOp(BITS, 3, lambda c, a, b: (np.where(c != 0, b, a), np.where(c != 0, a, b)), dests=2, flush=False),
    # double (pairs of components)
    "dadd": AluOp(DOUBLE, 2, _d(np.add)),
    "dmul": AluOp(DOUBLE, 2, _d(np.multiply)),
    "ddiv": AluOp(DOUBLE, 2, _d(np.divide)),
    "dmax": AluOp(DOUBLE, 2, _d(np.fmax)),
    "dmin": AluOp(DOUBLE, 2, _d(np.fmin)),
    "dfma": AluOp(DOUBLE, 3, _d(lambda a, b, c: a * b + c)),
    "drcp": AluOp(DOUBLE, 1, _d(lambda a: 1.0 / a)),
    "dmov": AluOp(DOUBLE, 1, lambda a: a, flush=False),
    # condition x picks the double for dest.xy, condition y the one for dest.zw; a move keeps bits
    "dmovc": AluOp(DOUBLE, 3, lambda c, a, b: np.where(c != 0, a, b), flush=False, condition=True),
    "deq": AluOp(DOUBLE, 2, _dcmp(np.equal), result=BITS),
    "dne": AluOp(DOUBLE, 2, _dcmp(np.not_equal), result=BITS),
    "dlt": AluOp(DOUBLE, 2, _dcmp(np.less), result=BITS),
    "dge": AluOp(DOUBLE, 2, _dcmp(np.greater_equal), result=BITS),
    "dtof": AluOp(DOUBLE, 1, lambda a: a.astype(np.float32), result=FLOAT),
    "dtoi": AluOp(DOUBLE, 1, _dtoi, result=INT),
    "dtou": AluOp(DOUBLE, 1, _dtou, result=UINT),
    "ftod": AluOp(FLOAT, 1, lambda a: a.astype(np.float64), result=DOUBLE),
    "itod": AluOp(INT, 1, lambda a: a.astype(np.float64), result=DOUBLE),
    "utod": AluOp(UINT, 1, lambda a: a.astype(np.float64), result=DOUBLE),
}


# -- public names of the bit and half helpers (shared with the Maxwell VM) ---------------------------
def bit_reverse(a: Arr) -> Arr:
    """The 32 bits of each uint32 in reverse order (``bfrev``)."""
    return _bfrev(np.asarray(a, U32))


def count_bits(a: Arr) -> Arr:
    """The number of set bits of each uint32 (``countbits``)."""
    return _countbits(np.asarray(a, U32))


def first_bit_high(a: Arr) -> Arr:
    """Index of the highest set bit counted from the most significant bit (``firstbit_hi``:
    31 - position), 0xFFFFFFFF for 0."""
    return _firstbit_hi(np.asarray(a, U32))


def first_bit_high_signed(a: Arr) -> Arr:
    """``first_bit_high`` of the value, or of its complement when negative (``firstbit_shi``)."""
    return _firstbit_shi(np.asarray(a, U32))


def f16_to_f32(a: Arr) -> Arr:
    """The low 16 bits of each uint32 read as a half, as float32 (``f16tof32``)."""
    return _f16tof32(np.asarray(a, U32))


def f32_to_f16(x: Arr) -> Arr:
    """Each float32 rounded to the nearest half, its bits as uint32 (``f32tof16``)."""
    return _f32tof16(np.asarray(x, np.float32))

"""What each Latte ALU opcode computes: ONE table keyed by the ISA table's op names.

Every row says how the sources are read (``f`` float32, ``i`` int32, ``u`` uint32 per source),
what the result is (``f``/``i``/``u``), the kind of instruction and a NumPy function over whole
lanes, built once at import and looked up by the ISA table's op name;
an opcode without a row gets an entry whose use raises :class:`VMError` with the reason in
:data:`UNSUPPORTED`.

Kinds: ``map`` (element-wise result), ``pred`` (PRED_SET*: the function returns the condition;
the result is 1.0/0.0 and UPDATE_PRED / UPDATE_EXECUTE_MASK use the condition), ``kill`` (the
condition kills the lane; the result is 1.0/0.0), ``mova`` (the function returns the integer
loaded into AR), ``reduce`` (DOT4, DOT4_IEEE, MAX4, CUBE: one result from the four vector
slots), ``wide`` (the 64-bit float opcodes: one operation spread over two or four vector slots,
laid out over them by ``Machine.wide``), ``nop``.

Numeric rules (from AMD's R700 ISA document, Mesa's r600 compiler and decaf-emu, see the
package docstring for the full list of choices):

* MUL, MULADD*, DOT4 and MUL_LIT use the DX9 rule: a product with a zero factor is +0, even
  0 * inf and 0 * NaN; MUL_IEEE, MULADD_IEEE*, DOT4_IEEE and FMA are IEEE.
* MAX/MIN are the DX9 ``a >= b ? a : b`` / ``a < b ? a : b`` (NaN in src1 wins, in src0 loses);
  MAX_DX10/MIN_DX10 ignore a NaN operand (IEEE maxNum/minNum).
* RECIP/RECIPSQRT: ``_IEEE`` is IEEE; ``_CLAMPED`` turns +-inf results into +-FLT_MAX; ``_FF``
  turns them into +-0. LOG_CLAMPED turns -inf into -FLT_MAX.
* SIN/COS take their input in turns: SIN(x) = sin(2*pi*x) (compilers multiply by 1/(2*pi)
  first); AMD documents a valid input range of [-256, 256] turns, the VM computes any input.
* FLT_TO_INT/FLT_TO_UINT round to nearest even (the hardware's default round mode; Mesa's r600
  compiler emits TRUNC first for C's truncation), clamp to the target range, NaN gives 0.
* Shifts use the low 5 bits of the shift count (so a shift by 32 is a shift by 0), as Direct3D 10
  defines them for this hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass
from shaderkit.isa.latte import table as T
from shaderkit.vm.legacy_float import fract, max_legacy, min_legacy, mul_legacy
from shaderkit.vm.sm4.alu import bfe as d3d_bfe

F32 = np.float32
I32 = np.int32
U32 = np.uint32
FLT_MAX = np.float32(np.finfo(np.float32).max)
_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_TWO_PI = np.float64(2.0 * np.pi)

Fn = Callable[..., Any]


@dataclass(frozen=True)
class Semantic:
    """How one ALU opcode reads its sources and computes its result (see the module docstring)."""

    kind: str
    ins: str
    out: str
    fn: Fn | None = None
    #: vector slots one ``wide`` instruction spans (2: x+y or z+w; 4: x+y+z+w)
    slots: int = 0


# -- float helpers -------------------------------------------------------------------------------
def _fit(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=F32)


def _inf_to(x: np.ndarray, value: np.float32) -> np.ndarray:
    return np.where(np.isinf(x), np.copysign(value, x), x).astype(F32, copy=False)


def _recip(a: np.ndarray) -> np.ndarray:
    return (_ONE / a).astype(F32, copy=False)


def _rsq(a: np.ndarray) -> np.ndarray:
    return (_ONE / np.sqrt(a)).astype(F32, copy=False)


def _flt_to_int(a: np.ndarray, lo: float, hi: float, dtype: Any) -> np.ndarray:
    r = np.rint(a.astype(np.float64))
    r = np.where(np.isnan(r), 0.0, np.clip(r, lo, hi))
    return r.astype(np.int64).astype(dtype)


def _trig(fn: Fn) -> Fn:
    def run(a: np.ndarray) -> np.ndarray:
        return _fit(fn(a.astype(np.float64) * _TWO_PI))
    return run


def _log_clamped(a: np.ndarray) -> np.ndarray:
    r = np.log2(a)
    return np.where(r == -np.inf, -FLT_MAX, r).astype(F32, copy=False)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _fit(a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64))


def _muladd(scale: float, ieee: bool) -> Fn:
    s = F32(scale)

    def run(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        p = a * b if ieee else mul_legacy(a, b)
        r = p + c
        return _fit(r * s) if scale != 1 else _fit(r)
    return run


# -- integer helpers -----------------------------------------------------------------------------
def _shift(fn: Fn) -> Fn:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return fn(a, (b.view(U32) & U32(31)).astype(a.dtype))
    return run


def _mulhi(signed: bool) -> Fn:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        wide = np.int64 if signed else np.uint64
        p = a.astype(wide) * b.astype(wide)
        return (p >> 32).astype(I32 if signed else U32)
    return run


def _mullo(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.uint64) * b.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(a.dtype)


def _int24(x: np.ndarray) -> np.ndarray:
    return ((x.astype(np.int64) & 0xFFFFFF) ^ 0x800000) - 0x800000


def _mul_int24(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (_int24(a) * _int24(b) & 0xFFFFFFFF).astype(np.uint32).view(I32)


def _mulhi_int24(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return ((_int24(a) * _int24(b)) >> 32).astype(I32)


def _recip_uint(a: np.ndarray) -> np.ndarray:
    wide = a.astype(np.uint64)
    safe = np.where(wide == 0, 1, wide)
    r = np.where(wide <= 1, np.uint64(0xFFFFFFFF), (np.uint64(1) << np.uint64(32)) // safe)
    return r.astype(U32)


def _bfe(signed: bool) -> Fn:
    """BFE_UINT / BFE_INT (src0 value, src1 offset, src2 width; 5 bits of each): the D3D11 rule
    the SM4 VM implements. Width 0 gives 0; offset + width < 32 extracts the field (sign-extended
    for BFE_INT); otherwise the result is value >> offset (arithmetic for BFE_INT). AMD's
    Evergreen-family compilers rely on it: Mesa's r600 backend emits BFE_INT/BFE_UINT for NIR's
    ibfe/ubfe, whose definition (nir_opcodes.py, "SM5 ubfe/ibfe") is this rule."""
    extract = d3d_bfe(signed)

    def run(a: np.ndarray, off: np.ndarray, width: np.ndarray) -> np.ndarray:
        out = extract(width.view(U32), off.view(U32), a.view(U32))
        return out.view(I32) if signed else out
    return run


def _bfi(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a & b) | (~a & c)


def _cnd(test: Fn) -> Fn:
    def run(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        return np.where(test(a), b, c)
    return run


def _set(test: Fn, true: Any, false: Any, dtype: Any) -> Fn:
    t, f = dtype(true), dtype(false)

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(test(a, b), t, f).astype(dtype, copy=False)
    return run


# -- reductions (the four vector slots' sources: s[slot][source]) -------------------------------
def _dot4(ieee: bool) -> Fn:
    def run(s: list[list[np.ndarray]]) -> np.ndarray:
        total = np.zeros(1, F32)
        for slot in s:
            p = slot[0] * slot[1] if ieee else mul_legacy(slot[0], slot[1])
            total = total + p
        return _fit(total)
    return run


def _max4(s: list[list[np.ndarray]]) -> np.ndarray:
    r = s[0][0]
    for slot in s[1:]:
        r = max_legacy(r, slot[0])
    return _fit(r)


def cube(s: list[list[np.ndarray]]) -> list[np.ndarray]:
    """CUBE over the four vector slots (compilers give src0 = r.zzxy, src1 = r.yxzz): per slot
    (x, y, z, w) = (tc, sc, 2 * major axis, face id) with Direct3D's face rules."""
    rx, ry, rz = s[2][0], s[3][0], s[0][0]
    ax, ay, az = np.abs(rx), np.abs(ry), np.abs(rz)
    zmaj = (az >= ax) & (az >= ay)
    ymaj = ~zmaj & (ay >= ax)
    ma = np.where(zmaj, rz, np.where(ymaj, ry, rx))
    face = np.where(zmaj, np.where(rz < 0, 5, 4),
                    np.where(ymaj, np.where(ry < 0, 3, 2), np.where(rx < 0, 1, 0))).astype(F32)
    sc = np.where(zmaj, np.where(rz < 0, -rx, rx), np.where(ymaj, rx, np.where(rx < 0, rz, -rz)))
    tc = np.where(ymaj, np.where(ry < 0, -rz, rz), -ry)
    return [_fit(tc), _fit(sc), _fit(ma * F32(2)), face]


# -- 64-bit floats (``wide``) ----------------------------------------------------------------------
# The slot layout of these instructions (which slot holds which word of a source or result) is
# applied by the machine alone: see ``Machine.wide`` in machine.py.


def join_double(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """The float64 values whose high and low 32-bit words are ``hi`` and ``lo`` (uint32)."""
    hi, lo = np.broadcast_arrays(np.asarray(hi).view(U32), np.asarray(lo).view(U32))
    bits = (hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)
    return bits.view(np.float64)


def split_double(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low word, high word) as uint32 of float64 ``value``."""
    bits = np.ascontiguousarray(value, dtype=np.float64).view(np.uint64)
    return (bits & np.uint64(0xFFFFFFFF)).astype(U32), (bits >> np.uint64(32)).astype(U32)


def ldexp64(exponent: np.ndarray, value: np.ndarray) -> np.ndarray:
    """LDEXP_64 as AMD's R700 document gives it (section 9, "LDEXP_64", table 9.6): src1 (the
    double) times 2**src0 (a 32-bit integer) by adding src0 to the biased exponent field. An
    infinite or NaN src1 is returned unchanged; a zero or denormal src1 gives a zero of its sign
    (denormals are not scaled); a new exponent of 0x7FF or more gives an infinity of src1's sign
    and one of 0 or less a zero of its sign (the result is never denormal). Operand order is the
    R700 document's; Mesa's Evergreen TGSI backend has DLDEXP pass the double as src0 and the
    exponent as src1, the other way round, but that path never runs (r600 reports no
    PIPE_SHADER_CAP_TGSI_DFRACEXP_DLDEXP_SUPPORTED), so the document is followed."""
    bits = np.ascontiguousarray(value, dtype=np.float64).view(np.uint64)
    sign = bits & np.uint64(1 << 63)
    exp = (bits >> np.uint64(52) & np.uint64(0x7FF)).astype(np.int64)
    mant = bits & np.uint64((1 << 52) - 1)
    new = exp + np.asarray(exponent).view(I32).astype(np.int64)
    inf = sign | np.uint64(0x7FF << 52)
    scaled = sign | (new.astype(np.uint64) << np.uint64(52)) | mant  # used only where 0 < new < 0x7FF
    out = np.where(exp == 0x7FF, bits,
                   np.where(exp == 0, sign, np.where(new >= 0x7FF, inf, np.where(new <= 0, sign, scaled))))
    return out.view(np.float64)


def frexp64(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FREXP_64: (significand, exponent) with value = significand * 2**exponent and the
    significand's magnitude in [0.5, 1), as C's frexp (the GLSL frexp Mesa implements with it).
    Zero gives (zero, 0); infinities and NaNs, which no source covers, give (value, 0) as C's
    frexp does (the VM's choice). The slot layout is tgsi_dfracexp's in Mesa's TGSI backend,
    written by the driver's authors but never run (r600 reports no DFRACEXP support); no other
    source gives it."""
    mant, exp = np.frexp(np.asarray(value, np.float64))
    return mant, exp.astype(I32)


def _wide(ins: str, out: str, fn: Fn, slots: int = 2) -> Semantic:
    return Semantic("wide", ins, out, fn, slots)


def _m(ins: str, out: str, fn: Fn) -> Semantic:
    return Semantic("map", ins, out, fn)


def _pred(ins: str, test: Fn) -> Semantic:
    return Semantic("pred", ins, "f", test)


def _kill(ins: str, test: Fn) -> Semantic:
    return Semantic("kill", ins, "f", test)


_EQ, _GT, _GE, _NE = np.equal, np.greater, np.greater_equal, np.not_equal

#: ALU opcode name -> semantics (names are the ISA table's)
SEMANTICS: dict[str, Semantic] = {
    "ADD": _m("ff", "f", lambda a, b: _fit(a + b)),
    "MUL": _m("ff", "f", mul_legacy),
    "MUL_IEEE": _m("ff", "f", lambda a, b: _fit(a * b)),
    "MAX": _m("ff", "f", max_legacy),
    "MIN": _m("ff", "f", min_legacy),
    "MAX_DX10": _m("ff", "f", np.fmax),
    "MIN_DX10": _m("ff", "f", np.fmin),
    "SETE": _m("ff", "f", _set(_EQ, 1.0, 0.0, F32)),
    "SETGT": _m("ff", "f", _set(_GT, 1.0, 0.0, F32)),
    "SETGE": _m("ff", "f", _set(_GE, 1.0, 0.0, F32)),
    "SETNE": _m("ff", "f", _set(_NE, 1.0, 0.0, F32)),
    "SETE_DX10": _m("ff", "i", _set(_EQ, -1, 0, I32)),
    "SETGT_DX10": _m("ff", "i", _set(_GT, -1, 0, I32)),
    "SETGE_DX10": _m("ff", "i", _set(_GE, -1, 0, I32)),
    "SETNE_DX10": _m("ff", "i", _set(_NE, -1, 0, I32)),
    "FRACT": _m("f", "f", fract),
    "TRUNC": _m("f", "f", lambda a: _fit(np.trunc(a))),
    "CEIL": _m("f", "f", lambda a: _fit(np.ceil(a))),
    "RNDNE": _m("f", "f", lambda a: _fit(np.rint(a))),
    "FLOOR": _m("f", "f", lambda a: _fit(np.floor(a))),
    "MOVA": Semantic("mova", "f", "f", lambda a: _flt_to_int(a, -256, 255, I32)),
    "MOVA_FLOOR": Semantic("mova", "f", "f",
                           lambda a: _flt_to_int(np.floor(a), -256, 255, I32)),
    "MOVA_INT": Semantic("mova", "i", "i", lambda a: np.clip(a, -256, 255).astype(I32)),
    "MOV": _m("f", "f", lambda a: a),
    "NOP": Semantic("nop", "", "f"),
    "PRED_SETE": _pred("ff", _EQ),
    "PRED_SETGT": _pred("ff", _GT),
    "PRED_SETGE": _pred("ff", _GE),
    "PRED_SETNE": _pred("ff", _NE),
    "PRED_SETE_INT": _pred("ii", _EQ),
    "PRED_SETGT_INT": _pred("ii", _GT),
    "PRED_SETGE_INT": _pred("ii", _GE),
    "PRED_SETNE_INT": _pred("ii", _NE),
    "PRED_SETGT_UINT": _pred("uu", _GT),
    "PRED_SETGE_UINT": _pred("uu", _GE),
    "KILLE": _kill("ff", _EQ),
    "KILLGT": _kill("ff", _GT),
    "KILLGE": _kill("ff", _GE),
    "KILLNE": _kill("ff", _NE),
    "KILLE_INT": _kill("ii", _EQ),
    "KILLGT_INT": _kill("ii", _GT),
    "KILLGE_INT": _kill("ii", _GE),
    "KILLNE_INT": _kill("ii", _NE),
    "KILLGT_UINT": _kill("uu", _GT),
    "KILLGE_UINT": _kill("uu", _GE),
    "AND_INT": _m("ii", "i", np.bitwise_and),
    "OR_INT": _m("ii", "i", np.bitwise_or),
    "XOR_INT": _m("ii", "i", np.bitwise_xor),
    "NOT_INT": _m("ii", "i", lambda a, b: np.invert(a)),  # the table gives it two sources; src1 is unused
    "ADD_INT": _m("ii", "i", lambda a, b: (a.view(U32) + b.view(U32)).view(I32)),
    "SUB_INT": _m("ii", "i", lambda a, b: (a.view(U32) - b.view(U32)).view(I32)),
    "MAX_INT": _m("ii", "i", np.maximum),
    "MIN_INT": _m("ii", "i", np.minimum),
    "MAX_UINT": _m("uu", "u", np.maximum),
    "MIN_UINT": _m("uu", "u", np.minimum),
    "SETE_INT": _m("ii", "i", _set(_EQ, -1, 0, I32)),
    "SETGT_INT": _m("ii", "i", _set(_GT, -1, 0, I32)),
    "SETGE_INT": _m("ii", "i", _set(_GE, -1, 0, I32)),
    "SETNE_INT": _m("ii", "i", _set(_NE, -1, 0, I32)),
    "SETGT_UINT": _m("uu", "u", _set(_GT, 0xFFFFFFFF, 0, U32)),
    "SETGE_UINT": _m("uu", "u", _set(_GE, 0xFFFFFFFF, 0, U32)),
    "DOT4": Semantic("reduce", "ff", "f", _dot4(False)),
    "DOT4_IEEE": Semantic("reduce", "ff", "f", _dot4(True)),
    "MAX4": Semantic("reduce", "ff", "f", _max4),  # the table gives two sources; src1 is unused
    "CUBE": Semantic("reduce", "ff", "f", cube),
    "MUL_INT24": _m("ii", "i", _mul_int24),
    "MULHI_INT24": _m("ii", "i", _mulhi_int24),
    "EXP_IEEE": _m("f", "f", lambda a: _fit(np.exp2(a))),
    "LOG_CLAMPED": _m("f", "f", _log_clamped),
    "LOG_IEEE": _m("f", "f", lambda a: _fit(np.log2(a))),
    "RECIP_CLAMPED": _m("f", "f", lambda a: _inf_to(_recip(a), FLT_MAX)),
    "RECIP_FF": _m("f", "f", lambda a: _inf_to(_recip(a), _ZERO)),
    "RECIP_IEEE": _m("f", "f", _recip),
    "RECIPSQRT_CLAMPED": _m("f", "f", lambda a: _inf_to(_rsq(a), FLT_MAX)),
    "RECIPSQRT_FF": _m("f", "f", lambda a: _inf_to(_rsq(a), _ZERO)),
    "RECIPSQRT_IEEE": _m("f", "f", _rsq),
    "SQRT_IEEE": _m("f", "f", lambda a: _fit(np.sqrt(a))),
    "FLT_TO_INT": _m("f", "i", lambda a: _flt_to_int(a, -2.0**31, 2.0**31 - 1, I32)),
    "INT_TO_FLT": _m("i", "f", lambda a: a.astype(F32)),
    "UINT_TO_FLT": _m("u", "f", lambda a: a.astype(F32)),
    "SIN": _m("f", "f", _trig(np.sin)),
    "COS": _m("f", "f", _trig(np.cos)),
    "ASHR_INT": _m("ii", "i", _shift(np.right_shift)),
    "LSHR_INT": _m("uu", "u", _shift(np.right_shift)),
    "LSHL_INT": _m("uu", "u", _shift(np.left_shift)),
    "MULLO_INT": _m("ii", "i", _mullo),
    "MULHI_INT": _m("ii", "i", _mulhi(True)),
    "MULLO_UINT": _m("uu", "u", _mullo),
    "MULHI_UINT": _m("uu", "u", _mulhi(False)),
    "RECIP_UINT": _m("u", "u", _recip_uint),
    "FLT_TO_UINT": _m("f", "u", lambda a: _flt_to_int(a, 0.0, 2.0**32 - 1, U32)),
    # OP3
    "BFE_UINT": _m("uuu", "u", _bfe(False)),
    "BFE_INT": _m("uuu", "i", _bfe(True)),
    "BFI_INT": _m("iii", "i", _bfi),
    "FMA": _m("fff", "f", _fma),
    "MULADD": _m("fff", "f", _muladd(1, False)),
    "MULADD_M2": _m("fff", "f", _muladd(2, False)),
    "MULADD_M4": _m("fff", "f", _muladd(4, False)),
    "MULADD_D2": _m("fff", "f", _muladd(0.5, False)),
    "MULADD_IEEE": _m("fff", "f", _muladd(1, True)),
    "MULADD_IEEE_M2": _m("fff", "f", _muladd(2, True)),
    "MULADD_IEEE_M4": _m("fff", "f", _muladd(4, True)),
    "MULADD_IEEE_D2": _m("fff", "f", _muladd(0.5, True)),
    "CNDE": _m("fff", "f", _cnd(lambda a: a == 0)),
    "CNDGT": _m("fff", "f", _cnd(lambda a: a > 0)),
    "CNDGE": _m("fff", "f", _cnd(lambda a: a >= 0)),
    "CNDE_INT": _m("iii", "i", _cnd(lambda a: a == 0)),
    "CNDGT_INT": _m("iii", "i", _cnd(lambda a: a > 0)),
    "CNDGE_INT": _m("iii", "i", _cnd(lambda a: a >= 0)),
    # 64-bit floats: IEEE double arithmetic on word pairs laid out as Machine.wide says
    "ADD_64": _wide("dd", "d", np.add),
    "MUL_64": _wide("dd", "d", np.multiply, 4),
    "FLT32_TO_FLT64": _wide("f", "d", lambda a: a.astype(np.float64)),
    "FLT64_TO_FLT32": _wide("d", "f", lambda a: a.astype(F32)),
    "FRACT_64": _wide("d", "d", lambda a: fract(a, np.float64)),
    "LDEXP_64": _wide("id", "d", ldexp64),
    "FREXP_64": _wide("d", "frexp", frexp64, 4),
    "PRED_SETE_64": _wide("dd", "pred", _EQ),
    "PRED_SETGT_64": _wide("dd", "pred", _GT),
    "PRED_SETGE_64": _wide("dd", "pred", _GE),
}

_DOUBLE = ("Mesa's r600 compiler, the source of the 64-bit slot layout, does not emit it (it uses FMA_64, "
           "which R700 lacks) and AMD's R700 document was not found for its layout")
_PRED_COUNTER = ("a DX9 predicate-counter operation whose exact rule AMD's R700 document does not "
                 "give; Wii U compilers do not emit it")
_EVERGREEN = "an Evergreen-only operation with no R700 meaning"
#: ALU opcodes of the table that the VM refuses, and why
UNSUPPORTED: dict[str, str] = {
    "MULADD_64": _DOUBLE,
    "MULADD_64_M2": _DOUBLE, "MULADD_64_M4": _DOUBLE, "MULADD_64_D2": _DOUBLE,
    "PRED_SET_INV": _PRED_COUNTER, "PRED_SET_POP": _PRED_COUNTER, "PRED_SET_CLR": _PRED_COUNTER,
    "PRED_SET_RESTORE": _PRED_COUNTER, "PRED_SETE_PUSH": _PRED_COUNTER,
    "PRED_SETGT_PUSH": _PRED_COUNTER, "PRED_SETGE_PUSH": _PRED_COUNTER,
    "PRED_SETNE_PUSH": _PRED_COUNTER, "PRED_SETE_PUSH_INT": _PRED_COUNTER,
    "PRED_SETGT_PUSH_INT": _PRED_COUNTER, "PRED_SETGE_PUSH_INT": _PRED_COUNTER,
    "PRED_SETNE_PUSH_INT": _PRED_COUNTER, "PRED_SETLT_PUSH_INT": _PRED_COUNTER,
    "PRED_SETLE_PUSH_INT": _PRED_COUNTER,
    "GROUP_BARRIER": _EVERGREEN, "GROUP_SEQ_BEGIN": _EVERGREEN, "GROUP_SEQ_END": _EVERGREEN,
    "SET_MODE": _EVERGREEN, "SET_CF_IDX0": _EVERGREEN, "SET_CF_IDX1": _EVERGREEN,
    "SET_LDS_SIZE": _EVERGREEN, "MOVA_GPR_INT": _EVERGREEN,
    "RECIP_INT": "the signed integer reciprocal's rounding and sign rules are not documented",
    "MUL_LIT": ("Mesa's r600 compiler shows its use (LIT's z = EXP_IEEE(MUL_LIT(LOG_CLAMPED(y), w, x))) but "
                "no source found gives its result for src2 <= 0, infinities and NaNs"), "MUL_LIT_M2": "see MUL_LIT",
    "MUL_LIT_M4": "see MUL_LIT", "MUL_LIT_D2": "see MUL_LIT",
}


def executable_ops() -> list[str]:
    """Names of the table's ALU opcodes the VM executes."""
    return [op.name for op in (*T.OP2, *T.OP3) if op.name in SEMANTICS]

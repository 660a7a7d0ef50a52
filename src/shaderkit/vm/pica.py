"""Run PICA200 (3DS) vertex and geometry shaders on the CPU with NumPy, SIMD across vertices.

One lane is one vertex (or one geometry-shader invocation). Every register component is a
float32 array with one value per lane, or a 1-element array when the value is the same for every
lane (uniforms, untouched registers). Register arrays are never changed in place, so registers can
share them freely and a register write is just a reference swap. (The one exception: a vertex
shader's DP/MAD results are computed straight into the run's output array when no other register
component refers to that row.) Lanes run in chunks of ``CHUNK_LANES`` so that intermediate arrays
stay in the CPU cache.

Lanes diverge only where a flow-control instruction tests the condition flags (IFC, CALLC, JMPC,
BREAKC). There the group of lanes splits in two, each half runs on with its own control stacks,
and the halves never merge again. Boolean and integer uniforms are the same for every lane, so
IFU/CALLU/JMPU/LOOP never split.

The numeric and flow-control rules are those of azahar's shader interpreter (Citra's successor),
see ``shared/reference/pica_vm.md``: float32 arithmetic (not float24), 0 * inf = +0 in products,
dot products summed from +0, unfused MAD, MIN/MAX as ``a < b ? a : b`` / ``a > b ? a : b``,
RCP/RSQ in IEEE float32 (RCP(-0) = -inf), EX2/LG2 as glibc's exp2f/log2f (:mod:`.glibc_math`),
MOVA truncating toward zero, relative offsets outside [-128, 127] read as 0 and indices >= 96 read
(1, 1, 1, 1), LOOP running i.x + 1 passes, IF stack 8, CALL stack 4 and LOOP stack 4 as circular
buffers that drop the oldest entry, up to three CALL returns on one instruction, and geometry-shader
EMIT toggling between two output banks.

Choices where the emulators disagree or do nothing (documented and tested):

* float24 constants with exponent 0 and a non-zero mantissa decode as azahar does (denormal
  2**-62 * m / 2**16).
* DST / DSTI (not implemented by either emulator) compute Direct3D's ``dst``:
  (1, src1.y * src2.y, src1.z, src2.w), with the product rule of MUL.
* LITP follows Panda3DS: x = max(x, 0), y = clamp(y, -127.99609375, 127.99609375), z = 0,
  w = max(w, 0) (max as MAX), and sets cmp.x = x >= 0, cmp.y = w >= 0.
* Undefined opcodes (0x10, 0x11, 0x14-0x17, 0x1C-0x1F) do nothing (azahar logs and skips them).
* CMP modes 6 and 7 leave the flag unchanged (azahar).
* Nested loops ending on the same instruction, jumps onto scope ends, aL after a nested loop:
  exactly as azahar's interpreter does (it compares ``executed address + 1`` with scope ends).
* Execution reaching address 4095 stops as if END were there; words past the code are zero
  (``add o0, v0, v0`` with descriptor 0), as on the emulator.
* EMIT in a vertex shader, and SETEMIT with vertex id 3, raise :class:`VMError`.

Instruction fields come from the ISA table (``shaderkit.isa.pica``); nothing here decodes bits.
"""

from __future__ import annotations

import math
import operator
import os
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.isa.pica.decode import Instruction, decode
from shaderkit.isa.pica.opcodes import (
    CONDOP_AND,
    CONDOP_OR,
    CONDOP_X,
    IDX_SOURCE,
    OUTPUT_SEMANTIC_BY_NAME,
    OUTPUT_SEMANTICS,
    opdesc_src,
)
from shaderkit.vm.glibc_math import exp2f, log2f

if TYPE_CHECKING:
    from shaderkit.formats.dvlb.dvlb import Dvlb, Dvle

__all__ = ["VMError", "PicaShader", "RunResult", "Primitive", "f24_to_f32", "DEFAULT_MAX_STEPS"]

CODE_WORDS = 4096  # program memory (words); address 4095 acts as END
OPDESC_SLOTS = 128
FLOAT_UNIFORMS = 96
IF_DEPTH, CALL_DEPTH, LOOP_DEPTH = 8, 4, 4
CHUNK_LANES = 1 << 16  # lanes run together (more lanes run chunk after chunk)
DEFAULT_MAX_STEPS = 1 << 20  # instructions per lane before a run is stopped as runaway
INT_MIN = -(1 << 31)
LITP_LIMIT = 127.99609375  # 127 + 255/256

F32 = np.float32
_ZERO = np.zeros(1, F32)
_ONE = np.ones(1, F32)
_FALSE = np.zeros(1, bool)
_ZERO_I = np.zeros(1, np.int64)


class VMError(ShaderkitError, ValueError):
    """Bad use of the VM (shapes, names, values) or a run that had to be stopped."""


# -- float24 ---------------------------------------------------------------------------------------
_F32_STRUCT = struct.Struct("<f")
_U32_STRUCT = struct.Struct("<I")


def f24_to_f32(raw: int) -> float:
    """A float24 word as azahar decodes it (exponent 0 with mantissa != 0 is a denormal).

    Not :func:`shaderkit.isa.pica.float24.f24_to_f32`, which gives the value picasso's encoding
    means (there such a word is 1.m * 2**-63): the VM follows the emulator."""
    raw &= 0xFFFFFF
    sign = -1.0 if raw & 0x800000 else 1.0
    exponent = (raw >> 16) & 0x7F
    mantissa = raw & 0xFFFF
    if exponent == 0:
        return sign * math.ldexp(mantissa, -62 - 16)
    if exponent == 0x7F:
        return sign * math.inf if mantissa == 0 else math.nan
    bits = (0x80000000 if sign < 0 else 0) | ((exponent + 64) << 23) | (mantissa << 7)
    return float(_F32_STRUCT.unpack(_U32_STRUCT.pack(bits))[0])


# -- lane groups -----------------------------------------------------------------------------------

class Group:
    """Lanes that share one program counter and one set of control stacks."""

    __slots__ = ("base", "lanes", "n", "home", "v", "r", "o", "o_alt", "a0", "cc", "aL", "pc", "if_stack",
                 "call_stack", "loop_stack", "steps", "vertex_id", "prim", "winding", "buffer",
                 "c_rows", "c_table")

    base: int  # the run's lane number of this chunk's first lane
    lanes: np.ndarray | None  # lane indices within the chunk; None for all of them
    n: int
    #: the chunk's rows of the run's output array, per o-register component (vertex shaders, whole
    #: chunk only): results computed straight into them need no copy at the end
    home: list[list[np.ndarray]] | None
    v: list[list[np.ndarray]]
    r: list[list[np.ndarray]]
    o: list[list[np.ndarray]]
    o_alt: list[list[np.ndarray]]
    a0: list[np.ndarray]
    cc: list[np.ndarray]
    aL: int
    pc: int
    if_stack: list[tuple[int, int]]
    call_stack: list[tuple[int, int]]
    loop_stack: list[list[int]]
    steps: int
    vertex_id: int
    prim: bool
    winding: bool
    buffer: list[list[list[np.ndarray]]]
    c_rows: list[list[np.ndarray]]
    c_table: np.ndarray

    def subset(self, keep: np.ndarray) -> Group:
        """A copy holding only the lanes where ``keep`` is true."""

        def cut(a: np.ndarray) -> np.ndarray:
            return a if a.shape[0] == 1 else a[keep]

        def cut_regs(regs: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
            return [[cut(a) for a in reg] for reg in regs]

        g = Group()
        g.lanes = np.flatnonzero(keep) if self.lanes is None else self.lanes[keep]
        g.n = len(g.lanes)
        g.base = self.base
        g.home = None
        g.v, g.r, g.o, g.o_alt = (cut_regs(self.v), cut_regs(self.r), cut_regs(self.o),
                                  cut_regs(self.o_alt))
        g.buffer = [cut_regs(vertex) for vertex in self.buffer]
        g.a0 = [cut(a) for a in self.a0]
        g.cc = [cut(a) for a in self.cc]
        g.aL, g.pc, g.steps = self.aL, self.pc, self.steps
        g.if_stack = list(self.if_stack)
        g.call_stack = list(self.call_stack)
        g.loop_stack = [list(entry) for entry in self.loop_stack]
        g.vertex_id, g.prim, g.winding = self.vertex_id, self.prim, self.winding
        g.c_rows, g.c_table = self.c_rows, self.c_table
        return g


# -- arithmetic helpers (IEEE float32 with the emulators' rules) ------------------------------------
def _may_make_nan(a: np.ndarray) -> bool:
    """False when ``a`` is one finite non-zero value: a * x is then NaN only if x is NaN."""
    if a.shape[0] != 1:
        return True
    value = a.item()
    return value == 0.0 or value - value != 0.0  # inf - inf and NaN - NaN are NaN


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b where 0 * inf gives +0 (NaN inputs stay NaN)."""
    product = a * b
    if _may_make_nan(a) and _may_make_nan(b):
        product = _fix_products(product, a, b)
    return product


def _fix_products(product: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    bad = np.isnan(product)
    if not bad.any():
        return product
    bad &= ~np.isnan(a)
    bad &= ~np.isnan(b)
    return np.where(bad, _ZERO, product)


def _dot(s1: Sequence[np.ndarray], s2: Sequence[np.ndarray], count: int, out: np.ndarray | None = None) -> np.ndarray:
    """Sum of ``count`` products from +0: (((0 + p0) + p1) + p2) + p3.

    Summed as ((p0 + p1) + p2) + p3, then + 0: the +0 start only turns an all -0 sum into +0.
    ``total`` is always a fresh array, so it is updated in place (no allocation per add).
    """
    total = _mul(s1[0], s2[0])
    for i in range(1, count):
        product = _mul(s1[i], s2[i])
        if product.shape[0] > total.shape[0]:
            product += total
            total = product
        else:
            total += product
    if out is None:
        total += _ZERO
        return total
    np.add(total, _ZERO, out=out)
    return out


def _max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a > b, a, b)


def _min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(a < b, a, b)


def _as_float(mask: np.ndarray) -> np.ndarray:
    return mask.astype(F32)


def _mova(x: np.ndarray) -> np.ndarray:
    """(s32) cast: truncation toward 0; NaN, inf and |x| >= 2**31 give INT_MIN."""
    ok = np.abs(x) < F32(2.0**31)  # False for NaN
    return np.where(ok, np.trunc(np.where(ok, x, _ZERO)), F32(INT_MIN)).astype(np.int64)


# -- compiled instructions ---------------------------------------------------------------------------
(K_ARITH, K_NOP, K_END, K_BREAK, K_BREAKC, K_CALL, K_CALLC, K_CALLU, K_IFU, K_IFC, K_LOOP,
 K_EMIT, K_SETEMIT, K_JMPC, K_JMPU) = range(15)

_FLOW_KINDS = {
    "nop": K_NOP, "end": K_END, "break": K_BREAK, "breakc": K_BREAKC, "call": K_CALL,
    "callc": K_CALLC, "callu": K_CALLU, "ifu": K_IFU, "ifc": K_IFC, "loop": K_LOOP,
    "emit": K_EMIT, "setemit": K_SETEMIT, "jmpc": K_JMPC, "jmpu": K_JMPU,
}

Fetch = Callable[[Group], Sequence[np.ndarray]]
Exec = Callable[[Group], None]


@dataclass(frozen=True)
class Op:
    """One instruction ready to run: its kind, an executor (arithmetic) and flow parameters."""

    kind: int
    run: Exec | None = None
    dest: int = 0  # flow: target address
    num: int = 0
    index: int = 0  # bool / int uniform id
    condop: int = 0
    refx: bool = False
    refy: bool = False
    vertex_id: int = 0
    prim: bool = False
    winding: bool = False
    text: str = ""


def _source_fetch(reg: int, swizzle: int, negate: bool, rel: int) -> Fetch:
    """A closure returning the four (swizzled, negated) component arrays of a source operand."""
    comps = tuple((swizzle >> (6 - 2 * slot)) & 3 for slot in range(4))
    pick = operator.itemgetter(*comps)
    raw: Callable[[Group], Sequence[np.ndarray]]  # the register's x, y, z, w
    if reg < 0x10:
        index = reg

        def raw(g: Group) -> Sequence[np.ndarray]:
            return g.v[index]
    elif reg < 0x20:
        index = reg - 0x10

        def raw(g: Group) -> Sequence[np.ndarray]:
            return g.r[index]
    elif rel == 0:
        index = reg - 0x20

        def raw(g: Group) -> Sequence[np.ndarray]:
            return g.c_rows[index]
    elif rel == 3:  # aL: the same for every lane of a group
        base = reg - 0x20

        def raw(g: Group) -> Sequence[np.ndarray]:
            offset = g.aL if -128 <= g.aL <= 127 else 0
            return g.c_rows[(base + offset) & 0x7F]
    else:  # a0.x / a0.y: one offset per lane
        base, which = reg - 0x20, rel - 1

        def raw(g: Group) -> Sequence[np.ndarray]:
            offset = g.a0[which]
            if offset.shape[0] == 1:
                value = int(offset[0])
                return g.c_rows[(base + (value if -128 <= value <= 127 else 0)) & 0x7F]
            offset = np.where((offset < -128) | (offset > 127), 0, offset)
            rows = g.c_table[(base + offset) & 0x7F]
            return [rows[:, c] for c in range(4)]

    if not negate:

        def fetch(g: Group) -> Sequence[np.ndarray]:
            return pick(raw(g))

        return fetch
    used = sorted(set(comps))

    def negated(g: Group) -> Sequence[np.ndarray]:
        rows = raw(g)
        flipped = [_ZERO] * 4
        for i in used:  # each component negated once, however often the swizzle repeats it
            flipped[i] = -rows[i]
        return pick(flipped)

    return negated


def _home(g: Group, dest: int, comp: int) -> np.ndarray | None:
    """The output row that o-register ``dest`` component ``comp`` may be computed into, if any.

    Only when no other component of the register refers to that row (a broadcast or shared
    result), since the row is then overwritten in place.
    """
    home = g.home
    if home is None or dest >= 0x10:
        return None
    row = home[dest][comp]
    reg = g.o[dest]
    if (reg[0] is row) + (reg[1] is row) + (reg[2] is row) + (reg[3] is row) - (reg[comp] is row):
        return None
    return row


def _writer(dest: int, mask: int) -> Callable[[Group, Sequence[np.ndarray]], None]:
    """A closure storing the masked components of a 4-array result into o/r ``dest``."""
    comps = tuple(i for i in range(4) if mask & (8 >> i))
    is_output = dest < 0x10
    index = dest if is_output else dest - 0x10

    def write(g: Group, result: Sequence[np.ndarray]) -> None:
        reg = g.o[index] if is_output else g.r[index]
        for i in comps:
            reg[i] = result[i]

    return write


def _scalar_writer(dest: int, mask: int) -> Callable[[Group, np.ndarray], None]:
    comps = tuple(i for i in range(4) if mask & (8 >> i))
    is_output = dest < 0x10
    index = dest if is_output else dest - 0x10

    def write(g: Group, value: np.ndarray) -> None:
        reg = g.o[index] if is_output else g.r[index]
        for i in comps:
            reg[i] = value

    return write


def _compile_arith(ins: Instruction, opdescs: Sequence[int]) -> Exec | None:
    """The executor of one arithmetic instruction, or None when it does nothing."""
    name = ins.mnemonic
    fmt = ins.fmt
    desc = opdescs[ins.get("desc")] if ins.get("desc") < len(opdescs) else 0
    mask = desc & 0xF
    rel_source = IDX_SOURCE.get(fmt, "")
    rel = ins.get("idx")

    def src(which: int) -> Fetch:
        negate, swizzle = opdesc_src(desc, which)
        key = f"src{which}"
        return _source_fetch(ins.get(key), swizzle, negate, rel if key == rel_source else 0)

    comps = tuple(i for i in range(4) if mask & (8 >> i))
    dest = ins.get("dst")

    if name in ("mad", "madi"):
        f1, f2, f3 = src(1), src(2), src(3)
        write = _writer(dest, mask)

        def mad(g: Group) -> None:
            s1, s2, s3 = f1(g), f2(g), f3(g)
            out = [_ZERO] * 4
            done: dict[tuple[int, int, int], np.ndarray] = {}
            for i in comps:  # components with the same operand arrays are computed once
                key = (id(s1[i]), id(s2[i]), id(s3[i]))
                value = done.get(key)
                if value is None:
                    target = _home(g, dest, i)
                    if target is None:
                        value = _mul(s1[i], s2[i]) + s3[i]
                    else:
                        value = np.add(_mul(s1[i], s2[i]), s3[i], out=target)
                    done[key] = value
                out[i] = value
            write(g, out)

        return mad

    if name == "cmp":
        f1, f2 = src(1), src(2)
        modes = (ins.get("cmpx"), ins.get("cmpy"))
        compare = [(i, _CMP_FUNCS[m]) for i, m in enumerate(modes) if m < len(_CMP_FUNCS)]

        def cmp(g: Group) -> None:
            s1, s2 = f1(g), f2(g)
            for i, func in compare:
                g.cc[i] = func(s1[i], s2[i])

        return cmp

    if name == "mova":
        f1 = src(1)
        targets = tuple(i for i in (0, 1) if mask & (8 >> i))

        def mova(g: Group) -> None:
            s1 = f1(g)
            for i in targets:
                g.a0[i] = _mova(s1[i])

        return mova

    if name in _COMPONENT_BINARY:
        func2 = _COMPONENT_BINARY[name]
        f1, f2 = src(1), src(2)
        write = _writer(dest, mask)

        def binary(g: Group) -> None:
            s1, s2 = f1(g), f2(g)
            out = [_ZERO] * 4
            done: dict[tuple[int, int], np.ndarray] = {}
            for i in comps:  # components with the same operand arrays are computed once
                key = (id(s1[i]), id(s2[i]))
                value = done.get(key)
                if value is None:
                    value = done[key] = func2(s1[i], s2[i])
                out[i] = value
            write(g, out)

        return binary

    if name in ("mov", "flr"):
        f1 = src(1)
        write = _writer(dest, mask)
        if name == "mov":

            def mov(g: Group) -> None:
                write(g, f1(g))

            return mov

        def flr(g: Group) -> None:
            s1 = f1(g)
            out = [_ZERO] * 4
            for i in comps:
                out[i] = np.floor(s1[i])
            write(g, out)

        return flr

    if name in ("dp3", "dp4", "dph", "dphi"):
        f1, f2 = src(1), src(2)
        count = 3 if name == "dp3" else 4
        homogeneous = name in ("dph", "dphi")
        write_scalar = _scalar_writer(dest, mask)

        def dot(g: Group) -> None:
            s1, s2 = f1(g), f2(g)
            if homogeneous:
                s1 = (s1[0], s1[1], s1[2], _ONE)
            write_scalar(g, _dot(s1, s2, count, _home(g, dest, comps[0]) if comps else None))

        return dot

    if name in _SCALAR_UNARY:
        func1 = _SCALAR_UNARY[name]
        f1 = src(1)
        write_scalar = _scalar_writer(dest, mask)

        def unary(g: Group) -> None:
            write_scalar(g, func1(f1(g)[0]))

        return unary

    if name in ("dst", "dsti"):
        f1, f2 = src(1), src(2)
        write = _writer(dest, mask)

        def dst(g: Group) -> None:
            s1, s2 = f1(g), f2(g)
            write(g, [_ONE, _mul(s1[1], s2[1]), s1[2], s2[3]])

        return dst

    if name == "litp":
        f1 = src(1)
        write = _writer(dest, mask)
        limit = np.array([LITP_LIMIT], F32)

        def litp(g: Group) -> None:
            s1 = f1(g)
            x, y, w = s1[0], s1[1], s1[3]
            y = _max(_min(y, limit), -limit)
            write(g, [_max(x, _ZERO), y, _ZERO, _max(w, _ZERO)])
            g.cc[0] = x >= _ZERO
            g.cc[1] = w >= _ZERO

        return litp

    return None  # undefined opcodes: skipped


def _rcp(x: np.ndarray) -> np.ndarray:
    return _ONE / x


def _rsq(x: np.ndarray) -> np.ndarray:
    return _ONE / np.sqrt(x)


_COMPONENT_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": operator.add,
    "mul": _mul,
    "max": _max,
    "min": _min,
    "sge": lambda a, b: _as_float(a >= b),
    "sgei": lambda a, b: _as_float(a >= b),
    "slt": lambda a, b: _as_float(a < b),
    "slti": lambda a, b: _as_float(a < b),
}
_SCALAR_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "rcp": _rcp, "rsq": _rsq, "ex2": exp2f, "lg2": log2f,
}
_CMP_FUNCS: tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], ...] = (
    operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
)


def compile_word(word: int, opdescs: Sequence[int]) -> Op:
    """Decode one word through the ISA table and build what the interpreter runs for it."""
    ins = decode(word)
    name = ins.mnemonic
    kind = _FLOW_KINDS.get(name)
    if kind is None:
        run = _compile_arith(ins, opdescs)
        return Op(K_ARITH if run is not None else K_NOP, run, text=name)
    return Op(kind, None, dest=ins.get("dst"), num=ins.get("num"),
              index=ins.get("bool_id", ins.get("int_id")), condop=ins.get("condop"),
              refx=bool(ins.get("refx")), refy=bool(ins.get("refy")),
              vertex_id=ins.get("vertex_id"), prim=bool(ins.get("prim")),
              winding=bool(ins.get("winding")), text=name)


# -- results -------------------------------------------------------------------------------------------
@dataclass
class Primitive:
    """A triangle sent by a geometry shader: 3 vertices of o0-o15 (float32, shape (3, 16, 4))."""

    vertices: np.ndarray
    winding: bool


@dataclass
class RunResult:
    """Outputs of one run: ``o`` has shape (lanes, 16, 4), ``steps`` one count per lane."""

    o: np.ndarray
    steps: np.ndarray
    semantics: dict[str, tuple[int, int]]  # name -> (o register, component mask bit0 = x)
    primitives: list[list[Primitive]] | None = None

    def output(self, key: int | str) -> np.ndarray:
        """An output by o-register (``3`` or ``"o3"``, shape (lanes, 4)) or by semantic name
        (``"position"``, ``"color"``, ...: only the components the output table maps)."""
        if isinstance(key, int) or (isinstance(key, str) and key[:1] == "o" and key[1:].isdigit()):
            index = key if isinstance(key, int) else int(key[1:])
            if not 0 <= index < 16:
                raise VMError(f"no output register o{index} (o0-o15)")
            return self.o[:, index, :]
        name = key.lower()
        name = OUTPUT_SEMANTICS.get(OUTPUT_SEMANTIC_BY_NAME.get(name, -1), name)
        if name not in self.semantics:
            known = ", ".join(sorted(self.semantics)) or "none"
            raise VMError(f"no output with semantic {key!r} (this shader has: {known})")
        reg, mask = self.semantics[name]
        comps = [i for i in range(4) if mask & (1 << i)]
        if comps and comps == list(range(comps[0], comps[-1] + 1)):
            return self.o[:, reg, comps[0]:comps[-1] + 1]  # a view
        return self.o[:, reg, comps]

    __getitem__ = output


# -- the shader ----------------------------------------------------------------------------------------
@dataclass
class _Emission:
    lanes: np.ndarray
    vertices: list[list[list[np.ndarray]]]
    winding: bool


@dataclass
class PicaShader:
    """One DVLE of a SHBIN, ready to run: uniforms are set by name or register, then :meth:`run`.

    >>> shader = PicaShader.load(data, dvle=0)            # doctest: +SKIP
    >>> shader.set_uniform("projection", matrix_4x4)      # doctest: +SKIP
    >>> result = shader.run({"v0": positions})            # doctest: +SKIP
    >>> result["position"]                                # doctest: +SKIP
    """

    code: list[int]
    opdescs: list[int]
    entry: int = 0
    is_geometry: bool = False
    #: uniform name -> (first, last) register in the combined space (v 0x00, c 0x10, i 0x70, b 0x78)
    names: dict[str, tuple[int, int]] = field(default_factory=dict)
    semantics: dict[str, tuple[int, int]] = field(default_factory=dict)
    float_uniforms: np.ndarray = field(default_factory=lambda: np.zeros((FLOAT_UNIFORMS, 4), F32))
    int_uniforms: list[tuple[int, int, int, int]] = field(default_factory=lambda: [(0, 0, 0, 0)] * 4)
    bool_uniforms: list[bool] = field(default_factory=lambda: [False] * 16)
    max_steps: int = DEFAULT_MAX_STEPS
    _ops: dict[int, Op] = field(default_factory=dict, repr=False)

    # -- loading ---------------------------------------------------------------------------------------
    @classmethod
    def load(cls, source: bytes | str | os.PathLike[str] | Dvlb, dvle: int = 0) -> PicaShader:
        """The DVLE number ``dvle`` of a SHBIN (bytes, a path or a parsed :class:`Dvlb`)."""
        from shaderkit.formats.dvlb.dvlb import Dvlb

        if isinstance(source, (bytes, bytearray, memoryview)):
            model = Dvlb.from_bytes(bytes(source))
        elif isinstance(source, Dvlb):
            model = source
        else:
            import shaderkit

            opened = shaderkit.open(source)
            if not isinstance(opened, Dvlb):
                raise VMError(f"{os.fspath(source)}: a {opened.format_name} file, not a PICA200 SHBIN")
            model = opened
        if not model.dvles:
            raise VMError("the file has no DVLE (entry point) to run")
        if not 0 <= dvle < len(model.dvles):
            raise VMError(f"DVLE {dvle} does not exist (the file has {len(model.dvles)}: 0-{len(model.dvles) - 1})")
        if len(model.dvlp.code) > CODE_WORDS:
            raise VMError(f"program has {len(model.dvlp.code)} words; the PICA200 holds {CODE_WORDS}")
        return cls.from_dvle(model.dvlp.code, [d.value for d in model.dvlp.opdescs], model.dvles[dvle])

    @classmethod
    def from_dvle(cls, code: Sequence[int], opdescs: Sequence[int], dvle: Dvle) -> PicaShader:
        """A runnable shader of ``code``/``opdescs`` at the entry point of ``dvle``, with its constants loaded."""
        shader = cls(list(code), [d & 0xFFFFFFFF for d in opdescs][:OPDESC_SLOTS], dvle.main_offset,
                     dvle.is_geometry)
        for constant in dvle.constants:
            if constant.type == 2 and 0 <= constant.register < FLOAT_UNIFORMS:
                shader.float_uniforms[constant.register] = [f24_to_f32(w) for w in constant.words]
            elif constant.type == 1 and 0 <= constant.register < 4:
                packed = constant.words[0]
                shader.int_uniforms[constant.register] = (
                    packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFF, (packed >> 24) & 0xFF)
            elif constant.type == 0 and 0 <= constant.register < 16:
                shader.bool_uniforms[constant.register] = bool(constant.words[0])
        for uniform in dvle.uniforms:
            shader.names[uniform.name] = (uniform.first_register, uniform.last_register)
        for out in dvle.outputs:
            name = OUTPUT_SEMANTICS.get(out.semantic, f"semantic{out.semantic}")
            if name not in shader.semantics and 0 <= out.register < 16:
                shader.semantics[name] = (out.register, out.mask)
        return shader

    # -- uniforms --------------------------------------------------------------------------------------
    def resolve_uniform(self, name: str) -> tuple[str, int, int]:
        """(bank, first, count) for a uniform name or register name (c5, i0, b3)."""
        if name in self.names:
            first, last = self.names[name]
            if 0x10 <= first <= last < 0x70:
                return "c", first - 0x10, last - first + 1
            if 0x70 <= first <= last < 0x74:
                return "i", first - 0x70, last - first + 1
            if 0x78 <= first <= last < 0x88:
                return "b", first - 0x78, last - first + 1
            raise VMError(f"uniform {name!r} maps to registers {first:#x}-{last:#x}, not a c/i/b uniform")
        bank, digits = name[:1].lower(), name[1:]
        limits = {"c": FLOAT_UNIFORMS, "i": 4, "b": 16}
        if bank in limits and digits.isdigit() and int(digits) < limits[bank]:
            return bank, int(digits), 1
        known = ", ".join(sorted(self.names)) or "none"
        raise VMError(f"unknown uniform {name!r} (this DVLE declares: {known}; or use c0-c95, i0-i3, b0-b15)")

    def set_uniform(self, name: str, value: Any) -> None:
        """Set a float (4 values per register, shape (4,) or (count, 4)), int (x, y, z[, w]
        per register) or bool uniform, by name from the uniform table or as ``c5``/``i0``/``b3``."""
        bank, first, count = self.resolve_uniform(name)
        if bank == "b":
            values = np.asarray(value).reshape(-1)
            if values.size != count:
                raise VMError(f"uniform {name!r} takes {count} bool value(s), got {values.size}")
            for k, item in enumerate(values):
                self.bool_uniforms[first + k] = bool(item)
            return
        if bank == "i":
            array = np.asarray(value, dtype=np.int64)
            if array.ndim == 1:
                array = array.reshape(1, -1)
            if array.ndim != 2 or array.shape[0] != count or array.shape[1] not in (3, 4):
                raise VMError(f"int uniform {name!r} takes {count} x (x, y, z[, w]) values, got shape {array.shape}")
            if ((array < 0) | (array > 255)).any():
                raise VMError(f"int uniform {name!r}: components are bytes (0-255)")
            for k, row in enumerate(array):
                x, y, z = (int(c) for c in row[:3])
                self.int_uniforms[first + k] = (x, y, z, int(row[3]) if row.shape[0] == 4 else 0)
            return
        try:
            floats = np.asarray(value, dtype=F32)
        except (TypeError, ValueError) as exc:
            raise VMError(f"uniform {name!r}: not numbers ({exc})") from None
        if floats.shape == (4,):
            floats = floats.reshape(1, 4)
        if floats.ndim != 2 or floats.shape[1] != 4 or not 1 <= floats.shape[0] <= count:
            raise VMError(f"float uniform {name!r} takes shape (4,) or (n, 4) with n <= {count}, got {floats.shape}")
        self.float_uniforms[first:first + floats.shape[0]] = floats

    def set_uniforms(self, values: Mapping[str, Any]) -> None:
        """Set several uniforms by name (see :meth:`set_uniform`)."""
        for name, value in values.items():
            self.set_uniform(name, value)

    # -- running ---------------------------------------------------------------------------------------
    def _op(self, pc: int) -> Op:
        op = self._ops.get(pc)
        if op is None:
            op = compile_word(self.code[pc] if pc < len(self.code) else 0, self.opdescs)
            self._ops[pc] = op
        return op

    def _inputs(self, inputs: Any) -> tuple[int, dict[int, np.ndarray]]:
        """(lanes, v registers) from an (n, k, 4) array or a mapping v0/name -> (n, 4)."""
        regs: dict[int, np.ndarray] = {}
        if isinstance(inputs, Mapping):
            for key, value in inputs.items():
                index = self._input_index(str(key))
                try:
                    array = np.asarray(value, dtype=F32)
                except (TypeError, ValueError) as exc:
                    raise VMError(f"input {key!r}: not numbers ({exc})") from None
                if array.ndim != 2 or array.shape[1] != 4:
                    raise VMError(f"input {key!r} must have shape (vertices, 4), got {array.shape}")
                regs[index] = array
        else:
            try:
                array = np.asarray(inputs, dtype=F32)
            except (TypeError, ValueError) as exc:
                raise VMError(f"inputs: not numbers ({exc})") from None
            if array.ndim == 2 and array.shape[1] == 4:
                array = array[:, None, :]
            if array.ndim != 3 or array.shape[2] != 4 or not 1 <= array.shape[1] <= 16:
                raise VMError(f"inputs must have shape (vertices, registers <= 16, 4), got {array.shape}")
            for k in range(array.shape[1]):
                regs[k] = array[:, k, :]
        if not regs:
            raise VMError("no inputs given (need at least one of v0-v15 to know the vertex count)")
        counts = {a.shape[0] for a in regs.values()}
        if len(counts) != 1:
            raise VMError(f"inputs disagree on the vertex count: {sorted(counts)}")
        lanes = counts.pop()
        if lanes == 0:
            raise VMError("inputs hold no vertices")
        return lanes, regs

    def _input_index(self, key: str) -> int:
        if key in self.names:
            first, last = self.names[key]
            if first <= last < 0x10:
                return first
            raise VMError(f"{key!r} is a uniform, not an input")
        if key[:1] in "vV" and key[1:].isdigit() and int(key[1:]) < 16:
            return int(key[1:])
        inputs = sorted(n for n, (f, _) in self.names.items() if f < 0x10)
        raise VMError(f"unknown input {key!r} (use v0-v15{', ' + ', '.join(inputs) if inputs else ''})")

    def run(self, inputs: Any, max_steps: int | None = None) -> RunResult:
        """Run every vertex of ``inputs`` (an (n, k, 4) array for v0..v(k-1), an (n, 4) array for
        v0, or a mapping ``{"v0": (n, 4), ...}`` that may use input names)."""
        limit = self.max_steps if max_steps is None else max_steps
        lanes, arrays = self._inputs(inputs)
        table = np.ones((128, 4), F32)
        table[:FLOAT_UNIFORMS] = self.float_uniforms
        c_rows = [[table[k, c:c + 1] for c in range(4)] for k in range(128)]
        out = np.zeros((16, 4, lanes), F32)  # component-major: every register row is contiguous
        steps = np.zeros(lanes, np.int64)
        emissions: list[_Emission] = []
        with np.errstate(all="ignore"):
            # chunks of lanes keep every intermediate array in the CPU cache
            for base in range(0, lanes, CHUNK_LANES):
                end = min(base + CHUNK_LANES, lanes)
                v = [[_ZERO, _ZERO, _ZERO, _ZERO] for _ in range(16)]
                for index, array in arrays.items():
                    columns = array[base:end].T.copy()  # component-major, in cache
                    v[index] = [columns[0], columns[1], columns[2], columns[3]]
                pending = [self._start(base, end - base, v, c_rows, table, out)]
                while pending:
                    group = pending.pop()
                    halves = self._run_group(group, limit, emissions)
                    if halves is not None:
                        pending.extend(halves)
                        continue
                    where = slice(base, end) if group.lanes is None else group.lanes + base
                    home = group.home
                    rows = group.o
                    if home is not None:
                        # a component showing another component's output row: copy it before
                        # that row is overwritten by its own component's value
                        homes = {id(row) for reg_rows in home for row in reg_rows}
                        rows = [[row.copy() if id(row) in homes and row is not home[reg][c] else row
                                 for c, row in enumerate(rows[reg])] for reg in range(16)]
                    for reg in range(16):
                        for c in range(4):
                            row = rows[reg][c]
                            if row is not _ZERO and (home is None or row is not home[reg][c]):
                                out[reg, c, where] = row
                    steps[where] = group.steps
        primitives = self._primitives(lanes, emissions) if self.is_geometry else None
        return RunResult(out.transpose(2, 0, 1), steps, dict(self.semantics), primitives)

    def _start(self, base: int, count: int, v: list[list[np.ndarray]], c_rows: list[list[np.ndarray]],
               table: np.ndarray, out: np.ndarray) -> Group:
        start = Group()
        start.base, start.lanes, start.n = base, None, count
        start.home = None if self.is_geometry else [[out[reg, c, base:base + count] for c in range(4)] for reg in range(16)]
        start.v = v
        zero = _ZERO
        start.r = [[zero, zero, zero, zero] for _ in range(16)]
        start.o = [[zero, zero, zero, zero] for _ in range(16)]
        if self.is_geometry:  # the second output bank and the 3-vertex emit buffer
            start.o_alt = [[zero, zero, zero, zero] for _ in range(16)]
            start.buffer = [[[zero, zero, zero, zero] for _ in range(16)] for _ in range(3)]
        else:
            start.o_alt, start.buffer = [], []
        start.a0 = [_ZERO_I, _ZERO_I]
        start.cc = [_FALSE, _FALSE]
        start.aL, start.pc, start.steps = 0, self.entry, 0
        start.if_stack, start.call_stack, start.loop_stack = [], [], []
        start.vertex_id, start.prim, start.winding = 0, False, False
        start.c_rows, start.c_table = c_rows, table
        return start

    @staticmethod
    def _primitives(lanes: int, emissions: list[_Emission]) -> list[list[Primitive]]:
        per_lane: list[list[Primitive]] = [[] for _ in range(lanes)]
        for emission in emissions:
            block = np.zeros((len(emission.lanes), 3, 16, 4), F32)
            for k, vertex in enumerate(emission.vertices):
                for reg in range(16):
                    for c in range(4):
                        block[:, k, reg, c] = vertex[reg][c]
            for row, lane in enumerate(emission.lanes):
                per_lane[int(lane)].append(Primitive(block[row], emission.winding))
        return per_lane

    def _condition(self, g: Group, op: Op) -> np.ndarray:
        x = g.cc[0] if op.refx else ~g.cc[0]
        if op.condop == CONDOP_X:
            return x
        y = g.cc[1] if op.refy else ~g.cc[1]
        if op.condop == CONDOP_OR:
            return x | y
        if op.condop == CONDOP_AND:
            return x & y
        return y

    def _run_group(self, g: Group, limit: int, emissions: list[_Emission]) -> list[Group] | None:
        """Run ``g`` until END (None) or until its lanes disagree on a branch (the two halves)."""
        ops = self._ops
        while True:
            pc = g.pc
            if pc >= CODE_WORDS - 1:  # address 4095 acts as END
                g.steps += 1
                return None
            if g.steps >= limit:
                raise VMError(f"step limit reached: {limit} instructions run by a vertex without END "
                              f"(pc {pc:#x}; a runaway loop? raise max_steps if this is expected)")
            op = ops.get(pc) or self._op(pc)
            kind = op.kind
            new_pc = pc + 1
            is_break = False
            if kind == K_ARITH:
                op.run(g)  # type: ignore[misc]
            elif kind == K_NOP:
                pass
            elif kind == K_END:
                g.steps += 1
                return None
            else:
                taken = True
                if kind in (K_BREAKC, K_CALLC, K_IFC, K_JMPC):
                    cond = self._condition(g, op)
                    if cond.shape[0] != 1 and not (cond.all() or not cond.any()):
                        return [g.subset(~cond), g.subset(cond)]
                    taken = bool(cond[0])
                elif kind in (K_CALLU, K_IFU):
                    taken = self.bool_uniforms[op.index & 15]
                elif kind == K_JMPU:
                    taken = self.bool_uniforms[op.index & 15] == (not (op.num & 1))
                if kind in (K_BREAK, K_BREAKC):
                    is_break = taken
                elif kind in (K_CALL, K_CALLC, K_CALLU):
                    if taken:
                        _push(g.call_stack, (op.dest + op.num, pc + 1), CALL_DEPTH)
                        new_pc = op.dest
                elif kind in (K_IFU, K_IFC):
                    if taken:
                        _push(g.if_stack, (op.dest, op.dest + op.num), IF_DEPTH)
                    else:
                        new_pc = op.dest
                elif kind in (K_JMPC, K_JMPU):
                    if taken:
                        new_pc = op.dest
                elif kind == K_LOOP:
                    x, y, z, _ = self.int_uniforms[op.index & 3]
                    g.aL = y
                    _push(g.loop_stack, [pc + 1, op.dest + 1, x, z, y & 0xFF], LOOP_DEPTH)
                elif kind == K_SETEMIT:
                    self._require_geometry("setemit", pc)
                    g.vertex_id, g.prim, g.winding = op.vertex_id, op.prim, op.winding
                elif kind == K_EMIT:
                    self._require_geometry("emit", pc)
                    if g.vertex_id > 2:
                        raise VMError(f"emit at {pc:#x}: vertex id {g.vertex_id} (SETEMIT takes 0-2)")
                    g.buffer[g.vertex_id] = [list(reg) for reg in g.o]
                    if g.prim:
                        where = np.arange(g.n) if g.lanes is None else g.lanes
                        emissions.append(_Emission(where + g.base, [list(vx) for vx in g.buffer], g.winding))
                    g.o, g.o_alt = g.o_alt, g.o
            g.steps += 1

            # scope ends, as the emulator checks them: CALL (up to 3 returns), then IF, then LOOP,
            # each against the address after the executed instruction
            after = pc + 1
            calls = g.call_stack
            if calls:
                nxt = after
                for i in range(4):
                    if not calls or calls[-1][0] != nxt:
                        break
                    if i < 3:
                        new_pc = nxt = calls[-1][1]
                    calls.pop()
            ifs = g.if_stack
            if ifs and ifs[-1][0] == after:
                new_pc = ifs.pop()[1]
            loops = g.loop_stack
            if loops and (loops[-1][1] == after or is_break):
                loop = loops[-1]
                g.aL += loop[3]
                if not is_break and loop[2]:
                    loop[2] -= 1
                    new_pc = loop[0]
                else:
                    new_pc = loop[1]
                    if len(loops) > 1:
                        g.aL = loop[4]
                    loops.pop()
            g.pc = new_pc

    def _require_geometry(self, what: str, pc: int) -> None:
        if not self.is_geometry:
            raise VMError(f"{what} at {pc:#x} in a vertex shader (only geometry shaders emit)")


def _push(stack: list[Any], entry: Any, depth: int) -> None:
    """Push onto a circular buffer of ``depth`` entries: a full one drops its oldest entry."""
    if len(stack) >= depth:
        del stack[0]
    stack.append(entry)

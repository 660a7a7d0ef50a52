"""Run NVIDIA Maxwell (SM 5.x, Switch) shaders on the CPU with NumPy, SIMD across lanes.

One lane is one vertex, pixel or compute thread. The register file is a (256, lanes) uint32
array (R255 is RZ, always 0), the predicates a (8, lanes) bool array (P7 is PT), the condition
code four bool rows (zero, sign, carry, overflow). Floats are the same bits viewed as float32.

Every instruction's operands come from the table (:mod:`shaderkit.isa.maxwell.table`) through
the generic decoder: an operand's kind (register, immediate, ``c[][]``, attribute, ...) and its
flags (neg, abs, inv, .CC, .H1, half selects) say how to read it, and the semantics of each
mnemonic are declared once in :data:`SEMANTICS` and turned into one closure per instruction
when an address is first executed. Nothing here decodes bits by hand.

Control flow. Every lane has its own program counter and its own reconvergence stack
(SSY/PBK/PCNT/CAL push an entry with their target; SYNC, BRK and CONT pop entries down to and
including the nearest SSY, PBK or PCNT entry and continue at its target; RET pops down to the
nearest CAL entry). At each step the lanes with the lowest program counter run together, so
lanes that took different sides of a branch run apart and meet again at the SYNC target (the
reconvergence point of NVIDIA's stack model). Per lane this is the behaviour of the warp stack
of envytools' gm107 notes and of Ryujinx's and Mesa nouveau's translations; only cross-lane
instructions (VOTE, SHFL) see which lanes run together. Scheduling words (every fourth 64-bit word)
are skipped. BRX (register + immediate, relative to the next instruction) and JMX (register +
immediate, an absolute address less :attr:`MaxwellShader.code_address`) send each lane to its own
target; JMP and JCAL jump and call to absolute addresses the same way; PRET, PEXIT, LONGJMP and PLONGJMP, whose stack entries nothing public describes, are refused.

Documented choices:

* RRO is a plain move of its (negated/absolute) source: MUFU.SIN/COS/EX2 take the unreduced
  value (radians, exponent) as Ryujinx does; the hardware's fixed-point prescale is not modelled.
* FFMA is fused through float64 (exact product, then one float64 and one float32 rounding).
  Rounding modes .RM/.RP/.RZ round the float64 result toward the mode; .FTZ flushes denormal
  inputs and results to signed zero; .FMZ makes a product with a zero factor +0 (even with inf
  or NaN); .SAT clamps to [0, 1] with NaN -> 0.
* MUFU.RCP(0) = +inf, RSQ(0) = +inf, LG2(0) = -inf, LG2(<0) = NaN (IEEE results).
* FMNMX/DMNMX return the other operand when one is NaN (IEEE minNum/maxNum).
* F2I: NaN -> 0, out-of-range values clamp to the destination range (PTX's cvt rules).
* IADD/ISCADD with both negation bits set is ``.PO`` (a + b + 1), as Ryujinx's AvgMode names it
  and IADD32I's ``po`` reads in envydis (envydis shows IADD's two bits as two negations).
* A negated IADD/ISCADD operand is added as its complement with a carry-in of 1 (with .X the
  carry-in is CC.carry instead), so ``IADD.CC lo, a, -b`` sets carry = (a >= b) (1 for b = 0) and
  ``IADD.X hi, c, -d`` is a subtract with borrow: nouveau's gm107 code generator lowers a 64-bit
  subtraction to exactly that pair. (Ryujinx negates first and adds the carry after, which breaks it.)
  IADD3 follows the same rule for each negated operand (nouveau's GV100 generator lowers a 64-bit
  subtraction to IADD3 with a negated operand, split into a .CC/.X pair); Ryujinx and yuzu negate
  first (yuzu refuses .X with .CC), which gives the same 32-bit value without .X.
* XMAD.X adds the carry to product + C (Ryujinx drops C there, which looks like a slip).
* Video instructions (VADD, VABSDIFF, VMNMX, VSHL, VSHR, VSET, VSETP, VMAD) follow the PTX ISA's
  scalar video instructions: sub-word selects extended to exact integers, the primary operation,
  .SAT to the destination's (or merged byte/half-word's) range, then ACC/MIN/MAX with C or a merge
  into C; bit layouts from the table (Ryujinx, envydis, yuzu). Their .CC and VABSDIFF4 are refused.
* Textures are NumPy arrays keyed by the instruction's texture index (the 13-bit field, ``0x8``
  in ``TEXS ... 0x8``) or, for the ``.B`` forms, by the bindless handle in the register (then by
  its texture id, the low 20 bits); ``"*"`` stands for any other. Shapes: 1D (w[, c]), 2D
  (h, w[, c]), 3D (d, h, w[, c]), 2D array (layers, h, w[, c]), cube (6 * layers, h, w[, c]) with
  faces +X, -X, +Y, -Y, +Z, -Z; channels pad as (r, 0, 0, 1); uint8/uint16 are UNORM, 32-bit
  integers stay raw words. ``sampler`` is ``nearest`` or ``linear`` (bilinear/trilinear in space,
  texel centres at .5), ``wrap`` ``repeat`` or ``clamp`` (cube faces clamp); a list of arrays
  gives mip levels, picked by an explicit LOD (rounded; bias, implicit LOD and TXD's derivatives
  use level 0, and TMML reports LOD 0). Depth
  compare (DC) is LEQUAL per texel before filtering and fills every component. Addressing,
  filtering (float32 weights, as GPUs filter in reduced precision), cube faces, gather and loads are
  the SM4 VM's (:mod:`shaderkit.vm.sm4.memory`); this module only finds the operands. Register layouts
  (coordinates in Ra.., LOD/offsets/reference/handle in Rb..) follow Ryujinx's translation.
* Surfaces (SULD/SUST/SUATOM/SURED and their B/D forms) are NumPy arrays keyed by the 13-bit index
  or, for the B forms, by the bindless handle in the register named in bits 39-46, as given (no
  texture-id fallback); ``"*"`` stands for any other. They are shaped as textures are; a
  formatted (P) access converts as texture loads do (uint8/uint16 UNORM, float16/float32, 32-bit
  integers raw; stores round UNORM's float32 product to nearest, ties to even), a raw (D) access
  moves the texel's bytes and needs the access size to equal the texel size. Out of bounds, IGN loads 0 and drops stores (PTX's
  ``.zero``), TRAP raises VMError (``.trap``); the third clamp value, CAS forms and SUATOMB2 are refused.
* IPA: pixel inputs are given as the values the shader should see. Position ``w`` (a[0x7c],
  default 1) is 1/w_clip; a perspective component (per the SPH interpolation map) is stored as
  value * w, so that ``IPA.PASS a[0x7c]`` -> ``MUFU.RCP`` -> ``IPA.MULTIPLY`` gives the value back.
* Pixel outputs are the registers at EXIT, R0 upward, one per component the SPH enables per
  render target, in order; the sample mask is the next register and depth the one after it.
* BAR, MEMBAR, DEPBAR, NOP, CCTL*, IDE do nothing (lanes at one address run together, so a
  BAR in converged code already orders shared-memory accesses).
* FSWZADD's operation per lane is picked by its place in its quad (lane & 3), per Ryujinx's table.
* SHFL follows PTX's shfl rules over warps of 32 consecutive lanes; VOTE sees the lanes of the
  warp running together at that address. Atomics (ATOM/ATOMS/RED) apply lane after lane.

Instructions the table defines but this VM does not execute raise :class:`VMError` naming the
mnemonic (see :data:`UNSUPPORTED` for the reasons).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.isa.maxwell.decode import (
    BUNDLE_BYTES,
    Instruction,
    branch_target,
    component_mask,
    decode,
    operand_value,
    words_of,
)
from shaderkit.isa.maxwell.encoding import ENCODINGS, Operand
from shaderkit.isa.maxwell.table import ENUMS
from shaderkit.vm.legacy_float import saturate
from shaderkit.vm.sm4.alu import (
    bit_reverse,
    count_bits,
    f16_to_f32,
    f32_to_f16,
    first_bit_high,
    first_bit_high_signed,
    flush,
)
from shaderkit.vm.sm4.memory import fetch_texels, gather_texels, sample_level
from shaderkit.vm.sm4.resources import CLAMP, WRAP, Sampler, Texture, cube_face

__all__ = ["VMError", "MaxwellShader", "RunResult", "SEMANTICS", "UNSUPPORTED", "supported_encodings",
           "DEFAULT_MAX_STEPS", "attribute_address"]

U32 = np.uint32
F32 = np.float32
DEFAULT_MAX_STEPS = 1 << 18  # instructions per lane before a run is stopped as runaway
STACK_DEPTH = 64
ATTRIBUTE_WORDS = 0x400 // 4  # a[0x000] .. a[0x3fc]
RZ, PT = 255, 7
_TINY = np.float32(2.0 ** -126)
SSY, PBK, PCNT, CAL = 1, 2, 3, 4


class VMError(ShaderkitError, ValueError):
    """Bad use of the VM (shapes, names, values), an instruction it does not execute, or a run
    that had to be stopped."""


# -- named attribute addresses ----------------------------------------------------------------------
_NAMED_ATTRIBUTES = {
    "primitive_id": 0x60, "layer": 0x64, "viewport_index": 0x68, "point_size": 0x6C, "position": 0x70,
    "point_coord": 0x2E0, "tess_coord": 0x2F0, "instance_id": 0x2F8, "vertex_id": 0x2FC, "front_facing": 0x3FC,
}


def attribute_address(key: int | str) -> int:
    """Byte address in attribute space of an input/output named by generic index (``3``, ``"attr3"``),
    a name (``"position"``, ``"vertex_id"``...) or a raw address (``"a[0x84]"``)."""
    if isinstance(key, (int, np.integer)):
        if not 0 <= int(key) < 32:
            raise VMError(f"generic attribute {key} is not 0..31")
        return 0x80 + 16 * int(key)
    text = str(key).strip().lower()
    if text in _NAMED_ATTRIBUTES:
        return _NAMED_ATTRIBUTES[text]
    if text.startswith("attr") and text[4:].isdigit():
        return attribute_address(int(text[4:]))
    if text.isdigit():
        return attribute_address(int(text))
    if text.startswith("a[") and text.endswith("]"):
        try:
            address = int(text[2:-1], 0)
        except ValueError:
            raise VMError(f"bad attribute address {key!r}") from None
        if not 0 <= address < 0x400 or address % 4:
            raise VMError(f"attribute address {address:#x} is not a word in a[0x0]..a[0x3fc]")
        return address
    raise VMError(f"unknown attribute {key!r} (use an index, attrN, a[0x..] or {', '.join(_NAMED_ATTRIBUTES)})")


# -- float helpers ----------------------------------------------------------------------------------
def _f(u: np.ndarray) -> np.ndarray:
    return np.asarray(u, U32).view(F32)


def _u(f: Any) -> np.ndarray:
    return np.asarray(f, F32).view(U32)


def _ftz(x: np.ndarray) -> np.ndarray:
    return flush(np.asarray(x, F32))


def _round(exact: np.ndarray, mode: int) -> np.ndarray:
    """float64 values to float32 rounded by mode (0 nearest even, 1 down, 2 up, 3 toward zero)."""
    exact = np.asarray(exact, np.float64)
    near = exact.astype(F32)
    if mode == 0:
        return near
    back = near.astype(np.float64)
    if mode == 1:
        return np.where(back > exact, np.nextafter(near, F32(-np.inf)), near).astype(F32)
    if mode == 2:
        return np.where(back < exact, np.nextafter(near, F32(np.inf)), near).astype(F32)
    return np.where(np.abs(back) > np.abs(exact), np.nextafter(near, F32(0)), near).astype(F32)


def _s(u: np.ndarray) -> np.ndarray:
    return np.asarray(u, U32).view(np.int32)


def _signed32(v: np.ndarray) -> np.ndarray:
    """int64 32-bit values (0 .. 2**32-1) read as two's complement (-2**31 .. 2**31-1)."""
    return np.where(v >= 1 << 31, v - (1 << 32), v)


def _wrap(x: np.ndarray) -> np.ndarray:
    """int64/uint64 values to uint32 (low 32 bits)."""
    return (np.asarray(x).astype(np.int64) & 0xFFFFFFFF).astype(U32)


_COMPARE: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "F": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "Lt": np.less, "Eq": np.equal, "Le": np.less_equal, "Gt": np.greater, "Ne": lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b) if a.dtype.kind == "f" else a != b,
    "Ge": np.greater_equal,
    "Num": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "Nan": lambda a, b: np.isnan(a) | np.isnan(b),
    "Ltu": lambda a, b: ~(a >= b), "Equ": lambda a, b: ~((a < b) | (a > b)), "Leu": lambda a, b: ~(a > b),
    "Gtu": lambda a, b: ~(a <= b), "Neu": lambda a, b: ~(a == b), "Geu": lambda a, b: ~(a < b),
    "T": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}
_BOOL: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "And": np.logical_and, "Or": np.logical_or, "Xor": np.logical_xor,
}


def _enum_name(enum: str, value: int) -> str:
    names = ENUMS[enum]
    return names[value] if value < len(names) and names[value] else f"{enum}_{value}"


# -- the decoded instruction as the semantics see it ------------------------------------------------
class Ins:
    """One instruction at an address: its encoding's operands and modifiers by name, values from the
    table's decoded fields."""

    def __init__(self, instruction: Instruction, address: int):
        self.instruction = instruction
        self.enc = instruction.encoding
        self.values = instruction.values
        self.address = address
        self.mnemonic = self.enc.mnemonic
        self.suffix = self.enc.suffix
        self.mods: dict[str, list[int]] = {}
        for modifier in self.enc.modifiers:
            self.mods.setdefault(modifier.enum or modifier.name, []).append(self.values[modifier.slot])

    def mod(self, name: str, index: int = 0, default: int = 0) -> int:
        """The value of modifier ``name`` (a flag's bit or a choice's field); ``index`` picks among repeats."""
        values = self.mods.get(name)
        return default if values is None or index >= len(values) else values[index]

    def choice(self, name: str, index: int = 0) -> str:
        """The value name of choice modifier ``name`` (``ENUM_<n>`` when unnamed)."""
        return _enum_name(name, self.mod(name, index))

    @property
    def operands(self) -> list[Operand]:
        """The encoding's operands in text order."""
        return self.enc.operands

    def raw(self, i: int, sub: int = 0) -> int:
        """Sub-field ``sub`` of operand ``i``."""
        return self.values[self.operands[i].fields[sub]]

    def flag(self, i: int, which: str) -> int:
        """Operand ``i``'s flag ``which`` (neg, abs, not_, inv, cc, h1, part), 0 when it has none."""
        slot = getattr(self.operands[i], which)
        return 0 if slot is None else self.values[slot]

    def kind(self, i: int) -> str:
        """Operand ``i``'s kind letter."""
        return self.operands[i].kind

    def value(self, i: int) -> tuple[int, ...]:
        """Operand ``i``'s value as the hardware reads it (:func:`~shaderkit.isa.maxwell.decode.operand_value`)."""
        return operand_value(self.instruction, self.operands[i])

    def fail(self, why: str) -> VMError:
        """A VMError naming this instruction."""
        return VMError(f"{self.mnemonic} at {self.address:#x}: {why}")

    # operand readers: functions of the machine state
    def u(self, i: int) -> Callable[[Machine], np.ndarray]:
        """Reader of operand ``i`` as uint32 bits (``inv`` applied)."""
        kind = self.kind(i)
        if kind == "R":
            index = self.raw(i)
            get: Callable[[Machine], np.ndarray] = (lambda st: st.zero) if index == RZ else (lambda st: st.r[index])
        elif kind in ("I", "F", "S", "F20"):
            value = np.array(self.value(i)[0] & 0xFFFFFFFF, U32)
            get = lambda st: value  # noqa: E731
        elif kind == "C":
            slot, offset = self.value(i)
            get = lambda st: st.cbuf_word(slot, offset)  # noqa: E731
        elif kind == "K":
            slot, reg, offset = self.value(i)
            get = lambda st: st.cbuf_words(slot, st.reg(reg).astype(np.int64) + offset)  # noqa: E731
        else:
            raise self.fail(f"operand kind {kind} is not a value")
        if self.flag(i, "inv"):
            return lambda st: ~get(st)
        return get

    def f(self, i: int, ftz: bool = False) -> Callable[[Machine], np.ndarray]:
        """Reader of operand ``i`` as float32 (``abs`` then ``neg`` applied; ``ftz``: denormals flushed)."""
        get = self.u(i)
        neg, absolute = self.flag(i, "neg"), self.flag(i, "abs")

        def read(st: Machine) -> np.ndarray:
            x = _f(get(st))
            if ftz:
                x = _ftz(x)
            if absolute:
                x = np.abs(x)
            if neg:
                x = -x
            return x
        return read

    def d64(self, i: int) -> Callable[[Machine], np.ndarray]:
        """Reader of operand ``i`` as float64 (register pair, D20 immediate, 8 bytes of c[][]), abs/neg applied."""
        kind = self.kind(i)
        if kind == "R":
            index = self.raw(i)
            get: Callable[[Machine], np.ndarray] = lambda st: st.pair(index).view(np.float64)  # noqa: E731
        elif kind == "D20":
            value = np.array(self.value(i)[0], np.uint64).view(np.float64)
            get = lambda st: value  # noqa: E731
        elif kind == "C":
            slot, offset = self.value(i)
            get = lambda st: (st.cbuf_word(slot, offset).astype(np.uint64)  # noqa: E731
                              | st.cbuf_word(slot, offset + 4).astype(np.uint64) << np.uint64(32)).view(np.float64)
        else:
            raise self.fail(f"operand kind {kind} is not a double")
        neg, absolute = self.flag(i, "neg"), self.flag(i, "abs")

        def read(st: Machine) -> np.ndarray:
            x = get(st)
            if absolute:
                x = np.abs(x)
            return -x if neg else x
        return read

    def pred(self, i: int) -> Callable[[Machine], np.ndarray]:
        """Reader of predicate operand ``i`` (``!`` applied)."""
        index, negate = self.raw(i), self.flag(i, "not_")
        if negate:
            return lambda st: ~st.p[index]
        return lambda st: st.p[index]


# -- machine state ----------------------------------------------------------------------------------
class EmittedVertices(Sequence[list[tuple[np.ndarray, bool]]]):
    """Per lane, the (attributes, cut) pairs a geometry shader's OUT.EMIT recorded: a sequence of
    one list per lane (``emitted[lane]``), equal to the plain list of those lists. The lists are
    made when a lane emits or is read, so a run of other stages builds none."""

    def __init__(self, lanes: int) -> None:
        self._lanes = lanes
        self._lists: dict[int, list[tuple[np.ndarray, bool]]] = {}

    def __len__(self) -> int:
        return self._lanes

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._lanes))]
        lane = int(index)
        if lane < 0:
            lane += self._lanes
        if not 0 <= lane < self._lanes:
            raise IndexError(f"lane {index} is not 0..{self._lanes - 1}")
        return self._lists.setdefault(lane, [])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EmittedVertices):
            other = list(other)
        return isinstance(other, list) and list(self) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class Machine:
    """The state of one run: registers, predicates, condition code, attribute spaces, memories."""

    def __init__(self, lanes: int):
        self.n = lanes
        self.r = np.zeros((256, lanes), U32)
        self.zero = self.r[RZ]
        self.p = np.zeros((8, lanes), bool)
        self.p[PT] = True
        self.cc = np.zeros((4, lanes), bool)  # zero, sign, carry, overflow
        self.attr_in = np.zeros((ATTRIBUTE_WORDS, lanes), U32)  # a row per attribute word
        self.attr_out = np.zeros((ATTRIBUTE_WORDS, lanes), U32)
        self.perspective = np.zeros(ATTRIBUTE_WORDS, bool)
        self.cbufs: dict[int, np.ndarray] = {}
        self.textures: dict[int | str, Any] = {}
        self.surfaces: dict[int | str, np.ndarray] = {}  # the run's copies (stores change them)
        self.filter = "linear"
        self.wrap = "repeat"
        self.pc = np.zeros(lanes, np.int64)
        self.live = np.ones(lanes, bool)
        self.killed = np.zeros(lanes, bool)
        self.stack_kind = np.zeros((lanes, STACK_DEPTH), np.int8)
        self.stack_target = np.zeros((lanes, STACK_DEPTH), np.int64)
        self.sp = np.zeros(lanes, np.int64)
        self.memories: dict[str, np.ndarray] = {}
        self.bases: dict[str, int] = {}  # address of each memory's first byte
        self.system: dict[str, np.ndarray] = {}
        self.emitted = EmittedVertices(lanes)
        self.lane_index = np.arange(lanes)
        #: the mask of every lane: a write under this very object needs no lane selection
        self.all_lanes = np.ones(lanes, bool)
        self.code_address = 0  # the program's address in its code region (JMX targets are region addresses)

    def reg(self, index: int) -> np.ndarray:
        """Register ``index`` (RZ reads 0)."""
        return self.zero if index == RZ else self.r[index]

    def pair(self, index: int) -> np.ndarray:
        """Registers ``index`` and ``index + 1`` as uint64 (low word first)."""
        low = self.reg(index).astype(np.uint64)
        high = self.reg(index + 1 if index != RZ else RZ).astype(np.uint64)
        return low | high << np.uint64(32)

    def write(self, index: int, value: Any, mask: np.ndarray) -> None:
        """Write uint32 ``value`` to register ``index`` in the lanes of ``mask`` (RZ ignores it)."""
        if index != RZ:
            if mask is self.all_lanes:
                np.copyto(self.r[index], np.asarray(value).astype(U32, copy=False))
            else:
                np.copyto(self.r[index], np.asarray(value).astype(U32, copy=False), where=mask)

    def writef(self, index: int, value: Any, mask: np.ndarray) -> None:
        """Write float32 ``value`` to register ``index``."""
        self.write(index, _u(np.asarray(value, F32)), mask)

    def write_pair(self, index: int, value: np.ndarray, mask: np.ndarray) -> None:
        """Write uint64 ``value`` to ``index`` (low word) and ``index + 1``."""
        if index == RZ:
            return
        value = np.asarray(value).astype(np.uint64)
        self.write(index, (value & np.uint64(0xFFFFFFFF)).astype(U32), mask)
        self.write(index + 1, (value >> np.uint64(32)).astype(U32), mask)

    def setp(self, index: int, value: Any, mask: np.ndarray) -> None:
        """Write predicate ``index`` (PT ignores it)."""
        if index != PT:
            if mask is self.all_lanes:
                np.copyto(self.p[index], np.asarray(value, bool))
            else:
                np.copyto(self.p[index], np.asarray(value, bool), where=mask)

    def set_cc(self, mask: np.ndarray, result: np.ndarray, carry: Any = False, overflow: Any = False) -> None:
        """Condition code from a 32-bit result: zero, sign, and the given carry and overflow."""
        result = np.asarray(result, U32)
        for row, value in enumerate((result == 0, (result >> U32(31)) == 1, carry, overflow)):
            np.copyto(self.cc[row], np.asarray(value, bool), where=mask)

    def cbuf_bytes(self, slot: int) -> np.ndarray:
        """Constant buffer ``slot`` as bytes (VMError when the caller gave none)."""
        buf = self.cbufs.get(slot)
        if buf is None:
            raise VMError(f"the shader reads constant buffer c[{slot:#x}], which was not given")
        return buf

    def cbuf_word(self, slot: int, offset: int) -> np.ndarray:
        """The 32-bit word at byte ``offset`` of c[slot] (0 past its end, as unbound reads on hardware)."""
        buf = self.cbuf_bytes(slot)
        if offset + 4 > len(buf):
            return np.array(0, U32)
        return np.array(buf[offset:offset + 4].view(U32)[0], U32)

    def cbuf_words(self, slot: int, offsets: np.ndarray, size: int = 4) -> np.ndarray:
        """Per-lane little-endian words (``size`` bytes, up to 4) at byte ``offsets`` of c[slot]; 0 out of range."""
        buf = self.cbuf_bytes(slot)
        offsets = np.broadcast_to(np.asarray(offsets, np.int64), (self.n,))
        inside = (offsets >= 0) & (offsets + size <= len(buf))
        safe = np.where(inside, offsets, 0)
        value = np.zeros(self.n, U32)
        if len(buf) >= size:
            for k in range(size):
                value |= buf[safe + k].astype(U32) << U32(8 * k)
        return np.where(inside, value, U32(0))

    def condition(self, name: str) -> np.ndarray:
        """The condition-code test ``name`` (Ccc) for every lane."""
        z, s, c, o = self.cc
        tests = {
            "F": lambda: np.zeros(self.n, bool), "T": lambda: np.ones(self.n, bool),
            "Lt": lambda: s ^ o, "Eq": lambda: z, "Le": lambda: (s ^ o) | z, "Gt": lambda: ~(s ^ o) & ~z,
            "Ne": lambda: ~z, "Ge": lambda: ~(s ^ o), "Off": lambda: ~o, "Lo": lambda: ~c, "Sff": lambda: ~s,
            "Ls": lambda: ~c | z, "Hi": lambda: c & ~z, "Sft": lambda: s, "Hs": lambda: c, "Oft": lambda: o,
        }
        if name not in tests:
            raise VMError(f"condition code test {name} is not supported")
        return np.asarray(tests[name](), bool)

    # reconvergence stack
    def push(self, mask: np.ndarray, kind: int, target: int) -> None:
        """Push (kind, target) on the stacks of the lanes of ``mask``."""
        lanes = np.nonzero(mask)[0]
        if len(lanes) and (self.sp[lanes] >= STACK_DEPTH).any():
            raise VMError(f"reconvergence stack overflow ({STACK_DEPTH} entries)")
        self.stack_kind[lanes, self.sp[lanes]] = kind
        self.stack_target[lanes, self.sp[lanes]] = target
        self.sp[lanes] += 1

    def pop_to(self, mask: np.ndarray, kind: int, what: str) -> None:
        """For the lanes of ``mask``: drop stack entries down to and including the nearest ``kind``
        entry and continue at its target."""
        lanes = np.nonzero(mask)[0]
        if not len(lanes):
            return
        depth = self.sp[lanes]
        level = np.full(len(lanes), -1, np.int64)
        for index in range(int(depth.max()) - 1, -1, -1):  # the nearest entry of the kind, top down
            hit = (level < 0) & (depth > index) & (self.stack_kind[lanes, index] == kind)
            level[hit] = index
        if (level < 0).any():
            lane = int(lanes[np.argmax(level < 0)])
            raise VMError(f"{what} at {int(self.pc[lane]):#x} with no matching entry on lane {lane}'s stack")
        self.pc[lanes] = self.stack_target[lanes, level]
        self.sp[lanes] = level

    # memories
    def memory(self, space: str) -> np.ndarray:
        """The byte array of memory ``space`` (global, shared, local: local has a row per lane)."""
        mem = self.memories.get(space)
        if mem is None:
            raise VMError(f"the shader uses {space} memory, which was not given")
        return mem

    def load(self, space: str, address: np.ndarray, size: int, mask: np.ndarray) -> np.ndarray:
        """``size`` bytes per lane at ``address`` as (size // 4 or 1, lanes) uint32 (sub-word loads zero-extended)."""
        mem = self.memory(space)
        address = np.broadcast_to(np.asarray(address, np.int64), (self.n,))
        span = mem.shape[-1]
        bad = mask & ((address < 0) | (address + size > span))
        if bad.any():
            lane = int(np.argmax(bad))
            raise VMError(f"{space} load of {size} bytes at {int(address[lane]):#x} is outside the {span:#x}-byte memory")
        safe = np.where(mask, address, 0)
        offsets = safe[:, None] + np.arange(size)
        raw = mem[self.lane_index[:, None], offsets] if mem.ndim == 2 else mem[offsets]
        if size < 4:
            raw = np.concatenate([raw, np.zeros((self.n, 4 - size), np.uint8)], axis=1)
        return np.ascontiguousarray(raw).view(U32).T

    def store(self, space: str, address: np.ndarray, words: list[np.ndarray], size: int, mask: np.ndarray) -> None:
        """Store ``size`` bytes of ``words`` (uint32 per lane) at ``address`` in the lanes of ``mask`` (lane order)."""
        mem = self.memory(space)
        address = np.broadcast_to(np.asarray(address, np.int64), (self.n,))
        span = mem.shape[-1]
        bad = mask & ((address < 0) | (address + size > span))
        if bad.any():
            lane = int(np.argmax(bad))
            raise VMError(f"{space} store of {size} bytes at {int(address[lane]):#x} is outside the {span:#x}-byte memory")
        data = np.stack([np.broadcast_to(np.asarray(w, U32), (self.n,)) for w in words], axis=1)
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(self.n, -1)[:, :size]
        lanes = np.nonzero(mask)[0]
        offsets = address[lanes][:, None] + np.arange(size)
        if mem.ndim == 2:
            mem[lanes[:, None], offsets] = raw[lanes]
        elif len(np.unique(offsets)) == offsets.size:
            mem[offsets] = raw[lanes]
        else:  # lanes storing to the same bytes: one after another, the last lane's bytes stay
            for index, where in zip(lanes, offsets):
                mem[where] = raw[index]


Op = Callable[[Machine, np.ndarray], None]
Builder = Callable[[Ins], Op]
SEMANTICS: dict[str, Builder] = {}
#: mnemonic -> why it is not executed
UNSUPPORTED: dict[str, str] = {}


def semantics(*names: str) -> Callable[[Builder], Builder]:
    """Register a builder for mnemonics (``MNEMONIC``, or ``MNEMONIC.SUFFIX`` for a fixed-suffix form)."""
    def register(builder: Builder) -> Builder:
        for name in names:
            SEMANTICS[name] = builder
        return builder
    return register


def unsupported(reason: str, *names: str) -> None:
    """Declare mnemonics the VM does not execute, with the reason."""
    for name in names:
        UNSUPPORTED[name] = reason


def _key(ins: Ins) -> str:
    return f"{ins.mnemonic}.{ins.suffix}" if ins.suffix and f"{ins.mnemonic}.{ins.suffix}" in SEMANTICS else ins.mnemonic


def supported_encodings() -> list[str]:
    """Names of the table's encodings this VM executes."""
    return [enc.name for enc in ENCODINGS
            if (f"{enc.mnemonic}.{enc.suffix}" in SEMANTICS or enc.mnemonic in SEMANTICS)
            and f"{enc.mnemonic}.{enc.suffix}" not in UNSUPPORTED]


def _cc_row(ins: Ins) -> bool:
    return bool(ins.flag(0, "cc")) if ins.operands and ins.kind(0) == "R" else False


def _result(st: Machine, d: int, cc: bool, value: np.ndarray, m: np.ndarray) -> None:
    """Write ``value`` to register ``d`` and, when the instruction sets CC (``cc``, from
    :func:`_cc_row` at build time), set CC from it."""
    st.write(d, value, m)
    if cc:
        st.set_cc(m, value)


# -- floating point ---------------------------------------------------------------------------------
def _fwrite(st: Machine, ins: Ins, mask: np.ndarray, value: np.ndarray, ftz: bool, sat: bool) -> None:
    if ftz:
        value = _ftz(value)
    if sat:
        value = saturate(value)
    st.writef(ins.raw(0), value, mask)
    if _cc_row(ins):
        bits = _u(value)
        st.set_cc(mask, bits)


@semantics("FADD", "FADD32I")
def _fadd(ins: Ins) -> Op:
    ftz = bool(ins.mod("FTZ"))
    a, b = ins.f(1, ftz), ins.f(2, ftz)
    sat, rnd = bool(ins.mod("SAT")), ins.mod("RoundMode")

    def op(st: Machine, m: np.ndarray) -> None:
        exact = a(st).astype(np.float64) + b(st).astype(np.float64)
        _fwrite(st, ins, m, _round(exact, rnd), ftz, sat)
    return op


def _fmz(ins: Ins) -> tuple[bool, bool]:
    value = ins.mod("Fmz")
    return value >= 1 or bool(ins.mod("FTZ")), value == 2


def _product(a: np.ndarray, b: np.ndarray, fmz: bool) -> np.ndarray:
    p = a.astype(np.float64) * b.astype(np.float64)
    if fmz:
        p = np.where((a == 0) | (b == 0), 0.0, p)
    return p


_SCALE = {"NoScale": 1.0, "D2": 0.5, "D4": 0.25, "D8": 0.125, "M8": 8.0, "M4": 4.0, "M2": 2.0}


@semantics("FMUL", "FMUL32I")
def _fmul(ins: Ins) -> Op:
    ftz, fmz = _fmz(ins)
    a, b = ins.f(1, ftz), ins.f(2, ftz)
    sat, rnd = bool(ins.mod("SAT")), ins.mod("RoundMode")
    scale = _SCALE.get(ins.choice("MultiplyScale"), 1.0) if "MultiplyScale" in ins.mods else 1.0

    def op(st: Machine, m: np.ndarray) -> None:
        _fwrite(st, ins, m, _round(_product(a(st), b(st), fmz) * scale, rnd), ftz, sat)
    return op


@semantics("FFMA", "FFMA32I")
def _ffma(ins: Ins) -> Op:
    ftz, fmz = _fmz(ins)
    a, b = ins.f(1, ftz), ins.f(2, ftz)
    c: Callable[[Machine], np.ndarray]
    if ins.mnemonic == "FFMA32I":
        c_reg, negc = ins.raw(0), ins.mod("NEGC")

        def c_dest(st: Machine) -> np.ndarray:
            x = _f(st.reg(c_reg))
            x = _ftz(x) if ftz else x
            return -x if negc else x
        c = c_dest
    else:
        c = ins.f(3, ftz)
    sat, rnd = bool(ins.mod("SAT")), ins.mod("RoundMode")

    def op(st: Machine, m: np.ndarray) -> None:
        exact = _product(a(st), b(st), fmz) + c(st).astype(np.float64)
        _fwrite(st, ins, m, _round(exact, rnd), ftz, sat)
    return op


@semantics("FMNMX")
def _fmnmx(ins: Ins) -> Op:
    ftz = bool(ins.mod("FTZ"))
    a, b, p = ins.f(1, ftz), ins.f(2, ftz), ins.pred(3)

    def op(st: Machine, m: np.ndarray) -> None:
        x, y = a(st), b(st)
        _fwrite(st, ins, m, np.where(p(st), np.fmin(x, y), np.fmax(x, y)), ftz, False)
    return op


def _fcompare(ins: Ins, i: int, j: int, ftz: bool) -> Callable[[Machine], np.ndarray]:
    a, b = ins.f(i, ftz), ins.f(j, ftz)
    test = _COMPARE[ins.choice("FComp")]
    return lambda st: test(a(st), b(st))


@semantics("FSETP")
def _fsetp(ins: Ins) -> Op:
    cmp = _fcompare(ins, 2, 3, bool(ins.mod("FTZ")))
    return _setp_tail(ins, cmp)


def _setp_tail(ins: Ins, cmp: Callable[[Machine], np.ndarray], bool_op: int = 0) -> Op:
    """The predicate pair of a compare-and-set (FSETP, ISETP, CSETP, PSETP ...): ``cmp`` and its
    negation, each combined with the last (predicate) operand by the ``bool_op``-th BoolOp."""
    p, q = ins.raw(0), ins.raw(1)
    c = ins.pred(len(ins.operands) - 1)
    combine = _BOOL[ins.choice("BoolOp", bool_op)]

    def op(st: Machine, m: np.ndarray) -> None:
        r, cv = cmp(st), c(st)
        st.setp(p, combine(r, cv), m)
        st.setp(q, combine(~r, cv), m)
    return op


def _set_tail(ins: Ins, cmp: Callable[[Machine], np.ndarray], pred_at: int | None = None, bool_op: int = 0) -> Op:
    """The register result of a compare-and-set (FSET, ISET, PSET ...): ``cmp`` combined with the
    predicate operand (the last one unless ``pred_at``) by the ``bool_op``-th BoolOp, as 1.0 (BF)
    or all ones."""
    c = ins.pred(len(ins.operands) - 1 if pred_at is None else pred_at)
    combine = _BOOL[ins.choice("BoolOp", bool_op)]
    true = np.array(0x3F800000 if ins.mod("BF") else 0xFFFFFFFF, U32)
    d = ins.raw(0)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        value = np.where(combine(cmp(st), c(st)), true, U32(0))
        _result(st, d, cc, value, m)
    return op


@semantics("FSET")
def _fset(ins: Ins) -> Op:
    return _set_tail(ins, _fcompare(ins, 1, 2, bool(ins.mod("FTZ"))))


@semantics("FCMP")
def _fcmp(ins: Ins) -> Op:
    ftz = bool(ins.mod("FTZ"))
    a, b, c = ins.u(1), ins.u(2), ins.f(3, ftz)
    test = _COMPARE[ins.choice("FComp")]
    d = ins.raw(0)

    def op(st: Machine, m: np.ndarray) -> None:
        st.write(d, np.where(test(c(st), F32(0)), a(st), b(st)), m)
    return op


#: MUFU operations on float64 (one float32 rounding after)
_MUFU: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "Cos": np.cos, "Sin": np.sin, "Ex2": np.exp2, "Lg2": np.log2, "Rcp": lambda x: 1.0 / x,
    "Rsq": lambda x: 1.0 / np.sqrt(x), "Sqrt": np.sqrt,
}


@semantics("MUFU")
def _mufu(ins: Ins) -> Op:
    name = ins.choice("MufuOp")
    d, sat = ins.raw(0), bool(ins.mod("SAT"))
    if name in ("Rcp64h", "Rsq64h"):
        src = ins.u(1)

        def op64(st: Machine, m: np.ndarray) -> None:
            hi = src(st).astype(np.uint64) << np.uint64(32)
            x = np.broadcast_to(hi, (st.n,)).copy().view(np.float64)
            y = 1.0 / x if name == "Rcp64h" else 1.0 / np.sqrt(x)
            st.write(d, (np.asarray(y, np.float64).view(np.uint64) >> np.uint64(32)).astype(U32), m)
        return op64
    if name not in _MUFU:
        raise ins.fail(f"MUFU operation {name} is not supported")
    a, function = ins.f(1), _MUFU[name]

    def op(st: Machine, m: np.ndarray) -> None:
        value = function(a(st).astype(np.float64)).astype(F32)
        st.writef(d, saturate(value) if sat else value, m)
    return op


@semantics("RRO")
def _rro(ins: Ins) -> Op:
    a, d = ins.f(1), ins.raw(0)
    return lambda st, m: st.writef(d, a(st), m)


_SWIZZLE_A = np.array([1.0, -1.0, 1.0, 0.0], F32)  # per operation: a's and b's factors (Ryujinx's table)
_SWIZZLE_B = np.array([1.0, 1.0, -1.0, 1.0], F32)


@semantics("FSWZADD")
def _fswzadd(ins: Ins) -> Op:
    # the operation of each lane is chosen by its place in its quad: (mask >> 2 * (lane & 3)) & 3
    ftz = bool(ins.mod("FTZ"))
    a, b, mask = ins.f(1, ftz), ins.f(2, ftz), ins.raw(3)
    rnd = ins.mod("RoundMode")

    def op(st: Machine, m: np.ndarray) -> None:
        which = (mask >> (2 * (st.lane_index & 3))) & 3
        exact = a(st).astype(np.float64) * _SWIZZLE_A[which] + b(st).astype(np.float64) * _SWIZZLE_B[which]
        _fwrite(st, ins, m, _round(exact, rnd), ftz, False)
    return op


@semantics("FCHK")
def _fchk(ins: Ins) -> Op:
    # FCHK.DIVIDE tells whether a / b needs the slow (exact) path; the VM's fast path is exact in
    # float64, so it answers "no" unless b is 0, denormal, inf or NaN, or a is inf or NaN.
    p, a, b = ins.raw(0), ins.f(1), ins.f(2)

    def op(st: Machine, m: np.ndarray) -> None:
        x, y = a(st), b(st)
        st.setp(p, ~np.isfinite(x) | ~np.isfinite(y) | (np.abs(y) < _TINY), m)
    return op


_SRC_FLOAT = {"F16": 16, "F32": 32, "F64": 64}


def _float_source(ins: Ins, src: str) -> Callable[[Machine], np.ndarray]:
    """Reader of F2F/F2I's source as float64: a register pair/D20/c[][] double for F64, else the
    F32 word or the F16 half ``.SH`` picks (the high one when set), denormal F32 values flushed to
    signed zero with ``.FTZ``; then ``abs`` and ``neg``."""
    if src == "F64":
        return ins.d64(1)
    raw, sh, ftz = ins.u(1), bool(ins.mod("SH")), bool(ins.mod("FTZ"))
    neg, absolute = ins.flag(1, "neg"), ins.flag(1, "abs")

    def read(st: Machine) -> np.ndarray:
        bits = raw(st)
        x = f16_to_f32(bits >> U32(16) if sh else bits) if src == "F16" else _f(bits)
        if ftz:  # halves are never float32 denormals
            x = _ftz(x)
        x = x.astype(np.float64)
        if absolute:
            x = np.abs(x)
        return -x if neg else x
    return read


@semantics("F2F")
def _f2f(ins: Ins) -> Op:
    dst, src = ins.choice("DstFmt", 0), ins.choice("DstFmt", 1)
    if dst not in _SRC_FLOAT or src not in _SRC_FLOAT:
        raise ins.fail(f"conversion {src} -> {dst} is not supported")
    ftz, sat = bool(ins.mod("FTZ")), bool(ins.mod("SAT"))
    rounding = ins.mod("IntegerRound")
    source = _float_source(ins, src)
    d = ins.raw(0)

    def op(st: Machine, m: np.ndarray) -> None:
        x = np.asarray(source(st), np.float64)
        if rounding >= 4:  # round to an integral value
            x = [np.rint, np.floor, np.ceil, np.trunc][rounding & 3](x)
            rnd = 0
        else:
            rnd = rounding & 3
        if dst == "F64":
            if sat:
                x = np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0))
            st.write_pair(d, np.broadcast_to(np.asarray(x, np.float64), (st.n,)).copy().view(np.uint64), m)
            return
        y = _round(x, rnd)
        if ftz:
            y = _ftz(y)
        if sat:
            y = saturate(y)
        st.write(d, f32_to_f16(y) if dst == "F16" else _u(y), m)
        if _cc_row(ins):
            st.set_cc(m, _u(y))
    return op




def _int_limits(bits: int, signed: bool) -> tuple[int, int]:
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


@semantics("F2I")
def _f2i(ins: Ins) -> Op:
    dst = ins.choice("IDstFmt")
    src = ins.choice("DstFmt")
    if not dst or dst.startswith("IDstFmt") or src not in _SRC_FLOAT:
        raise ins.fail(f"conversion {src} -> {dst or 'IDstFmt_' + str(ins.mod('IDstFmt'))} is not supported")
    signed, bits = dst[0] == "S", int(dst[1:])
    lo, hi = _int_limits(bits, signed)
    mode = ins.mod("RoundMode2")
    source = _float_source(ins, src)
    d = ins.raw(0)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x = np.broadcast_to(np.asarray(source(st), np.float64), (st.n,))
        rounded = [np.rint, np.floor, np.ceil, np.trunc][mode](x)
        nan = np.isnan(rounded)
        clipped = np.clip(np.where(nan, 0.0, rounded), float(lo), float(hi))
        if bits == 64:
            with np.errstate(invalid="ignore"):  # the casts of the lanes np.where does not pick
                if signed:  # 2**63 (float(hi)) does not fit: the top value
                    as_i64 = np.where(clipped >= float(hi), np.int64(hi), clipped.astype(np.int64))
                else:  # [2**63, 2**64) as the int64 of the same bits; 2**64 (float(hi)): all ones
                    as_i64 = np.where(clipped >= 2.0 ** 64, np.int64(-1),
                                      np.where(clipped >= 2.0 ** 63, (clipped - 2.0 ** 64).astype(np.int64),
                                               clipped.astype(np.int64)))
            st.write_pair(d, as_i64.view(np.uint64), m)
            return
        value = _wrap(clipped.astype(np.int64))
        _result(st, d, cc, value, m)
    return op


_ISRC = {"U8": (8, False), "U16": (16, False), "U32": (32, False), "U64": (64, False),
         "S8": (8, True), "S16": (16, True), "S32": (32, True), "S64": (64, True)}


def _extract(value: np.ndarray, shift: int, bits: int, signed: bool) -> np.ndarray:
    """int64 of ``bits`` bits of ``value`` from bit ``shift`` (sign-extended when ``signed``)."""
    v = (np.asarray(value, U32).astype(np.int64) >> shift) & ((1 << bits) - 1)
    if signed:
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


@semantics("I2F")
def _i2f(ins: Ins) -> Op:
    src, dst = ins.choice("ISrcFmt"), ins.choice("DstFmt")
    if src not in _ISRC or dst not in _SRC_FLOAT:
        raise ins.fail(f"conversion {src} -> {dst} is not supported")
    bits, signed = _ISRC[src]
    shift = 8 * ins.mod("ByteSel") if bits < 32 else 0
    neg, absolute = ins.flag(1, "neg"), ins.flag(1, "abs")
    rnd = ins.mod("RoundMode")
    a, d = ins.u(1), ins.raw(0)
    reg = ins.raw(1) if ins.kind(1) == "R" else None

    def op(st: Machine, m: np.ndarray) -> None:
        if bits == 64:
            if reg is None:
                raise ins.fail("a 64-bit source must be a register pair")
            pair = st.pair(reg)
            x = pair.view(np.int64).astype(np.float64) if signed else pair.astype(np.float64)
        else:
            x = _extract(np.broadcast_to(a(st), (st.n,)), shift, bits, signed).astype(np.float64)
        if absolute:
            x = np.abs(x)
        if neg:
            x = -x
        if dst == "F64":
            st.write_pair(d, np.asarray(x, np.float64).view(np.uint64), m)
            return
        y = _round(x, rnd)
        st.write(d, f32_to_f16(y) if dst == "F16" else _u(y), m)
        if _cc_row(ins):
            st.set_cc(m, _u(y))
    return op


@semantics("I2I")
def _i2i(ins: Ins) -> Op:
    dst, src = ins.choice("ISrcDstFmt", 0), ins.choice("ISrcDstFmt", 1)
    if dst not in _ISRC or src not in _ISRC:
        raise ins.fail(f"conversion {src} -> {dst} is not supported")
    sbits, ssigned = _ISRC[src]
    dbits, dsigned = _ISRC[dst]
    shift = 8 * ins.mod("ByteSel") if sbits < 32 else 0
    neg, absolute, sat = ins.flag(1, "neg"), ins.flag(1, "abs"), bool(ins.mod("SAT"))
    a, d = ins.u(1), ins.raw(0)
    lo, hi = _int_limits(dbits, dsigned)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x = _extract(np.broadcast_to(a(st), (st.n,)), shift, sbits, ssigned)
        if absolute:
            x = np.abs(x)
        if neg:
            x = -x
        if sat:
            x = np.clip(x, lo, hi)
        else:
            x = _extract(_wrap(x), 0, dbits, dsigned) if dbits < 32 else x
        value = _wrap(x)
        _result(st, d, cc, value, m)
    return op


# -- integer ----------------------------------------------------------------------------------------
def _add_flags(st: Machine, m: np.ndarray, a: np.ndarray, b: np.ndarray, total: np.ndarray) -> None:
    """CC of a 32-bit add: carry out of bit 31, signed overflow."""
    res = _wrap(total)
    carry = (np.asarray(total, np.int64) >> 32) & 1 == 1
    a32, b32 = np.asarray(a, U32), np.asarray(b, U32)
    overflow = (((res ^ a32) & ~(a32 ^ b32)) >> U32(31)) == 1
    st.set_cc(m, res, carry, overflow)


def _iadd_like(ins: Ins, a: Callable[[Machine], np.ndarray], b: Callable[[Machine], np.ndarray],
               neg_a: int, neg_b: int, extended: bool, sat: bool, shift: int = 0) -> Op:
    plus_one = neg_a and neg_b  # .PO
    if plus_one:
        neg_a = neg_b = 0
    d = ins.raw(0)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x = (np.asarray(a(st), U32).astype(np.int64) << shift) & 0xFFFFFFFF
        y = np.asarray(b(st), U32).astype(np.int64)
        # a negated operand is added as its complement plus a carry-in of 1 (-b = ~b + 1); with .X
        # the carry-in is CC.carry instead, so IADD.CC lo, -b_lo / IADD.X hi, -b_hi subtracts 64 bits
        ox = (~x) & 0xFFFFFFFF if neg_a else x
        oy = (~y) & 0xFFFFFFFF if neg_b else y
        carry_in: Any = 1 if plus_one or neg_a or neg_b else 0
        if extended:
            carry_in = st.cc[2].astype(np.int64) + (1 if plus_one else 0)
        total = ox + oy + carry_in
        if sat:
            sx, sy = [_signed32(v) for v in ((-x) & 0xFFFFFFFF if neg_a else x,
                                             (-y) & 0xFFFFFFFF if neg_b else y)]
            value = _wrap(np.clip(sx + sy, -(1 << 31), (1 << 31) - 1))
        else:
            value = _wrap(total)
        st.write(d, value, m)
        if cc:
            _add_flags(st, m, _wrap(ox), _wrap(oy), total)
    return op


@semantics("IADD")
def _iadd(ins: Ins) -> Op:
    return _iadd_like(ins, ins.u(1), ins.u(2), ins.flag(1, "neg"), ins.flag(2, "neg"), bool(ins.mod("X")),
                      bool(ins.mod("SAT")))


@semantics("IADD32I")
def _iadd32i(ins: Ins) -> Op:
    mode = ins.choice("AvgMode")
    return _iadd_like(ins, ins.u(1), ins.u(2), mode in ("NegA", "PO"), mode in ("NegB", "PO"), bool(ins.mod("X")),
                      bool(ins.mod("SAT")))


@semantics("ISCADD")
def _iscadd(ins: Ins) -> Op:
    return _iadd_like(ins, ins.u(1), ins.u(2), ins.flag(1, "neg"), ins.flag(2, "neg"), False, False, ins.raw(3))


@semantics("ISCADD32I")
def _iscadd32i(ins: Ins) -> Op:
    return _iadd_like(ins, ins.u(1), ins.u(2), 0, 0, False, False, ins.raw(3))


_HALF_PART = {"B32": None, "H0": 0, "H1": 16}


@semantics("IADD3")
def _iadd3(ins: Ins) -> Op:
    """IADD3: a + b + c, a negated operand added as its complement with a carry-in of 1, as IADD
    does; with ``.X`` the negated operands add only their complements and the carry-in is CC.carry,
    so ``IADD3.CC lo, a, -b, RZ`` / ``IADD3.X hi, c, -d, RZ`` subtracts 64 bits (nouveau's GV100
    code generator lowers a subtraction to an add with a negated operand and splits 64-bit adds into
    a .CC/.X pair, the IADD rule on the IADD3 successor). The shift (``.RS``/``.LS``) applies to a + b
    with their carry-ins; the CC carry is set when the 34-bit sum reaches 2**32."""
    srcs = [ins.u(i) for i in (1, 2, 3)]
    negs = [ins.flag(i, "neg") for i in (1, 2, 3)]
    parts = [_HALF_PART.get(_enum_name("HalfSelect", ins.flag(i, "part")), None) if ins.operands[i].part is not None
             else None for i in (1, 2, 3)]
    lrs = ins.choice("Lrs") if "Lrs" in ins.mods else "None"
    extended, d = bool(ins.mod("X")), ins.raw(0)
    cc = _cc_row(ins)
    ab_in = 0 if extended else negs[0] + negs[1]  # the +1 of each negated operand (two's complement)
    c_in = 0 if extended else negs[2]

    def op(st: Machine, m: np.ndarray) -> None:
        vals = []
        for get, neg, part in zip(srcs, negs, parts):
            v = np.asarray(get(st), U32).astype(np.int64)
            if part is not None:
                v = (v >> part) & 0xFFFF
            vals.append((~v) & 0xFFFFFFFF if neg else v)
        ab = vals[0] + vals[1] + (st.cc[2].astype(np.int64) if extended else ab_in)
        if lrs == "Rs":
            ab = (ab & 0xFFFFFFFF) >> 16
        elif lrs == "Ls":
            ab = (ab << 16) & 0xFFFFFFFF
        total = ab + vals[2] + c_in
        value = _wrap(total)
        st.write(d, value, m)
        if cc:
            st.set_cc(m, value, (total >> 32) != 0, False)
    return op


def _mul64(a: np.ndarray, b: np.ndarray, sa: bool, sb: bool) -> np.ndarray:
    """Exact 64-bit product of two 32-bit values (as int64 bits of the 64-bit two's complement)."""
    x = np.asarray(a, U32).astype(np.int64)
    y = np.asarray(b, U32).astype(np.int64)
    if sa:
        x = _signed32(x)
    if sb:
        y = _signed32(y)
    if not sa and not sb:
        return (x.astype(np.uint64) * y.astype(np.uint64)).view(np.int64)
    return x * y  # |x*y| < 2**63 whenever one factor is signed


@semantics("IMUL", "IMUL32I")
def _imul(ins: Ins) -> Op:
    a, b, d = ins.u(1), ins.u(2), ins.raw(0)
    sa, sb, high = bool(ins.mod("ASIGNED")), bool(ins.mod("BSIGNED")), bool(ins.mod("HILO"))
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        p = _mul64(np.broadcast_to(a(st), (st.n,)), b(st), sa, sb)
        value = _wrap(p >> 32) if high else _wrap(p)
        _result(st, d, cc, value, m)
    return op


@semantics("IMAD", "IMAD32I")
def _imad(ins: Ins) -> Op:
    a, b, d = ins.u(1), ins.u(2), ins.raw(0)
    c = ins.u(3) if ins.mnemonic == "IMAD" else (lambda st: st.reg(d))
    sa, sb, high = bool(ins.mod("ASIGNED")), bool(ins.mod("BSIGNED")), bool(ins.mod("HILO"))
    mode = ins.choice("AvgMode")
    extended, sat = bool(ins.mod("X")), bool(ins.mod("SAT"))

    def op(st: Machine, m: np.ndarray) -> None:
        bv = np.broadcast_to(b(st), (st.n,))
        if mode == "NegA":
            bv = _wrap(-(bv.astype(np.int64)))
        p = _mul64(np.broadcast_to(a(st), (st.n,)), bv, sa, sb)
        p = (p >> 32) if high else (p & 0xFFFFFFFF)
        cv = np.asarray(c(st), U32).astype(np.int64)
        if mode == "NegB":
            cv = (-cv) & 0xFFFFFFFF
        total = (p & 0xFFFFFFFF) + cv + (1 if mode == "PO" else 0)
        if extended:
            total = total + st.cc[2].astype(np.int64)
        if sat and (sa or sb):
            sp = _signed32(p) if not high else p
            sc = _signed32(cv)
            value = _wrap(np.clip(sp + sc, -(1 << 31), (1 << 31) - 1))
        else:
            value = _wrap(total)
        st.write(d, value, m)
        if _cc_row(ins):
            st.set_cc(m, value, (total >> 32) & 1 == 1)
    return op


@semantics("XMAD")
def _xmad(ins: Ins) -> Op:
    a, b, c, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    sa, sb = bool(ins.mod("ASIGNED")), bool(ins.mod("BSIGNED"))
    ha = bool(ins.flag(1, "h1"))
    hb = bool(ins.flag(2, "h1")) if ins.kind(2) == "R" or ins.kind(2) == "C" else False
    cop = ins.choice("XmadCop") if "XmadCop" in ins.mods else ins.choice("XmadCop2")
    psl, mrg, extended = bool(ins.mod("PSL")), bool(ins.mod("MRG")), bool(ins.mod("X"))
    cc = _cc_row(ins)

    def half(v: np.ndarray, high: bool, signed: bool) -> np.ndarray:
        return _extract(v, 16 if high else 0, 16, signed)

    def op(st: Machine, m: np.ndarray) -> None:
        av = np.broadcast_to(a(st), (st.n,))
        braw = np.broadcast_to(b(st), (st.n,))
        x, y = half(av, ha, sa), half(braw, hb, sb)
        product = (x * y) & 0xFFFFFFFF
        if psl:
            product = (product << 16) & 0xFFFFFFFF
        cv = np.asarray(c(st), U32).astype(np.int64)
        if cop == "Clo":
            cv = cv & 0xFFFF
        elif cop == "Chi":
            cv = cv >> 16
        elif cop == "Cbcc":
            cv = (cv + (braw.astype(np.int64) << 16)) & 0xFFFFFFFF
        elif cop == "Csfu":
            adjust = (((x & 0xFFFFFFFF) >> 31) << 16) + (((y & 0xFFFFFFFF) >> 31) << 16)
            cv = (cv - adjust) & 0xFFFFFFFF
        elif cop != "Cfull":
            raise ins.fail(f"XMAD mode {cop} is not defined")
        total = product + cv
        if extended:
            total = total + st.cc[2].astype(np.int64)
        value = _wrap(total)
        if cc:
            _add_flags(st, m, _wrap(product), _wrap(cv), total)
        if mrg:
            value = (value & U32(0xFFFF)) | (braw.astype(U32) << U32(16))
        st.write(d, value, m)
    return op


def _signed_pair(ins: Ins, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if ins.mod("U32"):  # bit 48 set: signed
        return _s(a), _s(b)
    return np.asarray(a, U32), np.asarray(b, U32)


@semantics("IMNMX")
def _imnmx(ins: Ins) -> Op:
    if ins.mod("XMode"):
        raise ins.fail("the extended (XLO/XMED/XHI) forms are not supported")
    a, b, p, d = ins.u(1), ins.u(2), ins.pred(3), ins.raw(0)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x, y = _signed_pair(ins, a(st), b(st))
        value = np.where(p(st), np.minimum(x, y), np.maximum(x, y))
        value = np.asarray(value).astype(np.int64)
        _result(st, d, cc, _wrap(value), m)
    return op


def _icompare(ins: Ins, i: int, j: int) -> Callable[[Machine], np.ndarray]:
    if ins.mod("X"):
        raise ins.fail("the extended (.X) compare is not supported")
    a, b = ins.u(i), ins.u(j)
    test = _COMPARE[ins.choice("IComp")]

    def cmp(st: Machine) -> np.ndarray:
        x, y = _signed_pair(ins, a(st), b(st))
        return np.broadcast_to(test(x, y), (st.n,))
    return cmp


@semantics("ISETP")
def _isetp(ins: Ins) -> Op:
    return _setp_tail(ins, _icompare(ins, 2, 3))


@semantics("ISET")
def _iset(ins: Ins) -> Op:
    return _set_tail(ins, _icompare(ins, 1, 2))


@semantics("ICMP")
def _icmp(ins: Ins) -> Op:
    a, b, c, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    test = _COMPARE[ins.choice("IComp")]
    signed = bool(ins.mod("U32"))

    def op(st: Machine, m: np.ndarray) -> None:
        cv = _s(c(st)) if signed else np.asarray(c(st), U32)
        st.write(d, np.where(test(cv, cv.dtype.type(0)), a(st), b(st)), m)
    return op


@semantics("SHL")
def _shl(ins: Ins) -> Op:
    if ins.mod("X"):
        raise ins.fail("SHL.X is not supported")
    a, b, d, wrap = ins.u(1), ins.u(2), ins.raw(0), bool(ins.mod("W"))
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        n = np.asarray(b(st), U32).astype(np.int64)
        n = n & 31 if wrap else np.minimum(n, 32)
        value = _wrap(np.asarray(a(st), U32).astype(np.int64) << n)
        _result(st, d, cc, value, m)
    return op


@semantics("SHR")
def _shr(ins: Ins) -> Op:
    if ins.mod("XMode"):
        raise ins.fail("the extended (XLO/XMED/XHI) forms are not supported")
    a, b, d, wrap = ins.u(1), ins.u(2), ins.raw(0), bool(ins.mod("W"))
    signed, brev = bool(ins.mod("U32")), bool(ins.mod("BREV"))
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x = a(st)
        if brev:
            x = bit_reverse(x)
        n = np.asarray(b(st), U32).astype(np.int64)
        n = n & 31 if wrap else np.minimum(n, 32)
        if signed:
            value = _wrap(_s(x).astype(np.int64) >> n)
        else:
            value = _wrap(np.asarray(x, U32).astype(np.int64) >> n)
        _result(st, d, cc, value, m)
    return op


@semantics("SHF")
def _shf(ins: Ins) -> Op:
    if ins.mod("XModeShf"):
        raise ins.fail("the extended (HI/X) forms are not supported")
    lo, s, hi, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    left, wrap = ins.suffix == "L", bool(ins.mod("W"))
    kind = ins.choice("MaxShift")
    bits = 64 if kind in ("U64", "S64") else 32
    arithmetic = kind == "S64"
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        n = np.asarray(s(st), U32).astype(np.uint64)
        n = n & np.uint64(bits - 1) if wrap else np.minimum(n, np.uint64(bits))
        whole = np.asarray(lo(st), U32).astype(np.uint64) | np.asarray(hi(st), U32).astype(np.uint64) << np.uint64(32)
        whole = np.broadcast_to(whole, (st.n,))
        n = np.broadcast_to(n, (st.n,))
        big = n >= 64
        safe = np.where(big, np.uint64(0), n)
        if left:
            shifted = np.where(big, np.uint64(0), whole << safe)
            value = (shifted >> np.uint64(32)).astype(U32)
        elif arithmetic:
            signed = whole.view(np.int64)
            shifted = np.where(big, signed >> np.int64(63), signed >> safe.astype(np.int64)).view(np.uint64)
            value = (shifted & np.uint64(0xFFFFFFFF)).astype(U32)
        else:
            shifted = np.where(big, np.uint64(0), whole >> safe)
            value = (shifted & np.uint64(0xFFFFFFFF)).astype(U32)
        _result(st, d, cc, value, m)
    return op


_LOGIC = {"And": lambda a, b: a & b, "Or": lambda a, b: a | b, "Xor": lambda a, b: a ^ b, "PassB": lambda a, b: b}
_PREDICATE_OP = {"F": lambda v: np.zeros(v.shape, bool), "T": lambda v: np.ones(v.shape, bool),
                 "Z": lambda v: v == 0, "Nz": lambda v: v != 0}


def _logic_tail(ins: Ins, compute: Callable[[Machine], np.ndarray]) -> Op:
    d = ins.raw(0)
    pdst = ins.raw(1) if len(ins.operands) > 1 and ins.kind(1) == "P" else None
    pop = _PREDICATE_OP[ins.choice("PredicateOp")] if "PredicateOp" in ins.mods else None
    if ins.mod("X"):
        raise ins.fail(".X (extended zero flag) is not supported")

    def op(st: Machine, m: np.ndarray) -> None:
        value = np.broadcast_to(np.asarray(compute(st), U32), (st.n,))
        st.write(d, value, m)
        if pdst is not None and pop is not None:
            st.setp(pdst, pop(value), m)
        if _cc_row(ins):
            st.set_cc(m, value)
    return op


@semantics("LOP", "LOP32I")
def _lop(ins: Ins) -> Op:
    first = 2 if ins.kind(1) == "P" else 1
    a, b = ins.u(first), ins.u(first + 1)
    fn = _LOGIC[ins.choice("LogicOp")]
    return _logic_tail(ins, lambda st: fn(np.asarray(a(st), U32), np.asarray(b(st), U32)))


@semantics("LOP3")
def _lop3(ins: Ins) -> Op:
    first = 2 if ins.kind(1) == "P" else 1
    a, b, c = ins.u(first), ins.u(first + 1), ins.u(first + 2)
    lut = ins.raw(first + 3)

    def compute(st: Machine) -> np.ndarray:
        x, y, z = np.asarray(a(st), U32), np.asarray(b(st), U32), np.asarray(c(st), U32)
        out = np.zeros(np.broadcast(x, y, z).shape, U32)
        for index in range(8):
            if lut >> index & 1:
                term = (x if index & 4 else ~x) & (y if index & 2 else ~y) & (z if index & 1 else ~z)
                out |= term
        return out
    return _logic_tail(ins, compute)


def _bitfield(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    b = np.asarray(b, U32).astype(np.int64)
    return b & 0xFF, (b >> 8) & 0xFF


@semantics("BFE")
def _bfe(ins: Ins) -> Op:
    a, b, d = ins.u(1), ins.u(2), ins.raw(0)
    signed, brev = bool(ins.mod("U32")), bool(ins.mod("BREV"))
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        x = a(st)
        if brev:
            x = bit_reverse(x)
        x64 = np.broadcast_to(np.asarray(x, U32).astype(np.int64), (st.n,))
        pos, length = (np.broadcast_to(v, (st.n,)) for v in _bitfield(b(st)))
        msb = np.minimum(pos + length - 1, 31)
        field_ = (x64 >> np.minimum(pos, 63)) & ((np.int64(1) << np.minimum(length, 32)) - 1)
        field_ = np.where(pos >= 32, 0, field_)
        if signed:
            sign = (x64 >> msb) & 1
            keep = np.minimum(msb - pos + 1, 32)
            extended = np.where((sign == 1) & (keep < 32), field_ | (-(np.int64(1) << np.maximum(keep, 0))), field_)
            value = np.where(length == 0, 0, np.where(pos >= 32, -((x64 >> 31) & 1), extended))
        else:
            value = np.where(length == 0, 0, field_)
        result = _wrap(value)
        _result(st, d, cc, result, m)
    return op


@semantics("BFI")
def _bfi(ins: Ins) -> Op:
    a, b, c, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    cc = _cc_row(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        pos, length = (np.broadcast_to(v, (st.n,)) for v in _bitfield(b(st)))
        mask = (((np.int64(1) << np.minimum(length, 32)) - 1) << np.minimum(pos, 32)) & 0xFFFFFFFF
        base = np.asarray(c(st), U32).astype(np.int64)
        ins_v = (np.asarray(a(st), U32).astype(np.int64) << np.minimum(pos, 32)) & 0xFFFFFFFF
        value = np.where((length == 0) | (pos >= 32), base, (base & ~mask) | (ins_v & mask))
        result = _wrap(value)
        _result(st, d, cc, result, m)
    return op


@semantics("POPC")
def _popc(ins: Ins) -> Op:
    a, d = ins.u(1), ins.raw(0)
    return lambda st, m: st.write(d, count_bits(a(st)), m)


@semantics("FLO")
def _flo(ins: Ins) -> Op:
    a, d = ins.u(1), ins.raw(0)
    signed, sh = bool(ins.mod("U32")), bool(ins.mod("SH"))

    def op(st: Machine, m: np.ndarray) -> None:
        x = np.broadcast_to(np.asarray(a(st), U32), (st.n,))
        shift = first_bit_high_signed(x) if signed else first_bit_high(x)  # 31 - position, ~0 for none
        value = shift if sh else np.where(shift == U32(0xFFFFFFFF), shift, U32(31) - shift)
        st.write(d, value, m)
    return op


@semantics("SEL")
def _sel(ins: Ins) -> Op:
    a, b, p, d = ins.u(1), ins.u(2), ins.pred(3), ins.raw(0)
    return lambda st, m: st.write(d, np.where(p(st), a(st), b(st)), m)


@semantics("LEA")
def _lea(ins: Ins) -> Op:
    if ins.mod("X"):
        raise ins.fail("LEA.X is not supported")
    d, pdst = ins.raw(0), ins.raw(1)
    a, b, neg = ins.u(2), ins.u(3), ins.flag(2, "neg")
    if ins.suffix == "HI":
        c, shift = ins.u(4), ins.raw(5)
    else:
        c, shift = None, ins.raw(4)

    def op(st: Machine, m: np.ndarray) -> None:
        av = np.broadcast_to(np.asarray(a(st), U32).astype(np.uint64), (st.n,))
        if c is not None:
            whole = av | np.asarray(c(st), U32).astype(np.uint64) << np.uint64(32)
            if neg:
                whole = (~whole) + np.uint64(1)
            shifted = (whole << np.uint64(shift)) >> np.uint64(32)
        else:
            shifted = (av << np.uint64(shift)) & np.uint64(0xFFFFFFFF)
            if neg:
                shifted = ((~shifted) + np.uint64(1)) & np.uint64(0xFFFFFFFF)
        total = (shifted & np.uint64(0xFFFFFFFF)).astype(np.int64) + np.asarray(b(st), U32).astype(np.int64)
        st.write(d, _wrap(total), m)
        st.setp(pdst, (total >> 32) & 1 == 1, m)
        if _cc_row(ins):
            st.set_cc(m, _wrap(total), (total >> 32) & 1 == 1)
    return op


# PRMT modes: byte indices of d.b0..d.b3 for each value of the selector's low two bits (PTX prmt)
_PRMT_MODES = {
    "F4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "B4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "Rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "Ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "Ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "Rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}


@semantics("PRMT")
def _prmt(ins: Ins) -> Op:
    a, sel, c, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    mode = ins.choice("PMode") if ins.mod("PMode") else ""
    if mode and mode not in _PRMT_MODES:
        raise ins.fail(f"byte-select mode {mode} has no defined meaning")

    def op(st: Machine, m: np.ndarray) -> None:
        whole = (np.asarray(a(st), U32).astype(np.uint64) | np.asarray(c(st), U32).astype(np.uint64) << np.uint64(32))
        whole = np.broadcast_to(whole, (st.n,))
        s = np.broadcast_to(np.asarray(sel(st), U32).astype(np.int64), (st.n,))
        out = np.zeros(st.n, np.int64)
        for k in range(4):
            if mode:
                index = np.choose(s & 3, [np.int64(row[k]) for row in _PRMT_MODES[mode]])
                replicate = np.zeros(st.n, bool)
            else:
                nibble = (s >> (4 * k)) & 0xF
                index, replicate = nibble & 7, (nibble & 8) != 0
            byte = ((whole >> index.astype(np.uint64) * np.uint64(8)) & np.uint64(0xFF)).astype(np.int64)
            byte = np.where(replicate, np.where(byte & 0x80 != 0, 0xFF, 0), byte)
            out |= byte << (8 * k)
        st.write(d, _wrap(out), m)
    return op


@semantics("MOV", "MOV32I")
def _mov(ins: Ins) -> Op:
    a, d = ins.u(1), ins.raw(0)
    return lambda st, m: st.write(d, np.broadcast_to(a(st), (st.n,)), m)


@semantics("PSETP")
def _psetp(ins: Ins) -> Op:
    a, b = ins.pred(2), ins.pred(3)
    first = _BOOL[ins.choice("BoolOp", 0)]
    return _setp_tail(ins, lambda st: first(a(st), b(st)), bool_op=1)


@semantics("PSET")
def _pset(ins: Ins) -> Op:
    a, b = ins.pred(1), ins.pred(2)
    first = _BOOL[ins.choice("BoolOp", 0)]
    inner = lambda st: first(a(st), b(st))  # noqa: E731
    return _set_tail(ins, inner, pred_at=3, bool_op=1)


@semantics("CSETP")
def _csetp(ins: Ins) -> Op:
    test = ins.choice("Ccc")
    return _setp_tail(ins, lambda st: st.condition(test))


@semantics("CSET")
def _cset(ins: Ins) -> Op:
    c, d = ins.pred(1), ins.raw(0)
    test, combine = ins.choice("Ccc"), _BOOL[ins.choice("BoolOp")]
    true = np.array(0x3F800000 if ins.mod("BF") else 0xFFFFFFFF, U32)
    return lambda st, m: st.write(d, np.where(combine(st.condition(test), c(st)), true, U32(0)), m)


@semantics("P2R")
def _p2r(ins: Ins) -> Op:
    if ins.raw(1):
        raise ins.fail("P2R from the condition code is not supported")
    d, a, mask = ins.raw(0), ins.u(2), ins.u(3)
    shift = 8 * ins.mod("ByteSel")

    def op(st: Machine, m: np.ndarray) -> None:
        bits = np.zeros(st.n, U32)
        for i in range(7):
            bits |= st.p[i].astype(U32) << U32(i)
        mk = np.asarray(mask(st), U32) & U32(0xFF)
        value = (np.asarray(a(st), U32) & ~(mk << U32(shift))) | ((bits & mk) << U32(shift))
        st.write(d, value, m)
    return op


@semantics("R2P")
def _r2p(ins: Ins) -> Op:
    if ins.raw(0):
        raise ins.fail("R2P to the condition code is not supported")
    a, mask = ins.u(1), ins.u(2)
    shift = 8 * ins.mod("ByteSel")

    def op(st: Machine, m: np.ndarray) -> None:
        value = np.broadcast_to(np.asarray(a(st), U32) >> U32(shift), (st.n,))
        mk = int(np.asarray(mask(st), U32).flat[0]) if np.ndim(mask(st)) == 0 else None
        for i in range(7):
            bit = (value >> U32(i)) & U32(1) == 1
            if mk is None:
                sel = m & ((np.asarray(mask(st), U32) >> U32(i)) & U32(1) == 1)
                st.setp(i, bit, sel)
            elif mk >> i & 1:
                st.setp(i, bit, m)
    return op


def _video_select(value: np.ndarray, select: str) -> np.ndarray:
    """A video operand's byte/half/word as int64 per its select (``U8B1``, ``S16H0``, ``U32``...)."""
    if select in ("U32", "S32"):
        v = np.asarray(value, U32).astype(np.int64)
        return _signed32(v) if select == "S32" else v
    bits = 8 if select[1] == "8" else 16
    shift = int(select[-1]) * bits
    return _extract(value, shift, bits, select[0] == "S")


_VIDEO_SELECTS = {"U8B0", "U8B1", "U8B2", "U8B3", "U16H0", "U16H1", "U32", "S8B0", "S8B1", "S8B2", "S8B3", "S16H0",
                  "S16H1", "S32"}
#: VideoOp merge modes: (bit position in C, width), PTX's d.h1, d.h0, d.b0, d.b2 destination selects
_VIDEO_MERGE = {"Mrg16h": (16, 16), "Mrg16l": (0, 16), "Mrg8b0": (0, 8), "Mrg8b2": (16, 8)}


def _video_selects(ins: Ins, first: int = 1) -> tuple[str, str]:
    """The VectorSelects of a video instruction's A (operand ``first``) and B (the next).

    A register B has the second VectorSelect (VSHL/VSHR's has 3 bits, so it is unsigned: PTX's
    ``.u32`` shift count); the 16-bit immediate B is unsigned, or signed with BSIGNED (Ryujinx and
    yuzu: an immediate has no byte select)."""
    select_a = ins.choice("VectorSelect", 0)
    if ins.kind(first + 1) == "R":
        select_b = ins.choice("VectorSelect", 1)
    else:
        select_b = "S16H0" if ins.mod("BSIGNED") else "U16H0"
    for select in (select_a, select_b):
        if select not in _VIDEO_SELECTS:
            raise ins.fail(f"video select {select} is not defined")
    return select_a, select_b


def _video_sources(ins: Ins, first: int = 1) -> tuple[Callable[[Machine], np.ndarray],
                                                      Callable[[Machine], np.ndarray]]:
    """Readers of a video instruction's A (operand ``first``) and B (the next) as exact integers
    (int64) per their selects (:func:`_video_selects`)."""
    a, b = ins.u(first), ins.u(first + 1)
    select_a, select_b = _video_selects(ins, first)

    def read_a(st: Machine) -> np.ndarray:
        return np.broadcast_to(_video_select(a(st), select_a), (st.n,))

    def read_b(st: Machine) -> np.ndarray:
        return np.broadcast_to(_video_select(b(st), select_b), (st.n,))
    return read_a, read_b


def _video_tail(ins: Ins, tmp: Callable[[Machine], np.ndarray], signed: bool, sat: bool, video_op: str) -> Op:
    """Saturate ``tmp`` (exact integers) and combine it with C, then write the low 32 bits: PTX ISA
    "Scalar Video Instructions" (optSaturate, optSecOp, optMerge). ``.SAT`` clamps to the signed or
    unsigned range of the destination (``signed``: DFORMAT, envydis' ``sd``), a merge's to its byte
    or half-word; ACC adds C, MIN/MAX compare with C read with the destination's sign; the merges
    put the low byte/half-word into C at bit 16 (MRG_16H, MRG_8B2) or 0 (MRG_16L, MRG_8B0)."""
    if _cc_row(ins):
        raise ins.fail("the condition code of a video instruction (.CC) is not documented")
    if video_op not in ("Acc", "Min", "Max", *_VIDEO_MERGE):
        raise ins.fail(f"video operation {video_op} is not defined")
    c, d = ins.u(3), ins.raw(0)
    shift, width = _VIDEO_MERGE.get(video_op, (0, 32))
    low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)

    def op(st: Machine, m: np.ndarray) -> None:
        value = tmp(st)
        if sat:
            value = np.clip(value, low, high)
        cv = np.asarray(c(st), U32).astype(np.int64)
        if video_op == "Acc":
            value = value + (_signed32(cv) if signed else cv)
        elif video_op in ("Min", "Max"):
            pick = np.maximum if video_op == "Max" else np.minimum
            value = pick(value, _signed32(cv) if signed else cv)
        else:
            mask = ((1 << width) - 1) << shift
            value = (cv & ~mask) | ((value << shift) & mask)
        st.write(d, _wrap(np.asarray(value, np.int64)), m)
    return op


@semantics("VMNMX")
def _vmnmx(ins: Ins) -> Op:
    """VMNMX: PTX's vmin/vmax (bit 56, MN, set takes the maximum: Ryujinx's reading) of the exact
    integers the selects make, then :func:`_video_tail`."""
    a, b = _video_sources(ins)
    pick = np.maximum if ins.mod("MN") else np.minimum
    return _video_tail(ins, lambda st: pick(a(st), b(st)), bool(ins.mod("DFORMAT")), bool(ins.mod("SAT")),
                       ins.choice("VideoOp"))


@semantics("VADD")
def _vadd(ins: Ins) -> Op:
    """VADD: PTX's vadd/vsub. AvgMode (Ryujinx's name for bits 56-57, as IADD's) negates B (a - b,
    vsub) or A (b - a), or adds one (PO, as IADD.PO); then :func:`_video_tail`."""
    a, b = _video_sources(ins)
    mode = ins.choice("AvgMode")
    sign_a, sign_b, plus = {"NoNeg": (1, 1, 0), "NegB": (1, -1, 0), "NegA": (-1, 1, 0), "PO": (1, 1, 1)}[mode]
    return _video_tail(ins, lambda st: sign_a * a(st) + sign_b * b(st) + plus, bool(ins.mod("DFORMAT")),
                       bool(ins.mod("SAT")), ins.choice("VideoOp"))


@semantics("VABSDIFF")
def _vabsdiff(ins: Ins) -> Op:
    """VABSDIFF: PTX's vabsdiff, |a - b| of the exact integers, then :func:`_video_tail`."""
    a, b = _video_sources(ins)
    return _video_tail(ins, lambda st: np.abs(a(st) - b(st)), bool(ins.mod("DFORMAT")), bool(ins.mod("SAT")),
                       ins.choice("VideoOp"))


def _s34(value: np.ndarray) -> np.ndarray:
    """int64 (or wrapped uint64) values cut to PTX's signed 34-bit video intermediate."""
    v = np.asarray(value).astype(np.uint64) & np.uint64((1 << 34) - 1)
    return np.where(v >= np.uint64(1 << 33), v.astype(np.int64) - (1 << 34), v.astype(np.int64))


def _video_shift(ins: Ins, left: bool) -> Op:
    """VSHL/VSHR: PTX's vshl/vshr. The count (B, unsigned) clamps to 32, or with MV (envydis' ``w``,
    wrap) is taken mod 32; a left shift fills with zeros, a right shift of a signed A with its sign;
    the result is PTX's signed 34-bit intermediate, then :func:`_video_tail`."""
    a, b = _video_sources(ins)
    wrap = bool(ins.mod("MV"))

    def tmp(st: Machine) -> np.ndarray:
        x, n = a(st), b(st)
        n = n & 31 if wrap else np.minimum(n, 32)
        if left:
            return _s34(x.astype(np.uint64) << n.astype(np.uint64))
        return x >> n  # int64: arithmetic for a sign-extended A, logical for a zero-extended one
    return _video_tail(ins, tmp, bool(ins.mod("DFORMAT")), bool(ins.mod("SAT")), ins.choice("VideoOp"))


@semantics("VSHL")
def _vshl(ins: Ins) -> Op:
    return _video_shift(ins, True)


@semantics("VSHR")
def _vshr(ins: Ins) -> Op:
    return _video_shift(ins, False)


@semantics("VMAD")
def _vmad(ins: Ins) -> Op:
    """VMAD: PTX's vmad. Bits 53/54 (AvgMode NegB/NegA: yuzu's src_c_neg/src_a_neg) negate C or the
    product, both is PO; the product and C are exact (C sign-extended when the result is signed:
    either select signed or a negation), a negation adds the complement plus one, VideoScale shifts
    right by 7 or 15 (the low 64 bits of that), .SAT clamps to the signed or unsigned 32-bit range."""
    if _cc_row(ins):
        raise ins.fail("the condition code of a video instruction (.CC) is not documented")
    a, b = _video_sources(ins)
    select_a, select_b = _video_selects(ins)
    c, d = ins.u(3), ins.raw(0)
    mode, scale = ins.choice("AvgMode"), ins.mod("VideoScale")
    if scale > 2:
        raise ins.fail(f"video scale {scale} is not defined (0 none, 1 SHR7, 2 SHR15)")
    shift = (0, 7, 15)[scale]
    signed = select_a[0] == "S" or select_b[0] == "S" or mode != "NoNeg"
    sat = bool(ins.mod("SAT"))

    def one(x: int, y: int, z: int) -> int:
        product, addend, lsb = x * y, (z - (1 << 32) if signed and z >= 1 << 31 else z), 0
        if mode == "PO":
            lsb = 1
        elif mode == "NegA":
            product, lsb = ~product, 1
        elif mode == "NegB":
            addend, lsb = ~addend, 1
        total = product + addend + lsb
        if shift:
            total = (total >> shift) & ((1 << 64) - 1)
            if signed and total >= 1 << 63:
                total -= 1 << 64
        if sat:
            total = min(max(total, -(1 << 31) if signed else 0), (1 << 31) - 1 if signed else (1 << 32) - 1)
        return total & 0xFFFFFFFF

    def op(st: Machine, m: np.ndarray) -> None:
        xs, ys = a(st), b(st)
        zs = np.broadcast_to(np.asarray(c(st), U32), (st.n,))
        value = np.array([one(int(x), int(y), int(z)) for x, y, z in zip(xs, ys, zs)], np.int64)
        st.write(d, _wrap(value), m)
    return op


def _video_compare(ins: Ins, first: int) -> Callable[[Machine], np.ndarray]:
    """PTX's vset comparison: the exact integers of A and B (operands ``first`` and the next, per
    their selects) by IComp."""
    a, b = _video_sources(ins, first)
    test = _COMPARE[ins.choice("IComp")]
    return lambda st: np.broadcast_to(test(a(st), b(st)), (st.n,))


@semantics("VSET")
def _vset(ins: Ins) -> Op:
    """VSET: PTX's vset, 1 when the comparison holds else 0, then :func:`_video_tail` (no saturation;
    C and the result unsigned, as vset's result is)."""
    cmp = _video_compare(ins, 1)
    return _video_tail(ins, lambda st: cmp(st).astype(np.int64), False, False, ins.choice("VideoOp"))


@semantics("VSETP")
def _vsetp(ins: Ins) -> Op:
    """VSETP: the vset comparison into a predicate pair, combined with the predicate operand as ISETP
    (yuzu's layout; yuzu compares 32-bit values with B's sign, the same for equal signs)."""
    return _setp_tail(ins, _video_compare(ins, 2))


# -- doubles ----------------------------------------------------------------------------------------
def _dwrite(st: Machine, ins: Ins, m: np.ndarray, value: np.ndarray) -> None:
    st.write_pair(ins.raw(0), np.broadcast_to(np.asarray(value, np.float64), (st.n,)).copy().view(np.uint64), m)


@semantics("IDP")
def _idp(ins: Ins) -> Op:
    """IDP: PTX's dp4a (C plus the four byte products of A and B) or, with ISDP (bit 48), dp2a (C
    plus A's two half-words times B's bytes 0-1, or 2-3 with ISHI); SRCASIGN/SRCBSIGN sign-extend
    A's and B's parts (envydis' IDP: bit 48 ``2a``, 49 ``s8``/``s16`` A, 50 ``hi``, 47 ``s8`` B;
    ``4a`` with ``hi`` has no name there and is refused). The sum wraps to 32 bits. (envydis marks
    IDP as SM 6.x; the table decodes it, so the VM runs it.)"""
    two, hi = bool(ins.mod("ISDP")), bool(ins.mod("ISHI"))
    if hi and not two:
        raise ins.fail("ISHI (the high bytes of B) has no meaning for the four-byte dot product")
    sa, sb = bool(ins.mod("SRCASIGN")), bool(ins.mod("SRCBSIGN"))
    a, b, c, d = ins.u(1), ins.u(2), ins.u(3), ins.raw(0)
    a_parts = [(16 * i, 16) for i in range(2)] if two else [(8 * i, 8) for i in range(4)]
    b_bytes = [2 * hi + i for i in range(2)] if two else list(range(4))

    def op(st: Machine, m: np.ndarray) -> None:
        x, y = a(st), b(st)
        total = np.asarray(c(st), U32).astype(np.int64)
        for (shift, bits), byte in zip(a_parts, b_bytes):
            total = total + _extract(x, shift, bits, sa) * _extract(y, 8 * byte, 8, sb)
        st.write(d, _wrap(np.broadcast_to(total, (st.n,))), m)
    return op


@semantics("DADD")
def _dadd(ins: Ins) -> Op:
    a, b = ins.d64(1), ins.d64(2)
    return lambda st, m: _dwrite(st, ins, m, a(st) + b(st))


@semantics("DMUL")
def _dmul(ins: Ins) -> Op:
    a, b = ins.d64(1), ins.d64(2)
    return lambda st, m: _dwrite(st, ins, m, a(st) * b(st))


@semantics("DFMA")
def _dfma(ins: Ins) -> Op:
    a, b, c = ins.d64(1), ins.d64(2), ins.d64(3)
    # float64 a * b + c with two roundings (NumPy has no fused float64 multiply-add): documented
    return lambda st, m: _dwrite(st, ins, m, a(st) * b(st) + c(st))


@semantics("DMNMX")
def _dmnmx(ins: Ins) -> Op:
    a, b, p = ins.d64(1), ins.d64(2), ins.pred(3)
    return lambda st, m: _dwrite(st, ins, m, np.where(p(st), np.fmin(a(st), b(st)), np.fmax(a(st), b(st))))


@semantics("DSETP")
def _dsetp(ins: Ins) -> Op:
    a, b = ins.d64(2), ins.d64(3)
    test = _COMPARE[ins.choice("FComp")]
    return _setp_tail(ins, lambda st: np.broadcast_to(test(a(st), b(st)), (st.n,)))


@semantics("DSET")
def _dset(ins: Ins) -> Op:
    a, b = ins.d64(1), ins.d64(2)
    test = _COMPARE[ins.choice("FComp")]
    return _set_tail(ins, lambda st: np.broadcast_to(test(a(st), b(st)), (st.n,)))


# -- half precision ---------------------------------------------------------------------------------
def _halves(ins: Ins, i: int) -> Callable[[Machine], tuple[np.ndarray, np.ndarray]]:
    """Operand ``i`` as two float32 values (its H0 and H1 halves after the swizzle, abs, neg)."""
    kind = ins.kind(i)
    if kind == "H":  # two half immediates, this operand and the next
        h0 = f16_to_f32(np.array(ins.value(i)[0], U32))
        h1 = f16_to_f32(np.array(ins.value(i + 1)[0], U32))
        return lambda st: (h0, h1)
    get = ins.u(i)
    swizzle = _enum_name("HalfSwizzle", ins.flag(i, "part")) if ins.operands[i].part is not None else "F16"
    neg, absolute = ins.flag(i, "neg"), ins.flag(i, "abs")

    def read(st: Machine) -> tuple[np.ndarray, np.ndarray]:
        v = np.asarray(get(st), U32)
        if swizzle == "F32":
            x = _f(v).astype(F32)
            lo = hi = x
        else:
            lo, hi = f16_to_f32(v & U32(0xFFFF)), f16_to_f32(v >> U32(16))
            if swizzle == "H0_H0":
                hi = lo
            elif swizzle == "H1_H1":
                lo = hi
        if absolute:
            lo, hi = np.abs(lo), np.abs(hi)
        if neg:
            lo, hi = -lo, -hi
        return lo, hi
    return read


def _hwrite(st: Machine, ins: Ins, m: np.ndarray, lo: np.ndarray, hi: np.ndarray, sat: bool) -> None:
    lo = np.broadcast_to(np.asarray(lo, F32), (st.n,))
    hi = np.broadcast_to(np.asarray(hi, F32), (st.n,))
    if sat:
        lo, hi = saturate(lo), saturate(hi)
    fmt = ins.choice("OFmt") if "OFmt" in ins.mods else "F16"
    d = ins.raw(0)
    lo16, hi16 = f32_to_f16(lo), f32_to_f16(hi)
    if fmt == "F32":
        st.writef(d, lo16.astype(np.uint16).view(np.float16).astype(F32), m)
    elif fmt == "Mrg_H0":
        st.write(d, (st.reg(d) & U32(0xFFFF0000)) | lo16, m)
    elif fmt == "Mrg_H1":
        st.write(d, (st.reg(d) & U32(0xFFFF)) | (hi16 << U32(16)), m)
    else:
        st.write(d, lo16 | (hi16 << U32(16)), m)


@semantics("HADD2", "HADD2_32I")
def _hadd2(ins: Ins) -> Op:
    a = _halves(ins, 1)
    b = _halves32(ins, 2) if ins.mnemonic.endswith("_32I") else _halves(ins, 2)
    sat = bool(ins.mod("SAT"))

    def op(st: Machine, m: np.ndarray) -> None:
        (a0, a1), (b0, b1) = a(st), b(st)
        _hwrite(st, ins, m, a0 + b0, a1 + b1, sat)
    return op


def _halves32(ins: Ins, i: int) -> Callable[[Machine], tuple[np.ndarray, np.ndarray]]:
    value = ins.raw(i)
    lo, hi = f16_to_f32(np.array(value & 0xFFFF, U32)), f16_to_f32(np.array(value >> 16, U32))
    return lambda st: (lo, hi)


@semantics("HMUL2", "HMUL2_32I")
def _hmul2(ins: Ins) -> Op:
    a = _halves(ins, 1)
    b = _halves32(ins, 2) if ins.mnemonic.endswith("_32I") else _halves(ins, 2)
    sat = bool(ins.mod("SAT"))
    fmz = ins.mod("Fmz") == 2

    def op(st: Machine, m: np.ndarray) -> None:
        (a0, a1), (b0, b1) = a(st), b(st)
        _hwrite(st, ins, m, _product(a0, b0, fmz), _product(a1, b1, fmz), sat)
    return op


@semantics("HFMA2", "HFMA2_32I")
def _hfma2(ins: Ins) -> Op:
    a = _halves(ins, 1)
    if ins.mnemonic == "HFMA2_32I":
        b = _halves32(ins, 2)
        d, negc = ins.raw(0), ins.mod("NEGC")

        def c_dest(st: Machine) -> tuple[np.ndarray, np.ndarray]:
            v = st.reg(d)
            lo, hi = f16_to_f32(v & U32(0xFFFF)), f16_to_f32(v >> U32(16))
            return (-lo, -hi) if negc else (lo, hi)
        c: Callable[[Machine], tuple[np.ndarray, np.ndarray]] = c_dest
    else:
        b = _halves(ins, 2)
        c = _halves(ins, 4 if ins.kind(2) == "H" else 3)
    sat = bool(ins.mod("SAT"))
    fmz = ins.mod("Fmz") == 2

    def op(st: Machine, m: np.ndarray) -> None:
        (a0, a1), (b0, b1), (c0, c1) = a(st), b(st), c(st)
        _hwrite(st, ins, m, _product(a0, b0, fmz) + c0, _product(a1, b1, fmz) + c1, sat)
    return op


def _hcompare(ins: Ins, i: int) -> Callable[[Machine], tuple[np.ndarray, np.ndarray]]:
    a = _halves(ins, i)
    j = i + 1
    b = _halves(ins, j)
    test = _COMPARE[ins.choice("FComp")]

    def cmp(st: Machine) -> tuple[np.ndarray, np.ndarray]:
        (a0, a1), (b0, b1) = a(st), b(st)
        return np.broadcast_to(test(a0, b0), (st.n,)), np.broadcast_to(test(a1, b1), (st.n,))
    return cmp


@semantics("HSETP2")
def _hsetp2(ins: Ins) -> Op:
    cmp = _hcompare(ins, 2)
    p, q = ins.raw(0), ins.raw(1)
    c = ins.pred(len(ins.operands) - 1)
    combine = _BOOL[ins.choice("BoolOp")]
    hand = bool(ins.mod("HAND"))

    def op(st: Machine, m: np.ndarray) -> None:
        r0, r1 = cmp(st)
        cv = c(st)
        if hand:
            both = r0 & r1
            st.setp(p, combine(both, cv), m)
            st.setp(q, combine(~both, cv), m)
        else:
            st.setp(p, combine(r0, cv), m)
            st.setp(q, combine(r1, cv), m)
    return op


@semantics("HSET2")
def _hset2(ins: Ins) -> Op:
    cmp = _hcompare(ins, 1)
    c = ins.pred(len(ins.operands) - 1)
    combine = _BOOL[ins.choice("BoolOp")]
    bf, d = bool(ins.mod("BF")), ins.raw(0)
    true = U32(0x3C00 if bf else 0xFFFF)

    def op(st: Machine, m: np.ndarray) -> None:
        r0, r1 = cmp(st)
        cv = c(st)
        lo = np.where(combine(r0, cv), true, U32(0))
        hi = np.where(combine(r1, cv), true, U32(0))
        st.write(d, lo | (hi << U32(16)), m)
    return op


# -- attributes, constants, memory, system values ---------------------------------------------------
_AL_WORDS = {"_32": 1, "_64": 2, "_96": 3, "_128": 4}


def _attr_address(ins: Ins, i: int) -> Callable[[Machine], np.ndarray]:
    reg, offset = ins.raw(i, 0), ins.raw(i, 1)
    if reg == RZ:
        value = np.array(offset, np.int64)
        return lambda st: value
    return lambda st: st.reg(reg).astype(np.int64) + offset


def _attr_words(st: Machine, address: np.ndarray, m: np.ndarray, what: str) -> int | np.ndarray:
    """The attribute word index: one int when the address is the same for every lane."""
    if np.ndim(address) == 0:
        a = int(address)
        if not 0 <= a < 0x400 or a % 4:
            raise VMError(f"{what}: attribute address {a:#x} is outside a[0x0]..a[0x3fc]")
        return a // 4
    address = np.broadcast_to(np.asarray(address, np.int64), (st.n,))
    bad = m & ((address < 0) | (address >= 0x400) | (address % 4 != 0))
    if bad.any():
        raise VMError(f"{what}: attribute address {int(address[np.argmax(bad)]):#x} is outside a[0x0]..a[0x3fc]")
    return np.where(m, address // 4, 0)


def _attr_read(st: Machine, space: np.ndarray, address: np.ndarray, m: np.ndarray, what: str) -> np.ndarray:
    words = _attr_words(st, address, m, what)
    if isinstance(words, int):
        return space[words]
    return space[words, st.lane_index]


@semantics("ALD")
def _ald(ins: Ins) -> Op:
    if ins.mod("P"):
        raise ins.fail("ALD.P (per-patch attributes) is not supported")
    if ins.raw(2) != RZ:
        raise ins.fail("per-vertex input arrays (a vertex operand: geometry/tessellation inputs) are not supported")
    d, address = ins.raw(0), _attr_address(ins, 1)
    count = _AL_WORDS[ins.choice("AlSize")]
    output = bool(ins.mod("O"))

    def op(st: Machine, m: np.ndarray) -> None:
        base = address(st)
        space = st.attr_out if output else st.attr_in
        values = [_attr_read(st, space, base + 4 * k, m, "ALD") for k in range(count)]
        for k, value in enumerate(values):
            if d != RZ:
                st.write(d + k, value, m)
    return op


@semantics("AST")
def _ast(ins: Ins) -> Op:
    if ins.mod("P"):
        raise ins.fail("AST.P (per-patch attributes) is not supported")
    if ins.raw(2) != RZ:
        raise ins.fail("per-vertex output arrays (a vertex operand: tessellation control outputs) are not supported")
    address, s = _attr_address(ins, 0), ins.raw(1)
    count = _AL_WORDS[ins.choice("AlSize")]

    def op(st: Machine, m: np.ndarray) -> None:
        base = address(st)
        for k in range(count):
            words = _attr_words(st, base + 4 * k, m, "AST")
            value = st.reg(s + k if s != RZ else RZ)
            if isinstance(words, int):
                if m is st.all_lanes:
                    np.copyto(st.attr_out[words], value)
                else:
                    np.copyto(st.attr_out[words], value, where=m)
            else:
                lanes = np.nonzero(m)[0]
                st.attr_out[words[lanes], lanes] = value[lanes]
    return op


@semantics("AL2P")
def _al2p(ins: Ins) -> Op:
    d, pdst = ins.raw(0), ins.raw(1)
    address = _attr_address(ins, 2)

    def op(st: Machine, m: np.ndarray) -> None:
        st.write(d, _wrap(np.broadcast_to(address(st), (st.n,))), m)
        st.setp(pdst, False, m)
    return op


@semantics("IPA")
def _ipa(ins: Ins) -> Op:
    d, address = ins.raw(0), _attr_address(ins, 1)
    mode = ins.choice("IpaOp")
    mul = ins.u(2)
    sat = bool(ins.mod("SAT"))
    if mode not in ("Pass", "Multiply", "Constant"):
        raise ins.fail(f"IPA.{mode.upper()} is not supported")

    def op(st: Machine, m: np.ndarray) -> None:
        a = address(st)
        raw = _attr_read(st, st.attr_in, a, m, "IPA")
        x = _f(raw)
        if mode == "Constant":  # flat: the value itself
            words = _attr_words(st, a, m, "IPA")
            x = np.where(st.perspective[words], x / _f(st.attr_in[0x7C // 4]), x)
        elif mode == "Multiply":
            x = x * _f(mul(st))
        st.writef(d, saturate(x) if sat else x, m)
    return op


_LS_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "B32": 4, "B64": 8, "B128": 16, "UB128": 16}


def _narrow(v: np.ndarray, size: str, nbytes: int) -> np.ndarray:
    """A sub-word load's value (``nbytes`` < 4) as its register word: sign-extended for ``S8``/``S16``."""
    return _wrap(_extract(v, 0, 8 * nbytes, True)) if size[0] == "S" else v


@semantics("LDC")
def _ldc(ins: Ins) -> Op:
    # .IS/.ISL: the buffer is slot + Ra's high half, the address Ra's low half (Ryujinx); .IL reads
    # like the plain form
    mode = ins.choice("AddressMode") if ins.mod("AddressMode") else ""
    indexed = mode in ("Is", "Isl")
    d = ins.raw(0)
    slot, reg, offset = ins.value(1)
    size = ins.choice("LsSize2")
    nbytes = _LS_BYTES[size]

    def read(st: Machine, slots: int, base: np.ndarray) -> list[np.ndarray]:
        if nbytes < 4:
            return [_narrow(st.cbuf_words(slots, base, nbytes), size, nbytes)]
        return [st.cbuf_words(slots, base + 4 * k) for k in range(nbytes // 4)]

    def op(st: Machine, m: np.ndarray) -> None:
        ra = st.reg(reg).astype(np.int64)
        if indexed:
            chosen = slot + (ra >> 16)
            values = [np.zeros(st.n, U32) for _ in range(max(1, nbytes // 4))]
            for value in np.unique(chosen[m]):
                sel = chosen == value
                for k, v in enumerate(read(st, int(value), (ra & 0xFFFF) + offset)):
                    values[k] = np.where(sel, v, values[k])
        else:
            values = read(st, slot, ra + offset)
        for k, v in enumerate(values):
            if d != RZ and d + k < RZ:
                st.write(d + k, v, m)
    return op


def _address(st: Machine, base_reg: int, offset: int, wide: bool, space: str) -> np.ndarray:
    """Byte offsets into memory ``space``: the register (pair, with .E) plus the offset, less the
    space's base address (global memory may be given at an address)."""
    if wide:
        address = st.pair(base_reg).astype(np.int64) + offset  # 40-bit addresses fit an int64
    else:
        address = st.reg(base_reg).astype(np.int64) + offset
    return address - st.bases.get(space, 0)


def _memory_op(space: str, store: bool, enum: str) -> Builder:
    def build(ins: Ins) -> Op:
        wide = bool(ins.mod("E"))  # a 64-bit address in a register pair
        if store:
            mi, ri = 0, 1
        else:
            ri, mi = 0, 1
        reg = ins.raw(ri)
        base_reg, offset = ins.value(mi)
        size = ins.choice(enum)
        nbytes = _LS_BYTES[size]
        if len(ins.operands) > 2 and ins.kind(2) == "P" and ins.raw(2) != PT:
            raise ins.fail("the predicate operand of LD/ST is not supported")

        def op(st: Machine, m: np.ndarray) -> None:
            where = space if space != "generic" else "global"
            address = _address(st, base_reg, offset, wide, where)
            if store:
                words = [st.reg(reg + k if reg != RZ else RZ) for k in range(max(1, nbytes // 4))]
                st.store(where, address, words, nbytes, m)
                return
            loaded = st.load(where, address, nbytes, m)
            if nbytes < 4:
                st.write(reg, _narrow(loaded[0], size, nbytes), m)
                return
            for k in range(nbytes // 4):
                if reg != RZ:
                    st.write(reg + k, loaded[k], m)
        return op
    return build


SEMANTICS["LD"] = _memory_op("generic", False, "LsSize")
SEMANTICS["ST"] = _memory_op("generic", True, "LsSize")
SEMANTICS["LDG"] = _memory_op("global", False, "LsSize")
SEMANTICS["STG"] = _memory_op("global", True, "LsSize2")
SEMANTICS["LDS"] = _memory_op("shared", False, "LsSize2")
SEMANTICS["STS"] = _memory_op("shared", True, "LsSize2")
SEMANTICS["LDL"] = _memory_op("local", False, "LsSize2")
SEMANTICS["STL"] = _memory_op("local", True, "LsSize2")


def _system_value(st: Machine, name: str) -> np.ndarray:
    if name in st.system:
        return np.broadcast_to(np.asarray(st.system[name]).astype(np.int64), (st.n,)).astype(np.int64)
    lane = st.lane_index % 32
    defaults: dict[str, Any] = {
        "SR_LaneId": lane, "SR_TID.X": st.lane_index, "SR_TID.Y": 0, "SR_TID.Z": 0,
        "SR_CTAID.X": 0, "SR_CTAID.Y": 0, "SR_CTAID.Z": 0, "SR_InvocationId": 0, "SR_PrimType": 0,
        "SR_YDirection": 0x3F800000, "SR_ThreadKill": 0, "SR_Clock": 0, "SR_ClockLo": 0, "SR_ClockHi": 0,
        "SR_EqMask": np.int64(1) << lane, "SR_LtMask": (np.int64(1) << lane) - 1,
        "SR_LeMask": (np.int64(1) << (lane + 1)) - 1, "SR_GtMask": 0xFFFFFFFF ^ ((np.int64(1) << (lane + 1)) - 1),
        "SR_GeMask": 0xFFFFFFFF ^ ((np.int64(1) << lane) - 1), "SR_InvocationInfo": 0x00FF0000 | 0, "SR_VirtId": 0,
    }
    if name == "SR_TID":
        x, y, z = (_system_value(st, f"SR_TID.{c}") for c in "XYZ")
        return (x & 0xFFFF) | (y & 0x3FF) << 16 | (z & 0x3F) << 26
    if name not in defaults:
        raise VMError(f"system value {name} has no default; pass it in system_values")
    return np.broadcast_to(np.asarray(defaults[name], np.int64), (st.n,))


@semantics("S2R", "CS2R")
def _s2r(ins: Ins) -> Op:
    d, name = ins.raw(0), _enum_name("SReg", ins.raw(1))
    return lambda st, m: st.write(d, _wrap(_system_value(st, name)), m)


@semantics("VOTE")
def _vote(ins: Ins) -> Op:
    if ins.suffix:
        raise ins.fail("VOTE.VTG is not supported")
    d, pdst, src = ins.raw(0), ins.raw(1), ins.pred(2)
    mode = ins.choice("VoteMode")

    def op(st: Machine, m: np.ndarray) -> None:
        value = src(st) & m
        warps = st.lane_index // 32
        ballot = np.zeros(st.n, np.int64)
        result = np.zeros(st.n, bool)
        for w in np.unique(warps[m]):
            lanes = (warps == w) & m
            bits = int(np.sum((value[lanes].astype(np.int64)) << (st.lane_index[lanes] % 32)))
            ballot[warps == w] = bits
            count, active = int(value[lanes].sum()), int(lanes.sum())
            result[warps == w] = {"All": count == active, "Any": count > 0, "Eq": count in (0, active)}[mode]
        st.write(d, _wrap(ballot), m)
        st.setp(pdst, result, m)
    return op


def _noop(ins: Ins) -> Op:
    return lambda st, m: None


for _name in ("NOP", "DEPBAR", "BAR", "MEMBAR", "CCTL", "CCTLL", "CCTLT", "IDE"):
    SEMANTICS[_name] = _noop


# -- textures ---------------------------------------------------------------------------------------
# Register layouts (which of Ra.., Rb.. hold coordinates, array index, LOD, offsets, reference) are
# those of Ryujinx's texture translation: Ra and Rb are read in sequence, a register past RZ reads 0.
_DIM_COORDS = {"_1d": 1, "Array1d": 1, "_2d": 2, "Array2d": 2, "_3d": 3, "Array3d": 3, "Cube": 3, "ArrayCube": 3}
_CUBE_FACES = 6


def _sequence(start: int) -> Callable[[], int]:
    """Successive register indices from ``start`` (RZ, which reads 0, from RZ on)."""
    state = [start]

    def take() -> int:
        index = state[0]
        state[0] = min(index + 1, RZ)
        return index
    return take


def _read_f(st: Machine, index: int) -> np.ndarray:
    return np.broadcast_to(_f(st.reg(index)), (st.n,))


def _read_i(st: Machine, index: int) -> np.ndarray:
    return np.broadcast_to(_s(st.reg(index)), (st.n,))


@dataclass
class _TexPlan:
    """Where a texture instruction's operands are: register indices (RZ reads 0), None when the
    instruction has no such operand."""

    dim: str
    coords: list[int]
    layer: int | None = None  # array index register
    lod: int | None = None
    bias: bool = False
    offset: int | None = None
    offset_bits: tuple[int, int] = (4, 4)  # (stride, width) of each packed offset component
    dref: int | None = None
    handle: int | None = None  # bindless handle register
    integer: bool = False  # TLD/TLDS: integer texel coordinates
    gather: int | None = None  # TLD4: the component gathered


def _texels(tex: Any) -> tuple[np.ndarray, bool]:
    """(texels, whether they are raw integers): uint8/uint16 are UNORM (float32), 32-bit integer
    arrays stay integers, others become float32."""
    arr = np.asarray(tex)
    if arr.dtype.kind in "iu" and arr.dtype.itemsize >= 4:
        return arr, True
    if arr.dtype == np.uint8:
        return (arr / 255.0).astype(F32), False
    if arr.dtype == np.uint16:
        return (arr / 65535.0).astype(F32), False
    return arr.astype(F32), False


def _texture_spec(st: Machine, key: int | str) -> tuple[list[Any], str, str]:
    """(mip levels, filter, wrap) of texture ``key``: an array, a list of levels, or a mapping with
    ``levels`` (or ``data``) and optional ``filter``/``wrap`` overriding the run's sampler."""
    tex = st.textures.get(key, st.textures.get("*"))
    if tex is None:
        raise VMError(f"the shader uses texture {key:#x}, which was not given" if isinstance(key, int)
                      else f"the shader uses texture {key}, which was not given")
    filter_, wrap = st.filter, st.wrap
    if isinstance(tex, Mapping):
        filter_, wrap = tex.get("filter", filter_), tex.get("wrap", wrap)
        if filter_ not in ("linear", "nearest") or wrap not in ("repeat", "clamp"):
            raise VMError(f"texture {key}: filter is linear|nearest, wrap is repeat|clamp")
        tex = tex.get("levels", tex.get("data"))
        if tex is None:
            raise VMError(f"texture {key}: a mapping needs 'levels' or 'data'")
    return (list(tex) if isinstance(tex, (list, tuple)) else [tex]), filter_, wrap


#: TexDim -> the sm4 texture dimension whose (layers, depth, height, width, 4) layout it has
_SM4_DIMENSIONS = {"_1d": "texture1d", "Array1d": "texture1darray", "_2d": "texture2d", "Array2d": "texture2darray",
                   "_3d": "texture3d", "Array3d": "texture3d", "Cube": "texturecube", "ArrayCube": "texturecubearray"}


def _sm4_texture(plan: _TexPlan, texels: np.ndarray) -> Texture:
    """One mip level as an sm4 :class:`Texture` after checking its shape against the plan's TexDim."""
    cube = plan.dim in ("Cube", "ArrayCube")
    arrayed = plan.layer is not None or cube
    spatial = 2 if cube else _DIM_COORDS[plan.dim]
    need = spatial + (1 if arrayed else 0)
    if texels.ndim == need:
        texels = texels[..., None]
    if texels.ndim != need + 1:
        raise VMError(f"a {plan.dim.strip('_')} texture needs {need} dimensions (+ channels), not shape {texels.shape}")
    if texels.shape[-1] > 4:
        raise VMError(f"a texture has {texels.shape[-1]} channels (at most 4)")
    dimension = _SM4_DIMENSIONS[plan.dim]
    if cube or not arrayed:
        return Texture.from_array(texels, dimension)
    if spatial == 3:  # an array of 3D textures: one sm4 layer per 3D texture (depth kept)
        return Texture([np.concatenate([Texture.from_array(t, "texture3d").levels[0] for t in texels])], dimension)
    return Texture.from_array(texels, dimension)


def _sample(st: Machine, plan: _TexPlan, key: int | str, m: np.ndarray) -> tuple[np.ndarray, bool]:
    """(lanes, 4) texels of ``plan`` from texture ``key``, and whether they are raw integers: one
    mip level per lane (the explicit LOD rounded, else level 0)."""
    levels, filter_, wrap = _texture_spec(st, key)
    if plan.lod is not None and not plan.bias and len(levels) > 1:
        raw = _read_i(st, plan.lod) if plan.integer else np.rint(np.nan_to_num(_read_f(st, plan.lod)))
        level = np.clip(np.asarray(raw, np.int64), 0, len(levels) - 1)
    else:
        level = np.zeros(st.n, np.int64)
    out = np.zeros((st.n, 4))
    integer = False
    for value in np.unique(level[m]) if m.any() else [0]:
        sel = level == value
        texels, integer = _texels(levels[int(value)])
        out[sel] = _sample_level(st, plan, _sm4_texture(plan, texels), filter_, wrap)[sel]
    return out, integer


def _sample_level(st: Machine, plan: _TexPlan, tex: Texture, filter_: str, wrap: str) -> np.ndarray:
    """(lanes, 4) texels of one mip level (``tex``) with sm4's addressing, filtering, gather and
    comparison; Maxwell's part is where the operands are (``plan``)."""
    cube = plan.dim in ("Cube", "ArrayCube")
    layer = np.zeros(st.n, np.int64)
    if plan.layer is not None:
        layer = np.clip(_read_i(st, plan.layer).astype(np.int64), 0, tex.layers - 1)
    offsets: Any = (0, 0, 0)
    if plan.offset is not None:
        packed = st.reg(plan.offset).astype(np.int64)
        stride, width = plan.offset_bits
        offsets = [_extract(packed.astype(U32), k * stride, width, True) for k in range(_DIM_COORDS[plan.dim])]
    if plan.integer:
        return fetch_texels(tex, 0, layer, [_read_i(st, r).astype(np.int64) for r in plan.coords], None, offsets)
    dref = _read_f(st, plan.dref) if plan.dref is not None else None
    coords = np.stack([np.nan_to_num(_read_f(st, r)) for r in plan.coords], axis=1)
    mode = CLAMP if wrap == "clamp" or cube else WRAP
    sampler = Sampler(filter="point" if filter_ == "nearest" else "linear", address=(mode, mode, mode),
                      comparison="less_equal", seamless=False)  # (cube faces clamp, as documented above)
    if cube:
        face, u, v = cube_face(coords.astype(np.float64))
        return sample_level(tex, sampler, 0, layer * _CUBE_FACES + face, np.stack([u, v], axis=1).astype(F32),
                            (0, 0, 0), dref)
    if plan.gather is not None:
        return gather_texels(tex, sampler, layer, coords, offsets, plan.gather, dref)
    return sample_level(tex, sampler, 0, layer, coords, offsets, dref)


def _texture_key(st: Machine, handle: int) -> int:
    """The texture a bindless handle names: the handle as given, else its texture id (the low 20
    bits of an NVN handle) when only that was given."""
    if handle not in st.textures and handle & 0xFFFFF in st.textures:
        return handle & 0xFFFFF
    return handle


def _handle_groups(handles: np.ndarray, m: np.ndarray,
                   key: Callable[[int], int] = int) -> Iterator[tuple[int, np.ndarray]]:
    """The lanes of ``m`` grouped by their distinct bindless handle: (the key the resource is looked
    up by, ``key(handle)``, the lanes holding that handle)."""
    for handle in np.unique(handles[m]):
        yield key(int(handle)), m & (handles == handle)


def _per_texture(st: Machine, m: np.ndarray, plan: _TexPlan, index: int) -> tuple[np.ndarray, bool]:
    """Texels from texture ``index``, or with a bindless handle register per distinct handle of the
    lanes of ``m`` (a handle is looked up as given, then by its texture id, the low 20 bits)."""
    if plan.handle is None:
        return _sample(st, plan, index, m)
    out = np.zeros((st.n, 4))
    integer = False
    for key, sel in _handle_groups(st.reg(plan.handle), m, lambda handle: _texture_key(st, handle)):
        texels, integer = _sample(st, plan, key, sel)
        out[sel] = texels[sel]
    return out, integer


def _store_texels(st: Machine, m: np.ndarray, texel: np.ndarray, integer: bool, comps: Sequence[int],
                  regs: Sequence[int], f16: bool = False) -> None:
    values = [texel[:, c] for c in comps]
    if f16:
        packed = []
        for k in range(0, len(values), 2):
            lo = f32_to_f16(values[k].astype(F32))
            hi = f32_to_f16(values[k + 1].astype(F32)) if k + 1 < len(values) else U32(0)
            packed.append(lo | (hi << U32(16)))
        for reg, value in zip(regs, packed):
            st.write(reg, value, m)
        return
    for reg, value in zip(regs, values):
        if integer:
            st.write(reg, _wrap(value.astype(np.int64)), m)
        else:
            st.writef(reg, value.astype(F32), m)


def _tex_op(plan: _TexPlan, tex: int, comps: Sequence[int], regs: Sequence[int], f16: bool = False) -> Op:
    """The op of a texture instruction: texels of ``plan`` from texture ``tex`` (or by handle),
    components ``comps`` written to ``regs``."""
    def op(st: Machine, m: np.ndarray) -> None:
        texel, integer = _per_texture(st, m, plan, tex)
        _store_texels(st, m, texel, integer, comps, regs, f16)
    return op


def _tex_dests(ins: Ins) -> tuple[list[int], list[int], int]:
    """TEX/TLD/TLD4/TXD: (components of the write mask, their consecutive destination registers,
    the texture index (-1 for the bindless ``.B`` forms))."""
    mask = ins.raw(len(ins.operands) - 1)
    comps = [c for c in range(4) if mask >> c & 1]
    regs = [ins.raw(0) + k if ins.raw(0) != RZ else RZ for k in range(len(comps))]
    return comps, regs, -1 if ins.suffix == "B" else ins.raw(4)


def _texs_destinations(ins: Ins, count: int | None = None) -> tuple[list[int], list[int], bool]:
    d0, d1 = ins.raw(0), ins.raw(1)
    f16 = ins.suffix == "F16"
    if count is None:
        names = component_mask(ins.instruction, ins.operands[5])
        if names is None:
            raise ins.fail(f"component mask {ins.raw(5)} is not defined")
        comps = ["RGBA".index(c) for c in names]
    else:
        comps = list(range(count))
    if f16:
        return comps, [d0, d1], True
    regs = [d0, d0 + 1 if d0 != RZ else RZ, d1, d1 + 1 if d1 != RZ else RZ]
    return comps, regs, False


_TEXS_LAYOUT = {  # target: (dim, coordinate sources 'a'/'b', array, lod, dref) in Ryujinx's order
    "1D_LZ": ("_1d", "a", False, False, False), "2D": ("_2d", "ab", False, False, False),
    "2D_LZ": ("_2d", "ab", False, False, False), "2D_LL": ("_2d", "aab", False, True, False),
    "2D_DC": ("_2d", "aab", False, False, True), "2D_LL_DC": ("_2d", "aabb", False, True, True),
    "2D_LZ_DC": ("_2d", "aab", False, False, True), "2D_ARRAY": ("Array2d", "", True, False, False),
    "2D_ARRAY_LZ": ("Array2d", "", True, False, False), "2D_ARRAY_LZ_DC": ("Array2d", "", True, False, True),
    "3D": ("_3d", "aab", False, False, False), "3D_LZ": ("_3d", "aab", False, False, False),
    "Cube": ("Cube", "aab", False, False, False), "Cube_LL": ("Cube", "aabb", False, True, False),
}


@semantics("TEXS")
def _texs(ins: Ins) -> Op:
    target = ins.choice("TexsTarget")
    if target not in _TEXS_LAYOUT:
        raise ins.fail(f"TEXS target {target} is not defined")
    dim, sources, arrayed, lod, dc = _TEXS_LAYOUT[target]
    ra, rb = _sequence(ins.raw(2)), _sequence(ins.raw(3))
    plan = _TexPlan(dim, [])
    if arrayed:
        plan.layer = ra()
        plan.coords = [ra(), rb()]
        if dc:
            plan.dref = rb()
    else:
        regs = [ra() if s == "a" else rb() for s in sources]
        ncoords = _DIM_COORDS[dim]
        plan.coords = regs[:ncoords]
        extra = regs[ncoords:]
        if dc:
            plan.dref = extra.pop(0)
        if lod:
            plan.lod = extra.pop(0)
    return _tex_op(plan, ins.raw(4), *_texs_destinations(ins))


_TLDS_LAYOUT = {  # target: (dim, sources, lod, offset, multisample); 2D_ARRAY_LZ is special
    "1D_LZ": ("_1d", "a", False, False, False), "1D_LL": ("_1d", "ab", True, False, False),
    "2D_LZ": ("_2d", "ab", False, False, False), "2D_LZ_AOFFI": ("_2d", "aab", False, True, False),
    "2D_LL": ("_2d", "aab", True, False, False), "2D_LZ_MS": ("_2d", "aab", False, False, True),
    "3D_LZ": ("_3d", "aab", False, False, False), "2D_LL_AOFFI": ("_2d", "aabb", True, True, False),
}


@semantics("TLDS")
def _tlds(ins: Ins) -> Op:
    target = ins.choice("TldsTarget")
    ra, rb = _sequence(ins.raw(2)), _sequence(ins.raw(3))
    if target == "2D_ARRAY_LZ":
        plan = _TexPlan("Array2d", [rb(), rb()], integer=True)
        plan.layer = ra()
    elif target in _TLDS_LAYOUT:
        dim, sources, lod, offset, ms = _TLDS_LAYOUT[target]
        if ms:
            raise ins.fail("multisample fetches are not supported")
        regs = [ra() if s == "a" else rb() for s in sources]
        ncoords = _DIM_COORDS[dim]
        plan = _TexPlan(dim, regs[:ncoords], integer=True)
        extra = regs[ncoords:]
        if lod:
            plan.lod = extra.pop(0)
        if offset:
            plan.offset = extra.pop(0)
    else:
        raise ins.fail(f"TLDS target {target} is not defined")
    return _tex_op(plan, ins.raw(4), *_texs_destinations(ins))


@semantics("TLD4S")
def _tld4s(ins: Ins) -> Op:
    ra, rb = _sequence(ins.raw(2)), _sequence(ins.raw(3))
    dc, aoffi = bool(ins.mod("DC")), bool(ins.mod("AOFFI"))
    plan = _TexPlan("_2d", [ra(), rb()] if not (dc or aoffi) else [ra(), ra()], gather=ins.mod("TexComp"))
    if aoffi:
        plan.offset, plan.offset_bits = rb(), (8, 6)
    if dc:
        plan.dref = rb()
    return _tex_op(plan, ins.raw(4), *_texs_destinations(ins, 4))


def _tex_plan(ins: Ins, integer: bool, lod_mode: str, dc: bool, offset: bool, gather: int | None = None,
              offset_bits: tuple[int, int] = (4, 4)) -> _TexPlan:
    dim = ins.choice("TexDim")
    ra, rb = _sequence(ins.raw(2)), _sequence(ins.raw(3))
    plan = _TexPlan(dim, [], integer=integer, gather=gather, offset_bits=offset_bits)
    if dim.startswith("Array"):
        plan.layer = ra()
    if ins.suffix == "B":
        plan.handle = rb()
    plan.coords = [ra() for _ in range(_DIM_COORDS[dim])]
    if lod_mode in ("Ll", "Lb", "Lba", "Lla"):
        plan.lod, plan.bias = rb(), lod_mode in ("Lb", "Lba")
    if offset:
        plan.offset = rb()
    if dc:
        plan.dref = rb()
    return plan


@semantics("TEX")
def _tex(ins: Ins) -> Op:
    lod = ins.choice("Lod") if ins.mod("Lod") else ""
    if lod not in ("", "Lz", "Ll", "Lb", "Lba", "Lla"):
        raise ins.fail(f"LOD mode {lod} is not defined")
    offset = bool(ins.mod("AOFFI") or ins.mod("AOFFIB"))
    plan = _tex_plan(ins, False, lod, bool(ins.mod("DC")), offset)
    comps, regs, tex = _tex_dests(ins)
    return _tex_op(plan, tex, comps, regs)


@semantics("TLD")
def _tld(ins: Ins) -> Op:
    if ins.mod("MS"):
        raise ins.fail("multisample fetches are not supported")
    plan = _tex_plan(ins, True, "Ll" if ins.mod("LOD") else "Lz", False, bool(ins.mod("TOFF")))
    comps, regs, tex = _tex_dests(ins)
    return _tex_op(plan, tex, comps, regs)


@semantics("TLD4")
def _tld4(ins: Ins) -> Op:
    offset_mode = ins.choice("TexOffset")
    if offset_mode == "Ptp":
        raise ins.fail("per-texel offsets (PTP) are not supported")
    plan = _tex_plan(ins, False, "", bool(ins.mod("DC")), offset_mode == "Aoffi", ins.mod("TexComp"), (8, 6))
    if plan.dim not in ("_2d", "Array2d"):
        raise ins.fail(f"TLD4 of a {plan.dim.strip('_')} texture is not supported")
    comps, regs, tex = _tex_dests(ins)
    return _tex_op(plan, tex, comps, regs)


@semantics("TXD")
def _txd(ins: Ins) -> Op:
    # explicit derivatives only choose the mip level; the VM samples level 0 without derivatives
    # (as for implicit LOD). Layout: [handle in Ra], coordinates, then a word with the array index
    # (low 16 bits) and offsets (4 bits each from bit 16); the derivatives are in Rb.
    ra = _sequence(ins.raw(2))
    dim = ins.choice("TexDim")
    plan = _TexPlan(dim, [])
    if ins.suffix == "B":
        plan.handle = ra()
    plan.coords = [ra() for _ in range(_DIM_COORDS[dim])]
    if dim.startswith("Array") or ins.mod("TOFF"):
        raise ins.fail("TXD of arrays or with offsets is not supported")
    comps, regs, tex = _tex_dests(ins)
    return _tex_op(plan, tex, comps, regs)


@semantics("TMML")
def _tmml(ins: Ins) -> Op:
    # the LOD the hardware would compute (fixed point, 8 fraction bits): 0, the level the VM samples
    # without derivatives; components z and w are 0 too
    d = ins.raw(0)
    mask = ins.raw(len(ins.operands) - 1)
    count = bin(mask).count("1")

    def op(st: Machine, m: np.ndarray) -> None:
        for k in range(count):
            if d != RZ and d + k < RZ:
                st.write(d + k, np.zeros(st.n, U32), m)
    return op


@semantics("TXQ")
def _txq(ins: Ins) -> Op:
    query = ins.choice("TexQuery")
    if query != "TexHeaderDimension":
        raise ins.fail(f"TXQ {query} is not supported (only the dimension query)")
    d, a = ins.raw(0), ins.raw(1)
    bindless = ins.suffix == "B"
    tex = -1 if bindless else ins.raw(2)
    mask = ins.raw(len(ins.operands) - 1)

    def op(st: Machine, m: np.ndarray) -> None:
        key: int | str = tex
        if bindless:  # the handle is in Ra (uniform across the lanes is assumed: the first active lane's)
            key = _texture_key(st, int(st.reg(a)[np.argmax(m)]) if m.any() else 0)
        levels = _texture_spec(st, key)[0]
        arr = np.asarray(levels[0])
        spatial = arr.shape[:-1] if arr.ndim >= 3 else arr.shape
        sizes = list(spatial[::-1]) + [1, 1]
        values = [sizes[0], sizes[1], sizes[2] if arr.ndim >= 4 else 1, len(levels)]
        k = 0
        for c in range(4):
            if mask >> c & 1:
                if d != RZ:
                    st.write(d + k, np.full(st.n, values[c], U32), m)
                k += 1
    return op


# -- geometry ---------------------------------------------------------------------------------------
@semantics("OUT")
def _out(ins: Ins) -> Op:
    kind = ins.choice("OutType") if ins.mod("OutType") else ""
    d, handle = ins.raw(0), ins.raw(1)

    def op(st: Machine, m: np.ndarray) -> None:
        h = st.reg(handle).copy()
        for lane in np.nonzero(m)[0]:
            if kind in ("Emit", "EmitThenCut"):
                st.emitted[lane].append((st.attr_out[:, lane].copy(), kind == "EmitThenCut"))
            elif kind == "Cut" and st.emitted[lane]:
                vertex, _ = st.emitted[lane][-1]
                st.emitted[lane][-1] = (vertex, True)
        st.write(d, h + U32(1 if kind in ("Emit", "EmitThenCut") else 0), m)
    return op


# -- warp shuffles and atomics ----------------------------------------------------------------------
@semantics("SHFL")
def _shfl(ins: Ins) -> Op:
    # PTX shfl rules over warps of 32 lanes: c = clamp | segment mask << 8; a lane outside the
    # segment/clamp bounds reads its own value and gets P = false
    d, pdst, a, b, c = ins.raw(0), ins.raw(1), ins.raw(2), ins.u(3), ins.u(4)
    mode = ins.choice("ShflMode")

    def op(st: Machine, m: np.ndarray) -> None:
        lane = st.lane_index % 32
        base = st.lane_index - lane
        bval = np.broadcast_to(np.asarray(b(st), U32).astype(np.int64) & 0x1F, (st.n,))
        cwide = np.broadcast_to(np.asarray(c(st), U32).astype(np.int64), (st.n,))
        clamp, segmask = cwide & 0x1F, (cwide >> 8) & 0x1F
        max_lane = (lane & segmask) | (clamp & ~segmask)
        min_lane = lane & segmask
        if mode == "Up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "Down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "Bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        source = np.where(ok, j, lane) + base
        source = np.clip(source, 0, st.n - 1)
        value = st.reg(a)[source]
        st.write(d, value, m)
        st.setp(pdst, ok, m)
    return op


def _atomic_apply(op: str, old: int, value: int, signed: bool, is_float: bool) -> int:
    if is_float:
        result = np.float32(np.array(old, U32).view(F32)) + np.float32(np.array(value, U32).view(F32))
        return int(np.array(result, F32).view(U32))
    so, sv = (old - (1 << 32) if old >> 31 else old, value - (1 << 32) if value >> 31 else value) if signed \
        else (old, value)
    table: dict[str, Callable[[], int]] = {
        "Add": lambda: old + value, "Min": lambda: min(so, sv), "Max": lambda: max(so, sv),
        "Inc": lambda: 0 if old >= value else old + 1, "Dec": lambda: value if old == 0 or old > value else old - 1,
        "And": lambda: old & value, "Or": lambda: old | value, "Xor": lambda: old ^ value, "Exch": lambda: value,
    }
    if op not in table:
        raise VMError(f"atomic operation {op} is not supported")
    return table[op]() & 0xFFFFFFFF


def _atomic(space: str, returns: bool) -> Builder:
    def build(ins: Ins) -> Op:
        wide = bool(ins.mod("E"))
        cas = ins.suffix == "CAS"
        if returns:
            d, mi, vi = ins.raw(0), 1, 2
        else:
            d, mi, vi = RZ, 0, 1
        size_enum = "AtomsSize" if "AtomsSize" in ins.mods else "AtomSize"
        size = "U32" if cas else ins.choice(size_enum)
        if size not in ("U32", "S32", "F32FtzRn"):
            raise ins.fail(f"{size} atomics are not supported (32-bit only)")
        operation = "Cas" if cas else (ins.choice("AtomOp") if "AtomOp" in ins.mods else ins.choice("RedOp"))
        if ins.kind(mi) == "M":
            base_reg, offset = ins.value(mi)  # bytes (ATOMS' field counts words)
        else:  # CAS: [Ra], compare in Rb, new value in Rb + 1
            base_reg, offset = ins.raw(mi), 0
        value_reg = ins.raw(vi)

        def op(st: Machine, m: np.ndarray) -> None:
            mem = st.memory(space)
            address = _address(st, base_reg, offset, wide, space)
            values = st.reg(value_reg)
            news = st.reg(value_reg + 1) if cas and value_reg != RZ else values
            olds = np.zeros(st.n, U32)
            for lane in np.nonzero(m)[0]:  # lanes in order, one at a time
                a = int(address[lane])
                if a < 0 or a + 4 > mem.shape[-1] or a % 4:
                    raise VMError(f"{ins.mnemonic}: address {a:#x} is outside the {mem.shape[-1]:#x}-byte {space} "
                                  "memory or unaligned")
                word = mem[a:a + 4].view(U32)
                old = int(word[0])
                if cas:
                    new = int(news[lane]) if old == int(values[lane]) else old
                else:
                    new = _atomic_apply(operation, old, int(values[lane]), size == "S32", size == "F32FtzRn")
                word[0] = new
                olds[lane] = old
            if returns:
                st.write(d, olds, m)
        return op
    return build


SEMANTICS["ATOM"] = _atomic("global", True)
SEMANTICS["ATOMS"] = _atomic("shared", True)
SEMANTICS["RED"] = _atomic("global", False)


# -- surfaces (images) -------------------------------------------------------------------------------
#: SuDim: (coordinate registers, whether a layer register follows them)
_SU_DIMS = {"_1d": (1, False), "_1dBuffer": (1, False), "_1dArray": (1, True), "_2d": (2, False),
            "_2dArray": (2, True), "_3d": (3, False)}
_SU_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "B32": 4, "B64": 8, "B128": 16}
_SU_DTYPES = (np.uint8, np.uint16, np.float16, np.float32, np.int32, np.uint32)


def _surface(st: Machine, key: int | str, spatial: int, what: str) -> np.ndarray:
    """Surface ``key`` (else ``"*"``) as a (spatial axes..., channels) view of the run's copy, whose
    stores the run returns; its dtype must be one :data:`_SU_DTYPES` names."""
    arr = st.surfaces.get(key, st.surfaces.get("*"))
    if arr is None:
        raise VMError(f"{what}: the shader uses surface {key:#x}, which was not given" if isinstance(key, int)
                      else f"{what}: surface {key!r} was not given")
    if arr.dtype not in _SU_DTYPES:
        raise VMError(f"{what}: a surface's dtype is uint8/uint16 (UNORM), float16/float32 or int32/uint32, "
                      f"not {arr.dtype}")
    if arr.ndim == spatial:
        arr = arr[..., None]
    if arr.ndim != spatial + 1 or not 1 <= arr.shape[-1] <= 4:
        raise VMError(f"{what}: a surface of this dimension needs {spatial} axes (+ up to 4 channels), "
                      f"not shape {arr.shape}")
    return arr


def _surface_plan(ins: Ins, ra_operand: int) -> tuple[int, Callable[[Machine], list[np.ndarray]]]:
    """(spatial axes: coordinates plus the layer, reader of each lane's array index per axis,
    slowest first): the coordinates are consecutive registers from Ra (operand ``ra_operand``: x,
    y, z), then the layer (Ryujinx's SULD/SUST)."""
    dim = ins.choice("SuDim")
    if dim not in _SU_DIMS:
        raise ins.fail(f"surface dimension {dim} is not defined")
    count, layered = _SU_DIMS[dim]
    take = _sequence(ins.raw(ra_operand))
    regs = [take() for _ in range(count + layered)]

    def coords(st: Machine) -> list[np.ndarray]:
        values = [_signed32(st.reg(r).astype(np.int64)) for r in regs]
        xyz, layer = values[:count], values[count:]
        return layer + xyz[::-1]  # array axes: (layer,) (z,) (y,) x
    return count + layered, coords


def _surface_keys(ins: Ins) -> Callable[[Machine, np.ndarray], list[tuple[int | str, np.ndarray]]]:
    """The surfaces the lanes of a mask use: the 13-bit index, or (``B`` forms) each distinct
    bindless handle in the register the last operand names (bits 39-46, Ryujinx's bindless Rc),
    looked up as given (unlike a texture handle, with no texture-id fallback)."""
    last = len(ins.operands) - 1
    if ins.kind(last) == "I":
        index = ins.raw(last)
        return lambda st, m: [(index, m)]
    reg = ins.raw(last)

    def keys(st: Machine, m: np.ndarray) -> list[tuple[int | str, np.ndarray]]:
        return list(_handle_groups(st.reg(reg), m))
    return keys


def _clamp_mode(ins: Ins) -> bool:
    """Whether an out-of-bounds access traps (TRAP: the VM raises VMError) rather than being ignored
    (IGN: loads return 0, stores and atomics are dropped: PTX's ``.zero`` and ``.trap``); the third
    value has no public name and is refused."""
    mode = ins.choice("Clamp")
    if mode not in ("Ign", "Trap"):
        raise ins.fail(f"surface clamp mode {ins.mod('Clamp')} has no public description (IGN and TRAP run)")
    return mode == "Trap"


def _surface_index(st: Machine, arr: np.ndarray, axes: list[np.ndarray], sel: np.ndarray, trap: bool,
                   what: str) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """(the lanes of ``sel`` whose coordinates are inside ``arr``, their index arrays); an
    out-of-bounds lane raises VMError when ``trap``."""
    inside = sel.copy()
    for axis, values in enumerate(axes):
        inside &= (values >= 0) & (values < arr.shape[axis])
    if trap and (sel & ~inside).any():
        lane = int(np.argmax(sel & ~inside))
        raise VMError(f"{what}: lane {lane}'s coordinates {[int(a[lane]) for a in axes]} are outside the "
                      f"surface's {arr.shape[:-1]} (TRAP)")
    return np.nonzero(inside)[0], tuple(values[inside] for values in axes)


#: the texels of one surface access: (the run's array, the lanes inside it, their index arrays)
_SurfaceTexels = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]


def _surface_access(ins: Ins, ra_operand: int, size: int) -> Callable[[Machine, np.ndarray],
                                                                       Iterator[_SurfaceTexels]]:
    """The surfaces a surface instruction's lanes reach, one per distinct key (:func:`_surface_keys`):
    for each, the array, the lanes of the mask inside it (out of bounds: :func:`_clamp_mode`) and
    their index arrays. ``size``: the bytes of a raw access (0: formatted), which must equal the
    texel's; with BA a raw access's x counts bytes (shifted right by log2 of the size)."""
    what, trap = ins.mnemonic, _clamp_mode(ins)
    spatial, coords = _surface_plan(ins, ra_operand)
    keys = _surface_keys(ins)
    byte_shift = size.bit_length() - 1 if size and ins.mod("BA") else 0

    def texels(st: Machine, m: np.ndarray) -> Iterator[_SurfaceTexels]:
        axes = coords(st)
        axes[-1] = axes[-1] >> byte_shift
        for key, sel in keys(st, m):
            arr = _surface(st, key, spatial, what)
            if size and arr.shape[-1] * arr.dtype.itemsize != size:
                raise VMError(f"{what}: a {size}-byte access to a surface of "
                              f"{arr.shape[-1] * arr.dtype.itemsize}-byte texels")
            yield (arr, *_surface_index(st, arr, axes, sel, trap, what))
    return texels


def _texel_words(texels: np.ndarray) -> tuple[np.ndarray, bool]:
    """((k, 4) register words of formatted texels (k, channels), whether they are raw integers):
    UNORM uint8/uint16 and float16/float32 as float32 bits, int32/uint32 as raw words; missing
    channels read (0, 0, 1), as textures pad."""
    values, integer = _texels(texels)
    out = np.zeros((texels.shape[0], 4), U32)
    out[:, 3] = 1 if integer else np.float32(1.0).view(U32)
    out[:, :texels.shape[1]] = values.astype(np.int64) & 0xFFFFFFFF if integer else values.view(U32)
    return out, integer


def _texel_from_words(dtype: np.dtype, words: np.ndarray, integer: bool) -> np.ndarray:
    """Register words to texels of ``dtype`` (the inverse of :func:`_texel_words`; ``integer`` as it
    returned): UNORM multiplies the clamped float by 255 or 65535 in float32 and rounds the product to
    the nearest integer, ties to even (``np.rint``)."""
    if integer:
        return words.astype(U32).view(dtype)
    values = words.astype(U32).view(F32)
    if dtype in (np.uint8, np.uint16):
        top = np.iinfo(dtype).max
        return np.rint(np.clip(np.nan_to_num(values), 0.0, 1.0) * top).astype(dtype)
    return values.astype(dtype)


def _surface_op(ins: Ins, load: bool) -> Op:
    """SULD/SUST and their bindless (B) and raw (D) forms. Ryujinx's SULD/SUST: the coordinates are
    consecutive registers from Ra (x, y, z, then the layer), the data consecutive registers from Rd
    (loads) or Rb (stores, the table's R0); a formatted (P) access moves one register per component
    the RGBA mask enables, a raw (D) one the texel's bytes: U8/S8/U16/S16 zero- or sign-extended,
    B64/B128 two or four words; with BA the x coordinate counts bytes (shifted right by log2 of the
    size). Out of bounds: :func:`_clamp_mode`. Stores from several lanes to one texel land lane
    after lane. SULD's second predicate (Ryujinx's DestPred2, bits 30-32) is not written: no public
    source says what it receives."""
    raw = "SuSize" in ins.mods
    if raw:
        size_name = ins.choice("SuSize")
        if size_name not in _SU_BYTES:
            raise ins.fail(f"surface size {size_name} is not supported")
        size = _SU_BYTES[size_name]
        comps = list(range(max(1, size // 4)))
    else:
        mask = ins.mod("SuRgba")
        comps = [c for c in range(4) if mask >> c & 1]
        size_name, size = "", 0
    access = _surface_access(ins, 2 if load else 0, size)
    take = _sequence(ins.raw(0) if load else ins.raw(1))
    regs = [take() for _ in comps]

    def op(st: Machine, m: np.ndarray) -> None:
        out = np.zeros((st.n, len(regs)), U32)
        words = None if load else np.stack([st.reg(r) for r in regs] or [np.zeros(st.n, U32)], axis=1)
        for arr, lanes, index in access(st, m):
            if load and raw:
                texel = np.ascontiguousarray(arr[index]).view(np.uint8).reshape(len(lanes), size)
                if size < 4:
                    word = np.pad(texel, ((0, 0), (0, 4 - size))).view("<u4")[:, 0]
                    out[lanes, 0] = _extract(word, 0, 8 * size, size_name[0] == "S") & 0xFFFFFFFF
                else:
                    out[lanes] = texel.view("<u4").reshape(len(lanes), len(comps))
            elif load:
                out[lanes] = _texel_words(arr[index])[0][:, comps]
            else:
                assert words is not None
                for k, lane in enumerate(lanes):  # lane after lane: the last lane storing to a texel wins
                    where = tuple(int(i[k]) for i in index)
                    if raw:
                        arr[where] = words[lane].astype("<u4").view(np.uint8)[:size].view(arr.dtype)
                    else:
                        texel, integer = _texel_words(arr[where][None])
                        texel[0, comps] = words[lane]
                        arr[where] = _texel_from_words(arr.dtype, texel[0, :arr.shape[-1]], integer)
        if load:
            for column, r in enumerate(regs):
                st.write(r, out[:, column], m)
    return op


@semantics("SULD", "SULDB", "SULDD", "SULDDB")
def _suld(ins: Ins) -> Op:
    return _surface_op(ins, True)


@semantics("SUST", "SUSTB", "SUSTD", "SUSTDB")
def _sust(ins: Ins) -> Op:
    return _surface_op(ins, False)


@semantics("SUATOM", "SUATOMB", "SURED", "SUREDB")
def _suatom(ins: Ins) -> Op:
    """SUATOM/SURED (and B forms): the atomic operations of ATOM on one 32-bit texel (a surface of
    4-byte texels, read as a little-endian word), lane after lane; SUATOM returns the old value in
    Rd. Coordinates, BA (x in bytes, shifted right by 2) and the clamp mode as SULD's (Ryujinx's
    SUATOM/SURED). Sizes other than U32/S32 are refused."""
    size = ins.choice("SuatomSize")
    if size not in ("U32", "S32"):
        raise ins.fail(f"{size} surface atomics are not supported (U32 and S32 run)")
    operation = ins.choice("SuatomOp") if "SuatomOp" in ins.mods else ins.choice("RedOp")
    returns = ins.mnemonic.startswith("SUATOM")
    d, value_reg = (ins.raw(0), ins.raw(2)) if returns else (RZ, ins.raw(1))
    access = _surface_access(ins, 1 if returns else 0, 4)

    def op(st: Machine, m: np.ndarray) -> None:
        values = st.reg(value_reg)
        olds = np.zeros(st.n, U32)
        for arr, lanes, index in access(st, m):
            for k, lane in enumerate(lanes):
                word = arr[tuple(int(i[k]) for i in index)].view(U32)
                old = int(word[0])
                word[0] = _atomic_apply(operation, old, int(values[lane]), size == "S32", False)
                olds[lane] = old
        if returns:
            st.write(d, olds, m)
    return op

# -- control flow (the builders get the full mask of lanes at this address) -------------------------
_FLOW = {"BRA", "SSY", "SYNC", "PBK", "BRK", "PCNT", "CONT", "CAL", "RET", "EXIT", "KIL"}
#: every instruction that may move the pc elsewhere or end lanes (the straight-line run stops at them)
_MOVES_PC = frozenset(_FLOW | {"BRX", "JMX", "JMP", "JCAL"})


def _target(ins: Ins) -> int:
    if ins.kind(0) != "T":
        raise ins.fail("a constant-buffer branch target is not supported")
    target = branch_target(ins.instruction, ins.address)
    assert target is not None
    return _skip_control(target)


def _taken(ins: Ins) -> Callable[[Machine, np.ndarray], np.ndarray]:
    """The lanes of a mask that take a branch: those whose condition code passes the instruction's
    test (``Ccc``; none: always)."""
    test = ins.choice("Ccc") if "Ccc" in ins.mods else "T"
    if test == "T":
        return lambda st, m: m
    return lambda st, m: m & st.condition(test)


def _flow_builder(ins: Ins) -> Op:
    name = ins.mnemonic
    taken = _taken(ins)

    if name == "BRA":
        target = _target(ins)

        def bra(st: Machine, m: np.ndarray) -> None:
            st.pc[taken(st, m)] = target
        return bra
    if name in ("SSY", "PBK", "PCNT", "CAL"):
        target = _target(ins)
        kind = {"SSY": SSY, "PBK": PBK, "PCNT": PCNT, "CAL": CAL}[name]
        after = _next(ins.address)

        def push(st: Machine, m: np.ndarray) -> None:
            st.push(m, kind, after if kind == CAL else target)
            if kind == CAL:
                st.pc[m] = target
        return push
    if name in ("SYNC", "BRK", "CONT", "RET"):
        kind = {"SYNC": SSY, "BRK": PBK, "CONT": PCNT, "RET": CAL}[name]

        def pop(st: Machine, m: np.ndarray) -> None:
            st.pop_to(taken(st, m), kind, name)
        return pop

    def stop(st: Machine, m: np.ndarray) -> None:
        lanes = taken(st, m)
        st.live[lanes] = False
        if name == "KIL":
            st.killed[lanes] = True
    return stop


for _name in _FLOW:
    SEMANTICS[_name] = _flow_builder


@semantics("JMP", "JCAL")
def _absolute_branch(ins: Ins) -> Op:
    """JMP and JCAL: BRA and CAL to an absolute code address, the 32-bit immediate at bit 20
    (nouveau's gm107 emitter writes ``binPos`` there for its absolute JMP/JCAL; envydis: ``jmp u32``,
    ``jcal u32``), taken relative to ``MaxwellShader.code_address`` as JMX's. JCAL pushes the
    return address as CAL does. The ``c[][]`` forms are refused."""
    if ins.kind(len(ins.operands) - 1) != "I":
        raise ins.fail("a constant-buffer branch target is not supported")
    address = ins.value(len(ins.operands) - 1)[0]
    call = ins.mnemonic == "JCAL"
    taken = _taken(ins)
    after = _next(ins.address)

    def op(st: Machine, m: np.ndarray) -> None:
        lanes = taken(st, m)
        target = (address - st.code_address) & 0xFFFFFFFF
        if call:
            st.push(lanes, CAL, after)
        st.pc[lanes] = _skip_control(target)
    return op


@semantics("BRX", "JMX")
def _indirect_branch(ins: Ins) -> Op:
    """BRX: a branch to register + signed 24-bit immediate, relative to the next instruction
    (nouveau's gm107 emitter writes BRX's immediate as ``target - (address + 8)`` like BRA's, with
    the register at bit 8; envydis: ``brx $r8 s24``). JMX: register + 32-bit immediate, an absolute
    code address (envydis: ``jmx $r8 s32``; nouveau emits it for absolute indirect jumps), taken
    relative to ``MaxwellShader.code_address`` (0: the program starts its code region). Each lane
    jumps to its own target (the VM's per-lane program counters); a target on a bundle's control
    word runs the bundle's first instruction; the condition test is BRA's. The ``c[][]`` forms
    (a target read from a constant buffer) are refused."""
    if ins.kind(0) != "R":
        raise ins.fail("a constant-buffer branch target is not supported")
    reg = ins.raw(0)
    imm = ins.value(1)[0]
    relative = ins.mnemonic == "BRX"
    base = ins.address + 8 + imm if relative else imm
    taken = _taken(ins)

    def op(st: Machine, m: np.ndarray) -> None:
        lanes = taken(st, m)
        target = (st.reg(reg).astype(np.int64) + base) & 0xFFFFFFFF
        if not relative:
            target = (target - st.code_address) & 0xFFFFFFFF
        st.pc[lanes] = np.broadcast_to(_skip_control(target), (st.n,))[lanes]
    return op

unsupported("LEPC (which address it loads is not described publicly)", "LEPC")
unsupported("return-stack and long-jump entries (envytools documents no stack behaviour: its preret section is "
            "'todo: write me')", "PLONGJMP", "LONGJMP", "PRET", "PEXIT")
unsupported("call-stack and local-memory window registers (hardware context state the VM does not model)",
            "SETCRSPTR", "GETCRSPTR", "SETLMEMBASE", "GETLMEMBASE")
unsupported("surface compare-and-swap and SUATOMB2 (their predicate operands are not described publicly)",
            "SUATOMB2", "SUATOMCAS", "SUATOMCASB")
unsupported("VABSDIFF4 (four-byte SIMD absolute differences: the Maxwell lane-mask and byte-select encodings "
            "have no public description)", "VABSDIFF4")
unsupported("IMADSP (multiply-add with sub-word selects: envydis names the selects, but no public source "
            "describes the operation)", "IMADSP")
unsupported("TXA (a texture LOD query with no public description of its result)", "TXA")
unsupported("barrier, trap, tessellation and context-switch machinery", "B2R", "R2B", "BPT", "RAM", "SAM", "RTT",
            "STP", "ISBERD", "PIXLD")


# -- the shader -------------------------------------------------------------------------------------
class _Step:
    """One compiled instruction: its body, its predicate guard (None: always), the address of the
    next instruction, and whether it is control flow (the only kind that moves the pc elsewhere or
    ends lanes)."""

    __slots__ = ("body", "guard", "after", "flow")

    def __init__(self, body: Op, guard: Callable[[Machine], np.ndarray] | None, after: int, flow: bool) -> None:
        self.body, self.guard, self.after, self.flow = body, guard, after, flow


_Address = TypeVar("_Address", int, np.ndarray)


def _skip_control(address: _Address) -> _Address:
    """The instruction that runs at ``address`` (an int or an array of them): a bundle's control
    word runs the bundle's first instruction."""
    return address + 8 * (address % BUNDLE_BYTES == 0)


def _next(address: int) -> int:
    return _skip_control(address + 8)


@dataclass
class RunResult:
    """Outputs of one run.

    ``registers``: (lanes, 256) uint32 at the end (R0.. of a pixel shader hold its outputs);
    ``predicates``: (lanes, 8) bool; ``attributes``: (lanes, 256) uint32 output attribute space
    (a[0x000]..a[0x3fc]; vertex outputs); ``colors``: render target -> (lanes, 4) float32 (pixel
    shaders, components the SPH does not enable are NaN); ``depth``: (lanes,) float32 or None;
    ``killed``: (lanes,) bool (KIL); ``steps``: instructions each lane ran; ``emitted``: per lane
    the (attributes, cut) pairs of a geometry shader's OUT.EMIT; ``surfaces``: the surfaces as the
    run left them (copies of those given, with the stores applied)."""

    registers: np.ndarray
    predicates: np.ndarray
    attributes: np.ndarray
    steps: np.ndarray
    killed: np.ndarray
    colors: dict[int, np.ndarray] = field(default_factory=dict)
    depth: np.ndarray | None = None
    emitted: Sequence[list[tuple[np.ndarray, bool]]] = field(default_factory=list)
    surfaces: dict[int | str, np.ndarray] = field(default_factory=dict)

    def f32(self, register: int) -> np.ndarray:
        """Register ``register`` of every lane as float32."""
        return self.registers[:, register].view(F32)

    def attribute(self, key: int | str, count: int = 4) -> np.ndarray:
        """(lanes, count) float32 output attribute: a generic index, ``position``, ``a[0x..]``..."""
        word = attribute_address(key) // 4
        return np.ascontiguousarray(self.attributes[:, word:word + count]).view(F32)

    @property
    def position(self) -> np.ndarray:
        """(lanes, 4) float32: a[0x70..0x7c]."""
        return self.attribute("position")


@dataclass
class MaxwellShader:
    """One Maxwell program: its code (from the first instruction's bundle, SPH stripped), the SPH,
    the stage, and optionally constant buffer 1's data (DKSH modules carry it). A compute
    program's lanes are the threads of one block: SR_TID.X/Y/Z count through ``block_dims``."""

    code: bytes
    sph: Any = None
    stage: str = "vertex"
    constbuf1: bytes = b""
    #: compute programs: the thread-block size (x, y, z) and shared memory bytes, when the file says
    block_dims: tuple[int, int, int] | None = None
    shared_memory: int = 0
    max_steps: int = DEFAULT_MAX_STEPS
    #: the program's address in its code region: JMX's absolute targets are region addresses
    code_address: int = 0
    _words: list[int] = field(default_factory=list, repr=False)
    _ops: dict[int, _Step] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._words = words_of(self.code)

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def from_nvn(cls, data: bytes, stage: str | None = None) -> MaxwellShader:
        """A stage's NVN data blob (0x30-byte header, SPH, code; compute: header and code)."""
        from shaderkit.formats.bnsh.nvn import NvnCode

        nvn = NvnCode.from_bytes(data)
        if nvn.sph is None:
            return cls(nvn.code, None, stage or "compute")
        return cls(nvn.code, nvn.sph, stage or _sph_stage(nvn.sph))

    @classmethod
    def from_bnsh(cls, model: Any, variation: int = 0, stage: str = "vertex") -> MaxwellShader:
        """The binary program's ``stage`` of BNSH ``model``'s variation ``variation``."""
        from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
        from shaderkit.formats.bnsh.nvn import NvnCode, control_program_offset

        if not 0 <= variation < len(model.variations):
            raise VMError(f"variation {variation} is not 0..{len(model.variations) - 1}")
        if stage not in STAGES:
            raise VMError(f"stage {stage!r} is not one of {', '.join(STAGES)}")
        program = model.variations[variation].binary_program
        code = None if program is None else program.stage(stage)
        if not isinstance(code, NvnShaderCode):
            raise VMError(f"variation {variation} has no binary {stage} stage")
        nvn = NvnCode.from_bytes(code.data, program_offset=control_program_offset(code.control))
        shader = cls(nvn.code, nvn.sph, stage)
        if stage == "compute":
            sizes = [getattr(program.compiler_reflection, "compute_work_group_size", (0, 0, 0))]
            if program.reflection is not None and program.reflection.stages[STAGES.index(stage)] is not None:
                sizes.insert(0, program.reflection.stages[STAGES.index(stage)].compute_work_group_size)
            dims = next((tuple(size) for size in sizes if all(size)), None)
            shader.block_dims = dims
        return shader

    @classmethod
    def from_nvn_program(cls, model: Any, part: int) -> MaxwellShader:
        """Part ``part`` (a code part) of a raw NVN program blob."""
        if not 0 <= part < len(model.parts):
            raise VMError(f"part {part} is not 0..{len(model.parts) - 1}")
        return cls.from_nvn(model.parts[part])

    @classmethod
    def from_dksh(cls, model: Any, program: int = 0) -> MaxwellShader:
        """Program ``program`` of a deko3d DKSH module (its constbuf1 becomes c[1])."""
        if not 0 <= program < len(model.programs):
            raise VMError(f"program {program} is not 0..{len(model.programs) - 1}")
        from shaderkit.formats.dksh.model import BNSH_STAGE_OF

        prog = model.programs[program]
        stage = BNSH_STAGE_OF.get(prog.stage, prog.stage)
        shader = cls(prog.code, prog.sph, stage, prog.constbuf1)
        params = prog.header.params
        if stage == "compute" and hasattr(params, "block_dims") and all(params.block_dims):
            shader.block_dims = (params.block_dims[0], params.block_dims[1], params.block_dims[2])
            shader.shared_memory = params.shared_mem_sz
        return shader

    @classmethod
    def programs(cls, model: Any) -> list[tuple[str, MaxwellShader]]:
        """(title, shader) for every Maxwell program in a BNSH, raw NVN blob or DKSH model, in the
        order and under the titles of ``disasm``'s listing (``variation 0 binary vertex``, ``part 2``,
        ``program 1 fragment``)."""
        from shaderkit.formats.bnsh.bnsh import Bnsh
        from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
        from shaderkit.formats.bnsh.nvn import NvnProgramFile, is_code
        from shaderkit.formats.dksh.dksh import Dksh

        out: list[tuple[str, MaxwellShader]] = []
        if isinstance(model, Bnsh):
            for v, variation in enumerate(model.variations):
                program = variation.binary_program
                if program is None:
                    continue
                for stage, code in zip(STAGES, program.stages):
                    if isinstance(code, NvnShaderCode):
                        out.append((f"variation {v} binary {stage}", cls.from_bnsh(model, v, stage)))
        elif isinstance(model, NvnProgramFile):
            for index, part in enumerate(model.parts):
                if is_code(part):
                    out.append((f"part {index}", cls.from_nvn(part)))
        elif isinstance(model, Dksh):
            for index in range(len(model.programs)):
                out.append((model.program_title(index), cls.from_dksh(model, index)))
        else:
            raise VMError(f"{type(model).__name__} holds no Maxwell code (BNSH, NVN program blobs and DKSH do)")
        return out

    # -- compiling -------------------------------------------------------------------------------
    def _op(self, address: int) -> _Step:
        """The instruction at ``address``, decoded and compiled once per shader."""
        index = address // 8
        if address % 8 or address % BUNDLE_BYTES == 0 or not 0 <= index < len(self._words):
            raise VMError(f"execution reached {address:#x}, outside the {len(self.code):#x}-byte code")
        instruction = decode(self._words[index])
        if instruction is None:
            raise VMError(f"no instruction decodes at {address:#x} ({self._words[index]:#018x})")
        ins = Ins(instruction, address)
        key = _key(ins)
        if key in UNSUPPORTED or ins.mnemonic in UNSUPPORTED:
            raise VMError(f"{ins.mnemonic} at {address:#x} is not supported: "
                          f"{UNSUPPORTED.get(key) or UNSUPPORTED[ins.mnemonic]}")
        builder = SEMANTICS.get(key)
        if builder is None:
            raise VMError(f"{ins.mnemonic} at {address:#x} is not supported")
        try:
            body = builder(ins)
        except KeyError as exc:  # a field value the table leaves unnamed (ENUM_<n>): no rule to run
            raise ins.fail(f"field value {exc.args[0]} has no defined meaning") from None
        step = _Step(body, self._guard(ins), _next(address), ins.mnemonic in _MOVES_PC)
        self._ops[address] = step
        return step

    @staticmethod
    def _guard(ins: Ins) -> Callable[[Machine], np.ndarray] | None:
        if ins.enc.guard is None:
            return None
        index, negate = ins.values[ins.enc.guard[0]], ins.values[ins.enc.guard[1]]
        if index == PT and not negate:
            return None
        if negate:
            return lambda st: ~st.p[index]
        return lambda st: st.p[index]

    # -- running ---------------------------------------------------------------------------------
    def run(self, inputs: Any = None, constant_buffers: Mapping[int, Any] | None = None,
            textures: Mapping[int | str, Any] | None = None, lanes: int | None = None,
            system_values: Mapping[str, Any] | None = None, memory: Mapping[str, Any] | None = None,
            sampler: str = "linear", wrap: str = "repeat", max_steps: int | None = None,
            surfaces: Mapping[int | str, Any] | None = None) -> RunResult:
        """Run the program on ``lanes`` lanes (default: the inputs' count, else 32).

        ``inputs``: {attribute: values} where attribute is a generic index (0..31), ``attrN``,
        ``position``, ``vertex_id``... or ``a[0x..]``, and values a (lanes, k) or (lanes,) array
        (float arrays stored as float32 bits, integer arrays as raw words), or a (lanes, k, 4)
        array for generic attributes 0..k-1. Pixel shaders read them as the interpolated values.
        ``constant_buffers``: {slot: bytes or array} (arrays are stored as their float32/uint32
        bytes). ``textures``: {texture index or bindless handle: array, list of mip levels, or
        ``{"levels": ..., "filter": "nearest", "wrap": "clamp"}``; ``"*"``: any other texture}. ``memory``:
        {"global"|"shared": bytes-like, "local": bytes-like per lane or size}; a value may be
        ``(base address, contents)`` (e.g. global memory at the GPU address its pointers hold).
        ``surfaces``: {surface index or bindless handle (``"*"``: any other): array} for SULD/SUST/
        SUATOM/SURED, shaped as textures are (1D (w[, c]), 1D array (layers, w[, c]), 2D (h, w[, c]),
        2D array (layers, h, w[, c]), 3D (d, h, w[, c])); uint8/uint16 are UNORM, float16/float32
        floats, int32/uint32 raw words; the result's ``surfaces`` hold the stores."""
        limit = self.max_steps if max_steps is None else max_steps
        arrays = _normalize_inputs(inputs)
        block = self.block_dims
        default = block[0] * block[1] * block[2] if block else 32
        count = lanes if lanes is not None else (len(next(iter(arrays.values()))) if arrays else default)
        if count < 1:
            raise VMError("lanes must be at least 1")
        st = Machine(count)
        st.code_address = self.code_address
        st.filter, st.wrap = sampler, wrap
        if sampler not in ("linear", "nearest") or wrap not in ("repeat", "clamp"):
            raise VMError("sampler is linear|nearest, wrap is repeat|clamp")
        self._load_inputs(st, arrays)
        buffers = dict(constant_buffers or {})
        if self.constbuf1 and 1 not in buffers:
            buffers[1] = self.constbuf1
        for slot, data in buffers.items():
            st.cbufs[int(slot)] = _as_bytes(data)
        st.textures = dict(textures or {})
        st.surfaces = {key: np.array(value, copy=True) for key, value in (surfaces or {}).items()}
        st.system = {k: np.asarray(v) for k, v in (system_values or {}).items()}
        if block:  # thread ids through the block (lanes past one block continue in the next CTA)
            index = np.arange(count)
            per_block = block[0] * block[1] * block[2]
            ids = {"SR_TID.X": index % block[0], "SR_TID.Y": index // block[0] % block[1],
                   "SR_TID.Z": index // (block[0] * block[1]) % block[2], "SR_CTAID.X": index // per_block}
            for name, values in ids.items():
                st.system.setdefault(name, values)
        for space, data in (memory or {}).items():
            if space not in ("global", "shared", "local"):
                raise VMError(f"memory space {space!r} is not global, shared or local")
            if isinstance(data, tuple):  # (address of the first byte, contents)
                if len(data) != 2 or not isinstance(data[0], int):
                    raise VMError(f"memory {space!r}: a tuple is (base address, contents)")
                st.bases[space], data = data
            if space == "local":
                size = int(data) if isinstance(data, int) else len(_as_bytes(data))
                mem = np.zeros((count, size), np.uint8)
                if not isinstance(data, int):
                    mem[:] = _as_bytes(data)
                st.memories[space] = mem
            else:
                st.memories[space] = _as_bytes(data).copy()
        if "shared" not in st.memories and self.shared_memory:
            st.memories["shared"] = np.zeros(self.shared_memory, np.uint8)
        if "local" not in st.memories and self.sph is not None:
            size = self.sph.shader_local_memory_low_size | self.sph.shader_local_memory_high_size << 24
            if size:
                st.memories["local"] = np.zeros((count, min(size, 1 << 20)), np.uint8)
        st.pc[:] = 8  # the first instruction follows the first control word
        steps = np.zeros(count, np.int64)
        ops = self._ops
        with np.errstate(all="ignore"):
            while True:
                alive = st.live
                if not alive.any():
                    break
                pc = int(st.pc[alive].min())
                mask = alive & (st.pc == pc)
                if mask.all():
                    mask = st.all_lanes  # lets writes skip their lane mask
                steps[mask] += 1
                ran = int(steps[mask].max())  # the most instructions a lane of mask has run
                # all live lanes at one pc: until a control-flow instruction, nothing changes the pc
                # or the live lanes but the step to the next instruction, so the lanes run on
                # without being scheduled again (pc and steps are brought up to date at the end)
                together = mask is st.all_lanes or np.array_equal(mask, alive)
                extra = 0  # instructions run together after the first
                while True:
                    if ran + extra > limit:
                        raise VMError(f"a lane ran more than {limit} instructions (pc {pc:#x}; a runaway "
                                      "loop? raise max_steps if this is expected)")
                    step = ops.get(pc) or self._op(pc)
                    guard = step.guard
                    m = mask if guard is None else mask & guard(st)
                    if step.flow or not together:
                        st.pc[mask] = step.after
                        if step.flow or m.any():
                            step.body(st, m)
                        break
                    if guard is None or m.any():
                        step.body(st, m)
                    pc = step.after
                    extra += 1
                if extra:
                    steps[mask] += extra
        return self._result(st, steps)

    def _load_inputs(self, st: Machine, arrays: dict[int, np.ndarray]) -> None:
        st.attr_in[0x7C // 4] = np.float32(1.0).view(U32)  # position w
        st.attr_in[0x2FC // 4] = np.arange(st.n, dtype=U32)  # vertex id
        for address, values in arrays.items():
            if values.shape[0] != st.n:
                raise VMError(f"input a[{address:#x}] has {values.shape[0]} rows for {st.n} lanes")
            words = values.reshape(st.n, -1)
            if address // 4 + words.shape[1] > ATTRIBUTE_WORDS:
                raise VMError(f"input a[{address:#x}] runs past a[0x3fc]")
            st.attr_in[address // 4:address // 4 + words.shape[1]] = words.T
        if self.stage == "pixel" and self.sph is not None:
            self._perspective(st)

    def _perspective(self, st: Machine) -> None:
        from shaderkit.formats.bnsh.nvn import PsMaps

        maps = self.sph.maps
        if not isinstance(maps, PsMaps):
            return
        w = _f(st.attr_in[0x7C // 4]).copy()
        for attr, byte in enumerate(maps.imap_generic_vector):
            for comp in range(4):
                if (byte >> (2 * comp)) & 3 == 2:  # perspective
                    word = (0x80 + 16 * attr) // 4 + comp
                    st.perspective[word] = True
                    st.attr_in[word] = _u(_f(st.attr_in[word]) * w)

    def _result(self, st: Machine, steps: np.ndarray) -> RunResult:
        result = RunResult(st.r.T, st.p.T, st.attr_out.T, steps, st.killed,
                           emitted=st.emitted, surfaces=st.surfaces)
        if self.stage == "pixel" and self.sph is not None:
            from shaderkit.formats.bnsh.nvn import PsMaps

            maps = self.sph.maps
            if isinstance(maps, PsMaps):
                reg = 0
                for target in range(8):
                    nibble = (maps.omap_target >> (4 * target)) & 0xF
                    if not nibble:
                        continue
                    color = np.full((st.n, 4), np.nan, F32)
                    for comp in range(4):
                        if nibble >> comp & 1:
                            color[:, comp] = _f(st.r[reg])
                            reg += 1
                    result.colors[target] = color
                if maps.omap_depth:
                    result.depth = _f(st.r[reg + 1]).copy()
        return result


def _sph_stage(sph: Any) -> str:
    return {"vertex_a": "vertex", "vertex": "vertex", "tessellation_init": "hull", "tessellation": "domain",
            "geometry": "geometry", "pixel": "pixel"}.get(sph.shader_type_name, "vertex")


def _as_bytes(data: Any) -> np.ndarray:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(data), np.uint8).copy()
    arr = np.asarray(data)
    if arr.dtype.kind == "f":
        arr = arr.astype(F32)
    elif arr.dtype.kind in "iub" and arr.dtype.itemsize != 1:
        arr = arr.astype(np.int64).astype(U32) if arr.dtype.kind != "u" else arr.astype(U32)
    return np.ascontiguousarray(arr).view(np.uint8).reshape(-1).copy()


def _normalize_inputs(inputs: Any) -> dict[int, np.ndarray]:
    """{attribute byte address: (lanes, k) uint32 words}."""
    if inputs is None:
        return {}
    out: dict[int, np.ndarray] = {}
    if not isinstance(inputs, Mapping):
        arr = np.asarray(inputs)
        if arr.ndim != 3:
            raise VMError("inputs must be a mapping or a (lanes, attributes, 4) array")
        return {0x80 + 16 * i: _words(arr[:, i, :]) for i in range(arr.shape[1])}
    for key, values in inputs.items():
        address = attribute_address(key)
        out[address] = _words(values)
    return out


def _words(values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise VMError(f"an input must be (lanes,) or (lanes, k), not {arr.shape}")
    if arr.dtype.kind == "f" or arr.dtype == object:
        return arr.astype(F32).view(U32)
    if arr.dtype.kind == "b":
        return arr.astype(U32)
    return (arr.astype(np.int64) & 0xFFFFFFFF).astype(U32)

"""Run Direct3D 9 shaders (``vs_1_1``..``vs_3_0``, ``ps_1_0``..``ps_3_0``) on the CPU with NumPy.

>>> vs = D3D9Shader.from_bytes(data)                     # a bare token stream (or a parsed model)
>>> vs.set("WorldViewProj", matrix)                       # by CTAB name (or "c4", "i0", "b1")
>>> out = vs.run(POSITION=positions)                      # or {"v0": ...}; lanes=n without inputs
>>> out["POSITION0"], out["oPos"], out["TEXCOORD1"]       # by semantic and by register

One lane is one vertex or one pixel; every register is a float32 array (lanes, 4). Pixel shaders
run in 2x2 quads (lanes 4k..4k+3: top-left, top-right, bottom-left, bottom-right), which is what
``dsx``/``dsy`` (coarse: the quad's right minus left / bottom minus top neighbour of its top-left
lane, the same for all four lanes) and the implicit level of detail of ``texld``/``tex`` and the
ps_1_x texture operations read. ``run(quads=False)`` (the default) takes every pixel on its own
(derivatives 0, keeping NaN for an infinite or NaN value; the implicit LOD is that of the most
detailed mip level); ``quads=True`` takes the lanes in quad order. ``vPos`` is the pixel's
integer position (D3D9 has no half-pixel offset: lane 4k+i of
quad k at (2k + i % 2, i // 2); without quads pixel j at (j, 0)), ``vFace`` 1 (front) unless
given.

Divergent flow control runs with per-lane masks: ``if``/``if_comp``/``if pred``, ``else``;
``rep`` and ``loop`` repeat for the integer constant's count (x, *clamped to 0..255, the
reference's range; the same for every lane; ``loop`` sets ``aL`` from i.y and steps it by
i.z); ``break``/``break_comp``/``breakp`` take lanes out of
the innermost loop; ``call``/``callnz`` (bool constant, or predicate per lane) run a ``label``'s
subroutine and ``ret`` returns (in the main program it ends the lane); a subroutine sees the
``aL`` of the loop it was called from. Nesting deeper than the profile allows (calls: 1 in
vs_2_0, 4 otherwise; loops: 4) or more than ``max_steps`` instructions raise :class:`VMError`.

Numeric rules (the D3D9 asm reference's pseudo-code, with the choices it leaves open marked *):

* float32 IEEE arithmetic. *0 * inf is NaN and NaN propagates (what IEEE GPUs do); pass
  ``legacy_float=True`` to ``run`` for the "0 times anything is 0" rule of ``mul``/``mad``/dot
  products/``lrp``/matrix ops/``crs``/``dst`` that D3D9-era hardware showed and DXVK emulates
  (its ``d3d9.floatEmulation`` option).
* ``rcp``: 1/x with rcp(1) = 1, rcp(+0) = +inf and *rcp(-0) = -inf (the reference's pseudo-code
  gives +inf for both; vkd3d's HLSL tests, written against Windows drivers, expect -inf, as IEEE
  hardware gives); ``rsq``: 1/sqrt(|x|) with rsq(+-0) = +inf;
  ``log``/``logp``: log2(|x|) with log(0) = -FLT_MAX (the reference's value, not -inf);
  ``exp``/``expp``: 2**x (``expp`` in vs_1_1: (2**floor(x), x - floor(x), 2**x, 1)); *``expp`` and
  ``logp`` are computed at full precision (the reference promises at least 10 bits).
  Scalar sources take their replicate swizzle's component; *with another swizzle rcp/rsq take
  the swizzled w (vs_1_1's default component) and exp/log/expp/logp/pow/sincos the swizzled x,
  as Wine reads them.
* ``min``/``max``: *``a < b ? a : b`` / ``a >= b ? a : b``: with a NaN in either operand the
  comparison fails and the result is b; ``slt``/``sge``/``cmp``/``cnd`` compare as IEEE (NaN
  compares false).
* ``lit``: the reference's clamp of the power to +-127.9961 and y, z only for src.x > 0 (z only
  for src.y > 0 too); ``dst``: (1, a.y*b.y, a.z, b.w); ``frc``: x - floor(x); ``sgn``: -1, 0, 1;
  ``nrm``: x / |x.xyz| for all four components, the 0 vector giving 0 (*); ``pow``:
  exp2(b * log2|a|), 1 when b is 0 (C's pow(0, 0) = 1; Wine's rule); ``crs`` writes only x, y, z; ``sincos``:
  x = cos, y = sin of the replicate component, only the written components (SM2's two constant
  sources are accepted and ignored: the values are exact, not the Taylor series they feed);
  ``m4x4``..``m3x2``: one dp4/dp3 per row with consecutive registers of the second source;
  ``lrp``: s2 + s0 * (s1 - s2); ``dp2add``: a.x*b.x + a.y*b.y + c.(replicate).
* ``_sat`` clamps to [0, 1] with NaN giving 0 (*); ps_1_x result shifts (_x2.._d8) apply before
  it; ``_pp``/``_centroid`` change nothing. Source modifiers: neg, bias (x - 0.5), bx2
  (2x - 1), comp (1 - x), x2, abs, not; ``_dz``/``_dw`` divide x and y by z / w (ps_1_4 texld,
  texcrd). *Values are never clamped to a ps_1_x register range (MaxPixelShaderValue depends on
  the card); constants are not clamped to [-1, 1] either.
* ``mova`` rounds to nearest, halves away from zero (*the tie rule Wine uses); vs_1_1's ``mov
  a0.x`` takes the floor (Wine). *Constant reads outside the constant file (relative addressing
  past the end or below 0) give (0, 0, 0, 0). ``def``/``defi``/``defb`` in the shader override
  the caller's value of the same register.
* ``cnd``: src0 > 0.5 ? src1 : src2; below ps_1_4 src0 is always r0.a (the rule of ps_1_1-1_3).
* ``texkill``: a pixel is discarded (``out.discarded``) if a component < 0: x, y, z in ps_1_x
  (of the texture coordinate set t# names below ps_1_4), all four from ps_2_0 on (Wine's
  rule: the operand is a destination that allows no write mask); the lane runs on.
* Textures: :class:`~shaderkit.vm.sm4.Texture` (2D, cube, volume) sampled as the SM4 VM samples
  (texel centres at +0.5, point/linear filtering, wrap/mirror/clamp/border, mips by LOD from the
  quad or ``texldl``/``texldb``/``texldd``; cube maps filter within each face, as D3D9 hardware
  does, whatever the sampler's ``seamless``); the default sampler is D3D9's default state: point
  filtering, wrap, no mip filter (D3DSAMP_MIPFILTER D3DTEXF_NONE, D3DSAMP_MAXMIPLEVEL 0: a
  mipped texture bound without a sampler reads level 0 whatever the LOD). ``texldp`` divides
  x, y, z by w. ps_1_x texture stages: stage n samples the
  texture bound to s#n; ``texbem``/``texbeml``/``bem`` use the bump matrix and luminance scale
  and offset given with ``bump=`` (D3D's defaults: matrix 0, scale 0, offset 0);
  ``texm3x3spec`` reflects the constant eye vector, ``texm3x3vspec`` the one in the w of the
  three texture coordinate sets; ``texdepth``/``texm3x2depth`` write oDepth (z / w, 1 for w = 0).
  *ps_1_x projected texture stages (D3DTTFF_PROJECTED) are not modelled. ``phase`` (ps_1_4): the
  alpha of the temporaries does not persist across it (the reference); *the VM sets it to 0.
* ps_1_x co-issued pairs (``+``) read their sources before either writes.

Measured 2026-11-24. Against vkd3d's HLSL tests (``tools/d3d9_vm_oracle.py``: each pixel shader
compiled to ps_2_0 and ps_3_0 by vkd3d-compiler, the tests' probe values, which vkd3d checks on
Windows drivers): 534 ps_2_0 and 546 ps_3_0 probes agree, none differ (probes vkd3d marks todo
for SM1-3, shaders behind custom vertex shaders and integer uniforms are not compared); compiled
to ps_1_1/ps_1_4, 938 agree and 4 differ, for reasons in the tool's text. With
random inputs, constants and textures every shader of these sets runs to the end: 2075
vkd3d-compiled vs/ps 2_0/2_a/3_0 and vs_1_1, 813 bare fxc shaders, the 52 level-9 programs of
the corpus, and 18972 hand-edited DX9 listings of Helix/3DMigoto fix repositories assembled with
:mod:`shaderkit.isa.d3d9.assembler` (the 325 others are SM4 listings). Those real files use 35
of the table's mnemonics; the ps_1_x texture operations, ``loop``/``call``/``lit``/``m4x4`` and
the rest are covered by the hand-worked tests only.

Preshaders: a shader of an fx_2_0 effect may carry one (its ``PRES`` comment block: FXLVM code
that computes shader constants from effect parameters). :meth:`D3D9Shader.run` runs it first with
d3dx9's rules (:mod:`shaderkit.vm.fxlvm`); :meth:`D3D9Shader.set` takes the parameters its
``CTAB`` names (:meth:`D3D9Shader.parameter_names`; a name in both tables sets both; others read
0). Its outputs fill the ``c#``/``i#``/``b#`` registers it writes, except those the caller set by
register or by the shader's ``CTAB`` name (d3dx9 too uploads the shader's own parameters after
the preshader's results) and those a ``def`` sets. A ``PRES`` block that does not read or code
d3dx9 would refuse raises :class:`VMError` at ``run`` (``run(preshader=False)`` runs without it).

Everything the caller gives or asks wrongly (names, shapes) and any opcode outside the D3D9 table
(the VM runs every one of the table's) raises :class:`VMError` naming it. Instruction fields come
from the D3D9 table (:mod:`shaderkit.isa.d3d9.table`); the per-opcode semantics are declared once,
in ``_ALU``, ``_SCALAR``/``_SCALAR_UNARY``, ``_HANDLERS`` and ``_FLOW``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass
from shaderkit.errors import ShaderFormatError, ShaderkitError
from shaderkit.isa.d3d9.table import (
    ADDRESS_COMPONENT,
    COISSUE,
    COMPARED,
    COMPARISONS,
    CONST_BANKS,
    DEST_MASK,
    DEST_MODIFIERS,
    INSTRUCTION_CONTROLS,
    INSTRUCTION_OPCODE,
    NAMED_REGISTERS,
    OP_DCL,
    OP_DEF,
    OP_DEFB,
    OP_DEFI,
    OPCODES,
    PREDICATED,
    RASTOUT,
    REG_ADDR_TEXTURE,
    REG_ATTR_OUT,
    REG_BOOL,
    REG_COLOR_OUT,
    REG_CONST,
    REG_DEPTH_OUT,
    REG_INPUT,
    REG_INT,
    REG_LOOP,
    REG_MISC,
    REG_OUTPUT,
    REG_RASTOUT,
    REG_SAMPLER,
    REG_TEMP,
    REGISTER_NUMBER,
    RELATIVE,
    RESULT_SHIFT,
    RESULT_SHIFT_SCALES,
    SAMPLER_TYPE,
    SAMPLER_TYPES,
    SATURATE,
    SOURCE_MODIFIER,
    SOURCE_MODIFIERS,
    SOURCE_SWIZZLE,
    comparison,
    register_type,
    texld_form,
    usage_name,
)
from shaderkit.vm.fxlvm import FxlvmError, Preshader, PreshaderOutputs
from shaderkit.vm.legacy_float import fract, max_legacy, min_legacy, mul_legacy, saturate
from shaderkit.vm.sm4.memory import sample_texture
from shaderkit.vm.sm4.outputs import NamedOutputs, normalize_key
from shaderkit.vm.sm4.resources import Sampler, Texture

__all__ = ["VMError", "D3D9Shader", "D3D9Outputs", "Texture", "Sampler", "Bump", "SUPPORTED_OPCODES",
           "DEFAULT_MAX_STEPS"]

F32 = np.float32
FLT_MAX = np.float32(3.4028235e38)
LIT_POWER_LIMIT = np.float32(127.9961)
DEFAULT_MAX_STEPS = 1 << 20
LOOP_DEPTH = 4
#: rep/loop iteration counts (i#.x) are 0..255 (the reference's range for integer constant x)
LOOP_COUNT_MAX = 255
#: comparison suffix (the table's COMPARISONS) -> test
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "_gt": np.greater, "_eq": np.equal, "_ge": np.greater_equal, "_lt": np.less, "_ne": np.not_equal,
    "_le": np.less_equal}
assert set(_COMPARE) == set(COMPARISONS) - {""}
#: the source modifier of a negated bool condition (``if !b0``)
_NOT = next(value for value, text in SOURCE_MODIFIERS.items() if text == ("!", ""))
#: vPos, vFace (D3DSPR_MISCTYPE registers)
_VPOS, _VFACE = NAMED_REGISTERS["vPos"], NAMED_REGISTERS["vFace"]
#: D3D9's default sampler state: D3DTEXF_POINT min/mag filtering, D3DTADDRESS_WRAP, D3DSAMP_MIPFILTER
#: D3DTEXF_NONE and D3DSAMP_MAXMIPLEVEL 0: only level 0 is read (max_lod 0 clamps every LOD to it)
_DEFAULT_SAMPLER = Sampler(filter="point", mip_filter="point", max_lod=0.0)
_DIMENSIONS = {"_2d": "texture2d", "_cube": "texturecube", "_volume": "texture3d"}


class VMError(ShaderkitError, ValueError):
    """Bad use of the D3D9 VM (names, shapes, values), an instruction it does not run, or a run
    that had to be stopped (step limit, nesting depth)."""


@dataclass
class Bump:
    """A texture stage's bump-mapping state (D3DTSS_BUMPENVMAT00..11, LSCALE, LOFFSET)."""

    matrix: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # m00, m01, m10, m11
    luminance_scale: float = 0.0
    luminance_offset: float = 0.0


# -- decoding ----------------------------------------------------------------------------------


@dataclass
class Param:
    """A decoded parameter token: register, relative address, mask/swizzle and modifiers."""

    rtype: int
    number: int
    #: relative address: (register type, number, component) of a0/aL
    relative: tuple[int, int, int] | None = None
    mask: int = 15
    saturate: bool = False
    shift: int = 0
    swizzle: tuple[int, int, int, int] = (0, 1, 2, 3)
    modifier: int = 0


@dataclass
class Ins:
    """A decoded instruction."""

    opcode: int
    name: str
    controls: int
    dest: Param | None
    sources: list[Param]
    predicate: Param | None = None
    coissue: bool = False
    index: int = 0
    #: raw value tokens of def/defi/defb
    values: tuple[int, ...] = ()
    usage: int = 0


def _param(tokens: tuple[int, ...], pos: int, major: int, dest: bool) -> tuple[Param, int]:
    if pos >= len(tokens):
        raise VMError("an instruction's parameter tokens run short")
    token = tokens[pos]
    rtype, number = register_type(token), REGISTER_NUMBER.get(token)
    pos += 1
    if rtype in CONST_BANKS:
        rtype, number = REG_CONST, number + CONST_BANKS[rtype]
    relative = None
    if RELATIVE.get(token):
        if major >= 2:
            if pos >= len(tokens):
                raise VMError("a relative address token is missing")
            addr = tokens[pos]
            pos += 1
            relative = (register_type(addr), REGISTER_NUMBER.get(addr), ADDRESS_COMPONENT.get(addr))
        else:
            relative = (REG_ADDR_TEXTURE, 0, 0)  # vs_1_1: a0.x implied
    if dest:
        mods = DEST_MODIFIERS.get(token)
        return Param(rtype, number, relative, DEST_MASK.get(token), bool(mods & SATURATE), RESULT_SHIFT.get(token)), pos
    sw = SOURCE_SWIZZLE.get(token)
    swizzle = (sw & 3, sw >> 2 & 3, sw >> 4 & 3, sw >> 6 & 3)
    modifier = SOURCE_MODIFIER.get(token)
    if modifier and modifier not in SOURCE_MODIFIERS:
        raise VMError(f"source modifier {modifier} is not a D3D9 one (D3DSPSM_*)")
    return Param(rtype, number, relative, swizzle=swizzle, modifier=modifier), pos


def decode(tokens: tuple[int, ...], major: int, index: int = 0) -> Ins:
    """One instruction's tokens (instruction token first) as an :class:`Ins`."""
    head = tokens[0]
    opcode = INSTRUCTION_OPCODE.get(head)
    controls = INSTRUCTION_CONTROLS.get(head)
    if opcode == OP_DCL:
        declared, _ = _param(tokens, 2, major, True)
        return Ins(opcode, "dcl", controls, declared, [], index=index, usage=tokens[1] if len(tokens) > 1 else 0)
    if opcode in (OP_DEF, OP_DEFI, OP_DEFB):
        defined, at = _param(tokens, 1, major, True)
        return Ins(opcode, "def", controls, defined, [], index=index, values=tuple(tokens[at:]))
    info = OPCODES.get(opcode)
    if info is None:
        raise VMError(f"instruction {index}: unknown D3D9 opcode {opcode}")
    pos = 1
    dest: Param | None = None
    if info.has_dest:
        dest, pos = _param(tokens, pos, major, True)
    predicate = None
    if major >= 2 and PREDICATED.get(head):
        predicate, pos = _param(tokens, pos, major, False)
    sources = []
    while pos < len(tokens):
        src, pos = _param(tokens, pos, major, False)
        sources.append(src)
    coissue = major < 2 and bool(COISSUE.get(head))
    return Ins(opcode, info.name, controls, dest, sources, predicate, coissue, index)


# -- float helpers -------------------------------------------------------------------------------


def _mul(a: np.ndarray, b: np.ndarray, legacy: bool) -> np.ndarray:
    return mul_legacy(a, b) if legacy else (a * b).astype(F32, copy=False)


def _dot(a: np.ndarray, b: np.ndarray, n: int, legacy: bool) -> np.ndarray:
    total = _mul(a[:, 0], b[:, 0], legacy)
    for i in range(1, n):
        total = (total + _mul(a[:, i], b[:, i], legacy)).astype(F32, copy=False)
    return total


def _rep(x: np.ndarray) -> np.ndarray:
    """A (lanes,) value replicated to (lanes, 4)."""
    return np.repeat(np.asarray(x, F32)[:, None], 4, axis=1)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return (np.sign(x) * np.floor(np.abs(x) + F32(0.5))).astype(F32)


# -- the run state ----------------------------------------------------------------------------


@dataclass
class _Frame:
    kind: str  # "if", "loop", "call"
    saved: np.ndarray  # lanes active when the block was entered
    other: np.ndarray | None = None  # if: lanes for the else branch; loop: lanes still iterating
    start: int = 0  # loop: first body instruction; call: return address
    remaining: int = 0
    aL: int | None = None  # loop: the loop counter (rep: None)
    step: int = 0


class _Run:
    """One execution over a batch of lanes."""

    def __init__(self, shader: D3D9Shader, n: int, legacy: bool, max_steps: int, quads: bool = False,
                 pre: PreshaderOutputs | None = None) -> None:
        self.shader = shader
        self.n = n
        #: pixel lanes in 2x2 quads (derivatives across the quad); else every lane on its own
        self.quads = quads
        self.legacy = legacy
        self.max_steps = max_steps
        self.steps = 0
        self.regs: dict[tuple[int, int], np.ndarray] = {}
        self.texcoords: dict[int, np.ndarray] = {}
        self.mask = np.ones(n, bool)
        self.stack: list[_Frame] = []
        self.discarded = np.zeros(n, bool)
        pre = pre if pre is not None else PreshaderOutputs()
        self.consts = shader._constant_file(pre)
        self.ints = shader._int_file(pre)
        self.bools = shader._bool_file(pre)
        self.pending: list[tuple[Param, np.ndarray, np.ndarray]] | None = None
        #: register arrays _commit_all_lanes allocated (it may write them in place while regs holds them)
        self._owned: dict[tuple[int, int], np.ndarray] = {}

    # -- reading ------------------------------------------------------------------------------

    def zeros(self) -> np.ndarray:
        return np.zeros((self.n, 4), F32)

    def aL(self) -> int:
        for frame in reversed(self.stack):
            if frame.kind == "loop" and frame.aL is not None:
                return frame.aL
        raise VMError("aL read outside a loop")

    def offset(self, rel: tuple[int, int, int]) -> np.ndarray | int:
        rtype, number, component = rel
        if rtype == REG_LOOP:
            return self.aL()
        a0 = self.regs.get((REG_ADDR_TEXTURE, number))
        if a0 is None:
            return 0
        return a0[:, component].astype(np.int64)

    def register(self, rtype: int, number: int) -> np.ndarray:
        if rtype == REG_CONST:
            row = self.consts[number] if 0 <= number < len(self.consts) else np.zeros(4, F32)
            return np.broadcast_to(row, (self.n, 4))
        if rtype == REG_INT:
            row = self.ints[number] if 0 <= number < len(self.ints) else np.zeros(4, np.int64)
            return np.broadcast_to(row.astype(F32), (self.n, 4))
        if rtype == REG_BOOL:
            value = F32(self.bools[number]) if 0 <= number < len(self.bools) else F32(0)
            return np.full((self.n, 4), value, F32)
        if rtype == REG_LOOP:
            return np.full((self.n, 4), self.aL(), F32)
        found = self.regs.get((rtype, number))
        return found if found is not None else self.zeros()

    def fetch(self, p: Param) -> np.ndarray:
        """A parameter's register value (lanes, 4), relative addressing applied, no swizzle."""
        if p.relative is None:
            return self.register(p.rtype, p.number)
        offset = self.offset(p.relative)
        if isinstance(offset, int):
            return self.register(p.rtype, p.number + offset)
        index = p.number + offset
        if p.rtype == REG_CONST:
            inside = (index >= 0) & (index < len(self.consts))
            rows = self.consts[np.clip(index, 0, len(self.consts) - 1)]
            return np.where(inside[:, None], rows, F32(0)).astype(F32)
        out = self.zeros()
        for value in np.unique(index):
            lanes = index == value
            out[lanes] = self.register(p.rtype, int(value))[lanes]
        return out

    def read(self, p: Param, comps: Sequence[int] = (0, 1, 2, 3)) -> np.ndarray:
        """A source's value: swizzle, then the source modifier (``comps``: only the columns of
        these destination components, for component-wise instructions; not with _dz/_dw)."""
        value = self.fetch(p)
        swizzle = p.swizzle if len(comps) == 4 else tuple(p.swizzle[c] for c in comps)
        if swizzle != (0, 1, 2, 3):
            value = value[:, list(swizzle)]
        return _SOURCE_MODIFIERS[p.modifier](value)

    # -- writing ------------------------------------------------------------------------------

    def write(self, ins: Ins, values: np.ndarray, mask: int | None = None, dest: Param | None = None,
              columns: Sequence[int] | None = None) -> None:
        """Write ``values`` (lanes, 4) to the destination's enabled components in the active lanes
        (``columns``: ``values`` holds only these components, in this order)."""
        p = dest if dest is not None else ins.dest
        if p is None:
            return
        values = np.asarray(values, F32)
        if p.shift:
            values = (values * F32(RESULT_SHIFT_SCALES[p.shift])).astype(F32)
        if p.saturate:
            values = saturate(values)
        comps = p.mask if mask is None else p.mask & mask
        if self.pending is None and ins.predicate is None and self.mask.all():
            self._commit_all_lanes(p, values, comps, columns)
            return
        if columns is not None:
            full = np.zeros((self.n, 4), F32)
            full[:, list(columns)] = values
            values = full
        enable = np.zeros((self.n, 4), bool)
        for i in range(4):
            if comps >> i & 1:
                enable[:, i] = self.mask
        if ins.predicate is not None:
            pred = self.read(ins.predicate) != 0
            enable &= pred
        if self.pending is not None:
            self.pending.append((p, values, enable))
            return
        self.commit(p, values, enable)

    def _destination(self, p: Param) -> tuple[int, int]:
        number = p.number
        if p.relative is not None:
            offset = self.offset(p.relative)
            if not isinstance(offset, int):
                raise VMError("a destination is addressed relative to a0 (only aL is allowed)")
            number += offset
        return (p.rtype, number)

    def commit(self, p: Param, values: np.ndarray, enable: np.ndarray) -> None:
        key = self._destination(p)
        old = self.regs.get(key)
        if old is None:
            old = self.zeros()
        self.regs[key] = np.where(enable, values, old).astype(F32)

    def _commit_all_lanes(self, p: Param, values: np.ndarray, comps: int,
                          columns: Sequence[int] | None) -> None:
        """``commit`` when every lane is written: whole components are copied. Register arrays
        are replaced, not changed, except one this method allocated itself (``_owned``), which
        nothing else holds during a run: its other components stay where they are."""
        key = self._destination(p)
        cols = (0, 1, 2, 3) if columns is None else columns
        if comps == 15 and tuple(cols) == (0, 1, 2, 3) and values.shape == (self.n, 4):
            fresh = values.base is None and values.flags.writeable and values.flags.c_contiguous \
                and not any(values is held for held in self.regs.values())
            if fresh:
                self.regs[key] = values
            else:
                self.regs[key] = self._owned[key] = np.array(values, F32, order="C")
            return
        old = self.regs.get(key)
        if old is None:
            new = self.zeros()
        elif self._owned.get(key) is old and not np.may_share_memory(values, old):
            new = old
        else:
            new = np.array(old, F32, order="C")
        wide = np.broadcast_to(values, (self.n, len(cols)))
        for j, c in enumerate(cols):
            if comps >> c & 1:
                new[:, c] = wide[:, j]
        self.regs[key] = self._owned[key] = new

    # -- flow control ---------------------------------------------------------------------------

    def take_lanes(self, lanes: np.ndarray, until: str) -> None:
        """Remove ``lanes`` from every frame above the innermost ``until`` frame (and from its
        iterating lanes for a loop) and from the mask."""
        for frame in reversed(self.stack):
            if frame.kind == until:
                if until == "loop" and frame.other is not None:
                    frame.other = frame.other & ~lanes
                break
            frame.saved = frame.saved & ~lanes
            if frame.other is not None:
                frame.other = frame.other & ~lanes
        self.mask = self.mask & ~lanes


#: source modifier by its text in the table's SOURCE_MODIFIERS (prefix, suffix) -> f(value)
_MODIFIER_FUNCTIONS: dict[tuple[str, str], Callable[[np.ndarray], np.ndarray]] = {
    ("-", ""): lambda x: (-x).astype(F32),
    ("", "_bias"): lambda x: (x - F32(0.5)).astype(F32),
    ("-", "_bias"): lambda x: (F32(0.5) - x).astype(F32),
    ("", "_bx2"): lambda x: (F32(2) * (x - F32(0.5))).astype(F32),
    ("-", "_bx2"): lambda x: (F32(-2) * (x - F32(0.5))).astype(F32),
    ("1 - ", ""): lambda x: (F32(1) - x).astype(F32),
    ("", "_x2"): lambda x: (F32(2) * x).astype(F32),
    ("-", "_x2"): lambda x: (F32(-2) * x).astype(F32),
    ("", "_dz"): lambda x: _divide(x, 2),
    ("", "_dw"): lambda x: _divide(x, 3),
    ("", "_abs"): lambda x: np.abs(x).astype(F32),
    ("-", "_abs"): lambda x: (-np.abs(x)).astype(F32),
    ("!", ""): lambda x: (x == 0).astype(F32),
}
#: source modifier field (D3DSPSM_*) -> f(value)
_SOURCE_MODIFIERS: dict[int, Callable[[np.ndarray], np.ndarray]] = {
    0: lambda x: x, **{value: _MODIFIER_FUNCTIONS[text] for value, text in SOURCE_MODIFIERS.items()}}


def _divide(x: np.ndarray, by: int) -> np.ndarray:
    out = x.copy()
    with np.errstate(all="ignore"):
        out[:, 0] = x[:, 0] / x[:, by]
        out[:, 1] = x[:, 1] / x[:, by]
    return out.astype(F32)


# -- arithmetic semantics: name -> function of the source values ----------------------------------
#: component-wise ops: f(run, *sources) -> (lanes, 4)
Alu = Callable[..., np.ndarray]


def _rcp(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        out = np.where(x == 0, np.copysign(F32(np.inf), x), F32(1) / x)
    return np.where(x == 1, F32(1), out).astype(F32)


def _rsq(x: np.ndarray) -> np.ndarray:
    v = np.abs(x)
    with np.errstate(all="ignore"):
        out = np.where(v == 0, F32(np.inf), (F32(1) / np.sqrt(v.astype(np.float64))).astype(F32))
    return np.where(v == 1, F32(1), out).astype(F32)


def _log(x: np.ndarray) -> np.ndarray:
    v = np.abs(x).astype(np.float64)
    with np.errstate(all="ignore"):
        return np.where(v == 0, -FLT_MAX, np.log2(v)).astype(F32)


def _exp(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.exp2(x.astype(np.float64)).astype(F32)


def _lit(m: _Run, s: np.ndarray) -> np.ndarray:
    out = np.zeros_like(s)
    out[:, 0] = 1
    out[:, 3] = 1
    power = np.clip(s[:, 3], -LIT_POWER_LIMIT, LIT_POWER_LIMIT)
    lit = s[:, 0] > 0
    out[:, 1] = np.where(lit, s[:, 0], F32(0))
    with np.errstate(all="ignore"):
        spec = np.power(s[:, 1].astype(np.float64), power.astype(np.float64)).astype(F32)
    out[:, 2] = np.where(lit & (s[:, 1] > 0), spec, F32(0))
    return out


def _dst(m: _Run, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack([np.ones(m.n, F32), _mul(a[:, 1], b[:, 1], m.legacy), a[:, 2], b[:, 3]], axis=1)


def _nrm(m: _Run, s: np.ndarray) -> np.ndarray:
    f = _dot(s, s, 3, False).astype(np.float64)
    with np.errstate(all="ignore"):
        scale = np.where(f != 0, 1 / np.sqrt(f), 0.0).astype(F32)
    return (s * scale[:, None]).astype(F32)


def _pow(m: _Run, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    base, power = np.abs(a[:, 0]).astype(np.float64), b[:, 0].astype(np.float64)
    with np.errstate(all="ignore"):
        return _rep(np.where(power == 0, 1.0, np.exp2(power * np.log2(base))))


def _crs(m: _Run, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    mul = lambda x, y: _mul(x, y, m.legacy)  # noqa: E731
    out = np.zeros_like(a)
    out[:, 0] = mul(a[:, 1], b[:, 2]) - mul(a[:, 2], b[:, 1])
    out[:, 1] = mul(a[:, 2], b[:, 0]) - mul(a[:, 0], b[:, 2])
    out[:, 2] = mul(a[:, 0], b[:, 1]) - mul(a[:, 1], b[:, 0])
    return out


def _sincos(m: _Run, s: np.ndarray, *_constants: np.ndarray) -> np.ndarray:
    v = s[:, 0].astype(np.float64)
    out = np.zeros((m.n, 4), F32)
    out[:, 0] = np.cos(v)
    out[:, 1] = np.sin(v)
    return out


def _exp_op(m: _Run, s: np.ndarray) -> np.ndarray:
    return _rep(_exp(s[:, 0]))


def _expp(m: _Run, s: np.ndarray) -> np.ndarray:
    v = s[:, 0]
    if m.shader.major >= 2:
        return _rep(_exp(v))
    floor = np.floor(v).astype(F32)
    return np.stack([_exp(floor), (v - floor).astype(F32), _exp(v), np.ones(m.n, F32)], axis=1)


def _cnd(m: _Run, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    if m.shader.major == 1 and m.shader.minor < 4:
        a = m.regs.get((REG_TEMP, 0), m.zeros())[:, 3:4]  # ps_1_1-1_3: r0.a
    return np.where(a > F32(0.5), b, c).astype(F32)


def _select(condition: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.where(condition, a, b)
    return out.astype(F32)


def _dp2add(m: _Run, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return _rep((_dot(a, b, 2, m.legacy) + c[:, 3]).astype(F32))


def _sgn(m: _Run, a: np.ndarray, *_scratch: np.ndarray) -> np.ndarray:
    return np.sign(a).astype(F32)


def _lrp(m: _Run, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (c + _mul(a, (b - c).astype(F32), m.legacy)).astype(F32)


def _derivative(m: _Run, s: np.ndarray, axis: int) -> np.ndarray:
    if not m.quads:
        return (s - s).astype(F32)  # 0, NaN for inf and NaN
    q = s.reshape(-1, 4, 4)
    return np.repeat(q[:, axis] - q[:, 0], 4, axis=0).astype(F32)


#: component-wise and whole-vector arithmetic: opcode name -> f(run, *sources) -> (lanes, 4) (the
#: scalar ones are in _SCALAR and _SCALAR_UNARY)
_ALU: dict[str, Alu] = {
    "mov": lambda m, a: a,
    "add": lambda m, a, b: (a + b).astype(F32),
    "sub": lambda m, a, b: (a - b).astype(F32),
    "mul": lambda m, a, b: _mul(a, b, m.legacy),
    "mad": lambda m, a, b, c: (_mul(a, b, m.legacy) + c).astype(F32),
    "min": lambda m, a, b: min_legacy(a, b),
    "max": lambda m, a, b: max_legacy(a, b),
    "slt": lambda m, a, b: (a < b).astype(F32),
    "sge": lambda m, a, b: (a >= b).astype(F32),
    "exp": _exp_op,
    "expp": _expp,
    "lit": _lit,
    "dst": _dst,
    "lrp": _lrp,
    "frc": lambda m, a: fract(a),
    "pow": _pow,
    "crs": _crs,
    "sgn": _sgn,
    "abs": lambda m, a: np.abs(a),
    "nrm": _nrm,
    "sincos": _sincos,
    "cnd": _cnd,
    "cmp": lambda m, a, b, c: _select(a >= 0, b, c),
    "dp2add": _dp2add,
    "dsx": lambda m, a: _derivative(m, a, 1),
    "dsy": lambda m, a: _derivative(m, a, 2),
}
#: instructions whose source is one scalar: the write takes the replicate component (noted only)
_MATRIX = {"m4x4": (4, 4), "m4x3": (4, 3), "m3x4": (3, 4), "m3x3": (3, 3), "m3x2": (3, 2)}
#: components an instruction writes at most (crs: xyz; sincos: xy)
_WRITES = {"crs": 0b0111, "sincos": 0b0011}


#: instructions whose result component i depends only on component i of each (swizzled) source:
#: they run on the written components only
_COMPONENTWISE = frozenset({"mov", "add", "sub", "mul", "mad", "min", "max", "slt", "sge", "frc", "abs",
                            "sgn", "lrp", "cmp"})
#: instructions with one (lanes,) result replicated to every component
_SCALAR: dict[str, Callable[[_Run, np.ndarray, np.ndarray], np.ndarray]] = {
    "dp3": lambda m, a, b: _dot(a, b, 3, m.legacy),
    "dp4": lambda m, a, b: _dot(a, b, 4, m.legacy),
}
_SCALAR_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "rcp": lambda a: _rcp(a[:, 3]), "rsq": lambda a: _rsq(a[:, 3]),
    "log": lambda a: _log(a[:, 0]), "logp": lambda a: _log(a[:, 0]),
}
_COLUMN_MODIFIERS = frozenset({0, *(k for k, text in SOURCE_MODIFIERS.items() if text not in (("", "_dz"), ("", "_dw")))})


def _scalar(m: _Run, ins: Ins) -> None:
    """dp3, dp4, rcp, rsq, log, logp: one (lanes,) result written to every enabled component."""
    name = ins.name
    if name in _SCALAR:
        a, b = (m.read(p) for p in ins.sources)
        x = _SCALAR[name](m, a, b)
    else:
        x = _SCALAR_UNARY[name](m.read(ins.sources[0]))
    if ins.dest is not None:
        m.write(ins, np.asarray(x, F32)[:, None], columns=[c for c in range(4) if ins.dest.mask >> c & 1])


def _alu(m: _Run, ins: Ins) -> None:
    fn = _ALU[ins.name]
    dest = ins.dest
    name = ins.name
    if dest is not None and not (name == "mov" and dest.rtype == REG_ADDR_TEXTURE):
        if name in _COMPONENTWISE and dest.mask != 15 and all(p.modifier in _COLUMN_MODIFIERS for p in ins.sources):
            comps = [c for c in range(4) if dest.mask >> c & 1]
            m.write(ins, fn(m, *[m.read(p, comps) for p in ins.sources]), columns=comps)
            return
    sources = [m.read(p) for p in ins.sources]
    if ins.name == "mov" and ins.dest is not None and ins.dest.rtype == REG_ADDR_TEXTURE and not m.shader.pixel \
            and m.shader.major < 2:
        m.write(ins, np.floor(sources[0]).astype(F32))  # vs_1_1: mov a0.x takes the floor
        return
    m.write(ins, fn(m, *sources), _WRITES.get(ins.name))


def _mova(m: _Run, ins: Ins) -> None:
    m.write(ins, _round_half_away(m.read(ins.sources[0])))


def _matrix(m: _Run, ins: Ins) -> None:
    size, rows = _MATRIX[ins.name]
    a = m.read(ins.sources[0])
    base = ins.sources[1]
    out = m.zeros()
    for row in range(rows):
        p = Param(base.rtype, base.number + row, base.relative, swizzle=base.swizzle, modifier=base.modifier)
        out[:, row] = _dot(a, m.read(p), size, m.legacy)
    m.write(ins, out, (1 << rows) - 1)


# -- flow control --------------------------------------------------------------------------------


def _compare(ins: Ins) -> Callable[[Any, Any], Any]:
    test = _COMPARE.get(comparison(ins.controls))
    if test is None:
        raise VMError(f"instruction {ins.index}: {ins.name} with comparison control {ins.controls & 7} (none)")
    return test


def _condition(m: _Run, ins: Ins) -> np.ndarray:
    """Per-lane truth of an if/break/callnz condition: a bool constant, a predicate, or a comparison."""
    if ins.opcode in COMPARED:
        a, b = m.read(ins.sources[0])[:, 0], m.read(ins.sources[1])[:, 0]
        return np.asarray(_compare(ins)(a, b), bool)
    src = ins.sources[-1]
    if src.rtype == REG_BOOL:
        value = bool(m.bools[src.number]) if src.number < len(m.bools) else False
        return np.full(m.n, value != (src.modifier == _NOT))
    return m.read(src)[:, 0] != 0


def _flow_if(m: _Run, ins: Ins, pc: int) -> int:
    cond = _condition(m, ins)
    m.stack.append(_Frame("if", m.mask, m.mask & ~cond))
    m.mask = m.mask & cond
    if not m.mask.any():
        return m.shader._match[pc]
    return pc + 1


def _flow_else(m: _Run, ins: Ins, pc: int) -> int:
    frame = m.stack[-1]
    m.mask = frame.other if frame.other is not None else np.zeros(m.n, bool)
    frame.other = np.zeros(m.n, bool)
    if not m.mask.any():
        return m.shader._match[pc]
    return pc + 1


def _flow_endif(m: _Run, ins: Ins, pc: int) -> int:
    frame = m.stack.pop()
    m.mask = frame.saved
    return pc + 1


def _flow_loop(m: _Run, ins: Ins, pc: int) -> int:
    src = ins.sources[-1]
    values = m.ints[src.number] if src.number < len(m.ints) else np.zeros(4, np.int64)
    count = min(max(int(values[0]), 0), LOOP_COUNT_MAX)
    if sum(f.kind == "loop" for f in m.stack) >= LOOP_DEPTH:
        raise VMError(f"instruction {ins.index}: {ins.name} nests deeper than {LOOP_DEPTH} loops")
    aL = int(values[1]) if ins.name == "loop" else None
    m.stack.append(_Frame("loop", m.mask, m.mask.copy(), pc + 1, count, aL, int(values[2])))
    if count == 0 or not m.mask.any():
        return m.shader._match[pc]
    return pc + 1


def _flow_endloop(m: _Run, ins: Ins, pc: int) -> int:
    frame = m.stack[-1]
    frame.remaining -= 1
    if frame.aL is not None:
        frame.aL += frame.step
    assert frame.other is not None
    if frame.remaining > 0 and frame.other.any():
        m.mask = frame.other
        return frame.start
    m.stack.pop()
    m.mask = frame.saved
    return pc + 1


def _flow_break(m: _Run, ins: Ins, pc: int) -> int:
    lanes = m.mask.copy()
    if ins.sources:  # break_comp, breakp (a plain break has none)
        lanes &= _condition(m, ins)
    loop_at = max((i for i, f in enumerate(m.stack) if f.kind == "loop"), default=None)
    if loop_at is None:
        raise VMError(f"instruction {ins.index}: {ins.name} outside a loop")
    m.take_lanes(lanes, "loop")
    if m.mask.any() or any(f.saved.any() for f in m.stack[loop_at + 1 :]):
        return pc + 1  # lanes still to run in this iteration (an else branch, after an endif)
    del m.stack[loop_at + 1 :]
    return m.shader._match[m.stack[loop_at].start - 1]


def _call_depth(m: _Run) -> int:
    return sum(f.kind == "call" for f in m.stack)


def _flow_call(m: _Run, ins: Ins, pc: int) -> int:
    label = ins.sources[0].number
    target = m.shader._labels.get(label)
    if target is None:
        raise VMError(f"instruction {ins.index}: call of l{label}, which the shader does not define")
    lanes = m.mask
    if ins.name == "callnz":
        lanes = lanes & _condition(m, ins)
    if not lanes.any():
        return pc + 1
    if _call_depth(m) >= m.shader.call_depth:
        raise VMError(f"instruction {ins.index}: calls nest deeper than {m.shader.call_depth} ({m.shader.profile})")
    m.stack.append(_Frame("call", m.mask, None, pc + 1))
    m.mask = lanes
    return target + 1


def _flow_ret(m: _Run, ins: Ins, pc: int) -> int:
    m.take_lanes(m.mask.copy(), "call")
    if m.stack and m.stack[-1].kind == "call":  # nothing pending in the subroutine: return
        frame = m.stack.pop()
        m.mask = frame.saved
        return frame.start
    if not m.stack:
        return _END
    return pc + 1


_END = -1


def _flow_label(m: _Run, ins: Ins, pc: int) -> int:
    # reached in sequence: the end of the function before it
    return _flow_ret(m, ins, pc)


_FLOW: dict[str, Callable[[_Run, Ins, int], int]] = {
    "if": _flow_if, "else": _flow_else, "endif": _flow_endif, "rep": _flow_loop, "loop": _flow_loop,
    "endrep": _flow_endloop, "endloop": _flow_endloop, "break": _flow_break, "breakp": _flow_break,
    "call": _flow_call, "callnz": _flow_call, "ret": _flow_ret, "label": _flow_label,
}


# -- other instructions ------------------------------------------------------------------------


def _setp(m: _Run, ins: Ins) -> None:
    a, b = m.read(ins.sources[0]), m.read(ins.sources[1])
    m.write(ins, np.asarray(_compare(ins)(a, b), F32))


def _texkill(m: _Run, ins: Ins) -> None:
    p = ins.dest
    assert p is not None
    if m.shader.major < 2:
        value = _stage_coords(m, p.number) if p.rtype == REG_ADDR_TEXTURE and m.shader.minor < 4 else m.fetch(p)
        comps = 0b0111
    else:
        value = m.fetch(p)
        comps = 0b1111
    kill = np.zeros(m.n, bool)
    for i in range(4):
        if comps >> i & 1:
            kill |= value[:, i] < 0
    if ins.predicate is not None:
        kill &= m.read(ins.predicate)[:, 0] != 0
    m.discarded |= kill & m.mask


def _nop(m: _Run, ins: Ins) -> None:
    return None


def _phase(m: _Run, ins: Ins) -> None:
    """ps_1_4's phase marker: the alpha of the temporaries does not persist across it (the
    reference); the VM sets it to 0 so that a shader relying on it shows."""
    for key, value in list(m.regs.items()):
        if key[0] == REG_TEMP:
            value = value.copy()
            value[:, 3] = np.where(m.mask, F32(0), value[:, 3])
            m.regs[key] = value


# texture sampling


def _sample(m: _Run, stage: int, coords: np.ndarray, lod: np.ndarray | None = None, bias: np.ndarray | None = None,
            ddx: np.ndarray | None = None, ddy: np.ndarray | None = None) -> np.ndarray:

    tex = m.shader.textures.get(stage)
    if tex is None:
        return np.zeros((m.n, 4), F32)  # an unbound stage reads as 0 (D3D9 returns (0, 0, 0, 1) on some cards)
    sampler = m.shader.samplers.get(stage, _DEFAULT_SAMPLER)
    if sampler.seamless and tex.is_cube:  # (D3D9 filters within each face, whatever the sampler says)
        sampler = replace(sampler, seamless=False)
    values = sample_texture(tex, sampler, np.asarray(coords, F32), lod, ddx, ddy, quads=m.quads, bias=bias)
    return values.astype(F32)


def _texld(m: _Run, ins: Ins) -> None:
    shader = m.shader
    dest = ins.dest
    assert dest is not None
    if shader.major < 2:  # ps_1_x: tex t# (texture coordinate set #), ps_1_4 texld r#, t#/r#
        if shader.minor >= 4:
            coords = m.read(ins.sources[0])
        else:
            coords = _stage_coords(m, dest.number)
        m.write(ins, _sample(m, dest.number, coords))
        return
    coords = m.read(ins.sources[0])
    sampler = ins.sources[1]
    form = texld_form(ins.controls)
    lod = bias = ddx = ddy = None
    if ins.name == "texldl":
        lod = coords[:, 3].astype(np.float64)
    elif ins.name == "texldd":
        ddx, ddy = m.read(ins.sources[2]), m.read(ins.sources[3])
    elif form == "texldp":
        with np.errstate(all="ignore"):
            coords = np.concatenate([coords[:, :3] / coords[:, 3:4], coords[:, 3:4]], axis=1).astype(F32)
    elif form == "texldb":
        bias = coords[:, 3].astype(np.float64)
    values = _sample(m, sampler.number, coords, lod, bias, ddx, ddy)
    if sampler.swizzle != (0, 1, 2, 3):
        values = values[:, list(sampler.swizzle)]
    m.write(ins, values)


def _texcoord(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    if m.shader.minor >= 4:  # texcrd r#, t#: the coordinates as they are
        m.write(ins, m.read(ins.sources[0]))
        return
    tc = saturate(_stage_coords(m, dest.number))
    tc[:, 3] = 1
    m.write(ins, tc)


def _stage_coords(m: _Run, stage: int) -> np.ndarray:
    """The texture coordinate set of stage ``stage`` as the shader received it (0 if not given)."""
    return m.texcoords.get(stage, m.zeros())


def _bump(m: _Run, stage: int) -> Bump:
    return m.shader.bump.get(stage, Bump())


def _bumped(m: _Run, stage: int, coords: np.ndarray, source: np.ndarray) -> np.ndarray:
    m00, m01, m10, m11 = (F32(v) for v in _bump(m, stage).matrix)
    out = coords.copy()
    out[:, 0] = coords[:, 0] + m00 * source[:, 0] + m10 * source[:, 1]
    out[:, 1] = coords[:, 1] + m01 * source[:, 0] + m11 * source[:, 1]
    return out.astype(F32)


def _texbem(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    stage = dest.number
    source = m.read(ins.sources[0])
    values = _sample(m, stage, _bumped(m, stage, _stage_coords(m, stage), source))
    if ins.name == "texbeml":
        bump = _bump(m, stage)
        scale = source[:, 2] * F32(bump.luminance_scale) + F32(bump.luminance_offset)
        values = values.copy()
        values[:, :3] *= scale[:, None]
    m.write(ins, values)


def _bem(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    m.write(ins, _bumped(m, dest.number, m.read(ins.sources[0]), m.read(ins.sources[1])), 0b0011)


def _texreg2(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    s = m.read(ins.sources[0])
    picks = {"texreg2ar": (3, 0), "texreg2gb": (1, 2), "texreg2rgb": (0, 1, 2)}[ins.name]
    coords = np.zeros((m.n, 4), F32)
    for i, c in enumerate(picks):
        coords[:, i] = s[:, c]
    m.write(ins, _sample(m, dest.number, coords))


def _row(m: _Run, stage: int, source: np.ndarray) -> np.ndarray:
    return _dot(_stage_coords(m, stage), source, 3, m.legacy)


def _texmpad(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    m.regs[(REG_ADDR_TEXTURE, dest.number)] = _rep(_row(m, dest.number, m.read(ins.sources[0])))


def _rows(m: _Run, ins: Ins, count: int) -> np.ndarray:
    """u, v[, w] of a texm3x2*/texm3x3* instruction: the pad rows before it, then its own."""
    dest = ins.dest
    assert dest is not None
    out = np.zeros((m.n, 4), F32)
    for k in range(count - 1):
        out[:, k] = m.regs.get((REG_ADDR_TEXTURE, dest.number - count + 1 + k), m.zeros())[:, 0]
    out[:, count - 1] = _row(m, dest.number, m.read(ins.sources[0]))
    return out


def _texm(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    name = ins.name
    count = 2 if name.startswith("texm3x2") else 3
    uvw = _rows(m, ins, count)
    if name == "texm3x3":
        uvw[:, 3] = 1
        m.write(ins, uvw)
        return
    if name == "texm3x2depth":
        z, w = uvw[:, 0], uvw[:, 1]
        with np.errstate(all="ignore"):
            depth = np.where(w == 0, F32(1), z / w).astype(F32)
        m.regs[(REG_DEPTH_OUT, 0)] = _rep(depth)
        return
    if name in ("texm3x3spec", "texm3x3vspec"):
        if name == "texm3x3spec":
            eye = m.read(ins.sources[1])
        else:
            eye = np.stack([_stage_coords(m, dest.number - 2 + k)[:, 3] for k in range(3)] + [np.zeros(m.n, F32)],
                           axis=1)
        n_e = _dot(uvw, eye, 3, m.legacy)
        n_n = _dot(uvw, uvw, 3, m.legacy)
        with np.errstate(all="ignore"):
            uvw = (F32(2) * uvw * (n_e / n_n)[:, None] - eye).astype(F32)
    m.write(ins, _sample(m, dest.number, uvw))


def _texdp3(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    u = _row(m, dest.number, m.read(ins.sources[0]))
    if ins.name == "texdp3":
        m.write(ins, _rep(u))
        return
    coords = np.zeros((m.n, 4), F32)
    coords[:, 0] = u
    m.write(ins, _sample(m, dest.number, coords))


def _texdepth(m: _Run, ins: Ins) -> None:
    dest = ins.dest
    assert dest is not None
    value = m.fetch(dest)
    with np.errstate(all="ignore"):
        depth = np.where(value[:, 1] == 0, F32(1), value[:, 0] / value[:, 1]).astype(F32)
    m.regs[(REG_DEPTH_OUT, 0)] = _rep(depth)


#: every opcode of the table this VM runs: mnemonic -> handler(run, instruction)
_HANDLERS: dict[str, Callable[[_Run, Ins], None]] = {
    **{name: _alu for name in _ALU}, **{name: _scalar for name in (*_SCALAR, *_SCALAR_UNARY)},
    **{name: _matrix for name in _MATRIX},
    "mova": _mova, "setp": _setp, "texkill": _texkill, "nop": _nop, "phase": _phase,
    "texld": _texld, "texldd": _texld, "texldl": _texld, "texcoord": _texcoord,
    "texbem": _texbem, "texbeml": _texbem, "bem": _bem,
    "texreg2ar": _texreg2, "texreg2gb": _texreg2, "texreg2rgb": _texreg2,
    "texm3x2pad": _texmpad, "texm3x3pad": _texmpad, "texm3x2tex": _texm, "texm3x3tex": _texm, "texm3x3": _texm,
    "texm3x3spec": _texm, "texm3x3vspec": _texm, "texm3x2depth": _texm,
    "texdp3": _texdp3, "texdp3tex": _texdp3, "texdepth": _texdepth,
}
#: the table's opcodes this VM runs (every one; a test checks it)
SUPPORTED_OPCODES = frozenset(value for value, info in OPCODES.items() if info.name in _HANDLERS or info.name in _FLOW)


# -- the shader --------------------------------------------------------------------------------


#: output register types -> semantic of pre-vs_3_0 outputs
_RASTOUT_SEMANTICS = ("POSITION0", "FOG0", "PSIZE0")


class D3D9Outputs(NamedOutputs):
    """A run's outputs: (lanes, 4) float32 arrays by register (``oPos``, ``oD0``, ``oT1``, ``o3``,
    ``oC0``, ``oDepth``; ps_1_x: ``r0``) and by semantic (``POSITION0``, ``COLOR0``, ``TEXCOORD1``,
    ``DEPTH0``; any case, a semantic without index is index 0: the SM4 VM's
    :class:`~shaderkit.vm.sm4.outputs.NamedOutputs` lookup); ``registers`` and ``semantics``
    (semantic -> register name) as collected; ``discarded``: pixels texkill removed."""

    def __init__(self, registers: dict[str, np.ndarray], semantics: dict[str, str], discarded: np.ndarray,
                 steps: int) -> None:
        super().__init__({**registers, **{name: registers[reg] for name, reg in semantics.items()}})
        self.registers = registers
        self.semantics = semantics
        self.discarded = discarded
        self.steps = steps


#: ps_1_x spellings of texld (``tex t0``, ``texld r0, t0``) and texcoord (``texcoord t0``, ``texcrd r0, t0``)
_PS1_SOURCES = {"texld": (0, 1), "texcoord": (0, 1)}
#: words a constant definition carries after its register
_DEF_VALUES = 4


def _check_shape(ins: Ins, major: int) -> None:
    """Refuse an instruction whose destination or source count is not one its opcode takes (a
    damaged token stream decodes, but the opcode's rule could not read it)."""
    if ins.opcode in (OP_DEF, OP_DEFI, OP_DEFB):
        if ins.dest is None or len(ins.values) < (1 if ins.opcode == OP_DEFB else _DEF_VALUES):
            raise VMError(f"{ins.name} at instruction {ins.index}: needs a register and its values")
        return
    info = OPCODES.get(ins.opcode)
    if info is None:
        return
    counts = (info.sources, info.other_sources, *(_PS1_SOURCES.get(ins.name, ()) if major == 1 else ()))
    if len(ins.sources) not in counts or (ins.dest is not None) != info.has_dest:
        raise VMError(f"{ins.name} at instruction {ins.index}: {'a' if ins.dest is not None else 'no'} destination "
                      f"and {len(ins.sources)} sources; the opcode takes {info.sources}"
                      f"{' with' if info.has_dest else ' without'} a destination")


class D3D9Shader:
    """A D3D9 shader ready to run: constants, textures and bump state persist between runs."""

    def __init__(self, model: Any) -> None:
        from shaderkit.formats.d3d9.shader import D3D9Shader as Model

        if not isinstance(model, Model):
            raise VMError(f"expected a bare D3D9 shader, got {type(model).__name__}")
        self.model = model
        self.major, self.minor, self.pixel = model.major, model.minor, model.pixel
        self.profile = model.profile
        if model.profile.startswith("tx"):
            raise VMError("tx_1_0 texture shaders are not run")
        self.call_depth = 1 if (not self.pixel and self.major == 2 and self.minor == 0) else 4
        self.instructions = [decode(ins.tokens, self.major, i) for i, ins in enumerate(model.instructions)]
        self.table = model.constant_table
        #: the preshader (``PRES`` block) ready to run, None without one; ``preshader_table`` its
        #: ``CTAB`` (the effect parameters it reads), ``parameters`` its input registers as set
        self.preshader: Preshader | None = None
        self.preshader_table: Any = None
        self.parameters: dict[int, np.ndarray] = {}
        self._preshader_error: str | None = None
        self._load_preshader(model)
        self.floats: dict[int, np.ndarray] = {}
        self.int_values: dict[int, np.ndarray] = {}
        self.bool_values: dict[int, bool] = {}
        self.textures: dict[int, Texture] = {}
        self.samplers: dict[int, Sampler] = {}
        self.bump: dict[int, Bump] = {}
        self._defs: list[Ins] = []
        self.inputs: dict[str, tuple[int, int]] = {}  # semantic -> (register type, number)
        #: declared write mask of an input semantic (vs_3_0/ps_3_0 pack several in one register)
        self.input_masks: dict[str, int] = {}
        self.outputs: dict[tuple[int, int], list[str]] = {}  # vs_3_0 o# -> semantics
        self.sampler_types: dict[int, str] = {}
        self._program: list[Ins] = []
        for ins in self.instructions:
            _check_shape(ins, self.major)
            if ins.opcode == OP_DCL:
                self._declare(ins)
            elif ins.opcode in (OP_DEF, OP_DEFI, OP_DEFB):
                self._defs.append(ins)
            else:
                self._program.append(ins)
        self._match, self._labels = self._structure()

    @classmethod
    def from_bytes(cls, data: bytes) -> D3D9Shader:
        """From the bytes of a bare D3D9 shader token stream."""
        from shaderkit.formats.d3d9.shader import D3D9Shader as Model

        return cls(Model.from_bytes(data))

    @classmethod
    def load(cls, source: str | os.PathLike[str] | bytes) -> D3D9Shader:
        """From a file path (read by :func:`shaderkit.open`; a bare D3D9 shader) or the bytes of one."""
        if isinstance(source, (bytes, bytearray, memoryview)):
            return cls.from_bytes(bytes(source))
        import shaderkit
        from shaderkit.formats.d3d9.shader import D3D9Shader as Model

        opened = shaderkit.open(source)
        if not isinstance(opened, Model):
            raise VMError(f"{os.fspath(source)}: a {opened.format_name} file, not a bare D3D9 shader")
        return cls(opened)

    @classmethod
    def assemble(cls, text: str) -> D3D9Shader:
        """From fxc-style listing text (``vs_3_0`` ... ; the project's D3D9 assembler)."""
        from shaderkit.formats.d3d9.assemble import assemble_shader

        return cls(assemble_shader(text))

    def _load_preshader(self, model: Any) -> None:
        """Read and check the preshader; a block that does not read or a program d3dx9 would
        refuse is kept as the reason :meth:`run` gives (the shader still runs with
        ``preshader=False``)."""
        from shaderkit.formats.d3d9.preshader import shader_preshader

        try:
            program = shader_preshader(model)
            if program is None:
                return
            self.preshader_table = program.table
            self.preshader = Preshader.from_program(program)
        except (ShaderFormatError, FxlvmError) as error:
            self._preshader_error = str(error)

    # -- declarations ---------------------------------------------------------------------------

    def _declare(self, ins: Ins) -> None:
        p = ins.dest
        assert p is not None
        if p.rtype == REG_SAMPLER:
            self.sampler_types[p.number] = _DIMENSIONS.get(SAMPLER_TYPES.get(SAMPLER_TYPE.get(ins.usage), "_2d"),
                                                           "texture2d")
            return
        if p.rtype == REG_MISC:
            return
        if self.pixel and self.major < 3:
            name = f"TEXCOORD{p.number}" if p.rtype == REG_ADDR_TEXTURE else f"COLOR{p.number}"
        else:
            usage, index = usage_name(ins.usage)
            name = f"{usage.upper()}{index}"
        if p.rtype == REG_OUTPUT and not self.pixel:
            self.outputs.setdefault((p.rtype, p.number), []).append(name)
        elif name not in self.inputs:
            self.inputs[name] = (p.rtype, p.number)
            self.input_masks[name] = p.mask

    def _structure(self) -> tuple[dict[int, int], dict[int, int]]:
        """if -> else/endif, else -> endif, rep/loop -> endrep/endloop positions; label positions."""
        match: dict[int, int] = {}
        labels: dict[int, int] = {}
        opens: list[int] = []
        for pc, ins in enumerate(self._program):
            name = ins.name
            if name in ("if", "rep", "loop"):
                opens.append(pc)
            elif name in ("else", "endif", "endrep", "endloop"):
                if not opens:
                    raise VMError(f"instruction {ins.index}: {name} without its opening instruction")
                start = opens[-1]
                match[start] = pc
                if name == "else":
                    opens[-1] = pc
                else:
                    opens.pop()
            elif name == "label":
                labels[ins.sources[0].number] = pc
        if opens:
            unclosed = self._program[opens[-1]]
            raise VMError(f"instruction {unclosed.index}: {unclosed.name} is not closed")
        return match, labels

    # -- constants and resources -----------------------------------------------------------------

    def set(self, name: str, value: Any) -> D3D9Shader:
        """Set a constant by CTAB name (floats, vectors, matrices and arrays of them as HLSL
        declares them; row- or column-major as the CTAB says) or by register (``c5``: one or more
        float4 rows from there, ``i0``: int4, ``b2``: bool); an effect parameter the preshader
        reads, by the name in its ``CTAB`` (a name in both tables sets both); returns self."""
        reg = _register_name(name)
        if reg is not None:
            letter, number = reg
            self._store(letter, number, _numbers(name, value, letter), None)
            return self
        c = _named(self.table, name)
        p = _named(self.preshader_table, name)
        if c is None and p is None:
            known = f"CTAB: {', '.join(self.constant_names()) or 'none'}"
            if self.preshader_table is not None:
                known += f"; preshader CTAB: {', '.join(self.parameter_names()) or 'none'}"
            raise VMError(f"no constant named {name!r} ({known})")
        if c is not None:
            letter, rows = _layout(c, name, value)
            self._store(letter, c.register_index, rows, c.register_count)
        if p is not None:
            letter, rows = _layout(p, name, value)
            if letter != "c":
                raise VMError(f"{name!r}: a preshader input in the {letter} register set (d3dx9 reads float "
                              "registers)")
            for k, row in enumerate(rows[: p.register_count].astype(F32)):  # (float rows of 4)
                self.parameters[p.register_index + k] = row
        return self

    def _store(self, letter: str, start: int, rows: np.ndarray, count: int | None) -> None:
        if letter == "b":
            values = np.asarray(rows).reshape(-1)
            for k, v in enumerate(values[:count]):
                self.bool_values[start + k] = bool(v)
            return
        grid = np.atleast_2d(np.asarray(rows))
        if grid.shape[-1] > 4:
            raise VMError(f"{letter}{start}: rows of at most 4 values, got {grid.shape[-1]}")
        padded = np.zeros((len(grid), 4), grid.dtype)
        padded[:, : grid.shape[-1]] = grid
        for k, row in enumerate(padded[:count]):
            if letter == "i":
                self.int_values[start + k] = row.astype(np.int64)
            else:
                self.floats[start + k] = row.astype(F32)

    def set_defaults(self, values: Mapping[str, Any]) -> D3D9Shader:
        """Set the constants and preshader parameters named in ``values`` that either table has (an
        effect's initial values, :meth:`~shaderkit.formats.d3d9.effect.D3D9Effect.parameter_values`,
        as d3dx9 sets them); other names, and values that do not fit their constant, are skipped
        (d3dx9 does not refuse a pass over them). Later :meth:`set` calls replace them."""
        for name, value in values.items():
            if _named(self.table, name) is not None or _named(self.preshader_table, name) is not None:
                try:
                    self.set(name, value)
                except VMError:
                    continue
        return self

    def constant_names(self) -> list[str]:
        """The CTAB constant names (samplers included)."""
        return _names(self.table)

    def parameter_names(self) -> list[str]:
        """The names of the effect parameters the preshader reads (its CTAB); none without one."""
        return _names(self.preshader_table)

    def evaluate_preshader(self) -> PreshaderOutputs | None:
        """Run the preshader with the parameters set (others read 0) and return the shader
        constants it writes; None without a preshader. VMError when it does not run."""
        if self._preshader_error is not None:
            raise VMError(f"the preshader does not run: {self._preshader_error} (run(preshader=False) runs "
                          "the shader without it)")
        if self.preshader is None:
            return None
        try:
            return self.preshader.run(self.parameters)
        except FxlvmError as error:
            raise VMError(f"the preshader does not run: {error}") from None

    def texture(self, name: str | int, data: Any, sampler: Sampler | None = None, kind: str | None = None,
                mips: bool = False) -> D3D9Shader:
        """Bind a texture to a sampler (CTAB sampler name, ``s3`` or 3): a
        :class:`~shaderkit.vm.sm4.Texture` or an array: ``(h, w, c)`` 2D, ``(6, h, w, c)`` cube
        (+X, -X, +Y, -Y, +Z, -Z), ``(d, h, w, c)`` volume; ``kind`` ("2d", "cube", "volume")
        defaults to the sampler's ``dcl`` type, else 2D. ``mips=True`` builds a box-filtered chain."""
        stage = self._sampler_stage(name)
        if isinstance(data, Texture):
            tex = data
        else:
            dim = _DIMENSIONS.get(f"_{kind}", None) if kind else self.sampler_types.get(stage, "texture2d")
            if dim is None:
                raise VMError(f"texture kind {kind!r}: expected 2d, cube or volume")
            try:
                tex = Texture.from_array(np.asarray(data, F32) if np.asarray(data).dtype.kind != "f"
                                         else np.asarray(data), dim, mips=mips)
            except (ValueError, IndexError) as exc:
                raise VMError(f"texture for s{stage}: {exc}") from None
        self.textures[stage] = tex
        if sampler is not None:
            self.samplers[stage] = sampler
        return self

    def sampler(self, name: str | int, sampler: Sampler) -> D3D9Shader:
        """Set the sampler state of a sampler (name, ``s#`` or number); returns self."""
        self.samplers[self._sampler_stage(name)] = sampler
        return self

    def bump_state(self, stage: int, bump: Bump) -> D3D9Shader:
        """Set texture stage ``stage``'s bump matrix and luminance (texbem, texbeml, bem)."""
        self.bump[stage] = bump
        return self

    def _sampler_stage(self, name: str | int) -> int:
        if isinstance(name, int):
            return name
        if name[:1] in "sS" and name[1:].isdigit():
            return int(name[1:])
        c = _named(self.table, name)
        from shaderkit.formats.d3dx.ctab import REGISTER_SETS

        if c is None or REGISTER_SETS.get(c.register_set) != "s":
            raise VMError(f"no sampler named {name!r}")
        return int(c.register_index)

    # (the preshader's outputs, then the caller's values over them, then the shader's def*)
    def _constant_file(self, pre: PreshaderOutputs) -> np.ndarray:
        rows = {**pre.floats, **self.floats}
        top = max([256, *(k + 1 for k in rows)])
        for ins in self._defs:
            if ins.opcode == OP_DEF and ins.dest is not None:
                top = max(top, ins.dest.number + 1)
        out = np.zeros((top, 4), F32)
        for k, row in rows.items():
            out[k] = row
        for ins in self._defs:
            if ins.opcode == OP_DEF and ins.dest is not None:
                out[ins.dest.number] = np.array(ins.values[:4], np.uint32).view(F32)
        return out

    def _int_file(self, pre: PreshaderOutputs) -> np.ndarray:
        out = np.zeros((16, 4), np.int64)
        for k, row in {**pre.ints, **self.int_values}.items():
            if 0 <= k < 16:
                out[k] = row
        for ins in self._defs:
            if ins.opcode == OP_DEFI and ins.dest is not None and ins.dest.number < 16:
                out[ins.dest.number] = np.array(ins.values[:4], np.uint32).view(np.int32)
        return out

    def _bool_file(self, pre: PreshaderOutputs) -> np.ndarray:
        out = np.zeros(16, bool)
        for k, v in {**pre.bools, **self.bool_values}.items():
            if 0 <= k < 16:
                out[k] = v
        for ins in self._defs:
            if ins.opcode == OP_DEFB and ins.dest is not None and ins.dest.number < 16:
                out[ins.dest.number] = bool(ins.values[0]) if ins.values else False
        return out

    # -- running --------------------------------------------------------------------------------

    def run(self, inputs: Mapping[str, Any] | None = None, lanes: int | None = None,
            constants: Mapping[str, Any] | None = None, textures: Mapping[str | int, Any] | None = None, quads: bool = False, legacy_float: bool = False,
            max_steps: int = DEFAULT_MAX_STEPS, preshader: bool = True, **by_semantic: Any) -> D3D9Outputs:
        """Run over ``lanes`` vertices or pixels: inputs by register (``v0``, ``t1``, ``vPos``,
        ``vFace``) or semantic (``POSITION``, ``TEXCOORD1``, ``COLOR0``), each (lanes, <= 4)
        (missing components (0, 0, 0, 1); inputs not given read 0, where D3D9 drivers give white
        for an unwritten pixel-shader COLOR0); ``constants`` and ``textures`` as :meth:`set` and
        :meth:`texture` take them. Pixel shaders: ``quads`` see the module text. A shader with a
        preshader runs it first (``preshader=False``: not) and its outputs fill the constants
        the caller did not set by register or by the shader's CTAB name."""
        for name, value in (constants or {}).items():
            self.set(name, value)
        for slot, texture in (textures or {}).items():
            self.texture(slot, texture)
        feed = {**(inputs or {}), **by_semantic}
        arrays: dict[tuple[int, int] | str, np.ndarray] = {}
        for key, value in feed.items():
            array = np.asarray(value, F32)
            if array.ndim == 1:  # one value per lane
                array = array[:, None]
            if array.ndim != 2 or array.shape[1] > 4:
                raise VMError(f"input {key!r}: expected (lanes, <= 4) values, got shape {array.shape}")
            where = self._input_key(key)
            mask = self._input_mask(key)
            if mask in (0, 15) or mask & 1:
                padded = np.zeros((len(array), 4), F32)
                padded[:, 3] = 1
                padded[:, : array.shape[1]] = array
                arrays[where] = padded
                continue
            # a packed semantic (dcl_texcoord1 v0.zw): its values fill the declared components in order
            found = arrays.get(where)
            if found is None or len(found) != len(array):
                found = np.zeros((len(array), 4), F32)
                found[:, 3] = 1
            padded = found
            comps = [i for i in range(4) if mask >> i & 1]
            for column, component in enumerate(comps[: array.shape[1]]):
                padded[:, component] = array[:, column]
            arrays[where] = padded
        count = lanes
        for where, array in arrays.items():
            if count is None:
                count = len(array)
            elif len(array) != count:
                raise VMError(f"input {where!r} has {len(array)} rows, expected {count}")
        if count is None:
            count = 1
        if self.pixel and quads and count % 4:
            raise VMError(f"quads=True needs a multiple of 4 pixels, got {count}")
        n = count
        m = _Run(self, n, legacy_float, max_steps, self.pixel and quads,
                 self.evaluate_preshader() if preshader else None)
        for where, array in arrays.items():
            if where == "vPos":
                m.regs[_VPOS] = array
            elif where == "vFace":
                m.regs[_VFACE] = _rep(array[:, 0])
            else:
                assert isinstance(where, tuple)
                m.regs[where] = array
                if where[0] == REG_ADDR_TEXTURE and self.pixel:
                    m.texcoords[where[1]] = array
        if self.pixel:
            lane = np.arange(n)
            if _VPOS not in m.regs:
                x = (lane // 4 * 2 + lane % 2) if quads else lane
                y = (lane % 4 // 2) if quads else np.zeros(n, np.int64)
                m.regs[_VPOS] = np.stack([x, y, np.zeros(n), np.ones(n)], axis=1).astype(F32)
            if _VFACE not in m.regs:
                m.regs[_VFACE] = np.ones((n, 4), F32)
        with np.errstate(all="ignore"):
            self._execute(m)
        registers, semantics = self._collect(m)
        return D3D9Outputs(registers, semantics, m.discarded, m.steps)

    def _input_mask(self, key: str) -> int:
        return self.input_masks.get(normalize_key(key), 15)

    def _input_key(self, key: str) -> tuple[int, int] | str:
        lower = key.lower()
        if lower in ("vpos", "vface"):
            return "vPos" if lower == "vpos" else "vFace"
        reg = _register_name(key)
        if reg is not None and reg[0] in "vt":
            if reg[0] == "t" and not self.pixel:
                raise VMError(f"input {key!r}: vertex shaders have no t registers")
            return (REG_INPUT if reg[0] == "v" else REG_ADDR_TEXTURE, reg[1])
        upper = key.upper()
        found = self.inputs.get(normalize_key(key))
        if found is not None:
            return found
        if self.pixel and self.major < 2:  # ps_1_x: COLOR0/1 -> v#, TEXCOORD# -> t#
            for prefix, rtype in (("COLOR", REG_INPUT), ("TEXCOORD", REG_ADDR_TEXTURE)):
                rest = upper[len(prefix):] if upper.startswith(prefix) else None
                if rest is not None and (rest == "" or rest.isdigit()):
                    return (rtype, int(rest or 0))
        known = ", ".join(sorted(self.inputs)) or "none declared"
        raise VMError(f"unknown input {key!r} (by register v#/t#, or semantic: {known})")

    def _execute(self, m: _Run) -> None:
        program = self._program
        pc = 0
        total = len(program)
        while 0 <= pc < total:
            ins = program[pc]
            m.steps += 1
            if m.steps > m.max_steps:
                raise VMError(f"stopped after {m.max_steps} instructions (runaway loop?)")
            flow = _FLOW.get(ins.name)
            if flow is not None:
                pc = flow(m, ins, pc)
                continue
            if not m.mask.any():
                pc += 1
                continue
            handler = _HANDLERS[ins.name]  # every opcode of the table (decode refuses others)
            if pc + 1 < total and program[pc + 1].coissue:  # a co-issued pair reads before it writes
                m.pending = []
                handler(m, ins)
                partner = program[pc + 1]
                _HANDLERS[partner.name](m, partner)
                writes, m.pending = m.pending, None
                for p, values, enable in writes:
                    m.commit(p, values, enable)
                m.steps += 1
                pc += 2
                continue
            handler(m, ins)
            pc += 1

    def _collect(self, m: _Run) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        registers: dict[str, np.ndarray] = {}
        semantics: dict[str, str] = {}

        def put(name: str, key: tuple[int, int], semantic: str | list[str] | None) -> None:
            value = m.regs.get(key)
            if value is None:
                return
            registers[name] = value
            for each in [semantic] if isinstance(semantic, str) else semantic or []:
                semantics[each] = name

        for (rtype, number) in sorted(m.regs):
            key = (rtype, number)
            if self.pixel:
                if rtype == REG_COLOR_OUT:
                    put(f"oC{number}", key, f"COLOR{number}")
                elif rtype == REG_DEPTH_OUT:
                    put("oDepth", key, "DEPTH0")
            elif rtype == REG_RASTOUT:
                put(RASTOUT[number] if number < len(RASTOUT) else f"oRast{number}", key,
                    _RASTOUT_SEMANTICS[number] if number < len(RASTOUT) else None)
            elif rtype == REG_ATTR_OUT:
                put(f"oD{number}", key, f"COLOR{number}")
            elif rtype == REG_OUTPUT:
                if self.major >= 3:
                    put(f"o{number}", key, self.outputs.get(key))
                else:
                    put(f"oT{number}", key, f"TEXCOORD{number}")
        if self.pixel and self.major < 2:
            put("r0", (REG_TEMP, 0), "COLOR0")
        return registers, semantics


def _names(table: Any) -> list[str]:
    """The constant names of a CTAB (none without a table)."""
    return [c.name for c in table.constants] if table is not None else []


def _named(table: Any, name: str) -> Any:
    """The constant of ``table`` named ``name``; None without one (or without a table)."""
    if table is not None:
        for c in table.constants:
            if c.name == name:
                return c
    return None


def _layout(c: Any, name: str, value: Any) -> tuple[str, np.ndarray]:
    """The register set letter of CTAB constant ``c`` and ``value`` laid out in its registers:
    float/int rows of up to 4, or bools; matrices row- or column-major as the CTAB says."""
    from shaderkit.formats.d3dx.ctab import (
        CLASS_MATRIX_COLUMNS,
        CLASS_MATRIX_ROWS,
        CLASS_STRUCT,
        REGISTER_SETS,
    )

    letter = REGISTER_SETS.get(c.register_set, "c")
    if letter == "s":
        raise VMError(f"{name!r} is a sampler: bind a texture with texture()")
    t = c.type
    array = _numbers(name, value, letter)
    if t is None or t.klass == CLASS_STRUCT:  # registers as they are: rows of 4 (bools one by one)
        if letter != "b" and array.size % 4:
            raise VMError(f"{name!r} takes whole registers (a multiple of 4 values), got {array.size}")
        return letter, (array.reshape(-1, 4) if letter != "b" else array.reshape(-1))
    elements = max(t.elements, 1)
    try:
        grid = array.reshape(elements, t.rows, t.columns)
    except ValueError:
        raise VMError(f"{name!r} takes {elements * t.rows * t.columns} values "
                      f"({elements} x {t.rows}x{t.columns}), got {array.size}") from None
    if t.klass == CLASS_MATRIX_COLUMNS:
        grid = grid.transpose(0, 2, 1)
    elif t.klass != CLASS_MATRIX_ROWS:
        grid = grid.reshape(elements, 1, t.rows * t.columns)
    if letter == "b":
        return letter, grid.reshape(-1)
    flat = grid.reshape(-1, grid.shape[2])
    rows = np.zeros((len(flat), 4), flat.dtype)
    rows[:, : min(flat.shape[1], 4)] = flat[:, :4]
    return letter, rows


def _numbers(name: str, value: Any, letter: str) -> np.ndarray:
    """``value`` as the numbers of register set ``letter``: floats (``c``), or integers (``i``,
    ``b``: any finite number, truncated; bools nonzero); VMError for anything else."""
    try:
        array = np.asarray(value, np.float64)
    except (TypeError, ValueError):
        raise VMError(f"{name!r} takes numbers, got {value!r}") from None
    if letter == "c":
        return array
    if not np.all(np.isfinite(array)) or np.any(np.abs(array) >= 2.0**63):
        raise VMError(f"{name!r}: {letter} registers take finite numbers, got {value!r}")
    return array.astype(np.int64)


def _register_name(name: str) -> tuple[str, int] | None:
    """``c12`` -> ("c", 12); None for anything else."""
    letter, digits = name[:1].lower(), name[1:]
    if letter in "cibvt" and digits.isdigit() and len(name) > 1:
        return letter, int(digits)
    return None


"""Texture and vertex fetches: caller-given textures (decoded NumPy images) and buffers.

Textures are given as decoded texel values (GX2 surface formats, tiling and swizzles are not the
VM's business): a :class:`Texture` per resource id (TEX ``t<n>``) and a :class:`Sampler` per
sampler id (``s<n>``). Vertex buffers are given as the bytes in GPU memory (:class:`VertexBuffer`);
the fetch instruction's DATA_FORMAT, NUM_FORMAT_ALL, FORMAT_COMP_ALL and ENDIAN_SWAP decode them.
Uniform blocks (fetch buffers 128 and up) read the run's uniform-block values.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.isa.latte import table as T
from shaderkit.vm.latte.semantics import F32, I32, U32
from shaderkit.vm.sm4 import resources as R

if TYPE_CHECKING:
    from shaderkit.vm.latte.machine import Machine

#: Latte wrap modes and the SM4 VM's address modes they are (``resources.address`` applies them)
_ADDRESS_MODES = {"repeat": R.WRAP, "clamp": R.CLAMP, "mirror": R.MIRROR, "border": R.BORDER}
WRAPS = tuple(_ADDRESS_MODES)
FILTERS = ("nearest", "linear")
#: depth compare functions of SAMPLE_C* by their Latte names (the SM4 VM's comparisons)
COMPARES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    latte: R.COMPARISONS[d3d] for latte, d3d in (
        ("never", "never"), ("less", "less"), ("equal", "equal"), ("lequal", "less_equal"),
        ("greater", "greater"), ("notequal", "not_equal"), ("gequal", "greater_equal"), ("always", "always"))
}
KINDS = ("1d", "2d", "2d_array", "3d", "cube", "cube_array")
#: the kinds whose texels come in slices (layers, depth, cube faces): (S, H, W[, C]) arrays
LAYERED_KINDS = ("2d_array", "3d", "cube", "cube_array")


@dataclass
class Texture:
    """One texture resource: mip levels of decoded texels, each (slices, height, width, 4) float32.

    ``kind``: ``1d``, ``2d``, ``2d_array`` (slices = layers), ``3d`` (slices = depth), ``cube``
    (6 faces in the order +X, -X, +Y, -Y, +Z, -Z) or ``cube_array`` (6N faces: cube k's six
    faces, in that order, are slices 6k..6k+5, the layer-face order of GL and of Cemu's cube-map
    surfaces, whose depth is 6 x the cube count). Build one with :meth:`of`.
    """

    levels: list[np.ndarray]
    kind: str = "2d"

    @classmethod
    def of(cls, data: Any, kind: str = "2d") -> Texture:
        """A texture from an array or a list of mip arrays: (H, W), (H, W, C) for 1D/2D,
        (S, H, W[, C]) for arrays, 3D and cube maps (S = 6) and cube-map arrays (S = 6N); C of 1-4
        channels (missing ones read 0, alpha 1)."""
        if kind not in KINDS:
            raise ValueError(f"texture kind {kind!r}: expected one of {', '.join(KINDS)}")
        items = data if isinstance(data, (list, tuple)) else [data]
        levels = []
        for item in items:
            a = np.asarray(item, dtype=F32)
            layered = kind in LAYERED_KINDS
            if a.ndim == (3 if layered else 2):
                a = a[..., None]
            if not layered:
                a = a[None]
            if a.ndim != 4 or not 1 <= a.shape[-1] <= 4 or 0 in a.shape:
                raise ValueError(f"texture level of shape {np.asarray(item).shape} does not fit a {kind} texture")
            a = R._expand(a)
            if kind == "cube" and a.shape[0] != 6:
                raise ValueError("a cube texture needs 6 faces")
            if kind == "cube_array" and a.shape[0] % 6:
                raise ValueError(f"a cube_array texture needs 6 faces per cube, not {a.shape[0]}")
            levels.append(a)
        if not levels:
            raise ValueError("a texture needs at least one level")
        return cls(levels, kind)


@dataclass
class Sampler:
    """Sampler state: filter (``nearest``/``linear``, mip levels are picked nearest), wrap mode per
    axis (``repeat``, ``clamp`` to edge, ``mirror``, ``border``), border colour and the depth
    compare function of SAMPLE_C* (``lequal`` ...)."""

    filter: str = "nearest"
    wrap: tuple[str, str, str] = ("repeat", "repeat", "repeat")
    border: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    compare: str = "lequal"

    def __post_init__(self) -> None:
        if isinstance(self.wrap, str):
            self.wrap = (self.wrap, self.wrap, self.wrap)
        if self.filter not in FILTERS or any(w not in WRAPS for w in self.wrap) or self.compare not in COMPARES:
            raise ValueError(f"bad sampler {self}")


@dataclass
class VertexBuffer:
    """A fetch buffer: the bytes as in GPU memory (big-endian data on the Wii U; the instruction's
    ENDIAN_SWAP undoes it), the stride in bytes, and for fetches with USE_CONST_FIELDS the
    format (DATA_FORMAT value, NUM_FORMAT 0 norm / 1 int / 2 scaled, signed)."""

    data: bytes
    stride: int = 16
    format: tuple[int, int, bool] = (35, 0, False)
    offset: int = 0
    raw: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8), repr=False, compare=False)

    def __post_init__(self) -> None:
        self.raw = np.frombuffer(bytes(self.data), np.uint8)


# -- vertex fetch --------------------------------------------------------------------------------
#: the bits of the float constant 1.0
FLOAT_ONE_BITS = 0x3F800000


def one_bits(num_format: int, data_format: int) -> int:
    """The bits of the constant 1 of a fetch with this NUM_FORMAT / DATA_FORMAT: what DST_SEL 1
    and a component the format lacks (W) read. Integer 1 for the INT number format of an integer
    data format (its components stay integer bits, so its 1 does too); 1.0f for everything else.
    AMD's R600/R700 documents were not found in the reference search to confirm the INT case;
    this is the VM's documented choice, made here and nowhere else."""
    spec = T.DATA_FORMATS.get(data_format)
    is_float = spec is not None and spec[2]
    return 1 if T.NUM_FORMATS.get(num_format) == "INT" and not is_float else FLOAT_ONE_BITS


def vertex_data(m: Machine, f: Mapping[str, int], index: np.ndarray) -> tuple[list[np.ndarray], int]:
    """The (x, y, z, w) bits a FETCH reads for each lane's element ``index``, and the bits of
    the constant 1 of its (resolved) format (:func:`one_bits`) for DST_SEL 1."""
    from shaderkit.vm.latte.machine import VMError

    buffer_id = f["BUFFER_ID"]
    n = index.shape[0]
    if buffer_id >= T.UNIFORM_BLOCK_BUFFER_BASE:
        loc = buffer_id - T.UNIFORM_BLOCK_BUFFER_BASE
        block = m.env.blocks.get(loc)
        if block is None:
            raise VMError(f"fetch from uniform block {loc} (b{buffer_id}) but none was given")
        row = index.astype(np.int64) + f["OFFSET"] // 16
        ok = (row >= 0) & (row < block.shape[0])
        rows = block[np.clip(row, 0, max(block.shape[0] - 1, 0))] if block.shape[0] else np.zeros((n, 4), U32)
        rows = np.where(ok[:, None], rows, 0).astype(U32)
        # USE_CONST_FIELDS would take the format from the fetch constant, which is not modelled
        one = FLOAT_ONE_BITS if f["USE_CONST_FIELDS"] else one_bits(f["NUM_FORMAT_ALL"], f["DATA_FORMAT"])
        return [rows[:, c] for c in range(4)], one
    buf = m.env.buffers.get(buffer_id)
    if buf is None:
        raise VMError(f"fetch from buffer b{buffer_id} but none was given")
    if f["USE_CONST_FIELDS"]:
        data_format, num_format, signed = buf.format
    else:
        data_format, num_format, signed = f["DATA_FORMAT"], f["NUM_FORMAT_ALL"], bool(f["FORMAT_COMP_ALL"])
    spec = T.DATA_FORMATS.get(data_format)
    if spec is None:
        raise VMError(f"vertex fetch DATA_FORMAT {data_format} is not supported")
    _, widths, is_float = spec
    width = widths[0]
    size = width // 8 * len(widths)
    address = buf.offset + f["OFFSET"] + index.astype(np.int64) * buf.stride
    ok = (address >= 0) & (address + size <= buf.raw.shape[0])
    span = np.clip(address, 0, None)[:, None] + np.arange(size)
    raw = np.where(ok[:, None], buf.raw[np.clip(span, 0, max(buf.raw.shape[0] - 1, 0))] if buf.raw.shape[0]
                   else 0, 0).astype(np.uint8)
    swap = f["ENDIAN_SWAP"]
    if swap:
        unit = T.ENDIAN_SWAP_BYTES.get(swap)
        if unit is None:
            raise VMError(f"ENDIAN_SWAP {swap} is not supported")
        if size % unit:
            raise VMError(f"ENDIAN_SWAP {T.ENDIAN_SWAPS[swap]} on a {size}-byte element")
        raw = raw.reshape(n, size // unit, unit)[:, :, ::-1].reshape(n, size)
    comps = np.ascontiguousarray(raw).view({8: "<u1", 16: "<u2", 32: "<u4"}[width]).astype(np.uint32)
    out: list[np.ndarray] = []
    for c in range(len(widths)):
        v = comps[:, c]
        if is_float:
            out.append(v.astype(np.uint16).view(np.float16).astype(F32).view(U32) if width == 16 else v)
            continue
        sv = v.astype(np.int64)
        if signed:
            sv = np.where(sv >> (width - 1) & 1, sv - (1 << width), sv)
        if num_format == 1:
            out.append((sv & 0xFFFFFFFF).astype(U32))
        elif num_format == 2:
            out.append(sv.astype(F32).view(U32))
        else:
            scale = float((1 << (width - 1)) - 1 if signed else (1 << width) - 1)
            out.append(np.maximum(sv / scale, -1.0).astype(F32).view(U32))
    one = one_bits(num_format, data_format)
    while len(out) < 4:
        out.append(np.full(n, one, U32) if len(out) == 3 else np.zeros(n, U32))
    return out, one


# -- texture fetch -------------------------------------------------------------------------------
def _source(m: Machine, f: Mapping[str, int]) -> list[np.ndarray]:
    w = m.w
    reg = m.gpr_rel(f["SRC_GPR"], f["SRC_REL"])
    out = []
    for c in "XYZW":
        sel = f[f"SRC_SEL_{c}"]
        if sel < 4:
            out.append(w.gpr[reg, sel].view(F32))
        else:
            out.append(np.full(w.n, 1.0 if sel == T.SEL_1 else 0.0, F32))
    return out


def _wrap(i: np.ndarray, size: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Wrapped texel index and a mask of indexes inside (False only for border)."""
    index, outside = R.address(i, size, _ADDRESS_MODES[mode])
    return index, ~outside


def _taps(level: np.ndarray, sampler: Sampler, sl: np.ndarray, x: np.ndarray, y: np.ndarray
          ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(texels (n, 4), weight (n,)) of each tap at texel-space coordinates x, y of slice ``sl``."""
    height, width = level.shape[1:3]
    border = np.asarray(sampler.border, F32)
    if sampler.filter == "nearest":
        offsets = [(np.floor(x), np.floor(y), np.ones(x.shape, F32))]
    else:
        x0, y0 = np.floor(x - 0.5), np.floor(y - 0.5)
        fx, fy = (x - 0.5 - x0).astype(F32), (y - 0.5 - y0).astype(F32)
        offsets = [(x0, y0, (1 - fx) * (1 - fy)), (x0 + 1, y0, fx * (1 - fy)),
                   (x0, y0 + 1, (1 - fx) * fy), (x0 + 1, y0 + 1, fx * fy)]
    out = []
    for tx, ty, weight in offsets:
        ix, okx = _wrap(tx.astype(np.int64), width, sampler.wrap[0])
        iy, oky = _wrap(ty.astype(np.int64), height, sampler.wrap[1])
        texels = level[sl, iy, ix]
        inside = okx & oky
        out.append((np.where(inside[:, None], texels, border), weight.astype(F32)))
    return out


def _nearest(values: np.ndarray, count: int) -> np.ndarray:
    """Each value rounded to the nearest integer (ties to even, NaN 0) and clamped to 0..count-1."""
    return np.clip(np.rint(np.nan_to_num(values.astype(np.float64))), 0, count - 1).astype(np.int64)


def cube_slices(slices: int, face: np.ndarray, cube_index: np.ndarray | None) -> np.ndarray:
    """The slice of each lane's cube face (Z after CUBE + MULADD, rounded to the nearest face and
    clamped to 0-5) in cube ``cube_index`` (SET_CUBEMAP_INDEX's value, see
    :func:`set_cubemap_index`; None: cube 0) of a ``cube`` or ``cube_array`` level of ``slices``."""
    faces = _nearest(face, 6)
    return faces if cube_index is None else _nearest(cube_index, slices // 6) * 6 + faces


def sample(tex: Texture, sampler: Sampler, coords: list[np.ndarray], normalized: Sequence[bool],
           lod: np.ndarray, offsets: tuple[float, float, float], ref: np.ndarray | None,
           cube_index: np.ndarray | None = None, gather: bool = False) -> np.ndarray:
    """Filtered texels (n, 4) of ``tex`` at ``coords`` (x, y, z) with the mip level nearest ``lod``;
    ``cube_index``: each lane's cube of a cube map (:func:`cube_slices`); ``gather``: FETCH4's
    four texel X values instead (:data:`FETCH4_ORDER`)."""
    n = coords[0].shape[0]
    if gather:  # the texels bilinear filtering would weigh, whatever the sampler's filter
        sampler = dataclasses.replace(sampler, filter="linear")
    result = np.zeros((n, 4), F32)
    level_index = _nearest(lod, len(tex.levels))
    cube = tex.kind in ("cube", "cube_array")
    for li in np.unique(level_index):
        lanes = level_index == li
        level = tex.levels[int(li)]
        slices, height, width = level.shape[:3]
        x, y, z = (c[lanes].astype(np.float64) for c in coords)
        if cube:
            x, y = x - 1.0, y - 1.0  # CUBE + the compilers' MULADD put face coordinates in [1, 2]
        sx = x * width if normalized[0] else x
        sy = (y * height if normalized[1] else y) if tex.kind != "1d" else np.full(x.shape, 0.5)
        sx = sx + offsets[0]
        sy = sy + offsets[1]
        if tex.kind == "3d":
            sz = (z * slices if normalized[2] else z) + offsets[2]
            sl, _ = _wrap(np.floor(sz).astype(np.int64), slices, sampler.wrap[2])
        elif cube:
            sl = cube_slices(slices, z, None if cube_index is None else cube_index[lanes])
        elif tex.kind == "2d_array":
            sl = _nearest(z, slices)
        else:
            sl = np.zeros(x.shape, np.int64)
        taps = _taps(level, sampler, sl, sx, sy)
        if gather:
            result[lanes] = np.stack([taps[k][0][:, 0] for k in FETCH4_ORDER], axis=1)
            continue
        acc = np.zeros((int(lanes.sum()), 4), np.float64)
        for texels, weight in taps:
            if ref is not None:
                passed = COMPARES[sampler.compare](ref[lanes], texels[:, 0]).astype(F32)
                texels = np.repeat(passed[:, None], 4, axis=1)
            acc += texels * weight[:, None]
        result[lanes] = acc.astype(F32)
    return result


#: FETCH4 (gather4) returns the X component of the four texels bilinear filtering would weigh
#: at the coordinates, from mip level 0 (SAMPLE_KINDS: ``lz``), wrapped as the sampler says
#: (outside a border-mode texture: the border colour's X). Its result channels X, Y, Z, W as the
#: taps of ``_taps``' bilinear footprint, which come in the order (i0, j0), (i1, j0), (i0, j1),
#: (i1, j1) (i0 = floor(u - 0.5), j0 = floor(v - 0.5) in texels of level 0, i1 = i0 + 1,
#: j1 = j0 + 1; j0 the row nearer the first row of the texels): X = (i1, j0), Y = (i0, j1),
#: Z = (i1, j1), W = (i0, j0).
#:
#: Sources: Cemu's Latte decompiler (LatteDecompilerEmitGLSL.cpp) translates FETCH4 to GLSL
#: ``textureGather`` (component 0, the base level, no LOD) and reorders its result with its
#: ``fetchToGather`` table (X from gather's Z, Y from X, Z from Y, W from W); GL's gather
#: returns (T_i0j1, T_i1j1, T_i1j0, T_i0j0) (GLSL 4.x, 8.9.4). Mesa's r600 compiler
#: (r600_shader.c ``tgsi_tex``, TGSI TG4) reorders Evergreen's GATHER4 result the same way
#: (destination X from result Y, Y from Z, Z from X, W from W). The R700 encoding has no
#: component select (Evergreen's INST_MOD), so X is gathered. Coordinates, offsets, array layers
#: and cube faces (and SET_CUBEMAP_INDEX) are read as SAMPLE reads them. Refused on 1D
#: textures (Cemu writes 0 there, marked "todo - investigate what this returns on actual HW")
#: and 3D textures (GL has no 3D gather). Cemu's 0.0001-texel shift of 2D coordinates, a
#: workaround for rounding, is not modelled.
FETCH4_ORDER = (1, 2, 3, 0)


def _lod_from(tex: Texture, ddx: Sequence[np.ndarray], ddy: Sequence[np.ndarray]) -> np.ndarray:
    """The LOD of level 0's (width, height) from the x and y of the gradients ``ddx``/``ddy``."""
    level = tex.levels[0]
    size = np.array([level.shape[2], level.shape[1]], np.float64)
    return R.lod_from_gradients(np.stack([d.astype(np.float64) for d in ddx[:2]], axis=1),
                                np.stack([d.astype(np.float64) for d in ddy[:2]], axis=1), size)


def quad_gradients(values: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Horizontal and vertical differences in 2x2 quads of lanes (4k: top-left, 4k+1: top-right,
    4k+2: bottom-left, 4k+3: bottom-right); lanes past the last whole quad get 0."""
    hs, vs = [], []
    for v in values:
        n = v.shape[0]
        whole = n - n % 4
        q = v[:whole].reshape(-1, 4).astype(F32)
        h = np.zeros(n, F32)
        vv = np.zeros(n, F32)
        dx = np.stack([q[:, 1] - q[:, 0], q[:, 1] - q[:, 0], q[:, 3] - q[:, 2], q[:, 3] - q[:, 2]], 1)
        dy = np.stack([q[:, 2] - q[:, 0], q[:, 3] - q[:, 1], q[:, 2] - q[:, 0], q[:, 3] - q[:, 1]], 1)
        h[:whole] = dx.reshape(-1)
        vv[:whole] = dy.reshape(-1)
        hs.append(h)
        vs.append(vv)
    return hs, vs


#: sampling instructions: how the LOD is found (auto, l, lb, lz, g) and the source channel holding
#: the compare reference (None: not a compare). The compare samples read it from W, except those
#: with an LOD or bias, SAMPLE_C_L and SAMPLE_C_LB, whose W holds that LOD or bias and Z the
#: reference (coordinates in X and Y). Source: Mesa's r600 register header (r600d.h:
#: "SQ_TEX_INST_SAMPLE_C_L 0x19 /* src.xy = texcoord, src.y = array index (if needed), src.z =
#: depth, src.w = lod */", SAMPLE_C_LB likewise with "src.w = bias"), and its TGSI compiler, which
#: leaves the reference in Z only for these two. Those two run on 1D and 2D textures only: the
#: place of a layer or a third coordinate is not given for them.
SAMPLE_KINDS: dict[str, tuple[str, int | None]] = {
    "SAMPLE": ("auto", None), "SAMPLE_L": ("l", None), "SAMPLE_LB": ("lb", None), "SAMPLE_LZ": ("lz", None),
    "SAMPLE_G": ("g", None), "SAMPLE_G_LZ": ("lz", None), "SAMPLE_C": ("auto", 3),
    "SAMPLE_C_LZ": ("lz", 3), "SAMPLE_C_G": ("g", 3), "SAMPLE_C_G_LZ": ("lz", 3),
    "SAMPLE_C_L": ("l", 2), "SAMPLE_C_LB": ("lb", 2), "FETCH4": ("lz", None),
}
UNSUPPORTED_TEX = {
    "SAMPLE_G_L": "SAMPLE_G_L/_LB give both gradients and an LOD; the rule combining them is not documented",
    "SAMPLE_G_LB": "see SAMPLE_G_L",
    "SAMPLE_C_G_L": "the places of the compare reference and the LOD are not documented (SAMPLE_C_L's are)",
    "SAMPLE_C_G_LB": "see SAMPLE_C_G_L",
    "KEEP_GRADIENTS": "needs the hardware's gradient registers between instructions of other lanes",
    "GET_LERP": "the lerp-factor result is not documented",
    "GET_SAMPLE_INFO": "multisample surfaces are not modelled",
    "GET_COMP_TEX_LOD": "its channel order is not settled: Cemu writes (the level accessed, the computed LOD), GL's "
                        "textureQueryLod order; Mesa's r600 reads Evergreen's GET_LOD the other way round",
    "MEM": "memory reads are not modelled",
}


def set_cubemap_index(m: Machine, f: Mapping[str, int], src: list[np.ndarray], active: np.ndarray) -> None:
    """SET_CUBEMAP_INDEX: which cube of a cube-map array the later samples of texture
    RESOURCE_ID read, per lane.

    The rule, from a translator and a compiler of this instruction (AMD's R600/R700 ISA documents were not
    found in the reference search):

    * Cemu's Latte decompiler (LatteDecompilerEmitGLSL.cpp, ``_emitTEXSetCubemapIndexCode``)
      assigns the source's SRC_SEL_X component, read as a float, to a variable
      ``cubeMapArrayIndex<RESOURCE_ID>`` declared once per program as 0.0, and passes that
      variable as the layer of every later sample of the same texture unit, which it declares a
      ``samplerCubeArray`` (every cube map, a plain one too).
    * Mesa's r600 compiler (r600_shader.c ``tgsi_tex``) emits for a cube-array sample on chips
      before Evergreen (R600/R700, the Latte's family) a SET_CUBEMAP_INDEX with the float layer
      (a MOV of the coordinate's W) in source X, right before the sample; on Evergreen it folds the
      layer into the face instead (face + 8 x layer), so the instruction is the R600/R700 way.
    * GL and Vulkan round a cube-array layer to the nearest integer and clamp it to the cubes
      there are; the VM rounds half to even, as it does for ``2d_array`` layers (GL's
      floor(x + 0.5) differs only at exact halves).

    So: the index is the X-selected source component as a float, rounded to the nearest cube and
    clamped to the array's (a plain cube map is an array of one cube: the index has no effect). It
    is set for the active lanes only and holds for that resource id until the next
    SET_CUBEMAP_INDEX of it, for the rest of the program (Cemu's rule; how long the hardware keeps
    it is not documented, but Mesa and the compiler of the Wii U games set it before every sample,
    where both rules agree); before any, it is 0. The instruction reads no texture and writes no
    GPR. Decaf ignores it (its ``translateTex_SET_CUBEMAP_INDEX`` is an empty TODO), so it
    samples cube 0 where this VM, like Cemu, samples the cube the program chose.
    """
    index = m.w.cube_index.setdefault(f["RESOURCE_ID"], np.zeros(m.w.n, F32))
    index[active] = src[0][active]


def texture_instruction(m: Machine, name: str, f: Mapping[str, int], active: np.ndarray) -> None:
    """Run one TEX_INST over the ``active`` lanes."""
    from shaderkit.vm.latte.machine import VMError

    w = m.w
    dst = m.gpr_rel(f["DST_GPR"], f["DST_REL"])
    sels = [f[f"DST_SEL_{c}"] for c in "XYZW"]
    src = _source(m, f)
    if name in ("SET_GRADIENTS_H", "SET_GRADIENTS_V"):
        w.gradients[name[-1]] = np.stack(src)
        return
    if name == "PASS":
        m.write_fetch(dst, [s.view(U32) for s in src], sels, active)
        return
    if name == "SET_CUBEMAP_INDEX":
        set_cubemap_index(m, f, src, active)
        return
    if name in ("GET_GRADIENTS_H", "GET_GRADIENTS_V"):
        hs, vs = quad_gradients(src) if m.env.quads else ([np.zeros(w.n, F32)] * 4,) * 2
        chosen = hs if name.endswith("H") else vs
        m.write_fetch(dst, [c.view(U32) for c in chosen], sels, active)
        return
    if name in UNSUPPORTED_TEX or name == "UNKNOWN" or name not in SAMPLE_KINDS and name not in (
            "LD", "GET_TEXTURE_INFO"):
        raise VMError(f"texture instruction {name} cannot be executed: "
                      + UNSUPPORTED_TEX.get(name, "not a texture instruction the VM knows"))
    rid = f["RESOURCE_ID"]
    tex = m.env.textures.get(rid)
    if tex is None:
        raise VMError(f"{name} reads texture t{rid} but none was given")
    if name == "GET_TEXTURE_INFO":
        mip = np.clip(src[0].view(I32), 0, len(tex.levels) - 1)
        info = []
        for k in range(3):
            dims = np.array([[lev.shape[2], lev.shape[1], lev.shape[0]][k] for lev in tex.levels], np.int64)
            info.append(dims[mip].astype(I32).view(U32))
        info.append(np.full(w.n, len(tex.levels), U32))
        m.write_fetch(dst, info, sels, active)
        return
    if name == "LD":
        ints = [s.view(I32).astype(np.int64) for s in src]
        mips = np.clip(ints[3], 0, len(tex.levels) - 1)
        out = np.zeros((w.n, 4), F32)
        for li in np.unique(mips):
            lanes = mips == li
            level = tex.levels[int(li)]
            s_, h_, w_ = level.shape[:3]
            x = ints[0][lanes] + math.floor(T.tex_fixed("OFFSET_X", f["OFFSET_X"]))
            y = ints[1][lanes] + math.floor(T.tex_fixed("OFFSET_Y", f["OFFSET_Y"]))
            z = ints[2][lanes] if tex.kind in LAYERED_KINDS else np.zeros_like(x)
            ok = (x >= 0) & (x < w_) & (y >= 0) & (y < h_) & (z >= 0) & (z < s_)
            texels = level[np.clip(z, 0, s_ - 1), np.clip(y, 0, h_ - 1), np.clip(x, 0, w_ - 1)]
            out[lanes] = np.where(ok[:, None], texels, 0)
        m.write_fetch(dst, [out[:, c].view(U32) for c in range(4)], sels, active)
        return
    mode, refchan = SAMPLE_KINDS[name]
    if name == "FETCH4" and tex.kind in ("1d", "3d"):
        raise VMError(f"FETCH4 on a {tex.kind} texture: what it returns is not documented")
    if refchan == 2 and tex.kind not in ("1d", "2d"):
        raise VMError(f"{name} on a {tex.kind} texture: where its layer or third coordinate is read "
                      "is not documented")
    sampler = m.env.samplers.get(f["SAMPLER_ID"]) or Sampler()
    bias = T.tex_fixed("LOD_BIAS", f["LOD_BIAS"])
    lod: np.ndarray
    if mode == "lz":
        lod = np.zeros(w.n)
    elif mode == "l":
        lod = src[3].astype(np.float64) + bias
    else:
        if mode == "g":
            gh = w.gradients.get("H")
            gv = w.gradients.get("V")
            if gh is None or gv is None:
                raise VMError(f"{name} before SET_GRADIENTS_H and SET_GRADIENTS_V")
            lod = _lod_from(tex, list(gh), list(gv))
        elif m.env.quads:
            hs, vs = quad_gradients(src[:2])
            lod = _lod_from(tex, hs, vs)
        else:
            lod = np.zeros(w.n)
        lod = np.where(np.isfinite(lod), lod, 0.0) + bias
        if mode == "lb":
            lod = lod + src[3].astype(np.float64)
    normalized = [bool(f[f"COORD_TYPE_{c}"]) for c in "XYZ"]
    offsets = (T.tex_fixed("OFFSET_X", f["OFFSET_X"]), T.tex_fixed("OFFSET_Y", f["OFFSET_Y"]),
               T.tex_fixed("OFFSET_Z", f["OFFSET_Z"]))
    ref = None if refchan is None else src[refchan]  # SAMPLE_C_L/LB: 1D/2D, which read no Z coordinate
    texels = sample(tex, sampler, src[:3], normalized, lod, offsets, ref, w.cube_index.get(rid), name == "FETCH4")
    m.write_fetch(dst, [np.ascontiguousarray(texels[:, c]).view(U32) for c in range(4)], sels, active)

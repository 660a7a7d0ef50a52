"""Resource instructions of the SM4/SM5 VM: sample, gather, ld, buffers, UAVs, groupshared, atomics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.isa.sm4.model import Instruction, Operand
from shaderkit.isa.sm4.opcodes import OPCODES, OperandType
from shaderkit.vm.sm4.alu import FLOAT, INT, UINT, flush
from shaderkit.vm.sm4.resources import (
    BORDER,
    COMPARISONS,
    CUBE_FACE_BASES,
    Buffer,
    Sampler,
    Texture,
    address,
    cube_face,
    lod_from_gradients,
)

if TYPE_CHECKING:
    from shaderkit.vm.sm4.machine import Machine

OT = OperandType
_DEFAULT_SAMPLER = Sampler()

# operand roles after the destination (and the status destination of the *_s forms)
_SAMPLE_ROLES: dict[str, tuple[str, ...]] = {
    "sample": ("addr", "t", "s"),
    "sample_b": ("addr", "t", "s", "bias"),
    "sample_l": ("addr", "t", "s", "lod"),
    "sample_d": ("addr", "t", "s", "ddx", "ddy"),
    "sample_c": ("addr", "t", "s", "ref"),
    "sample_c_lz": ("addr", "t", "s", "ref"),
    "sample_cl_s": ("addr", "t", "s", "clamp"),
    "sample_b_cl_s": ("addr", "t", "s", "bias", "clamp"),
    "sample_d_cl_s": ("addr", "t", "s", "ddx", "ddy", "clamp"),
    "sample_c_cl_s": ("addr", "t", "s", "ref", "clamp"),
    "sample_l_s": ("addr", "t", "s", "lod"),
    "sample_c_lz_s": ("addr", "t", "s", "ref"),
    "gather4": ("addr", "t", "s"),
    "gather4_c": ("addr", "t", "s", "ref"),
    "gather4_po": ("addr", "offset", "t", "s"),
    "gather4_po_c": ("addr", "offset", "t", "s", "ref"),
    "gather4_s": ("addr", "t", "s"),
    "gather4_c_s": ("addr", "t", "s", "ref"),
    "gather4_po_s": ("addr", "offset", "t", "s"),
    "gather4_po_c_s": ("addr", "offset", "t", "s", "ref"),
    "lod": ("addr", "t", "s"),
}


def _roles(ins: Instruction, roles: tuple[str, ...], status: bool) -> dict[str, Operand]:
    first = 2 if status else 1
    return dict(zip(roles, ins.operands[first:]))


def _spatial(dimension: str) -> tuple[int, bool]:
    """Coordinate components that address texels, and whether an array index follows."""
    if dimension in ("buffer", "texture1d"):
        return 1, False
    if dimension == "texture1darray":
        return 1, True
    if dimension in ("texture2d", "texture2dms"):
        return 2, False
    if dimension in ("texture2darray", "texture2dmsarray"):
        return 2, True
    if dimension == "texture3d":
        return 3, False
    if dimension == "texturecube":
        return 3, False
    if dimension == "texturecubearray":
        return 3, True
    return 2, False


def _texture(m: Machine, op: Operand) -> Texture:
    """The bound texture; an unbound one reads as zeros and drops writes, as in D3D11."""
    slot = _register(op)
    uav = op.type == OT.UNORDERED_ACCESS_VIEW
    store = m.uav_textures if uav else m.textures
    tex = store.get(slot)
    if tex is None:
        dim = (m.decl.uav_dimensions.get(slot) if uav else m.decl.resources.get(slot, ("texture2d", ""))[0]) or "texture2d"
        dim = dim if dim not in ("unknown", "buffer", "raw_buffer", "structured_buffer") else "texture2d"
        ret = "float" if uav else m.decl.resources.get(slot, ("", "float"))[1]
        dtype = np.int32 if ret == "sint" else np.uint32 if ret == "uint" else np.float32
        layers = 6 if dim.startswith("texturecube") else 1
        zeros = np.zeros((layers, 1, 1, 1, 4), dtype)
        tex = Texture([zeros], dim)
        tex.unbound = True
    return tex


def _register(op: Operand) -> int:
    """t/s/u/g register of an operand (SM5.1: range id first, then the register)."""
    return op.indices[1].value if len(op.indices) >= 2 else op.indices[0].value


def _error(message: str) -> Exception:
    from shaderkit.vm.sm4.machine import VmError

    return VmError(message)


def _finish(m: Machine, ins: Instruction, resource: Operand, values: np.ndarray, active: np.ndarray,
            status: bool, kind: str = FLOAT) -> None:
    """Apply the resource operand's swizzle, write the destination (and a fully-mapped status)."""
    if values.dtype == np.float32:
        bits = values.view(np.uint32)
    elif values.dtype == np.int32:
        bits = values.view(np.uint32)
    else:
        bits = values.astype(np.uint32)
    if resource.selection_mode == 1:
        bits = bits[:, list(resource.swizzle)]
    elif resource.selection_mode == 2:
        bits = np.repeat(bits[:, resource.component_bits & 3][:, None], 4, axis=1)
    m.write(ins.operands[0], np.ascontiguousarray(bits), active, ins.saturate, kind)
    if status:
        m.write(ins.operands[1], np.zeros((m.n, 4), np.uint32), active)


# -- texel access --------------------------------------------------------------------------------


def _off_face(coord: np.ndarray, size: int) -> np.ndarray:
    return (coord < 0) | (coord >= size)


def _cube_edges(layer: np.ndarray, x: np.ndarray, y: np.ndarray, size: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A bilinear footprint's texel that falls off its cube face over one edge is the texel of the
    adjacent face there (D3D10+ filters cube maps seamlessly): (layer, x, y), with the direction
    of the texel's centre run through the major-axis rule again. A texel off both ways (a corner:
    no face holds it) is left to :func:`_fill_corners`."""
    edge = _off_face(x, size) ^ _off_face(y, size)
    if not edge.any():
        return layer, x, y
    face = layer[edge] % 6
    s = (x[edge] + 0.5) / size * 2 - 1
    t = (y[edge] + 0.5) / size * 2 - 1
    basis = CUBE_FACE_BASES[face]
    direction = basis[:, 0] + s[:, None] * basis[:, 1] + t[:, None] * basis[:, 2]
    new_face, u, v = cube_face(direction)
    layer, x, y = layer.copy(), x.copy(), y.copy()
    layer[edge] = layer[edge] - face + new_face
    x[edge] = np.clip(np.floor(u * size), 0, size - 1).astype(np.int64)
    y[edge] = np.clip(np.floor(v * size), 0, size - 1).astype(np.int64)
    return layer, x, y


def _fill_corners(texels: list[np.ndarray], footprint: list[tuple[np.ndarray, np.ndarray]], size: int) -> None:
    """The texel of a cube corner (its ``footprint`` coordinates off the face both ways), which no
    face holds, is the average of the footprint's three others (D3D10's rule)."""
    for k, (x, y) in enumerate(footprint):
        corner = _off_face(x, size) & _off_face(y, size)
        if corner.any():
            others = [texels[j][corner].astype(np.float64) for j in range(4) if j != k]
            texels[k][corner] = (sum(others) / 3).astype(texels[k].dtype)


def _fetch(tex: Texture, level: int, layer: np.ndarray, ints: list[np.ndarray], sampler: Sampler | None,
           offsets: tuple[int, ...] = (0, 0, 0)) -> np.ndarray:
    """Texels (lanes, 4) at integer coordinates; sampler address modes (a cube's footprint crosses
    onto the adjacent face), or 0 outside for loads."""
    data = tex.levels[level]
    layers, depth, height, width, _ = data.shape
    sizes = (width, height, depth)
    if sampler is not None and sampler.seamless and tex.is_cube and len(ints) == 2:
        layer, x, y = _cube_edges(layer, ints[0] + offsets[0], ints[1] + offsets[1], width)
        ints, offsets = [x, y], (0, 0, 0)
    idx = [np.zeros_like(layer) for _ in range(3)]
    outside = np.zeros(layer.shape, bool)
    for axis, coord in enumerate(ints):
        coord = coord + offsets[axis]
        if sampler is None:
            outside |= (coord < 0) | (coord >= sizes[axis])
            idx[axis] = np.clip(coord, 0, sizes[axis] - 1)
        else:
            idx[axis], out = address(coord, sizes[axis], sampler.address[axis])
            outside |= out
    safe_layer = np.clip(layer, 0, layers - 1)
    if sampler is None:
        outside |= (layer < 0) | (layer >= layers)
    texels = data[safe_layer, idx[2], idx[1], idx[0]]
    if outside.any():
        if sampler is not None and BORDER in sampler.address:
            border = np.array(sampler.border_color, dtype=texels.dtype)
            texels = np.where(outside[:, None], border, texels)
        else:
            texels = np.where(outside[:, None], np.zeros((), texels.dtype), texels)
    return texels


def _sample_level(tex: Texture, sampler: Sampler, level: int, layer: np.ndarray, coords: np.ndarray,
                  offsets: tuple[int, ...], ref: np.ndarray | None) -> np.ndarray:
    data = tex.levels[level]
    sizes = (data.shape[3], data.shape[2], data.shape[1])
    dims = coords.shape[1]
    compare = COMPARISONS.get(sampler.comparison) if ref is not None else None

    def texel(ints: list[np.ndarray]) -> np.ndarray:
        t = _fetch(tex, level, layer, ints, sampler, offsets).astype(np.float32)
        if compare is not None and ref is not None:
            passed = compare(ref, t[:, 0]).astype(np.float32)
            return np.repeat(passed[:, None], 4, axis=1)
        return t

    with np.errstate(all="ignore"):
        scaled = [coords[:, a].astype(np.float64) * sizes[a] for a in range(dims)]
        if sampler.filter == "point":
            return texel([np.floor(s).astype(np.int64) for s in scaled])
        base = [np.floor(s - 0.5) for s in scaled]
        frac = [(s - 0.5 - b).astype(np.float32) for s, b in zip(scaled, base)]
        ints = [b.astype(np.int64) for b in base]
    cube = sampler.seamless and tex.is_cube
    weights, texels, footprint = [], [], []
    for corner in range(1 << dims):
        weight = np.ones(len(layer), np.float32)
        at = []
        for a in range(dims):
            bit = corner >> a & 1
            weight = weight * (frac[a] if bit else np.float32(1) - frac[a])
            at.append(ints[a] + bit)
        weights.append(weight)
        texels.append(texel(at))
        if cube:
            footprint.append((at[0], at[1]))
    if cube:
        _fill_corners(texels, footprint, sizes[0])
    total = np.zeros((len(layer), 4), np.float32)
    for weight, values in zip(weights, texels):
        total = total + weight[:, None] * values
    return total


def _coords(tex: Texture, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(layer per lane, normalized coordinates (lanes, d)) for sampling."""
    dims, array = _spatial(tex.dimension)
    f = addr.view(np.float32)
    if tex.is_cube:
        face, u, v = cube_face(f[:, :3].astype(np.float64))
        cube = np.rint(f[:, 3]).astype(np.int64) if array else np.zeros(len(f), np.int64)
        return cube * 6 + face, np.stack([u, v], axis=1).astype(np.float32)
    layer = np.rint(np.nan_to_num(f[:, dims])).astype(np.int64) if array else np.zeros(len(f), np.int64)
    return layer, f[:, :dims]


def _lod(m: Machine, tex: Texture, coords: np.ndarray, ddx: np.ndarray | None = None,
         ddy: np.ndarray | None = None) -> np.ndarray:
    """Unclamped level of detail per lane: from explicit gradients, quad derivatives, or 0."""
    return gradient_lod(tex, coords, ddx, ddy, m.shader.stage == "pixel" and m.quads)


def gradient_lod(tex: Texture, coords: np.ndarray, ddx: np.ndarray | None = None, ddy: np.ndarray | None = None,
                 quads: bool = False) -> np.ndarray:
    """Unclamped level of detail per lane: log2 of the longer gradient in texels, the gradients
    given or (``quads``: lanes in 2x2 quads, top-left, top-right, bottom-left, bottom-right)
    taken across each quad from its top-left lane; -inf (the most detailed level) otherwise."""
    size = np.array(tex.size(0)[: coords.shape[1]], np.float64)
    if ddx is None or ddy is None:
        if not quads:
            return np.full(len(coords), -np.inf)
        q = coords.astype(np.float64).reshape(-1, 4, coords.shape[1])
        ddx = np.repeat(q[:, 1] - q[:, 0], 4, axis=0)
        ddy = np.repeat(q[:, 2] - q[:, 0], 4, axis=0)
    return lod_from_gradients(ddx, ddy, size)


def _sample(tex: Texture, sampler: Sampler, layer: np.ndarray, coords: np.ndarray, lod: np.ndarray,
            offsets: tuple[int, ...], ref: np.ndarray | None) -> np.ndarray:
    top = len(tex.levels) - 1
    with np.errstate(invalid="ignore"):
        lod = np.clip(np.nan_to_num(lod, nan=0.0, neginf=-1e9, posinf=1e9) + sampler.mip_lod_bias,
                      max(sampler.min_lod, 0.0), min(sampler.max_lod, top))
    if sampler.mip_filter == "point" or top == 0:
        level = np.floor(lod + 0.5).astype(np.int64) if sampler.mip_filter == "point" else np.zeros(len(lod), np.int64)
        out = np.zeros((len(lod), 4), np.float32)
        for lv in np.unique(level):
            lanes = level == lv
            out[lanes] = _sample_level(tex, sampler, int(lv), layer[lanes], coords[lanes], offsets,
                                       None if ref is None else ref[lanes])
        return out
    low = np.floor(lod).astype(np.int64)
    frac = (lod - low).astype(np.float32)
    out = np.zeros((len(lod), 4), np.float32)
    for lv in np.unique(low):
        lanes = low == lv
        a = _sample_level(tex, sampler, int(lv), layer[lanes], coords[lanes], offsets, None if ref is None else ref[lanes])
        upper = min(int(lv) + 1, top)
        b = _sample_level(tex, sampler, upper, layer[lanes], coords[lanes], offsets, None if ref is None else ref[lanes])
        out[lanes] = a + frac[lanes, None] * (b - a)
    return out


def sample_texture(tex: Texture, sampler: Sampler, addr: np.ndarray, lod: np.ndarray | None = None,
                   ddx: np.ndarray | None = None, ddy: np.ndarray | None = None, quads: bool = False,
                   bias: np.ndarray | None = None) -> np.ndarray:
    """Filtered texels (lanes, 4) of ``tex`` at float32 coordinates ``addr`` (lanes, >= 3;
    normalized, cube directions for cubes), the sampling of ``sample``/``sample_l``/``sample_d``/
    ``sample_b``: at the unclamped level of detail ``lod`` per lane if given, else the one of the
    gradients ``ddx``/``ddy`` (lanes, >= dimensions) or, without them, of :func:`gradient_lod`
    (``quads``: across each 2x2 quad of lanes), plus ``bias``; the sampler's bias and clamps
    applied after. The coordinates (and cube faces) are worked out once."""
    layer, coords = _coords(tex, np.ascontiguousarray(addr, np.float32))
    if lod is None:
        if ddx is not None and ddy is not None:
            dims = coords.shape[1]
            lod = gradient_lod(tex, coords, np.asarray(ddx)[:, :dims].astype(np.float64),
                               np.asarray(ddy)[:, :dims].astype(np.float64))
        else:
            lod = gradient_lod(tex, coords, quads=quads)
        if bias is not None:
            lod = lod + bias
    return _sample(tex, sampler, layer, coords, np.asarray(lod, np.float64), (0, 0, 0), None)


def _sampler(m: Machine, op: Operand) -> Sampler:
    slot = _register(op)
    return m.samplers.get(slot, _DEFAULT_SAMPLER)


def _sample_op(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = OPCODES[ins.opcode].name
    status = name.endswith("_s")
    ops = _roles(ins, _SAMPLE_ROLES[name], status)
    tex = _texture(m, ops["t"])
    sampler = _sampler(m, ops["s"])
    addr = m.read(ops["addr"], FLOAT)
    layer, coords = _coords(tex, addr)
    offsets = ins.sample_offsets or (0, 0, 0)
    ref = m.read(ops["ref"], FLOAT).view(np.float32)[:, 0] if "ref" in ops else None
    if name.startswith("gather4"):
        _gather(m, ins, ops, tex, sampler, layer, coords, offsets, ref, active, status)
        return
    if "lod" in ops:
        lod = m.read(ops["lod"], FLOAT).view(np.float32)[:, 0].astype(np.float64)
    elif "_lz" in name:
        lod = np.zeros(m.n)
    elif "ddx" in ops:
        dims = coords.shape[1]
        ddx = m.read(ops["ddx"], FLOAT).view(np.float32)[:, :dims].astype(np.float64)
        ddy = m.read(ops["ddy"], FLOAT).view(np.float32)[:, :dims].astype(np.float64)
        lod = _lod(m, tex, coords, ddx, ddy)
    else:
        lod = _lod(m, tex, coords)
    if "bias" in ops:
        lod = lod + m.read(ops["bias"], FLOAT).view(np.float32)[:, 0]
    if "clamp" in ops:
        lod = np.maximum(lod, m.read(ops["clamp"], FLOAT).view(np.float32)[:, 0])
    if name == "lod":
        top = len(tex.levels) - 1
        clamped = np.clip(np.nan_to_num(lod, neginf=0.0), 0, top).astype(np.float32)
        out = np.stack([clamped, lod.astype(np.float32), np.zeros(m.n, np.float32), np.zeros(m.n, np.float32)], axis=1)
        _finish(m, ins, ops["t"], out, active, False)
        return
    values = _sample(tex, sampler, layer, coords, lod, offsets, ref)
    if ref is not None:
        values[:, 1:] = 0
    _finish(m, ins, ops["t"], flush(values), active, status)


def _gather(m: Machine, ins: Instruction, ops: dict[str, Operand], tex: Texture, sampler: Sampler,
            layer: np.ndarray, coords: np.ndarray, offsets: tuple[int, ...], ref: np.ndarray | None,
            active: np.ndarray, status: bool) -> None:
    s = ops["s"]
    channel = s.component_bits & 3 if s.selection_mode == 2 else (s.swizzle[0] if s.selection_mode == 1 else 0)
    extra = np.zeros((m.n, 2), np.int64)
    if "offset" in ops:
        extra = m.read(ops["offset"], INT).view(np.int32)[:, :2].astype(np.int64)
        extra = ((extra + 32) & 63) - 32  # the low 6 bits, signed
    out = gather_texels(tex, sampler, layer, coords, [offsets[a] + extra[:, a] for a in range(2)], channel, ref)
    resource = ops["t"]
    _finish(m, ins, resource, out if tex.levels[0].dtype == np.float32 else out.astype(tex.levels[0].dtype), active, status)


def _ld(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = OPCODES[ins.opcode].name
    status = name.endswith("_s")
    first = 2 if status else 1
    addr_op, res = ins.operands[first], ins.operands[first + 1]
    addr = m.read(addr_op, INT).view(np.int32).astype(np.int64)
    slot = _register(res)
    if name.startswith("ld_uav_typed"):
        buf = m.buffers.get((OT.UNORDERED_ACCESS_VIEW, slot))
        if buf is not None and buf.typed is not None:
            _finish(m, ins, res, _typed_load(buf, addr[:, 0]), active, status, UINT)
            return
        tex = _texture(m, res)
        dims, array = _spatial(tex.dimension)
        layer = addr[:, dims] if array else np.zeros(m.n, np.int64)
        values = _fetch(tex, 0, layer, [addr[:, a] for a in range(dims)], None)
        _finish(m, ins, res, np.ascontiguousarray(values), active, status, UINT)
        return
    buf = m.buffers.get((OT.RESOURCE, slot))
    if buf is not None and buf.typed is not None:
        _finish(m, ins, res, _typed_load(buf, addr[:, 0]), active, status, UINT)
        return
    tex = _texture(m, res)
    dims, array = _spatial(tex.dimension)
    layer = addr[:, dims] if array else np.zeros(m.n, np.int64)
    ms = name.startswith("ldms")
    mip_at = dims + (1 if array else 0)
    level = np.zeros(m.n, np.int64) if ms or tex.dimension == "buffer" else addr[:, mip_at]
    offsets = ins.sample_offsets or (0, 0, 0)
    out = np.zeros((m.n, 4), tex.levels[0].dtype)
    for lv in np.unique(level):
        lanes = level == lv
        if 0 <= lv < len(tex.levels):
            out[lanes] = _fetch(tex, int(lv), layer[lanes], [addr[lanes, a] for a in range(dims)], None, offsets)
    _finish(m, ins, res, out, active, status, UINT)


def _typed_load(buf: Buffer, index: np.ndarray) -> np.ndarray:
    assert buf.typed is not None
    ok = (index >= 0) & (index < len(buf.typed))
    values = buf.typed[np.where(ok, index, 0)]
    return np.where(ok[:, None], values, np.uint32(0))


def _resinfo(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    mip = m.read(ins.operands[1], UINT)[:, 0].astype(np.int64)
    res = ins.operands[2]
    tex = _texture(m, res)
    mode = ins.controls & 3  # 0 float, 1 rcpFloat, 2 uint
    out = np.zeros((m.n, 4), np.float64)
    levels = 0 if tex.unbound else len(tex.levels)
    dims, array = _spatial(tex.dimension)
    for i in range(m.n if levels else 0):
        lv = int(mip[i])
        if lv >= levels:
            continue
        w, h, d = tex.size(lv)
        third = tex.layers if array else d
        row = [w, h if dims >= 2 or array else 0, third if (dims == 3 or array) else 0]
        if dims == 1 and array:
            row = [w, tex.layers, 0]
        out[i, :3] = row
    out[:, 3] = levels
    if mode == 2:
        bits = out.astype(np.uint32)
    else:
        with np.errstate(divide="ignore"):
            f = out.astype(np.float32)
            if mode == 1:
                f[:, :3] = np.where(f[:, :3] != 0, np.float32(1) / f[:, :3], 0)
        bits = f.view(np.uint32)
    _finish(m, ins, res, bits, active, False, UINT if mode == 2 else FLOAT)


def _bufinfo(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    res = ins.operands[1]
    slot = _register(res)
    buf = m.buffers.get((res.type, slot))
    if buf is None:  # unbound: 0 elements
        m.write(ins.operands[0], np.zeros((m.n, 4), np.uint32), active)
        return
    if buf.typed is not None:
        count = len(buf.typed)
    elif buf.stride:
        count = len(buf.words) * 4 // buf.stride
    else:
        count = len(buf.words) * 4
    m.write(ins.operands[0], np.full((m.n, 4), count, np.uint32), active)


def _sampleinfo(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    """x = sample count (yzw 0), then the resource operand's swizzle; ``_uint`` is bit 0 of the controls."""
    res = ins.operands[1]
    samples = _texture(m, res).samples if res.type == OT.RESOURCE else 1
    out = np.zeros((m.n, 4), np.uint32)
    out[:, 0] = samples if ins.controls & 1 else np.float32(samples).view(np.uint32)
    _finish(m, ins, res, out, active, False, UINT if ins.controls & 1 else FLOAT)


def _samplepos(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    m.write(ins.operands[0], np.zeros((m.n, 4), np.uint32), active)


# -- buffers, UAVs and groupshared memory ---------------------------------------------------------------


def _words(m: Machine, op: Operand) -> tuple[np.ndarray, int, bool]:
    """(word array, stride in bytes or 0, per-group) of a buffer-like operand."""
    reg = _register(op)
    if op.type == OT.THREAD_GROUP_SHARED_MEMORY:
        stride, words = m.decl.tgsm.get(reg, (0, 0))
        store = m.tgsm.get(reg)
        if store is None:
            store = m.tgsm[reg] = np.zeros((m.group_count, words), np.uint32)
        return store, stride, True
    buf = m.buffers.get((op.type, reg))
    if buf is None:  # unbound: reads give 0, writes are dropped (D3D11)
        return np.zeros(0, np.uint32), m.decl.structured.get((op.type, reg), 0), False
    return buf.words, buf.stride or m.decl.structured.get((op.type, reg), 0), False


def _word_index(m: Machine, ins: Instruction, name: str, at: int) -> tuple[np.ndarray, Operand]:
    """Word address per lane of a structured or raw access, and the resource operand."""
    if "structured" in name:
        index = m.read(ins.operands[at], UINT)[:, 0].astype(np.int64)
        offset = m.read(ins.operands[at + 1], UINT)[:, 0].astype(np.int64)
        res = ins.operands[at + 2]
        stride = _words(m, res)[1]
        return index * stride // 4 + offset // 4, res
    offset = m.read(ins.operands[at], UINT)[:, 0].astype(np.int64)
    return offset // 4, ins.operands[at + 1]


def _load_words(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = OPCODES[ins.opcode].name
    status = name.endswith("_s")
    base, res = _word_index(m, ins, name, 2 if status else 1)
    store, _, per_group = _words(m, res)
    swz = res.swizzle if res.selection_mode == 1 else (0, 1, 2, 3)
    out = np.zeros((m.n, 4), np.uint32)
    flat = store.reshape(-1) if not per_group else store
    size = store.shape[-1] if per_group else len(flat)
    for c in range(4 if size else 0):  # an unbound view (size 0) reads zeros
        addr = base + swz[c]
        ok = (addr >= 0) & (addr < size)
        safe = np.where(ok, addr, 0)
        vals = flat[m.groups, safe] if per_group else flat[safe]
        out[:, c] = np.where(ok, vals, 0)
    m.write(ins.operands[0], out, active)
    if status:
        m.write(ins.operands[1], np.zeros((m.n, 4), np.uint32), active)


def _store_words(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = OPCODES[ins.opcode].name
    res = ins.operands[0]
    if "structured" in name:
        index = m.read(ins.operands[1], UINT)[:, 0].astype(np.int64)
        offset = m.read(ins.operands[2], UINT)[:, 0].astype(np.int64)
        store, stride, per_group = _words(m, res)
        base = index * stride // 4 + offset // 4
        value = m.read(ins.operands[3], UINT)
    else:
        base = m.read(ins.operands[1], UINT)[:, 0].astype(np.int64) // 4
        store, _, per_group = _words(m, res)
        value = m.read(ins.operands[2], UINT)
    mask = res.mask if res.selection_mode == 0 else 0xF
    lanes = np.nonzero(active)[0]
    size = store.shape[-1]
    for k, c in enumerate(c for c in range(4) if mask >> c & 1):
        addr = base[lanes] + k
        ok = (addr >= 0) & (addr < size)
        sel = lanes[ok]
        if per_group:
            store[m.groups[sel], addr[ok]] = value[sel, c]
        else:
            store[addr[ok]] = value[sel, c]


def _store_typed(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    res = ins.operands[0]
    addr = m.read(ins.operands[1], UINT).astype(np.int64)
    value = m.read(ins.operands[2], UINT)
    slot = _register(res)
    lanes = np.nonzero(active)[0]
    buf = m.buffers.get((OT.UNORDERED_ACCESS_VIEW, slot))
    if buf is not None and buf.typed is not None:
        ok = lanes[(addr[lanes, 0] >= 0) & (addr[lanes, 0] < len(buf.typed))]
        buf.typed[addr[ok, 0]] = value[ok]
        return
    tex = _texture(m, res)
    data = tex.levels[0]
    dims, array = _spatial(tex.dimension)
    layers, depth, height, width, _ = data.shape
    sizes = (width, height, depth)
    idx = [np.zeros(len(lanes), np.int64) for _ in range(3)]
    ok = np.ones(len(lanes), bool)
    for a in range(dims):
        idx[a] = addr[lanes, a]
        ok &= (idx[a] >= 0) & (idx[a] < sizes[a])
    layer = addr[lanes, dims] if array else np.zeros(len(lanes), np.int64)
    ok &= (layer >= 0) & (layer < layers)
    bits = value[lanes[ok]]
    target = data.view(np.uint32) if data.dtype != np.uint32 else data
    target[layer[ok], idx[2][ok], idx[1][ok], idx[0][ok]] = bits


_ATOMIC = {
    "iadd": lambda old, v, c: (old + v) & 0xFFFFFFFF,
    "and": lambda old, v, c: old & v,
    "or": lambda old, v, c: old | v,
    "xor": lambda old, v, c: old ^ v,
    "imax": lambda old, v, c: max(_s32(old), _s32(v)) & 0xFFFFFFFF,
    "imin": lambda old, v, c: min(_s32(old), _s32(v)) & 0xFFFFFFFF,
    "umax": lambda old, v, c: max(old, v),
    "umin": lambda old, v, c: min(old, v),
    "exch": lambda old, v, c: v,
    "cmp_exch": lambda old, v, c: v if old == c else old,
    "cmp_store": lambda old, v, c: v if old == c else old,
}


def _s32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _atomic(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = OPCODES[ins.opcode].name
    immediate = name.startswith("imm_")
    kind = name.split("atomic_", 1)[1]
    ops = ins.operands
    if kind in ("alloc", "consume"):
        res = ops[1]
        slot = _register(res)
        buf = m.buffers.get((OT.UNORDERED_ACCESS_VIEW, slot))
        out = np.zeros((m.n, 4), np.uint32)
        if buf is None:  # unbound: the counter reads 0
            m.write(ops[0], out, active)
            return
        # the hidden counter is a uint32: consume below 0 wraps (D3D leaves the result undefined)
        for lane in np.nonzero(active)[0]:
            if kind == "alloc":
                out[lane] = buf.counter
                buf.counter = (buf.counter + 1) & 0xFFFFFFFF
            else:
                buf.counter = (buf.counter - 1) & 0xFFFFFFFF
                out[lane] = buf.counter
        m.write(ops[0], out, active)
        return
    res = ops[1] if immediate else ops[0]
    rest = ops[2:] if immediate else ops[1:]
    addr = m.read(rest[0], UINT).astype(np.int64)
    compare = m.read(rest[1], UINT)[:, 0] if kind in ("cmp_exch", "cmp_store") else None
    value = m.read(rest[-1], UINT)[:, 0]
    reg = _register(res)
    if res.type == OT.UNORDERED_ACCESS_VIEW and m.decl.uavs.get(reg) == "typed":
        buf = m.buffers.get((OT.UNORDERED_ACCESS_VIEW, reg))
        if buf is not None and buf.typed is not None:
            flat, word, per_group = buf.typed[:, 0], addr[:, 0], False
        else:
            tex = _texture(m, res)
            data = tex.levels[0].view(np.uint32)
            _, _, height, width, _ = data.shape
            flat = data.reshape(-1, 4)[:, 0]  # a view: the atomics write through
            word, per_group = addr[:, 1] * width + addr[:, 0], False
            if tex.dimension in ("texture2darray",):
                word = word + addr[:, 2] * width * height
    else:
        store, stride, per_group = _words(m, res)
        flat = store
        word = addr[:, 0] * stride // 4 + addr[:, 1] // 4 if stride else addr[:, 0] // 4
    out = np.zeros((m.n, 4), np.uint32)
    fn = _ATOMIC[kind]
    for lane in np.nonzero(active)[0]:
        w = int(word[lane])
        row = flat[m.groups[lane]] if per_group else flat
        if not 0 <= w < len(row):
            continue
        old = int(row[w])
        out[lane] = old
        row[w] = fn(old, int(value[lane]), None if compare is None else int(compare[lane]))
    if immediate:
        m.write(ops[0], out, active)


HANDLERS: dict[str, Any] = {
    **{name: _sample_op for name in _SAMPLE_ROLES},
    "ld": _ld, "ld_s": _ld, "ldms": _ld, "ldms_s": _ld, "ld_uav_typed": _ld, "ld_uav_typed_s": _ld,
    "resinfo": _resinfo, "bufinfo": _bufinfo, "sampleinfo": _sampleinfo, "samplepos": _samplepos,
    "ld_structured": _load_words, "ld_structured_s": _load_words, "ld_raw": _load_words, "ld_raw_s": _load_words,
    "store_structured": _store_words, "store_raw": _store_words, "store_uav_typed": _store_typed,
    **{f"atomic_{k}": _atomic for k in ("and", "or", "xor", "cmp_store", "iadd", "imax", "imin", "umax", "umin")},
    **{f"imm_atomic_{k}": _atomic for k in ("alloc", "consume", "iadd", "and", "or", "xor", "exch", "cmp_exch",
                                            "imax", "imin", "umax", "umin")},
}


# -- public texel access for other VMs (the Maxwell VM) --------------------------------------------
def fetch_texels(tex: Texture, level: int, layer: np.ndarray, ints: list[np.ndarray], sampler: Sampler | None = None,
                 offsets: Any = (0, 0, 0)) -> np.ndarray:
    """Texels (lanes, 4) of mip ``level`` at integer coordinates ``ints`` (x[, y[, z]]) plus
    ``offsets`` (ints, or per-lane arrays): with ``sampler`` its address modes, without one
    (a load) 0 outside the texture. Keeps the texture's dtype."""
    return _fetch(tex, level, layer, ints, sampler, offsets)


def sample_level(tex: Texture, sampler: Sampler, level: int, layer: np.ndarray, coords: np.ndarray,
                 offsets: Any = (0, 0, 0), ref: np.ndarray | None = None) -> np.ndarray:
    """Filtered float32 texels (lanes, 4) of mip ``level`` at normalized ``coords`` (lanes, dims)
    in layer ``layer`` (per lane, cube faces included), texel ``offsets`` (ints or per-lane arrays)
    added; with ``ref``, the sampler's comparison of ``ref`` with each texel's red, before filtering."""
    return _sample_level(tex, sampler, level, layer, coords, offsets, ref)


def gather_texels(tex: Texture, sampler: Sampler, layer: np.ndarray, coords: np.ndarray, offsets: Any,
                  channel: int, ref: np.ndarray | None = None) -> np.ndarray:
    """``gather4``: component ``channel`` of the four bilinear texels of level 0 around normalized
    2D ``coords`` (lanes, 2), in D3D's order x = (u0, v1), y = (u1, v1), z = (u1, v0), w = (u0, v0)
    (``offsets``: texel offsets, ints or per-lane arrays); with ``ref``, the sampler's comparison
    of ``ref`` with each texel's red instead. float32 (lanes, 4)."""
    size = tex.size(0)
    with np.errstate(all="ignore"):
        base = [np.floor(coords[:, a].astype(np.float64) * size[a] - 0.5).astype(np.int64) + offsets[a] for a in range(2)]
    values, footprint = [], []
    for du, dv in ((0, 1), (1, 1), (1, 0), (0, 0)):
        x, y = base[0] + du, base[1] + dv
        t = _fetch(tex, 0, layer, [x, y], sampler).astype(np.float32)
        # (compared before a cube corner is filled, as sample_c compares before filtering)
        values.append(COMPARISONS[sampler.comparison](ref, t[:, 0])[:, None].astype(np.float32) if ref is not None
                      else t[:, channel:channel + 1])
        footprint.append((x, y))
    if sampler.seamless and tex.is_cube:
        _fill_corners(values, footprint, size[0])
    return np.concatenate(values, axis=1)

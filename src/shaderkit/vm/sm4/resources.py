"""Textures, buffers and samplers the SM4/SM5 VM reads and writes (D3D11 addressing and filtering).

A :class:`Texture` holds its mip levels as float32 (or, for integer formats, int32/uint32) arrays of
shape ``(layers, depth, height, width, 4)``; 1D and 2D textures use depth 1 (and height 1), cubes 6
layers per cube (+X, -X, +Y, -Y, +Z, -Z). A :class:`Buffer` holds 32-bit words (raw and structured
views) or typed elements ``(count, 4)``. Sampling follows D3D11: texel centres at +0.5, bilinear
weights from ``coord * size - 0.5``, address modes per axis, LOD from the quad derivatives (pixel
shaders) or the explicit LOD, linear or point mip filtering, comparison before filtering.
"""

from __future__ import annotations

import numpy as np

from shaderkit.dataclass import dataclass, field

WRAP, MIRROR, CLAMP, BORDER, MIRROR_ONCE = "wrap", "mirror", "clamp", "border", "mirror_once"

COMPARISONS = {
    "never": lambda ref, t: np.zeros_like(t, dtype=bool),
    "less": lambda ref, t: ref < t,
    "equal": lambda ref, t: ref == t,
    "less_equal": lambda ref, t: ref <= t,
    "greater": lambda ref, t: ref > t,
    "not_equal": lambda ref, t: ref != t,
    "greater_equal": lambda ref, t: ref >= t,
    "always": lambda ref, t: np.ones_like(t, dtype=bool),
}


@dataclass
class Sampler:
    """D3D11_SAMPLER_DESC, the parts the VM uses."""

    filter: str = "linear"  # min/mag filter: "point" or "linear"
    mip_filter: str = "linear"  # "point" or "linear"
    address: tuple[str, str, str] = (WRAP, WRAP, WRAP)
    border_color: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    comparison: str = "never"
    mip_lod_bias: float = 0.0
    min_lod: float = 0.0
    max_lod: float = 1e30
    #: cube maps filter across face edges, as D3D10+ requires; False clamps within each face
    #: (D3D9 hardware, the Maxwell VM's samplers)
    seamless: bool = True


_ALL = slice(None)


def _is_cube(dimension: str) -> bool:
    """A cube map or cube-map array dimension."""
    return dimension.startswith("texturecube")


#: per dimension: the array :meth:`Texture.from_array` takes (the last axis: channels) and the
#: index that makes it a level's (layers, depth, height, width, 4)
_LAYOUTS: dict[str, tuple[str, tuple[slice | None, ...]]] = {
    "texture1d": ("(w, c)", (None, None, None)), "texture1darray": ("(layers, w, c)", (_ALL, None, None)),
    "texture2d": ("(h, w, c)", (None, None)), "texture2dms": ("(h, w, c)", (None, None)),
    "buffer": ("(h, w, c)", (None, None)), "texture3d": ("(d, h, w, c)", (None,)),
    "texture2darray": ("(layers, h, w, c)", (_ALL, None)), "texture2dmsarray": ("(layers, h, w, c)", (_ALL, None)),
    "texturecube": ("(6, h, w, c)", (_ALL, None)), "texturecubearray": ("(6n, h, w, c)", (_ALL, None)),
}


def _expand(data: np.ndarray) -> np.ndarray:
    """Channels padded to 4 with D3D's defaults (0, 0, 0, 1)."""
    data = np.asarray(data)
    channels = data.shape[-1]
    if channels == 4:
        return data
    if channels > 4:
        raise ValueError(f"a texel has at most 4 channels, got {channels}")
    one = np.ones((), dtype=data.dtype) if data.dtype.kind == "f" else np.array(1, dtype=data.dtype)
    pad = np.zeros((*data.shape[:-1], 4 - channels), dtype=data.dtype)
    if channels < 4:
        pad[..., -1] = one
    return np.concatenate([data, pad], axis=-1)


@dataclass
class Texture:
    """Mip levels of a texture: each ``(layers, depth, height, width, 4)``."""

    levels: list[np.ndarray]
    dimension: str = "texture2d"  # texture1d/2d/3d, texture1darray/2darray, texturecube(array), texture2dms
    samples: int = 1
    #: a stand-in for an unbound view: reads give zeros, writes are dropped
    unbound: bool = False

    @classmethod
    def from_array(cls, data: np.ndarray, dimension: str = "texture2d", mips: bool = False) -> Texture:
        """A texture from ``(h, w, c)`` (2D), ``(w, c)`` (1D), ``(d, h, w, c)`` (3D) or with a leading
        layer axis for arrays and cubes; ``mips=True`` builds the chain by 2x2 box filtering."""
        data = np.asarray(data)
        if dimension not in _LAYOUTS:
            raise ValueError(f"unknown texture dimension {dimension!r}")
        shape, index = _LAYOUTS[dimension]
        rank = 5 - index.count(None)  # (the index adds the axes the array lacks)
        cube = _is_cube(dimension)
        if data.ndim != rank or (cube and data.shape[0] % 6):
            raise ValueError(f"a {dimension} takes {shape} texels, not an array of shape {data.shape}")
        data = _expand(data)[index]
        levels = [data]
        while mips and max(levels[-1].shape[1:4]) > 1:
            prev = levels[-1].astype(np.float64)
            layers, d, h, w, _ = prev.shape
            nd, nh, nw = max(d // 2, 1), max(h // 2, 1), max(w // 2, 1)
            step = prev[:, : nd * (d // nd), : nh * (h // nh), : nw * (w // nw)]
            step = step.reshape(layers, nd, d // nd, nh, h // nh, nw, w // nw, 4).mean(axis=(2, 4, 6))
            levels.append(step.astype(data.dtype))
        return cls(levels, dimension)

    def size(self, level: int) -> tuple[int, int, int]:
        """(width, height, depth) of mip ``level``."""
        _, d, h, w, _ = self.levels[level].shape
        return w, h, d

    @property
    def layers(self) -> int:
        """The array size (cubes: the number of cubes)."""
        count = self.levels[0].shape[0]
        return count // 6 if self.is_cube else count

    @property
    def is_cube(self) -> bool:
        """A cube map or cube-map array."""
        return _is_cube(self.dimension)


@dataclass
class Buffer:
    """A buffer: 32-bit words (raw and structured access) or typed elements ``(count, 4)``."""

    words: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    stride: int = 0  # structured buffers: bytes per element
    typed: np.ndarray | None = None  # typed buffers / typed UAV textures: (count, 4) uint32 bits
    counter: int = 0  # append/consume counter

    @classmethod
    def structured(cls, data: np.ndarray | bytes, stride: int) -> Buffer:
        """A structured buffer of ``stride``-byte elements from an array or bytes."""
        return cls(_words(data), stride)

    @classmethod
    def raw(cls, data: np.ndarray | bytes) -> Buffer:
        """A raw (byte address) buffer from an array or bytes."""
        return cls(_words(data))

    @classmethod
    def typed_from(cls, data: np.ndarray) -> Buffer:
        """A typed buffer from an array (one row per element, float64 stored as float32)."""
        values = _expand(np.asarray(data).reshape(len(data), -1))
        if values.dtype == np.float64:
            values = values.astype(np.float32)
        return cls(typed=np.ascontiguousarray(values).view(np.uint32).copy())


def _words(data: np.ndarray | bytes) -> np.ndarray:
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        raw += bytes(-len(raw) % 4)
        return np.frombuffer(raw, "<u4").astype(np.uint32)
    arr = np.ascontiguousarray(data)
    return arr.view(np.uint8).reshape(-1).view("<u4").astype(np.uint32) if arr.dtype != np.uint32 else arr.reshape(-1).copy()


# -- addressing ---------------------------------------------------------------------------------


def address(i: np.ndarray, size: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer texel coordinates after an address mode, and a mask of texels outside (border)."""
    if mode == WRAP:
        return np.mod(i, size), np.zeros(i.shape, bool)
    if mode == MIRROR:
        period = np.mod(i, 2 * size)
        return np.where(period >= size, 2 * size - 1 - period, period), np.zeros(i.shape, bool)
    if mode == MIRROR_ONCE:
        m = np.where(i < 0, -1 - i, i)
        return np.clip(m, 0, size - 1), np.zeros(i.shape, bool)
    if mode == BORDER:
        outside = (i < 0) | (i >= size)
        return np.clip(i, 0, size - 1), outside
    return np.clip(i, 0, size - 1), np.zeros(i.shape, bool)


def lod_from_gradients(ddx: np.ndarray, ddy: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Unclamped level of detail per lane: log2 of rho, the longer of the texel-space gradients
    ``ddx * size`` and ``ddy * size`` (``ddx``/``ddy`` of shape (lanes, k), ``size`` (k,))."""
    with np.errstate(all="ignore"):
        rho = np.maximum(np.linalg.norm(ddx * size, axis=1), np.linalg.norm(ddy * size, axis=1))
        return np.log2(rho)


#: per cube face (+x, -x, +y, -y, +z, -z): (axis, sign) of its normal, of the direction its s
#: coordinate grows to and of its t coordinate's (D3D's major-axis rule: u = (s / |ma| + 1) / 2)
CUBE_FACES = (
    ((0, 1), (2, -1), (1, -1)), ((0, -1), (2, 1), (1, -1)),
    ((1, 1), (0, 1), (2, 1)), ((1, -1), (0, 1), (2, -1)),
    ((2, 1), (0, 1), (1, -1)), ((2, -1), (0, -1), (1, -1)),
)
_FACE_AXES = np.array([[axis for axis, _ in face] for face in CUBE_FACES])
_FACE_SIGNS = np.array([[sign for _, sign in face] for face in CUBE_FACES], np.float64)


def cube_face(direction: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Face index (0..5) and face (u, v) in [0, 1] for a cube direction (D3D's major-axis rule,
    :data:`CUBE_FACES`)."""
    x, y, z = direction[:, 0], direction[:, 1], direction[:, 2]
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    face = np.where((ax >= ay) & (ax >= az), np.where(x >= 0, 0, 1), np.where(ay >= az, np.where(y >= 0, 2, 3), np.where(z >= 0, 4, 5)))
    lanes = np.arange(len(face))
    axes, signs = _FACE_AXES[face], _FACE_SIGNS[face]
    ma = np.abs(direction[lanes, axes[:, 0]])
    sc = signs[:, 1] * direction[lanes, axes[:, 1]]
    tc = signs[:, 2] * direction[lanes, axes[:, 2]]
    with np.errstate(all="ignore"):
        u = (sc / ma + 1) * 0.5
        v = (tc / ma + 1) * 0.5
    return face, np.nan_to_num(u), np.nan_to_num(v)


#: per face of :data:`CUBE_FACES`: its normal and its s and t directions as vectors (6, 3, 3), the
#: inverse of :func:`cube_face`: direction = normal + s * s_dir + t * t_dir
CUBE_FACE_BASES = np.eye(3)[_FACE_AXES] * _FACE_SIGNS[..., None]

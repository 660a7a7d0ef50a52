"""Unit-test compiled HLSL on the CPU (the HlslUnit idea), pytest-friendly.

Load a compiled vertex, pixel, geometry, hull, domain or compute shader (a DXBC file), set
constant-buffer variables and resources by their HLSL names, run it, and read the outputs by
semantic or the UAV contents as NumPy arrays::

    from shaderkit.testing import HlslShader

    ps = HlslShader.load("BasicEffect_PSBasic.dxbc")
    ps.set("FogColor", [0.25, 0.5, 1.0])
    out = ps.pixel(COLOR0=[[0.2, 0.4, 0.6, 0.5]], COLOR1=[[0, 0, 0, 0.5]])
    assert_close(out["SV_Target"], [[0.1625, 0.325, 0.55, 0.5]])

Direct3D 9 shaders (vs/ps 1.x-3.0 token streams) run the same way with :class:`D3D9Shader` (from
:mod:`shaderkit.vm.d3d9`): ``D3D9Shader.load(path).set("WorldViewProj", m).run(POSITION=p)``.

Everything runs in :mod:`shaderkit.vm.sm4` (NumPy, SIMD across invocations); no GPU is needed.
Errors in what the test asks for (an unknown variable, a missing input) raise
:class:`~shaderkit.vm.sm4.VmError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import shaderkit
from shaderkit.vm.d3d9 import D3D9Shader
from shaderkit.vm.sm4 import (
    Buffer,
    DomainOutputs,
    GeometryOutputs,
    HullOutputs,
    Outputs,
    Sampler,
    Shader,
    Texture,
    VmError,
)
from shaderkit.vm.sm4.machine import OT

__all__ = ["HlslShader", "D3D9Shader", "Sampler", "Texture", "Buffer", "VmError", "assert_close", "ulp_distance"]


class HlslShader:
    """A compiled shader under test; resources and constants persist between runs."""

    def __init__(self, shader: Shader) -> None:
        self.shader = shader

    @classmethod
    def load(cls, source: str | os.PathLike[str] | bytes) -> HlslShader:
        """From a DXBC file path or its bytes."""
        container = shaderkit.open(source if isinstance(source, bytes) else os.fspath(source))
        return cls(Shader(container))

    @property
    def stage(self) -> str:
        """The shader stage: ``vertex``, ``pixel``, ``geometry``, ``hull``, ``domain`` or ``compute``."""
        return self.shader.stage

    # -- constants and resources by name ------------------------------------------------------

    def set(self, name: str, value: Any) -> HlslShader:
        """Set a constant-buffer variable (``Var`` or ``Buffer.Var``); returns self for chaining."""
        self.shader.set_constant(name, value)
        return self

    def texture(self, name: str | int, data: Any, sampler: Sampler | None = None,
                sampler_name: str | int | None = None, mips: bool = False) -> HlslShader:
        """Bind a texture (``(h, w, c)`` for 2D; see :meth:`Texture.from_array`) by its HLSL name;
        ``sampler`` is bound to ``sampler_name`` (default: every sampler the shader declares)."""
        if isinstance(data, Texture):
            tex = data
        else:
            slot = self.shader._slot(name)
            dim = self.shader.decl.resources.get(slot, ("texture2d", "float"))[0]
            tex = Texture.from_array(np.asarray(data), dim if dim != "unknown" else "texture2d", mips=mips)
        self.shader.bind_texture(name, tex)
        if sampler is not None:
            targets = [sampler_name] if sampler_name is not None else sorted(self.shader.decl.samplers)
            for target in targets:
                self.shader.bind_sampler(target, sampler)
        return self

    def sampler(self, name: str | int, sampler: Sampler) -> HlslShader:
        """Bind ``sampler`` to sampler slot/name ``name``; returns self for chaining."""
        self.shader.bind_sampler(name, sampler)
        return self

    def buffer(self, name: str | int, data: Any, stride: int | None = None) -> HlslShader:
        """Bind a read-only buffer: a NumPy structured/plain array (structured buffers take the
        shader's declared stride unless given) or bytes for ByteAddressBuffer."""
        self.shader.bind_buffer(name, self._make_buffer(name, data, stride, OT.RESOURCE))
        return self

    def uav(self, name: str | int, data: Any, stride: int | None = None) -> HlslShader:
        """Bind a read-write buffer (RWStructuredBuffer / RWByteAddressBuffer / RWBuffer) or, for a
        RWTexture, a texture array."""
        slot = self.shader._slot(name)
        if self.shader.decl.uavs.get(slot) == "typed" and np.asarray(data).ndim >= 3:
            dim = _uav_dimension(self.shader, slot)
            self.shader.bind_texture(name, Texture.from_array(np.asarray(data), dim), uav=True)
            return self
        self.shader.bind_buffer(name, self._make_buffer(name, data, stride, OT.UNORDERED_ACCESS_VIEW), uav=True)
        return self

    def _make_buffer(self, name: str | int, data: Any, stride: int | None, kind: int) -> Buffer:
        if isinstance(data, Buffer):
            return data
        slot = self.shader._slot(name)
        declared = self.shader.decl.structured.get((int(kind), slot))
        typed = kind == OT.UNORDERED_ACCESS_VIEW and self.shader.decl.uavs.get(slot) == "typed"
        if typed or (kind == OT.RESOURCE and self.shader.decl.resources.get(slot, ("", ""))[0] == "buffer"):
            return Buffer.typed_from(np.asarray(data))
        if isinstance(data, (bytes, bytearray)):
            return Buffer.raw(bytes(data))
        array = np.ascontiguousarray(data)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
        if stride is None:
            stride = declared or 0
        return Buffer(np.ascontiguousarray(array).view(np.uint8).reshape(-1).view("<u4").astype(np.uint32), stride)

    # -- running -------------------------------------------------------------------------------

    def vertex(self, inputs: Mapping[str, Any] | None = None, count: int | None = None, **by_semantic: Any) -> Outputs:
        """Run over vertices: inputs by semantic (``POSITION``, ``TEXCOORD1``) or register (``v0``)."""
        return self.shader.run_vertex(_float_inputs({**(inputs or {}), **by_semantic}), count)

    def pixel(self, inputs: Mapping[str, Any] | None = None, count: int | None = None, quads: bool = False,
              **by_semantic: Any) -> Outputs:
        """Run over fragments (each its own 2x2 quad: derivatives 0); ``quads=True``: rows come in
        2x2 quads (top-left, top-right, bottom-left, bottom-right) and derivatives are real."""
        return self.shader.run_pixel(_float_inputs({**(inputs or {}), **by_semantic}), count, quads)

    def geometry(self, inputs: Mapping[str, Any] | None = None, count: int | None = None, stream: int = 0,
                 **by_semantic: Any) -> GeometryOutputs:
        """Run a geometry shader over primitives: inputs (primitives, vertices[, components]) by
        semantic or register; the emitted vertices of ``stream`` with their primitive, instance and
        strip, and ``primitives()`` assembling them by the output topology."""
        return self.shader.run_geometry(_float_inputs({**(inputs or {}), **by_semantic}), count, stream)

    def hull(self, inputs: Mapping[str, Any] | None = None, count: int | None = None,
             **by_semantic: Any) -> HullOutputs:
        """Run a hull shader over patches: control points (patches, points[, components]) by
        semantic or register; the output control points by semantic, ``patch_constants`` by
        patch-constant semantic, ``tess_factors`` and ``inside_tess_factors``."""
        return self.shader.run_hull(_float_inputs({**(inputs or {}), **by_semantic}), count)

    def domain(self, control_points: Mapping[str, Any] | HullOutputs, domain: Any,
               patch_constants: Mapping[str, Any] | None = None, patch: Any = None) -> DomainOutputs:
        """Run a domain shader at ``domain`` locations ((n, 2 or 3): u, v[, w]) of patches given
        as control points by semantic (or a :meth:`hull` result, with its patch constants) and
        patch constants by semantic; ``patch``: each location's patch (default: every patch runs
        every location)."""
        if not isinstance(control_points, HullOutputs):
            control_points = _float_inputs(control_points)
        return self.shader.run_domain(control_points, domain, _float_inputs(patch_constants or {}), patch)

    def dispatch(self, groups: Sequence[int] | int = 1) -> HlslShader:
        """Run a compute shader over ``groups`` thread groups (one count or x, y, z); returns self."""
        self.shader.dispatch((groups,) if isinstance(groups, int) else groups)
        return self

    def read_uav(self, name: str | int, dtype: Any = np.uint32) -> np.ndarray:
        """A UAV's contents after a dispatch: buffer words viewed as ``dtype`` (a NumPy structured
        dtype works for structured buffers), typed elements ``(count, 4)`` or texture texels."""
        found = self.shader.uav(name)
        if isinstance(found, Texture):
            return found.levels[0].view(np.dtype(dtype)) if dtype is not np.uint32 else found.levels[0]
        if found.typed is not None:
            return found.typed.view(np.dtype(dtype))
        return found.words.view(np.dtype(dtype))


def _uav_dimension(shader: Shader, slot: int) -> str:
    dim = shader.decl.uav_dimensions.get(slot, "texture2d")
    return dim if dim not in ("unknown", "buffer") else "texture2d"


def _float_inputs(inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    out = {}
    for key, value in inputs.items():
        array = np.asarray(value)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.int64:
            array = array.astype(np.int32)
        out[key] = array
    return out


def ulp_distance(a: Any, b: Any) -> np.ndarray:
    """Units in the last place between float32 values (NaN vs NaN is 0, NaN vs number is huge)."""
    x = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    y = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    # map the sign-magnitude float order onto integers
    x = np.where(x < 0, -(x & 0x7FFFFFFF), x)
    y = np.where(y < 0, -(y & 0x7FFFFFFF), y)
    distance = np.abs(x - y)
    nan_a, nan_b = np.isnan(np.asarray(a, np.float32)), np.isnan(np.asarray(b, np.float32))
    return np.where(nan_a & nan_b, 0, np.where(nan_a | nan_b, 1 << 32, distance))


def assert_close(actual: Any, expected: Any, ulps: int = 4, atol: float = 0.0) -> None:
    """Float32 results within ``ulps`` units in the last place (or ``atol``) of ``expected``."""
    a = np.asarray(actual, np.float32)
    e = np.asarray(expected, np.float32)
    if a.shape != e.shape:
        raise AssertionError(f"shape {a.shape} != expected {e.shape}")
    far = (ulp_distance(a, e) > ulps) & ~(np.abs(a.astype(np.float64) - e) <= atol)
    if far.any():
        where = np.argwhere(far)[:5].tolist()
        raise AssertionError(f"{int(far.sum())} values differ by more than {ulps} ulp; first at {where}: "
                             f"{a[far][:5].tolist()} != {e[far][:5].tolist()}")

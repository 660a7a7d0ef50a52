"""RTS0: a serialized D3D12 root signature (version 1.0 or 1.1).

Layout: header ``version (1 = 1.0, 2 = 1.1), parameter_count, parameters_offset,
static_sampler_count, static_samplers_offset, flags``; parameter records ``type, shader
visibility, payload offset``; payloads: descriptor table ``range_count, ranges_offset`` with
ranges of 5 (1.0) or 6 (1.1, adds flags) dwords; 32-bit constants ``register, space, count``;
root descriptors ``register, space`` (+ flags in 1.1); static samplers of 13 dwords.

The D3D12 serializer's order, which :meth:`RootSignature.build` reproduces: header, parameter
records, each parameter's payload in turn (a table's ranges right after its header), then the
static samplers.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from shaderkit.formats.dxbc.common import Budget
from shaderkit.io.reader import Reader

_HEADER = struct.Struct("<6I")
_PARAM = struct.Struct("<3I")
_TABLE = struct.Struct("<2I")
_RANGE10 = struct.Struct("<5I")
_RANGE11 = struct.Struct("<6I")
_CONSTANTS = struct.Struct("<3I")
_DESC10 = struct.Struct("<2I")
_DESC11 = struct.Struct("<3I")
_SAMPLER = struct.Struct("<4IfIIIffIII")

PARAMETER_TYPES = {0: "descriptor_table", 1: "32bit_constants", 2: "cbv", 3: "srv", 4: "uav"}
RANGE_TYPES = {0: "srv", 1: "uav", 2: "cbv", 3: "sampler"}
VISIBILITIES = {0: "all", 1: "vertex", 2: "hull", 3: "domain", 4: "geometry", 5: "pixel",
                6: "amplification", 7: "mesh"}


@dataclass
class DescriptorRange:
    range_type: int
    num_descriptors: int
    base_shader_register: int
    register_space: int
    offset_in_descriptors_from_table_start: int
    flags: int = 0


@dataclass
class RootConstants:
    shader_register: int
    register_space: int
    num_32bit_values: int


@dataclass
class RootDescriptor:
    shader_register: int
    register_space: int
    flags: int = 0


@dataclass
class RootParameter:
    parameter_type: int
    shader_visibility: int
    ranges: list[DescriptorRange] = field(default_factory=list)
    constants: RootConstants | None = None
    descriptor: RootDescriptor | None = None


@dataclass
class StaticSampler:
    filter: int
    address_u: int
    address_v: int
    address_w: int
    mip_lod_bias: float
    max_anisotropy: int
    comparison_func: int
    border_color: int
    min_lod: float
    max_lod: float
    shader_register: int
    register_space: int
    shader_visibility: int


@dataclass
class RootSignature:
    version: int = 2
    parameters: list[RootParameter] = field(default_factory=list)
    static_samplers: list[StaticSampler] = field(default_factory=list)
    flags: int = 0
    fourcc: str = "RTS0"

    @property
    def is_v11(self) -> bool:
        return self.version >= 2

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "RTS0") -> RootSignature:
        base = r.start
        version, count, params_off, sampler_count, samplers_off, flags = r.unpack_at(base, "6I", "RTS0 header")
        if version not in (1, 2):
            raise r.error(f"unsupported root signature version {version}", base)
        rs = cls(version, [], [], flags)
        range_st = _RANGE11 if version >= 2 else _RANGE10
        desc_st = _DESC11 if version >= 2 else _DESC10

        def at(offset: int) -> int:
            if offset > r.end - base:
                raise r.error(f"offset {offset:#x} is past the chunk end", base)
            return base + offset

        r.check_count(count, _PARAM.size, "root parameters", at(params_off))
        budget = Budget(r, range_st.size, "descriptor range tables")
        for i in range(count):
            ptype, vis, payload = _PARAM.unpack_from(r.data, base + params_off + i * _PARAM.size)
            param = RootParameter(ptype, vis)
            with r.scope(f"parameters[{i}]"):
                if ptype == 0:
                    range_count, ranges_off = r.unpack_at(at(payload), "2I", "descriptor table")
                    r.check_count(range_count, range_st.size, "descriptor ranges", at(ranges_off))
                    budget.take(range_count)
                    for j in range(range_count):
                        values = range_st.unpack_from(r.data, base + ranges_off + j * range_st.size)
                        if version >= 2:
                            rt, num, reg, space, rflags, offset = values
                        else:
                            (rt, num, reg, space, offset), rflags = values, 0
                        param.ranges.append(DescriptorRange(rt, num, reg, space, offset, rflags))
                elif ptype == 1:
                    param.constants = RootConstants(*r.unpack_at(at(payload), "3I", "root constants"))
                elif ptype in (2, 3, 4):
                    values = r.unpack_at(at(payload), desc_st.format[1:], "root descriptor")
                    param.descriptor = RootDescriptor(*values)
                else:
                    raise r.error(f"unknown root parameter type {ptype}", base + params_off + i * _PARAM.size)
            rs.parameters.append(param)
        r.check_count(sampler_count, _SAMPLER.size, "static samplers", at(samplers_off))
        for i in range(sampler_count):
            rs.static_samplers.append(StaticSampler(*_SAMPLER.unpack_from(r.data, base + samplers_off + i * _SAMPLER.size)))
        return rs

    def build(self) -> bytes:
        v11 = self.is_v11
        range_st = _RANGE11 if v11 else _RANGE10
        desc_st = _DESC11 if v11 else _DESC10
        params_off = _HEADER.size
        out = bytearray(params_off + _PARAM.size * len(self.parameters))
        for i, p in enumerate(self.parameters):
            payload = len(out)
            if p.parameter_type == 0:
                out += _TABLE.pack(len(p.ranges), payload + _TABLE.size)
                for rg in p.ranges:
                    if v11:
                        out += range_st.pack(rg.range_type, rg.num_descriptors, rg.base_shader_register,
                                             rg.register_space, rg.flags, rg.offset_in_descriptors_from_table_start)
                    else:
                        out += range_st.pack(rg.range_type, rg.num_descriptors, rg.base_shader_register,
                                             rg.register_space, rg.offset_in_descriptors_from_table_start)
            elif p.parameter_type == 1:
                c = p.constants or RootConstants(0, 0, 0)
                out += _CONSTANTS.pack(c.shader_register, c.register_space, c.num_32bit_values)
            else:
                d = p.descriptor or RootDescriptor(0, 0)
                values = (d.shader_register, d.register_space, d.flags)
                out += desc_st.pack(*values[: 3 if v11 else 2])
            _PARAM.pack_into(out, params_off + i * _PARAM.size, p.parameter_type, p.shader_visibility, payload)
        samplers_off = len(out)
        for s in self.static_samplers:
            out += _SAMPLER.pack(s.filter, s.address_u, s.address_v, s.address_w, s.mip_lod_bias,
                                 s.max_anisotropy, s.comparison_func, s.border_color, s.min_lod, s.max_lod,
                                 s.shader_register, s.register_space, s.shader_visibility)
        _HEADER.pack_into(out, 0, self.version, len(self.parameters), params_off, len(self.static_samplers),
                          samplers_off, self.flags)
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        return {
            "version": "1.1" if self.is_v11 else "1.0",
            "flags": self.flags,
            "parameters": [
                {"type": PARAMETER_TYPES.get(p.parameter_type, str(p.parameter_type)),
                 "visibility": VISIBILITIES.get(p.shader_visibility, str(p.shader_visibility)),
                 "ranges": len(p.ranges)}
                for p in self.parameters
            ],
            "static_samplers": len(self.static_samplers),
        }

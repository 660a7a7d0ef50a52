"""RTS0: a serialized D3D12 root signature (version 1.0, 1.1 or 1.2).

Layout: header ``version (1 = 1.0, 2 = 1.1, 3 = 1.2), parameter_count, parameters_offset,
static_sampler_count, static_samplers_offset, flags``; parameter records ``type, shader
visibility, payload offset``; payloads: descriptor table ``range_count, ranges_offset`` with
ranges of 5 (1.0) or 6 (1.1+, adds flags) dwords; 32-bit constants ``register, space, count``;
root descriptors ``register, space`` (+ flags in 1.1+); static samplers of 13 dwords, 14 in 1.2
(``D3D12_STATIC_SAMPLER_DESC1`` adds ``flags``: 1 uint border color, 2 non-normalized coordinates).

The D3D12 serializer's order, used for a new chunk: header, parameter records, each parameter's
payload in turn (a table's ranges right after its header), then the static samplers. A parsed
chunk keeps its layout (where every record, payload and range array lay, bytes nothing covers)
and puts unchanged items back. Versions and parameter types not listed here stay raw chunks.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    Budget,
    close_layout,
    placed_build,
    read_with_deferred_layout,
    record_table,
)
from shaderkit.io.float32 import F32, f32_word
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

_HEADER = struct.Struct("<6I")
_PARAM = struct.Struct("<3I")
_TABLE = struct.Struct("<2I")
_RANGE10 = struct.Struct("<5I")
_RANGE11 = struct.Struct("<6I")
_CONSTANTS = struct.Struct("<3I")
_DESC10 = struct.Struct("<2I")
_DESC11 = struct.Struct("<3I")
_SAMPLER = struct.Struct("<13I")
_SAMPLER12 = struct.Struct("<14I")
#: the float32 fields of a static sampler (mip_lod_bias, min_lod, max_lod), kept with their bits
_SAMPLER_FLOATS = (4, 8, 9)
#: root signature versions this model reads (D3D_ROOT_SIGNATURE_VERSION 1.0, 1.1, 1.2)
VERSIONS = {1: "1.0", 2: "1.1", 3: "1.2"}
#: D3D12_SAMPLER_FLAGS (static samplers of version 1.2)
SAMPLER_FLAGS = {1: "uint_border_color", 2: "non_normalized_coordinates"}

PARAMETER_TYPES = {0: "descriptor_table", 1: "32bit_constants", 2: "cbv", 3: "srv", 4: "uav"}
RANGE_TYPES = {0: "srv", 1: "uav", 2: "cbv", 3: "sampler"}
VISIBILITIES = {0: "all", 1: "vertex", 2: "hull", 3: "domain", 4: "geometry", 5: "pixel",
                6: "amplification", 7: "mesh"}


@dataclass
class DescriptorRange:
    """A descriptor table range: range type, count, base register, space, offset in the table, flags."""
    range_type: int
    num_descriptors: int
    base_shader_register: int
    register_space: int
    offset_in_descriptors_from_table_start: int
    flags: int = 0


@dataclass
class RootConstants:
    """Root constants: register, space and number of 32-bit values."""
    shader_register: int
    register_space: int
    num_32bit_values: int


@dataclass
class RootDescriptor:
    """A root descriptor (CBV/SRV/UAV): register, space and flags (v1.1)."""
    shader_register: int
    register_space: int
    flags: int = 0


@dataclass
class RootParameter:
    """A root parameter: type, visibility and its table ranges, constants or descriptor."""
    parameter_type: int
    shader_visibility: int
    ranges: list[DescriptorRange] = field(default_factory=list)
    constants: RootConstants | None = None
    descriptor: RootDescriptor | None = None


@dataclass
class StaticSampler:
    """A static sampler: filter, address modes, LOD bias, anisotropy, comparison, border, register."""
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
    #: D3D12_SAMPLER_FLAGS (stored from version 1.2 on)
    flags: int = 0


@dataclass
class RootSignature:
    """The RTS0 chunk: a serialized D3D12 root signature (versions 1.0, 1.1, 1.2)."""
    #: build_fresh writes every field of the model: a fresh build equal to the stored payload is what
    #: the placed build gives (the container tries it first, see container._payload)
    FRESH_WRITES_EVERY_FIELD = True
    version: int = 2
    parameters: list[RootParameter] = field(default_factory=list)
    static_samplers: list[StaticSampler] = field(default_factory=list)
    flags: int = 0
    fourcc: str = "RTS0"
    #: where the parsed items lay (None for a new chunk: the serializer's order is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @property
    def is_v11(self) -> bool:
        """True for version 1.1 and later (range and descriptor flags present)."""
        return self.version >= 2

    @property
    def sampler_struct(self) -> struct.Struct:
        """The static-sampler record layout of this version (1.2 adds flags)."""
        return _SAMPLER12 if self.version >= 3 else _SAMPLER

    @staticmethod
    def understood(r: Reader) -> bool:
        """True for a known version whose parameter records (when they fit) have known types."""
        if r.remaining < _HEADER.size:
            return False
        version, count, params_off = struct.unpack_from("<3I", r.data, r.pos)
        if version not in VERSIONS:
            return False
        size = r.end - r.pos
        if params_off > size or count > (size - params_off) // _PARAM.size:
            return True  # let the parser report the bad table
        return all(struct.unpack_from("<I", r.data, r.pos + params_off + i * _PARAM.size)[0] in PARAMETER_TYPES
                   for i in range(count))

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "RTS0") -> RootSignature:
        """Parse the chunk payload under ``r``; ShaderFormatError for unknown versions and bad offsets.

        The layout is recorded when first used (:func:`~.common.read_with_deferred_layout`).
        """
        return read_with_deferred_layout(r, cls._read)

    @classmethod
    def _read(cls, r: Reader, layout: Layout | None) -> RootSignature:
        """The chunk under ``r``, recording where its items lay in ``layout`` (closed at the end) unless None."""
        base = r.start
        version, count, params_off, sampler_count, samplers_off, flags = r.unpack_at(base, "6I", "RTS0 header")
        if version not in VERSIONS:
            raise r.error(f"unsupported root signature version {version}", base)
        rs = cls(version, [], [], flags)
        range_st = _RANGE11 if version >= 2 else _RANGE10
        desc_st = _DESC11 if version >= 2 else _DESC10
        sampler_st = rs.sampler_struct

        def at(offset: int) -> int:
            if offset > r.end - base:
                raise r.error(f"offset {offset:#x} is past the chunk end", base)
            return base + offset

        r.check_count(count, _PARAM.size, "root parameters", at(params_off))
        record_table(r, layout, "parameters", params_off, count * _PARAM.size)
        budget = Budget(r, range_st.size, "descriptor range tables")
        for i in range(count):
            ptype, vis, payload = _PARAM.unpack_from(r.data, base + params_off + i * _PARAM.size)
            param = RootParameter(ptype, vis)
            with r.scope(f"parameters[{i}]"):
                if ptype == 0:
                    range_count, ranges_off = r.unpack_at(at(payload), "2I", "descriptor table")
                    r.check_count(range_count, range_st.size, "descriptor ranges", at(ranges_off))
                    budget.take(range_count)
                    record_table(r, layout, ("parameter", i), payload, _TABLE.size)
                    record_table(r, layout, ("ranges", i), ranges_off, range_count * range_st.size)
                    for j in range(range_count):
                        values = range_st.unpack_from(r.data, base + ranges_off + j * range_st.size)
                        if version >= 2:
                            rt, num, reg, space, rflags, offset = values
                        else:
                            (rt, num, reg, space, offset), rflags = values, 0
                        param.ranges.append(DescriptorRange(rt, num, reg, space, offset, rflags))
                elif ptype == 1:
                    param.constants = RootConstants(*r.unpack_at(at(payload), "3I", "root constants"))
                    record_table(r, layout, ("parameter", i), payload, _CONSTANTS.size)
                elif ptype in (2, 3, 4):
                    values = r.unpack_at(at(payload), desc_st.format[1:], "root descriptor")
                    param.descriptor = RootDescriptor(*values)
                    record_table(r, layout, ("parameter", i), payload, desc_st.size)
                else:
                    raise r.error(f"unknown root parameter type {ptype}", base + params_off + i * _PARAM.size)
            rs.parameters.append(param)
        r.check_count(sampler_count, sampler_st.size, "static samplers", at(samplers_off))
        record_table(r, layout, "samplers", samplers_off, sampler_count * sampler_st.size)
        for i in range(sampler_count):
            sampler: list[Any] = list(sampler_st.unpack_from(r.data, base + samplers_off + i * sampler_st.size))
            for k in _SAMPLER_FLOATS:
                sampler[k] = F32.from_bits(sampler[k])
            rs.static_samplers.append(StaticSampler(*sampler))
        if layout is not None:
            rs.layout = close_layout(layout, r, _HEADER.size)
        return rs

    def _range(self, rg: DescriptorRange) -> bytes:
        if self.is_v11:
            return _RANGE11.pack(rg.range_type, rg.num_descriptors, rg.base_shader_register, rg.register_space,
                                 rg.flags, rg.offset_in_descriptors_from_table_start)
        return _RANGE10.pack(rg.range_type, rg.num_descriptors, rg.base_shader_register, rg.register_space,
                             rg.offset_in_descriptors_from_table_start)

    def _payload(self, p: RootParameter, ranges_off: int) -> bytes:
        if p.parameter_type == 0:
            return _TABLE.pack(len(p.ranges), ranges_off)
        if p.parameter_type == 1:
            c = p.constants or RootConstants(0, 0, 0)
            return _CONSTANTS.pack(c.shader_register, c.register_space, c.num_32bit_values)
        d = p.descriptor or RootDescriptor(0, 0)
        if self.is_v11:
            return _DESC11.pack(d.shader_register, d.register_space, d.flags)
        return _DESC10.pack(d.shader_register, d.register_space)

    def _sampler(self, s: StaticSampler) -> bytes:
        values = [s.filter, s.address_u, s.address_v, s.address_w, f32_word(s.mip_lod_bias), s.max_anisotropy,
                  s.comparison_func, s.border_color, f32_word(s.min_lod), f32_word(s.max_lod), s.shader_register,
                  s.register_space, s.shader_visibility]
        if self.version >= 3:
            values.append(s.flags)
        return self.sampler_struct.pack(*values)

    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, self._build_placed)

    def _build_placed(self, w: PlacedWriter) -> None:
        records = []
        for i, p in enumerate(self.parameters):
            ranges_off = 0
            if p.parameter_type == 0:
                ranges_off = w.place(("ranges", i), b"".join(self._range(rg) for rg in p.ranges))
            payload = w.place(("parameter", i), self._payload(p, ranges_off))
            records.append(_PARAM.pack(p.parameter_type, p.shader_visibility, payload))
        params_off = w.place("parameters", b"".join(records))
        samplers_off = w.place("samplers", b"".join(self._sampler(s) for s in self.static_samplers))
        w.put(0, _HEADER.pack(self.version, len(self.parameters), params_off, len(self.static_samplers),
                              samplers_off, self.flags))

    def build_fresh(self) -> bytes:
        """The payload in the D3D12 serializer's order."""
        params_off = _HEADER.size
        out = bytearray(params_off + _PARAM.size * len(self.parameters))
        for i, p in enumerate(self.parameters):
            payload = len(out)
            out += self._payload(p, payload + _TABLE.size)
            if p.parameter_type == 0:
                out += b"".join(self._range(rg) for rg in p.ranges)
            _PARAM.pack_into(out, params_off + i * _PARAM.size, p.parameter_type, p.shader_visibility, payload)
        samplers_off = len(out)
        for s in self.static_samplers:
            out += self._sampler(s)
        _HEADER.pack_into(out, 0, self.version, len(self.parameters), params_off, len(self.static_samplers),
                          samplers_off, self.flags)
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        """Version, flags, parameters and static samplers, JSON-ready."""
        return {
            "version": VERSIONS.get(self.version, str(self.version)),
            "flags": self.flags,
            "parameters": [
                {"type": PARAMETER_TYPES.get(p.parameter_type, str(p.parameter_type)),
                 "visibility": VISIBILITIES.get(p.shader_visibility, str(p.shader_visibility)),
                 "ranges": len(p.ranges)}
                for p in self.parameters
            ],
            "static_samplers": len(self.static_samplers),
            "static_sampler_flags": [[name for bit, name in SAMPLER_FLAGS.items() if s.flags & bit]
                                     for s in self.static_samplers] if self.version >= 3 else [],
        }

"""STAT: instruction statistics (29 dwords for SM4, 37 for SM5)."""

from __future__ import annotations

import struct
from operator import attrgetter

from shaderkit.dataclass import dataclass, fields
from shaderkit.io.reader import Reader

_SM4 = struct.Struct("<29I")
_SM5 = struct.Struct("<37I")
#: payload sizes of the SM4 and SM5 layouts
STAT_SIZES = (_SM4.size, _SM5.size)


@dataclass
class Statistics:
    """Counters as named in D3D11_SHADER_DESC; ``sm5_fields`` says whether the last 8 exist."""

    instruction_count: int = 0
    temp_register_count: int = 0
    def_count: int = 0
    dcl_count: int = 0
    float_instruction_count: int = 0
    int_instruction_count: int = 0
    uint_instruction_count: int = 0
    static_flow_control_count: int = 0
    dynamic_flow_control_count: int = 0
    macro_instruction_count: int = 0
    temp_array_count: int = 0
    array_instruction_count: int = 0
    cut_instruction_count: int = 0
    emit_instruction_count: int = 0
    texture_normal_instructions: int = 0
    texture_load_instructions: int = 0
    texture_comp_instructions: int = 0
    texture_bias_instructions: int = 0
    texture_gradient_instructions: int = 0
    mov_instruction_count: int = 0
    movc_instruction_count: int = 0
    conversion_instruction_count: int = 0
    reserved1: int = 0
    input_primitive: int = 0
    gs_output_topology: int = 0
    gs_max_output_vertex_count: int = 0
    reserved2: int = 0  # fxc counts gathers here (formats.dxbc.assemble._STAT_FIELDS)
    reserved3: int = 0  # fxc counts lod instructions here
    is_sample_frequency_shader: int = 0
    # SM5 only
    gs_instance_count: int = 0
    control_points: int = 0
    hs_output_primitive: int = 0
    hs_partitioning: int = 0
    tessellator_domain: int = 0
    barrier_instructions: int = 0
    interlocked_instructions: int = 0
    texture_store_instructions: int = 0
    sm5_fields: bool = True
    fourcc: str = "STAT"

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "STAT") -> Statistics:
        """Read the 116-byte (SM4) or 148-byte (SM5) STAT payload; ShaderFormatError for other sizes."""
        size = r.remaining
        if size not in (_SM4.size, _SM5.size):
            raise r.error(f"STAT payload of {size} bytes; expected {_SM4.size} or {_SM5.size}")
        values = r.unpack(f"{size // 4}I", "STAT")
        stat = cls(*values)  # the counters are the first fields, in file order
        stat.sm5_fields = size == _SM5.size
        return stat

    def values(self) -> tuple[int, ...]:
        """The stored words in file order (29 for SM4, 37 with the SM5 fields)."""
        values: tuple[int, ...] = _stored_values(self)
        return values if self.sm5_fields else values[:29]

    def build(self) -> bytes:
        """The STAT payload bytes."""
        return (_SM5 if self.sm5_fields else _SM4).pack(*self.values())

    def summary(self) -> dict[str, int | str]:
        """Every named count (reserved words left out), JSON-ready; the three enum fields also
        by name (``gs_output_topology_name``, ``input_primitive_name``, ``tessellator_domain_name``)."""
        from shaderkit.formats.dxbc.enums import (
            PRIMITIVE_TOPOLOGIES,
            PRIMITIVES,
            TESSELLATOR_DOMAINS,
            enum_name,
        )

        count = 37 if self.sm5_fields else 29
        out: dict[str, int | str] = {}
        for f in fields(self)[:count]:
            if not f.name.startswith("reserved"):
                out[f.name] = getattr(self, f.name)
        for key, table in (("gs_output_topology", PRIMITIVE_TOPOLOGIES), ("input_primitive", PRIMITIVES),
                           ("tessellator_domain", TESSELLATOR_DOMAINS)):
            value = out.get(key)
            if isinstance(value, int):
                out[key + "_name"] = enum_name(table, value)
        return out


#: the 37 stored counters of a Statistics, in file order, as one call
_stored_values = attrgetter(*(f.name for f in fields(Statistics)[:37]))

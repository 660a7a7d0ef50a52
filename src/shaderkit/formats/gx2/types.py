"""GX2 shader variable records and enums (decaf-emu ``gx2_shaders.h`` / ``gx2_enum.h`` names)."""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field


class GX2ShaderMode(IntEnum):
    """GX2ShaderMode: how uniforms reach the shader (registers or blocks) and the shader kind."""
    UNIFORM_REGISTER = 0
    UNIFORM_BLOCK = 1
    GEOMETRY_SHADER = 2
    COMPUTE_SHADER = 3


_VAR_TYPES = (
    "void", "bool", "int", "uint", "float", "double", "double2", "double3", "double4",
    "float2", "float3", "float4", "bool2", "bool3", "bool4", "int2", "int3", "int4",
    "uint2", "uint3", "uint4",
    "float2x2", "float2x3", "float2x4", "float3x2", "float3x3", "float3x4",
    "float4x2", "float4x3", "float4x4",
    "double2x2", "double2x3", "double2x4", "double3x2", "double3x3", "double3x4",
    "double4x2", "double4x3", "double4x4",
)
#: GX2SamplerVarType -> its GLSL-like name (0-4 as wut and decaf-emu name them; 6, 10, 12 and 13
#: as the GX2 shader readers of Cafe Shader Studio and ShaderLibrary do)
SAMPLER_TYPES = {0: "sampler1D", 1: "sampler2D", 3: "sampler3D", 4: "samplerCube", 6: "sampler2DShadow",
                 10: "sampler2DArray", 12: "sampler2DArrayShadow", 13: "samplerCubeArray"}
#: GX2SamplerVarType -> the Latte VM's texture kind of a texture bound to such a sampler
SAMPLER_KINDS = {0: "1d", 1: "2d", 3: "3d", 4: "cube", 6: "2d", 10: "2d_array", 12: "2d_array", 13: "cube_array"}


def var_type_name(value: int) -> str:
    """GX2ShaderVarType as a GLSL-like name; unknown values print as ``type_<n>``."""
    return _VAR_TYPES[value] if 0 <= value < len(_VAR_TYPES) else f"type_{value}"


def sampler_type_name(value: int) -> str:
    """GX2SamplerVarType name of ``value`` (``sampler_type_N`` when unknown)."""
    return SAMPLER_TYPES.get(value, f"sampler_type_{value}")


_F4 = struct.Struct("<4f")
_U4 = struct.Struct("<4I")


@dataclass
class GX2UniformBlock:
    """0x0C bytes: name, offset (the block's location), size."""

    name: str
    offset: int
    size: int


@dataclass
class GX2UniformVar:
    """0x14 bytes: name, type, count, offset, block (-1 = no block)."""

    name: str
    type: int
    count: int
    offset: int
    block: int


@dataclass
class GX2UniformInitialValue:
    """0x14 bytes: four f32 values (kept as raw u32 bits so NaNs survive) and an offset."""

    value_bits: tuple[int, int, int, int]
    offset: int

    @property
    def value(self) -> tuple[float, float, float, float]:
        """The four float32 values."""
        return _F4.unpack(_U4.pack(*self.value_bits))

    @classmethod
    def from_floats(cls, value: tuple[float, float, float, float], offset: int) -> GX2UniformInitialValue:
        """An initial value from four floats, at uniform register offset ``offset``."""
        return cls(_U4.unpack(_F4.pack(*value)), offset)


@dataclass
class GX2LoopVar:
    """8 bytes: offset, value."""

    offset: int
    value: int


@dataclass
class GX2SamplerVar:
    """0x0C bytes: name, type (GX2SamplerVarType), location."""

    name: str
    type: int
    location: int


@dataclass
class GX2AttribVar:
    """0x10 bytes: name, type, count, location."""

    name: str
    type: int
    count: int
    location: int


@dataclass
class GX2RBuffer:
    """0x10 bytes: flags, elem_size, elem_count, buffer (a runtime pointer, 0 in files)."""

    flags: int = 0
    elem_size: int = 0
    elem_count: int = 0
    buffer: int = 0

    def words(self) -> list[int]:
        """The four stored words: flags, element size, element count, buffer pointer."""
        return [self.flags, self.elem_size, self.elem_count, self.buffer]


def _list(n: int) -> list[int]:
    return field(default_factory=lambda: [0] * n)


class _RegisterBlock:
    """Register words in file order; list fields are fixed-size register arrays."""

    #: field name -> number of u32 words, in file order
    LAYOUT: ClassVar[tuple[tuple[str, int], ...]] = ()

    @classmethod
    def word_count(cls) -> int:
        return sum(n for _, n in cls.LAYOUT)

    @classmethod
    def from_words(cls, words: tuple[int, ...] | list[int]) -> Any:
        values: dict[str, int | list[int]] = {}
        pos = 0
        for name, count in cls.LAYOUT:
            values[name] = words[pos] if count == 1 else list(words[pos : pos + count])
            pos += count
        return cls(**values)

    def words(self) -> list[int]:
        out: list[int] = []
        for name, count in self.LAYOUT:
            value = getattr(self, name)
            if count == 1:
                out.append(value)
            else:
                if len(value) != count:
                    raise ValueError(f"{name} needs {count} words, has {len(value)}")
                out.extend(value)
        return out


@dataclass
class GX2VertexShaderRegs(_RegisterBlock):
    """GX2VertexShader.regs, 0x00-0xCF."""

    LAYOUT: ClassVar[tuple[tuple[str, int], ...]] = (
        ("sq_pgm_resources_vs", 1), ("vgt_primitiveid_en", 1), ("spi_vs_out_config", 1),
        ("num_spi_vs_out_id", 1), ("spi_vs_out_id", 10), ("pa_cl_vs_out_cntl", 1),
        ("sq_vtx_semantic_clear", 1), ("num_sq_vtx_semantic", 1), ("sq_vtx_semantic", 32),
        ("vgt_strmout_buffer_en", 1), ("vgt_vertex_reuse_block_cntl", 1), ("vgt_hos_reuse_depth", 1),
    )
    sq_pgm_resources_vs: int = 0
    vgt_primitiveid_en: int = 0
    spi_vs_out_config: int = 0
    num_spi_vs_out_id: int = 0
    spi_vs_out_id: list[int] = _list(10)
    pa_cl_vs_out_cntl: int = 0
    sq_vtx_semantic_clear: int = 0
    num_sq_vtx_semantic: int = 0
    sq_vtx_semantic: list[int] = _list(32)
    vgt_strmout_buffer_en: int = 0
    vgt_vertex_reuse_block_cntl: int = 0
    vgt_hos_reuse_depth: int = 0


@dataclass
class GX2PixelShaderRegs(_RegisterBlock):
    """GX2PixelShader.regs, 0x00-0xA3."""

    LAYOUT: ClassVar[tuple[tuple[str, int], ...]] = (
        ("sq_pgm_resources_ps", 1), ("sq_pgm_exports_ps", 1), ("spi_ps_in_control_0", 1),
        ("spi_ps_in_control_1", 1), ("num_spi_ps_input_cntl", 1), ("spi_ps_input_cntls", 32),
        ("cb_shader_mask", 1), ("cb_shader_control", 1), ("db_shader_control", 1), ("spi_input_z", 1),
    )
    sq_pgm_resources_ps: int = 0
    sq_pgm_exports_ps: int = 0
    spi_ps_in_control_0: int = 0
    spi_ps_in_control_1: int = 0
    num_spi_ps_input_cntl: int = 0
    spi_ps_input_cntls: list[int] = _list(32)
    cb_shader_mask: int = 0
    cb_shader_control: int = 0
    db_shader_control: int = 0
    spi_input_z: int = 0


@dataclass
class GX2GeometryShaderRegs(_RegisterBlock):
    """GX2GeometryShader.regs, 0x00-0x4B."""

    LAYOUT: ClassVar[tuple[tuple[str, int], ...]] = (
        ("sq_pgm_resources_gs", 1), ("vgt_gs_out_prim_type", 1), ("vgt_gs_mode", 1),
        ("pa_cl_vs_out_cntl", 1), ("sq_pgm_resources_vs", 1), ("sq_gs_vert_itemsize", 1),
        ("spi_vs_out_config", 1), ("num_spi_vs_out_id", 1), ("spi_vs_out_id", 10),
        ("vgt_strmout_buffer_en", 1),
    )
    sq_pgm_resources_gs: int = 0
    vgt_gs_out_prim_type: int = 0
    vgt_gs_mode: int = 0
    pa_cl_vs_out_cntl: int = 0
    sq_pgm_resources_vs: int = 0
    sq_gs_vert_itemsize: int = 0
    spi_vs_out_config: int = 0
    num_spi_vs_out_id: int = 0
    spi_vs_out_id: list[int] = _list(10)
    vgt_strmout_buffer_en: int = 0

"""BNSH model: typed dataclasses named after nn::gfx's Res* structures (snake_case).

Offsets, sizes, counts, string positions and the relocation table are not stored here: the
writer derives them. Reserved words are kept so that a file writes back byte for byte.
"""

from __future__ import annotations

import zlib
from typing import Any

from shaderkit.dataclass import dataclass, field

STAGES = ("vertex", "hull", "domain", "geometry", "pixel", "compute")
CODE_TYPES = {0: "binary", 1: "intermediate_language", 2: "source", 3: "source_array"}
PROGRAM_KINDS = ("source", "intermediate_language", "binary")
#: Largest decompressed source accepted (guards against zlib bombs).
MAX_SOURCE_SIZE = 1 << 26
#: Reflection tables in slot-array order (the last two live in ResShaderReflectionStageData2).
TABLES = ("inputs", "outputs", "samplers", "constant_buffers", "storage_buffers", "images", "separate_textures",
          "separate_samplers")


@dataclass
class NvnShaderCode:
    """Binary stage code (``NvnShaderCode``, 0x40 bytes): the GLSLC control section and the data
    (NVN header + SPH + Maxwell code) that lives in the shader memory pool."""

    control: bytes
    data: bytes
    data_address: int = 0
    scratch_memory_recommended: int = 0
    scratch_memory_per_warp: int = 0
    reserved: bytes = bytes(16)
    #: ``pDecomposedControlSection`` as stored (0 in every file seen): the structure it points at is
    #: not modelled and stays raw bytes, so a file with it set is only written where it lay.
    decomposed_control_section_at: int = 0


@dataclass
class SourceCode:
    """Source stage code (``ShaderCode``, 0x20 bytes). ``code`` is stored as in the file: zlib
    data when ``decompressed_code_size`` is non-zero and differs from its length."""

    code: bytes
    decompressed_code_size: int = 0
    reserved: bytes = bytes(16)

    @property
    def compressed(self) -> bool:
        """True when the stored code size differs from the decompressed size."""
        return self.decompressed_code_size not in (0, len(self.code))

    def text(self) -> bytes:
        """The source bytes, decompressed when needed (at most ``decompressed_code_size``)."""
        if not self.compressed:
            return self.code
        if self.decompressed_code_size > MAX_SOURCE_SIZE:
            raise ValueError(f"decompressed size {self.decompressed_code_size} is implausibly large")
        inflater = zlib.decompressobj()
        try:
            out = inflater.decompress(self.code, self.decompressed_code_size)
        except zlib.error as exc:
            raise ValueError(f"source code does not inflate: {exc}") from None
        return out


@dataclass
class SourceArrayCode:
    """Several source strings for one stage (``SourceArrayCode``, 0x20 bytes)."""

    codes: list[bytes]
    reserved0: bytes = bytes(6)
    reserved1: bytes = bytes(8)


@dataclass
class UnknownStageCode:
    """Stage code of a code type shaderkit does not model (intermediate language: no public layout).

    ``stored_at`` is where the file read had it; its bytes stay raw there, so a file holding one is
    only written with every structure where it lay."""

    stored_at: int


StageCode = NvnShaderCode | SourceCode | SourceArrayCode | UnknownStageCode


@dataclass
class ReflectionStage:
    """``ResShaderReflectionStageData`` (0x60 bytes). Each table is a list of (name, slot) or None
    when its dictionary pointer is null; the slots form the shader slot array.

    ``separate_textures`` and ``separate_samplers`` come from ``ResShaderReflectionStageData2``
    (0x30 bytes: two dictionary pointers, their two slot offsets, 24 reserved), present when
    ``has_stage_data2``. Their slots are assumed to follow the image slots (the offsets are read,
    and checked, as start indices into the same slot array); no real file with them was seen.
    """

    inputs: list[tuple[str, int]] | None = None
    outputs: list[tuple[str, int]] | None = None
    samplers: list[tuple[str, int]] | None = None
    constant_buffers: list[tuple[str, int]] | None = None
    storage_buffers: list[tuple[str, int]] | None = None
    images: list[tuple[str, int]] | None = None
    compute_work_group_size: tuple[int, int, int] = (0, 0, 0)
    #: Whether the slot array pointer is set (it is whenever any table has entries).
    has_slot_array: bool = True
    separate_textures: list[tuple[str, int]] | None = None
    separate_samplers: list[tuple[str, int]] | None = None
    #: Whether ``pReflectionStageData2`` is set while both its tables are null (it is always
    #: written when a separate table is set).
    has_stage_data2: bool = False
    stage_data2_reserved: bytes = bytes(24)

    def uses_stage_data2(self) -> bool:
        """True when the stage needs the second stage-data block (separate textures/samplers)."""
        return self.has_stage_data2 or self.separate_textures is not None or self.separate_samplers is not None

    def tables(self) -> list[list[tuple[str, int]] | None]:
        """The stage's name -> slot tables in file order (None for absent ones)."""
        return [getattr(self, name) for name in TABLES]

    def offsets(self) -> list[int]:
        """Start index of each table in the slot array (inputs start at 0)."""
        out, total = [], 0
        for table in self.tables():
            out.append(total)
            total += len(table or ())
        return out

    def slot_count(self) -> int:
        """The number of entries over all tables."""
        return sum(len(t or ()) for t in self.tables())


@dataclass
class ShaderReflection:
    """``ResShaderReflectionData``: one optional stage entry per stage slot."""

    stages: list[ReflectionStage | None] = field(default_factory=lambda: [None] * 6)
    reserved: bytes = bytes(16)


ShaderSlots = tuple[int, int, int, int, int, int]


@dataclass
class CompilerBuffer:
    """``nngfxToolShaderCompilerConstantBuffer`` / ``...UnorderedAccessBuffer`` (0x58 bytes)."""

    name: str | None
    #: slot per stage (vertex, hull, domain, geometry, pixel, compute); -1 when unused
    shader_slot: ShaderSlots = (-1, -1, -1, -1, -1, -1)
    size: int = 0
    active_variable_count: int = 0
    #: bit per stage referencing it (nngfxToolShaderCompilerReflectionStageReference)
    stages: int = 0
    name_reserved: bytes = bytes(4)
    slot_reserved: bytes = bytes(8)
    reserved: bytes = bytes(28)


@dataclass
class CompilerShaderInterface:
    """``nngfxToolShaderCompilerShaderInput`` / ``...ShaderOutput`` (0x40 bytes)."""

    name: str | None
    type: int = 0
    shader_slot: int = 0
    array_count: int = 1
    stages: int = 0
    name_reserved: bytes = bytes(4)
    reserved: bytes = bytes(32)


@dataclass
class CompilerResource:
    """``nngfxToolShaderCompilerSampler`` / ``Image`` / ``SeparateTexture`` / ``SeparateSampler`` (0x58)."""

    name: str | None
    type: int = 0
    shader_slot: ShaderSlots = (-1, -1, -1, -1, -1, -1)
    stages: int = 0
    array_count: int = 1
    name_reserved: bytes = bytes(4)
    slot_reserved: bytes = bytes(8)
    reserved: bytes = bytes(28)


@dataclass
class CompilerVariable:
    """``nngfxToolShaderCompilerConstantBufferVariable`` / ``...UnorderedAccessBufferVariable`` (0x40)."""

    name: str | None
    type: int = 0
    block_index: int = 0
    offset: int = 0
    array_count: int = 1
    stages: int = 0
    name_reserved: bytes = bytes(4)
    reserved: bytes = bytes(28)


CompilerEntry = CompilerBuffer | CompilerShaderInterface | CompilerResource | CompilerVariable

#: The arrays of ``nngfxToolShaderCompilerShaderReflection`` in pointer-field order:
#: (attribute, entry class, entry size). The first eight have their counts at 0x00..0x1C in this
#: order except ``images`` (count at 0x1C, pointer at 0x68); the separate ones count at 0x70.
COMPILER_TABLES: tuple[tuple[str, type, int], ...] = (
    ("constant_buffers", CompilerBuffer, 0x58),
    ("unordered_access_buffers", CompilerBuffer, 0x58),
    ("shader_inputs", CompilerShaderInterface, 0x40),
    ("shader_outputs", CompilerShaderInterface, 0x40),
    ("samplers", CompilerResource, 0x58),
    ("constant_buffer_variables", CompilerVariable, 0x40),
    ("unordered_access_buffer_variables", CompilerVariable, 0x40),
    ("images", CompilerResource, 0x58),
    ("separate_textures", CompilerResource, 0x58),
    ("separate_samplers", CompilerResource, 0x58),
)


@dataclass
class CompilerReflection:
    """``nngfxToolShaderCompilerShaderReflection`` (0x98 bytes, BNSH 2.3.x with reflection output on).

    Each table is a list of entries, or None when its array pointer is null.
    """

    constant_buffers: list[CompilerBuffer] | None = None
    unordered_access_buffers: list[CompilerBuffer] | None = None
    shader_inputs: list[CompilerShaderInterface] | None = None
    shader_outputs: list[CompilerShaderInterface] | None = None
    samplers: list[CompilerResource] | None = None
    constant_buffer_variables: list[CompilerVariable] | None = None
    unordered_access_buffer_variables: list[CompilerVariable] | None = None
    images: list[CompilerResource] | None = None
    separate_textures: list[CompilerResource] | None = None
    separate_samplers: list[CompilerResource] | None = None
    compute_work_group_size: tuple[int, int, int] = (0, 0, 0)
    reserved2: bytes = bytes(4)
    reserved: bytes = bytes(16)

    def tables(self) -> list[tuple[str, list[Any] | None]]:
        """(name, rows or None) of every compiler-reflection table, in file order."""
        return [(name, getattr(self, name)) for name, _, _ in COMPILER_TABLES]


@dataclass
class ShaderProgram:
    """``ResShaderProgramData`` (0xA0 bytes) with its ShaderInfoData and stage code."""

    flags: int = 3
    code_type: int = 0
    source_format: int = 0
    binary_format: int = 0
    stages: list[StageCode | None] = field(default_factory=lambda: [None] * 6)
    obj_size: int = 0x100
    reflection: ShaderReflection | None = None
    reserved_info: int = 0
    reserved0: bytes = bytes(40)
    reserved1: int = 0
    reserved2: bytes = bytes(24)
    compiler_reflection: CompilerReflection | None = None
    #: Whether ``pObj`` is set (space for the runtime shader object follows the main section).
    has_object_memory: bool = True

    def stage(self, name: str) -> StageCode | None:
        """The code of stage ``name`` (vertex, hull, domain, geometry, pixel, compute), or None."""
        return self.stages[STAGES.index(name)]


@dataclass
class ShaderVariation:
    """``ResShaderVariationData``: source, intermediate-language and binary programs."""

    source_program: ShaderProgram | None = None
    intermediate_language_program: ShaderProgram | None = None
    binary_program: ShaderProgram | None = None
    reserved: bytes = bytes(32)

    def programs(self) -> list[tuple[str, ShaderProgram]]:
        """(kind, program) for each program the variation has: source, intermediate_language, binary."""
        out = []
        for kind, program in zip(PROGRAM_KINDS, (self.source_program, self.intermediate_language_program,
                                                 self.binary_program)):
            if program is not None:
                out.append((kind, program))
        return out


@dataclass
class MemoryPool:
    """``NvnShaderPool``: MemoryPoolInfoData plus space the runtime fills in."""

    memory_pool_property: int = 0x61
    reserved0: bytes = bytes(16)
    reserved1: int = 0
    #: Runtime pointer (0 in files); written back as stored, never relocated.
    current_memory_pool: int = 0
    reserved2: bytes = bytes(24)
    #: Bytes reserved for the runtime memory-pool object (``pMemoryPool``).
    pool_object_size: int = 0x140

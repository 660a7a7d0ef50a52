"""Typed structures of a deko3d shader module (``.dksh``), named as devkitPro's ``source/dksh.h``
names them (snake_case): :class:`DkshHeader`, :class:`DkshProgramHeader` and the per-stage union of
the program header, typed by the program's ``type``.

A module has two sections whose sizes are multiples of 256 bytes: the control section (the
24-byte header, the 64-byte program headers at ``programs_off``) and the code section
(``code_sz`` bytes right after it). Every offset in a program header (``entrypoint``,
``constbuf1_off``, a vertex program's ``alt_entrypoint``) counts from the code section's start.
A graphics program's entrypoint points at NVIDIA's 0x50-byte Shader Program Header (SPH) and
its Maxwell code follows the SPH; a compute program's entrypoint points at its code.
"""

from __future__ import annotations

import struct
from dataclasses import fields
from typing import Any, ClassVar, TypeVar

from shaderkit.dataclass import dataclass
from shaderkit.formats.bnsh.nvn import SPH_SIZE, ShaderProgramHeader

DKSH_MAGIC = 0x48534B44  # "DKSH" read little-endian
HEADER_SIZE = 24
PROGRAM_HEADER_SIZE = 64
#: size of the per-stage union inside a program header (its largest member, ``geom``)
PARAMS_SIZE = 36
#: both sections are multiples of this (DK_SHADER_CODE_ALIGNMENT), and so is every constbuf1
SECTION_ALIGNMENT = 0x100
#: where uam puts a graphics program's SPH inside a 256-byte block: its code then starts at 0x80
GRAPHICS_ENTRY_OFFSET = 0x30
#: the 0x30 bytes uam writes in front of a graphics program's SPH (a NUL-terminated string)
UAM_SPH_PADDING = b"lol nvidia why did you make us waste space here\x00"

PROGRAM_TYPES = {0: "vertex", 1: "fragment", 2: "geometry", 3: "tess_ctrl", 4: "tess_eval", 5: "compute"}
#: uam's ``--stage`` names of the program types
STAGE_NAMES = {"vertex": "vert", "fragment": "frag", "geometry": "geom", "tess_ctrl": "tess_ctrl",
               "tess_eval": "tess_eval", "compute": "comp"}
TYPE_COMPUTE = 5
#: BNSH's names (the Maxwell VM's and ``--stage``'s) of the program types deko3d names differently
DKSH_STAGE_OF = {"pixel": "fragment", "hull": "tess_ctrl", "domain": "tess_eval"}
#: deko3d program type -> BNSH stage name (the inverse of :data:`DKSH_STAGE_OF`)
BNSH_STAGE_OF = {dksh: bnsh for bnsh, dksh in DKSH_STAGE_OF.items()}

_HEADER = struct.Struct("<6I")
_PROGRAM = struct.Struct(f"<6I{PARAMS_SIZE}sI")


@dataclass
class DkshHeader:
    """The 24-byte module header (``DkshHeader``)."""

    magic: int
    #: sizeof(DkshHeader) = 24 in every module uam writes (kept as stored)
    header_sz: int
    control_sz: int
    code_sz: int
    programs_off: int
    num_programs: int

    def to_bytes(self) -> bytes:
        """The 24 header bytes."""
        return _HEADER.pack(self.magic, self.header_sz, self.control_sz, self.code_sz, self.programs_off,
                            self.num_programs)


_Member = TypeVar("_Member", bound="UnionMember")


class UnionMember:
    """A member of the program header's 36-byte per-stage union: its fields in ``STRUCT``'s order,
    a field named in ``ARRAYS`` taking that many values (a C array, kept as a list)."""

    STRUCT: ClassVar[struct.Struct]
    ARRAYS: ClassVar[dict[str, int]] = {}

    @classmethod
    def from_bytes(cls: type[_Member], raw: bytes) -> _Member:
        """The member read from the union's 36 bytes."""
        values = cls.STRUCT.unpack(raw)
        args: list[Any] = []
        at = 0
        for item in fields(cls):  # type: ignore[arg-type]
            count = cls.ARRAYS.get(item.name)
            args.append(values[at] if count is None else list(values[at : at + count]))
            at += 1 if count is None else count
        return cls(*args)

    def to_bytes(self) -> bytes:
        """The union's 36 bytes."""
        values: list[Any] = []
        for item in fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            if item.name in self.ARRAYS:
                values.extend(value)
            else:
                values.append(value)
        return self.STRUCT.pack(*values)


@dataclass
class VertexParams(UnionMember):
    """``vert``: the alternative (vertex A) program a vertex program may pair with."""

    alt_entrypoint: int
    alt_num_gprs: int
    #: the union's bytes past this member (zero in uam's output)
    unused: bytes = bytes(28)

    STRUCT: ClassVar[struct.Struct] = struct.Struct("<II28s")


@dataclass
class FragmentParams(UnionMember):
    """``frag``: fragment-stage state (the C ``bool`` fields are kept as their stored bytes)."""

    has_table_3d1: int
    early_fragment_tests: int
    post_depth_coverage: int
    #: ``sample_shading`` in uam before 2020-01-25; deko3d calls it ``persample_invocation``
    persample_invocation: int
    table_3d1: list[int]
    param_d8: int
    param_65b: int
    param_489: int
    unused: bytes = bytes(8)

    STRUCT: ClassVar[struct.Struct] = struct.Struct("<4B4IIHH8s")
    ARRAYS: ClassVar[dict[str, int]] = {"table_3d1": 4}


@dataclass
class GeometryParams(UnionMember):
    """``geom``: geometry-stage state."""

    flag_47c: int
    has_table_490: int
    #: ``_padding[2]``
    padding: bytes
    table_490: list[int]

    STRUCT: ClassVar[struct.Struct] = struct.Struct("<BB2s8I")
    ARRAYS: ClassVar[dict[str, int]] = {"table_490": 8}


@dataclass
class TessEvalParams(UnionMember):
    """``tess_eval``: the tessellation mode word (primitive, spacing, winding)."""

    param_c8: int
    unused: bytes = bytes(32)

    STRUCT: ClassVar[struct.Struct] = struct.Struct("<I32s")


@dataclass
class ComputeParams(UnionMember):
    """``comp``: block dimensions and memory sizes of a compute program."""

    block_dims: list[int]
    shared_mem_sz: int
    local_pos_mem_sz: int
    local_neg_mem_sz: int
    crs_sz: int
    num_barriers: int
    unused: bytes = bytes(4)

    STRUCT: ClassVar[struct.Struct] = struct.Struct("<3I5I4s")
    ARRAYS: ClassVar[dict[str, int]] = {"block_dims": 3}


@dataclass
class RawParams:
    """The union's 36 bytes of a program type that has no member (tessellation control, unknown types)."""

    data: bytes = bytes(PARAMS_SIZE)

    @classmethod
    def from_bytes(cls, raw: bytes) -> RawParams:
        """The union's 36 bytes, kept."""
        return cls(bytes(raw))

    def to_bytes(self) -> bytes:
        """The union's 36 bytes."""
        if len(self.data) != PARAMS_SIZE:
            raise ValueError(f"raw program parameters are {len(self.data)} bytes, not {PARAMS_SIZE}")
        return bytes(self.data)


StageParams = VertexParams | FragmentParams | GeometryParams | TessEvalParams | ComputeParams | RawParams


#: the union member of each program type (tessellation control and unknown types: RawParams)
PARAMS_OF_TYPE: dict[int, type[VertexParams | FragmentParams | GeometryParams | TessEvalParams | ComputeParams]] = {
    0: VertexParams, 1: FragmentParams, 2: GeometryParams, 4: TessEvalParams, TYPE_COMPUTE: ComputeParams}


def parse_params(program_type: int, raw: bytes) -> StageParams:
    """The union member of ``program_type`` read from its 36 bytes."""
    return PARAMS_OF_TYPE.get(program_type, RawParams).from_bytes(raw)


def params_bytes(params: StageParams) -> bytes:
    """The 36 union bytes of ``params``; ValueError when a value does not fit its field."""
    try:
        return params.to_bytes()
    except struct.error as exc:
        raise ValueError(f"{type(params).__name__}: {exc}") from None


@dataclass
class DkshProgramHeader:
    """The 64-byte program header (``DkshProgramHeader``); ``params`` is the union member of ``type``."""

    type: int
    #: offset in the code section: the SPH of a graphics program, the code of a compute program
    entrypoint: int
    num_gprs: int
    constbuf1_off: int
    constbuf1_sz: int
    per_warp_scratch_sz: int
    params: StageParams
    reserved: int = 0

    def to_bytes(self) -> bytes:
        """The 64 program-header bytes; ValueError when a field does not fit."""
        try:
            return _PROGRAM.pack(self.type, self.entrypoint, self.num_gprs, self.constbuf1_off, self.constbuf1_sz,
                                 self.per_warp_scratch_sz, params_bytes(self.params), self.reserved)
        except struct.error as exc:
            raise ValueError(f"program header: {exc}") from None

    @property
    def type_name(self) -> str:
        """``vertex``, ``fragment``, ``geometry``, ``tess_ctrl``, ``tess_eval``, ``compute`` (``type N``)."""
        return PROGRAM_TYPES.get(self.type, f"type {self.type}")

    @property
    def has_sph(self) -> bool:
        """Whether the entrypoint points at an SPH: every graphics program type (0-4)."""
        return 0 <= self.type < TYPE_COMPUTE


@dataclass
class DkshProgram:
    """One program: its header, its SPH (graphics programs), its Maxwell code and its constbuf1 data.

    ``code`` runs from the end of the SPH (compute: the entrypoint) to the next thing the module
    places after it (another program, a constbuf1, the section end), without trailing all-zero
    32-byte bundles (the padding uam adds to reach 256 bytes); the bytes left out stay in the layout.
    ``header.constbuf1_sz`` is recomputed from ``constbuf1`` and the offsets from where things go.
    """

    header: DkshProgramHeader
    sph: ShaderProgramHeader | None
    code: bytes
    constbuf1: bytes = b""

    @property
    def stage(self) -> str:
        """The program type's name (``vertex`` ... ``compute``)."""
        return self.header.type_name

    def entry_bytes(self) -> bytes:
        """What lies at the entrypoint: the SPH then the code (compute: the code)."""
        return self.code if self.sph is None else self.sph.to_bytes() + self.code

    @property
    def code_offset(self) -> int:
        """Where the code starts in the code section (entrypoint, plus 0x50 after an SPH)."""
        return self.header.entrypoint + (0 if self.sph is None else SPH_SIZE)


__all__ = [
    "DKSH_MAGIC", "HEADER_SIZE", "PROGRAM_HEADER_SIZE", "PARAMS_SIZE", "SECTION_ALIGNMENT", "PROGRAM_TYPES",
    "STAGE_NAMES", "DkshHeader", "DkshProgramHeader", "DkshProgram", "VertexParams", "FragmentParams",
    "GeometryParams", "TessEvalParams", "ComputeParams", "RawParams", "StageParams",
]

"""Nintendo Switch BNSH files (``nn::gfx::ResShaderFile``).

``Bnsh.from_bytes(data).to_bytes() == data`` for real files: while the structures keep their
sizes, the writer places them at the offsets they were read from; otherwise (and always with
:meth:`Bnsh.relayout`) it lays the whole file out again.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bnsh import writer
from shaderkit.formats.bnsh.model import (
    CODE_TYPES,
    STAGES,
    TABLES,
    CompilerReflection,
    MemoryPool,
    NvnShaderCode,
    ShaderProgram,
    ShaderVariation,
    SourceArrayCode,
    SourceCode,
    StageCode,
    UnknownStageCode,
)
from shaderkit.formats.bnsh.nvn import ControlSectionHeader, code_summary
from shaderkit.formats.bnsh.reader import SIGNATURE, Source, parse
from shaderkit.formats.nn.binary import BinaryFileHeader
from shaderkit.io.layout import Layout

_SIZES = struct.Struct("<II")


def _default_header() -> BinaryFileHeader:
    return BinaryFileHeader(SIGNATURE, 5, 1, 2)


@dataclass(repr=False)
class Bnsh(ShaderFile):
    """A BNSH file: the grsc container with its variations and the shader memory pool."""

    format_name: ClassVar[str] = "bnsh"

    name: str = ""
    variations: list[ShaderVariation] = field(default_factory=list)
    memory_pool: MemoryPool | None = field(default_factory=MemoryPool)
    header: BinaryFileHeader = field(default_factory=_default_header)
    header_reserved: bytes = bytes(0x40)
    target_api_type: int = 4
    target_api_version: int = 0
    target_code_type: int = 0
    compiler_version: int = 0x302
    low_level_compiler_version: int = 0
    grsc_reserved: int = 0
    grsc_reserved3: bytes = bytes(3)
    grsc_reserved40: bytes = bytes(40)
    #: Pool strings in their original order (decides the order when the pool is rebuilt).
    string_pool: list[str] = field(default_factory=list, compare=False)
    string_pool_reserved: int = 0
    relocation_padding: int = 0
    # where things lay in the file read, with its raw spans (None for a model built in code)
    _source: Source | None = field(default=None, repr=False, compare=False)

    @property
    def alignment(self) -> int:
        """The file alignment in bytes (from the header's alignment shift)."""
        return self.header.alignment

    @property
    def version(self) -> str:
        """The file version as ``major.minor.micro``."""
        return self.header.version

    # -- reading / writing ---------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Bnsh:
        try:
            p = parse(bytes(data))
        except RecursionError:  # pragma: no cover - the parser does not recurse on file data
            raise ShaderFormatError("structure nesting too deep", 0, "BNSH") from None
        api_type, api_version, code_type, res3, compiler, llc, res40 = p.grsc_fields
        model = cls(
            name=p.name, variations=p.variations, memory_pool=p.memory_pool, header=p.header,
            header_reserved=p.header_reserved, target_api_type=api_type, target_api_version=api_version,
            target_code_type=code_type, compiler_version=compiler, low_level_compiler_version=llc,
            grsc_reserved=p.grsc_reserved, grsc_reserved3=res3, grsc_reserved40=res40,
            string_pool=p.strings.strings, string_pool_reserved=p.strings.reserved,
            relocation_padding=p.relocation_table.padding,
        )
        model._source = p.source
        return model

    def to_bytes(self) -> bytes:
        """The file: every structure where it lay (raw spans as they were) while the layout still
        fits, else laid out anew. Raises UnsupportedOperation rather than drop non-zero raw spans
        (bytes no structure covers) when a new layout is needed: :meth:`relayout` drops them."""
        return writer.emit(self, self._source)

    def relayout(self) -> bytes:
        """Lay the file out again from the model alone (string pool, dictionaries, _RLT rebuilt).

        Raises UnsupportedOperation when the file read relocates pointers into bytes kept raw."""
        return writer.emit(self, self._source, fresh=True)

    def layout(self) -> Layout:
        """Where every structure lies: as stored in the file read, or as a fresh layout would put it."""
        if self._source is not None:
            return self._source.layout
        return writer.fresh_layout(self)[0]

    # -- stage code access -------------------------------------------------------------------
    def program(self, variation: int, kind: str = "binary") -> ShaderProgram:
        """The ``kind`` (source/intermediate_language/binary) program of ``variation``; IndexError/KeyError when absent."""
        if not 0 <= variation < len(self.variations):
            raise IndexError(f"variation {variation} does not exist ({len(self.variations)} variations)")
        program = getattr(self.variations[variation], f"{kind}_program")
        if program is None:
            raise KeyError(f"variation {variation} has no {kind} program")
        assert isinstance(program, ShaderProgram)
        return program

    def stage_code(self, variation: int, stage: str, kind: str = "binary") -> StageCode:
        """The code of ``stage`` in that program; KeyError when the stage is empty."""
        code = self.program(variation, kind).stage(stage)
        if code is None:
            raise KeyError(f"variation {variation} has no {stage} stage")
        return code

    def extract(self, variation: int, stage: str, kind: str = "binary") -> bytes:
        """A stage's code as one blob (see :func:`pack_stage`)."""
        return pack_stage(self.stage_code(variation, stage, kind))

    def replace(self, variation: int, stage: str, blob: bytes, kind: str = "binary") -> None:
        """Put a blob made like :meth:`extract`'s output in place of a stage's code."""
        program = self.program(variation, kind)
        index = STAGES.index(stage)
        old = program.stages[index]
        if old is None:
            raise KeyError(f"variation {variation} has no {stage} stage")
        program.stages[index] = unpack_stage(old, blob)

    # -- description ----------------------------------------------------------------------------
    def disassemble(self) -> str:
        """Maxwell text of every stage, SPH decoded (:mod:`shaderkit.formats.bnsh.text`)."""
        from shaderkit.formats.bnsh.text import bnsh_listing

        return bnsh_listing(self)

    def summary(self) -> dict[str, Any]:
        """``format``, ``version``, ``name``, ``alignment``, ``target_api_type``,
        ``target_api_version``, ``compiler_version``, ``low_level_compiler_version`` (integers),
        ``variation_count``, ``memory_pool_property``; ``stages``: one row per stage code
        (``variation``, ``program``, ``stage``, ``code_type``, then ``control_size``, ``data_size``,
        ``sph_type``, ``shader_type``, ``output_attributes``, ``registers`` for binary code or
        ``source_size``/``compressed``/``sources`` for source); ``reflection``: one row per
        dictionary entry (``variation``, ``stage``, ``table``, ``name``, ``slot``);
        ``compiler_reflection``: one row per entry of the compiler's reflection (``variation``,
        ``program``, ``table``, ``name`` and the entry's fields); ``layout``: every structure
        and raw span as stored (``item``, ``offset``, ``size``), see :meth:`layout`."""
        stages: list[dict[str, Any]] = []
        reflection: list[dict[str, Any]] = []
        compiler_rows: list[dict[str, Any]] = []
        for v, variation in enumerate(self.variations):
            for kind, program in variation.programs():
                if program.compiler_reflection is not None:
                    compiler_rows.extend(_compiler_rows(v, kind, program.compiler_reflection))
                for index, code in enumerate(program.stages):
                    if code is not None:
                        stages.append(_stage_summary(v, kind, program, STAGES[index], code))
                if program.reflection is None:
                    continue
                for index, rstage in enumerate(program.reflection.stages):
                    if rstage is None:
                        continue
                    for table, entries in zip(TABLES, rstage.tables()):
                        for name, slot in entries or ():
                            reflection.append({"variation": v, "stage": STAGES[index], "table": table,
                                               "name": name, "slot": slot})
                    if any(rstage.compute_work_group_size):
                        reflection.append({"variation": v, "stage": STAGES[index], "table": "work_group_size",
                                           "name": "x,y,z", "slot": list(rstage.compute_work_group_size)})
        return {
            "format": self.format_name,
            "version": self.version,
            "name": self.name,
            "alignment": self.alignment,
            "target_api_type": self.target_api_type,
            "target_api_type_name": TARGET_API_TYPES.get(self.target_api_type, str(self.target_api_type)),
            "target_api_version": self.target_api_version,
            "compiler_version": self.compiler_version,
            "low_level_compiler_version": self.low_level_compiler_version,
            "variation_count": len(self.variations),
            "memory_pool_property": self.memory_pool.memory_pool_property if self.memory_pool else None,
            "stages": stages,
            "reflection": reflection,
            "compiler_reflection": compiler_rows,
            "layout": self.layout().spans(),
        }


#: grsc targetApiType (shared/reference/nx_wiiu.md: 4 = NVN; other values are given as numbers)
TARGET_API_TYPES = {4: "nvn"}


def _compiler_rows(v: int, kind: str, refl: CompilerReflection) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for table, entries in refl.tables():
        for entry in entries or ():
            row: dict[str, Any] = {"variation": v, "program": kind, "table": table}
            for name, value in vars(entry).items():
                if isinstance(value, tuple):  # a slot per stage: its own key, so each key has one type
                    row[name + "s"] = list(value)
                elif not isinstance(value, bytes):
                    row[name] = value
            if isinstance(row.get("stages"), int):  # a bit per stage, in STAGES order
                row["stages_names"] = [stage for bit, stage in enumerate(STAGES) if row["stages"] >> bit & 1]
            rows.append(row)
    if any(refl.compute_work_group_size):
        rows.append({"variation": v, "program": kind, "table": "work_group_size",
                     "name": "x,y,z", "work_group_size": list(refl.compute_work_group_size)})
    return rows


def _stage_summary(v: int, kind: str, program: ShaderProgram, stage: str, code: StageCode) -> dict[str, Any]:
    row: dict[str, Any] = {"variation": v, "program": kind, "stage": stage,
                           "code_type": CODE_TYPES.get(program.code_type, str(program.code_type))}
    if isinstance(code, NvnShaderCode):
        row["control_size"] = len(code.control)
        row["data_size"] = len(code.data)
        if stage != "compute":  # graphics stages only: compute launches are described without an SPH
            sph = code_summary(code.data)
            row.update({k: sph[k] for k in ("sph_type", "shader_type", "output_attributes", "error") if k in sph})
        try:
            row["registers"] = ControlSectionHeader.from_bytes(code.control).program_reg_num
        except ShaderFormatError:
            pass
    elif isinstance(code, UnknownStageCode):
        row["stored_at"] = code.stored_at
    elif isinstance(code, SourceCode):
        row["source_size"] = len(code.code)
        row["compressed"] = code.compressed
    else:
        row["sources"] = [len(c) for c in code.codes]
    return row


def pack_stage(code: StageCode) -> bytes:
    """The ``extract`` blob: binary code is u32 control size, u32 data size (little-endian), the
    control section, then the data (NVN header, SPH, Maxwell code); source code is its text
    (decompressed); a source array is its texts joined by NUL bytes."""
    if isinstance(code, UnknownStageCode):
        raise UnsupportedOperation(f"stage code at {code.stored_at:#x} is of a type shaderkit does not model")
    if isinstance(code, NvnShaderCode):
        return _SIZES.pack(len(code.control), len(code.data)) + code.control + code.data
    if isinstance(code, SourceCode):
        try:
            return code.text()
        except ValueError as exc:
            raise ShaderFormatError(str(exc), None, "source code") from None
    return b"\0".join(code.codes)


def unpack_stage(old: StageCode, blob: bytes) -> StageCode:
    """New stage code of the same kind as ``old`` from a :func:`pack_stage` blob."""
    if isinstance(old, UnknownStageCode):
        raise UnsupportedOperation(f"stage code at {old.stored_at:#x} is of a type shaderkit does not model")
    if isinstance(old, NvnShaderCode):
        if len(blob) < _SIZES.size:
            raise ShaderFormatError("binary stage blob needs an 8-byte size header", 0, "replace")
        control_size, data_size = _SIZES.unpack_from(blob)
        if _SIZES.size + control_size + data_size != len(blob):
            raise ShaderFormatError(
                f"blob sizes {control_size}+{data_size} do not add up to {len(blob) - _SIZES.size}", 0, "replace")
        control = blob[_SIZES.size : _SIZES.size + control_size]
        data = blob[_SIZES.size + control_size :]
        return NvnShaderCode(control, data, old.data_address, old.scratch_memory_recommended,
                             old.scratch_memory_per_warp, old.reserved, old.decomposed_control_section_at)
    if isinstance(old, SourceCode):
        if old.compressed:
            return SourceCode(zlib.compress(blob), len(blob), old.reserved)
        return SourceCode(blob, old.decompressed_code_size and len(blob), old.reserved)
    assert isinstance(old, SourceArrayCode)
    return SourceArrayCode(blob.split(b"\0"), old.reserved0, old.reserved1)

"""SHARC v10/v11 (agl::ResShaderArchive): GLSL source archives.

Header 0x14: magic ``SHAA`` (``AAHS`` little-endian), version, file size, endian (0 big, 1
little), name length; the name; the program array; the source array. A program names its
vertex/pixel/geometry source files by index (-1 = none) and carries one ``#define`` macro
array per stage, the variation macros and defaults, and the four symbol arrays of SHARCFB.
A source element: u32 size, name length, code size, code size again; the name; the code.
"""

from __future__ import annotations

import math
import struct
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.agl.resarray import join_cstring, read_array, split_cstring, write_array
from shaderkit.formats.agl.sharcfb import (
    ENDIAN_FIELD,
    SYMBOL_KINDS,
    ShaderSymbol,
    VariationMacro,
    archive_size,
    macro_bytes,
    read_macro,
    read_symbol_arrays,
    symbol_arrays_bytes,
)
from shaderkit.formats.base import ShaderFile
from shaderkit.io.reader import Reader

VERSIONS = (10, 11)
MAGIC = {"<": b"AAHS", ">": b"SHAA"}
STAGES = ("vertex", "pixel", "geometry")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the SHARC at ``offset`` of ``data`` (see :func:`~.sharcfb.archive_size`)."""
    return archive_size(data, offset, MAGIC, VERSIONS, 0x14)


@dataclass
class ShaderMacro:
    """A ``#define name value`` given to one stage's source."""

    name: str
    value: str
    name_extra: bytes = field(default=b"", repr=False)
    value_extra: bytes = field(default=b"", repr=False)
    trail: bytes = field(default=b"", repr=False)


@dataclass
class ShaderSource:
    """One GLSL source file of a SHARC archive (name and stored bytes)."""
    name: str
    #: the source bytes as stored (usually ending with a NUL)
    code: bytes
    #: the second size word when it differs from the code size (else None)
    code_size_2: int | None = None
    name_extra: bytes = field(default=b"", repr=False)
    trail: bytes = field(default=b"", repr=False)

    @property
    def text(self) -> str:
        """The source code as text (trailing NULs removed): UTF-8, else Shift-JIS (Nintendo's own
        sources comment in Japanese), else UTF-8 with invalid bytes replaced."""
        raw = self.code.rstrip(b"\0")
        for encoding in ("utf-8", "shift_jis"):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError:
                pass
        return raw.decode("utf-8", errors="replace")


@dataclass
class SourceProgram:
    """One program of a SHARC archive: its source per stage, macros and symbols."""
    name: str
    #: source index per stage (vertex, pixel, geometry); -1 = no such stage
    source_index: list[int]
    macros: list[list[ShaderMacro]] = field(default_factory=lambda: [[], [], []])
    variation_macros: list[VariationMacro] = field(default_factory=list)
    defaults: list[VariationMacro] = field(default_factory=list)
    uniforms: list[ShaderSymbol] = field(default_factory=list)
    uniform_blocks: list[ShaderSymbol] = field(default_factory=list)
    samplers: list[ShaderSymbol] = field(default_factory=list)
    attributes: list[ShaderSymbol] = field(default_factory=list)
    name_extra: bytes = field(default=b"", repr=False)
    paddings: list[bytes] = field(default_factory=lambda: [b""] * 9, repr=False)
    trail: bytes = field(default=b"", repr=False)

    @property
    def variation_count(self) -> int:
        """The number of variations: the product of the value counts of every variation macro."""
        return math.prod(len(macro.values) for macro in self.variation_macros)


@dataclass(repr=False)  # compact repr from ShaderFile
class Sharc(ShaderFile):
    """A Wii U AGL shader source archive (SHARC): programs and the GLSL sources they use."""
    format_name: ClassVar[str] = "sharc"

    name: str = ""
    endian: str = ">"
    version: int = 11
    programs: list[SourceProgram] = field(default_factory=list)
    sources: list[ShaderSource] = field(default_factory=list)
    name_extra: bytes = field(default=b"", repr=False)
    program_padding: bytes = field(default=b"", repr=False)
    source_padding: bytes = field(default=b"", repr=False)
    tail: bytes = field(default=b"", repr=False)
    trailing: bytes = field(default=b"", repr=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Sharc:
        magic = bytes(data[:4])
        endian = next((e for e, m in MAGIC.items() if m == magic), None)
        if endian is None:
            raise ShaderFormatError(f"bad magic {magic!r}, expected b'SHAA' or b'AAHS'", 0, "sharc")
        r = Reader(data, endian=endian, context="sharc")
        _, version, file_size, endian_field, name_len = r.unpack("4s4I", "header")
        if endian_field != ENDIAN_FIELD[endian]:
            raise r.error(f"endian field {endian_field:#x} contradicts the magic {magic!r}", 0xC)
        if version not in VERSIONS:
            raise r.error(f"SHARC version {version} is not supported (10 or 11)", 4)
        if file_size > len(data) or file_size < 0x14:
            raise r.error(f"file size field {file_size:#x} disagrees with the {len(data):#x} bytes", 8)
        r.end = file_size
        name, name_extra = split_cstring(r.read(name_len, "name"), r, "name", 0x14)
        archive = cls(name=name, endian=endian, version=version, name_extra=name_extra)
        archive.programs, archive.program_padding = read_array(r, "programs", 0x14, _read_program)
        archive.sources, archive.source_padding = read_array(r, "sources", 0x10, _read_source)
        archive.tail = r.read(r.remaining)
        archive.trailing = bytes(data[file_size:])
        for i, program in enumerate(archive.programs):
            for stage, index in zip(STAGES, program.source_index):
                if index < -1 or index >= len(archive.sources):
                    raise ShaderFormatError(
                        f"program {program.name!r}: {stage} source index {index} is beyond the "
                        f"{len(archive.sources)} sources", None, f"sharc.programs[{i}]",
                    )
        return archive

    def to_bytes(self) -> bytes:
        e = self.endian
        if e not in MAGIC:
            raise ValueError(f"endian must be '<' or '>', not {self.endian!r}")
        name = join_cstring(self.name, self.name_extra)
        body = write_array(e, [_program_bytes(p, e) for p in self.programs], self.program_padding)
        body += write_array(e, [_source_bytes(s, e) for s in self.sources], self.source_padding)
        size = 0x14 + len(name) + len(body) + len(self.tail)
        header = struct.pack(f"{e}4I", self.version, size, ENDIAN_FIELD[e], len(name))
        return MAGIC[e] + header + name + body + self.tail + self.trailing

    def source_of(self, program: SourceProgram, stage: str) -> ShaderSource | None:
        """The source of ``program`` for ``stage`` (``vertex``, ``pixel`` or ``geometry``; ValueError for others), or None when it has none."""
        index = program.source_index[STAGES.index(stage)]
        return self.sources[index] if 0 <= index < len(self.sources) else None

    def disassemble(self) -> str:
        """The archive's text: per program its sources by stage and its variation macros (``//``
        comments), then every GLSL source under ``// ==== source NAME``, as stored."""
        out: list[str] = []
        for p in self.programs:
            out.append(f"// ==== program {p.name}")
            for stage, i in zip(STAGES, p.source_index):
                if 0 <= i < len(self.sources):
                    out.append(f"//   {stage}: {self.sources[i].name}")
            for macro in p.variation_macros:
                named = f"{macro.name} ({macro.id})" if macro.id else macro.name
                out.append(f"//   variation {named}: {', '.join(macro.values)}")
            out.append("")
        for source in self.sources:
            text = source.text
            out += [f"// ==== source {source.name} ({len(source.code)} bytes)", text.rstrip("\n"), ""]
        return "\n".join(out) if out else "// no programs or sources\n"

    def summary(self) -> dict[str, Any]:
        """Keys: format, version, name, endian; ``programs``: name, <stage>_source (file name or
        None), variation_count, macros, <stage>_defines (count) and symbol counts; ``sources``:
        name, size, lines."""
        return {
            "format": self.format_name,
            "version": self.version,
            "name": self.name,
            "endian": "little" if self.endian == "<" else "big",
            "programs": [
                {
                    "name": p.name,
                    **{f"{stage}_source": (self.sources[i].name if 0 <= i < len(self.sources) else None)
                       for stage, i in zip(STAGES, p.source_index)},
                    "variation_count": p.variation_count,
                    "macros": [{"name": m.name, "id": m.id, "values": list(m.values)} for m in p.variation_macros],
                    **{f"{stage}_defines": len(p.macros[k]) for k, stage in enumerate(STAGES)},
                    **{kind: len(getattr(p, kind)) for kind in SYMBOL_KINDS},
                }
                for p in self.programs
            ],
            "sources": [{"name": s.name, "size": len(s.code), "lines": s.text.count("\n") + 1}
                        for s in self.sources],
        }


def _read_define(r: Reader, index: int) -> ShaderMacro:
    start = r.tell()
    _, name_len, value_len = r.unpack("3I", "macro header")
    name, name_extra = split_cstring(r.read(name_len, "macro name"), r, "macro name", start + 0xC)
    value, value_extra = split_cstring(r.read(value_len, "macro value"), r, "macro value", r.tell() - value_len)
    return ShaderMacro(name, value, name_extra, value_extra, r.read(r.remaining))


def _read_program(r: Reader, index: int) -> SourceProgram:
    start = r.tell()
    _, name_len, vs, ps, gs = r.unpack("2I3i", "program header")
    name, name_extra = split_cstring(r.read(name_len, "program name"), r, "program name", start + 0x14)
    program = SourceProgram(name, [vs, ps, gs], name_extra=name_extra)
    with r.scope(name):
        for k, stage in enumerate(STAGES):
            program.macros[k], program.paddings[k] = read_array(r, f"{stage}_macros", 0xC, _read_define)
        program.variation_macros, program.paddings[3] = read_array(r, "variation_macros", 0x10, read_macro)
        program.defaults, program.paddings[4] = read_array(r, "defaults", 0x10, read_macro)
        read_symbol_arrays(r, program, 5)
        program.trail = r.read(r.remaining)
    return program


def _read_source(r: Reader, index: int) -> ShaderSource:
    start = r.tell()
    _, name_len, code_size, code_size_2 = r.unpack("4I", "source header")
    name, name_extra = split_cstring(r.read(name_len, "source name"), r, "source name", start + 0x10)
    code = r.read(code_size, "source code")
    return ShaderSource(name, code, None if code_size_2 == code_size else code_size_2, name_extra,
                        r.read(r.remaining))


def _define_bytes(m: ShaderMacro, e: str) -> bytes:
    name = join_cstring(m.name, m.name_extra)
    value = join_cstring(m.value, m.value_extra)
    size = 0xC + len(name) + len(value) + len(m.trail)
    return struct.pack(f"{e}3I", size, len(name), len(value)) + name + value + m.trail


def _program_bytes(p: SourceProgram, e: str) -> bytes:
    name = join_cstring(p.name, p.name_extra)
    body = b"".join(
        write_array(e, [_define_bytes(m, e) for m in p.macros[k]], p.paddings[k]) for k in range(3)
    )
    body += write_array(e, [macro_bytes(m, e) for m in p.variation_macros], p.paddings[3])
    body += write_array(e, [macro_bytes(m, e) for m in p.defaults], p.paddings[4])
    body += symbol_arrays_bytes(p, e, 5)
    size = 0x14 + len(name) + len(body) + len(p.trail)
    return struct.pack(f"{e}2I3i", size, len(name), *p.source_index) + name + body + p.trail


def _source_bytes(s: ShaderSource, e: str) -> bytes:
    name = join_cstring(s.name, s.name_extra)
    size2 = len(s.code) if s.code_size_2 is None else s.code_size_2
    size = 0x10 + len(name) + len(s.code) + len(s.trail)
    return struct.pack(f"{e}4I", size, len(name), len(s.code), size2) + name + s.code + s.trail

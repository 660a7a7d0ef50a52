"""SHARCFB v8 (agl::ResBinaryShaderArchive): compiled GX2 shaders grouped into named programs.

Header 0x18: magic ``SHAB`` (``BAHS`` little-endian), version 8, file size, endian (0 big, 1
little), resolved flag (0 in files), name length; the name; the shader binary array; the
program array. u32 words follow the file's endianness; strings and microcode are never swapped.

Inside a shader binary (SharcCompiler output, the only public sample) the GX2 struct comes
first, then its arrays, the names, the loop vars, zero padding up to a 0x100-aligned *file*
offset and the microcode; the writer lays new binaries out the same way.
"""

from __future__ import annotations

import copy
import math
import re
import struct
from collections.abc import Callable
from typing import Any, ClassVar, SupportsIndex, overload

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.agl.resarray import join_cstring, read_array, split_cstring, swap_words, write_array
from shaderkit.formats.agl.variation import Variation, VariationError, variation_index
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.gx2.shader import PLAIN, SHADER_TYPES, GX2Shader, cemu_base_hash
from shaderkit.io.reader import Reader

VERSION = 8
MAGIC = {"<": b"BAHS", ">": b"SHAB"}
ENDIAN_FIELD = {"<": 1, ">": 0}
CODE_ALIGN = 0x100
STAGE_NAMES = {0: "vertex", 1: "pixel", 2: "geometry"}
KIND_VERTEX, KIND_PIXEL, KIND_GEOMETRY = 1, 2, 4
#: the order of a program's symbol arrays (agl ShaderSymbolType)
SYMBOL_KINDS = ("uniforms", "uniform_blocks", "samplers", "attributes")


def archive_size(data: bytes, offset: int, magics: dict[str, bytes], versions: tuple[int, ...],
                 header_size: int) -> int | None:
    """The size of the AGL archive (magic per byte order in ``magics``, one of ``versions``) at
    ``offset`` of ``data`` as its header gives it, or None when the bytes there are not a consistent
    header."""
    head = bytes(data[offset : offset + 4])
    order = next((e for e, m in magics.items() if m == head), None)
    if order is None or offset + header_size > len(data):
        return None
    version, size, endian_field = struct.unpack_from(order + "3I", data, offset + 4)
    if version not in versions or endian_field != ENDIAN_FIELD[order] or not header_size <= size <= len(data) - offset:
        return None
    return size


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the SHARCFB at ``offset`` of ``data`` (see :func:`archive_size`)."""
    return archive_size(data, offset, MAGIC, (VERSION,), 0x18)


@dataclass
class ShaderBinary:
    """One shader binary: type (0 VS, 1 PS, 2 GS) and its GX2 struct blob."""

    type: int
    shader: GX2Shader
    #: bytes between the 0x10-byte header and the data (the data offset), and after the data
    lead: bytes = b""
    trail: bytes = b""

    @property
    def stage(self) -> str:
        """The stage name of the binary's ``type`` (``type_N`` for unknown values)."""
        return STAGE_NAMES.get(self.type, f"type_{self.type}")


@dataclass
class VariationMacro:
    """A macro and its possible values (in the defaults array: its single default value)."""

    name: str
    values: list[str]
    id: str
    #: the value bytes as stored, when they were not the plain NUL-joined values (extra NULs),
    #: and the values they encode; used again only while ``values`` is unchanged
    raw_values: bytes | None = field(default=None, repr=False)
    raw_for: list[str] | None = field(default=None, repr=False, compare=False)
    name_extra: bytes = field(default=b"", repr=False)
    id_extra: bytes = field(default=b"", repr=False)
    trail: bytes = field(default=b"", repr=False)

    def values_bytes(self) -> bytes:
        """The NUL-terminated value strings as stored (the original bytes while the values are unchanged)."""
        if self.raw_values is not None and self.raw_for == self.values:
            return self.raw_values
        return b"".join(v.encode("latin-1") + b"\0" for v in self.values)


@dataclass
class ShaderSymbol:
    """A uniform, uniform block, sampler or attribute symbol of a program.

    ``default_value`` holds big-endian (Wii U order) words for every kind except uniform blocks,
    whose default bytes are stored as they are; ``used`` has one flag byte per variation.
    """

    name: str
    id: str
    offset: int
    default_value: bytes
    used: bytes
    name_extra: bytes = field(default=b"", repr=False)
    id_extra: bytes = field(default=b"", repr=False)
    trail: bytes = field(default=b"", repr=False)


@dataclass
class ShaderProgram:
    """One program of a SHARCFB archive: variation macros, symbols and its first binary index."""
    name: str
    kind: int
    base_index: int
    macros: list[VariationMacro] = field(default_factory=list)
    defaults: list[VariationMacro] = field(default_factory=list)
    uniforms: list[ShaderSymbol] = field(default_factory=list)
    uniform_blocks: list[ShaderSymbol] = field(default_factory=list)
    samplers: list[ShaderSymbol] = field(default_factory=list)
    attributes: list[ShaderSymbol] = field(default_factory=list)
    name_extra: bytes = field(default=b"", repr=False)
    #: bytes left after the last element of each of the six arrays, and after them
    paddings: list[bytes] = field(default_factory=lambda: [b""] * 6, repr=False)
    trail: bytes = field(default=b"", repr=False)
    archive: Sharcfb | None = field(default=None, repr=False, compare=False)

    @property
    def has_geometry_shader(self) -> bool:
        """True when the program kind has the geometry bit (three binaries per variation)."""
        return bool(self.kind & KIND_GEOMETRY)

    @property
    def stride(self) -> int:
        """Binaries per variation: 3 with a geometry shader, else 2 (vertex, pixel)."""
        return 3 if self.has_geometry_shader else 2

    @property
    def variation_count(self) -> int:
        """The number of variations: the product of the value counts of every macro."""
        return math.prod(len(macro.values) for macro in self.macros)

    def default_values(self) -> dict[str, str]:
        """Each macro's default: the defaults array entry of the same name, else its first value."""
        found = {d.name: d.values[0] for d in self.defaults if d.values}
        return {m.name: found.get(m.name, m.values[0] if m.values else "") for m in self.macros}

    def variation_index(self, settings: dict[str, str] | None = None) -> int:
        """The variation number for macro ``settings`` (others at their defaults); KeyError/ValueError for unknown names or values."""
        return variation_index([(m.name, m.values) for m in self.macros], self.default_values(), settings or {})

    def variation(self, settings: dict[str, str] | None = None) -> Variation:
        """The binaries of one variation; macros not given take their defaults."""
        index = self.variation_index(settings)
        first = self.base_index + index * self.stride
        indices = list(range(first, first + self.stride))
        binaries = self.archive.binaries if self.archive is not None else []
        if indices[-1] >= len(binaries) and self.archive is not None:
            raise VariationError(f"binary index {indices[-1]} is beyond the {len(binaries)} binaries")
        stages = STAGE_NAMES.values()
        return Variation(
            program=self.name, index=index, binary_indices=dict(zip(stages, indices)),
            binaries={s: binaries[i] for s, i in zip(stages, indices) if i < len(binaries)},
        )

    def symbols(self) -> dict[str, list[ShaderSymbol]]:
        """The program's symbol lists by kind (uniforms, uniform blocks, samplers, attributes)."""
        return {kind: getattr(self, kind) for kind in SYMBOL_KINDS}


class ProgramList(list[ShaderProgram]):
    """A list of programs that can also be indexed by program name."""

    @overload
    def __getitem__(self, key: SupportsIndex) -> ShaderProgram: ...
    @overload
    def __getitem__(self, key: slice) -> list[ShaderProgram]: ...
    @overload
    def __getitem__(self, key: str) -> ShaderProgram: ...

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for program in self:
                if program.name == key:
                    return program
            names = ", ".join(self.names()) or "none"
            raise KeyError(f"no program {key!r} (programs: {names})")
        return super().__getitem__(key)

    def names(self) -> list[str]:
        """The program names in file order."""
        return [p.name for p in self]


@dataclass(repr=False)  # compact repr from ShaderFile
class Sharcfb(ShaderFile):
    """A Wii U AGL binary shader archive (SHARCFB): programs and their GX2 shader binaries."""
    format_name: ClassVar[str] = "sharcfb"

    name: str = ""
    endian: str = ">"
    version: int = VERSION
    resolved: int = 0
    binaries: list[ShaderBinary] = field(default_factory=list)
    programs: ProgramList = field(default_factory=ProgramList)
    name_extra: bytes = field(default=b"", repr=False)
    binary_padding: bytes = field(default=b"", repr=False)
    program_padding: bytes = field(default=b"", repr=False)
    #: bytes after the program array up to the file size, and after the file size
    tail: bytes = field(default=b"", repr=False)
    trailing: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.programs, ProgramList):
            self.programs = ProgramList(self.programs)
        self._link()

    def _link(self) -> None:
        """Let each program reach the binary array (for ``ShaderProgram.variation``)."""
        for program in self.programs:
            program.archive = self

    # -- reading ----------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Sharcfb:
        magic = bytes(data[:4])
        endian = next((e for e, m in MAGIC.items() if m == magic), None)
        if endian is None:
            raise ShaderFormatError(f"bad magic {magic!r}, expected b'SHAB' or b'BAHS'", 0, "sharcfb")
        r = Reader(data, endian=endian, context="sharcfb")
        _, version, file_size, endian_field, resolved, name_len = r.unpack("4s5I", "header")
        if endian_field != ENDIAN_FIELD[endian]:
            raise r.error(f"endian field {endian_field:#x} contradicts the magic {magic!r}", 0xC)
        if version != VERSION:
            raise r.error(f"SHARCFB version {version} is not supported (only {VERSION})", 4)
        if file_size > len(data) or file_size < 0x18:
            raise r.error(f"file size field {file_size:#x} disagrees with the {len(data):#x} bytes", 8)
        r.end = file_size
        name, name_extra = split_cstring(r.read(name_len, "name"), r, "name", 0x18)
        archive = cls(name=name, endian=endian, version=version, resolved=resolved, name_extra=name_extra)
        archive.binaries, archive.binary_padding = read_array(r, "binaries", 0x10, _read_binary)
        programs, archive.program_padding = read_array(r, "programs", 0x10, _read_program)
        archive.programs = ProgramList(programs)
        archive.tail = r.read(r.remaining)
        archive.trailing = bytes(data[file_size:])
        archive._link()
        for i, program in enumerate(archive.programs):
            needed = program.base_index + program.variation_count * program.stride
            if program.base_index < 0 or needed > len(archive.binaries):
                raise ShaderFormatError(
                    f"program {program.name!r}: base index {program.base_index} with "
                    f"{program.variation_count} variations needs {needed} binaries, have {len(archive.binaries)}",
                    None, f"sharcfb.programs[{i}]",
                )
        return archive

    # -- writing ----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        e = self.endian
        if e not in MAGIC:
            raise ValueError(f"endian must be '<' or '>', not {self.endian!r}")
        name = join_cstring(self.name, self.name_extra)
        pos = 0x18 + len(name) + 8  # first binary element
        elements = []
        for binary in self.binaries:
            data_at = pos + 0x10 + len(binary.lead)
            blob = binary.shader.build(PLAIN, e, data_at, CODE_ALIGN).data
            elem = struct.pack(f"{e}4I", 0x10 + len(binary.lead) + len(blob) + len(binary.trail), binary.type,
                               len(binary.lead), len(blob))
            elements.append(elem + binary.lead + blob + binary.trail)
            pos += len(elements[-1])
        body = write_array(e, elements, self.binary_padding)
        body += write_array(e, [_program_bytes(p, e) for p in self.programs], self.program_padding)
        size = 0x18 + len(name) + len(body) + len(self.tail)
        header = struct.pack(f"{e}5I", self.version, size, ENDIAN_FIELD[e], self.resolved, len(name))
        return MAGIC[e] + header + name + body + self.tail + self.trailing

    def relayout(self) -> bytes:
        """The file with every shader binary laid out afresh (struct, arrays, names, loop vars,
        zero padding, 0x100-aligned microcode), forgetting the parsed placement and gaps."""
        fresh = copy.deepcopy(self)
        for binary in fresh.binaries:
            binary.shader.layout = None
            binary.lead = binary.trail = b""
        return fresh.to_bytes()

    def variation(self, program: str, settings: dict[str, str] | None = None) -> Variation:
        """The binaries of one variation of the named program (macros not given: defaults)."""
        found = self.programs[program]
        found.archive = self
        return found.variation(settings)

    # -- checks and views ---------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Programs whose binaries are not VS, PS(, GS) in turn, or lack a VS or PS, and symbols
        whose used flags do not match the variation count."""
        found = []
        for program in self.programs:
            if program.kind & (KIND_VERTEX | KIND_PIXEL) != KIND_VERTEX | KIND_PIXEL:
                found.append(f"program {program.name!r}: kind {program.kind:#x} lacks a vertex or pixel shader")
            for v in range(program.variation_count):
                for stage, t in zip(range(program.stride), (0, 1, 2)):
                    i = program.base_index + v * program.stride + stage
                    if i < len(self.binaries) and self.binaries[i].type != t:
                        found.append(f"program {program.name!r} variation {v}: binary {i} is a "
                                     f"{self.binaries[i].stage} shader, expected {STAGE_NAMES[t]}")
            for kind, symbols in program.symbols().items():
                for s in symbols:
                    if len(s.used) != program.variation_count:
                        found.append(f"program {program.name!r} {kind} {s.name!r}: {len(s.used)} used "
                                     f"flags for {program.variation_count} variations")
        return found

    def disassemble(self) -> str:
        """Every GX2 program's Latte listing (decaf syntax) under a gfd-tool-like header."""
        from shaderkit.formats.gx2.listing import listing
        from shaderkit.formats.gx2.programs import sharcfb_shaders

        return listing(sharcfb_shaders(self))

    def summary(self) -> dict[str, Any]:
        """Keys: format, version, name, endian; ``programs``: name, kind, stages, base_index,
        variation_count, macros (name, id, values, default) and the four symbol lists (name, id,
        offset, default_size); ``binaries``: index, stage, program_size, array counts and, for pixel
        shaders, cemu_base_hash."""
        return {
            "format": self.format_name,
            "version": self.version,
            "name": self.name,
            "endian": "little" if self.endian == "<" else "big",
            "programs": [_program_summary(p) for p in self.programs],
            "binaries": [
                {"index": i, "stage": b.stage, "program_size": len(b.shader.program), **_counts(b.shader),
                 **_cemu(b.shader)}
                for i, b in enumerate(self.binaries)
            ],
        }


def _cemu(shader: GX2Shader) -> dict[str, str]:
    cemu = cemu_base_hash(shader.STAGE, shader.regs, shader.program)
    return {} if cemu is None else {"cemu_base_hash": cemu}


def _counts(shader: GX2Shader) -> dict[str, int]:
    return {k: len(getattr(shader, k)) for k in shader.ARRAYS}


def _program_summary(p: ShaderProgram) -> dict[str, Any]:
    defaults = p.default_values()
    return {
        "name": p.name,
        "kind": p.kind,
        "stages": [s for bit, s in zip((KIND_VERTEX, KIND_PIXEL, KIND_GEOMETRY), STAGE_NAMES.values())
                   if p.kind & bit],
        "base_index": p.base_index,
        "variation_count": p.variation_count,
        "macros": [{"name": m.name, "id": m.id, "values": list(m.values), "default": defaults[m.name]}
                   for m in p.macros],
        **{kind: [{"name": s.name, "id": s.id, "offset": s.offset, "default_size": len(s.default_value)}
                  for s in getattr(p, kind)] for kind in SYMBOL_KINDS},
    }


# -- element readers ----------------------------------------------------------------------------
def _read_binary(r: Reader, index: int) -> ShaderBinary:
    start = r.tell()
    size, btype, offset, data_size = r.unpack("4I", "binary header")
    if btype not in SHADER_TYPES:
        raise r.error(f"unknown shader type {btype}", start + 4)
    offset_s = offset - (1 << 32) if offset & 0x80000000 else offset
    data_at = start + 0x10 + offset_s
    if offset_s < 0 or data_size > size - 0x10 - offset_s:
        raise r.error(f"data offset {offset_s:#x} + size {data_size:#x} runs outside the {size:#x}-byte binary",
                      start + 8)
    shader = SHADER_TYPES[btype].parse(r, data_at, data_size, PLAIN)
    lead = r.data[start + 0x10 : data_at]
    trail = r.data[data_at + data_size : start + size]
    return ShaderBinary(btype, shader, lead, trail)


_NON_NUL = re.compile(rb"[^\0]")


def _skip_nuls(data: bytes, pos: int, end: int) -> int:
    found = _NON_NUL.search(data, pos, end)
    return found.start() if found else max(pos, end)


def read_macro(r: Reader, index: int) -> VariationMacro:
    """Values are NUL-terminated; like agl's ``getValue``/``getID``, NULs before each value and
    before the ID are skipped."""
    start = r.tell()
    _, name_len, value_count, id_len = r.unpack("4I", "macro header")
    name, name_extra = split_cstring(r.read(name_len, "macro name"), r, "macro name", start + 0x10)
    if value_count * 2 > r.remaining:
        raise r.error(f"macro {name!r} declares {value_count} values, {r.remaining} bytes left", start + 8)
    data, vstart, last = r.data, r.tell(), r.end - id_len
    if last < vstart:
        raise r.error(f"macro id of {id_len} bytes does not fit", start + 0xC)
    pos, values = vstart, list[str]()
    for _ in range(value_count):
        pos = _skip_nuls(data, pos, last)
        nul = data.find(b"\0", pos, last)
        if pos >= last or nul < 0:
            raise r.error(f"macro {name!r} declares {value_count} values, has {len(values)}", start + 8)
        values.append(data[pos:nul].decode("latin-1"))
        pos = nul + 1
    pos = _skip_nuls(data, pos, last)
    raw = data[vstart:pos]
    r.seek(pos)
    ident, id_extra = split_cstring(r.read(id_len, "macro id"), r, "macro id", pos)
    macro = VariationMacro(name, values, ident, name_extra=name_extra, id_extra=id_extra, trail=r.read(r.remaining))
    if macro.values_bytes() != raw:
        macro.raw_values, macro.raw_for = raw, list(values)
    return macro


def symbol_reader(swap: bool, little: bool) -> Callable[[Reader, int], ShaderSymbol]:
    """A reader of one symbol record for the archive's byte order (``swap``: words stored swapped)."""
    def parse(r: Reader, index: int) -> ShaderSymbol:
        start = r.tell()
        _, offset, name_len, id_len, default_size, var_count = r.unpack("Ii4I", "symbol header")
        name, name_extra = split_cstring(r.read(name_len, "symbol name"), r, "symbol name", start + 0x18)
        ident, id_extra = split_cstring(r.read(id_len, "symbol id"), r, "symbol id", r.tell() - id_len)
        default = r.read(default_size, "default value")
        if swap and little:
            default = swap_words(default)
        used = r.read(var_count, "used flags")
        return ShaderSymbol(name, ident, offset, default, used, name_extra, id_extra, r.read(r.remaining))

    return parse


def read_symbol_arrays(r: Reader, program: Any, first: int) -> None:
    """Read a program's four symbol arrays (``SYMBOL_KINDS`` order) into its attributes of those
    names; the bytes after each array go to ``program.paddings[first:first + 4]`` (SHARCFB and
    SHARC programs share this part)."""
    little = r.endian == "<"
    for i, kind in enumerate(SYMBOL_KINDS):
        reader = symbol_reader(kind != "uniform_blocks", little)
        symbols, program.paddings[first + i] = read_array(r, kind, 0x18, reader)
        setattr(program, kind, symbols)


def _read_program(r: Reader, index: int) -> ShaderProgram:
    start = r.tell()
    _, name_len, kind, base_index = r.unpack("3Ii", "program header")
    name, name_extra = split_cstring(r.read(name_len, "program name"), r, "program name", start + 0x10)
    with r.scope(name):
        program = ShaderProgram(name, kind, base_index, name_extra=name_extra)
        program.macros, program.paddings[0] = read_array(r, "macros", 0x10, read_macro)
        program.defaults, program.paddings[1] = read_array(r, "defaults", 0x10, read_macro)
        read_symbol_arrays(r, program, 2)
        program.trail = r.read(r.remaining)
    return program


# -- element writers ----------------------------------------------------------------------------
def macro_bytes(m: VariationMacro, e: str) -> bytes:
    """The bytes of one variation macro record in byte order ``e`` (``<`` or ``>``)."""
    name = join_cstring(m.name, m.name_extra)
    values = m.values_bytes()
    ident = join_cstring(m.id, m.id_extra)
    size = 0x10 + len(name) + len(values) + len(ident) + len(m.trail)
    return struct.pack(f"{e}4I", size, len(name), len(m.values), len(ident)) + name + values + ident + m.trail


def symbol_bytes(s: ShaderSymbol, e: str, swap: bool) -> bytes:
    """The bytes of one symbol record in byte order ``e``; ``swap`` swaps default-value words."""
    name = join_cstring(s.name, s.name_extra)
    ident = join_cstring(s.id, s.id_extra)
    default = swap_words(s.default_value) if swap and e == "<" else s.default_value
    size = 0x18 + len(name) + len(ident) + len(default) + len(s.used) + len(s.trail)
    head = struct.pack(f"{e}Ii4I", size, s.offset, len(name), len(ident), len(default), len(s.used))
    return head + name + ident + default + bytes(s.used) + s.trail


def symbol_arrays_bytes(program: Any, e: str, first: int) -> bytes:
    """The four symbol arrays of ``program``, each followed by ``program.paddings[first + i]``."""
    return b"".join(
        write_array(e, [symbol_bytes(s, e, kind != "uniform_blocks") for s in getattr(program, kind)],
                    program.paddings[first + i])
        for i, kind in enumerate(SYMBOL_KINDS)
    )


def _program_bytes(p: ShaderProgram, e: str) -> bytes:
    name = join_cstring(p.name, p.name_extra)
    body = write_array(e, [macro_bytes(m, e) for m in p.macros], p.paddings[0])
    body += write_array(e, [macro_bytes(m, e) for m in p.defaults], p.paddings[1])
    body += symbol_arrays_bytes(p, e, 2)
    size = 0x10 + len(name) + len(body) + len(p.trail)
    return struct.pack(f"{e}3Ii", size, len(name), p.kind, p.base_index) + name + body + p.trail

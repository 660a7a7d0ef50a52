"""GX2VertexShader (0x134), GX2PixelShader (0xE8) and GX2GeometryShader (0xC0) with their arrays.

A shader "blob" is the struct followed by its arrays, names and (in SHARCFB) the microcode.
Pointers inside it are offsets from the struct start, either plain (SHARCFB) or tagged with
0xD0600000 (data) / 0xCA700000 (strings) as in GFD/GSH header blocks.

The parser records where every item of the blob lay, which names shared bytes, and the bytes
no item covers in an :class:`shaderkit.io.layout.Layout`, so that an unchanged model is written
back byte for byte. The blob is relocatable (every pointer is an offset from the struct start),
so the GX2 rule for writing is a flow: the items in their stored order with the bytes that stood
in front of each, new items in the canonical order, every pointer, count and size recomputed;
an item that grows or shrinks moves the ones after it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, ClassVar, cast

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.gx2.types import (
    GX2AttribVar,
    GX2GeometryShaderRegs,
    GX2LoopVar,
    GX2PixelShaderRegs,
    GX2RBuffer,
    GX2SamplerVar,
    GX2UniformBlock,
    GX2UniformInitialValue,
    GX2UniformVar,
    GX2VertexShaderRegs,
    _RegisterBlock,
    sampler_type_name,
    var_type_name,
)
from shaderkit.io.layout import Layout
from shaderkit.io.reader import Reader

Key = str | tuple[str, int]

DATA, STRING = "data", "string"
TAG_MASK = 0xFFF00000
#: longest name accepted; bounds the work a file of many pointers into one unterminated run can cause
MAX_NAME_BYTES = 0x1000


def _name_at(blob: Reader, at: int) -> str:
    end = min(blob.end, at + MAX_NAME_BYTES)
    nul = blob.data.find(b"\0", at, end)
    if nul < 0:
        raise blob.error(f"name at {at:#x} has no terminator within {end - at} bytes", at)
    return blob.data[at:nul].decode("latin-1")


@dataclass(frozen=True)
class PointerStyle:
    """How a pointer word encodes an offset from the struct start (0 is always null)."""

    name: str
    data_tag: int = 0
    string_tag: int = 0
    #: microcode lives inside the blob (SHARCFB) rather than in a separate block (GSH)
    code_inside: bool = True
    #: alignment of new name strings (gshCompile starts each name on a 4-byte boundary)
    string_align: int = 1
    #: arrays placed after the names in a new layout (SharcCompiler puts the loop vars there)
    late_arrays: tuple[str, ...] = ()

    def decode(self, r: Reader, value: int, kind: str, what: str) -> int | None:
        """The file offset stored in pointer ``value`` (None for 0); ShaderFormatError when its tag is wrong."""
        if value == 0:
            return None
        tag = self.data_tag if kind == DATA else self.string_tag
        if tag:
            if value & TAG_MASK != tag:
                raise r.error(f"{what}: pointer {value:#010x} lacks the {kind} tag {tag:#010x}")
            return value & ~TAG_MASK
        return value

    def encode(self, offset: int, kind: str) -> int:
        """The pointer word for file ``offset`` with this style's tag; ValueError when it does not fit."""
        tag = self.data_tag if kind == DATA else self.string_tag
        if tag and offset & TAG_MASK:
            raise ValueError(f"offset {offset:#x} does not fit a tagged pointer")
        return tag | offset


PLAIN = PointerStyle("plain", late_arrays=("loop_vars",))
TAGGED = PointerStyle("tagged", 0xD0600000, 0xCA700000, code_inside=False, string_align=4)


@lru_cache(maxsize=256)
def _words(endian: str, count: int) -> struct.Struct:
    return struct.Struct(f"{endian}{count}I")


# -- arrays: name -> (record class, words per record, index of the name word or -1) ---------------
Record = GX2UniformBlock | GX2UniformVar | GX2UniformInitialValue | GX2LoopVar | GX2SamplerVar | GX2AttribVar

ARRAY_INFO: dict[str, tuple[int, int]] = {
    "uniform_blocks": (3, 0),
    "uniform_vars": (5, 0),
    "initial_values": (5, -1),
    "loop_vars": (2, -1),
    "sampler_vars": (3, 0),
    "attrib_vars": (4, 0),
}
NAMED_ARRAYS = ("uniform_blocks", "uniform_vars", "sampler_vars", "attrib_vars")


def _i32(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


def _record(kind: str, w: tuple[int, ...], name: str) -> Record:
    if kind == "uniform_blocks":
        return GX2UniformBlock(name, w[1], w[2])
    if kind == "uniform_vars":
        return GX2UniformVar(name, w[1], w[2], w[3], _i32(w[4]))
    if kind == "initial_values":
        return GX2UniformInitialValue((w[0], w[1], w[2], w[3]), w[4])
    if kind == "loop_vars":
        return GX2LoopVar(w[0], w[1])
    if kind == "sampler_vars":
        return GX2SamplerVar(name, w[1], w[2])
    return GX2AttribVar(name, w[1], w[2], w[3])


def _record_words(rec: Record, name_ptr: int) -> list[int]:
    if isinstance(rec, GX2UniformBlock):
        return [name_ptr, rec.offset, rec.size]
    if isinstance(rec, GX2UniformVar):
        return [name_ptr, rec.type, rec.count, rec.offset, rec.block & 0xFFFFFFFF]
    if isinstance(rec, GX2UniformInitialValue):
        return [*rec.value_bits, rec.offset]
    if isinstance(rec, GX2LoopVar):
        return [rec.offset, rec.value]
    if isinstance(rec, GX2SamplerVar):
        return [name_ptr, rec.type, rec.location]
    return [name_ptr, rec.type, rec.count, rec.location]


@dataclass
class _Flow:
    """The stored order of a parsed blob's items and the bytes in front of each, derived from its
    :class:`Layout` for writing (see :func:`_flow`)."""

    order: list[Key]
    #: bytes in front of an item; for code items only when they differ from the alignment padding
    gaps: dict[Key, bytes] = field(default_factory=dict)
    #: bytes after the last item; None when they were just the padding to the string alignment
    tail: bytes | None = None
    #: name items that shared another name's bytes
    aliases: dict[Key, Key] = field(default_factory=dict)


@dataclass
class BuiltBlob:
    """A GX2 shader structure laid out as bytes, with its string region and pointer fields."""
    data: bytes
    #: first string byte (or the blob end when there are none) - GSH "text" region start
    text_start: int
    #: pointer-field positions in GFD patch-list order (0 for null pointers)
    patch_fields: list[int]


CODE_KEYS = ("program", "vertex_program")
#: fields only some stages have: the struct word that holds them, and the value they keep elsewhere
STAGE_ONLY_FIELDS: dict[str, tuple[str, Any]] = {
    "ring_item_size": ("ring_item_size", 0),
    "has_stream_out": ("has_stream_out", 0),
    "stream_out_stride": ("stream_out_stride", [0, 0, 0, 0]),
    "gx2r_vertex_shader_data": ("gx2r_vertex_shader_data", GX2RBuffer()),
    "vertex_program": ("vertex_program_ptr", b""),
}


@dataclass
class GX2Shader:
    """Fields shared by the three shader structs; a subclass names the stage and register block."""

    STAGE: ClassVar[str] = ""
    SIZE: ClassVar[int] = 0
    REGS: ClassVar[type[_RegisterBlock]] = _RegisterBlock
    #: struct words after the registers: (name, word count)
    TAIL: ClassVar[tuple[tuple[str, int], ...]] = ()
    ARRAYS: ClassVar[tuple[str, ...]] = ()

    regs: Any = None
    program: bytes = field(default=b"", repr=False)
    mode: int = 0
    uniform_blocks: list[GX2UniformBlock] = field(default_factory=list)
    uniform_vars: list[GX2UniformVar] = field(default_factory=list)
    initial_values: list[GX2UniformInitialValue] = field(default_factory=list)
    loop_vars: list[GX2LoopVar] = field(default_factory=list)
    sampler_vars: list[GX2SamplerVar] = field(default_factory=list)
    attrib_vars: list[GX2AttribVar] = field(default_factory=list)
    ring_item_size: int = 0
    has_stream_out: int = 0
    stream_out_stride: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    gx2r_data: GX2RBuffer = field(default_factory=GX2RBuffer)
    #: geometry shaders: the GS copy (vertex) program and its GX2R buffer
    vertex_program: bytes = field(default=b"", repr=False)
    gx2r_vertex_shader_data: GX2RBuffer = field(default_factory=GX2RBuffer)
    #: GSH only: the program pointer words as stored (the code lives in its own block)
    program_ptr: int = 0
    vertex_program_ptr: int = 0
    #: GSH only: sizes the struct declares for programs whose program block is missing or empty
    #: (decaf reads such files); written back while that program stays empty
    absent_program_sizes: dict[str, int] = field(default_factory=dict)
    layout: Layout | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.regs is None:
            self.regs = self.REGS()

    # -- reading ----------------------------------------------------------------------------
    @classmethod
    def parse(cls, r: Reader, base: int, size: int, style: PointerStyle) -> GX2Shader:
        """Parse the blob ``r.data[base:base+size]`` (absolute offsets); ``layout`` records where
        each item lay (code alignment is the writer's: :meth:`build` takes it)."""
        blob = r.sub(base, size, cls.STAGE)
        if size < cls.SIZE:
            raise blob.error(f"{size} bytes cannot hold the {cls.SIZE:#x}-byte struct", base)
        nregs = cls.REGS.word_count()
        ntail = sum(n for _, n in cls.TAIL)
        words = blob.unpack_at(base, f"{nregs + ntail}I", "struct")
        shader = cls(regs=cls.REGS.from_words(words[:nregs]))
        tail: dict[str, tuple[int, ...]] = {}
        pos = nregs
        for name, n in cls.TAIL:
            tail[name] = words[pos : pos + n]
            pos += n
        spans: list[tuple[int, int, Key]] = []
        shader._read_arrays(blob, base, tail, style, spans)
        shader._read_scalars(tail)
        if style.code_inside:
            shader._read_code(blob, base, tail, style, spans)
        else:
            shader.program_ptr = tail["program_ptr"][0]
            if "vertex_program_ptr" in tail:
                shader.vertex_program_ptr = tail["vertex_program_ptr"][0]
        shader.layout = _layout(blob, base, size, cls.SIZE, spans)
        return shader

    def _read_scalars(self, tail: dict[str, tuple[int, ...]]) -> None:
        self.mode = tail["mode"][0]
        if "ring_item_size" in tail:
            self.ring_item_size = tail["ring_item_size"][0]
            self.has_stream_out = tail["has_stream_out"][0]
            self.stream_out_stride = list(tail["stream_out_stride"])
        self.gx2r_data = GX2RBuffer(*tail["gx2r_data"])
        if "gx2r_vertex_shader_data" in tail:
            self.gx2r_vertex_shader_data = GX2RBuffer(*tail["gx2r_vertex_shader_data"])

    def _read_arrays(
        self, blob: Reader, base: int, tail: dict[str, tuple[int, ...]], style: PointerStyle,
        spans: list[tuple[int, int, Key]],
    ) -> None:
        for kind in self.ARRAYS:
            count, ptr = tail[kind]
            nwords, name_word = ARRAY_INFO[kind]
            with blob.scope(kind):
                off = style.decode(blob, ptr, DATA, f"{kind} pointer")
                if off is None:
                    if count:
                        raise blob.error(f"count {count} with a null pointer", base)
                    continue
                if off > blob.end - base:
                    raise blob.error(f"pointer {off:#x} is outside the {blob.end - base:#x}-byte shader data", base)
                blob.check_count(count, nwords * 4, "records", offset=base + off)
                flat = blob.unpack_at(base + off, f"{count * nwords}I", kind) if count else ()
                spans.append((off, off + count * nwords * 4, kind))
                records: list[Any] = getattr(self, kind)
                for i in range(count):
                    w = flat[i * nwords : (i + 1) * nwords]
                    name = ""
                    if name_word >= 0:
                        with blob.scope(f"[{i}]"):
                            noff = style.decode(blob, w[name_word], STRING, "name pointer")
                            if noff is None or noff >= blob.end - base:
                                raise blob.error(f"name pointer {w[name_word]:#x} is outside the shader data",
                                                 base + off + i * nwords * 4)
                            name = _name_at(blob, base + noff)
                            spans.append((noff, noff + len(name) + 1, (kind, i)))
                    records.append(_record(kind, w, name))

    def _read_code(
        self, blob: Reader, base: int, tail: dict[str, tuple[int, ...]], style: PointerStyle,
        spans: list[tuple[int, int, Key]],
    ) -> None:
        for key in CODE_KEYS:
            if f"{key}_ptr" not in tail:
                continue
            size, ptr = tail[f"{key}_size"][0], tail[f"{key}_ptr"][0]
            with blob.scope(key):
                off = style.decode(blob, ptr, DATA, "program pointer")
                if off is None:
                    if size:
                        raise blob.error(f"program of {size} bytes has a null pointer")
                    continue
                if off > blob.end - base:
                    raise blob.error(f"program offset {off:#x} is outside the shader data", base)
                code = blob.at(base + off).read(size, "program")
                setattr(self, key, code)
                spans.append((off, off + size, key))

    # -- writing ----------------------------------------------------------------------------
    def _items(self, style: PointerStyle) -> Iterator[tuple[Key, int]]:
        """Every item the current model needs, in canonical order, with its size."""
        layout = self.layout
        arrays = [k for k in self.ARRAYS if k not in style.late_arrays]
        late = [k for k in self.ARRAYS if k in style.late_arrays]
        for kind in arrays:
            yield from self._array_item(kind, layout)
        for kind in NAMED_ARRAYS:
            if kind in self.ARRAYS:
                for i, rec in enumerate(getattr(self, kind)):
                    yield (kind, i), len(rec.name.encode("latin-1")) + 1
        for kind in late:
            yield from self._array_item(kind, layout)
        for key in CODE_KEYS:
            if f"{key}_ptr" in dict(self.TAIL):
                code = getattr(self, key)
                if code or (layout is not None and key in layout.items):
                    yield key, len(code)

    def _array_item(self, kind: str, layout: Layout | None) -> Iterator[tuple[Key, int]]:
        records = getattr(self, kind)
        if records or (layout is not None and kind in layout.items):
            yield kind, len(records) * ARRAY_INFO[kind][0] * 4

    def build(self, style: PointerStyle, endian: str, base: int = 0, code_align: int = 0x100) -> BuiltBlob:
        """Serialise the blob; ``base`` is its absolute file offset (for code alignment)."""
        layout = None if self.layout is None else _flow(self.layout, self.SIZE, code_align, style.string_align)
        for kind in ARRAY_INFO:
            if kind not in self.ARRAYS and getattr(self, kind):
                raise ValueError(f"a {self.STAGE} shader has no {kind}")
        tail_names = {name for name, _ in self.TAIL}
        for name, (word, empty) in STAGE_ONLY_FIELDS.items():
            if word not in tail_names and getattr(self, name) != empty:
                raise ValueError(f"a {self.STAGE} shader has no {name}")
        sizes: dict[Key, int] = {}
        for key, size in self._items(style):
            if key in CODE_KEYS and not style.code_inside:
                continue
            sizes[key] = size
        alias: dict[Key, Key] = {}
        if layout is not None:
            for key, target in layout.aliases.items():
                if key in sizes and target in sizes and self._name(key) == self._name(target):
                    alias[key] = target
        order: list[Key] = []
        if layout is not None:
            order = [k for k in layout.order if k in sizes and k not in alias]
        known = set(order)
        new = [k for k in sizes if k not in known and k not in alias]
        first_code = next((i for i, k in enumerate(order) if k in CODE_KEYS), len(order))
        new_data = [k for k in new if k not in CODE_KEYS]
        order[first_code:first_code] = new_data
        order += [k for k in new if k in CODE_KEYS]

        # pass 1: positions
        pos: dict[Key, int] = {}
        gaps: list[bytes] = []
        cursor = self.SIZE
        for key in order:
            gap = layout.gaps.get(key) if layout is not None else None
            if gap is None and key in known and key not in CODE_KEYS:
                gap = b""  # a parsed item that had nothing in front of it
            if gap is None:
                if key in CODE_KEYS:
                    gap = bytes(-(base + cursor) % code_align) if code_align else b""
                elif isinstance(key, tuple):
                    gap = bytes(-cursor % style.string_align)
                else:
                    gap = b""
            gaps.append(gap)
            cursor += len(gap)
            pos[key] = cursor
            cursor += sizes[key]
        for key, target in alias.items():
            pos[key] = pos[target]
        if layout is not None and layout.tail is not None:
            tail = layout.tail
        else:
            tail = bytes(-cursor % style.string_align) if any(isinstance(k, tuple) for k in order) else b""

        # pass 2: bytes
        out = bytearray(self._struct_bytes(style, endian, pos))
        for key, gap in zip(order, gaps):
            out += gap
            out += self._item_bytes(key, style, endian, pos)
        out += tail
        strings = [p for k, p in pos.items() if isinstance(k, tuple)]
        return BuiltBlob(bytes(out), min(strings) if strings else len(out), self._patch_fields(pos))

    def _name(self, key: Key) -> str:
        assert isinstance(key, tuple)
        return str(getattr(self, key[0])[key[1]].name)

    def _item_bytes(self, key: Key, style: PointerStyle, endian: str, pos: dict[Key, int]) -> bytes:
        if isinstance(key, tuple):
            return self._name(key).encode("latin-1") + b"\0"
        if key in CODE_KEYS:
            return bytes(getattr(self, key))
        flat: list[int] = []
        for i, rec in enumerate(getattr(self, key)):
            name_ptr = style.encode(pos[(key, i)], STRING) if (key, i) in pos else 0
            flat += _record_words(rec, name_ptr)
        return _words(endian, len(flat)).pack(*flat)

    def _struct_bytes(self, style: PointerStyle, endian: str, pos: dict[Key, int]) -> bytes:
        words = self.regs.words()
        for name, n in self.TAIL:
            words += self._tail_words(name, n, style, pos)
        return _words(endian, len(words)).pack(*words)

    def _tail_words(self, name: str, n: int, style: PointerStyle, pos: dict[Key, int]) -> list[int]:
        if name in self.ARRAYS:
            return [len(getattr(self, name)), style.encode(pos[name], DATA) if name in pos else 0]
        if name in ("program_size", "vertex_program_size"):
            code = getattr(self, name[:-5])
            return [len(code) if code else self.absent_program_sizes.get(name[:-5], 0)]
        if name in ("program_ptr", "vertex_program_ptr"):
            key = name[:-4]
            if not style.code_inside:
                return [getattr(self, name)]
            return [style.encode(pos[key], DATA) if key in pos else 0]
        value = getattr(self, name)
        if isinstance(value, GX2RBuffer):
            return value.words()
        if isinstance(value, list):
            if len(value) != n:
                raise ValueError(f"{name} needs {n} words")
            return list(value)
        return [int(value)]

    def _patch_fields(self, pos: dict[Key, int]) -> list[int]:
        """GFD patch order: pointer fields of the struct, then every name pointer, then two zeros."""
        fields: list[int] = []
        offset = self.REGS.word_count() * 4
        for name, n in self.TAIL:
            if name in ("program_ptr", "vertex_program_ptr"):
                fields.append(offset if getattr(self, name) else 0)
            elif name in self.ARRAYS:
                fields.append(offset + 4 if name in pos else 0)
            offset += 4 * n
        for kind in NAMED_ARRAYS:
            if kind in self.ARRAYS and kind in pos:
                nwords = ARRAY_INFO[kind][0]
                fields += [pos[kind] + i * nwords * 4 for i in range(len(getattr(self, kind)))]
        return fields + [0, 0]

    # -- showing ----------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Stage, mode, program size in bytes, Cemu base hash and the reflection tables present, JSON-ready."""
        out: dict[str, Any] = {
            "stage": self.STAGE,
            "mode": self.mode,
            "program_size": len(self.program),
        }
        if self.vertex_program:
            out["vertex_program_size"] = len(self.vertex_program)
        cemu = cemu_base_hash(self.STAGE, self.regs, self.program)
        if cemu is not None:
            out["cemu_base_hash"] = cemu
        if self.uniform_blocks:
            out["uniform_blocks"] = [
                {"name": b.name, "offset": b.offset, "size": b.size} for b in self.uniform_blocks
            ]
        if self.uniform_vars:
            out["uniform_vars"] = [
                {"name": v.name, "type": var_type_name(v.type), "count": v.count, "offset": v.offset,
                 "block": v.block}
                for v in self.uniform_vars
            ]
        if self.initial_values:
            out["initial_values"] = [
                {"offset": v.offset, "value": [x if math.isfinite(x) else repr(x) for x in v.value]}
                for v in self.initial_values
            ]
        if self.loop_vars:
            out["loop_vars"] = [{"offset": v.offset, "value": v.value} for v in self.loop_vars]
        if self.sampler_vars:
            out["sampler_vars"] = [
                {"name": s.name, "type": sampler_type_name(s.type), "location": s.location}
                for s in self.sampler_vars
            ]
        if self.attrib_vars:
            out["attrib_vars"] = [
                {"name": a.name, "type": var_type_name(a.type), "count": a.count, "location": a.location}
                for a in self.attrib_vars
            ]
        return out


def cemu_base_hash(stage: str, regs: Any, program: bytes) -> str | None:
    """The base hash Cemu names a pixel shader by (16 hex digits, the first part of graphic-pack
    names ``<base>_<aux>_ps.txt``) when no geometry shader is bound; None for other stages, whose
    base hash also depends on draw-time state (fetch shader, render state)."""
    if stage != "pixel" or regs is None or not program:
        return None
    from shaderkit.isa.latte.cemu import pixel_base_hash

    return f"{pixel_base_hash(program, regs.spi_ps_in_control_0, regs.spi_ps_input_cntls):016x}"


def _layout(blob: Reader, base: int, size: int, struct_size: int, spans: list[tuple[int, int, Key]]) -> Layout:
    """Record every item where it lay (names at one offset share), check that items do not
    overlap, and keep the bytes no item covers as raw spans."""
    spans.sort(key=lambda s: (s[0], s[1]))
    kept: list[tuple[int, int, Key]] = []
    cursor = struct_size
    prev: tuple[int, int, Key] | None = None
    for start, end, key in spans:
        if start < cursor:
            if (isinstance(key, tuple) and prev is not None and isinstance(prev[2], tuple)
                    and (start, end) == prev[:2]):
                kept.append((start, end, key))  # recorded after its twin: shares its storage
                continue
            raise ShaderFormatError(
                f"{key if isinstance(key, str) else key[0]} at {start:#x} overlaps the item before it",
                base + start, blob.context,
            )
        kept.append((start, end, key))
        cursor = end
        prev = (start, end, key)
    layout = Layout()
    data = memoryview(blob.data)
    # empty items last, so that sharing is only ever recorded between items with bytes
    for start, end, key in [k for k in kept if k[1] > k[0]] + [k for k in kept if k[1] == k[0]]:
        layout.record(key, start, bytes(data[base + start : base + end]))
    layout.close(data[: base + size], base, covered=[(0, struct_size)])
    return layout


def _flow(layout: Layout, struct_size: int, code_align: int, string_align: int) -> _Flow:
    """The items of ``layout`` in stored order (ties by end, then as recorded), each with the raw
    bytes in front of it, the raw bytes after the last one, and the names that shared another's
    bytes. Bytes that were just the alignment padding (code: to ``code_align`` in the file; the
    tail: to ``string_align`` after names) are left out, so that the writer pads afresh."""
    aliases: dict[Key, Key] = {cast(Key, k): cast(Key, t) for k, t in layout.shared.items()
                               if isinstance(k, tuple) and isinstance(t, tuple)}
    ranked = sorted(layout.items.items(), key=lambda item: (item[1].offset, item[1].end))
    flow = _Flow([cast(Key, k) for k, _ in ranked if k not in aliases], aliases=aliases)
    cursor = struct_size
    for key in flow.order:
        placement = layout.items[key]
        gap = layout.raw_between(cursor, placement.offset)
        if key not in CODE_KEYS or not code_align or gap != bytes(-(layout.start + cursor) % code_align):
            flow.gaps[key] = gap
        cursor = placement.end
    tail = layout.raw_between(cursor, layout.size)
    natural = bytes(-cursor % string_align) if any(isinstance(k, tuple) for k in flow.order) else b""
    flow.tail = None if tail == natural else tail
    return flow


@dataclass
class GX2VertexShader(GX2Shader):
    """GX2VertexShader: vertex shader registers, reflection arrays and program."""
    STAGE: ClassVar[str] = "vertex"
    SIZE: ClassVar[int] = 0x134
    REGS: ClassVar[type[_RegisterBlock]] = GX2VertexShaderRegs
    TAIL: ClassVar[tuple[tuple[str, int], ...]] = (
        ("program_size", 1), ("program_ptr", 1), ("mode", 1),
        ("uniform_blocks", 2), ("uniform_vars", 2), ("initial_values", 2), ("loop_vars", 2),
        ("sampler_vars", 2), ("attrib_vars", 2), ("ring_item_size", 1), ("has_stream_out", 1),
        ("stream_out_stride", 4), ("gx2r_data", 4),
    )
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "uniform_blocks", "uniform_vars", "initial_values", "loop_vars", "sampler_vars", "attrib_vars",
    )


@dataclass
class GX2PixelShader(GX2Shader):
    """GX2PixelShader: pixel shader registers, reflection arrays and program."""
    STAGE: ClassVar[str] = "pixel"
    SIZE: ClassVar[int] = 0xE8
    REGS: ClassVar[type[_RegisterBlock]] = GX2PixelShaderRegs
    TAIL: ClassVar[tuple[tuple[str, int], ...]] = (
        ("program_size", 1), ("program_ptr", 1), ("mode", 1),
        ("uniform_blocks", 2), ("uniform_vars", 2), ("initial_values", 2), ("loop_vars", 2),
        ("sampler_vars", 2), ("gx2r_data", 4),
    )
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "uniform_blocks", "uniform_vars", "initial_values", "loop_vars", "sampler_vars",
    )


@dataclass
class GX2GeometryShader(GX2Shader):
    """GX2GeometryShader: geometry shader registers, arrays, program and copy (vertex) program."""
    STAGE: ClassVar[str] = "geometry"
    SIZE: ClassVar[int] = 0xC0
    REGS: ClassVar[type[_RegisterBlock]] = GX2GeometryShaderRegs
    TAIL: ClassVar[tuple[tuple[str, int], ...]] = (
        ("program_size", 1), ("program_ptr", 1), ("vertex_program_size", 1), ("vertex_program_ptr", 1),
        ("mode", 1),
        ("uniform_blocks", 2), ("uniform_vars", 2), ("initial_values", 2), ("loop_vars", 2),
        ("sampler_vars", 2), ("ring_item_size", 1), ("has_stream_out", 1),
        ("stream_out_stride", 4), ("gx2r_data", 4), ("gx2r_vertex_shader_data", 4),
    )
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "uniform_blocks", "uniform_vars", "initial_values", "loop_vars", "sampler_vars",
    )


#: SHARCFB binary type / stage index -> struct class
SHADER_TYPES: dict[int, type[GX2Shader]] = {0: GX2VertexShader, 1: GX2PixelShader, 2: GX2GeometryShader}

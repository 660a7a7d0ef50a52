"""DVOJ shader objects (unlinked, one shader each) and the DVOB file that holds them.

DVOJ layout (seed "3DS Files - Video Shaders", offsets relative to the DVOJ start): magic, three
unknown words (0x04 follows the shader type, 0x0C is usually 0xFFFFFFFF), then nine
offset/count pairs: constants (20 B), labels (16 B), code (4 B), operand descriptors (8 B),
line numbers (8 B), relocations (12 B), outputs (8 B), inputs (8 B) and the symbol table (bytes).
Labels, line numbers and inputs name their strings by offset into that one symbol table.

No real DVOB/DVOJ file is known. A file starting with ``DVOJ`` is a single object. For ``DVOB``
we assume the DVLB pattern: magic, u32 object count, u32 absolute offset of each DVOJ.
Like :mod:`shaderkit.formats.dvlb.dvlb`, a parsed file keeps an :class:`~shaderkit.io.layout.Layout`
(where each header, table and symbol string lay; raw spans for the rest): unchanged items go back
where they lay, new or resized ones after the stored bytes, 4-aligned.
"""

from __future__ import annotations

import struct
from functools import partial
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dvlb.dvlb import (
    SHADER_TYPES,
    Constant,
    Dvlb,
    Dvle,
    Dvlp,
    Label,
    OperandDescriptor,
    Output,
    Uniform,
    _table,
    mask_text,
)
from shaderkit.formats.dvlb.pack import (
    _CONSTANT,
    _LABEL,
    _OPDESC,
    _OUTPUT,
    _UNIFORM,
    _encode_name,
    _pack_constants,
    _pack_labels,
    _pack_opdescs,
    _pack_outputs,
    _pack_uniforms,
    pack_u32s,
)
from shaderkit.formats.dvlb.placement import Recorder, Relayout, SymbolTable, stored_fields, u32_offset
from shaderkit.io.layout import Key, Layout, PlacedWriter, append_aligned
from shaderkit.io.reader import Reader
from shaderkit.io.writer import Writer

DVOB_MAGIC = b"DVOB"
DVOJ_MAGIC = b"DVOJ"
_DVOJ_HEADER = struct.Struct("<4s3I18I")
DVOJ_HEADER_SIZE = _DVOJ_HEADER.size  # 0x58
_LINE = struct.Struct("<II")
_RELOCATION = struct.Struct("<III")
#: entry size of each table, in header order (the symbol table counts bytes)
_TABLES = (
    ("constants", _CONSTANT.size),
    ("labels", _LABEL.size),
    ("code", 4),
    ("operand descriptors", _OPDESC.size),
    ("line numbers", _LINE.size),
    ("relocations", _RELOCATION.size),
    ("outputs", _OUTPUT.size),
    ("inputs", _UNIFORM.size),
    ("symbols", 1),
)


@dataclass
class LineNumber:
    """Source position of one code word."""

    filename: str
    line: int


@dataclass
class Relocation:
    """A relocation entry: the word address of an instruction and two unknown words."""

    address: int
    unknown0: int = 0
    unknown1: int = 0


@dataclass
class Dvoj:
    """One shader object: code, descriptors and the entry-point tables, with one symbol table."""

    shader_type: int = 0
    unknown_08: int = 0
    unknown_0c: int = 0xFFFFFFFF
    code: list[int] = field(default_factory=list)
    opdescs: list[OperandDescriptor] = field(default_factory=list)
    constants: list[Constant] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    line_numbers: list[LineNumber] = field(default_factory=list)
    relocations: list[Relocation] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    inputs: list[Uniform] = field(default_factory=list)

    def counts(self) -> tuple[int, ...]:
        """The counts of the object's tables in header order (constants, labels, code, ...)."""
        return (
            len(self.constants), len(self.labels), len(self.code), len(self.opdescs),
            len(self.line_numbers), len(self.relocations), len(self.outputs), len(self.inputs),
        )  # fmt: skip

    def to_dvlb(self) -> Dvlb:
        """A one-entry SHBIN model holding this object's code and tables (entry at word 0)."""
        dvle = Dvle(
            shader_type=self.shader_type & 0xFF,
            main_offset=0,
            endmain_offset=len(self.code),
            constants=list(self.constants),
            labels=list(self.labels),
            outputs=list(self.outputs),
            uniforms=list(self.inputs),
        )
        return Dvlb(Dvlp(code=list(self.code), opdescs=list(self.opdescs)), [dvle])

    def names(self) -> list[str]:
        """Every string the tables refer to, in reference order (labels, line numbers, inputs)."""
        return [lb.name for lb in self.labels] + [ln.filename for ln in self.line_numbers] + [u.name for u in self.inputs]


@dataclass(repr=False)  # compact repr from ShaderFile
class Dvob(ShaderFile):
    """A DVOB file (objects behind an offset table) or a bare DVOJ object (``magic == b"DVOJ"``)."""

    format_name: ClassVar[str] = "dvob"

    objects: list[Dvoj] = field(default_factory=list)
    magic: bytes = DVOB_MAGIC
    #: where every item of a parsed file lay; None lays the model out afresh
    layout: Layout | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Dvob:
        return _parse(bytes(data))

    def to_bytes(self) -> bytes:
        if self.layout is not None and (self.magic != DVOJ_MAGIC or len(self.objects) == 1):
            try:
                return _write_placed(self, self.layout)
            except Relayout:
                pass
        return _write_canonical(self)

    def relayout(self) -> bytes:
        """The DVOB written with the canonical layout (offsets and sizes recomputed)."""
        return _write_canonical(self)

    def disassemble(self) -> str:
        return "\n".join(obj.to_dvlb().disassemble() for obj in self.objects)

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "magic": self.magic.decode("ascii"),
            "object_count": len(self.objects),
            "objects": [_object_summary(i, obj) for i, obj in enumerate(self.objects)],
            "layout": self.layout_rows(),
        }

    def layout_rows(self) -> list[dict[str, object]]:
        """Every item and raw span as stored (``item``, ``offset``, ``size``), ordered by offset; a
        model built in memory reports the layout it is written with."""
        layout = self.layout if self.layout is not None else _parse(self.to_bytes()).layout
        assert layout is not None
        return layout.spans()


def _object_summary(index: int, obj: Dvoj) -> dict[str, Any]:
    return {
        "index": index,
        "shader_type": SHADER_TYPES.get(obj.shader_type, str(obj.shader_type)),
        "unknown_08": f"{obj.unknown_08:#x}",
        "unknown_0c": f"{obj.unknown_0c:#x}",
        "code_words": len(obj.code),
        "opdesc_count": len(obj.opdescs),
        "line_number_count": len(obj.line_numbers),
        "relocation_count": len(obj.relocations),
        "inputs": [{"name": u.name, "registers": u.register_range} for u in obj.inputs],
        "constants": [{"type": c.type_name, "register": c.register_name, "value": c.value} for c in obj.constants],
        "outputs": [{"semantic": o.semantic_name, "register": f"o{o.register}", "mask": mask_text(o.mask)} for o in obj.outputs],
        "labels": [{"id": lb.id, "name": lb.name, "offset": lb.program_offset} for lb in obj.labels],
    }


# -- parsing ----------------------------------------------------------------------------------------

KEY_DVOB_HEADER: Key = ("dvob", "header")
#: key part of each table after ("dvoj", index), in header order
TABLE_KEYS = ("constants", "labels", "code", "opdescs", "line_numbers", "relocations", "outputs", "inputs")
#: the tables whose entries name a string: (table, key part), in names() order
NAMED = (("labels", 1), ("line_numbers", 4), ("inputs", 7))


def dvoj_key(index: int, part: str) -> Key:
    """The layout key of part ``part`` of DVOJ object ``index``."""
    return ("dvoj", index, part)


def _name_keys(index: int, obj: Dvoj) -> list[Key]:
    """The key of each string, in names() order."""
    counts = (len(obj.labels), len(obj.line_numbers), len(obj.inputs))
    return [("dvoj", index, table, entry, "name") for (table, _), n in zip(NAMED, counts) for entry in range(n)]


def _parse(data: bytes) -> Dvob:
    r = Reader(data, context="DVOB")
    magic = r.read(4, "magic")
    rec = Recorder(r)
    if magic == DVOJ_MAGIC:
        offsets = [0]
    elif magic == DVOB_MAGIC:
        count = r.u32()
        r.check_count(count, 4, "DVOJ offset table")
        offsets = list(r.unpack(f"{count}I", "DVOJ offset table"))
        rec.table(KEY_DVOB_HEADER, 0, r.tell(), "DVOB header")
    else:
        raise r.error(f"bad magic: expected b'DVOB' or b'DVOJ', found {magic!r}", 0)
    objects: list[Dvoj] = []
    rec.guard()
    for index, offset in enumerate(offsets):
        with r.scope(f"DVOJ[{index}]"):
            objects.append(_parse_dvoj(r, data, index, offset, rec))
        rec.guard()
    return Dvob(objects, magic, rec.finish())


def _parse_dvoj(r: Reader, data: bytes, index: int, base: int, rec: Recorder) -> Dvoj:
    if base + DVOJ_HEADER_SIZE > r.end:
        raise r.error(f"DVOJ header at {base:#x} runs past the end ({r.end:#x})", min(base, r.end))
    magic, shader_type, unknown_08, unknown_0c, *pairs = _DVOJ_HEADER.unpack_from(data, base)
    if magic != DVOJ_MAGIC:
        raise r.error(f"bad DVOJ magic: found {magic!r}", base)
    rec.table(dvoj_key(index, "header"), base, DVOJ_HEADER_SIZE, f"DVOJ header at {base:#x}")
    rel = pairs[0::2]
    counts = pairs[1::2]
    starts: list[int] = []
    for (what, item), part, off, n in zip(_TABLES, (*TABLE_KEYS, "symbols"), rel, counts):
        with r.scope(what):
            start = _table(r, base + off, n, item, what)
        if part == "symbols":  # the symbol table is its strings; bytes between them stay raw
            rec.extent(start, n * item, f"DVOJ at {base:#x} {what}")
        else:
            rec.table(dvoj_key(index, part), start, n * item, f"DVOJ at {base:#x} {what}")
        starts.append(start)

    def rows(i: int, st: struct.Struct) -> list[tuple[Any, ...]]:
        start = starts[i]
        return list(st.iter_unpack(data[start : start + counts[i] * st.size])) if counts[i] else []

    sym_abs, sym_size = starts[8], counts[8]
    symbols = r.sub(sym_abs, sym_size, "symbols") if sym_size else None

    def name_at(sym: int, table: str, entry: int) -> str:
        what = f"{table}[{entry}]"
        if symbols is None or sym >= sym_size:
            raise r.error(f"{what}: symbol offset {sym:#x} is outside the symbol table ({sym_size} bytes)", sym_abs)
        text = symbols.cstring_at(sym_abs + sym, "ascii", what)
        rec.string(("dvoj", index, table, entry, "name"), sym_abs + sym, _encode_name(text) + b"\0")
        return text

    obj = Dvoj(shader_type=shader_type, unknown_08=unknown_08, unknown_0c=unknown_0c)
    obj.constants = [Constant(t, reg, (a, b, c, d)) for t, reg, a, b, c, d in rows(0, _CONSTANT)]
    obj.labels = [
        Label(lid, prog, name_at(sym, "labels", i), unk, bytes(res))
        for i, (lid, res, prog, unk, sym) in enumerate(rows(1, _LABEL))
    ]
    obj.code = list(struct.unpack_from(f"<{counts[2]}I", data, starts[2])) if counts[2] else []
    obj.opdescs = [OperandDescriptor(v, x) for v, x in rows(3, _OPDESC)]
    obj.line_numbers = [LineNumber(name_at(sym, "line_numbers", i), line) for i, (sym, line) in enumerate(rows(4, _LINE))]
    obj.relocations = [Relocation(a, u0, u1) for a, u0, u1 in rows(5, _RELOCATION)]
    obj.outputs = [Output(sem, reg, mask, bytes(res)) for sem, reg, mask, res in rows(6, _OUTPUT)]
    obj.inputs = [
        Uniform(name_at(sym, "inputs", i), first, last) for i, (sym, first, last) in enumerate(rows(7, _UNIFORM))
    ]
    return obj


# -- writing ----------------------------------------------------------------------------------------


def _tables(obj: Dvoj, symbols: list[int]) -> list[bytes]:
    """The eight fixed-entry tables in header order (the symbol table is built separately)."""
    labels_n, lines_n = len(obj.labels), len(obj.line_numbers)
    label_syms = symbols[:labels_n]
    line_syms = symbols[labels_n : labels_n + lines_n]
    input_syms = symbols[labels_n + lines_n :]
    return [
        _pack_constants(obj.constants),
        _pack_labels(obj.labels, label_syms),
        pack_u32s(obj.code),
        _pack_opdescs(obj.opdescs),
        b"".join(_LINE.pack(s, ln.line) for ln, s in zip(obj.line_numbers, line_syms)),
        b"".join(_RELOCATION.pack(x.address, x.unknown0, x.unknown1) for x in obj.relocations),
        _pack_outputs(obj.outputs),
        _pack_uniforms(obj.inputs, input_syms),
    ]


def _header(obj: Dvoj, offsets: list[int], symbol_size: int) -> bytes:
    counts = [*obj.counts(), symbol_size]
    pairs = [v for pair in zip(offsets, counts) for v in pair]
    return _DVOJ_HEADER.pack(DVOJ_MAGIC, obj.shader_type, obj.unknown_08, obj.unknown_0c, *pairs)


def _write_placed(model: Dvob, layout: Layout) -> bytes:
    """Every unchanged item where it lay (raw spans as they were); new or resized ones appended,
    4-aligned; headers and offsets derived from where the items went."""
    w = PlacedWriter(layout, append_aligned(4))
    count = len(model.objects)
    bare = model.magic == DVOJ_MAGIC
    if not bare:
        w.reserve(0, 8 + 4 * count)
    bases = []
    for index, obj in enumerate(model.objects):
        base = 0 if bare else w.claim(dvoj_key(index, "header"), DVOJ_HEADER_SIZE)
        if bare:
            w.reserve(0, DVOJ_HEADER_SIZE)
        bases.append(base)
        stored = stored_fields(layout, dvoj_key(index, "header"), _DVOJ_HEADER)
        kept = stored[4:] if stored is not None and layout.offset_of(dvoj_key(index, "header")) == base else None
        # a header that had to move (a grown DVOB header took its place) takes its tables along
        moved = stored is not None and kept is None

        def key(part: str, index: int = index, moved: bool = moved) -> Key:
            return ("dvoj", index, part, "moved") if moved else dvoj_key(index, part)

        names = [(key, _encode_name(name) + b"\0") for key, name in zip(_name_keys(index, obj), obj.names())]
        symbols = SymbolTable(layout, names, None if kept is None else base + kept[16], partial(_symbol_pool, obj))
        offsets = []
        for k, (part, data) in enumerate(zip(TABLE_KEYS, _tables(obj, symbols.symbols))):
            if data:
                offsets.append(u32_offset(w.place(key(part), data) - base))
            else:  # an empty table keeps its stored offset field (object unmoved), else the running end
                offsets.append(kept[2 * k] if kept is not None else u32_offset(w.end - base))
        table_at = symbols.place(w, key("symbols"))
        if table_at is None:
            assert kept is not None
            offsets.append(kept[16])
            symbol_size = kept[17]
        else:
            offsets.append(u32_offset(table_at - base))
            symbol_size = len(symbols.data)
        w.put(base, _header(obj, offsets, symbol_size))
    if not bare:
        w.put(0, DVOB_MAGIC + pack_u32s([count, *bases]))
    if not w.verify():
        raise Relayout
    if w.end > layout.size:
        w.pad_to(4)
    return w.getvalue()


def _symbol_pool(obj: Dvoj) -> tuple[bytes, list[int]]:
    """One string per distinct name, in first-use order; the offset of each reference."""
    pool = bytearray()
    where: dict[str, int] = {}
    refs: list[int] = []
    for name in obj.names():
        if name not in where:
            where[name] = len(pool)
            pool += _encode_name(name) + b"\0"
        refs.append(where[name])
    return bytes(pool), refs


def _write_canonical(model: Dvob) -> bytes:
    """Header, then each object: header and tables in header order, 4-byte aligned."""
    w = Writer("<")
    bare = model.magic == DVOJ_MAGIC and len(model.objects) == 1
    if not bare:
        w.write(DVOB_MAGIC)
        w.u32(len(model.objects))
        slots = [w.reserve("I") for _ in model.objects]
    for i, obj in enumerate(model.objects):
        w.align(4)
        base = w.tell()
        if not bare:
            w.patch(slots[i], "I", base)
        pool, refs = _symbol_pool(obj)
        tables = _tables(obj, refs)
        offsets: list[int] = []
        pos = DVOJ_HEADER_SIZE
        for raw in tables:
            offsets.append(pos)
            pos += len(raw)
        offsets.append(pos)
        w.write(_header(obj, offsets, len(pool)))
        for raw in tables:
            w.write(raw)
        w.write(pool)
    w.align(4)
    return w.getvalue()

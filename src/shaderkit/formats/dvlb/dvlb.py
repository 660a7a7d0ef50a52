"""SHBIN: the DVLB header, the shared DVLP (code + operand descriptors) and one DVLE per entry point.

All integers are little-endian. Offsets in the file are the truth: a parsed file keeps an
:class:`~shaderkit.io.layout.Layout` of where every addressed item lay (headers, code, operand
descriptors, each DVLE's tables and every symbol-table string, which strings shared bytes) and the
bytes of every range no item covers (padding, unreferenced symbol bytes, anything not understood),
so the layouts seen in real files (picasso >= 2015-08, older picasso, nihstro) rebuild byte for
byte. Writing puts every unchanged item back where it lay; a new or resized item goes after the
stored bytes in the order and alignment of the assembler that wrote the file (:data:`APPEND_RULES`:
picasso, older picasso, nihstro); a resized name moves its DVLE's whole symbol table, laid out by
that rule. A model built from scratch is laid out the way current picasso lays it out (see
:meth:`Dvlb.relayout`; :mod:`.rules` has the whole-file layouts of nihstro and older picasso).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dvlb.pack import (
    _CONSTANT,
    _DVLE_HEADER,
    _DVLP_HEADER,
    _LABEL,
    _OPDESC,
    _OUTPUT,
    _UNIFORM,
    DVLB_MAGIC,
    DVLE_HEADER_SIZE,
    DVLE_MAGIC,
    DVLP_HEADER_MIN,
    DVLP_HEADER_PICASSO,
    DVLP_MAGIC,
    _encode_name,
    _pack_constants,
    _pack_dvlb_header,
    _pack_dvle_header,
    _pack_dvlp_header,
    _pack_labels,
    _pack_opdescs,
    _pack_outputs,
    _pack_uniforms,
    _symbol_table,
    _write_canonical,
    pack_u32s,
)
from shaderkit.formats.dvlb.placement import Recorder, Relayout, SymbolTable, stored_fields, u32_offset
from shaderkit.io.layout import Key, Layout, PlacedWriter, append_aligned
from shaderkit.io.reader import Reader
from shaderkit.isa.pica.float24 import f24_to_f32, f32_to_f24
from shaderkit.isa.pica.table import (
    CONST_BOOL,
    CONST_FVEC,
    CONST_IVEC,
    CONST_KIND_NAMES,
    GSH_MODES,
    OUTPUT_SEMANTICS,
    SPACE_OF_KIND,
    uniform_space,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: DVLE version written by picasso >= v2.5 (older picasso and nihstro write 0).
DVLE_VERSION_PICASSO = 0x1002

SHADER_TYPES = {0: "vertex", 1: "geometry"}
# register spaces, constant kinds and output semantics live once, in the ISA table
GS_MODES = dict(enumerate(GSH_MODES))
CONSTANT_TYPES = CONST_KIND_NAMES
CONSTANT_BOOL, CONSTANT_IVEC, CONSTANT_FVEC = CONST_BOOL, CONST_IVEC, CONST_FVEC
#: number of registers of each constant type (b0-b15, i0-i3, c0-c95)
_CONSTANT_LIMITS = {kind: space.count for kind, space in SPACE_OF_KIND.items()}


def register_name(index: int) -> str:
    """Name of a uniform-table register index: v0-v15, c0-c95, i0-i3, b0-b15."""
    if index >= 0:
        space = uniform_space(index)
        assert space.table_base is not None
        if index - space.table_base < space.count:
            return f"{space.prefix}{index - space.table_base}"
    return f"reg{index:#x}"


def mask_text(mask: int) -> str:
    """Component mask of the output table (bit0 = x .. bit3 = w) as text."""
    return "".join(c for bit, c in enumerate("xyzw") if mask >> bit & 1)


# -- model ----------------------------------------------------------------------------------------


@dataclass
class OperandDescriptor:
    """One 8-byte entry of the DVLP operand descriptor table."""

    value: int
    #: the second word of the entry (picasso writes 0; older assemblers did not: libbrahma's 0xf)
    extra: int = 0


@dataclass
class Dvlp:
    """The program shared by every DVLE: code words and operand descriptors."""

    code: list[int] = field(default_factory=list)
    opdescs: list[OperandDescriptor] = field(default_factory=list)
    version: int = 0
    #: header words after the filename-symbol-table offset (picasso writes three zero words,
    #: nihstro's header stops before them)
    unknown_words: list[int] = field(default_factory=lambda: [0, 0, 0])


@dataclass
class Constant:
    """A constant-table entry: a value put into a bool/int/float uniform register at load time.

    ``words`` are the 16 data bytes as four u32, exactly as stored: fvec holds one float24 per
    word; ivec holds x, y, z, w as the four bytes of the first word; bool holds 0/1 in the first.
    """

    type: int
    register: int
    words: tuple[int, int, int, int] = (0, 0, 0, 0)

    @classmethod
    def fvec(cls, register: int, x: float, y: float, z: float, w: float) -> Constant:
        """A float-vector constant for ``c<register>`` (values stored as float24)."""
        return cls(CONSTANT_FVEC, register, (f32_to_f24(x), f32_to_f24(y), f32_to_f24(z), f32_to_f24(w)))

    @classmethod
    def ivec(cls, register: int, x: int, y: int, z: int, w: int) -> Constant:
        """An integer-vector constant for ``i<register>`` (each component one byte)."""
        packed = (x & 0xFF) | (y & 0xFF) << 8 | (z & 0xFF) << 16 | (w & 0xFF) << 24
        return cls(CONSTANT_IVEC, register, (packed, 0, 0, 0))

    @classmethod
    def boolean(cls, register: int, value: bool) -> Constant:
        """A boolean constant for ``b<register>``."""
        return cls(CONSTANT_BOOL, register, (1 if value else 0, 0, 0, 0))

    @property
    def type_name(self) -> str:
        """``bool``, ``ivec`` or ``fvec`` (``typeN`` for unknown values)."""
        return CONSTANT_TYPES.get(self.type, f"type{self.type}")

    @property
    def register_name(self) -> str:
        """The register in picasso notation: ``b3``, ``i1``, ``c20``."""
        prefix = {CONSTANT_BOOL: "b", CONSTANT_IVEC: "i", CONSTANT_FVEC: "c"}.get(self.type, "?")
        return f"{prefix}{self.register}"

    @property
    def value(self) -> list[float] | list[int] | bool:
        """Decoded value: four floats (fvec), four bytes (ivec) or a bool."""
        if self.type == CONSTANT_FVEC:
            return [f24_to_f32(w) for w in self.words]
        if self.type == CONSTANT_IVEC:
            return list(self.words[0].to_bytes(4, "little"))
        return bool(self.words[0])


@dataclass
class Label:
    """A label-table entry (nihstro writes one per label; picasso writes none)."""

    id: int
    program_offset: int
    name: str
    unknown: int = 0
    reserved: bytes = b"\0\0\0"


@dataclass
class Output:
    """An output-table entry: semantic, o-register and component mask (bit0 = x)."""

    semantic: int
    register: int
    mask: int = 0xF
    reserved: bytes = b"\0\0\0"

    @property
    def semantic_name(self) -> str:
        """The output semantic name (position, normalquat, color, texcoord0...), ``semanticN`` for unknown values."""
        return OUTPUT_SEMANTICS.get(self.semantic, f"semantic{self.semantic}")


@dataclass
class Uniform:
    """A uniform ("variable") table entry: name and an inclusive register range.

    Registers are indices in the combined space: 0x00-0x0F v, 0x10-0x6F c, 0x70-0x73 i, 0x78-0x87 b.
    """

    name: str
    first_register: int
    last_register: int

    @property
    def register_range(self) -> str:
        """The registers the uniform covers, e.g. ``c0-c3`` (one name when it is a single register)."""
        first, last = register_name(self.first_register), register_name(self.last_register)
        return first if first == last else f"{first}-{last}"


@dataclass
class Dvle:
    """One entry point (DVLE): header fields and its tables."""

    shader_type: int = 0
    main_offset: int = 0
    endmain_offset: int = 0
    version: int = DVLE_VERSION_PICASSO
    merge_outmaps: int = 0
    input_mask: int = 0
    output_mask: int = 0
    gs_mode: int = 0
    gs_fixed_vertex_start: int = 0
    gs_variable_vertex_num: int = 0
    gs_fixed_vertex_num: int = 0
    constants: list[Constant] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)
    uniforms: list[Uniform] = field(default_factory=list)

    @property
    def is_geometry(self) -> bool:
        """True for a geometry shader entry (shader type 1)."""
        return self.shader_type == 1


# -- the file -------------------------------------------------------------------------------------


@dataclass(repr=False)  # compact repr from ShaderFile
class Dvlb(ShaderFile):
    """A SHBIN file: DVLB header, one DVLP, one DVLE per entry point."""

    format_name = "dvlb"  # (a class attribute: ShaderFile declares it a ClassVar)

    dvlp: Dvlp = field(default_factory=Dvlp)
    dvles: list[Dvle] = field(default_factory=list)
    #: where every item of a parsed file lay (offsets from the DVLB start); None lays the model
    #: out like picasso
    layout: Layout | None = field(default=None, repr=False, compare=False)

    # -- reading ----------------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Dvlb:
        return _parse(bytes(data))

    # -- writing ----------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        if self.layout is not None:
            try:
                return _write_placed(self, self.layout)
            except Relayout:
                pass
        return _write_canonical(self)

    def relayout(self) -> bytes:
        """The model laid out as current picasso does, ignoring the recorded layout."""
        return _write_canonical(self)

    # -- views ------------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Keys: ``format`` ("dvlb"), ``dvle_count``, ``dvlp`` (version, code_words, code_bytes,
        opdesc_count, unknown_words, layout: picasso / old picasso / nihstro / "picasso (new)"),
        ``dvles``: one record per entry point with index, version, shader_type, merge_outmaps,
        main, endmain, input_mask, output_mask (all integers), the gs_* fields (geometry shaders, or when set),
        ``uniforms`` (name, registers, first, last), ``constants`` (type, register, value, raw: the
        stored words as integers),
        ``outputs`` (semantic, register, mask) and ``labels`` (id, name, offset, unknown);
        ``layout``: every item and raw span as stored (``item``, ``offset``, ``size``), see
        :meth:`layout_rows`.
        """
        return {
            "format": self.format_name,
            "dvle_count": len(self.dvles),
            "dvlp": {
                "version": self.dvlp.version,
                "code_words": len(self.dvlp.code),
                "code_bytes": 4 * len(self.dvlp.code),
                "opdesc_count": len(self.dvlp.opdescs),
                "unknown_words": list(self.dvlp.unknown_words),
                "layout": _layout_name(self.layout),
            },
            "dvles": [_dvle_summary(i, dvle) for i, dvle in enumerate(self.dvles)],
            "layout": self.layout_rows(),
        }

    def layout_rows(self) -> list[dict[str, object]]:
        """The file's own layout: ``{"item", "offset", "size"}`` per item and raw span (``item``
        "raw": bytes no field covers), ordered by offset, as stored. A model built in memory (not
        parsed) reports the layout it is written with."""
        layout = self.layout if self.layout is not None else _parse(self.to_bytes()).layout
        assert layout is not None
        return layout.spans()

    def problems(self) -> list[str]:
        found: list[str] = []
        size = len(self.dvlp.code)
        for i, dvle in enumerate(self.dvles):
            if dvle.main_offset > size:
                found.append(f"DVLE[{i}]: main offset {dvle.main_offset} is past the code ({size} words)")
            if dvle.endmain_offset > size:
                found.append(f"DVLE[{i}]: endmain offset {dvle.endmain_offset} is past the code ({size} words)")
            for j, label in enumerate(dvle.labels):
                if label.program_offset > size:
                    found.append(f"DVLE[{i}].labels[{j}]: offset {label.program_offset} is past the code")
            for j, u in enumerate(dvle.uniforms):
                if u.first_register > u.last_register or "reg" in u.register_range:
                    found.append(f"DVLE[{i}].uniforms[{j}] {u.name!r}: bad register range {u.register_range}")
            for j, c in enumerate(dvle.constants):
                limit = _CONSTANT_LIMITS.get(c.type)
                if limit is None or c.register >= limit:
                    found.append(f"DVLE[{i}].constants[{j}]: {c.type_name} register {c.register} is out of range")
            for j, o in enumerate(dvle.outputs):
                if o.register > 15:
                    found.append(f"DVLE[{i}].outputs[{j}]: output register o{o.register} does not exist")
        return found

    def disassemble(self) -> str:
        global _dvlb_to_source
        if _dvlb_to_source is None:  # (imported once: an import statement costs a tenth of a small file's text)
            try:
                from shaderkit.formats.dvlb.source import dvlb_to_source
            except ModuleNotFoundError as exc:
                if exc.name and exc.name.startswith("shaderkit"):
                    raise UnsupportedOperation(f"dvlb: the PICA200 disassembler cannot be loaded ({exc.name} is "
                                               "missing from this installation)") from None
                raise
            _dvlb_to_source = dvlb_to_source
        return _dvlb_to_source(self)


#: source.dvlb_to_source, once Dvlb.disassemble has imported it
_dvlb_to_source: Callable[[Dvlb], str] | None = None


def _layout_name(layout: Layout | None) -> str:
    if layout is None:
        return "picasso (new)"
    header = layout.items.get(KEY_DVLP_HEADER)
    if header is not None and len(header.data) == DVLP_HEADER_MIN:
        return "nihstro"
    first_dvle, code = layout.offset_of(dvle_key(0, "header")), layout.offset_of(KEY_CODE)
    if first_dvle is not None and code is not None and first_dvle < code:
        return "old picasso"
    return "picasso"


def _dvle_summary(index: int, dvle: Dvle) -> dict[str, Any]:
    info: dict[str, Any] = {
        "index": index,
        "version": dvle.version,
        "shader_type": SHADER_TYPES.get(dvle.shader_type, str(dvle.shader_type)),
        "merge_outmaps": dvle.merge_outmaps,
        "main": dvle.main_offset,
        "endmain": dvle.endmain_offset,
        "input_mask": dvle.input_mask,
        "output_mask": dvle.output_mask,
    }
    if dvle.is_geometry or dvle.gs_mode or dvle.gs_fixed_vertex_start or dvle.gs_variable_vertex_num or dvle.gs_fixed_vertex_num:
        info["gs_mode"] = GS_MODES.get(dvle.gs_mode, str(dvle.gs_mode))
        info["gs_fixed_vertex_start"] = dvle.gs_fixed_vertex_start
        info["gs_variable_vertex_num"] = dvle.gs_variable_vertex_num
        info["gs_fixed_vertex_num"] = dvle.gs_fixed_vertex_num
    info["uniforms"] = [
        {"name": u.name, "registers": u.register_range, "first": u.first_register, "last": u.last_register}
        for u in dvle.uniforms
    ]
    info["constants"] = [
        {"type": c.type_name, "register": c.register_name, "value": c.value, "raw": list(c.words)}
        for c in dvle.constants
    ]
    info["outputs"] = [
        {"semantic": o.semantic_name, "register": f"o{o.register}", "mask": mask_text(o.mask)} for o in dvle.outputs
    ]
    info["labels"] = [
        {"id": lb.id, "name": lb.name, "offset": lb.program_offset, "unknown": lb.unknown} for lb in dvle.labels
    ]
    return info


# -- item keys (the rows of ``info``'s layout: "dvle.0.uniforms.1.name") -------------------------

KEY_DVLB_HEADER: Key = ("dvlb", "header")
KEY_DVLP_HEADER: Key = ("dvlp", "header")
KEY_CODE: Key = ("dvlp", "code")
KEY_OPDESCS: Key = ("dvlp", "opdescs")
#: the DVLE tables, in picasso's order; each is a key part after ("dvle", index)
DVLE_TABLES = ("constants", "labels", "outputs", "uniforms")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the SHBIN at ``offset`` of ``data``: up to the end of the last DVLP or DVLE item its
    headers point at (a DVLB has no size field) and its zero padding to 4 bytes, or None when the bytes there are not a DVLB header
    followed by a DVLP and DVLE headers."""
    if offset + 8 > len(data) or data[offset : offset + 4] != DVLB_MAGIC:
        return None
    dvlp = offset + 8 + 4 * int.from_bytes(data[offset + 4 : offset + 8], "little")
    if dvlp + DVLP_HEADER_MIN > len(data):
        return None
    magic, _, code_off, code_size, opd_off, opd_count, _ = _DVLP_HEADER.unpack_from(data, dvlp)
    if magic != DVLP_MAGIC:
        return None
    ends = [dvlp + DVLP_HEADER_MIN, dvlp + code_off + 4 * code_size if code_size else 0,
            dvlp + opd_off + _OPDESC.size * opd_count if opd_count else 0]
    items = (_CONSTANT.size, _LABEL.size, _OUTPUT.size, _UNIFORM.size, 1)  # the tables, then the symbol bytes
    for (rel,) in struct.iter_unpack("<I", data[offset + 8 : dvlp]):
        at = offset + rel
        if at + DVLE_HEADER_SIZE > len(data) or data[at : at + 4] != DVLE_MAGIC:
            return None
        tables = _DVLE_HEADER.unpack_from(data, at)[12:]
        ends.append(at + DVLE_HEADER_SIZE)
        ends.extend(at + tables[2 * i] + item * tables[2 * i + 1] for i, item in enumerate(items) if tables[2 * i + 1])
    size = max(ends) - offset
    if offset + size > len(data):
        return None
    padded = -size % 4  # writers pad the file to 4 bytes with zeros
    return size + padded if data[offset + size : offset + size + padded] == bytes(padded) else size


def dvle_key(index: int, part: str) -> Key:
    """Key of a DVLE's header or table: ("dvle", index, "header" | "constants" | ...)."""
    return ("dvle", index, part)


def name_key(index: int, table: str, entry: int) -> Key:
    """Key of the symbol-table string of ``table``[``entry``] ("labels" or "uniforms") of DVLE ``index``."""
    return ("dvle", index, table, entry, "name")


# -- parsing --------------------------------------------------------------------------------------


def _table(r: Reader, offset: int, count: int, item: int, what: str) -> int:
    """Check that ``count`` entries of ``item`` bytes fit at absolute ``offset``; return it."""
    if count:
        if offset > r.end:
            raise r.error(f"{what}: offset {offset:#x} is past the end ({r.end:#x})", offset)
        r.check_count(count, item, what, offset)
    return offset


def _parse(data: bytes) -> Dvlb:
    r = Reader(data, context="DVLB")
    r.expect(DVLB_MAGIC, "DVLB magic")
    count = r.u32()
    r.check_count(count, 4, "DVLE offset table")
    dvle_offsets = list(r.unpack(f"{count}I", "DVLE offset table"))
    dvlp_start = r.tell()
    rec = Recorder(r)
    rec.table(KEY_DVLB_HEADER, 0, dvlp_start, "DVLB header")

    with r.scope("DVLP"):
        r.need(DVLP_HEADER_MIN, "DVLP header")
        magic, version, code_off, code_size, opd_off, opd_count, _ = _DVLP_HEADER.unpack_from(data, dvlp_start)
        if magic != DVLP_MAGIC:
            raise r.error(f"bad DVLP magic: found {magic!r}")
        # The header is 0x1C (nihstro) or 0x28 (picasso) bytes: it ends where the first thing after it starts.
        ends = [o for o in (code_off, opd_off) if o >= DVLP_HEADER_MIN]
        ends.extend(o - dvlp_start for o in dvle_offsets if o - dvlp_start >= DVLP_HEADER_MIN)
        header_end = min(min(ends, default=DVLP_HEADER_PICASSO), len(data) - dvlp_start)
        header_size = max(DVLP_HEADER_MIN, header_end & ~3)
        unknown = list(r.unpack_at(dvlp_start + DVLP_HEADER_MIN, f"{(header_size - DVLP_HEADER_MIN) // 4}I", "DVLP header"))
        rec.table(KEY_DVLP_HEADER, dvlp_start, header_size, "DVLP header")

        code_abs = _table(r, dvlp_start + code_off, code_size, 4, "code")
        code = list(r.unpack_at(code_abs, f"{code_size}I", "code")) if code_size else []
        rec.table(KEY_CODE, code_abs, 4 * code_size, "DVLP code")
        opd_abs = _table(r, dvlp_start + opd_off, opd_count, 8, "operand descriptors")
        opdescs = (
            [OperandDescriptor(v, x) for v, x in _OPDESC.iter_unpack(data[opd_abs : opd_abs + 8 * opd_count])]
            if opd_count
            else []
        )
        rec.table(KEY_OPDESCS, opd_abs, 8 * opd_count, "DVLP operand descriptors")

    dvles: list[Dvle] = []
    rec.guard()
    for index, offset in enumerate(dvle_offsets):
        with r.scope(f"DVLE[{index}]"):
            dvles.append(_parse_dvle(r, data, index, offset, rec))
        rec.guard()
    dvlp = Dvlp(code=code, opdescs=opdescs, version=version, unknown_words=unknown)
    return Dvlb(dvlp=dvlp, dvles=dvles, layout=rec.finish())


def _parse_dvle(r: Reader, data: bytes, index: int, offset: int, rec: Recorder) -> Dvle:
    if offset > r.end or offset + DVLE_HEADER_SIZE > r.end:
        raise r.error(f"DVLE header at {offset:#x} runs past the end ({r.end:#x})", min(offset, r.end))
    (
        magic, version, shader_type, merge, main, endmain, in_mask, out_mask,
        gs_mode, gs_start, gs_var, gs_fixed,
        const_off, const_n, label_off, label_n, out_off, out_n, unif_off, unif_n, sym_off, sym_size,
    ) = _DVLE_HEADER.unpack_from(data, offset)
    if magic != DVLE_MAGIC:
        raise r.error(f"bad DVLE magic: found {magic!r}", offset)
    rec.table(dvle_key(index, "header"), offset, DVLE_HEADER_SIZE, f"DVLE header at {offset:#x}")

    def table(part: str, rel: int, n: int, item: int) -> int:
        with r.scope(part):
            start = _table(r, offset + rel, n, item, part)
        if part == "symbols":  # the symbol table is its strings; bytes between them stay raw
            rec.extent(start, n * item, f"DVLE at {offset:#x} {part}")
        else:
            rec.table(dvle_key(index, part), start, n * item, f"DVLE at {offset:#x} {part}")
        return start

    const_abs = table("constants", const_off, const_n, _CONSTANT.size)
    label_abs = table("labels", label_off, label_n, _LABEL.size)
    out_abs = table("outputs", out_off, out_n, _OUTPUT.size)
    unif_abs = table("uniforms", unif_off, unif_n, _UNIFORM.size)
    sym_abs = table("symbols", sym_off, 1 if sym_size else 0, sym_size)
    symbols = r.sub(sym_abs, sym_size, "symbols") if sym_size else None

    def name_at(sym: int, part: str, entry: int) -> str:
        what = f"{part}[{entry}]"
        if symbols is None or sym >= sym_size:
            raise r.error(f"{what}: symbol offset {sym:#x} is outside the symbol table ({sym_size} bytes)", sym_abs)
        text = symbols.cstring_at(sym_abs + sym, "ascii", what)
        rec.string(name_key(index, part, entry), sym_abs + sym, text.encode("latin-1") + b"\0")
        return text

    constants = [
        Constant(t, reg, (a, b, c, d))
        for t, reg, a, b, c, d in _CONSTANT.iter_unpack(data[const_abs : const_abs + const_n * _CONSTANT.size])
    ] if const_n else []
    outputs = [
        Output(sem, reg, mask, bytes(res))
        for sem, reg, mask, res in _OUTPUT.iter_unpack(data[out_abs : out_abs + out_n * _OUTPUT.size])
    ] if out_n else []
    labels = [
        Label(lid, prog, name_at(sym, "labels", i), unk, bytes(res))
        for i, (lid, res, prog, unk, sym) in enumerate(
            _LABEL.iter_unpack(data[label_abs : label_abs + label_n * _LABEL.size]) if label_n else ()
        )
    ]
    uniforms = [
        Uniform(name_at(sym, "uniforms", i), first, last)
        for i, (sym, first, last) in enumerate(
            _UNIFORM.iter_unpack(data[unif_abs : unif_abs + unif_n * _UNIFORM.size]) if unif_n else ()
        )
    ]
    return Dvle(
        shader_type=shader_type,
        main_offset=main,
        endmain_offset=endmain,
        version=version,
        merge_outmaps=merge,
        input_mask=in_mask,
        output_mask=out_mask,
        gs_mode=gs_mode,
        gs_fixed_vertex_start=gs_start,
        gs_variable_vertex_num=gs_var,
        gs_fixed_vertex_num=gs_fixed,
        constants=constants,
        labels=labels,
        outputs=outputs,
        uniforms=uniforms,
    )


# -- writing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AppendRule:
    """How the assembler that wrote a file lays out a DVLE: the order of its tables, whether label
    names come before uniform names in the symbol table, and the alignment of each DVLE (picasso
    pads each to 4 bytes; older picasso and nihstro do not). New or resized items are appended
    this way (see :mod:`.rules` for the whole-file layouts)."""

    tables: tuple[str, ...]
    labels_first: bool
    alignment: int


APPEND_RULES = {
    "picasso": AppendRule(DVLE_TABLES, False, 4),
    "old picasso": AppendRule(DVLE_TABLES, False, 1),
    "nihstro": AppendRule(("outputs", "constants", "uniforms", "labels"), True, 1),
}


def _write_placed(model: Dvlb, layout: Layout) -> bytes:
    """Every unchanged item where it lay (raw spans as they were); new or resized ones appended in
    the order and alignment of the assembler that wrote the file (:data:`APPEND_RULES`); headers
    and offsets derived from where the items went."""
    rule = APPEND_RULES.get(_layout_name(layout), APPEND_RULES["picasso"])
    w = PlacedWriter(layout, append_aligned(rule.alignment))
    dvlp = model.dvlp
    count = len(model.dvles)
    dvlp_start = 8 + 4 * count
    w.reserve(0, dvlp_start + DVLP_HEADER_MIN + 4 * len(dvlp.unknown_words))
    stored_dvlp = stored_fields(layout, KEY_DVLP_HEADER, _DVLP_HEADER)
    dvlp_kept = stored_dvlp is not None and layout.offset_of(KEY_DVLP_HEADER) == dvlp_start

    def offset_of(key: Key, data: bytes, base: int, stored: int | None) -> int:
        """Where ``data`` went, relative to ``base``; an empty table keeps its stored offset field
        (its owner unmoved), else gets the running end (where picasso would start it)."""
        if data:
            return u32_offset(w.place(key, data) - base)
        return stored if stored is not None else u32_offset(w.end - base)

    code_off = offset_of(KEY_CODE, pack_u32s(dvlp.code), dvlp_start,
                         stored_dvlp[2] if dvlp_kept and stored_dvlp else None)
    opd_off = offset_of(KEY_OPDESCS, _pack_opdescs(dvlp.opdescs), dvlp_start,
                        stored_dvlp[4] if dvlp_kept and stored_dvlp else None)
    # the filename symbol table offset addresses nothing shaderkit reads: kept as stored
    fname_off = stored_dvlp[6] if stored_dvlp is not None else u32_offset(w.end - dvlp_start)

    dvle_offsets = []
    for index, dvle in enumerate(model.dvles):
        at = w.claim(dvle_key(index, "header"), DVLE_HEADER_SIZE)
        dvle_offsets.append(at)
        stored = stored_fields(layout, dvle_key(index, "header"), _DVLE_HEADER)
        kept = stored if stored is not None and layout.offset_of(dvle_key(index, "header")) == at else None
        # a header that had to move (a grown DVLB/DVLP header took its place) takes its tables
        # along: offsets are relative to it, and the stored tables may lie before its new place
        moved = stored is not None and kept is None

        def key(part: str, index: int = index, moved: bool = moved) -> Key:
            return ("dvle", index, part, "moved") if moved else dvle_key(index, part)

        names = [(name_key(index, "labels", j), _encode_name(lb.name) + b"\0") for j, lb in enumerate(dvle.labels)]
        names += [(name_key(index, "uniforms", j), _encode_name(u.name) + b"\0") for j, u in enumerate(dvle.uniforms)]

        def pool(dvle: Dvle = dvle) -> tuple[bytes, list[int]]:
            data, label_syms, uniform_syms = _symbol_table(dvle, rule.labels_first)
            return data, label_syms + uniform_syms

        symbols = SymbolTable(layout, names, None if kept is None else at + kept[20], pool)
        label_syms, uniform_syms = symbols.symbols[: len(dvle.labels)], symbols.symbols[len(dvle.labels) :]
        tables = (
            _pack_constants(dvle.constants), _pack_labels(dvle.labels, label_syms),
            _pack_outputs(dvle.outputs), _pack_uniforms(dvle.uniforms, uniform_syms),
        )  # fmt: skip
        packed = dict(zip(DVLE_TABLES, tables))
        offsets = {}
        for part in rule.tables:
            k = DVLE_TABLES.index(part)
            offsets[part] = offset_of(key(part), packed[part], at, None if kept is None else kept[12 + 2 * k])
        const_off, label_off, out_off, unif_off = (offsets[part] for part in DVLE_TABLES)
        table_at = symbols.place(w, key("symbols"))
        if table_at is None:
            assert kept is not None
            sym_off, sym_size = kept[20], kept[21]
        else:
            sym_off, sym_size = u32_offset(table_at - at), len(symbols.data)
        w.put(at, _pack_dvle_header(dvle, (const_off, label_off, out_off, unif_off, sym_off), sym_size))

    w.put(0, _pack_dvlb_header(dvle_offsets))
    w.put(dvlp_start, _pack_dvlp_header(dvlp, code_off, opd_off, fname_off, dvlp.unknown_words))
    if not w.verify():
        raise Relayout
    if w.end > layout.size:
        w.pad_to(rule.alignment)
    return w.getvalue()

"""The unstructured block of an FX10 effect, typed by what the structured records point at.

Every offset of the structured records (:mod:`.fx10_records`) points into this block; the item at
an offset is typed by the record field that points at it (Effects11 ``EffectBinaryFormat.h``):

* names, semantics, string values, variable names of assignments: NUL-terminated strings;
* ``SBinaryType``: ``name, variable type (1 numeric, 2 object, 3 struct, 4 interface), elements,
  total size, stride, packed size`` then per kind: the ``SBinaryNumericType`` bit word (layout
  bits 0-2, scalar type 3-7, rows 8-10, columns 11-13, column major 14, packed array 15), the
  object type, or for a struct ``member count`` + members ``name, semantic, offset, type`` and,
  in fx_5_0, ``SBinaryTypeInheritance`` (base class type, interface count, interface types);
  an interface type has nothing more;
* default values of numeric variables and numeric annotation values: ``packed size`` bytes,
  kept as u32 words;
* assignment payloads by assignment type: constants (``count`` + ``(type, value)`` pairs),
  a variable name, ``(array name, index)``, ``(array name, index variable name)``,
  ``(array name, expression code)``, an expression code block, an inline shader
  ``(shader, stream-output declaration)``, or an ``SBinaryShaderData5``;
* code blocks (shaders, FXLVM expressions): ``u32 size`` + the bytes;
* fx_5_0 interface initializers (``SBinaryInterfaceInitializer``: instance name, array index).

Each item is recorded in a :class:`~shaderkit.io.layout.Layout` under ``(kind, offset)``; items
that several records point at are one entry (sharing is the offset itself), and every byte no
item covers (fxc's leading zero word, padding, items nothing points at) is kept as a raw span.
:meth:`EffectBlock.build_relocated` puts every item of unchanged size back where it lay and a
resized or new one after the block's end; :func:`relocate_records` then moves the records'
pointers with them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import replace

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.dxbc.fx10_records import Annotation, Assignment, EffectRecords, ShaderData5
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

#: ``EVarType``
VAR_NUMERIC, VAR_OBJECT, VAR_STRUCT, VAR_INTERFACE = 1, 2, 3, 4
_VAR_NAMES = {VAR_NUMERIC: "numeric", VAR_OBJECT: "object", VAR_STRUCT: "struct", VAR_INTERFACE: "interface"}
#: ``ECompilerAssignmentType``
ASSIGN_CONSTANT, ASSIGN_VARIABLE, ASSIGN_CONST_INDEX, ASSIGN_VARIABLE_INDEX = 1, 2, 3, 4
ASSIGN_EXPRESSION_INDEX, ASSIGN_EXPRESSION, ASSIGN_INLINE_SHADER, ASSIGN_INLINE_SHADER5 = 5, 6, 7, 8
#: object types whose initializers point at code blocks (fx_4 shaders) / strings / GS with stream output
_SHADER_OBJECTS = frozenset({5, 6, 7})
_STRING_OBJECT = 1
_GS_SO_OBJECT = 8
_TYPE_HEAD = struct.Struct("<6I")


@dataclass
class StructMember:
    """``SBinaryType::SBinaryMember``: name, semantic, byte offset in the struct and type offset."""

    name_offset: int
    semantic_offset: int = 0
    offset: int = 0
    type_offset: int = 0


@dataclass
class FxType:
    """``SBinaryType`` with its kind-specific tail (numeric bits, object type or struct members)."""

    name_offset: int
    var_type: int
    elements: int = 0
    total_size: int = 0
    stride: int = 0
    packed_size: int = 0
    #: ``SBinaryNumericType`` bits (numeric), the ``EObjectType`` (object); 0 otherwise
    info: int = 0
    #: struct members (struct types only)
    members: list[StructMember] = field(default_factory=list)
    #: fx_5_0 struct inheritance: base class type offset (0: none) and interface type offsets;
    #: None for fx_4 structs and for other kinds
    base_class_offset: int | None = None
    interface_offsets: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """``numeric``, ``object``, ``struct``, ``interface``, else the variable type as a number."""
        return _VAR_NAMES.get(self.var_type, str(self.var_type))

    @property
    def object_type(self) -> int:
        """The ``EObjectType`` of an object type (0 for other kinds)."""
        return self.info if self.var_type == VAR_OBJECT else 0

    def numeric_fields(self) -> dict[str, int]:
        """The ``SBinaryNumericType`` bit fields of a numeric type (empty for other kinds)."""
        if self.var_type != VAR_NUMERIC:
            return {}
        bits = self.info
        return {"layout": bits & 7, "scalar_type": (bits >> 3) & 0x1F, "rows": (bits >> 8) & 7,
                "columns": (bits >> 11) & 7, "column_major": (bits >> 14) & 1, "packed_array": (bits >> 15) & 1}

    def to_bytes(self) -> bytes:
        """The type description as stored."""
        words = [self.name_offset, self.var_type, self.elements, self.total_size, self.stride, self.packed_size]
        if self.var_type in (VAR_NUMERIC, VAR_OBJECT):
            words.append(self.info)
        elif self.var_type == VAR_STRUCT:
            words.append(len(self.members))
            for m in self.members:
                words += [m.name_offset, m.semantic_offset, m.offset, m.type_offset]
            if self.base_class_offset is not None:
                words += [self.base_class_offset, len(self.interface_offsets), *self.interface_offsets]
        return struct.pack(f"<{len(words)}I", *words)


@dataclass
class AssignmentValue:
    """The payload an ``SBinaryAssignment`` points at, typed by its assignment type.

    ``words`` holds the payload's u32 words: for constants the ``(type, value)`` pairs without
    the count; for index kinds ``(array name, index / index name / code)``; for an inline shader
    ``(shader, stream-output declaration)``. A variable name or expression code block is not an
    :class:`AssignmentValue` (they are strings and code blocks).
    """

    kind: int
    words: tuple[int, ...] = ()

    @property
    def constants(self) -> list[tuple[int, int]]:
        """The ``(type, value)`` pairs of a constant assignment."""
        return [(self.words[i], self.words[i + 1]) for i in range(0, len(self.words) - 1, 2)]

    def to_bytes(self) -> bytes:
        """The payload as stored."""
        words = ((len(self.words) // 2,) + self.words) if self.kind == ASSIGN_CONSTANT else self.words
        return struct.pack(f"<{len(words)}I", *words)


@dataclass
class EffectBlock:
    """The unstructured block as a table of typed items keyed by their offset, plus raw spans."""

    strings: dict[int, str] = field(default_factory=dict)
    types: dict[int, FxType] = field(default_factory=dict)
    #: default values and numeric annotation values (``packed size`` bytes as u32 words)
    values: dict[int, tuple[int, ...]] = field(default_factory=dict)
    assignments: dict[int, AssignmentValue] = field(default_factory=dict)
    #: code blocks (shader containers, FXLVM expressions): the bytes after the u32 size
    code: dict[int, bytes] = field(default_factory=dict)
    #: inline ``SBinaryShaderData5`` payloads (ECAT_InlineShader5)
    shader_data: dict[int, ShaderData5] = field(default_factory=dict)
    #: ``SBinaryInterfaceInitializer`` arrays: (instance name offset, array index) rows
    bindings: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    fx5: bool = False
    layout: Layout = field(default_factory=Layout, compare=False, repr=False)

    def string(self, offset: int) -> str:
        """The string at ``offset``; ShaderFormatError when no record points at one there."""
        found = self.strings.get(offset)
        if found is None:
            raise ShaderFormatError(f"FX10 block holds no string at {offset:#x}", offset, "FX10")
        return found

    def type_at(self, offset: int) -> FxType:
        """The type description at ``offset``; ShaderFormatError when none is there."""
        found = self.types.get(offset)
        if found is None:
            raise ShaderFormatError(f"FX10 block holds no type at {offset:#x}", offset, "FX10")
        return found

    def value_at(self, offset: int) -> tuple[int, ...]:
        """The default / annotation value words at ``offset``; ShaderFormatError when none is there."""
        found = self.values.get(offset)
        if found is None:
            raise ShaderFormatError(f"FX10 block holds no value at {offset:#x}", offset, "FX10")
        return found

    def assignment_at(self, offset: int) -> AssignmentValue:
        """The assignment payload at ``offset``; ShaderFormatError when none is there."""
        found = self.assignments.get(offset)
        if found is None:
            raise ShaderFormatError(f"FX10 block holds no assignment value at {offset:#x}", offset, "FX10")
        return found

    def items(self, remap: Remap | None = None) -> list[tuple[tuple[str, int], bytes]]:
        """Every typed item as ``((kind, offset), stored bytes)``; ``remap(kind, offset)`` gives the
        new offset of each item the item's pointers point at (items that moved)."""
        to = remap or _same
        out: list[tuple[tuple[str, int], bytes]] = [(("string", o), s.encode("latin-1") + b"\0")
                                                     for o, s in self.strings.items()]
        out += [(("type", o), _remapped_type(t, to).to_bytes()) for o, t in self.types.items()]
        out += [(("value", o), struct.pack(f"<{len(v)}I", *v)) for o, v in self.values.items()]
        out += [(("assignment", o), _remapped_value(a, to).to_bytes()) for o, a in self.assignments.items()]
        out += [(("code", o), struct.pack("<I", len(c)) + c) for o, c in self.code.items()]
        out += [(("shader_data", o), struct.pack("<9I", *remap_shader_data(d, to).words()))
                for o, d in self.shader_data.items()]
        out += [(("bindings", o), b"".join(struct.pack("<2I", to("string", name), index) for name, index in rows))
                for o, rows in self.bindings.items()]
        return out

    def build(self, code: dict[int, bytes] | None = None) -> bytes:
        """The block: every item back where it lay, raw spans between; ``code`` overrides code blocks.

        UnsupportedOperation when an item changed size (see :meth:`build_relocated`)."""
        blob, moved = self.build_relocated(code)
        if moved:
            raise UnsupportedOperation(f"FX10: {len(moved)} block item(s) changed size; the records must move with them")
        return blob

    def build_relocated(self, code: dict[int, bytes] | None = None) -> tuple[bytes, dict[tuple[str, int], int]]:
        """The block and the new offsets of the items that moved, keyed by ``(kind, old offset)``.

        An item whose size is unchanged goes back where it lay; a resized or new item (a key the
        parsed block did not have) goes after the block's end, unaligned as fxc packs the block;
        the bytes it vacated stay as they were. Pointers between items follow the moved ones; the
        records' pointers are the caller's (:func:`relocate_records`). ``code`` overrides code
        blocks (embedded shaders rebuilt from their models). UnsupportedOperation when an edited
        item overwrites another one it overlapped in the parsed block.
        """
        plain = self.items()
        if code:
            plain = [(key, struct.pack("<I", len(code[key[1]])) + code[key[1]]
                      if key[0] == "code" and key[1] in code else data) for key, data in plain]
        moved: dict[tuple[str, int], int] = {}
        end = self.layout.size
        for key, data in plain:
            stored = self.layout.items.get(key)
            if stored is None or len(stored.data) != len(data):
                moved[key] = end
                end += len(data)

        def to(kind: str, offset: int) -> int:
            return moved.get((kind, offset), offset)

        final = self.items(to) if moved else plain
        if code and moved:
            final = [(key, struct.pack("<I", len(code[key[1]])) + code[key[1]]
                      if key[0] == "code" and key[1] in code else data) for key, data in final]
        writer = PlacedWriter(self.layout, append_aligned(1))
        for key, data in final:
            writer.put(moved.get(key, key[1]), data)
        if not writer.verify():
            raise UnsupportedOperation("FX10: edited block items overwrite items they overlapped; not supported")
        return writer.getvalue(), moved

    def summary(self) -> dict[str, Any]:
        """Item counts, the type descriptions and the block's spans, JSON-ready."""
        return {
            "strings": len(self.strings),
            "values": len(self.values),
            "assignments": len(self.assignments),
            "code_blocks": len(self.code),
            "types": [self._type_summary(o, t) for o, t in sorted(self.types.items())],
            "spans": self.layout.spans(),
        }

    def _type_summary(self, offset: int, t: FxType) -> dict[str, Any]:
        row: dict[str, Any] = {"offset": offset, "name": self.strings.get(t.name_offset, ""), "kind": t.kind,
                               "elements": t.elements, "total_size": t.total_size, "stride": t.stride,
                               "packed_size": t.packed_size}
        if t.var_type == VAR_NUMERIC:
            row["numeric"] = t.numeric_fields()
        elif t.var_type == VAR_OBJECT:
            row["object_type"] = t.info
        elif t.var_type == VAR_STRUCT:
            row["members"] = [{"name": self.strings.get(m.name_offset, ""),
                               "semantic": self.strings.get(m.semantic_offset, ""),
                               "offset": m.offset, "type_offset": m.type_offset} for m in t.members]
            if t.base_class_offset is not None:
                row["base_class_offset"] = t.base_class_offset
                row["interface_offsets"] = list(t.interface_offsets)
        return row


Remap = Callable[[str, int], int]
"""``(item kind, old offset) -> new offset`` of the block items pointers point at."""


def _same(kind: str, offset: int) -> int:
    return offset


def _remapped_type(t: FxType, to: Remap) -> FxType:
    return replace(
        t, name_offset=to("string", t.name_offset),
        members=[StructMember(to("string", m.name_offset), to("string", m.semantic_offset), m.offset,
                              to("type", m.type_offset)) for m in t.members],
        base_class_offset=(to("type", t.base_class_offset) if t.base_class_offset else t.base_class_offset),
        interface_offsets=[to("type", o) for o in t.interface_offsets])


def _remapped_value(a: AssignmentValue, to: Remap) -> AssignmentValue:
    w = a.words
    if a.kind == ASSIGN_CONST_INDEX and len(w) == 2:
        return AssignmentValue(a.kind, (to("string", w[0]), w[1]))
    if a.kind == ASSIGN_VARIABLE_INDEX and len(w) == 2:
        return AssignmentValue(a.kind, (to("string", w[0]), to("string", w[1])))
    if a.kind == ASSIGN_EXPRESSION_INDEX and len(w) == 2:
        return AssignmentValue(a.kind, (to("string", w[0]), to("code", w[1])))
    if a.kind == ASSIGN_INLINE_SHADER and len(w) == 2:
        return AssignmentValue(a.kind, (to("code", w[0]) if w[0] else 0, to("string", w[1]) if w[1] else 0))
    return a


def remap_shader_data(d: ShaderData5, to: Remap) -> ShaderData5:
    """``SBinaryShaderData5`` with its shader, stream-output strings and bindings moved by ``to``."""
    decls = tuple(to("string", o) if o and k < d.so_decl_count else o for k, o in enumerate(d.so_decl_offsets))
    return replace(d, shader_offset=to("code", d.shader_offset) if d.shader_offset else 0,
                   so_decl_offsets=(decls[0], decls[1], decls[2], decls[3]),
                   interface_bindings_offset=(to("bindings", d.interface_bindings_offset)
                                              if d.interface_binding_count else d.interface_bindings_offset))


def _assignment_kind(kind: int) -> str:
    """The block item kind an ``SBinaryAssignment`` of assignment type ``kind`` points at."""
    return {ASSIGN_VARIABLE: "string", ASSIGN_EXPRESSION: "code", ASSIGN_INLINE_SHADER5: "shader_data"}.get(
        kind, "assignment")


def relocate_records(records: EffectRecords, block: EffectBlock, to: Remap) -> None:
    """Move every pointer of ``records`` (in place) by ``to``; types are looked up in ``block`` by
    their old offsets (they say whether annotation and initializer values are strings)."""

    def annotations(items: list[Annotation]) -> None:
        for a in items:
            t = block.types.get(a.type_offset)
            a.name_offset, a.type_offset = to("string", a.name_offset), to("type", a.type_offset)
            if t is not None and t.var_type == VAR_OBJECT:
                a.values = [to("string", o) for o in a.values]
            elif a.values:
                a.values = [to("value", a.values[0]), *a.values[1:]]

    def assignments(items: list[Assignment]) -> None:
        for a in items:
            a.initializer_offset = to(_assignment_kind(a.kind), a.initializer_offset)

    for b in records.buffers + records.pool_buffers:
        b.name_offset = to("string", b.name_offset)
        annotations(b.annotations)
        for v in b.variables:
            v.name_offset, v.semantic_offset = to("string", v.name_offset), to("string", v.semantic_offset)
            v.type_offset = to("type", v.type_offset)
            v.default_offset = to("value", v.default_offset) if v.default_offset else 0
            annotations(v.annotations)
    for o in records.objects + records.pool_objects:
        t = block.types.get(o.type_offset)
        object_type = t.object_type if t is not None else 0
        o.name_offset, o.semantic_offset = to("string", o.name_offset), to("string", o.semantic_offset)
        o.type_offset = to("type", o.type_offset)
        kind = "string" if object_type == _STRING_OBJECT else "code"
        o.initializers = [tuple(to("string" if k else kind, w) if w else w for k, w in enumerate(init))
                          for init in o.initializers]
        o.shaders5 = [remap_shader_data(d, to) for d in o.shaders5]
        for state_block in o.blocks:
            assignments(state_block)
        annotations(o.annotations)
    for i in records.interfaces:
        i.name_offset, i.type_offset = to("string", i.name_offset), to("type", i.type_offset)
        i.default_offset = to("bindings", i.default_offset) if i.default_offset else 0
        annotations(i.annotations)
    for g in records.groups:
        g.name_offset = to("string", g.name_offset)
        annotations(g.annotations)
    for tech in records.all_techniques():
        tech.name_offset = to("string", tech.name_offset)
        annotations(tech.annotations)
        for p in tech.passes:
            p.name_offset = to("string", p.name_offset)
            annotations(p.annotations)
            assignments(p.assignments)


class _BlockReader:
    """Reads the items the records point at, recording each in the layout."""

    def __init__(self, blob: bytes, fx5: bool) -> None:
        self.blob = blob
        self.block = EffectBlock(fx5=fx5, layout=Layout(size=len(blob)))
        self.pending_types: list[int] = []

    def error(self, text: str, offset: int) -> ShaderFormatError:
        return ShaderFormatError(f"FX10 block: {text}", offset, "FX10")

    def words(self, offset: int, count: int, what: str) -> tuple[int, ...]:
        if count < 0 or offset < 0 or offset + 4 * count > len(self.blob):
            raise self.error(f"{what} at {offset:#x} runs past the block ({len(self.blob)} bytes)", offset)
        return struct.unpack_from(f"<{count}I", self.blob, offset)

    def record(self, kind: str, offset: int, size: int) -> None:
        self.block.layout.record((kind, offset), offset, self.blob[offset : offset + size])

    def string(self, offset: int) -> None:
        if offset in self.block.strings:
            return
        end = self.blob.find(b"\0", offset) if 0 <= offset < len(self.blob) else -1
        if end < 0:
            raise self.error(f"string at {offset:#x} is unterminated or past the block", offset)
        self.block.strings[offset] = self.blob[offset:end].decode("latin-1")
        self.record("string", offset, end + 1 - offset)

    def type(self, offset: int) -> FxType:
        found = self.block.types.get(offset)
        if found is not None:
            return found
        name, var_type, elements, total, stride, packed = self.words(offset, 6, "type")
        t = FxType(name, var_type, elements, total, stride, packed)
        pos = offset + _TYPE_HEAD.size
        if var_type in (VAR_NUMERIC, VAR_OBJECT):
            (t.info,) = self.words(pos, 1, "type")
            pos += 4
        elif var_type == VAR_STRUCT:
            (count,) = self.words(pos, 1, "struct")
            if count > (len(self.blob) - pos) // 16:
                raise self.error(f"struct member count {count} is too large", pos)
            members = self.words(pos + 4, 4 * count, "struct members")
            t.members = [StructMember(*members[4 * i : 4 * i + 4]) for i in range(count)]
            pos += 4 + 16 * count
            if self.block.fx5:
                t.base_class_offset, interfaces = self.words(pos, 2, "struct inheritance")
                if interfaces > (len(self.blob) - pos) // 4:
                    raise self.error(f"struct interface count {interfaces} is too large", pos)
                t.interface_offsets = list(self.words(pos + 8, interfaces, "struct interfaces"))
                pos += 8 + 4 * interfaces
        elif var_type != VAR_INTERFACE:
            raise self.error(f"unknown variable type {var_type}", offset + 4)
        self.block.types[offset] = t
        self.record("type", offset, pos - offset)
        self.string(name)
        for m in t.members:
            self.string(m.name_offset)
            self.string(m.semantic_offset)
            self.pending_types.append(m.type_offset)
        if t.base_class_offset:
            self.pending_types.append(t.base_class_offset)
        self.pending_types += t.interface_offsets
        return t

    def finish_types(self) -> None:
        """Read the member, base class and interface types queued by :meth:`type` (no recursion)."""
        while self.pending_types:
            self.type(self.pending_types.pop())

    def value(self, offset: int, size: int) -> None:
        if size % 4:
            raise self.error(f"value of {size} bytes is not whole words", offset)
        words = self.words(offset, size // 4, "value")
        old = self.block.values.get(offset)
        if old is not None and len(old) >= len(words):
            return  # already read (a shorter value at the same offset lies inside the longer one)
        self.block.values[offset] = words
        self.record("value", offset, size)

    def code(self, offset: int) -> None:
        if offset in self.block.code:
            return
        (size,) = self.words(offset, 1, "code block")
        if size > len(self.blob) - offset - 4:
            raise self.error(f"code block of {size} bytes runs past the block", offset)
        self.block.code[offset] = self.blob[offset + 4 : offset + 4 + size]
        self.record("code", offset, 4 + size)

    def bindings(self, offset: int, count: int) -> None:
        if count > (len(self.blob) - offset) // 8:
            raise self.error(f"interface initializer count {count} is too large", offset)
        words = self.words(offset, 2 * count, "interface initializers")
        rows = [(words[2 * i], words[2 * i + 1]) for i in range(count)]
        if len(rows) > len(self.block.bindings.get(offset, [])):
            self.block.bindings[offset] = rows
            self.record("bindings", offset, 8 * count)
        for instance, _index in rows:
            self.string(instance)

    def shader_data(self, d: ShaderData5) -> None:
        if d.shader_offset:
            self.code(d.shader_offset)
        for k in range(min(d.so_decl_count, 4)):
            if d.so_decl_offsets[k]:
                self.string(d.so_decl_offsets[k])
        if d.interface_binding_count:
            self.bindings(d.interface_bindings_offset, d.interface_binding_count)

    def assignment(self, kind: int, offset: int) -> None:
        block = self.block
        if kind == ASSIGN_VARIABLE:
            self.string(offset)
            return
        if kind == ASSIGN_EXPRESSION:
            self.code(offset)
            return
        if offset in block.assignments:
            if block.assignments[offset].kind != kind:
                raise self.error(f"assignment values of two kinds share {offset:#x}", offset)
            return
        if kind == ASSIGN_CONSTANT:
            (count,) = self.words(offset, 1, "constants")
            if count > (len(self.blob) - offset) // 8:
                raise self.error(f"constant count {count} is too large", offset)
            value = AssignmentValue(kind, self.words(offset + 4, 2 * count, "constants"))
        elif kind in (ASSIGN_CONST_INDEX, ASSIGN_VARIABLE_INDEX, ASSIGN_EXPRESSION_INDEX, ASSIGN_INLINE_SHADER):
            value = AssignmentValue(kind, self.words(offset, 2, "assignment value"))
            first, second = value.words
            if kind != ASSIGN_INLINE_SHADER:
                self.string(first)
            if kind == ASSIGN_VARIABLE_INDEX:
                self.string(second)
            elif kind == ASSIGN_EXPRESSION_INDEX:
                self.code(second)
            elif kind == ASSIGN_INLINE_SHADER:
                if first:
                    self.code(first)
                if second:
                    self.string(second)
        elif kind == ASSIGN_INLINE_SHADER5:
            data = ShaderData5(*self._shader5_words(offset))
            block.shader_data[offset] = data
            self.record("shader_data", offset, 36)
            self.shader_data(data)
            return
        else:
            raise self.error(f"unknown assignment type {kind}", offset)
        block.assignments[offset] = value
        self.record("assignment", offset, len(value.to_bytes()))

    def _shader5_words(self, offset: int) -> tuple[Any, ...]:
        shader, d0, d1, d2, d3, count, stream, bindings, bindings_at = self.words(offset, 9, "shader data")
        return shader, (d0, d1, d2, d3), count, stream, bindings, bindings_at


def read_block(records: EffectRecords, blob: bytes, fx5: bool) -> EffectBlock:
    """The block's items typed by the records pointing at them; ShaderFormatError when one does not fit."""
    r = _BlockReader(blob, fx5)

    def annotations(items: list[Any]) -> None:
        for a in items:
            r.string(a.name_offset)
            t = r.type(a.type_offset)
            if t.var_type == VAR_OBJECT:
                for off in a.values:
                    r.string(off)
            elif t.var_type in (VAR_NUMERIC, VAR_STRUCT) and a.values:
                r.value(a.values[0], t.packed_size)

    for b in records.buffers + records.pool_buffers:
        r.string(b.name_offset)
        annotations(b.annotations)
        for v in b.variables:
            r.string(v.name_offset)
            r.string(v.semantic_offset)
            t = r.type(v.type_offset)
            if v.default_offset:
                r.value(v.default_offset, t.packed_size)
            annotations(v.annotations)
    for o in records.objects + records.pool_objects:
        r.string(o.name_offset)
        r.string(o.semantic_offset)
        t = r.type(o.type_offset)
        for init in o.initializers:
            if t.object_type == _STRING_OBJECT:
                r.string(init[0])
            elif init[0] and t.object_type in _SHADER_OBJECTS | {_GS_SO_OBJECT}:
                r.code(init[0])
            if t.object_type == _GS_SO_OBJECT and len(init) > 1 and init[1]:
                r.string(init[1])
        for data in o.shaders5:
            r.shader_data(data)
        for block in o.blocks:
            for a in block:
                r.assignment(a.kind, a.initializer_offset)
        annotations(o.annotations)
    for i in records.interfaces:
        r.string(i.name_offset)
        t = r.type(i.type_offset)
        if i.default_offset:
            r.bindings(i.default_offset, max(t.elements, 1))
        annotations(i.annotations)
    for g in records.groups:
        r.string(g.name_offset)
        annotations(g.annotations)
    for tech in records.all_techniques():
        r.string(tech.name_offset)
        annotations(tech.annotations)
        for p in tech.passes:
            r.string(p.name_offset)
            annotations(p.annotations)
            for a in p.assignments:
                r.assignment(a.kind, a.initializer_offset)
    r.finish_types()
    r.block.layout.close(blob)
    return r.block


__all__ = [
    "ASSIGN_CONSTANT", "ASSIGN_CONST_INDEX", "ASSIGN_EXPRESSION", "ASSIGN_EXPRESSION_INDEX", "ASSIGN_INLINE_SHADER",
    "ASSIGN_INLINE_SHADER5", "ASSIGN_VARIABLE", "ASSIGN_VARIABLE_INDEX", "VAR_INTERFACE", "VAR_NUMERIC",
    "VAR_OBJECT", "VAR_STRUCT", "AssignmentValue", "EffectBlock", "FxType", "Remap", "StructMember", "read_block",
    "relocate_records", "remap_shader_data",
]

"""RDEF: resource definitions (constant buffers, variables, types, resource bindings, creator).

Payload layout (offsets are from the start of the payload):

* header: ``cb_count, cb_offset, binding_count, binding_offset, target, flags, creator_offset``
  (28 bytes); SM5 adds the ``RD11`` header (SM5.1 writes the tag ``0x25441313``): header size 60,
  cbuffer size 24, binding size 32 (40 in 5.1), variable size 40, type size 36, member size 12 and
  the interface slot count;
* resource binding (32/40 bytes): name, input type, return type, dimension, sample count, bind
  point, bind count, flags (+ space, id in 5.1);
* constant buffer (24 bytes): name, variable count, variable offset, size, flags, type;
* variable (24 bytes, 40 in SM5): name, start offset, size, flags, type offset, default value
  offset (+ start texture, texture size, start sampler, sampler size);
* type (16 bytes, 36 in SM5): u16 class, type, rows, columns, elements, member count, u32 member
  offset (+ subtype, base class, interface count, interface offset, name offset);
* member (12 bytes): name, type offset, offset in the parent.

A parsed chunk keeps its :class:`~shaderkit.io.layout.Layout`: where every string, type record,
member and interface array, variable table and default value lay, which of them shared one
offset (fxc shares type records by its internal type identity, and fxc 9.29/9.30 sometimes
shares one default-value blob between two variables), and the bytes no field covers. Writing
puts every unchanged item back where it lay; a type's origin is read from the stored bytes of
what points at it (the variable table, the member array), never from Python object identity.
New or resized items go after the stored bytes, 4-aligned, 0xAB-padded (new strings once each).

fxc's layout, used for a chunk built from scratch: header; the binding array; the binding names;
0xAB padding; the cbuffer array; then for each cbuffer its name (unless a binding already wrote
it) and its variable array, followed, variable by variable, by the variable name, its type and
its default value; then the creator. A type is written in post order: its name, the interface
types and their offset array, each member's name and type, the member array, and the type
record itself. Strings are written once each (first use wins); structurally equal types, member
arrays and interface arrays are written once. Tables are 4-aligned with 0xAB padding.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    PAD_BYTE,
    Budget,
    Relayout,
    close_layout,
    placed_build,
    read_with_deferred_layout,
    record_table,
    recorded_string,
)
from shaderkit.formats.dxbc.enums import CBUFFER_FLAGS, DIMENSIONS, RETURN_TYPES, enum_name, flag_names
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import MAX_NESTING_DEPTH, Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

RD11 = 0x31314452  # "RD11"
RD11_51 = 0x25441313  # tag written by fxc for SM5.1

_HEADER = struct.Struct("<7I")
_RD11 = struct.Struct("<8I")
_BINDING = struct.Struct("<8I")
_BINDING51 = struct.Struct("<10I")
_CBUFFER = struct.Struct("<6I")
_VAR4 = struct.Struct("<6I")
_VAR5 = struct.Struct("<10I")
_TYPE4 = struct.Struct("<6HI")
_TYPE5 = struct.Struct("<6H6I")
_MEMBER = struct.Struct("<3I")

#: D3D_SHADER_VARIABLE_CLASS
VARIABLE_CLASSES = {0: "scalar", 1: "vector", 2: "matrix_rows", 3: "matrix_columns", 4: "object",
                    5: "struct", 6: "interface_class", 7: "interface_pointer"}
#: D3D_SHADER_VARIABLE_TYPE (the ones that appear in constant buffers)
VARIABLE_TYPES = {0: "void", 1: "bool", 2: "int", 3: "float", 4: "string", 19: "uint", 20: "uint8",
                  39: "double", 57: "min8float", 58: "min10float", 59: "min16float", 60: "min12int",
                  61: "min16int", 62: "min16uint"}
#: D3D_SHADER_INPUT_TYPE
INPUT_TYPES = {0: "cbuffer", 1: "tbuffer", 2: "texture", 3: "sampler", 4: "uav_rwtyped",
               5: "structured", 6: "uav_rwstructured", 7: "byteaddress", 8: "uav_rwbyteaddress",
               9: "uav_append_structured", 10: "uav_consume_structured",
               11: "uav_rwstructured_with_counter", 12: "rtaccelerationstructure", 13: "uav_feedbacktexture"}
#: D3D_CBUFFER_TYPE
CBUFFER_TYPES = {0: "cbuffer", 1: "tbuffer", 2: "interface_pointers", 3: "resource_bind_info"}
#: program type of the RDEF target word
TARGET_TYPES = {0xFFFF: "ps", 0xFFFE: "vs", 0x4753: "gs", 0x4853: "hs", 0x4453: "ds", 0x4353: "cs",
                0x4C46: "lib", 0x4C49: "lib"}


@dataclass(eq=False)
class ShaderType:
    """A variable type; structs carry members, classes their interfaces (SM5)."""

    variable_class: int = 0
    variable_type: int = 3
    rows: int = 1
    columns: int = 1
    elements: int = 0
    members: list[ShaderTypeMember] = field(default_factory=list)
    #: SM5 type name (``float4``); empty in SM4.
    name: str = ""
    subtype: ShaderType | None = None
    base_class: ShaderType | None = None
    interfaces: list[ShaderType] = field(default_factory=list)
    #: member offset word of a type without members: 0, or ``-1`` = points at the type itself
    #: (fxc does that for interface classes).
    member_offset_word: int = 0
    #: interface pointers (class 7) point at their interface type through the member offset.
    pointee: ShaderType | None = None
    #: interface array offset word of a type without interfaces (0 from fxc)
    interface_offset_word: int = 0

    def canonical_id(self, table: dict[tuple[Any, ...], int], memo: dict[int, int]) -> int:
        """An integer that two types share exactly when they are structurally equal.

        Children are replaced by their own ids (interned in ``table``), so every signature is
        shallow and shared sub-types are visited once: comparing type DAGs stays linear.
        """
        found = memo.get(id(self))
        if found is not None:
            return found
        members, interfaces = self.members, self.interfaces
        subtype, base_class, pointee = self.subtype, self.base_class, self.pointee
        signature = (
            self.variable_class, self.variable_type, self.rows, self.columns, self.elements,
            tuple([(m.name, m.offset, m.type.canonical_id(table, memo)) for m in members]) if members else (),
            self.name,
            -1 if subtype is None else subtype.canonical_id(table, memo),
            -1 if base_class is None else base_class.canonical_id(table, memo),
            tuple([i.canonical_id(table, memo) for i in interfaces]) if interfaces else (),
            self.member_offset_word,
            -1 if pointee is None else pointee.canonical_id(table, memo),
            self.interface_offset_word,
        )
        ident = table.setdefault(signature, len(table))
        memo[id(self)] = ident
        return ident

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShaderType):
            return NotImplemented
        table: dict[tuple[Any, ...], int] = {}
        memo: dict[int, int] = {}
        return self.canonical_id(table, memo) == other.canonical_id(table, memo)

    def describe(self) -> str:
        """Short text such as ``float4``, ``float4x4[3]`` or ``struct Light``."""
        if self.name:
            text = self.name
        elif self.variable_class == 5:
            text = "struct"
        else:
            base = VARIABLE_TYPES.get(self.variable_type, f"type{self.variable_type}")
            if self.variable_class == 1:
                text = f"{base}{self.columns}"
            elif self.variable_class in (2, 3):
                text = f"{base}{self.rows}x{self.columns}"
            else:
                text = base
        return f"{text}[{self.elements}]" if self.elements else text


@dataclass
class ShaderTypeMember:
    """A member of a struct type: name, type and byte offset in the struct."""
    name: str
    type: ShaderType
    offset: int = 0


@dataclass
class ShaderVariable:
    """A constant-buffer variable: name, type, start offset and size in bytes, flags, default value."""
    name: str
    type: ShaderType
    start_offset: int = 0
    size: int = 0
    flags: int = 0
    #: initial value bytes (``size`` bytes), or None when the variable has none.
    default_value: bytes | None = None
    start_texture: int = 0xFFFFFFFF
    texture_size: int = 0
    start_sampler: int = 0xFFFFFFFF
    sampler_size: int = 0


@dataclass
class ConstantBuffer:
    """A constant buffer: name, variables, size in bytes, flags and kind (cbuffer, tbuffer...)."""
    name: str
    variables: list[ShaderVariable] = field(default_factory=list)
    size: int = 0
    flags: int = 0
    cbuffer_type: int = 0


@dataclass
class ResourceBinding:
    """A bound resource: name, input/return types, dimension, sample count, bind point and count."""
    name: str
    input_type: int = 0
    return_type: int = 0
    dimension: int = 0
    num_samples: int = 0
    bind_point: int = 0
    bind_count: int = 1
    flags: int = 0
    space: int = 0
    id: int = 0


@dataclass
class ResourceDefinition:
    """The RDEF chunk: constant buffers, resource bindings, target profile and creator string."""
    #: build_fresh writes every field of the model: a fresh build equal to the stored payload is what
    #: the placed build gives (the container tries it first, see container._payload)
    FRESH_WRITES_EVERY_FIELD = True
    constant_buffers: list[ConstantBuffer] = field(default_factory=list)
    resource_bindings: list[ResourceBinding] = field(default_factory=list)
    #: target word: ``minor | major << 8 | program type << 16``.
    target: int = 0xFFFE0400
    flags: int = 0
    creator: str = ""
    #: RD11 tag (0 for SM4 headers), and its size fields.
    rd11_tag: int = 0
    rd11_sizes: tuple[int, int, int, int, int, int] = (60, 24, 32, 40, 36, 12)
    interface_slot_count: int = 0
    #: offset words kept when their table is empty (fxc writes the header size for bindings
    #: and 0 for cbuffers; other compilers differ)
    empty_binding_offset: int | None = field(default=None, compare=False)
    empty_cbuffer_offset: int = field(default=0, compare=False)
    fourcc: str = "RDEF"
    #: where the parsed items lay (None for a new chunk: fxc's layout is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    # -- properties -------------------------------------------------------------------------
    @property
    def major(self) -> int:
        """The target's major shader model (target bits 8..15)."""
        return (self.target >> 8) & 0xFF

    @property
    def minor(self) -> int:
        """The target's minor shader model (target bits 0..7)."""
        return self.target & 0xFF

    @property
    def program_type(self) -> int:
        """The target's program type word (bits 16..31: 0xFFFF ps, 0xFFFE vs, ...)."""
        return self.target >> 16

    @property
    def target_profile(self) -> str:
        """``vs_5_0``-style name of the target word (``lib_4_0`` for library functions)."""
        kind = TARGET_TYPES.get(self.program_type, f"type{self.program_type:#x}")
        return f"{kind}_{self.major}_{self.minor}"

    @property
    def is_sm5(self) -> bool:
        """True when the chunk has the RD11 header (SM5 and lib_4_x)."""
        return self.rd11_tag != 0

    @property
    def is_sm51(self) -> bool:
        """True when bindings have the SM5.1 size (with register space and range id)."""
        return self.rd11_tag != 0 and self.rd11_sizes[2] >= _BINDING51.size

    def constant_buffer(self, name: str) -> ConstantBuffer | None:
        """The constant buffer called ``name``, or None."""
        return next((c for c in self.constant_buffers if c.name == name), None)

    # -- parsing ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, r: Reader, fourcc: str = "RDEF") -> ResourceDefinition:
        """Parse the chunk payload under ``r``; ShaderFormatError for counts and offsets outside it.

        The layout is recorded when first used (:func:`~.common.read_with_deferred_layout`).
        """
        return read_with_deferred_layout(r, cls._read)

    @classmethod
    def _read(cls, r: Reader, layout: Layout | None) -> ResourceDefinition:
        """The chunk under ``r``, recording where its items lay in ``layout`` (closed at the end) unless None."""
        base = r.start
        cb_count, cb_off, rb_count, rb_off, target, flags, creator_off = r.unpack_at(base, "7I", "RDEF header")
        rd = cls(target=target, flags=flags)
        # the RD11 header follows for SM5 and also for lib_4_x functions (target "LF" 4.x)
        if r.end - base >= _HEADER.size + _RD11.size:
            tag, *sizes, slots = r.unpack_at(base + _HEADER.size, "8I", "RD11 header")
            if tag in (RD11, RD11_51):
                rd.rd11_tag = tag
                rd.rd11_sizes = (sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5])
                rd.interface_slot_count = slots
                if sizes[2] not in (_BINDING.size, _BINDING51.size):
                    raise r.error(f"unsupported resource binding size {sizes[2]}", base + 36)
        sm5 = rd.is_sm5
        binding_st = _BINDING51 if rd.is_sm51 else _BINDING
        parser = _Parser(r, sm5, layout)
        rd.creator = recorded_string(r, layout, "creator", creator_off, "creator") if creator_off else ""
        if rb_count == 0:
            rd.empty_binding_offset = rb_off
        if cb_count == 0:
            rd.empty_cbuffer_offset = cb_off
        r.check_count(rb_count, binding_st.size, "resource bindings", parser.at(rb_off))
        record_table(r, layout, "bindings", rb_off, rb_count * binding_st.size)
        data, end = r.data, r.end
        record = layout.record if layout is not None else None
        bindings = rd.resource_bindings
        table = base + rb_off
        for i, fields_ in enumerate(binding_st.iter_unpack(data[table : table + rb_count * binding_st.size])):
            name_off = fields_[0]  # (recorded_string, its where text made only for the error)
            at = base + name_off
            nul = data.find(b"\0", at, end) if name_off < end - base else -1
            if nul < 0:
                recorded_string(r, layout, ("binding_name", i), name_off, "name", f"resource_bindings[{i}]")
            if record is not None:
                record(("binding_name", i), name_off, data[at : nul + 1])
            bindings.append(ResourceBinding(data[at:nul].decode("latin-1"), *fields_[1:]))
        r.check_count(cb_count, _CBUFFER.size, "constant buffers", parser.at(cb_off))
        record_table(r, layout, "cbuffers", cb_off, cb_count * _CBUFFER.size)
        path = r._path  # the scope of Reader.scope, without a generator per constant buffer
        for i in range(cb_count):
            name_off, var_count, var_off, size, cb_flags, cb_type = _CBUFFER.unpack_from(
                r.data, base + cb_off + i * _CBUFFER.size)
            path.append(f"constant_buffers[{i}]")
            try:
                name = recorded_string(r, layout, ("cbuffer_name", i), name_off, "name")
                cb = ConstantBuffer(name, [], size, cb_flags, cb_type)
                cb.variables = parser.variables(i, var_count, var_off)
            finally:
                path.pop()
            rd.constant_buffers.append(cb)
        if layout is not None:
            rd.layout = close_layout(layout, r, _HEADER.size + (_RD11.size if sm5 else 0))
        return rd

    # -- building --------------------------------------------------------------------------
    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, lambda w: _PlacedBuilder(self, w).run())

    def build_fresh(self) -> bytes:
        """The payload laid out by fxc's rule (see the module docstring), ignoring the stored layout."""
        return _Builder(self).run()

    # -- text ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Creator, target, constant buffers and bindings, JSON-ready (enums as names and numbers)."""
        return {
            "creator": self.creator,
            "target": self.target_profile,
            "constant_buffers": [
                {
                    "name": cb.name,
                    "type": CBUFFER_TYPES.get(cb.cbuffer_type, str(cb.cbuffer_type)),
                    "size": cb.size,
                    "flags": cb.flags,
                    "flags_names": flag_names(CBUFFER_FLAGS, cb.flags),
                    "variables": [
                        {"name": v.name, "offset": v.start_offset, "size": v.size, "flags": v.flags,
                         "type": v.type.describe(),
                         "class": VARIABLE_CLASSES.get(v.type.variable_class, str(v.type.variable_class))}
                        for v in cb.variables
                    ],
                }
                for cb in self.constant_buffers
            ],
            "resource_bindings": [
                {"name": b.name, "type": INPUT_TYPES.get(b.input_type, str(b.input_type)),
                 "return_type": b.return_type, "return_type_name": enum_name(RETURN_TYPES, b.return_type),
                 "dimension": b.dimension, "dimension_name": enum_name(DIMENSIONS, b.dimension),
                 "bind_point": b.bind_point,
                 "bind_count": b.bind_count, "space": b.space, "flags": b.flags}
                for b in self.resource_bindings
            ],
        }


class _Parser:
    """Reads variables and (shared, possibly nested) types with depth and cycle limits."""

    def __init__(self, r: Reader, sm5: bool, layout: Layout | None) -> None:
        self.r = r
        self.base = r.start
        self.sm5 = sm5
        self.layout = layout
        self.types: dict[int, ShaderType] = {}
        self.busy: set[int] = set()
        self.variable_budget = Budget(r, _VAR4.size, "variable tables")
        self.member_budget = Budget(r, 4, "member/interface tables")  # fxc shares member arrays

    def at(self, offset: int) -> int:
        if offset > self.r.end - self.base:
            raise self.r.error(f"offset {offset:#x} is past the chunk end", self.base)
        return self.base + offset

    def variables(self, cb_index: int, count: int, offset: int) -> list[ShaderVariable]:
        r = self.r
        layout = self.layout
        st = _VAR5 if self.sm5 else _VAR4
        r.check_count(count, st.size, "variables", self.at(offset))
        self.variable_budget.take(count)
        record_table(r, layout, ("variables", cb_index), offset, count * st.size)
        out = []
        data, base, end = r.data, self.base, r.end
        record = layout.record if layout is not None else None
        for i, words in enumerate(st.iter_unpack(data[base + offset : base + offset + count * st.size])):
            name_off, start, size, flags, type_off, default_off = words[:6]
            at = base + name_off
            nul = data.find(b"\0", at, end) if name_off < end - base else -1
            if nul < 0:  # past the chunk or unterminated: the error recorded_string raises
                recorded_string(r, layout, ("variable_name", cb_index, i), name_off, "name", f"variables[{i}]")
            if record is not None:
                record(("variable_name", cb_index, i), name_off, data[at : nul + 1])
            var = ShaderVariable(data[at:nul].decode("latin-1"), self.type(type_off, 0), start, size, flags)
            if default_off:
                var.default_value = r.sub(self.at(default_off), size, f"variables[{i}].default value").read(size)
                if record is not None:
                    record(("default", cb_index, i), default_off, var.default_value)
            if self.sm5:
                var.start_texture, var.texture_size, var.start_sampler, var.sampler_size = words[6:]
            out.append(var)
        return out

    def type(self, offset: int, depth: int) -> ShaderType:
        found = self.types.get(offset)
        if found is not None:
            return found
        r = self.r
        if depth > MAX_NESTING_DEPTH or offset in self.busy:
            raise r.error("type nesting is too deep or cyclic", self.base + offset)
        st = _TYPE5 if self.sm5 else _TYPE4
        pos = self.at(offset)
        r.check_count(1, st.size, "type", pos)
        words = st.unpack_from(r.data, pos)
        cls_, typ, rows, cols, elems, member_count, member_off = words[:7]
        t = ShaderType(cls_, typ, rows, cols, elems)
        layout = self.layout
        if layout is not None:
            layout.record(("type", offset), offset, r.data[pos : pos + st.size])
        self.busy.add(offset)
        path = r._path  # the scope of Reader.scope, without a generator per type record
        path.append(f"type@{offset:#x}")
        try:
            if member_count:
                r.check_count(member_count, _MEMBER.size, "members", self.at(member_off))
                self.member_budget.take(member_count)
                record_table(r, layout, ("members", offset), member_off, member_count * _MEMBER.size)
                for i in range(member_count):
                    name_off, type_off, moff = _MEMBER.unpack_from(r.data, self.base + member_off + 12 * i)
                    name = recorded_string(r, layout, ("member_name", offset, i), name_off, "member name")
                    t.members.append(ShaderTypeMember(name, self.type(type_off, depth + 1), moff))
            elif member_off == offset:
                t.member_offset_word = -1
            elif member_off and cls_ == 7:
                t.pointee = self.type(member_off, depth + 1)
            elif member_off:
                t.member_offset_word = member_off
            if self.sm5:
                sub_off, base_off, iface_count, iface_off, name_off = words[7:]
                t.name = recorded_string(r, layout, ("type_name", offset), name_off, "type name") if name_off else ""
                if sub_off:
                    t.subtype = self.type(sub_off, depth + 1)
                if base_off:
                    t.base_class = self.type(base_off, depth + 1)
                if iface_count:
                    r.check_count(iface_count, 4, "interfaces", self.at(iface_off))
                    self.member_budget.take(iface_count)
                    record_table(r, layout, ("interfaces", offset), iface_off, 4 * iface_count)
                    offs = struct.unpack_from(f"<{iface_count}I", r.data, self.base + iface_off)
                    t.interfaces = [self.type(o, depth + 1) for o in offs]
                else:
                    t.interface_offset_word = iface_off
        finally:
            path.pop()
        self.busy.discard(offset)
        self.types[offset] = t
        return t


class _Builder:
    """Lays an RDEF payload out in fxc's order (see the module docstring)."""

    def __init__(self, rd: ResourceDefinition) -> None:
        self.rd = rd
        self.out = bytearray()
        self.strings: dict[str, int] = {}
        self.types: dict[int, int] = {}
        self.canon_table: dict[tuple[Any, ...], int] = {}
        self.canon_memo: dict[int, int] = {}
        self.member_arrays: dict[tuple[tuple[int, int, int], ...], int] = {}
        self.interface_arrays: dict[tuple[int, ...], int] = {}
        self.sm5 = rd.is_sm5

    def align(self) -> None:
        self.out += PAD_BYTE * (-len(self.out) % 4)

    def string(self, text: str) -> int:
        found = self.strings.get(text)
        if found is None:
            found = len(self.out)
            self.strings[text] = found
            self.out += text.encode("latin-1") + b"\0"
        return found

    def run(self) -> bytes:
        rd = self.rd
        head_size = _HEADER.size + (_RD11.size if self.sm5 else 0)
        self.out += bytes(head_size)
        sm51 = rd.is_sm51
        binding_st = _BINDING51 if sm51 else _BINDING
        rb_off = len(self.out) if rd.resource_bindings else (
            rd.empty_binding_offset if rd.empty_binding_offset is not None else head_size)
        self.out += bytes(binding_st.size * len(rd.resource_bindings))
        for i, b in enumerate(rd.resource_bindings):
            if sm51:
                binding_st.pack_into(self.out, rb_off + i * binding_st.size, self.string(b.name), b.input_type,
                                     b.return_type, b.dimension, b.num_samples, b.bind_point, b.bind_count, b.flags,
                                     b.space, b.id)
            else:
                binding_st.pack_into(self.out, rb_off + i * binding_st.size, self.string(b.name), b.input_type,
                                     b.return_type, b.dimension, b.num_samples, b.bind_point, b.bind_count, b.flags)
        if rd.constant_buffers:
            self.align()
        cb_off = len(self.out) if rd.constant_buffers else rd.empty_cbuffer_offset
        self.out += bytes(_CBUFFER.size * len(rd.constant_buffers))
        for i, cb in enumerate(rd.constant_buffers):
            # a cbuffer without a same-named binding gets its name just before its variables
            name_off = self.string(cb.name)
            var_off = self.variables(cb.variables) if cb.variables else 0
            _CBUFFER.pack_into(self.out, cb_off + i * _CBUFFER.size, name_off, len(cb.variables),
                               var_off, cb.size, cb.flags, cb.cbuffer_type)
        creator_off = len(self.out)
        self.out += rd.creator.encode("latin-1") + b"\0"
        self.align()
        _HEADER.pack_into(self.out, 0, len(rd.constant_buffers), cb_off, len(rd.resource_bindings), rb_off,
                          rd.target, rd.flags, creator_off)
        if self.sm5:
            _RD11.pack_into(self.out, _HEADER.size, rd.rd11_tag, *rd.rd11_sizes, rd.interface_slot_count)
        return bytes(self.out)

    def variables(self, variables: list[ShaderVariable]) -> int:
        sm5 = self.sm5
        st = _VAR5 if sm5 else _VAR4
        out = self.out
        out += PAD_BYTE * (-len(out) % 4)
        table = len(out)
        out += bytes(st.size * len(variables))
        for i, v in enumerate(variables):
            name = self.string(v.name)
            type_off = self.type(v.type)
            default_off = 0
            if v.default_value is not None:
                out += PAD_BYTE * (-len(out) % 4)
                default_off = len(out)
                out += v.default_value
            if sm5:
                st.pack_into(out, table + i * st.size, name, v.start_offset, v.size, v.flags, type_off, default_off,
                             v.start_texture, v.texture_size, v.start_sampler, v.sampler_size)
            else:
                st.pack_into(out, table + i * st.size, name, v.start_offset, v.size, v.flags, type_off, default_off)
        return table

    def type(self, t: ShaderType, nested: bool = False) -> int:
        # structurally equal types are written once (two equal models write equal bytes)
        key = t.canonical_id(self.canon_table, self.canon_memo)
        found = self.types.get(key)
        if found is not None:
            return found
        name_off = self.string(t.name) if self.sm5 and t.name else 0
        pointee_off = self.type(t.pointee, True) if t.pointee is not None else 0
        sub_off = self.type(t.subtype, True) if t.subtype else 0
        base_off = self.type(t.base_class, True) if t.base_class else 0
        iface_off = t.interface_offset_word
        if t.interfaces:
            offs = tuple(self.type(i, True) for i in t.interfaces)
            found_ifaces = self.interface_arrays.get(offs)
            if found_ifaces is None:
                self.align()
                found_ifaces = self.interface_arrays[offs] = len(self.out)
                self.out += struct.pack(f"<{len(offs)}I", *offs)
            iface_off = found_ifaces
        member_off = 0
        if t.members:
            entries = tuple((self.string(m.name), self.type(m.type, True), m.offset) for m in t.members)
            # two records of one struct type share the member array
            found_members = self.member_arrays.get(entries)
            if found_members is None:
                self.align()
                found_members = self.member_arrays[entries] = len(self.out)
                for entry in entries:
                    self.out += _MEMBER.pack(*entry)
            member_off = found_members
        self.align()
        pos = len(self.out)
        if t.pointee is not None:
            member_off = pointee_off
        elif not t.members:
            member_off = pos if t.member_offset_word == -1 else t.member_offset_word
        head = (t.variable_class, t.variable_type, t.rows, t.columns, t.elements, len(t.members), member_off)
        if self.sm5:
            self.out += _TYPE5.pack(*head, sub_off, base_off, len(t.interfaces), iface_off, name_off)
        else:
            self.out += _TYPE4.pack(*head)
        self.types[key] = pos
        return pos


def _words(st: struct.Struct, data: bytes | None, index: int = 0) -> tuple[int, ...] | None:
    """Entry ``index`` of a stored table, or None when the table is absent or shorter."""
    if data is None or (index + 1) * st.size > len(data):
        return None
    return st.unpack_from(data, index * st.size)


class _PlacedBuilder:
    """Writes a parsed RDEF back through its layout: unchanged items where they lay, post order.

    A type's origin (the stored offset of its record) is read from the stored bytes of whatever
    points at it; the first model type to claim an origin gets it, any other type with that origin
    (an edit that split a shared type) is written as new. New types, arrays and strings are keyed
    by their content, so equal ones are written once.
    """

    def __init__(self, rd: ResourceDefinition, writer: PlacedWriter) -> None:
        assert writer.layout is not None
        self.rd = rd
        self.w = writer
        self.layout: Layout = writer.layout
        self.sm5 = rd.is_sm5
        self.type_st = _TYPE5 if self.sm5 else _TYPE4
        self.canon_table: dict[tuple[Any, ...], int] = {}
        self.canon_memo: dict[int, int] = {}
        self.claims: dict[int, int] = {}
        self.done: dict[tuple[int | None, int], int] = {}

    def stored(self, key: object) -> bytes | None:
        item = self.layout.items.get(key)
        return None if item is None else item.data

    def string(self, key: object, text: str) -> int:
        data = text.encode("latin-1") + b"\0"
        item = self.layout.items.get(key)
        if item is not None and item.data == data:
            return self.w.place(key, data)
        return self.w.place(("string", text), data)

    def run(self) -> None:
        rd, w = self.rd, self.w
        binding_st = _BINDING51 if rd.is_sm51 else _BINDING
        creator_off = 0
        if rd.creator or "creator" in self.layout.items:
            creator_off = self.string("creator", rd.creator)
        rows = []
        sm51 = rd.is_sm51
        for i, b in enumerate(rd.resource_bindings):
            name = self.string(("binding_name", i), b.name)
            if sm51:
                rows.append(binding_st.pack(name, b.input_type, b.return_type, b.dimension, b.num_samples,
                                            b.bind_point, b.bind_count, b.flags, b.space, b.id))
            else:
                rows.append(binding_st.pack(name, b.input_type, b.return_type, b.dimension, b.num_samples,
                                            b.bind_point, b.bind_count, b.flags))
        rb_off = w.place("bindings", b"".join(rows))
        if not rd.resource_bindings and "bindings" not in self.layout.items:
            rb_off = rd.empty_binding_offset if rd.empty_binding_offset is not None else rb_off
        rows = []
        for i, cb in enumerate(rd.constant_buffers):
            name_off = self.string(("cbuffer_name", i), cb.name)
            var_off = self.variables(i, cb.variables)
            rows.append(_CBUFFER.pack(name_off, len(cb.variables), var_off, cb.size, cb.flags, cb.cbuffer_type))
        cb_off = w.place("cbuffers", b"".join(rows))
        if not rd.constant_buffers and "cbuffers" not in self.layout.items:
            cb_off = rd.empty_cbuffer_offset
        head = _HEADER.pack(len(rd.constant_buffers), cb_off, len(rd.resource_bindings), rb_off,
                            rd.target, rd.flags, creator_off)
        if self.sm5:
            head += _RD11.pack(rd.rd11_tag, *rd.rd11_sizes, rd.interface_slot_count)
        w.put(0, head)

    def variables(self, cb_index: int, variables: list[ShaderVariable]) -> int:
        sm5 = self.sm5
        st = _VAR5 if sm5 else _VAR4
        table_key = ("variables", cb_index)
        stored_table = self.stored(table_key)
        rows = []
        for i, v in enumerate(variables):
            name = self.string(("variable_name", cb_index, i), v.name)
            old = _words(st, stored_table, i)
            type_off = self.type(v.type, old[4] if old is not None else None)
            default_off = 0
            if v.default_value is not None:
                default_off = self.w.place(("default", cb_index, i), v.default_value)
            if sm5:
                rows.append(st.pack(name, v.start_offset, v.size, v.flags, type_off, default_off,
                                    v.start_texture, v.texture_size, v.start_sampler, v.sampler_size))
            else:
                rows.append(st.pack(name, v.start_offset, v.size, v.flags, type_off, default_off))
        if not variables and stored_table is None:
            return 0
        return self.w.place(table_key, b"".join(rows))

    def type(self, t: ShaderType, origin: int | None) -> int:
        canon = t.canonical_id(self.canon_table, self.canon_memo)
        found = self.done.get((origin, canon))
        if found is not None:
            return found
        record = self.stored(("type", origin)) if origin is not None else None
        if origin is not None and record is not None and self.claims.setdefault(origin, canon) == canon:
            prefix: tuple[Any, ...] = (origin,)
        else:
            record, origin, prefix = None, None, ("new", canon)
            found = self.done.get((None, canon))
            if found is not None:
                return found
        old = _words(self.type_st, record)
        name_off = 0
        if self.sm5 and (t.name or ("type_name", *prefix) in self.layout.items):
            name_off = self.string(("type_name", *prefix), t.name)
        pointee_off = self.type(t.pointee, old[6] if old else None) if t.pointee is not None else 0
        sub_off = self.type(t.subtype, old[7] if old and self.sm5 else None) if t.subtype else 0
        base_off = self.type(t.base_class, old[8] if old and self.sm5 else None) if t.base_class else 0
        iface_off = t.interface_offset_word
        if t.interfaces:
            stored_ifaces = self.stored(("interfaces", *prefix))
            offs = []
            for k, iface in enumerate(t.interfaces):
                entry = _words(_U32, stored_ifaces, k)
                offs.append(self.type(iface, entry[0] if entry else None))
            iface_off = self.w.place(("interfaces", *prefix), struct.pack(f"<{len(offs)}I", *offs))
        member_off = 0
        if t.members:
            stored_members = self.stored(("members", *prefix))
            rows = []
            for k, m in enumerate(t.members):
                entry = _words(_MEMBER, stored_members, k)
                name = self.string(("member_name", *prefix, k), m.name)
                rows.append(_MEMBER.pack(name, self.type(m.type, entry[1] if entry else None), m.offset))
            member_off = self.w.place(("members", *prefix), b"".join(rows))
        elif t.pointee is not None:
            member_off = pointee_off
        elif t.member_offset_word != -1:
            member_off = t.member_offset_word
        expected = origin if origin is not None else self._next_offset()
        if not t.members and t.pointee is None and t.member_offset_word == -1:
            member_off = expected  # the record points at itself
        head = (t.variable_class, t.variable_type, t.rows, t.columns, t.elements, len(t.members), member_off)
        if self.sm5:
            data = _TYPE5.pack(*head, sub_off, base_off, len(t.interfaces), iface_off, name_off)
        else:
            data = _TYPE4.pack(*head)
        at = self.w.place(("type", *prefix), data)
        if t.member_offset_word == -1 and not t.members and t.pointee is None and at != expected:
            raise Relayout(f"self-referencing type moved from {expected:#x} to {at:#x}")
        self.done[(origin, canon)] = at
        return at

    def _next_offset(self) -> int:
        return self.w.allocate(self.w.end, self.type_st.size)


_U32 = struct.Struct("<I")

"""The structured records of an fx_4_x effect, typed (``EffectBinaryFormat.h``).

Every record is a run of u32 words whose offsets point into the unstructured block; the
models keep those words as fields (``*_offset`` point into the block), so writing them back
is packing the words in record order:

* constant buffers (local, then the pool's): ``name, size, flags (1 tbuffer), variable count,
  bind point`` + annotations (local only) + numeric variables ``name, type, semantic, offset in
  the buffer, default value, flags`` + annotations (local only);
* object variables: ``name, type, semantic, bind point``; a local one then carries, per element,
  a state block (``assignment count`` + assignments) for blend/depth-stencil/rasterizer/sampler
  types, one offset for strings and shaders, two (shader, stream-output declaration) for a
  geometry shader with stream output; then annotations. Pool objects carry neither;
* techniques: ``name, pass count`` + annotations + passes ``name, assignment count`` +
  annotations + assignments ``state, index, kind, initializer``;
* annotations: ``count`` then per annotation ``name, type`` + one offset per element for
  strings, else one default-value offset.

fx_5_0 (``SBinaryHeader5``, Effects11's ``EffectLoad.cpp`` reading order) has no pool sections;
after the objects come the interface variables ``name, type, default value (interface
initializers), flags`` + annotations, then the groups ``name, technique count`` + annotations +
techniques as above. Its shader objects (``EOT_*Shader5``, 25..30) carry one
``SBinaryShaderData5`` per element: ``shader, stream-output declarations[4], declaration count,
rasterized stream, interface binding count, interface bindings``.

The element count and object kind of a variable come from its type description in the
unstructured block (``name, variable type (2 object), elements, total size, stride, packed
size, object type``). A record stream this walk does not account for stays bytes.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError

#: EObjectType values whose variables carry a state block per element
STATE_BLOCK_OBJECTS = frozenset({2, 3, 4, 21})
#: strings and fx_4 shaders: one offset per element
ONE_OFFSET_OBJECTS = frozenset({1, 5, 6, 7})
#: geometry shader with stream output: (shader, stream-output declaration) per element
GS_SO_OBJECT = 8
#: fx_5_0 shader objects (EOT_PixelShader5 .. EOT_DomainShader5): one SBinaryShaderData5 per element
SHADER5_OBJECTS = frozenset(range(25, 31))
_TYPE_OBJECT = 2


@dataclass
class Annotation:
    """An FX10 annotation: name/type offsets into the unstructured block and its value offsets."""
    name_offset: int
    type_offset: int
    #: one string offset per element (string annotations), else the default value's offset
    values: list[int] = field(default_factory=list)


@dataclass
class NumericVariable:
    """A numeric variable of a buffer: name/type/semantic offsets, byte offset in the buffer, default."""
    name_offset: int
    type_offset: int
    semantic_offset: int = 0
    offset: int = 0
    default_offset: int = 0
    flags: int = 0
    annotations: list[Annotation] = field(default_factory=list)


@dataclass
class BufferRecord:
    """An FX10 cbuffer/tbuffer: name offset, size in bytes, flags, bind point and variables."""
    name_offset: int
    size: int = 0
    flags: int = 0
    bind_point: int = 0xFFFFFFFF
    variables: list[NumericVariable] = field(default_factory=list)
    annotations: list[Annotation] = field(default_factory=list)

    @property
    def is_tbuffer(self) -> bool:
        """True for a tbuffer (flag bit 0)."""
        return bool(self.flags & 1)


@dataclass
class Assignment:
    """One pass/state assignment: state id, element index, kind and initializer offset."""
    state: int
    index: int
    kind: int
    initializer_offset: int


@dataclass
class ShaderData5:
    """``SBinaryShaderData5``: an fx_5_0 shader object's element."""

    shader_offset: int
    #: offsets of the stream-output declaration strings (4 slots; ``so_decl_count`` are valid)
    so_decl_offsets: tuple[int, int, int, int] = (0, 0, 0, 0)
    so_decl_count: int = 0
    rasterized_stream: int = 0
    interface_binding_count: int = 0
    #: offset of ``SBinaryInterfaceInitializer[interface_binding_count]`` (instance name, array index)
    interface_bindings_offset: int = 0

    def words(self) -> list[int]:
        """The 9 u32 words of ``SBinaryShaderData5`` in stored order."""
        return [self.shader_offset, *self.so_decl_offsets, self.so_decl_count, self.rasterized_stream,
                self.interface_binding_count, self.interface_bindings_offset]


@dataclass
class ObjectVariable:
    """An object variable (shader, state block, texture...): offsets, bind point, initializers and blocks."""
    name_offset: int
    type_offset: int
    semantic_offset: int = 0
    bind_point: int = 0xFFFFFFFF
    #: per element: the initializer offsets (1 word, 2 for a stream-output geometry shader)
    initializers: list[tuple[int, ...]] = field(default_factory=list)
    #: per element: the state block (blend/depth-stencil/rasterizer/sampler objects)
    blocks: list[list[Assignment]] = field(default_factory=list)
    annotations: list[Annotation] = field(default_factory=list)
    #: per element: the fx_5_0 shader data (``EOT_*Shader5`` objects)
    shaders5: list[ShaderData5] = field(default_factory=list)


@dataclass
class InterfaceVariable:
    """fx_5_0 ``SBinaryInterfaceVariable``."""

    name_offset: int
    type_offset: int
    #: offset of ``SBinaryInterfaceInitializer[elements]`` (0: none)
    default_offset: int = 0
    flags: int = 0
    annotations: list[Annotation] = field(default_factory=list)


@dataclass
class Pass:
    """A technique pass: name offset, annotations and state assignments."""
    name_offset: int
    annotations: list[Annotation] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)


@dataclass
class Technique:
    """An effect technique: name offset, annotations and passes."""
    name_offset: int
    annotations: list[Annotation] = field(default_factory=list)
    passes: list[Pass] = field(default_factory=list)


@dataclass
class Group:
    """fx_5_0 ``SBinaryGroup``: techniques under a name (the unnamed group has name offset 0)."""

    name_offset: int
    annotations: list[Annotation] = field(default_factory=list)
    techniques: list[Technique] = field(default_factory=list)


@dataclass
class EffectRecords:
    """The structured part of an effect: buffers, objects, pool copies and techniques."""
    buffers: list[BufferRecord] = field(default_factory=list)
    objects: list[ObjectVariable] = field(default_factory=list)
    pool_buffers: list[BufferRecord] = field(default_factory=list)
    pool_objects: list[ObjectVariable] = field(default_factory=list)
    #: fx_4_x techniques (fx_5_0 keeps them in ``groups``)
    techniques: list[Technique] = field(default_factory=list)
    #: fx_5_0 only
    interfaces: list[InterfaceVariable] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    fx5: bool = False

    def all_techniques(self) -> list[Technique]:
        """The fx_4_x techniques, then each fx_5_0 group's techniques, in stored order."""
        return self.techniques + [t for g in self.groups for t in g.techniques]

    def build(self) -> bytes:
        """The structured part as bytes, in the order the effect header counts them."""
        out: list[int] = []
        for b in self.buffers:
            _put_buffer(out, b, local=True)
        for o in self.objects:
            _put_object(out, o, local=True)
        for b in self.pool_buffers:
            _put_buffer(out, b, local=False)
        for o in self.pool_objects:
            _put_object(out, o, local=False)
        for i in self.interfaces:
            out += [i.name_offset, i.type_offset, i.default_offset, i.flags]
            _put_annotations(out, i.annotations)
        for g in self.groups:
            out += [g.name_offset, len(g.techniques)]
            _put_annotations(out, g.annotations)
            for t in g.techniques:
                _put_technique(out, t)
        for t in self.techniques:
            _put_technique(out, t)
        return struct.pack(f"<{len(out)}I", *out)


def _put_technique(out: list[int], t: Technique) -> None:
    out += [t.name_offset, len(t.passes)]
    _put_annotations(out, t.annotations)
    for p in t.passes:
        out += [p.name_offset, len(p.assignments)]
        _put_annotations(out, p.annotations)
        for a in p.assignments:
            out += [a.state, a.index, a.kind, a.initializer_offset]


def _put_annotations(out: list[int], annotations: list[Annotation]) -> None:
    out.append(len(annotations))
    for a in annotations:
        out += [a.name_offset, a.type_offset, *a.values]


def _put_buffer(out: list[int], b: BufferRecord, local: bool) -> None:
    out += [b.name_offset, b.size, b.flags, len(b.variables), b.bind_point]
    if local:
        _put_annotations(out, b.annotations)
    for v in b.variables:
        out += [v.name_offset, v.type_offset, v.semantic_offset, v.offset, v.default_offset, v.flags]
        if local:
            _put_annotations(out, v.annotations)


def _put_object(out: list[int], o: ObjectVariable, local: bool) -> None:
    out += [o.name_offset, o.type_offset, o.semantic_offset, o.bind_point]
    if not local:
        return
    for init in o.initializers:
        out += init
    for data in o.shaders5:
        out += data.words()
    for block in o.blocks:
        out.append(len(block))
        for a in block:
            out += [a.state, a.index, a.kind, a.initializer_offset]
    _put_annotations(out, o.annotations)


class _Walker:
    """Reads the record words; ``unstructured`` answers the type descriptions."""

    def __init__(self, words: tuple[int, ...], unstructured: bytes) -> None:
        self.words = words
        self.pos = 0
        self.blob = unstructured

    def take(self, count: int) -> tuple[int, ...]:
        if count < 0 or self.pos + count > len(self.words):
            raise ShaderFormatError(f"FX10 record of {count} words runs past the records", 4 * self.pos, "FX10")
        values = self.words[self.pos : self.pos + count]
        self.pos += count
        return values

    def count(self, what: str) -> int:
        (n,) = self.take(1)
        if n > len(self.words) - self.pos:
            raise ShaderFormatError(f"FX10 {what} count {n} is too large", 4 * self.pos, "FX10")
        return n

    def type_info(self, offset: int) -> tuple[int, int, int]:
        """(variable type, elements, object type) of the type description at ``offset``."""
        if offset + 28 > len(self.blob):
            raise ShaderFormatError(f"FX10 type at {offset:#x} runs past the unstructured block", offset, "FX10")
        _name, var_type, elements, _total, _stride, _packed, extra = struct.unpack_from("<7I", self.blob, offset)
        return var_type, elements, extra

    def annotations(self) -> list[Annotation]:
        out = []
        for _ in range(self.count("annotation")):
            name, type_off = self.take(2)
            var_type, elements, _extra = self.type_info(type_off)
            values = self.take(max(elements, 1) if var_type == _TYPE_OBJECT else 1)
            out.append(Annotation(name, type_off, list(values)))
        return out

    def assignments(self, count: int) -> list[Assignment]:
        out = []
        for _ in range(count):
            state, index, kind, initializer = self.take(4)
            out.append(Assignment(state, index, kind, initializer))
        return out

    def buffers(self, count: int, local: bool) -> list[BufferRecord]:
        out = []
        for _ in range(count):
            name, size, flags, variables, bind = self.take(5)
            b = BufferRecord(name, size, flags, bind)
            if local:
                b.annotations = self.annotations()
            if variables > len(self.words):
                raise ShaderFormatError(f"FX10 variable count {variables} is too large", 4 * self.pos, "FX10")
            for _ in range(variables):
                name_off, type_off, semantic, offset, default, flags = self.take(6)
                v = NumericVariable(name_off, type_off, semantic, offset, default, flags)
                if local:
                    v.annotations = self.annotations()
                b.variables.append(v)
            out.append(b)
        return out

    def objects(self, count: int, local: bool) -> list[ObjectVariable]:
        out = []
        for _ in range(count):
            name_off, type_off, semantic, bind = self.take(4)
            o = ObjectVariable(name_off, type_off, semantic, bind)
            if local:
                var_type, elements, obj_type = self.type_info(o.type_offset)
                n = max(elements, 1)  # (every element read below takes a word at least: take() bounds the loops;
                # an array of objects without initializers, RenderTargetView[121], reads none)
                if var_type == _TYPE_OBJECT and obj_type in STATE_BLOCK_OBJECTS:
                    o.blocks = [self.assignments(self.count("assignment")) for _ in range(n)]
                elif var_type == _TYPE_OBJECT and obj_type in ONE_OFFSET_OBJECTS:
                    o.initializers = [self.take(1) for _ in range(n)]
                elif var_type == _TYPE_OBJECT and obj_type == GS_SO_OBJECT:
                    o.initializers = [self.take(2) for _ in range(n)]
                elif var_type == _TYPE_OBJECT and obj_type in SHADER5_OBJECTS:
                    for _ in range(n):
                        shader, d0, d1, d2, d3, count, stream, bindings, bindings_at = self.take(9)
                        o.shaders5.append(ShaderData5(shader, (d0, d1, d2, d3), count, stream, bindings,
                                                      bindings_at))
                o.annotations = self.annotations()
            out.append(o)
        return out

    def interfaces(self, count: int) -> list[InterfaceVariable]:
        out = []
        for _ in range(count):
            name, type_off, default, flags = self.take(4)
            out.append(InterfaceVariable(name, type_off, default, flags, self.annotations()))
        return out

    def groups(self, count: int, techniques: int) -> list[Group]:
        out = []
        total = 0
        for _ in range(count):
            name, count_in_group = self.take(2)
            group = Group(name, self.annotations())
            total += count_in_group
            if total > techniques:
                raise ShaderFormatError(f"FX10 groups hold more than the {techniques} techniques declared",
                                        4 * self.pos, "FX10")
            group.techniques = self.techniques(count_in_group)
            out.append(group)
        if total != techniques:
            raise ShaderFormatError(f"FX10 groups hold {total} techniques, the header declares {techniques}",
                                    4 * self.pos, "FX10")
        return out

    def techniques(self, count: int) -> list[Technique]:
        out = []
        for _ in range(count):
            name, passes = self.take(2)
            t = Technique(name, self.annotations())
            if passes > len(self.words):
                raise ShaderFormatError(f"FX10 pass count {passes} is too large", 4 * self.pos, "FX10")
            for _ in range(passes):
                pass_name, assignments = self.take(2)
                p = Pass(pass_name, self.annotations())
                if assignments > len(self.words):
                    raise ShaderFormatError(f"FX10 assignment count {assignments} is too large", 4 * self.pos, "FX10")
                p.assignments = self.assignments(assignments)
                t.passes.append(p)
            out.append(t)
        return out


def read_records(counts: tuple[int, int, int, int, int], structured: bytes,
                 unstructured: bytes, fx5: tuple[int, int] | None = None) -> tuple[EffectRecords, bytes]:
    """The typed records and the bytes after them; raises ShaderFormatError when they do not fit.

    ``counts``: local buffers, local objects, pool buffers, pool objects, techniques; ``fx5``: the
    interface variable and group counts of an fx_5_0 effect (which has no pool sections).
    """
    usable = len(structured) - len(structured) % 4
    walker = _Walker(struct.unpack_from(f"<{usable // 4}I", structured), unstructured)
    local_cbs, local_objects, pool_cbs, pool_objects, techniques = counts
    records = EffectRecords(fx5=fx5 is not None)
    records.buffers = walker.buffers(local_cbs, True)
    records.objects = walker.objects(local_objects, True)
    if fx5 is not None:
        if pool_cbs or pool_objects:
            raise ShaderFormatError("fx_5_0 effects have no pool sections", 0, "FX10")
        interfaces, groups = fx5
        if interfaces > len(walker.words) or groups > len(walker.words):
            raise ShaderFormatError("FX10 interface or group count is too large", 0, "FX10")
        records.interfaces = walker.interfaces(interfaces)
        records.groups = walker.groups(groups, techniques)
        return records, structured[4 * walker.pos :]
    records.pool_buffers = walker.buffers(pool_cbs, False)
    records.pool_objects = walker.objects(pool_objects, False)
    records.techniques = walker.techniques(techniques)
    return records, structured[4 * walker.pos :]


__all__ = [
    "Annotation", "Assignment", "BufferRecord", "EffectRecords", "Group", "InterfaceVariable", "NumericVariable",
    "ObjectVariable", "Pass", "ShaderData5", "Technique", "read_records",
]

"""FX10: a Direct3D 10/11 effect (fx_4_0 / fx_4_1 / fx_5_0) as stored by fxc.

Layout (the public Effects11 ``EffectBinaryFormat.h``, ``SBinaryHeader``): a 76-byte header of
19 u32 (tag, local and pool counts of constant buffers / numeric / object variables, technique
count, unstructured size, then counts of strings, shader resources, state blocks, samplers,
views and shaders); fx_5_0 (``SBinaryHeader5``, 96 bytes) adds the counts of groups, unordered
access views, interface variables, interface variable elements and class instance elements;
then the *unstructured* block that every offset of the structured records points
into (strings, default values, type descriptions, embedded shader containers), then the
*structured* records (buffers, variables, objects, techniques) up to the end of the payload.

Model: :class:`EffectHeader` (named counts), the unstructured bytes and their typed form
(:mod:`.fx10_block`: strings, type descriptions, default values, assignment payloads and code
blocks keyed by offset, each item written back where it lay, the rest raw spans; None when the
records are not typed or an item they point at does not fit), the structured bytes as
parsed, their typed form (:mod:`.fx10_records`: buffers, variables, objects with their state
blocks or shader data, techniques, passes, annotations, and for fx_5_0 interface variables and
groups; None when the records do not walk or do not write back the stored bytes, then the bytes
are written as they are), and :class:`EmbeddedShader` rows, the
shader containers found in the unstructured block (``u32 size`` then a complete DXBC container
whose header's total size is that size; a corrupt one raises like any chunk), each parsed as a nested
:class:`~shaderkit.formats.dxbc.container.DxbcContainer` with its block offset.
:meth:`Effect.build` writes the header, the unstructured block with every embedded shader's
rebuilt bytes in place, and the structured records (a container that would not rebuild byte
for byte, e.g. with chunks out of index order, is left as block bytes); payloads have odd sizes and are never
padded. An embedded shader may be edited but must keep its size (the offsets that point past it
live in the raw records). Other tags stay raw chunks.
"""

from __future__ import annotations

import copy
import struct

from shaderkit.dataclass import dataclass, field, fields
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.dxbc.fx10_block import EffectBlock, read_block, relocate_records
from shaderkit.formats.dxbc.fx10_records import EffectRecords, ShaderData5, Technique, read_records
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

    from shaderkit.formats.dxbc.container import DxbcContainer

HEADER = struct.Struct("<19I")
#: ``SBinaryHeader5``: the fx_5_0 header
HEADER5 = struct.Struct("<24I")
FX5_TAG = 0xFEFF2001
#: effect tags this model reads
TAGS = {0xFEFF1001: "fx_4_0", 0xFEFF1011: "fx_4_1", FX5_TAG: "fx_5_0"}


def header_size(tag: int) -> int:
    return HEADER5.size if tag == FX5_TAG else HEADER.size
_DXBC_HEADER = struct.Struct("<4s16s3I")


@dataclass
class EffectHeader:
    """``SBinaryHeader``: the tag and the counts fxc stores in front of an effect."""

    tag: int = 0xFEFF1001
    constant_buffers: int = 0
    numeric_variables: int = 0
    object_variables: int = 0
    pool_constant_buffers: int = 0
    pool_numeric_variables: int = 0
    pool_object_variables: int = 0
    techniques: int = 0
    unstructured_size: int = 0
    strings: int = 0
    shader_resources: int = 0
    depth_stencil_blocks: int = 0
    blend_state_blocks: int = 0
    rasterizer_state_blocks: int = 0
    samplers: int = 0
    render_target_views: int = 0
    depth_stencil_views: int = 0
    total_shaders: int = 0
    inline_shaders: int = 0
    #: fx_5_0 only (``SBinaryHeader5``)
    groups: int = 0
    unordered_access_views: int = 0
    interface_variables: int = 0
    interface_variable_elements: int = 0
    class_instance_elements: int = 0

    @classmethod
    def unpack(cls, words: tuple[int, ...]) -> EffectHeader:
        """The header from its words in file order."""
        return cls(*words)

    @property
    def size(self) -> int:
        """The header size in bytes for this version tag."""
        return header_size(self.tag)

    def words(self) -> tuple[int, ...]:
        """The 19 words of ``SBinaryHeader`` (common to every version)."""
        return tuple(getattr(self, f.name) for f in fields(self))[: HEADER.size // 4]

    def stored_words(self) -> tuple[int, ...]:
        """The words as stored: 19, or 24 for fx_5_0 (``SBinaryHeader5``)."""
        return tuple(getattr(self, f.name) for f in fields(self))[: self.size // 4]

    @property
    def version(self) -> str:
        """The effect profile of the tag (``fx_4_0``, ``fx_4_1``, ``fx_5_0``), else the tag in hex."""
        return TAGS.get(self.tag, f"0x{self.tag:08x}")

    @property
    def is_child(self) -> bool:
        """True when the effect needs an effect pool (it declares shared variables)."""
        return bool(self.pool_constant_buffers or self.pool_object_variables or self.pool_numeric_variables)


@dataclass
class EmbeddedShader:
    """A shader container inside the unstructured block (``offset`` points at its u32 size)."""

    offset: int
    container: DxbcContainer

    def build(self) -> bytes:
        """The embedded container's bytes."""
        return self.container.to_bytes()


@dataclass
class Effect:
    """The FX10 chunk of an fx_4_0 / fx_4_1 / fx_5_0 effect."""

    header: EffectHeader = field(default_factory=EffectHeader)
    #: the unstructured block (strings, defaults, types, embedded shaders) as parsed; written only
    #: when ``block`` is None (edit the typed ``block`` otherwise)
    unstructured: bytes = b""
    #: the structured records after the unstructured block, kept as bytes
    structured: bytes = b""
    #: the shader containers found in the unstructured block, in block order
    shaders: list[EmbeddedShader] = field(default_factory=list)
    fourcc: str = "FX10"
    #: the structured records, typed (written instead of ``structured`` when present)
    records: EffectRecords | None = None
    #: bytes after the typed records (none in fxc output)
    records_tail: bytes = b""
    #: the unstructured block typed by what the records point at (written instead of
    #: ``unstructured`` when present; None when the records are not typed or an item does not fit)
    block: EffectBlock | None = None

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when the payload has an fx_4_x header whose unstructured block fits."""
        if r.remaining < HEADER.size:
            return False
        tag = struct.unpack_from("<I", r.data, r.pos)[0]
        size = struct.unpack_from("<I", r.data, r.pos + 32)[0]
        return tag in TAGS and r.remaining >= header_size(tag) and size <= r.remaining - header_size(tag)

    @classmethod
    def parse(cls, r: Reader, depth: int = 0) -> Effect:
        """Parse the payload filling ``r``; ``depth`` is the nesting of the enclosing container."""
        from shaderkit.formats.dxbc.container import MAX_DEPTH, DxbcContainer

        words = r.unpack("19I", "effect header")
        if words[0] not in TAGS:
            raise r.error(f"unknown effect tag 0x{words[0]:08x}", r.start)
        if words[0] == FX5_TAG:
            words += r.unpack("5I", "fx_5_0 header")
        header = EffectHeader.unpack(words)
        blob_start = r.tell()
        r.need(header.unstructured_size, "unstructured block")
        unstructured = r.read(header.unstructured_size, "unstructured block")
        structured = r.read(r.remaining, "structured records")
        shaders: list[EmbeddedShader] = []
        pos = unstructured.find(b"DXBC", 4)
        while pos >= 4:
            at = pos - 4
            size = struct.unpack_from("<I", unstructured, at)[0]
            total = (struct.unpack_from("<I", unstructured, pos + 24)[0]
                     if pos + _DXBC_HEADER.size <= len(unstructured) else -1)
            if size == total and pos + size <= len(unstructured):
                if depth >= MAX_DEPTH:
                    raise r.error(f"containers nested deeper than {MAX_DEPTH}", blob_start + pos)
                inner = DxbcContainer.parse(r.sub(blob_start + pos, size, f"shader@{at:#x}"), depth + 1)
                # a container that does not rebuild byte for byte (chunks out of order...)
                # stays plain block bytes, so the effect itself always rebuilds
                if inner.to_bytes() == unstructured[pos : pos + size]:
                    shaders.append(EmbeddedShader(at, inner))
                pos = unstructured.find(b"DXBC", pos + size)
                continue
            pos = unstructured.find(b"DXBC", pos + 4)
        effect = cls(header, unstructured, structured, shaders)
        counts = (header.constant_buffers, header.object_variables, header.pool_constant_buffers,
                  header.pool_object_variables, header.techniques)
        fx5 = (header.interface_variables, header.groups) if header.tag == FX5_TAG else None
        try:
            records, tail = read_records(counts, structured, unstructured, fx5)
            # typed only when the records write back the stored bytes (exact by construction)
            if records.build() + tail == structured:
                effect.records, effect.records_tail = records, tail
        except ShaderFormatError:
            effect.records = None  # records this walk does not account for stay bytes
        if effect.records is not None:
            try:
                block = read_block(effect.records, unstructured, header.tag == FX5_TAG)
                if block.build() == unstructured:  # exact by construction, else the block stays bytes
                    effect.block = block
            except (ShaderFormatError, UnsupportedOperation):
                effect.block = None
        return effect

    def build(self) -> bytes:
        """The FX10 payload: header, unstructured block, structured records.

        With a typed block, every item of unchanged size goes back where it lay and a resized one
        (an edited string, a rebuilt shader of another size...) after the block, the records'
        pointers following it; the model itself is not changed. Without one, the block bytes are
        written with every embedded shader put back (sizes must not change).
        """
        records = self.records
        if self.block is not None:
            code = {s.offset: s.build() for s in self.shaders if s.offset in self.block.code}
            block, moved = self.block.build_relocated(code)
            blob = bytearray(block)
            if moved and records is not None:
                records = copy.deepcopy(records)
                relocate_records(records, self.block, lambda kind, offset: moved.get((kind, offset), offset))
            rest = [s for s in self.shaders if s.offset not in code]
        else:
            blob, rest = bytearray(self.unstructured), self.shaders
        for shader in rest:
            data = shader.build()
            old = struct.unpack_from("<I", blob, shader.offset)[0]
            if len(data) != old:
                raise UnsupportedOperation(
                    f"FX10: the shader at {shader.offset:#x} changed size ({old} -> {len(data)} bytes);"
                    " moving the effect's offsets is not supported")
            blob[shader.offset + 4 : shader.offset + 4 + old] = data
        header = EffectHeader.unpack(self.header.stored_words())
        header.unstructured_size = len(blob)
        words = header.stored_words()
        structured = records.build() + self.records_tail if records is not None else self.structured
        return struct.pack(f"<{len(words)}I", *words) + bytes(blob) + structured

    def string_at(self, offset: int) -> str:
        """The NUL-terminated string at ``offset`` in the unstructured block ("" when none is there)."""
        if self.block is not None and offset in self.block.strings:
            return self.block.strings[offset]
        end = self.unstructured.find(b"\0", offset)
        return self.unstructured[offset:end].decode("latin-1") if 0 <= offset < len(self.unstructured) and end >= 0 else ""

    def shader_at(self, offset: int) -> DxbcContainer | None:
        """The embedded container whose u32 size sits at ``offset`` in the unstructured block."""
        for shader in self.shaders:
            if shader.offset == offset:
                return shader.container
        return None

    def summary(self) -> dict[str, Any]:
        """Effect version, child flag, header counts and embedded shaders, JSON-ready."""
        h = self.header
        return {
            "version": h.version,
            "child": h.is_child,
            "counts": {f.name: getattr(h, f.name) for f in fields(h)[1 : h.size // 4]},
            "shaders": [{"offset": s.offset, **s.container.summary()} for s in self.shaders],
            **self._records_summary(),
            **({"block": self.block.summary()} if self.block is not None else {}),
        }

    def _records_summary(self) -> dict[str, Any]:
        rec = self.records
        if rec is None:
            return {}
        name = self.string_at

        def technique(t: Technique) -> dict[str, Any]:
            return {"name": name(t.name_offset), "passes": [name(p.name_offset) for p in t.passes]}

        out: dict[str, Any] = {
            "buffers": [{"name": name(b.name_offset), "tbuffer": b.is_tbuffer, "pool": b in rec.pool_buffers,
                         "variables": [name(v.name_offset) for v in b.variables]}
                        for b in rec.buffers + rec.pool_buffers],
            "objects": [name(o.name_offset) for o in rec.objects + rec.pool_objects],
            "techniques": [technique(t) for t in rec.all_techniques()],
        }
        if rec.fx5:
            out["interfaces"] = [name(i.name_offset) for i in rec.interfaces]
            out["groups"] = [{"name": name(g.name_offset), "techniques": [technique(t) for t in g.techniques]}
                             for g in rec.groups]
            out["shaders5"] = [
                {"object": name(o.name_offset), "shader_offset": d.shader_offset,
                 "stream_out": [name(d.so_decl_offsets[k]) for k in range(min(d.so_decl_count, 4))],
                 "rasterized_stream": d.rasterized_stream, "interface_bindings": self.interface_bindings(d)}
                for o in rec.objects for d in o.shaders5]
        return out

    def interface_bindings(self, data: ShaderData5) -> list[dict[str, Any]]:
        """``SBinaryInterfaceInitializer`` rows (instance name, array index) of an fx_5_0 shader."""
        if self.block is not None and data.interface_binding_count:
            typed = self.block.bindings.get(data.interface_bindings_offset, [])
            return [{"instance": self.string_at(instance), "index": index}
                    for instance, index in typed[: data.interface_binding_count]]
        rows = []
        for k in range(min(data.interface_binding_count, len(self.unstructured) // 8)):
            at = data.interface_bindings_offset + 8 * k
            if at + 8 > len(self.unstructured):
                break
            instance, index = struct.unpack_from("<2I", self.unstructured, at)
            rows.append({"instance": self.string_at(instance), "index": index})
        return rows


__all__ = ["FX5_TAG", "HEADER", "HEADER5", "TAGS", "Effect", "EffectHeader", "EmbeddedShader"]

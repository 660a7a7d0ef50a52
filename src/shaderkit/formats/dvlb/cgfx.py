"""CGFX containers (``.bcsdr``): the SHBIN (DVLB) files behind the shader dictionary.

Read from the CGFX structures as SPICA (gdkchan) declares them: a 0x14-byte header (magic, byte
order mark 0xFEFF, header size, revision, file size, section count), the DATA section with 16
(count, self-relative offset) dictionary references (index 4 = shaders), and DICT dictionaries:
magic, tree size, entry count, then count + 1 Patricia-tree nodes (u32 reference bit, u16 left,
u16 right, self-relative name and value pointers).

The SHDR object layout is not documented anywhere we could check, so the DVLB is located by
scanning the first words of each shader object for a self-relative pointer to ``DVLB``; the word
before it is taken as the binary size when it is plausible. Everything shaderkit does not model
(other dictionaries, models, textures, the rest of the SHDR objects) is kept as gap bytes, so
real files rebuild byte for byte, and edits that keep every embedded DVLB the same size are
written in place. A shader-only CGFX built from scratch is laid out with an assumed SHDR object
(type word, ``SHDR``, revision, name, empty user data, binary size, binary pointer).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, ClassVar

from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dvlb.dvlb import Dvlb, _check_overlaps, _gaps, _guard, _Placed
from shaderkit.io.reader import Reader
from shaderkit.io.writer import Writer

CGFX_MAGIC = b"CGFX"
_HEADER = struct.Struct("<4sHHIII")
_DATA = struct.Struct("<4sI16I16I")  # magic, size, then 16 (count, offset) pairs interleaved
_DICT = struct.Struct("<4sII")
_NODE = struct.Struct("<IHHii")
_SHDR = struct.Struct("<I4sIiIIIi")  # assumed layout of a new SHDR object
SHADER_DICT = 4
#: words of a SHDR object searched for the DVLB pointer
SHDR_SCAN_WORDS = 32
DICT_NAMES = (
    "models", "textures", "luts", "materials", "shaders", "cameras", "lights", "fogs", "scenes",
    "skeletal_animations", "material_animations", "visibility_animations", "camera_animations",
    "light_animations", "fog_animations", "emitters",
)  # fmt: skip


@dataclass
class CgfxShader:
    """A shader dictionary entry: its name, Patricia-tree fields and the DVLB it holds."""

    name: str
    dvlb: Dvlb | None
    reference_bit: int = 0
    left: int = 0
    right: int = 0
    shdr_type: int = 0x80000001
    shdr_revision: int = 0x05000000


@dataclass
class ShaderSlot:
    """Where one shader entry was: node, name, SHDR object, DVLB pointer/size fields, DVLB extent."""

    node: int
    name_at: int
    name_size: int
    value_at: int
    pointer_at: int | None
    size_at: int | None
    dvlb_at: int
    dvlb_size: int


@dataclass
class CgfxLayout:
    """Where the parts of a CGFX file lay when it was read (kept to write it back identically)."""
    size: int
    header_size: int
    file_size_field: int
    data_size: int
    dict_offsets: list[int]
    shader_dict_at: int
    tree_size: int
    root_pointers: tuple[int, int]
    slots: list[ShaderSlot]
    gaps: list[tuple[int, bytes]]


@dataclass(repr=False)  # compact repr from ShaderFile
class Cgfx(ShaderFile):
    """A CGFX file; only the shader dictionary is modelled, the rest is kept as bytes."""

    format_name: ClassVar[str] = "cgfx"

    shaders: list[CgfxShader] = field(default_factory=list)
    revision: int = 0x05000000
    section_count: int = 1
    #: entry counts of the 16 dictionaries (index 4 follows ``shaders``)
    dict_counts: list[int] = field(default_factory=lambda: [0] * 16)
    root_reference_bit: int = 0xFFFFFFFF
    root_left: int = 0
    root_right: int = 0
    layout: CgfxLayout | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Cgfx:
        return _parse(bytes(data))

    def to_bytes(self) -> bytes:
        blobs = [s.dvlb.to_bytes() if s.dvlb is not None else None for s in self.shaders]
        if self.layout is not None:
            if _layout_fits(self, self.layout, blobs):
                return _write_placed(self, self.layout, blobs)
            if any(c for i, c in enumerate(self.dict_counts) if i != SHADER_DICT):
                raise UnsupportedOperation(
                    "cgfx: an edit changed a shader's size or name length in a CGFX that holds other "
                    "resources; only same-size edits can be written back"
                )
        return _write_canonical(self, blobs)

    def relayout(self) -> bytes:
        """The CGFX written with the canonical layout; UnsupportedOperation when it holds non-shader resources."""
        if any(c for i, c in enumerate(self.dict_counts) if i != SHADER_DICT):
            raise UnsupportedOperation("cgfx: cannot lay out a CGFX that holds resources other than shaders")
        return _write_canonical(self, [s.dvlb.to_bytes() if s.dvlb is not None else None for s in self.shaders])

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "revision": f"{self.revision:#010x}",
            "dictionaries": {name: n for name, n in zip(DICT_NAMES, self.dict_counts) if n},
            "shaders": [
                {"name": s.name, "dvlb": s.dvlb.summary() if s.dvlb is not None else None} for s in self.shaders
            ],
        }

    def problems(self) -> list[str]:
        found: list[str] = []
        if self.layout is not None and self.layout.file_size_field != self.layout.size:
            found.append(f"CGFX: header file size {self.layout.file_size_field} != {self.layout.size} bytes")
        for s in self.shaders:
            if s.dvlb is None:
                found.append(f"CGFX: shader {s.name!r} holds no DVLB that shaderkit could find")
            else:
                found.extend(f"{s.name}: {p}" for p in s.dvlb.problems())
        return found

    def disassemble(self) -> str:
        parts = [f"; shader {s.name}\n{s.dvlb.disassemble()}" for s in self.shaders if s.dvlb is not None]
        return "\n".join(parts)


# -- Patricia tree (names ordered by bits, as SPICA builds CGFX dictionaries) --------------------------


def _bit(name: bytes | None, bit: int) -> int:
    pos = bit >> 3
    if name is None or pos >= len(name):
        return 0
    return (name[pos] >> (bit & 7)) & 1


def _descend(nodes: list[list[Any]], name: bytes, bit: int = 0) -> tuple[int, int]:
    """(node reached, its parent) walking down while reference bits decrease and stay above ``bit``."""
    parent, out = 0, nodes[0][2]
    while nodes[parent][0] > nodes[out][0] > bit:
        parent, out = out, nodes[out][3] if _bit(name, nodes[out][0]) else nodes[out][2]
    return out, parent


def build_tree(names: list[str]) -> list[tuple[int, int, int]]:
    """(reference_bit, left, right) for the root and each name, inserted in order."""
    raw = [n.encode("latin-1") for n in names]
    longest = max((len(n) for n in raw), default=0)
    # node: [reference_bit, name, left, right]
    nodes: list[list[Any]] = [[0xFFFFFFFF if raw else 0, None, 0, 0]]
    for name in raw:
        bit = longest * 8 - 1
        found, _ = _descend(nodes, name)
        while _bit(nodes[found][1], bit) == _bit(name, bit):
            bit -= 1
            if bit < 0:
                raise ValueError(f"duplicate dictionary name {name!r}")
        below, parent = _descend(nodes, name, bit)
        new = len(nodes)
        left, right = (below, new) if _bit(name, bit) else (new, below)
        if _bit(name, nodes[parent][0]):
            nodes[parent][3] = new
        else:
            nodes[parent][2] = new
        nodes.append([bit, name, left, right])
    return [(n[0], n[2], n[3]) for n in nodes]


def find(names: list[str], tree: list[tuple[int, int, int]], name: str) -> int:
    """Index (0-based entry) of ``name`` by walking the tree, or -1."""
    raw = name.encode("latin-1")
    parent, out = 0, tree[0][1]
    while tree[parent][0] > tree[out][0]:
        parent, out = out, tree[out][2] if _bit(raw, tree[out][0]) else tree[out][1]
    return out - 1 if out > 0 and names[out - 1] == name else -1


# -- parsing --------------------------------------------------------------------------------------------


def _dvlb_extent(r: Reader, data: bytes, start: int, size_at: int | None) -> int:
    if size_at is not None:
        size = struct.unpack_from("<I", data, size_at)[0]
        if 8 <= size <= len(data) - start:
            return int(size)
    # no usable size word: the DVLB ends where its last structure ends
    whole = Dvlb.from_bytes(data[start:])
    layout = whole.layout
    assert layout is not None
    end = layout.size
    if layout.gaps and layout.gaps[-1][0] + len(layout.gaps[-1][1]) == end:
        end = layout.gaps[-1][0]
    return end


def _parse(data: bytes) -> Cgfx:
    r = Reader(data, context="CGFX")
    r.need(_HEADER.size, "CGFX header")
    magic, bom, header_size, revision, file_size, sections = _HEADER.unpack_from(data, 0)
    if magic != CGFX_MAGIC:
        raise r.error(f"bad CGFX magic: found {magic!r}", 0)
    if bom != 0xFEFF:
        raise r.error(f"byte order mark {bom:#06x}: only little-endian CGFX (0xfeff) is supported", 4)
    if header_size < _HEADER.size or header_size + _DATA.size > len(data):
        raise r.error(f"header size {header_size:#x} leaves no room for the DATA section", 6)
    fields = _DATA.unpack_from(data, header_size)
    if fields[0] != b"DATA":
        raise r.error(f"bad DATA magic: found {fields[0]!r}", header_size)
    data_size = fields[1]
    pairs = fields[2:]
    counts = list(pairs[0::2])
    offsets = list(pairs[1::2])
    blocks: list[tuple[int, int, str]] = [(0, _HEADER.size, "CGFX header"), (header_size, header_size + _DATA.size, "DATA")]
    names: list[tuple[int, bytes]] = []
    shaders: list[CgfxShader] = []
    slots: list[ShaderSlot] = []
    dict_at = tree_size = 0
    root = (0xFFFFFFFF, 0, 0)
    root_pointers = (0, 0)
    count = counts[SHADER_DICT]
    if count:
        with r.scope("shaders"):
            dict_at = header_size + 8 + 8 * SHADER_DICT + 4 + offsets[SHADER_DICT]
            if dict_at + _DICT.size > len(data):
                raise r.error(f"shader DICT at {dict_at:#x} runs past the end", min(dict_at, len(data)))
            dmagic, tree_size, entries = _DICT.unpack_from(data, dict_at)
            if dmagic != b"DICT":
                raise r.error(f"bad DICT magic: found {dmagic!r}", dict_at)
            if entries != count:
                raise r.error(f"DICT holds {entries} entries, DATA says {count}", dict_at + 8)
            nodes_at = dict_at + _DICT.size
            r.check_count(entries + 1, _NODE.size, "DICT nodes", nodes_at)
            blocks.append((dict_at, nodes_at + _NODE.size * (entries + 1), "shader DICT"))
            ref, left, right, name_ptr, value_ptr = _NODE.unpack_from(data, nodes_at)
            root, root_pointers = (ref, left, right), (name_ptr, value_ptr)
            covered = _guard(r, blocks, 0, 0)
            for i in range(1, entries + 1):
                since = len(blocks)
                with r.scope(f"[{i - 1}]"):
                    shader, slot = _parse_entry(r, data, nodes_at + _NODE.size * i, blocks, names)
                shaders.append(shader)
                slots.append(slot)
                covered = _guard(r, blocks, since, covered)
    _check_overlaps(r, blocks)
    gaps = _gaps(data, blocks, names)
    layout = CgfxLayout(
        size=len(data),
        header_size=header_size,
        file_size_field=file_size,
        data_size=data_size,
        dict_offsets=offsets,
        shader_dict_at=dict_at,
        tree_size=tree_size,
        root_pointers=root_pointers,
        slots=slots,
        gaps=gaps,
    )
    return Cgfx(
        shaders=shaders,
        revision=revision,
        section_count=sections,
        dict_counts=counts,
        root_reference_bit=root[0],
        root_left=root[1],
        root_right=root[2],
        layout=layout,
    )


def _parse_entry(
    r: Reader, data: bytes, node_at: int, blocks: list[tuple[int, int, str]], names: list[tuple[int, bytes]]
) -> tuple[CgfxShader, ShaderSlot]:
    ref, left, right, name_ptr, value_ptr = _NODE.unpack_from(data, node_at)
    name_at = node_at + 8 + name_ptr
    if not 0 <= name_at < len(data):
        raise r.error(f"name pointer {name_ptr:#x} leads outside the file", node_at + 8)
    name = r.cstring_at(name_at, "ascii", "name")
    raw_name = name.encode("latin-1")
    names.append((name_at, raw_name + b"\0"))
    value_at = node_at + 12 + value_ptr
    if not 0 <= value_at <= len(data) - 8:
        raise r.error(f"value pointer {value_ptr:#x} leads outside the file", node_at + 12)
    pointer_at = size_at = None
    dvlb_at = dvlb_size = 0
    dvlb: Dvlb | None = None
    scan_end = min(value_at + 4 * SHDR_SCAN_WORDS, len(data) - 3)
    words = struct.unpack_from(f"<{(scan_end - value_at) // 4}I", data, value_at)
    for k, word in enumerate(words):
        target = value_at + 4 * k + word
        if word and target + 8 <= len(data) and data[target : target + 4] == b"DVLB":
            pointer_at = value_at + 4 * k
            size_at = pointer_at - 4 if k > 0 else None
            dvlb_at = target
            break
    shdr_type = struct.unpack_from("<I", data, value_at)[0]
    shdr_revision = struct.unpack_from("<I", data, value_at + 8)[0] if value_at + 12 <= len(data) else 0
    if pointer_at is not None:
        with r.scope("DVLB"):
            try:
                dvlb_size = _dvlb_extent(r, data, dvlb_at, size_at)
                dvlb = Dvlb.from_bytes(data[dvlb_at : dvlb_at + dvlb_size])
            except ShaderFormatError as exc:
                at = dvlb_at + exc.offset if exc.offset is not None else dvlb_at
                raise ShaderFormatError(exc.message, at, f"{r.context}.{exc.context}") from None
        if size_at is not None and struct.unpack_from("<I", data, size_at)[0] != dvlb_size:
            size_at = None  # the word before the pointer is not the size
        blocks.append((dvlb_at, dvlb_at + dvlb_size, f"DVLB of {name!r}"))
        blocks.append((pointer_at, pointer_at + 4, f"DVLB pointer of {name!r}"))
        if size_at is not None:
            blocks.append((size_at, size_at + 4, f"DVLB size of {name!r}"))
    shader = CgfxShader(name, dvlb, ref, left, right, shdr_type, shdr_revision)
    slot = ShaderSlot(node_at, name_at, len(raw_name), value_at, pointer_at, size_at, dvlb_at, dvlb_size)
    return shader, slot


# -- writing --------------------------------------------------------------------------------------------


def _layout_fits(model: Cgfx, layout: CgfxLayout, blobs: list[bytes | None]) -> bool:
    if len(model.shaders) != len(layout.slots) or len(model.dict_counts) != 16:
        return False
    if model.dict_counts[SHADER_DICT] != len(model.shaders):
        return False
    for shader, slot, blob in zip(model.shaders, layout.slots, blobs):
        if len(shader.name.encode("latin-1")) != slot.name_size:
            return False
        if (blob is None) != (slot.pointer_at is None) or (blob is not None and len(blob) != slot.dvlb_size):
            return False
    return True


def _data_pairs(counts: list[int], offsets: list[int]) -> list[int]:
    return [v for pair in zip(counts, offsets) for v in pair]


def _write_placed(model: Cgfx, layout: CgfxLayout, blobs: list[bytes | None]) -> bytes:
    placed = _Placed(layout.size, layout.gaps)
    put = placed.put
    put(0, _HEADER.pack(CGFX_MAGIC, 0xFEFF, layout.header_size, model.revision, layout.file_size_field, model.section_count))
    put(layout.header_size, _DATA.pack(b"DATA", layout.data_size, *_data_pairs(model.dict_counts, layout.dict_offsets)))
    if model.shaders:
        put(layout.shader_dict_at, _DICT.pack(b"DICT", layout.tree_size, len(model.shaders)))
        root = _NODE.pack(model.root_reference_bit, model.root_left, model.root_right, *layout.root_pointers)
        put(layout.shader_dict_at + _DICT.size, root)
    for shader, slot, blob in zip(model.shaders, layout.slots, blobs):
        name_ptr = slot.name_at - (slot.node + 8)
        value_ptr = slot.value_at - (slot.node + 12)
        put(slot.node, _NODE.pack(shader.reference_bit, shader.left, shader.right, name_ptr, value_ptr))
        put(slot.name_at, shader.name.encode("latin-1") + b"\0")
        if blob is not None and slot.pointer_at is not None:
            put(slot.pointer_at, struct.pack("<I", slot.dvlb_at - slot.pointer_at))
            if slot.size_at is not None:
                put(slot.size_at, struct.pack("<I", len(blob)))
            put(slot.dvlb_at, blob)
    return bytes(placed.out)


def _write_canonical(model: Cgfx, blobs: list[bytes | None]) -> bytes:
    """Header, DATA, shader DICT, SHDR objects, names, then each DVLB (4-byte aligned)."""
    if any(b is None for b in blobs):
        raise UnsupportedOperation("cgfx: a shader without a DVLB cannot be laid out")
    count = len(model.shaders)
    tree = build_tree([s.name for s in model.shaders])
    w = Writer("<")
    w.write(_HEADER.pack(CGFX_MAGIC, 0xFEFF, _HEADER.size, model.revision, 0, 1))
    data_at = w.tell()
    counts = [0] * 16
    counts[SHADER_DICT] = count
    offsets = [0] * 16
    dict_at = data_at + _DATA.size
    if count:
        offsets[SHADER_DICT] = dict_at - (data_at + 8 + 8 * SHADER_DICT + 4)
    w.write(_DATA.pack(b"DATA", 0, *_data_pairs(counts, offsets)))
    nodes_at = dict_at + _DICT.size
    shdr_at = nodes_at + _NODE.size * (count + 1)
    names_at = shdr_at + _SHDR.size * count
    name_offsets: list[int] = []
    pos = names_at
    for s in model.shaders:
        name_offsets.append(pos)
        pos += len(s.name.encode("latin-1")) + 1
    pos = (pos + 3) & ~3
    blob_offsets: list[int] = []
    for blob in blobs:
        assert blob is not None
        blob_offsets.append(pos)
        pos = (pos + len(blob) + 3) & ~3
    if count:
        w.write(_DICT.pack(b"DICT", _DICT.size + _NODE.size * (count + 1), count))
        w.write(_NODE.pack(*tree[0], 0, 0))
        for i in range(count):
            node = nodes_at + _NODE.size * (i + 1)
            ref, left, right = tree[i + 1]
            w.write(_NODE.pack(ref, left, right, name_offsets[i] - (node + 8), shdr_at + _SHDR.size * i - (node + 12)))
    for i, (s, blob) in enumerate(zip(model.shaders, blobs)):
        assert blob is not None
        obj = shdr_at + _SHDR.size * i
        w.write(_SHDR.pack(s.shdr_type, b"SHDR", s.shdr_revision, name_offsets[i] - (obj + 12), 0, 0, len(blob), blob_offsets[i] - (obj + 28)))
    for s in model.shaders:
        w.write(s.name.encode("latin-1") + b"\0")
    for blob in blobs:
        assert blob is not None
        w.align(4)
        w.write(blob)
    w.align(4)
    size = w.tell()
    w.patch(0x0C, "I", size)
    w.patch(data_at + 4, "I", size - data_at)
    return w.getvalue()

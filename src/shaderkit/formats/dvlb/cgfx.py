"""CGFX containers (``.bcsdr``): the SHBIN (DVLB) files behind the shader dictionary.

Read from the CGFX structures as SPICA (gdkchan) declares them: a 0x14-byte header (magic, byte
order mark 0xFEFF, header size, revision, file size, section count), the DATA section with 16
(count, self-relative offset) dictionary references (index 4 = shaders), and DICT dictionaries:
magic, tree size, entry count, then count + 1 Patricia-tree nodes (u32 reference bit, u16 left,
u16 right, self-relative name and value pointers).

The SHDR object layout is not documented anywhere we could check, so the DVLB is located by
scanning the first words of each shader object for a self-relative pointer to ``DVLB``; the word
before it is taken as the binary size when it is plausible. A parsed file keeps an
:class:`~shaderkit.io.layout.Layout`: where the header, DATA, the shader DICT, each shader name,
DVLB and its pointer and size words lay, and everything shaderkit does not model (other
dictionaries, models, textures, the rest of the SHDR objects) as raw spans, so real files
rebuild byte for byte. Unchanged items go back where they lay; a renamed or resized shader's name
or DVLB goes after the stored bytes, 4-aligned, its pointers and the file and DATA sizes follow
(the SHDR object's own name pointer is not modelled and keeps pointing at the old name). Adding
or removing shaders appends a new DICT (its Patricia tree rebuilt) and, for each new shader, an
assumed SHDR object (type word, ``SHDR``, revision, name, empty user data, binary size, binary
pointer), its name and DVLB; a CGFX built from scratch is laid out with the same SHDR object.
"""

from __future__ import annotations

import struct
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.placement import Recorder, Relayout, stored_fields, u32_offset
from shaderkit.io.layout import Key, Layout, PlacedWriter, append_aligned
from shaderkit.io.reader import Reader
from shaderkit.io.writer import Writer

CGFX_MAGIC = b"CGFX"
_HEADER = struct.Struct("<4sHHIII")
#: the DATA section with ``n`` (count, offset) dictionary pairs after magic and size (files with 15
#: end before ``emitters``)
_DATA_OF = [struct.Struct(f"<4sI{2 * n}I") for n in range(17)]
_DATA = _DATA_OF[16]
_DICT = struct.Struct("<4sII")
_NODE = struct.Struct("<IHHii")
_DICT_MAGIC = int.from_bytes(b"DICT", "little")
_SHDR = struct.Struct("<I4sIiIIIi")  # assumed layout of a new SHDR object
SHADER_DICT = 4
#: the line before each shader's source in the text (then its name)
SHADER_LINE = "; shader "
#: words of a SHDR object searched for the DVLB pointer
SHDR_SCAN_WORDS = 32
DICT_NAMES = (
    "models", "textures", "luts", "materials", "shaders", "cameras", "lights", "fogs", "scenes",
    "skeletal_animations", "material_animations", "visibility_animations", "camera_animations",
    "light_animations", "fog_animations", "emitters",
)  # fmt: skip


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the CGFX file at ``offset`` of ``data`` as its header gives it, or None when the
    bytes there are not a consistent little-endian header followed by its DATA section."""
    if offset + _HEADER.size > len(data):
        return None
    magic, bom, header_size, _, size, _ = _HEADER.unpack_from(data, offset)
    if magic != CGFX_MAGIC or bom != 0xFEFF or header_size < _HEADER.size:
        return None
    if not header_size + _DATA.size <= size <= len(data) - offset:
        return None
    return size if data[offset + header_size : offset + header_size + 4] == b"DATA" else None


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


@dataclass(repr=False)  # compact repr from ShaderFile
class Cgfx(ShaderFile):
    """A CGFX file; only the shader dictionary is modelled, the rest is kept as bytes."""

    format_name: ClassVar[str] = "cgfx"

    shaders: list[CgfxShader] = field(default_factory=list)
    revision: int = 0x05000000
    section_count: int = 1
    #: entry counts of the dictionaries DATA lists (16; 15 in files without ``emitters``; index 4
    #: follows ``shaders``)
    dict_counts: list[int] = field(default_factory=lambda: [0] * 16)
    root_reference_bit: int = 0xFFFFFFFF
    root_left: int = 0
    root_right: int = 0
    #: where every item of a parsed file lay; None lays the model out afresh
    layout: Layout | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Cgfx:
        return _parse(bytes(data))

    def to_bytes(self) -> bytes:
        blobs = [s.dvlb.to_bytes() if s.dvlb is not None else None for s in self.shaders]
        if self.layout is not None:
            try:
                return _write_placed(self, self.layout, blobs)
            except Relayout:
                if any(c for i, c in enumerate(self.dict_counts) if i != SHADER_DICT):
                    raise UnsupportedOperation(
                        "cgfx: an edit gave a read shader a DVLB it had not (or took one away) in a CGFX "
                        "that holds other resources; shaderkit cannot lay out that SHDR object"
                    ) from None
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
            "layout": self.layout_rows(),
        }

    def layout_rows(self) -> list[dict[str, object]]:
        """Every item and raw span as stored (``item``, ``offset``, ``size``), ordered by offset (each
        DVLB's own items are in its ``dvlb`` summary, offsets from the DVLB); a model built in
        memory reports the layout it is written with."""
        layout = self.layout if self.layout is not None else _parse(self.to_bytes()).layout
        assert layout is not None
        return layout.spans()

    def problems(self) -> list[str]:
        found: list[str] = []
        header = stored_fields(self.layout, KEY_HEADER, _HEADER) if self.layout is not None else None
        if self.layout is not None and header is not None and header[4] != self.layout.size:
            found.append(f"CGFX: header file size {header[4]} != {self.layout.size} bytes")
        for s in self.shaders:
            if s.dvlb is None:
                found.append(f"CGFX: shader {s.name!r} holds no DVLB that shaderkit could find")
            else:
                found.extend(f"{s.name}: {p}" for p in s.dvlb.problems())
        return found

    def disassemble(self) -> str:
        parts = [f"{SHADER_LINE}{s.name}\n{s.dvlb.disassemble()}" for s in self.shaders if s.dvlb is not None]
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


# -- item keys --------------------------------------------------------------------------------------

KEY_HEADER: Key = ("cgfx", "header")
KEY_DATA: Key = ("cgfx", "data")
KEY_SHADER_DICT: Key = ("shaders", "dict")


def shader_key(index: int, part: str) -> Key:
    """Key of a shader entry's item: "name", "dvlb", "dvlb_pointer", "dvlb_size", "shdr_type",
    "shdr_revision"."""
    return ("shaders", index, part)


# -- parsing --------------------------------------------------------------------------------------------


def _dvlb_extent(data: bytes, start: int, size_at: int | None) -> int:
    if size_at is not None:
        size = struct.unpack_from("<I", data, size_at)[0]
        if 8 <= size <= len(data) - start:
            return int(size)
    # no usable size word: the DVLB ends where its last structure ends
    layout = Dvlb.from_bytes(data[start:]).layout
    assert layout is not None
    end = layout.size
    if layout.raw and layout.raw[-1].end == end:
        end = layout.raw[-1].offset
    return end


def _pair_count(data: bytes, header_size: int) -> int:
    """How many (count, offset) pairs DATA holds: 16, or fewer when a dictionary starts sooner
    (bannertool's CGFX files list 15, their first DICT right after the 15th pair)."""
    pairs_at = header_size + 8
    n, i = 16, 0
    while i < n:
        count, offset = struct.unpack_from("<Ii", data, pairs_at + 8 * i)
        if count == _DICT_MAGIC:  # (a DICT right after fewer pairs, all of them empty; even none)
            return i
        dict_at = pairs_at + 8 * i + 4 + offset
        if count and pairs_at < dict_at < pairs_at + 8 * n:
            n = (dict_at - pairs_at) // 8
        i += 1
    return n


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
    pair_count = _pair_count(data, header_size)
    fields = _DATA_OF[pair_count].unpack_from(data, header_size)
    if fields[0] != b"DATA":
        raise r.error(f"bad DATA magic: found {fields[0]!r}", header_size)
    pairs = fields[2:]
    counts = list(pairs[0::2])
    offsets = list(pairs[1::2])
    rec = Recorder(r)
    rec.table(KEY_HEADER, 0, _HEADER.size, "CGFX header")
    rec.table(KEY_DATA, header_size, _DATA_OF[pair_count].size, "DATA")
    shaders: list[CgfxShader] = []
    root = (0xFFFFFFFF, 0, 0)
    count = counts[SHADER_DICT] if pair_count > SHADER_DICT else 0
    if count:
        with r.scope("shaders"):
            dict_at = header_size + 8 + 8 * SHADER_DICT + 4 + offsets[SHADER_DICT]
            if dict_at + _DICT.size > len(data):
                raise r.error(f"shader DICT at {dict_at:#x} runs past the end", min(dict_at, len(data)))
            dmagic, _, entries = _DICT.unpack_from(data, dict_at)
            if dmagic != b"DICT":
                raise r.error(f"bad DICT magic: found {dmagic!r}", dict_at)
            if entries != count:
                raise r.error(f"DICT holds {entries} entries, DATA says {count}", dict_at + 8)
            nodes_at = dict_at + _DICT.size
            r.check_count(entries + 1, _NODE.size, "DICT nodes", nodes_at)
            rec.table(KEY_SHADER_DICT, dict_at, _DICT.size + _NODE.size * (entries + 1), "shader DICT")
            root = _NODE.unpack_from(data, nodes_at)[:3]
            rec.guard()
            for i in range(1, entries + 1):
                with r.scope(f"[{i - 1}]"):
                    shaders.append(_parse_entry(r, data, i - 1, nodes_at + _NODE.size * i, rec))
                rec.guard()
    return Cgfx(
        shaders=shaders,
        revision=revision,
        section_count=sections,
        dict_counts=counts,
        root_reference_bit=root[0],
        root_left=root[1],
        root_right=root[2],
        layout=rec.finish(),
    )


def _parse_entry(r: Reader, data: bytes, index: int, node_at: int, rec: Recorder) -> CgfxShader:
    ref, left, right, name_ptr, value_ptr = _NODE.unpack_from(data, node_at)
    name_at = node_at + 8 + name_ptr
    if not 0 <= name_at < len(data):
        raise r.error(f"name pointer {name_ptr:#x} leads outside the file", node_at + 8)
    name = r.cstring_at(name_at, "ascii", "name")
    rec.string(shader_key(index, "name"), name_at, name.encode("latin-1") + b"\0")
    value_at = node_at + 12 + value_ptr
    if not 0 <= value_at <= len(data) - 8:
        raise r.error(f"value pointer {value_ptr:#x} leads outside the file", node_at + 12)
    pointer_at = size_at = None
    dvlb_at = 0
    dvlb: Dvlb | None = None
    scan_end = min(value_at + 4 * SHDR_SCAN_WORDS, len(data) - 3)
    words = struct.unpack_from(f"<{(scan_end - value_at) // 4}I", data, value_at)
    candidates = [k for k, word in enumerate(words) if word and value_at + 4 * k + word + 8 <= len(data)
                  and data[value_at + 4 * k + word : value_at + 4 * k + word + 4] == b"DVLB"]
    # the pointer is the first word leading to a DVLB whose word before fits as its size (so the
    # size word itself, read as a pointer, cannot win), else the first word leading to one
    sized = [k for k in candidates
             if k > 0 and 8 <= words[k - 1] <= len(data) - (value_at + 4 * k + words[k])]
    if candidates:
        k = (sized or candidates)[0]
        pointer_at = value_at + 4 * k
        size_at = pointer_at - 4 if k > 0 else None
        dvlb_at = pointer_at + words[k]
    # the SHDR object's type and revision words (the rest of the object stays raw)
    shdr_type = struct.unpack_from("<I", data, value_at)[0]
    rec.string(shader_key(index, "shdr_type"), value_at, data[value_at : value_at + 4])
    shdr_revision = 0
    if value_at + 12 <= len(data):
        shdr_revision = struct.unpack_from("<I", data, value_at + 8)[0]
        rec.string(shader_key(index, "shdr_revision"), value_at + 8, data[value_at + 8 : value_at + 12])
    if pointer_at is not None:
        with r.scope("DVLB"):
            try:
                dvlb_size = _dvlb_extent(data, dvlb_at, size_at)
                dvlb = Dvlb.from_bytes(data[dvlb_at : dvlb_at + dvlb_size])
            except ShaderFormatError as exc:
                at = dvlb_at + exc.offset if exc.offset is not None else dvlb_at
                raise ShaderFormatError(exc.message, at, f"{r.context}.{exc.context}") from None
        if size_at is not None and struct.unpack_from("<I", data, size_at)[0] != dvlb_size:
            size_at = None  # the word before the pointer is not the size
        rec.table(shader_key(index, "dvlb"), dvlb_at, dvlb_size, f"DVLB of {name!r}")
        rec.table(shader_key(index, "dvlb_pointer"), pointer_at, 4, f"DVLB pointer of {name!r}")
        if size_at is not None:
            rec.table(shader_key(index, "dvlb_size"), size_at, 4, f"DVLB size of {name!r}")
    return CgfxShader(name, dvlb, ref, left, right, shdr_type, shdr_revision)


# -- writing --------------------------------------------------------------------------------------------


def _data_pairs(counts: list[int], offsets: list[int]) -> list[int]:
    return [v for pair in zip(counts, offsets) for v in pair]


def _write_placed(model: Cgfx, layout: Layout, blobs: list[bytes | None]) -> bytes:
    """Every unchanged item where it lay (raw spans as they were); a renamed or resized shader's
    name or DVLB appended, 4-aligned; pointers and sizes derived from where they went. Shaders
    added or removed: a new DICT (tree rebuilt) and, per new shader, an SHDR object, its name and
    DVLB are appended; the rest stays."""
    header = stored_fields(layout, KEY_HEADER, _HEADER)
    stored_data = layout.items.get(KEY_DATA)
    pair_count = len(model.dict_counts)
    count = len(model.shaders)
    if (header is None or stored_data is None or pair_count > 16 or len(stored_data.data) != _DATA_OF[pair_count].size
            or (count and pair_count <= SHADER_DICT)):  # (a DATA without the shader dictionary's pair)
        raise Relayout
    data = _DATA_OF[pair_count].unpack(stored_data.data)
    header_size = header[2]
    stored_dict = layout.items.get(KEY_SHADER_DICT)
    stored_count = (len(stored_dict.data) - _DICT.size) // _NODE.size - 1 if stored_dict is not None else 0
    same = stored_dict is not None and count == stored_count
    w = PlacedWriter(layout, append_aligned(4))
    # an unchanged header, DATA and DICT keep their places: written last, over whatever items
    # overlapped them in the parsed file (verify() tells whether those still agree)
    if same:
        assert stored_dict is not None
        dict_at: int | None = stored_dict.offset
        tree = [(model.root_reference_bit, model.root_left, model.root_right)] + [
            (s.reference_bit, s.left, s.right) for s in model.shaders
        ]
    else:
        dict_at = w.claim(KEY_SHADER_DICT, _DICT.size + _NODE.size * (count + 1)) if count else None
        tree = build_tree([s.name for s in model.shaders])
    nodes: list[bytes] = []
    for index, (shader, blob) in enumerate(zip(model.shaders, blobs)):
        assert dict_at is not None
        node = dict_at + _DICT.size + _NODE.size * (index + 1)
        if index < stored_count:
            assert stored_dict is not None
            stored_node = _DICT.size + _NODE.size * (index + 1)
            value_at = stored_dict.offset + stored_node + 12 + _NODE.unpack_from(stored_dict.data, stored_node)[4]
            name_at = w.place(shader_key(index, "name"), shader.name.encode("latin-1") + b"\0")
            _place_in_shdr(w, layout, index, shader, blob, value_at)
        else:
            value_at, name_at = _new_shdr(w, index, shader, blob)
        nodes.append(_NODE.pack(*tree[index + 1], name_at - (node + 8), value_at - (node + 12)))
    if w.end > layout.size:
        w.pad_to(4)
    # the file and DATA sizes follow the file when they measured it
    file_size = w.end if header[4] == layout.size else header[4]
    data_size = w.end - header_size if data[1] == layout.size - header_size else data[1]
    w.put(0, _HEADER.pack(CGFX_MAGIC, 0xFEFF, header_size, model.revision, file_size, model.section_count))
    counts, offsets = list(model.dict_counts), list(data[2:][1::2])
    if pair_count > SHADER_DICT:
        counts[SHADER_DICT] = count
    if dict_at is not None:
        offsets[SHADER_DICT] = dict_at - (header_size + 8 + 8 * SHADER_DICT + 4)
        if same:
            assert stored_dict is not None
            tree_size = _DICT.unpack_from(stored_dict.data)[1]
            root_pointers = _NODE.unpack_from(stored_dict.data, _DICT.size)[3:]
        else:
            tree_size, root_pointers = _DICT.size + _NODE.size * (count + 1), (0, 0)
        w.put(dict_at, _DICT.pack(b"DICT", tree_size, count) + _NODE.pack(*tree[0], *root_pointers) + b"".join(nodes))
    w.put(header_size, _DATA_OF[pair_count].pack(b"DATA", data_size, *_data_pairs(counts, offsets)))
    if not w.verify():
        raise Relayout
    return w.getvalue()


def _place_in_shdr(w: PlacedWriter, layout: Layout, index: int, shader: CgfxShader, blob: bytes | None,
                   value_at: int) -> None:
    """A shader whose SHDR object was read: its type and revision words, and its DVLB with the
    pointer and size words that lead to it."""
    if w.place(shader_key(index, "shdr_type"), struct.pack("<I", shader.shdr_type)) != value_at:
        raise Relayout  # two entries shared one SHDR object and now disagree
    revision_at = layout.offset_of(shader_key(index, "shdr_revision"))
    if revision_at is not None and \
            w.place(shader_key(index, "shdr_revision"), struct.pack("<I", shader.shdr_revision)) != revision_at:
        raise Relayout
    pointer_at = layout.offset_of(shader_key(index, "dvlb_pointer"))
    if (blob is None) != (pointer_at is None):
        raise Relayout  # a DVLB added or dropped: the SHDR object needs a new layout
    if blob is not None and pointer_at is not None:
        dvlb_at = w.place(shader_key(index, "dvlb"), blob)
        w.put(pointer_at, struct.pack("<I", u32_offset(dvlb_at - pointer_at)))
        size_at = layout.offset_of(shader_key(index, "dvlb_size"))
        if size_at is not None:
            w.put(size_at, struct.pack("<I", len(blob)))


def _new_shdr(w: PlacedWriter, index: int, shader: CgfxShader, blob: bytes | None) -> tuple[int, int]:
    """A new shader: the assumed SHDR object (as :func:`_write_canonical` writes it), its name, then
    its DVLB. Returns the offsets of the object and of the name."""
    if blob is None:
        raise Relayout
    at = w.claim(shader_key(index, "shdr"), _SHDR.size)
    name_at = w.place(shader_key(index, "name"), shader.name.encode("latin-1") + b"\0")
    dvlb_at = w.place(shader_key(index, "dvlb"), blob)
    w.put(at, _SHDR.pack(shader.shdr_type, b"SHDR", shader.shdr_revision, name_at - (at + 12), 0, 0, len(blob),
                         dvlb_at - (at + 28)))
    return at, name_at


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

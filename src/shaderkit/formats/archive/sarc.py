"""SARC (sead archive), either byte order: parse, edit members, rebuild byte for byte.

Header (0x14): ``SARC``, u16 header size 0x14, u16 BOM (0xFEFF as read in the file's order),
u32 file size, u32 data offset, u16 version 0x100, u16 reserved. ``SFAT`` (0xC): u16 header
size, u16 node count, u32 hash key (101); nodes of 0x10: u32 name hash, u32 name attributes
(``0x01000000 | name offset / 4``, 0 = no name), u32 data start, u32 data end (relative to the
data offset). ``SFNT`` (8): names, NUL-terminated, 4-aligned. Nodes are sorted by hash.

Archives whose nodes carry no name (attributes 0: only the hash is stored, as in several games'
layout archives) name such a member by its hash, ``0x%08x`` (see :meth:`Sarc.names`); it keeps
its stored hash and stays nameless when the archive is written again.

The parser keeps every byte between items (name padding, the gap before the data, member
alignment), so an unchanged archive is rebuilt exactly; a resized member moves the members after
it by the same alignment the original used (the largest power of two their offsets share, at most
0x2000).
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.io.reader import Reader

HASH_KEY = 101
MAX_NODES = 0x3FFF


def byte_order(bom: bytes) -> str:
    """The struct byte order of a SARC's byte-order mark (bytes 6..8), '' for neither."""
    return {b"\xfe\xff": ">", b"\xff\xfe": "<"}.get(bytes(bom), "")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the SARC at ``offset`` of ``data`` as its header gives it (either byte order), or
    None when the bytes there are not a consistent header."""
    order = byte_order(data[offset + 6 : offset + 8])
    if not order or offset + 0x14 > len(data):
        return None
    magic, header_size, _, size, data_offset = struct.unpack_from(order + "4sHHII", data, offset)
    if magic != b"SARC" or header_size != 0x14 or not 0x14 <= data_offset <= size <= len(data) - offset:
        return None
    return size


def name_hash(name: bytes, key: int = HASH_KEY, signed_chars: bool = False) -> int:
    """The SARC file-name hash: ``h = h * key + byte`` (32-bit), bytes signed when ``signed_chars``."""
    value = 0
    for byte in name:
        if signed_chars and byte >= 0x80:
            byte -= 0x100
        value = (value * key + byte) & 0xFFFFFFFF
    return value


@dataclass
class SarcMember:
    """One SARC member: name, data, stored hash/attribute words and the gap before its data."""
    name: str
    data: bytes = field(repr=False)
    #: hash and attribute words as stored (recomputed for new members)
    hash: int = 0
    attributes: int = 0
    #: bytes between the previous member's end (or the data start) and this member
    gap: bytes | None = field(default=None, repr=False)


def display_name(member: SarcMember) -> str:
    """The member's name, or ``0x<hash>`` (8 lowercase hex digits) for a member stored without one."""
    return member.name or f"0x{member.hash:08x}"


@dataclass(repr=False)
class Sarc(ShaderFile):
    """A SARC archive: ``members`` in data order (the node table order is by hash)."""

    format_name = "sarc"

    endian: str = ">"
    version: int = 0x100
    hash_key: int = HASH_KEY
    members: list[SarcMember] = field(default_factory=list)
    #: node index order -> member index (the node table is sorted by hash)
    node_order: list[int] = field(default_factory=list, repr=False)
    #: bytes after the name table up to the data offset; None = pad to the members' alignment
    names_tail: bytes | None = field(default=None, repr=False)
    #: bytes after the last member
    tail: bytes = field(default=b"", repr=False)
    reserved: int = 0
    #: alignment used for moved or new members
    alignment: int = 4

    # -- reading ------------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Sarc:
        if data[:4] != b"SARC":
            raise ShaderFormatError(f"bad magic {bytes(data[:4])!r}, expected b'SARC'", 0, "SARC")
        if len(data) < 0x14:
            raise ShaderFormatError(f"header needs 20 bytes, {len(data)} given", 0, "SARC")
        endian = byte_order(data[6:8])
        if not endian:
            raise ShaderFormatError(f"bad byte-order mark {data[6:8].hex()}", 6, "SARC")
        r = Reader(data, endian=endian, context="SARC")
        _, header_size, _, file_size, data_offset, version, reserved = r.unpack("4sHHIIHH", "header")
        if header_size != 0x14:
            raise r.error(f"header size {header_size:#x}, expected 0x14", 4)
        if file_size != len(data):
            raise r.error(f"file size field {file_size} but {len(data)} bytes given", 8)
        if not 0x14 <= data_offset <= len(data):
            raise r.error(f"data offset {data_offset:#x} is outside the file", 0xC)
        with r.scope("SFAT"):
            r.expect(b"SFAT")
            sfat_size, count, hash_key = r.unpack("HHI", "SFAT header")
            if sfat_size != 0xC:
                raise r.error(f"SFAT header size {sfat_size:#x}, expected 0xc")
            if count > MAX_NODES:
                raise r.error(f"{count} nodes exceed the SARC maximum of {MAX_NODES}")
            r.check_count(count, 0x10, "nodes")
            nodes = [r.unpack("IIII", "node") for _ in range(count)]
        with r.scope("SFNT"):
            r.expect(b"SFNT")
            sfnt_size, _ = r.unpack("HH", "SFNT header")
            if sfnt_size != 8:
                raise r.error(f"SFNT header size {sfnt_size:#x}, expected 8")
            names_start = r.tell()
        if names_start > data_offset:
            raise r.error(f"name table at {names_start:#x} lies past the data offset {data_offset:#x}")
        names = r.sub(names_start, data_offset - names_start, "SFNT")
        members: list[tuple[int, int, SarcMember]] = []
        names_end = names_start
        for i, (nhash, attrs, start, end) in enumerate(nodes):
            with r.scope(f"node[{i}]"):
                if not start <= end <= len(data) - data_offset:
                    raise r.error(f"member {start:#x}..{end:#x} lies outside the data section",
                                  0x20 + 0x10 * i)
                name = ""
                if attrs:
                    at = names_start + (attrs & 0xFFFFFF) * 4
                    name = names.cstring_at(at, "utf-8", "name")
                    names_end = max(names_end, at + len(name.encode("utf-8")) + 1)
                members.append((start, i, SarcMember(name, data[data_offset + start : data_offset + end],
                                                     nhash, attrs)))
        in_data_order = sorted(members, key=lambda m: (m[0], m[1]))
        archive = cls(endian, version, hash_key, reserved=reserved)
        cursor = 0
        for start, _, member in in_data_order:
            if start < cursor:
                raise ShaderFormatError(f"member {member.name!r} overlaps the one before it",
                                        data_offset + start, "SARC")
            member.gap = data[data_offset + cursor : data_offset + start]
            cursor = start + len(member.data)
            archive.members.append(member)
        node_to_member = {node: idx for idx, (_, node, _) in enumerate(in_data_order)}
        archive.node_order = [node_to_member[n] for n in range(len(nodes))]
        archive.names_tail = data[names_end:data_offset]
        archive.tail = data[data_offset + cursor :]
        starts = [s for s, _, _ in in_data_order if s]
        align = 0x2000
        while align > 4 and any(s % align for s in starts):
            align >>= 1
        archive.alignment = align
        archive._names_layout = data[names_start:names_end]
        return archive

    _names_layout: bytes | None = field(default=None, repr=False, compare=False)

    # -- editing ------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """The member names in file order; a member stored without a name is called ``0x<hash>``."""
        return [display_name(m) for m in self.members]

    def _find(self, name: str) -> int | None:
        """The index of member ``name``: by stored name, else a nameless member by its ``0x<hash>`` name."""
        for index, member in enumerate(self.members):
            if member.name == name:
                return index
        for index, member in enumerate(self.members):
            if not member.name and display_name(member) == name:
                return index
        return None

    def get(self, name: str) -> bytes:
        """The data of member ``name``; KeyError naming the members when there is none."""
        index = self._find(name)
        if index is not None:
            return self.members[index].data
        raise KeyError(f"no member {name!r} (members: {', '.join(self.names()[:20])})")

    def set(self, name: str, data: bytes) -> None:
        """Replace a member's bytes, or add a new member."""
        index = self._find(name)
        if index is not None:
            self.members[index].data = bytes(data)
            return
        self.members.append(SarcMember(name, bytes(data)))
        self._names_layout = None

    def remove(self, name: str) -> None:
        """Remove member ``name`` (ValueError when there is none); the name table is laid out anew."""
        index = self._find(name)
        if index is None:
            raise ValueError(f"no member {name!r}")
        del self.members[index]
        self.node_order = [i - (i > index) for i in self.node_order if i != index]
        self._names_layout = None

    # -- writing ------------------------------------------------------------------------------
    def _nodes(self) -> tuple[list[int], bytes, list[int]]:
        """(node order, name table bytes, attribute word per member)."""
        fresh = self._names_layout is None or len(self.node_order) != len(self.members)
        if not fresh:
            return self.node_order, bytes(self._names_layout or b""), [m.attributes for m in self.members]
        hashes = [name_hash(m.name.encode("utf-8"), self.hash_key, self.endian == "<") if m.name else m.hash
                  for m in self.members]
        order = sorted(range(len(self.members)), key=lambda i: (hashes[i], self.members[i].name))
        table = bytearray()
        attrs = [0] * len(self.members)
        seen: dict[int, int] = {}
        for i in order:
            member = self.members[i]
            member.hash = hashes[i]
            if not member.name:  # stored by hash only: no name, attributes 0
                member.attributes = 0
                continue
            seen[hashes[i]] = seen.get(hashes[i], 0) + 1
            attrs[i] = seen[hashes[i]] << 24 | len(table) // 4
            member.attributes = attrs[i]
            table += member.name.encode("utf-8") + b"\0"
            table += bytes(-len(table) % 4)
        self.node_order = order
        self._names_layout = bytes(table)
        self.names_tail = None
        return order, bytes(table), attrs

    def to_bytes(self) -> bytes:
        order, names, attrs = self._nodes()
        e = self.endian
        count = len(self.members)
        head = 0x14 + 0xC + 0x10 * count + 8 + len(names)
        if self.names_tail is not None:
            data_offset = head + len(self.names_tail)
            names_tail = self.names_tail
        else:
            data_offset = -(-head // self.alignment) * self.alignment
            names_tail = bytes(data_offset - head)
        body = bytearray()
        spans: list[tuple[int, int]] = []
        for member in self.members:
            gap = member.gap
            if gap is None or (len(body) + len(gap)) % self.alignment:
                gap = bytes(-(data_offset + len(body)) % self.alignment)
                member.gap = gap
            body += gap
            spans.append((len(body), len(body) + len(member.data)))
            body += member.data
        body += self.tail
        total = data_offset + len(body)
        out = bytearray(struct.pack(e + "4sHHIIHH", b"SARC", 0x14, 0xFEFF, total, data_offset,
                                    self.version, self.reserved))
        out += struct.pack(e + "4sHHI", b"SFAT", 0xC, count, self.hash_key)
        for i in order:
            member = self.members[i]
            out += struct.pack(e + "IIII", member.hash, attrs[i], *spans[i])
        out += struct.pack(e + "4sHH", b"SFNT", 8, 0)
        out += names + names_tail
        out += body
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "endian": "big" if self.endian == ">" else "little",
            "version": self.version,
            "members": [{"name": display_name(m), "size": len(m.data)} for m in self.members],
        }

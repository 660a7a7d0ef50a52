"""Wii U RPX/RPL (and WUPS ``.wps`` plugins): a big-endian ELF32 whose sections may be zlib-deflated.

Facts (decaf-emu's loader, wut's elf2rpl, wiiurpxtool): the identification bytes are ``7F 'ELF'``,
class 1 (32-bit), data 2 (big-endian), version 1, OS ABI 0xCA and ABI version 0xFE; the section
header table (``e_shentsize`` 0x28 each) is what the loader reads, there are no program headers.
A section flagged ``SHF_DEFLATED`` (0x08000000) stores a big-endian u32 inflated size and then a
zlib stream. The ``SHT_RPL_CRCS`` section holds one big-endian CRC-32 per section, of its
inflated data (0 for sections without data and for the CRC section itself). ``SHT_RPL_FILEINFO``
holds the loader's sizes and flags: its first word is ``0xCAFE`` and a version, the word at 0x34
the flags (bit 1: the file is an RPX, a main program).

The model keeps each section's stored bytes. An unchanged file is rebuilt from them exactly; a
section whose data is replaced is deflated again (zlib level 6, as elf2rpl does), its CRC entry is
recomputed, and it goes back where it lay if it still fits there, else at the end of the file
(64-byte aligned), with the section header's offset and size updated.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned
from shaderkit.io.limits import MAX_DECOMPRESSED_SIZE, MAX_TABLE_ENTRIES

IDENT = b"\x7fELF\x01\x02\x01\xca\xfe"
HEADER = struct.Struct(">16sHHIIIIIHHHHHH")
SECTION_HEADER = struct.Struct(">10I")
SHT_NOBITS = 8
SHT_RPL_CRCS = 0x80000003
SHT_RPL_FILEINFO = 0x80000004
SHF_ALLOC = 0x2
SHF_DEFLATED = 0x08000000
#: zlib level of a section deflated again (wut's elf2rpl; the public files all re-deflate alike)
DEFLATE_LEVEL = 6
#: alignment of a section that no longer fits where it lay
MOVED_ALIGNMENT = 64
FILE_INFO_FLAGS_AT = 0x34
RPL_IS_RPX = 0x2
SECTION_TYPES = {0: "null", 1: "progbits", 2: "symtab", 3: "strtab", 4: "rela", 8: "nobits",
                 0x80000001: "rpl_exports", 0x80000002: "rpl_imports", SHT_RPL_CRCS: "rpl_crcs",
                 SHT_RPL_FILEINFO: "rpl_fileinfo"}
SECTION_FLAGS = {0x1: "write", SHF_ALLOC: "alloc", 0x4: "execinstr", 0x04000000: "tls", SHF_DEFLATED: "deflated"}


def sniff(data: bytes) -> bool:
    """True for a Cafe OS ELF (the RPX/RPL identification bytes)."""
    return data[: len(IDENT)] == IDENT


def inflate(stored: bytes, context: str, offset: int) -> bytes:
    """The data of a deflated section: its u32 size, then zlib; bounded by that size and the limit."""
    if len(stored) < 4:
        raise ShaderFormatError(f"deflated section of {len(stored)} bytes has no size word", offset, context)
    size = int.from_bytes(stored[:4], "big")
    if size > MAX_DECOMPRESSED_SIZE:
        raise ShaderFormatError(f"inflated size {size} exceeds the limit of {MAX_DECOMPRESSED_SIZE} bytes",
                                offset, context)
    stream = zlib.decompressobj()
    try:
        data = stream.decompress(stored[4:], size + 1)
    except zlib.error as exc:
        raise ShaderFormatError(f"corrupt zlib data: {exc}", offset + 4, context) from None
    if len(data) != size or not stream.eof:
        raise ShaderFormatError(f"zlib data inflates to {len(data)}{'' if stream.eof else '+'} bytes, "
                                f"the size word says {size}", offset, context)
    return data


def deflate(data: bytes) -> bytes:
    """The stored bytes of a deflated section holding ``data``."""
    return len(data).to_bytes(4, "big") + zlib.compress(data, DEFLATE_LEVEL)


@dataclass
class RplSection:
    """One section: its header fields, name and stored bytes (``data`` inflates them)."""

    name: str
    type: int
    flags: int
    address: int
    link: int
    info: int
    alignment: int
    entry_size: int
    name_offset: int = 0
    #: the bytes in the file (a deflated section: u32 size + zlib stream)
    stored: bytes = field(default=b"", repr=False)
    #: the header's size of a section without file bytes (NOBITS: its size in memory)
    size: int = 0
    #: the header's offset as read (written back as it was for a section without file bytes)
    offset: int = field(default=0, compare=False)
    _data: bytes | None = field(default=None, repr=False, compare=False)

    @property
    def deflated(self) -> bool:
        """True when the section is stored zlib-deflated."""
        return bool(self.flags & SHF_DEFLATED)

    @property
    def has_bytes(self) -> bool:
        """True when the section occupies bytes of the file."""
        return self.type != SHT_NOBITS and bool(self.stored)

    @property
    def data(self) -> bytes:
        """The section's contents (inflated)."""
        if self._data is None:
            self._data = inflate(self.stored, f"section {self.name or self.type}", self.offset) if (
                self.deflated and self.stored) else self.stored
        return self._data

    @data.setter
    def data(self, value: bytes) -> None:
        if value == self.data:  # the stored bytes stay (another zlib would deflate them differently)
            return
        self._data = bytes(value)
        self.stored = deflate(self._data) if self.deflated else self._data


@dataclass(repr=False)
class Rpl(ShaderFile):
    """A Wii U RPX/RPL: the ELF header fields, the sections in header order, bytes between them kept."""

    format_name = "rpl"

    type: int = 0xFE01
    machine: int = 20
    version: int = 1
    entry: int = 0
    program_header_offset: int = 0
    flags: int = 0
    header_size: int = HEADER.size
    program_header_size: int = 0
    program_header_count: int = 0
    #: where the section header table lay, as read (the writer puts it back there while it fits)
    section_header_offset: int = field(default=0x40, compare=False)
    names_index: int = 0
    sections: list[RplSection] = field(default_factory=list)
    #: the bytes of e_ident after the identification bytes this model checks
    ident_tail: bytes = field(default=bytes(16 - len(IDENT)), repr=False)
    layout: Layout | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Rpl:
        context = "RPL"
        if not sniff(data):
            raise ShaderFormatError(f"not a Cafe OS ELF: {bytes(data[:len(IDENT)]).hex()}", 0, context)
        if len(data) < HEADER.size:
            raise ShaderFormatError(f"ELF header needs {HEADER.size} bytes, {len(data)} given", 0, context)
        (ident, etype, machine, version, entry, phoff, shoff, flags, ehsize, phentsize, phnum, shentsize,
         shnum, shstrndx) = HEADER.unpack_from(data, 0)
        if shentsize != SECTION_HEADER.size:
            raise ShaderFormatError(f"section header size {shentsize:#x}, expected 0x28", 0x2E, context)
        if shnum > MAX_TABLE_ENTRIES or shoff + shnum * shentsize > len(data) or shoff < HEADER.size and shnum:
            raise ShaderFormatError(f"{shnum} section headers at {shoff:#x} do not fit the file's "
                                    f"{len(data)} bytes", 0x20, context)
        if shnum and shstrndx >= shnum:
            raise ShaderFormatError(f"section name table index {shstrndx} of {shnum} sections", 0x32, context)
        model = cls(etype, machine, version, entry, phoff, flags, ehsize, phentsize, phnum, shoff, shstrndx,
                    ident_tail=ident[len(IDENT):])
        layout = Layout()
        layout.record("header", 0, data[: HEADER.size])
        layout.record("section headers", shoff, data[shoff : shoff + shnum * shentsize])
        for i in range(shnum):
            at = shoff + i * shentsize
            name_offset, stype, sflags, address, offset, size, link, info, align, entsize = \
                SECTION_HEADER.unpack_from(data, at)
            stored = b""
            if stype != SHT_NOBITS and offset and size:
                if offset + size > len(data):
                    raise ShaderFormatError(f"section {i}: {size} bytes at {offset:#x} run past the file's "
                                            f"{len(data)} bytes", at + 0x10, context)
                stored = bytes(data[offset : offset + size])
                layout.record(("section", i), offset, stored)
            model.sections.append(RplSection("", stype, sflags, address, link, info, align, entsize, name_offset,
                                             stored, 0 if stored else size, offset))
        layout.close(data)
        model.layout = layout
        if shnum:
            names = model.sections[shstrndx].data
            for section in model.sections:
                end = names.find(b"\0", section.name_offset)
                if section.name_offset and section.name_offset < len(names):
                    section.name = names[section.name_offset : end if end >= 0 else len(names)].decode("latin-1")
        return model

    # -- contents -----------------------------------------------------------------------------
    def member_names(self) -> list[str]:
        """Each section with bytes, by name (``[index]`` for an unnamed or repeated one)."""
        return [name for name, _ in self._members()]

    def _members(self) -> list[tuple[str, int]]:
        seen: dict[str, int] = {}
        for section in self.sections:
            seen[section.name] = seen.get(section.name, 0) + 1
        return [(s.name if s.name and seen[s.name] == 1 else f"{s.name}[{i}]", i)
                for i, s in enumerate(self.sections) if s.has_bytes]

    def section_index(self, name: str) -> int:
        """The index of member ``name``; KeyError when there is none."""
        return dict(self._members())[name]

    def member(self, name: str) -> bytes:
        """The contents of section ``name`` (see :meth:`member_names`); KeyError when there is none."""
        return self.sections[self.section_index(name)].data

    def replace_member(self, name: str, data: bytes) -> None:
        """Put ``data`` in place of section ``name``'s contents (see :meth:`replace_section`)."""
        self.replace_section(self.section_index(name), data)

    def replace_section(self, index: int, data: bytes) -> None:
        """Put ``data`` in place of section ``index``'s contents (same size for a section loaded at an
        address: other sections and the program's relocations lie after it)."""
        section = self.sections[index]
        if section.flags & SHF_ALLOC and len(data) != len(section.data):
            raise UnsupportedOperation(f"section {section.name or index} is loaded at {section.address:#x}: "
                                       f"its size ({len(section.data)} bytes) cannot change to {len(data)}")
        section.data = data

    def crc_mismatches(self) -> list[int]:
        """Indices of sections whose CRC entry differs from the CRC-32 of their data."""
        table = self._crc_table()
        if table is None:
            return []
        crcs, crc_index = table
        return [i for i, s in enumerate(self.sections)
                if i < len(crcs) and i != crc_index and crcs[i] != (zlib.crc32(s.data) if s.has_bytes else 0)]

    def _crc_table(self) -> tuple[list[int], int] | None:
        index = next((i for i, s in enumerate(self.sections) if s.type == SHT_RPL_CRCS and s.has_bytes), None)
        if index is None:
            return None
        words = self.sections[index].data
        return list(struct.unpack(f">{len(words) // 4}I", words[: len(words) // 4 * 4])), index

    def _update_crcs(self) -> None:
        table = self._crc_table()
        read = self.layout.items if self.layout is not None else {}
        changed = [i for i, s in enumerate(self.sections)
                   if s.has_bytes and (("section", i) not in read or read["section", i].data != s.stored)]
        if table is None or not changed:
            return
        crcs, index = table
        for i in changed:
            if i < len(crcs) and i != index:
                crcs[i] = zlib.crc32(self.sections[i].data)
        words = self.sections[index].data
        self.sections[index].data = struct.pack(f">{len(crcs)}I", *crcs) + words[len(crcs) * 4 :]

    # -- writing ------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        self._update_crcs()
        writer = PlacedWriter(self.layout, append_aligned(MOVED_ALIGNMENT))
        if self.layout is None:
            writer.reserve(0, HEADER.size)
        headers = []
        for i, s in enumerate(self.sections):
            offset = writer.place(("section", i), s.stored) if s.has_bytes else s.offset
            size = len(s.stored) if s.has_bytes else s.size
            headers.append(SECTION_HEADER.pack(s.name_offset, s.type, s.flags, s.address, offset, size, s.link,
                                               s.info, s.alignment, s.entry_size))
        # the table after the sections: where it lay unless a section now holds other bytes there
        shoff = writer.place("section headers", b"".join(headers)) if headers else self.section_header_offset
        writer.put(0, HEADER.pack(IDENT + self.ident_tail, self.type, self.machine, self.version, self.entry,
                                  self.program_header_offset, shoff, self.flags, self.header_size,
                                  self.program_header_size, self.program_header_count, SECTION_HEADER.size,
                                  len(self.sections), self.names_index))
        return writer.getvalue()

    # -- description --------------------------------------------------------------------------
    def file_info_flags(self) -> int | None:
        """The loader flags of the SHT_RPL_FILEINFO section (None without one)."""
        info = next((s for s in self.sections if s.type == SHT_RPL_FILEINFO and s.has_bytes), None)
        if info is None or len(info.data) < FILE_INFO_FLAGS_AT + 4:
            return None
        return int.from_bytes(info.data[FILE_INFO_FLAGS_AT : FILE_INFO_FLAGS_AT + 4], "big")

    def summary(self) -> dict[str, Any]:
        flags = self.file_info_flags()
        names = dict(self._members())
        by_index = {i: name for name, i in names.items()}
        return {
            "format": self.format_name,
            "kind": "unknown" if flags is None else "rpx" if flags & RPL_IS_RPX else "rpl",
            "entry": self.entry,
            "sections": [{
                "index": i,
                "name": s.name,
                "member": by_index.get(i, ""),
                "type": s.type,
                "type_name": SECTION_TYPES.get(s.type, str(s.type)),
                "flags": s.flags,
                "flags_names": [name for bit, name in SECTION_FLAGS.items() if s.flags & bit],
                "address": s.address,
                "offset": s.offset,
                "stored_size": len(s.stored),
                "size": len(s.data) if s.has_bytes else s.size,
            } for i, s in enumerate(self.sections)],
            "crc_mismatches": self.crc_mismatches(),
        }

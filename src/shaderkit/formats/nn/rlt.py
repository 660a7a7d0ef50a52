"""``_RLT``: the relocation table listing every pointer the loader rebases.

Layout: ``_RLT``, u32 own offset, i32 section count, 4 pad; sections of 0x18
{u64 pointer (0 in files), u32 position, u32 size, i32 first entry, i32 entry count}; entries of 8
{u32 position, u16 chunk count, u8 pointers per chunk, u8 words skipped after each chunk}, words
being 8 bytes. An entry sits under the section that holds the pointer *target*.
"""

from __future__ import annotations

import struct
from bisect import bisect_left

from shaderkit.dataclass import dataclass, field
from shaderkit.io.reader import Reader

HEADER = struct.Struct("<4sIiI")
SECTION = struct.Struct("<QIIii")
ENTRY = struct.Struct("<IHBB")
#: Longest skip the grouping uses. The corpus shows 33 words merged and 211 not merged; the
#: original tool's limit is unknown, 127 (a signed byte) fits every real table.
MAX_SKIP = 127


@dataclass(frozen=True)
class RelocationEntry:
    """A _RLT entry: ``chunk_count`` runs of ``pointers_per_chunk`` pointers from ``position``, skipping words between."""
    position: int
    chunk_count: int
    pointers_per_chunk: int
    words_skipped: int

    def pointers(self) -> list[int]:
        """Positions of every pointer this entry covers."""
        out: list[int] = []
        pos = self.position
        for _ in range(self.chunk_count):
            out.extend(range(pos, pos + 8 * self.pointers_per_chunk, 8))
            pos += 8 * (self.pointers_per_chunk + self.words_skipped)
        return out


@dataclass
class RelocationSection:
    """A _RLT section: the file range it covers, its entries and the stored base pointer."""
    position: int
    size: int
    entries: list[RelocationEntry] = field(default_factory=list)
    pointer: int = 0
    #: Index of the first entry as stored (matters only when the section has no entries).
    first_entry: int = 0


@dataclass
class RelocationTable:
    """The _RLT block: every pointer of the file, by section, so a loader can relocate them."""
    sections: list[RelocationSection] = field(default_factory=list)
    padding: int = 0

    @classmethod
    def read(cls, r: Reader, offset: int) -> RelocationTable:
        """Read the _RLT at ``offset``; ShaderFormatError for a bad magic or counts past the data."""
        with r.scope("_RLT"):
            r.seek(offset, "relocation table offset")
            magic, own, count, padding = r.unpack("4sIiI", "relocation table header")
            if magic != b"_RLT":
                raise r.error(f"bad relocation table signature {magic!r}", offset)
            if own != offset:
                raise r.error(f"relocation table names itself at {own:#x}, not {offset:#x}", offset + 4)
            r.check_count(count, SECTION.size, "relocation sections")
            raw = list(SECTION.iter_unpack(r.read(SECTION.size * count, "relocation sections")))
            total = sum(max(s[4], 0) for s in raw)
            r.check_count(total, ENTRY.size, "relocation entries")
            base = r.tell()
            file_size = len(r.data)
            every: list[RelocationEntry] = []
            for j, fields in enumerate(ENTRY.iter_unpack(r.read(ENTRY.size * total, "relocation entries"))):
                entry = RelocationEntry(*fields)
                end = entry.position + 8 * (
                    entry.chunk_count * (entry.pointers_per_chunk + entry.words_skipped) - entry.words_skipped
                )
                if entry.chunk_count and end > file_size:
                    raise r.error(f"entry {j} relocates up to {end:#x}, past the file end", base + 8 * j)
                every.append(entry)
            sections: list[RelocationSection] = []
            for index, (pointer, position, size, first, n) in enumerate(raw):
                if n < 0 or first < 0 or first + n > total:
                    raise r.error(f"section[{index}]: entries {first}..{first + n} lie outside the {total} entries",
                                  offset)
                if position + size > file_size:
                    raise r.error(f"section[{index}]: {position:#x}+{size:#x} lies outside the file", offset)
                sections.append(RelocationSection(position, size, every[first : first + n], pointer, first))
            return cls(sections, padding)

    def pack(self, offset: int) -> bytes:
        """The _RLT bytes for a table placed at file offset ``offset``."""
        out = bytearray(HEADER.pack(b"_RLT", offset, len(self.sections), self.padding))
        first = 0
        for section in self.sections:
            start = first if section.entries else section.first_entry
            out += SECTION.pack(section.pointer, section.position, section.size, start, len(section.entries))
            first += len(section.entries)
        for section in self.sections:
            for e in section.entries:
                out += ENTRY.pack(e.position, e.chunk_count, e.pointers_per_chunk, e.words_skipped)
        return bytes(out)

    def size(self) -> int:
        """The _RLT size in bytes."""
        return HEADER.size + SECTION.size * len(self.sections) + ENTRY.size * sum(len(s.entries) for s in self.sections)


def group(pointers: list[int]) -> list[RelocationEntry]:
    """Run-length entries for the 8-byte pointers at ``pointers`` (one section).

    Taken in position order: an entry starts with the longest run of adjacent pointers; further
    chunks are the next runs of exactly that length, each a fixed number of words further on.
    """
    todo = sorted(set(pointers))
    free = set(todo)
    out: list[RelocationEntry] = []

    def run_length(pos: int) -> int:
        n = 0
        while pos + 8 * n in free and n < 255:
            n += 1
        return n

    def run_start(pos: int) -> bool:
        return pos in free and pos - 8 not in free

    for start in todo:
        if start not in free:
            continue
        k = run_length(start)
        for p in range(start, start + 8 * k, 8):
            free.discard(p)
        chunks, skip = 1, 0
        end = start + 8 * k
        # second chunk: the first later run of exactly k pointers within reach
        found = False
        for cand in todo[bisect_left(todo, end):]:
            if (cand - end) // 8 > MAX_SKIP:
                break
            if run_start(cand) and run_length(cand) == k:
                skip, found = (cand - end) // 8, True
                break
        if found:
            pos = end + 8 * skip
            while chunks < 0xFFFF and run_start(pos) and run_length(pos) == k:
                for p in range(pos, pos + 8 * k, 8):
                    free.discard(p)
                chunks += 1
                pos += 8 * (k + skip)
        if chunks == 1:
            skip = 0
        out.append(RelocationEntry(start, chunks, k, skip))
    return out

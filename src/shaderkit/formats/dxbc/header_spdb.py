"""SPDB read back from the debug annotations of an fxc listing (``#line`` directives,
``// r0.x <- name`` notes, the ``Initial variable locations`` block).

What the listing shows becomes a minimal PDB (MSF 7.00, 512-byte pages) that
:func:`shaderkit.formats.dxbc.disasm.read_debug_info` reads back into the same annotations:
stream 1 the PDB info stream (named-stream map with ``/names``), stream 2 an empty type stream,
stream 3 a DBI stream with one module, stream 4 an empty IPI stream, stream 5 that module
(``S_LOCAL`` + ``S_DEFRANGE_HLSL`` symbols, C13 file checksums and lines), stream 6 the ``/names``
string table. Each note is one
local named as printed (``Input.vNormal.x``): the text does not show the variables' types, so
no type records are written; nor the HLSL source, compile options or GUID fxc stores.
"""

from __future__ import annotations

import re
import struct

from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.codeview import (
    HLSL_INDEXABLE_TEMP,
    HLSL_REGISTER_PREFIXES,
    PRIOR_LOCATIONS,
    S_DEFRANGE_HLSL,
    S_LOCAL,
)
from shaderkit.formats.dxbc.spdb import MSF_MAGIC, ProgramDatabase
from shaderkit.isa.sm4.opcodes import SINGLE_REGISTER_NAMES

_BLOCK = 512
_REGISTER_TYPES = {prefix: kind for kind, prefix in HLSL_REGISTER_PREFIXES.items()}
_SINGLE_REGISTERS = {name: kind for kind, name in SINGLE_REGISTER_NAMES.items()}
#: ``r0.x <- name``, ``vThreadID.x <- name``, or ``reg32_5.x <- name`` for a register type
#: without a letter
_SINGLE_ALTERNATIVES = "|".join(sorted(_SINGLE_REGISTERS, key=len, reverse=True))
_NOTE_RE = re.compile(rf"(?:([{''.join(_REGISTER_TYPES)}])|reg(\d+)_|({_SINGLE_ALTERNATIVES}))(\d*)\.([xyzw]) <- (.+)$")
#: an indexable temp array as a whole: ``x0 <- name``
_ARRAY_NOTE_RE = re.compile(r"x(\d+) <- (.+)$")
_LINE_RE = re.compile(r'#line (\d+)(?: "([^"]*)")?$')
_INITIAL = "// Initial variable locations:"
_PDB_VERSION = 20000404


def _bounded(digits: str, limit: int, what: str, line: int) -> int:
    """The decimal ``digits`` as a number below ``limit``, else AssemblyError naming ``what``."""
    if len(digits) > 10 or int(digits) >= limit:
        raise AssemblyError(f"{what} is out of range", line, 1)
    return int(digits)


def _notes(text: str, line: int) -> list[tuple[int, int, str]]:
    """(register type, register * 16 + component * 4, name) of ``a <- b; c <- d``."""
    out = []
    text = text.strip()
    if text.startswith(PRIOR_LOCATIONS):  # notes on an else
        text = text[len(PRIOR_LOCATIONS) :]
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        array = _ARRAY_NOTE_RE.match(item)
        if array is not None:
            register = _bounded(array.group(1), 1 << 28, f"register x{array.group(1)[:12]}", line)
            out.append((HLSL_INDEXABLE_TEMP, register * 16, array.group(2)))
            continue
        m = _NOTE_RE.match(item)
        if m is None:
            raise AssemblyError(f"unreadable variable note {item!r}", line, 1)
        letter, number, single, index, component, name = m.groups()
        if (single is None) == (index == ""):  # a number after a letter, none after a name
            raise AssemblyError(f"unreadable variable note {item!r}", line, 1)
        what = f"register {item.split('.')[0][:24]}"  # stored as a u32 byte offset and a u16 type
        kind = _REGISTER_TYPES[letter] if letter else _SINGLE_REGISTERS[single] if single else \
            _bounded(number, 1 << 16, what, line)
        register = _bounded(index or "0", 1 << 28, what, line)
        out.append((kind, register * 16 + "xyzw".index(component) * 4, name))
    return out


def spdb_from_listing(lines: list[str], first: int, instruction_lines: list[int],
                      offsets: list[int]) -> ProgramDatabase | None:
    """The SPDB of a program's annotated text ``lines`` (0-based ``first`` is its version line);
    ``instruction_lines`` the 1-based line of every instruction, ``offsets`` their word offsets.
    None when the text has no annotations."""
    directives: dict[int, tuple[int, str]] = {}
    initial: list[tuple[int, int, str]] = []
    current: tuple[int, str] | None = None
    n = first
    while n < len(lines):
        stripped = lines[n].strip()
        if stripped == _INITIAL:
            n += 1
            while n < len(lines) and lines[n].strip() != "//" and lines[n].startswith("//"):
                initial += _notes(lines[n][2:], n + 1)
                n += 1
            continue
        m = _LINE_RE.match(stripped)
        if m is not None:
            value = _bounded(m.group(1), 1 << 24, f"line number {m.group(1)[:12]}", n + 1)
            if m.group(2) is None and current is None:
                raise AssemblyError("#line without a file name before any #line with one", n + 1, 1)
            current = (value, m.group(2) if m.group(2) is not None else current[1] if current else "")
        elif current is not None:
            directives[n + 1] = current
        n += 1
    if not directives and not initial:
        return None
    line_of = {line: directives.get(line) for line in instruction_lines}
    where = [(4 * offset, line_of[line]) for line, offset in zip(instruction_lines, offsets)]
    coded = [(offset, at) for offset, at in where if at is not None]
    first_code = coded[0][0] if coded else (4 * offsets[0] if offsets else 0)
    ranges = [(kind, reg, name, first_code) for kind, reg, name in initial]
    for k, line in enumerate(instruction_lines):
        code, sep, note = lines[line - 1].partition("//")
        if not sep or "<-" not in note:  # no notes: fxc 9.x's "name<0:NaN:Inf>" value ranges, remarks
            continue
        if k + 1 >= len(offsets):
            raise AssemblyError("a variable note on the last instruction has no range to start", line, 1)
        ranges += [(kind, reg, name, 4 * offsets[k + 1]) for kind, reg, name in _notes(note, line)]
    return _database(coded, ranges)


def _record(kind: int, body: bytes) -> bytes:
    while len(body) % 4:  # records stay 4-aligned (2-byte length, 2-byte kind, body)
        body += b"\0"
    return struct.pack("<2H", len(body) + 2, kind) + body


#: first stream without a fixed role: the module's symbols; ``/names`` follows it
_MODULE_STREAM = 5


def _database(coded: list[tuple[int, tuple[int, str]]],
              ranges: list[tuple[int, int, str, int]]) -> ProgramDatabase:
    names = bytearray(b"\0")
    name_offsets: dict[str, int] = {}

    def name(text: str) -> int:
        if text not in name_offsets:
            name_offsets[text] = len(names)
            names.extend(text.encode("latin-1", "replace") + b"\0")
        return name_offsets[text]

    # module stream: CodeView signature, symbols, then C13 subsections
    symbols = bytearray(struct.pack("<I", 4))
    for kind, reg, label, start in ranges:
        symbols += _record(S_LOCAL, struct.pack("<IH", 0, 0) + label.encode("latin-1", "replace") + b"\0")
        symbols += _record(S_DEFRANGE_HLSL, struct.pack("<4HIII", kind, 1, 0, 4, start, 0, reg))
    files: dict[str, int] = {}
    checksums = bytearray()
    for _, (_, file) in coded:
        if file not in files:
            files[file] = len(checksums)
            checksums += struct.pack("<IBBH", name(file), 0, 0, 0)
    blocks = bytearray()
    for file, at in files.items():
        entries = [(offset, line) for offset, (line, f) in coded if f == file]
        blocks += struct.pack("<3I", at, len(entries), 12 + 8 * len(entries))
        for offset, line in entries:
            blocks += struct.pack("<2I", offset, line | 1 << 31)
    lines_body = struct.pack("<IHHI", 0, 0, 0, 0) + bytes(blocks)
    c13 = struct.pack("<2I", 0xF4, len(checksums)) + bytes(checksums)
    c13 += struct.pack("<2I", 0xF2, len(lines_body)) + lines_body
    module = bytes(symbols) + c13
    # DBI: 64-byte header (module info size at 24), one module record
    record = bytearray(64)
    struct.pack_into("<H3I", record, 34, _MODULE_STREAM, len(symbols), 0, len(c13))
    record += b"shader\0shader\0"
    while len(record) % 4:
        record.append(0)
    dbi = bytearray(64)
    struct.pack_into("<i", dbi, 24, len(record))
    dbi += record
    string_table = struct.pack("<3I", 0xEFFEEFFE, 1, len(names)) + bytes(names) + _name_hashes(name_offsets)
    # info stream: version, signature, age, GUID, named-stream map {"/names": 6}
    key_strings = b"/names\0"
    info = struct.pack("<3I", _PDB_VERSION, 0, 1) + bytes(16) + struct.pack("<I", len(key_strings)) + key_strings
    info += struct.pack("<5I", 1, 2, 1, 1, 0) + struct.pack("<2I", 0, _MODULE_STREAM + 1)
    # streams 0-4 have fixed roles (old directory, info, TPI, DBI, IPI); the IPI stays empty
    return _msf([b"", info, b"", bytes(dbi), b"", module, string_table])


def _pdb_hash_v1(text: bytes) -> int:
    """The PDB string hash (version 1): little-endian words XORed, then a 2- and a 1-byte rest,
    forced lower case and folded."""
    result = 0
    whole = len(text) // 4 * 4
    for (word,) in struct.iter_unpack("<I", text[:whole]):
        result ^= word
    rest = text[whole:]
    if len(rest) >= 2:
        result ^= int.from_bytes(rest[:2], "little")
        rest = rest[2:]
    if rest:
        result ^= rest[0]
    result |= 0x20202020
    result ^= result >> 11
    return (result ^ (result >> 16)) & 0xFFFFFFFF


def _name_hashes(offsets: dict[str, int]) -> bytes:
    """The ``/names`` hash table: bucket count, buckets (string offsets placed by linear probing
    from ``hash % count``; 0 = empty), then the number of names."""
    count = max(1, 2 * len(offsets))
    buckets = [0] * count
    for text, offset in offsets.items():
        at = _pdb_hash_v1(text.encode("latin-1", "replace")) % count
        while buckets[at]:
            at = (at + 1) % count
        buckets[at] = offset
    return struct.pack(f"<{count + 2}I", count, *buckets, len(offsets))


def _msf(streams: list[bytes]) -> ProgramDatabase:
    """An MSF 7.00 file of ``streams``: superblock, two free-page maps, the streams, the
    directory, then the page listing the directory's pages."""
    pages: list[bytes] = [b"", bytes(_BLOCK), bytes(_BLOCK)]
    table: list[list[int]] = []
    for data in streams:
        start = len(pages)
        for at in range(0, len(data), _BLOCK):
            pages.append(data[at : at + _BLOCK].ljust(_BLOCK, b"\0"))
        table.append(list(range(start, len(pages))))
    directory = struct.pack(f"<{len(streams) + 1}I", len(streams), *(len(s) for s in streams))
    directory += b"".join(struct.pack(f"<{len(t)}I", *t) for t in table)
    dir_start = len(pages)
    for at in range(0, len(directory), _BLOCK):
        pages.append(directory[at : at + _BLOCK].ljust(_BLOCK, b"\0"))
    dir_pages = list(range(dir_start, len(pages)))
    map_page = len(pages)
    pages.append(struct.pack(f"<{len(dir_pages)}I", *dir_pages).ljust(_BLOCK, b"\0"))
    pages[0] = (MSF_MAGIC + struct.pack("<6I", _BLOCK, 1, len(pages), len(directory), 0, map_page)).ljust(
        _BLOCK, b"\0")
    return ProgramDatabase.from_bytes(b"".join(pages))

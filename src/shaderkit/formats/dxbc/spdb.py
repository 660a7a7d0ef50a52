"""SPDB: fxc's debug information, a complete PDB file in MSF 7.00 form.

MSF layout (LLVM's "The MSF File Format"): a superblock (32-byte magic, ``u32 block_size``,
``free_block_map``, ``block_count``, ``directory_size``, an unknown word, ``block_map_addr``);
the file is ``block_count`` pages of ``block_size`` bytes. The page at ``block_map_addr`` lists
the pages of the *stream directory*: ``u32 stream_count``, ``u32 sizes[stream_count]``
(0xFFFFFFFF for a nil stream), then each stream's page numbers. Stream 1 is the PDB info stream
(version, signature, age, GUID, then the named-stream map: ``/names`` ...), stream 2 the type
records (TPI), stream 3 the DBI stream (modules whose streams carry symbols and C13 lines).

Model: :class:`ProgramDatabase` keeps the superblock fields, the directory's pages and the
stream table (:class:`MsfStream`: size and pages) typed, the file's pages as bytes (free page
maps, unused pages and the slack after each stream stay as they are), and each stream's content
typed by its role (``contents``): the PDB info stream (:class:`PdbInfo`, its named-stream hash
map), TPI/IPI (:class:`TypeStream`: header and CodeView leaves, :mod:`.codeview`) and their hash
streams (:class:`TypeHashes`), DBI (:class:`DbiStream`: modules and substreams), each module's
stream (:class:`ModuleStream`: symbols, C13 lines and file checksums), the global symbol records
(:class:`SymbolStream`), the globals/publics hash tables (:class:`GlobalsStream`,
:class:`PublicsStream`), ``/names`` (:class:`NamesTable`), the section headers fxc writes
(:class:`SectionHeaders`, ``D3DSHDR``) and the HLSL sources fxc embeds (``/src/files/...``,
:class:`SourceFile`). A stream (or record, or substream) is typed only when its model writes
back its stored bytes; anything else (``/src/headerblock``, kinds nobody documents) is a
:class:`RawStream` or a raw record with its bytes, never refused.

:meth:`ProgramDatabase.build` writes every stream's content back into its own pages (a stream
may grow or shrink within its pages; sizes derived from the models, such as a module's symbol
byte count in the DBI, follow), then the superblock, the directory page list and the directory:
an unedited model rebuilds byte for byte by construction. A stream or directory that no longer
fits its pages is refused with UnsupportedOperation. The listing's ``#line`` directives and
variable notes are read from these models by :mod:`shaderkit.formats.dxbc.disasm`. Payloads
without the MSF magic stay raw chunks.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.dxbc.codeview import PROCEDURES, CodeViewRecord, read_records
from shaderkit.io.layout import Layout
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

MSF_MAGIC = b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0"
SUPERBLOCK = struct.Struct("<32s6I")
BLOCK_SIZES = (512, 1024, 2048, 4096)
#: stream counts above this are refused (fxc writes about 16)
MAX_STREAMS = 1 << 16
NIL_STREAM = 0xFFFFFFFF


def _fail(message: str, offset: int = 0) -> ShaderFormatError:
    return ShaderFormatError(message, offset, "SPDB")


def _u(fmt: str, data: bytes, offset: int) -> tuple[int, ...]:
    size = struct.calcsize("<" + fmt)
    if offset < 0 or offset + size > len(data):
        raise _fail(f"record at {offset:#x} runs past {len(data)} bytes", offset)
    return struct.unpack_from("<" + fmt, data, offset)


def _cstr(data: bytes, offset: int) -> tuple[str, int]:
    """The NUL-terminated string at ``offset`` and the offset just past its terminator."""
    end = data.find(b"\0", offset)
    if offset < 0 or end < 0:
        raise _fail(f"unterminated string at {offset:#x}", offset)
    return data[offset:end].decode("latin-1"), end + 1


@dataclass
class MsfStream:
    """One entry of the stream directory."""

    #: size in bytes as stored (``NIL_STREAM`` for a nil stream)
    size: int
    #: page numbers holding the stream, in order
    blocks: list[int] = field(default_factory=list)

    @property
    def length(self) -> int:
        """The stream's size in bytes (0 for a nil stream)."""
        return 0 if self.size == NIL_STREAM else self.size


@dataclass
class RawStream:
    """A stream kept as bytes (hash tables, ``/src/headerblock``, streams nobody models)."""

    data: bytes = b""
    kind: str = "raw"

    def build(self) -> bytes:
        """The stream's bytes as stored."""
        return self.data


@dataclass
class PdbInfo:
    """The PDB info stream (stream 1): header, the named-stream map (a hash table), feature codes.

    The map is stored as LLVM's "PDB Serialized Hash Table": ``u32 size, capacity``, the present
    and deleted bit vectors (``u32 words`` then the words), then ``(name offset, stream)`` per
    present bucket; ``names_buffer`` holds the NUL-terminated names. ``tail`` is what follows
    (the feature codes such as VC140, kept as bytes).
    """

    version: int
    signature: int
    age: int
    guid: bytes
    names_buffer: bytes = b""
    size: int = 0
    capacity: int = 0
    present: list[int] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)
    #: (offset of the name in ``names_buffer``, stream index) per present bucket, in bucket order
    entries: list[tuple[int, int]] = field(default_factory=list)
    tail: bytes = b""
    kind: str = "info"

    @property
    def named_streams(self) -> dict[str, int]:
        """Stream index by name (``/names``, ``/src/files/...``) from the named-stream map."""
        return {_cstr(self.names_buffer, key)[0]: value for key, value in self.entries}

    @classmethod
    def parse(cls, data: bytes) -> PdbInfo:
        """Read the PDB info stream from its bytes.

        Raises ShaderFormatError when a part does not fit or a name is unterminated.
        """
        version, signature, age = _u("3I", data, 0)
        guid = _take(data, 12, 16)
        (strings_size,) = _u("I", data, 28)
        strings = _take(data, 32, strings_size)
        pos = 32 + strings_size
        size, capacity, present_words = _u("3I", data, pos)
        present = _words(data, pos + 12, present_words)
        pos += 12 + 4 * present_words
        (deleted_words,) = _u("I", data, pos)
        deleted = _words(data, pos + 4, deleted_words)
        pos += 4 + 4 * deleted_words
        if size > len(data) // 8:
            raise _fail(f"PDB name map of {size} entries does not fit")
        entries = [_u("2I", data, pos + 8 * i) for i in range(size)]
        for key, _value in entries:
            _cstr(strings, key)
        pos += 8 * size
        return cls(version, signature, age, guid, strings, size, capacity, present, deleted,
                   [(k, v) for k, v in entries], data[pos:])

    def build(self) -> bytes:
        """The stream's bytes: header, GUID, names buffer, the hash table, then ``tail``."""
        out = [struct.pack("<3I", self.version, self.signature, self.age), self.guid,
               struct.pack("<I", len(self.names_buffer)), self.names_buffer,
               struct.pack("<3I", self.size, self.capacity, len(self.present)), _pack_words(self.present),
               struct.pack("<I", len(self.deleted)), _pack_words(self.deleted)]
        out += [struct.pack("<2I", key, value) for key, value in self.entries]
        return b"".join(out) + self.tail


TPI_HEADER = struct.Struct("<5I2H6I2i")
_TPI_FIELDS = ("version", "header_size", "index_begin", "index_end", "record_bytes", "hash_stream",
               "hash_aux_stream", "hash_key_size", "hash_buckets", "hash_values_offset", "hash_values_length",
               "index_offsets_offset", "index_offsets_length", "hash_adjusters_offset", "hash_adjusters_length")


@dataclass
class TypeStream:
    """The TPI (stream 2, types) or IPI (stream 4, ids) stream: a 56-byte header and the records.

    ``index_end`` and ``record_bytes`` are derived from ``records`` when written; ``header``
    keeps the other header words by name. The first record is type ``index_begin`` (0x1000).
    """

    header: dict[str, int] = field(default_factory=dict)
    #: header bytes past the 56 the format defines (``header_size`` larger than 56)
    header_extra: bytes = b""
    records: list[CodeViewRecord] = field(default_factory=list)
    #: bytes after the records (none in fxc output)
    tail: bytes = b""
    kind: str = "types"

    @classmethod
    def parse(cls, data: bytes, kind: str = "types") -> TypeStream:
        """Read a TPI/IPI stream (``kind``: "types" or "ids") from its bytes.

        Raises ShaderFormatError when the header or a record does not fit, or type indices pass 0xFFFFFFFF.
        """
        values = dict(zip(_TPI_FIELDS, _u(TPI_HEADER.format[1:], data, 0)))
        header_size, record_bytes = values["header_size"], values["record_bytes"]
        if header_size < TPI_HEADER.size or header_size + record_bytes > len(data):
            raise _fail("type stream header does not fit its stream")
        records, _end = read_records(data, header_size, header_size + record_bytes, "type")
        if values["index_begin"] + len(records) > 0xFFFFFFFF:
            raise _fail("type indices run past 0xFFFFFFFF")
        return cls(values, data[TPI_HEADER.size : header_size], records, data[header_size + record_bytes :], kind)

    @property
    def index_begin(self) -> int:
        """The type index of the first record (header ``index_begin``, 0x1000 when absent)."""
        return self.header.get("index_begin", 0x1000)

    def record(self, type_index: int) -> CodeViewRecord | None:
        """The record of ``type_index`` (None for simple types below ``index_begin``)."""
        i = type_index - self.index_begin
        return self.records[i] if 0 <= i < len(self.records) else None

    def build(self) -> bytes:
        """The stream's bytes; ``index_end``, ``record_bytes`` and ``header_size`` are derived."""
        body = b"".join(r.build() for r in self.records)
        values = dict(self.header)
        values["index_end"] = self.index_begin + len(self.records)
        values["record_bytes"] = len(body)
        values["header_size"] = TPI_HEADER.size + len(self.header_extra)
        return TPI_HEADER.pack(*(values.get(name, 0) for name in _TPI_FIELDS)) + self.header_extra + body + self.tail


DBI_HEADER = struct.Struct("<iII6H5iI2i2HI")
_DBI_FIELDS = ("version_signature", "version", "age", "global_stream", "build_number", "public_stream",
               "pdb_dll_version", "symbol_stream", "pdb_dll_rebuild", "module_info_size",
               "section_contribution_size", "section_map_size", "source_info_size", "type_server_map_size",
               "mfc_type_server", "debug_header_size", "ec_size", "flags", "machine", "padding")
#: the substreams after the header, in stream order, with the header word that sizes each
_DBI_SUBSTREAMS = (("section_contributions", "section_contribution_size"), ("section_map", "section_map_size"),
                   ("source_info", "source_info_size"), ("type_server_map", "type_server_map_size"),
                   ("ec", "ec_size"), ("debug_header", "debug_header_size"))
MODULE_INFO = struct.Struct("<IHHiiIHHII2H3IHHIII")
_MODULE_FIELDS = ("unused1", "section", "section_padding", "section_offset", "section_size",
                  "section_characteristics", "section_module", "section_padding2", "data_crc", "reloc_crc",
                  "flags", "stream", "symbol_bytes", "c11_bytes", "c13_bytes", "source_file_count", "padding",
                  "unused2", "source_file_name_index", "pdb_file_path_index")


@dataclass
class ModuleInfo:
    """One module of the DBI module-info substream (64 fixed bytes, two names, padding to 4)."""

    values: dict[str, int] = field(default_factory=dict)
    module_name: str = ""
    object_name: str = ""
    #: the bytes after the names up to 4-alignment (zeros in fxc output)
    padding: bytes = b""

    def build(self) -> bytes:
        """The entry's bytes: 64 fixed bytes (absent fields 0), the two NUL-terminated names, ``padding``."""
        head = MODULE_INFO.pack(*(self.values.get(name, 0) for name in _MODULE_FIELDS))
        return head + self.module_name.encode("latin-1") + b"\0" + self.object_name.encode("latin-1") + b"\0" + self.padding


#: section contribution versions (LLVM's DbiStream: Ver60 entries are 28 bytes, V2 adds ``isect_coff``)
SECTION_CONTRIBUTIONS_V60, SECTION_CONTRIBUTIONS_V2 = 0xF12EBA2D, 0xF13151E4
SECTION_CONTRIBUTION = struct.Struct("<HHiiIHHII")
SECTION_MAP_ENTRY = struct.Struct("<6HII")
#: ``IMAGE_SECTION_HEADER``: name[8], virtual size/address, raw size/pointer, relocation and line pointers,
#: relocation and line counts, characteristics
SECTION_HEADER = struct.Struct("<8s6I2HI")
#: the slots of the DBI optional debug header (LLVM's ``DbgHeaderType``)
DEBUG_STREAM_SLOTS = ("fpo", "exception", "fixup", "omap_to_source", "omap_from_source", "section_headers",
                      "token_rid_map", "xdata", "pdata", "new_fpo", "original_section_headers")


@dataclass
class SectionContributions:
    """The DBI section-contribution substream: a version word and fixed-size entries."""

    version: int
    #: per entry: section, padding, offset, size, characteristics, module, padding, data CRC,
    #: relocation CRC (and ``isect_coff`` for V2)
    entries: list[tuple[int, ...]] = field(default_factory=list)
    tail: bytes = b""

    @classmethod
    def parse(cls, data: bytes) -> SectionContributions:
        """Read the substream from its bytes (a partial last entry stays ``tail``).

        Raises ShaderFormatError when it is shorter than its 4-byte version.
        """
        (version,) = _u("I", data, 0)
        fmt = SECTION_CONTRIBUTION.format[1:] + ("I" if version == SECTION_CONTRIBUTIONS_V2 else "")
        size = struct.calcsize("<" + fmt)
        count = (len(data) - 4) // size
        entries = [_u(fmt, data, 4 + size * i) for i in range(count)]
        return cls(version, entries, data[4 + size * count :])

    def build(self) -> bytes:
        """The substream's bytes: the version word, each entry (28 or 32 bytes), ``tail``."""
        return struct.pack("<I", self.version) + b"".join(
            struct.pack("<" + SECTION_CONTRIBUTION.format[1:] + "I" * (len(e) - 9), *e) for e in self.entries
        ) + self.tail


@dataclass
class SectionMap:
    """The DBI section map: ``u16 count, u16 logical count`` then 20-byte entries
    (flags, overlay, group, frame, section name, class name, offset, length)."""

    count: int = 0
    logical_count: int = 0
    entries: list[tuple[int, ...]] = field(default_factory=list)
    tail: bytes = b""

    @classmethod
    def parse(cls, data: bytes) -> SectionMap:
        """Read the section map from its bytes: up to ``count`` entries that fit, the rest as ``tail``.

        Raises ShaderFormatError when it is shorter than its 4-byte counts.
        """
        count, logical = _u("2H", data, 0)
        n = min(count, (len(data) - 4) // SECTION_MAP_ENTRY.size)
        entries = [_u(SECTION_MAP_ENTRY.format[1:], data, 4 + SECTION_MAP_ENTRY.size * i) for i in range(n)]
        return cls(count, logical, entries, data[4 + SECTION_MAP_ENTRY.size * n :])

    def build(self) -> bytes:
        """The section map's bytes: the stored counts, the 20-byte entries, ``tail``."""
        return struct.pack("<2H", self.count, self.logical_count) + b"".join(
            SECTION_MAP_ENTRY.pack(*e) for e in self.entries) + self.tail


@dataclass
class FileInfo:
    """The DBI file-info substream: per module a file count, then name offsets and the names buffer.

    ``source_file_count`` is the stored u16 (it wraps for large programs; the real count is the sum
    of ``file_counts``). ``names`` is the buffer after the offsets, padding included.
    """

    source_file_count: int = 0
    module_indices: list[int] = field(default_factory=list)
    file_counts: list[int] = field(default_factory=list)
    name_offsets: list[int] = field(default_factory=list)
    names: bytes = b""

    @classmethod
    def parse(cls, data: bytes) -> FileInfo:
        """Read the file-info substream from its bytes.

        Raises ShaderFormatError when its counts or name offsets do not fit.
        """
        modules, files = _u("2H", data, 0)
        indices = list(_u(f"{modules}H", data, 4))
        counts = list(_u(f"{modules}H", data, 4 + 2 * modules))
        total = sum(counts)
        at = 4 + 4 * modules
        if 4 * total > len(data) - at:
            raise _fail(f"file info of {total} files does not fit")
        offsets = list(_u(f"{total}I", data, at))
        return cls(files, indices, counts, offsets, data[at + 4 * total :])

    def file_names(self) -> list[str]:
        """Each file entry's name, in order ("" for an offset past ``names``).

        Raises ShaderFormatError on an unterminated name.
        """
        return [_cstr(self.names, o)[0] if o < len(self.names) else "" for o in self.name_offsets]

    def build(self) -> bytes:
        """The substream's bytes; the module count is derived from ``module_indices``."""
        n = len(self.module_indices)
        return (struct.pack(f"<2H{n}H{n}H", n, self.source_file_count, *self.module_indices, *self.file_counts)
                + _pack_words(self.name_offsets) + self.names)


@dataclass
class DebugHeader:
    """The DBI optional debug header: u16 stream indices (0xFFFF: none), see :data:`DEBUG_STREAM_SLOTS`."""

    streams: list[int] = field(default_factory=list)
    tail: bytes = b""

    @classmethod
    def parse(cls, data: bytes) -> DebugHeader:
        """Read the u16 stream indices from the substream's bytes (an odd last byte stays ``tail``)."""
        n = len(data) // 2
        return cls(list(_u(f"{n}H", data, 0)), data[2 * n :])

    def stream(self, slot: str) -> int | None:
        """The stream index of ``slot`` (a :data:`DEBUG_STREAM_SLOTS` name), None when absent.

        Raises ValueError for a name not in :data:`DEBUG_STREAM_SLOTS`.
        """
        i = DEBUG_STREAM_SLOTS.index(slot)
        return self.streams[i] if i < len(self.streams) and self.streams[i] != 0xFFFF else None

    def build(self) -> bytes:
        """The substream's bytes: the u16 stream indices, then ``tail``."""
        return struct.pack(f"<{len(self.streams)}H", *self.streams) + self.tail


@dataclass
class SectionHeaders:
    """The section-header stream the debug header names: ``IMAGE_SECTION_HEADER`` rows (fxc: one
    ``D3DSHDR`` section whose virtual size is the program's size)."""

    sections: list[tuple[Any, ...]] = field(default_factory=list)
    tail: bytes = b""
    kind: str = "sections"

    @classmethod
    def parse(cls, data: bytes) -> SectionHeaders:
        """Read the 40-byte section headers from the stream's bytes (a partial last row stays ``tail``)."""
        n = len(data) // SECTION_HEADER.size
        rows = [_u(SECTION_HEADER.format[1:], data, SECTION_HEADER.size * i) for i in range(n)]
        return cls(rows, data[SECTION_HEADER.size * n :])

    def names(self) -> list[str]:
        """Each section's name (``D3DSHDR`` for fxc), NUL padding stripped."""
        return [bytes(row[0]).rstrip(b"\0").decode("latin-1") for row in self.sections]

    def build(self) -> bytes:
        """The stream's bytes: each header row packed, then ``tail``."""
        return b"".join(SECTION_HEADER.pack(*row) for row in self.sections) + self.tail


#: typed DBI substreams (each kept as bytes when it does not write back exactly)
_SUBSTREAM_TYPES: dict[str, Any] = {
    "section_contributions": SectionContributions.parse, "section_map": SectionMap.parse,
    "source_info": FileInfo.parse, "ec": lambda d: NamesTable.parse(d), "debug_header": DebugHeader.parse,
}


def _substream(name: str, data: bytes) -> Any:
    parse = _SUBSTREAM_TYPES.get(name)
    if parse is None or not data:
        return data
    try:
        model = parse(data)
        exact = model.build() == data
    except (ShaderFormatError, struct.error):
        return data
    return model if exact else data


def _substream_bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else bytes(value.build())


@dataclass
class DbiStream:
    """The DBI stream (stream 3): header, modules, then the substreams.

    Substreams are typed (:class:`SectionContributions`, :class:`SectionMap`, :class:`FileInfo`,
    the EC names table, :class:`DebugHeader`) when they write back exactly, else kept as bytes;
    the type-server map stays bytes. Substream sizes are derived when written.
    """

    header: dict[str, int] = field(default_factory=dict)
    modules: list[ModuleInfo] = field(default_factory=list)
    substreams: dict[str, Any] = field(default_factory=dict)
    tail: bytes = b""
    kind: str = "dbi"

    @classmethod
    def parse(cls, data: bytes) -> DbiStream:
        """Read the DBI stream from its bytes (substreams typed when they write back exactly).

        Raises ShaderFormatError when its header, module info or a substream is damaged or does not fit.
        """
        values = dict(zip(_DBI_FIELDS, _u(DBI_HEADER.format[1:], data, 0)))
        pos = DBI_HEADER.size
        size = values["module_info_size"]
        if size < 0 or pos + size > len(data):
            raise _fail("DBI module info does not fit its stream", 24)
        modules = _modules(data[pos : pos + size])
        pos += size
        substreams = {}
        for name, key in _DBI_SUBSTREAMS:
            size = values[key]
            if size < 0 or pos + size > len(data):
                raise _fail(f"DBI {name} substream does not fit its stream")
            substreams[name] = _substream(name, data[pos : pos + size])
            pos += size
        return cls(values, modules, substreams, data[pos:])

    @property
    def debug_header(self) -> DebugHeader | None:
        """The optional debug header substream when it is typed, else None."""
        value = self.substreams.get("debug_header")
        return value if isinstance(value, DebugHeader) else None

    def source_files(self) -> list[str]:
        """The file names of the file-info substream (LLVM's "File Info Substream")."""
        value = self.substreams.get("source_info")
        return value.file_names() if isinstance(value, FileInfo) else []

    def build(self) -> bytes:
        """The stream's bytes; the module-info and substream sizes are derived from the parts."""
        modules = b"".join(m.build() for m in self.modules)
        values = dict(self.header)
        values["module_info_size"] = len(modules)
        parts = [_substream_bytes(self.substreams.get(name, b"")) for name, _key in _DBI_SUBSTREAMS]
        for (_name, key), part in zip(_DBI_SUBSTREAMS, parts):
            values[key] = len(part)
        head = DBI_HEADER.pack(*(values.get(name, 0) for name in _DBI_FIELDS))
        return head + modules + b"".join(parts) + self.tail


def _modules(data: bytes) -> list[ModuleInfo]:
    modules = []
    pos = 0
    while pos < len(data):
        values = dict(zip(_MODULE_FIELDS, _u(MODULE_INFO.format[1:], data, pos)))
        name, after = _cstr(data, pos + MODULE_INFO.size)
        obj, after = _cstr(data, after)
        stop = min(-(-after // 4) * 4, len(data))
        modules.append(ModuleInfo(values, name, obj, data[after:stop]))
        pos = stop
    return modules


#: C13 subsection kinds (``DEBUG_S_*`` of cvinfo.h)
DEBUG_S_LINES, DEBUG_S_STRINGTABLE, DEBUG_S_FILECHKSMS, DEBUG_S_INLINEELINES = 0xF2, 0xF3, 0xF4, 0xF6
SUBSECTION_NAMES = {0xF1: "DEBUG_S_SYMBOLS", 0xF2: "DEBUG_S_LINES", 0xF3: "DEBUG_S_STRINGTABLE",
                    0xF4: "DEBUG_S_FILECHKSMS", 0xF5: "DEBUG_S_FRAMEDATA", 0xF6: "DEBUG_S_INLINEELINES",
                    0xF7: "DEBUG_S_CROSSSCOPEIMPORTS", 0xF8: "DEBUG_S_CROSSSCOPEEXPORTS"}


@dataclass
class LineBlock:
    """One file's lines in a ``DEBUG_S_LINES`` subsection: ``(code offset, line bits)`` and columns."""

    file_id: int
    #: (offset into the program, u32 of line start:24, delta:7, is_statement:1)
    lines: list[tuple[int, int]] = field(default_factory=list)
    #: (start column, end column) per line when the subsection has columns
    columns: list[tuple[int, int]] = field(default_factory=list)

    def rows(self) -> list[tuple[int, int]]:
        """(code offset, line number) per entry."""
        return [(offset, bits & 0xFFFFFF) for offset, bits in self.lines]


@dataclass
class C13Subsection:
    """One C13 subsection: ``u32 kind, u32 size``, data, padding to 4.

    Typed for ``DEBUG_S_LINES`` (``code_offset, segment, flags, code_size`` + :class:`LineBlock`)
    and ``DEBUG_S_FILECHKSMS`` (``files``: name offset, checksum kind, checksum bytes); any other
    kind (string tables, inlinee lines...) keeps its ``data``.
    """

    kind: int
    data: bytes = b""
    padding: bytes = b""
    code_offset: int = 0
    segment: int = 0
    flags: int = 0
    code_size: int = 0
    blocks: list[LineBlock] | None = None
    #: DEBUG_S_FILECHKSMS: (offset of the entry, name offset, checksum kind, checksum, padding)
    files: list[tuple[int, int, int, bytes, bytes]] | None = None

    @property
    def name(self) -> str:
        """The ``DEBUG_S_*`` name of ``kind``, or ``0x`` + hex for an unknown kind."""
        return SUBSECTION_NAMES.get(self.kind, f"0x{self.kind:x}")

    def body(self) -> bytes:
        """The subsection's data: the typed lines or file checksums encoded, else ``data``."""
        if self.blocks is not None:
            out = [struct.pack("<IHHI", self.code_offset, self.segment, self.flags, self.code_size)]
            for block in self.blocks:
                size = 12 + 8 * len(block.lines) + (4 * len(block.columns) if self.flags & 1 else 0)
                out.append(struct.pack("<3I", block.file_id, len(block.lines), size))
                out += [struct.pack("<2I", *line) for line in block.lines]
                if self.flags & 1:
                    out += [struct.pack("<2H", *col) for col in block.columns]
            return b"".join(out)
        if self.files is not None:
            return b"".join(struct.pack("<I2B", name, len(checksum), kind) + checksum + pad
                            for _at, name, kind, checksum, pad in self.files)
        return self.data

    def build(self) -> bytes:
        """``u32 kind``, ``u32 size`` (of the body), the body, then ``padding``."""
        body = self.body()
        return struct.pack("<2I", self.kind, len(body)) + body + self.padding

    @classmethod
    def parse(cls, kind: int, data: bytes, padding: bytes) -> C13Subsection:
        """Type the data when it writes back exactly, else keep it as bytes (never raises)."""
        sub = cls(kind, data, padding)
        try:
            if kind == DEBUG_S_LINES:
                sub._lines(data)
            elif kind == DEBUG_S_FILECHKSMS:
                sub._files(data)
        except ShaderFormatError:
            sub.blocks = sub.files = None
        if sub.body() != data:
            sub.blocks = sub.files = None
        return sub

    def _lines(self, data: bytes) -> None:
        self.code_offset, self.segment, self.flags, self.code_size = _u("IHHI", data, 0)
        blocks = []
        pos = 12
        while pos < len(data):
            file_id, count, size = _u("3I", data, pos)
            if count > len(data) // 8:
                raise _fail(f"line block of {count} entries does not fit")
            lines = [_u("2I", data, pos + 12 + 8 * i) for i in range(count)]
            at = pos + 12 + 8 * count
            columns = [_u("2H", data, at + 4 * i) for i in range(count)] if self.flags & 1 else []
            blocks.append(LineBlock(file_id, [(a, b) for a, b in lines], [(a, b) for a, b in columns]))
            pos += max(size, 12)
        self.blocks = blocks

    def _files(self, data: bytes) -> None:
        files = []
        pos = 0
        while pos < len(data):
            name, size, kind = _u("I2B", data, pos)
            checksum = _take(data, pos + 6, size)
            end = pos + 6 + size
            stop = min(-(-end // 4) * 4, len(data))
            files.append((pos, name, kind, checksum, data[end:stop]))
            pos = stop
        self.files = files


@dataclass
class ModuleStream:
    """A module's symbol stream: CodeView signature, symbols, C11 lines (bytes), C13 subsections, global refs."""

    signature: int = 4
    symbols: list[CodeViewRecord] = field(default_factory=list)
    #: bytes between the last symbol and the declared symbol size (none in fxc output)
    symbols_tail: bytes = b""
    c11: bytes = b""
    subsections: list[C13Subsection] = field(default_factory=list)
    #: the global-refs part after the C13 lines (``u32 size`` + offsets), as bytes
    tail: bytes = b""
    kind: str = "module"
    #: the DBI module whose sizes this stream was read with (its sizes follow the stream's)
    module: ModuleInfo | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, data: bytes, module: ModuleInfo) -> ModuleStream:
        """Read a module stream with the symbol, C11 and C13 sizes that ``module`` records.

        Raises ShaderFormatError when those sizes, a symbol or a C13 subsection do not fit.
        """
        symbol_bytes = module.values.get("symbol_bytes", 0)
        c11_bytes = module.values.get("c11_bytes", 0)
        c13_bytes = module.values.get("c13_bytes", 0)
        if symbol_bytes < 4 or symbol_bytes + c11_bytes + c13_bytes > len(data):
            raise _fail("module symbol, C11 and C13 sizes do not fit the module stream")
        (signature,) = _u("I", data, 0)
        symbols, end = read_records(data, 4, symbol_bytes, "symbol")
        stream = cls(signature, symbols, data[end:symbol_bytes], _take(data, symbol_bytes, c11_bytes), module=module)
        pos = symbol_bytes + c11_bytes
        stop = pos + c13_bytes
        while pos < stop:
            kind, size = _u("2I", data, pos)
            if size > stop - pos - 8:
                raise _fail(f"C13 subsection of {size} bytes does not fit", pos)
            padded = min(stop, pos + 8 + -(-size // 4) * 4)
            stream.subsections.append(C13Subsection.parse(kind, data[pos + 8 : pos + 8 + size],
                                                          data[pos + 8 + size : padded]))
            pos = padded
        stream.tail = data[stop:]
        return stream

    def _pieces(self) -> tuple[bytes, bytes]:
        symbols = struct.pack("<I", self.signature) + b"".join(s.build() for s in self.symbols) + self.symbols_tail
        return symbols, b"".join(s.build() for s in self.subsections)

    def build(self) -> bytes:
        """The stream's bytes: signature, symbols, C11 bytes, C13 subsections, ``tail``."""
        return self.build_with_sizes()[0]

    def build_with_sizes(self) -> tuple[bytes, tuple[int, int, int]]:
        """The stream and the symbol, C11 and C13 byte sizes the module info must carry."""
        symbols, lines = self._pieces()
        return symbols + self.c11 + lines + self.tail, (len(symbols), len(self.c11), len(lines))

    def sizes(self) -> tuple[int, int, int]:
        """The symbol, C11 and C13 byte sizes the module info must carry."""
        return self.build_with_sizes()[1]

    def file_names(self, names: NamesTable | None) -> dict[int, str]:
        """File checksum entry offset -> file name (through the /names string table)."""
        out: dict[int, str] = {}
        for sub in self.subsections:
            for at, name, _kind, _checksum, _pad in sub.files or []:
                out[at] = names.string(name) if names is not None else ""
        return out

    def inlinee_lines(self) -> dict[int, tuple[int, int]]:
        """``DEBUG_S_INLINEELINES``: inlinee (function id) -> (file checksum offset, first line)."""
        out: dict[int, tuple[int, int]] = {}
        for sub in self.subsections:
            if sub.kind != DEBUG_S_INLINEELINES or len(sub.data) < 4:
                continue
            data = sub.data
            extended = struct.unpack_from("<I", data)[0] == 1  # ..._SIGNATURE_EX: extra files follow
            at = 4
            while at + 12 <= len(data):
                inlinee, file_id, line = struct.unpack_from("<3I", data, at)
                at += 12
                if extended:
                    if at + 4 > len(data):
                        raise _fail(f"DEBUG_S_INLINEELINES: entry at {at - 12} is cut short")
                    at += 4 + 4 * struct.unpack_from("<I", data, at)[0]
                out[inlinee] = (file_id, line)
        return out


@dataclass
class SymbolStream:
    """The global symbol record stream (DBI ``symbol_stream``): ``S_PROCREF``, ``S_GDATA_HLSL``..."""

    records: list[CodeViewRecord] = field(default_factory=list)
    tail: bytes = b""
    kind: str = "symbols"

    @classmethod
    def parse(cls, data: bytes) -> SymbolStream:
        """Read the global symbol records from the stream's bytes.

        Raises ShaderFormatError when a record does not fit.
        """
        records, end = read_records(data, 0, len(data), "symbol")
        return cls(records, data[end:])

    def build(self) -> bytes:
        """The stream's bytes: each record, then ``tail``."""
        return b"".join(r.build() for r in self.records) + self.tail


NAMES_SIGNATURE = 0xEFFEEFFE


@dataclass
class NamesTable:
    """``/names``: ``u32 0xEFFEEFFE``, hash version, the string buffer, the hash buckets, the name count."""

    hash_version: int = 1
    buffer: bytes = b""
    buckets: list[int] = field(default_factory=list)
    name_count: int = 0
    tail: bytes = b""
    signature: int = NAMES_SIGNATURE
    kind: str = "names"

    @classmethod
    def parse(cls, data: bytes) -> NamesTable:
        """Read ``/names`` from its bytes.

        Raises ShaderFormatError without the 0xEFFEEFFE signature or when a part does not fit.
        """
        signature, version, size = _u("3I", data, 0)
        if signature != NAMES_SIGNATURE:
            raise _fail("/names has no 0xEFFEEFFE signature")
        buffer = _take(data, 12, size)
        (count,) = _u("I", data, 12 + size)
        buckets = _words(data, 16 + size, count)
        pos = 16 + size + 4 * count
        (names,) = _u("I", data, pos)
        return cls(version, buffer, buckets, names, data[pos + 4 :], signature)

    def string(self, offset: int) -> str:
        """The string at byte ``offset`` of ``buffer`` ("" outside it).

        Raises ShaderFormatError when it is unterminated.
        """
        return _cstr(self.buffer, offset)[0] if 0 <= offset < len(self.buffer) else ""

    def build(self) -> bytes:
        """The stream's bytes; the buffer size and bucket count are derived."""
        return (struct.pack("<3I", self.signature, self.hash_version, len(self.buffer)) + self.buffer
                + struct.pack("<I", len(self.buckets)) + _pack_words(self.buckets)
                + struct.pack("<I", self.name_count) + self.tail)


@dataclass
class SourceFile:
    """A ``/src/files/<path>`` stream: fxc embeds each source file's text."""

    path: str
    data: bytes = b""
    kind: str = "source"

    @property
    def text(self) -> str:
        """The source as text (UTF-8, undecodable bytes replaced)."""
        return self.data.decode("utf-8", "replace")

    def build(self) -> bytes:
        """The stream's bytes: the source as stored."""
        return self.data


GSI_SIGNATURE, GSI_VERSION = 0xFFFFFFFF, 0xF12F091A
#: u32 words of a GSI hash bucket bitmap: IPHR_HASH (4096) + 1 buckets, one bit each
GSI_BITMAP_WORDS = (4096 + 1 + 31) // 32
PUBLICS_HEADER = struct.Struct("<4I2H2I")


@dataclass
class GlobalHash:
    """A GSI hash table (LLVM's "Globals/Publics hash"): ``u32 signature, version, records size,
    buckets size``, hash records ``(symbol offset + 1, reference count)``, the bucket bitmap and
    the offsets of the non-empty buckets."""

    signature: int = GSI_SIGNATURE
    version: int = GSI_VERSION
    records: list[tuple[int, int]] = field(default_factory=list)
    bitmap: list[int] = field(default_factory=list)
    buckets: list[int] = field(default_factory=list)

    @classmethod
    def read(cls, data: bytes, pos: int = 0) -> tuple[GlobalHash, int]:
        """The GSI hash table at byte ``pos`` of ``data`` and the offset just past it.

        Raises ShaderFormatError on a wrong signature or version, misaligned sizes, or an overrun.
        """
        signature, version, records_size, buckets_size = _u("4I", data, pos)
        if signature != GSI_SIGNATURE or version != GSI_VERSION or records_size % 8 or buckets_size % 4:
            raise _fail("not a GSI hash table", pos)
        pos += 16
        records = [_u("2I", data, pos + 8 * i) for i in range(_fits(data, pos, records_size) // 8)]
        pos += records_size
        words = _words(data, pos, _fits(data, pos, buckets_size) // 4)
        bitmap = words[:GSI_BITMAP_WORDS] if buckets_size else []
        return cls(signature, version, [(a, b) for a, b in records], bitmap, words[len(bitmap) :]), pos + buckets_size

    def build(self) -> bytes:
        """The table's bytes: the 16-byte header (sizes derived), hash records, bitmap, buckets."""
        records = b"".join(struct.pack("<2I", *r) for r in self.records)
        buckets = _pack_words(self.bitmap + self.buckets)
        return struct.pack("<4I", self.signature, self.version, len(records), len(buckets)) + records + buckets


@dataclass
class GlobalsStream:
    """The globals stream (DBI ``global_stream``): one GSI hash table over the symbol record stream."""

    table: GlobalHash = field(default_factory=GlobalHash)
    tail: bytes = b""
    kind: str = "globals"

    @classmethod
    def parse(cls, data: bytes) -> GlobalsStream:
        """Read the globals stream from its bytes.

        Raises ShaderFormatError when its hash table is damaged.
        """
        table, end = GlobalHash.read(data)
        return cls(table, data[end:])

    def build(self) -> bytes:
        """The stream's bytes: the hash table, then ``tail``."""
        return self.table.build() + self.tail


@dataclass
class PublicsStream:
    """The publics stream (DBI ``public_stream``): a 28-byte header (hash size, address-map size,
    thunk count and size, thunk table section and offset, section count), the GSI hash table, the
    address map, the thunk map and the section offsets (those three as u32 words)."""

    thunk_count: int = 0
    thunk_size: int = 0
    thunk_section: int = 0
    padding: int = 0
    thunk_table_offset: int = 0
    section_count: int = 0
    table: GlobalHash = field(default_factory=GlobalHash)
    address_map: list[int] = field(default_factory=list)
    #: the thunk map and section offsets after the address map, as stored
    tail: bytes = b""
    kind: str = "publics"

    @classmethod
    def parse(cls, data: bytes) -> PublicsStream:
        """Read the publics stream from its bytes.

        Raises ShaderFormatError when its header, hash table or address map is damaged.
        """
        hash_size, map_size, thunks, thunk_size, section, padding, thunk_offset, sections = _u(
            PUBLICS_HEADER.format[1:], data, 0)
        table, end = GlobalHash.read(data, PUBLICS_HEADER.size)
        if end != PUBLICS_HEADER.size + hash_size or map_size % 4:
            raise _fail("publics hash size does not match its table")
        address_map = _words(data, end, _fits(data, end, map_size) // 4)
        return cls(thunks, thunk_size, section, padding, thunk_offset, sections, table, address_map,
                   data[end + map_size :])

    def build(self) -> bytes:
        """The stream's bytes; the hash and address-map sizes in the header are derived."""
        table = self.table.build()
        head = PUBLICS_HEADER.pack(len(table), 4 * len(self.address_map), self.thunk_count, self.thunk_size,
                                   self.thunk_section, self.padding, self.thunk_table_offset, self.section_count)
        return head + table + _pack_words(self.address_map) + self.tail


@dataclass
class TypeHashes:
    """The TPI/IPI hash stream: a hash value per type record, ``(type index, offset)`` pairs for
    seeking, and the hash adjusters, laid out in that order as the type stream's header says."""

    hash_values: list[int] = field(default_factory=list)
    index_offsets: list[tuple[int, int]] = field(default_factory=list)
    adjusters: bytes = b""
    tail: bytes = b""
    kind: str = "type_hashes"

    @classmethod
    def parse(cls, data: bytes, header: dict[str, int]) -> TypeHashes:
        """Read the hash stream where ``header`` (the TPI/IPI header's words) places its parts.

        Raises ShaderFormatError unless they lie values, offsets, adjusters in that order within the stream.
        """
        values_at, values_len = header.get("hash_values_offset", -1), header.get("hash_values_length", -1)
        offsets_at, offsets_len = header.get("index_offsets_offset", -1), header.get("index_offsets_length", -1)
        adjust_at, adjust_len = header.get("hash_adjusters_offset", -1), header.get("hash_adjusters_length", -1)
        if (values_at != 0 or offsets_at != values_len or adjust_at != offsets_at + offsets_len
                or header.get("hash_key_size") != 4 or values_len % 4 or offsets_len % 8
                or min(values_len, offsets_len, adjust_len) < 0 or adjust_at + adjust_len > len(data)):
            raise _fail("type hash stream is not laid out values, offsets, adjusters")
        values = _words(data, 0, values_len // 4)
        pairs = _words(data, offsets_at, offsets_len // 4)
        return cls(values, list(zip(pairs[::2], pairs[1::2])), data[adjust_at : adjust_at + adjust_len],
                   data[adjust_at + adjust_len :])

    def build(self) -> bytes:
        """The stream's bytes: hash values, (type index, offset) pairs, adjusters, ``tail``."""
        pairs = [word for pair in self.index_offsets for word in pair]
        return _pack_words(self.hash_values) + _pack_words(pairs) + self.adjusters + self.tail


def _fits(data: bytes, pos: int, size: int) -> int:
    if size < 0 or pos + size > len(data):
        raise _fail(f"{size} bytes at {pos:#x} run past {len(data)} bytes", pos)
    return size


StreamContent = (RawStream | PdbInfo | TypeStream | DbiStream | ModuleStream | SymbolStream | NamesTable | SourceFile
                 | SectionHeaders | GlobalsStream | PublicsStream | TypeHashes)


def _take(data: bytes, offset: int, size: int) -> bytes:
    if offset < 0 or size < 0 or offset + size > len(data):
        raise _fail(f"{size} bytes at {offset:#x} run past {len(data)} bytes", offset)
    return data[offset : offset + size]


def _words(data: bytes, offset: int, count: int) -> list[int]:
    if count > len(data) // 4:
        raise _fail(f"{count} words do not fit {len(data)} bytes", offset)
    return list(_u(f"{count}I", data, offset))


def _pack_words(words: list[int]) -> bytes:
    return struct.pack(f"<{len(words)}I", *words)


def _typed(data: bytes, parse: Any) -> StreamContent:
    """``parse(data)`` when it writes ``data`` back exactly, else the bytes as a raw stream."""
    try:
        model: StreamContent = parse(data)
        exact = model.build() == data
    except (ShaderFormatError, struct.error):  # struct.error: a derived field the format cannot hold
        return RawStream(data)
    return model if exact else RawStream(data)


@dataclass
class ProgramDatabase:
    """The SPDB chunk: an MSF 7.00 file holding fxc's PDB."""

    block_size: int = 512
    free_block_map: int = 1
    block_count: int = 0
    directory_size: int = 0
    unknown: int = 0
    block_map_addr: int = 0
    #: pages of the stream directory (listed in the page at ``block_map_addr``)
    directory_blocks: list[int] = field(default_factory=list)
    streams: list[MsfStream] = field(default_factory=list)
    #: the whole file as stored: the free page maps, unused pages and page slack stay as they are
    pages: bytes = b""
    fourcc: str = "SPDB"
    #: each stream's typed content (by stream index; written back into the stream's pages)
    contents: list[StreamContent] = field(default_factory=list)

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when ``r`` starts with the MSF 7.00 magic (cursor unmoved)."""
        return r.peek(len(MSF_MAGIC)) == MSF_MAGIC

    @classmethod
    def from_bytes(cls, data: bytes) -> ProgramDatabase:
        """The model of a bare SPDB payload (errors: context ``SPDB``, payload offsets)."""
        return cls.parse(Reader(bytes(data), context="SPDB"))

    @classmethod
    def parse(cls, r: Reader) -> ProgramDatabase:
        """Parse the payload filling ``r`` (bounds-checked; errors carry the input offset)."""
        base = r.tell()
        data = r.read(r.remaining, "SPDB payload")
        try:
            return cls._parse(data)
        except ShaderFormatError as exc:
            raise r.error(exc.message, base + (exc.offset or 0)) from None

    @classmethod
    def _parse(cls, data: bytes) -> ProgramDatabase:
        if not data.startswith(MSF_MAGIC):
            raise _fail("SPDB is not an MSF 7.00 file")
        block, fpm, blocks, dir_bytes, unknown, map_addr = _u("6I", data, 32)
        if block not in BLOCK_SIZES or blocks * block > len(data) or dir_bytes > len(data):
            raise _fail("MSF header does not fit the chunk", 32)
        dir_count = -(-dir_bytes // block)
        dir_pages = list(_u(f"{dir_count}I", data, map_addr * block))
        model = cls(block, fpm, blocks, dir_bytes, unknown, map_addr, dir_pages, [], data)
        directory = model._read(dir_pages, dir_bytes)
        (count,) = _u("I", directory, 0)
        if count > MAX_STREAMS or 4 + 4 * count > len(directory):
            raise _fail(f"MSF stream count {count} does not fit the directory")
        sizes = _u(f"{count}I", directory, 4)
        pos = 4 + 4 * count
        for size in sizes:
            length = 0 if size == NIL_STREAM else size
            if length > len(data):
                raise _fail(f"MSF stream of {length} bytes is larger than the file")
            n = -(-length // block)
            pages = list(_u(f"{n}I", directory, pos))
            if any(i >= blocks for i in pages):
                raise _fail("MSF block index out of range", 0)
            model.streams.append(MsfStream(size, pages))
            pos += 4 * n
        model.contents = model._read_contents()
        return model

    def _read_contents(self) -> list[StreamContent]:
        """Every stream typed by its role (info, types, DBI, modules, symbols, /names, sources)."""
        raw = [self.stream(i) for i in range(len(self.streams))]
        contents: list[StreamContent] = [RawStream(d) for d in raw]
        if len(raw) > 1:
            contents[1] = _typed(raw[1], PdbInfo.parse)
        for index, kind in ((2, "types"), (4, "ids")):
            if len(raw) > index and raw[index]:
                contents[index] = _typed(raw[index], lambda d, k=kind: TypeStream.parse(d, k))
        for index in (2, 4):
            types = contents[index] if index < len(contents) else None
            if isinstance(types, TypeStream):
                at = types.header.get("hash_stream", 0xFFFF)
                if 4 < at < len(raw) and isinstance(contents[at], RawStream):
                    contents[at] = _typed(raw[at], lambda d, h=types.header: TypeHashes.parse(d, h))
        dbi = _typed(raw[3], DbiStream.parse) if len(raw) > 3 else None
        if isinstance(dbi, DbiStream):
            contents[3] = dbi
            for module in dbi.modules:
                index = module.values.get("stream", NIL_STREAM & 0xFFFF)
                if 4 < index < len(raw) and isinstance(contents[index], RawStream):
                    contents[index] = _typed(raw[index], lambda d, m=module: ModuleStream.parse(d, m))
            index = dbi.header.get("symbol_stream", 0xFFFF)
            if 4 < index < len(raw) and isinstance(contents[index], RawStream):
                contents[index] = _typed(raw[index], SymbolStream.parse)
            for key, parse in (("global_stream", GlobalsStream.parse), ("public_stream", PublicsStream.parse)):
                index = dbi.header.get(key, 0xFFFF)
                if 4 < index < len(raw) and isinstance(contents[index], RawStream):
                    contents[index] = _typed(raw[index], parse)
            debug = dbi.debug_header
            headers = debug.stream("section_headers") if debug is not None else None
            if headers is not None and 4 < headers < len(raw) and isinstance(contents[headers], RawStream):
                contents[headers] = _typed(raw[headers], SectionHeaders.parse)
        info = contents[1] if len(contents) > 1 else None
        if isinstance(info, PdbInfo):
            for name, index in info.named_streams.items():
                if not (4 < index < len(raw)) or not isinstance(contents[index], RawStream):
                    continue
                if name == "/names":
                    contents[index] = _typed(raw[index], NamesTable.parse)
                elif name.startswith(SOURCE_PREFIX):
                    contents[index] = SourceFile(name[len(SOURCE_PREFIX) :], raw[index])
        return contents

    def _read(self, indices: list[int], size: int) -> bytes:
        block = self.block_size
        if any(i >= self.block_count for i in indices):
            raise _fail("MSF block index out of range", 0)
        return b"".join(self.pages[i * block : (i + 1) * block] for i in indices)[:size]

    # -- writing -----------------------------------------------------------------------------
    def _stream_bytes(self) -> list[bytes | None]:
        """Each stream's bytes as its model writes them (None: the pages as stored).

        The DBI's per-module symbol, C11 and C13 sizes are derived from the module streams first.
        """
        built: dict[int, bytes] = {}
        for module, stream in self.modules():
            data, (symbols, c11, c13) = stream.build_with_sizes()
            module.values.update(symbol_bytes=symbols, c11_bytes=c11, c13_bytes=c13)
            built[id(stream)] = data
        return [built.get(id(self.contents[i])) or self.contents[i].build() if i < len(self.contents) else None
                for i in range(len(self.streams))]

    def _sizes(self, data: list[bytes | None]) -> list[int]:
        sizes = []
        for stream, content in zip(self.streams, data):
            if content is None or len(content) == stream.length:
                sizes.append(stream.size)
            else:
                sizes.append(len(content))
        return sizes

    def directory(self, data: list[bytes | None] | None = None) -> bytes:
        """The stream directory as :meth:`build` writes it (``data``: the streams' bytes, if built)."""
        sizes = self._sizes(self._stream_bytes() if data is None else data)
        out = [struct.pack(f"<{len(sizes) + 1}I", len(sizes), *sizes)]
        out.extend(struct.pack(f"<{len(s.blocks)}I", *s.blocks) for s in self.streams)
        return b"".join(out)

    def build(self) -> bytes:
        """The SPDB payload: each stream written into its own pages, then directory and superblock.

        Raises UnsupportedOperation when a stream or the directory outgrows its pages.
        """
        block = self.block_size
        out = bytearray(self.pages)
        data = self._stream_bytes()
        for index, (stream, content) in enumerate(zip(self.streams, data)):
            if content is None:
                continue
            if -(-len(content) // block) > len(stream.blocks):
                raise UnsupportedOperation(
                    f"SPDB: stream {index} grew to {len(content)} bytes, more than its {len(stream.blocks)} pages")
            for i, page in enumerate(stream.blocks):
                piece = content[i * block : (i + 1) * block]
                if page * block + len(piece) > len(out):
                    raise UnsupportedOperation(f"SPDB: page {page} of stream {index} lies past the file")
                out[page * block : page * block + len(piece)] = piece
        directory = self.directory(data)
        size = max(self.directory_size, len(directory))
        if size > block * len(self.directory_blocks):
            raise UnsupportedOperation(
                f"SPDB: a {size}-byte stream directory does not fit its {len(self.directory_blocks)} pages")
        SUPERBLOCK.pack_into(out, 0, MSF_MAGIC, block, self.free_block_map, self.block_count, size,
                             self.unknown, self.block_map_addr)
        struct.pack_into(f"<{len(self.directory_blocks)}I", out, self.block_map_addr * block, *self.directory_blocks)
        for i, page in enumerate(self.directory_blocks):
            piece = directory[i * block : (i + 1) * block]
            out[page * block : page * block + len(piece)] = piece
        return bytes(out)

    # -- reading streams ---------------------------------------------------------------------
    def stream(self, index: int) -> bytes:
        """The bytes of stream ``index`` as stored (empty for a nil stream)."""
        if not 0 <= index < len(self.streams):
            raise _fail(f"PDB has no stream {index} ({len(self.streams)} streams)")
        s = self.streams[index]
        return self._read(s.blocks, s.length)

    def info(self) -> PdbInfo:
        """The PDB info stream: version, signature, age, GUID and the named streams."""
        content = self.contents[1] if len(self.contents) > 1 else None
        return content if isinstance(content, PdbInfo) else PdbInfo.parse(self.stream(1))

    def _content(self, kind: type[Any], index: int) -> Any:
        content = self.contents[index] if 0 <= index < len(self.contents) else None
        return content if isinstance(content, kind) else None

    @property
    def types(self) -> TypeStream | None:
        """The TPI stream (stream 2) when it is typed."""
        content = self._content(TypeStream, 2)
        return content if content is not None and content.kind == "types" else None

    @property
    def dbi(self) -> DbiStream | None:
        """The DBI stream (stream 3) when it is typed, else None."""
        content = self._content(DbiStream, 3)
        return content if isinstance(content, DbiStream) else None

    @property
    def names(self) -> NamesTable | None:
        """The ``/names`` string table."""
        return next((c for c in self.contents if isinstance(c, NamesTable)), None)

    def modules(self) -> list[tuple[ModuleInfo, ModuleStream]]:
        """Each DBI module with its typed symbol stream."""
        dbi = self.dbi
        if dbi is None:
            return []
        out = []
        for module in dbi.modules:
            stream = self._content(ModuleStream, module.values.get("stream", 0xFFFF))
            if stream is not None and stream.module is module:
                out.append((module, stream))
        return out

    @property
    def sources(self) -> list[SourceFile]:
        """The source files fxc embedded (``/src/files/...`` streams)."""
        return [c for c in self.contents if isinstance(c, SourceFile)]

    def functions(self) -> list[dict[str, Any]]:
        """Procedures of every module: name, code offset and length, type."""
        return [{"name": s.values.get("name", ""), "offset": s.values.get("offset", 0),
                 "length": s.values.get("length", 0), "type": s.values.get("type", 0)}
                for _m, stream in self.modules() for s in stream.symbols if s.kind in PROCEDURES and s.raw is None]

    def line_tables(self) -> list[dict[str, Any]]:
        """``DEBUG_S_LINES`` of every module: file, code offset and ``[offset, line]`` rows."""
        out = []
        names = self.names
        for _module, stream in self.modules():
            files = stream.file_names(names)
            for sub in stream.subsections:
                for block in sub.blocks or []:
                    out.append({"file": files.get(block.file_id, ""), "code_offset": sub.code_offset,
                                "lines": [list(row) for row in block.rows()]})
        return out

    def raw_records(self) -> list[dict[str, Any]]:
        """Type and symbol records the tables do not type, kept as bytes: stream, kind, size."""
        out = []
        for index, content in enumerate(self.contents):
            records: list[CodeViewRecord] = []
            if isinstance(content, TypeStream):
                records = content.records
            elif isinstance(content, ModuleStream):
                records = content.symbols
            elif isinstance(content, SymbolStream):
                records = content.records
            for record in records:
                members = record.values.get("members", []) if record.raw is None else []
                for item in [record, *(m for m in members if isinstance(m, CodeViewRecord))]:  # type: ignore[union-attr]
                    if item.raw is not None:
                        out.append({"stream": index, "kind": item.name, "size": len(item.raw)})
        return out

    @property
    def layout(self) -> Layout:
        """Where the superblock, the block map, the directory pages and each stream's pages lie."""
        block = self.block_size
        layout = Layout()
        layout.record("superblock", 0, self.pages[: SUPERBLOCK.size])
        at = self.block_map_addr * block
        layout.record("block_map", at, self.pages[at : at + 4 * len(self.directory_blocks)])
        for k, page in enumerate(self.directory_blocks):
            layout.record(("directory", k), page * block, self.pages[page * block : (page + 1) * block])
        for i, stream in enumerate(self.streams):
            for k, page in enumerate(stream.blocks):
                used = min(block, stream.length - k * block)
                layout.record(("stream", i, k), page * block, self.pages[page * block : page * block + used])
        layout.close(self.pages)
        return layout

    def summary(self) -> dict[str, Any]:
        """The PDB for ``info``: block size/count, streams, sources, sections, functions, lines, compiler."""
        compiler = next((s.values.get("version", "") for _m, st in self.modules() for s in st.symbols
                         if s.name == "S_COMPILE3"), None)
        out: dict[str, Any] = {
            "block_size": self.block_size,
            "block_count": self.block_count,
            "streams": [s.length for s in self.streams],
            "stream_kinds": [getattr(c, "kind", "raw") for c in self.contents],
            "source_files": [s.path for s in self.sources],
            "sections": [n for c in self.contents if isinstance(c, SectionHeaders) for n in c.names()],
            "functions": self.functions(),
            "line_tables": self.line_tables(),
        }
        if compiler is not None:
            out["compiler"] = compiler
        types = self.types
        if types is not None:
            out["type_records"] = len(types.records)
        raw = self.raw_records()
        if raw:
            out["raw_records"] = raw
        return out


SOURCE_PREFIX = "/src/files/"

__all__ = [
    "MSF_MAGIC", "C13Subsection", "DbiStream", "DebugHeader", "FileInfo", "LineBlock", "SectionContributions",
    "SectionHeaders", "SectionMap", "GlobalHash", "GlobalsStream", "PublicsStream", "TypeHashes", "ModuleInfo", "ModuleStream", "MsfStream",
    "NamesTable", "PdbInfo", "ProgramDatabase", "RawStream", "SourceFile", "StreamContent", "SymbolStream",
    "TypeStream",
]

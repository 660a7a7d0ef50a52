"""SPDB: fxc's debug information, a complete PDB file in MSF 7.00 form.

MSF layout (LLVM's "The MSF File Format"): a superblock (32-byte magic, ``u32 block_size``,
``free_block_map``, ``block_count``, ``directory_size``, an unknown word, ``block_map_addr``);
the file is ``block_count`` pages of ``block_size`` bytes. The page at ``block_map_addr`` lists
the pages of the *stream directory*: ``u32 stream_count``, ``u32 sizes[stream_count]``
(0xFFFFFFFF for a nil stream), then each stream's page numbers. Stream 1 is the PDB info stream
(version, signature, age, GUID, then the named-stream map: ``/names`` ...), stream 2 the type
records (TPI), stream 3 the DBI stream (modules whose streams carry symbols and C13 lines).

Model: :class:`ProgramDatabase` keeps the superblock fields, the directory's pages and the
stream table (:class:`MsfStream`: size and pages) typed, and the file's pages as bytes (the
stream contents, free-page maps and unused pages are not modelled). :meth:`ProgramDatabase.build`
writes the superblock, the directory page list and the directory back into those pages, so an
unedited model rebuilds byte for byte; a directory that no longer fits its pages is refused.
:meth:`ProgramDatabase.stream` reads one stream; :meth:`ProgramDatabase.info` the PDB info
stream (:class:`PdbInfo`). The line and variable notes the listing prints are read from these
streams by :mod:`shaderkit.formats.dxbc.disasm`. Payloads without the MSF magic stay raw chunks.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.io.reader import Reader

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
        """The stream size in bytes (0 for a nil stream)."""
        return 0 if self.size == NIL_STREAM else self.size


@dataclass
class PdbInfo:
    """The PDB info stream (stream 1): header and the named-stream map."""

    version: int
    signature: int
    age: int
    guid: bytes
    named_streams: dict[str, int] = field(default_factory=dict)


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
    #: the whole file as stored; stream contents live in its pages
    pages: bytes = b""
    fourcc: str = "SPDB"

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when the payload under ``r`` starts with the MSF 7.00 magic."""
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
        return model

    def _read(self, indices: list[int], size: int) -> bytes:
        block = self.block_size
        if any(i >= self.block_count for i in indices):
            raise _fail("MSF block index out of range", 0)
        return b"".join(self.pages[i * block : (i + 1) * block] for i in indices)[:size]

    # -- writing -----------------------------------------------------------------------------
    def directory(self) -> bytes:
        """The stream directory as :meth:`build` writes it."""
        out = [struct.pack(f"<{len(self.streams) + 1}I", len(self.streams), *(s.size for s in self.streams))]
        out.extend(struct.pack(f"<{len(s.blocks)}I", *s.blocks) for s in self.streams)
        return b"".join(out)

    def build(self) -> bytes:
        """The MSF file bytes, with the stream directory rewritten."""
        block = self.block_size
        out = bytearray(self.pages)
        directory = self.directory()
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
        """The bytes of stream ``index`` (empty for a nil stream)."""
        if not 0 <= index < len(self.streams):
            raise _fail(f"PDB has no stream {index} ({len(self.streams)} streams)")
        s = self.streams[index]
        return self._read(s.blocks, s.length)

    def info(self) -> PdbInfo:
        """The PDB info stream: version, signature, age, GUID and the named streams."""
        data = self.stream(1)
        version, signature, age = _u("3I", data, 0)
        guid = data[12:28]
        (strings_size,) = _u("I", data, 28)
        strings = data[32 : 32 + strings_size]
        pos = 32 + strings_size
        size, _capacity = _u("2I", data, pos)
        (present_words,) = _u("I", data, pos + 8)
        pos += 12 + 4 * present_words
        (deleted_words,) = _u("I", data, pos)
        pos += 4 + 4 * deleted_words
        if size > len(data) // 8:
            raise _fail(f"PDB name map of {size} entries does not fit")
        names = {}
        for i in range(size):
            key, value = _u("2I", data, pos + 8 * i)
            names[_cstr(strings, key)[0]] = value
        return PdbInfo(version, signature, age, guid, names)

    def summary(self) -> dict[str, Any]:
        """Block size, block count and stream sizes in bytes, JSON-ready."""
        return {
            "block_size": self.block_size,
            "block_count": self.block_count,
            "streams": [s.length for s in self.streams],
        }


__all__ = ["MSF_MAGIC", "MsfStream", "PdbInfo", "ProgramDatabase"]

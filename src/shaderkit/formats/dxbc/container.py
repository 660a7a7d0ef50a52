"""The DXBC container: header, chunk index, checksum, and typed chunks in file order.

Layout: ``"DXBC"``, 16-byte checksum, ``u32 version`` (1), ``u32 total_size``, ``u32 chunk_count``,
``u32 chunk_offsets[chunk_count]``, then each chunk as ``FourCC, u32 size, payload``. Chunks
start 4-aligned; payloads are not padded (LIBH/FX10 have odd sizes).

Chunk models: signatures (ISGN/OSGN/PCSG/OSG5/ISG1/OSG1/PSG1), RDEF, SHDR/SHEX, STAT (the SM4/SM5
sizes; DXIL's STAT stays raw), SFI0, IFCE, RTS0, LFS0, Aon9/XNAS/XNAP, LIBF (a nested container,
at most :data:`MAX_DEPTH` deep), FX10 (fx_4_x effects, :mod:`.fx10`, whose embedded shaders are
nested containers), SPDB (fxc's PDB as an MSF file, :mod:`.spdb`), LIBH (:mod:`.libh`);
SDBG (the D3D10 debug-info header, :mod:`.sdbg`); DXIL/ILDB (dxc's shader model 6 program header, the
LLVM bitcode kept as bytes, :mod:`.dxil`: listed by ``info``, not disassembled); everything else (PRIV, SDBG without its
84-byte header, SPDB without the MSF magic, unknown) is a
:class:`RawChunk`. Chunks may come in any order but may not share bytes (overlapping index
entries are refused: they would let nested containers multiply the parsing work). Bytes between
chunks and after the last one are kept, so every real file rebuilds byte for byte.

Writing: :meth:`DxbcContainer.to_bytes` rebuilds every chunk from its model (each chunk keeps
its own :class:`~shaderkit.io.layout.Layout`) and recomputes the offsets, sizes, chunk count and
total size. The container's layout records the header, the chunk index, each chunk and the raw
bytes between and after them: while every chunk keeps its stored size, chunks go back where they
lay (gaps and tail kept); otherwise the chunks are laid out again in index order, 4-aligned
(fxc's rule), keeping non-padding bytes that preceded a chunk. Checksum policy: when the output
is the parsed container byte for byte, the *stored* checksum is written back (so the two fxc
debug-layer files, whose checksum is deliberately wrong, rebuild byte for byte); as soon as the
content differs (the model was edited) the checksum is recomputed. :meth:`fix_checksum`
makes the stored checksum the computed one. A parsed all-zero checksum ("unsigned") is kept
while the content is unchanged.

``summary()`` keys (stable, used by ``shaderkit info --json``):

* ``format`` "dxbc", ``shader_model`` (``vs_5_0``, ``lib``, ``fx`` or null), ``shader_type``
  (``vertex``... or null), ``size``, ``version``;
* ``checksum``: ``{"state": "match"|"mismatch"|"unsigned", "stored": hex, "computed": hex}``;
* ``chunks``: rows ``{"fourcc", "offset", "size"}`` in file order;
* ``input_signature`` / ``output_signature`` / ``patch_constant_signature``: rows with
  ``semantic_name, semantic_index, mask, register, system_value, component_type, used_mask,
  stream, min_precision`` (only present when the chunk exists);
* ``creator``, ``target`` (RDEF target profile), ``constant_buffers`` (name, type, size, flags,
  ``variables``: name, offset, size, flags, type as text, class), ``resource_bindings`` (name,
  type, return_type, dimension, bind_point, bind_count, space, flags) when RDEF exists;
* ``statistics``: STAT counters by name; ``features``: SFI0 feature names;
* ``interfaces`` (IFCE: class_types, class_instances, interface_slot_count) and
  ``root_signature`` (RTS0: version, flags, parameters, static_samplers) when present;
* ``level9`` (Aon9: profile, program_size, constant_buffer_mappings, sampler_mappings,
  runtime_constant_mappings) and ``function_parameters`` (LFS0 rows) when present;
* ``functions``: for libraries, the summary of each nested LIBF container; ``library``
  (LIBH: flags, creator, function names);
* ``layout``: the file's own layout, see :meth:`DxbcContainer.layout_rows`;
* ``effect`` (FX10 fx_4_x): ``version``, ``child`` (needs an effect pool), ``counts`` (the
  header's counts by name) and ``shaders`` (each embedded shader's summary plus its ``offset``
  in the unstructured block);
* ``debug_info`` (SPDB): ``block_size``, ``block_count``, ``streams`` (the MSF stream sizes), each
  stream's kind, source files, functions, line tables, compiler (see :mod:`.spdb`);
* ``shader_debug`` (SDBG): creator, entry point, target, compile flags, files, table counts.
"""

from __future__ import annotations

import importlib
import struct
import sys

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dxbc.checksum import dxbc_checksum
from shaderkit.formats.dxbc.common import fourcc_bytes
from shaderkit.formats.dxbc.raw import RawChunk
from shaderkit.formats.dxbc.rdef import ResourceDefinition
from shaderkit.formats.dxbc.shader import PROGRAM_NAMES, ShaderProgram
from shaderkit.formats.dxbc.signature import ELEMENT_SIZES, Signature
from shaderkit.formats.dxbc.stat import STAT_SIZES, Statistics
from shaderkit.io.layout import Layout, PlacedWriter, Placement, append_aligned
from shaderkit.io.limits import MAX_NESTING_DEPTH
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers, or when Chunk is asked for: start-up)
if TYPE_CHECKING:
    from typing import Any, Union

    from shaderkit.formats.dxbc.aon9 import Level9Shader
    from shaderkit.formats.dxbc.dxil import DxilProgram
    from shaderkit.formats.dxbc.fx10 import Effect
    from shaderkit.formats.dxbc.fxlvm import ConstantTable, ExpressionCode, Literals
    from shaderkit.formats.dxbc.ifce import Interfaces
    from shaderkit.formats.dxbc.lfs0 import FunctionSignature
    from shaderkit.formats.dxbc.libh import LibraryHeader
    from shaderkit.formats.dxbc.rts0 import RootSignature
    from shaderkit.formats.dxbc.sdbg import ShaderDebugInfo
    from shaderkit.formats.dxbc.sfi0 import FeatureInfo
    from shaderkit.formats.dxbc.spdb import ProgramDatabase

MAGIC = b"DXBC"
HEADER = struct.Struct("<4s16s3I")
CHUNK_HEADER = struct.Struct("<4sI")
#: Nested LIBF containers deeper than this are refused (the project-wide cap).
MAX_DEPTH = MAX_NESTING_DEPTH


if TYPE_CHECKING:
    Chunk = Union[  # noqa: UP007 - the same alias as __getattr__ builds
        RawChunk, Signature, ShaderProgram, Statistics, "FeatureInfo", ResourceDefinition,
        "Interfaces", "RootSignature", "Level9Shader", "FunctionSignature", "Effect",
        "ProgramDatabase", "LibraryHeader", "LibraryFunction", "ShaderDebugInfo", "DxilProgram",
        "ConstantTable", "Literals", "ExpressionCode",
    ]


def __getattr__(name: str) -> Any:
    if name == "Chunk":  # the type alias (every chunk model), built on first use
        from typing import Union

        alias = Union[
            RawChunk, Signature, ShaderProgram, Statistics, "FeatureInfo", ResourceDefinition,
            "Interfaces", "RootSignature", "Level9Shader", "FunctionSignature", "Effect",
            "ProgramDatabase", "LibraryHeader", "LibraryFunction", "ShaderDebugInfo", "DxilProgram",
            "ConstantTable", "Literals", "ExpressionCode",
        ]
        globals()["Chunk"] = alias
        return alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the DXBC container at ``offset`` of ``data`` as its header gives it, or None when
    the bytes there are not a consistent header: its chunk index and chunk headers inside it and,
    as more evidence than a file named by the user needs, version 1 (every compiler writes 1)."""
    if offset + HEADER.size > len(data):
        return None
    magic, _, version, total_size, count = HEADER.unpack_from(data, offset)
    index_end = HEADER.size + 4 * count
    if magic != MAGIC or version != 1 or not index_end <= total_size <= len(data) - offset:
        return None
    for (rel,) in struct.iter_unpack("<I", data[offset + HEADER.size : offset + index_end]):
        if not index_end <= rel <= total_size - CHUNK_HEADER.size:
            return None
        if CHUNK_HEADER.unpack_from(data, offset + rel)[1] > total_size - rel - CHUNK_HEADER.size:
            return None
    return total_size

#: chunk models of the chunks most files lack: FourCC -> (module, class), imported when a file has one
_OCCASIONAL = {
    "SFI0": ("sfi0", "FeatureInfo"), "IFCE": ("ifce", "Interfaces"), "LFS0": ("lfs0", "FunctionSignature"),
    "RTS0": ("rts0", "RootSignature"), "Aon9": ("aon9", "Level9Shader"), "XNAS": ("aon9", "Level9Shader"),
    "XNAP": ("aon9", "Level9Shader"), "FX10": ("fx10", "Effect"), "SPDB": ("spdb", "ProgramDatabase"),
    "LIBH": ("libh", "LibraryHeader"), "SDBG": ("sdbg", "ShaderDebugInfo"), "DXIL": ("dxil", "DxilProgram"),
    "ILDB": ("dxil", "DxilProgram"), "CTAB": ("fxlvm", "ConstantTable"), "CLI4": ("fxlvm", "Literals"),
    "FXLC": ("fxlvm", "ExpressionCode"),
}


def _model(fourcc: str) -> Any:
    """The model class of an occasional chunk (its module imported on first use)."""
    module, name = _OCCASIONAL[fourcc]
    module = f"shaderkit.formats.dxbc.{module}"
    loaded = sys.modules.get(module)  # (once imported: without the import machinery's calls)
    return getattr(loaded if loaded is not None else importlib.import_module(module), name)

INPUT_SIGNATURES = ("ISGN", "ISG1")
OUTPUT_SIGNATURES = ("OSGN", "OSG5", "OSG1")
PATCH_SIGNATURES = ("PCSG", "PSG1")


_EMPTY = Placement(0, b"")


def _alignment_padding(gap: bytes) -> bool:
    return len(gap) < 4 and not any(gap)


def _chunk_key(seen: dict[str, int], fourcc: str) -> tuple[str, str, int]:
    """The layout key of the next chunk with that FourCC: ``("chunk", fourcc, n)`` for the n-th
    (``seen`` counts the chunks met so far)."""
    n = seen.get(fourcc, 0)
    seen[fourcc] = n + 1
    return ("chunk", fourcc, n)


@dataclass
class LibraryFunction:
    """LIBF: one library function, itself a complete DXBC container."""

    container: DxbcContainer
    fourcc: str = "LIBF"

    def build(self) -> bytes:
        """The nested container's bytes."""
        return self.container.to_bytes()


def _payload(chunk: Chunk, stored: Placement | None) -> bytes:
    """A chunk's payload rebuilt from its model. A chunk whose stored bytes are its compiler's own
    layout (signatures, RDEF, Aon9, RTS0: the models that declare ``FRESH_WRITES_EVERY_FIELD``) is
    rebuilt that way, without putting each item back (several times cheaper): that layout writes
    every field of the model and reads back as the same model, so equal bytes mean the model is the
    parsed one, and the placed rebuild would give those bytes too. Other layouts (and IFCE, LFS0,
    LIBH, whose fresh build can equal the stored bytes for an edited model: counts written from one
    of two lists, names holding a NUL) are placed item by item."""
    if stored is not None and getattr(chunk, "FRESH_WRITES_EVERY_FIELD", False):
        fresh: bytes = chunk.build_fresh()  # type: ignore[union-attr]  # (the models that declare it have one)
        data = stored.data  # (data[8:] == fresh, without copying the chunk)
        if len(data) == CHUNK_HEADER.size + len(fresh) and data.endswith(fresh):
            return fresh
    return chunk.build()


def _chunk_error(body: Reader, index: int, message: str, offset: int) -> ShaderFormatError:
    """An error about the index entry of chunk ``index`` (its context names the chunk)."""
    with body.scope(f"chunk[{index}]"):
        return body.error(message, offset)


def _parse_chunk(r: Reader, fourcc: str, depth: int) -> Chunk:
    """The typed model of one chunk payload (``r`` spans exactly the payload)."""
    if fourcc in ELEMENT_SIZES:
        return Signature.parse(r, fourcc)
    if fourcc in ("SHDR", "SHEX"):
        return ShaderProgram.parse(r, fourcc)
    if fourcc == "RDEF":
        return ResourceDefinition.parse(r)
    if fourcc == "STAT":
        # DXIL (SM6) containers reuse the name for an LLVM reflection module: keep that raw
        return Statistics.parse(r) if r.remaining in STAT_SIZES else RawChunk.parse(r, fourcc)
    if fourcc in ("SFI0", "IFCE", "LFS0"):
        return _model(fourcc).parse(r)
    if fourcc in ("RTS0", "SPDB", "SDBG") and _model(fourcc).understood(r):
        return _model(fourcc).parse(r)
    if fourcc in ("Aon9", "XNAS", "XNAP") and _model(fourcc).understood(r):
        return _model(fourcc).parse(r, fourcc)
    if fourcc in ("DXIL", "ILDB") and _model(fourcc).understood(r):
        return _model(fourcc).parse(r, fourcc)
    if fourcc in ("CTAB", "CLI4", "FXLC") and _model(fourcc).understood(r):
        # understood checks the header only: a table or code that does not read stays raw
        start = r.pos
        try:
            return _model(fourcc).parse(r)
        except ShaderFormatError:
            r.seek(start)
            return RawChunk.parse(r, fourcc)
    if fourcc == "FX10" and _model(fourcc).understood(r):
        return _model(fourcc).parse(r, depth)
    if fourcc == "LIBH":
        # the library header is informative only: a payload whose offsets do not resolve stays raw
        try:
            return _model(fourcc).parse(r.sub(r.start, r.end - r.start, "LIBH"))
        except ShaderFormatError:
            return RawChunk.parse(r, fourcc)
    if fourcc == "LIBF":
        if depth >= MAX_DEPTH:
            raise r.error(f"LIBF containers nested deeper than {MAX_DEPTH}")
        return LibraryFunction(DxbcContainer.parse(r, depth + 1))
    return RawChunk.parse(r, fourcc)


@dataclass(repr=False)
class DxbcContainer(ShaderFile):
    """A DXBC container: chunks in file order, the stored MD5-like checksum and the version."""
    format_name = "dxbc"

    chunks: list[Chunk] = field(default_factory=list)
    #: the checksum found in the file (or set by :meth:`fix_checksum`).
    checksum: bytes = bytes(16)
    version: int = 1
    #: bytes after the header's total size (outside the container).
    trailing: bytes = b""
    #: where the header, the chunk index and each chunk lay, and the bytes between chunks
    #: (None for a new container: chunks follow the index, 4-aligned).
    layout: Layout | None = field(default=None, compare=False, repr=False)
    #: the parsed container bytes (header to total size; None for a new container): what
    #: :meth:`to_bytes` writes while every chunk rebuilds to its stored bytes
    source: bytes | None = field(default=None, compare=False, repr=False)

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> DxbcContainer:
        return cls.parse(Reader(bytes(data), context="DXBC"), 0)

    @classmethod
    def parse(cls, r: Reader, depth: int = 0) -> DxbcContainer:
        """Parse the container filling the window of ``r``."""
        base = r.start
        r.seek(base)
        magic, checksum, version, total_size, count = r.unpack(HEADER.format[1:], "DXBC header")
        if magic != MAGIC:
            raise r.error(f"bad magic {magic!r}, expected {MAGIC!r}", base)
        window = r.end - base
        if total_size > window or total_size < HEADER.size:
            raise r.error(f"total size {total_size} does not fit the {window} bytes available", base + 24)
        body = r.sub(base, total_size)
        body.seek(base + HEADER.size)
        body.check_count(count, 4, "chunk offsets")
        offsets = body.u32_array(count, "chunk offsets")
        # chunk headers first: bounds, and no two chunks may share bytes (overlapping index
        # entries would let nested LIBF containers multiply the parsing work)
        spans: list[tuple[int, int, str]] = []
        data = r.data
        for i, rel in enumerate(offsets):
            if rel > total_size - CHUNK_HEADER.size:
                raise _chunk_error(body, i, f"chunk offset {rel:#x} is outside the {total_size}-byte container",
                                   base + HEADER.size + 4 * i)
            if rel < HEADER.size + 4 * count:  # a chunk made of the header's own bytes
                raise _chunk_error(body, i, f"chunk offset {rel:#x} lies inside the container header and chunk "
                                   f"index (which end at {HEADER.size + 4 * count:#x})", base + HEADER.size + 4 * i)
            raw_cc, size = CHUNK_HEADER.unpack_from(data, base + rel)  # inside the body (checked above)
            if size > total_size - rel - CHUNK_HEADER.size:
                raise _chunk_error(body, i, f"{size}-byte payload runs past the container end", base + rel + 4)
            spans.append((base + rel, base + rel + CHUNK_HEADER.size + size, raw_cc.decode("latin-1")))  # fourcc_text
        ordered = sorted(range(count), key=lambda k: spans[k][0])
        for prev, nxt in zip(ordered, ordered[1:]):
            if spans[nxt][0] < spans[prev][1]:
                raise body.error(f"chunk[{nxt}] at {spans[nxt][0] - base:#x} overlaps chunk[{prev}]",
                                 base + HEADER.size + 4 * nxt)
        layout = Layout()
        layout.record("header", 0, data[base : base + HEADER.size])
        layout.record("chunk_index", HEADER.size, data[base + HEADER.size : base + HEADER.size + 4 * count])
        chunks: list[Chunk] = []
        seen: dict[str, int] = {}
        for i, (start, stop, fourcc) in enumerate(spans):
            # the payload's reader names "chunk[i]" then the FourCC in its errors (fits: checked above)
            payload = body.sub(start + CHUNK_HEADER.size, stop - start - CHUNK_HEADER.size, f"chunk[{i}].{fourcc}")
            chunks.append(_parse_chunk(payload, fourcc, depth))
            layout.record(_chunk_key(seen, fourcc), start - base, data[start:stop])
        end = base + total_size
        layout.close(memoryview(data)[base:end])
        return cls(chunks, checksum, version, data[end : r.end], layout, data[base:end])

    # -- writing ---------------------------------------------------------------------------
    def _layout(self) -> tuple[bytearray, bool]:
        """The container bytes with the stored checksum, and whether they are the parsed bytes."""
        seen: dict[str, int] = {}
        layout = self.layout
        stored_items = layout.items if layout is not None else {}
        items = []
        # chunks go back where they lay while they keep their size; any other change lays the
        # chunks out again in index order, 4-aligned (bytes that preceded a kept chunk, other
        # than the zero padding the alignment rule writes anyway, stay in front of it)
        keep = layout is not None
        for c in self.chunks:
            key = _chunk_key(seen, c.fourcc)
            stored = stored_items.get(key)
            payload = _payload(c, stored)
            items.append((key, fourcc_bytes(c.fourcc), payload))
            if stored is None or len(stored.data) != CHUNK_HEADER.size + len(payload):
                keep = False
        count = len(items)
        head_size = HEADER.size + 4 * count
        keep = keep and len(stored_items.get("chunk_index", _EMPTY).data) == 4 * count
        if keep and self.source is not None and self._rebuilds_source(items):
            return bytearray(self.source), True
        writer = PlacedWriter(layout if keep else None, append_aligned(4))
        writer.reserve(0, head_size)
        offsets = []
        for key, cc, payload in items:
            if not keep and layout is not None and (stored := layout.items.get(key)) is not None:
                gap = next((s.data for s in layout.raw if s.end == stored.offset), b"")
                if not _alignment_padding(gap):
                    writer.put(writer.end, gap)
            offsets.append(writer.place(key, CHUNK_HEADER.pack(cc, len(payload)) + payload))
        if not keep and layout is not None and layout.raw and layout.raw[-1].end == layout.size:
            if not _alignment_padding(layout.raw[-1].data):
                writer.put(writer.end, layout.raw[-1].data)
        writer.put(0, HEADER.pack(MAGIC, self.checksum, self.version, writer.end, count))
        writer.put(HEADER.size, struct.pack(f"<{count}I", *offsets))
        return writer.out, keep and writer.unchanged()

    def _rebuilds_source(self, items: list[tuple[tuple[str, str, int], bytes, bytes]]) -> bool:
        """True when the header, the chunk index and every rebuilt chunk equal their stored bytes
        (the placed writer would then put everything back where it lay: the output is ``source``)."""
        layout, source = self.layout, self.source
        assert layout is not None and source is not None
        if layout.size != len(source) or layout.items["header"].data != HEADER.pack(
                MAGIC, self.checksum, self.version, len(source), len(items)):
            return False
        for key, cc, payload in items:
            stored = layout.items[key].data
            # (stored[:4] == cc and stored[8:] == payload, without copying the chunk)
            if len(stored) != CHUNK_HEADER.size + len(payload) or not stored.startswith(cc) \
                    or not stored.endswith(payload):
                return False
        return True

    def _source_signed(self) -> bool:
        """True when the parsed bytes carry their own checksum: then so does every output of
        :meth:`to_bytes` (the parsed bytes while unchanged, a recomputed checksum otherwise)."""
        source = self.source
        return source is not None and source[4:20] == dxbc_checksum(source)

    def to_bytes(self) -> bytes:
        out, unchanged = self._layout()
        if not unchanged:
            out[4:20] = dxbc_checksum(out)
        return bytes(out) + self.trailing

    def computed_checksum(self) -> bytes:
        """The checksum the current content should carry."""
        return dxbc_checksum(self._layout()[0])

    def fix_checksum(self) -> None:
        """Store the computed checksum, so :meth:`to_bytes` writes a valid one."""
        self.checksum = self.computed_checksum()

    def checksum_state(self) -> str:
        """``match``, ``mismatch`` or ``unsigned`` for the bytes :meth:`to_bytes` writes."""
        if self._source_signed():
            return "match"
        out = self.to_bytes()
        stored = out[4:20]
        if stored == bytes(16):
            return "unsigned"
        return "match" if stored == dxbc_checksum(out[: len(out) - len(self.trailing)]) else "mismatch"

    def problems(self) -> list[str]:
        if self._source_signed():
            return []
        out = self.to_bytes()
        body = out[: len(out) - len(self.trailing)]
        stored, computed = out[4:20], dxbc_checksum(body)
        if stored != computed and stored != bytes(16):
            return [f"checksum mismatch: stored {stored.hex()}, computed {computed.hex()}"]
        return []

    # -- accessors -------------------------------------------------------------------------
    def chunk(self, fourcc: str) -> Chunk | None:
        """The first chunk with this FourCC, or None."""
        return next((c for c in self.chunks if c.fourcc == fourcc), None)

    def chunks_of(self, *fourccs: str) -> list[Chunk]:
        """The chunks whose FourCC is one of ``fourccs``, in file order."""
        return [c for c in self.chunks if c.fourcc in fourccs]

    def remove_chunk(self, fourcc: str) -> int:
        """Drop every chunk with this FourCC; returns how many were dropped."""
        before = len(self.chunks)
        self.chunks = [c for c in self.chunks if c.fourcc != fourcc]
        return before - len(self.chunks)

    def _first(self, kind: type, *fourccs: str) -> Any:
        for c in self.chunks:
            if c.fourcc in fourccs and isinstance(c, kind):
                return c
        return None

    def _first_occasional(self, fourcc: str) -> Any:
        """The first ``fourcc`` chunk parsed as its model (none without importing the model)."""
        for c in self.chunks:
            if c.fourcc == fourcc:
                kind = _model(fourcc)
                return c if isinstance(c, kind) else self._first(kind, fourcc)
        return None

    @property
    def shader(self) -> ShaderProgram | None:
        """The SHDR/SHEX program chunk."""
        return self._first(ShaderProgram, "SHDR", "SHEX")

    @property
    def rdef(self) -> ResourceDefinition | None:
        """The first RDEF chunk (resource definitions), or None."""
        return self._first(ResourceDefinition, "RDEF")

    @property
    def creator(self) -> str:
        """The compiler the RDEF chunk names (``Microsoft (R) HLSL Shader Compiler 9.29.952.3111``),
        or "" without one."""
        rdef = self.rdef
        return rdef.creator if rdef is not None else ""

    @property
    def input_signature(self) -> Signature | None:
        """The first input signature chunk (ISGN/ISG1), or None."""
        return self._first(Signature, *INPUT_SIGNATURES)

    @property
    def output_signature(self) -> Signature | None:
        """The first output signature chunk (OSGN/OSG5/OSG1), or None."""
        return self._first(Signature, *OUTPUT_SIGNATURES)

    @property
    def patch_constant_signature(self) -> Signature | None:
        """The first patch-constant signature chunk (PCSG/PSG1), or None."""
        return self._first(Signature, *PATCH_SIGNATURES)

    @property
    def statistics(self) -> Statistics | None:
        """The STAT chunk, or None."""
        return self._first(Statistics, "STAT")

    @property
    def features(self) -> FeatureInfo | None:
        """The SFI0 chunk (required feature flags), or None."""
        return self._first_occasional("SFI0")

    @property
    def interfaces(self) -> Interfaces | None:
        """The IFCE chunk (class types, instances and interface slots), or None."""
        return self._first_occasional("IFCE")

    @property
    def root_signature(self) -> RootSignature | None:
        """The RTS0 chunk (root signature), or None."""
        return self._first_occasional("RTS0")

    @property
    def function_signature(self) -> FunctionSignature | None:
        """LFS0: parameters of a library function (nested LIBF containers)."""
        return self._first_occasional("LFS0")

    @property
    def level9(self) -> Level9Shader | None:
        """The Aon9 chunk of a ``*_level_9_*`` shader."""
        return self._first_occasional("Aon9")

    @property
    def effect(self) -> Effect | None:
        """The FX10 chunk of an fx_4_x effect."""
        return self._first_occasional("FX10")

    @property
    def debug_info(self) -> ProgramDatabase | None:
        """The SPDB chunk (fxc's PDB) when it is an MSF 7.00 file."""
        return self._first_occasional("SPDB")

    @property
    def library_header(self) -> LibraryHeader | None:
        """LIBH: the function names and creator of a library."""
        return self._first_occasional("LIBH")

    @property
    def functions(self) -> list[DxbcContainer]:
        """Nested containers of a library (one per LIBF chunk)."""
        return [c.container for c in self.chunks if isinstance(c, LibraryFunction)]

    @property
    def shader_model(self) -> str | None:
        """``vs_5_0``-style profile, ``lib`` for libraries, ``fx`` for effects, else None."""
        if self.shader is not None:
            return self.shader.profile
        if self.chunk("LIBF") is not None:
            return "lib"
        if self.chunk("FX10") is not None:
            return "fx"
        dxil = self.dxil
        return dxil.profile if dxil is not None else None

    @property
    def dxil(self) -> DxilProgram | None:
        """The DXIL chunk (shader model 6: dxc's LLVM bitcode program), typed, or None."""
        return self._first_occasional("DXIL")

    # -- text ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        out = self.to_bytes()
        computed = dxbc_checksum(out[: len(out) - len(self.trailing)])
        stored = out[4:20]
        state = "unsigned" if stored == bytes(16) else ("match" if stored == computed else "mismatch")
        info: dict[str, Any] = {
            "format": self.format_name,
            "shader_model": self.shader_model,
            "shader_type": PROGRAM_NAMES.get(self.shader.program_type) if self.shader else None,
            "size": len(out),
            "version": self.version,
            "checksum": {"state": state, "stored": stored.hex(), "computed": computed.hex()},
            "chunks": self._chunk_rows(out),
            "layout": self.layout_rows(),
        }
        for key, sig in (("patch_constant_signature", self.patch_constant_signature),
                         ("input_signature", self.input_signature),
                         ("output_signature", self.output_signature)):
            if sig is not None:
                info[key] = sig.summary()
        if self.rdef is not None:
            info.update(self.rdef.summary())
        if self.statistics is not None:
            info["statistics"] = self.statistics.summary()
        if self.features is not None:
            info["features"] = self.features.feature_names()
        if self.interfaces is not None:
            info["interfaces"] = self.interfaces.summary()
        if self.root_signature is not None:
            info["root_signature"] = self.root_signature.summary()
        if self.level9 is not None:
            info["level9"] = self.level9.summary()
        if self.function_signature is not None:
            info["function_parameters"] = self.function_signature.summary()
        if self.effect is not None:
            info["effect"] = self.effect.summary()
        if self.debug_info is not None:
            info["debug_info"] = self.debug_info.summary()
        shader_debug = getattr(self.chunk("SDBG"), "summary", None)  # a raw SDBG chunk has none
        if shader_debug is not None:
            info["shader_debug"] = shader_debug()
        if self.dxil is not None:
            info["dxil"] = self.dxil.summary()
            info["shader_type"] = info["dxil"]["stage"]
        if self.library_header is not None:
            info["library"] = self.library_header.summary()
        if self.functions:
            info["functions"] = [f.summary() for f in self.functions]
        return info

    def _chunk_rows(self, out: bytes) -> list[dict[str, Any]]:
        """``{"fourcc", "offset", "size"}`` per chunk: as stored when parsed, else as written."""
        seen: dict[str, int] = {}
        rows = []
        offsets = struct.unpack_from(f"<{len(self.chunks)}I", out, HEADER.size)
        for chunk, written in zip(self.chunks, offsets):
            stored = self.layout.items.get(_chunk_key(seen, chunk.fourcc)) if self.layout is not None else None
            if stored is not None:
                rows.append({"fourcc": chunk.fourcc, "offset": stored.offset,
                             "size": len(stored.data) - CHUNK_HEADER.size})
            else:
                rows.append({"fourcc": chunk.fourcc, "offset": written,
                             "size": CHUNK_HEADER.unpack_from(out, written)[1]})
        return rows

    def layout_rows(self) -> list[dict[str, Any]]:
        """The file's own layout: every item and raw span with its stored offset and size.

        Rows are ``{"item", "offset", "size"}`` with offsets from the start of the container, ordered
        by offset; ``item`` "raw" is bytes no field covers. Items inside a chunk's payload follow the
        chunk's row, named ``CHUNK/ITEM`` (a LIBF chunk lists its nested container's rows); bytes
        after the declared container size are a ``trailing`` row. A container built in memory (not
        parsed) reports the layout it would be written with.
        """
        layout = self.layout
        if layout is None:
            written = self.to_bytes()
            layout = DxbcContainer.parse(Reader(written[: len(written) - len(self.trailing)])).layout
            assert layout is not None
        seen: dict[str, int] = {}
        inner: dict[str, list[dict[str, Any]]] = {}
        for chunk in self.chunks:
            name = ".".join(str(k) for k in _chunk_key(seen, chunk.fourcc))
            chunk_layout = getattr(chunk, "layout", None)
            if isinstance(chunk_layout, Layout):
                inner[name] = chunk_layout.spans()
            elif isinstance(chunk, LibraryFunction):
                inner[name] = chunk.container.layout_rows()
        rows: list[dict[str, Any]] = []
        for row in layout.spans():
            rows.append(row)
            payload = int(str(row["offset"])) + CHUNK_HEADER.size
            for item in inner.get(str(row["item"]), []):
                rows.append({"item": f"{row['item']}/{item['item']}", "offset": payload + item["offset"],
                             "size": item["size"]})
        if self.trailing:
            rows.append({"item": "trailing", "offset": layout.size, "size": len(self.trailing)})
        return rows

    def disassemble(self) -> str:
        import importlib

        dxil = self.dxil
        if dxil is not None and self.shader is None and self.shader_model == dxil.profile:
            raise UnsupportedOperation(
                f"dxbc: a DXIL program ({dxil.profile}, shader model 6) is LLVM bitcode; shaderkit lists "
                "SM4/SM5 programs (dxc -dumpbin lists this one; `shaderkit info` shows its container)")
        try:
            disasm = importlib.import_module("shaderkit.formats.dxbc.disasm")
        except ModuleNotFoundError as exc:
            raise UnsupportedOperation("dxbc: the SM4/5 disassembler is not available") from exc
        text: str = disasm.listing(self)
        return text


__all__ = ["Chunk", "DxbcContainer", "LibraryFunction"]

"""fxc-style listing of a DXBC container: ``//`` comment header, program text, footer.

* plain shaders: header (``listing.comment_header`` when available), the level-9 D3D9 programs
  of ``Aon9``/``XNAP``/``XNAS`` chunks (:mod:`shaderkit.isa.d3d9.text`), the SM4/5 program
  (:mod:`shaderkit.isa.sm4.text`), footer (``listing.comment_footer``);
* libraries (``LIBF`` chunks + ``LIBH``): fxc's ``// Library:`` framing with the function names,
  then every function's own listing;
* effects (``FX10``, fx_4_0/fx_4_1): constant buffers with defaults, objects, state blocks,
  annotations, shared (pool) sections and techniques whose inline shaders are listed inside
  ``asm { ... }`` blocks, as fxc prints them; fx_5_0 (Effects11): the same without pool
  sections, then the interface variables and the groups (``fxgroup [name]``) of ``technique11``
  blocks; an fx_5_0 shader's stream-output declarations, rasterized stream and interface
  bindings follow its ``asm`` block as fxc's ``/* ... */`` comments. Expression assignments
  print as fxc's ``eval(...)`` (:mod:`.fxlvm`: the FXLVM instructions, inputs by their ``CTAB``
  names, literals from ``CLI4``), indexed ones as ``array[eval(...)]``; one whose code block is
  no expression container prints as ``/* assignment type N */``.
  The chunk is the :class:`~shaderkit.formats.dxbc.fx10.Effect` model: this module prints its
  typed records (as edited) and the typed items of its unstructured block
  (:class:`~shaderkit.formats.dxbc.fx10_block.EffectBlock`: strings, types, default values,
  assignment payloads) and lists the embedded shaders the model parsed (by block offset);
* ``#line`` directives and variable notes come from the SPDB model
  (:class:`~shaderkit.formats.dxbc.spdb.ProgramDatabase`): its streams' types, symbols and lines.

Untrusted bytes raise only ShaderFormatError; nested containers are bounded by ``MAX_DEPTH``.
"""

from __future__ import annotations

import importlib
import struct
from bisect import bisect_left, bisect_right
from contextvars import ContextVar
from itertools import groupby

from shaderkit.errors import ShaderFormatError
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing and the rare chunk models load only when needed: start-up)
if TYPE_CHECKING:
    from typing import Any

    from shaderkit.formats.dxbc.aon9 import Level9Shader
    from shaderkit.formats.dxbc.codeview import CodeViewRecord
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.fx10 import Effect
    from shaderkit.formats.dxbc.fx10_records import (
        Annotation,
        Assignment,
        BufferRecord,
        Group,
        InterfaceVariable,
        NumericVariable,
        ObjectVariable,
        ShaderData5,
        Technique,
    )
    from shaderkit.formats.dxbc.spdb import ProgramDatabase, TypeStream
    from shaderkit.isa.sm4.model import Program
    from shaderkit.isa.sm4.text import Formatter

_U32 = struct.Struct("<I")
#: listing() with exact floats (read by program_lines, however deep the program sits)
_EXACT: ContextVar[bool] = ContextVar("exact_listing", default=False)
#: listing() with every literal as hex bits (``disasm --hex``)
_HEX: ContextVar[bool] = ContextVar("hex_listing", default=False)
#: effects and libraries embed containers; bound the nesting depth
MAX_DEPTH = 4


def _payload(chunk: Any) -> bytes:
    """A chunk's payload bytes (every chunk model builds its payload)."""
    build = getattr(chunk, "build", None)
    return bytes(build()) if build is not None else bytes(getattr(chunk, "data", b""))


def _comment_hooks() -> tuple[Any, Any]:
    """``comment_header``/``comment_footer`` from listing.py when that module exists."""
    try:
        hooks = importlib.import_module("shaderkit.formats.dxbc.listing")
    except ImportError:
        return None, None
    return getattr(hooks, "comment_header", None), getattr(hooks, "comment_footer", None)


def is_legacy(container: DxbcContainer) -> bool:
    """True for containers written by fxc before the Windows 10 SDK (9.x of the DirectX and
    Windows 8 SDKs, 6.3 of the Windows 8.1 SDK), whose listings spell some things differently
    (old CRT float digits, lower-case ``cb`` declarations); ``disasm --fxc`` may choose another
    compiler's spellings (:func:`~shaderkit.formats.dxbc.listing.container_style`)."""
    from shaderkit.formats.dxbc.listing import container_style, is_legacy_creator

    return is_legacy_creator(container_style(container))


def since_fxc_9_30(container: DxbcContainer) -> bool:
    """False for containers written by fxc 9.29 and older, whose listings print texel offsets
    without ``_aoffimmi`` (``sample_l(0,1,0)``) and ``discard`` for ``discard_nz`` (or whose
    spellings ``disasm --fxc`` chose)."""
    from shaderkit.formats.dxbc.listing import before_fxc_9_30, container_style

    return not before_fxc_9_30(container_style(container))


def styled_formatter(container: DxbcContainer, prog: Program, exact: bool = False,
                     hex_literals: bool = False) -> Formatter:
    """A :class:`~shaderkit.isa.sm4.text.Formatter` of ``prog`` in the spelling of the compiler that
    wrote ``container`` (its creator: legacy spellings, fxc 9.29's texel offsets)."""
    from shaderkit.isa.sm4.text import Formatter

    return Formatter(prog, is_legacy(container), exact, hex_literals, since_fxc_9_30(container))


def program_lines(container: DxbcContainer, legacy: bool | None = None) -> list[str]:
    """The SM4/5 program text of ``container`` (version line, declarations, instructions),
    with fxc's ``#line`` directives and variable notes when an ``SPDB`` chunk carries them."""
    shader = container.shader
    if shader is None:
        return []
    legacy = is_legacy(container) if legacy is None else legacy
    starts: list[int] = []
    if _EXACT.get() or _HEX.get():
        from shaderkit.isa.sm4.decode import decode
        from shaderkit.isa.sm4.text import Formatter

        prog = decode(shader.tokens)  # (legacy may be the caller's: not styled_formatter)
        lines = Formatter(prog, legacy, _EXACT.get(), _HEX.get(), since_fxc_9_30(container)).lines()
        starts = prog.offsets
    else:  # validated and printed in one pass
        from shaderkit.isa.sm4.printer import program_lines as sm4_lines

        lines = sm4_lines(shader.tokens, 0, legacy, starts, since_fxc_9_30(container))
    spdb = container.chunk("SPDB")
    if spdb is None:
        return lines
    # the typed model (an MSF file); a raw SPDB chunk is read as bytes and refused there
    from shaderkit.formats.dxbc.spdb import ProgramDatabase

    debug = read_debug_info(spdb if isinstance(spdb, ProgramDatabase) else _payload(spdb))
    return _annotate(starts, lines, debug)


def _annotate(offsets: list[int], lines: list[str], debug: DebugInfo) -> list[str]:
    """Interleave ``#line`` directives, the initial variable locations and per-instruction notes
    (``// r0.x <- name``) as fxc prints them for shaders compiled with debug information;
    ``offsets`` are the instructions' word offsets in the program."""
    from shaderkit.formats.dxbc.codeview import PRIOR_LOCATIONS

    out = [lines[0]]
    first_code = next((o * 4 for o in offsets if o * 4 in debug.lines), None)
    line_of = debug.lines_of([o * 4 for o in offsets])
    current: tuple[int, str] | None = None
    # a variable's range starts right after the instruction that wrote it: note it there
    following = [o * 4 for o in offsets[1:]] + [-1]
    for word, text, after in zip(offsets, lines[1:], following):
        offset = word * 4
        if offset == first_code and debug.initial:
            out.extend(("//", "// Initial variable locations:"))
            rows = ["; ".join(f"{register} <- {name}" for register, name in run)  # a row per run of one register
                    for _, run in groupby(debug.initial, key=lambda note: note[0].split(".")[0])]
            out.extend("//   " + row + ("; " if i < len(rows) - 1 else "") for i, row in enumerate(rows))
            out.append("//")
        where = line_of.get(offset)
        if where is not None and where != current:
            if current is not None:
                out.append("")
            line, file = where
            same_file = current is not None and current[1] == file
            out.append(f"#line {line}" if same_file else f'#line {line} "{file}"')
            current = where
        notes = debug.notes_after(offset, after)
        if notes:  # where an else starts, the notes say where variables were before it
            lead = f"  // {PRIOR_LOCATIONS} " if text.lstrip().startswith("else") else "  // "
            text += lead + "; ".join(notes)
        out.append(text)
    return out


def _shader_listing(container: DxbcContainer, out: list[str]) -> None:
    header, footer = _comment_hooks()
    if header is not None:
        out.extend(header(container))
    level9 = _level9_lines(container)
    out.extend(level9)
    out.extend(program_lines(container))
    if footer is not None:
        out.extend(footer(container))
    else:
        stat = container.statistics
        count = getattr(stat, "instruction_count", 0) if stat is not None else 0
        out.append(f"// Approximately {count} instruction slots used")


#: level-9 D3D9 programs in listing order, with fxc's section titles
LEVEL9_CHUNKS = (("Aon9", "Level9"), ("XNAP", "XNA Prepass"), ("XNAS", "XNA"))


def _level9_lines(container: DxbcContainer) -> list[str]:
    """The level-9 D3D9 programs (Aon9, then the XNA variants), each under fxc's title.

    The constant/sampler mapping tables of every program after the first come from the
    ``listing.level9_mappings(payload)`` hook (the first one's end the comment header).
    """
    chunks = [(c, title) for fourcc, title in LEVEL9_CHUNKS for c in container.chunks_of(fourcc)]
    if not chunks:
        return []
    from shaderkit.formats.dxbc.aon9 import Level9Shader

    try:
        hooks = importlib.import_module("shaderkit.formats.dxbc.listing")
    except ImportError:
        hooks = None
    mappings = getattr(hooks, "level9_mappings", None)
    shader = container.shader
    prefix = f"lib_{shader.major}_{shader.minor}_" if shader is not None else "lib_4_0_"
    out: list[str] = []
    for index, (chunk, title) in enumerate(chunks):
        # the payload bytes only where they are read (a typed chunk lists from its model)
        data = _payload(chunk) if (index and mappings is not None) or not isinstance(chunk, Level9Shader) else b""
        if index and mappings is not None:  # the first program's tables end the comment header
            out.extend(mappings(data))
        out.extend((f"// {title} shader bytecode:", "//"))
        out.extend(level9_program_lines(chunk if isinstance(chunk, Level9Shader) else data, prefix))
    return out


def level9_program_lines(chunk: Level9Shader | bytes, prefix: str = "lib_4_0_") -> list[str]:
    """fxc's listing of the D3D9 program of a level-9 chunk model (or of its payload bytes,
    read through the model)."""
    from shaderkit.formats.dxbc.aon9 import Level9Shader
    from shaderkit.isa.d3d9.text import listing_lines

    if not isinstance(chunk, Level9Shader):
        chunk = Level9Shader.parse(Reader(bytes(chunk), context="level9"))
    return listing_lines(chunk.program, prefix)


def _library_names(container: DxbcContainer) -> tuple[int, list[str], str]:
    """(flags, function names, creator) from the LIBH chunk (empty when unreadable)."""
    chunk = container.chunk("LIBH")
    data = _payload(chunk) if chunk is not None else b""
    try:
        _, creator_off, flags, count, table = struct.unpack_from("<5I", data, 0)
        if count > len(data) // 8:
            raise ValueError("count")
        names = []
        for i in range(count):
            (name_off,) = _U32.unpack_from(data, table + 8 * i + 4)
            names.append(_cstring(data, name_off))
        return flags, names, _cstring(data, creator_off)
    except (struct.error, ValueError):
        return 0, [], ""


def _cstring(data: bytes, offset: int) -> str:
    end = data.find(b"\0", offset)
    if offset >= len(data) or end < 0:
        raise ValueError("string")
    return data[offset:end].decode("latin-1")


def _library_listing(container: DxbcContainer, out: list[str]) -> None:
    flags, names, creator = _library_names(container)
    functions = container.functions
    out.append("//")
    out.append(f"// Library:  flags {flags}, {len(functions)} functions:")
    for i, name in enumerate(names):
        out.append(f"//  {i:2d}  {name}")
    out.append("//")
    if creator:
        out.append(f"// Created by:  {creator}")
        out.append("//")
    for function in functions:
        _shader_listing(function, out)


# -- debug information (SPDB: a PDB file in MSF 7.00 form) --------------------------------------
# Facts checked on the corpus: C13 line records and S_DEFRANGE_HLSL ranges use byte offsets into
# the SHDR/SHEX token stream; a range starting right after an instruction names what it wrote.

# The MSF/PDB structure and its streams' records are the model of :mod:`shaderkit.formats.dxbc.spdb`
# (records typed by :mod:`shaderkit.formats.dxbc.codeview`); this reads that model, never the bytes.
class DebugInfo:
    """What the listing uses from an SPDB chunk."""

    def __init__(self) -> None:
        #: program byte offset -> (line, file name)
        self.lines: dict[int, tuple[int, str]] = {}
        #: program byte offset where a range starts -> (``r0.x <- name`` note, the code ranges of
        #: the inlined function declaring the variable, or None for the shader's own function)
        self.notes: dict[int, list[tuple[str, _Scope | None]]] = {}
        #: (register, name) pairs live when the program starts
        self.initial: list[tuple[str, str]] = []
        #: statement ranges of inlined functions, innermost last: (start, end, line, file name)
        self.inlined: list[tuple[int, int, int, str]] = []

    def lines_of(self, offsets: list[int]) -> dict[int, tuple[int, str]]:
        """(line, file) of the instructions at ``offsets`` (ascending bytes): the innermost
        inlined function's statement covering one, else the C13 line record there."""
        found = {offset: self.lines[offset] for offset in offsets if offset in self.lines}
        budget = 64 * len(offsets) + 4096  # real sites nest a few deep; bad bytes must not hang
        for start, end, line, file in self.inlined:  # enclosing sites come before the ones inside
            first, stop = bisect_left(offsets, start), bisect_left(offsets, end)
            budget -= max(stop - first, 0) + 1
            if budget < 0:
                raise ShaderFormatError("SPDB inline sites cover the program more than 64 times over", None, "SPDB")
            for k in range(first, stop):
                found[offsets[k]] = (line, file)
        return found

    def notes_after(self, offset: int, after: int) -> list[str]:
        """The notes of ranges starting at ``after``, the end of the instruction at ``offset``:
        a variable of an inlined function only where that instruction is inside the function."""
        return [text for text, scope in self.notes.get(after, ()) if scope is None or offset in scope]


class _Scope:
    """The code ranges of an inlined function, merged and sorted for lookups."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted(ranges):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def __contains__(self, offset: int) -> bool:
        k = bisect_right(self.starts, offset) - 1
        return k >= 0 and offset < self.ends[k]


class _Types:
    """Names a variable's components (struct members, vectors) from the typed TPI records."""

    def __init__(self, types: TypeStream | None) -> None:
        self.types = types

    def _record(self, type_index: int) -> CodeViewRecord | None:
        record = self.types.record(type_index) if self.types is not None else None
        return record if record is not None and record.raw is None else None

    def members(self, fieldlist: int) -> list[tuple[str, int, int]]:
        from shaderkit.formats.dxbc.codeview import LF_FIELDLIST, LF_MEMBER

        record = self._record(fieldlist)
        if record is None or record.kind != LF_FIELDLIST:
            return []
        out = []
        for member in record.members():
            if member.kind != LF_MEMBER or member.raw is not None:
                break
            out.append((member.text("name"), member.number("type"), member.number("offset")))
        return out

    def suffix(self, type_index: int, offset: int, depth: int = 0) -> str:
        record = self._record(type_index)
        if record is None or depth > 8:
            return ""
        name = record.name
        if name in ("LF_MODIFIER_EX", "LF_MODIFIER"):
            return self.suffix(record.number("type"), offset, depth + 1)
        if name == "LF_MATRIX":  # _m<row><column>; the stride steps along rows (row_major) or columns
            stride = record.number("major_stride") or 16
            major, minor = offset // stride, offset % stride // 4
            row, column = (major, minor) if record.number("matrix_attributes") & 1 else (minor, major)
            return f"._m{row}{column}"
        if name == "LF_VECTOR":
            count, size = record.number("count"), record.number("size")
            step = size // count if count else 4
            return "." + "xyzw"[min(offset // max(step, 1), 3)]
        if name == "LF_STRUCTURE":
            best = None
            for member_name, mtype, moff in self.members(record.number("field_list")):
                if moff <= offset:
                    best = (member_name, mtype, moff)
            if best is not None:
                return "." + best[0] + self.suffix(best[1], offset - best[2], depth + 1)
        return ""


def read_debug_info(spdb: bytes | ProgramDatabase) -> DebugInfo:
    """Line numbers and variable locations from an SPDB chunk (its model or its payload)."""
    from shaderkit.formats.dxbc.spdb import ProgramDatabase, _fail

    pdb = spdb if isinstance(spdb, ProgramDatabase) else ProgramDatabase.from_bytes(spdb)
    if len(pdb.streams) < 4:
        raise _fail(f"PDB has {len(pdb.streams)} streams, needs at least 4")
    types = _Types(pdb.types)
    names = pdb.names
    info = DebugInfo()
    for _module, stream in pdb.modules():
        files = stream.file_names(names)
        inlinees = stream.inlinee_lines()
        _read_symbols(stream.symbols, types, info, _InlineSites(inlinees, files))
        for sub in stream.subsections:
            for block in sub.blocks or []:
                for offset, line in block.rows():
                    info.lines.setdefault(offset, (line, files.get(block.file_id, "")))
    return info


class _InlineSites:
    """The statement ranges of ``S_INLINESITE`` records, from their binary annotations (the
    CodeView line program: compressed opcodes changing the code offset, line and file)."""

    def __init__(self, inlinees: dict[int, tuple[int, int]], files: dict[int, str]) -> None:
        self.inlinees = inlinees
        self.files = files

    def ranges(self, site: CodeViewRecord, start: int) -> list[tuple[int, int, int, str]]:
        """(start, end, line, file) of each statement of ``site``; ``start`` is the enclosing
        procedure's first code byte, where offsets begin."""
        file_id, line = self.inlinees.get(site.number("inlinee"), (0, 0))
        data, at = site.tail, 0
        offset, statements = start, True
        records: list[list[int]] = []  # [start, end or -1, line, file id]

        def number() -> int:
            nonlocal at
            if at >= len(data):
                raise _annotation_error(site)
            first = data[at]
            size = 1 if first < 0x80 else 2 if first < 0xC0 else 4
            if at + size > len(data) or first >= 0xE0:
                raise _annotation_error(site)
            value = int.from_bytes(data[at : at + size], "big") & (0x1FFFFFFF if size == 4 else 0x3FFF)
            at += size
            return value

        def signed(value: int) -> int:
            return -(value >> 1) if value & 1 else value >> 1

        last_statement = False  # the last record emitted was a statement (kept), not an expression

        def emit(length: int = -1) -> None:
            nonlocal last_statement
            last_statement = statements
            if statements:
                if records and records[-1][1] < 0:
                    records[-1][1] = offset
                records.append([offset, offset + length if length >= 0 else -1, line, file_id])

        while at < len(data):
            op = number()
            if op == 0:  # end (padding)
                break
            if op in (2, 8, 9, 13, 7, 10):  # code offset base, range kind, columns, line end
                value = number()
                if op == 8:
                    statements = value == 1
            elif op == 1:  # an absolute offset (the procedure's own start is one too)
                offset = number()
            elif op == 3:
                offset += number()
                emit()
            elif op == 4:
                length = number()
                if last_statement:
                    records[-1][1] = records[-1][0] + length
            elif op == 5:
                file_id = number()
            elif op == 6:
                line += signed(number())
            elif op == 11:
                value = number()
                offset += value & 0xF
                line += signed(value >> 4)
                emit()
            elif op == 12:
                length = number()
                offset += number()
                emit(length)
            else:
                raise _annotation_error(site)
        if records and records[-1][1] < 0:  # no length and nothing after: its first instruction
            records[-1][1] = records[-1][0] + 1
        return [(a, b, n, self.files.get(f, "")) for a, b, n, f in records if b > a]


def _annotation_error(site: CodeViewRecord) -> ShaderFormatError:
    from shaderkit.formats.dxbc.spdb import _fail

    return _fail(f"S_INLINESITE of inlinee 0x{site.number('inlinee'):x}: unreadable binary annotations")


def _read_symbols(symbols: list[CodeViewRecord], types: _Types, info: DebugInfo, sites: _InlineSites) -> None:
    from shaderkit.formats.dxbc.codeview import (
        HLSL_INDEXABLE_TEMP,
        HLSL_REGISTER_PREFIXES,
        PROCEDURES,
        S_DEFRANGE_HLSL,
        S_INLINESITE,
        S_INLINESITE_END,
        S_LOCAL,
    )
    from shaderkit.isa.sm4.opcodes import SINGLE_REGISTER_NAMES

    local: tuple[str, int] | None = None
    first = None
    ranges: list[tuple[int, str, str, _Scope | None]] = []
    code_start = 0
    scopes: list[_Scope] = []  # the code ranges of the open inline sites
    for symbol in symbols:
        if symbol.raw is not None:
            continue
        if symbol.kind in PROCEDURES:
            code_start, scopes = symbol.number("offset"), []
        elif symbol.kind == S_INLINESITE:
            statements = sites.ranges(symbol, code_start)
            info.inlined.extend(statements)
            scopes.append(_Scope([(start, end) for start, end, _, _ in statements]))
        elif symbol.kind == S_INLINESITE_END and scopes:
            scopes.pop()
        elif symbol.kind == S_LOCAL:
            local = (symbol.text("name"), symbol.number("type"))
        elif symbol.kind == S_DEFRANGE_HLSL and local is not None:
            registers = symbol.register_offsets() or [0]
            reg = registers[0]
            reg_type = symbol.number("register_type")
            component = "xyzw"[(reg >> 2) & 3]
            if reg_type == HLSL_INDEXABLE_TEMP:  # a whole array: x0 <- name
                register = f"x{reg >> 4}"
            elif reg_type in SINGLE_REGISTER_NAMES:
                register = f"{SINGLE_REGISTER_NAMES[reg_type]}.{component}"
            else:
                register = f"{HLSL_REGISTER_PREFIXES.get(reg_type, f'reg{reg_type}_')}{reg >> 4}.{component}"
            name = local[0] + types.suffix(local[1], symbol.number("parent_offset"))
            start = symbol.number("range_start")
            end = start + symbol.number("range_size")
            first = start if first is None else min(first, start)
            scope = scopes[-1] if scopes else None
            ranges.append((start, register, name, scope))
            # live again after each gap: the instruction ending there wrote it again
            ranges.extend((start + gap + length, register, name, scope) for gap, length in symbol.gaps()
                          if start + gap + length < end)
    for start, register, name, scope in ranges:
        if start == first:
            info.initial.append((register, name))
        else:
            info.notes.setdefault(start, []).append((f"{register} <- {name}", scope))


# Instructions reach the annotations through the decoded program; see ``_annotate``.


# -- effects (FX10: fx_4_0, fx_4_1, fx_5_0) ---------------------------------------------
# Printed from the Effect model: typed records and the typed items of the unstructured block.

_FX_HEADER = struct.Struct("<19I")
_FX_TAGS = {0xFEFF1001: "fx_4_0", 0xFEFF1011: "fx_4_1", 0xFEFF2001: "fx_5_0"}
_BOOL = ("FALSE", "TRUE")
_CMP = ("", "NEVER", "LESS", "EQUAL", "LESS_EQUAL", "GREATER", "NOT_EQUAL", "GREATER_EQUAL", "ALWAYS")
_STENCIL = ("", "KEEP", "ZERO", "REPLACE", "INCR_SAT", "DECR_SAT", "INVERT", "INCR", "DECR")
_BLEND = ("", "ZERO", "ONE", "SRC_COLOR", "INV_SRC_COLOR", "SRC_ALPHA", "INV_SRC_ALPHA", "DEST_ALPHA",
          "INV_DEST_ALPHA", "DEST_COLOR", "INV_DEST_COLOR", "SRC_ALPHA_SAT", "", "", "BLEND_FACTOR",
          "INV_BLEND_FACTOR", "SRC1_COLOR", "INV_SRC1_COLOR", "SRC1_ALPHA", "INV_SRC1_ALPHA")
_BLENDOP = ("", "ADD", "SUBTRACT", "REV_SUBTRACT", "MIN", "MAX")
_ADDRESS = ("", "WRAP", "MIRROR", "CLAMP", "BORDER", "MIRROR_ONCE")
_FILTERS = {0: "MIN_MAG_MIP_POINT", 1: "MIN_MAG_POINT_MIP_LINEAR", 4: "MIN_POINT_MAG_LINEAR_MIP_POINT",
            5: "MIN_POINT_MAG_MIP_LINEAR", 16: "MIN_LINEAR_MAG_MIP_POINT",
            17: "MIN_LINEAR_MAG_POINT_MIP_LINEAR", 20: "MIN_MAG_LINEAR_MIP_POINT",
            21: "MIN_MAG_MIP_LINEAR", 85: "ANISOTROPIC", 128: "COMPARISON_MIN_MAG_MIP_POINT",
            129: "COMPARISON_MIN_MAG_POINT_MIP_LINEAR", 132: "COMPARISON_MIN_POINT_MAG_LINEAR_MIP_POINT",
            133: "COMPARISON_MIN_POINT_MAG_MIP_LINEAR", 144: "COMPARISON_MIN_LINEAR_MAG_MIP_POINT",
            145: "COMPARISON_MIN_LINEAR_MAG_POINT_MIP_LINEAR", 148: "COMPARISON_MIN_MAG_LINEAR_MIP_POINT",
            149: "COMPARISON_MIN_MAG_MIP_LINEAR", 213: "COMPARISON_ANISOTROPIC", 0x80000000: "TEXT_1BIT"}


def _names(table: tuple[str, ...]) -> dict[int, str]:
    return {i: name for i, name in enumerate(table) if name}


# Effects state table (g_lvGeneral order): name, value type, columns, indexable, value names.
_STATES: tuple[tuple[str, str, int, bool, dict[int, str] | None], ...] = (
    ("RasterizerState", "object", 1, False, None), ("DepthStencilState", "object", 1, False, None),
    ("BlendState", "object", 1, False, None), ("RenderTargetView", "object", 1, True, None),
    ("DepthStencilView", "object", 1, True, None), ("GenerateMips", "object", 1, False, None),
    ("VertexShader", "object", 1, False, None), ("PixelShader", "object", 1, False, None),
    ("GeometryShader", "object", 1, False, None), ("DS_StencilRef", "uint", 1, False, None),
    ("AB_BlendFactor", "float", 4, False, None), ("AB_SampleMask", "uint", 1, False, None),
    ("FillMode", "uint", 1, False, {2: "WIREFRAME", 3: "SOLID"}),
    ("CullMode", "uint", 1, False, {1: "NONE", 2: "FRONT", 3: "BACK"}),
    ("FrontCounterClockwise", "bool", 1, False, _names(_BOOL)), ("DepthBias", "uint", 1, False, None),
    ("DepthBiasClamp", "float", 1, False, None), ("SlopeScaledDepthBias", "float", 1, False, None),
    ("DepthClipEnable", "bool", 1, False, _names(_BOOL)), ("ScissorEnable", "bool", 1, False, _names(_BOOL)),
    ("MultisampleEnable", "bool", 1, False, _names(_BOOL)),
    ("AntialiasedLineEnable", "bool", 1, False, _names(_BOOL)),
    ("DepthEnable", "bool", 1, False, _names(_BOOL)),
    ("DepthWriteMask", "uint", 1, False, {0: "ZERO", 1: "ALL"}),
    ("DepthFunc", "uint", 1, False, _names(_CMP)), ("StencilEnable", "bool", 1, False, _names(_BOOL)),
    ("StencilReadMask", "byte", 1, False, None), ("StencilWriteMask", "byte", 1, False, None),
    ("FrontFaceStencilFail", "uint", 1, False, _names(_STENCIL)),
    ("FrontFaceStencilDepthFail", "uint", 1, False, _names(_STENCIL)),
    ("FrontFaceStencilPass", "uint", 1, False, _names(_STENCIL)),
    ("FrontFaceStencilFunc", "uint", 1, False, _names(_CMP)),
    ("BackFaceStencilFail", "uint", 1, False, _names(_STENCIL)),
    ("BackFaceStencilDepthFail", "uint", 1, False, _names(_STENCIL)),
    ("BackFaceStencilPass", "uint", 1, False, _names(_STENCIL)),
    ("BackFaceStencilFunc", "uint", 1, False, _names(_CMP)),
    ("AlphaToCoverageEnable", "bool", 1, False, _names(_BOOL)),
    ("BlendEnable", "bool", 1, True, _names(_BOOL)), ("SrcBlend", "uint", 1, True, _names(_BLEND)),
    ("DestBlend", "uint", 1, True, _names(_BLEND)), ("BlendOp", "uint", 1, True, _names(_BLENDOP)),
    ("SrcBlendAlpha", "uint", 1, True, _names(_BLEND)), ("DestBlendAlpha", "uint", 1, True, _names(_BLEND)),
    ("BlendOpAlpha", "uint", 1, True, _names(_BLENDOP)), ("RenderTargetWriteMask", "byte", 1, True, None),
    ("Filter", "uint", 1, False, _FILTERS), ("AddressU", "uint", 1, False, _names(_ADDRESS)),
    ("AddressV", "uint", 1, False, _names(_ADDRESS)), ("AddressW", "uint", 1, False, _names(_ADDRESS)),
    ("MipLODBias", "float", 1, False, None), ("MaxAnisotropy", "uint", 1, False, None),
    ("ComparisonFunc", "uint", 1, False, _names(_CMP)), ("BorderColor", "float", 4, False, None),
    ("MinLOD", "float", 1, False, None), ("MaxLOD", "float", 1, False, None),
    ("Texture", "object", 1, False, None), ("HullShader", "object", 1, False, None),
    ("DomainShader", "object", 1, False, None), ("ComputeShader", "object", 1, False, None),
)
_STATE_OBJECTS = {2: "BlendState", 3: "DepthStencilState", 4: "RasterizerState", 21: "SamplerState"}
_SHADER_OBJECTS = frozenset({5, 6, 7, 8})
#: SBinaryNumericVariable flag: the variable has a packoffset
_EXPLICIT_BIND_POINT = 4


def _fx_float(word: int) -> str:
    """Effect constants print like ``%g`` with 9 significant digits (``0.707000017``)."""
    from shaderkit.isa.d3d9.text import fmt_def

    return fmt_def(word)


class _Effect:
    """Prints fxc's effect listing from the :class:`~shaderkit.formats.dxbc.fx10.Effect` model: its
    typed records (buffers, objects, techniques...) and the unstructured block they point into."""

    def __init__(self, data: bytes, depth: int, model: Effect | None = None) -> None:
        from shaderkit.formats.dxbc.fx10 import Effect

        if model is None:
            if len(data) < _FX_HEADER.size:
                raise ShaderFormatError(f"FX10 payload of {len(data)} bytes is too short", 0, "FX10")
            tag = _FX_HEADER.unpack_from(data, 0)[0]
            if tag not in _FX_TAGS:
                raise ShaderFormatError(f"unknown effect tag 0x{tag:08x}", 0, "FX10")
            model = Effect.parse(Reader(bytes(data), context="FX10"), depth)
        if model.header.tag not in _FX_TAGS:
            raise ShaderFormatError(f"unknown effect tag 0x{model.header.tag:08x}", 0, "FX10")
        if model.records is None:
            raise ShaderFormatError("FX10 records do not match the header's counts", model.header.size, "FX10")
        if model.block is None:
            raise ShaderFormatError("FX10 records point at items the unstructured block does not hold",
                                    model.header.size, "FX10")
        self.model = model
        self.records = model.records
        self.block = model.block
        self.depth = depth
        #: fx_5_0 (Effects11): groups, interfaces, SBinaryShaderData5 and fxc's fx_5_0 spellings
        self.fx5 = model.records.fx5

    # -- the typed unstructured block ------------------------------------------------------------
    def string(self, offset: int) -> str:
        return self.block.string(offset)

    def type_info(self, offset: int) -> tuple[str, int, int, int, int, int]:
        """(name, var type, elements, total size, packed size, object type or numeric bits)."""
        t = self.block.type_at(offset)
        return self.string(t.name_offset), t.var_type, t.elements, t.total_size, t.packed_size, t.info

    def value_words(self, offset: int, packed: int) -> tuple[int, ...]:
        """The first ``packed // 4`` words of the value at ``offset``."""
        return self.block.value_at(offset)[: packed // 4]

    def annotations(self, annotations: list[Annotation], indent: str) -> list[str]:
        lines = []
        for a in annotations:
            tname, var_type, _elements, _total, packed, _extra = self.type_info(a.type_offset)
            if var_type == 2:  # string(s): one offset per element
                value = ", ".join('"' + self.string(o) + '"' for o in a.values)
            else:
                words = self.value_words(a.values[0], packed) if a.values else ()
                value = ", ".join(self.scalar(tname, w) for w in words)
            lines.append(f"{indent}    {tname} {self.string(a.name_offset)} = {value};")
        if lines:
            return [f"{indent}<", *lines, f"{indent}>"]
        return []

    @staticmethod
    def scalar(type_name: str, word: int) -> str:
        if type_name.startswith("float"):
            return _fx_float(word)
        if type_name.startswith("bool"):
            return "true" if word else "false"
        if type_name.startswith("uint") or type_name.startswith("dword"):
            return str(word)
        return str(word - (1 << 32) if word >> 31 else word)

    # -- printing ------------------------------------------------------------------------------
    def numeric(self, v: NumericVariable, out: list[str]) -> None:
        tname, var_type, elements, total, packed, bits = self.type_info(v.type_offset)
        decl = f"{tname:<7} {self.string(v.name_offset)}" + (f"[{elements}]" if elements else "")
        if v.semantic_offset:
            decl += f" : {self.string(v.semantic_offset)}"
        if v.flags & _EXPLICIT_BIND_POINT and self.fx5:  # packoffset: the offset's register and component
            decl += f" : packoffset(c{v.offset // 16}.{'xyzw'[v.offset // 4 % 4]})"
        if v.default_offset:
            words = self.value_words(v.default_offset, packed)
            if var_type != 1:  # structs: the raw words
                values = [f"0x{w:08x}" for w in words]
            else:
                values = [self.scalar(tname, w) for w in words]
            # a scalar's default without braces (SBinaryNumericType layout 1: scalar); a vector or
            # matrix whose values are all the same shows that value once (fxc: ``float4 v = { 1 };``)
            scalar = var_type == 1 and bits & 7 == 1 and not elements and len(values) == 1
            if var_type == 1 and not elements and len(set(values)) == 1:
                values = values[:1]
            decl += " = " + (values[0] if scalar else "{ " + ", ".join(values) + " }")
        self.annotations(v.annotations, "    ")  # read (checked) but not printed, as fxc does
        out.append(f"    {decl + ';':<36}// Offset: {v.offset:4d}, size: {total:4d}")

    def buffers(self, buffers: list[BufferRecord], out: list[str], pool: bool = False) -> None:
        for b in buffers:
            kind = "tbuffer" if b.flags & 1 else "cbuffer"
            reg = f" : register({'t' if b.flags & 1 else 'b'}{b.bind_point})" if b.bind_point != 0xFFFFFFFF else ""
            out.append(f"{kind} {self.string(b.name_offset)}{reg}")
            if not pool:
                self.annotations(b.annotations, "")
            out.append("{")
            for v in b.variables:
                self.numeric(v, out)
            out.extend(("}", ""))

    def value(self, state: int, type_code: int, word: int) -> str:
        _name, kind, _cols, _indexed, names = _STATES[state] if state < len(_STATES) else ("", "uint", 1, False, None)
        if kind == "float":
            value = float(struct.unpack("<f", struct.pack("<I", word))[0]) if type_code == 1 else float(
                word - (1 << 32) if word >> 31 else word)
            return _fx_float(struct.unpack("<I", struct.pack("<f", value))[0])
        if kind == "byte":
            return f"0x{word & 0xFF:02x}"
        if names is not None and word in names:  # the comment shows a bool constant (type 4) as bool
            typed = ("true" if word else "false") if type_code == 4 else word
            return f"{names[word]} /* {typed} */"
        return str(word) if word <= 10000 else f"0x{word:08x}"

    def assignment(self, a: Assignment, indent: str, out: list[str]) -> None:
        state, index, kind, init = a.state, a.index, a.kind, a.initializer_offset
        name, vtype, cols, indexed, _names = _STATES[state] if state < len(_STATES) else (f"state{state}", "uint", 1, False, None)
        lhs = f"{name}[{index}]" if indexed else name
        if kind == 1:  # constants
            values = [self.value(state, type_code, word)
                      for type_code, word in self.block.assignment_at(init).constants]
            if vtype == "object":
                rhs = "NULL"
            else:
                rhs = f"{vtype}{cols if cols > 1 else ''}({', '.join(values)})"
        elif kind == 2:  # variable
            rhs = self.string(init)
        elif kind == 3:  # constant index
            array_off, array_index = self.block.assignment_at(init).words
            rhs = f"{self.string(array_off)}[{array_index}]"
        elif kind == 4:  # variable index
            array_off, index_off = self.block.assignment_at(init).words
            rhs = f"{self.string(array_off)}[{self.string(index_off)}]"
        elif kind in (7, 8):  # inline shader (shader, stream-output declaration) / SBinaryShaderData5
            data5 = self.block.shader_data.get(init) if kind == 8 else None
            shader_off = data5.shader_offset if data5 is not None else self.block.assignment_at(init).words[0]
            if data5 is not None:
                notes = self.shader_notes(data5)
            else:  # an fx_4-style (shader, stream-output declaration) pair
                notes = self.stream_out_note(self.block.assignment_at(init).words[1])
            self.shader_block(f"{indent}{lhs} = ", indent, shader_off, out, notes)
            return
        elif kind in (5, 6):  # (array name, expression) / expression: fxc's eval(...)
            lines = self.expression_lines(self.expression_offset(a))
            if lines is None:
                rhs = f"/* assignment type {kind} */"
            else:
                body = "eval(" + ("\n" + indent + " " * 16).join(lines) + ")"
                rhs = f"{self.string(self.block.assignment_at(init).words[0])}[{body}]" if kind == 5 else body
        else:
            rhs = f"/* assignment type {kind} */"
        out.extend(f"{indent}{lhs:<8} = {rhs};".split("\n"))

    def expression_offset(self, a: Assignment) -> int:
        """Block offset of the FXLVM container of an expression assignment (type 5 or 6)."""
        return self.block.assignment_at(a.initializer_offset).words[1] if a.kind == 5 else a.initializer_offset

    def expression_lines(self, code_off: int) -> list[str] | None:
        """The instruction lines of fxc's ``eval(...)`` of the FXLVM container at ``code_off``; None
        when the block holds no expression there."""
        container = self.model.shader_at(code_off)
        if container is None:
            code = self.block.code.get(code_off)
            if not code:
                return None
            from shaderkit.formats.dxbc.container import DxbcContainer as Container

            try:
                container = Container.from_bytes(code)
            except ShaderFormatError:
                return None
        from shaderkit.formats.dxbc.fxlvm import expression_lines  # (effects with expressions only: start-up)

        try:
            return expression_lines(container)
        except ShaderFormatError:  # an operand past the literals: printed as the assignment type
            return None

    def expressions(self) -> list[tuple[int, list[str]]]:
        """Each printed ``eval(...)`` in listing order: its container's block offset and its
        instruction lines. Only state objects' blocks (pool objects are declared only) and passes
        hold assignments; fx_5_0 listings print the techniques of groups."""
        rec = self.records
        assignments = [a for o in rec.objects if self.type_info(o.type_offset)[5] in _STATE_OBJECTS
                       for block in o.blocks for a in block]
        techniques = [t for g in rec.groups for t in g.techniques] if self.fx5 else rec.techniques
        assignments += [a for t in techniques for p in t.passes for a in p.assignments]
        out = []
        for a in assignments:
            if a.kind in (5, 6):
                offset = self.expression_offset(a)
                lines = self.expression_lines(offset)
                if lines is not None:
                    out.append((offset, lines))
        return out

    def stream_out_note(self, decl_offset: int) -> list[str]:
        """fxc's comment after an fx_4-style geometry shader with stream output."""
        if not decl_offset:
            return []
        return [f'/* Stream out decl: "{self.string(decl_offset)}" */']

    def shader_notes(self, data: ShaderData5) -> list[str]:
        """fxc's comments after an fx_5_0 shader: its stream-output declarations (one per stream
        slot in use) and rasterized stream, then its interface parameters' bound instances."""
        notes = []
        streams = [(k, off) for k, off in enumerate(data.so_decl_offsets[: min(data.so_decl_count, 4)]) if off]
        for k, off in streams:
            notes.append(f'/* Stream {k} out decl: "{self.string(off)}" */')
        if streams:
            notes.append(f"/* Stream {data.rasterized_stream} to rasterizer */")
        if data.interface_binding_count:
            rows = self.block.bindings.get(data.interface_bindings_offset, [])[: data.interface_binding_count]
            for k, (instance, index) in enumerate(rows):
                element = "" if index == 0xFFFFFFFF else f"[{index}]"
                notes.append(f"/* Interface parameter {k} bound to: {self.string(instance)}{element} */")
        return notes

    def shader_block(self, head: str, indent: str, shader_off: int, out: list[str],
                     notes: list[str] | None = None) -> None:
        """``head`` + ``asm { ... }`` (the shader's listing indented under ``indent``), closed by
        ``};`` or by ``}`` and ``notes`` one indentation level out, the last ending with ``;``.
        fxc ends the listing with a line of blanks (twice the indentation + 4)."""
        if not shader_off:
            out.append(f"{head}NULL;")
            return
        code = self.block.code.get(shader_off)
        if code is None:
            raise ShaderFormatError(f"FX10 block holds no shader at {shader_off:#x}",
                                    self.model.header.size + shader_off, "FX10")
        out.append(f"{head}asm {{")
        inner: list[str] = []
        if code:
            embedded = self.model.shader_at(shader_off)
            if embedded is None:  # a code block the model keeps as bytes (a container that would not rebuild)
                from shaderkit.formats.dxbc.container import DxbcContainer as Container

                embedded = Container.from_bytes(code)
            _listing(embedded, inner, self.depth + 1)
        # fx_5_0 listings indent empty lines too (a level-9 program's blank line); every line of a
        # multi-line item (an immediate constant buffer's rows) takes the indentation
        out.extend((indent + "    " + line) if line or self.fx5 else line
                   for item in inner for line in item.split("\n"))
        out.append(" " * (2 * len(indent) + 4))
        if not notes:
            out.append(f"{indent}}};")
            return
        out.append(f"{indent}}}")
        outer = indent[4:]
        out.extend(outer + note for note in notes[:-1])
        out.append(f"{outer}{notes[-1]};")

    def objects(self, objects: list[ObjectVariable], out: list[str], pool: bool = False) -> None:
        for o in objects:
            tname, _vt, elements, _total, _packed, obj_type = self.type_info(o.type_offset)
            name = self.string(o.name_offset) + (f"[{elements}]" if elements else "")
            if pool:  # shared objects are declared only; their contents live in the pool
                out.append(f"{tname:<7} {name};")
                continue
            ann = self.annotations(o.annotations, "")
            if obj_type in _STATE_OBJECTS:
                blocks = []
                for block in o.blocks:
                    lines: list[str] = []
                    for a in block:
                        self.assignment(a, "    " if elements == 0 else "        ", lines)
                    blocks.append(lines)
                out.append(f"{tname:<7} {name}")
                out.extend(ann)
                if elements == 0:  # fxc prints the braces of an empty block too
                    out.extend(("{", *(blocks[0] if blocks else ()), "};"))
                else:
                    out.append("{")
                    for i, lines in enumerate(blocks):
                        out.extend(("    {", *lines, "    }" + ("," if i < len(blocks) - 1 else "")))
                    out.append("};")
                continue
            if o.shaders5:  # fx_5_0 shaders: SBinaryShaderData5 per element
                out.append(f"{tname} {name} = ")
                for data in o.shaders5:
                    self.shader_block("    ", "    ", data.shader_offset, out, self.shader_notes(data))
                out.extend(ann)
                continue
            if obj_type in _SHADER_OBJECTS or obj_type == 1:
                offs = [init[0] for init in o.initializers]
                if obj_type == 1:
                    values = ", ".join('"' + self.string(off) + '"' for off in offs)
                    out.append(f"{tname:<7} {name} = {values};")
                else:
                    out.append(f"{tname} {name} = ")
                    for off, init in zip(offs, o.initializers):
                        if off == 0:
                            out.append("    NULL;")
                        else:  # a geometry shader with stream output: (shader, declaration)
                            notes = self.stream_out_note(init[1]) if len(init) > 1 else []
                            self.shader_block("    ", "    ", off, out, notes)
                out.extend(ann)
                continue
            out.append(f"{tname:<7} {name};")
            out.extend(ann)

    def techniques(self, techniques: list[Technique], out: list[str], keyword: str = "technique10",
                   indent: str = "") -> None:
        for t in techniques:
            out.append(f"{indent}{keyword} {self.string(t.name_offset)}")
            out.extend(self.annotations(t.annotations, indent))
            out.append(f"{indent}{{")
            for p in t.passes:
                name = self.string(p.name_offset)
                out.append(f"{indent}    pass {name}" if name or not self.fx5 else f"{indent}    pass")
                out.extend(self.annotations(p.annotations, indent + "    "))
                out.append(f"{indent}    {{")
                for a in p.assignments:
                    self.assignment(a, indent + "        ", out)
                out.append(f"{indent}    }}")
                out.append("")
            out.extend((f"{indent}}}", ""))

    def interfaces(self, interfaces: list[InterfaceVariable], out: list[str]) -> None:
        """fx_5_0 interface variables: ``type name[elements];`` (initializers bind class instances)."""
        for i in interfaces:
            tname, _vt, elements, _total, _packed, _extra = self.type_info(i.type_offset)
            name = self.string(i.name_offset) + (f"[{elements}]" if elements else "")
            if i.default_offset:
                rows = self.block.bindings.get(i.default_offset, [])
                values = [self.string(instance) + ("" if index == 0xFFFFFFFF else f"[{index}]")
                          for instance, index in rows]
                value = values[0] if len(values) == 1 and not elements else "{ " + ", ".join(values) + " }"
                out.append(f"{tname:<7} {name} = {value};")
            else:
                out.append(f"{tname:<7} {name};")
            out.extend(self.annotations(i.annotations, ""))

    def groups(self, groups: list[Group], out: list[str]) -> None:
        """fx_5_0 groups: ``fxgroup [name]`` around their ``technique11`` blocks."""
        for g in groups:
            name = self.string(g.name_offset)
            out.append(f"fxgroup {name}" if name else "fxgroup")
            out.extend(self.annotations(g.annotations, ""))
            out.extend(("{", "    //", f"    // {len(g.techniques)} technique(s)", "    //"))
            self.techniques(g.techniques, out, "technique11", "    ")
            out.extend(("}", ""))

    def lines5(self) -> list[str]:
        """The fx_5_0 listing: no pool sections; interfaces and groups after the objects."""
        rec = self.records
        out = ["//", f"// FX Version: {self.model.header.version}", "//"]
        if rec.buffers:
            out.extend((f"// {len(rec.buffers)} local buffer(s)", "//"))
        self.buffers(rec.buffers, out)
        if rec.objects:
            out.extend(("//", f"// {len(rec.objects)} local object(s)", "//"))
        self.objects(rec.objects, out)
        if rec.interfaces:
            if out[-1]:
                out.append("")
            out.extend(("//", f"// {len(rec.interfaces)} local interface(s)", "//"))
            self.interfaces(rec.interfaces, out)
        if out[-1]:
            out.append("")
        if rec.groups:
            out.extend(("//", f"// {len(rec.groups)} groups(s)", "//"))
            self.groups(rec.groups, out)
        return out

    def lines(self) -> list[str]:
        if self.records.fx5:
            return self.lines5()
        h = self.model.header
        rec = self.records
        local_cbs, local_objects = len(rec.buffers), len(rec.objects)
        pool_cbs, pool_objects = len(rec.pool_buffers), len(rec.pool_objects)
        out = ["//", f"// FX Version: {h.version}",
               f"// Child effect (requires effect pool): {'true' if h.is_child else 'false'}", "//"]
        if local_cbs:
            out.extend((f"// {local_cbs} local buffer(s)", "//"))
        self.buffers(rec.buffers, out)
        if local_objects:
            out.extend(("//", f"// {local_objects} local object(s)", "//"))
        self.objects(rec.objects, out)
        if pool_cbs:
            if out[-1]:
                out.append("")
            out.extend(("//", f"// {pool_cbs} shared buffer(s)", "//"))
        self.buffers(rec.pool_buffers, out, True)
        if pool_objects:
            out.extend(("//", f"// {pool_objects} shared object(s)", "//"))
        self.objects(rec.pool_objects, out, True)
        if out[-1]:
            out.append("")
        if rec.techniques:
            out.extend(("//", f"// {len(rec.techniques)} technique(s)", "//"))
        self.techniques(rec.techniques, out)
        return out


def _effect_listing(container: DxbcContainer, out: list[str], depth: int) -> None:
    from shaderkit.formats.dxbc.fx10 import Effect

    chunk = container.chunk("FX10")
    if isinstance(chunk, Effect):
        out.extend(_Effect(b"", depth, chunk).lines())  # the typed records, as edited
        return
    # unknown tags and truncated headers stay raw chunks: _Effect explains why
    data = _payload(chunk) if chunk is not None else b""
    out.extend(_Effect(data, depth).lines())


def effect_listing(effect: Effect) -> str:
    """fxc's listing of an effect binary that has no container around it (a bare fx_5_0 file,
    vkd3d-shader's ``-b fx`` output); lines end with ``\\n``."""
    return "\n".join(_Effect(b"", 0, effect).lines()) + "\n"


def _listing(container: DxbcContainer, out: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ShaderFormatError(f"containers nested deeper than {MAX_DEPTH}", 0, "DXBC")
    if container.functions:
        _library_listing(container, out)
    elif container.chunk("FX10") is not None:
        _effect_listing(container, out, depth)
    else:
        _shader_listing(container, out)


def effect_expressions(effect: Effect) -> list[tuple[int, list[str]]]:
    """The effect's ``eval(...)`` expressions in the order its listing prints them: each one's
    container offset in the unstructured block and its instruction lines (found without
    printing the listing)."""
    return _Effect(b"", 0, effect).expressions()


def listing(container: DxbcContainer, exact: bool = False, hex_literals: bool = False) -> str:
    """The whole fxc-style listing of ``container`` as text (lines end with ``\\n``).

    ``exact``: floats are printed so that they read back bit for bit, and words fxc does not
    print are shown (``raw(...)``), so the assembler rebuilds the code from the text alone.
    ``hex_literals``: every literal (immediates, ICB, declaration values) as its bits in hex.
    """
    out: list[str] = []
    token, hex_token = _EXACT.set(exact), _HEX.set(hex_literals)
    try:
        _listing(container, out, 0)
    finally:
        _EXACT.reset(token)
        _HEX.reset(hex_token)
    return "\n".join(out) + "\n"

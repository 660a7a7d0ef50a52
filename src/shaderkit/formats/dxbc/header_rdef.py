"""RDEF from the comment header of an fxc listing (``shaderkit asm`` without ``--base``).

Reads what :mod:`.listing` prints: ``// Buffer Definitions:`` (cbuffers, tbuffers, interface
tables, ``Resource bind info for`` blocks; variables with their types, array sizes, offsets,
sizes, ``[unused]`` marks and default values; structs and their members, nested) and
``// Resource Bindings:`` (fxc 10.x, fxc 9.x and SM5.1 tables). The models are built through the
public dataclasses of :mod:`.rdef`. What the text does not show (type sharing, sample counts of
structured buffers, cbuffer sizes beyond the last variable, the resource bindings' "explicit
register" flag, compile flags other than those below) takes fxc's usual values; the container's
own listing prints the same lines.

Rules that hold for every fxc RDEF in the corpus and are applied: the compile flags carry
D3DCOMPILE_NO_PRESHADER (0x100, 311 of 311) and D3DCOMPILE_SKIP_OPTIMIZATION (0x4) exactly when
the program declares ``skipOptimization`` (9 of 9); library functions carry the RD11 header
whatever their model (33 of 33); SM5 type names are the printed type without ``row_major``
(but ``uint``, which the source may have spelled ``dword``: left empty).

A line this module cannot read raises :class:`~shaderkit.errors.AssemblyError` with its line.
"""

from __future__ import annotations

import re
import struct

from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.listing import (
    _BIND_PREFIX,
    _DIMENSION_NAMES,
    _RETURN_TYPE_NAMES,
    _SCALAR_NAMES,
    type_name,
)
from shaderkit.formats.dxbc.rdef import (
    RD11,
    RD11_51,
    ConstantBuffer,
    ResourceBinding,
    ResourceDefinition,
    ShaderType,
    ShaderTypeMember,
    ShaderVariable,
)
from shaderkit.isa.sm4.assembler import HEX_WORDS

_SCALARS = sorted(((name, value) for value, name in _SCALAR_NAMES.items()), key=lambda item: -len(item[0]))
_SCALAR_BY_NAME = {name: value for name, value in _SCALARS}
_BUFFER_KINDS = {"cbuffer": 0, "tbuffer": 1, "interfaces": 2, "Resource bind info for": 3}
_BUFFER_RE = re.compile(r"// (cbuffer|tbuffer|interfaces|Resource bind info for) (\S+)$")
_TAIL_RE = re.compile(r"// Offset: *(\d+|N/A)(?: Size: *(\d+|N/A))?( \[unused\])?$")
#: 3Dmigoto's rewrite of the offset note (its listings since 1.3): register index, components
#: (``5.zw``, ``0 1 2 3``, ``8-23``, ``6-9.x``) and the size in components (``13``, ``2+2``)
_INDEX_TAIL_RE = re.compile(r"// Index: *(\d+)(?:\.([xyzw]+))?(?:(?: \d+)+|-\d+(?:\.[xyzw])?)?"
                            r"(?: *Components: *(\d+)(?:\+([0-3]))?)?( \[unused\])?$")
_DECL_RE = re.compile(r"(row_major )?(\S+) (\S+?)(?:\[(\d+)\])?;$")
_INTERFACE_RE = re.compile(r"interface (\S+) (\S+?)(?:\[(\d+)\])?;$")
_CLOSE_RE = re.compile(r"\} (\S+?)(?:\[(\d+)\])?;$")
_WORDS_RE = re.compile(rf"(?:= )?({HEX_WORDS}) ?$")
_VECTOR_RE = re.compile(r"([1-4])(?:x([1-4]))?$")
_DIMENSIONS = {name: value for value, name in _DIMENSION_NAMES.items()}
_RETURN_TYPES = {name: value for value, name in _RETURN_TYPE_NAMES.items()}
_END_TITLES = ("// Resource Bindings:", "// Input signature:", "// Output signature:",
               "// Patch Constant signature:", "// Note:")
_U16_MAX, _U32_MAX = 0xFFFF, 0xFFFFFFFF
#: input types of structured buffers (texture, UAV, append, consume, UAV with counter)
_STRUCTURED = frozenset({5, 6, 9, 10, 11})
_MIXED = 6  # return type of structured and raw buffers
#: deepest struct nesting read (the printer recurses per level)
_MAX_NESTING = 64
#: D3DCOMPILE_NO_PRESHADER, D3DCOMPILE_SKIP_OPTIMIZATION, D3DCOMPILE_DEBUG (RDEF compile flags)
NO_PRESHADER, SKIP_OPTIMIZATION, COMPILE_DEBUG = 0x100, 0x4, 0x1
_UINT = 19
#: RDEF target program type of library functions ("LF")
_LIBRARY_FUNCTION = 0x4C46
#: RD11 sizes of SM5.1 headers (bindings grow to 40 bytes)
_RD11_SIZES_51 = (60, 24, 40, 40, 36, 12)


def rdef_from_header(header: list[str], creator: str, target: int) -> ResourceDefinition:
    """The RDEF model of a listing's comment ``header`` lines (line numbers count from 1)."""
    major = (target >> 8) & 0xFF
    minor = target & 0xFF
    rdef = ResourceDefinition(creator=creator, target=target, flags=NO_PRESHADER)
    # library functions ("LF") carry the RD11 header whatever their model (33 of 33 in the corpus)
    if major >= 5 or target >> 16 == _LIBRARY_FUNCTION:
        sm51 = (major, minor) >= (5, 1)
        rdef.rd11_tag = RD11_51 if sm51 else RD11
        if sm51:
            rdef.rd11_sizes = _RD11_SIZES_51
    lines = [line.rstrip() for line in header]
    start = _find(lines, "// Buffer Definitions:")
    if start is not None:
        rdef.constant_buffers = _Buffers(lines).read(start + 1)
    start = _find(lines, "// Resource Bindings:")
    if start is not None:
        rdef.resource_bindings = _bindings(lines, start + 1, rdef.is_sm51)
    # structured buffers: fxc stores the element size (the "Resource bind info" block's only
    # variable) as the sample count
    strides = {cb.name: cb.variables[0].size for cb in rdef.constant_buffers
               if cb.cbuffer_type == 3 and len(cb.variables) == 1}
    for b in rdef.resource_bindings:
        if b.input_type in _STRUCTURED:
            b.num_samples = strides.get(b.name, 0)
    if rdef.is_sm5:
        seen: set[int] = set()
        for cb in rdef.constant_buffers:
            for v in cb.variables:
                _name_types(v.type, seen)
    return rdef


def _name_types(t: ShaderType, seen: set[int]) -> None:
    """SM5 names of scalar, vector and matrix types (the printed type without ``row_major``),
    struct members included; ``uint`` stays unnamed (the source may have said ``dword``)."""
    if id(t) in seen:
        return
    seen.add(id(t))
    if t.variable_class <= 3 and not t.name and t.variable_type != _UINT:
        t.name = type_name(t).removeprefix("row_major ")
    for m in t.members:
        _name_types(m.type, seen)


def _find(lines: list[str], title: str) -> int | None:
    return next((n for n, line in enumerate(lines) if line.strip() == title), None)


def _fail(message: str, index: int) -> AssemblyError:
    return AssemblyError(message, index + 1, 1)


def _name(text: str, index: int) -> str:
    """A name the RDEF string table can hold (latin-1, no NUL)."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        raise _fail(f"name {text!r} is not latin-1 text", index) from None
    if "\0" in text:
        raise _fail("a name holds a NUL character", index)
    return text


def _number(text: str, limit: int, what: str, index: int) -> int:
    value = int(text)
    if value > limit:
        raise _fail(f"{what} {value} does not fit the RDEF field", index)
    return value


# -- buffer definitions -----------------------------------------------------------------------

def _scalar_type(text: str, row_major: bool) -> ShaderType | None:
    """``float4``, ``row_major float4x3``, ``uint``... as a type (None if not such a name)."""
    value = _SCALAR_BY_NAME.get(text)
    if value is not None:
        return ShaderType(0, value, 1, 1)
    for name, value in _SCALARS:
        if text.startswith(name):
            m = _VECTOR_RE.fullmatch(text[len(name):])
            if m is None:
                continue
            if m.group(2) is None:
                return ShaderType(1, value, 1, int(m.group(1)))
            return ShaderType(2 if row_major else 3, value, int(m.group(1)), int(m.group(2)))
    return None


class _Frame:
    """A struct being read: its name and members with their absolute offsets."""

    __slots__ = ("name", "members", "line")

    def __init__(self, name: str, line: int) -> None:
        self.name = name
        self.line = line
        self.members: list[tuple[ShaderTypeMember, int]] = []


class _Buffers:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def read(self, i: int) -> list[ConstantBuffer]:
        lines = self.lines
        out: list[ConstantBuffer] = []
        while i < len(lines):
            line = lines[i].strip()
            if line.startswith(_END_TITLES):
                break
            m = _BUFFER_RE.match(line)
            if m is not None:
                buffer, i = self.buffer(_BUFFER_KINDS[m.group(1)], _name(m.group(2), i), i + 1)
                out.append(buffer)
                continue
            if line not in ("//", ""):
                raise _fail(f"unreadable buffer definition line {line!r}", i)
            i += 1
        return out

    def buffer(self, kind: int, name: str, i: int) -> tuple[ConstantBuffer, int]:
        lines = self.lines
        if i >= len(lines) or lines[i].strip() != "// {":
            raise _fail(f"expected '// {{' after buffer {name}", i)
        i += 1
        cb = ConstantBuffer(name, cbuffer_type=kind)
        stack: list[_Frame] = []
        last: ShaderVariable | None = None
        while i < len(lines):
            raw = lines[i]
            if not raw.startswith("//"):
                raise _fail("buffer definitions end without '// }'", i)
            body = raw[2:].strip()
            i += 1
            if not body or body == "{":
                continue
            if body == "}" and not stack:
                break
            if body == "struct" or body.startswith("struct "):
                if len(stack) >= _MAX_NESTING:
                    raise _fail(f"structs nested deeper than {_MAX_NESTING}", i - 1)
                stack.append(_Frame(_name(body[len("struct"):].strip(), i - 1), i - 1))
                continue
            words = _WORDS_RE.fullmatch(body)
            if words is not None and last is not None and not stack:
                data = b"".join(struct.pack("<I", int(w, 16)) for w in words.group(1).split())
                last.default_value = (last.default_value or b"") + data
                continue
            tail_at = body.rfind("// Offset:")
            if tail_at < 0 and body.rfind("// Index:") >= 0:
                body, tail_at = _offset_tail(body, body.rfind("// Index:"), i - 1)
            if tail_at < 0:
                raise _fail(f"unreadable buffer definition line {body!r}", i - 1)
            tail = _TAIL_RE.fullmatch(body[tail_at:])
            if tail is None:
                raise _fail(f"unreadable offset note {body[tail_at:]!r}", i - 1)
            decl = body[:tail_at].rstrip()
            no_slot = tail.group(1) == "N/A"  # an unused interface pointer: offset ~0, size 0
            if no_slot != (tail.group(2) == "N/A"):
                raise _fail("'N/A' is the offset and the size of an unused interface pointer", i - 1)
            offset = _U32_MAX if no_slot else _number(tail.group(1), _U32_MAX, "offset", i - 1)
            if decl.startswith("}"):
                if not stack:
                    raise _fail("'}' closes no struct", i - 1)
                frame = stack.pop()
                close = _CLOSE_RE.fullmatch(decl)
                if close is None:
                    raise _fail(f"unreadable struct end {decl!r}", i - 1)
                if any(absolute < offset for _, absolute in frame.members):
                    raise _fail("a struct member lies before its struct", i - 1)
                members = [ShaderTypeMember(m.name, m.type, absolute - offset) for m, absolute in frame.members]
                elements = _number(close.group(2) or "0", _U16_MAX, "array size", i - 1)
                shape = ShaderType(5, 0, 1, _components(members), elements, members, name=frame.name)
                name = close.group(1)
            else:
                iface = _INTERFACE_RE.fullmatch(decl)
                d = _DECL_RE.fullmatch(decl)
                if iface is not None:
                    iface_name, name, count = iface.groups()
                    shape = ShaderType(7, 10, 1, 1, _number(count or "0", _U16_MAX, "array size", i - 1),
                                       name=iface_name)
                elif d is not None:
                    row_major, type_text, name, count = d.groups()
                    found = _scalar_type(type_text, bool(row_major))
                    if found is None:
                        raise _fail(f"unknown type {type_text!r}", i - 1)
                    shape = found
                    shape.elements = _number(count or "0", _U16_MAX, "array size", i - 1)
                else:
                    raise _fail(f"unreadable declaration {decl!r}", i - 1)
            name = _name(name, i - 1)
            if stack:
                stack[-1].members.append((ShaderTypeMember(name, shape, 0), offset))
                continue
            if tail.group(2) is None:
                raise _fail("a buffer variable needs 'Size:'", i - 1)
            size = 0 if no_slot else _number(tail.group(2), _U32_MAX, "size", i - 1)
            last = ShaderVariable(name, shape, offset, size, 0 if tail.group(3) else 2)
            cb.variables.append(last)
        else:
            raise _fail(f"buffer {name} is not closed", i - 1)
        if stack:
            raise _fail("struct is not closed", stack[-1].line)
        if cb.variables:
            end = max((v.start_offset + v.size for v in cb.variables if v.start_offset != _U32_MAX), default=0)
            # a structured buffer's bind info: the element size (118 of 118 in the corpus); other
            # buffers (interface tables included, 9 of 9) round up to whole 16-byte registers
            cb.size = end if kind == 3 else (end + 15) // 16 * 16
            if cb.size > _U32_MAX:
                raise _fail(f"buffer {name} ends past 4 GiB", i - 1)
        return cb, i


def _offset_tail(body: str, at: int, line: int) -> tuple[str, int]:
    """``body`` with 3Dmigoto's ``// Index: 5.zw  Components: 2`` note turned back into the
    ``// Offset: 88 Size: 8`` it replaced (index * 16 + first component * 4; components * 4 plus
    the ``+n`` bytes), and where that note starts."""
    m = _INDEX_TAIL_RE.fullmatch(body[at:])
    if m is None:
        raise _fail(f"unreadable index note {body[at:]!r}", line)
    offset = _number(m.group(1), _U32_MAX // 16, "index", line) * 16 + (4 * "xyzw".index(m.group(2)[0]) if m.group(2) else 0)
    tail = f"// Offset: {offset}"
    if m.group(3) is not None:
        tail += f" Size: {_number(m.group(3), _U32_MAX // 4, 'component count', line) * 4 + int(m.group(4) or 0)}"
    head = body[:at].rstrip()
    return f"{head} {tail}{m.group(5) or ''}", len(head) + 1


def _components(members: list[ShaderTypeMember]) -> int:
    """Scalar components of a struct (fxc's ``columns`` of a struct type)."""
    total = 0
    for m in members:
        t = m.type
        each = _components(t.members) if t.variable_class == 5 else t.rows * t.columns
        total += each * max(t.elements, 1)
    return total


# -- resource bindings -----------------------------------------------------------------------

def _bindings(lines: list[str], i: int, sm51: bool) -> list[ResourceBinding]:
    out: list[ResourceBinding] = []
    while i < len(lines) and lines[i].strip() in ("//", ""):
        i += 1
    legacy = False
    if i < len(lines) and lines[i].strip().startswith("// Name"):
        legacy = lines[i].rstrip().endswith("Slot Elements")
        i += 1
    if i < len(lines) and lines[i].strip().startswith("// ---"):
        i += 1
    columns = 6 if legacy else 7 if sm51 else 6
    while i < len(lines):
        line = lines[i].strip()
        if not line.startswith("// ") or line.startswith(_END_TITLES):
            break
        parts = line[3:].split()
        if len(parts) < columns:
            raise _fail(f"unreadable resource binding row {line!r}", i)
        name = " ".join(parts[: len(parts) - columns + 1])
        kind, fmt, dim, *rest = parts[len(parts) - columns + 1 :]
        out.append(_binding(_name(name, i), kind, fmt, dim, rest, legacy, sm51, i))
        i += 1
    return out


def _binding(name: str, kind: str, fmt: str, dim: str, rest: list[str], legacy: bool, sm51: bool,
             line: int) -> ResourceBinding:
    b = ResourceBinding(name)
    structured = fmt == "struct"
    raw = fmt == "byte"
    if kind == "cbuffer":
        b.input_type = 0
    elif kind == "tbuffer":
        b.input_type = 1
    elif kind in ("sampler", "sampler_c"):
        b.input_type = 3
        b.flags |= 2 if kind == "sampler_c" else 0
    elif kind == "texture":
        b.input_type = 5 if structured else 7 if raw else 2
    elif kind == "UAV":
        b.input_type = {"append": 9, "consume": 10, "r/w+cnt": 11}.get(dim, 6 if structured else 8 if raw else 4)
    elif kind == "rtaccel":
        b.input_type = 12
    else:
        raise _fail(f"unknown resource type {kind!r}", line)
    if b.input_type in (2, 4):
        m = re.fullmatch(r"([a-z]+)([234]?)", fmt)
        if m is None or m.group(1) not in _RETURN_TYPES:
            raise _fail(f"unknown resource format {fmt!r}", line)
        b.return_type = _RETURN_TYPES[m.group(1)]
        b.flags |= (int(m.group(2) or 1) - 1) << 2
        ms = re.fullmatch(r"(2dMS|2darrayMS)(\d*)", dim)
        if ms is not None:
            b.dimension = _DIMENSIONS[ms.group(1)]
            b.num_samples = _number(ms.group(2) or "0", _U32_MAX, "sample count", line)
        elif dim in _DIMENSIONS:
            b.dimension = _DIMENSIONS[dim]
            b.num_samples = 0xFFFFFFFF
        else:
            raise _fail(f"unknown resource dimension {dim!r}", line)
    elif structured or raw:
        b.dimension = 1  # buffers
        b.return_type = _MIXED
    if legacy:
        slot, count = rest
        if not slot.isdigit():
            raise _fail(f"expected a slot number, found {slot!r}", line)
        b.bind_point = _number(slot, _U32_MAX, "slot", line)
    else:
        if sm51:
            ident, bind, count = rest
            m = re.fullmatch(r"[A-Z]+(\d+)", ident)
            if m is None:
                raise _fail(f"expected a resource ID, found {ident!r}", line)
            b.id = _number(m.group(1), _U32_MAX, "resource ID", line)
        else:
            bind, count = rest
        prefix = _BIND_PREFIX.get(b.input_type, "?")
        m = re.fullmatch(re.escape(prefix) + r"(\d+)(?:,space(\d+))?", bind)
        if m is None:
            raise _fail(f"expected a binding such as {prefix}0, found {bind!r}", line)
        b.bind_point = _number(m.group(1), _U32_MAX, "bind point", line)
        b.space = _number(m.group(2) or "0", _U32_MAX, "space", line)
    if count == "unbounded":
        b.bind_count = 0
    elif count.isdigit():
        b.bind_count = _number(count, _U32_MAX, "bind count", line)
    else:
        raise _fail(f"expected a bind count, found {count!r}", line)
    return b

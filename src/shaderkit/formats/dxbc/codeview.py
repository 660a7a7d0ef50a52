"""CodeView records of an SPDB (fxc's PDB): type leaves (``LF_*``) and symbols (``S_*``), typed by one table.

Facts: Microsoft's ``cvinfo.h`` (microsoft-pdb) and LLVM's "CodeView Type Records" /
"CodeView Symbol Records" pages. A record is ``u16 length`` (bytes after itself), ``u16 kind``, then
its body. :data:`TYPE_LAYOUTS` and :data:`SYMBOL_LAYOUTS` declare each body as named fields:

* ``B``/``H``/``I``/``i``: u8, u16, u32, i32;
* ``N``: a numeric leaf (a u16 below 0x8000, else a leaf kind such as ``LF_ULONG`` then the value);
* ``Z``: a NUL-terminated string; ``Z*``: strings up to an empty one (``S_ENVBLOCK``);
* ``H[count]``/``I[count]``: an array whose length is the field ``count`` (written as ``len``).

Bytes after the declared fields (``LF_PAD`` bytes ``F3 F2 F1``, zero padding, ``S_DEFRANGE_HLSL``'s
gaps and register offsets, ``LF_HLSL``'s numeric properties) are the record's ``tail``. An
``LF_FIELDLIST`` body is a list of member records (``LF_MEMBER`` ...), each followed by its pad bytes.

Exact by construction: a record is typed only when writing its fields back gives its stored body;
any other record (a kind not in the tables, or one encoded another way) is kept with ``raw`` bytes.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError

Value = int | str | list[int] | list[str] | list["CodeViewRecord"]
Layout = tuple[tuple[str, str], ...]

_FIXED = {"B": struct.Struct("<B"), "H": struct.Struct("<H"), "I": struct.Struct("<I"), "i": struct.Struct("<i")}
#: numeric leaf kinds: (struct format, signed) by leaf
_NUMERIC_LEAVES = {0x8000: "<b", 0x8001: "<h", 0x8002: "<H", 0x8003: "<i", 0x8004: "<I", 0x8009: "<q", 0x800A: "<Q"}

_TYPE_RECORD = ("count", "H"), ("properties", "H"), ("field_list", "I")
_PROC = (("parent", "I"), ("end", "I"), ("next", "I"), ("length", "I"), ("debug_start", "I"), ("debug_end", "I"),
         ("type", "I"), ("offset", "I"), ("segment", "H"), ("flags", "B"), ("name", "Z"))
_DATA_HLSL = (("type", "I"), ("register_type", "H"), ("data_slot", "H"), ("data_offset", "H"),
              ("texture_slot", "H"), ("sampler_slot", "H"), ("uav_slot", "H"), ("name", "Z"))
_DATA_HLSL32 = (("type", "I"), ("data_slot", "I"), ("data_offset", "I"), ("texture_slot", "I"),
                ("sampler_slot", "I"), ("uav_slot", "I"), ("register_type", "H"), ("name", "Z"))
_DATA_HLSL32_EX = (("type", "I"), ("register_index", "I"), ("data_offset", "I"), ("bind_space", "I"),
                   ("bind_slot", "I"), ("register_type", "H"), ("name", "Z"))
_REF = (("checksum", "I"), ("symbol_offset", "I"), ("module", "H"), ("name", "Z"))

#: type leaves of the TPI/IPI streams: kind -> (name, fields)
TYPE_LAYOUTS: dict[int, tuple[str, Layout]] = {
    0x1001: ("LF_MODIFIER", (("type", "I"), ("modifiers", "H"))),
    0x1002: ("LF_POINTER", (("referent", "I"), ("attributes", "I"))),
    0x1008: ("LF_PROCEDURE", (("return_type", "I"), ("call_convention", "B"), ("function_attributes", "B"),
                              ("parameter_count", "H"), ("argument_list", "I"))),
    0x1009: ("LF_MFUNCTION", (("return_type", "I"), ("class_type", "I"), ("this_type", "I"),
                              ("call_convention", "B"), ("function_attributes", "B"), ("parameter_count", "H"),
                              ("argument_list", "I"), ("this_adjust", "i"))),
    0x1201: ("LF_ARGLIST", (("count", "I"), ("arguments", "I[count]"))),
    0x1203: ("LF_FIELDLIST", (("members", "fields"),)),
    0x1205: ("LF_BITFIELD", (("type", "I"), ("length", "B"), ("position", "B"))),
    0x1503: ("LF_ARRAY", (("element_type", "I"), ("index_type", "I"), ("size", "N"), ("name", "Z"))),
    0x1504: ("LF_CLASS", (*_TYPE_RECORD, ("derived", "I"), ("vshape", "I"), ("size", "N"), ("name", "Z"))),
    0x1505: ("LF_STRUCTURE", (*_TYPE_RECORD, ("derived", "I"), ("vshape", "I"), ("size", "N"), ("name", "Z"))),
    0x1506: ("LF_UNION", (*_TYPE_RECORD, ("size", "N"), ("name", "Z"))),
    0x1507: ("LF_ENUM", (("count", "H"), ("properties", "H"), ("underlying_type", "I"), ("field_list", "I"),
                         ("name", "Z"))),
    0x1517: ("LF_HLSL", (("subtype", "I"), ("builtin", "H"), ("property_bits", "H"))),
    0x1518: ("LF_MODIFIER_EX", (("type", "I"), ("count", "H"), ("modifiers", "H[count]"))),
    0x1519: ("LF_INTERFACE", (*_TYPE_RECORD, ("derived", "I"), ("vshape", "I"), ("size", "N"), ("name", "Z"))),
    0x151B: ("LF_VECTOR", (("element_type", "I"), ("count", "I"), ("size", "N"), ("name", "Z"))),
    0x151C: ("LF_MATRIX", (("element_type", "I"), ("rows", "I"), ("columns", "I"), ("major_stride", "I"),
                           ("matrix_attributes", "B"), ("size", "N"), ("name", "Z"))),
    0x1601: ("LF_FUNC_ID", (("scope", "I"), ("type", "I"), ("name", "Z"))),
    0x1602: ("LF_MFUNC_ID", (("parent_type", "I"), ("type", "I"), ("name", "Z"))),
    0x1603: ("LF_BUILDINFO", (("count", "H"), ("arguments", "I[count]"))),
    0x1604: ("LF_SUBSTR_LIST", (("count", "I"), ("arguments", "I[count]"))),
    0x1605: ("LF_STRING_ID", (("id", "I"), ("name", "Z"))),
    0x1606: ("LF_UDT_SRC_LINE", (("type", "I"), ("source_file", "I"), ("line", "I"))),
}

#: members of an ``LF_FIELDLIST``: leaf -> (name, fields)
MEMBER_LAYOUTS: dict[int, tuple[str, Layout]] = {
    0x1400: ("LF_BCLASS", (("attributes", "H"), ("type", "I"), ("offset", "N"))),
    0x1404: ("LF_INDEX", (("padding", "H"), ("type", "I"))),
    0x1502: ("LF_ENUMERATE", (("attributes", "H"), ("value", "N"), ("name", "Z"))),
    0x150D: ("LF_MEMBER", (("attributes", "H"), ("type", "I"), ("offset", "N"), ("name", "Z"))),
    0x150E: ("LF_STMEMBER", (("attributes", "H"), ("type", "I"), ("name", "Z"))),
    0x1510: ("LF_NESTTYPE", (("padding", "H"), ("type", "I"), ("name", "Z"))),
}

#: symbols of the module and global symbol streams: kind -> (name, fields)
SYMBOL_LAYOUTS: dict[int, tuple[str, Layout]] = {
    0x0006: ("S_END", ()),
    0x1012: ("S_FRAMEPROC", (("frame_size", "I"), ("pad_size", "I"), ("pad_offset", "I"), ("save_size", "I"),
                             ("handler_offset", "I"), ("handler_section", "H"), ("flags", "I"))),
    0x1101: ("S_OBJNAME", (("signature", "I"), ("name", "Z"))),
    0x1103: ("S_BLOCK32", (("parent", "I"), ("end", "I"), ("length", "I"), ("offset", "I"), ("segment", "H"),
                           ("name", "Z"))),
    0x1107: ("S_CONSTANT", (("type", "I"), ("value", "N"), ("name", "Z"))),
    0x1108: ("S_UDT", (("type", "I"), ("name", "Z"))),
    0x110E: ("S_PUB32", (("flags", "I"), ("offset", "I"), ("segment", "H"), ("name", "Z"))),
    0x110F: ("S_LPROC32", _PROC),
    0x1110: ("S_GPROC32", _PROC),
    0x1111: ("S_REGREL32", (("offset", "I"), ("type", "I"), ("register", "H"), ("name", "Z"))),
    0x1125: ("S_PROCREF", _REF),
    0x1126: ("S_DATAREF", _REF),
    0x1127: ("S_LPROCREF", _REF),
    0x113C: ("S_COMPILE3", (("flags", "I"), ("machine", "H"), ("frontend_major", "H"), ("frontend_minor", "H"),
                            ("frontend_build", "H"), ("frontend_qfe", "H"), ("backend_major", "H"),
                            ("backend_minor", "H"), ("backend_build", "H"), ("backend_qfe", "H"),
                            ("version", "Z"))),
    0x113D: ("S_ENVBLOCK", (("flags", "B"), ("strings", "Z*"))),
    0x113E: ("S_LOCAL", (("type", "I"), ("flags", "H"), ("name", "Z"))),
    0x1146: ("S_LPROC32_ID", _PROC),
    0x1147: ("S_GPROC32_ID", _PROC),
    0x114C: ("S_BUILDINFO", (("id", "I"),)),
    0x114D: ("S_INLINESITE", (("parent", "I"), ("end", "I"), ("inlinee", "I"))),
    0x114E: ("S_INLINESITE_END", ()),
    0x114F: ("S_PROC_ID_END", ()),
    0x1150: ("S_DEFRANGE_HLSL", (("register_type", "H"), ("flags", "H"), ("parent_offset", "H"),
                                 ("size_in_parent", "H"), ("range_start", "I"), ("range_section", "H"),
                                 ("range_size", "H"))),
    0x1151: ("S_GDATA_HLSL", _DATA_HLSL),
    0x1152: ("S_LDATA_HLSL", _DATA_HLSL),
    0x1162: ("S_GDATA_HLSL32", _DATA_HLSL32),
    0x1163: ("S_LDATA_HLSL32", _DATA_HLSL32),
    0x1164: ("S_GDATA_HLSL32_EX", _DATA_HLSL32_EX),
    0x1165: ("S_LDATA_HLSL32_EX", _DATA_HLSL32_EX),
}

PROCEDURES = frozenset({0x110F, 0x1110, 0x1146, 0x1147})
S_LOCAL, S_DEFRANGE_HLSL, S_END = 0x113E, 0x1150, 0x0006
S_INLINESITE, S_INLINESITE_END = 0x114D, 0x114E
#: ``S_DEFRANGE_HLSL`` register types fxc's variable notes name (``r0.x``); any other type ``t``
#: is written ``reg{t}_{n}``
HLSL_REGISTER_PREFIXES = {0: "r", 1: "v", 2: "o"}
#: the register type (D3D10 operand type) of an indexable temp, noted as a whole array: ``x0 <- x0``
HLSL_INDEXABLE_TEMP = 3
#: how d3dcompiler_47 starts the notes on an ``else``
PRIOR_LOCATIONS = "Prior locations:"
LF_FIELDLIST, LF_MEMBER = 0x1203, 0x150D


@dataclass
class CodeViewRecord:
    """One type leaf or symbol: its kind, typed fields and trailing bytes, or its raw body."""

    kind: int
    values: dict[str, Value] = field(default_factory=dict)
    #: bytes after the declared fields (pad bytes, gaps, properties)
    tail: bytes = b""
    #: the body as stored, for a record the tables do not type (then ``values`` is empty)
    raw: bytes | None = None
    #: which table names the kind ("type", "member" or "symbol")
    table: str = "type"

    @property
    def name(self) -> str:
        """The kind's ``LF_*``/``S_*`` name, or ``0x`` + 4 hex digits for an untyped (raw) record."""
        entry = _TABLES[self.table].get(self.kind)
        return entry[0] if entry is not None and self.raw is None else f"0x{self.kind:04x}"

    def number(self, key: str) -> int:
        """An integer field (0 when absent)."""
        value = self.values.get(key, 0)
        return value if isinstance(value, int) else 0

    def text(self, key: str) -> str:
        """A string field ("" when absent)."""
        value = self.values.get(key, "")
        return value if isinstance(value, str) else ""

    def members(self) -> list[CodeViewRecord]:
        """The members of an ``LF_FIELDLIST`` (empty for any other record)."""
        value = self.values.get("members", [])
        return [m for m in value if isinstance(m, CodeViewRecord)] if isinstance(value, list) else []

    def body(self) -> bytes:
        """The body after ``length`` and ``kind``: ``raw``, else the fields encoded then ``tail``.

        Raises ShaderFormatError when a numeric leaf does not fit 64 bits.
        """
        if self.raw is not None:
            return self.raw
        _name, layout = _TABLES[self.table][self.kind]
        return _encode(layout, self.values, self.table) + self.tail

    def build(self) -> bytes:
        """``u16 length``, ``u16 kind``, body (a member of a field list has no length)."""
        body = self.body()
        if self.table == "member":
            return struct.pack("<H", self.kind) + body
        if len(body) + 2 > 0xFFFF:
            raise ShaderFormatError(f"CodeView record of {len(body)} bytes is too long", 0, "SPDB")
        return struct.pack("<2H", len(body) + 2, self.kind) + body

    def gaps(self) -> list[tuple[int, int]]:
        """``S_DEFRANGE_HLSL``: (start after ``range_start``, length) of each stretch where the
        variable is not live, stored before the register offsets."""
        count = self.number("flags") & 3
        if self.raw is not None or len(self.tail) < 4 * count:
            return []
        stored = (len(self.tail) - 4 * count) // 4
        return [struct.unpack_from("<HH", self.tail, 4 * i) for i in range(stored)]

    def register_offsets(self) -> list[int]:
        """``S_DEFRANGE_HLSL``: the register offsets at the end of the tail (``flags & 3`` of them)."""
        count = self.number("flags") & 3
        if self.raw is not None or len(self.tail) < 4 * count:
            return []
        return list(struct.unpack_from(f"<{count}I", self.tail, len(self.tail) - 4 * count))

    def summary(self) -> dict[str, object]:
        """The record for ``info``: kind name, fields (members summarized), ``tail``/``raw`` in hex."""
        row: dict[str, object] = {"kind": self.name}
        for key, value in self.values.items():
            row[key] = [m.summary() for m in self.members()] if key == "members" else value
        if self.tail:
            row["tail"] = self.tail.hex()
        if self.raw is not None:
            row["raw"] = self.raw.hex()
        return row


_TABLES: dict[str, dict[int, tuple[str, Layout]]] = {
    "type": TYPE_LAYOUTS, "member": MEMBER_LAYOUTS, "symbol": SYMBOL_LAYOUTS,
}


class _Bad(Exception):
    """A body the layout does not describe (the record stays raw)."""


def _numeric(body: bytes, pos: int) -> tuple[int, int]:
    if pos + 2 > len(body):
        raise _Bad
    (leaf,) = struct.unpack_from("<H", body, pos)
    if leaf < 0x8000:
        return leaf, pos + 2
    fmt = _NUMERIC_LEAVES.get(leaf)
    if fmt is None or pos + 2 + struct.calcsize(fmt) > len(body):
        raise _Bad
    return struct.unpack_from(fmt, body, pos + 2)[0], pos + 2 + struct.calcsize(fmt)


def _encode_numeric(value: int) -> bytes:
    if 0 <= value < 0x8000:
        return struct.pack("<H", value)
    signed = ((0x8000, "<b"), (0x8001, "<h"), (0x8003, "<i"), (0x8009, "<q"))
    unsigned = ((0x8002, "<H"), (0x8004, "<I"), (0x800A, "<Q"))
    for leaf, fmt in signed if value < 0 else unsigned:
        try:
            return struct.pack("<H", leaf) + struct.pack(fmt, value)
        except struct.error:
            continue
    raise ShaderFormatError(f"numeric leaf value {value} does not fit 64 bits", 0, "SPDB")


def _cstring(body: bytes, pos: int) -> tuple[str, int]:
    end = body.find(b"\0", pos)
    if end < 0:
        raise _Bad
    return body[pos:end].decode("latin-1"), end + 1


def _decode(layout: Layout, body: bytes, table: str) -> tuple[dict[str, Value], int]:
    values: dict[str, Value] = {}
    pos = 0
    for name, code in layout:
        if code in _FIXED:
            fmt = _FIXED[code]
            if pos + fmt.size > len(body):
                raise _Bad
            values[name] = fmt.unpack_from(body, pos)[0]
            pos += fmt.size
        elif code == "N":
            values[name], pos = _numeric(body, pos)
        elif code == "Z":
            values[name], pos = _cstring(body, pos)
        elif code == "Z*":
            strings: list[str] = []
            while True:
                text, pos = _cstring(body, pos)
                if not text:
                    break
                strings.append(text)
            values[name] = strings
        elif code == "fields":
            values[name], pos = _members(body)
        else:  # "H[count]" / "I[count]"
            item, count_name = code[0], code[2:-1]
            counted = values[count_name]
            count = counted if isinstance(counted, int) else 0
            size = _FIXED[item].size
            if count * size > len(body) - pos:
                raise _Bad
            values[name] = list(struct.unpack_from(f"<{count}{item}", body, pos))
            pos += count * size
    return values, pos


_ARRAYS: dict[Layout, dict[str, str]] = {}


def _encode(layout: Layout, values: dict[str, Value], table: str) -> bytes:
    out = bytearray()
    arrays = _ARRAYS.get(layout)
    if arrays is None:  # count field -> array field, once per layout
        arrays = _ARRAYS[layout] = {code[2:-1]: name for name, code in layout if "[" in code}
    for name, code in layout:
        value = values.get(name, 0)
        if arrays and name in arrays:
            array = values.get(arrays[name], [])
            value = len(array) if isinstance(array, list) else 0
        items = value if isinstance(value, list) else []
        if code in _FIXED:
            out += _FIXED[code].pack(value)
        elif code == "N":
            out += _encode_numeric(value if isinstance(value, int) else 0)
        elif code == "Z":
            out += str(value).encode("latin-1") + b"\0"
        elif code == "Z*":
            for text in items:
                out += str(text).encode("latin-1") + b"\0"
            out += b"\0"
        elif code == "fields":
            for member in items:
                if isinstance(member, CodeViewRecord):
                    out += member.build()
        else:
            out += struct.pack(f"<{len(items)}{code[0]}", *items)
    return bytes(out)


def _members(body: bytes) -> tuple[list[CodeViewRecord], int]:
    """The members of an ``LF_FIELDLIST`` body; a member kind not in the table keeps the rest raw."""
    members: list[CodeViewRecord] = []
    pos = 0
    while pos + 2 <= len(body):
        (leaf,) = struct.unpack_from("<H", body, pos)
        entry = MEMBER_LAYOUTS.get(leaf)
        member: CodeViewRecord | None = None
        if entry is not None:
            try:
                values, end = _decode(entry[1], body[pos + 2 :], "member")
            except (_Bad, ShaderFormatError):
                values, end = {}, -1
            if end >= 0:
                stop = pos + 2 + end
                while stop < len(body) and body[stop] >= 0xF0:  # LF_PAD bytes up to the next member
                    stop += 1
                member = CodeViewRecord(leaf, values, body[pos + 2 + end : stop], table="member")
                if member.build() != body[pos:stop]:
                    member = None
                else:
                    pos = stop
        if member is None:
            member = CodeViewRecord(leaf, raw=body[pos + 2 :], table="member")
            pos = len(body)
        members.append(member)
    if pos != len(body):
        raise _Bad
    return members, pos


def decode_record(kind: int, body: bytes, table: str) -> CodeViewRecord:
    """The record of ``kind`` with ``body``: typed when its table describes it exactly, else raw."""
    entry = _TABLES[table].get(kind)
    if entry is not None:
        try:
            values, end = _decode(entry[1], body, table)
            record = CodeViewRecord(kind, values, body[end:], table=table)
            if record.body() == body:
                return record
        except (_Bad, ShaderFormatError):
            pass
    return CodeViewRecord(kind, raw=bytes(body), table=table)


def read_records(data: bytes, start: int, stop: int, table: str) -> tuple[list[CodeViewRecord], int]:
    """Records from ``start`` up to ``stop`` and the offset where reading ended (a record must fit)."""
    records: list[CodeViewRecord] = []
    pos = start
    while pos + 4 <= stop:
        length, kind = struct.unpack_from("<2H", data, pos)
        if length < 2 or pos + 2 + length > stop:
            raise ShaderFormatError(f"CodeView record of {length} bytes at {pos:#x} does not fit", pos, "SPDB")
        records.append(decode_record(kind, data[pos + 4 : pos + 2 + length], table))
        pos += 2 + length
    return records, pos


__all__ = [
    "HLSL_INDEXABLE_TEMP", "HLSL_REGISTER_PREFIXES", "LF_FIELDLIST", "LF_MEMBER", "MEMBER_LAYOUTS", "PRIOR_LOCATIONS", "PROCEDURES", "SYMBOL_LAYOUTS", "S_DEFRANGE_HLSL", "S_END",
    "S_INLINESITE", "S_INLINESITE_END",
    "S_LOCAL", "TYPE_LAYOUTS", "CodeViewRecord", "decode_record", "read_records",
]

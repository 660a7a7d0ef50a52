"""The D3DX constant table (``CTAB``): what fxc writes into a bare D3D9 shader's ``CTAB``
comment and into the ``CTAB`` chunk of an FXLVM expression container (DXBC effects).

``D3DXSHADER_CONSTANTTABLE``: size 28, creator, version, constant count, constant info offset,
flags, target; 20-byte constant infos ``name, register set (u16), register index (u16), register
count (u16), reserved (u16), type, default value``; 16-byte type infos (``D3DXSHADER_TYPEINFO``)
``class, type, rows, columns, elements, struct members (u16 each), member info``; 8-byte member
infos ``name, type``. Offsets count from the payload's start (the word after the ``CTAB`` FourCC).

The header, constant infos and the constants' type infos are typed (written back where they
lay); the rest (strings, member infos, default values, padding) is kept as bytes and read with
:meth:`ConstantTable.string_at` / :meth:`ConstantTable.type_at`. :func:`type_name` spells a type
as HLSL does (``float4``, ``row_major float4x4``, ``sampler2D``).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from shaderkit.io.reader import Reader

_HEADER = struct.Struct("<7I")
_INFO = struct.Struct("<I4HII")
_TYPE = struct.Struct("<6HI")
#: constant counts past this are not a table fxc wrote
MAX_CONSTANTS = 4096
#: D3DXREGISTER_SET -> register letter
REGISTER_SETS = {0: "b", 1: "i", 2: "c", 3: "s"}
#: D3DXPARAMETER_TYPE -> HLSL spelling
TYPE_NAMES = {0: "void", 1: "bool", 2: "int", 3: "float", 4: "string", 5: "texture", 6: "texture1D",
              7: "texture2D", 8: "texture3D", 9: "textureCUBE", 10: "sampler", 11: "sampler1D", 12: "sampler2D",
              13: "sampler3D", 14: "samplerCUBE", 15: "pixelshader", 16: "vertexshader"}
#: D3DXPARAMETER_CLASS values
CLASS_SCALAR, CLASS_VECTOR, CLASS_MATRIX_ROWS, CLASS_MATRIX_COLUMNS, CLASS_OBJECT, CLASS_STRUCT = range(6)


@dataclass
class CtabType:
    """A constant's type info (``D3DXSHADER_TYPEINFO``)."""

    klass: int
    type: int
    rows: int
    columns: int
    elements: int
    members: int
    members_offset: int

    def words(self) -> tuple[int, ...]:
        """The fields in stored order."""
        return (self.klass, self.type, self.rows, self.columns, self.elements, self.members, self.members_offset)


@dataclass
class CtabConstant:
    """A constant info (``D3DXSHADER_CONSTANTINFO``) and its name and type."""

    name_offset: int
    register_set: int
    register_index: int
    register_count: int
    reserved: int
    type_offset: int
    default_offset: int
    name: str = ""
    type: CtabType | None = None


@dataclass
class ConstantTable:
    """``CTAB``: the constants an expression reads, by register."""

    size: int = _HEADER.size
    creator_offset: int = 0
    version: int = 0
    constants_offset: int = _HEADER.size
    flags: int = 0
    target_offset: int = 0
    constants: list[CtabConstant] = field(default_factory=list)
    #: the payload as read (strings, member infos, defaults are written from here)
    data: bytes = b""
    fourcc: str = "CTAB"

    @staticmethod
    def understood(r: Reader) -> bool:
        """Whether the payload under ``r`` starts as a constant table (a header of size 28); a
        table whose infos or names do not read then fails :meth:`parse` and stays raw."""
        return r.remaining >= _HEADER.size and r.data[r.pos : r.pos + 4] == b"\x1c\0\0\0"

    @classmethod
    def parse(cls, r: Reader) -> ConstantTable:
        """Read the header, constant infos, names and types."""
        base = r.pos
        data = r.read(r.remaining, "CTAB payload")
        size, creator, version, count, at, flags, target = _HEADER.unpack_from(data)
        if count > MAX_CONSTANTS or at + count * _INFO.size > len(data):
            raise r.error(f"CTAB: {count} constant infos at {at:#x} run past the chunk", base + 12)
        table = cls(size, creator, version, at, flags, target, [], data)
        for k in range(count):
            c = CtabConstant(*_INFO.unpack_from(data, at + k * _INFO.size))
            c.name = r.cstring_at(base + c.name_offset, "latin-1", f"CTAB constant {k} name") \
                if c.name_offset < len(data) else ""
            if c.type_offset and c.type_offset + _TYPE.size <= len(data):
                c.type = CtabType(*_TYPE.unpack_from(data, c.type_offset))
            table.constants.append(c)
        return table

    def build(self) -> bytes:
        """The payload: the kept bytes with the header, infos and types written over them."""
        out = bytearray(self.data)
        need = self.constants_offset + _INFO.size * len(self.constants)
        if len(out) < max(need, _HEADER.size):
            out += bytes(max(need, _HEADER.size) - len(out))
        _HEADER.pack_into(out, 0, self.size, self.creator_offset, self.version, len(self.constants),
                          self.constants_offset, self.flags, self.target_offset)
        for k, c in enumerate(self.constants):
            _INFO.pack_into(out, self.constants_offset + k * _INFO.size, c.name_offset, c.register_set,
                            c.register_index, c.register_count, c.reserved, c.type_offset, c.default_offset)
            if c.type is not None and c.type_offset + _TYPE.size <= len(out):
                _TYPE.pack_into(out, c.type_offset, *c.type.words())
        return bytes(out)

    def string_at(self, offset: int) -> str:
        """The NUL-terminated string at payload ``offset`` (``""`` for offset 0 or out of range)."""
        if not 0 < offset < len(self.data):
            return ""
        end = self.data.find(b"\0", offset)
        return self.data[offset : end if end >= 0 else len(self.data)].decode("latin-1")

    def type_at(self, offset: int) -> CtabType | None:
        """The type info at payload ``offset`` (struct members' types too); None when out of range."""
        if not 0 <= offset <= len(self.data) - _TYPE.size:
            return None
        return CtabType(*_TYPE.unpack_from(self.data, offset))

    def input_name(self, register: int) -> str:
        """fxc's name of input register ``register``: the constant's name, with the register
        inside it in brackets when the constant spans several (``m[3]``); ``c<n>`` when no
        constant covers it."""
        for c in self.constants:
            if c.register_index <= register < c.register_index + c.register_count:
                inner = f"[{register - c.register_index}]" if c.register_count > 1 else ""
                return c.name + inner
        return f"c{register}"

    def input_register(self, name: str, inner: int | None) -> int | None:
        """The register :meth:`input_name` prints as ``name`` / ``name[inner]``; None when no
        constant has that name or ``inner`` is past it."""
        for c in self.constants:
            if c.name == name and (c.register_count > 1) == (inner is not None):
                if inner is None:
                    return c.register_index
                return c.register_index + inner if inner < c.register_count else None
        return None


def type_name(table: ConstantTable, offset: int, names: dict[int, str] = TYPE_NAMES) -> str:
    """HLSL spelling of the type at ``offset`` without array brackets (``float4``, ``row_major float4x4``,
    ``sampler2D``, ``struct``; ``?`` when out of range); ``names``: of the D3DXPARAMETER_TYPEs."""
    info = table.type_at(offset)
    if info is None:
        return "?"
    base = names.get(info.type, f"type{info.type}")
    if info.klass == CLASS_VECTOR:
        return f"{base}{info.columns}"
    if info.klass == CLASS_MATRIX_ROWS:
        return f"row_major {base}{info.rows}x{info.columns}"
    if info.klass == CLASS_MATRIX_COLUMNS:
        return f"{base}{info.rows}x{info.columns}"
    if info.klass == CLASS_STRUCT:
        return "struct"
    return base


__all__ = ["CLASS_MATRIX_COLUMNS", "CLASS_MATRIX_ROWS", "CLASS_OBJECT", "CLASS_SCALAR", "CLASS_STRUCT", "CLASS_VECTOR",
           "MAX_CONSTANTS", "REGISTER_SETS", "TYPE_NAMES", "ConstantTable", "CtabConstant", "CtabType", "type_name"]

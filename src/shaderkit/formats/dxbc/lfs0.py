"""LFS0: the parameter signature of a library function (inside a LIBF container).

Payload: ``u32 parameter_count, u32 parameter_offset (8)``, parameter records of 12 dwords,
then the strings (0xAB-padded). Record: name offset, semantic name offset (0 = none), variable
type, variable class, rows, columns, interpolation mode, flags (1 in, 2 out), first input
register, first input component, first output register, first output component (unused
registers are 0xFFFFFFFF). The first record describes the return value (``void`` when none).

fxc's layout, used for a new chunk: header, records, then for each record its name and semantic
name (each string once), then 0xAB padding. A parsed chunk keeps its layout and puts unchanged
items back.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    StringPool,
    close_layout,
    pad4,
    placed_build,
    record_table,
    recorded_string,
)
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import Reader

_HEAD = struct.Struct("<2I")
_PARAM = struct.Struct("<12I")
NONE = 0xFFFFFFFF


@dataclass
class FunctionParameter:
    """One parameter of a library function signature (names, type/class enums, rows, columns, registers)."""
    name: str
    semantic_name: str = ""
    variable_type: int = 3
    variable_class: int = 1
    rows: int = 1
    columns: int = 4
    interpolation_mode: int = 0
    flags: int = 1
    first_in_register: int = NONE
    first_in_component: int = NONE
    first_out_register: int = NONE
    first_out_component: int = NONE


@dataclass
class FunctionSignature:
    """The LFS0 chunk: the parameters of a lib_* function."""
    parameters: list[FunctionParameter] = field(default_factory=list)
    fourcc: str = "LFS0"
    #: where the parsed items lay (None for a new chunk: fxc's layout is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "LFS0") -> FunctionSignature:
        """Parse the chunk payload under ``r``; ShaderFormatError for offsets outside it.
        Where its items lay is recorded as it is read (the container rebuilds this chunk item by
        item: see ``container._payload``)."""
        layout = Layout(size=r.end - r.start)
        base = r.start
        count, offset = r.unpack_at(base, "2I", "LFS0 header")
        if offset > r.end - base:
            raise r.error(f"parameter offset {offset:#x} is past the chunk end", base + 4)
        r.check_count(count, _PARAM.size, "function parameters", base + offset)
        model = cls()
        record_table(r, layout, "parameters", offset, count * _PARAM.size)
        for i in range(count):
            words = _PARAM.unpack_from(r.data, base + offset + i * _PARAM.size)
            where = f"parameters[{i}]"
            name = recorded_string(r, layout, ("name", i), words[0], "name", where)
            semantic = recorded_string(r, layout, ("semantic", i), words[1], "semantic name", where) if words[1] else ""
            model.parameters.append(FunctionParameter(name, semantic, *words[2:]))
        model.layout = close_layout(layout, r, _HEAD.size)
        return model

    def summary(self) -> list[dict[str, object]]:
        """One dict per parameter, JSON-ready; ``variable_type``, ``variable_class`` and
        ``interpolation_mode`` also by name (``<key>_name``)."""
        from shaderkit.formats.dxbc.enums import INTERPOLATION_MODES, enum_name
        from shaderkit.formats.dxbc.rdef import VARIABLE_CLASSES, VARIABLE_TYPES

        rows: list[dict[str, object]] = []
        for p in self.parameters:
            row: dict[str, object] = vars(p).copy()
            row["variable_type_name"] = enum_name(VARIABLE_TYPES, p.variable_type)
            row["variable_class_name"] = enum_name(VARIABLE_CLASSES, p.variable_class)
            row["interpolation_mode_name"] = enum_name(INTERPOLATION_MODES, p.interpolation_mode)
            rows.append(row)
        return rows

    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, self._build_placed)

    @staticmethod
    def _pack(p: FunctionParameter, name: int, semantic: int) -> bytes:
        return _PARAM.pack(name, semantic, p.variable_type, p.variable_class, p.rows, p.columns,
                           p.interpolation_mode, p.flags, p.first_in_register, p.first_in_component,
                           p.first_out_register, p.first_out_component)

    def _build_placed(self, w: PlacedWriter) -> None:
        assert self.layout is not None
        rows = []
        for i, p in enumerate(self.parameters):
            name = w.place(("name", i), p.name.encode("latin-1") + b"\0")
            semantic = 0
            if p.semantic_name or ("semantic", i) in self.layout.items:
                semantic = w.place(("semantic", i), p.semantic_name.encode("latin-1") + b"\0")
            rows.append(self._pack(p, name, semantic))
        w.put(0, _HEAD.pack(len(self.parameters), w.place("parameters", b"".join(rows))))

    def build_fresh(self) -> bytes:
        """The payload in fxc's layout."""
        pool = StringPool.at(_HEAD.size + _PARAM.size * len(self.parameters))
        out = bytearray(_HEAD.pack(len(self.parameters), _HEAD.size))
        for p in self.parameters:
            name = pool.add(p.name)
            semantic = pool.add(p.semantic_name) if p.semantic_name else 0
            out += self._pack(p, name, semantic)
        out += pool.data
        pad4(out)
        return bytes(out)

"""IFCE: class linkage (SM5 interfaces): class types, class instances and interface slots.

Layout: header of 9 dwords ``class_instance_count, class_type_count, interface_slot_record_count,
interface_slot_count, class_instance_offset, class_type_offset, interface_slot_offset`` and two
reserved words (fxc writes ``"OSGN"`` and ``0x00100020``); slot records (16 bytes: slot span,
count, type-ID array offset, table-ID array offset); class types (12 bytes: name offset, u16 reserved (0; the ID is the index),
constant buffer stride, texture, sampler); class instances (16 bytes: name offset, u16 type,
reserved, constant buffer, constant buffer offset, texture, sampler).

fxc's order, used for a new chunk: header, slot records, class types, class instances, then per
slot record its u16 type IDs (0xAB-padded) and u32 table IDs, then the instance names and the
class type names, each NUL-terminated and 0xAB-padded to 4 bytes. A parsed chunk keeps its
layout and puts unchanged items back.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    PAD_BYTE,
    Budget,
    close_layout,
    placed_build,
    record_table,
    recorded_string,
)
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

_HEADER = struct.Struct("<9I")
_SLOT = struct.Struct("<4I")
_CLASS_TYPE = struct.Struct("<I4H")
_INSTANCE = struct.Struct("<I6H")


@dataclass
class ClassType:
    """A class; its ID is its index in the table (fxc's listing prints the index)."""

    name: str
    reserved: int = 0
    constant_buffer_stride: int = 0
    texture: int = 0
    sampler: int = 0


@dataclass
class ClassInstance:
    """An IFCE class instance: name, type index, constant buffer slot/offset, texture and sampler slots."""
    name: str
    type: int = 0
    reserved: int = 1
    constant_buffer: int = 0
    constant_buffer_offset: int = 0
    texture: int = 0xFFFF
    sampler: int = 0xFFFF


@dataclass
class InterfaceSlot:
    """One slot record: ``slot_span`` slots sharing the (type ID, table ID) pairs."""

    slot_span: int = 1
    type_ids: list[int] = field(default_factory=list)
    table_ids: list[int] = field(default_factory=list)


@dataclass
class Interfaces:
    """The IFCE chunk: class types, class instances and interface slots of SM5 dynamic linking."""
    class_types: list[ClassType] = field(default_factory=list)
    class_instances: list[ClassInstance] = field(default_factory=list)
    slots: list[InterfaceSlot] = field(default_factory=list)
    interface_slot_count: int = 0
    reserved: tuple[int, int] = (0x4E47534F, 0x00100020)
    fourcc: str = "IFCE"
    #: where the parsed items lay (None for a new chunk: fxc's layout is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "IFCE") -> Interfaces:
        """Parse the chunk payload under ``r``; ShaderFormatError for counts and offsets outside it.
        Where its items lay is recorded as it is read (the container rebuilds this chunk item by
        item: see ``container._payload``)."""
        layout = Layout(size=r.end - r.start)
        base = r.start
        (n_inst, n_types, n_records, n_slots, inst_off, type_off, slot_off,
         res0, res1) = r.unpack_at(base, "9I", "IFCE header")
        model = cls([], [], [], n_slots, (res0, res1))

        def at(offset: int) -> int:
            if offset > r.end - base:
                raise r.error(f"offset {offset:#x} is past the chunk end", base)
            return base + offset

        r.check_count(n_records, _SLOT.size, "interface slot records", at(slot_off))
        record_table(r, layout, "slots", slot_off, n_records * _SLOT.size)
        budget = Budget(r, 2, "type ID tables")
        for i in range(n_records):
            span, count, types_at, tables_at = _SLOT.unpack_from(r.data, base + slot_off + i * _SLOT.size)
            r.check_count(count, 2, "type IDs", at(types_at))
            r.check_count(count, 4, "table IDs", at(tables_at))
            budget.take(count)
            record_table(r, layout, ("type_ids", i), types_at, 2 * count)
            record_table(r, layout, ("table_ids", i), tables_at, 4 * count)
            model.slots.append(InterfaceSlot(
                span,
                list(struct.unpack_from(f"<{count}H", r.data, base + types_at)),
                list(struct.unpack_from(f"<{count}I", r.data, base + tables_at)),
            ))
        r.check_count(n_types, _CLASS_TYPE.size, "class types", at(type_off))
        record_table(r, layout, "class_types", type_off, n_types * _CLASS_TYPE.size)
        for i in range(n_types):
            name_off, *rest = _CLASS_TYPE.unpack_from(r.data, base + type_off + i * _CLASS_TYPE.size)
            name = recorded_string(r, layout, ("class_name", i), name_off, "class name")
            model.class_types.append(ClassType(name, *rest))
        r.check_count(n_inst, _INSTANCE.size, "class instances", at(inst_off))
        record_table(r, layout, "class_instances", inst_off, n_inst * _INSTANCE.size)
        for i in range(n_inst):
            name_off, *rest = _INSTANCE.unpack_from(r.data, base + inst_off + i * _INSTANCE.size)
            name = recorded_string(r, layout, ("instance_name", i), name_off, "instance name")
            model.class_instances.append(ClassInstance(name, *rest))
        model.layout = close_layout(layout, r, _HEADER.size)
        return model

    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, self._build_placed)

    def _build_placed(self, w: PlacedWriter) -> None:
        slots = []
        for i, slot in enumerate(self.slots):
            types_at = w.place(("type_ids", i), struct.pack(f"<{len(slot.type_ids)}H", *slot.type_ids))
            tables_at = w.place(("table_ids", i), struct.pack(f"<{len(slot.table_ids)}I", *slot.table_ids))
            slots.append(_SLOT.pack(slot.slot_span, len(slot.type_ids), types_at, tables_at))
        instances = []
        for i, inst in enumerate(self.class_instances):
            name = w.place(("instance_name", i), inst.name.encode("latin-1") + b"\0")
            instances.append(_INSTANCE.pack(name, inst.type, inst.reserved, inst.constant_buffer,
                                            inst.constant_buffer_offset, inst.texture, inst.sampler))
        types = []
        for i, ct in enumerate(self.class_types):
            name = w.place(("class_name", i), ct.name.encode("latin-1") + b"\0")
            types.append(_CLASS_TYPE.pack(name, ct.reserved, ct.constant_buffer_stride, ct.texture, ct.sampler))
        slot_off = w.place("slots", b"".join(slots))
        type_off = w.place("class_types", b"".join(types))
        inst_off = w.place("class_instances", b"".join(instances))
        w.put(0, _HEADER.pack(len(self.class_instances), len(self.class_types), len(self.slots),
                              self.interface_slot_count, inst_off, type_off, slot_off, *self.reserved))

    def build_fresh(self) -> bytes:
        """The payload in fxc's order."""
        slot_off = _HEADER.size
        type_off = slot_off + _SLOT.size * len(self.slots)
        inst_off = type_off + _CLASS_TYPE.size * len(self.class_types)
        out = bytearray(inst_off + _INSTANCE.size * len(self.class_instances))
        for i, slot in enumerate(self.slots):
            types_at = len(out)
            out += struct.pack(f"<{len(slot.type_ids)}H", *slot.type_ids)
            out += PAD_BYTE * (-len(out) % 4)
            tables_at = len(out)
            out += struct.pack(f"<{len(slot.table_ids)}I", *slot.table_ids)
            _SLOT.pack_into(out, slot_off + i * _SLOT.size, slot.slot_span, len(slot.type_ids), types_at, tables_at)

        def name(text: str) -> int:
            pos = len(out)
            out.extend(text.encode("latin-1") + b"\0")
            out.extend(PAD_BYTE * (-len(out) % 4))
            return pos

        for i, inst in enumerate(self.class_instances):
            _INSTANCE.pack_into(out, inst_off + i * _INSTANCE.size, name(inst.name), inst.type, inst.reserved,
                                inst.constant_buffer, inst.constant_buffer_offset, inst.texture, inst.sampler)
        for i, ct in enumerate(self.class_types):
            _CLASS_TYPE.pack_into(out, type_off + i * _CLASS_TYPE.size, name(ct.name), ct.reserved,
                                  ct.constant_buffer_stride, ct.texture, ct.sampler)
        _HEADER.pack_into(out, 0, len(self.class_instances), len(self.class_types), len(self.slots),
                          self.interface_slot_count, inst_off, type_off, slot_off, *self.reserved)
        return bytes(out)

    def summary(self) -> dict[str, Any]:
        """Class types, class instances and the interface slot count, JSON-ready."""
        return {
            "class_types": [vars(c) for c in self.class_types],
            "class_instances": [vars(c) for c in self.class_instances],
            "interface_slot_count": self.interface_slot_count,
        }

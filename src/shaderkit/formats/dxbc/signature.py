"""Input/output/patch-constant signature chunks: ISGN, OSGN, PCSG, OSG5, ISG1, OSG1, PSG1.

Payload: ``u32 element_count, u32 element_offset (8)``, the element array, then a string table
of semantic names padded to 4 bytes with 0xAB. Element layouts:

* ISGN/OSGN/PCSG (24 bytes): name offset, semantic index, system value, component type,
  register, u8 mask, u8 read/write mask, u16 reserved;
* OSG5 (28 bytes): ``u32 stream`` then the 24 bytes above;
* ISG1/OSG1/PSG1 (32 bytes): ``u32 stream``, the 24 bytes, then ``u32 min_precision``.

fxc's layout: elements in register order as given, then each distinct name once, in order of
first use, NUL-terminated, then 0xAB padding. :meth:`Signature.build` lays a new chunk out that
way; a parsed one keeps its :class:`~shaderkit.io.layout.Layout` (where the element table and
each name lay, which names shared bytes, the bytes nothing covers) and puts unchanged items back.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    StringPool,
    close_layout,
    pad4,
    placed_build,
    read_with_deferred_layout,
    record_table,
    recorded_string,
)
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import Reader

#: FourCCs handled here and their element sizes.
ELEMENT_SIZES = {"ISGN": 24, "OSGN": 24, "PCSG": 24, "OSG5": 28, "ISG1": 32, "OSG1": 32, "PSG1": 32}

_HEAD = struct.Struct("<2I")
_BASE = struct.Struct("<5I2BH")
_OSG5 = struct.Struct("<6I2BH")
_SIG1 = struct.Struct("<6I2BHI")

#: D3D_NAME values (system value types) as fxc prints them.
SYSTEM_VALUES = {
    0: "NONE", 1: "POS", 2: "CLIPDST", 3: "CULLDST", 4: "RTINDEX", 5: "VPINDEX", 6: "VERTID",
    7: "PRIMID", 8: "INSTID", 9: "FFACE", 10: "SAMPLE", 11: "QUADEDGE", 12: "QUADINT",
    13: "TRIEDGE", 14: "TRIINT", 15: "LINEDET", 16: "LINEDEN", 17: "BARYCEN", 18: "SHADINGRATE",
    19: "CULLPRIM", 64: "TARGET", 65: "DEPTH", 66: "COVERAGE", 67: "DEPTHGE", 68: "DEPTHLE",
    69: "STENCILREF", 70: "INNERCOV",
}
#: D3D_REGISTER_COMPONENT_TYPE values.
COMPONENT_TYPES = {0: "unknown", 1: "uint", 2: "int", 3: "float"}
#: D3D_MIN_PRECISION values.
MIN_PRECISIONS = {0: "default", 1: "float16", 2: "float2_8", 3: "reserved", 4: "sint16",
                  5: "uint16", 0xF0: "any16", 0xF1: "any10"}


@dataclass
class SignatureElement:
    """One signature row: semantic, system value, component type, register, mask and read/write mask."""
    semantic_name: str
    semantic_index: int = 0
    system_value_type: int = 0
    component_type: int = 3
    register: int = 0
    mask: int = 0xF
    read_write_mask: int = 0
    reserved: int = 0
    stream: int = 0
    min_precision: int = 0


@dataclass
class Signature:
    """One signature chunk; ``fourcc`` picks the element layout."""

    #: build_fresh writes every field of the model: a fresh build equal to the stored payload is what
    #: the placed build gives (the container tries it first, see container._payload)
    FRESH_WRITES_EVERY_FIELD = True

    fourcc: str
    elements: list[SignatureElement] = field(default_factory=list)
    #: where the parsed items lay (None for a new chunk: fxc's layout is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @property
    def element_size(self) -> int:
        """The size in bytes of one element for this FourCC (24, 28 or 32)."""
        return ELEMENT_SIZES[self.fourcc]

    @classmethod
    def parse(cls, r: Reader, fourcc: str) -> Signature:
        """Parse the chunk payload under ``r``; ShaderFormatError for counts and offsets outside it.

        The layout is recorded when first used (:func:`~.common.read_with_deferred_layout`).
        """
        return read_with_deferred_layout(r, lambda again, layout: cls._read(again, fourcc, layout))

    @classmethod
    def _read(cls, r: Reader, fourcc: str, layout: Layout | None) -> Signature:
        """The chunk under ``r``, recording where its items lay in ``layout`` (closed at the end) unless None."""
        size = ELEMENT_SIZES[fourcc]
        count, offset = r.unpack_at(r.start, "2I", "signature header")
        if offset > r.end - r.start:
            raise r.error(f"element offset {offset:#x} is past the chunk end", r.start + 4)
        r.check_count(count, size, "signature elements", r.start + offset)
        elements = []
        record_table(r, layout, "elements", offset, count * size)
        start, end = r.start, r.end
        data = r.data
        table = data[start + offset : start + offset + count * size]
        record = layout.record if layout is not None else None
        # every row in one pass (iter_unpack); each name found (and recorded) from its stored bytes
        for i, row in enumerate((_BASE if size == 24 else _OSG5 if size == 28 else _SIG1).iter_unpack(table)):
            if size == 24:
                name_off, index, sv, ctype, reg, mask, rw, res = row
                stream = prec = 0
            elif size == 28:
                stream, name_off, index, sv, ctype, reg, mask, rw, res = row
                prec = 0
            else:
                stream, name_off, index, sv, ctype, reg, mask, rw, res, prec = row
            at = start + name_off
            nul = data.find(b"\0", at, end) if name_off < end - start else -1
            if nul < 0:  # past the chunk or unterminated: the error recorded_string raises
                recorded_string(r, layout, ("name", i), name_off, "semantic name", f"elements[{i}]")
            if record is not None:
                record(("name", i), name_off, data[at : nul + 1])
            elements.append(SignatureElement(data[at:nul].decode("latin-1"), index, sv, ctype, reg, mask, rw, res,
                                             stream, prec))
        return cls(fourcc, elements, close_layout(layout, r, _HEAD.size) if layout is not None else None)

    def _pack(self, e: SignatureElement, name: int) -> bytes:
        fields = (name, e.semantic_index, e.system_value_type, e.component_type, e.register,
                  e.mask, e.read_write_mask, e.reserved)
        size = self.element_size
        if size == 24:
            return _BASE.pack(*fields)
        if size == 28:
            return _OSG5.pack(e.stream, *fields)
        return _SIG1.pack(e.stream, *fields, e.min_precision)

    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, self._build_placed)

    def _build_placed(self, w: PlacedWriter) -> None:
        names = [w.place(("name", i), e.semantic_name.encode("latin-1") + b"\0") for i, e in enumerate(self.elements)]
        table = w.place("elements", b"".join(self._pack(e, n) for e, n in zip(self.elements, names)))
        w.put(0, _HEAD.pack(len(self.elements), table))

    def build_fresh(self) -> bytes:
        """Lay the chunk payload out as fxc does."""
        elements = self.elements
        size = ELEMENT_SIZES[self.fourcc]
        pool = StringPool.at(_HEAD.size + size * len(elements))
        add = pool.add
        out = bytearray(_HEAD.pack(len(elements), _HEAD.size))
        if size == 24:  # (_pack, with the layout chosen once)
            for e in elements:
                out += _BASE.pack(add(e.semantic_name), e.semantic_index, e.system_value_type, e.component_type,
                                  e.register, e.mask, e.read_write_mask, e.reserved)
        else:
            for e in elements:
                out += self._pack(e, add(e.semantic_name))
        out += pool.data
        pad4(out)
        return bytes(out)

    def find(self, semantic_name: str, semantic_index: int = 0) -> SignatureElement | None:
        """The element with this semantic (names compare case-insensitively, as in HLSL)."""
        key = semantic_name.upper()
        for e in self.elements:
            if e.semantic_name.upper() == key and e.semantic_index == semantic_index:
                return e
        return None

    def summary(self) -> list[dict[str, object]]:
        """One dict per element, JSON-ready (enums as names and numbers)."""
        return [
            {
                "semantic_name": e.semantic_name,
                "semantic_index": e.semantic_index,
                "mask": e.mask,
                "register": e.register,
                "system_value": SYSTEM_VALUES.get(e.system_value_type, str(e.system_value_type)),
                "component_type": COMPONENT_TYPES.get(e.component_type, str(e.component_type)),
                "used_mask": e.read_write_mask,
                "stream": e.stream,
                "min_precision": MIN_PRECISIONS.get(e.min_precision, str(e.min_precision)),
            }
            for e in self.elements
        ]

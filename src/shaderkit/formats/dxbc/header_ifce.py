"""IFCE from the comment header of an fxc listing (``shaderkit asm`` without ``--base``).

Reads what :func:`.listing.class_lines` prints: ``// Available Class Types:``,
``// Available Class Instances:`` and the ``// Interface slots, N total:`` table; the model is
built through the public dataclasses of :mod:`.ifce`. Unreadable rows raise
:class:`~shaderkit.errors.AssemblyError` with their line.
"""

from __future__ import annotations

import re

from shaderkit.formats.dxbc.header_rdef import _fail, _name
from shaderkit.formats.dxbc.ifce import ClassInstance, ClassType, Interfaces, InterfaceSlot

_ARRAY = re.compile(r"(.+)\[(\d{1,6})\]")

_SLOTS_RE = re.compile(r"// Interface slots, (\d+) total:$")
_TYPE_ROW_RE = re.compile(r"// \| Type ID  \|   (\d+)(?:-(\d+))? *\|([\d ]*)$")
_TABLE_ROW_RE = re.compile(r"// \| Table ID \|         \|([\d ]*)$")
_U16_MAX, _U32_MAX = 0xFFFF, 0xFFFFFFFF




def _numbers(fields: list[str], limit: int, index: int, dash: bool = False) -> list[int]:
    out = []
    for text in fields:
        if dash and text == "-":
            out.append(_U16_MAX)
            continue
        if not text.isdigit() or int(text) > limit:
            raise _fail(f"expected a number up to {limit}, found {text!r}", index)
        out.append(int(text))
    return out


def _rows(lines: list[str], start: int) -> list[tuple[int, list[str]]]:
    """(index, fields) of the table rows after a title, its blank line and its two header lines."""
    out = []
    i = start + 4
    while i < len(lines) and lines[i].startswith("// ") and lines[i].strip() != "//":
        out.append((i, lines[i][3:].split()))
        i += 1
    return out


def interfaces_from_header(header: list[str]) -> Interfaces | None:
    """The IFCE model of a listing's comment header (None when it prints no interface slots)."""
    lines = [line.rstrip() for line in header]
    slots_at = next((n for n, line in enumerate(lines) if _SLOTS_RE.fullmatch(line.strip())), None)
    if slots_at is None:
        return None
    m = _SLOTS_RE.fullmatch(lines[slots_at].strip())
    assert m is not None
    model = Interfaces(interface_slot_count=_numbers([m.group(1)], _U32_MAX, slots_at)[0])
    for n, line in enumerate(lines):
        if line.strip() == "// Available Class Types:":
            for i, fields in _rows(lines, n):
                if len(fields) != 5:
                    raise _fail("a class type row holds name, ID, CB stride, texture, sampler", i)
                _, stride, texture, sampler = _numbers(fields[1:], _U16_MAX, i)
                model.class_types.append(ClassType(_name(fields[0], i), 0, stride, texture, sampler))
        elif line.strip() == "// Available Class Instances:":
            for i, fields in _rows(lines, n):
                if len(fields) != 6:
                    raise _fail("a class instance row holds name, type, CB, CB offset, texture, sampler", i)
                kind, buffer, offset = _numbers(fields[1:4], _U16_MAX, i)
                texture, sampler = _numbers(fields[4:], _U16_MAX, i, dash=True)
                name, count = fields[0], 1
                array = _ARRAY.fullmatch(name)
                if array is not None:  # an instance array: fxc prints its element count
                    name, count = array.group(1), int(array.group(2))
                    if not 1 < count <= _U16_MAX:
                        raise _fail(f"an instance array holds 2 to {_U16_MAX} elements", i)
                model.class_instances.append(ClassInstance(_name(name, i), kind, count, buffer, offset, texture,
                                                           sampler))
    i = slots_at + 4
    while i + 2 < len(lines):
        type_row = _TYPE_ROW_RE.fullmatch(lines[i].strip())
        if type_row is None:
            break
        table_row = _TABLE_ROW_RE.fullmatch(lines[i + 1].strip())
        if table_row is None:
            raise _fail("a Type ID row needs its Table ID row", i + 1)
        first = int(type_row.group(1))
        last = int(type_row.group(2) or first)
        if last < first or last - first >= _U16_MAX:
            raise _fail(f"bad slot span {first}-{last}", i)
        type_ids = _numbers(type_row.group(3).split(), _U16_MAX, i)
        table_ids = _numbers(table_row.group(1).split(), _U32_MAX, i + 1)
        model.slots.append(InterfaceSlot(last - first + 1, type_ids, table_ids))
        i += 3
    return model

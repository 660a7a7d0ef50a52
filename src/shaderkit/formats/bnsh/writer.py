"""Laying a BNSH out and writing it.

:func:`plan` gives every structure an offset, in the order Nintendo's tools use (header, grsc,
variations, programs, per program its stage code, reflection, control sections, reflection
stages with their dictionaries and slot arrays, then the memory pool, the object memory, the
4096-aligned shader data, ``_STR`` and ``_RLT``). :func:`emit` writes the model at the offsets of
a plan - a fresh one or the one recorded when the file was read - and builds the string pool, the
dictionaries (from their keys) and the relocation table (from the pointers it wrote).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shaderkit.formats.bnsh.model import (
    PROGRAM_KINDS,
    TABLES,
    NvnShaderCode,
    ShaderProgram,
    SourceArrayCode,
    SourceCode,
)
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.binary import BlockHeader
from shaderkit.formats.nn.rlt import RelocationSection, RelocationTable, group
from shaderkit.formats.nn.strpool import StringPool, entry_size
from shaderkit.io.writer import Writer

if TYPE_CHECKING:
    from shaderkit.formats.bnsh.bnsh import Bnsh

Key = tuple[object, ...]
DATA_ALIGN = 0x100
POOL_SIZE_ALIGN = 0x1000


def _up(value: int, align: int) -> int:
    return -(-value // align) * align


def programs(model: Bnsh) -> Iterator[tuple[tuple[int, str], ShaderProgram]]:
    for v, variation in enumerate(model.variations):
        for kind, program in variation.programs():
            yield (v, kind), program


def used_strings(model: Bnsh) -> list[str]:
    """Pool strings: the original order for strings still used, then new ones as first used."""
    used: list[str] = []
    for _, program in programs(model):
        if program.reflection is None:
            continue
        for stage in program.reflection.stages:
            for table in stage.tables() if stage else ():
                used.extend(name for name, _ in table or ())
    used.append(model.name)
    seen = set(used)
    ordered = [s for s in dict.fromkeys(model.string_pool) if s in seen]
    return ordered + [s for s in dict.fromkeys(used) if s not in set(ordered) and s]


def items(model: Bnsh) -> Iterator[tuple[Key, int, int]]:
    """(key, size, alignment) of the main-section structures, in layout order."""
    yield ("variations",), 0x40 * len(model.variations), 8
    progs = list(programs(model))
    for pk, _ in progs:
        yield ("program", *pk), 0xA0, 8
    for pk, program in progs:
        present = [(i, code) for i, code in enumerate(program.stages) if code is not None]
        for i, code in present:
            yield ("code", *pk, i), 0x40 if isinstance(code, NvnShaderCode) else 0x20, 8
        if program.reflection is not None:
            yield ("reflection", *pk), 0x40, 8
        for i, code in present:
            if isinstance(code, NvnShaderCode):
                yield ("control", *pk, i), len(code.control), 8
            elif isinstance(code, SourceCode):
                yield ("source", *pk, i), len(code.code), 8
            elif isinstance(code, SourceArrayCode):
                yield ("sizes", *pk, i), 4 * len(code.codes), 8
                yield ("ptrs", *pk, i), 8 * len(code.codes), 8
                for j, text in enumerate(code.codes):
                    yield ("source", *pk, i, j), len(text), 8
        if program.reflection is not None:
            rstages = [(i, s) for i, s in enumerate(program.reflection.stages) if s is not None]
            for i, _ in rstages:
                yield ("rstage", *pk, i), 0x60, 8
            for i, stage in rstages:
                for table, entries in zip(TABLES, stage.tables()):
                    if entries is not None:
                        yield ("dic", *pk, i, table), dic.size(len(entries)), 8
                if stage.has_slot_array:
                    yield ("slots", *pk, i), 4 * stage.slot_count(), 8
    if model.memory_pool is not None:
        yield ("pool",), 0x50, 8
        if model.memory_pool.pool_object_size:
            yield ("poolobj",), model.memory_pool.pool_object_size, 8
    for pk, program in progs:
        yield ("obj", *pk), program.obj_size, 8


def data_items(model: Bnsh) -> Iterator[tuple[Key, int]]:
    for pk, program in programs(model):
        for i, code in enumerate(program.stages):
            if isinstance(code, NvnShaderCode):
                yield ("data", *pk, i), len(code.data)


@dataclass
class Plan:
    """Offsets (and sizes) of every structure; ``pool_size`` is the memory pool's size."""

    layout: dict[Key, tuple[int, int]] = field(default_factory=dict)
    pool_size: int = 0
    #: The relocation table read with this layout (None for a fresh layout).
    relocations: RelocationTable | None = None


def plan(model: Bnsh) -> Plan:
    """A fresh layout of ``model``."""
    out = Plan()
    out.layout[("header",)] = (0, 0x60)
    out.layout[("grsc",)] = (0x60, 0x60)
    pos = 0xC0
    for key, size, align in items(model):
        pos = _up(pos, align)
        out.layout[key] = (pos, size)
        pos += size
    pos = _up(pos, model.alignment)
    start = pos
    for key, size in data_items(model):
        pos = _up(pos, DATA_ALIGN)
        out.layout[key] = (pos, size)
        pos += size
    if model.memory_pool is not None:
        out.pool_size = _up(pos - start, POOL_SIZE_ALIGN)
        out.layout[("pooldata",)] = (start, out.pool_size)
        pos = start + out.pool_size
    pos = _up(pos, 8)
    strings = used_strings(model)
    str_size = 0x14 + sum(entry_size(s) for s in ["", *strings])
    out.layout[("str",)] = (pos, _up(str_size, 8))
    out.layout[("rlt",)] = (pos + _up(str_size, 8), 0)
    return out


class _Out(Writer):
    """The output buffer (``size`` zero bytes, filled in with :meth:`patch`) plus the pointers
    written so far."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.buf = bytearray(size)
        self.pointers: list[int] = []

    def raw(self, offset: int, data: bytes) -> None:
        self.buf[offset : offset + len(data)] = data

    def ptr(self, pos: int, target: int | None) -> None:
        """A relocated 64-bit pointer (null when ``target`` is None)."""
        self.patch(pos, "Q", target or 0)
        if target:
            self.pointers.append(pos)


def emit(model: Bnsh, p: Plan, gaps: list[tuple[int, bytes]] | None = None) -> bytes:
    """The file bytes for ``model`` laid out as ``p`` says; ``gaps`` are bytes to restore first."""
    lay = p.layout

    def at(key: Key) -> int:
        return lay[key][0]

    def opt(key: Key) -> int | None:
        entry = lay.get(key)
        return entry[0] if entry else None

    str_at = lay[("str",)][0]
    rlt_at = lay[("rlt",)][0]
    pool = StringPool(used_strings(model), reserved=model.string_pool_reserved)
    str_bytes, where, str_size = pool.build(str_at)
    out = _Out(rlt_at)
    for offset, chunk in gaps or ():
        out.raw(offset, chunk)
    out.raw(str_at, str_bytes)
    grsc = at(("grsc",))

    # grsc block and variations
    out.raw(grsc, BlockHeader.pack(b"grsc", str_at - grsc, str_at - grsc, model.grsc_reserved))
    out.patch(grsc + 0x10, "HHB3sII", model.target_api_type, model.target_api_version, model.target_code_type,
            model.grsc_reserved3, model.compiler_version, len(model.variations))
    out.ptr(grsc + 0x20, at(("variations",)) if model.variations else None)
    out.ptr(grsc + 0x28, opt(("pool",)))
    out.patch(grsc + 0x30, "Q40s", model.low_level_compiler_version, model.grsc_reserved40)
    var_at = opt(("variations",)) or 0
    for v, variation in enumerate(model.variations):
        base = var_at + 0x40 * v
        for slot, kind in enumerate(PROGRAM_KINDS):
            out.ptr(base + 8 * slot, opt(("program", v, kind)))
        out.ptr(base + 0x18, grsc)
        out.patch(base + 0x20, "32s", variation.reserved)

    for pk, program in programs(model):
        _emit_program(out, program, pk, lay, where)

    mp = model.memory_pool
    if mp is not None:
        base = lay[("pool",)][0]
        out.patch(base, "II", mp.memory_pool_property, p.pool_size)
        out.ptr(base + 8, opt(("pooldata",)))
        out.patch(base + 0x10, "16s", mp.reserved0)
        out.ptr(base + 0x20, opt(("poolobj",)))
        out.patch(base + 0x28, "QQ24s", mp.reserved1, mp.current_memory_pool, mp.reserved2)

    # header
    name_at = where[model.name] + 2 if model.name else 0
    out.raw(0, model.header.pack(name_at, grsc, rlt_at, 0))  # size patched in below
    out.raw(0x20, model.header_reserved)

    # relocation table: sections by where the pointer targets lie
    objs = sorted(lay[k] for k in lay if k[0] == "obj")
    main_end = objs[0][0] if objs else (opt(("poolobj",)) or 0) + (mp.pool_object_size if mp else 0)
    obj_end = objs[-1][0] + objs[-1][1] if objs else main_end
    pool_at, pool_len = lay.get(("pooldata",), (0, 0))
    bounds = [(0, main_end), (main_end, obj_end - main_end), (obj_end, 0), (obj_end, 0), (pool_at, pool_len),
              (str_at, str_size)]
    buckets: list[list[int]] = [[] for _ in bounds]
    for pos in out.pointers:
        (target,) = struct.unpack_from("<Q", out.buf, pos)
        index = 0
        for i in (5, 4, 1):
            start, size = bounds[i]
            if start <= target < start + size:
                index = i
                break
        buckets[index].append(pos)
    table = RelocationTable(
        [RelocationSection(start, size, group(ptrs)) for (start, size), ptrs in zip(bounds, buckets)],
        model.relocation_padding,
    )
    if p.relocations is not None and _same_pointers(p.relocations, table):
        # the pointers are those of the file read: keep its grouping as well
        table = RelocationTable([RelocationSection(s.position, s.size, list(s.entries), s.pointer)
                                 for s in p.relocations.sections], model.relocation_padding)
    first = 0
    for section in table.sections:
        section.first_entry = first
        first += len(section.entries)
    rlt = table.pack(rlt_at)
    out.patch(0x1C, "I", rlt_at + len(rlt))  # file size
    return bytes(out.buf) + rlt


def _emit_program(out: _Out, program: ShaderProgram, pk: tuple[int, str], lay: dict[Key, tuple[int, int]],
                  where: dict[str, int]) -> None:
    def at(key: Key) -> int:
        return lay[key][0]

    base = at(("program", *pk))
    out.patch(base, "BBBBI", program.flags, program.code_type, program.source_format, program.reserved_info,
            program.binary_format)
    for i, code in enumerate(program.stages):
        out.ptr(base + 8 + 8 * i, at(("code", *pk, i)) if code is not None else None)
    out.patch(base + 0x38, "40sII", program.reserved0, program.obj_size, program.reserved1)
    obj = lay.get(("obj", *pk))
    out.ptr(base + 0x68, obj[0] if obj else None)
    out.ptr(base + 0x70, at(("variations",)) + 0x40 * pk[0])
    out.ptr(base + 0x78, at(("reflection", *pk)) if program.reflection is not None else None)
    out.patch(base + 0x80, "Q24s", 0, program.reserved2)
    for i, code in enumerate(program.stages):
        if code is None:
            continue
        cat = at(("code", *pk, i))
        if isinstance(code, NvnShaderCode):
            out.patch(cat, "Q", code.data_address)
            out.ptr(cat + 8, at(("control", *pk, i)))
            out.ptr(cat + 0x10, at(("data", *pk, i)))
            out.patch(cat + 0x18, "IIQII16s", len(code.data), len(code.control), 0, code.scratch_memory_recommended,
                    code.scratch_memory_per_warp, code.reserved)
            out.raw(at(("control", *pk, i)), code.control)
            out.raw(at(("data", *pk, i)), code.data)
        elif isinstance(code, SourceCode):
            out.patch(cat, "II", len(code.code), code.decompressed_code_size)
            out.ptr(cat + 8, at(("source", *pk, i)))
            out.patch(cat + 0x10, "16s", code.reserved)
            out.raw(at(("source", *pk, i)), code.code)
        else:
            out.patch(cat, "H6s", len(code.codes), code.reserved0)
            sizes_at, ptrs_at = at(("sizes", *pk, i)), at(("ptrs", *pk, i))
            out.ptr(cat + 8, sizes_at)
            out.ptr(cat + 0x10, ptrs_at)
            out.patch(cat + 0x18, "8s", code.reserved1)
            for j, text in enumerate(code.codes):
                out.patch(sizes_at + 4 * j, "I", len(text))
                out.ptr(ptrs_at + 8 * j, at(("source", *pk, i, j)))
                out.raw(at(("source", *pk, i, j)), text)
    refl = program.reflection
    if refl is None:
        return
    rat = at(("reflection", *pk))
    for i, stage in enumerate(refl.stages):
        out.ptr(rat + 8 * i, at(("rstage", *pk, i)) if stage is not None else None)
    out.patch(rat + 0x30, "16s", refl.reserved)
    for i, stage in enumerate(refl.stages):
        if stage is None:
            continue
        sat = at(("rstage", *pk, i))
        tables = stage.tables()
        for t, (table, entries) in enumerate(zip(TABLES[:5], tables[:5])):
            out.ptr(sat + 8 * t, at(("dic", *pk, i, table)) if entries is not None else None)
        offsets = stage.offsets()
        out.patch(sat + 0x28, "4i", *offsets[1:5])
        slots_at = at(("slots", *pk, i)) if stage.has_slot_array else None
        out.ptr(sat + 0x38, slots_at)
        out.patch(sat + 0x40, "3Ii", *stage.compute_work_group_size, offsets[5])
        out.ptr(sat + 0x50, at(("dic", *pk, i, "images")) if stage.images is not None else None)
        out.patch(sat + 0x58, "Q", 0)
        slots: list[int] = []
        for table, entries in zip(TABLES, tables):
            if entries is None:
                continue
            keys = [name for name, _ in entries]
            built = dic.build(keys)
            dat = at(("dic", *pk, i, table))
            key_at = [where[""]] + [where[k] for k in keys]
            out.raw(dat, dic.pack(built, key_at))
            for j in range(len(built)):
                out.pointers.append(dat + 8 + 16 * j + 8)
            slots.extend(slot for _, slot in entries)
        if slots_at is not None and slots:
            out.patch(slots_at, f"{len(slots)}i", *slots)


def _same_pointers(old: RelocationTable, new: RelocationTable) -> bool:
    """Whether two tables have the same sections and relocate the same pointers in each."""
    if len(old.sections) != len(new.sections):
        return False
    for a, b in zip(old.sections, new.sections):
        if (a.position, a.size) != (b.position, b.size):
            return False
        if sorted(p for e in a.entries for p in e.pointers()) != sorted(p for e in b.entries for p in e.pointers()):
            return False
    return True

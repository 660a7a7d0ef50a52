"""Laying a BNSH out and writing it, through :mod:`shaderkit.io.layout`.

:func:`fresh_layout` gives every structure an offset, in the order Nintendo's tools use (header,
grsc, variations, programs, per program its stage code, reflection, compiler reflection, control
sections, reflection stages with their dictionaries and slot arrays, compiler-reflection arrays,
then the memory pool, the object memory, the 4096-aligned shader data, ``_STR`` and ``_RLT``).
:func:`emit` writes the model with a :class:`~shaderkit.io.layout.PlacedWriter` over a layout -
a fresh one or the one recorded when the file was read (then raw spans come back as they were,
and derived values the file stored - block sizes, the pool region, the string pool, tries and
the relocation table - are written back while what they describe is unchanged).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from shaderkit.errors import UnsupportedOperation
from shaderkit.formats.bnsh import compiler
from shaderkit.formats.bnsh.model import (
    COMPILER_TABLES,
    PROGRAM_KINDS,
    TABLES,
    CompilerReflection,
    NvnShaderCode,
    ShaderProgram,
    SourceArrayCode,
    SourceCode,
    UnknownStageCode,
)
from shaderkit.formats.bnsh.reader import Source
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.binary import BlockHeader
from shaderkit.formats.nn.rlt import RelocationSection, RelocationTable, group
from shaderkit.formats.nn.strpool import StringPool, entry_size
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned
from shaderkit.io.writer import Writer

if TYPE_CHECKING:
    from shaderkit.formats.bnsh.bnsh import Bnsh

Key = tuple[object, ...]
DATA_ALIGN = 0x100
POOL_SIZE_ALIGN = 0x1000
#: the memory pool holds the stage data plus at least this much room, rounded up to
#: POOL_SIZE_ALIGN: in all 92 public BNSH files measured (three tool versions: 2.1.2, 2.1.5,
#: 2.1.12 and 2.3.1) the room lies in (0x400, 0x500], so a pool whose data ends on 0xC00..0xF00
#: of a page takes one more page
POOL_TAIL = 0x500
#: items whose size the writer does not have to keep for the layout to be reused
_FREE_SIZE = {"str", "rlt"}


def _up(value: int, align: int) -> int:
    return -(-value // align) * align


def programs(model: Bnsh) -> Iterator[tuple[tuple[int, str], ShaderProgram]]:
    """((variation, kind), program) for every program of ``model``, in file order."""
    for v, variation in enumerate(model.variations):
        for kind, program in variation.programs():
            yield (v, kind), program


def used_strings(model: Bnsh) -> list[str]:
    """Pool strings: the original order for strings still used, then new ones as first used."""
    used: list[str] = []
    for _, program in programs(model):
        if program.reflection is not None:
            for stage in program.reflection.stages:
                for table in stage.tables() if stage else ():
                    used.extend(name for name, _ in table or ())
        if program.compiler_reflection is not None:
            for _, entries in program.compiler_reflection.tables():
                used.extend(e.name for e in entries or () if e.name is not None)
    used.append(model.name)
    seen = set(used)
    ordered = [s for s in dict.fromkeys(model.string_pool) if s in seen]
    known = set(ordered)
    return ordered + [s for s in dict.fromkeys(used) if s not in known and s]


def items(model: Bnsh) -> Iterator[tuple[Key, int, int]]:
    """(key, size, alignment) of the main-section structures, in layout order."""
    yield ("variations",), 0x40 * len(model.variations), 8
    progs = list(programs(model))
    for pk, program in progs:
        yield ("program", *pk), 0xA0, 8
        present = [(i, code) for i, code in enumerate(program.stages)
                   if code is not None and not isinstance(code, UnknownStageCode)]
        for i, code in present:
            yield ("code", *pk, i), 0x40 if isinstance(code, NvnShaderCode) else 0x20, 8
        if program.reflection is not None:
            yield ("reflection", *pk), 0x40, 8
        if program.compiler_reflection is not None:
            yield ("compiler", *pk), compiler.HEADER_SIZE, 8
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
                if stage.uses_stage_data2():  # (placement not seen in a real file)
                    yield ("rstage2", *pk, i), 0x30, 8
        if program.compiler_reflection is not None:
            for (table, _, size), (_, entries) in zip(COMPILER_TABLES, program.compiler_reflection.tables()):
                if entries is not None:
                    yield ("compiler", *pk, table), size * len(entries), 8
    if model.memory_pool is not None:
        yield ("pool",), 0x50, 8
        if model.memory_pool.pool_object_size:
            yield ("poolobj",), model.memory_pool.pool_object_size, 8
    for pk, program in progs:
        if program.has_object_memory:
            yield ("obj", *pk), program.obj_size, 8


def data_items(model: Bnsh) -> Iterator[tuple[Key, int]]:
    """(layout key, size in bytes) of every NVN stage data blob of ``model``."""
    for pk, program in programs(model):
        for i, code in enumerate(program.stages):
            if isinstance(code, NvnShaderCode):
                yield ("data", *pk, i), len(code.data)


def fresh_layout(model: Bnsh) -> tuple[Layout, tuple[int, int]]:
    """A fresh layout of ``model`` (items zero-filled at their offsets; ``size`` is where _RLT
    starts) and the memory pool's data region (offset, size)."""
    out = Layout()

    def put(key: Key, offset: int, size: int) -> None:
        out.record(key, offset, bytes(size))

    put(("header",), 0, 0x60)
    put(("grsc",), 0x60, 0x60)
    # a code blob with the same bytes as one placed before it is stored once (Nintendo's tools
    # share identical control sections and shader data between variations)
    placed: dict[tuple[str, bytes], Key] = {}

    def shared(key: Key) -> bool:
        blob = _blob(model, key) if key[0] in ("control", "data") else None
        if not blob:
            return False
        first = placed.setdefault((str(key[0]), blob), key)
        if first == key:
            return False
        put(key, out.items[first].offset, len(blob))  # recorded at the same offset: shared with first
        return True

    pos = 0xC0
    for key, size, align in items(model):
        if shared(key):
            continue
        pos = _up(pos, align)
        put(key, pos, size)
        pos += size
    pos = _up(pos, model.alignment)
    start = pos
    for key, size in data_items(model):
        if shared(key):
            continue
        pos = _up(pos, DATA_ALIGN)
        put(key, pos, size)
        pos += size
    region = (0, 0)
    if model.memory_pool is not None:
        region = (start, _up(pos - start + POOL_TAIL, POOL_SIZE_ALIGN))
        pos = start + region[1]
    pos = _up(pos, 8)
    str_size = 0x14 + sum(entry_size(s) for s in ["", *used_strings(model)])
    put(("str",), pos, _up(str_size, 8))
    out.size = pos + _up(str_size, 8)
    return out, region


def reusable(model: Bnsh, source: Source, used: list[str]) -> bool:
    """Whether every structure still fits where it lay in the file read (``used``: the pool strings)."""
    stored = source.layout.items
    count = 4  # header, grsc, _STR and _RLT
    for key, size in _sizes(model):
        placement = stored.get(key)
        if placement is None or len(placement.data) != size:
            return False
        count += 1
    if count != len(stored):
        return False
    for shared_key, first in source.layout.shared.items():
        if _blob(model, shared_key) != _blob(model, first):  # shared in the file, no longer equal
            return False
    if _strings_unchanged(model, source, used):
        return True
    return len(stored[("str",)].data) == _up(0x14 + sum(entry_size(s) for s in ["", *used]), 8)


def _blob(model: Bnsh, key: object) -> bytes | None:
    """The bytes of a code blob item (control section, shader data, source text) of ``model``."""
    if not isinstance(key, tuple) or len(key) < 4:
        return None
    kind, v, program_kind, stage = key[:4]
    try:
        program = getattr(model.variations[v], f"{program_kind}_program")
        code = program.stages[stage]
    except (AttributeError, IndexError, TypeError):
        return None
    if kind == "control" and isinstance(code, NvnShaderCode):
        return code.control
    if kind == "data" and isinstance(code, NvnShaderCode):
        return code.data
    if kind == "source" and isinstance(code, SourceCode) and len(key) == 4:
        return code.code
    if kind == "source" and isinstance(code, SourceArrayCode) and len(key) == 5:
        index = key[4]
        if isinstance(index, int) and 0 <= index < len(code.codes):
            return code.codes[index]
    return None


def _sizes(model: Bnsh) -> Iterator[tuple[Key, int]]:
    for key, size, _ in items(model):
        yield key, size
    yield from data_items(model)


def _strings_unchanged(model: Bnsh, source: Source, used: list[str]) -> bool:
    return tuple(model.string_pool) == source.strings and set(used) <= set(source.strings)


_STRUCTS: dict[str, struct.Struct] = {}
_POINTER = struct.Struct("<Q")


class _Out(Writer):
    """Scratch bytes every structure is written into (fields patched in), plus the pointers written."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.buf = bytearray(size)
        self.pointers: list[int] = []

    def patch(self, pos: int, fmt: str, *values: object) -> None:
        st = _STRUCTS.get(fmt)
        if st is None:
            st = _STRUCTS[fmt] = struct.Struct("<" + fmt)
        st.pack_into(self.buf, pos, *values)

    def raw(self, offset: int, data: bytes) -> None:
        self.buf[offset : offset + len(data)] = data

    def ptr(self, pos: int, target: int | None) -> None:
        """A relocated 64-bit pointer (null when ``target`` is None)."""
        _POINTER.pack_into(self.buf, pos, target or 0)
        if target:
            self.pointers.append(pos)


def emit(model: Bnsh, source: Source | None = None, fresh: bool = False) -> bytes:
    """The file bytes for ``model``: where the file read had everything while it still fits
    (``source``), else (or with ``fresh``) laid out anew."""
    used = used_strings(model)
    stored = source if source is not None and not fresh and reusable(model, source, used) else None
    if stored is None and source is not None and not fresh:
        kept = [span for span in source.layout.raw if any(span.data)]
        if kept:
            raise UnsupportedOperation(
                f"the edit needs a new layout, and the file read holds {sum(len(s.data) for s in kept)} bytes no "
                f"structure covers (first at {kept[0].offset:#x}) that a new layout cannot place; relayout() "
                "writes the file without them")
    if stored is None and any(isinstance(code, UnknownStageCode) for _, p in programs(model) for code in p.stages):
        raise UnsupportedOperation("stage code of a type shaderkit does not model is kept as raw bytes where it lay; "
                                   "the file can only be written with every structure in place")
    if stored is not None:
        layout, region = stored.layout, stored.pool_region
        rlt_at = layout.items[("rlt",)].offset
    else:
        layout, region = fresh_layout(model)
        rlt_at = layout.size
    lay: dict[Key, tuple[int, int]] = {
        key: (p.offset, len(p.data)) for key, p in layout.items.items() if isinstance(key, tuple)
    }

    def at(key: Key) -> int:
        return lay[key][0]

    def opt(key: Key) -> int | None:
        entry = lay.get(key)
        return entry[0] if entry else None

    str_at = at(("str",))
    strings_kept = stored is not None and _strings_unchanged(model, stored, used)
    pool = StringPool(list(stored.strings) if stored is not None and strings_kept else used,
                      reserved=model.string_pool_reserved)
    str_bytes, where, str_size = pool.build(str_at)
    out = _Out(layout.size)
    out.raw(str_at, layout.items[("str",)].data if strings_kept else str_bytes)
    grsc = at(("grsc",))

    # grsc block and variations
    next_offset, block_size = stored.grsc_block if stored is not None else (str_at - grsc, str_at - grsc)
    out.raw(grsc, BlockHeader.pack(b"grsc", next_offset, block_size, model.grsc_reserved))
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

    dictionaries = stored.dictionaries if stored is not None and strings_kept else {}
    refs = stored.string_refs if stored is not None and strings_kept else {}

    def string_at(position: int, text: str) -> int:
        """Where a pointer to the characters of ``text`` points (the stored entry while kept)."""
        ref = refs.get(position)
        return ref[1] if ref is not None and ref[0] == text else where[text] + 2

    for pk, program in programs(model):
        _emit_program(out, program, pk, lay, where, layout, dictionaries, string_at)

    mp = model.memory_pool
    if mp is not None:
        base = at(("pool",))
        out.patch(base, "II", mp.memory_pool_property, region[1])
        out.ptr(base + 8, region[0] or None)
        out.patch(base + 0x10, "16s", mp.reserved0)
        out.ptr(base + 0x20, opt(("poolobj",)))
        out.patch(base + 0x28, "QQ24s", mp.reserved1, mp.current_memory_pool, mp.reserved2)
        if ("poolobj",) in lay:
            out.raw(at(("poolobj",)), layout.items[("poolobj",)].data)

    # header (the file size is set once the relocation table is known)
    name_at = string_at(0x10, model.name) if model.name or model.header.name_offset else 0
    out.raw(0, model.header.pack(name_at, grsc, rlt_at, 0))
    out.raw(0x20, model.header_reserved)

    w = PlacedWriter(layout, append_aligned(8))
    for key, (offset, size) in lay.items():
        if size and key != ("rlt",):
            placed = w.place(key, bytes(out.buf[offset : offset + size]))
            assert placed == offset, key
    body = w.getvalue()

    # relocation table: the stored one while it relocates the same pointers, else grouped anew
    tail = b""
    if stored is not None and len(out.pointers) == len(stored.pointers) and set(out.pointers) == stored.pointers:
        rlt = layout.items[("rlt",)].data
        rlt_end = rlt_at + len(rlt)
        if rlt_end < layout.size:
            tail = bytes(_raw_after(layout, rlt_end))
    else:
        unknown = source.unknown_pointers if source is not None else frozenset()
        if unknown and stored is None:
            raise UnsupportedOperation(
                f"the file read relocates {len(unknown)} pointer(s) into structures shaderkit keeps as raw bytes "
                f"(first at {min(unknown):#x}); it can only be written with every structure where it lay")
        pointers = [*out.pointers, *sorted(unknown)]
        rlt = _relocation_table(model, body, pointers, lay, region, (str_at, str_size)).pack(rlt_at)
    result = bytearray(body[:rlt_at])
    result += rlt
    result += tail
    struct.pack_into("<I", result, 0x1C, len(result))
    return bytes(result)


def _raw_after(layout: Layout, offset: int) -> bytearray:
    """The stored bytes from ``offset`` to the end of the file read (raw spans past _RLT)."""
    out = bytearray(max(layout.size - offset, 0))
    for span in layout.raw:
        if span.end > offset:
            start = max(span.offset, offset)
            out[start - offset : span.end - offset] = span.data[start - span.offset :]
    return out


def _relocation_table(model: Bnsh, body: bytes, pointers: list[int], lay: dict[Key, tuple[int, int]],
                      region: tuple[int, int], strings: tuple[int, int]) -> RelocationTable:
    """Six sections by where the pointer targets lie: main, object memory, two empty, pool, strings."""
    objs = sorted(span for k, span in lay.items() if k[0] == "obj")
    mp = model.memory_pool
    pool_obj = lay.get(("poolobj",), (0, 0))
    main_end = objs[0][0] if objs else (pool_obj[0] + pool_obj[1] if mp is not None else 0)
    obj_end = objs[-1][0] + objs[-1][1] if objs else main_end
    bounds = [(0, main_end), (main_end, obj_end - main_end), (obj_end, 0), (obj_end, 0), region, strings]
    buckets: list[list[int]] = [[] for _ in bounds]
    for pos in pointers:
        (target,) = _POINTER.unpack_from(body, pos)
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
    first = 0
    for section in table.sections:
        section.first_entry = first
        first += len(section.entries)
    return table


def _emit_program(out: _Out, program: ShaderProgram, pk: tuple[int, str], lay: dict[Key, tuple[int, int]],
                  where: dict[str, int], layout: Layout, dictionaries: dict[Key, tuple[str, ...]],
                  string_at: Callable[[int, str], int]) -> None:
    def at(key: Key) -> int:
        return lay[key][0]

    base = at(("program", *pk))
    out.patch(base, "BBBBI", program.flags, program.code_type, program.source_format, program.reserved_info,
              program.binary_format)
    for i, code in enumerate(program.stages):
        if isinstance(code, UnknownStageCode):
            out.ptr(base + 8 + 8 * i, code.stored_at)  # a raw span in place (emit checks)
        else:
            out.ptr(base + 8 + 8 * i, at(("code", *pk, i)) if code is not None else None)
    out.patch(base + 0x38, "40sII", program.reserved0, program.obj_size, program.reserved1)
    obj_key: Key = ("obj", *pk)
    obj = lay.get(obj_key)
    out.ptr(base + 0x68, obj[0] if obj else None)
    if obj:
        out.raw(obj[0], layout.items[obj_key].data)
    out.ptr(base + 0x70, at(("variations",)) + 0x40 * pk[0])
    out.ptr(base + 0x78, at(("reflection", *pk)) if program.reflection is not None else None)
    out.ptr(base + 0x80, at(("compiler", *pk)) if program.compiler_reflection is not None else None)
    out.patch(base + 0x88, "24s", program.reserved2)
    for i, code in enumerate(program.stages):
        if code is None or isinstance(code, UnknownStageCode):
            continue
        cat = at(("code", *pk, i))
        if isinstance(code, NvnShaderCode):
            out.patch(cat, "Q", code.data_address)
            out.ptr(cat + 8, at(("control", *pk, i)))
            out.ptr(cat + 0x10, at(("data", *pk, i)))
            out.patch(cat + 0x18, "IIQII16s", len(code.data), len(code.control), code.decomposed_control_section_at,
                      code.scratch_memory_recommended, code.scratch_memory_per_warp, code.reserved)
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
    if program.reflection is not None:
        _emit_reflection(out, program, pk, lay, where, layout, dictionaries)
    if program.compiler_reflection is not None:
        _emit_compiler_reflection(out, program.compiler_reflection, pk, lay, string_at)


def _emit_reflection(out: _Out, program: ShaderProgram, pk: tuple[int, str], lay: dict[Key, tuple[int, int]],
                     where: dict[str, int], layout: Layout, dictionaries: dict[Key, tuple[str, ...]]) -> None:
    def at(key: Key) -> int:
        return lay[key][0]

    refl = program.reflection
    assert refl is not None
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
        data2_at = at(("rstage2", *pk, i)) if stage.uses_stage_data2() else None
        out.ptr(sat + 0x58, data2_at)
        if data2_at is not None:
            for t, table in ((0, "separate_textures"), (1, "separate_samplers")):
                out.ptr(data2_at + 8 * t, at(("dic", *pk, i, table)) if getattr(stage, table) is not None else None)
            out.patch(data2_at + 0x10, "ii24s", offsets[6], offsets[7], stage.stage_data2_reserved)
        slots: list[int] = []
        for table, entries in zip(TABLES, tables):
            if entries is None:
                continue
            dkey = ("dic", *pk, i, table)
            keys = [name for name, _ in entries]
            dat = at(dkey)
            if dictionaries.get(dkey) == tuple(keys):
                out.raw(dat, layout.items[dkey].data)  # the trie as stored (same keys, same strings)
            else:
                key_at = [where[""]] + [where[k] for k in keys]
                # an early file's zero signature is kept (only a layout read from a file has one;
                # a fresh layout's items are zero-filled placeholders)
                stored = layout.items.get(dkey) if dkey in dictionaries else None
                signature = dic.EARLY_SIGNATURE if stored is not None and stored.data[:4] == dic.EARLY_SIGNATURE \
                    else dic.SIGNATURE
                out.raw(dat, dic.pack(dic.build(keys), key_at, signature))
            out.pointers.extend(dat + 16 + 16 * j for j in range(len(keys) + 1))
            slots.extend(slot for _, slot in entries)
        if slots_at is not None and slots:
            out.patch(slots_at, f"{len(slots)}i", *slots)


def _emit_compiler_reflection(out: _Out, refl: CompilerReflection, pk: tuple[int, str],
                              lay: dict[Key, tuple[int, int]], string_at: Callable[[int, str], int]) -> None:
    header_key: Key = ("compiler", *pk)
    base = lay[header_key][0]
    tables = refl.tables()
    counts = [len(entries or ()) for _, entries in tables]
    out.patch(base, "8I", *counts[:8])
    out.patch(base + 0x58, "3I4s", *refl.compute_work_group_size, refl.reserved2)
    out.patch(base + 0x70, "II", *counts[8:])
    out.patch(base + 0x88, "16s", refl.reserved)
    for (table, cls, size), (_, entries), field_at in zip(COMPILER_TABLES, tables, compiler.POINTER_AT):
        key = ("compiler", *pk, table)
        array_at = lay[key][0] if entries is not None else None
        out.ptr(base + field_at, array_at)
        entry_struct = compiler.ENTRY_STRUCTS[cls]
        for index, entry in enumerate(entries or ()):
            entry_at = (array_at or 0) + size * index
            name = entry.name
            length = len(name.encode("utf-8")) if name is not None else 0
            out.patch(entry_at, f"{entry_struct.size}s",
                      entry_struct.pack(length, entry.name_reserved, 0, *compiler.entry_values(entry)))
            name_at = entry_at + compiler.NAME_POINTER_AT
            out.ptr(name_at, string_at(name_at, name) if name is not None else None)

"""Parsing a BNSH file into the model, recording in an :class:`~shaderkit.io.layout.Layout` where
every structure lay (with its bytes); every byte no structure covers is kept as a raw span."""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.bnsh import compiler
from shaderkit.formats.bnsh.model import (
    COMPILER_TABLES,
    STAGES,
    TABLES,
    CompilerEntry,
    CompilerReflection,
    MemoryPool,
    NvnShaderCode,
    ReflectionStage,
    ShaderProgram,
    ShaderReflection,
    ShaderVariation,
    SourceArrayCode,
    SourceCode,
    StageCode,
    UnknownStageCode,
)
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.binary import BinaryFileHeader, read_chain
from shaderkit.formats.nn.rlt import RelocationTable
from shaderkit.formats.nn.strpool import StringPool, read_string
from shaderkit.io.layout import Layout
from shaderkit.io.reader import Reader

SIGNATURE = b"BNSH\0\0\0\0"
Key = tuple[object, ...]
#: Kinds of items that may be shared (two pointers to one blob of the same size)
SHAREABLE = frozenset({"control", "data", "source"})
# Structures read after they are claimed (so they lie inside the file).
_VARIATION = struct.Struct("<QQQQ32s")
_PROGRAM = struct.Struct("<BBBBI6Q40sIIQQQQ24s")
_NVN_CODE = struct.Struct("<QQQIIQII16s")
_SOURCE_CODE = struct.Struct("<IIQ16s")
_SOURCE_ARRAY = struct.Struct("<H6sQQ8s")
_REFLECTION = struct.Struct("<6Q16s")
_REFLECTION_STAGE = struct.Struct("<5QiiiiQIIIiQQ")


@dataclass
class Source:
    """What the file read stored beyond the model: where everything lay and the values of the
    derived fields the writer keeps while the layout is reused."""

    layout: Layout
    #: positions of every non-null relocated pointer, as the writer writes them for this model
    pointers: frozenset[int] = frozenset()
    #: grsc block header: offset to the next block and block size, as stored
    grsc_block: tuple[int, int] = (0, 0)
    #: memory pool data: pMemory (0 when null) and memorySize, as stored
    pool_region: tuple[int, int] = (0, 0)
    #: pool strings as read (the stored _STR block is written back while they are unchanged)
    strings: tuple[str, ...] = ()
    #: keys of every dictionary as read (its stored trie is written back while they are unchanged)
    dictionaries: dict[Key, tuple[str, ...]] = field(default_factory=dict)
    #: position of every string pointer outside dictionaries -> (its string, the pointer as stored);
    #: a pool may hold one string twice, and the pointer keeps the entry it chose
    string_refs: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: pointers the stored _RLT relocates that no modelled structure holds (into raw spans)
    unknown_pointers: frozenset[int] = frozenset()


@dataclass
class Parsed:
    """Everything the BNSH reader found: header, grsc fields, variations and the layout of every item."""
    header: BinaryFileHeader
    header_reserved: bytes
    #: target_api_type, target_api_version, target_code_type, reserved (3), compiler_version,
    #: low_level_compiler_version, reserved (40)
    grsc_fields: tuple[int, int, int, bytes, int, int, bytes]
    grsc_reserved: int
    variations: list[ShaderVariation]
    memory_pool: MemoryPool | None
    name: str
    strings: StringPool
    relocation_table: RelocationTable
    source: Source


class _Parser:
    def __init__(self, data: bytes) -> None:
        self.r = Reader(data, context="BNSH")
        self.layout = Layout()
        #: offset -> (kind, size) of every structure claimed
        self.claimed: dict[int, tuple[str, int]] = {}
        self.claimed_bytes = 0
        self.pool_strings: dict[int, str] = {}
        self.pointers: list[int] = []
        self.dictionaries: dict[Key, tuple[str, ...]] = {}
        self.string_refs: dict[int, tuple[str, int]] = {}

    def claim(self, key: Key, offset: int, size: int, what: str) -> None:
        """Record a structure with its bytes. Code blobs (control sections, shader data, source
        text) of one kind and size may be shared (the layout records it); any other structure
        reached twice is refused."""
        data = self.r.data
        if offset <= 0 or offset + size > len(data):
            raise self.r.error(f"{what} at {offset:#x} (+{size:#x}) lies outside the file", offset)
        if size and offset in self.claimed:
            kind = str(key[0])
            if kind not in SHAREABLE or self.claimed[offset] != (kind, size):
                raise self.r.error(f"{what} at {offset:#x} is referenced twice (cyclic or shared pointer)", offset)
        elif size:
            self.claimed[offset] = (str(key[0]), size)
            self.account(size, offset)
        self.layout.record(key, offset, data[offset : offset + size])

    def account(self, size: int, offset: int) -> None:
        """Structures never overlap, so together they cannot outgrow the file; this bounds the
        work (and memory) a crafted file with overlapping structures could demand."""
        self.claimed_bytes += size
        if self.claimed_bytes > len(self.r.data):
            raise self.r.error("structures overlap: together they are larger than the file", offset)

    def pointer(self, position: int, value: int) -> None:
        """Note a relocated pointer field (null pointers are not relocated)."""
        if value:
            self.pointers.append(position)

    def bytes_at(self, offset: int, size: int, what: str) -> bytes:
        return self.r.sub(offset, size, what).read(size, what)

    def pool_string(self, ptr: int, what: str) -> str:
        """A string of the _STR pool whose u16 length sits at ``ptr`` (keeps look-ups O(1))."""
        text = self.pool_strings.get(ptr)
        if text is None:
            read_string(self.r, ptr, what)  # a precise error when it is not even a string
            raise self.r.error(f"{what} at {ptr:#x} is not a string of the _STR pool", ptr)
        return text

    def key_string(self, ptr: int) -> str:
        return self.pool_string(ptr, "dictionary key")

    # -- structures -------------------------------------------------------------------------
    def parse(self) -> Parsed:
        r = self.r
        header = BinaryFileHeader.read(r, SIGNATURE)
        header_reserved = r.sub(0x20, 0x40, "header").read(0x40)
        self.layout.record(("header",), 0, r.data[:0x60])
        blocks = {block.signature: (offset, block) for offset, block in read_chain(r, header.first_block_offset)}
        if b"grsc" not in blocks or b"_STR" not in blocks:
            raise r.error(f"blocks {sorted(blocks)} lack grsc or _STR", header.first_block_offset)
        grsc_at, block = blocks[b"grsc"]
        str_at, str_block = blocks[b"_STR"]
        with r.scope("grsc"):
            self.claim(("grsc",), grsc_at, 0x60, "grsc")
            r.seek(grsc_at + 0x10)
            fields = r.unpack("HHB3sIIQQQ40s", "grsc")
            api_type, api_version, code_type, res3, compiler_version, count, p_vars, p_pool, llc, res40 = fields
            self.pointer(grsc_at + 0x20, p_vars)
            self.pointer(grsc_at + 0x28, p_pool)
        strings = StringPool.read(r, str_at)
        self.pool_strings = strings.by_offset
        self.claim(("str",), str_at, str_block.block_size, "_STR")
        name = ""
        if header.name_offset:
            if header.name_offset < 2:
                raise r.error("file name offset points before the file", 0x10)
            name = self.pool_string(header.name_offset - 2, "file name")
            self.string_refs[0x10] = (name, header.name_offset)
        variations: list[ShaderVariation] = []
        if count:
            r.check_count(count, 0x40, "variations", p_vars)
            self.claim(("variations",), p_vars, 0x40 * count, "variation array")
            for v in range(count):
                with r.scope(f"variation[{v}]"):
                    variations.append(self.variation(v, p_vars + 0x40 * v, grsc_at))
        elif p_vars:
            raise r.error("no variations but a variation array pointer", grsc_at + 0x20)
        pool, pool_region = self.memory_pool(p_pool) if p_pool else (None, (0, 0))
        rlt = RelocationTable.read(r, header.relocation_table_offset)
        self.claim(("rlt",), header.relocation_table_offset, rlt.size(), "_RLT")
        self.check_overlaps()
        self.layout.close(r.data)
        grsc = (api_type, api_version, code_type, res3, compiler_version, llc, res40)
        pointers = frozenset(self.pointers)
        covered = sum(e.chunk_count * e.pointers_per_chunk for section in rlt.sections for e in section.entries)
        if covered > len(r.data) // 8:
            raise r.error(f"_RLT relocates {covered} pointers, more than the file has 8-byte words",
                          header.relocation_table_offset)
        relocated = {p for section in rlt.sections for entry in section.entries for p in entry.pointers()}
        source = Source(self.layout, pointers, (block.next_offset, block.block_size), pool_region,
                        tuple(strings.strings), self.dictionaries, self.string_refs, frozenset(relocated - pointers))
        return Parsed(header, header_reserved, grsc, block.reserved, variations, pool, name, strings, rlt, source)

    def check_overlaps(self) -> None:
        """Structures that overlap cannot all be written back where they lay: refuse them."""
        spans = sorted(((p.offset, p.end, key) for key, p in self.layout.items.items() if p.data),
                       key=lambda span: (span[0], span[1]))
        for (first, end, key), (start, stop, other) in zip(spans, spans[1:]):
            if start < end and (first, end) != (start, stop):  # identical spans: a shared code blob
                raise self.r.error(f"{other} at {start:#x} overlaps {key} (ends at {end:#x})", start)

    def variation(self, v: int, at: int, grsc_at: int) -> ShaderVariation:
        r = self.r
        p_src, p_il, p_bin, parent, reserved = _VARIATION.unpack_from(r.data, at)  # inside the claimed array
        if parent != grsc_at:
            raise r.error(f"parent pointer {parent:#x} is not the grsc block at {grsc_at:#x}", at + 0x18)
        for slot, value in enumerate((p_src, p_il, p_bin, parent)):
            self.pointer(at + 8 * slot, value)
        progs: list[ShaderProgram | None] = []
        for kind, ptr in (("source", p_src), ("intermediate_language", p_il), ("binary", p_bin)):
            if not ptr:
                progs.append(None)
                continue
            with r.scope(kind):
                progs.append(self.program((v, kind), ptr, at))
        return ShaderVariation(progs[0], progs[1], progs[2], reserved)

    def program(self, pk: tuple[int, str], at: int, variation_at: int) -> ShaderProgram:
        r = self.r
        self.claim(("program", *pk), at, 0xA0, "program")
        (flags, code_type, src_fmt, res_info, bin_fmt, *stage_ptrs, res0, obj_size, res1, p_obj, parent, p_refl, p_comp,
         res2) = _PROGRAM.unpack_from(r.data, at)
        if parent != variation_at:
            raise r.error(f"parent pointer {parent:#x} is not the variation at {variation_at:#x}", at + 0x70)
        for index, value in enumerate(stage_ptrs):
            self.pointer(at + 8 + 8 * index, value)
        for position, value in ((0x68, p_obj), (0x70, parent), (0x78, p_refl), (0x80, p_comp)):
            self.pointer(at + position, value)
        if obj_size > len(r.data):
            raise r.error(f"object size {obj_size:#x} is larger than the file", at + 0x60)
        if p_obj:
            self.claim(("obj", *pk), p_obj, obj_size, "program object memory")
        stages: list[StageCode | None] = []
        for index, ptr in enumerate(stage_ptrs):
            if not ptr:
                stages.append(None)
                continue
            with r.scope(STAGES[index]):
                stages.append(self.stage_code(code_type, (*pk, index), ptr))
        reflection = None
        if p_refl:
            with r.scope("reflection"):
                reflection = self.reflection(pk, p_refl)
        compiler_reflection = None
        if p_comp:
            with r.scope("compiler_reflection"):
                compiler_reflection = self.compiler_reflection(pk, p_comp)
        return ShaderProgram(flags, code_type, src_fmt, bin_fmt, stages, obj_size, reflection, res_info,
                             res0, res1, res2, compiler_reflection, bool(p_obj))

    def stage_code(self, code_type: int, sk: tuple[object, ...], at: int) -> StageCode:
        r = self.r
        if code_type == 0:
            self.claim(("code", *sk), at, 0x40, "NvnShaderCode")
            address, p_control, p_data, data_size, control_size, p_decomposed, rec, warp, res = _NVN_CODE.unpack_from(
                r.data, at)
            self.pointer(at + 8, p_control)
            self.pointer(at + 0x10, p_data)
            self.claim(("control", *sk), p_control, control_size, "control section")
            self.claim(("data", *sk), p_data, data_size, "shader data")
            control = self.bytes_at(p_control, control_size, "control section")
            data = self.bytes_at(p_data, data_size, "shader data")
            return NvnShaderCode(control, data, address, rec, warp, res, p_decomposed)
        if code_type == 2:
            self.claim(("code", *sk), at, 0x20, "ShaderCode")
            size, decompressed, p_code, res = _SOURCE_CODE.unpack_from(r.data, at)
            self.pointer(at + 8, p_code)
            self.claim(("source", *sk), p_code, size, "source code")
            return SourceCode(self.bytes_at(p_code, size, "source code"), decompressed, res)
        if code_type == 3:
            self.claim(("code", *sk), at, 0x20, "SourceArrayCode")
            count, res0, p_sizes, p_ptrs, res1 = _SOURCE_ARRAY.unpack_from(r.data, at)
            r.check_count(count, 4, "source sizes", p_sizes)
            r.check_count(count, 8, "source pointers", p_ptrs)
            self.pointer(at + 8, p_sizes)
            self.pointer(at + 0x10, p_ptrs)
            self.claim(("sizes", *sk), p_sizes, 4 * count, "source size array")
            self.claim(("ptrs", *sk), p_ptrs, 8 * count, "source pointer array")
            sizes = r.at(p_sizes).unpack(f"{count}I", "source sizes")
            ptrs = r.at(p_ptrs).unpack(f"{count}Q", "source pointers")
            codes = []
            for i, (size, ptr) in enumerate(zip(sizes, ptrs)):
                self.pointer(p_ptrs + 8 * i, ptr)
                self.claim(("source", *sk, i), ptr, size, "source code")
                codes.append(self.bytes_at(ptr, size, "source code"))
            return SourceArrayCode(codes, res0, res1)
        return UnknownStageCode(at)  # its bytes stay a raw span

    def reflection(self, pk: tuple[int, str], at: int) -> ShaderReflection:
        r = self.r
        self.claim(("reflection", *pk), at, 0x40, "reflection")
        *ptrs, reserved = _REFLECTION.unpack_from(r.data, at)
        stages: list[ReflectionStage | None] = []
        for index, ptr in enumerate(ptrs):
            if not ptr:
                stages.append(None)
                continue
            self.pointers.append(at + 8 * index)
            with r.scope(STAGES[index]):
                stages.append(self.reflection_stage((*pk, index), ptr))
        return ShaderReflection(stages, reserved)

    def reflection_stage(self, sk: tuple[object, ...], at: int) -> ReflectionStage:
        r = self.r
        self.claim(("rstage", *sk), at, 0x60, "reflection stage")
        (p_in, p_out, p_smp, p_cb, p_uab, o_out, o_smp, o_cb, o_uab, p_slots, wx, wy, wz, o_img, p_img,
         p_ext) = _REFLECTION_STAGE.unpack_from(r.data, at)
        self.pointers.extend(at + position for position, value in (
            (0, p_in), (8, p_out), (0x10, p_smp), (0x18, p_cb), (0x20, p_uab), (0x38, p_slots), (0x50, p_img),
            (0x58, p_ext)) if value)
        dic_pointers = [p_in, p_out, p_smp, p_cb, p_uab, p_img]
        stored_offsets = [o_out, o_smp, o_cb, o_uab, o_img]
        data2_reserved = bytes(24)
        if p_ext:
            self.claim(("rstage2", *sk), p_ext, 0x30, "reflection stage data 2")
            p_tex, p_smp2, o_tex, o_smp2, data2_reserved = r.unpack_at(p_ext, "QQii24s", "reflection stage data 2")
            self.pointers.extend(p_ext + position for position, value in ((0, p_tex), (8, p_smp2)) if value)
            dic_pointers += [p_tex, p_smp2]
            stored_offsets += [o_tex, o_smp2]
        keys: dict[str, list[str] | None] = dict.fromkeys(TABLES)
        for table, ptr in zip(TABLES, dic_pointers):
            if not ptr:
                keys[table] = None
                continue
            with r.scope(table):
                dkey = ("dic", *sk, table)
                if ptr in self.claimed:
                    raise r.error(f"dictionary at {ptr:#x} is referenced twice (cyclic or shared pointer)", ptr)
                entries = dic.read(r, ptr, self.key_string)
                size = dic.size(len(entries) - 1)
                self.claim(dkey, ptr, size, "dictionary")
                self.pointers.extend(range(ptr + 16, ptr + 16 + 16 * len(entries), 16))  # key pointers
                names = [e.key for e in entries[1:]]
                if len(set(names)) != len(names) or "" in names:
                    raise r.error("dictionary keys are empty or repeated", ptr)
                keys[table] = names
                self.dictionaries[dkey] = tuple(names)
        total = sum(len(k or ()) for k in keys.values())
        slots = [0] * total
        if p_slots:
            r.check_count(total, 4, "slot array", p_slots)
            self.claim(("slots", *sk), p_slots, 4 * total, "slot array")
            slots = list(r.at(p_slots).unpack(f"{total}i", "slot array"))
        out = ReflectionStage(compute_work_group_size=(wx, wy, wz), has_slot_array=bool(p_slots),
                              has_stage_data2=bool(p_ext) and keys["separate_textures"] is None
                              and keys["separate_samplers"] is None, stage_data2_reserved=data2_reserved)
        pos = 0
        for table in TABLES:
            found = keys[table]
            if found is not None:
                setattr(out, table, list(zip(found, slots[pos : pos + len(found)])))
                pos += len(found)
        if out.offsets()[1 : len(stored_offsets) + 1] != stored_offsets:
            raise r.error(f"slot offsets {stored_offsets} do not follow the table sizes", at + 0x28)
        return out

    def compiler_reflection(self, pk: tuple[int, str], at: int) -> CompilerReflection:
        r = self.r
        self.claim(("compiler", *pk), at, compiler.HEADER_SIZE, "compiler reflection")
        (*counts8, p_cb, p_uab, p_in, p_out, p_smp, p_cbv, p_uabv, wx, wy, wz, reserved2, p_img, n_tex, n_smp,
         p_tex, p_smp2, reserved) = compiler.HEADER.unpack(self.bytes_at(at, compiler.HEADER_SIZE, "compiler reflection"))
        counts = [*counts8, n_tex, n_smp]
        pointers = [p_cb, p_uab, p_in, p_out, p_smp, p_cbv, p_uabv, p_img, p_tex, p_smp2]
        out = CompilerReflection(compute_work_group_size=(wx, wy, wz), reserved2=reserved2, reserved=reserved)
        for (table, cls, size), count, ptr, field_at in zip(COMPILER_TABLES, counts, pointers, compiler.POINTER_AT):
            self.pointer(at + field_at, ptr)
            if not ptr:
                if count:
                    raise r.error(f"{table}: {count} entries behind a null pointer", at + field_at)
                continue
            with r.scope(table):
                r.check_count(count, size, table, ptr)
                self.claim(("compiler", *pk, table), ptr, count * size, f"compiler reflection {table}")
                entries: list[CompilerEntry] = []
                entry_struct = compiler.ENTRY_STRUCTS[cls]
                for index in range(count):
                    entry_at = ptr + size * index
                    length, name_reserved, p_name, *values = entry_struct.unpack_from(r.data, entry_at)
                    name = None
                    if p_name:
                        self.pointer(entry_at + compiler.NAME_POINTER_AT, p_name)
                        name = self.pool_string(p_name - 2, f"{table}[{index}] name")
                        self.string_refs[entry_at + compiler.NAME_POINTER_AT] = (name, p_name)
                    if length != (len(name.encode("utf-8")) if name is not None else 0):
                        raise r.error(f"{table}[{index}]: name length {length} does not match its string", entry_at)
                    entries.append(compiler.entry_from_values(cls, name, name_reserved, tuple(values)))
                setattr(out, table, entries)
        return out

    def memory_pool(self, at: int) -> tuple[MemoryPool, tuple[int, int]]:
        r = self.r
        with r.scope("memory_pool"):
            self.claim(("pool",), at, 0x50, "memory pool")
            r.seek(at)
            prop, size, p_memory, res0, p_pool_obj, res1, current, res2 = r.unpack("IIQ16sQQQ24s", "memory pool")
            self.pointer(at + 8, p_memory)
            self.pointer(at + 0x20, p_pool_obj)
            if p_memory and p_memory + size > len(r.data):
                raise r.error(f"memory pool data at {p_memory:#x} (+{size:#x}) lies outside the file", at + 8)
            pool_object_size = 0
            if p_pool_obj:
                pool_object_size = 0x140
                self.claim(("poolobj",), p_pool_obj, pool_object_size, "memory pool object")
            return MemoryPool(prop, res0, res1, current, res2, pool_object_size), (p_memory, size)


def parse(data: bytes) -> Parsed:
    """Read a BNSH file; ShaderFormatError with offset and context on bad input."""
    return _Parser(data).parse()

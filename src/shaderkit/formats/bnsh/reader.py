"""Parsing a BNSH file into the model, recording where every structure lay."""

from __future__ import annotations

from dataclasses import dataclass, field

from shaderkit.formats.bnsh.model import (
    STAGES,
    TABLES,
    MemoryPool,
    NvnShaderCode,
    ReflectionStage,
    ShaderProgram,
    ShaderReflection,
    ShaderVariation,
    SourceArrayCode,
    SourceCode,
    StageCode,
)
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.binary import BinaryFileHeader, read_chain
from shaderkit.formats.nn.rlt import RelocationTable
from shaderkit.formats.nn.strpool import StringPool, read_string
from shaderkit.io.reader import Reader

SIGNATURE = b"BNSH\0\0\0\0"
Key = tuple[object, ...]


@dataclass
class Parsed:
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
    #: key -> (offset, size) of every structure read
    layout: dict[Key, tuple[int, int]] = field(default_factory=dict)


class _Parser:
    def __init__(self, data: bytes) -> None:
        self.r = Reader(data, context="BNSH")
        self.layout: dict[Key, tuple[int, int]] = {}
        self.claimed: set[int] = set()
        self.claimed_bytes = 0
        self.pool_strings: dict[int, str] = {}

    def claim(self, key: Key, offset: int, size: int, what: str, unique: bool = True) -> None:
        """Record a structure; a pointer reaching the same structure twice is refused."""
        if offset <= 0 or offset + size > len(self.r.data):
            raise self.r.error(f"{what} at {offset:#x} (+{size:#x}) lies outside the file", offset)
        if unique and size and offset in self.claimed:
            raise self.r.error(f"{what} at {offset:#x} is referenced twice (cyclic or shared pointer)", offset)
        if unique and size:
            self.claimed.add(offset)
            self.account(size, offset)
        self.layout[key] = (offset, size)

    def account(self, size: int, offset: int) -> None:
        """Structures never overlap, so together they cannot outgrow the file; this bounds the
        work (and memory) a crafted file with overlapping structures could demand."""
        self.claimed_bytes += size
        if self.claimed_bytes > len(self.r.data):
            raise self.r.error("structures overlap: together they are larger than the file", offset)

    def bytes_at(self, offset: int, size: int, what: str) -> bytes:
        return self.r.sub(offset, size, what).read(size, what)

    def key_string(self, ptr: int) -> str:
        """A dictionary key: it must be one of the pool's strings (which keeps look-ups O(1))."""
        text = self.pool_strings.get(ptr)
        if text is None:
            read_string(self.r, ptr, "dictionary key")  # a precise error when it is not even a string
            raise self.r.error(f"dictionary key at {ptr:#x} is not a string of the _STR pool", ptr)
        return text

    # -- structures -------------------------------------------------------------------------
    def parse(self) -> Parsed:
        r = self.r
        header = BinaryFileHeader.read(r, SIGNATURE)
        self.layout[("header",)] = (0, 0x60)
        header_reserved = r.sub(0x20, 0x40, "header").read(0x40)
        blocks = {block.signature: (offset, block) for offset, block in read_chain(r, header.first_block_offset)}
        if b"grsc" not in blocks or b"_STR" not in blocks:
            raise r.error(f"blocks {sorted(blocks)} lack grsc or _STR", header.first_block_offset)
        grsc_at, block = blocks[b"grsc"]
        str_at, str_block = blocks[b"_STR"]
        with r.scope("grsc"):
            self.claim(("grsc",), grsc_at, 0x60, "grsc")
            r.seek(grsc_at + 0x10)
            fields = r.unpack("HHB3sIIQQQ40s", "grsc")
            api_type, api_version, code_type, res3, compiler, count, p_vars, p_pool, llc, res40 = fields
        strings = StringPool.read(r, str_at)
        self.pool_strings = strings.by_offset
        self.layout[("str",)] = (str_at, str_block.block_size)
        name = ""
        if header.name_offset:
            if header.name_offset < 2:
                raise r.error("file name offset points before the file", 0x10)
            name = read_string(r, header.name_offset - 2, "file name")
        variations: list[ShaderVariation] = []
        if count:
            r.check_count(count, 0x40, "variations", p_vars)
            self.claim(("variations",), p_vars, 0x40 * count, "variation array")
            for v in range(count):
                with r.scope(f"variation[{v}]"):
                    variations.append(self.variation(v, p_vars + 0x40 * v))
        pool = self.memory_pool(p_pool) if p_pool else None
        rlt = RelocationTable.read(r, header.relocation_table_offset)
        self.layout[("rlt",)] = (header.relocation_table_offset, rlt.size())
        grsc = (api_type, api_version, code_type, res3, compiler, llc, res40)
        return Parsed(header, header_reserved, grsc, block.reserved, variations, pool, name, strings, rlt,
                      self.layout)

    def variation(self, v: int, at: int) -> ShaderVariation:
        r = self.r
        r.seek(at)
        p_src, p_il, p_bin, _parent, reserved = r.unpack("QQQQ32s", "variation")
        progs: list[ShaderProgram | None] = []
        for kind, ptr in (("source", p_src), ("intermediate_language", p_il), ("binary", p_bin)):
            with r.scope(kind):
                progs.append(self.program((v, kind), ptr) if ptr else None)
        return ShaderVariation(progs[0], progs[1], progs[2], reserved)

    def program(self, pk: tuple[int, str], at: int) -> ShaderProgram:
        r = self.r
        self.claim(("program", *pk), at, 0xA0, "program")
        r.seek(at)
        flags, code_type, src_fmt, res_info, bin_fmt = r.unpack("BBBBI", "shader info")
        stage_ptrs = r.unpack("6Q", "stage code pointers")
        res0, obj_size, res1, p_obj, _parent, p_refl, p_comp, res2 = r.unpack("40sIIQQQQ24s", "program")
        if p_comp:
            raise r.error("compiler reflection (pShaderCompilerReflection) is not supported", at + 0x80)
        if obj_size > len(r.data):
            raise r.error(f"object size {obj_size:#x} is larger than the file", at + 0x60)
        if p_obj:
            self.claim(("obj", *pk), p_obj, obj_size, "program object memory")
        stages: list[StageCode | None] = []
        for index, ptr in enumerate(stage_ptrs):
            with r.scope(STAGES[index]):
                stages.append(self.stage_code(code_type, (*pk, index), ptr) if ptr else None)
        reflection = None
        if p_refl:
            with r.scope("reflection"):
                reflection = self.reflection(pk, p_refl)
        return ShaderProgram(flags, code_type, src_fmt, bin_fmt, stages, obj_size, reflection, res_info,
                             res0, res1, res2)

    def stage_code(self, code_type: int, sk: tuple[object, ...], at: int) -> StageCode:
        r = self.r
        if code_type == 0:
            self.claim(("code", *sk), at, 0x40, "NvnShaderCode")
            r.seek(at)
            address, p_control, p_data, data_size, control_size, p_decomposed, rec, warp, res = r.unpack(
                "QQQIIQII16s", "NvnShaderCode")
            if p_decomposed:
                raise r.error("decomposed control sections are not supported", at + 0x28)
            self.claim(("control", *sk), p_control, control_size, "control section")
            self.claim(("data", *sk), p_data, data_size, "shader data")
            control = self.bytes_at(p_control, control_size, "control section")
            data = self.bytes_at(p_data, data_size, "shader data")
            return NvnShaderCode(control, data, address, rec, warp, res)
        if code_type == 2:
            self.claim(("code", *sk), at, 0x20, "ShaderCode")
            r.seek(at)
            size, decompressed, p_code, res = r.unpack("IIQ16s", "ShaderCode")
            self.claim(("source", *sk), p_code, size, "source code")
            return SourceCode(self.bytes_at(p_code, size, "source code"), decompressed, res)
        if code_type == 3:
            self.claim(("code", *sk), at, 0x20, "SourceArrayCode")
            r.seek(at)
            count, res0, p_sizes, p_ptrs, res1 = r.unpack("H6sQQ8s", "SourceArrayCode")
            r.check_count(count, 4, "source sizes", p_sizes)
            r.check_count(count, 8, "source pointers", p_ptrs)
            self.claim(("sizes", *sk), p_sizes, 4 * count, "source size array")
            self.claim(("ptrs", *sk), p_ptrs, 8 * count, "source pointer array")
            sizes = r.at(p_sizes).unpack(f"{count}I", "source sizes")
            ptrs = r.at(p_ptrs).unpack(f"{count}Q", "source pointers")
            codes = []
            for i, (size, ptr) in enumerate(zip(sizes, ptrs)):
                self.claim(("source", *sk, i), ptr, size, "source code")
                codes.append(self.bytes_at(ptr, size, "source code"))
            return SourceArrayCode(codes, res0, res1)
        raise r.error(f"code type {code_type} is not supported (0 binary, 2 source, 3 source array)", at)

    def reflection(self, pk: tuple[int, str], at: int) -> ShaderReflection:
        r = self.r
        self.claim(("reflection", *pk), at, 0x40, "reflection")
        r.seek(at)
        *ptrs, reserved = r.unpack("6Q16s", "reflection")
        stages: list[ReflectionStage | None] = []
        for index, ptr in enumerate(ptrs):
            with r.scope(STAGES[index]):
                stages.append(self.reflection_stage((*pk, index), ptr) if ptr else None)
        return ShaderReflection(stages, reserved)

    def reflection_stage(self, sk: tuple[object, ...], at: int) -> ReflectionStage:
        r = self.r
        self.claim(("rstage", *sk), at, 0x60, "reflection stage")
        r.seek(at)
        p_in, p_out, p_smp, p_cb, p_uab, o_out, o_smp, o_cb, o_uab, p_slots, wx, wy, wz, o_img, p_img, p_ext = r.unpack(
            "5QiiiiQIIIiQQ", "reflection stage")
        if p_ext:
            raise r.error("reflection stage data 2 (separate textures/samplers) is not supported", at + 0x58)
        keys: dict[str, list[str] | None] = {}
        for table, ptr in zip(TABLES, (p_in, p_out, p_smp, p_cb, p_uab, p_img)):
            if not ptr:
                keys[table] = None
                continue
            with r.scope(table):
                dkey = ("dic", *sk, table)
                self.claim(dkey, ptr, 8, "dictionary")
                entries = dic.read(r, ptr, self.key_string)
                self.layout[dkey] = (ptr, dic.size(len(entries) - 1))
                self.account(dic.size(len(entries) - 1) - 8, ptr)
                names = [e.key for e in entries[1:]]
                if len(set(names)) != len(names) or "" in names:
                    raise r.error("dictionary keys are empty or repeated", ptr)
                keys[table] = names
        total = sum(len(k or ()) for k in keys.values())
        slots = [0] * total
        if p_slots:
            r.check_count(total, 4, "slot array", p_slots)
            self.claim(("slots", *sk), p_slots, 4 * total, "slot array")
            slots = list(r.at(p_slots).unpack(f"{total}i", "slot array"))
        out = ReflectionStage(compute_work_group_size=(wx, wy, wz), has_slot_array=bool(p_slots))
        pos = 0
        for table in TABLES:
            found = keys[table]
            if found is not None:
                setattr(out, table, list(zip(found, slots[pos : pos + len(found)])))
                pos += len(found)
        if out.offsets()[1:] != [o_out, o_smp, o_cb, o_uab, o_img]:
            raise r.error(f"slot offsets {[o_out, o_smp, o_cb, o_uab, o_img]} do not follow the table sizes", at + 0x28)
        return out

    def memory_pool(self, at: int) -> MemoryPool:
        r = self.r
        with r.scope("memory_pool"):
            self.claim(("pool",), at, 0x50, "memory pool")
            r.seek(at)
            prop, size, p_memory, res0, p_pool_obj, res1, current, res2 = r.unpack("IIQ16sQQQ24s", "memory pool")
            if p_memory:
                self.claim(("pooldata",), p_memory, size, "memory pool data", unique=False)
            pool_object_size = 0
            if p_pool_obj:
                pool_object_size = 0x140
                self.claim(("poolobj",), p_pool_obj, pool_object_size, "memory pool object")
            return MemoryPool(prop, res0, res1, current, res2, pool_object_size)


def parse(data: bytes) -> Parsed:
    return _Parser(data).parse()

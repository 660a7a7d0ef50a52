"""Latte microcode -> text, as decaf-emu's disassembler (and AMD's ShaderAnalyzer) prints it.

Generic code over the table: each instruction's words are unpacked into :class:`Fields`; the
printer reads the fields it shows, and every other field whose value differs from the
assembler's default is appended as a ``; shaderkit: NAME=value`` note (other tools read it as a
comment). Bytes no instruction covers and an unusual program size become program-level notes.
So the text with notes assembles back to the identical program, and the text without notes is
decaf's listing.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.latte import table as T
from shaderkit.isa.latte.words import Fields, format_f32_bits, format_float, unpacker

NOTE = "; shaderkit:"

# -- decoders (closures built once from the table) ----------------------------------------------
unpack_cf = unpacker((T.CF_WORD0, T.CF_WORD1))
unpack_cf_alu = unpacker((T.CF_ALU_WORD0, T.CF_ALU_WORD1))
unpack_exp_swiz = unpacker((T.CF_EXP_WORD0, T.CF_EXP_WORD1_SWIZ))
unpack_exp_buf = unpacker((T.CF_EXP_WORD0, T.CF_EXP_WORD1_BUF))
unpack_alu_op2 = unpacker((T.ALU_WORD0, T.ALU_WORD1_OP2))
unpack_alu_op3 = unpacker((T.ALU_WORD0, T.ALU_WORD1_OP3))
unpack_tex = unpacker((T.TEX_WORD0, T.TEX_WORD1, T.TEX_WORD2, T.FETCH_WORD3))
unpack_vtx = unpacker((T.VTX_WORD0, T.VTX_WORD1_GPR, T.VTX_WORD2, T.FETCH_WORD3))
unpack_vtx_sem = unpacker((T.VTX_WORD0, T.VTX_WORD1_SEM, T.VTX_WORD2, T.FETCH_WORD3))

CF_NAMES = {value: name for name, value in T.CF_INST}
EXP_NAMES = {value: name for name, value in T.EXP_INST}
CF_ALU_NAMES = {value: name for name, value in T.CF_ALU_INST}
OP2_BY_VALUE = {op.value: op for op in T.OP2}
OP3_BY_VALUE = {op.value: op for op in T.OP3}
TEX_NAMES = {value: name for name, value in T.TEX_INST}
VTX_NAMES = {value: name for name, value in T.VTX_INST}
_UNKNOWN_OP = T.AluOp("UNKNOWN", -1, 0, "")

#: hidden-field values the assembler writes when the text says nothing (all others are 0)
#: (one-source ALU instructions: compilers set SRC1 to the inline 0.0f; Nintendo's shader compiler
#: fills the fourth word of every fetch instruction with 0x0DEADFEC)
HIDDEN_DEFAULTS: dict[str, int] = {"SRC1_SEL": 248, "PADDING": 0x0DEADFEC}


def _note(fields: Fields, extra: Sequence[str] = ()) -> str:
    items = [f"{name}={value:#010x}" if value > 0xFFFF else f"{name}={value}"
             for name, value in fields.hidden(HIDDEN_DEFAULTS)]
    items.extend(extra)
    return f"  {NOTE} {' '.join(items)}" if items else ""


@dataclass
class _State:
    data: bytes
    words: tuple[int, ...]
    notes: bool
    out: list[str] = field(default_factory=list)
    indent: str = ""
    cf_pc: int = 0
    group_pc: int = 0
    covered: bytearray = field(default_factory=bytearray)  # per 8-byte slot
    #: called with (byte offset, words) of each instruction; its text ends the instruction's line
    marker: Callable[[int, Sequence[int]], str] | None = None

    def slot(self, index: int, what: str) -> tuple[int, int]:
        if not 0 <= index < len(self.words) // 2:
            raise ShaderFormatError(f"{what} slot {index} is outside the {len(self.data)}-byte program",
                                    index * 8, "latte")
        self.covered[index] = 1
        return self.words[2 * index], self.words[2 * index + 1]

    def note(self, fields: Fields, extra: Sequence[str] = ()) -> str:
        return _note(fields, extra) if self.notes else ""

    def mark(self, slot: int, words: Sequence[int]) -> str:
        """The marker text for the instruction at 8-byte ``slot`` made of ``words`` ("" without a marker)."""
        return self.marker(slot * 8, words) if self.marker is not None else ""


# -- control flow -------------------------------------------------------------------------------
def _condition(f: Fields) -> str:
    cond = f["COND"]
    if not cond:
        return ""
    return f" CND({T.CF_COND[cond]}) CF_CONST({f['CF_CONST']})"


def cf_count(f: Fields | Mapping[str, int]) -> int:
    """The instruction count of a TEX/VTX clause CF instruction (COUNT plus COUNT_3 as bit 3, + 1)."""
    return (f["COUNT"] | f["COUNT_3"] << 3) + 1


def cf_text(f: Fields) -> str:
    """The text of one normal CF instruction (after the CF index)."""
    value = f.peek("CF_INST")
    name = CF_NAMES.get(value, "UNKNOWN")
    if name != "UNKNOWN":
        f.mark("CF_INST")
    kind = T.CF_TEXT_KIND.get(name, "unknown")
    s = name
    if kind in ("tex", "vtx"):
        s += f": ADDR({f['ADDR']}) CNT({cf_count(f)})"
        if not f["BARRIER"]:
            s += " NO_BARRIER"
        s += _condition(f)
        if kind == "tex":
            if f["WHOLE_QUAD_MODE"]:
                s += " WHOLE_QUAD"
            if f["VALID_PIXEL_MODE"]:
                s += " VALID_PIX"
    elif kind == "loop":
        s += _condition(f)
        if name in T.LOOP_CONST_ALWAYS and not f["COND"]:
            s += f" CF_CONST({f['CF_CONST']})"
        s += f" {T.LOOP_ADDR_NAME[name]}({f['ADDR']})"
        s += _common_tail(f)
    elif kind == "jump":
        if name == "CALL" and f["CALL_COUNT"]:
            s += f" CALL_COUNT({f['CALL_COUNT']})"
        s += _condition(f)
        if f["POP_COUNT"]:
            s += f" POP_CNT({f['POP_COUNT']})"
        if name in T.JUMP_WITH_ADDR:
            s += f" ADDR({f['ADDR']})"
        if f["VALID_PIXEL_MODE"]:
            s += " VALID_PIX"
        if not f["BARRIER"]:
            s += " NO_BARRIER"
    elif kind == "emit":
        if not f["BARRIER"]:
            s += " NO_BARRIER"
    elif kind in ("push", "pop"):
        if kind == "push":
            s += _condition(f)
        if f["POP_COUNT"]:
            s += f" POP_CNT({f['POP_COUNT']})"
        if f["VALID_PIXEL_MODE"]:
            s += " VALID_PIX"
    elif kind == "unknown":
        s += " UNK_FORMAT"
    return s


def _common_tail(f: Fields) -> str:
    s = ""
    if f["POP_COUNT"]:
        s += f" POP_CNT({f['POP_COUNT']})"
    if f["VALID_PIXEL_MODE"]:
        s += " VALID_PIX"
    if not f["BARRIER"]:
        s += " NO_BARRIER"
    return s


def cf_alu_text(f: Fields) -> str:
    """decaf text of a CF ALU clause word pair (``ALU: ADDR(n) CNT(n)`` and its flags)."""
    name = CF_ALU_NAMES[f["CF_INST"]]
    s = f"{name}: ADDR({f['ADDR']}) CNT({f['COUNT'] + 1})"
    if not f["BARRIER"]:
        s += " NO_BARRIER"
    if f["WHOLE_QUAD_MODE"]:
        s += " WHOLE_QUAD"
    for bank in (0, 1):
        mode = f[f"KCACHE_MODE{bank}"]
        if not mode:
            continue
        cb, start = f[f"KCACHE_BANK{bank}"], 16 * f[f"KCACHE_ADDR{bank}"]
        end = start + T.KCACHE_SPAN[mode] - 1
        if mode == T.KCACHE_LOCK_LOOP_INDEX:
            s += f" KCACHE{bank}(CB{cb}:AL+{start}-AL+{end})"
        else:
            s += f" KCACHE{bank}(CB{cb}:{start}-{end})"
    return s


def exp_fields(word0: int, word1: int) -> Fields:
    """The fields of an export word pair (swizzle or buffer form, by its CF_INST)."""
    name = EXP_NAMES.get(word1 >> 23 & 0x7F, "UNKNOWN")
    unpack = unpack_exp_swiz if name in ("EXP", "EXP_DONE") else unpack_exp_buf
    return Fields(unpack((word0, word1)))


def exp_text(f: Fields) -> str:
    """decaf text of an export (EXP/EXP_DONE/MEM_*) word pair."""
    value = f.peek("CF_INST")
    name = EXP_NAMES.get(value, "UNKNOWN")
    if name != "UNKNOWN":
        f.mark("CF_INST")
    s = f"{name}:"
    mem_type = f.peek("TYPE")
    if name in ("EXP", "EXP_DONE"):
        kind, base = f["TYPE"], f["ARRAY_BASE"]
        if kind == 1:
            s += f" POS{base - T.POS_BASE}"
        else:
            s += f" {T.EXPORT_TYPES.get(kind, 'INVALID')}{base}"
    elif name in T.MEM_STREAMS and mem_type in (T.MEM_EXPORT_READ, T.MEM_EXPORT_READ_IND):
        if mem_type == T.MEM_EXPORT_READ:  # the assembler's choice for INVALID_READ
            f.mark("TYPE")
        s += " INVALID_READ"
    else:
        kind = f["TYPE"]
        s += " WRITE(" if kind in (T.MEM_EXPORT_WRITE, T.MEM_EXPORT_WRITE_IND) else " READ("
        s += str(f["ARRAY_BASE"] * (16 if name in T.MEM_BASE_16 else 4))
        if kind in (T.MEM_EXPORT_WRITE_IND, T.MEM_EXPORT_READ_IND):
            s += f" + R{f['INDEX_GPR']}"
        s += ")"
    s += ", "
    s += f"R[AL + {f['RW_GPR']}]" if f["RW_REL"] else f"R{f['RW_GPR']}"
    if name in ("EXP", "EXP_DONE"):
        s += "." + "".join(T.SEL_CHARS[f[f"SEL_{c}"]] for c in "XYZW")
    else:
        mask = f["COMP_MASK"]
        s += "." + "".join(c if mask >> i & 1 else "_" for i, c in enumerate("xyzw"))
        s += f" ARRAY_SIZE({f['ARRAY_SIZE']})"
    if f["ELEM_SIZE"]:
        s += f" ELEM_SIZE({f['ELEM_SIZE']})"
    if f["BURST_COUNT"]:
        s += f" BURSTCNT({f['BURST_COUNT']})"
    if not f["BARRIER"]:
        s += " NO_BARRIER"
    if f["WHOLE_QUAD_MODE"]:
        s += " WHOLE_QUAD"
    if f["VALID_PIXEL_MODE"]:
        s += " VALID_PIX"
    return s


# -- fetch clauses ------------------------------------------------------------------------------
def _dst_sels(f: Fields) -> tuple[int, int, int, int]:
    return (f["DST_SEL_X"], f["DST_SEL_Y"], f["DST_SEL_Z"], f["DST_SEL_W"])


def fetch_fields(words: Sequence[int], vertex: bool) -> Fields:
    """Fields of a 16-byte fetch instruction (TEX_INST 0/1 in a TEX clause use the vertex format)."""
    opcode = words[0] & 0x1F
    if vertex or opcode in (0, 1):
        return Fields((unpack_vtx_sem if opcode == 1 else unpack_vtx)(words))
    return Fields(unpack_tex(words))


def tex_text(f: Fields, pad: int = 15) -> str:
    """decaf text of a texture-fetch instruction (vertex fetches go to :func:`vtx_text`); ``pad`` aligns operands."""
    if "VTX_INST" in f.values:
        return vtx_text(f, pad)
    value = f.peek("TEX_INST")
    name = TEX_NAMES.get(value, "UNKNOWN")
    if name != "UNKNOWN":
        f.mark("TEX_INST")
    s = f"{name:<{pad}} "
    sels = _dst_sels(f)
    if any(sel != T.SEL_MASK for sel in sels):
        s += f"R{f['DST_GPR']}" + ("[AL]" if f["DST_REL"] else "")
        s += "." + "".join(T.SEL_CHARS[sel] for sel in sels)
    else:
        s += "____"
    s += f", R{f['SRC_GPR']}" + ("[AL]" if f["SRC_REL"] else "")
    s += "." + "".join(T.SEL_CHARS[f[f"SRC_SEL_{c}"]] for c in "XYZW")
    s += f", t{f['RESOURCE_ID']}, s{f['SAMPLER_ID']}"
    if f["LOD_BIAS"]:
        s += f" LOD({format_float(T.tex_fixed('LOD_BIAS', f['LOD_BIAS']))})"
    if f["FETCH_WHOLE_QUAD"]:
        s += " WHOLE_QUAD"
    if f["BC_FRAC_MODE"]:
        s += " BC_FRAC_MODE"
    if f["ALT_CONST"]:
        s += " ALT_CONST"
    denorm = "".join(c for c in "XYZW" if not f[f"COORD_TYPE_{c}"])
    if denorm:
        s += f" DENORM({denorm})"
    for c in "XYZ":
        offset = f[f"OFFSET_{c}"]
        if offset:
            s += f" {c}OFFSET({format_float(T.tex_fixed(f'OFFSET_{c}', offset))})"
    return s


def vtx_text(f: Fields, pad: int = 15) -> str:
    """decaf text of a vertex-fetch instruction; ``pad`` is the mnemonic column width."""
    value = f.peek("VTX_INST")
    name = VTX_NAMES.get(value, "UNKNOWN")
    if name != "UNKNOWN":
        f.mark("VTX_INST")
    s = f"{name:<{pad}} "
    sels = _dst_sels(f)
    if any(sel != T.SEL_MASK for sel in sels):
        if value == 1:
            s += f"SEM[{f['SEMANTIC_ID']}]"
        else:
            s += f"R{f['DST_GPR']}" + ("[AL]" if f["DST_REL"] else "")
        s += "." + "".join(T.SEL_CHARS[sel] for sel in sels)
    else:
        s += "____"
    s += f", R{f['SRC_GPR']}" + ("[AL]" if f["SRC_REL"] else "")
    s += f".{T.SEL_CHARS[f['SRC_SEL_X']]}, b{f['BUFFER_ID']}"
    fetch_type = f["FETCH_TYPE"]
    s += f" FETCH_TYPE({T.FETCH_TYPES.get(fetch_type, str(fetch_type))})"
    if not f["USE_CONST_FIELDS"]:
        num = f.peek("NUM_FORMAT_ALL")
        if num in T.NUM_FORMATS:
            s += f" FORMAT( {f['DATA_FORMAT']} {T.NUM_FORMATS[f['NUM_FORMAT_ALL']]}"
        else:  # decaf prints the number with no space: DATA_FORMAT and it cannot be told apart
            s += f" FORMAT( {f.peek('DATA_FORMAT')}{num}"
        s += " SIGNED" if f["FORMAT_COMP_ALL"] else " UNSIGNED"
        s += f" {f['SRF_MODE_ALL']})"
    s += f" {'MEGA' if f['MEGA_FETCH'] else 'MINI'}({f['MEGA_FETCH_COUNT'] + 1})"
    s += f" OFFSET({f['OFFSET']})"
    if f["FETCH_WHOLE_QUAD"]:
        s += " WHOLE_QUAD"
    endian = f["ENDIAN_SWAP"]
    if endian:
        s += f" ENDIAN_SWAP({T.ENDIAN_SWAPS.get(endian, str(endian))})"
    if f["CONST_BUF_NO_STRIDE"]:
        s += " CONST_BUF_NO_STRIDE"
    if f["ALT_CONST"]:
        s += " ALT_CONST"
    return s


def _fetch_clause(st: _State, cf: Fields, vertex: bool) -> None:
    addr, count = cf.peek("ADDR"), cf_count(cf.values)
    indent = st.indent + "  "
    for i in range(count):
        slot = addr + 2 * i
        w0, w1 = st.slot(slot, "fetch instruction")
        w2, w3 = st.slot(slot + 1, "fetch instruction")
        f = fetch_fields((w0, w1, w2, w3), vertex)
        text = vtx_text(f) if vertex else tex_text(f)
        st.out.append(f"\n{indent}{st.group_pc:<3}    {text}{st.note(f)}{st.mark(slot, (w0, w1, w2, w3))}\n")
        st.group_pc += 1


# -- ALU clauses --------------------------------------------------------------------------------
def alu_fields(word0: int, word1: int) -> tuple[Fields, T.AluOp]:
    """The fields of an ALU word pair and its opcode (OP2 or OP3 by the encoding bits)."""
    if word1 >> T.ALU_ENCODING_LSB & 7:
        f = Fields(unpack_alu_op3((word0, word1)))
        return f, OP3_BY_VALUE.get(f.peek("OP3_INST"), _UNKNOWN_OP)
    f = Fields(unpack_alu_op2((word0, word1)))
    return f, OP2_BY_VALUE.get(f.peek("OP2_INST"), _UNKNOWN_OP)


def _operand(f: Fields, prefix: str, group_pc: int, literal: str | None, absolute: bool) -> str:
    """One ALU operand (prefix SRC0/SRC1/SRC2/DST); literal is the '(0x.., f)' text if any."""
    s = ""
    is_dst = prefix == "DST"
    if not is_dst and f[f"{prefix}_NEG"]:
        s += "-"
    if absolute:
        s += "|"
    sel = f.peek(f"{prefix}_GPR" if is_dst else f"{prefix}_SEL")
    f.mark(f"{prefix}_GPR" if is_dst else f"{prefix}_SEL")
    use_channel = True
    if T.ALU_SRC_KCACHE0 <= sel < T.ALU_SRC_KCACHE1:
        s += f"KC0[{sel - T.ALU_SRC_KCACHE0}]"
    elif T.ALU_SRC_KCACHE1 <= sel < T.ALU_SRC_KCACHE1 + 32:
        s += f"KC1[{sel - T.ALU_SRC_KCACHE1}]"
    elif sel <= T.ALU_SRC_GPR_LAST:
        s += f"R{sel}"
    elif sel >= T.ALU_SRC_CFILE:
        s += f"C{sel - T.ALU_SRC_CFILE}"
    else:
        use_channel = False
        if sel == T.ALU_SRC_LITERAL:
            s += literal or ""
        elif sel == T.ALU_SRC_PV:
            s += f"PV{group_pc - 1}"
            use_channel = True
        elif sel == T.ALU_SRC_PS:
            s += f"PS{group_pc - 1}"
        elif sel in T.ALU_SRC_NAMES:
            s += T.ALU_SRC_NAMES[sel]
            if sel == T.ALU_SRC_IMM_1_INT and s.startswith("-"):  # reads back as -1 (IMM_M_1_INT)
                f.used.discard(f"{prefix}_SEL")
                f.used.discard(f"{prefix}_NEG")
        else:
            s += "UNKNOWN"
            f.used.discard(f"{prefix}_SEL")
    if f[f"{prefix}_REL"]:
        mode = f.peek("INDEX_MODE")
        if mode in T.INDEX_MODE_NAMES:
            f.mark("INDEX_MODE")
        s += T.INDEX_MODE_NAMES.get(mode, "[UNKNOWN]")
    if use_channel:
        s += "." + T.CHANNELS[f[f"{prefix}_CHAN"]]
    if absolute:
        s += "|"
    return s


def alu_text(f: Fields, op: T.AluOp, group_pc: int, literals: dict[str, str]) -> str:
    """One ALU instruction after its unit letter; literals maps SRCn to its literal text."""
    op2 = "OP2_INST" in f.values
    if op.name != "UNKNOWN":
        f.mark("OP2_INST" if op2 else "OP3_INST")
    name = op.name
    if op2 and not f["UPDATE_EXECUTE_MASK"]:
        omod = f["OMOD"]
        name += T.OMOD_SUFFIX.get(omod, "")
    s = f"{name:<15} "
    if op2 and not f["WRITE_MASK"]:
        s += "____"
    else:
        s += _operand(f, "DST", group_pc, None, False)
    for i in range(op.srcs):
        prefix = f"SRC{i}"
        absolute = bool(op2 and i < 2 and f[f"SRC{i}_ABS"])
        s += ", " + _operand(f, prefix, group_pc, literals.get(prefix), absolute)
    if f["CLAMP"]:
        s += " CLAMP"
    swizzle = f.peek("BANK_SWIZZLE")
    names = T.SCL_BANK_SWIZZLE if op.trans_only else T.VEC_BANK_SWIZZLE
    if swizzle in names:
        f.mark("BANK_SWIZZLE")
        if names[swizzle]:
            s += " " + names[swizzle]
    pred = f.peek("PRED_SEL")
    if pred in T.PRED_SEL_NAMES:
        f.mark("PRED_SEL")
        if T.PRED_SEL_NAMES[pred]:
            s += " " + T.PRED_SEL_NAMES[pred]
    if op2:
        if f["UPDATE_EXECUTE_MASK"]:
            s += " UPDATE_EXEC_MASK"
        if f["UPDATE_PRED"]:
            s += " UPDATE_PRED"
    return s


def literal_sources(f: Fields, op: T.AluOp) -> list[str]:
    """The source prefixes of an instruction that read a literal (decaf counts these only)."""
    return [f"SRC{i}" for i in range(op.srcs) if f.peek(f"SRC{i}_SEL") == T.ALU_SRC_LITERAL]


def default_literals(values: Sequence[int]) -> tuple[list[int], list[int]]:
    """The assembler's rule (the compilers' too): one literal word per use, in order, padded
    to an even count; use i reads channel i."""
    words = list(values)
    chans = list(range(len(words)))
    if len(words) % 2:
        words.append(0)
    return words, chans


def _alu_clause(st: _State, cf: Fields) -> None:
    addr, slots = cf.peek("ADDR"), cf.peek("COUNT") + 1
    indent = st.indent + "  "
    slot = 0
    while slot < slots:
        group: list[tuple[Fields, T.AluOp]] = []
        literal_count = 0
        while True:
            if len(group) == 5:
                raise ShaderFormatError("ALU group of more than 5 instructions (no LAST bit)",
                                        (addr + slot) * 8, "latte")
            w0, w1 = st.slot(addr + slot + len(group), "ALU instruction")
            f, op = alu_fields(w0, w1)
            group.append((f, op))
            for prefix in literal_sources(f, op):
                literal_count = max(literal_count, f.peek(f"{prefix}_CHAN") + 1)
            f.mark("LAST")
            if f.peek("LAST"):
                break
        literal_slots = (literal_count + 1) // 2
        literal_words: list[int] = []
        for i in range(literal_slots):
            literal_words.extend(st.slot(addr + slot + len(group) + i, "ALU literal"))
        # unit assignment as decaf does it (and the hardware rules)
        units: list[int] = []
        taken = [False] * 5
        for f, op in group:
            unit = f.peek("DST_CHAN")
            if op.trans_only:
                unit = 4
            elif not op.vector_only and taken[unit]:
                unit = 4
            if taken[unit]:
                raise ShaderFormatError(f"two ALU instructions in unit {T.UNITS[unit]}",
                                        (addr + slot) * 8, "latte")
            taken[unit] = True
            units.append(unit)
        # literal channels the assembler would pick, and the note when the words differ
        uses = [(f, prefix) for f, op in group for prefix in literal_sources(f, op)]
        values = [literal_words[f.peek(f"{p}_CHAN")] for f, p in uses]
        default_words, default_chans = default_literals(values)
        group_extra: list[str] = []
        if default_words == literal_words:
            expected = default_chans
        else:
            group_extra.append("LITERALS=" + ",".join(f"0x{w:08X}" for w in literal_words))
            expected = [literal_words.index(v) for v in values]
        chan_notes: dict[int, list[str]] = {}
        for (f, prefix), chan in zip(uses, expected):
            actual = f.peek(f"{prefix}_CHAN")
            f.mark(f"{prefix}_CHAN")
            if actual != chan:  # the assembler's default here is the rule's channel, not 0
                chan_notes.setdefault(id(f), []).append(f"{prefix}_CHAN={actual}")
        st.out.append(f"\n{indent}{st.group_pc:<3}")
        for j, ((f, op), unit) in enumerate(zip(group, units)):
            if unit < 4:
                f.mark("DST_CHAN")
            literals = {p: f"(0x{literal_words[f.peek(p + '_CHAN')]:08X}, "
                           f"{format_f32_bits(literal_words[f.peek(p + '_CHAN')])})"
                        for p in literal_sources(f, op)}
            text = alu_text(f, op, st.group_pc, literals)
            lead = f"{indent}   " if j else ""
            extra = [*(group_extra if j == 0 else ()), *chan_notes.get(id(f), ())]
            words = st.words[2 * (addr + slot + j) : 2 * (addr + slot + j) + 2]
            if j == len(group) - 1:  # the group's literal slots go with its last instruction
                words += tuple(literal_words)
            st.out.append(f"{lead} {T.UNITS[unit]}: {text}{st.note(f, extra)}{st.mark(addr + slot + j, words)}\n")
        slot += len(group) + literal_slots
        st.group_pc += 1


# -- program ------------------------------------------------------------------------------------
def disassemble(program: bytes, notes: bool = True,
                marker: Callable[[int, Sequence[int]], str] | None = None) -> str:
    """The text of a whole program; with ``notes`` it assembles back to the same bytes.

    ``marker(offset, words)`` (for ``disasm --offsets --raw``): its text is put at the end of each
    instruction's line: CF instructions, ALU instructions (the group's literals with its last one)
    and fetch instructions; ``offset`` counts bytes from the program start.
    """
    if len(program) % 8:
        raise ShaderFormatError(f"program size {len(program)} is not a multiple of 8", len(program),
                                "latte")
    words = struct.unpack(f"<{len(program) // 4}I", program)
    st = _State(program, words, notes, covered=bytearray(len(program) // 8), marker=marker)
    index = 0
    while index < len(program) // 8:
        w0, w1 = st.slot(index, "CF instruction")
        kind = T.cf_inst_type(w1)
        end = False
        if kind == T.CF_TYPE_NORMAL:
            f = Fields(unpack_cf((w0, w1)))
            text = cf_text(f)
            end = bool(f["END_OF_PROGRAM"])
            name = CF_NAMES.get(f.peek("CF_INST"), "UNKNOWN")
            st.out.append(f"{st.indent}{st.cf_pc:02} {text}{st.note(f)}{st.mark(index, (w0, w1))}\n")
            if name.startswith("LOOP_START"):
                st.indent += "  "
            elif name == "LOOP_END":
                st.indent = st.indent[:-2]
            elif name == "TEX":
                _fetch_clause(st, f, False)
            elif name in ("VTX", "VTX_TC"):
                _fetch_clause(st, f, True)
        elif kind == T.CF_TYPE_EXPORT:
            f = exp_fields(w0, w1)
            text = exp_text(f)
            end = bool(f["END_OF_PROGRAM"])
            st.out.append(f"{st.indent}{st.cf_pc:02} {text}{st.note(f)}{st.mark(index, (w0, w1))}\n")
        else:
            f = Fields(unpack_cf_alu((w0, w1)))
            text = cf_alu_text(f)
            st.out.append(f"{st.indent}{st.cf_pc:02} {text}{st.note(f)}{st.mark(index, (w0, w1))}")
            _alu_clause(st, f)
        if end:
            st.out.append("\nEND_OF_PROGRAM\n")
            break
        st.cf_pc += 1
        index += 1
        st.out.append("\n")
    if notes:
        st.out.extend(_program_notes(st))
    return "".join(st.out)


def default_size(end: int) -> int:
    """The program size the assembler writes for code ending at byte ``end``."""
    return end


def _program_notes(st: _State) -> list[str]:
    """Notes for the words no instruction covers (when not zero) and an unusual size."""
    lines = []
    run: list[int] = []
    start = 0
    for index, covered in enumerate(st.covered):
        pair = st.words[2 * index], st.words[2 * index + 1]
        if not covered and pair != (0, 0):
            if not run:
                start = index
            run.extend(pair)
            continue
        if run:
            lines.append(_data_note(start, run))
            run = []
    if run:
        lines.append(_data_note(start, run))
    used = [i for i, c in enumerate(st.covered) if c or st.words[2 * i] or st.words[2 * i + 1]]
    end = (used[-1] + 1) * 8 if used else 0
    if default_size(end) != len(st.data):
        lines.append(f"{NOTE} size {len(st.data)}\n")
    return lines


def _data_note(slot: int, words: list[int]) -> str:
    return f"{NOTE} data {slot * 8} " + " ".join(f"0x{w:08X}" for w in words) + "\n"

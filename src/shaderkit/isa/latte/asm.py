"""Text -> Latte microcode: reads the disassembler's text (decaf's listing plus ``; shaderkit:``
notes) and writes the program. Generic over the table: each line becomes a field dict that the
table's packers turn into words; notes override fields the text does not show.
"""

from __future__ import annotations

import re
import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import AssemblyError
from shaderkit.io.limits import MAX_TABLE_ENTRIES
from shaderkit.isa.latte import table as T
from shaderkit.isa.latte.disasm import HIDDEN_DEFAULTS, NOTE, default_literals
from shaderkit.isa.latte.words import FieldRangeError, packer

pack_cf = packer((T.CF_WORD0, T.CF_WORD1))
pack_cf_alu = packer((T.CF_ALU_WORD0, T.CF_ALU_WORD1))
pack_exp_swiz = packer((T.CF_EXP_WORD0, T.CF_EXP_WORD1_SWIZ))
pack_exp_buf = packer((T.CF_EXP_WORD0, T.CF_EXP_WORD1_BUF))
pack_alu_op2 = packer((T.ALU_WORD0, T.ALU_WORD1_OP2))
pack_alu_op3 = packer((T.ALU_WORD0, T.ALU_WORD1_OP3))
pack_tex = packer((T.TEX_WORD0, T.TEX_WORD1, T.TEX_WORD2, T.FETCH_WORD3))
pack_vtx = packer((T.VTX_WORD0, T.VTX_WORD1_GPR, T.VTX_WORD2, T.FETCH_WORD3))
pack_vtx_sem = packer((T.VTX_WORD0, T.VTX_WORD1_SEM, T.VTX_WORD2, T.FETCH_WORD3))

CF_VALUES = dict(T.CF_INST)
EXP_VALUES = dict(T.EXP_INST)
CF_ALU_VALUES = dict(T.CF_ALU_INST)
OP2_BY_NAME = {op.name: op for op in T.OP2}
OP3_BY_NAME = {op.name: op for op in T.OP3}
TEX_VALUES = dict(T.TEX_INST)
VTX_VALUES = dict(T.VTX_INST)
SRC_BY_NAME = {name: sel for sel, name in T.ALU_SRC_NAMES.items()}
SEL_BY_CHAR = {c: v for v, c in T.SEL_CHARS.items()}
INDEX_MODE_BY_NAME = {name: mode for mode, name in T.INDEX_MODE_NAMES.items()}
BANK_SWIZZLES = {name: v for v, name in T.VEC_BANK_SWIZZLE.items() if name}
BANK_SWIZZLES.update({name: v for v, name in T.SCL_BANK_SWIZZLE.items()})
PRED_SELS = {name: v for v, name in T.PRED_SEL_NAMES.items() if name}
COND_BY_NAME = {name: v for v, name in T.CF_COND.items()}
#: CF text kinds that show BARRIER (absent NO_BARRIER means BARRIER=1)
SHOWS_BARRIER = frozenset({"tex", "vtx", "loop", "jump", "emit"})

_TOKEN = re.compile(r"(\w+)(?:\(([^)]*)\))?")
_OPERAND = re.compile(
    r"^(?P<neg>-(?!1(?:$|\[)))?(?P<abs>\|)?(?P<base>KC[01]\[\d+\]|R\d+|C\d+|PV-?\d+|PS-?\d+|\(0x[0-9A-Fa-f]+,[^)]*\)"
    r"|-1|[\w.]+?)(?P<rel>\[(?:AR\.[xyzw]|AL|UNKNOWN)\])?(?:\.(?P<chan>[xyzw]))?\|?$")


#: the most 8-byte slots a program may have (the size fields are 32-bit; this keeps a typo in a
#: size note from allocating gigabytes)
MAX_SLOTS = MAX_TABLE_ENTRIES


@dataclass
class _Program:
    slots: dict[int, tuple[int, int]] = field(default_factory=dict)
    size: int | None = None

    def put(self, slot: int, pair: tuple[int, int], line: int) -> None:
        if not 0 <= slot < MAX_SLOTS:
            raise AssemblyError(f"slot {slot} is outside the program (0..{MAX_SLOTS - 1})", line, 1)
        for word in pair:
            if not 0 <= word <= 0xFFFFFFFF:
                raise AssemblyError(f"word {word:#x} does not fit 32 bits", line, 1)
        old = self.slots.get(slot)
        if old is not None and old != pair:
            raise AssemblyError(f"slot {slot} (byte {slot * 8}) is written twice with different words",
                                line, 1)
        self.slots[slot] = pair

    def to_bytes(self) -> bytes:
        end = (max(self.slots) + 1) * 8 if self.slots else 0
        size = end if self.size is None else self.size
        if size < end or size % 8 or size > MAX_SLOTS * 8:
            raise AssemblyError(f"size {size} is too small, too large or not a multiple of 8 (code ends at {end})")
        out = bytearray(size)
        for slot, (w0, w1) in self.slots.items():
            struct.pack_into("<II", out, slot * 8, w0, w1)
        return bytes(out)


def _int(text: str, line: int) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise AssemblyError(f"not a number: {text!r}", line, 1) from None


def _notes(text: str, line: int) -> dict[str, str]:
    out = {}
    for item in text.split():
        name, sep, value = item.partition("=")
        if not sep:
            raise AssemblyError(f"bad note {item!r} (expected NAME=value)", line, 1)
        out[name] = value
    return out


def _apply(fields: dict[str, int], notes: dict[str, str], line: int) -> None:
    for name, value in notes.items():
        if name != "LITERALS":
            fields[name] = _int(value, line)


def _hidden_defaults(fields: dict[str, int]) -> None:
    for name, value in HIDDEN_DEFAULTS.items():
        fields.setdefault(name, value)


def _flags(text: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in _TOKEN.finditer(text)]


# -- CF -----------------------------------------------------------------------------------------
def _cf_normal(name: str, rest: str, notes: dict[str, str], line: int) -> tuple[int, int]:
    kind = T.CF_TEXT_KIND.get(name, "unknown")
    f: dict[str, int] = {}
    if name != "UNKNOWN":
        if name not in CF_VALUES:
            raise AssemblyError(f"unknown CF instruction {name!r}", line, 1)
        f["CF_INST"] = CF_VALUES[name]
    if kind in SHOWS_BARRIER:
        f["BARRIER"] = 1
    for key, arg in _flags(rest.lstrip(":")):
        if key in ("ADDR", "FAIL_JUMP_ADDR", "PASS_JUMP_ADDR"):
            f["ADDR"] = _int(arg or "", line)
        elif key == "CNT":
            count = _int(arg or "", line) - 1
            f["COUNT"], f["COUNT_3"] = count & 7, count >> 3
        elif key == "NO_BARRIER":
            f["BARRIER"] = 0
        elif key == "CND":
            if arg not in COND_BY_NAME:
                raise AssemblyError(f"bad condition {arg!r}", line, 1)
            f["COND"] = COND_BY_NAME[arg]
        elif key in ("CF_CONST", "CALL_COUNT"):
            f[key] = _int(arg or "", line)
        elif key == "POP_CNT":
            f["POP_COUNT"] = _int(arg or "", line)
        elif key == "VALID_PIX":
            f["VALID_PIXEL_MODE"] = 1
        elif key == "WHOLE_QUAD":
            f["WHOLE_QUAD_MODE"] = 1
        elif key == "UNK_FORMAT":
            pass
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    _apply(f, notes, line)
    w0, w1 = pack_cf(f)
    return w0, w1


def _cf_alu(name: str, rest: str, notes: dict[str, str], line: int) -> tuple[tuple[int, int], int, int]:
    f: dict[str, int] = {"CF_INST": CF_ALU_VALUES[name], "BARRIER": 1}
    kcache = re.compile(r"KCACHE([01])\(CB(\d+):(AL\+)?(\d+)-(?:AL\+)?(\d+)\)")
    for m in kcache.finditer(rest):
        bank, cb, loop, start, end = m.groups()
        span = int(end) - int(start) + 1
        mode = T.KCACHE_LOCK_LOOP_INDEX if loop else {16: T.KCACHE_LOCK_1, 32: T.KCACHE_LOCK_2}.get(span, T.KCACHE_NOP)
        if not mode or int(start) % 16:
            raise AssemblyError(f"bad constant cache lock {m.group(0)!r}", line, 1)
        f[f"KCACHE_MODE{bank}"], f[f"KCACHE_BANK{bank}"] = mode, int(cb)
        f[f"KCACHE_ADDR{bank}"] = int(start) // 16
    for key, arg in _flags(kcache.sub("", rest)):
        if key == "ADDR":
            f["ADDR"] = _int(arg or "", line)
        elif key == "CNT":
            f["COUNT"] = _int(arg or "", line) - 1
        elif key == "NO_BARRIER":
            f["BARRIER"] = 0
        elif key == "WHOLE_QUAD":
            f["WHOLE_QUAD_MODE"] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    _apply(f, notes, line)
    w0, w1 = pack_cf_alu(f)
    return (w0, w1), f.get("ADDR", 0), f.get("COUNT", 0) + 1


_EXP = re.compile(r"^(?:(?P<kind>PIX|POS|PARAM|INVALID)(?P<base>-?\d+)|(?P<read>INVALID_READ)"
                  r"|(?P<rw>WRITE|READ)\((?P<addr>\d+)(?: \+ R(?P<index>\d+))?\)), "
                  r"(?:R\[AL \+ (?P<relgpr>\d+)\]|R(?P<gpr>\d+))\.(?P<sel>[xyzw01?_]{4})(?P<rest>.*)$")


def _cf_export(name: str, rest: str, notes: dict[str, str], line: int) -> tuple[int, int]:
    m = _EXP.match(rest.strip())
    if not m:
        raise AssemblyError(f"cannot read export {rest.strip()!r}", line, 1)
    f: dict[str, int] = {"BARRIER": 1}
    if name != "UNKNOWN":
        f["CF_INST"] = EXP_VALUES[name]
    swizzled = name in ("EXP", "EXP_DONE")
    if m["kind"]:
        base = int(m["base"])
        f["TYPE"] = {"PIX": 0, "POS": 1, "PARAM": 2, "INVALID": 3}[m["kind"]]
        f["ARRAY_BASE"] = base + T.POS_BASE if m["kind"] == "POS" else base
    elif m["read"]:
        f["TYPE"] = T.MEM_EXPORT_READ
    else:
        indexed = m["index"] is not None
        f["TYPE"] = (0 if m["rw"] == "WRITE" else 2) + int(indexed)
        f["ARRAY_BASE"] = int(m["addr"]) // (16 if name in T.MEM_BASE_16 else 4)
        if indexed:
            f["INDEX_GPR"] = int(m["index"])
    if m["relgpr"] is not None:
        f["RW_REL"], f["RW_GPR"] = 1, int(m["relgpr"])
    else:
        f["RW_GPR"] = int(m["gpr"])
    sel = m["sel"]
    if swizzled:
        for c, ch in zip("XYZW", sel):
            f[f"SEL_{c}"] = SEL_BY_CHAR[ch]
    else:
        f["COMP_MASK"] = sum(1 << i for i, ch in enumerate(sel) if ch != "_")
    for key, arg in _flags(m["rest"]):
        if key == "ARRAY_SIZE":
            f["ARRAY_SIZE"] = _int(arg or "", line)
        elif key == "ELEM_SIZE":
            f["ELEM_SIZE"] = _int(arg or "", line)
        elif key == "BURSTCNT":
            f["BURST_COUNT"] = _int(arg or "", line)
        elif key == "NO_BARRIER":
            f["BARRIER"] = 0
        elif key == "WHOLE_QUAD":
            f["WHOLE_QUAD_MODE"] = 1
        elif key == "VALID_PIX":
            f["VALID_PIXEL_MODE"] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    _apply(f, notes, line)
    w0, w1 = (pack_exp_swiz if swizzled else pack_exp_buf)(f)
    return w0, w1


# -- ALU ----------------------------------------------------------------------------------------
def _split_operands(text: str) -> tuple[list[str], str]:
    """Operands (comma separated, commas inside parentheses kept) and the trailing flags."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    # the last operand ends at the first space outside parentheses
    last, flags, depth = "", "", 0
    cur = cur.strip()
    for i, ch in enumerate(cur):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == " " and depth == 0:
            last, flags = cur[:i], cur[i + 1:]
            break
    else:
        last = cur
    parts.append(last.strip())
    return [p for p in parts if p], flags


def _operand(text: str, prefix: str, f: dict[str, int], line: int) -> int | None:
    """Sets the fields of one operand; returns the literal value if it is a literal."""
    m = _OPERAND.match(text)
    if not m:
        raise AssemblyError(f"bad operand {text!r}", line, 1)
    base = m["base"]
    literal = None
    if prefix != "DST":
        f[f"{prefix}_NEG"] = int(bool(m["neg"]))
        if m["abs"]:
            f[f"{prefix}_ABS"] = 1
    sel: int | None
    if base.startswith("KC"):
        sel = (T.ALU_SRC_KCACHE0 if base[2] == "0" else T.ALU_SRC_KCACHE1) + int(base[4:-1])
    elif base[0] == "R" and base[1:].isdigit():
        sel = int(base[1:])
    elif base[0] == "C" and base[1:].isdigit():
        sel = T.ALU_SRC_CFILE + int(base[1:])
    elif base.startswith("PV") and base[2:].lstrip("-").isdigit():
        sel = T.ALU_SRC_PV
    elif base.startswith("PS") and base[2:].lstrip("-").isdigit():
        sel = T.ALU_SRC_PS
    elif base.startswith("(0x"):
        sel = T.ALU_SRC_LITERAL
        literal = int(base[1:].split(",")[0], 16)
        if literal >> 32:
            raise AssemblyError(f"literal {literal:#x} does not fit 32 bits", line, 1)
    elif base in SRC_BY_NAME:
        sel = SRC_BY_NAME[base]
    elif base == "UNKNOWN":
        sel = None
    else:
        raise AssemblyError(f"unknown operand {base!r}", line, 1)
    if sel is not None:
        f[f"{prefix}_GPR" if prefix == "DST" else f"{prefix}_SEL"] = sel
    if m["rel"]:
        f[f"{prefix}_REL"] = 1
        if m["rel"] in INDEX_MODE_BY_NAME:
            f["INDEX_MODE"] = INDEX_MODE_BY_NAME[m["rel"]]
    if m["chan"]:
        f[f"{prefix}_CHAN"] = T.CHANNELS.index(m["chan"])
    return literal


def _alu(unit: str, text: str, notes: dict[str, str], line: int) -> tuple[dict[str, int], bool, list[tuple[str, int]]]:
    """Fields of one ALU instruction, whether it is OP3, and its literal uses (prefix, value)."""
    name, _, rest = text.strip().partition(" ")
    omod = 0
    for suffix, value in (("*2", 1), ("*4", 2), ("/2", 3)):
        if name.endswith(suffix):
            name, omod = name[:-2], value
    f: dict[str, int] = {}
    if name in OP2_BY_NAME:
        op, op3 = OP2_BY_NAME[name], False
        f["OP2_INST"] = op.value
    elif name in OP3_BY_NAME:
        op, op3 = OP3_BY_NAME[name], True
        f["OP3_INST"] = op.value
    elif name == "UNKNOWN":
        op, op3 = T.AluOp("UNKNOWN", -1, 0, ""), "OP3_INST" in notes
    else:
        raise AssemblyError(f"unknown ALU instruction {name!r}", line, 1)
    if omod:
        f["OMOD"] = omod
    operands, flag_text = _split_operands(rest)
    if len(operands) != op.srcs + 1:
        raise AssemblyError(f"{name} takes {op.srcs + 1} operands, got {len(operands)}", line, 1)
    if unit in T.CHANNELS:
        f["DST_CHAN"] = T.CHANNELS.index(unit)
    if operands[0] == "____":
        if op3:
            raise AssemblyError("an OP3 instruction always writes its destination", line, 1)
    else:
        if not op3:
            f["WRITE_MASK"] = 1
        _operand(operands[0], "DST", f, line)
    uses = []
    for i, text_op in enumerate(operands[1:]):
        literal = _operand(text_op, f"SRC{i}", f, line)
        if literal is not None:
            uses.append((f"SRC{i}", literal))
    for key, _arg in _flags(flag_text):
        if key == "CLAMP":
            f["CLAMP"] = 1
        elif key in BANK_SWIZZLES:
            f["BANK_SWIZZLE"] = BANK_SWIZZLES[key]
        elif key in PRED_SELS:
            f["PRED_SEL"] = PRED_SELS[key]
        elif key == "UPDATE_EXEC_MASK":
            f["UPDATE_EXECUTE_MASK"] = 1
        elif key == "UPDATE_PRED":
            f["UPDATE_PRED"] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    _hidden_defaults(f)
    return f, op3, uses


@dataclass
class _AluLine:
    """One ALU instruction line: its fields, encoding, literal uses and notes."""

    fields: dict[str, int]
    op3: bool
    literals: list[tuple[str, int]]  # (source prefix, literal value) in source order
    notes: dict[str, str]
    line: int


@dataclass
class _Group:
    insts: list[_AluLine] = field(default_factory=list)
    literals_note: str | None = None

    def words(self) -> list[tuple[int, int]]:
        """The group's slots: instructions (LAST on the last one), then its literal words."""
        uses = [(inst, prefix, value) for inst in self.insts for prefix, value in inst.literals]
        values = [value for _, _, value in uses]
        if self.literals_note is not None:
            # the stored words; a use finds its value there (an edited value takes the slot of
            # its position) and writes it back, so edits to the text win over the note
            line = self.insts[0].line
            literal_words = [_int(w, line) for w in self.literals_note.split(",")]
            if not literal_words or len(literal_words) % 2:
                raise AssemblyError("LITERALS needs an even, non-zero number of words", line, 1)
            chans = [literal_words.index(v) if v in literal_words else min(i, len(literal_words) - 1)
                     for i, v in enumerate(values)]
        else:
            literal_words, chans = default_literals(values)
        for (inst, prefix, value), chan in zip(uses, chans):
            note = inst.notes.get(f"{prefix}_CHAN")
            chan = _int(note, inst.line) if note is not None else chan
            inst.fields[f"{prefix}_CHAN"] = chan
            if 0 <= chan < len(literal_words):
                literal_words[chan] = value
        out = []
        for i, inst in enumerate(self.insts):
            inst.fields["LAST"] = int(i == len(self.insts) - 1)
            _apply(inst.fields, inst.notes, inst.line)
            w0, w1 = (pack_alu_op3 if inst.op3 else pack_alu_op2)(inst.fields)
            out.append((w0, w1))
        out.extend((literal_words[i], literal_words[i + 1]) for i in range(0, len(literal_words), 2))
        return out


# -- fetch --------------------------------------------------------------------------------------
_REG = re.compile(r"^R(\d+)(\[AL\])?\.([xyzw01?_]+)$")


def _fetch(text: str, vertex: bool, notes: dict[str, str], line: int) -> list[int]:
    name, _, rest = text.strip().partition(" ")
    operands, flag_text = _split_operands(rest)
    vtx = vertex or name in ("FETCH", "SEMANTIC") or "VTX_INST" in notes
    f: dict[str, int] = {}
    if vtx:
        if name != "UNKNOWN":
            if name not in VTX_VALUES:
                raise AssemblyError(f"unknown vertex fetch instruction {name!r}", line, 1)
            f["VTX_INST"] = VTX_VALUES[name]
    elif name != "UNKNOWN":
        if name not in TEX_VALUES:
            raise AssemblyError(f"unknown texture instruction {name!r}", line, 1)
        f["TEX_INST"] = TEX_VALUES[name]
    want = 3 if vtx else 4
    if len(operands) != want:
        raise AssemblyError(f"{name} takes {want} operands, got {len(operands)}", line, 1)
    dst = operands[0]
    if dst == "____":
        for c in "XYZW":
            f[f"DST_SEL_{c}"] = T.SEL_MASK
    else:
        sem = re.match(r"^SEM\[(\d+)\]\.([xyzw01?_]{4})$", dst)
        m = sem or _REG.match(dst)
        if not m or len(m.groups()[-1]) != 4:
            raise AssemblyError(f"bad destination {dst!r}", line, 1)
        if sem:
            f["SEMANTIC_ID"] = int(sem[1])
        else:
            f["DST_GPR"], f["DST_REL"] = int(m[1]), int(bool(m[2]))
        for c, ch in zip("XYZW", m.groups()[-1]):
            f[f"DST_SEL_{c}"] = SEL_BY_CHAR[ch]
    src = _REG.match(operands[1])
    if not src:
        raise AssemblyError(f"bad source {operands[1]!r}", line, 1)
    f["SRC_GPR"], f["SRC_REL"] = int(src[1]), int(bool(src[2]))
    if vtx:
        if len(src[3]) != 1 or src[3] not in "xyzw":
            raise AssemblyError(f"bad vertex fetch source {operands[1]!r}", line, 1)
        f["SRC_SEL_X"] = "xyzw".index(src[3])
        f["BUFFER_ID"] = _int(operands[2].lstrip("b"), line)
        _vtx_flags(f, flag_text, line)
        pack = pack_vtx_sem if f.get("VTX_INST") == 1 else pack_vtx
    else:
        if len(src[3]) != 4:
            raise AssemblyError(f"bad texture source {operands[1]!r}", line, 1)
        for c, ch in zip("XYZW", src[3]):
            f[f"SRC_SEL_{c}"] = SEL_BY_CHAR[ch]
        f["RESOURCE_ID"] = _int(operands[2].lstrip("t"), line)
        f["SAMPLER_ID"] = _int(operands[3].lstrip("s"), line)
        _tex_flags(f, flag_text, line)
        pack = pack_tex
    _hidden_defaults(f)
    _apply(f, notes, line)
    return pack(f)


def _float(text: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise AssemblyError(f"not a number: {text!r}", line, 1) from None


def _tex_flags(f: dict[str, int], text: str, line: int) -> None:
    for c in "XYZW":
        f[f"COORD_TYPE_{c}"] = 1
    for key, arg in _flags(text):
        if key == "LOD":
            f["LOD_BIAS"] = round(_float(arg or "", line) * T.TEX_FIXED_SCALE["LOD_BIAS"]) & 0x7F
        elif key == "WHOLE_QUAD":
            f["FETCH_WHOLE_QUAD"] = 1
        elif key in ("BC_FRAC_MODE", "ALT_CONST"):
            f[key] = 1
        elif key == "DENORM":
            for c in arg or "":
                f[f"COORD_TYPE_{c}"] = 0
        elif key in ("XOFFSET", "YOFFSET", "ZOFFSET"):
            f[f"OFFSET_{key[0]}"] = round(_float(arg or "", line) * T.TEX_FIXED_SCALE[f"OFFSET_{key[0]}"]) & 0x1F
        else:
            raise AssemblyError(f"unexpected {key!r} in a texture instruction", line, 1)


def _vtx_flags(f: dict[str, int], text: str, line: int) -> None:
    f["USE_CONST_FIELDS"] = 1
    fmt = re.search(r"FORMAT\(([^)]*)\)", text)
    if fmt:
        f["USE_CONST_FIELDS"] = 0
        parts = fmt[1].split()
        if len(parts) == 4:
            num = {v: k for k, v in T.NUM_FORMATS.items()}.get(parts[1])
            if num is None:
                raise AssemblyError(f"bad number format {parts[1]!r}", line, 1)
            f["DATA_FORMAT"], f["NUM_FORMAT_ALL"] = _int(parts[0], line), num
            parts = parts[2:]
        elif len(parts) == 3:  # "FORMAT( 263 ..." (number format 3): fields come from notes
            parts = parts[1:]
        else:
            raise AssemblyError(f"bad FORMAT({fmt[1]})", line, 1)
        f["FORMAT_COMP_ALL"] = {"SIGNED": 1, "UNSIGNED": 0}.get(parts[0], 0)
        f["SRF_MODE_ALL"] = _int(parts[1], line)
        text = text[: fmt.start()] + text[fmt.end():]
    fetch_types = {v: k for k, v in T.FETCH_TYPES.items()}
    endians = {v: k for k, v in T.ENDIAN_SWAPS.items()}
    for key, arg in _flags(text):
        if key == "FETCH_TYPE":
            f["FETCH_TYPE"] = fetch_types[arg] if arg in fetch_types else _int(arg or "", line)
        elif key in ("MEGA", "MINI"):
            f["MEGA_FETCH"] = int(key == "MEGA")
            f["MEGA_FETCH_COUNT"] = _int(arg or "", line) - 1
        elif key == "OFFSET":
            f["OFFSET"] = _int(arg or "", line)
        elif key == "WHOLE_QUAD":
            f["FETCH_WHOLE_QUAD"] = 1
        elif key == "ENDIAN_SWAP":
            f["ENDIAN_SWAP"] = endians[arg] if arg in endians else _int(arg or "", line)
        elif key in ("CONST_BUF_NO_STRIDE", "ALT_CONST"):
            f[key] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in a vertex fetch", line, 1)


# -- program ------------------------------------------------------------------------------------
_CF_LINE = re.compile(r"^\s*(\d+)\s+(\w+)(.*)$")
_GROUP_LINE = re.compile(r"^\s*(?:(\d+)\s+)?([xyzwt]):\s+(.*)$")
_FETCH_LINE = re.compile(r"^\s*(\d+)\s+(\w+.*)$")


def assemble(text: str) -> bytes:
    """Assemble the disassembler's text (with or without notes) to program bytes."""
    where = [0]
    try:
        return _assemble(text, where)
    except FieldRangeError as exc:
        raise AssemblyError(str(exc), where[0], 1) from None


def _assemble(text: str, where: list[int]) -> bytes:
    prog = _Program()
    cf_index = 0
    #: the last normal/export CF (slot, words, line), written once we know whether
    #: END_OF_PROGRAM follows it
    pending: tuple[int, tuple[int, int], int] | None = None
    fetch_left = 0
    fetch_vertex = False
    fetch_slot = 0
    group: _Group | None = None  # the ALU group being read (None outside ALU clauses)
    alu_slot = 0

    def emit_group(line: int) -> None:
        nonlocal alu_slot
        if group is not None and group.insts:
            for pair in group.words():
                prog.put(alu_slot, pair, line)
                alu_slot += 1

    def emit_pending() -> None:
        nonlocal pending
        if pending is not None:
            prog.put(pending[0], pending[1], pending[2])
            pending = None

    lines = text.splitlines()
    for number, raw in enumerate(lines, 1):
        where[0] = number
        body, _, note_text = raw.partition(NOTE)
        body = body.split(";", 1)[0].rstrip()
        notes_line = note_text.strip()
        if not body.strip():
            if notes_line:
                _program_note(prog, notes_line, number)
            continue
        notes = _notes(notes_line, number) if notes_line else {}
        stripped = body.strip()
        if fetch_left:
            m = _FETCH_LINE.match(body)
            if not m:
                raise AssemblyError("expected a fetch instruction", number, 1)
            words4 = _fetch(m[2], fetch_vertex, notes, number)
            prog.put(fetch_slot, (words4[0], words4[1]), number)
            prog.put(fetch_slot + 1, (words4[2], words4[3]), number)
            fetch_slot += 2
            fetch_left -= 1
            continue
        if stripped == "END_OF_PROGRAM":
            emit_group(number)
            group = None
            if pending is None:
                raise AssemblyError("END_OF_PROGRAM without a CF or export instruction before it",
                                    number, 1)
            slot, (w0, w1), _ = pending
            pending = (slot, (w0, w1 | 1 << 21), number)
            emit_pending()
            continue
        gm = _GROUP_LINE.match(body)
        if gm and group is not None:
            if gm[1] is not None:
                emit_group(number)
                group = _Group()
            elif not group.insts:
                raise AssemblyError("ALU instruction outside a group", number, 1)
            f, op3, uses = _alu(gm[2], gm[3], notes, number)
            if "LITERALS" in notes:
                group.literals_note = notes["LITERALS"]
            group.insts.append(_AluLine(f, op3, uses, notes, number))
            continue
        m = _CF_LINE.match(body)
        if not m:
            raise AssemblyError(f"cannot read {stripped!r}", number, 1)
        emit_group(number)
        emit_pending()
        group = None
        name, rest = m[2], m[3]
        if name in CF_ALU_VALUES and rest.startswith(":"):
            pair, addr, _count = _cf_alu(name, rest[1:], notes, number)
            prog.put(cf_index, pair, number)
            group = _Group()
            alu_slot = addr
        elif rest.startswith(":") and (name in EXP_VALUES or name == "UNKNOWN") and name not in (
                "TEX", "VTX", "VTX_TC"):
            pending = (cf_index, _cf_export(name, rest[1:], notes, number), number)
        else:
            pair = _cf_normal(name, rest, notes, number)
            pending = (cf_index, pair, number)
            if name in ("TEX", "VTX", "VTX_TC"):
                fetch_vertex = name != "TEX"
                fetch_slot = pair[0]
                fetch_left = ((pair[1] >> 10 & 7) | (pair[1] >> 19 & 1) << 3) + 1
        cf_index += 1
    emit_group(len(lines))
    emit_pending()
    if fetch_left:
        raise AssemblyError(f"{fetch_left} fetch instructions missing at the end", len(lines), 1)
    return prog.to_bytes()


def _program_note(prog: _Program, text: str, line: int) -> None:
    words = text.split()
    if words[0] == "data" and len(words) >= 2:
        slot = _int(words[1], line) // 8
        values = [_int(w, line) for w in words[2:]]
        for i in range(0, len(values), 2):
            prog.put(slot + i // 2, (values[i], values[i + 1] if i + 1 < len(values) else 0), line)
    elif words[0] == "size" and len(words) == 2:
        prog.size = _int(words[1], line)
    else:
        raise AssemblyError(f"unknown note {text!r}", line, 1)

"""decaf-emu latte-assembler source syntax (``.vsh`` / ``.psh``) -> program bytes and metadata.

The same instructions as the listing, with the hand-writing conveniences of decaf's assembler:
swizzles may be left out (exports and fetches default to ``xyzw``, ALU sources to the
destination channel), ``1.0f``-style literals, ``(0x.., f).x`` literals with an explicit
channel, opcode aliases (``RSQ_e``...), ``WHOLE_QUAD_MODE`` / ``USES_WATERFALL``, and
``; $NAME = value`` metadata comments for the GX2 shader header. Unshown fields get the values
decaf's assembler writes (all zero, BARRIER set).

Two conventions for ``1.0f`` and ``0.5f`` sources exist: decaf since 2019-11 writes them as
literals; older versions wrote the inline constants (ALU source 249/252). Each ALU clause takes
the convention its ``CNT`` agrees with (the literal one first).
"""

from __future__ import annotations

import re

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import AssemblyError
from shaderkit.isa.latte import asm as A
from shaderkit.isa.latte import table as T
from shaderkit.isa.latte.disasm import OP2_BY_VALUE, OP3_BY_VALUE
from shaderkit.isa.latte.words import FieldRangeError, f32_bits

ALIASES = {"SQRT_e": "SQRT_IEEE", "EXP_e": "EXP_IEEE", "LOG_e": "LOG_IEEE", "RSQ_e": "RECIPSQRT_IEEE",
           "RCP_e": "RECIP_IEEE", "LOG_sat": "LOG_CLAMPED", "MUL_e": "MUL_IEEE", "DOT4_e": "DOT4_IEEE",
           "MULADD_e": "MULADD_IEEE"}
CONDITIONS = {"ACTIVE": 0, "FALSE": 1, "ALWAYS_FALSE": 1, "BOOL": 2, "CF_BOOL": 2, "NOT_BOOL": 3,
              "CF_NOT_BOOL": 3}
_META = re.compile(r"^\s*;\s*\$(\S+?)\s*=\s*(.*?)\s*$")
_FLOAT = r"-?[0-9]+(?:\.[0-9]+(?:e-[0-9]+)?)?f?"
_SRC = re.compile(
    r"^(?P<neg>-)?(?P<abs>\|)?\s*(?P<base>R\d+|C\d+|KC[01]\s*\[\s*\d+\s*\]|PV\d+|PS\d+"
    rf"|\(\s*0x[0-9A-Fa-f]+\s*,\s*{_FLOAT}\s*\)|0x[0-9A-Fa-f]+|{_FLOAT})\s*\|?"
    r"(?P<rel>\[(?:AR\.[xyzwXYZW]|AL)\])?(?:\.(?P<chan>[xyzwXYZW]))?$")
_DST = re.compile(r"^R(?P<gpr>\d+)(?P<rel>\[(?:AR\.[xyzwXYZW]|AL)\])?(?:\.(?P<chan>[xyzwXYZW]))?$")


@dataclass
class Literal:
    """An ALU literal as written: its 32 bits, whether it was given in hex, and its float value if any."""
    value: int
    has_hex: bool
    number: float | None


@dataclass
class LatteSource:
    """An assembled source: the program and its ``; $NAME = value`` metadata (in order)."""

    program: bytes
    metadata: list[tuple[str, str]] = field(default_factory=list)
    #: per metadata entry: the (line, column) of its value, for error messages
    metadata_at: list[tuple[int, int]] = field(default_factory=list)
    #: the source's file name, for error messages (set by the caller)
    name: str = ""
    #: "literal" or "inline": how 1.0f / 0.5f sources were written (None if no clause had one)
    constants: str | None = None
    #: registers the code reads and writes, and whether it reads constant-cache (uniform block) values
    gprs_read: set[int] = field(default_factory=set)
    gprs_written: set[int] = field(default_factory=set)
    uniform_blocks_used: bool = False

    @property
    def num_gprs(self) -> int:
        """SQ_PGM_RESOURCES NUM_GPRS as decaf's assembler counts it: highest register read or
        written below the clause temporaries (R120-R127), plus one."""
        used = [r for r in self.gprs_read | self.gprs_written if r < 120]
        return max(used, default=0) + 1


def _chan(letter: str) -> int:
    return "xyzw".index(letter.lower())


def _index_mode(text: str) -> int:
    """[AR.x] .. [AR.w] (any case) or [AL]."""
    return 4 if text == "[AL]" else _chan(text[4])


def _literal(text: str) -> Literal:
    text = text.strip()
    if text.startswith("("):
        hex_text, _, float_text = text[1:-1].partition(",")
        return Literal(int(hex_text.strip(), 16), True, float(float_text.strip().rstrip("f")))
    if text.startswith("0x"):
        return Literal(int(text, 16), True, None)
    value = float(text.rstrip("f"))
    return Literal(f32_bits(value), False, value)


def _inline(lit: Literal, old: bool) -> int | None:
    """The inline constant decaf's assembler writes for a literal, or None for a literal slot."""
    if lit.number is None:
        return None
    consistent = not lit.has_hex or lit.value == f32_bits(lit.number)
    if lit.number == 0.0 and (not lit.has_hex or lit.value == 0):
        return 248
    if old and consistent and lit.number == 1.0:
        return 249
    if old and consistent and lit.number == 0.5:
        return 252
    return None


@dataclass
class _Inst:
    fields: dict[str, int]
    op3: bool
    #: (prefix, literal, explicit channel or None) per literal-like source, in order
    literals: list[tuple[str, Literal, int | None]]
    line: int


def _alu_usage(inst: _Inst, out: LatteSource) -> None:
    """Registers and constant-cache use of one ALU instruction (as decaf's assembler marks them)."""
    f = inst.fields
    if f.get("WRITE_MASK", 1) and "DST_GPR" in f:
        out.gprs_written.add(f["DST_GPR"])
    op = (OP3_BY_VALUE if inst.op3 else OP2_BY_VALUE)[f["OP3_INST" if inst.op3 else "OP2_INST"]]
    for i in range(op.srcs):
        sel = f.get(f"SRC{i}_SEL")
        if sel is None:
            continue
        if sel <= T.ALU_SRC_GPR_LAST:
            out.gprs_read.add(sel)
        elif T.ALU_SRC_KCACHE0 <= sel < T.ALU_SRC_KCACHE1 + 32:
            out.uniform_blocks_used = True


def _alu(unit: str, text: str, line: int) -> _Inst:
    name, _, rest = text.strip().partition(" ")
    omod = 0
    for suffix, value in (("*2", 1), ("*4", 2), ("/2", 3)):
        if name.endswith(suffix):
            name, omod = name[:-2], value
    name = ALIASES.get(name, name)
    f: dict[str, int] = {"WRITE_MASK": 1}
    if name in A.OP2_BY_NAME:
        op, op3 = A.OP2_BY_NAME[name], False
        f["OP2_INST"] = op.value
    elif name in A.OP3_BY_NAME:
        op, op3 = A.OP3_BY_NAME[name], True
        f["OP3_INST"] = op.value
        del f["WRITE_MASK"]
    else:
        raise AssemblyError(f"unknown ALU instruction {name!r}", line, 1)
    if omod:
        f["OMOD"] = omod
    if unit != "t":
        f["DST_CHAN"] = _chan(unit)
    operands, flags = A._split_operands(rest)
    if len(operands) != op.srcs + 1:
        raise AssemblyError(f"{name} takes {op.srcs + 1} operands, got {len(operands)}", line, 1)
    dst = operands[0]
    if set(dst) == {"_"}:
        if op3:
            raise AssemblyError("write mask ____ is only valid on an OP2 instruction", line, 1)
        f["WRITE_MASK"] = 0
    else:
        m = _DST.match(dst)
        if not m:
            raise AssemblyError(f"bad destination {dst!r}", line, 1)
        f["DST_GPR"] = int(m["gpr"])
        if m["rel"]:
            f["DST_REL"], f["INDEX_MODE"] = 1, _index_mode(m["rel"])
        if m["chan"]:
            f["DST_CHAN"] = _chan(m["chan"])
    literals: list[tuple[str, Literal, int | None]] = []
    for i, src in enumerate(operands[1:]):
        prefix = f"SRC{i}"
        m = _SRC.match(src.replace(" ", ""))
        if not m:
            raise AssemblyError(f"bad source {src!r}", line, 1)
        base = m["base"]
        f[f"{prefix}_NEG"] = int(bool(m["neg"]))
        if m["abs"]:
            if op3:
                raise AssemblyError("|abs| is only valid on an OP2 instruction", line, 1)
            f[f"{prefix}_ABS"] = 1
        f[f"{prefix}_CHAN"] = f.get("DST_CHAN", 0)
        if base[0] == "R":
            f[f"{prefix}_SEL"] = int(base[1:])
        elif base.startswith("KC"):
            index = int(base[base.index("[") + 1:-1])
            f[f"{prefix}_SEL"] = (T.ALU_SRC_KCACHE0 if base[2] == "0" else T.ALU_SRC_KCACHE1) + index
        elif base[0] == "C":
            f[f"{prefix}_SEL"] = T.ALU_SRC_CFILE + int(base[1:])
        elif base.startswith("PV"):
            f[f"{prefix}_SEL"] = T.ALU_SRC_PV
        elif base.startswith("PS"):
            f[f"{prefix}_SEL"] = T.ALU_SRC_PS
        else:
            literals.append((prefix, _literal(base), _chan(m["chan"]) if m["chan"] else None))
        if m["rel"]:
            f[f"{prefix}_REL"] = 1
            f["INDEX_MODE"] = _index_mode(m["rel"])
        if m["chan"]:
            f[f"{prefix}_CHAN"] = _chan(m["chan"])
    for key, _arg in A._flags(flags):
        if key == "CLAMP":
            f["CLAMP"] = 1
        elif key in A.BANK_SWIZZLES or key == "VEC_012":
            f["BANK_SWIZZLE"] = A.BANK_SWIZZLES.get(key, 0)
        elif key in A.PRED_SELS or key == "PRED_SEL_OFF":
            f["PRED_SEL"] = A.PRED_SELS.get(key, 0)
        elif key == "UPDATE_EXEC_MASK":
            f["UPDATE_EXECUTE_MASK"] = 1
        elif key == "UPDATE_PRED":
            f["UPDATE_PRED"] = 1
        elif key in ("DEACTIVATE", "BREAK", "CONTINUE", "KILL"):
            pass  # UPDATE_EXEC_MASK(op): the operation is not encoded
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    return _Inst(f, op3, literals, line)


def _group_words(group: list[_Inst], old: bool) -> list[tuple[int, int]]:
    """The slots of one ALU group under a 1.0f/0.5f convention (old = inline constants)."""
    words: list[int] = []
    packed = []
    for inst in group:
        f = dict(inst.fields)
        for prefix, lit, chan in inst.literals:
            inline = _inline(lit, old)
            if inline is not None:
                f[f"{prefix}_SEL"] = inline
                continue
            f[f"{prefix}_SEL"] = T.ALU_SRC_LITERAL
            f[f"{prefix}_CHAN"] = len(words) if chan is None else chan
            words.append(lit.value)
        packed.append((f, inst.op3))
    out = []
    for i, (f, op3) in enumerate(packed):
        f["LAST"] = int(i == len(packed) - 1)
        w0, w1 = (A.pack_alu_op3 if op3 else A.pack_alu_op2)(f)
        out.append((w0, w1))
    if len(words) % 2:
        words.append(0)
    out.extend((words[i], words[i + 1]) for i in range(0, len(words), 2))
    return out


_EXP = re.compile(r"^(?P<kind>PIX|POS|PARAM)(?P<index>\d+)\s*,\s*(?:R\[AL\s*\+\s*(?P<rel>\d+)\s*\]|R(?P<gpr>\d+))"
                  r"(?:\.(?P<sel>[xyzwXYZW01_]+))?(?P<rest>.*)$")


def _export(name: str, rest: str, line: int) -> tuple[int, int]:
    if name not in ("EXP", "EXP_DONE"):
        raise AssemblyError(f"{name}: only EXP and EXP_DONE are supported in source syntax", line, 1)
    m = _EXP.match(rest.strip())
    if not m:
        raise AssemblyError(f"cannot read export {rest.strip()!r}", line, 1)
    index = int(m["index"])
    f = {"CF_INST": A.EXP_VALUES[name], "BARRIER": 1, "TYPE": {"PIX": 0, "POS": 1, "PARAM": 2}[m["kind"]],
         "ARRAY_BASE": index + (T.POS_BASE if m["kind"] == "POS" else 0)}
    f["RW_GPR"], f["RW_REL"] = (int(m["rel"]), 1) if m["rel"] is not None else (int(m["gpr"]), 0)
    sels = [0, 1, 2, 3]
    if m["sel"]:
        sels = [4, 4, 4, 5]
        for i, ch in enumerate(m["sel"][:4]):
            sels[i] = A.SEL_BY_CHAR[ch.lower()]
    for c, sel in zip("XYZW", sels):
        f[f"SEL_{c}"] = sel
    for key, arg in A._flags(m["rest"]):
        if key == "NO_BARRIER":
            f["BARRIER"] = 0
        elif key in ("WHOLE_QUAD_MODE", "WHOLE_QUAD"):
            f["WHOLE_QUAD_MODE"] = 1
        elif key == "VALID_PIX":
            f["VALID_PIXEL_MODE"] = 1
        elif key == "ELEM_SIZE":
            f["ELEM_SIZE"] = A._int(arg or "", line)
        elif key == "BURSTCNT":
            f["BURST_COUNT"] = A._int(arg or "", line)
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    w0, w1 = A.pack_exp_swiz(f)
    return w0, w1


def _cf(name: str, rest: str, line: int) -> tuple[dict[str, int], bool]:
    """Fields of a normal CF instruction (TEX included); True if ADDR was given."""
    if name not in A.CF_VALUES:
        raise AssemblyError(f"unknown CF instruction {name!r}", line, 1)
    f = {"CF_INST": A.CF_VALUES[name], "BARRIER": 1}
    has_addr = False
    for key, arg in A._flags(rest.lstrip(":")):
        if key in ("ADDR", "FAIL_JUMP_ADDR", "PASS_JUMP_ADDR"):
            f["ADDR"], has_addr = A._int(arg or "", line), True
        elif key == "CNT":
            count = A._int(arg or "", line) - 1
            f["COUNT"], f["COUNT_3"] = count & 7, count >> 3
        elif key == "CND":
            if arg not in CONDITIONS:
                raise AssemblyError(f"bad condition {arg!r}", line, 1)
            f["COND"] = CONDITIONS[arg]
        elif key in ("CF_CONST", "POP_CNT"):
            f["CF_CONST" if key == "CF_CONST" else "POP_COUNT"] = A._int(arg or "", line)
        elif key == "NO_BARRIER":
            f["BARRIER"] = 0
        elif key in ("WHOLE_QUAD_MODE", "WHOLE_QUAD"):
            f["WHOLE_QUAD_MODE"] = 1
        elif key == "VALID_PIX":
            f["VALID_PIXEL_MODE"] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    return f, has_addr


def _swizzle(text: str | None, default: list[int]) -> list[int]:
    sels = list(default)
    for i, ch in enumerate((text or "")[:4]):
        sels[i] = A.SEL_BY_CHAR[ch.lower()]
    return sels


_TEX = re.compile(r"^(?P<dst>_+|R(?P<dgpr>\d+)(?P<drel>\[AL\])?(?:\.(?P<dsel>[xyzwXYZW01_]+))?)\s*,\s*"
                  r"R(?P<sgpr>\d+)(?P<srel>\[AL\])?(?:\.(?P<ssel>[xyzwXYZW01_]+))?\s*,\s*t(?P<res>\d+)\s*,\s*"
                  r"s(?P<smp>\d+)(?P<rest>.*)$")


def _tex(text: str, line: int) -> list[int]:
    name, _, rest = text.strip().partition(" ")
    if name not in A.TEX_VALUES:
        raise AssemblyError(f"unknown texture instruction {name!r}", line, 1)
    m = _TEX.match(rest.strip())
    if not m:
        raise AssemblyError(f"cannot read texture instruction {rest.strip()!r}", line, 1)
    f = {"TEX_INST": A.TEX_VALUES[name], "RESOURCE_ID": int(m["res"]), "SAMPLER_ID": int(m["smp"]),
         "SRC_GPR": int(m["sgpr"]), "SRC_REL": int(bool(m["srel"]))}
    if m["dgpr"] is None:
        dst = [T.SEL_MASK] * 4
    else:
        f["DST_GPR"], f["DST_REL"] = int(m["dgpr"]), int(bool(m["drel"]))
        dst = _swizzle(m["dsel"], [0, 1, 2, 3])
    for c, sel, src in zip("XYZW", dst, _swizzle(m["ssel"], [0, 1, 2, 3])):
        f[f"DST_SEL_{c}"], f[f"SRC_SEL_{c}"], f[f"COORD_TYPE_{c}"] = sel, src, 1
    for key, arg in A._flags(m["rest"]):
        if key in ("DENORM", "NORM"):
            for ch in (arg or "").upper():
                f[f"COORD_TYPE_{ch}"] = int(key == "NORM")
        elif key == "LOD":
            f["LOD_BIAS"] = round(A._float(arg or "", line) * 8) & 0x7F
        elif key in ("XOFFSET", "YOFFSET", "ZOFFSET"):
            f[f"OFFSET_{key[0]}"] = round(A._float(arg or "", line) * 2) & 0x1F
        elif key in ("WHOLE_QUAD_MODE", "WHOLE_QUAD"):
            f["FETCH_WHOLE_QUAD"] = 1
        elif key in ("ALT_CONST", "BC_FRAC_MODE"):
            f[key] = 1
        else:
            raise AssemblyError(f"unexpected {key!r} in {name}", line, 1)
    return A.pack_tex(f)


@dataclass
class _Clause:
    cf_index: int
    addr: int
    count: int
    groups: list[list[_Inst]] = field(default_factory=list)


_CF_LINE = re.compile(r"^\s*(\d+)\s+([A-Z_0-9]+)\s*(:?)(.*)$")
_GROUP_LINE = re.compile(r"^\s*(?:(\d+)\s+)?([xyzwt]):\s*(.*)$")
_TEX_LINE = re.compile(r"^\s*(\d+)\s+([A-Z_0-9]+\s.*)$")


def assemble_source(text: str) -> LatteSource:
    """Assemble a decaf latte-assembler source to the program (and read its metadata)."""
    where = [0]
    try:
        return _assemble_source(text, where)
    except FieldRangeError as exc:
        raise AssemblyError(str(exc), where[0], 1) from None


def _assemble_source(text: str, where: list[int]) -> LatteSource:
    metadata: list[tuple[str, str]] = []
    metadata_at: list[tuple[int, int]] = []
    cf: list[tuple[int, int]] = []
    clauses: list[_Clause] = []
    tex_words: list[tuple[int, list[int]]] = []  # (slot, four words)
    end_seen = False
    clause: _Clause | None = None
    tex_left = tex_slot = 0
    lines = text.splitlines()
    for number, raw in enumerate(lines, 1):
        where[0] = number
        meta = _META.match(raw)
        if meta:
            metadata.append((meta[1], meta[2]))
            metadata_at.append((number, meta.start(2) + 1))
            continue
        body = raw.split(";", 1)[0].strip()
        if not body:
            continue
        if body.endswith("END_OF_PROGRAM"):
            body = body[: -len("END_OF_PROGRAM")].strip()
            end_seen = True
            if not body:
                continue
        if tex_left:
            m = _TEX_LINE.match(body)
            if not m:
                raise AssemblyError("expected a texture instruction", number, 1)
            tex_words.append((tex_slot, _tex(m[2], number)))
            tex_slot += 2
            tex_left -= 1
            continue
        gm = _GROUP_LINE.match(body)
        if gm and clause is not None:
            if gm[1] is not None or not clause.groups:
                clause.groups.append([])
            clause.groups[-1].append(_alu(gm[2], gm[3], number))
            continue
        m = _CF_LINE.match(body)
        if not m:
            raise AssemblyError(f"cannot read {body!r}", number, 1)
        clause = None
        name, colon, rest = m[2], m[3], m[4]
        if name in A.CF_ALU_VALUES and colon:
            pair, addr, count = A._cf_alu(name, rest.replace("WHOLE_QUAD_MODE", "WHOLE_QUAD")
                                          .replace("USES_WATERFALL", ""), {}, number)
            if "USES_WATERFALL" in rest:
                pair = (pair[0], pair[1] | 1 << 25)
            cf.append(pair)
            clause = _Clause(len(cf) - 1, addr, count)
            clauses.append(clause)
        elif name in A.EXP_VALUES and colon:
            cf.append(_export(name, rest, number))
        else:
            f, _ = _cf(name, rest, number)
            w0, w1 = A.pack_cf(f)
            cf.append((w0, w1))
            if name == "TEX":
                tex_slot = f.get("ADDR", 0)
                tex_left = (f.get("COUNT", 0) | f.get("COUNT_3", 0) << 3) + 1
    if tex_left:
        raise AssemblyError(f"{tex_left} texture instructions missing at the end", len(lines), 1)
    if end_seen and cf:
        last = cf[-1]
        if T.cf_inst_type(last[1]) in (T.CF_TYPE_NORMAL, T.CF_TYPE_EXPORT):
            cf[-1] = (last[0], last[1] | 1 << 21)
    prog = A._Program()
    for i, cf_pair in enumerate(cf):
        prog.put(i, cf_pair, 0)
    conventions = set()
    for c in clauses:
        chosen = None
        for old in (False, True):
            slots = [pair for group in c.groups for pair in _group_words(group, old)]
            if len(slots) == c.count:
                chosen = slots
                if any(_inline(lit, True) not in (None, 248) for g in c.groups for i in g
                       for _, lit, _ in i.literals):
                    conventions.add("inline" if old else "literal")
                break
        if chosen is None:
            got = sum(len(_group_words(g, False)) for g in c.groups)
            line = c.groups[0][0].line if c.groups and c.groups[0] else 0
            raise AssemblyError(f"clause {c.cf_index}: CNT({c.count}) but the clause takes {got} slots",
                                line, 1)
        for i, pair in enumerate(chosen):
            prog.put(c.addr + i, pair, 0)
    for slot, words4 in tex_words:
        prog.put(slot, (words4[0], words4[1]), 0)
        prog.put(slot + 1, (words4[2], words4[3]), 0)
    convention = "inline" if "inline" in conventions else ("literal" if conventions else None)
    result = LatteSource(prog.to_bytes(), metadata, metadata_at, constants=convention)
    for c in clauses:
        for group in c.groups:
            for inst in group:
                _alu_usage(inst, result)
    for _, words4 in tex_words:
        if words4[1] >> 9 & 0xFFF != 0xFFF:  # some destination component is written
            result.gprs_written.add(words4[1] & 0x7F)
        result.gprs_read.add(words4[0] >> 16 & 0x7F)
    for w0, w1 in cf:
        if T.cf_inst_type(w1) == T.CF_TYPE_EXPORT:
            result.gprs_read.add(w0 >> 15 & 0x7F)
    return result

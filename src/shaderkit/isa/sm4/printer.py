"""SHDR/SHEX token words -> fxc listing lines in one pass: each instruction is validated and
printed as it is read, without building the typed model.

Everything the loop looks up is built here at import time from :mod:`.table` and
:mod:`.opcodes` (the single source of facts): per opcode a plan (mnemonic by common control
values, the immediate kind of each operand, the nesting effect), per operand-token type and
index count a ``%`` format of the register, per component-selection bits the ``.xyzw`` suffix.
Nothing is cached at run time, so the first program prints as fast as the thousandth, but for
two things built on first use, once per process: a declaration's compiled template
(:data:`~.dcl.PRINTERS`, ~60 µs each) and the SM5.1 register tables (:func:`register_tables`);
a one-file command needs only a few of them.

Common shapes (ALU, sample, flow control with immediate-indexed or immediate operands, one
modifier token) are printed here; every other instruction (declarations, customdata,
relative indices, minimum precision, extended opcode tokens other than the plain ones, errors)
goes through :func:`~.decode.decode_instruction` and :meth:`~.text.Formatter.instruction`, so the
text and the errors (message and offset) are those of the typed path.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from shaderkit.isa.sm4.dcl import LAYOUTS, PRINTERS
from shaderkit.isa.sm4.decode import MAX_REL_DEPTH, _Cursor, decode_instruction, program_header
from shaderkit.isa.sm4.model import Instruction, Program
from shaderkit.isa.sm4.opcodes import OPCODES, REGISTER_NAMES, UPPER_51, Block, Imm, Layout
from shaderkit.isa.sm4.table import (
    COMPONENTS_AT,
    COMPONENTS_MASK,
    CONTROLS_AT,
    CONTROLS_MASK,
    DIMENSION_AT,
    DIMENSION_MASK,
    EXT_OPERAND_MODIFIER,
    EXTENDED_BIT,
    EXTENDED_OPERAND_TOKEN,
    IMMEDIATE_WORDS,
    INDEX_REP_FIELDS,
    LENGTH_AT,
    LENGTH_MASK,
    NUM_COMPONENTS_MASK,
    OPCODE_MASK,
    SATURATE,
    SELECTION_AT,
    SELECTION_MASK,
    TEST_NONZERO,
    TYPE_AT,
    TYPE_MASK,
)
from shaderkit.isa.sm4.text import (
    _BLOCKS,
    _GLUED,
    _INDENT,
    _INPUT_LIKE,
    _MASKS_DOT,
    _SELECT,
    _SWIZZLES,
    Formatter,
    _msvc_f,
    fmt_int,
)

# -- operand tables ---------------------------------------------------------------------------

#: operand tokens below this have no extended token and only immediate 32-bit indices
#: (every index representation field and the chaining bit lie above it)
SIMPLE_LIMIT = 1 << min(f.low for f in INDEX_REP_FIELDS)
assert SIMPLE_LIMIT <= 1 << EXTENDED_BIT and all(f.low >= DIMENSION_AT + 2 for f in INDEX_REP_FIELDS)
#: the type and index-dimension fields are adjacent: ``token >> TYPE_AT`` indexes both at once
assert DIMENSION_AT == TYPE_AT + TYPE_MASK.bit_length() and SIMPLE_LIMIT >> TYPE_AT == (TYPE_MASK + 1) * (DIMENSION_MASK + 1)
#: the low bits below TYPE_AT (components, selection, component bits) index the suffix table
assert COMPONENTS_AT + COMPONENTS_MASK.bit_length() == TYPE_AT

_IMMEDIATE = -1  # operand form of an immediate (values follow the token)
_HARD = -2  # operand forms printed through the typed model


def _suffix(low: int) -> str:
    """The ``.xyzw`` text of an operand token's bits below the type field."""
    if low & NUM_COMPONENTS_MASK != 2:
        return ""
    bits = (low >> COMPONENTS_AT) & COMPONENTS_MASK
    mode = (low >> SELECTION_AT) & SELECTION_MASK
    if mode == 0:
        return _MASKS_DOT[bits & 0xF]
    if mode == 1:
        return _SWIZZLES[bits]
    return _SELECT[bits & 3]


assert NUM_COMPONENTS_MASK == 0b11  # the operand count code: bits 0..1
_suffixes = [""] * (1 << TYPE_AT)
for _low in range(2, 1 << TYPE_AT, NUM_COMPONENTS_MASK + 1):  # the 4-component ones (count code 2 in bits 0..1)
    _suffixes[_low] = _suffix(_low)
#: per value of the token bits below the type field: the component suffix
SUFFIXES = tuple(_suffixes)


def _register_forms(sm51: bool) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Per ``token >> TYPE_AT`` of a simple operand token (type, index count): the words after
    the token (or _IMMEDIATE/_HARD) and the ``%d`` format of the register text."""
    counts: list[int] = []
    formats: list[str] = []
    names = [UPPER_51[op_type] if sm51 and op_type in UPPER_51 else REGISTER_NAMES.get(op_type, f"<type{op_type}>")
             for op_type in range(TYPE_MASK + 1)]
    # key = dim << TYPE_MASK.bit_length() | op_type (the fields are adjacent, asserted above)
    for dim in range(DIMENSION_MASK + 1):
        for op_type, name in enumerate(names):
            if op_type in IMMEDIATE_WORDS:
                counts.append(_IMMEDIATE if dim == 0 else _HARD)
                formats.append("")
                continue
            glued = op_type in _GLUED and not (op_type in _INPUT_LIKE and dim > 1)
            counts.append(dim)
            formats.append(name + ("%d" if glued else "[%d]") + "[%d]" * (dim - 1) if dim else name)
    return tuple(counts), tuple(formats)


class RegisterTables:
    """Per ``token >> TYPE_AT`` of a simple operand token, for SM4/5.0 or SM5.1 register names.

    (A plain class, not a NamedTuple: mypyc's NamedTuples load ``typing``, a share of start-up.)
    """

    __slots__ = ("counts", "formats", "glued", "glued_types")

    def __init__(self, counts: tuple[int, ...], formats: tuple[str, ...], glued: tuple[str | None, ...],
                 glued_types: dict[int, str]) -> None:
        self.counts = counts  # the words after the token (or _IMMEDIATE/_HARD)
        self.formats = formats  # the ``%d`` format of the register text
        self.glued = glued  # the register name of a one-index glued operand (r0), else None
        self.glued_types = glued_types  # the register name of every type whose first immediate index is glued


def _register_tables(sm51: bool) -> RegisterTables:
    counts, formats = _register_forms(sm51)
    glued = tuple(fmt[:-2] if count == 1 and fmt.endswith("%d") else None for count, fmt in zip(counts, formats))
    names = {t: UPPER_51[t] if sm51 and t in UPPER_51 else REGISTER_NAMES[t] for t in _GLUED}
    return RegisterTables(counts, formats, glued, names)


_TABLES = [_register_tables(False)]  # the SM5.1 ones are added on first use (few programs need them)


def register_tables(sm51: bool) -> RegisterTables:
    """The simple operand tokens' tables of SM4/5.0 or of SM5.1 register names."""
    if sm51 and len(_TABLES) == 1:
        _TABLES.append(_register_tables(True))
    return _TABLES[sm51]


_MODIFIER = EXTENDED_OPERAND_TOKEN["modifier"]
#: an extended operand token that only sets a modifier reads EXT_OPERAND_MODIFIER under this mask
#: (kind 1; no precision, no non-uniform flag, no chaining: every other bit zero)
_BESIDE_MODIFIER = ~_MODIFIER.bits & 0xFFFFFFFF
_WRAPS = {0: ("", ""), 1: ("-", ""), 2: ("|", "|"), 3: ("-|", "|")}
#: per modifier field value: the text around the operand (other values print nothing)
MODIFIER_WRAPS = tuple(_WRAPS.get(m, ("", "")) for m in range(_MODIFIER.mask + 1))

_INDEX_AT = tuple(f.low for f in INDEX_REP_FIELDS)
_INDEX_MASK = INDEX_REP_FIELDS[0].mask
_IMMEDIATE32, _RELATIVE, _IMMEDIATE32_RELATIVE = 0, 2, 3  # the index representations printed here


def register_text(words: Sequence[int], p: int, depth: int, glued: dict[int, str]) -> tuple[str, int] | None:
    """(text, end) of a register operand at ``p`` with at most one modifier token (no precision)
    and 32-bit immediate or relative indices, as :meth:`~.text.Formatter.operand` prints it;
    None for any other shape. Reads may run past the instruction: the caller checks the end."""
    token = words[p]
    p += 1
    left = right = ""
    if token >> EXTENDED_BIT:
        ext = words[p]
        p += 1
        if ext & _BESIDE_MODIFIER != EXT_OPERAND_MODIFIER:
            return None
        left, right = MODIFIER_WRAPS[(ext >> _MODIFIER.low) & _MODIFIER.mask]
    op_type = (token >> TYPE_AT) & TYPE_MASK
    if op_type in IMMEDIATE_WORDS:
        return None
    indices = []
    first_immediate = True
    for i in range((token >> DIMENSION_AT) & DIMENSION_MASK):
        rep = (token >> _INDEX_AT[i]) & _INDEX_MASK
        if rep == _IMMEDIATE32:
            indices.append(f"[{words[p]}]")
            p += 1
            continue
        if rep != _RELATIVE and rep != _IMMEDIATE32_RELATIVE or depth >= MAX_REL_DEPTH:
            return None
        value = 0
        if rep == _IMMEDIATE32_RELATIVE:
            value = words[p]
            p += 1
        found = register_text(words, p, depth + 1, glued)
        if found is None:
            return None
        indices.append(f"[{found[0]} + {value}]")
        p = found[1]
        if i == 0:
            first_immediate = False
    name = glued.get(op_type)
    if name is not None and indices and first_immediate and not (op_type in _INPUT_LIKE and len(indices) > 1):
        text = name + indices[0][1:-1] + "".join(indices[1:])
    else:
        if name is None:
            name = REGISTER_NAMES.get(op_type, f"<type{op_type}>")
        text = name + "".join(indices)
    return left + text + SUFFIXES[token & ((1 << TYPE_AT) - 1)] + right, p


_F32X = [struct.Struct(f"<{n}f") for n in range(5)]
_U32X = [struct.Struct(f"<{n}I") for n in range(5)]
_FLOAT, _INT, _UNTYPED = int(Imm.FLOAT), int(Imm.INT), int(Imm.UNTYPED)


def immediate_text(values: Sequence[int], kind: int, legacy: bool) -> str:
    """``l(...)`` of 32-bit immediate words printed as ``kind`` (fxc's rules, see :mod:`.text`)."""
    if kind == _INT:
        return "l(" + ", ".join([DECIMAL[v] if v < 1024 else fmt_int(v) for v in values]) + ")"
    if kind == _UNTYPED and max(values) < 1024:  # small integers (denormal bits): decimal, fxc's "," alone
        return "l(" + ",".join([DECIMAL[v] for v in values]) + ")"
    n = len(values)
    floats = _F32X[n].unpack(_U32X[n].pack(*values))
    if kind != _UNTYPED and not legacy:
        if n == 1:
            word = values[0]
            if word >> 23 & 0xFF != 0xFF:
                return "l(%f)" % floats[0]  # noqa: UP031 - the fastest spelling
        elif n == 4 and all(word >> 23 & 0xFF != 0xFF for word in values):
            return "l(%f, %f, %f, %f)" % floats  # noqa: UP031
    parts = []
    for word, value in zip(values, floats):
        exponent = word >> 23 & 0xFF
        if kind == _UNTYPED and (exponent == 0 or exponent == 0xFF or word == 0x80000000):
            parts.append("-0.000000" if word == 0x80000000 else DECIMAL[word] if word < 1024 else fmt_int(word))
        elif exponent == 0xFF or legacy:
            parts.append(_msvc_f(value, word >> 31, legacy))
        else:
            parts.append("%f" % value)  # noqa: UP031
    return "l(" + (",".join(parts) if kind == _UNTYPED else ", ".join(parts)) + ")"


#: decimal text of small numbers
DECIMAL = tuple(str(n) for n in range(1024))


# -- instruction plans -----------------------------------------------------------------------

_PLAN_BLOCK = {int(Block.OPEN): 1, int(Block.CLOSE): 2, int(Block.MIDDLE): 3, int(Block.PHASE): 4}
#: per 11-bit opcode: nesting effect (bit 0 opens after the line, bit 1 closes before it, 4 resets)
_blocks = [0] * (OPCODE_MASK + 1)
for _op, _block in _BLOCKS.items():
    _blocks[_op] = _PLAN_BLOCK.get(_block, 0)
BLOCKS = tuple(_blocks)


#: the control values the plans print (none, ``_sat``, ``_nz``)
_PLAN_CONTROLS = (0, SATURATE.put(1), TEST_NONZERO.put(1))


def _plan(opcode: int) -> tuple[dict[int, str], tuple[int, ...]] | None:
    """(mnemonic by common control values, immediate kind per operand) of an instruction this
    module prints, None for the others."""
    info = OPCODES.get(opcode)
    if info is None or info.layout != Layout.OPERANDS or info.dcl or info.name.startswith("reserved"):
        return None
    names = {}
    inst = Instruction(opcode)  # (one instance per opcode: mnemonic reads only its fields)
    for controls in _PLAN_CONTROLS:
        inst.controls = controls
        names[controls] = Formatter.mnemonic(inst, info)
    special = dict(info.imm_at)
    kinds = tuple(int(special.get(i, info.imm)) for i in range(max(info.num_operands, 0)))
    return names, kinds


#: fxc ends operand-less instructions with a blank (``ret ``), except ``sync_*``
_SYNC = next(op for op, info in OPCODES.items() if info.name == "sync")
#: per 11-bit opcode: its plan, or None (printed through the typed model)
_plans: list[tuple[dict[int, str], tuple[int, ...]] | None] = [None] * (OPCODE_MASK + 1)
for _op in OPCODES:
    _plans[_op] = _plan(_op)
PLANS = tuple(_plans)
#: opcode token bits (opcode, controls, chaining bit) -> (nesting effect, "mnemonic ", immediate kind per
#: operand) for the instructions printed here with their common control values and no extended token
FAST_KEY = OPCODE_MASK | CONTROLS_MASK << CONTROLS_AT | 1 << EXTENDED_BIT
FAST: dict[int, tuple[int, str, tuple[int, ...]]] = {
    op | controls << CONTROLS_AT: (BLOCKS[op], name + ("" if op == _SYNC else " "), plan[1])
    for op, plan in enumerate(PLANS) if plan is not None for controls, name in plan[0].items()}
#: :data:`FAST` in fxc 9.29's spelling (``discard`` for ``discard_nz``)
FAST_9_29 = FAST.copy()
_DISCARD_NZ = next(key for key, (_, name, _) in FAST.items() if name == "discard_nz ")
FAST_9_29[_DISCARD_NZ] = (FAST[_DISCARD_NZ][0], "discard ", FAST[_DISCARD_NZ][2])
#: per 11-bit opcode of a declaration printed from its template (:data:`~.dcl.PRINTERS`): whether
#: one operand precedes the raw words; else None
DECLARATIONS: tuple[bool | None, ...] = tuple(
    OPCODES[op].layout == Layout.DCL_OPERAND
    if op in LAYOUTS and OPCODES[op].layout in (Layout.DCL_OPERAND, Layout.RAW) else None
    for op in range(OPCODE_MASK + 1))


# -- the loop ---------------------------------------------------------------------------------

def program_lines(words: Sequence[int], base: int = 0, legacy: bool = False,
                  starts: list[int] | None = None, since_9_30: bool = True) -> list[str]:
    """The listing body of a SHDR/SHEX payload given as u32 words: the version line, then one
    line per instruction, exactly as :meth:`~.text.Formatter.lines` prints the decoded program.

    Invalid programs raise the :class:`ShaderFormatError` :func:`~.decode.decode` raises
    (offsets relative to ``base``). ``starts`` (if given) receives each instruction's word
    offset. ``since_9_30=False`` spells texel offsets and ``discard`` as fxc 9.29 did (see
    :class:`~.text.Formatter`).
    """
    code, length, (minor, major, extra, program_type) = program_header(words, base)  # (a tuple: compiled, read fast)
    prog = Program(program_type, major, minor, [], extra)
    formatter = Formatter(prog, legacy, since_9_30=since_9_30)
    sm51 = formatter.sm51
    tables = register_tables(sm51)
    counts, formats, glued, glued_types = tables.counts, tables.formats, tables.glued, tables.glued_types
    float_text = formatter.float_text
    declarations, printers, cb_name, type_mask = DECLARATIONS, PRINTERS, "cb" if legacy else "CB", TYPE_MASK
    out = [prog.profile]
    if starts is None:
        starts = []
    plans, blocks, suffixes, indents = PLANS, BLOCKS, SUFFIXES, _INDENT
    simple_limit, type_at, low_mask = SIMPLE_LIMIT, TYPE_AT, (1 << TYPE_AT) - 1
    opcode_mask, length_at, length_mask, more_at = OPCODE_MASK, LENGTH_AT, LENGTH_MASK, EXTENDED_BIT
    controls_at, controls_mask = CONTROLS_AT, CONTROLS_MASK
    imm32_words = IMMEDIATE_WORDS[4]
    fast, fast_key = FAST if since_9_30 else FAST_9_29, FAST_KEY
    u32_bytes, f32_of_u32 = _U32X[1].pack, _F32X[1].unpack
    decimal = DECIMAL
    cur: _Cursor | None = None
    level = 0
    indent = ""
    pos = 2
    while pos < length:
        token = code[pos]
        end = pos + ((token >> length_at) & length_mask)
        p = pos + 1
        entry = fast.get(token & fast_key)
        if entry is not None:
            block, head, kinds = entry
        else:
            opcode = token & opcode_mask
            block = blocks[opcode]
            head = None
            kinds = ()
            plan = plans[opcode]
            if plan is not None and pos < end <= length:
                kinds = plan[1]
                if token >> more_at:  # extended opcode tokens: the mnemonic from the model's rules
                    extended = []
                    more = 1
                    while more and p < end:
                        ext = code[p]
                        p += 1
                        more = ext >> more_at
                        extended.append(ext & 0x7FFFFFFF)
                    if not more:
                        head = Formatter.mnemonic(
                            Instruction(opcode, (token >> controls_at) & controls_mask, extended), OPCODES[opcode],
                            since_9_30)
                        head += "" if opcode == _SYNC else " "
                else:
                    head = Formatter.mnemonic(Instruction(opcode, (token >> controls_at) & controls_mask),
                                              OPCODES[opcode], since_9_30) + ("" if opcode == _SYNC else " ")
        if block:
            if block & 2:
                if level:
                    level -= 1
            elif block == 4:
                level = 0
            indent = indents[level] if level < 64 else "  " * level
        text = None
        if head is None:
            declaration = declarations[token & opcode_mask]
            if declaration is not None and not token >> more_at and pos < end <= length:
                op = ""
                if declaration:  # the declared operand (simple ones here), then raw words
                    t = code[p] if p < end else simple_limit  # no operand word: the typed decoder reports it
                    count = counts[t >> type_at] if t < simple_limit else _HARD
                    if count >= 0 and p + 1 + count <= end:
                        op_type = (t >> type_at) & type_mask
                        if count == 3 and sm51 and op_type in UPPER_51:  # SM5.1 range T0[1:3]
                            upper = code[p + 3]
                            op = (f"{UPPER_51[op_type]}{code[p + 1]}[{code[p + 2]}:"
                                  f"{'*' if upper == 0xFFFFFFFF else upper}]")
                        elif op_type == 8:  # dcl_constantbuffer cb0[4]: "cb" upper case but in fxc 9.x
                            op = cb_name + (formats[t >> type_at] % code[p + 1 : p + 1 + count])[2:]
                        else:
                            op = (formats[t >> type_at] % code[p + 1 : p + 1 + count] if count
                                  else formats[t >> type_at]) + suffixes[t & low_mask]
                        p += 1 + count
                    else:
                        p = -1
                if p >= 0:
                    text = printers[token & opcode_mask]((token >> controls_at) & controls_mask, code[p:end], op, float_text,
                                          sm51, legacy)
        elif pos < end <= length:
            if not kinds:
                text = head
            else:
                parts = []
                try:
                    for kind in kinds:
                        t = code[p]
                        if t < simple_limit:
                            key = t >> type_at
                            prefix = glued[key]
                            if prefix is not None:  # r0.xyzw, v1.x, cb0 ...
                                index = code[p + 1]
                                parts.append(prefix + (decimal[index] if index < 1024 else str(index))
                                             + suffixes[t & low_mask])
                                p += 2
                                continue
                            count = counts[key]
                            if count == _IMMEDIATE:  # l(1.000000), l(0, 1, 2, 3)
                                if key != 4:
                                    break
                                n = imm32_words[t & 3]
                                if n == 1:
                                    value = code[p + 1]
                                    if value < 1024 and (kind == _INT or kind == _UNTYPED):  # integer text
                                        parts.append("l(" + decimal[value] + ")")
                                    elif kind != _INT and 0 < value >> 23 & 0xFF < 0xFF and not legacy:
                                        parts.append("l(%f)" % f32_of_u32(u32_bytes(value))[0])  # noqa: UP031
                                    else:
                                        parts.append(immediate_text((value,), kind, legacy))
                                elif n:
                                    parts.append(immediate_text(code[p + 1 : p + 1 + n], kind, legacy))
                                else:
                                    break
                                p += 1 + n
                            elif count >= 0:  # cb0[1], x0[1], icb[2], null, vThreadID ...
                                if p + 1 + count > end:  # runs past the instruction: the typed decoder reports it
                                    break
                                fmt = formats[key]
                                parts.append((fmt % code[p + 1 : p + 1 + count] if count else fmt)
                                             + suffixes[t & low_mask])
                                p += 1 + count
                            else:
                                break
                            continue
                        # a modifier token (-r0.x, |r1|), relative indices (cb0[r0.x + 3]) ...
                        found = register_text(code, p, 0, glued_types)
                        if found is None:
                            break
                        parts.append(found[0])
                        p = found[1]
                    else:
                        if p <= end:
                            text = head + ", ".join(parts)
                except IndexError:  # read past the words: the typed decoder reports it
                    pass
        if text is None:  # through the typed model (validates and raises like decode())
            if cur is None:
                cur = _Cursor(code, base)
            cur.pos = pos
            text = formatter.instruction(decode_instruction(cur, length))
            end = cur.pos
            if indent and "\n" in text:
                text = text.replace("\n", "\n" + indent)
        starts.append(pos)  # (methods called directly: a compiled build calls list.append natively)
        out.append(indent + text if indent else text)
        if block & 1:
            level += 1
            indent = indents[level] if level < 64 else "  " * level
        pos = end
    return out

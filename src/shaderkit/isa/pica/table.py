"""The PICA200 shader instruction set: the ONE table read by decode, encode, text and the assembler.

Every 32-bit word has its opcode in the top bits (6 bits; CMP uses 5, MAD/MADI use 3). Each form
lists its operand fields as ``(name, lsb, width)`` and the bits it leaves unused (``RESERVED``):
opcode, fields and reserved bits together cover all 32 bits of every form exactly once (checked by
:func:`self_check`). The decoder keeps reserved bits as ``extra`` so that any word re-encodes to
itself; the assembler never sets them.

Facts: ``shared/reference/pica.md`` (3dbrew, Citra, nihstro, picasso). NUM is bits 0-7: 3dbrew
documents 8 bits, Citra and nihstro declare ``BitField<0, 8>``, Panda3DS reads ``instruction & 0xff``.
picasso stores a 10-bit count there
(``inst |= num | dst << 10`` for calls, else lengths up to 0x3FF), so its bits 8-9 are the
separate field ``num_hi``: the GPU ignores it, and a procedure or else block of 256 words or more
assembled by picasso runs only ``num`` words on the GPU. The assembler writes both fields as
picasso does (byte-identical output); the VM reads ``num`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from shaderkit.dataclass import dataclass

# -- forms --------------------------------------------------------------------------------------
#: form -> operand fields (name, lsb, width); names follow the reference tables.
FORMAT_FIELDS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "0": (),
    "1": (("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2), ("dst", 21, 5)),
    "1i": (("desc", 0, 7), ("src2", 7, 7), ("src1", 14, 5), ("idx", 19, 2), ("dst", 21, 5)),
    "1u": (("desc", 0, 7), ("src1", 12, 7), ("idx", 19, 2), ("dst", 21, 5)),
    "1m": (("desc", 0, 7), ("src1", 12, 7), ("idx", 19, 2)),  # MOVA: no destination field
    "1c": (("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2), ("cmpy", 21, 3),
           ("cmpx", 24, 3)),
    "2": (("num", 0, 8), ("num_hi", 8, 2), ("dst", 10, 12), ("condop", 22, 2), ("refy", 24, 1),
          ("refx", 25, 1)),
    "3": (("num", 0, 8), ("num_hi", 8, 2), ("dst", 10, 12), ("bool_id", 22, 4)),
    "3l": (("num", 0, 8), ("num_hi", 8, 2), ("dst", 10, 12), ("int_id", 22, 2)),  # LOOP
    "4": (("winding", 22, 1), ("prim", 23, 1), ("vertex_id", 24, 2)),
    "5": (("desc", 0, 5), ("src3", 5, 5), ("src2", 10, 7), ("src1", 17, 5), ("idx", 22, 2),
          ("dst", 24, 5)),
    "5i": (("desc", 0, 5), ("src3", 5, 7), ("src2", 12, 5), ("src1", 17, 5), ("idx", 22, 2),
           ("dst", 24, 5)),
}

#: form -> bits no field uses (lsb, width): picasso writes zero there, hardware ignores them
RESERVED: dict[str, tuple[tuple[int, int], ...]] = {
    "0": ((0, 26),),
    "1": (),
    "1i": (),
    "1u": ((7, 5),),
    "1m": ((7, 5), (21, 5)),
    "1c": (),
    "2": (),
    "3": (),
    "3l": ((24, 2),),
    "4": ((0, 22),),
    "5": (),
    "5i": (),
}

#: which source the relative-addressing index applies to, per form
IDX_SOURCE = {"1": "src1", "1u": "src1", "1m": "src1", "1c": "src1", "1i": "src2",
              "5": "src2", "5i": "src3"}

#: forms whose instructions use an operand descriptor
DESC_FORMATS = frozenset({"1", "1i", "1u", "1m", "1c", "5", "5i"})

# -- operand descriptors ------------------------------------------------------------------------
COMPONENTS = "xyzw"
SWIZZLE_ALIASES = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3,
                   "s": 0, "t": 1, "p": 2, "q": 3}
IDENTITY_SWIZZLE = 0x1B  # x y z w, comp0 in the top two bits
#: descriptor bit layout: dest mask 0-3 (bit3 = x), then per source 9 bits = negate + 8 swizzle
DESC_DEST_MASK = 0xF
SRC_SHIFT = (4, 13, 22)  # src1, src2, src3 (negate bit; swizzle at +1)
DEFAULT_OPSRC = IDENTITY_SWIZZLE << 1  # a source with identity swizzle and no negation
#: descriptor bits an instruction reads: D = dest mask, 1/2/3 = that source's 9 bits
MASK_D123 = 0xF | (0x1FF << 4) | (0x1FF << 13) | (0x1FF << 22)
MASK_D12 = 0xF | (0x1FF << 4) | (0x1FF << 13)
MASK_D1 = 0xF | (0x1FF << 4)
MASK_12 = (0x1FF << 4) | (0x1FF << 13)

MAX_OPDESC = 128  # 7-bit desc field
MAX_MAD_OPDESC = 32  # 5-bit desc field of MAD/MADI

# picasso's optimizeOpdesc: which source components an instruction ignores ("don't care")
DC_NONE = ""  # every bit of the descriptor it reads matters
DC_PER_COMPONENT = "per-component"  # a disabled dest component's source components
DC_DP3 = "dp3"  # src1.w and src2.w
DC_DPH = "dph"  # src1.w
DC_SCALAR = "scalar"  # src1 components 1-3
DC_MOVA = "mova"  # src1 components the a0 mask leaves out, and 2-3
DC_CMP = "cmp"  # src1 components 2-3


# -- opcodes ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpcodeInfo:
    """One row of the opcode table."""

    opcode: int  # value of the top 6 bits (first of the range for CMP/MAD/MADI)
    mnemonic: str  # picasso spelling
    fmt: str  # form, a key of FORMAT_FIELDS
    opcode_bits: int = 6  # how many top bits are the opcode (CMP 5, MAD/MADI 3)
    sources: int = 0  # number of source operands (for the printer and assembler)
    inverted: bool = False  # the "i" forms: wide operand is the second source
    #: operand syntax of the picasso text, a key of SYNTAXES
    syntax: str = "none"
    #: descriptor bits the instruction reads (0 when it has no descriptor)
    desc_bits: int = 0
    #: picasso's don't-care rule for descriptor merging (DC_*)
    dont_care: str = DC_NONE

    @property
    def shift(self) -> int:
        """The bit where the opcode field starts (32 minus its width)."""
        return 32 - self.opcode_bits

    @property
    def fields(self) -> tuple[tuple[str, int, int], ...]:
        """(name, low bit, width) of every operand field of the opcode's format."""
        return FORMAT_FIELDS[self.fmt]

    @property
    def base(self) -> str:
        """The mnemonic picasso's text uses: the inverted forms print as their base."""
        return BASE_OF_INVERTED.get(self.mnemonic, self.mnemonic)


#: base opcode -> its inverted form (picasso picks the inverted one when src1 is narrow)
INVERTED_FORM = {"dph": "dphi", "dst": "dsti", "sge": "sgei", "slt": "slti", "mad": "madi"}
BASE_OF_INVERTED = {inverted: base for base, inverted in INVERTED_FORM.items()}

#: operand syntax -> what the picasso text lists after the mnemonic
SYNTAXES: dict[str, tuple[str, ...]] = {
    "none": (),
    "dst_src": ("dst", "src1"),
    "dst_src_src": ("dst", "src1", "src2"),
    "dst_src_src_src": ("dst", "src1", "src2", "src3"),
    "mova": ("a0", "src1"),
    "cmp": ("src1", "cmpx", "cmpy", "src2"),
    "cond": ("cond",),
    "cond_proc": ("cond", "proc"),
    "cond_label": ("cond", "label"),
    "proc": ("proc",),
    "bool": ("bool",),
    "bool_proc": ("bool", "proc"),
    "bool_label": ("[!]bool", "label"),
    "int": ("int",),
    "setemit": ("vertex", "[flags]"),
}


def _alu(opcode: int, mnemonic: str, sources: int, dont_care: str = DC_NONE, *,
         inverted: bool = False) -> OpcodeInfo:
    fmt = "1i" if inverted else ("1" if sources == 2 else "1u")
    syntax = "dst_src_src" if sources == 2 else "dst_src"
    return OpcodeInfo(opcode, mnemonic, fmt, 6, sources, inverted, syntax,
                      MASK_D12 if sources == 2 else MASK_D1, dont_care)


def _flow(opcode: int, mnemonic: str, fmt: str, syntax: str) -> OpcodeInfo:
    return OpcodeInfo(opcode, mnemonic, fmt, 6, 0, False, syntax)


#: The table. Unknown opcodes (0x10, 0x11, 0x14-0x17, 0x1C-0x1F) decode as form "0" with
#: every operand bit kept in ``extra`` and print as raw words.
OPCODES: tuple[OpcodeInfo, ...] = (
    _alu(0x00, "add", 2, DC_PER_COMPONENT),
    _alu(0x01, "dp3", 2, DC_DP3),
    _alu(0x02, "dp4", 2),
    _alu(0x03, "dph", 2, DC_DPH),
    _alu(0x04, "dst", 2),
    _alu(0x05, "ex2", 1, DC_SCALAR),
    _alu(0x06, "lg2", 1, DC_SCALAR),
    _alu(0x07, "litp", 1),
    _alu(0x08, "mul", 2, DC_PER_COMPONENT),
    _alu(0x09, "sge", 2, DC_PER_COMPONENT),
    _alu(0x0A, "slt", 2, DC_PER_COMPONENT),
    _alu(0x0B, "flr", 1, DC_PER_COMPONENT),
    _alu(0x0C, "max", 2, DC_PER_COMPONENT),
    _alu(0x0D, "min", 2, DC_PER_COMPONENT),
    _alu(0x0E, "rcp", 1, DC_SCALAR),
    _alu(0x0F, "rsq", 1, DC_SCALAR),
    OpcodeInfo(0x12, "mova", "1m", 6, 1, False, "mova", MASK_D1, DC_MOVA),
    _alu(0x13, "mov", 1, DC_PER_COMPONENT),
    # picasso merges the inverted forms' descriptors under the base name's rule
    _alu(0x18, "dphi", 2, DC_DPH, inverted=True),
    _alu(0x19, "dsti", 2, inverted=True),
    _alu(0x1A, "sgei", 2, DC_PER_COMPONENT, inverted=True),
    _alu(0x1B, "slti", 2, DC_PER_COMPONENT, inverted=True),
    _flow(0x20, "break", "0", "none"),
    _flow(0x21, "nop", "0", "none"),
    _flow(0x22, "end", "0", "none"),
    _flow(0x23, "breakc", "2", "cond"),
    _flow(0x24, "call", "2", "proc"),
    _flow(0x25, "callc", "2", "cond_proc"),
    _flow(0x26, "callu", "3", "bool_proc"),
    _flow(0x27, "ifu", "3", "bool"),
    _flow(0x28, "ifc", "2", "cond"),
    _flow(0x29, "loop", "3l", "int"),  # picasso's "for"
    _flow(0x2A, "emit", "0", "none"),
    _flow(0x2B, "setemit", "4", "setemit"),
    _flow(0x2C, "jmpc", "2", "cond_label"),
    _flow(0x2D, "jmpu", "3", "bool_label"),
    OpcodeInfo(0x2E, "cmp", "1c", 5, 2, False, "cmp", MASK_12, DC_CMP),
    OpcodeInfo(0x30, "madi", "5i", 3, 3, True, "dst_src_src_src", MASK_D123, DC_PER_COMPONENT),
    OpcodeInfo(0x38, "mad", "5", 3, 3, False, "dst_src_src_src", MASK_D123, DC_PER_COMPONENT),
)

BY_MNEMONIC: dict[str, OpcodeInfo] = {row.mnemonic: row for row in OPCODES}
#: picasso spellings that are not row names, and the other way round
MNEMONIC_ALIASES = {"for": "loop"}
TEXT_MNEMONIC = {row: text for text, row in MNEMONIC_ALIASES.items()}


def _unknown(opcode: int) -> OpcodeInfo:
    return OpcodeInfo(opcode, f"unk{opcode:02x}", "0")


def _by_opcode6() -> tuple[OpcodeInfo, ...]:
    table = [_unknown(op6) for op6 in range(64)]
    for row in OPCODES:
        for op6 in range(row.opcode, row.opcode + (1 << (6 - row.opcode_bits))):
            table[op6] = row
    return tuple(table)


#: 6-bit opcode value -> row (CMP and MAD/MADI rows repeat over their ranges)
BY_OPCODE6: tuple[OpcodeInfo, ...] = _by_opcode6()


def _bits(spans: tuple[tuple[int, int], ...]) -> int:
    out = 0
    for lsb, width in spans:
        out |= ((1 << width) - 1) << lsb
    return out


def opcode_mask(info: OpcodeInfo) -> int:
    """The mask of the opcode field of ``info``."""
    return ((1 << info.opcode_bits) - 1) << info.shift


def field_mask(fmt: str) -> int:
    """The mask of every operand field of format ``fmt``."""
    return _bits(tuple((lsb, width) for _, lsb, width in FORMAT_FIELDS[fmt]))


def reserved_mask(fmt: str) -> int:
    """The mask of the bits format ``fmt`` leaves unused."""
    return _bits(RESERVED[fmt])


# -- encoders: one closure per row, built at import time -----------------------------------------
Encoder = Callable[[Mapping[str, int]], int]


def make_encoder(info: OpcodeInfo) -> Encoder:
    """A function building the word of ``info`` from operand values; it raises ValueError for unknown or too-wide values."""
    base = (info.opcode >> (6 - info.opcode_bits)) << info.shift
    specs = tuple((name, lsb, (1 << width) - 1) for name, lsb, width in info.fields)
    names = frozenset(name for name, _, _ in specs)
    mnemonic = info.mnemonic

    def encode_fields(values: Mapping[str, int]) -> int:
        word = base
        used = 0
        for name, lsb, mask in specs:
            value = values.get(name)
            if value is None:
                continue
            used += 1
            if value < 0 or value > mask:
                raise ValueError(f"{mnemonic}: field {name}={value} does not fit in "
                                 f"{mask.bit_length()} bits")
            word |= value << lsb
        if used != len(values):
            raise ValueError(f"{mnemonic}: no field {sorted(values.keys() - names)[0]!r}")
        return word

    return encode_fields


#: row -> encoder of its fields (the opcode bits come from the row); unknown opcodes included
ROW_ENCODERS: dict[OpcodeInfo, Encoder] = {row: make_encoder(row) for row in BY_OPCODE6}
#: mnemonic -> encoder of a known row
ENCODERS: dict[str, Encoder] = {row.mnemonic: ROW_ENCODERS[row] for row in OPCODES}


NUM_BITS = 8  # what the GPU reads
NUM_HI_BITS = 2  # picasso's bits 8-9 of NUM


def split_num(count: int) -> dict[str, int]:
    """picasso's 10-bit NUM as the ``num``/``num_hi`` fields (ValueError beyond 10 bits)."""
    if not 0 <= count < 1 << (NUM_BITS + NUM_HI_BITS):
        raise ValueError(f"NUM {count} does not fit in {NUM_BITS + NUM_HI_BITS} bits")
    return {"num": count & ((1 << NUM_BITS) - 1), "num_hi": count >> NUM_BITS}


def picasso_num(operands: Mapping[str, int]) -> int:
    """picasso's 10-bit NUM of decoded flow-control operands (the GPU reads ``num`` only)."""
    return operands.get("num", 0) | operands.get("num_hi", 0) << NUM_BITS


def encode_fields(mnemonic: str, **values: int) -> int:
    """The word of ``mnemonic`` with the given fields (others zero); ValueError when one does not fit."""
    return ENCODERS[mnemonic](values)


def field_spec(word: int, name: str) -> tuple[int, int]:
    """(lsb, mask) of field ``name`` in the form of ``word``'s opcode; KeyError when it has none."""
    for fname, lsb, width in BY_OPCODE6[(word >> 26) & 0x3F].fields:
        if fname == name:
            return lsb, (1 << width) - 1
    raise KeyError(name)


def replace_fields(word: int, **values: int) -> int:
    """``word`` with some fields set anew (relocations); ValueError when a value does not fit."""
    for name, value in values.items():
        lsb, mask = field_spec(word, name)
        if value < 0 or value > mask:
            raise ValueError(f"field {name}={value} does not fit in {mask.bit_length()} bits")
        word = (word & ~(mask << lsb)) | (value << lsb)
    return word & 0xFFFFFFFF


def self_check() -> list[str]:
    """Problems of the table (empty when sound): overlaps and bits no part of a form covers."""
    problems = []
    for fmt, fields in FORMAT_FIELDS.items():
        seen = 0
        for name, lsb, width in fields:
            bits = ((1 << width) - 1) << lsb
            if seen & bits:
                problems.append(f"form {fmt}: field {name} overlaps another field")
            seen |= bits
        if seen & reserved_mask(fmt):
            problems.append(f"form {fmt}: reserved bits overlap a field")
    for row in (*OPCODES, *BY_OPCODE6):
        parts = (opcode_mask(row), field_mask(row.fmt), reserved_mask(row.fmt))
        if parts[0] & (parts[1] | parts[2]):
            problems.append(f"{row.mnemonic}: opcode bits overlap its operand bits")
        if parts[0] | parts[1] | parts[2] != 0xFFFFFFFF:
            problems.append(f"{row.mnemonic}: bits {~(parts[0] | parts[1] | parts[2]) & 0xFFFFFFFF:#x} "
                            "are not covered")
    for op6, row in enumerate(BY_OPCODE6):
        if op6 >> (6 - row.opcode_bits) != row.opcode >> (6 - row.opcode_bits):
            problems.append(f"opcode {op6:#x}: decodes to {row.mnemonic} of another range")
    if len(BY_MNEMONIC) != len(OPCODES):
        problems.append("two rows share a mnemonic")
    return problems


# -- registers ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RegisterSpace:
    """One register file in picasso's register numbering (the assembler's operand values)."""

    prefix: str
    base: int  # picasso number of register 0
    count: int
    #: DVLE uniform-table index of register 0 (None: not a uniform space)
    table_base: int | None = None
    #: constant/uniform kind of the space (CONST_*; None for v/o/r)
    kind: int | None = None

    @property
    def end(self) -> int:
        """One past the last register index of this space."""
        return self.base + self.count


CONST_BOOL, CONST_IVEC, CONST_FVEC = 0, 1, 2
CONST_KIND_NAMES = {CONST_BOOL: "bool", CONST_IVEC: "ivec", CONST_FVEC: "fvec"}

#: picasso's register numbering: o/v 0x00, r 0x10, c 0x20, i 0x80, b 0x88
SPACES: dict[str, RegisterSpace] = {
    "v": RegisterSpace("v", 0x00, 16, 0x00),
    "o": RegisterSpace("o", 0x00, 16),
    "r": RegisterSpace("r", 0x10, 16),
    "c": RegisterSpace("c", 0x20, 96, 0x10, CONST_FVEC),
    "i": RegisterSpace("i", 0x80, 4, 0x70, CONST_IVEC),
    "b": RegisterSpace("b", 0x88, 16, 0x78, CONST_BOOL),
}
#: constant kind -> its register space
SPACE_OF_KIND = {space.kind: space for space in SPACES.values() if space.kind is not None}
REG_BASE = {prefix: space.base for prefix, space in SPACES.items()}
REG_LIMIT = {prefix: space.end for prefix, space in SPACES.items()}

#: 7-bit source register index: 0x00-0x0F v, 0x10-0x1F r, 0x20-0x7F c.
SRC_BANKS = tuple((s.prefix, s.base, s.end) for s in (SPACES["v"], SPACES["r"], SPACES["c"]))
#: 5-bit destination register index: 0x00-0x0F o, 0x10-0x1F r.
DST_BANKS = tuple((s.prefix, s.base, s.end) for s in (SPACES["o"], SPACES["r"]))
NARROW_SOURCE_END = SPACES["r"].end  # a 5-bit source reaches v and r only
DEST_END = SPACES["r"].end


def src_name(index: int) -> str:
    """``v3``, ``r0``, ``c12`` for a 7-bit source index."""
    for prefix, lo, hi in SRC_BANKS:
        if lo <= index < hi:
            return f"{prefix}{index - lo}"
    raise ValueError(f"source register index {index:#x} out of range")


def dst_name(index: int) -> str:
    """``o1`` or ``r5`` for a 5-bit destination index."""
    for prefix, lo, hi in DST_BANKS:
        if lo <= index < hi:
            return f"{prefix}{index - lo}"
    raise ValueError(f"destination register index {index:#x} out of range")


def uniform_space(table_index: int) -> RegisterSpace:
    """The space of a DVLE uniform-table register index (v 0x00, c 0x10, i 0x70, b 0x78)."""
    for prefix in ("b", "i", "c", "v"):
        space = SPACES[prefix]
        assert space.table_base is not None
        if table_index >= space.table_base:
            return space
    raise ValueError(f"uniform register index {table_index} out of range")


#: input registers picasso accepts by name: its parseReg refuses ``v15`` ("invalid input register"),
#: so v15 is only reached through an offset (``v14[1]``) or an automatic ``.in``
NAMED_INPUT_LIMIT = 15

#: relative addressing: idx field -> picasso register name
IDX_NAMES = ("", "a0.x", "a0.y", "aL")
#: accepted spellings (lower case) -> idx value (old names a0/a1/a2/lcnt included)
IDX_BY_NAME = {"a0.x": 1, "a0.y": 2, "al": 3, "a0": 1, "a1": 2, "a2": 3, "lcnt": 3}
#: MOVA destination: dest-mask bits -> text, and the accepted spellings
MOVA_TARGET_NAMES = {8: "a0.x", 4: "a0.y", 12: "a0.xy"}
#: descriptor dest-mask bits MOVA never reads (z, w: it writes a0.x and a0.y only). picasso compares
#: them when it merges descriptors, but a word using a pinned descriptor may carry any value there
MOVA_UNUSED_MASK = 0x3
MOVA_TARGETS = {"a0": 8, "a1": 4, "a01": 12, "a0.x": 8, "a0.y": 4, "a0.xy": 12}

# -- conditions ---------------------------------------------------------------------------------
CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge")  # 6 and 7 do not exist
#: condop field (form 2): 0 OR, 1 AND, 2 X only, 3 Y only
CONDOP_OR, CONDOP_AND, CONDOP_X, CONDOP_Y = 0, 1, 2, 3
#: SETEMIT flags: text -> field
SETEMIT_FLAGS = {"prim": "prim", "primitive": "prim", "inv": "winding", "invert": "winding"}
#: SETEMIT flags as printed, in order: (text, field)
SETEMIT_FLAG_TEXT = (("prim", "prim"), ("inv", "winding"))


def swizzle_comp(slot: int, comp: int) -> int:
    """The 8-bit swizzle value with ``comp`` (0-3) in ``slot`` (0 = first printed)."""
    return comp << (6 - slot * 2)


#: 8-bit swizzle -> its four letters; dest mask -> its letters (tables built at import)
SWIZZLE_TEXTS = tuple(a + b + c + d for a in COMPONENTS for b in COMPONENTS for c in COMPONENTS for d in COMPONENTS)
MASK_TEXTS = tuple("".join(c for i, c in enumerate(COMPONENTS) if mask & (8 >> i)) for mask in range(16))


def swizzle_text(swizzle: int) -> str:
    """Four component letters of an 8-bit swizzle (``xyzw`` for the identity)."""
    return SWIZZLE_TEXTS[swizzle & 0xFF]


def make_opdesc(dest_mask: int, src1: int, src2: int = 0, src3: int = 0) -> int:
    """Pack a descriptor from a dest mask and three 9-bit source fields (negate | swizzle<<1)."""
    return dest_mask | (src1 << SRC_SHIFT[0]) | (src2 << SRC_SHIFT[1]) | (src3 << SRC_SHIFT[2])


def opdesc_src(opdesc: int, which: int) -> tuple[bool, int]:
    """(negated, swizzle) of source ``which`` (1-3) in a descriptor."""
    field = (opdesc >> SRC_SHIFT[which - 1]) & 0x1FF
    return bool(field & 1), field >> 1


def mask_text(dest_mask: int) -> str:
    """``xyz`` for a destination mask (bit3 = x .. bit0 = w)."""
    return MASK_TEXTS[dest_mask & 0xF]


def _comp_bits(*slots: int) -> int:
    return sum(swizzle_comp(s, 3) for s in slots)


def dont_care_bits(info: OpcodeInfo, opdesc: int) -> int:
    """Descriptor bits ``info`` ignores for this descriptor (picasso's optimizeOpdesc)."""
    rule = info.dont_care
    u1 = u2 = u3 = 0
    if rule == DC_PER_COMPONENT:
        for slot in range(4):
            if not opdesc & (8 >> slot):
                u1 |= swizzle_comp(slot, 3)
        u2 = u3 = u1
    elif rule == DC_DP3:
        u1 = u2 = _comp_bits(3)
    elif rule == DC_DPH:
        u1 = _comp_bits(3)
    elif rule == DC_SCALAR:
        u1 = _comp_bits(1, 2, 3)
    elif rule == DC_MOVA:
        if not opdesc & 8:
            u1 |= _comp_bits(0)
        if not opdesc & 4:
            u1 |= _comp_bits(1)
        u1 |= _comp_bits(2, 3)
    elif rule == DC_CMP:
        u1 = _comp_bits(2, 3)
    return make_opdesc(0, u1 << 1, u2 << 1, u3 << 1)


# -- outputs, uniforms, constants (DVLE tables) -------------------------------------------------
OUTPUT_SEMANTICS = {0: "position", 1: "normalquat", 2: "color", 3: "texcoord0", 4: "texcoord0w",
                    5: "texcoord1", 6: "texcoord2", 8: "view", 9: "dummy"}
OUTPUT_SEMANTIC_BY_NAME = {
    "pos": 0, "position": 0, "nquat": 1, "normalquat": 1, "clr": 2, "color": 2,
    "tcoord0": 3, "texcoord0": 3, "tcoord0w": 4, "texcoord0w": 4, "tcoord1": 5, "texcoord1": 5,
    "tcoord2": 6, "texcoord2": 6, "view": 8, "dummy": 9,
}
SEMANTIC_DUMMY = 9
#: o0-o6 carry output attributes (o7 and up only dummy outputs; a geometry shader has o0-o6 only)
OUTPUT_SLOTS = 7

# -- picasso's limits -----------------------------------------------------------------------------
MAX_STACK = 32  # open blocks (procedure, if, for)
MAX_UNIFORM = 0x60  # uniform-table entries per DVLE
MAX_CONSTANT = 0x60  # constant-table entries per DVLE
MAX_OUTPUT = 16  # output-table entries per DVLE
MAX_VSH_SIZE = 512  # vertex code memory (words)

# -- text conventions -----------------------------------------------------------------------------
#: ``; shaderkit: DVLE n`` lines (written by ``disasm``) split one text into one source per DVLE
UNIT_MARKER = "; shaderkit: DVLE"
GSH_MODES = ("point", "variable", "fixed")
GSH_MODE_BY_NAME = {"point": 0, "variable": 1, "subdivision": 1, "fixed": 2, "particle": 2}

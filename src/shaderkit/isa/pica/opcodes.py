"""The PICA200 shader instruction set: ONE table read by decode, encode, text and the assembler.

Every 32-bit word has its opcode in the top bits (6 bits; CMP uses 5, MAD/MADI use 3). Each
format lists its operand fields as ``(name, lsb, width)``. Bits no field covers are kept by the
decoder as ``extra`` so that any word re-encodes to itself.
"""

from __future__ import annotations

from dataclasses import dataclass

# -- formats ------------------------------------------------------------------------------------
#: format -> operand fields (name, lsb, width); names follow the reference tables.
FORMAT_FIELDS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "0": (),
    "1": (("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2), ("dst", 21, 5)),
    "1i": (("desc", 0, 7), ("src2", 7, 7), ("src1", 14, 5), ("idx", 19, 2), ("dst", 21, 5)),
    "1u": (("desc", 0, 7), ("src1", 12, 7), ("idx", 19, 2), ("dst", 21, 5)),
    "1m": (("desc", 0, 7), ("src1", 12, 7), ("idx", 19, 2)),  # MOVA: no destination field
    "1c": (("desc", 0, 7), ("src2", 7, 5), ("src1", 12, 7), ("idx", 19, 2), ("cmpy", 21, 3),
           ("cmpx", 24, 3)),
    "2": (("num", 0, 8), ("dst", 10, 12), ("condop", 22, 2), ("refy", 24, 1), ("refx", 25, 1)),
    "3": (("num", 0, 8), ("dst", 10, 12), ("bool_id", 22, 4)),
    "3l": (("num", 0, 8), ("dst", 10, 12), ("int_id", 22, 2)),  # LOOP
    "4": (("winding", 22, 1), ("prim", 23, 1), ("vertex_id", 24, 2)),
    "5": (("desc", 0, 5), ("src3", 5, 5), ("src2", 10, 7), ("src1", 17, 5), ("idx", 22, 2),
          ("dst", 24, 5)),
    "5i": (("desc", 0, 5), ("src3", 5, 7), ("src2", 12, 5), ("src1", 17, 5), ("idx", 22, 2),
           ("dst", 24, 5)),
}

#: which source the relative-addressing index applies to, per format
IDX_SOURCE = {"1": "src1", "1u": "src1", "1m": "src1", "1c": "src1", "1i": "src2",
              "5": "src2", "5i": "src3"}

#: formats whose instructions use an operand descriptor
DESC_FORMATS = frozenset({"1", "1i", "1u", "1m", "1c", "5", "5i"})


@dataclass(frozen=True)
class OpcodeInfo:
    """One row of the opcode table."""

    opcode: int  # value of the top 6 bits (first of the range for CMP/MAD/MADI)
    mnemonic: str  # picasso spelling
    fmt: str
    opcode_bits: int = 6  # how many top bits are the opcode (CMP 5, MAD/MADI 3)
    sources: int = 0  # number of source operands (for the printer and assembler)
    inverted: bool = False  # the "i" forms: wide operand is the second source

    @property
    def shift(self) -> int:
        return 32 - self.opcode_bits

    @property
    def fields(self) -> tuple[tuple[str, int, int], ...]:
        return FORMAT_FIELDS[self.fmt]


def _row(opcode: int, mnemonic: str, fmt: str, sources: int = 0, bits: int = 6,
         inverted: bool = False) -> OpcodeInfo:
    return OpcodeInfo(opcode, mnemonic, fmt, bits, sources, inverted)


#: The table. Unknown opcodes (0x10, 0x11, 0x14-0x17, 0x1C-0x1F) decode as format "0" with
#: every operand bit kept in ``extra`` and print as raw words.
OPCODES: tuple[OpcodeInfo, ...] = (
    _row(0x00, "add", "1", 2),
    _row(0x01, "dp3", "1", 2),
    _row(0x02, "dp4", "1", 2),
    _row(0x03, "dph", "1", 2),
    _row(0x04, "dst", "1", 2),
    _row(0x05, "ex2", "1u", 1),
    _row(0x06, "lg2", "1u", 1),
    _row(0x07, "litp", "1u", 1),
    _row(0x08, "mul", "1", 2),
    _row(0x09, "sge", "1", 2),
    _row(0x0A, "slt", "1", 2),
    _row(0x0B, "flr", "1u", 1),
    _row(0x0C, "max", "1", 2),
    _row(0x0D, "min", "1", 2),
    _row(0x0E, "rcp", "1u", 1),
    _row(0x0F, "rsq", "1u", 1),
    _row(0x12, "mova", "1m", 1),
    _row(0x13, "mov", "1u", 1),
    _row(0x18, "dphi", "1i", 2, inverted=True),
    _row(0x19, "dsti", "1i", 2, inverted=True),
    _row(0x1A, "sgei", "1i", 2, inverted=True),
    _row(0x1B, "slti", "1i", 2, inverted=True),
    _row(0x20, "break", "0"),
    _row(0x21, "nop", "0"),
    _row(0x22, "end", "0"),
    _row(0x23, "breakc", "2"),
    _row(0x24, "call", "2"),
    _row(0x25, "callc", "2"),
    _row(0x26, "callu", "3"),
    _row(0x27, "ifu", "3"),
    _row(0x28, "ifc", "2"),
    _row(0x29, "loop", "3l"),
    _row(0x2A, "emit", "0"),
    _row(0x2B, "setemit", "4"),
    _row(0x2C, "jmpc", "2"),
    _row(0x2D, "jmpu", "3"),
    _row(0x2E, "cmp", "1c", 2, bits=5),
    _row(0x30, "madi", "5i", 3, bits=3, inverted=True),
    _row(0x38, "mad", "5", 3, bits=3),
)

BY_MNEMONIC: dict[str, OpcodeInfo] = {row.mnemonic: row for row in OPCODES}


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

#: base opcode -> its inverted form (picasso picks the inverted one when src1 is narrow)
INVERTED_FORM = {"dph": "dphi", "dst": "dsti", "sge": "sgei", "slt": "slti", "mad": "madi"}

# -- registers ----------------------------------------------------------------------------------
#: 7-bit source register index: 0x00-0x0F v, 0x10-0x1F r, 0x20-0x7F c.
SRC_BANKS = (("v", 0x00, 0x10), ("r", 0x10, 0x20), ("c", 0x20, 0x80))
#: 5-bit destination register index: 0x00-0x0F o, 0x10-0x1F r.
DST_BANKS = (("o", 0x00, 0x10), ("r", 0x10, 0x20))
#: Assembler register space (picasso's numbering): o/v 0x00, r 0x10, c 0x20, i 0x80, b 0x88.
REG_BASE = {"o": 0x00, "v": 0x00, "r": 0x10, "c": 0x20, "i": 0x80, "b": 0x88}
REG_LIMIT = {"o": 0x10, "v": 0x10, "r": 0x20, "c": 0x80, "i": 0x84, "b": 0x98}


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


#: relative addressing: idx field -> picasso register name
IDX_NAMES = ("", "a0.x", "a0.y", "aL")
#: accepted spellings (lower case) -> idx value (old names a0/a1/a2/lcnt included)
IDX_BY_NAME = {"a0.x": 1, "a0.y": 2, "al": 3, "a0": 1, "a1": 2, "a2": 3, "lcnt": 3}

# -- conditions ---------------------------------------------------------------------------------
CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge")  # 6 and 7 do not exist
#: condop field (format 2): 0 OR, 1 AND, 2 X only, 3 Y only
CONDOP_OR, CONDOP_AND, CONDOP_X, CONDOP_Y = 0, 1, 2, 3

# -- operand descriptors ------------------------------------------------------------------------
COMPONENTS = "xyzw"
SWIZZLE_ALIASES = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3,
                   "s": 0, "t": 1, "p": 2, "q": 3}
IDENTITY_SWIZZLE = 0x1B  # x y z w, comp0 in the top two bits
#: descriptor bit layout: dest mask 0-3 (bit3 = x), then per source 9 bits = negate + 8 swizzle
DESC_DEST_MASK = 0xF
SRC_SHIFT = (4, 13, 22)  # src1, src2, src3 (negate bit; swizzle at +1)
DEFAULT_OPSRC = IDENTITY_SWIZZLE << 1  # a source with identity swizzle and no negation
MASK_D123 = 0xF | (0x1FF << 4) | (0x1FF << 13) | (0x1FF << 22)
MASK_D12 = 0xF | (0x1FF << 4) | (0x1FF << 13)
MASK_D1 = 0xF | (0x1FF << 4)
MASK_12 = (0x1FF << 4) | (0x1FF << 13)

MAX_OPDESC = 128
MAX_MAD_OPDESC = 32


def swizzle_comp(slot: int, comp: int) -> int:
    """The 8-bit swizzle value with ``comp`` (0-3) in ``slot`` (0 = first printed)."""
    return comp << (6 - slot * 2)


def swizzle_text(swizzle: int) -> str:
    """Four component letters of an 8-bit swizzle (``xyzw`` for the identity)."""
    return "".join(COMPONENTS[(swizzle >> (6 - 2 * slot)) & 3] for slot in range(4))


def make_opdesc(dest_mask: int, src1: int, src2: int = 0, src3: int = 0) -> int:
    """Pack a descriptor from a dest mask and three 9-bit source fields (negate | swizzle<<1)."""
    return dest_mask | (src1 << 4) | (src2 << 13) | (src3 << 22)


def opdesc_src(opdesc: int, which: int) -> tuple[bool, int]:
    """(negated, swizzle) of source ``which`` (1-3) in a descriptor."""
    field = (opdesc >> SRC_SHIFT[which - 1]) & 0x1FF
    return bool(field & 1), field >> 1


def mask_text(dest_mask: int) -> str:
    """``xyz`` for a destination mask (bit3 = x .. bit0 = w)."""
    return "".join(c for i, c in enumerate(COMPONENTS) if dest_mask & (8 >> i))


# -- outputs, uniforms, constants (DVLE tables) -------------------------------------------------
OUTPUT_SEMANTICS = {0: "position", 1: "normalquat", 2: "color", 3: "texcoord0", 4: "texcoord0w",
                    5: "texcoord1", 6: "texcoord2", 8: "view", 9: "dummy"}
OUTPUT_SEMANTIC_BY_NAME = {
    "pos": 0, "position": 0, "nquat": 1, "normalquat": 1, "clr": 2, "color": 2,
    "tcoord0": 3, "texcoord0": 3, "tcoord0w": 4, "texcoord0w": 4, "tcoord1": 5, "texcoord1": 5,
    "tcoord2": 6, "texcoord2": 6, "view": 8, "dummy": 9,
}
CONST_BOOL, CONST_IVEC, CONST_FVEC = 0, 1, 2
GSH_MODES = ("point", "variable", "fixed")
GSH_MODE_BY_NAME = {"point": 0, "variable": 1, "subdivision": 1, "fixed": 2, "particle": 2}

"""The Latte (R600/R700, Wii U GPU7) instruction set: ONE table read by decode, encode, text and asm.

Facts from AMD's "R700-Family Instruction Set Architecture" and "R600/R700/Evergreen Assembly
Language Format" and decaf-emu's ``latte_instructions_def.inl`` (names, values, source counts,
unit flags). Every 64-bit slot is two little-endian 32-bit words; each word format lists its
fields as ``(name, lsb, width)``; :func:`layout` adds ``RESERVED<lsb>`` fields for the bits no
named field covers, so every bit of every word belongs to exactly one field.
"""

from __future__ import annotations

from shaderkit.dataclass import dataclass

Field = tuple[str, int, int]


def layout(*fields: Field) -> tuple[Field, ...]:
    """The fields of one 32-bit word, with RESERVED<lsb> fields filling every gap (checked)."""
    used = 0
    for name, lsb, width in fields:
        mask = ((1 << width) - 1) << lsb
        if used & mask or lsb + width > 32:
            raise ValueError(f"field {name} overlaps or overflows")
        used |= mask
    out = list(fields)
    bit = 0
    while bit < 32:
        if used >> bit & 1:
            bit += 1
            continue
        end = bit
        while end < 32 and not used >> end & 1:
            end += 1
        out.append((f"RESERVED{bit}", bit, end - bit))
        bit = end
    return tuple(sorted(out, key=lambda f: f[1]))


def field_value(word: int, layout_: tuple[Field, ...], name: str) -> int:
    """The value of field ``name`` of ``layout_`` in ``word`` (for one field; whole words go
    through :func:`shaderkit.isa.latte.words.unpacker`)."""
    for fname, lsb, width in layout_:
        if fname == name:
            return word >> lsb & ((1 << width) - 1)
    raise KeyError(name)


def field_width(layout_: tuple[Field, ...], name: str) -> int:
    """The width in bits of field ``name`` of ``layout_``."""
    for fname, _, width in layout_:
        if fname == name:
            return width
    raise KeyError(name)


def signed(value: int, bits: int) -> int:
    """``value`` read as a two's complement number of ``bits`` bits."""
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


# -- control flow (CF) words --------------------------------------------------------------------
#: CF_INST_TYPE: word 1 bits 28-29 (the top two bits of every CF word format's CF_INST) say which
#: CF word format a slot uses; read it with :func:`cf_inst_type`
CF_INST_TYPE = layout(("CF_INST_TYPE", 28, 2))
CF_TYPE_NORMAL, CF_TYPE_EXPORT, CF_TYPE_ALU, CF_TYPE_ALU_EXTENDED = 0, 1, 2, 3


def cf_inst_type(word1: int) -> int:
    """CF_INST_TYPE of a CF slot's second word (CF_TYPE_NORMAL / _EXPORT / _ALU / _ALU_EXTENDED)."""
    return field_value(word1, CF_INST_TYPE, "CF_INST_TYPE")


CF_WORD0 = layout(("ADDR", 0, 32))
CF_WORD1 = layout(
    ("POP_COUNT", 0, 3), ("CF_CONST", 3, 5), ("COND", 8, 2), ("COUNT", 10, 3),
    ("CALL_COUNT", 13, 6), ("COUNT_3", 19, 1), ("END_OF_PROGRAM", 21, 1),
    ("VALID_PIXEL_MODE", 22, 1), ("CF_INST", 23, 7), ("WHOLE_QUAD_MODE", 30, 1), ("BARRIER", 31, 1))
CF_ALU_WORD0 = layout(
    ("ADDR", 0, 22), ("KCACHE_BANK0", 22, 4), ("KCACHE_BANK1", 26, 4), ("KCACHE_MODE0", 30, 2))
CF_ALU_WORD1 = layout(
    ("KCACHE_MODE1", 0, 2), ("KCACHE_ADDR0", 2, 8), ("KCACHE_ADDR1", 10, 8), ("COUNT", 18, 7),
    ("ALT_CONST", 25, 1), ("CF_INST", 26, 4), ("WHOLE_QUAD_MODE", 30, 1), ("BARRIER", 31, 1))
CF_EXP_WORD0 = layout(
    ("ARRAY_BASE", 0, 13), ("TYPE", 13, 2), ("RW_GPR", 15, 7), ("RW_REL", 22, 1),
    ("INDEX_GPR", 23, 7), ("ELEM_SIZE", 30, 2))
_CF_EXP_COMMON: tuple[Field, ...] = (
    ("BURST_COUNT", 17, 4), ("END_OF_PROGRAM", 21, 1), ("VALID_PIXEL_MODE", 22, 1),
    ("CF_INST", 23, 7), ("WHOLE_QUAD_MODE", 30, 1), ("BARRIER", 31, 1))
#: word 1 of PIXEL/POS/PARAM exports (EXP, EXP_DONE)
CF_EXP_WORD1_SWIZ = layout(("SEL_X", 0, 3), ("SEL_Y", 3, 3), ("SEL_Z", 6, 3), ("SEL_W", 9, 3),
                           *_CF_EXP_COMMON)
#: word 1 of memory exports (scratch, ring, stream, reduction buffers)
CF_EXP_WORD1_BUF = layout(("ARRAY_SIZE", 0, 12), ("COMP_MASK", 12, 4), *_CF_EXP_COMMON)

# -- ALU clause words ---------------------------------------------------------------------------
ALU_WORD0 = layout(
    ("SRC0_SEL", 0, 9), ("SRC0_REL", 9, 1), ("SRC0_CHAN", 10, 2), ("SRC0_NEG", 12, 1),
    ("SRC1_SEL", 13, 9), ("SRC1_REL", 22, 1), ("SRC1_CHAN", 23, 2), ("SRC1_NEG", 25, 1),
    ("INDEX_MODE", 26, 3), ("PRED_SEL", 29, 2), ("LAST", 31, 1))
_ALU_DST: tuple[Field, ...] = (
    ("BANK_SWIZZLE", 18, 3), ("DST_GPR", 21, 7), ("DST_REL", 28, 1), ("DST_CHAN", 29, 2),
    ("CLAMP", 31, 1))
#: ALU_WORD1 bits 15-17 (ENCODING) are 0 for OP2; OP2_INST (11 bits) includes them
ALU_WORD1_OP2 = layout(
    ("SRC0_ABS", 0, 1), ("SRC1_ABS", 1, 1), ("UPDATE_EXECUTE_MASK", 2, 1), ("UPDATE_PRED", 3, 1),
    ("WRITE_MASK", 4, 1), ("OMOD", 5, 2), ("OP2_INST", 7, 11), *_ALU_DST)
#: OP3 when ENCODING != 0; OP3_INST (5 bits) includes ENCODING, so OP3 opcodes are >= 4
ALU_WORD1_OP3 = layout(
    ("SRC2_SEL", 0, 9), ("SRC2_REL", 9, 1), ("SRC2_CHAN", 10, 2), ("SRC2_NEG", 12, 1),
    ("OP3_INST", 13, 5), *_ALU_DST)
ALU_ENCODING_LSB = 15  # word 1 bits 15-17: 0 = OP2

# -- fetch clause words (16 bytes per instruction: three words and a padding word) --------------
TEX_WORD0 = layout(
    ("TEX_INST", 0, 5), ("BC_FRAC_MODE", 5, 1), ("FETCH_WHOLE_QUAD", 7, 1), ("RESOURCE_ID", 8, 8),
    ("SRC_GPR", 16, 7), ("SRC_REL", 23, 1), ("ALT_CONST", 24, 1))
TEX_WORD1 = layout(
    ("DST_GPR", 0, 7), ("DST_REL", 7, 1), ("DST_SEL_X", 9, 3), ("DST_SEL_Y", 12, 3),
    ("DST_SEL_Z", 15, 3), ("DST_SEL_W", 18, 3), ("LOD_BIAS", 21, 7), ("COORD_TYPE_X", 28, 1),
    ("COORD_TYPE_Y", 29, 1), ("COORD_TYPE_Z", 30, 1), ("COORD_TYPE_W", 31, 1))
TEX_WORD2 = layout(
    ("OFFSET_X", 0, 5), ("OFFSET_Y", 5, 5), ("OFFSET_Z", 10, 5), ("SAMPLER_ID", 15, 5),
    ("SRC_SEL_X", 20, 3), ("SRC_SEL_Y", 23, 3), ("SRC_SEL_Z", 26, 3), ("SRC_SEL_W", 29, 3))
FETCH_WORD3 = layout(("PADDING", 0, 32))
#: signed fixed-point fields of texture fetches: units per 1.0 (LOD_BIAS in 1/8, offsets in 1/2 texel)
TEX_FIXED_SCALE = {"LOD_BIAS": 8, "OFFSET_X": 2, "OFFSET_Y": 2, "OFFSET_Z": 2}


def tex_fixed(name: str, value: int) -> float:
    """The value of a signed fixed-point texture field (``TEX_FIXED_SCALE``) from its raw bits."""
    lay = TEX_WORD1 if name == "LOD_BIAS" else TEX_WORD2
    return signed(value, field_width(lay, name)) / TEX_FIXED_SCALE[name]


VTX_WORD0 = layout(
    ("VTX_INST", 0, 5), ("FETCH_TYPE", 5, 2), ("FETCH_WHOLE_QUAD", 7, 1), ("BUFFER_ID", 8, 8),
    ("SRC_GPR", 16, 7), ("SRC_REL", 23, 1), ("SRC_SEL_X", 24, 2), ("MEGA_FETCH_COUNT", 26, 6))
_VTX_WORD1_COMMON: tuple[Field, ...] = (
    ("DST_SEL_X", 9, 3), ("DST_SEL_Y", 12, 3), ("DST_SEL_Z", 15, 3), ("DST_SEL_W", 18, 3),
    ("USE_CONST_FIELDS", 21, 1), ("DATA_FORMAT", 22, 6), ("NUM_FORMAT_ALL", 28, 2),
    ("FORMAT_COMP_ALL", 30, 1), ("SRF_MODE_ALL", 31, 1))
VTX_WORD1_GPR = layout(("DST_GPR", 0, 7), ("DST_REL", 7, 1), *_VTX_WORD1_COMMON)
VTX_WORD1_SEM = layout(("SEMANTIC_ID", 0, 8), *_VTX_WORD1_COMMON)
VTX_WORD2 = layout(
    ("OFFSET", 0, 16), ("ENDIAN_SWAP", 16, 2), ("CONST_BUF_NO_STRIDE", 18, 1), ("MEGA_FETCH", 19, 1),
    ("ALT_CONST", 20, 1))


# -- opcodes ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AluOp:
    """One ALU opcode: name, value, source count and unit flags.

    flags: V vector units, T transcendental unit, R reduction (all four vector units),
    P predicate set, i/I int in/out, u/U uint in/out.
    """

    name: str
    value: int
    srcs: int
    flags: str

    @property
    def trans_only(self) -> bool:
        """True when the opcode runs only in the transcendental (t) slot."""
        return "T" in self.flags and "V" not in self.flags

    @property
    def vector_only(self) -> bool:
        """True when the opcode runs only in the vector (x, y, z, w) slots."""
        return "V" in self.flags and "T" not in self.flags


#: CF_INST of CF_TYPE_NORMAL slots (7 bits including the type)
CF_INST: tuple[tuple[str, int], ...] = (
    ('NOP', 0x00),
    ('TEX', 0x01),
    ('VTX', 0x02),
    ('VTX_TC', 0x03),
    ('LOOP_START', 0x04),
    ('LOOP_END', 0x05),
    ('LOOP_START_DX10', 0x06),
    ('LOOP_START_NO_AL', 0x07),
    ('LOOP_CONTINUE', 0x08),
    ('LOOP_BREAK', 0x09),
    ('JUMP', 0x0A),
    ('PUSH', 0x0B),
    ('PUSH_ELSE', 0x0C),
    ('ELSE', 0x0D),
    ('POP', 0x0E),
    ('POP_JUMP', 0x0F),
    ('POP_PUSH', 0x10),
    ('POP_PUSH_ELSE', 0x11),
    ('CALL', 0x12),
    ('CALL_FS', 0x13),
    ('RETURN', 0x14),
    ('EMIT_VERTEX', 0x15),
    ('EMIT_CUT_VERTEX', 0x16),
    ('CUT_VERTEX', 0x17),
    ('KILL', 0x18),
    ('END_PROGRAM', 0x19),
    ('WAIT_ACK', 0x1A),
    ('TEX_ACK', 0x1B),
    ('VTX_ACK', 0x1C),
    ('VTX_TC_ACK', 0x1D),
)
#: CF_INST of export slots (7 bits including the type)
EXP_INST: tuple[tuple[str, int], ...] = (
    ('MEM_STREAM0', 0x20),
    ('MEM_STREAM1', 0x21),
    ('MEM_STREAM2', 0x22),
    ('MEM_STREAM3', 0x23),
    ('MEM_SCRATCH', 0x24),
    ('MEM_REDUCTION', 0x25),
    ('MEM_RING', 0x26),
    ('EXP', 0x27),
    ('EXP_DONE', 0x28),
    ('MEM_EXPORT', 0x3A),
)
#: CF_INST of ALU clause slots (4 bits including the type)
CF_ALU_INST: tuple[tuple[str, int], ...] = (
    ('ALU', 0x08),
    ('ALU_PUSH_BEFORE', 0x09),
    ('ALU_POP_AFTER', 0x0A),
    ('ALU_POP2_AFTER', 0x0B),
    ('ALU_EXT', 0x0C),
    ('ALU_CONTINUE', 0x0D),
    ('ALU_BREAK', 0x0E),
    ('ALU_ELSE_AFTER', 0x0F),
)
_OP2_ROWS: tuple[tuple[str, int, int, str], ...] = (
    ('ADD', 0x00, 2, "VT"),
    ('MUL', 0x01, 2, "VT"),
    ('MUL_IEEE', 0x02, 2, "VT"),
    ('MAX', 0x03, 2, "VT"),
    ('MIN', 0x04, 2, "VT"),
    ('MAX_DX10', 0x05, 2, "VT"),
    ('MIN_DX10', 0x06, 2, "VT"),
    ('FREXP_64', 0x07, 1, "VR"),
    ('SETE', 0x08, 2, "VT"),
    ('SETGT', 0x09, 2, "VT"),
    ('SETGE', 0x0A, 2, "VT"),
    ('SETNE', 0x0B, 2, "VT"),
    ('SETE_DX10', 0x0C, 2, "VTI"),
    ('SETGT_DX10', 0x0D, 2, "VTI"),
    ('SETGE_DX10', 0x0E, 2, "VTI"),
    ('SETNE_DX10', 0x0F, 2, "VTI"),
    ('FRACT', 0x10, 1, "VT"),
    ('TRUNC', 0x11, 1, "VT"),
    ('CEIL', 0x12, 1, "VT"),
    ('RNDNE', 0x13, 1, "VT"),
    ('FLOOR', 0x14, 1, "VT"),
    ('MOVA', 0x15, 1, "VI"),
    ('MOVA_FLOOR', 0x16, 1, "VI"),
    ('ADD_64', 0x17, 2, "VT"),
    ('MOVA_INT', 0x18, 1, "ViI"),
    ('MOV', 0x19, 1, "VT"),
    ('NOP', 0x1A, 0, "VT"),
    ('MUL_64', 0x1B, 2, "VR"),
    ('FLT64_TO_FLT32', 0x1C, 1, "VR"),
    ('FLT32_TO_FLT64', 0x1D, 1, "VR"),
    ('PRED_SETGT_UINT', 0x1E, 2, "VTPuU"),
    ('PRED_SETGE_UINT', 0x1F, 2, "VTPuU"),
    ('PRED_SETE', 0x20, 2, "VTP"),
    ('PRED_SETGT', 0x21, 2, "VTP"),
    ('PRED_SETGE', 0x22, 2, "VTP"),
    ('PRED_SETNE', 0x23, 2, "VTP"),
    ('PRED_SET_INV', 0x24, 2, "VTP"),
    ('PRED_SET_POP', 0x25, 2, "VTP"),
    ('PRED_SET_CLR', 0x26, 2, "VTP"),
    ('PRED_SET_RESTORE', 0x27, 2, "VTP"),
    ('PRED_SETE_PUSH', 0x28, 2, "VTP"),
    ('PRED_SETGT_PUSH', 0x29, 2, "VTP"),
    ('PRED_SETGE_PUSH', 0x2A, 2, "VTP"),
    ('PRED_SETNE_PUSH', 0x2B, 2, "VTP"),
    ('KILLE', 0x2C, 2, "VT"),
    ('KILLGT', 0x2D, 2, "VT"),
    ('KILLGE', 0x2E, 2, "VT"),
    ('KILLNE', 0x2F, 2, "VT"),
    ('AND_INT', 0x30, 2, "VTiI"),
    ('OR_INT', 0x31, 2, "VTiI"),
    ('XOR_INT', 0x32, 2, "VTiI"),
    ('NOT_INT', 0x33, 2, "VTiI"),
    ('ADD_INT', 0x34, 2, "VTiI"),
    ('SUB_INT', 0x35, 2, "VTiI"),
    ('MAX_INT', 0x36, 2, "VTiI"),
    ('MIN_INT', 0x37, 2, "VTiI"),
    ('MAX_UINT', 0x38, 2, "VTuU"),
    ('MIN_UINT', 0x39, 2, "VTuU"),
    ('SETE_INT', 0x3A, 2, "VTiI"),
    ('SETGT_INT', 0x3B, 2, "VTiI"),
    ('SETGE_INT', 0x3C, 2, "VTiI"),
    ('SETNE_INT', 0x3D, 2, "VTiI"),
    ('SETGT_UINT', 0x3E, 2, "VTuU"),
    ('SETGE_UINT', 0x3F, 2, "VTuU"),
    ('KILLGT_UINT', 0x40, 2, "VTuU"),
    ('KILLGE_UINT', 0x41, 2, "VTuU"),
    ('PRED_SETE_INT', 0x42, 2, "VTPiI"),
    ('PRED_SETGT_INT', 0x43, 2, "VTPiI"),
    ('PRED_SETGE_INT', 0x44, 2, "VTPiI"),
    ('PRED_SETNE_INT', 0x45, 2, "VTPiI"),
    ('KILLE_INT', 0x46, 2, "VTiI"),
    ('KILLGT_INT', 0x47, 2, "VTiI"),
    ('KILLGE_INT', 0x48, 2, "VTiI"),
    ('KILLNE_INT', 0x49, 2, "VTiI"),
    ('PRED_SETE_PUSH_INT', 0x4A, 2, "VTPiI"),
    ('PRED_SETGT_PUSH_INT', 0x4B, 2, "VTPiI"),
    ('PRED_SETGE_PUSH_INT', 0x4C, 2, "VTPiI"),
    ('PRED_SETNE_PUSH_INT', 0x4D, 2, "VTPiI"),
    ('PRED_SETLT_PUSH_INT', 0x4E, 2, "VTPiI"),
    ('PRED_SETLE_PUSH_INT', 0x4F, 2, "VTPiI"),
    ('DOT4', 0x50, 2, "VR"),
    ('DOT4_IEEE', 0x51, 2, "VR"),
    ('CUBE', 0x52, 2, "VR"),
    ('MAX4', 0x53, 2, "VR"),
    ('GROUP_BARRIER', 0x54, 2, "VT"),
    ('GROUP_SEQ_BEGIN', 0x55, 2, "VT"),
    ('GROUP_SEQ_END', 0x56, 2, "VT"),
    ('SET_MODE', 0x57, 0, "VT"),
    ('SET_CF_IDX0', 0x58, 0, "VT"),
    ('SET_CF_IDX1', 0x59, 0, "VT"),
    ('SET_LDS_SIZE', 0x5A, 2, "VT"),
    ('MUL_INT24', 0x5B, 2, "VT"),
    ('MULHI_INT24', 0x5C, 2, "VT"),
    ('MOVA_GPR_INT', 0x60, 2, "ViI"),
    ('EXP_IEEE', 0x61, 1, "T"),
    ('LOG_CLAMPED', 0x62, 1, "T"),
    ('LOG_IEEE', 0x63, 1, "T"),
    ('RECIP_CLAMPED', 0x64, 1, "T"),
    ('RECIP_FF', 0x65, 1, "T"),
    ('RECIP_IEEE', 0x66, 1, "T"),
    ('RECIPSQRT_CLAMPED', 0x67, 1, "T"),
    ('RECIPSQRT_FF', 0x68, 1, "T"),
    ('RECIPSQRT_IEEE', 0x69, 1, "T"),
    ('SQRT_IEEE', 0x6A, 1, "T"),
    ('FLT_TO_INT', 0x6B, 1, "TI"),
    ('INT_TO_FLT', 0x6C, 1, "Ti"),
    ('UINT_TO_FLT', 0x6D, 1, "Tu"),
    ('SIN', 0x6E, 1, "T"),
    ('COS', 0x6F, 1, "T"),
    ('ASHR_INT', 0x70, 2, "VTiI"),
    ('LSHR_INT', 0x71, 2, "VTiI"),
    ('LSHL_INT', 0x72, 2, "VTiI"),
    ('MULLO_INT', 0x73, 2, "TiI"),
    ('MULHI_INT', 0x74, 2, "TiI"),
    ('MULLO_UINT', 0x75, 2, "TuU"),
    ('MULHI_UINT', 0x76, 2, "TuU"),
    ('RECIP_INT', 0x77, 1, "TiI"),
    ('RECIP_UINT', 0x78, 1, "TuU"),
    ('FLT_TO_UINT', 0x79, 1, "TU"),
    ('LDEXP_64', 0x7A, 2, "VR"),
    ('FRACT_64', 0x7B, 1, "VR"),
    ('PRED_SETGT_64', 0x7C, 2, "VRP"),
    ('PRED_SETE_64', 0x7D, 2, "VRP"),
    ('PRED_SETGE_64', 0x7E, 2, "VRP"),
)
_OP3_ROWS: tuple[tuple[str, int, int, str], ...] = (
    ('BFE_UINT', 0x04, 3, "VTuU"),
    ('BFE_INT', 0x05, 3, "VTiI"),
    ('BFI_INT', 0x06, 3, "VTiI"),
    ('FMA', 0x07, 3, "VT"),
    ('MULADD_64', 0x08, 3, "VR"),
    ('MULADD_64_M2', 0x09, 3, "VR"),
    ('MULADD_64_M4', 0x0A, 3, "VR"),
    ('MULADD_64_D2', 0x0B, 3, "VR"),
    ('MUL_LIT', 0x0C, 3, "T"),
    ('MUL_LIT_M2', 0x0D, 3, "T"),
    ('MUL_LIT_M4', 0x0E, 3, "T"),
    ('MUL_LIT_D2', 0x0F, 3, "T"),
    ('MULADD', 0x10, 3, "VT"),
    ('MULADD_M2', 0x11, 3, "VT"),
    ('MULADD_M4', 0x12, 3, "VT"),
    ('MULADD_D2', 0x13, 3, "VT"),
    ('MULADD_IEEE', 0x14, 3, "VT"),
    ('MULADD_IEEE_M2', 0x15, 3, "VT"),
    ('MULADD_IEEE_M4', 0x16, 3, "VT"),
    ('MULADD_IEEE_D2', 0x17, 3, "VT"),
    ('CNDE', 0x18, 3, "VT"),
    ('CNDGT', 0x19, 3, "VT"),
    ('CNDGE', 0x1A, 3, "VT"),
    ('CNDE_INT', 0x1C, 3, "VTiI"),
    ('CNDGT_INT', 0x1D, 3, "VTiI"),
    ('CNDGE_INT', 0x1E, 3, "VTiI"),
)
OP2: tuple[AluOp, ...] = tuple(AluOp(*row) for row in _OP2_ROWS)
OP3: tuple[AluOp, ...] = tuple(AluOp(*row) for row in _OP3_ROWS)
#: TEX_INST of texture fetch instructions (VTX_FETCH/VTX_SEMANTIC use the vertex format). TEX_INST
#: is 5 bits on R600/R700, so the Evergreen opcodes from 0x20 on (SET_TEXTURE_OFFSETS, GATHER4*,
#: GET_BUFFER_RESINFO) cannot be encoded and are not listed.
TEX_INST: tuple[tuple[str, int], ...] = (
    ('VTX_FETCH', 0x00),
    ('VTX_SEMANTIC', 0x01),
    ('MEM', 0x02),
    ('LD', 0x03),
    ('GET_TEXTURE_INFO', 0x04),
    ('GET_SAMPLE_INFO', 0x05),
    ('GET_COMP_TEX_LOD', 0x06),
    ('GET_GRADIENTS_H', 0x07),
    ('GET_GRADIENTS_V', 0x08),
    ('GET_LERP', 0x09),
    ('KEEP_GRADIENTS', 0x0A),
    ('SET_GRADIENTS_H', 0x0B),
    ('SET_GRADIENTS_V', 0x0C),
    ('PASS', 0x0D),
    ('SET_CUBEMAP_INDEX', 0x0E),
    ('FETCH4', 0x0F),
    ('SAMPLE', 0x10),
    ('SAMPLE_L', 0x11),
    ('SAMPLE_LB', 0x12),
    ('SAMPLE_LZ', 0x13),
    ('SAMPLE_G', 0x14),
    ('SAMPLE_G_L', 0x15),
    ('SAMPLE_G_LB', 0x16),
    ('SAMPLE_G_LZ', 0x17),
    ('SAMPLE_C', 0x18),
    ('SAMPLE_C_L', 0x19),
    ('SAMPLE_C_LB', 0x1A),
    ('SAMPLE_C_LZ', 0x1B),
    ('SAMPLE_C_G', 0x1C),
    ('SAMPLE_C_G_L', 0x1D),
    ('SAMPLE_C_G_LB', 0x1E),
    ('SAMPLE_C_G_LZ', 0x1F),
)
VTX_INST: tuple[tuple[str, int], ...] = (
    ('FETCH', 0x00),
    ('SEMANTIC', 0x01),
    ('BUFINFO', 0x0E),
)
#: MEM_INST of memory read instructions (R700 MEM_RD words); listed for completeness
MEM_INST: tuple[tuple[str, int], ...] = (
    ('RD_SCRATCH', 0x00),
    ('RD_REDUC', 0x01),
    ('RD_SCATTER', 0x02),
    ('LOCAL_DS_WRITE', 0x04),
    ('LOCAL_DS_READ', 0x05),
    ('DS_GLOBAL_WRITE', 0x06),
    ('DS_GLOBAL_READ', 0x07),
    ('MEM_GDS', 0x08),
    ('TF_WRITE', 0x09),
)

#: how the text of each normal CF instruction is formed (keys of the printer's CF renderers)
CF_TEXT_KIND: dict[str, str] = {
    "TEX": "tex", "VTX": "vtx", "VTX_TC": "vtx",
    "LOOP_START": "loop", "LOOP_START_DX10": "loop", "LOOP_START_NO_AL": "loop",
    "LOOP_END": "loop", "LOOP_CONTINUE": "loop", "LOOP_BREAK": "loop",
    "JUMP": "jump", "ELSE": "jump", "CALL": "jump", "CALL_FS": "jump", "RETURN": "jump",
    "POP_JUMP": "jump",
    "EMIT_VERTEX": "emit", "EMIT_CUT_VERTEX": "emit", "CUT_VERTEX": "emit",
    "PUSH": "push", "PUSH_ELSE": "push", "KILL": "push",
    "POP": "pop", "POP_PUSH": "pop", "POP_PUSH_ELSE": "pop",
    "END_PROGRAM": "none", "NOP": "none",
}
#: loop instructions whose CF_CONST is printed even without a condition
LOOP_CONST_ALWAYS = frozenset({"LOOP_START", "LOOP_END"})
#: loop instructions and the name of their ADDR in the text
LOOP_ADDR_NAME: dict[str, str] = {
    "LOOP_START": "FAIL_JUMP_ADDR", "LOOP_START_DX10": "FAIL_JUMP_ADDR",
    "LOOP_START_NO_AL": "FAIL_JUMP_ADDR", "LOOP_CONTINUE": "ADDR", "LOOP_BREAK": "ADDR",
    "LOOP_END": "PASS_JUMP_ADDR",
}
#: jump-class instructions that print ADDR
JUMP_WITH_ADDR = frozenset({"CALL", "ELSE", "JUMP"})
#: CF COND values (0 = ACTIVE prints nothing)
CF_COND = {1: "FALSE", 2: "BOOL", 3: "NOT_BOOL"}
#: KCACHE_MODE: NOP, LOCK_1 (16 constants), LOCK_2 (32), LOCK_LOOP_INDEX (32, AL-relative)
KCACHE_NOP, KCACHE_LOCK_1, KCACHE_LOCK_2, KCACHE_LOCK_LOOP_INDEX = 0, 1, 2, 3
KCACHE_SPAN = {KCACHE_LOCK_1: 16, KCACHE_LOCK_2: 32, KCACHE_LOCK_LOOP_INDEX: 32}

# -- ALU operands -------------------------------------------------------------------------------
ALU_SRC_GPR_LAST = 127
ALU_SRC_KCACHE0 = 128  # 128-159: KC0[n]
ALU_SRC_KCACHE1 = 160  # 160-191: KC1[n]
ALU_SRC_CFILE = 256  # 256-511: C[n] (uniform registers)
ALU_SRC_IMM_1_INT = 250
ALU_SRC_LITERAL = 253
ALU_SRC_PV = 254
ALU_SRC_PS = 255
#: special ALU source selects; those with a channel in the text are marked in ALU_SRC_CHANNEL
ALU_SRC_NAMES: dict[int, str] = {
    219: "LDS_OQ_A", 220: "LDS_OQ_B", 221: "LDS_OQ_A_POP", 222: "LDS_OQ_B_POP",
    223: "LDS_DIRECT_A", 224: "LDS_DIRECT_B", 227: "TIME_HI", 228: "TIME_LO", 229: "MASK_HI",
    230: "MASK_LO", 231: "HW_WAVE_ID", 232: "SIMD_ID", 233: "SE_ID", 234: "HW_THREADGRP_ID",
    235: "WAVE_ID_IN_GRP", 236: "NUM_THREADGRP_WAVES", 237: "HW_ALU_ODD", 238: "AL",
    240: "PARAM_BASE_ADDR", 241: "NEW_PRIM_MASK", 242: "PRIM_MASK_HI", 243: "PRIM_MASK_LO",
    244: "1.0_L", 245: "1.0_M", 246: "0.5_L", 247: "0.5_M", 248: "0.0f", 249: "1.0f", 250: "1",
    251: "-1", 252: "0.5f",
}
CHANNELS = "xyzw"
UNITS = "xyzwt"
#: INDEX_MODE of relative operands
INDEX_MODE_NAMES = {0: "[AR.x]", 1: "[AR.y]", 2: "[AR.z]", 3: "[AR.w]", 4: "[AL]"}
OMOD_SUFFIX = {1: "*2", 2: "*4", 3: "/2"}
VEC_BANK_SWIZZLE = {0: "", 1: "VEC_021", 2: "VEC_120", 3: "VEC_102", 4: "VEC_201", 5: "VEC_210"}
SCL_BANK_SWIZZLE = {0: "SCL_210", 1: "SCL_122", 2: "SCL_212", 3: "SCL_221"}
#: PRED_SEL: OFF, or write only lanes whose predicate is 0 (ZERO) / 1 (ONE)
PRED_SEL_OFF, PRED_SEL_ZERO, PRED_SEL_ONE = 0, 1, 2
PRED_SEL_NAMES = {PRED_SEL_OFF: "", PRED_SEL_ZERO: "PRED_SEL_ZERO", PRED_SEL_ONE: "PRED_SEL_ONE"}

# -- export and fetch operands ------------------------------------------------------------------
#: SQ_SEL component selects as one character (6 has no name)
SEL_CHARS = {0: "x", 1: "y", 2: "z", 3: "w", 4: "0", 5: "1", 6: "?", 7: "_"}
#: SQ_SEL values past the four components: the constants 0 and 1, and "not written"
SEL_0, SEL_1, SEL_MASK = 4, 5, 7
EXPORT_TYPES = {0: "PIX", 1: "POS", 2: "PARAM"}
POS_BASE = 60  # POS exports: ARRAY_BASE 60-63
MEM_EXPORT_WRITE, MEM_EXPORT_WRITE_IND, MEM_EXPORT_READ, MEM_EXPORT_READ_IND = 0, 1, 2, 3
#: memory exports whose ARRAY_BASE counts 16-byte units (others count 4-byte units)
MEM_BASE_16 = frozenset({"MEM_SCRATCH", "MEM_REDUCTION"})
MEM_STREAMS = frozenset({"MEM_STREAM0", "MEM_STREAM1", "MEM_STREAM2", "MEM_STREAM3"})
FETCH_TYPES = {0: "VERTEX_DATA", 1: "INSTANCE_DATA", 2: "NO_INDEX_OFFSET"}
NUM_FORMATS = {0: "NORM", 1: "INT", 2: "SCALED"}
ENDIAN_SWAPS = {1: "8IN16", 2: "8IN32"}
#: ENDIAN_SWAP: the size in bytes of the units whose bytes are reversed
ENDIAN_SWAP_BYTES = {1: 2, 2: 4}

#: SQ_DATA_FORMAT (FMT_*) values of vertex fetches: name, bits per component (X first), float.
#: Only formats whose components have one width each are listed (the packed 10_10_10_2 and
#: 5_6_5 style formats are not); values from AMD's R600/R700 register reference.
DATA_FORMATS: dict[int, tuple[str, tuple[int, ...], bool]] = {
    1: ("8", (8,), False),
    5: ("16", (16,), False),
    6: ("16_FLOAT", (16,), True),
    7: ("8_8", (8, 8), False),
    13: ("32", (32,), False),
    14: ("32_FLOAT", (32,), True),
    15: ("16_16", (16, 16), False),
    16: ("16_16_FLOAT", (16, 16), True),
    26: ("8_8_8_8", (8, 8, 8, 8), False),
    29: ("32_32", (32, 32), False),
    30: ("32_32_FLOAT", (32, 32), True),
    31: ("16_16_16_16", (16, 16, 16, 16), False),
    32: ("16_16_16_16_FLOAT", (16, 16, 16, 16), True),
    34: ("32_32_32_32", (32, 32, 32, 32), False),
    35: ("32_32_32_32_FLOAT", (32, 32, 32, 32), True),
    0x2F: ("32_32_32", (32, 32, 32), False),
    0x30: ("32_32_32_FLOAT", (32, 32, 32), True),
}
#: SQ_LOOP_CONST (the loop constant LOOP_START reads): iteration count, initial AL, signed increment
SQ_LOOP_CONST = layout(("COUNT", 0, 12), ("INIT", 12, 12), ("INC", 24, 8))
#: uniform blocks are read by fetch instructions from buffer 128 + block location
UNIFORM_BLOCK_BUFFER_BASE = 128
#: CF conditions
COND_ACTIVE, COND_FALSE, COND_BOOL, COND_NOT_BOOL = 0, 1, 2, 3
#: inline ALU source constants (bits): 0.0f, 1.0f, 1, -1, 0.5f and the halves of 1.0 and 0.5 doubles
ALU_SRC_CONSTANT_BITS: dict[int, int] = {
    248: 0x00000000, 249: 0x3F800000, 250: 0x00000001, 251: 0xFFFFFFFF, 252: 0x3F000000,
    244: 0x00000000, 245: 0x3FF00000, 246: 0x00000000, 247: 0x3FE00000,
}
ALU_SRC_AL = 238

"""The D3D9 token table (d3d9types.h): opcodes, register types, usages, token layouts."""

from __future__ import annotations

from shaderkit.isa.field import Field
from shaderkit.named_tuple import NamedTuple


class OpInfo(NamedTuple):
    """A D3D9 opcode: mnemonic, whether it has a destination, and its source count."""
    name: str
    has_dest: bool
    sources: int
    #: another source count the opcode takes (sincos: 3 sources in SM2, 1 in SM3)
    other_sources: int | None = None


#: D3D9 opcodes: value -> (mnemonic, destination?, source count)
OPCODES: dict[int, OpInfo] = {value: OpInfo(*row) for value, row in {
    0: ("nop", False, 0), 1: ("mov", True, 1), 2: ("add", True, 2), 3: ("sub", True, 2),
    4: ("mad", True, 3), 5: ("mul", True, 2), 6: ("rcp", True, 1), 7: ("rsq", True, 1),
    8: ("dp3", True, 2), 9: ("dp4", True, 2), 10: ("min", True, 2), 11: ("max", True, 2),
    12: ("slt", True, 2), 13: ("sge", True, 2), 14: ("exp", True, 1), 15: ("log", True, 1),
    16: ("lit", True, 1), 17: ("dst", True, 2), 18: ("lrp", True, 3), 19: ("frc", True, 1),
    20: ("m4x4", True, 2), 21: ("m4x3", True, 2), 22: ("m3x4", True, 2), 23: ("m3x3", True, 2),
    24: ("m3x2", True, 2), 25: ("call", False, 1), 26: ("callnz", False, 2), 27: ("loop", False, 2),
    28: ("ret", False, 0), 29: ("endloop", False, 0), 30: ("label", False, 1), 32: ("pow", True, 2),
    33: ("crs", True, 2), 34: ("sgn", True, 3), 35: ("abs", True, 1), 36: ("nrm", True, 1),
    37: ("sincos", True, 3), 38: ("rep", False, 1), 39: ("endrep", False, 0), 40: ("if", False, 1),
    41: ("if", False, 2), 42: ("else", False, 0), 43: ("endif", False, 0), 44: ("break", False, 0),
    45: ("break", False, 2), 46: ("mova", True, 1), 64: ("texcoord", True, 0), 65: ("texkill", True, 0),
    66: ("texld", True, 2), 78: ("expp", True, 1), 79: ("logp", True, 1), 80: ("cnd", True, 3),
    88: ("cmp", True, 3), 89: ("bem", True, 2), 90: ("dp2add", True, 3), 91: ("dsx", True, 1),
    92: ("dsy", True, 1), 93: ("texldd", True, 4), 94: ("setp", True, 2), 95: ("texldl", True, 2),
    96: ("breakp", False, 1),
    # pixel shader 1.x texture operations (d3d9types.h D3DSIO_TEXBEM..D3DSIO_TEXDEPTH)
    67: ("texbem", True, 1), 68: ("texbeml", True, 1), 69: ("texreg2ar", True, 1), 70: ("texreg2gb", True, 1),
    71: ("texm3x2pad", True, 1), 72: ("texm3x2tex", True, 1), 73: ("texm3x3pad", True, 1),
    74: ("texm3x3tex", True, 1), 76: ("texm3x3spec", True, 2), 77: ("texm3x3vspec", True, 1),
    82: ("texreg2rgb", True, 1), 83: ("texdp3tex", True, 1), 84: ("texm3x2depth", True, 1),
    85: ("texdp3", True, 1), 86: ("texm3x3", True, 1), 87: ("texdepth", True, 0),
    0xFFFD: ("phase", False, 0),
}.items()}
OPCODES[37] = OPCODES[37]._replace(other_sources=1)  # sincos: 3 sources in SM2, 1 in SM3
OPCODES[34] = OPCODES[34]._replace(other_sources=1)  # sgn: likewise
OP_DCL, OP_DEF, OP_DEFI, OP_DEFB, OP_COMMENT, OP_END = 31, 81, 48, 47, 0xFFFE, 0xFFFF
#: ps_1_4's phase marker
OP_PHASE = 0xFFFD
#: mnemonics of the declaration opcodes (not in OPCODES: the printer spells their forms itself)
DECLARATION_NAMES = {OP_DCL: "dcl", OP_DEF: "def", OP_DEFI: "defi", OP_DEFB: "defb"}
#: opcodes whose controls carry a comparison (if_gt, break_ne, setp_lt ...)
COMPARED = frozenset({41, 45, 94})
COMPARISONS = ("", "_gt", "_eq", "_ge", "_lt", "_ne", "_le", "")
#: pixel shader 1.x spellings: opcode -> (name below ps_1_4, name in ps_1_4); ps_1_4's forms take a source
PS1_NAMES: dict[int, tuple[str, str]] = {64: ("texcoord", "texcrd"), 66: ("tex", "texld")}
#: texld's controls: 0 texld, 1 texldp, 2 texldb
TEXLD_FORMS = ("texld", "texldp", "texldb")


def texld_form(controls: int) -> str:
    """The SM2+ ``texld`` form its instruction controls name (``texld`` for the unused value 3)."""
    form = controls & 3
    return TEXLD_FORMS[form] if form < len(TEXLD_FORMS) else TEXLD_FORMS[0]


def comparison(controls: int) -> str:
    """The comparison suffix (``_gt`` .. ``_le``; "" for the unused values 0 and 7) of if_comp,
    break_comp or setp's instruction controls."""
    return COMPARISONS[controls & 7]


#: D3DDECLUSAGE_*: usage -> dcl spelling (``dcl_texcoord1``); others spell ``usage<n>``
USAGES = ("position", "blendweight", "blendindices", "normal", "psize", "texcoord", "tangent",
          "binormal", "tessfactor", "positiont", "color", "fog", "depth", "sample")
SAMPLER_TYPES = {2: "_2d", 3: "_cube", 4: "_volume"}
#: register types (D3DSPR_*) printed as a prefix and the register number
REGISTER_PREFIXES = {0: "r", 1: "v", 2: "c", 5: "oD", 6: "oT", 7: "i", 8: "oC", 10: "s", 14: "b", 18: "l", 19: "p"}
REG_ADDR_TEXTURE, REG_RASTOUT, REG_DEPTH_OUT, REG_SAMPLER, REG_LOOP = 3, 4, 9, 10, 15
#: D3DSPR_TEMP, _INPUT, _CONST, _ATTROUT (oD#), _CONSTINT, _COLOROUT (oC#), _CONSTBOOL, _PREDICATE
REG_TEMP, REG_INPUT, REG_CONST, REG_ATTR_OUT, REG_INT, REG_COLOR_OUT, REG_BOOL, REG_PREDICATE = 0, 1, 2, 5, 7, 8, 14, 19
#: vs_3_0 spells register type 6 (D3DSPR_OUTPUT) ``o<n>``
REG_OUTPUT = 6
#: D3DSPR_MISCTYPE (ps_3_0): number -> name
REG_MISC, MISC_REGISTERS = 17, ("vPos", "vFace")
#: D3DSPR_CONST2/3/4: constants c2048.. c4095, c4096.., c6144..: register type -> first number
CONST_BANKS = {11: 2048, 12: 4096, 13: 6144}
#: instruction slots of the D3D9 macro instructions by opcode (every other instruction takes one)
#: (the D3D9 reference's instruction-slot tables; flow control as fxc counts it: if 3, else 1, endif 1;
#: lrp takes one slot in every profile as fxc counts it, not the reference's two for vs_2_0/ps_2_0)
SLOTS = {36: 3, 32: 3, 37: 8, 33: 2, 93: 3, 95: 2,  # nrm, pow, sincos, crs, texldd, texldl
         20: 4, 21: 3, 22: 4, 23: 3, 24: 2,  # m4x4, m4x3, m3x4, m3x3, m3x2
         38: 3, 39: 2, 27: 3, 29: 2, 40: 3, 41: 3,  # rep, endrep, loop, endloop, if, if_comp
         45: 3, 96: 3, 25: 2, 26: 3, 30: 0,  # break_comp, breakp, call, callnz, label
         90: 2, 91: 2, 92: 2}  # dp2add, dsx, dsy
#: the texture instructions by opcode (texkill is not one) and the texture slots of those that
#: take more than one; the rest of their ``SLOTS`` count as arithmetic, as d3dcompiler_47 counts
#: them (texldl: 2 texture; texldd: 1 texture and 2 arithmetic)
TEXTURE_OPCODES = frozenset({66, 93, 95, 64, *range(67, 75), *range(76, 78), *range(82, 88)})
TEXTURE_SLOTS = {95: 2}  # texldl
#: opcodes that take no slot (declarations, definitions, ps_1_4's phase marker)
UNCOUNTED = frozenset({OP_DCL, OP_DEF, OP_DEFI, OP_DEFB, OP_PHASE})
#: flow-control blocks by opcode: fxc indents their bodies by 2 more spaces (``rep i0`` ... ``endrep``);
#: else (42) closes the if body and opens its own
BLOCK_OPENS = frozenset({38, 27, 40, 41, 42})  # rep, loop, if, if_comp, else
BLOCK_CLOSES = frozenset({39, 29, 43, 42})  # endrep, endloop, endif, else
#: source modifiers (D3DSPSM_*): (text before the register, text after it and before the swizzle,
#: as in ``-r0_abs.w``, ``r1_bx2``, ``1 - r0``); others print as _mod<n>
SOURCE_MODIFIERS = {1: ("-", ""), 2: ("", "_bias"), 3: ("-", "_bias"), 4: ("", "_bx2"), 5: ("-", "_bx2"),
                    6: ("1 - ", ""), 7: ("", "_x2"), 8: ("-", "_x2"), 9: ("", "_dz"), 10: ("", "_dw"),
                    11: ("", "_abs"), 12: ("-", "_abs"), 13: ("!", "")}
#: result shifts (D3DSPDM shift, ps_1_x): field value -> instruction suffix (printed before _sat)
RESULT_SHIFTS = {1: "_x2", 2: "_x4", 3: "_x8", 13: "_d8", 14: "_d4", 15: "_d2"}
#: result shift field -> the factor it scales the result by: the field is a signed 4-bit power of
#: two (1 _x2 .. 3 _x8, 13 _d8 .. 15 _d2)
RESULT_SHIFT_SCALES = {value: 2.0 ** (value - 16 if value & 8 else value) for value in range(16)}
#: result modifiers (D3DSPDM_*) in the order their suffixes print
DEST_MODIFIERS_TEXT = ((1, "_sat"), (2, "_pp"), (4, "_centroid"))
#: the result modifier bit of _sat
SATURATE = next(bit for bit, text in DEST_MODIFIERS_TEXT if text == "_sat")
#: registers printed by name: name -> (register type, number)
NAMED_REGISTERS = {"oPos": (4, 0), "oFog": (4, 1), "oPts": (4, 2), "oDepth": (9, 0), "aL": (15, 0),
                   "vPos": (17, 0), "vFace": (17, 1)}
RASTOUT = tuple(name for name, (rtype, _) in NAMED_REGISTERS.items() if rtype == 4)
#: D3D9 assembler spelling of register type 3: texture (pixel shaders), address (vertex shaders)
ADDR_TEXTURE_PREFIXES = ("a", "t")
#: every parameter token and the dcl usage token set bit 31
PARAMETER_BIT = 1 << 31
#: version token kinds (bits 16..31): pixel, vertex, library pixel ("LP"), library vertex ("LV")
VERSION_KINDS = {(True, False): 0xFFFF, (False, False): 0xFFFE, (True, True): 0x4C50, (False, True): 0x4C56}
#: texture shader (``tx_1_0``, D3DX fill functions: FXLVM code in an FXLC comment) version kind "TX"
TX_KIND = 0x5458
#: minor version 0xFF: the software-processing profiles (``vs_2_sw``, ``ps_3_sw``)
SOFTWARE_MINOR = 0xFF
PIXEL_KINDS = frozenset(kind for (pixel, _), kind in VERSION_KINDS.items() if pixel)
LIBRARY_KINDS = frozenset(kind for (_, library), kind in VERSION_KINDS.items() if library)
DBUG_TAG = 0x47554244  # "DBUG" (first word of the debug comment block)

# -- token layouts ---------------------------------------------------------------------------
INSTRUCTION_OPCODE = Field("opcode", 0, 16)
INSTRUCTION_CONTROLS = Field("controls", 16, 8)
INSTRUCTION_LENGTH = Field("length", 24, 4)  # parameter tokens (SM2+)
PREDICATED = Field("predicated", 28, 1)  # SM2+: a predicate source follows the destination
COISSUE = Field("coissue", 30, 1)  # ps_1_x: ``+`` pairs the instruction with the one before
COMMENT_LENGTH = Field("comment_length", 16, 15)
REGISTER_NUMBER = Field("number", 0, 11)
REGISTER_TYPE_LOW = Field("type_low", 28, 3)  # type bits 0..2
REGISTER_TYPE_HIGH = Field("type_high", 11, 2)  # type bits 3..4
RELATIVE = Field("relative", 13, 1)
DEST_MASK = Field("write_mask", 16, 4)
DEST_MODIFIERS = Field("result_modifiers", 20, 4)  # 1 _sat, 2 _pp, 4 _centroid
RESULT_SHIFT = Field("result_shift", 24, 4)  # ps_1_x: _x2 .. _d8 (RESULT_SHIFTS)
SOURCE_SWIZZLE = Field("swizzle", 16, 8)
SOURCE_MODIFIER = Field("modifier", 24, 4)
USAGE = Field("usage", 0, 5)
USAGE_INDEX = Field("usage_index", 16, 4)
SAMPLER_TYPE = Field("sampler_type", 27, 4)
ADDRESS_COMPONENT = Field("component", 16, 2)  # relative-address token: first swizzle component
SHADER_VERSION_MAJOR = Field("major", 8, 8)
SHADER_VERSION_MINOR = Field("minor", 0, 8)
SHADER_VERSION_KIND = Field("kind", 16, 16)


def register_type(token: int) -> int:
    """D3DSPR_* register type of a parameter token (split over two fields)."""
    return REGISTER_TYPE_LOW.get(token) | REGISTER_TYPE_HIGH.get(token) << REGISTER_TYPE_LOW.width


def is_sm1(version: int) -> bool:
    """Whether a version token's instruction tokens carry no length (vs/ps 1.x, tx_1_0): their
    parameters are the following tokens with bit 31 set."""
    return SHADER_VERSION_MAJOR.get(version) < 2 or SHADER_VERSION_KIND.get(version) == TX_KIND


def usage_name(usage_token: int) -> tuple[str, int]:
    """A dcl usage token's usage as ``dcl_`` spells it (``texcoord``; ``usage<n>`` past the
    table) and its usage index."""
    kind = USAGE.get(usage_token)
    return (USAGES[kind] if kind < len(USAGES) else f"usage{kind}"), USAGE_INDEX.get(usage_token)

"""FXLVM tables: opcodes and operand register tables, as stored in ``FXLC`` instruction tokens.

An instruction token is ``opcode << 20 | component count`` (bits 0-15), bit 31 set when the
first input is one scalar component broadcast to every lane. Opcodes group by their input count
in the high nibble: ``0x1xx`` unary, ``0x2xx`` binary, ``0x3xx`` ternary, ``0x500`` dot, ``0x502``
noise, ``0x70e`` the D3D9 swizzled dot of 6 or 8 inputs, ``0x711`` the swizzled noise. The table names each opcode and the input count its
group implies; the token stores the count too, and the decoder and assembler go by the token.
"""

from __future__ import annotations

from shaderkit.isa.field import Field
from shaderkit.named_tuple import NamedTuple


class FxlcOp(NamedTuple):
    """An FXLVM opcode: mnemonic and the number of inputs it takes (None: as the token says)."""

    name: str
    inputs: int | None


#: opcode value -> (mnemonic, input count): the mnemonics of d3dcompiler_47's FXLVM disassembler
#: (its opcode -> name switch: 0x210 bilt, 0x211 bige; vkd3d-shader's fx.c table agrees)
OPCODES: dict[int, FxlcOp] = {value: FxlcOp(*row) for value, row in {
    0x000: ("nop", 0),
    0x100: ("mov", 1), 0x101: ("neg", 1), 0x103: ("rcp", 1), 0x104: ("frc", 1), 0x105: ("exp", 1),
    0x106: ("log", 1), 0x107: ("rsq", 1), 0x108: ("sin", 1), 0x109: ("cos", 1), 0x10A: ("asin", 1),
    0x10B: ("acos", 1), 0x10C: ("atan", 1), 0x112: ("sqrt", 1),
    0x120: ("ineg", 1), 0x121: ("not", 1),
    0x130: ("itof", 1), 0x131: ("utof", 1), 0x132: ("ftoi", 1), 0x133: ("ftou", 1), 0x134: ("btof", 1),
    0x135: ("btoi", 1), 0x136: ("itob", 1), 0x137: ("ftob", 1), 0x138: ("round", 1), 0x139: ("floor", 1),
    0x13A: ("ceil", 1),
    0x200: ("min", 2), 0x201: ("max", 2), 0x202: ("lt", 2), 0x203: ("ge", 2), 0x204: ("add", 2),
    0x205: ("mul", 2), 0x206: ("atan2", 2), 0x208: ("div", 2),
    0x210: ("bilt", 2), 0x211: ("bige", 2), 0x212: ("bieq", 2), 0x213: ("bine", 2), 0x214: ("buge", 2),
    0x215: ("bult", 2), 0x216: ("iadd", 2), 0x217: ("idiv", 2), 0x219: ("imul", 2), 0x21A: ("udiv", 2),
    0x21B: ("umod", 2), 0x21C: ("umul", 2), 0x21D: ("imin", 2), 0x21E: ("imax", 2), 0x21F: ("umin", 2),
    0x220: ("umax", 2),
    0x230: ("and", 2), 0x231: ("or", 2), 0x233: ("xor", 2), 0x234: ("ishl", 2), 0x235: ("ishr", 2),
    0x236: ("ushr", 2),
    0x300: ("cmp", 3), 0x301: ("movc", 3),
    0x500: ("dot", 2), 0x502: ("noise", None),
    0x70E: ("d3ds_dotswiz", None), 0x711: ("d3ds_noiseswiz", None),
}.items()}
#: mnemonic -> opcode value
OPCODE_BY_NAME = {op.name: value for value, op in OPCODES.items()}

#: instruction token fields
TOKEN_COMPONENTS = Field("components", 0, 16)
TOKEN_OPCODE = Field("opcode", 20, 11)
TOKEN_SCALAR = Field("scalar", 31, 1)

#: operand register tables: literals (``CLIT`` doubles / ``CLI4`` words), inputs (the ``CTAB``'s
#: registers), outputs (a preshader's float shader constants; an expression's result), temporaries
REG_LITERAL, REG_INPUT, REG_OUTPUT, REG_TEMP = 1, 2, 4, 7
#: a D3D9 preshader's bool and int shader-constant outputs (d3dx9: one bool per component offset
#: divided by 4, int4 registers as the float ones)
REG_OUTPUT_BOOL, REG_OUTPUT_INT = 5, 6
#: the component letters, in register order
COMPONENTS = "xyzw"

"""The SM4/SM5/SM5.1 token layouts, declared once (Mesa isaspec idea).

Every 32-bit token form of the tokenized program format (``d3d11TokenizedProgramFormat.hpp``)
is a :class:`TokenForm`: named bit fields that together cover bits 0..31 exactly once
(:func:`layout_problems` proves it; the tests run it). The opcode rows (names, operand counts,
printing templates) live in :mod:`.opcodes`; this module holds how their words are laid out.

Decoder, encoder, printers and assembler read the fields from here. Speed comes from what is
built at import time: the ``*_AT``/``*_MASK`` integers the hot loops use, and packers/unpackers
compiled from the table (:func:`packer`, :func:`unpacker`) - functions whose bodies are the
table's shifts and masks as literals.
"""

from __future__ import annotations

from collections.abc import Callable

from shaderkit.dataclass import dataclass
from shaderkit.isa.field import Field
from shaderkit.named_tuple import NamedTuple


@dataclass(frozen=True, slots=True)
class TokenForm:
    """One 32-bit token layout: its fields, low bits first."""

    name: str
    fields: tuple[Field, ...]

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def names(self) -> tuple[str, ...]:
        """The field names of this token form, low bits first."""
        return tuple(f.name for f in self.fields)


def _form(name: str, *fields: tuple[str, int, int]) -> TokenForm:
    return TokenForm(name, tuple(Field(*f) for f in fields))


#: extended-token chaining bit (bit 31 of every opcode, operand and extended token)
EXTENDED_BIT = 31

#: opcode token of every instruction but customdata
OPCODE_TOKEN = _form(
    "opcode token",
    ("opcode", 0, 11),
    ("controls", 11, 13),  # opcode-specific: _sat, _nz, resinfo/sync modes, dcl values, precise mask
    ("length", 24, 7),  # words of the instruction, this token included
    ("extended", 31, 1),
)

#: opcode token of a customdata block (its length in words is the next word)
CUSTOMDATA_TOKEN = _form(
    "customdata token",
    ("opcode", 0, 11),
    ("data_class", 11, 21),
)

#: fields of an instruction's controls (bits 11..23 of its opcode token, counted from bit 11)
#: that the printer and assembler spell; declarations use the controls through their templates
CONTROL_FIELDS = _form(
    "instruction controls",
    ("mode", 0, 2),  # resinfo/sampleinfo return type; sync: _t (bit 0), _g (bit 1)
    ("saturate", 2, 1),  # _sat (sync: _ugroup)
    ("sync_global", 3, 1),  # sync: _uglobal
    ("reserved", 4, 3),
    ("test_nonzero", 7, 1),  # _nz / _z
    ("precise_mask", 8, 4),  # [precise(xyzw)]
    ("reserved_high", 12, 20),  # bit 12 unused; the rest lies beyond the 13-bit field
)

#: extended opcode tokens, by kind (bits 0..5)
EXTENDED_OPCODE_TOKENS: dict[int, TokenForm] = {
    1: _form(
        "sample controls",
        ("kind", 0, 6),
        ("reserved", 6, 3),
        ("offset_u", 9, 4),  # signed 4-bit texel offsets (_aoffimmi)
        ("offset_v", 13, 4),
        ("offset_w", 17, 4),
        ("reserved_high", 21, 10),
        ("extended", 31, 1),
    ),
    2: _form(
        "resource dimension",
        ("kind", 0, 6),
        ("dimension", 6, 5),  # RESOURCE_DIMENSIONS index
        ("stride", 11, 12),  # structured buffers
        ("reserved", 23, 8),
        ("extended", 31, 1),
    ),
    3: _form(
        "resource return type",
        ("kind", 0, 6),
        ("return_x", 6, 4),  # RETURN_TYPES indices
        ("return_y", 10, 4),
        ("return_z", 14, 4),
        ("return_w", 18, 4),
        ("reserved", 22, 9),
        ("extended", 31, 1),
    ),
}

#: operand token
OPERAND_TOKEN = _form(
    "operand token",
    ("num_components", 0, 2),  # code: 0 -> 0, 1 -> 1, 2 -> 4, 3 -> N
    ("selection_mode", 2, 2),  # 0 mask, 1 swizzle, 2 select one
    ("component_bits", 4, 8),  # mask (4 bits), swizzle (4 x 2 bits) or selected component
    ("type", 12, 8),  # OperandType
    ("index_dimension", 20, 2),  # 0..3 indices follow
    ("index_rep_0", 22, 3),  # IndexRep of each index
    ("index_rep_1", 25, 3),
    ("index_rep_2", 28, 3),
    ("extended", 31, 1),
)

#: extended operand token of kind 1 (the only kind fxc writes)
EXTENDED_OPERAND_TOKEN = _form(
    "extended operand token",
    ("kind", 0, 6),  # 1: modifier / minimum precision / non-uniform
    ("modifier", 6, 8),  # 0 none, 1 neg, 2 abs, 3 abs + neg
    ("min_precision", 14, 3),  # MIN_PRECISION index
    ("non_uniform", 17, 1),
    ("reserved", 18, 13),
    ("extended", 31, 1),
)

#: version token (first word of a program)
VERSION_TOKEN = _form(
    "version token",
    ("minor", 0, 4),
    ("major", 4, 4),
    ("extra", 8, 8),
    ("program_type", 16, 16),
)

#: every token form (the self-check walks these)
TOKEN_FORMS: tuple[TokenForm, ...] = (
    VERSION_TOKEN, OPCODE_TOKEN, CUSTOMDATA_TOKEN, CONTROL_FIELDS, *EXTENDED_OPCODE_TOKENS.values(), OPERAND_TOKEN,
    EXTENDED_OPERAND_TOKEN,
)

#: the index representation field of index 0, 1, 2
INDEX_REP_FIELDS = (OPERAND_TOKEN["index_rep_0"], OPERAND_TOKEN["index_rep_1"], OPERAND_TOKEN["index_rep_2"])


class IndexForm(NamedTuple):
    """What follows the operand for one index representation."""

    immediate_words: int  # 0, 1 (32-bit) or 2 (64-bit, low word first)
    relative: bool  # a relative operand follows the immediate part


#: IndexRep -> the words that follow (0 imm32, 1 imm64, 2 relative, 3 imm32 + relative,
#: 4 imm64 + relative); other values are invalid
INDEX_FORMS: dict[int, IndexForm] = {
    0: IndexForm(1, False),
    1: IndexForm(2, False),
    2: IndexForm(0, True),
    3: IndexForm(1, True),
    4: IndexForm(2, True),
}

#: immediate operand types -> words of values per num_components code (0, 1, 4, N)
IMMEDIATE_WORDS: dict[int, tuple[int, int, int, int]] = {
    4: (0, 1, 4, 0),  # IMMEDIATE32
    5: (0, 2, 4, 0),  # IMMEDIATE64: one double (2 words) or two doubles (4 words)
}

#: component count of each num_components code (3: N, written as 0 here)
COMPONENT_COUNTS = (0, 1, 4, 0)

#: the operand token's ``component_bits`` per selection mode (counted from bit 4 of the token):
#: mode 0 a write mask (bit n: component n), mode 1 a swizzle (source component of x, y, z, w),
#: mode 2 one selected component
MASK_MODE, SWIZZLE_MODE, SELECT_MODE = 0, 1, 2
COMPONENT_SELECTIONS: dict[int, TokenForm] = {
    MASK_MODE: _form("mask", ("x", 0, 1), ("y", 1, 1), ("z", 2, 1), ("w", 3, 1), ("unused", 4, 28)),
    SWIZZLE_MODE: _form("swizzle", ("x", 0, 2), ("y", 2, 2), ("z", 4, 2), ("w", 6, 2), ("unused", 8, 24)),
    SELECT_MODE: _form("select", ("component", 0, 2), ("unused", 2, 30)),
}
SWIZZLE_FIELDS = COMPONENT_SELECTIONS[SWIZZLE_MODE].fields[:4]


def swizzle_of(bits: int) -> tuple[int, int, int, int]:
    """Source component of x, y, z, w in swizzle ``component_bits``."""
    x, y, z, w = (f.get(bits) for f in SWIZZLE_FIELDS)
    return x, y, z, w


def pack_swizzle(components: tuple[int, int, int, int] | list[int]) -> int:
    """``component_bits`` of a swizzle (source component of x, y, z, w)."""
    return sum(f.put(c) for f, c in zip(SWIZZLE_FIELDS, components))


# -- import-time constants the hot loops use ----------------------------------------------

def _at(form: TokenForm, name: str) -> int:
    return form[name].low


def _mask(form: TokenForm, name: str) -> int:
    return form[name].mask


OPCODE_MASK = _mask(OPCODE_TOKEN, "opcode")
CONTROLS_AT, CONTROLS_MASK = _at(OPCODE_TOKEN, "controls"), _mask(OPCODE_TOKEN, "controls")
LENGTH_AT, LENGTH_MASK = _at(OPCODE_TOKEN, "length"), _mask(OPCODE_TOKEN, "length")
DATA_CLASS_AT, DATA_CLASS_MASK = _at(CUSTOMDATA_TOKEN, "data_class"), _mask(CUSTOMDATA_TOKEN, "data_class")
NUM_COMPONENTS_MASK = _mask(OPERAND_TOKEN, "num_components")
SELECTION_AT, SELECTION_MASK = _at(OPERAND_TOKEN, "selection_mode"), _mask(OPERAND_TOKEN, "selection_mode")
COMPONENTS_AT, COMPONENTS_MASK = _at(OPERAND_TOKEN, "component_bits"), _mask(OPERAND_TOKEN, "component_bits")
TYPE_AT, TYPE_MASK = _at(OPERAND_TOKEN, "type"), _mask(OPERAND_TOKEN, "type")
DIMENSION_AT, DIMENSION_MASK = _at(OPERAND_TOKEN, "index_dimension"), _mask(OPERAND_TOKEN, "index_dimension")
REP_AT = tuple(f.low for f in INDEX_REP_FIELDS)
REP_MASK = INDEX_REP_FIELDS[0].mask
#: operand-token bits that make an operand "not simple" (extended token, any index representation)
REP_AND_EXTENDED_BITS = sum(f.bits for f in INDEX_REP_FIELDS) | 1 << EXTENDED_BIT
EXT_KIND_MASK = _mask(EXTENDED_OPERAND_TOKEN, "kind")
EXT_OPERAND_MODIFIER = 1  # the kind of EXTENDED_OPERAND_TOKEN
VERSION_TYPE_AT = _at(VERSION_TOKEN, "program_type")
SATURATE = CONTROL_FIELDS["saturate"]
TEST_NONZERO = CONTROL_FIELDS["test_nonzero"]
PRECISE_MASK = CONTROL_FIELDS["precise_mask"]


# -- packers and unpackers compiled from the table -------------------------------------------

def unpacker(form: TokenForm, *names: str) -> Callable[[int], tuple[int, ...]]:
    """A function ``token -> (field values in the order of names)`` whose body holds the
    table's shifts and masks as literals."""
    parts = [f"(w >> {form[n].low}) & {form[n].mask:#x}" for n in names]
    unpack: Callable[[int], tuple[int, ...]] = eval("lambda w: (" + ", ".join(parts) + ",)")  # noqa: S307
    unpack.__doc__ = f"The fields ({', '.join(names)}) of a token: {form.name}."
    return unpack


def packer(form: TokenForm, *names: str) -> Callable[..., int]:
    """A function ``(field values in the order of names) -> token`` (values masked to their
    width, fields not named are 0)."""
    args = [f"a{i}" for i in range(len(names))]
    parts = [f"(a{i} & {form[n].mask:#x}) << {form[n].low}" for i, n in enumerate(names)]
    pack: Callable[..., int] = eval("lambda " + ", ".join(args) + ": " + (" | ".join(parts) or "0"))  # noqa: S307
    pack.__doc__ = f"A token ({form.name}) from ({', '.join(names)}), each masked to its width."
    return pack


#: (num_components, selection_mode, component_bits, type, index_dimension, rep0, rep1, rep2,
#: extended) of an operand token
unpack_operand = unpacker(OPERAND_TOKEN, *OPERAND_TOKEN.names())
pack_operand = packer(OPERAND_TOKEN, *OPERAND_TOKEN.names())
#: (opcode, controls, length, extended) of an opcode token
unpack_opcode = unpacker(OPCODE_TOKEN, *OPCODE_TOKEN.names())
pack_opcode = packer(OPCODE_TOKEN, *OPCODE_TOKEN.names())
pack_customdata = packer(CUSTOMDATA_TOKEN, "opcode", "data_class")
unpack_version = unpacker(VERSION_TOKEN, *VERSION_TOKEN.names())
pack_version = packer(VERSION_TOKEN, *VERSION_TOKEN.names())
#: (kind, modifier, min_precision, non_uniform) of an extended operand token
unpack_extended_operand = unpacker(EXTENDED_OPERAND_TOKEN, "kind", "modifier", "min_precision", "non_uniform")
pack_extended_operand = packer(EXTENDED_OPERAND_TOKEN, "kind", "modifier", "min_precision", "non_uniform")


def pack_extended_opcode(kind: int, **values: int) -> int:
    """An extended opcode token of ``kind`` from its field values by name."""
    form = EXTENDED_OPCODE_TOKENS[kind]
    token = form["kind"].put(kind)
    for name, value in values.items():
        token |= form[name].put(value)
    return token


# -- self-check -------------------------------------------------------------------------------

def layout_problems(forms: tuple[TokenForm, ...] | None = None) -> list[str]:
    """Overlapping fields and uncovered bits of every token form ([] if none); by default of
    :data:`TOKEN_FORMS` and the component selections."""
    problems = []
    for form in forms if forms is not None else (*TOKEN_FORMS, *COMPONENT_SELECTIONS.values()):
        seen = 0
        for f in form.fields:
            if f.width <= 0 or f.low < 0 or f.low + f.width > 32:
                problems.append(f"{form.name}: {f.name} lies outside bits 0..31")
                continue
            if seen & f.bits:
                problems.append(f"{form.name}: {f.name} overlaps bits {seen & f.bits:#010x}")
            seen |= f.bits
        if seen != 0xFFFFFFFF:
            problems.append(f"{form.name}: bits {~seen & 0xFFFFFFFF:#010x} are not covered")
        names = form.names()
        if len(set(names)) != len(names):
            problems.append(f"{form.name}: repeated field names")
    return problems

"""The SM4 token-layout table: self-check, hand-worked field positions, and
``encode(decode(words)) == words`` for random valid programs (words packed here by hand from the
d3d11TokenizedProgramFormat.hpp masks, not through the table)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.isa.sm4 import table
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.opcodes import OPCODES, Layout
from shaderkit.isa.sm4.table import Field, TokenForm, layout_problems


def test_every_token_form_covers_every_bit_once() -> None:
    assert layout_problems() == []


def test_self_check_finds_overlaps_and_gaps() -> None:
    overlap = TokenForm("bad", (Field("a", 0, 20), Field("b", 16, 16)))
    gap = TokenForm("gap", (Field("a", 0, 8), Field("b", 9, 23)))
    outside = TokenForm("out", (Field("a", 0, 16), Field("b", 16, 17)))
    problems = layout_problems((overlap, gap, outside))
    assert any("bad: b overlaps" in p for p in problems)
    assert any("gap: bits 0x00000100 are not covered" in p for p in problems)
    assert any("out: b lies outside" in p for p in problems)


def test_field_masks_match_the_header() -> None:
    # masks of d3d11TokenizedProgramFormat.hpp, copied by hand
    opcode = table.OPCODE_TOKEN
    assert opcode["opcode"].bits == 0x000007FF
    assert opcode["length"].bits == 0x7F000000
    assert opcode["extended"].bits == 0x80000000
    operand = table.OPERAND_TOKEN
    assert operand["num_components"].bits == 0x00000003
    assert operand["selection_mode"].bits == 0x0000000C
    assert operand["component_bits"].bits == 0x00000FF0
    assert operand["type"].bits == 0x000FF000
    assert operand["index_dimension"].bits == 0x00300000
    assert [f.bits for f in table.INDEX_REP_FIELDS] == [0x01C00000, 0x0E000000, 0x70000000]
    ext = table.EXTENDED_OPERAND_TOKEN
    assert ext["modifier"].bits == 0x00003FC0
    assert ext["min_precision"].bits == 0x0001C000
    assert ext["non_uniform"].bits == 0x00020000
    assert table.EXTENDED_OPCODE_TOKENS[1]["offset_u"].bits == 0x00001E00
    assert table.EXTENDED_OPCODE_TOKENS[2]["stride"].bits == 0x007FF800
    assert table.EXTENDED_OPCODE_TOKENS[3]["return_w"].bits == 0x003C0000
    # controls: _sat is token bit 13, _nz bit 18, the precise mask bits 19..22
    assert table.SATURATE.put(1) << table.CONTROLS_AT == 1 << 13
    assert table.TEST_NONZERO.put(1) << table.CONTROLS_AT == 1 << 18
    assert table.PRECISE_MASK.put(0xF) << table.CONTROLS_AT == 0xF << 19


def test_compiled_packers_agree_with_the_fields() -> None:
    token = 0x8A9C1E46 ^ 0x0A000000
    values = table.unpack_operand(token)
    assert values == tuple(f.get(token) for f in table.OPERAND_TOKEN.fields)
    assert table.pack_operand(*values) == token


# -- random valid programs, packed by hand --------------------------------------------------

_OPERAND_OPCODES = sorted(v for v, info in OPCODES.items()
                          if info.layout == Layout.OPERANDS and info.num_operands > 0 and not info.dcl)


@st.composite
def _extended_tokens(draw: st.DrawFn) -> list[int]:
    tokens = draw(st.lists(st.integers(0, 0x7FFFFFFF), max_size=2))
    return [t | 0x80000000 if i < len(tokens) - 1 else t for i, t in enumerate(tokens)]


@st.composite
def _operand(draw: st.DrawFn, depth: int = 0) -> list[int]:
    kind = draw(st.sampled_from(["register", "imm32", "imm64"]))
    comps = draw(st.integers(0, 3))
    sel = draw(st.integers(0, 3))
    bits = draw(st.integers(0, 0xFF))
    ext = draw(_extended_tokens())
    if kind != "register":
        comps = draw(st.sampled_from([1, 2]))
        op_type = 4 if kind == "imm32" else 5
        count = {4: (1, 4), 5: (2, 4)}[op_type][comps - 1]
        token = comps | sel << 2 | bits << 4 | op_type << 12 | (0x80000000 if ext else 0)
        return [token, *ext, *draw(st.lists(st.integers(0, 0xFFFFFFFF), min_size=count, max_size=count))]
    op_type = draw(st.sampled_from([0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 30, 31, 33]))
    dim = draw(st.integers(0, 3))
    reps = [draw(st.integers(0, 4 if depth < 2 else 1)) for _ in range(dim)]
    token = comps | sel << 2 | bits << 4 | op_type << 12 | dim << 20 | (0x80000000 if ext else 0)
    tail: list[int] = []
    for i, rep in enumerate(reps):
        token |= rep << (22 + 3 * i)
        tail += draw(st.lists(st.integers(0, 0xFFFFFFFF), min_size=(1, 2, 0, 1, 2)[rep],
                              max_size=(1, 2, 0, 1, 2)[rep]))
        if rep >= 2:
            tail += draw(_operand(depth + 1))
    return [token, *ext, *tail]


@st.composite
def _program(draw: st.DrawFn) -> list[int]:
    body: list[int] = []
    for _ in range(draw(st.integers(1, 4))):
        opcode = draw(st.sampled_from(_OPERAND_OPCODES))
        ext = draw(_extended_tokens())
        words = [w for _ in range(OPCODES[opcode].num_operands) for w in draw(_operand())]
        words += draw(st.lists(st.integers(0, 0xFFFFFFFF), max_size=1))  # padding words
        length = 1 + len(ext) + len(words)
        if length > 0x7F:
            continue
        controls = draw(st.integers(0, 0x1FFF))
        body += [opcode | controls << 11 | length << 24 | (0x80000000 if ext else 0), *ext, *words]
    version = draw(st.sampled_from([0x40, 0x41, 0x10050, 0x50051, 0xFFF00050]))
    return [version, len(body) + 2, *body]


@settings(max_examples=150, deadline=None)
@given(_program())
def test_encode_decode_round_trips_random_valid_programs(words: list[int]) -> None:
    prog = decode(words)
    assert encode(prog) == words
    # through the typed model too (decode builds it lazily)
    assert len(prog.instructions) >= 1
    assert encode(prog) == words


def test_component_selections() -> None:
    # .xyzw is 0xE4 (x from 0, y from 1, z from 2, w from 3); .wzyx is 0x1B
    assert table.swizzle_of(0xE4) == (0, 1, 2, 3)
    assert table.pack_swizzle((3, 2, 1, 0)) == 0x1B
    assert table.COMPONENT_SELECTIONS[table.MASK_MODE]["w"].bits == 0x8
    assert "swizzle" in {f.name for f in table.COMPONENT_SELECTIONS.values()}

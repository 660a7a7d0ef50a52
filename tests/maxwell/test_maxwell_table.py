"""The Maxwell table: self-checks, every row round-trips through decode/encode and text/assembler,
and hand-encoded words (worked out from the fact sources' bit patterns) for forms the corpus lacks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import AssemblyError
from shaderkit.isa.maxwell import assemble, assemble_instruction, decode, disassemble, instruction_text
from shaderkit.isa.maxwell.decode import Control, join_control, split_control
from shaderkit.isa.maxwell.encoding import ENCODINGS, OVERLAPS, find_encoding, overlapping_encodings
from shaderkit.isa.maxwell.table import ROWS
from shaderkit.isa.maxwell.text import control_text


def test_table_self_check() -> None:
    assert len(ROWS) == len(ENCODINGS) == 319  # Ryujinx's 294, split where a flag picks the operand kind
    assert OVERLAPS == []  # no field overlaps another field or the opcode bits
    assert overlapping_encodings() == []  # no two equally specific patterns match one word


@pytest.mark.parametrize("encoding", ENCODINGS, ids=lambda e: f"{e.index}-{e.name}")
def test_every_row_round_trips(encoding) -> None:  # type: ignore[no-untyped-def]
    """Words made from the row's pattern with random operand bits: decode to this row (or a more
    specific one), encode back, and print text that assembles back to the same word."""
    rng = random.Random(encoding.index)
    for _ in range(24):
        word = encoding.value | (rng.getrandbits(64) & ~encoding.mask)
        instruction = decode(word)
        assert instruction is not None
        assert instruction.encoding is encoding or bin(instruction.encoding.mask).count("1") > bin(
            encoding.mask).count("1")
        assert instruction.encode() == word
        address = 8 * rng.randrange(1, 1 << 12)
        text = instruction_text(instruction, address)
        assert assemble_instruction(text, address) == word, text


# Hand-encoded words: (word, text). Bits from the patterns and operand positions of the sources.
HAND = [
    # S2R: 1111000011001 at 63..51, Rd 0..7, SReg 20..27 (0x21 = thread id x), guard PT (bits 16..18 = 7)
    (0xF0C8_0000_0217_0003, "S2R R3, SR_TID.X"),
    # IADD3 R: 010111001100 at 63..52, Rd=R1, Ra=R2 (8..15), Rb=R3 (20..27), Rc=R4 (39..46)
    (0x5CC0_0200_0037_0201, "IADD3 R1, R2, R3, R4"),
    # XMAD R: 0101101100 at 63..54, Rd=R5, Ra=R6, Rb=R7, Rc=RZ
    (0x5B00_7F80_0077_0605, "XMAD R5, R6, R7, RZ"),
    # LOP3 R: 0101101111100 at 63..51, LUT 0x96 at 28..35, Pd PT at 48..50, Rd=R0, Ra=R1, Rb=R2, Rc=R3
    (0x5BE7_0189_6027_0100, "LOP3 R0, PT, R1, R2, R3, 0x96"),
    # DEPBAR: 1111000011110 at 63..51, SB 26..28 = 0, pending count 20..25 = 0, mask 0..5 = 0x3
    (0xF0F0_0000_0007_0003, "DEPBAR 0x0, 0x0, 0x3"),
    # LDG: 1110111011010 at 63..51, size 48..50 = 4 (B32, the default), E bit 45, Rd=R2, [R4+0x10]
    (0xEED4_2000_0107_0402, "LDG.E R2, [R4+0x10]"),
    # @!P1 STG: 1110111011011, size 4 (B32), [R6-0x8] (24-bit signed), data R7
    (0xEEDC_0FFF_FF89_0607, "@!P1 STG [R6-0x8], R7"),
    # FMNMX I: 0011100x01100, Rd=R0, Ra=R1, imm 0.5 (0x3f000 in 20..38), Ps PT at 39..41
    (0x3860_03BF_0007_0100, "FMNMX R0, R1, 0.5, PT"),
    # DADD R: 0101110001110, Rd=R2, Ra=R4, Rb=R6
    (0x5C70_0000_0067_0402, "DADD R2, R4, R6"),
    # MEMBAR: 1110111110011, level 8..9 = 1 (GL)
    (0xEF98_0000_0007_0100, "MEMBAR.GL"),
]


@pytest.mark.parametrize(("word", "text"), HAND, ids=[t for _, t in HAND])
def test_hand_encoded(word: int, text: str) -> None:
    instruction = decode(word)
    assert instruction is not None
    assert instruction_text(instruction) == text
    assert assemble_instruction(text) == word


def test_corpus_forms_by_hand() -> None:
    """Words from the envydis listings with their SASS text (fields worked out by hand)."""
    cases = {
        0x49A0_010C_0107_0902: "FFMA.FTZ R2, R9, c[0x3][0x40], R2",
        0xE240_0000_2000_000F: "@P0 BRA 0x248",  # at 0x40: 0x48 + 0x200 (imm24 at 20..43)
        0x5080_0000_0047_0000: "MUFU.RCP R0, R0",
        0xE003_FF87_CFF7_FF00: "IPA.PASS R0, a[0x7c]",
        0x3667_0380_06A7_0507: "ISETP.LE.AND P0, PT, R5, 0x6a, PT",
    }
    for word, text in cases.items():
        instruction = decode(word)
        assert instruction is not None
        assert instruction_text(instruction, 0x40) == text


def test_control_word() -> None:
    # envydis: fe2007f1 001fc400 -> (st 0x1 yl) (st 0x1 yl) (st 0x1 yl)
    controls, top = split_control(0x001F_C400_FE20_07F1)
    assert top == 0
    assert [c.stall for c in controls] == [1, 1, 1]
    assert all(c.yield_flag and c.read_barrier == 7 and c.write_barrier == 7 for c in controls)
    assert join_control(controls) == 0x001F_C400_FE20_07F1
    assert control_text(Control(4, 1, 0, 7, 0b000011, 1)) == "[B01----:R-:W0:Y:S04:U1]"


def test_program_with_data_round_trips() -> None:
    control = join_control([Control(1, 1, 7, 7, 0, 0)] * 3)
    words = [control, 0xE300_0000_0007_000F, 0xE240_0FFF_FF87_000F, 0x0000_0000_0000_0000,
             0x3F80_0000_4000_0000]  # EXIT; BRA to itself; a padding slot; then data
    code = b"".join(w.to_bytes(8, "little") for w in words) + b"\x01\x02"
    text = disassemble(code)
    assert "EXIT;" in text and "BRA 0x10;" in text and ".u64 0x3f80000040000000;" in text
    assert assemble(text) == code


def test_unknown_words_print_as_data() -> None:
    control = join_control([Control(0, 0, 7, 7, 0, 0)] * 3)
    words = [control, 0xFFFF_FFFF_FFFF_FFFF, 0xE300_0000_0007_000F, 0xE240_0FFF_FF87_000F]
    code = b"".join(w.to_bytes(8, "little") for w in words)
    assert find_encoding(0xFFFF_FFFF_FFFF_FFFF) is None
    assert assemble(disassemble(code)) == code


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("[B------:R-:W-:Y:S01] FOO R0;", 1),
        ("\n[B------:R-:W-:Y:S01] MOV R0, R300;", 2),
        ("[B------:R-:W-:Y:S99] MOV R0, R1;", 1),
        ("MOV R0, R1;", 1),
        ("[B------:R-:W-:Y:S01] FADD32I R0, R1, 0.1;", 1),
    ],
)
def test_bad_source(source: str, line: int) -> None:
    with pytest.raises(AssemblyError) as info:
        assemble(source)
    assert info.value.line == line


_PIECES = ["[B------:R-:W-:Y:S01] ", "MOV R0, R1;", "FFMA.FTZ R0, R1, c[0x3][0x40], R2;", ".u64 0x5;",
           ".sched 0x7;", ".byte 1, 2;", "@P0 BRA 0x40;", "a[R1+0x10]", "c[0x1][R2-0x4]", "-(2.5)", "|R3|",
           "!P2", "SR_TID.X", "0x", "\n", "[", "]", ",", ".", "@", " "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12), st.text(max_size=6))
def test_bad_text_raises_only_assembly_error(pieces: list[str], noise: str) -> None:
    text = "".join(pieces)
    text = text[: len(text) // 2] + noise + text[len(text) // 2:]
    try:
        assemble(text)
    except AssemblyError as exc:
        assert exc.line >= 1

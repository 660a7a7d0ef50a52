"""Property tests: random words in every position re-encode, and any program the disassembler
accepts assembles back to itself."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.isa.latte import asm, assemble, disasm, disassemble

WORD = st.integers(min_value=0, max_value=0xFFFFFFFF)
EOP = 1 << 21


def _round_trip(program: bytes) -> None:
    try:
        text = disassemble(program)
    except ShaderFormatError:
        return
    assert assemble(text) == program, text


@settings(max_examples=150, deadline=None)
@given(WORD, WORD)
def test_every_format_reencodes(w0: int, w1: int) -> None:
    for unpack, pack in ((disasm.unpack_cf, asm.pack_cf), (disasm.unpack_cf_alu, asm.pack_cf_alu),
                         (disasm.unpack_exp_swiz, asm.pack_exp_swiz), (disasm.unpack_exp_buf, asm.pack_exp_buf),
                         (disasm.unpack_alu_op2, asm.pack_alu_op2), (disasm.unpack_alu_op3, asm.pack_alu_op3)):
        assert pack(unpack((w0, w1))) == [w0, w1]


@settings(max_examples=150, deadline=None)
@given(WORD, WORD, WORD, WORD)
def test_random_alu_instruction(w0: int, w1: int, lit0: int, lit1: int) -> None:
    # 00 ALU ADDR(2) CNT(2); 01 NOP END_OF_PROGRAM; the instruction (LAST) and a literal slot
    program = struct.pack("<8I", 2, 8 << 26 | 1 << 18, 0, EOP, w0 | 1 << 31, w1, lit0, lit1)
    _round_trip(program)


@settings(max_examples=150, deadline=None)
@given(WORD, WORD)
def test_random_cf_word(w0: int, w1: int) -> None:
    # a random CF word with small addresses and counts so clauses stay inside the program
    w0 &= 0x7
    if w1 >> 28 & 3 >= 2:
        w1 &= ~(0x7F << 18)
    else:
        w1 &= ~(0x7 << 10 | 1 << 19)
    _round_trip(struct.pack("<2I", w0, w1) + struct.pack("<2I", 0, EOP | 0x19 << 23) + bytes(64))


@settings(max_examples=150, deadline=None)
@given(st.lists(WORD, min_size=3, max_size=3), st.booleans())
def test_random_fetch_instruction(fetch: list[int], vertex: bool) -> None:
    cf1 = (0x02 if vertex else 0x01) << 23 | EOP
    _round_trip(struct.pack("<8I", 2, cf1, 0, 0, *fetch, 0))

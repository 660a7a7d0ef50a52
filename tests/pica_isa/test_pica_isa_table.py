"""The opcode table: decode/encode round trip on every corpus word and on random words."""

from __future__ import annotations

import functools
import operator
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_params
from shaderkit.errors import AssemblyError
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb, Dvle, Dvlp, OperandDescriptor
from shaderkit.formats.dvlb.source import dvlb_to_source
from shaderkit.isa.pica import table
from shaderkit.isa.pica.decode import Instruction, decode
from shaderkit.isa.pica.encode import encode, make
from shaderkit.isa.pica.opcodes import BY_MNEMONIC, BY_OPCODE6, OPCODES, dst_name, src_name


@pytest.mark.parametrize("path", corpus_params("pica", "*.shbin"))
def test_every_corpus_word_round_trips(path: Path) -> None:
    data = path.read_bytes()
    count = struct.unpack_from("<I", data, 4)[0]
    dvlp = 8 + 4 * count
    code_off, code_len = struct.unpack_from("<II", data, dvlp + 8)
    words = struct.unpack_from(f"<{code_len}I", data, dvlp + code_off)
    assert words
    for word in words:
        inst = decode(word)
        assert not inst.mnemonic.startswith("unk")
        assert encode(inst) == word


@given(st.integers(0, 0xFFFFFFFF))
def test_random_words_round_trip(word: int) -> None:
    assert encode(decode(word)) == word


@st.composite
def _instructions(draw: st.DrawFn) -> Instruction:
    info = draw(st.sampled_from(OPCODES))
    operands = {name: draw(st.integers(0, (1 << width) - 1)) for name, _, width in info.fields}
    return make(info.mnemonic, **operands)


@given(_instructions())
def test_random_valid_instructions_round_trip(inst: Instruction) -> None:
    back = decode(encode(inst))
    assert back.info == inst.info
    assert back.operands == inst.operands
    assert back.extra == 0


def test_field_breakdown_by_hand() -> None:
    # cmp: opcode 0x2E (5-bit 0x17) | cmpx gt=4 at 24 | cmpy le=3 at 21 | idx 1 at 19
    #      | src1 c0 0x20 at 12 | src2 r1 0x11 at 7 | desc 5
    word = (0x17 << 27) | (4 << 24) | (3 << 21) | (1 << 19) | (0x20 << 12) | (0x11 << 7) | 5
    inst = decode(word)
    assert inst.mnemonic == "cmp"
    assert inst.operands == {"desc": 5, "src2": 0x11, "src1": 0x20, "idx": 1, "cmpy": 3, "cmpx": 4}
    # madi: bits 29-31 = 0b110 | dst r3 0x13 at 24 | idx 2 at 22 | src1 v1 at 17 | src2 r2 0x12 at 12
    #       | src3 c9 0x29 at 5 | desc 7
    word = (6 << 29) | (0x13 << 24) | (2 << 22) | (1 << 17) | (0x12 << 12) | (0x29 << 5) | 7
    inst = decode(word)
    assert inst.mnemonic == "madi"
    assert inst.operands == {"desc": 7, "src3": 0x29, "src2": 0x12, "src1": 1, "idx": 2, "dst": 0x13}
    # setemit: 0x2B<<26 | vertex 2 at 24 | prim at 23 | winding at 22
    assert decode(0xAC000000 | 2 << 24 | 1 << 23 | 1 << 22).operands == {
        "vertex_id": 2, "prim": 1, "winding": 1}


def test_table_covers_all_64_opcodes() -> None:
    assert len(BY_OPCODE6) == 64
    assert BY_OPCODE6[0x2F] is BY_MNEMONIC["cmp"]
    assert all(BY_OPCODE6[op] is BY_MNEMONIC["mad"] for op in range(0x38, 0x40))
    assert all(BY_OPCODE6[op] is BY_MNEMONIC["madi"] for op in range(0x30, 0x38))
    assert BY_OPCODE6[0x10].mnemonic == "unk10"
    assert (src_name(0x0F), src_name(0x10), src_name(0x7F)) == ("v15", "r0", "c95")
    assert (dst_name(0x06), dst_name(0x1F)) == ("o6", "r15")


def test_encode_rejects_fields_that_do_not_fit() -> None:
    with pytest.raises(ValueError):
        encode(make("add", dst=0x20))
    with pytest.raises(ValueError):
        encode(Instruction(BY_MNEMONIC["add"], {}, extra=1))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 0xFFFFFFFF), min_size=1, max_size=24),
       st.lists(st.integers(0, 0x7FFFFFFF), max_size=8), st.integers(0, 30), st.integers(0, 30))
def test_disassembler_takes_any_code(code: list[int], descs: list[int], main: int, end: int) -> None:
    model = Dvlb(dvlp=Dvlp(code=code, opdescs=[OperandDescriptor(d) for d in descs]),
                 dvles=[Dvle(main_offset=main, endmain_offset=end)])
    text = dvlb_to_source(model)
    try:
        assemble_sources([("fuzz.asm", text)])
    except AssemblyError:
        pass


# -- the table itself ---------------------------------------------------------------------------


def test_table_self_check_passes() -> None:
    assert table.self_check() == []


def test_self_check_finds_an_overlap_and_a_hole(monkeypatch: pytest.MonkeyPatch) -> None:
    # NUM widened to 10 bits runs into the reserved bits 8-9 of form 2
    wide_num = (("num", 0, 10),) + table.FORMAT_FIELDS["2"][1:]
    monkeypatch.setitem(table.FORMAT_FIELDS, "2", wide_num)
    assert any("form 2" in p for p in table.self_check())
    monkeypatch.undo()
    # dropping form 4's reserved span leaves bits 0-21 uncovered
    monkeypatch.setitem(table.RESERVED, "4", ())
    assert any("setemit: bits 0x3fffff are not covered" in p for p in table.self_check())


def test_every_form_covers_all_32_bits_once() -> None:
    for row in table.BY_OPCODE6:
        parts = [table.opcode_mask(row), table.reserved_mask(row.fmt)]
        parts += [((1 << w) - 1) << lsb for _, lsb, w in row.fields]
        assert sum(parts) == 0xFFFFFFFF, row.mnemonic  # disjoint and complete
        assert functools.reduce(operator.or_, parts) == 0xFFFFFFFF


def test_num_is_eight_bits_and_picasso_adds_two() -> None:
    # the GPU reads NUM as bits 0-7 (Citra/nihstro BitField<0, 8>, Panda3DS "& 0xff"); picasso's
    # 10-bit count puts its bits 8-9 in num_hi.
    # call: 0x24 << 26 = 0x90000000 | dst 5 << 10 = 0x1400 | count 0x3FF
    inst = decode(0x90000000 | 5 << 10 | 0x3FF)
    assert inst.operands["num"] == 0xFF
    assert inst.operands["num_hi"] == 3
    assert inst.operands["dst"] == 5
    assert inst.extra == 0
    assert table.picasso_num(inst.operands) == 0x3FF
    with pytest.raises(ValueError):
        table.encode_fields("call", dst=5, num=0x100)
    assert table.split_num(300) == {"num": 0x2C, "num_hi": 1}


def test_long_called_procedure_is_written_as_picasso_writes_it() -> None:
    # a geometry shader (no 512-word limit) calling a 300-word procedure at word 2:
    # call 0x90000000 | dst 2 << 10 = 0x800 | 300 = 0x12C -> 0x9000092C
    src = ".gsh\n.proc main\n  call f\n  end\n.end\n.proc f\n" + "  nop\n" * 299 + "  end\n.end\n"
    data = assemble_sources([("g.pica", src)])
    model = Dvlb.from_bytes(data)
    assert model.dvlp.code[0] == 0x9000092C
    assert assemble_sources([("again.pica", dvlb_to_source(model))]) == data


@pytest.mark.parametrize("path", corpus_params("pica", "*.shbin"))
def test_corpus_words_through_the_row_encoders(path: Path) -> None:
    model = Dvlb.from_bytes(path.read_bytes())
    for word in model.dvlp.code:
        inst = decode(word)
        assert inst.extra == 0  # no real file sets a reserved bit
        assert table.ENCODERS[inst.mnemonic](inst.operands) == word


@st.composite
def _valid_words(draw: st.DrawFn) -> tuple[str, dict[str, int], int]:
    row = draw(st.sampled_from(table.OPCODES))
    fields = {name: draw(st.integers(0, (1 << width) - 1)) for name, _, width in row.fields}
    return row.mnemonic, fields, table.encode_fields(row.mnemonic, **fields)


@given(_valid_words())
def test_random_valid_words_round_trip(case: tuple[str, dict[str, int], int]) -> None:
    mnemonic, fields, word = case
    inst = decode(word)
    assert inst.mnemonic == mnemonic
    assert inst.operands == fields
    assert inst.extra == 0
    assert encode(inst) == word


def test_replace_fields_relocates_one_field() -> None:
    # jmpc cmp.x: 0x2C << 26 = 0xB0000000 | condop X 2 << 22 | refx 1 << 25 | refy 1 << 24
    word = table.encode_fields("jmpc", condop=2, refx=1, refy=1)
    assert word == 0xB0000000 | 2 << 22 | 1 << 25 | 1 << 24
    assert table.replace_fields(word, dst=0x123) == word | 0x123 << 10
    with pytest.raises(ValueError):
        table.replace_fields(word, dst=0x1000)

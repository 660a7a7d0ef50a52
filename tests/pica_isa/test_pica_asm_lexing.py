"""picasso's lexing, matched on lines real homebrew sources contain; expected words worked out by hand."""

from __future__ import annotations

import pytest

from shaderkit.errors import AssemblyError
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source


def _model(src: str) -> Dvlb:
    return Dvlb.from_bytes(assemble_sources([("t.pica", src)]))


def _main(head: str, body: str) -> Dvlb:
    return _model(f"{head}\n.proc main\n{body}\n end\n.end\n")


def test_alias_register_range_reads_the_first_register() -> None:
    # ".alias projMtx c0-c3": strtol reads 0 from "0-c3" and stops; projMtx = c0, projMtx[1] = c1.
    # dp4 0x02 << 26 = 0x08000000 | dst o0 0 << 21 | src1 c1 0x21 << 12 = 0x21000 | src2 v0 0 | desc 0
    model = _main(".out pos position\n.alias projMtx c0-c3", " dp4 pos.x, projMtx[1], v0")
    assert model.dvlp.code[0] == 0x08021000
    # desc: mask x 0x8 | src1 identity 0x36 << 4 = 0x360 | src2 identity 0x36 << 13 = 0x6C000
    assert model.dvlp.opdescs[0].value == 0x6C368


def test_setb_with_a_comma_after_the_register() -> None:
    # ".setb b0, true": the space-separated argument is "b0,"; strtol reads 0 and ignores ","
    model = _main(".setb b0, true", " nop")
    const = model.dvles[0].constants[0]
    assert (const.type, const.register, const.words[0]) == (0, 0, 1)


def test_register_numbers_follow_strtol_bases() -> None:
    # strtol base 0: "010" is octal 8 (c8 = 0x28), "0x10" hex 16 (c16 = 0x30)
    # mov 0x13 << 26 = 0x4C000000 | dst r0 0x10 << 21 = 0x2000000 | src1 << 12 | desc 0
    model = _main(".alias oct c010\n.alias hexa c0x10", " mov r0, oct\n mov r1, hexa")
    assert model.dvlp.code[:2] == [0x4E028000, 0x4E230000]


def test_garbage_without_a_number_is_still_an_error() -> None:
    with pytest.raises(AssemblyError) as info:
        _main("", " mov r0, cx")
    assert info.value.line == 3


def test_register_beyond_its_space_is_an_error() -> None:
    with pytest.raises(AssemblyError, match="out of range"):
        _main(".alias big c96-c99", " nop")


def test_negative_zero_constant_keeps_its_sign_through_disasm() -> None:
    # .constf c(0.0, 1.0, -1.0, -0.0): 0, 63 << 16 = 0x3F0000, sign | 0x3F0000 = 0xBF0000, 0x800000
    src = ".constf c(0.0, 1.0, -1.0, -0.0)\n.proc main\n mov r0, c\n end\n.end\n"
    data = assemble_sources([("z.pica", src)])
    model = Dvlb.from_bytes(data)
    assert model.dvles[0].constants[0].words == (0, 0x3F0000, 0xBF0000, 0x800000)
    text = dvlb_to_source(model)
    assert "-0.0)" in text
    assert assemble_sources([("z.asm", text)]) == data

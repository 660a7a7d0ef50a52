"""``shaderkit.isa.pica.assemble(text)``: the library entry point, words worked out by hand."""

from __future__ import annotations

import pytest

from shaderkit.errors import AssemblyError
from shaderkit.formats.dvlb.build import program_to_shbin
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.isa.pica import assemble


def test_assemble_text_gives_a_program() -> None:
    program = assemble(".out pos position\n.proc main\n mov pos, v0\n end\n.end\n")
    # mov 0x13 << 26 = 0x4C000000 (dst o0, src1 v0, desc 0); end 0x22 << 26 = 0x88000000
    assert program.code == [0x4C000000, 0x88000000]
    # desc 0: mask xyzw 0xF | src1 identity 0x36 << 4 = 0x360
    assert program.opdescs == [0x36F]
    assert len(program.emitted_dvles) == 1
    model = Dvlb.from_bytes(program_to_shbin(program))
    assert model.dvlp.code == program.code


def test_marker_lines_make_one_dvle_each() -> None:
    text = ("; shaderkit: DVLE 0\n.proc main\n end\n.end\n"
            "; shaderkit: DVLE 1\n.entry second\n.proc second\n nop\n end\n.end\n")
    program = assemble(text)
    assert [(d.entry_start, d.entry_end) for d in program.emitted_dvles] == [(0, 1), (1, 3)]


def test_errors_carry_line_and_column() -> None:
    with pytest.raises(AssemblyError) as info:
        assemble(".proc main\n mov r0, q1\n end\n.end\n", "bad.pica")
    assert (info.value.filename, info.value.line, info.value.column) == ("bad.pica", 2, 10)

"""``shaderkit.open(...).disassemble()`` gives the program text for the Wii U and Switch formats
too (it raised "no disassembler" for GSH, SHARCFB, BNSH and NVN, and listed only sizes for a Wii U
BFSHA; DKSH: tests/dksh). The oracle is the file itself: the text assembles back to the
programs' bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

import shaderkit
from conftest import corpus_params
from shaderkit.formats.bnsh.text import listing_sections
from shaderkit.formats.gx2.programs import apply_listing
from shaderkit.isa.maxwell import assemble

WIIU = [*corpus_params("wiiu", "*.gsh"), *corpus_params("wiiu", "*.sharcfb"), *corpus_params("wiiu", "*.bfsha")]
SWITCH = [*corpus_params("nx", "*.bin"), *corpus_params("nx", "*.bnsh*")]


@pytest.mark.parametrize("path", WIIU)
def test_wiiu_text_assembles_back_to_every_program(path: Path) -> None:
    data = path.read_bytes()
    model = shaderkit.open(data)
    # every program assembles to the bytes it came from (apply_listing refuses a listing that
    # does not hold one section per program)
    assert apply_listing(model, model.disassemble()) == 0
    assert model.to_bytes() == data


@pytest.mark.parametrize("path", SWITCH)
def test_switch_text_assembles_back_to_every_stage(path: Path) -> None:
    data = path.read_bytes()
    sections = listing_sections(shaderkit.open(data).disassemble())
    assert sections, "no stage listed"
    assembled = 0
    for body in sections.values():
        code = assemble(body)
        if code:  # (a stage without Maxwell code has only comments)
            assert code in data  # the stage's Maxwell code, as stored in the file
            assembled += 1
    assert assembled


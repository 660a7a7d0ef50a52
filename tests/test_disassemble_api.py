"""``shaderkit.open(...).disassemble()`` gives the program text for the Wii U and Switch formats
too (it raised "no disassembler" for GSH, SHARCFB, BNSH, NVN and DKSH, and listed only sizes for a
Wii U BFSHA). The oracle is the file itself: the text assembles back to the programs' bytes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import shaderkit
from conftest import corpus_params
from shaderkit.formats.gx2.listing import program_slots
from shaderkit.formats.gx2.programs import _titled_shaders, apply_listing
from shaderkit.isa.maxwell import assemble

WIIU = [*corpus_params("wiiu", "*.gsh"), *corpus_params("wiiu", "*.sharcfb"), *corpus_params("wiiu", "*.bfsha")]
SWITCH = [*corpus_params("nx", "*.bin"), *corpus_params("nx", "*.bnsh*")]


@pytest.mark.parametrize("path", WIIU)
def test_wiiu_text_assembles_back_to_every_program(path: Path) -> None:
    data = path.read_bytes()
    text = shaderkit.open(data).disassemble()
    model = shaderkit.open(data)
    titled = _titled_shaders(model)
    assert titled is not None
    slots = program_slots([shader for _, shader in titled])
    assert text.count("\n; ==== ") + text.startswith("; ==== ") == len(slots)
    assert apply_listing(model, text) == 0  # every program assembles to the bytes it came from
    assert model.to_bytes() == data


@pytest.mark.parametrize("path", SWITCH)
def test_switch_text_assembles_back_to_every_stage(path: Path) -> None:
    data = path.read_bytes()
    text = shaderkit.open(data).disassemble()
    sections = re.split(r"^// ==== .*$", text, flags=re.M)[1:]
    assert sections, "no stage listed"
    assembled = 0
    for section in sections:
        body = "\n".join(line for line in section.splitlines() if not line.startswith("//"))
        if body.strip():
            code = assemble(body)
            assert code and code in data  # the stage's Maxwell code, as stored in the file
            assembled += 1
    assert assembled

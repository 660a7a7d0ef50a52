"""``shaderkit disasm`` on the Wii U BFSHA (standalone and as an SZS member): every program listed
with a header, and every listing assembles back to the file's microcode.

Oracles: the raw file bytes (the microcode found at each struct's code offset, the register word
at each struct's start), the hand counts of tests/archives/test_bfsha_wiiu.py (25 distinct GX2
structs; 12 + 4 programs with a vertex and a pixel shader each).
"""

from __future__ import annotations

import re
import struct

import pytest

from conftest import corpus_root
from shaderkit.cli import main
from shaderkit.formats.bfsha.wiiu import WiiUBfsha
from shaderkit.formats.gx2.programs import apply_listing, gx2_listing, split_programs
from shaderkit.isa.latte import assemble


@pytest.fixture(scope="module")
def paths() -> tuple[str, str]:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found: set SHADERKIT_CORPUS or place it at ../shared/corpus")
    wiiu = root / "wiiu"
    return str(wiiu / "st_BodyB_Ysi_embedded.wiiu.bfsha"), f"{wiiu / 'st_BodyB_Ysi.szs'}//Turbo_UBER.bfsha"


def disasm(capsys: pytest.CaptureFixture[str], path: str) -> str:
    main(["disasm", path])
    return capsys.readouterr().out


def test_every_program_listed_and_assembles_back(capsys: pytest.CaptureFixture[str], paths: tuple[str, str]) -> None:
    standalone, member = paths
    text = disasm(capsys, standalone)
    assert disasm(capsys, member) == text
    data = open(standalone, "rb").read()
    archive = WiiUBfsha.from_bytes(data)
    titles = re.findall(r"^; ==== shaders\[(\d+)\]: (\w+) shader \((.*)\) ====$", text, re.M)
    assert [int(t[0]) for t in titles] == list(range(25))
    users = [(name, stage) for _, stage, names in titles for name in names.split(", ")]
    expected = [(f"{m}/{p}", s) for m, n in (("turbo_uber", 12), ("turbo_uber_xlu", 4))
                for p in range(n) for s in ("vertex", "pixel")]
    assert sorted(users) == sorted(expected)
    texts = split_programs(text)
    assert len(texts) == 25
    for shader, program_text in zip(archive.shaders, texts):
        code = assemble(program_text)
        assert code == data[shader.code_offset : shader.code_offset + len(code)] and len(code) > 0
        assert code == shader.program
        (resources,) = struct.unpack_from(">I", data, shader.offset)  # SQ_PGM_RESOURCES_VS/PS, first word
        assert f"; SQ_PGM_RESOURCES_{'VS' if shader.stage == 'vertex' else 'PS'} = 0x{resources:08X}" in program_text
    assert "; reflection of turbo_uber/0 (shading model turbo_uber):" in text


def test_edited_listing_changes_only_that_program(paths: tuple[str, str]) -> None:
    data = open(paths[0], "rb").read()
    archive = WiiUBfsha.from_bytes(data)
    text = gx2_listing(archive)
    assert text is not None
    assert apply_listing(archive, text) == 0 and archive.to_bytes() == data
    parts = text.split("; ==== shaders[1]:")
    edited = parts[0].replace("(0x3F800000, 1)", "(0x40000000, 2)") + "; ==== shaders[1]:" + parts[1]
    assert edited != text
    assert apply_listing(archive, edited) == 1
    again = WiiUBfsha.from_bytes(archive.to_bytes())
    before = WiiUBfsha.from_bytes(data)
    assert [i for i, (a, b) in enumerate(zip(before.shaders, again.shaders)) if a.program != b.program] == [0]
    assert [(s.regs, s.mode) for s in again.shaders] == [(s.regs, s.mode) for s in before.shaders]
    assert again.shaders[0].program == before.shaders[0].program.replace(
        struct.pack("<I", 0x3F800000), struct.pack("<I", 0x40000000))

"""Whole listings, ``//`` lines included, for effects (``// Child effect ...``, counts of local
and shared buffers/objects/techniques) and level-9 libraries (two Aon9 chunks per function,
the second one's mapping tables printed before its program)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.dxbc.container import DxbcContainer


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _check(path: Path) -> None:
    ours = DxbcContainer.from_bytes(path.read_bytes()).disassemble()
    theirs = path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm").read_text("latin-1")
    assert _lines(ours) == _lines(theirs)


@pytest.mark.parametrize("path", corpus_params("dxbc", "*_FX.dxbc"))
def test_effect_listing_with_comments(path: Path) -> None:
    _check(path)
    assert "// Child effect (requires effect pool): " in DxbcContainer.from_bytes(path.read_bytes()).disassemble()


@pytest.mark.parametrize("path", corpus_params("dxbc", "*LibraryTest_4_Level_9_*.dxbc"))
def test_level9_library_listing_with_comments(path: Path) -> None:
    _check(path)


@pytest.mark.parametrize("path", corpus_params("dxbc", "*Level9_Test_*.dxbc"))
def test_level9_variants_listing_with_comments(path: Path) -> None:
    _check(path)

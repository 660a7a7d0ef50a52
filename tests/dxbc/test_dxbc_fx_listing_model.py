"""The effect listing prints the typed FX10 records (as edited), line for line as fxc does."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_files
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10 import Effect


def _effects() -> list[Path]:
    files = corpus_files("dxbc", "*_FX.dxbc")
    if not files:
        pytest.skip("corpus effects not found")
    return files


def test_effect_listings_equal_fxc() -> None:
    for path in _effects():
        listing = path.with_suffix(".fxc.asm")
        if not listing.exists():
            continue
        ours = DxbcContainer.from_bytes(path.read_bytes()).disassemble().splitlines()
        theirs = listing.read_text(errors="replace").splitlines()
        assert [line.rstrip() for line in ours] == [line.rstrip() for line in theirs], path.name


def test_effect_listing_follows_record_edits() -> None:
    path = next(p for p in _effects() if "MultiMon10" in p.name)
    model = DxbcContainer.from_bytes(path.read_bytes())
    effect = model.effect
    assert isinstance(effect, Effect) and effect.records is not None
    technique = effect.records.techniques[0]
    before = model.disassemble()
    # name the first pass after the technique (an offset the block already holds)
    technique.passes[0].name_offset = technique.name_offset
    after = model.disassemble()
    name = effect.string_at(technique.name_offset)
    assert f"    pass {name}" in after.splitlines() and after != before

"""Damaged inputs: corrupted SHBINs still disassemble; truncated sources fail only with AssemblyError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files, corpus_params
from shaderkit.errors import AssemblyError, ShaderFormatError
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source

SHBINS = corpus_files("pica", "*.shbin")


def _disasm_then_asm(data: bytes) -> None:
    try:
        model = Dvlb.from_bytes(data)
    except ShaderFormatError:
        return
    text = dvlb_to_source(model)
    try:
        assemble_sources([("fuzz.asm", text)])
    except AssemblyError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_files_disassemble(data: st.DataObject) -> None:
    if not SHBINS:
        pytest.skip("corpus not found")
    raw = bytearray(data.draw(st.sampled_from(SHBINS)).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    _disasm_then_asm(bytes(raw))


@pytest.mark.parametrize("path", corpus_params("pica", "*.pica"))
def test_truncated_sources_fail_cleanly(path: Path) -> None:
    text = path.read_text(encoding="latin-1")
    for cut in range(0, len(text), max(1, len(text) // 97)):
        try:
            assemble_sources([(path.name, text[:cut])])
        except AssemblyError as err:
            assert err.line >= 0 and err.filename == path.name

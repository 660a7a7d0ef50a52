"""disasm -> asm: picasso-made files come back byte for byte; others keep code and tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source, dvlb_to_sources

FILES = corpus_params("pica", "*.shbin")
def _roundtrip(path: Path) -> tuple[bytes, bytes, str]:
    data = path.read_bytes()
    text = dvlb_to_source(Dvlb.from_bytes(data))
    return data, assemble_sources([(path.name + ".asm", text)]), text


def _picasso_layout(data: bytes) -> bool:
    # picasso >= 2015-08: DVLE version 0x1002 and the 40-byte DVLP header right after DVLB
    model = Dvlb.from_bytes(data)
    return all(d.version == 0x1002 for d in model.dvles) and model.relayout() == data


@pytest.mark.parametrize("path", FILES)
def test_disasm_asm_roundtrip(path: Path) -> None:
    data, out, text = _roundtrip(path)
    assert "; !" not in text  # nothing was lossy
    if _picasso_layout(data):
        assert out == data
    # every file: same code, descriptors, DVLE headers and tables; only the placement of the
    # structures (nihstro / old picasso layouts) may differ
    before, after = Dvlb.from_bytes(data), Dvlb.from_bytes(out)
    assert after.dvlp.code == before.dvlp.code
    assert after.dvlp.opdescs == before.dvlp.opdescs
    assert after.dvles == before.dvles


def test_plain_picasso_text_has_no_pragmas() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    if not paths:
        pytest.skip("corpus not found")
    texts = [_roundtrip(p)[2] for p in paths if _picasso_layout(p.read_bytes())]
    assert texts and not any("; shaderkit: opdescs" in t or "; shaderkit: desc" in t for t in texts)


def test_fifteen_picasso_files_roundtrip_exactly() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    if not paths:
        pytest.skip("corpus not found")
    exact = [p for p in paths if _roundtrip(p)[1] == p.read_bytes()]
    assert len(exact) >= 15


def test_one_source_per_dvle() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None]
    multi = [p for p in paths if p.name.startswith("3ds-3gxmenu__program")]
    if not multi:
        pytest.skip("corpus not found")
    parts = dvlb_to_sources(Dvlb.from_bytes(multi[0].read_bytes()))
    assert len(parts) == 2
    assert ".entry main_1" in parts[1]

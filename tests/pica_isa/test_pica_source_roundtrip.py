"""disasm -> asm: picasso-made files come back byte for byte; others keep code and tables."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb, dvle_key, name_key
from shaderkit.formats.dvlb.rules import write_nihstro, write_picasso_2015
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
    # every real SHBIN, whichever assembler wrote it (picasso, old picasso, nihstro), comes back
    # byte for byte from its text alone
    data, out, text = _roundtrip(path)
    assert "; !" not in text  # nothing was lossy
    assert out == data


def test_layout_pragma_names_the_writer() -> None:
    paths = {p.values[0].name: p.values[0] for p in FILES if p.values[0] is not None}
    if not paths:
        pytest.skip("corpus not found")
    # MANIFEST.tsv: Re-Craft-3DS@ea554bf files are nihstro-assemble output; simple_tri was built
    # by a picasso older than its 2015-08 multi-DVLE rewrite (DVLE header before the code)
    text = _roundtrip(paths["Re-Craft-3DS__gui__3c078380.shbin"])[2]
    assert "; shaderkit: layout nihstro" in text
    text = _roundtrip(paths["simple_tri__vshader__6335ca80.shbin"])[2]
    assert "; shaderkit: layout picasso-2014" in text
    text = _roundtrip(paths["Re-Craft-3DS__gui__c7350b44.shbin"])[2]
    assert "; shaderkit: layout" not in text


def test_edited_nihstro_text_keeps_the_nihstro_layout() -> None:
    paths = [p.values[0] for p in FILES if p.values[0] is not None
             and p.values[0].name == "Re-Craft-3DS__lithium__7145a5d7.shbin"]
    if not paths:
        pytest.skip("corpus not found")
    data, _, text = _roundtrip(paths[0])
    edited = text.replace("\tend\n", "\tnop\n\tend\n", 1)
    assert edited != text
    out = assemble_sources([("edit.asm", edited)])
    assert len(out) == len(data) + 4  # one more code word; no picasso header words, no padding
    model = Dvlb.from_bytes(out)
    assert model.summary()["dvlp"]["layout"] == "nihstro"
    assert len(model.dvlp.code) == len(Dvlb.from_bytes(data).dvlp.code) + 1


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


def test_nihstro_declaration_order_and_interleaved_names_roundtrip() -> None:
    # nihstro keeps the uniform table in declaration order and stores label and uniform names in
    # source order; a variant of a real nihstro file with the projection declared first and its
    # name stored before the labels' must come back from text too
    paths = [p.values[0] for p in FILES if p.values[0] is not None
             and p.values[0].name == "Re-Craft-3DS__lithium__7145a5d7.shbin"]
    if not paths:
        pytest.skip("corpus not found")
    model = Dvlb.from_bytes(paths[0].read_bytes())
    dvle = model.dvles[0]
    dvle.uniforms = [dvle.uniforms[-1], *dvle.uniforms[:-1]]
    data = write_nihstro(model, "ulllluuu")
    variant = Dvlb.from_bytes(data)
    # the reader (not the writer) says where the names went
    assert [u.name for u in variant.dvles[0].uniforms] == ["projection", "inpos", "intex", "incol"]
    assert [lb.name for lb in variant.dvles[0].labels] == ["main", "proj", "tex", "color"]
    assert variant.layout is not None
    dvle_at = struct.unpack_from("<I", data, 8)[0]
    # "projection" is the first string of the symbol table
    assert variant.layout.offset_of(name_key(0, "uniforms", 0)) == dvle_at + struct.unpack_from("<I", data, dvle_at + 0x38)[0]
    text = dvlb_to_source(variant)
    assert "; shaderkit: layout nihstro ulllluuu" in text
    assert "; shaderkit: uniform-order 3 0 1 2" in text
    assert assemble_sources([("v.asm", text)]) == data


def test_unaligned_multi_dvle_picasso_2015_roundtrip() -> None:
    # picasso's first multi-DVLE writer (2015-08-13..15) did not align the DVLEs: with a uniform
    # name one byte longer, DVLE 1 starts right after DVLE 0's symbol table, at an odd offset
    paths = [p.values[0] for p in FILES if p.values[0] is not None
             and p.values[0].name == "RetroArch__ctr_sprite__82b12978.shbin"]
    if not paths:
        pytest.skip("corpus not found")
    model = Dvlb.from_bytes(paths[0].read_bytes())
    model.dvles[0].uniforms[0].name += "x"
    data = write_picasso_2015(model)
    variant = Dvlb.from_bytes(data)
    assert variant.layout is not None
    first, second = (variant.layout.offset_of(dvle_key(i, "header")) for i in range(2))
    assert first is not None and second is not None
    sym_off, sym_size = struct.unpack_from("<II", data, first + 0x38)
    assert second == first + sym_off + sym_size
    assert second % 4
    text = dvlb_to_source(variant)
    assert "; shaderkit: layout picasso-2015" in text
    assert assemble_sources([("v.asm", text)]) == data

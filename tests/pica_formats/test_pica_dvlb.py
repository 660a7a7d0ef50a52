"""DVLB/DVLP/DVLE: corpus round trips, canonical (picasso) layout, hand-checked fields and edits."""

from __future__ import annotations

import csv
import hashlib
import struct
from pathlib import Path

import pytest

from conftest import corpus_files, corpus_params
from shaderkit.formats.dvlb.dvlb import (
    Constant,
    Dvlb,
    Dvle,
    Dvlp,
    Label,
    OperandDescriptor,
    Output,
    Uniform,
)


def _manifest() -> dict[str, dict[str, str]]:
    files = corpus_files("pica", "MANIFEST.tsv")
    if not files:
        return {}
    with files[0].open(newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle, delimiter="\t")}


MANIFEST = _manifest()


@pytest.mark.parametrize("path", corpus_params("pica", "*.shbin"))
def test_corpus_round_trip(path: Path) -> None:
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == MANIFEST[path.name]["sha256"]
    model = Dvlb.from_bytes(data)
    assert len(model.dvles) == int(MANIFEST[path.name]["n_dvle"])
    assert model.to_bytes() == data
    assert model.problems() == []


def _picasso_made(path: Path) -> bool:
    """Files in the picasso >= 2015-08 layout: DVLP header of 40 bytes, DVLEs after the DVLP."""
    data = path.read_bytes()
    count = struct.unpack_from("<I", data, 4)[0]
    dvlp = 8 + 4 * count
    code_offset = struct.unpack_from("<I", data, dvlp + 8)[0]
    first_dvle = struct.unpack_from("<I", data, 8)[0]
    return code_offset == 40 and first_dvle > dvlp + 40


@pytest.mark.parametrize("path", corpus_params("pica", "*.shbin"))
def test_canonical_layout_reproduces_picasso_files(path: Path) -> None:
    data = path.read_bytes()
    model = Dvlb.from_bytes(data)
    model.layout = None
    rebuilt = model.to_bytes()
    if _picasso_made(path):
        assert rebuilt == data
    else:
        # another layout: the picasso layout of the same model parses back to the same model
        # (a nihstro DVLP header gains picasso's three zero words)
        again, first = Dvlb.from_bytes(rebuilt), Dvlb.from_bytes(data)
        assert again.dvles == first.dvles
        assert (again.dvlp.code, again.dvlp.opdescs) == (first.dvlp.code, first.dvlp.opdescs)
        assert again.dvlp.unknown_words[: len(first.dvlp.unknown_words)] == first.dvlp.unknown_words


def test_picasso_checked_files_are_canonical() -> None:
    checked = [n for n, row in MANIFEST.items() if row["assembler_check"].startswith("picasso")]
    if not checked:
        pytest.skip("corpus not found")
    for path in corpus_files("pica", "*.shbin"):
        if path.name in checked:
            assert Dvlb.from_bytes(path.read_bytes()).relayout() == path.read_bytes(), path.name


def _corpus(name: str) -> bytes:
    files = corpus_files("pica", name)
    if not files:
        pytest.skip("corpus not found")
    return files[0].read_bytes()


def test_fields_of_a_picasso_file() -> None:
    # Re-Craft-3DS world.v.pica: .constf myconst(0.0, 1.0, 0.0000305185094759, 0.00392156862745)
    # (no register given: picasso puts it in c95), .fvec projection[4], outputs position/color/texcoord0
    model = Dvlb.from_bytes(_corpus("Re-Craft-3DS__world__7006574e.shbin"))
    assert len(model.dvlp.code) == 11 and len(model.dvlp.opdescs) == 8
    assert model.dvlp.code[-1] == 0x88000000  # end
    assert model.dvlp.unknown_words == [0, 0, 0]
    (dvle,) = model.dvles
    assert (dvle.version, dvle.shader_type, dvle.main_offset, dvle.endmain_offset) == (0x1002, 0, 0, 11)
    assert (dvle.input_mask, dvle.output_mask) == (0, 0b111)
    (const,) = dvle.constants
    assert (const.type_name, const.register_name) == ("fvec", "c95")
    assert const.words[:2] == (0, 0x3F0000)
    values = const.value
    assert isinstance(values, list)
    assert values[:2] == [0.0, 1.0]
    assert values[2] == pytest.approx(0.0000305185094759, rel=2**-16)
    assert values[3] == pytest.approx(0.00392156862745, rel=2**-16)
    assert [(o.semantic_name, o.register, o.mask) for o in dvle.outputs] == [
        ("position", 0, 15),
        ("color", 1, 15),
        ("texcoord0", 2, 15),
    ]
    assert [(u.name, u.register_range) for u in dvle.uniforms] == [("projection", "c0-c3")]


def test_fields_of_a_nihstro_file() -> None:
    # nihstro writes version 0, zero masks, a 28-byte DVLP header, labels and v-register "uniforms"
    model = Dvlb.from_bytes(_corpus("Re-Craft-3DS__lithium__7145a5d7.shbin"))
    assert model.dvlp.unknown_words == []
    (dvle,) = model.dvles
    assert dvle.version == 0 and dvle.endmain_offset == 0
    assert [lb.name for lb in dvle.labels] == ["main", "proj", "tex", "color"]
    assert [(u.name, u.register_range) for u in dvle.uniforms] == [
        ("inpos", "v0"),
        ("intex", "v1"),
        ("incol", "v2"),
        ("projection", "c0-c3"),
    ]
    assert model.summary()["dvlp"]["layout"] == "nihstro"


def test_geometry_shader_dvle() -> None:
    model = Dvlb.from_bytes(_corpus("RetroArch__ctr_sprite__82b12978.shbin"))
    vs, gs = model.dvles
    assert (vs.shader_type, gs.shader_type) == (0, 1)
    assert gs.main_offset == 5 and gs.endmain_offset == 34
    info = model.summary()["dvles"][1]
    assert info["shader_type"] == "geometry" and info["gs_mode"] == "point"


def _sample() -> Dvlb:
    dvle = Dvle(
        main_offset=0,
        endmain_offset=2,
        input_mask=0x3,
        output_mask=0x3,
        constants=[Constant.fvec(95, 0.0, 1.0, -2.5, 0.5), Constant.ivec(0, 3, 0, 1, 0), Constant.boolean(2, True)],
        outputs=[Output(0, 0, 0xF), Output(2, 1, 0xF)],
        uniforms=[Uniform("projection", 0x10, 0x13), Uniform("flag", 0x78, 0x78)],
    )
    return Dvlb(Dvlp(code=[0x4C000000, 0x88000000], opdescs=[OperandDescriptor(0x36F)]), [dvle])


def test_new_model_is_laid_out_like_picasso() -> None:
    data = _sample().to_bytes()
    # worked out from picasso's writer: DVLB(12) + DVLP header(40) + code(8) + opdescs(8)
    dvle = 12 + 40 + 8 + 8
    assert data[:12] == b"DVLB" + struct.pack("<II", 1, dvle)
    assert struct.unpack_from("<4s6I3I", data, 12) == (b"DVLP", 0, 40, 2, 48, 1, 56, 0, 0, 0)
    header = struct.unpack_from("<4sHBBIIHHBBBB10I", data, dvle)
    consts, outs, unifs = 3 * 20, 2 * 8, 2 * 8
    symbols = b"projection\0flag\0"
    assert header == (
        b"DVLE", 0x1002, 0, 0, 0, 2, 3, 3, 0, 0, 0, 0,
        64, 3, 64 + consts, 0, 64 + consts, 2, 64 + consts + outs, 2,
        64 + consts + outs + unifs, len(symbols),
    )  # fmt: skip
    c0 = struct.unpack_from("<HH4I", data, dvle + 64)
    assert c0 == (2, 95, 0, 0x3F0000, 0xC04000, 0x3E0000)
    assert data[dvle + 84 : dvle + 104] == struct.pack("<HH", 1, 0) + bytes([3, 0, 1, 0]) + bytes(12)
    assert data[dvle + 104 : dvle + 124] == struct.pack("<HHI", 0, 2, 1) + bytes(12)
    tail = dvle + 64 + consts + outs + unifs
    assert data[tail - 16 : tail] == struct.pack("<IHHIHH", 0, 0x10, 0x13, 11, 0x78, 0x78)
    assert data[tail:] == symbols  # 16 bytes: already aligned
    assert Dvlb.from_bytes(data) == _sample()


def test_edit_resizes_and_relays_out() -> None:
    model = Dvlb.from_bytes(_corpus("Re-Craft-3DS__world__0e2ac14f.shbin"))  # nihstro layout
    model.dvles[0].uniforms.append(Uniform("extra_name", 0x20, 0x21))
    model.dvles[0].labels.append(Label(0, 3, "here"))
    again = Dvlb.from_bytes(model.to_bytes())
    assert again.dvles[0].uniforms[-1] == Uniform("extra_name", 0x20, 0x21)
    assert again.dvles[0].labels[-1].name == "here"
    assert again.dvles == model.dvles
    assert again.dvlp.code == model.dvlp.code


def test_same_size_edit_keeps_layout() -> None:
    data = _corpus("Re-Craft-3DS__gui__3c078380.shbin")  # nihstro: tables interleave with code
    model = Dvlb.from_bytes(data)
    model.dvles[0].uniforms[0].name = "INPOS"
    model.dvles[0].constants[0] = Constant.fvec(0, 2.0, 2.0, 2.0, 2.0)
    out = model.to_bytes()
    assert len(out) == len(data)
    assert out.replace(b"INPOS", b"inpos") != data  # the constant changed
    again = Dvlb.from_bytes(out)
    assert again.dvles[0].uniforms[0].name == "INPOS"
    assert again.dvles[0].constants[0].value == [2.0] * 4


def test_summary_lists_everything() -> None:
    info = Dvlb.from_bytes(_corpus("3ds-3gxmenu__program__bc18aedb.shbin")).summary()
    assert info["format"] == "dvlb" and info["dvle_count"] == 2
    assert [u["name"] for u in info["dvles"][1]["uniforms"]] == ["projection", "gradient"]
    assert info["dvles"][1]["uniforms"][1]["registers"] == "c4-c5"


def test_problems_flag_impossible_values() -> None:
    model = _sample()
    assert model.problems() == []
    dvle = model.dvles[0]
    dvle.main_offset = 3  # code has 2 words
    dvle.uniforms.append(Uniform("backwards", 0x13, 0x10))
    dvle.uniforms.append(Uniform("gap", 0x74, 0x74))  # between i3 (0x73) and b0 (0x78)
    dvle.constants.append(Constant.ivec(4, 0, 0, 0, 0))  # only i0-i3
    dvle.outputs.append(Output(0, 16))
    found = "\n".join(model.problems())
    for text in ("main offset 3", "'backwards'", "'gap'", "ivec register 4", "o16"):
        assert text in found

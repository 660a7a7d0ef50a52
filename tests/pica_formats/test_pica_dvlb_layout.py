"""DVLB through io/layout: raw spans kept and shown by ``info``, items put back, resized items appended.

The files here are written by hand with struct (offsets worked out below), not by the writer under test.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from conftest import corpus_files, run_cli
from shaderkit.formats.dvlb.dvlb import Dvlb, Uniform, dvle_key, name_key

CODE = [0x4C000000, 0x88000000]  # mov, end
OPDESC = 0x0000036F
UNKNOWN = b"UNKNOWN!" + bytes(range(8))  # 16 bytes of a structure shaderkit does not model


def _synthetic() -> tuple[bytes, dict[str, int]]:
    """DVLB, DVLP header (40) + code + descriptors, then 16 unknown bytes, then the DVLE: header,
    one output, one uniform, a symbol table holding "proj\\0", an unreferenced "junk\\0" and
    three pad bytes 0xEE (no model field covers them)."""
    dvlp = 12
    code = dvlp + 40
    opd = code + 8
    unknown = opd + 8  # 68
    dvle = unknown + len(UNKNOWN)  # 84
    outputs = 64
    uniforms = outputs + 8
    symbols = uniforms + 8
    table = b"proj\0" + b"junk\0" + b"\xee" * 3  # 13 bytes, "junk" and the pad are raw
    out = bytearray()
    out += b"DVLB" + struct.pack("<II", 1, dvle)
    out += struct.pack("<4s6I3I", b"DVLP", 0, code - dvlp, 2, opd - dvlp, 1, opd + 8 - dvlp, 0, 0, 0)
    out += struct.pack("<2I", *CODE) + struct.pack("<II", OPDESC, 0)
    out += UNKNOWN
    out += struct.pack("<4sHBBIIHHBBBB10I", b"DVLE", 0x1002, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0,
                       outputs, 0, outputs, 0, outputs, 1, uniforms, 1, symbols, len(table))  # fmt: skip
    out += struct.pack("<HHB3s", 0, 0, 0xF, b"\0\0\0")  # position, o0, xyzw
    out += struct.pack("<IHH", 0, 0x10, 0x13)  # "proj" at symbol offset 0, c0-c3
    out += table
    where = {"unknown": unknown, "dvle": dvle, "symbols": dvle + symbols, "junk": dvle + symbols + 5}
    return bytes(out), where


def test_unknown_structure_rebuilds_and_is_a_raw_span() -> None:
    data, where = _synthetic()
    model = Dvlb.from_bytes(data)
    assert model.dvlp.code == CODE and [u.name for u in model.dvles[0].uniforms] == ["proj"]
    assert model.to_bytes() == data
    rows = model.summary()["layout"]
    assert {"item": "raw", "offset": where["unknown"], "size": 16} in rows
    assert {"item": "raw", "offset": where["junk"], "size": 8} in rows  # "junk\0" + 3 pad bytes
    assert {"item": "dvle.0.header", "offset": where["dvle"], "size": 64} in rows
    assert {"item": "dvle.0.uniforms.0.name", "offset": where["symbols"], "size": 5} in rows
    # sorted by offset, every byte accounted for exactly once
    assert [r["offset"] for r in rows] == sorted(r["offset"] for r in rows)
    assert sum(r["size"] for r in rows) == len(data)


def test_info_json_shows_the_raw_span(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, where = _synthetic()
    path = tmp_path / "gap.shbin"
    path.write_bytes(data)
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    layout = json.loads(out)["layout"]
    assert {"item": "raw", "offset": where["unknown"], "size": 16} in layout
    assert {"item": "dvlp.code", "offset": 52, "size": 8} in layout


def test_resized_name_moves_its_symbol_table_and_keeps_the_raw_bytes() -> None:
    data, where = _synthetic()
    model = Dvlb.from_bytes(data)
    model.dvles[0].uniforms[0].name = "projection"
    out = model.to_bytes()
    # the stored bytes stay (the unknown structure, the old table with "junk"); only the header's
    # symbol offset/size change, and the new table (picasso's: "projection\0") goes at the old
    # end, 4-aligned (97 -> 100), then the file is padded to 4
    end = (len(data) + 3) & ~3
    assert out[: where["dvle"] + 0x38] == data[: where["dvle"] + 0x38]
    assert out[where["dvle"] + 0x40 : len(data)] == data[where["dvle"] + 0x40 :]
    assert struct.unpack_from("<II", out, where["dvle"] + 0x38) == (end - where["dvle"], 11)
    assert out[end:] == b"projection\0\0"
    again = Dvlb.from_bytes(out)
    assert again.dvles == model.dvles and again.to_bytes() == out


def test_added_uniform_appends_the_table_in_picasso_order() -> None:
    data, where = _synthetic()
    model = Dvlb.from_bytes(data)
    model.dvles[0].uniforms.append(Uniform("flag", 0x78, 0x78))
    out = model.to_bytes()
    end = (len(data) + 3) & ~3
    # the uniform table (16 bytes) goes first, then the symbol table "proj\0flag\0" (picasso: uniforms' names)
    header = struct.unpack_from("<10I", out, where["dvle"] + 0x18)
    assert header[6:] == (end - where["dvle"], 2, end + 16 - where["dvle"], 10)
    assert out[end : end + 16] == struct.pack("<IHHIHH", 0, 0x10, 0x13, 5, 0x78, 0x78)
    assert out[end + 16 : end + 26] == b"proj\0flag\0"
    assert out[where["unknown"] : where["unknown"] + 16] == UNKNOWN
    assert Dvlb.from_bytes(out).dvles == model.dvles


def test_shared_name_is_recorded_and_split_when_edited() -> None:
    data, where = _synthetic()
    # a second uniform entry naming the same string: append it by moving the symbol table offset
    buf = bytearray(data)
    base = where["dvle"]
    # rewrite the DVLE: uniforms table gets 2 entries (the second at the old symbol table place)
    outputs, uniforms = 64, 72
    table = b"proj\0"
    entries = struct.pack("<IHHIHH", 0, 0x10, 0x13, 0, 0x14, 0x14)
    buf[base + 0x18 :] = struct.pack("<10I", outputs, 0, outputs, 0, outputs, 1, uniforms, 2, uniforms + 16, len(table))
    buf += struct.pack("<HHB3s", 0, 0, 0xF, b"\0\0\0") + entries + table
    data = bytes(buf)
    model = Dvlb.from_bytes(data)
    layout = model.layout
    assert layout is not None
    assert layout.shares_with(name_key(0, "uniforms", 1)) == name_key(0, "uniforms", 0)
    assert model.to_bytes() == data
    model.dvles[0].uniforms[1].name = "pro2"  # same size, no longer equal: the table is laid out afresh
    out = model.to_bytes()
    again = Dvlb.from_bytes(out)
    assert [u.name for u in again.dvles[0].uniforms] == ["proj", "pro2"]
    assert out[: base + 0x38] == data[: base + 0x38]  # only the symbol offset/size change
    assert again.layout is not None and again.layout.offset_of(dvle_key(0, "header")) == base


def test_nihstro_file_appends_by_nihstro_rule() -> None:
    files = corpus_files("pica", "Re-Craft-3DS__lithium__7145a5d7.shbin")  # nihstro
    if not files:
        pytest.skip("corpus not found")
    data = files[0].read_bytes()
    model = Dvlb.from_bytes(data)
    model.dvles[0].uniforms.append(Uniform("extra", 0x14, 0x14))
    out = model.to_bytes()
    # only the uniform table (5 entries now) and the symbol table move: appended unaligned at the
    # old end, nihstro's symbol order (label names first): main proj tex color | inpos intex incol
    # projection extra
    pool = b"main\0proj\0tex\0color\0inpos\0intex\0incol\0projection\0extra\0"
    table = struct.pack("<IHH", 20, 0, 0) + struct.pack("<IHH", 26, 1, 1) + struct.pack("<IHH", 32, 2, 2) \
        + struct.pack("<IHH", 38, 0x10, 0x13) + struct.pack("<IHH", 49, 0x14, 0x14)
    assert out[len(data) :] == table + pool
    dvle = struct.unpack_from("<I", data, 8)[0]
    unif_off, unif_n, sym_off, sym_size = struct.unpack_from("<4I", out, dvle + 0x30)
    assert (unif_off, unif_n, sym_off, sym_size) == (len(data) - dvle, 5, len(data) + 40 - dvle, len(pool))
    assert out[: dvle + 0x30] == data[: dvle + 0x30] and out[dvle + 0x40 : len(data)] == data[dvle + 0x40 :]
    assert Dvlb.from_bytes(out).dvles == model.dvles


def test_overlapping_names_edited_apart_get_a_new_table() -> None:
    data, where = _synthetic()
    buf = bytearray(data)
    base = where["dvle"]
    # two uniforms: "proj" at 0 and "roj" at 1 (inside it, as a mutated symbol offset would point)
    outputs, uniforms = 64, 72
    table = b"proj\0"
    buf[base + 0x18 :] = struct.pack("<10I", outputs, 0, outputs, 0, outputs, 1, uniforms, 2, uniforms + 16, len(table))
    buf += struct.pack("<HHB3s", 0, 0, 0xF, b"\0\0\0") + struct.pack("<IHHIHH", 0, 0x10, 0x13, 1, 0x14, 0x14) + table
    data = bytes(buf)
    model = Dvlb.from_bytes(data)
    assert [u.name for u in model.dvles[0].uniforms] == ["proj", "roj"] and model.to_bytes() == data
    model.dvles[0].uniforms[1].name = "rox"  # same size, but it no longer fits inside "proj"
    out = model.to_bytes()
    # the DVLE stays (a new symbol table "proj\0rox\0" at the old end, 4-aligned), nothing relaid out
    end = (len(data) + 3) & ~3
    assert struct.unpack_from("<II", out, base + 0x38) == (end - base, 9) and out[end : end + 9] == b"proj\0rox\0"
    assert out[:base] == data[:base]
    assert [u.name for u in Dvlb.from_bytes(out).dvles[0].uniforms] == ["proj", "rox"]

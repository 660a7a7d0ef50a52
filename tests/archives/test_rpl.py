"""Wii U RPX/RPL: sections read and inflated, exact rebuild, edits with CRCs and offsets redone.

The files are built here field by field from the layout facts (big-endian ELF32 header, 0x28-byte
section headers, deflated sections as u32 size + zlib, one CRC-32 per section); the expected
values are computed here with zlib, independently of the model.
"""

from __future__ import annotations

import json
import random
import struct
import zlib

import pytest

from conftest import corpus_root
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.archive.path import walk
from shaderkit.formats.registry import detect
from shaderkit.formats.rpl.rpl import Rpl

SHSTRTAB = b"\0.text\0.data\0.comment\0.shstrtab\0"
NAME_AT = {name: SHSTRTAB.index(name.encode() + b"\0") for name in (".text", ".data", ".comment", ".shstrtab")}
TEXT = bytes(range(256)) * 8
DATA = b"GSH goes here " * 40
COMMENT = b"built by hand"
FILE_INFO = struct.pack(">16I", 0xCAFE0402, *([0] * 15)) + struct.pack(">I", 0) * 8  # flags word at 0x34


def build(data: bytes = DATA, rpx: bool = True, gap: bytes = b"\xee" * 3) -> tuple[bytes, dict[str, int]]:
    """An RPX: null, .text (deflated), .data (deflated), .comment, .shstrtab, CRCs, file info;
    returns the bytes and each section's file offset."""
    info = bytearray(FILE_INFO)
    info[0x34:0x38] = struct.pack(">I", 2 if rpx else 0)
    # (name, type, flags, address, contents, deflated)
    sections = [
        (".text", 1, 0x6, 0x02000000, TEXT, True),
        (".data", 1, 0x3, 0x10000000, data, True),
        (".comment", 1, 0x0, 0, COMMENT, False),
        (".shstrtab", 3, 0x0, 0, SHSTRTAB, False),
    ]
    contents = [b""] + [c for *_, c, _ in sections]
    crcs = [0] + [zlib.crc32(c) for c in contents[1:]] + [0, zlib.crc32(bytes(info))]
    stored: list[bytes] = []
    for *_, c, deflated in sections:
        stored.append(struct.pack(">I", len(c)) + zlib.compress(c, 6) if deflated else c)
    stored.append(struct.pack(">7I", *crcs))
    stored.append(bytes(info))
    count = 7
    shoff = 0x40
    offset = shoff + count * 0x28
    offsets, body = [], b""
    for blob in stored:
        offsets.append(offset + len(body))
        body += blob + gap
    headers = [bytes(0x28)]
    for (name, stype, flags, address, _, deflated), at, blob in zip(sections, offsets, stored):
        headers.append(struct.pack(">10I", NAME_AT[name], stype, flags | (0x08000000 if deflated else 0), address,
                                   at, len(blob), 0, 0, 4, 0))
    headers.append(struct.pack(">10I", 0, 0x80000003, 0, 0, offsets[4], len(stored[4]), 0, 0, 4, 4))
    headers.append(struct.pack(">10I", 0, 0x80000004, 0, 0, offsets[5], len(stored[5]), 0, 0, 4, 0))
    ident = b"\x7fELF\x01\x02\x01\xca\xfe" + bytes(7)
    header = struct.pack(">16sHHIIIIIHHHHHH", ident, 0xFE01, 20, 1, 0x02000100, 0, shoff, 0, 0x34, 0, 0, 0x28,
                         count, 4)
    out = header + bytes(shoff - len(header)) + b"".join(headers) + body + b"tail"
    return out, {"text": offsets[0], "data": offsets[1], "comment": offsets[2], "crcs": offsets[4]}


def crc_words(data: bytes) -> list[int]:
    model = Rpl.from_bytes(data)
    index = next(i for i, s in enumerate(model.sections) if s.type == 0x80000003)
    offset, size = struct.unpack_from(">II", data, 0x40 + index * 0x28 + 0x10)
    return list(struct.unpack(f">{size // 4}I", data[offset : offset + size]))


def section_field(data: bytes, index: int, at: int) -> int:
    return int(struct.unpack_from(">I", data, 0x40 + index * 0x28 + at)[0])


def test_reads_sections_names_and_inflated_data() -> None:
    data, _ = build()
    assert detect(data).name == "rpl"
    model = Rpl.from_bytes(data)
    assert model.member_names() == [".text", ".data", ".comment", ".shstrtab", "[5]", "[6]"]
    assert model.member(".text") == TEXT and model.member(".data") == DATA and model.member(".comment") == COMMENT
    summary = model.summary()
    assert summary["kind"] == "rpx" and summary["entry"] == 0x02000100
    assert [s["size"] for s in summary["sections"][1:5]] == [len(TEXT), len(DATA), len(COMMENT), len(SHSTRTAB)]
    assert summary["sections"][1]["flags_names"] == ["alloc", "execinstr", "deflated"]
    assert summary["crc_mismatches"] == []
    assert Rpl.from_bytes(build(rpx=False)[0]).summary()["kind"] == "rpl"


def test_info_json_follows_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from shaderkit.cli.info import info_record
    from shaderkit.schemas import schema_for

    data, offsets = build()
    record = json.loads(json.dumps(info_record(data, Rpl.from_bytes(data))))
    jsonschema.validate(record, schema_for(record))
    assert schema_for(record)["title"].endswith("(Cafe OS ELF)")
    assert record["sections"][2]["offset"] == offsets["data"] and record["sections"][2]["member"] == ".data"
    record["sections"][2]["offset"] = hex(offsets["data"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, schema_for(record))


def test_rebuilds_byte_for_byte_and_keeps_bytes_of_a_section_put_back_unchanged() -> None:
    data, _ = build()
    assert Rpl.from_bytes(data).to_bytes() == data
    model = Rpl.from_bytes(data)
    for name in model.member_names():
        model.replace_member(name, model.member(name))
    assert model.to_bytes() == data


def test_a_model_without_a_read_layout_is_laid_out_afresh() -> None:
    data, _ = build()
    model = Rpl.from_bytes(data)
    model.layout = None
    out = model.to_bytes()
    again = Rpl.from_bytes(out)
    assert [again.member(n) for n in again.member_names()] == [model.member(n) for n in model.member_names()]
    assert again.crc_mismatches() == [] and struct.unpack_from(">I", out, 0x20)[0] % 64 == 0


def test_same_size_edit_deflates_again_and_recomputes_its_crc() -> None:
    data, offsets = build()
    model = Rpl.from_bytes(data)
    edited = DATA.replace(b"GSH goes here ", b"new bytes now ", 1)
    model.replace_member(".data", edited)
    out = model.to_bytes()
    again = Rpl.from_bytes(out)
    assert again.member(".data") == edited and again.member(".text") == TEXT
    assert crc_words(out)[2] == zlib.crc32(edited) and crc_words(out)[1] == zlib.crc32(TEXT)
    assert again.crc_mismatches() == []
    # .text did not move; .data's new stream fits where the old one lay or went to the end, 64-aligned
    assert section_field(out, 1, 0x10) == offsets["text"]
    new_size = len(zlib.compress(edited, 6)) + 4
    old_size = section_field(data, 2, 0x14)
    at = section_field(out, 2, 0x10)
    assert section_field(out, 2, 0x14) == new_size
    assert at == offsets["data"] if new_size == old_size else at % 64 == 0 and at >= len(data) - 4


def test_a_grown_section_moves_to_the_end_and_the_rest_stays() -> None:
    data, offsets = build()
    model = Rpl.from_bytes(data)
    noise = random.Random(1).randbytes(len(DATA))  # incompressible: the stream grows
    model.replace_member(".data", noise)
    out = model.to_bytes()
    at = section_field(out, 2, 0x10)
    assert at == -(-len(data) // 64) * 64
    assert out[at : at + 4] == struct.pack(">I", len(noise)) and zlib.decompress(out[at + 4 :]) == noise
    body = 0x40 + 7 * 0x28  # .text's stored bytes and the gap after them stay
    assert out[body : offsets["data"]] == data[body : offsets["data"]]
    assert section_field(out, 3, 0x10) == offsets["comment"]
    assert crc_words(out)[2] == zlib.crc32(noise)


def test_a_loaded_section_keeps_its_size_others_may_change() -> None:
    model = Rpl.from_bytes(build()[0])
    with pytest.raises(UnsupportedOperation, match="loaded at 0x10000000"):
        model.replace_member(".data", DATA + b"x")
    model.replace_member(".comment", b"a longer comment than before")
    out = model.to_bytes()
    assert Rpl.from_bytes(out).member(".comment") == b"a longer comment than before"
    assert crc_words(out)[3] == zlib.crc32(b"a longer comment than before")


def test_shaders_inside_sections_are_members() -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    gsh = (root / "wiiu" / "gfd_vertex-program.gsh").read_bytes()
    data, _ = build(data=b"\0" * 64 + gsh + b"\0" * 16)
    found = [(item.path, item.format) for item in walk(data)]
    assert ("//.data//@0x40", "gsh") in found
    model = Rpl.from_bytes(data)
    assert model.member(".data")[0x40 : 0x40 + len(gsh)] == gsh
    # scan records the shader, not the executable holding it (an RPX is no shader)
    from shaderkit.cli.archive import scan_bytes

    assert [(r["path"], r["format"]) for r in scan_bytes("game.rpx", data)] == [("game.rpx//.data//@0x40", "gsh")]


@pytest.mark.parametrize("damage", ["truncated", "section past end", "bad zlib", "size word lies", "names index"])
def test_damaged_files_raise_shader_format_error(damage: str) -> None:
    data, offsets = build()
    blob = bytearray(data)
    if damage == "truncated":
        blob = blob[:0x30]
    elif damage == "section past end":
        blob[0x40 + 0x28 + 0x14 : 0x40 + 0x28 + 0x18] = struct.pack(">I", len(data))
    elif damage == "bad zlib":
        blob[offsets["text"] + 4 : offsets["text"] + 8] = b"\xff\xff\xff\xff"
    elif damage == "size word lies":
        blob[offsets["text"] : offsets["text"] + 4] = struct.pack(">I", len(TEXT) + 1)
    else:
        blob[0x32:0x34] = struct.pack(">H", 9)
    with pytest.raises(ShaderFormatError):
        model = Rpl.from_bytes(bytes(blob))
        model.member(".text")


def test_mutated_files_raise_only_shader_format_error() -> None:
    data, _ = build()
    rng = random.Random(5)
    for _ in range(300):
        blob = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            blob[rng.randrange(len(blob))] = rng.getrandbits(8)
        try:
            model = Rpl.from_bytes(bytes(blob))
            model.to_bytes()
            for name in model.member_names():
                model.member(name)
            list(walk(bytes(blob)))
        except ShaderFormatError:
            pass

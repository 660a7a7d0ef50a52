"""SARC: archives laid out by hand from the format facts (kinnay sarc.md), both byte orders."""

from __future__ import annotations

import struct

import pytest

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.archive.sarc import Sarc


def hand_hash(name: bytes) -> int:
    value = 0
    for byte in name:
        value = (value * 101 + byte) & 0xFFFFFFFF
    return value


def build(endian: str, files: list[tuple[bytes, bytes]], align: int = 0x80, tail: bytes = b"") -> bytes:
    """SFAT nodes sorted by hash, names 4-aligned, data at ``align``, members on ``align``."""
    order = sorted(range(len(files)), key=lambda i: hand_hash(files[i][0]))
    names = b""
    name_off = {}
    for i in order:
        name_off[i] = len(names)
        names += files[i][0] + b"\0"
        names += bytes(-len(names) % 4)
    head = 0x14 + 0xC + 0x10 * len(files) + 8 + len(names)
    data_offset = -(-head // align) * align
    body = b""
    spans = {}
    for i, (_, blob) in enumerate(files):
        body += bytes(-len(body) % align)
        spans[i] = (len(body), len(body) + len(blob))
        body += blob
    body += tail
    total = data_offset + len(body)
    out = struct.pack(endian + "4sHHIIHH", b"SARC", 0x14, 0xFEFF, total, data_offset, 0x100, 0)
    out += struct.pack(endian + "4sHHI", b"SFAT", 0xC, len(files), 101)
    for i in order:
        out += struct.pack(endian + "IIII", hand_hash(files[i][0]), 0x01000000 | name_off[i] // 4, *spans[i])
    out += struct.pack(endian + "4sHH", b"SFNT", 8, 0) + names
    out += bytes(data_offset - len(out)) + body
    return out


FILES = [(b"Shader/a.bfsha", b"FSHA" + bytes(100)), (b"b.txt", b"hello"), (b"dir/c.bin", bytes(range(50)))]


@pytest.mark.parametrize("endian", [">", "<"])
def test_parse_and_rebuild_exact(endian: str) -> None:
    data = build(endian, FILES, tail=b"\0" * 16)
    sarc = Sarc.from_bytes(data)
    assert sarc.endian == endian
    assert {m.name: m.data for m in sarc.members} == {n.decode(): b for n, b in FILES}
    assert sarc.to_bytes() == data


@pytest.mark.parametrize("endian", [">", "<"])
def test_edit_members(endian: str) -> None:
    sarc = Sarc.from_bytes(build(endian, FILES))
    sarc.set("b.txt", b"a longer text than before" * 10)
    sarc.set("new/d.bin", b"new member")
    again = Sarc.from_bytes(sarc.to_bytes())
    assert again.get("b.txt") == b"a longer text than before" * 10
    assert again.get("new/d.bin") == b"new member"
    assert again.get("Shader/a.bfsha") == FILES[0][1]
    # the edited archive equals one laid out by hand with the same alignment
    expected = build(endian, [*FILES[:1], (b"b.txt", b"a longer text than before" * 10), FILES[2],
                              (b"new/d.bin", b"new member")])
    assert sarc.to_bytes() == expected
    sarc.remove("new/d.bin")
    assert Sarc.from_bytes(sarc.to_bytes()).names() == ["Shader/a.bfsha", "b.txt", "dir/c.bin"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d[:4] + b"\x12\x34" + d[6:], "SARC"),
        (lambda d: d[:8] + struct.pack(">I", 5) + d[12:], "file size"),
        (lambda d: d[:0x1A] + struct.pack(">H", 0x3000) + d[0x1C:], "needs"),
        (lambda d: d[:0x28] + struct.pack(">I", 0x7FFFFFF0) + d[0x2C:], "outside the data section"),
        (lambda d: d[:0x10], "needs"),
    ],
)
def test_malformed_archives(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    data = mutate(bytearray(build(">", FILES)))
    with pytest.raises(ShaderFormatError, match=message):
        Sarc.from_bytes(bytes(data))

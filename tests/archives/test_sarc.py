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


def build_nameless(endian: str) -> bytes:
    """Two members stored by hash only (attributes 0, empty SFNT), data at 0x100, members 0x10-aligned."""
    head = struct.pack(endian + "4sHHIIHH", b"SARC", 0x14, 0xFEFF, 0x100 + 0x20, 0x100, 0x100, 0)
    head += struct.pack(endian + "4sHHI", b"SFAT", 0xC, 2, 101)
    head += struct.pack(endian + "IIII", 0x11111111, 0, 0x10, 0x20)  # node 0: the second member in data
    head += struct.pack(endian + "IIII", 0x22222222, 0, 0x00, 0x08)
    head += struct.pack(endian + "4sHH", b"SFNT", 8, 0)
    body = b"A" * 8 + bytes(8) + b"B" * 16
    return head + bytes(0x100 - len(head)) + body


@pytest.mark.parametrize("endian", [">", "<"])
def test_nameless_members_are_named_by_hash(endian: str) -> None:
    data = build_nameless(endian)
    sarc = Sarc.from_bytes(data)
    # file (data) order: the member at 0 has hash 0x22222222, the one at 0x10 has 0x11111111
    assert sarc.names() == ["0x22222222", "0x11111111"]
    assert sarc.get("0x11111111") == b"B" * 16
    assert sarc.get("0x22222222") == b"A" * 8
    assert [m["name"] for m in sarc.summary()["members"]] == ["0x22222222", "0x11111111"]
    assert sarc.to_bytes() == data
    with pytest.raises(KeyError):
        sarc.get("0x33333333")


@pytest.mark.parametrize("endian", [">", "<"])
def test_nameless_members_keep_hash_when_names_are_laid_out_again(endian: str) -> None:
    sarc = Sarc.from_bytes(build_nameless(endian))
    sarc.set("0x22222222", b"C" * 4)  # replace by its hash name
    sarc.set("new.bin", b"N" * 4)  # a named member: the name table is laid out anew
    out = sarc.to_bytes()
    count = struct.unpack_from(endian + "H", out, 0x1A)[0]
    assert count == 3
    nodes = [struct.unpack_from(endian + "IIII", out, 0x20 + 0x10 * i) for i in range(count)]
    new_hash = hand_hash(b"new.bin")
    # nodes sorted by hash; the nameless ones keep their hashes and attributes 0
    assert [n[0] for n in nodes] == sorted([0x11111111, 0x22222222, new_hash])
    by_hash = {n[0]: n for n in nodes}
    assert by_hash[0x11111111][1] == 0 and by_hash[0x22222222][1] == 0
    assert by_hash[new_hash][1] == 0x01000000  # first (only) name, at name-table offset 0
    names_at = 0x20 + 0x10 * count + 8
    assert out[names_at : names_at + 8] == b"new.bin\0"
    again = Sarc.from_bytes(out)
    assert again.names() == ["0x22222222", "0x11111111", "new.bin"]
    assert again.get("0x22222222") == b"C" * 4 and again.get("new.bin") == b"N" * 4

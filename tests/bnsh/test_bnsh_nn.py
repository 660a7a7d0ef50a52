"""nn::util helpers with values worked out by hand: _DIC bits and trie, _RLT grouping, _STR pool,
the file header and the block chain."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.binary import BinaryFileHeader, BlockHeader, read_chain
from shaderkit.formats.nn.rlt import RelocationEntry, RelocationSection, RelocationTable, group
from shaderkit.formats.nn.strpool import StringPool, read_string
from shaderkit.io.reader import Reader


def test_key_bits_count_from_the_last_byte() -> None:
    key = b"ab"  # 'a' = 0x61, 'b' = 0x62
    assert [dic.key_bit(key, n) for n in range(8)] == [0, 1, 0, 0, 0, 1, 1, 0]
    assert [dic.key_bit(key, n) for n in range(8, 16)] == [1, 0, 0, 0, 0, 1, 1, 0]
    assert dic.key_bit(key, 16) == 0 and dic.key_bit(key, -1) == 0


def test_trie_of_one_and_two_keys_by_hand() -> None:
    one = dic.build(["a"])
    # 'a' has bit 0 set: the entry points at itself on 1 and back at the root on 0
    assert [(e.ref_bit, e.left, e.right) for e in one] == [(-1, 1, 0), (0, 0, 1)]
    two = dic.build(["a", "b"])
    # "b" (0x62) differs from the empty root key first at bit 1; it hangs below "a" on a's 0 side
    assert [(e.ref_bit, e.left, e.right) for e in two] == [(-1, 1, 0), (0, 2, 1), (1, 0, 2)]
    assert dic.find(two, "a") == 1 and dic.find(two, "b") == 2 and dic.find(two, "c") is None
    assert dic.find(dic.build([]), "a") is None


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(ValueError):
        dic.build(["x", "x"])


@given(st.lists(st.text(alphabet="abcdefgh_XYZ0123", min_size=1, max_size=12), unique=True, max_size=40))
def test_every_key_is_found_again(keys: list[str]) -> None:
    entries = dic.build(keys)
    assert len(entries) == len(keys) + 1
    for index, key in enumerate(keys, 1):
        assert dic.find(entries, key) == index
    offsets = list(range(0, 8 * len(entries), 8))
    packed = dic.pack(entries, offsets)
    assert len(packed) == dic.size(len(keys))
    assert packed[:4] == b"_DIC" and struct.unpack_from("<i", packed, 4)[0] == len(keys)


def test_relocation_grouping_by_hand() -> None:
    # two chunks of two pointers, (0x40 - 0x20) / 8 = 4 words apart
    assert group([0x10, 0x18, 0x40, 0x48]) == [RelocationEntry(0x10, 2, 2, 4)]
    # a chunk of two is not continued by a single pointer
    assert group([0x10, 0x18, 0x40]) == [RelocationEntry(0x10, 1, 2, 0), RelocationEntry(0x40, 1, 1, 0)]
    # 200 words apart is further than any skip the tool uses: two entries
    far = 0x18 + 8 * 200
    assert group([0x10, far]) == [RelocationEntry(0x10, 1, 1, 0), RelocationEntry(far, 1, 1, 0)]
    assert group([]) == []
    assert RelocationEntry(0x80, 2, 2, 8).pointers() == [0x80, 0x88, 0xD0, 0xD8]


@given(st.sets(st.integers(0, 400)).map(lambda s: [8 * v for v in s]))
def test_grouping_covers_each_pointer_once(pointers: list[int]) -> None:
    entries = group(pointers)
    covered = [p for e in entries for p in e.pointers()]
    assert sorted(covered) == sorted(pointers)


def test_relocation_table_pack_and_read() -> None:
    table = RelocationTable([RelocationSection(0, 0x40, [RelocationEntry(0x20, 1, 1, 0)]),
                             RelocationSection(0x40, 0, [], first_entry=1)])
    raw = bytes(0x40) + table.pack(0x40)
    # header 0x10 + 2 sections * 0x18 + 1 entry * 8
    assert len(raw) == 0x40 + 0x10 + 0x30 + 8
    assert raw[0x40:0x44] == b"_RLT" and struct.unpack_from("<I", raw, 0x44)[0] == 0x40
    back = RelocationTable.read(Reader(raw), 0x40)
    assert back == table


def test_string_pool_layout_by_hand() -> None:
    block, where, size = StringPool(["ab"]).build(0)
    assert block == (b"_STR" + struct.pack("<III", 0, 0x20, 0) + struct.pack("<i", 1)
                     + b"\0\0\0\0" + b"\x02\x00ab\0\0" + b"\0\0")
    assert where == {"": 0x14, "ab": 0x18} and size == 0x1E
    r = Reader(block)
    assert read_string(r, 0x18) == "ab" and read_string(r, 0x14) == ""
    assert StringPool.read(r, 0).strings == ["ab"]


def test_header_and_block_chain() -> None:
    header = BinaryFileHeader(b"TEST\0\0\0\0", 1, 2, 3, 12, 0, 0)
    head = header.pack(0, 0x20, 0x40, 0x40)
    chain = BlockHeader.pack(b"aaaa", 0x10, 0x10) + BlockHeader.pack(b"bbbb", 0, 0x10)
    data = head + chain
    data = data[:0x1C] + struct.pack("<I", len(data)) + data[0x20:]
    r = Reader(data)
    back = BinaryFileHeader.read(r, b"TEST\0\0\0\0")
    assert back == header and back.version == "3.2.1" and back.alignment == 4096
    assert [(o, b.signature) for o, b in read_chain(r, 0x20)] == [(0x20, b"aaaa"), (0x30, b"bbbb")]
    looping = data[:0x34] + struct.pack("<I", 0xFFFFFFF0) + data[0x38:]
    with pytest.raises(ShaderFormatError):
        read_chain(Reader(looping), 0x20)
    backwards = data[:0x24] + struct.pack("<I", 4) + data[0x28:]
    with pytest.raises(ShaderFormatError):
        read_chain(Reader(backwards), 0x20)


def test_dictionary_with_the_early_zero_signature() -> None:
    """Early files store 4 zero bytes where later ones store ``_DIC``; both read, pack keeps either."""
    from shaderkit.io.reader import Reader

    keys = ["a", "b"]
    entries = dic.build(keys)
    # by hand: header (signature, i32 count 2) then 3 entries of 16 bytes; keys at 0x100, 0x104, 0x108
    early = dic.pack(entries, [0x100, 0x104, 0x108], dic.EARLY_SIGNATURE)
    assert early[:8] == bytes(4) + b"\x02\x00\x00\x00" and len(early) == 8 + 3 * 16
    assert dic.pack(entries, [0x100, 0x104, 0x108])[:4] == b"_DIC"
    names = {0x100: "", 0x104: "a", 0x108: "b"}
    got = dic.read(Reader(early + bytes(16)), 0, names.__getitem__)
    assert [e.key for e in got] == ["", "a", "b"]
    with pytest.raises(ShaderFormatError, match="dictionary signature"):
        dic.read(Reader(b"_DIX" + early[4:]), 0, names.__getitem__)

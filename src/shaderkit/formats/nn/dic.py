"""``_DIC``: the nn::util::ResDic Patricia trie used for name look-up.

Layout: ``_DIC``, i32 count (root excluded), then count+1 entries of 0x10 bytes
{i32 ref_bit, u16 child[0], u16 child[1], u64 key pointer}. Entry 0 is the root (ref bit -1,
empty key). A key's bit ``n`` is bit ``n & 7`` of the byte ``n >> 3`` counted from the *end* of
the key, 0 past its start. Entries appear in key insertion order; :func:`build` reproduces the
trie from the keys alone.

Early files (Switch BFRES with header version 8.0.0, as in Super Mario Odyssey) store four zero bytes
where later ones store the ``_DIC`` signature (BfresLibrary ``ResDict.Load``: "Signature value
for switch. Always 0x00000000"); both are read, and :func:`pack` writes the one it is given.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from shaderkit.dataclass import dataclass
from shaderkit.io.reader import Reader

ENTRY = struct.Struct("<iHHQ")
HEADER_SIZE = 8
SIGNATURE = b"_DIC"
#: the signature word of early files (Switch BFRES version 8.0.0): four zero bytes
EARLY_SIGNATURE = bytes(4)


@dataclass(frozen=True)
class DicEntry:
    """One node of a _DIC Patricia trie: reference bit, left/right node indices and key."""
    ref_bit: int
    left: int
    right: int
    key: str


def key_bit(key: bytes, bit: int) -> int:
    """Bit ``bit`` of ``key``, counted from the last byte, LSB first; -1 and past-the-start give 0."""
    index = bit >> 3
    if bit < 0 or index >= len(key):
        return 0
    return (key[len(key) - 1 - index] >> (bit & 7)) & 1


def _first_difference(a: bytes, b: bytes) -> int:
    """Lowest bit index where ``a`` and ``b`` differ (under :func:`key_bit`)."""
    for index in range(max(len(a), len(b))):
        x = a[len(a) - 1 - index] if index < len(a) else 0
        y = b[len(b) - 1 - index] if index < len(b) else 0
        if x != y:
            diff = x ^ y
            return index * 8 + (diff & -diff).bit_length() - 1
    raise ValueError(f"duplicate dictionary key {a!r}")


def _search(entries: list[list[int]], key: bytes, limit: int | None = None) -> tuple[int, int]:
    """Walk from the root while ref bits grow; returns (parent, child). With ``limit``, stop
    before an entry whose ref bit reaches it. Ref bits strictly increase, so the walk ends."""
    parent = 0
    child = entries[0][1]
    while entries[parent][0] < entries[child][0] and (limit is None or entries[child][0] < limit):
        parent = child
        child = entries[child][1 + key_bit(key, entries[child][0])]
    return parent, child


def build(keys: list[str]) -> list[DicEntry]:
    """The trie for ``keys`` in insertion order: root first, then one entry per key."""
    raw = [k.encode("utf-8") for k in keys]
    # entries as mutable [ref_bit, child0, child1]
    entries: list[list[int]] = [[-1, 0, 0]]
    names: list[bytes] = [b""]
    seen: set[bytes] = set()
    for key in raw:
        if key in seen:
            raise ValueError(f"duplicate dictionary key {key!r}")
        seen.add(key)
        index = len(entries)
        _, closest = _search(entries, key)
        ref = _first_difference(key, names[closest])
        parent, child = _search(entries, key, ref)
        new = [ref, 0, 0]
        bit = key_bit(key, ref)
        new[1 + bit] = index
        new[2 - bit] = child
        entries.append(new)
        names.append(key)
        entries[parent][1 + key_bit(key, entries[parent][0])] = index
    return [DicEntry(e[0], e[1], e[2], n.decode("utf-8")) for e, n in zip(entries, names)]


def find(entries: list[DicEntry], key: str) -> int | None:
    """Index (1-based, as in the file) of ``key``, or None."""
    if len(entries) < 2:
        return None
    raw = key.encode("utf-8")
    table = [[e.ref_bit, e.left, e.right] for e in entries]
    _, child = _search(table, raw)
    return child if entries[child].key == key and child else None


def read(r: Reader, offset: int, string_at: Callable[[int], str]) -> list[DicEntry]:
    """The entries of the dictionary at ``offset``; ``string_at(ptr)`` resolves a key pointer."""
    r.seek(offset, "dictionary offset")
    if bytes(r.peek(4)) == EARLY_SIGNATURE:
        r.skip(4)
    else:
        r.expect(SIGNATURE, "dictionary signature")
    count = r.i32()
    r.check_count(count + 1, ENTRY.size, "dictionary entries")
    start = r.pos
    raw = r.read(ENTRY.size * (count + 1), "dictionary entries")
    out: list[DicEntry] = []
    for index, (ref, left, right, key_ptr) in enumerate(ENTRY.iter_unpack(raw)):
        if left > count or right > count:
            raise r.error(f"entry {index}: child index {max(left, right)} is past the {count} entries",
                          start + ENTRY.size * index)
        out.append(DicEntry(ref, left, right, string_at(key_ptr)))
    return out


def pack(entries: list[DicEntry], key_offsets: list[int], signature: bytes = SIGNATURE) -> bytes:
    """Dictionary bytes; ``key_offsets[i]`` is where entry i's key string lies; ``signature`` is
    ``_DIC`` or, for early files, :data:`EARLY_SIGNATURE`."""
    out = bytearray(signature + struct.pack("<i", len(entries) - 1))
    for entry, key_offset in zip(entries, key_offsets):
        out += ENTRY.pack(entry.ref_bit, entry.left, entry.right, key_offset)
    return bytes(out)


def size(count: int) -> int:
    """Bytes a dictionary with ``count`` keys takes."""
    return HEADER_SIZE + (count + 1) * ENTRY.size

"""Hand-packed DXBC pieces shared by the synthetic-file tests, and their word-mutation check."""

from __future__ import annotations

import struct
from collections.abc import Iterable

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.checksum import dxbc_checksum
from shaderkit.formats.dxbc.container import DxbcContainer


def container(*chunks: tuple[bytes, bytes], gap: bytes = b"", tail: bytes = b"") -> bytes:
    """A DXBC file packed by hand: header, chunk index, ``gap`` before the first chunk, chunks
    4-aligned, ``tail``, checksum."""
    pos = 32 + 4 * len(chunks) + len(gap)
    body, offsets = gap, []
    for cc, payload in chunks:
        pad = -pos % 4
        body += bytes(pad)
        offsets.append(pos + pad)
        body += cc + struct.pack("<I", len(payload)) + payload
        pos += pad + 8 + len(payload)
    body += tail
    total = 32 + 4 * len(chunks) + len(body)
    head = b"DXBC" + bytes(16) + struct.pack("<3I", 1, total, len(chunks)) + struct.pack(f"<{len(chunks)}I", *offsets)
    data = bytearray(head + body)
    data[4:20] = dxbc_checksum(bytes(data))
    return bytes(data)


class Blob:
    """An unstructured block, appended piece by piece; ``add`` returns each piece's offset."""

    def __init__(self) -> None:
        self.data = b""

    def add(self, piece: bytes) -> int:
        at = len(self.data)
        self.data += piece
        return at


def assert_word_mutants_rebuild(data: bytes, words: Iterable[int]) -> int:
    """Overwrite each aligned u32 after the DXBC header with each of ``words``: every mutant the
    parser accepts rebuilds byte for byte and summarises; the others raise ShaderFormatError.
    Returns how many were accepted."""
    words = tuple(words)
    accepted = 0
    for at in range(32, len(data) - 3, 4):
        for word in words:
            mutant = data[:at] + struct.pack("<I", word) + data[at + 4 :]
            try:
                model = DxbcContainer.from_bytes(mutant)
            except ShaderFormatError:
                continue
            assert model.to_bytes() == mutant, (at, word)
            model.summary()
            accepted += 1
    return accepted

"""Real fxc output: token round trip for every program and listing equality with fxc's own text."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import corpus_files, corpus_params
from shaderkit.isa.sm4.decode import decode, decode_bytes
from shaderkit.isa.sm4.encode import encode, encode_bytes

#: listings (blank and ``//`` lines dropped, right-trimmed) identical to fxc's; raise it when
#: the disassembler improves so that regressions fail.
MIN_IDENTICAL = 389


def programs(data: bytes, depth: int = 0) -> Iterator[bytes]:
    """SHDR/SHEX payloads of a container, its LIBF children and containers embedded in FX10
    (a small local chunk walk, independent of the container model)."""
    count = struct.unpack_from("<I", data, 28)[0]
    for offset in struct.unpack_from(f"<{count}I", data, 32):
        tag = data[offset : offset + 4]
        size = struct.unpack_from("<I", data, offset + 4)[0]
        payload = data[offset + 8 : offset + 8 + size]
        if tag in (b"SHDR", b"SHEX"):
            yield payload
        elif tag == b"LIBF" and depth < 3:
            yield from programs(payload, depth + 1)
        elif tag == b"FX10" and depth < 3:
            pos = payload.find(b"DXBC")
            while pos >= 0:
                inner = struct.unpack_from("<I", payload, pos + 24)[0]
                yield from programs(payload[pos : pos + inner], depth + 1)
                pos = payload.find(b"DXBC", pos + inner)


@pytest.mark.parametrize("path", corpus_params("dxbc", "*.dxbc"))
def test_token_round_trip(path: Path) -> None:
    data = path.read_bytes()
    found = 0
    for payload in programs(data):
        prog = decode_bytes(payload)
        assert encode_bytes(prog) == payload
        found += 1
    assert found or b"FX10" in data[:256], "no SHDR/SHEX program found"


def _normalise(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("//")]


def test_listing_matches_fxc() -> None:
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus dxbc/*.dxbc not found (set SHADERKIT_CORPUS)")
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.disasm import listing

    misses = []
    for path in files:
        ours = _normalise(listing(DxbcContainer.from_bytes(path.read_bytes())))
        theirs = _normalise(path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm").read_text("latin-1"))
        if ours != theirs:
            misses.append(path.name)
    identical = len(files) - len(misses)
    assert identical >= MIN_IDENTICAL, f"{identical} of {len(files)} identical; misses: {misses}"


def test_edit_changes_encoded_tokens() -> None:
    """Editing the model changes the words (the encoder builds them, it does not replay input)."""
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus not found")
    payload = next(programs(files[0].read_bytes()))
    prog = decode_bytes(payload)
    ret = prog.instructions.pop()
    assert ret.opcode == 62  # every fxc program ends with ret
    words = encode(prog)
    assert words[1] == len(words) == len(payload) // 4 - 1
    prog.instructions.append(ret)
    assert encode_bytes(prog) == payload
    assert decode(words).instructions == prog.instructions[:-1]

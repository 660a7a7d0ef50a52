"""Yaz0: streams worked out by hand, round trips, and refused bombs / malformed streams."""

from __future__ import annotations

import random
import struct

import pytest

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.archive import yaz0
from shaderkit.formats.archive.compressed import Yaz0File


def header(size: int) -> bytes:
    return b"Yaz0" + struct.pack(">III", size, 0, 0)


def test_hand_made_stream_decodes() -> None:
    # flags 1110_0000: literals a, b, c, then a back-reference N=4 (length 6), distance 3 -> "abcabcabc"
    stream = header(9) + bytes([0xE0]) + b"abc" + bytes([0x40, 0x02])
    assert yaz0.decompress(stream) == b"abcabcabc"


def test_long_reference_form() -> None:
    # one literal "x", then the three-byte form 0R RR NN: distance 1, length 0x12 + 0x10 = 0x22
    stream = header(1 + 0x22) + bytes([0x80]) + b"x" + bytes([0x00, 0x00, 0x10])
    assert yaz0.decompress(stream) == b"x" * 0x23


@pytest.mark.parametrize("level", [0, 1])
def test_round_trip(level: int) -> None:
    rng = random.Random(17)
    samples = [b"", b"a", bytes(1000), bytes(rng.getrandbits(8) for _ in range(3000)),
               b"".join(rng.choice([b"GX2", b"shader", b"\0\0\0\1"]) for _ in range(2000))]
    for data in samples:
        packed = yaz0.compress(data, level=level)
        assert yaz0.decompress(packed) == data
    assert len(yaz0.compress(bytes(10000))) < 200  # the matcher finds the long runs


def test_model_keeps_original_stream_until_changed() -> None:
    stream = header(9) + bytes([0xE0]) + b"abc" + bytes([0x40, 0x02])
    model = Yaz0File.from_bytes(stream)
    assert model.to_bytes() == stream
    model.payload = b"abcd"
    assert yaz0.decompress(model.to_bytes()) == b"abcd"


@pytest.mark.parametrize(
    "stream, message",
    [
        (header(1 << 31) + b"\0" * 64, "exceeds the limit"),
        (header(1 << 20) + b"\0" * 64, "cannot come from"),
        (header(9) + bytes([0xF0]) + b"abc", "ends after 3 of 9"),
        (header(9) + bytes([0x00, 0x10, 0x00]), "reaches 1 bytes back with only 0 written"),
        (header(9) + bytes([0x80]) + b"a" + bytes([0x00]), "runs past the end"),
        (b"Yaz0\0\0", "header needs"),
    ],
)
def test_bad_streams_raise_format_errors(stream: bytes, message: str) -> None:
    with pytest.raises(ShaderFormatError, match=message):
        yaz0.decompress(stream)


def test_limit_is_a_parameter() -> None:
    data = yaz0.compress(bytes(5000))
    with pytest.raises(ShaderFormatError, match="exceeds the limit of 4096"):
        yaz0.decompress(data, limit=4096)


def test_recompress_keeps_the_unchanged_head() -> None:
    rng = random.Random(5)
    old = b"".join(rng.choice([b"GX2", b"shader", b"\0\0\0\1", bytes([rng.getrandbits(8)])]) for _ in range(16000))
    stream = yaz0.compress(old)
    checkpoints: list[tuple[int, int]] = []
    assert yaz0.decompress(stream, checkpoints=checkpoints) == old
    assert len(checkpoints) > 10
    for new in (old[:-100] + b"changed" + old[-93:], old + b"grown", old[:50000], b"x" + old[1:]):
        again = yaz0.recompress(stream, old, new, checkpoints)
        assert yaz0.decompress(again) == new
    tail_change = old[:-100] + b"changed" + old[-93:]
    again = yaz0.recompress(stream, old, tail_change, checkpoints)
    common = next(i for i, (a, b) in enumerate(zip(again, stream)) if a != b)
    assert common > len(stream) * 0.9  # only the tail was re-encoded


def test_recompress_reuses_the_stream_around_a_resized_middle() -> None:
    rng = random.Random(9)
    words = [b"GX2", b"shader", b"\0\0\0\1", b"microcode", b"FSHA"]
    old = b"".join(rng.choice(words) + bytes([rng.getrandbits(8)]) for _ in range(12000))
    stream = yaz0.compress(old)
    checkpoints: list[tuple[int, int]] = []
    yaz0.decompress(stream, checkpoints=checkpoints)
    for new in (old[:30000] + b"inserted bytes" * 50 + old[30000:],     # grows in the middle
                old[:30000] + old[31000:],                              # shrinks in the middle
                b"HEAD" + old[4:30000] + b"x" * 300 + old[30000:],      # two changes, one shift
                bytes(64) + old[64:]):                                  # same size, first bytes
        again = yaz0.recompress(stream, old, new, checkpoints)
        assert yaz0.decompress(again) == new
    grown = old[:30000] + b"inserted bytes" * 50 + old[30000:]
    again = yaz0.recompress(stream, old, grown, checkpoints)
    # most of the original stream survives: the common tail is the original bytes
    tail = next(i for i in range(1, len(stream)) if again[-i] != stream[-i])
    assert tail > len(stream) // 3
    assert len(again) < len(stream) + 400

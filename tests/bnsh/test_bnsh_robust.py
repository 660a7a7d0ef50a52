"""Bad input: truncation, corrupt pointers, counts, dictionaries, relocations and strings must
raise ShaderFormatError and nothing else."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError, UnsupportedOperation
from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.bnsh.model import UnknownStageCode
from shaderkit.formats.bnsh.nvn import NvnProgramFile
from shaderkit.formats.nn.rlt import RelocationTable
from shaderkit.io.reader import Reader

LGPE = "lgpe_bm_signboard03_2_area02_3.bnsh_vert"


def _files() -> list[bytes]:
    return [p.read_bytes() for p in corpus_files("nx", "*.bnsh*")]


def _lgpe() -> bytes:
    files = corpus_files("nx", LGPE)
    if not files:
        pytest.skip("corpus file nx/" + LGPE + " not found")
    return files[0].read_bytes()


def _exercise(data: bytes) -> None:
    """Parse; when that works, the model rebuilds the input byte for byte and every other entry
    point works too."""
    try:
        model = Bnsh.from_bytes(data)
    except ShaderFormatError:
        return
    model.summary()
    assert model.to_bytes() == data
    try:
        relaid = model.relayout()
    except UnsupportedOperation:  # structures kept as raw bytes can only stay where they lay
        assert model._source is not None
        assert model._source.unknown_pointers or any(
            isinstance(code, UnknownStageCode) for v in model.variations for _, p in v.programs() for code in p.stages)
        return
    Bnsh.from_bytes(relaid)


def _patch(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into("<" + fmt, out, offset, value)
    return bytes(out)


def test_truncation_at_every_offset() -> None:
    files = _files()
    if not files:
        pytest.skip("no BNSH corpus")
    for data in files:
        for n in range(len(data)):
            cut = data[:n]
            with pytest.raises(ShaderFormatError):
                Bnsh.from_bytes(cut)
            if n >= 0x20:
                # with a matching size field the parser gets further before it runs out
                with pytest.raises(ShaderFormatError):
                    Bnsh.from_bytes(_patch(cut, 0x1C, "I", n))


def test_raw_nvn_truncation() -> None:
    files = corpus_files("nx", "smo_nvn_font_shader.bin")
    if not files:
        pytest.skip("no NVN blob")
    data = files[0].read_bytes()
    for n in range(0, len(data), 3):
        try:
            model = NvnProgramFile.from_bytes(data[:n])
        except ShaderFormatError:
            continue
        model.summary()
        assert model.to_bytes() == data[:n]


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "message"),
    [
        (0x108, "Q", 0x100, "referenced twice"),  # vertex code pointer -> the program itself
        (0x1E0, "Q", 0x1E0, "referenced twice"),  # reflection stage pointer -> the reflection itself
        (0x108, "Q", 0xFFFFFFFF00, "outside"),  # pointer past the end of the file
        (0x80, "Q", 0x3300, "variations"),  # variation array past the end
        (0x7C, "I", 0xFFFFFFFF, "count"),  # variation count
        (0xF0C, "i", 0x10000, "count"),  # dictionary entry count
        (0xF24, "H", 9, "child index"),  # dictionary child past the 4 entries
        (0x3170, "I", 0x7FFFFFF0, "past the file end"),  # relocation entry outside the file
        (0x30D8, "i", 0x7FFFFFF, "count"),  # relocation section count
        (0x3018, "H", 0x7FFF, "runs past"),  # string length past the pool
        (0x302F, "B", 0x41, "no terminator"),  # "worldViewProjConstant" loses its NUL
        (0x10, "I", 0x30D0, "no terminator"),  # file name points at "_RLT" (length 0, no NUL)
        (0x1B8, "I", 0x7FFFFFF, "outside"),  # stage data size
        (0xF18, "Q", 0x7FFFFFFF, "runs past"),  # dictionary key pointer
        (0x160, "I", 0x7FFFFFFF, "object size"),  # program object size
        (0x0C, "H", 0xFFFE, "byte-order"),  # big-endian mark
        (0x1D, "B", 0x40, "file size"),  # size field
    ],
)
def test_corrupt_fields_raise_format_errors(offset: int, fmt: str, value: int, message: str) -> None:
    bad = _patch(_lgpe(), offset, fmt, value)
    with pytest.raises(ShaderFormatError) as info:
        Bnsh.from_bytes(bad)
    assert message in str(info.value)
    assert info.value.offset is not None


def _pointer_positions(data: bytes) -> list[int]:
    table = RelocationTable.read(Reader(data), struct.unpack_from("<I", data, 0x18)[0])
    return [p for s in table.sections for e in s.entries for p in e.pointers()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupt_pointers_and_counts(draw: st.DataObject) -> None:
    files = _files()
    if not files:
        pytest.skip("no BNSH corpus")
    data = draw.draw(st.sampled_from(files))
    positions = _pointer_positions(data)
    out = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 3))):
        kind = draw.draw(st.sampled_from(["pointer", "word", "byte"]))
        if kind == "pointer":
            pos = draw.draw(st.sampled_from(positions))
            value = draw.draw(st.one_of(st.integers(0, len(data) + 16), st.sampled_from(positions),
                                        st.integers(0, 2**64 - 1)))
            struct.pack_into("<Q", out, pos, value)
        elif kind == "word":
            pos = draw.draw(st.integers(0, (len(data) - 4) // 4)) * 4
            struct.pack_into("<I", out, pos, draw.draw(st.integers(0, 2**32 - 1)))
        else:
            pos = draw.draw(st.integers(0, len(data) - 1))
            out[pos] = draw.draw(st.integers(0, 255))
    _exercise(bytes(out))


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=0x400))
def test_random_bytes_behind_a_valid_signature(tail: bytes) -> None:
    head = b"BNSH\0\0\0\0" + bytes([5, 1, 2, 0, 0xFF, 0xFE, 12, 0])
    data = bytearray(head + tail)
    if len(data) >= 0x20:
        struct.pack_into("<I", data, 0x1C, len(data))
    _exercise(bytes(data))
    try:
        nvn = NvnProgramFile.from_bytes(bytes(tail))
    except ShaderFormatError:
        return
    assert nvn.to_bytes() == bytes(tail)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupt_synthetic_file(draw: st.DataObject) -> None:
    """The synthetic file has source, source-array and six-stage programs: corrupt those too."""
    from test_bnsh_synthetic import make_model

    data = _SYNTHETIC.setdefault("data", make_model().to_bytes())
    positions = _SYNTHETIC.setdefault("pointers", _pointer_positions(data))
    out = bytearray(data)
    for _ in range(draw.draw(st.integers(1, 3))):
        if draw.draw(st.booleans()):
            pos = draw.draw(st.sampled_from(positions))
            struct.pack_into("<Q", out, pos, draw.draw(st.integers(0, len(data) + 16)))
        else:
            pos = draw.draw(st.integers(0, (len(data) - 4) // 4)) * 4
            struct.pack_into("<I", out, pos, draw.draw(st.integers(0, 2**32 - 1)))
    _exercise(bytes(out))


_SYNTHETIC: dict[str, Any] = {}

"""Untrusted bytes: truncation and corruption raise ShaderFormatError and nothing else."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_wiiu_synthetic import build_archive, build_sharc

from conftest import corpus_files, corpus_params
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.agl.sharc import Sharc
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.gfd.gsh import Gsh

PARSERS: dict[str, type[ShaderFile]] = {".gsh": Gsh, ".sharcfb": Sharcfb, ".sharc": Sharc}
SMALL_SYNTH = build_archive("<").to_bytes()
SMALL_SYNTH_BE = build_archive(">").to_bytes()


def _parse_or_error(cls: type[ShaderFile], data: bytes) -> ShaderFile | None:
    """Parse; a ShaderFormatError is fine, anything else fails the test. Accepted input round-trips."""
    try:
        model = cls.from_bytes(data)
    except ShaderFormatError as exc:
        assert exc.offset is None or 0 <= exc.offset <= max(len(data), 0x100000000)
        return None
    json.dumps(model.summary(), allow_nan=False)  # JSON-ready whatever the bytes were
    model.problems()
    assert model.to_bytes() == data
    return model


def _offsets(size: int) -> list[int]:
    """Every offset of small files; for big ones every offset near both ends and a stride between."""
    if size <= 0x1000:
        return list(range(size))
    tail = 0x200 if size <= 0x10000 else 0x80  # every cut near the end parses almost the whole file
    return sorted(set(range(0x400)) | set(range(size - tail, size)) | set(range(0x400, size, max(13, size // 800))))


def _with_size_field(data: bytes, cut: int, at: int, endian: str) -> bytes:
    """``data[:cut]`` with its file-size word at ``at`` patched, so parsing goes past the header."""
    out = bytearray(data[:cut])
    if cut >= at + 4:
        struct.pack_into(endian + "I", out, at, cut)
    return bytes(out)


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.gsh"))
def test_gsh_truncated_everywhere(path: Path) -> None:
    data = path.read_bytes()
    for cut in _offsets(len(data)):
        model = _parse_or_error(Gsh, data[:cut])
        # a cut on a block boundary still parses, but verify reports the missing end block
        assert model is None or model.problems() == ["no end block: the file looks truncated"], cut


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharc*"))
def test_sharc_family_truncated_everywhere(path: Path) -> None:
    data = path.read_bytes()
    cls = PARSERS[path.suffix]
    endian = "<" if data[:1] in (b"B", b"A") else ">"
    for cut in _offsets(len(data)):
        assert _parse_or_error(cls, data[:cut]) is None, cut
        _parse_or_error(cls, _with_size_field(data, cut, 8, endian))


@pytest.mark.parametrize(
    ("cls", "data"),
    [(Sharcfb, SMALL_SYNTH), (Sharcfb, SMALL_SYNTH_BE), (Sharc, build_sharc("<").to_bytes()),
     (Sharc, build_sharc(">").to_bytes())],
    ids=["sharcfb-le", "sharcfb-be", "sharc-le", "sharc-be"],
)
def test_synthetic_truncated(cls: type[ShaderFile], data: bytes) -> None:
    endian = "<" if data[:1] in (b"B", b"A") else ">"
    for cut in _offsets(len(data)):
        assert _parse_or_error(cls, data[:cut]) is None, cut
        _parse_or_error(cls, _with_size_field(data, cut, 8, endian))


def _corpus_blobs() -> list[tuple[type[ShaderFile], bytes]]:
    blobs: list[tuple[type[ShaderFile], bytes]] = [
        (Sharcfb, SMALL_SYNTH), (Sharcfb, SMALL_SYNTH_BE), (Sharc, build_sharc(">").to_bytes()),
    ]
    for pattern in ("rio_0*.gsh", "*.sharc", "*.sharcfb"):
        blobs += [(PARSERS[p.suffix], p.read_bytes()) for p in corpus_files("wiiu", pattern)]
    return blobs


BLOBS = _corpus_blobs()
INTERESTING = st.sampled_from([0, 1, 2, 3, 4, 0x10, 0x7F, 0x80, 0xFF, 0x100, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                               0xFFFFFFF0, 0xD0600000, 0xD06FFFFF, 0xCA700000, 0xCA7FFFFF, 0x00100000])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 64), where=st.integers(0, 1 << 30),
       value=st.one_of(INTERESTING, st.integers(0, 0xFFFFFFFF)), little=st.booleans(), count=st.integers(1, 3))
def test_corrupted_words(which: int, where: int, value: int, little: bool, count: int) -> None:
    cls, original = BLOBS[which % len(BLOBS)]
    data = bytearray(original)
    for k in range(count):
        at = (where * (k + 7)) % (len(data) - 4)
        struct.pack_into("<I" if little else ">I", data, at, value)
    _parse_or_error(cls, bytes(data))


@settings(max_examples=150, deadline=None)
@given(which=st.integers(0, 64), where=st.integers(0, 1 << 30), junk=st.binary(min_size=1, max_size=16))
def test_corrupted_bytes(which: int, where: int, junk: bytes) -> None:
    cls, original = BLOBS[which % len(BLOBS)]
    at = where % len(original)
    _parse_or_error(cls, original[:at] + junk + original[at + len(junk):])


# -- specific bad inputs named by the issue -------------------------------------------------------
def test_wrong_endian_field() -> None:
    data = bytearray(SMALL_SYNTH)
    struct.pack_into("<I", data, 0xC, 0)  # BAHS says little-endian, the field says big
    with pytest.raises(ShaderFormatError, match="endian field"):
        Sharcfb.from_bytes(bytes(data))


def test_file_size_disagrees() -> None:
    data = bytearray(SMALL_SYNTH_BE)
    struct.pack_into(">I", data, 8, len(data) + 1)
    with pytest.raises(ShaderFormatError, match="file size field"):
        Sharcfb.from_bytes(bytes(data))


def _find_macro(data: bytes, name: bytes, endian: str) -> int:
    """Start of the macro element ``name`` with values 0, 1, 2 (the name sits at +0x10)."""
    at = data.find(name + b"\0" + b"0\x001\x002\x00") - 0x10
    assert struct.unpack_from(endian + "3I", data, at + 4) == (len(name) + 1, 3, len(b"MACRO_A") + 1)
    return at


@pytest.mark.parametrize("endian", ["<", ">"])
def test_value_count_past_the_end(endian: str) -> None:
    data = bytearray(build_archive(endian).to_bytes())
    at = _find_macro(bytes(data), b"A", endian)
    struct.pack_into(endian + "I", data, at + 8, 0x7FFFFFFF)
    with pytest.raises(ShaderFormatError, match="declares 2147483647 values, [0-9]+ bytes left"):
        Sharcfb.from_bytes(bytes(data))


@pytest.mark.parametrize("endian", ["<", ">"])
def test_base_index_beyond_binaries(endian: str) -> None:
    archive = build_archive(endian)
    archive.programs[1].base_index = 25  # 'geo' needs 6 binaries from 25: 31 > 30
    with pytest.raises(ShaderFormatError, match="base index 25 .* needs 31 binaries, have 30"):
        Sharcfb.from_bytes(archive.to_bytes())


@pytest.mark.parametrize("field", [0xE0, 0xE8, 0x108])  # UB, uniform var and attrib pointers of the VS
def test_pointer_outside_data(field: int) -> None:
    data = bytearray(SMALL_SYNTH)
    struct_at = 0x18 + len(b"synthetic\0") + 8 + 0x10  # the first binary's struct
    struct.pack_into("<I", data, struct_at + field, 0x7FFF0000)
    with pytest.raises(ShaderFormatError) as info:
        Sharcfb.from_bytes(bytes(data))
    assert "vertex" in info.value.context


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_gsh_untagged_pointer(path: Path) -> None:
    data = bytearray(path.read_bytes())
    struct.pack_into(">I", data, 0x40 + 0x108, 0x00000134)  # attrib pointer without the 0xD06 tag
    with pytest.raises(ShaderFormatError, match="lacks the data tag"):
        Gsh.from_bytes(bytes(data))


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_gsh_program_size_disagrees(path: Path) -> None:
    data = bytearray(path.read_bytes())
    struct.pack_into(">I", data, 0x40 + 0xD0, 0x124)  # VS struct says 0x124, its program block has 0x120
    with pytest.raises(ShaderFormatError, match="declares a program of 292 bytes, its program block has 288"):
        Gsh.from_bytes(bytes(data))


def test_gsh_bad_version() -> None:
    header = struct.pack(">4s7I", b"Gfx2", 0x20, 8, 0, 2, 0, 0, 0)
    with pytest.raises(ShaderFormatError, match="GFD version 8.0 is not supported"):
        Gsh.from_bytes(header)


def test_many_names_into_one_long_run_stays_fast() -> None:
    # 20000 uniform vars whose names all point into one 400 KB run terminated only at its end:
    # refused quickly (names are bounded), not scanned 20000 times
    import time

    from shaderkit.formats.gx2.shader import PLAIN, GX2VertexShader
    from shaderkit.formats.gx2.types import GX2UniformVar

    count = 20000
    vs = GX2VertexShader(uniform_vars=[GX2UniformVar(f"u{i}", 4, 1, i, -1) for i in range(count)])
    blob = bytearray(vs.build(PLAIN, ">").data)
    array_at = 0x134
    for i in range(count):
        struct.pack_into(">I", blob, array_at + i * 0x14, len(blob) + i)
    blob += b"x" * 400_000 + b"\0"  # terminated only at the very end
    from shaderkit.io.reader import Reader

    start = time.perf_counter()
    with pytest.raises(ShaderFormatError, match="no terminator"):
        GX2VertexShader.parse(Reader(bytes(blob), endian=">"), 0, len(blob), PLAIN)
    assert time.perf_counter() - start < 5

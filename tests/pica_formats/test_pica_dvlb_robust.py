"""Untrusted SHBIN bytes: only ShaderFormatError, with an offset and a context path."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files, corpus_params
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dvlb.dvlb import Dvlb


def _load(data: bytes) -> None:
    """Parse and use the model the way the CLI does; a parsed file must rebuild exactly."""
    model = Dvlb.from_bytes(data)
    assert model.to_bytes() == data
    model.summary()
    model.problems()
    Dvlb.from_bytes(model.relayout())


@pytest.mark.parametrize("path", corpus_params("pica", "*.shbin"))
def test_truncated_at_every_offset(path: Path) -> None:
    data = path.read_bytes()
    for size in range(len(data)):
        try:
            _load(data[:size])
        except ShaderFormatError as exc:
            assert exc.offset is not None and 0 <= exc.offset <= len(data)


def _sample() -> bytes:
    files = corpus_files("pica", "RetroArch__ctr_sprite__82b12978.shbin")
    if not files:
        pytest.skip("corpus not found")
    return files[0].read_bytes()


def _nihstro() -> bytes:
    files = corpus_files("pica", "Re-Craft-3DS__world__0e2ac14f.shbin")
    if not files:
        pytest.skip("corpus not found")
    return files[0].read_bytes()


WORDS = st.sampled_from([0, 1, 2, 3, 4, 0x40, 0x100, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]) | st.integers(0, 2**32 - 1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_words(data: st.DataObject) -> None:
    raw = bytearray(_sample() if data.draw(st.booleans()) else _nihstro())
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) // 4 - 1)) * 4
        struct.pack_into("<I", raw, pos, data.draw(WORDS))
    try:
        _load(bytes(raw))
    except ShaderFormatError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=200))
def test_random_bytes_after_magic(tail: bytes) -> None:
    try:
        _load(b"DVLB" + tail)
    except ShaderFormatError:
        pass


def _expect_error(data: bytes, text: str) -> ShaderFormatError:
    with pytest.raises(ShaderFormatError) as info:
        Dvlb.from_bytes(data)
    assert text in str(info.value), str(info.value)
    return info.value


def _patch(data: bytes, pos: int, fmt: str, *values: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, pos, *values)
    return bytes(out)


def test_huge_dvle_count() -> None:
    err = _expect_error(_patch(_sample(), 4, "<I", 0xFFFFFFFF), "DVLE offset table")
    assert err.offset == 8


def test_dvle_offset_past_end() -> None:
    data = _sample()
    err = _expect_error(_patch(data, 8, "<I", len(data) + 100), "runs past the end")
    assert err.context.startswith("DVLB.DVLE[0]")


def test_code_size_too_big() -> None:
    err = _expect_error(_patch(_sample(), 16 + 0x0C, "<I", 0x40000000), "code")
    assert "DVLP" in err.context


def test_opdesc_count_too_big() -> None:
    _expect_error(_patch(_sample(), 16 + 0x14, "<I", 100000), "operand descriptors")


def test_uniform_symbol_outside_symbol_table() -> None:
    data = _nihstro()
    dvle = 40
    unif_off = struct.unpack_from("<I", data, dvle + 0x30)[0]
    err = _expect_error(_patch(data, dvle + unif_off, "<I", 500), "outside the symbol table")
    assert err.context == "DVLB.DVLE[0]"


def test_label_symbol_outside_symbol_table() -> None:
    data = _nihstro()
    dvle = 40
    label_off = struct.unpack_from("<I", data, dvle + 0x20)[0]
    _expect_error(_patch(data, dvle + label_off + 12, "<I", 0xFFFF), "outside the symbol table")


def test_symbol_without_terminator() -> None:
    data = _nihstro()
    # shrink the symbol table so the last name loses its NUL
    size = struct.unpack_from("<I", data, 40 + 0x3C)[0]
    _expect_error(_patch(data, 40 + 0x3C, "<I", size - 1), "no terminator")


def test_overlapping_tables() -> None:
    data = _sample()
    dvle = struct.unpack_from("<I", data, 8)[0]
    # point the output table at the constant table
    const_off = struct.unpack_from("<I", data, dvle + 0x18)[0]
    _expect_error(_patch(data, dvle + 0x28, "<I", const_off), "overlaps")


def test_code_overlapping_opdescs() -> None:
    data = _sample()
    # opdesc table starts in the middle of the code
    _expect_error(_patch(data, 16 + 0x10, "<I", 48), "overlaps")


def test_bad_magics() -> None:
    data = _sample()
    _expect_error(b"DVLX" + data[4:], "DVLB magic")
    _expect_error(_patch(data, 16, "<4s", b"XXXX"), "DVLP magic")
    dvle = struct.unpack_from("<I", data, 8)[0]
    _expect_error(_patch(data, dvle, "<4s", b"XXXX"), "DVLE magic")


def test_empty_and_tiny_inputs() -> None:
    for data in (b"", b"DV", b"DVLB", b"DVLB\0\0\0\0", b"DVLB\x01\0\0\0"):
        with pytest.raises(ShaderFormatError):
            Dvlb.from_bytes(data)


def test_many_entries_sharing_one_big_table_fail_fast() -> None:
    # 20000 DVLE offsets all naming one DVLE whose constant table fills the file: without an
    # early overlap check this parse would read the table 20000 times.
    count, constants = 20000, 20000
    dvlp = 8 + 4 * count
    dvle = dvlp + 40
    header = struct.pack(
        "<4sHBBIIHHBBBB10I", b"DVLE", 0x1002, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        64, constants, 64, 0, 64, 0, 64, 0, 64, 0,
    )  # fmt: skip
    data = (
        b"DVLB"
        + struct.pack(f"<I{count}I", count, *([dvle] * count))
        + struct.pack("<4s6I3I", b"DVLP", 0, 40, 0, 40, 0, 40, 0, 0, 0)
        + header
        + bytes(20 * constants)
    )
    with pytest.raises(ShaderFormatError, match="overlaps"):
        Dvlb.from_bytes(data)

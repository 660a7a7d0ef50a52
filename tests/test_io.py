from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.io import Reader, Writer


def test_reader_reads_both_endians() -> None:
    data = bytes.fromhex("01020304")
    assert Reader(data).u32() == 0x04030201
    assert Reader(data, endian=">").u32() == 0x01020304
    assert Reader(data, endian=">").u16() == 0x0102


def test_reader_error_carries_offset_and_context() -> None:
    reader = Reader(b"\x00" * 6, context="FILE")
    reader.u32()
    with reader.scope("table[2]"), pytest.raises(ShaderFormatError) as info:
        reader.u32()
    assert info.value.offset == 4
    assert info.value.context == "FILE.table[2]"
    assert "needs 4 bytes, 2 left" in str(info.value)


def test_check_count_refuses_before_allocating() -> None:
    reader = Reader(b"\x00" * 16)
    with pytest.raises(ShaderFormatError, match="count 4294967295"):
        reader.check_count(0xFFFFFFFF, 4, "entries")
    assert reader.check_count(4, 4) == 4


def test_sub_reader_is_limited_to_its_window() -> None:
    reader = Reader(bytes(range(16)))
    sub = reader.sub(4, 4, "chunk")
    assert sub.u32() == struct.unpack("<I", bytes(range(4, 8)))[0]
    with pytest.raises(ShaderFormatError):
        sub.u8()
    with pytest.raises(ShaderFormatError):
        reader.sub(12, 8)


def test_cstring_needs_terminator() -> None:
    reader = Reader(b"abc\0def")
    assert reader.cstring() == "abc"
    assert reader.tell() == 4
    with pytest.raises(ShaderFormatError, match="no terminator"):
        reader.cstring()


def test_writer_alignment_padding_and_references() -> None:
    writer = Writer()
    writer.ref("table_offset")
    writer.u8(7)
    writer.align(8, b"\xab")
    writer.resolve("table_offset", writer.tell())
    writer.u16(0x1234)
    assert writer.getvalue() == bytes.fromhex("08000000" "07ababab" "3412")


def test_writer_refuses_unresolved_reference() -> None:
    writer = Writer()
    writer.ref("size")
    with pytest.raises(ValueError, match="size"):
        writer.getvalue()


@given(st.binary(max_size=64), st.integers(min_value=-4, max_value=80), st.integers(min_value=-4, max_value=80))
def test_reader_never_raises_foreign_errors(data: bytes, offset: int, count: int) -> None:
    reader = Reader(data)
    for action in (
        lambda: reader.seek(offset),
        lambda: reader.read(count),
        lambda: reader.u32(),
        lambda: reader.cstring_at(offset),
        lambda: reader.sub(offset, count),
        lambda: reader.u32_array(count),
    ):
        try:
            action()
        except ShaderFormatError:
            pass


def test_allocation_budget_is_shared_by_child_readers() -> None:
    from shaderkit.io.limits import ALLOCATION_FACTOR, ALLOCATION_SLACK

    data = bytes(64)
    reader = Reader(data)
    child = reader.sub(0, 64, "table")
    budget = ALLOCATION_FACTOR * len(data) + ALLOCATION_SLACK
    # the same 64 bytes claimed again and again by tables that overlap: allowed up to the budget
    for _ in range(budget // 64):
        child.check_count(16, 4, "overlapping table")
    with pytest.raises(ShaderFormatError, match="more work than its size allows"):
        reader.check_count(16, 4, "one table too many")


def test_f32_keeps_a_signalling_nan() -> None:
    """0x7FA00001 is a signalling NaN; a Python float of it has the quiet bit set (0x7FE00001)."""
    import copy
    import pickle
    import struct

    from shaderkit.io.float32 import F32, f32_word
    from shaderkit.io.reader import Reader
    from shaderkit.io.writer import Writer

    for order in ("<", ">"):
        raw = struct.pack(order + "I", 0x7FA00001)
        value = Reader(raw, endian=order).f32()
        assert value != value and value.bits == 0x7FA00001
        assert struct.unpack(order + "I", struct.pack(order + "f", value))[0] == 0x7FE00001  # what a float loses
        w = Writer(order)
        w.f32(value)
        w.f32(-0.0)
        assert w.getvalue() == raw + struct.pack(order + "I", 0x80000000)
    kept = F32.from_bits(0xFFB00002)
    for twin in (copy.deepcopy(kept), pickle.loads(pickle.dumps(kept))):
        assert f32_word(twin) == 0xFFB00002
    assert f32_word(kept + 0.0) == 0xFFF00002  # arithmetic gives a plain float: quiet, as computed
    assert F32.from_bits(0x3FC00000) == 1.5 and f32_word(1.5) == 0x3FC00000


def test_first_difference() -> None:
    from shaderkit.io.compare import first_difference

    assert first_difference(b"abcd", b"abXd") == 2
    assert first_difference(b"ab", b"abcd") == 2  # a prefix: the shorter length
    assert first_difference(b"abcd", b"ab") == 2
    assert first_difference(b"", b"x") == 0
    assert first_difference(b"same", b"same") == 4

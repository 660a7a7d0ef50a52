"""io.layout: placement kept, sharing recorded, raw spans written back; values worked out by hand."""

from __future__ import annotations

from shaderkit.io.layout import Layout, PlacedWriter, append_aligned


def _parsed() -> tuple[bytes, Layout]:
    # header 0..4, "ab\0" at 4, pad 0xAB at 7, "cd\0" at 8 shared by two keys, 2 unknown bytes at 11
    data = b"HEAD" + b"ab\0" + b"\xab" + b"cd\0" + b"\x01\x02"
    layout = Layout()
    layout.record(("name", 0), 4, b"ab\0")
    layout.record(("name", 1), 8, b"cd\0")
    layout.record(("name", 2), 8, b"cd\0")
    layout.close(data, covered=[(0, 4)])
    return data, layout


def test_close_keeps_uncovered_bytes() -> None:
    _, layout = _parsed()
    assert layout.size == 13
    assert [(s.offset, s.data) for s in layout.raw] == [(7, b"\xab"), (11, b"\x01\x02")]
    assert layout.shares_with(("name", 2)) == ("name", 1)
    assert layout.shares_with(("name", 1)) is None


def test_unchanged_items_come_back_where_they_were() -> None:
    data, layout = _parsed()
    w = PlacedWriter(layout, append_aligned(4))
    w.put(0, b"HEAD")
    assert [w.place(("name", i), n) for i, n in enumerate([b"ab\0", b"cd\0", b"cd\0"])] == [4, 8, 8]
    assert w.getvalue() == data


def test_edited_shared_item_moves_and_resized_item_appends() -> None:
    _, layout = _parsed()
    w = PlacedWriter(layout, append_aligned(4))
    w.put(0, b"HEAD")
    assert w.place(("name", 0), b"abc\0") == 16  # resized: after the 13 stored bytes, 4-aligned
    assert w.place(("name", 1), b"cd\0") == 8
    assert w.place(("name", 2), b"xy\0") == 20  # no longer equal to what it shared with
    out = w.getvalue()
    assert out[4:8] == b"ab\0\xab"  # the vacated range keeps its old bytes, like a raw span would
    assert out[16:20] == b"abc\0" and out[20:23] == b"xy\0"


def test_fresh_write_without_layout() -> None:
    w = PlacedWriter(None, append_aligned(8))
    w.put(0, b"HDR")
    assert w.place("a", b"1") == 8 and w.place("b", b"22") == 16 and w.place("a", b"1") == 8
    assert w.getvalue() == b"HDR" + bytes(5) + b"1" + bytes(7) + b"22"


def test_spans_for_info() -> None:
    _, layout = _parsed()
    rows = layout.spans()
    assert [(r["item"], r["offset"], r["size"]) for r in rows] == [
        ("name.0", 4, 3), ("raw", 7, 1), ("name.1", 8, 3), ("name.2", 8, 3), ("raw", 11, 2),
    ]  # fmt: skip


def test_overlapping_items_come_back_overlapping() -> None:
    # "position\0" at 0 and a second name pointing into it ("tion\0" at 4): both unchanged
    data = b"position\0" + b"\xab" * 3
    layout = Layout()
    layout.record("a", 0, b"position\0")
    layout.record("b", 4, b"tion\0")
    layout.close(data)
    w = PlacedWriter(layout, append_aligned(4))
    assert w.place("b", b"tion\0") == 4 and w.place("a", b"position\0") == 0
    assert w.getvalue() == data and w.verify() and w.unchanged()
    # an edit of the outer string no longer agrees with the inner one: the edit moves
    w = PlacedWriter(layout, append_aligned(4))
    assert w.place("b", b"tion\0") == 4
    assert w.place("a", b"positron\0") == 12
    assert w.verify() and not w.unchanged()


def test_verify_sees_a_clobbered_item_and_reserve_blocks_placement() -> None:
    layout = Layout()
    layout.record("name", 4, b"ab\0\0")
    layout.close(b"HEADab\0\0", covered=[(0, 4)])
    w = PlacedWriter(layout, append_aligned(4))
    assert w.place("name", b"ab\0\0") == 4
    w.put(2, b"xxxx")  # a header that grew over the item
    assert not w.verify()
    w = PlacedWriter(layout, append_aligned(4))
    w.reserve(0, 8)  # a header now 8 bytes long
    assert w.place("name", b"ab\0\0") == 8


def test_raw_between_and_start() -> None:
    data, layout = _parsed()
    assert layout.start == 0
    assert layout.raw_between(4, 13) == b"\xab\x01\x02"  # the two raw spans, items skipped
    assert layout.raw_between(7, 8) == b"\xab" and layout.raw_between(12, 13) == b"\x02"
    assert layout.raw_between(0, 4) == b""  # the header range is covered, not raw
    framed = Layout()
    framed.record("x", 2, b"zz")
    framed.close(b"JUNK" + b"\x01\x02zz\x03", start=4)
    assert (framed.start, framed.size) == (4, 5)
    assert [(r.offset, r.data) for r in framed.raw] == [(0, b"\x01\x02"), (4, b"\x03")]
    assert framed.raw_between(0, 5) == b"\x01\x02\x03"


def test_claim_keeps_a_free_stored_range_else_allocates() -> None:
    layout = Layout()
    layout.record("head", 4, b"HHHH")
    layout.record("body", 8, b"bb")
    layout.close(b"xxxxHHHHbb")
    w = PlacedWriter(layout, append_aligned(4))
    assert w.claim("head", 4) == 4  # as stored, range free
    assert w.place("body", b"bb") == 8  # not clobbered: the claim reserved 4..8 only
    assert w.claim("head", 4) == 12 and w.claim("new", 2) == 16  # taken now (and new): appended, aligned
    w = PlacedWriter(layout, append_aligned(4))
    assert w.claim("head", 8) == 12  # resized: by the rule
    w.put(12, b"12345678")
    assert w.place("body", b"bb") == 8 and w.verify()


def test_an_empty_item_shares_nothing() -> None:
    layout = Layout()
    layout.record(("a",), 0x10, b"abcd")
    layout.record(("empty",), 0x10, b"")  # no storage: not shared with a
    layout.record(("b",), 0x10, b"abcd")  # same bytes at the same offset: shared with a
    layout.record(("empty2",), 0x20, b"")
    layout.record(("c",), 0x20, b"wxyz")  # the empty item before it at 0x20 is nothing to share
    assert layout.shares_with(("empty",)) is None
    assert layout.shares_with(("b",)) == ("a",)
    assert layout.shares_with(("c",)) is None and layout.shares_with(("empty2",)) is None


def test_deferred_layout_records_once_on_first_use() -> None:
    from shaderkit.io.layout import deferred_layout

    calls: list[int] = []

    def record() -> Layout:
        calls.append(1)
        return _parsed()[1]

    layout = deferred_layout(record)
    assert calls == []  # nothing recorded while unused
    assert layout.size == 13  # a field with a class default (0) reads the recorded value
    assert calls == [1]
    assert type(layout) is Layout  # a plain layout from then on
    assert layout.shares_with(("name", 2)) == ("name", 1)
    assert layout == _parsed()[1]
    assert calls == [1]


def test_deferred_layout_records_before_a_write() -> None:
    from shaderkit.io.layout import deferred_layout

    layout = deferred_layout(lambda: _parsed()[1])
    layout.size = 99  # the recording must not overwrite a value set afterwards
    assert layout.size == 99
    assert [(s.offset, s.data) for s in layout.raw] == [(7, b"\xab"), (11, b"\x01\x02")]
    other = deferred_layout(lambda: _parsed()[1])
    assert repr(other) == repr(_parsed()[1])

"""The one placement-keeping layer: where each addressed item lay, what it shared, and raw spans.

A reader records every addressed item it reads (a string, a type, a member array, a default value, a
table, a dictionary, a pool) under a hashable key, with its offset and stored bytes. Items recorded at
the same offset share storage. Every byte range no item covers is kept as a raw span.

A writer builds the output through :class:`PlacedWriter`: an item whose bytes still fit where it lay
goes back there; a new or resized item goes where the format's own rule puts it (the caller's
``allocate``); raw spans are written back unless an item now covers them. Derived fields (offsets,
sizes, counts, checksums) are the caller's: they read the offsets ``place`` returns.

Sharing is recorded, never inferred from object identity: two keys that shared one offset are written
once while their bytes agree, and apart as soon as an edit makes them differ.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable

from shaderkit.dataclass import dataclass, field
from shaderkit.io.stored import stored_bytes
from shaderkit.named_tuple import NamedTuple

Key = Hashable


class Placement(NamedTuple):
    """One addressed item as stored: its offset and its bytes (a named tuple: parsers record
    thousands of them, and a tuple is the cheapest immutable record to make)."""

    offset: int
    data: bytes

    @property
    def end(self) -> int:
        """The offset just past the placed bytes."""
        return self.offset + len(self.data)


class RawSpan(NamedTuple):
    """Bytes no model field covers (padding, reserved words, structures not understood yet)."""

    offset: int
    data: bytes

    @property
    def end(self) -> int:
        """The offset just past the kept bytes."""
        return self.offset + len(self.data)


@dataclass
class Layout:
    """Where the items of one parsed region lay; ``size`` is the region's stored size."""

    size: int = 0
    #: where the region began in the data :meth:`close` read (offsets here are relative to it)
    start: int = 0
    items: dict[Key, Placement] = field(default_factory=dict)
    #: key -> the first key recorded at the same offset (only for keys that shared storage)
    shared: dict[Key, Key] = field(default_factory=dict)
    raw: list[RawSpan] = field(default_factory=list)
    _by_offset: dict[int, Key] = field(default_factory=dict, repr=False)

    def record(self, key: Key, offset: int, data: bytes) -> None:
        """Note that ``key`` lay at ``offset`` with ``data``; an earlier item at the same offset is shared.
        An empty item occupies no storage, so it shares with nothing (nor does anything share with it)."""
        if data:
            first = self._by_offset.setdefault(offset, key)
            if first is not key and first != key:
                self.shared[key] = self.shared.get(first, first)
        self.items[key] = _new_placement(Placement, (offset, data if data.__class__ is bytes else bytes(data)))

    def offset_of(self, key: Key) -> int | None:
        """Where the item ``key`` lay when parsed, or None for an item the file did not have."""
        placement = self.items.get(key)
        return None if placement is None else placement.offset

    def shares_with(self, key: Key) -> Key | None:
        """The key whose storage ``key`` shared in the parsed file, or None."""
        return self.shared.get(key)

    def close(self, data: bytes | memoryview, start: int = 0, covered: Iterable[tuple[int, int]] = ()) -> None:
        """Set ``size`` to ``len(data) - start`` and keep every range of it no item covers as raw bytes.

        ``covered`` adds (offset, end) ranges covered by fixed structures that are not recorded items
        (headers the writer always rewrites). Offsets are relative to ``start``.
        """
        end = len(data) - start
        self.size, self.start = end, start
        spans = [(at, at + len(stored)) for at, stored in self.items.values()]
        if covered:
            spans += [(s, e) for s, e in covered if e > s]
        spans.sort()
        raw: list[RawSpan] = []
        pos = 0
        for lo, hi in spans:
            if lo > pos:
                raw.append(_new_placement(RawSpan, (pos, bytes(data[start + pos : start + min(lo, end)]))))
            if hi > pos:
                pos = hi
        if pos < end:
            raw.append(_new_placement(RawSpan, (pos, bytes(data[start + pos : start + end]))))
        self.raw = raw

    def stored_bytes(self, fill: int = 0) -> bytearray:
        """The parsed region rebuilt from its items and raw spans (bytes neither covers: ``fill``)."""
        return stored_bytes(self.size, self.items.values(), self.raw, fill)

    def raw_between(self, lo: int, hi: int) -> bytes:
        """The raw bytes kept in ``[lo, hi)`` (the parts of raw spans inside it, in order)."""
        return b"".join(s.data[max(lo, s.offset) - s.offset : min(hi, s.end) - s.offset]
                        for s in self.raw if s.offset < hi and s.end > lo)

    def spans(self) -> list[dict[str, object]]:
        """Every item and raw span as stored, ordered by offset (for ``info --json``)."""
        rows: list[dict[str, object]] = [
            {"item": _key_text(key), "offset": p.offset, "size": len(p.data)} for key, p in self.items.items()
        ]
        rows += [{"item": "raw", "offset": s.offset, "size": len(s.data)} for s in self.raw]
        return sorted(rows, key=lambda row: (int(str(row["offset"])), row["item"] != "raw"))


class _DeferredLayout(Layout):
    """A :class:`Layout` recorded on first use (see :func:`deferred_layout`): any attribute read or
    write records it, then the object is a plain :class:`Layout` (its class too)."""

    def __init__(self, record: Callable[[], Layout]) -> None:  # (no field is set before recording)
        object.__getattribute__(self, "__dict__")["_record"] = record

    def _recorded(self) -> None:
        state = object.__getattribute__(self, "__dict__")
        record = state.get("_record")
        if record is not None:  # (dropped only once the fields are set: another thread records again, alike)
            state.update(record().__dict__)
            state.pop("_record", None)
        object.__setattr__(self, "__class__", Layout)

    def __getattribute__(self, name: str) -> object:
        _DeferredLayout._recorded(self)
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: object) -> None:
        _DeferredLayout._recorded(self)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        _DeferredLayout._recorded(self)
        object.__delattr__(self, name)


def deferred_layout(record: Callable[[], Layout]) -> Layout:
    """A :class:`Layout` whose items ``record()`` records when it is first used (read, written,
    compared, printed), then the same object as a plain Layout.

    For a parser whose rebuild rarely needs the layout (a chunk in its compiler's own layout, which
    the model rebuilds without one): ``record`` reads the same bytes again, recording as it goes, so
    the layout is the one an eager parse records.
    """
    return _DeferredLayout(record)


#: makes a Placement (or RawSpan) from an (offset, data) tuple without the generated ``__new__``'s call
_new_placement = tuple.__new__


def _key_text(key: Key) -> str:
    if isinstance(key, tuple):
        return ".".join(str(part) for part in key)
    return str(key)


Allocate = Callable[[int, int], int]
"""A format's layout rule: given the current end of output and an item's size, the offset to put it at."""


def append_aligned(alignment: int) -> Allocate:
    """The common rule: new items go at the end, aligned."""

    def allocate(end: int, size: int) -> int:
        return -(-end // alignment) * alignment

    return allocate


class PlacedWriter:
    """Output built by putting items back where they lay, and new items by the format's rule.

    An item goes back to its stored offset when its size is unchanged and every byte already
    written there agrees with it (items that overlapped in the parsed file, such as a string
    pointing into the middle of another, come back overlapping). :meth:`verify` tells whether
    every placed item still reads back (a later :meth:`put` may overwrite one); :meth:`unchanged`
    whether the output is the parsed region itself (every item back, nothing new).
    """

    def __init__(self, layout: Layout | None, allocate: Allocate, fill: int = 0) -> None:
        self.layout = layout
        self.allocate = allocate
        self.fill = fill
        # vacated ranges (items that moved or were dropped) keep their old bytes: the smallest diff
        self.out = layout.stored_bytes(fill) if layout is not None else bytearray()
        self._placed: dict[Key, int] = {}
        self._data: dict[Key, bytes] = {}
        self._puts: list[tuple[int, bytes]] = []
        #: occupied (start, end) ranges, sorted, disjoint and merged
        self._busy: list[tuple[int, int]] = []
        #: ranges kept for fixed structures written later (no item may go there)
        self._reserved: list[tuple[int, int]] = []

    @property
    def end(self) -> int:
        """The current output size in bytes (where an appended item would start before alignment)."""
        return len(self.out)

    def put(self, offset: int, data: bytes) -> None:
        """Write ``data`` at a fixed ``offset`` (headers), growing the output as needed."""
        self._store(offset, data)
        if data:
            self._puts.append((offset, bytes(data)))

    def _store(self, at: int, data: bytes) -> None:
        """Write ``data`` at ``at`` (growing the output) and mark the range taken."""
        out = self.out
        end = at + len(data)
        if end > len(out):
            out.extend(bytes([self.fill]) * (end - len(out)))
        out[at:end] = data
        if end > at:
            self._occupy(at, end)

    def place(self, key: Key, data: bytes) -> int:
        """Put an item and return its offset: where it lay if it still fits, else by the format's rule.

        An item that shared storage in the parsed file is written once while its bytes agree with the
        item it shared with; an item already placed under the same key returns its offset.
        """
        placed = self._placed
        at = placed.get(key)
        if at is not None:
            return at
        layout = self.layout
        if layout is not None:
            first = layout.shared.get(key) if layout.shared else None
            if first is not None and first in placed:
                at = placed[first]
                if self._data[first] == data and bytes(self.out[at : at + len(data)]) == data:
                    placed[key] = at
                    self._data[key] = data
                    return at
            stored = layout.items.get(key)
            if stored is not None:
                at, old = stored
                if len(old) == len(data):
                    end = at + len(data)
                    out = self.out
                    if end > at and end <= len(out) and not self._reserved and out[at:end] == data:
                        # the bytes are already there (so they agree): only the range is taken
                        self._occupy(at, end)
                        placed[key] = at
                        self._data[key] = data
                        return at
                    if self._agrees(at, data):
                        self._write(key, at, data)
                        return at
        at = self.allocate(len(self.out), len(data))
        while not self._free(at, at + len(data)):
            at = self.allocate(max(len(self.out), at + 1), len(data))
        self._write(key, at, data)
        return at

    def _overlapping(self, lo: int, hi: int) -> list[tuple[int, int]]:
        i = bisect_right(self._busy, (lo, hi))
        if i > 0 and self._busy[i - 1][1] > lo:
            i -= 1
        found = []
        while i < len(self._busy) and self._busy[i][0] < hi:
            if self._busy[i][1] > lo:
                found.append(self._busy[i])
            i += 1
        return found

    def _free(self, lo: int, hi: int) -> bool:
        return hi == lo or not self._overlapping(lo, hi)

    def _agrees(self, lo: int, data: bytes) -> bool:
        """True when every byte already written in ``[lo, lo + len(data))`` equals ``data``."""
        hi = lo + len(data)
        if hi == lo:
            return True
        if self._reserved and any(a < hi and lo < b for a, b in self._reserved):
            return False
        if self.out[lo:hi] == data:  # (then every byte written there agrees)
            return True
        for a, b in self._overlapping(lo, hi):
            a, b = max(a, lo), min(b, hi)
            if self.out[a:b] != data[a - lo : b - lo]:
                return False
        return True

    def _occupy(self, lo: int, hi: int) -> None:
        busy = self._busy
        i = bisect_right(busy, (lo, hi))
        if i > 0:
            before_lo, before_hi = busy[i - 1]  # (before_lo <= lo)
            if before_hi >= lo:
                if before_hi >= hi:
                    return  # inside a taken range (taken ranges never touch: nothing else to merge)
                i -= 1
                lo = before_lo
        j = i
        count = len(busy)
        while j < count and busy[j][0] <= hi:
            if busy[j][1] > hi:
                hi = busy[j][1]
            j += 1
        busy[i:j] = [(lo, hi)]

    def _write(self, key: Key, at: int, data: bytes) -> None:
        self._store(at, data)
        self._placed[key] = at
        self._data[key] = data

    def verify(self) -> bool:
        """True when every placed item still reads back from the output (no later write clobbered it)."""
        out = self.out
        placed_data = self._data
        for key, at in self._placed.items():
            data = placed_data[key]
            if out[at : at + len(data)] != data:
                return False
        for at, data in self._puts:
            if out[at : at + len(data)] != data:
                return False
        return True

    def is_free(self, offset: int, end: int) -> bool:
        """True when nothing placed, put or reserved so far covers any byte of ``[offset, end)``."""
        return self._free(offset, end)

    def clear_vacated(self) -> None:
        """Overwrite with the writer's fill byte the bytes of every stored item that did not go back to its offset
        (moved or dropped), except where something placed or put now covers them: for formats whose
        readers would take the stale bytes for part of a neighbour (code that runs to the next item)."""
        if self.layout is None:
            return
        byte = bytes([self.fill])
        for key, stored in self.layout.items.items():
            if not stored.data or self._placed.get(key) == stored.offset:
                continue
            pos, hi = stored.offset, min(stored.end, len(self.out))
            for a, b in self._overlapping(pos, hi):
                if a > pos:
                    self.out[pos:a] = byte * (a - pos)
                pos = max(pos, b)
            if pos < hi:
                self.out[pos:hi] = byte * (hi - pos)

    def reserve(self, offset: int, size: int) -> None:
        """Mark ``[offset, offset + size)`` as taken (a fixed structure written later with :meth:`put`)."""
        if offset + size > len(self.out):
            self.out.extend(bytes([self.fill]) * (offset + size - len(self.out)))
        if size:
            self._occupy(offset, offset + size)
            self._reserved.append((offset, offset + size))

    def claim(self, key: Key, size: int) -> int:
        """Reserve room for a fixed-size structure written later with :meth:`put` (a header whose
        fields point at items placed after it): where ``key`` lay if it had this size and its range
        is still free, else where the format's rule puts a new item. Returns the offset."""
        layout = self.layout
        stored = layout.items.get(key) if layout is not None else None
        if stored is not None and len(stored.data) == size and self._free(stored.offset, stored.end):
            at = stored.offset
        else:
            at = self.allocate(len(self.out), size)
            while not self._free(at, at + size):
                at = self.allocate(max(len(self.out), at + 1), size)
        self.reserve(at, size)
        return at

    def unchanged(self) -> bool:
        """True when the output is the parsed region itself, byte for byte (every item and raw span as stored).

        Only meaningful when the layout covers every byte (fixed structures recorded as items, no
        ``covered`` ranges at :meth:`Layout.close`).
        """
        layout = self.layout
        out = self.out
        if layout is None or len(out) != layout.size:
            return False
        return all(out[at : at + len(data)] == data for at, data in layout.items.values()) and all(
            out[at : at + len(data)] == data for at, data in layout.raw
        )

    def pad_to(self, alignment: int, fill: int | None = None) -> None:
        """Grow the output to a multiple of ``alignment``."""
        extra = -len(self.out) % alignment
        self.out.extend(bytes([self.fill if fill is None else fill]) * extra)

    def getvalue(self) -> bytes:
        """The bytes written so far."""
        return bytes(self.out)

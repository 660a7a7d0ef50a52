"""Bounds-checked reading of untrusted bytes.

Every failure raises :class:`ShaderFormatError` carrying the absolute offset and a context path.
Offsets passed to and returned by a Reader are absolute positions in the underlying buffer;
a Reader made with :meth:`Reader.sub` only narrows the window that may be read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from shaderkit.errors import ShaderFormatError
from shaderkit.io.float32 import F32
from shaderkit.io.limits import ALLOCATION_FACTOR, ALLOCATION_SLACK, MAX_NESTING_DEPTH, MAX_TABLE_ENTRIES

__all__ = ["MAX_NESTING_DEPTH", "MAX_TABLE_ENTRIES", "Reader"]


@lru_cache(maxsize=512)
def _compiled(fmt: str) -> struct.Struct:
    return struct.Struct(fmt)


class Reader:
    """A cursor over ``data[start:end]`` with endianness and a context path for errors."""

    __slots__ = ("data", "pos", "start", "end", "endian", "_path", "_budget")

    def __init__(
        self,
        data: bytes | bytearray | memoryview,
        offset: int = 0,
        *,
        end: int | None = None,
        endian: str = "<",
        context: str = "",
    ) -> None:
        self.data = bytes(data) if not isinstance(data, bytes) else data
        size = len(self.data)
        self.start = offset
        self.end = size if end is None else end
        if not 0 <= self.start <= self.end <= size:
            raise ShaderFormatError(
                f"window {offset:#x}..{self.end:#x} lies outside {size} bytes", offset, context
            )
        self.pos = offset
        self.endian = endian
        self._path: list[str] = [context] if context else []
        #: allocation budget shared with every child reader of this input (see io/limits.py)
        self._budget = [ALLOCATION_FACTOR * size + ALLOCATION_SLACK]

    # -- context ---------------------------------------------------------------------------
    @property
    def context(self) -> str:
        """The dotted context path of the current scope (``DVLE[1].constants[3]``) for error messages."""
        return ".".join(p for p in self._path if p).replace(".[", "[")

    @contextmanager
    def scope(self, name: str) -> Iterator[Reader]:
        """Push ``name`` onto the context path while reading a nested structure."""
        self._path.append(name)
        try:
            yield self
        finally:
            self._path.pop()

    def error(self, message: str, offset: int | None = None) -> ShaderFormatError:
        """A ShaderFormatError for ``message`` at ``offset`` (default: the cursor) with the current context."""
        return ShaderFormatError(message, self.pos if offset is None else offset, self.context)

    # -- position --------------------------------------------------------------------------
    def tell(self) -> int:
        """The cursor's absolute offset in ``data``."""
        return self.pos

    @property
    def remaining(self) -> int:
        """Bytes between the cursor and the end of this reader's range."""
        return self.end - self.pos

    def seek(self, offset: int, what: str = "offset") -> Reader:
        """Move the cursor to absolute ``offset``; ShaderFormatError outside ``start..end``. Returns self."""
        if not self.start <= offset <= self.end:
            raise self.error(
                f"{what} {offset:#x} is outside {self.start:#x}..{self.end:#x}", self.pos
            )
        self.pos = offset
        return self

    def skip(self, count: int) -> None:
        """Move the cursor ``count`` bytes on; ShaderFormatError past the end."""
        self.seek(self.pos + count, "skip target")

    def at(self, offset: int, name: str = "") -> Reader:
        """A new reader over the same window, positioned at ``offset``."""
        child = self._child(self.start, self.end, name)
        child.seek(offset)
        return child

    def sub(self, offset: int, size: int, name: str = "") -> Reader:
        """A reader limited to ``size`` bytes starting at absolute ``offset``."""
        if size < 0 or offset < self.start or offset + size > self.end:
            raise self.error(
                f"{name or 'block'} of {size} bytes at {offset:#x} runs past {self.end:#x}",
                offset,
            )
        child = self._child(offset, offset + size, name)
        return child

    def _child(self, start: int, end: int, name: str) -> Reader:
        child = Reader.__new__(Reader)
        child.data = self.data
        child.start = start
        child.end = end
        child.pos = start
        child.endian = self.endian
        child._path = [*self._path, name] if name else list(self._path)
        child._budget = self._budget
        return child

    # -- raw reads -------------------------------------------------------------------------
    def need(self, size: int, what: str = "data", context: str | None = None) -> None:
        """ShaderFormatError unless ``size`` bytes are left after the cursor (``what`` names them;
        ``context``: the error's, this reader's by default)."""
        if size < 0 or self.pos + size > self.end:
            raise ShaderFormatError(f"{what} needs {size} bytes, {self.end - self.pos} left", self.pos,
                                    self.context if context is None else context)

    def read(self, size: int, what: str = "data") -> bytes:
        """The next ``size`` bytes (cursor moves on); ShaderFormatError when fewer are left."""
        self.need(size, what)
        pos = self.pos
        self.pos = pos + size
        return self.data[pos : pos + size]

    def peek(self, size: int) -> bytes:
        """Up to ``size`` bytes at the cursor, without moving it (fewer at the end)."""
        return self.data[self.pos : min(self.pos + size, self.end)]

    def unpack(self, fmt: str, what: str = "fields") -> tuple:
        """Unpack ``fmt`` (without byte-order prefix) in this reader's endianness."""
        st = _compiled(self.endian + fmt)
        self.need(st.size, what)
        values = st.unpack_from(self.data, self.pos)
        self.pos += st.size
        return values

    def unpack_at(self, offset: int, fmt: str, what: str = "fields") -> tuple:
        """``struct`` fields ``fmt`` (reader's endianness) at absolute ``offset``; ShaderFormatError past the end."""
        st = _compiled(self.endian + fmt)
        if offset < self.start or offset + st.size > self.end:
            raise self.error(f"{what} at {offset:#x} runs past {self.end:#x}", offset)
        return st.unpack_from(self.data, offset)

    def u8(self) -> int:
        """The next unsigned byte; ShaderFormatError at the end."""
        return int(self.unpack("B", "u8")[0])

    def u16(self) -> int:
        """The next unsigned 16-bit word in the reader's byte order; ShaderFormatError past the end."""
        return int(self.unpack("H", "u16")[0])

    def u32(self) -> int:
        """The next unsigned 32-bit word in the reader's byte order; ShaderFormatError past the end."""
        return int(self.unpack("I", "u32")[0])

    def i32(self) -> int:
        """The next signed 32-bit word in the reader's byte order; ShaderFormatError past the end."""
        return int(self.unpack("i", "i32")[0])

    def u64(self) -> int:
        """The next unsigned 64-bit word in the reader's byte order; ShaderFormatError past the end."""
        return int(self.unpack("Q", "u64")[0])

    def f32(self) -> F32:
        """The next IEEE float32 in the reader's byte order, with its stored bits (see
        :mod:`.float32`); ShaderFormatError past the end."""
        return F32.from_bits(int(self.unpack("I", "f32")[0]))

    def u32_array(self, count: int, what: str = "u32 array") -> list[int]:
        """The next ``count`` 32-bit words; the count is checked against the bytes left before reading."""
        self.check_count(count, 4, what)
        return list(self.unpack(f"{count}I", what))

    # -- checks ----------------------------------------------------------------------------
    def check_count(self, count: int, item_size: int, what: str = "table", offset: int | None = None) -> int:
        """Refuse a count whose items cannot fit in the bytes left from ``offset`` (:meth:`fits`),
        and spend their size of the allocation budget."""
        base = self.pos if offset is None else offset
        if count < 0 or count > MAX_TABLE_ENTRIES or count * item_size > self.end - base:
            self.fits(count, item_size, what, base)  # raises
        budget = self._budget  # (spend's charge, inline: its message when the budget runs out)
        budget[0] -= count * max(item_size, 1)
        if budget[0] < 0:
            self.spend(0, what, base)  # raises
        return count

    def fits(self, count: int, item_size: int, what: str = "table", offset: int | None = None,
             context: str | None = None) -> None:
        """ShaderFormatError unless ``count`` items of ``item_size`` bytes (at most MAX_TABLE_ENTRIES)
        fit in the bytes left from ``offset`` (the cursor by default); nothing is spent. ``context``:
        the error's, this reader's by default."""
        base = self.pos if offset is None else offset
        left = self.end - base
        if count < 0 or count > MAX_TABLE_ENTRIES or count * item_size > left:
            raise ShaderFormatError(f"{what}: count {count} needs {count * item_size} bytes, {max(left, 0)} left",
                                    base, self.context if context is None else context)

    def spend(self, amount: int, what: str = "table", offset: int | None = None) -> None:
        """Charge ``amount`` bytes of work to the input's allocation budget (shared with every child
        reader); refuse the input once it implies more work than its size allows."""
        budget = self._budget
        budget[0] -= amount
        if budget[0] < 0:
            raise self.error(f"{what}: tables of this input imply more work than its size allows",
                             self.pos if offset is None else offset)

    def expect(self, magic: bytes, what: str = "magic") -> None:
        """Read ``magic`` at the cursor; ShaderFormatError naming both when the bytes differ."""
        got = self.read(len(magic), what)
        if got != magic:
            raise self.error(f"bad {what}: expected {magic!r}, found {got!r}", self.pos - len(magic))

    # -- strings ---------------------------------------------------------------------------
    def cstring_at(self, offset: int, encoding: str = "ascii", what: str = "string") -> str:
        """A NUL-terminated string at absolute ``offset`` inside the window."""
        if not self.start <= offset < self.end:
            raise self.error(f"{what} offset {offset:#x} is outside {self.start:#x}..{self.end:#x}", offset)
        nul = self.data.find(b"\0", offset, self.end)
        if nul < 0:
            raise self.error(f"{what} at {offset:#x} has no terminator", offset)
        raw = self.data[offset:nul]
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    def cstring(self, encoding: str = "ascii", what: str = "string") -> str:
        """The NUL-terminated string at the cursor (cursor moves past the NUL); ShaderFormatError when unterminated."""
        text = self.cstring_at(self.pos, encoding, what)
        self.pos = self.data.index(b"\0", self.pos, self.end) + 1
        return text

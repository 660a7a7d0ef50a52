"""Building binary output: endianness, alignment, padding and forward references."""

from __future__ import annotations

import struct
from functools import lru_cache

from shaderkit.io.float32 import f32_word


@lru_cache(maxsize=512)
def _compiled(fmt: str) -> struct.Struct:
    return struct.Struct(fmt)


class Writer:
    """An append-only byte builder.

    ``reserve()`` writes a placeholder and returns its position; ``patch()`` fills it in later.
    ``ref()``/``resolve()`` do the same with named forward references, and :meth:`getvalue`
    refuses to finish while any named reference is still unresolved.
    """

    __slots__ = ("buf", "endian", "_refs")

    def __init__(self, endian: str = "<") -> None:
        self.buf = bytearray()
        self.endian = endian
        self._refs: dict[str, tuple[int, str]] = {}

    def tell(self) -> int:
        """The current size in bytes (where the next write starts)."""
        return len(self.buf)

    def __len__(self) -> int:
        return len(self.buf)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Append ``data``; returns the offset it was written at."""
        pos = len(self.buf)
        self.buf += data
        return pos

    def pack(self, fmt: str, *values: object) -> int:
        """Append ``struct`` fields ``fmt`` in the writer's byte order; returns their offset."""
        pos = len(self.buf)
        self.buf += _compiled(self.endian + fmt).pack(*values)
        return pos

    def u8(self, value: int) -> int:
        """Append an unsigned byte; returns its offset."""
        return self.pack("B", value)

    def u16(self, value: int) -> int:
        """Append an unsigned 16-bit word; returns its offset."""
        return self.pack("H", value)

    def u32(self, value: int) -> int:
        """Append an unsigned 32-bit word; returns its offset."""
        return self.pack("I", value)

    def i32(self, value: int) -> int:
        """Append a signed 32-bit word; returns its offset."""
        return self.pack("i", value)

    def u64(self, value: int) -> int:
        """Append an unsigned 64-bit word; returns its offset."""
        return self.pack("Q", value)

    def f32(self, value: float) -> int:
        """Append an IEEE float32 (an :class:`~.float32.F32`'s stored bits); returns its offset."""
        return self.pack("I", f32_word(value))

    def cstring(self, text: str, encoding: str = "ascii") -> int:
        """Append ``text`` encoded and NUL-terminated; returns its offset."""
        return self.write(text.encode(encoding) + b"\0")

    def align(self, alignment: int, fill: bytes = b"\0") -> None:
        """Pad with ``fill`` (repeated, cut to length) up to a multiple of ``alignment``."""
        if alignment > 1:
            self.pad_to(-(-len(self.buf) // alignment) * alignment, fill)

    def pad_to(self, offset: int, fill: bytes = b"\0") -> None:
        """Fill with repeats of ``fill`` up to ``offset``; ValueError when already past it."""
        gap = offset - len(self.buf)
        if gap < 0:
            raise ValueError(f"cannot pad back to {offset:#x}; already at {len(self.buf):#x}")
        if gap:
            self.buf += (fill * (gap // len(fill) + 1))[:gap]

    def reserve(self, fmt: str = "I") -> int:
        """Write zeroes for ``fmt`` and return their position, to :meth:`patch` later."""
        return self.write(bytes(_compiled(self.endian + fmt).size))

    def patch(self, pos: int, fmt: str, *values: object) -> None:
        """Overwrite ``struct`` fields ``fmt`` at ``pos`` (already written bytes)."""
        _compiled(self.endian + fmt).pack_into(self.buf, pos, *values)

    def ref(self, name: str, fmt: str = "I") -> int:
        """Reserve a named forward reference."""
        if name in self._refs:
            raise ValueError(f"reference {name!r} reserved twice")
        pos = self.reserve(fmt)
        self._refs[name] = (pos, fmt)
        return pos

    def resolve(self, name: str, value: int) -> None:
        """Fill the forward reference ``name`` with ``value``; KeyError when there is none."""
        pos, fmt = self._refs.pop(name)
        self.patch(pos, fmt, value)

    def getvalue(self) -> bytes:
        """The bytes written; ValueError naming any forward references still unresolved."""
        if self._refs:
            raise ValueError(f"unresolved forward references: {', '.join(sorted(self._refs))}")
        return bytes(self.buf)

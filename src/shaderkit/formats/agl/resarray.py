"""AGL "ResArray" helpers: {u32 total size, u32 count} then elements that start with their own size."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TypeVar

from shaderkit.io.reader import Reader

T = TypeVar("T")


def read_array(r: Reader, what: str, min_elem: int, parse: Callable[[Reader, int], T]) -> tuple[list[T], bytes]:
    """Read a ResArray at ``r.pos``; ``parse(sub_reader, index)`` reads one element window.

    Returns the elements and the bytes left in the array after the last element.
    """
    start = r.tell()
    with r.scope(what):
        size, count = r.unpack("2I", "array header")
        if size < 8 or size > r.end - start:
            raise r.error(f"array size {size:#x} does not fit ({r.end - start} bytes left)", start)
        body = r.sub(start, size)
        body.seek(start + 8)
        body.check_count(count, min_elem, what)
        items: list[T] = []
        for i in range(count):
            at = body.tell()
            with body.scope(f"[{i}]"):
                elem_size = body.unpack("I", "element size")[0]
                if elem_size < min_elem or elem_size > body.end - at:
                    raise body.error(f"element size {elem_size:#x} does not fit ({body.end - at} bytes left)", at)
                items.append(parse(body.sub(at, elem_size), i))
            body.seek(at + elem_size)
        padding = body.read(body.remaining)
    r.seek(start + size)
    return items, padding


def write_array(endian: str, elements: list[bytes], padding: bytes = b"") -> bytes:
    """A ResArray from already-serialised elements."""
    body = b"".join(elements)
    return struct.pack(f"{endian}2I", 8 + len(body) + len(padding), len(elements)) + body + padding


def split_cstring(raw: bytes, r: Reader, what: str, offset: int) -> tuple[str, bytes]:
    """A fixed-length string field: the text before the first NUL and the bytes after it."""
    nul = raw.find(b"\0")
    if nul < 0:
        raise r.error(f"{what} of {len(raw)} bytes has no terminator", offset)
    return raw[:nul].decode("latin-1"), raw[nul + 1 :]


def join_cstring(text: str, extra: bytes = b"") -> bytes:
    """``text`` as a NUL-terminated Latin-1 string, followed by ``extra`` (bytes kept after the NUL)."""
    return text.encode("latin-1") + b"\0" + extra


def swap_words(data: bytes) -> bytes:
    """Reverse the bytes of every whole u32 word; a partial last word stays as it is."""
    whole = len(data) & ~3
    if not whole:
        return data
    n = whole // 4
    words = struct.unpack(f"<{n}I", data[:whole])
    return struct.pack(f">{n}I", *words) + data[whole:]

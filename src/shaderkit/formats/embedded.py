"""Shader files and archives inside files of unknown formats (engine packages, ROM data, memory
dumps): found by their magic, their extent read from their own header by the format's sizer
(:class:`~.registry.Embedding`). Each is a member named ``@0x1a40`` (its offset), so that
``outer.bin//@0x1a40`` works wherever an archive member does.

A magic inside a file found here skips that file's bytes: a DXBC library's nested containers or
the shaders of an embedded SARC are that file's own members, not the outer file's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from shaderkit.dataclass import dataclass
from shaderkit.formats.registry import FORMATS, import_target
from shaderkit.io.limits import MAX_TABLE_ENTRIES

Sizer = Callable[[bytes, int, "dict[Any, Any]"], "int | None"]

#: magic -> (how far into its file it lies, "module:function" sizer) of every format looked for
_SIZERS: dict[bytes, list[tuple[int, str]]] = {}
for _spec in FORMATS:
    if _spec.embedded is not None:
        for _magic in _spec.embedded.magics:
            _SIZERS.setdefault(_magic, []).append((_spec.embedded.magic_at, _spec.embedded.sizer))
#: magic -> the distinct distances it lies into its files
_DISTANCES = {magic: tuple(sorted({at for at, _ in entries})) for magic, entries in _SIZERS.items()}
_PATTERN = re.compile(b"|".join(re.escape(magic) for magic in _SIZERS))
PREFIX = "@"


@dataclass(frozen=True)
class Embedded:
    """One file found inside another: where it starts and how many bytes it has."""

    offset: int
    size: int

    @property
    def name(self) -> str:
        """Its member name, ``@0x1a40``."""
        return f"{PREFIX}{self.offset:#x}"


def _size(data: bytes, offset: int, magic: bytes, memo: dict[Any, Any]) -> int | None:
    """The size the first sizer of ``magic`` that recognises a file at ``offset`` gives."""
    for at, target in _SIZERS.get(magic, ()):
        if offset >= 0 and data[offset + at : offset + at + 4] == magic:
            sizer: Sizer = import_target(target)
            size = sizer(data, offset, memo)
            if size:
                return size
    return None


def size_at(data: bytes, offset: int) -> int | None:
    """The size of the known file whose header starts at ``offset``, or None (no magic there, or
    a magic whose header does not hold together)."""
    memo: dict[Any, Any] = {}
    for magic in _SIZERS:
        size = _size(data, offset, magic, memo)
        if size:
            return size
    return None


def find(data: bytes, start: int = 0) -> list[Embedded]:
    """Every file with a consistent header inside ``data`` from ``start`` on, in order, none inside
    another (at most :data:`~shaderkit.io.limits.MAX_TABLE_ENTRIES`)."""
    found: list[Embedded] = []
    memo: dict[Any, Any] = {}
    pos = start
    while len(found) < MAX_TABLE_ENTRIES:
        match = _PATTERN.search(data, pos)
        if match is None:
            break
        magic = match.group()
        for at in _DISTANCES[magic]:
            offset = match.start() - at
            size = _size(data, offset, magic, memo) if offset >= pos else None
            if size:
                found.append(Embedded(offset, size))
                pos = offset + size
                break
        else:
            pos = match.start() + 1
    return found


def parse_name(name: str) -> int | None:
    """The offset a member name ``@0x1a40`` (or ``@6720``) gives, else None."""
    if not name.startswith(PREFIX):
        return None
    try:
        return int(name[len(PREFIX):], 0)
    except ValueError:
        return None

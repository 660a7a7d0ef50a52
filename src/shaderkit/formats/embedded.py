"""Shader files and archives inside files of unknown formats (engine packages, ROM data, memory
dumps): found by their magic, their extent read from their own header by the format module's
``embedded_size(data, offset)``. Each is a member named ``@0x1a40`` (its offset), so that
``outer.bin//@0x1a40`` works wherever an archive member does.

A magic inside a file found here skips that file's bytes: a DXBC library's nested containers or
the shaders of an embedded SARC are that file's own members, not the outer file's.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

from shaderkit.dataclass import dataclass
from shaderkit.io.limits import MAX_TABLE_ENTRIES

#: magic -> the ``module:function`` reading the size of a file that starts with it (tried in order)
SIZERS: dict[bytes, tuple[str, ...]] = {
    b"DXBC": ("shaderkit.formats.dxbc.container:embedded_size",),
    b"DVLB": ("shaderkit.formats.dvlb.dvlb:embedded_size",),
    b"CGFX": ("shaderkit.formats.dvlb.cgfx:embedded_size",),
    b"BNSH": ("shaderkit.formats.nn.binary:embedded_size",),
    b"DKSH": ("shaderkit.formats.dksh.dksh:embedded_size",),
    b"Gfx2": ("shaderkit.formats.gfd.gsh:embedded_size",),
    b"BAHS": ("shaderkit.formats.agl.sharcfb:embedded_size",),
    b"SHAB": ("shaderkit.formats.agl.sharcfb:embedded_size",),
    b"AAHS": ("shaderkit.formats.agl.sharc:embedded_size",),
    b"SHAA": ("shaderkit.formats.agl.sharc:embedded_size",),
    b"SARC": ("shaderkit.formats.archive.sarc:embedded_size",),
    b"FRES": ("shaderkit.formats.nn.binary:embedded_size", "shaderkit.formats.bfres.wiiu:embedded_size"),
    b"FSHA": ("shaderkit.formats.nn.binary:embedded_size", "shaderkit.formats.bfres.wiiu:embedded_size"),
    b"CTAB": ("shaderkit.formats.d3d9.shader:embedded_size",),
}
#: magics that do not open their file: how far into it they lie (a D3D9 shader's constant table
#: comment follows its version token and the comment token)
MAGIC_AT = {b"CTAB": 8}
_PATTERN = re.compile(b"|".join(re.escape(magic) for magic in SIZERS))
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


def _sizer(target: str) -> Callable[[bytes, int], int | None]:
    module_name, _, function = target.partition(":")
    sizer: Callable[[bytes, int], int | None] = getattr(importlib.import_module(module_name), function)
    return sizer


def size_at(data: bytes, offset: int) -> int | None:
    """The size of the known file whose header starts at ``offset``, or None (no magic there, or
    a magic whose header does not hold together)."""
    magic = bytes(data[offset : offset + 4])
    if magic not in SIZERS:
        magic = next((m for m, at in MAGIC_AT.items() if data[offset + at : offset + at + 4] == m), magic)
    for target in SIZERS.get(magic, ()):
        size = _sizer(target)(data, offset)
        if size:
            return size
    return None


def find(data: bytes) -> list[Embedded]:
    """Every file with a consistent header inside ``data``, in order, none inside another
    (at most :data:`~shaderkit.io.limits.MAX_TABLE_ENTRIES`)."""
    found: list[Embedded] = []
    pos = 0
    while len(found) < MAX_TABLE_ENTRIES:
        match = _PATTERN.search(data, pos)
        if match is None:
            break
        offset = match.start() - MAGIC_AT.get(match.group(), 0)
        size = size_at(data, offset) if offset >= pos else None
        if size is None:
            pos = match.start() + 1
            continue
        found.append(Embedded(offset, size))
        pos = offset + size
    return found


def parse_name(name: str) -> int | None:
    """The offset a member name ``@0x1a40`` (or ``@6720``) gives, else None."""
    if not name.startswith(PREFIX):
        return None
    try:
        return int(name[len(PREFIX):], 0)
    except ValueError:
        return None

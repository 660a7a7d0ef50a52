"""Which fxc wrote a shader, from the creator string it stores (``RDEF`` in DXBC, ``CTAB`` in D3D9):
the listings of each compiler differ in small spellings."""

from __future__ import annotations

import re

#: ``... Compiler 10.1``, ``... Compiler 9.29.952.3111``: the version after the compiler's name
_VERSION = re.compile(r"Compiler (\d+)\.(\d+)")


def compiler_version(creator: str) -> tuple[int, int] | None:
    """(major, minor) of a creator string such as ``Microsoft (R) HLSL Shader Compiler
    9.29.952.3111``, None when it names no version."""
    found = _VERSION.search(creator)
    return (int(found.group(1)), int(found.group(2))) if found is not None else None


def writes_stray_slash(creator: str) -> bool:
    """True for fxc 9.30 (Windows 8 SDK), whose listings carry one stray ``/`` after the title
    block (``///`` before the next block, or ``/`` in front of the version line)."""
    return compiler_version(creator) == (9, 30)

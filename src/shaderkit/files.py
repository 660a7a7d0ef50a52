"""File I/O for the library API (models stay I/O-free: ``ShaderFile.save`` calls in here)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole file at ``path``."""
    with open(path, "rb") as handle:
        return handle.read()


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` whole: into a temporary file beside it, then renamed over it."""
    target = os.fspath(path)
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def read_member(path: str) -> tuple[list[Any], bytes]:
    """(steps through the containers, bytes) of ``path``, an archive member named
    ``outer.szs//inner/x.bfsha//member``; a path that merely contains ``//`` (``dir//file.gsh``)
    names the file when that file exists (and takes no steps)."""
    from shaderkit.formats.archive.path import SEPARATOR, resolve, split

    file_name, members = split(path)
    if members:
        parts = path.split(SEPARATOR)
        for k in range(len(parts), 0, -1):
            candidate = SEPARATOR.join(parts[:k])
            if os.path.isfile(candidate):
                file_name, members = candidate, [p for p in parts[k:] if p]
                break
    data = read_bytes(file_name)
    if not members:
        return [], data
    return resolve(data, members)

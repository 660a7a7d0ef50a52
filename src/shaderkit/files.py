"""File I/O for the library API (models stay I/O-free: ``ShaderFile.save`` calls in here)."""

from __future__ import annotations

import os


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

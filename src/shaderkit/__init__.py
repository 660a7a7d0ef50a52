"""shaderkit: read, disassemble, rebuild, edit and assemble compiled GPU shader binaries."""

from __future__ import annotations

import os

from shaderkit.errors import AssemblyError, ShaderFormatError, UnsupportedOperation

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing for `import shaderkit`
if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile
    from shaderkit.formats.registry import FormatSpec

__version__ = "0.1.0"
__all__ = ["AssemblyError", "ShaderFormatError", "UnsupportedOperation", "detect", "open", "__version__"]


def detect(data: bytes) -> FormatSpec | None:
    """The format spec matching ``data`` (see ``shaderkit.formats.registry``), or None."""
    from shaderkit.formats.registry import detect as _detect

    return _detect(data)


def open(source: bytes | bytearray | memoryview | str | os.PathLike[str]) -> ShaderFile:  # noqa: A001
    """Parse a file given as bytes or a path; the typed model of whichever format it is."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with os.fdopen(os.open(os.fspath(source), os.O_RDONLY), "rb") as handle:
            data = handle.read()
    spec = detect(data)
    if spec is None:
        raise ShaderFormatError(f"not a known shader format (starts with {data[:4]!r})", 0)
    return spec.parse(data)

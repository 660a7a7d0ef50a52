"""shaderkit: read, disassemble, rebuild, edit and assemble compiled GPU shader binaries."""

from __future__ import annotations

import os
import sys

from shaderkit._native import SourceWhenStale
from shaderkit.errors import AssemblyError, ShaderFormatError, UnsupportedOperation

if not any(finder is SourceWhenStale for finder in sys.meta_path):  # (compiled modules only when current)
    sys.meta_path.insert(0, SourceWhenStale)

TYPE_CHECKING = False  # (typing loads only for type checkers, or when Source is asked for: start-up)
if TYPE_CHECKING:
    from typing import IO, Any, TypeVar, overload

    from shaderkit.formats.archive.path import Member
    from shaderkit.formats.base import ShaderFile
    from shaderkit.formats.registry import FormatSpec

    #: what :func:`open` reads: a path, the bytes themselves, or a binary file object
    Source = bytes | bytearray | memoryview | str | os.PathLike[str] | IO[bytes]
    ModelT = TypeVar("ModelT", bound="ShaderFile")

__version__ = "0.1.0"
__all__ = ["AssemblyError", "ShaderFormatError", "Source", "UnsupportedOperation", "detect", "open", "shaders",
           "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Source":  # the type alias, built on first use
        from typing import IO, Union

        alias = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes]]
        globals()["Source"] = alias
        return alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def detect(data: bytes) -> FormatSpec | None:
    """The format spec matching ``data`` (see ``shaderkit.formats.registry``), or None."""
    from shaderkit.formats.registry import detect as _detect

    return _detect(data)


def _load(source: Source) -> tuple[bytes, ShaderFile | None]:
    """The bytes of ``source``; for a path naming an archive member (``pack.szs//dir/x.bfsha``)
    the member's, with the model its archive offers for a member without magic (a Wii U BFSHA
    stage's microcode), else None."""
    if isinstance(source, (str, os.PathLike)) and "//" in os.fspath(source):
        from shaderkit.files import read_member
        from shaderkit.formats.archive.path import member_model

        steps, data = read_member(os.fspath(source))
        return data, member_model(steps)
    return _read(source), None


def _read(source: Source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        from shaderkit.files import read_bytes

        return read_bytes(source)
    read = getattr(source, "read", None)
    if read is None:
        raise TypeError(f"shaderkit.open() takes a path, bytes or a binary file object, not {type(source).__name__}")
    data = read()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("shaderkit.open() needs a file opened in binary mode ('rb')")
    return bytes(data)


if TYPE_CHECKING:
    @overload
    def open(source: Source) -> ShaderFile: ...  # noqa: A001
    @overload
    def open(source: Source, kind: type[ModelT]) -> ModelT: ...  # noqa: A001
def open(source: Source, kind: type[ModelT] | None = None) -> ShaderFile:  # noqa: A001
    """Parse a file given as a path, bytes or a binary file object; the typed model of its format.
    A path may name an archive member as the CLI does: ``"pack.szs//shaders/x.bfsha"``.

    With ``kind`` (a model class such as ``DxbcContainer``), the result has that static type and a
    file of another format raises ShaderFormatError, so type checkers know the attributes.
    """
    data, offered = _load(source)
    model = offered if offered is not None else _parse(data)
    if kind is not None and not isinstance(model, kind):
        spec = detect(data)  # (the format read; an offered model names its own)
        found = spec.title if offered is None and spec is not None else model.format_name
        raise ShaderFormatError(f"expected {kind.__name__}, found {found}", 0)
    return model


def shaders(source: Source, name: str = "") -> list[Member]:
    """Every shader in a file, as ``shaderkit disasm`` and ``verify`` take them: the file itself
    when it is a shader (a DXBC, a SHBIN, a BFSHA, an effect ...), else the outermost shaders
    inside it (an archive, a compressed stream, a BFRES, an RPX, a package of unknown format);
    empty when it holds none. Each :class:`~shaderkit.formats.archive.path.Member` has its
    ``name``, its ``data`` and ``open()`` for its typed model (parsed when asked for, so a damaged
    shader raises ShaderFormatError there, not here).

    A path source names the shaders as ``shaderkit.open`` takes them (``pack.szs//dir/x.bfsha``;
    it may name a member itself); bytes and file objects name them after ``name``, or with their
    path inside the source when ``name`` is empty (``dir/x.bfsha``, ``@0x40``; the source itself
    is ``""``). A damaged archive around the shaders raises ShaderFormatError; a damaged archive
    inside it is a member whose ``error`` says why and whose ``open()`` raises.
    """
    from shaderkit.formats.archive.path import SEPARATOR, Member, shaders_of

    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
    data, offered = _load(source)
    if offered is not None:
        return [Member(name, data, offered=offered)]
    if name:
        return shaders_of(name, data)
    found = shaders_of("", data)
    for member in found:  # relative names: the members of "" are "//dir/x"
        member.name = member.name.removeprefix(SEPARATOR)
    return found


def _parse(data: bytes) -> ShaderFile:
    spec = detect(data)
    if spec is None:
        from shaderkit.formats.embedded import find

        inside = find(data)
        hint = (f"; {len(inside)} known file{'s' if len(inside) > 1 else ''} inside it, the first at {inside[0].name} "
                f"(name one as FILE//{inside[0].name})") if inside else ""
        raise ShaderFormatError(f"not a known shader format (starts with {data[:4]!r}){hint}", 0)
    return spec.parse(data)

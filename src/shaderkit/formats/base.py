"""What every file model offers."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod

from shaderkit.errors import UnsupportedOperation

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    T = TypeVar("T", bound="ShaderFile")

#: longest repr of a file model (characters)
REPR_LIMIT = 240


class ShaderFile(ABC):
    """A parsed file. Subclasses are dataclasses named after the format's own terms.

    ``from_bytes(data).to_bytes() == data`` for every well-formed real file.
    """

    format_name: ClassVar[str] = ""

    @classmethod
    @abstractmethod
    def from_bytes(cls: type[T], data: bytes) -> T:
        """Parse untrusted bytes; raises only ShaderFormatError on bad input."""

    @abstractmethod
    def to_bytes(self) -> bytes:
        """Serialise the model, recomputing derived fields."""

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_bytes` to ``path`` (the file I/O itself lives in ``shaderkit.files``)."""
        from shaderkit.files import write_bytes

        write_bytes(path, self.to_bytes())

    def summary(self) -> dict[str, Any]:
        """JSON-ready description for ``shaderkit info`` (stable keys, documented per format)."""
        return {"format": self.format_name}

    def __repr__(self) -> str:
        """Compact: the class, the format and the summary's top-level numbers and names (no lists);
        subclasses declared ``@dataclass(repr=False)`` use it instead of a field-by-field dump."""
        try:
            summary = self.summary()
        except Exception:  # a repr must never fail
            summary = {}
        parts = [f"{k}={v!r}" for k, v in summary.items() if k != "format" and isinstance(v, (int, str, float))
                 and not isinstance(v, bool) and len(repr(v)) <= 40]
        text = f"<{type(self).__name__} {self.format_name}" + (" " + " ".join(parts) if parts else "")
        return (text[:REPR_LIMIT - 2] + "…" if len(text) > REPR_LIMIT - 1 else text) + ">"

    def problems(self) -> list[str]:
        """Integrity problems that make ``verify`` fail although the file parses (e.g. checksum)."""
        return []

    def disassemble(self) -> str:
        """Text of every program in the file. A model with no text of its own (an archive, an
        executable) raises UnsupportedOperation: ``shaderkit.shaders`` gives the shaders inside it."""
        raise UnsupportedOperation(f"{self.format_name}: no text of its own (an archive or executable); "
                                   "shaderkit.shaders() gives the shaders inside it")


def textless(cls: type) -> bool:
    """True for a model class with no text of its own (archives, executables: ``disassemble`` is
    :class:`ShaderFile`'s); ``disasm`` lists and ``verify`` checks the shaders inside its files."""
    return getattr(cls, "disassemble", None) is ShaderFile.disassemble


class IdentifiedFile(ShaderFile):
    """A file whose kind is recognised but whose contents shaderkit does not model.

    It exists so that ``info`` can name such files and ``verify`` can skip them.
    """

    format_name = "identified"

    def __init__(self, data: bytes, kind: str, note: str, format_id: str = "identified") -> None:
        self.data = data
        self.kind = kind
        self.note = note
        self.format_id = format_id

    @classmethod
    def from_bytes(cls, data: bytes) -> IdentifiedFile:
        return cls(data, "unknown", "")

    def to_bytes(self) -> bytes:
        return self.data

    def disassemble(self) -> str:
        reason = f" ({self.note})" if self.note else ""
        raise UnsupportedOperation(f"{self.kind}: shaderkit recognises this file but does not read it{reason}")

    def summary(self) -> dict[str, Any]:
        """``format`` is the registry id (as for every model); ``title`` says what the file is."""
        return {"format": self.format_id, "title": self.kind, "size": len(self.data), "supported": False,
                "note": self.note}

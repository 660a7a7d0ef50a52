"""What every file model offers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, TypeVar

from shaderkit.errors import UnsupportedOperation

T = TypeVar("T", bound="ShaderFile")


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

    def summary(self) -> dict[str, Any]:
        """JSON-ready description for ``shaderkit info`` (stable keys, documented per format)."""
        return {"format": self.format_name}

    def problems(self) -> list[str]:
        """Integrity problems that make ``verify`` fail although the file parses (e.g. checksum)."""
        return []

    def disassemble(self) -> str:
        """Text of every program in the file."""
        raise UnsupportedOperation(f"{self.format_name}: no disassembler for this format yet")


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

    def summary(self) -> dict[str, Any]:
        """``format`` is the registry id (as for every model); ``title`` says what the file is."""
        return {"format": self.format_id, "title": self.kind, "size": len(self.data), "supported": False,
                "note": self.note}

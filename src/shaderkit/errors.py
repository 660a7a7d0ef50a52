"""The two exception types shaderkit raises for bad input."""

from __future__ import annotations


class ShaderkitError(Exception):
    """Base class of every error shaderkit raises on purpose."""


class ShaderFormatError(ShaderkitError):
    """Untrusted bytes do not form a valid file.

    ``offset`` is the absolute byte offset in the input where the problem was found and
    ``context`` a path such as ``DVLE[1].constants[3]`` naming the structure being read.
    """

    def __init__(self, message: str, offset: int | None = None, context: str = "") -> None:
        self.message = message
        self.offset = offset
        self.context = context
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.context}: " if self.context else ""
        at = f" (at offset 0x{self.offset:x})" if self.offset is not None else ""
        return f"{where}{self.message}{at}"

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str]]:
        return (type(self), (self.message, self.offset, self.context))

    def within(self, name: str) -> ShaderFormatError:
        """This error as read from ``name`` (a file or archive member path): the name before the
        context (``pack.szs//vs.cso: RDEF: ...``)."""
        return ShaderFormatError(self.message, self.offset, f"{name}: {self.context}" if self.context else name)


class AssemblyError(ShaderkitError):
    """Assembly source text is invalid; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int = 0, column: int = 0, filename: str = "") -> None:
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        super().__init__(str(self))

    def __str__(self) -> str:
        name = self.filename or "<source>"
        return f"{name}:{self.line}:{self.column}: {self.message}"

    def __reduce__(self) -> tuple[type, tuple[str, int, int, str]]:
        return (type(self), (self.message, self.line, self.column, self.filename))

    def moved(self, lines: int = 0, filename: str | None = None) -> AssemblyError:
        """This error for text that starts ``lines`` lines into a larger one (a line 0, none known,
        stays 0), named ``filename`` when given: raise ``exc.moved(...) from None``."""
        return AssemblyError(self.message, self.line + lines if self.line else 0, self.column,
                             self.filename if filename is None else filename)


class UnsupportedOperation(ShaderkitError):
    """The format has no such capability (for example, no disassembler yet)."""

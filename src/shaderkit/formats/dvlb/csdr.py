"""``.csdr``: a shader binary (DVLB, CGFX or DVOB/DVOJ) stored as base64 text (e.g. in AR Games).

The text layout is kept so that rebuilding reproduces it exactly: the line width, the line
ending (``\\n`` or ``\\r\\n``), whether the last line ends with one, whether ``=`` padding is
present, and, for irregular wrapping, every line length. The payload itself is a parsed model,
re-encoded on write.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile

_BASE64_LINE = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/]")
#: a decoded payload larger than this is refused (the text is 4/3 of it)
MAX_PAYLOAD = 64 << 20


def _payload_model(raw: bytes) -> ShaderFile:
    magic = raw[:4]
    if magic == b"DVLB":
        from shaderkit.formats.dvlb.dvlb import Dvlb

        return Dvlb.from_bytes(raw)
    if magic == b"CGFX":
        from shaderkit.formats.dvlb.cgfx import Cgfx

        return Cgfx.from_bytes(raw)
    if magic in (b"DVOB", b"DVOJ"):
        from shaderkit.formats.dvlb.dvob import Dvob

        return Dvob.from_bytes(raw)
    raise ShaderFormatError(f"decoded payload starts with {magic!r}, not DVLB/CGFX/DVOB/DVOJ", 0, "CSDR.payload")


@dataclass(repr=False)  # compact repr from ShaderFile
class Csdr(ShaderFile):
    """Base64 text around a shader model."""

    format_name: ClassVar[str] = "csdr"

    payload: ShaderFile
    #: characters per line; 0 writes one line
    line_width: int = 76
    newline: str = "\n"
    final_newline: bool = True
    padded: bool = True
    #: exact line lengths of a parsed file whose wrapping is irregular (None: regular)
    line_lengths: list[int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> Csdr:
        if len(data) > MAX_PAYLOAD * 2:
            raise ShaderFormatError(f"text of {len(data)} bytes is too large", 0, "CSDR")
        newline = b"\r\n" if b"\r\n" in data else b"\n"
        lines = data.split(newline)
        final_newline = len(lines) > 1 and lines[-1] == b""
        if final_newline:
            lines.pop()
        pos = 0
        for number, line in enumerate(lines):
            if not line or not _BASE64_LINE.fullmatch(line):
                found = _NOT_BASE64.search(line)
                bad = found.start() if found else 0
                raise ShaderFormatError(f"line {number + 1} is not base64 text", pos + bad, "CSDR")
            pos += len(line) + len(newline)
        text = b"".join(lines)
        padded = text.endswith(b"=") or len(text) % 4 == 0
        try:
            raw = base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ShaderFormatError(f"bad base64: {exc}", 0, "CSDR") from None
        try:
            payload = _payload_model(raw)
        except ShaderFormatError as exc:
            context = f"CSDR.payload.{exc.context}" if exc.context else "CSDR.payload"
            raise ShaderFormatError(f"{exc.message} (offset in the decoded payload)", exc.offset, context) from None
        sizes = [len(line) for line in lines]
        width = sizes[0] if len(sizes) > 1 else 0
        regular = all(s == width for s in sizes[:-1]) and (width == 0 or 0 < sizes[-1] <= width)
        return cls(
            payload=payload,
            line_width=width,
            newline=newline.decode("ascii"),
            final_newline=final_newline,
            padded=padded,
            line_lengths=None if regular else sizes,
        )

    def _lines(self, text: bytes) -> list[bytes]:
        if self.line_lengths is not None and sum(self.line_lengths) == len(text):
            out, pos = [], 0
            for size in self.line_lengths:
                out.append(text[pos : pos + size])
                pos += size
            return out
        if self.line_width <= 0:
            return [text]
        return [text[i : i + self.line_width] for i in range(0, len(text), self.line_width)] or [b""]

    def to_bytes(self) -> bytes:
        text = base64.b64encode(self.payload.to_bytes())
        if not self.padded:
            text = text.rstrip(b"=")
        newline = self.newline.encode("ascii")
        body = newline.join(self._lines(text))
        return body + newline if self.final_newline else body

    def summary(self) -> dict[str, Any]:
        return {
            "format": self.format_name,
            "encoding": "base64",
            "line_width": self.line_width,
            "newline": "crlf" if self.newline == "\r\n" else "lf",
            "payload": self.payload.summary(),
        }

    def problems(self) -> list[str]:
        return self.payload.problems()

    def disassemble(self) -> str:
        return self.payload.disassemble()

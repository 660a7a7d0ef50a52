"""SDBG: the Direct3D 10 shader debug information chunk (fxc ``/Zi`` output of the 9.x compilers).

Facts: ``D3DGetBlobPart(D3D_BLOB_DEBUG_INFO)`` returns this chunk's payload (Wine/vkd3d's
d3dcompiler, whose tests show one), and the public ``d3d10_1shader.h`` describes that blob as
``D3D10_SHADER_DEBUG_INFO``: 21 u32 (``Size`` = 84, then offsets of the creator, entry point and
target strings, the compile flags, and count/offset pairs of the file, instruction, variable,
input variable, token, scope and scope-variable tables, then the offsets of the UINT and string
datastores). Table and datastore offsets count from the end of the 84-byte header; string
offsets count from the string datastore. Checked by hand on the d3dcompiler test blob (hs_5_0,
fxc 9.29.952.3111): ``Size`` 84, the strings datastore ends exactly at the payload's end.

Model: :class:`ShaderDebugInfo` types the header (fields by name) and keeps everything after it as
``body`` bytes (the tables and datastores are not typed: the corpus has no sample to check them
against), so writing is packing the 21 words and the body: exact by construction. The strings
the header points at (creator, entry point, target) and the file table's names are read for
``info``. A payload shorter than the header or whose first word is not 84 stays a raw chunk.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field, fields
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

HEADER_SIZE = 84
HEADER = struct.Struct("<21I")
#: ``D3D10_SHADER_DEBUG_FILE_INFO``: name offset, name length, data offset, data length
FILE_INFO = struct.Struct("<4I")


@dataclass
class DebugInfoHeader:
    """``D3D10_SHADER_DEBUG_INFO``, field by field."""

    size: int = HEADER_SIZE
    creator: int = 0
    entry_point: int = 0
    shader_target: int = 0
    compile_flags: int = 0
    files: int = 0
    file_info: int = 0
    instructions: int = 0
    instruction_info: int = 0
    variables: int = 0
    variable_info: int = 0
    input_variables: int = 0
    input_variable_info: int = 0
    tokens: int = 0
    token_info: int = 0
    scopes: int = 0
    scope_info: int = 0
    scope_variables: int = 0
    scope_variable_info: int = 0
    uint_offset: int = 0
    string_offset: int = 0

    def words(self) -> tuple[int, ...]:
        """The 21 u32 header words in ``D3D10_SHADER_DEBUG_INFO`` order."""
        return tuple(getattr(self, f.name) for f in fields(self))


@dataclass
class ShaderDebugInfo:
    """The SDBG chunk: the typed header and the tables/datastores after it as bytes."""

    header: DebugInfoHeader = field(default_factory=DebugInfoHeader)
    #: everything after the 84-byte header (tables, UINT datastore, string datastore)
    body: bytes = b""
    fourcc: str = "SDBG"

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when ``r`` holds at least 84 bytes and its first u32 is 84 (cursor unmoved)."""
        return r.remaining >= HEADER_SIZE and struct.unpack_from("<I", r.data, r.pos)[0] == HEADER_SIZE

    @classmethod
    def parse(cls, r: Reader) -> ShaderDebugInfo:
        """The 84-byte header, then the rest of ``r`` as ``body``.

        Raises ShaderFormatError when fewer than 84 bytes are left.
        """
        words = r.unpack(HEADER.format[1:], "SDBG header")
        return cls(DebugInfoHeader(*words), r.read(r.remaining, "SDBG tables"))

    def build(self) -> bytes:
        """The payload: the 21 header words packed, then ``body``."""
        return HEADER.pack(*self.header.words()) + self.body

    def string(self, offset: int) -> str:
        """The NUL-terminated string at ``offset`` in the string datastore ("" when outside it)."""
        at = self.header.string_offset + offset
        end = self.body.find(b"\0", at)
        if not 0 <= at < len(self.body) or end < 0:
            return ""
        return self.body[at:end].decode("latin-1")

    def source_files(self) -> list[dict[str, Any]]:
        """Each file-table row: the file name (from the string datastore) and its stored size."""
        rows = []
        h = self.header
        for i in range(min(h.files, len(self.body) // FILE_INFO.size)):
            at = h.file_info + FILE_INFO.size * i
            if at + FILE_INFO.size > len(self.body):
                break
            name, name_len, _data, data_len = FILE_INFO.unpack_from(self.body, at)
            start = h.string_offset + name
            text = self.body[start : start + name_len] if 0 <= start <= len(self.body) else b""
            rows.append({"name": text.decode("latin-1"), "size": data_len})
        return rows

    def summary(self) -> dict[str, Any]:
        """The chunk for ``info``: creator, entry point, target, compile flags, files, table counts."""
        h = self.header
        return {
            "creator": self.string(h.creator),
            "entry_point": self.string(h.entry_point),
            "target": self.string(h.shader_target),
            "compile_flags": h.compile_flags,
            "files": self.source_files(),
            "counts": {"instructions": h.instructions, "variables": h.variables,
                       "input_variables": h.input_variables, "tokens": h.tokens, "scopes": h.scopes,
                       "scope_variables": h.scope_variables},
        }


__all__ = ["HEADER_SIZE", "DebugInfoHeader", "ShaderDebugInfo"]

"""A bare Direct3D 9 shader: the token stream fxc writes for ``vs_1_1``..``vs_3_0``,
``ps_1_0``..``ps_3_0`` and ``tx_1_0`` without a DXBC container.

Stream (d3d9types.h, little-endian u32 tokens): the version token (``0xFFFE`` vertex, ``0xFFFF``
pixel, ``0x5458`` "TX" texture shader in bits 16..31; major, minor in bits 8..15, 0..7), then
instructions and comment blocks, then the end token ``0x0000FFFF``. A comment token (opcode
``0xFFFE``, bits 16..30: its length in words) precedes its words; fxc's comments start with a
FourCC: ``CTAB`` (the D3DX constant table, typed as
:class:`~shaderkit.formats.d3dx.ctab.ConstantTable`; its offsets count from the word after the
FourCC), ``DBUG`` (debug information), ``PRES`` (the preshader: a nested token stream with
``CTAB``/``PRSI``/``CLIT``/``FXLC`` comments, kept as words; read and listed by
:mod:`~shaderkit.formats.d3d9.preshader`), ``CLIP``, ``FXLC``, ``CLIT``, ``PRSI``; other comments are
kept as words. SM2+ instruction tokens carry their parameter count (bits 24..27); in ps/vs 1.x
the parameters are the following tokens with bit 31 set (``def``: 4 values). Bytes after the
end token are kept.

The model keeps every item in stream order, so :meth:`D3D9Shader.to_bytes` writes the file
back byte for byte; the derived fields (comment lengths, SM2+ instruction lengths) are
recomputed from the items.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.isa.d3d9.table import (
    COMMENT_LENGTH,
    DECLARATION_NAMES,
    INSTRUCTION_LENGTH,
    INSTRUCTION_OPCODE,
    OP_COMMENT,
    OP_END,
    OPCODES,
    PIXEL_KINDS,
    SHADER_VERSION_KIND,
    SHADER_VERSION_MAJOR,
    SHADER_VERSION_MINOR,
    TX_KIND,
    is_sm1,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

    from shaderkit.formats.d3dx.ctab import ConstantTable

#: version token kinds this format reads: vertex, pixel, texture shader
KINDS = {0xFFFE: "vs", 0xFFFF: "ps", TX_KIND: "tx"}
#: (kind, major) -> minor versions that exist (0xFF: the software profiles vs_2_sw, ps_3_sw ...)
MINORS = {("vs", 1): (0, 1), ("vs", 2): (0, 1, 0xFF), ("vs", 3): (0, 0xFF),
          ("ps", 1): (0, 1, 2, 3, 4), ("ps", 2): (0, 1, 0xFF), ("ps", 3): (0, 0xFF), ("tx", 1): (0,)}
#: largest stream read (words)
MAX_WORDS = 1 << 22


def is_version_token(word: int) -> bool:
    """Whether ``word`` is the version token of a vs/ps/tx profile that exists."""
    kind = KINDS.get(SHADER_VERSION_KIND.get(word))
    return kind is not None and SHADER_VERSION_MINOR.get(word) in MINORS.get((kind, SHADER_VERSION_MAJOR.get(word)), ())


class _Words(Sequence[int]):
    """The little-endian u32 words of ``data`` from ``offset``, read one at a time (the stream's
    end is not known yet, and the rest of the data may be large)."""

    def __init__(self, data: bytes, offset: int) -> None:
        self.data, self.offset = data, offset

    def __len__(self) -> int:
        return min((len(self.data) - self.offset) // 4, MAX_WORDS)

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        at = self.offset + 4 * index
        return int.from_bytes(self.data[at : at + 4], "little")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the D3D9 shader at ``offset`` of ``data``: a version token, a CTAB comment (fxc
    writes one first unless reflection was stripped: without it nothing marks a bare token
    stream) and the items after it through the end token; None for anything else.

    ``memo`` keeps, per kind of walk (ps/vs 1.x or later), the item starts of walks that found no
    end token: a later start whose walk reaches one stops there, so a search over data full of
    would-be headers reads each word about once."""
    from shaderkit.isa.d3d9.text import split_program

    words = _Words(data, offset)
    if len(words) < 4 or not is_version_token(words[0]) or INSTRUCTION_OPCODE.get(words[1]) != OP_COMMENT:
        return None
    if data[offset + 8 : offset + 12] != b"CTAB":
        return None
    dead_ends: set[int] = set() if memo is None else memo.setdefault(("d3d9 dead ends", is_sm1(words[0])), set())
    trail: list[int] = []
    try:
        end = split_program(words, walked=(dead_ends, trail, offset))[1]
    except ShaderFormatError:
        dead_ends.update(trail)
        return None
    return 4 * end + 4


def sniff(data: bytes) -> bool:
    """Detection: a known version token and room for at least the end token."""
    return len(data) >= 8 and is_version_token(int.from_bytes(data[:4], "little"))


@dataclass
class D3D9Instruction:
    """An instruction: its token (opcode, controls, length...) and its parameter tokens."""

    #: instruction token first, then the parameter tokens
    tokens: tuple[int, ...]
    #: byte offset in the file it was read from (-1 for a new one)
    offset: int = -1

    @property
    def opcode(self) -> int:
        """D3DSIO_* opcode (bits 0..15 of the instruction token)."""
        return INSTRUCTION_OPCODE.get(self.tokens[0])

    @property
    def name(self) -> str:
        """The opcode's mnemonic from the D3D9 table (``op<n>`` when unknown)."""
        info = OPCODES.get(self.opcode)
        return info.name if info is not None else DECLARATION_NAMES.get(self.opcode, f"op{self.opcode}")


@dataclass
class D3D9Comment:
    """A comment block: its words as bytes (fxc's start with a FourCC), ``CTAB`` typed."""

    #: the words after the comment token
    data: bytes
    #: how many instructions come before it
    position: int = 0
    #: bits of the comment token other than opcode and length (0 in every file fxc writes)
    flags: int = 0
    #: the typed constant table of a ``CTAB`` comment (written back over ``data[4:]``)
    table: ConstantTable | None = None
    #: byte offset in the file it was read from (-1 for a new one)
    offset: int = -1

    @property
    def tag(self) -> str:
        """The FourCC the comment starts with (``CTAB``, ``DBUG``, ``PRES``...), else ``""``."""
        head = self.data[:4]
        return head.decode("ascii") if len(head) == 4 and all(0x20 < b < 0x7F for b in head) else ""

    def payload(self) -> bytes:
        """The words after the comment token (a typed table rebuilt)."""
        if self.table is not None:
            return self.data[:4] + self.table.build()
        return self.data


@dataclass(repr=False)
class D3D9Shader(ShaderFile):
    """A bare D3D9 shader token stream (vs/ps 1.x-3.0, tx_1_0)."""

    format_name = "d3d9"

    #: the version token (``0xFFFF0300`` = ps_3_0)
    version: int = 0xFFFF0300
    instructions: list[D3D9Instruction] = field(default_factory=list)
    comments: list[D3D9Comment] = field(default_factory=list)
    #: the end token (``0x0000FFFF``; upper bits kept as stored)
    end_token: int = OP_END
    #: bytes after the end token
    trailing: bytes = b""

    @classmethod
    def from_bytes(cls, data: bytes) -> D3D9Shader:
        """Parse a token stream; ShaderFormatError for an unknown version token, items running
        past the file or a missing end token."""
        from shaderkit.isa.d3d9.text import split_program

        data = bytes(data)
        if len(data) < 4 or not is_version_token(int.from_bytes(data[:4], "little")):
            raise ShaderFormatError("not a D3D9 shader (unknown version token)", 0, "D3D9")
        count = min(len(data) // 4, MAX_WORDS)
        words = struct.unpack_from(f"<{count}I", data)
        items, end = split_program(words)
        model = cls(words[0])
        for first, last, comment in items:
            if comment:
                token = words[first]
                body = data[4 * first + 4 : 4 * last]
                item = D3D9Comment(body, len(model.instructions), token & ~(COMMENT_LENGTH.bits | INSTRUCTION_OPCODE.bits),
                                   offset=4 * first)
                if item.tag == "CTAB":
                    item.table = constant_table(data, 4 * first + 8, 4 * last)
                model.comments.append(item)
            else:
                model.instructions.append(D3D9Instruction(tuple(words[first:last]), 4 * first))
        model.end_token = words[end]
        model.trailing = data[4 * end + 4 :]
        return model

    @property
    def sm1(self) -> bool:
        """Whether instruction tokens carry no length (ps/vs 1.x, tx_1_0)."""
        return is_sm1(self.version)

    @property
    def major(self) -> int:
        """Major version (bits 8..15 of the version token)."""
        return SHADER_VERSION_MAJOR.get(self.version)

    @property
    def minor(self) -> int:
        """Minor version (bits 0..7; 1 in ``ps_2_x``, 0xFF in ``vs_2_sw``)."""
        return SHADER_VERSION_MINOR.get(self.version)

    @property
    def pixel(self) -> bool:
        """Whether this is a pixel shader."""
        return SHADER_VERSION_KIND.get(self.version) in PIXEL_KINDS

    @property
    def profile(self) -> str:
        """``ps_3_0``-style profile name."""
        from shaderkit.isa.d3d9.text import version_name

        return version_name(self.version)

    def words(self) -> list[int]:
        """The token stream (version first, end token last; no trailing bytes)."""
        out = [self.version]
        comments = sorted(self.comments, key=lambda c: c.position)  # stable: stored order within a position
        k = 0
        sm1 = self.sm1
        for index in range(len(self.instructions) + 1):
            while k < len(comments) and comments[k].position <= index:
                out.extend(_comment_words(comments[k]))
                k += 1
            if index < len(self.instructions):
                tokens = self.instructions[index].tokens
                if sm1:
                    out.extend(tokens)
                else:
                    if len(tokens) - 1 > INSTRUCTION_LENGTH.mask:
                        raise ValueError(f"{len(tokens) - 1} parameter tokens do not fit the 4-bit length field")
                    out.append((tokens[0] & ~INSTRUCTION_LENGTH.bits) | INSTRUCTION_LENGTH.put(len(tokens) - 1))
                    out.extend(tokens[1:])
        out.append(self.end_token)
        return out

    def program(self) -> bytes:
        """The token stream as bytes (what a DXBC ``Aon9`` chunk or D3D9's CreateShader takes)."""
        words = self.words()
        return struct.pack(f"<{len(words)}I", *words)

    def to_bytes(self) -> bytes:
        """The token stream and the trailing bytes."""
        return self.program() + self.trailing

    @property
    def constant_table(self) -> ConstantTable | None:
        """The typed ``CTAB`` of the first constant-table comment, if any."""
        return next((c.table for c in self.comments if c.table is not None), None)

    def comment(self, tag: str) -> D3D9Comment | None:
        """The first comment block starting with FourCC ``tag``."""
        return next((c for c in self.comments if c.tag == tag), None)

    def summary(self) -> dict[str, Any]:
        """``format`` "d3d9", ``shader_model``, ``shader_type`` (vertex/pixel/texture), ``version``,
        ``size``, ``instruction_count``, ``comments`` (tag, offset, size in bytes), ``creator`` and
        ``target`` of the constant table, ``constants`` (name, register set, index, count, type),
        ``trailing_size``."""
        from shaderkit.formats.d3dx.ctab import REGISTER_SETS, type_name

        table = self.constant_table
        constants = []
        if table is not None:
            for c in table.constants:
                constants.append({"name": c.name, "register_set": REGISTER_SETS.get(c.register_set, str(c.register_set)),
                                  "register_index": c.register_index, "register_count": c.register_count,
                                  "type": type_name(table, c.type_offset) if c.type is not None else ""})
        kind = KINDS[SHADER_VERSION_KIND.get(self.version)]
        return {
            "format": self.format_name,
            "shader_model": self.profile,
            "shader_type": {"vs": "vertex", "ps": "pixel", "tx": "texture"}[kind],
            "version": self.version,
            "size": len(self.to_bytes()),
            "instruction_count": len(self.instructions),
            "comments": [{"tag": c.tag, "offset": c.offset, "size": len(c.data)} for c in self.comments],
            "creator": table.string_at(table.creator_offset) if table is not None else "",
            "target": table.string_at(table.target_offset) if table is not None else "",
            "constants": constants,
            "trailing_size": len(self.trailing),
        }

    def disassemble(self) -> str:
        """fxc's listing: the constant table header, the program, the slot count."""
        from shaderkit.formats.d3d9.listing import listing

        return listing(self)


def _comment_words(comment: D3D9Comment) -> list[int]:
    body = comment.payload()
    if len(body) % 4:
        body += bytes(-len(body) % 4)
    size = len(body) // 4
    if size > COMMENT_LENGTH.mask:
        raise ValueError(f"comment of {size} words does not fit the 15-bit length field")
    return [OP_COMMENT | COMMENT_LENGTH.put(size) | comment.flags, *struct.unpack(f"<{size}I", body)]


def constant_table(data: bytes, start: int, end: int) -> ConstantTable | None:
    """The typed table of the ``CTAB`` payload ``data[start:end]``, or None (the comment kept as
    words) when it does not read or rebuild; positions count from the file start."""
    from shaderkit.formats.d3dx.ctab import ConstantTable
    from shaderkit.io.reader import Reader

    r = Reader(data, start, end=end, context="D3D9.CTAB")
    if not ConstantTable.understood(r):
        return None
    try:
        table = ConstantTable.parse(r)
    except ShaderFormatError:
        return None  # (DESIGN principle 1: a table that does not read stays raw, the file still loads)
    return table if table.build() == data[start:end] else None


__all__ = ["D3D9Comment", "D3D9Instruction", "D3D9Shader", "constant_table", "is_version_token", "sniff"]

"""fxc-style listing of a DXBC container: ``//`` comment header, program text, footer.

* plain shaders: header (``listing.comment_header`` when available), the SM4/5 program, footer;
* libraries (``LIBF`` chunks + ``LIBH``): fxc's ``// Library:`` framing, then every function's
  own listing;
* effects (``FX10``): the shader containers embedded in the effect, each listed in turn.
"""

from __future__ import annotations

import importlib
import struct
from typing import TYPE_CHECKING, Any

from shaderkit.errors import ShaderFormatError

if TYPE_CHECKING:
    from shaderkit.formats.dxbc.container import DxbcContainer

_U32 = struct.Struct("<I")
#: effects and libraries embed containers; bound the nesting depth
MAX_DEPTH = 4


def _comment_hooks() -> tuple[Any, Any]:
    """``comment_header``/``comment_footer`` from listing.py when that module exists."""
    try:
        hooks = importlib.import_module("shaderkit.formats.dxbc.listing")
    except ImportError:
        return None, None
    return getattr(hooks, "comment_header", None), getattr(hooks, "comment_footer", None)


def is_legacy(container: DxbcContainer) -> bool:
    """True for containers written by fxc 9.x (d3dcompiler_43 era), whose listings spell some
    things differently (old CRT float digits, lower-case ``cb`` declarations)."""
    rdef = container.rdef
    creator = rdef.creator if rdef is not None else ""
    return " 9." in creator


def program_lines(container: DxbcContainer, legacy: bool | None = None) -> list[str]:
    """The SM4/5 program text of ``container`` (version line, declarations, instructions)."""
    from shaderkit.isa.sm4.decode import decode
    from shaderkit.isa.sm4.text import Formatter

    shader = container.shader
    if shader is None:
        return []
    prog = decode(shader.tokens)
    return Formatter(prog, is_legacy(container) if legacy is None else legacy).lines()


def _shader_listing(container: DxbcContainer, out: list[str]) -> None:
    header, footer = _comment_hooks()
    if header is not None:
        out.extend(header(container))
    level9 = _level9_lines(container)
    out.extend(level9)
    out.extend(program_lines(container))
    if footer is not None:
        out.extend(footer(container))
    else:
        stat = container.statistics
        count = getattr(stat, "instruction_count", 0) if stat is not None else 0
        out.append(f"// Approximately {count} instruction slots used")


#: level-9 D3D9 programs in listing order, with fxc's section titles
LEVEL9_CHUNKS = (("Aon9", "Level9"), ("XNAP", "XNA Prepass"), ("XNAS", "XNA"))


def _level9_lines(container: DxbcContainer) -> list[str]:
    """The level-9 D3D9 programs (Aon9, then the XNA variants), each under fxc's title.

    The constant/sampler mapping tables of the XNA variants come from the optional
    ``listing.level9_mappings(payload)`` hook (the Aon9 tables are part of the comment header).
    """
    chunks = [(c, title) for fourcc, title in LEVEL9_CHUNKS for c in container.chunks_of(fourcc)]
    if not chunks:
        return []
    try:
        level9 = importlib.import_module("shaderkit.isa.sm4.level9")
    except ImportError:
        return []
    try:
        hooks = importlib.import_module("shaderkit.formats.dxbc.listing")
    except ImportError:
        hooks = None
    mappings = getattr(hooks, "level9_mappings", None)
    shader = container.shader
    prefix = f"lib_{shader.major}_{shader.minor}_" if shader is not None else "lib_4_0_"
    out: list[str] = []
    for chunk, title in chunks:
        data = bytes(getattr(chunk, "data", b""))
        if chunk.fourcc != "Aon9" and mappings is not None:
            out.extend(mappings(data))
        out.extend((f"// {title} shader bytecode:", "//"))
        out.extend(level9.listing_lines(data, prefix))
    return out


def _library_names(container: DxbcContainer) -> tuple[int, list[str], str]:
    """(flags, function names, creator) from the LIBH chunk (empty when unreadable)."""
    chunk = container.chunk("LIBH")
    data = bytes(getattr(chunk, "data", b"")) if chunk is not None else b""
    try:
        _, creator_off, flags, count, table = struct.unpack_from("<5I", data, 0)
        if count > len(data) // 8:
            raise ValueError("count")
        names = []
        for i in range(count):
            (name_off,) = _U32.unpack_from(data, table + 8 * i + 4)
            names.append(_cstring(data, name_off))
        return flags, names, _cstring(data, creator_off)
    except (struct.error, ValueError):
        return 0, [], ""


def _cstring(data: bytes, offset: int) -> str:
    end = data.find(b"\0", offset)
    if offset >= len(data) or end < 0:
        raise ValueError("string")
    return data[offset:end].decode("latin-1")


def _library_listing(container: DxbcContainer, out: list[str]) -> None:
    flags, names, creator = _library_names(container)
    functions = container.functions
    out.append("//")
    out.append(f"// Library:  flags {flags}, {len(functions)} functions:")
    for i, name in enumerate(names):
        out.append(f"//  {i:2d}  {name}")
    out.append("//")
    if creator:
        out.append(f"// Created by:  {creator}")
        out.append("//")
    for function in functions:
        _shader_listing(function, out)


def _effect_listing(container: DxbcContainer, out: list[str], depth: int) -> None:
    from shaderkit.formats.dxbc.container import DxbcContainer as Container

    chunk = container.chunk("FX10")
    data = bytes(getattr(chunk, "data", b"")) if chunk is not None else b""
    out.append("//")
    out.append("// FX Version: fx_4_0")
    out.append("//")
    pos = data.find(b"DXBC")
    while pos >= 0 and pos + 32 <= len(data):
        (size,) = _U32.unpack_from(data, pos + 24)
        if 32 <= size <= len(data) - pos:
            try:
                inner = Container.from_bytes(data[pos : pos + size])
            except ShaderFormatError:
                pos = data.find(b"DXBC", pos + 4)
                continue
            _listing(inner, out, depth + 1)
            pos = data.find(b"DXBC", pos + size)
        else:
            pos = data.find(b"DXBC", pos + 4)


def _listing(container: DxbcContainer, out: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ShaderFormatError(f"containers nested deeper than {MAX_DEPTH}", 0, "DXBC")
    if container.functions:
        _library_listing(container, out)
    elif container.chunk("FX10") is not None:
        _effect_listing(container, out, depth)
    else:
        _shader_listing(container, out)


def listing(container: DxbcContainer) -> str:
    """The whole fxc-style listing of ``container`` as text (lines end with ``\\n``)."""
    out: list[str] = []
    _listing(container, out, 0)
    return "\n".join(out) + "\n"

"""``nngfxToolShaderCompilerShaderReflection``: the compiler's full reflection output (BNSH 2.3.x).

Layout (0x98 bytes, from Nintendo's nngfxToolShaderCompiler header): eight u32 counts (constant
buffers, unordered-access buffers, inputs, outputs, samplers, constant-buffer variables,
unordered-access-buffer variables, images); seven array pointers in that order (images excluded);
u32 compute work-group size x, y, z and 4 reserved; the image array pointer; u32 counts of
separate textures and separate samplers and their two array pointers; 16 reserved.

Every entry starts with an ``nngfxToolString`` (u32 length, 4 reserved, pointer to the characters
of a ``_STR`` entry). Checked on wiixl_quad_carray.bnsh (constant buffer 0x58, input, output and
constant-buffer variable 0x40 bytes each, arrays back to back in pointer-field order).
"""

from __future__ import annotations

import struct
from typing import Any

from shaderkit.formats.bnsh.model import (
    CompilerBuffer,
    CompilerEntry,
    CompilerResource,
    CompilerShaderInterface,
    CompilerVariable,
)

HEADER = struct.Struct("<8I7Q3I4sQII2Q16s")
HEADER_SIZE = HEADER.size  # 0x98
#: offset of each table's array pointer inside the header, in COMPILER_TABLES order
POINTER_AT = (0x20, 0x28, 0x30, 0x38, 0x40, 0x48, 0x50, 0x68, 0x78, 0x80)
#: the name pointer sits 8 bytes into every entry
NAME_POINTER_AT = 8

ENTRY_STRUCTS: dict[type, struct.Struct] = {
    CompilerBuffer: struct.Struct("<I4sQ6i8sIIi28s"),
    CompilerShaderInterface: struct.Struct("<I4sQiiIi32s"),
    CompilerResource: struct.Struct("<I4sQi6i8siI28s"),
    CompilerVariable: struct.Struct("<I4sQiiiIi28s"),
}


def entry_from_values(cls: type, name: str | None, name_reserved: bytes, values: tuple[Any, ...]) -> CompilerEntry:
    """An entry from the fields that follow its name (as ``ENTRY_STRUCTS[cls]`` unpacks them)."""
    if cls is CompilerBuffer:
        return CompilerBuffer(name, tuple(values[0:6]), values[7], values[8], values[9], name_reserved,
                              values[6], values[10])
    if cls is CompilerShaderInterface:
        return CompilerShaderInterface(name, values[0], values[1], values[2], values[3], name_reserved, values[4])
    if cls is CompilerResource:
        return CompilerResource(name, values[0], tuple(values[1:7]), values[8], values[9], name_reserved,
                                values[7], values[10])
    return CompilerVariable(name, values[0], values[1], values[2], values[3], values[4], name_reserved, values[5])


def entry_values(entry: CompilerEntry) -> tuple[Any, ...]:
    """The fields that follow the name, in file order (the inverse of :func:`entry_from_values`)."""
    if isinstance(entry, CompilerBuffer):
        return (*entry.shader_slot, entry.slot_reserved, entry.size, entry.active_variable_count, entry.stages,
                entry.reserved)
    if isinstance(entry, CompilerShaderInterface):
        return (entry.type, entry.shader_slot, entry.array_count, entry.stages, entry.reserved)
    if isinstance(entry, CompilerResource):
        return (entry.type, *entry.shader_slot, entry.slot_reserved, entry.stages, entry.array_count, entry.reserved)
    return (entry.type, entry.block_index, entry.offset, entry.array_count, entry.stages, entry.reserved)

"""GFD ("Gfx2") shader files, .gsh: blocks holding GX2 shader headers and their programs.

File header 0x20 (big-endian): ``Gfx2``, header size, major (7; 6 accepted), minor, gpu version,
align mode, 2 reserved words. Every block has a 0x20-byte ``BLK{`` header (header size, major,
minor, type, data size, id, index). Shader header blocks (3 VS, 6 PS, 8 GS) hold a GX2 struct with
tagged pointers and end with a 0x28-byte relocation trailer ``}BLK``; program blocks (5 VS, 7 PS,
9 GS, 10 GS copy; 13 for the copy program when the block header's major version is 0) hold
the microcode of the header block before them.

Facts checked on every corpus file (gshCompile output), which the writer reproduces:

- a header block is the struct, its arrays (in struct order), the names (each starting on a
  4-byte boundary, the last one padded to 4), the patch list, 8 zero bytes, the trailer;
- trailer: data size = offset of the patch list; text offset = the first name (the data end
  when there are none), text size = data size - text offset; data offset is 0xD0600000;
- patch list: one entry per pointer field of the struct in struct order (program, [copy
  program,] uniform blocks, uniform vars, initial values, loop vars, samplers, [attribs]) holding
  the field's tagged offset or 0 when the pointer is null, then every name pointer of the
  arrays that have names (blocks, vars, samplers, attribs), then two zero entries. A stored
  list that differs from this is kept as it is (``GfdBlock.patch_list``).
"""

from __future__ import annotations

import copy
import struct
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.gx2.shader import (
    TAG_MASK,
    TAGGED,
    GX2GeometryShader,
    GX2PixelShader,
    GX2Shader,
    GX2VertexShader,
)
from shaderkit.io.reader import Reader

_FILE_HEADER = struct.Struct(">4s7I")
_BLOCK_HEADER = struct.Struct(">4s7I")
_TRAILER = struct.Struct(">4s9I")
DATA_TAG = TAGGED.data_tag

#: block types of block-header major version 1 (GFD 7)
BLOCK_TYPES = {
    0: "invalid", 1: "end", 2: "padding", 3: "vertex_shader_header", 4: "vertex_shader_program_old",
    5: "vertex_shader_program", 6: "pixel_shader_header", 7: "pixel_shader_program",
    8: "geometry_shader_header", 9: "geometry_shader_program", 10: "geometry_shader_copy_program",
    11: "texture_header", 12: "texture_image", 13: "texture_mipmap",
    14: "compute_shader_header", 15: "compute_shader_program", 16: "user",
}
#: block-header major version 0 (older GFD) numbers textures 10-12 and the GS copy program 13
BLOCK_TYPES_V0 = {
    **{k: v for k, v in BLOCK_TYPES.items() if k < 10}, 10: "texture_header", 11: "texture_image",
    12: "texture_mipmap", 13: "geometry_shader_copy_program", 14: "reserved_1", 15: "reserved_2", 16: "user",
}
#: header block type -> struct class
HEADER_TYPES: dict[int, type[GX2Shader]] = {3: GX2VertexShader, 6: GX2PixelShader, 8: GX2GeometryShader}
#: program block type -> (header block type, shader attribute), by block-header major version
PROGRAM_TYPES: dict[int, tuple[int, str]] = {
    5: (3, "program"), 7: (6, "program"), 9: (8, "program"), 10: (8, "vertex_program"),
}
PROGRAM_TYPES_V0: dict[int, tuple[int, str]] = {
    5: (3, "program"), 7: (6, "program"), 9: (8, "program"), 13: (8, "vertex_program"),
}


def program_types(block_major: int) -> dict[int, tuple[int, str]]:
    """Program block type -> (header block type, shader attribute) for GFD block major ``block_major``."""
    return PROGRAM_TYPES_V0 if block_major == 0 else PROGRAM_TYPES


SUPPORTED_MAJOR = (6, 7)
#: the block type that ends a file
END_BLOCK = next(t for t, name in BLOCK_TYPES.items() if name == "end")


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the GFD file at ``offset`` of ``data``: its header and the blocks that follow,
    through the end block (or the last block before bytes that are not one); None when the bytes
    there are not a consistent header followed by at least one block."""
    if offset + _FILE_HEADER.size > len(data):
        return None
    magic, header_size, major = _FILE_HEADER.unpack_from(data, offset)[:3]
    if magic != b"Gfx2" or header_size != _FILE_HEADER.size or major not in SUPPORTED_MAJOR:
        return None
    pos = offset + _FILE_HEADER.size
    while pos + _BLOCK_HEADER.size <= len(data):
        block_magic, block_header, _, _, block_type, size = _BLOCK_HEADER.unpack_from(data, pos)[:6]
        if block_magic != b"BLK{" or block_header != _BLOCK_HEADER.size or size > len(data) - pos - block_header:
            break
        pos += block_header + size
        if block_type == END_BLOCK:
            break
    return pos - offset if pos > offset + _FILE_HEADER.size else None


@dataclass
class GfdHeader:
    """The 0x20-byte GFD file header (magic Gfx2, versions, GPU version, align mode)."""
    magic: bytes = b"Gfx2"
    header_size: int = 0x20
    major_version: int = 7
    minor_version: int = 1
    gpu_version: int = 2
    align_mode: int = 0
    reserved1: int = 0
    reserved2: int = 0


@dataclass
class RelocationTrailer:
    """The ``}BLK`` trailer of a header block; sizes, offsets and the patch count are derived."""

    magic: bytes = b"}BLK"
    header_size: int = 0x28
    unknown: int = 0
    data_size: int = 0
    data_offset: int = DATA_TAG
    text_size: int = 0
    text_offset: int = DATA_TAG
    patch_base: int = 0
    patch_count: int = 0
    patch_offset: int = DATA_TAG


@dataclass
class GfdBlock:
    """One GFD block: its header fields and payload (a shader header, program, padding...)."""
    type: int
    id: int = 0
    index: int = 0
    magic: bytes = b"BLK{"
    header_size: int = 0x20
    major_version: int = 1
    minor_version: int = 0
    #: payload of blocks that are not modelled (padding, textures, unknown) or orphan programs
    data: bytes = b""
    #: header blocks: the shader struct; program blocks read their code from the header block
    shader: GX2Shader | None = None
    trailer: RelocationTrailer | None = None
    #: the stored patch list when it differs from the one computed from the shader, else None
    patch_list: list[int] | None = None
    patch_gap: bytes = b""
    trailer_gap: bytes = bytes(8)
    #: False when the stored text offset/size differ from the strings (then they are kept)
    derived_text: bool = True
    #: program blocks: index of their header block in ``Gsh.blocks`` (-1 = keep ``data``)
    header_index: int = -1
    #: program sizes the struct declared when read (checked against the program blocks)
    declared_sizes: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def type_name(self) -> str:
        """The block type name (the version-0 table for old files), ``type_N`` for unknown values."""
        names = BLOCK_TYPES_V0 if self.major_version == 0 else BLOCK_TYPES
        return names.get(self.type, f"type_{self.type}")


@dataclass(repr=False)  # compact repr from ShaderFile
class Gsh(ShaderFile):
    """A Wii U GFD shader file (GSH): blocks holding GX2 shader headers and their programs."""
    format_name: ClassVar[str] = "gsh"

    header: GfdHeader = field(default_factory=GfdHeader)
    blocks: list[GfdBlock] = field(default_factory=list)
    #: bytes after the end block
    trailing: bytes = b""

    @property
    def shaders(self) -> list[GX2Shader]:
        """The GX2 shaders of the file's shader blocks, in file order."""
        return [b.shader for b in self.blocks if b.shader is not None]

    # -- reading ----------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Gsh:
        r = Reader(data, endian=">", context="gsh")
        magic, hsize, major, minor, gpu, align, res1, res2 = r.unpack("4s7I", "file header")
        if magic != b"Gfx2":
            raise r.error(f"bad magic {magic!r}, expected b'Gfx2'", 0)
        if hsize != 0x20:
            raise r.error(f"file header size {hsize:#x}, expected 0x20", 4)
        if major not in SUPPORTED_MAJOR:
            raise r.error(f"GFD version {major}.{minor} is not supported (major 6 or 7)", 8)
        gsh = cls(GfdHeader(magic, hsize, major, minor, gpu, align, res1, res2))
        last_header: dict[int, int] = {}
        #: (header block, attribute) pairs that already have their program block; a second one stays raw
        claimed: set[tuple[int, str]] = set()
        while r.remaining:
            index = len(gsh.blocks)
            with r.scope(f"block[{index}]"):
                block = _read_block(r)
                if block.shader is not None:
                    last_header[block.type] = index
                elif block.type in program_types(block.major_version):
                    owner_type, attr = program_types(block.major_version)[block.type]
                    owner = last_header.get(owner_type)
                    if owner is not None and (owner, attr) not in claimed:
                        shader = gsh.blocks[owner].shader
                        assert shader is not None
                        claimed.add((owner, attr))
                        setattr(shader, attr, block.data)
                        block.header_index, block.data = owner, b""
                gsh.blocks.append(block)
                if block.type == END_BLOCK:
                    break
        gsh.trailing = r.read(r.remaining)
        gsh._check_program_sizes()
        return gsh

    def _check_program_sizes(self) -> None:
        for i, block in enumerate(self.blocks):
            shader = block.shader
            if shader is None:
                continue
            for attr, size in block.declared_sizes.items():
                got = len(getattr(shader, attr))
                if got == 0 and size:  # header without its program (block missing or empty): keep the size
                    shader.absent_program_sizes[attr] = size
                elif got != size:
                    raise ShaderFormatError(
                        f"{shader.STAGE} header declares a {attr} of {size} bytes, its program block has {got}",
                        None, f"gsh.block[{i}]",
                    )

    # -- writing ----------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        h = self.header
        out = bytearray(_FILE_HEADER.pack(h.magic, h.header_size, h.major_version, h.minor_version,
                                          h.gpu_version, h.align_mode, h.reserved1, h.reserved2))
        for block in self.blocks:
            payload = self._payload(block)
            out += _BLOCK_HEADER.pack(block.magic, block.header_size, block.major_version,
                                      block.minor_version, block.type, len(payload), block.id, block.index)
            out += payload
        out += self.trailing
        return bytes(out)

    def relayout(self) -> bytes:
        """The file laid out afresh: every header block as gshCompile lays it out (arrays, 4-aligned
        names, computed patch list, 8 zero bytes, trailer), forgetting the parsed placement."""
        fresh = copy.deepcopy(self)
        for block in fresh.blocks:
            if block.shader is not None:
                block.shader.layout = None
                block.patch_list, block.patch_gap, block.trailer_gap = None, b"", bytes(8)
                block.derived_text = True
        return fresh.to_bytes()

    def _payload(self, block: GfdBlock) -> bytes:
        if block.header_index >= 0:
            return self._program_code(block)
        if block.shader is None:
            return block.data
        built = block.shader.build(TAGGED, ">")
        patches = block.patch_list
        if patches is None:
            patches = [DATA_TAG | f if f else 0 for f in built.patch_fields]
        t = block.trailer or RelocationTrailer()
        patch_at = len(built.data) + len(block.patch_gap)
        payload = bytearray(built.data)
        payload += block.patch_gap
        payload += struct.pack(f">{len(patches)}I", *patches)
        payload += block.trailer_gap
        if block.derived_text:
            text_size, text_offset = len(built.data) - built.text_start, DATA_TAG | built.text_start
        else:
            text_size, text_offset = t.text_size, t.text_offset
        payload += _TRAILER.pack(
            t.magic, t.header_size, t.unknown, len(built.data), t.data_offset, text_size, text_offset,
            t.patch_base, len(patches), DATA_TAG | patch_at,
        )
        return bytes(payload)

    def problems(self) -> list[str]:
        if not self.blocks or self.blocks[-1].type != 1:
            return ["no end block: the file looks truncated"]
        return []

    # -- showing ----------------------------------------------------------------------------
    def disassemble(self) -> str:
        """Every GX2 program's Latte listing (decaf syntax) under a gfd-tool-like header."""
        from shaderkit.formats.gx2.listing import listing
        from shaderkit.formats.gx2.programs import gsh_shaders

        return listing(gsh_shaders(self))

    def summary(self) -> dict[str, Any]:
        """Keys: format, version, gpu_version, align_mode; ``blocks``: type, name, size, id,
        index; ``shaders``: one GX2 shader summary per header block (stage, mode, sizes, arrays)."""
        h = self.header
        return {
            "format": self.format_name,
            "version": f"{h.major_version}.{h.minor_version}",
            "gpu_version": h.gpu_version,
            "align_mode": h.align_mode,
            "blocks": [
                {"type": b.type, "name": b.type_name, "size": len(self._payload(b)), "id": b.id, "index": b.index}
                for b in self.blocks
            ],
            "shaders": [s.summary() for s in self.shaders],
        }

    def _program_code(self, block: GfdBlock) -> bytes:
        """The microcode a program block writes: the attribute of its header block's shader."""
        owner = self.blocks[block.header_index].shader
        assert owner is not None
        return bytes(getattr(owner, program_types(block.major_version)[block.type][1]))


def _read_block(r: Reader) -> GfdBlock:
    start = r.tell()
    magic, hsize, major, minor, btype, size, bid, bindex = r.unpack("4s7I", "block header")
    if magic != b"BLK{":
        raise r.error(f"bad block magic {magic!r}, expected b'BLK{{'", start)
    if hsize != 0x20:
        raise r.error(f"block header size {hsize:#x}, expected 0x20", start + 4)
    body = r.sub(r.tell(), size, f"type_{btype}") if size <= r.remaining else None
    if body is None:
        raise r.error(f"block data of {size} bytes runs past the end ({r.remaining} left)", start + 0x14)
    block = GfdBlock(btype, bid, bindex, magic, hsize, major, minor)
    shader_cls = HEADER_TYPES.get(btype)
    if shader_cls is None:
        block.data = body.read(size)
    else:
        _read_header_block(body, block, shader_cls)
    r.seek(start + 0x20 + size)
    return block


def _read_header_block(body: Reader, block: GfdBlock, shader_cls: type[GX2Shader]) -> None:
    base, size = body.start, body.end - body.start
    if size < _TRAILER.size:
        raise body.error(f"{size} bytes cannot hold the relocation trailer", base)
    tpos = body.end - _TRAILER.size
    t = RelocationTrailer(*body.unpack_at(tpos, "4s9I", "relocation trailer"))
    if t.magic != b"}BLK" or t.header_size != 0x28:
        raise body.error(f"bad relocation trailer {t.magic!r} size {t.header_size:#x}", tpos)
    with body.scope("relocation"):
        if t.data_offset != DATA_TAG:
            raise body.error(f"data offset {t.data_offset:#x}, expected {DATA_TAG:#x}", tpos + 0x10)
        for name, value in (("text offset", t.text_offset), ("patch offset", t.patch_offset)):
            if value & TAG_MASK != DATA_TAG:
                raise body.error(f"{name} {value:#010x} lacks the tag {DATA_TAG:#010x}", tpos)
        patch_at = t.patch_offset & ~TAG_MASK
        if t.data_size > patch_at or patch_at > tpos - base:
            raise body.error(
                f"data size {t.data_size:#x} / patch list at {patch_at:#x} do not fit before the trailer", tpos
            )
        body.check_count(t.patch_count, 4, "patch list", offset=base + patch_at)
        if patch_at + 4 * t.patch_count > tpos - base:
            raise body.error(f"patch list of {t.patch_count} entries runs into the trailer", base + patch_at)
        patches = list(body.unpack_at(base + patch_at, f"{t.patch_count}I", "patch list"))
    shader = shader_cls.parse(body, base, t.data_size, TAGGED)
    block.shader, block.trailer = shader, t
    block.patch_gap = body.data[base + t.data_size : base + patch_at]
    block.trailer_gap = body.data[base + patch_at + 4 * t.patch_count : tpos]
    # the sizes the struct declares for its programs (checked against the program blocks)
    words = body.unpack_at(base + shader_cls.REGS.word_count() * 4, "5I", "program sizes")
    declared = {"program": words[0]}
    if shader_cls is GX2GeometryShader:
        declared["vertex_program"] = words[2]
    block.declared_sizes = declared
    built = shader.build(TAGGED, ">")
    if [DATA_TAG | f if f else 0 for f in built.patch_fields] != patches:
        block.patch_list = patches
    if (len(built.data) - built.text_start, DATA_TAG | built.text_start) != (t.text_size, t.text_offset):
        block.derived_text = False

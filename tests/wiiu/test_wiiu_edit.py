"""Editing models: the writer recomputes sizes, counts, offsets, text regions and patch lists."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.gfd.gsh import DATA_TAG, GfdBlock, Gsh
from shaderkit.formats.gx2.shader import GX2GeometryShader, GX2VertexShader
from shaderkit.formats.gx2.types import GX2SamplerVar, GX2UniformVar

COIN = corpus_params("wiiu", "sc_obj_coin.sharcfb")
RIO04 = corpus_params("wiiu", "rio_04_test_shader.gsh")
RIO05 = corpus_params("wiiu", "rio_05_test_shader.gsh")


@pytest.mark.parametrize("path", COIN)
def test_sharcfb_changed_default_value(path: Path) -> None:
    data = path.read_bytes()
    archive = Sharcfb.from_bytes(data)
    program = archive.programs["mat_coin"]
    program.uniforms[0].default_value = struct.pack(">4f", 0.5, 0.25, 2.0, 1.0)
    program.uniforms[1].default_value = struct.pack(">8f", *range(8))  # longer than before (16 -> 32)
    out = archive.to_bytes()
    assert len(out) == len(data) + 16
    assert struct.unpack_from("<I", out, 8)[0] == len(out)
    again = Sharcfb.from_bytes(out)
    assert again.programs[0].uniforms[0].default_value == struct.pack(">4f", 0.5, 0.25, 2.0, 1.0)
    assert again.programs[0].uniforms[1].default_value == struct.pack(">8f", *range(8))
    assert struct.pack("<4f", 0.5, 0.25, 2.0, 1.0) in out  # swapped per word on disk
    assert again.programs[0].attributes == Sharcfb.from_bytes(data).programs[0].attributes
    assert again.binaries == Sharcfb.from_bytes(data).binaries


@pytest.mark.parametrize("path", COIN)
def test_sharcfb_replaced_binary(path: Path) -> None:
    data = path.read_bytes()
    archive = Sharcfb.from_bytes(data)
    new_code = bytes(range(256)) * 0x16  # 0x1600 bytes instead of 0x1590
    archive.binaries[0].shader.program = new_code
    archive.binaries[0].shader.uniform_vars.append(GX2UniformVar("cAdded", 11, 1, 0x200, 0))
    out = archive.to_bytes()
    again = Sharcfb.from_bytes(out)
    vs, ps = again.binaries[0].shader, again.binaries[1].shader
    assert vs.program == new_code and out.find(new_code) % 0x100 == 0
    assert vs.uniform_vars[-1] == GX2UniformVar("cAdded", 11, 1, 0x200, 0) and len(vs.uniform_vars) == 308
    original = Sharcfb.from_bytes(data)
    assert vs.uniform_vars[:-1] == original.binaries[0].shader.uniform_vars
    assert ps == original.binaries[1].shader and ps.program == original.binaries[1].shader.program
    # the pixel shader's microcode is still 0x100-aligned after the shift
    assert out.find(ps.program) % 0x100 == 0
    assert again.to_bytes() == out


@pytest.mark.parametrize("path", RIO04)
def test_gsh_replaced_program_and_added_sampler(path: Path) -> None:
    gsh = Gsh.from_bytes(path.read_bytes())
    vs, ps = gsh.shaders
    vs.program = b"\x11" * 0x200
    ps.sampler_vars.append(GX2SamplerVar("texture2", 1, 2))
    out = gsh.to_bytes()
    again = Gsh.from_bytes(out)
    vs2, ps2 = again.shaders
    assert vs2.program == b"\x11" * 0x200 and again.blocks[1].header_index == 0
    assert [s.name for s in ps2.sampler_vars] == ["texture0", "texture1", "texture2"]
    # the recomputed patch list and text region are the canonical ones again
    header = again.blocks[2]
    assert header.patch_list is None and header.derived_text
    # one more name pointer in the patch list: 10 -> 11 entries, and it names the new record
    trailer = header.trailer
    assert trailer is not None and trailer.patch_count == 11
    assert again.to_bytes() == out
    # read the PS header block by hand: samplers at 0xE8 (3 x 0xC), so sampler[2].name is the
    # word at 0xE8 + 0x18 and must be in the patch list; the strings start at 0x10C
    payload = _raw_blocks(out)[2][1]
    patch_count, patch_at = struct.unpack_from(">2I", payload, len(payload) - 8)
    patches = struct.unpack_from(f">{patch_count}I", payload, patch_at & 0xFFFFF)
    assert DATA_TAG | (0xE8 + 0x18) in patches and DATA_TAG | 0xD4 in patches
    text_size, text_at = struct.unpack_from(">2I", payload, len(payload) - 0x28 + 0x14)
    assert text_at == DATA_TAG | 0x10C
    # names start on 4-byte boundaries as gshCompile wrote them; the new one follows that rule
    assert payload[0x10C : 0x10C + 36] == b"texture0\0\0\0\0texture1\0\0\0\0texture2\0\0\0\0"
    assert len(payload) - 0x28 - 4 * patch_count == 0x10C + 36 + 8  # then the patch list, 8 zero bytes


def _raw_blocks(data: bytes) -> list[tuple[int, bytes]]:
    """(type, payload) of every block, read with struct only."""
    pos, out = 0x20, []
    while pos < len(data):
        btype, size = struct.unpack_from(">2I", data, pos + 0x10)
        out.append((btype, data[pos + 0x20 : pos + 0x20 + size]))
        pos += 0x20 + size
    return out


@pytest.mark.parametrize("path", RIO05)
def test_gsh_shared_name_keeps_orphan_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    gsh = Gsh.from_bytes(bytes(data))
    # VS uniform vars at block offset 0x134 (see the patch list): point var[1]'s name at var[0]'s
    base = 0x40
    name0 = struct.unpack_from(">I", data, base + 0x134)[0]
    struct.pack_into(">I", data, base + 0x134 + 0x14, name0)
    mutated = Gsh.from_bytes(bytes(data))
    vars0 = gsh.shaders[0].uniform_vars
    vars1 = mutated.shaders[0].uniform_vars
    assert vars1[1].name == vars1[0].name == vars0[0].name
    assert mutated.to_bytes() == bytes(data)


def test_gsh_geometry_blocks_built_from_scratch() -> None:
    gs = GX2GeometryShader(program=b"\x01" * 0x40, vertex_program=b"\x02" * 0x80, mode=2)
    gs.uniform_vars = [GX2UniformVar("cGeo", 11, 1, 0, -1)]
    gsh = Gsh(blocks=[GfdBlock(8, shader=gs), GfdBlock(9, header_index=0), GfdBlock(10, header_index=0), GfdBlock(1)])
    data = gsh.to_bytes()
    parsed = Gsh.from_bytes(data)
    assert [b.type for b in parsed.blocks] == [8, 9, 10, 1]
    (shader,) = parsed.shaders
    assert shader == gs and shader.program == b"\x01" * 0x40 and shader.vertex_program == b"\x02" * 0x80
    assert parsed.to_bytes() == data
    # struct words: program size @0x4C, copy program size @0x54, tagged UV pointer 0xD06000C0 @0x6C
    struct_at = 0x40
    assert struct.unpack_from(">I", data, struct_at + 0x4C)[0] == 0x40
    assert struct.unpack_from(">I", data, struct_at + 0x54)[0] == 0x80
    assert struct.unpack_from(">2I", data, struct_at + 0x68) == (1, DATA_TAG | 0xC0)


def test_gsh_v6_block_numbering() -> None:
    # block-header major 0 numbers the GS copy program 13 (and textures 10-12)
    gs = GX2GeometryShader(program=b"\x01" * 0x40, vertex_program=b"\x02" * 0x80, mode=2)
    v0 = {"major_version": 0}
    gsh = Gsh(blocks=[GfdBlock(8, shader=gs, **v0), GfdBlock(9, header_index=0, **v0),
                      GfdBlock(13, header_index=0, **v0), GfdBlock(10, data=b"tex!", **v0), GfdBlock(1, **v0)])
    gsh.header.major_version = 6
    parsed = Gsh.from_bytes(gsh.to_bytes())
    assert parsed.shaders == [gs]
    assert [b.type_name for b in parsed.blocks] == [
        "geometry_shader_header", "geometry_shader_program", "geometry_shader_copy_program", "texture_header", "end"]
    assert parsed.blocks[3].data == b"tex!" and parsed.to_bytes() == gsh.to_bytes()


def test_gsh_second_program_block_stays_raw() -> None:
    vs = GX2VertexShader(program=b"")
    gsh = Gsh(blocks=[GfdBlock(3, shader=vs), GfdBlock(5, header_index=0), GfdBlock(5, data=b"\x07" * 8), GfdBlock(1)])
    data = gsh.to_bytes()
    parsed = Gsh.from_bytes(data)
    assert parsed.blocks[1].header_index == 0 and parsed.blocks[2].header_index == -1
    assert parsed.blocks[2].data == b"\x07" * 8 and parsed.to_bytes() == data


@pytest.mark.parametrize("path", RIO05)
def test_gsh_relayout_drops_odd_placement(path: Path) -> None:
    data = bytearray(path.read_bytes())
    name0 = struct.unpack_from(">I", data, 0x40 + 0x134)[0]
    struct.pack_into(">I", data, 0x40 + 0x134 + 0x14, name0)  # var[1] shares var[0]'s name
    gsh = Gsh.from_bytes(bytes(data))
    fresh = gsh.relayout()
    assert fresh != bytes(data)
    again = Gsh.from_bytes(fresh)
    assert again.shaders == gsh.shaders and again.relayout() == fresh
    # the unchanged corpus file is already in the canonical layout
    assert Gsh.from_bytes(path.read_bytes()).relayout() == path.read_bytes()


@pytest.mark.parametrize("path", COIN)
def test_sharcfb_relayout(path: Path) -> None:
    data = path.read_bytes()
    assert Sharcfb.from_bytes(data).relayout() == data

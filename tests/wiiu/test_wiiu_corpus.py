"""Real files: byte-exact round trips and values read by hand from the hex dumps."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.formats.gx2.shader import GX2PixelShader, GX2VertexShader


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.gsh"))
def test_gsh_round_trip(path: Path) -> None:
    data = path.read_bytes()
    assert Gsh.from_bytes(data).to_bytes() == data


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharcfb"))
def test_sharcfb_round_trip(path: Path) -> None:
    data = path.read_bytes()
    assert Sharcfb.from_bytes(data).to_bytes() == data


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_gsh_rio04_fields(path: Path) -> None:
    # Worked out from the hex dump: VS header block at 0x20 (2 attribs), VS program 0x120 bytes,
    # PS header with two samplers texture0/texture1, PS program 0x1a0 bytes.
    gsh = Gsh.from_bytes(path.read_bytes())
    assert gsh.header.major_version == 7 and gsh.header.minor_version == 1 and gsh.header.gpu_version == 2
    assert [b.type for b in gsh.blocks] == [3, 5, 6, 7, 1]
    vs, ps = gsh.shaders
    assert isinstance(vs, GX2VertexShader) and isinstance(ps, GX2PixelShader)
    assert [(a.name, a.location) for a in vs.attrib_vars] == [("v_inPos", 0), ("v_inTexCoord", 1)]
    assert len(vs.program) == 0x120 and len(ps.program) == 0x1A0
    assert vs.regs.sq_pgm_resources_vs == 0x103 and vs.regs.num_spi_vs_out_id == 1
    assert [(s.name, s.type, s.location) for s in ps.sampler_vars] == [("texture0", 1, 0), ("texture1", 1, 1)]
    assert vs.mode == 0 and ps.mode == 0


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharcfb"))
def test_sharcfb_obj_coin_fields(path: Path) -> None:
    data = path.read_bytes()
    archive = Sharcfb.from_bytes(data)
    # header: BAHS, v8, size 0x62db, endian 1, name "obj_coin"
    assert archive.endian == "<" and archive.version == 8 and archive.name == "obj_coin"
    assert [b.type for b in archive.binaries] == [0, 1]
    vs = archive.binaries[0].shader
    # struct at 0x39: sq_pgm_resources_vs 0x314, 4 blocks, 307 uniforms, 1 loop var, 4 attributes,
    # microcode 0x1590 bytes at file offset 0x2d00 (0x100-aligned)
    assert vs.regs.sq_pgm_resources_vs == 0x314 and vs.mode == 1
    assert len(vs.uniform_blocks) == 4 and len(vs.uniform_vars) == 307 and len(vs.attrib_vars) == 4
    assert vs.uniform_blocks[0].name == "Mat" and vs.uniform_blocks[0].size == 0x290
    assert (vs.loop_vars[0].offset, vs.loop_vars[0].value) == (0, 0xFFFFFFFF)
    assert vs.program == data[0x2D00 : 0x2D00 + 0x1590]
    (program,) = archive.programs
    assert (program.name, program.kind, program.base_index) == ("mat_coin", 3, 0)
    assert program.macros == [] and program.variation_count == 1
    tev = program.uniforms[0]
    assert (tev.name, tev.id, tev.offset, tev.used) == ("tev_color0", "tev_color0", 0x40, b"\x01")
    assert tev.default_value == bytes.fromhex("3f800000") * 4  # 1.0f x4, held big-endian
    assert len(program.uniform_blocks) == 4 and program.uniform_blocks[0].name == "Mat"
    mat = program.uniform_blocks[0]
    # uniform-block defaults are not word-swapped: 0x290 bytes as stored (LE floats here)
    assert mat.offset == 0x290 and len(mat.default_value) == 0x290 and mat.default_value[0x40:0x44] == b"\0\0\x80?"  # tev_color0 at word 16
    assert program.attributes[-1].name == "aBlendIndex" and program.attributes[-1].offset == -1
    variation = program.variation({})
    assert variation.index == 0 and variation.binary_indices == {"vertex": 0, "pixel": 1}


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharcfb"))
def test_sharcfb_endian_swap(path: Path) -> None:
    data = path.read_bytes()
    little = Sharcfb.from_bytes(data)
    little.endian = ">"
    big_bytes = little.to_bytes()
    assert big_bytes[:4] == b"SHAB" and big_bytes[0xC:0x10] == b"\0\0\0\0"
    big = Sharcfb.from_bytes(big_bytes)
    assert big.endian == ">" and big.to_bytes() == big_bytes
    again = Sharcfb.from_bytes(data)
    again.endian = ">"
    assert big == again
    # the first struct word (sq_pgm_resources_vs = 0x314 at 0x39) is swapped; the microcode at the
    # 0x100-aligned 0x2d00 and the names are not
    assert data[0x39:0x3D] == b"\x14\x03\0\0" and big_bytes[0x39:0x3D] == b"\0\0\x03\x14"
    assert big_bytes[0x2D00 : 0x2D00 + 0x1590] == data[0x2D00 : 0x2D00 + 0x1590]
    assert data.find(b"tev_color0\0") == big_bytes.find(b"tev_color0\0") > 0
    big.endian = "<"
    assert big.to_bytes() == data



# Read by hand from the hex dumps: version, endian, archive name, program count, then the first
# program's name and its VS/PS/GS source indices.
SHARC_HEADERS = {
    "sc_obj_coin.sharc": (11, "<", "obj_coin", 1, "mat_coin", [0, 1, -1]),
    "agl_agl_common.sharc": (11, "<", "agl_common", 50, "dev_util", [4, 5, -1]),
    "agl_agl_technique.sharc": (11, "<", "agl_technique", 44, "color_correction_map", [4, 4, -1]),
    "agl_simple_model.sharc": (11, "<", "simple_model_shader", 1, "simple_model", [0, 0, -1]),
}


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharc"))
def test_sharc_round_trip_and_endian_swap(path: Path) -> None:
    from shaderkit.formats.agl.sharc import Sharc

    data = path.read_bytes()
    archive = Sharc.from_bytes(data)
    assert archive.to_bytes() == data
    archive.endian = ">"
    big = archive.to_bytes()
    assert big[:4] == b"SHAA" and Sharc.from_bytes(big) == archive
    archive.endian = "<"
    assert archive.to_bytes() == data
    expected = SHARC_HEADERS.get(path.name)
    if expected is not None:
        version, endian, name, count, first, sources = expected
        archive = Sharc.from_bytes(data)
        assert (archive.version, archive.endian, archive.name, len(archive.programs)) == (version, endian, name, count)
        assert (archive.programs[0].name, archive.programs[0].source_index) == (first, sources)


@pytest.mark.parametrize("path", corpus_params("wiiu", "sc_obj_coin.sharc"))
def test_sharc_obj_coin_fields(path: Path) -> None:
    from shaderkit.formats.agl.sharc import Sharc

    archive = Sharc.from_bytes(path.read_bytes())
    # from the hex dump: program mat_coin, 16 VS defines (the first is fog_index=0), 77 PS defines
    (program,) = archive.programs
    assert [len(m) for m in program.macros] == [16, 77, 0]
    assert (program.macros[0][0].name, program.macros[0][0].value) == ("fog_index", "0")
    assert [s.name for s in archive.sources] == ["wii_pipeline_vs.sh", "wii_pipeline_fs.sh"]
    assert len(archive.sources[0].code) == 0x3975 and archive.sources[0].text.startswith("//---")


def _forget_placement(gsh: Gsh) -> None:
    """Drop everything the parser remembered about placement, so the writer lays the file out itself."""
    for block in gsh.blocks:
        if block.shader is not None:
            block.shader.layout = None
            block.patch_list, block.patch_gap, block.trailer_gap = None, b"", bytes(8)


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.gsh"))
def test_gsh_fresh_layout_is_a_valid_file_with_the_same_model(path: Path) -> None:
    # any GSH, whichever tool wrote it: the writer's own layout parses back to the same shaders and
    # is stable (writing it again gives the same bytes)
    data = path.read_bytes()
    gsh = Gsh.from_bytes(data)
    _forget_placement(gsh)
    fresh = gsh.to_bytes()
    again = Gsh.from_bytes(fresh)
    assert again.shaders == Gsh.from_bytes(data).shaders
    assert [b.type for b in again.blocks] == [b.type for b in gsh.blocks]
    assert again.to_bytes() == fresh


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.gsh"))
def test_gsh_fresh_layout_matches_gshcompile(path: Path) -> None:
    # Files whose relocation tables are gshCompile's (every pointer field listed, 8 zero bytes after
    # the list: the parser keeps no patch list for them) have gshCompile's whole layout: struct, arrays,
    # 4-aligned names. Other writers (decaf's latte-assembler lists only non-null pointers and writes no
    # trailer) lay files out their own way; they are covered by the test above.
    data = path.read_bytes()
    gsh = Gsh.from_bytes(data)
    if any(b.shader is not None and (b.patch_list is not None or b.trailer_gap != bytes(8)) for b in gsh.blocks):
        pytest.skip("relocation tables are not gshCompile's: written by another tool")
    _forget_placement(gsh)
    assert gsh.to_bytes() == data


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharcfb"))
def test_sharcfb_fresh_layout_matches_sharccompiler(path: Path) -> None:
    # arrays, names, loop vars, zero padding to a 0x100-aligned file offset, microcode
    data = path.read_bytes()
    archive = Sharcfb.from_bytes(data)
    for binary in archive.binaries:
        binary.shader.layout = None
    assert archive.to_bytes() == data


def _without_vertex_program(data: bytes, keep_empty_block: bool) -> tuple[bytes, int]:
    """``data`` with its VSP block (type 5) dropped or emptied; also the program size it held."""
    import struct

    pos = struct.unpack(">I", data[4:8])[0]
    out, size = bytearray(data[:pos]), 0
    while pos < len(data):
        header_size, _major, _minor, kind, data_size = struct.unpack(">5I", data[pos + 4 : pos + 24])
        block = bytearray(data[pos : pos + header_size + data_size])
        if kind == 5:
            size = data_size
            block = block[:header_size] if keep_empty_block else bytearray()
            if keep_empty_block:
                struct.pack_into(">I", block, 20, 0)
        out += block
        pos += header_size + data_size
    return bytes(out), size


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_02_test_shader.gsh"))
@pytest.mark.parametrize("keep_empty_block", [False, True], ids=["block-missing", "block-empty"])
def test_gsh_header_without_its_program_is_read_and_rebuilt(path: Path, keep_empty_block: bool) -> None:
    # decaf's reader accepts a vertex header whose program block is missing or empty; so do we,
    # keeping the size the header declares
    data, size = _without_vertex_program(path.read_bytes(), keep_empty_block)
    assert size == 0x110  # rio_02's vertex program, from its block header
    gsh = Gsh.from_bytes(data)
    vs = gsh.shaders[0]
    assert vs.program == b"" and vs.absent_program_sizes == {"program": 0x110}
    assert gsh.to_bytes() == data


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharc"))
def test_sharc_text_lists_every_glsl_source_as_stored(path: Path) -> None:
    import re

    from shaderkit.formats.agl.sharc import Sharc

    data = path.read_bytes()
    text = Sharc.from_bytes(data).disassemble()
    sections = re.split(r"^// ==== source [^\n]*\n", text, flags=re.M)[1:]
    assert sections
    for body in sections:  # each source's text is bytes of the file (Shift-JIS comments in agl's)
        code = body.rstrip("\n")
        assert code.encode("utf-8") in data or code.encode("shift_jis") in data

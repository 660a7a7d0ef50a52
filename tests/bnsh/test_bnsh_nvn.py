"""NVN code pieces: the SPH bit fields (NVIDIA's Shader-Program-Header layout), the NVN header,
the control-section header and the raw NVN program blob."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.bnsh.nvn import (
    CONTROL_MIN_SIZE,
    ControlSectionHeader,
    NvnCode,
    NvnProgramFile,
    PsMaps,
    ShaderProgramHeader,
    VtgMaps,
)


def test_common_word0_fields_by_hand() -> None:
    # 0x00065462: sph_type 2, version 3, shader_type 5 (pixel), MRT enabled, SASS version 3
    sph = ShaderProgramHeader.from_bytes(struct.pack("<I", 0x00065462) + bytes(0x4C))
    assert (sph.sph_type, sph.version, sph.shader_type) == (2, 3, 5)
    assert (sph.mrt_enable, sph.kills_pixels, sph.sass_version) == (1, 0, 3)
    assert sph.shader_type_name == "pixel" and sph.sph_type_name == "PS"
    # CommonWord1..4: local memory 0x123456 low + 0x01 high, output topology 7, max vertices 0x80
    words = struct.pack("<5I", 0x02060461, 0x05123456, 0x00000001, 0x07000000, 0x00000080)
    vtg = ShaderProgramHeader.from_bytes(words + bytes(0x3C))
    assert vtg.shader_local_memory_low_size == 0x123456 and vtg.per_patch_attribute_count == 5
    assert vtg.shader_local_memory_high_size == 1 and vtg.output_topology == 7
    assert vtg.max_output_vertex_count == 0x80
    assert vtg.summary()["local_memory"] == 0x1123456


def test_vtg_generic_vectors_by_hand() -> None:
    area = bytearray(0x3C)
    area[0x18 - 0x14] = 0x3F  # input attribute 0: xyzw; attribute 1: xy
    area[0x36 - 0x14 + 1] = 0x80  # output attribute 3: w
    raw = struct.pack("<5I", 0x02060461, 0, 0, 0, 0) + bytes(area)
    sph = ShaderProgramHeader.from_bytes(raw)
    assert isinstance(sph.maps, VtgMaps)
    assert sph.maps.input_attributes() == ["0.xyzw", "1.xy"]
    assert sph.maps.output_attributes() == ["3.w"]
    assert sph.to_bytes() == raw


def test_ps_output_targets_by_hand() -> None:
    area = bytearray(0x3C)
    struct.pack_into("<II", area, 0x48 - 0x14, 0x0000F00F, 2)  # RT0 xyzw, RT3 xyzw; depth
    raw = struct.pack("<5I", 0x00065462, 0, 0, 0, 0) + bytes(area)
    sph = ShaderProgramHeader.from_bytes(raw)
    assert isinstance(sph.maps, PsMaps)
    assert sph.maps.output_attributes() == ["0.xyzw", "3.xyzw"]
    assert sph.maps.omap_depth and not sph.maps.omap_sample_mask


@given(st.binary(min_size=0x50, max_size=0x50), st.integers(0, 31))
def test_sph_round_trip(raw: bytes, sph_type: int) -> None:
    raw = bytes([(raw[0] & 0xE0) | sph_type]) + raw[1:]
    assert ShaderProgramHeader.from_bytes(raw).to_bytes() == raw


def test_short_or_bad_code_raises_format_errors() -> None:
    with pytest.raises(ShaderFormatError):
        ShaderProgramHeader.from_bytes(bytes(0x4F))
    with pytest.raises(ShaderFormatError):
        NvnCode.from_bytes(bytes(0x80))  # magic 0, not 0x12345678
    with pytest.raises(ShaderFormatError):
        ControlSectionHeader.from_bytes(struct.pack("<I", 0x98761234) + bytes(0x100))
    with pytest.raises(ShaderFormatError):
        ControlSectionHeader.from_bytes(bytes(CONTROL_MIN_SIZE))


def test_control_header_fields() -> None:
    raw = bytearray(CONTROL_MIN_SIZE)
    struct.pack_into("<5I", raw, 0, 0x98761234, 1, 8, 0x120, 0xB)
    struct.pack_into("<10I", raw, 0x6F0, 0, 0, 0x310, 0, 0x400, 0x400, 0x30, 10, 0, 1)
    header = ControlSectionHeader.from_bytes(bytes(raw))
    assert header.summary() == {"version": "1.8", "program_size": 0x310, "const_buf_size": 0,
                                "registers": 10, "stage": 1}


def test_nvn_program_file_synthetic() -> None:
    parts = [struct.pack("<I", 0x98761234) + bytes(CONTROL_MIN_SIZE - 4),
             struct.pack("<I", 0x12345678) + bytes(0x2C) + struct.pack("<I", 0x02060461) + bytes(0x4C) + b"code"]
    model = NvnProgramFile([0, 0], parts)
    data = model.to_bytes()
    assert struct.unpack_from("<2I", data) == (8, 8 + len(parts[0]))
    back = NvnProgramFile.from_bytes(data)
    assert back.parts == parts and back.offsets == [8, 8 + len(parts[0])]
    rows = back.summary()["parts"]
    assert rows[0]["kind"] == "control" and rows[1]["sph"]["shader_type"] == "vertex"


@pytest.mark.parametrize("data", [b"", b"\x00\x00\x00\x00", struct.pack("<2I", 8, 4), struct.pack("<2I", 8, 99),
                                  struct.pack("<I", 0xFFFFFFFC), struct.pack("<I", 6) + bytes(8)])
def test_bad_nvn_program_files(data: bytes) -> None:
    with pytest.raises(ShaderFormatError):
        NvnProgramFile.from_bytes(data)


# A compute program: NVN header with magic 0x12345679 and no SPH; its code lies at the control
# section's program offset (u32 at 0x708: after u64 at 0x6F0, program size, constant-buffer size,
# constant-buffer offset and shader size), the bytes between header and code stay as they are.
COMPUTE_TEXT = """\
/*0008*/ [B------:R-:W-:Y:S01] MOV32I R0, 0x3f800000;
/*0010*/ [B------:R-:W-:Y:S01] MOV R1, RZ;
/*0018*/ [B------:R-:W-:Y:S05] EXIT;
/*0028*/ [B------:R-:W-:Y:S00] BRA 0x28;
/*0030*/ [B------:R-:W-:Y:S00] NOP 0x0;
/*0038*/ [B------:R-:W-:Y:S00] NOP 0x0;
"""


def compute_stage(program_offset: int = 0x80) -> tuple[bytes, bytes, bytes]:
    """(control, data, code) of a compute stage whose code starts at ``program_offset``."""
    from shaderkit.isa.maxwell import assemble

    code = assemble(COMPUTE_TEXT)
    prefix = bytes(range(0x30, program_offset))  # recognisable filler between header and code
    data = struct.pack("<I", 0x12345679) + bytes(0x2C) + prefix + code
    control = bytearray(struct.pack("<5I", 0x98761234, 1, 0x10, 0x120, 0xB) + bytes(0x800 - 0x14))
    struct.pack_into("<QIIIII", control, 0x6F0, 0x800, len(code), 0, len(data), len(data), program_offset)
    return bytes(control), data, code


def test_compute_code_layout() -> None:
    control, data, code = compute_stage(0x80)
    assert ControlSectionHeader.from_bytes(control).program_offset == 0x80
    nvn = NvnCode.from_bytes(data, program_offset=0x80)
    assert nvn.is_compute and nvn.sph is None
    assert nvn.code == code and nvn.prefix == bytes(range(0x30, 0x80))
    assert nvn.to_bytes() == data
    # without a control section the code is taken at 0x100 (the offset seen in files)
    control, data, code = compute_stage(0x100)
    assert NvnCode.from_bytes(data).code == code
    # offsets inside the header, unaligned or past the end are format errors
    for bad in (0x20, 0x84, len(data) + 8):
        with pytest.raises(ShaderFormatError, match="compute program offset"):
            NvnCode.from_bytes(data, program_offset=bad)
    with pytest.raises(ShaderFormatError, match="0x12345679"):
        NvnCode.from_bytes(struct.pack("<I", 0x1234567A) + bytes(0x100))


def compute_bnsh() -> bytes:
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import MemoryPool, NvnShaderCode, ShaderProgram, ShaderVariation

    control, data, _ = compute_stage(0x80)
    program = ShaderProgram(flags=3, code_type=0, stages=[None] * 5 + [NvnShaderCode(control, data)])
    return Bnsh(name="cs", memory_pool=MemoryPool(), variations=[ShaderVariation(binary_program=program)]).to_bytes()


def test_compute_stage_is_listed_and_reassembled() -> None:
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.text import assemble_into, maxwell_listing

    data = compute_bnsh()
    model = Bnsh.from_bytes(data)
    assert model.to_bytes() == data
    text = maxwell_listing(model)
    assert text is not None
    assert "// ==== variation 0 binary compute\n// compute program (no SPH): code at 0x80 of the stage data" in text
    assert "MOV32I R0, 0x3f800000;" in text and "EXIT;" in text and "no Maxwell code" not in text
    # the listing assembles back to the same file; an edited constant lands after the kept prefix
    assert assemble_into(Bnsh.from_bytes(data), text, 0, "compute") == data
    edited = assemble_into(Bnsh.from_bytes(data), text.replace("0x3f800000", "0x40000000"), 0, "compute")
    stage = Bnsh.from_bytes(edited).variations[0].binary_program.stages[5]
    assert stage.data[:0x80] == compute_stage(0x80)[1][:0x80]
    assert NvnCode.from_bytes(stage.data, program_offset=0x80).code != compute_stage(0x80)[2]
    assert "MOV32I R0, 0x40000000;" in (maxwell_listing(Bnsh.from_bytes(edited)) or "")


def test_nvn_program_file_with_a_compute_part() -> None:
    _, data, _ = compute_stage(0x100)
    model = NvnProgramFile.from_bytes(NvnProgramFile([0], [data]).to_bytes())
    (row,) = model.summary()["parts"]
    assert row["kind"] == "code" and row["compute"] is True and "sph" not in row

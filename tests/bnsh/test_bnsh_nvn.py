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

"""GX2 shader blobs keep their placement in the one layout layer (io/layout.py): items where they
lay, bytes no item covers as raw spans, and the GX2 flow rule when something changes.

Oracles: pointer words read off rio_04_test_shader.gsh by hand (vertex header block data at 0x40,
attrib_vars pointer word at struct + 0x108 = 0xD0600134), and a blob patched by hand below.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import corpus_params
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.formats.gx2.shader import PLAIN, GX2PixelShader
from shaderkit.formats.gx2.types import GX2SamplerVar
from shaderkit.io.layout import Layout, RawSpan
from shaderkit.io.reader import Reader


@pytest.mark.parametrize("path", corpus_params("wiiu", "rio_04_test_shader.gsh"))
def test_gsh_items_recorded_where_they_lay(path: Path) -> None:
    data = path.read_bytes()
    layout = Gsh.from_bytes(data).shaders[0].layout
    assert isinstance(layout, Layout) and layout.start == 0x40
    (pointer,) = struct.unpack_from(">I", data, 0x40 + 0x108)
    assert pointer == 0xD0600134 and layout.offset_of("attrib_vars") == 0x134
    # two attribute records of 16 bytes, then "v_inPos\0" and "v_inTexCoord\0", then 3 padding bytes
    assert [(r["item"], r["offset"], r["size"]) for r in layout.spans()] == [
        ("attrib_vars", 0x134, 32), ("attrib_vars.0", 0x154, 8), ("attrib_vars.1", 0x15C, 13), ("raw", 0x169, 3),
    ]  # fmt: skip


def _blob_with_stray_bytes() -> bytes:
    """A pixel shader blob (plain pointers) with 4 unknown bytes between its sampler array and the
    sampler's name: struct 0xE8, sampler record at 0xE8, 0xEE * 4 at 0xF4, "tex\\0" at 0xF8."""
    shader = GX2PixelShader(sampler_vars=[GX2SamplerVar("tex", 1, 0)])
    blob = bytearray(shader.build(PLAIN, ">").data)
    assert len(blob) == 0xE8 + 12 + 4 and blob[0xF4:] == b"tex\0"
    blob[0xF4:0xF4] = b"\xee" * 4
    struct.pack_into(">I", blob, 0xE8, 0xF8)  # the record's name pointer
    return bytes(blob)


def test_stray_bytes_are_a_raw_span_and_come_back() -> None:
    blob = _blob_with_stray_bytes()
    shader = GX2PixelShader.parse(Reader(blob, endian=">"), 0, len(blob), PLAIN)
    assert shader.sampler_vars == [GX2SamplerVar("tex", 1, 0)]
    assert shader.layout is not None and shader.layout.raw == [RawSpan(0xF4, b"\xee" * 4)]
    assert shader.build(PLAIN, ">").data == blob
    # a longer name: the stray bytes stay in front of it, the name pointer follows (flow rule)
    shader.sampler_vars[0].name = "texture"
    out = shader.build(PLAIN, ">").data
    assert out == blob[:0xF8] + b"texture\0"
    assert struct.unpack_from(">I", out, 0xE8)[0] == 0xF8

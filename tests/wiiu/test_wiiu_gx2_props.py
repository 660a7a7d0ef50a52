"""Property tests: any GX2 shader model survives build -> parse in both pointer styles and endians."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.formats.gfd.gsh import GfdBlock, Gsh
from shaderkit.formats.gx2.shader import PLAIN, GX2GeometryShader, GX2PixelShader, GX2Shader, GX2VertexShader
from shaderkit.formats.gx2.types import (
    GX2AttribVar,
    GX2LoopVar,
    GX2SamplerVar,
    GX2UniformBlock,
    GX2UniformInitialValue,
    GX2UniformVar,
)
from shaderkit.io.reader import Reader

u32 = st.integers(0, 0xFFFFFFFF)
names = st.text("abcdefghijklmnopqrstuvwxyz_[]0123456789", min_size=1, max_size=14)
blocks = st.builds(GX2UniformBlock, names, u32, u32)
uvars = st.builds(GX2UniformVar, names, st.integers(0, 38), u32, u32, st.integers(-1, 15))
inits = st.builds(GX2UniformInitialValue, st.tuples(u32, u32, u32, u32), u32)
loops = st.builds(GX2LoopVar, u32, u32)
samplers = st.builds(GX2SamplerVar, names, st.sampled_from([0, 1, 3, 4]), st.integers(0, 15))
attribs = st.builds(GX2AttribVar, names, st.integers(0, 38), u32, st.integers(0, 15))
code = st.binary(max_size=0x300)


@st.composite
def shaders(draw: st.DrawFn) -> GX2Shader:
    cls = draw(st.sampled_from([GX2VertexShader, GX2PixelShader, GX2GeometryShader]))
    shader = cls(program=draw(code), mode=draw(st.integers(0, 3)))
    shader.regs = cls.REGS.from_words(draw(st.lists(u32, min_size=cls.REGS.word_count(),
                                                   max_size=cls.REGS.word_count())))
    shader.uniform_blocks = draw(st.lists(blocks, max_size=4))
    shader.uniform_vars = draw(st.lists(uvars, max_size=8))
    shader.initial_values = draw(st.lists(inits, max_size=3))
    shader.loop_vars = draw(st.lists(loops, max_size=3))
    shader.sampler_vars = draw(st.lists(samplers, max_size=4))
    if cls is GX2VertexShader:
        shader.attrib_vars = draw(st.lists(attribs, max_size=4))
    if cls is not GX2PixelShader:
        shader.ring_item_size = draw(u32)
        shader.stream_out_stride = draw(st.lists(u32, min_size=4, max_size=4))
    if cls is GX2GeometryShader:
        shader.vertex_program = draw(code)
    return shader


@settings(max_examples=150, deadline=None)
@given(shader=shaders(), endian=st.sampled_from("<>"), base=st.integers(0, 0x300))
def test_plain_style_round_trip(shader: GX2Shader, endian: str, base: int) -> None:
    blob = shader.build(PLAIN, endian, base).data
    data = bytes(base) + blob
    parsed = type(shader).parse(Reader(data, endian=endian), base, len(blob), PLAIN)
    assert parsed == shader
    assert parsed.build(PLAIN, endian, base).data == blob
    # microcode lands on a 0x100-aligned absolute offset: read its size/pointer words by hand
    tail_at = base + type(shader).REGS.word_count() * 4
    pairs = [(0, shader.program)] + ([(8, shader.vertex_program)] if isinstance(shader, GX2GeometryShader) else [])
    for at, code_bytes in pairs:
        size, ptr = struct.unpack_from(endian + "2I", data, tail_at + at)
        assert size == len(code_bytes)
        if code_bytes:
            assert (base + ptr) % 0x100 == 0 and data[base + ptr : base + ptr + size] == code_bytes


HEADER_BLOCK = {GX2VertexShader: (3, [5]), GX2PixelShader: (6, [7]), GX2GeometryShader: (8, [9, 10])}


@settings(max_examples=150, deadline=None)
@given(shader=shaders())
def test_gsh_round_trip(shader: GX2Shader) -> None:
    header, programs = HEADER_BLOCK[type(shader)]
    gsh = Gsh(blocks=[GfdBlock(header, shader=shader), *(GfdBlock(t, header_index=0) for t in programs),
                      GfdBlock(1)])
    data = gsh.to_bytes()
    parsed = Gsh.from_bytes(data)
    assert parsed.shaders == [shader]
    assert parsed.blocks[0].patch_list is None and parsed.blocks[0].derived_text
    assert parsed.to_bytes() == data


@pytest.mark.parametrize(
    ("shader", "field"),
    [
        (GX2PixelShader(attrib_vars=[GX2AttribVar("a", 0, 0, 0)]), "attrib_vars"),
        (GX2PixelShader(ring_item_size=4), "ring_item_size"),
        (GX2VertexShader(vertex_program=b"\0" * 4), "vertex_program"),
        (GX2GeometryShader(attrib_vars=[GX2AttribVar("a", 0, 0, 0)]), "attrib_vars"),
    ],
)
def test_stage_without_such_field(shader: GX2Shader, field: str) -> None:
    with pytest.raises(ValueError, match=f"{shader.STAGE} shader has no {field}"):
        shader.build(PLAIN, ">")

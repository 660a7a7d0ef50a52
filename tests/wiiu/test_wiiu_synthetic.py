"""Archives built by shaderkit's own writer: round trips and variation indices worked out by hand."""

from __future__ import annotations

import itertools
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.agl.sharc import ShaderMacro, ShaderSource, Sharc, SourceProgram
from shaderkit.formats.agl.sharcfb import (
    ShaderBinary,
    ShaderProgram,
    ShaderSymbol,
    Sharcfb,
    VariationMacro,
)
from shaderkit.formats.agl.variation import VariationError, variation_index
from shaderkit.formats.gx2.shader import GX2GeometryShader, GX2PixelShader, GX2VertexShader
from shaderkit.formats.gx2.types import (
    GX2AttribVar,
    GX2LoopVar,
    GX2SamplerVar,
    GX2UniformBlock,
    GX2UniformInitialValue,
    GX2UniformVar,
)


def _code(tag: int, size: int = 0x100) -> bytes:
    """Recognisable microcode: the binary's tag + 1 in every byte (never zero, unlike padding)."""
    return bytes([(tag + 1) & 0xFF]) * size


def _shader(stage: int, tag: int) -> GX2VertexShader | GX2PixelShader | GX2GeometryShader:
    if stage == 0:
        vs = GX2VertexShader(program=_code(tag), mode=1)
        vs.regs.sq_pgm_resources_vs = 0x314
        vs.uniform_blocks = [GX2UniformBlock("Mat", 1, 0x40)]
        vs.uniform_vars = [GX2UniformVar("cColor", 11, 1, 0, 0), GX2UniformVar("cMtx", 29, 1, 4, 0)]
        vs.initial_values = [GX2UniformInitialValue.from_floats((1.0, 0.5, -2.0, 0.0), 0)]
        vs.loop_vars = [GX2LoopVar(0, 0xFFFFFFFF)]
        vs.attrib_vars = [GX2AttribVar("aPosition", 10, 0, 0), GX2AttribVar("aTexCoord", 9, 0, 1)]
        return vs
    if stage == 1:
        ps = GX2PixelShader(program=_code(tag, 0x80), mode=1)
        ps.regs.cb_shader_mask = 0xFF
        ps.sampler_vars = [GX2SamplerVar("tex0", 1, 0)]
        ps.uniform_vars = [GX2UniformVar("cAlpha", 4, 1, 0, -1)]
        return ps
    gs = GX2GeometryShader(program=_code(tag, 0x40), vertex_program=_code(tag ^ 0x80, 0x120), mode=2)
    gs.regs.vgt_gs_mode = 3
    gs.ring_item_size = 4
    gs.uniform_vars = [GX2UniformVar("cGeo", 11, 1, 0, -1)]
    return gs


def _symbol(name: str, variations: int, default: bytes = b"") -> ShaderSymbol:
    return ShaderSymbol(name, f"_{name}", 0, default, bytes([1, 0] * variations)[:variations])


def build_archive(endian: str) -> Sharcfb:
    """Program 'multi' (VS+PS, macros A/B/C with 3*2*2 = 12 variations) at base 0, then 'geo'
    (VS+PS+GS, macro M with 2 values) at base 24."""
    binaries = [ShaderBinary(i % 2, _shader(i % 2, i)) for i in range(24)]
    binaries += [ShaderBinary(i % 3, _shader(i % 3, 0x40 + i)) for i in range(6)]
    multi = ShaderProgram(
        "multi", 3, 0,
        macros=[VariationMacro("A", ["0", "1", "2"], "MACRO_A"), VariationMacro("B", ["x", "y"], "MACRO_B"),
                VariationMacro("C", ["p", "q"], "MACRO_C")],
        defaults=[VariationMacro("A", ["1"], "MACRO_A"), VariationMacro("B", ["x"], "MACRO_B"),
                  VariationMacro("C", ["q"], "MACRO_C")],
        uniforms=[_symbol("cColor", 12, struct.pack(">4f", 1, 2, 3, 4))],
        uniform_blocks=[_symbol("Mat", 12, bytes(range(0x40)))],
        samplers=[_symbol("tex0", 12)],
        attributes=[_symbol("aPosition", 12), _symbol("aTexCoord", 12)],
    )
    geo = ShaderProgram(
        "geo", 7, 24,
        macros=[VariationMacro("M", ["a", "b"], "MACRO_M")],
        defaults=[VariationMacro("M", ["b"], "MACRO_M")],
        uniforms=[_symbol("cGeo", 2, struct.pack(">f", 0.25))],
    )
    return Sharcfb(name="synthetic", endian=endian, binaries=binaries, programs=[multi, geo])  # type: ignore[arg-type]


@pytest.mark.parametrize("endian", ["<", ">"])
def test_synthetic_round_trip(endian: str) -> None:
    data = build_archive(endian).to_bytes()
    assert data[:4] == (b"BAHS" if endian == "<" else b"SHAB")
    assert struct.unpack_from(endian + "I", data, 8)[0] == len(data)
    parsed = Sharcfb.from_bytes(data)
    assert parsed == build_archive(endian)
    assert parsed.to_bytes() == data
    assert parsed.problems() == []
    # every microcode blob sits at a 0x100-aligned file offset behind zero padding
    for i, binary in enumerate(parsed.binaries):
        for code in (binary.shader.program, binary.shader.vertex_program):
            if code:
                at = data.find(code)
                assert at % 0x100 == 0, (i, hex(at))


def test_synthetic_endians_hold_equal_models() -> None:
    little, big = Sharcfb.from_bytes(build_archive("<").to_bytes()), Sharcfb.from_bytes(build_archive(">").to_bytes())
    assert little.programs[0].uniforms[0].default_value == struct.pack(">4f", 1, 2, 3, 4)
    big.endian = "<"
    assert big == little
    little.endian = ">"
    assert little.to_bytes() == build_archive(">").to_bytes()


def test_synthetic_word_order_on_disk() -> None:
    # a float default 0.25 is 3e800000 big-endian and 0000803e little-endian on disk
    assert b"\x3e\x80\x00\x00" in build_archive(">").to_bytes()
    little = build_archive("<").to_bytes()
    assert b"\x00\x00\x80\x3e" in little
    # the uniform-block default (bytes 0..63) is never swapped
    assert bytes(range(0x40)) in little


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize(
    ("program", "settings", "index", "binaries"),
    [
        # A is most significant: index = a*4 + b*2 + c (strides 4, 2, 1); stride 2 per variation
        ("multi", {}, 1 * 4 + 0 * 2 + 1, (10, 11)),
        ("multi", {"A": "2", "B": "y", "C": "p"}, 10, (20, 21)),
        ("multi", {"A": "0", "B": "x", "C": "p"}, 0, (0, 1)),
        ("multi", {"B": "y"}, 1 * 4 + 1 * 2 + 1, (14, 15)),
        ("multi", {"A": "2", "C": "q"}, 2 * 4 + 0 + 1, (18, 19)),
        # geometry programs take three binaries per variation, from base 24
        ("geo", {}, 1, (27, 28, 29)),
        ("geo", {"M": "a"}, 0, (24, 25, 26)),
    ],
)
def test_variation_lookup(endian: str, program: str, settings: dict[str, str], index: int,
                          binaries: tuple[int, ...]) -> None:
    archive = Sharcfb.from_bytes(build_archive(endian).to_bytes())
    result = archive.programs[program].variation(settings)
    assert result.index == index
    assert tuple(result.binary_indices.values()) == binaries
    tags = [b.shader.program[0] - 1 for b in result.binaries.values()]
    assert tags == [i if i < 24 else 0x40 + i - 24 for i in binaries]
    if program == "geo":
        assert isinstance(result.binaries["geometry"].shader, GX2GeometryShader)


def test_variation_errors() -> None:
    archive = Sharcfb.from_bytes(build_archive(">").to_bytes())
    with pytest.raises(VariationError, match="unknown macro 'Z'.*A, B, C"):
        archive.programs["multi"].variation({"Z": "1"})
    with pytest.raises(VariationError, match="no value '7'.*0, 1, 2"):
        archive.programs["multi"].variation({"A": "7"})
    with pytest.raises(KeyError, match="multi, geo"):
        archive.programs["nope"]


def test_summary_lists_programs() -> None:
    summary = Sharcfb.from_bytes(build_archive("<").to_bytes()).summary()
    multi = summary["programs"][0]
    assert multi["name"] == "multi" and multi["variation_count"] == 12
    assert multi["macros"][0] == {"name": "A", "id": "MACRO_A", "values": ["0", "1", "2"], "default": "1"}
    assert summary["programs"][1]["variation_count"] == 2 and len(summary["binaries"]) == 30


def test_gs_struct_fields_round_trip() -> None:
    archive = Sharcfb.from_bytes(build_archive(">").to_bytes())
    gs = archive.binaries[26].shader
    assert isinstance(gs, GX2GeometryShader)
    assert gs.regs.vgt_gs_mode == 3 and gs.ring_item_size == 4 and gs.mode == 2
    assert gs.program == _code(0x40 + 2, 0x40) and gs.vertex_program == _code((0x40 + 2) ^ 0x80, 0x120)
    vs = archive.binaries[0].shader
    assert vs.initial_values[0].value == (1.0, 0.5, -2.0, 0.0)
    assert vs.uniform_vars[1].type == 29 and archive.binaries[1].shader.uniform_vars[0].block == -1


def test_macro_values_with_extra_nuls() -> None:
    # agl skips NULs in front of each value and of the ID; such bytes are read and survive a round trip
    plain = build_archive(">").to_bytes()
    padded = b"A\0" + b"\x00" + b"0\x00" + b"\x00" + b"1\x002\x00" + b"\x00\x00" + b"MACRO_A\0"
    archive = Sharcfb.from_bytes(plain)
    macro = archive.programs[0].macros[0]
    macro.raw_values, macro.raw_for = padded[2:-8], ["0", "1", "2"]
    out = archive.to_bytes()
    assert padded in out and len(out) == len(plain) + 4
    again = Sharcfb.from_bytes(out)
    assert again.programs[0].macros[0].values == ["0", "1", "2"] and again.programs[0].macros[0].id == "MACRO_A"
    assert again.programs[0].variation({"A": "2"}).index == 2 * 4 + 0 * 2 + 1
    assert again.to_bytes() == out
    # once the values change, the writer lays them out plainly again
    again.programs[0].macros[0].values = ["0", "1", "3"]
    assert b"A\x000\x001\x003\x00MACRO_A\x00" in again.to_bytes()


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_variation_index_matches_enumeration(data: st.DataObject) -> None:
    # oracle: itertools.product enumerates variations with the last macro fastest, i.e. the first
    # macro most significant; the variation index is the position in that enumeration
    counts = data.draw(st.lists(st.integers(1, 4), max_size=4))
    macros = [(f"M{i}", [f"v{j}" for j in range(n)]) for i, n in enumerate(counts)]
    defaults = {name: data.draw(st.sampled_from(values)) for name, values in macros}
    chosen = {name: data.draw(st.sampled_from(values)) for name, values in macros if data.draw(st.booleans())}
    full = tuple(chosen.get(name, defaults[name]) for name, _ in macros)
    expected = list(itertools.product(*(values for _, values in macros))).index(full)
    assert variation_index(macros, defaults, chosen) == expected


def test_problems_name_bad_programs() -> None:
    archive = build_archive(">")
    archive.programs[0].kind = 1  # no pixel shader bit
    archive.programs[1].uniforms[0].used = b"\x01"  # 1 flag for 2 variations
    archive.binaries[0], archive.binaries[1] = archive.binaries[1], archive.binaries[0]
    found = Sharcfb.from_bytes(archive.to_bytes()).problems()
    assert "program 'multi': kind 0x1 lacks a vertex or pixel shader" in found
    assert "program 'geo' uniforms 'cGeo': 1 used flags for 2 variations" in found
    assert "program 'multi' variation 0: binary 0 is a pixel shader, expected vertex" in found


def build_sharc(endian: str) -> Sharc:
    program = SourceProgram(
        "geo", [0, 1, 2],
        macros=[[ShaderMacro("USE_FOG", "1")], [ShaderMacro("ALPHA", "0.5"), ShaderMacro("X", "y")], []],
        variation_macros=[VariationMacro("M", ["a", "b"], "MACRO_M")],
        defaults=[VariationMacro("M", ["b"], "MACRO_M")],
        uniforms=[_symbol("cGeo", 2, struct.pack(">f", 0.25))],
        uniform_blocks=[_symbol("Mat", 2, bytes(range(8)))],
    )
    sources = [ShaderSource(name, f"// {name}\nvoid main() {{}}\n".encode() + b"\0")
               for name in ("a.vsh", "a.fsh", "a.gsh")]
    return Sharc(name="synthetic", endian=endian, programs=[program], sources=sources)


@pytest.mark.parametrize("endian", ["<", ">"])
def test_synthetic_sharc(endian: str) -> None:
    data = build_sharc(endian).to_bytes()
    assert data[:4] == (b"AAHS" if endian == "<" else b"SHAA")
    assert struct.unpack_from(endian + "4I", data, 4) == (11, len(data), 1 if endian == "<" else 0, 10)
    parsed = Sharc.from_bytes(data)
    assert parsed == build_sharc(endian) and parsed.to_bytes() == data
    program = parsed.programs[0]
    assert parsed.source_of(program, "geometry") == parsed.sources[2]
    assert parsed.sources[0].text == "// a.vsh\nvoid main() {}\n"
    assert program.variation_count == 2 and [m.value for m in program.macros[1]] == ["0.5", "y"]
    summary = parsed.summary()["programs"][0]
    assert summary["geometry_source"] == "a.gsh" and summary["pixel_defines"] == 2
    # the other endian holds the same model
    other = Sharc.from_bytes(build_sharc("<" if endian == ">" else ">").to_bytes())
    other.endian = endian
    assert other == parsed


def test_sharc_source_index_beyond_sources() -> None:
    sharc = build_sharc(">")
    sharc.programs[0].source_index = [0, 1, 3]
    with pytest.raises(ShaderFormatError, match="geometry source index 3 is beyond the 3 sources"):
        Sharc.from_bytes(sharc.to_bytes())


def test_archive_level_lookup_for_added_program() -> None:
    archive = build_archive("<")
    archive.programs.append(ShaderProgram("late", 3, 0, macros=[VariationMacro("A", ["0", "1"], "A")]))
    result = archive.variation("late", {"A": "1"})
    assert result.index == 1 and result.binary_indices == {"vertex": 2, "pixel": 3}
    assert result.binaries["vertex"] is archive.binaries[2]

"""fxc's listing of fx_5_0 effects (Effects11), against listings written by hand.

The effect is packed word by word from the public ``EffectBinaryFormat.h`` structures
(``SBinaryHeader5``, buffers, numeric/object/interface variables, ``SBinaryShaderData5``,
groups, techniques, passes, assignments, annotations); the expected text is written out below
in the form fxc's fx_5_0 listings take (``// FX Version: fx_5_0`` with no child-effect line,
``fxgroup`` blocks of ``technique11``, ``/* Stream N out decl: "..." */`` and
``/* Interface parameter N bound to: ... */`` after an ``asm`` block, scalar defaults without
braces, ``packoffset``, ``bool(TRUE /* true */)`` for bool-typed constants).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from dxbc_build import Blob, container

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10 import Effect

# SBinaryNumericType bits: layout (1 scalar, 2 vector, 3 matrix) | scalar type << 3 (1 float,
# 3 uint, 4 bool, 2 int) | rows << 8 | columns << 11 | column major << 14
FLOAT4 = 2 | 1 << 3 | 1 << 8 | 4 << 11
FLOAT4X4 = 3 | 1 << 3 | 4 << 8 | 4 << 11 | 1 << 14
UINT = 1 | 3 << 3 | 1 << 8 | 1 << 11
BOOL = 1 | 4 << 3 | 1 << 8 | 1 << 11
INT = 1 | 2 << 3 | 1 << 8 | 1 << 11
NO_REGISTER = 0xFFFFFFFF
# state ids (the Effects11 state table) and assignment kinds
FILL_MODE, DEPTH_BIAS_CLAMP, MULTISAMPLE_ENABLE = 12, 16, 20
RASTERIZER_STATE, VERTEX_SHADER, PIXEL_SHADER, GEOMETRY_SHADER, STENCIL_REF, BLEND_FACTOR = 0, 6, 7, 8, 9, 10
COMPUTE_SHADER = 58
CONSTANT, VARIABLE, INLINE_SHADER5 = 1, 2, 8


class Fx5:
    """An unstructured block with named strings, types, values and code blocks."""

    def __init__(self) -> None:
        self.blob = Blob()
        self.blob.add(bytes(4))  # fxc's leading zero word: offset 0 is the empty string
        self.strings: dict[str, int] = {"": 0}

    def s(self, text: str) -> int:
        if text not in self.strings:
            self.strings[text] = self.blob.add(text.encode() + b"\0")
        return self.strings[text]

    def type(self, name: str, var_type: int, elements: int, total: int, packed: int, *tail: int) -> int:
        return self.blob.add(struct.pack(f"<{6 + len(tail)}I", self.s(name), var_type, elements, total,
                                         total // max(elements, 1), packed, *tail))

    def words(self, *words: int) -> int:
        return self.blob.add(struct.pack(f"<{len(words)}I", *words))

    def code(self, data: bytes) -> int:
        return self.blob.add(struct.pack("<I", len(data)) + data)


def _f(value: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", value))[0])


def build_effect(shader: bytes = b"") -> bytes:
    """The hand-packed fx_5_0 payload; ``shader`` is every embedded shader's code block."""
    b = Fx5()
    float4 = b.type("float4", 1, 0, 16, 16, FLOAT4)
    float4x4 = b.type("float4x4", 1, 0, 64, 64, FLOAT4X4)
    uint = b.type("uint", 1, 0, 4, 4, UINT)
    boolean = b.type("bool", 1, 0, 4, 4, BOOL)
    integer = b.type("int", 1, 0, 4, 4, INT)
    string = b.type("string", 2, 0, 0, 0, 1)
    iface = b.type("iBaseLight", 4, 0, 0, 0)
    ifaces = b.type("iBaseLight", 4, 2, 0, 0)
    # a class with one float4 member implementing iBaseLight (fx_5_0 struct: + base class, interfaces)
    member = (b.s("m_color"), 0, 0, float4)
    lights = b.type("cClass2", 3, 3, 96, 48, 1, *member, 0, 1, iface)
    light_struct = b.type("light_struct", 3, 0, 16, 16, 1, *member, 0, 0)
    texture = b.type("Texture2D", 2, 0, 0, 0, 12)
    rasterizer = b.type("RasterizerState", 2, 0, 0, 0, 4)
    gs5 = b.type("GeometryShader", 2, 0, 0, 0, 27)
    ps5 = b.type("PixelShader", 2, 0, 0, 0, 25)
    vs5 = b.type("VertexShader", 2, 0, 0, 0, 26)
    gs_so = b.type("GeometryShader", 2, 0, 0, 0, 8)  # fx_4-style geometry shader with stream output
    code = b.code(shader)
    color = b.words(_f(1.0), _f(0.5), _f(0.25), _f(1.0))
    zero = b.words(0)
    true = b.words(1)
    light = b.words(0x3F800000, 0, 0, 0x3F800000)
    order = b.words(27)
    bindings = b.words(b.s("g_ambient"), 0xFFFFFFFF, b.s("gAbstractInterface8"), 1)
    pass_binding = b.words(b.s("g_ambient"), 0xFFFFFFFF)
    gs_data = (code, b.s("0:POSITION.xy; 1:POSITION.zw"), b.s("COLOR.xyzw"), 0, 0, 4, 1, 0, 0)
    ps_data = (code, 0, 0, 0, 0, 0, 0, 2, bindings)
    vs_data = (0, 0, 0, 0, 0, 0, 0, 0, 0)
    inline_ps = b.words(code, 0, 0, 0, 0, 0, 0, 1, pass_binding)
    inline_cs = b.words(code, 0, 0, 0, 0, 0, 0, 0, 0)
    fill = b.words(1, 2, 2)
    multisample = b.words(1, 4, 1)
    bias_clamp = b.words(1, 1, _f(5.5))
    null = b.words(1, 2, 0)
    stencil = b.words(1, 2, 5)
    blend_factor = b.words(4, 1, 0, 1, 0, 1, 0, 1, 0)

    def ann(*items: tuple[str, int, int]) -> list[int]:
        out = [len(items)]
        for name, type_at, value in items:
            out += [b.s(name), type_at, value]
        return out

    words = [
        # cbuffer cbMain : register(b1): 5 variables
        b.s("cbMain"), 240, 0, 5, 1, *ann(),
        b.s("g_color"), float4, 0, 0, color, 0, *ann(),
        b.s("g_fillMode"), uint, 0, 16, zero, 0, *ann(),
        b.s("g_mWorld"), float4x4, 0, 64, 0, 4, *ann(),  # flag 4: explicit bind point (packoffset)
        b.s("g_bEnableLighting"), boolean, 0, 128, true, 0, *ann(),
        b.s("gAbstractInterface8"), lights, 0, 144, 0, 0, *ann(),
        # tbuffer tbLights : register(t3) with a struct default
        b.s("tbLights"), 16, 1, 1, 3, *ann(),
        b.s("g_light"), light_struct, 0, 0, light, 0, *ann(),
        # objects
        b.s("g_tex"), texture, 0, NO_REGISTER, *ann(),
        b.s("rsWire"), rasterizer, 0, NO_REGISTER,
        3, FILL_MODE, 0, CONSTANT, fill, MULTISAMPLE_ENABLE, 0, CONSTANT, multisample,
        DEPTH_BIAS_CLAMP, 0, CONSTANT, bias_clamp, *ann(("Order", integer, order)),
        b.s("gsOut"), gs5, 0, NO_REGISTER, *gs_data, *ann(),
        b.s("psLit"), ps5, 0, NO_REGISTER, *ps_data, *ann(),
        b.s("vsNone"), vs5, 0, NO_REGISTER, *vs_data, *ann(),
        b.s("gsLegacy"), gs_so, 0, NO_REGISTER, code, b.s("POSITION.xyzw"), *ann(),
        # interfaces
        b.s("g_abstractLight"), iface, 0, 0, *ann(),
        b.s("g_abstractLights"), ifaces, 0, 0, *ann(),
        # the unnamed group: technique Render, pass P0
        0, 1, *ann(),
        b.s("Render"), 1, *ann(("Mode", string, b.s("lit"))),
        b.s("P0"), 7, *ann(("Index", integer, order)),
        VERTEX_SHADER, 0, VARIABLE, b.s("vsNone"),
        GEOMETRY_SHADER, 0, CONSTANT, null,
        RASTERIZER_STATE, 0, VARIABLE, b.s("rsWire"),
        STENCIL_REF, 0, CONSTANT, stencil,
        BLEND_FACTOR, 0, CONSTANT, blend_factor,
        PIXEL_SHADER, 0, INLINE_SHADER5, inline_ps,
        GEOMETRY_SHADER, 0, VARIABLE, b.s("gsOut"),
        # group Extra: technique Compute, an unnamed pass
        b.s("Extra"), 1, *ann(),
        b.s("Compute"), 1, *ann(),
        0, 1, *ann(),
        COMPUTE_SHADER, 0, INLINE_SHADER5, inline_cs,
    ]
    counts = [2, 6, 6, 0, 0, 0, 2, len(b.blob.data), 0, 1, 0, 0, 1, 0, 0, 0, 5, 2, 2, 0, 2, 3, 3]
    return struct.pack("<24I", 0xFEFF2001, *counts) + b.blob.data + struct.pack(f"<{len(words)}I", *words)


def asm_block(head: str, indent: int, inner: list[str], close: str) -> list[str]:
    """``asm {`` + the shader listing + fxc's closing line of spaces + ``close``."""
    pad = " " * (indent + 4)
    return [head + "asm {", *(pad + line for line in inner), " " * (2 * indent + 4), close]


def expected(inner: list[str]) -> list[str]:
    """The listing of ``build_effect``, line for line, in fxc's fx_5_0 form."""
    return [
        "//",
        "// FX Version: fx_5_0",
        "//",
        "// 2 local buffer(s)",
        "//",
        "cbuffer cbMain : register(b1)",
        "{",
        "    float4  g_color = { 1, 0.5, 0.25, 1 };// Offset:    0, size:   16",
        "    uint    g_fillMode = 0;             // Offset:   16, size:    4",
        "    float4x4 g_mWorld : packoffset(c4.x);// Offset:   64, size:   64",
        "    bool    g_bEnableLighting = true;   // Offset:  128, size:    4",
        "    cClass2 gAbstractInterface8[3];     // Offset:  144, size:   96",
        "}",
        "",
        "tbuffer tbLights : register(t3)",
        "{",
        "    light_struct g_light = { 0x3f800000, 0x00000000, 0x00000000, 0x3f800000 };// Offset:    0, size:   16",
        "}",
        "",
        "//",
        "// 6 local object(s)",
        "//",
        "Texture2D g_tex;",
        "RasterizerState rsWire",
        "<",
        "    int Order = 27;",
        ">",
        "{",
        "    FillMode = uint(WIREFRAME /* 2 */);",
        "    MultisampleEnable = bool(TRUE /* true */);",
        "    DepthBiasClamp = float(5.5);",
        "};",
        "GeometryShader gsOut = ",
        *asm_block("    ", 4, inner, "    }"),
        '/* Stream 0 out decl: "0:POSITION.xy; 1:POSITION.zw" */',
        '/* Stream 1 out decl: "COLOR.xyzw" */',
        "/* Stream 1 to rasterizer */;",
        "PixelShader psLit = ",
        *asm_block("    ", 4, inner, "    }"),
        "/* Interface parameter 0 bound to: g_ambient */",
        "/* Interface parameter 1 bound to: gAbstractInterface8[1] */;",
        "VertexShader vsNone = ",
        "    NULL;",
        "GeometryShader gsLegacy = ",
        *asm_block("    ", 4, inner, "    }"),
        '/* Stream out decl: "POSITION.xyzw" */;',
        "",
        "//",
        "// 2 local interface(s)",
        "//",
        "iBaseLight g_abstractLight;",
        "iBaseLight g_abstractLights[2];",
        "",
        "//",
        "// 2 groups(s)",
        "//",
        "fxgroup",
        "{",
        "    //",
        "    // 1 technique(s)",
        "    //",
        "    technique11 Render",
        "    <",
        '        string Mode = "lit";',
        "    >",
        "    {",
        "        pass P0",
        "        <",
        "            int Index = 27;",
        "        >",
        "        {",
        "            VertexShader = vsNone;",
        "            GeometryShader = NULL;",
        "            RasterizerState = rsWire;",
        "            DS_StencilRef = uint(5);",
        "            AB_BlendFactor = float4(0, 0, 0, 0);",
        *asm_block("            PixelShader = ", 12, inner, "            }"),
        "        /* Interface parameter 0 bound to: g_ambient */;",
        "            GeometryShader = gsOut;",
        "        }",
        "",
        "    }",
        "",
        "}",
        "",
        "fxgroup Extra",
        "{",
        "    //",
        "    // 1 technique(s)",
        "    //",
        "    technique11 Compute",
        "    {",
        "        pass",
        "        {",
        *asm_block("            ComputeShader = ", 12, inner, "            };"),
        "        }",
        "",
        "    }",
        "",
        "}",
        "",
    ]


def _model(payload: bytes) -> DxbcContainer:
    model = DxbcContainer.from_bytes(container((b"FX10", payload)))
    effect = model.effect
    assert isinstance(effect, Effect) and effect.records is not None and effect.block is not None
    return model


def test_fx5_listing_is_fxc_form() -> None:
    """Buffers with defaults, state/shader/resource objects (an fx_4-style stream-output geometry shader too), interfaces,
    named and unnamed groups."""
    assert _model(build_effect()).disassemble().splitlines() == expected([])


def test_fx5_listing_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import run_cli

    path = tmp_path / "effect.fxo"
    path.write_bytes(container((b"FX10", build_effect())))
    code, out, err = run_cli(capsys, "disasm", str(path))
    assert code == 0, err
    assert out.splitlines()[:6] == ["//", "// FX Version: fx_5_0", "//", "// 2 local buffer(s)", "//",
                                   "cbuffer cbMain : register(b1)"]


def test_fx5_embedded_shader_is_fxc_listing(corpus: Path) -> None:
    """A real shader embedded everywhere: its listing is fxc's own (the corpus .fxc.asm), indented."""
    path = corpus / "dxbc" / "angle__passthrough3d11gs__g_GS_Passthrough3D.dxbc"
    listing = path.with_suffix(".fxc.asm")
    if not path.exists() or not listing.exists():
        pytest.skip("corpus shader not found")
    shader = path.read_bytes()
    inner = listing.read_text(encoding="latin-1").splitlines()
    ours = _model(build_effect(shader)).disassemble().splitlines()
    assert [line.rstrip() for line in ours] == [line.rstrip() for line in expected(inner)]


def test_fx5_listing_follows_record_edits() -> None:
    model = _model(build_effect())
    effect = model.effect
    assert isinstance(effect, Effect) and effect.records is not None
    group = effect.records.groups[1]
    group.name_offset = group.techniques[0].name_offset  # "Compute", a string the block holds
    effect.records.objects[2].shaders5[0].rasterized_stream = 0xFFFFFFFF
    lines = model.disassemble().splitlines()
    assert "fxgroup Compute" in lines and "fxgroup Extra" not in lines
    assert "/* Stream 4294967295 to rasterizer */;" in lines


def test_fx5_bad_bytes_raise_format_errors() -> None:
    """Truncations and word mutations of the effect: a listing or ShaderFormatError, nothing else."""
    data = container((b"FX10", build_effect()))
    for cut in range(40, len(data), 23):
        try:
            DxbcContainer.from_bytes(data[:cut]).disassemble()
        except ShaderFormatError:
            pass
    for at in range(40, len(data) - 3, 12):  # every third word, the records' and the block's
        for word in (0, 3, 0xFFFFFFFF):
            mutant = data[:at] + struct.pack("<I", word) + data[at + 4 :]
            try:
                DxbcContainer.from_bytes(mutant).disassemble()
            except ShaderFormatError:
                pass

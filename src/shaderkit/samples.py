"""Small sample files that shaderkit builds with its own writers (used by ``shaderkit demo``).

Each builder returns the bytes of one file; nothing here is read from outside the package.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable

PICA_SOURCE = """\
; shaderkit sample: transform a vertex and pass its colour through
.fvec projection[4]
.constf ones(1.0, 1.0, 1.0, 1.0)
.out outpos position
.out outclr color
.alias inpos v0
.alias inclr v1
.proc main
    dp4 outpos.x, projection[0], inpos
    dp4 outpos.y, projection[1], inpos
    dp4 outpos.z, projection[2], inpos
    dp4 outpos.w, projection[3], inpos
    mul outclr, ones, inclr
    end
.end
"""


def dxbc_sample() -> bytes:
    """vs_4_0 that copies POSITION to SV_Position, with input/output signatures."""
    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.shader import ShaderProgram
    from shaderkit.formats.dxbc.signature import Signature, SignatureElement

    tokens = array("I", [
        0x00010040, 15,                      # vs_4_0, program length in dwords
        0x0300005F, 0x001010F2, 0,           # dcl_input v0.xyzw
        0x04000067, 0x001020F2, 0, 1,        # dcl_output_siv o0.xyzw, position
        0x05000036, 0x001020F2, 0, 0x00101E46, 0,  # mov o0.xyzw, v0.xyzw
        0x0100003E,                          # ret
    ])
    inputs = Signature("ISGN", [SignatureElement("POSITION", mask=0xF, read_write_mask=0xF)])
    outputs = Signature("OSGN", [SignatureElement("SV_Position", system_value_type=1, mask=0xF)])
    container = DxbcContainer(chunks=[inputs, outputs, ShaderProgram("SHDR", tokens)])
    return container.to_bytes()


def pica_sample() -> bytes:
    """A 3DS vertex shader assembled from :data:`PICA_SOURCE` (picasso syntax)."""
    from shaderkit.formats.dvlb.build import assemble_sources

    return assemble_sources([("sample.pica", PICA_SOURCE)])


def bnsh_sample() -> bytes:
    """A Switch BNSH with one binary variation (vertex + pixel) and a GLSL source variation."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import (
        MemoryPool,
        NvnShaderCode,
        ReflectionStage,
        ShaderProgram,
        ShaderReflection,
        ShaderVariation,
        SourceCode,
    )

    def stage_code(sph_shader_type: int, sph_type: int) -> NvnShaderCode:
        # NVN header (magic + zeros), shader program header (type/version/shader type), then code
        data = struct.pack("<I", 0x12345678) + bytes(0x2C) + sample_sph(sph_shader_type, sph_type) + maxwell_code(
            sph_shader_type)
        control = struct.pack("<5I", 0x98761234, 1, 0x10, 0x120, 0xB) + bytes(0x7EC)
        return NvnShaderCode(control, data)

    reflection = ShaderReflection([
        ReflectionStage(inputs=[("a_position", 0), ("a_color", 1)], constant_buffers=[("cb_view", 0)]),
        None, None, None,
        ReflectionStage(outputs=[("o_color", 0)], samplers=[("s_texture", 0)]),
        None,
    ])
    binary = ShaderProgram(flags=3, code_type=0, reflection=reflection,
                           stages=[stage_code(1, 1), None, None, None, stage_code(5, 2), None])
    source = ShaderProgram(flags=2, code_type=2, stages=[
        SourceCode(b"#version 450\nvoid main() { gl_Position = vec4(0.0); }\n"), None, None, None,
        SourceCode(b"#version 450\nlayout(location = 0) out vec4 o_color;\nvoid main() { o_color = vec4(1.0); }\n"),
        None])
    model = Bnsh(name="sample", memory_pool=MemoryPool(),
                 variations=[ShaderVariation(binary_program=binary), ShaderVariation(source_program=source)])
    return model.to_bytes()


def dksh_sample() -> bytes:
    """A deko3d module (.dksh) with a vertex and a fragment program, laid out as uam lays out its files."""
    from shaderkit.formats.bnsh.nvn import ShaderProgramHeader
    from shaderkit.formats.dksh.dksh import Dksh
    from shaderkit.formats.dksh.model import (
        DKSH_MAGIC,
        HEADER_SIZE,
        DkshHeader,
        DkshProgram,
        DkshProgramHeader,
        FragmentParams,
        VertexParams,
    )

    def program(type_: int, sph_shader_type: int, sph_type: int, params: VertexParams | FragmentParams) -> DkshProgram:
        sph = sample_sph(sph_shader_type, sph_type)
        # uam's register count floor (4); entrypoint and constbuf1 placement are the writer's
        head = DkshProgramHeader(type_, 0, 4, 0, 0, 0, params)
        return DkshProgram(head, ShaderProgramHeader.from_bytes(sph), maxwell_code(sph_shader_type))

    # uam's default fragment state word (0x087F6080) in param_d8
    programs = [program(0, 1, 1, VertexParams(0, 0)),
                program(1, 5, 2, FragmentParams(0, 0, 0, 0, [0, 0, 0, 0], 0x087F6080, 0, 0))]
    return Dksh(DkshHeader(DKSH_MAGIC, HEADER_SIZE, 0, 0, 0, 0), programs).to_bytes()


# Tiny programs written in shaderkit's own text syntaxes and assembled by its own assemblers.
_MAXWELL_VERTEX = """\
/*0008*/ [B------:R-:W0:Y:S01] ALD R0, a[0x80];
/*0010*/ [B0-----:R-:W-:Y:S05] AST a[0x70], R0;
/*0018*/ [B------:R-:W-:Y:S05] EXIT;
/*0028*/ [B------:R-:W-:Y:S00] BRA 0x28;
/*0030*/ [B------:R-:W-:Y:S00] NOP 0x0;
/*0038*/ [B------:R-:W-:Y:S00] NOP 0x0;
"""
_MAXWELL_PIXEL = """\
/*0008*/ [B------:R-:W-:Y:S01] MOV32I R0, 0x3f800000;
/*0010*/ [B------:R-:W-:Y:S01] MOV R1, RZ;
/*0018*/ [B------:R-:W-:Y:S05] EXIT;
/*0028*/ [B------:R-:W-:Y:S00] BRA 0x28;
/*0030*/ [B------:R-:W-:Y:S00] NOP 0x0;
/*0038*/ [B------:R-:W-:Y:S00] NOP 0x0;
"""


def sample_sph(sph_shader_type: int, sph_type: int) -> bytes:
    """A 0x50-byte shader program header: SPH type, version 3 and shader type in the first word."""
    return struct.pack("<5I", sph_type | 3 << 5 | sph_shader_type << 10, 0, 0, 0, 0) + bytes(0x3C)


def maxwell_code(sph_shader_type: int) -> bytes:
    """64 bytes of Maxwell code: a vertex shader copying an attribute, or a pixel shader writing 1.0."""
    from shaderkit.isa import maxwell

    return maxwell.assemble(_MAXWELL_PIXEL if sph_shader_type == 5 else _MAXWELL_VERTEX)


def latte_programs(variation: int) -> tuple[bytes, bytes]:
    """Latte microcode of a vertex shader (position scaled by 1 + variation) and a pixel shader."""
    from shaderkit.isa import latte

    scale = struct.unpack(">I", struct.pack(">f", 1.0 + variation))[0]
    vertex = (
        "00 CALL_FS NO_BARRIER\n\n01 ALU: ADDR(32) CNT(2)\n"
        f"  0   x: MUL             R1.x, R1.x, (0x{scale:08X}, {1.0 + variation:g})\n"
        "      w: MOV             R1.w, (0x3F800000, 1)\n\n"
        "02 EXP_DONE: POS0, R1.xyzw\n\n03 EXP_DONE: PARAM0, R2.xyzw\n\nEND_OF_PROGRAM\n"
    )
    pixel = "00 EXP_DONE: PIX0, R0.xyzw\n\nEND_OF_PROGRAM\n"
    return latte.assemble(vertex), latte.assemble(pixel)


def sharcfb_sample() -> bytes:
    """A big-endian Wii U SHARCFB: program 'basic' with macros FOG (0/1) x QUALITY (lo/hi)."""
    from shaderkit.formats.agl.sharcfb import (
        ShaderBinary,
        ShaderProgram,
        ShaderSymbol,
        Sharcfb,
        VariationMacro,
    )
    from shaderkit.formats.gx2.shader import GX2PixelShader, GX2VertexShader
    from shaderkit.formats.gx2.types import GX2AttribVar, GX2SamplerVar, GX2UniformVar

    binaries = []
    for variation in range(4):
        vertex, pixel = latte_programs(variation)
        vs = GX2VertexShader(program=vertex, mode=1)
        vs.uniform_vars = [GX2UniformVar("cMVP", 29, 1, 0, -1)]
        vs.attrib_vars = [GX2AttribVar("aPosition", 10, 0, 0)]
        ps = GX2PixelShader(program=pixel, mode=1)
        ps.sampler_vars = [GX2SamplerVar("tex0", 1, 0)]
        binaries += [ShaderBinary(0, vs), ShaderBinary(1, ps)]
    used = bytes([1] * 4)
    program = ShaderProgram(
        "basic", 3, 0,
        macros=[VariationMacro("FOG", ["0", "1"], "ENABLE_FOG"), VariationMacro("QUALITY", ["lo", "hi"], "QUALITY")],
        defaults=[VariationMacro("FOG", ["0"], "ENABLE_FOG"), VariationMacro("QUALITY", ["hi"], "QUALITY")],
        uniforms=[ShaderSymbol("cMVP", "_cMVP", 0, struct.pack(">16f", *([1, 0, 0, 0, 0] * 3 + [1])), used)],
        samplers=[ShaderSymbol("tex0", "_tex0", 0, b"", used)],
        attributes=[ShaderSymbol("aPosition", "_aPosition", 0, b"", used)],
    )
    return Sharcfb(name="sample", endian=">", binaries=binaries, programs=[program]).to_bytes()  # type: ignore[arg-type]


SAMPLES: dict[str, Callable[[], bytes]] = {
    "sample_vs.dxbc": dxbc_sample,
    "sample.shbin": pica_sample,
    "sample.bnsh": bnsh_sample,
    "sample.dksh": dksh_sample,
    "sample.sharcfb": sharcfb_sample,
}

"""A complete GSH from decaf latte-assembler sources: the program plus the GX2 shader header that
decaf's assembler derives from the code and from the ``; $NAME = value`` metadata comments.

Defaults and derivations follow decaf-emu's latte-assembler (gfd.cpp): mode from constant-cache
use, NUM_GPRS from the registers used, STACK_SIZE 1 (vertex), VGT reuse depths 14/16, unused
SPI_VS_OUT_ID bytes 0xFF, SQ_VTX_SEMANTIC from the attributes, SQ_VTX_SEMANTIC_CLEAR from their
count; pixel shaders CB_SHADER_MASK 0xF, RT0 enabled, early-then-late Z, SPI_PS_IN_CONTROL_0
centres-only barycentrics with perspective gradients and NUM_INTERP from NUM_SPI_PS_INPUT_CNTL,
export mode 2. Register bit fields are the R600/R700 register reference's.
"""

from __future__ import annotations

import re
from typing import Any

from shaderkit.errors import AssemblyError
from shaderkit.formats.gfd.gsh import GfdBlock, GfdHeader, Gsh
from shaderkit.formats.gx2.shader import TAGGED, GX2PixelShader, GX2Shader, GX2VertexShader
from shaderkit.formats.gx2.types import SAMPLER_TYPES as GX2_SAMPLER_TYPES
from shaderkit.formats.gx2.types import (
    GX2AttribVar,
    GX2LoopVar,
    GX2PixelShaderRegs,
    GX2SamplerVar,
    GX2ShaderMode,
    GX2UniformBlock,
    GX2UniformInitialValue,
    GX2UniformVar,
    GX2VertexShaderRegs,
    var_type_name,
)
from shaderkit.isa.latte.source import LatteSource

Bits = dict[str, tuple[int, int]]

_PGM_RESOURCES: Bits = {
    "NUM_GPRS": (0, 8), "STACK_SIZE": (8, 8), "DX10_CLAMP": (21, 1), "PRIME_CACHE_PGM_EN": (22, 1),
    "PRIME_CACHE_ON_DRAW": (23, 1), "FETCH_CACHE_LINES": (24, 3), "UNCACHED_FIRST_INST": (28, 1),
    "PRIME_CACHE_ENABLE": (29, 1), "PRIME_CACHE_ON_CONST": (30, 1), "CLAMP_CONSTS": (31, 1)}
_PA_CL_VS_OUT_CNTL: Bits = {
    **{f"CLIP_DIST_ENA_{i}": (i, 1) for i in range(8)}, **{f"CULL_DIST_ENA_{i}": (8 + i, 1) for i in range(8)},
    "USE_VTX_POINT_SIZE": (16, 1), "USE_VTX_EDGE_FLAG": (17, 1), "USE_VTX_RENDER_TARGET_INDX": (18, 1),
    "USE_VTX_VIEWPORT_INDX": (19, 1), "USE_VTX_KILL_FLAG": (20, 1), "VS_OUT_MISC_VEC_ENA": (21, 1),
    "VS_OUT_CCDIST0_VEC_ENA": (22, 1), "VS_OUT_CCDIST1_VEC_ENA": (23, 1),
    "VS_OUT_MISC_SIDE_BUS_ENA": (24, 1), "USE_VTX_GS_CUT_FLAG": (25, 1)}
#: register name in the metadata -> (model attribute, its bit fields); arrays take [index]
VERTEX_REGISTERS: dict[str, tuple[str, Bits]] = {
    "SQ_PGM_RESOURCES_VS": ("sq_pgm_resources_vs", _PGM_RESOURCES),
    "VGT_PRIMITIVEID_EN": ("vgt_primitiveid_en", {"PRIMITIVEID_EN": (0, 1)}),
    "SPI_VS_OUT_CONFIG": ("spi_vs_out_config", {"VS_PER_COMPONENT": (0, 1), "VS_EXPORT_COUNT": (1, 5),
                                                "VS_EXPORTS_FOG": (8, 1), "VS_OUT_FOG_VEC_ADDR": (9, 5)}),
    "SPI_VS_OUT_ID": ("spi_vs_out_id", {f"SEMANTIC_{i}": (8 * i, 8) for i in range(4)}),
    "PA_CL_VS_OUT_CNTL": ("pa_cl_vs_out_cntl", _PA_CL_VS_OUT_CNTL),
    "SQ_VTX_SEMANTIC": ("sq_vtx_semantic", {"SEMANTIC_ID": (0, 8)}),
    "VGT_STRMOUT_BUFFER_EN": ("vgt_strmout_buffer_en", {f"BUFFER_{i}_EN": (i, 1) for i in range(4)}),
    "VGT_VERTEX_REUSE_BLOCK_CNTL": ("vgt_vertex_reuse_block_cntl", {"VTX_REUSE_DEPTH": (0, 8)}),
    "VGT_HOS_REUSE_DEPTH": ("vgt_hos_reuse_depth", {"REUSE_DEPTH": (0, 8)}),
}
PIXEL_REGISTERS: dict[str, tuple[str, Bits]] = {
    "SQ_PGM_RESOURCES_PS": ("sq_pgm_resources_ps", _PGM_RESOURCES),
    "SQ_PGM_EXPORTS_PS": ("sq_pgm_exports_ps", {"EXPORT_MODE": (0, 5)}),
    "SPI_PS_IN_CONTROL_0": ("spi_ps_in_control_0", {
        "NUM_INTERP": (0, 6), "POSITION_ENA": (8, 1), "POSITION_CENTROID": (9, 1), "POSITION_ADDR": (10, 5),
        "PARAM_GEN": (15, 4), "PARAM_GEN_ADDR": (19, 7), "BARYC_SAMPLE_CNTL": (26, 2),
        "PERSP_GRADIENT_ENA": (28, 1), "LINEAR_GRADIENT_ENA": (29, 1), "POSITION_SAMPLE": (30, 1),
        "BARYC_AT_SAMPLE_ENA": (31, 1)}),
    "SPI_PS_IN_CONTROL_1": ("spi_ps_in_control_1", {
        "GEN_INDEX_PIX": (0, 1), "GEN_INDEX_PIX_ADDR": (1, 7), "FRONT_FACE_ENA": (8, 1),
        "FRONT_FACE_CHAN": (9, 2), "FRONT_FACE_ALL_BITS": (11, 1), "FRONT_FACE_ADDR": (12, 5),
        "FOG_ADDR": (17, 7), "FIXED_PT_POSITION_ENA": (24, 1), "FIXED_PT_POSITION_ADDR": (25, 5),
        "POSITION_ULC": (30, 1)}),
    "SPI_PS_INPUT_CNTL": ("spi_ps_input_cntls", {
        "SEMANTIC": (0, 8), "DEFAULT_VAL": (8, 2), "FLAT_SHADE": (10, 1), "SEL_CENTROID": (11, 1),
        "SEL_LINEAR": (12, 1), "CYL_WRAP": (13, 4), "PT_SPRITE_TEX": (17, 1), "SEL_SAMPLE": (18, 1)}),
    "CB_SHADER_MASK": ("cb_shader_mask", {f"OUTPUT{i}_ENABLE": (4 * i, 4) for i in range(8)}),
    "CB_SHADER_CONTROL": ("cb_shader_control", {f"RT{i}_ENABLE": (i, 1) for i in range(8)}),
    "DB_SHADER_CONTROL": ("db_shader_control", {
        "Z_EXPORT_ENABLE": (0, 1), "STENCIL_REF_EXPORT_ENABLE": (1, 1), "Z_ORDER": (4, 2),
        "KILL_ENABLE": (6, 1), "COVERAGE_TO_MASK_ENABLE": (7, 1), "MASK_EXPORT_ENABLE": (8, 1),
        "DUAL_EXPORT_ENABLE": (9, 1), "EXEC_ON_HIER_FAIL": (10, 1), "EXEC_ON_NOOP": (11, 1),
        "ALPHA_TO_MASK_DISABLE": (12, 1)}),
    "SPI_INPUT_Z": ("spi_input_z", {"PROVIDE_Z_TO_SPI": (0, 1)}),
}
#: value names of enumerated register fields
ENUM_VALUES = {"CENTROIDS_ONLY": 0, "CENTERS_ONLY": 1, "CENTROIDS_AND_CENTERS": 2, "LATE_Z": 0,
               "EARLY_Z_THEN_LATE_Z": 1, "RE_Z": 2, "EARLY_Z_THEN_RE_Z": 3}
#: GLSL spellings decaf's assembler accepts for GX2ShaderVarType (GX2 names such as Float2 too)
GLSL_TYPES = {"void": 0, "bool": 1, "int": 2, "uint": 3, "float": 4, "double": 5, "dvec2": 6, "dvec3": 7,
              "dvec4": 8, "vec2": 9, "vec3": 10, "vec4": 11, "bvec2": 12, "bvec3": 13, "bvec4": 14,
              "ivec2": 15, "ivec3": 16, "ivec4": 17, "uvec2": 18, "uvec3": 19, "uvec4": 20, "mat2": 21,
              "mat3": 25, "mat4": 29, "dmat2": 30, "dmat3": 34, "dmat4": 38}
for _r in range(2, 5):
    for _c in range(2, 5):
        GLSL_TYPES[f"mat{_r}x{_c}"] = 21 + (_r - 2) * 3 + (_c - 2)
        GLSL_TYPES[f"dmat{_r}x{_c}"] = 30 + (_r - 2) * 3 + (_c - 2)
SAMPLER_TYPES = {name.upper(): value for value, name in GX2_SAMPLER_TYPES.items()}
MODES = {"UNIFORMREGISTER": 0, "UNIFORMBLOCK": 1, "GEOMETRYSHADER": 2, "COMPUTESHADER": 3}
_KEY = re.compile(r"^([A-Za-z_0-9]+)(?:\[(\d+)\])?(?:\.([A-Za-z_0-9]+(?:\[\d\])?))?$")


def _value(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _number(text: str, signed: bool = False) -> int:
    value = _value(text)
    upper = value.upper()
    if upper in ("TRUE", "FALSE"):
        return int(upper == "TRUE")
    if upper in ENUM_VALUES:
        return ENUM_VALUES[upper]
    try:
        return _word(int(value, 0), signed)
    except ValueError:
        raise AssemblyError(f"expected a number, found {value!r}") from None


def _word(value: int, signed: bool = False) -> int:
    """``value`` as a 32-bit field holds it (a negative one as its two's complement unless
    ``signed``); AssemblyError if it does not fit in 32 bits."""
    if not -(1 << 31) <= value < 1 << 32:
        raise AssemblyError(f"{value} does not fit in 32 bits")
    return value if signed else value & 0xFFFFFFFF


def _var_type(text: str) -> int:
    value = _value(text).lower()
    if value in GLSL_TYPES:
        return GLSL_TYPES[value]
    for number in range(40):
        if var_type_name(number) == value:
            return number
    raise AssemblyError(f"invalid GX2ShaderVarType {value!r}")


def _set_bits(word: int, bits: tuple[int, int], value: int) -> int:
    lsb, width = bits
    mask = ((1 << width) - 1) << lsb
    return (word & ~mask) | (value << lsb & mask)


def _grow(items: list[Any], index: int, make: Any) -> Any:
    if index > 255:
        raise AssemblyError(f"index {index} is too large")
    while len(items) <= index:
        items.append(make(len(items)))
    return items[index]


def _apply_metadata(shader: GX2Shader, registers: dict[str, tuple[str, Bits]], source: LatteSource) -> None:
    """Every ``; $KEY = value`` of ``source`` set on ``shader``; a bad one raises AssemblyError at
    its value's line and column."""
    for i, (key, raw) in enumerate(source.metadata):
        try:
            _apply_one(shader, registers, key, raw)
        except AssemblyError as exc:
            line, column = source.metadata_at[i] if i < len(source.metadata_at) else (exc.line, exc.column)
            raise AssemblyError(exc.message, line, column, source.name) from None


def _apply_one(shader: GX2Shader, registers: dict[str, tuple[str, Bits]], key: str, raw: str) -> None:
    regs: Any = shader.regs
    m = _KEY.match(key)
    if not m:
        raise AssemblyError(f"bad metadata key ${key}")
    obj, index_text, member = m[1].upper(), m[2], (m[3] or "").upper()
    index = int(index_text) if index_text is not None else None
    if obj in registers:
        attr, fields = registers[obj]
        if member not in fields:
            raise AssemblyError(f"{obj} does not have member {member}")
        if (index is None) == isinstance(getattr(regs, attr), list):
            raise AssemblyError(f"{obj} needs an index" if index is None else f"{obj} takes no index")
        if index is None:
            setattr(regs, attr, _set_bits(getattr(regs, attr), fields[member], _number(raw)))
        else:
            array = getattr(regs, attr)
            if index >= len(array):
                raise AssemblyError(f"{obj}[{index}] is beyond its {len(array)} entries")
            array[index] = _set_bits(array[index], fields[member], _number(raw))
    elif obj in ("NUM_SPI_VS_OUT_ID", "NUM_SQ_VTX_SEMANTIC", "NUM_SPI_PS_INPUT_CNTL"):
        setattr(regs, obj.lower(), _number(raw))
    elif obj == "SQ_VTX_SEMANTIC_CLEAR":
        regs.sq_vtx_semantic_clear = _number(raw)
    elif obj == "MODE":
        name = _value(raw).upper().replace("_", "")
        if name not in MODES:
            raise AssemblyError(f"invalid GX2ShaderMode {raw}")
        shader.mode = MODES[name]
    elif obj == "RING_ITEM_SIZE":
        shader.ring_item_size = _number(raw)
    elif obj == "HAS_STREAM_OUT":
        shader.has_stream_out = _number(raw)
    elif obj == "STREAM_OUT_STRIDE" and index is not None and index < 4:
        shader.stream_out_stride[index] = _number(raw)
    elif obj == "ATTRIB_VARS" and index is not None:
        attrib = _grow(shader.attrib_vars, index, lambda i: GX2AttribVar("", 11, 0, i))
        _set_var(attrib, member, raw, {"NAME": "name", "TYPE": "type", "COUNT": "count",
                                       "LOCATION": "location"})
    elif obj == "UNIFORM_VARS" and index is not None:
        var = _grow(shader.uniform_vars, index, lambda i: GX2UniformVar("", 11, 1, 0, -1))
        _set_var(var, member, raw, {"NAME": "name", "TYPE": "type", "COUNT": "count", "OFFSET": "offset",
                                    "BLOCK": "block"})
    elif obj == "UNIFORM_BLOCKS" and index is not None:
        block = _grow(shader.uniform_blocks, index, lambda i: GX2UniformBlock("", i + 1, 16))
        _set_var(block, member, raw, {"NAME": "name", "OFFSET": "offset", "SIZE": "size"})
    elif obj == "SAMPLER_VARS" and index is not None:
        sampler = _grow(shader.sampler_vars, index, lambda i: GX2SamplerVar("", 1, i))
        if member == "TYPE":
            name = _value(raw).upper()
            if name not in SAMPLER_TYPES:
                raise AssemblyError(f"invalid GX2SamplerVarType {raw}")
            sampler.type = SAMPLER_TYPES[name]
        else:
            _set_var(sampler, member, raw, {"NAME": "name", "LOCATION": "location"})
    elif obj == "LOOP_VARS" and index is not None:
        loop = _grow(shader.loop_vars, index, lambda i: GX2LoopVar(i, 0))
        _set_var(loop, member, raw, {"OFFSET": "offset", "VALUE": "value"})
    elif obj == "INITIAL_VALUES" and index is not None:
        init = _grow(shader.initial_values, index, lambda i: GX2UniformInitialValue((0, 0, 0, 0), 0))
        if member == "OFFSET":
            init.offset = _number(raw)
        elif re.fullmatch(r"VALUE\[[0-3]\]", member):
            values = list(init.value)
            try:
                values[int(member[6])] = float(_value(raw).rstrip("fF"))
            except ValueError:
                raise AssemblyError(f"expected a float, found {_value(raw)!r}") from None
            init.value_bits = GX2UniformInitialValue.from_floats(
                (values[0], values[1], values[2], values[3]), 0).value_bits
        else:
            raise AssemblyError(f"INITIAL_VALUES[{index}] does not have member {member}")
    else:
        raise AssemblyError(f"unknown metadata key ${key}")


def _set_var(item: Any, member: str, raw: str, names: dict[str, str]) -> None:
    if member not in names:
        raise AssemblyError(f"{type(item).__name__} has no member {member}")
    attr = names[member]
    if attr == "name":
        item.name = _value(raw)
    elif attr == "type":
        item.type = _var_type(raw)
    else:
        value = _value(raw)
        signed = attr == "block"  # -1: no uniform block
        setattr(item, attr, _word(int(value, 0), signed) if value.lstrip("-").isdigit() or value.startswith("0x")
                else _number(raw, signed))


def vertex_shader(source: LatteSource) -> GX2VertexShader:
    """The GX2VertexShader decaf's assembler writes for an assembled ``.vsh``."""
    regs = GX2VertexShaderRegs()
    regs.spi_vs_out_id = [0xFFFFFFFF] * 10
    regs.sq_pgm_resources_vs = source.num_gprs | 1 << 8
    regs.vgt_hos_reuse_depth = 16
    regs.vgt_vertex_reuse_block_cntl = 14
    mode = GX2ShaderMode.UNIFORM_BLOCK if source.uniform_blocks_used else GX2ShaderMode.UNIFORM_REGISTER
    shader = GX2VertexShader(regs=regs, program=source.program, mode=int(mode))
    _apply_metadata(shader, VERTEX_REGISTERS, source)
    cntl = regs.pa_cl_vs_out_cntl
    if cntl >> 16 & 0x1F or cntl >> 25 & 1:  # point size, edge, RT/viewport index, kill, GS cut
        cntl |= 1 << 21 | 1 << 24
    if cntl & 0xFF:
        cntl |= 1 << 22
    if cntl >> 8 & 0xFF:
        cntl |= 1 << 23
    regs.pa_cl_vs_out_cntl = cntl
    if regs.sq_pgm_resources_vs & 0xFF != source.num_gprs:
        raise AssemblyError(f"SQ_PGM_RESOURCES_VS.NUM_GPRS {regs.sq_pgm_resources_vs & 0xFF}, "
                            f"expected {source.num_gprs}")
    count = len(shader.attrib_vars)
    if regs.num_sq_vtx_semantic == 0:
        regs.num_sq_vtx_semantic = count
        for i, attrib in enumerate(shader.attrib_vars[:32]):
            regs.sq_vtx_semantic[i] = attrib.location & 0xFF
    elif regs.num_sq_vtx_semantic != count:
        raise AssemblyError(f"NUM_SQ_VTX_SEMANTIC {regs.num_sq_vtx_semantic}, expected {count}")
    for i in range(min(regs.num_sq_vtx_semantic, 32), 32):
        regs.sq_vtx_semantic[i] = 0xFF
    clear = ~((1 << regs.num_sq_vtx_semantic) - 1) & 0xFFFFFFFF
    if regs.sq_vtx_semantic_clear == 0:
        regs.sq_vtx_semantic_clear = clear
    elif regs.sq_vtx_semantic_clear != clear:
        raise AssemblyError(f"SQ_VTX_SEMANTIC_CLEAR {regs.sq_vtx_semantic_clear:#x}, expected {clear:#x}")
    return shader


def pixel_shader(source: LatteSource) -> GX2PixelShader:
    """The GX2PixelShader decaf's assembler writes for an assembled ``.psh``."""
    regs = GX2PixelShaderRegs()
    regs.cb_shader_mask = 0xF
    regs.cb_shader_control = 1
    regs.db_shader_control = 1 << 4
    regs.spi_ps_in_control_0 = 1 << 26 | 1 << 28
    regs.sq_pgm_exports_ps = 2
    regs.sq_pgm_resources_ps = source.num_gprs
    mode = GX2ShaderMode.UNIFORM_BLOCK if source.uniform_blocks_used else GX2ShaderMode.UNIFORM_REGISTER
    shader = GX2PixelShader(regs=regs, program=source.program, mode=int(mode))
    _apply_metadata(shader, PIXEL_REGISTERS, source)
    if regs.sq_pgm_resources_ps & 0xFF != source.num_gprs:
        raise AssemblyError(f"SQ_PGM_RESOURCES_PS.NUM_GPRS {regs.sq_pgm_resources_ps & 0xFF}, "
                            f"expected {source.num_gprs}")
    interp = regs.spi_ps_in_control_0 & 0x3F
    if interp == 0:
        regs.spi_ps_in_control_0 |= regs.num_spi_ps_input_cntl & 0x3F
    elif interp != regs.num_spi_ps_input_cntl:
        raise AssemblyError(f"SPI_PS_IN_CONTROL_0.NUM_INTERP {interp} is not NUM_SPI_PS_INPUT_CNTL "
                            f"{regs.num_spi_ps_input_cntl}")
    return shader


#: decaf's GFD writer with its alignment option puts each program's data on this file boundary
PROGRAM_ALIGNMENT = 0x200


def build_gsh(vertex: LatteSource | None = None, pixel: LatteSource | None = None, align: bool = False) -> Gsh:
    """A GSH holding the given shaders (header and program block each, then the end block).

    ``align`` is decaf's alignment option: align mode 1 in the file header and a zero padding block
    before each program block, so that the microcode starts on a 0x200 file boundary."""
    gsh = Gsh(GfdHeader(align_mode=int(align)))
    shaders: list[tuple[GX2Shader, int, int]] = []
    if vertex is not None:
        shaders.append((vertex_shader(vertex), 3, 5))
    if pixel is not None:
        shaders.append((pixel_shader(pixel), 6, 7))
    for shader, header_type, program_type in shaders:
        patches = decaf_patch_list(shader)
        gsh.blocks.append(GfdBlock(header_type, id=len(gsh.blocks), shader=shader, patch_list=patches,
                                   trailer_gap=b""))
        header_index = len(gsh.blocks) - 1
        if align:
            end = len(gsh.to_bytes())  # the padding block header goes here, then the program block header
            gsh.blocks.append(GfdBlock(2, id=len(gsh.blocks), data=bytes(-(end + 0x40) % PROGRAM_ALIGNMENT)))
        gsh.blocks.append(GfdBlock(program_type, id=len(gsh.blocks), header_index=header_index))
    gsh.blocks.append(GfdBlock(1, id=len(gsh.blocks)))
    return gsh


def decaf_patch_list(shader: GX2Shader) -> list[int]:
    """The relocation patch list decaf's GFD writer stores (seen in every corpus GSH it wrote):
    the struct's non-null pointer fields (data tag), then every name pointer field (string tag),
    without the null entries and the two closing zeros gshCompile writes; and no 8 zero bytes
    before the trailer (the caller sets ``trailer_gap``)."""
    pointer_fields = sum(1 for name, _ in shader.TAIL if name in shader.ARRAYS or name.endswith("program_ptr"))
    fields = shader.build(TAGGED, ">").patch_fields
    struct_fields, name_fields = fields[:pointer_fields], fields[pointer_fields:-2]
    return [TAGGED.data_tag | f for f in struct_fields if f] + [TAGGED.string_tag | f for f in name_fields]

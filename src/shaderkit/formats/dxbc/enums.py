"""Names of the D3D enums that DXBC summaries give as numbers (``d3dcommon.h`` / ``d3d11shader.h``),
lowercase without their prefixes; ``info --json`` puts them beside the numbers as ``<key>_name``."""

from __future__ import annotations

#: D3D_RESOURCE_RETURN_TYPE (0: none, for constant buffers, samplers and structured/raw buffers)
RETURN_TYPES = {0: "none", 1: "unorm", 2: "snorm", 3: "sint", 4: "uint", 5: "float", 6: "mixed", 7: "double", 8: "continued"}
#: D3D_SRV_DIMENSION (the Dimension of a D3D11_SHADER_INPUT_BIND_DESC)
DIMENSIONS = {
    0: "unknown", 1: "buffer", 2: "texture1d", 3: "texture1darray", 4: "texture2d", 5: "texture2darray",
    6: "texture2dms", 7: "texture2dmsarray", 8: "texture3d", 9: "texturecube", 10: "texturecubearray",
    11: "bufferex",
}
#: D3D_PRIMITIVE_TOPOLOGY (STAT gs_output_topology)
PRIMITIVE_TOPOLOGIES = {
    0: "undefined", 1: "pointlist", 2: "linelist", 3: "linestrip", 4: "trianglelist", 5: "trianglestrip",
    10: "linelist_adj", 11: "linestrip_adj", 12: "trianglelist_adj", 13: "trianglestrip_adj",
    **{33 + n: f"{n + 1}_control_point_patchlist" for n in range(32)},
}
#: D3D_PRIMITIVE (STAT input_primitive): 8 + n - 1 is an n-control-point patch
PRIMITIVES = {
    0: "undefined", 1: "point", 2: "line", 3: "triangle", 6: "line_adj", 7: "triangle_adj",
    **{8 + n: f"{n + 1}_control_point_patch" for n in range(32)},
}
#: D3D_TESSELLATOR_DOMAIN (STAT tessellator_domain)
TESSELLATOR_DOMAINS = {0: "undefined", 1: "isoline", 2: "tri", 3: "quad"}
#: D3D_INTERPOLATION_MODE (LFS0 parameters)
INTERPOLATION_MODES = {
    0: "undefined", 1: "constant", 2: "linear", 3: "linear_centroid", 4: "linear_noperspective",
    5: "linear_noperspective_centroid", 6: "linear_sample", 7: "linear_noperspective_sample",
}
#: D3D_SHADER_CBUFFER_FLAGS (bits)
CBUFFER_FLAGS = {1: "userpacked"}


def enum_name(table: dict[int, str], value: int) -> str:
    """The name of ``value`` in ``table``; the number as text for values the table does not have."""
    return table.get(value, str(value))


def flag_names(table: dict[int, str], value: int) -> list[str]:
    """The names of the bits set in ``value`` (``bit_N`` for bits the table does not name)."""
    return [table.get(1 << bit, f"bit_{bit}") for bit in range(value.bit_length()) if value >> bit & 1]

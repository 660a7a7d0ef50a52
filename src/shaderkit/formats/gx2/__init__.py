"""GX2 shader structs shared by SHARCFB (agl) and GSH (gfd)."""

from shaderkit.formats.gx2.shader import (
    PLAIN,
    SHADER_TYPES,
    TAGGED,
    GX2GeometryShader,
    GX2PixelShader,
    GX2Shader,
    GX2VertexShader,
    PointerStyle,
)

__all__ = [
    "PLAIN", "SHADER_TYPES", "TAGGED", "GX2GeometryShader", "GX2PixelShader", "GX2Shader",
    "GX2VertexShader", "PointerStyle",
]

"""SFI0: shader feature flags (a u64), the "shader requires additional functionality" list."""

from __future__ import annotations

from shaderkit.dataclass import dataclass
from shaderkit.io.reader import Reader

#: D3D_SHADER_FEATURE_* bits with the text fxc prints in its listing note.
FEATURE_NAMES = {
    0x1: "Double-precision floating point",
    0x2: "Raw and Structured buffers",
    0x4: "UAVs at every shader stage",
    0x8: "64 UAV slots",
    0x10: "Minimum-precision data types",
    0x20: "Double-precision extensions for 11.1",
    0x40: "Shader extensions for 11.1",
    0x80: "Comparison filtering for feature level 9",
    0x100: "Tiled resources",
    0x200: "PS Output Stencil Ref",
    0x400: "PS Inner Coverage",
    0x800: "Typed UAV Load Additional Formats",
    0x1000: "Raster Ordered UAVs",
    0x2000: "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
    0x4000: "Wave level operations",
    0x8000: "64-Bit integer",
    0x10000: "View Instancing",
    0x20000: "Barycentrics",
    0x40000: "Use native low precision",
    0x80000: "Shading Rate",
}


@dataclass
class FeatureInfo:
    """The SFI0 chunk: the 64-bit required-feature flags."""
    flags: int = 0
    #: SFI0 payloads are 8 bytes; any further bytes are kept as they are.
    extra: bytes = b""
    fourcc: str = "SFI0"

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "SFI0") -> FeatureInfo:
        """Read the 8-byte flags; further bytes are kept in ``extra``."""
        (flags,) = r.unpack("Q", "SFI0 flags")
        return cls(flags, r.read(r.remaining))

    def build(self) -> bytes:
        """The flags as 8 little-endian bytes, then ``extra``."""
        return self.flags.to_bytes(8, "little") + self.extra

    def feature_names(self) -> list[str]:
        """The names of the set feature bits."""
        return [name for bit, name in FEATURE_NAMES.items() if self.flags & bit]

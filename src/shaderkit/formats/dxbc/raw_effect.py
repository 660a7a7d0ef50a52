"""A compiled effect stored without a DXBC container: the bare effect binary.

fx_4_0 / fx_4_1 effects are normally wrapped in a DXBC container whose FX10 chunk holds the
binary (what D3D10CreateEffectFromMemory reads). An fx_5_0 effect is loaded by Effects11
(``D3DX11CreateEffectFromMemory``), which reads the ``SBinaryHeader5`` at byte 0 of the buffer,
so fx_5_0 files are the bare binary: tag 0xFEFF2001, header, unstructured block, structured
records. vkd3d-shader's HLSL compiler (``vkd3d-compiler -p fx_4_0|fx_4_1|fx_5_0 -b fx``) writes
the bare binary for every effect profile (its D3DCompile wraps only fx_4_x in a container).

The payload is the same :class:`~shaderkit.formats.dxbc.fx10.Effect` model as the FX10 chunk;
this file model only adds the file around it (detection by the leading tag, listing, summary).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.dxbc.fx10 import TAGS, Effect
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

_TAG = struct.Struct("<I")


@dataclass(repr=False)
class RawEffect(ShaderFile):
    """A bare fx_4_0 / fx_4_1 / fx_5_0 effect binary (no DXBC container around it)."""

    format_name = "fx"

    #: the effect binary, typed as the FX10 chunk of a container is
    effect: Effect

    @classmethod
    def from_bytes(cls, data: bytes) -> RawEffect:
        """Parse a bare effect binary; ShaderFormatError when its header or blocks do not fit."""
        r = Reader(bytes(data), context="FX")
        if not Effect.understood(r):
            tag = _TAG.unpack_from(data, 0)[0] if len(data) >= 4 else None
            if tag not in TAGS:
                raise r.error("not an fx_4_0/fx_4_1/fx_5_0 effect (unknown tag)", 0)
            raise r.error(f"{TAGS[tag]} effect header or unstructured block size does not fit the "
                          f"{len(data)} bytes of the file", 0)
        return cls(Effect.parse(r, 0))

    def to_bytes(self) -> bytes:
        """The effect binary: header (unstructured size recomputed), unstructured block, records."""
        return self.effect.build()

    @property
    def profile(self) -> str:
        """``fx_4_0``, ``fx_4_1`` or ``fx_5_0`` (from the header's tag)."""
        return TAGS[self.effect.header.tag]

    def summary(self) -> dict[str, Any]:
        """``format`` "fx", ``shader_model`` (the profile), ``size``, then the effect's own summary
        (``version``, ``child``, ``counts``, ``shaders``, ``buffers``, ``objects``, ``techniques``...)."""
        return {"format": self.format_name, "shader_model": self.profile, "size": len(self.to_bytes()),
                **self.effect.summary()}

    def disassemble(self) -> str:
        """fxc's effect listing, as for an FX10 chunk in a container."""
        from shaderkit.formats.dxbc.disasm import effect_listing

        return effect_listing(self.effect)

"""Names shown beside raw enum numbers in ``info`` text (``--json`` keeps the numbers)."""

from __future__ import annotations

from collections.abc import Callable

#: D3D_RESOURCE_RETURN_TYPE (d3dcommon.h)
RETURN_TYPES = {1: "unorm", 2: "snorm", 3: "sint", 4: "uint", 5: "float", 6: "mixed", 7: "double", 8: "continued"}
#: D3D_SRV_DIMENSION (d3dcommon.h), the Dimension of a D3D11_SHADER_INPUT_BIND_DESC
DIMENSIONS = {
    0: "unknown", 1: "buffer", 2: "texture1d", 3: "texture1darray", 4: "texture2d", 5: "texture2darray",
    6: "texture2dms", 7: "texture2dmsarray", 8: "texture3d", 9: "texturecube", 10: "texturecubearray",
    11: "bufferex",
}


def mask_text(mask: int) -> str:
    """Component letters of a 4-bit mask: 7 -> "xyz", 0 -> "-"."""
    return "".join(c for bit, c in enumerate("xyzw") if mask >> bit & 1) or "-"


def _named(table: dict[int, str]) -> Callable[[int], str]:
    return lambda value: f"{table[value]} ({value})" if value in table else str(value)


#: summary key -> text of an integer value under that key
ENUM_TEXT: dict[str, Callable[[int], str]] = {
    "mask": lambda v: f"{mask_text(v)} ({v})" if 0 <= v <= 15 else str(v),
    "used_mask": lambda v: f"{mask_text(v)} ({v})" if 0 <= v <= 15 else str(v),
    "return_type": _named(RETURN_TYPES),
    "dimension": _named(DIMENSIONS),
}


def enum_text(key: str, value: int) -> str | None:
    """``value`` with its name when ``key`` is a known enum, else None."""
    describe = ENUM_TEXT.get(key)
    return describe(value) if describe is not None else None

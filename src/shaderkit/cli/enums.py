"""Names shown beside raw enum numbers in ``info`` text (``mask xyz (7)``, ``return_type float (5)``).

``--json`` gives the number under the key and the name under ``<key>_name``; the text view shows
the two together under the key, so :data:`NAMED_KEYS` lists the ``_name`` keys it leaves out.
"""

from __future__ import annotations

from collections.abc import Callable

from shaderkit.formats.dxbc.enums import (
    DIMENSIONS,
    INTERPOLATION_MODES,
    PRIMITIVE_TOPOLOGIES,
    PRIMITIVES,
    RETURN_TYPES,
    TESSELLATOR_DOMAINS,
)

__all__ = ["DIMENSIONS", "ENUM_TEXT", "NAMED_KEYS", "RETURN_TYPES", "enum_text", "mask_text"]


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
    "gs_output_topology": _named(PRIMITIVE_TOPOLOGIES),
    "input_primitive": _named(PRIMITIVES),
    "tessellator_domain": _named(TESSELLATOR_DOMAINS),
    "interpolation_mode": _named(INTERPOLATION_MODES),
    "target_api_type": _named({4: "nvn"}),
    # BNSH version words and pool flags read best in hex (JSON gives them as integers)
    "compiler_version": hex,
    "low_level_compiler_version": hex,
    "memory_pool_property": hex,
    # DKSH offsets into the code section and the fragment state words (register values) in hex
    "entrypoint": hex,
    "constbuf1_off": hex,
    "param_d8": hex,
    "param_65b": hex,
    "param_489": hex,
    "param_c8": hex,
}

#: ``<key>_name`` entries of summaries whose ``<key>`` the text view already shows with its name
NAMED_KEYS = frozenset(f"{key}_name" for key in ENUM_TEXT)


def enum_text(key: str, value: int) -> str | None:
    """``value`` with its name when ``key`` is a known enum, else None."""
    describe = ENUM_TEXT.get(key)
    return describe(value) if describe is not None else None

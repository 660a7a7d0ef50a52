"""``disasm`` for Wii U GSH / SHARCFB: every GX2 program's Latte listing under a gfd-tool-like
header (the text itself is made by ``formats/gx2/listing.py``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shaderkit.formats.gx2.shader import GX2Shader

__all__ = ["apply_listing", "extract_program", "gx2_listing", "replace_program", "split_programs"]

#: the modules whose models hold GX2 shaders; a model of theirs exists only once they are imported,
#: so `disasm` of any other format never loads the Wii U code.
_GX2_MODULES = ("shaderkit.formats.gfd.gsh", "shaderkit.formats.agl.sharcfb")


def split_programs(text: str) -> list[str]:
    """A ``disasm`` listing cut into one text per program (at the ``; ====`` header lines)."""
    from shaderkit.formats.gx2.listing import split_programs as split

    return split(text)


def _titled_shaders(model: object) -> list[tuple[str, GX2Shader]] | None:
    if not any(name in sys.modules for name in _GX2_MODULES):
        return None
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.gfd.gsh import Gsh

    if isinstance(model, Gsh):
        return [(f"shaders[{i}]: {shader.STAGE} shader", shader) for i, shader in enumerate(model.shaders)]
    if isinstance(model, Sharcfb):
        users: dict[int, set[str]] = {}
        for program in model.programs:
            for v in range(min(program.variation_count or 1, len(model.binaries))):
                for stage in range(program.stride):
                    users.setdefault(program.base_index + v * program.stride + stage, set()).add(program.name)
        return [(f"binaries[{i}]: {binary.stage} shader ({', '.join(sorted(users.get(i, ()))) or 'no program'})",
                 binary.shader) for i, binary in enumerate(model.binaries)]
    return None


def gx2_listing(model: object) -> str | None:
    """The text of every GX2 program in a GSH or SHARCFB model; None for other models."""
    shaders = _titled_shaders(model)
    if shaders is None:
        return None
    from shaderkit.formats.gx2 import listing

    return listing.listing(shaders)


def apply_listing(model: object, text: str) -> int:
    """Put the programs of an edited ``disasm`` listing back into a GSH / SHARCFB model."""
    shaders = _titled_shaders(model)
    if shaders is None:
        raise TypeError(f"{type(model).__name__} holds no GX2 shaders")
    from shaderkit.formats.gx2 import listing

    return listing.apply_listing([shader for _, shader in shaders], text)


def _stage_programs(model: object, stage: str) -> list[GX2Shader] | None:
    shaders = _titled_shaders(model)
    if shaders is None:
        return None
    return [shader for _, shader in shaders if shader.STAGE == stage]


def extract_program(model: object, index: int, stage: str) -> bytes | None:
    """The microcode of the ``index``-th ``stage`` shader of a GSH/SHARCFB (file order); None for
    other models. For ``extract FILE --variation N --stage S`` on Wii U files."""
    shaders = _stage_programs(model, stage)
    if shaders is None:
        return None
    if not 0 <= index < len(shaders):
        raise IndexError(f"no {stage} shader {index} (the file has {len(shaders)})")
    return bytes(shaders[index].program)


def replace_program(model: object, index: int, stage: str, code: bytes) -> bytes | None:
    """The file with the ``index``-th ``stage`` shader's microcode replaced (sizes and offsets
    recomputed); None for other models."""
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.gfd.gsh import Gsh

    shaders = _stage_programs(model, stage)
    if shaders is None or not isinstance(model, (Gsh, Sharcfb)):
        return None
    if not 0 <= index < len(shaders):
        raise IndexError(f"no {stage} shader {index} (the file has {len(shaders)})")
    if len(code) % 8:
        raise ValueError(f"Latte microcode is a whole number of 8-byte slots, got {len(code)} bytes")
    shaders[index].program = bytes(code)
    return model.to_bytes()

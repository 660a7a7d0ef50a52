"""Text of Wii U GX2 shaders (GSH, SHARCFB): a header per program like decaf's gfd-tool (stage,
mode, GPRs, registers, uniforms, attributes, samplers, Cemu hash) as ``;`` comments, then the
Latte listing (with ``; shaderkit:`` notes, so each program's text assembles back to its bytes),
and the way back: :func:`apply_listing` puts an edited listing's programs into the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from shaderkit.formats.gx2.shader import GX2GeometryShader, GX2PixelShader, GX2Shader
from shaderkit.formats.gx2.types import GX2ShaderMode, sampler_type_name, var_type_name
from shaderkit.isa.latte import disassemble

#: SQ_PGM_RESOURCES_* fields (R700 register reference): name, lsb, width
_PGM_RESOURCES = (("NUM_GPRS", 0, 8), ("STACK_SIZE", 8, 8), ("DX10_CLAMP", 21, 1),
                  ("FETCH_CACHE_LINES", 24, 3), ("UNCACHED_FIRST_INST", 28, 1))


def _field(out: list[str], name: str, value: object, indent: str = "") -> None:
    out.append(f"; {indent}{name:<30} = {value}")


def _resources(out: list[str], reg_name: str, value: int) -> None:
    out.append(f"; {reg_name.upper()} = 0x{value:08X}")
    for name, lsb, width in _PGM_RESOURCES:
        _field(out, name, value >> lsb & ((1 << width) - 1), "  ")


def _used_count(regs: Any, name: str, value: list[int]) -> int:
    """How many entries of a register array are in use: its NUM_ register, else up to the last
    non-zero entry."""
    for count_name in (f"num_{name}", f"num_{name.rstrip('s')}"):
        count = getattr(regs, count_name, None)
        if isinstance(count, int):
            return min(count, len(value))
    nonzero = [i for i, v in enumerate(value) if v]
    return nonzero[-1] + 1 if nonzero else 0


def shader_header(shader: GX2Shader, title: str) -> list[str]:
    """The gfd-tool-like header lines of one shader (all ``;`` comments)."""
    out = [f"; ==== {title} ===="]
    try:
        mode = GX2ShaderMode(shader.mode).name
    except ValueError:
        mode = str(shader.mode)
    _field(out, "stage", shader.STAGE if hasattr(shader, "STAGE") else "?")
    _field(out, "mode", mode)
    _field(out, "program size", len(shader.program))
    regs: Any = shader.regs
    if regs is not None:
        for reg in fields(regs):
            value = getattr(regs, reg.name)
            if reg.name.startswith("sq_pgm_resources_"):
                _resources(out, reg.name, value)
            elif isinstance(value, list):
                count = _used_count(regs, reg.name, value)
                for i, item in enumerate(value[:count]):
                    _field(out, f"{reg.name.upper()}[{i}]", f"0x{item:08X}")
            elif reg.name.startswith("num_"):
                _field(out, reg.name.upper(), value)
            else:
                _field(out, reg.name.upper(), f"0x{value:08X}")
    for i, block in enumerate(shader.uniform_blocks):
        out.append(f"; uniformBlocks[{i}] name={block.name} offset={block.offset} size={block.size}")
    for i, var in enumerate(shader.uniform_vars):
        out.append(f"; uniformVars[{i}] name={var.name} type={var_type_name(var.type)} count={var.count} "
                   f"offset={var.offset} block={var.block}")
    for i, init in enumerate(shader.initial_values):
        values = " ".join(f"0x{v:08X}" for v in init.value_bits)
        out.append(f"; initialValues[{i}] value={values} offset={init.offset}")
    for i, loop in enumerate(shader.loop_vars):
        out.append(f"; loopVars[{i}] offset={loop.offset} value=0x{loop.value:08X}")
    for i, sampler in enumerate(shader.sampler_vars):
        out.append(f"; samplerVars[{i}] name={sampler.name} type={sampler_type_name(sampler.type)} "
                   f"location={sampler.location}")
    for i, attrib in enumerate(shader.attrib_vars):
        out.append(f"; attribVars[{i}] name={attrib.name} type={var_type_name(attrib.type)} "
                   f"count={attrib.count} location={attrib.location}")
    if not isinstance(shader, GX2PixelShader):
        _field(out, "ringItemSize", shader.ring_item_size)
        _field(out, "hasStreamOut", shader.has_stream_out)
    elif regs is not None and shader.program:
        from shaderkit.isa.latte.cemu import pixel_base_hash

        base = pixel_base_hash(shader.program, regs.spi_ps_in_control_0, regs.spi_ps_input_cntls)
        _field(out, "Cemu base hash", f"{base:016x} (no geometry shader)")
    return out


#: ``marker(offset, words)`` of :func:`shaderkit.isa.latte.disassemble` (``disasm --offsets --raw``)
Marker = Callable[[int, Sequence[int]], str]


def copy_title(title: str) -> str:
    """The title of a geometry shader's copy (vertex) program, after the shader titled ``title``."""
    return f"{title}: copy (vertex) program"


def _program_text(code: bytes, marker: Marker | None = None) -> str:
    return disassemble(code, marker=marker) if code else "; (no program)\n"


def shader_listing(shader: GX2Shader, title: str, extra: Sequence[str] = (), marker: Marker | None = None) -> str:
    """Header (plus ``extra`` comment lines, e.g. a container's reflection), then the program
    (``marker``: see :func:`shaderkit.isa.latte.disassemble`)."""
    text = "\n".join([*shader_header(shader, title), *extra]) + "\n\n" + _program_text(shader.program, marker)
    if isinstance(shader, GX2GeometryShader) and shader.vertex_program:
        text += (f"\n; ==== {copy_title(title)} ====\n\n"
                 + _program_text(shader.vertex_program, marker))
    return text


def listing(shaders: list[tuple[str, GX2Shader]], marker: Marker | None = None) -> str:
    """The text of several shaders, each under its ``; ==== title ====`` header."""
    parts = [shader_listing(shader, title, marker=marker) for title, shader in shaders]
    return "\n".join(parts) if parts else "; no shader programs\n"


def split_programs(text: str) -> list[str]:
    """A ``disasm`` listing cut into one text per program (at the ``; ====`` header lines)."""
    parts: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("; ===="):
            parts.append([])
        elif parts:
            parts[-1].append(line)
    return ["\n".join(part) + "\n" for part in parts]


def program_slots(shaders: list[GX2Shader]) -> list[tuple[GX2Shader, str]]:
    """(shader, attribute) of every program a listing of these shaders shows, in listing order."""
    slots: list[tuple[GX2Shader, str]] = []
    for shader in shaders:
        slots.append((shader, "program"))
        if isinstance(shader, GX2GeometryShader) and shader.vertex_program:
            slots.append((shader, "vertex_program"))
    return slots


def apply_listing(shaders: list[GX2Shader], text: str) -> int:
    """Assemble an (edited) listing of these shaders and put each program back in place;
    returns how many programs changed. The listing must hold the same programs in the same order."""
    from shaderkit.errors import AssemblyError
    from shaderkit.isa.latte import assemble

    slots = program_slots(shaders)
    texts = split_programs(text)
    if len(texts) != len(slots):
        raise AssemblyError(f"the listing has {len(texts)} programs, the file {len(slots)}")
    # the line number of each program's title, so that errors name lines of the whole listing
    titles = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("; ====")]
    changed = 0
    for (shader, attr), program_text, title in zip(slots, texts, titles):
        if program_text.strip() == "; (no program)":
            continue
        try:
            code = assemble(program_text)
        except AssemblyError as exc:
            raise exc.moved(title) from None
        if code != getattr(shader, attr):
            setattr(shader, attr, code)
            changed += 1
    return changed

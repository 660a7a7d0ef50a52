"""The GX2 programs of Wii U GSH / SHARCFB / BFSHA models: every program's Latte listing under a
gfd-tool-like header (their ``disassemble()``; the text itself is made by :mod:`.listing`), the
way back from an edited listing, and ``extract`` / ``replace`` of one program's microcode."""

from __future__ import annotations

from typing import Any

from shaderkit.formats.gx2 import listing
from shaderkit.formats.gx2.listing import split_programs
from shaderkit.formats.gx2.shader import GX2GeometryShader, GX2PixelShader, GX2Shader, GX2VertexShader
from shaderkit.formats.gx2.types import var_type_name

__all__ = ["apply_listing", "extract_program", "gx2_listing", "replace_program", "split_programs"]


def gsh_shaders(model: Any) -> list[tuple[str, GX2Shader]]:
    """A GSH's shaders, each titled as its listing titles it."""
    return [(f"shaders[{i}]: {shader.STAGE} shader", shader) for i, shader in enumerate(model.shaders)]


def sharcfb_shaders(model: Any) -> list[tuple[str, GX2Shader]]:
    """A SHARCFB's binaries, each titled with the programs that use it."""
    users: dict[int, set[str]] = {}
    for program in model.programs:
        for v in range(min(program.variation_count or 1, len(model.binaries))):
            for stage in range(program.stride):
                users.setdefault(program.base_index + v * program.stride + stage, set()).add(program.name)
    return [(f"binaries[{i}]: {binary.stage} shader ({', '.join(sorted(users.get(i, ()))) or 'no program'})",
             binary.shader) for i, binary in enumerate(model.binaries)]


def _titled_shaders(model: object) -> list[tuple[str, GX2Shader]] | None:
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.gfd.gsh import Gsh

    if isinstance(model, Gsh):
        return gsh_shaders(model)
    if isinstance(model, Sharcfb):
        return sharcfb_shaders(model)
    bfsha = _bfsha_shaders(model)
    return None if bfsha is None else [(title, shader) for title, shader, _ in bfsha]


#: BFSHA stage -> GX2 struct class
_BFSHA_STAGES: dict[str, type[GX2Shader]] = {"vertex": GX2VertexShader, "geometry": GX2GeometryShader,
                                             "pixel": GX2PixelShader}


def _bfsha_shaders(model: object) -> list[tuple[str, GX2Shader, list[str]]] | None:
    """:func:`bfsha_sections` of a Wii U BFSHA model, None for other models."""
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha

    return bfsha_sections(model) if isinstance(model, WiiUBfsha) else None


def bfsha_sections(model: Any) -> list[tuple[str, GX2Shader, list[str]]]:
    """A Wii U BFSHA's distinct GX2 structs (file order) as :func:`_bfsha_section` gives each."""
    users = model.shader_users()
    return [_bfsha_section(model, i, users.get(i, [])) for i in range(len(model.shaders))]


def _bfsha_section(bfsha: Any, i: int, users: list[tuple[Any, Any, str]]) -> tuple[str, GX2Shader, list[str]]:
    """GX2 struct ``i`` of a Wii U BFSHA as a GX2 shader view, titled with the programs
    (``MODEL/PROGRAM``) that use it (``users``: as :meth:`WiiUBfsha.shader_users` gives them) and
    with their reflection (the shading model's samplers, uniform blocks and attributes at this
    stage's locations) as extra header lines."""
    from shaderkit.formats.bfsha.wiiu import program_names

    shader = bfsha.shaders[i]
    cls = _BFSHA_STAGES[shader.stage]
    view = cls(regs=shader.regs, program=shader.program, mode=shader.mode, vertex_program=shader.copy_program)
    if cls is GX2VertexShader and len(shader.tail_words) >= 14:  # after mode: 6 arrays, ring size, stream out
        view.ring_item_size, view.has_stream_out = shader.tail_words[12], shader.tail_words[13]
    names = program_names(users)
    extra: list[str] = []
    seen: set[str] = set()
    for shading, program, _ in users:
        lines = _bfsha_reflection(shading, program, shader.stage)
        key = "\n".join(lines)
        if key in seen:
            continue
        seen.add(key)
        extra.append(f"; reflection of {shading.name}/{program.index} (shading model {shading.name}):")
        extra += lines
    title = f"shaders[{i}]: {shader.stage} shader ({', '.join(names) or 'no program'})"
    return title, view, extra


def _bfsha_reflection(shading: Any, program: Any, stage: str) -> list[str]:
    """The reflection lines of :func:`~shaderkit.formats.bfsha.wiiu_stage.stage_reflection`."""
    from shaderkit.formats.bfsha.wiiu_stage import stage_reflection

    found = stage_reflection(shading, program, stage)
    return ([f";   samplers[{s.index}] name={s.name} location={s.location}" for s in found["samplers"]]
            + [f";   uniformBlocks[{b.index}] name={b.name} size={b.size} location={b.location}"
               for b in found["uniform_blocks"]]
            + [f";   attributes[{a.index}] name={a.name} type={var_type_name(a.type)} location={a.location}"
               for a in found["attributes"]])


def is_stage(model: object) -> bool:
    """A single GX2 program opened as a member of its archive (a Wii U BFSHA's
    ``MODEL/PROGRAM/STAGE``: :class:`~shaderkit.formats.bfsha.wiiu_stage.WiiUBfshaStage`)."""
    return getattr(model, "format_name", "") == "gx2-microcode"


def latte_codes(model: object) -> list[tuple[str, bytes]] | None:
    """(title, microcode) of every program a GSH / SHARCFB / Wii U BFSHA model (or one BFSHA
    stage) lists, in listing order (a geometry shader's copy program after it); None for others."""
    if is_stage(model):
        return [(model.title, model.code)]  # type: ignore[attr-defined]
    if not is_wiiu(model):
        return None
    out = []
    for title, shader in _titled_shaders(model) or []:
        for _, attr in listing.program_slots([shader]):
            out.append((title if attr == "program" else listing.copy_title(title), getattr(shader, attr)))
    return out


def gx2_listing(model: object, marker: listing.Marker | None = None) -> str | None:
    """The text of every GX2 program in a GSH, SHARCFB or Wii U BFSHA model (or of one BFSHA
    stage); None for other models (``marker``: text ending each instruction line, see
    :func:`shaderkit.isa.latte.disassemble`)."""
    if is_stage(model):
        return model.listing(marker)  # type: ignore[attr-defined]
    bfsha = _bfsha_shaders(model)
    if bfsha is not None:
        return _sections_text(bfsha, marker)
    shaders = _titled_shaders(model)
    return None if shaders is None else listing.listing(shaders, marker)


def bfsha_listing(model: Any, marker: listing.Marker | None = None) -> str:
    """The text of every distinct GX2 struct of a Wii U BFSHA (see :func:`_bfsha_section`)."""
    return _sections_text(bfsha_sections(model), marker)


def _sections_text(sections: list[tuple[str, GX2Shader, list[str]]], marker: listing.Marker | None) -> str:
    parts = [listing.shader_listing(shader, title, extra, marker) for title, shader, extra in sections]
    return "\n".join(parts) if parts else "; no shader programs\n"


def apply_listing(model: object, text: str) -> int:
    """Put the programs of an edited ``disasm`` listing back into a GSH / SHARCFB / Wii U BFSHA model
    (or one BFSHA stage)."""
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha

    if is_stage(model):
        return int(model.apply_listing(text))  # type: ignore[attr-defined]
    shaders = _titled_shaders(model)
    if shaders is None:
        raise TypeError(f"{type(model).__name__} holds no GX2 shaders")
    views = [shader for _, shader in shaders]
    changed = listing.apply_listing(views, text)
    if isinstance(model, WiiUBfsha):  # the views are copies: their programs go back to the archive
        for shader, view in zip(model.shaders, views):
            shader.program = view.program
            shader.copy_program = view.vertex_program
    return changed


WIIU_STAGES = ("vertex", "pixel", "geometry")


def is_wiiu(model: object) -> bool:
    """A GSH, SHARCFB or Wii U BFSHA model (microcode reached by ``--variation``/``--stage``)."""
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha
    from shaderkit.formats.gfd.gsh import Gsh

    return isinstance(model, (Gsh, Sharcfb, WiiUBfsha))


def _stage_shader(model: object, index: int, stage: str, name: str | None) -> Any:
    """The shader whose microcode ``--variation index --stage stage [--name name]`` means:

    - GSH: the ``index``-th ``stage`` shader in file order;
    - SHARCFB: with ``name``, binary ``base + index * stride + stage`` of program ``name``
      (``index`` is the variation number ``shaderkit variation`` prints); without, the
      ``index``-th ``stage`` binary in file order (the same for a one-program archive);
    - Wii U BFSHA: the ``stage`` shader of program ``index`` of shading model ``name`` (may be
      left out when the archive has one model).
    """
    from shaderkit.formats.agl.sharcfb import Sharcfb
    from shaderkit.formats.bfsha.wiiu import WiiUBfsha

    if stage not in WIIU_STAGES:
        raise KeyError(f"Wii U shaders have the stages {', '.join(WIIU_STAGES)}, not {stage}")
    if isinstance(model, WiiUBfsha):
        if name is None:
            if len(model.models) != 1:
                raise KeyError(f"--name MODEL is needed (models: {', '.join(m.name for m in model.models)})")
            name = model.models[0].name
        return model.shaders[model.program_stage(name, index, stage)[0]]
    if isinstance(model, Sharcfb) and name is not None:
        program = model.programs[name]
        slot = WIIU_STAGES.index(stage)
        if slot >= program.stride:
            raise KeyError(f"program {name} has no {stage} shader")
        if not 0 <= index < program.variation_count:
            raise IndexError(f"program {name} has variations 0..{program.variation_count - 1}, not {index}")
        return model.binaries[program.base_index + index * program.stride + slot].shader
    titled = _titled_shaders(model)
    if titled is None:
        return None
    shaders = [shader for _, shader in titled if shader.STAGE == stage]
    if not 0 <= index < len(shaders):
        raise IndexError(f"no {stage} shader {index} (the file has {len(shaders)})")
    return shaders[index]


def extract_program(model: object, index: int, stage: str, name: str | None = None) -> bytes | None:
    """The microcode of the shader :func:`_stage_shader` names; None for models that are not
    GSH, SHARCFB or Wii U BFSHA. For ``extract FILE --variation N --stage S`` on Wii U files."""
    shader = _stage_shader(model, index, stage, name) if is_wiiu(model) else None
    return None if shader is None else bytes(shader.program)


def replace_program(model: object, index: int, stage: str, code: bytes, name: str | None = None) -> bytes | None:
    """The file with that shader's microcode replaced (sizes and offsets recomputed, everything
    else in place); None for other models."""
    shader = _stage_shader(model, index, stage, name) if is_wiiu(model) else None
    if shader is None:
        return None
    if len(code) % 8:
        raise ValueError(f"Latte microcode is a whole number of 8-byte slots, got {len(code)} bytes")
    shader.program = bytes(code)
    data: bytes = model.to_bytes()  # type: ignore[attr-defined]
    return data

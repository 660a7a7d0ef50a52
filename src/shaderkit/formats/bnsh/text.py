"""Maxwell text for Switch shader files (BNSH, raw NVN program blobs, deko3d DKSH modules): every
variation and stage (DKSH: program) with its SPH decoded, and assembled code put back into a stage."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from shaderkit.errors import ShaderFormatError

if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.nvn import ShaderProgramHeader

# SPH fields shown besides the maps (every CommonWord field that is set)
_SPH_SKIP = {"maps", "sph_type", "shader_type"}


def sph_text(sph: ShaderProgramHeader) -> list[str]:
    """Comment lines describing a Shader Program Header."""
    from shaderkit.formats.bnsh.nvn import PsMaps, VtgMaps

    lines = [f"// SPH: {sph.sph_type_name}, {sph.shader_type_name} shader, version {sph.version}, "
             f"sass version {sph.sass_version}"]
    fields = [f"{name}={value:#x}" for name, value in vars(sph).items()
              if name not in _SPH_SKIP and name != "version" and name != "sass_version" and value]
    if fields:
        lines.append("// SPH fields: " + ", ".join(fields))
    maps = sph.maps
    if isinstance(maps, VtgMaps):
        lines.append(f"// SPH inputs: {' '.join(maps.input_attributes()) or '-'}; "
                     f"outputs: {' '.join(maps.output_attributes()) or '-'}")
        lines.append(f"// SPH system values in: a={maps.imap_system_values_a.hex()} b={maps.imap_system_values_b:#x}"
                     f" c={maps.imap_system_values_c:#x}; out: a={maps.omap_system_values_a.hex()}"
                     f" b={maps.omap_system_values_b:#x} c={maps.omap_system_values_c:#x}")
    elif isinstance(maps, PsMaps):
        lines.append(f"// SPH inputs (generic attributes): {' '.join(maps.input_attributes()) or '-'}; "
                     f"render targets: {' '.join(maps.output_attributes()) or '-'}; "
                     f"sample mask {int(maps.omap_sample_mask)}, depth {int(maps.omap_depth)}")
        lines.append(f"// SPH interpolation map: {maps.imap_generic_vector.hex()}")
    return lines


#: ``marker(offset, words)`` of :func:`shaderkit.isa.maxwell.disassemble` (``disasm --offsets --raw``)
Marker = Callable[[int, Sequence[int]], str]


def stage_text(title: str, data: bytes, hex_literals: bool = False, marker: Marker | None = None,
               code_offset: int | None = None) -> str:
    """Text of one NVN stage blob: the decoded SPH as comments (a compute program has none), then
    its Maxwell code (``hex_literals``: float immediates as field bits in hex; ``marker``: see
    ``disassemble``; ``code_offset``: a compute program's code start, from its control section)."""
    from shaderkit.formats.bnsh.nvn import NVN_HEADER_SIZE, NvnCode

    try:
        nvn = NvnCode.from_bytes(data, program_offset=code_offset)
    except ShaderFormatError as exc:  # not NVN code: say so and go on with the other stages
        return f"// ==== {title}: no Maxwell code here ({exc.message})\n"
    notes = [] if nvn.sph is not None else [
        f"// compute program (no SPH): code at {NVN_HEADER_SIZE + len(nvn.prefix):#x} of the stage data"]
    return _section(title, notes, nvn.sph, nvn.code, hex_literals, marker)


def _section(title: str, notes: list[str], sph: ShaderProgramHeader | None, code: bytes, hex_literals: bool,
             marker: Marker | None) -> str:
    """``// ==== title``, the ``notes`` lines, the SPH comments (none without one), then the
    Maxwell text of ``code``."""
    from shaderkit.isa.maxwell import disassemble

    lines = [f"// ==== {title}", *notes, *(sph_text(sph) if sph is not None else ())]
    return "\n".join(lines) + "\n" + disassemble(code, hex_literals, marker)


def dksh_listing(model: Any, hex_literals: bool = False, marker: Marker | None = None) -> str:
    """Text of every program of a deko3d module: the same SPH comments and Maxwell text as a BNSH
    stage, under ``// ==== program N stage``."""
    out = []
    for index, program in enumerate(model.programs):
        head = program.header
        note = (f"// DKSH: entrypoint {head.entrypoint:#x}, code at {program.code_offset:#x} of the code section, "
                f"{head.num_gprs} GPRs"
                + (f", constbuf1 {head.constbuf1_sz:#x} bytes at {head.constbuf1_off:#x}" if head.constbuf1_sz else ""))
        out.append(_section(model.program_title(index), [note], program.sph, program.code, hex_literals, marker))
    return "\n".join(out)


def maxwell_listing(model: ShaderFile, hex_literals: bool = False, marker: Marker | None = None) -> str | None:
    """Text of every Maxwell stage in a BNSH, NVN program blob or DKSH module; None for other formats."""
    listing = _LISTINGS.get(model.format_name)  # (a model of another format: no Switch code loads)
    return None if listing is None else listing(model, hex_literals, marker)


def bnsh_listing(model: Bnsh, hex_literals: bool = False, marker: Marker | None = None) -> str:
    """Text of every stage of every variation of a BNSH (``// ==== variation V KIND STAGE``)."""
    from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
    from shaderkit.formats.bnsh.nvn import control_program_offset

    out: list[str] = []
    for v, variation in enumerate(model.variations):
        for kind, program in variation.programs():
            for stage, code in zip(STAGES, program.stages):
                if code is None:
                    continue
                title = f"variation {v} {kind} {stage}"
                if isinstance(code, NvnShaderCode):
                    out.append(stage_text(title, code.data, hex_literals, marker, control_program_offset(code.control)))
                else:
                    out.append(f"// ==== {title}: {type(code).__name__} (no Maxwell code)\n")
    return "\n".join(out)


def nvn_listing(model: Any, hex_literals: bool = False, marker: Marker | None = None) -> str:
    """Text of every code part of a raw NVN program blob (``// ==== part N``)."""
    from shaderkit.formats.bnsh.nvn import is_code

    return "\n".join(stage_text(f"part {index}", part, hex_literals, marker)
                     for index, part in enumerate(model.parts) if is_code(part))


#: the listing of each Switch format (by its registry id)
_LISTINGS: dict[str, Callable[..., str]] = {"bnsh": bnsh_listing, "nvn": nvn_listing, "dksh": dksh_listing}


def replace_stage_code(model: Bnsh, variation: int, stage: str, code: bytes) -> None:
    """Put assembled Maxwell code into a BNSH stage (binary program), keeping its NVN header and
    SPH (a compute program: the bytes before its code); the data grows or shrinks with the code."""
    from dataclasses import replace

    from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
    from shaderkit.formats.bnsh.nvn import NvnCode, control_program_offset

    old = model.stage_code(variation, stage)
    if not isinstance(old, NvnShaderCode):
        raise ValueError(f"variation {variation} {stage} has no binary (Maxwell) code")
    nvn = NvnCode.from_bytes(old.data, program_offset=control_program_offset(old.control))
    new_data = replace(nvn, code=code).to_bytes()
    program = model.program(variation)
    program.stages[STAGES.index(stage)] = NvnShaderCode(
        old.control, new_data, old.data_address, old.scratch_memory_recommended, old.scratch_memory_per_warp,
        old.reserved)


def _sections(text: str) -> dict[str, tuple[int, list[str]]]:
    """Each section of a multi-stage listing by title (the ``// ==== title`` header up to a ``:``):
    the line number of its header and its lines up to the next header."""
    sections: dict[str, tuple[int, list[str]]] = {}
    current: list[str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("// ==== "):
            current = sections.setdefault(line[8:].split(":")[0].strip(), (number, []))[1]
        elif current is not None:
            current.append(line)
    return sections


def listing_sections(text: str) -> dict[str, str]:
    """The sections of a multi-stage listing by title (the ``// ==== title`` header up to a ``:``),
    each the text of its lines up to the next header; empty when the text has no headers."""
    return {title: "\n".join(lines) + "\n" for title, (_, lines) in _sections(text).items()}


def stage_section(text: str, title: str) -> str:
    """The part of a multi-stage listing (``// ==== title`` headers) for one stage; the whole text
    when it has no headers."""
    return _stage_source(text, title)[1]


def _stage_source(text: str, title: str) -> tuple[int, str]:
    """(line number of its header, text) of :func:`stage_section` (0 for the whole text)."""
    sections = _sections(text)
    if not sections:
        return 0, text
    if title not in sections:
        raise ValueError(f"the listing has no '{title}' section (it has: {', '.join(sections)})")
    header, lines = sections[title]
    return header, "\n".join(lines) + "\n"


def code_slots(base: ShaderFile) -> dict[str, tuple[int, str]]:
    """``title -> (index, stage)`` of every stage holding Maxwell code, titled as the listing titles
    it (BNSH: binary programs by variation; NVN blob: code parts, stage ""; DKSH: programs)."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import STAGES, NvnShaderCode
    from shaderkit.formats.bnsh.nvn import NvnProgramFile, is_code

    if isinstance(base, Bnsh):
        return {f"variation {v} binary {stage}": (v, stage)
                for v, variation in enumerate(base.variations) if variation.binary_program is not None
                for stage, code in zip(STAGES, variation.binary_program.stages) if isinstance(code, NvnShaderCode)}
    if isinstance(base, NvnProgramFile):
        return {f"part {index}": (index, "") for index, part in enumerate(base.parts) if is_code(part)}
    if base.format_name == "dksh":
        from shaderkit.formats.dksh.dksh import Dksh

        assert isinstance(base, Dksh)
        return {base.program_title(i): (i, program.stage) for i, program in enumerate(base.programs)}
    raise ValueError(f"{base.format_name}: Maxwell text goes into a BNSH file, an NVN program blob or a DKSH "
                     "module (--base also takes DXBC, D3D9 and Wii U files; PICA200 sources need no --base)")


def _put_code(base: ShaderFile, index: int, stage: str, code: bytes) -> None:
    """Put assembled code into the stage :func:`code_slots` names ``(index, stage)``."""
    from dataclasses import replace

    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.nvn import NvnCode, NvnProgramFile

    if isinstance(base, Bnsh):
        replace_stage_code(base, index, stage, code)
    elif isinstance(base, NvnProgramFile):
        base.parts[index] = replace(NvnCode.from_bytes(base.parts[index]), code=code).to_bytes()
    else:
        base.programs[index].code = code  # type: ignore[attr-defined]  # (DKSH: code_slots checked the type)


def assemble_into(base: ShaderFile, text: str, variation: int, stage: str) -> bytes:
    """``base`` rebuilt with the Maxwell code assembled from ``text`` in place of one stage's code
    (BNSH: variation and stage; NVN program blob: ``variation`` is the part index; DKSH: see
    :func:`dksh_program`)."""
    from shaderkit.formats.bnsh.bnsh import Bnsh
    from shaderkit.formats.bnsh.model import STAGES

    slots = code_slots(base)
    if isinstance(base, Bnsh):
        if not 0 <= variation < len(base.variations):
            raise ValueError(f"variation {variation} does not exist ({len(base.variations)} variations)")
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r} (one of {', '.join(STAGES)})")
        title = f"variation {variation} binary {stage}"
        if title not in slots:
            raise ValueError(f"variation {variation} {stage} has no binary (Maxwell) code")
    elif base.format_name == "dksh":
        title = base.program_title(dksh_program(base, stage, variation))  # type: ignore[attr-defined]
    else:
        title = f"part {variation}"
        if title not in slots:
            raise ValueError(f"part {variation} is not NVN code")
    header, source = _stage_source(text, title)
    _put_code(base, *slots[title], _assembled(source, header))
    return base.to_bytes()


def assemble_listing(base: ShaderFile, text: str) -> bytes:
    """``base`` rebuilt with every stage of a whole (edited) ``disasm`` listing assembled back: each
    ``// ==== title`` section that holds code goes to the stage of that title. A section naming
    no stage of ``base`` is a ValueError; stages the listing leaves out keep their code."""
    slots = code_slots(base)
    for title, (header, lines) in _sections(text).items():
        if not any(line.strip() and not line.lstrip().startswith("//") for line in lines):
            continue  # a stage without Maxwell code (source, IL) or an empty section
        if title not in slots:
            raise ValueError(f"the listing's section '{title}' names no stage with Maxwell code "
                             f"(the base has: {', '.join(slots) or 'none'})")
        _put_code(base, *slots[title], _assembled("\n".join(lines) + "\n", header))
    return base.to_bytes()


def _assembled(source: str, header: int) -> bytes:
    """The code of a section's text (or of a whole text without sections, ``header`` 0); an
    AssemblyError counts lines of the whole text (``header``: the section header's line number)."""
    from shaderkit.errors import AssemblyError
    from shaderkit.isa.maxwell import assemble

    try:
        return assemble(source)
    except AssemblyError as exc:
        raise exc.moved(header) from None


def dksh_program(base: Any, stage: str, index: int) -> int:
    """The DKSH program ``--stage``/``--variation`` pick: a module with one program needs neither
    (``--stage`` may still name its stage, in deko3d's, uam's or BNSH's words); otherwise ``--stage``
    names the stage, or ``--variation`` gives the program index when ``--stage`` is left at pixel."""
    programs = base.programs
    if not programs:
        raise ValueError("the DKSH module has no programs")
    from shaderkit.formats.dksh.model import DKSH_STAGE_OF

    name = DKSH_STAGE_OF.get(stage, stage)
    if index:
        return base.program_by_stage(str(index))
    if len(programs) == 1 and stage == "pixel":  # (the default --stage: the module's only program)
        return 0
    return base.program_by_stage(name)


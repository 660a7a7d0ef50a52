"""SHBIN files from assembled PICA200 programs, laid out as picasso lays them out.

:func:`program_to_dvlb` turns the assembler's :class:`Program` into the container model
(:class:`~shaderkit.formats.dvlb.dvlb.Dvlb`), whose canonical writer is picasso's layout: DVLB
header, DVLP header (40 bytes) + code + descriptors, then per DVLE its header and constant, (empty)
label, output, uniform and symbol tables, padded to 4 bytes.
"""

from __future__ import annotations

from shaderkit.errors import AssemblyError
from shaderkit.formats.dvlb.dvlb import (
    DVLE_VERSION_PICASSO,
    Constant,
    Dvlb,
    Dvle,
    Dvlp,
    Label,
    OperandDescriptor,
    Output,
    Uniform,
)
from shaderkit.formats.dvlb.rules import LAYOUT_RULES, RuleMismatch, write_with_rule
from shaderkit.isa.pica.assembler import CONST_BOOL, CONST_FVEC, Program, assemble, split_units
from shaderkit.isa.pica.table import SPACE_OF_KIND

TYPE_CHECKING = False  # (typing loads only for type checkers)
if TYPE_CHECKING:
    from shaderkit.formats.base import ShaderFile


def _constant(kind: int, reg: int, values: tuple[int, ...]) -> Constant:
    index = reg - SPACE_OF_KIND[kind].base
    if kind == CONST_FVEC:
        x, y, z, w = values  # already float24 words
        return Constant(kind, index, (x, y, z, w))
    if kind == CONST_BOOL:
        return Constant.boolean(index, bool(values[0]))
    x, y, z, w = values
    return Constant.ivec(index, x, y, z, w)


def program_to_dvlb(program: Program) -> Dvlb:
    """The container model of an assembled program (no recorded layout: picasso's is used)."""
    dvles = []
    for data in program.emitted_dvles:
        dvle = Dvle(
            shader_type=1 if data.is_geo else 0,
            main_offset=data.entry_start,
            endmain_offset=data.entry_end,
            version=DVLE_VERSION_PICASSO,
            merge_outmaps=1 if data.is_merge else 0,
            input_mask=data.input_mask,
            output_mask=data.output_mask,
            gs_mode=data.gsh_mode,
            gs_fixed_vertex_start=data.gsh_fixed_start,
            gs_variable_vertex_num=data.gsh_variable_num,
            gs_fixed_vertex_num=data.gsh_fixed_num,
        )
        dvle.constants = [_constant(c.kind, c.reg, c.values) for c in data.constants]
        dvle.outputs = [Output(o.semantic, o.reg, o.mask) for o in data.outputs]
        # picasso writes "$" in identifiers as "." in the symbol table
        dvle.uniforms = [Uniform(u.name.replace("$", "."), u.index, u.index + u.size - 1)
                         for u in data.table_uniforms()]
        # shaderkit pragmas: header fields and label entries of files picasso did not make
        for key, value in data.overrides.items():
            setattr(dvle, key, value)
        dvle.labels = [Label(lid, offset, name, unknown) for lid, offset, name, unknown in data.labels]
        dvles.append(dvle)
    dvlp = Dvlp(code=list(program.code), opdescs=[OperandDescriptor(d & 0xFFFFFFFF, d >> 32) for d in program.opdescs])
    return Dvlb(dvlp=dvlp, dvles=dvles)


def program_to_shbin(program: Program) -> bytes:
    """Serialise an assembled program as picasso does, or by the rule a layout pragma names."""
    model = program_to_dvlb(program)
    if not program.layout_rule:
        return model.to_bytes()
    filename, line, column = program.layout_rule_at
    try:
        return write_with_rule(model, program.layout_rule, program.layout_symbols)
    except KeyError:
        raise AssemblyError(f"unknown layout {program.layout_rule!r} (known: {', '.join(LAYOUT_RULES)})",
                            line, column, filename) from None
    except RuleMismatch as exc:
        raise AssemblyError(str(exc), line, column, filename) from None


def assemble_program(sources: list[tuple[str, str]], no_nop: bool = False) -> Program:
    """``(filename, text)`` pairs -> the assembled program; each file (or marked unit) is one DVLE.
    ``no_nop``: no automatic padding NOPs (picasso's ``-n``)."""
    units: list[tuple[str, str]] = []
    for filename, text in sources:
        units.extend(split_units(text, filename))
    return assemble(units, no_nop)


def assemble_sources(sources: list[tuple[str, str]], no_nop: bool = False) -> bytes:
    """``(filename, text)`` pairs -> SHBIN bytes; each file (or marked unit) is one DVLE."""
    return program_to_shbin(assemble_program(sources, no_nop))


def assemble_into(model: ShaderFile, text: str, filename: str = "<source>", no_nop: bool = False) -> ShaderFile:
    """``text`` (the ``shaderkit disasm`` text of a SHBIN, CGFX or CSDR file, edited) assembled
    into ``model``: a SHBIN's DVLEs, each shader of a CGFX (its ``; shader NAME`` part, in order),
    a CSDR's payload; the rest of the file stays as it was. AssemblyError for bad text, line
    numbers those of ``text``."""
    from shaderkit.formats.dvlb.cgfx import SHADER_LINE, Cgfx
    from shaderkit.formats.dvlb.csdr import Csdr

    if isinstance(model, Csdr):
        model.payload = assemble_into(model.payload, text, filename, no_nop)
        return model
    if isinstance(model, Dvlb):
        return Dvlb.from_bytes(assemble_sources([(filename, text)], no_nop))
    if not isinstance(model, Cgfx):
        raise ValueError(f"{model.format_name}: PICA200 text goes into a SHBIN, CGFX or CSDR file")
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(SHADER_LINE)]
    shaders = [shader for shader in model.shaders if shader.dvlb is not None]
    stray = next((i for i, line in enumerate(lines[: starts[0] if starts else len(lines)])
                  if line.strip() and not line.lstrip().startswith(";")), None)
    if stray is not None:  # (text no part takes would be dropped without a word)
        raise AssemblyError(f"text before the first '{SHADER_LINE}NAME' line", stray + 1, 1, filename)
    if len(starts) != len(shaders):
        names = ", ".join(shader.name for shader in shaders)
        raise AssemblyError(f"the CGFX holds {len(shaders)} shader programs ({names}); the text has "
                            f"{len(starts)} '{SHADER_LINE}NAME' parts", starts[-1] + 1 if starts else 1, 1, filename)
    for shader, lo, hi in zip(shaders, starts, [*starts[1:], len(lines)]):
        name = lines[lo][len(SHADER_LINE):].rstrip("\r")
        if name != shader.name:
            raise AssemblyError(f"expected the part of shader {shader.name!r}, found {name!r}", lo + 1, 1, filename)
        part = "\n".join([""] * lo + lines[lo:hi])  # (line numbers stay those of the whole text)
        shader.dvlb = Dvlb.from_bytes(assemble_sources([(filename, part)], no_nop))
    return model

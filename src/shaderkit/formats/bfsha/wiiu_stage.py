"""One stage of a Wii U BFSHA program as a file model: the member ``FILE.bfsha//MODEL/PROGRAM/STAGE``.

The member's bytes are bare Latte microcode (no header, no magic), so nothing in them says what
they are; the archive does: its GX2 shader struct (stage, registers, mode) and its shading model's
reflection (samplers, uniform blocks and attributes at this stage's locations in the program).
:class:`WiiUBfshaStage` keeps the microcode with that context, so a member opens like a file: its
``disassemble()`` is the section ``disasm`` prints for that shader in the whole archive, its
``summary()`` names the shader and its reflection, :meth:`WiiUBfshaStage.vm_shader` gives the GX2
view the Latte VM runs (inputs and uniform blocks by the reflection's names), and
:meth:`~WiiUBfshaStage.problems` checks that the listing assembles back to the same bytes.
``to_bytes()`` is the microcode (what the archive stores for the member).

``geometry_copy`` names a geometry shader's copy (vertex) program, as the member list does.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bfsha.wiiu import COPY, STAGES, program_names

#: column of each stage in a program's location triples (VS, GS, PS)
_COLUMNS = {stage: column for column, stage in enumerate(STAGES)}


@dataclass
class StageResource:
    """A sampler, uniform block or attribute of the shading model, where this stage finds it."""

    #: index in the shading model's table
    index: int
    name: str
    #: GX2 type (attributes: GX2VarType, samplers: as the archive stores it)
    type: int
    location: int
    #: uniform blocks: size in bytes; attributes: array count
    size: int = 0


@dataclass(repr=False)  # compact repr from ShaderFile
class WiiUBfshaStage(ShaderFile):
    """The microcode of one stage of a Wii U BFSHA program, with the archive's context for it."""

    format_name: ClassVar[str] = "gx2-microcode"

    #: the archive the member belongs to (shared with it: shaders are views into it)
    bfsha: Any = field(repr=False, compare=False)
    #: shading model name and program index (``""``, -1 for a struct no program uses)
    model: str
    program: int
    #: vertex, geometry, pixel or geometry_copy
    stage: str
    #: index of the GX2 struct in :attr:`WiiUBfsha.shaders` (``shaders[N]`` of ``disasm``)
    shader_index: int
    #: the Latte microcode
    code: bytes = field(repr=False)

    @classmethod
    def from_bytes(cls, data: bytes) -> WiiUBfshaStage:
        """Bare microcode says nothing of its stage or registers: always ShaderFormatError (open
        the member of its archive, ``FILE.bfsha//MODEL/PROGRAM/STAGE``, or use :meth:`of_member`)."""
        raise ShaderFormatError("bare Latte microcode has no header: open it as FILE.bfsha//MODEL/PROGRAM/STAGE",
                                0, "gx2-microcode")

    @classmethod
    def of_member(cls, bfsha: Any, name: str) -> WiiUBfshaStage:
        """Member ``MODEL/PROGRAM/STAGE`` of a :class:`~shaderkit.formats.bfsha.wiiu.WiiUBfsha`;
        KeyError (LookupError for an unknown model or program) when it has none (see
        :meth:`~shaderkit.formats.bfsha.wiiu.WiiUBfsha.program_stage`)."""
        model, program, stage = bfsha.split_member(name)
        index, attr = bfsha.program_stage(model, program, stage)
        return cls(bfsha, model, program, stage, index, bytes(getattr(bfsha.shaders[index], attr)))

    # -- context -------------------------------------------------------------------------------
    @property
    def shader(self) -> Any:
        """The archive's GX2 struct (:class:`~shaderkit.formats.bfsha.wiiu.WiiUGX2Shader`)."""
        return self.bfsha.shaders[self.shader_index]

    @property
    def member(self) -> str:
        """The member name: ``MODEL/PROGRAM/STAGE``."""
        return f"{self.model}/{self.program}/{self.stage}"

    def users(self) -> list[str]:
        """The programs (``MODEL/INDEX``) that use this GX2 struct, in file order."""
        found = self.bfsha.shader_users().get(self.shader_index, [])
        return list(dict.fromkeys(program_names(found)))

    def reflection(self) -> dict[str, list[StageResource]]:
        """``samplers``, ``uniform_blocks`` and ``attributes`` (vertex stage: the attributes the
        program uses) of this program's shading model at this stage's locations; a copy program
        has none of its own."""
        if self.program < 0:  # a struct no program uses
            return {"samplers": [], "uniform_blocks": [], "attributes": []}
        shading = self.bfsha.model(self.model)
        return stage_reflection(shading, shading.programs[self.program], self.stage)

    def _section(self) -> tuple[str, Any, list[str]]:
        """(title, GX2 view, reflection lines) of this struct as the whole archive's listing has them."""
        from shaderkit.formats.gx2.programs import _bfsha_section

        i = self.shader_index
        return _bfsha_section(self.bfsha, i, self.bfsha.shader_users().get(i, []))

    @property
    def title(self) -> str:
        """This program's title in the archive's ``disasm`` listing (``shaders[N]: ...``; a copy
        program: that shader's title with ``: copy (vertex) program``)."""
        from shaderkit.formats.gx2.listing import copy_title

        title = self._section()[0]
        return copy_title(title) if self.stage == COPY else title

    # -- text ----------------------------------------------------------------------------------
    def listing(self, marker: Any = None) -> str:
        """The section of the archive's ``disasm`` listing for this program: the shader's header and
        reflection, then the Latte text (a copy program: its own title line, then the text);
        ``marker`` as for :func:`shaderkit.isa.latte.disassemble`."""
        from shaderkit.formats.gx2 import listing

        if self.stage == COPY:
            return f"; ==== {self.title} ====\n\n" + listing._program_text(self.code, marker)
        title, view, extra = self._section()
        view = dataclasses.replace(view, program=self.code, vertex_program=b"")
        return listing.shader_listing(view, title, extra, marker)

    def disassemble(self) -> str:
        """The header (stage, mode, registers, reflection) and decaf-style Latte listing."""
        return self.listing()

    def apply_listing(self, text: str) -> int:
        """Assemble an (edited) listing of this program back into :attr:`code`; 1 when it changed."""
        from shaderkit.errors import AssemblyError
        from shaderkit.formats.gx2.listing import split_programs
        from shaderkit.isa.latte import assemble

        parts = split_programs(text) if text.lstrip().startswith("; ====") else [text]
        if len(parts) != 1:
            raise AssemblyError(f"the listing has {len(parts)} programs, the member 1")
        code = assemble(parts[0])
        changed = int(code != self.code)
        self.code = code
        return changed

    # -- running -------------------------------------------------------------------------------
    def vm_shader(self) -> Any:
        """A GX2 shader view for :meth:`shaderkit.vm.latte.LatteShader.from_gx2`: the struct's
        registers and mode, this microcode, and the reflection as GSH files carry it (attributes
        by location, uniform blocks with their location as ``offset``, samplers by location)."""
        from shaderkit.formats.gx2.shader import GX2VertexShader
        from shaderkit.formats.gx2.types import GX2AttribVar, GX2SamplerVar, GX2UniformBlock

        if self.stage == COPY:  # the copy program has no registers of its own here
            return GX2VertexShader(program=self.code)
        _, view, _ = self._section()
        found = self.reflection()
        return dataclasses.replace(
            view, program=self.code, vertex_program=b"",
            attrib_vars=[GX2AttribVar(a.name, a.type, max(a.size, 1), a.location) for a in found["attributes"]],
            uniform_blocks=[GX2UniformBlock(b.name, b.location, b.size) for b in found["uniform_blocks"]],
            sampler_vars=[GX2SamplerVar(s.name, s.type, s.location) for s in found["samplers"]])

    # -- model ---------------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The microcode (the member's bytes)."""
        return bytes(self.code)

    def problems(self) -> list[str]:
        """The program's listing must assemble back to the same bytes (every bit decoded)."""
        from shaderkit.errors import AssemblyError
        from shaderkit.io.compare import first_difference
        from shaderkit.isa.latte import assemble, disassemble

        if not self.code:
            return []
        try:
            text = disassemble(self.code)
        except ShaderFormatError as exc:
            return [f"the microcode does not decode: {exc}"]
        try:
            again = assemble(text)
        except AssemblyError as exc:
            return [f"the Latte listing does not assemble: {exc}"]
        if again != self.code:
            first = first_difference(again, self.code)
            return [f"the Latte listing assembles to other bytes (first difference at {first:#x}; "
                    f"{len(self.code)} -> {len(again)} bytes)"]
        return []

    def summary(self) -> dict[str, Any]:
        """Keys: format, member, model, program, stage, shader_index, mode (+ mode_name),
        program_size, cemu_base_hash (pixel), used_by, samplers, uniform_blocks and (vertex) attributes."""
        from shaderkit.formats.gx2.shader import cemu_base_hash
        from shaderkit.formats.gx2.types import GX2ShaderMode, var_type_name

        shader = self.shader
        mode = shader.mode
        out: dict[str, Any] = {
            "format": self.format_name,
            "member": self.member,
            "model": self.model,
            "program": self.program,
            "stage": self.stage,
            "shader_index": self.shader_index,
            "mode": mode,
            "mode_name": GX2ShaderMode(mode).name.lower() if mode in GX2ShaderMode._value2member_map_ else str(mode),
            "program_size": len(self.code),
        }
        if self.stage != COPY:
            cemu = cemu_base_hash(shader.stage, shader.regs, self.code)
            if cemu is not None:
                out["cemu_base_hash"] = cemu
        out["used_by"] = self.users()
        found = self.reflection()
        out["samplers"] = [{"index": s.index, "name": s.name, "location": s.location} for s in found["samplers"]]
        out["uniform_blocks"] = [{"index": b.index, "name": b.name, "size": b.size, "location": b.location}
                                 for b in found["uniform_blocks"]]
        if self.stage == "vertex":
            out["attributes"] = [{"index": a.index, "name": a.name, "type": var_type_name(a.type), "count": a.size,
                                  "location": a.location} for a in found["attributes"]]
        return out


def stage_reflection(shading: Any, program: Any, stage: str) -> dict[str, list[StageResource]]:
    """``samplers``, ``uniform_blocks`` and ``attributes`` (vertex stage: the attributes the program
    uses) of shading model ``shading`` at the locations of stage ``stage`` of program ``program``;
    empty lists for a copy program (it has no reflection of its own)."""
    out: dict[str, list[StageResource]] = {"samplers": [], "uniform_blocks": [], "attributes": []}
    column = _COLUMNS.get(stage)
    if column is None:
        return out
    for k, (sampler, where) in enumerate(zip(shading.samplers, program.sampler_locations)):
        if where[column] >= 0:
            out["samplers"].append(StageResource(k, sampler.name, sampler.type, where[column]))
    for k, (block, where) in enumerate(zip(shading.uniform_blocks, program.block_locations)):
        if where[column] >= 0:
            out["uniform_blocks"].append(StageResource(k, block.name, block.type, where[column], block.size))
    if stage == "vertex":
        for k, attrib in enumerate(shading.attributes):
            if program.used_attribute_flags >> k & 1:
                out["attributes"].append(StageResource(k, attrib.name, attrib.type, attrib.location, attrib.count))
    return out


def shader_stages(bfsha: Any) -> list[WiiUBfshaStage]:
    """Each GX2 struct of a Wii U BFSHA (file order, ``shaders[N]`` of ``disasm``) as the stage of
    the first program that uses it (a struct no program uses: without reflection)."""
    users = bfsha.shader_users()
    out = []
    for i, shader in enumerate(bfsha.shaders):
        first = users.get(i)
        model, program, stage = (first[0][0].name, first[0][1].index, first[0][2]) if first else ("", -1, shader.stage)
        out.append(WiiUBfshaStage(bfsha, model, program, stage, i, bytes(shader.program)))
    return out

"""deko3d shader modules (``.dksh``, written by devkitPro's ``uam``): read, rebuild byte for byte.

Reading follows what deko3d's ``dkShaderInitialize`` relies on: the magic, the program table at
``programs_off`` inside the control section, the code section right after ``control_sz`` bytes,
entrypoints and constbuf1 ranges inside the code section. Sizes that the driver only checks in
debug builds (both sections multiples of 256) are not enforced: such files are kept as they are.

Only the layout published since 2019-08-14 is read. uam's first sketch (2019-08-12, never
released) had ``version`` (0) where ``header_sz`` is now; a module whose ``header_sz`` is smaller
than 24 is refused with that reason.

Writing puts every unchanged item (a program's SPH + code, its constbuf1) back where it lay and
keeps every other byte (uam's "lol nvidia" padding, zero fill, whatever else a file holds) through
:mod:`shaderkit.io.layout`; a new or resized item goes where uam would put it: a graphics
program's SPH at 0x30 into a fresh 256-byte block (its code at 0x80), compute code and constbuf1
at a fresh 256-byte block, both sections padded to 256. ``control_sz``, ``code_sz``,
``programs_off``, ``num_programs``, each ``entrypoint``, ``constbuf1_off`` and ``constbuf1_sz``
are recomputed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.base import ShaderFile
from shaderkit.formats.bnsh.nvn import SPH_SIZE, ShaderProgramHeader
from shaderkit.formats.dksh.model import (
    _HEADER,
    _PROGRAM,
    DKSH_MAGIC,
    GRAPHICS_ENTRY_OFFSET,
    HEADER_SIZE,
    PROGRAM_HEADER_SIZE,
    SECTION_ALIGNMENT,
    STAGE_NAMES,
    UAM_SPH_PADDING,
    DkshHeader,
    DkshProgram,
    DkshProgramHeader,
    VertexParams,
    parse_params,
)
from shaderkit.io.layout import Layout, PlacedWriter, append_aligned
from shaderkit.io.reader import Reader

#: Maxwell code comes in 32-byte bundles (a scheduling word and three instructions)
BUNDLE = 32
_ZERO_BUNDLE = bytes(BUNDLE)


_BLOCK = append_aligned(SECTION_ALIGNMENT)


def embedded_size(data: bytes, offset: int, memo: dict[Any, Any] | None = None) -> int | None:
    """The size of the DKSH module at ``offset`` of ``data`` (its control and code sections), or None
    when the bytes there are not a consistent header."""
    if offset + HEADER_SIZE > len(data):
        return None
    magic, header_sz, control_sz, code_sz, programs_off, num_programs = _HEADER.unpack_from(data, offset)
    size = control_sz + code_sz
    if magic != DKSH_MAGIC or not HEADER_SIZE <= header_sz <= control_sz or size > len(data) - offset:
        return None
    return size if header_sz <= programs_off and programs_off + PROGRAM_HEADER_SIZE * num_programs <= control_sz else None


def _graphics_entry(end: int, size: int) -> int:
    """uam's place for a new graphics program: 0x30 into a fresh 256-byte block (code at 0x80)."""
    return _BLOCK(end, size) + GRAPHICS_ENTRY_OFFSET


def _entry_key(index: int) -> tuple[str, int, str]:
    return ("program", index, "entry")


def _constbuf_key(index: int) -> tuple[str, int, str]:
    return ("program", index, "constbuf1")


@dataclass(repr=False)
class Dksh(ShaderFile):
    """A deko3d shader module: its header and programs (``num_programs`` of them; uam writes one).

    ``control_layout`` and ``code_layout`` record where the parsed items lay in each section and
    keep the bytes no item covers; ``tail`` holds bytes after the code section (none in uam's files).
    """

    format_name: ClassVar[str] = "dksh"

    header: DkshHeader
    programs: list[DkshProgram]
    tail: bytes = b""
    control_layout: Layout | None = field(default=None, repr=False, compare=False)
    code_layout: Layout | None = field(default=None, repr=False, compare=False)
    #: whether the parsed file is exactly what uam's layout rule makes of its programs (every file
    #: uam writes): then an edit that moves something gets a fresh uam layout
    uam_layout: bool = field(default=True, repr=False, compare=False)

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def from_bytes(cls, data: bytes) -> Dksh:
        """Parse a module; ShaderFormatError (offset, context) for anything out of bounds."""
        data = bytes(data)
        r = Reader(data, context="DKSH")
        r.need(HEADER_SIZE, "DkshHeader")
        header = DkshHeader(*_HEADER.unpack_from(data, 0))
        if header.magic != DKSH_MAGIC:
            raise r.error(f"magic {header.magic:#010x} is not 'DKSH'", 0)
        if header.header_sz < HEADER_SIZE:
            raise r.error(f"header_sz {header.header_sz} is below {HEADER_SIZE}"
                          + (" (uam's unreleased 2019-08-12 layout with a version word: not read)"
                             if header.header_sz == 0 else ""), 4)
        if header.control_sz > len(data) or header.header_sz > header.control_sz:
            raise r.error(f"control_sz {header.control_sz:#x} does not hold the {header.header_sz}-byte header "
                          f"inside the {len(data):#x}-byte file", 8)
        code_start, code_end = header.control_sz, header.control_sz + header.code_sz
        if code_end > len(data):
            raise r.error(f"code section {code_start:#x}..{code_end:#x} runs past the {len(data):#x}-byte end", 12)
        with r.scope("programs"):
            r.check_count(header.num_programs, PROGRAM_HEADER_SIZE, "num_programs",
                          min(header.programs_off, header.control_sz))
            table_end = header.programs_off + PROGRAM_HEADER_SIZE * header.num_programs
            if header.programs_off < header.header_sz or table_end > header.control_sz:
                raise r.error(f"program table {header.programs_off:#x}..{table_end:#x} is not inside the control "
                              f"section {header.header_sz:#x}..{header.control_sz:#x}", 16)
        heads = []
        for index in range(header.num_programs):
            at = header.programs_off + PROGRAM_HEADER_SIZE * index
            v = _PROGRAM.unpack_from(data, at)
            heads.append(DkshProgramHeader(v[0], v[1], v[2], v[3], v[4], v[5], parse_params(v[0], v[6]), v[7]))
        code = memoryview(data)[: code_end]
        programs = _read_programs(r, heads, code, code_start, header.code_sz)

        control_layout = Layout()
        control_layout.record("header", 0, data[:HEADER_SIZE])
        control_layout.record("programs", header.programs_off, data[header.programs_off : table_end])
        control_layout.close(data[: header.control_sz])
        code_layout = Layout()
        for index, program in enumerate(programs):
            code_layout.record(_entry_key(index), program.header.entrypoint, program.entry_bytes())
            if program.header.constbuf1_sz:
                code_layout.record(_constbuf_key(index), program.header.constbuf1_off, program.constbuf1)
        code_layout.close(data[:code_end], code_start)
        model = cls(header, programs, data[code_end:], control_layout, code_layout)
        try:
            model.uam_layout = model._write(None, None)[0] == data
        except ValueError:
            model.uam_layout = False
        return model

    # -- writing ---------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        """The module bytes; unchanged items go back where they lay, new or resized ones where uam
        puts them; sizes, offsets and counts are recomputed (ValueError when a value does not fit).

        A module laid out as uam lays it out (:attr:`uam_layout`) in which something moved is laid
        out afresh by uam's rule (what uam would write for the edited programs); any other module
        keeps every byte it can, the moved items appended and their old bytes zeroed."""
        if self.control_layout is None or self.code_layout is None:
            return self.relayout()
        out, moved = self._write(self.control_layout, self.code_layout)
        return self.relayout() if moved and self.uam_layout else out

    def relayout(self) -> bytes:
        """The module laid out afresh by uam's rule (``rebuild --relayout``): what uam would write
        for these programs; bytes no model field covers are dropped."""
        return self._write(None, None)[0]

    def _write(self, control_layout: Layout | None, code_layout: Layout | None) -> tuple[bytes, bool]:
        """(bytes, whether an item left its recorded place) of the module written over the layouts."""
        code = PlacedWriter(code_layout, _BLOCK)
        heads = []
        moved = False
        for index, program in enumerate(self.programs):
            head = program.header
            key = _entry_key(index)
            code.allocate = _BLOCK if program.sph is None else _graphics_entry
            entry = code.place(key, program.entry_bytes())
            stored = code_layout.offset_of(key) if code_layout is not None else None
            if stored != entry:
                moved = True
                pad_at = entry - GRAPHICS_ENTRY_OFFSET
                if program.sph is not None and pad_at >= 0 and code.is_free(pad_at, entry):
                    code.put(pad_at, UAM_SPH_PADDING)
            constbuf1_off = head.constbuf1_off
            if program.constbuf1:
                code.allocate = _BLOCK
                constbuf1_off = code.place(_constbuf_key(index), program.constbuf1)
                moved = moved or (code_layout is not None and code_layout.offset_of(_constbuf_key(index))
                                  != constbuf1_off)
            heads.append(DkshProgramHeader(head.type, entry, head.num_gprs, constbuf1_off, len(program.constbuf1),
                                           head.per_warp_scratch_sz, head.params, head.reserved))
        if moved:
            code.clear_vacated()
        if moved or code_layout is None:  # (a stored section of another size stays as it is)
            code.pad_to(SECTION_ALIGNMENT)
        if not code.verify():
            raise ValueError("DKSH code section: an item was overwritten while laying out the programs")

        control = PlacedWriter(control_layout, append_aligned(4))
        control.reserve(0, max(self.header.header_sz, HEADER_SIZE))
        table = b"".join(head.to_bytes() for head in heads)
        programs_off = control.place("programs", table) if table else self.header.programs_off
        if control_layout is None or control_layout.offset_of("programs") != programs_off:
            moved = True
            control.pad_to(SECTION_ALIGNMENT)
        header = DkshHeader(self.header.magic, self.header.header_sz, control.end, code.end, programs_off,
                            len(heads))
        try:
            control.put(0, header.to_bytes())
        except Exception as exc:  # struct.error: a value past 32 bits
            raise ValueError(f"DKSH header: {exc}") from None
        return control.getvalue() + code.getvalue() + self.tail, moved

    # -- description -----------------------------------------------------------------------
    def disassemble(self) -> str:
        """Maxwell text of every stage, SPH decoded (:mod:`shaderkit.formats.bnsh.text`)."""
        from shaderkit.formats.bnsh.text import dksh_listing

        return dksh_listing(self)

    def summary(self) -> dict[str, Any]:
        """Header fields and, per program, its type, entrypoint, registers, constbuf1, code size,
        SPH summary and the stage parameters."""
        from dataclasses import asdict

        rows = []
        for index, program in enumerate(self.programs):
            head = program.header
            params = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in asdict(head.params).items()}
            row: dict[str, Any] = {
                "index": index, "type": head.type_name, "entrypoint": head.entrypoint, "num_gprs": head.num_gprs,
                "constbuf1_off": head.constbuf1_off, "constbuf1_sz": head.constbuf1_sz,
                "per_warp_scratch_sz": head.per_warp_scratch_sz, "code_offset": program.code_offset,
                "code_size": len(program.code), "params": params,
            }
            if program.sph is not None:
                row["sph"] = program.sph.summary()
            rows.append(row)
        h = self.header
        return {"format": self.format_name, "size": h.control_sz + h.code_sz + len(self.tail),
                "header_sz": h.header_sz, "control_sz": h.control_sz, "code_sz": h.code_sz,
                "programs_off": h.programs_off, "num_programs": h.num_programs, "programs": rows}

    def program_by_stage(self, stage: str) -> int:
        """The index of the only program of type ``stage`` (a name or uam's ``--stage`` name, or an
        index as text); ValueError when none or several match."""
        if stage.isdigit():
            index = int(stage)
            if index >= len(self.programs):
                raise ValueError(f"program {index} does not exist ({len(self.programs)} programs)")
            return index
        found = [i for i, p in enumerate(self.programs) if stage in (p.stage, STAGE_NAMES.get(p.stage))]
        if len(found) != 1:
            have = ", ".join(f"{i}: {p.stage}" for i, p in enumerate(self.programs))
            raise ValueError(f"{'no' if not found else 'more than one'} program of stage {stage!r} "
                             f"(programs {have}); name one by index")
        return found[0]

    def program_title(self, index: int) -> str:
        """``program N stage``: how listings, ``cfg`` and ``asm --base`` name program ``index``."""
        return f"program {index} {self.programs[index].stage}"


def _read_programs(r: Reader, heads: list[DkshProgramHeader], data: memoryview, code_start: int,
                   code_sz: int) -> list[DkshProgram]:
    """Each program's SPH, code and constbuf1 (offsets checked against the code section)."""
    # what lies after a program's code: other entrypoints and the 256-byte blocks they start in
    # (uam's padding in front of an SPH belongs to the next program), constbuf1 data, vertex A
    # programs, the section end
    bounds = {code_sz}
    for head in heads:
        bounds.add(head.entrypoint)
        bounds.add(head.entrypoint - head.entrypoint % SECTION_ALIGNMENT)
        if head.constbuf1_sz:
            bounds.add(head.constbuf1_off)
        if isinstance(head.params, VertexParams) and head.params.alt_num_gprs:
            bounds.add(head.params.alt_entrypoint)
    ordered = sorted(bounds)
    programs = []
    for index, head in enumerate(heads):
        with r.scope(f"programs[{index}]"):
            base = code_start + head.entrypoint
            sph_size = SPH_SIZE if head.has_sph else 0
            if head.entrypoint + sph_size > code_sz:
                raise r.error(f"entrypoint {head.entrypoint:#x} (+{sph_size:#x} SPH bytes) is outside the "
                              f"{code_sz:#x}-byte code section", code_start)
            if head.constbuf1_sz and head.constbuf1_off + head.constbuf1_sz > code_sz:
                raise r.error(f"constbuf1 {head.constbuf1_off:#x}+{head.constbuf1_sz:#x} is outside the "
                              f"{code_sz:#x}-byte code section", code_start)
            sph = ShaderProgramHeader.from_bytes(bytes(data[base : base + SPH_SIZE]), base) if sph_size else None
            start = head.entrypoint + sph_size
            end = next((b for b in ordered if b >= start and b > head.entrypoint), start)
            end = start + (end - start) // BUNDLE * BUNDLE
            while end - start >= BUNDLE and data[code_start + end - BUNDLE : code_start + end] == _ZERO_BUNDLE:
                end -= BUNDLE
            code = bytes(data[code_start + start : code_start + end])
            constbuf1 = bytes(data[code_start + head.constbuf1_off : code_start + head.constbuf1_off
                                   + head.constbuf1_sz]) if head.constbuf1_sz else b""
            programs.append(DkshProgram(head, sph, code, constbuf1))
    return programs


"""fxc listing text -> DXBC container, on top of a base container (``shaderkit asm --base``).

The code chunk (SHDR/SHEX) of every program in the listing is rebuilt from the text; every other
chunk is kept. An instruction whose text is unchanged keeps the base's words (bits the text does
not show, such as float digits beyond fxc's six decimals, stay as they were); an edited
instruction keeps the base's bits for every literal printed the same. STAT counters follow the
code when it changed (by the difference between the old and the new program, so counters fxc
derives in ways shaderkit does not model stay as fxc wrote them), and the checksum is recomputed.

Libraries get one program per LIBF function in order; effects one per embedded shader, matched
by text (an edited effect shader must keep its size: the effect's offsets are not moved).
"""

from __future__ import annotations

import difflib
from array import array
from dataclasses import fields

from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.stat import Statistics
from shaderkit.isa.sm4.assembler import Assembled, assemble_listing, keep_base_bits
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Program
from shaderkit.isa.sm4.opcodes import OPCODES, Imm


def assemble_with_base(text: str, base: DxbcContainer) -> DxbcContainer:
    """``base`` with the code of every program in ``text`` replaced (edited in place and
    returned)."""
    programs = assemble_listing(text)
    targets = _targets(base, programs)
    from shaderkit.formats.dxbc.disasm import is_legacy
    from shaderkit.isa.sm4.text import Formatter

    for assembled, target in zip(programs, targets):
        shader = target.shader
        assert shader is not None
        old = decode(shader.tokens)
        texts = [" ".join(line.split()) for line in Formatter(old, is_legacy(target)).lines()[1:]]
        insts = keep_base_bits(assembled, old, texts)
        new_prog = assembled.program
        same_version = (new_prog.program_type, new_prog.major, new_prog.minor) == (
            old.program_type, old.major, old.minor)
        prog = Program(new_prog.program_type, new_prog.major, new_prog.minor, insts,
                       old.version_extra if same_version else 0, list(old.trailing))
        words = encode(prog)
        if words != list(shader.tokens):
            stat = target.statistics
            if stat is not None:
                update_statistics(stat, old, prog)
            shader.tokens = array("I", words)
    return base


def _targets(base: DxbcContainer, programs: list[Assembled]) -> list[DxbcContainer]:
    functions = base.functions
    effect = base.effect
    if effect is not None:
        return _effect_targets([s.container for s in effect.shaders], programs)
    found = functions if functions else ([base] if base.shader is not None else [])
    if len(found) != len(programs):
        line = programs[len(found)].line if len(programs) > len(found) else programs[-1].line if programs else 1
        raise AssemblyError(f"the text holds {len(programs)} program(s), the base {len(found)}", line, 1)
    return found


def _effect_targets(shaders: list[DxbcContainer], programs: list[Assembled]) -> list[DxbcContainer]:
    """Each program's embedded shader: the one printing the same text, else the closest one."""
    from shaderkit.formats.dxbc.disasm import is_legacy
    from shaderkit.isa.sm4.text import Formatter

    texts = []
    for shader in shaders:
        prog = decode(shader.shader.tokens) if shader.shader is not None else None
        texts.append([] if prog is None else
                     [" ".join(line.split()) for line in Formatter(prog, is_legacy(shader)).lines()[1:]])
    out = []
    for assembled in programs:
        exact = [n for n, t in enumerate(texts) if t == assembled.texts]
        if exact:
            out.append(shaders[exact[0]])
            continue
        ratios = [difflib.SequenceMatcher(None, t, assembled.texts, autojunk=False).ratio() for t in texts]
        if not ratios or max(ratios) < 0.5:
            raise AssemblyError("no shader of the base effect resembles this program", assembled.line, 1)
        out.append(shaders[ratios.index(max(ratios))])
    return out


# -- statistics ------------------------------------------------------------------------------------

_CONVERSIONS = frozenset("ftoi ftou itof utof f32tof16 f16tof32 dtof ftod dtoi dtou itod utod".split())
_MOVES = frozenset({"mov", "dmov"})
_CONDITIONAL_MOVES = frozenset({"movc", "dmovc", "swapc"})
_NO_SLOT = frozenset({"hs_decls", "hs_control_point_phase", "hs_fork_phase", "hs_join_phase", "label",
                      "customdata"})


def _counts(prog: Program) -> dict[str, int]:
    """Counters shaderkit can derive from a program (the STAT fields of the same name)."""
    c: dict[str, int] = {f.name: 0 for f in fields(Statistics) if f.type in ("int", int)}
    for inst in prog.instructions:
        info = OPCODES.get(inst.opcode)
        if info is None:
            continue
        name = info.name
        if info.dcl:
            c["dcl_count"] += 1
            if name == "dcl_temps" and inst.raw:
                c["temp_register_count"] = inst.raw[0]
            elif name == "dcl_indexableTemp" and len(inst.raw) > 1:
                c["temp_array_count"] += inst.raw[1]
            continue
        if name in _NO_SLOT:
            continue
        c["instruction_count"] += 1
        if name in _MOVES:
            c["mov_instruction_count"] += 1
        elif name in _CONDITIONAL_MOVES:
            c["movc_instruction_count"] += 1
        elif name in _CONVERSIONS:
            c["conversion_instruction_count"] += 1
        elif name.startswith("sample") and name not in ("samplepos", "sampleinfo"):
            key = ("texture_comp_instructions" if name.startswith("sample_c") else
                   "texture_bias_instructions" if name.startswith("sample_b") else
                   "texture_gradient_instructions" if name.startswith("sample_d") else
                   "texture_normal_instructions")
            c[key] += 1
        elif name.startswith(("ld", "gather4")):
            c["texture_load_instructions"] += 1
        elif name.startswith(("emit", "cut")):
            c["emit_instruction_count" if name.startswith("emit") else "cut_instruction_count"] += 1
        elif name.startswith(("if", "loop", "switch", "breakc", "continuec", "retc", "callc", "discard")):
            c["dynamic_flow_control_count"] += 1
        elif info.imm == Imm.FLOAT and info.num_operands > 1:
            c["float_instruction_count"] += 1
        elif info.imm == Imm.INT and info.num_operands > 1:
            key = "uint_instruction_count" if name.startswith("u") else "int_instruction_count"
            c[key] += 1
    return c


def update_statistics(stat: Statistics, old: Program, new: Program) -> None:
    """Move ``stat``'s counters by the difference between ``old`` and ``new``."""
    before, after = _counts(old), _counts(new)
    for name, value in after.items():
        delta = value - before[name]
        if delta:
            setattr(stat, name, max(0, getattr(stat, name) + delta) & 0xFFFFFFFF)


def assemble_container(text: str) -> DxbcContainer:
    """A container from the listing alone: the code chunk (SHDR for SM4, SHEX for SM5)."""
    from shaderkit.formats.dxbc.shader import ShaderProgram

    programs = assemble_listing(text)
    if len(programs) != 1:
        line = programs[1].line if programs else 1
        raise AssemblyError(f"a container from text alone takes one program, found {len(programs)}", line, 1)
    prog = programs[0].program
    fourcc = "SHEX" if prog.major >= 5 else "SHDR"
    container = DxbcContainer([ShaderProgram(fourcc, array("I", encode(prog)))])
    return container

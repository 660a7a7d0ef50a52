"""fxc listing text -> DXBC container, on top of a base container (``shaderkit asm --base``).

The code chunk (SHDR/SHEX) of every program in the listing is rebuilt from the text; every other
chunk is kept. An instruction whose text is unchanged keeps the base's words (bits the text does
not show, such as float digits beyond fxc's six decimals, stay as they were); an edited
instruction keeps the base's bits for every literal printed the same. STAT counters follow the
code when it changed (by the difference between the old and the new program, so counters fxc
derives in ways shaderkit does not model stay as fxc wrote them), and the checksum is recomputed.
Signature tables of the comment header that were edited replace the signature chunks' elements.

Libraries get one program per LIBF function in order; effects one per embedded shader, matched
by text (an edited effect shader must keep its size: the effect's offsets are not moved).
"""

from __future__ import annotations

import difflib
import re
from array import array
from dataclasses import fields

from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.container import Chunk, DxbcContainer, LibraryFunction
from shaderkit.formats.dxbc.lfs0 import FunctionParameter, FunctionSignature
from shaderkit.formats.dxbc.libh import LibraryEntry, LibraryHeader
from shaderkit.formats.dxbc.listing import (
    _DOMAINS,
    _OUTPUT_PRIMITIVES,
    _PARTITIONING,
    _SCALAR_NAMES,
    DEBUG_LAYER_NOTE,
    DISASSEMBLER,
    is_legacy_creator,
)
from shaderkit.formats.dxbc.listing import _SV_NAMES as SV_NAMES
from shaderkit.formats.dxbc.sfi0 import FEATURE_NAMES, FeatureInfo
from shaderkit.formats.dxbc.signature import Signature, SignatureElement
from shaderkit.formats.dxbc.stat import Statistics
from shaderkit.isa.sm4.assembler import Assembled, assemble_listing, keep_base_bits
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Instruction, Program
from shaderkit.isa.sm4.opcodes import (
    GLOBAL_FLAGS,
    ICB_CLASS,
    OPCODES,
    PRIMITIVES,
    PROGRAM_TYPES,
    Imm,
    OperandType,
)
from shaderkit.isa.sm4.table import CONTROLS_AT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from shaderkit.formats.dxbc.fx10 import Effect


def assemble_with_base(text: str, base: DxbcContainer) -> DxbcContainer:
    """``base`` with the code of every program in ``text`` replaced (edited in place and
    returned)."""
    programs = assemble_listing(text)
    targets = _targets(base, programs)
    from shaderkit.formats.dxbc.disasm import styled_formatter

    for assembled, target in zip(programs, targets):
        shader = target.shader
        assert shader is not None
        old = decode(shader.tokens)
        formatter = styled_formatter(target, old)
        texts = [" ".join(line.split()) for line in formatter.lines()[1:]]
        insts = keep_base_bits(_hex_as_printed(assembled, old, texts, formatter.legacy, formatter.since_9_30), old, texts)
        new_prog = assembled.program
        same_version = (new_prog.program_type, new_prog.major, new_prog.minor) == (
            old.program_type, old.major, old.minor)
        prog = Program(new_prog.program_type, new_prog.major, new_prog.minor, insts,
                       old.version_extra if same_version else 0, list(old.trailing))
        words = encode(prog)
        if words != list(shader.tokens):
            stat = target.statistics
            if stat is not None:
                # (how fxc counted is the compiler's fact, not the listing style disasm --fxc chose)
                update_statistics(stat, old, prog, is_legacy_creator(target.creator))
            shader.tokens = array("I", words)
    if base.effect is not None:
        _apply_expression_edits(text, base.effect)
    lines = text.splitlines()
    if targets == [base] and programs:
        _apply_signature_edits(lines[: programs[0].line - 1], base)
        _apply_level9_edits(lines, programs[0].line - 1, base)
    elif base.functions and targets == base.functions:
        for start, assembled, function in zip(_function_starts(lines, programs), programs, targets):
            _apply_level9_edits(lines, assembled.line - 1, function, start)
    return base


def eval_bodies(text: str) -> list[tuple[int, int, list[str]]]:
    """Each ``eval(...)`` of an effect listing: the 1-based line and column of its ``eval(`` and
    its instruction lines (stripped); AssemblyError when one is not closed."""
    out = []
    at = text.find("eval(")
    while at >= 0:
        depth, end = 1, at + 5
        while depth and end < len(text):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        if depth:
            raise AssemblyError("'eval(' is not closed", line, column)
        body = text[at + 5 : end - 1]
        out.append((line, column, [part.strip() for part in body.split("\n")]))
        at = text.find("eval(", end)
    return out


def _apply_expression_edits(text: str, effect: Effect) -> None:
    """Expressions whose ``eval(...)`` text differs from the base's listing of them are assembled
    into the base's expression containers (in listing order); each must keep its size, as the
    effect's offsets are not moved. An edited expression whose container the effect keeps as
    block bytes (one that does not rebuild byte for byte) cannot be written: AssemblyError."""
    from shaderkit.formats.dxbc.disasm import effect_expressions
    from shaderkit.formats.dxbc.fxlvm import assemble_expression

    bodies = eval_bodies(text)
    printed = effect_expressions(effect)
    if len(bodies) != len(printed):
        line = bodies[len(printed)][0] if len(bodies) > len(printed) else bodies[-1][0] if bodies else 1
        raise AssemblyError(f"the text holds {len(bodies)} expression(s), the base {len(printed)}", line, 1)
    for (line, column, body), (offset, lines) in zip(bodies, printed):
        if lines == body:
            continue
        container = effect.shader_at(offset)
        if container is None:
            raise AssemblyError(f"the base keeps the expression container at block offset {offset:#x} as "
                                "bytes (it does not rebuild byte for byte): it cannot be edited", line, column)
        size = len(container.to_bytes())
        try:
            assemble_expression(container, body)
        except AssemblyError as error:
            raise AssemblyError(error.message, line + error.line - 1, error.column or 1) from None
        if len(container.to_bytes()) != size:
            raise AssemblyError("an edited expression must keep its size (instruction, operand and "
                                "literal counts): the effect's offsets are not moved", line, 1)


def _hex_as_printed(assembled: Assembled, old: Program, texts: list[str], legacy: bool,
                    since_9_30: bool = True) -> Assembled:
    """``assembled`` with instruction texts in ``disasm --hex`` form replaced by the base's fxc
    text of the same instruction, so that unchanged instructions line up with the base's."""
    from shaderkit.isa.sm4.text import Formatter

    if "0x" not in "".join(assembled.texts):
        return assembled
    hex_texts = [" ".join(line.split())
                 for line in Formatter(old, legacy, hex_literals=True, since_9_30=since_9_30).lines()[1:]]
    printed = {h: t for h, t in zip(hex_texts, texts) if h != t}
    return assembled._replace(texts=[printed.get(t, t) for t in assembled.texts])


def _apply_level9_edits(lines: list[str], stop: int, base: DxbcContainer, start: int = 0) -> None:
    """Level-9 programs whose text differs from the base's listing of them are assembled and
    replace the base chunk's program (a DBUG block rebuilt from the text's directives and notes);
    mapping tables that differ replace the base's. Unedited ones stay as they are."""
    from shaderkit.formats.dxbc.aon9 import Level9Shader
    from shaderkit.formats.dxbc.disasm import LEVEL9_CHUNKS, level9_program_lines
    from shaderkit.formats.dxbc.header_aon9 import level9_chunks, level9_sections

    chunks = [c for fourcc, _ in LEVEL9_CHUNKS for c in base.chunks_of(fourcc)]
    sections = level9_sections(lines, stop, start)
    if len(sections) != len(chunks):
        where = sections[len(chunks)][2] + 1 if len(sections) > len(chunks) else 1
        raise AssemblyError(f"the text holds {len(sections)} level-9 program(s), the base {len(chunks)}", where, 1)
    if not chunks:
        return
    new = level9_chunks(lines, stop, base.creator, start)
    for (fourcc, _, title, end), chunk, mine in zip(sections, chunks, new):
        if not isinstance(chunk, Level9Shader) or fourcc != chunk.fourcc:
            raise AssemblyError(f"the base's level-9 chunk here is {chunk.fourcc}, not {fourcc}", title + 1, 1)
        if _program_text(lines[title + 1 : end]) != _program_text(level9_program_lines(chunk)):
            chunk.program = mine.program
        for name in ("constant_buffer_mappings", "sampler_mappings", "runtime_constant_mappings",
                     "loop_register_mappings"):
            if getattr(mine, name) != getattr(chunk, name):
                setattr(chunk, name, getattr(mine, name))


def _program_text(lines: list[str]) -> list[str]:
    """Lines compared to tell an edited program: blank and bare ``//`` lines dropped, spacing
    normalised."""
    return [" ".join(line.split()) for line in lines if line.strip() not in ("", "//")]


_SIGNATURE_FAMILIES = {"Input signature": ("ISGN", "ISG1"), "Output signature": ("OSGN", "OSG5", "OSG1"),
                       "Patch Constant signature": ("PCSG", "PSG1")}


def _apply_signature_edits(header: list[str], base: DxbcContainer) -> None:
    """Signature tables of the comment header that differ from the base's chunks replace their
    elements (fxc prints streams only when one is not 0: there they are read from ``m1:NAME``)."""
    shader = base.shader
    program_type = shader.program_type if shader is not None else 0
    for title, family in _SIGNATURE_FAMILIES.items():
        rows = _signature_rows(header, title)
        chunk = next((c for c in base.chunks if isinstance(c, Signature) and c.fourcc in family), None)
        if rows is None or chunk is None:
            continue
        output = title == "Output signature" or (title == "Patch Constant signature" and program_type == _HULL_SHADER)
        elements = [_element(row, output) for row in rows]
        if len(elements) == len(chunk.elements):
            for new, old in zip(elements, chunk.elements):
                new.stream = old.stream
                if chunk.fourcc in ("ISGN", "OSGN", "OSG5", "PCSG"):
                    new.min_precision = old.min_precision
                new.reserved = old.reserved
        if Signature(chunk.fourcc, elements).build() != chunk.build():
            chunk.elements = elements


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
    from shaderkit.formats.dxbc.disasm import styled_formatter

    texts = []
    for shader in shaders:
        prog = decode(shader.shader.tokens) if shader.shader is not None else None
        texts.append([] if prog is None else
                     [" ".join(line.split()) for line in styled_formatter(shader, prog).lines()[1:]])
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

#: instructions fxc counts in no field: the compare gathers without a residency status (swapc, a
#: two-destination float instruction, counts as no float arithmetic either: see the float rule)
_UNCOUNTED = frozenset({"gather4_c", "gather4_po_c"})
#: the STAT counter each instruction adds to by its name ("": none), as fxc counts (against the STAT
#: chunks of 4,408 real and d3dcompiler_47-compiled shaders, and the corpus's 278 for the operand
#: rules of :func:`_counts`). fxc's float, mov, int, uint and conversion counts also follow what
#: its compiler made of the source, which names and operands give for 70-99 %
_STAT_FIELDS: dict[str, str] = {
    **dict.fromkeys("iadd ieq ige ilt imad imax imin imul ine ishl ishr ineg".split(), "int_instruction_count"),
    **dict.fromkeys("and not or udiv uge ult umin umax umul umad ushr xor".split(), "uint_instruction_count"),
    **dict.fromkeys("break continue else ret".split(), "static_flow_control_count"),
    **dict.fromkeys("breakc if continuec retc switch".split(), "dynamic_flow_control_count"),
    **dict.fromkeys("sample sample_cl_s".split(), "texture_normal_instructions"),
    **dict.fromkeys("ld ld_structured ldms sample_l ld_raw ld_uav_typed ld_s ld_structured_s ldms_s sample_l_s "
                    "ld_raw_s ld_uav_typed_s".split(), "texture_load_instructions"),
    **dict.fromkeys("sample_c sample_c_lz sample_c_cl_s sample_c_lz_s".split(), "texture_comp_instructions"),
    **dict.fromkeys("sample_b sample_b_cl_s".split(), "texture_bias_instructions"),
    **dict.fromkeys("sample_d sample_d_cl_s".split(), "texture_gradient_instructions"),
    **dict.fromkeys("mov dmov".split(), "mov_instruction_count"),
    **dict.fromkeys("movc dmovc".split(), "movc_instruction_count"),
    **dict.fromkeys("ftoi ftou itof utof dtof ftod dtoi dtou itod utod".split(), "conversion_instruction_count"),
    **dict.fromkeys("emit emit_stream emitThenCut emitThenCut_stream".split(), "emit_instruction_count"),
    **dict.fromkeys("cut cut_stream".split(), "cut_instruction_count"),
    **dict.fromkeys("store_raw store_structured store_uav_typed".split(), "texture_store_instructions"),
    **dict.fromkeys((info.name for info in OPCODES.values() if info.name.startswith(("atomic_", "imm_atomic_"))),
                    "interlocked_instructions"),
    "sync": "barrier_instructions",
    # the gathers fxc counts in reserved2 (all but _UNCOUNTED), lod in reserved3
    **dict.fromkeys((info.name for info in OPCODES.values() if info.name.startswith("gather4")), "reserved2"),
    "lod": "reserved3",
    **dict.fromkeys(_UNCOUNTED, ""),
}
_ROUNDING = frozenset("round_ne round_ni round_pi round_z frc".split())
_NO_SLOT = frozenset({"hs_decls", "hs_control_point_phase", "hs_fork_phase", "hs_join_phase", "label"})
_TGSM, _UAV = int(OperandType.THREAD_GROUP_SHARED_MEMORY), int(OperandType.UNORDERED_ACCESS_VIEW)
_CONSTANT_BUFFER = int(OperandType.CONSTANT_BUFFER)
_INDEXABLE_TEMP = int(OperandType.INDEXABLE_TEMP)
_HULL_SHADER = PROGRAM_TYPES.index("hs")
#: D3D_PRIMITIVE of a patch of one control point (n points: this + n - 1)
_PATCH_PRIMITIVE_BASE = next(value for value, name in PRIMITIVES.items() if name == "1_control_point_patch")
_NOT_REGISTER_DECLARATIONS = frozenset("dcl_inputprimitive dcl_outputtopology dcl_input_control_point_count "
                                       "dcl_output_control_point_count".split())
_FORK_JOIN = frozenset({"hs_fork_phase", "hs_join_phase"})


def _counts(prog: Program, legacy: bool = False) -> dict[str, int]:
    """Counters shaderkit can derive from a program (the STAT fields of the same name), as fxc
    counts them: by name (:data:`_STAT_FIELDS`), then by operand. ``legacy``: as fxc before the
    Windows 10 SDK counts (a hull shader's fork and join phases add to no instruction counter: fxc
    9.30, 8 of 8 hull shaders; 10.1 counts them, 5 of 5; the 6.3 compiler is assumed to count as
    9.30, no sample). Not followed: fxc 9.29 counted no texture store (1 sample)."""
    c: dict[str, int] = {f.name: 0 for f in fields(Statistics) if f.type in ("int", int)}
    code_counts = True
    for inst in prog.instructions:
        info = OPCODES.get(inst.opcode)
        if info is None:
            continue
        name = info.name
        if info.dcl:
            _count_declaration(c, prog, name, inst)
            continue
        if name == "customdata":
            if inst.controls == ICB_CLASS:  # one def per 4-component element
                c["def_count"] += len(inst.raw) // 4
            continue
        if legacy and name in _FORK_JOIN:
            code_counts = False
        if name in _NO_SLOT or not code_counts:
            continue
        c["instruction_count"] += 1
        field = _STAT_FIELDS.get(name)
        types = [op.type for op in inst.operands]
        if _INDEXABLE_TEMP in types:
            field = "array_instruction_count"  # in place of the instruction's own counter
        elif field == "texture_load_instructions" and _TGSM in types:
            field = ""  # loads from and stores to g# count nowhere
        elif field == "texture_store_instructions" and types[:1] != [_UAV]:
            field = ""
        elif field == "dynamic_flow_control_count" and types[:1] == [_CONSTANT_BUFFER]:
            field = "static_flow_control_count"  # a condition read from a constant buffer is uniform
        if field:
            c[field] += 1
        elif field is None and info.imm == Imm.FLOAT and info.num_operands > 1:
            c["float_instruction_count"] += 1
            if name in _ROUNDING:  # float arithmetic that fxc counts as a conversion too
                c["conversion_instruction_count"] += 1
    return c


def _count_declaration(c: dict[str, int], prog: Program, name: str, inst: Instruction) -> None:
    """What a declaration adds to the counters (fxc counts only input and output declarations)."""
    if name.startswith(("dcl_input", "dcl_output")) and name not in _NOT_REGISTER_DECLARATIONS:
        c["dcl_count"] += 1
    if name == "dcl_temps" and inst.raw:
        c["temp_register_count"] = max(c["temp_register_count"], inst.raw[0])  # (the largest hull phase)
    elif name == "dcl_indexableTemp" and len(inst.raw) > 1:
        c["temp_array_count"] += inst.raw[1]
    elif name == "dcl_gsinstances" and inst.raw:
        c["gs_instance_count"] = inst.raw[0]
    elif name == "dcl_maxout" and inst.raw:
        c["gs_max_output_vertex_count"] = inst.raw[0]
    elif name == "dcl_outputtopology":
        c["gs_output_topology"] = inst.controls
    elif name == "dcl_inputprimitive":
        c["input_primitive"] = inst.controls
    elif name == "dcl_input_control_point_count" and prog.program_type == _HULL_SHADER and inst.controls:
        c["input_primitive"] = _PATCH_PRIMITIVE_BASE + inst.controls - 1


def update_statistics(stat: Statistics, old: Program, new: Program, legacy: bool = False) -> None:
    """Move ``stat``'s counters by the difference between ``old`` and ``new`` (``legacy``: counted
    as fxc before the Windows 10 SDK counts, see :func:`_counts`)."""
    before, after = _counts(old, legacy), _counts(new, legacy)
    for name, value in after.items():
        delta = value - before[name]
        if delta:
            setattr(stat, name, max(0, getattr(stat, name) + delta) & 0xFFFFFFFF)


def assemble_container(text: str) -> DxbcContainer:
    """A container from the listing alone: RDEF (creator string from ``// Generated by``, the
    target, buffer definitions and resource bindings from the comment header, see
    :mod:`.header_rdef`), IFCE from the class and interface-slot tables (:mod:`.header_ifce`),
    the signatures of the comment header (ISGN, OSGN, PCSG; OSG5 for SM5 geometry shaders,
    ISG1/OSG1/PSG1 when an element has a minimum precision), the code chunk (SHDR for SM4, SHEX
    for SM5), SFI0 from the feature note, STAT from the footer's slot count and the
    tessellation tables (other counters derived from the code), and the level-9 D3D9 programs
    with their mapping tables (Aon9/XNAP/XNAS, :mod:`.header_aon9`).

    A library listing (``// Library:`` header) gives one LIBF container per function (LFS0 from
    its parameter table instead of signatures) and the LIBH chunk; an fx_4_0/fx_4_1 effect
    listing (``// FX Version:``) the FX10 chunk (:mod:`.header_fx`, each embedded shader
    assembled by this function)."""
    lines = text.splitlines()
    if any(line.startswith("// FX Version: ") for line in lines[:4]):
        from shaderkit.formats.dxbc.header_fx import effect_container

        return effect_container(text)
    programs = assemble_listing(text)
    library = _library_header(lines, programs[0].line - 1 if programs else len(lines))
    if library is not None:
        return _library_container(lines, programs, library)
    if len(programs) != 1:
        where = programs[1].line if len(programs) > 1 else 1
        raise AssemblyError(f"a container from text alone takes one program, found {len(programs)}", where, 1)
    container = _shader_container(lines, 0, len(lines), programs[0])
    if any(line.strip() == DEBUG_LAYER_NOTE for line in lines[: programs[0].line - 1]):
        # fxc marks debug-layer-only shaders (printf/errorf) with a checksum that does not match
        # the standard one; its rule is unknown: the complement of the standard checksum keeps
        # the mark (a parsed container keeps its stored checksum while unchanged)
        data = bytearray(container.to_bytes())
        data[4:20] = bytes(b ^ 0xFF for b in data[4:20])
        container = DxbcContainer.from_bytes(bytes(data))
    return container


def _shader_container(lines: list[str], start: int, stop: int, assembled: Assembled) -> DxbcContainer:
    """The container of one program: its comment header is ``lines[start : program line]``, its
    text runs to ``stop`` (0-based)."""
    from shaderkit.formats.dxbc.header_aon9 import level9_chunks
    from shaderkit.formats.dxbc.header_ifce import interfaces_from_header
    from shaderkit.formats.dxbc.header_rdef import COMPILE_DEBUG, SKIP_OPTIMIZATION, rdef_from_header
    from shaderkit.formats.dxbc.header_spdb import spdb_from_listing
    from shaderkit.formats.dxbc.shader import ShaderProgram

    assembled.check_resolved()
    prog = assembled.program
    header = lines[start : assembled.line - 1]
    creator = ""
    for line in header:
        if line.strip().startswith("// Generated by "):
            creator = line.strip()[len("// Generated by "):].strip()
            break
    sm5 = prog.major >= 5
    chunks: list[Chunk] = []
    rdef = None
    try:  # (the header parsers count lines from the header's first; a library function's is not the file's)
        interfaces = interfaces_from_header(header)
        if creator and creator != DISASSEMBLER:  # the disassembler's name: the container had no RDEF
            rdef = rdef_from_header(header, creator, _rdef_target(prog))
    except AssemblyError as exc:
        raise exc.moved(start) from None
    if rdef is not None:
        if any(inst.opcode == _DCL_GLOBAL_FLAGS and inst.controls & _SKIP_OPTIMIZATION_CONTROL
               for inst in prog.instructions):
            rdef.flags |= SKIP_OPTIMIZATION
        if interfaces is not None and rdef.is_sm5:
            rdef.interface_slot_count = interfaces.interface_slot_count
        chunks.append(rdef)
    parameters = _function_signature(lines, start, assembled.line - 1)
    if parameters is not None:
        chunks.append(parameters)
    # fxc's chunk order: hull shaders write the patch constants last, domain shaders read them second
    titles = _SIGNATURE_TITLES if prog.program_type != 4 else (_SIGNATURE_TITLES[0], _SIGNATURE_TITLES[2],
                                                                 _SIGNATURE_TITLES[1])
    minimum_precision = any(inst.opcode == 106 and inst.controls >> 5 & 1 for inst in prog.instructions)
    for title, fourccs in titles if parameters is None else ():
        rows = _signature_rows(header, title)
        if rows is None:
            continue
        output = title != "Input signature" and not (title == "Patch Constant signature" and prog.program_type == 4)
        elements = [_element((start + line, text), output) for line, text in rows]
        fourcc = fourccs[0]
        if minimum_precision or any(e.min_precision for e in elements):
            fourcc = fourccs[2]
        elif sm5 and prog.program_type == 2 and title == "Output signature":
            fourcc = fourccs[1]
        chunks.append(Signature(fourcc, elements))
    if interfaces is not None:  # fxc writes IFCE after the signatures (9 of 9 in the corpus)
        chunks.append(interfaces)
    words = encode(prog)
    chunks.append(ShaderProgram("SHEX" if sm5 else "SHDR", array("I", words)))
    features = _features_from_header(header)
    if features is not None:
        chunks.append(features)
    stat = _statistics_from_text(lines[assembled.line - 1 : stop], header, prog, assembled.line,
                                 is_legacy_creator(creator))
    if stat is not None:
        chunks.append(stat)
    spdb = spdb_from_listing(lines[:stop], assembled.line - 1, assembled.lines, decode(words).offsets)
    if spdb is not None:
        chunks.append(spdb)
        if rdef is not None:  # debug information: compiled with D3DCOMPILE_DEBUG
            rdef.flags |= COMPILE_DEBUG
    level9 = level9_chunks(lines, assembled.line - 1, creator, start)
    if level9:  # fxc's order: the D3D9 programs (XNAS, XNAP, Aon9), the code, STAT, then the rest
        ordered = [c for fourcc in ("XNAS", "XNAP", "Aon9") for c in level9 if c.fourcc == fourcc]
        first = [c for c in chunks if c.fourcc in ("SHDR", "SHEX", "STAT")]
        chunks = [*ordered, *first, *(c for c in chunks if c not in first)]
    return DxbcContainer(chunks)


_DCL_GLOBAL_FLAGS = next(op for op, info in OPCODES.items() if info.name == "dcl_globalFlags")
#: dcl_globalFlags' skipOptimization, in the instruction's controls (the token bits above CONTROLS_AT)
_SKIP_OPTIMIZATION_CONTROL = dict((name, bit) for bit, name in GLOBAL_FLAGS)["skipOptimization"] >> CONTROLS_AT

# -- libraries ---------------------------------------------------------------------------------

_LIBRARY_RE = re.compile(r"// Library:  flags (\d+), (\d+) functions:$")
_LIBRARY_NAME_RE = re.compile(r"// +(\d+)  (.*)$")
_CREATED_BY = "// Created by:  "


def _library_header(lines: list[str], stop: int) -> LibraryHeader | None:
    """LIBH from the ``// Library:`` lines before the first program (None without them)."""
    for n in range(stop):
        m = _LIBRARY_RE.match(lines[n].strip())
        if m is None:
            continue
        flags, count = int(m.group(1)), int(m.group(2))
        header = LibraryHeader(flags=flags & 0xFFFFFFFF)
        k = n + 1
        while k < stop and len(header.functions) < count:
            name = _LIBRARY_NAME_RE.match(lines[k].rstrip())
            if name is None:
                break
            header.functions.append(LibraryEntry(name.group(2)))
            k += 1
        for line in lines[k:stop]:
            if line.startswith(_CREATED_BY):
                header.creator = line[len(_CREATED_BY):].rstrip()
                break
        return header
    return None


def _library_container(lines: list[str], programs: list[Assembled], header: LibraryHeader) -> DxbcContainer:
    """One LIBF container per function listing (each starts at its ``// Generated by`` block),
    then LIBH."""
    starts = _function_starts(lines, programs)
    if len(programs) != len(header.functions):
        raise AssemblyError(f"the library header names {len(header.functions)} functions, the text holds "
                            f"{len(programs)}", programs[0].line if programs else 1, 1)
    chunks: list[Chunk] = []
    for k, assembled in enumerate(programs):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        chunks.append(LibraryFunction(_shader_container(lines, starts[k], stop, assembled)))
    chunks.append(header)
    return DxbcContainer(chunks)


def _function_starts(lines: list[str], programs: list[Assembled]) -> list[int]:
    """Where each library function's listing starts (the ``//`` before its ``// Generated by``)."""
    starts: list[int] = []
    for assembled in programs:
        previous = starts[-1] + 1 if starts else 0
        at = next((n for n in range(assembled.line - 2, previous - 1, -1)
                   if lines[n].strip().startswith("// Generated by ")), None)
        if at is None:
            raise AssemblyError("a library function's listing starts with its '// Generated by' line",
                                assembled.line, 1)
        starts.append(at - 1 if at > 0 and lines[at - 1].strip() == "//" else at)
    return starts


_PARAMETER_TITLE = re.compile(r"// Function parameter signature \(return: (yes|no), parameters: (\d+)\):$")
_REGISTER_FIELD = re.compile(r"([vo])(\d+) +(\d+) +([xyzw]+)$")
_DIRECTIONS = {"in": 1, "out": 2, "inout": 3}
_SCALAR_TYPES = {name: value for value, name in _SCALAR_NAMES.items()}
_TYPE_RE = re.compile(r"(row_major )?([a-z]+?)(?:(\d)(?:x(\d))?)?$")


def _function_signature(lines: list[str], start: int, stop: int) -> FunctionSignature | None:
    """LFS0 from the ``// Function parameter signature`` table (None without it). Not in the
    text, so left 0: the interpolation mode of each parameter."""
    title = next((n for n in range(start, stop) if _PARAMETER_TITLE.match(lines[n].strip())), None)
    if title is None:
        return None
    sig = FunctionSignature()
    n = title + 1
    while n < stop and (lines[n].strip() == "//" or lines[n].startswith(("// Name ", "// ----"))):
        n += 1
    while n < stop and lines[n].startswith("// ") and lines[n].strip() != "//":
        sig.parameters.append(_parameter(lines[n].rstrip(), n + 1))
        n += 1
    return sig


def _parameter(row: str, line: int) -> FunctionParameter:
    """One row: name (20 wide), semantic name (20), input field (15), output field (16), type."""
    body = row[3:]
    name = body.split(" ", 1)[0]
    pos = max(20, len(name)) + 1
    semantic = body[pos : pos + 20].strip()
    pos += max(20, len(semantic)) + 1
    fields = (body[pos : pos + 15].strip(), body[pos + 16 : pos + 32].strip())
    kind = body[pos + 33 :].strip()
    p = FunctionParameter(name, semantic)
    if kind == "void":
        p.variable_type = p.variable_class = p.rows = p.columns = p.flags = 0
        return p
    direction, _, type_text = kind.partition(" ")
    m = _TYPE_RE.match(type_text)
    if direction not in _DIRECTIONS or m is None or m.group(2) not in _SCALAR_TYPES:
        raise AssemblyError(f"unreadable parameter type {kind!r}", line, len(row) - len(kind) + 1)
    p.flags = _DIRECTIONS[direction]
    p.variable_type = _SCALAR_TYPES[m.group(2)]
    first, second = int(m.group(3) or 1), int(m.group(4) or 0)
    if m.group(3) is None:
        p.variable_class, p.rows, p.columns = 0, 1, 1
    elif m.group(4) is None:
        p.variable_class, p.rows, p.columns = 1, 1, first
    elif m.group(1):
        p.variable_class, p.rows, p.columns = 2, first, second
    else:  # column-major: printed columns x rows
        p.variable_class, p.rows, p.columns = 3, second, first
    for prefix, text in zip("vo", fields):
        if not text:
            continue
        field = _REGISTER_FIELD.match(text)
        if field is None or field.group(1) != prefix:
            raise AssemblyError(f"unreadable register field {text!r}", line, row.find(text) + 1)
        register, component = int(field.group(2)), "xyzw".index(field.group(4)[0])
        if prefix == "v":
            p.first_in_register, p.first_in_component = register, component
        else:
            p.first_out_register, p.first_out_component = register, component
    return p


_FOOTER_RE = re.compile(r"// Approximately (\d+) instruction slots? used")
_FEATURE_BITS = {name: bit for bit, name in FEATURE_NAMES.items()}
_DOMAIN_VALUES = {name: value for value, name in _DOMAINS.items()}
_PARTITIONING_VALUES = {name: value for value, name in _PARTITIONING.items()}
_PRIMITIVE_VALUES = {name: value for value, name in _OUTPUT_PRIMITIVES.items()}


def _features_from_header(header: list[str]) -> FeatureInfo | None:
    """SFI0 from ``// Note: shader requires additional functionality:`` (None without it);
    names fxc derives from elsewhere (early depth-stencil: the program's global flags) are not
    feature bits."""
    lines = [line.strip() for line in header]
    try:
        start = lines.index("// Note: shader requires additional functionality:")
    except ValueError:
        return None
    flags = 0
    for line in lines[start + 1 :]:
        if not line.startswith("//       "):
            break
        flags |= _FEATURE_BITS.get(line[len("//       "):].strip(), 0)
    return FeatureInfo(flags) if flags else None


def _statistics_from_text(body: list[str], header: list[str], prog: Program, first_line: int = 1,
                          legacy: bool = False) -> Statistics | None:
    """STAT from the listing: the footer's slot count, the tessellation tables and the
    sample-frequency note of the header; the other counters derived from the code (None
    without a footer or with a count of 0: nothing says fxc wrote a STAT)."""
    slots = next((int(m.group(1)) for m in map(_FOOTER_RE.fullmatch, (line.strip() for line in reversed(body)))
                  if m is not None), None)
    if slots is None or slots == 0:
        # fxc prints 0 for a container without STAT, and no fxc STAT in the corpus counts 0
        # slots (99 listings say 0, all without STAT; 311 with STAT, none 0)
        return None
    if slots > 0xFFFFFFFF:
        raise AssemblyError(f"slot count {slots} does not fit 32 bits", first_line, 1)
    stat = Statistics()
    for name, value in _counts(prog, legacy).items():
        setattr(stat, name, value & 0xFFFFFFFF)  # (32-bit counters, wrapping as fxc's do)
    stat.instruction_count = slots
    stat.sm5_fields = prog.major >= 5
    lines = [line.strip() for line in header]
    for n, line in enumerate(lines):
        if line == "// Tessellation Domain   # of control points" and n + 2 < len(lines):
            domain, _, points = lines[n + 2][3:].rpartition(" ")
            stat.tessellator_domain = _DOMAIN_VALUES.get(domain.strip(), 0)
            stat.control_points = int(points) if points.isdigit() else 0
            if stat.control_points > 0xFFFFFFFF:
                raise AssemblyError(f"control point count {points} does not fit 32 bits",
                                    first_line - len(lines) + n + 2, 1)
        elif line.startswith("// Tessellation Output Primitive") and n + 2 < len(lines):
            row = lines[n + 2][3:]
            stat.hs_output_primitive = _PRIMITIVE_VALUES.get(row[:30].strip(), 0)
            stat.hs_partitioning = _PARTITIONING_VALUES.get(row[31:].strip(), 0)
        elif line == "// Pixel Shader runs at sample frequency":
            stat.is_sample_frequency_shader = 1
    return stat


_SIGNATURE_TITLES = (("Input signature", ("ISGN", "ISGN", "ISG1")),
                     ("Output signature", ("OSGN", "OSG5", "OSG1")),
                     ("Patch Constant signature", ("PCSG", "PCSG", "PSG1")))
_SIGNATURE_ROW = re.compile(r"// (\S+) +(\d+)   ( N/A|[xyzw ]{4}) +(\S+) +(\S+) +(\S+)(?:   (.*))?$")
_STREAM_PREFIX = re.compile(r"m([0-3]):")
_RDEF_PROGRAM_TYPES = {0: 0xFFFF, 1: 0xFFFE, 2: 0x4753, 3: 0x4853, 4: 0x4453, 5: 0x4353, 0xFFF0: 0x4C46}


def _rdef_target(prog: Program) -> int:
    return _RDEF_PROGRAM_TYPES.get(prog.program_type, 0xFFFF) << 16 | prog.major << 8 | prog.minor


def _signature_rows(header: list[str], title: str) -> list[tuple[int, str]] | None:
    """(line number, row) of the signature table under ``// title:``; None without the title.
    Patch-constant rows are printed before the input/output ones (hull and domain shaders)."""
    try:
        start = next(n for n, line in enumerate(header) if line.strip() == f"// {title}:")
    except StopIteration:
        return None
    rows: list[tuple[int, str]] = []
    for n in range(start + 1, len(header)):
        line = header[n].strip()
        if line.startswith("// ----"):
            continue
        if line.startswith("// Name ") or line == "//" and not rows:
            continue
        if not line.startswith("// ") or line.startswith("// no ") or line == "//":
            break
        rows.append((n + 1, header[n].strip()))
    return rows


def _mask(text: str) -> int:
    return sum(1 << i for i, ch in enumerate(text.ljust(4)[:4]) if ch == "xyzw"[i])


def _element(row: tuple[int, str], output: bool) -> SignatureElement:
    line, text = row
    m = _SIGNATURE_ROW.match(text)
    if m is None:
        raise AssemblyError(f"unreadable signature row {text!r}", line, 1)
    name, index, mask_text, register, sv_name, fmt, used = m.groups()
    used = used or ""
    stream = 0
    prefix = _STREAM_PREFIX.match(name)
    if prefix is not None:  # a multi-stream geometry shader's element: m1:NAME
        stream, name = int(prefix.group(1)), name[prefix.end():]
    sv = _SV_VALUES.get(sv_name)
    if sv is None:
        raise AssemblyError(f"unknown system value {sv_name!r}", line, m.start(5) + 1)
    if _PS_OUTPUTS.get(name.upper()) == sv_name:
        sv = 0  # pixel shader outputs keep 0; fxc names them from the semantic
    component, precision = _FORMATS.get(fmt, (None, 0))
    if component is None:
        raise AssemblyError(f"unknown format {fmt!r}", line, m.start(6) + 1)
    if int(index) > 0xFFFFFFFF or (register.isdigit() and int(register) >= 0xFFFFFFFF):
        raise AssemblyError(f"a number of {text!r} does not fit 32 bits", line, 1)
    element = SignatureElement(name, int(index), sv, component, 0, 0, 0, 0, stream, precision)
    if mask_text == " N/A":
        element.register = 0xFFFFFFFF
        element.mask = 1
        yes = used.strip() == "YES"
        # outputs: fxc sets the components never written, the mask's complement included
        element.read_write_mask = (0xF & ~element.mask if yes else element.mask) if output else int(yes)
        return element
    if not register.isdigit():
        raise AssemblyError(f"expected a register number, found {register!r}", line, m.start(4) + 1)
    element.register = int(register)
    element.mask = _mask(mask_text)
    used_mask = _mask(used)
    element.read_write_mask = 0xF & ~used_mask if output else used_mask
    return element


_SV_VALUES = {name: value for value, name in reversed(list(SV_NAMES.items()))}
_PS_OUTPUTS = {"SV_TARGET": "TARGET", "SV_DEPTH": "DEPTH", "SV_COVERAGE": "COVERAGE",
               "SV_DEPTHGREATEREQUAL": "DEPTHGE", "SV_DEPTHLESSEQUAL": "DEPTHLE", "SV_STENCILREF": "STENCILREF"}
_FORMATS: dict[str, tuple[int | None, int]] = {"unknown": (0, 0), "uint": (1, 0), "int": (2, 0), "float": (3, 0),
                                               "min16f": (3, 1), "min2_8f": (3, 2), "min16i": (2, 4),
                                               "min16u": (1, 5), "any16": (0, 0xF0), "any10": (0, 0xF1)}


def exact_text_problems(container: DxbcContainer, text: str) -> list[str]:
    """Programs of ``container`` that exact listing ``text`` does not rebuild word for word (the
    promise of ``disasm --exact``, checked; empty when kept)."""
    originals: list[list[int]] = []
    pending = [container]
    while pending:
        current = pending.pop(0)
        if current.shader is not None and not current.functions:
            originals.append(list(current.shader.tokens))
        pending.extend(current.functions)
        if current.effect is not None:
            pending.extend(s.container for s in current.effect.shaders)
    rebuilt = [encode(a.program) for a in assemble_listing(text)]
    problems = [f"program at line {a.line} does not rebuild the original's words"
                for a, words in zip(assemble_listing(text), rebuilt) if words not in originals]
    if len(rebuilt) != len(originals) and container.effect is None:
        problems.append(f"the text holds {len(rebuilt)} programs, the container {len(originals)}")
    return problems

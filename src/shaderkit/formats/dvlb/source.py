"""SHBIN -> picasso source text that re-assembles to the same bytes.

Each DVLE becomes one picasso source file; the parts are joined with ``; shaderkit: DVLE n``
marker lines, which ``shaderkit asm`` splits again (one DVLE per part, in order). The code blob
is cut into per-DVLE ranges at the entry points (when they are in increasing order) and each
range into ``.proc`` blocks at the entry and at every call target. Uniforms are declared in
register order with hidden ``_gapN`` fillers so that picasso allocates them to the same
registers; constants use ``.constf``/``.consti`` when picasso's top-down allocation gives their
register, else ``.setf``/``.seti``; ``.setb`` for bools. Operand descriptors are printed in
full (all four swizzle components and the negations) so that picasso's descriptor merging
rebuilds the same table. What picasso syntax cannot express is written as a ``; !`` comment
(and ``nop`` for an unknown instruction word, to keep addresses).

Files picasso did not make (nihstro, old picasso) also get ``; shaderkit: ...`` comment pragmas
that picasso ignores and ``shaderkit asm`` honours: the layout rule of the assembler that wrote
the file (``layout nihstro``, ``layout picasso-2014``, see ``rules.py``), the descriptor table and
each instruction's descriptor (nihstro keeps descriptors picasso would merge), DVLE header fields
picasso computes differently (version 0, masks 0, endmain 0), the uniform table order (nihstro
keeps declaration order) and label-table entries, so that the text rebuilds the same file.

Which pragmas a text needs is decided without assembling it (:func:`_decided_without_assembly`):
the text's procedures, blocks and labels are laid out as picasso lays them out, every flow-control
word is re-encoded from that layout, picasso's descriptor merging is replayed on the words and the
DVLE headers picasso would write are compared with the file's. Texts that check does not cover
(geometry shaders with their own uniform space, padding NOPs, unsorted uniform tables...) are assembled (with their instruction
lines handed over already scanned) and the result compared with the file.

Instruction text comes from one printer per opcode row (:data:`_PRINTERS`), built from
``isa/pica/table.py`` at import time.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from operator import attrgetter

from shaderkit.formats.dvlb.dvlb import (
    CONSTANT_BOOL,
    CONSTANT_FVEC,
    CONSTANT_IVEC,
    DVLE_VERSION_PICASSO,
    Dvlb,
    Dvle,
    Uniform,
)
from shaderkit.formats.dvlb.dvlb import mask_text as output_mask_text
from shaderkit.formats.dvlb.rules import RULE_PICASSO, matching_rule
from shaderkit.isa.pica.decode import decode
from shaderkit.isa.pica.float24 import f24_to_f32
from shaderkit.isa.pica.opdescs import DescriptorTable
from shaderkit.isa.pica.table import (
    BASE_OF_INVERTED,
    BY_MNEMONIC,
    BY_OPCODE6,
    CMP_OPS,
    CONDOP_AND,
    CONDOP_OR,
    CONDOP_X,
    CONST_KIND_NAMES,
    DC_MOVA,
    DC_PER_COMPONENT,
    DEFAULT_OPSRC,
    DESC_FORMATS,
    FORMAT_FIELDS,
    GSH_MODES,
    IDENTITY_SWIZZLE,
    IDX_NAMES,
    IDX_SOURCE,
    MAX_CONSTANT,
    MAX_OUTPUT,
    MAX_STACK,
    MAX_UNIFORM,
    MAX_VSH_SIZE,
    MOVA_TARGET_NAMES,
    MOVA_UNUSED_MASK,
    NAMED_INPUT_LIMIT,
    NARROW_SOURCE_END,
    NUM_BITS,
    OUTPUT_SEMANTICS,
    OUTPUT_SLOTS,
    SEMANTIC_DUMMY,
    SETEMIT_FLAG_TEXT,
    SPACE_OF_KIND,
    SPACES,
    SRC_SHIFT,
    SYNTAXES,
    TEXT_MNEMONIC,
    UNIT_MARKER,
    OpcodeInfo,
    dont_care_bits,
    dst_name,
    make_opdesc,
    mask_text,
    picasso_num,
    split_num,
    src_name,
    swizzle_text,
    uniform_space,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Final

    from shaderkit.isa.pica.assembler import ParsedInstruction

#: pragmas for shaderkit's assembler (comments to picasso): pin the descriptor table and choices
PRAGMA_OPDESCS: Final = "; shaderkit: opdescs"
PRAGMA_DESC: Final = "; shaderkit: desc"
PRAGMA_DVLE: Final = "; shaderkit: dvle"
PRAGMA_LABEL: Final = "; shaderkit: label"
PRAGMA_LAYOUT: Final = "; shaderkit: layout"
#: picasso -n: the file was made without automatic padding NOPs (picasso before v2.5 added none)
PRAGMA_NO_NOP: Final = "; shaderkit: no-nop"
PRAGMA_UNIFORM_ORDER: Final = "; shaderkit: uniform-order"


def opdescs_pragma(dvlb: Dvlb) -> str:
    """The ``; shaderkit: opdescs ...`` line pinning ``dvlb``'s descriptor table (an entry whose
    second word is not 0 with that word above bit 32)."""
    return " ".join([PRAGMA_OPDESCS, *(hex(d.extra << 32 | d.value) for d in dvlb.dvlp.opdescs)])


def desc_pragma(desc: int, inverted: bool) -> str:
    """The ``  ; shaderkit: desc N [inverted]`` comment ending an instruction line."""
    return f"  {PRAGMA_DESC} {desc}" + (" inverted" if inverted else "")


_FLOW_CALLS: Final = ("call", "callc", "callu")
_FLOW_JUMPS: Final = ("jmpc", "jmpu")
_KIND_DIRECTIVE: Final = {kind: f".{name}" for kind, name in CONST_KIND_NAMES.items()}
_V: Final = SPACES["v"]
_R: Final = SPACES["r"]
_C: Final = SPACES["c"]
_I: Final = SPACES["i"]
_B: Final = SPACES["b"]
_SPACE_START: Final = {kind: space.base for kind, space in SPACE_OF_KIND.items()}
_SPACE_COUNT: Final = {kind: space.count for kind, space in SPACE_OF_KIND.items()}
_SPACE_END: Final = {kind: space.end for kind, space in SPACE_OF_KIND.items()}
#: the register-file bounds read per instruction or table entry, as ints (a space's ``end`` is a
#: property of an interpreted class: a call at every read)
_V_END: Final = _V.end
_R_BASE: Final = _R.base
_R_END: Final = _R.end
_C_BASE: Final = _C.base
_C_END: Final = _C.end
_I_BASE: Final = _I.base
_I_END: Final = _I.end
_B_BASE: Final = _B.base
_OUTPUT_COUNT: Final = SPACES["o"].count
_SETEMIT_TEXT: Final = SETEMIT_FLAG_TEXT
#: how a text is written (the arguments of _sources): descriptor hints, DVLE header overrides,
#: layout rule, uniform-table orders
_Choice = tuple[bool, list[dict[str, int]], str, "list[list[int]] | None"]
#: a descriptor that prints every operand plainly (for a missing descriptor)
_PLAIN_DESC: Final = make_opdesc(0xF, DEFAULT_OPSRC, DEFAULT_OPSRC, DEFAULT_OPSRC)


def _uniform_kind(index: int) -> tuple[int, int]:
    """(kind, picasso register) of a uniform-table register index; kind -1 for inputs."""
    for table_base, kind, base in _UNIFORM_SPACES:
        if index >= table_base:
            return kind, index - table_base + base
    table_base, kind, base = _uniform_space_entry(uniform_space(index).prefix)  # (it raises: below every space)
    return kind, index - table_base + base


def _uniform_space_entry(prefix: str) -> tuple[int, int, int]:
    """(table base, kind or -1 for inputs, picasso base) of a uniform space."""
    space = SPACES[prefix]
    assert space.table_base is not None
    return space.table_base, (-1 if space.kind is None else space.kind), space.base


#: the uniform spaces in table.uniform_space's order (highest table base first), built at import
_UNIFORM_SPACES: Final = tuple(sorted((_uniform_space_entry(prefix) for prefix in "vcib"), reverse=True))


def _ident(name: str) -> str:
    """Symbol-table names hold ``.`` where the source had ``$``."""
    return name.replace(".", "$")


_IDENT_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _valid_ident(name: str) -> bool:
    """True for a name of _IDENT_CHARS not starting with a digit (an ASCII identifier, ``$`` a letter)."""
    return name.isascii() and name.replace("$", "_").isidentifier()


def _float_text(word: int) -> str:
    """Shortest text that parses back to this float24 (every float24 is exact as a float).

    picasso >= v2.7 keeps the sign of zero, so 0x800000 is written ``-0.0``.
    """
    return repr(f24_to_f32(word))


class _Names:
    """Register names for one DVLE's code: inputs, uniforms, constants, outputs.

    (A plain class, not a dataclass: building a dataclass costs about a millisecond at import.)"""

    __slots__ = ("src", "dst", "flags", "texts", "plain")

    def __init__(self) -> None:
        self.src: dict[int, tuple[str, int, int]] = {}  # reg -> (name, base, size)
        self.dst: dict[int, str] = {}
        self.flags: dict[int, str] = {}  # picasso register (i 0x80.., b 0x88..) -> text
        #: source text by register << 2 | index register (``plain``: by register, unindexed), once
        #: the names are complete (the code is printed)
        self.texts: dict[int, str] = {}
        self.plain: dict[int, str] = {}

    def flag(self, reg: int) -> str:
        space = _I if reg < _B_BASE else _B
        return self.flags.get(reg) or f"{space.prefix}{reg - space.base}"

    def source_ref(self, reg: int) -> tuple[str, int]:
        """(name, offset) the text uses for source register ``reg``."""
        found = self.src.get(reg)
        if found is None:
            return _raw_src(reg), 0
        return found[0], reg - found[1]

    def source(self, reg: int, idx: int) -> str:
        key = reg << 2 | idx
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = self._source(reg, idx)
        return text

    def plain_source(self, reg: int) -> str:
        """source(reg, 0) (no index register: IDX_NAMES[0] is ""), kept by register (a small int
        key: no int object is made)."""
        found = self.src.get(reg)
        if found is None:
            text = _raw_src(reg)
        else:
            name, first, size = found
            text = name if size == 1 else f"{name}[{reg - first}]"
        self.plain[reg] = text
        return text

    def _source(self, reg: int, idx: int) -> str:
        found = self.src.get(reg)
        rel = IDX_NAMES[idx] if 0 <= idx < len(IDX_NAMES) else ""
        if found is None:
            base = _raw_src(reg)
            return f"{base}[{rel}]" if rel else base
        name, first, size = found
        offset = reg - first
        if size == 1 and not rel:
            return name
        if rel:
            return f"{name}[{rel}+{offset}]" if offset else f"{name}[{rel}]"
        return f"{name}[{offset}]"

    def dest(self, reg: int) -> str:
        return self.dst.get(reg) or _raw_dst(reg)


_raw_src = src_name
_raw_dst = dst_name


class _Allocation:
    """Simulates picasso's shared (vertex shader) uniform allocation across the DVLEs."""

    def __init__(self) -> None:
        self.start = dict(_SPACE_START)
        self.known: dict[str, tuple[int, int, int]] = {}  # name -> (kind, reg, size)
        self.gaps = 0

    def gap_name(self) -> str:
        self.gaps += 1
        return f"_gap{self.gaps}"


class _Unit:
    """The text of one DVLE being written (a plain class: see _Names)."""

    def __init__(self, entry: str = "") -> None:
        self.lines: list[str] = []
        self.notes: list[str] = []
        #: line index -> its instruction as the assembler scans it (see _Code.scanned)
        self.scanned: dict[int, ParsedInstruction] = {}
        #: the structure the text gives the assembler: if/for blocks (position, end, else or -1),
        #: procedures (name -> start, end), label positions, and the target named by each call or jump
        self.blocks: list[tuple[int, int, int]] = []
        self.procs: dict[str, tuple[int, int]] = {}
        self.labels: list[tuple[str, int]] = []
        self.targets: dict[int, str] = {}
        #: the name of the DVLE's entry procedure, and the deepest block nesting of its code
        self.entry = entry
        self.depth = 0
        #: a geometry DVLE written with a bare ``.gsh`` (picasso's compatible mode: shared uniform space)
        self.compat_gsh = False
        #: where the header pragmas go (after the marker and layout lines), and the instruction lines
        #: (first line, first word, end word: one line per word from the first line on), for the
        #: descriptor hints of _with_pragmas
        self.pragma_at = 0
        self.code_runs: list[tuple[int, int, int]] = []
        #: note lines ("; ! ...") that descriptor hints make moot (see _with_pragmas)
        self.pinned_notes: list[int] = []
        #: the printer of the code (shared by the units of one file)
        self.printer: _Code | None = None
        #: from the uniform table (_declare_uniforms): the input registers it declares, one bit
        #: each; entries not in increasing register order; a name picasso would read as a register
        self.input_mask = 0
        self.uniforms_unsorted = False
        self.shadowing_uniform = False

    def add(self, text: str) -> None:
        self.lines.append(text)

    def lossy(self, text: str) -> None:
        self.lines.append(f"; ! {text}")
        self.notes.append(text)


def _kind_list(per_kind: dict[int, list[tuple[int, int, str]]], kind: int) -> list[tuple[int, int, str]]:
    """``per_kind[kind]``, made empty when missing (setdefault would make a list at every call)."""
    found = per_kind.get(kind)
    if found is None:
        found = per_kind[kind] = []
    return found


def _declare_uniforms(unit: _Unit, dvle: Dvle, alloc: _Allocation, gsh_space: bool,
                      first_free: int, names: _Names, used: set[str]) -> None:
    inputs = []
    per_kind: dict[int, list[tuple[int, int, str]]] = {}
    previous = -1
    for u in dvle.uniforms:
        first = u.first_register
        kind, reg = _uniform_kind(first)
        size = u.last_register - first + 1
        name = _ident(u.name)
        # what the replay asks of the uniform table (see _Unit)
        if first <= previous:
            unit.uniforms_unsorted = True
        previous = first
        if first < _V_END:
            unit.input_mask |= 1 << first
        if _register_like(name):
            unit.shadowing_uniform = True
        if not name and kind >= 0 and "" not in used:
            # picasso names a uniform "" for an empty argument (".fvec ,"); code reads it by register
            used.add(name)
            _kind_list(per_kind, kind).append((reg, size, name))
            continue
        if not _valid_ident(name) or name.startswith("_") or name in used:
            fixed = "u_" + "".join(c if c in _IDENT_CHARS else "_" for c in name)
            while fixed in used:
                fixed += "_"
            unit.lossy(f"uniform name {u.name!r} cannot be written; renamed {fixed}")
            name = fixed
        used.add(name)
        if kind < 0:
            if size != 1:
                unit.lossy(f"input {u.name} covers several registers; only the first is declared")
            inputs.append((reg, name))
            continue
        if size < 1 or reg + size > _SPACE_END[kind]:
            unit.lossy(f"uniform {u.name} has an invalid register range")
            continue
        _kind_list(per_kind, kind).append((reg, size, name))
        if kind == CONSTANT_FVEC:
            named = (name, reg, size)
            for r in range(reg, reg + size):
                names.src.setdefault(r, named)
        else:
            for r in range(reg, reg + size):
                names.flags.setdefault(r, name if size == 1 else f"{name}[{r - reg}]")
    for reg, name in inputs:
        unit.add(f".in {name} {_input_text(reg)}")
        names.src.setdefault(reg, (name, reg, 1))
    local_start = dict(alloc.start)
    if gsh_space:
        local_start = {**_SPACE_START, CONSTANT_FVEC: first_free}
    for kind in (CONSTANT_FVEC, CONSTANT_IVEC, CONSTANT_BOOL):
        declared = per_kind.get(kind)
        if declared is None:
            continue
        declared.sort()
        directive = _KIND_DIRECTIVE[kind]
        for reg, size, name in declared:
            decl = f"{name}[{size}]" if size > 1 else name or ","
            known = None if gsh_space else alloc.known.get(name)
            if known is not None:
                if known != (kind, reg, size):
                    unit.lossy(f"uniform {name} is declared elsewhere with another register or size")
                unit.add(f"{directive} {decl}")
                continue
            start = local_start[kind]
            if reg < start:
                unit.lossy(f"uniform {name} overlaps an earlier allocation; picasso moves it")
            elif reg > start:
                unit.add(f"{directive} {alloc.gap_name()}[{reg - start}]")
            unit.add(f"{directive} {decl}")
            local_start[kind] = max(start, reg) + size
            if not gsh_space:
                alloc.known[name] = (kind, reg, size)
    if not gsh_space:
        alloc.start = local_start


def _shared_space_conflicts(dvles: list[Dvle], alloc: _Allocation) -> int:
    """How many uniforms of these DVLEs, placed in turn in the shared (vertex shader) uniform space
    after ``alloc``, picasso could not have put where they are (``alloc`` is left as it was)."""
    trial = _Allocation()
    trial.start, trial.known, trial.gaps = dict(alloc.start), dict(alloc.known), alloc.gaps
    conflicts = 0
    for dvle in dvles:
        scratch = _Unit()
        _declare_uniforms(scratch, dvle, trial, False, _C_BASE, _Names(), set())
        conflicts += len(scratch.notes)
    return conflicts


def _conflicts_in_shared_space(dvlb: Dvlb, index: int, alloc: _Allocation) -> bool:
    """True when a legacy ``.gsh`` (shared uniform space) for geometry DVLE ``index`` could not have
    given the file's uniforms their registers: its own uniforms would not fit, or they would push
    the uniforms of a later vertex DVLE (shared space too) away from where picasso put them, which
    ``.gsh point cN`` (same header, a uniform space of its own) does not."""
    dvle = dvlb.dvles[index]
    if _shared_space_conflicts([dvle], alloc):
        return True
    later = [d for d in dvlb.dvles[index + 1:] if not d.is_geometry]
    return bool(later) and _shared_space_conflicts([dvle, *later], alloc) > _shared_space_conflicts(later, alloc)


def _declare_constants(unit: _Unit, dvle: Dvle, names: _Names, used: set[str]) -> None:
    end = {CONSTANT_FVEC: _C_END, CONSTANT_IVEC: _I_END}
    for const in dvle.constants:
        words, kind, register = const.words, const.type, const.register
        if kind == CONSTANT_BOOL:
            unit.add(f".setb b{register} {'true' if words[0] else 'false'}")
            if words[0] > 1 or any(words[1:]):
                unit.lossy("bool constant has extra bits set")
            continue
        if kind == CONSTANT_FVEC:
            reg = _C_BASE + register
            args = ", ".join([_float_text(w) for w in words])
            if any(w >> 24 or ((w & 0x7F0000) == 0x7F0000 and w & 0xFFFF) for w in words):
                unit.lossy("fvec constant holds bits picasso cannot produce (NaN or high bits)")
            prefix, setter = "constf", "setf"
        elif kind == CONSTANT_IVEC:
            reg = _I_BASE + register
            args = ", ".join(str(b) for b in words[0].to_bytes(4, "little"))
            if any(words[1:]):
                unit.lossy("ivec constant has extra words set")
            prefix, setter = "consti", "seti"
        else:
            unit.lossy(f"constant of unknown type {kind} dropped")
            continue
        letter = _C.prefix if kind == CONSTANT_FVEC else _I.prefix
        if reg == end[kind] - 1:
            name = f"const{register}" if letter == "c" else f"iconst{register}"
            while name in used:
                name += "_"
            used.add(name)
            unit.add(f".{prefix} {name}({args})")
            end[kind] -= 1
            if kind == CONSTANT_FVEC:
                names.src[reg] = (name, reg, 1)
        else:
            unit.add(f".{setter} {letter}{register}({args})")


#: an output mask's register suffix: its components (bit 0 = x) after a dot, none for xyzw
_OUTPUT_SUFFIXES: Final = tuple("" if mask == 0xF else "." + output_mask_text(mask) for mask in range(16))


def _declare_outputs(unit: _Unit, dvle: Dvle, names: _Names, used: set[str]) -> None:
    for out in dvle.outputs:
        register, mask = out.register, out.mask
        semantic = OUTPUT_SEMANTICS.get(out.semantic)
        if semantic is None:
            unit.lossy(f"output o{register} has semantic {out.semantic}, which picasso cannot write")
            continue
        if not 0 < mask < 16:
            unit.lossy(f"output o{register} has component mask {mask:#x}")
            continue
        name = "-"
        if register not in names.dst:
            name = f"out_{semantic}"
            while name in used:
                name += "_"
            used.add(name)
            names.dst[register] = name
        unit.add(f".out {name} {semantic} o{register}{_OUTPUT_SUFFIXES[mask]}")


def _cond_text(refx: int, refy: int, op: int) -> str | None:
    x = ("" if refx else "!") + "cmp.x"
    y = ("" if refy else "!") + "cmp.y"
    if op == CONDOP_OR:
        return f"{x} || {y}"
    if op == CONDOP_AND:
        return f"{x} && {y}"
    if op == CONDOP_X:
        return x if refy else None
    return y if refx else None


#: (refx, refy, condop) -> the condition's text, None when picasso cannot write it
_COND_TEXTS: Final = {(x, y, op): _cond_text(x, y, op) for x in (0, 1) for y in (0, 1) for op in range(4)}
#: a source's 9 descriptor bits (negate | swizzle << 1) -> (sign, ".swizzle" or "")
_SOURCE_MODIFIERS: Final = tuple((sign, suffix) for suffix in ("" if swizzle == IDENTITY_SWIZZLE else "." + swizzle_text(swizzle)
                                                         for swizzle in range(256)) for sign in ("", "-"))
#: the _SOURCE_MODIFIERS of a source after another operand: ", " and the sign, and the swizzle
_LISTED_SIGNS: Final = tuple(", " + sign for sign, _ in _SOURCE_MODIFIERS)
_LISTED_SWIZZLES: Final = tuple(suffix for _, suffix in _SOURCE_MODIFIERS)
#: destination mask -> its suffix ("" for xyzw)
_MASK_SUFFIXES: Final = tuple("" if mask == 0xF else "." + mask_text(mask) for mask in range(16))

#: one operand's text: (printer, unit, position, word, descriptor, names, labels) -> text, or None for none
_OperandPrinter = Callable[["_Code", "_Unit", int, int, int, "_Names", "dict[int, str]"], "str | None"]
#: one instruction's text: (printer, unit, position, word, names, labels) -> text
_RowPrinter = Callable[["_Code", "_Unit", int, int, "_Names", "dict[int, str]"], str]


def _operand_printer(kind: str, fmt: str) -> _OperandPrinter:
    """The printer of one operand kind (table.SYNTAXES) of a form, its fields' shifts built in."""
    spec = {name: (lsb, (1 << width) - 1) for name, lsb, width in FORMAT_FIELDS[fmt]}

    def shift_mask(name: str) -> tuple[int, int]:
        return spec.get(name, (0, 0))

    if kind in ("src1", "src2", "src3"):
        reg_lsb, reg_mask = shift_mask(kind)
        idx_lsb, idx_mask = shift_mask("idx") if kind == IDX_SOURCE.get(fmt) else (0, 0)
        desc_shift = SRC_SHIFT[int(kind[3]) - 1]

        def source(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                   labels: dict[int, str]) -> str:
            sign, swizzle = _SOURCE_MODIFIERS[(desc >> desc_shift) & 0x1FF]
            return sign + names.source((word >> reg_lsb) & reg_mask, (word >> idx_lsb) & idx_mask) + swizzle
        return source
    if kind == "dst":
        dst_lsb, dst_mask = shift_mask("dst")

        def dest(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                 labels: dict[int, str]) -> str:
            mask = desc & 0xF
            if not mask:
                unit.lossy("destination mask is empty")
                return names.dest((word >> dst_lsb) & dst_mask) + ".x"
            return names.dest((word >> dst_lsb) & dst_mask) + _MASK_SUFFIXES[mask]
        return dest
    if kind == "a0":
        def a0(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
               labels: dict[int, str]) -> str:
            target = MOVA_TARGET_NAMES.get(desc & 0xC)
            if target is None:
                unit.lossy(f"mova destination mask {desc & 0xF:#x}")
                target = MOVA_TARGET_NAMES[8]
            elif desc & MOVA_UNUSED_MASK and not code.hints:
                # bits z, w (never read) the text cannot say: a "desc" pragma pinning the
                # descriptor keeps them, so the note goes when the pragmas are written
                unit.lossy(f"mova destination mask {desc & 0xF:#x}")
                unit.pinned_notes.append(len(unit.lines) - 1)
            return target
        return a0
    if kind in ("cmpx", "cmpy"):
        cmp_lsb, cmp_mask = shift_mask(kind)

        def compare(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                    labels: dict[int, str]) -> str:
            op = (word >> cmp_lsb) & cmp_mask
            if op >= len(CMP_OPS):
                unit.lossy("compare operator 6/7 does not exist")
            return CMP_OPS[min(op, len(CMP_OPS) - 1)]
        return compare
    num_lsb, num_mask = shift_mask("num")
    hi_lsb, hi_mask = shift_mask("num_hi")
    dst_lsb, dst_mask = shift_mask("dst")
    if kind == "cond":
        (x_lsb, _), (y_lsb, _), (op_lsb, op_mask) = shift_mask("refx"), shift_mask("refy"), shift_mask("condop")

        def cond(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                 labels: dict[int, str]) -> str:
            op = (word >> op_lsb) & op_mask
            text = _COND_TEXTS[(word >> x_lsb) & 1, (word >> y_lsb) & 1, op]
            if text is None:
                unit.lossy("single-register condition with the other reference bit cleared")
                text = "cmp.x" if op == CONDOP_X else "cmp.y"
            return text
        return cond
    if kind in ("proc", "label"):
        def target(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                   labels: dict[int, str]) -> str:
            dst = (word >> dst_lsb) & dst_mask
            if kind == "label":
                name = code.jump_label(unit, dst, labels)
            else:
                name = code.proc_name(unit, dst, ((word >> num_lsb) & num_mask) | ((word >> hi_lsb) & hi_mask) << NUM_BITS)
            unit.targets[pos] = name
            return name
        return target
    if kind in ("bool", "[!]bool", "int"):
        flag_lsb, flag_mask = shift_mask("int_id" if kind == "int" else "bool_id")
        base = _I_BASE if kind == "int" else _B_BASE

        def flag(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
                 labels: dict[int, str]) -> str:
            text = names.flag(base + ((word >> flag_lsb) & flag_mask))
            if kind != "[!]bool":
                return text
            num = (word >> num_lsb) & num_mask
            if (num | ((word >> hi_lsb) & hi_mask) << NUM_BITS) & ~1:  # jmpu: NUM bit 0 inverts the condition
                unit.lossy("jmpu NUM has bits besides the inversion bit")
            return ("!" if num & 1 else "") + text
        return flag
    if kind == "vertex":
        vertex_lsb, vertex_mask = shift_mask("vertex_id")
        return lambda code, unit, pos, word, desc, names, labels: str((word >> vertex_lsb) & vertex_mask)
    assert kind == "[flags]", kind
    flag_fields = tuple((text, *shift_mask(name)) for text, name in _SETEMIT_TEXT)

    def flags(code: _Code, unit: _Unit, pos: int, word: int, desc: int, names: _Names,
              labels: dict[int, str]) -> str | None:
        return " ".join(text for text, lsb, mask in flag_fields if (word >> lsb) & mask) or None
    return flags


def _row_printer(row: OpcodeInfo) -> _RowPrinter:
    """``mnemonic operand, ...`` of one opcode row, from its syntax (table.SYNTAXES); the rows
    written ``dst, src...`` print through their :class:`_RegisterForm` instead."""
    mnemonic = TEXT_MNEMONIC.get(row.mnemonic, row.base)
    if row.mnemonic.startswith("unk"):
        def unknown(code: _Code, unit: _Unit, pos: int, word: int, names: _Names, labels: dict[int, str]) -> str:
            unit.lossy(f"unknown instruction word {word:#010x} (written as nop)")
            return "nop"
        return unknown
    kinds = SYNTAXES[row.syntax]
    operands = tuple(_operand_printer(kind, row.fmt) for kind in kinds)
    if not operands:
        return lambda code, unit, pos, word, names, labels: mnemonic
    if row.fmt not in DESC_FORMATS:
        def flow(code: _Code, unit: _Unit, pos: int, word: int, names: _Names, labels: dict[int, str]) -> str:
            parts = [text for op in operands if (text := op(code, unit, pos, word, 0, names, labels)) is not None]
            return f"{mnemonic} {', '.join(parts)}" if parts else mnemonic
        return flow
    desc_lsb, desc_mask = next((lsb, (1 << width) - 1) for name, lsb, width in row.fields if name == "desc")
    head = mnemonic + " "

    def alu(code: _Code, unit: _Unit, pos: int, word: int, names: _Names, labels: dict[int, str]) -> str:
        desc = _descriptor(code, unit, (word >> desc_lsb) & desc_mask)
        return head + ", ".join([op(code, unit, pos, word, desc, names, labels) for op in operands])  # type: ignore[misc]
    return alu


def _descriptor(code: _Code, unit: _Unit, index: int) -> int:
    """Operand descriptor ``index`` of the code (a missing one: noted, and the plain descriptor)."""
    if index < len(code.opdescs):
        return code.opdescs[index]
    unit.lossy(f"operand descriptor {index} does not exist")
    return _PLAIN_DESC


#: the text of every unnamed destination (5-bit field) and unindexed source (7-bit field), built at import
_RAW_DEST_TEXTS: Final = tuple(_raw_dst(reg) for reg in range(32))
_RAW_SOURCE_TEXTS: Final = tuple(_raw_src(reg) for reg in range(128))


class _RegisterForm:
    """How a form written ``dst, src...`` prints (most ALU rows): the operand printers of
    :func:`_operand_printer` unrolled into one plan (the same text and notes, in the same order).
    A compiled class: :func:`_emit` calls :meth:`text` directly, not through a generic call, and
    the line is built in one step (one to three sources, each a field per attribute)."""

    def __init__(self, row: OpcodeInfo, head: str, desc_lsb: int, desc_mask: int) -> None:
        spec = {name: (lsb, (1 << width) - 1) for name, lsb, width in FORMAT_FIELDS[row.fmt]}
        idx_source = IDX_SOURCE.get(row.fmt)
        self.head = head
        self.desc_lsb, self.desc_mask = desc_lsb, desc_mask
        self.dst_lsb, self.dst_mask = spec["dst"]
        #: per source: (descriptor shift, register field, idx field)
        sources = [(SRC_SHIFT[int(kind[3]) - 1], *spec[kind], *(spec["idx"] if kind == idx_source else (0, 0)))
                   for kind in SYNTAXES[row.syntax][1:]]
        assert 1 <= len(sources) <= 3 and self.dst_mask < len(_RAW_DEST_TEXTS)
        assert all(mask < len(_RAW_SOURCE_TEXTS) for _, _, mask, _, _ in sources)
        self.count = len(sources)
        sources += [(0, 0, 0, 0, 0)] * (3 - len(sources))
        self.shift1, self.lsb1, self.mask1, self.idx_lsb1, self.idx_mask1 = sources[0]
        self.shift2, self.lsb2, self.mask2, self.idx_lsb2, self.idx_mask2 = sources[1]
        self.shift3, self.lsb3, self.mask3, self.idx_lsb3, self.idx_mask3 = sources[2]

    def text(self, code: _Code, unit: _Unit, word: int, names: _Names, indent: str = "") -> str:
        """The instruction's text after ``indent``."""
        descs, index = code.opdescs, (word >> self.desc_lsb) & self.desc_mask
        desc = descs[index] if index < len(descs) else _descriptor(code, unit, index)
        reg = (word >> self.dst_lsb) & self.dst_mask
        dst = names.dst.get(reg) or _RAW_DEST_TEXTS[reg]
        if desc & 0xF:
            suffix = _MASK_SUFFIXES[desc & 0xF]
        else:
            unit.lossy("destination mask is empty")
            suffix = ".x"
        sign1, text1, swizzle1 = _source_text(word, desc, names, self.shift1, self.lsb1, self.mask1,
                                              self.idx_lsb1, self.idx_mask1)
        if self.count == 1:
            return f"{indent}{self.head}{dst}{suffix}{sign1}{text1}{swizzle1}"
        sign2, text2, swizzle2 = _source_text(word, desc, names, self.shift2, self.lsb2, self.mask2,
                                              self.idx_lsb2, self.idx_mask2)
        if self.count == 2:
            return f"{indent}{self.head}{dst}{suffix}{sign1}{text1}{swizzle1}{sign2}{text2}{swizzle2}"
        sign3, text3, swizzle3 = _source_text(word, desc, names, self.shift3, self.lsb3, self.mask3,
                                              self.idx_lsb3, self.idx_mask3)
        return (f"{indent}{self.head}{dst}{suffix}{sign1}{text1}{swizzle1}{sign2}{text2}{swizzle2}"
                f"{sign3}{text3}{swizzle3}")


def _source_text(word: int, desc: int, names: _Names, shift: int, lsb: int, mask: int, idx_lsb: int,
                 idx_mask: int) -> tuple[str, str, str]:
    """A source operand of a :class:`_RegisterForm`: (", " and its sign, register text, swizzle)."""
    reg, idx = (word >> lsb) & mask, (word >> idx_lsb) & idx_mask
    modifiers = (desc >> shift) & 0x1FF
    sign, swizzle = _LISTED_SIGNS[modifiers], _LISTED_SWIZZLES[modifiers]
    if idx:
        return sign, names.source(reg, idx), swizzle
    if reg in names.src:
        return sign, names.plain.get(reg) or names.plain_source(reg), swizzle
    return sign, _RAW_SOURCE_TEXTS[reg], swizzle


def _register_form(row: OpcodeInfo) -> _RegisterForm | None:
    """The :class:`_RegisterForm` of a row written ``dst, src...``, else None."""
    kinds = SYNTAXES[row.syntax]
    if (row.mnemonic.startswith("unk") or row.fmt not in DESC_FORMATS or not kinds or kinds[0] != "dst"
            or not set(kinds[1:]) <= {"src1", "src2", "src3"}):
        return None
    desc_lsb, desc_mask = next((lsb, (1 << width) - 1) for name, lsb, width in row.fields if name == "desc")
    return _RegisterForm(row, TEXT_MNEMONIC.get(row.mnemonic, row.base) + " ", desc_lsb, desc_mask)


def _register_printer(form: _RegisterForm) -> _RowPrinter:
    """``form`` as a row printer."""
    return lambda code, unit, pos, word, names, labels: form.text(code, unit, word, names)


#: the register form of each 6-bit opcode value (None for the other rows), built at import
_REGISTER_FORMS6: Final = tuple(_register_form(row) for row in BY_OPCODE6)
#: one printer per 6-bit opcode value, built from the table at import time
_PRINTERS: Final[tuple[_RowPrinter, ...]] = tuple(_row_printer(row) if form is None else _register_printer(form)
                                                  for row, form in zip(BY_OPCODE6, _REGISTER_FORMS6))


_Field = tuple[int, int, int, int]


def _word_tables() -> tuple[tuple[int, ...], tuple[tuple[int, int] | None, ...], tuple[tuple[tuple[int, int], ...], ...],
                            tuple[_Field | None, ...], tuple[_Field | None, ...],
                            tuple[tuple[tuple[str, int, int], ...], ...]]:
    """Per 6-bit opcode value, from one walk of the rows' field layouts: the bits no field covers
    (what decode() calls ``extra``); the descriptor field of descriptor forms and their source
    fields ((lsb, mask) each); the source relative addressing applies to and the ``idx`` field
    (register lsb, mask, idx lsb, mask), or None; for an inverted form (dphi, dsti, sgei, slti,
    madi) its wide source and the ``idx`` field, else None; every field (name, lsb, mask), as
    decode() reads them."""
    from shaderkit.isa.pica.decode import word_layouts

    reserved: list[int] = []
    desc: list[tuple[int, int] | None] = []
    sources: list[tuple[tuple[int, int], ...]] = []
    indexed: list[_Field | None] = []
    inverted: list[_Field | None] = []
    every: list[tuple[tuple[str, int, int], ...]] = []
    for row, fields, extra_bits in word_layouts():
        every.append(fields)
        spec = {name: (lsb, mask) for name, lsb, mask in fields}
        described = row.fmt in DESC_FORMATS
        reserved.append(extra_bits)
        desc.append(spec["desc"] if described else None)
        sources.append(tuple(spec[name] for name in ("src1", "src2", "src3") if name in spec) if described else ())
        kind = IDX_SOURCE.get(row.fmt)
        indexed.append((*spec[kind], *spec["idx"]) if kind in spec and "idx" in spec else None)
        wide = "src3" if row.fmt == "5i" else "src2"
        inverted.append((*spec[wide], *spec["idx"]) if row.mnemonic in BASE_OF_INVERTED else None)
    return tuple(reserved), tuple(desc), tuple(sources), tuple(indexed), tuple(inverted), tuple(every)


#: built from the table at import time (see _word_tables)
_WORD_TABLES: Final = _word_tables()
_RESERVED6: Final = _WORD_TABLES[0]
_DESC_FIELD6: Final = _WORD_TABLES[1]
_INVERTED6: Final = _WORD_TABLES[4]
_FIELDS6: Final = _WORD_TABLES[5]


class _SourceReads:
    """What a word of one 6-bit opcode reads, for the alias scan: its source fields (none for the
    forms without a descriptor, else one to three) and the source relative addressing applies to.
    A compiled class: the scan reads its fields as C ints."""

    def __init__(self, sources: tuple[tuple[int, int], ...], indexed: _Field | None) -> None:
        assert len(sources) <= 3
        self.count = len(sources)
        padded = [*sources, *[(0, 0)] * (3 - len(sources))]
        (self.lsb1, self.mask1), (self.lsb2, self.mask2), (self.lsb3, self.mask3) = padded
        self.indexed = indexed is not None
        self.reg_lsb, self.reg_mask, self.idx_lsb, self.idx_mask = indexed or (0, 0, 0, 0)

    def inputs(self, word: int) -> int:
        """The input registers the word's sources read, one bit each."""
        read = 0
        if self.count >= 1:
            reg = (word >> self.lsb1) & self.mask1
            if reg < _V_END:
                read |= 1 << reg
            if self.count >= 2:
                reg = (word >> self.lsb2) & self.mask2
                if reg < _V_END:
                    read |= 1 << reg
                if self.count >= 3:
                    reg = (word >> self.lsb3) & self.mask3
                    if reg < _V_END:
                        read |= 1 << reg
        return read

    def indexed_register(self, word: int) -> int:
        """The register read with relative addressing, or -1."""
        if self.indexed and (word >> self.idx_lsb) & self.idx_mask:
            return (word >> self.reg_lsb) & self.reg_mask
        return -1


#: the _SourceReads of each 6-bit opcode value, built at import
_SOURCE_READS6: Final = tuple(_SourceReads(sources, indexed) for sources, indexed in zip(_WORD_TABLES[2], _WORD_TABLES[3]))


def _operands(word: int) -> dict[str, int]:
    """``decode(word).operands`` (the printer reads a few fields of a few words: no Instruction)."""
    return {name: (word >> lsb) & mask for name, lsb, mask in _FIELDS6[(word & 0xFFFFFFFF) >> 26]}


#: per 6-bit opcode value: True when the row's mnemonic names that row (the assembler encodes the
#: mnemonic with it: ENCODERS)
_OWN_ROW6: Final = tuple(BY_MNEMONIC.get(row.mnemonic) is row for row in BY_OPCODE6)


def _assembles_to(word: int, fields: dict[str, int]) -> bool:
    """True when the assembler writes ``word`` for its row's mnemonic and these field values
    (``ENCODERS[mnemonic](fields) == word``, without the call): the row has every field given, each
    field of the word holds the value given (0 where none is), and no other bit is set."""
    if not 0 <= word <= 0xFFFFFFFF or word & _RESERVED6[word >> 26] or not _OWN_ROW6[word >> 26]:
        return False
    given = 0
    for name, lsb, mask in _FIELDS6[word >> 26]:
        value = fields.get(name)
        if value is not None:
            given += 1
        if (word >> lsb) & mask != (0 if value is None else value):
            return False
    return given == len(fields)


def _forced_inverted(word: int) -> bool:
    """An inverted-form word picasso's own choice would not give (its wide source is narrow and
    unindexed): the descriptor pragma must say "inverted"."""
    field = _INVERTED6[(word & 0xFFFFFFFF) >> 26]
    return field is not None and (word >> field[0]) & field[1] < NARROW_SOURCE_END and not (word >> field[2]) & field[3]


def _proc_label(start: int) -> str:
    """The name of a procedure starting at word ``start`` that no entry point names: ``proc_`` and
    at least three hex digits (a format spec would make this a ``str.format`` call)."""
    return "proc_" + hex(start)[2:].zfill(3) if start >= 0 else f"proc_{start:03x}"


class _Code:
    """Prints the instructions of one DVLE's code range."""

    def __init__(self, code: list[int], opdescs: list[int], procs: dict[tuple[int, int], str],
                 proc_starts: dict[int, str]) -> None:
        #: add "; shaderkit: desc N" to each instruction (when picasso's merging would differ)
        self.hints = False
        #: optional text appended to each instruction line, given its word index (disasm --offsets)
        self.marker: Callable[[int], str] | None = None
        #: also record each instruction as the assembler scans its text (plain text only)
        self.scan = False
        self.parsed_type: type[ParsedInstruction] | None = None
        #: dest mask -> the swizzle value the assembler reads from its printed ``.xz`` (or none)
        self.dest_sw: tuple[int, ...] = ()
        self.code = code
        #: the positions of the words that shape the text (calls, jumps, if and loop blocks), in
        #: order: the passes that look for them walk these only
        self.structure = [pos for pos, word in enumerate(code) if _STRUCTURE6[(word & 0xFFFFFFFF) >> 26]]
        self.opdescs = opdescs
        #: a descriptor entry's second word is not 0 (set by _units)
        self.descriptor_extras = False
        #: _ranges of the file (set by _units)
        self.ranges: list[tuple[int, int]] | None = None
        self.procs = procs
        self.proc_starts = proc_starts

    def row(self, pos: int) -> OpcodeInfo:
        """The opcode row of the word at ``pos`` (operand fields are read from the word where needed)."""
        return BY_OPCODE6[(self.code[pos] & 0xFFFFFFFF) >> 26]

    def proc_name(self, unit: _Unit, start: int, num: int) -> str:
        name = self.procs.get((start, num))
        if name is None:
            unit.lossy(f"call target {start}+{num} is not one procedure")
            name = self.proc_starts.get(start) or _proc_label(start)
        return name

    def scanned(self, pos: int, names: _Names) -> ParsedInstruction | None:
        """What the assembler's scan of this instruction's printed operands gives (descriptor
        forms only; the text is written from the same names and descriptor)."""
        inst = decode(self.code[pos])
        row = inst.info
        index = inst.get("desc")
        parsed_type = self.parsed_type
        if (parsed_type is None or row.fmt not in DESC_FORMATS or row.mnemonic.startswith("unk")
                or index >= len(self.opdescs)):
            return None
        desc = self.opdescs[index]
        ops = inst.operands
        idx_source = IDX_SOURCE.get(row.fmt)
        out: list[tuple[str, int, int, int]] = []
        for kind in SYNTAXES[row.syntax]:
            if kind in ("src1", "src2", "src3"):
                body, offset = names.source_ref(ops[kind])
                field_bits = (desc >> SRC_SHIFT[int(kind[3]) - 1]) & 0x1FF
                out.append((body, offset, ops["idx"] if kind == idx_source else 0, field_bits))
            elif kind == "dst":
                out.append((names.dest(ops["dst"]), 0, 0, self.dest_sw[desc & 0xF]))
            elif kind == "a0":
                out.append(("", 0, 0, desc & 0xC))
            else:  # cmpx, cmpy
                out.append(("", 0, 0, ops[kind]))
        return parsed_type(TEXT_MNEMONIC.get(row.mnemonic, row.base), tuple(out))

    def text(self, unit: _Unit, pos: int, names: _Names, labels: dict[int, str]) -> str:
        word = self.code[pos]
        op6 = (word & 0xFFFFFFFF) >> 26
        extra = word & _RESERVED6[op6]
        if extra:
            unit.lossy(f"word {word:#010x} has bits picasso never sets ({extra:#x})")
        text = _PRINTERS[word >> 26](self, unit, pos, word, names, labels)
        desc_field = _DESC_FIELD6[op6]
        if self.hints and desc_field is not None:
            text += desc_pragma((word >> desc_field[0]) & desc_field[1], _forced_inverted(word))
        return text + self.marker(pos) if self.marker is not None else text

    @staticmethod
    def jump_label(unit: _Unit, target: int, labels: dict[int, str]) -> str:
        name = labels.get(target)
        if name is None:
            unit.lossy(f"jump target {target} lies outside this DVLE's code")
            return f"label_{target:03x}"
        return name


def _write_code(unit: _Unit, printer: _Code, lo: int, hi: int, names: _Names,
                entry_name: str, entry: tuple[int, int], known: dict[int, str]) -> None:
    """The procedures of one DVLE's range; ``known`` are label-table names (nihstro files)."""
    labels: dict[int, str] = {pos: name for pos, name in known.items() if lo <= pos <= hi}
    code = printer.code
    for pos in printer.structure:
        if lo <= pos < hi and printer.row(pos).mnemonic in _FLOW_JUMPS:
            target = _operands(code[pos]).get("dst", 0)
            if lo <= target <= hi:
                if target not in labels:
                    labels[target] = f"label_{target:03x}"
    cuts = [c for c in sorted(set(printer.proc_starts) | {lo, hi}) if lo <= c <= hi]
    for start, stop in zip(cuts, cuts[1:]):
        name = entry_name if start == entry[0] else printer.proc_starts.get(start) or _proc_label(start)
        unit.add(f".proc {name}")
        unit.procs.setdefault(name, (start, stop))
        _write_block(unit, printer, start, stop, names, labels)
        unit.add(".end")
        unit.add("")
    if hi in labels:
        unit.add(f"{labels[hi]}:")
        unit.labels.append((labels[hi], hi))


#: indentation by block depth
_INDENTS: Final = tuple("\t" * depth for depth in range(64))
_BLOCK_OPENERS: Final = frozenset({"ifu", "ifc", "loop"})
#: per 6-bit opcode value: True for the mnemonics that shape the text (see _Code.structure)
_STRUCTURE6: Final = tuple(row.mnemonic in _BLOCK_OPENERS.union(_FLOW_CALLS, _FLOW_JUMPS) for row in BY_OPCODE6)


def _write_block(unit: _Unit, printer: _Code, start: int, stop: int, names: _Names,
                 labels: dict[int, str]) -> None:
    """One procedure body with structured if/else/end and for/end blocks."""
    stack: list[list[int]] = []  # open blocks: [close position, else position or -1]
    lines = unit.lines
    code = printer.code
    # where more than an instruction line is written: labels and block openers (and the else and
    # end of the open block, from the stack); the instructions between are emitted as one run
    events = [pos for pos in labels if start <= pos < stop]
    for pos in printer.structure:
        if start <= pos < stop and printer.row(pos).mnemonic in _BLOCK_OPENERS:
            events.append(pos)
    if not events:  # (no blocks or labels: one run)
        _emit(unit, printer, start, stop, _INDENTS[1], names, labels)
        return
    events = sorted(set(events))
    pos = start
    while True:
        while stack:
            close, else_at = stack[-1]
            if pos == else_at:
                lines.append(_INDENTS[len(stack)] + ".else")
                stack[-1][1] = -1
            elif pos == close:
                stack.pop()
                lines.append(_INDENTS[len(stack) + 1] + ".end")
            else:
                break
        if pos in labels and pos < stop:
            lines.append(f"{labels[pos]}:")
            unit.labels.append((labels[pos], pos))
        if pos == stop:
            break
        row = printer.row(pos)
        indent = _INDENTS[len(stack) + 1]
        if row.mnemonic not in _BLOCK_OPENERS:  # a run of instructions, up to the next event
            next_event = bisect_right(events, pos)
            run_end = events[next_event] if next_event < len(events) else stop
            if stack:  # (the open block's end is after pos, and so is its else when still to come)
                close, else_at = stack[-1]
                run_end = min(run_end, close, else_at if else_at > pos else close)
            _emit(unit, printer, pos, run_end, indent, names, labels)
            pos = run_end
            continue
        block: list[int] | None = None
        operands = _operands(code[pos])
        limit = stack[-1][0] if stack else stop
        if row.mnemonic == "loop":
            close = operands["dst"] + 1
            if pos < close <= limit:
                block = [close, -1]
                if close == pos + 1:
                    unit.lossy("empty loop body: picasso pads it with a nop")
        else:
            dst, num = operands["dst"], picasso_num(operands)
            if pos < dst <= dst + num <= limit:
                block = [dst + num, dst if num else -1]
                if dst == pos + 1 or (num and num < 1):
                    unit.lossy("empty if body: picasso pads it with a nop")
        if block is None:
            unit.lossy(f"{row.mnemonic} at {pos} does not nest; written as nop")
            lines.append(indent + "nop")
        else:
            _emit(unit, printer, pos, pos + 1, indent, names, labels)
            stack.append(block)
            unit.blocks.append((pos, block[0], block[1]))
            unit.depth = max(unit.depth, len(stack))
        pos += 1


def _emit(unit: _Unit, printer: _Code, start: int, stop: int, indent: str, names: _Names,
          labels: dict[int, str]) -> None:
    """The lines of the instructions from ``start`` to ``stop`` (at one indentation), their
    notes and (when scanning) their parses; the lines are noted in ``unit.code_runs``."""
    code, lines, printers = printer.code, unit.lines, _PRINTERS
    plain, scan = not printer.hints and printer.marker is None, printer.scan
    run_line, run_start = len(lines), start
    for pos in range(start, stop):
        written = len(lines)
        word = code[pos]
        op6 = (word & 0xFFFFFFFF) >> 26
        if plain and not word & _RESERVED6[op6]:  # (what printer.text does for a plain word)
            form = _REGISTER_FORMS6[word >> 26]
            if form is not None:
                lines.append(form.text(printer, unit, word, names, indent))
            else:
                lines.append(indent + printers[word >> 26](printer, unit, pos, word, names, labels))
        else:
            lines.append(indent + printer.text(unit, pos, names, labels))
        if len(lines) != written + 1:  # (notes went before the instruction's line: a new run)
            if pos > run_start:
                unit.code_runs.append((run_line, run_start, pos))
            run_line, run_start = len(lines) - 1, pos
        if scan:
            scanned = printer.scanned(pos, names)
            if scanned is not None:
                unit.scanned[len(lines) - 1] = scanned
    if stop > run_start:
        unit.code_runs.append((run_line, run_start, stop))


def _input_text(reg: int) -> str:
    """An input register as picasso reads it in ``.in``/``.alias``: ``v15`` only as ``v14[1]``."""
    if reg >= NAMED_INPUT_LIMIT:
        return f"v{NAMED_INPUT_LIMIT - 1}[{reg - NAMED_INPUT_LIMIT + 1}]"
    return f"v{reg}"


def _alias_inputs(unit: _Unit, printer: _Code, lo: int, hi: int, names: _Names, used: set[str]) -> None:
    """``.alias inN vN`` for the input registers the code reads that no ``.in`` names."""
    # picasso refuses an index register after a temporary's own name ("r0[a0.x]": index register not
    # allowed with this kind of register) but not after an alias of it: such temporaries get one too
    read = 0  # (one bit per input register)
    indexed: set[int] = set()
    named = names.src  # (inputs and constants: no temporary is named before these aliases)
    for word in printer.code[lo:hi]:
        reads = _SOURCE_READS6[(word & 0xFFFFFFFF) >> 26]
        read |= reads.inputs(word)
        reg = reads.indexed_register(word)
        if _R_BASE <= reg < _R_END and reg not in named:
            indexed.add(reg)
    _add_aliases(unit, names, used, [(reg, f"in{reg}", _input_text(reg)) for reg in range(_V_END)
                                    if read >> reg & 1 and reg not in named])
    _add_aliases(unit, names, used, [(reg, f"temp{reg - _R_BASE}", f"r{reg - _R_BASE}") for reg in sorted(indexed)])


def _add_aliases(unit: _Unit, names: _Names, used: set[str], aliases: list[tuple[int, str, str]]) -> None:
    """``.alias NAME REGISTER`` for each (source register index, wanted name, register text), the
    name made unique with trailing ``_``; the code then reads the register by that name."""
    for reg, name, text in aliases:
        while name in used:
            name += "_"
        used.add(name)
        unit.add(f".alias {name} {text}")
        names.src[reg] = (name, reg, 1)


def _ranges(dvlb: Dvlb) -> list[tuple[int, int]] | None:
    """Code range of each DVLE: cut at the entry points when they increase in DVLE order."""
    size = len(dvlb.dvlp.code)
    ranges: list[tuple[int, int]] = []
    lo, previous = 0, 0  # (the first DVLE's range starts at 0, wherever its entry is)
    for i, dvle in enumerate(dvlb.dvles):
        start = min(dvle.main_offset, size)
        if i:
            if start <= previous:
                return None
            ranges.append((lo, start))
            lo = start
        previous = start
    ranges.append((lo, size))
    return ranges


def _entry(dvle: Dvle, lo: int, hi: int) -> tuple[int, int]:
    start = min(max(dvle.main_offset, lo), hi)
    end = dvle.endmain_offset if dvle.endmain_offset > start else hi
    return start, min(end, hi) - start


def dvlb_to_sources(dvlb: Dvlb, marker: Callable[[int], str] | None = None) -> list[str]:
    """One picasso source per DVLE.

    When picasso's descriptor merging would not rebuild this file's descriptor table (files made
    by nihstro keep descriptors that agree on every used bit apart), the text also carries
    ``; shaderkit: opdescs ...`` and per-instruction ``; shaderkit: desc N`` comments: picasso
    ignores them, ``shaderkit asm`` uses them to rebuild the same table and words. An entry whose
    second word is not 0 (picasso writes 0; older assemblers did not) is given as one value with
    that word above bit 32 (``0xf8006c368``: second word 0xf).

    ``marker`` (word index -> text) is appended to every instruction line; the text is decided
    without it.
    """
    found = matching_rule(dvlb)
    rule = "" if found is None or found[0] == RULE_PICASSO else " ".join(filter(None, found))
    units = _units(dvlb, False, [{}] * len(dvlb.dvles), rule)
    texts = ["\n".join(unit.lines) + "\n" for unit in units]
    plain: _Choice = (False, [{}] * len(dvlb.dvles), rule, None)
    choice = _decided_without_assembly(dvlb, units, rule)
    no_nop = False
    if choice is None:  # not covered: assemble the plain text (its instruction lines already scanned)
        rebuilt = _assembled(texts, _units(dvlb, False, [{}] * len(dvlb.dvles), rule, scan=True))
        choice = _choice_of(dvlb, rebuilt, rule)
        no_nop = choice[0] and _needs_no_nop(dvlb, texts, rebuilt)
    if marker is not None:
        return _no_nop_pragma(_sources(dvlb, *choice, marker=marker), no_nop)
    if choice == plain:
        return texts  # decided (or checked) without pragmas
    return _no_nop_pragma(_with_pragmas(dvlb, units, *choice), no_nop)


def _needs_no_nop(dvlb: Dvlb, texts: list[str], rebuilt: Dvlb | None) -> bool:
    """True when the text rebuilds the code only without picasso's padding NOPs: blocks of the file
    end where picasso (since v2.5) inserts one, but the file has none there (``rebuilt``: the
    text assembled as it is)."""
    if rebuilt is None or len(rebuilt.dvlp.code) <= len(dvlb.dvlp.code):
        return False
    rebuilt = _rebuild(_no_nop_pragma(texts, True))
    return rebuilt is not None and len(rebuilt.dvlp.code) == len(dvlb.dvlp.code)


def _no_nop_pragma(texts: list[str], no_nop: bool) -> list[str]:
    """``texts`` with the no-nop pragma after the first line of the first one, when ``no_nop``."""
    if not no_nop or not texts:
        return texts
    head, sep, tail = texts[0].partition("\n")
    return [f"{head}{sep}{PRAGMA_NO_NOP}\n{tail}", *texts[1:]]


def _with_pragmas(dvlb: Dvlb, units: list[_Unit], hints: bool, headers: list[dict[str, int]], rule: str,
                  orders: list[list[int]] | None) -> list[str]:
    """The texts of plain ``units`` with the pragmas :func:`_sources` would write (the same
    lines, without printing the code again)."""
    texts = []
    for i, unit in enumerate(units):
        lines = list(unit.lines)
        if hints:
            code = dvlb.dvlp.code
            for first_line, first, end in unit.code_runs:
                for pos in range(first, end):
                    word = code[pos]
                    desc_field = _DESC_FIELD6[(word & 0xFFFFFFFF) >> 26]
                    if desc_field is not None:
                        lines[first_line + pos - first] += desc_pragma(
                            (word >> desc_field[0]) & desc_field[1], _forced_inverted(word))
            for index in unit.pinned_notes:
                lines[index] = f"; {lines[index][4:]}: kept by the desc pragma"  # (was "; ! note")
        pragmas = []
        if hints and i == 0:
            pragmas.append(opdescs_pragma(dvlb))
        if headers[i]:
            pragmas.append(" ".join([PRAGMA_DVLE, *(f"{k}={hex(v)}" for k, v in headers[i].items())]))
        if orders and orders[i]:
            pragmas.append(" ".join([PRAGMA_UNIFORM_ORDER, *map(str, orders[i])]))
        lines[unit.pragma_at:unit.pragma_at] = pragmas
        texts.append("\n".join(lines) + "\n")
    return texts


def _checked_by_assembly(dvlb: Dvlb, texts: list[str], rule: str, units: list[_Unit] | None = None) -> _Choice:
    """Assemble the plain text and decide the pragmas that make it rebuild this model: the
    arguments of :func:`_sources` (hints, header overrides, layout rule, uniform orders).

    With ``units`` (and nothing lossy in the text), instruction lines are handed to the assembler
    already scanned instead of being parsed again (the same build step runs on them).
    """
    return _choice_of(dvlb, _assembled(texts, units), rule)


def _assembled(texts: list[str], units: list[_Unit] | None = None) -> Dvlb | None:
    """The plain text assembled (None when the assembler refuses it); with ``units`` and nothing
    lossy, their instruction lines are handed over already scanned."""
    if units is not None and not any(unit.notes for unit in units):
        return _rebuild_scanned(units)
    return _rebuild(texts)


def _choice_of(dvlb: Dvlb, rebuilt: Dvlb | None, rule: str) -> _Choice:
    """The pragmas that make the plain text, assembled to ``rebuilt``, rebuild ``dvlb``."""
    plain: _Choice = (False, [{}] * len(dvlb.dvles), rule, None)
    if rebuilt is None:
        return plain  # not representable either way; keep the plain text
    same_code = rebuilt.dvlp.code == dvlb.dvlp.code and rebuilt.dvlp.opdescs == dvlb.dvlp.opdescs
    headers = [_header_overrides(old, new) for old, new in zip(dvlb.dvles, rebuilt.dvles)]
    orders = [_uniform_order(old.uniforms, new.uniforms) for old, new in zip(dvlb.dvles, rebuilt.dvles)]
    if len(rebuilt.dvles) != len(dvlb.dvles) or (same_code and not any(headers) and not any(orders)
                                                  and not any(d.labels for d in dvlb.dvles)):
        return plain
    return not same_code, headers, rule, orders


def _uniform_order(table: list[Uniform], rebuilt: list[Uniform]) -> list[int]:
    """Where each entry of ``table`` sits in picasso's ``rebuilt`` table, when they hold the same
    entries in another order (nihstro keeps declaration order); else empty."""
    if table == rebuilt or len(table) != len(rebuilt):
        return []
    free = list(range(len(rebuilt)))
    order = []
    for entry in table:
        found = next((k for k in free if rebuilt[k] == entry), None)
        if found is None:
            return []
        free.remove(found)
        order.append(found)
    return order


#: a block or procedure that ends right after one of these gets picasso's padding NOP
_FLOW_PAD: Final = frozenset({"jmpc", "jmpu", "call", "callc", "callu"})
#: flow-control fields the text gives the assembler besides the addresses (dst, num)
_FLOW_FIELDS: Final = ("condop", "refx", "refy", "bool_id", "int_id")


def _mnemonic_at(code: list[int], pos: int) -> str:
    """The mnemonic of the word at ``pos``."""
    return BY_OPCODE6[code[pos] >> 26].mnemonic


def _decided_without_assembly(dvlb: Dvlb, units: list[_Unit], rule: str) -> _Choice | None:
    """The arguments of :func:`_sources` (hints, header overrides, layout rule, uniform orders)
    that :func:`_checked_by_assembly` would find, decided without assembling: the text's
    structure (procedures, blocks, labels) is laid out as picasso lays it out, picasso's
    descriptor merging is replayed on the words, and the DVLE headers picasso writes are
    compared with the file's. Conservative: None sends the caller to the check by assembly.

    Covered: vertex DVLEs and geometry DVLEs in picasso's compatible mode (a bare ``.gsh``), nothing
    lossy, uniforms in register order, and code whose blocks and procedures get no padding NOP (so
    the text lists the words in code order).
    """
    code = dvlb.dvlp.code
    printer = units[0].printer if units else None
    ranges = _ranges(dvlb) if printer is None else printer.ranges
    if (ranges is None or len(code) > MAX_VSH_SIZE or any(unit.notes for unit in units)
            or any(d.shader_type > 1 or (d.shader_type == 1 and not u.compat_gsh) for d, u in zip(dvlb.dvles, units))
            or any(unit.shadowing_uniform for unit in units)):
        return None  # (a uniform named like a register shadows one the text may spell out)
    procs: dict[str, tuple[int, int]] = {}
    blocks: dict[int, tuple[int, int]] = {}
    targets: dict[int, str] = {}
    jumps: dict[int, int] = {}  # jump position -> where the label it names is (labels are per unit)
    for unit in units:
        labels = dict(unit.labels)
        if len(labels) != len(unit.labels):
            return None
        for name, span in unit.procs.items():
            if name in procs:  # (a name two units define)
                return None
            procs[name] = span
        for pos, close, else_at in unit.blocks:
            blocks[pos] = (close, else_at)
        for pos, name in unit.targets.items():
            targets[pos] = name
            if name in labels:
                jumps[pos] = labels[name]
    # picasso's padding NOPs: a block, else part or procedure ending right after a jump or call
    # (a loop also after breakc), right after another block's end, or too short
    closes = [close for close, _ in blocks.values()]
    if len(set(closes)) != len(closes):
        return None
    ends_after_end = set(closes)
    for pos, (close, else_at) in blocks.items():
        loop = _mnemonic_at(code, pos) == "loop"
        if close - pos < 2 or _mnemonic_at(code, close - 1) in _FLOW_PAD or (loop and _mnemonic_at(code, close - 1) == "breakc"):
            return None
        if else_at >= 0 and (else_at - pos < 2 or else_at in ends_after_end or _mnemonic_at(code, else_at - 1) in _FLOW_PAD):
            return None
    for start, stop in procs.values():
        if stop <= start or stop in ends_after_end or _mnemonic_at(code, stop - 1) in _FLOW_PAD:
            return None
    # the DVLE headers picasso writes for this text
    headers: list[dict[str, int]] = []
    for i, dvle in enumerate(dvlb.dvles):
        entry = procs.get(units[i].entry)  # picasso: main_offset, endmain_offset = the entry procedure
        if entry is None:
            return None
        if units[i].uniforms_unsorted:
            return None  # picasso sorts the uniform table by register (nihstro keeps declaration order)
        if _refused_by_picasso(dvle, units[i]):
            return None  # (assembly fails, and the plain text is kept)
        input_mask, output_mask = units[i].input_mask, 0
        for o in dvle.outputs:
            output_mask |= 1 << o.register
        # _HEADER_FIELDS as picasso writes them: version, shader type, merge_outmaps, main and
        # endmain offsets, input and output masks, then the four geometry fields
        picasso = (DVLE_VERSION_PICASSO, dvle.shader_type, 0, entry[0], entry[1], input_mask, output_mask, 0, 0, 0, 0)
        headers.append(_changed_fields(_header_values(dvle), picasso))
    if printer is None:
        values = [d.value for d in dvlb.dvlp.opdescs]
        extras = any(d.extra for d in dvlb.dvlp.opdescs)
    else:
        values, extras = printer.opdescs, printer.descriptor_extras
    if extras:
        return None
    asm = DescriptorTable()  # replays picasso's findOrAddOpdesc / MAD swaps on the words
    code_out = asm.code
    try:
        for pos, word in enumerate(code):
            replay = _REPLAY_DESC6[word >> 26]
            if replay is None:  # not a descriptor form
                kind = _REPLAY_KIND6[word >> 26]
                if kind == _UNKNOWN:
                    return None
                if kind == _NO_OPERANDS:
                    code_out.append(word)
                else:  # flow control: the word the assembler writes
                    row = BY_OPCODE6[word >> 26]
                    operands = _operands(word)
                    fields = {k: v for k, v in operands.items() if k in _FLOW_FIELDS}
                    mnemonic = row.mnemonic
                    if mnemonic in ("ifu", "ifc", "loop"):
                        close, else_at = blocks[pos]
                        if mnemonic == "loop":
                            fields["dst"] = close - 1
                        elif else_at >= 0:
                            fields.update(dst=else_at, **split_num(close - else_at))
                        else:
                            fields["dst"] = close
                    elif mnemonic in ("call", "callc", "callu"):
                        start, stop = procs[targets[pos]]
                        fields.update(dst=start, **split_num(stop - start))
                    elif mnemonic in ("jmpc", "jmpu"):
                        fields["dst"] = jumps[pos]
                        if mnemonic == "jmpu":
                            fields["num"] = operands.get("num", 0) & 1
                    elif mnemonic == "setemit":
                        if not any(lo <= pos < hi and dvle.is_geometry for dvle, (lo, hi) in zip(dvlb.dvles, ranges)):
                            return None  # (setemit makes picasso's DVLE a geometry shader)
                        fields = {k: operands[k] for k in ("vertex_id", "prim", "winding")}
                    if not _assembles_to(word, fields):
                        return None
                    code_out.append(word)
                continue
            if replay.two_inputs(word):  # picasso refuses two different input registers in one instruction
                return None
            desc_index = word & replay.desc_mask
            if desc_index >= len(values) or replay.narrow_inverted(word):
                return None
            # what the printed operands give back, merged as picasso merges it (findOrAddOpdesc:
            # DescriptorTable.merge_opdesc, with the optimized mask taken from the table)
            opdesc = values[desc_index] & replay.desc_bits
            desc = asm.merge_opdesc(opdesc, replay.merge_masks[opdesc & 0xF])
            if desc < 0:
                return None  # (too many descriptors: the assembler refuses the text)
            if replay.mad:
                desc = asm.place_mad_opdesc(desc, 0)
            code_out.append((word & ~replay.desc_mask) | desc)  # (the assembler keeps desc within the field)
    except (ValueError, KeyError):
        return None
    same_code = asm.code == code and asm.opdescs == values
    if same_code and not any(headers) and not any(d.labels for d in dvlb.dvles):
        return False, [{}] * len(dvlb.dvles), rule, None
    return not same_code, headers, rule, [[] for _ in dvlb.dvles]


class _Replay:
    """How the replay treats a descriptor form: its descriptor field mask, the masks picasso merges
    the descriptor under by destination mask (optimizeOpdesc of the name it merges it as), the
    descriptor bits read, MAD or not, the source fields checked for two different input registers
    (none, or the first two or three sources), the wide source an inverted form needs wide (or
    indexed) and the ``idx`` field. A compiled class: the replay reads its fields as C ints."""

    def __init__(self, row: OpcodeInfo, merge_masks: tuple[int, ...]) -> None:
        spec = {name: (lsb, (1 << width) - 1) for name, lsb, width in row.fields}
        self.desc_mask = spec["desc"][1]
        self.merge_masks = merge_masks
        self.desc_bits = row.desc_bits
        self.mad = row.fmt in ("5", "5i")
        # (dst_src_src and MAD: picasso checks their inputs)
        inputs = [spec[f] for f in ("src1", "src2", "src3") if f in spec] if row.fmt in ("1", "1i", "5", "5i") else []
        assert len(inputs) in (0, 2, 3)
        self.input_count = len(inputs)
        inputs += [(0, 0)] * (3 - len(inputs))
        (self.in1_lsb, self.in1_mask), (self.in2_lsb, self.in2_mask), (self.in3_lsb, self.in3_mask) = inputs
        self.inverted = row.mnemonic in BASE_OF_INVERTED
        self.wide_lsb, self.wide_mask = spec["src3" if row.fmt == "5i" else "src2"] if self.inverted else (0, 0)
        self.idx_lsb, self.idx_mask = spec.get("idx", (0, 0))

    def two_inputs(self, word: int) -> bool:
        """True when the word's checked sources read two different input registers (picasso refuses it)."""
        if not self.input_count:
            return False
        end = _V_END
        a, b = (word >> self.in1_lsb) & self.in1_mask, (word >> self.in2_lsb) & self.in2_mask
        c = (word >> self.in3_lsb) & self.in3_mask if self.input_count == 3 else end
        first = a if a < end else b if b < end else c if c < end else -1
        return first >= 0 and ((b < end and b != first) or (c < end and c != first))

    def narrow_inverted(self, word: int) -> bool:
        """True for an inverted form whose wide source is narrow and not indexed: picasso picks the
        inverted form only for a wide or indexed second operand."""
        return (self.inverted and (word >> self.wide_lsb) & self.wide_mask < NARROW_SOURCE_END
                and not (word >> self.idx_lsb) & self.idx_mask)


def _replay_descs(kinds: tuple[int, ...]) -> tuple[_Replay | None, ...]:
    """The :class:`_Replay` of each descriptor form by 6-bit opcode (None for the others). The merge
    masks are worked out once per don't-care rule and descriptor bits (table.dont_care_bits reads
    only the row's rule, and of the descriptor only its 4 mask bits, and those for the
    per-component and MOVA rules only)."""
    found: dict[tuple[str, int], tuple[int, ...]] = {}

    def merge_masks(row: OpcodeInfo) -> tuple[int, ...]:
        """opdescs.optimize_mask(row.desc_bits, name, dest mask) of each destination mask, for the
        name picasso merges the row's descriptors as"""
        merge_row = BY_MNEMONIC["mad" if row.fmt in ("5", "5i") else row.base]
        key = merge_row.dont_care, row.desc_bits
        if key not in found:
            bits = row.desc_bits
            found[key] = (tuple(bits & ~dont_care_bits(merge_row, dest_mask) for dest_mask in range(16))
                          if merge_row.dont_care in (DC_PER_COMPONENT, DC_MOVA)
                          else (bits & ~dont_care_bits(merge_row, 0xF),) * 16)
        return found[key]
    return tuple(_Replay(row, merge_masks(row)) if kind == _DESC else None for row, kind in zip(BY_OPCODE6, kinds))


#: how the replay treats a word, by its 6-bit opcode: an unknown word, no operands, flow control,
#: a descriptor form (then _REPLAY_DESC6 holds its _Replay); built at import
_UNKNOWN: Final = 0
_NO_OPERANDS: Final = 1
_FLOW: Final = 2
_DESC: Final = 3
_REPLAY_KIND6: Final = tuple(_UNKNOWN if row.mnemonic.startswith("unk") else _NO_OPERANDS if row.fmt == "0"
                      else _DESC if row.fmt in DESC_FORMATS else _FLOW for row in BY_OPCODE6)
_REPLAY_DESC6: Final = _replay_descs(_REPLAY_KIND6)


def _refused_by_picasso(dvle: Dvle, unit: _Unit) -> bool:
    """True when picasso could refuse this DVLE's text: blocks nested too deep, too many table
    entries (gap fillers count), outputs that overlap, lie beyond the output registers or that
    only a dummy may use, an input declared twice, a constant beyond its register file, or a
    top-down constant on a register a uniform of its kind takes."""
    uniforms, constants, outputs = dvle.uniforms, dvle.constants, dvle.outputs
    if unit.depth + 1 > MAX_STACK or 2 * len(uniforms) + 1 > MAX_UNIFORM or len(constants) >= MAX_CONSTANT:
        return True
    if len(outputs) > MAX_OUTPUT:
        return True
    used: dict[int, int] = {}
    for out in outputs:
        register, mask = out.register, out.mask
        if (mask & used.get(register, 0) or register >= _OUTPUT_COUNT
                or (register >= OUTPUT_SLOTS and (out.semantic != SEMANTIC_DUMMY or dvle.is_geometry))):
            return True
        used[register] = used.get(register, 0) | mask
    inputs: set[int] = set()
    for u in uniforms:
        first = u.first_register
        if first < _V_END:
            if first in inputs:
                return True  # (an input declared twice)
            inputs.add(first)
    lowest_constant: dict[int, int] = {}
    for const in constants:
        kind, register = const.type, const.register
        if kind in _SPACE_COUNT and not 0 <= register < _SPACE_COUNT[kind]:
            return True  # (a register the directive cannot name)
        if kind == CONSTANT_FVEC or kind == CONSTANT_IVEC:
            lowest_constant[kind] = min(lowest_constant.get(kind, 1 << 16), register)
    for u in uniforms:
        first = u.first_register
        kind, reg = _uniform_kind(first)
        if kind in lowest_constant:
            last = reg + u.last_register - first - _SPACE_START[kind]
            if last >= lowest_constant[kind]:
                return True
    return False


def _register_like(name: str) -> bool:
    """``r1``, ``C12``: picasso reads such a name as a register unless an alias shadows it."""
    return len(name) > 1 and name[0].lower() in SPACES and name[1].isdigit()


def _rebuild(texts: list[str]) -> Dvlb | None:
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dvlb.build import program_to_dvlb, split_units
    from shaderkit.isa.pica.assembler import assemble

    try:
        return program_to_dvlb(assemble(split_units("\n".join(texts), "check")))
    except AssemblyError:
        return None


_HEADER_FIELDS: Final = ("version", "shader_type", "merge_outmaps", "main_offset", "endmain_offset", "input_mask",
                  "output_mask", "gs_mode", "gs_fixed_vertex_start", "gs_variable_vertex_num",
                  "gs_fixed_vertex_num")


#: a DVLE's values of _HEADER_FIELDS, as one tuple
_header_values = attrgetter(*_HEADER_FIELDS)


def _changed_fields(old: tuple[int, ...], new: tuple[int, ...]) -> dict[str, int]:
    """The fields of _HEADER_FIELDS whose ``old`` value differs from ``new`` (their old values)."""
    if old == new:
        return {}
    return {k: a for k, a, b in zip(_HEADER_FIELDS, old, new) if a != b}


def _header_overrides(old: Dvle, new: Dvle) -> dict[str, int]:
    """DVLE header fields picasso would write differently (files from nihstro or old picasso)."""
    return _changed_fields(_header_values(old), _header_values(new))


def _rebuild_scanned(units: list[_Unit]) -> Dvlb | None:
    """:func:`_rebuild` of the units' text, with instruction lines handed over already scanned."""
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dvlb.build import program_to_dvlb
    from shaderkit.isa.pica.assembler import Assembler, split_units

    texts = ["\n".join(unit.lines) + "\n" for unit in units]
    asm = Assembler()
    first = 1  # line number of each unit's first line in the joined text
    for unit, text in zip(units, texts):
        asm.parsed_lines.update({first + index: scanned for index, scanned in unit.scanned.items()})
        first += len(text.split("\n"))
    try:
        for filename, part in split_units("\n".join(texts), "check"):
            asm.add_source(part, filename)
        return program_to_dvlb(asm.finish())
    except AssemblyError:
        return None


def _sources(dvlb: Dvlb, hints: bool, headers: list[dict[str, int]], rule: str = "",
             orders: list[list[int]] | None = None, marker: Callable[[int], str] | None = None) -> list[str]:
    units = _units(dvlb, hints, headers, rule, orders=orders, marker=marker)
    return ["\n".join(unit.lines) + "\n" for unit in units]


def _units(dvlb: Dvlb, hints: bool, headers: list[dict[str, int]], rule: str = "", scan: bool = False,
           orders: list[list[int]] | None = None, marker: Callable[[int], str] | None = None) -> list[_Unit]:
    code = list(dvlb.dvlp.code)
    opdescs: list[int] = []
    extras = False
    for d in dvlb.dvlp.opdescs:
        opdescs.append(d.value)
        if d.extra:
            extras = True
    count = len(dvlb.dvles)
    ranges = file_ranges = _ranges(dvlb)
    shared = ranges is None
    if ranges is None:  # entry points out of order: all code goes with the first DVLE
        ranges = [(0, len(code))] + [(len(code), len(code))] * (count - 1)
    entries = [_entry(d, 0 if shared else lo, len(code) if shared else hi)
               for d, (lo, hi) in zip(dvlb.dvles, ranges)]
    # procedures: entry points and call targets, named once for all DVLEs
    proc_starts: dict[int, str] = {}
    procs: dict[tuple[int, int], str] = {}
    for i, (start, size) in enumerate(entries):
        name = proc_starts.setdefault(start, "main" if i == 0 else f"main_{i}")
        procs.setdefault((start, size), name)
    entry_names = [proc_starts[start] for start, _ in entries]
    printer = _Code(code, opdescs, procs, proc_starts)
    printer.descriptor_extras, printer.ranges = extras, file_ranges
    printer.hints = hints
    printer.marker = marker
    printer.scan = scan and not hints and marker is None
    if printer.scan:
        from shaderkit.isa.pica.assembler import ParsedInstruction, parse_swizzle

        printer.parsed_type = ParsedInstruction
        printer.dest_sw = tuple(DEFAULT_OPSRC if mask in (0, 0xF) else parse_swizzle(mask_text(mask))
                                for mask in range(16))
    for pos in printer.structure:
        if printer.row(pos).mnemonic in _FLOW_CALLS:
            operands = _operands(code[pos])
            start, num = operands.get("dst", 0), picasso_num(operands)
            name = proc_starts.get(start) or proc_starts.setdefault(start, _proc_label(start))
            procs.setdefault((start, num), name)
            if start + num <= len(code) and start + num not in proc_starts:
                proc_starts[start + num] = _proc_label(start + num)
    for start, size in entries:
        if start + size not in proc_starts:
            proc_starts[start + size] = _proc_label(start + size)
    alloc = _Allocation()
    units: list[_Unit] = []
    for i, dvle in enumerate(dvlb.dvles):
        unit = _Unit(entry=entry_names[i])
        unit.printer = printer
        lo, hi = ranges[i]
        geometry = dvle.is_geometry
        unit.add(f"{UNIT_MARKER} {i}: {'geometry' if geometry else 'vertex'} shader, "
                 f"entry {entry_names[i]} (words {entries[i][0]}..{entries[i][0] + entries[i][1]})")
        if rule and i == 0:
            unit.add(f"{PRAGMA_LAYOUT} {rule}")
        unit.pragma_at = len(unit.lines)
        if hints and i == 0:
            unit.add(opdescs_pragma(dvlb))
        if headers[i]:
            unit.add(" ".join([PRAGMA_DVLE, *(f"{k}={hex(v)}" for k, v in headers[i].items())]))
        if orders and orders[i]:
            unit.add(" ".join([PRAGMA_UNIFORM_ORDER, *map(str, orders[i])]))
        for label in dvle.labels:
            if _valid_ident(label.name):
                unit.add(f"{PRAGMA_LABEL} {label.id} {label.program_offset} {label.name} {hex(label.unknown)}")
            else:
                unit.lossy(f"label name {label.name!r} cannot be written")
        names = _Names()
        used: set[str] = set()
        gsh_space = False
        first_free = _C_BASE
        if geometry:
            fixed_start = _C_BASE + dvle.gs_fixed_vertex_start
            gs_new = bool(dvle.gs_mode or dvle.merge_outmaps or dvle.gs_variable_vertex_num
                          or dvle.gs_fixed_vertex_num)
            has_dummy = any(o.semantic == SEMANTIC_DUMMY for o in dvle.outputs)
            if not gs_new and not has_dummy and _conflicts_in_shared_space(dvlb, i, alloc):
                gs_new = True  # ".gsh point cN" gives the same header and its own uniform space
            if gs_new:
                fvecs = [_uniform_kind(u.first_register)[1] for u in dvle.uniforms
                         if _uniform_kind(u.first_register)[0] == CONSTANT_FVEC]
                first_free = min(fvecs) if fvecs else (fixed_start + 1 if dvle.gs_mode == 2 else _C_BASE)
                mode = GSH_MODES[dvle.gs_mode] if dvle.gs_mode < 3 else "point"
                line = f".gsh {mode} c{first_free - _C_BASE}"
                if dvle.gs_mode == 1:
                    line += f" {dvle.gs_variable_vertex_num}"
                elif dvle.gs_mode == 2:
                    line += f" c{dvle.gs_fixed_vertex_start} {dvle.gs_fixed_vertex_num}"
                unit.add(line)
                gsh_space = True
            else:
                unit.add(".gsh")
                unit.compat_gsh = True
        elif dvle.shader_type != 0:
            unit.lossy(f"shader type {dvle.shader_type}")
        _declare_uniforms(unit, dvle, alloc, gsh_space, first_free, names, used)
        _declare_constants(unit, dvle, names, used)
        _declare_outputs(unit, dvle, names, used)
        if entry_names[i] != "main":
            unit.add(f".entry {entry_names[i]}")
        input_mask = dvle.input_mask
        if input_mask and unit.input_mask & ~input_mask:
            unit.lossy("input mask does not match the .in declarations")
        _alias_inputs(unit, printer, lo, hi, names, used)
        unit.add("")
        if hi > lo:
            known: dict[int, str] = {}
            for label in dvle.labels:
                if _valid_ident(label.name) and label.name not in known.values():
                    known.setdefault(label.program_offset, label.name)
            _write_code(unit, printer, lo, hi, names, entry_names[i], entries[i], known)
        units.append(unit)
    return units


def dvlb_to_source(dvlb: Dvlb, marker: Callable[[int], str] | None = None) -> str:
    """picasso source of every DVLE, joined by ``; shaderkit: DVLE n`` marker lines; ``marker``
    (word index -> text) is appended to every instruction line when given."""
    return "\n".join(dvlb_to_sources(dvlb, marker))

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
that picasso ignores and ``shaderkit asm`` honours: the descriptor table and each instruction's
descriptor (nihstro keeps descriptors picasso would merge), DVLE header fields picasso computes
differently (version 0, masks 0, endmain 0) and label-table entries, so that the rebuilt model
is the same; only the placement of the structures (nihstro/old layouts) is picasso's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from shaderkit.formats.dvlb.dvlb import CONSTANT_BOOL, CONSTANT_FVEC, CONSTANT_IVEC, Dvlb, Dvle
from shaderkit.isa.pica.decode import Instruction, decode
from shaderkit.isa.pica.float24 import f24_to_f32
from shaderkit.isa.pica.opcodes import (
    CMP_OPS,
    CONDOP_AND,
    CONDOP_OR,
    CONDOP_X,
    DESC_FORMATS,
    GSH_MODES,
    IDENTITY_SWIZZLE,
    IDX_NAMES,
    OUTPUT_SEMANTICS,
    dst_name,
    mask_text,
    opdesc_src,
    src_name,
    swizzle_text,
)

UNIT_MARKER = "; shaderkit: DVLE"
#: pragmas for shaderkit's assembler (comments to picasso): pin the descriptor table and choices
PRAGMA_OPDESCS = "; shaderkit: opdescs"
PRAGMA_DESC = "; shaderkit: desc"
PRAGMA_DVLE = "; shaderkit: dvle"
PRAGMA_LABEL = "; shaderkit: label"
_FLOW_CALLS = ("call", "callc", "callu")
_FLOW_JUMPS = ("jmpc", "jmpu")
_KIND_DIRECTIVE = {CONSTANT_FVEC: ".fvec", CONSTANT_IVEC: ".ivec", CONSTANT_BOOL: ".bool"}
_SPACE_START = {CONSTANT_FVEC: 0x20, CONSTANT_IVEC: 0x80, CONSTANT_BOOL: 0x88}
_SPACE_END = {CONSTANT_FVEC: 0x80, CONSTANT_IVEC: 0x84, CONSTANT_BOOL: 0x98}


def _uniform_kind(index: int) -> tuple[int, int]:
    """(kind, picasso register) of a uniform-table register index; kind -1 for inputs."""
    if index < 0x10:
        return -1, index
    if index < 0x70:
        return CONSTANT_FVEC, index + 0x10
    if index < 0x78:
        return CONSTANT_IVEC, index + 0x10
    return CONSTANT_BOOL, index + 0x10


def _ident(name: str) -> str:
    """Symbol-table names hold ``.`` where the source had ``$``."""
    return name.replace(".", "$")


_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _valid_ident(name: str) -> bool:
    return bool(name) and not name[0].isdigit() and all(c in _IDENT_CHARS for c in name)


def _float_text(word: int) -> str:
    """Shortest text that parses back to this float24 (every float24 is exact as a float)."""
    if word == 0x800000:
        # picasso writes a literal -0.0 as +0; a negative value below the float24 range
        # flushes to the signed zero
        return "-1e-30"
    return repr(f24_to_f32(word))


@dataclass
class _Names:
    """Register names for one DVLE's code: inputs, uniforms, constants, outputs."""

    src: dict[int, tuple[str, int, int]] = field(default_factory=dict)  # reg -> (name, base, size)
    dst: dict[int, str] = field(default_factory=dict)
    flags: dict[int, str] = field(default_factory=dict)  # picasso register (i 0x80.., b 0x88..) -> text

    def flag(self, reg: int) -> str:
        return self.flags.get(reg) or (f"i{reg - 0x80}" if reg < 0x88 else f"b{reg - 0x88}")

    def source(self, reg: int, idx: int) -> str:
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


@dataclass
class _Unit:
    """The text of one DVLE being written."""

    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.lines.append(text)

    def lossy(self, text: str) -> None:
        self.lines.append(f"; ! {text}")
        self.notes.append(text)


def _declare_uniforms(unit: _Unit, dvle: Dvle, alloc: _Allocation, gsh_space: bool,
                      first_free: int, names: _Names, used: set[str]) -> None:
    inputs = []
    per_kind: dict[int, list[tuple[int, int, str]]] = {}
    for u in dvle.uniforms:
        kind, reg = _uniform_kind(u.first_register)
        size = u.last_register - u.first_register + 1
        name = _ident(u.name)
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
        per_kind.setdefault(kind, []).append((reg, size, name))
        for r in range(reg, reg + size):
            if kind == CONSTANT_FVEC:
                names.src.setdefault(r, (name, reg, size))
            else:
                names.flags.setdefault(r, name if size == 1 else f"{name}[{r - reg}]")
    for reg, name in inputs:
        unit.add(f".in {name} v{reg}")
        names.src.setdefault(reg, (name, reg, 1))
    local_start = dict(alloc.start)
    if gsh_space:
        local_start = {CONSTANT_FVEC: first_free, CONSTANT_IVEC: 0x80, CONSTANT_BOOL: 0x88}
    for kind in (CONSTANT_FVEC, CONSTANT_IVEC, CONSTANT_BOOL):
        directive = _KIND_DIRECTIVE[kind]
        for reg, size, name in sorted(per_kind.get(kind, [])):
            decl = f"{name}[{size}]" if size > 1 else name
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


def _conflicts_in_shared_space(dvle: Dvle, alloc: _Allocation) -> bool:
    """True when a legacy ``.gsh`` (shared uniform space) could not place these uniforms."""
    trial = _Allocation()
    trial.start, trial.known, trial.gaps = dict(alloc.start), dict(alloc.known), alloc.gaps
    scratch = _Unit()
    _declare_uniforms(scratch, dvle, trial, False, 0x20, _Names(), set())
    return bool(scratch.notes)


def _declare_constants(unit: _Unit, dvle: Dvle, names: _Names, used: set[str]) -> None:
    end = {CONSTANT_FVEC: 0x80, CONSTANT_IVEC: 0x84}
    for const in dvle.constants:
        words = const.words
        if const.type == CONSTANT_BOOL:
            unit.add(f".setb b{const.register} {'true' if words[0] else 'false'}")
            if words[0] > 1 or any(words[1:]):
                unit.lossy("bool constant has extra bits set")
            continue
        if const.type == CONSTANT_FVEC:
            reg = 0x20 + const.register
            args = ", ".join(_float_text(w) for w in words)
            if any(w >> 24 for w in words) or any((w & 0x7F0000) == 0x7F0000 and w & 0xFFFF
                                                  for w in words):
                unit.lossy("fvec constant holds bits picasso cannot produce (NaN or high bits)")
            prefix, setter = "constf", "setf"
        elif const.type == CONSTANT_IVEC:
            reg = 0x80 + const.register
            args = ", ".join(str(b) for b in words[0].to_bytes(4, "little"))
            if any(words[1:]):
                unit.lossy("ivec constant has extra words set")
            prefix, setter = "consti", "seti"
        else:
            unit.lossy(f"constant of unknown type {const.type} dropped")
            continue
        letter = "c" if const.type == CONSTANT_FVEC else "i"
        if reg == end[const.type] - 1:
            name = f"const{const.register}" if letter == "c" else f"iconst{const.register}"
            while name in used:
                name += "_"
            used.add(name)
            unit.add(f".{prefix} {name}({args})")
            end[const.type] -= 1
            if const.type == CONSTANT_FVEC:
                names.src[reg] = (name, reg, 1)
        else:
            unit.add(f".{setter} {letter}{const.register}({args})")


def _declare_outputs(unit: _Unit, dvle: Dvle, names: _Names, used: set[str]) -> None:
    for out in dvle.outputs:
        semantic = OUTPUT_SEMANTICS.get(out.semantic)
        if semantic is None:
            unit.lossy(f"output o{out.register} has semantic {out.semantic}, which picasso cannot write")
            continue
        if not 0 < out.mask < 16:
            unit.lossy(f"output o{out.register} has component mask {out.mask:#x}")
            continue
        comps = "".join(c for bit, c in enumerate("xyzw") if out.mask >> bit & 1)
        reg = f"o{out.register}" + ("" if out.mask == 0xF else f".{comps}")
        name = "-"
        if out.register not in names.dst:
            name = f"out_{semantic}"
            while name in used:
                name += "_"
            used.add(name)
            names.dst[out.register] = name
        unit.add(f".out {name} {semantic} {reg}")


def _cond_text(inst: Instruction) -> str | None:
    refx, refy, op = inst.get("refx"), inst.get("refy"), inst.get("condop")
    x = ("" if refx else "!") + "cmp.x"
    y = ("" if refy else "!") + "cmp.y"
    if op == CONDOP_OR:
        return f"{x} || {y}"
    if op == CONDOP_AND:
        return f"{x} && {y}"
    if op == CONDOP_X:
        return x if refy else None
    return y if refx else None


class _Code:
    """Prints the instructions of one DVLE's code range."""

    def __init__(self, code: list[int], opdescs: list[int], procs: dict[tuple[int, int], str],
                 proc_starts: dict[int, str]) -> None:
        #: add "; shaderkit: desc N" to each instruction (when picasso's merging would differ)
        self.hints = False
        #: optional text appended to each instruction line, given its word index (disasm --offsets)
        self.marker: Callable[[int], str] | None = None
        self.code = code
        self.insts = [decode(w) for w in code]
        self.opdescs = opdescs
        self.procs = procs
        self.proc_starts = proc_starts

    def desc(self, unit: _Unit, inst: Instruction) -> int:
        index = inst.get("desc")
        if index >= len(self.opdescs):
            unit.lossy(f"operand descriptor {index} does not exist")
            return 0xF | (IDENTITY_SWIZZLE << 5) | (IDENTITY_SWIZZLE << 14) | (IDENTITY_SWIZZLE << 23)
        return self.opdescs[index]

    @staticmethod
    def src(names: _Names, desc: int, which: int, reg: int, idx: int = 0) -> str:
        neg, swz = opdesc_src(desc, which)
        text = ("-" if neg else "") + names.source(reg, idx)
        return text if swz == IDENTITY_SWIZZLE else f"{text}.{swizzle_text(swz)}"

    @staticmethod
    def dst(unit: _Unit, names: _Names, desc: int, reg: int) -> str:
        mask = desc & 0xF
        if not mask:
            unit.lossy("destination mask is empty")
            return names.dest(reg) + ".x"
        return names.dest(reg) + ("" if mask == 0xF else "." + mask_text(mask))

    def proc_name(self, unit: _Unit, start: int, num: int) -> str:
        name = self.procs.get((start, num))
        if name is None:
            unit.lossy(f"call target {start}+{num} is not one procedure")
            name = self.proc_starts.get(start, f"proc_{start:03x}")
        return name

    def text(self, unit: _Unit, pos: int, names: _Names, labels: dict[int, str]) -> str:
        inst = self.insts[pos]
        word = self.code[pos]
        if inst.extra:
            unit.lossy(f"word {word:#010x} has bits picasso never sets ({inst.extra:#x})")
        text = self.text_of(unit, inst, word, names, labels)
        if inst.fmt in DESC_FORMATS and self.hints:
            text += f"  {PRAGMA_DESC} {inst.get('desc')}"
        return text + self.marker(pos) if self.marker is not None else text

    def text_of(self, unit: _Unit, inst: Instruction, word: int, names: _Names,
                labels: dict[int, str]) -> str:
        m = inst.mnemonic
        fmt = inst.fmt
        ops = inst.operands
        if fmt in DESC_FORMATS:
            desc = self.desc(unit, inst)
            if fmt in ("1", "1i"):
                base = m[:-1] if fmt == "1i" else m
                s1 = self.src(names, desc, 1, ops["src1"], ops["idx"] if fmt == "1" else 0)
                s2 = self.src(names, desc, 2, ops["src2"], ops["idx"] if fmt == "1i" else 0)
                return f"{base} {self.dst(unit, names, desc, ops['dst'])}, {s1}, {s2}"
            if fmt == "1u":
                s1 = self.src(names, desc, 1, ops["src1"], ops["idx"])
                return f"{m} {self.dst(unit, names, desc, ops['dst'])}, {s1}"
            if fmt == "1m":
                target = {8: "a0.x", 4: "a0.y", 12: "a0.xy"}.get(desc & 0xC)
                if target is None or desc & 3:
                    unit.lossy(f"mova destination mask {desc & 0xF:#x}")
                    target = target or "a0.x"
                return f"mova {target}, {self.src(names, desc, 1, ops['src1'], ops['idx'])}"
            if fmt == "1c":
                if ops["cmpx"] >= len(CMP_OPS) or ops["cmpy"] >= len(CMP_OPS):
                    unit.lossy("compare operator 6/7 does not exist")
                cx = CMP_OPS[min(ops["cmpx"], 5)]
                cy = CMP_OPS[min(ops["cmpy"], 5)]
                s1 = self.src(names, desc, 1, ops["src1"], ops["idx"])
                s2 = self.src(names, desc, 2, ops["src2"])
                return f"cmp {s1}, {cx}, {cy}, {s2}"
            idx2 = ops["idx"] if fmt == "5" else 0
            idx3 = ops["idx"] if fmt == "5i" else 0
            s1 = self.src(names, desc, 1, ops["src1"])
            s2 = self.src(names, desc, 2, ops["src2"], idx2)
            s3 = self.src(names, desc, 3, ops["src3"], idx3)
            return f"mad {self.dst(unit, names, desc, ops['dst'])}, {s1}, {s2}, {s3}"
        if fmt == "0":
            if m.startswith("unk"):
                unit.lossy(f"unknown instruction word {word:#010x} (written as nop)")
                return "nop"
            return m
        if fmt == "4":
            flags = " ".join(f for f, on in (("prim", ops["prim"]), ("inv", ops["winding"])) if on)
            return f"setemit {ops['vertex_id']}" + (f", {flags}" if flags else "")
        if fmt == "3l":
            return f"for {names.flag(0x80 + ops['int_id'])}"
        num = word & 0x3FF
        if fmt == "2":
            cond = _cond_text(inst)
            if cond is None:
                unit.lossy("single-register condition with the other reference bit cleared")
                cond = "cmp.x" if ops["condop"] == CONDOP_X else "cmp.y"
            if m in ("breakc", "ifc"):
                return f"{m} {cond}"
            if m == "callc":
                return f"callc {cond}, {self.proc_name(unit, ops['dst'], num)}"
            if m == "call":
                return f"call {self.proc_name(unit, ops['dst'], num)}"
            return f"jmpc {cond}, {self.jump_label(unit, ops['dst'], labels)}"
        reg = names.flag(0x88 + ops["bool_id"])
        if m == "ifu":
            return f"ifu {reg}"
        if m == "callu":
            return f"callu {reg}, {self.proc_name(unit, ops['dst'], num)}"
        neg = "!" if num & 1 else ""
        if num & ~1:
            unit.lossy("jmpu NUM has bits besides the inversion bit")
        return f"jmpu {neg}{reg}, {self.jump_label(unit, ops['dst'], labels)}"

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
    insts = printer.insts
    labels: dict[int, str] = {pos: name for pos, name in known.items() if lo <= pos <= hi}
    for inst in insts[lo:hi]:
        if inst.mnemonic in _FLOW_JUMPS:
            target = inst.get("dst")
            if lo <= target <= hi:
                labels.setdefault(target, f"label_{target:03x}")
    cuts = [c for c in sorted(set(printer.proc_starts) | {lo, hi}) if lo <= c <= hi]
    for start, stop in zip(cuts, cuts[1:]):
        name = entry_name if start == entry[0] else printer.proc_starts.get(start, f"proc_{start:03x}")
        unit.add(f".proc {name}")
        _write_block(unit, printer, start, stop, names, labels)
        unit.add(".end")
        unit.add("")
    if hi in labels:
        unit.add(f"{labels[hi]}:")


def _write_block(unit: _Unit, printer: _Code, start: int, stop: int, names: _Names,
                 labels: dict[int, str]) -> None:
    """One procedure body with structured if/else/end and for/end blocks."""
    stack: list[list[int]] = []  # open blocks: [close position, else position or -1]
    for pos in range(start, stop + 1):
        while stack:
            close, else_at = stack[-1]
            if pos == else_at:
                unit.add("\t" * len(stack) + ".else")
                stack[-1][1] = -1
            elif pos == close:
                stack.pop()
                unit.add("\t" * (len(stack) + 1) + ".end")
            else:
                break
        if pos in labels and pos < stop:
            unit.add(f"{labels[pos]}:")
        if pos == stop:
            break
        inst = printer.insts[pos]
        indent = "\t" * (len(stack) + 1)
        limit = stack[-1][0] if stack else stop
        block: list[int] | None = None
        if inst.mnemonic in ("ifu", "ifc"):
            dst, num = inst.get("dst"), printer.code[pos] & 0x3FF
            if pos < dst <= dst + num <= limit:
                block = [dst + num, dst if num else -1]
                if dst == pos + 1 or (num and num < 1):
                    unit.lossy("empty if body: picasso pads it with a nop")
        elif inst.mnemonic == "loop":
            close = inst.get("dst") + 1
            if pos < close <= limit:
                block = [close, -1]
                if close == pos + 1:
                    unit.lossy("empty loop body: picasso pads it with a nop")
        if inst.mnemonic in ("ifu", "ifc", "loop") and block is None:
            unit.lossy(f"{inst.mnemonic} at {pos} does not nest; written as nop")
            unit.add(indent + "nop")
            continue
        unit.add(indent + printer.text(unit, pos, names, labels))
        if block is not None:
            stack.append(block)


def _alias_inputs(unit: _Unit, printer: _Code, lo: int, hi: int, names: _Names, used: set[str]) -> None:
    """``.alias inN vN`` for the input registers the code reads that no ``.in`` names."""
    read: set[int] = set()
    for inst in printer.insts[lo:hi]:
        for field_name in ("src1", "src2", "src3"):
            reg = inst.operands.get(field_name)
            if reg is not None and reg < 0x10 and inst.fmt in DESC_FORMATS:
                read.add(reg)
    for reg in sorted(read):
        if reg in names.src:
            continue
        name = f"in{reg}"
        while name in used:
            name += "_"
        used.add(name)
        unit.add(f".alias {name} v{reg}")
        names.src[reg] = (name, reg, 1)


def _ranges(dvlb: Dvlb) -> list[tuple[int, int]] | None:
    """Code range of each DVLE: cut at the entry points when they increase in DVLE order."""
    size = len(dvlb.dvlp.code)
    starts = [min(d.main_offset, size) for d in dvlb.dvles]
    if any(b <= a for a, b in zip(starts, starts[1:])):
        return None
    bounds = [0, *starts[1:], size]
    return list(zip(bounds, bounds[1:]))


def _entry(dvle: Dvle, lo: int, hi: int) -> tuple[int, int]:
    start = min(max(dvle.main_offset, lo), hi)
    end = dvle.endmain_offset if dvle.endmain_offset > start else hi
    return start, min(end, hi) - start


def dvlb_to_sources(dvlb: Dvlb, marker: Callable[[int], str] | None = None) -> list[str]:
    """One picasso source per DVLE.

    When picasso's descriptor merging would not rebuild this file's descriptor table (files made
    by nihstro keep descriptors that agree on every used bit apart), the text also carries
    ``; shaderkit: opdescs ...`` and per-instruction ``; shaderkit: desc N`` comments: picasso
    ignores them, ``shaderkit asm`` uses them to rebuild the same table and words.
    """
    texts = _sources(dvlb, False, [{}] * len(dvlb.dvles))
    rebuilt = _rebuild(texts)
    if marker is not None:
        texts = _sources(dvlb, False, [{}] * len(dvlb.dvles), marker)
    if rebuilt is None:
        return texts  # not representable either way; keep the plain text
    same_code = rebuilt.dvlp.code == dvlb.dvlp.code and rebuilt.dvlp.opdescs == dvlb.dvlp.opdescs
    headers = [_header_overrides(old, new) for old, new in zip(dvlb.dvles, rebuilt.dvles)]
    if len(rebuilt.dvles) != len(dvlb.dvles) or (same_code and not any(headers)
                                                  and not any(d.labels for d in dvlb.dvles)):
        return texts
    return _sources(dvlb, not same_code, headers, marker)


def _rebuild(texts: list[str]) -> Dvlb | None:
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dvlb.build import program_to_dvlb, split_units
    from shaderkit.isa.pica.assembler import assemble

    try:
        return program_to_dvlb(assemble(split_units("\n".join(texts), "check")))
    except AssemblyError:
        return None


_HEADER_FIELDS = ("version", "shader_type", "merge_outmaps", "main_offset", "endmain_offset", "input_mask",
                  "output_mask", "gs_mode", "gs_fixed_vertex_start", "gs_variable_vertex_num",
                  "gs_fixed_vertex_num")


def _header_overrides(old: Dvle, new: Dvle) -> dict[str, int]:
    """DVLE header fields picasso would write differently (files from nihstro or old picasso)."""
    return {k: getattr(old, k) for k in _HEADER_FIELDS if getattr(old, k) != getattr(new, k)}


def _sources(dvlb: Dvlb, hints: bool, headers: list[dict[str, int]],
             marker: Callable[[int], str] | None = None) -> list[str]:
    code = list(dvlb.dvlp.code)
    opdescs = [d.value for d in dvlb.dvlp.opdescs]
    count = len(dvlb.dvles)
    ranges = _ranges(dvlb)
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
    printer.hints = hints
    printer.marker = marker
    for word, inst in zip(code, printer.insts):
        if inst.mnemonic in _FLOW_CALLS:
            start, num = inst.get("dst"), word & 0x3FF
            name = proc_starts.setdefault(start, f"proc_{start:03x}")
            procs.setdefault((start, num), name)
            if start + num <= len(code):
                proc_starts.setdefault(start + num, f"proc_{start + num:03x}")
    for start, size in entries:
        proc_starts.setdefault(start + size, f"proc_{start + size:03x}")
    alloc = _Allocation()
    texts = []
    for i, dvle in enumerate(dvlb.dvles):
        unit = _Unit()
        lo, hi = ranges[i]
        unit.add(f"{UNIT_MARKER} {i}: {'geometry' if dvle.is_geometry else 'vertex'} shader, "
                 f"entry {entry_names[i]} (words {entries[i][0]}..{entries[i][0] + entries[i][1]})")
        if hints and i == 0:
            unit.add(" ".join([PRAGMA_OPDESCS, *(f"{d:#x}" for d in opdescs)]))
        if headers[i]:
            unit.add(" ".join([PRAGMA_DVLE, *(f"{k}={v:#x}" for k, v in headers[i].items())]))
        for label in dvle.labels:
            if _valid_ident(label.name):
                unit.add(f"{PRAGMA_LABEL} {label.id} {label.program_offset} {label.name} {label.unknown:#x}")
            else:
                unit.lossy(f"label name {label.name!r} cannot be written")
        names = _Names()
        used: set[str] = set()
        gsh_space = False
        first_free = 0x20
        if dvle.is_geometry:
            fixed_start = 0x20 + dvle.gs_fixed_vertex_start
            gs_new = bool(dvle.gs_mode or dvle.merge_outmaps or dvle.gs_variable_vertex_num
                          or dvle.gs_fixed_vertex_num)
            has_dummy = any(o.semantic == 9 for o in dvle.outputs)
            if not gs_new and not has_dummy and _conflicts_in_shared_space(dvle, alloc):
                gs_new = True  # ".gsh point cN" gives the same header and its own uniform space
            if gs_new:
                fvecs = [u.first_register + 0x10 for u in dvle.uniforms if 0x10 <= u.first_register < 0x70]
                first_free = min(fvecs) if fvecs else (fixed_start + 1 if dvle.gs_mode == 2 else 0x20)
                mode = GSH_MODES[dvle.gs_mode] if dvle.gs_mode < 3 else "point"
                line = f".gsh {mode} c{first_free - 0x20}"
                if dvle.gs_mode == 1:
                    line += f" {dvle.gs_variable_vertex_num}"
                elif dvle.gs_mode == 2:
                    line += f" c{dvle.gs_fixed_vertex_start} {dvle.gs_fixed_vertex_num}"
                unit.add(line)
                gsh_space = True
            else:
                unit.add(".gsh")
        elif dvle.shader_type != 0:
            unit.lossy(f"shader type {dvle.shader_type}")
        _declare_uniforms(unit, dvle, alloc, gsh_space, first_free, names, used)
        _declare_constants(unit, dvle, names, used)
        _declare_outputs(unit, dvle, names, used)
        if entry_names[i] != "main":
            unit.add(f".entry {entry_names[i]}")
        if dvle.input_mask and not all(dvle.input_mask >> u.first_register & 1
                                       for u in dvle.uniforms if u.first_register < 0x10):
            unit.lossy("input mask does not match the .in declarations")
        _alias_inputs(unit, printer, lo, hi, names, used)
        unit.add("")
        if hi > lo:
            known: dict[int, str] = {}
            for label in dvle.labels:
                if _valid_ident(label.name) and label.name not in known.values():
                    known.setdefault(label.program_offset, label.name)
            _write_code(unit, printer, lo, hi, names, entry_names[i], entries[i], known)
        texts.append("\n".join(unit.lines) + "\n")
    return texts


def dvlb_to_source(dvlb: Dvlb, marker: Callable[[int], str] | None = None) -> str:
    """picasso source of every DVLE, joined by ``; shaderkit: DVLE n`` marker lines; ``marker``
    (word index -> text) is appended to every instruction line when given."""
    return "\n".join(dvlb_to_sources(dvlb, marker))

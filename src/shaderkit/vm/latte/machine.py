"""The Latte executor: one wavefront of lanes sharing one CF program counter.

All lanes run the same CF instruction; each lane has a state made of four masks, as AMD's R700
document describes the per-pixel state: ``alive`` (the valid mask: cleared by KILL, never set
again), ``branch`` (cleared by PRED_SET with UPDATE_EXECUTE_MASK for lanes whose condition fails:
"inactive-branch"), ``broken`` and ``continued`` (inactive-break / inactive-continue of the
innermost loop). A lane executes when all four allow it. The one stack holds branch entries
(the ``branch`` mask, pushed by PUSH / ALU_PUSH_BEFORE), loop entries (the masks, AL and loop
counter of the enclosing loop) and call entries (a return address).

Instruction fields come from the ISA table's layouts through the disassembler's decoders;
nothing here takes bits apart by hand.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.isa.latte import table as T
from shaderkit.isa.latte.disasm import (
    CF_ALU_NAMES,
    CF_NAMES,
    EXP_NAMES,
    TEX_NAMES,
    VTX_NAMES,
    alu_fields,
    cf_count,
    exp_fields,
    fetch_fields,
    unpack_cf,
    unpack_cf_alu,
)
from shaderkit.isa.latte.words import unpacker
from shaderkit.vm.latte import fetch as FX
from shaderkit.vm.latte.semantics import (
    F32,
    I32,
    SEMANTICS,
    U32,
    UNSUPPORTED,
    Semantic,
    join_double,
    split_double,
)
from shaderkit.vm.legacy_float import saturate

GPRS = 128
STACK_LIMIT = 1024  # entries (the hardware has far fewer; this only stops runaway programs)
CALL_LIMIT = 32
DEFAULT_MAX_STEPS = 1 << 20  # CF instructions + ALU groups + fetches before a run is stopped


class VMError(ShaderkitError, ValueError):
    """Bad use of the VM (shapes, names, values), an instruction it cannot run, or a runaway run."""


# -- decoded program ---------------------------------------------------------------------------
@dataclass
class AluInst:
    """One ALU instruction of a group: its fields, table row, semantics and unit (0-3 xyzw, 4 t)."""

    f: dict[str, int]
    op: T.AluOp
    sem: Semantic | None
    unit: int
    op3: bool
    #: per source: (SEL, CHAN, REL, ABS, NEG), read from ``f`` once (ABS only for OP2 sources 0-1)
    srcs: tuple[tuple[int, int, int, int, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        f = self.f
        self.srcs = tuple((f.get(f"SRC{i}_SEL", 0), f.get(f"SRC{i}_CHAN", 0), f.get(f"SRC{i}_REL", 0),
                           f.get(f"SRC{i}_ABS", 0) if i < 2 and not self.op3 else 0, f.get(f"SRC{i}_NEG", 0))
                          for i in range(3))


@dataclass
class AluGroup:
    """One instruction group and its literal words."""

    insts: list[AluInst]
    literals: list[int]


class Program:
    """Latte program bytes, decoded lazily: CF slots, ALU clauses and fetch clauses (cached)."""

    def __init__(self, code: bytes) -> None:
        if len(code) % 8:
            raise VMError(f"program size {len(code)} is not a multiple of 8")
        self.code = code
        self.words = struct.unpack(f"<{len(code) // 4}I", code)
        self.slots = len(code) // 8
        self._alu: dict[tuple[int, int], list[AluGroup]] = {}
        self._fetch: dict[tuple[int, int, bool], list[dict[str, int]]] = {}

    def pair(self, slot: int, what: str) -> tuple[int, int]:
        """The two words of 8-byte ``slot`` (VMError outside the program)."""
        if not 0 <= slot < self.slots:
            raise VMError(f"{what} at slot {slot} is outside the {len(self.code)}-byte program")
        return self.words[2 * slot], self.words[2 * slot + 1]

    def alu_clause(self, addr: int, count: int) -> list[AluGroup]:
        """The groups of the ALU clause of ``count`` slots at ``addr`` (literals included)."""
        key = (addr, count)
        if key in self._alu:
            return self._alu[key]
        groups: list[AluGroup] = []
        slot = 0
        while slot < count:
            insts: list[AluInst] = []
            literal_count = 0
            while True:
                if len(insts) == 5:
                    raise VMError(f"ALU group at slot {addr + slot} has more than 5 instructions")
                w0, w1 = self.pair(addr + slot + len(insts), "ALU instruction")
                fields, op = alu_fields(w0, w1)
                op3 = "OP3_INST" in fields.values
                insts.append(AluInst(fields.values, op, SEMANTICS.get(op.name), 0, op3))
                for i in range(op.srcs):
                    if fields.values[f"SRC{i}_SEL"] == T.ALU_SRC_LITERAL:
                        literal_count = max(literal_count, fields.values[f"SRC{i}_CHAN"] + 1)
                if fields.values["LAST"]:
                    break
            taken = [False] * 5
            for inst in insts:
                unit = inst.f["DST_CHAN"]
                if inst.op.trans_only or (not inst.op.vector_only and taken[unit]):
                    unit = 4
                if taken[unit]:
                    raise VMError(f"two ALU instructions in unit {T.UNITS[unit]} at slot {addr + slot}")
                taken[unit] = True
                inst.unit = unit
            literals: list[int] = []
            for i in range((literal_count + 1) // 2):
                literals.extend(self.pair(addr + slot + len(insts) + i, "ALU literal"))
            groups.append(AluGroup(insts, literals))
            slot += len(insts) + (literal_count + 1) // 2
        self._alu[key] = groups
        return groups

    def fetch_clause(self, addr: int, count: int, vertex: bool) -> list[dict[str, int]]:
        """The field dicts of the fetch clause of ``count`` instructions at ``addr``."""
        key = (addr, count, vertex)
        if key not in self._fetch:
            out = []
            for i in range(count):
                w0, w1 = self.pair(addr + 2 * i, "fetch instruction")
                w2, w3 = self.pair(addr + 2 * i + 1, "fetch instruction")
                out.append(fetch_fields((w0, w1, w2, w3), vertex).values)
            self._fetch[key] = out
        return self._fetch[key]


# -- results -------------------------------------------------------------------------------------
@dataclass
class MemWrite:
    """One memory export (MEM_STREAM*, MEM_RING, MEM_SCRATCH, MEM_REDUCTION, MEM_EXPORT), as
    recorded: the instruction, its TYPE (0 write, 1 indexed write, 2/3 reads), ARRAY_BASE in
    the instruction's units, the index GPR's x per lane (indexed kinds), COMP_MASK, and the
    written data (lanes, burst, 4) as float32 bits, with the mask of lanes that wrote."""

    inst: str
    type: int
    array_base: int
    index: np.ndarray | None
    comp_mask: int
    data: np.ndarray
    lanes: np.ndarray


@dataclass
class Wave:
    """The register file and lane state of one run (see the module docstring)."""

    n: int
    gpr: np.ndarray  # (128, 4, n) uint32
    alive: np.ndarray
    branch: np.ndarray
    broken: np.ndarray
    continued: np.ndarray
    pred: np.ndarray
    ar: np.ndarray  # (4, n) int32
    al: int = 0
    pv: list[np.ndarray] = field(default_factory=list)
    ps: np.ndarray = field(default_factory=lambda: np.zeros(1, U32))
    stack: list[tuple[Any, ...]] = field(default_factory=list)
    steps: int = 0
    exports: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    memory: list[MemWrite] = field(default_factory=list)
    emits: list[tuple[str, np.ndarray]] = field(default_factory=list)
    gradients: dict[str, np.ndarray] = field(default_factory=dict)
    #: SET_CUBEMAP_INDEX's value per resource id, per lane (float32; ``fetch.set_cubemap_index``)
    cube_index: dict[int, np.ndarray] = field(default_factory=dict)

    @classmethod
    def new(cls, n: int) -> Wave:
        """A wave of ``n`` lanes, all alive and active, registers zero."""
        zeros = np.zeros(1, U32)
        return cls(n=n, gpr=np.zeros((GPRS, 4, n), U32), alive=np.ones(n, bool),
                   branch=np.ones(n, bool), broken=np.zeros(n, bool), continued=np.zeros(n, bool),
                   pred=np.zeros(n, bool), ar=np.zeros((4, n), I32), pv=[zeros] * 4, ps=zeros)

    def active(self) -> np.ndarray:
        """Lanes that execute now."""
        return self.alive & self.branch & ~self.broken & ~self.continued


@dataclass
class Env:
    """What a run reads besides registers: constants, textures, buffers, limits."""

    cfile: np.ndarray  # (256, 4) uint32
    blocks: dict[int, np.ndarray]  # uniform block location -> (k, 4) uint32
    bools: int
    loops: dict[int, int]
    textures: Mapping[int, Any]
    samplers: Mapping[int, Any]
    buffers: Mapping[int, Any]
    max_steps: int
    fetch_program: Program | None
    quads: bool = False
    #: SEMANTIC fetches: semantic id -> GPR (the vertex shader's SQ_VTX_SEMANTIC registers)
    semantic_gprs: dict[int, int] = field(default_factory=dict)


_unpack_loop_const = unpacker((T.SQ_LOOP_CONST,))
_LOOP_INC_BITS = T.field_width(T.SQ_LOOP_CONST, "INC")


def _selected(values: Sequence[np.ndarray] | np.ndarray, sel: int, one: int, what: str) -> np.ndarray:
    """A component select: channel ``sel`` (0-3) of ``values``, SEL_0 (0) or SEL_1 (the bits ``one``)."""
    if sel < 4:
        return np.asarray(values[sel])
    if sel == T.SEL_0:
        return np.zeros(1, U32)
    if sel == T.SEL_1:
        return np.array([one], U32)
    raise VMError(f"{what} select {sel} has no meaning")


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(U32) if a.dtype != U32 else a


def _lanes(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` broadcast to (n,) lanes (itself when it has that shape: broadcast_to costs microseconds)."""
    return a if a.shape == (n,) else np.broadcast_to(a, (n,))


# -- the executor --------------------------------------------------------------------------------
class Machine:
    """Runs one program over one wave (see :func:`run_program`)."""

    def __init__(self, program: Program, wave: Wave, env: Env) -> None:
        self.p = program
        self.w = wave
        self.env = env
        self.lane_index = np.arange(wave.n)

    # -- control flow ----------------------------------------------------------------------------
    def step(self) -> None:
        """Count one step; VMError past ``max_steps``."""
        w = self.w
        w.steps += 1
        if w.steps > self.env.max_steps:
            raise VMError(f"stopped after {self.env.max_steps} steps (runaway program? raise max_steps)")

    def run(self, start: int = 0, subroutine: bool = False) -> None:
        """Execute from CF slot ``start`` until END_OF_PROGRAM (or RETURN for a subroutine)."""
        p, w = self.p, self.w
        pc = start
        calls = 0
        while True:
            self.step()
            w0, w1 = p.pair(pc, "CF instruction")
            cf = unpack_cf((w0, w1))
            kind = T.cf_inst_type(w1)
            nxt = pc + 1
            end = False
            if kind in (T.CF_TYPE_ALU, T.CF_TYPE_ALU_EXTENDED):
                alu = unpack_cf_alu((w0, w1))
                name = CF_ALU_NAMES[alu["CF_INST"]]
                self.cf_alu(name, alu)
            elif kind == T.CF_TYPE_EXPORT:
                f = exp_fields(w0, w1).values
                name = EXP_NAMES.get(f["CF_INST"], "UNKNOWN")
                self.export(name, f)
                end = bool(f["END_OF_PROGRAM"])
            else:
                name = CF_NAMES.get(cf["CF_INST"], "UNKNOWN")
                end = bool(cf["END_OF_PROGRAM"])
                target = self.cf_normal(name, cf, pc)
                if target == "return":
                    if subroutine and not any(e[0] == "call" for e in w.stack):
                        return
                    while w.stack and w.stack[-1][0] != "call":
                        w.stack.pop()
                    if not w.stack:
                        end = True
                    else:
                        nxt = w.stack.pop()[1]
                        calls -= 1
                elif target == "call":
                    calls += 1
                    if calls > CALL_LIMIT:
                        raise VMError(f"CALL nesting deeper than {CALL_LIMIT} at CF {pc}")
                    self.push(("call", pc + 1))
                    nxt = cf["ADDR"]
                elif target == "end":
                    end = True
                elif isinstance(target, int):
                    nxt = target
            if end:
                return
            pc = nxt

    def push(self, entry: tuple[Any, ...]) -> None:
        """Push a stack entry (VMError past the stack limit)."""
        if len(self.w.stack) >= STACK_LIMIT:
            raise VMError(f"control-flow stack deeper than {STACK_LIMIT} entries")
        self.w.stack.append(entry)

    def pop(self, count: int) -> None:
        """Pop ``count`` entries; the deepest popped branch entry's mask becomes the branch mask."""
        w = self.w
        if count > len(w.stack):
            raise VMError(f"POP of {count} entries with {len(w.stack)} on the stack")
        restored = None
        for _ in range(count):
            entry = w.stack.pop()
            if entry[0] == "branch":
                restored = entry[1]
            elif entry[0] == "loop":
                restored = entry[1]
                w.broken, w.continued, w.al = entry[2], entry[3], entry[4]
        if restored is not None:
            w.branch = restored

    def condition(self, cf: Mapping[str, int]) -> np.ndarray:
        """Lanes that pass the CF condition (active and COND with its bool constant)."""
        active = self.w.active()
        return active if self.cond_value(cf) else np.zeros_like(active)

    def cond_value(self, cf: Mapping[str, int]) -> bool:
        """The lane-independent part of COND: ACTIVE and a passing bool constant are True."""
        cond = cf["COND"]
        if cond == T.COND_ACTIVE:
            return True
        if cond == T.COND_FALSE:
            return False
        return bool(self.env.bools >> cf["CF_CONST"] & 1) == (cond == T.COND_BOOL)

    def do_else(self, where: str = "ELSE", flip: bool = True) -> None:
        """ELSE's mask flip: lanes active at the innermost push swap active and inactive-branch
        (none when ``flip`` is false: an ELSE whose condition fails)."""
        w = self.w
        top = next((e for e in reversed(w.stack) if e[0] in ("branch", "loop")), None)
        if top is None:
            raise VMError(f"{where} with no PUSH before it")
        if flip:
            w.branch = np.where(top[1], ~w.branch, w.branch)

    def cf_normal(self, name: str, cf: Mapping[str, int], pc: int) -> object:
        """Execute one normal CF instruction; returns a jump target, "call", "return", "end" or None."""
        w = self.w
        if name in ("NOP", "WAIT_ACK", "TEX_ACK", "VTX_ACK", "VTX_TC_ACK"):
            return None
        if name in ("TEX", "VTX", "VTX_TC"):
            passing = self.condition(cf)
            if passing.any():
                self.fetch_clause(cf["ADDR"], cf_count(cf), name != "TEX", passing)
            return None
        if name == "END_PROGRAM":
            return "end"
        if name == "JUMP":
            if not self.condition(cf).any():
                self.pop(cf["POP_COUNT"])
                return cf["ADDR"]
            return None
        if name in ("PUSH", "PUSH_ELSE", "POP_PUSH", "POP_PUSH_ELSE"):
            if name.startswith("POP_"):
                self.pop(cf["POP_COUNT"])
            passing = self.condition(cf)
            if not passing.any():
                if not name.startswith("POP_"):
                    self.pop(cf["POP_COUNT"])
                return cf["ADDR"]
            self.push(("branch", w.branch.copy()))
            active = w.active()
            w.branch = np.where(active, passing, w.branch)
            if name.endswith("ELSE"):
                self.do_else()
            return None
        if name == "ELSE":
            self.do_else(f"ELSE at CF {pc}", self.cond_value(cf))
            if not w.active().any():
                self.pop(cf["POP_COUNT"])
                return cf["ADDR"]
            return None
        if name == "POP":
            self.pop(cf["POP_COUNT"])
            return None
        if name == "POP_JUMP":
            self.pop(cf["POP_COUNT"])
            return cf["ADDR"] if not self.condition(cf).any() else None
        if name.startswith("LOOP_START"):
            return self.loop_start(name, cf)
        if name == "LOOP_END":
            return self.loop_end(cf, pc)
        if name in ("LOOP_BREAK", "LOOP_CONTINUE"):
            passing = self.condition(cf)
            if name == "LOOP_BREAK":
                w.broken = w.broken | passing
            else:
                w.continued = w.continued | passing
            if not w.active().any():
                self.pop(cf["POP_COUNT"])
                return cf["ADDR"]
            return None
        if name == "CALL":
            return "call" if self.condition(cf).any() else None
        if name == "CALL_FS":
            if self.env.fetch_program is not None:
                Machine(self.env.fetch_program, w, self.env).run(0, subroutine=True)
            return None
        if name == "RETURN":
            active = w.active()
            passing = self.condition(cf)
            if bool((passing == active).all()):
                return "return"
            return None
        if name == "KILL":
            w.alive = w.alive & ~self.condition(cf)
            return None
        if name in ("EMIT_VERTEX", "EMIT_CUT_VERTEX", "CUT_VERTEX"):
            w.emits.append((name, self.condition(cf).copy()))
            return None
        raise VMError(f"CF instruction {name} (CF_INST {cf['CF_INST']:#x}) at CF {pc} cannot be executed")

    def loop_start(self, name: str, cf: Mapping[str, int]) -> object:
        """LOOP_START*: skip the loop (count 0, no lane passing) or push a loop entry and start it."""
        w = self.w
        passing = self.condition(cf)
        loop = _unpack_loop_const((self.env.loops.get(cf["CF_CONST"], 0),))
        dx10 = name == "LOOP_START_DX10"
        count = loop["COUNT"]
        if not passing.any() or (not dx10 and count == 0):
            return cf["ADDR"]
        self.push(("loop", w.branch.copy(), w.broken, w.continued, w.al, count, name,
                   T.signed(loop["INC"], _LOOP_INC_BITS)))
        if name == "LOOP_START":
            w.al = loop["INIT"]
        w.broken = ~passing
        w.continued = np.zeros(w.n, bool)
        return None

    def loop_end(self, cf: Mapping[str, int], pc: int) -> object:
        """LOOP_END: next iteration while the count lasts and a lane is active, else pop the loop."""
        w = self.w
        if not w.stack or w.stack[-1][0] != "loop":
            raise VMError(f"LOOP_END at CF {pc} without a loop on the stack")
        entry = w.stack[-1]
        count = entry[5] - 1
        w.continued = np.zeros(w.n, bool)
        if (entry[6] == "LOOP_START_DX10" or count > 0) and self.condition(cf).any():
            w.stack[-1] = (*entry[:5], count, *entry[6:])
            if entry[6] == "LOOP_START":
                w.al += entry[7]
            return cf["ADDR"]
        self.pop(1)
        return None

    # -- ALU clauses ----------------------------------------------------------------------------
    def cf_alu(self, name: str, cf: Mapping[str, int]) -> None:
        """An ALU clause CF instruction with its push/pop/else/break/continue effects."""
        w = self.w
        if name == "ALU_PUSH_BEFORE":
            self.push(("branch", w.branch.copy()))
        before = w.active()
        if before.any():
            self.alu_clause(cf)
        if name == "ALU_POP_AFTER":
            self.pop(1)
        elif name == "ALU_POP2_AFTER":
            self.pop(2)
        elif name == "ALU_CONTINUE":
            w.continued = w.continued | (before & ~w.branch & w.alive)
            w.branch = w.branch | (before & ~w.branch)
        elif name == "ALU_BREAK":
            w.broken = w.broken | (before & ~w.branch & w.alive)
            w.branch = w.branch | (before & ~w.branch)
        elif name == "ALU_ELSE_AFTER":
            self.do_else()

    def kcache(self, cf: Mapping[str, int]) -> list[tuple[int, int, int]]:
        """(bank, first constant, mode) of KCACHE0/KCACHE1."""
        return [(cf[f"KCACHE_BANK{b}"], cf[f"KCACHE_ADDR{b}"] * 16, cf[f"KCACHE_MODE{b}"]) for b in (0, 1)]

    def alu_clause(self, cf: Mapping[str, int]) -> None:
        """Execute the groups of an ALU clause for the active lanes."""
        groups = self.p.alu_clause(cf["ADDR"], cf["COUNT"] + 1)
        banks = self.kcache(cf)
        for group in groups:
            self.step()
            active = self.w.active()
            if not active.any():
                continue
            self.alu_group(group, banks, active)

    def index(self, f: Mapping[str, int]) -> np.ndarray | int:
        """The relative index of INDEX_MODE: AR.x-w per lane or AL."""
        mode = f["INDEX_MODE"]
        if mode < 4:
            return self.w.ar[mode]
        if mode == 4:
            return self.w.al
        raise VMError(f"INDEX_MODE {mode} is not an R700 index mode")

    def source(self, inst: AluInst, i: int, literals: list[int],
               banks: list[tuple[int, int, int]], ftype: str) -> np.ndarray:
        """Source ``i`` of ``inst`` as float32/int32/uint32 lanes (modifiers applied to floats)."""
        f = inst.f
        sel, chan, rel, absolute, negate = inst.srcs[i]
        w = self.w
        bits: np.ndarray
        if sel <= T.ALU_SRC_GPR_LAST:
            if rel:
                idx = np.clip(sel + self.index(f), 0, GPRS - 1)
                bits = w.gpr[idx, chan, self.lane_index] if isinstance(idx, np.ndarray) else w.gpr[int(idx), chan]
            else:
                bits = w.gpr[sel, chan]  # a view: alu_group copies a result that is one
        elif sel >= T.ALU_SRC_CFILE:
            bits = self.constant(self.env.cfile, sel - T.ALU_SRC_CFILE, chan, self.index(f) if rel else 0)
        elif T.ALU_SRC_KCACHE0 <= sel < T.ALU_SRC_KCACHE1 + 32:
            b = 0 if sel < T.ALU_SRC_KCACHE1 else 1
            bank, first, mode = banks[b]
            if mode == T.KCACHE_NOP:
                raise VMError(f"{inst.op.name} reads KC{b} but the clause locks no KCACHE{b}")
            slot = sel - (T.ALU_SRC_KCACHE0 if b == 0 else T.ALU_SRC_KCACHE1)
            if slot >= T.KCACHE_SPAN[mode]:
                raise VMError(f"{inst.op.name} reads KC{b}[{slot}] but KCACHE_MODE{b} {mode} locks "
                              f"{T.KCACHE_SPAN[mode]} constants")
            offset = first + slot
            if mode == T.KCACHE_LOCK_LOOP_INDEX:
                offset += w.al
            block = self.env.blocks.get(bank)
            if block is None:
                raise VMError(f"{inst.op.name} reads uniform block {bank} (KCACHE{b}) but none was given")
            bits = self.constant(block, offset, chan, self.index(f) if rel else 0)
        elif sel == T.ALU_SRC_LITERAL:
            if chan >= len(literals):
                raise VMError(f"{inst.op.name} reads literal {chan} of a group with {len(literals)}")
            bits = np.array([literals[chan]], U32)
        elif sel == T.ALU_SRC_PV:
            bits = w.pv[chan]
        elif sel == T.ALU_SRC_PS:
            bits = w.ps
        elif sel in T.ALU_SRC_CONSTANT_BITS:
            bits = np.array([T.ALU_SRC_CONSTANT_BITS[sel]], U32)
        elif sel == T.ALU_SRC_AL:
            bits = np.array([w.al], I32).view(U32)
        else:
            name = T.ALU_SRC_NAMES.get(sel, str(sel))
            raise VMError(f"{inst.op.name} reads source {name}, which the VM does not provide")
        if ftype == "f":
            if absolute:
                bits = bits & U32(0x7FFFFFFF)
            if negate:
                bits = bits ^ U32(0x80000000)
            return bits.view(F32)
        return bits.view(I32 if ftype == "i" else U32)

    def constant(self, table: np.ndarray, offset: int, chan: int, rel: np.ndarray | int) -> np.ndarray:
        """Channel ``chan`` of constant ``offset`` (+ ``rel``) of a constant table; 0 outside it."""
        if isinstance(rel, np.ndarray):
            rows = offset + rel
            ok = (rows >= 0) & (rows < table.shape[0])
            return np.where(ok, table[np.clip(rows, 0, max(table.shape[0] - 1, 0)), chan] if table.shape[0] else 0,
                            0).astype(U32)
        idx = offset + rel
        if 0 <= idx < table.shape[0]:
            return table[idx, chan:chan + 1]
        return np.zeros(1, U32)

    def alu_group(self, group: AluGroup, banks: list[tuple[int, int, int]], active: np.ndarray) -> None:
        """Execute one instruction group: all sources read first, then every write (``active``:
        ``Wave.active()``)."""
        w = self.w
        every = bool(active.all())
        writes: list[tuple[AluInst, np.ndarray, np.ndarray]] = []  # inst, bits, lanes
        pv: list[np.ndarray | None] = [None] * 5
        new_ar: list[tuple[int, np.ndarray]] = []
        pred_update: np.ndarray | None = None
        exec_update: np.ndarray | None = None
        kills = np.zeros(w.n, bool)
        spans: dict[tuple[str, int], list[AluInst]] = {}  # (op, pair of slots) -> DOT4, CUBE, 64-bit ops
        for inst in group.insts:
            sem = inst.sem
            if sem is None:
                reason = UNSUPPORTED.get(inst.op.name, "opcode not in the ISA table")
                raise VMError(f"ALU opcode {inst.op.name} cannot be executed: {reason}")
            if sem.kind in ("reduce", "wide"):
                pair = inst.unit // 2 if sem.kind == "wide" and sem.slots == 2 else 0
                spans.setdefault((inst.op.name, pair), []).append(inst)
        results: dict[int, np.ndarray] = {}
        for (name, pair), insts in spans.items():
            sem = insts[0].sem
            assert sem is not None and sem.fn is not None
            if sem.kind == "reduce":
                units, where = [0, 1, 2, 3], "the four vector slots"
            elif sem.slots == 4:
                units, where = [0, 1, 2, 3], "the slots x, y, z and w"
            else:
                units, where = [2 * pair, 2 * pair + 1], "the slots x and y, or z and w,"
            by_unit = {inst.unit: inst for inst in insts}
            if sorted(by_unit) != units:
                raise VMError(f"{name} needs {where} of its group")
            slots = [by_unit[u] for u in units]
            if sem.kind == "wide":
                pred, execute = self.wide(name, slots, group.literals, banks, results)
                pred_update = pred if pred is not None else pred_update
                exec_update = execute if execute is not None else exec_update
                continue
            srcs = [[self.source(inst, i, group.literals, banks, kind) for i, kind in enumerate(sem.ins)]
                    for inst in slots]
            value = sem.fn(srcs)
            per_unit = value if isinstance(value, list) else [value] * 4
            for u in range(4):
                results[u] = self.finish(by_unit[u], np.asarray(per_unit[u], F32))
        for inst in group.insts:
            sem = inst.sem
            assert sem is not None
            if sem.kind in ("reduce", "wide"):
                continue
            args = [self.source(inst, i, group.literals, banks, sem.ins[i]) for i in range(len(sem.ins))]
            if sem.kind == "nop":
                continue
            assert sem.fn is not None
            if sem.kind == "map":
                out = sem.fn(*args)
                results[inst.unit] = self.finish(inst, np.asarray(out, {"f": F32, "i": I32, "u": U32}[sem.out]))
            elif sem.kind in ("pred", "kill"):
                cond = _lanes(np.asarray(sem.fn(*args)), w.n)
                results[inst.unit] = self.finish(inst, np.where(cond, F32(1), F32(0)).astype(F32))
                if sem.kind == "kill":
                    kills |= cond & active
                else:
                    if inst.f.get("UPDATE_PRED"):
                        pred_update = cond
                    if inst.f.get("UPDATE_EXECUTE_MASK"):
                        exec_update = cond
            elif sem.kind == "mova":
                ar = np.broadcast_to(sem.fn(*args), (w.n,)).astype(I32)
                new_ar.append((inst.f["DST_CHAN"], ar))
                results[inst.unit] = ar.astype(F32).view(U32) if sem.out == "f" else ar.view(U32)
        # writes (all sources were read above)
        for inst in group.insts:
            if inst.unit not in results:
                continue
            bits = _bits(_lanes(results[inst.unit], w.n))
            if np.may_share_memory(bits, w.gpr):  # a source register passed on (MOV): the writes
                bits = bits.copy()                # below must not change it, nor PV later
            pv[inst.unit] = bits
            if inst.sem is not None and inst.sem.kind == "mova":
                continue
            if not inst.op3 and not inst.f["WRITE_MASK"]:
                continue
            lanes = active
            pred_sel = inst.f["PRED_SEL"]
            if pred_sel == T.PRED_SEL_ZERO:
                lanes = lanes & ~w.pred
            elif pred_sel == T.PRED_SEL_ONE:
                lanes = lanes & w.pred
            writes.append((inst, bits, lanes))
        for inst, bits, lanes in writes:
            self.write(inst, bits, lanes, every and lanes is active)
        for unit in range(4):
            if pv[unit] is not None:
                w.pv[unit] = pv[unit]  # type: ignore[assignment]
        if pv[4] is not None:
            w.ps = pv[4]
        for chan, ar in new_ar:
            w.ar[chan] = np.where(active, ar, w.ar[chan])
        if pred_update is not None:
            w.pred = np.where(active, pred_update, w.pred)
        if exec_update is not None:
            w.branch = np.where(active, exec_update, w.branch)
        if kills.any():
            w.alive = w.alive & ~kills

    def wide(self, name: str, slots: list[AluInst], literals: list[int], banks: list[tuple[int, int, int]],
             results: dict[int, np.ndarray]) -> tuple[np.ndarray | None, np.ndarray | None]:
        """One 64-bit instruction over its ``slots`` (its instructions in slot order, 2 or 4 of
        them): stores each slot's result bits in ``results``; returns the new predicate and the new
        execute mask that the first slot's UPDATE_PRED / UPDATE_EXECUTE_MASK ask of a PRED_SET*_64
        (None: unchanged).

        The layout (which slot holds which word of a source or result) is applied here alone.
        Sources: Mesa's r600 compiler, both its NIR backend (src/gallium/drivers/r600/sfn/sfn_instr_alu.cpp: emit_alu_op2_64bit,
        emit_alu_f2f64, emit_alu_f2f32, emit_alu_op1_64bit; src64(src, k, 1) is the high word, as
        emit_alu_neg / emit_alu_abs64 show by putting the sign modifier there) and its older TGSI
        backend (r600_shader.c: tgsi_op2_64_params with fp64_switch, cayman_mul_double_instr,
        tgsi_dfracexp, egcm_int_to_double), which agree with AMD's R700 document writing the double
        operands as ``src.YX`` and the result as ``dst.YX``:

        * a double source operand k is read as two 32-bit words: the HIGH word (sign, exponent) is
          source k of the instruction in the first slot of the group (x, or z), the LOW word is source
          k of the instruction in the last slot (y or w; w for the four-slot MUL_64 and FREXP_64, whose
          slots x, y and z carry the high words in Mesa's MUL_64). NEG/ABS of the first slot's
          instruction act on the high word, which holds the sign.
        * a 32-bit source operand (FLT32_TO_FLT64's float, LDEXP_64's exponent ``src0.X``) is source k
          of the first slot's instruction (Mesa puts 0 in the second slot of FLT32_TO_FLT64).
        * a double result is written LOW word to the first slot (x or z), HIGH word to the next (y or
          w): Mesa reads f2f64's result as (dest 0, dest 1) = (low, high). MUL_64 writes the result in
          x, y and again in z, w (cayman_mul_double_instr, which Mesa also uses on Evergreen, copies
          z and w for a .zw destination). FREXP_64 writes the exponent (int32) to y and the significand
          (a double in [0.5, 1)) to z (low) and w (high) (tgsi_dfracexp). A 32-bit result
          (FLT64_TO_FLT32, PRED_SET*_64's 1.0/0.0) is read from the first slot (tgsi_op2_64_params with
          ``singledest``). CLAMP of the first slot's instruction clamps a double result to [0, 1]
          (Mesa's fsat on doubles is ADD_64 + 0 with the clamp bit on the x slot).

        VM choices where no source says: slots whose result Mesa never reads (the second slot of a
        32-bit result, FREXP_64's x) get the 32-bit result again (FREXP_64's x: the exponent); OMOD on a
        64-bit instruction is refused (VMError): what it would scale is not documented.
        """
        sem = slots[0].sem
        assert sem is not None and sem.fn is not None
        first, last = slots[0], slots[-1]
        units = [inst.unit for inst in slots]
        if any(inst.f["OMOD"] for inst in slots):
            raise VMError(f"{name} with an output modifier (OMOD): its meaning on a 64-bit result is not documented")
        args = []
        for k, kind in enumerate(sem.ins):
            if kind == "d":  # high word from the first slot, low word from the last
                hi = self.source(first, k, literals, banks, "f").view(U32)
                args.append(join_double(hi, self.source(last, k, literals, banks, "u")))
            else:
                args.append(self.source(first, k, literals, banks, kind))
        value = sem.fn(*args)
        if sem.out == "pred":
            cond = np.broadcast_to(value, (self.w.n,))
            bits = np.where(cond, F32(1), F32(0)).astype(F32).view(U32)
            for u in units:
                results[u] = bits
            return (cond if first.f.get("UPDATE_PRED") else None,
                    cond if first.f.get("UPDATE_EXECUTE_MASK") else None)
        if sem.out == "f":  # a 32-bit result, in every slot
            bits = np.asarray(value, F32)
            if first.f["CLAMP"]:
                bits = saturate(bits)
            for u in units:
                results[u] = bits.view(U32)
            return None, None
        if sem.out == "frexp":  # (significand, exponent): x, y the exponent; z, w the significand
            value, exp = value
            exp_bits = np.asarray(exp, I32).view(U32)
            words = [exp_bits, exp_bits, *split_double(value)]
        else:  # a double: (low, high) in x, y and again in z, w
            value = np.asarray(value, np.float64)
            if first.f["CLAMP"]:
                value = saturate(value, np.float64)
            words = [*split_double(value)] * 2
        for u, word in zip(units, words):
            results[u] = word
        return None, None

    def finish(self, inst: AluInst, value: np.ndarray) -> np.ndarray:
        """OMOD and CLAMP on a float result; returns the result's bits."""
        sem = inst.sem
        if sem is not None and sem.out == "f" and value.dtype == F32:
            if not inst.op3:
                omod = inst.f["OMOD"]
                if omod:
                    value = (value * F32({1: 2.0, 2: 4.0, 3: 0.5}[omod])).astype(F32)
            if inst.f["CLAMP"]:
                value = saturate(value)
        return value.view(U32) if value.dtype != U32 else value

    def write(self, inst: AluInst, bits: np.ndarray, lanes: np.ndarray, every: bool = False) -> None:
        """Write an ALU result to its destination GPR channel for ``lanes`` (``every``: the caller
        knows they are all lanes)."""
        w = self.w
        f = inst.f
        dst, chan = f["DST_GPR"], f["DST_CHAN"]
        if f["DST_REL"]:
            idx = np.broadcast_to(np.clip(dst + self.index(f), 0, GPRS - 1), (w.n,))
            sel = np.flatnonzero(lanes)
            w.gpr[idx[sel], chan, sel] = bits[sel]
            return
        if every or lanes.all():
            w.gpr[dst, chan] = bits
        else:
            w.gpr[dst, chan] = np.where(lanes, bits, w.gpr[dst, chan])

    # -- fetch clauses ---------------------------------------------------------------------------
    def fetch_clause(self, addr: int, count: int, vertex: bool, lanes: np.ndarray) -> None:
        """Execute a TEX or VTX clause for ``lanes``."""
        for f in self.p.fetch_clause(addr, count, vertex):
            self.step()
            active = lanes & self.w.active()
            if "VTX_INST" in f:
                name = VTX_NAMES.get(f["VTX_INST"], "UNKNOWN")
                if name in ("FETCH", "SEMANTIC"):
                    self.vertex_fetch(f, active)
                    continue
                raise VMError(f"vertex fetch {name} cannot be executed")
            name = TEX_NAMES.get(f["TEX_INST"], "UNKNOWN")
            FX.texture_instruction(self, name, f, active)

    def gpr_rel(self, reg: int, rel: int) -> int:
        """GPR ``reg`` plus AL when ``rel`` (clamped to R0-R127)."""
        return min(max(reg + (self.w.al if rel else 0), 0), GPRS - 1)

    def vertex_fetch(self, f: Mapping[str, int], active: np.ndarray) -> None:
        """A vertex FETCH: the element index from the source GPR, the data to the destination."""
        w = self.w
        src = self.gpr_rel(f["SRC_GPR"], f["SRC_REL"])
        index = w.gpr[src, f["SRC_SEL_X"]].view(I32)  # SRC_SEL_X is 2 bits: always a component
        values, one = FX.vertex_data(self, f, np.broadcast_to(index, (w.n,)))
        if "SEMANTIC_ID" in f:  # the vertex shader's SQ_VTX_SEMANTIC maps it to a GPR (or nowhere)
            target = self.env.semantic_gprs.get(f["SEMANTIC_ID"])
            if target is None:
                return
            dst = target
        else:
            dst = self.gpr_rel(f["DST_GPR"], f["DST_REL"])
        self.write_fetch(dst, values, [f[f"DST_SEL_{c}"] for c in "XYZW"], active, one)

    def write_fetch(self, dst: int, values: Sequence[np.ndarray], sels: Sequence[int], active: np.ndarray,
                    one: int = FX.FLOAT_ONE_BITS) -> None:
        """Write fetched (x, y, z, w) bits to ``dst`` through DST_SEL (SEL_0 = 0, SEL_1 = the bits
        ``one`` (1.0f; a vertex fetch passes its format's, see ``fetch.one_bits``), SEL_MASK = kept)."""
        w = self.w
        for chan, sel in enumerate(sels):
            if sel == T.SEL_MASK:
                continue
            v = np.broadcast_to(_bits(np.asarray(_selected(values, sel, one, "destination"))), (w.n,))
            w.gpr[dst, chan] = np.where(active, v, w.gpr[dst, chan])

    # -- exports ---------------------------------------------------------------------------------
    def export(self, name: str, f: Mapping[str, int]) -> None:
        """An EXP/EXP_DONE (POS/PARAM/PIX with selects and bursts) or a recorded memory export."""
        w = self.w
        active = w.active()
        burst = f["BURST_COUNT"] + 1
        if name in ("EXP", "EXP_DONE"):
            kind = T.EXPORT_TYPES.get(f["TYPE"])
            if kind is None:
                raise VMError(f"export TYPE {f['TYPE']} is not PIX, POS or PARAM")
            sels = [f[f"SEL_{c}"] for c in "XYZW"]
            every = bool(active.all())
            for k in range(burst):
                reg = self.gpr_rel(f["RW_GPR"] + k, f["RW_REL"])
                base = f["ARRAY_BASE"] + k
                key = (kind, base - T.POS_BASE if kind == "POS" else base)
                out = w.exports.get(key)
                if out is None:
                    out = np.zeros((w.n, 4), U32)
                    w.exports[key] = out
                for chan, sel in enumerate(sels):
                    if sel == T.SEL_MASK:
                        continue
                    v = _selected(w.gpr[reg], sel, FX.FLOAT_ONE_BITS, "export")
                    if every:
                        out[:, chan] = v
                    else:
                        out[active, chan] = np.broadcast_to(v, (w.n,))[active]
            return
        if name == "UNKNOWN":
            raise VMError(f"export CF_INST {f['CF_INST']:#x} is not defined")
        data = np.zeros((w.n, burst, 4), U32)
        for k in range(burst):
            reg = self.gpr_rel(f["RW_GPR"] + k, f["RW_REL"])
            data[:, k, :] = w.gpr[reg].T
        index = None
        if f["TYPE"] in (T.MEM_EXPORT_WRITE_IND, T.MEM_EXPORT_READ_IND):
            index = w.gpr[f["INDEX_GPR"], 0].view(I32).copy()
        w.memory.append(MemWrite(name, f["TYPE"], f["ARRAY_BASE"], index, f["COMP_MASK"], data, active.copy()))


def run_program(program: Program, wave: Wave, env: Env) -> Wave:
    """Run ``program`` over ``wave`` with ``env``; returns the wave (changed in place)."""
    with np.errstate(all="ignore"):
        Machine(program, wave, env).run()
    return wave


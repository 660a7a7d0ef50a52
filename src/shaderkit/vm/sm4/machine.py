"""The SM4/SM5 interpreter: SIMD across invocations, structured control flow with per-lane masks.

The decoded program (``isa.sm4``) is turned once into a tree of blocks (if/else, loop, switch with
its case labels, subroutine bodies). Execution walks the tree with a mask of live lanes; ``break``,
``continue``, ``ret`` and ``discard`` switch lanes off until the construct they leave ends, so
lanes diverge and re-converge as on a GPU. Registers hold uint32 bit patterns of shape
``(lanes, 4)``; each opcode's meaning comes from :mod:`alu` or the resource operations here, keyed
by the opcode table's names.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.errors import ShaderkitError
from shaderkit.isa.sm4.model import Instruction, Operand
from shaderkit.isa.sm4.opcodes import ICB_CLASS, OPCODES, RESOURCE_DIMENSIONS, RETURN_TYPES, OperandType
from shaderkit.vm.sm4.alu import ALU, BITS, DOUBLE, FLOAT, INT, TRUE, UINT, flush, to_bits
from shaderkit.vm.sm4.fast import Fast, compile_tree
from shaderkit.vm.sm4.geometry import HANDLERS as GEOMETRY_HANDLERS
from shaderkit.vm.sm4.geometry import MAX_INSTANCES, MAX_OUTPUT_VERTICES, Streams
from shaderkit.vm.sm4.resources import Buffer, Sampler, Texture

OT = OperandType


class VmError(ShaderkitError, ValueError):
    """The shader cannot run as asked: unsupported feature, bad inputs, runaway loop (a
    ShaderkitError, so the CLI prints it as one line and exits 2)."""


#: function bodies (fb#) share the subroutine table with labels (l#) above this offset
FUNCTION_BODY_KEY = 1 << 40

# -- the block tree ------------------------------------------------------------------------------


@dataclass
class If:
    """A structured if: its instruction, then-branch and else-branch nodes."""
    ins: Instruction
    then: list[Any]
    otherwise: list[Any]


@dataclass
class Loop:
    """A structured loop: its body nodes."""
    body: list[Any]


@dataclass
class Switch:
    """A structured switch: its instruction, body nodes and case values."""
    ins: Instruction
    body: list[Any]
    values: list[int]


@dataclass
class Case:
    """A case label in a switch body (value None: ``default``)."""
    value: int | None  # None: default


def _name(ins: Instruction) -> str:
    info = OPCODES.get(ins.opcode)
    return info.name if info is not None else f"opcode_{ins.opcode}"


def build_tree(instructions: list[Instruction]) -> tuple[list[Any], dict[int, list[Any]]]:
    """Main body and subroutine bodies as nested blocks: ``label l#`` bodies by their number,
    ``label fb#`` (interface function bodies) by ``FUNCTION_BODY_KEY + number``."""
    pos = 0

    def block(stop: tuple[str, ...]) -> tuple[list[Any], str]:
        nonlocal pos
        nodes: list[Any] = []
        while pos < len(instructions):
            ins = instructions[pos]
            name = _name(ins)
            if name in stop:
                pos += 1
                return nodes, name
            pos += 1
            if name == "if":
                then, end = block(("else", "endif"))
                otherwise: list[Any] = []
                if end == "else":
                    otherwise, _ = block(("endif",))
                nodes.append(If(ins, then, otherwise))
            elif name == "loop":
                body, _ = block(("endloop",))
                nodes.append(Loop(body))
            elif name == "switch":
                body, _ = block(("endswitch",))
                values = [n.value for n in body if isinstance(n, Case) and n.value is not None]
                nodes.append(Switch(ins, body, values))
            elif name == "case":
                nodes.append(Case(int(ins.operands[0].values[0]) if ins.operands[0].values else 0))
            elif name == "default":
                nodes.append(Case(None))
            elif name == "label":
                pos -= 1
                return nodes, "label"
            elif name in ("endif", "endloop", "endswitch", "else"):
                raise VmError(f"unbalanced {name} at word {ins.offset}")
            else:
                nodes.append(ins)
        return nodes, ""

    main, end = block(())
    functions: dict[int, list[Any]] = {}
    while end == "label" and pos < len(instructions):
        label = instructions[pos]
        pos += 1
        body, end = block(())
        target = label.operands[0]
        key = target.indices[0].value + (FUNCTION_BODY_KEY if target.type == OT.FUNCTION_BODY else 0)
        functions[key] = body
    return main, functions


class CompiledBlock(list[Any]):
    """A block tree whose instructions went through :func:`fast.compile_tree`."""


def compile_program(main: list[Any], functions: dict[int, list[Any]]) -> tuple[CompiledBlock, dict[int, list[Any]]]:
    """The main body and subroutine bodies with the fast path's closures in place (done once per shader)."""
    return CompiledBlock(compile_tree(main)), {key: compile_tree(body) for key, body in functions.items()}


# -- declarations ----------------------------------------------------------------------------------


@dataclass
class Declarations:
    """What the declarations say: register counts, indexable temps, buffers, ICB, resources, group size."""
    temps: int = 0
    indexable: dict[int, tuple[int, int]] = field(default_factory=dict)  # reg -> (size, components)
    inputs: int = 0
    outputs: int = 0
    constant_buffers: dict[int, int] = field(default_factory=dict)  # slot -> vec4 count
    cb_ranges: dict[int, int] = field(default_factory=dict)  # SM5.1 range id -> first register
    icb: np.ndarray | None = None
    resources: dict[int, tuple[str, str]] = field(default_factory=dict)  # t# -> (dimension, return type)
    structured: dict[tuple[int, int], int] = field(default_factory=dict)  # (operand type, reg) -> stride
    raw: set[tuple[int, int]] = field(default_factory=set)
    uavs: dict[int, str] = field(default_factory=dict)  # u# -> kind
    uav_dimensions: dict[int, str] = field(default_factory=dict)  # typed u# -> dimension
    tgsm: dict[int, tuple[int, int]] = field(default_factory=dict)  # g# -> (stride or 0 for raw, words)
    samplers: set[int] = field(default_factory=set)
    comparison_samplers: set[int] = field(default_factory=set)
    function_tables: dict[int, list[int]] = field(default_factory=dict)  # ft# -> fb# per call site
    interfaces: dict[int, list[int]] = field(default_factory=dict)  # fp# -> the ft# it may use
    thread_group: tuple[int, int, int] = (1, 1, 1)
    #: v# -> [(system value name id, component mask)]: one register can hold several system
    #: values and ordinary inputs (``v3.x`` render target index, ``v3.z`` primitive ID)
    system_inputs: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # geometry shaders
    input_primitive: int = 0  # dcl_inputprimitive code (PRIMITIVES)
    output_topology: int = 0  # dcl_outputtopology code (PRIMITIVE_TOPOLOGIES)
    max_output_vertices: int = 0  # dcl_maxout
    instances: int = 1  # dcl_gsinstances
    # hull and domain shaders (see tessellation.py)
    input_control_points: int = 0  # dcl_input_control_point_count
    output_control_points: int = 0  # dcl_output_control_point_count
    tess_domain: int = 0  # dcl_tessellator_domain code (TESS_DOMAINS)
    tess_partitioning: int = 0  # dcl_tessellator_partitioning code (TESS_PARTITIONINGS)
    tess_output: int = 0  # dcl_tessellator_output_primitive code (TESS_OUTPUTS)
    max_tessfactor: float | None = None  # dcl_hs_max_tessfactor
    phase_instances: int = 1  # dcl_hs_fork_phase_instance_count / dcl_hs_join_phase_instance_count
    control_point_registers: int = 0  # registers of declared vicp / v[n][r] inputs
    output_control_point_registers: int = 0  # registers of declared vocp inputs
    patch_constant_registers: int = 0  # registers of declared vpc inputs


#: D3D11 limits checked before anything is allocated from a declaration
MAX_TEMPS, MAX_INDEXABLE, MAX_IO, MAX_CB_ROWS, MAX_TGSM_WORDS, MAX_GROUP_THREADS = 4096, 4096, 64, 4096, 8192, 1024
#: control points per patch (D3D11_IA_PATCH_MAX_CONTROL_POINT_COUNT)
MAX_CONTROL_POINTS = 32


def _limit(what: str, value: int, most: int) -> int:
    if not 0 <= value <= most:
        raise VmError(f"{what} {value} is outside D3D11's limit of {most}")
    return value


def declarations(instructions: list[Instruction]) -> Declarations:
    """The declarations of ``instructions``; VmError when a count exceeds the D3D11 limits."""
    d = _declarations(instructions)
    _limit("dcl_temps", d.temps, MAX_TEMPS)
    _limit("input registers", d.inputs, MAX_IO)
    _limit("output registers", d.outputs, MAX_IO)
    for reg, (size, _) in d.indexable.items():
        _limit(f"x{reg} size", size, MAX_INDEXABLE)
    if sum(size for size, _ in d.indexable.values()) > MAX_INDEXABLE:
        raise VmError(f"indexable temps total more than {MAX_INDEXABLE} registers")
    for slot, rows in d.constant_buffers.items():
        _limit(f"cb{slot} size", rows, MAX_CB_ROWS)
    for reg, (_, words) in d.tgsm.items():
        _limit(f"g{reg} words", words, MAX_TGSM_WORDS)
    x, y, z = d.thread_group
    _limit("threads per group", x * y * z, MAX_GROUP_THREADS)
    _limit("dcl_maxout", d.max_output_vertices, MAX_OUTPUT_VERTICES)
    _limit("dcl_gsinstances", d.instances, MAX_INSTANCES)
    _limit("dcl_input_control_point_count", d.input_control_points, MAX_CONTROL_POINTS)
    _limit("dcl_output_control_point_count", d.output_control_points, MAX_CONTROL_POINTS)
    for what in ("control_point_registers", "output_control_point_registers", "patch_constant_registers"):
        _limit(what.replace("_", " "), getattr(d, what), MAX_IO)
    return d


def _declarations(instructions: list[Instruction]) -> Declarations:
    d = Declarations()
    for ins in instructions:
        name = _name(ins)
        if not (name.startswith("dcl_") or name == "customdata"):
            continue
        op = ins.operands[0] if ins.operands else None
        reg = op.indices[0].value if op is not None and op.indices else 0
        if op is not None and op.type in _ARRAYED and len(op.indices) == 2:  # v[vertices][reg], vicp[n][reg]
            reg = op.indices[1].value
        if name.startswith("dcl_input") and op is not None and op.type in _PATCH_INPUTS:
            field_name = _PATCH_INPUTS[op.type] if op.type != OT.INPUT or len(op.indices) == 2 else ""
            if field_name:
                setattr(d, field_name, max(getattr(d, field_name), reg + 1))
        if name == "dcl_temps":
            d.temps = ins.raw[0]
        elif name == "dcl_indexableTemp":
            d.indexable[ins.raw[0]] = (ins.raw[1], ins.raw[2])
        elif name.startswith("dcl_input") and op is not None and op.type == OT.INPUT:
            d.inputs = max(d.inputs, reg + 1)
            if name in ("dcl_input_sgv", "dcl_input_siv", "dcl_input_ps_sgv", "dcl_input_ps_siv") and ins.raw:
                d.system_inputs.setdefault(reg, []).append((ins.raw[0], op.mask or 0xF))
        elif name.startswith("dcl_output") and op is not None and op.type == OT.OUTPUT:
            d.outputs = max(d.outputs, reg + 1)
        elif name == "dcl_constantbuffer" and op is not None:
            if len(op.indices) >= 3:  # SM5.1: id, lower, upper; the size follows
                d.cb_ranges[reg] = op.indices[1].value
                d.constant_buffers[op.indices[1].value] = ins.raw[0] if ins.raw else 4096
            else:
                d.constant_buffers[reg] = op.indices[1].value if len(op.indices) > 1 else 4096
        elif name == "customdata" and ins.controls == ICB_CLASS:
            words = np.array(ins.raw, dtype=np.uint32)
            d.icb = words[: len(words) // 4 * 4].reshape(-1, 4)
        elif name == "dcl_resource" and op is not None:
            dim = RESOURCE_DIMENSIONS[(ins.controls & 0x1F)] if (ins.controls & 0x1F) < len(RESOURCE_DIMENSIONS) else "unknown"
            ret = RETURN_TYPES[ins.raw[0] & 0xF] if ins.raw else "float"
            d.resources[_slot(op)] = (dim, ret)
        elif name == "dcl_resource_structured" and op is not None:
            d.structured[(OT.RESOURCE, _slot(op))] = ins.raw[0]
        elif name == "dcl_resource_raw" and op is not None:
            d.raw.add((OT.RESOURCE, _slot(op)))
        elif name == "dcl_uav_structured" and op is not None:
            d.structured[(OT.UNORDERED_ACCESS_VIEW, _slot(op))] = ins.raw[0]
            d.uavs[_slot(op)] = "structured"
        elif name == "dcl_uav_raw" and op is not None:
            d.raw.add((OT.UNORDERED_ACCESS_VIEW, _slot(op)))
            d.uavs[_slot(op)] = "raw"
        elif name == "dcl_uav_typed" and op is not None:
            d.uavs[_slot(op)] = "typed"
            code = ins.controls & 0x1F
            d.uav_dimensions[_slot(op)] = RESOURCE_DIMENSIONS[code] if code < len(RESOURCE_DIMENSIONS) else "unknown"
        elif name == "dcl_tgsm_structured" and op is not None:
            d.tgsm[reg] = (ins.raw[0], ins.raw[0] * ins.raw[1] // 4)
            d.structured[(OT.THREAD_GROUP_SHARED_MEMORY, reg)] = ins.raw[0]
        elif name == "dcl_tgsm_raw" and op is not None:
            d.tgsm[reg] = (0, ins.raw[0] // 4)
            d.raw.add((OT.THREAD_GROUP_SHARED_MEMORY, reg))
        elif name == "dcl_sampler" and op is not None:
            d.samplers.add(_slot(op))
            if ins.controls & 0xF == 1:  # mode_comparison
                d.comparison_samplers.add(_slot(op))
        elif name == "dcl_function_table" and len(ins.raw) >= 2:
            d.function_tables[ins.raw[0]] = list(ins.raw[2 : 2 + ins.raw[1]])
        elif name == "dcl_interface" and len(ins.raw) >= 3:
            d.interfaces[ins.raw[0]] = list(ins.raw[3 : 3 + (ins.raw[2] & 0xFFFF)])
        elif name == "dcl_thread_group":
            d.thread_group = (ins.raw[0], ins.raw[1], ins.raw[2])
        elif name == "dcl_inputprimitive":
            d.input_primitive = ins.controls & 0x3F
        elif name == "dcl_outputtopology":
            d.output_topology = ins.controls & 0x7F
        elif name == "dcl_maxout" and ins.raw:
            d.max_output_vertices = ins.raw[0]
        elif name == "dcl_gsinstances" and ins.raw:
            d.instances = ins.raw[0]
        elif name == "dcl_input_control_point_count":
            d.input_control_points = ins.controls & 0x3F
        elif name == "dcl_output_control_point_count":
            d.output_control_points = ins.controls & 0x3F
        elif name == "dcl_tessellator_domain":
            d.tess_domain = ins.controls & 0x3
        elif name == "dcl_tessellator_partitioning":
            d.tess_partitioning = ins.controls & 0x7
        elif name == "dcl_tessellator_output_primitive":
            d.tess_output = ins.controls & 0x7
        elif name == "dcl_hs_max_tessfactor" and ins.raw:
            d.max_tessfactor = float(np.uint32(ins.raw[0]).view(np.float32))
        elif name in ("dcl_hs_fork_phase_instance_count", "dcl_hs_join_phase_instance_count") and ins.raw:
            d.phase_instances = ins.raw[0]
    return d


#: operand types indexed [element][register]
_ARRAYED = frozenset((OT.INPUT, OT.INPUT_CONTROL_POINT, OT.OUTPUT_CONTROL_POINT))
#: hull/domain inputs whose declarations size a register file: operand type -> Declarations field
_PATCH_INPUTS: dict[int, str] = {OT.INPUT: "control_point_registers", OT.INPUT_CONTROL_POINT: "control_point_registers",
                 OT.OUTPUT_CONTROL_POINT: "output_control_point_registers",
                 OT.INPUT_PATCH_CONSTANT: "patch_constant_registers"}


def _slot(op: Operand) -> int:
    """The register of a t/s/u/g operand. SM5.1 declarations carry (range id, lower, upper) and
    instructions (range id, register): the register is the second index in both."""
    return op.indices[1].value if len(op.indices) >= 2 else op.indices[0].value


register_of = _slot


# -- the machine -------------------------------------------------------------------------------------


@dataclass
class _Frame:
    kind: str  # "loop", "switch", "call"
    brk: np.ndarray
    cont: np.ndarray


_SWIZ_IDENTITY = (0, 1, 2, 3)
#: operand types whose values are fixed for a whole run (inputs are never written; a hull-shader
#: phase runs on a machine of its own, so the control points and patch constants it reads are fixed)
_CONSTANT_DURING_RUN = frozenset((OT.INPUT, OT.CONSTANT_BUFFER, OT.IMMEDIATE32, OT.IMMEDIATE_CONSTANT_BUFFER,
                                  OT.INPUT_CONTROL_POINT, OT.OUTPUT_CONTROL_POINT, OT.INPUT_PATCH_CONSTANT))


class Machine:
    """One run: the register files and resources for ``lanes`` invocations."""

    def __init__(self, shader: Any, lanes: int, max_steps: int = 1_000_000,
                 io: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
                 decl: Declarations | None = None) -> None:
        self.shader = shader
        #: the shader's declarations, or one hull-shader phase's (``decl``)
        self.decl: Declarations = shader.decl if decl is None else decl
        self.n = lanes
        d = self.decl
        # r#, v#, o# are stored component-major (registers, 4, lanes): one component is a contiguous
        # row for the fast path (fast.py); r, v, o are (registers, lanes, 4) views of the same data.
        # ``io``: input and output storage given by the caller (a chunk of a larger run)
        self.rc = np.zeros((max(d.temps, 1), 4, lanes), np.uint32)
        inputs, outputs = io
        self.vc = np.zeros((max(d.inputs, 1), 4, lanes), np.uint32) if inputs is None else inputs
        self._set_outputs(np.zeros((max(d.outputs, 1), 4, lanes), np.uint32) if outputs is None else outputs)
        self.r, self.v = self.rc.transpose(0, 2, 1), self.vc.transpose(0, 2, 1)
        self.rc_f, self.rc_i = self.rc.view(np.float32), self.rc.view(np.int32)
        self.vc_f, self.vc_i = self.vc.view(np.float32), self.vc.view(np.int32)
        self.x = {reg: np.zeros((size, lanes, 4), np.uint32) for reg, (size, _) in d.indexable.items()}
        #: (0 temps / 1 outputs, register, component) that may hold denormals (see fast.py)
        self.dirty: set[tuple[int, int, int]] = set()
        #: flushed input rows of this run, by (register, component, modifier)
        self.row_cache: dict[tuple[Any, ...], np.ndarray] = {}
        #: constant-buffer and immediate values as the fast path reads them (constant for a run)
        self.uniform_cache: dict[tuple[Any, ...], np.ndarray] = {}
        self.special: dict[int, np.ndarray] = {}  # operand type -> (lanes, 4) system values / depth etc.
        self.cb: dict[int, np.ndarray] = {slot: np.zeros((size, 4), np.uint32) for slot, size in d.constant_buffers.items()}
        self.textures: dict[int, Texture] = {}
        self.buffers: dict[tuple[int, int], Buffer] = {}
        self.uav_textures: dict[int, Texture] = {}
        self.samplers: dict[int, Sampler] = {}
        self.groups = np.zeros(lanes, np.int64)  # thread group of each lane (compute)
        self.group_count = 1
        self.tgsm: dict[int, np.ndarray] = {}
        self.disabled = np.zeros(lanes, bool)
        self.any_disabled = False  # disabled.any(), kept up to date by _disabled_changed
        self.all_lanes = np.ones(lanes, bool)
        self.discarded = np.zeros(lanes, bool)
        self.frames: list[_Frame] = []
        self.steps = 0
        self.max_steps = max_steps
        self.quads = lanes % 4 == 0
        #: geometry shaders: inputs (vertices, registers, lanes, 4) and the emitted vertices
        self.gs_inputs: np.ndarray | None = None
        self.streams: Streams | None = None
        #: hull and domain shaders: vicp (control points, registers, lanes, 4), vocp (the same for
        #: the output control points) and vpc (registers, lanes, 4); see patch_of_lane
        self.control_points: np.ndarray | None = None
        self.output_control_points: np.ndarray | None = None
        self.patch_constants: np.ndarray | None = None
        #: when set, the lane's column in gs_inputs / control_points / output_control_points /
        #: patch_constants (which then hold one column per patch rather than per lane)
        self.patch_of_lane: np.ndarray | None = None
        self._flushed: dict[tuple[Any, ...], np.ndarray] = {}

    def _set_outputs(self, outputs: np.ndarray) -> None:
        self.oc = outputs
        self.o = outputs.transpose(0, 2, 1)
        self.oc_f, self.oc_i = outputs.view(np.float32), outputs.view(np.int32)

    def restart(self, outputs: np.ndarray) -> None:
        """Start over for the next chunk of a run (same lane count): temps zeroed, nothing disabled
        or discarded, outputs go to ``outputs``; constant buffers and resources stay."""
        self._set_outputs(outputs)
        self.rc.fill(0)
        for registers in self.x.values():
            registers.fill(0)
        self.vc.fill(0)
        self.dirty.clear()
        self.row_cache.clear()
        self._flushed.clear()
        self.special.clear()
        self.disabled.fill(False)
        self.any_disabled = False
        self.discarded.fill(False)
        self.frames = []
        self.steps = 0

    @cached_property
    def lane_index(self) -> np.ndarray:
        return np.arange(self.n)

    # -- operands -------------------------------------------------------------------------------

    def index_value(self, op: Operand, which: int) -> np.ndarray | int:
        """The value of index ``which`` of ``op``: an int, or per-lane values when relative."""
        idx = op.indices[which]
        if idx.rel is None:
            return int(idx.value)
        rel = self.read(idx.rel, INT)[:, 0].view(np.int32).astype(np.int64)
        return rel + int(idx.value) if idx.rep in (3, 4) else rel

    def _gather(self, regs: np.ndarray, index: np.ndarray | int) -> np.ndarray:
        if isinstance(index, int):
            if 0 <= index < len(regs):
                return regs[index]
            return np.zeros((self.n, 4), np.uint32)
        ok = (index >= 0) & (index < len(regs))
        safe = np.where(ok, index, 0)
        out = regs[safe, self.lane_index]
        return np.where(ok[:, None], out, np.uint32(0))

    def _vertex_input(self, op: Operand, table: np.ndarray) -> np.ndarray:
        """v[vertex][register] of a geometry shader (vicp/vocp[point][register] of a hull or domain
        shader); either index may be relative (per lane)."""
        vertex, register = self.index_value(op, 0), self.index_value(op, 1)
        columns = self.lane_index if self.patch_of_lane is None else self.patch_of_lane
        if isinstance(vertex, int) and isinstance(register, int):
            if 0 <= vertex < table.shape[0] and 0 <= register < table.shape[1]:
                return table[vertex, register] if self.patch_of_lane is None else table[vertex, register][columns]
            return np.zeros((self.n, 4), np.uint32)
        vertices = np.broadcast_to(np.asarray(vertex, np.int64), (self.n,))
        registers = np.broadcast_to(np.asarray(register, np.int64), (self.n,))
        ok = (vertices >= 0) & (vertices < table.shape[0]) & (registers >= 0) & (registers < table.shape[1])
        out = table[np.where(ok, vertices, 0), np.where(ok, registers, 0), columns]
        return np.where(ok[:, None], out, np.uint32(0))

    def _patch_constant(self, op: Operand, table: np.ndarray) -> np.ndarray:
        """vpc# (registers, patches, 4): the patch constants of each lane's patch."""
        register = self.index_value(op, 0)
        columns = self.lane_index if self.patch_of_lane is None else self.patch_of_lane
        if isinstance(register, int):
            if 0 <= register < len(table):
                return table[register][columns]
            return np.zeros((self.n, 4), np.uint32)
        ok = (register >= 0) & (register < len(table))
        out = table[np.where(ok, register, 0), columns]
        return np.where(ok[:, None], out, np.uint32(0))

    def _uniform(self, table: np.ndarray, index: np.ndarray | int) -> np.ndarray:
        if isinstance(index, int):
            row = table[index] if 0 <= index < len(table) else np.zeros(4, np.uint32)
            return np.broadcast_to(row, (self.n, 4))
        ok = (index >= 0) & (index < len(table))
        out = table[np.where(ok, index, 0)]
        return np.where(ok[:, None], out, np.uint32(0))

    def fetch(self, op: Operand) -> np.ndarray:
        """The operand's 4 components (lanes, 4) before swizzle and modifiers."""
        t = op.type
        if t == OT.TEMP:
            return self._gather(self.r, self.index_value(op, 0))
        if t == OT.IMMEDIATE32:
            vals = np.array(op.values, np.uint32)
            if len(vals) == 1:
                vals = np.repeat(vals, 4)
            return np.broadcast_to(vals, (self.n, 4))
        if t == OT.IMMEDIATE64:
            vals = np.array(op.values, np.uint64)
            words = np.zeros(4, np.uint32)
            for k, v in enumerate(vals[:2]):
                words[2 * k] = int(v) & 0xFFFFFFFF
                words[2 * k + 1] = int(v) >> 32
            if len(vals) == 1:
                words[2:] = words[:2]
            return np.broadcast_to(words, (self.n, 4))
        if t == OT.INPUT:
            if len(op.indices) == 2 and self.gs_inputs is not None:
                return self._vertex_input(op, self.gs_inputs)
            return self._gather(self.v, self.index_value(op, 0))
        if t == OT.OUTPUT:
            return self._gather(self.o, self.index_value(op, 0))
        if t == OT.INPUT_CONTROL_POINT and self.control_points is not None:
            return self._vertex_input(op, self.control_points)
        if t == OT.OUTPUT_CONTROL_POINT and self.output_control_points is not None:
            return self._vertex_input(op, self.output_control_points)
        if t == OT.INPUT_PATCH_CONSTANT and self.patch_constants is not None:
            return self._patch_constant(op, self.patch_constants)
        if t == OT.CONSTANT_BUFFER:
            slot = self.index_value(op, 0)
            row = self.index_value(op, 2 if len(op.indices) >= 3 else 1)
            if not isinstance(slot, int):  # cb[r0.x + n][row]: per lane (class linkage does this)
                out = np.zeros((self.n, 4), np.uint32)
                for number in np.unique(slot):
                    lanes = slot == number
                    table = self.cb.get(int(number))
                    if table is not None:
                        out[lanes] = self._uniform(table, row)[lanes]
                return out
            if len(op.indices) >= 3:
                slot = self.decl.cb_ranges.get(slot, slot)
            table = self.cb.get(slot)
            if table is None:
                return np.zeros((self.n, 4), np.uint32)
            return self._uniform(table, row)
        if t == OT.IMMEDIATE_CONSTANT_BUFFER:
            if self.decl.icb is None:
                raise VmError("icb read without an immediate constant buffer")
            return self._uniform(self.decl.icb, self.index_value(op, 0))
        if t == OT.INDEXABLE_TEMP:
            reg = self.index_value(op, 0)
            assert isinstance(reg, int)
            return self._gather(self.x[reg], self.index_value(op, 1))
        if t in self.special:
            return self.special[t]
        if t in (OT.INPUT_PRIMITIVEID, OT.INPUT_GS_INSTANCE_ID, OT.INPUT_COVERAGE_MASK, OT.INNER_COVERAGE,
                 OT.CYCLE_COUNTER, OT.THIS_POINTER):
            # this[i]: a class instance's data offsets/resource slots, all 0 here (the first instance)
            return np.zeros((self.n, 4), np.uint32)
        raise VmError(f"reading operand type {OT(t).name if t in OT._value2member_map_ else t} is not supported")

    def select(self, op: Operand, value: np.ndarray) -> np.ndarray:
        """``value`` with the operand's swizzle or component selection applied."""
        if op.num_components == 1 and op.type in (OT.IMMEDIATE32,):
            return value
        mode = op.selection_mode
        if mode == 1:
            swz = op.swizzle
            return value if swz == _SWIZ_IDENTITY else value[:, list(swz)]
        if mode == 2:
            c = op.component_bits & 3
            return np.broadcast_to(value[:, c : c + 1], (len(value), 4))
        return value

    def read(self, op: Operand, kind: str) -> np.ndarray:
        """Source value as uint32 bits (lanes, 4) after swizzle and modifiers."""
        value = self.select(op, self.fetch(op))
        mod = op.modifier if op.extended else 0
        if mod:
            if kind in (INT, UINT):
                s = value.view(np.int32)
                if mod & 2:
                    s = np.abs(s)
                if mod & 1:
                    s = -s
                value = s.view(np.uint32)
            elif kind == DOUBLE:
                words = value.copy()
                if mod & 2:
                    words[:, 1::2] &= np.uint32(0x7FFFFFFF)
                if mod & 1:
                    words[:, 1::2] ^= np.uint32(0x80000000)
                value = words
            else:
                value = value.copy()
                if mod & 2:
                    value &= np.uint32(0x7FFFFFFF)
                if mod & 1:
                    value ^= np.uint32(0x80000000)
        return value if value.dtype == np.uint32 else value.astype(np.uint32)

    def write(self, op: Operand, bits: np.ndarray, active: np.ndarray, saturate: bool = False,
              kind: str = BITS) -> None:
        """Store ``bits`` (lanes, 4) into the masked components of a destination operand."""
        t = op.type
        if t == OT.NULL:
            return
        if saturate:  # _sat is a float clamp, also on mov/movc (int ops never carry it)
            f = bits.view(np.float32)
            with np.errstate(invalid="ignore"):
                f = np.where(np.isnan(f), np.float32(0), np.clip(f, 0, 1)).astype(np.float32)
            bits = f.view(np.uint32)
        mask = op.mask if op.selection_mode == 0 else 0xF
        if op.num_components == 1:
            mask = 1
        if t == OT.TEMP or t == OT.OUTPUT:
            target, index = (self.r, self.index_value(op, 0)) if t == OT.TEMP else (self.o, self.index_value(op, 0))
            file = 0 if t == OT.TEMP else 1
            written = range(len(target)) if not isinstance(index, int) else (index,)
            self.dirty.update((file, number, c) for number in written for c in range(4) if mask >> c & 1)
        elif t == OT.INDEXABLE_TEMP:
            reg = self.index_value(op, 0)
            assert isinstance(reg, int)
            target, index = self.x[reg], self.index_value(op, 1)
        else:
            current = self.special.setdefault(t, np.zeros((self.n, 4), np.uint32))
            for c in range(4):
                if mask >> c & 1:
                    current[:, c] = np.where(active, bits[:, c], current[:, c])
            return
        if isinstance(index, int):
            if not 0 <= index < len(target):
                return
            row = target[index]
            everyone = bool(active.all())
            if everyone and mask == 0xF:
                row[...] = bits
                return
            for c in range(4):
                if mask >> c & 1:
                    if everyone:
                        row[:, c] = bits[:, c]
                    else:
                        np.copyto(row[:, c], bits[:, c], where=active)
            return
        lanes = np.nonzero(active & (index >= 0) & (index < len(target)))[0]
        for c in range(4):
            if mask >> c & 1:
                target[index[lanes], lanes, c] = bits[lanes, c]

    # -- execution -------------------------------------------------------------------------------

    def run(self, main: list[Any], functions: dict[int, list[Any]]) -> None:
        """Run a block tree (compiled by :func:`fast.compile_tree` unless it already is)."""
        if not isinstance(main, CompiledBlock):
            main, functions = compile_program(main, functions)
        self.functions = functions
        with np.errstate(all="ignore"):
            self.block(main, self.all_lanes)

    def _disabled_changed(self) -> None:
        self.any_disabled = bool(self.disabled.any())

    def _count(self, amount: int) -> None:
        self.steps += amount
        if self.steps > self.max_steps:
            raise VmError(f"step limit of {self.max_steps} instructions reached (a runaway loop?)")

    def _cond(self, ins: Instruction, active: np.ndarray) -> np.ndarray:
        value = self.read(ins.operands[0], UINT)[:, 0]
        hit = value != 0 if ins.test_nonzero else value == 0
        return active & hit

    def _innermost(self, *kinds: str) -> _Frame:
        for frame in reversed(self.frames):
            if frame.kind in kinds:
                return frame
        raise VmError(f"{'/'.join(kinds)} control flow outside any {kinds[0]}")

    def block(self, nodes: list[Any], mask: np.ndarray) -> None:
        """Run ``nodes`` for the lanes in ``mask`` (stops when none is active)."""
        full = mask is self.all_lanes
        for node in nodes:
            if full and not self.any_disabled:
                active, everyone = mask, True
            else:
                active = mask & ~self.disabled if self.any_disabled else mask
                if not active.any():
                    return
                everyone = bool(active.all())
            if type(node) is Fast:
                self._count(1)
                node.run(self, active, everyone)
            elif isinstance(node, Instruction):
                self._count(1)
                self.execute(node, active)
            elif isinstance(node, If):
                self._count(1)
                taken = self._cond(node.ins, active)
                if taken.any():
                    self.block(node.then, taken)
                rest = active & ~taken
                if node.otherwise and rest.any():
                    self.block(node.otherwise, rest)
            elif isinstance(node, Loop):
                frame = _Frame("loop", np.zeros(self.n, bool), np.zeros(self.n, bool))
                self.frames.append(frame)
                live = active
                while live.any():
                    self._count(1)
                    self.block(node.body, live)
                    self.disabled &= ~frame.cont
                    self._disabled_changed()
                    frame.cont[:] = False
                    live = live & ~self.disabled
                self.frames.pop()
                self.disabled &= ~frame.brk
                self._disabled_changed()
            elif isinstance(node, Switch):
                self._switch(node, active)
            else:  # a case label outside its switch
                raise VmError("case label outside a switch")

    def _switch(self, node: Switch, active: np.ndarray) -> None:
        selector = self.read(node.ins.operands[0], INT)[:, 0].view(np.int32)
        matched = np.zeros(self.n, bool)
        for value in node.values:
            matched |= selector == np.int32(np.uint32(value & 0xFFFFFFFF).view(np.int32))
        frame = _Frame("switch", np.zeros(self.n, bool), np.zeros(self.n, bool))
        self.frames.append(frame)
        running = np.zeros(self.n, bool)
        for item in node.body:
            if isinstance(item, Case):
                if item.value is None:
                    running |= active & ~matched
                else:
                    running |= active & (selector == np.int32(np.uint32(item.value & 0xFFFFFFFF).view(np.int32)))
                continue
            self.block([item], running)
        self.frames.pop()
        self.disabled &= ~frame.brk
        self._disabled_changed()

    def _leave(self, lanes: np.ndarray, frame: _Frame | None, cont: bool = False) -> None:
        if not lanes.any():
            return
        self.disabled |= lanes
        self._disabled_changed()
        if frame is not None:
            if cont:
                frame.cont |= lanes
            else:
                frame.brk |= lanes

    def execute(self, ins: Instruction, active: np.ndarray) -> None:
        """Run one instruction for the ``active`` lanes."""
        name = _name(ins)
        alu = ALU.get(name)
        if alu is not None:
            self._alu(ins, alu, active)
            return
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, ins, active)
            return
        if name.startswith("dcl_") or name in ("nop", "customdata", "sync", "hs_decls", "debug_break"):
            return
        raise VmError(f"{name} is not supported by the SM4/SM5 VM")

    def _float_source(self, op: Operand) -> np.ndarray:
        """A float source with denormals flushed. Inputs and constants do not change during a run,
        so their flushed values are kept (an input read by several dp4 is flushed once)."""
        if op.type not in _CONSTANT_DURING_RUN or any(i.rel is not None for i in op.indices):
            return flush(self.read(op, FLOAT).view(np.float32))
        key = (op.type, tuple(i.value for i in op.indices), op.selection_mode, op.component_bits,
               op.modifier if op.extended else 0, tuple(op.values))
        found = self._flushed.get(key)
        if found is None:
            found = self._flushed[key] = flush(self.read(op, FLOAT).view(np.float32))
        return found

    def _alu(self, ins: Instruction, op: Any, active: np.ndarray) -> None:
        dests = ins.operands[: op.dests]
        sources = ins.operands[op.dests : op.dests + op.sources]
        if op.kind == FLOAT and op.flush:
            args = [self._float_source(o) for o in sources]
        else:  # dmovc: its condition is 32-bit (uint, no modifiers), the values are doubles
            srcs = [self.read(o, UINT if op.condition and i == 0 else op.kind) for i, o in enumerate(sources)]
        if op.kind == FLOAT:
            if not op.flush:
                args = [s.view(np.float32) for s in srcs]
        elif op.kind == INT:
            args = [s.view(np.int32) for s in srcs]
        elif op.kind == DOUBLE:
            args = [s[:, :2] if op.condition and i == 0 else _doubles(s) for i, s in enumerate(srcs)]
        else:
            args = srcs
        result = op.fn(*args)
        results = result if isinstance(result, tuple) else (result,)
        kind = op.result or op.kind
        saturate = ins.saturate
        for dest, value in zip(dests, results):
            if kind == DOUBLE and saturate:  # _sat clamps the double (NaN -> 0), not its two words
                value = np.where(np.isnan(value), 0.0, np.clip(value, 0.0, 1.0))
                saturate = False
            if op.kind == DOUBLE or kind == DOUBLE:
                bits = _from_doubles(value, dest, kind, op.kind)
            else:
                if kind == FLOAT and op.flush:
                    value = np.asarray(value, np.float32)
                    value = flush(value, owned=value.base is None)
                bits = to_bits(np.asarray(value))
            self.write(dest, bits, active, saturate, kind)


def _doubles(bits: np.ndarray) -> np.ndarray:
    """(lanes, 4) uint32 -> (lanes, 2) float64: (x, y) and (z, w) as (low, high) words."""
    return np.ascontiguousarray(bits).view(np.float64)


def _from_doubles(value: np.ndarray, dest: Operand, kind: str, source_kind: str) -> np.ndarray:
    n = value.shape[0]
    if kind == DOUBLE:
        if source_kind != DOUBLE:  # ftod/itod/utod: source components 0, 1 -> double slots
            value = value[:, :2]
        return np.ascontiguousarray(value.astype(np.float64)).view(np.uint32).reshape(n, 4)
    # double -> 32-bit results (dtof, dtoi, dtou, comparisons): values fill the masked components in order
    if kind == BITS and value.dtype == np.uint32:
        words = value
    elif kind == FLOAT:
        words = np.asarray(value, np.float32).view(np.uint32)
    else:
        words = np.asarray(value).astype(np.int64).astype(np.uint32)
    out = np.zeros((n, 4), np.uint32)
    mask = dest.mask if dest.selection_mode == 0 else 0xF
    slots = [c for c in range(4) if mask >> c & 1]
    for k, c in enumerate(slots[:2]):
        out[:, c] = words[:, k]
    return out


# -- non-ALU instructions ----------------------------------------------------------------------


def _break(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    lanes = m._cond(ins, active) if _name(ins) == "breakc" else active
    m._leave(lanes, m._innermost("loop", "switch"))


def _continue(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    lanes = m._cond(ins, active) if _name(ins) == "continuec" else active
    m._leave(lanes, m._innermost("loop"), cont=True)


def _ret(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    lanes = m._cond(ins, active) if _name(ins) == "retc" else active
    call = next((f for f in reversed(m.frames) if f.kind == "call"), None)
    m._leave(lanes, call)


def _discard(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    lanes = m._cond(ins, active)
    m.discarded |= lanes
    m.disabled |= lanes
    m._disabled_changed()


def _call(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    lanes = active
    label = ins.operands[0]
    if _name(ins) == "callc":
        lanes = m._cond(ins, active)
        label = ins.operands[1]
    if lanes.any():
        _enter(m, label.indices[0].value, lanes, f"l{label.indices[0].value}")


def _enter(m: Machine, key: int, lanes: np.ndarray, name: str) -> None:
    body = m.functions.get(key)
    if body is None:
        raise VmError(f"call to missing label {name}")
    if len(m.frames) > 64:
        raise VmError("subroutine nesting deeper than 64")
    frame = _Frame("call", np.zeros(m.n, bool), np.zeros(m.n, bool))
    # loops and switches of the caller are not visible to break/continue inside the callee
    saved, m.frames = m.frames, [*m.frames, frame]
    m.block(body, lanes)
    m.frames = saved
    m.disabled &= ~frame.brk
    m._disabled_changed()


def _fcall(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    """An interface call: the interface's bound function table (``Shader.bind_interface``, by default
    the first table it declares) names the body for this call site."""
    target = ins.operands[0]
    interface = target.indices[0].value
    call_site = ins.raw[0] if ins.raw else 0
    tables = m.decl.interfaces.get(interface)
    if not tables:
        raise VmError(f"fcall through undeclared interface fp{interface}")
    choice = getattr(m.shader, "interface_tables", {}).get(interface, tables[0])
    bodies = m.decl.function_tables.get(choice)
    if bodies is None or not 0 <= call_site < len(bodies):
        raise VmError(f"function table ft{choice} has no call site {call_site}")
    _enter(m, FUNCTION_BODY_KEY + bodies[call_site], active, f"fb{bodies[call_site]}")


def _deriv(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    name = _name(ins)
    value = m.read(ins.operands[1], FLOAT).view(np.float32)
    if not m.quads:
        raise VmError("derivatives need pixel lanes in 2x2 quads (a multiple of 4 lanes)")
    q = value.reshape(-1, 4, 4)  # quads, lane in quad (TL, TR, BL, BR), component
    out = np.empty_like(q)
    fine = name.endswith("_fine")
    with np.errstate(all="ignore"):
        if "rtx" in name:
            if fine:
                top, bottom = q[:, 1] - q[:, 0], q[:, 3] - q[:, 2]
                out[:, 0] = out[:, 1] = top
                out[:, 2] = out[:, 3] = bottom
            else:
                out[:] = (q[:, 1] - q[:, 0])[:, None]
        else:
            if fine:
                left, right = q[:, 2] - q[:, 0], q[:, 3] - q[:, 1]
                out[:, 0] = out[:, 2] = left
                out[:, 1] = out[:, 3] = right
            else:
                out[:] = (q[:, 2] - q[:, 0])[:, None]
    m.write(ins.operands[0], flush(out.reshape(-1, 4).astype(np.float32)).view(np.uint32), active, ins.saturate, FLOAT)


def _nothing(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    return


def _abort(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    raise VmError("the shader executed abort")


def _fully_mapped(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    m.write(ins.operands[0], np.full((m.n, 4), TRUE, np.uint32), active)


def _eval(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    # attributes are constant across a pixel here, so evaluating at any position gives the input
    m.write(ins.operands[0], m.read(ins.operands[1], FLOAT), active, ins.saturate, FLOAT)


from shaderkit.vm.sm4 import memory as _memory  # noqa: E402  (resource handlers need Machine)

_HANDLERS = {
    "break": _break, "breakc": _break, "continue": _continue, "continuec": _continue,
    "ret": _ret, "retc": _ret, "discard": _discard, "call": _call, "callc": _call, "fcall": _fcall,
    "deriv_rtx": _deriv, "deriv_rty": _deriv, "deriv_rtx_coarse": _deriv, "deriv_rty_coarse": _deriv,
    "deriv_rtx_fine": _deriv, "deriv_rty_fine": _deriv, "abort": _abort, "label": _nothing,
    "check_access_fully_mapped": _fully_mapped, "eval_snapped": _eval, "eval_sample_index": _eval,
    "eval_centroid": _eval,
    **_memory.HANDLERS, **GEOMETRY_HANDLERS,
}

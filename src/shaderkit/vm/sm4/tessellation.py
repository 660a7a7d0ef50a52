"""Hull and domain shaders: the hull shader's phases, control points and patch constants.

A hull-shader program is a declarations section (``hs_decls``) followed by phases, each with its
own declarations and temps: at most one control-point phase, then fork phases and join phases.
:meth:`Shader.run_hull <shaderkit.vm.sm4.Shader.run_hull>` runs every patch through them in
D3D11's order:

1. the control-point phase (``hs_control_point_phase``), one lane per (patch, output control
   point): ``v[i][r]`` / ``vicp[i][r]`` read the patch's input control points,
   ``vOutputControlPointID`` is the point and ``vPrim`` the patch; ``o#`` are the point's output
   registers. A hull shader without this phase passes its input control points through (output
   point i, register r = input point i, register r).
2. the fork phases (``hs_fork_phase``) in program order, one lane per (patch, instance) for the
   ``dcl_hs_fork_phase_instance_count`` instances (1 when undeclared), ``vForkInstanceID`` the
   instance; they read ``vicp`` and ``vocp`` (the output control points) and write ``o#``, the
   patch-constant registers.
3. the join phases (``hs_join_phase``), likewise with ``vJoinInstanceID``, reading the patch
   constants the fork phases wrote as ``vpc#``.

The instances of one phase run side by side, each starting from the patch constants as they were
before the phase; a component an instance changed is kept (in valid programs the instances of a
phase write disjoint components; if two change the same one, the higher instance wins). Patch
constants no phase writes are 0. Tessellation factors are returned as the shader wrote them: the
clamping and rounding of the fixed-function tessellator are not applied.

A domain shader (:meth:`Shader.run_domain <shaderkit.vm.sm4.Shader.run_domain>`) runs one lane
per domain point: ``vDomain`` is the point's location (u, v[, w]), ``vicp[i][r]`` the control
points of its patch, ``vpc#`` the patch constants and ``vPrim`` the patch. The domain points come
from the caller, or for isoline domains from :meth:`HullOutputs.tessellate` (the fixed-function
tessellator by D3D11's reference rules, :func:`tessellate_isoline`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.isa.sm4.model import Instruction
from shaderkit.isa.sm4.opcodes import OPCODES, TESS_DOMAINS, TESS_OUTPUTS, TESS_PARTITIONINGS, OperandType
from shaderkit.vm.sm4.machine import Declarations, VmError, build_tree, compile_program, declarations

if TYPE_CHECKING:
    from shaderkit.vm.sm4 import Outputs

OT = OperandType
#: phase instruction -> phase kind
PHASES = {"hs_control_point_phase": "control_point", "hs_fork_phase": "fork", "hs_join_phase": "join"}
#: the instance-id operand of each instanced phase kind
INSTANCE_IDS = {"fork": OT.INPUT_FORK_INSTANCE_ID, "join": OT.INPUT_JOIN_INSTANCE_ID}
#: D3D_NAME values of tessellation factors in a patch-constant signature: edge and inside factors
EDGE_FACTORS, INSIDE_FACTORS = frozenset((11, 13, 15, 16)), frozenset((12, 14))
#: most words a hull or domain run may hold in one register file (lanes x registers x 4)
MAX_WORDS = 1 << 26


@dataclass
class Phase:
    """One hull-shader phase: its kind, declarations (the shared ones and its own) and code."""
    kind: str  # "control_point", "fork" or "join"
    decl: Declarations
    main: list[Any]
    functions: dict[int, list[Any]]

    @property
    def instances(self) -> int:
        """Lanes per patch: the declared instance count of a fork or join phase (1 otherwise)."""
        return self.decl.phase_instances if self.kind in INSTANCE_IDS else 1


def _name(ins: Instruction) -> str:
    info = OPCODES.get(ins.opcode)
    return info.name if info is not None else f"opcode_{ins.opcode}"


def split_phases(instructions: list[Instruction]) -> list[Phase]:
    """The phases of a hull-shader program in program order. Declarations before the first phase
    apply to every phase; subroutine bodies (``label``), which follow the last phase, are shared."""
    starts = [i for i, ins in enumerate(instructions) if _name(ins) in PHASES]
    head = instructions[: starts[0]] if starts else instructions
    for ins in head:
        name = _name(ins)
        if not (name.startswith("dcl_") or name in ("hs_decls", "customdata", "nop")):
            raise VmError(f"{name} at word {ins.offset} is outside every hull-shader phase")
    pieces = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(instructions)
        pieces.append((PHASES[_name(instructions[start])], instructions[start + 1 : end]))
    if sum(kind == "control_point" for kind, _ in pieces) > 1:
        raise VmError("more than one hs_control_point_phase")
    trees = [build_tree(body) for _, body in pieces]
    shared: dict[int, list[Any]] = {}
    for _, functions in trees:
        shared.update(functions)
    phases = []
    for (kind, body), (main, _) in zip(pieces, trees):
        decl = declarations(head + body)
        compiled, functions = compile_program(main, shared)
        phases.append(Phase(kind, decl, compiled, functions))
    return phases


def signature_registers(signature: Any) -> int:
    """Registers a signature spans (highest register + 1; 0 for none)."""
    return max((e.register + 1 for e in signature.elements), default=0) if signature is not None else 0


def typed_columns(bits: np.ndarray, element: Any) -> np.ndarray:
    """The components of a signature element from (..., 4) uint32 bits, viewed as its type."""
    comps = [c for c in range(4) if element.mask >> c & 1]
    dtype = {1: np.uint32, 2: np.int32}.get(element.component_type, np.float32)
    return np.ascontiguousarray(bits[..., comps]).view(dtype)


def element_key(element: Any) -> str:
    """An element's output key: upper-case semantic and index (``SV_TESSFACTOR2``)."""
    return f"{element.semantic_name.upper()}{element.semantic_index}"


class HullOutputs(Mapping[str, np.ndarray]):
    """A hull-shader run: the output control points by semantic (typed, (patches, points,
    components)) and register (``o0``: uint32 bits (patches, points, 4)); :attr:`patch_constants`
    by patch-constant semantic ((patches, components)) and register (``o0``: bits (patches, 4)).

    ``tess_factors`` / ``inside_tess_factors`` are the edge and inside factors ((patches, k)
    float32, in semantic-index order; for isolines edge factor 0 is the density and 1 the detail).
    ``domain``, ``partitioning``, ``output_primitive`` and ``max_tessfactor`` repeat the
    tessellator declarations; ``control_point_bits`` (patches, points, registers, 4) and
    ``patch_constant_bits`` (patches, registers, 4) are the register files, which
    :meth:`Shader.run_domain <shaderkit.vm.sm4.Shader.run_domain>` takes as they are."""

    def __init__(self, control_points: np.ndarray, patch_constants: np.ndarray, output_signature: Any,
                 patch_signature: Any, decl: Declarations) -> None:
        from shaderkit.vm.sm4 import Outputs

        self.control_point_bits, self.patch_constant_bits = control_points, patch_constants
        values: dict[str, Any] = {f"o{r}": control_points[:, :, r] for r in range(control_points.shape[2])}
        for element in output_signature.elements if output_signature is not None else []:
            if element.register < control_points.shape[2]:
                values[element_key(element)] = typed_columns(control_points[:, :, element.register], element)
        self._values = values
        constants: dict[str, Any] = {f"o{r}": patch_constants[:, r] for r in range(patch_constants.shape[1])}
        self._line_factors: dict[int, np.ndarray] = {}  # D3D_NAME -> (patches,) edge factors
        edges, inside = [], []
        for element in patch_signature.elements if patch_signature is not None else []:
            if element.register >= patch_constants.shape[1]:
                continue
            column = typed_columns(patch_constants[:, element.register], element)
            constants[element_key(element)] = column
            if element.system_value_type in EDGE_FACTORS:
                edges.append((element.semantic_index, column[:, 0]))
                self._line_factors[element.system_value_type] = column[:, 0].astype(np.float32)
            elif element.system_value_type in INSIDE_FACTORS:
                inside.append((element.semantic_index, column[:, 0]))
        patches = patch_constants.shape[0]
        #: patch constants by PCSG semantic and by register
        self.patch_constants: Outputs = Outputs(constants, np.zeros(patches, bool))
        self.tess_factors = _factor_table(edges, patches)
        self.inside_tess_factors = _factor_table(inside, patches)
        self.domain = TESS_DOMAINS[decl.tess_domain][len("domain_"):]
        self.partitioning = TESS_PARTITIONINGS[decl.tess_partitioning][len("partitioning_"):] \
            if decl.tess_partitioning < len(TESS_PARTITIONINGS) else "undefined"
        self.output_primitive = TESS_OUTPUTS[decl.tess_output][len("output_"):] \
            if decl.tess_output < len(TESS_OUTPUTS) else "undefined"
        self.max_tessfactor = decl.max_tessfactor

    def __getitem__(self, key: str) -> np.ndarray:
        if key in self._values:
            return self._values[key]
        upper = key.upper()
        upper = upper if upper[-1:].isdigit() else upper + "0"
        if upper in self._values:
            return self._values[upper]
        raise KeyError(f"no output {key!r}; outputs: {', '.join(sorted(self._values))}")

    def __iter__(self) -> Any:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def tessellate(self) -> Tessellation:
        """Every patch through the fixed-function tessellator (:func:`tessellate_isoline`; isoline
        domains only: for tri and quad domains the caller gives the domain points). The result's
        ``domain`` and ``patch`` go to :meth:`Shader.run_domain <shaderkit.vm.sm4.Shader.run_domain>`
        as they are. ``dcl_hs_max_tessfactor`` is not applied (the reference tessellator does not)."""
        if self.domain != "isoline":
            raise VmError(f"the VM tessellates isoline domains only, not {self.domain}: give the domain points")
        density, detail = self._line_factors.get(16), self._line_factors.get(15)
        if density is None or detail is None:
            raise VmError("the patch-constant signature has no line density and detail factors")
        output = "point" if self.output_primitive == "point" else "line"
        points, primitives, patches = [], [], []
        first = 0
        for patch, (lines, segments) in enumerate(zip(density, detail)):
            where, indices = tessellate_isoline(lines, segments, self.partitioning, output)
            points.append(where)
            primitives.append(indices + first)
            patches.append(np.full(len(where), patch, np.int64))
            first += len(where)
        width = 1 if output == "point" else 2
        return Tessellation(np.concatenate(points) if points else np.zeros((0, 2), np.float32),
                            np.concatenate(patches) if patches else np.zeros(0, np.int64),
                            np.concatenate(primitives) if primitives else np.zeros((0, width), np.int64), output)


@dataclass
class Tessellation:
    """Tessellated patches: ``domain`` (n, 2) float32 locations, ``patch`` (n,) the patch of each,
    ``primitives`` (k, 2) index pairs into them (lines; (k, 1) for points) and ``output``."""
    domain: np.ndarray
    patch: np.ndarray
    primitives: np.ndarray
    output: str


def _factor_table(columns: list[tuple[int, np.ndarray]], patches: int) -> np.ndarray:
    columns.sort(key=lambda item: item[0])
    if not columns:
        return np.zeros((patches, 0), np.float32)
    return np.stack([column.astype(np.float32) for _, column in columns], axis=1)


def merge_instances(before: np.ndarray, after: np.ndarray, instances: int) -> np.ndarray:
    """Patch constants after a phase: ``before`` (registers, 4, patches) uint32, ``after``
    (registers, 4, patches * instances) the lanes' registers (lane = patch * instances + instance);
    every component an instance changed replaces the old value, instances in increasing order."""
    result = before.copy()
    lanes = after.reshape(after.shape[0], 4, -1, instances)
    for instance in range(instances):
        mine = lanes[..., instance]
        np.copyto(result, mine, where=mine != before)
    return result


# -- the isoline tessellator ------------------------------------------------------------------------
#
# D3D11's fixed-function tessellator as its reference implementation defines it: tessellation
# factors become 16.16 fixed point, each half of an edge is placed with the reciprocal of its
# segment count from a table of 16.16 reciprocals, and the second half mirrors the first (1 - x),
# so positions are multiples of 2^-16 (1/3 of an edge is 0x5555 / 65536 = 0.33332825, not 1/3).

#: 16.16 reciprocals of 1..64 segments (entry 0 unused)
_RECIPROCALS = (0xFFFFFFFF, 0x10000, 0x8000, 0x5555, 0x4000, 0x3333, 0x2AAB, 0x2492, 0x2000, 0x1C72, 0x199A,
                0x1746, 0x1555, 0x13B1, 0x1249, 0x1111, 0x1000, 0xF0F, 0xE39, 0xD79, 0xCCD, 0xC31, 0xBA3, 0xB21,
                0xAAB, 0xA3D, 0x9D9, 0x97B, 0x925, 0x8D4, 0x889, 0x842, 0x800, 0x7C2, 0x788, 0x750, 0x71C,
                0x6EB, 0x6BD, 0x690, 0x666, 0x63E, 0x618, 0x5F4, 0x5D1, 0x5B0, 0x591, 0x572, 0x555, 0x539,
                0x51F, 0x505, 0x4EC, 0x4D5, 0x4BE, 0x4A8, 0x492, 0x47E, 0x46A, 0x457, 0x444, 0x432, 0x421,
                0x410, 0x400)
_ONE, _HALF = 1 << 16, 1 << 15
#: partitioning -> (lowest, highest) tessellation factor (D3D11_TESSELLATOR_MIN/MAX_*_TESSELLATION_FACTOR)
_FACTOR_RANGE = {"integer": (1.0, 64.0), "pow2": (1.0, 64.0), "fractional_odd": (1.0, 63.0),
                 "fractional_even": (2.0, 64.0)}


@dataclass
class _Edge:
    """One tessellation factor's placement context (16.16 fixed point throughout)."""
    odd: bool
    half_points: int  # points on the first half of the edge (the middle one excluded)
    fraction: int  # fractional part of half the factor: the weight of the ceil placement
    split: int  # the point where the floor placement starts lagging one behind
    inverse_floor: int  # 1 / segments of the factor rounded down, and up
    inverse_ceil: int


def _fixed(value: float) -> int:
    """A factor in [1, 64] as 16.16 fixed point, rounded to nearest even."""
    return int(round(float(np.float32(value)) * _ONE))


def _remove_msb(value: int) -> int:
    return value & ~(1 << (value.bit_length() - 1)) if value > 0 else 0


def _point_count(factor: int, odd: bool) -> int:
    """Points on an edge of 16.16 ``factor`` (both ends included)."""
    half = (factor + 1) // 2
    if odd:
        return _ceil(_HALF + half) * 2 >> 16
    return (_ceil(half) * 2 >> 16) + 1


def _ceil(value: int) -> int:
    return (value & ~0xFFFF) + _ONE if value & 0xFFFF else value


def _edge(factor: int, odd: bool) -> _Edge:
    half = (factor + 1) // 2
    if odd or half == _HALF:  # a factor of 1 counts as odd
        half += _HALF
    floor, ceil = half & ~0xFFFF, _ceil(half)
    half_points = ceil >> 16
    if ceil == floor:
        split = half_points + 1  # never reached
    elif odd:
        split = 0 if floor == _ONE else (_remove_msb((floor >> 16) - 1) << 1) + 1
    else:
        split = (_remove_msb(floor >> 16) << 1) + 1
    floor_segments, ceil_segments = (floor * 2 >> 16) - odd, (ceil * 2 >> 16) - odd
    return _Edge(odd, half_points, half - floor, split, _RECIPROCALS[floor_segments], _RECIPROCALS[ceil_segments])


def _place(edge: _Edge, point: int) -> int:
    """The 16.16 position of point ``point`` along an edge."""
    flip = point >= edge.half_points
    if flip:
        point = (edge.half_points << 1) - point - edge.odd
    if point == edge.half_points:
        return _HALF  # the middle point, exactly 0.5
    on_floor = point - 1 if point > edge.split else point
    location = (on_floor * edge.inverse_floor * (_ONE - edge.fraction) + point * edge.inverse_ceil * edge.fraction
                + _HALF) >> 16
    return _ONE - location if flip else location


def tessellate_isoline(density: float, detail: float, partitioning: str = "integer",
                       output: str = "line") -> tuple[np.ndarray, np.ndarray]:
    """The domain points ((n, 2) float32 (u, v)) and the primitives (index pairs (k, 2) for
    ``output="line"``, single indices (n, 1) for ``"point"``) of one isoline patch, by D3D11's
    tessellator rules: a factor that is not above 0 (or NaN) culls the patch; the detail factor
    is clamped to the partitioning's range (integer and pow2: rounded up, [1, 64]; fractional
    odd [1, 63]; fractional even [2, 64]), the density factor to [1, 64] and rounded up (it is
    always partitioned as integer). Lines run along u at v = 0 .. (density - 1) / density; the
    last line, at v = 1, is not drawn."""
    if partitioning not in _FACTOR_RANGE:
        raise VmError(f"partitioning {partitioning!r}: one of {', '.join(_FACTOR_RANGE)}")
    density, detail = float(np.float32(density)), float(np.float32(detail))
    if not density > 0 or not detail > 0:  # NaN culls too
        return np.zeros((0, 2), np.float32), np.zeros((0, 2 if output == "line" else 1), np.int64)
    low, high = _FACTOR_RANGE[partitioning]
    detail = min(high, max(low, detail if detail >= 2.0 ** -126 else 0.0))  # denormals flush to 0
    density = float(np.ceil(min(64.0, max(1.0, density if density >= 2.0 ** -126 else 0.0))))
    if partitioning in ("integer", "pow2"):
        detail = float(np.ceil(detail))
        detail_odd = int(detail) % 2 == 1
    else:
        detail_odd = partitioning == "fractional_odd"
    detail_fixed = _fixed(detail)
    along = _edge(detail_fixed, detail_odd)
    across = _edge(_fixed(density), int(density) % 2 == 1)
    per_line = _point_count(detail_fixed, detail_odd)
    lines = _point_count(_fixed(density), int(density) % 2 == 1) - 1
    u = np.array([_place(along, p) for p in range(per_line)], np.float64) / _ONE
    v = np.array([_place(across, line) for line in range(lines)], np.float64) / _ONE
    points = np.stack([np.tile(u, lines), np.repeat(v, per_line)], axis=1).astype(np.float32)
    if output == "point":
        return points, np.arange(len(points), dtype=np.int64)[:, None]
    starts = (np.arange(lines)[:, None] * per_line + np.arange(per_line - 1)[None, :]).reshape(-1)
    return points, np.stack([starts, starts + 1], axis=1).astype(np.int64)

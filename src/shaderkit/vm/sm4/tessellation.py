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
from the caller or from :meth:`HullOutputs.tessellate` (the fixed-function tessellator by D3D11's
reference rules, :mod:`.tessellator`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.dataclass import dataclass
from shaderkit.isa.sm4.model import Instruction
from shaderkit.isa.sm4.opcodes import TESS_DOMAINS, TESS_OUTPUTS, TESS_PARTITIONINGS, OperandType
from shaderkit.vm.sm4.machine import Declarations, VmError, _name, build_tree, compile_program, declarations
from shaderkit.vm.sm4.outputs import NamedOutputs, element_key, typed_columns
from shaderkit.vm.sm4.tessellator import FACTOR_RANGE, OUTPUTS, tessellate_patches

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
    _, compiled_functions = compile_program([], shared)  # once for the shader: every phase calls them
    phases = []
    for (kind, body), (main, _) in zip(pieces, trees):
        decl = declarations(head + body)
        compiled, _ = compile_program(main, {})
        phases.append(Phase(kind, decl, compiled, compiled_functions))
    return phases


def signature_registers(signature: Any) -> int:
    """Registers a signature spans (highest register + 1; 0 for none)."""
    return max((e.register + 1 for e in signature.elements), default=0) if signature is not None else 0


def tessellator_names(decl: Declarations) -> tuple[str, str, str]:
    """(domain, partitioning, output primitive) a hull shader's declarations name, as the
    tessellator takes them (``tri``, ``fractional_odd``, ``triangle_cw``); ``undefined`` for a
    value past the tables."""
    def name(table: tuple[str, ...], value: int, prefix: str) -> str:
        return table[value][len(prefix):] if value < len(table) else "undefined"

    return (name(TESS_DOMAINS, decl.tess_domain, "domain_"),
            name(TESS_PARTITIONINGS, decl.tess_partitioning, "partitioning_"),
            name(TESS_OUTPUTS, decl.tess_output, "output_"))


class HullOutputs(NamedOutputs):
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
        super().__init__(values)
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
        self.domain, self.partitioning, self.output_primitive = tessellator_names(decl)
        self.max_tessfactor = decl.max_tessfactor

    def tessellate(self) -> Tessellation:
        """Every patch through the fixed-function tessellator (:mod:`.tessellator`: D3D11's rules)
        by the declared domain, partitioning and output primitive and the factors the shader
        wrote; the result's ``domain`` and ``patch`` go to :meth:`Shader.run_domain
        <shaderkit.vm.sm4.Shader.run_domain>` as they are. ``dcl_hs_max_tessfactor`` is not
        applied (the reference tessellator does not take it)."""
        output = self.output_primitive
        if output not in OUTPUTS:
            raise VmError(f"output primitive {output!r}: the tessellator makes {', '.join(OUTPUTS)}")
        if self.partitioning not in FACTOR_RANGE:
            raise VmError(f"partitioning {self.partitioning!r}: the tessellator knows {', '.join(FACTOR_RANGE)}")
        edges, inside = self.tess_factors, self.inside_tess_factors
        if self.domain == "isoline":
            density, detail = self._line_factors.get(16), self._line_factors.get(15)
            if density is None or detail is None:
                raise VmError("the patch-constant signature has no line density and detail factors")
            edges, inside = np.stack([density, detail], axis=1), np.zeros((len(density), 0), np.float32)
        elif not ((self.domain == "tri" and edges.shape[1] == 3 and inside.shape[1] == 1)
                  or (self.domain == "quad" and edges.shape[1] == 4 and inside.shape[1] == 2)):
            raise VmError(f"domain {self.domain!r} with {edges.shape[1]} edge and {inside.shape[1]} inside factors: "
                          "the tessellator takes isoline, tri (3 + 1) or quad (4 + 2) patches")
        return Tessellation(*tessellate_patches(self.domain, edges, inside, self.partitioning, output), output)


@dataclass
class Tessellation:
    """Tessellated patches: ``domain`` (n, 2) float32 locations ((n, 3) u, v, w for triangles),
    ``patch`` (n,) the patch of each, ``primitives`` indices into them ((k, 3) triangles, (k, 2)
    lines, (k, 1) points) and the ``output`` primitive."""
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

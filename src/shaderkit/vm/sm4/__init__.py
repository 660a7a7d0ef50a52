"""Run Direct3D SM4/SM5 shaders on the CPU with NumPy, SIMD across invocations.

>>> shader = Shader(shaderkit.open(data))          # a parsed DXBC container
>>> shader.set_constant("FogColor", [0.25, 0.5, 1.0])
>>> out = shader.run_vertex({"POSITION": positions})   # or run_pixel / dispatch
>>> out["SV_Position"]                                 # (n, 4) float32
>>> gs = Shader(shaderkit.open(gs_data)).run_geometry({"SV_Position": triangles})  # (n, 3, 4)
>>> gs["SV_Position"], gs.primitive, gs.primitives()   # emitted vertices, their source, triangles
>>> hs = Shader(shaderkit.open(hs_data)).run_hull({"POSITION": patches})  # (patches, points, 3)
>>> hs["POSITION"], hs.patch_constants["SV_TessFactor1"], hs.tess_factors  # control points, constants
>>> ds = Shader(shaderkit.open(ds_data)).run_domain(hs, [[1/3, 1/3, 1/3]])  # at each domain location

Inputs and outputs are named by semantic (``TEXCOORD1``; index 0 may be left out) or by register
(``v2``, ``o0``); constant-buffer variables by their RDEF names. Pixel shaders run in 2x2 quads:
by default each fragment fills a whole quad (derivatives 0, as for one-pixel points); pass
``quads=True`` to give fragments in quad order (top-left, top-right, bottom-left, bottom-right).
System values the caller does not give: SV_VertexID = 0..n-1, SV_IsFrontFace = true, pixel
SV_Position = the pixel centre (fragment i at (i + 0.5, 0.5); with quads, quad k covers pixels
2k..2k+1 of rows 0..1), z = 0.5, w = 1, SV_PrimitiveID = the quad's index; each fills only its declared
components, beside ordinary inputs or other system values in the same register. Unbound views read as
zeros and drop writes. Each run has an instruction budget (:func:`step_limit`) so a runaway loop
raises :class:`VmError` instead of hanging.

D3D10/11 arithmetic as implemented (:mod:`.alu`): float ops flush denormal inputs and results to
a signed zero in every stage (``mov``/``movc`` keep bits); ``min``/``max`` return the non-NaN
operand; ``ftoi``/``ftou`` truncate and saturate (NaN -> 0); shift counts use their low 5 bits;
``udiv`` by 0 gives 0xFFFFFFFF; ``mad`` rounds twice; ``_sat`` clamps to [0, 1] with NaN -> 0;
``exp``/``log``/``rsq``/``sincos`` are computed in float32/float64 NumPy and are correctly rounded
or within 1 ulp, tighter than D3D's bounds (exp 3 ulp, rsq 2 ulp, log 2^-21 absolute near 1).
Texture sampling: point/linear filtering with texel centres at +0.5, wrap/mirror/clamp/border
address modes, mip selection from explicit LOD, gradients or quad derivatives, comparison before
filtering, gather in D3D's (u0,v1) (u1,v1) (u1,v0) (u0,v0) order, cube faces by the major axis and
seamless cube filtering (a footprint texel off one edge is the adjacent face's; a corner texel, on
no face, the average of the other three, as D3D10 asks; with a comparison, of their results).
Interface calls (``fcall``) go through the function table chosen with :meth:`Shader.bind_interface`
(by default each interface's first table); ``this`` pointers read as 0 (instance data at the start
of its constant buffer, resource and sampler slot 0). Double ops (``dmovc`` included) work on
component pairs; ``_sat`` on a double result clamps the double. Geometry shaders run with
:meth:`Shader.run_geometry` (one lane per primitive and instance; ``emit``/``cut`` fill per-lane
streams, returned as arrays with each vertex's primitive, instance and strip, see :mod:`.geometry`).
Hull shaders run with :meth:`Shader.run_hull` over patches: the control-point phase (one lane per
output control point), then every fork and join phase (one lane per patch and phase instance),
giving the output control points and the patch constants (:class:`HullOutputs`); domain shaders
with :meth:`Shader.run_domain` at domain locations the caller gives, with the control points and
patch constants of a hull run or given by semantic (:class:`DomainOutputs`; the phase order and
the system values are described in :mod:`.tessellation`). Tessellation factors are returned as
written; :meth:`HullOutputs.tessellate` runs the fixed-function tessellator (:mod:`.tessellator`,
D3D11's reference rules in 16.16 fixed point, every domain, partitioning and output primitive)
to give the domain points and primitives, or the caller gives the domain points.

Speed: registers are stored component-major and the ALU instructions with plain operands are
compiled once into closures over component rows (:mod:`.fast`); vertex and pixel runs without UAVs
or groupshared memory go in chunks of :data:`CHUNK_LANES` lanes. Both leave results unchanged
(a corpus-wide test compares them with the general path).

Agreement with an independent executor (tools/sm4_vm_oracle.py: vkd3d-compiler -> SPIR-V ->
spirv-cross -> Mesa llvmpipe, random inputs, exact for integer outputs, relative 2e-4 / absolute
2e-5 for float outputs) is measured over the whole corpus; where that executor is not D3D
(float->int conversion not saturated, compute keeping denormals, comparison sampling of colour
textures undefined in GL, NaN texture coordinates) the VM keeps D3D's rule and the comparison is
reported as skipped with the reason. Measured 2026-11-23: of the 309 corpus vs/ps/cs shaders the
oracle runs, 295 agree and none differ; 14 cannot be compared (7 multisampled textures the oracle
binds single-sampled, 4 comparison samplings, 3 NaN cube coordinates). The VM alone runs 336 of
the 337 corpus vs/ps/cs shaders (``--vm-only``; one loops endlessly on its test inputs and stops at
the step limit), all 16 corpus geometry shaders and all 24 corpus hull and domain shaders (13
hs_5_0, 11 ds_5_0).

Geometry, hull and domain shaders against the same oracle (``--stages gs,hs,ds``): the GS behind a
pass-through vertex shader, its output captured with transform feedback (GL cuts strips into
lists in D3D's vertex order, odd triangles (j+1, j, j+2)); the hull shader as a GL tessellation
control shader and the domain shader as the evaluation shader, which gets the hull shader's
spacing and vertex order (GL's domain origin is the lower left, so D3D triangle_cw is GL ccw;
pow2 is GL equal_spacing, as D3D's reference tessellator treats pow2 as integer), compared
primitive by primitive with run_hull -> tessellate -> run_domain, domain points bit for bit. A
hull shader alone is checked through a generated evaluation stage that captures the domain
points, the factors, the patch constants and the output control points; a domain shader alone
behind a generated control stage (random control points, patch constants and factors 1 to 12,
integer, fractional odd and fractional even spacing). Measured 2026-11-23, no difference left:
geometry 14 of 16 agree (one emits single-vertex strips: 0 primitives on both sides), 2 cannot
be compared (vkd3d 1.2 refuses one; for ANGLE BufferToTexture its GLSL writes an unwritten copy
of o1). Hull shaders alone 12 of 13 agree (4 write factors 0 and cull every patch on both
sides; PNTriangles11's join-phase CENTER and SubD11_HS_4444's TANGENT/TEXCOORD constants are not
compared: vkd3d 1.2 loses join-phase vpc inputs and relative register indices into vicp, and the
VM's values were checked by hand instead); SubD11_HS crashes llvmpipe. Domain shaders alone: 11
of 11 agree. Hull + domain pairs of the same source: 8 of 11 agree (one culls), 2 hit those
vkd3d bugs, SubD11 crashes llvmpipe. The tessellator alone (``--tessellator N``: generated GL
stages, random factors 0.5 to 66) gives the same points in the same primitive order as Mesa's
for 100 patches of each of the 24 domain x spacing x output cases. vkd3d 1.2 swaps the isoline
density and detail factors in gl_TessLevelOuter; the tool swaps them back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.opcodes import OperandType
from shaderkit.vm.sm4.geometry import INPUT_VERTICES, STREAMS, GeometryOutputs, Streams
from shaderkit.vm.sm4.geometry import outputs as geometry_outputs
from shaderkit.vm.sm4.machine import (
    CompiledBlock,
    Declarations,
    Machine,
    VmError,
    build_tree,
    compile_program,
    declarations,
)
from shaderkit.vm.sm4.outputs import (
    COMPONENT_DTYPES,
    NamedOutputs,
    element_components,
    element_key,
    normalize_key,
    typed_columns,
)
from shaderkit.vm.sm4.resources import Buffer, Sampler, Texture

TYPE_CHECKING = False  # (the tessellation modules load when a hull or domain shader is compiled: start-up)
if TYPE_CHECKING:
    from shaderkit.vm.sm4.tessellation import HullOutputs, Phase, Tessellation
    from shaderkit.vm.sm4.tessellator import tessellate_isoline, tessellate_quad, tessellate_tri

__all__ = ["Shader", "Outputs", "GeometryOutputs", "HullOutputs", "DomainOutputs", "Tessellation", "VmError", "Buffer",
           "Sampler", "Texture", "tessellate_isoline", "tessellate_quad", "tessellate_tri"]

#: public names of the tessellation modules, imported on first use
_LAZY = {"HullOutputs": "tessellation", "Tessellation": "tessellation", "tessellate_isoline": "tessellator",
         "tessellate_quad": "tessellator", "tessellate_tri": "tessellator"}


def __getattr__(name: str) -> Any:
    """The tessellation names of :data:`__all__`, loaded when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)

OT = OperandType
STAGES = {0: "pixel", 1: "vertex", 2: "geometry", 3: "hull", 4: "domain", 5: "compute"}
#: signature component types: 1 uint32, 2 sint32, 3 float32
# system values the VM fills when the caller gives none (D3D_NAME values)
_POSITION, _VERTEX_ID, _INSTANCE_ID, _IS_FRONT_FACE, _SAMPLE_INDEX, _PRIMITIVE_ID = 1, 6, 8, 9, 10, 7


def _input_slot(key: str, array: np.ndarray, elements: dict[str, Any], registers: int, prefix: str = "v",
                what: str = "input") -> tuple[int, int, np.ndarray]:
    """(register, first component, ``array`` as uint32 bits of the component type) of input
    ``key`` (its last axis the components): ``v3`` (``prefix`` + number) names a register (its
    type from the array's dtype), anything else a signature semantic; ``what`` names such inputs
    in errors."""
    if key[: len(prefix)].lower() == prefix and key[len(prefix) :].isdigit():
        register, start, ctype = int(key[len(prefix) :]), 0, {"f": 3, "i": 2, "u": 1}.get(array.dtype.kind, 3)
    else:
        element = elements.get(normalize_key(key))
        if element is None:
            raise VmError(f"no {what} {key!r}; {what}s: {', '.join(sorted(elements)) or 'none'}")
        register, ctype = element.register, element.component_type
        start = (element.mask & -element.mask).bit_length() - 1
    if register >= registers:
        raise VmError(f"{what} {key} is register {prefix}{register}, the shader declares {registers}")
    width = array.shape[-1]
    if start + width > 4:
        raise VmError(f"{what} {key}: {width} components from component {start} do not fit")
    return register, start, np.ascontiguousarray(array, dtype=COMPONENT_DTYPES.get(ctype, np.float32)).view(np.uint32)


class Outputs(NamedOutputs):
    """A run's results by semantic (``SV_POSITION0``/``SV_Position``) and register (``o0``)."""

    def __init__(self, values: dict[str, Any], discarded: np.ndarray) -> None:
        super().__init__(values)  # arrays, or functions building them on first access
        #: pixel shaders: lanes that executed ``discard``
        self.discarded = discarded


class _Results(NamedTuple):
    """What :meth:`Shader._outputs` reads of a machine: outputs (registers, lanes, 4), special
    registers by operand type, the discard mask."""
    o: np.ndarray
    special: dict[int, np.ndarray]
    discarded: np.ndarray


class DomainOutputs(Outputs):
    """A domain-shader run: outputs by semantic and register as :class:`Outputs`, one row per
    domain point, with each row's ``patch`` index and ``domain`` location ((n, 1 to 3) float32)."""

    def __init__(self, values: dict[str, Any], patch: np.ndarray, domain: np.ndarray) -> None:
        super().__init__(values, np.zeros(len(patch), bool))
        self.patch, self.domain = patch, domain


class Shader:
    """A compiled vertex, pixel, geometry, hull, domain or compute shader ready to run; resources
    persist between runs."""

    def __init__(self, container: Any, max_steps: int | None = None) -> None:
        code = getattr(container, "shader", None)
        if code is None:
            raise VmError("the container has no SHDR/SHEX program")
        self.container = container
        self.program = decode(code.tokens)
        self.stage = STAGES.get(self.program.program_type, "library")
        if self.stage not in ("vertex", "pixel", "compute", "geometry", "hull", "domain"):
            raise VmError(f"{self.stage} shaders are not supported by the VM")
        instructions = self.program.instructions
        #: hull shaders: the phases in program order (:mod:`.tessellation`)
        self.phases: list[Phase] = []
        self.functions: dict[int, list[Any]] = {}
        with _as_vm_error("the program's declarations or blocks are malformed"):
            self.decl = declarations(instructions)
            if self.stage == "hull":
                from shaderkit.vm.sm4.tessellation import split_phases

                self.phases = split_phases(instructions)
                self.main = CompiledBlock()
            else:
                self.main, self.functions = compile_program(*build_tree(instructions))
        #: instruction budget per run (SIMD steps); None: scaled by the lane count, see step_limit
        self.max_steps = max_steps
        self.constant_buffers: dict[int, np.ndarray] = {
            slot: np.zeros((size, 4), np.uint32) for slot, size in self.decl.constant_buffers.items()
        }
        self.textures: dict[int, Texture] = {}
        self.uav_textures: dict[int, Texture] = {}
        self.buffers: dict[tuple[int, int], Buffer] = {}
        self.samplers: dict[int, Sampler] = {}
        #: interface fp# -> the function table ft# its class instance uses (default: the first declared)
        self.interface_tables: dict[int, int] = {}
        self._apply_defaults()

    # -- resources by name ----------------------------------------------------------------------

    def _rdef_binding(self, name: str) -> Any:
        rdef = getattr(self.container, "rdef", None)
        for binding in getattr(rdef, "resource_bindings", []) if rdef is not None else []:
            if binding.name == name:
                return binding
        return None

    def _apply_defaults(self) -> None:
        rdef = getattr(self.container, "rdef", None)
        if rdef is None:
            return
        for cbuffer in rdef.constant_buffers:
            binding = self._rdef_binding(cbuffer.name)
            if binding is None or binding.bind_point not in self.constant_buffers:
                continue
            for variable in cbuffer.variables:
                if variable.default_value:
                    self._write_cb(binding.bind_point, variable.start_offset, variable.default_value)

    def _write_cb(self, slot: int, offset: int, data: bytes) -> None:
        table = self.constant_buffers[slot]
        raw = bytearray(table.tobytes())
        end = min(len(raw), offset + len(data))
        raw[offset:end] = data[: end - offset]
        self.constant_buffers[slot] = np.frombuffer(bytes(raw), np.uint32).reshape(table.shape).copy()

    def set_constant(self, name: str, value: Any) -> None:
        """Set a constant-buffer variable by its RDEF name (``Var`` or ``Buffer.Var``)."""
        rdef = getattr(self.container, "rdef", None)
        wanted_buffer, _, wanted = name.rpartition(".")
        for cbuffer in rdef.constant_buffers if rdef is not None else []:
            if wanted_buffer and cbuffer.name != wanted_buffer:
                continue
            for variable in cbuffer.variables:
                if variable.name != wanted:
                    continue
                binding = self._rdef_binding(cbuffer.name)
                if binding is None or binding.bind_point not in self.constant_buffers:
                    raise VmError(f"constant buffer {cbuffer.name} is not bound in this shader")
                kind = variable.type.variable_type
                dtype = {1: np.uint32, 2: np.int32, 19: np.uint32, 3: np.float32, 5: np.float64}.get(kind, np.float32)
                data = _packed(np.asarray(value, dtype=dtype), variable.type)
                if len(data) > variable.size:
                    raise VmError(f"{name}: {len(data)} bytes do not fit its {variable.size}")
                self._write_cb(binding.bind_point, variable.start_offset, data)
                return
        raise VmError(f"no constant-buffer variable named {name!r}")

    def set_constant_buffer(self, slot: int | str, data: Any) -> None:
        """Fill a whole constant buffer (by register or RDEF name) from bytes or a float/uint array."""
        if isinstance(slot, str):
            binding = self._rdef_binding(slot)
            if binding is None:
                raise VmError(f"no constant buffer named {slot!r}")
            slot = binding.bind_point
        if slot not in self.constant_buffers:
            raise VmError(f"cb{slot} is not declared by this shader")
        raw = data if isinstance(data, (bytes, bytearray)) else np.ascontiguousarray(data, dtype=np.float32 if np.asarray(data).dtype.kind == "f" else np.uint32).tobytes()
        self._write_cb(slot, 0, bytes(raw))

    def _slot(self, slot: int | str) -> int:
        if isinstance(slot, int):
            return slot
        binding = self._rdef_binding(slot)
        if binding is None:
            raise VmError(f"no resource named {slot!r}")
        return int(binding.bind_point)

    def bind_texture(self, slot: int | str, texture: Texture | np.ndarray, uav: bool = False) -> None:
        """Bind a texture (or an array, made into one) to t/u slot or name ``slot``; ``uav`` for u registers."""
        if not isinstance(texture, Texture):
            dim = self.decl.resources.get(self._slot(slot), ("texture2d", "float"))[0]
            texture = Texture.from_array(texture, dim if dim != "unknown" else "texture2d")
        (self.uav_textures if uav else self.textures)[self._slot(slot)] = texture

    def bind_sampler(self, slot: int | str, sampler: Sampler) -> None:
        """Bind ``sampler`` to s slot or name ``slot``."""
        self.samplers[self._slot(slot)] = sampler

    def bind_buffer(self, slot: int | str, buffer: Buffer, uav: bool = False) -> None:
        """Bind a buffer to t/u slot or name ``slot``; ``uav`` for u registers."""
        kind = OT.UNORDERED_ACCESS_VIEW if uav else OT.RESOURCE
        self.buffers[(int(kind), self._slot(slot))] = buffer

    def bind_interface(self, interface: int, table: int) -> None:
        """Class linkage: make interface ``fp{interface}`` call through function table ``ft{table}``
        (the class instance's table; by default each interface uses the first table it declares)."""
        allowed = self.decl.interfaces.get(interface)
        if allowed is None:
            raise VmError(f"the shader declares no interface fp{interface}")
        if table not in allowed:
            raise VmError(f"fp{interface} may use tables {', '.join(f'ft{t}' for t in allowed)}, not ft{table}")
        self.interface_tables[interface] = table

    def uav(self, slot: int | str) -> Buffer | Texture:
        """A UAV after a run (its contents were changed in place)."""
        number = self._slot(slot)
        found = self.buffers.get((int(OT.UNORDERED_ACCESS_VIEW), number)) or self.uav_textures.get(number)
        if found is None:
            raise VmError(f"nothing bound to u{number}")
        return found

    # -- running ------------------------------------------------------------------------------

    def _machine(self, lanes: int, max_steps: int | None = None,
                 io: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
                 decl: Declarations | None = None) -> Machine:
        if max_steps is None:
            max_steps = self.max_steps if self.max_steps is not None else step_limit(lanes)
        m = Machine(self, lanes, max_steps, io, decl)
        m.cb = self.constant_buffers
        m.textures, m.uav_textures, m.buffers, m.samplers = self.textures, self.uav_textures, self.buffers, self.samplers
        return m

    def _execute(self, lanes: int, plan: list[tuple[int, int, np.ndarray]]) -> Machine:
        """Run the program over ``lanes`` lanes with the inputs of ``plan`` (:meth:`_input_plan`); the
        machine returned holds the outputs. Without UAVs and groupshared memory lanes never see each
        other's results (derivatives stay inside 2x2 quads), so long runs go in chunks of
        :data:`CHUNK_LANES` whose rows stay in the CPU cache; each chunk gets the whole run's
        instruction budget and one machine serves every chunk of a size."""
        whole = self._machine(lanes)
        if lanes <= CHUNK_LANES or self.decl.uavs or self.decl.tgsm:
            _apply_inputs(whole, plan, slice(None))
            with _as_vm_error("the program cannot run"):
                whole.run(self.main, self.functions)
            return whole
        for chunk, part in self._chunks(lanes, whole.oc, whole.max_steps, lambda m, part: _apply_inputs(m, plan, part)):
            for kind, values in chunk.special.items():
                whole.special.setdefault(kind, np.zeros((lanes, 4), np.uint32))[part] = values
            whole.discarded[part] = chunk.discarded
        return whole

    def _chunks(self, lanes: int, outputs: np.ndarray, budget: int,
                prepare: Callable[[Machine, slice], None]) -> Iterator[tuple[Machine, slice]]:
        """Run the program over ``lanes`` lanes in chunks of :data:`CHUNK_LANES`, each writing its
        columns of ``outputs`` (registers, 4, lanes) with the instruction budget ``budget``; one
        machine serves every chunk of a size. ``prepare`` gives a chunk's machine its lanes'
        inputs before it runs; each chunk is yielded after its run."""
        chunk: Machine | None = None
        for start in range(0, lanes, CHUNK_LANES):
            part = slice(start, min(start + CHUNK_LANES, lanes))
            if chunk is None or chunk.n != part.stop - start:
                chunk = self._machine(part.stop - start, budget, (None, outputs[:, :, part]))
            else:
                chunk.restart(outputs[:, :, part])
            prepare(chunk, part)
            with _as_vm_error("the program cannot run"):
                chunk.run(self.main, self.functions)
            yield chunk, part

    def _register_file(self, signature: str, *declared: int) -> int:
        """Registers of an input or output file: the container's ``signature`` spans them, so do
        the ``declared`` counts (at least 1)."""
        from shaderkit.vm.sm4.tessellation import signature_registers

        return max(signature_registers(getattr(self.container, signature, None)), *declared, 1)

    def _elements(self, signature: str) -> dict[str, Any]:
        """The elements of the container's signature ``signature`` by upper-case semantic and index."""
        found = getattr(self.container, signature, None)
        return {element_key(e): e for e in (found.elements if found else [])}

    def _input_plan(self, inputs: Mapping[str, Any], count: int, quads: bool = False) -> list[tuple[int, int, np.ndarray]]:
        """(register, first component, (count, width) uint32 bits) for every input, given or system value."""
        elements = self._elements("input_signature")
        registers = max(self.decl.inputs, 1)
        plan: list[tuple[int, int, np.ndarray]] = []
        given: set[tuple[int, int]] = set()  # (register, component)
        for key, value in inputs.items():
            array = np.asarray(value)
            if array.ndim == 1:
                array = array[:, None]
            if array.shape[0] != count:
                raise VmError(f"input {key}: {array.shape[0]} rows, expected {count}")
            register, start, bits = _input_slot(key, array, elements, registers)
            plan.append((register, start, bits))
            given.update((register, c) for c in range(start, start + bits.shape[1]))
        for register, entries in self.decl.system_inputs.items():
            for system, mask in entries:
                start, stop = (mask & -mask).bit_length() - 1, mask.bit_length()
                if register < registers and not any((register, c) in given for c in range(start, stop)):
                    values = self._system_value(system, count, quads)
                    if values is not None:
                        plan.append((register, start, values[:, start:stop]))
        return plan

    def _system_value(self, system: int, count: int, quads: bool) -> np.ndarray | None:
        """(count, 4) uint32 bits of a system value the caller did not give, or None (left 0)."""
        if system == _VERTEX_ID:
            values = np.arange(count, dtype=np.uint32)
        elif system == _IS_FRONT_FACE:
            values = np.full(count, 0xFFFFFFFF, np.uint32)
        elif system == _PRIMITIVE_ID and self.stage == "pixel":  # one primitive per fragment (quad)
            values = np.arange(count, dtype=np.uint32) // 4
        elif system == _POSITION and self.stage == "pixel":
            return _pixel_positions(count, quads).view(np.uint32)
        else:
            return None
        return np.broadcast_to(values[:, None], (count, 4))

    def _outputs(self, m: Machine | _Results, lanes: np.ndarray | slice) -> Outputs:
        values: dict[str, Any] = {}
        for register in range(self.decl.outputs):
            values[f"o{register}"] = m.o[register][lanes]
        signature = getattr(self.container, "output_signature", None)
        for element in signature.elements if signature else []:
            if element.register >= self.decl.outputs:
                continue

            def typed(element: Any = element) -> np.ndarray:
                return typed_columns(m.o[element.register][lanes], element)

            values[element_key(element)] = typed  # built when first read
        for kind, label in ((OT.OUTPUT_DEPTH, "oDepth"), (OT.OUTPUT_DEPTH_GREATER_EQUAL, "oDepthGE"),
                            (OT.OUTPUT_DEPTH_LESS_EQUAL, "oDepthLE"), (OT.OUTPUT_COVERAGE_MASK, "oMask"),
                            (OT.OUTPUT_STENCIL_REF, "oStencilRef")):
            if kind in m.special:
                values[label] = m.special[kind][lanes][:, 0]
        return Outputs(values, m.discarded[lanes])

    def run_vertex(self, inputs: Mapping[str, Any], count: int | None = None) -> Outputs:
        """Run a vertex shader over ``count`` vertices (by default the inputs' row count)."""
        if self.stage != "vertex":
            raise VmError(_wrong_stage(self.stage))
        count = _count(inputs, count)
        m = self._execute(count, self._input_plan(inputs, count))
        return self._outputs(m, slice(None))

    def run_pixel(self, inputs: Mapping[str, Any], count: int | None = None, quads: bool = False) -> Outputs:
        """Run a pixel shader over fragments; ``quads=True``: rows are 2x2 quads in order."""
        if self.stage != "pixel":
            raise VmError(_wrong_stage(self.stage))
        count = _count(inputs, count)
        if quads:
            if count % 4:
                raise VmError(f"quads=True needs a multiple of 4 fragments, got {count}")
            lanes, take, expanded = count, slice(None), dict(inputs)
        else:
            lanes, take = count * 4, slice(None, None, 4)
            expanded = {k: np.repeat(np.asarray(v), 4, axis=0) for k, v in inputs.items()}
        m = self._execute(lanes, self._input_plan(expanded, lanes, quads))
        return self._outputs(m, take)

    def run_geometry(self, inputs: Mapping[str, Any], count: int | None = None, stream: int = 0) -> GeometryOutputs:
        """Run a geometry shader over ``count`` input primitives (by default the inputs' first
        dimension). Inputs are (primitives, vertices per primitive[, components]) arrays by semantic
        or register; SV_PrimitiveID is the primitive's index, SV_GSInstanceID the instance. Returns
        stream ``stream``'s vertices (:class:`GeometryOutputs`)."""
        if self.stage != "geometry":
            raise VmError(_wrong_stage(self.stage))
        d = self.decl
        vertices = INPUT_VERTICES.get(d.input_primitive)
        if vertices is None:
            raise VmError(f"input primitive code {d.input_primitive} is not one the VM knows")
        if not 0 <= stream < STREAMS:
            raise VmError(f"stream {stream}: D3D11 has streams 0 to {STREAMS - 1}")
        primitives = _count(inputs, count)
        instances = max(d.instances, 1)
        lanes = primitives * instances
        registers = max(d.outputs, 1)
        if lanes * d.max_output_vertices * registers * 4 > 1 << 26:
            raise VmError(f"{primitives} primitives x {instances} instances x {d.max_output_vertices} vertices of "
                          f"{registers} registers: more than 2^26 output words; run fewer primitives at a time")
        m = self._machine(lanes)
        table = np.zeros((vertices, max(d.inputs, 1), lanes, 4), np.uint32)
        for register, start, bits in self._geometry_inputs(inputs, primitives, vertices):
            table[:, register, :, start : start + bits.shape[2]] = np.repeat(bits, instances, axis=0).transpose(1, 0, 2)
        m.gs_inputs = table
        primitive = np.repeat(np.arange(primitives, dtype=np.uint32), instances)
        instance = np.tile(np.arange(instances, dtype=np.uint32), primitives)
        m.special[OT.INPUT_PRIMITIVEID] = np.repeat(primitive[:, None], 4, axis=1)
        m.special[OT.INPUT_GS_INSTANCE_ID] = np.repeat(instance[:, None], 4, axis=1)
        m.streams = Streams(lanes, d.max_output_vertices, registers, STREAMS)
        with _as_vm_error("the program cannot run"):
            m.run(self.main, self.functions)
        signature = getattr(self.container, "output_signature", None)
        named = []
        for element in signature.elements if signature else []:
            if (getattr(element, "stream", 0) or 0) != stream:
                continue
            named.append((element_key(element), element.register, element_components(element),
                          COMPONENT_DTYPES.get(element.component_type, np.float32)))
        return geometry_outputs(m.streams, stream, instances, named, d.output_topology)

    def _geometry_inputs(self, inputs: Mapping[str, Any], primitives: int, vertices: int,
                         registers: int | None = None) -> list[tuple[int, int, np.ndarray]]:
        """(register, first component, (primitives, vertices, width) uint32 bits) per input."""
        elements = self._elements("input_signature")
        registers = max(self.decl.inputs, 1) if registers is None else registers
        plan = []
        for key, value in inputs.items():
            array = np.asarray(value)
            if array.ndim == 2:
                array = array[:, :, None]
            if array.ndim != 3 or array.shape[:2] != (primitives, vertices):
                raise VmError(f"input {key}: shape {array.shape}, expected ({primitives}, {vertices}[, components])")
            register, start, bits = _input_slot(key, array, elements, registers)
            plan.append((register, start, bits))
        return plan

    def run_hull(self, inputs: Mapping[str, Any], count: int | None = None) -> HullOutputs:
        """Run a hull shader over ``count`` patches (by default the inputs' first dimension).
        Inputs are (patches, input control points[, components]) arrays by semantic or register
        (``v0``); vPrim is the patch's index. Returns the output control points and the patch
        constants (:class:`HullOutputs`); the phases and their order are described in
        :mod:`.tessellation`."""
        if self.stage != "hull":
            raise VmError(_wrong_stage(self.stage))
        from shaderkit.vm.sm4.tessellation import INSTANCE_IDS, MAX_WORDS, HullOutputs, merge_instances

        d = self.decl
        patches = _count(inputs, count)
        points_in, points_out = d.input_control_points, d.output_control_points
        container = self.container
        control_phase = next((phase for phase in self.phases if phase.kind == "control_point"), None)
        # every fork phase runs before every join phase (fxc also writes them in that order)
        constant_phases = ([phase for phase in self.phases if phase.kind == "fork"]
                           + [phase for phase in self.phases if phase.kind == "join"])
        in_regs = self._register_file("input_signature", d.control_point_registers)
        out_regs = self._register_file("output_signature", control_phase.decl.outputs if control_phase else 0,
                                       d.output_control_point_registers)
        pc_regs = self._register_file("patch_constant_signature", d.patch_constant_registers,
                                      *[phase.decl.outputs for phase in constant_phases])
        widest = max([points_in * in_regs, points_out * out_regs] + [pc_regs * p.instances for p in constant_phases])
        if patches < 0 or patches * widest * 4 > MAX_WORDS:
            raise VmError(f"{patches} patches: more than 2^26 words in a register file; run fewer at a time")
        table = np.zeros((points_in, in_regs, patches, 4), np.uint32)
        for register, start, bits in self._geometry_inputs(inputs, patches, points_in, in_regs):
            table[:, register, :, start : start + bits.shape[2]] = bits.transpose(1, 0, 2)
        if control_phase is not None:
            lanes = patches * points_out
            outputs = np.zeros((out_regs, 4, lanes), np.uint32)
            m = self._machine(lanes, io=(None, outputs), decl=control_phase.decl)
            lane = np.arange(lanes, dtype=np.uint32)
            m.patch_of_lane = lane // max(points_out, 1)
            m.gs_inputs = m.control_points = table
            m.special[OT.OUTPUT_CONTROL_POINT_ID] = _splat(lane % max(points_out, 1))
            m.special[OT.INPUT_PRIMITIVEID] = _splat(m.patch_of_lane)
            with _as_vm_error("the control-point phase cannot run"):
                m.run(control_phase.main, control_phase.functions)
            control = outputs.reshape(out_regs, 4, patches, points_out).transpose(2, 3, 0, 1)
        else:  # pass-through: output point i is input point i
            control = np.zeros((patches, points_out, out_regs, 4), np.uint32)
            shared, registers = min(points_in, points_out), min(in_regs, out_regs)
            control[:, :shared, :registers] = table[:shared, :registers].transpose(2, 0, 1, 3)
        control = np.ascontiguousarray(control)
        vocp = np.ascontiguousarray(control.transpose(1, 2, 0, 3))  # (points, registers, patches, 4)
        constants = np.zeros((pc_regs, 4, patches), np.uint32)
        for phase in constant_phases:
            instances = phase.instances
            lanes = patches * instances
            if lanes == 0:
                continue
            outputs = np.repeat(constants, instances, axis=2)  # lane = patch * instances + instance
            m = self._machine(lanes, io=(None, outputs), decl=phase.decl)
            lane = np.arange(lanes, dtype=np.uint32)
            m.patch_of_lane = lane // instances
            m.gs_inputs = m.control_points = table
            m.output_control_points = vocp
            m.patch_constants = constants.transpose(0, 2, 1)
            m.special[INSTANCE_IDS[phase.kind]] = _splat(lane % instances)
            m.special[OT.INPUT_PRIMITIVEID] = _splat(m.patch_of_lane)
            with _as_vm_error(f"the {phase.kind} phase cannot run"):
                m.run(phase.main, phase.functions)
            constants = merge_instances(constants, outputs, instances)
        return HullOutputs(control, np.ascontiguousarray(constants.transpose(2, 0, 1)),
                           getattr(container, "output_signature", None),
                           getattr(container, "patch_constant_signature", None), d)

    def run_domain(self, control_points: Mapping[str, Any] | HullOutputs, domain: Any,
                   patch_constants: Mapping[str, Any] | None = None, patch: Any = None) -> DomainOutputs:
        """Run a domain shader over domain points. ``control_points``: (patches, control points[,
        components]) arrays by semantic or register (``v0``), or a hull shader's
        :class:`HullOutputs` (its control points and patch constants, register for register);
        ``patch_constants``: (patches[, components]) arrays by patch-constant semantic or register
        (``vpc0``); ``domain``: (n, 1 to 3) locations (u, v[, w]), vDomain. ``patch``: the patch of
        each location ((n,) indices); without it every patch runs every location, rows ordered
        patch by patch. vPrim is the patch's index. Returns :class:`DomainOutputs`."""
        if self.stage != "domain":
            raise VmError(_wrong_stage(self.stage))
        from shaderkit.vm.sm4.tessellation import MAX_WORDS, HullOutputs

        d = self.decl
        points = d.input_control_points
        in_regs = self._register_file("input_signature", d.control_point_registers)
        pc_regs = self._register_file("patch_constant_signature", d.patch_constant_registers)
        location = np.asarray(domain, np.float32)
        if location.ndim == 1:
            location = location[:, None]
        if location.ndim != 2 or not 1 <= location.shape[1] <= 3:
            raise VmError(f"domain: shape {location.shape}, expected (points, 1 to 3)")
        given_constants = dict(patch_constants or {})
        if isinstance(control_points, HullOutputs):
            bits = control_points.control_point_bits
            if bits.shape[1] != points:
                raise VmError(f"the hull shader outputs {bits.shape[1]} control points, this domain shader takes {points}")
            patches = bits.shape[0]
            feed: dict[str, Any] = {}
        else:
            feed = dict(control_points)
            patches = _count(feed, None) if feed else _count(given_constants, None) if given_constants else (
                int(np.max(patch)) + 1 if patch is not None and np.size(patch) else 1)
        if patches < 1:
            raise VmError("no patches")
        table = np.zeros((points, in_regs, patches, 4), np.uint32)
        constants = np.zeros((pc_regs, patches, 4), np.uint32)
        if isinstance(control_points, HullOutputs):
            registers = min(in_regs, bits.shape[2])
            table[:, :registers] = bits[:, :, :registers].transpose(1, 2, 0, 3)
            hull_constants = control_points.patch_constant_bits
            registers = min(pc_regs, hull_constants.shape[1])
            constants[:registers] = hull_constants[:, :registers].transpose(1, 0, 2)
        for register, start, data in self._geometry_inputs(feed, patches, points, in_regs):
            table[:, register, :, start : start + data.shape[2]] = data.transpose(1, 0, 2)
        for register, start, data in self._patch_constant_inputs(given_constants, patches, pc_regs):
            constants[register, :, start : start + data.shape[1]] = data
        if patch is None:
            patch_of_lane = np.repeat(np.arange(patches, dtype=np.uint32), len(location))
            location = np.tile(location, (patches, 1))
        else:
            which = np.asarray(patch).reshape(-1)
            if which.dtype.kind not in "iu" or len(which) != len(location):
                raise VmError(f"patch: {len(which)} {which.dtype} values, expected {len(location)} integers")
            if len(which) and (which.min() < 0 or which.max() >= patches):
                raise VmError(f"patch: indices from {which.min()} to {which.max()}, there are {patches} patches")
            patch_of_lane = which.astype(np.uint32)
        lanes = len(location)
        if lanes * max(d.outputs, 1) * 4 > MAX_WORDS:
            raise VmError(f"{lanes} domain points: more than 2^26 output words; run fewer at a time")
        where = np.zeros((lanes, 4), np.float32)
        where[:, : location.shape[1]] = location
        outputs = np.zeros((max(d.outputs, 1), 4, lanes), np.uint32)

        def prepare(m: Machine, part: slice) -> None:
            m.patch_of_lane = patch_of_lane[part]
            m.gs_inputs = m.control_points = table
            m.patch_constants = constants
            m.special[OT.INPUT_DOMAIN_POINT] = where[part].view(np.uint32)
            m.special[OT.INPUT_PRIMITIVEID] = _splat(patch_of_lane[part])

        # lanes never see each other's results: long runs go in chunks that stay in the CPU cache,
        # each with the whole run's instruction budget (as vertex runs, see _execute)
        budget = self.max_steps if self.max_steps is not None else step_limit(lanes)
        for _ in self._chunks(lanes, outputs, budget, prepare):
            pass
        result = _Results(outputs.transpose(0, 2, 1), {}, np.zeros(lanes, bool))
        return DomainOutputs(self._outputs(result, slice(None))._values, patch_of_lane.astype(np.int64), location)

    def _patch_constant_inputs(self, inputs: Mapping[str, Any], patches: int,
                               registers: int) -> list[tuple[int, int, np.ndarray]]:
        """(register, first component, (patches, width) uint32 bits) per patch constant given."""
        elements = self._elements("patch_constant_signature")
        plan = []
        for key, value in inputs.items():
            array = np.asarray(value)
            if array.ndim == 1:
                array = array[:, None]
            if array.ndim != 2 or array.shape[0] != patches:
                raise VmError(f"patch constant {key}: shape {array.shape}, expected ({patches}[, components])")
            register, start, bits = _input_slot(key, array, elements, registers, "vpc", "patch constant")
            plan.append((register, start, bits))
        return plan

    def dispatch(self, groups: Sequence[int] = (1, 1, 1)) -> None:
        """Run a compute shader over ``groups`` thread groups; results are in the bound UAVs."""
        if self.stage != "compute":
            raise VmError(_wrong_stage(self.stage))
        gx, gy, gz = (list(groups) + [1, 1, 1])[:3]
        tx, ty, tz = self.decl.thread_group
        per_group = tx * ty * tz
        total = gx * gy * gz * per_group
        if total <= 0 or total > 1 << 24:
            raise VmError(f"{total} threads: between 1 and 16,777,216 per dispatch")
        m = self._machine(total)
        lane = np.arange(total)
        group, local = lane // per_group, lane % per_group
        lx, ly, lz = local % tx, (local // tx) % ty, local // (tx * ty)
        gxi, gyi, gzi = group % gx, (group // gx) % gy, group // (gx * gy)
        m.groups, m.group_count = group, gx * gy * gz

        def vec(*columns: np.ndarray) -> np.ndarray:
            out = np.zeros((total, 4), np.uint32)
            for i, column in enumerate(columns):
                out[:, i] = column
            return out

        m.special[OT.INPUT_THREAD_ID] = vec(gxi * tx + lx, gyi * ty + ly, gzi * tz + lz)
        m.special[OT.INPUT_THREAD_GROUP_ID] = vec(gxi, gyi, gzi)
        m.special[OT.INPUT_THREAD_ID_IN_GROUP] = vec(lx, ly, lz)
        m.special[OT.INPUT_THREAD_ID_IN_GROUP_FLATTENED] = vec(local, local, local, local)
        with _as_vm_error("the program cannot run"):
            m.run(self.main, self.functions)


@contextmanager
def _as_vm_error(what: str) -> Iterator[None]:
    """Programs are untrusted: a malformed one surfaces as VmError, never IndexError and the like."""
    try:
        yield
    except VmError:
        raise
    except (IndexError, KeyError, TypeError, AttributeError, AssertionError, OverflowError, ValueError,
            ZeroDivisionError) as exc:
        raise VmError(f"{what}: {type(exc).__name__}: {exc}") from exc


def _wrong_stage(stage: str) -> str:
    runner = {"vertex": "run_vertex", "pixel": "run_pixel", "geometry": "run_geometry", "hull": "run_hull",
              "domain": "run_domain", "compute": "dispatch"}.get(stage)
    return f"this is a {stage} shader" + (f" (it runs with Shader.{runner})" if runner else "")


def _splat(values: np.ndarray) -> np.ndarray:
    """A system value per lane in all four components, (lanes, 4) uint32."""
    return np.repeat(values.astype(np.uint32)[:, None], 4, axis=1)


def _apply_inputs(m: Machine, plan: list[tuple[int, int, np.ndarray]], lanes: slice) -> None:
    for register, start, bits in plan:
        m.v[register, :, start : start + bits.shape[1]] = bits[lanes]


def _pixel_positions(lanes: int, quads: bool) -> np.ndarray:
    """Default SV_Position of pixel lanes: pixel centres, z = 0.5, w = 1. Without ``quads`` fragment
    i is pixel (i, 0) (its four lanes share it); with ``quads`` quad k covers pixels (2k..2k+1, 0..1)."""
    lane = np.arange(lanes)
    if quads:
        quad, corner = lane // 4, lane % 4
        x, y = 2 * quad + corner % 2, corner // 2
    else:
        x, y = lane // 4, np.zeros(lanes, np.int64)
    out = np.empty((lanes, 4), np.float32)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x + 0.5, y + 0.5, 0.5, 1.0
    return out


#: lanes per chunk of a long vertex or pixel run (a multiple of 4: pixel quads stay whole)
CHUNK_LANES = 65536


def step_limit(lanes: int) -> int:
    """Default instruction budget: 1,000,000 SIMD steps for few lanes, down to 100,000 for
    100,000+ lanes, so that a runaway loop stops within a few seconds to a minute."""
    return max(100_000, min(1_000_000, 10_000_000_000 // max(lanes, 1) // 1000))


def _count(inputs: Mapping[str, Any], count: int | None) -> int:
    if count is not None:
        return count
    for value in inputs.values():
        return len(np.asarray(value))
    raise VmError("give inputs or a count")


def _packed(values: np.ndarray, shader_type: Any) -> bytes:
    """A variable's bytes in cbuffer packing: matrices and arrays take one 16-byte row per element."""
    rows = max(int(shader_type.rows), 1)
    columns = max(int(shader_type.columns), 1)
    elements = max(int(shader_type.elements), 1)
    flat = values.reshape(-1)
    if rows == 1 and elements == 1:
        return flat.tobytes()
    # column-major matrices (fxc's default, variable_class 3) are stored transposed
    per = rows * columns
    out = bytearray()
    for e in range(elements):
        chunk = flat[e * per : (e + 1) * per]
        if chunk.size == 0:
            break
        matrix = chunk.reshape(rows, columns) if chunk.size == per else chunk.reshape(1, -1)
        if int(shader_type.variable_class) == 3:
            matrix = matrix.T
        for row in matrix:
            padded = np.zeros(4, dtype=row.dtype)
            padded[: len(row)] = row
            out += padded.tobytes()
    return bytes(out)

"""Geometry shaders: ``emit``/``cut`` into per-lane vertex streams, and the streams as arrays.

One lane runs one (primitive, instance) pair; lane ``p * instances + i`` is primitive ``p``'s
instance ``i``, the order in which D3D writes their output. ``emit`` (``emit_stream mN``) appends
the current ``o#`` values to the lane's stream; ``cut`` ends the current strip; ``emitThenCut``
does both. Vertices past ``dcl_maxout`` are dropped (D3D discards them), and the output registers
keep their values after an emit (D3D leaves them undefined). :class:`GeometryOutputs` gives one
stream's vertices in output order with the primitive, instance and strip of each, and assembles
them into points, lines or triangles by the declared output topology.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.isa.sm4.model import Instruction
from shaderkit.isa.sm4.opcodes import OPCODES, PRIMITIVE_TOPOLOGIES
from shaderkit.vm.sm4.outputs import NamedOutputs

if TYPE_CHECKING:
    from shaderkit.vm.sm4.machine import Machine

#: dcl_inputprimitive code -> vertices per input primitive (patches: their control points)
INPUT_VERTICES = {1: 1, 2: 2, 3: 3, 6: 4, 7: 6, **{8 + n: n + 1 for n in range(32)}}
#: D3D11 limits: output vertices per invocation, instances, streams
MAX_OUTPUT_VERTICES, MAX_INSTANCES, STREAMS = 1024, 32, 4


class Streams:
    """Emitted vertices of every lane: ``vertices[s]`` (lanes, maxout, registers, 4) uint32,
    ``counts[s]`` (lanes,) and the strip number of each vertex ``strips[s]`` (lanes, maxout)."""

    def __init__(self, lanes: int, max_vertices: int, registers: int, streams: int) -> None:
        self.max_vertices = max_vertices
        self.vertices = [np.zeros((lanes, max_vertices, registers, 4), np.uint32) for _ in range(streams)]
        self.counts = [np.zeros(lanes, np.int64) for _ in range(streams)]
        self.strips = [np.zeros((lanes, max_vertices), np.int64) for _ in range(streams)]
        self.current = [np.zeros(lanes, np.int64) for _ in range(streams)]


def _stream(m: Machine, ins: Instruction) -> int:
    if not ins.operands:
        return 0
    number = ins.operands[0].indices[0].value if ins.operands[0].indices else 0
    if m.streams is None or not 0 <= number < len(m.streams.vertices):
        raise_vm(f"stream m{number} is not declared")
    return int(number)


def raise_vm(message: str) -> None:
    """Raise VmError(``message``) (imported late: machine imports this module)."""
    from shaderkit.vm.sm4.machine import VmError

    raise VmError(message)


def _emit(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    streams = m.streams
    if streams is None:
        raise_vm("emit outside a geometry shader")
        return
    s = _stream(m, ins)
    counts = streams.counts[s]
    lanes = np.nonzero(active & (counts < streams.max_vertices))[0]
    slots = counts[lanes]
    streams.vertices[s][lanes, slots] = m.o[:, lanes, :].transpose(1, 0, 2)
    streams.strips[s][lanes, slots] = streams.current[s][lanes]
    counts[active] += 1  # counted even when dropped, so that a later cut still starts a new strip
    if OPCODES[ins.opcode].name.startswith("emitThenCut"):
        _cut(m, ins, active)


def _cut(m: Machine, ins: Instruction, active: np.ndarray) -> None:
    streams = m.streams
    if streams is None:
        raise_vm("cut outside a geometry shader")
        return
    s = _stream(m, ins)
    streams.current[s][active] += 1


HANDLERS = {"emit": _emit, "emit_stream": _emit, "emitThenCut": _emit, "emitThenCut_stream": _emit,
            "cut": _cut, "cut_stream": _cut}


class GeometryOutputs(NamedOutputs):
    """One stream of a geometry-shader run: every emitted vertex in output order (primitive, then
    instance, then emission), by semantic (typed) and by register (``o0``, uint32 bits (n, 4)).

    ``primitive``, ``instance``, ``strip`` (numbered from 0 over the whole output) give each
    vertex's origin; ``topology`` is the declared output topology; :meth:`primitives` assembles
    the strips into points, lines or triangles as index arrays into the vertices."""

    def __init__(self, values: dict[str, np.ndarray], primitive: np.ndarray, instance: np.ndarray,
                 strip: np.ndarray, topology: str) -> None:
        super().__init__(values)
        self.primitive, self.instance, self.strip, self.topology = primitive, instance, strip, topology

    def primitives(self) -> np.ndarray:
        """(k, 1 | 2 | 3) vertex indices: every vertex for point lists; consecutive pairs inside a
        strip for line strips; for triangle strips triangle j of a strip is (j, j+1, j+2) for even j
        and (j+1, j, j+2) for odd j, D3D's order that keeps the winding."""
        per = {"pointlist": 1, "linestrip": 2, "trianglestrip": 3}.get(self.topology)
        if per is None:
            raise ValueError(f"no primitive assembly for output topology {self.topology!r}")
        rows: list[list[int]] = []
        start = 0
        n = len(self.strip)
        while start < n:
            end = start
            while end < n and self.strip[end] == self.strip[start]:
                end += 1
            for j in range(end - start - per + 1):
                first = start + j
                if per == 3 and j % 2:
                    rows.append([first + 1, first, first + 2])
                else:
                    rows.append(list(range(first, first + per)))
            start = end
        return np.array(rows, np.int64).reshape(-1, per)


def outputs(streams: Streams, stream: int, instances: int, registers: list[tuple[str, int, list[int], Any]],
            topology_code: int) -> GeometryOutputs:
    """Flatten one stream: lanes in order, each lane's kept vertices in emission order."""
    counts = np.minimum(streams.counts[stream], streams.max_vertices)
    lanes = np.repeat(np.arange(len(counts)), counts)
    slots = np.arange(len(lanes)) - np.repeat(np.cumsum(counts) - counts, counts)
    vertices = streams.vertices[stream][lanes, slots]  # (n, registers, 4)
    raw_strip = streams.strips[stream][lanes, slots]
    # one strip number per (lane, strip) pair, counted in output order
    new = np.ones(len(lanes), bool)
    new[1:] = (lanes[1:] != lanes[:-1]) | (raw_strip[1:] != raw_strip[:-1])
    strip = np.cumsum(new) - 1 if len(lanes) else np.zeros(0, np.int64)
    values: dict[str, np.ndarray] = {}
    for register in range(vertices.shape[1]):
        values[f"o{register}"] = vertices[:, register]
    for key, register, comps, dtype in registers:
        if register < vertices.shape[1]:
            values[key] = np.ascontiguousarray(vertices[:, register][:, comps]).view(dtype)
    topology = PRIMITIVE_TOPOLOGIES.get(topology_code, "undefined")
    return GeometryOutputs(values, lanes // instances, lanes % instances, strip, topology)

"""Aon9 / XNAS / XNAP: the Direct3D 9 program of a ``*_level_9_*`` shader and its register maps.

Payload: ``u32 size`` (of the payload), ``u32 d3d9 version token``, ``u32 program size``,
``u32 program offset``, then five (u16 count, u16 offset) pairs: constant-buffer mappings,
loop-register mappings, an unused table, sampler mappings, runtime constant mappings; the
tables; and the D3D9 token stream, which ends the payload.

* constant-buffer mapping (12 bytes): u16 buffer, start register, register count, target
  register, then 4 data-conversion bytes (0 FLT, 2 INT, 3 UINT);
* loop-register mapping (8 bytes): u16 buffer, source register, component, target ``i#``
  register (a ``vs_4_0_level_9_*`` loop counter read from a constant buffer; fxc lists
  ``i0 cb1 0 0`` above the constant-buffer table);
* sampler mapping (4 bytes): u8 source resource, source sampler, target sampler, reserved (fxc
  lists ``s1 s0 t2`` for the bytes 2 0 1 0: Effects11 DynamicShaderLinkage listing);
* runtime constant (4 bytes): u16 description (0 = vertex shader position offset), target.

fxc writes the sampler table first, then the constant-buffer table, then the loop-register
table, then the runtime constants, then the program; an empty table points where it would have
started (the unused table where the loop-register table starts).
:meth:`Level9Shader.build` uses that layout for a new chunk; a parsed one keeps its layout
(where each table lay, the offset words of the unused tables, bytes nothing covers) and puts
unchanged items back. The unused table is empty in every file seen; payloads using it are kept
as raw chunks by the container.
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass, field
from shaderkit.formats.dxbc.common import (
    Relayout,
    close_layout,
    placed_build,
    read_with_deferred_layout,
    record_table,
)
from shaderkit.io.layout import Layout, PlacedWriter
from shaderkit.io.reader import Reader

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_HEAD = struct.Struct("<4I10H")
#: data conversions of the constant-buffer mappings, as fxc names them
CONVERSIONS = {0: "FLT", 1: "BOOL", 2: "INT", 3: "UINT"}
#: runtime constant descriptions, as fxc names them
RUNTIME_CONSTANTS = {0: "Vertex Shader position offset"}
_CB = struct.Struct("<4H4B")
_SAMPLER = struct.Struct("<4B")
_RUNTIME = struct.Struct("<2H")
_LOOP = struct.Struct("<4H")


@dataclass
class ConstantBufferMapping:
    """Aon9: D3D9 constant registers ``target_register``.. take ``register_count`` registers of constant buffer ``buffer`` from ``start_register``."""
    buffer: int
    start_register: int
    register_count: int
    target_register: int
    conversions: tuple[int, int, int, int] = (0, 0, 0, 0)


@dataclass
class LoopRegisterMapping:
    """Aon9: D3D9 integer register ``i<target_register>`` is component ``component`` of register
    ``source_register`` of constant buffer ``buffer``."""
    buffer: int
    source_register: int
    component: int
    target_register: int


@dataclass
class SamplerMapping:
    """Aon9: D3D9 sampler ``target_sampler`` is D3D10 sampler/resource ``source_sampler``/``source_resource``."""
    target_sampler: int
    source_sampler: int
    source_resource: int
    reserved: int = 0


@dataclass
class RuntimeConstantMapping:
    """Aon9: a runtime constant (``description``) placed in D3D9 register ``target_register``."""
    description: int
    target_register: int


@dataclass
class Level9Shader:
    """An Aon9/XNAS/XNAP chunk: the D3D9 shader of a 9_x feature level and its register mappings."""
    #: build_fresh writes every field of the model: a fresh build equal to the stored payload is what
    #: the placed build gives (the container tries it first, see container._payload)
    FRESH_WRITES_EVERY_FIELD = True
    fourcc: str = "Aon9"
    #: D3D9 version token (``0xFFFF0200`` = ps_2_0, ``0xFFFE0200`` = vs_2_0)
    version: int = 0xFFFF0200
    constant_buffer_mappings: list[ConstantBufferMapping] = field(default_factory=list)
    sampler_mappings: list[SamplerMapping] = field(default_factory=list)
    runtime_constant_mappings: list[RuntimeConstantMapping] = field(default_factory=list)
    #: the D3D9 token stream (version token first)
    program: bytes = b""
    loop_register_mappings: list[LoopRegisterMapping] = field(default_factory=list)
    #: where the parsed items lay (None for a new chunk: fxc's layout is used)
    layout: Layout | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def understood(r: Reader) -> bool:
        """True when the payload uses only the tables this model knows."""
        if r.remaining < _HEAD.size:
            return False
        head = _HEAD.unpack_from(r.data, r.pos)
        return head[8] == 0

    @classmethod
    def parse(cls, r: Reader, fourcc: str = "Aon9") -> Level9Shader:
        """Parse the chunk payload under ``r``; ShaderFormatError for sizes and offsets outside it.

        The layout is recorded when first used (:func:`~.common.read_with_deferred_layout`).
        """
        return read_with_deferred_layout(r, lambda again, layout: cls._read(again, fourcc, layout))

    @classmethod
    def _read(cls, r: Reader, fourcc: str, layout: Layout | None) -> Level9Shader:
        """The chunk under ``r``, recording where its items lay in ``layout`` (closed at the end) unless None."""
        base = r.start
        (size, version, prog_size, prog_off, cb_count, cb_off, loop_count, loop_off, _, _, smp_count, smp_off,
         rt_count, rt_off) = r.unpack_at(base, _HEAD.format[1:], "Aon9 header")
        model = cls(fourcc, version)
        if size != r.end - base:
            raise r.error(f"payload size field {size} differs from the chunk size {r.end - base}", base)

        record_table(r, layout, "header", 0, _HEAD.size)

        def table(count: int, offset: int, st: struct.Struct, what: str) -> list[tuple[int, ...]]:
            r.check_count(count, st.size, what, base + offset)
            record_table(r, layout, what, offset, count * st.size)
            return list(st.iter_unpack(r.data[base + offset : base + offset + count * st.size]))

        for buf, start, count, target, *conv in table(cb_count, cb_off, _CB, "constant buffer mappings"):
            model.constant_buffer_mappings.append(
                ConstantBufferMapping(buf, start, count, target, (conv[0], conv[1], conv[2], conv[3])))
        model.loop_register_mappings = [LoopRegisterMapping(*v)
                                        for v in table(loop_count, loop_off, _LOOP, "loop register mappings")]
        model.sampler_mappings = [SamplerMapping(target, sampler, resource, reserved) for resource, sampler, target, reserved
                                  in table(smp_count, smp_off, _SAMPLER, "sampler mappings")]
        model.runtime_constant_mappings = [RuntimeConstantMapping(*v)
                                           for v in table(rt_count, rt_off, _RUNTIME, "runtime constants")]
        if prog_off + prog_size != size:
            raise r.error(f"program of {prog_size} bytes at {prog_off:#x} does not end the payload", base + 8)
        model.program = r.sub(base + prog_off, prog_size, "program").read(prog_size)
        if layout is not None:
            layout.record("program", prog_off, model.program)
            model.layout = close_layout(layout, r, _HEAD.size)
        return model

    def build(self) -> bytes:
        """The chunk payload bytes (parsed items put back where they lay)."""
        return placed_build(self.layout, self.build_fresh, self._build_placed)

    def _build_placed(self, w: PlacedWriter) -> None:
        assert self.layout is not None
        head = _HEAD.unpack(self.layout.items["header"].data)
        smp_off = w.place("sampler mappings", b"".join(
            _SAMPLER.pack(s.source_resource, s.source_sampler, s.target_sampler, s.reserved)
            for s in self.sampler_mappings))
        cb_off = w.place("constant buffer mappings", b"".join(
            _CB.pack(c.buffer, c.start_register, c.register_count, c.target_register, *c.conversions)
            for c in self.constant_buffer_mappings))
        loops = b"".join(_LOOP.pack(m.buffer, m.source_register, m.component, m.target_register)
                         for m in self.loop_register_mappings)
        loop_off = w.place("loop register mappings", loops)
        rt_off = w.place("runtime constants", b"".join(
            _RUNTIME.pack(m.description, m.target_register) for m in self.runtime_constant_mappings))
        prog_off = w.place("program", self.program)
        if prog_off + len(self.program) != w.end:
            raise Relayout("the program must end the payload")
        # the unused table is empty; its offset word stays as stored
        w.put(0, _HEAD.pack(w.end, self.version, len(self.program), prog_off, len(self.constant_buffer_mappings),
                            cb_off, len(self.loop_register_mappings), loop_off, 0, head[9],
                            len(self.sampler_mappings), smp_off,
                            len(self.runtime_constant_mappings), rt_off))

    def build_fresh(self) -> bytes:
        """The payload in fxc's layout."""
        smp_off = _HEAD.size
        cb_off = smp_off + _SAMPLER.size * len(self.sampler_mappings)
        loop_off = cb_off + _CB.size * len(self.constant_buffer_mappings)
        rt_off = loop_off + _LOOP.size * len(self.loop_register_mappings)
        prog_off = rt_off + _RUNTIME.size * len(self.runtime_constant_mappings)
        out = bytearray(_HEAD.pack(
            prog_off + len(self.program), self.version, len(self.program), prog_off,
            len(self.constant_buffer_mappings), cb_off, len(self.loop_register_mappings), loop_off, 0, loop_off,
            len(self.sampler_mappings), smp_off, len(self.runtime_constant_mappings), rt_off))
        for s in self.sampler_mappings:
            out += _SAMPLER.pack(s.source_resource, s.source_sampler, s.target_sampler, s.reserved)
        for c in self.constant_buffer_mappings:
            out += _CB.pack(c.buffer, c.start_register, c.register_count, c.target_register, *c.conversions)
        for loop in self.loop_register_mappings:
            out += _LOOP.pack(loop.buffer, loop.source_register, loop.component, loop.target_register)
        for m in self.runtime_constant_mappings:
            out += _RUNTIME.pack(m.description, m.target_register)
        return bytes(out + self.program)

    @property
    def profile(self) -> str:
        """``ps_2_0``-style name of the D3D9 version token (:func:`shaderkit.isa.d3d9.text.version_name`)."""
        from shaderkit.isa.d3d9.text import version_name

        return version_name(self.version)

    def summary(self) -> dict[str, Any]:
        """Profile, program size in bytes and the mapping tables, JSON-ready."""
        return {
            "profile": self.profile,
            "program_size": len(self.program),
            "constant_buffer_mappings": [vars(m) for m in self.constant_buffer_mappings],
            "sampler_mappings": [vars(m) for m in self.sampler_mappings],
            "runtime_constant_mappings": [vars(m) for m in self.runtime_constant_mappings],
            "loop_register_mappings": [vars(m) for m in self.loop_register_mappings],
        }

    @property
    def data(self) -> bytes:
        """The payload bytes (for readers that decode the program themselves)."""
        return self.build()


def bare_programs(container: Any) -> Iterator[tuple[int, Level9Shader]]:
    """(chunk index, chunk) of each level-9 chunk (Aon9/XNAS/XNAP) of a DXBC container whose
    program is a bare D3D9 vs/ps shader, as format "d3d9" detects it (the "LP"/"LV" programs of
    library functions are not: they exist only inside DXBC libraries)."""
    from shaderkit.formats.d3d9.shader import sniff

    for k, chunk in enumerate(getattr(container, "chunks", ())):
        payload = getattr(chunk, "payload", chunk)
        if isinstance(payload, Level9Shader) and sniff(payload.program):
            yield k, payload

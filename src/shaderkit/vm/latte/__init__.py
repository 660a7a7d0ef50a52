"""Run Wii U Latte (R600/R700, GPU7) shaders on the CPU with NumPy, SIMD across lanes.

One lane is one vertex (vertex shader) or one pixel (pixel shader); all lanes of a run form one
wavefront that shares the control-flow program counter, and diverge through per-lane masks and
the R700 stack exactly as AMD's "R700-Family Instruction Set Architecture" describes it (see
``machine.py``). Registers hold 32-bit patterns (128 GPRs x 4 channels per lane); each ALU
opcode reads them as float, int or uint as its row in ``semantics.py`` says.

Usage::

    shader = LatteShader.from_gsh(gsh_model, 0)          # or from_sharcfb / from_gx2 / from_code
    result = shader.run({"in_pos": positions_nx4, "in_color": colors_nx4},
                        uniforms={"u_xform": [1, 1, 0, 0]}, textures={0: Texture.of(image)})
    result.pos[0], result.param[1], result.pix[0]       # (lanes, 4) float32 per export

Inputs are given per GPR (``"R3"``), by vertex attribute name (the GSH's attribute list and
SQ_VTX_SEMANTIC give the GPR; CALL_FS then does nothing), by pixel-shader input semantic
(``"semantic2"``: the SPI_PS_INPUT_CNTL entry with that semantic gives the GPR; inputs not given
take the entry's DEFAULT_VAL), or ``"position"`` (SPI_PS_IN_CONTROL_0.POSITION_ADDR). Pixel
shaders on the R700 read inputs the SPI has already interpolated into GPRs, so the VM takes the
interpolated values; there are no INTERP_* opcodes in this ISA. A vertex shader's R0.x starts
as the lane number (the vertex index the fetch shader reads) unless R0 is given. Giving
``fetch_shader=`` (fetch-shader program bytes or a :class:`LatteShader`) with ``buffers=`` runs
a real fetch shader at CALL_FS instead (it ends with RETURN; its SEMANTIC fetches land in the GPRs
the vertex shader's SQ_VTX_SEMANTIC registers give, unmapped semantics are dropped).

Choices (documented, tested where they can be):

* Float arithmetic is IEEE float32 with denormals kept (the hardware flushes some).
* Killed lanes stop executing and exporting at once (VALID_PIXEL_MODE and helper pixels are
  not modelled); WHOLE_QUAD_MODE and BARRIER have no effect; bank swizzles do not change values.
* JUMP, PUSH, ELSE, LOOP_BREAK and LOOP_CONTINUE jump (popping POP_COUNT entries) only when no
  lane is left active, as the hardware does; POP never jumps (Mesa always points its ADDR at the
  next instruction). ELSE flips the branch mask of the lanes that were active at the matching
  push. PUSH_ELSE pushes, then applies ELSE; POP_PUSH(_ELSE) and POP_JUMP pop first.
* Loops: LOOP_START reads SQ_LOOP_CONST ``CF_CONST`` (count bits 0-11, initial AL 12-23,
  signed increment 24-31); LOOP_START_NO_AL leaves AL alone; LOOP_START_DX10 ignores the count
  and runs until every lane has left the loop. Loop constants default to the shader's loop
  variables (offset = constant index). LOOP_BREAK / LOOP_CONTINUE / ALU_BREAK / ALU_CONTINUE
  park lanes in separate break/continue masks, so a later POP does not revive them.
* MOVA* write AR (per channel, clamped to [-256, 255]; MOVA rounds to nearest even,
  MOVA_FLOOR floors) and PV; their GPR write is skipped (undefined on the hardware). AR and
  the predicate change at the end of the group.
* Relative GPR indexes are clamped to R0-R127; relative constant reads outside the table read 0.
  KC0/KC1[n] past the window KCACHE_MODE locks (LOCK_1: 16 constants, LOCK_2 and
  LOCK_LOOP_INDEX: 32) raise VMError.
* Reductions (DOT4, DOT4_IEEE, MAX4, CUBE) need all four vector slots; every slot writes the
  result (CUBE: its own component) and PV gets it in all four channels.
* PRED_SEL: the instruction writes only lanes whose predicate matches; PV is written anyway.
* Textures: decoded texel arrays (:class:`Texture`), nearest or bilinear filtering with the
  nearest mip level; implicit-LOD SAMPLE uses LOD 0 + bias unless ``quads=True``, when lanes
  4k..4k+3 form 2x2 quads (TL, TR, BL, BR) whose differences give gradients (also for
  GET_GRADIENTS_H/V). Cube maps take face coordinates in [1, 2] and the face index in Z, as
  the CUBE + MULADD(+1.5) sequence of the compilers leaves them. Cube-map arrays
  (``cube_array``, 6N faces) sample the cube SET_CUBEMAP_INDEX chose: its source X as a float,
  rounded to the nearest cube and clamped, per lane and texture until set again, 0 before
  (Cemu's and Mesa r600's rule, ``fetch.set_cubemap_index``; decaf ignores the instruction); a
  plain cube map is an array of one cube. FETCH4 gathers the X of the 2x2 texels bilinear
  filtering would weigh at level 0, in the order (i1, j0), (i0, j1), (i1, j1), (i0, j0) (Cemu's
  and Mesa r600's, ``fetch.FETCH4_ORDER``). SAMPLE_C* compare W (SAMPLE_C_L
  and SAMPLE_C_LB, whose W is the LOD or bias: Z; 1D and 2D textures only) with the texel's X
  and return the filtered pass fraction in all four channels.
* Vertex fetches decode DATA_FORMAT / NUM_FORMAT_ALL / FORMAT_COMP_ALL from the instruction
  (USE_CONST_FIELDS: from the :class:`VertexBuffer`), undo ENDIAN_SWAP 8IN16/8IN32 (Wii U
  buffers are big-endian in memory), fill missing components with (0, 0, 0, 1); bytes outside a
  buffer read 0. The 1 of a missing W and of DST_SEL 1 is integer 1 for the INT number format
  of an integer data format and 1.0 otherwise (``fetch.one_bits`` decides both). Fetches from buffer 128 + n read uniform block n (16 bytes per element).
* Memory exports (MEM_STREAM*, MEM_RING, MEM_SCRATCH, MEM_REDUCTION, MEM_EXPORT) and
  EMIT/CUT_VERTEX are recorded, not applied to any memory.
* ALU_EXT (an Evergreen encoding with two more KCACHE banks) runs as ALU with banks 0 and 1;
  WAIT_ACK / TEX_ACK / VTX_ACK / VTX_TC_ACK and NOP do nothing; CALL_COUNT is not checked.
* Lanes run in waves of ``CHUNK_LANES``; each wave has its own program counter (as the GPU's
  wavefronts do), so a uniform jump taken by one wave and not another gives the same result.

* 64-bit floats (ADD_64, MUL_64, FLT32_TO_FLT64, FLT64_TO_FLT32, FRACT_64, FREXP_64, LDEXP_64,
  PRED_SETE/GT/GE_64) are IEEE doubles held as word pairs over two vector slots (MUL_64 and
  FREXP_64: four), laid out as Mesa's r600 compiler emits them (``Machine.wide`` in machine.py).

Not executable (VMError names them): MULADD_64*, the DX9 predicate-counter opcodes
(PRED_SET_INV/POP/CLR/RESTORE and PRED_SET*_PUSH*), Evergreen-only opcodes, RECIP_INT, MUL_LIT*,
and the texture instructions listed in ``fetch.UNSUPPORTED_TEX``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from shaderkit.dataclass import dataclass, field
from shaderkit.isa.latte import table as T
from shaderkit.isa.latte.table import layout
from shaderkit.isa.latte.words import packer, unpacker
from shaderkit.vm.latte.fetch import Sampler, Texture, VertexBuffer
from shaderkit.vm.latte.machine import (
    DEFAULT_MAX_STEPS,
    GPRS,
    Env,
    MemWrite,
    Program,
    VMError,
    Wave,
    run_program,
)
from shaderkit.vm.latte.semantics import F32, U32, executable_ops

if TYPE_CHECKING:
    from shaderkit.formats.gx2.shader import GX2Shader

__all__ = ["LatteShader", "RunResult", "Texture", "Sampler", "VertexBuffer", "VMError", "MemWrite",
           "DEFAULT_MAX_STEPS", "executable_ops"]

# -- GX2 register fields (AMD's R600 register reference) ------------------------------------------
_PS_INPUT_CNTL = unpacker((layout(("SEMANTIC", 0, 8), ("DEFAULT_VAL", 8, 2), ("FLAT_SHADE", 10, 1)),))
_PS_IN_CONTROL_0 = unpacker((layout(("NUM_INTERP", 0, 6), ("POSITION_ENA", 8, 1),
                                    ("POSITION_ADDR", 10, 5)),))
_VS_OUT_ID = unpacker((layout(("SEMANTIC_0", 0, 8), ("SEMANTIC_1", 8, 8), ("SEMANTIC_2", 16, 8),
                              ("SEMANTIC_3", 24, 8)),))
_VTX_SEMANTIC = unpacker((layout(("SEMANTIC_ID", 0, 8)),))
_LOOP_CONST = packer((T.SQ_LOOP_CONST,))
#: the SQ_LOOP_CONST fields a ``(count, init, increment)`` tuple gives, and their masks
_LOOP_CONST_FIELDS = tuple((name, (1 << width) - 1) for name, _, width in T.SQ_LOOP_CONST
                           if not name.startswith("RESERVED"))
#: DEFAULT_VAL of SPI_PS_INPUT_CNTL: the value of an input no vertex shader output feeds
PS_DEFAULT_VALUES = {0: (0.0, 0.0, 0.0, 0.0), 1: (0.0, 0.0, 0.0, 1.0), 2: (1.0, 1.0, 1.0, 0.0),
                     3: (1.0, 1.0, 1.0, 1.0)}
UNUSED_SEMANTIC = 0xFF
#: lanes per wave: 2 KiB of registers each, so a wave stays near 32 MiB (a multiple of 4 for quads)
CHUNK_LANES = 1 << 14
#: runs of up to this many lanes keep their final registers by default
KEEP_REGISTERS_LANES = 1 << 16
UNIFORM_REGISTERS = 256


@dataclass
class RunResult:
    """What one run produced. Exports are (lanes, 4) float32 arrays keyed by index: ``pos``
    (POS0-3), ``param`` (PARAM n), ``pix`` (PIX n; 61 is depth); lanes that never wrote an
    export read 0. ``param_semantics`` maps PARAM index -> semantic id (SPI_VS_OUT_ID)."""

    lanes: int
    pos: dict[int, np.ndarray]
    param: dict[int, np.ndarray]
    pix: dict[int, np.ndarray]
    killed: np.ndarray
    steps: int  # the most steps any wave took
    memory: list[MemWrite] = field(default_factory=list)
    emits: list[tuple[str, np.ndarray]] = field(default_factory=list)
    param_semantics: dict[int, int] = field(default_factory=dict)
    #: the final register file of each wave, in lane order: (128, 4, wave lanes) uint32 (kept as the
    #: waves left them: a register is put together only when asked for)
    register_waves: list[np.ndarray] = field(default_factory=list, repr=False)

    def register(self, index: int) -> np.ndarray:
        """The final value of GPR ``index`` as (lanes, 4) float32 (use ``.view(np.int32)`` for ints)."""
        if not 0 <= index < GPRS:
            raise VMError(f"no register R{index} (R0-R127)")
        if sum(wave.shape[2] for wave in self.register_waves) != self.lanes:
            raise VMError("this run did not keep its registers (run with keep_registers=True)")
        return np.concatenate([wave[index].T for wave in self.register_waves]).view(F32)

    @property
    def gpr_bits(self) -> np.ndarray:
        """Every final register of every lane: (lanes, 128, 4) uint32 ((0, 128, 4) when not kept)."""
        if not self.register_waves:
            return np.zeros((0, GPRS, 4), U32)
        return np.concatenate([wave.transpose(2, 0, 1) for wave in self.register_waves])

    def varyings(self) -> dict[int, np.ndarray]:
        """Vertex-shader PARAM exports by semantic id, ready for a pixel shader's ``semantic<n>``."""
        return {sem: self.param[i] for i, sem in self.param_semantics.items() if i in self.param}

    @property
    def position(self) -> np.ndarray:
        """POS0 (the clip-space position of a vertex shader)."""
        if 0 not in self.pos:
            raise VMError("the shader exported no POS0")
        return self.pos[0]


def _array(value: Any, integer: bool = False) -> np.ndarray:
    """Plain Python numbers are floats (ints for ``integer``); NumPy arrays keep their type."""
    if isinstance(value, np.ndarray):
        return value
    return np.asarray(value, dtype=np.int64 if integer else F32)


def _bits(value: Any, n: int, what: str) -> np.ndarray:
    """(n, k <= 4) uint32 bits of an input (a view where it can be: read only): float values
    become float32 bits, NumPy integer arrays keep their integer bits; shapes (n,), (n, k<=4),
    (k<=4,) (every lane)."""
    a = _array(value)
    if a.dtype.kind in "iu":
        bits = (a.astype(np.int64).astype(np.uint64).astype(np.uint32) if a.dtype.kind == "i"
                else a.astype(U32, copy=False))
    elif a.dtype.kind in "fb":
        bits = a.astype(F32, copy=False).view(U32)  # read only: copied into the result below
    else:
        raise VMError(f"{what}: values of type {a.dtype} are not numbers")
    if bits.ndim == 1 and bits.shape[0] <= 4 and n != bits.shape[0]:
        bits = np.broadcast_to(bits, (n, bits.shape[0]))
    if bits.ndim == 1:
        bits = bits[:, None]
    if bits.ndim != 2 or bits.shape[1] > 4 or bits.shape[0] not in (1, n):
        raise VMError(f"{what}: shape {a.shape} does not fit {n} lanes of up to 4 components")
    return np.broadcast_to(bits, (n, bits.shape[1]))


def _words(value: Any, what: str, integer: bool = False) -> np.ndarray:
    """Flat uint32 words of uniform data: bytes are big-endian words (as in Wii U memory);
    plain numbers are floats (ints for ``integer``), NumPy arrays keep their type."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        if len(data) % 4:
            raise VMError(f"{what}: {len(data)} bytes is not a whole number of 32-bit words")
        return np.frombuffer(data, ">u4").astype(U32)
    a = _array(value, integer)
    if a.dtype.kind in "iu":
        return a.astype(np.int64).astype(np.uint64).astype(np.uint32).reshape(-1)
    if a.dtype.kind in "fb":
        return a.astype(F32).reshape(-1).view(U32)
    raise VMError(f"{what}: values of type {a.dtype} are not numbers")


class LatteShader:
    """One Latte program, ready to run (vertex, pixel or geometry stage), with its GX2 reflection."""

    def __init__(self, code: bytes, stage: str = "vertex", shader: GX2Shader | None = None) -> None:
        if stage not in ("vertex", "pixel", "geometry"):
            raise VMError(f"stage {stage!r}: expected vertex, pixel or geometry")
        self.program = Program(bytes(code))
        self.stage = stage
        self.shader = shader
        self._ps_inputs: list[dict[str, int]] | None = None

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_code(cls, code: bytes, stage: str = "vertex") -> LatteShader:
        """A shader from bare program bytes (no reflection: inputs by GPR, uniforms by C<n>)."""
        return cls(code, stage)

    @classmethod
    def from_gx2(cls, shader: GX2Shader) -> LatteShader:
        """A shader from a GX2 vertex/pixel/geometry shader struct (GSH, SHARCFB, BFSHA)."""
        return cls(shader.program, shader.STAGE, shader)

    @classmethod
    def from_gsh(cls, model: Any, index: int = 0) -> LatteShader:
        """Shader ``index`` of a GSH model (``Gsh.shaders`` order)."""
        shaders = model.shaders
        if not 0 <= index < len(shaders):
            raise VMError(f"shader {index}: the GSH has {len(shaders)} shaders")
        return cls.from_gx2(shaders[index])

    @classmethod
    def from_sharcfb(cls, model: Any, program: str | int, stage: str = "vertex",
                     settings: Mapping[str, str] | None = None) -> LatteShader:
        """The ``stage`` binary of a SHARCFB program's variation for macro ``settings``."""
        try:
            prog = model.programs[program]
            variation = prog.variation(dict(settings or {}))
        except (KeyError, IndexError, ValueError) as exc:
            raise VMError(f"SHARCFB program {program!r}: {exc}") from None
        binary = variation.binaries.get(stage)
        if binary is None:
            raise VMError(f"SHARCFB program {program!r} has no {stage} binary")
        return cls.from_gx2(binary.shader)

    # -- reflection --------------------------------------------------------------------------
    def input_registers(self) -> dict[str, int]:
        """Input names -> GPR: vertex attributes (SQ_VTX_SEMANTIC), pixel ``semantic<n>`` and
        ``position`` (SPI_PS_INPUT_CNTL, SPI_PS_IN_CONTROL_0)."""
        out: dict[str, int] = {}
        s = self.shader
        if s is None:
            return out
        regs = s.regs
        if self.stage == "vertex" and hasattr(regs, "sq_vtx_semantic"):
            gpr_of = self.semantic_registers()
            for attrib in s.attrib_vars:
                if attrib.location in gpr_of:
                    out[attrib.name] = gpr_of[attrib.location]
                    for k in range(1, max(attrib.count, 1)):
                        if attrib.location + k in gpr_of:
                            out[f"{attrib.name}[{k}]"] = gpr_of[attrib.location + k]
        elif self.stage == "pixel" and hasattr(regs, "spi_ps_input_cntls"):
            for i, cntl in enumerate(self.ps_input_controls()):
                out.setdefault(f"semantic{cntl['SEMANTIC']}", i)
            ctl = _PS_IN_CONTROL_0((regs.spi_ps_in_control_0,))
            if ctl["POSITION_ENA"]:
                out["position"] = ctl["POSITION_ADDR"]
        return out

    def ps_input_controls(self) -> list[dict[str, int]]:
        """Pixel shader: the decoded SPI_PS_INPUT_CNTL_n in use (input n is in GPR n); decoded once."""
        if self._ps_inputs is None:
            s = self.shader
            self._ps_inputs = [] if s is None or self.stage != "pixel" or not hasattr(s.regs, "spi_ps_input_cntls") \
                else [_PS_INPUT_CNTL((w,)) for w in s.regs.spi_ps_input_cntls[: s.regs.num_spi_ps_input_cntl]]
        return self._ps_inputs

    def semantic_registers(self) -> dict[int, int]:
        """Vertex shader: semantic id -> GPR (SQ_VTX_SEMANTIC_n maps semantic to R(n + 1))."""
        s = self.shader
        out: dict[int, int] = {}
        if s is None or self.stage != "vertex" or not hasattr(s.regs, "sq_vtx_semantic"):
            return out
        for i, word in enumerate(s.regs.sq_vtx_semantic[: s.regs.num_sq_vtx_semantic]):
            sem = _VTX_SEMANTIC((word,))["SEMANTIC_ID"]
            if sem != UNUSED_SEMANTIC:
                out.setdefault(sem, i + 1)
        return out

    def param_semantics(self) -> dict[int, int]:
        """PARAM export index -> semantic id (SPI_VS_OUT_ID) of a vertex shader: the first
        NUM_SPI_VS_OUT_ID words (the others are not in use, whatever they hold)."""
        s = self.shader
        if s is None or not hasattr(s.regs, "spi_vs_out_id"):
            return {}
        out = {}
        for j, word in enumerate(s.regs.spi_vs_out_id[: s.regs.num_spi_vs_out_id]):
            f = _VS_OUT_ID((word,))
            for k in range(4):
                sem = f[f"SEMANTIC_{k}"]
                if sem != UNUSED_SEMANTIC:
                    out[4 * j + k] = sem
        return out

    def _register_of(self, key: Any, names: Mapping[str, int]) -> int:
        if isinstance(key, int):
            reg = key
        elif isinstance(key, str) and key[:1] in "Rr" and key[1:].isdigit():
            reg = int(key[1:])
        elif key in names:
            reg = names[key]
        else:
            known = ", ".join(sorted(names)) or "none (give R<n>)"
            raise VMError(f"no input {key!r} (this shader has: {known})")
        if not 0 <= reg < GPRS:
            raise VMError(f"input {key!r}: no register R{reg}")
        return reg

    def _uniform_tables(self, uniforms: Mapping[str, Any], blocks_in: Mapping[Any, Any]
                        ) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        from shaderkit.formats.gx2.types import var_type_name

        s = self.shader
        cfile = np.zeros(UNIFORM_REGISTERS * 4, U32)
        blocks: dict[int, np.ndarray] = {}
        block_by_name: dict[str, int] = {}
        if s is not None:
            for iv in s.initial_values:
                if 0 <= iv.offset and iv.offset + 4 <= cfile.size:
                    cfile[iv.offset:iv.offset + 4] = np.asarray(iv.value_bits, np.uint64).astype(U32)
            for blk in s.uniform_blocks:
                block_by_name[blk.name] = blk.offset
                blocks[blk.offset] = np.zeros(max((blk.size + 15) // 16, 1) * 4, U32)
        variables = {v.name: v for v in s.uniform_vars} if s is not None else {}
        # a uniform block named in ``uniforms`` (no variable has that name): its words from the block's start
        named = {k: v for k, v in uniforms.items() if k in block_by_name and k not in variables}
        for key, value in [*named.items(), *blocks_in.items()]:
            loc = block_by_name.get(key, key) if isinstance(key, str) else key
            if not isinstance(loc, int):
                raise VMError(f"no uniform block {key!r} (known: {', '.join(block_by_name) or 'none'})")
            words = _words(value, f"uniform block {key!r}")
            size = max(words.size, blocks[loc].size if loc in blocks else 0)
            table = np.zeros((size + 3) // 4 * 4, U32)
            table[: words.size] = words
            blocks[loc] = table
        for name, value in uniforms.items():
            if name in named:
                continue
            integer = name in variables and var_type_name(variables[name].type).startswith(("int", "uint", "bool"))
            words = _words(value, f"uniform {name!r}", integer)
            if name[:1] in "Cc" and name[1:].isdigit():
                target, offset = cfile, int(name[1:]) * 4
            elif name in variables:
                var = variables[name]
                if var.block < 0:
                    target, offset = cfile, var.offset
                else:
                    if not 0 <= var.block < len(s.uniform_blocks):  # type: ignore[union-attr]
                        raise VMError(f"uniform {name!r} names block {var.block}, which does not exist")
                    loc = s.uniform_blocks[var.block].offset  # type: ignore[union-attr]
                    target, offset = blocks[loc], var.offset
            else:
                known = ", ".join([*sorted(variables), *(f"{b} (block)" for b in sorted(block_by_name))]) or "none"
                raise VMError(f"no uniform or uniform block {name!r} (this shader has: {known}; or give C<n>)")
            if offset < 0 or offset + words.size > target.size:
                raise VMError(f"uniform {name!r}: {words.size} words at word {offset} do not fit")
            target[offset:offset + words.size] = words
        return cfile.reshape(-1, 4), {loc: t.reshape(-1, 4) for loc, t in blocks.items()}

    # -- running -----------------------------------------------------------------------------
    def run(self, inputs: Mapping[Any, Any] | None = None, lanes: int | None = None, *,
            uniforms: Mapping[str, Any] | None = None, uniform_blocks: Mapping[Any, Any] | None = None,
            textures: Mapping[int, Any] | None = None, samplers: Mapping[int, Sampler] | None = None,
            buffers: Mapping[int, VertexBuffer] | None = None, bools: int | Sequence[bool] = 0,
            loops: Mapping[int, Any] | None = None, fetch_shader: Any = None, quads: bool = False,
            max_steps: int | None = None, keep_registers: bool | None = None) -> RunResult:
        """Run the program over ``lanes`` lanes (default: the inputs' length, else 1).

        ``inputs``: name/``R<n>``/index -> (lanes, k<=4) values (floats are float32, integer
        arrays keep their bits). ``uniforms``: name or ``C<n>`` -> values (floats or ints,
        flattened into 32-bit words); the name of a uniform block no variable is called fills
        that block from its start, as ``uniform_blocks`` does. ``uniform_blocks``: name or location -> words, or bytes
        (big-endian words, as in memory). ``textures``: resource id -> :class:`Texture` or an
        array; ``samplers``: sampler id -> :class:`Sampler`. ``buffers``: fetch buffer id ->
        :class:`VertexBuffer`. ``bools``: bool constants (bit n = constant n, or a sequence).
        ``loops``: loop constant index -> raw SQ_LOOP_CONST or (count, init, increment).
        Lanes run in waves of ``CHUNK_LANES`` (each wave has its own program counter, as
        wavefronts do); ``max_steps`` limits each wave. ``keep_registers`` keeps the final
        GPRs for :meth:`RunResult.register` (default: runs of up to ``KEEP_REGISTERS_LANES``).
        """
        inputs = dict(inputs or {})
        names = self.input_registers()
        n = lanes
        if n is None:
            sizes = {np.asarray(v).shape[0] for v in inputs.values() if np.asarray(v).ndim >= 2}
            n = max(sizes) if sizes else 1
        if n < 1:
            raise VMError("a run needs at least one lane")
        start_regs: dict[int, np.ndarray] = {}  # GPR -> (n, k <= 4) bits (the other components: 0)
        if self.stage == "pixel":
            for i, cntl in enumerate(self.ps_input_controls()):
                default = PS_DEFAULT_VALUES[cntl["DEFAULT_VAL"]]
                start_regs[i] = np.broadcast_to(np.asarray(default, F32).view(U32), (n, 4))
        for key, value in inputs.items():
            start_regs[self._register_of(key, names)] = _bits(value, n, f"input {key!r}")
        vertex_index = self.stage == "vertex" and 0 not in start_regs  # R0.x: the lane number
        cfile, blocks = self._uniform_tables(uniforms or {}, uniform_blocks or {})
        if isinstance(bools, int):
            bool_mask = bools
        else:
            bool_mask = sum(1 << i for i, b in enumerate(bools) if b)
        loop_table: dict[int, int] = {}
        if self.shader is not None:
            for lv in self.shader.loop_vars:
                loop_table[lv.offset] = lv.value & 0xFFFFFFFF
        for index, value in (loops or {}).items():
            if isinstance(value, (tuple, list)):
                if len(value) != len(_LOOP_CONST_FIELDS):
                    raise VMError(f"loop constant {index}: expected (count, init, increment), got {value!r}")
                value = _LOOP_CONST({name: int(v) & mask for (name, mask), v in zip(_LOOP_CONST_FIELDS, value)})[0]
            loop_table[int(index)] = int(value)
        texs = {}
        for rid, tex in (textures or {}).items():
            try:
                texs[rid] = tex if isinstance(tex, Texture) else Texture.of(tex)
            except ValueError as exc:
                raise VMError(f"texture t{rid}: {exc}") from None
        fetch_program = None
        if fetch_shader is not None:
            fetch_program = fetch_shader.program if isinstance(fetch_shader, LatteShader) else Program(bytes(fetch_shader))
        env = Env(cfile=cfile, blocks=blocks, bools=bool_mask, loops=loop_table, textures=texs,
                  samplers=dict(samplers or {}), buffers=dict(buffers or {}),
                  max_steps=max_steps or DEFAULT_MAX_STEPS, fetch_program=fetch_program, quads=quads,
                  semantic_gprs=self.semantic_registers())
        keep = n <= KEEP_REGISTERS_LANES if keep_registers is None else keep_registers
        exports: dict[tuple[str, int], np.ndarray] = {}
        killed = np.zeros(n, bool)
        register_waves: list[np.ndarray] = []
        memory: list[MemWrite] = []
        emits: list[tuple[str, np.ndarray]] = []
        steps = 0
        for first in range(0, n, CHUNK_LANES):
            last = min(first + CHUNK_LANES, n)
            wave = Wave.new(last - first)
            for reg, bits in start_regs.items():
                wave.gpr[reg, :bits.shape[1]] = bits[first:last].T
            if vertex_index:
                wave.gpr[0, 0] = np.arange(first, last, dtype=U32)
            for key, rows in exports.items():  # exports an earlier wave made go straight to their rows
                wave.exports[key] = rows[first:last]
            run_program(self.program, wave, env)
            steps = max(steps, wave.steps)
            killed[first:last] = ~wave.alive
            if keep:
                register_waves.append(wave.gpr)
            for key, bits in wave.exports.items():
                if key not in exports:
                    whole = exports[key] = np.zeros((n, 4), U32)
                    whole[first:last] = bits
            for write in wave.memory:
                memory.append(_widen_write(write, n, first))
            for name, mask in wave.emits:
                wide = np.zeros(n, bool)
                wide[first:last] = mask
                emits.append((name, wide))
        out: dict[str, dict[int, np.ndarray]] = {"POS": {}, "PARAM": {}, "PIX": {}}
        for (kind, index), bits in exports.items():
            out[kind][index] = bits.view(F32)
        return RunResult(lanes=n, pos=out["POS"], param=out["PARAM"], pix=out["PIX"], killed=killed,
                         steps=steps, memory=memory, emits=emits, param_semantics=self.param_semantics(),
                         register_waves=register_waves)


def _widen_write(write: MemWrite, n: int, first: int) -> MemWrite:
    """A chunk's memory write with arrays over all ``n`` lanes (other chunks' lanes masked off)."""
    if write.lanes.shape[0] == n:
        return write
    last = first + write.lanes.shape[0]
    lanes = np.zeros(n, bool)
    lanes[first:last] = write.lanes
    data = np.zeros((n,) + write.data.shape[1:], U32)
    data[first:last] = write.data
    index = None
    if write.index is not None:
        index = np.zeros(n, write.index.dtype)
        index[first:last] = write.index
    return MemWrite(write.inst, write.type, write.array_base, index, write.comp_mask, data, lanes)


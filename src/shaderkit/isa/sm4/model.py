"""Typed SM4/SM5 instruction model (names follow d3d11TokenizedProgramFormat.hpp).

Every bit of every token is kept (either as a field or as a raw word list) so that
``encode(decode(words)) == words``. Derived values (instruction length, index dimension,
extended-token chaining bits, customdata length) are recomputed by the encoder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shaderkit.isa.sm4.opcodes import PROGRAM_TYPES


@dataclass(frozen=True, slots=True)
class Index:
    """One register index: immediate part and/or a relative operand (immutable, so the decoder
    shares one object per plain immediate index)."""

    rep: int  # IndexRep
    value: int = 0  # immediate (32 or 64 bit)
    rel: Operand | None = None


@dataclass(slots=True)
class Operand:
    type: int  # OperandType
    num_components: int = 0  # token code: 0 -> 0, 1 -> 1, 2 -> 4, 3 -> N
    selection_mode: int = 0  # 0 mask, 1 swizzle, 2 select 1
    component_bits: int = 0  # bits 4..11 (mask, swizzle or selected component)
    indices: list[Index] = field(default_factory=list)
    #: extended operand tokens (chaining bit 31 cleared)
    extended: list[int] = field(default_factory=list)
    #: immediate words (IMMEDIATE32 / IMMEDIATE64 operands)
    values: list[int] = field(default_factory=list)

    @property
    def modifier(self) -> int:
        """0 none, 1 neg, 2 abs, 3 abs+neg (from the first modifier extended token)."""
        for ext in self.extended:
            if ext & 0x3F == 1:
                return (ext >> 6) & 0xFF
        return 0

    @property
    def min_precision(self) -> int:
        for ext in self.extended:
            if ext & 0x3F == 1:
                return (ext >> 14) & 7
        return 0

    @property
    def non_uniform(self) -> bool:
        return any(ext & 0x3F == 1 and ext >> 17 & 1 for ext in self.extended)

    @property
    def mask(self) -> int:
        return (self.component_bits & 0xF) if self.selection_mode == 0 else 0

    @property
    def swizzle(self) -> tuple[int, int, int, int]:
        b = self.component_bits
        return (b & 3, (b >> 2) & 3, (b >> 4) & 3, (b >> 6) & 3)


@dataclass(slots=True)
class Instruction:
    opcode: int
    #: opcode-specific control bits 11..23 (customdata: its class, bits 11..31)
    controls: int = 0
    #: extended opcode tokens (chaining bit 31 cleared)
    extended: list[int] = field(default_factory=list)
    operands: list[Operand] = field(default_factory=list)
    #: raw words: declaration values after the operand, fcall's interface id, customdata payload
    raw: list[int] = field(default_factory=list)
    #: word offset of the opcode token inside the program (informational)
    offset: int = 0

    @property
    def saturate(self) -> bool:
        return bool(self.controls >> 2 & 1)

    @property
    def test_nonzero(self) -> bool:
        return bool(self.controls >> 7 & 1)

    @property
    def precise_mask(self) -> int:
        return (self.controls >> 8) & 0xF

    def ext_of(self, kind: int) -> int | None:
        """The extended opcode token of ``kind`` (1 sample controls, 2 dimension, 3 return type)."""
        for ext in self.extended:
            if ext & 0x3F == kind:
                return ext
        return None

    @property
    def sample_offsets(self) -> tuple[int, int, int] | None:
        """``_aoffimmi(u,v,w)`` immediate texel offsets (signed 4-bit), if present."""
        ext = self.ext_of(1)
        if ext is None:
            return None
        return (_s4(ext >> 9), _s4(ext >> 13), _s4(ext >> 17))

    @property
    def resource_dimension(self) -> int | None:
        """Extended resource dimension (RESOURCE_DIMENSIONS index), if present."""
        ext = self.ext_of(2)
        return None if ext is None else (ext >> 6) & 0x1F

    @property
    def structure_stride(self) -> int | None:
        ext = self.ext_of(2)
        return None if ext is None else (ext >> 11) & 0xFFF

    @property
    def return_types(self) -> tuple[int, int, int, int] | None:
        """Extended resource return types (RETURN_TYPES indices) for x, y, z, w, if present."""
        ext = self.ext_of(3)
        if ext is None:
            return None
        return ((ext >> 6) & 0xF, (ext >> 10) & 0xF, (ext >> 14) & 0xF, (ext >> 18) & 0xF)


def _s4(value: int) -> int:
    value &= 0xF
    return value - 16 if value & 8 else value


@dataclass(slots=True)
class Program:
    """A decoded SHDR/SHEX token stream."""

    program_type: int  # 0 ps, 1 vs, 2 gs, 3 hs, 4 ds, 5 cs (0xfff0 lib)
    major: int
    minor: int
    instructions: list[Instruction] = field(default_factory=list)
    #: version-token bits other than type/major/minor (kept for round trip)
    version_extra: int = 0
    #: words after the declared length (kept for round trip)
    trailing: list[int] = field(default_factory=list)

    @property
    def profile(self) -> str:
        kind = PROGRAM_TYPES[self.program_type] if self.program_type < len(PROGRAM_TYPES) else "lib"
        return f"{kind}_{self.major}_{self.minor}"

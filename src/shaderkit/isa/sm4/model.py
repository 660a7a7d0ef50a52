"""Typed SM4/SM5 instruction model (names follow d3d11TokenizedProgramFormat.hpp).

Every bit of every token is kept (either as a field or as a raw word list) so that
``encode(decode(words)) == words``. Derived values (instruction length, index dimension,
extended-token chaining bits, customdata length) are recomputed by the encoder.
"""

from __future__ import annotations

from shaderkit.dataclass import dataclass, field
from shaderkit.isa.sm4.opcodes import PROGRAM_TYPES
from shaderkit.isa.sm4.table import (
    EXT_KIND_MASK,
    EXT_OPERAND_MODIFIER,
    EXTENDED_OPCODE_TOKENS,
    EXTENDED_OPERAND_TOKEN,
    PRECISE_MASK,
    SATURATE,
    TEST_NONZERO,
    swizzle_of,
    unpack_extended_operand,
)

_SAMPLE, _DIMENSION, _RETURN = EXTENDED_OPCODE_TOKENS[1], EXTENDED_OPCODE_TOKENS[2], EXTENDED_OPCODE_TOKENS[3]
_NON_UNIFORM = EXTENDED_OPERAND_TOKEN["non_uniform"]


@dataclass(frozen=True, slots=True)
class Index:
    """One register index: immediate part and/or a relative operand (immutable, so the decoder
    shares one object per plain immediate index)."""

    rep: int  # IndexRep
    value: int = 0  # immediate (32 or 64 bit)
    rel: Operand | None = None


@dataclass(slots=True)
class Operand:
    """An operand token: type, component selection, indices, extended tokens and immediate values."""
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
            kind, modifier, _, _ = unpack_extended_operand(ext)
            if kind == EXT_OPERAND_MODIFIER:
                return modifier
        return 0

    @property
    def min_precision(self) -> int:
        """The minimum-precision code of the operand's modifier token (0: none)."""
        for ext in self.extended:
            kind, _, precision, _ = unpack_extended_operand(ext)
            if kind == EXT_OPERAND_MODIFIER:
                return precision
        return 0

    @property
    def non_uniform(self) -> bool:
        """True when a modifier token marks the operand ``nonuniform`` (SM5.1)."""
        return any(ext & EXT_KIND_MASK == EXT_OPERAND_MODIFIER and _NON_UNIFORM.get(ext) for ext in self.extended)

    @property
    def mask(self) -> int:
        """The write mask (bit 0 = x .. bit 3 = w) in mask mode, else 0."""
        return (self.component_bits & 0xF) if self.selection_mode == 0 else 0

    @property
    def swizzle(self) -> tuple[int, int, int, int]:
        """The four source components (0 = x .. 3 = w) of the swizzle field."""
        return swizzle_of(self.component_bits)


@dataclass(slots=True)
class Instruction:
    """An instruction or declaration: opcode, control bits, extended tokens, operands and raw words."""
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
        """True for ``_sat`` (bit 13 on opcodes that have it)."""
        return bool(SATURATE.get(self.controls))

    @property
    def test_nonzero(self) -> bool:
        """True for ``_nz``, False for ``_z`` (bit 18 of conditional opcodes)."""
        return bool(TEST_NONZERO.get(self.controls))

    @property
    def precise_mask(self) -> int:
        """The ``precise`` component mask (bits 19..22)."""
        return PRECISE_MASK.get(self.controls)

    def ext_of(self, kind: int) -> int | None:
        """The extended opcode token of ``kind`` (1 sample controls, 2 dimension, 3 return type)."""
        for ext in self.extended:
            if ext & EXT_KIND_MASK == kind:
                return ext
        return None

    @property
    def sample_offsets(self) -> tuple[int, int, int] | None:
        """``_aoffimmi(u,v,w)`` immediate texel offsets (signed 4-bit), if present."""
        ext = self.ext_of(1)
        if ext is None:
            return None
        return (_s4(_SAMPLE["offset_u"].get(ext)), _s4(_SAMPLE["offset_v"].get(ext)), _s4(_SAMPLE["offset_w"].get(ext)))

    @property
    def resource_dimension(self) -> int | None:
        """Extended resource dimension (RESOURCE_DIMENSIONS index), if present."""
        ext = self.ext_of(2)
        return None if ext is None else _DIMENSION["dimension"].get(ext)

    @property
    def structure_stride(self) -> int | None:
        """The structure stride in bytes from the resource-dimension extended token, or None."""
        ext = self.ext_of(2)
        return None if ext is None else _DIMENSION["stride"].get(ext)

    @property
    def return_types(self) -> tuple[int, int, int, int] | None:
        """Extended resource return types (RETURN_TYPES indices) for x, y, z, w, if present."""
        ext = self.ext_of(3)
        if ext is None:
            return None
        return (_RETURN["return_x"].get(ext), _RETURN["return_y"].get(ext), _RETURN["return_z"].get(ext),
                _RETURN["return_w"].get(ext))


def _s4(value: int) -> int:
    value &= 0xF
    return value - 16 if value & 8 else value


class Program:
    """A decoded SHDR/SHEX token stream.

    :func:`~shaderkit.isa.sm4.decode.decode` validates every instruction but builds the typed
    :class:`Instruction` list only when :attr:`instructions` is first read; until then the
    program keeps the (immutable) token words and the instruction start offsets, which the
    listing printer formats directly.
    """

    __slots__ = ("program_type", "major", "minor", "_instructions", "version_extra", "trailing",
                 "_words", "_starts")

    def __init__(self, program_type: int, major: int, minor: int,
                 instructions: list[Instruction] | None = None, version_extra: int = 0,
                 trailing: list[int] | None = None) -> None:
        self.program_type = program_type  # 0 ps, 1 vs, 2 gs, 3 hs, 4 ds, 5 cs (0xfff0 lib)
        self.major = major
        self.minor = minor
        self._instructions: list[Instruction] | None = [] if instructions is None else instructions
        #: version-token bits other than type/major/minor (kept for round trip)
        self.version_extra = version_extra
        #: words after the declared length (kept for round trip)
        self.trailing: list[int] = [] if trailing is None else trailing
        #: validated token words and instruction starts of a lazily decoded program
        self._words: tuple[int, ...] | None = None
        self._starts: list[int] = []

    @property
    def instructions(self) -> list[Instruction]:
        """The decoded instructions (decoded on first use)."""
        insts = self._instructions
        if insts is None:
            from shaderkit.isa.sm4.decode import instructions_at

            assert self._words is not None
            insts = self._instructions = instructions_at(self._words, self._starts)
            self._words = None  # the list may now be edited: printers must read the model
            self._starts = []
        return insts

    @instructions.setter
    def instructions(self, value: list[Instruction]) -> None:
        self._instructions = value
        self._words = None
        self._starts = []

    def lazy_words(self) -> tuple[tuple[int, ...], list[int]] | None:
        """(token words, instruction start offsets) while the typed instructions have not been
        built (so nothing can have edited them), else None."""
        words = self._words
        return None if words is None else (words, self._starts)

    @property
    def offsets(self) -> list[int]:
        """Word offset of every instruction in the program (without building the model)."""
        if self._words is not None:
            return list(self._starts)
        return [inst.offset for inst in self.instructions]

    @property
    def instruction_count(self) -> int:
        """Number of instructions (without building the typed model)."""
        return len(self._starts) if self._words is not None else len(self.instructions)

    def _model(self) -> list[Instruction]:
        """The typed instructions without keeping them (reading them keeps the fast printer)."""
        if self._instructions is not None:
            return self._instructions
        from shaderkit.isa.sm4.decode import instructions_at

        assert self._words is not None
        return instructions_at(self._words, self._starts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        return (self.program_type, self.major, self.minor, self.version_extra, self.trailing,
                self._model()) == (other.program_type, other.major, other.minor,
                                   other.version_extra, other.trailing, other._model())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Program(program_type={self.program_type!r}, major={self.major!r}, "
                f"minor={self.minor!r}, instructions={self._model()!r}, "
                f"version_extra={self.version_extra!r}, trailing={self.trailing!r})")

    @property
    def profile(self) -> str:
        """The profile name of the version token, e.g. ``ps_5_0``."""
        kind = PROGRAM_TYPES[self.program_type] if self.program_type < len(PROGRAM_TYPES) else "lib"
        return f"{kind}_{self.major}_{self.minor}"

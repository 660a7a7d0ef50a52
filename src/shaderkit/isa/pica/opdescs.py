"""picasso's operand-descriptor table: merging (findOrAddOpdesc), MAD's 5-bit slots and swaps.

The assembler builds its table with it, and the disassembler replays picasso's merging on a
file's words with it (formats/dvlb/source.py) without loading the assembler's parser.
"""

from __future__ import annotations

from shaderkit.isa.pica.table import (
    BY_MNEMONIC,
    MAX_MAD_OPDESC,
    MAX_OPDESC,
    MOVA_UNUSED_MASK,
    dont_care_bits,
    field_spec,
    replace_fields,
)

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Final

if __name__ == "mypyc":  # (never at run time: the decorator matters only to mypyc, which reads both)
    from mypy_extensions import mypyc_attr as _mypyc_attr
else:
    def _mypyc_attr(*_: object, **__: object) -> object:  # type: ignore[misc]
        return lambda cls: cls


def optimize_mask(mask: int, mnemonic: str, opdesc: int) -> int:
    """Drop the descriptor bits the instruction ignores (picasso's optimizeOpdesc)."""
    return mask & ~dont_care_bits(BY_MNEMONIC[mnemonic], opdesc)


def _has_wide_desc(op6: int) -> bool:
    try:
        return field_spec(op6 << 26, "desc") == (0, MAX_OPDESC - 1)
    except KeyError:
        return False


#: 6-bit opcode -> the word has a 7-bit descriptor field (what picasso's swapOpdesc renumbers)
_WIDE_DESC: Final = tuple(_has_wide_desc(op6) for op6 in range(64))


@_mypyc_attr(allow_interpreted_subclasses=True)  # (the assembler is one, and overrides error)
class DescriptorTable:
    """Assembled words and the descriptor table picasso builds while emitting them."""

    def __init__(self) -> None:
        self.code: list[int] = []
        #: the descriptor values by slot, and the bits each value fixes (a merge may set only the others)
        self.opdescs: list[int] = []
        self.opdesc_masks: list[int] = []
        self.opdesc_is_mad = 0
        # "; shaderkit: opdescs ..." pins the descriptor table; "; shaderkit: desc N" picks an entry
        self.pinned = False
        self.desc_hint: int | None = None
        #: the pinned entries' second words (by slot; picasso writes 0)
        self.opdesc_extras: list[int] = []

    def error(self, message: str, column: int = 0) -> Exception:
        """The exception to raise (the assembler's names the line and column)."""
        return ValueError(message)

    def find_or_add_opdesc(self, mnemonic: str, opdesc: int, mask: int, col: int) -> int:
        """The operand descriptor slot matching ``opdesc`` under ``mask`` (reused or added); AssemblyError when full."""
        mask = optimize_mask(mask, mnemonic, opdesc)
        if self.pinned and self.desc_hint is not None:
            hint = self.desc_hint
            if mnemonic == "mova":  # (old picasso gave mova the descriptor of an xyz mov)
                mask &= ~MOVA_UNUSED_MASK
            if not 0 <= hint < len(self.opdescs) or (self.opdescs[hint] ^ opdesc) & mask:
                raise self.error(f"descriptor {hint} does not match the operands", col)
            return hint
        desc = self.merge_opdesc(opdesc, mask)
        if desc < 0:
            raise self.error(f"too many operand descriptors (limit is {MAX_OPDESC})", col)
        return desc

    def merge_opdesc(self, opdesc: int, mask: int) -> int:
        """picasso's findOrAddOpdesc with the mask already optimized: the first slot agreeing with
        ``opdesc`` on the bits both fix takes its bits under ``mask``, else a new slot does; the
        slot, or -1 when the table is full. (A plain scan: compiled, it is several times as fast as the
        packed-lane integers it replaced.)"""
        values, masks = self.opdescs, self.opdesc_masks
        for slot, value in enumerate(values):
            fixed = masks[slot]
            if not (value ^ opdesc) & fixed & mask:
                values[slot] = (value & ~mask) | (opdesc & mask)
                masks[slot] = fixed | mask
                return slot
        if len(values) >= MAX_OPDESC:
            return -1
        values.append(opdesc)
        masks.append(mask)
        return len(values) - 1

    def pin_opdescs(self, values: list[int]) -> None:
        """Start from the descriptor table ``values``, every bit fixed (``; shaderkit: opdescs``);
        bits 32.. of a value are its entry's second word (picasso writes 0)."""
        self.opdescs = [v & 0xFFFFFFFF for v in values]
        self.opdesc_masks = [0xFFFFFFFF] * len(values)
        self.opdesc_extras = [v >> 32 for v in values]
        self.pinned = True

    def opdesc_entries(self) -> list[int]:
        """The descriptor table by slot, each entry's second word in bits 32.."""
        extras = self.opdesc_extras
        return [value | (extras[slot] << 32 if slot < len(extras) else 0) for slot, value in enumerate(self.opdescs)]

    def place_mad_opdesc(self, desc: int, col: int) -> int:
        """Keep a MAD descriptor below 32 (its field has 5 bits): picasso swaps it with a free slot."""
        if desc >= MAX_MAD_OPDESC and not (self.pinned and self.desc_hint is not None):
            free = next((i for i in range(MAX_MAD_OPDESC) if not self.opdesc_is_mad >> i & 1), -1)
            if free < 0:
                raise self.error(f"too many operand descriptors for MAD (limit is {MAX_MAD_OPDESC})", col)
            self.swap_opdesc(free, desc)
            desc = free
        if desc >= MAX_MAD_OPDESC:
            raise self.error(f"descriptor {desc} is out of MAD's range (0-31)", col)
        self.opdesc_is_mad |= 1 << desc
        return desc

    def swap_opdesc(self, a: int, b: int) -> None:
        """Swap descriptor slots ``a`` and ``b`` and renumber the code words using them."""
        values, masks = self.opdescs, self.opdesc_masks
        values[a], values[b] = values[b], values[a]
        masks[a], masks[b] = masks[b], masks[a]
        extras = self.opdesc_extras
        if extras:
            extras += [0] * (max(a, b) + 1 - len(extras))
            extras[a], extras[b] = extras[b], extras[a]
        for i, word in enumerate(self.code):
            if _WIDE_DESC[word >> 26]:  # picasso renumbers the 7-bit descriptor fields only
                cur = word & (MAX_OPDESC - 1)
                if cur in (a, b):
                    self.code[i] = replace_fields(word, desc=b if cur == a else a)

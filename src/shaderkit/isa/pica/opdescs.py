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


class PackedSlots:
    """Descriptor slots (values and the masks of the bits each fixes), also packed one slot per
    32-bit lane into integers, so that findOrAddOpdesc's scan for the first slot a descriptor
    agrees with takes a few integer operations instead of a Python loop over up to 128 slots.
    The masks a descriptor is merged under stay below bit 31 (an operand descriptor's fields end
    at bit 30), which the lane test needs."""

    __slots__ = ("values", "masks", "packed_values", "packed_masks", "ones")

    def __init__(self, values: list[int], masks: list[int]) -> None:
        self.values, self.masks = values, masks
        self.repack()

    def repack(self) -> None:
        """Pack the lists again (after slots were swapped)."""
        self.packed_values = sum(value << 32 * slot for slot, value in enumerate(self.values))
        self.packed_masks = sum(mask << 32 * slot for slot, mask in enumerate(self.masks))
        self.ones = sum(1 << 32 * slot for slot in range(len(self.values)))  # (1 in every lane)

    def first_agreeing(self, opdesc: int, mask: int) -> int:
        """The first slot agreeing with ``opdesc`` on the bits both it and ``mask`` fix, or -1."""
        ones = self.ones
        differ = ((opdesc * ones) ^ self.packed_values) & self.packed_masks & (mask * ones)  # lane 0: agrees
        high = ones << 31
        agree = ~(differ + (high - ones)) & high  # (a lane below 2**31 plus 2**31 - 1 sets bit 31 unless 0)
        return ((agree & -agree).bit_length() - 1) >> 5 if agree else -1

    def merge(self, slot: int, opdesc: int, mask: int) -> None:
        """Merge ``opdesc`` under ``mask`` into ``slot`` (which agrees with it)."""
        value = self.values[slot]
        merged = (value & ~mask) | (opdesc & mask)
        self.values[slot] = merged
        self.masks[slot] |= mask
        self.packed_values ^= (value ^ merged) << 32 * slot
        self.packed_masks |= mask << 32 * slot

    def append(self, opdesc: int, mask: int) -> int:
        """A new slot holding ``opdesc`` under ``mask``; its index."""
        slot = len(self.values)
        self.values.append(opdesc)
        self.masks.append(mask)
        self.packed_values |= opdesc << 32 * slot
        self.packed_masks |= mask << 32 * slot
        self.ones |= 1 << 32 * slot
        return slot


@_mypyc_attr(allow_interpreted_subclasses=True)  # (the assembler is one, and overrides error)
class DescriptorTable:
    """Assembled words and the descriptor table picasso builds while emitting them."""

    def __init__(self) -> None:
        self.code: list[int] = []
        self.slots = PackedSlots([], [])
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
        slot, or -1 when the table is full."""
        slots = self.slots
        slot = slots.first_agreeing(opdesc, mask)
        if slot >= 0:
            slots.merge(slot, opdesc, mask)
            return slot
        return slots.append(opdesc, mask) if len(slots.values) < MAX_OPDESC else -1

    @property
    def opdescs(self) -> list[int]:
        """The descriptor values, by slot."""
        return self.slots.values

    @property
    def opdesc_masks(self) -> list[int]:
        """The bits each slot's value fixes."""
        return self.slots.masks

    def pin_opdescs(self, values: list[int]) -> None:
        """Start from the descriptor table ``values``, every bit fixed (``; shaderkit: opdescs``);
        bits 32.. of a value are its entry's second word (picasso writes 0)."""
        self.slots = PackedSlots([v & 0xFFFFFFFF for v in values], [0xFFFFFFFF] * len(values))
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
        values, masks = self.slots.values, self.slots.masks
        values[a], values[b] = values[b], values[a]
        masks[a], masks[b] = masks[b], masks[a]
        extras = self.opdesc_extras
        if extras:
            extras += [0] * (max(a, b) + 1 - len(extras))
            extras[a], extras[b] = extras[b], extras[a]
        self.slots.repack()
        for i, word in enumerate(self.code):
            if _WIDE_DESC[word >> 26]:  # picasso renumbers the 7-bit descriptor fields only
                cur = word & (MAX_OPDESC - 1)
                if cur in (a, b):
                    self.code[i] = replace_fields(word, desc=b if cur == a else a)

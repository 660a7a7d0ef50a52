"""A bit field of a 32-bit token, shared by the ISA tables."""

from __future__ import annotations

from shaderkit.named_tuple import NamedTuple


class Field(NamedTuple):
    """Bits ``low .. low + width - 1`` of a token."""

    name: str
    low: int
    width: int

    @property
    def mask(self) -> int:
        """Mask of the field's value (after shifting it down)."""
        return (1 << self.width) - 1

    @property
    def bits(self) -> int:
        """Mask of the field's bits inside the token."""
        return self.mask << self.low

    def get(self, token: int) -> int:
        """This field's value in ``token``."""
        return (token >> self.low) & self.mask

    def put(self, value: int) -> int:
        """``value`` (masked to the field width) shifted into place, to OR into a token."""
        return (value & self.mask) << self.low

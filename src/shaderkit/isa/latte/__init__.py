"""Wii U Latte (R600/R700-family GPU7) shader microcode.

``table`` is the one table; ``disasm`` prints decaf-emu's listing (plus ``; shaderkit:`` notes
for bits the listing does not show) and ``asm`` reads that text back to identical microcode.
"""

from shaderkit.isa.latte.asm import assemble
from shaderkit.isa.latte.disasm import disassemble

__all__ = ["assemble", "disassemble"]

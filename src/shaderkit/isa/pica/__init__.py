"""PICA200 (Nintendo 3DS) shader instruction set.

``opcodes`` is the one table; ``decode``/``encode`` read it; ``assembler`` is picasso-compatible.
The SHBIN container and the picasso-syntax printer live in ``shaderkit.formats.dvlb``.
"""

"""FXLVM: the expression virtual machine of D3D10/11 effects (``eval(...)``) and D3D9 preshaders.

:mod:`.table` holds the opcode and register tables; :mod:`.code` decodes, encodes and prints
the instruction tokens of an ``FXLC`` chunk.
"""

"""NVIDIA Maxwell (SM 5.x; Tegra X1 in the Switch): decode, encode, SASS text and assembler, all
driven by the one table in :mod:`shaderkit.isa.maxwell.table`."""

from shaderkit.isa.maxwell.assembler import assemble, assemble_instruction
from shaderkit.isa.maxwell.decode import Control, Instruction, decode, encode, program_end, split_control
from shaderkit.isa.maxwell.text import disassemble, instruction_text

__all__ = [
    "Control", "Instruction", "assemble", "assemble_instruction", "decode", "disassemble", "encode",
    "instruction_text", "program_end", "split_control",
]

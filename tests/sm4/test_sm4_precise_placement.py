"""Where fxc prints ``[precise]`` on an instruction with resource parentheses.

fxc 10.1 (DirectXTK12's GenerateMips compute shaders, public /Fh headers) writes
``ld_uav_typed_indexable [precise(x)](texture2d)(uint,uint,uint,uint) r0.x, vThreadID.xyyy, u0.xyzw``:
the note sits between the mnemonic and the resource dimension, not after the return types.
The words below were packed by hand (opcode token 0x880800a3: ld_uav_typed 0xa3, length 8,
precise mask x in bit 19, extended; then the resource-dimension and return-type extensions).
"""

from __future__ import annotations

from shaderkit.isa.sm4.assembler import assemble_listing
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.printer import program_lines
from shaderkit.isa.sm4.text import Formatter

_WORDS = [
    0x00050050, 0,  # cs_5_0, length
    0x0400189C, 0x0011E000, 0, 0x4444,  # dcl_uav_typed_texture2d (uint,uint,uint,uint) u0
    0x0200005F, 0x00020032,  # dcl_input vThreadID.xy
    0x02000068, 1,  # dcl_temps 1
    0x0400009B, 8, 8, 1,  # dcl_thread_group 8, 8, 1
    0x880800A3, 0x800000C2, 0x00111103, 0x00100012, 0, 0x00020546, 0x0011EE46, 0,
    0x07000001, 0x00100022, 0, 0x0010000A, 0, 0x00004001, 0xFF,  # and r0.y, r0.x, l(255)
    0x0100003E,  # ret
]
_WORDS[1] = len(_WORDS)

_FXC = [
    "cs_5_0",
    "dcl_uav_typed_texture2d (uint,uint,uint,uint) u0",
    "dcl_input vThreadID.xy",
    "dcl_temps 1",
    "dcl_thread_group 8, 8, 1",
    "ld_uav_typed_indexable [precise(x)](texture2d)(uint,uint,uint,uint) r0.x, vThreadID.xyyy, u0.xyzw",
    "and r0.y, r0.x, l(255)",
    "ret ",
]


def test_precise_note_precedes_the_resource_parentheses() -> None:
    assert program_lines(_WORDS) == _FXC
    assert Formatter(decode(_WORDS), False).lines() == _FXC


def test_fxc_spelling_assembles_to_the_same_words() -> None:
    (assembled,) = assemble_listing("\n".join(_FXC) + "\n")
    assert encode(assembled.program) == _WORDS


def test_note_after_the_parentheses_still_reads() -> None:
    """Text written by earlier shaderkit versions (note after the return types) keeps assembling."""
    old = [line.replace(" [precise(x)](texture2d)(uint,uint,uint,uint)", "(texture2d)(uint,uint,uint,uint) [precise(x)]")
           for line in _FXC]
    assert old != _FXC
    (assembled,) = assemble_listing("\n".join(old) + "\n")
    assert encode(assembled.program) == _WORDS

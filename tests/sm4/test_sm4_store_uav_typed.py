"""``store_uav_typed``'s value is typeless (its type is the UAV's format): fxc prints an
immediate value the way it prints ``mov`` immediates, guessing per component. An immediate
address prints the same way, without blanks (``l(1,1,1,1)``: fxc 10.0.10011's listings in
Microsoft's D3D12TranslationLayer), unlike ``ld_uav_typed``'s (``l(0, 0, 0, 0)``).

Seen in public fxc listings of 9.30 (HLSLCrossCompiler's load_store test:
``l(0.200000,0.200000,0.200000,0.200000)``, ``l(1,2,3,4)``), 10.0.10011 and 10.1 (AMD GeometryFX:
``l(0,0,0,0)``). The words are packed by hand.
"""

from __future__ import annotations

from shaderkit.isa.sm4.assembler import assemble_listing
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.printer import program_lines
from shaderkit.isa.sm4.text import Formatter

_POINT_TWO = 0x3E4CCCCD  # 0.2f

_WORDS = [
    0x00050050, 0,  # cs_5_0, length
    0x0400189C, 0x0011E000, 1, 0x4444,  # dcl_uav_typed_texture2d (uint,uint,uint,uint) u1
    0x02000068, 1,  # dcl_temps 1
    0x0400009B, 1, 1, 1,  # dcl_thread_group 1, 1, 1
    0x05000036, 0x00100012, 0, 0x00004001, 0,  # mov r0.x, l(0)
    0x0A0000A4, 0x0011E0F2, 1, 0x00100006, 0, 0x00004002, 0, 0, 0, 0,
    0x0A0000A4, 0x0011E0F2, 1, 0x00100006, 0, 0x00004002, _POINT_TWO, _POINT_TWO, _POINT_TWO, _POINT_TWO,
    0x0A0000A4, 0x0011E0F2, 1, 0x00100006, 0, 0x00004002, 1, 2, 3, 4,
    0x0A0000A4, 0x0011E0F2, 1, 0x00004002, 1, 1, 1, 1, 0x00100006, 0,  # immediate address, r0.xxxx
    0x0100003E,  # ret
]
_WORDS[1] = len(_WORDS)

_FXC = [
    "cs_5_0",
    "dcl_uav_typed_texture2d (uint,uint,uint,uint) u1",
    "dcl_temps 1",
    "dcl_thread_group 1, 1, 1",
    "mov r0.x, l(0)",
    "store_uav_typed u1.xyzw, r0.xxxx, l(0,0,0,0)",
    "store_uav_typed u1.xyzw, r0.xxxx, l(0.200000,0.200000,0.200000,0.200000)",
    "store_uav_typed u1.xyzw, r0.xxxx, l(1,2,3,4)",
    "store_uav_typed u1.xyzw, l(1,1,1,1), r0.xxxx",
    "ret ",
]


def test_value_prints_typeless() -> None:
    assert program_lines(_WORDS) == _FXC
    assert Formatter(decode(_WORDS), False).lines() == _FXC


def test_fxc_text_assembles_to_the_words() -> None:
    (assembled,) = assemble_listing("\n".join(_FXC) + "\n")
    assert encode(assembled.program) == _WORDS

"""Token forms vkd3d-shader's HLSL compiler writes and fxc never does, packed by hand.

vkd3d-shader 1.14 writes a return-type word (0x4444 = four "float" nibbles) into dcl_uav_raw
and dcl_resource_raw, which take none. In SM5.1 the register space is the word right after the
declaration's fixed words (the runtime and vkd3d's own reader take it from there); the extra word
follows it. ``disasm --exact`` shows such words as ``, raw(0x...)`` and the assembler writes them
back. It also sets the test bit on else/endif: ``disasm --exact`` prints it as ``ctl(0x80)``.
"""

from __future__ import annotations

import pytest

from shaderkit.errors import AssemblyError
from shaderkit.isa.sm4.assembler import assemble
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.text import Formatter

RET = 0x0100003E  # ret: opcode 0x3e, length 1


def program(version: int, *words: int) -> list[int]:
    return [version, 2 + len(words) + 1, *words, RET]


def lines(words: list[int], exact: bool) -> list[str]:
    prog = decode(words)
    fmt = Formatter(prog, exact=exact)
    return [fmt.instruction(inst) for inst in prog.instructions]


# ps_5_1 (0x51): dcl_uav_raw (0x9d), 7 words: opcode token; operand u (type 0x1e), 3 immediate
# indices, fxc's xyzw swizzle form (0x0031ee46); ids U0, range 1..1; then 0x4444 and 0
VKD3D_51 = program(0x51, 0x0700009D, 0x0031EE46, 0, 1, 1, 0x4444, 0)
# the same declaration as fxc writes it: 6 words, space 3 last
FXC_51 = program(0x51, 0x0600009D, 0x0031EE46, 0, 1, 1, 3)
# ps_5_0 (0x50): dcl_uav_raw u1 (operand 0x0011e000: 0 components, type 0x1e, one index) + 0x4444
VKD3D_50 = program(0x50, 0x0400009D, 0x0011E000, 1, 0x4444)


def test_space_is_the_word_after_the_fixed_words() -> None:
    assert lines(VKD3D_51, exact=False)[0] == "dcl_uav_raw U0[1:1], space=17476"
    assert lines(FXC_51, exact=False)[0] == "dcl_uav_raw U0[1:1], space=3"


def test_exact_text_shows_the_extra_words() -> None:
    assert lines(VKD3D_51, exact=True)[0] == "dcl_uav_raw U0[1:1], space=17476, raw(0x00000000)"
    assert lines(VKD3D_50, exact=True)[0] == "dcl_uav_raw u1, raw(0x00004444)"
    assert lines(VKD3D_50, exact=False)[0] == "dcl_uav_raw u1"  # fxc's text has no place for it
    assert lines(FXC_51, exact=True)[0] == "dcl_uav_raw U0[1:1], space=3"  # nothing extra


def test_exact_text_assembles_to_the_same_words() -> None:
    for words, version in ((VKD3D_51, "ps_5_1"), (VKD3D_50, "ps_5_0"), (FXC_51, "ps_5_1")):
        text = version + "\n" + "\n".join(lines(words, exact=True)) + "\n"
        assert encode(assemble(text)) == words, text


def test_raw_resource_extra_word() -> None:
    # ps_5_0 dcl_resource_raw t0 (opcode 0xa1, operand 0x00107000: type 7 = t, one index) + 0x4444
    words = program(0x50, 0x040000A1, 0x00107000, 0, 0x4444)
    assert lines(words, exact=True)[0] == "dcl_resource_raw t0, raw(0x00004444)"
    assert encode(assemble("ps_5_0\n" + "\n".join(lines(words, exact=True)) + "\n")) == words


# vkd3d-shader sets the test bit (opcode token bit 18 = control bit 7) on else and endif, which
# take no test; fxc leaves it clear. if_nz (0x1f, bit 18 set) r0.x: operand 0x0010000a = one
# component selected (select-1 mode, component x), type 0 (r), one immediate index 0.
IF_NZ = (0x0304001F, 0x0010000A, 0)
ELSE_T = 0x01040012   # else, length 1, bit 18 set
ENDIF_T = 0x01040015  # endif, length 1, bit 18 set


def test_else_endif_test_bit_in_exact_text() -> None:
    words = program(0x40, 0x02000068, 1, *IF_NZ, ELSE_T, ENDIF_T)  # dcl_temps 1 first
    normal = lines(words, exact=False)
    assert normal[1:4] == ["if_nz r0.x", "else ", "endif "]  # fxc's spelling: the bit is not shown
    exact = lines(words, exact=True)
    assert exact[1:4] == ["if_nz r0.x", "else ctl(0x80)", "endif ctl(0x80)"]
    assert encode(assemble("ps_4_0\n" + "\n".join(exact) + "\n")) == words


def test_fxc_else_endif_unchanged_in_exact_text() -> None:
    words = program(0x40, 0x02000068, 1, *IF_NZ, 0x01000012, 0x01000015)
    assert lines(words, exact=True)[1:4] == ["if_nz r0.x", "else ", "endif "]


def test_ctl_wider_than_the_control_field_is_refused() -> None:
    # instruction and declaration forms both point at the value (column 11 / 21 of line 2)
    with pytest.raises(AssemblyError, match="13 control bits") as info:
        assemble("ps_4_0\nendif ctl(0x2000)\nret\n")
    assert (info.value.line, info.value.column) == (2, 11)
    with pytest.raises(AssemblyError, match="13 control bits") as info:
        assemble("ps_5_0\ndcl_uav_raw u1, ctl(0x2000)\nret\n")
    assert (info.value.line, info.value.column) == (2, 21)


def test_declaration_control_bits_in_exact_text() -> None:
    # vkd3d-shader 1.14 writes the buffer dimension (1) into bits 11+ of dcl_uav_raw, whose
    # template prints only the _glc/_rov/_opc bits: opcode token 0x0400089d (bit 11 set)
    words = program(0x50, 0x0400089D, 0x0011E000, 1, 0x4444)
    assert lines(words, exact=False)[0] == "dcl_uav_raw u1"
    text = lines(words, exact=True)[0]
    assert text == "dcl_uav_raw u1, raw(0x00004444), ctl(0x1)"
    assert encode(assemble("ps_5_0\n" + text + "\nret\n")) == words
    # the _glc bit (control bit 5: 0x10000 in the token) is printed by the template, not as ctl
    glc = program(0x50, 0x0301009D, 0x0011E000, 1)
    assert lines(glc, exact=True)[0] == "dcl_uav_raw_glc u1"


def test_declaration_raw_and_ctl_errors_point_at_the_value() -> None:
    # "dcl_uav_raw u1, raw(0x1, zz)": zz starts at column 26 of line 2; "dcl_uav_raw u1, ctl(zz)":
    # zz at column 21 (indented by two: 2 more)
    for indent in ("", "  "):
        with pytest.raises(AssemblyError) as info:
            assemble(f"ps_5_0\n{indent}dcl_uav_raw u1, raw(0x1, zz)\nret\n")
        assert (info.value.line, info.value.column) == (2, 26 + len(indent))
        with pytest.raises(AssemblyError) as info:
            assemble(f"ps_5_0\n{indent}dcl_uav_raw u1, ctl(zz)\nret\n")
        assert (info.value.line, info.value.column) == (2, 21 + len(indent))

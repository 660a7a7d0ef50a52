"""Level-9 D3D9 program text from hand-assembled D3D9 tokens (D3D9 token layout worked by hand),
read through the Aon9 chunk model."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.disasm import level9_program_lines as listing_lines
from shaderkit.isa.d3d9.text import fmt_def

END = 0x0000FFFF


def aon9(words: list[int]) -> bytes:
    """Aon9 payload: size, version, program size, program offset (36), five empty (count,
    offset) tables, then the program."""
    program = struct.pack(f"<{len(words)}I", *words)
    return struct.pack("<4I10H", 36 + len(program), words[0], len(program), 36, *[0, 36] * 5) + program


def dbug(files: list[str], lines: list[tuple[int, int]], variables: list[tuple[str, str, int, list[int]]],
         entry: str) -> list[int]:
    """A DBUG comment block: header of 10 u32, then tables; offsets relative to the block start."""
    blob = bytearray(40)
    strings: dict[str, int] = {}

    def string(text: str) -> int:
        if text not in strings:
            strings[text] = len(blob)
            blob.extend(text.encode() + b"\0")
            while len(blob) % 4:
                blob.append(0xAB)
        return strings[text]

    name_offsets = [string(f) for f in files]
    entry_off = string(entry)
    file_off = len(blob)
    for off in name_offsets:
        blob += struct.pack("<I", off)
    line_off = len(blob)
    for line, file in lines:
        blob += struct.pack("<HHI", line, file, 0)
    elems = []
    for scope, name, index, comps in variables:
        scope_off = string(scope) if scope else 0
        elem_off = len(blob)
        blob += struct.pack("<I4H", index, *(comps + [0xFFFF] * (4 - len(comps))))
        elems.append((scope_off, string(name), elem_off))
    var_off = len(blob)
    for scope_off, name_off, elem_off in elems:
        blob += struct.pack("<5I", scope_off, name_off, 0, 1, elem_off)
    struct.pack_into("<10I", blob, 0, 40, 0, 0, len(files), file_off, len(lines), line_off,
                     len(variables), var_off, entry_off)
    words = list(struct.unpack(f"<{len(blob) // 4}I", bytes(blob)))
    return [0xFFFE | (len(words) + 1) << 16, 0x47554244, *words]


MOV_R0_C0 = [0x02000001, 0x800F0000, 0xA0E40000]
ADD = [0x03000002, 0x80070001, 0x80E40000, 0xA1000002]  # add r1.xyz, r0, -c2.x
DEF = [0x05000051, 0xA00F0006, 0, 0x3F800000, 0x80000000, 0x38D1B717]
DCL_2D = [0x0200001F, 0x90000000, 0xA00F0800]


def test_pixel_program_text() -> None:
    lines = listing_lines(aon9([0xFFFF0200, *DEF, *DCL_2D, *MOV_R0_C0, *ADD, END]))
    assert lines == [
        "    ps_2_0",
        "    def c6, 0, 1, -0, 9.99999975e-005",
        "    dcl_2d s0",
        "    mov r0, c0",
        "    add r1.xyz, r0, -c2.x",
        "",
        "// approximately 2 instruction slots used",
    ]


def test_vertex_declarations_and_library_prefix() -> None:
    dcl = [0x0200001F, 0x80010005, 0x900F0001]  # dcl_texcoord1 v1
    assert listing_lines(aon9([0xFFFE0201, *dcl, END]))[:2] == ["    vs_2_x", "    dcl_texcoord1 v1"]
    # library functions carry "LV"/"LP" in the version token
    assert listing_lines(aon9([0x4C560201, END]))[0] == "    lib_4_0_vs_2_x"
    assert listing_lines(aon9([0x4C500200, END]), "lib_4_1_")[0] == "    lib_4_1_ps_2_0"


def test_debug_lines_and_variable_notes() -> None:
    block = dbug(["a.hlsl", "b.fxh"], [(0, 0xFFFF), (10, 0), (11, 0), (20, 0), (5, 1)],
                 [("", "main", 1, [0, 1, 2, 3]), ("main", "pin", 0, [4, 5])], "main")
    words = [0xFFFF0200, *block, *DCL_2D, *MOV_R0_C0, *MOV_R0_C0, *MOV_R0_C0, *MOV_R0_C0, END]
    assert listing_lines(aon9(words)) == [
        "    ps_2_0",
        "    dcl_2d s0  // pin<4,5>",
        "",
        '#line 10 "a.hlsl"',
        "    mov r0, c0  // ::main<0,1,2,3>",
        "    mov r0, c0",  # line 11: moved by 1, no directive
        "",
        "#line 20",
        "    mov r0, c0",
        "",
        '#line 5 "b.fxh"',
        "    mov r0, c0",
        "",
        "// approximately 4 instruction slots used",
    ]


def test_slot_count_splits_texture_and_weights_macros() -> None:
    texld = [0x03000042, 0x800F0000, 0xB0E40000, 0xA0E40800]  # texld r0, t0, s0
    nrm = [0x02000024, 0x80070000, 0x80E40000]  # nrm r0.xyz, r0 (3 slots)
    lines = listing_lines(aon9([0xFFFF0200, *texld, *nrm, END]))
    assert lines[1:3] == ["    texld r0, t0, s0", "    nrm r0.xyz, r0"]
    assert lines[-1] == "// approximately 4 instruction slots used (1 texture, 3 arithmetic)"
    single = listing_lines(aon9([0xFFFF0200, *MOV_R0_C0, END]))
    assert single[-1] == "// approximately 1 instruction slot used"


def test_def_number_format() -> None:
    assert fmt_def(0x3C03126F) == "0.00800000038"
    assert fmt_def(0x3F000000) == "0.5"
    assert fmt_def(0x4196D000) == "18.8515625"


def test_bad_payloads_raise_format_errors() -> None:
    with pytest.raises(ShaderFormatError):
        listing_lines(b"\x00" * 8)
    with pytest.raises(ShaderFormatError):
        listing_lines(struct.pack("<4I", 0, 0, 400, 16))
    with pytest.raises(ShaderFormatError):  # instruction length past the end
        listing_lines(aon9([0xFFFF0200, 0x0F000001]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 0xFFFFFFFF), max_size=40), st.sampled_from([0xFFFF0200, 0xFFFE0201]))
def test_random_programs(body: list[int], version: int) -> None:
    try:
        listing_lines(aon9([version, *body]))
    except ShaderFormatError:
        pass

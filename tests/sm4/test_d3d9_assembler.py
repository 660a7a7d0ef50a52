"""The D3D9 (level-9) assembler: text -> tokens worked out by hand from the D3D9 token layout
(d3d9types.h), fxc's level-9 listings read back (Aon9 chunks compared with the originals),
debug directives and notes round-tripping through the printer, errors with line and column."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.header_aon9 import level9_chunks
from shaderkit.isa.d3d9.assembler import assemble, assemble_lines
from shaderkit.isa.d3d9.text import listing_lines

END = 0x0000FFFF
MOV_R0_C0 = [0x02000001, 0x800F0000, 0xA0E40000]
ADD = [0x03000002, 0x80070001, 0x80E40000, 0xA1000002]  # add r1.xyz, r0, -c2.x
DEF = [0x05000051, 0xA00F0006, 0, 0x3F800000, 0x80000000, 0x38D1B717]
DCL_2D = [0x0200001F, 0x90000000, 0xA00F0800]


def words(text: str) -> list[int]:
    data = assemble(text)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def test_pixel_program_by_hand() -> None:
    text = """
    ps_2_0
    def c6, 0, 1, -0, 9.99999975e-005
    dcl_2d s0
    mov r0, c0
    add r1.xyz, r0, -c2.x
    """
    assert words(text) == [0xFFFF0200, *DEF, *DCL_2D, *MOV_R0_C0, *ADD, END]


def test_hand_edit_comments_and_tabs() -> None:
    """What Helix mod's edited listings hold: ';' comments (the D3D9 assembler's own, e.g. Unity's
    '; 45 ALU'), free text after '//' (not fxc's variable notes, so no DBUG block) and a tab after
    the mnemonic."""
    text = """
    ps_2_0 // converted by hand
    ; 3 ALU
    def c6, 0, 1, -0, 9.99999975e-005 ; constants
    dcl_2d s0 // Helix mod's depth texture, can't move
    mov\tr0, c0 // copy; keep
    add r1.xyz,\tr0, -c2.x
    """
    assert words(text) == [0xFFFF0200, *DEF, *DCL_2D, *MOV_R0_C0, *ADD, END]


def test_vertex_program_by_hand() -> None:
    text = """vs_2_x
    dcl_texcoord1 v1
    mad_sat oT0.xy, c0[a0.y], -v1.wzyx_abs, c1.w
    mova a0.x, v1.x
    if_gt c0.x, v1.y
    endif
    """
    assert words(text) == [
        0xFFFE0201,
        0x0200001F, 0x80010005, 0x900F0001,  # usage texcoord (5) index 1; v1 full mask
        # mad: 5 parameter tokens; oT0 (type 6), mask xy, _sat (1 << 20)
        0x05000004, 0xE0130000,
        0xA0E42000, 0xB0550000,  # c0 relative (bit 13), then a0 with .y replicated
        0x9C1B0001,  # v1, swizzle wzyx (3,2,1,0 = 0x1B), modifier abs-negate (12)
        0xA0FF0001,  # c1.w
        0x0200002E, 0xB0010000, 0x90000001,  # mova a0.x (type 3), v1.x
        0x02010029, 0xA0000000, 0x90550001,  # if_gt: opcode 41, comparison 1
        0x0000002B,
        END,
    ]


def test_forms_chosen_by_operand_count() -> None:
    """``break`` without and with a predicate are two opcodes (44, 96); the predicate register
    (type 19) splits its type over bits 28..30 (3) and 11..12 (2)."""
    assert words("ps_2_x\n break\n break p0.x\n if b0\n setp_gt p0, r0, c0") == [
        0xFFFF0201,
        0x0000002C,
        0x01000060, 0xB0001000,
        0x01000028, 0xE0E40800,  # b0: type 14 = 6 + (1 << 3)
        0x0301005E, 0xB00F1000, 0x80E40000, 0xA0E40000,
        END,
    ]


def test_texture_forms_and_library_prefix() -> None:
    text = "lib_4_0_ps_2_0\n texldp r0, t0, s0\n texldb_pp r1.xy, t1.xyw, s1\n texkill t0\n dcl_centroid t2.xy"
    assert words(text) == [
        0x4C500200,  # "LP"
        0x03010042, 0x800F0000, 0xB0E40000, 0xA0E40800,
        0x03020042, 0x80230001, 0xB0F40001, 0xA0E40801,  # _pp (2 << 20); .xyw -> xyww (0xF4)
        0x01000041, 0xB00F0000,
        0x0200001F, 0x80000000, 0xB0430002,  # ps_2 dcl: usage token only bit 31; _centroid (4 << 20)
        END,
    ]


def test_debug_directives_and_notes_print_back() -> None:
    text = [
        "    vs_2_0",
        "    def c7, 0, 1, 0, 0",
        "    dcl_texcoord v0  // vin<0,1,2,3>",
        "",
        '#line 41 "D:\\a\\Common.fxh"',
        "    dp4 oPos.z, v0, c5  // ::VSAlphaTest<12>",
        "    dp4 r0.x, v0, c2",
        "    mov r0.y, c1.x  // Skin::vin<1>, ::result<3>",
        "",
        "#line 40",  # within 2 lines of 41: the instructions before it drift away
        "    max r0.x, r0.x, c7.x",
        "",
        '#line 3 "b.fx"',
        "    mov oPos.w, r0.z",
        "",
        "// approximately 5 instruction slots used",
    ]
    program = assemble_lines(text).program
    assert listing_lines(program) == text


def test_errors_give_line_and_column() -> None:
    cases = {
        "ps_2_0\n  frob r0, r1": (2, 3),  # unknown instruction
        "ps_2_0\n  add r0, r1": (2, 6),  # wrong operand count
        "ps_2_0\n  mov r0, r1.xq": (2, 15),  # bad swizzle component
        "ps_2_0\n  mov r0.yx, r1": (2, 11),  # mask out of order
        "ps_2_0\n  mov r0, r4096": (2, 12),  # register number out of range
        "vs_2_0\n  mov r0, t0": (2, 11),  # no texture registers in vertex shaders
        "ps_2_0\n  dcl_2d r0": (2, 10),  # a sampler declaration of a temp
        "ps_2_0\n  def c0, 1, x, 0, 0": (2, 14),  # not a number
        "ps_3_0\n mov r0, c0  // pin<0,1,2,3,4>": (2, 17),  # a note of five components
        "mov r0, c0": (1, 1),  # no version line
        "ps_2_0\n  +": (2, 4),  # a co-issue mark and no instruction
        "ps_3_0\n  (p0) ": (2, 7),  # a predicate and no instruction
    }
    for text, where in cases.items():
        with pytest.raises(AssemblyError) as info:
            assemble(text)
        assert (info.value.line, info.value.column) == where, text


def test_mapping_tables_from_the_header() -> None:
    lines = """//
// Constant buffer to DX9 shader constant mappings:
//
// Target Reg Buffer  Start Reg # of Regs        Data Conversion
// ---------- ------- --------- --------- ----------------------
// c2         cb1             3         1  ( INT, INT, INT, FLT)
// c4         cb1             6         2  (UINT,UINT,UINT,BOOL)
//
//
// Runtime generated constant mappings:
//
// Target Reg                               Constant Description
// ---------- --------------------------------------------------
// c0                              Vertex Shader position offset
//
//
// Sampler/Resource to DX9 shader sampler mappings:
//
// Target Sampler Source Sampler  Source Resource
// -------------- --------------- ----------------
// s1             s0              t3
//
//
// Level9 shader bytecode:
//
    vs_2_0
    mov oPos, c0

// approximately 1 instruction slot used
""".splitlines()
    (chunk,) = level9_chunks(lines, len(lines))
    assert chunk.fourcc == "Aon9" and chunk.version == 0xFFFE0200
    assert [(m.target_register, m.buffer, m.start_register, m.register_count, m.conversions)
            for m in chunk.constant_buffer_mappings] == [(2, 1, 3, 1, (2, 2, 2, 0)), (4, 1, 6, 2, (3, 3, 3, 1))]
    assert [(m.description, m.target_register) for m in chunk.runtime_constant_mappings] == [(0, 0)]
    assert [(s.target_sampler, s.source_sampler, s.source_resource) for s in chunk.sampler_mappings] == [(1, 0, 3)]
    bad = lines[:5] + ["// c2         cb1             3         1  ( INT, INT, XYZ, FLT)"] + lines[6:]
    with pytest.raises(AssemblyError) as info:
        level9_chunks(bad, len(bad))
    assert info.value.line == 6


def _without_comments(program: bytes) -> list[int]:
    w = struct.unpack(f"<{len(program) // 4}I", program)
    out, pos = [w[0]], 1
    while pos < len(w):
        if w[pos] & 0xFFFF == 0xFFFE:
            pos += 1 + (w[pos] >> 16 & 0x7FFF)
            continue
        out.append(w[pos])
        pos += 1
    return out


def test_corpus_level9_chunks_from_the_listing() -> None:
    """Every level-9 program of fxc's listings: tokens identical to the original's (the DBUG
    comment aside), mapping tables identical; chunks without a DBUG block byte-identical."""
    identical = programs = 0
    for asm in corpus_files("dxbc", "*.fxc.asm"):
        lines = asm.read_text("latin-1").splitlines()
        if not any(line.strip().endswith("shader bytecode:") for line in lines):
            continue
        original = DxbcContainer.from_bytes(Path(str(asm)[: -len(".fxc.asm")] + ".dxbc").read_bytes())
        if original.functions:
            continue  # library functions: see the library tests
        theirs = [c for fourcc in ("Aon9", "XNAP", "XNAS") for c in original.chunks_of(fourcc)]
        stop = next(n for n, line in enumerate(lines) if line.strip().endswith(("_4_0", "_4_1")))
        ours = level9_chunks(lines, stop)
        assert len(ours) == len(theirs), asm.name
        for mine, them in zip(ours, theirs):
            assert _without_comments(mine.program) == _without_comments(them.program), asm.name
            assert (mine.constant_buffer_mappings, mine.sampler_mappings, mine.runtime_constant_mappings,
                    mine.version) == (them.constant_buffer_mappings, them.sampler_mappings,
                                      them.runtime_constant_mappings, them.version), asm.name
            identical += mine.build_fresh() == them.build()
            programs += 1
    if not programs:
        pytest.skip("corpus not found")
    assert programs == 52
    assert identical == 14  # the 38 others carry a DBUG block (types, source) the text does not show


def test_edited_level9_instruction_with_base() -> None:
    """``asm --base``: an edited level-9 instruction replaces the Aon9 program (only that
    instruction's words change, worked by hand); unedited text keeps the chunk."""
    from shaderkit.formats.dxbc.assemble import assemble_with_base
    from shaderkit.formats.dxbc.disasm import listing

    files = corpus_files("dxbc", "directxtk__AlphaTestEffect_VSAlphaTest.dxbc")
    if not files:
        pytest.skip("corpus not found")
    data = files[0].read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    assert assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes() == data
    edited = text.replace("    max r0.x, r0.x, c7.x", "    min r0.x, r0.x, c7.y")
    assert edited != text
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data))
    before = _without_comments(DxbcContainer.from_bytes(data).level9.program)  # type: ignore[union-attr]
    after = _without_comments(out.level9.program)  # type: ignore[union-attr]
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after)
    assert changed == [(0x0300000B, 0x0300000A), (0xA0000007, 0xA0550007)]
    assert listing(out).splitlines() == edited.splitlines()


_PROGRAM = [
    "    vs_2_0",
    "    def c7, 0, 1, 0, 0",
    "    dcl_texcoord v0  // vin<0,1,2,3>",
    "",
    '#line 41 "D:\\a\\Common.fxh"',
    "    dp4 oPos.z, v0, c5  // ::VSAlphaTest<12>",
    "    mad oPos.xy, r0.z, c0[a0.x], -r0_abs",
    "    if_gt c0.x, v1.y",
    "",
    "#line 12",
    "    texldp r0, t0, s0",
    "// approximately 5 instruction slots used",
]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_mutated_text_gives_assembly_errors_or_programs(data: st.DataObject) -> None:
    """Characters inserted, dropped or replaced, numbers grown: an AssemblyError with a line,
    or a program (never another exception)."""
    lines = list(_PROGRAM)
    for _ in range(data.draw(st.integers(1, 3))):
        n = data.draw(st.integers(0, len(lines) - 1))
        at = data.draw(st.integers(0, len(lines[n])))
        action = data.draw(st.sampled_from(["insert", "drop", "cut", "number"]))
        if action == "insert":
            lines[n] = lines[n][:at] + data.draw(st.sampled_from(list("xyzw0189_.,[]-!<>#\" rvctoasp"))) + lines[n][at:]
        elif action == "drop":
            lines[n] = lines[n][:at] + lines[n][at + 1 :]
        elif action == "cut":
            lines[n] = lines[n][:at]
        else:
            lines[n] = lines[n][:at] + str(data.draw(st.integers(0, 1 << 40))) + lines[n][at:]
    try:
        assemble_lines(lines)
    except AssemblyError as exc:
        assert exc.line >= 1


def test_edited_level9_program_of_a_library_function() -> None:
    """The level-9 programs of library functions follow their text with ``--base`` too."""
    from shaderkit.formats.dxbc.assemble import assemble_with_base
    from shaderkit.formats.dxbc.disasm import listing

    files = corpus_files("dxbc", "dxdecompiler__Internal_Misc_LibraryTest_4_Level_9_3.dxbc")
    if not files:
        pytest.skip("corpus not found")
    data = files[0].read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    assert assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes() == data
    edited = text.replace("    add r0.xyz, t0, t0", "    mul r0.xyz, t0, t0", 1)
    assert edited != text
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data))
    assert listing(out).splitlines() == edited.splitlines()

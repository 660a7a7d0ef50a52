"""disasm -> asm on self-made programs using what the corpus lacks (loops, calls, jmpu, mova,
relative addressing, int/bool constants, .in, geometry shader modes, several DVLEs)."""

from __future__ import annotations

import pytest

from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dvlb.source import dvlb_to_source

KITCHEN_SINK = """
.fvec mvp[4], lights[8]
.ivec counts
.bool use_light, flags[2]
.consti loop3(3, 0, 1, 0)
.constf one(1.0, 0.5, -2.25, 1e-3)
.setf c80(0.0, 0.25, 1e30, -1e-2)
.setb b9 true
.seti i1(1, 2, 3, 4)
.in pos v0
.in nrm v2
.out opos position
.out oclr color
.out - texcoord0 o2.xy
.out - texcoord1 o2.zw

.proc light
    dp3 r1.x, lights[aL], nrm
    max r1, r1, -r2
    add r3, r3, r1.xxxx
.end

.proc main
    mov r0, pos
    dp4 opos.x, mvp[0], r0
    dp4 opos.y, mvp[1], r0
    dp4 opos.z, mvp[2], r0
    dp4 opos.w, mvp[3], r0
    mova a0.xy, r0.yx
    mov r3, lights[a0.y+2]
    for counts
        call light
        cmp r3, gt, lt, r1
        breakc cmp.x || !cmp.y
    .end
    ifu use_light
        callc !cmp.x && cmp.y, light
        ifc cmp.y
            lg2 r4.y, r3.x
            ex2 r4, r4.y
        .end
    .else
        litp r4, r3
        dst r5, r4, r3
    .end
    jmpu !flags, skip
    dphi r6.x, r0, lights[1]
    sge r6.y, r0, c1
    slt r6.z, r1, c95
    mad r7, r1, c3, r2
    mad r7, r1, r2, c3
skip:
    callu b3, light
    jmpc cmp.x, done
    rcp r8, r7.w
    rsq r8.w, r8.x
    flr r8.xy, -r8
    min r8, r8, r0
done:
    mov oclr, r8
    mov o2, one.zwxy
    end
.end
"""

GEOMETRY = """
.gsh fixed c20 c4 3
.entry gmain
.fvec gsdata[2]
.out gpos position
.out - dummy o6
.proc gmain
    setemit 0
    mov gpos, v0
    emit
    setemit 1, inv
    mov gpos, gsdata[1]
    emit
    setemit 2, prim inv
    mov gpos, v2
    emit
    end
.end
"""

VARIABLE = """
.gsh variable c4 5
.entry vmain
.bool flag
.out vpos position
.proc vmain
    ifu flag
        mov vpos, v1
    .end
    end
.end
"""


def _exact(sources: list[tuple[str, str]]) -> None:
    data = assemble_sources(sources)
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "; !" not in text, text
    assert assemble_sources([("re.pica", text)]) == data, text


def test_kitchen_sink_roundtrip() -> None:
    _exact([("k.pica", KITCHEN_SINK)])


def test_geometry_modes_and_several_dvles_roundtrip() -> None:
    _exact([("k.pica", KITCHEN_SINK), ("g.pica", GEOMETRY), ("v.pica", VARIABLE)])


def test_geometry_header_fields() -> None:
    data = assemble_sources([("g.pica", GEOMETRY)])
    dvle = Dvlb.from_bytes(data).dvles[0]
    assert (dvle.shader_type, dvle.gs_mode, dvle.gs_fixed_vertex_start, dvle.gs_fixed_vertex_num) == (1, 2, 4, 3)
    assert dvle.merge_outmaps == 1  # a dummy output in a geometry shader
    # gsdata is allocated from the geometry pool that starts at c20 (index 0x10 + 20)
    assert [(u.name, u.first_register, u.last_register) for u in dvle.uniforms] == [("gsdata", 0x24, 0x25)]


def test_entry_points_out_of_order_still_rebuild() -> None:
    data = assemble_sources([("k.pica", KITCHEN_SINK), ("v.pica", VARIABLE)])
    model = Dvlb.from_bytes(data)
    model.dvles.reverse()
    model.layout = None
    expected = model.to_bytes()
    assert assemble_sources([("re.pica", dvlb_to_source(model))]) == expected


@pytest.mark.parametrize("value", ["0.1", "-3.5e-7", "65504.0", "1e38", "inf", "-inf", "1e-19"])
def test_float_constants_keep_their_float24_bits(value: str) -> None:
    _exact([("f.pica", f".constf k({value}, {value}, 0.0, 1.0)\n.proc main\n mov r0, k\n end\n.end\n")])


def test_constant_array_allocates_from_the_top() -> None:
    src = (".constfa arr[3]\n.constfa (1.0, 2.0, 0.5, 0.0)\n.constfa (0.0, 0.0, 0.0, -1.0)\n.end\n"
           ".proc main\n mov r0, arr[1]\n end\n.end\n")
    data = assemble_sources([("a.pica", src)])
    consts = Dvlb.from_bytes(data).dvles[0].constants
    # 3 registers from the top: c93, c94, c95; the missing third element is zero
    # f24: 1.0 = 0x3F0000, 2.0 = 0x400000, 0.5 = 0x3E0000, -1.0 = sign | 0x3F0000 = 0xBF0000
    assert [(c.register, c.words) for c in consts] == [
        (93, (0x3F0000, 0x400000, 0x3E0000, 0)), (94, (0, 0, 0, 0xBF0000)), (95, (0, 0, 0, 0))]
    # mov r0, c94: 0x13<<26 | dst r0 0x10<<21 | src1 (0x20 + 94)<<12
    assert Dvlb.from_bytes(data).dvlp.code[0] == 0x4C000000 | 0x10 << 21 | 0x7E << 12
    _exact([("a.pica", src)])


def test_point_geometry_shader_with_its_own_uniform_space() -> None:
    vertex = ".fvec mvp[4]\n.proc main\n mov o0, mvp[1]\n end\n.end\n"
    # its uniform sits at c0 too: only a separate (".gsh point") space can hold both
    geometry = (".gsh point c0\n.entry gmain\n.fvec gdata\n.out gpos position\n"
                ".proc gmain\n setemit 0\n mov gpos, gdata\n emit\n end\n.end\n")
    data = assemble_sources([("v.pica", vertex), ("g.pica", geometry)])
    gs = Dvlb.from_bytes(data).dvles[1]
    assert [(u.name, u.first_register) for u in gs.uniforms] == [("gdata", 0x10)]
    _exact([("v.pica", vertex), ("g.pica", geometry)])


def test_geometry_shader_before_a_vertex_shader_keeps_its_own_uniform_space() -> None:
    # a ".gsh point c0" file first: its uniform takes c0-c1 of its own space, so the vertex file
    # after it still starts the shared space at c0 (0x10). A bare ".gsh" writes the same header,
    # but would put gdata in the shared space and push mvp to c2 (0x12): the disassembly must
    # choose the mode from the later DVLE too.
    geometry = (".gsh point c0\n.fvec gdata[2]\n.out gpos position\n"
                ".proc main\n setemit 0\n mov gpos, gdata[1]\n emit\n end\n.end\n")
    vertex = ".fvec mvp[4]\n.entry vmain\n.proc vmain\n mov o0, mvp[1]\n end\n.end\n"
    data = assemble_sources([("g.pica", geometry), ("v.pica", vertex)])
    gs, vs = Dvlb.from_bytes(data).dvles
    assert [(u.name, u.first_register, u.last_register) for u in gs.uniforms] == [("gdata", 0x10, 0x11)]
    assert [(u.name, u.first_register, u.last_register) for u in vs.uniforms] == [("mvp", 0x10, 0x13)]
    assert ".gsh point c0" in dvlb_to_source(Dvlb.from_bytes(data))
    _exact([("g.pica", geometry), ("v.pica", vertex)])


def test_input_register_15_is_written_as_v14_plus_one() -> None:
    # picasso refuses the name "v15", so the disassembly names that input v14[1] (reg 14 + offset 1)
    src = ".alias hi v14[1]\n.in pos v14[1]\n.proc main\n mov r0, pos\n mad r1, hi, c0, r2\n end\n.end\n"
    data = assemble_sources([("v.pica", src)])
    model = Dvlb.from_bytes(data)
    # .in pos: uniform table entry for input 15 (first = last = 0x0F), input mask bit 15
    assert [(u.name, u.first_register, u.last_register) for u in model.dvles[0].uniforms] == [("pos", 15, 15)]
    assert model.dvles[0].input_mask == 0x8000
    # mov r0, v15: opcode 0x13 << 26 | dst r0 (0x10) << 21 | src1 v15 (0x0F) << 12
    assert model.dvlp.code[0] == 0x13 << 26 | 0x10 << 21 | 0x0F << 12
    text = dvlb_to_source(model)
    assert ".in pos v14[1]" in text, text
    assert not any("v15" in line for line in text.splitlines() if not line.startswith(";")), text
    _exact([("v.pica", src)])


def test_constants_read_numbers_as_c_atof_and_atoi() -> None:
    # picasso reads .constf values with atof (strtod: C99 hex floats, "1e" is 1.0, "0xg" is the 0
    # before the x) and .consti values, sizes and offsets with atoi ((int)strtol: saturated to
    # 64 bits, then the low 32 bits)
    src = (".constf k(0x10, 0x1.8p1, -0X.8, 0x1p-3)\n.constf k2(0xg, 0x, 1e, infinity)\n"
           ".consti q(99999999999999999999, -99999999999999999999, 4294967297, 0x10)\n"
           ".fvec u[4294967297]\n"
           ".proc main\n mov r0, k\n mov r0, k2\n mov r1, u[0]\n mov r0, c0[4294967298]\n end\n.end\n")
    data = assemble_sources([("n.pica", src)])
    model = Dvlb.from_bytes(data)
    # float24 = sign << 23 | (exponent + 63) << 16 | mantissa >> 7: 16.0 = 0x430000,
    # 3.0 = 0x408000, -0.5 = 0xBE0000, 0.125 = 0x3C0000, 1.0 = 0x3F0000, inf = 0x7F0000
    # ivec: LONG_MAX -> (int) -1 -> 0xFF, LONG_MIN -> (int) 0, 2**32 + 1 -> 1, atoi("0x10") = 0
    assert [(c.type, c.register, c.words) for c in model.dvles[0].constants] == [
        (2, 95, (0x430000, 0x408000, 0xBE0000, 0x3C0000)),
        (2, 94, (0, 0, 0x3F0000, 0x7F0000)),
        (1, 3, (0xFF | 0 << 8 | 1 << 16 | 0 << 24, 0, 0, 0))]
    # u[2**32 + 1] is one register; c0[2**32 + 2] is c2: mov r0 = 0x13 << 26 | 0x10 << 21 | (0x20 + 2) << 12
    assert [(u.name, u.first_register, u.last_register) for u in model.dvles[0].uniforms] == [("u", 0x10, 0x10)]
    assert model.dvlp.code[3] == 0x13 << 26 | 0x10 << 21 | 0x22 << 12
    _exact([("n.pica", src)])


def test_integer_arguments_read_as_strtoll() -> None:
    # picasso's parseInt: strtoll(text, &end, 0) must read something, the rest is ignored
    src = ".gsh variable c0 0x0Avertices\n.proc main\n setemit 2x\n setemit 0zero\n emit\n end\n.end\n"
    data = assemble_sources([("g.pica", src)])
    model = Dvlb.from_bytes(data)
    assert (model.dvles[0].gs_mode, model.dvles[0].gs_variable_vertex_num) == (1, 10)
    # setemit: opcode 0x2B << 26, vertex id in bits 24-25
    assert model.dvlp.code[:2] == [0x2B << 26 | 2 << 24, 0x2B << 26]
    _exact([("g.pica", src)])


def test_unknown_setemit_flag_is_skipped_as_picasso_does() -> None:
    # picasso prints "unknown setemit flag" but its parseSetEmitFlags result is not checked: the
    # word is written with the flags it knows (prim = bit 23, vertex id 1 in bits 24-25)
    src = ".gsh\n.proc main\n setemit 1, bogus prim\n emit\n end\n.end\n"
    data = assemble_sources([("g.pica", src)])
    assert Dvlb.from_bytes(data).dvlp.code[0] == 0x2B << 26 | 1 << 23 | 1 << 24


def test_indexed_temporary_is_written_through_an_alias() -> None:
    # picasso refuses "r3[a0.x]" (index register not allowed with this kind of register) but
    # takes an alias of r3 with an index: the disassembly declares one
    src = ".alias foo r3\n.proc main\n mov r0, foo[a0.x]\n mad r1, r2, r5, foo[a0.y]\n end\n.end\n"
    data = assemble_sources([("v.pica", src)])
    model = Dvlb.from_bytes(data)
    # mov: 0x13 << 26 | dst r0 (0x10) << 21 | idx a0.x (1) << 19 | src1 r3 (0x13) << 12
    assert model.dvlp.code[0] == 0x13 << 26 | 0x10 << 21 | 1 << 19 | 0x13 << 12
    text = dvlb_to_source(model)
    assert "r3[" not in text and ".alias temp3 r3" in text, text
    _exact([("v.pica", src)])


def test_empty_uniform_name_as_picasso_accepts_it() -> None:
    # picasso's validateIdentifier accepts "": ".fvec a, , b" declares a, "" and b (c0, c1, c2)
    src = ".fvec a, , b\n.proc main\n mov r0, b\n mov r1, c1\n end\n.end\n"
    data = assemble_sources([("v.pica", src)])
    model = Dvlb.from_bytes(data)
    assert [(u.name, u.first_register) for u in model.dvles[0].uniforms] == [("a", 16), ("", 17), ("b", 18)]
    _exact([("v.pica", src)])


def test_source_text_is_read_as_a_c_string() -> None:
    # picasso assembles a C string: a NUL ends the source; "prim\\v inv" splits (mystrtok_spc) at
    # the space only, so "prim\\v" is an unknown flag (skipped) and only inv (bit 22) is set;
    # U+00A0 is no white space to C, so "c1\\xa0" is c1 followed by ignored text
    src = ".gsh\n.proc main\n setemit 1, prim\v inv\n mov r0, c1\xa0\n end\n.end\n\0 garbage\n"
    data = assemble_sources([("g.pica", src)])
    # setemit: 0x2B << 26 | inv << 22 | vertex 1 << 24; mov r0, c1: 0x13 << 26 | 0x10 << 21 | 0x21 << 12
    assert Dvlb.from_bytes(data).dvlp.code == [0x2B << 26 | 1 << 22 | 1 << 24, 0x13 << 26 | 0x10 << 21 | 0x21 << 12,
                                                0x22 << 26]


def test_line_markers_rename_the_position_of_errors() -> None:
    from shaderkit.errors import AssemblyError

    # "# N file": the next line is line N of that file; a word that is no number is line 0
    # (atoi), so after "#version 120" the next line is line 0 of file "120"
    with pytest.raises(AssemblyError) as info:
        assemble_sources([("a.pica", '# 10 "x.pica"\n.proc main\n foo\n end\n.end\n')])
    assert (info.value.filename, info.value.line) == ("x.pica", 11)
    with pytest.raises(AssemblyError) as info:
        assemble_sources([("a.pica", "#version 120\n\n.proc main\n foo\n end\n.end\n")])
    assert (info.value.filename, info.value.line) == ("120", 2)


def _hand_made(code: list[int], opdescs: list[int]) -> bytes:
    from shaderkit.formats.dvlb.dvlb import Dvle, Dvlp, OperandDescriptor

    dvle = Dvle(main_offset=0, endmain_offset=len(code))
    return Dvlb(dvlp=Dvlp(code=code, opdescs=[OperandDescriptor(d) for d in opdescs]), dvles=[dvle]).to_bytes()


# words by hand (reference/pica.md): IFU 0x27 << 26 | DST << 10 | bool id << 22; MOV 0x13 << 26 |
# dst << 21 | src1 << 12 | desc; MOVA 0x12 << 26; END 0x22 << 26. Descriptor 0x36F: mask xyzw (0xF),
# src1 swizzle xyzw (0x1B << 5); 0x36E: the same with mask xyz.
_MOV_R0_R1 = 0x13 << 26 | 0x10 << 21 | 0x11 << 12


def test_nested_blocks_without_padding_nop_get_the_no_nop_pragma() -> None:
    # picasso before v2.5 wrote "ifu b0 / ifu b1 / mov / mov / .end / .end / end" without the NOP
    # that later versions put after the inner .end (a block may not end right after another one)
    code = [0x27 << 26 | 4 << 10, 0x27 << 26 | 4 << 10 | 1 << 22, _MOV_R0_R1, _MOV_R0_R1, 0x22 << 26]
    data = _hand_made(code, [0x36F])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "; shaderkit: no-nop" in text and "; !" not in text, text
    assert assemble_sources([("re.pica", text)]) == data
    # without the pragma, the padding NOP comes back (6 words)
    plain = text.replace("; shaderkit: no-nop", "")
    assert len(Dvlb.from_bytes(assemble_sources([("re.pica", plain)])).dvlp.code) == 6


def test_mova_may_share_a_descriptor_whose_mask_has_z() -> None:
    # picasso v2.0 gave "mova a0.xy" the descriptor of the "mov r0.xyz" before it (mask xyz): MOVA
    # never reads z, and the desc pragma keeps the descriptor
    code = [0x13 << 26 | 0x10 << 21 | 0x11 << 12, 0x12 << 26 | 0x11 << 12, 0x22 << 26]
    data = _hand_made(code, [0x36E])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "mova a0.xy, r1" in text and "; !" not in text, text
    assert assemble_sources([("re.pica", text)]) == data


def test_inverted_form_with_two_narrow_sources_keeps_its_opcode() -> None:
    # picasso v1.0 wrote "sgei r0.x, r1, r2" as asked; later versions choose sge for two narrow
    # sources, so the text says "inverted" in its descriptor pragma. SGEI (format 1i): 0x1A << 26 |
    # dst r0 (0x10) << 21 | src1 r1 (0x11, 5 bits) << 14 | src2 r2 (0x12, 7 bits) << 7 | desc 0;
    # descriptor: mask x (0x8) | src1 xyzw (0x1B << 5) | src2 xyzw (0x1B << 14) = 0x6C368
    code = [0x1A << 26 | 0x10 << 21 | 0x11 << 14 | 0x12 << 7, 0x22 << 26]
    data = _hand_made(code, [0x6C368])
    text = dvlb_to_source(Dvlb.from_bytes(data))
    assert "sge r0.x, r1, r2  ; shaderkit: desc 0 inverted" in text, text
    assert assemble_sources([("re.pica", text)]) == data


def test_signed_zero_keeps_its_sign() -> None:
    # picasso >= v2.7 f32tof24: -0.0 is float32 0x80000000, exponent 0 - 127 + 63 < 0 flushes to
    # sign << 23 = 0x800000 (the "if (!f) return 0" of older picasso is gone); -1e-30 is below the
    # float24 range and flushes the same way; 1.0 = exponent 63 (0x3F) << 16 = 0x3F0000
    src = ".constf k(-1e-30, -0.0, 0.0, 1.0)\n.proc main\n mov r0, k\n end\n.end\n"
    data = assemble_sources([("z.pica", src)])
    assert Dvlb.from_bytes(data).dvles[0].constants[0].words == (0x800000, 0x800000, 0, 0x3F0000)
    _exact([("z.pica", src)])

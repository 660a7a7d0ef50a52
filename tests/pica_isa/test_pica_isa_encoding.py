"""Encodings of the instructions the corpus lacks, worked out by hand from the reference tables.

Each expected word is written with its field breakdown (opcode << 26 | ...); none of them was
produced by the encoder under test.
"""

from __future__ import annotations

import struct

import pytest

from shaderkit.formats.dvlb.build import assemble_sources


def _program(body: str, head: str = "") -> tuple[list[int], list[int], bytes]:
    data = assemble_sources([("t.pica", f"{head}\n.proc main\n{body}\n.end\n")])
    code_off, code_len, desc_off, desc_len = struct.unpack_from("<4I", data, 12 + 8)
    code = list(struct.unpack_from(f"<{code_len}I", data, 12 + code_off))
    descs = list(struct.unpack_from(f"<{2 * desc_len}I", data, 12 + desc_off))[::2]
    return code, descs, data


END = 0x22 << 26  # 0x88000000
NOP = 0x21 << 26  # 0x84000000
ADD_R0_R0_R1 = 0x02010880  # add: 0x00<<26 | dst r0 (0x10)<<21 | src1 r0 (0x10)<<12 | src2 r1 (0x11)<<7 | desc 0
FULL_D12 = 0x6C36F  # dest xyzw 0xF | src1 xyzw (0x1B<<1)<<4 | src2 xyzw (0x1B<<1)<<13


@pytest.mark.parametrize(
    ("body", "words", "descs"),
    [
        # lg2 0x06<<26=0x18000000 | dst r1 0x11<<21=0x2200000 | src1 r2 0x12<<12=0x12000
        # desc: mask x=0x8 | src1 yyyy (0x55<<1)<<4=0xAA0
        ("lg2 r1.x, r2.y", [0x1A212000], [0xAA8]),
        # dst 0x04<<26=0x10000000 | dst r0 0x2000000 | src1 r1 0x11000 | src2 r2 0x12<<7=0x900
        ("dst r0, r1, r2", [0x12011900], [FULL_D12]),
        # litp 0x07<<26=0x1C000000 | dst r0 0x2000000 | src1 r1 0x11000; desc xyzw, src1 xyzw = 0x36F
        ("litp r0, r1", [0x1E011000], [0x36F]),
        # dph with a wide src2 -> dphi 0x18<<26=0x60000000 | dst 0x2000000 | src1 r1 0x11<<14=0x44000
        #   | src2 c3 0x23<<7=0x1180
        ("dph r0, r1, c3", [0x62045180], [FULL_D12]),
        # sge -> sgei 0x1A<<26=0x68000000 | dst r0 0x2000000 | src1 v0 0 | src2 c1 0x21<<7=0x1080
        ("sge r0, v0, c1", [0x6A001080], [FULL_D12]),
        # slt -> slti 0x1B<<26=0x6C000000 | dst r2 0x12<<21=0x2400000 | src1 r3 0x13<<14=0x4C000
        #   | src2 c0 0x20<<7=0x1000
        ("slt r2, r3, c0", [0x6E44D000], [FULL_D12]),
        # mad with wide src3 -> madi 0x30<<26=0xC0000000 | dst r0 0x10<<24 | src1 r1 0x11<<17=0x220000
        #   | src2 r2 0x12<<12=0x12000 | src3 c4 0x24<<5=0x480; desc D123 identity = 0xD86C36F
        ("mad r0, r1, r2, c4", [0xD0232480], [0xD86C36F]),
        # mad 0x38<<26=0xE0000000 | dst 0x10000000 | src1 0x220000 | src2 c4 0x24<<10=0x9000
        #   | src3 r2 0x12<<5=0x240
        ("mad r0, r1, c4, r2", [0xF0229240], [0xD86C36F]),
        # break 0x20<<26
        ("break", [0x80000000], []),
        # mova 0x12<<26=0x48000000 | src1 r1 0x11<<12=0x11000, desc 0: a0.x mask 0x8 | yyyy 0xAA0
        # mov 0x13<<26=0x4C000000 | dst r0 0x2000000 | idx a0.x 1<<19=0x80000 | src1 c2 0x22<<12
        #   | desc 1 (0x36F: the mova descriptor has another dest mask)
        ("mova a0.x, r1.y\n mov r0, c0[a0.x+2]", [0x48011000, 0x4E0A2001], [0xAA8, 0x36F]),
        # mova a0.xy: mask 0xC; mov with aL: idx 3<<19=0x180000 | c5 0x25<<12=0x25000
        ("mova a0.xy, r1\n mov r0, c5[aL]", [0x48011000, 0x4E1A5001], [0x36C, 0x36F]),
        # relative a0.y on src1 of add: idx 2<<19=0x100000 | src1 c7 0x27<<12=0x27000 | src2 r1 0x880
        ("add r0, c7[a0.y], r1", [0x02127880], [FULL_D12]),
    ],
)
def test_hand_encoded_instructions(body: str, words: list[int], descs: list[int]) -> None:
    code, table, _ = _program(body + "\n end")
    assert code == [*words, END]
    assert table == descs


def test_loop_encodes_int_register_and_last_body_word() -> None:
    # loop 0x29<<26=0xA4000000 | int id 1<<22=0x400000 | DST = last body word (1) << 10
    code, _, _ = _program("for i1\n add r0, r0, r1\n.end\nend")
    assert code == [0xA4400400, ADD_R0_R0_R1, END]


def test_breakc_inside_loop() -> None:
    # breakc 0x23<<26=0x8C000000 | refx 1<<25 | refy 1<<24 | condop X-only 2<<22 -> 0x8F800000
    code, _, _ = _program("for i0\n breakc cmp.x\n add r0, r0, r1\n.end\nend")
    assert code == [0xA4000800, 0x8F800000, ADD_R0_R0_R1, END]


def test_loop_ending_in_breakc_gets_padding_nop() -> None:
    # breakc !cmp.y: refx 1<<25, refy cleared, condop Y-only 3<<22 -> 0x8EC00000; picasso pads a
    # nop after a trailing breakc, so the loop's last word is 3: 0xA4000000 | 3<<10
    code, _, _ = _program("for i0\n add r0, r0, r1\n breakc !cmp.y\n.end\nend")
    assert code == [0xA4000C00, ADD_R0_R0_R1, 0x8EC00000, NOP, END]


def test_calls_take_target_and_size_of_the_procedure() -> None:
    src = (".bool flag\n.proc sub\n add r0, r0, r1\n mul r0, r0, r1\n.end\n"
           ".proc main\n call sub\n callc cmp.x && !cmp.y, sub\n callu flag, sub\n callu b3, sub\n nop\n end\n.end\n")
    data = assemble_sources([("t.pica", src)])
    code = list(struct.unpack_from("<8I", data, 12 + 40))
    # mul 0x08<<26=0x20000000 | dst r0 0x2000000 | src1 r0 0x10000 | src2 r1 0x880
    assert code[:2] == [ADD_R0_R0_R1, 0x22010880]
    assert code[2:] == [
        0x90000002,  # call 0x24<<26 | DST 0<<10 | NUM 2
        0x96400002,  # callc 0x25<<26 | refx 1<<25 | refy 0 | AND 1<<22 | NUM 2
        0x98000002,  # callu 0x26<<26 | b0 0<<22 | NUM 2
        0x98C00002,  # callu b3: 3<<22
        NOP, END,
    ]
    dvle = struct.unpack_from("<I", data, 8)[0]
    assert struct.unpack_from("<II", data, dvle + 8) == (2, 8)  # main .. endmain


def test_jmpu_inverted_and_label() -> None:
    # jmpu 0x2D<<26=0xB4000000 | b2 2<<22=0x800000 | DST 2<<10=0x800 | NUM bit0 = invert
    code, _, _ = _program("jmpu !b2, skip\n add r0, r0, r1\nskip:\n end")
    assert code == [0xB4800801, ADD_R0_R0_R1, END]


def test_ifu_with_else_sets_else_start_and_length() -> None:
    # ifu 0x27<<26=0x9C000000 | b1 1<<22 | DST = else start (3) << 10 | NUM = else length 2
    code, _, _ = _program("ifu b1\n add r0, r0, r1\n add r0, r0, r1\n.else\n add r0, r0, r1\n"
                          " add r0, r0, r1\n.end\nend")
    assert code == [0x9C400C02] + [ADD_R0_R0_R1] * 4 + [END]


def test_int_bool_and_float_constants() -> None:
    _, _, data = _program("end", ".consti loops(3, 0, 1, 0)\n.setb b5 true\n.setf c10(1.0, -2.0, 0.5, 0)")
    # ivec: type 1, i3 (allocated from the top of i0-i3), bytes 3,0,1,0, 12 zero bytes
    assert bytes.fromhex("0100 0300 03000100") + bytes(12) in data
    # bool: type 0, b5, u32 1, 12 zero bytes
    assert bytes.fromhex("0000 0500 01000000") + bytes(12) in data
    # fvec: type 2, c10, f24 1.0 = exp 63 -> 0x3F0000, -2.0 = sign|exp 64 -> 0xC00000,
    # 0.5 = exp 62 -> 0x3E0000, 0
    assert bytes.fromhex("0200 0a00 00003f00 0000c000 00003e00 00000000") in data


def test_inputs_outputs_and_geometry_header() -> None:
    src = (".gsh variable c8 3\n.in pos v0\n.in tex v3\n.out outpos position\n"
           ".out - texcoord0 o2.xy\n.fvec m[2]\n.proc main\n mov outpos, m[1]\n end\n.end\n")
    data = assemble_sources([("g.pica", src)])
    dvle = struct.unpack_from("<I", data, 8)[0]
    assert data[dvle + 6] == 1  # geometry shader
    assert struct.unpack_from("<HH4B", data, dvle + 0x10) == (0b1001, 0b101, 1, 0, 3, 0)
    out_off, out_count, unif_off, unif_count = struct.unpack_from("<4I", data, dvle + 0x28)
    # outputs: (position, o0, xyzw) and (texcoord0, o2, x|y = bit0|bit1)
    assert data[dvle + out_off: dvle + out_off + 16] == bytes.fromhex("0000 0000 0f000000 0300 0200 03000000")
    # uniforms sorted by register: v0 "pos", v3 "tex", then m at c8-c9 (index 0x18-0x19)
    entries = [struct.unpack_from("<IHH", data, dvle + unif_off + 8 * i) for i in range(unif_count)]
    assert [(first, last) for _, first, last in entries] == [(0, 0), (3, 3), (0x18, 0x19)]

"""Hand-encoded words for what the corpus lacks (loops, geometry rings, memory exports, vertex
fetch, relative addressing), bad input, and a bounded mutation test of the round trip.

Expected words are worked out by hand from the R700 ISA field positions (CF_WORD1: POP_COUNT
0-2, CF_CONST 3-7, COND 8-9, COUNT 10-12, CALL_COUNT 13-18, COUNT_3 19, END_OF_PROGRAM 21,
VALID_PIXEL_MODE 22, CF_INST 23-29, WHOLE_QUAD_MODE 30, BARRIER 31; export word 0: ARRAY_BASE
0-12, TYPE 13-14, RW_GPR 15-21, RW_REL 22, INDEX_GPR 23-29, ELEM_SIZE 30-31; ...).
"""

from __future__ import annotations

import random
import struct

import pytest

from shaderkit.errors import AssemblyError, ShaderFormatError
from shaderkit.isa.latte import assemble, disassemble
from shaderkit.isa.latte import table as T


def words(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


BARRIER = 1 << 31
EOP = 1 << 21


def cf(inst: int, addr: int = 0, **bits: int) -> tuple[int, int]:
    w1 = inst << 23 | BARRIER
    for name, value in bits.items():
        lsb = {"pop": 0, "const": 3, "cond": 8, "count": 10, "call": 13, "vpm": 22}[name]
        w1 |= value << lsb
    return addr, w1


def test_loop_and_geometry_ring_program() -> None:
    # 00 LOOP_START CF_CONST(2) FAIL_JUMP_ADDR(4); 01 EMIT_VERTEX; 02 LOOP_BREAK ADDR(4)
    # 03 LOOP_END CF_CONST(2) PASS_JUMP_ADDR(1); 04 MEM_RING WRITE_IND ... END_OF_PROGRAM
    loop_start = cf(0x04, 4, const=2)
    emit = cf(0x15)
    brk = cf(0x09, 4)
    loop_end = cf(0x05, 1, const=2)
    # MEM_RING (0x26): TYPE 1 (WRITE_IND), ARRAY_BASE 3 (12 bytes), RW_GPR 2, INDEX_GPR 5,
    # ELEM_SIZE 3; word 1: ARRAY_SIZE 4, COMP_MASK 0xF, BURST_COUNT 1
    ring0 = 3 | 1 << 13 | 2 << 15 | 5 << 23 | 3 << 30
    ring1 = 4 | 0xF << 12 | 1 << 17 | EOP | 0x26 << 23 | BARRIER
    program = words(*loop_start, *emit, *brk, *loop_end, ring0, ring1)
    text = disassemble(program)
    assert text == (
        "00 LOOP_START CF_CONST(2) FAIL_JUMP_ADDR(4)\n\n"
        "  01 EMIT_VERTEX\n\n"
        "  02 LOOP_BREAK ADDR(4)\n\n"
        "  03 LOOP_END CF_CONST(2) PASS_JUMP_ADDR(1)\n\n"
        "04 MEM_RING: WRITE(12 + R5), R2.xyzw ARRAY_SIZE(4) ELEM_SIZE(3) BURSTCNT(1)\n"
        "\nEND_OF_PROGRAM\n")
    assert assemble(text) == program


def test_stream_scratch_exports_and_conditions() -> None:
    # MEM_SCRATCH (0x24) READ (TYPE 2) base 2 -> 32 bytes; MEM_STREAM1 (0x21) READ -> INVALID_READ
    scratch = (2 | 2 << 13 | 7 << 15, 0x3 << 12 | 0x24 << 23)
    stream = (1 << 13 | 1 << 15 | 1 << 22, 0x21 << 23 | BARRIER | 1 << 30)
    push = cf(0x0B, cond=2, const=5, pop=1, vpm=1)
    call = cf(0x12, 7, call=3)
    program = words(*scratch, *stream, *push, *call[:1], call[1] | EOP)
    text = disassemble(program)
    assert text.splitlines()[0] == "00 MEM_SCRATCH: READ(32), R7.xy__ ARRAY_SIZE(0) NO_BARRIER"
    # TYPE 1 is WRITE_IND, not a read: a stream write with index register 0
    assert text.splitlines()[2] == "01 MEM_STREAM1: WRITE(0 + R0), R[AL + 1].____ ARRAY_SIZE(0) WHOLE_QUAD"
    assert text.splitlines()[4] == "02 PUSH CND(BOOL) CF_CONST(5) POP_CNT(1) VALID_PIX  ; shaderkit: BARRIER=1"
    assert text.splitlines()[6] == "03 CALL CALL_COUNT(3) ADDR(7)"
    assert assemble(text) == program


def test_alu_relative_kcache_and_transcendental() -> None:
    # CF: ALU_PUSH_BEFORE (9) ADDR(2) CNT(3) KCACHE0 LOCK_2 bank 1 addr 2, KCACHE1 loop-index bank 3
    cf_w0 = 2 | 1 << 22 | 3 << 26 | 2 << 30
    cf_w1 = 3 | 2 << 2 | 2 << 18 | 9 << 26 | BARRIER
    end = cf(0x19)
    # x: MOV R1[AR.y].x, -KC0[3].y  (OP2 MOV 0x19, WRITE_MASK, SRC1 = 0.0f)
    mov0 = 131 | 1 << 10 | 1 << 12 | 248 << 13 | 1 << 26
    mov1 = 1 << 4 | 0x19 << 7 | 1 << 21 | 1 << 28
    # t: RECIP_IEEE R2.w, |KC1[0].x| SCL_122 CLAMP, LAST  (0x66, transcendental only)
    rcp0 = 160 | 248 << 13 | 1 << 31
    rcp1 = 1 | 1 << 4 | 0x66 << 7 | 1 << 18 | 2 << 21 | 3 << 29 | 1 << 31
    # second group: MULADD_D2 R3.z, PV1.x, (literal 2.0), -R4.w  (OP3 0x13), LAST, literal slot
    mad0 = 254 | 253 << 13 | 1 << 31
    mad1 = 4 | 3 << 10 | 1 << 12 | 0x13 << 13 | 3 << 21 | 2 << 29
    program = words(cf_w0, cf_w1, *end, mov0, mov1, rcp0, rcp1, mad0, mad1, 0x40000000, 0)
    text = disassemble(program)
    assert text.splitlines()[0] == (
        "00 ALU_PUSH_BEFORE: ADDR(2) CNT(3) KCACHE0(CB1:32-63) KCACHE1(CB3:AL+0-AL+31)")
    assert text.splitlines()[1] == "  0   x: MOV             R1[AR.y].x, -KC0[3].y"
    assert text.splitlines()[2] == "      t: RECIP_IEEE      R2.w, |KC1[0].x| CLAMP SCL_122"
    assert text.splitlines()[4] == (
        "  1   z: MULADD_D2       R3.z, PV0.x, (0x40000000, 2), -R4.w")
    assert assemble(text) == program


def test_tex_and_vertex_fetch_fields() -> None:
    # TEX ADDR(4) CNT(1); VTX ADDR(6) CNT(1) with END_OF_PROGRAM
    tex_cf = cf(0x01, 4)
    vtx_cf = (6, 0x02 << 23 | BARRIER | EOP)
    # SAMPLE_L (0x11) R3.xy_1, R1.xyz0 t2 s4, LOD_BIAS -0.5 (-4 -> 0x7C), DENORM(W), XOFFSET(1.5)
    t0 = 0x11 | 2 << 8 | 1 << 16
    t1 = 3 | 0 << 9 | 1 << 12 | 7 << 15 | 5 << 18 | 0x7C << 21 | 0x7 << 28
    t2 = 3 | 4 << 15 | 0 << 20 | 1 << 23 | 2 << 26 | 4 << 29
    # FETCH R5.xyzw, R0.y, b130 FORMAT(FMT_32_32_32_FLOAT=48 SCALED SIGNED 1) MEGA(16) OFFSET(8)
    v0 = 0 | 2 << 5 | 130 << 8 | 0 << 16 | 1 << 24 | 15 << 26
    v1 = 5 | 0 << 9 | 1 << 12 | 2 << 15 | 3 << 18 | 48 << 22 | 2 << 28 | 1 << 30 | 1 << 31
    v2 = 8 | 2 << 16 | 1 << 19
    program = words(*tex_cf, *vtx_cf, 0, 0, 0, 0, t0, t1, t2, 0, v0, v1, v2, 0)
    text = disassemble(program)
    lines = text.splitlines()
    # (the fourth words are 0, not the 0x0DEADFEC Nintendo's compiler writes: a note says so)
    assert lines[2] == ("  0      SAMPLE_L        R3.xy_1, R1.xyz0, t2, s4 LOD(-0.5) DENORM(W) XOFFSET(1.5)"
                        "  ; shaderkit: PADDING=0")
    assert lines[6] == ("  1      FETCH           R5.xyzw, R0.y, b130 FETCH_TYPE(NO_INDEX_OFFSET) "
                        "FORMAT( 48 SCALED SIGNED 1) MEGA(16) OFFSET(8) ENDIAN_SWAP(8IN32)  ; shaderkit: PADDING=0")
    assert assemble(text) == program


def test_hidden_bits_become_notes_and_come_back() -> None:
    # NOP with ADDR and reserved bit 20 set; data after the end; a larger size
    program = words(5, 1 << 20 | EOP, 0, 0, 0xDEADBEEF, 0, 0, 0)
    text = disassemble(program)
    assert text == ("00 NOP  ; shaderkit: ADDR=5 W1_RESERVED20=1\n\nEND_OF_PROGRAM\n"
                    "; shaderkit: data 16 0xDEADBEEF 0x00000000\n; shaderkit: size 32\n")
    assert disassemble(program, notes=False) == "00 NOP\n\nEND_OF_PROGRAM\n"
    assert assemble(text) == program
    assert assemble(disassemble(program, notes=False)) == words(0, EOP)


def test_layouts_cover_every_bit_once() -> None:
    layouts = [v for k, v in vars(T).items() if k.isupper() and not k.startswith("_") and isinstance(v, tuple) and v
               and isinstance(v[0], tuple) and len(v[0]) == 3 and isinstance(v[0][1], int)]
    assert len(layouts) >= 17
    for lay in layouts:
        mask = 0
        for _, lsb, width in lay:
            bits = ((1 << width) - 1) << lsb
            assert not mask & bits
            mask |= bits
        assert mask == 0xFFFFFFFF


def test_opcodes_fit_their_fields() -> None:
    widths = {"CF_INST": 7, "EXP_INST": 7, "CF_ALU_INST": 4, "TEX_INST": 5, "VTX_INST": 5}
    for table, bits in widths.items():
        for _, value in getattr(T, table):
            assert 0 <= value < 1 << bits
    assert all(op.value < 1 << 8 for op in T.OP2)  # ENCODING (the top 3 of 11 bits) stays 0
    assert all(4 <= op.value < 1 << 5 for op in T.OP3)  # ENCODING != 0


@pytest.mark.parametrize("program", [
    b"\x00" * 7,  # not a multiple of 8
    words(40, 0x01 << 23 | EOP),  # TEX clause outside the program
    words(0, 8 << 26 | 0 << 18, 0x1F << 7, 0),  # ALU group without LAST running off the end
])
def test_bad_programs_raise_format_error(program: bytes) -> None:
    with pytest.raises(ShaderFormatError):
        disassemble(program)


@pytest.mark.parametrize("text", [
    "00 FOO\n",
    "00 ALU: ADDR(2) CNT(1)\n  0   x: MOV R1.x\n",
    "00 ALU: ADDR(2) CNT(1)\n  0   x: MOV R1.x, Q7\n",
    "00 EXP_DONE: POS0, R1\n",
    "END_OF_PROGRAM\n",
    "00 TEX: ADDR(2) CNT(2)\n  0      SAMPLE R1.xyzw, R0.xy00, t0, s0\n",
    "; shaderkit: bogus\n",
    "00 NOP  ; shaderkit: ADDR\n",
    "00 ALU: ADDR(2) CNT(1)\n  0   x: MOV             R200.x, R0.x\n",  # R200 does not fit 7 bits
    "00 EXP_DONE: POS-61, R1.xyzw\n",  # ARRAY_BASE -1
    "00 NOP  ; shaderkit: CF_CONST=32\n",
])
def test_bad_text_raises_assembly_error(text: str) -> None:
    with pytest.raises(AssemblyError):
        assemble(text)


def test_mutated_programs_round_trip() -> None:
    # bounded mutation test: any program the disassembler accepts comes back byte for byte
    rng = random.Random(13)
    base = words(*cf(0x13), 2, 8 << 26 | 1 << 18 | BARRIER, 0x27 << 23 | EOP | BARRIER | 60 | 1 << 13, 0,
                 0xF8 | 1 << 31, 1 << 4 | 0x19 << 7, 0x3F800000, 0)
    done = 0
    for _ in range(400):
        data = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            text = disassemble(bytes(data))
        except ShaderFormatError:
            continue
        assert assemble(text) == bytes(data), text
        done += 1
    assert done > 100


def _alu_program(word0: int, word1: int) -> bytes:
    # 00 ALU: ADDR(2) CNT(1); 01 NOP END_OF_PROGRAM; one ALU instruction (LAST) at slot 2
    return words(2, 8 << 26 | BARRIER, 0, EOP, word0 | 1 << 31, word1)


@pytest.mark.parametrize("op", T.OP2, ids=lambda op: op.name)
def test_every_op2_opcode(op: T.AluOp) -> None:
    # dst R1.x written (or R1.w for transcendental-only ops in t), sources R2.y / R3.z
    w0 = 2 | 1 << 10 | 3 << 13 | 2 << 23
    w1 = 1 << 4 | op.value << 7 | 1 << 21 | (3 if op.trans_only else 0) << 29
    program = _alu_program(w0, w1)
    text = disassemble(program)
    assert f": {op.name} " in text
    assert assemble(text) == program


@pytest.mark.parametrize("op", T.OP3, ids=lambda op: op.name)
def test_every_op3_opcode(op: T.AluOp) -> None:
    w0 = 2 | 1 << 10 | 3 << 13 | 2 << 23
    w1 = 4 | 3 << 10 | op.value << 13 | 1 << 21 | (3 if op.trans_only else 0) << 29
    program = _alu_program(w0, w1)
    text = disassemble(program)
    assert f": {op.name} " in text and "R4.w" in text
    assert assemble(text) == program


@pytest.mark.parametrize(("name", "value"), T.CF_INST, ids=[n for n, _ in T.CF_INST])
def test_every_cf_opcode(name: str, value: int) -> None:
    # each CF instruction with ADDR 9 (bytes after the end are data), COND BOOL, CF_CONST 3,
    # POP_COUNT 1, VALID_PIX, then END_PROGRAM; clause instructions point at a zero clause
    w1 = value << 23 | 2 << 8 | 3 << 3 | 1 | 1 << 22
    addr = 2 if name in ("TEX", "VTX", "VTX_TC") else 9
    program = words(addr, w1, 0, 0x19 << 23 | EOP, 0, 0, 0, 0)
    text = disassemble(program)
    assert text.startswith(f"00 {name}")
    assert assemble(text) == program


@pytest.mark.parametrize(("name", "value"), T.EXP_INST, ids=[n for n, _ in T.EXP_INST])
def test_every_export_opcode(name: str, value: int) -> None:
    w0 = 5 | 1 << 13 | 4 << 15 | 6 << 23
    w1 = 0x5 | 0xA << 12 | 2 << 17 | value << 23 | EOP
    program = words(w0, w1)
    text = disassemble(program)
    assert text.startswith(f"00 {name}:")
    assert assemble(text) == program


@pytest.mark.parametrize(("name", "value"), T.TEX_INST, ids=[n for n, _ in T.TEX_INST])
def test_every_tex_opcode(name: str, value: int) -> None:
    t0 = value | 1 << 8 | 2 << 16
    t1 = 3 | 0 << 9 | 1 << 12 | 2 << 15 | 3 << 18 | 0xF << 28
    t2 = 1 << 15 | 0 << 20 | 1 << 23 | 2 << 26 | 3 << 29
    program = words(2, 0x01 << 23 | EOP, 0, 0, t0, t1, t2, 0)
    text = disassemble(program)
    shown = {"VTX_FETCH": "FETCH", "VTX_SEMANTIC": "SEMANTIC"}.get(name, name)
    assert f"    {shown} " in text
    assert assemble(text) == program


@pytest.mark.parametrize(("name", "value"), T.VTX_INST, ids=[n for n, _ in T.VTX_INST])
def test_every_vtx_opcode(name: str, value: int) -> None:
    v0 = value | 1 << 8 | 2 << 16 | 3 << 26
    v1 = 3 | 0 << 9 | 1 << 12 | 2 << 15 | 3 << 18 | 1 << 21
    v2 = 16 | 1 << 19
    program = words(2, 0x02 << 23 | EOP, 0, 0, v0, v1, v2, 0)
    text = disassemble(program)
    assert f"    {name} " in text
    assert assemble(text) == program


def test_cemu_hashes_worked_by_hand() -> None:
    from shaderkit.isa.latte.cemu import pixel_base_hash, program_hash, ps_input_key

    # words 1, 2: sum: (0+1)<<3 = 8, (8+2)<<3 = 80; xor: 1 ror 7 = 1<<57, (1<<57 ^ 2) ror 7 =
    # 1<<50 | 2<<57
    assert program_hash(words(1, 2)) == (80, 1 << 50 | 2 << 57)
    assert pixel_base_hash(words(1, 2), 0, []) == 80 + (1 << 50 | 2 << 57)
    # one input 0x100 (semantic 0, default 1): key = (0 + 0x100) rol 7 = 0x8000
    assert ps_input_key(1, [0x100]) == 0x8000
    # position enabled at input 0 (addr 0): key = 0 + 1, then (1 + 0x100) rol 7, then + 0x33
    assert ps_input_key(1 | 1 << 8, [0x100]) == (0x101 << 7) + 0x33


def test_empty_program() -> None:
    assert disassemble(b"") == "" and assemble("") == b""

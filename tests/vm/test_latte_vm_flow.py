"""Latte VM control flow: the R700 stack, diverging lanes, loops, calls, CF conditions and
kills. Programs follow the shapes Mesa's r600 compiler and Nintendo's compiler emit (IF =
ALU_PUSH_BEFORE with PRED_SET + JUMP, ELSE with POP_CNT(1), ENDIF = POP); expected values are
what the shader's structured source computes, worked per lane by hand."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from shaderkit.isa.latte import assemble  # noqa: E402
from shaderkit.vm.latte import LatteShader, VMError  # noqa: E402


def shader(text: str) -> LatteShader:
    return LatteShader.from_code(assemble(text), "pixel")


def f32(values):
    return np.array(values, np.float32)


IF_ELSE = """\
00 ALU_PUSH_BEFORE: ADDR(32) CNT(1)
  0   x: PRED_SETGT ____, R1.x, 0.0f UPDATE_EXEC_MASK UPDATE_PRED
01 JUMP ADDR(3)
02 ALU: ADDR(33) CNT(2)
  1   x: MOV R2.x, (0x41200000, 10)
03 ELSE POP_CNT(1) ADDR(5)
04 ALU_POP_AFTER: ADDR(35) CNT(2)
  2   x: MOV R2.x, (0x41A00000, 20)
05 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_if_else_diverges_per_lane() -> None:
    # if (x > 0) r = 10; else r = 20;
    r = shader(IF_ELSE).run({"R1": f32([[1], [-1], [2], [-2]])})
    assert r.pix[0][:, 0].tolist() == [10, 20, 10, 20]


def test_if_else_all_lanes_one_way() -> None:
    # no lane passes: JUMP goes to the ELSE; every lane takes it
    assert shader(IF_ELSE).run({"R1": f32([[-1], [-3]])}).pix[0][:, 0].tolist() == [20, 20]
    # every lane passes: ELSE leaves none active, jumps past the POP and pops for it
    assert shader(IF_ELSE).run({"R1": f32([[1], [3]])}).pix[0][:, 0].tolist() == [10, 10]


NESTED = """\
00 ALU_PUSH_BEFORE: ADDR(32) CNT(1)
  0   x: PRED_SETGT ____, R1.x, 0.0f UPDATE_EXEC_MASK UPDATE_PRED
01 JUMP POP_CNT(1) ADDR(8)
02 ALU: ADDR(33) CNT(2)
  1   x: MOV R2.x, (0x3F800000, 1)
03 ALU_PUSH_BEFORE: ADDR(35) CNT(1)
  2   x: PRED_SETGT ____, R1.y, 0.0f UPDATE_EXEC_MASK UPDATE_PRED
04 JUMP POP_CNT(2) ADDR(8)
05 ALU: ADDR(36) CNT(2)
  3   y: MOV R2.y, (0x40000000, 2)
06 ELSE POP_CNT(2) ADDR(8)
07 ALU_POP2_AFTER: ADDR(38) CNT(2)
  4   y: MOV R2.y, (0x40400000, 3)
08 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_nested_if_else_with_pop2() -> None:
    # if (x > 0) { a = 1; if (y > 0) b = 2; else b = 3; }
    lanes = f32([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    r = shader(NESTED).run({"R1": lanes})
    assert r.pix[0][:, :2].tolist() == [[1, 2], [1, 3], [0, 0], [0, 0]]
    # lanes where the outer condition fails everywhere: the first JUMP pops and leaves
    assert shader(NESTED).run({"R1": f32([[-1, 1]])}).pix[0][0, :2].tolist() == [0, 0]


LOOP_BREAK = """\
00 LOOP_START_DX10 FAIL_JUMP_ADDR(4)
01 ALU_BREAK: ADDR(32) CNT(1)
  0   x: PRED_SETGT ____, R1.y, R2.x UPDATE_EXEC_MASK UPDATE_PRED
02 ALU: ADDR(33) CNT(1)
  1   x: ADD R2.x, R2.x, 1.0f
03 LOOP_END PASS_JUMP_ADDR(1)
04 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_dx10_loop_with_per_lane_break() -> None:
    # while (true) { if (!(limit > i)) break; i += 1; } -> i = max(limit, 0) rounded up
    limits = [0, 3, 1, 5.5]
    r = shader(LOOP_BREAK).run({"R1": f32([[0, v] for v in limits])})
    assert r.pix[0][:, 0].tolist() == [0, 3, 1, 6]


def test_dx10_loop_without_break_is_stopped() -> None:
    text = ("00 LOOP_START_DX10 FAIL_JUMP_ADDR(3)\n01 ALU: ADDR(32) CNT(1)\n"
            "  0   x: ADD R2.x, R2.x, 1.0f\n02 LOOP_END PASS_JUMP_ADDR(1)\n"
            "03 EXP_DONE: PIX0, R2.xyzw\nEND_OF_PROGRAM\n")
    with pytest.raises(VMError, match="steps"):
        shader(text).run(max_steps=500)


LOOP_AL = """\
00 LOOP_START CF_CONST(3) FAIL_JUMP_ADDR(3)
01 ALU: ADDR(32) CNT(1)
  0   x: ADD R2.x, R2.x, R10[AL].x
02 LOOP_END CF_CONST(3) PASS_JUMP_ADDR(1)
03 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_dx9_loop_constant_drives_al() -> None:
    regs = {f"R{10 + k}": f32([[2 ** k, 0, 0, 0]]) for k in range(8)}
    # count 3, AL from 1, step 2: R11 + R13 + R15 = 2 + 8 + 32
    r = shader(LOOP_AL).run(regs, loops={3: (3, 1, 2)})
    assert r.pix[0][0, 0] == 42
    # raw SQ_LOOP_CONST: count 2 | init 0 << 12 | increment 1 << 24 -> R10 + R11
    assert shader(LOOP_AL).run(regs, loops={3: 2 | 1 << 24}).pix[0][0, 0] == 3
    # count 0 skips the loop
    assert shader(LOOP_AL).run(regs, loops={3: (0, 0, 1)}).pix[0][0, 0] == 0


def test_a_read_relative_to_al_sees_the_register_before_the_group_writes_it() -> None:
    # slot x writes R10.x and slot w reads R10[AL].x (AL 0: R10) in the same group: the group reads
    # first, so R1.w is R10.x's old value 1, not the 7 slot x writes
    text = ("00 LOOP_START CF_CONST(3) FAIL_JUMP_ADDR(3)\n01 ALU: ADDR(32) CNT(2)\n"
            "  0   x: MOV R10.x, R3.x\n      w: MOV R1.w, R10[AL].x\n"
            "02 LOOP_END CF_CONST(3) PASS_JUMP_ADDR(1)\n03 EXP_DONE: PIX0, R1.xyzw\nEND_OF_PROGRAM\n")
    r = shader(text).run({"R3": f32([[7, 0, 0, 0]]), "R10": f32([[1, 0, 0, 0]])}, loops={3: (1, 0, 1)})
    assert r.pix[0][0, 3] == 1


BREAK_IN_IF = """\
00 LOOP_START_DX10 FAIL_JUMP_ADDR(7)
01 ALU: ADDR(32) CNT(1)
  0   x: ADD R2.x, R2.x, 1.0f
02 ALU_PUSH_BEFORE: ADDR(33) CNT(1)
  1   x: PRED_SETGE ____, R2.x, R1.x UPDATE_EXEC_MASK UPDATE_PRED
03 JUMP POP_CNT(1) ADDR(6)
04 LOOP_BREAK POP_CNT(1) ADDR(6)
05 POP POP_CNT(1)
06 LOOP_END PASS_JUMP_ADDR(1)
07 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_loop_break_inside_if_survives_the_pop() -> None:
    # do { i += 1; if (i >= n) break; } while (true);  -> i = max(n, 1) rounded up
    r = shader(BREAK_IN_IF).run({"R1": f32([[1], [4], [2.5], [-3]])})
    assert r.pix[0][:, 0].tolist() == [1, 4, 3, 1]


CALL = """\
00 JUMP CND(FALSE) CF_CONST(0) ADDR(3)
01 ALU: ADDR(32) CNT(1)
  0   x: ADD R2.x, R2.x, 1.0f
02 RETURN
03 CALL ADDR(1)
04 CALL ADDR(1)
05 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_call_and_return() -> None:
    assert shader(CALL).run().pix[0][0, 0] == 2


COND_BOOL = """\
00 JUMP CND(BOOL) CF_CONST(5) ADDR(2)
01 ALU: ADDR(32) CNT(1)
  0   x: MOV R2.x, 1.0f
02 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""


def test_jump_on_bool_constant() -> None:
    # JUMP jumps when no lane passes: CND(BOOL) passes while bool constant 5 is true, so the
    # ALU clause runs only then (if (b5) r = 1)
    assert shader(COND_BOOL).run(bools=1 << 5).pix[0][0, 0] == 1
    assert shader(COND_BOOL).run(bools=0).pix[0][0, 0] == 0
    assert shader(COND_BOOL).run(bools=[False] * 5 + [True]).pix[0][0, 0] == 1


def test_cf_kill_and_push_pop() -> None:
    text = ("00 ALU_PUSH_BEFORE: ADDR(32) CNT(1)\n"
            "  0   x: PRED_SETGT ____, R1.x, 0.0f UPDATE_EXEC_MASK UPDATE_PRED\n"
            "01 KILL\n02 POP POP_CNT(1)\n03 EXP_DONE: PIX0, R1.xyzw\nEND_OF_PROGRAM\n")
    r = shader(text).run({"R1": f32([[1], [-1]])})
    assert r.killed.tolist() == [True, False]
    assert r.pix[0][:, 0].tolist() == [0, -1]


def test_alu_continue_skips_rest_of_iteration() -> None:
    # for (i = 0; i < 4; i++) { if (i == lane_skip) continue; s += 1; }
    text = """\
00 LOOP_START_NO_AL CF_CONST(0) FAIL_JUMP_ADDR(4)
01 ALU_CONTINUE: ADDR(32) CNT(1)
  0   x: PRED_SETNE ____, R1.x, R3.x UPDATE_EXEC_MASK UPDATE_PRED
02 ALU: ADDR(33) CNT(1)
  1   x: ADD R2.x, R2.x, 1.0f
      y: ADD R3.x, R3.x, 1.0f
03 LOOP_END CF_CONST(0) PASS_JUMP_ADDR(1)
04 EXP_DONE: PIX0, R2.xyzw
END_OF_PROGRAM
"""
    # R3.x counts only on iterations not continued, so a lane whose skip value is reached stops
    # counting (R3 stays equal to R1 afterwards): lane k gets min(skip, 4) increments
    r = shader(text).run({"R1": f32([[0], [2], [9]])}, loops={0: (4, 0, 0)})
    assert r.pix[0][:, 0].tolist() == [0, 2, 4]


def test_exports_burst_and_selects() -> None:
    text = ("00 EXP_DONE: PARAM3, R1.zyx1 BURSTCNT(1)\nEND_OF_PROGRAM\n")
    r = LatteShader.from_code(assemble(text)).run({"R1": f32([[1, 2, 3, 4]]), "R2": f32([[5, 6, 7, 8]])})
    assert r.param[3].tolist() == [[3, 2, 1, 1]]
    assert r.param[4].tolist() == [[7, 6, 5, 1]]


def test_memory_exports_are_recorded() -> None:
    text = "00 MEM_RING: WRITE(12 + R5), R2.xy__ ARRAY_SIZE(4) ELEM_SIZE(3)\nEND_OF_PROGRAM\n"
    r = LatteShader.from_code(assemble(text), "geometry").run(
        {"R2": f32([[1, 2, 3, 4]]), "R5": np.array([[7, 0, 0, 0]], np.int32)})
    (write,) = r.memory
    assert write.inst == "MEM_RING" and write.array_base == 3 and write.comp_mask == 3
    assert write.index.tolist() == [7] and write.data.view(np.float32)[0, 0].tolist() == [1, 2, 3, 4]


def test_bad_programs_raise_vmerror() -> None:
    with pytest.raises(VMError):
        LatteShader.from_code(b"\0" * 12)
    with pytest.raises(VMError, match="outside"):
        LatteShader.from_code(assemble("00 NOP\n")).run()  # no END_OF_PROGRAM: runs off the end
    with pytest.raises(VMError, match="POP"):
        shader("00 POP POP_CNT(1)\n01 NOP\nEND_OF_PROGRAM\n").run()


def test_mutated_programs_raise_only_vmerror() -> None:
    """A bounded mutation run: flipped bytes in small programs give results or VMError, nothing else."""
    import random

    from shaderkit.vm.latte import Texture, VertexBuffer

    rng = random.Random(11)
    bases = [assemble(text) for text in (IF_ELSE, NESTED, LOOP_BREAK, LOOP_AL, BREAK_IN_IF, CALL)]
    textures = {t: Texture.of(np.ones((2, 2, 4))) for t in range(4)}
    for _ in range(300):
        code = bytearray(rng.choice(bases))
        for _ in range(rng.randint(1, 4)):
            code[rng.randrange(len(code))] = rng.randrange(256)
        try:
            LatteShader.from_code(bytes(code), "pixel").run(
                {"R1": f32([[1, -1, 2, 0], [-2, 3, 0, 1]])}, textures=textures,
                uniform_blocks={k: np.zeros(64, np.float32) for k in range(4)},
                buffers={0: VertexBuffer(b"\0" * 64)}, loops={k: (3, 0, 1) for k in range(32)}, max_steps=2000)
        except VMError:
            pass


def test_waves_of_lanes_give_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import shaderkit.vm.latte as latte

    values = f32([[v] for v in (1, -1, 2, -2, 3, -3, 0.5, -0.5, 7, -7)])
    whole = shader(IF_ELSE).run({"R1": values})
    monkeypatch.setattr(latte, "CHUNK_LANES", 4)
    waves = shader(IF_ELSE).run({"R1": values})
    assert waves.pix[0].tolist() == whole.pix[0].tolist() == [[10 if v > 0 else 20, 0, 0, 0] for v in values[:, 0]]
    assert waves.register(2).tolist() == whole.register(2).tolist()
    ring = "00 MEM_RING: WRITE(12 + R5), R2.xy__ ARRAY_SIZE(4) ELEM_SIZE(3)\nEND_OF_PROGRAM\n"
    r = LatteShader.from_code(assemble(ring), "geometry").run(
        {"R2": f32([[k, 0, 0, 0] for k in range(6)]), "R5": np.arange(6, dtype=np.int32)[:, None]})
    assert len(r.memory) == 2  # one per wave, each widened to all lanes
    assert [w.lanes.tolist() for w in r.memory] == [[True] * 4 + [False] * 2, [False] * 4 + [True] * 2]
    assert r.memory[1].index.tolist()[4:] == [4, 5]
    with pytest.raises(VMError, match="keep_registers"):
        shader(IF_ELSE).run({"R1": values}, keep_registers=False).register(2)


def test_param_semantics_read_only_the_words_in_use() -> None:
    from shaderkit.formats.gx2.shader import GX2VertexShader
    from shaderkit.formats.gx2.types import GX2VertexShaderRegs

    # one SPI_VS_OUT_ID word in use: 0xFFFF0100 = SEMANTIC_0 0, SEMANTIC_1 1, SEMANTIC_2/3 0xFF
    # (unused); words 1-9 are 0, which would read as semantic 0 if they were in use
    regs = GX2VertexShaderRegs(num_spi_vs_out_id=1, spi_vs_out_id=[0xFFFF0100] + [0] * 9)
    program = assemble("00 EXP_DONE: POS0, R1.xyzw\nEND_OF_PROGRAM\n")
    shader = LatteShader.from_gx2(GX2VertexShader(regs=regs, program=program))
    assert shader.param_semantics() == {0: 0, 1: 1}
    assert shader.run(lanes=1).param_semantics == {0: 0, 1: 1}

"""Flow-control corner cases on hand-encoded words (bit positions from shared/reference/pica.md,
packed here without the ISA table): scope ends as azahar's interpreter checks them, the circular
CALL stack and its four-returns bug, nested loops ending on the same word, address 4095."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from shaderkit.formats.dvlb.dvlb import Dvle, Output  # noqa: E402
from shaderkit.vm.pica import PicaShader  # noqa: E402

IDENTITY = 0x36  # swizzle xyzw (0x1B) << 1, no negate
DESC = 0xF | IDENTITY << 4 | IDENTITY << 13 | IDENTITY << 22  # xyzw mask, identity sources
C0, R0, R1, O0, O1 = 0x20, 0x10, 0x11, 0x00, 0x01


def arith(op: int, dst: int, src1: int, src2: int = 0) -> int:  # format 1: desc 0, src2 7, src1 12, dst 21
    return op << 26 | dst << 21 | src1 << 12 | src2 << 7 | 0


def mov(dst: int, src1: int) -> int:
    return arith(0x13, dst, src1)


def add(dst: int, src1: int, src2: int) -> int:
    return arith(0x00, dst, src1, src2)


def flow(op: int, dst: int, num: int, ident: int = 0) -> int:  # formats 2/3: NUM 0, DST 10, id 22
    return op << 26 | ident << 22 | dst << 10 | num


CALL, IFU, LOOP, JMPU = 0x24, 0x27, 0x29, 0x2D
END = 0x22 << 26


def shader(words: list[int]) -> PicaShader:
    dvle = Dvle(outputs=[Output(0, 0), Output(2, 1)])
    vm = PicaShader.from_dvle(words, [DESC], dvle)
    vm.set_uniform("c0", [1, 1, 1, 1])
    return vm


def test_nested_loops_ending_on_the_same_word_pop_one_scope() -> None:
    vm = shader([
        flow(LOOP, 2, 0, ident=0),  # 0: loop i0, last word 2
        flow(LOOP, 2, 0, ident=1),  # 1: loop i1, last word 2
        add(R0, C0, R0),            # 2: r0 += 1
        mov(O0, R0),                # 3
        END,                        # 4
    ])
    vm.set_uniform("i0", (4, 0, 1))
    vm.set_uniform("i1", (4, 0, 1))
    result = vm.run(np.zeros((1, 4), np.float32))
    # one scope closes per instruction: the inner loop's 5 passes, then the outer never repeats
    assert result.o[0, 0].tolist() == [5] * 4
    assert result.steps[0] == 2 + 5 + 2


def test_jump_on_the_last_word_of_an_if_is_not_taken() -> None:
    vm = shader([
        flow(IFU, 3, 1, ident=0),   # 0: ifu b0: then 1-2, else 3, end 4
        add(R0, C0, R0),            # 1
        flow(JMPU, 6, 0, ident=0),  # 2: jmpu b0 -> 6 (taken when b0 is true) ... but the IF closes
        add(R1, C0, R1),            # 3: else
        mov(O0, R0),                # 4
        END,                        # 5
        mov(O1, C0),                # 6
        END,                        # 7
    ])
    vm.set_uniform("b0", True)
    result = vm.run(np.zeros((1, 4), np.float32))
    assert result.o[0, 0].tolist() == [1] * 4
    assert result.o[0, 1].tolist() == [0] * 4  # word 6 never ran
    assert result.steps[0] == 5


def test_jump_elsewhere_is_taken() -> None:
    vm = shader([flow(JMPU, 3, 0, ident=0), mov(O0, C0), END, mov(O1, C0), END])
    vm.set_uniform("b0", True)
    result = vm.run(np.zeros((1, 4), np.float32))
    assert result.o[0, 0].tolist() == [0] * 4 and result.o[0, 1].tolist() == [1] * 4
    vm.set_uniform("b0", False)
    result = vm.run(np.zeros((1, 4), np.float32))
    assert result.o[0, 0].tolist() == [1] * 4 and result.o[0, 1].tolist() == [0] * 4


def test_fifth_nested_call_drops_the_outer_return_and_runs_to_4095() -> None:
    vm = shader([
        flow(CALL, 3, 1),  # 0: A = 3..3, returns to 1
        mov(O1, C0),       # 1: never reached: A's return is dropped
        END,               # 2
        flow(CALL, 4, 1),  # 3: B
        flow(CALL, 5, 1),  # 4: C
        flow(CALL, 6, 1),  # 5: D
        flow(CALL, 7, 1),  # 6: E (the stack holds 4: A is dropped)
        add(R0, C0, R0),   # 7
    ])
    v0 = np.array([[1.5, 2, 3, 4]], np.float32)
    result = vm.run(v0)
    # word 7 closes E, D, C and (4th pop, no PC update) B: on at 5 -> D, E, add (closes E, D),
    # at 6 -> E, add (closes E), then add once more with no scope left, then zero words
    # (add o0, v0, v0 with descriptor 0) up to 4094; 4095 acts as END
    assert result.o[0, 1].tolist() == [0] * 4
    assert result.o[0, 0].tolist() == (v0[0] * 2).tolist()
    assert result.steps[0] == 12 + (4094 - 8 + 1) + 1


def test_loop_al_keeps_counting_past_255() -> None:
    vm = shader([
        flow(LOOP, 1, 0, ident=2),      # 0: loop i2 over word 1
        add(R0, C0, R0),                # 1
        mov(O0, R0),                    # 2
        mov(O1, C0 + 5) | 3 << 19,      # 3: mov o1, c5[aL]
        END,                            # 4
    ])
    vm.set_uniform("i2", (2, 250, 3))
    for k in range(1, 96):
        vm.set_uniform(f"c{k}", [k] * 4)
    result = vm.run(np.zeros((1, 4), np.float32))
    assert result.o[0, 0].tolist() == [3] * 4
    # aL = 250 + 3 * 3 = 259 (not wrapped to 3, which would read c8): outside [-128, 127] -> c5
    assert result.o[0, 1].tolist() == [5] * 4


def test_random_programs_raise_only_vm_errors() -> None:
    """Random words, descriptors, uniforms and inputs: a run ends, or raises VMError (step limit,
    emit in a vertex shader, vertex id 3), never anything else."""
    import random

    from shaderkit.vm.pica import VMError

    rng = random.Random(15)
    specials = [0.0, -0.0, 1.5, -3.0, 1e30, float("inf"), float("nan"), 100.0, -128.0]
    for _ in range(40):
        count = rng.randint(1, 40)
        words = [rng.getrandbits(32) for _ in range(count)]
        descs = [rng.getrandbits(32) for _ in range(rng.randint(0, 130))]
        dvle = Dvle(shader_type=rng.choice([0, 1]), main_offset=rng.randint(0, count), outputs=[Output(0, 0)])
        vm = PicaShader.from_dvle(words, descs, dvle)
        for k in range(4):
            vm.set_uniform(f"i{k}", (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)))
        for k in range(16):
            vm.set_uniform(f"b{k}", rng.random() < 0.5)
        for k in range(96):
            vm.set_uniform(f"c{k}", [rng.uniform(-200, 200) for _ in range(4)])
        inputs = np.array([rng.choice(specials) for _ in range(8 * 16 * 4)], np.float32).reshape(8, 16, 4)
        try:
            result = vm.run(inputs, max_steps=300)
        except VMError:
            continue
        assert result.o.shape == (8, 16, 4) and (result.steps <= 301).all()


def test_fifth_nested_loop_drops_the_outermost() -> None:
    nop = 0x21 << 26
    vm = shader([
        flow(LOOP, 9, 0),    # 0: L0 over 1-9 (dropped when L4 is pushed)
        flow(LOOP, 8, 0),    # 1: L1
        flow(LOOP, 7, 0),    # 2: L2
        flow(LOOP, 6, 0),    # 3: L3
        flow(LOOP, 5, 0),    # 4: L4
        add(R0, C0, R0),     # 5: body of L4
        nop, nop, nop,       # 6, 7, 8: ends of L3, L2, L1
        add(R1, C0, R1),     # 9: end of L0
        mov(O0, R0),         # 10
        mov(O1, R1),         # 11
        END,                 # 12
    ])
    vm.set_uniform("i0", (1, 0, 0))  # two passes per loop
    result = vm.run(np.zeros((1, 4), np.float32))
    assert result.o[0, 0].tolist() == [16] * 4  # 2**4, not 2**5: L0 is gone
    assert result.o[0, 1].tolist() == [1] * 4  # word 9 runs once, no loop left to repeat it


def test_float24_constants_decode() -> None:
    from shaderkit.vm.pica import f24_to_f32

    assert f24_to_f32(0x3F0000) == 1.0
    assert f24_to_f32(0xC08000) == -3.0  # sign, exponent 64, mantissa 0x8000: -(1.5 * 2)
    assert f24_to_f32(0x7F0000) == float("inf") and f24_to_f32(0xFF0000) == float("-inf")
    assert f24_to_f32(0x7F0001) != f24_to_f32(0x7F0001)  # NaN
    assert str(f24_to_f32(0x800000)) == "-0.0"
    assert f24_to_f32(0x000001) == 2.0**-78  # azahar: exponent 0 is a denormal 2^-62 * m / 2^16
    assert f24_to_f32(0x00FFFF) == 2.0**-62 * 0xFFFF / 2**16

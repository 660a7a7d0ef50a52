"""The listing printed straight from token words (lazy programs) equals the typed-model listing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sm4_errors import SAMPLES, instructions

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Instruction, Program
from shaderkit.isa.sm4.text import Formatter, clear_caches


def _both(words: list[int] | tuple[int, ...], legacy: bool = False) -> tuple[list[str], list[str]]:
    lazy = decode(words)
    assert lazy.lazy_words() is not None
    fast = Formatter(lazy, legacy).lines()
    model = decode(words)
    model.instructions  # noqa: B018 - builds the typed model
    assert model.lazy_words() is None
    return fast, Formatter(model, legacy).lines()


def test_corpus_programs_fast_equals_model() -> None:
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus not found")
    from test_sm4_corpus import programs

    from shaderkit.isa.sm4.decode import words_from_bytes

    for legacy in (False, True):
        clear_caches()  # cold caches, then warm ones
        for _ in range(2):
            for path in files:
                for payload in programs(path.read_bytes()):
                    fast, model = _both(words_from_bytes(payload), legacy)
                    assert fast == model, path.name


@settings(max_examples=300, deadline=None)
@given(st.lists(instructions(), max_size=12), st.sampled_from([(4, 0), (4, 1), (5, 0), (5, 1)]),
       st.booleans())
def test_random_programs_fast_equals_model(insts: list[Instruction], version: tuple[int, int],
                                           legacy: bool) -> None:
    words = encode(Program(1, version[0], version[1], insts))
    fast, model = _both(words, legacy)
    assert fast == model


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_corrupted_programs_fast_equals_model(data: st.DataObject) -> None:
    if not SAMPLES:
        pytest.skip("corpus not found")
    words = list(data.draw(st.sampled_from(SAMPLES)))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(2, len(words) - 1))
        words[pos] = data.draw(st.integers(0, 0xFFFFFFFF))
    try:
        decode(words)
    except ShaderFormatError:
        return
    fast, model = _both(words)  # a program decode accepted: the model builds, the texts agree
    assert fast == model


def test_lazy_program_model_access() -> None:
    """Reading ``instructions`` builds the model once; edits are then what gets printed."""
    words = [0x40, 7, 0x05000036, 0x00100012, 0, 0x00004001, 0x3F800000]  # mov r0.x, l(1.0)
    prog = decode(words)
    assert prog.instruction_count == 1
    assert Formatter(prog).lines() == ["ps_4_0", "mov r0.x, l(1.000000)"]
    prog.instructions[0].operands[1].values[0] = 0x40000000
    assert prog.lazy_words() is None
    assert Formatter(prog).lines() == ["ps_4_0", "mov r0.x, l(2.000000)"]
    assert encode(prog) == words[:6] + [0x40000000]
    source = list(words)
    later = decode(source)
    source[6] = 0  # the decoder keeps its own copy of the words
    assert Formatter(later).lines()[1] == "mov r0.x, l(1.000000)"


def _full_decode(words: list[int]) -> list[Instruction]:
    """Every instruction through :func:`decode_instruction` (the typed decoder alone)."""
    from shaderkit.isa.sm4.decode import _Cursor, decode_instruction

    length = words[1]
    if length < 2 or length > len(words):
        raise ShaderFormatError("length", 4, "SHDR")
    cur = _Cursor(words, 0)
    cur.pos = 2
    out = []
    while cur.pos < length:
        out.append(decode_instruction(cur, length))
    return out


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_scan_accepts_exactly_what_the_typed_decoder_accepts(data: st.DataObject) -> None:
    """The validating scan of decode() and the typed decoder agree on every error (message and
    offset) and on every accepted program."""
    if not SAMPLES:
        pytest.skip("corpus not found")
    words = list(data.draw(st.sampled_from(SAMPLES)))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(2, len(words) - 1))
        bits = data.draw(st.sampled_from([0xFFFFFFFF, 0x80000000, 0x7F000000, 0x01C00000, 0x00F00000, 0xFF]))
        words[pos] ^= data.draw(st.integers(0, 0xFFFFFFFF)) & bits
    expected: object
    try:
        expected = _full_decode(words)
    except ShaderFormatError as exc:
        expected = (str(exc), exc.offset)
    try:
        got: object = decode(words).instructions
    except ShaderFormatError as exc:
        got = (str(exc), exc.offset)
    assert got == expected


def test_equality_and_repr_keep_the_lazy_program() -> None:
    words = [0x40, 7, 0x05000036, 0x00100012, 0, 0x00004001, 0x3F800000]
    lazy, other = decode(words), decode(words)
    assert lazy == other and "mov" not in repr(lazy) and "Instruction(opcode=54" in repr(lazy)
    assert lazy.lazy_words() is not None and other.lazy_words() is not None
    other.instructions[0].operands[1].values[0] = 0
    assert lazy != other


def test_two_word_operand_with_relative_index_is_not_a_register_number() -> None:
    """r[vPrim].x style: a temp whose only index is relative to a one-word operand spans two
    words like r0.x but must print through the model."""
    from shaderkit.isa.sm4.model import Index, Operand

    rel = Operand(0x23, 0, 0, 0, [], [], [])  # one-word operand (vPrim style, no index)
    dest = Operand(0, 2, 0, 1, [Index(2, 0, rel)], [], [])
    src = Operand(0, 2, 1, 0xE4, [Index(0, 3)], [], [])
    words = encode(Program(0, 5, 0, [Instruction(54, 0, [], [dest, src], [], 0)]))
    for _ in range(2):  # cold, then cached
        clear_caches()
        fast, model = _both(words)
        assert fast == model and "r[" in fast[1]

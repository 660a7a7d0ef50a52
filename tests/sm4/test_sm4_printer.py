"""The one-pass printer (validate and print each instruction as it is read) against the typed
path (decode, build the model, print it): same lines, same instruction offsets, same errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sm4_errors import SAMPLES, instructions

from shaderkit.errors import ShaderFormatError
from shaderkit.isa.sm4.decode import decode
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Program
from shaderkit.isa.sm4.printer import program_lines
from shaderkit.isa.sm4.text import Formatter


def _typed(words: list[int], legacy: bool) -> object:
    """(lines, offsets) through the typed model, or (message, offset) of the error."""
    try:
        prog = decode(words)
        prog.instructions  # noqa: B018 - builds the typed model: the printer reads it
        return Formatter(prog, legacy).lines(), prog.offsets
    except ShaderFormatError as exc:
        return str(exc), exc.offset


def _one_pass(words: list[int], legacy: bool) -> object:
    starts: list[int] = []
    try:
        return program_lines(words, 0, legacy, starts), starts
    except ShaderFormatError as exc:
        return str(exc), exc.offset


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_corrupted_programs_print_and_fail_alike(data: st.DataObject) -> None:
    if not SAMPLES:
        pytest.skip("corpus not found")
    words = list(data.draw(st.sampled_from(SAMPLES)))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(words) - 1))
        bits = data.draw(st.sampled_from([0xFFFFFFFF, 0x80000000, 0x7F000000, 0x01C00000, 0x00F00000, 0xFF,
                                          0x7FF, 0xFFF]))
        words[pos] ^= data.draw(st.integers(0, 0xFFFFFFFF)) & bits
    if data.draw(st.booleans()):
        words = words[: data.draw(st.integers(0, len(words)))]
    legacy = data.draw(st.booleans())
    assert _one_pass(words, legacy) == _typed(words, legacy)


@settings(max_examples=120, deadline=None)
@given(st.lists(instructions(), max_size=12), st.sampled_from([(4, 0), (4, 1), (5, 0), (5, 1)]),
       st.booleans())
def test_random_programs_print_alike(insts: list, version: tuple[int, int], legacy: bool) -> None:  # type: ignore[type-arg]
    words = encode(Program(1, version[0], version[1], insts))
    assert _one_pass(words, legacy) == _typed(words, legacy)


def test_shapes_printed_without_the_model() -> None:
    """Hand-assembled words, text worked out from fxc's rules: a declaration, a modifier token,
    float and integer immediates, nesting (else one level out)."""
    words = [
        0x00000040, 0,  # ps_4_0, length set below
        0x02000068, 2,  # dcl_temps 2
        0x06000036, 0x00100012, 0, 0x8010000A, 0x00000041, 1,  # mov r0.x, -r1.x (neg modifier token)
        0x0300001F, 0x0010000A, 0,  # if_z r0.x
        0x05000036, 0x00100012, 0, 0x00004001, 0x3F800000,  # mov r0.x, l(1.000000)
        0x01000012,  # else
        0x0700001E, 0x00100012, 0, 0x0010000A, 0, 0x00004001, 7,  # iadd r0.x, r0.x, l(7)
        0x01000015,  # endif
        0x0100003E,  # ret
    ]
    words[1] = len(words)
    expected = ["ps_4_0", "dcl_temps 2", "mov r0.x, -r1.x", "if_z r0.x", "  mov r0.x, l(1.000000)", "else ",
                "  iadd r0.x, r0.x, l(7)", "endif ", "ret "]
    starts: list[int] = []
    assert program_lines(words, 0, False, starts) == expected
    assert starts == [2, 4, 10, 13, 18, 19, 26, 27]
    assert _typed(words, False) == (expected, starts)


def test_operand_indices_past_the_last_word_fail_alike() -> None:
    # vs_4_0: dcl_input v0.xyzw; dcl_output_siv o0.xyzw, position; mov o0.xyzw, <src>; ret, where
    # <src> (0x00301e46) claims three immediate indices but only two words follow before the end of
    # the program: the one-pass printer formatted the short slice (a TypeError, found by fuzzing)
    words = [0x00010040, 15, 0x0300005F, 0x001010F2, 0, 0x04000067, 0x001020F2, 0, 1,
             0x05000036, 0x001020F2, 0, 0x00301E46, 0, 0x0100003E]
    result = _one_pass(words, False)
    assert result == _typed(words, False)
    assert isinstance(result[0], str) and "past the instruction end" in result[0]


def test_declaration_without_its_operand_at_the_end_fails_alike() -> None:
    # ps_4_0 whose last word is dcl_input (0x5F) with length 1: the operand it declares is missing
    # and no word follows (the one-pass printer read past the words: an IndexError, found by fuzzing)
    words = [0x00000040, 3, 0x0100005F]
    result = _one_pass(words, False)
    assert result == _typed(words, False)
    assert isinstance(result[0], str) and isinstance(result[1], int)


def test_words_may_come_as_a_list_or_numpy_integers() -> None:
    """A compiled build refuses NumPy's integers where an int is declared: the words are made
    Python ints once, at the header (``np.frombuffer(data, '<u4')`` is a natural way to read them)."""
    np = pytest.importorskip("numpy")
    from shaderkit.isa.sm4.decode import decode
    from shaderkit.isa.sm4.printer import program_lines
    from shaderkit.isa.sm4.text import Formatter

    # ps_4_0: mov o0.xyzw, l(1.0, 0, 0, 1.0); ret
    words = (0x00000040, 11, 0x08000036, 0x001020F2, 0x00000000, 0x00004002, 0x3F800000, 0, 0, 0x3F800000,
             0x0100003E)
    expected = ["ps_4_0", "mov o0.xyzw, l(1.000000,0,0,1.000000)", "ret "]  # (as fxc writes them: no spaces in l(), "ret ")
    for form in (words, list(words), np.array(words, dtype=np.uint32), np.array(words, dtype=np.int64)):
        assert program_lines(form) == expected
        assert Formatter(decode(form)).lines() == expected

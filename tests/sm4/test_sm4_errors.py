"""Untrusted token streams: only ShaderFormatError (with a token offset), never a crash or hang."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.isa.sm4.decode import decode, decode_bytes, words_from_bytes
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Index, Instruction, Operand, Program
from shaderkit.isa.sm4.opcodes import OPCODES, Layout
from shaderkit.isa.sm4.text import format_program


def _sample_programs(limit: int = 6) -> list[list[int]]:
    out = []
    for path in corpus_files("dxbc", "*.dxbc"):
        data = path.read_bytes()
        count = struct.unpack_from("<I", data, 28)[0]
        for offset in struct.unpack_from(f"<{count}I", data, 32):
            if data[offset : offset + 4] in (b"SHDR", b"SHEX"):
                size = struct.unpack_from("<I", data, offset + 4)[0]
                out.append(list(words_from_bytes(data[offset + 8 : offset + 8 + size])))
        if len(out) >= 40:
            break
    # a spread of sizes: the smallest and the largest few
    out.sort(key=len)
    return out[: limit // 2] + out[-(limit // 2) :] if out else []


SAMPLES = _sample_programs()


def _decode_or_format_error(words: list[int]) -> None:
    try:
        prog = decode(words)
    except ShaderFormatError as exc:
        assert exc.offset is not None and exc.offset % 4 == 0 and 0 <= exc.offset <= 4 * len(words)
        return
    format_program(prog)


def test_truncated_at_every_word() -> None:
    if not SAMPLES:
        pytest.skip("corpus not found")
    for words in SAMPLES:
        for n in range(len(words)):
            cut = words[:n]
            with pytest.raises(ShaderFormatError):
                decode(cut)
            if n >= 2:  # the same cut with a length token that agrees: ends mid-instruction or not
                cut[1] = n
                _decode_or_format_error(cut)


def test_truncated_bytes() -> None:
    with pytest.raises(ShaderFormatError):
        decode_bytes(b"\x40\x00\x00\x00\x02\x00")
    with pytest.raises(ShaderFormatError):
        decode_bytes(b"")


def test_bad_lengths_name_the_token_offset() -> None:
    # mov with instruction length 9 in a 5-word body: runs past the program end
    words = [0x40, 7, 0x09000036, 0x001000F2, 0, 0x00101E46, 0]
    with pytest.raises(ShaderFormatError) as info:
        decode(words)
    assert info.value.offset == 8
    # length 0 is never valid
    with pytest.raises(ShaderFormatError):
        decode([0x40, 3, 0x00000036])
    # operand count past the instruction end: mov needs 2 operands, length says 3 words
    with pytest.raises(ShaderFormatError) as info:
        decode([0x40, 5, 0x03000036, 0x001000F2, 0])
    assert info.value.offset == 20
    # customdata length past the end
    with pytest.raises(ShaderFormatError):
        decode([0x40, 4, 0x00001835, 100])


def test_relative_addressing_depth_is_bounded() -> None:
    # x0[x0[x0[...]]]: each operand indexes relative to the next, deeper than allowed
    # 1D operand whose only index is relative (representation 2): 2 | 2<<2 | 3<<12 | 1<<20 | 2<<22
    rel = 0x2 | 0x8 | 3 << 12 | 1 << 20 | 2 << 22
    body = [0x7F000036, 0x00100012, 0] + [rel] * 20 + [0x0010000A, 0]
    body[0] = 0x36 | (len(body) << 24)
    with pytest.raises(ShaderFormatError, match="nested"):
        decode([0x40, len(body) + 2, *body])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 0xFFFFFFFF), max_size=64))
def test_random_streams(body: list[int]) -> None:
    _decode_or_format_error([0x50, len(body) + 2, *body])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupted_real_programs(data: st.DataObject) -> None:
    if not SAMPLES:
        pytest.skip("corpus not found")
    words = list(data.draw(st.sampled_from(SAMPLES)))
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(2, len(words) - 1))
        words[pos] = data.draw(st.one_of(st.integers(0, 0xFFFFFFFF), st.sampled_from([0, 1, 0x7F000000, 0xFFFFFFFF])))
    _decode_or_format_error(words)


# -- random valid programs round trip through the model --------------------------------------

_INSTR = [v for v, info in OPCODES.items()
          if info.layout == Layout.OPERANDS and info.num_operands > 0 and not info.dcl]


@st.composite
def operands(draw: st.DrawFn, depth: int = 0) -> Operand:
    kind = draw(st.sampled_from(["temp", "imm", "cb", "rel"] if depth == 0 else ["temp"]))
    ext = draw(st.lists(st.integers(0, 0x7FFFFFFF), max_size=2))
    if kind == "imm":
        comps = draw(st.sampled_from([1, 2]))
        values = draw(st.lists(st.integers(0, 0xFFFFFFFF), min_size=4 if comps == 2 else 1,
                               max_size=4 if comps == 2 else 1))
        return Operand(4, comps, 0, 0, [], ext, values)
    sel = draw(st.integers(0, 2))
    bits = draw(st.integers(0, 0xFF if sel == 1 else (0xF if sel == 0 else 3)))
    if kind == "temp":
        return Operand(0, 2, sel, bits, [Index(0, draw(st.integers(0, 4095)))], ext, [])
    if kind == "cb":
        return Operand(8, 2, 1, bits if sel == 1 else 0xE4,
                       [Index(0, draw(st.integers(0, 13))), Index(0, draw(st.integers(0, 4095)))], ext, [])
    rel = draw(operands(depth=1))
    rep = draw(st.sampled_from([2, 3]))
    return Operand(3, 2, 2, 0, [Index(0, 0), Index(rep, draw(st.integers(0, 99)) if rep == 3 else 0, rel)],
                   ext, [])


@st.composite
def instructions(draw: st.DrawFn) -> Instruction:
    opcode = draw(st.sampled_from(_INSTR))
    count = OPCODES[opcode].num_operands
    ops = [draw(operands()) for _ in range(count)]
    controls = draw(st.integers(0, 0x1FFF))
    ext = draw(st.lists(st.integers(0, 0x7FFFFFFF), max_size=2))
    return Instruction(opcode, controls, ext, ops, [], 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(instructions(), max_size=12), st.sampled_from([(4, 0), (4, 1), (5, 0), (5, 1)]))
def test_random_valid_programs_round_trip(insts: list[Instruction], version: tuple[int, int]) -> None:
    prog = Program(1, version[0], version[1], insts)
    words = encode(prog)
    back = decode(words)
    for a, b in zip(back.instructions, insts):
        b.offset = a.offset
    assert back == prog
    assert encode(back) == words
    format_program(back)

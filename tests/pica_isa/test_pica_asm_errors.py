"""Bad assembly raises AssemblyError with file, line and column; random input raises nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.errors import AssemblyError
from shaderkit.formats.dvlb.build import assemble_sources


def _error(src: str) -> AssemblyError:
    with pytest.raises(AssemblyError) as info:
        assemble_sources([("bad.pica", src)])
    return info.value


@pytest.mark.parametrize(
    ("src", "line", "column", "words"),
    [
        (".proc main\n  foo r0, r1\n.end\n", 2, 3, "unknown mnemonic"),
        (".proc main\n  mov r16, r0\n  end\n.end\n", 2, 7, "register out of range"),
        (".proc main\n  mov r0, c96\n  end\n.end\n", 2, 11, "register out of range"),
        (".proc main\n  add r0, c1, r2[a0.x]\n  end\n.end\n", 2, 15, "index register not allowed"),
        (".proc main\n  mov r0.xk, r1\n  end\n.end\n", 2, 10, "bad swizzle"),
        (".proc main\n  mov r0, r1.xyzwx\n  end\n.end\n", 2, 14, "bad swizzle"),
        (".proc main\n  mov r0, q1\n  end\n.end\n", 2, 11, "invalid register"),
        # picasso's parseReg checks v registers against 0x0F: "v15" is refused wherever a register is
        # read by name (operands, .alias, .in); v14[1] is the way to it
        (".proc main\n  mov r0, v15\n  end\n.end\n", 2, 11, "invalid input register: v15"),
        (".alias x v15\n", 1, 10, "invalid input register: v15"),
        (".in x v15\n", 1, 7, "invalid input register: v15"),
        ("  mov r0, r1\n", 1, 3, "instruction outside block"),
        (".proc main\n  jmpc cmp.x, nowhere\n  end\n.end\n", 2, 15, "undefined"),
        (".proc main\n  end\n", 1, 7, "unclosed block"),
        (".proc main\n  add r0, v0, v1\n  end\n.end\n", 2, 11, "different input registers"),
        (".proc main\n  cmp r0, eq, xx, r1\n  end\n.end\n", 2, 15, "conditional operator"),
        (".proc main\n  ifu !b0\n  .end\n  end\n.end\n", 2, 7, "not supported"),
        (".proc main\n  setemit 3\n  end\n.end\n", 2, 11, "out of range"),
        (".proc main\n  setemit x1\n  end\n.end\n", 2, 11, "invalid value: x1"),
        (".proc main\n  mov r0, r3[a0.x]\n  end\n.end\n", 2, 11, "not allowed with this kind of register"),
        # picasso's text handling is C's: isspace() is " \\t\\n\\v\\f\\r" only (U+00A0, U+0085 and
        # U+001C-U+001F are text), the first word ends at a space or tab only, digits are ASCII
        ("\xa0.fvec a\n", 1, 1, "instruction outside block"),
        (".proc main\n\x85end\n.end\n", 2, 1, "unknown mnemonic"),
        (".proc main\n  mov\v r0, r1\n  end\n.end\n", 2, 3, "unknown mnemonic"),
        (".fvec\r a\n", 1, 1, "invalid directive"),
        (".proc main\n  mov r0, c\xb2\n  end\n.end\n", 2, 11, "invalid register"),
        (".proc main\n  lbl : nop\n  end\n.end\n", 2, 3, "invalid label name: lbl "),
        (".out x nowhere\n", 1, 8, "invalid output type"),
        (".fvec a\n.fvec a\n", 2, 7, "already used"),
        (".proc main\n  mov r0, r1, r2\n  end\n.end\n", 2, 15, "too many parameters"),
        (".proc main\n  mov r0\n  end\n.end\n", 2, 9, "missing"),
        (".entry start\n.proc main\n  end\n.end\n", 1, 1, "entrypoint 'start' is undefined"),
        # layout pragmas: an unknown rule, a one-DVLE rule for two DVLEs
        ("\n; shaderkit: layout nope\n.proc main\n  end\n.end\n", 2, 2, "unknown layout"),
        ("; shaderkit: DVLE 0\n; shaderkit: layout nihstro\n.proc main\n  end\n.end\n"
         "; shaderkit: DVLE 1\n.entry m1\n.proc m1\n  end\n.end\n", 2, 2, "exactly one DVLE"),
        (".fvec a\n.fvec b\n; shaderkit: uniform-order 0 0\n.proc main\n  end\n.end\n", 3, 2,
         "uniform-order"),
        # picasso's NUM has 10 bits (num + num_hi): a called procedure of 1024 words does not fit
        (".gsh\n.proc main\n  call f\n  end\n.end\n.proc f\n" + "  nop\n" * 1024 + ".end\n", 3, 8,
         "too long to call"),
    ],
)
def test_error_position(src: str, line: int, column: int, words: str) -> None:
    err = _error(src)
    assert words in err.message
    assert (err.filename, err.line, err.column) == ("bad.pica", line, column)
    assert str(err).startswith(f"bad.pica:{line}:{column}: ")


def test_too_many_descriptors() -> None:
    # 129 distinct swizzles need 129 descriptors; the limit is 128
    swizzles = [f"{a}{b}{c}{d}" for a in "xyzw" for b in "xyzw" for c in "xyzw" for d in "xyzw"]
    body = "\n".join(f"  mov r0, r1.{s}" for s in swizzles[:129])
    err = _error(f".proc main\n{body}\n  end\n.end\n")
    assert "too many operand descriptors" in err.message
    assert err.line == 130


def test_too_many_mad_descriptors() -> None:
    swizzles = [f"{a}{b}{c}{d}" for a in "xyzw" for b in "xyzw" for c in "xyzw" for d in "xyzw"]
    body = "\n".join(f"  mad r0, r1.{s}, r2, r3" for s in swizzles[:33])
    err = _error(f".proc main\n{body}\n  end\n.end\n")
    assert "MAD" in err.message
    assert err.line == 34


def test_128_descriptors_fit() -> None:
    swizzles = [f"{a}{b}{c}{d}" for a in "xyzw" for b in "xyzw" for c in "xyzw" for d in "xyzw"]
    body = "\n".join(f"  mov r0, r1.{s}" for s in swizzles[:128])
    data = assemble_sources([("ok.pica", f".proc main\n{body}\n  end\n.end\n")])
    assert int.from_bytes(data[12 + 0x14: 12 + 0x18], "little") == 128


_TOKENS = st.sampled_from([
    ".proc", "main", ".end", ".else", ".fvec", ".constf", ".out", ".in", ".alias", ".gsh", "mov", "add",
    "mad", "ifu", "ifc", "for", "jmpc", "call", "cmp", "setemit", "r0", "c95", "v0", "o0", "b0", "i0",
    "a0.x", "[", "]", "(", ")", ",", ".xyzw", "-", "!", "cmp.x", "&&", ":", ";", "1.5", "x", " ", "\n",
    "position", "lbl", "end", "nop", "mova", "-1", "999999999999", "\t", "#", "$", ".constfa",
    ".setf", ".setb", ".consti", "variable", "fixed", "point",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=60))
def test_random_text_raises_only_assembly_error(tokens: list[str]) -> None:
    try:
        assemble_sources([("fuzz.pica", "".join(tokens))])
    except AssemblyError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_raises_only_assembly_error(text: str) -> None:
    try:
        assemble_sources([("fuzz.pica", ".proc main\n" + text + "\nend\n.end\n")])
    except AssemblyError:
        pass


@pytest.mark.parametrize(
    ("src", "words"),
    [
        ("; shaderkit: opdescs 0x36f\n.proc main\n  mov r0, r1.yyyy  ; shaderkit: desc 0\n  end\n.end\n",
         "does not match"),
        ("; shaderkit: opdescs 0x36f\n.proc main\n  mov r0, r1  ; shaderkit: desc 3\n  end\n.end\n",
         "does not match"),
        (".proc main\n  mov r0, r1\n; shaderkit: opdescs 0x36f\n  end\n.end\n", "before any instruction"),
        ("; shaderkit: dvle colour=1\n.proc main\n  end\n.end\n", "unknown DVLE header field"),
        ("; shaderkit: opdescs 0xzz\n", "bad pragma"),
    ],
)
def test_pragma_errors(src: str, words: str) -> None:
    assert words in _error(src).message


def test_pragmas_pin_descriptors_and_header() -> None:
    import struct

    # two descriptors that agree on every used bit: picasso would merge them, the pins keep both
    src = ("; shaderkit: opdescs 0x36f 0x6c36f\n; shaderkit: dvle version=0 output_mask=0\n"
           "; shaderkit: label 7 1 there 0x5\n.proc main\n  mov r0, r1  ; shaderkit: desc 1\n"
           "there:\n  mov r0, r1\n  end\n.end\n")
    data = assemble_sources([("p.pica", src)])
    assert struct.unpack_from("<4I", data, 12 + 40) == (0x4C000000 | 0x10 << 21 | 0x11 << 12 | 1,
                                                        0x4C000000 | 0x10 << 21 | 0x11 << 12, 0x88000000,
                                                        0x36F)
    dvle = struct.unpack_from("<I", data, 8)[0]
    assert struct.unpack_from("<H", data, dvle + 4)[0] == 0  # version
    assert struct.unpack_from("<H", data, dvle + 0x12)[0] == 0  # output mask
    label_off, label_count = struct.unpack_from("<II", data, dvle + 0x20)
    assert label_count == 1
    assert struct.unpack_from("<B3xII", data, dvle + label_off) == (7, 1, 5)


def test_program_too_large_for_12_bit_targets() -> None:
    # geometry shaders have no 512-word limit, but jump/call targets are 12 bits (4096 words)
    src = ".gsh\n.proc main\n" + "  mov r0, r1\n" * 4100 + "  end\n.end\n"
    assert "program too large" in _error(src).message


def test_vertex_shader_limit_is_512_words() -> None:
    src = ".proc main\n" + "  mov r0, r1\n" * 512 + "  end\n.end\n"
    err = _error(src)
    assert "max 512" in err.message and err.line == 514


def test_descriptor_second_words_round_trip() -> None:
    import struct

    from shaderkit.formats.dvlb.dvlb import Dvlb
    from shaderkit.formats.dvlb.source import dvlb_to_source

    # a value above 32 bits in the opdescs pragma is the entry's second word (picasso writes 0)
    src = "; shaderkit: opdescs 0xf0000036f 0x6c36f\n.proc main\n  mov r0, r1  ; shaderkit: desc 1\n  end\n.end\n"
    data = assemble_sources([("p.pica", src)])
    dvlp = 8 + 4 * struct.unpack_from("<I", data, 4)[0]  # DVLP after "DVLB", the DVLE count and offsets
    table_at = dvlp + struct.unpack_from("<I", data, dvlp + 0x10)[0]  # its descriptor table offset
    assert struct.unpack_from("<4I", data, table_at) == (0x36F, 0xF, 0x6C36F, 0)
    # a file whose entries have such words (libbrahma's, from an older assembler: 0xf) lists them in
    # the pragma, so its text assembles back to the same bytes
    model = Dvlb.from_bytes(assemble_sources([("p.pica", ".proc main\n  mov r0, r1\n  mov r1, r0\n  end\n.end\n")]))
    (descriptor,) = model.dvlp.opdescs  # both movs: mask xyzw (0xf), swizzle xyzw (0x1b << 5)
    descriptor.extra = 0xF
    old = model.to_bytes()
    text = dvlb_to_source(Dvlb.from_bytes(old))
    assert text.splitlines()[1] == "; shaderkit: opdescs 0xf0000036f"
    assert assemble_sources([("t.pica", text)]) == old

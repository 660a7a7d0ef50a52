"""The preshader of a D3D9 effect shader on the D3D9 VM and ``shaderkit run`` (``shaderkit.vm.fxlvm``).

Each shader is built here: a few lines of D3D9 assembly and a ``PRES`` comment block written word
by word (version 0x46580201, ``CTAB`` of the effect parameters, ``CLIT`` doubles, ``FXLC`` code:
the layouts of tests/d3d9/test_d3d9_preshader.py). Expected values are worked out by hand from
d3dx9's preshader rules as Wine's ``dlls/d3dx9_36/preshader.c`` states them (written against native
d3dx9's test results): per-component evaluation in doubles, float32 registers, ``rcp(0)`` = inf,
``rsq`` of |x|, ``log(0)`` = 0, ``cmp`` a >= 0, ``div`` 0, ``lrint`` to int outputs, relative reads
wrapping modulo the input file's size rounded up to a power of two.
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from click.testing import CliRunner  # noqa: E402

from d3d9_build import CREATOR, END, comment, fxlc_operand, pack, string  # noqa: E402
from d3d9_build import fxlc_instruction as ins  # noqa: E402
from shaderkit.cli import cli  # noqa: E402
from shaderkit.formats.d3d9.assemble import assemble_shader  # noqa: E402
from shaderkit.vm.d3d9 import D3D9Shader, VMError  # noqa: E402

# register tables of FXLC operands
LIT, IN, OUT, BOOL_OUT, INT_OUT, TEMP = 1, 2, 4, 5, 6, 7
# D3DXPARAMETER_CLASS / TYPE
SCALAR, VECTOR, MATRIX_ROWS, MATRIX_COLUMNS = 0, 1, 2, 3
T_BOOL, T_INT, T_FLOAT = 1, 2, 3
# FXLVM opcodes (Wine's d3dx9 op table)
MOV, NEG, RCP, FRC, EXP, LOG, RSQ = 0x100, 0x101, 0x103, 0x104, 0x105, 0x106, 0x107
MIN, MAX, LT, GE, ADD, MUL, DIV = 0x200, 0x201, 0x202, 0x203, 0x204, 0x205, 0x208
CMP, DOT, DOTSWIZ = 0x300, 0x500, 0x70E


Constant = tuple[str, int, int, int, int, int, int, int, int]


def ctab(constants: list[Constant], version: int = 0x46580201) -> bytes:
    """A D3DX constant table: (name, register set, register, count, class, type, rows, columns,
    elements) each; 28-byte header (``version``: the preshader's, or a shader's version token),
    20-byte constant infos, 16-byte type infos, then the strings."""
    n = len(constants)
    types_at = 28 + 20 * n
    strings_at = types_at + 16 * n
    strings = b""
    infos = types = b""
    for k, (name, regset, register, count, klass, kind, rows, columns, elements) in enumerate(constants):
        infos += struct.pack("<I4HII", strings_at + len(strings), regset, register, count, 0, types_at + 16 * k, 0)
        types += struct.pack("<6HI", klass, kind, rows, columns, elements, 0, 0)
        strings += name.encode() + b"\0"
    creator = strings_at + len(strings)
    strings += CREATOR + b"\0"
    target = strings_at + len(strings)
    strings += b"tx_1_1\0"
    strings += b"\xab" * (-len(strings) % 4)
    header = struct.pack("<7I", 28, creator, version, n, 28, 0, target)
    return header + infos + types + strings


def op(table: int, register: int, component: int = 0) -> tuple[int, ...]:
    return fxlc_operand(table, 4 * register + component)


def rel(index: tuple[int, ...], table: int, register: int) -> tuple[int, ...]:
    """``array[index]``: the index operand's table and offset, then the array's."""
    return (1, index[1], index[2], table, 4 * register)



def preshader(parameters: list[Constant], literals: list[float],
              *instructions: tuple[int, ...]) -> bytes:
    code = pack(len(instructions), *(w for i in instructions for w in i))
    clit = pack(len(literals)) + struct.pack(f"<{len(literals)}d", *literals)
    return (pack(0x46580201) + comment(b"CTAB", ctab(parameters)) + comment(b"CLIT", clit)
            + comment(b"FXLC", code) + pack(END))


def with_pres(text: str, pres: bytes, before: bytes = b"") -> bytes:
    """The assembled shader with ``before`` (a CTAB comment) and the PRES block after its version token."""
    data = assemble_shader(text).to_bytes()
    return data[:4] + before + comment(b"PRES", pres) + data[4:]


def shader(text: str, pres: bytes) -> D3D9Shader:
    """The assembled shader with the PRES block after its version token."""
    return D3D9Shader.from_bytes(with_pres(text, pres))


def scalar(name: str, register: int, kind: int = T_FLOAT) -> Constant:
    return (name, 2, register, 1, SCALAR, kind, 1, 1, 1)


def vector(name: str, register: int, columns: int = 4) -> Constant:
    return (name, 2, register, 1, VECTOR, T_FLOAT, 1, columns, 1)


PS = "ps_2_0\nmov oC0, c0\n"


def test_mul_of_two_parameters_fills_c0() -> None:
    # mul c0.x, a.x, b.x; the shader moves c0 to oC0: (3 * 2.5, 0, 0, 0)
    ps = shader(PS, preshader([scalar("a", 0), scalar("b", 1)], [],
                              ins(MUL, 1, op(OUT, 0), op(IN, 0), op(IN, 1))))
    assert ps.parameter_names() == ["a", "b"]
    ps.set("a", 3.0).set("b", 2.5)
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[7.5, 0, 0, 0]]


def test_scalar_broadcast_and_literals() -> None:
    # mul r0.x, s.x, (2) / add c0, r0.x (scalar, broadcast), v: 2 * 1.5 + (1, 2, 3, 4)
    # / mul c1.yz, (0.5) (scalar literal), v.yz -> c1 = (0, 1, 1.5, 0)
    ps = shader("ps_2_0\nadd oC0, c0, c1\n", preshader(
        [scalar("s", 0), vector("v", 1)], [2.0, 0.5, 0.0, 0.0],
        ins(MUL, 1, op(TEMP, 0), op(IN, 0), op(LIT, 0, 0)),
        ins(ADD, 4, op(OUT, 0), op(TEMP, 0), op(IN, 1), scalar=True),
        ins(MUL, 2, op(OUT, 1, 1), op(LIT, 0, 1), op(IN, 1, 1), scalar=True)))
    ps.set("s", 1.5).set("v", [1, 2, 3, 4])
    pre = ps.evaluate_preshader()
    assert pre is not None and sorted(pre.floats) == [0, 1]
    assert pre.floats[0].tolist() == [4, 5, 6, 7] and pre.floats[1].tolist() == [0, 1, 1.5, 0]
    assert ps.run(lanes=2)["COLOR0"].tolist() == [[4, 6, 7.5, 7]] * 2


def test_rcp_rsq_lt_ge_cmp_and_the_other_unary_rules() -> None:
    lits = [0, 0, 0, -3, 10, 20, 30, 40, -1, -2, -3, -4, 1, 2, 3, 4]
    pres = preshader(
        [vector("v", 0), vector("w", 1)], [float(x) for x in lits],
        ins(RCP, 4, op(OUT, 0), op(IN, 0)),
        ins(RSQ, 4, op(OUT, 1), op(IN, 0)),
        ins(LT, 4, op(OUT, 2), op(IN, 0), op(LIT, 0)),
        ins(GE, 4, op(OUT, 3), op(IN, 0), op(LIT, 0)),
        ins(CMP, 4, op(OUT, 4), op(IN, 0), op(LIT, 1), op(LIT, 2)),
        ins(CMP, 4, op(OUT, 5), op(IN, 0, 1), op(LIT, 1), op(LIT, 2), scalar=True),
        ins(DOT, 4, op(OUT, 6), op(IN, 0), op(LIT, 3)),
        ins(LOG, 4, op(OUT, 7), op(IN, 0)),
        ins(FRC, 4, op(OUT, 8), op(IN, 1)),
        ins(EXP, 4, op(OUT, 9), op(IN, 1)),
        ins(MIN, 4, op(OUT, 10), op(IN, 0), op(IN, 1)),
        ins(MAX, 4, op(OUT, 11), op(IN, 0), op(IN, 1)),
        ins(DIV, 4, op(OUT, 12), op(IN, 0), op(IN, 1)),
        ins(NEG, 4, op(OUT, 13), op(IN, 0)),
        ins(DOTSWIZ, 1, op(OUT, 14, 2), op(IN, 0), op(IN, 0, 1), op(IN, 0, 3), op(LIT, 3), op(LIT, 3, 1),
            op(LIT, 3, 2)))
    ps = shader("ps_2_0\nmov oC0, c0\nmov oC1, c1\nmov oC2, c4\nmov oC3, c6\n", pres)
    ps.set("v", [4, -0.25, 0, -2]).set("w", [-1.25, 3, math.nan, 0.5])
    pre = ps.evaluate_preshader()
    assert pre is not None
    f = {k: v.tolist() for k, v in pre.floats.items()}
    assert f[0] == [0.25, -4, math.inf, -0.5]  # rcp
    assert f[1] == [0.5, 2, math.inf, np.float32(1 / math.sqrt(2))]  # rsq of |x|, rsq(0) = inf
    assert f[2] == [0, 1, 0, 0]  # v < (0, 0, 0, -3)
    assert f[3] == [1, 0, 1, 1]  # v >= (0, 0, 0, -3)
    assert f[4] == [10, -2, 30, -4]  # cmp: v >= 0 ? (10, 20, 30, 40) : (-1, -2, -3, -4)
    assert f[5] == [-1, -2, -3, -4]  # cmp with v.y (-0.25) broadcast: the third input everywhere
    assert f[6] == [-4.5, 0, 0, 0]  # dot(v, (1, 2, 3, 4)) = 4 - 0.5 + 0 - 8 into x only
    assert f[7] == [2, -2, 0, 1]  # log2 |v|, log(0) = 0
    assert f[8][:2] == [0.75, 0] and math.isnan(f[8][2]) and f[8][3] == 0.5  # frc
    assert f[9][0] == np.float32(2 ** -1.25) and f[9][1] == 8 and math.isnan(f[9][2])  # exp = 2 ** x
    assert f[9][3] == np.float32(2 ** 0.5)
    assert f[10] == [-1.25, -0.25, 0, -2]  # fmin: the NaN operand gives the other
    assert f[11] == [4, 3, 0, 0.5]
    assert f[12] == [0, 0, 0, 0]  # div: always 0
    assert f[13] == [-4, 0.25, 0, 2] and math.copysign(1, f[13][2]) == -1  # neg: -0 for +0
    assert f[14] == [0, 0, 4 * 1 + -0.25 * 2 + -2 * 3, 0]  # dotswiz6: a0*a3 + a1*a4 + a2*a5 into z
    out = ps.run(lanes=1)
    assert out["COLOR0"].tolist() == [[0.25, -4, math.inf, -0.5]]
    assert out["COLOR2"].tolist() == [[10, -2, 30, -4]] and out["COLOR3"].tolist() == [[-4.5, 0, 0, 0]]


def test_components_evaluate_in_order_and_see_earlier_writes() -> None:
    # mov r0.x, p.x / mov r0.yz, r0.xy: r0.y = r0.x, then r0.z = the new r0.y / mov c0, r0
    ps = shader(PS, preshader([scalar("p", 0)], [],
                              ins(MOV, 1, op(TEMP, 0), op(IN, 0)),
                              ins(MOV, 2, op(TEMP, 0, 1), op(TEMP, 0)),
                              ins(MOV, 4, op(OUT, 0), op(TEMP, 0))))
    assert ps.set("p", 5).run(lanes=1)["COLOR0"].tolist() == [[5, 5, 5, 0]]


@pytest.mark.parametrize(("index", "expected"), [
    (3, [30, 31, 32, 33]),
    (2.5, [20, 21, 22, 23]),  # lrint: halves to even
    (3.5, [40, 41, 42, 43]),
    (12, [0, 0, 0, 0]),  # 11 input registers: wraps modulo 16, register 12 is past them -> 0
    (17, [10, 11, 12, 13]),  # 17 mod 16 = 1
    (-1, [0, 0, 0, 0]),  # (2**32 - 1) registers on: 2**30 - 1 mod 16 = 15, past the 11 -> 0
])
def test_relative_input_wraps_as_d3dx9(index: float, expected: list[float]) -> None:
    # float4 array[10] in c0, float index in c10: mov c0, array[index.x]
    ps = shader(PS, preshader([("array", 2, 0, 10, VECTOR, T_FLOAT, 1, 4, 10), scalar("index", 10)], [],
                              ins(MOV, 4, op(OUT, 0), rel(op(IN, 10), IN, 0))))
    ps.set("array", [[10 * k + c for c in range(4)] for k in range(10)]).set("index", index)
    assert ps.run(lanes=1)["COLOR0"].tolist() == [expected]


def test_column_major_matrix_parameter_and_int_bool_outputs() -> None:
    # float2x2 M column-major in c0..c1 (a register a column): mov c0.xy, c1.xy gives M's second
    # column; mov i0, (2.5, -1.5, 3.7, -0.5) rounds to nearest, halves to even; a bool output
    # takes one register a component: mov b1 (2 components), (0, 0.5) -> b1 false, b2 true;
    # mov b3, (2.5) -> true
    pres = preshader([("M", 2, 0, 2, MATRIX_COLUMNS, T_FLOAT, 2, 2, 1)], [2.5, -1.5, 3.7, -0.5, 0, 0.5, 0, 0],
                     ins(MOV, 2, op(OUT, 0), op(IN, 1)),
                     ins(MOV, 4, op(INT_OUT, 0), op(LIT, 0)),
                     ins(MOV, 2, op(BOOL_OUT, 1), op(LIT, 1)),
                     ins(MOV, 1, op(BOOL_OUT, 3), op(LIT, 0)))
    ps = shader(PS, pres)
    ps.set("M", [[1, 2], [3, 4]])
    pre = ps.evaluate_preshader()
    assert pre is not None
    assert pre.floats[0].tolist() == [2, 4, 0, 0]
    assert pre.ints[0].tolist() == [2, -2, 4, 0]
    assert pre.bools == {1: False, 2: True, 3: True}
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[2, 4, 0, 0]]


def test_bool_output_drives_the_shader() -> None:
    # b0 = (c0.x != 0) from the preshader; the shader writes c1 only when b0
    code = "ps_3_0\ndef c1, 1, 2, 3, 4\nmov oC0, c2\nif b0\nmov oC0, c1\nendif\n"
    pres = preshader([scalar("on", 0)], [], ins(MOV, 1, op(BOOL_OUT, 0), op(IN, 0)))
    ps = shader(code, pres)
    assert ps.set("on", 0).run(lanes=1)["COLOR0"].tolist() == [[0, 0, 0, 0]]
    assert ps.set("on", 1).run(lanes=1)["COLOR0"].tolist() == [[1, 2, 3, 4]]


def test_caller_registers_override_and_run_without_the_preshader() -> None:
    ps = shader("ps_2_0\nadd oC0, c0, c1\n", preshader([vector("v", 0)], [],
                                                      ins(MOV, 4, op(OUT, 0), op(IN, 0)),
                                                      ins(NEG, 4, op(OUT, 1), op(IN, 0))))
    ps.set("v", [1, 2, 3, 4])
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[0, 0, 0, 0]]
    ps.set("c1", [10, 10, 10, 10])  # the caller's c1 wins over the preshader's
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[11, 12, 13, 14]]
    assert ps.run(lanes=1, preshader=False)["COLOR0"].tolist() == [[10, 10, 10, 10]]


def test_a_name_in_both_tables_sets_both_and_unknown_names_list_both() -> None:
    pres = preshader([scalar("k", 0)], [], ins(MUL, 1, op(OUT, 0), op(IN, 0), op(IN, 0)))
    shader_table = comment(b"CTAB", ctab([scalar("k", 1)], version=0xFFFF0200))
    ps = D3D9Shader.from_bytes(with_pres("ps_2_0\nadd oC0, c0, c1\n", pres, shader_table))
    assert ps.constant_names() == ["k"] and ps.parameter_names() == ["k"]
    ps.set("k", 3)  # the shader's c1.x = 3 and the preshader's c0.x = 3 * 3
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[12, 0, 0, 0]]
    with pytest.raises(VMError, match=r"no constant named 'z' \(CTAB: k; preshader CTAB: k\)"):
        ps.set("z", 1)


def test_a_struct_parameter_takes_whole_registers() -> None:
    # class 5 (struct): its values are registers as they are, rows of 4
    pres = preshader([("s", 2, 0, 1, 5, T_FLOAT, 1, 4, 1)], [], ins(MOV, 4, op(OUT, 0), op(IN, 0)))
    ps = shader(PS, pres)
    with pytest.raises(VMError, match=r"'s' takes whole registers \(a multiple of 4 values\), got 2"):
        ps.set("s", [1, 2])
    assert ps.set_defaults({"s": [1, 2]}).run(lanes=1)["COLOR0"].tolist() == [[0, 0, 0, 0]]  # skipped
    assert ps.set("s", [1, 2, 3, 4]).run(lanes=1)["COLOR0"].tolist() == [[1, 2, 3, 4]]


def test_values_a_register_cannot_hold_are_vm_errors() -> None:
    ps = shader(PS, preshader([scalar("k", 0)], [], ins(MOV, 1, op(OUT, 0), op(IN, 0))))
    for name, value in (("i0", math.nan), ("i0", 1e30), ("b0", math.inf), ("c0", "abc"), ("k", [[1], [2, 3]])):
        with pytest.raises(VMError):
            ps.set(name, value)
    assert ps.set("i0", [2.7, -1, 0, 1]).int_values[0].tolist() == [2, -1, 0, 1]  # truncated, as before


BAD = [
    (ins(0x130, 1, op(OUT, 0), op(IN, 0)), "instruction 0 \\(itof\\): an opcode d3dx9 does not run"),
    (ins(0x7F0, 1, op(OUT, 0), op(IN, 0)), "not an FXLVM opcode"),
    (ins(ADD, 1, op(OUT, 0), op(IN, 0)), "1 inputs; it takes 2"),
    (ins(MOV, 5, op(OUT, 0), op(IN, 0)), "5 components"),
    (ins(MOV, 1, op(OUT, 0), op(TEMP, 0)), "reads temporary register 0, past the 0 register"),
    (ins(MOV, 1, op(OUT, 0), op(LIT, 1)), "reads literal register 1, past the 1 register"),
    (ins(MOV, 2, op(OUT, 0), op(IN, 0, 3)), "reads input register 1, past the 1 register"),
    (ins(MOV, 1, rel(op(IN, 0), OUT, 0), op(IN, 0)), "a relative output"),
    (ins(MOV, 1, op(LIT, 0), op(IN, 0)), "writes the literal register file"),
    (ins(MOV, 1, op(OUT, 0), op(INT_OUT, 0)), "reads the int output register file"),
    (ins(MOV, 1, (0, TEMP, 0xFFFFFFF0), op(IN, 0)), "writes temporary register 1073741820 \\(at most 65536\\)"),
]


@pytest.mark.parametrize(("instruction", "message"), BAD)
def test_code_d3dx9_refuses_is_a_vm_error_at_run(instruction: tuple[int, ...], message: str) -> None:
    ps = shader(PS, preshader([scalar("a", 0)], [1.0, 2.0, 3.0, 4.0], instruction))
    with pytest.raises(VMError, match="the preshader does not run: .*" + message):
        ps.run(lanes=1)
    assert ps.run(lanes=1, preshader=False)["COLOR0"].tolist() == [[0, 0, 0, 0]]


def test_a_block_that_does_not_read_is_a_vm_error_at_run() -> None:
    pres = preshader([scalar("a", 0)], [], ins(MOV, 1, op(OUT, 0), op(IN, 0)))
    ps = shader(PS, pres[:-4])  # no end token
    with pytest.raises(VMError, match="the preshader does not run: .*no end token"):
        ps.run(lanes=1)


def cli_file(tmp_path: Path, pres: bytes) -> Path:
    path = tmp_path / "pres.pso"
    path.write_bytes(with_pres(PS, pres))
    return path


def test_run_cli_takes_parameters_by_name(tmp_path: Path) -> None:
    # c0 = (1 / size.x, 1 / size.y) * scale (scalar): TexelSize-like, as the real blur effects do
    pres = preshader([vector("size", 0, 2), scalar("scale", 1)], [],
                     ins(RCP, 2, op(TEMP, 0), op(IN, 0)),
                     ins(MUL, 2, op(OUT, 0), op(IN, 1), op(TEMP, 0), scalar=True))
    path = cli_file(tmp_path, pres)
    result = CliRunner().invoke(cli, ["run", str(path), "--uniform", "size=4,8", "--uniform", "scale=2", "-o", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["COLOR0"] == [[0.5, 0.25, 0, 0]]
    result = CliRunner().invoke(cli, ["run", str(path), "--uniform", "size=4,8", "--uniform", "c0=9", "-o", "-"])
    assert json.loads(result.output)["COLOR0"] == [[9, 0, 0, 0]]


def test_run_cli_refuses_bad_preshader_code_in_one_line(tmp_path: Path) -> None:
    path = cli_file(tmp_path, preshader([scalar("a", 0)], [], ins(0x130, 1, op(OUT, 0), op(IN, 0))))
    result = subprocess.run([sys.executable, "-m", "shaderkit", "run", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "preshader" in lines[0] and "itof" in lines[0], result.stderr


def test_every_byte_of_the_block_damaged_runs_or_raises_a_clear_error() -> None:
    from shaderkit.errors import ShaderFormatError

    pres = preshader([vector("v", 0), scalar("i", 1)], [2.0, 0.5, 0.0, 0.0],
                     ins(MUL, 4, op(OUT, 0), op(LIT, 0, 1), op(IN, 0), scalar=True),
                     ins(MOV, 4, op(OUT, 1), rel(op(IN, 1), IN, 0)))
    good = with_pres(PS, pres)
    outcomes: Counter[str] = Counter()
    for at in range(4, 4 + 8 + len(pres)):
        for value in (0x00, 0x01, 0x80, 0xFF):
            damaged = bytearray(good)
            damaged[at] = value
            try:
                D3D9Shader.from_bytes(bytes(damaged)).run(lanes=1)
                outcomes["ran"] += 1
            except (ShaderFormatError, VMError) as exc:
                outcomes[type(exc).__name__] += 1
    # every kind of outcome occurs: the damage reaches the parser and the preshader alike
    assert outcomes["ran"] and outcomes["ShaderFormatError"] and outcomes["VMError"], outcomes


def effect_with(shader_bytes: bytes, parameters: list[tuple[bytes, int, int, int, list[float]]]) -> bytes:
    """An fx_2_0 effect with float ``parameters`` (name, class, columns, rows, initial values) and
    ``technique T { pass P { PixelShader = ...; } }``, laid out as tests/d3d9/test_d3d9_effect.py
    describes: the data block holds a zero word, then per parameter its type (float (3), class,
    name offset, no semantic, 0 elements, the two size words: columns then rows for a vector, rows
    then columns else) and value, then the names, "T", "P", the PixelShader (15) object type and
    its value (object id 1); the records point into it."""
    block = pack(0)
    spots = []
    names = b"".join(string(name) for name, *_ in parameters)
    name_at = 4 + sum(28 + 4 * len(values) for *_, values in parameters)
    for name, klass, columns, rows, values in parameters:
        sizes = (columns, rows) if klass == VECTOR else (rows, columns)
        spots.append((len(block), len(block) + 28))
        block += pack(3, klass, name_at, 0, 0, *sizes) + struct.pack(f"<{len(values)}f", *values)
        name_at += len(string(name))
    block += names
    technique, pass_ = len(block), len(block) + 8
    block += string(b"T") + string(b"P")
    state_type = len(block)
    block += pack(15, 4, 0, 0, 0) + pack(1)
    records = (pack(len(parameters), 1, 1, 2)           # parameters, 1 technique, 1 shader, 2 object ids
               + b"".join(pack(t, v, 0, 0) for t, v in spots)  # type, value, flags, no annotation
               + pack(technique, 0, 1) + pack(pass_, 0, 1)     # technique T, its pass P, one state
               + pack(147, 0, state_type, state_type + 20)     # PixelShader (147), index 0, type, value
               + pack(0, 1)                                    # no small object, one large
               + pack(0, 0, 0xFFFFFFFF, 0, 0, len(shader_bytes)) + shader_bytes + bytes(-len(shader_bytes) % 4))
    return pack(0xFEFF0901, len(block)) + block + records


def test_an_effect_member_runs_from_the_effect_initial_values(tmp_path: Path) -> None:
    from shaderkit.formats.d3d9.effect import D3D9Effect

    # preshader: c0 = rcp(size) * scale; the shader adds its own CTAB constant tint (c1):
    # with the effect's size (4, 8), scale 2 and tint (0.25, 0.5, 0.75, 1):
    # (0.5, 0.25, 0, 0) + tint = (0.75, 0.75, 0.75, 1)
    pres = preshader([vector("size", 0, 2), scalar("scale", 1)], [],
                     ins(RCP, 2, op(TEMP, 0), op(IN, 0)),
                     ins(MUL, 2, op(OUT, 0), op(IN, 1), op(TEMP, 0), scalar=True))
    data = with_pres("ps_2_0\nadd oC0, c0, c1\n", pres, comment(b"CTAB", ctab([vector("tint", 1)])))
    (tmp_path / "bare.pso").write_bytes(data)
    effect = effect_with(data, [(b"size", VECTOR, 2, 1, [4, 8]), (b"scale", SCALAR, 1, 1, [2]),
                                (b"tint", VECTOR, 4, 1, [0.25, 0.5, 0.75, 1]),
                                (b"unused", MATRIX_COLUMNS, 2, 2, [1, 2, 3, 4])])
    assert D3D9Effect.from_bytes(effect).parameter_values() == {  # (no column-major matrix)
        "size": [4.0, 8.0], "scale": [2.0], "tint": [0.25, 0.5, 0.75, 1.0]}
    path = tmp_path / "blur.fxo"
    path.write_bytes(effect)
    member = f"{path}//T/P/PixelShader"
    result = CliRunner().invoke(cli, ["run", member, "-o", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["COLOR0"] == [[0.75, 0.75, 0.75, 1]]
    result = CliRunner().invoke(cli, ["run", member, "--uniform", "scale=4", "--uniform", "tint=0,0,0,0", "-o", "-"])
    assert result.exit_code == 0, result.output  # the caller's values win
    assert json.loads(result.output)["COLOR0"] == [[1, 0.5, 0, 0]]
    # the bare shader knows no effect: its parameters read 0, rcp(0) = inf, inf * 0 = NaN
    bare = CliRunner().invoke(cli, ["run", str(tmp_path / "bare.pso"), "-o", "-"])
    assert bare.exit_code == 0, bare.output
    assert json.loads(bare.output)["COLOR0"] == [["nan", "nan", 0, 0]]
    # from the library: the same values through set_defaults; a value that does not fit is skipped
    ps = D3D9Shader.from_bytes(data).set_defaults({"size": [4, 8], "scale": [2], "tint": [1, 2, 3, 4, 5],
                                                   "unrelated": [1]})
    assert ps.run(lanes=1)["COLOR0"].tolist() == [[0.5, 0.25, 0, 0]]

"""FXLVM expressions (``CTAB`` + ``CLI4`` + ``FXLC``) of effects: typed, rebuilt, printed as fxc's
``eval(...)``. Every payload is packed by hand here; the expected text is worked out from the
FXLC layout (token ``opcode << 20 | components``, scalar flag bit 31; operands ``relative,
table, component offset``; tables 1 literal, 2 input, 4 output, 7 temp)."""

from __future__ import annotations

import struct

import pytest
from dxbc_build import Blob, container

from d3d9_build import fxlc_instruction as ins
from d3d9_build import fxlc_operand as op
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.fx10_block import ASSIGN_EXPRESSION, ASSIGN_EXPRESSION_INDEX
from shaderkit.formats.dxbc.fxlvm import ConstantTable, ExpressionCode, Literals, expression_lines
from shaderkit.io.reader import Reader
from shaderkit.isa.fxlvm.code import FxlcCode, component_suffix

LIT, IN, OUT, TMP = 1, 2, 4, 7
#: fxc's bytes after the last instruction
FXC_TAIL = bytes.fromhex("f0f0f0f00f0f0f0fffff0000")



def fxlc(*instructions: tuple[int, ...], tail: bytes = FXC_TAIL) -> bytes:
    words = [len(instructions)] + [w for i in instructions for w in i]
    return struct.pack(f"<{len(words)}I", *words) + tail


def cli4(*values: int) -> bytes:
    return struct.pack(f"<{len(values) + 1}I", len(values), *values)


def ctab(*constants: tuple[str, int, int]) -> bytes:
    """A constant table: header, the infos, then per constant its name and an int scalar type."""
    n = len(constants)
    tail = b""
    infos = b""
    base = 28 + 20 * n
    for name, register, count in constants:
        name_at = base + len(tail)
        tail += name.encode() + b"\0"
        tail += bytes(-len(tail) % 4)
        type_at = base + len(tail)
        tail += struct.pack("<6HI", 0, 2, 1, 1, 1, 0, 0)
        infos += struct.pack("<I4HII", name_at, 2, register, count, 0, type_at, 0)
    target = base + len(tail)
    tail += b"tx\0"
    creator = base + len(tail)
    tail += b"me\0\xab"
    return struct.pack("<7I", 28, creator, 0x46580400, n, 28, 0x100, target) + infos + tail


def expression(code: bytes, literals: bytes, table: bytes) -> bytes:
    return container((b"CTAB", table), (b"CLI4", literals), (b"FXLC", code))


def test_one_instruction_typed_rebuilt_printed() -> None:
    code = fxlc(ins(0x216, 1, op(OUT, 0), op(IN, 0), op(LIT, 0)))
    data = expression(code, cli4(2), ctab(("i", 0, 1)))
    model = DxbcContainer.from_bytes(data)
    fx = model.chunk("FXLC")
    assert isinstance(fx, ExpressionCode)
    (only,) = fx.code.instructions
    assert (only.name, only.components, only.scalar) == ("iadd", 1, False)
    assert fx.code.tail == FXC_TAIL
    lits = model.chunk("CLI4")
    assert isinstance(lits, Literals) and lits.values == [2]
    table = model.chunk("CTAB")
    assert isinstance(table, ConstantTable)
    assert [(c.name, c.register_index, c.register_count) for c in table.constants] == [("i", 0, 1)]
    assert table.constants[0].type is not None and table.constants[0].type.type == 2
    assert expression_lines(model) == ["iadd expr.x, i.x, (2)"]
    assert model.to_bytes() == data


def test_components_wrap_and_result_names() -> None:
    # dot of four components written from y: fxc prints r0.yzwx; a result past x is expr0.<c>
    code = fxlc(
        ins(0x500, 4, op(TMP, 1), op(IN, 0), op(IN, 4)),
        ins(0x204, 1, op(OUT, 1), op(TMP, 1), op(IN, 1)),
        ins(0x108, 4, op(TMP, 4), op(TMP, 0)),
        ins(0x205, 1, op(OUT, 0), op(IN, 0), op(TMP, 6)),
    )
    model = DxbcContainer.from_bytes(expression(code, cli4(), ctab(("a", 0, 1), ("b", 1, 1))))
    assert expression_lines(model) == [
        "dot r0.yzwx, a, b", "add expr0.y, r0.y, a.y", "sin r1, r0", "mul expr.x, a.x, r1.z",
    ]


def test_inputs_spanning_registers_print_the_register_inside() -> None:
    # m takes registers 2..5: register 5 component z is m[3].z; register 9 is nobody's: c9
    code = fxlc(ins(0x205, 1, op(TMP, 0), op(IN, 0), op(IN, 5 * 4 + 2)),
                ins(0x204, 1, op(OUT, 0), op(TMP, 0), op(IN, 9 * 4 + 3)))
    model = DxbcContainer.from_bytes(expression(code, cli4(), ctab(("a", 0, 1), ("m", 2, 4))))
    assert expression_lines(model) == ["mul r0.x, a.x, m[3].z", "add expr.x, r0.x, c9.w"]


def test_literals_print_by_bit_pattern_and_scalar_flag() -> None:
    # normal floats %f, -0 as a float, other patterns as integers; the scalar flag makes the
    # first input one component
    lits = cli4(5, 0x40A00000, 0x80000000, 0xFFFFFFFF, 0x3F317218)
    code = fxlc(
        ins(0x216, 1, op(TMP, 0), op(IN, 0), op(LIT, 0)),
        ins(0x204, 1, op(TMP, 1), op(IN, 0), op(LIT, 1)),
        ins(0x230, 1, op(TMP, 2), op(TMP, 0), op(LIT, 2)),
        ins(0x100, 1, op(TMP, 3), op(LIT, 3)),
        ins(0x205, 2, op(OUT, 0), op(TMP, 0), op(LIT, 3), scalar=True),
        ins(0x205, 1, op(OUT, 0), op(TMP, 0), op(LIT, 4)),
    )
    model = DxbcContainer.from_bytes(expression(code, lits, ctab(("i", 0, 1))))
    assert expression_lines(model) == [
        "iadd r0.x, i.x, (5)", "add r0.y, i.x, (5.000000)", "and r0.z, r0.x, (-0.000000)", "mov r0.w, (-1)",
        "mul expr.xy, r0.x, (-1, 0.693147)", "mul expr.x, r0.x, (0.693147)",
    ]


def test_edits_are_written() -> None:
    code = fxlc(ins(0x216, 1, op(OUT, 0), op(IN, 0), op(LIT, 0)))
    model = DxbcContainer.from_bytes(expression(code, cli4(2), ctab(("i", 0, 1))))
    fx, lits, table = model.chunk("FXLC"), model.chunk("CLI4"), model.chunk("CTAB")
    assert isinstance(fx, ExpressionCode) and isinstance(lits, Literals) and isinstance(table, ConstantTable)
    fx.code.instructions[0].opcode = 0x219
    lits.values[0] = 7
    table.constants[0].register_index = 1
    again = DxbcContainer.from_bytes(model.to_bytes())
    assert expression_lines(again) == ["imul expr.x, c0.x, (7)"]


def test_relative_operand_words_round_trip() -> None:
    words = [1, 0x10000001, 1, 1, TMP, 0, IN, 8, 0, OUT, 0]
    data = struct.pack(f"<{len(words)}I", *words)
    code = FxlcCode.from_bytes(data)
    (only,) = code.instructions
    assert only.inputs[0].array == (IN, 8) and (only.inputs[0].table, only.inputs[0].offset) == (TMP, 0)
    assert code.to_bytes() == data


@pytest.mark.parametrize("words", [
    [5, 0x21600001, 0],  # more instructions than words
    [1, 0x21600001, 1, 0, IN],  # operand cut short
    [1, 0x21600001, 1, 2, IN, 0, 0, OUT, 0],  # relative flag neither 0 nor 1
    [1, 0x21600001, 999],  # input count past any instruction
])
def test_bad_payloads_raise_format_errors(words: list[int]) -> None:
    with pytest.raises(ShaderFormatError):
        FxlcCode.from_bytes(struct.pack(f"<{len(words)}I", *words))
    # inside a container the chunk stays raw and the container still rebuilds
    data = expression(struct.pack(f"<{len(words)}I", *words), cli4(), ctab())
    model = DxbcContainer.from_bytes(data)
    assert not isinstance(model.chunk("FXLC"), ExpressionCode) and expression_lines(model) is None
    assert model.to_bytes() == data


def test_tables_and_code_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a container parses its CTAB and decodes its FXLC once each (the chunk checks
    read headers only); a table or code that does not read still stays raw."""
    calls: list[str] = []
    table_parse, code_decode = ConstantTable.parse.__func__, FxlcCode.from_bytes.__func__  # type: ignore[attr-defined]

    def counted_table(cls: type[ConstantTable], r: Reader) -> ConstantTable:
        calls.append("CTAB")
        return table_parse(cls, r)  # type: ignore[no-any-return]

    def counted_code(cls: type[FxlcCode], data: bytes, base: int = 0) -> FxlcCode:
        calls.append("FXLC")
        return code_decode(cls, data, base)  # type: ignore[no-any-return]

    monkeypatch.setattr(ConstantTable, "parse", classmethod(counted_table))
    monkeypatch.setattr(FxlcCode, "from_bytes", classmethod(counted_code))
    code = fxlc(ins(0x216, 1, op(OUT, 0), op(IN, 0), op(LIT, 0)))
    model = DxbcContainer.from_bytes(expression(code, cli4(2), ctab(("i", 0, 1))))
    assert sorted(calls) == ["CTAB", "FXLC"]
    assert isinstance(model.chunk("CTAB"), ConstantTable) and isinstance(model.chunk("FXLC"), ExpressionCode)
    table = bytearray(ctab(("i", 0, 1)))
    struct.pack_into("<I", table, 28, len(table) - 1)  # the name: the last byte, no NUL after it
    bad_code = struct.pack("<9I", 1, 0x21600001, 1, 2, IN, 0, 0, OUT, 0)  # relative flag 2
    data = expression(bad_code, cli4(), bytes(table))
    model = DxbcContainer.from_bytes(data)
    assert not isinstance(model.chunk("CTAB"), ConstantTable) and not isinstance(model.chunk("FXLC"), ExpressionCode)
    assert model.to_bytes() == data


def test_suffixes() -> None:
    assert [component_suffix(s, n) for s, n in ((0, 4), (1, 4), (3, 2), (2, 3), (3, 1))] == [
        "", ".yzwx", ".wx", ".zwx", ".w"]


def _effect_with_expressions(single_literals: bytes = cli4(2), single_pad: bytes = b"") -> bytes:
    """An fx_4_0 payload whose pass assigns DS_StencilRef = eval(...) and
    DepthStencilState = arr[eval(...)] (two instructions); ``single_pad`` follows the first
    expression's container inside its code block (its size word counts them)."""
    single = expression(fxlc(ins(0x216, 1, op(OUT, 0), op(IN, 0), op(LIT, 0))), single_literals, ctab(("i", 0, 1)))
    double = expression(fxlc(ins(0x219, 1, op(TMP, 0), op(IN, 0), op(LIT, 0)),
                             ins(0x216, 1, op(OUT, 0), op(TMP, 0), op(IN, 4))),
                        cli4(3), ctab(("i", 0, 1), ("j", 1, 1)))
    blob = Blob()
    at: dict[str, int] = {}
    blob.add(bytes(4))
    for name in ("t0", "p0", "arr"):
        at[name] = blob.add(name.encode() + b"\0")
    at["single"] = blob.add(struct.pack("<I", len(single) + len(single_pad)) + single + single_pad)
    at["double"] = blob.add(struct.pack("<I", len(double)) + double)
    at["index"] = blob.add(struct.pack("<2I", at["arr"], at["double"]))
    words = [
        at["t0"], 1, 0, at["p0"], 2, 0,  # technique, pass
        9, 0, ASSIGN_EXPRESSION, at["single"],
        1, 0, ASSIGN_EXPRESSION_INDEX, at["index"],
    ]
    counts = [0, 0, 0, 0, 0, 0, 1, len(blob.data)] + [0] * 10
    return struct.pack("<19I", 0xFEFF1001, *counts) + blob.data + struct.pack(f"<{len(words)}I", *words)


def test_effect_listing_prints_eval() -> None:
    data = container((b"FX10", _effect_with_expressions()))
    model = DxbcContainer.from_bytes(data)
    lines = model.disassemble().splitlines()
    start = lines.index("technique10 t0")
    assert lines[start : start + 7] == [
        "technique10 t0",
        "{",
        "    pass p0",
        "    {",
        "        DS_StencilRef = eval(iadd expr.x, i.x, (2));",
        "        DepthStencilState = arr[eval(imul r0.x, i.x, (3)",
        "                        iadd expr.x, r0.x, j.x)];",
    ]
    assert model.to_bytes() == data


def _resolver(name: str, inner: int | None) -> int | None:
    return {("a", None): 0, ("b", None): 1, ("m", 3): 5}.get((name, inner))


def test_instruction_text_assembles_to_hand_packed_words() -> None:
    from shaderkit.isa.fxlvm.assembler import parse_instruction

    literals = [2]
    dot = parse_instruction("dot r0.yzwx, a, b", literals, _resolver)
    mul = parse_instruction("mul expr.xy, r0.x, (5.000000, 2)", literals, _resolver)
    add = parse_instruction("add expr0.y, m[3].z, c9.w", literals, _resolver)
    code = FxlcCode([dot, mul, add], b"")
    assert code.to_bytes() == fxlc(
        ins(0x500, 4, op(TMP, 1), op(IN, 0), op(IN, 4)),
        ins(0x205, 2, op(OUT, 0), op(TMP, 0), op(LIT, 1), scalar=True),
        ins(0x204, 1, op(OUT, 1), op(IN, 22), op(IN, 39)),
        tail=b"",
    )
    assert literals == [2, 0x40A00000, 2]  # (5.0, 2) is not in the list as a run: appended


@pytest.mark.parametrize("text", [
    "mul r0.xz, a.xz, b.xz",  # components not consecutive
    "add r0.x, zz.x, a.x",  # no such input
    "frob r0.x, a.x",  # no such instruction
    "add r0.xy, a.xy, b.x",  # only the first input may be scalar
    "add r0.x, a.x, (1.5q)",  # unreadable literal
])
def test_bad_instruction_text_raises(text: str) -> None:
    from shaderkit.errors import AssemblyError
    from shaderkit.isa.fxlvm.assembler import parse_instruction

    with pytest.raises(AssemblyError):
        parse_instruction(text, [], _resolver)


def test_asm_base_reads_eval_back_and_writes_edits() -> None:
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dxbc.assemble import assemble_with_base

    data = container((b"FX10", _effect_with_expressions()))
    text = DxbcContainer.from_bytes(data).disassemble()
    assert assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes() == data
    # a changed literal takes the slot the old one leaves: same size, new value and text
    edited = text.replace("eval(iadd expr.x, i.x, (2))", "eval(imul expr.x, i.x, (9))")
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data)).to_bytes()
    assert len(out) == len(data) and out != data
    assert DxbcContainer.from_bytes(out).disassemble() == edited
    assert cli4(9) in out and fxlc(ins(0x219, 1, op(OUT, 0), op(IN, 0), op(LIT, 0))) in out
    # a second input instruction would move the effect's offsets: refused
    grown = text.replace("(iadd expr.x, i.x, (2))", "(iadd r0.x, i.x, (2)\n iadd expr.x, r0.x, i.x)")
    with pytest.raises(AssemblyError, match="keep its size"):
        assemble_with_base(grown, DxbcContainer.from_bytes(data))
    with pytest.raises(AssemblyError, match="expression"):
        assemble_with_base(text.replace("eval(iadd expr.x, i.x, (2))", "1"), DxbcContainer.from_bytes(data))


def test_asm_base_refuses_an_edit_of_an_expression_kept_as_block_bytes() -> None:
    from shaderkit.errors import AssemblyError
    from shaderkit.formats.dxbc.assemble import assemble_with_base

    # the code block is 4 bytes longer than the container in it: the effect keeps the block's
    # bytes (no embedded shader there) and the listing prints the container parsed from them
    data = container((b"FX10", _effect_with_expressions(single_pad=bytes(4))))
    base = DxbcContainer.from_bytes(data)
    effect = base.effect
    assert effect is not None and base.to_bytes() == data and len(effect.shaders) == 1
    text = base.disassemble()
    assert "        DS_StencilRef = eval(iadd expr.x, i.x, (2));" in text.splitlines()
    # the expressions found without printing are the listing's, in its order
    from shaderkit.formats.dxbc.assemble import eval_bodies
    from shaderkit.formats.dxbc.disasm import effect_expressions

    found = effect_expressions(effect)
    assert [lines for _, lines in found] == [["iadd expr.x, i.x, (2)"], ["imul r0.x, i.x, (3)", "iadd expr.x, r0.x, j.x"]]
    assert [lines for _, lines in found] == [body for _, _, body in eval_bodies(text)]
    assert assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes() == data
    # an edit there would be dropped: refused at the eval's line and column
    edited = text.replace("eval(iadd expr.x, i.x, (2))", "eval(imul expr.x, i.x, (9))")
    line = text[: text.index("eval(iadd expr.x")].count("\n") + 1
    with pytest.raises(AssemblyError, match="cannot be edited") as caught:
        assemble_with_base(edited, DxbcContainer.from_bytes(data))
    assert (caught.value.line, caught.value.column) == (line, 25)
    # the other expression (an embedded shader) is still edited
    other = text.replace("imul r0.x, i.x, (3)", "iadd r0.x, i.x, (3)")
    out = assemble_with_base(other, DxbcContainer.from_bytes(data)).to_bytes()
    assert len(out) == len(data) and DxbcContainer.from_bytes(out).disassemble() == other


def test_unreadable_table_stays_raw_and_bad_literal_falls_back() -> None:
    table = bytearray(ctab(("i", 0, 1)))
    struct.pack_into("<I", table, 28, len(table) - 1)  # the name: the last byte, no NUL after it
    code = fxlc(ins(0x216, 1, op(OUT, 0), op(IN, 0), op(LIT, 0)))
    data = expression(code, cli4(2), bytes(table))
    model = DxbcContainer.from_bytes(data)
    assert not isinstance(model.chunk("CTAB"), ConstantTable) and model.to_bytes() == data
    assert expression_lines(model) == ["iadd expr.x, c0.x, (2)"]  # inputs by register without a table
    # a literal past the CLI4 list: ShaderFormatError, and the effect listing keeps its other lines
    with pytest.raises(ShaderFormatError):
        expression_lines(DxbcContainer.from_bytes(expression(code, cli4(), ctab(("i", 0, 1)))))
    lines = DxbcContainer.from_bytes(container((b"FX10", _effect_with_expressions(cli4())))).disassemble().splitlines()
    assert "        DS_StencilRef = /* assignment type 6 */;" in lines
    assert "        DepthStencilState = arr[eval(imul r0.x, i.x, (3)" in lines


def test_every_word_of_an_expression_corrupted() -> None:
    from dxbc_build import assert_word_mutants_rebuild

    code = fxlc(ins(0x219, 1, op(TMP, 0), op(IN, 0), op(LIT, 0)),
                ins(0x216, 2, op(OUT, 0), op(TMP, 0), op(IN, 4), scalar=True))
    data = expression(code, cli4(3, 0x3F800000), ctab(("i", 0, 1), ("j", 1, 1)))
    assert assert_word_mutants_rebuild(data, (0, 1, 2, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF)) > 0
    for at in range(32, len(data) - 3, 4):  # what parses also prints, or raises ShaderFormatError
        for word in (1, 0xFFFF, 0xFFFFFFFF):
            try:
                model = DxbcContainer.from_bytes(data[:at] + struct.pack("<I", word) + data[at + 4 :])
                expression_lines(model)
            except ShaderFormatError:
                pass


def test_component_count_past_four_does_not_print() -> None:
    code = fxlc(ins(0x100, 0xFFFF, op(OUT, 0), op(IN, 0)))
    model = DxbcContainer.from_bytes(expression(code, cli4(), ctab(("i", 0, 1))))
    assert isinstance(model.chunk("FXLC"), ExpressionCode)  # kept typed, rebuilt as read
    with pytest.raises(ShaderFormatError, match="65535 components"):
        expression_lines(model)


def test_comparison_and_integer_opcodes_are_named_as_d3dcompiler_names_them() -> None:
    # d3dcompiler_47's FXLVM disassembler maps opcode -> name in one switch: 0x210 bilt, 0x211 bige,
    # 0x212 bieq, 0x213 bine, 0x214 buge, 0x215 bult, 0x217 idiv, 0x21b umod, 0x21c umul, 0x502 noise
    names = {0x210: "bilt", 0x211: "bige", 0x212: "bieq", 0x213: "bine", 0x214: "buge", 0x215: "bult",
             0x217: "idiv", 0x21B: "umod", 0x21C: "umul"}
    code = FxlcCode.from_bytes(fxlc(*(ins(opcode, 1, op(TMP, k), op(IN, 0), op(IN, 1))
                                      for k, opcode in enumerate(names))))
    assert [i.name for i in code.instructions] == list(names.values())
    noise = FxlcCode.from_bytes(fxlc(ins(0x502, 1, op(TMP, 0), op(IN, 0))))
    assert noise.instructions[0].name == "noise"

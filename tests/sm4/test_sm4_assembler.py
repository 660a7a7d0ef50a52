"""The SM4/5 assembler: corpus round trips (with a base container, and from exact text alone),
edits that touch only what was edited, and errors with line and column."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_sm4_corpus import programs

from conftest import corpus_files
from shaderkit.errors import AssemblyError
from shaderkit.formats.dxbc.assemble import assemble_with_base
from shaderkit.formats.dxbc.checksum import dxbc_checksum
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.disasm import listing
from shaderkit.isa.sm4 import assemble
from shaderkit.isa.sm4.assembler import assemble_listing, keep_base_bits
from shaderkit.isa.sm4.decode import decode_bytes
from shaderkit.isa.sm4.encode import encode
from shaderkit.isa.sm4.model import Index, Instruction
from shaderkit.isa.sm4.opcodes import OPCODES, PROGRAM_TYPES
from shaderkit.isa.sm4.text import format_program


def _corpus() -> list[Path]:
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus dxbc/*.dxbc not found (set SHADERKIT_CORPUS)")
    return files


def _words(payload: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(payload) // 4}I", payload))


def test_base_round_trip_is_byte_identical() -> None:
    """asm(disasm(C), base=C) == C for every corpus container (libraries and effects too)."""
    files = _corpus()
    misses = []
    for path in files:
        data = path.read_bytes()
        text = listing(DxbcContainer.from_bytes(data))
        rebuilt = assemble_with_base(text, DxbcContainer.from_bytes(data)).to_bytes()
        if rebuilt != data:
            misses.append(path.name)
    assert not misses, f"{len(files) - len(misses)}/{len(files)} identical; misses: {misses[:10]}"


def test_exact_text_alone_gives_identical_code() -> None:
    """asm(disasm --exact(C)) has the code tokens of C, for every program of every container."""
    files = _corpus()
    misses = []
    total = 0
    for path in files:
        data = path.read_bytes()
        originals = Counter(tuple(_words(p)) for p in programs(data))
        text = listing(DxbcContainer.from_bytes(data), exact=True)
        rebuilt = Counter(tuple(encode(a.program)) for a in assemble_listing(text))
        total += sum(originals.values())
        if set(rebuilt) != set(originals):
            misses.append(path.name)
    assert total >= 400
    assert not misses, f"misses: {misses[:10]}"


#: programs whose fxc-identical text reads back and prints the same text again (all of them
#: since a typeless "0.000000" reads as the smallest normal float, which prints so)
MIN_SAME_TEXT = 430


def _shape(inst: Instruction) -> tuple[object, ...]:
    """An instruction without its immediate values and unprinted padding."""
    ops = tuple((o.type, o.num_components, o.selection_mode, o.component_bits, len(o.values), o.extended,
                 tuple((i.rep, i.value) for i in o.indices)) for o in inst.operands)
    info = OPCODES.get(inst.opcode)
    keep_raw = info is not None and info.dcl and inst.opcode != 152
    return inst.opcode, inst.controls, tuple(inst.extended), ops, tuple(inst.raw) if keep_raw else len(inst.raw) > 0


def test_default_text_reads_back() -> None:
    """fxc-identical text -> program: every instruction has the original's shape (only
    immediate values and unprinted padding may differ) and prints the same text again."""
    files = _corpus()
    same = total = 0
    shape_misses = []
    for path in files:
        for payload in programs(path.read_bytes()):
            prog = decode_bytes(payload)
            text = format_program(prog)
            again = assemble(text)
            total += 1
            same += format_program(again) == text
            originals = prog.instructions
            if len(again.instructions) != len(originals) or any(
                    _shape(a) != _shape(b) for a, b in zip(again.instructions, originals)
                    if a.opcode != 53 and not b.raw or OPCODES[b.opcode].dcl):
                shape_misses.append(path.name)
    assert not shape_misses, shape_misses[:10]
    assert same >= MIN_SAME_TEXT, f"{same}/{total}"


# -- edits -------------------------------------------------------------------------------------

def _first(pattern: str) -> Path:
    files = corpus_files("dxbc", pattern)
    if not files:
        pytest.skip(f"corpus {pattern} not found")
    return files[0]


def test_edit_changes_only_that_instruction_and_keeps_literal_bits() -> None:
    path = _first("slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_2DQuadShaders_PS_BlurX.dxbc")
    data = path.read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    old_line = "mul o0.xy, r0.xyxx, l(0.333333, 0.333333, 0.000000, 0.000000)"
    assert old_line in text
    edited = text.replace(old_line, "mul o0.xy, r0.yxxx, l(0.333333, 0.333333, 0.000000, 0.000000)")
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data)).to_bytes()
    assert len(out) == len(data)
    changed = [i for i in range(len(data)) if out[i] != data[i]]
    # checksum bytes 4..19 and one swizzle byte of the edited instruction, nothing else
    code = [i for i in changed if i >= 20]
    assert len(code) == 1
    assert out[4:20] == dxbc_checksum(out)
    # the literal kept its original bits (0.333333 typed anew would be 0x3eaaaa9f)
    assert struct.pack("<I", 0x3EAAAAAB) * 2 in out
    assert struct.pack("<I", 0x3EAAAA9F) not in out


def test_edit_that_adds_an_instruction_updates_stat() -> None:
    path = _first("angle__buffertotexture11_gs__g_GS_BufferToTexture.dxbc")
    data = path.read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    edited = text.replace("emit \n", "mov o1.y, v[0][1].y\nemit \n")
    container = assemble_with_base(edited, DxbcContainer.from_bytes(data))
    before = DxbcContainer.from_bytes(data).statistics
    after = container.statistics
    assert before is not None and after is not None
    assert after.instruction_count == before.instruction_count + 1
    assert after.mov_instruction_count == before.mov_instruction_count + 1
    out = container.to_bytes()
    assert out[4:20] == dxbc_checksum(out)
    reread = DxbcContainer.from_bytes(out)
    assert "mov o1.y, v[0][1].y\nemit" in listing(reread)


def test_float_text_forms() -> None:
    prog = assemble("ps_4_0\nmov o0.xyzw, l(0x3eaaaaab, 0.33333334, 1.#INF00, -0.000000)\nret \n")
    assert prog.instructions[0].operands[1].values == [0x3EAAAAAB, 0x3EAAAAAB, 0x7F800000, 0x80000000]


def test_old_crt_special_floats_with_any_number_of_zeros() -> None:
    """The old MSVC CRT pads 1.#INF / 1.#IND / 1.#QNAN / 1.#SNAN with one zero per decimal asked for:
    d3dcompiler_46 (3Dmigoto's listings) prints 1.#INF0000 where fxc's %f gives 1.#INF00."""
    prog = assemble("ps_4_0\nmul o0.xyzw, l(1.#INF0000, -1.#INF0000, -1.#IND0000, 1.#QNAN), l(-1.#QNAN000, 1.#SNAN0, "
                    "-1.#IND00, 1.#INF)\nret \n")
    first, second = prog.instructions[0].operands[1:]
    # +inf, -inf, the indefinite NaN (sign set, quiet bit), +quiet NaN; -quiet NaN, +signalling NaN
    assert first.values == [0x7F800000, 0xFF800000, 0xFFC00000, 0x7FC00000]
    assert second.values == [0xFFC00000, 0x7F800001, 0xFFC00000, 0x7F800000]


def test_two_or_three_read_components_are_a_mask_as_3dmigoto_assembles_them() -> None:
    """A hand-edited `mov r0.xyz, v1.xyz` (3Dmigoto's fixes): the read operand in mask mode with
    the letters' bits, which the disassembler prints the same way."""
    text = "ps_5_0\ndcl_input_ps linear v1.xyz\ndcl_temps 1\nmov r0.xyz, v1.xyz\nadd r0.xz, r0.xz, v1.xy\nret \n"
    prog = assemble(text)
    words = encode(prog)
    # v1.xyz read: 2 (4 components) | 0<<2 (mask mode) | 0x7<<4 (x,y,z) | 1<<12 (input) | 1<<20 (1D)
    assert words[words.index(0x05000036) + 3] == 0x00101072
    # r0.xz read: 2 | 0<<2 | 0x5<<4 | 0<<12 (temp) | 1<<20; v1.xy: 2 | 0x3<<4 | 1<<12 | 1<<20
    add = words.index(0x07000000)
    assert (words[add + 3], words[add + 5]) == (0x00100052, 0x00101032)
    assert format_program(prog).splitlines()[3:5] == ["mov r0.xyz, v1.xyz", "add r0.xz, r0.xz, v1.xy"]


def test_zero_written_as_zero_is_zero_in_a_typeless_literal() -> None:
    """Only fxc's own "0.000000" stands for a float too small for six decimals (the smallest normal
    float); a hand-written 0.0 is 0."""
    prog = assemble("ps_4_0\ndcl_temps 1\nmov r0.xyzw, l(0.0, 0.000000, 0., .0)\nmov r0.x, l(0.00)\nret \n")
    assert prog.instructions[1].operands[1].values == [0, 0x00800000, 0, 0]
    assert prog.instructions[2].operands[1].values == [0]


# -- errors ------------------------------------------------------------------------------------

_PROGRAM = "ps_5_0\ndcl_temps 2\n{line}\nret \n"


@pytest.mark.parametrize(("line", "column", "message"), [
    ("frobnicate r0.x, r1.x", 1, "unknown opcode"),
    ("add r0.x, r1.x", 15, "takes 3 operands"),
    ("add r0.x, r1.x, r1.y, r1.z", 23, "takes 3 operands"),
    ("mov l(1.000000), r1.x", 5, "cannot be written"),
    ("mov v0.x, r1.x", 5, "cannot be written"),
    ("mov r0.yx, r1.xyzw", 8, "xyzw order"),
    ("mov r0.xy, r1.yx", 15, "four-letter swizzle, one component or a mask"),
    ("mov r0.xy, r1.xx", 15, "four-letter swizzle, one component or a mask"),
    ("mov r0.xy, r1.xyzwx", 15, "bad component"),
    ("mov r0.xy, r1.xyzw;", 19, "unexpected ';'"),
    ("mov r7.x, r1.x", 5, "out of range"),
    ("mov r0.x, q1.x", 11, "unknown register"),
    ("add r0.x, r1.x, l(1)", 19, "integer 1 where the opcode reads floats"),
    ("iadd r0.x, r1.x, l(1.500000)", 20, "float 1.500000 where the opcode reads integers"),
    ("mov r0.x, l(1.0, 2.0)", 11, "holds 1 or 4 values"),
    ("sample_indexable(texture9d)(float,float,float,float) r0.xyzw, r1.xyxx, t0.xyzw, s0", 18,
     "unknown resource dimension"),
    ("dcl_resource_texture2d (float,float,banana,float) t0", 25, "unknown return type"),
    ("dcl_input_siv v0.x, positionn", 15, "do not match its layout"),
    ("dcl_frobnicate v0", 1, "unknown declaration"),
    ("mov r0.x, r1[2].x", 11, "r registers take 1 index, found 2"),
    ("sample_indexable(texture2d)(float,float,float,float) r0.xyzw, r1.xyxx, s0, t0.xyzw", 72,
     "operand 3 of sample must be a t register"),
    ("add r0.x, t0.x, r1.x", 11, "operand 2 of add cannot be a t register"),
    ("store_raw r0.x, l(0), r1.x", 11, "operand 1 of store_raw must be a g or u register"),
    ("fcall fp0]3]", 7, "fcall needs"),
])
def test_errors_have_line_and_column(line: str, column: int, message: str) -> None:
    with pytest.raises(AssemblyError) as info:
        assemble(_PROGRAM.format(line=line))
    err = info.value
    assert message in err.message
    assert (err.line, err.column) == (3, column), err


@pytest.mark.parametrize(("line", "column"), [
    ("dcl_constantbuffer CB0[0:0][2], immediateIndexed, space=4294967296", 57),  # text fuzzing: OverflowError
    ("dcl_constantbuffer CB0[0:0][4294967296], immediateIndexed, space=0", 29),
])
def test_sm51_fields_past_32_bits(line: str, column: int) -> None:
    with pytest.raises(AssemblyError) as info:
        assemble(f"ps_5_1\n{line}\nret \n")
    err = info.value
    assert "4294967296 does not fit 32 bits" in err.message
    assert (err.line, err.column) == (2, column), err


def test_error_columns_follow_indentation_and_no_version_is_an_error() -> None:
    with pytest.raises(AssemblyError) as info:
        assemble("ps_4_0\n  if_nz r0.x\n    add r0.x, r0.x\n  endif \n")
    assert (info.value.line, info.value.column) == (3, 19)
    with pytest.raises(AssemblyError) as info:
        assemble("mov r0.x, r1.x\n")
    assert info.value.line == 1


# -- command line -------------------------------------------------------------------------------

def test_cli_asm_with_base_and_exact_disasm(tmp_path: Path) -> None:
    from shaderkit.cli import cli

    path = _first("dxdecompiler__Internal_Misc_LibraryTest2_5_0.dxbc")
    runner = CliRunner()
    text_file = tmp_path / "lib.asm"
    result = runner.invoke(cli, ["disasm", str(path), "-o", str(text_file)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "lib.dxbc"
    result = runner.invoke(cli, ["asm", str(text_file), "--base", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == path.read_bytes()

    single = _first("slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_2DQuadShaders_PS_BlurX.dxbc")
    exact_file = tmp_path / "blur.asm"
    result = runner.invoke(cli, ["disasm", "--exact", str(single), "-o", str(exact_file)])
    assert result.exit_code == 0, result.output
    assert "0.33333334" in exact_file.read_text()
    assert "warning" not in result.output
    out = tmp_path / "blur.dxbc"
    result = runner.invoke(cli, ["asm", str(exact_file), "-o", str(out)])
    assert result.exit_code == 0, result.output
    original = next(programs(single.read_bytes()))
    assert next(programs(out.read_bytes())) == original


def test_cli_asm_error_is_one_line_exit_2(tmp_path: Path) -> None:
    from shaderkit.cli import main

    bad = tmp_path / "bad.asm"
    bad.write_text("ps_5_0\nmov r0.x, r1.yx\n")
    with pytest.raises(SystemExit) as info:
        main(["asm", str(bad), "-o", str(tmp_path / "out.dxbc")])
    assert info.value.code == 2


# -- a container from the text alone --------------------------------------------------------------

_SIGNATURES = ("ISGN", "OSGN", "PCSG", "OSG5", "ISG1", "OSG1", "PSG1")


def test_container_from_fxc_listing_alone() -> None:
    """fxc's own listings (every 3rd, to stay fast): signature chunks byte-identical to the
    original's, the creator string kept, code equal but for immediate values (fxc printed six
    decimals) and padding words fxc does not print."""
    from shaderkit.formats.dxbc.assemble import assemble_container

    files = _corpus()[::3]
    checked = 0
    for path in files:
        original = DxbcContainer.from_bytes(path.read_bytes())
        if original.functions or original.effect is not None or original.shader is None:
            continue
        text = path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm").read_text("latin-1")
        built = DxbcContainer.from_bytes(assemble_container(text).to_bytes())
        for chunk in original.chunks:
            if chunk.fourcc in _SIGNATURES:
                mine = built.chunk(chunk.fourcc)
                assert mine is not None and mine.build() == chunk.build(), (path.name, chunk.fourcc)
                checked += 1
        creator = original.rdef.creator if original.rdef is not None else None
        assert (built.rdef.creator if built.rdef is not None else None) == creator, path.name
        assert built.shader is not None
        if creator is not None and " 9." in creator:
            continue  # fxc 9.x text omits dcl_input_ps_sgv's interpolation mode
        ours = decode_bytes(built.shader.build()).instructions
        theirs = decode_bytes(original.shader.build()).instructions
        assert len(ours) == len(theirs), path.name
        assert all(_shape(a) == _shape(b) for a, b in zip(ours, theirs) if a.opcode != 53 and not b.raw
                   or OPCODES[b.opcode].dcl), path.name
    assert checked >= 200


def test_vkd3d_gives_the_recorded_spirv_for_containers_from_exact_text() -> None:
    """vkd3d-compiler 1.2 (an independent reader) turns a container built from exact text alone
    (signatures from the comment header, code from the program text) into the SPIR-V recorded
    for the original (a sample of 24 containers)."""
    import csv
    import hashlib
    import shutil
    import subprocess

    from shaderkit.formats.dxbc.assemble import assemble_container

    vkd3d = shutil.which("vkd3d-compiler")
    if vkd3d is None:
        pytest.skip("vkd3d-compiler not installed")
    files = _corpus()
    table = files[0].parent / "VKD3D_1.2_SPIRV.tsv"
    recorded = {row["file"]: row for row in csv.DictReader(table.open(), delimiter="\t")}
    checked = 0
    for path in files[::16]:
        row = recorded.get(path.name)
        original = DxbcContainer.from_bytes(path.read_bytes())
        if row is None or row["vkd3d_compiler_1.2_result"] != "ok" or original.functions or original.shader is None:
            continue
        data = assemble_container(listing(original, exact=True)).to_bytes()
        proc = subprocess.run([vkd3d, "-x", "dxbc-tpf", "-b", "spirv-binary", "-o", "-", "-"], input=data,
                              capture_output=True, timeout=60, check=False)
        assert proc.returncode == 0, (path.name, proc.stderr[-200:])
        assert hashlib.sha256(proc.stdout).hexdigest() == row["spirv_sha256"], path.name
        checked += 1
    assert checked >= 15


def test_customdata_blocks_fxc_prints_as_comments() -> None:
    """A comment block (class 0) prints as a comment: exact text carries its words, fxc's text
    does not (then only a base supplies them; alone it is an error, not a silent loss)."""
    from shaderkit.isa.sm4.model import Program
    from shaderkit.isa.sm4.text import Formatter

    block = Instruction(53, 0, [], [], [0x11111111, 0x22222222])
    prog = Program(0, 5, 0, [block, Instruction(62)])
    exact = "\n".join(Formatter(prog, exact=True).lines())
    assert encode(assemble(exact)) == encode(prog)
    plain = "\n".join(Formatter(prog).lines())
    assert "// customdata class 0, 2 words" in plain
    with pytest.raises(AssemblyError) as info:
        assemble(plain)
    assert info.value.line == 2
    base = Program(0, 5, 0, [Instruction(53, 0, [], [], [0x11111111, 0x22222222]), Instruction(62)])
    texts = [" ".join(t.split()) for t in Formatter(base).lines()[1:]]
    kept = keep_base_bits(assemble_listing(plain)[0], base, texts)
    assert kept[0].raw == [0x11111111, 0x22222222]


def test_table_covers_every_opcode_once() -> None:
    """Every declaration has exactly one template; every other opcode one or more spellings
    that read back to it; no spelling is shared by two opcodes."""
    from shaderkit.isa.sm4.assembler import SPELLINGS
    from shaderkit.isa.sm4.dcl import LAYOUTS, patterns
    from shaderkit.isa.sm4.opcodes import DCL_TEMPLATES

    declarations = {v for v, info in OPCODES.items() if info.dcl}
    assert set(DCL_TEMPLATES) == declarations == set(LAYOUTS)
    assert {op for op, _ in patterns()} == declarations
    spelled = {opcode for opcode, _ in SPELLINGS.values()}
    others = {v for v, info in OPCODES.items()
              if not info.dcl and v != 53 and not info.name.startswith("reserved")}
    assert spelled == others
    for spelling, (opcode, _controls) in SPELLINGS.items():
        assert spelling.startswith(OPCODES[opcode].name)
    prefixes = [text.split(" ")[0] for text in DCL_TEMPLATES.values()]
    assert not set(prefixes) & set(SPELLINGS)


def test_relative_index_forms() -> None:
    """"+ 0" is a relative-only index (as fxc writes them), "+ n" immediate plus relative; exact
    text spells an immediate 0 plus relative "+ 0x0" so that it survives."""
    from shaderkit.isa.sm4.model import Program
    from shaderkit.isa.sm4.text import Formatter

    prog = assemble("vs_4_0\ndcl_temps 1\nmov r0.xyzw, cb0[r0.x + 0].xyzw\nmov r0.xyzw, cb0[r0.y + 3].xyzw\nret \n")
    indices = [inst.operands[1].indices[1] for inst in prog.instructions[1:3]]
    assert [(i.rep, i.value) for i in indices] == [(2, 0), (3, 3)]
    rel = prog.instructions[1].operands[1].indices[1].rel
    edited = Program(1, 4, 0, [prog.instructions[0], prog.instructions[1], Instruction(62)])
    edited.instructions[1].operands[1].indices[1] = Index(3, 0, rel)
    text = "\n".join(Formatter(edited, exact=True).lines())
    assert "[r0.x + 0x0]" in text
    assert encode(assemble(text)) == encode(edited)


def test_exact_text_problems_are_reported() -> None:
    from shaderkit.formats.dxbc.assemble import exact_text_problems

    path = _first("slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_2DQuadShaders_PS_BlurX.dxbc")
    container = DxbcContainer.from_bytes(path.read_bytes())
    text = listing(container, exact=True)
    assert exact_text_problems(container, text) == []
    assert exact_text_problems(container, text.replace("0.33333334", "0.3333333")) != []


def test_precise_literal_in_an_edited_instruction_is_not_replaced_by_the_base() -> None:
    path = _first("slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_2DQuadShaders_PS_BlurX.dxbc")
    data = path.read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    old_line = "mul o0.xy, r0.xyxx, l(0.333333, 0.333333, 0.000000, 0.000000)"
    edited = text.replace(old_line, "mul o0.xy, r0.yxxx, l(0.3333333, 0.333333, 0.000000, 0.000000)")
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data)).to_bytes()
    typed = struct.unpack("<I", struct.pack("<f", 0.3333333))[0]
    assert struct.pack("<2I", typed, 0x3EAAAAAB) in out


def test_cli_asm_default_output_name_and_forced_syntax(tmp_path: Path) -> None:
    from shaderkit.cli import cli

    source = tmp_path / "tiny.asm"
    source.write_text("ps_4_0\ndcl_output o0.xyzw\nmov o0.xyzw, l(1.000000, 0.500000, 0.250000, 1.000000)\nret \n")
    runner = CliRunner()
    result = runner.invoke(cli, ["asm", str(source)])
    assert result.exit_code == 0, result.output
    built = DxbcContainer.from_bytes((tmp_path / "tiny.dxbc").read_bytes())
    assert built.shader is not None and built.shader.fourcc == "SHDR"
    assert source.read_text().startswith("ps_4_0")  # the source is left alone
    result = runner.invoke(cli, ["asm", "--syntax", "pica", str(source), "-o", str(tmp_path / "x.shbin")])
    assert result.exit_code != 0


def test_signature_edit_in_the_comment_header_is_applied_with_base() -> None:
    path = _first("angle__buffertotexture11_vs__g_VS_BufferToTexture.dxbc")
    data = path.read_bytes()
    text = listing(DxbcContainer.from_bytes(data))
    row = "// LAYER                    0    y          1     NONE    uint    y  "
    assert row in text
    edited = text.replace(row, row.replace("LAYER   ", "MYLAYER "))
    out = assemble_with_base(edited, DxbcContainer.from_bytes(data)).to_bytes()
    reread = DxbcContainer.from_bytes(out)
    assert reread.output_signature is not None
    assert [e.semantic_name for e in reread.output_signature.elements][-1] == "MYLAYER"
    assert out[4:20] == dxbc_checksum(out)


def _synthetic(opcode: int) -> Instruction:
    """An instruction of ``opcode`` with plausible operands (a written r1 mask, read r2 swizzles,
    the register types the table asks for at resource positions)."""
    from shaderkit.isa.sm4.model import Operand
    from shaderkit.isa.sm4.opcodes import RESOURCE_OPERANDS

    info = OPCODES[opcode]
    places = RESOURCE_OPERANDS.get(opcode, {})
    operands = []
    for n in range(max(info.num_operands, 0)):
        allowed = places.get(n)
        if allowed is not None:
            kind = min(allowed)
            operands.append(Operand(kind, 0, 0, 0, [Index(0, 3)]) if kind != 14 else Operand(14))
        elif n < info.dests:
            operands.append(Operand(0, 2, 0, 0b0101, [Index(0, 1)]))
        elif info.name in ("call", "callc") and n == info.num_operands - 1 or info.name == "label":
            operands.append(Operand(10, 0, 0, 0, [Index(0, 2)]))
        elif info.name == "case":
            operands.append(Operand(4, 1, 0, 0, [], [], [7]))
        elif info.name.endswith("_stream"):
            operands.append(Operand(16, 0, 0, 0, [Index(0, 1)]))
        else:
            operands.append(Operand(0, 2, 1, 0b00011011, [Index(0, 2)]))
    return Instruction(opcode, 0, [], operands)


def test_every_instruction_opcode_prints_and_reads_back() -> None:
    from shaderkit.isa.sm4.model import Program
    from shaderkit.isa.sm4.text import Formatter

    checked = 0
    for opcode, info in OPCODES.items():
        if info.dcl or opcode in (53, 120) or info.name.startswith("reserved"):
            continue
        inst = _synthetic(opcode)
        prog = Program(0, 5, 0, [Instruction(104, 0, [], [], [4]), inst, Instruction(62)])
        text = "\n".join(Formatter(prog, exact=True).lines())
        assert encode(assemble(text)) == encode(prog), text
        checked += 1
    assert checked > 180


_DCL_OPERAND_TYPES = {88: 7, 161: 7, 162: 7, 90: 6, 89: 8, 156: 30, 157: 30, 158: 30, 159: 31, 160: 31, 143: 16,
                      101: 2, 102: 2, 103: 2, 91: 2}


def _synthetic_declaration(opcode: int, sm51: bool) -> Instruction:
    """A declaration whose every template field holds a non-default value."""
    from shaderkit.isa.sm4.dcl import LAYOUTS
    from shaderkit.isa.sm4.model import Operand

    controls = 0
    raw: dict[int, int] = {}
    operands = []
    for piece in LAYOUTS[opcode]:
        if piece.kind == "c":
            names = piece.names or {}
            controls |= (2 if 2 in names or not names else 1) << piece.at
        elif piece.kind in ("r", "hi"):
            value = 1 if piece.names else 5
            raw[piece.at] = raw.get(piece.at, 0) | (value << 16 if piece.kind == "hi" else value)
        elif piece.kind == "rt":
            raw[piece.at] = 0x5432
        elif piece.kind == "f":
            raw[piece.at] = 0x3EAAAAAB
        elif piece.kind == "samples":
            controls = (controls & ~0x1F) | 4 | 8 << 5  # texture2dms(8)
        elif piece.kind == "uav":
            controls |= 1 << 5 | 1 << 12
        elif piece.kind == "interp":
            controls |= 3
        elif piece.kind == "flags":
            controls |= 0b101
        elif piece.kind == "bodies":
            raw.update({1: 2, 2: 7, 3: 9})
        elif piece.kind == "tables":
            raw[2] = raw.get(2, 0) | 2
            raw.update({3: 4, 4: 6})
        elif piece.kind == "cbsize" and sm51:
            raw[0] = 12
        elif piece.kind == "op":
            kind = _DCL_OPERAND_TYPES.get(opcode, 1)
            if sm51 and kind in (6, 7, 8, 30):
                indices = [Index(0, 2), Index(0, 1), Index(0, 0xFFFFFFFF if kind != 8 else 1)]
                operands.append(Operand(kind, 2, 1, 0xE4, indices))
            elif kind == 8:
                operands.append(Operand(8, 2, 1, 0xE4, [Index(0, 0), Index(0, 4)]))
            elif kind in (1, 2):
                operands.append(Operand(kind, 2, 0, 0b0011, [Index(0, 1)]))
            else:
                operands.append(Operand(kind, 0, 0, 0, [Index(0, 3)]))
    words = [raw.get(n, 0) for n in range(max(raw) + 1)] if raw else []
    if sm51 and any(p.kind == "space" for p in LAYOUTS[opcode]):
        words.append(3)
    return Instruction(opcode, controls, [], operands, words)


@pytest.mark.parametrize("sm51", [False, True])
def test_every_declaration_prints_and_reads_back(sm51: bool) -> None:
    from shaderkit.isa.sm4.model import Program
    from shaderkit.isa.sm4.opcodes import DCL_TEMPLATES
    from shaderkit.isa.sm4.text import Formatter

    for opcode in DCL_TEMPLATES:
        inst = _synthetic_declaration(opcode, sm51)
        prog = Program(0, 5, 1 if sm51 else 0, [inst, Instruction(62)])
        text = "\n".join(Formatter(prog, exact=True).lines())
        assert encode(assemble(text)) == encode(prog), text


def test_typeless_zero_point_text_stays_a_float() -> None:
    """fxc prints a typeless word 0 as "0"; "0.000000" is a float too small for six decimals:
    it reads as the smallest normal float (0x00800000), which prints "0.000000" again."""
    prog = assemble("ps_4_0\nmov r0.xyzw, l(0,0.000000,-0.000000,1.000000)\nret \n")
    assert prog.instructions[0].operands[1].values == [0, 0x00800000, 0x80000000, 0x3F800000]
    assert format_program(prog).splitlines()[1] == "mov r0.xyzw, l(0,0.000000,-0.000000,1.000000)"


def test_control_point_count_past_32_bits_is_an_error_at_its_line() -> None:
    """The STAT control-point count read from the header's tessellation table (text fuzzing found
    a struct.error): an AssemblyError naming the row's line."""
    from shaderkit.formats.dxbc.assemble import assemble_container

    files = corpus_files("dxbc", "dxdecompiler__3Dmigoto_hull.fxc.asm")
    if not files:
        pytest.skip("corpus hull listing not found")
    lines = files[0].read_text().splitlines()
    at = lines.index("// Quadrilateral                          16")
    lines[at] = "// Quadrilateral                          4294967296"
    with pytest.raises(AssemblyError) as info:
        assemble_container("\n".join(lines) + "\n")
    assert (info.value.line, info.value.column) == (at + 1, 1)
    assert "4294967296 does not fit 32 bits" in info.value.message


def test_precision_note_of_an_absolute_value_goes_inside_the_bars() -> None:
    # d3dcompiler_47's disassembler on a Resident Evil 2 compute shader (3Dmigoto's test files):
    line = ("mad r2.xyzw {min16f}, |r2.xyzw {min16f}|, l(-4.000000, -4.000000, -4.000000, -4.000000) "
            "{def32 as min16f}, l(1.000000, 1.000000, 1.000000, 1.000000) {def32 as min16f}")
    prog = assemble("cs_5_0\n" + line + "\nret\n")
    assert format_program(prog).splitlines()[1].strip() == line
    outside = assemble("cs_5_0\n" + line.replace("|r2.xyzw {min16f}|", "|r2.xyzw| {min16f}") + "\nret\n")
    assert encode(outside) == encode(prog)  # the older spelling still reads
    assert prog.instructions[0].operands[1].modifier == 2 and prog.instructions[0].operands[1].min_precision == 1


def test_stat_counters_derived_from_code_match_fxc() -> None:
    """The counters an edit moves (``update_statistics``) and text alone writes are those fxc
    wrote in every corpus STAT: loads (not from g#), stores to a UAV, atomics, barriers, gathers
    (``reserved2``), lod (``reserved3``), instructions on an indexable temp (array, instead of
    their own counter), flow control (a condition read from a constant buffer is static), the
    immediate constant buffer's elements (defs), the geometry-shader and patch declarations, the
    largest hull phase's temps, and the input and output declarations (but of hull shaders).
    fxc 9.x counts no instruction of a hull shader's fork and join phases. fxc's float, mov, int,
    uint and conversion counts depend on more than the code shows and are only approximated."""
    from shaderkit.formats.dxbc.assemble import _counts
    from shaderkit.formats.dxbc.listing import before_fxc_9_30, is_legacy_creator
    from shaderkit.isa.sm4.decode import decode

    exact = ["texture_normal_instructions", "texture_load_instructions", "texture_comp_instructions",
             "texture_bias_instructions", "texture_gradient_instructions", "emit_instruction_count",
             "cut_instruction_count", "static_flow_control_count", "dynamic_flow_control_count",
             "temp_register_count", "temp_array_count", "array_instruction_count", "def_count", "reserved2",
             "reserved3", "input_primitive", "gs_output_topology", "gs_max_output_vertex_count"]
    sm5 = ["gs_instance_count", "barrier_instructions", "interlocked_instructions"]
    checked = hull = 0
    for path in _corpus():
        container = DxbcContainer.from_bytes(path.read_bytes())
        stat, shader = container.statistics, container.shader
        if stat is None or shader is None:
            continue
        creator = container.creator
        prog = decode(shader.tokens)
        counts = _counts(prog, is_legacy_creator(creator))
        hull_shader = prog.program_type == PROGRAM_TYPES.index("hs")
        fields = exact + (["dcl_count"] if not hull_shader else [])
        if stat.sm5_fields:  # (fxc 9.29 counted no texture store: 1 of 1)
            fields += sm5 + ([] if before_fxc_9_30(creator) else ["texture_store_instructions"])
        assert {f: counts[f] for f in fields} == {f: getattr(stat, f) for f in fields}, path.name
        checked += 1
        hull += hull_shader
    assert checked >= 250 and hull >= 10


def test_run_together_default_words_are_an_error_at_their_file_line() -> None:
    """Text fuzzing: two default-value words without a space between them raised ValueError; and
    a library function's header errors counted lines from the function's header, not the file."""
    from shaderkit.formats.dxbc.assemble import assemble_container

    files = corpus_files("dxbc", "dxdecompiler__Internal_Misc_LibraryTest3_5_0.fxc.asm")
    if not files:
        pytest.skip("corpus library listing not found")
    lines = files[0].read_text().splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("//      = 0x") and n > 0
              and "TestGlobal2" in lines[n - 1])
    words = lines[at].split()
    lines[at] = " ".join(words[:-2]) + " " + words[-2] + words[-1]  # "0x00000006 0x000000060x00000006"
    with pytest.raises(AssemblyError) as info:
        assemble_container("\n".join(lines) + "\n")
    assert (info.value.line, info.value.column) == (at + 1, 1)
    assert "unreadable buffer definition line" in info.value.message


@pytest.mark.parametrize("line", ["// customdata class 2: 0x000000060x00000006",
                                  "// unknown opcode 300: 0x0100012c0x00000001",
                                  "// customdata class 2: 0x6"])
def test_raw_word_lines_that_do_not_read_are_errors(line: str) -> None:
    # (run together, they raised ValueError; a line that did not read at all was dropped as a comment)
    with pytest.raises(AssemblyError) as info:
        assemble(f"ps_5_0\n{line}\nret\n")
    assert (info.value.line, info.value.column) == (2, 1)


def test_customdata_without_words_reads_back() -> None:
    from shaderkit.isa.sm4.opcodes import CUSTOMDATA_CLASSES

    prog = assemble("ps_5_0\n// customdata class 2:\n// customdata class 2: 0x00000006 0x00000007 \nret\n")
    assert CUSTOMDATA_CLASSES[prog.instructions[0].controls] == "opaque"
    assert [inst.raw for inst in prog.instructions[:2]] == [[], [6, 7]]


def test_an_edit_counts_as_the_compiler_that_wrote_the_stat() -> None:
    """fxc 9.30 counts no instruction of a hull shader's fork phases: adding one there moves no
    counter, even when the listing is printed in 10.1's spelling (``disasm --fxc``)."""
    from shaderkit.formats.dxbc.listing import FXC_STYLE

    files = corpus_files("dxbc", "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS.dxbc")
    if not files:
        pytest.skip("corpus hull shader not found")
    data = files[0].read_bytes()
    token = FXC_STYLE.set("Microsoft (R) HLSL Shader Compiler 10.1")
    try:
        lines = listing(DxbcContainer.from_bytes(data)).splitlines()
        last_fork = max(n for n, line in enumerate(lines) if line.startswith("hs_fork_phase"))
        at = next(n for n in range(last_fork, len(lines)) if lines[n].startswith("dcl_temps"))
        lines.insert(at + 1, "mul r0.x, r0.x, r0.x")
        base = DxbcContainer.from_bytes(data)
        before = base.statistics.float_instruction_count  # type: ignore[union-attr]
        edited = assemble_with_base("\n".join(lines) + "\n", base)
    finally:
        FXC_STYLE.reset(token)
    assert edited.statistics.float_instruction_count == before  # type: ignore[union-attr]
    plain = DxbcContainer.from_bytes(data)  # a control-point phase instruction does count
    lines = listing(plain).splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("dcl_temps"))
    lines.insert(at + 1, "mul r0.x, r0.x, r0.x")
    assert assemble_with_base("\n".join(lines) + "\n", plain).statistics.float_instruction_count == before + 1  # type: ignore[union-attr]


def test_stat_counters_are_32_bit_words() -> None:
    """Text fuzzing: indexable temps summing past 2**32 elements made STAT's build raise
    struct.error (a traceback from ``asm``); the counters wrap as fxc's 32-bit ones do, from text
    alone and after an edit."""
    from shaderkit.formats.dxbc.assemble import assemble_container, update_statistics
    from shaderkit.formats.dxbc.stat import Statistics

    body = "dcl_indexableTemp x0[4294967295], 4\ndcl_indexableTemp x1[4], 4\nret\n// Approximately 1 instruction slots used\n"
    container = DxbcContainer.from_bytes(assemble_container("vs_5_0\n" + body).to_bytes())
    assert container.statistics is not None and container.statistics.temp_array_count == 3  # 4294967295 + 4 - 2**32
    stat = Statistics(temp_array_count=5)
    update_statistics(stat, assemble("vs_5_0\ndcl_indexableTemp x1[4], 4\nret\n"), assemble("vs_5_0\n" + body))
    assert stat.temp_array_count == 4  # 5 + 4294967295, wrapped

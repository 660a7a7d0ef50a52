"""The verbs on a bare D3D9 shader: info, verify, rebuild, disasm, asm (with and without --base)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_d3d9_format import PS30

import shaderkit
from shaderkit.cli import cli
from shaderkit.samples import SAMPLES


def test_verbs(tmp_path: Path) -> None:
    src = tmp_path / "ps.cso"
    src.write_bytes(PS30)
    runner = CliRunner()
    result = runner.invoke(cli, ["info", "--json", str(src)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["format"] == "d3d9" and record["shader_model"] == "ps_3_0"
    assert [c["tag"] for c in record["comments"]] == ["CTAB"]
    assert runner.invoke(cli, ["verify", str(src)]).exit_code == 0
    out = tmp_path / "re.cso"
    assert runner.invoke(cli, ["rebuild", str(src), "-o", str(out)]).exit_code == 0
    assert out.read_bytes() == PS30
    listing = tmp_path / "ps.asm"
    result = runner.invoke(cli, ["disasm", str(src), "-o", str(listing)])
    assert result.exit_code == 0, result.output
    assert "//   tint         c0       1" in listing.read_text()
    based = tmp_path / "based.cso"
    result = runner.invoke(cli, ["asm", "--base", str(src), str(listing), "-o", str(based)])
    assert result.exit_code == 0, result.output
    assert based.read_bytes() == PS30
    plain = tmp_path / "plain.cso"
    result = runner.invoke(cli, ["asm", str(listing), "-o", str(plain)])
    assert result.exit_code == 0, result.output
    # no CTAB, no trailing bytes: version, def c1, mov oC0, c0, end
    assert plain.read_bytes() == PS30[:4] + PS30[4 + 104 : -2]
    wrong_base = tmp_path / "wrong.shbin"  # a valid file of another format: it loads, then is refused as a base
    wrong_base.write_bytes(SAMPLES["sample.shbin"]())
    assert runner.invoke(cli, ["info", str(wrong_base)]).exit_code == 0
    result = runner.invoke(cli, ["asm", "--base", str(wrong_base), str(listing), "-o", str(plain)])
    assert result.exit_code == 2
    assert f"--base {wrong_base}: not a bare D3D9 shader" in result.output


def test_disasm_offsets_and_raw_words(tmp_path: Path) -> None:
    src = tmp_path / "ps.cso"
    src.write_bytes(PS30)
    result = CliRunner().invoke(cli, ["disasm", "--offsets", "--raw", str(src)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # the version token at 0, def after the 104-byte CTAB comment (its 6 tokens on two rows), mov after it
    assert "/*0000*/ ffff0300" in lines[15] and lines[15].endswith("    ps_3_0")
    assert lines[16].startswith("/*006c*/ 05000051 a00f0001 3f800000 00000000") and lines[16].endswith("def c1, 1, 0, 0, 0")
    assert lines[17].strip() == "00000000 00000000"
    assert lines[18].startswith("/*0084*/ 02000001 800f0800 a0e40000") and lines[18].endswith("mov oC0, c0")


@pytest.mark.parametrize("verb", [("info",), ("info", "--json"), ("disasm",)])
def test_a_bare_shader_loads_no_sm4_code(tmp_path: Path, verb: tuple[str, ...]) -> None:
    # the CTAB model is a D3DX convention (formats/d3dx), not the DXBC FXLVM chunk module
    src = tmp_path / "ps.cso"
    src.write_bytes(PS30)
    probe = ("import json, sys\nfrom shaderkit.cli import main\ntry:\n    main(sys.argv[1:])\n"
             "except SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)))\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(shaderkit.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    result = subprocess.run([sys.executable, "-c", probe, *verb, str(src)], capture_output=True, text=True, timeout=120,
                            env=env)
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stdout.strip().splitlines()[-1])
    assert "shaderkit.formats.d3d9.shader" in modules
    assert not [m for m in modules if m.startswith(("shaderkit.isa.sm4", "shaderkit.formats.dxbc.fxlvm"))]


def test_asm_finds_version_lines_with_a_comment(tmp_path: Path) -> None:
    """Helix mod's edited listings put a note after the version line ('vs_3_0 // Converted from
    vs_2_0 ...'); 3Dmigoto's after SM4/5 ones: the syntax is still found (not taken for PICA200)."""
    helix = tmp_path / "vs.txt"
    helix.write_text("// CRC32: 0D\n    vs_3_0 // Converted from vs_2_0\n    ; 1 ALU\n    mov r0, c0\n")
    out = tmp_path / "vs.cso"
    result = CliRunner().invoke(cli, ["asm", str(helix), "-o", str(out)])
    assert result.exit_code == 0, result.output
    # vs_3_0 version token, mov r0 (temp, full mask), c0 (const, identity swizzle), end
    assert out.read_bytes() == struct.pack("<5I", 0xFFFE0300, 0x02000001, 0x800F0000, 0xA0E40000, 0x0000FFFF)
    migoto = tmp_path / "ps.txt"
    migoto.write_text("ps_5_0 // hand edited\ndcl_temps 1\nmov r0.x, l(1.0)\nret \n")
    out = tmp_path / "ps.dxbc"
    result = CliRunner().invoke(cli, ["asm", str(migoto), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:4] == b"DXBC"

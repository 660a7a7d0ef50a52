"""The verbs on a bare D3D9 shader: info, verify, rebuild, disasm, asm (with and without --base)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from test_d3d9_format import PS30

from shaderkit.cli import cli


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
    wrong_base = tmp_path / "wrong.bin"
    wrong_base.write_bytes(b"DXBC" + bytes(60))
    result = runner.invoke(cli, ["asm", "--base", str(wrong_base), str(listing), "-o", str(plain)])
    assert result.exit_code != 0


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

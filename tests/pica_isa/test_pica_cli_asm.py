"""`shaderkit asm` and `shaderkit disasm` on PICA200 files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import corpus_root
from shaderkit.cli import cli


def test_asm_several_sources_make_one_shbin_in_order(tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    folder = root / "pica"
    first = folder / "3ds-3gxmenu__program__bc18aedb.pica"
    second = folder / "3ds-3gxmenu__program__bc18aedb.dvle1.pica"
    out = tmp_path / "prog.shbin"
    result = CliRunner().invoke(cli, ["asm", str(first), str(second), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (folder / "3ds-3gxmenu__program__bc18aedb.shbin").read_bytes()


def test_disasm_then_asm_through_the_cli(tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    original = root / "pica" / "RetroArch__ctr_sprite__82b12978.shbin"
    text = tmp_path / "sprite.pica"
    runner = CliRunner()
    assert runner.invoke(cli, ["disasm", str(original), "-o", str(text)]).exit_code == 0
    result = runner.invoke(cli, ["asm", str(text)])  # default output: sprite.shbin beside it
    assert result.exit_code == 0, result.output
    assert (tmp_path / "sprite.shbin").read_bytes() == original.read_bytes()


def test_asm_error_is_one_line_with_position(tmp_path: Path) -> None:
    src = tmp_path / "bad.v.pica"
    src.write_text(".proc main\n  mov r0, r1\n  frob r2\n.end\n")
    result = subprocess.run([sys.executable, "-m", "shaderkit", "asm", str(src), "-o", str(tmp_path / "x")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"shaderkit: {src}:3:3: unknown mnemonic: frob"]
    assert not (tmp_path / "x").exists()

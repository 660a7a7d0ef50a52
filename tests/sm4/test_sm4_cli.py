"""`shaderkit disasm` end to end on real files (click runner, no subprocess)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import corpus_files
from shaderkit.errors import ShaderFormatError


def _normalise(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("//")]


def test_disasm_prints_fxc_listing() -> None:
    files = [p for p in corpus_files("dxbc", "angle__*.dxbc")][:3]
    if not files:
        pytest.skip("corpus not found")
    from shaderkit.cli import cli

    for path in files:
        result = CliRunner().invoke(cli, ["disasm", str(path)])
        assert result.exit_code == 0, result.output
        expected = path.with_name(path.name[: -len(".dxbc")] + ".fxc.asm").read_text("latin-1")
        assert _normalise(result.output) == _normalise(expected)


def test_disasm_many_files_to_folder(tmp_path: Path) -> None:
    files = corpus_files("dxbc", "slimshader__*.dxbc")[:4]
    if not files:
        pytest.skip("corpus not found")
    from shaderkit.cli import cli

    result = CliRunner().invoke(cli, ["disasm", *map(str, files), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f.name[: -len(".dxbc")] + ".asm" for f in files)


def test_disasm_bad_file_is_a_format_error(tmp_path: Path) -> None:
    from shaderkit.cli import cli

    bad = tmp_path / "bad.dxbc"
    bad.write_bytes(b"DXBC" + bytes(28))
    result = CliRunner().invoke(cli, ["disasm", str(bad)])
    assert result.exit_code != 0
    assert isinstance(result.exception, ShaderFormatError)

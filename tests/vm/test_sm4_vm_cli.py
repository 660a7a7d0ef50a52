"""``shaderkit run`` on DXBC: values from reference/dxbc_oracle.md section 4 (worked out by hand
from the fxc listing of ANGLE's clear vertex shader: o0 = (icb[vertex id].xy, 0, 1))."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shaderkit.cli import cli

pytest.importorskip("numpy")


def test_run_dxbc_vertex_shader_by_count(corpus: Path) -> None:
    path = corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.dxbc"
    result = CliRunner().invoke(cli, ["run", str(path), "--count", "6", "-o", "-"])
    assert result.exit_code == 0, result.output
    positions = json.loads(result.output)["SV_POSITION0"]
    assert positions == [[-1, 1, 0, 1], [1, -1, 0, 1], [-1, -1, 0, 1], [-1, 1, 0, 1], [1, 1, 0, 1], [1, -1, 0, 1]]


def test_run_dxbc_unknown_constant_is_one_line(corpus: Path) -> None:
    import subprocess
    import sys

    path = corpus / "dxbc" / "angle__clear11vs__g_VS_Clear.dxbc"
    result = subprocess.run([sys.executable, "-m", "shaderkit", "run", str(path), "--cbuffer", "nope=1", "--count", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "nope" in result.stderr

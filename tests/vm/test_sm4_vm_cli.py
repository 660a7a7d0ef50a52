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


def test_run_dxbc_hull_shader_from_json(corpus: Path, tmp_path: Path) -> None:
    # hs5_basic: control points pass through; fork phase: SV_TessFactor0/1 = icb[0].x, icb[1].x = 1, 8
    path = corpus / "dxbc" / "slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc"
    points = [[[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]]
    (tmp_path / "in.json").write_text(json.dumps({"CPOINT": points}))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"), "-o", "-"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out == {"CPOINT0": points, "patch.SV_TESSFACTOR0": [[1]], "patch.SV_TESSFACTOR1": [[8]]}


def test_run_dxbc_domain_shader_from_json(corpus: Path, tmp_path: Path) -> None:
    # ds5_basic: cubic Bezier of the 4 control points at u; u = 0.5: (P0 + 3 P1 + 3 P2 + P3) / 8
    path = corpus / "dxbc" / "slimshader__Tests_HlslCrossCompiler_ds5_basic.dxbc"
    feed = {"CPOINT": [[[0, 0, 0], [8, 0, 0], [8, 8, 0], [0, 8, 16]], [[0, 0, 0], [0, 0, 0], [0, 0, 0], [8, 8, 8]]],
            "SV_DomainLocation": [[0.5], [1]], "SV_PrimitiveID": [0, 1]}
    (tmp_path / "in.json").write_text(json.dumps(feed))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"), "-o", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"SV_POSITION0": [[6, 4, 2, 1], [8, 8, 8, 1]], "patch": [0, 1]}
    result = CliRunner().invoke(cli, ["run", str(path), "--count", "1", "-o", "-"])
    assert result.exit_code != 0 and "SV_DomainLocation" in str(result.exception)


def test_run_dxbc_geometry_shader_from_json(corpus: Path, tmp_path: Path) -> None:
    # Passthrough3D: each triangle's three vertices in order, one strip per primitive
    path = corpus / "dxbc" / "angle__passthrough3d11gs__g_GS_Passthrough3D.dxbc"
    position = [[[0, 0, 0, 1], [1, 0, 0, 1], [0, 1, 0, 1]]]
    (tmp_path / "in.json").write_text(json.dumps({"SV_Position": position}))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"), "-o", "-"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["SV_POSITION0"] == position[0]
    assert out["primitive"] == [0, 0, 0] and out["strip"] == [0, 0, 0] and out["instance"] == [0, 0, 0]

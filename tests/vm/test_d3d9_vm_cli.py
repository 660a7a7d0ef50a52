"""``shaderkit run`` on a bare D3D9 shader assembled here: outputs worked out by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shaderkit.cli import cli
from shaderkit.formats.d3d9.assemble import assemble_shader

pytest.importorskip("numpy")

VS = "vs_2_0\ndcl_position v0\ndcl_texcoord1 v1\nadd oPos, v0, c3\nmul oT1, v1, c3.x\n"


def test_run_d3d9_vertex_shader_from_json(tmp_path: Path) -> None:
    path = tmp_path / "add.vso"
    path.write_bytes(assemble_shader(VS).to_bytes())
    (tmp_path / "in.json").write_text(json.dumps({"POSITION": [[1, 2, 3, 4]], "TEXCOORD1": [[1, 1]]}))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"),
                                      "--cbuffer", "c3=0.5,1,1.5,2", "-o", "-"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["POSITION0"] == [[1.5, 3, 4.5, 6]]
    assert out["TEXCOORD1"] == [[0.5, 0.5, 0, 0.5]]  # TEXCOORD1 (1, 1) padded with (0, 1)


def test_run_d3d9_pixel_shader_by_count_reports_discards(tmp_path: Path) -> None:
    path = tmp_path / "kill.pso"
    path.write_bytes(assemble_shader("ps_2_0\ndef c0, -1, 0, 0, 0\ntexkill c0\nmov oC0, c0\n").to_bytes())
    result = CliRunner().invoke(cli, ["run", str(path), "--count", "2", "-o", "-"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["COLOR0"] == [[-1, 0, 0, 0]] * 2 and out["discarded"] == [True, True]


def test_run_d3d9_unknown_constant_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "add.vso"
    path.write_bytes(assemble_shader(VS).to_bytes())
    result = subprocess.run([sys.executable, "-m", "shaderkit", "run", str(path), "--cbuffer", "Nope=1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Nope" in result.stderr


def test_run_d3d9_uniform_texture_and_max_steps(tmp_path: Path) -> None:
    import numpy as np

    path = tmp_path / "tex.pso"
    path.write_bytes(assemble_shader("ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmul oC0, r0, c1\n").to_bytes())
    np.save(tmp_path / "t.npy", np.array([[[0.25, 0.5, 0.75, 1.0]]], np.float32))  # one texel
    args = ["run", str(path), "--count", "1", "--texture", f"s0={tmp_path / 't.npy'}", "-o", "-"]
    result = CliRunner().invoke(cli, [*args, "--uniform", "c1=2,2,2,0.5"])
    assert result.exit_code == 0, result.output
    # the one texel times c1
    assert json.loads(result.output)["COLOR0"] == [[0.5, 1, 1.5, 0.5]]
    result = CliRunner().invoke(cli, [*args, "--cbuffer", "c1=1,1,1,1"])  # --cbuffer: the same as --uniform
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["COLOR0"] == [[0.25, 0.5, 0.75, 1]]
    result = CliRunner().invoke(cli, [*args, "--max-steps", "1"])  # 2 instructions: stopped after the first
    assert result.exit_code != 0 and "stopped after 1 instructions" in str(result.exception or result.output)


def test_run_d3d9_register_given_one_value(tmp_path: Path) -> None:
    # c3 = (2, 0, 0, 0): the one value fills x, the rest of the row stays 0
    path = tmp_path / "add.vso"
    path.write_bytes(assemble_shader(VS).to_bytes())
    (tmp_path / "in.json").write_text(json.dumps({"POSITION": [[1, 2, 3, 4]], "TEXCOORD1": [[1, 1]]}))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"),
                                      "--uniform", "c3=2", "-o", "-"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["POSITION0"] == [[3, 2, 3, 4]]
    assert out["TEXCOORD1"] == [[2, 2, 0, 2]]


def test_run_d3d9_json_writes_nan_and_infinities_as_strings(tmp_path: Path) -> None:
    # strict JSON (no NaN/Infinity tokens), as the PICA200, Latte and Maxwell run outputs write them
    path = tmp_path / "add.vso"
    path.write_bytes(assemble_shader(VS).to_bytes())
    (tmp_path / "in.json").write_text(json.dumps({"POSITION": [[1, 2, 3, 4]], "TEXCOORD1": [[1, 1]]}))
    result = CliRunner().invoke(cli, ["run", str(path), "--inputs", str(tmp_path / "in.json"),
                                      "--cbuffer", "c3=inf,nan,-inf,1", "-o", "-"])
    assert result.exit_code == 0, result.output

    def refuse(token: str) -> None:
        raise AssertionError(f"non-standard JSON token {token}")

    out = json.loads(result.output, parse_constant=refuse)
    assert out["POSITION0"] == [["inf", "nan", "-inf", 5]]
    assert out["TEXCOORD1"] == [["inf", "inf", "nan", "inf"]]  # (1, 1, 0, 1) * c3.x: 0 * inf is NaN (IEEE)

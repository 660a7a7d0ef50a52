"""`shaderkit run` on Wii U GSH files: inputs by attribute name, uniforms by name, textures from
.npy, JSON and CSV output, clear errors (expected values worked from librw's im2d formula)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

np = pytest.importorskip("numpy")

import shaderkit  # noqa: E402
from conftest import run_cli  # noqa: E402
from shaderkit.cli import cli  # noqa: E402

GSH = "wiiu/librw_im2d_935dd6a_carray.gsh"


def _file(corpus: Path) -> str:
    path = corpus / GSH
    if not path.exists():
        pytest.skip(f"{GSH} not in the corpus")
    return str(path)


def test_run_vertex_shader_json(corpus: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"in_pos": [[10, 20, 0.5, 1], [0, 0, 0, 1]], "in_color": [[1, 0, 0, 1]] * 2,
                                  "in_tex0": [[0.5, 0.25], [0, 1]]}))
    result = CliRunner().invoke(cli, ["run", _file(corpus), "--inputs", str(inputs),
                                      "--uniform", "u_xform=0.5,0.25,-1,1"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    # xy * (0.5, 0.25) + (-1, 1), z, w = 1
    assert doc["exports"]["POS0"] == [[4.0, 6.0, 0.5, 1.0], [-1.0, 1.0, 0.0, 1.0]]
    assert doc["exports"]["PARAM1"][0][:2] == [0.5, 0.25]
    assert doc["lanes"] == 2 and doc["killed"] == [False, False]


def test_run_pixel_shader_csv_with_texture(corpus: Path, tmp_path: Path) -> None:
    texture = tmp_path / "t0.npy"
    np.save(texture, np.full((2, 2, 4), 0.5, np.float32))
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(cli, ["run", _file(corpus), "--shader", "1", "--count", "3",
                                      "--texture", f"0={texture}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 3
    # the file's pixel-shader inputs all have DEFAULT_VAL (SPI_PS_INPUT_CNTL bits 8-9) 1
    regs = shaderkit.open(_file(corpus)).shaders[1].regs
    assert [w >> 8 & 3 for w in regs.spi_ps_input_cntls[: regs.num_spi_ps_input_cntl]] == [1, 1, 1]
    # inputs default to SPI_PS_INPUT_CNTL DEFAULT_VAL 1 = (0, 0, 0, 1): colour alpha 1 * texel 0.5
    assert float(rows[0]["PIX0.w"]) == 0.5


def test_run_errors(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "run", _file(corpus), "--shader", "1")
    assert status == 2 and "t0" in err and "Traceback" not in err
    status, _, err = run_cli(capsys, "run", _file(corpus), "--shader", "9")
    assert status == 2 and "2 shader programs" in err

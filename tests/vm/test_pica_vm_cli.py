"""`shaderkit run` on a self-made SHBIN: input formats, uniforms, output formats, errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

np = pytest.importorskip("numpy")

from shaderkit.cli import cli, main  # noqa: E402
from shaderkit.formats.dvlb.build import assemble_sources  # noqa: E402

SOURCE = """
.fvec scale
.bool flip
.constf one(1.0, 1.0, 1.0, 1.0)
.out - position o0
.out - color o1
.proc main
    mul o0, scale, v0
    mov o1, one
    ifu flip
        mov o1, -v1
    .end
    end
.end
"""


@pytest.fixture
def shbin(tmp_path: Path) -> Path:
    path = tmp_path / "t.shbin"
    path.write_bytes(assemble_sources([("t.pica", SOURCE)]))
    return path


def write_inputs(tmp_path: Path) -> dict[str, Path]:
    v0 = np.array([[1, 2, 3, 4], [-1, 0.5, 0, 2]], np.float32)
    v1 = np.array([[5, 6, 7, 8], [0, 0, 0, 0]], np.float32)
    paths = {"npy": tmp_path / "in.npy", "json": tmp_path / "in.json", "csv": tmp_path / "in.csv"}
    np.save(paths["npy"], np.stack([v0, v1], axis=1))
    paths["json"].write_text(json.dumps({"v0": v0.tolist(), "v1": v1.tolist()}))
    header = [f"v{r}.{c}" for r in range(2) for c in "xyzw"]
    rows = [",".join(header)] + [",".join(str(float(x)) for x in np.concatenate([v0[i], v1[i]])) for i in range(2)]
    paths["csv"].write_text("\n".join(rows) + "\n")
    return paths


@pytest.mark.parametrize("kind", ["npy", "json", "csv"])
def test_input_formats_and_json_output(shbin: Path, tmp_path: Path, kind: str) -> None:
    inputs = write_inputs(tmp_path)[kind]
    out = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["run", str(shbin), "--inputs", str(inputs), "--uniform", "scale=2,3,4,0.5",
                                      "--uniform", "flip=true", "-o", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["semantics"] == {"position": "o0", "color": "o1"}
    assert doc["outputs"]["o0"] == [[2, 6, 12, 2], [-2, 1.5, 0, 1]]
    assert doc["outputs"]["o1"] == [[-5, -6, -7, -8], [-0.0, -0.0, -0.0, -0.0]]
    assert doc["steps"] == [5, 5]  # mul, mov, ifu, mov, end


def test_csv_and_npy_outputs_and_registers(shbin: Path, tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path)["json"]
    runner = CliRunner()
    result = runner.invoke(cli, ["run", str(shbin), "--inputs", str(inputs), "--uniform", "c0=1,1,1,1",
                                 "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO((tmp_path / "o.csv").read_text())))
    assert rows[0][:3] == ["vertex", "o0.x", "o0.y"] and rows[0][-1] == "steps"
    assert [float(x) for x in rows[1][1:5]] == [1, 2, 3, 4]
    assert [float(x) for x in rows[1][5:9]] == [1, 1, 1, 1]  # flip is false: color = one
    assert rows[1][-1] == "4"
    result = runner.invoke(cli, ["run", str(shbin), "--inputs", str(inputs), "-o", str(tmp_path / "o.npy")])
    assert result.exit_code == 0, result.output
    array = np.load(tmp_path / "o.npy")
    assert array.shape == (2, 16, 4) and array[0, 1].tolist() == [1, 1, 1, 1]
    assert array[0, 0].tolist() == [0, 0, 0, 0]  # scale left at 0


def test_stdout_is_csv_when_not_a_terminal(shbin: Path, tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path)["json"]
    result = CliRunner().invoke(cli, ["run", str(shbin), "--inputs", str(inputs)])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].startswith("vertex,o0.x")


def test_terminal_table() -> None:
    from rich.console import Console

    from shaderkit.cli.run import print_table
    from shaderkit.vm.pica import PicaShader

    shader = PicaShader.load(assemble_sources([("t.pica", SOURCE)]))
    shader.set_uniform("scale", [1, 1, 1, 1])
    console = Console(file=io.StringIO(), width=200)
    print_table(shader.run(np.zeros((25, 4), np.float32) + 1.5), console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "o0 position" in text and "o1 color" in text and "1.5 1.5 1.5 1.5" in text
    assert "5 more vertices" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--uniform", "nosuch=1"], "unknown uniform 'nosuch'"),
    (["--uniform", "scale"], "expected NAME=x,y,z,w"),
    (["--uniform", "scale=a"], "is not a number"),
    (["--dvle", "4"], "DVLE 4 does not exist"),
    (["-o", "out.txt"], "-o must end in"),
])
def test_errors_are_one_line_exit_2(shbin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    args: list[str], message: str) -> None:
    inputs = write_inputs(tmp_path)["json"]
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(shbin), "--inputs", str(inputs), *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_bad_inputs_file(shbin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"v0": [[1, 2, 3, 4, 5]]}')
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(shbin), "--inputs", str(bad)])
    assert exit_info.value.code == 2
    assert "5 components" in capsys.readouterr().err
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((3, 5), np.float32))
    with pytest.raises(SystemExit):
        main(["run", str(shbin), "--inputs", str(wrong)])
    assert "shape" in capsys.readouterr().err


def test_base64_csdr_runs_its_payload(shbin: Path, tmp_path: Path) -> None:
    import base64

    csdr = tmp_path / "t.csdr"
    csdr.write_bytes(base64.b64encode(shbin.read_bytes()) + b"\n")
    inputs = write_inputs(tmp_path)["json"]
    out = tmp_path / "o.json"
    result = CliRunner().invoke(cli, ["run", str(csdr), "--inputs", str(inputs), "--uniform", "scale=1,1,1,1",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["outputs"]["o0"][0] == [1, 2, 3, 4]


def test_a_format_without_an_executor_is_named(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a SHARC (GLSL sources) is not a PICA200 shader: the error says so instead of asking for --inputs
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(corpus / "wiiu" / "agl_agl_common.sharc")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "running sharc files is not supported" in err and "--inputs" not in err and "\n" not in err

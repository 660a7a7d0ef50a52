"""Every CLI error path: exactly one line on stderr, exit status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from shaderkit.cli import main
from shaderkit.samples import SAMPLES


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "junk.bin").write_bytes(b"\x00\x01\x02\x03 not a shader")
    (tmp_path / "vs.dxbc").write_bytes(SAMPLES["sample_vs.dxbc"]())
    (tmp_path / "broken.dxbc").write_bytes(b"DXBC" + b"\x00" * 10)
    (tmp_path / "x.bfsha").write_bytes(b"FSHA\0\0\0\0" + b"\xff\xfe" + b"\x00" * 22)
    (tmp_path / "folder").mkdir()
    shbin = next(name for name in SAMPLES if name.endswith(".shbin"))
    (tmp_path / "p.shbin").write_bytes(SAMPLES[shbin]())
    return {name: str(tmp_path / name) for name in ("junk.bin", "vs.dxbc", "broken.dxbc", "x.bfsha", "folder",
                                                    "p.shbin")} | {"missing": str(tmp_path / "nope.dxbc")}


ERROR_PATHS = [
    ["frobnicate"],                                  # no such command
    ["info"],                                        # missing argument
    ["info", "--width", "5", "{vs.dxbc}"],           # bad option value
    ["info", "--no-such-option", "{vs.dxbc}"],       # unknown option
    ["info", "{missing}"],                           # no such file
    ["info", "{junk.bin}"],                          # unknown format
    ["info", "{folder}"],                            # a folder
    ["info", "{broken.dxbc}"],                       # truncated file
    ["disasm", "{vs.dxbc}", "{p.shbin}"],            # several inputs need -o DIR
    ["disasm", "{x.bfsha}"],                         # recognised, not read
    ["disasm", "--offsets", "{x.bfsha}"],
    ["disasm", "{missing}"],
    ["rebuild", "{vs.dxbc}"],                        # -o missing
    ["rebuild", "{junk.bin}", "-o", "-"],
    ["verify", "{missing}"],
    ["variation", "{vs.dxbc}", "prog"],              # wrong kind of file
    ["diff", "{vs.dxbc}"],                           # one file only
    ["diff", "{vs.dxbc}", "{junk.bin}"],
    ["cfg", "{x.bfsha}"],
    ["cfg", "{missing}"],
    ["extract", "{vs.dxbc}", "--stage", "vertex", "-o", "-"],
    ["get", "{vs.dxbc}//inner/file", "-o", "-"],
]


@pytest.mark.parametrize("args", ERROR_PATHS, ids=[" ".join(a) for a in ERROR_PATHS])
def test_error_is_one_line_exit_2(args: list[str], files: dict[str, str], capfd: pytest.CaptureFixture[str]) -> None:
    argv = [a.format(**{k.replace(".", "_"): v for k, v in files.items()}) if "{" in a else a for a in
            [a.replace(".", "_") if a.startswith("{") else a for a in args]]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capfd.readouterr()
    lines = err.strip().splitlines()
    assert stop.value.code == 2, (argv, err)
    assert len(lines) == 1 and lines[0].strip(), (argv, err)
    assert "Traceback" not in err and "Usage:" not in err
    assert not lines[0].startswith("identified:")


def test_file_arguments_complete_as_file_names() -> None:
    from shaderkit.cli import FILE_NAMES, cli

    ctx = cli.make_context("shaderkit", ["info"], resilient_parsing=True)
    info = cli.get_command(ctx, "info")
    assert info is not None
    param = next(p for p in info.params if p.name == "file")
    assert param.type is FILE_NAMES
    items = param.shell_complete(ctx, "shad")
    assert [(i.value, i.type) for i in items] == [("shad", "file")]
    width = next(p for p in info.params if p.name == "width")
    assert width.type is not FILE_NAMES


def test_enum_names_beside_numbers(corpus: Path) -> None:
    from click.testing import CliRunner

    from shaderkit.cli import cli

    # fxc's own listing of this file says: SV_Position mask xyzw, TEXCOORD mask x; Buffer4F: float, buf
    path = corpus / "dxbc" / "angle__buffertotexture11_ps_4f__g_PS_BufferToTexture_4F.dxbc"
    text = CliRunner().invoke(cli, ["info", "--width", "80", str(path)]).output
    assert "xyzw (15)" in text and "x (1)" in text
    assert "float (5)" in text and "buffer (1)" in text


@pytest.mark.skipif(__import__("shutil").which("dot") is not None, reason="Graphviz is installed here")
def test_svg_without_graphviz_is_one_line(files: dict[str, str], capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["cfg", "--svg", files["vs.dxbc"]])
    lines = capfd.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(lines) == 1 and "dot" in lines[0]

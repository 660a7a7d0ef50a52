"""The CLI on Wii U files: variation, info --json, verify."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_wiiu_synthetic import build_archive

from conftest import corpus_params, corpus_root, run_cli

COIN = corpus_params("wiiu", "sc_obj_coin.sharcfb")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, *argv)


@pytest.fixture
def synthetic(tmp_path: Path) -> str:
    path = tmp_path / "synthetic.sharcfb"
    path.write_bytes(build_archive(">").to_bytes())
    return str(path)


def test_variation_on_synthetic(capsys: pytest.CaptureFixture[str], synthetic: str) -> None:
    code, out, _ = run(capsys, "variation", synthetic, "multi", "A=2", "B=y")
    # C takes its default q: index = 2*4 + 1*2 + 1 = 11 -> binaries 22, 23
    assert code == 0
    assert out.splitlines()[0] == "program multi: variation 11 of 12"
    assert "  C = q" in out
    assert "vertex    binary 22:" in out and "pixel     binary 23:" in out
    code, out, _ = run(capsys, "variation", synthetic, "geo", "--json")
    result = json.loads(out)
    assert result["variation"] == 1 and {k: v["index"] for k, v in result["binaries"].items()} == {
        "vertex": 27, "pixel": 28, "geometry": 29}
    assert result["binaries"]["geometry"]["vertex_program_size"] == 0x120


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("multi", "Q=1"), "unknown macro 'Q' (macros: A, B, C)"),
        (("multi", "A=9"), "macro 'A' has no value '9' (values: 0, 1, 2)"),
        (("nope",), "no program 'nope' (programs: multi, geo)"),
        (("multi", "A"), "'A' is not MACRO=VALUE"),
    ],
)
def test_variation_errors(capsys: pytest.CaptureFixture[str], synthetic: str, args: tuple[str, ...],
                          message: str) -> None:
    code, out, err = run(capsys, "variation", synthetic, *args)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"shaderkit: {message}"]


@pytest.mark.parametrize("path", corpus_params("wiiu", "*.sharcfb"))
def test_variation_on_every_corpus_program(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    from shaderkit.formats.agl.sharcfb import Sharcfb

    for program in Sharcfb.from_bytes(path.read_bytes()).programs:
        code, out, err = run(capsys, "variation", str(path), program.name)
        assert code == 0 and err == ""
        assert out.splitlines()[0] == f"program {program.name}: variation 0 of {program.variation_count}"


@pytest.mark.parametrize("path", COIN)
def test_variation_on_corpus(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, _ = run(capsys, "variation", str(path), "mat_coin")
    assert code == 0 and out.splitlines()[0] == "program mat_coin: variation 0 of 1"
    # binary 0 is the VS: microcode 0x1590 bytes, 4 blocks, 307 uniforms, 1 loop var, 4 attributes
    assert out.splitlines()[1] == (
        "  vertex    binary 0: 0x1590 bytes of microcode, mode 1, 4 uniform blocks, 307 uniforms, "
        "1 loop var, 4 attributes"
    )


@pytest.mark.parametrize("path", COIN)
def test_info_json_lists_programs(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    code, out, _ = run(capsys, "info", "--json", str(path))
    summary = json.loads(out)
    assert code == 0 and summary["format"] == "sharcfb"
    (program,) = summary["programs"]
    assert program["name"] == "mat_coin" and program["macros"] == [] and program["variation_count"] == 1
    assert [b["stage"] for b in summary["binaries"]] == ["vertex", "pixel"]


def test_verify_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    files = sorted(str(p) for pattern in ("*.sharcfb", "*.sharc", "*.gsh") for p in (root / "wiiu").glob(pattern))
    code, out, _ = run(capsys, "verify", *files)
    assert code == 0 and out.strip() == f"{len(files)} passed, 0 failed"


def test_info_reads_archive_files(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 17: SZS and Wii U BFSHA are read now (they were only named before)
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    for name, kind in (("st_BodyB_Ysi.szs", "yaz0"), ("st_BodyB_Ysi_embedded.wiiu.bfsha", "bfsha-wiiu")):
        path = root / "wiiu" / name
        if path.exists():
            code, out, _ = run(capsys, "info", "--json", str(path))
            summary = json.loads(out)
            assert code == 0 and summary["format"] == kind

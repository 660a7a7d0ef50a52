"""The plain forms of cli/fast.py print, write and exit exactly as the click commands do."""

from __future__ import annotations

from pathlib import Path

import pytest

from shaderkit.samples import SAMPLES


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _run(capsys: pytest.CaptureFixture[str], through_click: bool, argv: list[str]) -> tuple[int, str, str]:
    from shaderkit.cli import main
    from shaderkit.cli.app import main as click_main

    try:
        (click_main if through_click else main)(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """Samples of every format, a broken copy, a non-shader in a folder and a nested folder."""
    folder = tmp_path / "in"
    (folder / "deeper").mkdir(parents=True)
    for name, build in SAMPLES.items():
        (folder / name).write_bytes(build())
    data = bytearray(SAMPLES["sample_vs.dxbc"]())
    data[40] ^= 0xFF  # a chunk offset now points outside the container
    (folder / "deeper" / "broken.dxbc").write_bytes(bytes(data))
    (folder / "deeper" / "notes.txt").write_text("not a shader")
    (folder / "deeper" / "truncated.shbin").write_bytes(SAMPLES["sample.shbin"]()[:40])
    return folder


def _forms(folder: Path, out: Path) -> list[list[str]]:
    files = sorted(str(p) for p in folder.rglob("*") if p.is_file())
    return [
        ["verify", str(folder)],
        ["verify", *files],
        ["verify", "--json", str(folder)],
        ["verify", "--jobs", "2", str(folder)],
        ["verify", "-j", "1", "--json", *files[:2]],
        ["disasm", "-o", str(out), str(folder)],
        ["disasm", "-o", str(out), *files],
        ["disasm", *files[:2], "--output", str(out)],
        ["disasm", "-o", str(out / "one.asm"), str(folder / "sample_vs.dxbc")],
        ["disasm", "-o", str(out / "bad.asm"), str(folder / "deeper" / "broken.dxbc")],
    ]


def test_plain_forms_equal_the_click_commands(inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from shaderkit.cli.fast import _simple_form

    for argv in _forms(inputs, tmp_path / "out"):
        assert _simple_form(list(argv)) is not None, argv  # (else both runs below would be click's)
    for index, through_click in enumerate((True, False)):
        out = tmp_path / f"out{index}"
        results = [(_run(capsys, through_click, argv), _tree(out) if out.exists() else {}) for argv in _forms(inputs, out)]
        if through_click:
            expected = results
    for argv, got, want in zip(_forms(inputs, tmp_path / "out"), results, expected):
        assert got == want, argv
    (code, out_text, _), _ = expected[0]
    # the forms did fail where they should: the samples pass, the two damaged files fail, the notes are skipped
    assert code == 1 and "broken.dxbc" in out_text
    assert out_text.splitlines()[-1] == f"{len(SAMPLES)} passed, 2 failed, 1 skipped"
    (code, _, err_text), written = expected[5]
    assert code == 1 and "broken.dxbc" in err_text and "sample_vs.asm" in written


@pytest.mark.parametrize("argv", [
    ["verify", "missing-folder"],  # click's message for a missing path
    ["verify", "--jobs", "0", "x"],  # click's range check
    ["verify", "-j2", "x"],
    ["verify", "-j", "\u00b2", "x"],  # a digit to str.isdigit, not to int()
    ["disasm", "-o", "", "x.dxbc"],
    ["disasm", "a.dxbc", "b.dxbc"],  # click's usage error: several inputs need -o DIR
    ["disasm", "-o", "d", "-o", "e", "a.dxbc"],
    ["disasm", "--", "a.dxbc"],
])
def test_other_spellings_go_to_click(argv: list[str]) -> None:
    from shaderkit.cli.fast import _simple_form

    assert _simple_form(list(argv)) is None


def test_the_batch_forms_load_no_click(inputs: Path, tmp_path: Path) -> None:
    from test_lazy_imports import loaded_after

    for argv in (["verify", str(inputs)], ["verify", "--jobs", "2", "--json", str(inputs)],
                 ["disasm", "-o", str(tmp_path / "out"), str(inputs)]):
        modules = loaded_after(*argv)
        assert "shaderkit.formats.dxbc.container" in modules, argv  # (the command did run)
        assert not [m for m in modules if m.split(".")[0] in ("click", "rich")], argv
    assert (tmp_path / "out" / "sample_vs.asm").read_text().startswith("//")


def test_verify_names_files_as_pathlib_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without loading pathlib for plain file names, ``verify`` still reports every file under the
    name ``str(Path(name))`` gives (the name click's command printed)."""
    from shaderkit.cli.checks import verify_targets

    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.dxbc").write_bytes(b"x")
    (tmp_path / "b.dxbc").write_bytes(b"x")
    monkeypatch.chdir(tmp_path)
    spellings = ["b.dxbc", "./b.dxbc", "d/a.dxbc", "d//a.dxbc", "d/./a.dxbc", "d/../b.dxbc", f"{tmp_path}/d/a.dxbc",
                 f"/{tmp_path}/b.dxbc", f"{tmp_path}/./b.dxbc", ".//b.dxbc"]
    for name in spellings:
        assert verify_targets([name]) == [str(Path(name))], name
    assert verify_targets(spellings) == [str(Path(name)) for name in spellings]
    assert verify_targets(["d"]) == [str(Path("d/a.dxbc"))]  # a folder: its files

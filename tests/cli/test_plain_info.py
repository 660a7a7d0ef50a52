"""``info`` without rich: the plain writer gives rich's exact lines, or declines (None)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from conftest import corpus_files, run_cli
from shaderkit.cli.common import info_record, load_with_bytes
from shaderkit.cli.render import plain_lines, render
from shaderkit.samples import SAMPLES

WIDTHS = (80, 52, 200)


def rich_lines(heading: str, summary: dict[str, Any], width: int) -> list[str]:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    console.print(heading, style="bold", markup=False, overflow="fold")
    render(summary, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text.split("\n")[:-1]


def check(heading: str, summary: dict[str, Any], width: int) -> bool:
    """True when the plain writer answered (and then agreed with rich)."""
    plain = plain_lines(heading, summary, width)
    if plain is not None:
        assert plain == rich_lines(heading, summary, width)
    return plain is not None


def summary_of(path: Path) -> tuple[str, dict[str, Any]]:
    data, model = load_with_bytes(str(path))
    record = info_record(data, model)
    record.pop("schema_version")
    return f"{path} ({model.format_name})", record


FILES = [p for p in corpus_files("pica", "*.shbin") + corpus_files("dxbc", "*.dxbc")[::13] + corpus_files("nx", "*.*")
         + corpus_files("wiiu", "*.*") if p.suffix not in (".tsv", ".md", ".txt", ".json") and p.is_file()]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_plain_text_is_rich_text_for_corpus_files(path: Path) -> None:
    heading, summary = summary_of(path)
    for width in WIDTHS:
        check(heading, summary, width)


def test_plain_writer_answers_for_common_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    answered = 0
    for name, build in SAMPLES.items():
        Path(name).write_bytes(build())
        heading, summary = summary_of(Path(name))
        answered += check(heading, summary, 80)
    assert answered >= len(SAMPLES) // 2  # the fast writer is really used


@pytest.mark.parametrize("value", ["[bold]x", "a [red]b[/red]", ":smile: c", "x:thumbs_up:", "a  b", " lead", "tail ",
                                   "caf\u00e9", "tab\there", "esc \\[x]", "cb0[4]", "C:\\dir\\f.hlsl", "", "1:2", "x" * 300])
def test_awkward_text_is_rich_text_or_declined(value: str) -> None:
    summary = {"format": "x", "value": value, "rows": [{"name": value, "n": 1}, {"name": "b", "n": 22}],
               "section": {"inner": value}}
    for width in WIDTHS:
        check("file (x)", summary, width)
        check(f"{value} (x)", summary, width)


def test_info_command_prints_the_plain_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COLUMNS", raising=False)
    path = Path("sample.shbin")
    path.write_bytes(SAMPLES["sample.shbin"]())
    status, out, err = run_cli(capsys, "info", str(path))
    assert (status, err) == (0, "")
    heading, summary = summary_of(path)
    assert plain_lines(heading, summary, 80) is not None
    assert out.split("\n")[:-1] == rich_lines(heading, summary, 80)

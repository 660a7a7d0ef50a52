"""``shaderkit diff A B``: what differs between two shaders, metadata first, then the code."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from typing import Any

import click


def flatten(value: Any, path: str = "") -> Iterator[str]:
    """``key.sub[2].name = value`` lines of a JSON-ready value, one per scalar, in key order."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from flatten(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)) and value and any(isinstance(v, (dict, list, tuple)) for v in value):
        for index, item in enumerate(value):
            yield from flatten(item, f"{path}[{index}]")
    else:
        yield f"{path} = {json.dumps(value)}"


def columns_view(left: list[str], right: list[str], width: int) -> list[str]:
    """Two aligned columns with a marker between them: ``|`` changed, ``<`` only left, ``>`` only right."""
    half = max(10, (width - 3) // 2)

    def cell(text: str) -> str:
        text = text.expandtabs(4)
        return text if len(text) <= half else text[: half - 1] + "»"

    rows: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes():
        a, b = left[i1:i2], right[j1:j2]
        mark = {"equal": " ", "replace": "|", "delete": "<", "insert": ">"}[tag]
        for k in range(max(len(a), len(b))):
            lt = a[k] if k < len(a) else ""
            rt = b[k] if k < len(b) else ""
            m = mark if tag != "replace" else ("|" if k < len(a) and k < len(b) else ("<" if k < len(a) else ">"))
            rows.append(f"{cell(lt):<{half}} {m} {cell(rt)}".rstrip())
    return rows


def diff_lines(a_name: str, b_name: str, a_lines: list[str], b_lines: list[str], context: int) -> list[str]:
    """A unified diff of two line lists (no line ends), as ``diff -u`` prints it."""
    return [line.rstrip("\n") for line in difflib.unified_diff(a_lines, b_lines, a_name, b_name, n=context, lineterm="")]


@click.command()
@click.argument("first")
@click.argument("second")
@click.option("-U", "--context", "context", default=3, show_default=True, help="Lines of context.")
@click.option("-y", "--side-by-side", is_flag=True, help="Two aligned columns instead of a unified diff.")
@click.option("--width", type=click.IntRange(40, 1000), default=None, help="Columns for --side-by-side.")
@click.option("--code-only", is_flag=True, help="Compare only the disassembly, not the metadata.")
def diff(first: str, second: str, context: int, side_by_side: bool, width: int | None, code_only: bool) -> None:
    """Compare two shader files: metadata (info --json keys) and the aligned disassembly.

    Exit status 0 when both are the same, 1 when they differ (like diff), 2 on bad input.
    """
    import shutil

    from shaderkit.cli.info import info_record, load_with_bytes

    a_data, a_model = load_with_bytes(first)
    b_data, b_model = load_with_bytes(second)
    parts: list[tuple[str, list[str], list[str]]] = []
    if not code_only:
        parts.append(("metadata", list(flatten(info_record(a_data, a_model))), list(flatten(info_record(b_data, b_model)))))
    parts.append(("code", _listing(a_model), _listing(b_model)))
    columns = width or shutil.get_terminal_size((100, 24)).columns
    differs = False
    for title, left, right in parts:
        if left == right:
            continue
        differs = True
        click.echo(f"=== {title}")
        if side_by_side:
            rows = columns_view(left, right, columns)
        else:
            rows = diff_lines(f"{first} ({title})", f"{second} ({title})", left, right, context)
        for row in rows:
            click.echo(row)
    if differs:
        raise click.exceptions.Exit(1)


def _listing(model: Any) -> list[str]:
    from shaderkit.errors import UnsupportedOperation

    try:
        return str(model.disassemble()).splitlines()
    except UnsupportedOperation as exc:
        return [f"(no disassembly: {exc})"]

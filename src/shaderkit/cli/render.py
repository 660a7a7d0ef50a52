"""Human-readable rendering of a ``summary()`` dictionary: key/value blocks and tables that fit.

Nothing is cut: a table of records prints as columns when its natural width fits the console, and
otherwise one key/value block per record; long values wrap (fold) instead of ending in an ellipsis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich loads only when something is rendered
    from rich.console import Console


def _cell(value: Any, key: str = "") -> str:
    if isinstance(value, int) and not isinstance(value, bool) and key:
        from shaderkit.cli.enums import enum_text

        named = enum_text(key, value)
        if named is not None:
            return named
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return "" if value is None else str(value)


def _is_table(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _key_values(pairs: list[tuple[str, str]], console: Console, title: str) -> None:
    from rich.table import Table

    table = Table(title=title or None, show_header=False, title_justify="left", box=None, expand=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in pairs:
        table.add_row(key, value)
    console.print(table)


def _fits(columns: list[str], rows: list[list[str]], width: int) -> bool:
    # natural width: each column's widest cell, plus a border and 2 spaces of padding per column
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    return sum(widths) + 3 * len(columns) + 1 <= width


def render(summary: dict[str, Any], console: Console, title: str = "") -> None:
    """Scalars first as a key/value block, then one table per list of records, then sections."""
    from shaderkit.cli.enums import NAMED_KEYS  # `<key>_name` is shown with `<key>` already

    summary = {k: v for k, v in summary.items() if k not in NAMED_KEYS}
    scalars = [(k, _cell(v, k)) for k, v in summary.items() if not _is_table(v) and not isinstance(v, dict)]
    if scalars:
        _key_values(scalars, console, title)
    for key, value in summary.items():
        name = f"{title}.{key}" if title else key
        if _is_table(value):
            columns: list[str] = []
            for row in value:
                columns.extend(c for c in row if c not in columns)
            nested = [c for c in columns if any(_is_table(r.get(c)) or isinstance(r.get(c), dict) for r in value)]
            flat = [c for c in columns if c not in nested]
            flat = [c for c in flat if c not in NAMED_KEYS]
            rows = [[_cell(row.get(c), c) for c in flat] for row in value]
            if flat and _fits(flat, rows, console.width):
                from rich import box
                from rich.table import Table

                table = Table(title=name, title_justify="left", box=box.SQUARE if console.is_terminal else box.ASCII)
                for column in flat:
                    table.add_column(column, overflow="fold")
                for cells in rows:
                    table.add_row(*cells)
                console.print(table)
            elif flat:
                for index, cells in enumerate(rows):
                    _key_values(list(zip(flat, cells)), console, f"{name}[{index}]")
            for index, row in enumerate(value):
                for column in nested:
                    if row.get(column):
                        sub = row[column]
                        render(sub if isinstance(sub, dict) else {column: sub}, console, f"{name}[{index}]" + (f".{column}" if isinstance(sub, dict) else ""))
        elif isinstance(value, dict):
            render(value, console, name)

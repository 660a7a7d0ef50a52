"""Human-readable rendering of a ``summary()`` dictionary as rich tables."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def _cell(value: Any) -> str:
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


def render(summary: dict[str, Any], console: Console, title: str = "") -> None:
    """Scalars first as a two-column table, then one table per list of records, then sections."""
    scalars = {k: v for k, v in summary.items() if not _is_table(v) and not isinstance(v, dict)}
    if scalars:
        table = Table(title=title or None, show_header=False, title_justify="left", box=None)
        table.add_column(style="bold")
        table.add_column()
        for key, value in scalars.items():
            table.add_row(key, _cell(value))
        console.print(table)
    for key, value in summary.items():
        name = f"{title}.{key}" if title else key
        if _is_table(value):
            columns: list[str] = []
            for row in value:
                columns.extend(c for c in row if c not in columns)
            nested = [c for c in columns if any(_is_table(r.get(c)) or isinstance(r.get(c), dict) for r in value)]
            flat = [c for c in columns if c not in nested]
            table = Table(title=name, title_justify="left")
            for column in flat:
                table.add_column(column)
            for row in value:
                table.add_row(*(_cell(row.get(c)) for c in flat))
            console.print(table)
            for index, row in enumerate(value):
                for column in nested:
                    if row.get(column):
                        sub = row[column]
                        render(sub if isinstance(sub, dict) else {column: sub}, console, f"{name}[{index}]" + (f".{column}" if isinstance(sub, dict) else ""))
        elif isinstance(value, dict):
            render(value, console, name)

"""Human-readable rendering of a ``summary()`` dictionary: key/value blocks and tables that fit.

Nothing is cut: a table of records prints as columns when its natural width fits the console, and
otherwise one key/value block per record; long values wrap (fold) instead of ending in an ellipsis.

Output that is not a terminal is written as plain text without loading rich whenever the text is
one rich would print unchanged (printable ASCII, no markup or emoji codes, every block within its
natural width); the lines are then exactly rich's. Anything else goes through rich.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing and rich load only when needed: start-up)
if TYPE_CHECKING:
    from typing import Any

    from rich.console import Console

    #: ("keys", title, keys, [values]) or ("table", title, columns, rows)
    Block = tuple[str, str, list[str], list[list[str]]]


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


def _fits(columns: list[str], rows: list[list[str]], width: int) -> bool:
    # natural width: each column's widest cell, plus a border and 2 spaces of padding per column
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    return sum(widths) + 3 * len(columns) + 1 <= width


def blocks(summary: dict[str, Any], width: int, title: str = "") -> list[Block]:
    """What :func:`render` prints, in order: scalars first as a key/value block, then one table
    per list of records (or one key/value block per record when the table would not fit
    ``width``), then sections. ``<key>_name`` keys are left out: ``<key>`` shows the name."""
    from shaderkit.cli.enums import NAMED_KEYS

    summary = {k: v for k, v in summary.items() if k not in NAMED_KEYS}
    out: list[Block] = []
    scalars = [(k, _cell(v, k)) for k, v in summary.items() if not _is_table(v) and not isinstance(v, dict)]
    if scalars:
        out.append(("keys", title, [k for k, _ in scalars], [[v for _, v in scalars]]))
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
            if flat and _fits(flat, rows, width):
                out.append(("table", name, flat, rows))
            elif flat:
                out.extend(("keys", f"{name}[{index}]", flat, [cells]) for index, cells in enumerate(rows))
            for index, row in enumerate(value):
                for column in nested:
                    if row.get(column):
                        sub = row[column]
                        out.extend(blocks(sub if isinstance(sub, dict) else {column: sub}, width,
                                          f"{name}[{index}]" + (f".{column}" if isinstance(sub, dict) else "")))
        elif isinstance(value, dict):
            out.extend(blocks(value, width, name))
    return out


def render(summary: dict[str, Any], console: Console, title: str = "") -> None:
    """Print ``summary`` on a rich console (tables boxed in ASCII unless it is a terminal)."""
    from rich import box
    from rich.table import Table

    for kind, name, columns, rows in blocks(summary, console.width, title):
        if kind == "keys":
            table = Table(title=name or None, show_header=False, title_justify="left", box=None, expand=False)
            table.add_column(style="bold", no_wrap=True)
            table.add_column(overflow="fold")
            for key, value in zip(columns, rows[0]):
                table.add_row(key, value)
        else:
            table = Table(title=name, title_justify="left", box=box.SQUARE if console.is_terminal else box.ASCII)
            for column in columns:
                table.add_column(column, overflow="fold")
            for cells in rows:
                table.add_row(*cells)
        console.print(table)


class _NeedsRich(Exception):
    """The plain writer cannot promise rich's exact output for this text."""


def _plain_ok(text: str) -> bool:
    """Text rich prints as it is: printable ASCII without markup tags, escapes or emoji codes."""
    if not (text.isascii() and text.isprintable()) or "\\" in text:
        return False
    if "[" in text or text.count(":") > 1:
        import re

        return re.search(r"\[(?![0-9]*\])|:\S*:", text) is None
    return True


def _plain_title(title: str, width: int) -> str:
    if len(title) > width or not _plain_ok(title):
        raise _NeedsRich
    return title.ljust(width)


def _plain_block(block: Block, width: int) -> list[str]:
    kind, title, columns, rows = block
    if kind == "keys":
        pairs = list(zip(columns, rows[0]))
        texts = [*columns, *rows[0]]
        if not all(_plain_ok(t) and t == t.strip() and "  " not in t for t in texts):
            raise _NeedsRich
        key_width = max(len(key) for key, _ in pairs)
        value_width = max(len(value) for _, value in pairs)
        total = key_width + value_width + 4
        if total > width or not value_width:
            raise _NeedsRich
        lines = [_plain_title(title, total)] if title else []
        lines.extend(f" {key.ljust(key_width)}  {value.ljust(value_width)} " for key, value in pairs)
        return lines
    if not all(_plain_ok(t) and t == t.strip() and "  " not in t for t in [*columns, *(c for r in rows for c in r)]):
        raise _NeedsRich
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    total = sum(widths) + 3 * len(columns) + 1
    edge = "+" + "-" * (total - 2) + "+"
    lines = [_plain_title(title, total), edge, "|" + "|".join(f" {c.ljust(w)} " for c, w in zip(columns, widths)) + "|",
             "|" + "+".join("-" * (w + 2) for w in widths) + "|"]
    lines.extend("|" + "|".join(f" {c.ljust(w)} " for c, w in zip(cells, widths)) + "|" for cells in rows)
    lines.append(edge)
    return lines


def plain_console_width(width: int | None) -> int | None:
    """The width rich would give a console writing to standard output, when that output is plain
    (not a terminal, no FORCE_COLOR / TTY_COMPATIBLE / TTY_INTERACTIVE); else None."""
    env = os.environ
    if os.name == "nt" or "FORCE_COLOR" in env or "TTY_COMPATIBLE" in env or "TTY_INTERACTIVE" in env:
        return None
    if "IPython" in sys.modules or "idlelib" in sys.modules:
        return None
    try:
        if sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    if width is not None:
        return width
    columns = env.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    found = None
    for descriptor in (0, 1, 2):  # as rich: the first standard stream that is a terminal
        try:
            found = os.get_terminal_size(descriptor)[0]
        except (AttributeError, ValueError, OSError):
            continue
        break
    return found or 80


def plain_lines(heading: str, summary: dict[str, Any], width: int) -> list[str] | None:
    """The lines rich prints for ``heading`` and ``summary`` on a plain console of ``width``
    columns, or None when only rich can say (see the module notes)."""
    if width < 20 or len(heading) > width or not _plain_ok(heading) or heading != heading.strip():
        return None
    lines = [heading]
    try:
        for block in blocks(summary, width):
            lines.extend(_plain_block(block, width))
    except _NeedsRich:
        return None
    return lines


def show_info(file: str, as_json: bool, width: int | None) -> None:
    """``shaderkit info``: the summary of ``file`` as JSON, plain text or rich text."""
    from shaderkit.cli.common import info_record, load_with_bytes

    data, model = load_with_bytes(file)
    record = info_record(data, model)
    if as_json:
        import json

        sys.stdout.write(json.dumps(record, indent=2) + "\n")
        sys.stdout.flush()
        return
    record.pop("schema_version")
    heading = f"{file} ({model.format_name})"
    plain_width = plain_console_width(width)
    lines = None if plain_width is None else plain_lines(heading, record, plain_width)
    if lines is not None:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
        return
    from rich.console import Console

    console = Console(width=width)
    console.print(heading, style="bold", markup=False, overflow="fold")
    render(record, console)

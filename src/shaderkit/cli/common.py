"""File I/O and small helpers shared by the commands (cli/ is the only place doing I/O)."""

from __future__ import annotations

import math
import os
import sys

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from shaderkit.formats.base import ShaderFile


def echo(line: str, err: bool = False) -> None:
    """``line`` and a newline on standard output (or error), flushed, as ``click.echo`` writes it:
    ANSI escape sequences are dropped when the stream is not a terminal."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in line and not stream.isatty():
        import re

        line = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", line)
    stream.write(line + "\n")
    stream.flush()


def read_input(path: str) -> bytes:
    """Bytes of ``path``; ``-`` reads standard input."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as handle:
        return handle.read()


def utf8_text(name: str, data: bytes) -> str:
    """``data`` (read from ``name``) as UTF-8 text; a usage error naming the file when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        import click

        raise click.UsageError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def write_output(path: str, data: bytes | str) -> None:
    """Write to ``path`` (``-`` is standard output), creating parent folders."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path == "-":
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        return
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(raw)


def load_model(path: str) -> ShaderFile:
    """Parse the file (or archive member ``outer.szs//inner/path``) at ``path``; errors name the path."""
    steps, data = member_steps(path)
    return parse_named(path, data, steps)


def member_steps(path: str) -> tuple[list[Any], bytes]:
    """(steps through the containers, bytes) of ``path`` as :func:`load_member` gives them; errors
    name the path."""
    from shaderkit.errors import ShaderFormatError

    try:
        return load_member(path)
    except ShaderFormatError as exc:
        raise exc.within(path) from None


def parse_named(path: str, data: bytes, steps: Sequence[Any] = ()) -> ShaderFile:
    """Parse ``data`` read from ``path``; errors name the path. ``steps`` (from :func:`load_member`):
    a member whose container gives a typed model for it (one that has no magic of its own, e.g. a
    Wii U BFSHA stage's microcode) opens as that model."""
    import shaderkit
    from shaderkit.errors import ShaderFormatError

    try:
        if steps:
            from shaderkit.formats.archive.path import open_member

            return open_member(list(steps), data)
        return shaderkit.open(data)
    except ShaderFormatError as exc:
        raise exc.within(path) from None


def load_member(path: str) -> tuple[list[Any], bytes]:
    """(steps through the containers, bytes) of ``path`` (:func:`shaderkit.files.read_member`;
    ``-`` is standard input)."""
    if "//" not in path:  # a plain file or "-": the archive code stays unloaded
        return [], read_input(path)
    from shaderkit.files import read_member

    return read_member(path)


def store_member(path: str, steps: list[Any], data: bytes) -> bytes:
    """The outermost file of ``path`` with ``data`` put back in place of its member."""
    from shaderkit.formats.archive.path import write_back

    return write_back(steps, data) if steps else data


def walk_paths(paths: tuple[str, ...]) -> list[Path]:
    """Files named, plus every file below each folder named (sorted, recursive)."""
    from pathlib import Path

    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file()))
        elif path.exists():
            found.append(path)
        else:
            import click

            raise click.BadParameter(f"{name}: no such file or folder", param_hint="PATH")
    return found


def load_with_bytes(path: str) -> tuple[bytes, Any]:
    """(bytes, model) of ``path`` (or archive member ``outer.szs//inner``); errors name the path."""
    steps, data = member_steps(path)
    return data, parse_named(path, data, steps)


def info_record(data: bytes, model: Any) -> dict[str, Any]:
    """The ``info --json`` object: ``schema_version`` first, then the model's summary, plus names
    other tools use (``3dmigoto_hash`` for DXBC). Documented in docs/json.md."""
    from shaderkit.schemas import SCHEMA_VERSION

    record: dict[str, Any] = {"schema_version": SCHEMA_VERSION, **model.summary()}
    if record.get("format") == "dxbc":
        from shaderkit.hashes import migoto_hash

        record["3dmigoto_hash"] = migoto_hash(data, record.get("shader_type"))
    return record


# -- run: inputs and outputs of the VMs (DXBC, D3D9) ---------------------------------------------


def parse_numbers(text: str, error: type[Exception] = ValueError, what: str = "--cbuffer") -> Any:
    """Comma-separated numbers (``1,2.5,0x10``: ints where written as ints) as an array, one value
    as a scalar; ``error`` (the VM's error class) for anything else."""
    import numpy as np

    try:
        values = [float(v) if any(c in v for c in ".eEn") else int(v, 0) for v in text.split(",") if v.strip()]
    except ValueError:
        raise error(f"{what} value {text!r}: expected comma-separated numbers") from None
    return np.array(values if len(values) != 1 else values[0])


def read_input_arrays(path: str, error: type[Exception] = ValueError,
                      split: Callable[[Any], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Input arrays by name from ``.json`` (an object of arrays), ``.npz``, ``.csv`` (``NAME`` or
    ``NAME.x`` columns) or, given ``split`` (one array -> arrays by name), ``.npy``; problems
    raise ``error`` (the VM's error class)."""
    import io
    import json

    import numpy as np

    raw = read_input(path)
    lower = path.lower()
    try:
        if lower.endswith(".json"):
            table = json.loads(raw.decode("utf-8"))
            if not isinstance(table, dict):
                raise error(f"{path}: expected a JSON object of input arrays")
            return {str(k): np.asarray(v) for k, v in table.items()}
        if lower.endswith(".npz"):
            with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
                return {k: archive[k] for k in archive.files}
        if lower.endswith(".npy") and split is not None:
            return split(np.load(io.BytesIO(raw), allow_pickle=False))
        if lower.endswith(".csv"):
            return _csv_columns(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{path}: {exc}") from None
    kinds = ".json, .npz, .npy or .csv" if split is not None else ".json, .npz or .csv (named by semantic or register)"
    raise error(f"{path}: inputs must be {kinds}")


def load_npy(path: str) -> Any:
    """The array of the ``.npy`` file at ``path`` (``-``: standard input), no pickles."""
    import io

    import numpy as np

    return np.load(io.BytesIO(read_input(path)), allow_pickle=False)


def texture_options(texts: Sequence[str]) -> list[tuple[str, Any]]:
    """(key, array) of each ``--texture KEY=FILE.npy`` option, the key stripped (each VM checks
    its own key form); a ClickException names the option that does not read."""
    import click

    out = []
    for text in texts:
        key, sep, path = text.partition("=")
        if not sep or not key.strip():
            raise click.ClickException(f"--texture {text!r}: expected ID=FILE.npy")
        try:
            out.append((key.strip(), load_npy(path)))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"--texture {text!r}: {exc}") from None
    return out


def _csv_columns(text: str) -> dict[str, Any]:
    import csv
    import io

    import numpy as np

    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return {}
    header, body = rows[0], [r for r in rows[1:] if r]
    columns: dict[str, list[int]] = {}
    for i, name in enumerate(header):
        columns.setdefault(name.strip().split(".")[0], []).append(i)
    values = np.array([[float(v) for v in row] for row in body], dtype=np.float64).reshape(len(body), len(header))
    return {name: values[:, idx].astype(np.float32) for name, idx in columns.items()}


def json_number(value: float) -> float | str:
    """``value`` for JSON: finite numbers as they are, NaN and infinities as "nan", "inf", "-inf"."""
    return value if math.isfinite(value) else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))


def json_rows(array: Any) -> list[Any]:
    """Nested lists of a float array's values for JSON (each value as :func:`json_number` gives
    it), any number of axes."""
    return [json_rows(row) if getattr(row, "ndim", 0) else json_number(float(row)) for row in array]


def json_values(array: Any) -> Any:
    """An array's values for strict JSON: floats as :func:`json_rows` gives them, other values as
    ``tolist`` gives them."""
    import numpy as np

    array = np.asarray(array)
    if array.dtype.kind != "f" or np.isfinite(array).all():
        return array.tolist()
    return json_rows(array) if array.ndim else json_number(float(array))


def encode_results(results: dict[str, Any], output: str) -> bytes | str:
    """Run results (arrays by name) for ``output``: ``.npz`` arrays, ``.csv`` (``NAME.x``
    columns, one row per lane) or JSON (anything else, ``-`` too)."""
    import io
    import json

    import numpy as np

    lower = output.lower()
    if lower.endswith(".npz"):
        buffer = io.BytesIO()
        arrays: dict[str, Any] = {k: np.asarray(v) for k, v in results.items()}
        np.savez(buffer, **arrays)
        return buffer.getvalue()
    if lower.endswith(".csv"):
        names, columns = [], []
        for key, value in results.items():
            array = np.asarray(value)
            array = array.reshape(len(array), -1)
            for c in range(array.shape[1]):
                names.append(f"{key}.{'xyzw'[c]}" if array.shape[1] > 1 and c < 4 else key if array.shape[1] == 1 else f"{key}.{c}")
                columns.append(array[:, c])
        lines = [",".join(names)]
        length = max((len(c) for c in columns), default=0)
        for row in range(length):
            lines.append(",".join(_scalar(c[row]) if row < len(c) else "" for c in columns))
        return "\n".join(lines) + "\n"
    return json.dumps({k: json_values(v) for k, v in results.items()}, indent=1, allow_nan=False) + "\n"


def _scalar(value: Any) -> str:
    if isinstance(value, (bool,)) or getattr(value, "dtype", None) is not None and value.dtype == bool:
        return "1" if value else "0"
    if getattr(value, "dtype", None) is not None and value.dtype.kind == "f":
        return repr(float(value))
    return str(int(value))

"""JSON Schemas of ``shaderkit info --json`` (see docs/json.md); one file per format id."""

from __future__ import annotations

TYPE_CHECKING = False  # (typing, json and importlib.resources load only when a schema is read)
if TYPE_CHECKING:
    from typing import Any

#: bumped when a key changes meaning or type or goes away (adding an optional key does not bump it)
SCHEMA_VERSION = 2


def schema_names() -> list[str]:
    """Format ids that have a schema file of their own (plus "identified" and "generic")."""
    from importlib import resources

    return sorted(
        entry.name.removesuffix(".schema.json")
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(".schema.json")
    )


_LOADED: dict[str, dict[str, Any]] = {}


def _load(name: str) -> dict[str, Any]:
    if name in _LOADED:
        return _LOADED[name]
    import json
    from importlib import resources

    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    _LOADED[name] = schema
    return schema


def schema_for(summary: dict[str, Any]) -> dict[str, Any]:
    """The schema an ``info --json`` object follows: by its ``format`` id, "identified" for files
    recognised but not read, else the generic one (schema_version and format only)."""
    if summary.get("supported") is False:
        return _load("identified")
    name = str(summary.get("format", ""))
    return _load(name) if name in schema_names() else _load("generic")

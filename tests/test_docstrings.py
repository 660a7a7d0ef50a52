"""Every public name of shaderkit has a real docstring.

The public API is walked from the package itself: every module whose dotted name has no part
starting with ``_``; in each, the names in ``__all__`` (or, without one, the names not starting
with ``_`` that the module defines itself) that are classes or functions; in each such class, the
methods, class/static methods and properties it defines whose names do not start with ``_``.
A method that overrides a documented method of a base class inherits that documentation.

A docstring is a placeholder when it is missing, shorter than 10 characters, says TODO/FIXME/XXX,
only repeats the name, or is the text Python writes for undocumented dataclasses, named tuples and
enums (``Name(field: type, ...)``, ``An enumeration.``).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import shaderkit
from shaderkit._native import PURE_ENV, compiled_in_use

MIN_LENGTH = 10
_PLACEHOLDER = re.compile(r"^\s*(todo|fixme|xxx|tbd|docstring|\.\.\.)\b", re.IGNORECASE)


#: optional dependencies: a module needing one that is not installed is left out of the walk
OPTIONAL = frozenset({"pygments", "zstandard", "numpy", "oead"})


def public_modules() -> list[ModuleType]:
    """shaderkit and every submodule whose dotted name has no ``_`` part."""
    names = ["shaderkit"] + sorted(
        info.name for info in pkgutil.walk_packages(shaderkit.__path__, "shaderkit.")
        if not any(part.startswith("_") for part in info.name.split("."))
    )
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in OPTIONAL:
                raise
    return modules


def _module_names(module: ModuleType) -> list[str]:
    exported = getattr(module, "__all__", None)
    if exported is not None:
        return [name for name in exported if not name.startswith("_")]
    return [name for name, value in vars(module).items() if not name.startswith("_")
            and getattr(value, "__module__", None) == module.__name__]


def _unwrap(member: Any) -> Any:
    if isinstance(member, (classmethod, staticmethod)):
        return member.__func__
    if isinstance(member, property):
        return member.fget
    return member


def _own_doc(cls: type) -> str | None:
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str):
        return None
    if doc.startswith(cls.__name__ + "(") or (issubclass(cls, enum.Enum) and doc.strip() == "An enumeration."):
        return None  # written by @dataclass / NamedTuple / Enum, not by a person
    return doc


def _method_doc(cls: type, name: str) -> str | None:
    """The docstring of ``cls.name``, or of the first base class (MRO order) documenting ``name``."""
    for klass in cls.__mro__:
        member = _unwrap(klass.__dict__.get(name))
        doc = getattr(member, "__doc__", None) if member is not None else None
        if isinstance(doc, str) and doc.strip():
            return doc
    return None


def public_api() -> Iterator[tuple[str, str | None]]:
    """(dotted name, docstring or None) for every public module, class, function and method."""
    for module in public_modules():
        yield module.__name__, module.__doc__
        for name in _module_names(module):
            value = getattr(module, name, None)
            if inspect.isclass(value):
                if value.__module__ != module.__name__ and getattr(module, "__all__", None) is not None:
                    continue  # re-exported: checked where it is defined
                yield f"{module.__name__}.{name}", _own_doc(value)
                for attr, member in vars(value).items():
                    if attr.startswith("_") or not (inspect.isfunction(_unwrap(member))):
                        continue
                    yield f"{module.__name__}.{name}.{attr}", _method_doc(value, attr)
            elif inspect.isfunction(value):
                if value.__module__ != module.__name__:
                    continue
                yield f"{module.__name__}.{name}", value.__doc__


def is_placeholder(name: str, doc: str | None) -> bool:
    """True when ``doc`` does not describe ``name`` (see the module docstring)."""
    if doc is None:
        return True
    text = inspect.cleandoc(doc).strip()
    short = name.rsplit(".", 1)[-1]
    return (len(text) < MIN_LENGTH or bool(_PLACEHOLDER.match(text))
            or text.rstrip(".").strip("`").lower() in (short.lower(), short.replace("_", " ").lower()))


def test_placeholder_rule() -> None:
    assert is_placeholder("m.f", None)
    assert is_placeholder("m.f", "TODO: write")
    assert is_placeholder("m.read_words", "Read words.")
    assert is_placeholder("m.f", "   ")
    assert not is_placeholder("m.f", "The byte offset of the first instruction.")

    @__import__("dataclasses").dataclass
    class Point:
        x: int

    assert _own_doc(Point) is None


def test_every_public_name_has_a_docstring() -> None:
    if compiled_in_use():  # mypyc keeps no module or class docstrings, and its functions are builtins:
        # the walk reads the source modules, in a process that loads them
        result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                 f"{__file__}::test_every_public_name_has_a_docstring"],
                                env={**os.environ, PURE_ENV: "1"}, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout[-4000:]
        return
    api = list(public_api())
    missing = [name for name, doc in api if is_placeholder(name, doc)]
    assert len(api) > 500  # the walk found the package
    assert not missing, f"{len(missing)} of {len(api)} public names lack a real docstring:\n" + "\n".join(missing)

"""The compiled build (mypyc, see shaderkit._native): loaded only when built from the current
sources, and printing exactly what the source modules print."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, SourceFileLoader
from pathlib import Path

import pytest

from shaderkit import _native
from shaderkit._native import (
    COMPILED_AGAINST,
    NATIVE,
    PURE_ENV,
    SourceWhenStale,
    compiled_is_current,
    library_name,
    pure_requested,
    source_path,
)


def _copy_sources(target: Path) -> None:
    for module in NATIVE + COMPILED_AGAINST:
        dest = Path(source_path(module, str(target)))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path(module), dest)


def test_library_name_changes_with_any_source_byte(tmp_path: Path) -> None:
    _copy_sources(tmp_path)
    name = library_name(str(tmp_path))
    assert name == library_name() and name.startswith("shaderkit_native_")
    for module in (NATIVE[0], NATIVE[-1], COMPILED_AGAINST[0], "shaderkit.isa.sm4.model"):
        path = Path(source_path(module, str(tmp_path)))
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert library_name(str(tmp_path)) != name
        path.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
        assert library_name(str(tmp_path)) != name
        path.write_bytes(original)
    assert library_name(str(tmp_path)) == name


def test_every_native_module_has_its_source() -> None:
    assert len(set(NATIVE + COMPILED_AGAINST)) == len(NATIVE) + len(COMPILED_AGAINST)
    for module in NATIVE + COMPILED_AGAINST:
        assert module.startswith("shaderkit.") and os.path.isfile(source_path(module)), module


def _module_level_imports(module: str) -> set[str]:
    """The shaderkit modules (not packages) ``module`` imports in its top-level statements."""
    found = set()
    for node in ast.parse(Path(source_path(module)).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("shaderkit"):
            found.add(node.module or "")
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("shaderkit"))
    return {name for name in found if os.path.isfile(source_path(name))}


def test_no_native_module_defines_a_module_getattr() -> None:
    """mypyc's module initialisation calls a module-level ``__getattr__`` before the module's
    globals exist: the import crashed the process (dcl.PATTERNS was one; now dcl.patterns())."""
    for module in NATIVE:
        tree = ast.parse(Path(source_path(module)).read_text(encoding="utf-8"))
        assert not [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"], module


def test_compiled_against_lists_every_module_level_import() -> None:
    """COMPILED_AGAINST is the closure of the NATIVE modules' top-level imports, nothing more."""
    seen: set[str] = set()
    todo = list(NATIVE)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_module_level_imports(module))
    assert sorted(seen - set(NATIVE)) == sorted(COMPILED_AGAINST)


def test_a_stale_build_loads_every_module_from_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A package folder holding text.py, and a compiled text module (a file of that name: the
    finder only looks for it) beside it where the test says so."""
    (tmp_path / "text.py").write_text("")
    (tmp_path / "model.py").write_text("")
    path = [str(tmp_path)]
    monkeypatch.setattr(_native, "_current", False)
    assert SourceWhenStale.find_spec("shaderkit.isa.sm4.text", path) is None  # (no compiled module: not ours)
    for name in ("text", "model"):
        (tmp_path / f"{name}{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    spec = SourceWhenStale.find_spec("shaderkit.isa.sm4.text", path)
    assert spec is not None and isinstance(spec.loader, SourceFileLoader)
    assert spec.origin == str(tmp_path / "text.py")
    assert SourceWhenStale.find_spec("shaderkit.isa.sm4.model", path) is None  # (not NATIVE)
    assert SourceWhenStale.find_spec("shaderkit.isa.sm4.text", None) is None  # (top level: not ours)
    monkeypatch.setattr(_native, "_current", True)  # a current build: the standard finders load it
    assert SourceWhenStale.find_spec("shaderkit.isa.sm4.text", path) is None


def test_the_finder_is_first_and_installed_once() -> None:
    assert sys.meta_path.count(SourceWhenStale) == 1  # type: ignore[arg-type]
    assert sys.meta_path.index(SourceWhenStale) < next(  # type: ignore[arg-type]
        i for i, finder in enumerate(sys.meta_path) if getattr(finder, "__name__", "") == "PathFinder")


def _run(code: str, pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_what_asks_for_source() -> None:
    assert all(pure_requested({PURE_ENV: value}) for value in ("1", "true", "YES"))
    assert not any(pure_requested(env) for env in ({}, {PURE_ENV: "0"}, {PURE_ENV: ""}, {"OTHER": "1"}))


def test_the_environment_asks_for_source() -> None:
    code = ("import shaderkit._native as n, shaderkit.isa.sm4.printer as p, shaderkit.formats.dvlb.source as s;"
            "print(n.compiled_is_current(), p.__file__, s.__file__)")
    current, printer, source = _run(code, pure=True).split()
    assert current == "False" and printer.endswith("printer.py") and source.endswith("source.py")
    current, printer, _ = _run(code, pure=False).split()
    assert current == str(compiled_is_current())
    assert printer.endswith(".py") != compiled_is_current()


@pytest.mark.skipif(not compiled_is_current(), reason="no compiled build of the current sources (a pure install)")
def test_compiled_modules_print_what_the_source_prints(corpus: Path, tmp_path: Path) -> None:
    """Every corpus DXBC and PICA200 listing, compiled against source: the same bytes."""
    for mode in ("compiled", "source"):
        env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
        if mode == "source":
            env[PURE_ENV] = "1"
        for folder in ("dxbc", "pica"):
            subprocess.run([sys.executable, "-m", "shaderkit", "disasm", "-o", str(tmp_path / mode / folder),
                            str(corpus / folder)], env=env, capture_output=True, check=False)
    compiled = sorted(p.relative_to(tmp_path / "compiled") for p in (tmp_path / "compiled").rglob("*") if p.is_file())
    source = sorted(p.relative_to(tmp_path / "source") for p in (tmp_path / "source").rglob("*") if p.is_file())
    assert compiled == source and len(compiled) > 400
    differing = [str(p) for p in compiled
                 if (tmp_path / "compiled" / p).read_bytes() != (tmp_path / "source" / p).read_bytes()]
    assert not differing

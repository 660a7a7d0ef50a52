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
    MANIFEST,
    NATIVE,
    PURE_ENV,
    SourceWhenStale,
    build_is_current,
    compiled_against,
    compiled_in_use,
    library_name,
    pure_requested,
    source_path,
    source_stamps,
)


def test_library_name_changes_with_any_source_byte(tmp_path: Path) -> None:
    modules = ["shaderkit.isa.sm4.text", "shaderkit.isa.sm4.model"]
    for module in modules:
        dest = Path(source_path(module, str(tmp_path)))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path(module), dest)
    name = library_name(modules, str(tmp_path))
    assert name == library_name(modules) and name.startswith("shaderkit_native_")
    assert library_name(modules[::-1], str(tmp_path)) != name
    for module in modules:
        path = Path(source_path(module, str(tmp_path)))
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert library_name(modules, str(tmp_path)) != name
        path.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
        assert library_name(modules, str(tmp_path)) != name
        path.write_bytes(original)
    assert library_name(modules, str(tmp_path)) == name


def test_every_native_module_has_its_source() -> None:
    assert len(set(NATIVE)) == len(NATIVE)
    for module in NATIVE:
        assert module.startswith("shaderkit.") and os.path.isfile(source_path(module)), module


def test_compiled_against_follows_imports_at_every_level() -> None:
    against = compiled_against()
    assert len(set(against)) == len(against) and against[:len(NATIVE) + 1] == ["shaderkit._native", *NATIVE]
    assert all(os.path.isfile(source_path(module)) for module in against)
    assert "shaderkit.isa.sm4.model" in against  # (module level, in decode.py)
    assert "shaderkit.isa.sm4.encode" in against  # (in a function of text.py)
    assert "shaderkit.isa.pica.assembler" in against  # (in functions of formats/dvlb/source.py)
    assert "shaderkit.io.reader" in against  # (imported by an imported module: formats/dvlb/dvlb.py)


def test_an_editable_build_is_current_until_a_recorded_source_changes(tmp_path: Path) -> None:
    """``shaderkit.a``/``shaderkit.b`` in a package folder of their own, with and without a manifest."""
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 2\n")
    folder, manifest = str(tmp_path), tmp_path / MANIFEST
    assert build_is_current(folder)  # no manifest: a wheel
    stamps = source_stamps(["shaderkit.a", "shaderkit.b"], folder)
    assert [line.split()[:2] for line in stamps] == [["shaderkit.a", "6"], ["shaderkit.b", "6"]]
    manifest.write_text("\n".join(stamps) + "\n")
    assert build_is_current(folder)
    stat = os.stat(tmp_path / "b.py")
    (tmp_path / "b.py").write_text("B = 3\n")  # an edit of the same size
    os.utime(tmp_path / "b.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert not build_is_current(folder)
    os.utime(tmp_path / "b.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # (the same stamp: taken as unchanged)
    assert build_is_current(folder)
    (tmp_path / "a.py").unlink()
    assert not build_is_current(folder)  # a recorded module gone
    for text in ("", "\n", "shaderkit.b 6\n"):
        manifest.write_text(text)
        assert not build_is_current(folder), text


def test_no_native_module_defines_a_module_getattr() -> None:
    """mypyc's module initialisation calls a module-level ``__getattr__`` before the module's
    globals exist: the import crashed the process (dcl.PATTERNS was one; now dcl.patterns())."""
    for module in NATIVE:
        tree = ast.parse(Path(source_path(module)).read_text(encoding="utf-8"))
        assert not [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"], module


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


def _env(pure: bool) -> dict[str, str]:
    """This process's environment, asking for the source modules or not."""
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    return env


def _run(code: str, pure: bool) -> str:
    return subprocess.run([sys.executable, "-c", code], env=_env(pure), capture_output=True, text=True,
                          check=True).stdout


def test_what_asks_for_source() -> None:
    assert all(pure_requested({PURE_ENV: value}) for value in ("1", "true", "YES"))
    assert not any(pure_requested(env) for env in ({}, {PURE_ENV: "0"}, {PURE_ENV: ""}, {"OTHER": "1"}))


def test_the_environment_asks_for_source() -> None:
    code = ("import shaderkit._native as n, shaderkit.isa.sm4.printer as p, shaderkit.formats.dvlb.source as s;"
            "print(n.compiled_in_use(), p.__file__, s.__file__)")
    current, printer, source = _run(code, pure=True).split()
    assert current == "False" and printer.endswith("printer.py") and source.endswith("source.py")


@pytest.mark.skipif(not compiled_in_use(), reason="no compiled build of the current sources (a pure install)")
def test_compiled_modules_print_what_the_source_prints(corpus: Path, tmp_path: Path) -> None:
    """Every corpus DXBC and PICA200 listing, compiled against source: the same bytes (and the
    compiled run did load every NATIVE module compiled)."""
    code = f"import importlib; print(*(importlib.import_module(m).__file__ for m in {NATIVE!r}))"
    assert not any(path.endswith(".py") for path in _run(code, pure=False).split())
    assert all(path.endswith(".py") for path in _run(code, pure=True).split())
    for mode in ("compiled", "source"):
        for folder in ("dxbc", "pica"):
            subprocess.run([sys.executable, "-m", "shaderkit", "disasm", "-o", str(tmp_path / mode / folder),
                            str(corpus / folder)], env=_env(mode == "source"), capture_output=True, check=True)
    compiled = sorted(p.relative_to(tmp_path / "compiled") for p in (tmp_path / "compiled").rglob("*") if p.is_file())
    source = sorted(p.relative_to(tmp_path / "source") for p in (tmp_path / "source").rglob("*") if p.is_file())
    assert compiled == source and len(compiled) > 400
    differing = [str(p) for p in compiled
                 if (tmp_path / "compiled" / p).read_bytes() != (tmp_path / "source" / p).read_bytes()]
    assert not differing

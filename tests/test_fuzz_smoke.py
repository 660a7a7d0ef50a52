"""Bounded run of tools/fuzz.py over every format: only ShaderFormatError, no hangs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT, corpus_root

SMOKE_CASES = 10_000


def load_fuzzer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("shaderkit_fuzz", REPO_ROOT / "tools" / "fuzz.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["shaderkit_fuzz"] = module
    spec.loader.exec_module(module)
    return module


def test_fuzz_smoke_run_finds_no_foreign_exceptions() -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    fuzz = load_fuzzer()
    seeds = fuzz.load_seeds(Path(root), max_size=1 << 15)
    assert {name.split("/")[0] for name, _ in seeds} >= {"dxbc"}
    report = fuzz.fuzz(seeds, cases=SMOKE_CASES, seconds=None, seed=20261121, case_timeout=10.0)
    assert report["cases"] == SMOKE_CASES
    assert report["foreign_exceptions"] == {}, report["foreign_exceptions"]
    assert report["hangs"] == [], report["hangs"]


def test_mutators_change_data_deterministically() -> None:
    fuzz = load_fuzzer()
    import random

    data = bytes(range(64))
    for name, mutate in fuzz.MUTATORS.items():
        first = mutate(random.Random(5), data, data[::-1])
        again = mutate(random.Random(5), data, data[::-1])
        assert first == again, name


def test_text_fuzz_smoke_run_finds_no_foreign_exceptions() -> None:
    """Bounded run of tools/fuzz_text.py: mutated listings and sources give AssemblyError (or
    another ShaderkitError) or assemble, never a foreign exception."""
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    spec = importlib.util.spec_from_file_location("shaderkit_fuzz_text", REPO_ROOT / "tools" / "fuzz_text.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    sys.modules["shaderkit_fuzz_text"] = tool
    spec.loader.exec_module(tool)
    jobs = tool.seed_jobs(Path(root), tool.SYNTAXES, every=30)
    assert {job.syntax for job in jobs} >= {"sm4", "pica", "latte"}
    report = tool.fuzz(jobs, cases=600, seconds=None, seed=20261123, save_dir=None)
    assert report["cases"] == 600
    assert report["foreign_exceptions"] == {}, report["foreign_exceptions"]
    rejected = sum(c["rejected"] for c in report["per_syntax"].values())
    assert rejected > 100  # the mutants really reach the assemblers' error paths

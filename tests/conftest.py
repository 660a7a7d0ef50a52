"""Shared fixtures: where the real-file corpus lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def corpus_root() -> Path | None:
    """``$SHADERKIT_CORPUS``, else ``../shared/corpus`` beside the checkout; None if absent."""
    env = os.environ.get("SHADERKIT_CORPUS")
    root = Path(env) if env else REPO_ROOT.parent / "shared" / "corpus"
    return root if root.is_dir() else None


def corpus_files(folder: str, pattern: str) -> list[Path]:
    root = corpus_root()
    if root is None:
        return []
    return sorted((root / folder).glob(pattern))


def corpus_params(folder: str, pattern: str) -> list:
    """pytest params over corpus files (ids are file names); one skipped param when absent."""
    files = corpus_files(folder, pattern)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"corpus {folder}/{pattern} not found (set SHADERKIT_CORPUS)"))]
    return [pytest.param(f, id=f.name) for f in files]


@pytest.fixture
def corpus() -> Path:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found: set SHADERKIT_CORPUS or place it at ../shared/corpus")
    return root


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``shaderkit ARGV`` run in this process."""
    from shaderkit.cli import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err

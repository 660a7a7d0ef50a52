"""Where benchmarks find the corpus (same rule as the tests)."""

from __future__ import annotations

import os
from pathlib import Path


def corpus_root() -> Path:
    env = os.environ.get("SHADERKIT_CORPUS")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    if not root.is_dir():
        raise SystemExit(f"corpus not found at {root}; set SHADERKIT_CORPUS")
    return root

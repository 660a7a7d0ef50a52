"""Models print compactly: a REPL user sees the class and the headline numbers, not a 70 KB dump."""

from __future__ import annotations

from pathlib import Path

import shaderkit
from shaderkit.errors import ShaderFormatError


def test_every_corpus_model_repr_is_short(corpus: Path) -> None:
    checked = 0
    for path in sorted(p for p in corpus.glob("*/*") if p.is_file() and p.stat().st_size < 4 << 20):
        try:
            model = shaderkit.open(path.read_bytes())
        except ShaderFormatError:
            continue
        text = repr(model)
        assert len(text) <= 300 and type(model).__name__ in text, (path.name, text[:120])
        checked += 1
    assert checked > 400

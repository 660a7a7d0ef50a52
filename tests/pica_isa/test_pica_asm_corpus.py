"""Our assembler on the corpus sources: byte-identical to picasso's output where picasso was."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import corpus_root
from shaderkit.formats.dvlb.build import assemble_sources


def _rows(check: str) -> list:
    root = corpus_root()
    manifest = root / "pica" / "MANIFEST.tsv" if root else None
    if manifest is None or not manifest.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason="corpus pica/MANIFEST.tsv not found"))]
    with open(manifest, newline="") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if check in r["assembler_check"]]
    return [pytest.param(r, id=r["file"]) for r in rows]


def _sources(row: dict) -> list[tuple[str, str]]:
    folder = Path(str(corpus_root())) / "pica"
    names = [item.split("<=")[0] for item in row["sources"].split(";") if item]
    return [(name, (folder / name).read_text()) for name in names]


PICASSO_ROWS = _rows("picasso v2.7.1+")


def test_manifest_lists_fifteen_picasso_exact_files() -> None:
    if corpus_root() is None:
        pytest.skip("corpus not found")
    assert len(PICASSO_ROWS) == 15


@pytest.mark.parametrize("row", PICASSO_ROWS)
def test_asm_matches_picasso_bytes(row: dict) -> None:
    want = (Path(str(corpus_root())) / "pica" / row["file"]).read_bytes()
    assert assemble_sources(_sources(row)) == want

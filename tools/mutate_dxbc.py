#!/usr/bin/env python3
"""Mutation round-trip check for DXBC: every mutant the parser accepts must rebuild byte for byte.

Each mutant overwrites one 4-aligned u32 of a real file with 0, 1, 0x7FFFFFFF, 0xFFFFFFFF or the
file length. Offsets are every aligned word (``--all``) or ``--per-file`` words picked by a
generator seeded with the file name (deterministic). Rejected mutants must raise
ShaderFormatError; anything else is a foreign exception. Prints one JSON report.

    python tools/mutate_dxbc.py [--corpus DIR] [--per-file 16 | --all] [--show 10]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def mutation_values(data: bytes) -> tuple[int, ...]:
    return (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data) & 0xFFFFFFFF)


def word_offsets(name: str, data: bytes, per_file: int | None) -> list[int]:
    """Aligned offsets to mutate: all of them, or ``per_file`` picked deterministically from ``name``."""
    offsets = list(range(0, len(data) - 3, 4))
    if per_file is None or per_file >= len(offsets):
        return offsets
    return sorted(random.Random(name).sample(offsets, per_file))


def mutants(name: str, data: bytes, per_file: int | None) -> Iterator[tuple[int, int, bytes]]:
    """(offset, value, mutated bytes) for one file; mutants equal to the input are skipped."""
    for offset in word_offsets(name, data, per_file):
        for value in mutation_values(data):
            mutated = bytearray(data)
            struct.pack_into("<I", mutated, offset, value)
            if mutated != data:
                yield offset, value, bytes(mutated)


def check(data: bytes) -> str:
    """``rejected``, ``exact`` or ``different`` (raises anything but ShaderFormatError)."""
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.container import DxbcContainer

    try:
        model = DxbcContainer.from_bytes(data)
    except ShaderFormatError:
        return "rejected"
    return "exact" if model.to_bytes() == data else "different"


def run(files: list[Path], per_file: int | None, show: int = 10) -> dict[str, Any]:
    counts = {"mutants": 0, "rejected": 0, "accepted": 0, "rebuilt_exactly": 0}
    different: list[dict[str, Any]] = []
    foreign: list[dict[str, Any]] = []
    start = time.perf_counter()
    for path in files:
        data = path.read_bytes()
        for offset, value, mutated in mutants(path.name, data, per_file):
            counts["mutants"] += 1
            try:
                outcome = check(mutated)
            except Exception as exc:  # noqa: BLE001 - every foreign exception is a finding
                foreign.append({"file": path.name, "offset": offset, "value": value,
                                "error": f"{type(exc).__name__}: {exc}"[:200]})
                continue
            if outcome == "rejected":
                counts["rejected"] += 1
                continue
            counts["accepted"] += 1
            if outcome == "exact":
                counts["rebuilt_exactly"] += 1
            else:
                different.append({"file": path.name, "offset": offset, "value": value})
    return {
        "files": len(files),
        "per_file": per_file if per_file is not None else "all",
        **counts,
        "not_exact": len(different),
        "foreign_exceptions": len(foreign),
        "seconds": round(time.perf_counter() - start, 1),
        "examples_not_exact": different[:show],
        "examples_foreign": foreign[:show],
    }


def main(argv: list[str] | None = None) -> int:
    default_corpus = os.environ.get("SHADERKIT_CORPUS", str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=default_corpus)
    parser.add_argument("--per-file", type=int, default=16, help="aligned words mutated per file")
    parser.add_argument("--all", action="store_true", help="mutate every aligned word (slow)")
    parser.add_argument("--show", type=int, default=10, help="examples of failures to print")
    args = parser.parse_args(argv)
    files = sorted((Path(args.corpus) / "dxbc").glob("*.dxbc"))
    if not files:
        print(json.dumps({"error": f"no .dxbc files under {args.corpus}/dxbc"}))
        return 2
    report = run(files, None if args.all else args.per_file, args.show)
    print(json.dumps(report, indent=2))
    return 0 if report["not_exact"] == 0 and report["foreign_exceptions"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

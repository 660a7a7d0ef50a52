#!/usr/bin/env python3
"""Mutation round-trip check for every format: each mutant the parser accepts must rebuild byte for byte.

A mutant overwrites one 4-aligned u32 of a real file with 0, 1, 0x7FFFFFFF, 0xFFFFFFFF or the file
length, in the file's own byte order and in the other (values equal to the stored word are skipped).
Offsets are every aligned word (``--all``) or ``--per-file`` words picked by a generator seeded with the
file name (deterministic). A rejected mutant must raise ShaderFormatError; anything else is a foreign
exception. Prints one JSON report with counts per format and exits 1 on any failure.

    python tools/mutate.py [--corpus DIR] [--folder dxbc|pica|nx|wiiu ...] [--per-file 16 | --all]
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

FOLDERS = ("dxbc", "pica", "nx", "wiiu")
#: the largest file mutated (bigger ones, such as the SZS archive, would take minutes each)
MAX_SIZE = 1 << 18


def corpus_files(corpus: Path, folders: tuple[str, ...] = FOLDERS) -> list[tuple[str, bytes]]:
    """(folder/name, bytes) of every corpus file some format claims."""
    import shaderkit

    found = []
    for folder in folders:
        for path in sorted((corpus / folder).glob("*")):
            if not path.is_file() or path.stat().st_size > MAX_SIZE:
                continue
            data = path.read_bytes()
            if shaderkit.detect(data) is not None:
                found.append((f"{folder}/{path.name}", data))
    return found


def word_offsets(name: str, data: bytes, per_file: int | None) -> list[int]:
    """Aligned offsets to mutate: all of them, or ``per_file`` picked deterministically from ``name``."""
    offsets = list(range(0, len(data) - 3, 4))
    if per_file is None or per_file >= len(offsets):
        return offsets
    return sorted(random.Random(name).sample(offsets, per_file))


def mutants(name: str, data: bytes, per_file: int | None) -> Iterator[tuple[int, int, bytes]]:
    """(offset, value, mutant) for the chosen words; every special value in both byte orders."""
    values = dict.fromkeys((0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data) & 0xFFFFFFFF))
    buf = bytearray(data)
    for offset in word_offsets(name, data, per_file):
        old = bytes(data[offset : offset + 4])
        for value in values:
            for order in ("<", ">"):
                word = struct.pack(order + "I", value)
                if word == old or (order == ">" and word == struct.pack("<I", value)):
                    continue
                buf[offset : offset + 4] = word
                yield offset, value, bytes(buf)
        buf[offset : offset + 4] = old


def check(data: bytes) -> tuple[str, str]:
    """(format name or '', outcome): outcome 'rejected', 'exact' or 'different'. Other exceptions
    propagate: they are findings."""
    import shaderkit
    from shaderkit.errors import ShaderFormatError

    try:
        model = shaderkit.open(data)
    except ShaderFormatError:
        return "", "rejected"
    return model.format_name, "exact" if model.to_bytes() == data else "different"


def run(files: list[tuple[str, bytes]], per_file: int | None, show: int = 10) -> dict[str, Any]:
    by_format: dict[str, dict[str, int]] = {}
    rejected = 0
    different: list[dict[str, Any]] = []
    foreign: list[dict[str, Any]] = []
    start = time.perf_counter()
    for name, data in files:
        for offset, value, mutant in mutants(name, data, per_file):
            try:
                fmt, outcome = check(mutant)
            except Exception as exc:  # noqa: BLE001 - every foreign exception is a finding
                foreign.append({"file": name, "offset": offset, "value": value,
                                "error": f"{type(exc).__name__}: {exc}"[:200]})
                continue
            if outcome == "rejected":
                rejected += 1
                continue
            counts = by_format.setdefault(fmt, {"accepted": 0, "rebuilt_exactly": 0})
            counts["accepted"] += 1
            if outcome == "exact":
                counts["rebuilt_exactly"] += 1
            else:
                different.append({"file": name, "offset": offset, "value": value})
    return {
        "files": len(files),
        "per_file": per_file if per_file is not None else "all",
        "rejected": rejected,
        "accepted_by_format": by_format,
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
    parser.add_argument("--folder", action="append", choices=FOLDERS, help="corpus folders (default: all)")
    parser.add_argument("--per-file", type=int, default=16, help="aligned words mutated per file")
    parser.add_argument("--all", action="store_true", help="mutate every aligned word (slow)")
    parser.add_argument("--show", type=int, default=10, help="examples of failures to print")
    args = parser.parse_args(argv)
    files = corpus_files(Path(args.corpus), tuple(args.folder or FOLDERS))
    if not files:
        print(json.dumps({"error": f"no shader files under {args.corpus}"}))
        return 2
    report = run(files, None if args.all else args.per_file, args.show)
    print(json.dumps(report, indent=2))
    return 0 if report["not_exact"] == 0 and report["foreign_exceptions"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

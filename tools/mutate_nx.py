#!/usr/bin/env python3
"""Mutation test for Switch shader files (BNSH and raw NVN program blobs).

Every aligned u32 of every corpus file under nx/ is overwritten in turn with 0, 1, 0x7FFFFFFF,
0xFFFFFFFF and the file length (a value equal to the word already there is skipped). A mutant
the parser accepts must rebuild byte for byte (``to_bytes() == mutant``); one it rejects must
raise ShaderFormatError and nothing else. Prints one JSON summary and exits 1 on any failure.

    python tools/mutate_nx.py [--corpus DIR] [--save-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def mutants(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(offset, value, mutant) for every aligned u32 and every special value that changes it."""
    values = (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data) & 0xFFFFFFFF)
    buf = bytearray(data)
    for pos in range(0, len(data) - 3, 4):
        (old,) = struct.unpack_from("<I", data, pos)
        for value in dict.fromkeys(values):
            if value == old:
                continue
            struct.pack_into("<I", buf, pos, value)
            yield pos, value, bytes(buf)
        struct.pack_into("<I", buf, pos, old)


def check(data: bytes) -> str:
    """'rejected', 'exact', or a failure description."""
    import shaderkit
    from shaderkit.errors import ShaderFormatError

    try:
        model = shaderkit.open(data)
    except ShaderFormatError:
        return "rejected"
    except Exception as exc:  # noqa: BLE001 - a foreign exception is what this looks for
        return f"foreign {type(exc).__name__}: {exc}"
    try:
        out = model.to_bytes()
    except Exception as exc:  # noqa: BLE001
        return f"to_bytes raised {type(exc).__name__}: {exc}"
    if out != data:
        return "differs"
    return "exact"


def run(files: list[tuple[str, bytes]], save_dir: Path | None = None) -> dict[str, Any]:
    start = time.perf_counter()
    per_file: dict[str, dict[str, int]] = {}
    failures: list[dict[str, Any]] = []
    for name, data in files:
        counts = {"mutants": 0, "accepted": 0, "exact": 0, "rejected": 0}
        for pos, value, mutant in mutants(data):
            counts["mutants"] += 1
            result = check(mutant)
            if result == "rejected":
                counts["rejected"] += 1
                continue
            if not result.startswith("foreign"):
                counts["accepted"] += 1
            if result == "exact":
                counts["exact"] += 1
                continue
            failures.append({"file": name, "offset": pos, "value": value, "result": result[:200]})
            if save_dir is not None:
                save_dir.mkdir(parents=True, exist_ok=True)
                (save_dir / f"{Path(name).name}-{pos:x}-{value:x}.bin").write_bytes(mutant)
        per_file[name] = counts
    total = {key: sum(c[key] for c in per_file.values()) for key in ("mutants", "accepted", "exact", "rejected")}
    return {"total": total, "per_file": per_file, "failures": failures[:50], "failure_count": len(failures),
            "seconds": round(time.perf_counter() - start, 1)}


def load(corpus: Path) -> list[tuple[str, bytes]]:
    """Every file under nx/ that shaderkit detects as BNSH or NVN."""
    import shaderkit

    out = []
    for path in sorted((corpus / "nx").glob("*")):
        if path.is_file():
            data = path.read_bytes()
            spec = shaderkit.detect(data)
            if spec is not None and spec.name in ("bnsh", "nvn"):
                out.append((f"nx/{path.name}", data))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.environ.get("SHADERKIT_CORPUS", str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))
    parser.add_argument("--corpus", default=default)
    parser.add_argument("--save-dir", default=None)
    args = parser.parse_args(argv)
    files = load(Path(args.corpus))
    if not files:
        print(json.dumps({"error": f"no BNSH/NVN files under {args.corpus}/nx"}))
        return 2
    report = run(files, Path(args.save_dir) if args.save_dir else None)
    print(json.dumps(report, indent=2))
    return 1 if report["failure_count"] else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""DXBC container throughput over the corpus, on one core; prints JSON (never pass/fail).

Stages: parse (bytes -> typed model, every chunk), rebuild (model -> bytes, all chunks compiled
from their models, checksum kept), parse+rebuild, and the checksum alone.

    python benchmarks/bench_dxbc_container.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path

from _corpus import corpus_root
from _timing import best_of

from shaderkit.formats.dxbc.checksum import dxbc_checksum
from shaderkit.formats.dxbc.container import DxbcContainer


def rates(seconds: float, files: int, size: int) -> dict[str, float]:
    return {"seconds": round(seconds, 4), "mb_s": round(size / seconds / 1e6, 2),
            "files_s": round(files / seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = [p.read_bytes() for p in sorted(Path(corpus_root(), "dxbc").glob("*.dxbc"))]
    size = sum(map(len, files))
    models = [DxbcContainer.from_bytes(d) for d in files]
    exact = sum(m.to_bytes() == d for m, d in zip(models, files))
    report = {
        "machine": platform.platform(), "python": platform.python_version(),
        "files": len(files), "bytes": size, "byte_exact": exact,
        "parse": rates(best_of(args.repeat, lambda: [DxbcContainer.from_bytes(d) for d in files]), len(files), size),
        "rebuild": rates(best_of(args.repeat, lambda: [m.to_bytes() for m in models]), len(files), size),
        "parse_rebuild": rates(best_of(args.repeat, lambda: [DxbcContainer.from_bytes(d).to_bytes() for d in files]),
                               len(files), size),
        "checksum": rates(best_of(args.repeat, lambda: [dxbc_checksum(d) for d in files]), len(files), size),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

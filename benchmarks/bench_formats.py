#!/usr/bin/env python3
"""Parse, rebuild and disassemble throughput per format over the corpus, on one core; prints JSON.

    python benchmarks/bench_formats.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from _corpus import corpus_root
from _timing import best_of

import shaderkit
from shaderkit.errors import ShaderkitError
from shaderkit.formats.base import IdentifiedFile

GROUPS = {"dxbc": ("dxbc", "*.dxbc"), "pica": ("pica", "*.shbin"), "bnsh": ("nx", "*.bnsh*"),
          "wiiu": ("wiiu", "*.[sg]*")}


def measure(files: list[bytes], repeat: int) -> dict[str, object]:
    readable = []
    for data in files:
        try:
            model = shaderkit.open(data)
            if isinstance(model, IdentifiedFile):  # named but not read (Yaz0, BFSHA)
                continue
            model.to_bytes()
            readable.append(data)
        except ShaderkitError:
            continue
    size = sum(map(len, readable))
    if not readable:
        return {"files": 0}
    models = [shaderkit.open(d) for d in readable]
    parse = best_of(repeat, lambda: [shaderkit.open(d) for d in readable])
    rebuild = best_of(repeat, lambda: [m.to_bytes() for m in models])
    result: dict[str, object] = {
        "files": len(readable), "bytes": size,
        "parse_mb_s": round(size / parse / 1e6, 2), "parse_files_s": round(len(readable) / parse, 1),
        "rebuild_mb_s": round(size / rebuild / 1e6, 2), "rebuild_files_s": round(len(readable) / rebuild, 1),
    }
    try:
        disasm = best_of(repeat, lambda: [m.disassemble() for m in models])
        result["disasm_mb_s"] = round(size / disasm / 1e6, 2)
        result["disasm_files_s"] = round(len(readable) / disasm, 1)
    except ShaderkitError as exc:
        result["disasm"] = f"unavailable: {exc}"
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = corpus_root()
    report: dict[str, object] = {"machine": platform.platform(), "python": platform.python_version(),
                                 "date": time.strftime("%Y-%m-%d")}
    for name, (folder, pattern) in GROUPS.items():
        files = [p.read_bytes() for p in sorted(Path(root, folder).glob(pattern)) if p.is_file()]
        report[name] = measure(files, args.repeat)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

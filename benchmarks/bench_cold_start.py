#!/usr/bin/env python3
"""Whole-process cold start of `shaderkit info` and `shaderkit disasm` on one small file; prints JSON."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from _corpus import corpus_root

SAMPLES = {
    "dxbc": "dxbc/slimshader__VirtualMachine_PS_Simple.dxbc",
    "pica": "pica/simple_tri__vshader__6335ca80.shbin",
    "bnsh": "nx/wiixl_test.bnsh",
    "sharcfb": "wiiu/sc_obj_coin.sharcfb",
}


def timed(args: list[str], runs: int) -> dict[str, object]:
    times = []
    status = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        status = subprocess.run(args, capture_output=True).returncode
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3), "exit": status}


def main() -> None:
    root = corpus_root()
    runs = 7
    report: dict[str, object] = {"python_startup": timed([sys.executable, "-c", "pass"], runs)}
    for name, rel in SAMPLES.items():
        path = str(root / rel)
        for verb in ("info", "disasm"):
            report[f"{verb}:{name}"] = timed([sys.executable, "-m", "shaderkit", verb, path], runs)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

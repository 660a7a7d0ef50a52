#!/usr/bin/env python3
"""Side by side with a native tool: vkd3d-compiler 1.2 (DXBC -> SPIR-V, which parses the container and
the token stream) against shaderkit parsing the same containers (and decoding them). Prints JSON.

vkd3d pays a process start per file; `vkd3d-compiler --version` run as often shows that share.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _corpus import corpus_root

import shaderkit


def main() -> None:
    tool = shutil.which("vkd3d-compiler")
    files = sorted((corpus_root() / "dxbc").glob("*.dxbc"))
    datas = [p.read_bytes() for p in files]
    size = sum(map(len, datas))
    report: dict[str, object] = {"files": len(files), "bytes": size}
    t0 = time.perf_counter()
    for data in datas:
        model = shaderkit.open(data)
        model.to_bytes()
    ours = time.perf_counter() - t0
    report["shaderkit_parse_rebuild_s"] = round(ours, 3)
    try:
        t0 = time.perf_counter()
        for data in datas:
            shaderkit.open(data).disassemble()
        report["shaderkit_parse_disasm_s"] = round(time.perf_counter() - t0, 3)
    except shaderkit.UnsupportedOperation as exc:
        report["shaderkit_parse_disasm_s"] = f"unavailable: {exc}"
    if tool is None:
        report["vkd3d"] = "vkd3d-compiler not installed (apt-get install vkd3d-compiler)"
        print(json.dumps(report, indent=2))
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out.spv")
        t0 = time.perf_counter()
        for _ in files:
            subprocess.run([tool, "--version"], capture_output=True)
        startup = time.perf_counter() - t0
        t0 = time.perf_counter()
        for path in files:
            subprocess.run([tool, "-x", "dxbc-tpf", "-b", "spirv-binary", "-o", out, str(path)], capture_output=True)
        theirs = time.perf_counter() - t0
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "shaderkit", "verify", *map(str, files)], capture_output=True)
    whole = time.perf_counter() - t0
    report["vkd3d_total_s"] = round(theirs, 3)
    report["vkd3d_process_starts_only_s"] = round(startup, 3)
    report["shaderkit_verify_whole_process_s"] = round(whole, 3)
    report["ratio_whole_job_shaderkit_verify_over_vkd3d"] = round(whole / theirs, 2)
    report["note"] = ("vkd3d-compiler reads one file per process and also emits SPIR-V; its time is dominated "
                      "by process starts, so the whole-job ratio (one shaderkit process parsing, rebuilding "
                      "and checksumming all files vs one vkd3d process per file) is the fair figure")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

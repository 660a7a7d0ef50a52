#!/usr/bin/env python3
"""Latte (Wii U) microcode: disassemble (decaf text + notes) and assemble throughput over every
GX2 program of the corpus GSH/SHARCFB files, on one core; prints JSON.

    python benchmarks/bench_latte.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import platform

from _corpus import corpus_root
from _timing import best_of

from shaderkit.formats.agl.sharcfb import Sharcfb
from shaderkit.formats.gfd.gsh import Gsh
from shaderkit.isa.latte import assemble, disassemble


def programs() -> list[bytes]:
    root = corpus_root() / "wiiu"
    out = [s.program for p in sorted(root.glob("*.gsh")) for s in Gsh.from_bytes(p.read_bytes()).shaders]
    out += [b.shader.program for p in sorted(root.glob("*.sharcfb"))
            for b in Sharcfb.from_bytes(p.read_bytes()).binaries]
    return [p for p in out if p]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    codes = programs()
    size = sum(len(c) for c in codes)
    texts = [disassemble(c) for c in codes]
    lines = sum(t.count("\n") for t in texts)
    t_disasm = best_of(args.repeat, lambda: [disassemble(c) for c in codes])
    t_asm = best_of(args.repeat, lambda: [assemble(t) for t in texts])
    print(json.dumps({
        "python": platform.python_version(),
        "programs": len(codes), "bytes": size, "text_lines": lines,
        "disasm": {"seconds": round(t_disasm, 4), "programs_per_s": round(len(codes) / t_disasm),
                   "kb_per_s": round(size / 1024 / t_disasm, 1), "lines_per_s": round(lines / t_disasm)},
        "asm": {"seconds": round(t_asm, 4), "programs_per_s": round(len(codes) / t_asm),
                "lines_per_s": round(lines / t_asm)},
    }, indent=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PICA200 text round trip over the corpus SHBIN files, on one core (CPU time); prints JSON.

    python benchmarks/bench_pica.py [--repeat 5]

``disasm``: SHBIN model -> picasso text, including the check that decides the ``; shaderkit:``
pragmas (instructions/s is the issue-19 figure, goal 500 k); ``first_pass``: the same, the first
time each model is listed; ``plain_text``: the text alone (the floor the check adds to); ``asm``:
text -> SHBIN. ``check_share`` is the part of ``disasm`` spent deciding the pragmas;
``checked_by_assembly``: files whose pragmas still need the assembler (see source.py).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from _corpus import corpus_root
from _timing import best_of as _best_of

from shaderkit.formats.dvlb import source
from shaderkit.formats.dvlb.build import assemble_sources
from shaderkit.formats.dvlb.dvlb import Dvlb


def best_of(repeat: int, func: Callable[[], object]) -> float:
    return _best_of(repeat, func, time.process_time)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    paths = sorted((corpus_root() / "pica").glob("*.shbin"))
    models = [Dvlb.from_bytes(p.read_bytes()) for p in paths]
    instructions = sum(len(m.dvlp.code) for m in models)
    first_start = time.process_time()
    texts = [source.dvlb_to_source(m) for m in models]
    first = time.process_time() - first_start
    undecided = sum(source._decided_without_assembly(m, source._units(m, False, [{}] * len(m.dvles)), "") is None
                    for m in models)
    disasm = best_of(args.repeat, lambda: [source.dvlb_to_source(m) for m in models])
    plain = best_of(args.repeat, lambda: [source._sources(m, False, [{}] * len(m.dvles)) for m in models])
    asm = best_of(args.repeat, lambda: [assemble_sources([("t.asm", t)]) for t in texts])
    exact = sum(assemble_sources([("t.asm", t)]) == p.read_bytes() for t, p in zip(texts, paths))
    print(json.dumps({
        "files": len(paths),
        "instructions": instructions,
        "disasm_instructions_per_s": round(instructions / disasm),
        "first_pass_instructions_per_s": round(instructions / first),
        "goal_instructions_per_s": 500_000,
        "disasm_files_per_s": round(len(paths) / disasm),
        "plain_text_files_per_s": round(len(paths) / plain),
        "asm_files_per_s": round(len(paths) / asm),
        "check_share": round(1 - plain / disasm, 2),
        "checked_by_assembly": undecided,
        "disasm_asm_identical": exact,
    }, indent=1))


if __name__ == "__main__":
    main()

"""Maxwell (Switch) code throughput over the corpus listings' code, one core, as JSON.

    python benchmarks/bench_maxwell.py [--repeat N]

Best CPU time of N runs each. ``decode``: words -> instructions; ``encode``: instructions ->
words; ``disassemble``: code -> listing text (controls, instructions, data); ``assemble``:
listing text -> code bytes. The code is read from the envydis listings' hex columns, so the
figure does not depend on the BNSH/NVN readers.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402
from _timing import best_of

from shaderkit.isa.maxwell import assemble, decode, disassemble  # noqa: E402

LINE = re.compile(r"[0-9a-f]{8}: ([0-9a-f]{8}) ([0-9a-f]{8})")


def codes() -> list[bytes]:
    out = []
    for path in sorted((corpus_root() / "nx" / "maxwell").glob("*.maxwell.txt")):
        words = [int(m[2] + m[1], 16) for m in LINE.finditer(path.read_text())]
        out.append(b"".join(w.to_bytes(8, "little") for w in words))
    return out


def best(repeat: int, run) -> float:  # type: ignore[no-untyped-def]
    return best_of(repeat, run, time.process_time)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    blobs = codes()
    words = [int.from_bytes(b[i : i + 8], "little") for b in blobs for i in range(0, len(b) - 7, 8)]
    decoded = [decode(w) for w in words]
    instructions = [i for i in decoded if i is not None]
    texts = [disassemble(b) for b in blobs]
    size = sum(map(len, blobs))
    figures = {
        "words": len(words),
        "bytes": size,
        "decode_words_per_s": len(words) / best(args.repeat, lambda: [decode(w) for w in words]),
        "encode_words_per_s": len(instructions) / best(args.repeat, lambda: [i.encode() for i in instructions]),
        "disassemble_mb_per_s": size / 1e6 / best(args.repeat, lambda: [disassemble(b) for b in blobs]),
        "assemble_mb_per_s": size / 1e6 / best(args.repeat, lambda: [assemble(t) for t in texts]),
    }
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}, indent=2))


if __name__ == "__main__":
    main()

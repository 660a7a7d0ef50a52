"""SM4/SM5 decode and decode+format throughput over the corpus programs, one core, as JSON.

    python benchmarks/bench_sm4.py [--repeat N]

Best CPU time of N runs each. ``decode``: validate and index the programs (the typed model is
built lazily); ``format``: listing text of decoded programs; ``decode_format``: both, the
``shaderkit disasm`` path; ``decode_format_cold_caches``: the same with every text/token cache
emptied before each run (what one pass over the corpus costs); ``decode_model_format``:
decode, build the typed Instruction/Operand model, print from it; ``encode``: model -> words.
Text caches are module-level and survive between runs, as they do in a batch job.
"""

from __future__ import annotations

import argparse
import gc
import json
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402

from shaderkit.isa.sm4.decode import decode, words_from_bytes  # noqa: E402
from shaderkit.isa.sm4.encode import encode  # noqa: E402
from shaderkit.isa.sm4.text import Formatter, clear_caches  # noqa: E402


def programs(data: bytes, depth: int = 0) -> list[bytes]:
    out = []
    count = struct.unpack_from("<I", data, 28)[0]
    for offset in struct.unpack_from(f"<{count}I", data, 32):
        tag = data[offset : offset + 4]
        size = struct.unpack_from("<I", data, offset + 4)[0]
        if tag in (b"SHDR", b"SHEX"):
            out.append(data[offset + 8 : offset + 8 + size])
        elif tag == b"LIBF" and depth < 3:
            out.extend(programs(data[offset + 8 : offset + 8 + size], depth + 1))
    return out


def best(fn, repeat: int, setup=None) -> float:  # type: ignore[no-untyped-def]
    """Best CPU time of ``repeat`` runs (one core; robust on a busy machine), GC off as in timeit;
    ``setup`` runs untimed before each run."""
    times = []
    gc.disable()
    try:
        for _ in range(repeat):
            if setup is not None:
                setup()
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    finally:
        gc.enable()
    return min(times)


def _built(prog):  # type: ignore[no-untyped-def]
    prog.instructions  # noqa: B018 - builds the typed model; the printer then reads it
    return prog


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    payloads = []
    for path in sorted((corpus_root() / "dxbc").glob("*.dxbc")):
        payloads.extend(programs(path.read_bytes()))
    words = [words_from_bytes(p) for p in payloads]
    total_bytes = sum(len(p) for p in payloads)
    decoded = [decode(w) for w in words]  # lazily built typed model: format reads the words
    count = sum(p.instruction_count for p in decoded)
    models = [decode(w) for w in words]
    for p in models:
        p.instructions  # noqa: B018 - build the typed model (encode reads it)

    t_decode = best(lambda: [decode(w) for w in words], args.repeat)
    t_format = best(lambda: [Formatter(p).lines() for p in decoded], args.repeat)
    t_both = best(lambda: [Formatter(decode(w)).lines() for w in words], args.repeat)
    # every text/token cache emptied before each run: the first pass over the corpus
    t_cold = best(lambda: [Formatter(decode(w)).lines() for w in words], args.repeat, clear_caches)
    # the typed model path (decode, build Instruction/Operand objects, print them)
    t_model = best(lambda: [Formatter(_built(decode(w))).lines() for w in words], args.repeat)
    t_encode = best(lambda: [encode(p) for p in models], args.repeat)
    mb = total_bytes / 1e6
    print(json.dumps({
        "programs": len(payloads),
        "instructions": count,
        "bytes": total_bytes,
        "decode": {"seconds": round(t_decode, 4), "instructions_per_s": round(count / t_decode),
                   "mb_per_s": round(mb / t_decode, 2)},
        "format": {"seconds": round(t_format, 4), "instructions_per_s": round(count / t_format)},
        "decode_format": {"seconds": round(t_both, 4), "instructions_per_s": round(count / t_both),
                          "mb_per_s": round(mb / t_both, 2)},
        "decode_format_cold_caches": {"seconds": round(t_cold, 4),
                                      "instructions_per_s": round(count / t_cold),
                                      "mb_per_s": round(mb / t_cold, 2)},
        "decode_model_format": {"seconds": round(t_model, 4), "instructions_per_s": round(count / t_model)},
        "encode": {"seconds": round(t_encode, 4), "instructions_per_s": round(count / t_encode)},
    }, indent=2))


if __name__ == "__main__":
    main()

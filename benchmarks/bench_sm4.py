"""SM4/SM5 decode and decode+text throughput over the corpus programs, one core, as JSON.

    python benchmarks/bench_sm4.py [--repeat N]

Best CPU time of N runs each. ``decode``: validate and index the programs (the typed model is
built lazily); ``decode_format``: validate, then print (``Formatter(decode(w)).lines()``);
``one_pass``: validate and print in one pass (:func:`shaderkit.isa.sm4.printer.program_lines`,
the ``shaderkit disasm`` path) with the decoder's caches emptied before each run;
``one_pass_fresh_process``: the first pass over the corpus in a fresh process (imports done,
nothing printed before; best of N processes) - the cold figure, goal 1 M instructions/s;
``decode_model_format``: decode, build the typed Instruction/Operand model, print from it;
``encode``: model -> words. The printers keep no caches: cold and warm runs do the same work.
"""

from __future__ import annotations

import argparse
import gc
import json
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402

from shaderkit.isa.sm4.decode import decode, words_from_bytes  # noqa: E402
from shaderkit.isa.sm4.encode import encode  # noqa: E402
from shaderkit.isa.sm4.printer import program_lines  # noqa: E402
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


def corpus_words() -> list[tuple[int, ...]]:
    """The token words of every SHDR/SHEX program in the corpus (library functions included)."""
    payloads = []
    for path in sorted((corpus_root() / "dxbc").glob("*.dxbc")):
        payloads.extend(programs(path.read_bytes()))
    return [words_from_bytes(p) for p in payloads]


def first_pass_seconds() -> float:
    """CPU seconds of this process's first one-pass print of the corpus (imports done)."""
    words = corpus_words()
    gc.disable()
    start = time.process_time()
    for w in words:
        program_lines(w)
    return time.process_time() - start


def fresh_process_seconds(repeat: int) -> float:
    """Best :func:`first_pass_seconds` over ``repeat`` fresh processes."""
    runs = []
    for _ in range(repeat):
        result = subprocess.run([sys.executable, __file__, "--first-pass"], capture_output=True, text=True, check=True)
        runs.append(float(result.stdout))
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--first-pass", action="store_true", help="print first_pass_seconds() only")
    args = parser.parse_args()
    if args.first_pass:
        print(first_pass_seconds())
        return
    words = corpus_words()
    total_bytes = 4 * sum(len(w) for w in words)
    decoded = [decode(w) for w in words]  # lazily built typed model: format reads the words
    count = sum(p.instruction_count for p in decoded)
    models = [decode(w) for w in words]
    for p in models:
        p.instructions  # noqa: B018 - build the typed model (encode reads it)

    t_decode = best(lambda: [decode(w) for w in words], args.repeat)
    t_both = best(lambda: [Formatter(decode(w)).lines() for w in words], args.repeat, clear_caches)
    t_one = best(lambda: [program_lines(w) for w in words], args.repeat, clear_caches)
    t_fresh = fresh_process_seconds(args.repeat)
    # the typed model path (decode, build Instruction/Operand objects, print them)
    t_model = best(lambda: [Formatter(_built(decode(w))).lines() for w in words], args.repeat)
    t_encode = best(lambda: [encode(p) for p in models], args.repeat)
    mb = total_bytes / 1e6
    print(json.dumps({
        "programs": len(words),
        "instructions": count,
        "bytes": total_bytes,
        "decode": {"seconds": round(t_decode, 4), "instructions_per_s": round(count / t_decode),
                   "mb_per_s": round(mb / t_decode, 2)},
        "decode_format": {"seconds": round(t_both, 4), "instructions_per_s": round(count / t_both),
                          "mb_per_s": round(mb / t_both, 2)},
        "one_pass": {"seconds": round(t_one, 4), "instructions_per_s": round(count / t_one),
                     "mb_per_s": round(mb / t_one, 2)},
        "one_pass_fresh_process": {"seconds": round(t_fresh, 4), "instructions_per_s": round(count / t_fresh),
                                   "goal": 1_000_000},
        "decode_model_format": {"seconds": round(t_model, 4), "instructions_per_s": round(count / t_model)},
        "encode": {"seconds": round(t_encode, 4), "instructions_per_s": round(count / t_encode)},
    }, indent=2))


if __name__ == "__main__":
    main()

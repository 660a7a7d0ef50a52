"""SM4/SM5 assembler throughput over the corpus programs, one core, as JSON.

    python benchmarks/bench_sm4_asm.py [--repeat N]

Best CPU time of N runs each. ``format``: fxc text of the decoded programs (the ``disasm``
path, for scale); ``format_exact``: ``disasm --exact`` text; ``assemble``: that fxc text back to
programs; ``assemble_exact``: exact text back to programs; ``assemble_cold``: the same with the
assembler's operand/mnemonic caches emptied first. ``ratio``: assemble time / format time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import corpus_root  # noqa: E402
from bench_sm4 import best, programs  # noqa: E402

from shaderkit.isa.sm4 import assembler  # noqa: E402
from shaderkit.isa.sm4.decode import decode, words_from_bytes  # noqa: E402
from shaderkit.isa.sm4.text import Formatter  # noqa: E402


def _clear() -> None:
    for cache in assembler._OPERAND_CACHES:
        cache.clear()
    assembler._MNEMONIC_CACHE.clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    payloads = []
    for path in sorted((corpus_root() / "dxbc").glob("*.dxbc")):
        payloads.extend(programs(path.read_bytes()))
    decoded = [decode(words_from_bytes(p)) for p in payloads]
    count = sum(p.instruction_count for p in decoded)
    texts = ["\n".join(Formatter(p).lines()) for p in decoded]
    exact = ["\n".join(Formatter(p, exact=True).lines()) for p in decoded]

    t_format = best(lambda: [Formatter(p).lines() for p in decoded], args.repeat)
    t_exact = best(lambda: [Formatter(p, exact=True).lines() for p in decoded], args.repeat)
    t_asm = best(lambda: [assembler.assemble(t) for t in texts], args.repeat)
    t_asm_exact = best(lambda: [assembler.assemble(t) for t in exact], args.repeat)
    t_cold = best(lambda: [assembler.assemble(t) for t in texts], args.repeat, _clear)
    print(json.dumps({
        "programs": len(payloads),
        "instructions": count,
        "format": {"seconds": round(t_format, 4), "instructions_per_s": round(count / t_format)},
        "format_exact": {"seconds": round(t_exact, 4), "instructions_per_s": round(count / t_exact)},
        "assemble": {"seconds": round(t_asm, 4), "instructions_per_s": round(count / t_asm)},
        "assemble_exact": {"seconds": round(t_asm_exact, 4), "instructions_per_s": round(count / t_asm_exact)},
        "assemble_cold": {"seconds": round(t_cold, 4), "instructions_per_s": round(count / t_cold)},
        "ratio_assemble_to_format": round(t_asm / t_format, 2),
    }, indent=2))


if __name__ == "__main__":
    main()

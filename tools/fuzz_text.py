#!/usr/bin/env python3
"""Mutation fuzzer for every assembler: edits real listings and sources as a user might get them
wrong, runs ``shaderkit asm`` on them in-process, prints one JSON summary.

Seeds: ``shaderkit disasm`` of corpus files (SM4/5 listings alone and with ``--base``, the D3D9
programs of level-9 DXBC files as bare shaders (alone and with ``--base``), PICA200
sources, Wii U listings with ``--base``, Maxwell text with ``--base``) and the decaf Latte sources
in wiiu/latte_src. Mutations: deleted characters, inserted tokens (huge numbers, brackets,
directives...), numbers replaced by edge values, words swapped between lines, duplicated,
deleted, swapped and truncated lines. Exit 0 or a ShaderkitError / usage error is fine; any other
exception is a finding (saved to ``--save-dir``).

    python tools/fuzz_text.py --seconds 300 --seed 1 [--syntax sm4 --syntax pica ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

SYNTAXES = ("sm4", "d3d9", "pica", "latte", "maxwell")
TOKENS = ("0", "-1", "4294967296", "99999999999999999999", "1e999", "nan", "-inf", "r99999", "[", "]", "(",
          ")", ",", ".", ".xyzw", ".q", "+", "-", ":", ";", "//", "\n", " ", "l(", "0x", "0xFFFFFFFFFFFF", "$",
          "@", '"', "\t", "cb0[", "dcl_", "if", "endif", "loop", ".proc", ".end", ".out", "{", "}", "\x00", "é")
EDGE_NUMBERS = ("0", "1", "255", "256", "65535", "65536", "2147483648", "4294967295", "4294967296",
                "999999999999", "-1", "-2147483649")
_NUMBER = re.compile(r"\d+")


class Job:
    """One seed text: how it is assembled (``asm`` options) and the file name it is written as."""

    def __init__(self, syntax: str, text: str, options: list[str], name: str) -> None:
        self.syntax, self.text, self.options, self.name = syntax, text, options, name


def seed_jobs(corpus: Path, syntaxes: tuple[str, ...], every: int = 6) -> list[Job]:
    """The seed texts: listings printed by ``shaderkit disasm`` and the corpus's own sources."""
    from click.testing import CliRunner

    from shaderkit.cli.app import cli

    runner = CliRunner()

    def listing(path: Path) -> str | None:
        result = runner.invoke(cli, ["disasm", str(path)])
        return result.output if result.exit_code == 0 else None

    jobs: list[Job] = []
    if "sm4" in syntaxes:
        for path in sorted((corpus / "dxbc").glob("*.dxbc"))[::every]:
            text = listing(path)
            if text:
                jobs.append(Job("sm4", text, [], "in.asm"))
                jobs.append(Job("sm4", text, ["--base", str(path)], "in.asm"))
    if "d3d9" in syntaxes:  # the level-9 programs of the DXBC corpus, as bare D3D9 shaders
        import shaderkit
        from shaderkit.formats.dxbc.aon9 import Level9Shader

        bare = Path(tempfile.mkdtemp(prefix="shaderkit-fuzz-d3d9-"))
        level9 = [path for path in sorted((corpus / "dxbc").glob("*.dxbc")) if b"Aon9" in path.read_bytes()]
        for path in level9[::max(every // 3, 1)]:
            data = path.read_bytes()
            for k, chunk in enumerate(getattr(shaderkit.open(data), "chunks", [])):
                payload = getattr(chunk, "payload", chunk)
                if isinstance(payload, Level9Shader) and payload.program[2:4] in (b"\xfe\xff", b"\xff\xff"):
                    program = bare / f"{path.stem}.{k}.cso"
                    program.write_bytes(payload.program)
                    text = listing(program)
                    if text:
                        jobs.append(Job("d3d9", text, ["--syntax", "d3d9"], "in.asm"))
                        jobs.append(Job("d3d9", text, ["--base", str(program)], "in.asm"))
    if "pica" in syntaxes:
        for path in sorted((corpus / "pica").glob("*.shbin")):
            text = listing(path)
            if text:
                jobs.append(Job("pica", text, ["--syntax", "pica"], "in.pica"))
        for path in sorted((corpus / "pica").glob("*.pica")):
            jobs.append(Job("pica", path.read_text(errors="replace"), ["--syntax", "pica"], "in.pica"))
    if "latte" in syntaxes:
        for path in sorted((corpus / "wiiu").glob("*.gsh"))[:12]:
            text = listing(path)
            if text:
                jobs.append(Job("latte", text, ["--base", str(path)], "in.txt"))
        for path in sorted((corpus / "wiiu" / "latte_src").glob("*.?sh")):
            jobs.append(Job("latte", path.read_text(errors="replace"), ["--syntax", "latte"], path.name))
    if "maxwell" in syntaxes:
        for path in sorted((corpus / "nx").glob("*.bnsh"))[:8]:
            text = listing(path)
            if text:
                jobs.append(Job("maxwell", text, ["--base", str(path), "--syntax", "maxwell"], "in.txt"))
    return jobs


def mutate(rng: random.Random, text: str) -> str:
    """One to three edits of ``text``."""
    lines = text.split("\n") or [""]
    words = text.split() or ["x"]
    for _ in range(rng.choice((1, 1, 2, 3))):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        line = lines[i]
        kind = rng.randrange(8)
        if kind == 0 and line:
            at = rng.randrange(len(line))
            lines[i] = line[:at] + line[at + rng.randrange(1, 6):]
        elif kind == 1:
            at = rng.randrange(len(line) + 1)
            lines[i] = line[:at] + rng.choice(TOKENS) + line[at:]
        elif kind == 2:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 3:
            del lines[i]
        elif kind == 4:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 5:
            numbers = list(_NUMBER.finditer(line))
            if numbers:
                n = rng.choice(numbers)
                lines[i] = line[: n.start()] + rng.choice(EDGE_NUMBERS) + line[n.end():]
        elif kind == 6:
            parts = line.split()
            if len(parts) > 1:
                parts[rng.randrange(len(parts))] = rng.choice(words)
                lines[i] = " " + " ".join(parts)
        else:
            lines = lines[: rng.randrange(len(lines) + 1)]
    return "\n".join(lines)


def fuzz(jobs: list[Job], cases: int | None, seconds: float | None, seed: int, save_dir: Path | None) -> dict[str, Any]:
    """Run mutants of ``jobs`` until ``cases`` or ``seconds`` run out; the JSON-ready report."""
    import click
    from click.testing import CliRunner

    from shaderkit.cli.app import cli
    from shaderkit.errors import ShaderkitError

    rng = random.Random(seed)
    runner = CliRunner()
    work = Path(tempfile.mkdtemp(prefix="shaderkit-fuzz-text-"))
    counts: dict[str, dict[str, int]] = {}
    findings: dict[str, dict[str, Any]] = {}
    start = time.monotonic()
    done = 0
    while (cases is None or done < cases) and (seconds is None or time.monotonic() - start < seconds):
        job = rng.choice(jobs)
        mutant = mutate(rng, job.text)
        source = work / job.name
        source.write_bytes(mutant.encode("utf-8", "surrogatepass"))
        result = runner.invoke(cli, ["asm", *job.options, "-o", str(work / "out.bin"), str(source)])
        done += 1
        tally = counts.setdefault(job.syntax, {"assembled": 0, "rejected": 0, "foreign": 0})
        exc = result.exception
        if exc is None or isinstance(exc, (SystemExit, ShaderkitError, click.ClickException)):
            tally["assembled" if result.exit_code == 0 and exc is None else "rejected"] += 1
            continue
        tally["foreign"] += 1
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        key = f"{job.syntax} {type(exc).__name__} {frame.filename.split('shaderkit' + os.sep)[-1]}:{frame.lineno}"
        if key not in findings:
            saved = None
            if save_dir is not None:
                save_dir.mkdir(parents=True, exist_ok=True)
                saved = save_dir / f"finding{len(findings) + 1}-{job.name}"
                saved.write_bytes(mutant.encode("utf-8", "surrogatepass"))
            findings[key] = {"error": f"{type(exc).__name__}: {exc}"[:300], "options": job.options,
                             "saved": str(saved) if saved else None}
    return {"cases": done, "seconds": round(time.monotonic() - start, 1), "seed": seed, "seed_texts": len(jobs),
            "per_syntax": counts, "foreign_exceptions": findings}


def main(argv: list[str] | None = None) -> int:
    default_corpus = os.environ.get("SHADERKIT_CORPUS",
                                    str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=default_corpus)
    parser.add_argument("--cases", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--syntax", action="append", choices=SYNTAXES, help="only these assemblers")
    parser.add_argument("--save-dir", default="fuzz-text-out")
    args = parser.parse_args(argv)
    jobs = seed_jobs(Path(args.corpus), tuple(args.syntax or SYNTAXES))
    if not jobs:
        print("no seed texts found under", args.corpus, file=sys.stderr)
        return 2
    report = fuzz(jobs, args.cases, args.seconds, args.seed, Path(args.save_dir))
    print(json.dumps(report, indent=2))
    return 1 if report["foreign_exceptions"] else 0


if __name__ == "__main__":
    sys.exit(main())

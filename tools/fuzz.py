#!/usr/bin/env python3
"""Mutation fuzzer for every format shaderkit reads.

Mutates real corpus files (truncation, bit/byte flips, special u32 values written over aligned
fields, endianness swaps, splices of two files) and feeds them to ``shaderkit.open`` and
``to_bytes``/``summary``. Anything but ShaderFormatError is a bug; so is a case that runs past the
time limit. Prints one JSON summary.

    python tools/fuzz.py --cases 100000 --seed 1 [--seconds 60] [--save-dir fuzz-out]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import struct
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FOLDERS = {"dxbc": "*.dxbc", "pica": "*.shbin", "nx": "*", "wiiu": "*"}
SPECIAL_U32 = (0, 1, 0x7FFFFFFF, 0xFFFFFFFF)


class CaseTimeout(Exception):
    pass


class RoundTripMismatch(AssertionError):
    """An accepted input whose unedited model does not rebuild it byte for byte."""


def load_seeds(corpus: Path, max_size: int = 1 << 17) -> list[tuple[str, bytes]]:
    """(name, bytes) of every corpus file that some format claims, small enough to fuzz quickly."""

    seeds = [(f"{folder}/{path.name}", data) for folder, pattern in FOLDERS.items()
             for path, data, _ in _claimed(sorted((corpus / folder).glob(pattern)), max_size)]
    d3d9 = _d3d9_seeds(seeds)
    seeds += d3d9 + _fx2_seeds(d3d9)
    return seeds


def _claimed(paths: list[Path], max_size: int) -> list[tuple[Path, bytes, str]]:
    """(path, bytes, format id) of the files among ``paths`` no larger than ``max_size`` that some format claims."""
    import shaderkit

    found = []
    for path in paths:
        if path.is_file() and path.stat().st_size <= max_size:
            data = path.read_bytes()
            spec = shaderkit.detect(data)
            if spec is not None:
                found.append((path, data, spec.name))
    return found


def folder_seeds(folder: Path, max_size: int = 1 << 17) -> list[tuple[str, bytes]]:
    """(format id/name, bytes) of the files directly in ``folder`` that some format claims."""
    return [(f"{name}/{path.name}", data) for path, data, name in _claimed(sorted(folder.iterdir()), max_size)]


def _d3d9_seeds(seeds: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Format "d3d9": the D3D9 programs of the corpus's level-9 DXBC shaders (the bytes of an
    Aon9/XNAS/XNAP chunk's program are a bare D3D9 shader)."""
    import shaderkit
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.aon9 import bare_programs

    out = []
    for name, data in seeds:
        if not name.startswith("dxbc/") or not any(tag in data for tag in (b"Aon9", b"XNAS", b"XNAP")):
            continue
        try:
            model = shaderkit.open(data)
        except ShaderFormatError:
            continue
        out += [(f"d3d9/{name[5:]}.{chunk.fourcc}", chunk.program) for _, chunk in bare_programs(model)]
    return out


def _fx2_seeds(d3d9: list[tuple[str, bytes]], count: int = 8) -> list[tuple[str, bytes]]:
    """Format "fx2": D3D9 effects written by shaderkit's own effect writer around pairs of the
    corpus's D3D9 programs (the corpus has no fx_2_0 file): a vector with a semantic, a texture, a
    sampler with states, a struct with an annotation, a shader parameter (small object), a pass
    with a shader and a render state, a parameter-assigned sampler state (large objects)."""
    from shaderkit.formats.d3d9.effect import (
        D3D9Effect,
        EffectAnnotation,
        EffectParameter,
        EffectPass,
        EffectRecords,
        EffectState,
        EffectTechnique,
        EffectType,
        EffectValue,
        LargeObject,
        SmallObject,
    )

    out = []
    for k in range(min(count, len(d3d9))):
        (name, first), (_, second) = d3d9[k], d3d9[(k + 1) % len(d3d9)]
        sampler = [[EffectState(164, 0, EffectType(5, 4), EffectValue(ids=[2])),
                    EffectState(170, 0, EffectType(2, 0), EffectValue(words=[2]))]]
        records = EffectRecords(
            parameters=[
                EffectParameter(EffectType(3, 1, "color", "COLOR0", 0, 1, 4),
                                EffectValue(words=[0x3F800000, 0, 0x3F000000, 0x3F800000])),
                EffectParameter(EffectType(7, 4, "tex"), EffectValue(ids=[1])),
                EffectParameter(EffectType(10, 4, "samp"), EffectValue(samplers=sampler)),
                EffectParameter(EffectType(3, 5, "st", members=[EffectType(3, 0, "a"), EffectType(2, 0, "b", None, 2)]),
                                EffectValue(words=[0x3F000000, 3, 4]), 1,
                                [EffectAnnotation(EffectType(4, 4, "UIName"), EffectValue(ids=[3]))]),
                EffectParameter(EffectType(16, 4, "shaders", None, 1), EffectValue(ids=[4])),
            ],
            techniques=[EffectTechnique("T", passes=[EffectPass("P", states=[
                EffectState(146, 0, EffectType(16, 4), EffectValue(ids=[5])),
                EffectState(13, 0, EffectType(2, 0), EffectValue(words=[1]))])])],
            shader_count=2, object_count=6,
            small_objects=[SmallObject(1), SmallObject(3, b"x\0"), SmallObject(4, first)],
            large_objects=[LargeObject(0xFFFFFFFF, 2, 0, 0, 1, b"tex\0"), LargeObject(0, 0, 0xFFFFFFFF, 0, 0, second)],
        )
        out.append((f"fx2/{name.split('/', 1)[1]}.fx2", D3D9Effect(records).to_bytes()))
    return out


def _truncate(rng: random.Random, data: bytes, other: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _bit_flip(rng: random.Random, data: bytes, other: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(len(out))
        out[pos] ^= 1 << rng.randrange(8)
    return bytes(out)


def _byte_flip(rng: random.Random, data: bytes, other: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _special_u32(rng: random.Random, data: bytes, other: bytes) -> bytes:
    out = bytearray(data)
    if len(out) < 4:
        return bytes(out)
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(out) // 4) * 4
        value = rng.choice((*SPECIAL_U32, len(data), pos, len(data) - pos, rng.randrange(1 << 32)))
        struct.pack_into(rng.choice("<>") + "I", out, pos, value & 0xFFFFFFFF)
    return bytes(out)


def _swap_endian(rng: random.Random, data: bytes, other: bytes) -> bytes:
    words = len(data) // 4
    start = rng.randrange(words + 1) if rng.random() < 0.5 else 0
    count = words - start if rng.random() < 0.5 else rng.randrange(words - start + 1)
    out = bytearray(data)
    for i in range(start, start + count):
        out[4 * i : 4 * i + 4] = out[4 * i : 4 * i + 4][::-1]
    return bytes(out)


def _splice(rng: random.Random, data: bytes, other: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)] + other[rng.randrange(len(other) + 1) :]


MUTATORS: dict[str, Callable[[random.Random, bytes, bytes], bytes]] = {
    "truncate": _truncate,
    "bit_flip": _bit_flip,
    "byte_flip": _byte_flip,
    "special_u32": _special_u32,
    "swap_endian": _swap_endian,
    "splice": _splice,
}


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: Any) -> None:
        raise CaseTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def exercise(data: bytes, deep: bool) -> None:
    """What a user does with a file: open it, rebuild it, show it (and disassemble it if deep)."""
    import shaderkit
    from shaderkit.errors import UnsupportedOperation

    model = shaderkit.open(data)
    out = model.to_bytes()
    if out != data:  # every format: an accepted input rebuilds byte for byte
        first = next((i for i, (a, b) in enumerate(zip(out, data)) if a != b), min(len(out), len(data)))
        raise RoundTripMismatch(f"{model.format_name}: rebuilt {len(out)} bytes differ from the {len(data)} "
                                f"accepted at {first:#x}")
    model.summary()
    model.problems()
    if deep:
        try:
            model.disassemble()
        except UnsupportedOperation:
            pass


def fuzz(
    seeds: list[tuple[str, bytes]],
    *,
    cases: int,
    seconds: float | None,
    seed: int,
    case_timeout: float = 5.0,
    save_dir: Path | None = None,
    deep: bool = False,
) -> dict[str, Any]:
    from shaderkit.errors import ShaderFormatError

    rng = random.Random(seed)
    foreign: dict[str, dict[str, Any]] = {}
    hangs: list[dict[str, Any]] = []
    per_mutator = dict.fromkeys(MUTATORS, 0)
    per_format: dict[str, int] = {}
    slowest = {"seconds": 0.0}
    start = time.perf_counter()
    done = 0
    names = list(MUTATORS)
    while done < cases and (seconds is None or time.perf_counter() - start < seconds):
        name, data = seeds[rng.randrange(len(seeds))]
        other = seeds[rng.randrange(len(seeds))][1]
        mutator = names[rng.randrange(len(names))]
        mutated = MUTATORS[mutator](rng, data, other) if data else data
        per_mutator[mutator] += 1
        fmt = name.split("/", 1)[0]
        per_format[fmt] = per_format.get(fmt, 0) + 1
        t0 = time.perf_counter()
        try:
            with time_limit(case_timeout):
                exercise(mutated, deep)
        except ShaderFormatError:
            pass
        except CaseTimeout:
            hangs.append({"seed_file": name, "mutator": mutator, "case": done})
            _save(save_dir, f"hang-{len(hangs)}", mutated)
        except Exception as exc:  # noqa: BLE001 - the point is to catch every foreign exception
            key = type(exc).__name__
            entry = foreign.setdefault(key, {"count": 0})
            entry["count"] += 1
            if entry["count"] == 1:
                entry.update(seed_file=name, mutator=mutator, case=done, message=str(exc)[:300])
                entry["saved"] = _save(save_dir, f"{key}-first", mutated)
        elapsed = time.perf_counter() - t0
        if elapsed > slowest["seconds"]:
            slowest = {"seconds": round(elapsed, 4), "seed_file": name, "mutator": mutator, "case": done}
        done += 1
    total = time.perf_counter() - start
    return {
        "cases": done,
        "seconds": round(total, 2),
        "cases_per_second": round(done / total, 1) if total else None,
        "seed": seed,
        "seed_files": len(seeds),
        "per_format": per_format,
        "per_mutator": per_mutator,
        "foreign_exceptions": foreign,
        "hangs": hangs,
        "slowest_case": slowest,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _save(save_dir: Path | None, stem: str, data: bytes) -> str | None:
    if save_dir is None:
        return None
    save_dir.mkdir(parents=True, exist_ok=True)
    path = save_dir / f"{stem}.bin"
    path.write_bytes(data)
    return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default=os.environ.get("SHADERKIT_CORPUS", str(Path(__file__).resolve().parents[1].parent / "shared" / "corpus")))
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", action="append", help="only these corpus folders (dxbc, pica, nx, wiiu), d3d9 (the level-9 programs of dxbc) "
                             "or fx2 (D3D9 effects written around them)")
    parser.add_argument("--case-timeout", type=float, default=5.0)
    parser.add_argument("--save-dir", default="fuzz-out")
    parser.add_argument("--max-memory-mb", type=int, default=2048, help="address-space cap, so runaway allocations fail fast")
    parser.add_argument("--deep", action="store_true", help="also disassemble")
    parser.add_argument("--seed-dir", action="append", default=[],
                        help="also seed with the files of this folder that some format claims, named by format id "
                             "(so --format dksh picks them): formats the corpus has no files of")
    args = parser.parse_args(argv)
    if args.max_memory_mb:
        limit = args.max_memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    seeds = load_seeds(Path(args.corpus))
    seeds += [seed for folder in args.seed_dir for seed in folder_seeds(Path(folder))]
    if args.format:
        seeds = [s for s in seeds if s[0].split("/", 1)[0] in args.format]
    if not seeds:
        print(json.dumps({"error": f"no seed files under {args.corpus}"}))
        return 2
    report = fuzz(seeds, cases=args.cases, seconds=args.seconds, seed=args.seed, case_timeout=args.case_timeout,
                  save_dir=Path(args.save_dir), deep=args.deep)
    print(json.dumps(report, indent=2))
    return 1 if report["foreign_exceptions"] or report["hangs"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compare shaderkit's SM4/SM5 VM with the independent DXBC oracle (vkd3d -> SPIR-V -> GLSL -> llvmpipe).

    python tools/sm4_vm_oracle.py [CORPUS_DXBC_DIR] [--every N] [--json OUT] [-v] [--timeout S]
    python tools/sm4_vm_oracle.py --vm-only     # the VM alone: how many vs/ps/cs it runs

Each file runs in a child process with a timeout (llvmpipe can crash or hang on out-of-range
accesses) and its time is printed with -v; a full sweep of the corpus takes about 10 minutes.

For every vertex, pixel and compute shader the oracle can run, both executors get the same random
inputs and resources (the oracle's own ``auto_inputs``/``auto_resources``), and their outputs are
compared: bit-exact for integer outputs, within a small relative tolerance for float outputs (the
oracle is not D3D: see shared/reference/dxbc_oracle.md section 6). Prints one line per mismatch and
a closing ``N passed, M failed, K skipped`` line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ORACLE_DIR = Path(os.environ.get("SHADERKIT_SHARED", ROOT.parent / "shared")) / "tools"

FLOAT_RTOL = 2e-4
FLOAT_ATOL = 2e-5


#: files whose comparison is meaningless because the oracle is not D3D there (reason given)
_NAN_CUBE = ("derivatives are 0 (one-pixel points), so rsq(0) makes the perturbed normal NaN and the cube "
             "maps are sampled at NaN coordinates, which the VM and llvmpipe resolve to different faces")
KNOWN_DIFFERENCES = {
    "directxtk__PBREffect_PSTexturedVelocity.dxbc": _NAN_CUBE,
    "directxtk__PBREffect_PSTexturedEmissive.dxbc": _NAN_CUBE,
    "directxtk12__PBREffect_PSTexturedEmissiveVelocity.dxbc": _NAN_CUBE,
}


def load_oracle() -> Any:
    """The oracle module, or None when it or its packages (moderngl, vkd3d-compiler) are missing."""
    import importlib.util
    import shutil

    path = ORACLE_DIR / "dxbc_oracle.py"
    if not path.exists() or shutil.which("vkd3d-compiler") is None or shutil.which("spirv-cross") is None:
        return None
    if importlib.util.find_spec("moderngl") is None:
        return None
    spec = importlib.util.spec_from_file_location("dxbc_oracle", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dxbc_oracle"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


_GL: Any = None


def _gl(oracle: Any) -> Any:
    global _GL
    if _GL is None:
        _GL = oracle.GLOracle()
    return _GL


def _close(ours: np.ndarray, theirs: np.ndarray) -> bool:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return False
    if theirs.dtype.kind == "f":
        a, b = ours.astype(np.float64), theirs.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(b)
        with np.errstate(invalid="ignore"):
            ok = both_nan | np.isclose(a, b, rtol=FLOAT_RTOL, atol=FLOAT_ATOL) | (a == b)
        return bool(ok.all())
    return bool((ours.view(np.uint32) == theirs.view(np.uint32)).all())


def _typed(words: Any, channels: int) -> np.ndarray:
    """Typed buffer elements (count, 4) as a GL texel buffer reads the words: rgba32 takes four
    words per element, r32 one (y, z = 0, w = 1)."""
    words = np.asarray(words, np.uint32)
    if channels == 4:
        return words[: len(words) // 4 * 4].reshape(-1, 4).copy()
    out = np.zeros((len(words), 4), np.uint32)
    out[:, 0] = words
    out[:, 3] = 1
    return out


def _diff(ours: np.ndarray, theirs: np.ndarray) -> str:
    """Where two outputs differ, for the report: count, first row, the values there."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return f"shapes {ours.shape} vs {theirs.shape}"
    bad = np.argwhere(ours.view(np.uint32) != theirs.view(np.uint32)) if ours.dtype.kind != "f" else \
        np.argwhere(~(np.isclose(ours, theirs, rtol=FLOAT_RTOL, atol=FLOAT_ATOL) | (np.isnan(ours) & np.isnan(theirs))))
    if len(bad) == 0:
        return "?"
    row = int(bad[0][0])
    return f"{len(bad)} values, first row {row}: {ours[row].tolist()} vs {theirs[row].tolist()}"


def compare_file(oracle: Any, path: Path, n: int = 16, seed: int = 1234) -> tuple[str, str]:
    """("passed" | "failed" | "skipped", reason) for one DXBC file."""
    import shaderkit
    from shaderkit.vm.sm4 import Buffer, Sampler, Shader, Texture, VmError

    raw = path.read_bytes()
    try:
        info = oracle.parse_dxbc(raw)
    except ValueError as exc:
        return "skipped", str(exc)
    if info.stage not in ("vs", "ps", "cs"):
        return "skipped", f"{info.stage}: not vs/ps/cs"
    if path.name in KNOWN_DIFFERENCES:
        return "skipped", "known difference: " + KNOWN_DIFFERENCES[path.name]
    try:
        tr = oracle.translate(str(path))
    except oracle.TranslateError as exc:
        return "skipped", f"oracle cannot translate: {str(exc)[:80]}"
    rng = np.random.default_rng(seed)
    res = oracle.auto_resources(tr, rng, oracle.parse_rdef(raw))
    inputs = oracle.auto_inputs(tr.glsl, n, rng) if info.stage != "cs" else {}
    try:
        gl = _gl(oracle)
        if info.stage == "vs":
            theirs = gl.run_vs(tr, inputs, n, res)
        elif info.stage == "ps":
            theirs = gl.run_ps(tr, inputs, n, res)
        else:
            theirs = gl.run_cs(tr, (2, 1, 1), res)
    except Exception as exc:  # noqa: BLE001 - the oracle's own limits
        return "skipped", f"oracle cannot run: {type(exc).__name__}: {str(exc)[:80]}"

    try:
        shader = Shader(shaderkit.open(raw))
    except VmError as exc:
        return "failed", f"VM refused: {exc}"
    decl = shader.decl
    if any(dim.startswith("texture2dms") for dim, _ in decl.resources.values()):
        return "skipped", "multisampled texture: the oracle binds a single-sampled one (its results are NaN)"
    for slot, words in res.cbuffers.items():
        if slot in shader.constant_buffers:
            shader.set_constant_buffer(slot, np.asarray(words, np.uint32))
    for slot, (words, _fmt) in res.srv_buffers.items():
        stride = decl.structured.get((7, slot), 0)
        dim, ret = decl.resources.get(slot, ("", ""))
        if dim == "buffer":  # typed: the oracle's texel buffer is rgba32f, or r32ui/r32i for int types
            shader.bind_buffer(slot, Buffer(typed=_typed(words, 1 if ret in ("sint", "uint") else 4)))
        else:
            shader.bind_buffer(slot, Buffer(np.asarray(words, np.uint32).copy(), stride))
    for slot, array in res.textures.items():
        dim, ret = decl.resources.get(slot, ("texture2d", "float"))
        data = np.asarray(array)
        if ret in ("sint", "uint"):
            data = data.astype(np.int32 if ret == "sint" else np.uint32)
        if dim == "texture3d" and data.ndim == 3:
            data = data[None]
        shader.bind_texture(slot, Texture.from_array(data, dim if dim != "unknown" else "texture2d"))
    for slot in decl.samplers:  # the oracle's default: nearest, clamp, compare "<="
        shader.bind_sampler(slot, Sampler(filter="point", mip_filter="point", address=("clamp",) * 3,
                                          comparison="less_equal"))
    for slot, (words, _fmt) in res.uav_buffers.items():
        stride = decl.structured.get((30, slot), 0)
        if decl.uav_dimensions.get(slot) == "buffer":  # typed UAV buffer: r32ui/r32i/r32f words
            shader.bind_buffer(slot, Buffer(typed=_typed(words, 1)), uav=True)
        else:
            shader.bind_buffer(slot, Buffer(np.asarray(words, np.uint32).copy(), stride), uav=True)
    for slot, kind in decl.uavs.items():
        dim = decl.uav_dimensions.get(slot, "buffer")
        if kind == "typed" and dim not in ("buffer", "unknown"):
            # the oracle's default storage image: 64x64 zeros, rgba32 (one layer for arrays and 3D)
            shape = (1, 64, 64, 4) if dim in ("texture3d", "texture2darray", "texture1darray") else (64, 64, 4)
            shader.bind_texture(slot, Texture.from_array(np.zeros(shape, np.uint32), dim), uav=True)
            continue
        if (30, slot) not in shader.buffers:
            shader.bind_buffer(slot, Buffer(np.zeros(1024, np.uint32), decl.structured.get((30, slot), 0)), uav=True)
    try:
        if info.stage == "cs":
            shader.dispatch((2, 1, 1))
        else:
            feed = {f"v{loc}": np.asarray(values) for loc, values in inputs.items() if loc < decl.inputs}
            if info.stage == "vs":
                ours = shader.run_vertex(feed, count=n)
            else:
                ours = shader.run_pixel(feed, count=n)
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug: report it as a failure
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    problems: list[str] = []
    if info.stage == "cs":
        for key, words in theirs.items():
            slot = key[1] if isinstance(key, tuple) else key
            buf = shader.buffers.get((30, slot))
            if buf is None:
                tex = shader.uav_textures.get(slot)
                if tex is None:
                    continue
                mine = np.ascontiguousarray(tex.levels[0]).view(np.uint32).reshape(-1)
            else:
                mine = buf.words if buf.typed is None else buf.typed[:, 0].copy()
            size = min(len(mine), len(words))
            if not _close(mine[:size].view(np.float32), np.asarray(words)[:size].view(np.float32)) and \
                    not _close(mine[:size], np.asarray(words)[:size]):
                problems.append(f"u{slot} differs")
        return _verdict(shader, problems)
    position = None
    for element in shader.container.output_signature.elements if shader.container.output_signature else []:
        if element.semantic_name.upper() == "SV_POSITION":
            position = element.register
    written = theirs.get("written") if info.stage == "ps" else None
    for key, value in theirs.items():
        if key == "written" or value is None:
            continue
        if key == "gl_Position":
            reg = position
        elif isinstance(key, tuple):
            reg = key[1]
        elif isinstance(key, int):
            reg = key
        else:
            continue  # depth, mask, clip distances: compared through registers elsewhere
        if reg is None or f"o{reg}" not in ours:
            continue
        mine = ours[f"o{reg}"][:, : np.asarray(value).shape[1]]
        mine = np.ascontiguousarray(mine).view(np.asarray(value).dtype)
        theirs_v = np.asarray(value)
        if written is not None:
            keep = np.asarray(written) & ~ours.discarded
            mine, theirs_v = mine[keep], theirs_v[keep]
        if not _close(mine, theirs_v):
            problems.append(f"o{reg} differs: {_diff(mine, theirs_v)}")
    return _verdict(shader, problems)


#: comparison sampling: the oracle binds RGBA32F colour textures, for which GL leaves depth
#: comparison undefined (llvmpipe returns fractional values where D3D returns 0 or 1)
_COMPARISON_OPCODES = {"sample_c", "sample_c_lz", "gather4_c", "gather4_po_c", "sample_c_cl_s", "sample_c_lz_s",
                       "gather4_c_s", "gather4_po_c_s"}


def _verdict(shader: Any, problems: list[str]) -> tuple[str, str]:
    if not problems:
        return "passed", ""
    from shaderkit.isa.sm4.opcodes import OPCODES

    used = {OPCODES[i.opcode].name for i in shader.program.instructions if i.opcode in OPCODES}
    if used & _COMPARISON_OPCODES:
        return "skipped", ("unverifiable: comparison sampling of a colour texture is undefined in GL "
                           "(the oracle's llvmpipe returns fractions); " + "; ".join(problems))[:300]
    return "failed", "; ".join(problems)


def run_alone(path: Path, n: int = 16) -> tuple[str, str]:
    """Run the VM alone (no oracle) on random inputs and zero-filled resources: ("ran" | "failed" |
    "skipped", reason); the figure for "the VM runs the corpus's vertex, pixel and compute shaders"."""
    import shaderkit
    from shaderkit.vm.sm4 import Buffer, Shader, VmError

    try:
        container = shaderkit.open(path.read_bytes())
    except Exception as exc:  # noqa: BLE001
        return "skipped", f"not a DXBC file: {exc}"
    code = getattr(container, "shader", None)
    if code is None:
        return "skipped", "no SHDR/SHEX program"
    stage = {0: "ps", 1: "vs", 5: "cs"}.get(code.tokens[0] >> 16 & 0xFFFF)
    if stage is None:
        return "skipped", "not vs/ps/cs"
    rng = np.random.default_rng(3)
    try:
        shader = Shader(container)
        decl = shader.decl
        for slot, words in shader.constant_buffers.items():
            shader.set_constant_buffer(slot, rng.integers(0, 8, words.shape).astype(np.uint32))
        for slot, kind in decl.uavs.items():
            if kind != "typed" or decl.uav_dimensions.get(slot) == "buffer":
                shader.bind_buffer(slot, Buffer(np.zeros(4096, np.uint32), decl.structured.get((30, slot), 0)), uav=True)
        if stage == "cs":
            shader.dispatch((2, 1, 1))
        else:
            feed = {f"v{r}": rng.uniform(-2, 2, (n, 4)).astype(np.float32) for r in range(decl.inputs)
                    if r not in decl.system_inputs}
            (shader.run_vertex if stage == "vs" else shader.run_pixel)(feed, count=n)
    except VmError as exc:
        return "failed", f"VM: {exc}"
    except Exception as exc:  # noqa: BLE001 - a VM bug
        return "failed", f"VM crashed: {type(exc).__name__}: {exc}"
    return "ran", ""


def _isolated(path: Path, timeout: float) -> tuple[str, str]:
    """compare_file in a child process: llvmpipe can crash or hang on out-of-range accesses."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    try:
        done = subprocess.run([sys.executable, __file__, "--one", str(path)], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "failed", f"timed out after {timeout:.0f} s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return "failed", f"child exited {done.returncode}: {done.stderr.strip()[-200:]}"
    row = json.loads(lines[-1])
    return row["status"], row["reason"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus" / "dxbc"))
    parser.add_argument("--every", type=int, default=1, help="only every Nth file")
    parser.add_argument("--json", help="write per-file results here")
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per file (run in a child process)")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child mode: one file, one JSON line
    parser.add_argument("--vm-only", action="store_true", help="run the VM alone over every vs/ps/cs (no oracle)")
    args = parser.parse_args(argv)
    if args.vm_only:
        tally = {"ran": 0, "failed": 0, "skipped": 0}
        for path in sorted(Path(args.corpus).glob("*.dxbc"))[:: args.every]:
            start = time.monotonic()
            status, reason = run_alone(path)
            tally[status] += 1
            if status == "failed" or args.verbose:
                print(f"{path.name}: {status} ({time.monotonic() - start:.1f} s) {reason}", flush=True)
        print(f"{tally['ran']} ran, {tally['failed']} failed, {tally['skipped']} skipped (not vs/ps/cs)")
        return 1 if tally["failed"] else 0
    if args.one:
        oracle = load_oracle()
        if oracle is None:
            print(json.dumps({"status": "skipped", "reason": "oracle unavailable"}))
            return 0
        status, reason = compare_file(oracle, Path(args.one))
        print(json.dumps({"status": status, "reason": reason}))
        return 0
    oracle = load_oracle()
    if oracle is None:
        print("the oracle is not available (vkd3d-compiler, spirv-cross, moderngl)", file=sys.stderr)
        return 2
    files = sorted(Path(args.corpus).glob("*.dxbc"))[:: args.every]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    rows = []
    for path in files:
        start = time.monotonic()
        status, reason = _isolated(path, args.timeout)
        seconds = time.monotonic() - start
        counts[status] += 1
        rows.append({"file": path.name, "status": status, "reason": reason, "seconds": round(seconds, 2)})
        if status == "failed" or (args.verbose and status == "skipped"):
            print(f"{path.name}: {status} ({seconds:.1f} s): {reason}", flush=True)
        elif args.verbose:
            print(f"{path.name}: {status} ({seconds:.1f} s)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compare shaderkit's D3D9 VM with the expectations of vkd3d's HLSL tests.

    python tools/d3d9_vm_oracle.py --tests VKD3D_SOURCES/tests/hlsl --compiler vkd3d-compiler [-v]

vkd3d's ``*.shader_test`` files hold HLSL pixel shaders and ``[test]`` sections: uniforms,
textures (``[srv n]``), samplers, ``draw quad`` and ``probe (x, y) rgba (...)`` lines whose
values vkd3d checks against Windows drivers. Each pixel shader is compiled here to ``ps_2_0`` and
``ps_3_0`` token streams with ``vkd3d-compiler -b d3dbc``; each probe runs the shader in the
probed pixel's 2x2 quad (``vPos`` the pixel's integer position, uniforms as float constants from
c0) and compares COLOR0 with the probe (relative and absolute tolerance 2e-3; a pixel ``texkill``
discards keeps the value an earlier draw left there). Skipped, and counted: shaders the
``[require]`` sections keep from a profile, shaders behind a custom vertex shader or with
interpolated inputs, integer uniforms, probes vkd3d marks ``todo`` for SM1-3 (its compiler gets
them wrong), textures in formats other than float RGBA.

Needs vkd3d-compiler 1.10 or later (HLSL to d3dbc; Debian 12's 1.2 reads only DXBC) and the test
files of the same vkd3d release. Measured 2026-11-24 with vkd3d 1.14 and its tests: 534 ps_2_0 and 546 ps_3_0
probes agree, none differ. The only difference before that was rcp(-0), where the VM followed the
reference's pseudo-code (+inf) and the drivers give -inf; the VM now gives -inf. With
``--profiles ps_1_1,ps_1_4`` (vkd3d-compiler's ps_1_x code, which uses SM2 swizzles freely):
405 ps_1_1 and 533 ps_1_4 probes agree, 2 each differ, both expected: ``clip`` tests a value
whose w is negative (texkill in ps_1_x looks at x, y, z only, as drivers do), and
``uninitialized-varyings`` reads a COLOR0 input nobody gave (drivers give white; the VM reads
inputs not given as 0).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from shaderkit.vm.d3d9 import D3D9Shader, Sampler, VMError  # noqa: E402
from shaderkit.vm.sm4 import Texture  # noqa: E402

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan")
PROFILES = ("ps_2_0", "ps_3_0")


def numbers(text: str) -> list[float]:
    """The numbers in ``text``."""
    return [float(x) for x in NUMBER.findall(text)]


def requirement(body: str) -> Any:
    """A ``[require]`` body as a test of shader models (other requirements: never met)."""
    low, high, other = 0.0, 99.0, False
    for line in body.splitlines():
        m = re.match(r"\s*shader model\s*(>=|<)\s*([\d.]+)", line)
        if m:
            if m.group(1) == ">=":
                low = float(m.group(2))
            else:
                high = float(m.group(2))
        elif line.strip() and not line.strip().startswith("%"):
            other = True
    return lambda model: not other and low <= model < high


def texture(body: str) -> Texture | None:
    """An ``[srv n]`` section of float RGBA texels (mip levels in order), else None."""
    size = re.search(r"size\s*\(\s*2d\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", body)
    if not size or re.search(r"^\s*format", body, re.M):
        return None
    width, height = int(size.group(1)), int(size.group(2))
    found = re.search(r"levels\s+(\d+)", body)
    values = numbers(" ".join(line for line in body.splitlines()
                              if line.strip() and not re.match(r"\s*(size|levels)", line)))
    levels, at = [], 0
    for level in range(int(found.group(1)) if found else 1):
        w, h = max(width >> level, 1), max(height >> level, 1)
        if at + w * h * 4 > len(values):
            break
        levels.append(np.array(values[at : at + w * h * 4], np.float32).reshape(1, 1, h, w, 4))
        at += w * h * 4
    return Texture(levels, "texture2d") if levels else None


def sampler(body: str) -> Sampler:
    """A ``[sampler n]`` section."""
    filt = re.search(r"filter\s+(\w+)\s+(\w+)\s+(\w+)", body)
    address = re.search(r"address\s+(\w+)\s+(\w+)\s+(\w+)", body)
    return Sampler(filter="linear" if filt and filt.group(1) == "linear" else "point",
                   mip_filter="linear" if filt and filt.group(3) == "linear" else "point",
                   address=address.groups() if address else ("clamp",) * 3)  # type: ignore[arg-type]


def applies(condition: str) -> bool:
    """Whether an ``if(...)``/``todo(...)`` condition includes SM1-3 (d3d9)."""
    return any(c.strip() in ("sm<4", "sm<6", "d3d9") for c in condition.split("|"))


def run_test(shader: D3D9Shader, body: str, stats: Counter[str], profile: str, where: str, verbose: bool) -> None:
    """The commands of one ``[test]`` section on one compiled shader."""
    uniforms = np.zeros(4 * 256, np.float32)
    skip = drawn = todo_draw = False
    target: dict[tuple[int, int], np.ndarray] = {}
    for raw in body.splitlines():
        line = raw.strip()
        m = re.match(r"if\((.*?)\)\s*(.*)", line)
        if m:
            if not applies(m.group(1)):
                continue
            line = m.group(2)
        t = re.match(r"^todo(\(([^)]*)\))?\s*", line)
        todo = bool(t) and (t is not None and (t.group(2) is None or applies(t.group(2))))
        line = re.sub(r"^todo(\([^)]*\))?\s*", "", line)
        m = re.match(r"uniform\s+(\d+)\s+(\w+)\s+(.*)", line)
        if m:
            skip |= not m.group(2).startswith("float") or "x" in m.group(2)
            values, offset = numbers(m.group(3)), int(m.group(1))
            with np.errstate(over="ignore"):
                uniforms[offset : offset + len(values)] = values
            continue
        if line.startswith("draw quad"):
            drawn, todo_draw = True, todo
            continue
        probe = re.match(r"probe\s*\(([^)]*)\)\s*rgba\s*\(([^)]*)\)", line)
        every = re.match(r"probe\s+all\s+rgba\s*\(([^)]*)\)", line)
        if not (probe or every) or not drawn or skip:
            continue
        if todo or todo_draw:
            stats[f"{profile}: vkd3d todo (not compared)"] += 1
            continue
        if every:
            x, y, expect = 0, 0, numbers(every.group(1))
        else:
            assert probe is not None
            x, y = (int(v) for v in numbers(probe.group(1))[:2])
            expect = numbers(probe.group(2))
        qx, qy = x // 2 * 2, y // 2 * 2
        pos = np.array([[qx, qy, 0, 1], [qx + 1, qy, 0, 1], [qx, qy + 1, 0, 1], [qx + 1, qy + 1, 0, 1]], np.float32)
        shader.set("c0", uniforms.reshape(256, 4))  # c0..c255: the uniforms as float constants
        try:
            out = shader.run(vPos=pos, quads=True)
        except VMError as exc:
            stats[f"{profile}: VMError"] += 1
            print(f"{where} {profile}: {exc}")
            continue
        lane = (y - qy) * 2 + (x - qx)
        got = out["COLOR0"][lane] if "COLOR0" in out else None
        if got is not None and out.discarded[lane]:
            got = target.get((x, y))
            if got is None:
                stats[f"{profile}: discarded, nothing drawn before"] += 1
                continue
        elif got is not None:
            target[(x, y)] = got
        with np.errstate(over="ignore"):
            wanted = np.array(expect, np.float32)
        if got is not None and np.allclose(got, wanted, rtol=2e-3, atol=2e-3, equal_nan=True):
            stats[f"{profile}: agree"] += 1
            continue
        stats[f"{profile}: DIFFER"] += 1
        print(f"{where} {profile}: {line!r} gave {None if got is None else got.tolist()}")
    if verbose:
        print(f"{where} {profile}: done")


def main() -> int:
    """Compile and compare every pixel shader of the test files; print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", required=True, type=Path, help="vkd3d's tests/hlsl folder")
    parser.add_argument("--compiler", required=True, help="vkd3d-compiler")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="profiles to compile to (ps_1_1..ps_3_0)")
    parser.add_argument("-v", action="store_true", help="a line per test section")
    args = parser.parse_args()
    stats: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as work:
        for path in sorted(args.tests.glob("*.shader_test")):
            parts = re.split(r"^\[([^\]]*)\]\s*$", path.read_text("utf-8", "replace"), flags=re.M)
            allowed: Any = lambda model: True  # noqa: E731
            current: Path | None = None
            custom_vs = False
            textures: dict[int, Texture | None] = {}
            samplers: dict[int, Sampler] = {}
            compiled: dict[str, D3D9Shader | None] = {}
            for i in range(1, len(parts), 2):
                head, body = parts[i].strip(), parts[i + 1]
                if head == "require":
                    allowed = requirement(body)
                elif head.startswith("srv"):
                    textures[int(head.split()[1])] = texture(body)
                elif head.startswith("sampler"):
                    samplers[int(head.split()[1])] = sampler(body)
                elif head.startswith("vertex shader"):
                    custom_vs = True
                elif head.startswith("pixel shader"):
                    current, compiled = None, {}
                    if "fail" not in head and "todo" not in head:
                        current = Path(work) / f"{path.stem}_{i}.hlsl"
                        current.write_text(body)
                elif head == "test" and current is not None:
                    if custom_vs:
                        stats["custom vertex shader (skipped)"] += 1
                        continue
                    for profile in args.profiles.split(","):
                        if not allowed(float(f"{profile[3]}.{profile[5]}")):
                            stats[f"{profile}: not this shader model"] += 1
                            continue
                        if profile not in compiled:
                            compiled[profile] = compile_shader(args.compiler, current, profile)
                        shader = compiled[profile]
                        if shader is None:
                            stats[f"{profile}: not compiled"] += 1
                            continue
                        if any(name not in ("VPOS0", "VFACE0") for name in shader.inputs):
                            stats[f"{profile}: interpolated inputs (skipped)"] += 1
                            continue
                        for stage, tex in textures.items():
                            if tex is not None:
                                shader.texture(stage, tex, samplers.get(stage, Sampler("point", "point", ("clamp",) * 3)))
                        run_test(shader, body, stats, profile, f"{path.name}[{i}]", args.v)
    for key, value in sorted(stats.items()):
        print(value, key)
    return 1 if any("DIFFER" in key or "VMError" in key for key in stats) else 0


def compile_shader(compiler: str, source: Path, profile: str) -> D3D9Shader | None:
    """``source`` compiled to ``profile`` by vkd3d-compiler, loaded in the VM; None if it fails."""
    out = source.with_suffix(f".{profile}.bin")
    try:
        subprocess.run([compiler, "-x", "hlsl", "-p", profile, "-b", "d3dbc", "-o", str(out), str(source)],
                       capture_output=True, timeout=60, check=True)
        return D3D9Shader.load(out)
    except (subprocess.SubprocessError, OSError, ValueError):
        return None


if __name__ == "__main__":
    sys.exit(main())

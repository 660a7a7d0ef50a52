"""The fast path (instructions compiled into closures over component rows, runs in chunks) against
the general path (Machine.execute per instruction, one piece), which the oracle tests check.

Every corpus vertex and pixel shader runs twice on the same inputs, mixed with the values the two
paths treat specially (denormals of both signs, signed zeros, NaN, infinities, integer bit
patterns): once as ``Shader`` runs it, in chunks of 8 lanes, and once with no instruction compiled
and no chunks. Every output bit and the discard mask must be identical, except that a NaN may
come out as another NaN: which operand's payload a NumPy loop propagates (contiguous rows against
strided columns) is not fixed, and D3D does not define NaN payloads either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import shaderkit
import shaderkit.vm.sm4 as vm
from conftest import corpus_files
from shaderkit.vm.sm4.fast import Fast, flush_row
from shaderkit.vm.sm4.machine import CompiledBlock, build_tree

SPECIAL = np.array([0x00000001, 0x807FFFFF, 0x00400000, 0x80000000, 0, 0x7FC00000, 0x7F800000, 0xFF800000,
                    0x3F800000, 0xBF800000, 0x00800000, 0xFFFFFFFF, 0x7FFFFFFF, 5], np.uint32)


def _stage(path: Path) -> str | None:
    data = path.read_bytes()
    try:
        container = shaderkit.open(data)
    except Exception:  # noqa: BLE001 - not every corpus file is a shader program
        return None
    code = getattr(container, "shader", None)
    return None if code is None else {0: "pixel", 1: "vertex"}.get(code.tokens[0] >> 16 & 0xFFFF)


FILES = [p for p in corpus_files("dxbc", "*.dxbc") if _stage(p) is not None]


def _inputs(shader: Any, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
    feed = {}
    for register in range(shader.decl.inputs):
        if register in shader.decl.system_inputs:
            continue
        bits = rng.uniform(-4, 4, (count, 4)).astype(np.float32).view(np.uint32)
        odd = rng.random((count, 4)) < 0.3
        bits[odd] = rng.choice(SPECIAL, int(odd.sum()))
        feed[f"v{register}"] = bits.view(np.float32)
    return feed


def _run(path: Path, fast: bool, count: int) -> dict[str, np.ndarray]:
    shader = vm.Shader(shaderkit.open(path.read_bytes()), max_steps=2_000)  # inf/NaN inputs can make loops endless
    if not fast:
        main, functions = build_tree(shader.program.instructions)
        shader.main, shader.functions = CompiledBlock(main), functions  # marked compiled: nothing is
    rng = np.random.default_rng(7)
    for slot, words in shader.constant_buffers.items():
        values = rng.uniform(-2, 2, words.shape).astype(np.float32).view(np.uint32)
        values.reshape(-1)[::3] = rng.choice(SPECIAL, values.reshape(-1)[::3].shape)
        shader.set_constant_buffer(slot, values)
    feed = _inputs(shader, rng, count)
    if shader.stage == "vertex":
        out = shader.run_vertex(feed, count=count)
    else:
        out = shader.run_pixel(feed, count=count, quads=True)
    result = {key: np.ascontiguousarray(out[key]).view(np.uint32) for key in out if key[:1] == "o"}
    result["discarded"] = out.discarded
    return result


def _same(got: np.ndarray, expected: np.ndarray) -> bool:
    if got.dtype == bool:
        return bool(np.array_equal(got, expected))
    both_nan = np.isnan(got.view(np.float32)) & np.isnan(expected.view(np.float32))
    return bool(((got == expected) | both_nan).all())


@pytest.mark.skipif(not FILES, reason="corpus not found")
def test_fast_chunked_path_equals_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    count = 20  # not a multiple of the chunk: the last chunk is shorter
    compared = compiled = 0
    for path in FILES:
        monkeypatch.setattr(vm, "CHUNK_LANES", 1 << 30)
        try:
            expected = _run(path, False, count)
        except vm.VmError:
            continue  # needs resources or features these inputs do not give; the oracle covers it
        monkeypatch.setattr(vm, "CHUNK_LANES", 8)
        got = _run(path, True, count)
        assert got.keys() == expected.keys(), path.name
        for key in expected:
            assert _same(got[key], expected[key]), f"{path.name} {key}"
        compared += 1
        shader = vm.Shader(shaderkit.open(path.read_bytes()))
        compiled += sum(type(node) is Fast for node in shader.main)
    assert compared >= 200 and compiled >= 2000, (compared, compiled)


def test_flush_row_keeps_sign_and_normal_values() -> None:
    bits = np.array([1, 0x80000001, 0x007FFFFF, 0x00800000, 0x80000000, 0x7FC00001, 0x3F800000], np.uint32)
    out = flush_row(bits.view(np.float32), owned=False).view(np.uint32)
    assert out.tolist() == [0, 0x80000000, 0, 0x00800000, 0x80000000, 0x7FC00001, 0x3F800000]
    assert bits[0] == 1  # not owned: the caller's array is left alone
    normal = np.array([1.0, -2.0], np.float32)
    assert flush_row(normal, owned=False) is normal

"""Every run of ../shared/corpus/pica/vm/vectors.jsonl (azahar's interpreter) reproduced bit for bit:
o0-o15, geometry-shader primitives (vertices and winding) and the instruction count."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from conftest import corpus_root

np = pytest.importorskip("numpy")

from shaderkit.vm.pica import PicaShader, f24_to_f32  # noqa: E402


def _vectors() -> dict[tuple[str, int], list[dict]]:
    root = corpus_root()
    path = root / "pica" / "vm" / "vectors.jsonl" if root else None
    groups: dict[tuple[str, int], list[dict]] = defaultdict(list)
    if path is None or not path.is_file():
        return groups
    with path.open() as handle:
        for line in handle:
            run = json.loads(line)
            groups[(run["file"], run["dvle"])].append(run)
    return groups


VECTORS = _vectors()
PARAMS = [pytest.param(key, id=f"{key[0]}#{key[1]}") for key in sorted(VECTORS)] or [
    pytest.param(None, marks=pytest.mark.skip(reason="corpus pica/vm/vectors.jsonl not found"))]


def floats(words: list[str]) -> np.ndarray:
    return np.array([int(w, 16) for w in words], np.uint32).view(np.float32)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-identical, any NaN equal to any NaN."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    return a.shape == b.shape and bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))))


def run_vector(data: bytes, run: dict) -> list[str]:
    """Problems of one run (empty when every output matches)."""
    shader = PicaShader.load(data, run["dvle"])
    problems = []
    for reg, words in run["float24_uniforms"].items():
        if not same_bits(shader.float_uniforms[int(reg[1:])], [f24_to_f32(int(w, 16)) for w in words]):
            problems.append(f"constant {reg} decodes differently")
    for reg, words in run["float_uniforms"].items():
        shader.set_uniform(reg, floats(words))
    for reg, values in run["int_uniforms"].items():
        shader.set_uniform(reg, values)
    for bit in range(16):
        shader.set_uniform(f"b{bit}", bool(run["bool_uniforms"] >> bit & 1))
    inputs = {reg: floats(words)[None, :] for reg, words in run["inputs"].items()}
    result = shader.run(inputs)
    expected = run["expected"]
    for reg, words in enumerate(expected["o"]):
        if not same_bits(result.o[0, reg], floats(words)):
            problems.append(f"o{reg}: {result.o[0, reg].view(np.uint32)} != {words}")
    if int(result.steps[0]) != expected["steps"]:
        problems.append(f"steps {int(result.steps[0])} != {expected['steps']}")
    if expected["primitives"] is None:
        if result.primitives is not None:
            problems.append("a vertex shader produced primitives")
    else:
        got = result.primitives[0] if result.primitives else []
        if len(got) != len(expected["primitives"]):
            problems.append(f"{len(got)} primitives, expected {len(expected['primitives'])}")
        for k, (prim, want) in enumerate(zip(got, expected["primitives"])):
            vertices = np.array([[floats(r) for r in vertex] for vertex in want["v"]])
            if prim.winding != bool(want["winding"]) or not same_bits(prim.vertices, vertices):
                problems.append(f"primitive {k} differs")
    return problems


@pytest.mark.parametrize("key", PARAMS)
def test_vectors_bit_identical(key: tuple[str, int]) -> None:
    data = (corpus_root() / "pica" / key[0]).read_bytes()  # type: ignore[operator]
    failures = {run["case"]: problems for run in VECTORS[key] if (problems := run_vector(data, run))}
    assert not failures, failures


def test_vectors_cover_all_27_dvles_and_a_geometry_shader() -> None:
    if not VECTORS:
        pytest.skip("corpus pica/vm/vectors.jsonl not found")
    assert len(VECTORS) == 27 and sum(map(len, VECTORS.values())) == 1350
    assert any(run["expected"]["primitives"] for runs in VECTORS.values() for run in runs)


def test_a_changed_expectation_is_caught() -> None:
    """The comparison can fail: flip one output bit and one step count of a real run."""
    if not VECTORS:
        pytest.skip("corpus pica/vm/vectors.jsonl not found")
    key = sorted(VECTORS)[0]
    run = json.loads(json.dumps(VECTORS[key][0]))
    run["expected"]["o"][0][0] = f"{int(run['expected']['o'][0][0], 16) ^ 1:08x}"
    run["expected"]["steps"] += 1
    data = (corpus_root() / "pica" / key[0]).read_bytes()  # type: ignore[operator]
    problems = run_vector(data, run)
    assert len(problems) == 2 and problems[0].startswith("o0:") and problems[1].startswith("steps")


def test_lanes_match_single_runs() -> None:
    """All 50 input sets of each DVLE as 50 lanes of one run (the first run's uniforms) give the
    same outputs, steps and primitives as one-lane runs (first, a middle and the last): lanes do not leak into each other,
    also where they diverge (jmpc/ifc shaders)."""
    if not VECTORS:
        pytest.skip("corpus pica/vm/vectors.jsonl not found")
    for (name, dvle), runs in sorted(VECTORS.items()):
        shader = PicaShader.load((corpus_root() / "pica" / name).read_bytes(), dvle)  # type: ignore[operator]
        for reg, words in runs[0]["float_uniforms"].items():
            shader.set_uniform(reg, floats(words))
        inputs = np.zeros((len(runs), 16, 4), np.float32)
        for lane, run in enumerate(runs):
            for reg, words in run["inputs"].items():
                inputs[lane, int(reg[1:])] = floats(words)
        together = shader.run(inputs)
        for lane in (0, len(runs) // 3, len(runs) - 1):
            alone = shader.run(inputs[lane:lane + 1])
            assert same_bits(together.o[lane], alone.o[0]), (name, dvle, lane)
            assert together.steps[lane] == alone.steps[0]
            if alone.primitives is not None:
                assert together.primitives is not None
                got, want = together.primitives[lane], alone.primitives[0]
                assert [p.winding for p in got] == [p.winding for p in want]
                assert all(same_bits(a.vertices, b.vertices) for a, b in zip(got, want))

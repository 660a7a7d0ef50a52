"""The D3D9 VM on the level-9 programs of corpus DXBC files: every one runs, and two DirectXTK
pixel shaders give the values of their HLSL (AlphaTestEffect, BasicEffect: color * diffuse, the
alpha test's clip, ApplyFog's lerp toward FogColor * alpha) worked out by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shaderkit
from conftest import corpus_files, corpus_params
from shaderkit.formats.dxbc.aon9 import bare_programs
from shaderkit.vm.d3d9 import D3D9Shader


def _level9(path: Path) -> D3D9Shader:
    programs = list(bare_programs(shaderkit.open(str(path))))
    assert programs, path
    return D3D9Shader.from_bytes(programs[0][1].program)


@pytest.mark.parametrize("path", corpus_params("dxbc", "directxtk__AlphaTestEffect_PSAlphaTestLtGt.dxbc"))
def test_alpha_test_and_fog(path: Path) -> None:
    sh = _level9(path)
    sh.texture("s0", np.array([[[0.5, 0.25, 1.0, 0.8]]], np.float32))
    sh.set("c0", [0.3, 0, 1, -1])  # AlphaTest: reference 0.3, pass 1, fail -1
    sh.set("c1", [1, 1, 1, 0])  # FogColor
    diffuse = [[1, 0.5, 0.5, 0.5], [1, 0.5, 0.5, 0.25]]
    out = sh.run(t0=diffuse, t1=[[0, 0, 0, 0.25]] * 2, t2=[[0.5, 0.5]] * 2)
    # alpha = 0.8 * diffuse.a = 0.4 / 0.2: LtGt clips alpha >= reference (0.4), keeps 0.2
    assert out.discarded.tolist() == [True, False]
    # lane 1: color = (0.5, 0.125, 0.5, 0.2); fog 0.25 toward FogColor * 0.2
    expect = [0.5 + 0.25 * (0.2 - 0.5), 0.125 + 0.25 * (0.2 - 0.125), 0.5 + 0.25 * (0.2 - 0.5), 0.2]
    np.testing.assert_allclose(out["COLOR0"][1], expect, rtol=1e-6)


@pytest.mark.parametrize("path", corpus_params("dxbc", "directxtk__BasicEffect_PSBasic.dxbc"))
def test_basic_effect_fog(path: Path) -> None:
    sh = _level9(path).set("c0", [0.0, 0.5, 1.0, 0])
    out = sh.run(t0=[[0.2, 0.4, 0.6, 0.5]], t1=[[0, 0, 0, 0.5]])
    # lerp(color, FogColor * color.a, 0.5) = (0.1, 0.325, 0.55), alpha kept
    np.testing.assert_allclose(out["oC0"], [[0.1, 0.325, 0.55, 0.5]], rtol=1e-6)


def _with_level9(paths: list[Path]) -> list[Path]:
    """The corpus DXBC files that hold a level-9 program (a cheap FourCC check, then parsed)."""
    found = []
    for path in paths:
        data = path.read_bytes()
        if any(tag in data for tag in (b"Aon9", b"XNAS", b"XNAP")) and list(bare_programs(shaderkit.open(data))):
            found.append(path)
    return found


LEVEL9 = _with_level9(corpus_files("dxbc", "*.dxbc"))


def test_the_corpus_has_level9_programs() -> None:
    if not corpus_files("dxbc", "*.dxbc"):
        pytest.skip("corpus not found (set SHADERKIT_CORPUS)")
    assert len(LEVEL9) > 0


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in LEVEL9])
def test_every_level9_program_runs(path: Path) -> None:
    programs = list(bare_programs(shaderkit.open(str(path))))
    assert programs
    for _k, chunk in programs:
        sh = D3D9Shader.from_bytes(chunk.program)
        rng = np.random.default_rng(0)
        for stage, dim in sh.sampler_types.items():
            shape = {"texture2d": (2, 2, 4), "texturecube": (6, 2, 2, 4), "texture3d": (2, 2, 2, 4)}[dim]
            sh.texture(stage, rng.uniform(0, 1, shape))
        out = sh.run({name: rng.uniform(-1, 1, (4, 4)) for name in sh.inputs}, lanes=4)
        assert all(np.asarray(v).shape == (4, 4) for v in out.registers.values())


@pytest.mark.parametrize("path", corpus_params("dxbc", "directxtk__BasicEffect_PSBasic.dxbc"))
def test_load_opens_files_and_names_the_wrong_format(path: Path, tmp_path: Path) -> None:
    from shaderkit.formats.d3d9.assemble import assemble_shader
    from shaderkit.vm.d3d9 import VMError

    vso = tmp_path / "add.vso"
    vso.write_bytes(assemble_shader("vs_2_0\ndcl_position v0\nadd oPos, v0, c0\n").to_bytes())
    sh = D3D9Shader.load(vso).set("c0", [1, 2, 3, 4])
    np.testing.assert_array_equal(sh.run(v0=[[1, 1, 1, 1]])["oPos"], [[2, 3, 4, 5]])
    with pytest.raises(VMError, match="not a bare D3D9 shader"):
        D3D9Shader.load(path)  # a DXBC container: its level-9 program is not the file

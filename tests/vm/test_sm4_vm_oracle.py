"""The SM4/SM5 VM against the independent DXBC oracle (vkd3d -> SPIR-V -> GLSL -> Mesa llvmpipe).

A fixed, fast subset of corpus vertex, pixel, compute, geometry, hull and domain shaders (and the
fixed-function tessellator alone) runs on both with the same random
inputs (the oracle's own generators, fixed seed); outputs must agree exactly for integer results
and within tools/sm4_vm_oracle.py's float tolerance. The whole sweep is
``python tools/sm4_vm_oracle.py``. Skipped with a reason when the oracle or its packages
(vkd3d-compiler, spirv-cross, moderngl + Mesa EGL) or the corpus are missing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import corpus_root

ROOT = Path(__file__).resolve().parents[2]

SUBSET = [
    "angle__clear11vs__g_VS_Clear.dxbc",  # vs: icb indexed by SV_VertexID
    "slimshader__Tests_HlslCrossCompiler_vs5_mad_imm.dxbc",  # vs: mad with immediates
    "directxtk__AlphaTestEffect_VSAlphaTest.dxbc",  # vs: cbuffer matrices
    "directxtk12__DebugEffect_PSHemiAmbient.dxbc",  # ps: rsq, cbuffer
    "angle__multiplyalpha_ftoi_pm_rgba_3d_ps__g_PS_FtoI_PM_RGBA_3D.dxbc",  # ps: 3D texture, ftoi
    "dxdecompiler__HlslCrossCompiler_ps4_primID.dxbc",  # ps: system value
    "slimshader__Tests_Sdk_Direct3D11_BasicCompute11_BasicCompute11_Structured.dxbc",  # cs: structured
    "dxdecompiler__Sdk_Direct3D11_BasicCompute11_BasicCompute11_Raw.dxbc",  # cs: raw buffers
    "slimshader__Tests_Sdk_Direct3D11_AdaptiveTessellationCS40_TessellatorCS40_ScatterIDCS_Index.dxbc",  # cs: loops
    "dxdecompiler__HlslCrossCompiler_vs4_switch.dxbc",  # vs: switch
    "slimshader__Tests_Sdk_Direct3D11_DetailTessellation11_Particle_PS.dxbc",  # ps: discard
    "slimshader__Tests_Sdk_Direct3D11_ComputeShaderSort11_ComputeShaderSort11_BitonicSort.dxbc",  # cs: groupshared, sync, loop
    "slimshader__Tests_Sdk_Direct3D11_HDRToneMappingCS11_ReduceToSingleCS.dxbc",  # cs: groupshared reduction
]


def _tool() -> Any:
    path = ROOT / "tools" / "sm4_vm_oracle.py"
    spec = importlib.util.spec_from_file_location("sm4_vm_oracle_tool", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["sm4_vm_oracle_tool"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def oracle() -> tuple[Any, Any]:
    tool = _tool()
    found = tool.load_oracle()
    if found is None:
        pytest.skip("the DXBC oracle is not available: needs ../shared/tools/dxbc_oracle.py, vkd3d-compiler, "
                    "spirv-cross and moderngl with Mesa EGL (see .ci/run)")
    try:
        tool._gl(found)
    except Exception as exc:  # noqa: BLE001 - no EGL/llvmpipe on this machine
        pytest.skip(f"the oracle cannot create a GL context: {type(exc).__name__}: {exc}")
    return tool, found


def _corpus_paths(*names: str) -> list[Path]:
    """The corpus DXBC files ``names`` (the test skips when one is missing)."""
    root = corpus_root()
    if root is None or not all((root / "dxbc" / name).exists() for name in names):
        pytest.skip(f"corpus files {names} not found")
    return [root / "dxbc" / name for name in names]


def _assert_compared(result: tuple[str, str]) -> None:
    """The oracle's verdict is "passed" and it compared at least one primitive."""
    status, reason = result
    assert status == "passed", reason
    assert not reason.startswith("0 "), "no primitive was compared"


@pytest.mark.parametrize("name", SUBSET)
def test_vm_agrees_with_oracle(oracle: tuple[Any, Any], name: str) -> None:
    (path,) = _corpus_paths(name)
    tool, found = oracle
    status, reason = tool.compare_file(found, path)
    assert status == "passed", reason


#: geometry shaders: triangle strips from points, instanced points, lines with adjacency to
#: points with cut, 18-vertex strips with cut per cube face
GS_SUBSET = [
    "slimshader__Tests_Sdk_Direct3D11_FluidCS11_FluidRender_GS.dxbc",
    "dxdecompiler__HlslCrossCompiler_gs5_instance.dxbc",
    "dxdecompiler__3Dmigoto_geometry.dxbc",
    "slimshader__Tests_Sdk_Direct3D10_CubeMapGS_GS_CubeMap_GS.dxbc",
]

#: hull + domain pairs: quad (integer, Bezier), tri (fractional odd, displacement texture in the
#: domain shader), isoline (density/detail, which vkd3d 1.2 swaps and the tool swaps back)
TESS_SUBSET = [
    ("slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_SimpleBezier11_SimpleBezier11_DS.dxbc"),
    ("slimshader__Tests_Sdk_Direct3D11_DetailTessellation11_DetailTessellation11_HS.dxbc",
     "slimshader__Tests_Sdk_Direct3D11_DetailTessellation11_DetailTessellation11_DS.dxbc"),
    ("slimshader__Tests_HlslCrossCompiler_hs5_basic.dxbc", "slimshader__Tests_HlslCrossCompiler_ds5_basic.dxbc"),
]


@pytest.mark.parametrize("name", GS_SUBSET)
def test_geometry_shader_agrees_with_oracle(oracle: tuple[Any, Any], name: str) -> None:
    (path,) = _corpus_paths(name)
    tool, found = oracle
    _assert_compared(tool.compare_geometry(found, path))


@pytest.mark.parametrize("pair", TESS_SUBSET, ids=lambda pair: pair[0].split("__")[-1][:40])
def test_hull_domain_pair_agrees_with_oracle(oracle: tuple[Any, Any], pair: tuple[str, str]) -> None:
    paths = _corpus_paths(*pair)
    tool, found = oracle
    _assert_compared(tool.compare_tessellation(found, *paths))


def test_tessellator_agrees_with_gl(oracle: tuple[Any, Any]) -> None:
    """Every domain x spacing x output primitive, 3 random patches each (the tool's
    ``--tessellator N`` runs more): the same domain points in the same primitive order as Mesa."""
    tool, found = oracle
    problems = [p for case in tool.tessellator_sweep(found, 3).values() for p in case]
    assert not problems, problems[:3]


#: hull shaders alone (a generated evaluation stage captures the domain points, the factors,
#: the patch constants and the output control points): PNTriangles11 (fork + join phases; its
#: CENTER is not compared, vkd3d 1.2 gets it wrong) and SubD11 (32 input points, 16 output)
HULL_SUBSET = [
    "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_HS.dxbc",
    "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_HS_4444.dxbc",
]


@pytest.mark.parametrize("name", HULL_SUBSET)
def test_hull_shader_alone_agrees_with_oracle(oracle: tuple[Any, Any], name: str) -> None:
    (path,) = _corpus_paths(name)
    tool, found = oracle
    _assert_compared(tool.compare_tessellation(found, path))


#: domain shaders alone (generated TCS: random control points, patch constants and factors, three
#: spacings): PNTriangles11 (patch constants packed at component 1), SubD11 (16 control points,
#: a displacement texture)
DOMAIN_SUBSET = [
    "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_DS.dxbc",
    "slimshader__Tests_Sdk_Direct3D11_SubD11_SubD11_DS.dxbc",
]


@pytest.mark.parametrize("name", DOMAIN_SUBSET)
def test_domain_shader_alone_agrees_with_oracle(oracle: tuple[Any, Any], name: str) -> None:
    (path,) = _corpus_paths(name)
    tool, found = oracle
    _assert_compared(tool.compare_domain(found, path))

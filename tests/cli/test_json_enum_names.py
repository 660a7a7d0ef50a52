"""``info --json`` gives enum names beside the numbers (``<key>_name``), checked against fxc's
listings (resource-binding Format/Dim columns, dcl_inputprimitive / dcl_outputtopology /
dcl_tessellator_domain, the function parameter Type column) and hand-known values."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import corpus_files, run_cli

DXBC = corpus_files("dxbc", "*.dxbc")

#: fxc's Dim column -> D3D_SRV_DIMENSION name (d3dcommon.h)
FXC_DIMENSIONS = {"buf": "buffer", "1d": "texture1d", "1darray": "texture1darray", "2d": "texture2d",
                  "2darray": "texture2darray", "2dMS": "texture2dms", "2dMSarray": "texture2dmsarray",
                  "3d": "texture3d", "cube": "texturecube", "cubearray": "texturecubearray"}


def _summaries(model: Any) -> list[dict[str, Any]]:
    """The container's summary and those of its library functions."""
    summary = model.summary()
    return [summary, *summary.get("functions", [])]


def _fxc_bindings(listing: str) -> list[tuple[str, str, str, str]]:
    """(name, Type, Format, Dim) of each row of fxc's Resource Bindings table."""
    rows = []
    lines = listing.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("// Resource Bindings:"):
            for row in lines[i + 4:]:
                parts = row[2:].split()
                if len(parts) < 6:
                    break
                rows.append((parts[0], parts[1], parts[2], parts[3]))
    return rows


def test_binding_names_match_fxc_format_and_dim() -> None:
    from shaderkit.formats.dxbc.container import DxbcContainer

    if not DXBC:
        pytest.skip("corpus not found")
    checked = 0
    for path in DXBC:
        theirs = _fxc_bindings(path.with_suffix(".fxc.asm").read_text(errors="replace"))
        if not theirs:
            continue
        model = DxbcContainer.from_bytes(path.read_bytes())
        ours = {b["name"]: b for s in _summaries(model) for b in s.get("resource_bindings", [])}
        for name, kind, fmt, dim in theirs:
            binding = ours.get(name)
            if binding is None:
                continue
            assert isinstance(binding["return_type"], int) and isinstance(binding["dimension"], int)
            if kind == "cbuffer":  # fxc prints NA; samplers too, though old compilers store float for them
                assert binding["return_type_name"] == "none", (path.name, name)
            elif fmt not in ("NA", "struct", "byte") and not fmt.startswith(("mixed", "double")):
                assert fmt.startswith(binding["return_type_name"]), (path.name, name, fmt, binding)
            if dim in FXC_DIMENSIONS:
                assert binding["dimension_name"] == FXC_DIMENSIONS[dim], (path.name, name, dim, binding)
                checked += 1
    assert checked > 100


def test_statistics_names_match_fxc_declarations() -> None:
    from shaderkit.formats.dxbc.container import DxbcContainer

    if not DXBC:
        pytest.skip("corpus not found")
    seen = set()
    for path in DXBC:
        listing = path.with_suffix(".fxc.asm").read_text(errors="replace")
        declared = {
            "input_primitive_name": re.findall(r"dcl_inputprimitive (\w+)", listing),
            "gs_output_topology_name": re.findall(r"dcl_outputtopology (\w+)", listing),
            "tessellator_domain_name": [d.removeprefix("domain_") for d in re.findall(r"dcl_tessellator_domain (\w+)", listing)],
        }
        if not any(declared.values()):
            continue
        model = DxbcContainer.from_bytes(path.read_bytes())
        stat = model.summary().get("statistics")
        if stat is None:
            continue
        for key, values in declared.items():
            if len(set(values)) == 1:
                # fxc spells the adjacency primitives without the underscore (lineadj)
                assert stat[key].replace("_", "") == values[0], (path.name, key, stat[key], values)
                assert isinstance(stat[key.removesuffix("_name")], int)
                seen.add((key, values[0]))
    assert {("input_primitive_name", "triangle"), ("gs_output_topology_name", "trianglestrip"),
            ("tessellator_domain_name", "quad")} <= seen


def test_function_parameter_names_match_fxc_type_column(corpus: Path) -> None:
    from shaderkit.formats.dxbc.container import DxbcContainer

    path = corpus / "dxbc" / "dxdecompiler__Internal_Misc_LibraryTest2_4_0.dxbc"
    listing = path.with_suffix(".fxc.asm").read_text()
    # "// position  v0 1 xyzw  o0 1 xyzw inout float4": the last word is the HLSL type
    types = re.findall(r"^// (\w+) .*\s(?:in|out|inout) (\w+?)(\d?)$", listing, re.MULTILINE)
    rows = [p for s in _summaries(DxbcContainer.from_bytes(path.read_bytes())) for p in s.get("function_parameters", [])]
    by_name = {}
    for p in rows:
        by_name.setdefault(p["name"], p)
    assert types
    for name, scalar, count in types:
        row = by_name[name]
        assert row["variable_type_name"] == scalar
        assert row["variable_class_name"] == ("vector" if count else "scalar")
        assert row["interpolation_mode_name"] == "undefined" and row["interpolation_mode"] == 0


def test_bnsh_names(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "info", "--json", str(corpus / "nx" / "wiixl_quad_carray.bnsh"))
    assert code == 0, err
    record = json.loads(out)
    # grsc targetApiType 4 is NVN (shared/reference/nx_wiiu.md)
    assert record["target_api_type"] == 4 and record["target_api_type_name"] == "nvn"
    rows = record["compiler_reflection"]
    assert rows
    stages = ["vertex", "hull", "domain", "geometry", "pixel", "compute"]
    for row in rows:
        assert isinstance(row["stages"], int)
        if "shader_slots" in row:  # one slot per stage, -1 unused: the stages the bits name
            assert row["stages_names"] == [s for s, slot in zip(stages, row["shader_slots"]) if slot >= 0]
    assert {r["name"]: r["stages_names"] for r in rows}["a_Position"] == ["vertex"]


def test_text_view_shows_name_with_number_once(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus / "dxbc" / "angle__multiplyalpha_ftof_pm_luma_3d_ps__g_PS_FtoF_PM_LUMA_3D.dxbc"
    code, out, err = run_cli(capsys, "info", "--width", "200", str(path))
    assert code == 0, err
    assert "texture3d (8)" in out and "float (5)" in out
    assert "dimension_name" not in out and "return_type_name" not in out

"""The README's ``shaderkit.testing`` examples run as written, on files of the corpus."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO_ROOT, corpus_root

#: the short names the README uses -> corpus files
FILES = {
    "RenderVarianceShadow_VS.dxbc": "slimshader__Tests_Sdk_Direct3D11_VarianceShadows11_RenderVarianceShadow_VS.dxbc",
    "BasicHLSL_PS.dxbc": "slimshader__Tests_Sdk_Direct3D11_BasicHLSL11_BasicHLSL_PS.dxbc",
    "BasicCompute11_Structured.dxbc": "slimshader__Tests_Sdk_Direct3D11_BasicCompute11_BasicCompute11_Structured.dxbc",
    "PNTriangles11_HS.dxbc": "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_HS.dxbc",
    "PNTriangles11_DS.dxbc": "slimshader__Tests_Sdk_Direct3D11_PNTriangles11_PNTriangles11_DS.dxbc",
}


def _examples() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"<!-- sm4-vm-example -->\n```python\n(.*?)```", text, re.S)


def test_readme_has_the_examples() -> None:
    assert len(_examples()) == 4


@pytest.mark.parametrize("index", range(4))
def test_readme_example_runs(index: int, tmp_path: Path) -> None:
    root = corpus_root()
    if root is None:
        pytest.skip("corpus not found")
    for short, name in FILES.items():
        (tmp_path / short).write_bytes((root / "dxbc" / name).read_bytes())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(_examples()[index], f"README example {index + 1}", "exec"), {})
    finally:
        os.chdir(cwd)

"""The library surface: open() from paths, bytes and binary files, typed by class; save(); reprs."""

from __future__ import annotations

import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shaderkit
from shaderkit.formats.dvlb.dvlb import Dvlb
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.samples import SAMPLES

REPO = Path(__file__).resolve().parents[2]


def test_open_accepts_paths_bytes_and_binary_files(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    path = tmp_path / "vs.dxbc"
    path.write_bytes(data)
    with path.open("rb") as handle:
        models = [shaderkit.open(path), shaderkit.open(str(path)), shaderkit.open(data),
                  shaderkit.open(bytearray(data)), shaderkit.open(handle), shaderkit.open(io.BytesIO(data))]
    assert all(m.to_bytes() == data for m in models)
    with pytest.raises(TypeError, match="binary mode"):
        shaderkit.open(io.StringIO("DXBC"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        shaderkit.open(42)  # type: ignore[arg-type]


def test_open_with_a_class_checks_the_format(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    assert isinstance(shaderkit.open(data, DxbcContainer), DxbcContainer)
    with pytest.raises(shaderkit.ShaderFormatError, match="expected Dvlb"):
        shaderkit.open(data, Dvlb)


def test_save_writes_the_same_bytes(tmp_path: Path) -> None:
    data = SAMPLES["sample_vs.dxbc"]()
    target = tmp_path / "out.dxbc"
    shaderkit.open(data).save(target)
    assert target.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["out.dxbc"]  # no temporary file left


def test_reprs_are_compact(corpus: Path) -> None:
    for pattern in ("pica/*.shbin", "wiiu/*.gsh", "wiiu/*.sharcfb", "wiiu/*.sharc"):
        for path in sorted(corpus.glob(pattern))[:5]:
            text = repr(shaderkit.open(path))
            assert len(text) <= 240 and text.startswith("<") and text.endswith(">"), (path.name, len(text))


def _readme_example() -> str:
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return next(b for b in blocks if "shaderkit.open(" in b)


def _mypy_strict(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    example = tmp_path / "example.py"
    example.write_text(source)
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--config-file", str(config),
         "--cache-dir", str(REPO / ".mypy_cache" / "readme"), str(example)],
        capture_output=True, text=True, cwd=tmp_path, env={"MYPYPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy not installed")
def test_readme_example_type_checks_strict(tmp_path: Path) -> None:
    result = _mypy_strict(_readme_example(), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # the check can fail: the untyped form (no class given) is an error under --strict
    result = _mypy_strict(_readme_example().replace(", DxbcContainer)", ")"), tmp_path)
    assert result.returncode == 1 and "input_signature" in result.stdout, result.stdout + result.stderr

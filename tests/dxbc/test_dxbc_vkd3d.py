"""Oracle: vkd3d-compiler 1.2 turns our rebuilt (and edited) containers into the recorded SPIR-V.

vkd3d checks the magic, the checksum, the chunk index and decodes the whole program, so equal
SPIR-V hashes show that the rebuilt bytes are accepted and carry the same program. Two edits:
renaming one non-system-value semantic (vkd3d does not use those names in SPIR-V), and adding a
cbuffer variable while dropping STAT; both change chunk layouts, every later chunk offset, the
chunk index, the total size and the checksum.
"""

from __future__ import annotations

import csv
import hashlib
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import corpus_root
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.rdef import ShaderType, ShaderVariable

VKD3D = shutil.which("vkd3d-compiler")


def _spirv_sha(data: bytes) -> str:
    assert VKD3D is not None
    proc = subprocess.run([VKD3D, "-x", "dxbc-tpf", "-b", "spirv-binary", "-o", "-", "-"],
                          input=data, capture_output=True, timeout=60, check=False)
    if proc.returncode != 0:
        return f"rc={proc.returncode}: {proc.stderr[-200:]!r}"
    return hashlib.sha256(proc.stdout).hexdigest()


def _renamed(data: bytes) -> bytes | None:
    model = DxbcContainer.from_bytes(data)
    for sig in (model.output_signature, model.input_signature):
        if sig is None:
            continue
        for element in sig.elements:
            if element.system_value_type == 0 and not element.semantic_name.upper().startswith("SV_"):
                element.semantic_name = "SHADERKIT_RENAMED_" + element.semantic_name
                model.fix_checksum()
                edited = model.to_bytes()
                assert DxbcContainer.from_bytes(edited).checksum_state() == "match"
                return edited
    return None


def _grown_rdef(data: bytes) -> bytes | None:
    """A new variable in the first constant buffer (RDEF grows, later chunks move), STAT dropped."""
    model = DxbcContainer.from_bytes(data)
    rdef = model.rdef
    if rdef is None or not rdef.constant_buffers:
        return None
    cb = rdef.constant_buffers[0]
    float4 = ShaderType(1, 3, 1, 4, name="float4" if rdef.is_sm5 else "")
    cb.variables.append(ShaderVariable("shaderkit_extra", float4, start_offset=cb.size, size=16))
    cb.size += 16
    model.remove_chunk("STAT")
    return model.to_bytes()


def _check(path: Path, expected: str) -> list[str]:
    data = path.read_bytes()
    errors = []
    edits = {"rebuilt": DxbcContainer.from_bytes(data).to_bytes(), "renamed semantic": _renamed(data),
             "grown RDEF": _grown_rdef(data)}
    for what, blob in edits.items():
        if blob is None:
            continue
        got = _spirv_sha(blob)
        if got != expected:
            errors.append(f"{path.name}: {what} -> {got}")
    return errors


@pytest.mark.skipif(VKD3D is None, reason="vkd3d-compiler not installed (apt-get install vkd3d-compiler)")
def test_vkd3d_spirv_hashes() -> None:
    root = corpus_root()
    table = None if root is None else root / "dxbc" / "VKD3D_1.2_SPIRV.tsv"
    if table is None or not table.exists():
        pytest.skip("corpus VKD3D_1.2_SPIRV.tsv not found")
    with table.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t") if r["vkd3d_compiler_1.2_result"] == "ok"]
    assert len(rows) == 354
    jobs = [(table.parent / r["file"], r["spirv_sha256"]) for r in rows]
    with ThreadPoolExecutor(max_workers=4) as pool:
        errors = [e for errs in pool.map(lambda job: _check(*job), jobs) for e in errs]
    assert errors == []

"""Oracle: vkd3d-compiler 1.2 turns our rebuilt (and edited) containers into the recorded SPIR-V.

vkd3d checks the magic, the checksum, the chunk index and decodes the whole program, so equal
SPIR-V hashes show that the rebuilt bytes are accepted and carry the same program. The edit
renames one non-system-value semantic (vkd3d does not use those names in SPIR-V), which changes
the signature chunk layout, every later chunk offset and the checksum.
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


def _check(path: Path, expected: str) -> list[str]:
    data = path.read_bytes()
    rebuilt = DxbcContainer.from_bytes(data).to_bytes()
    errors = []
    got = _spirv_sha(rebuilt)
    if got != expected:
        errors.append(f"{path.name}: rebuilt -> {got}")
    edited = _renamed(data)
    if edited is not None:
        got = _spirv_sha(edited)
        if got != expected:
            errors.append(f"{path.name}: renamed semantic -> {got}")
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

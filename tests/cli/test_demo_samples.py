"""The demo's sample files: built by shaderkit, checked against independent expectations."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import shaderkit
from shaderkit.cli import cli
from shaderkit.samples import PICA_SOURCE, SAMPLES, dxbc_sample, pica_sample, sharcfb_sample


def test_demo_builds_and_verifies_every_sample(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == f"{len(SAMPLES)} passed, 0 failed"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(SAMPLES)


def test_dxbc_sample_reads_as_fxc_would_print_it() -> None:
    model = shaderkit.open(dxbc_sample())
    code = [line.rstrip() for line in model.disassemble().splitlines() if line and not line.startswith("//")]
    # what fxc prints for these hand-written tokens
    assert code == ["vs_4_0", "dcl_input v0.xyzw", "dcl_output_siv o0.xyzw, position", "mov o0.xyzw, v0.xyzw", "ret"]
    assert model.checksum_state() == "match"  # type: ignore[attr-defined]


@pytest.mark.skipif(shutil.which("vkd3d-compiler") is None, reason="vkd3d-compiler not installed")
def test_dxbc_sample_is_accepted_by_vkd3d(tmp_path: Path) -> None:
    src = tmp_path / "sample.dxbc"
    src.write_bytes(dxbc_sample())
    run = subprocess.run(["vkd3d-compiler", "-x", "dxbc-tpf", "-b", "spirv-binary", "-o", str(tmp_path / "o.spv"), str(src)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "o.spv").read_bytes()[:4] == bytes.fromhex("03022307")  # SPIR-V magic, little-endian


def test_pica_sample_keeps_its_program() -> None:
    model = shaderkit.open(pica_sample())
    text = model.disassemble()
    # the four dp4 rows and the mul of PICA_SOURCE, with the uniform's name from the symbol table
    assert text.count("dp4 ") == PICA_SOURCE.count("dp4 ") == 4
    assert "mul " in text and ".fvec projection[4]" in text


def test_sharcfb_sample_variation_by_hand() -> None:
    archive = shaderkit.open(sharcfb_sample())
    # macros FOG (0,1) then QUALITY (lo,hi); first macro most significant: FOG=1, QUALITY=lo -> 1*2+0 = 2
    chosen = archive.programs["basic"].variation({"FOG": "1", "QUALITY": "lo"})  # type: ignore[attr-defined]
    assert chosen.index == 2
    assert chosen.binary_indices == {"vertex": 4, "pixel": 5}

"""The CLI contract of DESIGN.md: exit codes, one-line errors, the verify closing line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shaderkit.cli import cli


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shaderkit", *args], capture_output=True, text=True, timeout=120)


def test_unknown_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01\x02\x03 not a shader")
    result = run("info", str(junk))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "not a known shader format" in result.stderr


def test_missing_file_is_exit_2_without_traceback(tmp_path: Path) -> None:
    result = run("info", str(tmp_path / "nope.dxbc"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip()


def test_verify_counts_unknown_files_as_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.bin").write_bytes(b"\xff" * 10)
    result = CliRunner().invoke(cli, ["verify", str(tmp_path)])
    assert result.exit_code == 0
    assert result.output.strip().splitlines()[-1] == "0 passed, 0 failed, 2 skipped"


def test_verify_reports_failure_and_exits_1(tmp_path: Path) -> None:
    broken = tmp_path / "broken.dxbc"
    broken.write_bytes(b"DXBC" + b"\x00" * 10)
    result = run("verify", str(broken))
    assert result.returncode == 1
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "0 passed, 1 failed"
    assert lines[0].startswith(str(broken) + ": ")


def test_identified_only_formats_are_named(tmp_path: Path) -> None:
    # a Switch (little-endian) BFSHA is recognised but not read yet
    bfsha = tmp_path / "x.bfsha"
    bfsha.write_bytes(b"FSHA\0\0\0\0" + b"\xff\xfe" + b"\x00" * 22)
    result = CliRunner().invoke(cli, ["info", "--json", str(bfsha)])
    assert result.exit_code == 0, result.output
    assert "BFSHA" in result.output


@pytest.mark.parametrize("verb", ["info", "disasm", "rebuild", "verify"])
def test_help_for_each_core_verb(verb: str) -> None:
    result = CliRunner().invoke(cli, [verb, "--help"])
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_verify_jobs_and_json_agree_with_serial_run(tmp_path: Path) -> None:
    import json

    from shaderkit.samples import SAMPLES

    for name, build in SAMPLES.items():
        (tmp_path / name).write_bytes(build())
    (tmp_path / "notes.txt").write_text("not a shader")
    broken = bytearray(SAMPLES["sample_vs.dxbc"]())
    broken[-1] ^= 0xFF  # code changed, stored checksum kept -> checksum mismatch
    (tmp_path / "broken.dxbc").write_bytes(bytes(broken))
    result = run("verify", "--jobs", "2", "--json", str(tmp_path))
    assert result.returncode == 1
    *rows, closing = map(json.loads, result.stdout.strip().splitlines())  # pure JSON Lines
    records = {Path(r["file"]).name: r for r in rows}
    assert closing == {"summary": {"passed": len(SAMPLES), "failed": 1, "skipped": 1}}
    assert records["notes.txt"]["status"] == "skipped"
    assert records["broken.dxbc"]["status"] == "failed" and "checksum mismatch" in records["broken.dxbc"]["reason"]
    assert all(records[name]["status"] == "passed" for name in SAMPLES)


def test_info_at_80_columns_cuts_nothing(corpus: Path) -> None:
    # every value of the summary appears whole in the text (tables switch to key/value blocks)
    import json

    for path in [*sorted((corpus / "dxbc").glob("*.dxbc"))[:40], *sorted((corpus / "nx").glob("*.bnsh"))]:
        text = CliRunner().invoke(cli, ["info", "--width", "80", str(path)]).output
        assert "…" not in text, path.name
        summary = json.loads(CliRunner().invoke(cli, ["info", "--json", str(path)]).output)
        for row in summary.get("input_signature", []) + summary.get("stages", []):
            for value in row.values():
                if isinstance(value, str) and len(value) < 60:
                    assert value in text, (path.name, value)

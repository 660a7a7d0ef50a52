"""`verify --jobs`: how files are split among workers, and that the pool changes no result (cli/checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shaderkit.cli import checks as verify


@pytest.mark.parametrize(
    ("count", "jobs", "plan"),
    [
        (0, 4, (1, 1)),  # nothing to do: serial
        (10, 2, (1, 10)),  # too few files for a second worker
        (63, 2, (1, 63)),
        (64, 2, (2, 8)),  # 2 workers x 4 chunks of 8
        (390, 2, (2, 49)),  # the DXBC corpus: 8 chunks, the last one shorter
        (390, 1, (1, 390)),
        (100, 8, (3, 9)),  # workers capped at count // 32
    ],
)
def test_parallel_plan(count: int, jobs: int, plan: tuple[int, int]) -> None:
    assert verify.parallel_plan(count, jobs) == plan


@pytest.mark.parametrize("forked", [True, False], ids=["forked-workers", "standard-pool"])
def test_pool_results_equal_the_serial_ones_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forked: bool) -> None:
    import os

    if forked and not hasattr(os, "fork"):
        pytest.skip("no fork here")
    monkeypatch.setattr(verify, "FORK_WORKERS", forked)
    from shaderkit.samples import SAMPLES

    names: list[str] = []
    (tmp_path / "000_notes.txt").write_text("not a shader")  # first file skipped: the warm-up goes on
    names.append(str(tmp_path / "000_notes.txt"))
    builds = list(SAMPLES.items())
    for i in range(90):
        sample, build = builds[i % len(builds)]
        data = bytearray(build())
        if i % 17 == 5:
            data[-1] ^= 0xFF  # some failures spread over the chunks
        path = tmp_path / f"{i + 1:03d}_{sample}"
        path.write_bytes(bytes(data))
        names.append(str(path))
    monkeypatch.setattr(verify, "_usable_cpus", lambda: 2)  # the pool even on a one-CPU machine
    assert verify.parallel_plan(len(names), 2)[0] == 2
    with verify.checked(names, 1) as results:
        serial = [row for rows in results for row in rows]
    with verify.checked(names, 2) as results:
        pooled = [row for rows in results for row in rows]
    assert pooled == serial
    assert [row[0] for row in pooled] == names
    statuses = {row[1] for row in pooled}
    assert statuses == {verify.PASSED, verify.FAILED, verify.SKIPPED}

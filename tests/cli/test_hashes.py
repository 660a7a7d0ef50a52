"""3Dmigoto's shader hash: FNV-64 with basis 0, multiply then xor, over the whole bytecode."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from shaderkit.cli import cli
from shaderkit.hashes import fnv0_64, migoto_hash


def test_fnv0_64_by_hand() -> None:
    assert fnv0_64(b"") == 0
    assert fnv0_64(b"a") == 0x61  # 0 * prime ^ 0x61
    # 0x61 * 0x100000001b3 = 0x610000000000 + 97 * 435 (= 42195 = 0xa4d3); then ^ 0x62
    assert fnv0_64(b"ab") == 0x61000000A4B1
    assert fnv0_64(b"\xff" * 64) < 1 << 64


def test_migoto_names() -> None:
    assert migoto_hash(b"ab", "pixel") == "000061000000a4b1-ps"
    assert migoto_hash(b"ab", "compute") == "000061000000a4b1-cs"
    assert migoto_hash(b"ab", None) == "000061000000a4b1"


def test_info_shows_the_hash(corpus: Path) -> None:
    path = next(p for p in sorted((corpus / "dxbc").glob("*.dxbc")) if "PS" in p.name or "ps" in p.name)
    record = json.loads(CliRunner().invoke(cli, ["info", "--json", str(path)]).output)
    expected = migoto_hash(path.read_bytes(), record["shader_type"])
    assert record["3dmigoto_hash"] == expected
    text = CliRunner().invoke(cli, ["info", "--width", "80", str(path)]).output
    assert expected in text

"""docs/json.md: every corpus file's ``info --json`` validates against its format's schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shaderkit.cli import cli
from shaderkit.cli.info import info_record
from shaderkit.formats.registry import detect
from shaderkit.schemas import SCHEMA_VERSION, schema_for, schema_names

jsonschema = pytest.importorskip("jsonschema")


def _records(corpus: Path) -> list[tuple[str, dict]]:
    found = []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        data = path.read_bytes()
        spec = detect(data)
        if spec is None:
            continue
        record = json.loads(json.dumps(info_record(data, spec.parse(data)), allow_nan=False))
        found.append((str(path.relative_to(corpus)), record))
    return found


def _errors(record: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema_for(record))
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(record)]


def test_schema_files_are_valid_json_schemas() -> None:
    assert {"dxbc", "dvlb", "bnsh", "nvn", "gsh", "sharc", "sharcfb", "identified", "generic"} <= set(schema_names())
    for name in schema_names():
        jsonschema.Draft202012Validator.check_schema(schema_for({"format": name}))


def test_every_corpus_file_validates(corpus: Path) -> None:
    records = _records(corpus)
    assert len(records) > 450
    failures = {name: errors[:3] for name, record in records if (errors := _errors(record))}
    assert not failures, failures
    formats = {record["format"] for _, record in records}
    assert {"dxbc", "dvlb", "bnsh", "nvn", "gsh", "sharc", "sharcfb"} <= formats
    assert all(schema_for(record)["title"] != schema_for({})["title"] for _, record in records), "a corpus format fell back to the generic schema"


def test_schema_rejects_wrong_types(corpus: Path) -> None:
    # the schemas can fail: a number as a hex string, a missing key, an unknown key
    record = dict(_records_of(corpus, "dxbc/*.dxbc")[0])
    assert not _errors(record)
    bad = copy.deepcopy(record)
    bad["input_signature"][0]["mask"] = "0xf"
    assert _errors(bad)
    bad = copy.deepcopy(record)
    del bad["schema_version"]
    assert _errors(bad)
    bad = copy.deepcopy(record)
    bad["chunks"][0]["offset_hex"] = "0x20"
    assert _errors(bad)
    shbin = _records_of(corpus, "pica/*.shbin")[0]
    bad = copy.deepcopy(shbin)
    bad["dvles"][0]["input_mask"] = "0x0001"
    assert _errors(bad)


def test_layout_key_is_allowed(corpus: Path) -> None:
    record = copy.deepcopy(_records_of(corpus, "dxbc/*.dxbc")[0])
    record["layout"] = [{"item": "header", "offset": 0, "size": 32}]
    assert not _errors(record)
    record["layout"] = [{"item": "header", "offset": "0x0", "size": 32}]
    assert _errors(record)


def _records_of(corpus: Path, pattern: str) -> list[dict]:
    for path in sorted(corpus.glob(pattern)):
        data = path.read_bytes()
        spec = detect(data)
        assert spec is not None
        record = json.loads(json.dumps(info_record(data, spec.parse(data))))
        if record.get("input_signature") or record.get("dvles"):
            return [record]
    raise AssertionError(pattern)


def test_cli_json_starts_with_schema_version(corpus: Path) -> None:
    for path in [next((corpus / "dxbc").glob("*.dxbc")), next((corpus / "pica").glob("*.shbin"))]:
        result = CliRunner().invoke(cli, ["info", "--json", str(path)])
        assert result.exit_code == 0, result.output
        record = json.loads(result.output)
        assert next(iter(record)) == "schema_version" and record["schema_version"] == SCHEMA_VERSION
        assert not _errors(record)


def test_identified_files_name_their_format_id(tmp_path: Path) -> None:
    bfsha = tmp_path / "x.bfsha"
    bfsha.write_bytes(b"FSHA\0\0\0\0" + b"\xff\xfe" + b"\x00" * 22)
    record = json.loads(CliRunner().invoke(cli, ["info", "--json", str(bfsha)]).output)
    assert record["format"] == "bfsha" and record["supported"] is False and "BFSHA" in record["title"]
    assert not _errors(record)


def test_info_at_80_columns_every_format(corpus: Path) -> None:
    # two files of every format besides DXBC/BNSH (covered in test_cli_contract): nothing cut, every
    # string value of the JSON appears whole in the text (wrapped lines joined), no line over 80
    import re

    paths = [p for g in ("pica/*.shbin", "wiiu/*.gsh", "wiiu/*.sharc", "wiiu/*.sharcfb", "wiiu/*.bfsha", "nx/*.bin")
             for p in sorted(corpus.glob(g))[:2]]
    assert len(paths) >= 9

    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) and value else []

    for path in paths:
        text = CliRunner().invoke(cli, ["info", "--width", "80", str(path)]).output
        assert "…" not in text and max(map(len, text.splitlines())) <= 80, path.name
        record = json.loads(CliRunner().invoke(cli, ["info", "--json", str(path)]).output)
        joined = re.sub(r"\s+", "", text)
        missing = [s for s in strings(record) if re.sub(r"\s+", "", s) not in joined]
        assert not missing, (path.name, missing[:3])

"""SDBG (``D3D10_SHADER_DEBUG_INFO``): header typed, tables and datastores kept as bytes.

The corpus has no SDBG chunk; the payload here is packed by hand with the layout of the public
``d3d10_1shader.h`` (21 u32, ``Size`` 84; table offsets from the header's end, string offsets
from the string datastore), the layout the d3dcompiler test blob shows.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from dxbc_build import assert_word_mutants_rebuild, container

from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.raw import RawChunk
from shaderkit.formats.dxbc.sdbg import ShaderDebugInfo


def sdbg_payload() -> bytes:
    """One file ("a.hlsl", 12 bytes of source), no instructions, creator/entry/target strings."""
    file_info = struct.pack("<4I", 0, 6, 6, 12)  # name at 0 (6 chars), data at 6 (12 bytes)
    uints = struct.pack("<2I", 7, 9)
    strings = b"a.hlsl" + b"float4 x;\n\n\n" + b"\0" + b"fxc 9.29\0main\0ps_4_0\0"  # creator at 19
    creator, entry, target = 19, 28, 33
    string_offset = len(file_info) + len(uints)
    header = struct.pack("<21I", 84, creator, entry, target, 0x105, 1, 0, 0, 16, 0, 16, 0, 16, 0, 16, 0, 16,
                         0, 16, len(file_info), string_offset)
    return header + file_info + uints + strings


def test_sdbg_header_is_typed() -> None:
    data = container((b"SDBG", sdbg_payload()))
    model = DxbcContainer.from_bytes(data)
    chunk = model.chunk("SDBG")
    assert isinstance(chunk, ShaderDebugInfo)
    assert chunk.header.size == 84 and chunk.header.compile_flags == 0x105 and chunk.header.files == 1
    summary = model.summary()["shader_debug"]
    assert (summary["creator"], summary["entry_point"], summary["target"]) == ("fxc 9.29", "main", "ps_4_0")
    assert summary["files"] == [{"name": "a.hlsl", "size": 12}]
    assert model.to_bytes() == data
    chunk.header.compile_flags = 0x1
    again = DxbcContainer.from_bytes(model.to_bytes()).chunk("SDBG")
    assert isinstance(again, ShaderDebugInfo) and again.header.compile_flags == 1 and again.body == chunk.body


@pytest.mark.parametrize("payload", [b"\x54\0\0\0" + bytes(40), struct.pack("<21I", 85, *range(20)), b""])
def test_other_sdbg_payloads_stay_raw(payload: bytes) -> None:
    data = container((b"SDBG", payload))
    model = DxbcContainer.from_bytes(data)
    assert isinstance(model.chunk("SDBG"), RawChunk) and "shader_debug" not in model.summary()
    assert model.to_bytes() == data


def test_sdbg_with_offsets_outside_the_body_still_rebuilds() -> None:
    bad = struct.pack("<21I", 84, *([0xFFFFFFFF] * 20)) + b"xyz"
    data = container((b"SDBG", bad))
    model = DxbcContainer.from_bytes(data)
    summary = model.summary()["shader_debug"]
    assert summary["creator"] == "" and summary["files"] == []
    assert model.to_bytes() == data


def test_sdbg_info_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    from conftest import run_cli
    from shaderkit.schemas import schema_for

    path = tmp_path / "s.dxbc"
    path.write_bytes(container((b"SHDR", struct.pack("<2I", 0x40, 2)), (b"SDBG", sdbg_payload())))  # ps_4_0
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    record = json.loads(out)
    assert record["shader_debug"]["target"] == "ps_4_0"
    jsonschema.validate(record, schema_for(record))


def test_every_word_of_an_sdbg_chunk_corrupted() -> None:
    data = container((b"SDBG", sdbg_payload()))
    assert_word_mutants_rebuild(data, (0, 1, 84, 0x7FFFFFFF, 0xFFFFFFFF))

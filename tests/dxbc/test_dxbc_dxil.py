"""DXIL / ILDB chunks (shader model 6, dxc): the typed program header, the bitcode kept as bytes.

Oracle: the header layout of DXC's ``DxilProgramHeader`` / ``DxilBitcodeHeader`` (program version
word: kind << 16 | major << 4 | minor; size in words; "DXIL"; DXIL version major << 8 | minor;
bitcode offset from the magic; bitcode size), values chosen by hand.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from dxbc_build import assert_word_mutants_rebuild, container

from conftest import run_cli
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.dxil import DxilProgram
from shaderkit.formats.dxbc.raw import RawChunk

BITCODE = b"BC\xc0\xde" + bytes(range(12))


def dxil_payload(kind: int = 0, major: int = 6, minor: int = 0, dxil_version: int = 0x100) -> bytes:
    """A DXIL program: the 24-byte header, then 16 bytes of 'bitcode' right after it (offset 16
    from the magic, as dxc writes it)."""
    words = (24 + len(BITCODE)) // 4
    return (struct.pack("<2I", kind << 16 | major << 4 | minor, words) + b"DXIL"
            + struct.pack("<3I", dxil_version, 16, len(BITCODE)) + BITCODE)


def test_dxil_header_is_typed_and_rebuilds() -> None:
    data = container((b"SFI0", struct.pack("<Q", 0)), (b"HASH", bytes(20)), (b"DXIL", dxil_payload(minor=5)))
    model = DxbcContainer.from_bytes(data)
    dxil = model.dxil
    assert isinstance(dxil, DxilProgram)
    assert (dxil.kind, dxil.size_in_words, dxil.dxil_version, dxil.bitcode_offset) == (0, 10, 0x100, 16)
    assert dxil.profile == "ps_6_5" and dxil.bitcode == BITCODE
    assert model.shader_model == "ps_6_5"
    assert model.to_bytes() == data
    info = model.summary()
    assert info["shader_type"] == "pixel"
    assert info["dxil"] == {"profile": "ps_6_5", "stage": "pixel", "dxil_version": "1.0", "size_in_words": 10,
                            "bitcode_offset": 16, "bitcode_size": 16, "bitcode": "LLVM"}


@pytest.mark.parametrize(("kind", "major", "minor", "profile", "stage"), [
    (1, 6, 0, "vs_6_0", "vertex"), (5, 6, 6, "cs_6_6", "compute"), (6, 6, 3, "lib_6_3", "library"),
    (13, 6, 5, "ms_6_5", "mesh"), (14, 6, 5, "as_6_5", "amplification"),
])
def test_program_kinds(kind: int, major: int, minor: int, profile: str, stage: str) -> None:
    model = DxbcContainer.from_bytes(container((b"DXIL", dxil_payload(kind, major, minor))))
    assert model.shader_model == profile and model.summary()["dxil"]["stage"] == stage


def test_ildb_and_edits() -> None:
    data = container((b"ILDB", dxil_payload(1)), (b"DXIL", dxil_payload(1)))
    model = DxbcContainer.from_bytes(data)
    ildb = model.chunk("ILDB")
    assert isinstance(ildb, DxilProgram) and ildb.fourcc == "ILDB" and model.to_bytes() == data
    dxil = model.dxil
    assert dxil is not None
    dxil.dxil_version = 0x107  # DXIL 1.7
    out = model.to_bytes()
    assert struct.unpack_from("<I", out, len(out) - len(BITCODE) - 12)[0] == 0x107
    assert DxbcContainer.from_bytes(out).summary()["dxil"]["dxil_version"] == "1.7"


def test_payload_without_the_magic_stays_raw() -> None:
    payload = dxil_payload().replace(b"DXIL", b"DXIX")
    data = container((b"DXIL", payload))
    model = DxbcContainer.from_bytes(data)
    assert isinstance(model.chunk("DXIL"), RawChunk) and model.dxil is None and model.to_bytes() == data
    short = container((b"DXIL", dxil_payload()[:20]))
    assert isinstance(DxbcContainer.from_bytes(short).chunk("DXIL"), RawChunk)


def test_bitcode_outside_the_payload() -> None:
    payload = bytearray(dxil_payload())
    struct.pack_into("<I", payload, 16, 400)  # bitcode offset past the end
    model = DxbcContainer.from_bytes(container((b"DXIL", bytes(payload))))
    assert model.dxil is not None and model.dxil.bitcode == b""
    assert model.summary()["dxil"]["bitcode"] == "outside the payload"


def test_every_word_corrupted() -> None:
    data = container((b"DXIL", dxil_payload()))
    assert assert_word_mutants_rebuild(data, (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data))) > 0


def test_cli_info_and_disasm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ps.cso"
    path.write_bytes(container((b"DXIL", dxil_payload())))
    code, out, err = run_cli(capsys, "info", "--json", str(path))
    assert code == 0, err
    assert json.loads(out)["dxil"]["profile"] == "ps_6_0"
    code, out, err = run_cli(capsys, "disasm", str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "DXIL program (ps_6_0" in err

"""Mutation round trip: one aligned u32 of a real file overwritten; every accepted mutant rebuilds exactly.

The full measurement is ``tools/mutate_dxbc.py`` (16 words per file by default, ``--all`` for
every word); this test runs a deterministic sample of it (2 words per file, 5 values each).
"""

from __future__ import annotations

import importlib.util
import struct
import sys
from types import ModuleType

import pytest

from conftest import REPO_ROOT, corpus_files
from shaderkit.errors import ShaderFormatError
from shaderkit.formats.dxbc.container import DxbcContainer

WORDS_PER_FILE = 2


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shaderkit_mutate_dxbc", REPO_ROOT / "tools" / "mutate_dxbc.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["shaderkit_mutate_dxbc"] = module
    spec.loader.exec_module(module)
    return module


def test_accepted_mutants_rebuild_byte_for_byte() -> None:
    files = corpus_files("dxbc", "*.dxbc")
    if not files:
        pytest.skip("corpus not found")
    report = _tool().run(files, WORDS_PER_FILE, show=5)
    assert report["foreign_exceptions"] == 0, report["examples_foreign"]
    assert report["not_exact"] == 0, report["examples_not_exact"]
    assert report["accepted"] == report["rebuilt_exactly"]
    # the sample really exercises the writer: most single-word mutants are accepted
    assert report["accepted"] > report["mutants"] // 2 > 1000


def test_mutants_cover_every_value() -> None:
    tool = _tool()
    data = bytes(range(16))
    got = [(off, value) for off, value, _ in tool.mutants("x", data, None)]
    # 4 words x (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 16); none of them equals the original words
    assert len(got) == 20
    assert {v for _, v in got} == {0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 16}
    for off, value, mutated in tool.mutants("x", data, None):
        assert struct.unpack_from("<I", mutated, off)[0] == value
        assert mutated[:off] == data[:off] and mutated[off + 4 :] == data[off + 4 :]


@pytest.mark.parametrize("value", [0, 1, 0x7FFFFFFF, 0xFFFFFFFF])
def test_name_offset_into_another_string_rebuilds(value: int) -> None:
    """Hand-made ISGN whose second name offset is overwritten: shared/overlapping names come back."""
    from shaderkit.formats.dxbc.signature import Signature, SignatureElement

    sig = Signature("ISGN", [SignatureElement("POSITION", 0, 0, 3, 0, 0xF, 0xF),
                             SignatureElement("TEXCOORD", 0, 0, 3, 1, 0x3, 0x3)])
    data = bytearray(DxbcContainer([sig]).to_bytes())
    payload = 32 + 4 + 8
    struct.pack_into("<I", data, payload + 8 + 24, 8 + 48 + 3 if value == 1 else value)  # "ITION" inside "POSITION"
    try:
        model = DxbcContainer.from_bytes(bytes(data))
    except ShaderFormatError:
        return
    assert model.to_bytes() == bytes(data)

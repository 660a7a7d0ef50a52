"""Every format: a mutant (one aligned u32 overwritten) the parser accepts rebuilds byte for byte.

The full measurement over every word is ``tools/mutate.py --all``; here a deterministic sample of
words per file keeps the run short. Rejected mutants must raise ShaderFormatError only.
"""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import REPO_ROOT

#: words mutated per file: few for the 390 DXBC files, more for the few Switch and 3DS files
WORDS_PER_FILE = {"dxbc": 2, "pica": 24, "nx": 96, "wiiu": 8}


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("shaderkit_mutate", REPO_ROOT / "tools" / "mutate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["shaderkit_mutate"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder", sorted(WORDS_PER_FILE))
def test_accepted_mutants_rebuild_byte_for_byte(corpus: Path, folder: str) -> None:
    tool = _tool()
    files = tool.corpus_files(corpus, (folder,))
    if not files:
        pytest.skip(f"no {folder} files in the corpus")
    report = tool.run(files, WORDS_PER_FILE[folder], show=5)
    assert report["foreign_exceptions"] == 0, report["examples_foreign"]
    assert report["not_exact"] == 0, report["examples_not_exact"]
    accepted = sum(c["accepted"] for c in report["accepted_by_format"].values())
    # the sample really exercises the writers: many single-word mutants are accepted
    assert accepted > 100, report


def test_mutants_by_hand() -> None:
    tool = _tool()
    data = bytes(4) + b"\x01\0\0\0"
    got = [(offset, value, mutant[offset : offset + 4]) for offset, value, mutant in tool.mutants("x", data, None)]
    # word 0 is 0: 1, 0x7FFFFFFF, 8 in both byte orders and 0xFFFFFFFF once (the same in both)
    assert got[:7] == [
        (0, 1, b"\x01\0\0\0"), (0, 1, b"\0\0\0\x01"), (0, 0x7FFFFFFF, b"\xff\xff\xff\x7f"),
        (0, 0x7FFFFFFF, b"\x7f\xff\xff\xff"), (0, 0xFFFFFFFF, b"\xff\xff\xff\xff"),
        (0, 8, b"\x08\0\0\0"), (0, 8, b"\0\0\0\x08"),
    ]  # fmt: skip
    # word 1 is 1 (LE): the LE 1 is skipped, the BE 1 is not
    assert (4, 1, b"\0\0\0\x01") in got and (4, 1, b"\x01\0\0\0") not in got
    for offset, _value, mutant in tool.mutants("x", data, None):
        assert mutant[:offset] == data[:offset] and mutant[offset + 4 :] == data[offset + 4 :]


@pytest.mark.parametrize("value", [0, 1, 0x7FFFFFFF, 0xFFFFFFFF])
def test_dxbc_name_offset_into_another_string_rebuilds(value: int) -> None:
    """Hand-made ISGN whose second name offset is overwritten: shared/overlapping names come back."""
    from shaderkit.errors import ShaderFormatError
    from shaderkit.formats.dxbc.container import DxbcContainer
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

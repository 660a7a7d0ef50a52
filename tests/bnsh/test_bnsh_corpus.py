"""Real BNSH files: byte-exact round trip, relayout, dictionaries and relocation tables."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from conftest import corpus_params

from shaderkit.formats.bnsh.bnsh import Bnsh
from shaderkit.formats.nn import dic
from shaderkit.formats.nn.rlt import RelocationTable, group
from shaderkit.formats.nn.strpool import read_string
from shaderkit.io.reader import Reader

BNSH_FILES = corpus_params("nx", "*.bnsh*")


@pytest.mark.parametrize("path", BNSH_FILES)
def test_round_trip_is_byte_exact(path: Path) -> None:
    data = path.read_bytes()
    model = Bnsh.from_bytes(data)
    assert model.to_bytes() == data
    # every byte belongs to a modelled structure: nothing is carried over as opaque gap bytes
    assert model._gaps == []


@pytest.mark.parametrize("path", BNSH_FILES)
def test_relayout_rebuilds_the_original(path: Path) -> None:
    data = path.read_bytes()
    model = Bnsh.from_bytes(data)
    out = model.relayout()
    assert Bnsh.from_bytes(out) == model
    assert out == data
